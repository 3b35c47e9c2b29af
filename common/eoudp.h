/* eoudp.h - EOUDP, Exodia On UDP (UDP port 8082 server, 8083 client).
 *
 * Wire facts: ../shared/specs/WIRE-NOTES.md section 4 (maelbecel/R-Type)
 * and eoudp.md (the RFC text of 27 December 2023).
 */
#ifndef GW_EOUDP_H
#define GW_EOUDP_H

#include "gw_core.h"

#define EOUDP_PORT 8082
#define EOUDP_ACKS 256   /* important packets awaiting their ack, per direction */

/* header generations */
enum eoudp_generation {
    EOUDP_GEN_AUTO = 0,  /* option value: from the size field */
    EOUDP_GEN_RFC = 1,   /* the text: cmd, f32 timestamp, id, size (21 bytes) */
    EOUDP_GEN_PAD = 2,   /* until 31 Dec 2023: the same plus a zero pad byte (22) */
    EOUDP_GEN_IMP = 3,   /* 1-8 Jan 2024: important u8 before size (22) */
    EOUDP_GEN_F64 = 4,   /* from 8 Jan 2024: f64 timestamp, important (26) */
};
enum eoudp_order { EOUDP_BIG = 1, EOUDP_LITTLE = 2 };
enum eoudp_numbering { EOUDP_NUM_IMPL = 0, EOUDP_NUM_TEXT = 1 };

extern int gw_eoudp_generation;  /* option eoudp.generation: forced, or AUTO */
extern int gw_eoudp_default;     /* option eoudp.default_generation: when ambiguous */
extern int gw_eoudp_numbering;   /* option eoudp.numbering */
extern int gw_eoudp_profile;     /* option eoudp.profile (enum gw_profile) */

extern const gw_protocol gw_eoudp_protocol;

/* "the (MTU) Maximum Transmission Unit of the network (1500 bytes)" */
#define EOUDP_MTU 1500

#endif
