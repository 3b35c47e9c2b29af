/* make_seeds.c - seed corpora for the fuzz harnesses, from the captures.
 *
 *   make_seeds OUTDIR CAPTURE...
 *
 * The protocol of a capture is the start of its file name, up to the first
 * '-' or '.' (dnp-denetwork-example.pcap, rules/gne.exit.not_last.pcap).
 * For each capture and each of its conversations (UDP and TCP endpoint
 * pairs) it writes OUTDIR/PROTO/NAME-N in fuzz_decoder.c's format: UDP
 * datagrams as they are, TCP streams reassembled and cut into PDUs; GNE's
 * UDP datagrams go with the TCP connection of the same capture, marked for
 * the linked conversation. For TCP conversations it also writes
 * OUTDIR/tcp/NAME-N in fuzz_tcp.c's format, the segments as captured. */
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "netparse.h"
#include "tcpstream.h"

typedef struct {
    uint8_t l4;
    uint8_t a[16], b[16];
    uint16_t pa, pb;
} conv_key;

typedef struct {
    int index;
    uint8_t init[16];
    uint16_t init_port;
    GByteArray *dec, *tcp;  /* the two seeds */
    tcp_half half[2];
    int64_t last_ns;
    int dir;                /* of the segment being reassembled */
} conv;

static const gw_protocol *proto;
static int proto_opts[GW_MAX_OPTIONS]; /* its defaults: how the seeds' TCP streams are cut */
static tcp_budget budget = {.limit = TCP_BUDGET_DEFAULT};
static int64_t now_ns;

static guint key_hash(gconstpointer k)
{
    const uint8_t *p = k;
    guint h = 5381;
    for (size_t i = 0; i < sizeof(conv_key); i++)
        h = h * 33 + p[i];
    return h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b) { return !memcmp(a, b, sizeof(conv_key)); }

/* the time field of a record head: k with 2^(k-1) ms closest below the gap */
static uint8_t time_bits(conv *c)
{
    int64_t gap_ms = c->last_ns ? (now_ns - c->last_ns) / 1000000 : 0;
    c->last_ns = now_ns;
    unsigned k = 0;
    while (k < 15 && gap_ms >= (1ll << k))
        k++;
    return (uint8_t)(k << 4);
}

static void add_record(GByteArray *out, uint8_t head, const uint8_t *d, size_t n)
{
    if (n > 0xffff)
        n = 0xffff;
    uint8_t h[3] = {head, (uint8_t)n, (uint8_t)(n >> 8)};
    g_byte_array_append(out, h, 3);
    g_byte_array_append(out, d, (guint)n);
}

static void on_pdu(void *ctx, const uint8_t *d, size_t n, const tcp_stamp *at)
{
    (void)at;
    conv *c = ctx;
    add_record(c->dec, (uint8_t)(c->dir | 4 | 8 | time_bits(c)), d, n);
}

static void on_event(void *ctx, tcp_event ev, uint64_t bytes, const tcp_stamp *at)
{
    (void)ctx; (void)ev; (void)bytes; (void)at;
}

static void write_seed(const char *dir, const char *name, int index, const GByteArray *b)
{
    if (!b || b->len <= 1)
        return;
    g_mkdir_with_parents(dir, 0755);
    char *path = g_strdup_printf("%s/%s-%d", dir, name, index);
    GError *err = NULL;
    if (!g_file_set_contents(path, (const char *)b->data, b->len, &err)) {
        fprintf(stderr, "make_seeds: %s\n", err->message);
        exit(1);
    }
    g_free(path);
}

static void one_capture(const char *outdir, const char *path)
{
    char *base = g_path_get_basename(path);
    size_t plen = strcspn(base, "-.");
    char *pname = g_strndup(base, plen);
    proto = gw_protocol_by_name(pname);
    if (proto)
        gw_options_init(proto, proto_opts);
    if (!proto) {
        g_free(base);
        g_free(pname);
        return; /* other-*.pcap: no protocol to seed */
    }
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!pc) {
        fprintf(stderr, "make_seeds: %s: %s\n", path, err);
        exit(1);
    }
    int lt = pcap_datalink(pc);
    GHashTable *convs = g_hash_table_new_full(key_hash, key_equal, g_free, NULL);
    GPtrArray *order = g_ptr_array_new();
    conv *gne_tcp = NULL;
    struct pcap_pkthdr *hdr;
    const u_char *data;
    while (pcap_next_ex(pc, &hdr, &data) == 1) {
        net_packet pk;
        if (net_parse(lt, data, hdr->caplen, &pk) != NET_OK)
            continue;
        now_ns = (int64_t)hdr->ts.tv_sec * 1000000000 + hdr->ts.tv_usec;
        conv_key k = {.l4 = (uint8_t)pk.l4};
        bool swap = memcmp(pk.src, pk.dst, 16) > 0 ||
                    (!memcmp(pk.src, pk.dst, 16) && pk.sport > pk.dport);
        memcpy(k.a, swap ? pk.dst : pk.src, 16);
        memcpy(k.b, swap ? pk.src : pk.dst, 16);
        k.pa = swap ? pk.dport : pk.sport;
        k.pb = swap ? pk.sport : pk.dport;
        conv *c = g_hash_table_lookup(convs, &k);
        if (!c) {
            c = g_new0(conv, 1);
            c->index = (int)order->len;
            memcpy(c->init, pk.src, 16);
            c->init_port = pk.sport;
            c->dec = g_byte_array_new();
            g_byte_array_append(c->dec, (const uint8_t *)"", 1); /* options: 0 */
            if (pk.l4 == NET_TCP) {
                c->tcp = g_byte_array_new();
                uint8_t pi = 0;
                for (int i = 0; gw_protocols[i]; i++)
                    if ((gw_protocols[i]->transports & GW_TRANSPORT_TCP) &&
                        gw_protocols[i]->pdu_length) {
                        if (gw_protocols[i] == proto)
                            break;
                        pi++;
                    }
                g_byte_array_append(c->tcp, &pi, 1);
                tcp_half_init(&c->half[0], &budget);
                tcp_half_init(&c->half[1], &budget);
                if (!gne_tcp)
                    gne_tcp = c;
            }
            g_hash_table_insert(convs, g_memdup2(&k, sizeof k), c);
            g_ptr_array_add(order, c);
        }
        int dir = !(memcmp(pk.src, c->init, 16) == 0 && pk.sport == c->init_port);
        if (pk.l4 == NET_UDP) {
            if (pk.payload_len == 0)
                continue;
            conv *to = c;
            uint8_t linked = 0;
            if (!strcmp(proto->name, "gne") && gne_tcp) {
                to = gne_tcp; /* the UDP link rides with the connection */
                linked = 2;
            }
            add_record(to->dec, (uint8_t)(dir | linked | time_bits(to)), pk.payload, pk.payload_len);
        } else {
            /* fuzz_tcp: absolute sequence numbers, as captured */
            uint8_t head = (uint8_t)(dir | 0x20 | (pk.tcp_flags & TCP_FIN ? 2 : 0) |
                                     (pk.tcp_flags & TCP_SYN ? 4 : 0) |
                                     (pk.tcp_flags & TCP_RST ? 8 : 0) |
                                     (pk.tcp_flags & TCP_ACK ? 16 : 0));
            size_t n = pk.payload_len > 0xffff ? 0xffff : pk.payload_len;
            uint8_t h[7] = {head};
            memcpy(h + 1, &pk.tcp_seq, 4);
            h[5] = (uint8_t)n;
            h[6] = (uint8_t)(n >> 8);
            g_byte_array_append(c->tcp, h, 7);
            g_byte_array_append(c->tcp, pk.payload, (guint)n);
            c->dir = dir;
            tcp_sink ts = {on_pdu, on_event, c};
            tcp_half_segment(&c->half[dir], proto, proto_opts, pk.tcp_seq, pk.tcp_flags, pk.payload,
                             pk.payload_len, NULL, &ts);
        }
    }
    pcap_close(pc);
    char *pdir = g_build_filename(outdir, proto->name, NULL);
    char *tdir = g_build_filename(outdir, "tcp", NULL);
    for (guint i = 0; i < order->len; i++) {
        conv *c = order->pdata[i];
        write_seed(pdir, base, c->index, c->dec);
        write_seed(tdir, base, c->index, c->tcp);
        g_byte_array_free(c->dec, TRUE);
        if (c->tcp) {
            g_byte_array_free(c->tcp, TRUE);
            tcp_half_release(&c->half[0]);
            tcp_half_release(&c->half[1]);
        }
        g_free(c);
    }
    g_free(pdir);
    g_free(tdir);
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(convs);
    g_free(base);
    g_free(pname);
}

/* ---- fuzz_state.c's programs: the hostile shapes of bench/hostile.sh, small ---- */

/* fuzz_state.c's protocol byte for a protocol's default port */
static uint8_t port_index(const char *name)
{
    uint8_t n = 0;
    for (int i = 0; gw_protocols[i]; i++) {
        if (!gw_protocols[i]->default_port)
            continue;
        if (!strcmp(gw_protocols[i]->name, name))
            return n;
        n++;
    }
    return 0;
}

static void state_op(GByteArray *b, uint8_t op, const char *proto, unsigned conv, unsigned copies,
                     int delta, const uint8_t *payload, size_t len)
{
    uint8_t h[9] = {op, port_index(proto), (uint8_t)conv, (uint8_t)(conv >> 8), (uint8_t)(copies - 1),
                    (uint8_t)delta, (uint8_t)((unsigned)delta >> 8), (uint8_t)len, (uint8_t)(len >> 8)};
    g_byte_array_append(b, h, 9);
    g_byte_array_append(b, payload, (guint)len);
}

enum { UDP = 0, TCP = 1, SYN = 2, SERVER = 4, NUMBERED = 8, BACKWARDS = 8, SPREAD = 16, IDS = 32 };

static void state_seeds(const char *outdir)
{
    char *dir = g_build_filename(outdir, "state", NULL);
    GByteArray *b = g_byte_array_new();
    static const uint8_t req[] = {0x00, 0x01, 0x00, 0x01, 0x00}, ack[] = {0x01, 0x00, 0x01, 0x00};
    for (unsigned k = 0; k < 40; k++) { /* 10240 DNP conversations of two packets */
        state_op(b, UDP | SPREAD, "dnp", 256 * k, 256, 0, req, sizeof req);
        state_op(b, UDP | SERVER | SPREAD, "dnp", 256 * k, 256, 0, ack, sizeof ack);
    }
    write_seed(dir, "many-conversations", 0, b);
    g_byte_array_set_size(b, 0);
    static uint8_t ls[10 + 2 * 1000] = {5, 0, 0, 0, 0, 0, 0, 0, 0xe8, 0x03}; /* 1000 SInt8 values */
    for (unsigned v = 0; v < 1000; v++)
        ls[11 + 2 * v] = 1;
    for (unsigned k = 0; k < 8; k++) /* 8 conversations of 256 links */
        state_op(b, UDP | NUMBERED | IDS, "dnp", k, 256, 0, ls, sizeof ls);
    write_seed(dir, "dnp-links", 0, b);
    g_byte_array_set_size(b, 0);
    uint8_t part[4] = {10, 0, 0, 1};
    state_op(b, UDP, "dnp", 1, 1, 0, part, 4); /* the first part, then 30000 empty ones */
    part[3] = 0;
    for (unsigned k = 0; k < 118; k++) {
        part[1] = (uint8_t)(1 + 256 * k);
        part[2] = (uint8_t)((1 + 256 * k) >> 8);
        state_op(b, UDP | NUMBERED, "dnp", 1, 256, 0, part, 4);
    }
    write_seed(dir, "dnp-empty-parts", 0, b);
    g_byte_array_set_size(b, 0);
    static const uint8_t pkt[3] = {3, 0, 0x28}; /* an OpenTTD 13.x SERVER_NEWGAME */
    state_op(b, SYN, "openttd", 1, 1, 0, NULL, 0);
    state_op(b, SYN | SERVER, "openttd", 1, 1, 0, NULL, 0);
    /* 16384 bytes as 1-byte segments, backwards, the first byte last: op j
       starts at byte 16383 - 256 j, the furthest sent being 16384 after op 0 */
    for (int j = 0; j < 64; j++)
        state_op(b, TCP | SERVER | BACKWARDS, "openttd", 1, 256, j ? -256 * j - 1 : 16383, pkt, 1);
    write_seed(dir, "tcp-reverse", 0, b);
    g_byte_array_set_size(b, 0);
    static uint8_t seg[1400] = {0xff, 0x7f, 0x10}; /* the start of a 32767-byte packet */
    for (unsigned k = 0; k < 8; k++) { /* 2048 connections each holding 2800 bytes of it */
        state_op(b, SYN | SPREAD, "openttd", 256 * k, 256, 0, NULL, 0);
        state_op(b, TCP | SPREAD, "openttd", 256 * k, 256, 0, seg, sizeof seg);
        state_op(b, TCP | SPREAD, "openttd", 256 * k, 256, 0, seg + 3, sizeof seg - 3);
    }
    write_seed(dir, "endless-tcp", 0, b);
    g_byte_array_set_size(b, 0);
    state_op(b, SYN | SERVER, "openttd", 1, 1, 0, NULL, 0);
    for (unsigned k = 0; k < 400; k++) /* 102400 packets of 3 bytes, a segment each */
        state_op(b, TCP | SERVER, "openttd", 1, 256, 0, pkt, 3);
    write_seed(dir, "tiny-frames", 0, b);
    g_byte_array_free(b, TRUE);
    g_free(dir);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: make_seeds OUTDIR CAPTURE...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++)
        one_capture(argv[1], argv[i]);
    state_seeds(argv[1]);
    return 0;
}
