/* dnp_replay.c - pcaptool replay's hooks for dnp (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep, read through the decoded fields. */
#include <stdio.h>
#include <string.h>

#include "active/gw_replay.h"
#include "dnp/dnp.h"

/* Reliable numbers and link ids, recorded -> live, each stored plus one
   (0: not known yet). Ours are numbered afresh from 0 in the order first
   sent (a resend keeps its number); the peer's are learnt from its PDUs. */
typedef struct {
    uint32_t our_number[65536];
    uint32_t peer_number[65536];
    uint32_t peer_link[65536];
    uint32_t next_number;
    /* the live peer's latest reliable numbers (a resend comes while its
       number is in the window of 10; numbers wrap) */
    uint16_t peer_sent[64];
    unsigned n_peer_sent;
} dnp_replay_state;

static bool is_reliable(int64_t cmd)
{
    return cmd == DNP_RELIABLE_MESSAGE || cmd == DNP_LINK_STATE ||
           cmd == DNP_RELIABLE_MESSAGE_LONG || cmd == DNP_LINK_STATE_LONG;
}

/* what a peer must send when the recording shows it: everything but the
   unreliable traffic (link updates, unreliable messages), which depends on
   time */
static gw_replay_need dnp_replay_need(void *st, const gw_replay_pdu *p)
{
    (void)st;
    return p->type == DNP_MESSAGE || p->type == DNP_LINK_UPDATE ? GW_REPLAY_OPTIONAL : GW_REPLAY_ANSWER;
}

static void dnp_replay_adapt(void *st, const gw_replay_pdu *p, uint8_t *d)
{
    dnp_replay_state *s = st;
    /* a reliable command's number, an ack's acknowledged one */
    const gw_item *seq = gw_replay_item(p, DNP_F_SEQ, 0);
    const gw_item *link = gw_replay_item(p, DNP_F_LINK_ID, 0);
    if (seq && is_reliable(p->type)) {
        uint16_t v = (uint16_t)seq->v.u;
        if (!s->our_number[v]) {
            s->our_number[v] = s->next_number + 1;
            s->next_number = (s->next_number + 1) % 65535; /* the reference wraps at 65535 */
        }
        gw_replay_put(d, seq, s->our_number[v] - 1);
    } else if (seq && p->type == DNP_RELIABLE_ACK && s->peer_number[seq->v.u & 0xffff]) {
        gw_replay_put(d, seq, s->peer_number[seq->v.u & 0xffff] - 1);
    } else if (link && (p->type == DNP_LINK_UP || p->type == DNP_LINK_DOWN) &&
               s->peer_link[link->v.u & 0xffff]) {
        gw_replay_put(d, link, s->peer_link[link->v.u & 0xffff] - 1);
    }
}

/* the live number the peer's ack of our recorded number r must name */
static uint32_t acked_as(const dnp_replay_state *s, uint64_t r)
{
    return s->our_number[r & 0xffff] ? s->our_number[r & 0xffff] - 1 : (uint32_t)r;
}

/* an ack by the number it names, a link up or down by its link */
static bool dnp_replay_identifies(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live)
{
    uint64_t r, l;
    if (rec->type == DNP_RELIABLE_ACK && gw_replay_u(rec, DNP_F_SEQ, &r) && gw_replay_u(live, DNP_F_SEQ, &l))
        return l == acked_as(st, r);
    if ((rec->type == DNP_LINK_UP || rec->type == DNP_LINK_DOWN) && gw_replay_u(rec, DNP_F_LINK_ID, &r) &&
        gw_replay_u(live, DNP_F_LINK_ID, &l))
        return l == r;
    return true;
}

static bool dnp_replay_match(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live, char *why,
                             size_t whysz)
{
    dnp_replay_state *s = st;
    uint64_t r, l;
    switch (rec->type) {
    case DNP_CONNECT_ACK:
        return gw_replay_same(rec, live, DNP_F_RESULT, "result", why, whysz);
    case DNP_RELIABLE_ACK: {
        if (!gw_replay_u(rec, DNP_F_SEQ, &r))
            return true;
        uint32_t want = acked_as(s, r);
        if (!gw_replay_u(live, DNP_F_SEQ, &l) || l != want) {
            snprintf(why, whysz, "acknowledges number %lld, expected %u",
                     gw_replay_u(live, DNP_F_SEQ, &l) ? (long long)l : -1LL, want);
            return false;
        }
        return gw_replay_same(rec, live, DNP_F_ACK_CODE, "ack code", why, whysz);
    }
    case DNP_LINK_UP:
    case DNP_LINK_DOWN: /* our link states keep their recorded ids */
        return gw_replay_same(rec, live, DNP_F_LINK_ID, "link id", why, whysz);
    default:
        if (is_reliable(rec->type) && gw_replay_u(rec, DNP_F_SEQ, &r) && gw_replay_u(live, DNP_F_SEQ, &l))
            s->peer_number[r & 0xffff] = (uint32_t)l + 1;
        if (is_reliable(rec->type) && gw_replay_u(rec, DNP_F_LINK_ID, &r) &&
            gw_replay_u(live, DNP_F_LINK_ID, &l))
            s->peer_link[r & 0xffff] = (uint32_t)l + 1;
        return true;
    }
}

/* a reliable command under a number the peer already sent: a resend (it
   had no ack yet) */
static bool dnp_replay_repeats(void *st, const gw_replay_pdu *p)
{
    dnp_replay_state *s = st;
    uint64_t n;
    if (!is_reliable(p->type) || !gw_replay_u(p, DNP_F_SEQ, &n))
        return false;
    for (unsigned i = 0; i < s->n_peer_sent && i < 64; i++)
        if (s->peer_sent[i] == n)
            return true;
    s->peer_sent[s->n_peer_sent++ % 64] = (uint16_t)n;
    return false;
}

/* "Connection close" (command 2) */
static bool dnp_replay_closes(void *st, const gw_replay_pdu *p)
{
    (void)st;
    return p->type == DNP_CLOSE;
}

const gw_replay gw_dnp_replay = {.state_size = sizeof(dnp_replay_state), .need = dnp_replay_need,
                                 .adapt = dnp_replay_adapt, .match = dnp_replay_match,
                                 .identifies = dnp_replay_identifies, .repeats = dnp_replay_repeats,
                                 .closes = dnp_replay_closes};
