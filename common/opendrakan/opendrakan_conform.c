/* opendrakan_conform.c - pcaptool conform's cases for OpenDrakan
 * (gw_conform.h), both roles: the draft's snapshot scheme (changes, a
 * confirmation with their count, the client's acknowledgement of complete
 * snapshots only, deltas against acknowledged snapshots), the handshake's
 * database table, and this project's transport mapping (wire-facts 5.1: the
 * reference has no transport; reliable packets on TCP, the rest on UDP, the
 * same ports). Packets are built from the decoder's layouts (opendrakan.c,
 * od_build, a change's state bundle from its values). */
#include <stdio.h>
#include <string.h>

#include "active/gw_conform.h"
#include "active/gw_fuzz.h"
#include "opendrakan/opendrakan.h"

#define P (&gw_opendrakan_protocol)
#define SNAP "OpenDrakan draft, Snapshot transmission"
#define CLIENT GW_ROLE_CLIENT
#define SERVER GW_ROLE_SERVER
#define BOTH (GW_ROLE_SERVER | GW_ROLE_CLIENT)

/* a state bundle's values: the position alone (value mask 0x01, jump
   mask 0), (1, 2, 3) as f32 bits */
#define POSITION_BUNDLE                                                                      \
    GW_WU(OD_F_VALUE_MASK, 0x01), GW_WU(OD_F_JUMP_MASK, 0), GW_WU(OD_F_POS_X, 0x3f800000), \
        GW_WU(OD_F_POS_Y, 0x40000000), GW_WU(OD_F_POS_Z, 0x40400000)
/* 1.5 s as an f64 */
#define REALTIME_BITS 0x3ff8000000000000ull

static int64_t type_of(const gw_replay_pdu *p, unsigned k)
{
    const gw_item *it = gw_replay_item(p, OD_F_TYPE, k);
    return it ? (int64_t)it->v.u : -1;
}

/* does p (maybe several packets) hold a packet of type t? its tick in *tick */
static bool holds(const gw_replay_pdu *p, int64_t t, int64_t *tick)
{
    unsigned ticks = 0;
    for (unsigned k = 0; type_of(p, k) >= 0; k++) {
        int64_t type = type_of(p, k);
        bool has_tick = type == T_STATES || type == T_EXTRA_STATES || type == T_CONFIRM || type == T_ACK;
        if (type == t) {
            const gw_item *it = has_tick ? gw_replay_item(p, OD_F_TICK, ticks) : NULL;
            if (tick)
                *tick = it ? (int64_t)it->v.u : 0;
            return true;
        }
        ticks += has_tick;
    }
    return false;
}

static bool ack_of(const gw_replay_pdu *p, const void *arg)
{
    int64_t tick;
    return holds(p, T_ACK, &tick) && tick == *(const int64_t *)arg;
}

static bool send_change(gw_conform_io *io, int64_t tick, uint32_t object)
{
    return gw_conform_send_link(io, P, T_STATES,
                                GW_WVALS(GW_WU(OD_F_TICK, (uint64_t)tick), GW_WU(OD_F_OBJECT_ID, object),
                                         POSITION_BUNDLE));
}

/* what one case keeps: the ticks pcaptool confirmed (bit t: tick t, 1..63),
   and the first acknowledgement of a tick it never confirmed */
typedef struct {
    uint64_t confirmed;
    int64_t bogus_ack; /* 1 + the tick; 0: none */
} od_case;

static bool send_confirm(gw_conform_io *io, int64_t tick, uint32_t changes)
{
    od_case *k = io->case_state;
    if (tick > 0 && tick < 64)
        k->confirmed |= 1ull << tick;
    return gw_conform_send_link(io, P, T_CONFIRM,
                                GW_WVALS(GW_WU(OD_F_TICK, (uint64_t)tick), GW_WU(OD_F_REALTIME, REALTIME_BITS),
                                         GW_WU(OD_F_CHANGE_COUNT, changes), GW_WU(OD_F_REFERENCE_TICK, 0)));
}

/* ---- the implementation as client: pcaptool serves ---------------------------------- */

/* the handshake: one database and the level */
static bool serve_level(gw_conform_io *io)
{
    static const char db[] = "Common/Common.db", level[] = "Levels/conform.lvl";
    return gw_conform_send(io, P, T_DB_ENTRY, GW_WVALS(GW_WU(OD_F_DB_INDEX, 0), GW_WB(OD_F_DB_PATH, db, sizeof db - 1))) &&
           gw_conform_send(io, P, T_LOAD_LEVEL,
                           GW_WVALS(GW_WU(OD_F_DB_COUNT, 1), GW_WB(OD_F_LEVEL_PATH, level, sizeof level - 1)));
}

#define SERVE_OR_FAIL(io) \
    do { \
        if (!serve_level(io)) \
            return GW_FAIL; \
    } while (0)

/* a complete snapshot of tick t: two changes, then its confirmation */
static bool complete_snapshot(gw_conform_io *io, int64_t t)
{
    return send_change(io, t, 1) && send_change(io, t, 2) && send_confirm(io, t, 2);
}

/* is tick t acknowledged within the wait? */
static gw_wait acked(gw_conform_io *io, int64_t t, gw_replay_pdu *a)
{
    return gw_conform_await(io, io->wait_ms, ack_of, &t, a);
}

/* what went over UDP was refused (ICMP port unreachable): the client
   cannot have had it; a silence then shows nothing */
#define UNLESS_UDP_REFUSED(io) \
    do { \
        if ((io)->link_refused(io)) \
            return gw_conform_say(io, GW_SKIPPED, "the client's UDP port was closed when pcaptool sent its snapshot " \
                                  "(ICMP port unreachable): it cannot have had it"); \
    } while (0)

/* A negative check ends on evidence (gw_conform_probe): the complete
   snapshot of tick 2 after what must not be acknowledged (tick 1). Tick 2
   acknowledged: the client took the first and held back on purpose; tick
   1 acknowledged, before or just after: Fail (`acked`); neither: it
   acknowledges nothing, and its silence shows nothing. */
static gw_verdict held_back(gw_conform_io *io, const char *acked, const char *pass)
{
    gw_replay_pdu a;
    if (!complete_snapshot(io, 2))
        return GW_FAIL;
    int64_t one = 1, two = 2;
    bool bad;
    gw_wait w = gw_conform_probe(io, ack_of, &two, ack_of, &one, &a, &bad);
    if (bad)
        return gw_conform_say(io, GW_FAIL, "%s", acked);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "%s, while the complete snapshot of tick 2 after it was", pass);
    UNLESS_UDP_REFUSED(io);
    /* a client that leaves has broken no sentence: what it would have done
       is unknown (not a Fail: the sentence is about acknowledging) */
    return gw_conform_say(io, GW_INFO, "%s",
                          w == GW_CLOSED ? "the client closed the connection before acknowledging either snapshot: "
                                           "nothing shows what it does with the first"
                                         : "not acknowledged, but neither was the complete snapshot of tick 2 after "
                                           "it: the client acknowledges none, its silence shows nothing");
}

static gw_verdict ack_complete(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    gw_replay_pdu a;
    if (!complete_snapshot(io, 1))
        return GW_FAIL;
    gw_wait w = acked(io, 1, &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "the complete snapshot of tick 1 was acknowledged");
    UNLESS_UDP_REFUSED(io);
    return gw_conform_say(io, GW_NON_STRICT, "%s (not strictly necessary, but the server can then send only full "
                          "snapshots)", w == GW_CLOSED ? "the client closed the connection without acknowledging the "
                          "complete snapshot" : "no acknowledgement of the complete snapshot");
}

static const gw_conform_case case_snapshot_ack_complete = {
    "opendrakan/snapshot/ack-complete", CLIENT, "A complete snapshot is acknowledged", SNAP,
    "Once a confirmed snapshot contains as many changes as stated by the confirmation, it is complete [...] "
    "Used by the client to tell the server that it has received a snapshot in full.",
    "the level, then tick 1: two OBJECT_STATES_CHANGED and CONFIRM_SNAPSHOT counting 2 (UDP)",
    "ACKNOWLEDGE_SNAPSHOT of tick 1; Non-strict when none comes, the connection closed or not (\"not strictly "
    "necessary\")",
    ack_complete, GW_SHOULD};

static gw_verdict ack_over_udp(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    gw_replay_pdu a;
    if (!complete_snapshot(io, 1))
        return GW_FAIL;
    if (acked(io, 1, &a) != GW_GOT) {
        UNLESS_UDP_REFUSED(io);
        return gw_conform_say(io, GW_SKIPPED, "the client acknowledged no snapshot");
    }
    if (a.transport != GW_TRANSPORT_UDP)
        return gw_conform_say(io, GW_NON_STRICT, "the acknowledgement came over TCP (the reference builds it unreliable)");
    return gw_conform_say(io, GW_PASS, "the acknowledgement came over UDP");
}

static const gw_conform_case case_snapshot_ack_over_udp = {
    "opendrakan/snapshot/ack-over-udp", CLIENT, "The acknowledgement goes over UDP", "wire-facts 5.5",
    "The reference builds packets 2, 3, 4 and 8 as unreliable (UDP), all others as reliable (TCP).",
    "the level, then a complete snapshot",
    "its acknowledgement over UDP; Non-strict over TCP; Skipped when none comes",
    ack_over_udp, GW_REFERENCE};

static gw_verdict no_ack_incomplete(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    if (!send_change(io, 1, 1) || !send_confirm(io, 1, 2))
        return GW_FAIL;
    return held_back(io, "tick 1 was acknowledged with 1 of its 2 changes",
                     "a snapshot missing one of its 2 changes was not acknowledged");
}

static const gw_conform_case case_snapshot_no_ack_incomplete = {
    "opendrakan/snapshot/no-ack-incomplete", CLIENT, "An incomplete snapshot is not acknowledged", SNAP,
    "Packet loss will cause either the confirmation or a number of changes to be missing [...] Thus, an "
    "incomplete snapshot will not be considered by the client.",
    "the level, then tick 1: one OBJECT_STATES_CHANGED and CONFIRM_SNAPSHOT counting 2; then the complete "
    "snapshot of tick 2 (the probe)",
    "no acknowledgement of tick 1, tick 2 acknowledged; Fail when tick 1 is acknowledged; Info when tick 2 is not "
    "either, or the client leaves first (silence and a close show nothing)",
    no_ack_incomplete, GW_MUST};

static gw_verdict unconfirmed(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    if (!send_change(io, 1, 1) || !send_change(io, 1, 2))
        return GW_FAIL;
    return held_back(io, "tick 1 was acknowledged without its confirmation",
                     "changes without a confirmation were not acknowledged");
}

static const gw_conform_case case_snapshot_unconfirmed = {
    "opendrakan/snapshot/unconfirmed", CLIENT, "A snapshot without its confirmation is not acknowledged", SNAP,
    "Upon reception of a confirmation packet, a client marks it's local version of the snapshots as confirmed",
    "the level, then two OBJECT_STATES_CHANGED of tick 1 and no confirmation; then the complete snapshot of tick "
    "2 (the probe)",
    "no acknowledgement of tick 1, tick 2 acknowledged; Fail when tick 1 is acknowledged; Info when tick 2 is not "
    "either, or the client leaves first (silence and a close show nothing)",
    unconfirmed, GW_MUST};

static gw_verdict order_independent(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    gw_replay_pdu a;
    /* tick 1 confirmed before its changes; tick 2 in the usual order */
    if (!send_confirm(io, 1, 2) || !send_change(io, 1, 1) || !send_change(io, 1, 2) || !complete_snapshot(io, 2))
        return GW_FAIL;
    bool got[3] = {false};
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    while (!(got[1] && got[2]) && gw_conform_await_until(io, until, NULL, NULL, &a) == GW_GOT) {
        int64_t t;
        if (holds(&a, T_ACK, &t) && (t == 1 || t == 2))
            got[t] = true;
    }
    if (got[1] && got[2])
        return gw_conform_say(io, GW_PASS, "both acknowledged: the snapshot confirmed before its changes, and the other");
    if (got[1] || got[2])
        return gw_conform_say(io, GW_FAIL, "tick %d (%s) was acknowledged, tick %d (%s) was not", got[1] ? 1 : 2,
                              got[1] ? "confirmed first" : "in order", got[1] ? 2 : 1,
                              got[1] ? "in order" : "confirmed first");
    UNLESS_UDP_REFUSED(io);
    return gw_conform_say(io, GW_NON_STRICT, "no snapshot was acknowledged (not strictly necessary)");
}

static const gw_conform_case case_snapshot_order_independent = {
    "opendrakan/snapshot/order-independent", CLIENT, "A snapshot confirmed before its changes is complete too", SNAP,
    "This scheme is also independent of the packet's order upon arrival.",
    "the level, tick 1's confirmation before its two changes, then tick 2 in the usual order",
    "both acknowledged; Fail when only one is; Non-strict when neither is (acknowledging is not strictly "
    "necessary)",
    order_independent, GW_MUST};

static gw_verdict empty_snapshot(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    gw_replay_pdu a;
    if (!send_confirm(io, 1, 0))
        return GW_FAIL;
    if (acked(io, 1, &a) == GW_GOT)
        return gw_conform_say(io, GW_PASS, "a snapshot of no changes was acknowledged");
    UNLESS_UDP_REFUSED(io);
    return gw_conform_say(io, GW_NON_STRICT, "a snapshot of no changes (complete on its confirmation) was not acknowledged");
}

static const gw_conform_case case_snapshot_empty = {
    "opendrakan/snapshot/empty", CLIENT, "A snapshot of no changes is complete on its confirmation", SNAP,
    "Once a confirmed snapshot contains as many changes as stated by the confirmation, it is complete",
    "the level, then CONFIRM_SNAPSHOT of tick 1 counting 0",
    "ACKNOWLEDGE_SNAPSHOT of tick 1; Non-strict when none comes",
    empty_snapshot, GW_MUST};

/* an unknown packet, then a complete snapshot: still acknowledged? */
static gw_verdict after_unknown(gw_conform_io *io, bool over_udp)
{
    SERVE_OR_FAIL(io);
    static const uint8_t junk[] = {1, 2, 3};
    bool sent = over_udp ? gw_conform_send_link(io, P, 77, GW_WVALS(GW_WSTEP(junk, sizeof junk)))
                         : gw_conform_send(io, P, 77, GW_WVALS(GW_WSTEP(junk, sizeof junk)));
    gw_replay_pdu a;
    if (!sent || !complete_snapshot(io, 1))
        return GW_FAIL;
    gw_wait w = acked(io, 1, &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "type 77 was ignored; the next complete snapshot was acknowledged");
    if (w == GW_CLOSED)
        /* the framing and its types are the reference's (wire-facts 5.2):
           the text names no unknown type */
        return gw_conform_say(io, GW_NON_STRICT, "the client closed the connection after type 77");
    UNLESS_UDP_REFUSED(io);
    return gw_conform_say(io, GW_INFO, "no acknowledgement after type 77 (the client may acknowledge none)");
}

static gw_verdict unknown_tcp(gw_conform_io *io)
{
    return after_unknown(io, false);
}

static const gw_conform_case case_packets_unknown_tcp = {
    "opendrakan/packets/unknown-tcp", CLIENT, "An unknown packet type over TCP does not break the client",
    "wire-facts 5.2", "Packet: type:u8, payload_length:u16 LE (payload only, not the 3 header bytes), payload",
    "the level, a packet of type 77 over TCP, then a complete snapshot",
    "the snapshot acknowledged; Non-strict when the client closes (the reference's framing: the text names no "
    "unknown type); Info when no acknowledgement comes",
    unknown_tcp, GW_REFERENCE};

static gw_verdict unknown_udp(gw_conform_io *io)
{
    return after_unknown(io, true);
}

static const gw_conform_case case_packets_unknown_udp = {
    "opendrakan/packets/unknown-udp", CLIENT, "An unknown packet type over UDP does not break the client",
    "wire-facts 5.2", "Packet: type:u8, payload_length:u16 LE (payload only, not the 3 header bytes), payload",
    "the level, a datagram of type 77, then a complete snapshot",
    "the snapshot acknowledged; Non-strict when the client closes (the reference's framing: the text names no "
    "unknown type); Info when no acknowledgement comes",
    unknown_udp, GW_REFERENCE};

static gw_verdict truncated_udp(gw_conform_io *io)
{
    SERVE_OR_FAIL(io);
    /* a confirmation whose length says 28 bytes, of which 5 came */
    static const uint8_t cut[] = {T_CONFIRM, 28, 0, 1, 0, 0, 0, 0};
    gw_replay_pdu a;
    if (!io->send_link(io, cut, sizeof cut) || !complete_snapshot(io, 2))
        return GW_FAIL;
    gw_wait w = acked(io, 2, &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "the truncated packet was ignored; the next snapshot was acknowledged");
    if (w == GW_CLOSED)
        return gw_conform_say(io, GW_NON_STRICT, "the client closed the connection after a truncated datagram (the "
                              "length field is the reference's)");
    UNLESS_UDP_REFUSED(io);
    return gw_conform_say(io, GW_INFO, "no acknowledgement after the truncated datagram (the client may acknowledge none)");
}

static const gw_conform_case case_packets_truncated_udp = {
    "opendrakan/packets/truncated-udp", CLIENT, "A truncated datagram does not break the client", "wire-facts 5.2",
    "payload_length:u16 LE (payload only, not the 3 header bytes)",
    "the level, a CONFIRM_SNAPSHOT whose length says 28 with 5 bytes, then a complete snapshot of tick 2",
    "tick 2 acknowledged; Non-strict when the client closes (the length field is the reference's); Info when no "
    "acknowledgement comes",
    truncated_udp, GW_REFERENCE};

/* ---- the implementation as server: pcaptool is the client ---------------------------- */

/* what a watch of the server saw: the packets of each type by transport, the
   database entries before LOAD_LEVEL, LOAD_LEVEL's count, snapshots */
typedef struct {
    unsigned db_before_level, levels;
    int64_t level_db_count;
    unsigned by[T_COUNT + 1][2]; /* [type][0 TCP, 1 UDP]; T_COUNT: unknown */
    int64_t first_confirm, min_tick; /* the first tick confirmed (-1: none), the lowest tick */
    bool delta_unacked;
    int64_t delta_ref;
    int64_t acked; /* the tick pcaptool acknowledged (ack_first), 0: none */
    bool closed;
} watched;

#define TICKED(t) ((t) == T_STATES || (t) == T_EXTRA_STATES || (t) == T_CONFIRM || (t) == T_ACK)

/* Change packets counted by tick, for the ticks of the last moments (ticks
   are 64-bit and go on at 60 a second; a snapshot's changes and its
   confirmation come close together, in any order): slot tick % 64 */
typedef struct {
    struct {
        int64_t tick;
        unsigned n;
    } slot[64];
} tick_changes;

static void tick_changes_add(tick_changes *c, int64_t tick)
{
    unsigned i = (uint64_t)tick % 64;
    if (c->slot[i].tick != tick || !c->slot[i].n)
        c->slot[i].tick = tick, c->slot[i].n = 0;
    c->slot[i].n++;
}

static unsigned tick_changes_of(const tick_changes *c, int64_t tick)
{
    unsigned i = (uint64_t)tick % 64;
    return c->slot[i].tick == tick ? c->slot[i].n : 0;
}

/* Watch the server until it has sent what the case needs (until_level:
   LOAD_LEVEL; until_confirms: that many confirmations, counted from the
   acknowledgement with ack_first) or the wait ends: a watch ends on what
   it waited for, not on a clock. */
static void watch(gw_conform_io *io, watched *w, bool ack_first, bool until_level, unsigned until_confirms)
{
    unsigned confirms = 0;
    memset(w, 0, sizeof *w);
    w->first_confirm = -1;
    w->min_tick = INT64_MAX;
    gw_replay_pdu a;
    gw_wait r = GW_GOT;
    int64_t acked_now = 0, until = gw_conform_clock_ms() + io->wait_ms;
    /* ack_first: the first snapshot confirmed is acknowledged once it came
       in full ("received a snapshot in full"): its changes, counted by tick,
       may come before or after its confirmation */
    tick_changes changes = {0};
    int64_t to_ack = 0, to_ack_count = 0;
    while (!((!until_level || w->levels) && confirms >= until_confirms) &&
           (r = gw_conform_await_until(io, until, NULL, NULL, &a)) == GW_GOT) {
        if (a.echo) /* a server sends no client packet: ours, sent back, shows nothing */
            continue;
        unsigned ticks = 0, refs = 0, counts = 0;
        for (unsigned k = 0; type_of(&a, k) >= 0; k++) {
            int64_t t = type_of(&a, k);
            w->by[t < T_COUNT ? t : T_COUNT][a.transport == GW_TRANSPORT_UDP]++;
            const gw_item *tick = TICKED(t) ? gw_replay_item(&a, OD_F_TICK, ticks++) : NULL;
            int64_t tv = tick ? (int64_t)tick->v.u : 0;
            if (tick && tv < w->min_tick)
                w->min_tick = tv;
            if ((t == T_STATES || t == T_EXTRA_STATES) && tick)
                tick_changes_add(&changes, tv);
            if (t == T_DB_ENTRY && !w->levels)
                w->db_before_level++;
            if (t == T_LOAD_LEVEL) {
                uint64_t n = 0;
                gw_replay_u(&a, OD_F_DB_COUNT, &n);
                w->level_db_count = (int64_t)n;
                w->levels++;
            }
            if (t == T_CONFIRM) {
                const gw_item *ref = gw_replay_item(&a, OD_F_REFERENCE_TICK, refs++);
                int64_t rv = ref ? (int64_t)ref->v.u : 0;
                if (rv != 0 && rv != acked_now && !w->delta_unacked) {
                    w->delta_unacked = true;
                    w->delta_ref = rv;
                }
                const gw_item *c = gw_replay_item(&a, OD_F_CHANGE_COUNT, counts);
                if (w->first_confirm < 0)
                    w->first_confirm = tv;
                confirms += !ack_first || acked_now;
                if (ack_first && !to_ack && tv > 0 && c) { /* tick 0 is "no tick": not acknowledged */
                    to_ack = tv;
                    to_ack_count = (int64_t)c->v.u;
                }
            }
            counts += t == T_CONFIRM;
        }
        if (to_ack && !acked_now && (int64_t)tick_changes_of(&changes, to_ack) >= to_ack_count) {
            gw_conform_send_link(io, P, T_ACK, GW_WVALS(GW_WU(OD_F_TICK, (uint64_t)to_ack)));
            acked_now = w->acked = to_ack;
        }
    }
    w->closed = r == GW_CLOSED;
}

/* the packets the server sent while watched, over both transports */
static unsigned watched_total(const watched *w)
{
    unsigned n = 0;
    for (unsigned t = 0; t <= T_COUNT; t++)
        n += w->by[t][0] + w->by[t][1];
    return n;
}

static gw_verdict level_handshake(gw_conform_io *io)
{
    watched w;
    watch(io, &w, false, true, 0);
    if (!w.levels)
        return gw_conform_say(io, GW_FAIL, "no LOAD_LEVEL within %.1f s", io->wait_ms / 1000.0);
    if ((int64_t)w.db_before_level != w.level_db_count)
        return gw_conform_say(io, GW_FAIL, "LOAD_LEVEL counts %lld databases, but %u table entries came before it",
                              (long long)w.level_db_count, w.db_before_level);
    return gw_conform_say(io, GW_PASS, "%u database table entries, then LOAD_LEVEL counting as many",
                          w.db_before_level);
}

static const gw_conform_case case_handshake_db_table = {
    "opendrakan/handshake/db-table", SERVER, "The database table comes before the level, and adds up",
    "OpenDrakan draft, Load level",
    "The total number of databases that are loaded is included in this packet so the client can verify that it "
    "received a complete database table.",
    "nothing: a connection, watched", "GLOBAL_DB_TABLE_ENTRY packets, then LOAD_LEVEL counting as many; Fail otherwise",
    level_handshake, GW_MUST};

static gw_verdict reliable_over_tcp(gw_conform_io *io)
{
    watched w;
    /* the handshake, then two snapshots: the first one's changes all came */
    watch(io, &w, false, true, 2);
    static const unsigned reliable[] = {T_DB_ENTRY, T_LOAD_LEVEL, T_GLOBAL_MESSAGE, T_OBJECT_MESSAGE, T_EVENT,
                                        T_ACTION, T_ANALOG};
    static const unsigned unreliable[] = {T_STATES, T_EXTRA_STATES, T_CONFIRM, T_ACK};
    for (unsigned i = 0; i < sizeof reliable / sizeof reliable[0]; i++)
        if (w.by[reliable[i]][1])
            return gw_conform_say(io, GW_FAIL, "%u packet%s of reliable type %u came over UDP", w.by[reliable[i]][1],
                                  w.by[reliable[i]][1] == 1 ? "" : "s", reliable[i]);
    for (unsigned i = 0; i < sizeof unreliable / sizeof unreliable[0]; i++)
        if (w.by[unreliable[i]][0])
            return gw_conform_say(io, GW_NON_STRICT, "packets of unreliable type %u came over TCP", unreliable[i]);
    unsigned tcp = 0, udp = 0;
    for (unsigned t = 0; t <= T_COUNT; t++)
        tcp += w.by[t][0], udp += w.by[t][1];
    if (!tcp && !udp) /* silence is no evidence */
        return gw_conform_say(io, GW_FAIL, "the server sent nothing within %.1f s%s", io->wait_ms / 1000.0,
                              w.closed ? " and closed the connection" : "");
    return gw_conform_say(io, GW_PASS, "%u reliable packets over TCP, %u unreliable over UDP", tcp, udp);
}

static const gw_conform_case case_transport_reliable_over_tcp = {
    "opendrakan/transport/reliable-over-tcp", SERVER, "Reliable packets over TCP, the rest over UDP", "wire-facts 5.5",
    "The reference builds packets 2, 3, 4 and 8 as unreliable (UDP), all others as reliable (TCP).",
    "nothing: a connection, watched",
    "no reliable type over UDP; Fail when one comes (a MUST: the text marks those packets \"reliable\", and reliable "
    "is \"sent over TCP\"), or when nothing comes (a MUST: the database table \"is sent to clients during the "
    "handshake\"); Non-strict for an unreliable type over TCP (the reference's split)",
    reliable_over_tcp, GW_REFERENCE};

static gw_verdict counts_add_up(gw_conform_io *io)
{
    /* the changes of the first confirmed tick may come before its
       confirmation: count them by tick over the whole window */
    gw_replay_pdu a;
    int64_t confirmed = -1, count = -1;
    tick_changes changes = {0};
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    while (gw_conform_await_until(io, until, NULL, NULL, &a) == GW_GOT) {
        unsigned ticks = 0, counts = 0;
        for (unsigned k = 0; type_of(&a, k) >= 0; k++) {
            int64_t t = type_of(&a, k);
            const gw_item *tick = TICKED(t) ? gw_replay_item(&a, OD_F_TICK, ticks++) : NULL;
            int64_t tv = tick ? (int64_t)tick->v.u : -1;
            if ((t == T_STATES || t == T_EXTRA_STATES) && tick)
                tick_changes_add(&changes, tv);
            if (t == T_CONFIRM && confirmed < 0 && tick) {
                const gw_item *c = gw_replay_item(&a, OD_F_CHANGE_COUNT, counts);
                confirmed = tv;
                count = c ? (int64_t)c->v.u : -1;
            }
            counts += t == T_CONFIRM;
        }
        if (confirmed >= 0 && (int64_t)tick_changes_of(&changes, confirmed) >= count)
            break;
    }
    if (confirmed < 0)
        return gw_conform_say(io, GW_FAIL, "no snapshot was confirmed within %.1f s", io->wait_ms / 1000.0);
    if ((int64_t)tick_changes_of(&changes, confirmed) != count)
        return gw_conform_say(io, GW_FAIL, "the snapshot of tick %lld is confirmed with %lld changes, %u came",
                              (long long)confirmed, (long long)count, tick_changes_of(&changes, confirmed));
    return gw_conform_say(io, GW_PASS, "the snapshot of tick %lld: %lld changes confirmed, as many came",
                          (long long)confirmed, (long long)count);
}

static const gw_conform_case case_snapshot_counts_add_up = {
    "opendrakan/snapshot/counts-add-up", SERVER, "A confirmed snapshot's changes add up to its count", SNAP,
    "a confirmation packet is transmitted, which states how many discrete changes the snapshot with the given "
    "tick should contain",
    "nothing: a connection, watched",
    "as many change packets of the first confirmed tick as its confirmation counts; Fail otherwise",
    counts_add_up, GW_MUST};

static gw_verdict ticks_one_based(gw_conform_io *io)
{
    watched w;
    watch(io, &w, false, false, 2);
    if (w.min_tick == INT64_MAX)
        return gw_conform_say(io, GW_SKIPPED, "the server sent no ticked packet within %.1f s", io->wait_ms / 1000.0);
    if (w.min_tick < 1)
        return gw_conform_say(io, GW_NON_STRICT, "tick %lld used (ticks should be one-based; 0 means none)",
                              (long long)w.min_tick);
    return gw_conform_say(io, GW_PASS, "every tick is at least 1 (the lowest: %lld)", (long long)w.min_tick);
}

static const gw_conform_case case_snapshot_ticks_one_based = {
    "opendrakan/snapshot/ticks-one-based", SERVER, "Ticks start at 1", "OpenDrakan draft, Tick number",
    "Tick numbers should be one-based, since some protocol features need to be able to pass an invalid tick.",
    "nothing: a connection, watched", "every tick at least 1; Non-strict for a tick 0",
    ticks_one_based, GW_SHOULD};

static gw_verdict no_delta_unacked(gw_conform_io *io)
{
    watched w;
    watch(io, &w, false, false, 3); /* the second and third could be deltas */
    if (w.first_confirm < 0)
        return gw_conform_say(io, GW_SKIPPED, "the server confirmed no snapshot within %.1f s", io->wait_ms / 1000.0);
    if (w.delta_unacked)
        return gw_conform_say(io, GW_FAIL, "a snapshot delta-encoded against tick %lld, which was never acknowledged",
                              (long long)w.delta_ref);
    return gw_conform_say(io, GW_PASS, "with nothing acknowledged, every snapshot is full (reference tick 0)");
}

static const gw_conform_case case_snapshot_no_delta_unacked = {
    "opendrakan/snapshot/no-delta-unacked", SERVER, "No delta against a snapshot never acknowledged",
    "OpenDrakan draft, Acknowledge snapshot",
    "the server can only use ACK'd snapshots in delta encoding.",
    "nothing: a connection, no acknowledgement",
    "every confirmation's reference tick 0 (full snapshots); Fail for a delta",
    no_delta_unacked, GW_MUST};

static gw_verdict delta_on_acked(gw_conform_io *io)
{
    watched w;
    watch(io, &w, true, false, 3); /* the three snapshots after the acknowledgement */
    if (w.first_confirm < 0)
        return gw_conform_say(io, GW_SKIPPED, "the server confirmed no snapshot within %.1f s", io->wait_ms / 1000.0);
    if (!w.acked)
        return gw_conform_say(io, GW_SKIPPED, "no snapshot of a tick above 0 came in full (as many changes as its "
                              "confirmation counts) within %.1f s, so none was acknowledged", io->wait_ms / 1000.0);
    if (w.delta_unacked)
        return gw_conform_say(io, GW_FAIL, "a snapshot delta-encoded against tick %lld, which was not acknowledged",
                              (long long)w.delta_ref);
    return gw_conform_say(io, GW_PASS, "after tick %lld was acknowledged, every reference tick is 0 or %lld",
                          (long long)w.acked, (long long)w.acked);
}

static const gw_conform_case case_snapshot_delta_on_acked = {
    "opendrakan/snapshot/delta-on-acked", SERVER, "Deltas only against the acknowledged snapshot",
    "OpenDrakan draft, Acknowledge snapshot",
    "the server can only use ACK'd snapshots in delta encoding.",
    "a connection; ACKNOWLEDGE_SNAPSHOT of the first confirmed tick",
    "every later reference tick 0 or that tick; Fail otherwise",
    delta_on_acked, GW_MUST};

static gw_verdict server_unknown(gw_conform_io *io)
{
    static const uint8_t junk[] = {1, 2, 3};
    if (!gw_conform_send(io, P, 77, GW_WVALS(GW_WSTEP(junk, sizeof junk))))
        return GW_FAIL;
    watched w;
    /* three snapshots: the server has read type 77 before the last (its
       close, if it closes, comes ahead of it) */
    watch(io, &w, false, false, 3);
    if (w.closed)
        return gw_conform_say(io, GW_INFO, "the server closed the connection after type 77");
    if (!watched_total(&w)) /* "went on" needs something it sent */
        return gw_conform_say(io, GW_FAIL, "the server sent nothing within %.1f s after type 77", io->wait_ms / 1000.0);
    return gw_conform_say(io, GW_PASS, "type 77 was ignored: the server went on");
}

static const gw_conform_case case_packets_unknown_to_server = {
    "opendrakan/packets/unknown-to-server", SERVER, "An unknown packet type from a client (recorded)", "wire-facts 5.2",
    "Packet: type:u8, payload_length:u16 LE (payload only, not the 3 header bytes), payload",
    "a connection, then a packet of type 77 over TCP",
    "the server goes on; Info when it closes the connection (the text says nothing)",
    server_unknown, GW_REFERENCE};

static bool over_udp(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return p->transport == GW_TRANSPORT_UDP;
}

static gw_verdict downlink_from_client(gw_conform_io *io)
{
    /* the probe after the server's first datagram: which side sends the
       downlink shows first (a decoder learns it from the first one-way
       packet, and the probe is one) */
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, over_udp, NULL, &a) == GW_CLOSED)
        return gw_conform_say(io, GW_SKIPPED, "the server closed the connection before the probe");
    if (!send_confirm(io, 5, 0))
        return GW_FAIL;
    watched w;
    /* three snapshots: the server has read the confirmation before the
       last */
    watch(io, &w, false, false, 3);
    if (w.closed)
        return gw_conform_say(io, GW_INFO, "the server closed the connection after a client's CONFIRM_SNAPSHOT");
    if (!watched_total(&w)) /* "went on" needs something it sent */
        return gw_conform_say(io, GW_FAIL, "the server sent nothing within %.1f s after a client's CONFIRM_SNAPSHOT",
                              io->wait_ms / 1000.0);
    return gw_conform_say(io, GW_PASS, "a CONFIRM_SNAPSHOT from the client was ignored: the server went on");
}

static const gw_conform_case case_packets_downlink_from_client = {
    "opendrakan/packets/downlink-from-client", SERVER, "A downlink packet from a client is ignored",
    "OpenDrakan draft, Snapshot packets",
    "These are used to send snapshots from the server to a client. Thus, they are only valid in the downlink.",
    "a connection, the server's first datagram, then a CONFIRM_SNAPSHOT from pcaptool",
    "the server goes on; Info when it closes the connection",
    downlink_from_client, GW_MUST};

/* ---- pcaptool fuzz (active/gw_fuzz.h) ------------------------------------------------ */

static const char *const fuzz_states[] = {"level loaded"};

/* the level: a server's LOAD_LEVEL received, or ours sent to a client */
static gw_verdict fuzz_enter(gw_conform_io *io, unsigned state)
{
    (void)state;
    if (io->role == GW_ROLE_CLIENT)
        return serve_level(io) ? GW_PASS : GW_FAIL;
    watched w;
    watch(io, &w, false, true, 0);
    if (!w.levels)
        return gw_conform_say(io, GW_SKIPPED, "no LOAD_LEVEL within %.1f s", io->wait_ms / 1000.0);
    return GW_PASS;
}

/* What shows that the implementation still works. A client: the complete
   snapshot of a tick pcaptool has not confirmed yet (from 10: the targets
   use tick 1) acknowledged, which is "not strictly necessary", so pcaptool
   fuzz first checks that it does. A server sends snapshots unasked: three
   more confirmations (as opendrakan/packets/unknown-to-server watches: the
   server has read what went before the last); the draft requires no
   answer of a server. */
static gw_wait fuzz_probe(gw_conform_io *io, const char **what)
{
    if (io->role == GW_ROLE_SERVER) {
        *what = "three more snapshots";
        watched w;
        watch(io, &w, false, false, 3);
        return w.closed ? GW_CLOSED : w.by[T_CONFIRM][0] + w.by[T_CONFIRM][1] >= 3 ? GW_GOT : GW_SILENT;
    }
    static char name[64];
    uint64_t mine = ((od_case *)io->case_state)->confirmed >> 10;
    int64_t t = 10 + (mine ? 64 - __builtin_clzll(mine) : 0);
    snprintf(name, sizeof name, "the complete snapshot of tick %lld", (long long)t);
    *what = name;
    gw_replay_pdu a;
    if (t >= 64 || !complete_snapshot(io, t))
        return GW_CLOSED;
    gw_wait w = acked(io, t, &a);
    return w == GW_SILENT && io->link_refused(io) ? GW_CLOSED : w;
}

static bool confirmation(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return holds(p, T_CONFIRM, NULL);
}

static bool acknowledgement(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return holds(p, T_ACK, NULL);
}

/* in a replay, the probe as fuzz_probe judges it: three confirmations from
   a server, an acknowledgement from a client */
static unsigned replay_answer(unsigned role, gw_conform_want *answer)
{
    *answer = role == GW_ROLE_SERVER ? confirmation : acknowledgement;
    return role == GW_ROLE_SERVER ? 3 : 1;
}

static const char fuzz_path[] = "Levels/fuzz.lvl", fuzz_db[] = "Common/Common.db";
static const gw_fuzz_target fuzz_targets[] = {
    /* from a client */
    {"acknowledge snapshot", 0, T_ACK, GW_WVALS(GW_WU(OD_F_TICK, 1)), SERVER, true},
    {"action", 0, T_ACTION, GW_WVALS(GW_WU(OD_F_ACTION, 3), GW_WU(OD_F_ACTION_STATE, 1)), SERVER, false},
    {"analog", 0, T_ANALOG, GW_WVALS(GW_WU(OD_F_ACTION, 4)), SERVER, false},
    /* from a server */
    {"object states", 0, T_STATES,
     GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_OBJECT_ID, 1), POSITION_BUNDLE),
     CLIENT, true},
    {"confirm snapshot", 0, T_CONFIRM,
     GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_REALTIME, REALTIME_BITS), GW_WU(OD_F_CHANGE_COUNT, 1),
              GW_WU(OD_F_REFERENCE_TICK, 0)),
     CLIENT, true},
    {"database entry", 0, T_DB_ENTRY, GW_WVALS(GW_WU(OD_F_DB_INDEX, 1), GW_WB(OD_F_DB_PATH, fuzz_db, sizeof fuzz_db - 1)),
     CLIENT, false},
    {"load level", 0, T_LOAD_LEVEL,
     GW_WVALS(GW_WU(OD_F_DB_COUNT, 1), GW_WB(OD_F_LEVEL_PATH, fuzz_path, sizeof fuzz_path - 1)), CLIENT, false},
};

static const gw_fuzz od_fuzz = {fuzz_states, 1, fuzz_enter, fuzz_targets, sizeof fuzz_targets / sizeof fuzz_targets[0],
                                fuzz_probe, NULL, replay_answer};

/* ---- the catalogue --------------------------------------------------------------------- */



/* the client's acknowledgements, noted as they come */
static void od_duty(gw_conform_io *io, const gw_replay_pdu *p)
{
    od_case *k = io->case_state;
    int64_t tick;
    if (io->role == GW_ROLE_CLIENT && !p->echo && !k->bogus_ack && holds(p, T_ACK, &tick) &&
        !(tick > 0 && tick < 64 && (k->confirmed >> tick & 1)))
        k->bogus_ack = tick + 1;
}

/* An acknowledgement "tell[s] the server that it has received a snapshot
   in full": one of a tick pcaptool never confirmed received nothing (a
   canned or miscounting client) */
static gw_verdict od_audit(gw_conform_io *io)
{
    const od_case *k = io->case_state;
    if (k->bogus_ack)
        return gw_conform_say(io, GW_FAIL, "the client acknowledged tick %lld, which pcaptool never confirmed (an "
                              "acknowledgement says a snapshot was \"received in full\")", (long long)k->bogus_ack - 1);
    return GW_PASS;
}


/* the catalogue, in its order: each case is defined below its run function */
static const gw_conform_case *const cases[] = {
    &case_handshake_db_table, &case_transport_reliable_over_tcp, &case_snapshot_counts_add_up,
    &case_snapshot_ticks_one_based, &case_snapshot_no_delta_unacked, &case_snapshot_delta_on_acked,
    &case_packets_unknown_to_server, &case_packets_downlink_from_client, &case_snapshot_ack_complete,
    &case_snapshot_ack_over_udp, &case_snapshot_no_ack_incomplete, &case_snapshot_unconfirmed,
    &case_snapshot_order_independent, &case_snapshot_empty, &case_packets_unknown_tcp, &case_packets_unknown_udp,
    &case_packets_truncated_udp,
};

const gw_conform gw_opendrakan_conform = {.transport = GW_TRANSPORT_TCP, .link = GW_TRANSPORT_UDP, .cases = cases,
                                          .n_cases = sizeof cases / sizeof cases[0], .duty = od_duty,
                                          .case_state_size = sizeof(od_case), .audit = od_audit, .fuzz = &od_fuzz};
