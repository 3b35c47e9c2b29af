/* replay_eoudp.c - pcaptool replay's hooks for eoudp (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gw_replay.h"
#include "eoudp.h"

/* Our acknowledges name the live peer's ids of the important packets they
   answer (recorded id -> live id, learnt as the peer's important packets
   come, the newest EOUDP_ACKS kept); our timestamps are the time of
   sending. Our own ids stay as recorded: the peer's acknowledges must name
   them. */
typedef struct {
    const int *opts; /* the decoder's options */
    int gen, order;  /* the header the conversation uses (as the decoder's) */
    struct { uint64_t rec, live; } ids[EOUDP_ACKS];
    unsigned n_ids;
} eoudp_replay_state;

typedef struct {
    bool ok;
    eoudp_header h;
} replay_header;

/* the header as the decoder reads it, in the conversation's generation
   (a lone datagram: gen and order 0, not kept) */
static replay_header header_of(const int *opts, int *gen, int *order, const uint8_t *d, size_t len)
{
    replay_header r = {0};
    r.ok = eoudp_read_header(opts, gen, order, d, len, &r.h);
    return r;
}

static void eoudp_replay_init(void *st, const int *opts)
{
    ((eoudp_replay_state *)st)->opts = opts;
}

static gw_replay_need eoudp_replay_need(const int *opts, int64_t type, int transport, const uint8_t *d,
                                         size_t len)
{
    int gen = 0, order = 0;
    (void)transport;
    /* acknowledges and the connect's answers must come, as must every
       packet the peer marks important; the rest streams */
    if (type == 0x01 || type == 0x02 || type == 0x03)
        return GW_REPLAY_ANSWER;
    return header_of(opts, &gen, &order, d, len).h.important ? GW_REPLAY_ANSWER : GW_REPLAY_OPTIONAL;
}

static void eoudp_replay_adapt(void *st, int64_t type, int transport, uint8_t *d, size_t len)
{
    (void)transport;
    eoudp_replay_state *s = st;
    replay_header h = header_of(s->opts, &s->gen, &s->order, d, len);
    if (!h.ok)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double ms = (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
    uint64_t bits;
    if (h.h.id_off == 9) {
        memcpy(&bits, &ms, 8);
        gw_put_uint(d + 1, 8, bits, h.h.big);
    } else {
        float f = (float)ms;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        gw_put_uint(d + 1, 4, b32, h.h.big);
    }
    if (type == 0x01 && len >= h.h.hl + 8) { /* the acked id: payload, little-endian */
        uint64_t rec = gw_get_uint(d + h.h.hl, 8, false);
        for (unsigned i = 0; i < s->n_ids && i < EOUDP_ACKS; i++) {
            unsigned k = (s->n_ids - 1 - i) % EOUDP_ACKS; /* newest first */
            if (s->ids[k].rec == rec) {
                gw_put_uint(d + h.h.hl, 8, s->ids[k].live, false);
                break;
            }
        }
    }
}

static bool eoudp_replay_match(void *st, int64_t type, int transport, const uint8_t *rec,
                               size_t rec_len, const uint8_t *live, size_t live_len, char *why,
                               size_t whysz)
{
    (void)transport;
    eoudp_replay_state *s = st;
    replay_header rh = header_of(s->opts, &s->gen, &s->order, rec, rec_len);
    replay_header lh = header_of(s->opts, &s->gen, &s->order, live, live_len);
    if (!rh.ok || !lh.ok)
        return true; /* the decoder reports what is wrong with it */
    if (type == 0x01 && rec_len >= rh.h.hl + 8) {
        /* our ids go as recorded: the peer acknowledges the recorded one */
        uint64_t want = gw_get_uint(rec + rh.h.hl, 8, false);
        uint64_t got = live_len >= lh.h.hl + 8 ? gw_get_uint(live + lh.h.hl, 8, false) : UINT64_MAX;
        if (got != want) {
            snprintf(why, whysz, "acknowledges id %llu, expected %llu", (unsigned long long)got,
                     (unsigned long long)want);
            return false;
        }
    } else if (rh.h.important) {
        unsigned k = s->n_ids++ % EOUDP_ACKS;
        s->ids[k].rec = gw_get_uint(rec + rh.h.id_off, 8, rh.h.big);
        s->ids[k].live = gw_get_uint(live + lh.h.id_off, 8, lh.h.big);
    }
    return true;
}

const gw_replay gw_eoudp_replay = {.state_size = sizeof(eoudp_replay_state),
                                   .init = eoudp_replay_init, .need = eoudp_replay_need,
                                   .adapt = eoudp_replay_adapt, .match = eoudp_replay_match};
