/* tcpstream.c - see tcpstream.h */
#include "tcpstream.h"

#include <glib.h>
#include <string.h>

typedef struct {
    uint32_t seq;
    uint32_t len;
    uint8_t *data;
} early_seg;

static size_t early_count(const tcp_half *h) { return h->early ? h->early->len : 0; }

/* bring budget->used up to date with what this half holds */
static void account(tcp_half *h)
{
    size_t now = h->buf_len + h->early_bytes;
    h->budget->used = h->budget->used - h->held + now;
    h->held = now;
}

static int32_t seq_diff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

static void buf_append(tcp_half *h, const uint8_t *data, size_t len)
{
    if (len == 0)
        return;
    if (h->buf_len + len > h->buf_cap) {
        size_t cap = h->buf_cap ? h->buf_cap : 256;
        while (cap < h->buf_len + len)
            cap *= 2;
        h->buf = g_realloc(h->buf, cap);
        h->buf_cap = cap;
    }
    memcpy(h->buf + h->buf_len, data, len);
    h->buf_len += len;
}

void tcp_half_init(tcp_half *h, tcp_budget *budget)
{
    memset(h, 0, sizeof *h);
    h->budget = budget;
}

static void drop_early(tcp_half *h, size_t upto)
{
    if (!h->early)
        return;
    for (guint i = 0; i < upto; i++)
        g_free(g_array_index(h->early, early_seg, i).data);
    g_array_remove_range(h->early, 0, (guint)upto);
    h->early_bytes = 0;
    for (guint i = 0; i < h->early->len; i++)
        h->early_bytes += g_array_index(h->early, early_seg, i).len;
}

void tcp_half_reset(tcp_half *h)
{
    drop_early(h, early_count(h));
    h->buf_len = 0;
    h->started = h->closed = h->fin_seen = false;
    h->pending_len = 0;
    account(h);
}

void tcp_half_release(tcp_half *h)
{
    tcp_half_reset(h);
    if (h->early)
        g_array_free(h->early, TRUE);
    g_free(h->buf);
    tcp_half_init(h, h->budget);
}

size_t tcp_cut(const gw_protocol *p, const uint8_t *d, size_t len, const tcp_sink *out,
               long *pending_len)
{
    size_t used = 0;
    *pending_len = 0;
    while (used < len) {
        size_t avail = len - used;
        if (avail < p->pdu_header)
            break;
        long n = p->pdu_length(d + used, avail);
        if (n == 0)
            break;
        if (n < 0) { /* not a PDU start: the rest goes as one, to be reported */
            out->pdu(out->ctx, d + used, avail);
            used += avail;
            break;
        }
        if ((size_t)n > avail) {
            *pending_len = n;
            break;
        }
        out->pdu(out->ctx, d + used, (size_t)n);
        used += (size_t)n;
    }
    return used;
}

/* cut complete PDUs off the front of buf; a buffer that grew large is
   given back once empty, so that idle conversations hold little */
static void deliver(tcp_half *h, const gw_protocol *p, const tcp_sink *out)
{
    if (h->buf_len > h->buf_peak)
        h->buf_peak = h->buf_len;
    size_t used = tcp_cut(p, h->buf, h->buf_len, out, &h->pending_len);
    if (used) {
        memmove(h->buf, h->buf + used, h->buf_len - used);
        h->buf_len -= used;
    }
    if (h->buf_len == 0 && h->buf_peak > 4096) {
        g_free(h->buf);
        h->buf = NULL;
        h->buf_cap = h->buf_peak = 0;
    }
}

/* append in-order bytes, then any early segments that now fit */
static void append(tcp_half *h, const uint8_t *data, size_t len)
{
    buf_append(h, data, len);
    h->next_seq += (uint32_t)len;
    guint i = 0;
    while (i < early_count(h)) {
        early_seg *s = &g_array_index(h->early, early_seg, i);
        int32_t d = seq_diff(s->seq, h->next_seq);
        if (d > 0)
            break;
        int64_t skip = -(int64_t)d;
        if (skip < s->len) {
            buf_append(h, s->data + skip, s->len - skip);
            h->next_seq += (uint32_t)(s->len - skip);
        }
        i++;
    }
    if (i)
        drop_early(h, i);
}

static void store_early(tcp_half *h, uint32_t seq, const uint8_t *data, size_t len)
{
    if (!h->early)
        h->early = g_array_new(FALSE, FALSE, sizeof(early_seg));
    guint i = 0;
    while (i < h->early->len && seq_diff(g_array_index(h->early, early_seg, i).seq, seq) < 0)
        i++;
    if (i < h->early->len && g_array_index(h->early, early_seg, i).seq == seq &&
        g_array_index(h->early, early_seg, i).len >= len)
        return; /* a retransmission of an early segment */
    early_seg s = {seq, (uint32_t)len, g_memdup2(data, len)};
    g_array_insert_val(h->early, i, s);
    h->early_bytes += len;
}

/* Where to resume when the bytes before the first early segment will
   never come: at the end of the PDU under way when its length is known and
   an early segment holds that point (the next PDU starts there), else at
   the first early segment. */
static uint32_t gap_resume(const tcp_half *h)
{
    uint32_t first = g_array_index(h->early, early_seg, 0).seq;
    if (h->pending_len <= 0)
        return first;
    uint32_t pdu_end = h->next_seq - (uint32_t)h->buf_len + (uint32_t)h->pending_len;
    if (seq_diff(pdu_end, first) <= 0)
        return first;
    for (guint i = 0; i < early_count(h); i++) {
        const early_seg *e = &g_array_index(h->early, early_seg, i);
        if (seq_diff(e->seq, pdu_end) <= 0 && seq_diff(pdu_end, e->seq + e->len) < 0)
            return pdu_end;
    }
    return first;
}

/* bytes up to seq will never come: drop the PDU that needed them */
static void skip_gap(tcp_half *h, uint32_t seq, const tcp_sink *out, tcp_event why)
{
    out->event(out->ctx, why, (uint64_t)(uint32_t)seq_diff(seq, h->next_seq));
    h->buf_len = 0;
    h->pending_len = 0;
    h->next_seq = seq;
}

/* the stream ended: a PDU left incomplete is reported */
static void close_half(tcp_half *h, const tcp_sink *out)
{
    if (h->buf_len)
        out->event(out->ctx, TCP_EV_END_IN_PDU, h->buf_len);
    h->buf_len = 0;
    h->pending_len = 0;
    drop_early(h, early_count(h));
    h->closed = true;
}

void tcp_half_segment(tcp_half *h, const gw_protocol *p, uint32_t seq, uint8_t flags,
                      const uint8_t *data, size_t len, const tcp_sink *out)
{
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
        if (d < 0) { /* retransmission or overlap: keep only new bytes */
            if ((int64_t)len <= -(int64_t)d)
                goto flags_done;
            data += -d;
            len -= (size_t)-d;
            seq = h->next_seq;
            d = 0;
        }
        if (d > 0) {
            /* early: kept until the missing bytes come, the early bytes
               pass TCP_OOO_MAX, or the stream ends (only then is it a gap),
               whether a PDU waits for the missing bytes or not */
            if (h->budget->used + len > h->budget->limit) {
                /* no room to keep it: what waits for the missing bytes is
                   given up, resume here */
                skip_gap(h, seq, out, TCP_EV_MEMORY_LIMIT);
                drop_early(h, early_count(h));
            } else {
                store_early(h, seq, data, len);
                if (h->early_bytes > TCP_OOO_MAX) {
                    skip_gap(h, gap_resume(h), out, TCP_EV_OOO_LIMIT);
                    append(h, NULL, 0);
                    deliver(h, p, out);
                }
                goto flags_done;
            }
        }
        if (h->buf_len + h->early_bytes > 0 &&
            h->budget->used + len > h->budget->limit) {
            /* all conversations together hold too much: this one's PDU
               under way is given up, decoding resumes with this segment */
            out->event(out->ctx, TCP_EV_MEMORY_LIMIT, h->buf_len + h->early_bytes);
            h->buf_len = 0;
            drop_early(h, early_count(h));
            h->pending_len = 0;
        }
        if (h->buf_len == 0 && early_count(h) == 0) {
            /* the usual case: whole PDUs straight from the segment, only a
               PDU it leaves unfinished is copied */
            h->next_seq += (uint32_t)len;
            size_t used = tcp_cut(p, data, len, out, &h->pending_len);
            buf_append(h, data + used, len - used);
        } else {
            append(h, data, len);
            deliver(h, p, out);
        }
    }
flags_done:
    /* the stream ends once nothing it sent before its FIN is missing (a
       FIN may overtake the data before it); else tcp_half_finish ends it
       when the capture does */
    if (h->fin_seen && !h->closed && early_count(h) == 0 && seq_diff(h->next_seq, h->fin_seq) >= 0)
        close_half(h, out);
    account(h);
}

void tcp_half_finish(tcp_half *h, const gw_protocol *p, const tcp_sink *out)
{
    if (!h->closed) {
        /* what never came is a gap: the early segments decode past it */
        while (early_count(h)) {
            skip_gap(h, gap_resume(h), out, TCP_EV_GAP);
            append(h, NULL, 0);
            deliver(h, p, out);
        }
        close_half(h, out);
    }
    account(h);
}
