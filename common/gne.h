/* gne.h - GNE, Gillius's Game Networking Engine, over HawkNL (no default
 * port): NL-framed TCP with a connection handshake, and a negotiated UDP link.
 *
 * Wire facts: ../shared/specs/WIRE-NOTES.md section 3 (gillius/gnelib) and
 * gne.md (the protocol text, whose packet tables were lost).
 */
#ifndef GW_GNE_H
#define GW_GNE_H

#include "gw_core.h"

#define GNE_NL_MAX 16384      /* HawkNL refuses longer frames */
#define GNE_MESSAGE_MAX 512   /* gnelib's Buffer::RAW_PACKET_LEN */
#define GNE_WRAP_DEPTH 8      /* nested wrapped packets decoded */
#define GNE_PINGS 32          /* outstanding ping requests per direction */

/* data byte order of a connection */
enum gne_order {
    GNE_ORDER_AUTO = 0,   /* option value: from the handshake's build field */
    GNE_ORDER_LITTLE = 1, /* gnelib after 2012 */
    GNE_ORDER_BIG = 2,    /* releases up to 0.70 */
};
/* what a message is (gne.message) */
enum message_kind { MSG_REQUEST = 1, MSG_REFUSAL, MSG_ACCEPT, MSG_UDP_PORT, MSG_PACKETS, MSG_OUT_OF_SYNC };

/* packet ids (gne.packet.id); 255 ends a message */
enum { ID_EMPTY, ID_CUSTOM, ID_EXIT, ID_RATE, ID_PING, ID_CHANNEL, ID_OBJ_CREATE,
       ID_OBJ_UPDATE, ID_OBJ_DEATH, ID_END = 255 };

/* the options (gw_option): gne.byte_order (enum gne_order), gne.profile
   (enum gw_profile) */
enum { GNE_OPT_BYTE_ORDER, GNE_OPT_PROFILE };

extern const gw_protocol gw_gne_protocol;
/* pcaptool replay's hooks (replay_gne.c) */
extern const struct gw_replay gw_gne_replay;

#endif
