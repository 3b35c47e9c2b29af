/* gw_layout.c - the interpreter of gw_layout.h's layouts. */
#include "core/gw_layout.h"

#include <stdint.h>

/* the step after the block that starts after `s` (s is the block's head) */
static const gw_lstep *block_end(const gw_lstep *s)
{
    unsigned depth = 1;
    for (s++; s->op != GW_L_END; s++) {
        if (s->op == GW_L_REPEAT || s->op == GW_L_MORE || s->op == GW_L_IF || s->op == GW_L_IF_HOOK)
            depth++;
        else if (s->op == GW_L_DONE && --depth == 0)
            return s;
    }
    return s - 1; /* an unclosed block runs to the end of the layout */
}

/* a step's byte order */
static bool order_of(const gw_pdu *x, const gw_lstep *s)
{
    if (s->flags & GW_LF_BE)
        return true;
    if (s->flags & GW_LF_LE)
        return false;
    return s->size > 1 && x->big_endian;
}

/* the step's summary text, with the value it read (a number, the number's
   name, or text at p[0..n)) */
static __attribute__((noinline)) void summary_text(gw_pdu *x, const gw_lstep *s, uint64_t v, const uint8_t *p,
                                                   size_t n)
{
    const gw_field *f = &x->proto->fields[s->field];
    if (s->flags & GW_LF_NAME) {
        gw_summary_format(&x->sum, s->sum, gw_value_name_or(f->names, (uint32_t)v, "Unknown"));
    } else if (p) {
        /* room for 1.5 bytes a character (text of wider characters is cut
           sooner) */
        char text[256 + 128];
        size_t chars = s->chars ? s->chars : 32;
        gw_clean_text(text, chars + chars / 2, p, n, chars);
        gw_summary_format(&x->sum, s->sum, text);
    } else if (f->type >= GW_FT_I8 && f->type <= GW_FT_I64) {
        gw_summary_format(&x->sum, s->sum, (long long)gw_sign_extend(v, s->size));
    } else if (f->type == GW_FT_DOUBLE) {
        gw_summary_format(&x->sum, s->sum, gw_float_bits(v, s->size == 4 ? 4 : 8));
    } else {
        gw_summary_format(&x->sum, s->sum, (unsigned long long)v);
    }
}

/* the step's summary, if it has one (under GW_LF_FIRST only for the first
   item of a repeated block) */
static inline void summary(gw_pdu *x, const gw_lstep *s, bool first, uint64_t v, const uint8_t *p, size_t n)
{
    if (s->sum && !x->sum.off && (first || !(s->flags & GW_LF_FIRST)))
        summary_text(x, s, v, p, n);
}

static void counted(gw_pdu *x, const gw_lstep *s, bool first)
{
    size_t at = x->c.off;
    uint64_t n;
    if (!gw_take_num(x, s->arg, s->size, order_of(x, s), &n))
        return;
    const gw_field *f = &x->proto->fields[s->field];
    size_t left = gw_remaining(&x->c);
    if (n > left && s->arg2 >= 0) {
        x->failed = true;
        gw_emit_finding(&x->e, s->arg2, at, s->size, "%s of %llu %s, %zu left", f->name,
                        (unsigned long long)n, gw_bytes((unsigned long long)n), left);
        gw_take_rest(x, x->proto->rest_field);
        gw_summary_add(&x->sum, " (length past the end)");
        return;
    }
    if (n > left) {
        gw_pdu_truncated(x, f->name);
        return;
    }
    size_t off = x->c.off, shown = (size_t)n, taken = (size_t)n;
    if (s->flags & GW_LF_NUL) {
        int nul = shown && x->c.data[off + shown - 1] == 0 ? GW_NUL_COUNTED : GW_NUL_NONE;
        shown -= nul == GW_NUL_COUNTED;
        if (!nul && x->nul_after && n < left && x->c.data[off + n] == 0) {
            nul = GW_NUL_AFTER;
            taken++;
        }
        if (x->hooks && x->hooks->text)
            x->hooks->text(x, s->field, off, shown, nul);
    }
    gw_pdu_text(x, s->field, off, shown);
    x->c.off += taken;
    summary(x, s, first, 0, x->c.data + off, shown);
}

static void padded(gw_pdu *x, const gw_lstep *s, bool first)
{
    const char *name = x->proto->fields[s->field].name;
    if (!gw_pdu_need(x, s->size, name))
        return;
    size_t off = x->c.off;
    const uint8_t *p = x->c.data + off;
    const uint8_t *nul = memchr(p, 0, s->size);
    size_t n = nul ? (size_t)(nul - p) : s->size;
    gw_pdu_text(x, s->field, off, n);
    if (!nul)
        gw_emit_finding(&x->e, s->arg, off, s->size, "%s without a NUL", name);
    for (size_t i = n + 1; i < s->size; i++)
        if (p[i]) {
            char lower = name[0] >= 'A' && name[0] <= 'Z' ? (char)(name[0] - 'A' + 'a') : name[0];
            gw_emit_finding(&x->e, s->arg2, off + i, s->size - i, "Byte %zu of the %c%s's padding is 0x%02x", i,
                            lower, name + 1, p[i]);
            break;
        }
    x->c.off += s->size;
    summary(x, s, first, 0, p, n);
}

/* Do the bytes left hold another item of a GW_L_MORE block? Fewer are
   trailing bytes, not a truncated item. */
static bool another(const gw_pdu *x, const gw_lstep *s)
{
    size_t n = gw_remaining(&x->c);
    if (n < s->size)
        return false;
    const gw_lstep *first = s + 1;
    if ((s->flags & GW_LF_FITS) && first->op == GW_L_COUNTED && n >= first->size)
        return gw_get_uint(x->c.data + x->c.off, first->size, order_of(x, first)) <=
               n - first->size;
    return true;
}

static bool holds(gw_pdu *x, const gw_lstep *s)
{
    if (s->op == GW_L_IF_HOOK)
        return x->hooks && s->test && s->test(x);
    if (!x->rec.seen || !x->rec.seen[s->arg])
        return false;
    int64_t v = (int64_t)x->rec.val[s->arg];
    switch (s->cmp) {
    case GW_CMP_EQ: return v == s->value;
    case GW_CMP_NE: return v != s->value;
    case GW_CMP_LT: return v < s->value;
    default: return v >= s->value;
    }
}

static void run_block(gw_pdu *x, const gw_lstep *s, bool first)
{
    bool optional = false;
    /* no items wanted and no summary: numbers need only be read */
    const bool quiet = !x->e.sink->item && x->sum.off;
    for (; !x->failed; s++) {
        if (optional && gw_remaining(&x->c) == 0)
            return;
        switch (s->op) {
        case GW_L_END:
        case GW_L_DONE:
            return;
        case GW_L_NUM: {
            size_t off = x->c.off;
            uint64_t v;
            if (quiet && gw_remaining(&x->c) >= s->size) {
                /* gw_take_num's inline path, no summary to add to */
                v = gw_get_uint(x->c.data + off, s->size, order_of(x, s));
                x->c.off += s->size;
                gw_record_num(x, s->field, v);
                if (s->check && x->hooks)
                    s->check(x, off, v);
                break;
            }
            if (!gw_take_num(x, s->field, s->size, order_of(x, s), &v))
                break;
            if (s->check && x->hooks)
                s->check(x, off, v);
            summary(x, s, first, v, NULL, 0);
            break;
        }
        case GW_L_BYTES:
        case GW_L_REST: {
            const uint8_t *at = x->c.data + x->c.off;
            size_t n = s->op == GW_L_REST ? gw_remaining(&x->c) : s->size;
            if (gw_take_bytes(x, s->field, n))
                summary(x, s, first, 0, at, n);
            break;
        }
        case GW_L_CSTR: {
            const uint8_t *at = x->c.data + x->c.off;
            size_t n;
            if (gw_take_cstr(x, s->field, s->arg, NULL, &n))
                summary(x, s, first, 0, at, n);
            break;
        }
        case GW_L_COUNTED:
            counted(x, s, first);
            break;
        case GW_L_PADDED:
            padded(x, s, first);
            break;
        case GW_L_OPTIONAL:
            optional = true;
            break;
        /* a repeated block that reads nothing is run once: whatever the
           count, time stays linear in the bytes */
        case GW_L_REPEAT: {
            uint64_t count = x->rec.seen && x->rec.seen[s->arg] ? x->rec.val[s->arg] : 0;
            const gw_lstep *end = block_end(s);
            unsigned i = 0;
            for (size_t before = SIZE_MAX; i < count && !x->failed && x->c.off != before; i++) {
                before = x->c.off;
                run_block(x, s + 1, i == 0);
            }
            x->repeats = i;
            s = end;
            break;
        }
        case GW_L_MORE: {
            const gw_lstep *end = block_end(s);
            unsigned i = 0;
            size_t before;
            do {
                before = x->c.off;
                run_block(x, s + 1, i++ == 0);
            } while (!x->failed && x->c.off != before && another(x, s));
            x->repeats = i;
            s = end;
            break;
        }
        case GW_L_IF:
        case GW_L_IF_HOOK: {
            const gw_lstep *end = block_end(s);
            if (holds(x, s))
                run_block(x, s + 1, first);
            s = end;
            break;
        }
        case GW_L_STEP:
            if (s->step && x->hooks)
                s->step(x);
            break;
        case GW_L_SUB:
            run_block(x, s->sub, first);
            break;
        default:
            break;
        }
    }
}

bool gw_layout_run(gw_pdu *x, const gw_lstep *l)
{
    run_block(x, l, true);
    return !x->failed;
}

size_t gw_layout_fixed_size(const gw_lstep *l)
{
    size_t n = 0;
    for (; l->op == GW_L_NUM || l->op == GW_L_BYTES; l++)
        n += l->size;
    return n;
}

long gw_layout_offset(const gw_lstep *l, int field, unsigned *size)
{
    long off = 0;
    for (; l->op == GW_L_NUM || l->op == GW_L_BYTES; l++) {
        if (l->field == field) {
            *size = l->size;
            return off;
        }
        off += l->size;
    }
    return -1;
}

/* ---- building ------------------------------------------------------------ */

#define W_MAX_VALS 64

typedef struct {
    uint8_t *out;
    size_t cap, off;
    bool big_endian, ok;
    const gw_wval *vals;
    unsigned n_vals;
    bool used[W_MAX_VALS];
    /* the last number written per field, for counts and conditions */
    int last_field[W_MAX_VALS];
    uint64_t last_value[W_MAX_VALS];
    unsigned n_last;
} writer;

/* the next value given for field f, taken (NULL: none left); peek: not taken */
static const gw_wval *w_value(writer *w, int f, bool peek)
{
    for (unsigned i = 0; i < w->n_vals; i++)
        if (!w->used[i] && w->vals[i].field == f) {
            w->used[i] = !peek;
            return &w->vals[i];
        }
    return NULL;
}

static void w_remember(writer *w, int f, uint64_t v)
{
    unsigned i = 0;
    while (i < w->n_last && w->last_field[i] != f)
        i++;
    if (i == W_MAX_VALS)
        return;
    w->last_field[i] = f;
    w->last_value[i] = v;
    if (i == w->n_last)
        w->n_last++;
}

static bool w_last(const writer *w, int f, uint64_t *v)
{
    for (unsigned i = 0; i < w->n_last; i++)
        if (w->last_field[i] == f) {
            *v = w->last_value[i];
            return true;
        }
    return false;
}

static void w_bytes(writer *w, const void *p, size_t n, size_t width)
{
    if (w->cap - w->off < width) {
        w->ok = false;
        return;
    }
    memset(w->out + w->off, 0, width);
    if (p)
        memcpy(w->out + w->off, p, n < width ? n : width);
    w->off += width;
}

static void w_number(writer *w, int f, unsigned size, bool be, uint64_t v)
{
    if (w->cap - w->off < size) {
        w->ok = false;
        return;
    }
    gw_put_uint(w->out + w->off, size, v, be);
    w->off += size;
    w_remember(w, f, v);
}

/* is a value left for any step from s to the end of its block? */
static bool w_any_left(writer *w, const gw_lstep *s)
{
    for (unsigned depth = 0; s->op != GW_L_END; s++) {
        if (s->op == GW_L_DONE && depth-- == 0)
            return false;
        if (s->op == GW_L_REPEAT || s->op == GW_L_MORE || s->op == GW_L_IF || s->op == GW_L_IF_HOOK)
            depth++;
        int f = s->op == GW_L_STEP ? GW_W_STEP : s->field;
        if (s->op != GW_L_DONE && s->op != GW_L_OPTIONAL && w_value(w, f, true))
            return true;
        if (s->op == GW_L_SUB && w_any_left(w, s->sub))
            return true;
    }
    return false;
}

static void w_block(writer *w, const gw_lstep *s)
{
    for (; w->ok; s++) {
        bool be = s->flags & GW_LF_BE ? true : s->flags & GW_LF_LE ? false : s->size > 1 && w->big_endian;
        const gw_wval *v;
        switch (s->op) {
        case GW_L_END:
        case GW_L_DONE:
            return;
        case GW_L_NUM:
            v = w_value(w, s->field, false);
            w_number(w, s->field, s->size, be, v ? v->u : 0);
            break;
        case GW_L_BYTES:
        case GW_L_REST:
            v = w_value(w, s->field, false);
            w_bytes(w, v ? v->p : NULL, v ? v->n : 0, s->op == GW_L_BYTES ? s->size : v ? v->n : 0);
            break;
        case GW_L_CSTR:
            v = w_value(w, s->field, false);
            w_bytes(w, v ? v->p : NULL, v ? v->n : 0, (v ? v->n : 0) + 1);
            break;
        case GW_L_PADDED:
            v = w_value(w, s->field, false);
            w_bytes(w, v ? v->p : NULL, v ? v->n : 0, s->size);
            break;
        case GW_L_COUNTED: {
            const gw_wval *len = w_value(w, s->arg, false);
            v = w_value(w, s->field, false);
            size_t n = v ? v->n : 0;
            w_number(w, s->arg, s->size, be, len ? len->u : n);
            w_bytes(w, v ? v->p : NULL, n, n);
            break;
        }
        case GW_L_OPTIONAL:
            if (!w_any_left(w, s + 1))
                return;
            break;
        case GW_L_REPEAT: {
            uint64_t count = 0;
            w_last(w, s->arg, &count);
            for (uint64_t i = 0, before = SIZE_MAX; i < count && w->ok && w->off != before; i++) {
                before = w->off; /* a block that writes nothing is written once */
                w_block(w, s + 1);
            }
            s = block_end(s);
            break;
        }
        case GW_L_MORE: {
            const gw_lstep *first = s + 1;
            for (size_t before = SIZE_MAX; w->ok && w->off != before &&
                                            w_value(w, first->op == GW_L_STEP ? GW_W_STEP : first->field, true);) {
                before = w->off;
                w_block(w, s + 1);
            }
            s = block_end(s);
            break;
        }
        case GW_L_IF: {
            uint64_t u;
            bool hold = false;
            if (w_last(w, s->arg, &u)) {
                int64_t x = (int64_t)u;
                hold = s->cmp == GW_CMP_EQ ? x == s->value : s->cmp == GW_CMP_NE ? x != s->value
                     : s->cmp == GW_CMP_LT ? x < s->value : x >= s->value;
            }
            if (hold)
                w_block(w, s + 1);
            s = block_end(s);
            break;
        }
        case GW_L_IF_HOOK: /* a condition of the decoder's: written when given */
            if (w_any_left(w, s + 1))
                w_block(w, s + 1);
            s = block_end(s);
            break;
        case GW_L_STEP:
            v = w_value(w, GW_W_STEP, false);
            if (v)
                w_bytes(w, v->p, v->n, v->n);
            break;
        case GW_L_SUB:
            w_block(w, s->sub);
            break;
        default:
            break;
        }
    }
}

bool gw_layout_write(const gw_lstep *l, bool big_endian, const gw_wval *vals, uint8_t *out, size_t cap,
                     size_t *len)
{
    writer w = {.out = out, .cap = cap, .big_endian = big_endian, .ok = true, .vals = vals};
    while (vals[w.n_vals].field != GW_W_END)
        if (++w.n_vals > W_MAX_VALS)
            return false;
    w_block(&w, l);
    *len = w.off;
    return w.ok;
}

/* ---- framing headers ------------------------------------------------------ */

bool gw_frame_write(const gw_frame *f, const gw_wval *vals, size_t body, uint8_t *out, size_t cap)
{
    size_t size = gw_frame_size(f), off, n = 0;
    const gw_lstep *ls = gw_frame_step_(f, f->length_field, &off);
    uint64_t length = body + (f->counts_header ? size : 0);
    if (!ls || (ls->size < 8 && length >> (8 * ls->size)))
        return false;
    gw_wval all[W_MAX_VALS + 1];
    all[n++] = (gw_wval)GW_WU(f->length_field, length);
    if (f->magic)
        all[n++] = (gw_wval)GW_WB(f->magic_field, f->magic, gw_frame_step_(f, f->magic_field, &off)->size);
    for (; vals[0].field != GW_W_END && n < W_MAX_VALS; vals++)
        all[n++] = vals[0];
    all[n].field = GW_W_END;
    size_t len;
    return gw_layout_write(f->header, f->big_endian, all, out, cap, &len) && len == size;
}
