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

/* the options (gw_option): eoudp.generation (forced, or AUTO),
   eoudp.default_generation (when ambiguous), eoudp.numbering,
   eoudp.profile (enum gw_profile) */
enum { EOUDP_OPT_GENERATION, EOUDP_OPT_DEFAULT, EOUDP_OPT_NUMBERING, EOUDP_OPT_PROFILE };

/* A datagram's header as the decoder reads it (for pcaptool replay): its
   length, where the id is, the byte order, whether the packet awaits an
   acknowledge, under the options opt. *gen and *order: the conversation's
   generation and order so far (0: not known), updated. False when no
   generation fits the datagram. */
typedef struct {
    size_t hl, id_off;
    bool big, important;
} eoudp_header;
bool eoudp_read_header(const int *opt, int *gen, int *order, const uint8_t *d, size_t len,
                       eoudp_header *h);

extern const gw_protocol gw_eoudp_protocol;
/* pcaptool replay's hooks (replay_eoudp.c) */
extern const struct gw_replay gw_eoudp_replay;

/* "the (MTU) Maximum Transmission Unit of the network (1500 bytes)" */
#define EOUDP_MTU 1500

#endif
