/* replay_openttd.c - pcaptool replay's hooks for openttd (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep. */
#include <stdio.h>
#include <string.h>

#include "gw_replay.h"
#include "openttd.h"

/* What a replayed client learns from the live server: the frames it really
   sends, the token to echo, the client id it was given. The offsets are the
   13.x - 15.x layouts (size:u16, type:u8, payload); packets too short for
   them are left alone. */
typedef struct {
    bool have_frame, have_token, have_client;
    uint32_t frame;       /* the latest frame the server sent */
    uint8_t token;        /* the latest token it asked for */
    uint32_t rec_client;  /* our client id: recorded, live */
    uint32_t live_client;
} ottd_replay_state;

static uint32_t le32_at(const uint8_t *d) { return (uint32_t)gw_get_uint(d, 4, false); }

static gw_replay_need ottd_replay_need(const int *opts, int64_t type, int transport, const uint8_t *d,
                                        size_t len)
{
    (void)opts;
    (void)transport; /* the packet values of UDP and TCP differ */
    switch (type) {
    case PK_SERVER_FRAME:
        /* a frame with a token answers the client's ACK (or MAP_OK): the
           server asks for a new token only once the last one came back */
        return len >= 12 ? GW_REPLAY_ANSWER : GW_REPLAY_PERIODIC;
    case PK_SERVER_MAP_DATA: /* as many as the map needs */
        return GW_REPLAY_PERIODIC;
    case PK_SERVER_COMMAND: /* the echo of our own command answers it (my_cmd, the last byte) */
        return len > 3 && d[len - 1] ? GW_REPLAY_ANSWER : GW_REPLAY_OPTIONAL;
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

static void ottd_replay_observe(void *st, int64_t type, int transport, bool ours,
                                const uint8_t *d, size_t len)
{
    if (ours)
        return;
    (void)transport;
    ottd_replay_state *s = st;
    if ((type == PK_SERVER_FRAME || type == PK_SERVER_MAP_BEGIN) && len >= 7) {
        s->frame = le32_at(d + 3);
        s->have_frame = true;
    }
    if (type == PK_SERVER_FRAME && len >= 12) {
        s->token = d[11];
        s->have_token = true;
    }
}

/* our CLIENT_ACK acknowledges the latest frame the live server sent, with
   the token it asked for last */
static void ottd_replay_adapt(void *st, int64_t type, int transport, uint8_t *d, size_t len)
{
    (void)transport;
    ottd_replay_state *s = st;
    if (type != PK_CLIENT_ACK || len < 8)
        return;
    if (s->have_frame)
        gw_put_uint(d + 3, 4, s->frame, false);
    if (s->have_token)
        d[7] = s->token;
}

static bool ottd_replay_match(void *st, int64_t type, int transport, const uint8_t *rec,
                              size_t rec_len, const uint8_t *live, size_t live_len, char *why,
                              size_t whysz)
{
    (void)transport; /* the packet values of UDP and TCP differ */
    ottd_replay_state *s = st;
    switch (type) {
    case PK_SERVER_WELCOME:
        if (rec_len >= 7 && live_len >= 7) {
            s->rec_client = le32_at(rec + 3);
            s->live_client = le32_at(live + 3);
            s->have_client = true;
        }
        return true;
    case PK_SERVER_JOIN: /* our join, announced with the id we were given */
        if (s->have_client && rec_len >= 7 && le32_at(rec + 3) == s->rec_client &&
            (live_len < 7 || le32_at(live + 3) != s->live_client)) {
            snprintf(why, whysz, "announces client %ld, but the server welcomed us as client %u",
                     live_len < 7 ? -1L : (long)le32_at(live + 3), s->live_client);
            return false;
        }
        return true;
    case PK_SERVER_COMMAND: /* the echo of our command: the same command */
        if (rec_len >= 6 && (live_len < 6 || gw_get_uint(live + 4, 2, false) != gw_get_uint(rec + 4, 2, false))) {
            snprintf(why, whysz, "echoes command %ld, recorded %u",
                     live_len < 6 ? -1L : (long)gw_get_uint(live + 4, 2, false),
                     (unsigned)gw_get_uint(rec + 4, 2, false));
            return false;
        }
        return true;
    case PK_SERVER_ERROR:
        if (rec_len >= 4 && (live_len < 4 || live[3] != rec[3])) {
            snprintf(why, whysz, "error %d, recorded %u", live_len < 4 ? -1 : live[3], rec[3]);
            return false;
        }
        return true;
    default:
        return true;
    }
}

const gw_replay gw_openttd_replay = {.state_size = sizeof(ottd_replay_state),
                                     .need = ottd_replay_need, .adapt = ottd_replay_adapt,
                                     .observe = ottd_replay_observe, .match = ottd_replay_match};
