/* gw_replay.h - the hooks a protocol gives pcaptool replay (gw_protocol.replay):
 * each protocol's are in common/replay_<proto>.c. */
#ifndef GW_REPLAY_H
#define GW_REPLAY_H

#include "gw_core.h"

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

/* What a recorded conversation must change to be played against a live
   peer, and what the peer's PDUs must keep. Each hook gets a PDU as the
   decoder does (`transport`: GW_TRANSPORT_*) and `type`, the value of the
   protocol's type_field (-1: none). The state (state_size bytes, zeroed
   before the first call) follows one replayed conversation. */
typedef struct gw_replay {
    size_t state_size;
    /* the state is zeroed, then given the protocol's options (NULL: no
       use for them) */
    void (*init)(void *state, const int *opts);
    gw_replay_need (*need)(const int *opts, int64_t type, int transport, const uint8_t *d, size_t len);
    /* One of our recorded PDUs, copied, about to be sent: rewrite in place
       the numbers that must follow the live peer (its sequence numbers,
       link ids, frames, ports). */
    void (*adapt)(void *state, int64_t type, int transport, uint8_t *d, size_t len);
    /* Every PDU of the recording, in order, before the exchange begins
       (NULL: nothing to learn from it). */
    void (*recorded)(void *state, int64_t type, int transport, bool ours, const uint8_t *d,
                     size_t len);
    /* Every PDU of the live exchange as it goes: ours once sent (adapted),
       the peer's as it comes (NULL: nothing to learn). */
    void (*observe)(void *state, int64_t type, int transport, bool ours, const uint8_t *d,
                    size_t len);
    /* The live peer's PDU `live` stands where the recording has `rec` (same
       type and need): learn the live numbering; false, with the reason in
       why[], when a field differs where it must not. */
    bool (*match)(void *state, int64_t type, int transport, const uint8_t *rec, size_t rec_len,
                  const uint8_t *live, size_t live_len, char *why, size_t whysz);
    /* The ports of the protocol's second conversation, in the state (NULL:
       it has none). */
    gw_replay_link *(*link)(void *state);
} gw_replay;

#endif
