/* gne_replay.c - pcaptool replay's hooks for gne (gw_replay.h): what a
 * recorded conversation must change to be played against a live peer, and
 * what the peer's answers must keep, read through the decoded fields. */
#include <stdio.h>
#include <string.h>

#include "active/gw_replay.h"
#include "gne/gne.h"

/* The UDP link's ports follow the live handshake: our port message (or,
   as the server, our accept) names our live UDP port; the peer's accept
   (or port message) names its. */
typedef struct {
    gw_replay_link link;
} gne_replay_state;

/* the UDP port a port message or an accept names (-1: none), its item in *at */
static int64_t port_of(const gw_replay_pdu *p, const gw_item **at)
{
    const gw_item *it = p->type == MSG_UDP_PORT || p->type == MSG_ACCEPT ? gw_replay_item(p, GNE_F_UDP_PORT, 0)
                                                                           : NULL;
    if (at)
        *at = it;
    return it ? it->v.i : -1;
}

/* The packets of a message are its parts, each of type PART(id) (gnelib
   groups them into NL frames as its timing allows; what the application
   sees is the packets). A packet wrapped in a ChannelPacket or an object
   packet belongs to its wrapper. */
#define PART(id) (0x100 + (int64_t)(id))
#define IS_WRAPPER(id) ((id) == ID_CHANNEL || (id) == ID_OBJ_CREATE || (id) == ID_OBJ_UPDATE || (id) == ID_OBJ_DEATH)

static unsigned gne_replay_parts(const gw_replay_pdu *p, gw_replay_pdu *out, unsigned max)
{
    if (p->type != MSG_PACKETS)
        return 0;
    unsigned n = 0, inside = 0; /* wrapped packets still to come */
    for (unsigned i = 0; i < p->n_items; i++) {
        const gw_item *it = &p->items[i];
        if (it->field == GNE_F_END && inside) {
            inside--; /* a wrapper with no packet */
        } else if (it->field == GNE_F_PACKET) {
            if (inside) {
                inside--;
            } else if (n < max) {
                out[n] = *p;
                out[n].items = it;
                out[n].n_items = p->n_items - i;
                out[n].type = -1;
                if (n)
                    out[n - 1].n_items = (unsigned)(it - out[n - 1].items);
                n++;
            } else {
                return max + 1; /* too many: the message as one */
            }
        } else if (it->field == GNE_F_PACKET_ID) {
            if (n && out[n - 1].type < 0)
                out[n - 1].type = PART(it->v.u);
            if (IS_WRAPPER(it->v.u))
                inside++;
        }
    }
    return n;
}

/* a ping reply (a request has T2 = T3 = 0) */
static bool ping_reply(const gw_replay_pdu *p)
{
    uint64_t reply;
    return p->type == PART(ID_PING) && gw_replay_u(p, GNE_F_PING_REPLY, &reply) && reply;
}

static gw_replay_need gne_replay_need(void *st, const gw_replay_pdu *p)
{
    (void)st;
    switch (p->type) {
    case MSG_PACKETS: /* no packet: an empty message (a lone 255: the client's first UDP datagram) */
    case PART(ID_EMPTY):
        return GW_REPLAY_OPTIONAL;
    case PART(ID_PING): /* a reply answers our request; a request comes from the peer's pinging */
        return ping_reply(p) ? GW_REPLAY_ANSWER : GW_REPLAY_PERIODIC;
    default: /* an application packet's length is not on the wire: how many
                frames show it depends on the grouping */
        return p->type >= PART(16) ? GW_REPLAY_PERIODIC : GW_REPLAY_ANSWER;
    }
}

static void gne_replay_adapt(void *st, const gw_replay_pdu *p, uint8_t *d)
{
    gne_replay_state *s = st;
    const gw_item *at;
    /* an accept without a link (port -1) stays without one */
    if (s->link.ours && port_of(p, &at) > 0)
        gw_replay_put(d, at, s->link.ours);
}

static void gne_replay_observe(void *st, const gw_replay_pdu *p, bool ours)
{
    gne_replay_state *s = st;
    int64_t port = ours ? -1 : port_of(p, NULL);
    if (port > 0 && port <= 65535 && !s->link.peers)
        s->link.peers = (uint16_t)port;
}

/* a ping reply by its request id */
static bool gne_replay_identifies(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live)
{
    (void)st;
    return !ping_reply(rec) || gw_replay_same(rec, live, GNE_F_PING_REQ_ID, NULL, NULL, 0);
}

static bool gne_replay_match(void *st, const gw_replay_pdu *rec, const gw_replay_pdu *live, char *why,
                             size_t whysz)
{
    gne_replay_state *s = st;
    const gw_item *live_at, *rec_at;
    int64_t live_port = port_of(live, &live_at);
    if (live->type == MSG_UDP_PORT && live_at && s->link.peers && live_port != s->link.peers) {
        /* its datagrams came first, from another port */
        snprintf(why, whysz, "names UDP port %ld, but its link datagrams come from port %u",
                 (long)live_port, s->link.peers);
        return false;
    }
    int64_t rec_port = port_of(rec, &rec_at);
    if (rec->type == MSG_ACCEPT && rec_at) {
        bool rec_link = rec_port > 0, live_link = live_port > 0;
        if (rec_link != live_link) {
            snprintf(why, whysz, "%s UDP link, the recording has %s", live_link ? "offers a" : "offers no",
                     rec_link ? "one" : "none");
            return false;
        }
    } else if (ping_reply(rec)) { /* a reply to the same request */
        return gw_replay_same(rec, live, GNE_F_PING_REQ_ID, "ping", why, whysz);
    }
    return true;
}

/* an ExitPacket */
static bool gne_replay_closes(void *st, const gw_replay_pdu *p)
{
    (void)st;
    return p->type == PART(ID_EXIT);
}

static gw_replay_link *gne_replay_link(void *st) { return &((gne_replay_state *)st)->link; }

const gw_replay gw_gne_replay = {.state_size = sizeof(gne_replay_state), .need = gne_replay_need,
                                 .adapt = gne_replay_adapt, .observe = gne_replay_observe,
                                 .match = gne_replay_match, .parts = gne_replay_parts,
                                 .identifies = gne_replay_identifies,
                                 .closes = gne_replay_closes,
                                 .link = gne_replay_link};
