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
extern int gw_gne_byte_order;         /* option gne.byte_order */
extern int gw_gne_profile;            /* enum gw_profile (option gne.profile) */

extern const gw_protocol gw_gne_protocol;

#endif
