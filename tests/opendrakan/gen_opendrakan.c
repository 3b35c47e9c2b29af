/* gen_opendrakan.c - writes the generated OpenDrakan test captures into a folder.
 *
 * Packets are built by hand from docs/wire-facts.md section 5
 * (what Zalasus/opendrakan's PacketBuilder writes) and the OpenDrakan draft (the
 * draft): type u8, payload length u16 LE, payload; numbers little-endian,
 * ticks 8 bytes. The project's transport: reliable packets on TCP,
 * unreliable ones (2, 3, 4, 8) on UDP, port 27046 for both.
 * Deterministic: tests compare the output byte for byte with captures/.
 *
 * Usage: gen_opendrakan OUTDIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapw.h"

enum { SERVER = 2, CLIENT = 1, SPORT = 27046, CPORT = 50001 };
enum { DOWN = 1, UP = 0 }; /* DOWN: server to client */
enum { SYN = 0x02, ACK = 0x10, PSH = 0x08, FIN = 0x01 };
enum { BYTES = 1, PACKED = 2 }; /* boolean encodings */

static char outdir[512];
static pcapw w;
static bytes pl; /* the payload being built */
static bytes dg; /* the packets of the next datagram or segment */
static uint32_t seq[2]; /* next TCP sequence number: [UP] client, [DOWN] server */

static void open_capture(const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    pw_open(&w, path, LT_ETH, 0);
}

/* ---- packets ---- */

static void p_reset(void) { b_reset(&pl); }
static void p_u8(unsigned v) { b_u8(&pl, v); }
static void p_u16(unsigned v) { b_u16(&pl, v); }
static void p_u32(uint32_t v) { b_u32(&pl, v); }
static void p_u64(uint64_t v) { b_u64(&pl, v); }
static void p_f32(float v) { b_f32(&pl, v); }
static void p_f64(double v) { b_f64(&pl, v); }
static void p_str(const char *s) { b_raw(&pl, s, strlen(s)); } /* raw, to the end */

/* the payload built so far as a packet of `type`, appended to dg */
static void pk(unsigned type)
{
    b_u8(&dg, type);
    b_u16(&dg, (unsigned)pl.n);
    b_raw(&dg, pl.p, pl.n);
    p_reset();
}

/* a packet header with a length that lies */
static void pk_len(unsigned type, unsigned len)
{
    b_u8(&dg, type);
    b_u16(&dg, len);
    b_raw(&dg, pl.p, pl.n);
    p_reset();
}

/* ---- transport ---- */

static void udp(int dir)
{
    if (dir == DOWN)
        pw_udp(&w, SERVER, SPORT, CLIENT, CPORT, dg.p, dg.n);
    else
        pw_udp(&w, CLIENT, CPORT, SERVER, SPORT, dg.p, dg.n);
    b_reset(&dg);
}

static void tcp_raw(int dir, const uint8_t *d, size_t n)
{
    if (dir == DOWN)
        pw_tcp(&w, SERVER, SPORT, CLIENT, CPORT, seq[DOWN], seq[UP], PSH | ACK, d, n);
    else
        pw_tcp(&w, CLIENT, CPORT, SERVER, SPORT, seq[UP], seq[DOWN], PSH | ACK, d, n);
    seq[dir] += (uint32_t)n;
}

/* the packets in dg as one segment, or cut at the given offsets */
static void tcp(int dir) { tcp_raw(dir, dg.p, dg.n); b_reset(&dg); }
static void tcp_cut(int dir, const size_t *cuts, int n_cuts)
{
    size_t at = 0;
    for (int i = 0; i <= n_cuts; i++) {
        size_t end = i < n_cuts ? cuts[i] : dg.n;
        tcp_raw(dir, dg.p + at, end - at);
        at = end;
    }
    b_reset(&dg);
}

static void tcp_open(void)
{
    seq[UP] = 7000;
    seq[DOWN] = 90000;
    pw_tcp(&w, CLIENT, CPORT, SERVER, SPORT, seq[UP], 0, SYN, NULL, 0);
    pw_tcp(&w, SERVER, SPORT, CLIENT, CPORT, seq[DOWN], seq[UP] + 1, SYN | ACK, NULL, 0);
    seq[UP]++;
    seq[DOWN]++;
    pw_tcp(&w, CLIENT, CPORT, SERVER, SPORT, seq[UP], seq[DOWN], ACK, NULL, 0);
}

static void tcp_close(void)
{
    pw_tcp(&w, CLIENT, CPORT, SERVER, SPORT, seq[UP], seq[DOWN], FIN | ACK, NULL, 0);
    pw_tcp(&w, SERVER, SPORT, CLIENT, CPORT, seq[DOWN], seq[UP] + 1, FIN | ACK, NULL, 0);
    pw_tcp(&w, CLIENT, CPORT, SERVER, SPORT, seq[UP] + 1, seq[DOWN] + 1, ACK, NULL, 0);
}

/* ---- payloads ---- */

static void gref(unsigned asset, uint32_t db) { p_u16(asset); p_u32(db); }

static void db_entry(uint32_t index, const char *path) { p_u32(index); p_str(path); pk(0); }
static void load_level(uint32_t n_db, const char *path) { p_u32(n_db); p_str(path); pk(1); }

static void confirm(uint64_t tick, double realtime, uint32_t changes, uint64_t ref)
{
    p_u64(tick); p_f64(realtime); p_u32(changes); p_u64(ref);
    pk(4);
}

static void acknowledge(uint64_t tick) { p_u64(tick); pk(8); }

/* A state bundle of ObjectStates (position, rotation, scale, visible,
   running) as the reference's writer puts it: value and jump mask of the
   one group, then the present states in order; booleans one byte each
   (master) or the present ones packed LSB-first into one byte (net-dev,
   the draft). `k` picks the values. */
static void bundle(unsigned present, unsigned jumps, int bools, int k)
{
    p_u8(present & 0x1f);
    p_u8(jumps & 0x1f);
    if (present & 0x01) { p_f32(k + 0.5f); p_f32(-2.0f * k); p_f32(100.25f); }
    if (present & 0x02) { p_f32(0.0f); p_f32(0.5f); p_f32(-0.5f); p_f32(0.75f); }
    if (present & 0x04) { p_f32(1.0f); p_f32(2.0f + k); p_f32(0.125f); }
    unsigned visible = (k >> 1) & 1, running = (k >> 2) & 1 ? 1 : 0;
    if (bools == BYTES) {
        if (present & 0x08)
            p_u8(visible);
        if (present & 0x10)
            p_u8(running);
    } else if (present & 0x18) {
        unsigned byte = 0, bit = 0;
        if (present & 0x08)
            byte |= visible << bit++;
        if (present & 0x10)
            byte |= running << bit++;
        p_u8(byte);
    }
}

static void states(uint64_t tick, uint32_t object, unsigned present, unsigned jumps, int bools, int k)
{
    p_u64(tick); p_u32(object);
    bundle(present, jumps, bools, k);
    pk(2);
}

static void extra_states(uint64_t tick, uint32_t object, const char *blob, size_t n)
{
    p_u64(tick); p_u32(object);
    b_raw(&pl, blob, n);
    pk(3);
}

/* the global database table: three entries */
static void db_table(void)
{
    db_entry(0, "Common/common.db");
    db_entry(1, "Dragon/dragon.db");
    db_entry(7, "Sounds/sfx.db");
}

static void handshake(const char *level)
{
    tcp_open();
    db_table(); /* in one segment */
    tcp(DOWN);
    /* LOAD_LEVEL in three segments, the first cut inside the header */
    load_level(3, level);
    size_t cuts[] = {2, 9};
    tcp_cut(DOWN, cuts, 2);
}

/* ---- the captures ---- */

/* every reference packet type; the 32 subsets of the five states in both
   boolean encodings, four to a snapshot, each snapshot acknowledged */
static void packets(void)
{
    static const unsigned jump_patterns[] = {0x1f, 0x00, 0x15, 0x0a};
    open_capture("opendrakan-gen-packets.pcap");
    handshake("Dragon/Level3.lvl");
    /* messages and events, two of them sharing a segment */
    p_u32(0x10); p_str("hello"); pk(5);
    p_u32(0x11); pk(5);
    tcp(DOWN);
    p_u32(0x20); p_u32(4660); p_u32(7); p_f64(12.5); p_str("msg"); pk(6);
    tcp(DOWN);
    p_f64(12.75); p_u8(0); p_u32(3); p_u8(1); pk(7);
    tcp(DOWN);
    p_f64(13.0); p_u8(1); p_u32(4660); gref(21, 1); p_u32(0xffffffff); p_f32(1.0f); p_f32(0.0f);
    p_f32(0.25f); p_u8(0x00); pk(7);
    p_f64(13.5); p_u8(1); p_u32(4661); gref(300, 7); p_u32(2); p_f32(-1.5f); p_f32(2.0f);
    p_f32(0.5f); p_u8(0x99); pk(7); /* x accumulate, y ignore, z accumulate, ping-pong */
    tcp(DOWN);
    p_f64(14.0); p_u8(1); p_u32(4662); gref(5, 0); p_u32(0); p_f32(1.0f); p_f32(0.0f);
    p_f32(0.0f); p_u8(0x64); pk(7); /* x normal, y accumulate, z ignore, looping */
    tcp(DOWN);
    p_f64(14.5); p_u8(2); p_u32(4660); p_u32(4661); p_u32(0xfffffffe); pk(7);
    tcp(DOWN);
    /* the client's input: begin, repeat and end of an action, an analog
       action, the last two sharing a segment */
    p_u32(3); p_u8(0); pk(9);
    tcp(UP);
    p_u32(3); p_u8(2); pk(9);
    tcp(UP);
    p_u32(3); p_u8(1); pk(9);
    p_u32(0xffffffff); p_f32(0.5f); p_f32(-1.0f); pk(10);
    tcp(UP);
    /* snapshots */
    uint64_t tick = 100, acked = 0;
    for (int bools = BYTES; bools <= PACKED; bools++) {
        for (int k = 0; k < 32; k += 4) {
            for (int i = k; i < k + 4; i++)
                states(tick, 1000 + (uint32_t)i, (unsigned)i, (unsigned)i & jump_patterns[i % 4],
                       bools, i);
            confirm(tick, (double)tick / 60.0, 4, acked);
            udp(DOWN);
            acknowledge(tick);
            udp(UP);
            acked = tick++;
        }
    }
    /* an extra-states change and a state change with a second, empty mask
       pair (0x80 set: the master writer's trailing pair), one snapshot */
    extra_states(tick, 1000, "\x01\x00\x2a\x00\x00\x00", 6);
    p_u64(tick); p_u32(1001);
    p_u8(0x81); p_u8(0x01); p_f32(1.0f); p_f32(2.0f); p_f32(3.0f); p_u8(0); p_u8(0);
    pk(2);
    confirm(tick, (double)tick / 60.0, 2, acked);
    udp(DOWN);
    acknowledge(tick);
    udp(UP);
    tcp_close();
    pw_close(&w);
}

/* snapshot completeness: reordered, lost, doubled and excess parts */
static void snapshots(void)
{
    open_capture("opendrakan-gen-snapshots.pcap");
    handshake("Dragon/Level1.lvl");
    /* tick 10: three changes, then the confirm (full) */
    for (int i = 0; i < 3; i++) {
        states(10, 1 + (uint32_t)i, 0x01, 0x00, BYTES, i);
        udp(DOWN);
    }
    confirm(10, 0.1, 3, 0);
    udp(DOWN);
    acknowledge(10);
    udp(UP);
    /* tick 11: the confirm first (delta against 10), then its two changes */
    confirm(11, 0.2, 2, 10);
    udp(DOWN);
    states(11, 1, 0x02, 0x00, BYTES, 1);
    udp(DOWN);
    extra_states(11, 2, "\x05", 1);
    udp(DOWN);
    acknowledge(11);
    udp(UP);
    /* ticks 12 and 13 interleaved; 13 confirmed before 12 */
    states(12, 1, 0x01, 0x00, BYTES, 2);
    udp(DOWN);
    states(13, 1, 0x01, 0x00, BYTES, 3);
    udp(DOWN);
    confirm(13, 0.4, 2, 11);
    udp(DOWN);
    states(12, 2, 0x18, 0x08, BYTES, 2);
    udp(DOWN);
    confirm(12, 0.3, 2, 11);
    udp(DOWN);
    states(13, 2, 0x18, 0x00, BYTES, 3);
    udp(DOWN);
    acknowledge(13);
    udp(UP);
    acknowledge(12);
    udp(UP);
    /* tick 14: one of three changes lost; the client acknowledges anyway */
    states(14, 1, 0x01, 0x00, BYTES, 4);
    udp(DOWN);
    w.t_us += 1000; /* (the lost change) */
    states(14, 3, 0x04, 0x04, BYTES, 4);
    udp(DOWN);
    confirm(14, 0.5, 3, 13);
    udp(DOWN);
    acknowledge(14);
    udp(UP);
    /* tick 15: the confirm is lost */
    states(15, 1, 0x01, 0x00, BYTES, 5);
    udp(DOWN);
    w.t_us += 1000;
    /* tick 16: delta against 15, which the client never acknowledged
       (nor could: its confirm is lost); one change, the confirm in the same
       datagram */
    states(16, 1, 0x01, 0x01, BYTES, 6);
    confirm(16, 0.7, 1, 15);
    udp(DOWN);
    acknowledge(16);
    udp(UP);
    /* tick 17: four changes for a confirm of three */
    for (int i = 0; i < 4; i++)
        states(17, 1 + (uint32_t)i, 0x10, 0x00, BYTES, i);
    confirm(17, 0.8, 3, 16);
    udp(DOWN);
    /* tick 18: confirmed twice (a copy), complete */
    states(18, 1, 0x08, 0x00, BYTES, 2);
    confirm(18, 0.9, 1, 16);
    udp(DOWN);
    confirm(18, 0.9, 1, 16);
    udp(DOWN);
    acknowledge(18);
    udp(UP);
    /* tick 19: an empty full snapshot (nothing changed) */
    confirm(19, 1.0, 0, 0);
    udp(DOWN);
    /* the client acknowledges a tick the server never confirmed */
    acknowledge(99);
    udp(UP);
    /* tick 20: the confirm arrives, none of its two changes do */
    confirm(20, 1.1, 2, 18);
    udp(DOWN);
    tcp_close();
    pw_close(&w);
}

/* the draft's layouts (decoded with opendrakan.variant=draft): real time in
   messages and input, the draft-only packets (numbered 11-14 in the order
   the draft lists them: created, lifecycle, animation, sound), packed
   booleans, a tick beyond the code's i64 */
static void draft(void)
{
    open_capture("opendrakan-gen-draft.pcap");
    handshake("Dragon/Level2.lvl");
    p_u32(0x10); p_f64(2.5); p_str("draft"); pk(5);
    p_u32(0x20); p_u32(4660); p_u32(7); p_f64(2.75); pk(6);
    /* a sound with the code's 6-byte gref; an animation of object 4660
       with a 4-byte one (asset 12, database 1: u16 each) */
    p_f64(3.0); gref(12, 7); pk(14);
    p_f64(3.1); p_u32(4660); p_u16(12); p_u16(1); p_u32(2); p_f32(0.5f); pk(13);
    tcp(DOWN);
    p_f64(3.25); p_u32(5); p_u8(0); pk(9);
    p_f64(3.5); p_u32(6); p_f32(0.25f); p_f32(0.75f); pk(10);
    tcp(UP);
    /* a snapshot of a created object: created, spawned, running, its states:
       six changes (the draft's created and lifecycle packets carry the tick
       of the snapshot they belong to) */
    p_u64(40); p_u32(5000); p_u32(4660); pk(11);
    for (unsigned s = 1; s <= 2; s++) {
        p_u64(40); p_u32(5000); p_u8(s); pk(12);
    }
    states(40, 5000, 0x1f, 0x18, PACKED, 6);
    states(40, 5001, 0x18, 0x00, PACKED, 6);
    states(40, 5002, 0x10, 0x10, PACKED, 4);
    confirm(40, 0.66, 6, 0);
    udp(DOWN);
    acknowledge(40);
    udp(UP);
    /* destroyed, in the next snapshot, the same datagram as its confirm */
    p_u64(41); p_u32(5000); p_u8(3); pk(12);
    states(41, 5001, 0x09, 0x00, PACKED, 2);
    confirm(41, 0.68, 2, 40);
    udp(DOWN);
    /* a u64 tick with its top bit set */
    states(0x8000000000000001ull, 5001, 0x01, 0x00, PACKED, 1);
    confirm(0x8000000000000001ull, 0.7, 1, 41);
    udp(DOWN);
    tcp_close();
    pw_close(&w);
}

/* packets whose fields lie: every one a finding, none an over-read */
static void malformed(void)
{
    open_capture("opendrakan-gen-malformed.pcap");
    handshake("Dragon/Level1.lvl");
    /* LOAD_LEVEL counting more databases than the table had */
    load_level(5, "Dragon/Level9.lvl");
    tcp(DOWN);
    /* an animation event referring to a database the table lacks, with
       undefined bone mode and playback 3 */
    p_f64(1.0); p_u8(1); p_u32(1); gref(4, 99); p_u32(0); p_f32(1.0f); p_f32(0.0f); p_f32(0.0f);
    p_u8(0xc3); pk(7);
    tcp(DOWN);
    /* an event variant the reference lacks */
    p_f64(1.5); p_u8(3); p_u32(1); pk(7);
    tcp(DOWN);
    /* an ACTION_TRIGGERED cut short, then one with trailing bytes */
    p_u32(3); pk(9);
    p_u32(3); p_u8(0); p_u8(0xee); p_u8(0xff); pk(9);
    tcp(UP);
    /* a reliable packet on UDP, an unreliable one on TCP */
    p_u32(0x10); pk(5);
    udp(DOWN);
    acknowledge(1);
    tcp(UP);
    /* chains: the mask pair missing; 0x80 with no second pair; a state cut
       in the middle; a value bit for state 5 and one for state 8 (the
       second group); a jump bit without its value bit; both booleans
       in neither encoding's length */
    p_u64(1); p_u32(1); pk(2);
    p_u64(1); p_u32(2); p_u8(0x81); p_u8(0x00); p_f32(1.0f); p_f32(2.0f); p_f32(3.0f); pk(2);
    p_u64(1); p_u32(3); p_u8(0x02); p_u8(0x00); p_f32(1.0f); p_f32(2.0f); pk(2);
    p_u64(1); p_u32(4); p_u8(0x20); p_u8(0x00); p_u8(1); pk(2);
    udp(DOWN);
    p_u64(1); p_u32(5); p_u8(0x80); p_u8(0x00); p_u8(0x02); p_u8(0x00); p_u8(1); pk(2);
    p_u64(1); p_u32(6); p_u8(0x08); p_u8(0x09); p_u8(1); pk(2);
    p_u64(1); p_u32(7); p_u8(0x18); p_u8(0x00); p_u8(1); p_u8(0); p_u8(1); p_u8(1); pk(2);
    udp(DOWN);
    /* a change with tick 0, a confirm cut after its tick */
    states(0, 8, 0x08, 0x00, BYTES, 2);
    p_u64(2); pk(4);
    udp(DOWN);
    /* a packet whose length runs past the datagram, after a good one */
    acknowledge(1);
    p_u64(1); pk_len(8, 200);
    udp(UP);
    /* two bytes: less than a header */
    b_raw(&dg, "\x08\x08", 2);
    udp(UP);
    /* an unknown type: the rest of the datagram is not decoded */
    acknowledge(1);
    p_u32(0xdeadbeef); pk(42);
    acknowledge(1);
    udp(UP);
    /* TCP: a type 42 where a packet should start; the segment is reported
       and the next segment starts afresh */
    p_u32(0x10); pk(42);
    p_u32(0x10); pk(5);
    tcp(DOWN);
    p_u32(0x12); p_str("after"); pk(5);
    tcp(DOWN);
    /* the conversation goes on */
    states(2, 1, 0x01, 0x00, BYTES, 1);
    confirm(2, 0.1, 1, 0);
    udp(DOWN);
    tcp_close();
    pw_close(&w);
}

/* ---- one capture per behaviour rule: a clean session that breaks that
   rule once (pcaptool validate must report it and nothing else) ---- */

static void rule_capture(const char *code, unsigned n_db)
{
    pw_open_rule(&w, outdir, code);
    tcp_open();
    db_table();
    load_level(n_db, "Dragon/Level1.lvl");
    tcp(DOWN);
}

static void rule_end(void)
{
    tcp_close();
    pw_close(&w);
}

/* a clean snapshot: one change, its confirm, the acknowledgement */
static void snapshot(uint64_t tick, uint64_t ref)
{
    states(tick, 1, 0x01, 0x00, BYTES, (int)tick);
    confirm(tick, (double)tick / 60.0, 1, ref);
    udp(DOWN);
    acknowledge(tick);
    udp(UP);
}

static void rule_captures(void)
{
    rule_capture("opendrakan.snapshot.incomplete", 3); /* 1 of 2 changes, no ack */
    snapshot(1, 0);
    states(2, 1, 0x01, 0x00, BYTES, 2);
    confirm(2, 0.1, 2, 1);
    udp(DOWN);
    rule_end();

    rule_capture("opendrakan.snapshot.unconfirmed", 3); /* a change, no confirm */
    snapshot(1, 0);
    states(2, 1, 0x01, 0x00, BYTES, 2);
    udp(DOWN);
    rule_end();

    rule_capture("opendrakan.snapshot.excess", 3); /* 2 changes, confirm says 1 */
    snapshot(1, 0);
    states(2, 1, 0x01, 0x00, BYTES, 2);
    states(2, 2, 0x01, 0x00, BYTES, 2);
    confirm(2, 0.1, 1, 1);
    udp(DOWN);
    acknowledge(2);
    udp(UP);
    rule_end();

    rule_capture("opendrakan.snapshot.reference_unacked", 3); /* delta against 5 */
    snapshot(1, 0);
    snapshot(2, 5);
    rule_end();

    rule_capture("opendrakan.direction.wrong", 3); /* the client sends a database entry */
    snapshot(1, 0);
    p_u32(9); p_str("Client/own.db"); pk(0);
    tcp(UP);
    rule_end();

    rule_capture("opendrakan.ack.unconfirmed", 3);
    snapshot(1, 0);
    acknowledge(9);
    udp(UP);
    rule_end();

    rule_capture("opendrakan.ack.incomplete", 3); /* acked before its 2nd change */
    snapshot(1, 0);
    states(2, 1, 0x01, 0x00, BYTES, 2);
    confirm(2, 0.1, 2, 1);
    udp(DOWN);
    acknowledge(2);
    udp(UP);
    states(2, 2, 0x01, 0x00, BYTES, 2);
    udp(DOWN);
    rule_end();

    rule_capture("opendrakan.tick.zero", 3); /* a whole snapshot at tick 0 */
    snapshot(0, 0);
    rule_end();

    rule_capture("opendrakan.db_table.incomplete", 4); /* 3 entries, count 4 */
    snapshot(1, 0);
    rule_end();

    rule_capture("opendrakan.link.unexpected", 3); /* a GLOBAL_MESSAGE on UDP */
    snapshot(1, 0);
    p_u32(0x10); p_str("udp"); pk(5);
    udp(DOWN);
    rule_end();

    /* booleans one byte each: a violation under --profile spec, noted once
       under reference */
    for (int k = 0; k < 2; k++) {
        rule_capture(k ? "opendrakan.divergence.bools_bytes" : "opendrakan.bundle.bools_unpacked", 3);
        states(1, 1, 0x18, 0x00, BYTES, 2);
        confirm(1, 0.1, 1, 0);
        udp(DOWN);
        acknowledge(1);
        udp(UP);
        rule_end();
    }
}

int main(int argc, char **argv)
{
    static void (*const sections[])(void) = {packets, snapshots, draft, malformed, rule_captures, NULL};
    return pw_run(argc, argv, outdir, sizeof outdir, sections);
}
