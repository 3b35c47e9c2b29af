/* gen_gne.c - writes the generated GNE test captures into a folder.
 *
 * Messages are built by hand from the layouts in docs/wire-facts.md
 * section 3 (gnelib's handshake, packet ids 0-8, wrapped packets, gtime) and
 * carried the way gnelib sends them: each NL header in a segment of its own,
 * then the content; the UDP link on the ports the handshake gives.
 * Deterministic: tests compare the output byte for byte with captures/.
 *
 * Usage: gen_gne OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapw.h"

#define SERVER 2
#define SYN 0x02
#define ACK 0x10
#define PSH 0x08
#define FIN 0x01
#define RST 0x04

static char outdir[512];
static bytes m;  /* the message being built */
static int big;  /* data byte order of the numbers appended */

/* ---- message building ---- */

static void u8(unsigned v) { b_u8(&m, v); }
static void u16(unsigned v)
{
    if (big) { b_u8(&m, (v >> 8) & 0xff); b_u8(&m, v & 0xff); }
    else b_u16(&m, v);
}
static void u32(uint32_t v)
{
    if (big) { u16(v >> 16); u16(v & 0xffff); }
    else b_u32(&m, v);
}
static void gtime(int32_t sec, int32_t usec) { u32((uint32_t)sec); u32((uint32_t)usec); }
static void raw(const char *s) { b_raw(&m, s, strlen(s)); }
static void name32(const char *s)
{
    uint8_t buf[32] = {0};
    memcpy(buf, s, strlen(s) < 32 ? strlen(s) : 32);
    b_raw(&m, buf, 32);
}

static void request(const char *game, uint32_t user, uint32_t rate, int unreliable)
{
    b_reset(&m);
    raw("GNE"); u8(0); u8(0); u16(7); name32(game); u32(user); u32(rate); u8((unsigned)unreliable);
}

static void refusal(unsigned build, const char *game, uint32_t user)
{
    b_reset(&m);
    raw("GNE"); u8(0); u8(0); u8(0); u16(build); name32(game); u32(user);
}

static void accept_msg(uint32_t rate, int32_t port)
{
    b_reset(&m);
    raw("GNE"); u8(1); u32(rate); u32((uint32_t)port);
}

static void port_msg(int32_t port) { b_reset(&m); u32((uint32_t)port); }

static void ping(uint32_t id, int32_t s2, int32_t us2, int32_t s3, int32_t us3)
{
    u8(4); u32(id); gtime(s2, us2); gtime(s3, us3);
}

static void custom(const char *data) { u8(1); u16((unsigned)strlen(data)); raw(data); }

/* ---- TCP connections ---- */

typedef struct {
    pcapw *w;
    int client;
    uint16_t cport, sport;
    uint32_t cseq, sseq;
} conn;

static void conn_open(conn *k, pcapw *w, int client, uint16_t cport, uint16_t sport)
{
    static unsigned opened;
    *k = (conn){w, client, cport, sport, 1000u * (unsigned)client + 7919u * opened++,
                600000u + 7u * cport};
    pw_tcp(w, client, cport, SERVER, sport, k->cseq, 0, SYN, NULL, 0);
    pw_tcp(w, SERVER, sport, client, cport, k->sseq, k->cseq + 1, SYN | ACK, NULL, 0);
    k->cseq++;
    k->sseq++;
    pw_tcp(w, client, cport, SERVER, sport, k->cseq, k->sseq, ACK, NULL, 0);
}

static void seg(conn *k, int from_server, const uint8_t *d, size_t n)
{
    pw_advance(k->w, 150);
    if (from_server) {
        pw_tcp(k->w, SERVER, k->sport, k->client, k->cport, k->sseq, k->cseq, PSH | ACK, d, n);
        k->sseq += (uint32_t)n;
    } else {
        pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq, k->sseq, PSH | ACK, d, n);
        k->cseq += (uint32_t)n;
    }
}

/* the message in m as an NL frame at buf + at; returns the end */
static size_t put_frame(uint8_t *buf, size_t at)
{
    buf[at] = 'N'; buf[at + 1] = 'L'; buf[at + 2] = (uint8_t)(m.n >> 8); buf[at + 3] = (uint8_t)m.n;
    memcpy(buf + at + 4, m.p, m.n);
    return at + 4 + m.n;
}

/* the message in m as one NL frame, header and content in separate
   segments (gnelib's way) */
static void frame(conn *k, int from_server)
{
    static uint8_t f[4 + 65536];
    put_frame(f, 0);
    seg(k, from_server, f, 4);
    seg(k, from_server, f + 4, m.n);
}
static void c2s(conn *k) { frame(k, 0); }
static void c2s_one_segment(conn *k)
{
    static uint8_t f[4 + 65536];
    seg(k, 0, f, put_frame(f, 0));
}
static void s2c(conn *k) { frame(k, 1); }

/* gnelib's close: the client's exit, FIN; the server's exit header, RST */
static void conn_exit(conn *k)
{
    b_reset(&m); u8(2); u8(255); c2s(k);
    pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq, k->sseq, FIN | ACK, NULL, 0);
    k->cseq++;
    uint8_t h[4] = {'N', 'L', 0, 2};
    seg(k, 1, h, 4);
    pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq, 0, RST, NULL, 0);
}

static void conn_close(conn *k)
{
    pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq, k->sseq, FIN | ACK, NULL, 0);
    pw_tcp(k->w, SERVER, k->sport, k->client, k->cport, k->sseq, k->cseq + 1, FIN | ACK, NULL, 0);
    pw_tcp(k->w, k->client, k->cport, SERVER, k->sport, k->cseq + 1, k->sseq + 1, ACK, NULL, 0);
}

static void udp(conn *k, int from_server, uint16_t cudp, uint16_t sudp)
{
    pw_advance(k->w, 150);
    if (from_server)
        pw_udp(k->w, SERVER, sudp, k->client, cudp, m.p, m.n);
    else
        pw_udp(k->w, k->client, cudp, SERVER, sudp, m.p, m.n);
}

static void open_file(pcapw *w, const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", outdir, name);
    pw_open(w, p, LT_ETH, 0);
}

/* ---- a session with every packet id, in the current byte order ---- */

#define T0 1800000000 /* a remote clock, seconds */

static void every_packet(conn *k, int with_udp, uint16_t cudp, uint16_t sudp)
{
    b_reset(&m); u8(0); u8(255); c2s(k);                                /* Empty */
    b_reset(&m); custom("Alice"); u8(255); s2c(k);                       /* Custom */
    b_reset(&m); u8(3); u32(3200); u8(255); c2s(k);                      /* RateAdjust */
    b_reset(&m); u8(3); u32(0); u8(255); s2c(k);
    /* pings both ways, replies 0.2 ms later */
    b_reset(&m); ping(7, 0, 0, 0, 0); u8(255); c2s(k);
    pw_advance(k->w, 50);
    b_reset(&m); ping(7, T0, 250000, T0, 250040); u8(255); s2c(k);
    b_reset(&m); ping(1, 0, 0, 0, 0); u8(255); s2c(k);
    b_reset(&m); ping(1, -5, 500000, -5, 500100); u8(255); c2s(k);     /* gtime -4.5 s */
    /* wrapped: Channel[Ping request], Channel[no packet], objects */
    b_reset(&m); u8(5); ping(8, 0, 0, 0, 0); u8(3); u8(1); u8(255); c2s(k);
    b_reset(&m); u8(5); u8(255); u8(0); u8(2); u8(255); s2c(k);
    b_reset(&m); u8(6); custom("ship"); u16(40001); u8(255); s2c(k);   /* ObjectCreation */
    b_reset(&m); u8(7); u8(3); u32(1000); u16(40001); u8(255); s2c(k); /* ObjectUpdate[Rate] */
    b_reset(&m); u8(8); u8(255); u16(40001); u8(255); s2c(k);          /* ObjectDeath[none] */
    /* nested three deep: Channel[ObjectUpdate[Custom]] */
    b_reset(&m); u8(5); u8(7); custom("xy"); u16(9); u8(4); u8(0); u8(255); c2s(k);
    /* several packets in one message, a user packet last */
    b_reset(&m); u8(0); custom("hi"); u8(2); u8(20); raw("user data"); u8(255); c2s(k);
    /* a user packet wrapped in a channel: the channel's fields are taken
       from before the 255 */
    b_reset(&m); u8(5); u8(16); raw("move 3 4"); u8(6); u8(1); u8(255); s2c(k);
    /* two frames in one segment, one frame over three segments */
    {
        uint8_t buf[128];
        size_t n;
        b_reset(&m); u8(0); u8(255); n = put_frame(buf, 0);
        b_reset(&m); u8(3); u32(10000); u8(255); n = put_frame(buf, n);
        seg(k, 0, buf, n);
        b_reset(&m); ping(9, 0, 0, 0, 0); u8(255); n = put_frame(buf, 0);
        seg(k, 0, buf, 2);
        seg(k, 0, buf + 2, 9);
        seg(k, 0, buf + 11, n - 11);
    }
    b_reset(&m); ping(9, T0 + 1, 0, T0 + 1, 999); u8(255); s2c(k);
    if (with_udp) {
        b_reset(&m); u8(255); udp(k, 0, cudp, sudp);                   /* the link opener */
        b_reset(&m); ping(2, 0, 0, 0, 0); u8(255); udp(k, 0, cudp, sudp);
        b_reset(&m); ping(2, T0 + 2, 100, T0 + 2, 300); u8(255); udp(k, 1, cudp, sudp);
        b_reset(&m); u8(7); u8(17); raw("pos 1 2"); u16(77); u8(255); udp(k, 1, cudp, sudp);
        b_reset(&m); u8(0); u8(0); u8(255); udp(k, 0, cudp, sudp);
    }
}

static void handshake(conn *k, const char *game, int unreliable, int32_t sudp, int32_t cudp)
{
    request(game, 1, 6400, unreliable); c2s(k);
    accept_msg(12800, sudp); s2c(k);
    if (unreliable && sudp > 0) {
        port_msg(cudp); c2s(k);
    }
}

static void gen_little(void)
{
    pcapw w;
    conn k;
    open_file(&w, "gne-gen-little.pcap");
    big = 0;
    conn_open(&k, &w, 1, 50101, 5101);
    handshake(&k, "generated", 1, 41001, 41002);
    every_packet(&k, 1, 41002, 41001);
    conn_exit(&k);
    /* no UDP asked: the accept's port is -1 */
    conn_open(&k, &w, 3, 50102, 5101);
    handshake(&k, "generated", 0, -1, 0);
    b_reset(&m); ping(0, 0, 0, 0, 0); u8(255); c2s(&k);
    b_reset(&m); ping(0, T0, 1, T0, 2); u8(255); s2c(&k);
    conn_exit(&k);
    pw_close(&w);
}

static void gen_big(void)
{
    pcapw w;
    conn k;
    open_file(&w, "gne-gen-big.pcap");
    big = 1;
    conn_open(&k, &w, 1, 50201, 5102);
    handshake(&k, "old release", 1, 41003, 41004);
    every_packet(&k, 1, 41004, 41003);
    conn_exit(&k);
    conn_open(&k, &w, 4, 50202, 5102);
    handshake(&k, "old release", 0, -1, 0);
    b_reset(&m); custom("big-endian"); u8(255); c2s(&k);
    conn_close(&k);
    pw_close(&w);
}

static void gen_refusals(void)
{
    pcapw w;
    conn k;
    open_file(&w, "gne-gen-refusals.pcap");
    /* the game differs: an ordinary refusal */
    big = 0;
    conn_open(&k, &w, 1, 50301, 5103);
    request("client game", 2, 0, 0); c2s(&k);
    refusal(7, "server game", 2); s2c(&k);
    conn_close(&k);
    /* everything matches, refused anyway (server full) */
    conn_open(&k, &w, 1, 50302, 5103);
    request("same game", 2, 0, 0); c2s(&k);
    refusal(7, "same game", 2); s2c(&k);
    conn_close(&k);
    /* a little-endian client against a big-endian server (gnelib 0.70):
       the server reads build 7 as 1792 and refuses */
    conn_open(&k, &w, 1, 50303, 5103);
    request("same game", 2, 0, 0); c2s(&k);
    big = 1;
    refusal(7, "same game", 2); s2c(&k);
    big = 0;
    conn_close(&k);
    /* the user version differs */
    conn_open(&k, &w, 1, 50304, 5103);
    request("same game", 2, 0, 0); c2s(&k);
    refusal(7, "same game", 3); s2c(&k);
    conn_close(&k);
    pw_close(&w);
}

static void gen_malformed(void)
{
    pcapw w;
    conn k;
    open_file(&w, "gne-gen-malformed.pcap");
    big = 0;

    /* handshake faults: a 47-byte request, a 10-byte accept, ports out of range */
    conn_open(&k, &w, 1, 50401, 5104);
    request("short", 1, 0, 1); m.n = 47; c2s_one_segment(&k); /* found by its "GNE" */
    accept_msg(0, 70000); m.n = 10; s2c(&k);
    conn_close(&k);
    conn_open(&k, &w, 1, 50402, 5104);
    handshake(&k, "ports", 1, 70000, 0);
    conn_close(&k);
    conn_open(&k, &w, 1, 50403, 5104);
    request("ports", 1, 0, 1); c2s(&k);
    accept_msg(0, 41005); s2c(&k);
    port_msg(-5); c2s(&k);
    conn_close(&k);
    /* the port message of the wrong length; a reply that is not GNE */
    conn_open(&k, &w, 1, 50404, 5104);
    request("ports", 1, 0, 1); c2s(&k);
    accept_msg(0, 41006); s2c(&k);
    b_reset(&m); u32(41007); u8(255); c2s(&k);
    conn_close(&k);
    conn_open(&k, &w, 1, 50405, 5104);
    request("reply", 1, 0, 0); c2s(&k);
    b_reset(&m); raw("HTTP/1.0 400\r\n"); s2c(&k);
    conn_close(&k);

    /* message faults on one connection */
    conn_open(&k, &w, 1, 50406, 5104);
    handshake(&k, "faults", 0, -1, 0);
    b_reset(&m); u8(9); u8(1); u8(2); u8(255); c2s(&k);                 /* reserved id */
    b_reset(&m); u8(0); u8(2); c2s(&k);                                 /* no 255 */
    b_reset(&m); u8(1); u16(600);                                        /* 605 bytes */
    for (int i = 0; i < 600; i++) u8((unsigned)i & 0x7f);
    u8(255); c2s(&k);
    b_reset(&m); u8(1); u16(50); raw("short"); u8(255); c2s(&k);        /* custom runs past */
    b_reset(&m); u8(4); u32(3); u32(0); c2s(&k);                        /* truncated ping */
    b_reset(&m); u8(2); u8(255); raw("junk"); c2s(&k);                  /* after the 255 */
    b_reset(&m);                                                          /* 9 wrappers */
    for (int i = 0; i < 9; i++) u8(5);
    u8(0); for (int i = 0; i < 9; i++) { u8(1); u8(2); } u8(255); s2c(&k);
    b_reset(&m); ping(4, 0, 0, 0, 0); u8(255); c2s(&k);
    b_reset(&m); ping(4, T0, 1000000, T0, 5); u8(255); s2c(&k);          /* usec, T2 > T3 */
    b_reset(&m); ping(4, T0, 1, T0, 2); u8(255); s2c(&k);               /* answered twice */
    b_reset(&m); ping(99, T0, 1, T0, 2); u8(255); s2c(&k);              /* never asked */
    b_reset(&m); u8(5); c2s(&k);                                         /* channel, nothing */
    conn_close(&k);

    /* framing faults: garbage, then resynchronised; an oversized NL length */
    conn_open(&k, &w, 1, 50407, 5104);
    handshake(&k, "framing", 0, -1, 0);
    {
        const uint8_t junk[] = {'x', 'y', 'z', 0, 1, 2, 'N', 'L', 0, 2, 2, 255};
        seg(&k, 0, junk, sizeof junk);
        const uint8_t huge[] = {'N', 'L', 0x50, 0x00, 1, 2, 3, 4};
        seg(&k, 1, huge, sizeof huge);
        const uint8_t next[] = {'N', 'L', 0, 2, 0, 255};
        seg(&k, 1, next, sizeof next);
    }
    conn_close(&k);
    pw_close(&w);
}

/* the same little-endian traffic with the handshake not captured: only
   found with a port given (--port gne=5105 / -d tcp.port==5105,gne) */
static void gen_midstream(void)
{
    pcapw w;
    conn k;
    open_file(&w, "gne-gen-midstream.pcap");
    big = 0;
    k = (conn){&w, 1, 50501, 5105, 77777, 88888};
    b_reset(&m); ping(5, 0, 0, 0, 0); u8(255); c2s(&k);
    b_reset(&m); ping(5, T0, 10, T0, 20); u8(255); s2c(&k);
    b_reset(&m); custom("no handshake"); u8(255); c2s(&k);
    conn_close(&k);
    pw_close(&w);
}

/* ---- one capture per behaviour rule (captures/rules/RULE.pcap) ---------- */

static pcapw rw;
static conn rk;

static void rule_open(const char *rule)
{
    pw_open_rule(&rw, outdir, rule);
    big = 0;
    conn_open(&rk, &rw, 1, 50900, 5109);
}

static void rule_close(void)
{
    conn_close(&rk);
    pw_close(&rw);
}

static void custom_msg(const char *data) { b_reset(&m); custom(data); u8(255); }

static void rule_captures(void)
{
    /* an accept of 13 bytes */
    rule_open("gne.handshake.bad_length");
    request("rules", 1, 6400, 0); c2s(&rk);
    accept_msg(12800, -1); u8(0); s2c(&rk);
    rule_close();

    /* the client sends before the server has answered */
    rule_open("gne.handshake.out_of_order");
    request("rules", 1, 6400, 0); c2s(&rk);
    custom_msg("early"); c2s(&rk);
    accept_msg(12800, -1); s2c(&rk);
    rule_close();

    /* refused although every version field matches */
    rule_open("gne.refusal.versions_match");
    request("rules", 1, 6400, 0); c2s(&rk);
    refusal(7, "rules", 1); s2c(&rk);
    rule_close();

    /* no UDP link requested, yet the accept offers port 41000 */
    rule_open("gne.udp_port.unexpected");
    request("rules", 1, 6400, 0); c2s(&rk);
    accept_msg(12800, 41000); s2c(&rk);
    rule_close();

    /* a message without its 255 */
    rule_open("gne.message.unterminated");
    handshake(&rk, "rules", 0, -1, 0);
    b_reset(&m); custom("no end"); c2s(&rk);
    rule_close();

    /* a 604-byte message */
    rule_open("gne.message.too_long");
    handshake(&rk, "rules", 0, -1, 0);
    {
        char big_data[601];
        memset(big_data, 'x', 600);
        big_data[600] = '\0';
        custom_msg(big_data); c2s(&rk);
    }
    rule_close();

    /* the client sends a message after its ExitPacket */
    rule_open("gne.exit.not_last");
    handshake(&rk, "rules", 0, -1, 0);
    b_reset(&m); u8(2); u8(255); c2s(&rk);
    custom_msg("after exit"); c2s(&rk);
    rule_close();

    /* a ping reply received (T2) after it was sent (T3) */
    rule_open("gne.ping.t2_after_t3");
    handshake(&rk, "rules", 0, -1, 0);
    b_reset(&m); ping(0, 0, 0, 0, 0); u8(255); c2s(&rk);
    b_reset(&m); ping(0, T0, 500, T0, 200); u8(255); s2c(&rk);
    rule_close();

    /* the client accepts 1000 bytes per second; the server sends four
       488-byte frames within a few milliseconds */
    rule_open("gne.rate.exceeded");
    request("rules", 1, 1000, 0); c2s(&rk);
    accept_msg(0, -1); s2c(&rk);
    {
        char data[481];
        memset(data, 'r', 480);
        data[480] = '\0';
        for (int i = 0; i < 4; i++) {
            custom_msg(data); s2c(&rk);
        }
    }
    rule_close();

    /* the client pings with id 3 twice before the answer */
    rule_open("gne.ping.id_reused");
    handshake(&rk, "rules", 0, -1, 0);
    b_reset(&m); ping(3, 0, 0, 0, 0); u8(255); c2s(&rk);
    b_reset(&m); ping(3, 0, 0, 0, 0); u8(255); c2s(&rk);
    b_reset(&m); ping(3, T0, 100, T0, 200); u8(255); s2c(&rk);
    rule_close();

    /* the client sends its ExitPacket over the UDP link */
    rule_open("gne.packet.not_reliable");
    handshake(&rk, "rules", 1, 41100, 41101);
    b_reset(&m); u8(2); u8(255); udp(&rk, 0, 41101, 41100);
    rule_close();

    /* a game name whose padding is not all zero */
    rule_open("gne.game_name.padding");
    request("rules", 1, 6400, 0);
    m.p[7 + 10] = 'x'; /* after "rules" and its NUL */
    c2s(&rk);
    accept_msg(12800, -1); s2c(&rk);
    rule_close();

    /* the text's guint8 length against gnelib's u16 (a CustomPacket), and
       big-endian data: a warning under spec, a note under reference */
    rule_open("gne.custom.length_not_text");
    handshake(&rk, "rules", 0, -1, 0);
    custom_msg("data"); c2s(&rk);
    rule_close();
    rule_open("gne.divergence.custom_length");
    handshake(&rk, "rules", 0, -1, 0);
    custom_msg("data"); c2s(&rk);
    rule_close();
    rule_open("gne.data.big_endian");
    big = 1;
    handshake(&rk, "rules", 0, -1, 0);
    rule_close();
    rule_open("gne.divergence.big_endian");
    big = 1;
    handshake(&rk, "rules", 0, -1, 0);
    rule_close();
}

int main(int argc, char **argv)
{
    static void (*const sections[])(void) = {
        gen_little, gen_big, gen_refusals, gen_malformed, gen_midstream, rule_captures, NULL};
    return pw_run(argc, argv, outdir, sizeof outdir, sections);
}
