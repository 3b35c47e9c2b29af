/* tcpstream.c - see tcpstream.h */
#include "tcpstream.h"

#include <glib.h>
#include <stddef.h>
#include <string.h>

#define ALLOC_OVERHEAD 16 /* bytes glibc adds to an allocation */
#define EARLY_MIN 256     /* the smallest ring */
#define EARLY_KEEP 4096   /* a ring up to this size is kept when it empties */
#define MARKS_MIN 16      /* the first array of marks */

_Static_assert(offsetof(tcp_half, buf) == 64 && offsetof(tcp_half, early_frame) == 128 &&
                   sizeof(tcp_half) == 192,
               "tcp_half: the lines as tcpstream.h says");

/* what this half holds, as allocated */
static inline size_t half_cost(const tcp_half *h)
{
    size_t n = h->buf_cap ? h->buf_cap + ALLOC_OVERHEAD : 0;
    if (h->early_cap)
        n += h->early_cap + h->early_cap / 8 + 2 * ALLOC_OVERHEAD;
    if (h->marks_cap)
        n += h->marks_cap * sizeof(tcp_mark) + ALLOC_OVERHEAD;
    return n;
}

/* account() when something changed */
static __attribute__((noinline)) void account_changed(tcp_half *h, size_t now)
{
    h->budget->used = h->budget->used - h->held + now;
    h->held = now;
    bool hold = h->early_present > 0;
    if (hold != h->holding) {
        if (hold) {
            h->hold_prev = NULL;
            h->hold_next = h->budget->holding;
            if (h->hold_next)
                h->hold_next->hold_prev = h;
            h->budget->holding = h;
        } else {
            if (h->hold_prev)
                h->hold_prev->hold_next = h->hold_next;
            else
                h->budget->holding = h->hold_next;
            if (h->hold_next)
                h->hold_next->hold_prev = h->hold_prev;
            h->hold_prev = h->hold_next = NULL;
        }
        h->holding = hold;
    }
    if (hold) {
        uint32_t first = h->n_marks ? h->marks[0].at.frame : h->at.frame;
        for (uint32_t i = 1; i < h->n_marks; i++)
            if (h->marks[i].at.frame < first)
                first = h->marks[i].at.frame;
        h->early_frame = first;
    }
}

/* bring budget->used up to date with what this half holds, and the list of
   halves holding early bytes with whether this one does (inline: once a
   segment, and usually nothing changed) */
static inline void account(tcp_half *h)
{
    size_t now = half_cost(h);
    if (now == h->held && !(h->early_present | h->holding))
        return; /* the same count, no early bytes held now or before */
    account_changed(h, now);
}

/* tcp_budget_earliest, when some half holds early bytes */
bool tcp_budget_earliest_held(const tcp_budget *b, uint32_t *frame)
{
    uint32_t first = UINT32_MAX;
    for (const tcp_half *h = b->holding; h; h = h->hold_next)
        if (h->early_frame < first)
            first = h->early_frame;
    *frame = first;
    return true;
}

static int32_t seq_diff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

/* the PDU buffer's capacity for `len` bytes */
static size_t buf_cap_for(const tcp_half *h, size_t len)
{
    size_t cap = h->buf_cap ? h->buf_cap : 256;
    while (cap < len)
        cap *= 2;
    return cap;
}

/* what holding `total` bytes of PDU would add to the half's cost */
static size_t buf_growth(const tcp_half *h, size_t total)
{
    if (total <= h->buf_cap)
        return 0;
    return buf_cap_for(h, total) - h->buf_cap + (h->buf_cap ? 0 : ALLOC_OVERHEAD);
}

static void buf_append(tcp_half *h, const uint8_t *data, size_t len)
{
    if (len == 0)
        return;
    if (h->buf_len + len > h->buf_cap) {
        h->buf_cap = buf_cap_for(h, h->buf_len + len);
        h->buf = g_realloc(h->buf, h->buf_cap);
    }
    memcpy(h->buf + h->buf_len, data, len);
    h->buf_len += len;
}

/* the PDU under way is gone (delivered, lost or given up); a buffer that
   grew large is given back, so that idle conversations hold little */
static void drop_pdu(tcp_half *h)
{
    h->buf_len = 0;
    h->pending_len = 0;
    if (h->buf_cap > 4096) {
        g_free(h->buf);
        h->buf = NULL;
        h->buf_cap = 0;
    }
}

void tcp_half_init(tcp_half *h, tcp_budget *budget)
{
    memset(h, 0, sizeof *h);
    h->budget = budget;
}

/* ---- the early bytes ------------------------------------------------------ */

static bool early_has(const tcp_half *h, uint32_t seq)
{
    uint32_t i = seq & (h->early_cap - 1);
    return h->early_cap && seq_diff(seq, h->next_seq) >= 0 &&
           (uint32_t)seq_diff(seq, h->next_seq) < h->early_cap &&
           (h->early_map[i / 64] >> (i % 64) & 1);
}

static void early_free(tcp_half *h)
{
    g_free(h->early);
    g_free(h->early_map);
    h->early = NULL;
    h->early_map = NULL;
    h->early_cap = 0;
    h->early_present = 0;
}

/* ---- the early segments' marks -------------------------------------------- */

static const tcp_stamp *later(const tcp_stamp *a, const tcp_stamp *b)
{
    return b->frame > a->frame ? b : a;
}

/* an early segment [seq, end) that brought new bytes, captured at `at`:
   its mark goes in sequence order; with no room (TCP_MARKS_MAX, or the
   budget) it joins its neighbour */
static void mark_add(tcp_half *h, uint32_t seq, uint32_t end, const tcp_stamp *at)
{
    uint32_t i = h->n_marks;
    while (i > 0 && seq_diff(h->marks[i - 1].seq, seq) > 0)
        i--;
    if (h->n_marks == h->marks_cap) {
        uint32_t cap = h->marks_cap ? h->marks_cap * 2 : MARKS_MIN;
        size_t more = (cap - h->marks_cap) * sizeof(tcp_mark) + (h->marks_cap ? 0 : ALLOC_OVERHEAD);
        if (cap <= TCP_MARKS_MAX && h->budget->used + more <= h->budget->limit) {
            h->marks = g_renew(tcp_mark, h->marks, cap);
            h->marks_cap = cap;
            account(h);
        } else if (h->n_marks) {
            tcp_mark *m = &h->marks[i ? i - 1 : 0];
            if (seq_diff(seq, m->seq) < 0)
                m->seq = seq;
            if (seq_diff(end, m->end) > 0)
                m->end = end;
            m->at = *later(&m->at, at);
            return;
        } else {
            return; /* no room for one: the PDUs take the stamp they are read at */
        }
    }
    memmove(h->marks + i + 1, h->marks + i, (h->n_marks - i) * sizeof(tcp_mark));
    h->marks[i] = (tcp_mark){seq, end, *at};
    h->n_marks++;
}

/* the bytes before seq are taken or skipped: their marks go (an array
   that grew is given back once empty) */
static void marks_drop_before(tcp_half *h, uint32_t seq)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < h->n_marks; i++)
        if (seq_diff(h->marks[i].end, seq) > 0)
            h->marks[k++] = h->marks[i];
    h->n_marks = k;
    if (k == 0 && h->marks_cap > MARKS_MIN) {
        g_free(h->marks);
        h->marks = NULL;
        h->marks_cap = 0;
    }
}


/* the stamp of the stream up to end: the latest of h->at and the marks
   of the early bytes before end */
static tcp_stamp stamp_upto(const tcp_half *h, uint32_t end)
{
    const tcp_stamp *at = &h->at;
    for (uint32_t i = 0; i < h->n_marks && seq_diff(h->marks[i].seq, end) < 0; i++)
        at = later(at, &h->marks[i].at);
    return *at;
}

/* the stamp of the early segment that brought the byte at seq (the first
   to come of those holding it), or `none` */
static tcp_stamp stamp_of(const tcp_half *h, uint32_t seq, const tcp_stamp *none)
{
    const tcp_stamp *at = NULL;
    for (uint32_t i = 0; i < h->n_marks && seq_diff(h->marks[i].seq, seq) <= 0; i++)
        if (seq_diff(h->marks[i].end, seq) > 0 && (!at || h->marks[i].at.frame < at->frame))
            at = &h->marks[i].at;
    return at ? *at : *none;
}

/* Visit the ring positions of [seq, seq + n) (n <= early_cap) a 64-bit map
   word at a time: fn(h, pos, count, mask, ctx) for each piece, pos its
   first position, mask its bits within the word. */
typedef void (*span_fn)(tcp_half *h, uint32_t pos, uint32_t count, uint64_t mask, void *ctx);
static void early_spans(tcp_half *h, uint32_t seq, uint32_t n, span_fn fn, void *ctx)
{
    while (n) {
        uint32_t pos = seq & (h->early_cap - 1);
        uint32_t bit = pos % 64;
        uint32_t count = 64 - bit < n ? 64 - bit : n;
        uint64_t mask = (count == 64 ? ~0ull : ((1ull << count) - 1)) << bit;
        fn(h, pos, count, mask, ctx);
        seq += count;
        n -= count;
    }
}

/* forget the early bytes of a span (they were taken or skipped) */
static void clear_span(tcp_half *h, uint32_t pos, uint32_t count, uint64_t mask, void *ctx)
{
    (void)count; (void)ctx;
    uint64_t *w = &h->early_map[pos / 64];
    h->early_present -= (size_t)__builtin_popcountll(*w & mask);
    *w &= ~mask;
}

/* copy the bytes of a span that did not come yet (the first copy of a byte
   is kept, as in the stream before it) */
static void put_span(tcp_half *h, uint32_t pos, uint32_t count, uint64_t mask, void *ctx)
{
    const uint8_t **src = ctx;
    uint64_t *w = &h->early_map[pos / 64];
    uint64_t fresh = mask & ~*w;
    if (fresh == mask) {
        memcpy(h->early + pos, *src, count);
    } else {
        for (uint64_t m = fresh; m; m &= m - 1) {
            unsigned b = (unsigned)__builtin_ctzll(m);
            h->early[pos - pos % 64 + b] = (*src)[b - pos % 64];
        }
    }
    h->early_present += (size_t)__builtin_popcountll(fresh);
    *w |= mask;
    *src += count;
}

/* copy early bytes that are all present onto the PDU buffer */
static void take_span(tcp_half *h, uint32_t pos, uint32_t count, uint64_t mask, void *ctx)
{
    (void)mask; (void)ctx;
    buf_append(h, h->early + pos, count);
}

/* forget early bytes before seq (skipped, or sent again in order) */
static void early_drop_before(tcp_half *h, uint32_t from, uint32_t seq)
{
    if (!h->early_present)
        return;
    int32_t n = seq_diff(seq, from);
    if (n <= 0)
        return;
    early_spans(h, from, (uint32_t)n < h->early_cap ? (uint32_t)n : h->early_cap, clear_span, NULL);
}

/* the number of early bytes present from seq on, without a hole */
static uint32_t early_run(const tcp_half *h, uint32_t seq)
{
    uint32_t n = 0;
    while (n < h->early_cap) {
        uint32_t pos = (seq + n) & (h->early_cap - 1);
        uint64_t w = h->early_map[pos / 64] >> (pos % 64);
        unsigned ones = w == ~0ull ? 64 : (unsigned)__builtin_ctzll(~w);
        if (ones > 64 - pos % 64)
            ones = 64 - pos % 64;
        n += ones;
        if (pos % 64 + ones < 64)
            break;
    }
    return n < h->early_cap ? n : h->early_cap;
}

/* the first early byte at or after next_seq (there is one) */
static uint32_t early_first(const tcp_half *h)
{
    uint32_t n = 0;
    for (;;) {
        uint32_t pos = (h->next_seq + n) & (h->early_cap - 1);
        uint64_t w = h->early_map[pos / 64] >> (pos % 64);
        if (w)
            return h->next_seq + n + (uint32_t)__builtin_ctzll(w);
        n += 64 - pos % 64;
    }
}

/* make the ring hold [next_seq, end): false when that would take the
   budget past its limit */
static bool early_reserve(tcp_half *h, uint32_t end)
{
    uint32_t need = (uint32_t)seq_diff(end, h->next_seq);
    if (need <= h->early_cap)
        return true;
    uint32_t cap = EARLY_MIN;
    while (cap < need)
        cap *= 2;
    size_t more = cap + cap / 8 + 2 * ALLOC_OVERHEAD -
                  (h->early_cap ? h->early_cap + h->early_cap / 8 + 2 * ALLOC_OVERHEAD : 0);
    if (h->budget->used + more > h->budget->limit)
        return false;
    uint8_t *bytes = g_malloc(cap);
    uint64_t *map = g_malloc0(cap / 8);
    /* the bytes present move to their places in the larger ring */
    for (uint32_t n = 0; h->early_present && n < h->early_cap; n++) {
        uint32_t seq = h->next_seq + n, from = seq & (h->early_cap - 1), to = seq & (cap - 1);
        if (h->early_map[from / 64] >> (from % 64) & 1) {
            bytes[to] = h->early[from];
            map[to / 64] |= 1ull << (to % 64);
        }
    }
    size_t present = h->early_present;
    early_free(h);
    h->early = bytes;
    h->early_map = map;
    h->early_cap = cap;
    h->early_present = present;
    account(h);
    return true;
}

/* an early segment (seq after next_seq, its end within the ring) */
static void early_put(tcp_half *h, uint32_t seq, const uint8_t *data, size_t len)
{
    early_spans(h, seq, (uint32_t)len, put_span, &data);
}

static void drop_early(tcp_half *h)
{
    if (h->early_cap > EARLY_KEEP)
        early_free(h);
    else if (h->early_cap)
        memset(h->early_map, 0, h->early_cap / 8);
    h->early_present = 0;
}

/* the early bytes are all given up, and their marks */
static void forget_early(tcp_half *h)
{
    drop_early(h);
    h->n_marks = 0;
    marks_drop_before(h, h->next_seq);
}

void tcp_half_reset(tcp_half *h)
{
    forget_early(h);
    drop_pdu(h);
    h->started = h->closed = h->fin_seen = false;
    account(h);
}

void tcp_half_release(tcp_half *h)
{
    if (!h->buf && !h->early && !h->marks && !h->held && !h->holding) {
        tcp_half_init(h, h->budget); /* nothing held: nothing to give up */
        return;
    }
    tcp_half_reset(h);
    early_free(h);
    g_free(h->marks);
    h->marks = NULL;
    h->marks_cap = 0;
    g_free(h->buf);
    h->buf = NULL;
    h->buf_cap = 0;
    account(h);
    tcp_half_init(h, h->budget);
}

/* PDUs cut from early bytes: each on the stamp of the stream up to its end */
typedef struct {
    tcp_half *h;
    const tcp_sink *out;
} marked_cut;

static void marked_pdu(void *ctx, const uint8_t *d, size_t len, const tcp_stamp *unused)
{
    marked_cut *c = ctx;
    (void)unused;
    uint32_t end = c->h->next_seq - (uint32_t)c->h->buf_len + (uint32_t)(d - c->h->buf) + (uint32_t)len;
    tcp_stamp at = stamp_upto(c->h, end);
    c->out->pdu(c->out->ctx, d, len, &at);
}

/* cut complete PDUs off the front of buf: all on `at`, or (NULL) each on
   the marks of its bytes */
static void deliver(tcp_half *h, const gw_protocol *p, const int *opts, const tcp_stamp *at,
                    const tcp_sink *out)
{
    marked_cut mc = {h, out};
    tcp_sink marked = {marked_pdu, out->event, &mc};
    size_t used = tcp_cut(p, opts, h->buf, h->buf_len, at, at ? out : &marked, &h->pending_len);
    if (used) {
        memmove(h->buf, h->buf + used, h->buf_len - used);
        h->buf_len -= used;
    }
    if (h->buf_len == 0)
        drop_pdu(h);
}

/* append in-order bytes, then the early bytes that now follow them */
static void append(tcp_half *h, const uint8_t *data, size_t len)
{
    uint32_t from = h->next_seq;
    buf_append(h, data, len);
    h->next_seq += (uint32_t)len;
    if (!h->early_present)
        return;
    early_drop_before(h, from, h->next_seq); /* early copies of these bytes */
    uint32_t run = early_run(h, h->next_seq);
    if (run) {
        early_spans(h, h->next_seq, run, take_span, NULL);
        early_spans(h, h->next_seq, run, clear_span, NULL);
        h->next_seq += run;
    }
    if (!h->early_present)
        drop_early(h);
}

/* Where to resume when the bytes before the first early byte will never
   come: at the end of the PDU under way when its length is known and an
   early byte is there (the next PDU starts there), else at the first early
   byte. */
static uint32_t gap_resume(const tcp_half *h)
{
    uint32_t first = early_first(h);
    if (h->pending_len <= 0)
        return first;
    uint32_t pdu_end = h->next_seq - (uint32_t)h->buf_len + (uint32_t)h->pending_len;
    return seq_diff(pdu_end, first) > 0 && early_has(h, pdu_end) ? pdu_end : first;
}

/* bytes up to seq will never come (said on `at`): drop the PDU that needed
   them (and early bytes before seq) */
static void skip_gap(tcp_half *h, uint32_t seq, const tcp_sink *out, tcp_event why, const tcp_stamp *at)
{
    out->event(out->ctx, why, (uint64_t)(uint32_t)seq_diff(seq, h->next_seq), at);
    early_drop_before(h, h->next_seq, seq);
    marks_drop_before(h, seq);
    drop_pdu(h);
    h->next_seq = seq;
}

/* the stream ended (seen at `at`): a PDU left incomplete is reported */
static void close_half(tcp_half *h, const tcp_sink *out, const tcp_stamp *at)
{
    if (h->buf_len)
        out->event(out->ctx, TCP_EV_END_IN_PDU, h->buf_len, at);
    drop_pdu(h);
    forget_early(h);
    h->closed = true;
}

/* the missing bytes before the early ones are given up (why): decoding
   resumes where gap_resume says; the gap is on the segment after the
   missing bytes, each PDU on the early segments that brought it */
static void give_up_gap(tcp_half *h, const gw_protocol *p, const int *opts, const tcp_sink *out,
                        tcp_event why)
{
    tcp_stamp gap_at = stamp_of(h, early_first(h), &h->at);
    skip_gap(h, gap_resume(h), out, why, &gap_at);
    append(h, NULL, 0);
    deliver(h, p, opts, NULL, out);
    h->at = stamp_upto(h, h->next_seq);
    marks_drop_before(h, h->next_seq);
}

void tcp_half_keep(tcp_half *h, const uint8_t *data, size_t len, const tcp_stamp *at, const tcp_sink *out)
{
    if (h->budget->used + buf_growth(h, len) > h->budget->limit) {
        out->event(out->ctx, TCP_EV_MEMORY_LIMIT, len, at);
        drop_pdu(h);
    } else {
        buf_append(h, data, len);
    }
    account(h);
}

void tcp_half_segment_any(tcp_half *h, const gw_protocol *p, const int *opts, uint32_t seq, uint8_t flags,
                          const uint8_t *data, size_t len, const tcp_stamp *at, const tcp_sink *out)
{
    static const tcp_stamp unknown;
    if (!at)
        at = &unknown;
    if (flags & TCP_SYN) {
        tcp_half_reset(h);
        h->started = true;
        h->next_seq = seq + 1;
        seq += 1;
    } else if (!h->started) {
        h->started = true;   /* the capture began inside the connection */
        h->next_seq = seq;
    }
    if ((flags & (TCP_FIN | TCP_RST)) && !h->fin_seen) {
        h->fin_seen = true;
        h->fin_seq = seq + (uint32_t)len; /* where the stream ends */
    }
    if (len > 0 && !h->closed) {
        int32_t d = seq_diff(seq, h->next_seq);
        if (d > 0) {
            /* early: kept until the missing bytes come (whether a PDU waits
               for them or not), the early bytes would reach over
               TCP_OOO_MAX past the first missing one, or the stream ends:
               only then is it a gap */
            uint32_t end = seq + (uint32_t)len;
            while (d > 0 && (uint32_t)seq_diff(end, h->next_seq) > TCP_OOO_MAX) {
                if (h->early_present)
                    give_up_gap(h, p, opts, out, TCP_EV_OOO_LIMIT);
                else
                    skip_gap(h, seq, out, TCP_EV_OOO_LIMIT, at);
                d = seq_diff(seq, h->next_seq);
            }
            if (d > 0 && early_reserve(h, end)) {
                size_t before = h->early_present;
                early_put(h, seq, data, len);
                if (h->early_present > before)
                    mark_add(h, seq, end, at);
                goto flags_done;
            }
            if (d > 0) {
                /* no room to keep it: what waits for the missing bytes is
                   given up, resume here */
                skip_gap(h, seq, out, TCP_EV_MEMORY_LIMIT, at);
                forget_early(h);
                d = 0;
            }
        }
        if (d < 0) { /* retransmission or overlap: keep only new bytes */
            if ((int64_t)len <= -(int64_t)d)
                goto flags_done;
            data += -d;
            len -= (size_t)-d;
            seq = h->next_seq;
        }
        if (h->buf_len + h->early_present > 0 &&
            h->budget->used + buf_growth(h, h->buf_len + len) > h->budget->limit) {
            /* all conversations together hold too much: this one's PDU
               under way is given up, decoding resumes with this segment */
            out->event(out->ctx, TCP_EV_MEMORY_LIMIT, h->buf_len + h->early_present, at);
            drop_pdu(h);
            forget_early(h);
        }
        h->at = *at; /* the stream up to here is complete with this segment */
        if (h->buf_len == 0 && !h->early_present) {
            /* as in tcp_half_segment's usual case (after a SYN, a FIN or a
               retransmission cut to its new bytes) */
            tcp_half_cut_next(h, p, opts, data, len, at, out);
        } else {
            append(h, data, len);
            deliver(h, p, opts, at, out);
            marks_drop_before(h, h->next_seq);
        }
    }
flags_done:
    /* the stream ends once nothing it sent before its FIN is missing (a
       FIN may overtake the data before it); else tcp_half_finish ends it
       when the capture does */
    if (h->fin_seen && !h->closed && !h->early_present && seq_diff(h->next_seq, h->fin_seq) >= 0)
        close_half(h, out, at);
    account(h);
}

void tcp_half_finish(tcp_half *h, const gw_protocol *p, const int *opts, const tcp_stamp *end,
                     const tcp_sink *out)
{
    static const tcp_stamp unknown;
    if (!end)
        end = &unknown;
    if (!h->closed) {
        /* what never came is a gap: the early bytes decode past it */
        while (h->early_present)
            give_up_gap(h, p, opts, out, TCP_EV_GAP);
        close_half(h, out, end);
    }
    account(h);
}
