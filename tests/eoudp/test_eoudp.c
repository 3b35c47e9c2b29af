/* Unit tests of the EOUDP decoder: real datagrams from
 * eoudp-gen3-r-type-head-session.pcap (R-Type at HEAD, 26-byte header) and
 * hand-written ones for the older header generations (wire-facts
 * 4.3); expected values worked out by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect.h"
#include "eoudp/eoudp.h"
#include "active/gw_replay.h"

PROTOCOL_SUITE(eoudp, gw_eoudp_protocol);

#define field(abbrev) collect_field(P, abbrev)

static bool has(const char *code) { return collect_has_finding(&c, collect_finding(P, code)); }

static const gw_item *item(const char *abbrev, int k)
{
    const gw_item *it = collect_get(&c, field(abbrev), k);
    cr_assert_not_null(it, "%s #%d missing", abbrev, k);
    return it;
}
static uint64_t U(const char *abbrev) { return item(abbrev, 0)->v.u; }

/* findings other than the profile's divergence notes (eoudp.divergence.*,
   which any real datagram raises once per conversation) */
static int findings_but_divergences(void)
{
    int n = 0;
    for (int i = 0; i < c.n_findings; i++)
        n += strncmp(P->findings[c.findings[i]].code, "eoudp.divergence.", 17) != 0;
    return n;
}

static void dec(int dir, int64_t t, const char *hex)
{
    collect_decode(&c, P, conv, 1, t, dir, hex);
}

Test(eoudp, real_connect_ack_and_component)
{
    /* frame 1: 81, f64 BE 427a1fccd5288000, id 0, important 1, size 0 */
    dec(0, 1000, "81 427a1fccd5288000 0000000000000000 01 0000000000000000");
    cr_assert_eq(U("eoudp.generation"), EOUDP_GEN_F64);
    cr_assert_eq(U("eoudp.header_order"), EOUDP_BIG);
    cr_assert_eq(U("eoudp.command"), 0x81);
    cr_assert_eq(U("eoudp.important"), 1);
    cr_assert_eq(U("eoudp.size"), 0);
    /* 0x427a1fccd5288000 = 1795242676872.0 ms */
    cr_assert_float_eq(item("eoudp.timestamp", 0)->v.d, 1795242676872.0, 1e-3);
    cr_assert_eq(findings_but_divergences(), 0);
    /* frame 2: the server acknowledges id 0 (payload u64 little-endian) */
    dec(1, 296000, "01 427a1fccd5289000 0000000000000000 00 0000000000000008 0000000000000000");
    cr_assert_eq(U("eoudp.ack_id"), 0);
    cr_assert_eq(U("eoudp.ack.request_frame"), 1);
    cr_assert_eq(item("eoudp.ack.time", 0)->v.i, 295000);
    /* frame 4: entity component: entity c0e4d2c73b705393 (LE), "TagComponent",
       content "Player_0" */
    dec(1, 0, "0c 427a1fccd5671000 0000000000000001 00 0000000000000024 c0e4d2c73b705393 "
              "0c000000 546167436f6d706f6e656e74 08000000 506c617965725f30");
    cr_assert_eq(findings_but_divergences(), 0);
    cr_assert_eq(U("eoudp.id"), 1);
    cr_assert_eq(U("eoudp.entity"), 0x9353703bc7d2e4c0ull);
    const gw_item *s = item("eoudp.component", 0);
    cr_assert(s->v.b.n == 12 && memcmp(s->v.b.p, "TagComponent", 12) == 0);
    cr_assert_eq(U("eoudp.content.length"), 8);
}

Test(eoudp, older_generations)
{
    /* RFC text, 21 bytes: 0e, f32, id 7, size 8, entity 5 */
    dec(1, 0, "0e 47c35000 0000000000000007 0000000000000008 0500000000000000");
    cr_assert_eq(U("eoudp.generation"), EOUDP_GEN_RFC);
    cr_assert_eq(U("eoudp.entity"), 5);
    cr_assert_float_eq(item("eoudp.timestamp", 0)->v.d, 100000.0, 1e-6); /* 0x47c35000 */
    /* 22 bytes with important (1-8 Jan 2024): important 1, size 8 */
    teardown(); setup();
    dec(1, 0, "0e 47c35000 0000000000000007 01 0000000000000008 0500000000000000");
    cr_assert_eq(U("eoudp.generation"), EOUDP_GEN_IMP);
    cr_assert_eq(U("eoudp.important"), 1);
    /* 22 bytes with the pad (until 31 Dec 2023) */
    teardown(); setup();
    dec(1, 0, "0e 47c35000 0000000000000007 0000000000000008 00 0500000000000000");
    cr_assert_eq(U("eoudp.generation"), EOUDP_GEN_PAD);
    cr_assert_eq(U("eoudp.entity"), 5);
}

Test(eoudp, ambiguous_then_conversation)
{
    /* an empty payload with important 0 fits both 22-byte headers: the
       option decides, a note says so */
    opt[EOUDP_OPT_DEFAULT] = EOUDP_GEN_PAD;
    dec(0, 0, "82 47c35000 0000000000000001 00 0000000000000000");
    cr_assert_eq(U("eoudp.generation"), EOUDP_GEN_PAD);
    cr_assert(has("eoudp.generation.forced"));
}

Test(eoudp, malformed)
{
    dec(1, 0, "0c 427a1fccd5671000 0000000000000001 00 0000000000000010 0100000000000000 ff000000 41");
    cr_assert(has("eoudp.size.mismatch") || has("eoudp.string.past_end"));
    dec(1, 0, "0c 427a1fccd5671000 0000000000000002 00 000000000000000d 0100000000000000 ff000000 41");
    cr_assert(has("eoudp.string.past_end"));
    dec(1, 0, "0c 427a");
    cr_assert(has("eoudp.truncated"));
    dec(1, 0, "0b 427a1fccd5671000 0000000000000003 00 0000000000000007 03000000 616200");
    cr_assert(has("eoudp.string.nul_terminated"));
    /* a client command from the server once the client is known */
    dec(0, 0, "81 427a1fccd5288000 0000000000000000 01 0000000000000000");
    dec(1, 0, "82 427a1fccd5288000 0000000000000004 00 0000000000000000");
    cr_assert(has("eoudp.command.wrong_side"));
}

Test(eoudp, heuristic)
{
    uint8_t d[64];
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, d, unhex("81 427a1fccd5288000 0000000000000000 01 0000000000000000", d)));
    cr_assert(!P->heuristic(opt, GW_TRANSPORT_UDP, d, unhex("81 427a1fccd5288000 0000000000000000 01 0000000000000005", d)));
    cr_assert(!P->heuristic(opt, GW_TRANSPORT_UDP, d, unhex("45 427a1fccd5288000 0000000000000000 01 0000000000000000", d)));
    /* zero-filled datagrams fit the 21-, 22- and 26-byte headers' size
       fields (size 0) but their timestamp is no time (issue 20: they were
       claimed as "Packet info #0") */
    uint8_t zero[26] = {0};
    for (size_t n = 21; n <= 26; n++)
        cr_assert(!P->heuristic(opt, GW_TRANSPORT_UDP, zero, n), "%zu zero bytes", n);
    /* the 21-byte header (f32 timestamp: 1.795e12 ms is 53d0f72b), either order */
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, d, unhex("81 53d0f72b 0000000000000001 0000000000000000", d)));
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, d, unhex("81 2bf7d053 0100000000000000 0000000000000000", d)));
    /* packet info (0x00) with a plausible header but not its counters: the
       heuristic says yes, the decoder says truncated: not claimed */
    size_t n = unhex("00 53d0f72b 0000000000000001 0000000000000000", d);
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, d, n));
    cr_assert(!gw_heuristic_accepts(P, opt, GW_TRANSPORT_UDP, d, n));
    n = unhex("81 427a1fccd5288000 0000000000000000 01 0000000000000000", d);
    cr_assert(gw_heuristic_accepts(P, opt, GW_TRANSPORT_UDP, d, n), "a connect decodes clean");
}

static void decf(uint32_t frame, int dir, int64_t t, const char *hex)
{
    collect_decode(&c, P, conv, frame, t, dir, hex);
}

Test(eoudp, order_kept_from_the_conversation)
{
    /* the text's header read little-endian: a 12-byte connect payload tells
       the order (size 0c 00.. little-endian)... */
    dec(0, 0, "81 2bf7d053 0000000000000000 0c00000000000000 2bf7d053 0700000000000000");
    cr_assert_eq(U("eoudp.header_order"), EOUDP_LITTLE);
    cr_assert_eq(U("eoudp.connect.server_id"), 7);
    /* ...which an empty datagram (size 0 reads the same both ways) keeps:
       id 0b 00.. is 11, not 0x0b00000000000000 */
    dec(0, 0, "82 2bf7d053 0b00000000000000 0000000000000000");
    cr_assert_eq(U("eoudp.generation"), EOUDP_GEN_RFC);
    cr_assert_eq(U("eoudp.header_order"), EOUDP_LITTLE);
    cr_assert_eq(U("eoudp.id"), 11);
    cr_assert_eq(U("eoudp.generation.basis"), 1); /* only the 21-byte header fits */
}

/* an empty datagram first (size 0 reads the same both ways): the order is
   the option's, big-endian unless eoudp.default_order says little */
Test(eoudp, order_of_an_empty_datagram_from_the_option)
{
    dec(0, 0, "82 2bf7d053 0b00000000000000 0000000000000000");
    cr_assert_eq(U("eoudp.header_order"), EOUDP_BIG);
    cr_assert_eq(U("eoudp.id"), 0x0b00000000000000ull);
    P->conv_free(conv);
    opt[EOUDP_OPT_ORDER] = EOUDP_LITTLE;
    P->conv_init(conv, opt);
    dec(0, 0, "82 2bf7d053 0b00000000000000 0000000000000000");
    opt[EOUDP_OPT_ORDER] = EOUDP_BIG;
    cr_assert_eq(U("eoudp.header_order"), EOUDP_LITTLE);
    cr_assert_eq(U("eoudp.id"), 11);
}

/* records what conv_end() reports */
static struct {
    int n;
    uint32_t frame[8];
    int finding[8], dir[8];
    size_t off[8];
} ended;

static void on_end(void *ctx, uint32_t frame, int64_t t, int dir, int finding, size_t off,
                   size_t len, const char *msg)
{
    (void)ctx; (void)t; (void)len; (void)msg;
    if (ended.n < 8) {
        ended.frame[ended.n] = frame;
        ended.finding[ended.n] = finding;
        ended.dir[ended.n] = dir;
        ended.off[ended.n++] = off;
    }
}

Test(eoudp, unacknowledged_reported_at_the_end)
{
    memset(&ended, 0, sizeof ended);
    /* frames 4 and 5: two important deleted entities (ids 2 and 3) from the
       server; frame 6: the client acknowledges id 2 only */
    decf(4, 1, 0, "0e 427a1fccd5671000 0000000000000002 01 0000000000000008 0500000000000000");
    decf(5, 1, 0, "0e 427a1fccd5671000 0000000000000003 01 0000000000000008 0600000000000000");
    decf(6, 0, 7000, "01 427a1fccd5671000 0000000000000000 00 0000000000000008 0200000000000000");
    cr_assert_eq(U("eoudp.ack.request_frame"), 4);
    gw_end_sink es = {NULL, on_end, NULL};
    P->conv_end(conv, &es);
    cr_assert_eq(ended.n, 1);
    cr_assert_eq(ended.frame[0], 5);
    cr_assert_eq(ended.dir[0], 1);
    cr_assert_eq(ended.off[0], 9); /* the id field */
    cr_assert_eq(ended.finding[0], collect_finding(P, "eoudp.ack.missing"));
}

/* EOUDP text, Usage: "Server -> [0x0e][Timestamp][Id][Id][Entity]..." and
   "[0x0b][Timestamp][Id][System][System]...": every item of a datagram is
   decoded (fewer bytes than an item are trailing, not a truncated item) */
Test(eoudp, repeated_items_are_all_decoded)
{
    decf(1, 1, 0, "0e 427a1fccd5671000 0000000000000002 00 0000000000000018 0500000000000000 0600000000000000 0700000000000000");
    cr_assert_eq(collect_count(&c, collect_field(P, "eoudp.entity")), 3);
    cr_assert_not(has("eoudp.trailing"));
    cr_assert(strstr(c.summary, "entity 0x5 (+2 more)") != NULL, "%s", c.summary);
    decf(2, 1, 0, "0b 427a1fccd5671000 0000000000000003 00 000000000000000d 03000000 414243 02000000 4445");
    cr_assert_eq(collect_count(&c, collect_field(P, "eoudp.system")), 2);
    cr_assert_not(has("eoudp.trailing"));
    cr_assert_not(has("eoudp.string.past_end"));
    decf(3, 1, 0, "0e 427a1fccd5671000 0000000000000004 00 000000000000000a 0500000000000000 dead");
    cr_assert_eq(collect_count(&c, collect_field(P, "eoudp.entity")), 1);
    cr_assert(has("eoudp.trailing"));
    cr_assert_not(has("eoudp.truncated"));
}

/* EOUDP text: Component, System, GameEvents: "Null terminated string prefixed
   with a 32 bit (4 bytes) unsigned integer representing the length of the
   string". The length may count the NUL or not: under the default profile
   (either) and spec both readings decode without an error, the NUL noted;
   the strict reference profile reads the implementation's strings (no NUL),
   where the uncounted NUL shifts what follows. */
static void component_nul_after(void)
{
    /* the component of frame 4 of the R-Type session, its name followed by
       a NUL the length (12) does not count: size 8 + 4 + 12 + 1 + 4 + 8 = 37 */
    decf(1, 1, 0, "0c 427a1fccd5671000 0000000000000001 00 0000000000000025 c0e4d2c73b705393 "
                  "0c000000 546167436f6d706f6e656e74 00 08000000 506c617965725f30");
}

Test(eoudp, string_nul_not_counted_by_its_length)
{
    component_nul_after();
    cr_assert_not(has("eoudp.string.past_end"));
    cr_assert_not(has("eoudp.trailing"));
    cr_assert(has("eoudp.string.nul_terminated"));
    const gw_item *s = item("eoudp.component", 0);
    cr_assert(s->v.b.n == 12 && memcmp(s->v.b.p, "TagComponent", 12) == 0);
    cr_assert_eq(U("eoudp.content.length"), 8);
    /* a system to load, "ABC" and its uncounted NUL: size 4 + 3 + 1 */
    decf(2, 1, 0, "0b 427a1fccd5671000 0000000000000002 00 0000000000000008 03000000 414243 00");
    cr_assert_not(has("eoudp.trailing"));
    cr_assert(has("eoudp.string.nul_terminated"));
    /* counted by its length, as before: size 4 + 4 */
    decf(3, 1, 0, "0b 427a1fccd5671000 0000000000000003 00 0000000000000008 04000000 41424300");
    cr_assert_not(has("eoudp.trailing"));
    cr_assert(has("eoudp.string.nul_terminated"));
    cr_assert_eq(collect_count(&c, collect_field(P, "eoudp.system")), 1);
}

Test(eoudp, string_nul_not_counted_under_spec)
{
    opt[EOUDP_OPT_PROFILE] = GW_PROFILE_SPEC;
    component_nul_after();
    cr_assert_not(has("eoudp.string.past_end"));
    cr_assert_not(has("eoudp.string.not_nul_terminated"));
    cr_assert_eq(U("eoudp.content.length"), 8);
}

Test(eoudp, string_nul_not_counted_under_reference)
{
    opt[EOUDP_OPT_PROFILE] = GW_PROFILE_REFERENCE;
    component_nul_after();
    cr_assert(has("eoudp.string.past_end"));
}

/* "the (MTU) Maximum Transmission Unit of the network (1500 bytes)" */
Test(eoudp, datagrams_over_the_mtu)
{
    char hex[2 * 1600 + 128] = "0b 427a1fccd5671000 0000000000000002 00 00000000000005c2 be050000";
    for (int i = 0; i < 1470; i++)
        strcat(hex, "61");
    decf(1, 1, 0, hex); /* 26 + 4 + 1470 = 1500 bytes */
    cr_assert_not(has("eoudp.datagram.over_mtu"));
    strcpy(hex, "0b 427a1fccd5671000 0000000000000002 00 00000000000005c3 bf050000");
    for (int i = 0; i < 1471; i++)
        strcat(hex, "61");
    decf(2, 1, 0, hex);
    cr_assert(has("eoudp.datagram.over_mtu"));
}

/* a connect answered by neither accept nor reject; under spec, a disconnect
   without the text's 0x11, and a "MUST get an acknowledge" command
   unacknowledged although its header's flag is 0 */
Test(eoudp, unanswered_connect_and_disconnect_and_the_texts_acknowledges)
{
    memset(&ended, 0, sizeof ended);
    opt[EOUDP_OPT_PROFILE] = GW_PROFILE_SPEC;
    decf(1, 0, 0, "81 427a1fccd5671000 0000000000000000 01 0000000000000000");
    decf(2, 1, 0, "0e 427a1fccd5671000 0000000000000001 00 0000000000000008 0500000000000000");
    decf(3, 0, 0, "82 427a1fccd5671000 0000000000000001 00 0000000000000000");
    gw_end_sink es = {NULL, on_end, NULL};
    P->conv_end(conv, &es);
    opt[EOUDP_OPT_PROFILE] = GW_PROFILE_REFERENCE;
    int seen = 0;
    for (int i = 0; i < ended.n; i++) {
        if (ended.finding[i] == collect_finding(P, "eoudp.connect.unanswered")) {
            seen |= 1;
            cr_assert_eq(ended.frame[i], 1);
        }
        if (ended.finding[i] == collect_finding(P, "eoudp.disconnect.unanswered")) {
            seen |= 2;
            cr_assert_eq(ended.frame[i], 3);
        }
        if (ended.finding[i] == collect_finding(P, "eoudp.ack.missing") && ended.frame[i] == 2)
            seen |= 4; /* the deleted entity (flag 0) awaits its ack under spec */
    }
    cr_assert_eq(seen, 7, "found %d of connect, disconnect, ack", seen);
}

/* wire-facts 4.9 (the R-Type client, captured): "a retried connect gets a new
   id but keeps its first timestamp". A retry sent before the accept reached
   the client is answered by that accept: not unanswered. A connect with a
   timestamp of its own after the accept is a new attempt, and unanswered. */
Test(eoudp, retried_connect_answered_before_it)
{
    memset(&ended, 0, sizeof ended);
    /* the connect of eoudp-gen3-r-type-head-session.pcap frame 1, its ack and
       the accept (player 0), then the client's retry: id 1, same timestamp */
    decf(1, 0, 0, "81 427a1fccd5288000 0000000000000000 01 0000000000000000");
    decf(2, 1, 0, "01 427a1fccd5289000 0000000000000000 00 0000000000000008 0000000000000000");
    decf(3, 1, 0, "02 427a1fccd5289000 0000000000000000 01 0000000000000008 0000000000000000");
    decf(4, 0, 0, "81 427a1fccd5288000 0000000000000001 01 0000000000000000");
    decf(5, 1, 0, "01 427a1fccd5289000 0000000000000001 00 0000000000000008 0100000000000000");
    decf(6, 0, 0, "01 427a1fccd5289000 0000000000000002 00 0000000000000008 0000000000000000");
    gw_end_sink es = {NULL, on_end, NULL};
    P->conv_end(conv, &es);
    for (int i = 0; i < ended.n; i++)
        cr_assert_neq(ended.finding[i], collect_finding(P, "eoudp.connect.unanswered"), "frame %u",
                      ended.frame[i]);
    /* a later connect with a new timestamp is a new attempt: unanswered */
    memset(&ended, 0, sizeof ended);
    decf(7, 0, 0, "81 427a1fccd5671000 0000000000000003 01 0000000000000000");
    P->conv_end(conv, &es);
    int unanswered = 0;
    for (int i = 0; i < ended.n; i++)
        if (ended.finding[i] == collect_finding(P, "eoudp.connect.unanswered")) {
            unanswered++;
            cr_assert_eq(ended.frame[i], 7);
        }
    cr_assert_eq(unanswered, 1);
}

Test(eoudp, oldest_unacknowledged_given_up_with_a_finding)
{
    char hex[256];
    /* EOUDP_ACKS important packets wait; the next one pushes out frame 1 */
    for (unsigned i = 0; i <= EOUDP_ACKS; i++) {
        snprintf(hex, sizeof hex, "0e 427a1fccd5671000 %016x 01 0000000000000008 0500000000000000", i);
        decf(i + 1, 1, 0, hex);
        cr_assert_eq(has("eoudp.ack.missing"), i == EOUDP_ACKS, "packet %u", i);
    }
    cr_assert(strstr(c.summary, "Deleted entity") != NULL);
}

Test(eoudp, resend_links_to_the_first_send)
{
    decf(1, 1, 0, "0e 427a1fccd5671000 0000000000000002 01 0000000000000008 0500000000000000");
    decf(2, 1, 0, "0e 427a1fccd5671000 0000000000000003 00 0000000000000008 0600000000000000");
    decf(3, 1, 0, "0e 427a1fccd5671000 0000000000000002 01 0000000000000008 0500000000000000");
    cr_assert_eq(U("eoudp.resend_of"), 1);
    cr_assert(has("eoudp.resent"));
    cr_assert(!has("eoudp.id.reordered"));
    /* the acknowledge answers the first send */
    decf(4, 0, 9000, "01 427a1fccd5671000 0000000000000000 00 0000000000000008 0200000000000000");
    cr_assert_eq(U("eoudp.ack.request_frame"), 1);
    cr_assert_eq(item("eoudp.ack.time", 0)->v.i, 9000);
}

Test(eoudp, packet_info_against_the_capture)
{
    /* the server sends ids 0, 1 and (after id 2, lost) 3; the client sends
       one datagram; then the server's packet info says: received 1, sent 4 */
    const char *srv = "0e 427a1fccd5671000 %016x 00 0000000000000008 0500000000000000";
    char hex[128];
    unsigned ids[] = {0, 1, 3};
    for (int i = 0; i < 3; i++) {
        snprintf(hex, sizeof hex, srv, ids[i]);
        dec(1, 0, hex);
    }
    dec(0, 0, "8b 427a1fccd5671000 0000000000000000 00 0000000000000005 2000000001");
    dec(1, 0, "00 427a1fccd5671000 0000000000000004 00 0000000000000008 01000000 04000000");
    cr_assert_eq(U("eoudp.info.received"), 1);
    cr_assert_eq(U("eoudp.info.sent"), 4);
    cr_assert_eq(U("eoudp.info.seen_received"), 1);
    cr_assert_eq(U("eoudp.info.seen_sent"), 3);
    cr_assert_eq(item("eoudp.loss.to_sender", 0)->v.i, 0);
    cr_assert_eq(item("eoudp.loss.from_sender", 0)->v.i, 1);
    /* receiving it reset the client's counters: one more server datagram,
       then the client's info says received 0 (it lost that one) sent 0 */
    dec(1, 0, "0e 427a1fccd5671000 0000000000000005 00 0000000000000008 0500000000000000");
    dec(0, 0, "00 427a1fccd5671000 0000000000000001 00 0000000000000008 00000000 00000000");
    cr_assert_eq(U("eoudp.info.seen_received"), 1);
    cr_assert_eq(U("eoudp.info.seen_sent"), 0);
    cr_assert_eq(item("eoudp.loss.to_sender", 0)->v.i, 1);
    cr_assert_eq(item("eoudp.loss.from_sender", 0)->v.i, 0);
}

/* ---- pcaptool replay's hooks ---- */

/* a 26-byte header (from 8 Jan 2024): command, f64 timestamp, id, important,
   size, all big-endian; the payload little-endian */
#define TS "42 7a 1e 4b 2a 6f 40 00"

static const gw_replay_pdu *pdu(replay_pdu *x, void *cv, int dir, const char *hex)
{
    return replay_pdu_decode(x, P, cv, dir, GW_TRANSPORT_UDP, hex);
}

Test(eoudp, replay_acks_follow_the_live_ids)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    void *live_conv = test_conv_new(P, opt);
    replay_pdu x, y;
    uint8_t ack[64];
    char why[200] = "";
    /* the peer's important 0x0e (deleted entity 7): recorded id 4, live id 9 */
    const gw_replay_pdu *rec = pdu(&x, conv, 1, "0e " TS " 00 00 00 00 00 00 00 04 01 00 00 00 00 00 00 00 08"
                                                " 07 00 00 00 00 00 00 00");
    const gw_replay_pdu *live = pdu(&y, live_conv, 1, "0e " TS " 00 00 00 00 00 00 00 09 01 00 00 00 00 00 00 00 08"
                                                      " 07 00 00 00 00 00 00 00");
    cr_assert_eq(rec->type, 0x0e);
    cr_assert_eq(r->need(st, rec), GW_REPLAY_ANSWER);
    cr_assert(r->match(st, rec, live, why, sizeof why));
    /* not important: streams */
    cr_assert_eq(r->need(st, pdu(&y, live_conv, 1, "0e " TS " 00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00 08"
                                                    " 07 00 00 00 00 00 00 00")),
                 GW_REPLAY_OPTIONAL);
    /* our recorded ack of id 4 (our id 2) acknowledges 9, sent now */
    rec = pdu(&x, conv, 0, "01 " TS " 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 08"
                           " 04 00 00 00 00 00 00 00");
    memcpy(ack, rec->data, rec->len);
    r->adapt(st, rec, ack);
    cr_assert_eq(ack[26], 9);
    cr_assert_eq(ack[16], 2, "our own id stays");
    uint64_t bits = 0;
    for (int i = 1; i <= 8; i++) /* the header is big-endian */
        bits = bits << 8 | ack[i];
    double ms;
    memcpy(&ms, &bits, 8);
    cr_assert(fabs(ms / 1000 - (double)time(NULL)) < 60, "timestamp %f ms is not now", ms);
    /* the peer's ack must name our recorded id */
    rec = pdu(&x, conv, 1, "01 " TS " 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 00 08"
                           " 05 00 00 00 00 00 00 00");
    live = pdu(&y, live_conv, 1, "01 " TS " 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00 00 08"
                                 " 06 00 00 00 00 00 00 00");
    cr_assert_eq(r->need(st, rec), GW_REPLAY_ANSWER);
    cr_assert_not(r->match(st, rec, live, why, sizeof why));
    cr_assert_str_eq(why, "acknowledges id 6, expected 5");
    test_conv_free(P, live_conv);
    free(st);
}

/* a 21-byte header (the RFC text's: f32 timestamp, no important flag, here
   little-endian): the timestamp written back is an f32 in that order, and
   what the command implies decides the need */
Test(eoudp, replay_adapts_a_21_byte_header)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    replay_pdu x;
    uint8_t d[64];
    /* 0x8b (event) id 3, size 5: event 65 pressed; 0x0b (deleted entity,
       "MUST get an acknowledge" in the text) id 4, size 8 */
    const gw_replay_pdu *p = pdu(&x, conv, 0, "8b 00 00 80 4f  03 00 00 00 00 00 00 00  05 00 00 00 00 00 00 00"
                                              "  41 00 00 00 01");
    cr_assert_eq(p->type, 0x8b);
    memcpy(d, p->data, p->len);
    r->adapt(st, p, d);
    uint32_t b32 = (uint32_t)d[1] | (uint32_t)d[2] << 8 | (uint32_t)d[3] << 16 | (uint32_t)d[4] << 24;
    float f;
    memcpy(&f, &b32, 4);
    cr_assert(fabs((double)f / 1000 - (double)time(NULL)) < 600, "timestamp %f ms is not now", (double)f);
    cr_assert_arr_eq(d + 5, p->data + 5, p->len - 5, "only the timestamp changes");
    cr_assert_eq(r->need(st, p), GW_REPLAY_OPTIONAL);
    p = pdu(&x, conv, 1, "0b 00 00 80 4f  04 00 00 00 00 00 00 00  08 00 00 00 00 00 00 00"
                         "  07 00 00 00 00 00 00 00");
    cr_assert_eq(r->need(st, p), GW_REPLAY_ANSWER);
    free(st);
}

/* EOUDP text, Usage, End: "Client -> [0x82][Timestamp][Id][Id] and Server ->
   [0x11][Timestamp][Id][Id]", where the command table gives 0x82 no content
   and 0x11 an [Event]: each reading decodes, none has trailing bytes */
Test(eoudp, the_usage_sections_end)
{
    decf(1, 0, 0, "82 0050c347 0300000000000000 0800000000000000 0300000000000000");
    cr_assert_not(has("eoudp.trailing"));
    cr_assert_eq(U("eoudp.end.id"), 3);
    decf(2, 1, 0, "11 0050c347 0900000000000000 0800000000000000 0300000000000000");
    cr_assert_not(has("eoudp.trailing"));
    cr_assert_eq(U("eoudp.end.id"), 3);
    cr_assert_eq(collect_count(&c, collect_field(P, "eoudp.event")), 0);
    decf(3, 1, 0, "11 0050c347 0a00000000000000 0400000000000000 05000000");
    cr_assert_not(has("eoudp.trailing"));
    cr_assert_eq(U("eoudp.event"), 5);
    decf(4, 0, 0, "82 0050c347 0400000000000000 0000000000000000");
    cr_assert_not(has("eoudp.trailing"));
    cr_assert_eq(collect_count(&c, collect_field(P, "eoudp.end.id")), 0);
}
