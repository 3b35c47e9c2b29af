/* gw_conform.h - pcaptool conform's cases: per protocol, a catalogue of
 * what its text (or its reference implementation) requires of an
 * implementation, each case asked of a live peer and judged only by what
 * the peer sends back or stops sending. The catalogues are in
 * common/<proto>/<proto>_conform.c (gw_conform_of() finds them);
 * pcaptool/conform.c runs them (sockets, time,
 * decoding, reports) through the gw_conform_io below. */
#ifndef GW_CONFORM_H
#define GW_CONFORM_H

#include <stdarg.h>

#include "core/gw_layout.h"
#include "active/gw_replay.h"

typedef enum {
    GW_PASS,       /* did what the text requires */
    GW_NON_STRICT, /* a SHOULD (a recommendation) not followed */
    GW_FAIL,       /* a MUST broken */
    GW_INFO,       /* the text leaves it open: what the peer did is recorded */
    GW_SKIPPED,    /* not applicable (the reason is the outcome) */
    GW_N_VERDICTS
} gw_verdict;

const char *gw_verdict_name(gw_verdict v); /* "pass", "non-strict", ... */

/* How binding the sentence a case rests on is, which bounds its verdict:
   a MUST ("must", "has to", "shall", "required") broken is a fail; a
   SHOULD ("should", "recommended", "encouraged") not followed is at most
   non-strict; where the text leaves it open (or is silent) the case
   records what the peer did (info); what only the reference
   implementation does (docs/wire-facts.md, its source: not the protocol text) is
   at most non-strict. 0: not stated yet (a catalogue that has not said). */
typedef enum {
    GW_STRENGTH_UNSTATED,
    GW_MUST,
    GW_SHOULD,
    GW_OPEN,
    GW_REFERENCE,
    GW_N_STRENGTHS
} gw_strength;

const char *gw_strength_name(gw_strength s); /* "MUST", "SHOULD", "open", "reference", "unstated" */

/* the implementation's role in a case (bits of gw_conform_case.roles) */
#define GW_ROLE_SERVER 1u /* it listens: pcaptool connects to it */
#define GW_ROLE_CLIENT 2u /* it connects: pcaptool listens */

/* what waiting for the peer gave */
typedef enum {
    GW_GOT,    /* a PDU */
    GW_SILENT, /* nothing within the time */
    GW_CLOSED, /* the connection ended (TCP: closed or reset; UDP: port unreachable) */
} gw_wait;

/* A case's view of the exchange; the driver (pcaptool) fills the
   functions and the limits. Each case starts from a fresh connection
   (the implementation as client: the one it has just opened). */
typedef struct gw_conform_io {
    unsigned role;   /* the implementation's: GW_ROLE_SERVER or GW_ROLE_CLIENT */
    /* the protocol's options; a catalogue may point it at a copy of its
       own in state, with what the run learnt (EOUDP's header generation):
       its PDUs are then built and decoded with those */
    const int *opts;
    int wait_ms;     /* how long an answer the text requires may take (--timeout) */
    void *driver;
    /* Send len bytes as one PDU (a datagram, or bytes on the stream);
       the driver decodes and records it. False when it could not go. */
    bool (*send)(struct gw_conform_io *io, const uint8_t *d, size_t len);
    /* the same over the catalogue's link (gw_conform.link) */
    bool (*send_link)(struct gw_conform_io *io, const uint8_t *d, size_t len);
    /* The peer's next PDU, decoded, within ms (items valid until the case
       ends). */
    gw_wait (*next)(struct gw_conform_io *io, int ms, gw_replay_pdu *p);
    /* what a wait the case asked for ended on decides, as far as anything
       after it does not: GW_GOT the PDU last received, GW_SILENT the
       silence until now, GW_CLOSED the connection's end (the report
       draws and marks it) */
    void (*decisive)(struct gw_conform_io *io, gw_wait w);
    /* The implementation as server: end this connection and open a fresh
       one, within the same case (false when it cannot be reached; the
       implementation as client: always false). */
    bool (*reconnect)(struct gw_conform_io *io);
    /* the link's port answered ICMP port unreachable in this case: what
       went over it cannot have arrived */
    bool (*link_refused)(struct gw_conform_io *io);
    /* what the catalogue learns once per run (gw_conform.state_size bytes,
       zeroed before the first case), e.g. the server's identity */
    void *state;
    /* the value the user gave a setting of the catalogue's
       (gw_conform.settings; pcaptool conform --set NAME=VALUE), NULL when
       none was given */
    const char *(*setting)(struct gw_conform_io *io, const char *name);
    /* what the catalogue keeps about one case (gw_conform.case_state_size
       bytes, zeroed before each case) */
    void *case_state;
    char outcome[400]; /* what happened, one sentence (gw_conform_say) */
} gw_conform_io;

typedef struct gw_conform_case {
    const char *id;      /* stable, by the text's sections: "dnp/reliable/duplicate-acked" */
    unsigned roles;      /* GW_ROLE_* it applies to */
    const char *title;
    const char *source;  /* where the requirement is: "DNP text, Reliable Communication" */
    const char *text;    /* the sentence it enforces, quoted */
    const char *sends;   /* what pcaptool sends */
    const char *expects; /* what a conforming peer does, and what each verdict means */
    gw_verdict (*run)(gw_conform_io *io);
    gw_strength strength; /* of the sentence in text (last: a catalogue that
                             does not say leaves it GW_STRENGTH_UNSTATED) */
} gw_conform_case;

/* what a user may tell a catalogue about the implementation (its game
   name, a password), where the cases would otherwise have to learn it */
typedef struct {
    const char *name;        /* "game" */
    const char *description; /* what it is and what happens without it */
} gw_conform_setting;

typedef struct gw_conform {
    int transport; /* GW_TRANSPORT_* the cases run over */
    /* a second channel on the same ports beside it (OpenDrakan: UDP beside
       TCP), 0: none; each PDU the cases get carries its transport */
    int link;
    const gw_conform_case *const *cases; /* the catalogue, in order (each case beside its run) */
    unsigned n_cases;
    /* What any conforming peer owes the implementation whatever the case
       (DNP: acknowledge its reliable commands, answer its link states),
       done for each PDU it sends before the case sees it (NULL: nothing).
       A PDU with p->echo set has the bytes of one pcaptool sent in the
       case: answering it before the peer has answered the original would
       let a peer that sends our own datagrams back pass for one that
       answers them (our ack, sent back, read as its ack). */
    void (*duty)(gw_conform_io *io, const gw_replay_pdu *p);
    /* The case is over: end the connection in band (DNP: a connection
       close, or a refusal of a request the case left unanswered; a client
       quits on either) (NULL: closing the socket is all). */
    void (*finish)(gw_conform_io *io);
    size_t state_size; /* gw_conform_io.state */
    size_t case_state_size; /* gw_conform_io.case_state */
    /* The case has ended: what the peer did that no conforming peer does
       in any case, and that a case's own checks may have taken for an
       answer (DNP: acknowledging a number pcaptool never sent, as a peer
       sending canned datagrams does). GW_PASS when nothing; else the
       verdict, with the outcome said, that replaces a pass, an info, a
       non-strict or a skipped (a case that could not judge its own question
       still saw what the audit judges: that is no matter of timing) (NULL:
       nothing to audit). */
    gw_verdict (*audit)(gw_conform_io *io);
    const gw_conform_setting *settings; /* NULL-named end; NULL: none */
    /* Why the cases cannot run with the protocol's options `opts` (a
       numbering they do not speak), said as a usage error before any case:
       pcaptool's limit is no verdict on the implementation (NULL: they can;
       the hook NULL: always). */
    const char *(*unusable)(const int *opts);
    /* what pcaptool fuzz attacks and how it probes (active/gw_fuzz.h);
       NULL: the protocol is not fuzzed yet */
    const struct gw_fuzz *fuzz;
} gw_conform;

/* ---- helpers for cases (gw_conform.c) ------------------------------------ */

/* the outcome, printf-style; returns v */
gw_verdict gw_conform_say(gw_conform_io *io, gw_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Build PDU `type` of protocol p from vals (gw_protocol.build) and send
   it (over the link: gw_conform_send_link); false (with the outcome said)
   when it cannot be built or sent. */
bool gw_conform_send(gw_conform_io *io, const gw_protocol *p, int64_t type, const gw_wval *vals);
bool gw_conform_send_link(gw_conform_io *io, const gw_protocol *p, int64_t type, const gw_wval *vals);

/* Wait up to ms for the peer's first PDU that `want` accepts (NULL: any);
   the others are only recorded. A PDU it got is marked decisive. */
typedef bool (*gw_conform_want)(const gw_replay_pdu *p, const void *arg);
gw_wait gw_conform_await(gw_conform_io *io, int ms, gw_conform_want want, const void *arg,
                         gw_replay_pdu *got);
/* the same until a moment of gw_conform_clock_ms(): for a case that
   watches a peer that keeps talking */
gw_wait gw_conform_await_until(gw_conform_io *io, int64_t deadline_ms, gw_conform_want want, const void *arg,
                               gw_replay_pdu *got);
/* A negative check that ends on evidence, as h2spec ends one with a PING:
   what must go unanswered has been sent, then (just before the call) a
   probe the text requires an answer to. Waits up to wait_ms for the
   probe's answer (`answer` accepts it) or for what must not come
   (`forbidden`). A peer takes what it gets in order, so an answer to the
   first comes before the probe's; one that answers in batches may put it
   just after, so a grace of twice the probe's round trip (at least
   GW_PROBE_GRACE_MS, at most half the wait) is watched after the answer.
   GW_GOT: *forbidden_came says which ended it (*got: that PDU, marked
   decisive); GW_SILENT or GW_CLOSED: the probe went unanswered, and the
   silence before it shows nothing. */
#define GW_PROBE_GRACE_MS 20
gw_wait gw_conform_probe(gw_conform_io *io, gw_conform_want answer, const void *answer_arg, gw_conform_want forbidden,
                         const void *forbidden_arg, gw_replay_pdu *got, bool *forbidden_came);
/* the grace after an answer to what was sent at sent_ms (gw_conform_clock_ms):
   twice the round trip, at least GW_PROBE_GRACE_MS, at most half the wait */
int64_t gw_conform_grace_ms(const gw_conform_io *io, int64_t sent_ms);
int64_t gw_conform_clock_ms(void); /* monotonic */
int64_t gw_conform_wall_ns(void);  /* the wall clock, as gw_replay_pdu.at_ns */
/* a number nobody can predict from an earlier run (ids, tokens: an answer
   must refer to what pcaptool sent, not to what a canned peer guessed) */
uint32_t gw_conform_random(void);
/* want: a PDU whose type is *(const int64_t *)arg */
bool gw_conform_of_type(const gw_replay_pdu *p, const void *arg);

/* protocol p's catalogue; NULL: none */
const gw_conform *gw_conform_of(const gw_protocol *p);

#endif
