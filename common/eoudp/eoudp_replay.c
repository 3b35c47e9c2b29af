/* eoudp_replay.c - pcaptool replay's hooks for eoudp (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep, read through the decoded fields. */
#include <stdio.h>
#include <string.h>

#include "active/gw_replay.h"
#include "eoudp/eoudp.h"

/* Our acknowledges name the live peer's ids of the important packets they
   answer (recorded id -> live id, learnt as the peer's important packets
   come, the newest EOUDP_ACKS kept); our timestamps are the time of
   sending. Our own ids stay as recorded: the peer's acknowledges must name
   them. */
typedef struct {
    struct { uint64_t rec, live; } ids[EOUDP_ACKS];
    unsigned n_ids;
    uint8_t last[EOUDP_MTU]; /* the peer's latest datagram (last_len 0: none, or longer) */
    size_t last_len;
} eoudp_replay_state;

enum { ACKNOWLEDGE = 0x01, ACCEPT = 0x02, REJECT = 0x03, DISCONNECT = 0x82 };

static bool important(const gw_replay_pdu *p)
{
    uint64_t v; /* the header's flag, or what the command implies (generated) */
    return gw_replay_u(p, EOUDP_F_IMPORTANT, &v) && v;
}

static gw_replay_need eoudp_replay_need(void *st, const gw_replay_pdu *p)
{
    (void)st;
    /* acknowledges and the connect's answers must come, as must every
       packet the peer marks important; the rest streams */
    if (p->type == ACKNOWLEDGE || p->type == ACCEPT || p->type == REJECT)
        return GW_REPLAY_ANSWER;
    return important(p) ? GW_REPLAY_ANSWER : GW_REPLAY_OPTIONAL;
}

static void eoudp_replay_adapt(void *st, const gw_replay_pdu *p, uint8_t *d)
{
    eoudp_replay_state *s = st;
    const gw_item *stamp = gw_replay_item(p, EOUDP_F_TIMESTAMP, 0), *ack = gw_replay_item(p, EOUDP_F_ACK_ID, 0);
    if (stamp) /* milliseconds since the epoch, f64 or f32 as recorded */
        gw_replay_put(d, stamp, eoudp_now_bits(stamp->len));
    if (p->type == ACKNOWLEDGE && ack) {
        for (unsigned i = 0; i < s->n_ids && i < EOUDP_ACKS; i++) {
            unsigned k = (s->n_ids - 1 - i) % EOUDP_ACKS; /* newest first */
            if (s->ids[k].rec == ack->v.u) {
                gw_replay_put(d, ack, s->ids[k].live);
                break;
            }
        }
    }
}

static bool eoudp_replay_match(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live, char *why,
                               size_t whysz)
{
    eoudp_replay_state *s = st;
    uint64_t want, got, rid, lid;
    if (rec->type == ACKNOWLEDGE && gw_replay_u(rec, EOUDP_F_ACK_ID, &want)) {
        /* our ids go as recorded: the peer acknowledges the recorded one */
        if (!gw_replay_u(live, EOUDP_F_ACK_ID, &got))
            got = UINT64_MAX;
        if (got != want) {
            snprintf(why, whysz, "acknowledges id %llu, expected %llu", (unsigned long long)got,
                     (unsigned long long)want);
            return false;
        }
    } else if (important(rec) && gw_replay_u(rec, EOUDP_F_ID, &rid) && gw_replay_u(live, EOUDP_F_ID, &lid)) {
        unsigned k = s->n_ids++ % EOUDP_ACKS;
        s->ids[k].rec = rid;
        s->ids[k].live = lid;
    }
    return true;
}

/* an acknowledge by the id it names (ours go as recorded) */
static bool eoudp_replay_identifies(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live)
{
    (void)st;
    return rec->type != ACKNOWLEDGE || gw_replay_same(rec, live, EOUDP_F_ACK_ID, NULL, NULL, 0);
}

/* the peer's previous datagram again, byte for byte: its copy (the Dec
   2023 implementation sends every datagram twice; ids alone do not tell,
   as an acknowledge and the accept after it may share one) */
static bool eoudp_replay_repeats(void *st, const gw_replay_pdu *p)
{
    eoudp_replay_state *s = st;
    if (s->last_len && p->len == s->last_len && !memcmp(p->data, s->last, p->len))
        return true;
    s->last_len = p->len <= sizeof s->last ? p->len : 0;
    memcpy(s->last, p->data, s->last_len);
    return false;
}

/* the client's disconnect */
static bool eoudp_replay_closes(void *st, const gw_replay_pdu *p)
{
    (void)st;
    return p->type == DISCONNECT;
}

const gw_replay gw_eoudp_replay = {.state_size = sizeof(eoudp_replay_state), .need = eoudp_replay_need,
                                   .adapt = eoudp_replay_adapt, .match = eoudp_replay_match,
                                   .identifies = eoudp_replay_identifies, .repeats = eoudp_replay_repeats,
                                   .closes = eoudp_replay_closes};
