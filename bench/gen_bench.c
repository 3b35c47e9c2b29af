/* gen_bench.c - large captures for the benchmark and the memory checks.
 *
 *   gen_bench mixed OUT.pcap PACKETS CONCURRENT TEMPLATE...
 *       Real conversations replayed many times over: CONCURRENT clients
 *       (10.x.y.z), each replaying the conversations of one TEMPLATE
 *       capture again and again with its template's packet timing (the
 *       same players reconnecting), until PACKETS packets. The server
 *       endpoints (the destinations of each conversation's first packet)
 *       stay as captured, so GNE's UDP link still matches its handshake.
 *   gen_bench endless-tcp OUT.pcap CONVERSATIONS
 *       OpenTTD connections (port 3979) that each start a 32767-byte packet
 *       (the largest) and send 30000 bytes of it in 20 segments, never
 *       finishing it.
 *   gen_bench many-conversations OUT.pcap CONVERSATIONS
 *       DNP conversations of two packets each (connection request and
 *       accepting ack), each from its own address and port.
 *   gen_bench dnp-long OUT.pcap CONVERSATIONS
 *       DNP conversations that each send 17 parts of 60000 bytes of a long
 *       message and never its last part.
 *   gen_bench dnp-links OUT.pcap CONVERSATIONS
 *       DNP conversations that each set up 32 links of 16000 values (a
 *       link state of 16000 SInt8 values each): 0.5 MB of link types kept
 *       per conversation.
 *   gen_bench dnp-empty-parts OUT.pcap CONVERSATIONS
 *       DNP conversations that each send 30000 empty parts of a long
 *       message, never the last one.
 *   gen_bench tcp-reverse OUT.pcap BYTES
 *       32 OpenTTD connections whose server sends BYTES / 32 bytes of
 *       3-byte packets as 1-byte segments in reverse order (each arriving
 *       before the one before it), the first byte last.
 *   gen_bench tiny-frames OUT.pcap FRAMES
 *       One OpenTTD connection whose server sends FRAMES segments of one
 *       3-byte packet each (SERVER_NEWGAME, the smallest packet).
 *   gen_bench hash-flood OUT.pcap CONVERSATIONS
 *   gen_bench hash-random OUT.pcap CONVERSATIONS
 *       DNP conversations over IPv6 (connection request and accepting
 *       ack), the clients' addresses chosen so that every key had the same
 *       value under the flow table's old unkeyed hash (a linear mix of the
 *       key's 64-bit words: the second word cancels the first), or random.
 *
 * Output: classic pcap, Ethernet, IPv4. Written for the benchmark only
 * (bench/bench.sh, bench/memory.sh); nothing here is a test. */
#include <glib.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netparse.h"

static FILE *out;
static uint64_t n_written;

static void w32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void be16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void be32(uint8_t *p, uint32_t v) { be16(p, v >> 16); be16(p + 2, v & 0xffff); }

static void open_out(const char *path)
{
    out = fopen(path, "wb");
    if (!out) {
        perror(path);
        exit(1);
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    uint8_t h[24] = {0};
    w32(h, 0xa1b2c3d4);
    h[4] = 2; h[6] = 4;           /* version 2.4 */
    w32(h + 16, 262144);          /* snaplen */
    w32(h + 20, 1);               /* Ethernet */
    fwrite(h, 1, 24, out);
}

static void write_record(uint64_t t_us, const uint8_t *f, size_t n)
{
    uint8_t rec[16];
    w32(rec, (uint32_t)(t_us / 1000000)); w32(rec + 4, (uint32_t)(t_us % 1000000));
    w32(rec + 8, (uint32_t)n); w32(rec + 12, (uint32_t)n);
    fwrite(rec, 1, 16, out);
    fwrite(f, 1, n, out);
    n_written++;
}

/* one packet: IPv4 addresses in host order; TCP when tcp is set */
static void put(uint64_t t_us, uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, int tcp,
                uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *data, size_t len)
{
    static uint8_t f[14 + 20 + 20 + 65536];
    size_t l4 = tcp ? 20 : 8;
    if (len > 65535 - 20 - l4)
        len = 65535 - 20 - l4;
    memset(f, 0, 14 + 20 + l4);
    f[12] = 0x08;                                 /* IPv4 */
    uint8_t *ip = f + 14;
    ip[0] = 0x45; be16(ip + 2, (unsigned)(20 + l4 + len)); ip[8] = 64; ip[9] = tcp ? 6 : 17;
    be32(ip + 12, src); be32(ip + 16, dst);
    uint8_t *t = ip + 20;
    be16(t, sport); be16(t + 2, dport);
    if (tcp) {
        be32(t + 4, seq); be32(t + 8, ack); t[12] = 5 << 4; t[13] = flags; be16(t + 14, 65535);
    } else {
        be16(t + 4, (unsigned)(8 + len));
    }
    memcpy(t + l4, data, len);
    size_t n = 14 + 20 + l4 + len;
    write_record(t_us, f, n);
}

/* one UDP datagram over IPv6 */
static void put6(uint64_t t_us, const uint8_t src[16], uint16_t sport, const uint8_t dst[16], uint16_t dport,
                 const uint8_t *data, size_t len)
{
    static uint8_t f[14 + 40 + 8 + 1500];
    memset(f, 0, 14 + 40 + 8);
    f[12] = 0x86; f[13] = 0xdd;
    uint8_t *ip = f + 14;
    ip[0] = 0x60; be16(ip + 4, (unsigned)(8 + len)); ip[6] = 17; ip[7] = 64;
    memcpy(ip + 8, src, 16); memcpy(ip + 24, dst, 16);
    uint8_t *u = ip + 40;
    be16(u, sport); be16(u + 2, dport); be16(u + 4, (unsigned)(8 + len));
    memcpy(u + 8, data, len);
    size_t n = 14 + 40 + 8 + len;
    write_record(t_us, f, n);
}

/* ---- mixed: real conversations replayed ---------------------------------- */

typedef struct {
    uint64_t t_us;        /* since the template's first packet */
    int tcp;
    int src_client, dst_client; /* the endpoint is a client's: gets the copy's address */
    uint32_t src, dst;    /* the captured addresses (IPv4), for server endpoints */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint8_t *data;
    size_t len;
} tpl_packet;

typedef struct {
    GArray *packets;      /* tpl_packet, in capture order */
} template;

typedef struct {
    int tpl;
    guint next;           /* next packet */
    uint64_t start_us;
    uint32_t client;      /* this copy's client address */
} copy;

static uint32_t ip4(const uint8_t *a) { return (uint32_t)a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]; }

static void load_template(template *t, const char *path)
{
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_open_offline(path, err);
    if (!pc) {
        fprintf(stderr, "gen_bench: %s: %s\n", path, err);
        exit(1);
    }
    int lt = pcap_datalink(pc);
    t->packets = g_array_new(FALSE, TRUE, sizeof(tpl_packet));
    GHashTable *servers = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTable *convs = g_hash_table_new(g_int64_hash, g_int64_equal);
    static gint64 keys[1 << 16];
    int n_keys = 0;
    struct pcap_pkthdr *h;
    const u_char *d;
    uint64_t first = 0;
    while (pcap_next_ex(pc, &h, &d) == 1) {
        net_packet pk;
        if (net_parse(lt, d, h->caplen, &pk) != NET_OK || pk.ip_version != 4)
            continue;
        uint64_t now = (uint64_t)h->ts.tv_sec * 1000000 + (uint64_t)h->ts.tv_usec;
        if (!first)
            first = now;
        uint32_t s = ip4(pk.src), ds = ip4(pk.dst);
        gint64 se = (gint64)s << 16 | pk.sport, de = (gint64)ds << 16 | pk.dport;
        /* a conversation's key: its two endpoints, unordered */
        gint64 ck = se < de ? se * 31 + de : de * 31 + se;
        if (!g_hash_table_contains(convs, &ck) && n_keys + 2 < (int)G_N_ELEMENTS(keys)) {
            keys[n_keys] = ck;
            g_hash_table_add(convs, &keys[n_keys++]);
            keys[n_keys] = de; /* its first packet's destination serves */
            g_hash_table_add(servers, &keys[n_keys++]);
        }
        tpl_packet p = {.t_us = now - first, .tcp = pk.l4 == NET_TCP, .src = s, .dst = ds,
                        .sport = pk.sport, .dport = pk.dport, .seq = pk.tcp_seq,
                        .flags = pk.tcp_flags, .len = pk.payload_len};
        p.src_client = !g_hash_table_contains(servers, &se);
        p.dst_client = !g_hash_table_contains(servers, &de);
        p.data = g_memdup2(pk.payload, pk.payload_len ? pk.payload_len : 1);
        g_array_append_val(t->packets, p);
    }
    pcap_close(pc);
    g_hash_table_destroy(servers);
    g_hash_table_destroy(convs);
}

/* copies ordered by the time of their next packet (a binary heap) */
static copy *heap;
static int heap_n;
static template *tpls;

static uint64_t due(const copy *c)
{
    return c->start_us + g_array_index(tpls[c->tpl].packets, tpl_packet, c->next).t_us;
}

static void heap_down(int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap_n && due(&heap[l]) < due(&heap[m]))
            m = l;
        if (r < heap_n && due(&heap[r]) < due(&heap[m]))
            m = r;
        if (m == i)
            return;
        copy tmp = heap[i]; heap[i] = heap[m]; heap[m] = tmp;
        i = m;
    }
}

static void mixed(const char *path, uint64_t packets, int concurrent, int n_tpl, char **files)
{
    tpls = g_new0(template, n_tpl);
    for (int i = 0; i < n_tpl; i++)
        load_template(&tpls[i], files[i]);
    open_out(path);
    heap = g_new0(copy, concurrent);
    uint32_t next_client = 0x0a000001; /* 10.0.0.1 */
    uint64_t base = 1800000000ull * 1000000, now = base;
    int next_tpl = 0;
    unsigned long long replays = 0;
    for (heap_n = 0; heap_n < concurrent; heap_n++) {
        /* starts spread over the first second */
        heap[heap_n] = (copy){next_tpl, 0, base + (uint64_t)heap_n * 1000000 / (uint64_t)concurrent, next_client++};
        next_tpl = (next_tpl + 1) % n_tpl;
    }
    for (int i = heap_n / 2; i >= 0; i--)
        heap_down(i);
    while (n_written < packets) {
        copy *c = &heap[0];
        const tpl_packet *p = &g_array_index(tpls[c->tpl].packets, tpl_packet, c->next);
        now = due(c);
        put(now, p->src_client ? c->client : p->src, p->sport, p->dst_client ? c->client : p->dst,
            p->dport, p->tcp, p->seq, p->ack, p->flags, p->data, p->len);
        if (++c->next == tpls[c->tpl].packets->len) { /* again, a second later */
            c->next = 0;
            c->start_us = now + 1000000;
            replays++;
        }
        heap_down(0);
    }
    fprintf(stderr, "gen_bench: %llu packets, %d clients, %llu replays\n",
            (unsigned long long)n_written, concurrent, (unsigned long long)replays);
}

/* ---- adversaries --------------------------------------------------------- */

static void endless_tcp(uint64_t conversations)
{
    static uint8_t seg[1500];
    uint64_t t = 1800000000ull * 1000000;
    for (uint64_t i = 0; i < conversations; i++) {
        uint32_t client = 0x0a000000 + (uint32_t)i + 1;
        uint16_t port = (uint16_t)(40000 + i % 20000);
        put(t++, client, port, 0x0a640001, 3979, 1, 1000, 0, 0x02, NULL, 0);
        uint32_t seq = 1001;
        for (int k = 0; k < 20; k++) {
            memset(seg, 0x41, sizeof seg);
            if (k == 0) { /* an OpenTTD packet of 32767 bytes: size, then type 0x10 */
                seg[0] = 0xff; seg[1] = 0x7f; seg[2] = 0x10;
            }
            put(t++, client, port, 0x0a640001, 3979, 1, seq, 1, 0x18, seg, sizeof seg);
            seq += sizeof seg;
        }
    }
}

static void many_conversations(uint64_t conversations)
{
    /* DNP: connection request offering protocol 1; the accepting ack */
    static const uint8_t req[] = {0x00, 0x01, 0x00, 0x01, 0x00};
    static const uint8_t ack[] = {0x01, 0x00, 0x01, 0x00};
    uint64_t t = 1800000000ull * 1000000;
    for (uint64_t i = 0; i < conversations; i++) {
        uint32_t client = 0x0a000000 + (uint32_t)(i / 50000) + 1;
        uint16_t port = (uint16_t)(10000 + i % 50000);
        put(t++, client, port, 0x0a640001, 3413, 0, 0, 0, 0, req, sizeof req);
        put(t++, 0x0a640001, 3413, client, port, 0, 0, 0, 0, ack, sizeof ack);
    }
}

static void dnp_long(uint64_t conversations)
{
    static uint8_t part[4 + 60000];
    uint64_t t = 1800000000ull * 1000000;
    for (uint64_t i = 0; i < conversations; i++) {
        uint32_t client = 0x0a000000 + (uint32_t)i + 1;
        for (unsigned k = 0; k < 17; k++) {
            part[0] = 10;               /* reliable long message */
            part[1] = (uint8_t)k; part[2] = 0;
            part[3] = k == 0 ? 1 : 0;   /* first, never last */
            put(t++, client, 50000, 0x0a640001, 3413, 0, 0, 0, 0, part, sizeof part);
        }
    }
}

static void dnp_links(uint64_t conversations)
{
    static uint8_t ls[10 + 2 * 16000];
    uint64_t t = 1800000000ull * 1000000;
    for (uint64_t i = 0; i < conversations; i++) {
        uint32_t client = 0x0a000000 + (uint32_t)i + 1;
        for (unsigned k = 0; k < 32; k++) {
            /* link state: reliable number k, link id k, flags 0, 16000 values */
            uint8_t head[10] = {5, (uint8_t)k, 0, (uint8_t)k, 0, 0, 0, 0, 0x80, 0x3e};
            memcpy(ls, head, sizeof head);
            for (unsigned v = 0; v < 16000; v++) {
                ls[10 + 2 * v] = 0; /* SInt8 */
                ls[11 + 2 * v] = 1;
            }
            put(t++, client, 50000, 0x0a640001, 3413, 0, 0, 0, 0, ls, sizeof ls);
        }
    }
}

static void dnp_empty_parts(uint64_t conversations)
{
    uint64_t t = 1800000000ull * 1000000;
    for (uint64_t i = 0; i < conversations; i++) {
        uint32_t client = 0x0a000000 + (uint32_t)i + 1;
        for (unsigned k = 0; k < 30000; k++) {
            uint8_t part[4] = {10, (uint8_t)k, (uint8_t)(k >> 8), k == 0 ? 1 : 0};
            put(t++, client, 50000, 0x0a640001, 3413, 0, 0, 0, 0, part, sizeof part);
        }
    }
}

/* a TCP connection to OpenTTD's port from client:port (SYN, SYN+ACK) */
static void tcp_open(uint64_t *t, uint32_t client, uint16_t port)
{
    put((*t)++, client, port, 0x0a640001, 3979, 1, 999, 0, 0x02, NULL, 0);
    put((*t)++, 0x0a640001, 3979, client, port, 1, 4999, 1000, 0x12, NULL, 0);
}

static void tcp_reverse(uint64_t bytes)
{
    uint64_t per = bytes / 32 / 3 * 3, t = 1800000000ull * 1000000;
    for (uint32_t c = 0; c < 32; c++) {
        uint32_t client = 0x0a000001 + c;
        tcp_open(&t, client, 40000);
        for (uint64_t k = per; k-- > 0;) {
            /* 3-byte packets: size 3, 0, type 40 (13.x SERVER_NEWGAME, no payload) */
            uint8_t b = k % 3 == 0 ? 3 : k % 3 == 1 ? 0 : 0x28;
            put(t++, 0x0a640001, 3979, client, 40000, 1, 5000 + (uint32_t)k, 1000, 0x18, &b, 1);
        }
    }
}

static void tiny_frames(uint64_t frames)
{
    uint64_t t = 1800000000ull * 1000000;
    tcp_open(&t, 0x0a000001, 40000);
    static const uint8_t pkt[3] = {3, 0, 0x28}; /* 13.x SERVER_NEWGAME, no payload */
    for (uint64_t k = 0; k < frames; k++)
        put(t++, 0x0a640001, 3979, 0x0a000001, 40000, 1, 5000 + 3 * (uint32_t)k, 1000, 0x18, pkt, 3);
}

/* the inverse of an odd number modulo 2^64 (Newton's iteration) */
static uint64_t inverse(uint64_t a)
{
    uint64_t x = a;
    for (int i = 0; i < 6; i++)
        x *= 2 - a * x;
    return x;
}

static void hash_flood(uint64_t conversations, bool crafted)
{
    static const uint8_t req[] = {0x00, 0x01, 0x00, 0x01, 0x00};
    static const uint8_t ack[] = {0x01, 0x00, 0x01, 0x00};
    /* the old hash: w0 * C0 + w1 * C1 + ... (then a bijective finaliser);
       w0, w1 the lower address's two halves as host-order words */
    const uint64_t C0 = 0x9e3779b97f4a7c15u, C1 = 0xc2b2ae3d27d4eb4fu, C1_INV = inverse(C1);
    uint8_t server[16];
    memset(server, 0xfd, 16);   /* its first word above every client's: the clients' words come first */
    GRand *r = g_rand_new_with_seed(7);
    uint64_t t = 1800000000ull * 1000000;
    for (uint64_t i = 0; i < conversations; i++) {
        uint64_t w[2];
        if (crafted) {
            w[0] = 0x20010db800000000u + i;   /* 2001:db8::-ish in the words, as memcpy sees them */
            w[1] = (0 - w[0] * C0) * C1_INV;  /* w0*C0 + w1*C1 == 0 */
        } else {
            w[0] = 0x20010db800000000u + i;
            w[1] = (uint64_t)g_rand_int(r) << 32 | g_rand_int(r);
        }
        uint8_t client[16];
        memcpy(client, w, 16);
        put6(t++, client, 40000, server, 3413, req, sizeof req);
        put6(t++, server, 3413, client, 40000, ack, sizeof ack);
    }
    g_rand_free(r);
}

int main(int argc, char **argv)
{
    if (argc >= 6 && !strcmp(argv[1], "mixed")) {
        mixed(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]), argc - 5, argv + 5);
    } else if (argc == 4) {
        uint64_t n = strtoull(argv[3], NULL, 10);
        open_out(argv[2]);
        if (!strcmp(argv[1], "endless-tcp"))
            endless_tcp(n);
        else if (!strcmp(argv[1], "many-conversations"))
            many_conversations(n);
        else if (!strcmp(argv[1], "dnp-long"))
            dnp_long(n);
        else if (!strcmp(argv[1], "dnp-links"))
            dnp_links(n);
        else if (!strcmp(argv[1], "dnp-empty-parts"))
            dnp_empty_parts(n);
        else if (!strcmp(argv[1], "tcp-reverse"))
            tcp_reverse(n);
        else if (!strcmp(argv[1], "tiny-frames"))
            tiny_frames(n);
        else if (!strcmp(argv[1], "hash-flood") || !strcmp(argv[1], "hash-random"))
            hash_flood(n, !strcmp(argv[1], "hash-flood"));
        else
            goto usage;
    } else {
    usage:
        fprintf(stderr, "usage: gen_bench mixed OUT PACKETS CONCURRENT TEMPLATE...\n"
                        "       gen_bench endless-tcp|many-conversations|dnp-long|dnp-links|dnp-empty-parts|\n"
                        "                 hash-flood|hash-random OUT CONVERSATIONS\n"
                        "       gen_bench tcp-reverse OUT BYTES\n"
                        "       gen_bench tiny-frames OUT FRAMES\n");
        return 2;
    }
    if (fclose(out) != 0) {
        perror("gen_bench");
        return 1;
    }
    return 0;
}
