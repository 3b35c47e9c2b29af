/* gw_fuzz.h - pcaptool fuzz: a protocol's PDUs, built from its layouts and
 * mutated where its decoder says the numbers are, sent to a live
 * implementation brought into a state worth attacking by the same code
 * its conform cases use; then a probe the text requires an answer to
 * tells whether it still works. A protocol takes part by giving its
 * conform catalogue (gw_conform.h) a gw_fuzz: the states it can reach,
 * the PDUs worth mutating in each, and its probe. The engine here names
 * no protocol; pcaptool/fuzz.c runs it (iterations, liveness, --exec,
 * reproducers, reports). */
#ifndef GW_FUZZ_H
#define GW_FUZZ_H

#include "active/gw_conform.h"

/* a PDU worth mutating: what the protocol's builder writes for `type` and
   `vals`, sent once the implementation is in `state` */
typedef struct gw_fuzz_target {
    const char *name; /* "reliable message": reports group failures by it */
    unsigned state;   /* index into gw_fuzz.states */
    int64_t type;     /* for gw_protocol.build */
    const gw_wval *vals;
    unsigned roles; /* the implementation's roles it goes to (GW_ROLE_*); 0: both */
    bool link;      /* sent over the catalogue's link (gw_conform.link: OpenDrakan's UDP) */
} gw_fuzz_target;

typedef struct gw_fuzz {
    const char *const *states; /* "connected", "link up" */
    unsigned n_states;
    /* on the iteration's fresh connection, bring the implementation into
       `state`: GW_PASS, else a verdict with the outcome said (it refused,
       it did not answer) */
    gw_verdict (*enter)(gw_conform_io *io, unsigned state);
    const gw_fuzz_target *targets;
    unsigned n_targets;
    /* send a PDU the text requires an answer to, in the state the last
       enter() reached, and await that answer within io->wait_ms: GW_GOT
       (answered), GW_SILENT or GW_CLOSED; *what names the probe */
    gw_wait (*probe)(gw_conform_io *io, const char **what);
    /* target t as the implementation expects it now (GNE: in the byte
       order it was found to use), at most cap bytes at out: its length,
       0 when it cannot be built (NULL: gw_protocol.build with io->opts) */
    size_t (*build)(gw_conform_io *io, const gw_fuzz_target *t, uint8_t *out, size_t cap);
    /* a replay's probe (minimising, --reproduce: the last PDU of ours, as
       it went): how many PDUs of the implementation in `role` answer it,
       *answer the ones that count (NULL: any); the hook NULL: one PDU of
       any kind. For a probe that sends nothing (OpenDrakan's server sends
       snapshots unasked) */
    unsigned (*replay_answer)(unsigned role, gw_conform_want *answer);
} gw_fuzz;

/* ---- deterministic choices -------------------------------------------- */

typedef struct {
    uint64_t s;
} gw_rng;
uint64_t gw_rng_next(gw_rng *r);            /* splitmix64 */
uint64_t gw_rng_below(gw_rng *r, uint64_t n); /* 0 .. n-1 (n > 0) */

/* ---- mutations ---------------------------------------------------------- */

/* how a mutated PDU goes (flags) */
#define GW_FUZZ_TWICE 1u    /* sent twice, back to back */
#define GW_FUZZ_BYTEWISE 2u /* a stream: one byte per write */
#define GW_FUZZ_LINK 4u     /* over the catalogue's link (gw_fuzz_target.link) */

/* One mutation of the PDU d[0..n), whose decoded items are items[0..k)
   (their offsets say where its numbers, texts and lengths are), chosen by
   r: a number set to a boundary (0, 1, its maximum, one less, one more or
   one less than it was, the top bit flipped), the PDU cut inside or right
   after a field, bytes appended, a bit flipped, the PDU sent twice, or on a
   stream byte by byte. Writes the result to out (at most cap bytes) and
   what was done, for a person, to what; returns the length and sets
   *flags. `stream`: the transport is a stream. */
size_t gw_fuzz_mutate(gw_rng *r, const gw_protocol *p, const uint8_t *d, size_t n, const gw_item *items, unsigned k,
                      bool stream, uint8_t *out, size_t cap, char *what, size_t whatn, unsigned *flags);

/* ---- shortening (minimising a failure) --------------------------------- */

/* Candidate `which` (0, 1, ... in turn) for a shorter version of the PDU
   d[0..n) whose decoded items are items[0..k): first each of its texts and
   byte fields emptied (a count or length right before one that says its
   length set to 0; a NUL that ends it kept), then its end cut by n/2,
   n/4, ... 1 bytes. On a stream (pdu_length set) whose framing d ends
   exactly, each candidate is framed again: a number of the framing header
   lowered by the bytes taken so that the framing claims the candidate's
   length, else the candidate is passed over. Writes it to out (n bytes
   at most) and, for a person, what was done; returns its length, or 0
   when `which` is past the last candidate. */
size_t gw_fuzz_shorten(const gw_protocol *p, const int *opts, const uint8_t *d, size_t n, const gw_item *items,
                       unsigned k, bool stream, unsigned which, uint8_t *out, char *what, size_t whatn);

#endif
