/* Unit tests of pcaptool's own parts: link/IP/UDP parsing, JSON strings,
 * the conversation table. Frames are written out by hand from the header
 * layouts (RFC 791, 8200, 768; IEEE 802.1Q; Linux cooked capture v2). */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "dnp/dnp.h"
#include "eoudp/eoudp.h"
#include "openttd/openttd.h"
#include "flows.h"
#include "netparse.h"
#include "output.h"
#include "reorder.h"
#include "run.h"
#include "tcpstream.h"

/* p's options at their defaults */
static const int *opts_of(const gw_protocol *p)
{
    static int opts[GW_MAX_PROTOCOLS][GW_MAX_OPTIONS];
    int i = 0;
    while (gw_protocols[i] != p)
        i++;
    gw_options_init(p, opts[i]);
    return opts[i];
}

#define ETH "020000000002 020000000001 "

Test(netparse, ethernet_vlan_ipv4_udp)
{
    uint8_t f[128];
    size_t n = unhex(ETH "8100 002a 0800"
                     "4500 0021 0000 4000 4011 0000 0a000001 0a000002" /* 20 + 13 */
                     "9c41 0d55 000d 0000" "00 0100 0000" "0000", f); /* 2 bytes Ethernet padding */
    net_packet p;
    cr_assert_eq(net_parse(1, f, n, &p), NET_OK);
    cr_assert_eq(p.ip_version, 4);
    cr_assert_eq(p.l4, NET_UDP);
    cr_assert_eq(p.sport, 40001);
    cr_assert_eq(p.dport, 3413);
    cr_assert_eq(p.payload_len, 5, "padding after the IP total length is dropped");
    cr_assert(memcmp(p.payload, "\x00\x01\x00\x00\x00", 5) == 0);
    char ep[64];
    net_format_endpoint(&p, 0, ep, sizeof ep);
    cr_assert_str_eq(ep, "10.0.0.1:40001");
}

Test(netparse, ipv6_with_extension_header)
{
    uint8_t f[160];
    /* raw IPv6: next header 0 (hop-by-hop, 8 bytes) then UDP */
    size_t n = unhex("6000 0000 0015 00 40 fd000000000000000000000000000001 fd000000000000000000000000000002"
                     "11 00 0000 00000000"
                     "9c41 0d55 000d 0000" "00 0100 0000", f);
    net_packet p;
    cr_assert_eq(net_parse(101, f, n, &p), NET_OK);
    cr_assert_eq(p.ip_version, 6);
    cr_assert_eq(p.dport, 3413);
    cr_assert_eq(p.payload_len, 5);
    char ep[64];
    net_format_endpoint(&p, 1, ep, sizeof ep);
    cr_assert_str_eq(ep, "[fd00::2]:3413");
}

Test(netparse, linux_cooked_v2)
{
    uint8_t f[128];
    size_t n = unhex("0800 0000 00000001 0001 06 00 000000000001 0000"
                     "4500 0021 0000 4000 4011 0000 0a000001 0a000002"
                     "9c41 0d55 000d 0000" "00 0100 0000", f);
    net_packet p;
    cr_assert_eq(net_parse(276, f, n, &p), NET_OK);
    cr_assert_eq(p.sport, 40001);
    cr_assert_eq(p.payload_len, 5);
}

Test(netparse, fragments_truncation_and_others)
{
    uint8_t f[128];
    net_packet p;
    /* more-fragments set */
    size_t n = unhex(ETH "0800 4500 0021 0000 2000 4011 0000 0a000001 0a000002 9c41 0d55 000d 0000 0001000000", f);
    cr_assert_eq(net_parse(1, f, n, &p), NET_FRAGMENT);
    /* each prefix of the headers is truncated, never read past */
    n = unhex(ETH "0800 4500 0021 0000 4000 4011 0000 0a000001 0a000002 9c41 0d55 000d 0000", f);
    for (size_t k = 0; k < n; k++) {
        uint8_t *copy = malloc(k ? k : 1);
        memcpy(copy, f, k);
        cr_assert_eq(net_parse(1, copy, k, &p), NET_TRUNCATED, "prefix %zu", k);
        free(copy);
    }
    /* ARP */
    n = unhex(ETH "0806 0001 0800 0604 0001", f);
    cr_assert_eq(net_parse(1, f, n, &p), NET_NOT_IP);
    /* ICMP */
    n = unhex(ETH "0800 4500 001c 0000 4000 4001 0000 0a000001 0a000002 0800 0000 0000 0000", f);
    cr_assert_eq(net_parse(1, f, n, &p), NET_NOT_UDP_TCP);
    cr_assert_eq(net_parse(147, f, n, &p), NET_BAD_LINKTYPE);
}

/* a record of these items as JSON: written as they come (out_pdu_direct,
   no items kept) or grouped from the kept items when written */
static char *json_record(const gw_item *items, size_t n, bool direct)
{
    out_pdu *o = out_pdu_new();
    out_pdu_direct(o, direct);
    out_pdu_keep_items(o, !direct);
    out_pdu_labels(o, false);
    const gw_sink *sink = out_pdu_begin(o, &gw_dnp_protocol);
    for (size_t i = 0; i < n; i++)
        sink->item(sink->ctx, &items[i]);
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    out_meta m = {.frame = 1, .src = "a", .dst = "b"};
    out_pdu_write(o, f, OUT_JSON, 0, &m);
    fclose(f);
    out_pdu_free(o);
    return buf;
}

/* A number's text in -V and the plugin's tree (gw_format_number, by
   hand): what printf's formats it replaced write, worked out here from
   them ("0x%0*x" with twice the field's bytes, or 2 under a mask;
   "%u (0x%0*x)"; "%s (%s)" with a value name; "%s %s" with a unit, "1
   byte"), and snprintf's cut at each buffer size */
Test(core, number_texts_as_printf_wrote_them)
{
    static const gw_value_name kinds[] = {{3, "Join", 0}, {10, "Ten to twelve", 12}, {0, NULL, 0}};
    struct {
        gw_field f;
        gw_value v;
        const char *label, *want;
    } cases[] = {
        {{.type = GW_FT_U16, .base = GW_BASE_HEX}, {.u = 0x1a}, NULL, "0x001a"},
        {{.type = GW_FT_U64, .base = GW_BASE_HEX}, {.u = 0xdeadbeefULL}, NULL, "0x00000000deadbeef"},
        {{.type = GW_FT_U8, .base = GW_BASE_HEX, .mask = 0xf0}, {.u = 0xa5}, NULL, "0x0a"},
        {{.type = GW_FT_U32, .base = GW_BASE_DEC_HEX}, {.u = 300}, NULL, "300 (0x0000012c)"},
        {{.type = GW_FT_U8, .base = GW_BASE_DEC}, {.u = 0}, NULL, "0"},
        {{.type = GW_FT_U64, .base = GW_BASE_DEC}, {.u = UINT64_MAX}, NULL, "18446744073709551615"},
        {{.type = GW_FT_I16, .base = GW_BASE_DEC}, {.i = -5}, NULL, "-5"},
        {{.type = GW_FT_I64, .base = GW_BASE_DEC}, {.i = INT64_MIN}, NULL, "-9223372036854775808"},
        {{.type = GW_FT_U32, .base = GW_BASE_BYTES}, {.u = 1}, NULL, "1 byte"},
        {{.type = GW_FT_U32, .base = GW_BASE_BYTES}, {.u = 14616}, NULL, "14616 bytes"},
        {{.type = GW_FT_U32, .base = GW_BASE_BYTES_PER_SECOND}, {.u = 1}, NULL, "1 byte/s"},
        {{.type = GW_FT_U32, .base = GW_BASE_MILLISECONDS}, {.u = 40}, NULL, "40 ms"},
        {{.type = GW_FT_DOUBLE, .base = GW_BASE_SECONDS}, {.d = 12.5}, NULL, "12.5 s"},
        {{.type = GW_FT_U8, .base = GW_BASE_DEC, .names = kinds}, {.u = 3}, NULL, "Join (3)"},
        {{.type = GW_FT_U8, .base = GW_BASE_DEC, .names = kinds}, {.u = 11}, NULL, "Ten to twelve (11)"},
        {{.type = GW_FT_U8, .base = GW_BASE_NONE, .names = kinds}, {.u = 3}, NULL, "Join"},
        {{.type = GW_FT_U8, .base = GW_BASE_NONE, .names = kinds}, {.u = 4}, NULL, "4"},
        {{.type = GW_FT_U8, .base = GW_BASE_HEX, .names = kinds}, {.u = 3}, NULL, "Join (0x03)"},
        {{.type = GW_FT_U16, .base = GW_BASE_DEC}, {.u = 7}, "SERVER_JOIN", "SERVER_JOIN (7)"},
        {{.type = GW_FT_I32, .base = GW_BASE_DEC, .names = kinds}, {.i = -1}, NULL, "-1"},
        {{.type = GW_FT_BOOL, .mask = 0x4}, {.u = 0x4}, NULL, "True"},
        {{.type = GW_FT_BOOL, .mask = 0x4}, {.u = 0x3}, NULL, "False"},
    };
    char buf[160];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_str_eq(gw_format_number(buf, sizeof buf, &cases[i].f, &cases[i].v, cases[i].label),
                         cases[i].want, "case %zu", i);
    /* cut at every size as snprintf cuts the text (the old code wrote it
       with one snprintf): what fits before the last byte and a NUL, nothing
       past the size, nothing at all at size 0 */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].want);
        for (size_t size = 0; size <= len + 2; size++) {
            char got[66], want[66]; /* (a byte before the buffer: nothing written there either) */
            memset(got, 0x55, sizeof got);
            memset(want, 0x55, sizeof want);
            gw_format_number(got + 1, size, &cases[i].f, &cases[i].v, cases[i].label);
            snprintf(want + 1, size, "%s", cases[i].want);
            cr_expect_arr_eq(got, want, sizeof got, "case %zu, size %zu", i, size);
        }
    }
}

/* JSON numbers are written by hand; doubles must read exactly as printf's
   %.17g writes them (what the expected outputs hold), integers included */
Test(output, json_doubles_as_printf_writes_them)
{
    static const double values[] = {0.0, -0.0, 1.0, -1.0, 0.1, -2.5, 3e-5, 1e300, -1e-300,
                                    5e16, 99999999999999984.0, 1e17, 9007199254740993.0,
                                    123456789.0, -123456789.0, 65535.0, 1.5e10};
    int f_float = -1;
    for (int i = 0; i < gw_dnp_protocol.n_fields; i++)
        if (!strcmp(gw_dnp_protocol.fields[i].abbrev, "dnp.value.float"))
            f_float = i;
    cr_assert_geq(f_float, 0);
    gw_item items[sizeof values / sizeof values[0]];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        items[i] = (gw_item){.field = f_float, .v.d = values[i]};
    char *buf = json_record(items, sizeof values / sizeof values[0], false);
    GString *want = g_string_new("\"dnp.value.float\":[");
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        g_string_append_printf(want, "%s%.17g", i ? "," : "", values[i]);
    g_string_append(want, "]");
    cr_assert(strstr(buf, want->str), "%s\nwanted %s", buf, want->str);
    g_string_free(want, TRUE);
    free(buf);
}

/* Records held (out_pdu_hold: the fields written after a gap the head
   fills, written out as pieces) come out as records written one by one:
   a PDU begun and not written leaves nothing, a flush while a record is
   being made keeps it, a head longer than the gap and a record whose
   fields came back are whole */
static char *held_records(bool hold)
{
    FILE *f = tmpfile();
    cr_assert(f);
    out_pdu *o = out_pdu_new();
    out_pdu_direct(o, true);
    out_pdu_keep_items(o, false);
    out_pdu_labels(o, false);
    out_pdu_hold(o, hold);
    char long_summary[240];
    memset(long_summary, '"', sizeof long_summary - 1); /* (escaped: 476 bytes) */
    long_summary[sizeof long_summary - 1] = '\0';
    const gw_item a[] = {{.field = DNP_F_COMMAND, .v.u = 5}, {.field = DNP_F_SEQ, .v.u = 300},
                         {.field = DNP_F_COMMAND, .v.u = 6}};
    for (unsigned k = 0; k < 6; k++) {
        const gw_sink *sink = out_pdu_begin(o, &gw_dnp_protocol);
        for (unsigned i = 0; i < (k == 3 ? 3u : k % 3); i++)
            sink->item(sink->ctx, &a[i]);
        sink->summary(sink->ctx, k == 4 ? long_summary : "Sum");
        if (k == 1)
            continue; /* begun, not written */
        if (k == 2)
            out_pdu_flush(o, f); /* while it is made */
        out_meta m = {.frame = k + 1, .src = "a", .dst = "b", .file_json = "\"x\""};
        out_pdu_write(o, f, OUT_JSON, 0, &m);
    }
    out_pdu_flush(o, f);
    out_pdu_free(o);
    size_t n = (size_t)ftell(f);
    char *text = g_malloc(n + 1);
    rewind(f);
    cr_assert_eq(fread(text, 1, n, f), n);
    text[n] = '\0';
    fclose(f);
    return text;
}

Test(output, json_held_records_as_written_one_by_one)
{
    char *held = held_records(true), *one = held_records(false);
    cr_assert_str_eq(held, one);
    cr_assert(strstr(one, "{\"file\":\"x\",\"frame\":4,\"time\":0.000000000,\"src\":\"a\",\"dst\":\"b\","
                          "\"proto\":\"dnp\",\"summary\":\"Sum\",\"fields\":{\"dnp.command\":[5,6],"
                          "\"dnp.seq\":[300]},\"names\":{\"dnp.command\":[\"Link state\",\"Reliable ack\"]},"
                          "\"findings\":[]}\n"),
              "%s", one);
    cr_assert(!strstr(one, "\"frame\":2,"));
    cr_assert(strstr(one, "\"frame\":5,"));
    g_free(held);
    g_free(one);
}

/* The direct writing puts a field that comes back with its first values,
   and names that start after nameless values after nulls, as the grouping
   over kept items does: both the same, and what the grouping means */
Test(output, json_direct_fields_that_come_back)
{
#define U(f, x) {.field = DNP_F_##f, .v.u = (x)}
#define L(f, x, l) {.field = DNP_F_##f, .v.u = (x), .label = (l)}
    static const uint8_t s1[] = "a\"b\\";
    const gw_item a[] = {U(SEQ, 1), L(SEQ, 2, "two"), U(COMMAND, 5), U(SEQ, 3), L(SEQ, 4, "fo\"ur"), U(SEQ, 5)};
    const gw_item b[] = {U(LINK_ID, 1), U(COMMAND, 0), U(LINK_ID, 2), L(LINK_ID, 3, "x"), U(COMMAND, 1),
                         U(LINK_ID, 4)};
    const gw_item c[] = {U(VALUE_COUNT, 3), {.field = DNP_F_VALUE}, U(VALUE_TYPE, 11), U(VALUE_LENGTH, 4),
                         {.field = DNP_F_VALUE_STRING, .v.b = {s1, 4}}, {.field = DNP_F_VALUE}, U(VALUE_TYPE, 2),
                         {.field = DNP_F_VALUE_SINT, .v.i = -5}, U(FLAG_READ_ONLY, 1), U(VALUE_TYPE, 300),
                         L(VALUE_TYPE, 7, "own"), {.field = DNP_F_VALUE_FLOAT, .v.d = 0.5}, U(VALUE_LENGTH, 0),
                         {.field = DNP_F_ACK_TIME, .v.i = -1500000001}, {.field = DNP_F_ACK_TIME, .v.i = 250},
                         U(FLAG_READ_ONLY, 2)};
    const gw_item d[] = {{.field = DNP_F_VALUE}, {.field = DNP_F_LINK}};
    const gw_item e[] = {U(SEQ, 1), U(LINK_ID, 2), U(SEQ, 3), U(LINK_ID, 4), U(SEQ, 5), L(COMMAND, 6, "six"),
                         U(COMMAND, 2)};
    const struct {
        const gw_item *items;
        size_t n;
        const char *fields;
    } cases[] = {
        {a, 6, "\"fields\":{\"dnp.seq\":[1,2,3,4,5],\"dnp.command\":[5]},"
               "\"names\":{\"dnp.seq\":[null,\"two\",null,\"fo\\\"ur\",null],\"dnp.command\":[\"Link state\"]}"},
        {b, 6, "\"fields\":{\"dnp.link_id\":[1,2,3,4],\"dnp.command\":[0,1]},"
               "\"names\":{\"dnp.link_id\":[null,null,\"x\",null],"
               "\"dnp.command\":[\"Connection request\",\"Connection ack\"]}"},
        {c, 16, "\"fields\":{\"dnp.value_count\":[3],\"dnp.value.type\":[11,2,300,7],\"dnp.value.length\":[4,0],"
                "\"dnp.value.string\":[\"a\\\"b\\\\\"],\"dnp.value.sint\":[-5],\"dnp.flags.read_only\":[true,false],"
                "\"dnp.value.float\":[0.5],\"dnp.ack.time\":[-1.500000001,0.000000250]},"
                "\"names\":{\"dnp.value.type\":[\"String\",\"SInt16\",null,\"own\"]}"},
        {d, 2, "\"fields\":{},\"findings\""},
        {NULL, 0, "\"fields\":{},\"findings\""},
        {e, 7, "\"fields\":{\"dnp.seq\":[1,3,5],\"dnp.link_id\":[2,4],\"dnp.command\":[6,2]},"
               "\"names\":{\"dnp.command\":[\"six\",\"Connection close\"]}"},
    };
#undef U
#undef L
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *direct = json_record(cases[k].items, cases[k].n, true);
        char *grouped = json_record(cases[k].items, cases[k].n, false);
        cr_assert_str_eq(direct, grouped, "case %zu", k);
        cr_assert(strstr(direct, cases[k].fields), "case %zu: %s", k, direct);
        free(direct);
        free(grouped);
    }
}

Test(output, json_strings_escape_and_replace_invalid_utf8)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    out_json_string(f, (const uint8_t *)"a\"b\\\n\x01\xc3\xa9\xff\xfe", 10);
    fclose(f);
    cr_assert_str_eq(buf, "\"a\\\"b\\\\\\n\\u0001\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\"");
    free(buf);
}

/* every conversation's end is announced once before its state goes: when
   the table is freed, and when a new connection restarts it */
static int ended_count;
static uint16_t ended_ports[8];
static void count_end(flow *f, void *ctx)
{
    (void)ctx;
    if (ended_count < 8)
        ended_ports[ended_count] = f->init_port;
    ended_count++;
}

/* the flow table's keyed hash: SipHash with c and d rounds, checked as
   SipHash-2-4 against the reference vectors of Aumasson and Bernstein
   (key 00 01 .. 0f, message 00 01 .. n-1; the lengths that are whole
   words), then the table's SipHash-1-3: the key changes every value */
Test(flows, siphash_reference_vectors_and_key)
{
    const uint64_t key[2] = {0x0706050403020100u, 0x0f0e0d0c0b0a0908u};
    const uint64_t expect[6] = {0x726fdb47dd0e0e31u, 0x93f5f5799a932462u, 0x3f2acc7f57c29bdbu,
                                0xb8ad50c6f649af94u, 0x7127512f72f27cceu, 0x0e3ea96b5304a7d0u};
    uint64_t m[5];
    for (int w = 0; w < 5; w++) {
        m[w] = 0;
        for (int b = 7; b >= 0; b--)
            m[w] = m[w] << 8 | (uint64_t)(8 * w + b);
    }
    for (size_t words = 0; words <= 5; words++)
        cr_assert_eq(flows_siphash(key, m, words, 2, 4), expect[words], "%zu bytes", words * 8);
    const uint64_t other[2] = {key[0] ^ 1, key[1]};
    cr_assert_neq(flows_siphash(key, m, 5, 1, 3), flows_siphash(other, m, 5, 1, 3));
    cr_assert_neq(flows_siphash(key, m, 5, 1, 3), flows_siphash(key, m, 5, 2, 4));
}

/* the fast hash under a key that makes every IPv4 key of zero addresses
   collide (a key no run draws, standing for an attacker who found one):
   the addition whose probe run passes FLOWS_RUN_MAX switches the table to
   SipHash at the next key, and every conversation is still found */
Test(flows, collisions_switch_to_siphash)
{
    flow_table *t = flows_new(count_end, NULL);
    const uint64_t zero[4] = {0};
    flows_set_fast_key(t, zero);
    unsigned evicted;
    flow *f[200];
    for (unsigned i = 0; i < 200; i++) {
        net_packet p = {.ip_version = 4, .l4 = NET_UDP, .sport = (uint16_t)(1024 + i), .dport = 8082};
        f[i] = flows_add(t, &p, &gw_eoudp_protocol, opts_of(&gw_eoudp_protocol), NULL, i, false, &evicted);
        cr_assert_eq(flows_hash_is_strong(t), i > FLOWS_RUN_MAX + 1, "conversation %u", i);
    }
    for (unsigned i = 0; i < 200; i++) {
        net_packet p = {.ip_version = 4, .l4 = NET_UDP, .sport = (uint16_t)(1024 + i), .dport = 8082};
        cr_assert_eq(flows_find(t, &p), f[i], "conversation %u", i);
    }
    cr_assert_eq(flows_count(t), 200);
    flows_free(t);
}

Test(flows, end_announced_once_per_conversation)
{
    ended_count = 0;
    flow_table *t = flows_new(count_end, NULL);
    net_packet a = {.ip_version = 4, .l4 = NET_UDP, .sport = 8083, .dport = 8082};
    a.src[15] = 1;
    a.dst[15] = 2;
    net_packet b = a;
    b.sport = 9000;
    unsigned evicted;
    flow *fa = flows_add(t, &a, &gw_eoudp_protocol, opts_of(&gw_eoudp_protocol), NULL, 0, false, &evicted);
    flows_add(t, &b, &gw_eoudp_protocol, opts_of(&gw_eoudp_protocol), NULL, 0, false, &evicted);
    cr_assert_eq(flows_find(t, &a), fa);
    flow_restart(t, fa, &a);
    cr_assert_eq(ended_count, 1);
    flows_free(t);
    cr_assert_eq(ended_count, 3);
    /* at the end of a capture, in the order the conversations began */
    cr_assert_eq(ended_ports[1], 8083);
    cr_assert_eq(ended_ports[2], 9000);
}

/* a UDP conversation 10.(i >> 16).0.1:(1024 + i) -> 10.0.0.2:8082 */
static net_packet conv_packet(unsigned i)
{
    net_packet p = {.ip_version = 4, .l4 = NET_UDP, .sport = (uint16_t)(1024 + i), .dport = 8082};
    p.src[0] = 10;
    p.src[1] = (uint8_t)(i >> 16); /* more conversations than ports */
    p.src[3] = 1;
    p.dst[0] = 10;
    p.dst[3] = 2;
    return p;
}

/* full by count: the least recently used FLOWS_EVICT_BATCH go, each ended
   once; a conversation just seen stays */
Test(flows, full_table_evicts_least_recently_used)
{
    ended_count = 0;
    flow_table *t = flows_new(count_end, NULL);
    unsigned evicted = 0, total = 0;
    for (unsigned i = 0; i < FLOWS_MAX; i++) {
        net_packet p = conv_packet(i);
        flows_add(t, &p, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), NULL, i, false, &evicted);
        total += evicted;
    }
    cr_assert_eq(total, 0, "65536 conversations fit");
    net_packet first = conv_packet(0), second = conv_packet(1), more = conv_packet(FLOWS_MAX);
    cr_assert_not_null(flows_find(t, &first)); /* now the most recently used */
    flows_add(t, &more, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), NULL, FLOWS_MAX, false, &evicted);
    cr_assert_eq(evicted, FLOWS_EVICT_BATCH);
    cr_assert_eq(ended_count, FLOWS_EVICT_BATCH);
    cr_assert_not_null(flows_find(t, &first), "just seen: kept");
    cr_assert_null(flows_find(t, &second), "the least recently used: gone");
    /* every other conversation is found exactly when it was not evicted
       (1 .. FLOWS_EVICT_BATCH went): the removals kept every probe run whole */
    for (unsigned i = 1; i < FLOWS_MAX; i++) {
        net_packet p = conv_packet(i);
        flow *f = flows_find(t, &p);
        if (i <= FLOWS_EVICT_BATCH)
            cr_assert_null(f, "conversation %u evicted", i);
        else
            cr_assert(f && f->init_port == p.sport, "conversation %u kept", i);
    }
    flows_free(t);
    cr_assert_eq(ended_count, FLOWS_MAX + 1);
}

/* full by state: EOUDP keeps ~16 KiB per conversation, so the state limit
   comes before the count limit: the flows are counted with their states,
   besides a little for the entry (never more than 1 KiB a flow here), and
   the room made is a sixteenth of the bound */
Test(flows, state_limit_evicts_before_count_limit)
{
    flow_table *t = flows_new(count_end, NULL);
    size_t conv = gw_eoudp_protocol.conv_size;
    unsigned evicted = 0, i;
    for (i = 0; i < FLOWS_MAX; i++) {
        net_packet p = conv_packet(i);
        flows_add(t, &p, &gw_eoudp_protocol, opts_of(&gw_eoudp_protocol), NULL, i, false, &evicted);
        if (evicted)
            break;
    }
    cr_assert(evicted, "no eviction before %u conversations", i);
    cr_assert_geq(i, FLOWS_STATE_MAX / (conv + 1024), "evicted after %u conversations", i);
    cr_assert_leq(i, FLOWS_STATE_MAX / conv, "evicted after %u conversations", i);
    cr_assert_leq(flows_state_bytes(t), FLOWS_STATE_MAX - FLOWS_STATE_MAX / 16);
    cr_assert_geq(flows_state_bytes(t), FLOWS_STATE_MAX - FLOWS_STATE_MAX / 16 - 2 * (conv + 1024));
    flows_free(t);
}

/* what a decoder state holds besides counts (DNP's link states): one
   conversation that grows makes the least recently used others go, never
   itself, and the table stays within its bound after every count. Link
   states of 60000 SInt8 values (as in test_dnp.c) keep 60000 type bytes
   each; the bound is lowered to 1.25 MiB so that one conversation's 1 MiB
   of links and a hundred small conversations pass it. */
Test(flows, held_state_counts_and_never_evicts_its_own_flow)
{
    flow_table *t = flows_new(count_end, NULL);
    size_t limit = (5u << 20) / 4;
    flows_set_state_limit(t, limit);
    ended_count = 0;
    unsigned evicted = 0, total = 0;
    net_packet first = conv_packet(0);
    flow *big = flows_add(t, &first, &gw_dnp_protocol, opts_of(&gw_dnp_protocol), NULL, 0, false, &evicted);
    for (unsigned i = 1; i <= 100; i++) {
        net_packet p = conv_packet(i);
        flows_add(t, &p, &gw_dnp_protocol, opts_of(&gw_dnp_protocol), NULL, i, false, &evicted);
        cr_assert_eq(evicted, 0);
    }
    static uint8_t ls[10 + 2 * 60000];
    for (unsigned i = 0; i < 17; i++) {
        dnp_test_link_state(ls, i, 60000);
        gw_pdu_info pi = {i + 1, 0, 0, GW_TRANSPORT_UDP};
        collect c;
        collect_init(&c);
        gw_dnp_protocol.decode(big->state, &pi, ls, sizeof ls, &c.sink);
        total += flows_account(t, big);
        cr_assert_leq(flows_state_bytes(t), limit, "after link state %u", i);
        cr_assert(flows_find(t, &first) == big, "the growing conversation stays");
    }
    cr_assert_geq(gw_dnp_protocol.conv_held(big->state), 17 * 60000);
    cr_assert_gt(total, 0);
    cr_assert_eq((unsigned)ended_count, total);
    /* the first of the small ones went first */
    net_packet oldest = conv_packet(1), newest = conv_packet(100);
    cr_assert_null(flows_find(t, &oldest));
    cr_assert_not_null(flows_find(t, &newest));
    flows_free(t);
}

static unsigned tcp_events[TCP_N_EVENTS];
static uint64_t tcp_event_bytes;
static unsigned tcp_pdus;
static uint32_t tcp_pdu_frame, tcp_event_frame; /* the last PDU's and event's */
static void count_pdu(void *ctx, const uint8_t *d, size_t n, const tcp_stamp *at)
{
    (void)ctx; (void)d; (void)n;
    tcp_pdus++;
    tcp_pdu_frame = at->frame;
}
static void count_event(void *ctx, tcp_event ev, uint64_t bytes, const tcp_stamp *at)
{
    (void)ctx;
    tcp_event_frame = at->frame;
    tcp_events[ev]++;
    tcp_event_bytes = bytes;
}

/* no events or PDUs counted yet, a budget of `limit` bytes, h empty on it */
static tcp_half *fresh_half(tcp_half *h, tcp_budget *b, size_t limit)
{
    memset(tcp_events, 0, sizeof tcp_events);
    tcp_pdus = 0;
    *b = (tcp_budget){.limit = limit};
    tcp_half_init(h, b);
    return h;
}

/* Two OpenTTD streams share a budget of 799 bytes, counted as allocated:
   a PDU buffer of 256 bytes and 16 of allocator overhead. Each starts a PDU
   that says it is 1000 bytes long (size 0x03e8, little-endian, then the
   type) and holds 250 bytes of it (272 each, 544). A's next 10 bytes need
   its buffer doubled (256 more: 800): A's 250 are given up
   (tcp.memory_limit) and the 10 bytes start afresh in the buffer it has. */
Test(tcpstream, shared_budget_gives_up_a_pdu)
{
    tcp_budget b;
    tcp_half a, c;
    fresh_half(&a, &b, 799);
    tcp_half_init(&c, &b);
    tcp_sink out = {count_pdu, count_event, NULL};
    uint8_t seg[250] = {0xe8, 0x03, 0x06};
    tcp_half_segment(&a, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1000, TCP_ACK, seg, 250, NULL, &out);
    tcp_half_segment(&c, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 5000, TCP_ACK, seg, 250, NULL, &out);
    cr_assert_eq(b.used, 544);
    cr_assert_eq(tcp_events[TCP_EV_MEMORY_LIMIT], 0);
    tcp_half_segment(&a, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1250, TCP_ACK, seg, 10, NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_MEMORY_LIMIT], 1);
    cr_assert_eq(tcp_event_bytes, 250);
    cr_assert_eq(b.used, 544, "B's buffer and A's, holding its new 10 bytes");
    cr_assert_eq(tcp_pdus, 0);
    tcp_half_release(&a);
    tcp_half_release(&c);
    cr_assert_eq(b.used, 0);
}

/* a segment that starts a PDU it does not finish is kept only when the
   budget has room for it: 65536 conversations each holding a PDU's first
   segment used to pass the budget by that much. Here the budget (100)
   cannot hold a 256-byte buffer: the 60 bytes are given up, nothing is
   held, and the next segment starts afresh (a whole 6-byte packet). */
Test(tcpstream, a_first_segment_over_budget_is_not_kept)
{
    tcp_budget b;
    tcp_half a;
    fresh_half(&a, &b, 100);
    tcp_sink out = {count_pdu, count_event, NULL};
    uint8_t seg[60] = {0xe8, 0x03, 0x06};
    tcp_half_segment(&a, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1000, TCP_ACK, seg, 60, NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_MEMORY_LIMIT], 1);
    cr_assert_eq(tcp_event_bytes, 60);
    cr_assert_eq(b.used, 0);
    static const uint8_t whole[6] = {0x06, 0x00, 0x03, 'a', 'b', 'c'};
    tcp_half_segment(&a, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1060, TCP_ACK, whole, 6, NULL, &out);
    cr_assert_eq(tcp_pdus, 1);
    tcp_half_release(&a);
}

/* an early (out-of-order) segment that would pass the budget is not kept:
   the PDU waiting for the missing bytes is given up and the stream resumes
   at that segment. The budget (300) holds the PDU buffer (272) but not a
   ring for early bytes (256 + a 32-byte map + overhead). */
Test(tcpstream, early_segment_over_budget_resumes_there)
{
    tcp_budget b;
    tcp_half a;
    fresh_half(&a, &b, 300);
    tcp_sink out = {count_pdu, count_event, NULL};
    uint8_t seg[60] = {0xe8, 0x03, 0x06};
    tcp_half_segment(&a, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1000, TCP_ACK, seg, 60, NULL, &out);
    cr_assert_eq(b.used, 272);
    /* bytes 1060..1079 missing; 50 bytes from 1080 */
    tcp_half_segment(&a, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1080, TCP_ACK, seg, 50, NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_MEMORY_LIMIT], 1);
    cr_assert_eq(tcp_event_bytes, 20, "the 20 missing bytes");
    cr_assert_eq(b.used, 272, "the new segment, as the start of a PDU, in the same buffer");
    tcp_half_release(&a);
    cr_assert_eq(b.used, 0);
}

/* Out-of-order segments are kept until the bytes before them come (issue
   20: a legal reordering lost a PDU). OpenTTD framing (the packet's size,
   u16 little-endian, counts its 3-byte header): P1 = 6 bytes at 1000, P2 =
   4 bytes at 1006. */
static const uint8_t p1p2[10] = {0x06, 0x00, 0x03, 'a', 'b', 'c', 0x04, 0x00, 0x03, 'd'};

Test(tcpstream, early_segment_at_a_pdu_boundary_waits_for_the_late_one)
{
    tcp_budget b;
    tcp_half h;
    tcp_sink out = {count_pdu, count_event, NULL};
    fresh_half(&h, &b, 1 << 20);
    const gw_protocol *p = &gw_openttd_protocol;
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 6, NULL, &out);      /* P1: the stream at a boundary */
    cr_assert_eq(tcp_pdus, 1);
    tcp_half_segment(&h, p, opts_of(p), 1007, TCP_ACK, p1p2 + 7, 3, NULL, &out);  /* P2's tail, early */
    cr_assert_eq(tcp_pdus, 1);
    cr_assert_eq(tcp_events[TCP_EV_GAP], 0, "an early segment is no gap yet");
    tcp_half_segment(&h, p, opts_of(p), 1006, TCP_ACK, p1p2 + 6, 1, NULL, &out);  /* P2's first byte, late */
    cr_assert_eq(tcp_pdus, 2, "P2 whole once its first byte came");
    tcp_half_finish(&h, p, opts_of(p), NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_GAP] + tcp_events[TCP_EV_END_IN_PDU], 0);
    tcp_half_release(&h);
    cr_assert_eq(b.used, 0);
}

Test(tcpstream, early_segment_past_the_pending_pdu_waits_too)
{
    tcp_budget b;
    tcp_half h;
    tcp_sink out = {count_pdu, count_event, NULL};
    fresh_half(&h, &b, 1 << 20);
    const gw_protocol *p = &gw_openttd_protocol;
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 3, NULL, &out);      /* P1's head: 6 bytes pending */
    tcp_half_segment(&h, p, opts_of(p), 1006, TCP_ACK, p1p2 + 6, 4, NULL, &out);  /* P2, past P1's end */
    cr_assert_eq(tcp_events[TCP_EV_GAP], 0);
    tcp_half_segment(&h, p, opts_of(p), 1003, TCP_ACK, p1p2 + 3, 3, NULL, &out);  /* P1's tail */
    cr_assert_eq(tcp_pdus, 2);
    tcp_half_finish(&h, p, opts_of(p), NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_GAP] + tcp_events[TCP_EV_END_IN_PDU], 0);
    tcp_half_release(&h);
}

Test(tcpstream, bytes_that_never_come_are_a_gap_when_the_stream_ends)
{
    tcp_budget b;
    tcp_half h;
    tcp_sink out = {count_pdu, count_event, NULL};
    fresh_half(&h, &b, 1 << 20);
    const gw_protocol *p = &gw_openttd_protocol;
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 3, NULL, &out);
    tcp_half_segment(&h, p, opts_of(p), 1006, TCP_ACK, p1p2 + 6, 4, NULL, &out);
    cr_assert_eq(tcp_pdus, 0);
    tcp_half_finish(&h, p, opts_of(p), NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_GAP], 1);
    cr_assert_eq(tcp_event_bytes, 3, "P1's 3 missing bytes");
    cr_assert_eq(tcp_pdus, 1, "P2, which starts where P1 would have ended");
    cr_assert_eq(tcp_events[TCP_EV_END_IN_PDU], 0);
    tcp_half_release(&h);
    cr_assert_eq(b.used, 0);
}

/* Where PDUs and events belong (frames 1..9 as stamps): a PDU in order on
   the segment holding its last byte; one from early bytes on the early
   segment once the missing bytes are given up, the gap on the first
   segment after them; one completed by a late segment on the late one; a
   stream ending inside a PDU on the stamp it ends at. */
Test(tcpstream, pdus_and_events_on_the_segment_that_completed_them)
{
    tcp_budget b;
    tcp_half h;
    tcp_sink out = {count_pdu, count_event, NULL};
    const gw_protocol *p = &gw_openttd_protocol;
    tcp_stamp at[10];
    for (uint32_t i = 0; i < 10; i++)
        at[i] = (tcp_stamp){i, (int64_t)i * 1000, (int64_t)i * 1000 - 1000};
    fresh_half(&h, &b, 1 << 20);
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 3, &at[1], &out);     /* P1's head */
    tcp_half_segment(&h, p, opts_of(p), 1003, TCP_ACK, p1p2 + 3, 3, &at[2], &out); /* P1's tail */
    cr_assert_eq(tcp_pdus, 1);
    cr_assert_eq(tcp_pdu_frame, 2, "P1 on the segment holding its last byte");
    tcp_half_finish(&h, p, opts_of(p), &at[9], &out);
    tcp_half_release(&h);

    fresh_half(&h, &b, 1 << 20);
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 3, &at[1], &out);     /* P1's head */
    tcp_half_segment(&h, p, opts_of(p), 1006, TCP_ACK, p1p2 + 6, 4, &at[3], &out); /* P2, early */
    uint32_t first;
    cr_assert(tcp_budget_earliest(&b, &first));
    cr_assert_eq(first, 3, "the half holds early bytes of frame 3");
    tcp_half_finish(&h, p, opts_of(p), &at[9], &out);                            /* P1's tail never came */
    cr_assert_eq(tcp_events[TCP_EV_GAP], 1);
    cr_assert_eq(tcp_event_frame, 3, "the gap on the segment after the missing bytes");
    cr_assert_eq(tcp_pdus, 1);
    cr_assert_eq(tcp_pdu_frame, 3, "P2 on its own segment, not on the stream's end");
    cr_assert_not(tcp_budget_earliest(&b, &first));
    tcp_half_release(&h);

    fresh_half(&h, &b, 1 << 20);
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 3, &at[1], &out);     /* P1's head */
    tcp_half_segment(&h, p, opts_of(p), 1006, TCP_ACK, p1p2 + 6, 4, &at[2], &out); /* P2, early */
    tcp_half_segment(&h, p, opts_of(p), 1003, TCP_ACK, p1p2 + 3, 3, &at[4], &out); /* P1's tail, late */
    cr_assert_eq(tcp_pdus, 2);
    cr_assert_eq(tcp_pdu_frame, 4, "P2 on the late segment that completed the stream before it");
    cr_assert_not(tcp_budget_earliest(&b, &first));
    tcp_half_segment(&h, p, opts_of(p), 1010, TCP_ACK, p1p2, 3, &at[5], &out);     /* a PDU's head */
    tcp_half_finish(&h, p, opts_of(p), &at[7], &out);
    cr_assert_eq(tcp_events[TCP_EV_END_IN_PDU], 1);
    cr_assert_eq(tcp_event_frame, 7, "the end inside a PDU where the stream ended");
    tcp_half_release(&h);
    cr_assert_eq(b.used, 0);
}

Test(tcpstream, a_fin_that_overtakes_the_data_before_it_ends_nothing_early)
{
    tcp_budget b;
    tcp_half h;
    tcp_sink out = {count_pdu, count_event, NULL};
    fresh_half(&h, &b, 1 << 20);
    const gw_protocol *p = &gw_openttd_protocol;
    tcp_half_segment(&h, p, opts_of(p), 1000, TCP_ACK, p1p2, 6, NULL, &out);
    tcp_half_segment(&h, p, opts_of(p), 1010, TCP_ACK | TCP_FIN, NULL, 0, NULL, &out); /* FIN, before P2 */
    tcp_half_segment(&h, p, opts_of(p), 1006, TCP_ACK, p1p2 + 6, 4, NULL, &out);
    cr_assert_eq(tcp_pdus, 2, "P2 still decoded");
    tcp_half_segment(&h, p, opts_of(p), 1010, TCP_ACK, p1p2, 6, NULL, &out);           /* past the FIN: ignored */
    cr_assert_eq(tcp_pdus, 2);
    tcp_half_finish(&h, p, opts_of(p), NULL, &out);
    cr_assert_eq(tcp_events[TCP_EV_GAP] + tcp_events[TCP_EV_END_IN_PDU], 0);
    tcp_half_release(&h);
}

/* Any order, any cut: a stream of 300 OpenTTD packets (3 to 200 bytes,
   the size field counting the 3-byte header) cut into 1-97-byte segments,
   sent in a shuffled order with duplicates, overlapping resends and one
   block in reverse, gives back exactly the packets, in order, and no gap;
   every byte it held is given back. Deterministic (fixed seed). */
static uint8_t shuffled_stream[40000];
static size_t shuffled_at, shuffled_pdus;
static void check_pdu(void *ctx, const uint8_t *d, size_t n, const tcp_stamp *at)
{
    (void)ctx; (void)at;
    cr_assert_leq(shuffled_at + n, sizeof shuffled_stream);
    cr_assert(memcmp(d, shuffled_stream + shuffled_at, n) == 0, "PDU %zu differs", shuffled_pdus);
    shuffled_at += n;
    shuffled_pdus++;
}

Test(tcpstream, any_order_and_cut_gives_the_same_pdus)
{
    GRand *r = g_rand_new_with_seed(2026);
    size_t len = 0;
    for (int i = 0; i < 300; i++) {
        unsigned n = (unsigned)g_rand_int_range(r, 3, 201);
        shuffled_stream[len] = (uint8_t)n;
        shuffled_stream[len + 1] = 0;
        shuffled_stream[len + 2] = 0x06; /* any type */
        for (unsigned k = 3; k < n; k++)
            shuffled_stream[len + k] = (uint8_t)g_rand_int(r);
        len += n;
    }
    /* segments: (offset, length), possibly overlapping the next */
    enum { MAXSEG = 4000 };
    static size_t off[MAXSEG], n[MAXSEG];
    int segs = 0;
    for (size_t at = 0; at < len; segs++) {
        off[segs] = at;
        n[segs] = (size_t)g_rand_int_range(r, 1, 98);
        if (at + n[segs] > len)
            n[segs] = len - at;
        at += n[segs];
        if (g_rand_int_range(r, 0, 8) == 0 && n[segs] > 2) /* the next one overlaps this */
            at -= n[segs] / 2;
    }
    cr_assert_lt(segs, MAXSEG - 200);
    /* order: local swaps, a reversed block of 60, then 100 duplicates */
    int order[MAXSEG + 200];
    for (int i = 0; i < segs; i++)
        order[i] = i;
    for (int i = 1; i < segs; i++)
        if (g_rand_int_range(r, 0, 3) == 0) {
            int j = i - g_rand_int_range(r, 1, 4 < i ? 4 : i + 1);
            int t = order[i]; order[i] = order[j]; order[j] = t;
        }
    for (int a = 100, b = 159; a < b; a++, b--) {
        int t = order[a]; order[a] = order[b]; order[b] = t;
    }
    int total = segs;
    for (int i = 0; i < 100; i++) {
        int at = g_rand_int_range(r, 1, total);
        memmove(order + at + 1, order + at, (size_t)(total - at) * sizeof order[0]);
        order[at] = order[g_rand_int_range(r, 0, at)];
        total++;
    }
    tcp_budget b;
    tcp_half h;
    fresh_half(&h, &b, 1 << 20);
    tcp_sink out = {check_pdu, count_event, NULL};
    shuffled_at = shuffled_pdus = 0;
    tcp_half_segment(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 999, TCP_SYN, NULL, 0, NULL, &out);
    for (int i = 0; i < total; i++)
        tcp_half_segment(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1000 + (uint32_t)off[order[i]], TCP_ACK,
                         shuffled_stream + off[order[i]], n[order[i]], NULL, &out);
    tcp_half_finish(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), NULL, &out);
    cr_assert_eq(shuffled_pdus, 300);
    cr_assert_eq(shuffled_at, len);
    for (int e = 0; e < TCP_N_EVENTS; e++)
        cr_assert_eq(tcp_events[e], 0, "event %d", e);
    tcp_half_release(&h);
    cr_assert_eq(b.used, 0);
    g_rand_free(r);
}

/* 1-byte early segments in reverse order (each arriving before the one
   before it) cost one ring for all of them: the budget sees the ring, not
   a record per byte, and the stream completes when the first byte comes */
Test(tcpstream, reverse_order_bytes_share_one_ring)
{
    tcp_budget b;
    tcp_half h;
    fresh_half(&h, &b, 1 << 20);
    tcp_sink out = {count_pdu, count_event, NULL};
    static uint8_t stream[3000 * 3];
    for (int i = 0; i < 3000; i++) {
        stream[3 * i] = 3; /* 3000 empty packets: size 3, type 6 */
        stream[3 * i + 2] = 6;
    }
    tcp_half_segment(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 999, TCP_SYN, NULL, 0, NULL, &out);
    for (uint32_t i = sizeof stream - 1; i >= 1; i--)
        tcp_half_segment(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1000 + i, TCP_ACK, stream + i, 1, NULL, &out);
    cr_assert_eq(tcp_pdus, 0);
    cr_assert_leq(b.used, 16384 + 2048 + 64 + TCP_MARKS_MAX * sizeof(tcp_mark) + 16,
                  "one ring of 16 KiB, its map and the most marks: %zu", b.used);
    tcp_half_segment(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), 1000, TCP_ACK, stream, 1, NULL, &out);
    cr_assert_eq(tcp_pdus, 3000);
    tcp_half_finish(&h, &gw_openttd_protocol, opts_of(&gw_openttd_protocol), NULL, &out);
    for (int e = 0; e < TCP_N_EVENTS; e++)
        cr_assert_eq(tcp_events[e], 0, "event %d", e);
    tcp_half_release(&h);
    cr_assert_eq(b.used, 0);
}

/* capture times stay within 0..2^62 ns, so that any two subtract safely */
/* reorder: a consumer writing each record (decode's text, -V or JSON) to
   a memory file */
typedef struct {
    out_pdu *out;
    FILE *f;
    out_format fmt;
    int verbose;
} writer;
static gw_sink *w_begin(void *ctx, const gw_protocol *p)
{
    return out_pdu_begin(((writer *)ctx)->out, p);
}
static unsigned w_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    writer *w = ctx;
    (void)p;
    out_pdu_write(w->out, w->f, w->fmt, w->verbose, m);
    return out_pdu_max_severity(w->out);
}
static void w_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m, const out_finding *fd)
{
    (void)p; (void)index;
    out_finding_write(((writer *)ctx)->f, ((writer *)ctx)->fmt, m, fd);
}

/* OpenTTD PDUs on frames frames[0..n): CLIENT_JOIN (texts), type 99 (a
   warning), CLIENT_GAME_INFO; straight to the writer, or recorded (each
   on a buffer used again for the next) and released up to frame `upto`,
   then to the end. Returns what was written (g_free it). */
static char *write_pdus(bool recorded, out_format fmt, int verbose, const uint32_t *frames, int n, uint32_t upto,
                        unsigned *max_sev)
{
    static const char *const hex[] = {"1800 02 31332e3000 646d081d 436170436c69656e7400 fe 00", "0400 63 00",
                                      "0300 07"};
    char *text = NULL;
    size_t size = 0;
    writer w = {out_pdu_new(), open_memstream(&text, &size), fmt, verbose};
    run_consumer c = {&w, w_begin, w_end, w_finding, NULL, NULL};
    reorder *q = reorder_new(&c, max_sev);
    const gw_protocol *p = &gw_openttd_protocol;
    void *conv = g_malloc(p->conv_size);
    p->conv_init(conv, opts_of(p));
    for (int i = 0; i < n; i++) {
        uint8_t b[64];
        size_t len = unhex(hex[i], b);
        out_meta m = {.frame = frames[i], .time_ns = (int64_t)frames[i] * 1000, .src = "10.0.0.1:40000",
                      .dst = "10.0.0.2:3979", .len = len, .data = b, .transport = GW_TRANSPORT_TCP};
        gw_pdu_info pi = {frames[i], m.time_ns, 0, GW_TRANSPORT_TCP};
        const gw_sink *s = c.pdu_begin(c.ctx, p);
        if (recorded)
            s = reorder_pdu_begin(q, p, s, &m);
        p->decode(conv, &pi, b, len, s);
        if (recorded)
            reorder_pdu_end(q);
        else if (c.pdu_end(c.ctx, p, &m) > *max_sev)
            *max_sev = out_pdu_max_severity(w.out);
        memset(b, 0xee, sizeof b);
    }
    reorder_release(q, upto);
    fputs("--\n", w.f);
    reorder_release(q, UINT32_MAX);
    cr_assert(reorder_empty(q));
    reorder_free(q);
    p->conv_free(conv);
    g_free(conv);
    out_pdu_free(w.out);
    fclose(w.f);
    return text;
}

Test(reorder, a_recorded_pdu_writes_as_a_decoded_one)
{
    static const uint32_t frames[] = {5, 6, 7};
    for (int verbose = 0; verbose <= 1; verbose++)
        for (int fmt = OUT_TEXT; fmt <= OUT_JSON; fmt++) {
            if (verbose && fmt == OUT_JSON)
                continue;
            unsigned sev_direct = 0, sev_recorded = 0;
            char *direct = write_pdus(false, fmt, verbose, frames, 3, 0, &sev_direct);
            char *recorded = write_pdus(true, fmt, verbose, frames, 3, UINT32_MAX, &sev_recorded);
            cr_assert(strstr(direct, "CapClient") && strstr(direct, "openttd.type.unknown"), "%s", direct);
            /* released up to the last frame: all before the "--" */
            cr_assert(g_str_has_suffix(direct, "--\n") && g_str_has_suffix(recorded, "--\n"));
            cr_assert_str_eq(recorded, direct);
            cr_assert_eq(sev_recorded, sev_direct);
            cr_assert_eq(sev_recorded, GW_SEV_WARNING + 1);
            g_free(direct);
            g_free(recorded);
        }
}

Test(reorder, records_come_out_by_frame_up_to_the_one_asked)
{
    static const uint32_t frames[] = {9, 4, 6};
    unsigned sev = 0;
    char *text = write_pdus(true, OUT_TEXT, 0, frames, 3, 6, &sev);
    unsigned got[4], n = 0;
    bool cut = false;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, "--") == 0) {
            cut = true;
            cr_assert_eq(n, 2, "frames 4 and 6 released up to 6");
        } else if (line[0] != ' ') {
            cr_assert_lt(n, 4);
            got[n++] = (unsigned)strtoul(line, NULL, 10);
        }
    }
    cr_assert(cut);
    cr_assert_eq(n, 3);
    cr_assert_eq(got[0], 4);
    cr_assert_eq(got[1], 6);
    cr_assert_eq(got[2], 9);
    g_free(text);
}

/* reorder: findings as they are handed on (frame, and the number each
   message carries: the order they were recorded in) */
typedef struct {
    uint32_t frame[6000];
    unsigned seq[6000];
    unsigned n;
} finding_log;
static void log_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m, const out_finding *fd)
{
    finding_log *l = ctx;
    (void)p; (void)index;
    cr_assert_lt(l->n, 6000);
    l->frame[l->n] = m->frame;
    l->seq[l->n++] = (unsigned)strtoul(fd->message, NULL, 10);
}

Test(reorder, many_records_at_the_end_come_out_by_frame_then_in_order)
{
    /* more than the few a release at the end hands on one by one: the
       whole lot sorted at once, frames far apart (several passes of its
       radix sort), many on the same frame (in the order recorded) */
    finding_log *l = g_new0(finding_log, 1);
    unsigned max_sev = 0;
    run_consumer c = {l, NULL, NULL, log_finding, NULL, NULL};
    reorder *q = reorder_new(&c, &max_sev);
    uint32_t frame_of[5100];
    uint64_t x = 88172645463325252u;
    for (unsigned i = 0; i < 5100; i++) {
        if (i == 100) /* the first few handed on before the rest come: orders start past 0 */
            reorder_release(q, 1u << 30);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        frame_of[i] = i % 3 ? (uint32_t)(x % 4000000000u) + 1 : 777 + (uint32_t)(x % 4);
        char msg[16];
        snprintf(msg, sizeof msg, "%u", i);
        out_meta m = {.frame = frame_of[i], .src = "10.0.0.1:1", .dst = "10.0.0.2:2"};
        out_finding fd = {.proto = "tcp", .short_name = "TCP", .summary = msg, .code = "tcp.gap",
                          .severity = GW_SEV_NOTE, .message = msg};
        reorder_finding(q, NULL, 0, &m, &fd);
    }
    reorder_release(q, UINT32_MAX);
    cr_assert(reorder_empty(q));
    reorder_free(q);
    cr_assert_eq(l->n, 5100);
    unsigned early = 0;
    for (unsigned i = 0; i < 100; i++)
        early += frame_of[i] <= (1u << 30);
    for (unsigned k = 0; k < l->n; k++) {
        cr_assert_eq(l->frame[k], frame_of[l->seq[k]], "record %u", k);
        if (k == early || k == 0)
            continue; /* the first of each release */
        bool in_order = l->frame[k - 1] < l->frame[k] ||
                        (l->frame[k - 1] == l->frame[k] && l->seq[k - 1] < l->seq[k]);
        cr_assert(in_order, "record %u: frame %u (#%u) after frame %u (#%u)", k, l->frame[k], l->seq[k],
                  l->frame[k - 1], l->seq[k - 1]);
    }
    g_free(l);
}

Test(run, capture_time_is_clamped)
{
    cr_assert_eq(gw_time_ns(5, 7), 5000000007);
    cr_assert_eq(gw_time_ns(-1, 5), 0);
    cr_assert_eq(gw_time_ns(4611686018, 0), INT64_C(1) << 62, "2^62 / 10^9 s and beyond");
    cr_assert_eq(gw_time_ns(4611686017, 0), INT64_C(4611686017000000000));
    cr_assert_eq(gw_time_ns(1, 2000000000), 1999999999, "nanoseconds past a second");
    cr_assert_eq(gw_time_ns(1, -3), 1000000000);
}

/* the library's number reader and writer, every width in both byte
   orders: bytes 01 02 03 04 05 06 07 08 read as written (big-endian) and
   reversed */
static const uint8_t uint_bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static const uint64_t uint_big[9] = {0, 0x01, 0x0102, 0x010203, 0x01020304, 0x0102030405,
                                     0x010203040506, 0x01020304050607, 0x0102030405060708};
static const uint64_t uint_little[9] = {0, 0x01, 0x0201, 0x030201, 0x04030201, 0x0504030201,
                                        0x060504030201, 0x07060504030201, 0x0807060504030201};

Test(core, get_uint_widths_and_byte_orders)
{
    for (unsigned n = 1; n <= 8; n++) {
        cr_assert_eq(gw_get_uint(uint_bytes, n, true), uint_big[n], "%u bytes big-endian", n);
        cr_assert_eq(gw_get_uint(uint_bytes, n, false), uint_little[n], "%u bytes little-endian", n);
    }
}

/* its writer puts the same bytes back, and nothing past n */
Test(core, put_uint_widths_and_byte_orders)
{
    for (unsigned n = 1; n <= 8; n++) {
        uint8_t out[9];
        memset(out, 0xee, sizeof out);
        gw_put_uint(out, n, uint_big[n], true);
        cr_assert_arr_eq(out, uint_bytes, n, "%u bytes big-endian", n);
        cr_assert_eq(out[n], 0xee);
        memset(out, 0xee, sizeof out);
        gw_put_uint(out, n, uint_little[n], false);
        cr_assert_arr_eq(out, uint_bytes, n, "%u bytes little-endian", n);
        cr_assert_eq(out[n], 0xee);
    }
}

/* a summary's hand-made conversions print what snprintf prints: %s with
   a precision (%.4s, %.*s) among them, others left to vsnprintf */
Test(core, summary_format_as_snprintf)
{
    static const char abc[] = "abcdef";
    struct {
        gw_summary s;
        char want[256];
    } t[6];
    memset(t, 0, sizeof t);
    gw_summary_format(&t[0].s, " %.4s v%u", abc, 7u);
    snprintf(t[0].want, sizeof t[0].want, " %.4s v%u", abc, 7u);
    gw_summary_format(&t[1].s, "[%.*s] %s", 2, abc, abc);
    snprintf(t[1].want, sizeof t[1].want, "[%.*s] %s", 2, abc, abc);
    gw_summary_format(&t[2].s, "%.10s|%.0s|%.*s", abc, abc, -1, abc);
    snprintf(t[2].want, sizeof t[2].want, "%.10s|%.0s|%.*s", abc, abc, -1, abc);
    gw_summary_format(&t[3].s, "%.3s %.2f %u%%", abc, 1.5, 12345678u);
    snprintf(t[3].want, sizeof t[3].want, "%.3s %.2f %u%%", abc, 1.5, 12345678u);
    gw_summary_format(&t[4].s, "%zu %lld %x %c %d", (size_t)99, -5ll, 255u, 'q', -2147483647 - 1);
    snprintf(t[4].want, sizeof t[4].want, "%zu %lld %x %c %d", (size_t)99, -5ll, 255u, 'q', -2147483647 - 1);
    gw_summary_format(&t[5].s, "%.2s%5u", abc, 3u);
    snprintf(t[5].want, sizeof t[5].want, "%.2s%5u", abc, 3u);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cr_assert_str_eq(t[i].s.text, t[i].want, "format %zu", i);
        cr_assert_eq(t[i].s.len, strlen(t[i].want), "format %zu", i);
    }
}

/* a summary of a text alone ("%s", made without the formatter) cut where
   the summary is full, as snprintf cuts it; NULL as "(null)" */
Test(summary, a_text_alone_is_cut_as_snprintf_cuts_it)
{
    char long_text[301];
    memset(long_text, 'x', 300);
    long_text[300] = '\0';
    long_text[0] = 'a';
    gw_summary s = {0};
    gw_summary_format(&s, "Head %u", 12u);
    gw_summary_format(&s, "%s", long_text);
    char want[256];
    snprintf(want, sizeof want, "Head 12%s", long_text);
    cr_assert_str_eq(s.text, want);
    cr_assert_eq(s.len, 255);
    gw_summary_format(&s, "%s", "more"); /* full: nothing more */
    cr_assert_eq(s.len, 255);
    gw_summary t = {0};
    const char *volatile none = NULL; /* (not known when compiled) */
    gw_summary_format(&t, "%s", none);
    gw_summary_format(&t, "%s", "|");
    cr_assert_str_eq(t.text, "(null)|");
    cr_assert_eq(t.len, 7);
}

/* packet text for a summary: printable ASCII as it is, control bytes and
   invalid UTF-8 as '?', "..." where it is cut (by characters, or by room:
   four bytes kept for it; none when the last character read was the
   text's last) */
Test(summary, clean_text_cuts_and_replaces)
{
    char out[64];
    gw_clean_text(out, 10, (const uint8_t *)"abcdefghij", 10, 64);
    cr_assert_str_eq(out, "abcde...");
    gw_clean_text(out, 10, (const uint8_t *)"abcdef", 6, 64);
    cr_assert_str_eq(out, "abcde");
    gw_clean_text(out, sizeof out, (const uint8_t *)"abcdef", 6, 3);
    cr_assert_str_eq(out, "abc...");
    gw_clean_text(out, sizeof out, (const uint8_t *)"a\x01" "b\xff\xc3\xa9", 6, 64);
    cr_assert_str_eq(out, "a?b?\xc3\xa9");
    gw_clean_text(out, 10, (const uint8_t *)"abcd\xc3\xa9", 6, 64); /* no room for the last */
    cr_assert_str_eq(out, "abcd");
}

/* options belong to a run: -o and --profile set that run's, nothing else's */
Test(options, each_run_has_its_own_and_the_defaults_are_choices)
{
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        cr_assert_leq(p->n_options, GW_MAX_OPTIONS, "%s", p->name);
        for (int k = 0; k < p->n_options; k++) {
            const gw_choice *c = p->options[k].choices;
            while (c->token && c->value != p->options[k].default_value)
                c++;
            cr_assert(c->token, "%s.%s: default not among the choices", p->name, p->options[k].name);
        }
    }
    int dnp = run_proto_index("dnp", 3);
    run_options a, b;
    run_options_init(&a);
    run_options_init(&b);
    cr_assert(run_parse_option(&a, "dnp.update_layout=spec"));
    cr_assert_eq(a.opts[dnp][DNP_OPT_UPDATE_LAYOUT], DNP_LAYOUT_SPEC);
    cr_assert_eq(b.opts[dnp][DNP_OPT_UPDATE_LAYOUT], DNP_LAYOUT_AUTO);
    run_set_profile(&b, GW_PROFILE_SPEC);
    cr_assert_eq(b.opts[dnp][DNP_OPT_PROFILE], GW_PROFILE_SPEC);
    cr_assert_eq(a.opts[dnp][DNP_OPT_PROFILE], GW_PROFILE_EITHER);
    cr_assert_eq(run_opts(&b, &gw_dnp_protocol), b.opts[dnp]);
    cr_assert_not(run_parse_option(&a, "dnp.update_layout=sideways"));
    cr_assert_not(run_parse_option(&a, "dnp.no_such_option=auto"));
    cr_assert_not(run_parse_option(&a, "nosuch.profile=spec"));
    cr_assert_eq(a.opts[dnp][DNP_OPT_UPDATE_LAYOUT], DNP_LAYOUT_SPEC, "a refused option changes nothing");
}
