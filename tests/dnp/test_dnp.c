/* Unit tests of the DNP decoder on byte vectors checked by hand against
 * the DNP text and wire-facts 1. */
#include <criterion/criterion.h>
#include <glib.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "dnp/dnp.h"
#include "active/gw_replay.h"

PROTOCOL_SUITE(dnp, gw_dnp_protocol);

static void dec(uint32_t frame, int dir, const char *hex)
{
    collect_decode(&c, P, conv, frame, (int64_t)frame * 1000000000, dir, hex);
}

/* findings about the bytes, not the conversation's behaviour (the rules from
   dnp.connect.not_accepted on, which these single-PDU tests do not set up) */
static int malformed_findings(void)
{
    int n = 0;
    for (int i = 0; i < c.n_findings; i++)
        n += c.findings[i] < DNP_E_NOT_ACCEPTED;
    return n;
}

static uint64_t U(int field, int k)
{
    const gw_item *it = collect_get(&c, field, k);
    cr_assert_not_null(it, "field %s #%d missing", P->fields[field].abbrev, k);
    return it->v.u;
}

static int64_t I(int field, int k)
{
    const gw_item *it = collect_get(&c, field, k);
    cr_assert_not_null(it, "field %s #%d missing", P->fields[field].abbrev, k);
    return it->v.i;
}

static double D(int field, int k)
{
    const gw_item *it = collect_get(&c, field, k);
    cr_assert_not_null(it, "field %s #%d missing", P->fields[field].abbrev, k);
    return it->v.d;
}

static void assert_bytes(int field, int k, const char *expect, size_t n)
{
    const gw_item *it = collect_get(&c, field, k);
    cr_assert_not_null(it);
    cr_assert_eq(it->v.b.n, n, "length %zu, expected %zu", it->v.b.n, n);
    cr_assert(memcmp(it->v.b.p, expect, n) == 0);
}

Test(dnp, float16_is_ieee_binary16)
{
    /* wire-facts 1.13: 1.0 = 00 3c, -2.5 = 00 c1, 65504 = ff 7b (little-endian) */
    cr_assert_eq(gw_half_to_double(0x3c00), 1.0);
    cr_assert_eq(gw_half_to_double(0xc100), -2.5);
    cr_assert_eq(gw_half_to_double(0x7bff), 65504.0);
    cr_assert_eq(gw_half_to_double(0x0001), ldexp(1.0, -24)); /* smallest subnormal */
    /* 0 01101 0101010101: (1 + 341/1024) * 2^(13-15) = 0.333251953125 */
    cr_assert_eq(gw_half_to_double(0x3555), 0.333251953125);
    cr_assert(isinf(gw_half_to_double(0x7c00)));
    cr_assert(isnan(gw_half_to_double(0x7e00)));
    cr_assert(signbit(gw_half_to_double(0x8000)));
}

Test(dnp, connection_request_as_clients_send_it)
{
    dec(1, 0, "00 0100 0000");
    cr_assert_eq(U(DNP_F_COMMAND, 0), 0);
    cr_assert_eq(U(DNP_F_PROTOCOL_COUNT, 0), 1);
    cr_assert_eq(U(DNP_F_PROTOCOL, 0), 0);
    cr_assert_eq(malformed_findings(), 0);
    cr_assert_str_eq(c.summary, "Connection request (DNP1)");
}

Test(dnp, connection_ack_protocol_only_when_accepted)
{
    dec(2, 1, "01 00 0000");
    cr_assert_eq(U(DNP_F_RESULT, 0), 0);
    cr_assert_eq(U(DNP_F_PROTOCOL, 0), 0);
    cr_assert_eq(malformed_findings(), 0);
    dec(3, 1, "01 02");
    cr_assert_eq(U(DNP_F_RESULT, 0), 2);
    cr_assert_eq(collect_count(&c, DNP_F_PROTOCOL), 0);
    cr_assert_eq(malformed_findings(), 0);
    dec(4, 1, "01 01 0000");
    cr_assert(collect_has_finding(&c, DNP_E_PROTOCOL_IN_REJECTION));
}

/* the link state captured from denetwork (wire-facts 1.14) */
#define CAPTURED_LINK_STATE \
    "05 0000 0000 01 0100 01 0200 0b 1800 536174204e6f762032312030363a31343a34342032303236 02 1e00"

Test(dnp, captured_link_state)
{
    dec(3, 1, CAPTURED_LINK_STATE);
    cr_assert_eq(U(DNP_F_COMMAND, 0), 5);
    cr_assert_eq(U(DNP_F_SEQ, 0), 0);
    cr_assert_eq(U(DNP_F_LINK_ID, 0), 0);
    cr_assert_eq(U(DNP_F_FLAGS, 0), 1);
    cr_assert_eq(gw_field_masked(&P->fields[DNP_F_FLAG_READ_ONLY], U(DNP_F_FLAG_READ_ONLY, 0)), 1);
    cr_assert_eq(U(DNP_F_MESSAGE_LENGTH, 0), 1);
    assert_bytes(DNP_F_MESSAGE, 0, "\x01", 1);
    cr_assert_eq(U(DNP_F_VALUE_COUNT, 0), 2);
    cr_assert_eq(U(DNP_F_VALUE_TYPE, 0), 11);
    cr_assert_eq(U(DNP_F_VALUE_TYPE, 1), 2);
    cr_assert_eq(U(DNP_F_VALUE_LENGTH, 0), 24);
    assert_bytes(DNP_F_VALUE_STRING, 0, "Sat Nov 21 06:14:44 2026", 24);
    cr_assert_eq(I(DNP_F_VALUE_SINT, 0), 30);
    cr_assert_eq(malformed_findings(), 0);
}

Test(dnp, captured_link_update_takes_types_from_link_state)
{
    /* link 0 = [Float16, UInt32], then wire-facts 1.14's captured update
       09 01 0000 02 0000 00c1 0100 63000000 (float16 -2.5, uint32 99) */
    dec(5, 1, "05 0000 0000 00 0000 0200 08 0000 05 00000000");
    cr_assert_eq(malformed_findings(), 0);
    dec(9, 1, "09 01 0000 02 0000 00c1 0100 63000000");
    cr_assert_eq(U(DNP_F_UPDATE_LAYOUT, 0), DNP_LAYOUT_REFERENCE);
    cr_assert_eq(U(DNP_F_LINK_COUNT, 0), 1);
    cr_assert_eq(U(DNP_F_VALUE_COUNT, 0), 2);
    cr_assert_eq(U(DNP_F_VALUE_INDEX, 0), 0);
    cr_assert_eq(U(DNP_F_VALUE_INDEX, 1), 1);
    cr_assert_eq(U(DNP_F_TYPES_FROM, 0), 5);
    const gw_item *t0 = collect_get(&c, DNP_F_VALUE_TYPE, 0);
    cr_assert_eq(t0->v.u, 8);
    cr_assert(t0->flags & GW_ITEM_GENERATED, "derived types are marked generated");
    cr_assert_eq(U(DNP_F_VALUE_TYPE, 1), 5);
    cr_assert_eq(D(DNP_F_VALUE_FLOAT, 0), -2.5);
    cr_assert_eq(U(DNP_F_VALUE_UINT, 0), 99);
    cr_assert_eq(malformed_findings(), 0);
}

/* DNP text, Link update: "UInt16 LinkCount", "UInt16 ValueCount", each value
   with its type: the text's own layout, which the reference does not send.
   Under the default profile (either) a note saying so, once; a warning only
   under the strict reference profile. */
Test(dnp, text_layout_update_is_recognised)
{
    dec(1, 1, "05 0000 0000 00 0000 0200 00 00 01 00");     /* link 0 = [SInt8, UInt8] */
    dec(2, 1, "09 0100 0000 0200 00 f9 01 fa");              /* u16 counts, type bytes */
    cr_assert_eq(U(DNP_F_UPDATE_LAYOUT, 0), DNP_LAYOUT_SPEC);
    cr_assert_not(collect_has_finding(&c, DNP_E_SPEC_LAYOUT));
    cr_assert(collect_has_finding(&c, DNP_E_DIV_LAYOUT));
    cr_assert_eq(U(DNP_F_LINK_COUNT, 0), 1);
    cr_assert_eq(U(DNP_F_VALUE_COUNT, 0), 2);
    cr_assert_eq(I(DNP_F_VALUE_SINT, 0), -7);
    cr_assert_eq(U(DNP_F_VALUE_UINT, 0), 250);
    cr_assert_eq(collect_get(&c, DNP_F_VALUE_TYPE, 0)->flags & GW_ITEM_GENERATED, 0);
    cr_assert_eq(malformed_findings(), 0); /* the note is no malformation */
    dec(3, 1, "09 0100 0000 0200 00 f8 01 fb");              /* noted once */
    cr_assert_not(collect_has_finding(&c, DNP_E_DIV_LAYOUT));
}

Test(dnp, text_layout_update_is_a_warning_under_the_reference_profile)
{
    opt[DNP_OPT_PROFILE] = GW_PROFILE_REFERENCE; /* the conversation reads opt */
    dec(1, 1, "05 0000 0000 00 0000 0200 00 00 01 00");
    dec(2, 1, "09 0100 0000 0200 00 f9 01 fa");
    cr_assert(collect_has_finding(&c, DNP_E_SPEC_LAYOUT));
    cr_assert_not(collect_has_finding(&c, DNP_E_DIV_LAYOUT));
}

Test(dnp, layout_option_forces_the_text_layout)
{
    dec(1, 1, "05 0000 0000 00 0000 0100 03 0000");          /* link 0 = [UInt16] */
    opt[DNP_OPT_UPDATE_LAYOUT] = DNP_LAYOUT_SPEC;
    dec(2, 1, "09 01 0000 01 0000 3412");                    /* a reference update */
    cr_assert_eq(U(DNP_F_UPDATE_LAYOUT, 0), DNP_LAYOUT_SPEC);
    cr_assert_eq(U(DNP_F_LINK_COUNT, 0), 1);                 /* 01 00 read as u16 */
    cr_assert_eq(U(DNP_F_LINK_ID, 0), 256);                  /* 00 01 */
    cr_assert_eq(U(DNP_F_VALUE_COUNT, 0), 0);                /* 00 00 */
    cr_assert(collect_has_finding(&c, DNP_E_TRAILING));      /* 34 12 left */
    opt[DNP_OPT_UPDATE_LAYOUT] = DNP_LAYOUT_REFERENCE;
    dec(3, 1, "09 01 0000 01 0000 3412");
    cr_assert_eq(U(DNP_F_VALUE_UINT, 0), 0x1234);
    cr_assert_eq(malformed_findings(), 0);
}

Test(dnp, update_of_unknown_link_is_raw_bytes_with_a_warning)
{
    dec(1, 1, "09 01 0900 01 0000 05");
    cr_assert(collect_has_finding(&c, DNP_E_UNKNOWN_LINK));
    assert_bytes(DNP_F_UNDECODED, 0, "\x00\x00\x05", 3); /* index 0, value 05 */
    cr_assert_eq(P->findings[DNP_E_UNKNOWN_LINK].severity, GW_SEV_WARNING);
}

Test(dnp, every_value_type_has_its_real_size)
{
    /* a link state holding one value of each type, all bytes 0x01; the
       datagram must be consumed exactly, with one component per width */
    static const struct { int size, comps; } sz[38] = {
        {1,1},{1,1},{2,1},{2,1},{4,1},{4,1},{8,1},{8,1},{2,1},{4,1},{8,1},{0,1},{0,1},
        {2,2},{2,2},{4,2},{4,2},{8,2},{8,2},{16,2},{16,2},
        {3,3},{3,3},{6,3},{6,3},{12,3},{12,3},{24,3},{24,3},
        {4,2},{8,2},{16,2},{6,3},{12,3},{24,3},{8,4},{16,4},{32,4}};
    for (int t = 0; t < 38; t++) {
        char hex[256];
        teardown();
        setup(); /* a fresh conversation: the same number again would be a resend */
        int o = snprintf(hex, sizeof hex, "05 0000 0000 00 0000 0100 %02x", t);
        if (t == 11 || t == 12)
            o += snprintf(hex + o, sizeof hex - (size_t)o, " 0300 414243");
        else
            for (int i = 0; i < sz[t].size; i++)
                o += snprintf(hex + o, sizeof hex - (size_t)o, "01");
        dec(1, 1, hex);
        cr_assert_eq(malformed_findings(), 0, "type %d", t);
        int comps = collect_count(&c, DNP_F_VALUE_SINT) + collect_count(&c, DNP_F_VALUE_UINT) +
                    collect_count(&c, DNP_F_VALUE_FLOAT) + collect_count(&c, DNP_F_VALUE_STRING) +
                    collect_count(&c, DNP_F_VALUE_DATA);
        cr_assert_eq(comps, sz[t].comps, "type %d: %d components", t, comps);
        /* one byte short is truncated */
        hex[strlen(hex) - 2] = '\0';
        dec(2, 1, hex);
        cr_assert(collect_has_finding(&c, DNP_E_TRUNCATED), "type %d short", t);
    }
}

Test(dnp, signed_components_are_sign_extended)
{
    dec(1, 1, "05 0000 0000 00 0000 0100 17 18fc 0000 e803"); /* Point3S16 (-1000, 0, 1000) */
    cr_assert_eq(I(DNP_F_VALUE_SINT, 0), -1000);
    cr_assert_eq(I(DNP_F_VALUE_SINT, 1), 0);
    cr_assert_eq(I(DNP_F_VALUE_SINT, 2), 1000);
}

Test(dnp, long_message_reassembled_in_number_order)
{
    /* parts #2 (first) "ab", #4 (last) "e", #3 "cd" arriving last */
    dec(10, 1, "0a 0200 01 6162");
    cr_assert_eq(collect_count(&c, DNP_F_MESSAGE), 0);
    dec(11, 1, "0a 0400 02 65");
    cr_assert_eq(collect_count(&c, DNP_F_MESSAGE), 0);
    dec(12, 1, "0a 0300 00 6364");
    assert_bytes(DNP_F_MESSAGE, 0, "abcde", 5);
    cr_assert_eq(collect_get(&c, DNP_F_MESSAGE, 0)->src, 1);
    cr_assert_eq(U(DNP_F_REASSEMBLED_LENGTH, 0), 5);
    cr_assert_eq(U(DNP_F_REASSEMBLED_PARTS, 0), 3);
    cr_assert_eq(U(DNP_F_REASSEMBLED_FIRST, 0), 10);
    cr_assert_eq(c.src_len[1], 5);
}

Test(dnp, long_link_state_sets_the_link_types)
{
    dec(1, 1, "0b 0000 0200 03 0200 6162 0200 03 3412");      /* first, read-only */
    dec(2, 1, "0b 0100 0200 05 0100 63 05 78563412");         /* last */
    assert_bytes(DNP_F_MESSAGE, 0, "abc", 3);
    cr_assert_eq(U(DNP_F_VALUE_COUNT, 0), 2);
    cr_assert_eq(U(DNP_F_VALUE_UINT, 0), 0x1234);
    cr_assert_eq(U(DNP_F_VALUE_UINT, 1), 0x12345678);
    cr_assert_eq(malformed_findings(), 0);
    dec(3, 1, "09 01 0200 01 0100 efbeadde");
    cr_assert_eq(U(DNP_F_VALUE_TYPE, 0), 5);
    cr_assert_eq(U(DNP_F_VALUE_UINT, 0), 0xdeadbeef);
    cr_assert_eq(U(DNP_F_TYPES_FROM, 0), 2);
}

Test(dnp, ack_links_to_the_command_and_times_it)
{
    dec(1, 1, "04 0000 68656c6c6f");
    collect_decode(&c, P, conv, 2, 1250000000, 0, "06 0000 00");
    cr_assert_eq(U(DNP_F_ACK_REQUEST_FRAME, 0), 1);
    cr_assert_eq(I(DNP_F_ACK_TIME, 0), 250000000);
    cr_assert_eq(malformed_findings(), 0);
    dec(3, 0, "06 0500 00");
    cr_assert(collect_has_finding(&c, DNP_E_ACK_UNMATCHED));
}

/* DNP text, Connection Request: "The server has to ignore connect requests
   for an already connected client". A request again on a connected
   conversation (a client's resend crossing the ack) keeps the state: the
   server's next reliable number goes on from 1, not a false
   "first_not_zero"; the request is a note; a server that accepts it again
   is a warning. */
Test(dnp, a_connection_request_on_a_connected_conversation_keeps_its_state)
{
    dec(1, 0, "00 0100 0000");   /* DNP1 */
    dec(2, 1, "01 00 0000");     /* accepted */
    dec(3, 1, "04 0000 aa");     /* reliable #0 */
    dec(4, 0, "06 0000 00");     /* acked */
    dec(5, 0, "00 0100 0000");   /* the request again */
    cr_assert(collect_has_finding(&c, DNP_E_CONNECT_REPEATED));
    dec(6, 1, "04 0100 bb");     /* reliable #1 */
    cr_assert_eq(c.n_findings, 0, "the numbering goes on: no first_not_zero, no skip");
    dec(7, 1, "01 00 0000");     /* and the server accepts it again */
    cr_assert(collect_has_finding(&c, DNP_E_ACCEPTED_AGAIN));
}

/* a resend before the ack (the conversation not yet accepted) is the same
   request: no note; a request after a close starts a new connection */
Test(dnp, a_resent_request_before_the_ack_and_a_new_one_after_a_close)
{
    dec(1, 0, "00 0100 0000");
    dec(2, 0, "00 0100 0000");
    cr_assert_eq(c.n_findings, 0, "a resend before the ack");
    dec(3, 1, "01 00 0000");
    cr_assert_eq(c.n_findings, 0);
    dec(4, 1, "04 0000 aa");
    dec(5, 0, "06 0000 00");
    dec(6, 0, "02");             /* connection close */
    dec(7, 0, "00 0100 0000");   /* a new connection */
    cr_assert_eq(c.n_findings, 0);
    dec(8, 1, "01 00 0000");
    cr_assert_eq(c.n_findings, 0);
    dec(9, 1, "04 0000 cc");     /* numbering from 0 again */
    cr_assert_eq(c.n_findings, 0);
}

/* DNP text, Reliable Communication: resent every 0.5 s "until the command is
   acknowledged or ReliableTimeout is reached" (3 s). A resend that crossed
   the ack (sent within 0.5 s of it) is fine; one a second after is not. */
Test(dnp, resends_after_the_ack_or_the_timeout)
{
    collect_decode(&c, P, conv, 1, 0, 1, "04 0000 aa");
    collect_decode(&c, P, conv, 2, 10000000, 0, "06 0000 00");            /* acked at 0.01 s */
    collect_decode(&c, P, conv, 3, 500000000, 1, "04 0000 aa");           /* resent at 0.5 s: crossed */
    cr_assert_not(collect_has_finding(&c, DNP_E_RESEND_AFTER_ACK));
    collect_decode(&c, P, conv, 4, 1500000000, 1, "04 0000 aa");          /* at 1.5 s */
    cr_assert(collect_has_finding(&c, DNP_E_RESEND_AFTER_ACK));
    collect_decode(&c, P, conv, 5, 2000000000, 1, "04 0100 bb");          /* #1, never acked */
    collect_decode(&c, P, conv, 6, 5000000000, 1, "04 0100 bb");          /* resent 3.0 s later */
    cr_assert_not(collect_has_finding(&c, DNP_E_RESEND_AFTER_TIMEOUT), "at the timeout, within its slack");
    collect_decode(&c, P, conv, 7, 5500000000, 1, "04 0100 bb");          /* 3.5 s after the first */
    cr_assert(collect_has_finding(&c, DNP_E_RESEND_AFTER_TIMEOUT));
}

/* DNP text, Reliable Communication: the sender resends "every
   ReliableResendInterval until the command is acknowledged or
   ReliableTimeout is reached". A command neither acknowledged nor resent is
   seen as time passes, on whatever PDU of the conversation shows it (no ack
   ever comes), and at the conversation's end when nothing later shows it. */
static int end_findings[4], n_end_findings;
static uint32_t end_frames[4];

static void on_end(void *ctx, uint32_t frame, int64_t t, int dir, int finding, size_t off, size_t len,
                   const char *msg)
{
    (void)ctx; (void)t; (void)dir; (void)off; (void)len; (void)msg;
    if (n_end_findings < 4) {
        end_frames[n_end_findings] = frame;
        end_findings[n_end_findings++] = finding;
    }
}

/* DNP text, Reliable ack: result 1 "Used if the receiver would like sender to
   resend the message": a resend right after it is asked for, not early */
Test(dnp, a_resend_asked_for_by_result_1_is_not_early)
{
    collect_decode(&c, P, conv, 1, 0, 1, "04 0000 aa");          /* reliable #0 */
    collect_decode(&c, P, conv, 2, 100000000, 0, "06 0000 01");  /* 0.1 s: failed, resend please */
    collect_decode(&c, P, conv, 3, 110000000, 1, "04 0000 aa");  /* resent at once */
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_RESEND));
    cr_assert_not(collect_has_finding(&c, DNP_E_RESEND_EARLY));
    collect_decode(&c, P, conv, 4, 150000000, 1, "04 0000 aa");  /* again, unasked, 40 ms later */
    cr_assert(collect_has_finding(&c, DNP_E_RESEND_EARLY));
}

Test(dnp, a_missing_resend_is_seen_as_time_passes)
{
    collect_decode(&c, P, conv, 1, 0, 1, "04 0000 aa");          /* the server's reliable #0 */
    collect_decode(&c, P, conv, 2, 500000000, 0, "03 aa");       /* the client's unreliable message, 0.5 s */
    cr_assert_not(collect_has_finding(&c, DNP_E_RESEND_MISSING), "0.5 s: a resend is not overdue yet");
    collect_decode(&c, P, conv, 3, 1600000000, 0, "03 bb");      /* 1.6 s: none came */
    cr_assert(collect_has_finding(&c, DNP_E_RESEND_MISSING));
    collect_decode(&c, P, conv, 4, 1800000000, 0, "03 cc");
    cr_assert_not(collect_has_finding(&c, DNP_E_RESEND_MISSING), "reported once");
    n_end_findings = 0;
    gw_end_sink es = {NULL, on_end, NULL};
    P->conv_end(conv, &es);
    for (int i = 0; i < n_end_findings; i++)
        cr_assert_neq(end_findings[i], DNP_E_RESEND_MISSING, "not again at the end");
}

Test(dnp, a_missing_resend_is_reported_when_the_conversation_ends)
{
    collect_decode(&c, P, conv, 1, 0, 1, "04 0000 aa");          /* the server's reliable #0 */
    collect_decode(&c, P, conv, 2, 950000000, 1, "03 aa");       /* 0.95 s: not overdue yet */
    collect_decode(&c, P, conv, 3, 1020000000, 0, "03 bb");      /* 1.02 s: overdue, but looked at 70 ms ago */
    cr_assert_not(collect_has_finding(&c, DNP_E_RESEND_MISSING));
    n_end_findings = 0;
    gw_end_sink es = {NULL, on_end, NULL};
    P->conv_end(conv, &es);
    cr_assert_eq(n_end_findings, 1);
    cr_assert_eq(end_findings[0], DNP_E_RESEND_MISSING);
    cr_assert_eq(end_frames[0], 1, "on the command's frame");
}

/* DNP text, Link State: "Once assigned the LinkId can not be reused until it
   has been taken down"; Link Down: "Once torn down the sender can reuse the
   LinkId for another link" */
Test(dnp, a_link_id_is_free_again_after_link_down)
{
    dec(1, 1, "05 0000 0000 00 0000 0100 01 05");  /* link 0: one UInt8 */
    dec(2, 0, "06 0000 00");
    dec(3, 0, "08 0000");                         /* link down */
    dec(4, 1, "05 0100 0000 00 0000 0100 01 06");  /* link 0 again: free */
    cr_assert_not(collect_has_finding(&c, DNP_E_LINK_REUSED));
    dec(5, 0, "06 0100 00");
    dec(6, 0, "07 0000");                         /* link up */
    dec(7, 1, "05 0200 0000 00 0000 0100 01 07");  /* link 0 again while up */
    cr_assert(collect_has_finding(&c, DNP_E_LINK_REUSED));
}

/* DNP text, Link State: "The sender assigns a LinkId": both sides may use
   link 0 for links of their own at once, each answered and updated */
Test(dnp, each_side_numbers_its_own_links)
{
    dec(1, 1, "05 0000 0000 00 0000 0100 01 05");  /* the server's link 0 */
    dec(2, 0, "06 0000 00");
    dec(3, 0, "05 0000 0000 00 0000 0100 01 06");  /* the client's link 0 */
    cr_assert_not(collect_has_finding(&c, DNP_E_LINK_REUSED));
    dec(4, 1, "06 0000 00");
    dec(5, 0, "07 0000");                         /* the client takes the server's link */
    cr_assert_not(collect_has_finding(&c, DNP_E_ANSWER_UNEXPECTED));
    dec(6, 1, "07 0000");                         /* and the server the client's */
    cr_assert_not(collect_has_finding(&c, DNP_E_ANSWER_UNEXPECTED));
    dec(7, 1, "09 01 0000 01 0000 07");           /* the server updates its own link 0 */
    cr_assert_not(collect_has_finding(&c, DNP_E_UPDATE_NOT_UP));
    cr_assert_not(collect_has_finding(&c, DNP_E_UPDATE_READ_ONLY));
    cr_assert_eq(malformed_findings(), 0);
}

/* a link state of the server's in frame `frame` (its reliable number the
   next of link_seq): link id, n values of type `type` (1 byte each, value id) */
static unsigned link_seq;
static void link_state_of(uint32_t frame, unsigned id, unsigned n, unsigned type)
{
    GString *h = g_string_new(NULL);
    unsigned seq = link_seq++;
    g_string_append_printf(h, "05 %02x%02x %02x%02x 00 0000 %02x%02x", seq & 0xff, seq >> 8, id & 0xff, id >> 8,
                           n & 0xff, n >> 8);
    for (unsigned v = 0; v < n; v++)
        g_string_append_printf(h, " %02x %02x", type, id & 0xff);
    dec(frame, 1, h->str);
    g_string_free(h, TRUE);
}

/* the server's update of link id's value `index` (reference layout): the
   types it was read with come from the link state of frame `from` */
static void assert_update_reads(uint32_t frame, unsigned id, unsigned index, uint32_t from, unsigned type)
{
    char hex[64];
    snprintf(hex, sizeof hex, "09 01 %02x%02x 01 %02x%02x 07", id & 0xff, id >> 8, index & 0xff, index >> 8);
    dec(frame, 1, hex);
    cr_assert_not(collect_has_finding(&c, DNP_E_UNKNOWN_LINK), "link %u", id);
    cr_assert_eq(U(DNP_F_TYPES_FROM, 0), from, "link %u", id);
    cr_assert_eq(U(DNP_F_VALUE_TYPE, 0), type, "link %u", id);
}

/* Links are kept in the conversation's own slots while their types fit
   and a slot is free, else each in an allocation of its own: both kinds
   alike are found, replaced, taken down and given back by a new
   connection (valgrind's run of the suite sees that nothing leaks) */
Test(dnp, links_in_and_past_the_conversations_slots)
{
    dec(1, 0, "00 0100 0000");
    dec(2, 1, "01 00 0000");
    link_seq = 0;
    uint32_t from[24];
    for (unsigned id = 0; id < 24; id++) { /* even: 1 UInt8, odd: 40 SInt8 (past a slot's 24) */
        from[id] = 10 + id;
        link_state_of(from[id], id, id % 2 ? 40 : 1, id % 2 ? 0 : 1);
        cr_assert_eq(malformed_findings(), 0);
    }
    for (unsigned id = 0; id < 24; id++)
        assert_update_reads(40 + id, id, id % 2 ? 19 : 0, from[id], id % 2 ? 0 : 1);
    /* the client takes the even links down; they come back with 2 SInt8
       (the slots they left taken again), the odd ones replaced while set
       up (reported) with 1 UInt8 */
    for (unsigned id = 0; id < 24; id += 2) {
        char hex[16];
        snprintf(hex, sizeof hex, "08 %02x00", id);
        dec(70 + id, 0, hex);
    }
    for (unsigned id = 0; id < 24; id++) {
        from[id] = 100 + 2 * id;
        link_state_of(from[id] - 1, 24 + id, 0, 0); /* (a link of no values: ids 24 on) */
        link_state_of(from[id], id, id % 2 ? 1 : 2, id % 2);
        cr_assert_eq(collect_has_finding(&c, DNP_E_LINK_REUSED), id % 2 == 1, "link %u", id);
    }
    for (unsigned id = 0; id < 24; id++)
        assert_update_reads(150 + id, id, id % 2 ? 0 : 1, from[id], id % 2);
    /* a new connection: no link is left */
    dec(180, 0, "02");
    dec(181, 0, "00 0100 0000");
    dec(182, 1, "01 00 0000");
    dec(183, 1, "09 01 0000 01 0000 07");
    cr_assert(collect_has_finding(&c, DNP_E_UNKNOWN_LINK));
    link_seq = 0;
    link_state_of(184, 0, 1, 1);
    cr_assert_eq(malformed_findings(), 0);
    assert_update_reads(185, 0, 0, 184, 1);
}

/* Where nothing is shown (validate: no item, no subtree, no summary) a
   reference-layout link update is read without the interpreter when it is
   whole and its links known, a link state when it is whole and its types
   known, an ack or a link up or down when it is whole: the findings are
   those of the decoding that shows everything, PDU by PDU, clean or not */
Test(dnp, link_states_and_updates_read_where_nothing_is_shown_find_the_same)
{
    static const char *const pdus[] = {
        "00 0100 0000", "01 00 0000",
        /* the server's link 0 = [String, SInt16, Data, Point3U16], read-only; link 1 = [UInt8] */
        "05 0000 0000 01 0000 0400 0b 0000 02 0000 0c 0000 18 000000000000",
        "05 0100 0100 00 0000 0100 01 05", "06 0000 00", "06 0100 00", "07 0000",
        "09 01 0000 01 0100 0500",                            /* SInt16 */
        "09 01 0000 02 0000 0300 616263 0300 010203",          /* String, Point3U16 */
        "09 01 0000 01 0000 0200 c328",                        /* String, not UTF-8 */
        "09 01 0000 01 0200 0200 ffff",                        /* Data */
        "09 02 0000 01 0100 0700 0100 01 0000 09",            /* two links, link 1 not up */
        "09 01 0000 00", "09 00",                              /* no values; no links */
        "09 01 0000 01 0900 00",                               /* index out of range */
        "09 01 0700 01 0000 00",                               /* unknown link */
        "09 01 0000 01 0000 0500 6162",                        /* truncated string */
        "09 01 0000 02 0100 0500",                             /* truncated: a value missing */
        "09 01 0000 01 0100 0500 ee",                          /* trailing byte */
        "09 01 0000 01 01",                                    /* truncated index */
        "08 0000", "09 01 0000 01 0100 0500",                  /* link 0 down */
        "09 01 0000 01 0100 0500",                             /* the client updates the read-only link */
        /* link states: a message and a string not UTF-8; unknown flags;
           no values; a resend; an unknown type; cut in a value, in the
           message, in its length */
        "05 0200 0200 00 0300 616263 0200 0b 0200 c328 05 01000000",
        "05 0300 0300 06 0000 0100 01 05", "05 0400 0400 00 0000 0000", "05 0400 0400 00 0000 0000",
        "05 0500 0500 00 0000 0100 63 05", "05 0600 0600 00 0000 0100 05 0100", "05 0700 0700 00 0900 6162",
        "05 0800 0800 00 00", "05 0900 0900 00 0000 0100 0b 0500 61",
        /* acks and link ups (numbers alone): an unknown code, one of nothing sent, cut short */
        "06 0200 07", "06 3000 00", "06 03", "07 01", "07 0200 ff",
    };
    static const int dirs[] = {0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0,
                               1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
    _Static_assert(sizeof dirs / sizeof dirs[0] == sizeof pdus / sizeof pdus[0], "a direction a PDU");
    int oq[GW_MAX_OPTIONS];
    void *quiet_conv = test_conv_new(P, oq);
    static collect q;
    uint8_t bytes[256];
    for (unsigned i = 0; i < sizeof pdus / sizeof pdus[0]; i++) {
        dec(i + 1, dirs[i], pdus[i]);
        collect_init(&q);
        q.sink.item = NULL;
        q.sink.push = NULL;
        q.sink.pop = NULL;
        q.sink.summary = NULL;
        size_t n = unhex(pdus[i], bytes);
        gw_pdu_info pi = {i + 1, (int64_t)(i + 1) * 1000000000, dirs[i], GW_TRANSPORT_UDP};
        P->decode(quiet_conv, &pi, bytes, n, &q.sink);
        cr_assert_eq(q.n_findings, c.n_findings, "PDU %u: %s", i + 1, pdus[i]);
        cr_assert_arr_eq(q.findings, c.findings, sizeof c.findings[0] * (size_t)c.n_findings, "PDU %u", i + 1);
        cr_assert_arr_eq(q.finding_off, c.finding_off, sizeof c.finding_off[0] * (size_t)c.n_findings, "PDU %u",
                         i + 1);
    }
    test_conv_free(P, quiet_conv);
}

/* conv_init clears only what is read before it is written: a
   conversation whose memory held anything before decodes as one that
   was zeroed */
Test(dnp, a_conversation_need_not_be_cleared_before_conv_init)
{
    static const char *const pdus[] = {
        "00 0100 0000", "01 00 0000", "05 0000 0000 00 0000 0200 01 05 00 06", "06 0000 00", "07 0000",
        "09 01 0000 02 0000 07 0100 08", "04 0100 aa", "04 0300 bb", "06 0100 00", "04 0100 aa",
        "03 cc", "08 0000", "02", "00 0100 0000", "01 00 0000", "09 01 0000 01 0000 07", "04 0000 dd"};
    static const int dirs[] = {0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1};
    void *dirty = malloc(P->conv_size);
    memset(dirty, 0xa5, P->conv_size);
    P->conv_init(dirty, opt);
    collect other;
    for (unsigned i = 0; i < sizeof pdus / sizeof pdus[0]; i++) {
        int64_t t = (int64_t)i * 700000000; /* 0.7 s apart: resends overdue */
        collect_decode(&c, P, conv, i + 1, t, dirs[i], pdus[i]);
        collect_decode(&other, P, dirty, i + 1, t, dirs[i], pdus[i]);
        cr_assert_str_eq(other.summary, c.summary, "frame %u", i + 1);
        cr_assert_eq(other.n_findings, c.n_findings, "frame %u", i + 1);
        cr_assert_arr_eq(other.findings, c.findings, sizeof c.findings[0] * (size_t)c.n_findings, "frame %u", i + 1);
        cr_assert_eq(other.n_items, c.n_items, "frame %u", i + 1);
    }
    cr_assert_eq(P->conv_held(dirty), P->conv_held(conv));
    test_conv_free(P, dirty);
}

/* "As a rule of thumb on IPv4 a package size of 1200 ... can be expected to
   be transmitted in one package": a note past it */
Test(dnp, datagrams_over_1200_bytes_are_noted)
{
    char hex[2 * 1300 + 16] = "03";
    for (int i = 0; i < 1199; i++)
        strcat(hex, "61");
    dec(1, 0, hex); /* 1200 bytes */
    cr_assert_not(collect_has_finding(&c, DNP_E_OVER_1200));
    strcat(hex, "61");
    dec(2, 0, hex); /* 1201 */
    cr_assert(collect_has_finding(&c, DNP_E_OVER_1200));
}

/* wire-facts 1.5: "The reference wraps modulo 65535 (0xFFFF is never used); the
   spec text says 65536": under the default profile (either) both wraps pass,
   65535 noted once as the text's; a warning only under the reference profile */
Test(dnp, numbers_wrap_at_65535_like_the_reference)
{
    opt[DNP_OPT_PROFILE] = GW_PROFILE_REFERENCE;
    dec(1, 1, "04 fdff");   /* 65533 */
    dec(2, 1, "04 feff");   /* 65534 */
    dec(3, 1, "04 0000");   /* 0 follows 65534 */
    cr_assert_eq(malformed_findings(), 0);
    dec(4, 1, "04 0100");
    cr_assert_eq(malformed_findings(), 0);
    dec(5, 0, "04 feff");
    dec(6, 0, "04 ffff");   /* the text's 65535 */
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_65535));
}

Test(dnp, profile_either_takes_both_wraps)
{
    dec(1, 1, "04 fdff");   /* 65533 */
    dec(2, 1, "04 feff");   /* 65534 */
    dec(3, 1, "04 0000");   /* the reference's wrap */
    cr_assert_eq(malformed_findings(), 0);
    cr_assert(collect_has_finding(&c, DNP_E_DIV_WRAP));
    dec(4, 0, "04 feff");
    dec(5, 0, "04 ffff");   /* the text's 65535 */
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_65535));
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_OUTSIDE_WINDOW));
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
    dec(6, 0, "04 0000");   /* and 0 after it */
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_OUTSIDE_WINDOW));
    cr_assert_eq(malformed_findings(), 0);
}

Test(dnp, profile_either_notes_the_texts_65535)
{
    dec(1, 0, "04 feff");
    dec(2, 0, "04 ffff");   /* the text's 65535: a note, not a warning */
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_65535));
    cr_assert(collect_has_finding(&c, DNP_E_DIV_WRAP));
}

Test(dnp, profile_spec_wraps_at_65536_like_the_text)
{
    /* DNP text: "If NextSendCommand reaches 65'536 the value has to wrapped around to 0" */
    opt[DNP_OPT_PROFILE] = GW_PROFILE_SPEC;
    dec(1, 1, "04 feff");   /* 65534 */
    dec(2, 1, "04 ffff");   /* 65535: a number like any other */
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_65535));
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
    dec(3, 1, "04 0000");
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
    cr_assert_not(collect_has_finding(&c, DNP_E_DIV_WRAP));
    dec(4, 0, "04 feff");
    dec(5, 0, "04 0000");   /* the reference's wrap skips 65535 here */
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
}

Test(dnp, window_resend_and_early_numbers)
{
    dec(1, 0, "00 0100 0000");
    dec(2, 1, "04 0000 aa");
    dec(3, 1, "04 0000 aa");
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_RESEND));
    cr_assert_eq(U(DNP_F_RESEND_OF, 0), 2);
    dec(4, 1, "04 0200 cc");
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
    dec(5, 1, "04 0100 bb");
    cr_assert_eq(malformed_findings(), 0);
    dec(6, 1, "04 0300 dd");
    cr_assert_eq(malformed_findings(), 0, "next advanced over the early #2");
    dec(7, 1, "04 0e00 ee");  /* window is [4, 14): 14 is outside */
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_OUTSIDE_WINDOW));
    dec(8, 1, "04 0d00 ee");  /* 13 is inside */
    cr_assert_eq(collect_has_finding(&c, DNP_E_SEQ_OUTSIDE_WINDOW), 0);
}

/* DNP text, Reliable Communication: NextSendCommand "has to be set to 0 upon
   every accepted connection request"; a number outside the window "has to be
   discarded": the receiver's window stays at [0, 10) whatever number comes
   first, so #10 first is outside it and the #0 after it is not */
Test(dnp, window_stays_at_zero_after_a_wrong_first_number)
{
    dec(1, 0, "00 0100 0000");
    dec(2, 1, "01 00 0000");
    dec(3, 0, "04 0a00 aa");  /* #10 first */
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_FIRST));
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_OUTSIDE_WINDOW));
    dec(4, 0, "04 0000 bb");  /* #0: inside [0, 10) */
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_OUTSIDE_WINDOW));
    cr_assert_not(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
    dec(5, 0, "04 0200 cc");  /* #2 before #1: early, and #10 was discarded */
    cr_assert(collect_has_finding(&c, DNP_E_SEQ_AHEAD));
}

Test(dnp, every_prefix_of_a_link_state_is_truncated)
{
    const char *full = "05 0200 0100 01 0200 6869 0200 03 3412 0b 0300 616263";
    char hex[128];
    size_t nbytes = 0;
    for (const char *h = full; *h; h++)
        nbytes += (*h != ' ');
    nbytes /= 2;
    for (size_t n = 1; n < nbytes; n++) {
        /* copy the first n bytes of the hex string */
        size_t o = 0, got = 0;
        for (const char *h = full; *h && got < n; h++) {
            if (*h == ' ')
                continue;
            hex[o++] = h[0];
            hex[o++] = h[1];
            h++;
            got++;
        }
        hex[o] = '\0';
        dec((uint32_t)n, 1, hex);
        cr_assert(collect_has_finding(&c, DNP_E_TRUNCATED), "prefix of %zu bytes", n);
    }
    dec(99, 1, full);
    cr_assert_eq(collect_has_finding(&c, DNP_E_TRUNCATED), 0);
}

Test(dnp, unknown_type_and_command_and_trailing_bytes)
{
    dec(1, 1, "05 0000 0000 00 0000 0100 26 00");
    cr_assert(collect_has_finding(&c, DNP_E_UNKNOWN_TYPE));
    dec(2, 1, "0c 0102");
    cr_assert(collect_has_finding(&c, DNP_E_UNKNOWN_COMMAND));
    assert_bytes(DNP_F_UNDECODED, 0, "\x01\x02", 2);
    dec(3, 1, "07 0000 ff");
    cr_assert(collect_has_finding(&c, DNP_E_TRAILING));
    assert_bytes(DNP_F_TRAILING, 0, "\xff", 1);
}

Test(dnp, heuristic_claims_dnp_and_rejects_others)
{
    static const uint8_t connect[] = {0, 1, 0, 0, 0};
    static const uint8_t accept[] = {1, 0, 0, 0};
    static const uint8_t reject[] = {1, 2};
    uint8_t state[80];
    size_t n = unhex(CAPTURED_LINK_STATE, state);
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, connect, sizeof connect));
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, accept, sizeof accept));
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, reject, sizeof reject));
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, state, n));
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_UDP, state, n - 1));
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_TCP, connect, sizeof connect));
    /* DNS query for example.com, NTP v4 client, a DNP message (too weak) */
    static const uint8_t dns[] = {0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'e', 'x', 'a', 'm',
                                  'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
    uint8_t ntp[48] = {0x23};
    static const uint8_t msg[] = {3, 1, 2, 3};
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_UDP, dns, sizeof dns));
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_UDP, ntp, sizeof ntp));
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_UDP, msg, sizeof msg));
    /* random datagrams, fixed seed */
    uint32_t x = 99;
    int claimed = 0;
    for (int i = 0; i < 100000; i++) {
        uint8_t buf[64];
        x = x * 1103515245u + 12345u;
        size_t len = 1 + (x >> 16) % 64;
        for (size_t k = 0; k < len; k++) {
            x = x * 1103515245u + 12345u;
            buf[k] = (uint8_t)(x >> 16);
        }
        buf[0] = (uint8_t)(i % 12);
        claimed += P->heuristic(opt, GW_TRANSPORT_UDP, buf, len);
    }
    cr_assert_lt(claimed, 5, "%d of 100000 random datagrams claimed", claimed);
}

Test(dnp, long_message_over_the_limit_is_dropped_with_an_error)
{
    /* 20 parts of 60000 bytes: 1.2 MB, over the 1 MiB reassembly limit */
    static uint8_t part[3 + 1 + 60000];
    bool too_long = false;
    for (unsigned i = 0; i < 20; i++) {
        part[0] = DNP_RELIABLE_MESSAGE_LONG;
        part[1] = (uint8_t)i;
        part[2] = 0;
        part[3] = i == 0 ? 1 : i == 19 ? 2 : 0;
        gw_pdu_info pi = {i + 1, 0, 1, GW_TRANSPORT_UDP};
        collect_init(&c);
        P->decode(conv, &pi, part, sizeof part, &c.sink);
        too_long |= collect_has_finding(&c, DNP_E_LONG_TOO_LONG);
        if (i == 17) /* 17 x 60000 = 1020000 bytes fit in 1 MiB, 18 x 60000 do not */
            cr_assert(collect_has_finding(&c, DNP_E_LONG_TOO_LONG), "part 18");
        cr_assert_eq(collect_count(&c, DNP_F_MESSAGE), 0, "part %u", i);
    }
    cr_assert(too_long);
}

Test(dnp, link_states_over_the_limit_are_not_kept)
{
    /* link states of 60000 values of type 0 (SInt8, 1 byte): each keeps
       60000 type bytes, so 17 fit in DNP_LINKS_MAX (1 MiB) and the 18th
       does not; the note comes once per conversation */
    static uint8_t ls[10 + 2 * 60000];
    unsigned noted_at = 0, notes = 0;
    for (unsigned i = 0; i < 20; i++) {
        dnp_test_link_state(ls, i, 60000);
        gw_pdu_info pi = {i + 1, 0, 1, GW_TRANSPORT_UDP};
        collect_init(&c);
        P->decode(conv, &pi, ls, sizeof ls, &c.sink);
        cr_assert_eq(malformed_findings() - collect_has_finding(&c, DNP_E_LINKS_NOT_KEPT), 0, "frame %u", i + 1);
        if (i + 1 == 18)
            cr_assert(collect_has_finding(&c, DNP_E_LINKS_NOT_KEPT));
        if (collect_has_finding(&c, DNP_E_LINKS_NOT_KEPT)) {
            notes++;
            if (!noted_at)
                noted_at = i + 1;
        }
    }
    cr_assert_eq(noted_at, 18);
    cr_assert_eq(notes, 1);
    /* an update of a kept link is decoded, of the first one not kept is raw */
    dec(21, 1, "09 01 0100 01 0000 05");
    cr_assert(!collect_has_finding(&c, DNP_E_UNKNOWN_LINK));
    dec(22, 1, "09 01 1100 01 0000 05");
    cr_assert(collect_has_finding(&c, DNP_E_UNKNOWN_LINK));
}

/* a part without bytes still costs its record (40 bytes): a message of
   empty parts reaches the 1 MiB limit after 26214 of them (26214 * 40 =
   1048560 fits, one more does not), where it used to take up to 65534
   parts that nothing counted; once dropped, the buffers are given back */
Test(dnp, empty_parts_count_towards_the_limit)
{
    size_t idle = P->conv_held(conv);
    int refused = -1;
    for (unsigned i = 0; i < 27000 && refused < 0; i++) {
        uint8_t part[4] = {DNP_RELIABLE_MESSAGE_LONG, (uint8_t)i, (uint8_t)(i >> 8), i == 0 ? 1 : 0};
        gw_pdu_info pi = {i + 1, 0, 1, GW_TRANSPORT_UDP};
        collect_init(&c);
        P->decode(conv, &pi, part, sizeof part, &c.sink);
        if (collect_has_finding(&c, DNP_E_LONG_TOO_LONG))
            refused = (int)i;
        else if (i == 26000)
            cr_assert_geq(P->conv_held(conv), idle + 26000 * 40, "the parts are counted");
    }
    cr_assert_eq(refused, 26214);
    cr_assert_eq(P->conv_held(conv), idle, "the parts array is given back");
}

/* conv_held is an upper bound of what the state really holds on the heap
   (glibc's count of allocated bytes, mmapped blocks included), and not a
   wild one: link states, an unfinished long message and its parts */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

Test(dnp, held_is_an_upper_bound_of_the_heap_used)
{
#ifdef UNDER_ASAN
    cr_skip_test("AddressSanitizer's allocator keeps no glibc counts");
#endif
    /* GLib's slice allocator takes its per-thread cache (a few KiB) at its
       first use: the process's, not the conversation's */
    g_byte_array_free(g_byte_array_new(), TRUE);
    struct mallinfo2 before = mallinfo2();
    void *cv = calloc(1, P->conv_size);
    P->conv_init(cv, opt);
    static uint8_t ls[10 + 2 * 3000];
    for (unsigned i = 0; i < 50; i++) { /* 50 links of 3000 SInt8 values */
        dnp_test_link_state(ls, i, 3000);
        gw_pdu_info pi = {i + 1, 0, 1, GW_TRANSPORT_UDP};
        collect_init(&c);
        P->decode(cv, &pi, ls, sizeof ls, &c.sink);
    }
    static uint8_t part[4 + 3000];
    for (unsigned i = 0; i < 300; i++) { /* an unfinished message: 100 parts of 3000 bytes, 200 empty */
        part[0] = DNP_RELIABLE_MESSAGE_LONG;
        part[1] = (uint8_t)(50 + i);
        part[2] = (uint8_t)((50 + i) >> 8);
        part[3] = i == 0 ? 1 : 0;
        gw_pdu_info pi = {51 + i, 0, 1, GW_TRANSPORT_UDP};
        collect_init(&c);
        P->decode(cv, &pi, part, i < 100 ? sizeof part : 4, &c.sink);
    }
    struct mallinfo2 after = mallinfo2();
    size_t real = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd) - P->conv_size;
    size_t held = P->conv_held(cv);
    cr_assert_geq(held, real, "held %zu, really %zu", held, real);
    cr_assert_leq(held, real + real / 10, "held %zu, really %zu", held, real);
    P->conv_free(cv);
    free(cv);
}

Test(dnp, long_messages_in_all_conversations_share_a_limit)
{
    /* 17 parts of 60000 bytes, each also costing its 40-byte record
       (17 * 60040 = 1020680 bytes, under the 1 MiB limit of one message),
       left unfinished in conversation after conversation: 65 fit in
       DNP_REASSEMBLY_TOTAL_MAX (64 MiB = 67108864 bytes), the 66th reaches
       it on its 13th part (65 * 1020680 + 13 * 60040 = 67124720 > 67108864;
       with 12 parts, 67064680 still fits) */
    static uint8_t part[3 + 1 + 60000];
    enum { CONVS = 67 };
    void *convs[CONVS];
    int first_refused = -1, refused_part = -1;
    for (int k = 0; k < CONVS; k++) {
        convs[k] = calloc(1, P->conv_size);
        P->conv_init(convs[k], opt);
        for (unsigned i = 0; i < 17; i++) {
            part[0] = DNP_RELIABLE_MESSAGE_LONG;
            part[1] = (uint8_t)i;
            part[2] = 0;
            part[3] = i == 0 ? 1 : 0;
            gw_pdu_info pi = {i + 1, 0, 1, GW_TRANSPORT_UDP};
            collect_init(&c);
            P->decode(convs[k], &pi, part, sizeof part, &c.sink);
            if (collect_has_finding(&c, DNP_E_LONG_TOO_LONG) && first_refused < 0) {
                first_refused = k;
                refused_part = (int)i;
            }
        }
    }
    cr_assert_eq(first_refused, 65);
    cr_assert_eq(refused_part, 12, "the 13th part");
    for (int k = 0; k < CONVS; k++) {
        P->conv_free(convs[k]);
        free(convs[k]);
    }
    /* all given back: a whole message of 17 parts is reassembled again */
    for (unsigned i = 0; i < 17; i++) {
        part[1] = (uint8_t)i;
        part[3] = i == 0 ? 1 : i == 16 ? 2 : 0;
        gw_pdu_info pi = {i + 1, 0, 1, GW_TRANSPORT_UDP};
        collect_init(&c);
        P->decode(conv, &pi, part, sizeof part, &c.sink);
        cr_assert(!collect_has_finding(&c, DNP_E_LONG_TOO_LONG), "part %u", i);
    }
    cr_assert_eq(collect_count(&c, DNP_F_MESSAGE), 1);
}

/* ---- pcaptool replay's hooks ---- */

#define T GW_TRANSPORT_UDP

/* a PDU decoded as replay hands it to the hooks (here all in one conversation) */
static const gw_replay_pdu *pdu(replay_pdu *r, int dir, const char *hex)
{
    return replay_pdu_decode(r, P, conv, dir, T, hex);
}

/* the number (bytes 1-2) our recorded PDU carries once adapted */
static unsigned adapted(void *st, const char *hex)
{
    replay_pdu x;
    uint8_t d[64];
    const gw_replay_pdu *p = pdu(&x, 0, hex);
    memcpy(d, p->data, p->len);
    gw_replay_of(P)->adapt(st, p, d);
    return d[1] | d[2] << 8;
}

Test(dnp, replay_need)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    replay_pdu x;
    cr_assert_eq(r->need(st, pdu(&x, 1, "03 41")), GW_REPLAY_OPTIONAL);       /* message */
    cr_assert_eq(r->need(st, pdu(&x, 1, "09 00 00")), GW_REPLAY_OPTIONAL);    /* link update, no links */
    cr_assert_eq(r->need(st, pdu(&x, 1, "06 01 00 00")), GW_REPLAY_ANSWER);  /* reliable ack */
    cr_assert_eq(r->need(st, pdu(&x, 1, "07 03 00")), GW_REPLAY_ANSWER);     /* link up */
    free(st);
}

/* our reliable numbers go afresh from 0 (a resend keeps its number); our
   acks name the peer's live numbers; the peer's acks must name ours */
Test(dnp, replay_numbers_follow_the_live_peer)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    replay_pdu x, y;
    char why[200] = "";
    /* recorded reliable message #40, then #41, then #40 again */
    cr_assert_eq(adapted(st, "04 28 00 41"), 0);
    cr_assert_eq(adapted(st, "04 29 00 42"), 1);
    cr_assert_eq(adapted(st, "04 28 00 41"), 0);
    /* the peer acks our #41 (recorded) as #1 with code 0: right; as #0: wrong */
    cr_assert(r->match(st, pdu(&x, 1, "06 29 00 00"), pdu(&y, 1, "06 01 00 00"), why, sizeof why));
    cr_assert_not(r->match(st, pdu(&x, 1, "06 29 00 00"), pdu(&y, 1, "06 00 00 00"), why, sizeof why));
    cr_assert_str_eq(why, "acknowledges number 0, expected 1");
    /* an ack stands for the recorded one whose number it names live */
    cr_assert(r->identifies(st, pdu(&x, 1, "06 29 00 00"), pdu(&y, 1, "06 01 00 00")));
    cr_assert_not(r->identifies(st, pdu(&x, 1, "06 28 00 00"), pdu(&y, 1, "06 01 00 00")));
    /* with another code: wrong */
    cr_assert_not(r->match(st, pdu(&x, 1, "06 29 00 00"), pdu(&y, 1, "06 01 00 01"), why, sizeof why));
    cr_assert_str_eq(why, "ack code 1, recorded 0");
    /* the peer's link state recorded as #7, link 3 comes live as #300, link 9 */
    cr_assert(r->match(st, pdu(&x, 1, "05 07 00 03 00 00 00 00 00 00"),
                       pdu(&y, 1, "05 2c 01 09 00 00 00 00 00 00"), why, sizeof why));
    /* our recorded ack of its #7 acks #300; our link up of link 3 names 9 */
    cr_assert_eq(adapted(st, "06 07 00 00"), 300);
    cr_assert_eq(adapted(st, "07 03 00"), 9);
    free(st);
}
