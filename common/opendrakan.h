/* opendrakan.h - the OpenDrakan network protocol (TCP and UDP port 27046).
 *
 * Wire facts: ../shared/specs/WIRE-NOTES.md section 5 (Zalasus/opendrakan,
 * which has packets but no transport: this project puts reliable packets on
 * TCP and unreliable ones on UDP, one port) and opendrakan.md (the draft).
 */
#ifndef GW_OPENDRAKAN_H
#define GW_OPENDRAKAN_H

#include "gw_core.h"

#define OD_PORT 27046
#define OD_DB_ENTRIES 64   /* global database table entries remembered */
#define OD_DB_PATH 96      /* bytes of a database path remembered */
#define OD_SNAPSHOTS 64    /* snapshots tracked per conversation */
#define OD_ACKS 64         /* acknowledged ticks remembered */

/* which layouts: what the reference code writes, or the draft text */
enum od_variant { OD_VARIANT_REFERENCE = 0, OD_VARIANT_DRAFT = 1 };
/* booleans in a state bundle */
enum od_bools {
    OD_BOOLS_AUTO = 0,   /* option value: from the payload length */
    OD_BOOLS_BYTES = 1,  /* one byte each: the reference's master branch */
    OD_BOOLS_PACKED = 2, /* packed LSB-first: the draft and net-dev */
};

/* packet types (opendrakan.type) */
enum {
    T_DB_ENTRY, T_LOAD_LEVEL, T_STATES, T_EXTRA_STATES, T_CONFIRM, T_GLOBAL_MESSAGE,
    T_OBJECT_MESSAGE, T_EVENT, T_ACK, T_ACTION, T_ANALOG,
    /* the draft's packets the code does not have: numbered by this project */
    T_OBJECT_CREATED, T_LIFECYCLE, T_SOUND, T_ANIMATION, T_COUNT
};

/* the options (gw_option): opendrakan.variant, opendrakan.bools,
   opendrakan.default_bools, opendrakan.profile (enum gw_profile) */
enum { OD_OPT_VARIANT, OD_OPT_BOOLS, OD_OPT_DEFAULT_BOOLS, OD_OPT_PROFILE };

extern const gw_protocol gw_opendrakan_protocol;
/* pcaptool replay's hooks (replay_opendrakan.c) */
extern const struct gw_replay gw_opendrakan_replay;

#endif
