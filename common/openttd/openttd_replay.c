/* openttd_replay.c - pcaptool replay's hooks for openttd (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep, read through the decoded fields. */
#include <stdio.h>
#include <string.h>

#include "active/gw_replay.h"
#include "openttd/openttd.h"

/* What a replayed client learns from the live server: the frames it really
   sends, the token to echo, the client id it was given (and the one the
   recording's server gave it). */
typedef struct {
    bool have_frame, have_token, have_rec_client, have_client;
    uint32_t frame;       /* the latest frame the server sent */
    uint8_t token;        /* the latest token it asked for */
    uint32_t rec_client;  /* our client id: recorded, live */
    uint32_t live_client;
} ottd_replay_state;

/* Is p, a SERVER_JOIN, QUIT or ERROR_QUIT, about our client (as the
   recording's or the live server numbered it)? */
static bool about_us(const ottd_replay_state *s, const gw_replay_pdu *p)
{
    uint64_t id;
    if (!gw_replay_u(p, OTTD_F_CLIENT_ID, &id))
        return false;
    return p->live ? s->have_client && id == s->live_client : s->have_rec_client && id == s->rec_client;
}

static gw_replay_need ottd_replay_need(void *st, const gw_replay_pdu *p)
{
    uint64_t mine;
    switch (p->type) { /* the packet values of UDP and TCP differ */
    case PK_SERVER_FRAME:
        /* a frame with a token answers the client's ACK (or MAP_OK): the
           server asks for a new token only once the last one came back */
        return gw_replay_item(p, OTTD_F_TOKEN, 0) ? GW_REPLAY_ANSWER : GW_REPLAY_PERIODIC;
    case PK_SERVER_MAP_DATA: /* as many as the map needs */
        return GW_REPLAY_PERIODIC;
    case PK_SERVER_JOIN: /* ours answers; other clients come and go */
        return about_us(st, p) ? GW_REPLAY_ANSWER : GW_REPLAY_OPTIONAL;
    case PK_SERVER_COMMAND: /* the echo of our own command answers it */
        return gw_replay_u(p, OTTD_F_MY_CMD, &mine) && mine ? GW_REPLAY_ANSWER : GW_REPLAY_OPTIONAL;
    case PK_CLIENT_ACK:          /* once a game day, whenever the client likes */
    case PK_SERVER_SYNC:         /* every sync_freq frames */
    case PK_SERVER_CLIENT_INFO:  /* one per other client, and on any change */
    case PK_SERVER_CHAT:
    case PK_SERVER_EXTERNAL_CHAT:
    case PK_SERVER_COMPANY_UPDATE:
    case PK_SERVER_WAIT:         /* others are downloading the map */
    case PK_SERVER_QUIT:         /* others leave */
    case PK_SERVER_ERROR_QUIT:
    case PK_SERVER_NEWGAME:
    case PK_SERVER_SHUTDOWN:
        return GW_REPLAY_OPTIONAL;
    default:
        return GW_REPLAY_ANSWER;
    }
}

/* the recording's server welcomed us as ... */
static void ottd_replay_recorded(void *st, const gw_replay_pdu *p, bool ours)
{
    ottd_replay_state *s = st;
    uint64_t v;
    if (!ours && p->type == PK_SERVER_WELCOME && !s->have_rec_client && gw_replay_u(p, OTTD_F_CLIENT_ID, &v)) {
        s->rec_client = (uint32_t)v;
        s->have_rec_client = true;
    }
}

static void ottd_replay_observe(void *st, const gw_replay_pdu *p, bool ours)
{
    ottd_replay_state *s = st;
    uint64_t v;
    if (!ours && p->type == PK_SERVER_WELCOME && gw_replay_u(p, OTTD_F_CLIENT_ID, &v)) {
        s->live_client = (uint32_t)v; /* the live server welcomed us as ... */
        s->have_client = true;
    }
    if (ours || (p->type != PK_SERVER_FRAME && p->type != PK_SERVER_MAP_BEGIN))
        return;
    if (gw_replay_u(p, OTTD_F_FRAME, &v)) {
        s->frame = (uint32_t)v;
        s->have_frame = true;
    }
    if (gw_replay_u(p, OTTD_F_TOKEN, &v)) {
        s->token = (uint8_t)v;
        s->have_token = true;
    }
}

/* our CLIENT_ACK acknowledges the latest frame the live server sent, with
   the token it asked for last */
static void ottd_replay_adapt(void *st, const gw_replay_pdu *p, uint8_t *d)
{
    ottd_replay_state *s = st;
    const gw_item *frame = gw_replay_item(p, OTTD_F_FRAME, 0), *token = gw_replay_item(p, OTTD_F_TOKEN, 0);
    if (p->type != PK_CLIENT_ACK)
        return;
    if (frame && s->have_frame)
        gw_replay_put(d, frame, s->frame);
    if (token && s->have_token)
        gw_replay_put(d, token, s->token);
}

/* the number of `field` in p, or -1 when it has none */
static long number_or_none(const gw_replay_pdu *p, int field)
{
    uint64_t v;
    return gw_replay_u(p, field, &v) ? (long)v : -1L;
}

/* the echo of a command by the command */
static bool ottd_replay_identifies(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live)
{
    (void)st;
    return rec->type != PK_SERVER_COMMAND || gw_replay_same(rec, live, OTTD_F_CMD, NULL, NULL, 0);
}

static bool ottd_replay_match(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live, char *why,
                              size_t whysz)
{
    ottd_replay_state *s = st;
    switch (rec->type) {
    case PK_SERVER_JOIN: /* our join, announced with the id we were given */
        if (about_us(s, rec) && s->have_client && !about_us(s, live)) {
            snprintf(why, whysz, "announces client %ld, but the server welcomed us as client %u",
                     number_or_none(live, OTTD_F_CLIENT_ID), s->live_client);
            return false;
        }
        return true;
    case PK_SERVER_COMMAND: /* the echo of our command: the same command */
        return gw_replay_same(rec, live, OTTD_F_CMD, "echoes command", why, whysz);
    case PK_SERVER_ERROR:
        return gw_replay_same(rec, live, OTTD_F_ERROR_CODE, "error", why, whysz);
    default:
        return true;
    }
}

/* the server's error, shutdown or new game (its clients must reconnect),
   our own quit announced; the client's quit or error */
static bool ottd_replay_closes(void *st, const gw_replay_pdu *p)
{
    ottd_replay_state *s = st;
    switch (p->type) {
    case PK_SERVER_ERROR:
    case PK_SERVER_SHUTDOWN:
    case PK_SERVER_NEWGAME:
    case PK_CLIENT_QUIT:
    case PK_CLIENT_ERROR:
        return true;
    case PK_SERVER_QUIT:
    case PK_SERVER_ERROR_QUIT: /* about another client, unless it names us */
        return about_us(s, p);
    default:
        return false;
    }
}

const gw_replay gw_openttd_replay = {.state_size = sizeof(ottd_replay_state),
                                     .need = ottd_replay_need, .adapt = ottd_replay_adapt,
                                     .recorded = ottd_replay_recorded, .observe = ottd_replay_observe,
                                     .match = ottd_replay_match, .identifies = ottd_replay_identifies,
                                     .closes = ottd_replay_closes};
