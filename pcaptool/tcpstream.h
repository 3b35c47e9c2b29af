/* tcpstream.h - TCP reassembly into PDUs, written once for every TCP
 * protocol: one byte stream per direction, in sequence order, cut into
 * PDUs by the protocol's framing function (gw_protocol.pdu_length).
 *
 * Handles PDUs split across segments, several PDUs in one segment,
 * out-of-order segments (kept until the bytes before them come, whether a
 * PDU is under way or the stream sits at a PDU boundary), retransmissions
 * and overlaps, and gaps (missing data that never comes: the early bytes
 * pass TCP_OOO_MAX or the stream ends; the PDU that needed it is dropped
 * and the stream resumes at the next segment past it, as Wireshark does).
 * Early bytes sit in a ring indexed by sequence number, with a bit for each
 * byte that came: adjacent and overlapping segments cost nothing more, and
 * storing, taking and skipping are linear in the bytes, whatever the order.
 * Memory per direction is bounded: the pending bytes of one PDU (at most the
 * protocol's largest PDU plus one segment) and early bytes up to TCP_OOO_MAX
 * past the first missing one; and all the halves sharing a tcp_budget
 * together hold at most its limit (plus one segment), counted as allocated
 * (buffers at their capacity, allocator overhead included): beyond it, the
 * half that needs more gives up its PDU.
 *
 * Where each PDU and event belongs: every segment comes with its stamp
 * (its frame number and time). A PDU gets the stamp of the segment that
 * completed it: the latest of the segments that brought its bytes and the
 * bytes before it in the stream (bytes lost in a gap aside). In order, that
 * is the segment holding its last byte; when a late segment fills a hole,
 * the late one (as Wireshark's out-of-order reassembly shows it). PDUs
 * decoded from early bytes once the missing ones are given up (a gap at
 * the stream's end, or past TCP_OOO_MAX) get the stamps of the early
 * segments that brought them: each early segment leaves a mark (its
 * sequence range and stamp), at most TCP_MARKS_MAX per direction, kept in
 * sequence order with the ring (allocated with it, counted in the budget).
 * Past that bound a new mark merges into its neighbour in sequence (their
 * range joined, the later stamp kept): a PDU from those bytes may then be
 * put on a later frame than the one that brought its last byte, never on
 * an earlier one and never after the segment being read. A gap is on the
 * first segment after the missing bytes (Wireshark's "previous segment not
 * captured"); a stream ending inside a PDU on the segment that ended it
 * (its FIN or RST), or, when the capture or the conversation ends first,
 * on the stamp tcp_half_finish is given.
 *
 * Halves holding early bytes are listed in their budget, with the frame of
 * the earliest early segment each holds (tcp_budget_earliest): no PDU or
 * event they deliver later can be on an earlier frame, which tells a
 * reader of many conversations when its output can be written in frame
 * order. */
#ifndef PCAPTOOL_TCPSTREAM_H
#define PCAPTOOL_TCPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gw_core.h"

#define TCP_OOO_MAX (256u * 1024) /* how far past the first missing byte early bytes are kept */

#define TCP_BUDGET_DEFAULT (64u << 20) /* bytes all conversations may hold */

#define TCP_MARKS_MAX 1024u /* early segments remembered per direction (where each PDU belongs) */

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

/* where a segment was captured: its frame number and time */
typedef struct {
    uint32_t frame;
    int64_t time_ns;
    int64_t prev_ns; /* the time of the frame before (frame - 1; its own for frame 1) */
} tcp_stamp;

/* an early segment: its sequence range and stamp */
typedef struct {
    uint32_t seq, end;
    tcp_stamp at;
} tcp_mark;

typedef struct tcp_half tcp_half;

typedef struct {
    size_t used, limit;
    tcp_half *holding; /* the halves holding early bytes (a list through hold_next) */
} tcp_budget;

/* one direction of a connection; kept inside its flow (one place to reach
   per segment). Read and changed only through the functions below. Laid
   out in three 64-byte lines (a flow starts each half on a line of its own,
   flows.h): the first is all that a segment in order with no PDU under way
   reads and writes (and an acknowledgment alone), the second what a PDU
   under way or early bytes add, the third the list of halves holding early
   bytes. */
struct tcp_half {
    /* the first line */
    bool started, closed;
    bool fin_seen;         /* FIN or RST seen; closed once nothing before it is missing */
    bool holding;          /* in budget->holding (early bytes held) */
    uint32_t next_seq;     /* next byte expected */
    uint32_t fin_seq;      /* the sequence number the stream ends at */
    uint32_t early_cap;    /* the ring's size (below) */
    size_t buf_len;        /* bytes of the PDU under way, in buf */
    long pending_len;      /* its length once known, else 0 */
    size_t early_present;  /* early bytes that came */
    tcp_stamp at;          /* the latest stamp of the bytes taken so far (the PDU under way's) */
    /* the second line */
    uint8_t *buf;          /* bytes of the PDU under way (end at next_seq) */
    size_t buf_cap;
    tcp_budget *budget;    /* shared by the halves of a flow table */
    size_t held;           /* what this half counts in budget->used */
    /* early bytes (after a hole at next_seq): a ring over sequence numbers,
       early_cap bytes (a power of two, or 0 with nothing allocated) holding
       [next_seq, next_seq + early_cap), and a bit for each byte that came */
    uint8_t *early;
    uint64_t *early_map;
    /* the early segments' marks, in sequence order; marks_cap 0: none allocated */
    tcp_mark *marks;
    uint32_t n_marks, marks_cap;
    /* the third line */
    uint32_t early_frame;  /* the earliest frame among the marks */
    tcp_half *hold_prev, *hold_next; /* in budget->holding while early bytes are held */
    uint8_t pad[40];       /* to the third line's end: a half is three whole lines */
};

/* transport-level events, reported beside the PDUs (as the findings of the
   same index in run.h's run_findings) */
typedef enum {
    TCP_EV_GAP,          /* bytes never captured: a PDU was lost */
    TCP_EV_OOO_LIMIT,    /* too many early bytes buffered: treated as a gap */
    TCP_EV_END_IN_PDU,   /* FIN/RST or end of capture inside a PDU */
    TCP_EV_MEMORY_LIMIT, /* the budget is spent: a PDU under way given up */
    TCP_N_EVENTS
} tcp_event;

/* each PDU and event with the stamp it belongs to (tcp_cut: the one it was
   given, possibly NULL) */
typedef struct {
    void (*pdu)(void *ctx, const uint8_t *data, size_t len, const tcp_stamp *at);
    void (*event)(void *ctx, tcp_event ev, uint64_t bytes, const tcp_stamp *at);
    void *ctx;
} tcp_sink;

void tcp_half_init(tcp_half *h, tcp_budget *budget);
/* gives up what h holds (h may be initialised again) */
void tcp_half_release(tcp_half *h);
void tcp_half_reset(tcp_half *h);
/* one segment in this direction, captured at `at`; flags as in the TCP
   header. Inline, the usual segments: one that changes nothing (no data
   and no SYN, FIN or RST: an acknowledgment alone, once the half started;
   the first segment seen starts it, whatever it holds), and one that
   brings the next bytes when no PDU is under way, whose whole PDUs go
   straight from it (tcp_half_keep takes a PDU it leaves unfinished); the
   rest by tcp_half_segment_any. */
void tcp_half_segment_any(tcp_half *h, const gw_protocol *p, const int *opts, uint32_t seq, uint8_t flags,
                          const uint8_t *data, size_t len, const tcp_stamp *at, const tcp_sink *out);
/* the start of a PDU the segment at `at` left unfinished, buffered (or,
   with the budget spent, given up: the next segment starts afresh) */
void tcp_half_keep(tcp_half *h, const uint8_t *data, size_t len, const tcp_stamp *at, const tcp_sink *out);
/* The framing alone: hand on the complete PDUs at the start of d[0..len)
   (bytes that cannot start a PDU go as one, to be reported); returns the
   bytes used, and sets *pending_len to the length of the PDU the rest
   starts (0 when not known yet). Inline: the link-time optimiser does not
   always inline it into tcp_half_segment's usual case (28 instructions a
   packet on OpenTTD's capture when it did not). */
static inline size_t tcp_cut(const gw_protocol *p, const int *opts, const uint8_t *d, size_t len,
                             const tcp_stamp *at, const tcp_sink *out, long *pending_len)
{
    size_t used = 0;
    *pending_len = 0;
    while (used < len) {
        size_t avail = len - used;
        if (avail < p->pdu_header)
            break;
        long n = p->pdu_length(opts, d + used, avail);
        if (n == 0)
            break;
        if (n < 0) { /* not a PDU start: the rest goes as one, to be reported */
            out->pdu(out->ctx, d + used, avail, at);
            used += avail;
            break;
        }
        if ((size_t)n > avail) {
            *pending_len = n;
            break;
        }
        out->pdu(out->ctx, d + used, (size_t)n, at);
        used += (size_t)n;
    }
    return used;
}
/* the next bytes of the stream at `at`, no PDU under way: its whole PDUs
   straight from them, the start of one they leave unfinished kept */
static inline void tcp_half_cut_next(tcp_half *h, const gw_protocol *p, const int *opts, const uint8_t *data,
                                     size_t len, const tcp_stamp *at, const tcp_sink *out)
{
    h->next_seq += (uint32_t)len;
    size_t used = tcp_cut(p, opts, data, len, at, out, &h->pending_len);
    if (used < len)
        tcp_half_keep(h, data + used, len - used, at, out);
}
static inline void tcp_half_segment(tcp_half *h, const gw_protocol *p, const int *opts, uint32_t seq,
                                    uint8_t flags, const uint8_t *data, size_t len, const tcp_stamp *at,
                                    const tcp_sink *out)
{
    if (!(flags & (TCP_SYN | TCP_FIN | TCP_RST)) && h->started) {
        if (len == 0)
            return; /* what tcp_half_segment_any would do with it: nothing */
        if (seq == h->next_seq && at && !(h->closed | h->fin_seen) && !(h->buf_len | h->early_present)) {
            h->at = *at;
            tcp_half_cut_next(h, p, opts, data, len, at, out);
            return;
        }
    }
    tcp_half_segment_any(h, p, opts, seq, flags, data, len, at, out);
}
/* the capture (or the conversation) ended: bytes still missing are a gap,
   the early segments after it are decoded (each PDU on its own segments'
   stamp), a PDU left incomplete is reported (on `end`) */
void tcp_half_finish(tcp_half *h, const gw_protocol *p, const int *opts, const tcp_stamp *end,
                     const tcp_sink *out);
/* the earliest frame of the early bytes any half of the budget holds:
   false when none holds any (inline: asked once a PDU, and usually none
   holds any) */
bool tcp_budget_earliest_held(const tcp_budget *b, uint32_t *frame);
static inline bool tcp_budget_earliest(const tcp_budget *b, uint32_t *frame)
{
    return b->holding && tcp_budget_earliest_held(b, frame);
}

#endif
