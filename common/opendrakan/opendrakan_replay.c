/* opendrakan_replay.c - pcaptool replay's hooks for opendrakan (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep, read through the decoded fields. */
#include <stdio.h>
#include <string.h>

#include "active/gw_replay.h"
#include "opendrakan/opendrakan.h"

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

/* the packets of a PDU (a datagram may hold several), one by one, from its
   items: t, the type; its tick and change count (NULL: it has none) */
typedef struct {
    const gw_replay_pdu *p;
    unsigned next; /* the item after the packet's type */
    uint8_t t;
    const gw_item *tick, *changes;
} od_packets;

static bool next_packet(od_packets *it)
{
    const gw_replay_pdu *p = it->p;
    while (it->next < p->n_items && p->items[it->next].field != OD_F_TYPE)
        it->next++;
    if (it->next >= p->n_items)
        return false;
    it->t = (uint8_t)p->items[it->next++].v.u;
    it->tick = it->changes = NULL;
    for (unsigned i = it->next; i < p->n_items && p->items[i].field != OD_F_TYPE; i++) {
        if (p->items[i].field == OD_F_TICK && !it->tick)
            it->tick = &p->items[i];
        else if (p->items[i].field == OD_F_CHANGE_COUNT && !it->changes)
            it->changes = &p->items[i];
    }
    return true;
}

static gw_replay_need od_replay_need(void *st, const gw_replay_pdu *p)
{
    (void)st;
    /* state changes stream; snapshots are confirmed now and then; acks and
       the reliable packets answer */
    od_packets it = {.p = p};
    gw_replay_need need = GW_REPLAY_OPTIONAL;
    while (next_packet(&it)) {
        if (it.t == T_CONFIRM)
            need = GW_REPLAY_PERIODIC;
        else if (it.t != T_STATES && it.t != T_EXTRA_STATES)
            return GW_REPLAY_ANSWER;
    }
    return need;
}

static void od_replay_observe(void *st, const gw_replay_pdu *p, bool ours)
{
    od_replay_state *s = st;
    int who = ours ? 0 : 1;
    od_packets it = {.p = p};
    while (next_packet(&it)) {
        if ((it.t == T_STATES || it.t == T_EXTRA_STATES) && it.tick) {
            snapshot_of(s, who, it.tick->v.i)->seen++;
        } else if (it.t == T_CONFIRM && it.tick && it.changes) {
            od_snapshot *x = snapshot_of(s, who, it.tick->v.i);
            x->confirmed = true;
            x->changes = (uint32_t)it.changes->v.u;
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

static void od_replay_recorded(void *st, const gw_replay_pdu *p, bool ours)
{
    od_replay_state *s = st;
    od_packets it = {.p = p};
    while (!ours && next_packet(&it))
        if (it.t == T_CONFIRM && it.tick)
            confirmed_in_order(s, 0, it.tick->v.i);
}

static void od_replay_adapt(void *st, const gw_replay_pdu *p, uint8_t *d)
{
    od_replay_state *s = st;
    od_packets it = {.p = p};
    while (next_packet(&it)) {
        if (it.t != T_ACK || !it.tick)
            continue;
        int64_t rec = it.tick->v.i, tick = rec;
        unsigned k = 0;
        while (k < s->n_order[0] && s->order[0][k] != rec)
            k++;
        const od_snapshot *x =
            k < s->n_order[0] && k < s->n_order[1] ? confirmed_snapshot(s, 1, s->order[1][k]) : NULL;
        if (x && x->seen == x->changes)
            tick = x->tick;
        else if (s->have_complete) /* not complete (yet): the newest that is */
            tick = s->newest_complete;
        gw_replay_put(d, it.tick, (uint64_t)tick);
    }
}

static bool od_replay_match(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live, char *why,
                            size_t whysz)
{
    (void)rec;
    od_replay_state *s = st;
    od_packets it = {.p = live};
    while (next_packet(&it)) {
        if (it.t != T_ACK || !it.tick)
            continue;
        int64_t tick = it.tick->v.i;
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
