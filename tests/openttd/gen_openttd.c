/* gen_openttd.c - writes the generated OpenTTD test captures into a folder.
 *
 * Packets are built by hand from the layouts in docs/wire-facts.md
 * section 2 (13.x payloads, 14.x and 15.x numbering), the OpenTTD wiki text
 * (the 0.5-era packet set) and the 0.5 - 0.7 sources (network_client,
 * network_server, network_udp: the layouts of those releases), carried
 * over TCP connections with a full
 * handshake, or UDP. Deterministic: tests compare the output byte for byte
 * with captures/.
 *
 * Usage: gen_openttd OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapw.h"

#define SERVER 2
#define PORT 3979

static char outdir[512];
static bytes b;

/* ---- packets ---- */

static void pkt(unsigned type)
{
    b_reset(&b);
    b_u16(&b, 0); /* size, filled in by done() */
    b_u8(&b, type);
}

static void strz(const char *s) { b_raw(&b, s, strlen(s) + 1); }

static void md5(unsigned seed)
{
    for (unsigned i = 0; i < 16; i++)
        b_u8(&b, (seed + i) & 0xff);
}

/* set the size field to the packet's length */
static void done(void)
{
    b.p[0] = (uint8_t)(b.n & 0xff);
    b.p[1] = (uint8_t)(b.n >> 8);
}

/* ---- TCP connections ---- */

typedef struct {
    pcapw *w;
    int client;
    uint16_t cport, sport;
    uint32_t cseq, sseq; /* next sequence number of each side */
} conn;

#define SYN 0x02
#define ACK 0x10
#define PSH 0x08
#define FIN 0x01

static void conn_open_port(conn *k, pcapw *w, int client, uint16_t cport, uint16_t sport);

static void conn_open(conn *k, pcapw *w, int client, uint16_t cport)
{
    conn_open_port(k, w, client, cport, PORT);
}

static void conn_open_port(conn *k, pcapw *w, int client, uint16_t cport, uint16_t sport)
{
    k->w = w;
    k->client = client;
    k->cport = cport;
    k->sport = sport;
    static unsigned opened;
    k->cseq = 1000u * (unsigned)client + 7919u * opened++; /* a new ISN each time */
    k->sseq = 500000u + 7u * cport;
    pw_tcp(w, client, cport, SERVER, k->sport, k->cseq, 0, SYN, NULL, 0);
    pw_tcp(w, SERVER, k->sport, client, cport, k->sseq, k->cseq + 1, SYN | ACK, NULL, 0);
    k->cseq++;
    k->sseq++;
    pw_tcp(w, client, cport, SERVER, k->sport, k->cseq, k->sseq, ACK, NULL, 0);
}

/* one segment carrying bytes d[0..n) */
static void seg(conn *k, int from_server, const uint8_t *d, size_t n)
{
    if (from_server) {
        pw_tcp(k->w, SERVER, k->sport, k->client, k->cport, k->sseq, k->cseq, PSH | ACK, d, n);
        k->sseq += (uint32_t)n;
    } else {
        pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq, k->sseq, PSH | ACK, d, n);
        k->cseq += (uint32_t)n;
    }
}

/* the packet in b, in one segment */
static void s2c(conn *k) { done(); seg(k, 1, b.p, b.n); }
static void c2s(conn *k) { done(); seg(k, 0, b.p, b.n); }

static void conn_close(conn *k)
{
    pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq, k->sseq, FIN | ACK, NULL, 0);
    pw_tcp(k->w, SERVER, k->sport, k->client, k->cport, k->sseq, k->cseq + 1, FIN | ACK, NULL, 0);
    pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq + 1, k->sseq + 1, ACK, NULL, 0);
}

static void open_file(pcapw *w, const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", outdir, name);
    pw_open(w, p, LT_ETH, 0);
}

/* game info version 6 (13.x) or 7 (14.x: ticks playing after the version) */
static void game_info(unsigned version, const char *revision)
{
    b_u8(&b, version);
    if (version >= 7)
        b_u64(&b, 123456789012ull);
    b_u8(&b, 1);                 /* NewGRFs with names */
    b_u32(&b, 3); strz("GS");    /* game script version, name */
    b_u8(&b, 1);                 /* one NewGRF */
    b_u32(&b, 0x44442020); md5(0); strz("OpenGFX");
    b_u32(&b, 730000); b_u32(&b, 729000);
    b_u8(&b, 15); b_u8(&b, 1); b_u8(&b, 10);
    strz("Test Server"); strz(revision);
    b_u8(&b, 0); b_u8(&b, 25); b_u8(&b, 2); b_u8(&b, 0);
    b_u16(&b, 256); b_u16(&b, 128); b_u8(&b, 1); b_u8(&b, 1);
}

/* ---- 13.x: every packet ---- */

static void gen_13(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-packets-13.pcap");
    conn_open(&k, &w, 1, 40001);
    pkt(7); c2s(&k);                                             /* CLIENT_GAME_INFO */
    pkt(6); game_info(6, "13.0"); s2c(&k);                       /* SERVER_GAME_INFO */
    pkt(2); strz("13.0"); b_u32(&b, 0x1d086d64); strz("Tester"); b_u8(&b, 0xfe); b_u8(&b, 0); c2s(&k);
    pkt(8); b_u8(&b, 2); b_u32(&b, 0x44442020); md5(0); b_u32(&b, 0x01020304); md5(0xf0); s2c(&k);
    pkt(9); c2s(&k);                                             /* NEWGRFS_CHECKED */
    pkt(10); s2c(&k);                                            /* NEED_GAME_PASSWORD */
    pkt(11); strz("secret"); c2s(&k);
    pkt(12); b_u32(&b, 12345); strz("netid"); s2c(&k);           /* NEED_COMPANY_PASSWORD */
    pkt(13); strz("hash"); c2s(&k);
    pkt(14); b_u32(&b, 3); b_u32(&b, 12345); strz("netid"); s2c(&k); /* WELCOME */
    pkt(15); b_u32(&b, 3); b_u8(&b, 0); strz("Tester"); s2c(&k);  /* CLIENT_INFO */
    pkt(16); c2s(&k);                                            /* GETMAP */
    pkt(17); b_u8(&b, 1); s2c(&k);                               /* WAIT */
    pkt(18); b_u32(&b, 1000); s2c(&k);                           /* MAP_BEGIN */
    pkt(19); b_u32(&b, 20); s2c(&k);                             /* MAP_SIZE: 20 bytes */
    pkt(20); b_raw(&b, "OTTX\x01\x2e\x00\x00", 8); b_hex(&b, "fd377a58"); s2c(&k); /* 12 */
    /* the second MAP_DATA (8 bytes) split over two segments */
    pkt(20); b_hex(&b, "5a000001 69220000"); done();
    seg(&k, 1, b.p, 5);
    seg(&k, 1, b.p + 5, b.n - 5);
    pkt(21); s2c(&k);                                            /* MAP_DONE */
    pkt(22); c2s(&k);                                            /* MAP_OK */
    /* three packets in one segment: JOIN, FRAME (with token), SYNC */
    {
        bytes all = {0};
        pkt(23); b_u32(&b, 3); done(); b_raw(&all, b.p, b.n);
        pkt(24); b_u32(&b, 1001); b_u32(&b, 1005); b_u8(&b, 0x42); done(); b_raw(&all, b.p, b.n);
        pkt(26); b_u32(&b, 1001); b_u32(&b, 0xdeadbeef); done(); b_raw(&all, b.p, b.n);
        seg(&k, 1, all.p, all.n);
        free(all.p);
    }
    pkt(25); b_u32(&b, 1001); b_u8(&b, 0x42); c2s(&k);           /* ACK, 0 behind */
    pkt(24); b_u32(&b, 1003); b_u32(&b, 1006); s2c(&k);          /* FRAME, no token */
    pkt(27); b_u8(&b, 0); b_u16(&b, 82); b_u16(&b, 0x1234); b_u32(&b, 4096);
    b_u16(&b, 3); b_hex(&b, "010203"); b_u8(&b, 5); c2s(&k);      /* CLIENT_COMMAND */
    pkt(28); b_u8(&b, 0); b_u16(&b, 82); b_u16(&b, 0x1234); b_u32(&b, 4096);
    b_u16(&b, 3); b_hex(&b, "010203"); b_u8(&b, 5); b_u32(&b, 1006); b_u8(&b, 1); s2c(&k);
    pkt(25); b_u32(&b, 1002); b_u8(&b, 0x42); c2s(&k);           /* ACK, 1 behind */
    pkt(29); b_u8(&b, 3); b_u8(&b, 0); b_u32(&b, 0); strz("hello"); b_u64(&b, 0); c2s(&k);
    pkt(30); b_u8(&b, 3); b_u32(&b, 3); b_u8(&b, 0); strz("hello"); b_u64(&b, 0); s2c(&k);
    pkt(31); strz("irc"); b_u16(&b, 5); strz("bob"); strz("hi there"); s2c(&k);
    pkt(32); strz("pw"); strz("help"); c2s(&k);                  /* RCON */
    pkt(33); b_u16(&b, 1); strz("ok"); s2c(&k);
    pkt(34); b_u8(&b, 1); strz("pw"); c2s(&k);                   /* MOVE */
    pkt(35); b_u32(&b, 3); b_u8(&b, 1); s2c(&k);
    pkt(36); strz("newpw"); c2s(&k);                             /* SET_PASSWORD */
    pkt(37); strz("Tester2"); c2s(&k);                           /* SET_NAME */
    pkt(38); b_u16(&b, 3); s2c(&k);                              /* COMPANY_UPDATE */
    pkt(39); b_u8(&b, 15); strz("Test Server"); s2c(&k);         /* CONFIG_UPDATE */
    pkt(4); c2s(&k);                                             /* CLIENT_UNUSED */
    pkt(5); s2c(&k);                                             /* SERVER_UNUSED */
    pkt(44); b_u8(&b, 7); c2s(&k);                               /* CLIENT_ERROR NOT_EXPECTED */
    pkt(45); b_u32(&b, 4); b_u8(&b, 12); s2c(&k);                /* ERROR_QUIT 4 KICKED */
    pkt(43); b_u32(&b, 5); s2c(&k);                              /* SERVER_QUIT 5 */
    pkt(40); s2c(&k);                                            /* NEWGAME */
    pkt(41); s2c(&k);                                            /* SHUTDOWN */
    pkt(42); c2s(&k);                                            /* CLIENT_QUIT */
    conn_close(&k);

    /* refused connections: full, banned, an error with and without reason */
    const unsigned refusals[][3] = {{0, 0, 0}, {1, 0, 0}, {3, 9, 1}, {3, 14, 0}};
    for (int i = 0; i < 4; i++) {
        conn_open(&k, &w, 3 + i, (uint16_t)(40100 + i));
        pkt(2); strz("13.0"); b_u32(&b, 0x1d086d64); strz("Other"); b_u8(&b, 0xfe); b_u8(&b, 0); c2s(&k);
        pkt(refusals[i][0]);
        if (refusals[i][0] == 3) {
            b_u8(&b, refusals[i][1]);
            if (refusals[i][2])
                strz("name taken");
        }
        s2c(&k);
        conn_close(&k);
    }

    /* a connection on a port no dissector claims: found by the heuristic */
    conn_open_port(&k, &w, 7, 40110, 23999);
    pkt(2); strz("13.0"); b_u32(&b, 0x1d086d64); strz("Elsewhere"); b_u8(&b, 0xfe); b_u8(&b, 0); c2s(&k);
    pkt(14); b_u32(&b, 9); b_u32(&b, 1); strz("x"); s2c(&k);
    conn_close(&k);

    /* the ports of the first refused connection used again, by a 14.x client:
       a fresh conversation with its own numbering */
    conn_open(&k, &w, 3, 40100);
    pkt(2); strz("14.0"); b_u32(&b, 0x1e000000); strz("Again"); b_u8(&b, 0xfe); b_u8(&b, 0); c2s(&k);
    pkt(16); b_u32(&b, 8); b_u32(&b, 1); strz("y"); s2c(&k);    /* 14.x SERVER_WELCOME */
    conn_close(&k);
    pw_close(&w);
}

/* ---- 14.x: other numbering, game info 7, commands without a tile ---- */

static void gen_14(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-packets-14.pcap");
    conn_open(&k, &w, 1, 40014);
    pkt(7); c2s(&k);
    pkt(6); game_info(7, "14.1"); s2c(&k);                       /* teaches 14.x */
    pkt(2); strz("14.1"); b_u32(&b, 0x1e000000); strz("Tester"); b_u8(&b, 0xfe); b_u8(&b, 0); c2s(&k);
    pkt(10); b_u8(&b, 0); s2c(&k);                               /* CHECK_NEWGRFS, none */
    pkt(11); c2s(&k);                                            /* NEWGRFS_CHECKED */
    pkt(16); b_u32(&b, 7); b_u32(&b, 99); strz("id14"); s2c(&k); /* WELCOME */
    pkt(18); c2s(&k);                                            /* GETMAP */
    pkt(20); b_u32(&b, 50); s2c(&k);                             /* MAP_BEGIN */
    pkt(26); b_u32(&b, 51); b_u32(&b, 52); b_u8(&b, 9); s2c(&k);  /* FRAME */
    pkt(27); b_u32(&b, 51); b_u8(&b, 9); c2s(&k);                /* ACK */
    pkt(29); b_u8(&b, 0); b_u16(&b, 10); b_u16(&b, 0); b_u16(&b, 2); b_hex(&b, "aabb"); b_u8(&b, 0); c2s(&k);
    pkt(30); b_u8(&b, 0); b_u16(&b, 10); b_u16(&b, 0); b_u16(&b, 2); b_hex(&b, "aabb"); b_u8(&b, 0);
    b_u32(&b, 52); b_u8(&b, 0); s2c(&k);                         /* SERVER_COMMAND */
    pkt(8); s2c(&k);                                             /* NEWGAME */
    pkt(9); s2c(&k);                                             /* SHUTDOWN */
    conn_close(&k);
    pw_close(&w);
}

/* ---- 15.x: authentication, then encryption ---- */

static void gen_15(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-packets-15.pcap");
    conn_open(&k, &w, 1, 40015);
    /* as 15.x's code writes them (network_client.cpp SendJoin; network_crypto.cpp's
       X25519 SendRequest, SendResponse, SendEnableEncryption) */
    pkt(2); strz("15.0"); b_u32(&b, 0x1f000000); c2s(&k);                                /* JOIN */
    pkt(10); /* AUTH_REQUEST: method PAKE, public key, nonce */
    b_u8(&b, 1);
    for (int i = 0; i < 32; i++)
        b_u8(&b, (unsigned)i);
    for (int i = 0; i < 24; i++)
        b_u8(&b, (unsigned)(0x20 + i));
    s2c(&k);
    pkt(11); /* AUTH_RESPONSE: public key, MAC, message */
    for (int i = 0; i < 32; i++)
        b_u8(&b, (unsigned)(0x80 + i));
    for (int i = 0; i < 16; i++)
        b_u8(&b, 0xa0);
    for (int i = 0; i < 8; i++)
        b_u8(&b, 0xb0);
    c2s(&k);
    pkt(12); /* ENABLE_ENCRYPTION: nonce */
    for (int i = 0; i < 24; i++)
        b_u8(&b, (unsigned)(0x40 + i));
    s2c(&k);
    /* from here on: size, 16-byte MAC, encrypted type and payload */
    b_reset(&b); b_u16(&b, 0); for (int i = 0; i < 16; i++) b_u8(&b, 0xee); b_hex(&b, "0102030405"); c2s(&k);
    b_reset(&b); b_u16(&b, 0); for (int i = 0; i < 16; i++) b_u8(&b, 0xdd); b_hex(&b, "a1a2a3a4a5a6a7"); s2c(&k);
    conn_close(&k);
    pw_close(&w);
}

/* ---- 0.7: the wiki's packet set, as 0.7's network_client.cpp and
   network_server.cpp lay it out (u32 client ids, the unique id in the join,
   the seed and network id in the welcome, the command's text, the map's
   size, chat with a u32 destination and u64 data, quits without text) ---- */

static void gen_old(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-packets-old.pcap");
    conn_open(&k, &w, 1, 40007);
    pkt(2); strz("0.7.5"); strz("Tester"); b_u8(&b, 1); b_u8(&b, 0); strz("f00d"); c2s(&k); /* JOIN: teaches 0.7 */
    pkt(6); b_u32(&b, 1); b_u8(&b, 0); strz("Server"); s2c(&k);  /* CLIENT_INFO */
    pkt(7); b_u8(&b, 0); s2c(&k);                                /* NEED_PASSWORD, game */
    pkt(8); b_u8(&b, 0); strz("pw"); c2s(&k);                    /* PASSWORD */
    pkt(9); b_u32(&b, 2); b_u32(&b, 0x12345678); strz("beef"); s2c(&k); /* WELCOME, client 2 */
    pkt(10); c2s(&k);                                            /* GETMAP */
    pkt(11); b_u8(&b, 0); s2c(&k);                               /* WAIT */
    pkt(12); b_u8(&b, 0); b_u32(&b, 500); b_u32(&b, 12); s2c(&k); /* MAP start, frame 500, 12 bytes */
    pkt(12); b_u8(&b, 1); b_raw(&b, "OTTD\x00\x50\x00\x00", 8); b_hex(&b, "01020304"); s2c(&k);
    pkt(12); b_u8(&b, 2); s2c(&k);                               /* MAP end */
    pkt(13); c2s(&k);                                            /* MAP_OK */
    pkt(14); b_u32(&b, 2); s2c(&k);                              /* JOIN, client 2 */
    pkt(15); b_u32(&b, 501); b_u32(&b, 505); b_u32(&b, 7); b_u32(&b, 8); s2c(&k); /* FRAME + seeds */
    pkt(16); b_u32(&b, 501); b_u32(&b, 0x12345678); s2c(&k);     /* SYNC */
    pkt(17); b_u32(&b, 501); c2s(&k);                            /* ACK */
    pkt(18); b_u8(&b, 0); b_u32(&b, 5); b_u32(&b, 1); b_u32(&b, 2); b_u32(&b, 300);
    strz(""); b_u8(&b, 0); c2s(&k);                              /* COMMAND */
    pkt(19); b_u8(&b, 0); b_u32(&b, 5); b_u32(&b, 1); b_u32(&b, 2); b_u32(&b, 300);
    strz(""); b_u8(&b, 0); b_u32(&b, 506); b_u8(&b, 1); s2c(&k); /* its SERVER_COMMAND, frame 506 */
    pkt(20); b_u8(&b, 3); b_u8(&b, 0); b_u32(&b, 0); strz("hi all"); b_u64(&b, 0); c2s(&k); /* CHAT */
    pkt(21); b_u8(&b, 3); b_u32(&b, 2); b_u8(&b, 1); strz("hi all"); b_u64(&b, 0); s2c(&k);
    pkt(24); c2s(&k);                                            /* QUIT */
    pkt(26); b_u32(&b, 2); s2c(&k);                              /* SERVER_QUIT */
    conn_close(&k);
    pw_close(&w);
}

/* ---- UDP on 3979 ---- */

static void gen_udp(void)
{
    pcapw w;
    open_file(&w, "openttd-gen-udp.pcap");
    /* 13.x LAN discovery (captured form: 03 00 00 -> 03 00 01) */
    pkt(0); done(); pw_udp(&w, 1, 40050, SERVER, PORT, b.p, b.n);
    pkt(1); done(); pw_udp(&w, SERVER, PORT, 1, 40050, b.p, b.n);
    /* an old server's answer with game info version 4 (the wiki's layout) */
    pkt(0); done(); pw_udp(&w, 3, 40051, SERVER, PORT, b.p, b.n);
    pkt(1);
    b_u8(&b, 4); b_u8(&b, 1); b_u32(&b, 0x44442020); md5(0);
    b_u32(&b, 700000); b_u32(&b, 699000); b_u8(&b, 8); b_u8(&b, 2); b_u8(&b, 10);
    strz("Old Server"); strz("0.7.5"); b_u8(&b, 0); b_u8(&b, 0); b_u8(&b, 10); b_u8(&b, 3); b_u8(&b, 0);
    strz("Random Map"); b_u16(&b, 256); b_u16(&b, 256); b_u8(&b, 0); b_u8(&b, 1);
    done(); pw_udp(&w, SERVER, PORT, 3, 40051, b.p, b.n);
    pkt(2); done(); pw_udp(&w, 3, 40051, SERVER, PORT, b.p, b.n);    /* DETAIL_INFO */
    pw_close(&w);
}

/* ---- hostile and broken streams ---- */

static void gen_hostile(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-hostile.pcap");

    /* sizes 0, 1, 2 and 65535, each at the start of a segment; after each the
       stream resynchronises on the next segment */
    const unsigned sizes[] = {0, 1, 2, 65535};
    for (int i = 0; i < 4; i++) {
        conn_open(&k, &w, 10 + i, (uint16_t)(40200 + i));
        pkt(7); c2s(&k);
        b_reset(&b); b_u16(&b, sizes[i]); b_hex(&b, "1d 000000"); seg(&k, 0, b.p, b.n);
        pkt(7); c2s(&k);
        conn_close(&k);
    }

    /* a chat claiming 32767 bytes (limit 1460), sent in full */
    conn_open(&k, &w, 20, 40210);
    pkt(29); b_u8(&b, 3); b_u8(&b, 0); b_u32(&b, 0);
    while (b.n < 32767 - 9)
        b_u8(&b, 'a');
    b_u8(&b, 0); b_u64(&b, 0);
    done();
    for (size_t off = 0; off < b.n; off += 1460)
        seg(&k, 0, b.p + off, b.n - off < 1460 ? b.n - off : 1460);
    conn_close(&k);

    /* field errors */
    conn_open(&k, &w, 21, 40211);
    pkt(99); b_hex(&b, "0102"); c2s(&k);                         /* unknown type */
    pkt(37); b_raw(&b, "NoTerminator", 12); c2s(&k);              /* SET_NAME, no NUL */
    pkt(23); b_u32(&b, 3); b_hex(&b, "ffff"); s2c(&k);           /* JOIN + 2 trailing bytes */
    pkt(3); b_u8(&b, 77); s2c(&k);                               /* SERVER_ERROR code 77 */
    pkt(24); b_u32(&b, 10); s2c(&k);                             /* FRAME cut short */
    conn_close(&k);

    /* frame analysis: counters going back, an ack beyond frame_max */
    conn_open(&k, &w, 22, 40212);
    pkt(24); b_u32(&b, 100); b_u32(&b, 105); b_u8(&b, 1); s2c(&k);
    pkt(24); b_u32(&b, 99); b_u32(&b, 105); b_u8(&b, 1); s2c(&k);
    pkt(25); b_u32(&b, 110); b_u8(&b, 1); c2s(&k);
    pkt(25); b_u32(&b, 98); b_u8(&b, 1); c2s(&k);
    conn_close(&k);

    /* a map whose middle segment was lost: 3 000 bytes of MAP_DATA in three
       segments, the second never captured; then MAP_DONE */
    conn_open(&k, &w, 23, 40213);
    pkt(19); b_u32(&b, 2997); s2c(&k);
    pkt(20); while (b.n < 3000) b_u8(&b, 0x55); done();
    seg(&k, 1, b.p, 1000);
    k.sseq += 1000; /* lost */
    seg(&k, 1, b.p + 2000, 1000);
    pkt(21); s2c(&k);
    conn_close(&k);

    /* the stream ends inside a packet */
    conn_open(&k, &w, 24, 40214);
    pkt(37); strz("Half"); done(); seg(&k, 0, b.p, 4);
    conn_close(&k);
    pw_close(&w);
}

/* ---- one capture per behaviour rule (captures/rules/RULE.pcap), 13.x ---- */

static pcapw rw;
static conn rk;

static void rule_open(const char *rule)
{
    pw_open_rule(&rw, outdir, rule);
    conn_open(&rk, &rw, 1, 40100);
}

static void rule_close(void)
{
    conn_close(&rk);
    pw_close(&rw);
}

static void join_packet(void)
{
    pkt(2); strz("13.0"); b_u32(&b, 0x1d086d64); strz("Tester"); b_u8(&b, 0xfe); b_u8(&b, 0); c2s(&rk);
}
static void welcome(void) { pkt(14); b_u32(&b, 3); b_u32(&b, 12345); strz("netid"); s2c(&rk); }

/* JOIN to MAP_OK with a 12-byte map that MAP_SIZE announces as map_size */
static void rule_join(unsigned map_size)
{
    join_packet();
    welcome();
    pkt(16); c2s(&rk);                                           /* GETMAP */
    pkt(18); b_u32(&b, 1000); s2c(&rk);                          /* MAP_BEGIN */
    pkt(19); b_u32(&b, map_size); s2c(&rk);                      /* MAP_SIZE */
    pkt(20); b_raw(&b, "OTTX\x01\x2e\x00\x00", 8); b_hex(&b, "fd377a58"); s2c(&rk);
    pkt(21); s2c(&rk);                                           /* MAP_DONE */
    pkt(22); c2s(&rk);                                           /* MAP_OK */
}

static void frame(unsigned f, unsigned max) { pkt(24); b_u32(&b, f); b_u32(&b, max); b_u8(&b, 7); s2c(&rk); }

static void rule_captures(void)
{
    /* the server sends MAP_BEGIN before the client asked with GETMAP */
    rule_open("openttd.join.out_of_order");
    join_packet();
    welcome();
    pkt(18); b_u32(&b, 1000); s2c(&rk);
    rule_close();

    /* MAP_SIZE announces 20 bytes, 12 come */
    rule_open("openttd.map.size_mismatch");
    rule_join(20);
    rule_close();

    /* frame 10, then frame 9 */
    rule_open("openttd.frame.backwards");
    rule_join(12);
    frame(10, 10);
    frame(9, 10);
    rule_close();

    /* frame_max 12, the client acknowledges 15 */
    rule_open("openttd.ack.beyond_frame_max");
    rule_join(12);
    frame(10, 12);
    pkt(25); b_u32(&b, 15); b_u8(&b, 7); c2s(&rk);
    rule_close();

    /* a command for frame 10 after SERVER_FRAME 10 */
    rule_open("openttd.command.frame_passed");
    rule_join(12);
    frame(10, 10);
    pkt(28); b_u8(&b, 0); b_u16(&b, 82); b_u16(&b, 0x1234); b_u32(&b, 4096);
    b_u16(&b, 3); b_hex(&b, "010203"); b_u8(&b, 5); b_u32(&b, 10); b_u8(&b, 0); s2c(&rk);
    rule_close();

    /* the client sends SERVER_COMPANY_UPDATE */
    rule_open("openttd.direction.wrong");
    rule_join(12);
    pkt(38); b_u16(&b, 0x0001); c2s(&rk);
    rule_close();

    /* a 1600-byte chat message: SERVER_CHAT is limited to 1460 */
    rule_open("openttd.size.too_large");
    rule_join(12);
    pkt(30); b_u8(&b, 3); b_u32(&b, 3); b_u8(&b, 0);
    for (int i = 0; i < 1600; i++)
        b_u8(&b, 'a' + i % 26);
    b_u8(&b, 0); b_u64(&b, 0); s2c(&rk);
    rule_close();
}

/* the packets of the 0.5-0.7 numbering the wiki leaves out:
   SERVER_COMPANY_INFO as 0.7.x's network_server.cpp writes it (version 5,
   one company, then the "5, 0" that ends the list), 34-37 as 1.0's does.
   A file of its own, written last, so that the other captures stay as
   they were. */
static void gen_old_companies(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-packets-old-companies.pcap");
    conn_open(&k, &w, 4, 40008);
    pkt(2); strz("0.7.5"); strz("Owner"); b_u8(&b, 1); b_u8(&b, 0); strz("cafe"); c2s(&k);
    pkt(4); c2s(&k);                                             /* CLIENT_COMPANY_INFO */
    pkt(5); b_u8(&b, 5); b_u8(&b, 1); b_u8(&b, 0); strz("Tester Transport"); b_u32(&b, 1950);
    b_u64(&b, 250000); b_u64(&b, (uint64_t)-1200); b_u64(&b, 34000); b_u16(&b, 87); b_u8(&b, 1);
    for (int i = 1; i <= 10; i++) b_u16(&b, (uint16_t)i);
    strz("Tester, Owner"); s2c(&k);
    pkt(5); b_u8(&b, 5); b_u8(&b, 0); s2c(&k);                   /* end of the list */
    pkt(35); b_u8(&b, 255); c2s(&k);                             /* CLIENT_MOVE to spectators */
    pkt(34); b_u32(&b, 3); b_u8(&b, 255); s2c(&k);               /* SERVER_MOVE */
    pkt(36); b_u16(&b, 0x0001); s2c(&k);                         /* COMPANY_UPDATE */
    pkt(37); b_u8(&b, 8); b_u8(&b, 10); s2c(&k);                 /* CONFIG_UPDATE */
    conn_close(&k);
    pw_close(&w);
}

/* 0.6 (network_client.cpp; 0.5's network_server.c writes the same): u16
   client indexes, the unique id after the name, the command's text and
   frame; then the UDP set of 0.5 - 1.x (network_udp, core/udp.h): detail
   info in company info versions 4 (with its client lists), 5 and 6 (is_ai),
   NewGRF names, the master server's register, list and session key (the
   master on its port 3978). Written last: the other captures stay as
   they were. */
static void gen_old_06_and_udp(void)
{
    pcapw w;
    conn k;
    open_file(&w, "openttd-gen-packets-0.6.pcap");
    conn_open(&k, &w, 5, 40009);
    pkt(2); strz("0.6.3"); strz("Sixer"); b_u8(&b, 0); b_u8(&b, 0); strz("d00d"); c2s(&k);
    pkt(9); b_u16(&b, 4); s2c(&k);                               /* WELCOME */
    pkt(6); b_u16(&b, 4); b_u8(&b, 0); strz("Sixer"); strz("d00d"); s2c(&k); /* CLIENT_INFO */
    pkt(12); b_u8(&b, 0); b_u32(&b, 900); b_u32(&b, 10); s2c(&k); /* MAP start: frame, size */
    pkt(12); b_u8(&b, 1); b_raw(&b, "OTTD\x00\x4a\x00\x00", 8); b_hex(&b, "0102"); s2c(&k);
    pkt(12); b_u8(&b, 2); s2c(&k);
    pkt(15); b_u32(&b, 901); b_u32(&b, 905); s2c(&k);            /* FRAME */
    pkt(18); b_u8(&b, 0); b_u32(&b, 9); b_u32(&b, 3); b_u32(&b, 4); b_u32(&b, 77);
    strz("Sixer Co"); b_u8(&b, 2); c2s(&k);                      /* COMMAND with its text */
    pkt(19); b_u8(&b, 0); b_u32(&b, 9); b_u32(&b, 3); b_u32(&b, 4); b_u32(&b, 77);
    strz("Sixer Co"); b_u8(&b, 2); b_u32(&b, 906); s2c(&k);
    pkt(21); b_u8(&b, 3); b_u16(&b, 4); b_u8(&b, 0); strz("hello"); s2c(&k); /* SERVER_CHAT */
    pkt(27); b_u16(&b, 4); b_u8(&b, 12); s2c(&k);                /* ERROR_QUIT: KICKED */
    conn_close(&k);

    pkt(2); done(); pw_udp(&w, 6, 40060, SERVER, PORT, b.p, b.n); /* CLIENT_DETAIL_INFO */
    const int v[3] = {4, 5, 6};
    for (int i = 0; i < 3; i++) {
        pkt(3); b_u8(&b, (uint8_t)v[i]); b_u8(&b, 1);
        b_u8(&b, 0); strz("Sixer Co"); b_u32(&b, 1955); b_u64(&b, 5000); b_u64(&b, 7000);
        b_u64(&b, (uint64_t)-300); b_u16(&b, 120); b_u8(&b, 0);
        for (int j = 1; j <= 10; j++) b_u16(&b, (uint16_t)j);
        if (v[i] == 4) { /* its client, then the spectators: none */
            b_u8(&b, 1); strz("Sixer"); strz("d00d"); b_u32(&b, 714000); b_u8(&b, 0);
            b_u8(&b, 0);
        }
        if (v[i] == 6) b_u8(&b, 0);                              /* not an AI */
        done(); pw_udp(&w, SERVER, PORT, 6, 40060, b.p, b.n);
    }
    pkt(9); b_u8(&b, 1); b_u32(&b, 0x44442020); md5(3); done();   /* CLIENT_GET_NEWGRFS */
    pw_udp(&w, 6, 40060, SERVER, PORT, b.p, b.n);
    pkt(10); b_u8(&b, 1); b_u32(&b, 0x44442020); md5(3); strz("OpenGFX"); done();
    pw_udp(&w, SERVER, PORT, 6, 40060, b.p, b.n);
    /* the server and the master server (3978) */
    pkt(4); strz("OpenTTDRegister"); b_u8(&b, 2); b_u16(&b, PORT); b_u64(&b, 0x1122334455667788ull); done();
    pw_udp(&w, SERVER, 40061, 7, 3978, b.p, b.n);
    pkt(11); b_u64(&b, 0x1122334455667788ull); done();           /* MASTER_SESSION_KEY */
    pw_udp(&w, 7, 3978, SERVER, 40061, b.p, b.n);
    pkt(5); done(); pw_udp(&w, 7, 3978, SERVER, 40061, b.p, b.n); /* MASTER_ACK_REGISTER */
    pkt(6); b_u8(&b, 2); b_u8(&b, 2); done();                    /* CLIENT_GET_LIST, autodetect */
    pw_udp(&w, 6, 40062, 7, 3978, b.p, b.n);
    pkt(7); b_u8(&b, 1); b_u16(&b, 2); b_hex(&b, "c0000201"); b_u16(&b, PORT);
    b_hex(&b, "c6336402"); b_u16(&b, 3980); done();              /* MASTER_RESPONSE_LIST, IPv4 */
    pw_udp(&w, 7, 3978, 6, 40062, b.p, b.n);
    pkt(7); b_u8(&b, 2); b_u16(&b, 1); b_hex(&b, "20010db8000000000000000000000007"); b_u16(&b, PORT);
    done(); pw_udp(&w, 7, 3978, 6, 40062, b.p, b.n);             /* IPv6 */
    pkt(8); b_u8(&b, 2); b_u16(&b, PORT); done();                /* SERVER_UNREGISTER */
    pw_udp(&w, SERVER, 40061, 7, 3978, b.p, b.n);
    pw_close(&w);
}

int main(int argc, char **argv)
{
    static void (*const sections[])(void) = {
        gen_13, gen_14, gen_15, gen_old, gen_udp, gen_hostile, rule_captures, gen_old_companies,
        gen_old_06_and_udp, NULL};
    return pw_run(argc, argv, outdir, sizeof outdir, sections);
}
