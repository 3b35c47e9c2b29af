/* replay_gne.c - pcaptool replay's hooks for gne (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep. */
#include <stdio.h>
#include <string.h>

#include "gw_replay.h"
#include "gne.h"

/* The UDP link's ports follow the live handshake: our port message (or,
   as the server, our accept) names our live UDP port; the peer's accept
   (or port message) names its. The data byte order is the connection
   request's (its build field). */
typedef struct {
    gw_replay_link link;
    bool big_endian;
} gne_replay_state;

/* a message's content: after the NL header over TCP, the whole datagram over UDP */
static const uint8_t *content_of(int transport, const uint8_t *d, size_t len, size_t *n)
{
    size_t h = transport == GW_TRANSPORT_TCP ? 4 : 0;
    *n = len > h ? len - h : 0;
    return d + (len > h ? h : len);
}

static void learn_order(gne_replay_state *s, int64_t type, const uint8_t *c, size_t n)
{
    if (type == MSG_REQUEST && n >= 7)
        s->big_endian = c[5] == 0 && c[6] != 0; /* build 7: 07 00 little, 00 07 big */
}

static int64_t port_at(const gne_replay_state *s, const uint8_t *p)
{
    return (int64_t)gw_sign_extend(gw_get_uint(p, 4, s->big_endian), 4);
}

static gw_replay_need gne_replay_need(const int *opts, int64_t type, int transport, const uint8_t *d,
                                       size_t len)
{
    (void)opts;
    size_t n;
    const uint8_t *c = content_of(transport, d, len, &n);
    /* an empty message (a lone 255: the client's first UDP datagram) says nothing */
    return type == MSG_PACKETS && n == 1 && c[0] == 255 ? GW_REPLAY_OPTIONAL : GW_REPLAY_ANSWER;
}

static void gne_replay_adapt(void *st, int64_t type, int transport, uint8_t *d, size_t len)
{
    gne_replay_state *s = st;
    size_t n;
    uint8_t *c = (uint8_t *)content_of(transport, d, len, &n);
    learn_order(s, type, c, n);
    if (!s->link.ours)
        return;
    if (type == MSG_UDP_PORT && n == 4)
        gw_put_uint(c, 4, s->link.ours, s->big_endian);
    else if (type == MSG_ACCEPT && n >= 12 && port_at(s, c + 8) > 0)
        gw_put_uint(c + 8, 4, s->link.ours, s->big_endian);
}

static void gne_replay_observe(void *st, int64_t type, int transport, bool ours,
                               const uint8_t *d, size_t len)
{
    if (ours)
        return;
    gne_replay_state *s = st;
    size_t n;
    const uint8_t *c = content_of(transport, d, len, &n);
    learn_order(s, type, c, n);
    int64_t port = type == MSG_UDP_PORT && n == 4    ? port_at(s, c)
                 : type == MSG_ACCEPT && n >= 12     ? port_at(s, c + 8)
                                                     : 0;
    if (port > 0 && port <= 65535 && !s->link.peers)
        s->link.peers = (uint16_t)port;
}

static bool gne_replay_match(void *st, int64_t type, int transport, const uint8_t *rec,
                             size_t rec_len, const uint8_t *live, size_t live_len, char *why,
                             size_t whysz)
{
    gne_replay_state *s = st;
    size_t rn, ln;
    const uint8_t *r = content_of(transport, rec, rec_len, &rn);
    const uint8_t *l = content_of(transport, live, live_len, &ln);
    if (type == MSG_UDP_PORT && ln == 4 && s->link.peers && port_at(s, l) != s->link.peers) {
        /* its datagrams came first, from another port */
        snprintf(why, whysz, "names UDP port %ld, but its link datagrams come from port %u",
                 (long)port_at(s, l), s->link.peers);
        return false;
    }
    if (type == MSG_ACCEPT && rn >= 12) {
        bool rec_link = port_at(s, r + 8) > 0, live_link = ln >= 12 && port_at(s, l + 8) > 0;
        if (rec_link != live_link) {
            snprintf(why, whysz, "%s UDP link, the recording has %s", live_link ? "offers a" : "offers no",
                     rec_link ? "one" : "none");
            return false;
        }
    } else if (type == MSG_PACKETS && rn >= 1) {
        /* the same first packet; a ping reply to the same request */
        if (ln < 1 || l[0] != r[0]) {
            snprintf(why, whysz, "packet %d first, recorded %u", ln ? l[0] : -1, r[0]);
            return false;
        }
        if (r[0] == ID_PING && rn >= 5 && (ln < 5 || memcmp(l + 1, r + 1, 4))) {
            snprintf(why, whysz, "ping %ld, recorded %lu",
                     ln < 5 ? -1L : (long)gw_get_uint(l + 1, 4, s->big_endian),
                     (unsigned long)gw_get_uint(r + 1, 4, s->big_endian));
            return false;
        }
    }
    return true;
}

static gw_replay_link *gne_replay_link(void *st) { return &((gne_replay_state *)st)->link; }

const gw_replay gw_gne_replay = {.state_size = sizeof(gne_replay_state), .need = gne_replay_need,
                                 .adapt = gne_replay_adapt, .observe = gne_replay_observe,
                                 .match = gne_replay_match, .link = gne_replay_link};
