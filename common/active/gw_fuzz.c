/* gw_fuzz.c - see gw_fuzz.h */
#include "active/gw_fuzz.h"

#include <stdio.h>
#include <string.h>

uint64_t gw_rng_next(gw_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t gw_rng_below(gw_rng *r, uint64_t n)
{
    return gw_rng_next(r) % n;
}

/* an item a mutation may aim at: a number read from the PDU's bytes (not
   generated, not a bit field sharing its bytes), or any item with bytes */
static bool is_number(const gw_protocol *p, const gw_item *it)
{
    gw_ftype t = p->fields[it->field].type;
    return t >= GW_FT_U8 && t <= GW_FT_I64 && !(it->flags & GW_ITEM_GENERATED) && it->src == 0 && it->len >= 1 &&
           it->len <= 8 && !p->fields[it->field].mask;
}

static bool has_bytes(const gw_item *it, size_t n)
{
    return !(it->flags & GW_ITEM_GENERATED) && it->src == 0 && it->len > 0 && it->off + it->len <= n;
}

/* the byte orders that give an item's number its value: bit 0 little, bit 1 big */
static unsigned orders_of(const uint8_t *d, const gw_item *it)
{
    uint64_t mask = it->len >= 8 ? ~0ull : (1ull << (8 * it->len)) - 1, v = it->v.u & mask;
    return (gw_get_uint(d + it->off, (unsigned)it->len, false) == v) | (gw_get_uint(d + it->off, (unsigned)it->len, true) == v) << 1;
}

/* an item's byte order: its own where only one gives its value; where both
   do (0, 0x0101) the order the PDU's other numbers tell, else little-endian */
static bool read_big(const gw_protocol *p, const uint8_t *d, size_t n, const gw_item *items, unsigned k,
                     const gw_item *it)
{
    unsigned own = it->len > 1 ? orders_of(d, it) : 1;
    if (own == 1 || own == 2)
        return own == 2;
    int vote = 0;
    for (unsigned i = 0; i < k; i++)
        if (is_number(p, &items[i]) && items[i].len > 1 && items[i].off + items[i].len <= n) {
            unsigned o = orders_of(d, &items[i]);
            vote += o == 2 ? 1 : o == 1 ? -1 : 0;
        }
    return vote > 0;
}

static void put_uint(uint8_t *at, unsigned len, bool big, uint64_t v)
{
    for (unsigned i = 0; i < len; i++)
        at[big ? len - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

enum { OP_NUMBER, OP_CUT, OP_APPEND, OP_FLIP, OP_TWICE, OP_BYTEWISE, N_OPS };

size_t gw_fuzz_mutate(gw_rng *r, const gw_protocol *p, const uint8_t *d, size_t n, const gw_item *items, unsigned k,
                      bool stream, uint8_t *out, size_t cap, char *what, size_t whatn, unsigned *flags)
{
    unsigned numbers = 0, spans = 0;
    for (unsigned i = 0; i < k; i++) {
        numbers += is_number(p, &items[i]) && items[i].off + items[i].len <= n;
        spans += has_bytes(&items[i], n);
    }
    *flags = 0;
    if (n > cap)
        n = cap;
    memcpy(out, d, n);
    /* numbers are where the bugs are: half the time one of them */
    unsigned op = numbers && gw_rng_below(r, 2) ? OP_NUMBER : (unsigned)gw_rng_below(r, N_OPS);
    if (op == OP_BYTEWISE && !stream)
        op = OP_TWICE;
    if ((op == OP_NUMBER && !numbers) || (op == OP_CUT && !spans) || n == 0)
        op = OP_APPEND;
    switch (op) {
    case OP_NUMBER: {
        uint64_t pick = gw_rng_below(r, numbers);
        const gw_item *it = NULL;
        for (unsigned i = 0; i < k && !it; i++)
            if (is_number(p, &items[i]) && items[i].off + items[i].len <= n && pick-- == 0)
                it = &items[i];
        unsigned len = (unsigned)it->len;
        bool big = read_big(p, d, n, items, k, it);
        uint64_t max = len >= 8 ? ~0ull : (1ull << (8 * len)) - 1, was = gw_get_uint(d + it->off, len, big), v;
        static const char *const names[] = {"0", "1", "its maximum", "its maximum - 1", "one more", "one less",
                                            "its top bit flipped"};
        unsigned which = (unsigned)gw_rng_below(r, 7);
        switch (which) {
        case 0: v = 0; break;
        case 1: v = 1; break;
        case 2: v = max; break;
        case 3: v = max - 1; break;
        case 4: v = (was + 1) & max; break;
        case 5: v = (was - 1) & max; break;
        default: v = was ^ (1ull << (8 * len - 1)); break;
        }
        put_uint(out + it->off, len, big, v);
        snprintf(what, whatn, "%s (%u byte%s at %zu) set to %s: %llu, was %llu", p->fields[it->field].abbrev, len,
                 len == 1 ? "" : "s", it->off, names[which], (unsigned long long)v, (unsigned long long)was);
        return n;
    }
    case OP_CUT: {
        uint64_t pick = gw_rng_below(r, spans);
        const gw_item *it = NULL;
        for (unsigned i = 0; i < k && !it; i++)
            if (has_bytes(&items[i], n) && pick-- == 0)
                it = &items[i];
        /* inside the field (its last byte missing), or right after it */
        size_t at = gw_rng_below(r, 2) ? it->off + it->len - 1 : it->off + it->len;
        if (at >= n)
            at = n - 1;
        snprintf(what, whatn, "cut to %zu of its %zu bytes (%s %s)", at, n, at == it->off + it->len ? "right after" :
                 "inside", p->fields[it->field].abbrev);
        return at;
    }
    case OP_FLIP: {
        size_t at = (size_t)gw_rng_below(r, n);
        unsigned bit = (unsigned)gw_rng_below(r, 8);
        out[at] ^= (uint8_t)(1u << bit);
        snprintf(what, whatn, "bit %u of byte %zu flipped", bit, at);
        return n;
    }
    case OP_TWICE:
        *flags = GW_FUZZ_TWICE;
        snprintf(what, whatn, "sent twice");
        return n;
    case OP_BYTEWISE:
        *flags = GW_FUZZ_BYTEWISE;
        snprintf(what, whatn, "written one byte at a time");
        return n;
    default: { /* OP_APPEND */
        size_t more = 1 + (size_t)gw_rng_below(r, 32);
        if (n + more > cap)
            more = cap - n;
        for (size_t i = 0; i < more; i++)
            out[n + i] = (uint8_t)gw_rng_next(r);
        snprintf(what, whatn, "%zu byte%s appended", more, more == 1 ? "" : "s");
        return n + more;
    }
    }
}

/* ---- shortening ------------------------------------------------------------ */

static bool is_span(const gw_protocol *p, const gw_item *it, size_t n)
{
    gw_ftype t = p->fields[it->field].type;
    return (t == GW_FT_STRING || t == GW_FT_BYTES) && has_bytes(it, n);
}

/* out[0..len), cut from a PDU of `was` bytes whose framing claimed
   exactly that, framed again: a number in the framing header lowered by
   the bytes taken until the framing claims len (false: none does) */
static bool reframe(const gw_protocol *p, const int *opts, uint8_t *out, size_t len, size_t was, const gw_item *items,
                    unsigned k)
{
    if (len < p->pdu_header)
        return false;
    for (unsigned i = 0; i < k; i++) {
        const gw_item *it = &items[i];
        if (!is_number(p, it) || it->off + it->len > p->pdu_header)
            continue;
        bool big = it->flags & GW_ITEM_BIG_ENDIAN;
        uint64_t v = gw_get_uint(out + it->off, (unsigned)it->len, big);
        if (v < was - len)
            continue;
        uint8_t keep[8];
        memcpy(keep, out + it->off, it->len);
        put_uint(out + it->off, (unsigned)it->len, big, v - (was - len));
        if (p->pdu_length(opts, out, len) == (long)len)
            return true;
        memcpy(out + it->off, keep, it->len);
    }
    return false;
}

size_t gw_fuzz_shorten(const gw_protocol *p, const int *opts, const uint8_t *d, size_t n, const gw_item *items,
                       unsigned k, bool stream, unsigned which, uint8_t *out, char *what, size_t whatn)
{
    bool framed = stream && p->pdu_length;
    if (framed && (n < p->pdu_header || p->pdu_length(opts, d, n) != (long)n))
        return 0; /* the framing claims other than what went: any cut would change what the reader takes */
    for (unsigned c = 0;; c++) {
        size_t len = 0;
        memcpy(out, d, n);
        unsigned spans = 0, at = c;
        for (unsigned i = 0; i < k; i++)
            spans += is_span(p, &items[i], n);
        if (at < spans) { /* a text or byte field emptied */
            const gw_item *it = NULL;
            for (unsigned i = 0; i < k && !it; i++)
                if (is_span(p, &items[i], n) && at-- == 0)
                    it = &items[i];
            size_t take = it->len - (d[it->off + it->len - 1] == 0 && it->len > 1 ? 1 : 0);
            if (take == 0 || (it->len == 1 && d[it->off] == 0))
                continue;
            memmove(out + it->off, d + it->off + take, n - it->off - take);
            len = n - take;
            for (unsigned i = 0; i < k; i++) /* its length, said right before it */
                if (is_number(p, &items[i]) && items[i].off + items[i].len == it->off && items[i].off < it->off &&
                    gw_get_uint(d + items[i].off, (unsigned)items[i].len, items[i].flags & GW_ITEM_BIG_ENDIAN) ==
                        it->len)
                    put_uint(out + items[i].off, (unsigned)items[i].len, items[i].flags & GW_ITEM_BIG_ENDIAN, 0);
            snprintf(what, whatn, "%s emptied (%zu bytes fewer)", p->fields[it->field].abbrev, take);
        } else { /* its end cut */
            unsigned j = c - spans;
            size_t cut = j < 63 ? n >> (j + 1) : 0;
            if (cut == 0)
                return 0;
            len = n - cut;
            snprintf(what, whatn, "its last %zu byte%s cut", cut, cut == 1 ? "" : "s");
        }
        if (len == 0 || (framed && !reframe(p, opts, out, len, n, items, k)))
            continue;
        if (which-- == 0)
            return len;
    }
}
