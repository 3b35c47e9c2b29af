/* gen_eoudp.c - writes the generated EOUDP test captures into a folder.
 *
 * Datagrams are built by hand from docs/wire-facts.md section 4
 * and EOUDP text: the four header generations (21 bytes; 22 with a pad byte;
 * 22 with `important` before `size`; 26 with an f64 timestamp), header
 * fields big-endian as the implementation writes them (or little-endian,
 * a reading the text allows), payloads little-endian.
 * Deterministic: tests compare the output byte for byte with captures/.
 *
 * Usage: gen_eoudp OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapw.h"

enum { RFC = 21, PAD = 22, IMP = 23, F64 = 26 }; /* header generations */

static char outdir[512];
static pcapw w;
static bytes pl;  /* the payload being built */
static bytes dg;  /* the datagram */

typedef struct {
    int gen, big;            /* header generation and byte order */
    int client, server;      /* hosts */
    uint16_t cport, sport;
    uint64_t id[2];          /* next id: [0] client, [1] server */
    int twice;               /* the Dec 2023 build: every datagram sent twice */
    int seconds;             /* header timestamps in seconds, as the text says */
    /* the implementation's packet-info counters, per endpoint (0 client,
       1 server): both reset when the endpoint sends a packet info (which
       then counts as sent) and when it receives one (after counting it) */
    int32_t sent[2], received[2];
} session;

/* ---- payloads (little-endian) ---- */

static void p_reset(void) { b_reset(&pl); }
static void p_u8(unsigned v) { b_u8(&pl, v); }
static void p_u32(uint32_t v) { b_u32(&pl, v); }
static void p_u64(uint64_t v) { b_u64(&pl, v); }
static void p_str(const char *s) { p_u32((uint32_t)strlen(s)); b_raw(&pl, s, strlen(s)); }
static void p_strz(const char *s) /* the text's form: NUL included in the length */
{
    p_u32((uint32_t)strlen(s) + 1);
    b_raw(&pl, s, strlen(s) + 1);
}
static void p_raw(const void *p, size_t n) { b_raw(&pl, p, n); }

/* ---- header ---- */

static void h_num(const session *s, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        int shift = s->big ? 8 * (n - 1 - i) : 8 * i;
        b_u8(&dg, (unsigned)(v >> shift) & 0xff);
    }
}

/* the sender's clock: milliseconds since the epoch (an f32 in the older
   generations, so it moves in steps of 131 s) */
static void h_time(const session *s)
{
    double ms = s->seconds ? (double)(w.t_us / 1000000) : (double)(w.t_us / 1000);
    if (s->gen == F64) {
        uint64_t u;
        memcpy(&u, &ms, 8);
        h_num(s, u, 8);
    } else {
        float f = (float)ms;
        uint32_t u;
        memcpy(&u, &f, 4);
        h_num(s, u, 4);
    }
}

/* header with a given size field (normally the payload length) */
static void header(const session *s, unsigned cmd, uint64_t id, int important, uint64_t size)
{
    b_reset(&dg);
    b_u8(&dg, cmd);
    h_time(s);
    h_num(s, id, 8);
    if (s->gen == IMP || s->gen == F64)
        b_u8(&dg, important ? 1 : 0);
    h_num(s, size, 8);
    if (s->gen == PAD)
        b_u8(&dg, 0);
}

static void put(session *s, int from_server)
{
    for (int k = 0; k < (s->twice ? 2 : 1); k++) {
        if (from_server)
            pw_udp(&w, s->server, s->sport, s->client, s->cport, dg.p, dg.n);
        else
            pw_udp(&w, s->client, s->cport, s->server, s->sport, dg.p, dg.n);
        pw_advance(&w, 150);
    }
}

static void count(session *s, int from_server, unsigned cmd)
{
    int to = !from_server;
    if (cmd == 0x00) {
        s->sent[from_server] = 1;
        s->received[from_server] = 0;
        s->sent[to] = s->received[to] = 0;
    } else {
        s->sent[from_server]++;
        s->received[to]++;
    }
}

/* a datagram with the current payload and a given id (a copy sent twice
   counts once) */
static uint64_t send_id(session *s, int from_server, unsigned cmd, int important, uint64_t id)
{
    header(s, cmd, id, important, pl.n);
    b_raw(&dg, pl.p, pl.n);
    put(s, from_server);
    count(s, from_server, cmd);
    return id;
}

/* a datagram lost before the capture point: its id is used, the sender
   counts it, nobody sees it */
static void lose(session *s, int from_server)
{
    s->id[from_server]++;
    s->sent[from_server]++;
}

static uint64_t send(session *s, int from_server, unsigned cmd, int important)
{
    return send_id(s, from_server, cmd, important, s->id[from_server]++);
}

/* ---- commands ---- */

static void ack(session *s, int from_server, uint64_t id)
{
    p_reset(); p_u64(id);
    send(s, from_server, 0x01, 0);
}

/* packet info with the sender's true counters */
static void info(session *s, int from_server)
{
    p_reset(); p_u32((uint32_t)s->received[from_server]); p_u32((uint32_t)s->sent[from_server]);
    send(s, from_server, 0x00, 0);
}

static uint64_t component(session *s, uint64_t entity, const char *name, const char *content,
                          int important)
{
    p_reset(); p_u64(entity); p_str(name); p_u32((uint32_t)strlen(content));
    p_raw(content, strlen(content));
    return send(s, 1, 0x0c, important);
}

static uint64_t event(session *s, int from_server, unsigned cmd, uint32_t code, int pressed,
                      int important)
{
    p_reset(); p_u32(code); p_u8(pressed ? 1 : 0);
    return send(s, from_server, cmd, important);
}

/* must the receiver acknowledge? The header flag where there is one; else
   the text's "MUST get an acknowledge" list (21 bytes) or the Dec 2023
   build's important commands (0x0c, 0x0e, 0x0f) */
static int needs_ack(const session *s, unsigned cmd, int important)
{
    if (s->gen == IMP || s->gen == F64)
        return important;
    if (s->gen == RFC)
        return (cmd >= 0x0b && cmd <= 0x10) || cmd == 0x81 || cmd == 0x8c;
    return cmd == 0x0c || cmd == 0x0e || cmd == 0x0f;
}

static void answer(session *s, int from_server, unsigned cmd, int important, uint64_t id)
{
    if (needs_ack(s, cmd, important))
        ack(s, from_server, id);
}

static void open_capture(const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    pw_open(&w, path, LT_ETH, 0);
}

/* connect, its acknowledge, accept; the text's connect carries
   [Timestamp][Id] */
static void handshake(session *s, uint64_t player)
{
    p_reset();
    if (s->gen == RFC) {
        float f = (float)(double)(w.t_us / 1000);
        uint32_t u;
        memcpy(&u, &f, 4);
        p_u32(u);
        p_u64(7); /* the server to connect to */
    }
    /* important in the header generations that carry the flag, as HEAD */
    uint64_t c = send(s, 0, 0x81, 1);
    pw_advance(&w, 300);
    answer(s, 1, 0x81, 1, c);
    p_reset(); p_u64(player);
    send(s, 1, 0x02, 0);
}

/* every command of the implementation's numbering, both directions */
static void full_session(session *s)
{
    int flag = s->gen == IMP || s->gen == F64; /* the header says important */
    handshake(s, 3);
    pw_advance(&w, 1000);
    p_reset(); p_str("PhysicsSystem");
    uint64_t a = send(s, 1, 0x0b, flag);
    p_reset(); p_str("GameStart");
    uint64_t b = send(s, 1, 0x0d, flag);
    uint64_t c = component(s, 42, "TransformComponent", "\x01\x02\x03\x04", flag);
    uint64_t d = component(s, 42, "Health", "\x64\x00\x00\x00", 0);
    pw_advance(&w, 400);
    answer(s, 0, 0x0b, flag, a);
    answer(s, 0, 0x0d, flag, b);
    answer(s, 0, 0x0c, flag, c);
    answer(s, 0, 0x0c, 0, d);
    event(s, 0, 0x8b, 262, 1, 0);
    event(s, 0, 0x8b, 262, 0, 0);
    uint64_t e = event(s, 1, 0x10, 32, 1, flag);
    answer(s, 0, 0x10, flag, e);
    info(s, 1);
    p_reset(); p_u64(42);
    uint64_t f = send(s, 1, 0x0e, flag);
    answer(s, 0, 0x0e, flag, f);
    p_reset(); p_u64(43); p_str("Health");
    uint64_t g = send(s, 1, 0x0f, flag);
    answer(s, 0, 0x0f, flag, g);
    info(s, 0);
    pw_advance(&w, 2000);
    p_reset();
    send(s, 0, 0x82, 0);
}

static void generations(void)
{
    open_capture("eoudp-gen-generations.pcap");
    /* the text's 21-byte header, read little-endian (the text names no order) */
    session rfc = {.gen = RFC, .big = 0, .client = 1, .server = 2, .cport = 8083, .sport = 8082};
    full_session(&rfc);
    pw_advance(&w, 200000);
    /* Dec 2023: pad byte, every datagram twice */
    session pad = {.gen = PAD, .big = 1, .client = 3, .server = 2, .cport = 8083, .sport = 8082,
                   .twice = 1};
    full_session(&pad);
    pw_advance(&w, 200000);
    /* 1-8 Jan 2024: important before size */
    session imp = {.gen = IMP, .big = 1, .client = 4, .server = 2, .cport = 8083, .sport = 8082};
    full_session(&imp);
    pw_advance(&w, 200000);
    /* from 8 Jan 2024: f64 timestamp */
    session f64 = {.gen = F64, .big = 1, .client = 5, .server = 2, .cport = 8083, .sport = 8082};
    full_session(&f64);
    pw_advance(&w, 200000);
    /* a refused client, on a port found only by the heuristic */
    session rej = {.gen = F64, .big = 1, .client = 6, .server = 2, .cport = 40001, .sport = 40000};
    p_reset();
    uint64_t c = send(&rej, 0, 0x81, 1);
    ack(&rej, 1, c);
    p_reset();
    send(&rej, 1, 0x03, 0);
    pw_close(&w);
}

/* the text's numbering: 0x10 deleted component (with content), 0x11
   events, 0x8a key events, 0x8c important events */
static void text_numbering(void)
{
    open_capture("eoudp-gen-text-numbering.pcap");
    session s = {.gen = RFC, .big = 1, .client = 1, .server = 2, .cport = 8083, .sport = 8082};
    handshake(&s, 1);
    p_reset(); p_u64(9); p_str("Sprite"); p_u32(2); p_raw("\xaa\xbb", 2);
    uint64_t a = send(&s, 1, 0x10, 0);
    ack(&s, 0, a);
    p_reset(); p_u32(77);
    send(&s, 1, 0x11, 0);
    event(&s, 0, 0x8a, 265, 1, 0);
    uint64_t b = event(&s, 0, 0x8c, 32, 0, 0);
    ack(&s, 1, b);
    pw_close(&w);
}

/* acknowledgements lost, late, doubled and unknown; ids lost and
   reordered; packet info that disagrees with the capture */
static void lost_acks(void)
{
    open_capture("eoudp-gen-lost-acks.pcap");
    session s = {.gen = F64, .big = 1, .client = 1, .server = 2, .cport = 8083, .sport = 8082};
    handshake(&s, 1);
    pw_advance(&w, 10000);
    uint64_t a = component(&s, 1, "TagComponent", "hero", 1);       /* acked at once */
    uint64_t b = component(&s, 1, "TransformComponent", "xy", 1);   /* ack lost, resent */
    uint64_t c = component(&s, 2, "TagComponent", "enemy", 1);      /* never acked */
    pw_advance(&w, 2000);
    ack(&s, 0, a);
    pw_advance(&w, 500000);
    /* the resend keeps its id (and timestamp: rebuilt here with the old id) */
    p_reset(); p_u64(1); p_str("TransformComponent"); p_u32(2); p_raw("xy", 2);
    send_id(&s, 1, 0x0c, 1, b);
    pw_advance(&w, 3000);
    ack(&s, 0, b);
    ack(&s, 0, b);           /* twice: the second answers nothing */
    ack(&s, 0, 99);          /* an id the server never sent */
    /* the client's important event, acknowledged late by the server */
    uint64_t d = event(&s, 0, 0x8b, 32, 1, 1);
    pw_advance(&w, 250000);
    ack(&s, 1, d);
    /* a datagram lost before the capture point: the server counts it */
    lose(&s, 1);
    p_reset(); p_u64(2);
    uint64_t e = send(&s, 1, 0x0e, 1);
    /* two datagrams seen in the wrong order */
    uint64_t late = s.id[0]++;
    event(&s, 0, 0x8b, 263, 1, 0);
    s.id[0] = late;
    event(&s, 0, 0x8b, 263, 0, 0);
    s.id[0] = late + 2;
    ack(&s, 0, e);
    /* the server counts the lost datagram (packet info resets both sides'
       counters, so each loss shows in the next info of the side that knows) */
    info(&s, 1);
    /* dropped after the capture point: seen, but the client never gets it */
    p_reset(); p_u64(3);
    send(&s, 1, 0x0e, 0);
    s.received[0]--;
    info(&s, 0);
    (void)c;
    pw_close(&w);
}

/* datagrams whose fields lie: every one a finding, none an over-read */
static void malformed(void)
{
    open_capture("eoudp-gen-malformed.pcap");
    session s = {.gen = F64, .big = 1, .client = 1, .server = 2, .cport = 8083, .sport = 8082};
    handshake(&s, 1);
    /* size field says more than there is */
    p_reset(); p_u64(5);
    header(&s, 0x0e, s.id[1]++, 0, 200);
    b_raw(&dg, pl.p, pl.n);
    put(&s, 1);
    /* size field says less than there is */
    p_reset(); p_u64(5); p_u64(6);
    header(&s, 0x0e, s.id[1]++, 0, 8);
    b_raw(&dg, pl.p, pl.n);
    put(&s, 1);
    /* size 2^64-1 */
    p_reset();
    header(&s, 0x03, s.id[1]++, 0, UINT64_MAX);
    put(&s, 1);
    /* a component name longer than the datagram */
    p_reset(); p_u64(1); p_u32(1000); p_raw("Tag", 3);
    send(&s, 1, 0x0c, 0);
    /* content length past the end */
    p_reset(); p_u64(1); p_str("Tag"); p_u32(0xffffffff); p_raw("ab", 2);
    send(&s, 1, 0x0c, 0);
    /* a string length cut off (2 of its 4 bytes) */
    p_reset(); p_u8(4); p_u8(0);
    send(&s, 1, 0x0b, 0);
    /* entity cut off */
    p_reset(); p_u32(5);
    send(&s, 1, 0x0e, 0);
    /* the text's NUL-terminated strings */
    p_reset(); p_strz("PhysicsSystem");
    send(&s, 1, 0x0b, 0);
    p_reset(); p_u64(1); p_strz("Tag"); p_u32(1); p_raw("x", 1);
    send(&s, 1, 0x0c, 0);
    /* bytes after the fields */
    p_reset(); p_u64(7); p_raw("\xde\xad", 2);
    send(&s, 1, 0x0e, 0);
    /* a code no generation defines */
    p_reset(); p_raw("\x01\x02\x03", 3);
    send(&s, 1, 0x42, 0);
    /* packet info with one counter */
    p_reset(); p_u32(3);
    header(&s, 0x00, s.id[0]++, 0, pl.n);
    b_raw(&dg, pl.p, pl.n);
    put(&s, 0);
    /* acknowledge of 3 bytes */
    p_reset(); p_raw("\x01\x00\x00", 3);
    send(&s, 0, 0x01, 0);
    /* wrong sides: the server sends a client command, the client a server one */
    event(&s, 1, 0x8b, 1, 1, 0);
    p_reset(); p_u64(1);
    send(&s, 0, 0x02, 0);
    /* a datagram shorter than any header */
    b_reset(&dg);
    b_raw(&dg, "\x0e\x42\x79\x00\x00\x00\x00\x00\x00\x01", 10);
    put(&s, 1);
    /* the conversation goes on */
    p_reset(); p_u64(8);
    send(&s, 1, 0x0e, 0);
    pw_close(&w);
}

/* ---- one capture per behaviour rule: a clean session that breaks that
   rule once (pcaptool validate must report it and nothing else) ---- */

static session rule_session(const char *code)
{
    pw_open_rule(&w, outdir, code);
    session s = {.gen = F64, .big = 1, .client = 1, .server = 2, .cport = 8083, .sport = 8082};
    return s;
}

static void rule_captures(void)
{
    session s;
    /* a deleted entity before any connect */
    s = rule_session("eoudp.connect.not_first");
    p_reset(); p_u64(5);
    send(&s, 1, 0x0e, 0);
    pw_close(&w);
    /* an important component never acknowledged */
    s = rule_session("eoudp.ack.missing");
    handshake(&s, 1);
    component(&s, 7, "Tag", "x", 1);
    pw_close(&w);
    /* the server skips an id */
    s = rule_session("eoudp.id.gap");
    handshake(&s, 1);
    s.id[1]++;
    p_reset(); p_u64(5);
    send(&s, 1, 0x0e, 0);
    pw_close(&w);
    /* the server's id goes back */
    s = rule_session("eoudp.id.reordered");
    handshake(&s, 1);
    p_reset(); p_u64(5);
    send(&s, 1, 0x0e, 0);
    s.id[1] -= 2;
    p_reset(); p_u64(6);
    send(&s, 1, 0x0e, 0);
    pw_close(&w);
    /* the client sends a server command (not an entity command: the real
       client sends those, eoudp.divergence.client_entities) */
    s = rule_session("eoudp.command.wrong_side");
    handshake(&s, 1);
    p_reset();
    send(&s, 0, 0x03, 0);
    pw_close(&w);
    /* a connect the server answers with an ack, but neither accepts nor rejects */
    s = rule_session("eoudp.connect.unanswered");
    {
        uint64_t c = send(&s, 0, 0x81, 1);
        pw_advance(&w, 300);
        answer(&s, 1, 0x81, 1, c);
    }
    pw_close(&w);
    /* a disconnect the server does not answer with 0x11 (profile spec) */
    s = rule_session("eoudp.disconnect.unanswered");
    s.gen = RFC;
    s.seconds = 1;
    handshake(&s, 1);
    p_reset();
    send(&s, 0, 0x82, 0);
    pw_close(&w);
    /* the client deletes an entity, as the R-Type client does */
    s = rule_session("eoudp.divergence.client_entities");
    handshake(&s, 1);
    p_reset(); p_u64(5);
    send(&s, 0, 0x0e, 0);
    pw_close(&w);
    /* a size field one short of the payload */
    s = rule_session("eoudp.size.mismatch");
    handshake(&s, 1);
    p_reset(); p_u64(5);
    header(&s, 0x0e, s.id[1]++, 0, 7);
    b_raw(&dg, pl.p, pl.n);
    put(&s, 1);
    pw_close(&w);

    /* where the implementation and the text differ, one difference per
       capture: warnings under --profile spec, notes under reference */
    static const struct {
        const char *spec_rule, *note_rule;
        int gen, seconds, string;
    } diff[] = {
        {"eoudp.header.not_text", "eoudp.divergence.header", F64, 1, 0},
        {"eoudp.timestamp.milliseconds", "eoudp.divergence.timestamp", RFC, 0, 0},
        {"eoudp.string.not_nul_terminated", "eoudp.divergence.strings", RFC, 1, 1},
    };
    for (size_t i = 0; i < sizeof diff / sizeof diff[0]; i++)
        for (int profile = 0; profile < 2; profile++) {
            s = rule_session(profile ? diff[i].spec_rule : diff[i].note_rule);
            s.gen = diff[i].gen;
            s.seconds = diff[i].seconds;
            handshake(&s, 1);
            if (diff[i].string) {
                ack(&s, 0, component(&s, 7, "Tag", "x", 1)); /* the text: MUST be acknowledged */
            } else {
                p_reset(); p_u64(5);
                ack(&s, 0, send(&s, 1, 0x0e, 1)); /* important: acknowledged */
            }
            pw_close(&w);
        }
}

int main(int argc, char **argv)
{
    static void (*const sections[])(void) = {generations, text_numbering, lost_acks, malformed, rule_captures, NULL};
    return pw_run(argc, argv, outdir, sizeof outdir, sections);
}
