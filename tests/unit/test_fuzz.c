/* Unit tests of pcaptool fuzz's mutations (common/active/gw_fuzz.c): they
 * change a PDU where its decoded items say its numbers and fields are, in
 * the byte order each number was written in, and the same seed makes the
 * same mutation. The PDU: DNP's link state #0 for link 1001 (little-endian
 * numbers), as dnp_build writes it and the decoder reads it back. */
#include <criterion/criterion.h>
#include <string.h>

#include "active/gw_fuzz.h"
#include "collect.h"
#include "dnp/dnp.h"
#include "openttd/openttd.h"

static const gw_protocol *P = &gw_dnp_protocol;

/* cmd 5, seq 0, link 1001 (e9 03), flags 0, message "ab" (length 2), one
   UInt32 value 99 */
static const uint8_t pdu[] = {0x05, 0x00, 0x00, 0xe9, 0x03, 0x00, 0x02, 0x00, 'a', 'b',
                              0x01, 0x00, 0x05, 0x63, 0x00, 0x00, 0x00};

/* the decoder's items of the PDU */
static unsigned items_of(gw_item *out, unsigned max)
{
    static replay_pdu r;
    int opt[GW_MAX_OPTIONS];
    void *conv = test_conv_new(P, opt);
    const gw_replay_pdu *v = replay_pdu_decode(&r, P, conv, 0, GW_TRANSPORT_UDP,
                                               "05 0000 e903 00 0200 6162 0100 05 63000000");
    cr_assert_eq(v->len, sizeof pdu);
    cr_assert_eq(memcmp(v->data, pdu, sizeof pdu), 0);
    unsigned n = v->n_items < max ? v->n_items : max;
    memcpy(out, v->items, n * sizeof *out);
    test_conv_free(P, conv);
    return n;
}

/* the mutation of seed into m (256 bytes), said in what (200): its length */
static size_t mutate(uint64_t seed, const gw_item *items, unsigned k, uint8_t *m, char *what, unsigned *flags)
{
    gw_rng r = {seed};
    return gw_fuzz_mutate(&r, P, pdu, sizeof pdu, items, k, false, m, 256, what, 200, flags);
}

Test(fuzz, same_seed_same_mutation)
{
    gw_item items[64];
    unsigned k = items_of(items, 64);
    cr_assert_gt(k, 5);
    for (uint64_t seed = 1; seed < 200; seed++) {
        uint8_t a[256], b[256];
        char wa[200], wb[200];
        unsigned fa, fb;
        size_t na = mutate(seed, items, k, a, wa, &fa), nb = mutate(seed, items, k, b, wb, &fb);
        cr_assert_eq(na, nb);
        cr_assert_eq(memcmp(a, b, na), 0);
        cr_assert_str_eq(wa, wb);
        cr_assert_eq(fa, fb);
        cr_assert(!(fa & GW_FUZZ_BYTEWISE), "no byte-by-byte writes on a datagram");
    }
}

/* a number set to a value: only its own bytes change, little-endian as
   DNP writes them (the said value is what the bytes now hold) */
Test(fuzz, a_number_changes_in_its_own_bytes_and_order)
{
    gw_item items[64];
    unsigned k = items_of(items, 64);
    unsigned numbers = 0;
    for (uint64_t seed = 1; seed < 2000; seed++) {
        uint8_t m[256];
        char what[200];
        unsigned flags;
        size_t n = mutate(seed, items, k, m, what, &flags);
        unsigned len, off;
        unsigned long long v, was;
        char name[64];
        if (sscanf(what, "%63s (%u byte%*[s]  at %u)", name, &len, &off) < 3 &&
            sscanf(what, "%63s (%u byte at %u)", name, &len, &off) < 3)
            continue;
        const char *colon = strstr(what, ": ");
        cr_assert(colon && sscanf(colon, ": %llu, was %llu", &v, &was) == 2, "%s", what);
        numbers++;
        cr_assert_eq(n, sizeof pdu, "%s", what);
        for (size_t i = 0; i < n; i++)
            if (i < off || i >= off + len)
                cr_assert_eq(m[i], pdu[i], "byte %zu changed by: %s", i, what);
        cr_assert_eq(gw_get_uint(m + off, len, false), v, "%s", what);
        cr_assert_eq(gw_get_uint(pdu + off, len, false), was, "%s", what);
        if (strcmp(name, "dnp.link_id") == 0)
            cr_assert_eq(was, 1001);
    }
    cr_assert_gt(numbers, 500, "half the mutations aim at a number");
}

/* a cut ends inside or right after an item */
Test(fuzz, cuts_end_at_fields)
{
    gw_item items[64];
    unsigned k = items_of(items, 64);
    unsigned cuts = 0;
    for (uint64_t seed = 1; seed < 2000; seed++) {
        uint8_t m[256];
        char what[200];
        unsigned flags;
        size_t n = mutate(seed, items, k, m, what, &flags);
        if (strncmp(what, "cut to ", 7))
            continue;
        cuts++;
        cr_assert_lt(n, sizeof pdu);
        cr_assert_eq(memcmp(m, pdu, n), 0);
        bool at_field = false;
        for (unsigned i = 0; i < k; i++)
            at_field |= !(items[i].flags & GW_ITEM_GENERATED) && items[i].len &&
                        (n == items[i].off + items[i].len || n == items[i].off + items[i].len - 1);
        cr_assert(at_field, "%s", what);
    }
    cr_assert_gt(cuts, 20);
}

/* Shortening a failure's mutated PDU: first its texts and byte fields
   emptied (the length said right before one set to 0), then its end cut
   by n/2, n/4 ... 1 bytes, then no more candidates */
Test(fuzz, shorten_empties_fields_then_cuts_the_end)
{
    gw_item items[64];
    unsigned k = items_of(items, 64);
    uint8_t out[64];
    char what[160];
    size_t n = gw_fuzz_shorten(P, NULL, pdu, sizeof pdu, items, k, false, 0, out, what, sizeof what);
    static const uint8_t emptied[] = {0x05, 0x00, 0x00, 0xe9, 0x03, 0x00, 0x00, 0x00,
                                      0x01, 0x00, 0x05, 0x63, 0x00, 0x00, 0x00};
    cr_assert_eq(n, sizeof emptied, "the message emptied: %zu bytes (%s)", n, what);
    cr_assert_eq(memcmp(out, emptied, n), 0, "%s", what);
    size_t want[] = {sizeof pdu - 8, sizeof pdu - 4, sizeof pdu - 2, sizeof pdu - 1};
    for (unsigned i = 0; i < 4; i++) {
        n = gw_fuzz_shorten(P, NULL, pdu, sizeof pdu, items, k, false, 1 + i, out, what, sizeof what);
        cr_assert_eq(n, want[i], "candidate %u: %zu bytes (%s)", 1 + i, n, what);
        cr_assert_eq(memcmp(out, pdu, n), 0, "a cut keeps the bytes before it");
    }
    cr_assert_eq(gw_fuzz_shorten(P, NULL, pdu, sizeof pdu, items, k, false, 5, out, what, sizeof what), 0);
}

/* on a stream each candidate is framed again: OpenTTD's size says its new
   length, and a PDU whose framing the mutation broke is not shortened */
Test(fuzz, shorten_frames_a_stream_again)
{
    const gw_protocol *o = &gw_openttd_protocol;
    static replay_pdu r;
    int opt[GW_MAX_OPTIONS];
    void *conv = test_conv_new(o, opt);
    /* CLIENT_JOIN (13.x): revision "13.0", NewGRF version, name "fuzz", company 255 */
    const gw_replay_pdu *v = replay_pdu_decode(&r, o, conv, 0, GW_TRANSPORT_TCP,
                                               "1200 02 31332e3000 646d081d 66757a7a00 ff");
    cr_assert_eq(v->len, 18);
    uint8_t d[18], out[18];
    memcpy(d, v->data, 18);
    char what[160];
    unsigned seen = 0;
    for (unsigned which = 0;; which++) {
        size_t n = gw_fuzz_shorten(o, opt, d, 18, v->items, v->n_items, true, which, out, what, sizeof what);
        if (!n)
            break;
        seen++;
        cr_assert_lt(n, 18);
        cr_assert_eq(o->pdu_length(opt, out, n), (long)n, "candidate %u (%s): framed as its %zu bytes", which, what, n);
    }
    cr_assert_geq(seen, 3, "the texts emptied and cuts: %u candidates", seen);
    d[0] = 0x40; /* the framing claims more than is there */
    cr_assert_eq(gw_fuzz_shorten(o, opt, d, 18, v->items, v->n_items, true, 0, out, what, sizeof what), 0);
    test_conv_free(o, conv);
}
