/* gw_layout.c - the interpreter of gw_layout.h's layouts. */
#include "core/gw_layout.h"

#include <stdint.h>

/* does a block start after s? */
#define HEADS (1u << GW_L_REPEAT | 1u << GW_L_MORE | 1u << GW_L_IF | 1u << GW_L_IF_HOOK | 1u << GW_L_TREE)
static inline bool is_head(const gw_lstep *s)
{
    return (HEADS >> s->op) & 1;
}

/* the step after the block that starts after `s` (s is the block's head) */
static const gw_lstep *block_end(const gw_lstep *s)
{
    unsigned depth = 1;
    for (s++; s->op != GW_L_END; s++) {
        if (is_head(s))
            depth++;
        else if (s->op == GW_L_DONE && --depth == 0)
            return s;
    }
    return s - 1; /* an unclosed block runs to the end of the layout */
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
    if (!gw_take_num(x, s->arg, s->size, gw_layout_order(x, s), &n))
        return;
    if (s->flags & GW_LF_LENGTH) { /* the length judged before its bytes; none: no item */
        if (s->check && x->hooks)
            s->check(x, at, n);
        if (x->failed || !n)
            return;
    }
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
        gw_pdu_truncated(x, s->what ? s->what : f->name);
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
    if (s->check && x->hooks && !(s->flags & GW_LF_LENGTH))
        s->check(x, off, shown);
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
        return gw_get_uint(x->c.data + x->c.off, first->size, gw_layout_order(x, first)) <=
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

static void tree(gw_pdu *x, const gw_lstep *s, bool first);
static void run_block(gw_pdu *x, const gw_lstep *s, bool first);

/* a GW_L_TREE's first bytes, needed whole (GW_NEED): false, truncated at
   its start, when they are not there */
static inline bool need_whole(gw_pdu *x, const gw_lstep *s)
{
    return gw_pdu_need(x, s->size, s->what ? s->what : x->proto->fields[s->field].name);
}

/* a GW_L_SWITCH's case: NULL, decoding failed, when it has none */
static const gw_lstep *case_of(gw_pdu *x, const gw_lstep *s)
{
    const gw_lstep *l = NULL;
    if (x->rec.seen && x->rec.seen[s->arg] && x->rec.val[s->arg] < (uint64_t)s->value)
        l = s->cases[x->rec.val[s->arg]];
    if (!l)
        x->failed = true;
    return l;
}

/* Blocks and layouts read in place (run_block): what opened each, and
   what to go back to at its end */
enum { F_SUB, F_BLOCK, F_REPEAT, F_MORE };
typedef struct {
    const gw_lstep *at; /* the step that opened it: GW_L_SUB or GW_L_SWITCH (F_SUB, to
                           its GW_L_END), GW_L_IF*, GW_L_TREE (F_BLOCK), GW_L_REPEAT,
                           GW_L_MORE (to its GW_L_DONE) */
    uint8_t kind;
    bool optional, first; /* of the block it is in */
} frame;
typedef struct {        /* an F_REPEAT or F_MORE frame's, at its depth */
    unsigned i, outer;  /* items read, x->index outside */
    uint64_t count;     /* F_REPEAT: items to read */
    size_t before;      /* where the last item began */
} items_read;
#define FRAMES 12 /* deeper blocks are read by a call */

/* one item of the repeated block after s: a subtree where it has a label
   and items are shown */
static void item(gw_pdu *x, const gw_lstep *s, bool first)
{
    if (s->label && gw_emit_tree(&x->e))
        tree(x, s, first);
    else
        run_block(x, s + 1, first);
}

/* the block after s (a block's head), called rather than in place */
static void block_called(gw_pdu *x, const gw_lstep *s, bool first)
{
    unsigned i = 0, outer = x->index;
    size_t before = SIZE_MAX;
    switch (s->op) {
    case GW_L_REPEAT: { /* a repeated block that reads nothing is read once */
        uint64_t count = x->rec.seen && x->rec.seen[s->arg] ? x->rec.val[s->arg] : 0;
        for (; i < count && !x->failed && x->c.off != before; i++) {
            before = x->c.off;
            x->index = i;
            item(x, s, i == 0);
        }
        break;
    }
    case GW_L_MORE:
        do {
            before = x->c.off;
            x->index = i;
            item(x, s, i++ == 0);
        } while (!x->failed && x->c.off != before && another(x, s));
        break;
    default:
        run_block(x, s + 1, first);
        return;
    }
    x->repeats = i;
    x->index = outer;
}

/* a step's number of s->size bytes as `field` (quiet: gw_take_num's inline
   path, no item); false when the bytes ran out (or decoding failed) */
static inline __attribute__((always_inline)) bool take(gw_pdu *x, const gw_lstep *s, int field, bool quiet,
                                                       uint64_t *v)
{
    if (quiet && gw_remaining(&x->c) >= s->size) {
        *v = gw_layout_quiet_take(x, s, field);
        return true;
    }
    if (s->what && !gw_pdu_need(x, s->size, s->what))
        return false;
    return gw_take_num(x, field, s->size, gw_layout_order(x, s), v);
}

/* a GW_L_SWITCH's own number, if it reads one, read and checked: false
   when decoding failed */
static __attribute__((noinline)) bool switch_number(gw_pdu *x, const gw_lstep *s, bool quiet)
{
    if (!s->size)
        return true;
    size_t off = x->c.off;
    uint64_t v;
    if (!take(x, s, s->arg, quiet, &v))
        return false;
    if (s->check && x->hooks)
        s->check(x, off, v);
    return !x->failed;
}

/* Read the steps from s to the end of their block or layout. Blocks and
   layouts within are read in place (frames), not by a call, but a
   GW_L_TREE that shows a subtree. */
static void run_block(gw_pdu *x, const gw_lstep *s, bool first)
{
    /* each op's code by its number (GNU C's labels as values: a step is
       one jump to its code); a number no op has: the step is passed over */
    static const void *const code[256] = {
        [GW_L_END] = &&op_end,         [GW_L_DONE] = &&op_done,       [GW_L_NUM] = &&op_num,
        [GW_L_BYTES] = &&op_bytes,     [GW_L_REST] = &&op_bytes,      [GW_L_CSTR] = &&op_cstr,
        [GW_L_COUNTED] = &&op_counted, [GW_L_PADDED] = &&op_padded,   [GW_L_OPTIONAL] = &&op_optional,
        [GW_L_REPEAT] = &&op_block,    [GW_L_MORE] = &&op_block,      [GW_L_IF] = &&op_block,
        [GW_L_IF_HOOK] = &&op_block,   [GW_L_TREE] = &&op_block,      [GW_L_STEP] = &&op_step,
        [GW_L_SUB] = &&op_sub,         [GW_L_SWITCH] = &&op_sub,      [GW_L_TREE + 1 ... 255] = &&next,
    };
    /* no items wanted and no summary: numbers need only be read (and
       `first`, which only summaries ask, is not kept) */
    const bool quiet = !x->e.sink->item && x->sum.off;
    bool optional = false;
    frame f[FRAMES];
    items_read r[FRAMES];
    unsigned depth = 0;
    goto step;

next:
    s++;
step:
    if (x->failed)
        goto out;
again: /* (a step that cannot fail) */
    if (optional && gw_remaining(&x->c) == 0) { /* the rest of this block is left out */
        if (!depth)
            return;
        if (f[depth - 1].kind != F_SUB)
            s = block_end(f[depth - 1].at);
        goto end_frame;
    }
    goto *code[s->op];

op_end: /* a layout read in place ends (a block left unclosed with it) */
    if (!depth)
        goto out;
    if (f[depth - 1].kind != F_SUB)
        s--; /* the GW_L_END again after the block */
    goto end_frame;
op_done:
    if (!depth)
        goto out;
    goto end_frame;
op_num: {
    size_t off = x->c.off;
    uint64_t v;
    if (!take(x, s, s->field, quiet, &v))
        goto next;
    if (s->check && x->hooks) {
        s->check(x, off, v);
    } else if (quiet) { /* nothing failed, no summary */
        s++;
        goto again;
    }
    summary(x, s, first, v, NULL, 0);
    goto next;
}
op_bytes: {
    const uint8_t *at = x->c.data + x->c.off;
    size_t n = s->op == GW_L_REST ? gw_remaining(&x->c) : s->size;
    if (gw_take_bytes(x, s->field, n))
        summary(x, s, first, 0, at, n);
    goto next;
}
op_cstr: {
    const uint8_t *at = x->c.data + x->c.off;
    size_t n;
    if (gw_take_cstr(x, s->field, s->arg, NULL, &n))
        summary(x, s, first, 0, at, n);
    goto next;
}
op_counted:
    counted(x, s, first);
    goto next;
op_padded:
    padded(x, s, first);
    goto next;
op_optional:
    optional = true;
    s++;
    goto again;
op_block: { /* a block: read in place unless it is left out or shows a subtree */
    if (s->op == GW_L_TREE && s->size && !need_whole(x, s))
        goto next;
    bool items = s->op == GW_L_REPEAT || s->op == GW_L_MORE;
    uint64_t count = 1;
    if (s->op == GW_L_REPEAT)
        count = x->rec.seen && x->rec.seen[s->arg] ? x->rec.val[s->arg] : 0;
    bool trees = items && s->label && gw_emit_tree(&x->e); /* each item a subtree shown */
    bool apart = items ? !count || trees : s->op != GW_L_TREE ? !holds(x, s) : gw_emit_tree(&x->e);
    if (apart || depth == FRAMES) {
        if (!apart || (trees && count))
            block_called(x, s, first);
        else if (s->op == GW_L_TREE)
            tree(x, s, first);
        else if (items)
            x->repeats = 0;
        s = block_end(s);
        goto next;
    }
    if (items) {
        r[depth] = (items_read){.i = 0, .outer = x->index, .count = count, .before = x->c.off};
        x->index = 0;
    }
    f[depth] = (frame){.at = s, .kind = s->op == GW_L_REPEAT ? F_REPEAT : s->op == GW_L_MORE ? F_MORE : F_BLOCK,
                       .optional = optional};
    if (!quiet) {
        f[depth].first = first;
        first = items || first;
    }
    depth++;
    optional = false;
    s++;
    goto again;
}
op_step:
    if (s->step && x->hooks)
        s->step(x);
    goto next;
op_sub: {
    if (s->op == GW_L_SWITCH && s->size && !switch_number(x, s, quiet))
        goto next;
    const gw_lstep *l = s->op == GW_L_SUB ? s->sub : case_of(x, s);
    if (!l)
        goto next;
    if (quiet) { /* its first numbers (unchecked) and counted bytes read here: a
                    layout of nothing else needs no frame */
        for (; !x->failed; l++) {
            if (l->op == GW_L_NUM && !l->check && gw_remaining(&x->c) >= l->size) {
                gw_layout_quiet_take(x, l, l->field);
            } else if (l->op == GW_L_COUNTED) {
                counted(x, l, first);
            } else {
                break;
            }
        }
        if (x->failed || l->op == GW_L_END)
            goto next;
    }
    if (depth == FRAMES) {
        run_block(x, l, first);
        goto next;
    }
    f[depth] = (frame){.at = s, .kind = F_SUB, .optional = optional};
    if (!quiet)
        f[depth].first = first;
    depth++;
    optional = false;
    s = l;
    goto again;
}

end_frame: { /* at the end of the innermost frame (s: its GW_L_DONE, if it has one); not failed */
    frame *t = &f[depth - 1];
    if (t->kind >= F_REPEAT) {
        items_read *n = &r[depth - 1];
        n->i++;
        if (x->c.off != n->before &&
            (t->kind == F_REPEAT ? n->i < n->count : another(x, t->at))) { /* the next item */
            n->before = x->c.off;
            x->index = n->i;
            if (!quiet)
                first = false;
            optional = false;
            s = t->at + 1;
            goto again;
        }
        x->repeats = n->i;
        x->index = n->outer;
    }
    depth--;
    optional = t->optional;
    if (!quiet)
        first = t->first;
    s = t->kind == F_SUB ? t->at + 1 : s + 1;
    goto again;
}

out: /* decoding failed, or the block ended: what the frames left open leave */
    for (; depth; depth--)
        if (f[depth - 1].kind >= F_REPEAT) {
            x->repeats = r[depth - 1].i + 1;
            x->index = r[depth - 1].outer;
        }
}

/* ---- GW_L_TREE ------------------------------------------------------------ */

/* what a GW_LF_AHEAD block reports to while it is read ahead: its items
   kept (the first GW_AHEAD_ITEMS), not shown; its findings reported; once
   decoding failed, what reports the failure shown */
typedef struct {
    gw_sink sink;
    const gw_sink *real;
    const gw_pdu *x;
    gw_item items[GW_AHEAD_ITEMS];
    unsigned n;
} ahead_sink;

static void ahead_item(void *ctx, const gw_item *it)
{
    ahead_sink *a = ctx;
    if (a->x->failed) {
        if (a->real->item)
            a->real->item(a->real->ctx, it);
    } else if (a->n < GW_AHEAD_ITEMS) {
        a->items[a->n] = *it;
        a->items[a->n++].label = NULL;
    }
}
static void ahead_push(void *ctx)
{
    ahead_sink *a = ctx;
    if (a->x->failed && a->real->push)
        a->real->push(a->real->ctx);
}
static void ahead_pop(void *ctx, size_t end)
{
    ahead_sink *a = ctx;
    if (a->x->failed && a->real->pop)
        a->real->pop(a->real->ctx, end);
}
static void ahead_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *message)
{
    ahead_sink *a = ctx;
    a->real->finding(a->real->ctx, finding, src, off, len, message);
}
static bool ahead_wants_message(void *ctx, int finding)
{
    ahead_sink *a = ctx;
    return !a->real->wants_message || a->real->wants_message(a->real->ctx, finding);
}
static void ahead_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    ahead_sink *a = ctx;
    if (a->real->source)
        a->real->source(a->real->ctx, src, name, data, len);
}

/* the block after s as a subtree under an item of s->field */
static void tree(gw_pdu *x, const gw_lstep *s, bool first)
{
    const gw_sink *real = x->e.sink;
    if (!gw_emit_tree(&x->e)) { /* nothing shown: the block's bytes alone */
        run_block(x, s + 1, first);
        return;
    }
    size_t start = x->c.off, len = 0;
    uint8_t reading = x->reading;
    char text[256];
    bool labels = gw_emit_text(&x->e) && s->label;
    if (!(s->flags & GW_LF_AHEAD)) {
        if (labels)
            s->label(x, NULL, 0, text, sizeof text);
    } else {
        ahead_sink a = {.sink = {.item = ahead_item, .push = ahead_push, .pop = ahead_pop,
                                 .finding = ahead_finding, .wants_message = ahead_wants_message,
                                 .source = ahead_source, .no_labels = true, .expect = real->expect,
                                 .expect_ctx = real->expect_ctx},
                        .real = real, .x = x};
        a.sink.ctx = &a;
        bool sum_off = x->sum.off;
        x->sum.off = true; /* the summary is added to on the second reading */
        x->e.sink = &a.sink;
        x->reading = GW_READING_AHEAD;
        run_block(x, s + 1, first);
        x->e.sink = real;
        x->sum.off = sum_off;
        if (x->failed) { /* reported as it failed, nothing of the block shown */
            x->reading = reading;
            return;
        }
        len = x->c.off - start;
        x->c.off = start;
        if (labels)
            s->label(x, a.items, a.n, text, sizeof text);
        x->reading = GW_READING_AGAIN;
    }
    gw_emit_label(&x->e, s->field, start, len, labels ? text : NULL);
    gw_emit_push(&x->e);
    run_block(x, s + 1, first);
    gw_emit_pop(&x->e, x->c.off);
    x->reading = reading;
}

/* ---- the quiet reading ------------------------------------------------------ */

/* Where nothing is shown (no item, no subtree, no summary: validate, a
   quiet run), a layout is read by quiet_block rather than run_block: what
   each step does there is only to read and record, check (its hooks) and
   fail, so it needs no frames, no `first` and no summary, and a block
   ends where its GW_L_DONE is met (no scan for it but where a block is
   passed over). Same steps, same order, same findings and records. */

/* the step that ends the block s is in (its GW_L_DONE, or the layout's
   GW_L_END) */
static const gw_lstep *end_of_block(const gw_lstep *s)
{
    for (unsigned depth = 0;; s++) {
        if (s->op == GW_L_END || (s->op == GW_L_DONE && depth-- == 0))
            return s;
        if (is_head(s))
            depth++;
    }
}

/* Read the steps from s to the end of their block or layout, nothing
   shown (x not failed). Returns the step the block ended at (its GW_L_DONE
   or the layout's GW_L_END), NULL when decoding failed. */
static const gw_lstep *quiet_block(gw_pdu *x, const gw_lstep *s)
{
    bool optional = false;
    for (;; s++) {
        if (optional && gw_remaining(&x->c) == 0) /* the rest of the block is left out */
            return end_of_block(s);
        switch (s->op) {
        case GW_L_END:
        case GW_L_DONE:
            return s;
        case GW_L_NUM: {
            size_t off = x->c.off;
            uint64_t v;
            if (__builtin_expect(gw_remaining(&x->c) >= s->size, 1)) {
                v = gw_layout_quiet_take(x, s, s->field);
            } else if (!take(x, s, s->field, false, &v)) {
                return NULL;
            }
            if (s->check && x->hooks) {
                s->check(x, off, v);
                if (x->failed)
                    return NULL;
            }
            continue;
        }
        case GW_L_BYTES:
        case GW_L_REST:
            if (!gw_take_bytes(x, s->field, s->op == GW_L_REST ? gw_remaining(&x->c) : s->size))
                return NULL;
            continue;
        case GW_L_CSTR: {
            size_t n;
            if (!gw_take_cstr(x, s->field, s->arg, NULL, &n))
                return NULL;
            continue;
        }
        case GW_L_COUNTED: {
            size_t off = x->c.off, left = gw_remaining(&x->c);
            uint64_t n;
            if (s->flags & (GW_LF_NUL | GW_LF_LENGTH) || left < s->size ||
                (n = gw_layout_num_at(x, s, x->c.data + off)) > left - s->size) { /* the rest of counted() */
                counted(x, s, true);
                break;
            }
            /* its length and its bytes, as counted() reads them where they fit */
            gw_record_num(x, s->arg, n);
            x->c.off = off += s->size;
            gw_pdu_text(x, s->field, off, (size_t)n);
            x->c.off += (size_t)n;
            if (s->check && x->hooks)
                s->check(x, off, n);
            break;
        }
        case GW_L_PADDED:
            padded(x, s, true);
            break;
        case GW_L_OPTIONAL:
            optional = true;
            continue;
        case GW_L_REPEAT:
        case GW_L_MORE: { /* each item read while it reads something */
            uint64_t count = 1;
            if (s->op == GW_L_REPEAT && !(count = x->rec.seen && x->rec.seen[s->arg] ? x->rec.val[s->arg] : 0)) {
                x->repeats = 0;
                s = block_end(s);
                continue;
            }
            unsigned i = 0, outer = x->index;
            const gw_lstep *stop;
            size_t before;
            do {
                before = x->c.off;
                x->index = i++;
                stop = quiet_block(x, s + 1);
            } while (stop && x->c.off != before && (s->op == GW_L_REPEAT ? i < count : another(x, s)));
            x->repeats = i;
            x->index = outer;
            if (!stop)
                return NULL;
            s = stop->op == GW_L_END ? stop - 1 : stop; /* an unclosed block ends the layout */
            continue;
        }
        case GW_L_IF:
        case GW_L_IF_HOOK:
        case GW_L_TREE: { /* (a subtree nobody shows is its block) */
            if (s->op != GW_L_TREE && !holds(x, s)) {
                s = block_end(s);
                continue;
            }
            if (s->op == GW_L_TREE && s->size && !need_whole(x, s))
                return NULL;
            if (x->failed) /* (a test that failed it) */
                return NULL;
            const gw_lstep *stop = quiet_block(x, s + 1);
            if (!stop)
                return NULL;
            s = stop->op == GW_L_END ? stop - 1 : stop;
            continue;
        }
        case GW_L_STEP:
            if (s->step && x->hooks)
                s->step(x);
            break;
        case GW_L_SWITCH: {
            const gw_lstep *l = !s->size || switch_number(x, s, true) ? case_of(x, s) : NULL;
            if (!l || !quiet_block(x, l))
                return NULL;
            continue;
        }
        case GW_L_SUB:
            if (!quiet_block(x, s->sub))
                return NULL;
            continue;
        default:
            continue;
        }
        if (x->failed)
            return NULL;
    }
}

bool gw_layout_run(gw_pdu *x, const gw_lstep *l)
{
    if (x->sum.off && !gw_emit_tree(&x->e)) {
        if (!x->failed)
            quiet_block(x, l);
    } else {
        run_block(x, l, true);
    }
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
        if (is_head(s))
            depth++;
        int f = s->op == GW_L_STEP ? GW_W_STEP : s->field;
        if (s->op != GW_L_DONE && s->op != GW_L_OPTIONAL && !(s->op == GW_L_STEP && s->arg) && w_value(w, f, true))
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
            if (s->arg) /* a GW_HOOK: no bytes */
                break;
            v = w_value(w, GW_W_STEP, false);
            if (v)
                w_bytes(w, v->p, v->n, v->n);
            break;
        case GW_L_SUB:
            w_block(w, s->sub);
            break;
        case GW_L_SWITCH: {
            uint64_t u = UINT64_MAX;
            if (s->size) { /* its number */
                v = w_value(w, s->arg, false);
                w_number(w, s->arg, s->size, be, v ? v->u : 0);
            }
            if (!w_last(w, s->arg, &u) && (v = w_value(w, s->arg, false)) != NULL)
                u = v->u; /* derived by the decoder: given, not written */
            if (u < (uint64_t)s->value && s->cases[u])
                w_block(w, s->cases[u]);
            else
                w->ok = false;
            break;
        }
        case GW_L_TREE:
            w_block(w, s + 1);
            s = block_end(s);
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
