/* Unit tests of the GNE decoder on byte vectors from the real gnelib
 * captures (gne-exhello_unrel.pcap) and written by hand from wire-facts 3; expected values worked out by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "gne/gne.h"
#include "active/gw_replay.h"

PROTOCOL_SUITE(gne, gw_gne_protocol);

/* another conversation with the same options (a linked one) */
static void *new_conv(void)
{
    void *s = calloc(1, P->conv_size);
    P->conv_init(s, opt);
    return s;
}

#define field(abbrev) collect_field(P, abbrev)

#define finding(code) collect_finding(P, code)

/* a TCP PDU (an NL frame) from the client (dir 0) or the server (dir 1) */
static void tcp(int dir, int64_t t_ns, const char *hex)
{
    collect_decode(&c, P, conv, 1, t_ns, dir, hex);
    uint8_t tmp[600];
    size_t n = unhex(hex, tmp);
    if (n >= 4 && tmp[0] == 'N' && tmp[1] == 'L' && tmp[2] == 0)
        cr_assert_eq(tmp[3], n - 4, "test vector: NL length %u for %zu bytes", tmp[3], n - 4);
}

static void udp(void *cv, int dir, const char *hex)
{
    static uint8_t buf[512];
    size_t n = unhex(hex, buf);
    gw_pdu_info pi = {9, 0, dir, GW_TRANSPORT_UDP};
    collect_init(&c);
    P->decode(cv, &pi, buf, n, &c.sink);
}

static const gw_item *item(const char *abbrev, int k)
{
    const gw_item *it = collect_get(&c, field(abbrev), k);
    cr_assert_not_null(it, "%s #%d missing", abbrev, k);
    return it;
}

static uint64_t U(const char *abbrev, int k) { return item(abbrev, k)->v.u; }
static int64_t I(const char *abbrev, int k) { return item(abbrev, k)->v.i; }

static void S(const char *abbrev, const char *expect)
{
    const gw_item *it = item(abbrev, 0);
    cr_assert_eq(it->v.b.n, strlen(expect), "%s length", abbrev);
    cr_assert(memcmp(it->v.b.p, expect, it->v.b.n) == 0, "%s value", abbrev);
}

static bool has(const char *code) { return collect_has_finding(&c, finding(code)); }

/* gnelib's exhello handshake, bytes from gne-exhello_unrel.pcap frames 4+6
   and 8+10: little-endian build 07 00, a UDP link on 39182 (0e 99) */
#define EXHELLO_CRP "4e4c0030 474e45 00 00 0700 68656c6c6f206578616d706c6573 " \
                    "000000000000000000000000000000000000 01000000 00000000 01"
#define EXHELLO_CAP "4e4c000c 474e45 01 00000000 0e990000"

Test(gne, real_request_and_accept)
{
    uint8_t tmp[64];
    cr_assert_eq(unhex(EXHELLO_CRP, tmp), 52);
    tcp(0, 0, EXHELLO_CRP);
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("gne.nl.length", 0), 48);
    cr_assert_eq(U("gne.message", 0), 1);
    cr_assert_eq(U("gne.byte_order", 0), GNE_ORDER_LITTLE);
    S("gne.magic", "GNE");
    cr_assert_eq(U("gne.version", 0), 0);
    cr_assert_eq(U("gne.sub_version", 0), 0);
    cr_assert_eq(U("gne.build", 0), 7);
    S("gne.game_name", "hello examples");
    cr_assert_eq(U("gne.user_version", 0), 1);
    cr_assert_eq(U("gne.rate", 0), 0);
    cr_assert_eq(U("gne.unreliable", 0), 1);

    tcp(1, 0, EXHELLO_CAP);
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("gne.message", 0), 3);
    cr_assert_eq(U("gne.response", 0), 1);
    cr_assert_eq(I("gne.udp_port", 0), 39182);
    /* the server's UDP port is on the responder's side: a link is expected */
    cr_assert_eq(c.n_expect, 1);
    cr_assert_eq(c.expect_transport, GW_TRANSPORT_UDP);
    cr_assert_eq(c.expect_side, 1);
    cr_assert_eq(c.expect_port, 39182);
    cr_assert_eq(c.expect_conv, conv);

    /* the client's port message: bd b1 00 00 = 45501 (frame 16) */
    tcp(0, 0, "4e4c0004 bdb10000");
    cr_assert_eq(U("gne.message", 0), 4);
    cr_assert_eq(I("gne.udp_port", 0), 45501);
    cr_assert_eq(c.n_findings, 0);
    cr_assert_str_eq(c.summary, "Client UDP port 45501");
}

/* exhello's request with its game name filling all 32 bytes ("a" x 32, no
   NUL): gne.md, The First Packet, "a NULL-terminated ASCII string of length
   no greater 31 characters". Shown whole, warned about at its offset (4 NL
   header, 3 magic, 2 versions, 2 build = 11), the rest of the request read */
Test(gne, game_name_without_nul)
{
    tcp(0, 0, "4e4c0030 474e45 00 00 0700 "
              "6161616161616161616161616161616161616161616161616161616161616161 "
              "01000000 00000000 01");
    cr_assert(has("gne.game_name.unterminated"));
    cr_assert_eq(c.n_findings, 1);
    cr_assert_eq(c.finding_off[0], 11);
    S("gne.game_name", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    cr_assert_eq(U("gne.user_version", 0), 1);
    cr_assert_eq(U("gne.unreliable", 0), 1);
}

Test(gne, big_endian_connection_and_its_udp_link)
{
    /* build 00 07: big-endian data; user 1, rate 6400 = 0x1900 */
    tcp(0, 0, "4e4c0030 474e45 00 00 0007 6f6c64 " /* "old" */
              "0000000000000000000000000000000000000000000000000000000000 " /* 29 */
              "00000001 00001900 01");
    cr_assert_eq(U("gne.byte_order", 0), GNE_ORDER_BIG);
    cr_assert_eq(U("gne.build", 0), 7);
    S("gne.game_name", "old");
    cr_assert_eq(U("gne.user_version", 0), 1);
    cr_assert_eq(U("gne.rate", 0), 6400);
    tcp(1, 0, "4e4c000c 474e45 01 00003200 0000a02b"); /* rate 12800, port 41003 */
    cr_assert_eq(U("gne.rate", 0), 12800);
    cr_assert_eq(I("gne.udp_port", 0), 41003);
    cr_assert_eq(U("gne.rate.client_to_server", 0), 12800);
    cr_assert_eq(U("gne.rate.server_to_client", 0), 6400);
    cr_assert_eq(c.expect_port, 41003);

    /* the linked UDP conversation inherits the byte order */
    void *link = new_conv();
    P->conv_link(link, conv);
    udp(link, 0, "04 00000002 0000000000000000 0000000000000000 ff");
    cr_assert_eq(U("gne.ping.req_id", 0), 2);
    cr_assert_eq(U("gne.byte_order", 0), GNE_ORDER_BIG);
    cr_assert_eq(U("gne.link.frame", 0), 1);
    cr_assert_eq(c.n_findings, 0);
    P->conv_free(link);
    free(link);

    /* forced little-endian reads the same bytes otherwise */
    opt[GNE_OPT_BYTE_ORDER] = GNE_ORDER_LITTLE;
    tcp(0, 0, "4e4c0006 03 00000c80 ff");
    cr_assert_eq(U("gne.rate", 0), 0x800c0000u);
    opt[GNE_OPT_BYTE_ORDER] = GNE_ORDER_BIG;
    tcp(0, 0, "4e4c0006 03 00000c80 ff");
    cr_assert_eq(U("gne.rate", 0), 0xc80);
}

Test(gne, ping_round_trip_and_offset)
{
    tcp(0, 0, EXHELLO_CRP);
    tcp(1, 0, "4e4c000c 474e45 01 00000000 ffffffff");
    /* request id 7 at T1 = 1.000 s; reply at T4 = 1.002 s with
       T2 = T3 = 100 s + 500 us (64000000 f4010000) */
    tcp(0, 1000000000, "4e4c0016 04 07000000 0000000000000000 0000000000000000 ff");
    cr_assert_eq(U("gne.ping.reply", 0), 0);
    cr_assert_str_eq(c.summary, "Ping request 7");
    tcp(1, 1002000000, "4e4c0016 04 07000000 64000000f4010000 64000000f4010000 ff");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("gne.ping.req_id", 0), 7);
    cr_assert_eq(U("gne.ping.reply", 0), 1);
    cr_assert_eq(I("gne.time.sec", 0), 100);
    cr_assert_eq(I("gne.time.usec", 1), 500);
    cr_assert_eq(U("gne.ping.request_frame", 0), 1);
    /* R = (1.002 - 1.000) - 0 = 2 ms */
    cr_assert_eq(I("gne.ping.rtt", 0), 2000000);
    /* O = ((100.0005 - 1.000) + (100.0005 - 1.002)) / 2 = 98.9995 s */
    cr_assert_eq(I("gne.ping.offset", 0), 98999500000LL);
    cr_assert_eq(I("gne.ping.offset_error", 0), 1000000);
    /* answered once only; a server request is paired separately */
    tcp(1, 1003000000, "4e4c0016 04 07000000 64000000f4010000 64000000f4010000 ff");
    cr_assert(has("gne.ping.unmatched"));
    /* a negative gtime: -5 s + 500000 us = -4.5 s */
    tcp(1, 0, "4e4c0016 04 01000000 0000000000000000 0000000000000000 ff");
    tcp(0, 0, "4e4c0016 04 01000000 fbffffff20a10700 fbffffff20a10700 ff");
    cr_assert_eq(I("gne.time.sec", 0), -5);
    cr_assert_eq(I("gne.time.usec", 0), 500000);
    cr_assert_eq(I("gne.ping.offset", 0), -4500000000LL);
    /* usec out of range, T2 after T3 */
    tcp(1, 0, "4e4c0016 04 02000000 0000000000000000 0000000000000000 ff");
    tcp(0, 0, "4e4c0016 04 02000000 0100000040420f00 0100000005000000 ff");
    cr_assert(has("gne.time.bad_usec"));
    cr_assert(has("gne.ping.t2_after_t3"));
}

/* GNE text, PingPacket: the id "should be unique for a given connection":
   reused while unanswered is a warning, once answered it is not */
Test(gne, ping_ids_reused)
{
    tcp(0, 0, EXHELLO_CRP);
    tcp(1, 0, "4e4c000c 474e45 01 00000000 ffffffff");
    tcp(0, 0, "4e4c0016 04 07000000 0000000000000000 0000000000000000 ff");
    tcp(0, 0, "4e4c0016 04 07000000 0000000000000000 0000000000000000 ff");
    cr_assert(has("gne.ping.id_reused"));
    tcp(1, 0, "4e4c0016 04 07000000 0100000000000000 0100000005000000 ff");
    tcp(0, 0, "4e4c0016 04 08000000 0000000000000000 0000000000000000 ff");
    tcp(1, 0, "4e4c0016 04 08000000 0100000000000000 0100000005000000 ff");
    tcp(0, 0, "4e4c0016 04 08000000 0000000000000000 0000000000000000 ff");
    cr_assert_not(has("gne.ping.id_reused"), "8 was answered");
}

/* GNE text, CustomPacket: "guint8 | length | The length of the encapsulated
   raw packet"; gnelib writes 2 bytes (wire-facts 3.10). Where the two differ
   both readings are tried and the one whose bytes fit is taken: the text's
   one-byte length is no truncation under the default profile (a note,
   once), nor under spec (nothing); under the strict reference profile the
   bytes are read as gnelib reads them, and do not fit. */
static void text_custom_packet(int profile)
{
    opt[GNE_OPT_PROFILE] = profile;
    tcp(0, 0, EXHELLO_CRP);
    tcp(1, 0, "4e4c000c 474e45 01 00000000 ffffffff");
    /* CustomPacket: id 1, guint8 length 4, "data", then the 255 */
    tcp(0, 0, "4e4c0007 01 04 64617461 ff");
}

Test(gne, custom_packet_in_the_texts_layout)
{
    text_custom_packet(GW_PROFILE_EITHER);
    cr_assert_not(has("gne.packet.truncated"));
    cr_assert_eq(c.n_findings, 1);
    cr_assert(has("gne.divergence.custom_length"));
    cr_assert_eq(U("gne.custom.length", 0), 4);
    S("gne.custom.data", "data");
    cr_assert_eq(U("gne.end", 0), 255);
    tcp(0, 0, "4e4c0007 01 04 64617461 ff");
    cr_assert_eq(c.n_findings, 0, "noted once");
    /* gnelib's two bytes in the same conversation: noted once as well */
    tcp(0, 0, "4e4c0008 01 0400 64617461 ff");
    cr_assert_eq(U("gne.custom.length", 0), 4);
    cr_assert(has("gne.divergence.custom_length"));
}

Test(gne, custom_packet_in_the_texts_layout_under_spec)
{
    text_custom_packet(GW_PROFILE_SPEC);
    cr_assert_eq(c.n_findings, 0);
    S("gne.custom.data", "data");
}

Test(gne, custom_packet_in_the_texts_layout_under_reference)
{
    text_custom_packet(GW_PROFILE_REFERENCE);
    cr_assert(has("gne.packet.truncated"));
}

Test(gne, wrapped_packets)
{
    tcp(0, 0, EXHELLO_CRP);
    tcp(1, 0, "4e4c000c 474e45 01 00000000 ffffffff");
    /* Channel[ObjectUpdate[Custom "xy"] object 9] channel 4 from 0 */
    tcp(0, 0, "4e4c000c 05 07 01 0200 7879 0900 04 00 ff");
    cr_assert_eq(c.n_findings, 1, "the CustomPacket's u16 length, noted once (profile reference)");
    cr_assert(has("gne.divergence.custom_length"));
    cr_assert_eq(collect_count(&c, field("gne.packet.id")), 3);
    cr_assert_eq(U("gne.packet.id", 0), 5);
    cr_assert_eq(U("gne.packet.id", 1), 7);
    cr_assert_eq(U("gne.packet.id", 2), 1);
    cr_assert_eq(U("gne.custom.length", 0), 2);
    S("gne.custom.data", "xy");
    cr_assert_eq(U("gne.object_id", 0), 9);
    cr_assert_eq(U("gne.channel", 0), 4);
    cr_assert_eq(U("gne.channel.from", 0), 0);
    cr_assert_eq(U("gne.end", 0), 255);
    /* ObjectDeath with no packet: the lone 255, then object 40001 */
    tcp(1, 0, "4e4c0005 08 ff 419c ff");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(collect_count(&c, field("gne.packet.id")), 1);
    cr_assert_eq(U("gne.object_id", 0), 40001);
    /* a user packet in a channel: data up to the channel's 2 bytes */
    tcp(1, 0, "4e4c0008 05 10 616263 06 01 ff");
    cr_assert_eq(c.n_findings, 0);
    S("gne.user.data", "abc");
    cr_assert_eq(U("gne.user.length_unknown", 0), 1);
    cr_assert_eq(U("gne.channel", 0), 6);
    cr_assert_eq(U("gne.channel.from", 0), 1);
    /* nine channels deep */
    tcp(1, 0, "4e4c0015 050505050505050505 00 0102 0102 0102 0102 0102 ff");
    cr_assert(has("gne.packet.too_deep"));
    cr_assert_eq(collect_count(&c, field("gne.packet.id")), 8);
}

Test(gne, message_faults)
{
    tcp(0, 0, EXHELLO_CRP);
    tcp(1, 0, "4e4c000c 474e45 01 00000000 ffffffff");
    tcp(0, 0, "4e4c0002 00 02");
    cr_assert(has("gne.message.unterminated"));
    tcp(0, 0, "4e4c0004 02 ff 6a6b");
    cr_assert(has("gne.message.trailing"));
    S("gne.trailing", "jk");
    tcp(0, 0, "4e4c0004 0c 01 02 ff");
    cr_assert(has("gne.packet.reserved"));
    tcp(0, 0, "4e4c0006 01 3200 6162 ff");
    cr_assert(has("gne.packet.truncated"));
    cr_assert(!has("gne.message.unterminated")); /* one finding for one fault */
}

Test(gne, refusals)
{
    /* client: build 7 LE, game "g", user 2 */
    const char *crp = "4e4c0030 474e45 00 00 0700 67 00000000000000000000000000000000000000000000000000000000000000 "
                      "02000000 00000000 00";
    tcp(0, 0, crp);
    tcp(1, 0, "4e4c002c 474e45 00 00 00 0700 67 00000000000000000000000000000000000000000000000000000000000000 "
              "02000000");
    cr_assert_eq(U("gne.message", 0), 2);
    cr_assert_eq(U("gne.response", 0), 0);
    cr_assert(has("gne.refusal.versions_match"));
    /* the same versions from a big-endian server (gnelib 0.70) */
    teardown();
    setup();
    tcp(0, 0, crp);
    tcp(1, 0, "4e4c002c 474e45 00 00 00 0007 67 00000000000000000000000000000000000000000000000000000000000000 "
              "00000002");
    cr_assert_eq(U("gne.byte_order", 0), GNE_ORDER_BIG);
    cr_assert_eq(U("gne.user_version", 0), 2);
    cr_assert(has("gne.refusal.byte_order_mismatch"));
    cr_assert(!has("gne.refusal.versions_match"));
    /* a real refusal: the games differ, no finding */
    teardown();
    setup();
    tcp(0, 0, crp);
    tcp(1, 0, "4e4c002c 474e45 00 00 00 0700 68 00000000000000000000000000000000000000000000000000000000000000 "
              "02000000");
    cr_assert_eq(c.n_findings, 0);
}

Test(gne, handshake_faults)
{
    tcp(0, 0, "4e4c0007 474e45 00 00 0700");
    cr_assert(has("gne.handshake.bad_length"));
    teardown();
    setup();
    tcp(0, 0, EXHELLO_CRP);
    tcp(1, 0, "4e4c000c 474e45 01 00000000 70110100"); /* port 70000 */
    cr_assert(has("gne.udp_port.out_of_range"));
    cr_assert_eq(c.n_expect, 0);
    tcp(0, 0, "4e4c0004 fbffffff"); /* the client's port message: -5 */
    cr_assert_eq(I("gne.udp_port", 0), -5);
    cr_assert(has("gne.udp_port.out_of_range"));
}

Test(gne, framing)
{
    uint8_t d[32];
    cr_assert_eq(P->pdu_length(opt, d, unhex("4e4c0030", d)), 52);
    cr_assert_eq(P->pdu_length(opt, d, unhex("4e4c4000", d)), 4 + 16384);
    /* too long: the next NL is the next PDU */
    cr_assert_eq(P->pdu_length(opt, d, unhex("4e4c4001 00 4e4c", d)), 5);
    cr_assert_eq(P->pdu_length(opt, d, unhex("4e4c4001 00", d)), GW_PDU_INVALID);
    /* bad magic: up to the next NL */
    cr_assert_eq(P->pdu_length(opt, d, unhex("78797a 4e4c0002", d)), 3);
    cr_assert_eq(P->pdu_length(opt, d, unhex("78797a00", d)), GW_PDU_INVALID);
    cr_assert_eq(P->pdu_length(opt, d, unhex("4e4c00", d)), 0);

    tcp(0, 0, "78797a00");
    cr_assert(has("gne.nl.out_of_sync"));
    tcp(0, 0, "4e4c4001 0000");
    cr_assert(has("gne.nl.too_long"));
}

Test(gne, heuristic)
{
    uint8_t d[64];
    cr_assert(P->heuristic(opt, GW_TRANSPORT_TCP, d, unhex("4e4c0030", d)));
    cr_assert(P->heuristic(opt, GW_TRANSPORT_TCP, d, unhex("4e4c0030 474e450000", d)));
    cr_assert(P->heuristic(opt, GW_TRANSPORT_TCP, d, unhex("4e4c002f 474e450000", d)));
    cr_assert(!P->heuristic(opt, GW_TRANSPORT_TCP, d, unhex("4e4c002f", d)));
    cr_assert(!P->heuristic(opt, GW_TRANSPORT_TCP, d, unhex("4e4c0016 04000000", d)));
    cr_assert(!P->heuristic(opt, GW_TRANSPORT_TCP, d, unhex("474554202f20485454", d)));
    cr_assert(!P->heuristic(opt, GW_TRANSPORT_UDP, d, unhex("ff", d)));
}

/* every prefix of a few messages: no crash, and a finding for each cut */
Test(gne, every_prefix)
{
    const char *contents[] = {
        "04 07000000 64000000f4010000 64000000f4010000 ff",
        "05 07 01 0200 7879 0900 04 00 ff",
        "01 0500 416c696365 ff",
        "03 800c0000 ff",
    };
    for (size_t i = 0; i < sizeof contents / sizeof contents[0]; i++) {
        uint8_t body[64];
        size_t n = unhex(contents[i], body);
        for (size_t k = 0; k < n; k++) {
            char hex[256];
            int at = snprintf(hex, sizeof hex, "4e4c%04zx", k);
            for (size_t j = 0; j < k; j++)
                at += snprintf(hex + at, sizeof hex - (size_t)at, "%02x", body[j]);
            tcp(0, 0, hex);
            cr_assert(c.n_findings > 0, "message %zu cut at %zu: no finding", i, k);
        }
    }
}

/* GNE text, Starting a New Connection: without a requested UDP link the connection is
   complete with the accept, so the client sends no port message */
Test(gne, port_message_without_a_link_is_flagged)
{
    /* exhello's request with its last byte (unreliable) 00, accept with port -1 */
    tcp(0, 0, "4e4c0030 474e45 00 00 0700 68656c6c6f206578616d706c6573 "
              "000000000000000000000000000000000000 01000000 00000000 00");
    tcp(1, 1000, "4e4c000c 474e45 01 00000000 ffffffff");
    cr_assert_eq(c.n_findings, 0);
    tcp(0, 2000, "4e4c0004 0e990000");          /* port 39182 all the same */
    cr_assert(collect_has_finding(&c, finding("gne.udp_port.unexpected")));
    cr_assert_eq(U("gne.udp_port", 0), 39182);
    /* only the client's first message is taken for one: an empty message
       (a lone 255) afterwards is a message */
    tcp(0, 3000, "4e4c0001 ff");
    cr_assert_eq(c.n_findings, 0);
}

/* ---- pcaptool replay's hooks ---- */

static int64_t msg(const char *name)
{
    const gw_value_name *n = P->fields[collect_field(P, "gne.message")].names;
    for (; n->name; n++)
        if (strcmp(n->name, name) == 0)
            return n->value;
    cr_assert_fail("no message %s", name);
    return -1;
}

/* a connection request (NL frame; build at content offset 5) of game "hi",
   unreliable link asked for or not, decoded as replay decodes it in cv */
static const gw_replay_pdu *request(replay_pdu *x, void *cv, const char *build, bool unreliable)
{
    char hex[200];
    snprintf(hex, sizeof hex, "4e 4c 00 30  47 4e 45 00 00 %s  68 69 00 00 00 00 00 00 00 00"
             " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  00 00 00 01"
             " 00 00 00 00  %s", build, unreliable ? "01" : "00");
    return replay_pdu_decode(x, P, cv, 0, GW_TRANSPORT_TCP, hex);
}

/* the UDP link's ports follow the live handshake, in the request's byte
   order: our port message names our live port; the peer's accept names its */
static void link_ports(const char *build, int big)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    gw_replay_link *lk = r->link(st);
    lk->ours = 0x1234;
    replay_pdu x;
    uint8_t d[64];
    const gw_replay_pdu *p = request(&x, conv, build, true);
    cr_assert_eq(p->type, msg("Connection request"));
    memcpy(d, p->data, p->len);
    r->adapt(st, p, d);
    cr_assert_arr_eq(d, p->data, p->len, "a request has nothing to adapt");
    /* the live accept: rate 0, UDP port 0xb1c2 */
    p = replay_pdu_decode(&x, P, conv, 1, GW_TRANSPORT_TCP,
                          big ? "4e 4c 00 0c  47 4e 45 01  00 00 00 00  00 00 b1 c2"
                              : "4e 4c 00 0c  47 4e 45 01  00 00 00 00  c2 b1 00 00");
    cr_assert_eq(p->type, msg("Connection accepted"));
    r->observe(st, p, false);
    cr_assert_eq(lk->peers, 0xb1c2);
    /* our recorded port message (45501 = 0xb1bd) names 0x1234 */
    p = replay_pdu_decode(&x, P, conv, 0, GW_TRANSPORT_TCP,
                          big ? "4e 4c 00 04  00 00 b1 bd" : "4e 4c 00 04  bd b1 00 00");
    cr_assert_eq(p->type, msg("Client UDP port"));
    memcpy(d, p->data, p->len);
    r->adapt(st, p, d);
    uint8_t want[8];
    unhex(big ? "4e 4c 00 04  00 00 12 34" : "4e 4c 00 04  34 12 00 00", want);
    cr_assert_arr_eq(d, want, 8);
    free(st);
}

Test(gne, replay_link_ports_little_endian) { link_ports("07 00", 0); }
Test(gne, replay_link_ports_big_endian) { link_ports("00 07", 1); }

/* the parts of a decoded message (gw_replay.parts), at most 8 */
static unsigned parts(const gw_replay_pdu *p, gw_replay_pdu out[8])
{
    return gw_replay_of(P)->parts(p, out, 8);
}

/* a message's packets are its parts, typed by packet; a wrapped packet
   belongs to its wrapper */
Test(gne, replay_parts)
{
    void *link_conv = test_conv_new(P, opt);
    replay_pdu x;
    gw_replay_pdu part[8];
    /* rate adjust 3000, ping request 7, then a ChannelPacket wrapping a
       ping request, then user packet 16 (little-endian data) */
    const gw_replay_pdu *p = replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP,
        "03 b8 0b 00 00  04 07 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  05 04 08 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 03 01  10 41 ff");
    cr_assert_eq(parts(p, part), 4);
    cr_assert_eq(part[0].type, 0x100 + 3);
    cr_assert_eq(part[1].type, 0x100 + 4);
    cr_assert_eq(part[2].type, 0x100 + 5, "the channel packet, its ping inside");
    cr_assert_eq(part[3].type, 0x100 + 16);
    uint64_t v;
    cr_assert(gw_replay_u(&part[0], collect_field(P, "gne.rate"), &v));
    cr_assert_eq(v, 3000);
    cr_assert(gw_replay_u(&part[1], collect_field(P, "gne.ping.req_id"), &v));
    cr_assert_eq(v, 7);
    cr_assert(gw_replay_u(&part[2], collect_field(P, "gne.ping.req_id"), &v));
    cr_assert_eq(v, 8);
    cr_assert_not(gw_replay_u(&part[1], collect_field(P, "gne.rate"), &v), "each part has its own items");
    /* a lone 255 has none */
    cr_assert_eq(parts(replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP, "ff"), part), 0);
    test_conv_free(P, link_conv);
}

Test(gne, replay_need_and_match)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    void *live_conv = test_conv_new(P, opt);
    replay_pdu x, y;
    gw_replay_pdu rp[8], lp[8];
    char why[200] = "";
    /* a lone 255 on the link may come or not; an application packet comes
       in as many frames as its sender groups it in; a ping request when the
       peer pings; the rest answers */
    void *link_conv = test_conv_new(P, opt);
    const gw_replay_pdu *p = replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP, "ff");
    cr_assert_eq(p->type, msg("Message of packets"));
    cr_assert_eq(r->need(st, p), GW_REPLAY_OPTIONAL);
    cr_assert_eq(parts(replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP,
                                         "10 41 ff"), rp), 1);
    cr_assert_eq(r->need(st, &rp[0]), GW_REPLAY_PERIODIC);
    parts(replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP, "03 b8 0b 00 00 ff"), rp);
    cr_assert_eq(r->need(st, &rp[0]), GW_REPLAY_ANSWER);
    parts(replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP,
                            "04 07 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 ff"), rp);
    cr_assert_eq(r->need(st, &rp[0]), GW_REPLAY_PERIODIC);
    test_conv_free(P, link_conv);
    /* the handshakes, recorded and live: the recorded accept offers a UDP
       link, the live one none (-1) */
    request(&x, conv, "07 00", true);
    request(&y, live_conv, "07 00", true);
    const gw_replay_pdu *rec = replay_pdu_decode(&x, P, conv, 1, GW_TRANSPORT_TCP,
                                                 "4e 4c 00 0c  47 4e 45 01  00 00 00 00  c2 b1 00 00");
    const gw_replay_pdu *live = replay_pdu_decode(&y, P, live_conv, 1, GW_TRANSPORT_TCP,
                                                  "4e 4c 00 0c  47 4e 45 01  00 00 00 00  ff ff ff ff");
    cr_assert_eq(r->need(st, rec), GW_REPLAY_ANSWER);
    cr_assert_not(r->match(st, rec, live, why, sizeof why));
    cr_assert_str_eq(why, "offers no UDP link, the recording has one");
    /* a ping reply answers, and must answer the recorded request (id 2,
       little-endian); it is identified by that id */
    cr_assert_eq(parts(replay_pdu_decode(&x, P, conv, 1, GW_TRANSPORT_TCP,
                 "4e 4c 00 16  04 02 00 00 00  01 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00  ff"), rp), 1);
    cr_assert_eq(r->need(st, &rp[0]), GW_REPLAY_ANSWER);
    parts(replay_pdu_decode(&y, P, live_conv, 1, GW_TRANSPORT_TCP,
          "4e 4c 00 16  04 03 00 00 00  01 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00  ff"), lp);
    cr_assert_not(r->identifies(st, &rp[0], &lp[0]));
    cr_assert_not(r->match(st, &rp[0], &lp[0], why, sizeof why));
    cr_assert_str_eq(why, "ping 3, recorded 2");
    parts(replay_pdu_decode(&y, P, live_conv, 1, GW_TRANSPORT_TCP,
          "4e 4c 00 16  04 02 00 00 00  01 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00  ff"), lp);
    cr_assert(r->identifies(st, &rp[0], &lp[0]));
    cr_assert(r->match(st, &rp[0], &lp[0], why, sizeof why));
    test_conv_free(P, live_conv);
    free(st);
}

/* an ExitPacket closes; other packets do not */
Test(gne, replay_closes)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    void *link_conv = test_conv_new(P, opt);
    replay_pdu x;
    gw_replay_pdu part[8];
    cr_assert_eq(parts(replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP, "10 41 ff"), part), 1);
    cr_assert_not(r->closes(st, &part[0]));
    cr_assert_eq(parts(replay_pdu_decode(&x, P, link_conv, 0, GW_TRANSPORT_UDP, "02 ff"), part), 1);
    cr_assert(r->closes(st, &part[0]));
    test_conv_free(P, link_conv);
    free(st);
}
