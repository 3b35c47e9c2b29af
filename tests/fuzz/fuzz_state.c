/* fuzz_state.c - libFuzzer harness for what a capture makes pcaptool hold:
 * the conversation table, the decoders' state (DNP's links and long
 * messages) and the TCP reassembler, under lowered bounds (1 MiB of
 * conversation state, 256 KiB of TCP data) so that they are reached. The
 * input is a small program that expands into a capture (classic pcap,
 * Ethernet, IPv4), so that a few hundred bytes describe thousands of
 * conversations and packets:
 *
 *   op:u8       bits 0-1: 0 UDP datagram, 1 TCP segment, 2 TCP SYN
 *               bit 2: from the server (else from the client)
 *               bit 3: UDP: each copy's number added to the payload's
 *                      bytes 1-2 (little-endian: DNP's reliable numbers);
 *                      TCP: the copies go backwards in the stream
 *               bit 4: each copy to the next conversation (else all to one)
 *               bit 5: UDP: the copy's number added to bytes 3-4 too (link ids)
 *   proto:u8    the server's port: a protocol's default port (index mod
 *               the protocols that have one), or from 0x80 on port
 *               40000 + (proto & 0x7f) (the heuristics decide)
 *   conv:u16le  the conversation: client 10.0.x.y, port 20000 + conv % 40000
 *   copies:u8   the packet is sent copies + 1 times
 *   delta:i16le TCP: the first copy's sequence number relative to the
 *               furthest byte sent so far in that direction (the first one
 *               before any, as the op starts); each further copy to the
 *               same conversation follows (or precedes) the one before
 *   len:u16le, then len bytes (fewer if the input ends)
 *
 * The capture stops growing at 200,000 packets or 16 MB. Checked, besides
 * not crashing: after every packet, the conversation state is within its
 * bound unless the conversation being read is the only one left, and the
 * TCP data within its budget plus one PDU buffer's growth when early bytes
 * join it (run_bounds). */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "run.h"

#define STATE_LIMIT (1u << 20)
#define TCP_LIMIT (256u << 10)
#define TCP_SLACK ((1u << 20) + (64u << 10)) /* a PDU buffer growing as early bytes join it */
#define MAX_PACKETS 200000
#define MAX_BYTES (16u << 20)

static GByteArray *cap;
static unsigned n_packets;
static uint32_t next_seq[65536][2]; /* per conversation and direction */

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static void be16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
    be16(p, v >> 16);
    be16(p + 2, v & 0xffff);
}

/* one Ethernet/IPv4 packet between the client of conversation `conv` and
   the server port */
static void packet(unsigned conv, uint16_t port, bool from_server, bool tcp, uint8_t flags,
                   uint32_t seq, const uint8_t *data, size_t len)
{
    static uint8_t f[14 + 20 + 20 + 65536];
    size_t l4 = tcp ? 20 : 8;
    if (len > 65535 - 20 - l4)
        len = 65535 - 20 - l4;
    if (n_packets >= MAX_PACKETS || cap->len + 16 + 14 + 20 + l4 + len > MAX_BYTES)
        return;
    memset(f, 0, 14 + 20 + l4);
    f[12] = 0x08;
    uint8_t *ip = f + 14;
    ip[0] = 0x45;
    be16(ip + 2, (unsigned)(20 + l4 + len));
    ip[8] = 64;
    ip[9] = tcp ? 6 : 17;
    uint32_t client = 0x0a000000u | (conv & 0xffff), server = 0x0a640001;
    uint16_t cport = (uint16_t)(20000 + conv % 40000);
    be32(ip + 12, from_server ? server : client);
    be32(ip + 16, from_server ? client : server);
    uint8_t *l = ip + 20;
    be16(l, from_server ? port : cport);
    be16(l + 2, from_server ? cport : port);
    if (tcp) {
        be32(l + 4, seq);
        l[12] = 0x50;
        l[13] = flags;
    } else {
        be16(l + 4, (unsigned)(8 + len));
    }
    if (len)
        memcpy(l + l4, data, len);
    uint8_t rec[16];
    le32(rec, 1800000000u + n_packets / 1000);
    le32(rec + 4, n_packets % 1000 * 1000);
    le32(rec + 8, (uint32_t)(14 + 20 + l4 + len));
    le32(rec + 12, (uint32_t)(14 + 20 + l4 + len));
    g_byte_array_append(cap, rec, 16);
    g_byte_array_append(cap, f, (guint)(14 + 20 + l4 + len));
    n_packets++;
}

static uint16_t port_of(uint8_t proto)
{
    if (proto >= 0x80)
        return (uint16_t)(40000 + (proto & 0x7f));
    uint16_t ports[GW_MAX_PROTOCOLS];
    int n = 0;
    for (int i = 0; gw_protocols[i]; i++)
        if (gw_protocols[i]->default_port)
            ports[n++] = gw_protocols[i]->default_port;
    return n ? ports[proto % n] : 40000;
}

/* out = the little-endian u16 at base, plus i */
static void add16(uint8_t *out, const uint8_t *base, unsigned i)
{
    unsigned v = (base[0] | (unsigned)base[1] << 8) + i;
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
}

static void expand(const uint8_t *data, size_t size)
{
    static uint8_t payload[65536];
    size_t at = 0;
    while (size - at >= 9) {
        uint8_t op = data[at], proto = data[at + 1];
        unsigned conv = data[at + 2] | (unsigned)data[at + 3] << 8;
        unsigned copies = data[at + 4] + 1u;
        int16_t delta = (int16_t)(data[at + 5] | data[at + 6] << 8);
        size_t len = data[at + 7] | (size_t)data[at + 8] << 8;
        at += 9;
        if (len > size - at)
            len = size - at;
        memcpy(payload, data + at, len);
        at += len;
        int kind = op & 3;
        bool from_server = op & 4, numbered = op & 8, spread = op & 16, ids = op & 32;
        uint16_t port = port_of(proto);
        uint32_t base = next_seq[conv][from_server]; /* the furthest byte as the op starts */
        for (unsigned i = 0; i < copies && n_packets < MAX_PACKETS; i++) {
            unsigned c = (conv + (spread ? i : 0)) & 0xffff;
            uint32_t *next = &next_seq[c][from_server];
            if (kind == 2) {
                *next = from_server ? 500000u : 1000u;
                packet(c, port, from_server, true, 0x02, *next - 1, NULL, 0);
            } else if (kind == 1) {
                /* each conversation's one copy, or copy i of one: i segments
                   after the first (or before it, backwards) */
                uint32_t seq = (spread ? *next : base) + (uint32_t)(int32_t)delta;
                if (!spread && numbered)
                    seq -= (uint32_t)(i * len);
                else if (!spread)
                    seq += (uint32_t)(i * len);
                packet(c, port, from_server, true, 0x18, seq, payload, len);
                if ((int32_t)(seq + (uint32_t)len - *next) > 0)
                    *next = seq + (uint32_t)len;
            } else {
                if (numbered && len >= 3)
                    add16(payload + 1, data + at - len + 1, i);
                if (ids && len >= 5)
                    add16(payload + 3, data + at - len + 3, i);
                packet(c, port, from_server, false, 0, 0, payload, len);
            }
        }
    }
}

static void no_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *message)
{
    (void)ctx; (void)finding; (void)src; (void)off; (void)len; (void)message;
}

/* no fields and no text, as validate asks: the decoders' state is what is
   being checked, not their output */
static gw_sink *begin(void *ctx, const gw_protocol *p)
{
    (void)ctx; (void)p;
    static gw_sink quiet = {.finding = no_finding, .source = run_ignore_source}; /* the run sets its expect */
    return &quiet;
}

static unsigned end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    (void)ctx; (void)p; (void)m;
    return 0;
}

static void finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                    const out_finding *fd)
{
    (void)ctx; (void)p; (void)index; (void)m; (void)fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cap)
        cap = g_byte_array_sized_new(1 << 20);
    g_byte_array_set_size(cap, 0);
    n_packets = 0;
    memset(next_seq, 0, sizeof next_seq);
    static const uint8_t head[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 4, 0, 1, 0, 0, 0}; /* pcap 2.4, snaplen 262144, Ethernet */
    g_byte_array_append(cap, head, sizeof head);
    expand(data, size);
    char err[320];
    cap_reader *cr = cap_open_mem(cap->data, cap->len, err, sizeof err);
    if (!cr)
        fuzz_fail("the expanded capture does not open");
    run_options o;
    run_options_init(&o);
    run_bounds b = {0};
    o.state_limit = STATE_LIMIT;
    o.tcp_limit = TCP_LIMIT;
    o.bounds = &b;
    run_consumer c = {NULL, begin, end, finding, NULL, NULL};
    unsigned max_sev = 0;
    if (run_capture(&o, cr, &c, &max_sev, err, sizeof err) < 0)
        fuzz_fail("run_capture failed on a well-formed capture");
    cap_close(cr);
    if (getenv("FUZZ_STATE_VERBOSE"))
        fprintf(stderr, "fuzz_state: %u packets, %u bytes; peak state %zu (limit %u), peak TCP %zu (limit %u)\n",
                n_packets, cap->len, b.state_peak, STATE_LIMIT, b.tcp_peak, TCP_LIMIT);
    if (b.state_over)
        fuzz_fail("conversation state over its bound while other conversations were held");
    if (b.tcp_peak > TCP_LIMIT + TCP_SLACK)
        fuzz_fail("TCP data over its budget");
    return 0;
}
