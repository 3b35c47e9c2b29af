/* Unit tests of the skeleton decoder (common/skeleton/), in a build of its
 * own that registers it (tests/skeleton/protocols.c): the protocol a new one
 * is copied from decodes, checks, frames, claims and builds as
 * common/skeleton/skeleton.h describes. A copied protocol's tests go in the
 * suite of every protocol (tests/<proto>/test_<proto>.c, found by
 * GW_PROTOCOLS), written on real bytes: from a capture of a real
 * implementation or from the protocol's text, the expected values worked
 * out by hand. Here the bytes are written from skeleton.h's layout. */
#include <criterion/criterion.h>
#include <string.h>

#include "collect.h"
#include "core/gw_layout.h"
#include "skeleton/skeleton.h"

PROTOCOL_SUITE(skeleton, gw_skeleton_protocol);

#define field(abbrev) collect_field(P, abbrev)
#define finding(code) collect_finding(P, code)

static const gw_item *item(const char *abbrev)
{
    const gw_item *it = collect_get(&c, field(abbrev), 0);
    cr_assert_not_null(it, "%s missing", abbrev);
    return it;
}

Test(skeleton, registered_in_this_build)
{
    cr_assert_eq(gw_protocol_by_name("skeleton"), &gw_skeleton_protocol);
    cr_assert_null(gw_protocol_by_name("dnp"), "this build registers the skeleton alone");
}

/* version 1, type 2 (data), length 3, "abc" */
Test(skeleton, data_pdu)
{
    collect_decode_on(&c, P, conv, 1, 0, 0, GW_TRANSPORT_UDP, "01 02 0003 616263");
    cr_assert_eq(item("skeleton.version")->v.u, 1);
    cr_assert_eq(item("skeleton.type")->v.u, 2);
    cr_assert_eq(item("skeleton.length")->v.u, 3);
    const gw_item *pl = item("skeleton.payload");
    cr_assert_eq(pl->off, 4);
    cr_assert_eq(pl->v.b.n, 3);
    cr_assert(memcmp(pl->v.b.p, "abc", 3) == 0);
    cr_assert_eq(c.n_findings, 0);
    cr_assert_str_eq(c.summary, "Data, abc");
}

/* version 2: decoded, and the finding on the version byte */
Test(skeleton, unknown_version)
{
    collect_decode_on(&c, P, conv, 1, 0, 0, GW_TRANSPORT_UDP, "02 01 0000");
    cr_assert_eq(item("skeleton.version")->v.u, 2);
    cr_assert_eq(item("skeleton.type")->v.u, 1);
    cr_assert(collect_has_finding(&c, finding("skeleton.version.unknown")));
    cr_assert_eq(c.finding_off[0], 0);
    cr_assert_eq(c.n_findings, 1);
}

/* a length of 5 with 2 bytes there: truncated, the 2 bytes shown as data */
Test(skeleton, truncated)
{
    collect_decode_on(&c, P, conv, 1, 0, 0, GW_TRANSPORT_UDP, "01 01 0005 6162");
    cr_assert(collect_has_finding(&c, SK_E_TRUNCATED));
    cr_assert_eq(item("skeleton.length")->v.u, 5);
    cr_assert_eq(item("skeleton.data")->v.b.n, 2);
    cr_assert_null(collect_get(&c, field("skeleton.payload"), 0));
    cr_assert(strstr(c.summary, " (truncated)"), "summary '%s'", c.summary);
}

/* a datagram longer than its PDU: the rest shown, no finding */
Test(skeleton, bytes_after)
{
    collect_decode_on(&c, P, conv, 1, 0, 0, GW_TRANSPORT_UDP, "01 03 0000 ff");
    cr_assert_eq(item("skeleton.data")->off, 4);
    cr_assert_eq(c.n_findings, 0);
}

Test(skeleton, tcp_framing)
{
    const uint8_t h[] = {1, 2, 0x01, 0x02};
    cr_assert_eq(P->pdu_length(NULL, h, sizeof h), 4 + 0x102);
}

Test(skeleton, heuristic)
{
    int o[GW_MAX_OPTIONS];
    gw_options_init(P, o);
    uint8_t ok[8], bad[8];
    size_t n = unhex("01 02 0002 6869", ok), m = unhex("02 02 0002 6869", bad);
    cr_assert(gw_heuristic_accepts(P, o, GW_TRANSPORT_UDP, ok, n));
    cr_assert_not(gw_heuristic_accepts(P, o, GW_TRANSPORT_UDP, bad, m), "version 2");
    cr_assert_not(gw_heuristic_accepts(P, o, GW_TRANSPORT_UDP, ok, n - 1), "one byte short");
}

/* what build writes (version 1 unless given) decodes to the values it was given */
Test(skeleton, build_then_decode)
{
    uint8_t out[32];
    size_t n = P->build(opt, 1, GW_WVALS(GW_WB(SK_F_PAYLOAD, "hey", 3)), out, sizeof out);
    cr_assert_eq(n, 7);
    const uint8_t want[] = {1, 1, 0, 3, 'h', 'e', 'y'};
    cr_assert(memcmp(out, want, n) == 0);
    gw_pdu_info pi = {1, 0, 0, GW_TRANSPORT_UDP};
    collect_init(&c);
    P->decode(conv, &pi, out, n, &c.sink);
    cr_assert_eq(item("skeleton.version")->v.u, 1);
    cr_assert_eq(item("skeleton.type")->v.u, 1);
    cr_assert_eq(item("skeleton.length")->v.u, 3);
    cr_assert_eq(c.n_findings, 0);
    cr_assert_str_eq(c.summary, "Hello, hey");
}
