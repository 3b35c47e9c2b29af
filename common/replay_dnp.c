/* replay_dnp.c - pcaptool replay's hooks for dnp (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep. */
#include <stdio.h>
#include <string.h>

#include "gw_replay.h"
#include "dnp.h"

/* Reliable numbers and link ids, recorded -> live, each stored plus one
   (0: not known yet). Ours are numbered afresh from 0 in the order first
   sent (a resend keeps its number); the peer's are learnt from its PDUs. */
typedef struct {
    uint32_t our_number[65536];
    uint32_t peer_number[65536];
    uint32_t peer_link[65536];
    uint32_t next_number;
} dnp_replay_state;

static bool is_reliable(uint8_t cmd)
{
    return cmd == DNP_RELIABLE_MESSAGE || cmd == DNP_LINK_STATE ||
           cmd == DNP_RELIABLE_MESSAGE_LONG || cmd == DNP_LINK_STATE_LONG;
}

static uint16_t le16_at(const uint8_t *d) { return (uint16_t)gw_get_uint(d, 2, false); }

/* what a peer must send when the recording shows it: everything but the
   unreliable traffic (link updates, unreliable messages), which depends on
   time */
static gw_replay_need dnp_replay_need(const int *opts, int64_t type, int transport, const uint8_t *d,
                                       size_t len)
{
    (void)opts;
    (void)transport; (void)d; (void)len; /* DNP is UDP; the type is the command */
    return type == DNP_MESSAGE || type == DNP_LINK_UPDATE ? GW_REPLAY_OPTIONAL : GW_REPLAY_ANSWER;
}

static void dnp_replay_adapt(void *st, int64_t type, int transport, uint8_t *d, size_t len)
{
    (void)type; (void)transport; /* the command is d[0]; DNP is UDP */
    dnp_replay_state *s = st;
    if (len < 3)
        return;
    uint16_t v = le16_at(d + 1);
    if (is_reliable(d[0])) {
        if (!s->our_number[v]) {
            s->our_number[v] = s->next_number + 1;
            s->next_number = (s->next_number + 1) % 65535; /* the reference wraps at 65535 */
        }
        gw_put_uint(d + 1, 2, s->our_number[v] - 1, false);
    } else if (d[0] == DNP_RELIABLE_ACK && s->peer_number[v]) {
        gw_put_uint(d + 1, 2, s->peer_number[v] - 1, false);
    } else if ((d[0] == DNP_LINK_UP || d[0] == DNP_LINK_DOWN) && s->peer_link[v]) {
        gw_put_uint(d + 1, 2, s->peer_link[v] - 1, false);
    }
}

static bool dnp_replay_match(void *st, int64_t type, int transport, const uint8_t *rec,
                             size_t rec_len, const uint8_t *live, size_t live_len, char *why,
                             size_t whysz)
{
    dnp_replay_state *s = st;
    uint8_t cmd = rec_len ? rec[0] : 0xff;
    (void)type; (void)transport; /* the command is rec[0]; DNP is UDP */
    switch (cmd) {
    case DNP_CONNECT_ACK:
        if (rec_len >= 2 && (live_len < 2 || live[1] != rec[1])) {
            snprintf(why, whysz, "result %d, recorded %u", live_len < 2 ? -1 : live[1], rec[1]);
            return false;
        }
        return true;
    case DNP_RELIABLE_ACK: {
        if (rec_len < 4)
            return true;
        if (live_len < 4) {
            snprintf(why, whysz, "%zu bytes, too short for an ack", live_len);
            return false;
        }
        uint16_t r = le16_at(rec + 1), l = le16_at(live + 1);
        uint32_t want = s->our_number[r] ? s->our_number[r] - 1 : r;
        if (l != want) {
            snprintf(why, whysz, "acknowledges number %u, expected %u", l, want);
            return false;
        }
        if (live[3] != rec[3]) {
            snprintf(why, whysz, "ack code %u, recorded %u", live[3], rec[3]);
            return false;
        }
        return true;
    }
    case DNP_LINK_UP:
    case DNP_LINK_DOWN:
        /* our link states keep their recorded ids */
        if (rec_len >= 3 && (live_len < 3 || le16_at(live + 1) != le16_at(rec + 1))) {
            snprintf(why, whysz, "link id %d, expected %u", live_len < 3 ? -1 : le16_at(live + 1),
                     le16_at(rec + 1));
            return false;
        }
        return true;
    default:
        if (is_reliable(cmd) && rec_len >= 3 && live_len >= 3) {
            s->peer_number[le16_at(rec + 1)] = le16_at(live + 1) + 1u;
            bool link = cmd == DNP_LINK_STATE || cmd == DNP_LINK_STATE_LONG;
            if (link && rec_len >= 5 && live_len >= 5)
                s->peer_link[le16_at(rec + 3)] = le16_at(live + 3) + 1u;
        }
        return true;
    }
}

const gw_replay gw_dnp_replay = {.state_size = sizeof(dnp_replay_state), .need = dnp_replay_need,
                                 .adapt = dnp_replay_adapt, .match = dnp_replay_match};
