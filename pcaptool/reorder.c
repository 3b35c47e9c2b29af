/* reorder.c - see reorder.h */
#include "reorder.h"

#include <glib.h>
#include <string.h>

#define ALLOC_OVERHEAD 16 /* bytes glibc adds to an allocation */
/* records of at most POOL_MAX bytes are kept in slots of a multiple of
   POOL_STEP bytes, cut from chunks of POOL_CHUNK bytes and reused through a
   free list a size: an end-of-conversation finding is held and freed
   without a malloc and a free each */
#define POOL_STEP 64
#define POOL_MAX 1024
#define POOL_CLASSES (POOL_MAX / POOL_STEP)
#define POOL_CHUNK ((size_t)64 << 10)
#define MAX_SOURCES 16    /* data sources of one PDU whose items are relocated */

/* the tape: what a record holds after its header, one tagged entry after
   another */
enum { T_ITEM, T_PUSH, T_POP, T_FINDING, T_SUMMARY, T_SOURCE, T_EXPECTED, T_END };

/* where an item's bytes are: copied after it, or in the PDU or a source */
enum { AT_COPY = -1, AT_PDU = 0 /* sources: their number */ };

typedef struct {
    uint32_t frame;
    uint64_t order;      /* in recording order within a frame */
    size_t size;         /* as allocated */
    const gw_protocol *p;
    int index;           /* a finding's: its index; a PDU's: -1 */
    /* the tape follows */
} held;

struct reorder {
    const run_consumer *c;
    unsigned *max_sev;
    /* the held records, a binary heap by (frame, order) with the key at
       hand (no record touched to compare): frame << 64 | order */
    struct slot {
        unsigned __int128 key;
        held *h;
    } *heap;
    size_t n_heap, heap_cap;
    size_t bytes;        /* what the held records take */
    uint64_t order;
    uint8_t *tape;       /* the record being written: tape_len bytes of tape_cap */
    size_t tape_len, tape_cap;
    const gw_protocol *p; /* the PDU being recorded: its protocol, frame and data sources */
    uint32_t frame;
    gw_sink sink;
    const uint8_t *src_data[MAX_SOURCES + 1];
    size_t src_len[MAX_SOURCES + 1];
    /* the free slots of each size (POOL_STEP * (class + 1) bytes), linked
       through their first bytes; what they keep is at most what was held
       at once (REORDER_MAX) */
    void *free_slots[POOL_CLASSES];
    void *chunks;         /* the chunks, linked through their first bytes */
    uint8_t *chunk_at;    /* the current chunk's bytes not cut yet */
    size_t chunk_left;
};

/* ---- writing ---------------------------------------------------------------- */

static __attribute__((noinline)) void grow(reorder *q, size_t n)
{
    size_t cap = q->tape_cap ? q->tape_cap : 256;
    while (cap - q->tape_len < n)
        cap *= 2;
    q->tape = g_realloc(q->tape, cap);
    q->tape_cap = cap;
}

static inline void put(reorder *q, const void *v, size_t n)
{
    if (q->tape_cap - q->tape_len < n)
        grow(q, n);
    memcpy(q->tape + q->tape_len, v, n);
    q->tape_len += n;
}

static void put_tag(reorder *q, uint8_t tag)
{
    put(q, &tag, 1);
}

static void put_bytes(reorder *q, const void *p, size_t n)
{
    put(q, &n, sizeof n);
    if (n) /* p may be NULL then */
        put(q, p, n);
}

/* a text, or NULL: its size with its NUL (0: NULL), then its bytes */
static void put_str(reorder *q, const char *s)
{
    size_t n = s ? strlen(s) + 1 : 0;
    if (q->tape_cap - q->tape_len < sizeof n + n)
        grow(q, sizeof n + n);
    memcpy(q->tape + q->tape_len, &n, sizeof n);
    memcpy(q->tape + q->tape_len + sizeof n, s ? s : "", n);
    q->tape_len += sizeof n + n;
}

static bool value_is_bytes(const gw_protocol *p, int field)
{
    switch (p->fields[field].type) {
    case GW_FT_STRING: case GW_FT_BYTES: case GW_FT_IPV4: case GW_FT_IPV6: return true;
    default: return false;
    }
}

static void r_item(void *ctx, const gw_item *it)
{
    reorder *q = ctx;
    put_tag(q, T_ITEM);
    put(q, it, sizeof *it);
    put_str(q, it->label);
    if (!value_is_bytes(q->p, it->field))
        return;
    /* bytes of the PDU or of a source are found there again; others copied */
    int at = AT_COPY;
    size_t off = 0;
    for (int s = 0; s <= MAX_SOURCES && at == AT_COPY; s++)
        if (q->src_data[s] && it->v.b.p >= q->src_data[s] &&
            it->v.b.p + it->v.b.n <= q->src_data[s] + q->src_len[s]) {
            at = s;
            off = (size_t)(it->v.b.p - q->src_data[s]);
        }
    put(q, &at, sizeof at);
    if (at == AT_COPY)
        put_bytes(q, it->v.b.p, it->v.b.n);
    else
        put(q, &off, sizeof off);
}

static void r_push(void *ctx)
{
    put_tag(ctx, T_PUSH);
}

static void r_pop(void *ctx, size_t end)
{
    put_tag(ctx, T_POP);
    put(ctx, &end, sizeof end);
}

static void r_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    reorder *q = ctx;
    put_tag(q, T_FINDING);
    put(q, &finding, sizeof finding);
    put(q, &src, sizeof src);
    put(q, &off, sizeof off);
    put(q, &len, sizeof len);
    put_str(q, msg);
}

static void r_summary(void *ctx, const char *text)
{
    put_tag(ctx, T_SUMMARY);
    put_str(ctx, text);
}

static void r_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    reorder *q = ctx;
    if (src > 0 && src <= MAX_SOURCES) {
        q->src_data[src] = data;
        q->src_len[src] = len;
    }
    put_tag(q, T_SOURCE);
    put(q, &src, sizeof src);
    put_str(q, name);
    put_bytes(q, data, len);
}

/* a record's common part: its meta (strings and bytes copied) */
static void put_meta(reorder *q, const out_meta *m)
{
    put(q, m, sizeof *m);
    put_str(q, m->src);
    put_str(q, m->dst);
    put_str(q, m->file_json);
    put_bytes(q, m->data, m->data ? m->len : 0);
}

static void start(reorder *q, const gw_protocol *p, int index)
{
    held h = {.p = p, .index = index};
    q->tape_len = 0;
    put(q, &h, sizeof h);
}

/* ---- the heap ---------------------------------------------------------------- */

static void heap_push(reorder *q, held *h)
{
    if (q->n_heap == q->heap_cap) {
        q->heap_cap = q->heap_cap ? 2 * q->heap_cap : 64;
        q->heap = g_renew(struct slot, q->heap, q->heap_cap);
    }
    struct slot e = {(unsigned __int128)h->frame << 64 | h->order, h}, *a = q->heap;
    size_t i = q->n_heap++;
    while (i > 0 && e.key < a[(i - 1) / 2].key) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a[i] = e;
}

/* the earliest record out: the hole at the top goes down to a leaf along
   the earlier children, the last slot comes up into it from there (one
   comparison a level on the way down, few on the way up) */
static held *heap_pop(reorder *q)
{
    struct slot *a = q->heap;
    held *top = a[0].h;
    size_t n = --q->n_heap, i = 0, m;
    if (n == 0)
        return top;
    struct slot last = a[n];
    while ((m = 2 * i + 1) < n) {
        if (m + 1 < n && a[m + 1].key < a[m].key)
            m++;
        a[i] = a[m];
        i = m;
    }
    while (i > 0 && last.key < a[(i - 1) / 2].key) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a[i] = last;
    return top;
}

/* ---- reading a record back ----------------------------------------------------- */

typedef struct {
    const uint8_t *at;
} cursor;

static void get(cursor *c, void *v, size_t n)
{
    memcpy(v, c->at, n);
    c->at += n;
}

static const uint8_t *get_bytes(cursor *c, size_t *n)
{
    get(c, n, sizeof *n);
    const uint8_t *p = c->at;
    c->at += *n;
    return p;
}

static const char *get_str(cursor *c)
{
    size_t n;
    const char *s = (const char *)get_bytes(c, &n);
    return n ? s : NULL;
}

static void get_meta(cursor *c, out_meta *m)
{
    get(c, m, sizeof *m);
    m->src = get_str(c);
    m->dst = get_str(c);
    m->file_json = get_str(c);
    size_t n;
    const uint8_t *d = get_bytes(c, &n);
    m->data = m->data ? d : NULL;
}

static void raise_sev(reorder *q, unsigned sev)
{
    if (sev > *q->max_sev)
        *q->max_sev = sev;
}

/* hand one record to the consumer */
static void replay(reorder *q, const held *h)
{
    cursor c = {(const uint8_t *)(h + 1)};
    out_meta m;
    get_meta(&c, &m);
    const run_consumer *cons = q->c;
    if (h->index >= 0) {
        out_finding fd;
        get(&c, &fd, sizeof fd);
        fd.summary = get_str(&c);
        fd.message = get_str(&c);
        cons->finding(cons->ctx, h->p, h->index, &m, &fd);
        raise_sev(q, (unsigned)fd.severity + 1);
        return;
    }
    const gw_sink *s = cons->pdu_begin(cons->ctx, h->p);
    const uint8_t *src[MAX_SOURCES + 1] = {m.data};
    for (;;) {
        uint8_t tag;
        get(&c, &tag, 1);
        if (tag == T_END)
            break;
        switch (tag) {
        case T_ITEM: {
            gw_item it;
            get(&c, &it, sizeof it);
            it.label = get_str(&c);
            if (value_is_bytes(h->p, it.field)) {
                int at;
                get(&c, &at, sizeof at);
                if (at == AT_COPY) {
                    it.v.b.p = get_bytes(&c, &it.v.b.n);
                } else {
                    size_t off;
                    get(&c, &off, sizeof off);
                    it.v.b.p = src[at] + off;
                }
            }
            if (s->item)
                s->item(s->ctx, &it);
            break;
        }
        case T_PUSH:
            if (s->push)
                s->push(s->ctx);
            break;
        case T_POP: {
            size_t end;
            get(&c, &end, sizeof end);
            if (s->pop)
                s->pop(s->ctx, end);
            break;
        }
        case T_FINDING: {
            int finding, fsrc;
            size_t off, len;
            get(&c, &finding, sizeof finding);
            get(&c, &fsrc, sizeof fsrc);
            get(&c, &off, sizeof off);
            get(&c, &len, sizeof len);
            s->finding(s->ctx, finding, fsrc, off, len, get_str(&c));
            break;
        }
        case T_SUMMARY: {
            const char *text = get_str(&c);
            if (s->summary)
                s->summary(s->ctx, text);
            break;
        }
        case T_SOURCE: {
            int n;
            get(&c, &n, sizeof n);
            const char *name = get_str(&c);
            size_t len;
            const uint8_t *d = get_bytes(&c, &len);
            if (n > 0 && n <= MAX_SOURCES)
                src[n] = d;
            if (s->source)
                s->source(s->ctx, n, name, d, len);
            break;
        }
        default: { /* T_EXPECTED */
            int transport, side;
            uint16_t port;
            get(&c, &transport, sizeof transport);
            get(&c, &side, sizeof side);
            get(&c, &port, sizeof port);
            if (cons->expected)
                cons->expected(cons->ctx, transport, side, port);
            break;
        }
        }
    }
    raise_sev(q, cons->pdu_end(cons->ctx, h->p, &m));
}

/* a record's memory: a slot of the pool (h->size: the slot's bytes) or,
   past POOL_MAX, an allocation of its own (h->size: its bytes and the
   allocator's overhead) */
static held *record_alloc(reorder *q, size_t n, size_t *size)
{
    if (n > POOL_MAX) {
        *size = n + ALLOC_OVERHEAD;
        return g_malloc(n);
    }
    size_t cls = (n - 1) / POOL_STEP, bytes = (cls + 1) * POOL_STEP;
    *size = bytes;
    void *slot = q->free_slots[cls];
    if (slot) {
        memcpy(&q->free_slots[cls], slot, sizeof slot);
        return slot;
    }
    if (q->chunk_left < bytes) { /* a new chunk (what the last one has left is not used) */
        uint8_t *c = g_malloc(POOL_CHUNK);
        memcpy(c, &q->chunks, sizeof q->chunks);
        q->chunks = c;
        q->chunk_at = c + POOL_STEP; /* slots stay aligned as malloc's */
        q->chunk_left = POOL_CHUNK - POOL_STEP;
    }
    slot = q->chunk_at;
    q->chunk_at += bytes;
    q->chunk_left -= bytes;
    return slot;
}

static void record_free(reorder *q, held *h)
{
    size_t bytes = h->size;
    if (bytes > POOL_MAX) {
        g_free(h);
        return;
    }
    size_t cls = bytes / POOL_STEP - 1;
    memcpy(h, &q->free_slots[cls], sizeof(void *));
    q->free_slots[cls] = h;
}

static void release_one(reorder *q)
{
    held *h = heap_pop(q);
    q->bytes -= h->size;
    replay(q, h);
    record_free(q, h);
}

/* the tape becomes a held record of `frame`; past the bound the earliest
   go at once */
static void hold(reorder *q, uint32_t frame)
{
    size_t n = q->tape_len, size;
    held *h = record_alloc(q, n, &size);
    memcpy(h, q->tape, n);
    h->frame = frame;
    h->order = q->order++;
    h->size = size;
    q->bytes += h->size;
    heap_push(q, h);
    while (q->bytes > REORDER_MAX && q->n_heap)
        release_one(q);
    if (q->tape_cap > (1u << 20)) { /* a large PDU's tape is not kept */
        g_free(q->tape);
        q->tape = NULL;
        q->tape_len = q->tape_cap = 0;
    }
}

/* ---- the interface ------------------------------------------------------------- */

reorder *reorder_new(const run_consumer *c, unsigned *max_sev)
{
    reorder *q = g_new0(reorder, 1);
    q->c = c;
    q->max_sev = max_sev;
    return q;
}

void reorder_free(reorder *q)
{
    for (size_t i = 0; i < q->n_heap; i++)
        record_free(q, q->heap[i].h);
    for (void *c = q->chunks, *next; c; c = next) {
        memcpy(&next, c, sizeof next);
        g_free(c);
    }
    g_free(q->heap);
    g_free(q->tape);
    g_free(q);
}

bool reorder_empty(const reorder *q)
{
    return q->n_heap == 0;
}

gw_sink *reorder_pdu_begin(reorder *q, const gw_protocol *p, const gw_sink *like, const out_meta *m)
{
    start(q, p, -1);
    put_meta(q, m);
    q->frame = m->frame;
    q->p = p;
    memset(q->src_data, 0, sizeof q->src_data);
    q->src_data[0] = m->data;
    q->src_len[0] = m->len;
    /* the same callbacks as the consumer's: a decoder may do less for a
       sink without items, summary or labels; every message is kept (which the
       consumer will want is known only when it gets the record) */
    q->sink = (gw_sink){.ctx = q, .item = like->item ? r_item : NULL, .push = like->push ? r_push : NULL,
                        .pop = like->pop ? r_pop : NULL, .finding = r_finding, .wants_message = NULL,
                        .summary = like->summary ? r_summary : NULL, .no_labels = like->no_labels,
                        .source = r_source};
    return &q->sink;
}

void reorder_expected(reorder *q, int transport, int port_side, uint16_t port)
{
    put_tag(q, T_EXPECTED);
    put(q, &transport, sizeof transport);
    put(q, &port_side, sizeof port_side);
    put(q, &port, sizeof port);
}

void reorder_pdu_end(reorder *q)
{
    put_tag(q, T_END);
    hold(q, q->frame);
}

void reorder_finding(reorder *q, const gw_protocol *p, int index, const out_meta *m, const out_finding *fd)
{
    start(q, p, index);
    put_meta(q, m);
    put(q, fd, sizeof *fd); /* proto, short_name and code as they are (static) */
    put_str(q, fd->summary);
    put_str(q, fd->message);
    hold(q, m->frame);
}

/* one pass of a radix sort: a to b by the 11 bits of `digit` at `shift`
   (counting, stable) */
#define RADIX_BITS 11
static void radix_pass(const struct slot *a, struct slot *b, size_t n, bool by_frame, uint64_t base,
                       unsigned shift)
{
    size_t count[1u << RADIX_BITS] = {0};
    const uint64_t mask = (1u << RADIX_BITS) - 1;
#define DIGIT(e) ((((by_frame ? (uint64_t)((e).key >> 64) : (uint64_t)(e).key) - base) >> shift) & mask)
    for (size_t i = 0; i < n; i++)
        count[DIGIT(a[i])]++;
    size_t at = 0;
    for (size_t d = 0; d <= mask; d++) {
        size_t c = count[d];
        count[d] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        b[count[DIGIT(a[i])]++] = a[i];
#undef DIGIT
}

/* every record at once (the end of the capture): sorted by (frame, order)
   in a few passes of a radix sort (by order, then by frame, each from its
   smallest value, as many passes as their spread needs), rather than
   popped one by one; handed on in that order, the order the pops give */
static void release_all(reorder *q)
{
    size_t n = q->n_heap;
    struct slot *tmp = g_new(struct slot, n), *a = q->heap, *b = tmp;
    uint64_t min_order = UINT64_MAX, max_order = 0, min_frame = UINT64_MAX, max_frame = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = (uint64_t)a[i].key, f = (uint64_t)(a[i].key >> 64);
        min_order = MIN(min_order, o);
        max_order = MAX(max_order, o);
        min_frame = MIN(min_frame, f);
        max_frame = MAX(max_frame, f);
    }
    for (int by_frame = 0; by_frame < 2; by_frame++) {
        uint64_t base = by_frame ? min_frame : min_order, spread = (by_frame ? max_frame : max_order) - base;
        for (unsigned shift = 0; shift < 64 && spread >> shift; shift += RADIX_BITS) {
            radix_pass(a, b, n, by_frame, base, shift);
            struct slot *t = a;
            a = b;
            b = t;
        }
    }
    q->n_heap = 0;
    for (size_t i = 0; i < n; i++) {
        held *h = a[i].h;
        q->bytes -= h->size;
        replay(q, h);
        record_free(q, h);
    }
    g_free(tmp);
}

void reorder_release(reorder *q, uint32_t frame)
{
    if (frame == UINT32_MAX && q->n_heap > 64) {
        release_all(q);
        return;
    }
    while (q->n_heap && (uint32_t)(q->heap[0].key >> 64) <= frame)
        release_one(q);
}
