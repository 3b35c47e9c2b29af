/* replay_opendrakan.c - pcaptool replay's hooks for opendrakan (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep. */
#include <stdio.h>
#include <string.h>

#include "gw_replay.h"
#include "opendrakan.h"

/* Snapshots as they go, per sender (0: ours, 1: the peer's): the ticks
   confirmed lately, with their change counts. Our ACKNOWLEDGE_SNAPSHOT
   names the live peer's snapshot that stands where the recorded one stood
   (the k-th tick the peer confirmed in the recording is the k-th it
   confirms live) when that one is complete, else the newest complete one;
   the peer's must name one of ours that is complete. */
#define OD_REPLAY_TICKS 64
#define OD_REPLAY_ORDER 1024 /* confirmed ticks kept in order, recorded and live */

typedef struct {
    int64_t tick;
    uint32_t changes, seen;
    bool confirmed;
} od_snapshot;

typedef struct {
    od_snapshot snap[2][OD_REPLAY_TICKS];
    unsigned next[2];
    bool have_complete;
    int64_t newest_complete; /* of the peer's */
    int64_t order[2][OD_REPLAY_ORDER]; /* the peer's confirmed ticks: recorded, live */
    unsigned n_order[2];
} od_replay_state;

/* a tick the peer confirmed, in order of first confirmation */
static void confirmed_in_order(od_replay_state *s, int which, int64_t tick)
{
    for (unsigned i = 0; i < s->n_order[which] && i < OD_REPLAY_ORDER; i++)
        if (s->order[which][i] == tick)
            return;
    if (s->n_order[which] < OD_REPLAY_ORDER)
        s->order[which][s->n_order[which]++] = tick;
}

static int64_t tick_at(const uint8_t *p) { return (int64_t)gw_get_uint(p, 8, false); }

static od_snapshot *snapshot_of(od_replay_state *s, int who, int64_t tick)
{
    for (unsigned i = 0; i < OD_REPLAY_TICKS; i++)
        if (s->snap[who][i].tick == tick && tick)
            return &s->snap[who][i];
    od_snapshot *n = &s->snap[who][s->next[who]++ % OD_REPLAY_TICKS];
    *n = (od_snapshot){.tick = tick};
    return n;
}

static const od_snapshot *confirmed_snapshot(const od_replay_state *s, int who, int64_t tick)
{
    for (unsigned i = 0; i < OD_REPLAY_TICKS; i++)
        if (s->snap[who][i].tick == tick && s->snap[who][i].confirmed)
            return &s->snap[who][i];
    return NULL;
}

/* the packets of a PDU (a datagram may hold several), one by one: t, the
   type; pl, the payload of n bytes */
typedef struct {
    const uint8_t *d;
    size_t len, off;
    uint8_t t;
    const uint8_t *pl;
    size_t n;
} od_packets;

static bool next_packet(od_packets *it)
{
    if (it->len - it->off < 3)
        return false;
    const uint8_t *p = it->d + it->off;
    size_t n = (size_t)gw_get_uint(p + 1, 2, false);
    if (n > it->len - it->off - 3)
        return false;
    it->t = p[0];
    it->pl = p + 3;
    it->n = n;
    it->off += 3 + n;
    return true;
}

static gw_replay_need od_replay_need(const int *opts, int64_t type, int transport, const uint8_t *d,
                                      size_t len)
{
    (void)opts;
    (void)type; (void)transport;
    /* state changes stream; snapshots are confirmed now and then; acks and
       the reliable packets answer */
    od_packets it = {.d = d, .len = len};
    gw_replay_need need = GW_REPLAY_OPTIONAL;
    while (next_packet(&it)) {
        if (it.t == T_CONFIRM)
            need = GW_REPLAY_PERIODIC;
        else if (it.t != T_STATES && it.t != T_EXTRA_STATES)
            return GW_REPLAY_ANSWER;
    }
    return need;
}

static void od_replay_observe(void *st, int64_t type, int transport, bool ours, const uint8_t *d,
                              size_t len)
{
    (void)type; (void)transport;
    od_replay_state *s = st;
    int who = ours ? 0 : 1;
    od_packets it = {.d = d, .len = len};
    while (next_packet(&it)) {
        if ((it.t == T_STATES || it.t == T_EXTRA_STATES) && it.n >= 8) {
            snapshot_of(s, who, tick_at(it.pl))->seen++;
        } else if (it.t == T_CONFIRM && it.n >= 20) {
            od_snapshot *x = snapshot_of(s, who, tick_at(it.pl));
            x->confirmed = true;
            x->changes = (uint32_t)gw_get_uint(it.pl + 16, 4, false);
            if (!ours)
                confirmed_in_order(s, 1, x->tick);
        } else {
            continue;
        }
        for (unsigned i = 0; !ours && i < OD_REPLAY_TICKS; i++) {
            const od_snapshot *x = &s->snap[1][i];
            if (x->confirmed && x->seen == x->changes &&
                (!s->have_complete || x->tick > s->newest_complete)) {
                s->newest_complete = x->tick;
                s->have_complete = true;
            }
        }
    }
}

static void od_replay_recorded(void *st, int64_t type, int transport, bool ours, const uint8_t *d,
                               size_t len)
{
    (void)type; (void)transport;
    od_replay_state *s = st;
    od_packets it = {.d = d, .len = len};
    while (!ours && next_packet(&it))
        if (it.t == T_CONFIRM && it.n >= 8)
            confirmed_in_order(s, 0, tick_at(it.pl));
}

static void od_replay_adapt(void *st, int64_t type, int transport, uint8_t *d, size_t len)
{
    (void)type; (void)transport;
    od_replay_state *s = st;
    od_packets it = {.d = d, .len = len};
    while (next_packet(&it)) {
        if (it.t != T_ACK || it.n < 8)
            continue;
        int64_t rec = tick_at(it.pl), tick = rec;
        unsigned k = 0;
        while (k < s->n_order[0] && s->order[0][k] != rec)
            k++;
        const od_snapshot *x =
            k < s->n_order[0] && k < s->n_order[1] ? confirmed_snapshot(s, 1, s->order[1][k]) : NULL;
        if (x && x->seen == x->changes)
            tick = x->tick;
        else if (s->have_complete) /* not complete (yet): the newest that is */
            tick = s->newest_complete;
        gw_put_uint(d + (it.pl - d), 8, (uint64_t)tick, false);
    }
}

static bool od_replay_match(void *st, int64_t type, int transport, const uint8_t *rec,
                            size_t rec_len, const uint8_t *live, size_t live_len, char *why,
                            size_t whysz)
{
    (void)type; (void)transport; (void)rec; (void)rec_len;
    od_replay_state *s = st;
    od_packets it = {.d = live, .len = live_len};
    while (next_packet(&it)) {
        if (it.t != T_ACK || it.n < 8)
            continue;
        int64_t tick = tick_at(it.pl);
        const od_snapshot *x = confirmed_snapshot(s, 0, tick);
        if (!x) {
            snprintf(why, whysz, "acknowledges tick %lld, which we did not confirm", (long long)tick);
            return false;
        }
        if (x->seen != x->changes) {
            snprintf(why, whysz, "acknowledges tick %lld, whose snapshot we sent incomplete "
                     "(%u of %u changes)", (long long)tick, x->seen, x->changes);
            return false;
        }
    }
    return true;
}

const gw_replay gw_opendrakan_replay = {.state_size = sizeof(od_replay_state),
                                        .need = od_replay_need, .adapt = od_replay_adapt,
                                        .recorded = od_replay_recorded,
                                        .observe = od_replay_observe, .match = od_replay_match};
