/* gw_replay.h - the hooks a protocol gives pcaptool replay: each
 * protocol's are in common/<proto>/<proto>_replay.c, found by
 * gw_replay_of() (common/protocols_active.c lists them). */
#ifndef GW_REPLAY_H
#define GW_REPLAY_H

#include <stdio.h>

#include "core/gw_core.h"

/* ---- replay (pcaptool replay) ------------------------------------------- */

/* What the peer must send when the recording shows it from the peer. */
typedef enum {
    GW_REPLAY_OPTIONAL, /* may come or not (depends on time, other users, the game) */
    GW_REPLAY_PERIODIC, /* comes in any number; at least one wherever the recording has some */
    GW_REPLAY_ANSWER,   /* each one the recording has must come */
} gw_replay_need;

/* The ports of a second conversation a protocol opens beside the replayed
   one (GNE's UDP link, set up in its TCP handshake). */
typedef struct gw_replay_link {
    uint16_t ours;  /* set by pcaptool: its own UDP port for the link */
    uint16_t peers; /* the peer's: set by the hooks when it names its port, or by pcaptool
                       when its first datagram comes first (0: not known yet) */
} gw_replay_link;

/* A PDU as the hooks see it: its bytes, the value of the protocol's
   type_field (-1: none), its transport (GW_TRANSPORT_*) and the items its
   decoder reported over its own bytes (source 0), in order. The hooks read
   the peer's fields through the items, never at byte offsets of their own. */
typedef struct gw_replay_pdu {
    const uint8_t *data;
    size_t len;
    int64_t type;
    int transport;
    bool live;       /* from the live exchange, not the recording */
    bool echo;       /* conform: the same bytes as a PDU pcaptool sent in the case (ours, sent back?) */
    int64_t at_ns;   /* conform: when it arrived, wall clock (the kernel's stamp; 0: not known) */
    const gw_item *items;
    unsigned n_items;
} gw_replay_pdu;

/* Items copied away from their PDU, whose bytes are now at `data`: the
   texts and bytes read from the wire point there again (a generated text,
   derived from elsewhere, is left empty); labels are dropped. */
static inline void gw_replay_items_at(const gw_protocol *proto, gw_item *items, unsigned n,
                                      const uint8_t *data)
{
    for (unsigned i = 0; i < n; i++) {
        gw_ftype t = proto->fields[items[i].field].type;
        if (t == GW_FT_STRING || t == GW_FT_BYTES) {
            bool gen = items[i].flags & GW_ITEM_GENERATED;
            items[i].v.b.p = gen ? data : data + items[i].off;
            items[i].v.b.n = gen ? 0 : items[i].len;
        }
        items[i].label = NULL;
    }
}

/* the k-th (from 0) item of `field`, or NULL (a generated one too: a value
   the decoder derived, e.g. what the PDU's kind implies) */
static inline const gw_item *gw_replay_item(const gw_replay_pdu *p, int field, unsigned k)
{
    for (unsigned i = 0; i < p->n_items; i++)
        if (p->items[i].field == field && k-- == 0)
            return &p->items[i];
    return NULL;
}

/* the first item of `field`: its number (v.u of an unsigned field, v.i of a
   signed one as two's complement) in *v; false when the PDU has none */
static inline bool gw_replay_u(const gw_replay_pdu *p, int field, uint64_t *v)
{
    const gw_item *it = gw_replay_item(p, field, 0);
    if (it)
        *v = it->v.u;
    return it != NULL;
}

/* Does the live PDU carry the recorded one's value of `field` (true when
   the recording has none)? If not, why[] (unless NULL) says "WHAT L,
   recorded R" (L -1: the live one has none). */
static inline bool gw_replay_same(const gw_replay_pdu *rec, const gw_replay_pdu *live, int field,
                                  const char *what, char *why, size_t whysz)
{
    uint64_t r, l;
    if (!gw_replay_u(rec, field, &r))
        return true;
    bool have = gw_replay_u(live, field, &l);
    if (have && l == r)
        return true;
    if (why)
        snprintf(why, whysz, "%s %lld, recorded %llu", what, have ? (long long)l : -1LL, (unsigned long long)r);
    return false;
}

/* write v over the bytes of a number's item in d (a copy of the PDU the
   item was read from), in the byte order it was read in (a generated item
   has no bytes: nothing is written) */
static inline void gw_replay_put(uint8_t *d, const gw_item *it, uint64_t v)
{
    if (!(it->flags & GW_ITEM_GENERATED) && it->len >= 1 && it->len <= 8)
        gw_put_uint(d + it->off, (unsigned)it->len, v, (it->flags & GW_ITEM_BIG_ENDIAN) != 0);
}

/* What a recorded conversation must change to be played against a live
   peer, and what the peer's PDUs must keep. The state (state_size bytes,
   zeroed before the first call) follows one replayed conversation: it has
   seen every recorded PDU (`recorded`) before anything else is asked. */
typedef struct gw_replay {
    size_t state_size;
    /* what the peer must send when the recording shows p from it (or, for
       a live p, when the live peer sends it) */
    gw_replay_need (*need)(void *state, const gw_replay_pdu *p);
    /* One of our recorded PDUs p, about to be sent: rewrite in d, a copy of
       its bytes, the numbers that must follow the live peer (its sequence
       numbers, link ids, frames, ports). */
    void (*adapt)(void *state, const gw_replay_pdu *p, uint8_t *d);
    /* Every PDU of the recording, in order, before the exchange begins
       (NULL: nothing to learn from it). */
    void (*recorded)(void *state, const gw_replay_pdu *p, bool ours);
    /* Every PDU of the live exchange as it goes: ours once sent (adapted),
       the peer's as it comes (NULL: nothing to learn). */
    void (*observe)(void *state, const gw_replay_pdu *p, bool ours);
    /* The live peer's PDU `live` stands where the recording has `rec` (same
       type and need): learn the live numbering; false, with the reason in
       why[], when a field differs where it must not. */
    bool (*match)(void *state, const gw_replay_pdu *rec, const gw_replay_pdu *live, char *why,
                  size_t whysz);
    /* The parts of the peer's PDU p its application takes one by one where
       how they are grouped is the sender's to choose (GNE: the packets of
       a message, grouped into NL frames as gnelib's timing allows): at
       most `max` views into out[], each with its own type and its slice of
       p's items; their count, or 0 when p is one part. Then each part is
       what is awaited, matched and counted. NULL: every PDU is one part. */
    unsigned (*parts)(const gw_replay_pdu *p, gw_replay_pdu *out, unsigned max);
    /* Does the live PDU stand for the recorded one by the fields that
       identify it (the number an ack names, a link id, a ping's id, a
       command)? When several recorded PDUs of a kind await an answer at
       once, each live one pairs with the first it identifies (a legal
       reorder), else with the first (and match() says what differs). NULL:
       by position only. No side effects. */
    bool (*identifies)(void *state, const gw_replay_pdu *rec, const gw_replay_pdu *live);
    /* Is the peer's PDU p one it already sent (a copy of a datagram, a
       resend under the same number)? Then it is the same PDU: shown, but
       neither an answer nor one the recording does not have. NULL: none. */
    bool (*repeats)(void *state, const gw_replay_pdu *p);
    /* Does the peer's PDU p end the conversation in band (a close, an exit,
       a disconnect, a fatal error)? Where the recording has no such PDU
       while the replay still has something to send or to await, the
       replay ends there as `connection lost`. NULL: the protocol has none. */
    bool (*closes)(void *state, const gw_replay_pdu *p);
    /* The ports of the protocol's second conversation, in the state (NULL:
       it has none). */
    gw_replay_link *(*link)(void *state);
} gw_replay;

/* protocol p's replay hooks; NULL: none (PDUs are then sent as recorded and
   every answer is required and compared by type only) */
const gw_replay *gw_replay_of(const gw_protocol *p);

#endif
