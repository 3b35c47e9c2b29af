/* gw_layout.h - a PDU's layout written as data, read by one interpreter
 * (decoding) and written by gw_layout_write (building, pcaptool conform),
 * so that a layout is described once.
 *
 * A layout is an array of steps ended by GW_L_END (GW_LAYOUT() adds it).
 * Each step reads one field through the gw_take_* readers (so running out
 * of bytes is handled as everywhere else: gw_pdu_truncated), records it
 * (gw_record, when the decoder keeps one) and may add to the summary.
 * Blocks (GW_L_REPEAT, GW_L_MORE, GW_L_IF*, GW_L_TREE) end with GW_L_DONE;
 * a block may be chosen by a value (GW_L_SWITCH: typed values, a table of
 * layouts by type) and shown as a subtree labelled from what it holds
 * (GW_L_TREE, GW_REPEAT_TREE; GW_LF_AHEAD). What is truly procedural stays
 * in the decoder, as a GW_L_STEP hook, a check, or around the layout,
 * reading what the layout recorded. Without hooks (x->hooks NULL: a quiet
 * run asking whether bytes fit) steps and checks are left out and
 * GW_L_IF_HOOK does not hold. Where nothing is shown (the sink takes no
 * items and no subtrees, and no summary is wanted: validate, quiet runs)
 * the interpreter reads a layout by a leaner path that only reads,
 * records, checks and fails (no labels, no summaries): the same steps in
 * the same order, so checks and findings are the same either way.
 */
#ifndef GW_LAYOUT_H
#define GW_LAYOUT_H

#include "core/gw_core.h"

enum gw_lop {
    GW_L_END,
    GW_L_NUM,      /* a number of `size` bytes, emitted by the field's type; then,
                      when it names one, its check: check(x, off, value) */
    GW_L_BYTES,    /* `size` bytes */
    GW_L_REST,     /* the bytes left, as one item (also when there are none) */
    GW_L_CSTR,     /* NUL-terminated text; `arg`: the finding when no NUL ends it */
    GW_L_PADDED,   /* text NUL-padded to `size` bytes, the item covering the text;
                      finding `arg` when no NUL ends it, `arg2` when a padding
                      byte is not zero */
    GW_L_COUNTED,  /* a length of `size` bytes (field `arg`), then that many bytes
                      as `field`; a length past the end is finding `arg2` (its
                      message "<Field> of N bytes, M left"), or with arg2 < 0
                      the PDU is truncated there */
    GW_L_OPTIONAL, /* the PDU may end before any later step of this block */
    GW_L_REPEAT,   /* the block, as many times as field `arg`'s value; with a
                      label (GW_REPEAT_TREE, GW_MORE_TREE) each item a subtree,
                      as GW_L_TREE makes one */
    GW_L_MORE,     /* the block once, then again while at least `size` bytes are
                      left (with GW_LF_FITS: and the length prefix the block
                      starts with fits them) */
    GW_L_IF,       /* the block when field `arg` was read and its value compares
                      to `value` as `cmp` says */
    GW_L_IF_HOOK,  /* the block when the step's test(x) holds */
    GW_L_DONE,     /* ends a block */
    GW_L_STEP,     /* the step's step(x): a part the protocol reads itself (none:
                      only bytes gw_layout_write is given, GW_W_STEP); with
                      `arg` (GW_HOOK) one that reads nothing */
    GW_L_SUB,      /* the layout `sub` */
    GW_L_SWITCH,   /* the layout cases[v], v the value of field `arg`: with a
                      `size`, a number of that many bytes it reads first (as
                      GW_L_NUM reads one, checked by its check), else the value
                      just read or derived (recorded: gw_record_num); no case
                      for it (v at or past `value`, or cases[v] NULL): decoding
                      fails there (a check says why) */
    GW_L_TREE,     /* the block as a subtree under an item of field `field` (its
                      label from label(), when labels are shown); with
                      GW_LF_AHEAD the block is read ahead first (see there);
                      with a `size` (GW_NEED) that many bytes must be there
                      whole before any of the block is read, else the PDU is
                      truncated at its start, `what` (or the field's name)
                      missing */
};

enum gw_lcmp { GW_CMP_EQ, GW_CMP_NE, GW_CMP_LT, GW_CMP_GE };

/* step flags */
#define GW_LF_BE 0x01u   /* big-endian whatever the PDU's order */
#define GW_LF_LE 0x02u   /* little-endian whatever the PDU's order */
#define GW_LF_NAME 0x04u /* the summary gets the value's name (%s), not the number */
#define GW_LF_FIRST 0x08u /* the summary only for the first item of a repeated block */
#define GW_LF_NUL 0x10u  /* GW_L_COUNTED text: a trailing NUL is left out of the
                            item, and one right after it taken too where
                            gw_pdu.nul_after; hooks->text is told either way */
#define GW_LF_FITS 0x20u /* GW_L_MORE: see there */
#define GW_LF_AHEAD 0x40u /* GW_L_TREE: a block shown whole or not at all, its
                             label made from the values it holds. Where items are
                             shown the block is read twice: first ahead (x->reading
                             GW_READING_AHEAD: its items kept for label(), not
                             shown; its findings reported; decoding failing there
                             shows what reports the failure and nothing of the
                             block), then again (GW_READING_AGAIN) under its head,
                             which covers its bytes. Elsewhere it is read once
                             (GW_READING_ONCE). A check or step in it runs on each
                             reading, so it only reads and reports: what belongs
                             before the head on the first reading
                             (gw_reading_first), what belongs in the subtree on
                             the last (gw_reading_last). */
#define GW_LF_LENGTH 0x80u /* GW_L_COUNTED: its check is of its length, check(x,
                              off, n) with off the length's, run before its bytes
                              are taken (and may end decoding); a length of 0
                              takes no bytes and shows no item */

/* The protocol's functions a step names (GW_CHECK, GW_STEP, GW_IF_HOOK).
   Each gets the gw_pdu its decoder's own context embeds first (as `p`)
   and casts it back. They run only where the decoder set x->hooks: a
   quiet run (hooks NULL) leaves steps and checks out and no test holds. */
struct gw_pdu;
typedef void (*gw_check_fn)(struct gw_pdu *x, size_t off, uint64_t v); /* a number just read at off */
typedef void (*gw_step_fn)(struct gw_pdu *x);
typedef bool (*gw_test_fn)(struct gw_pdu *x);
/* a GW_L_TREE's label into out (size bytes): from what was read before it
   (x->index: which item of a repeated block), and under GW_LF_AHEAD from
   the block's items read ahead (items[0..n), at most GW_AHEAD_ITEMS, their
   own labels not kept) */
#define GW_AHEAD_ITEMS 8
typedef void (*gw_label_fn)(struct gw_pdu *x, const gw_item *items, unsigned n, char *out, size_t size);

typedef struct gw_lstep {
    uint8_t op;      /* enum gw_lop */
    uint8_t size;
    uint8_t flags;
    uint8_t cmp;     /* enum gw_lcmp */
    int16_t field;
    int16_t arg;
    int16_t arg2;
    uint8_t chars;   /* the most characters of text the summary shows (0: 32) */
    int32_t value;   /* GW_L_IF: what the value compares to; GW_L_SWITCH: its cases */
    /* added to the summary after the step read its field: a printf format
       of one argument, by the field's type: unsigned long long (%llu) for
       unsigned numbers, long long (%lld) for signed ones, double for
       DOUBLE, and a string (%s) for text (cleaned, at most `chars`
       characters in 1.5 bytes each) or under GW_LF_NAME (a value without a name is "Unknown") */
    union {
        const char *sum;
        const struct gw_lstep *const *cases; /* GW_L_SWITCH (which adds to no summary) */
    };
    union { /* by op (one pointer: a step stays as small as it was) */
        const struct gw_lstep *sub; /* GW_L_SUB */
        gw_check_fn check;          /* GW_L_NUM, GW_L_SWITCH: NULL, or what checks the
                                       number; GW_L_COUNTED: check(x, off, n) of its bytes
                                       (GW_LF_LENGTH: of its length) */
        gw_step_fn step;            /* GW_L_STEP */
        gw_test_fn test;            /* GW_L_IF_HOOK */
        gw_label_fn label;          /* GW_L_TREE; GW_L_REPEAT, GW_L_MORE: NULL, or
                                       each item a subtree (field, flags: as a tree's) */
    };
    /* what a truncation there says is missing (NULL: the field's name);
       GW_L_COUNTED: its bytes (its length is named by the length's field);
       GW_L_TREE: the bytes it needs whole (GW_NEED) */
    const char *what;
} gw_lstep;

/* which reading of a GW_LF_AHEAD block (gw_pdu.reading) */
enum { GW_READING_ONCE, GW_READING_AHEAD, GW_READING_AGAIN };
static inline bool gw_reading_first(const gw_pdu *x) { return x->reading != GW_READING_AGAIN; }
static inline bool gw_reading_last(const gw_pdu *x) { return x->reading != GW_READING_AHEAD; }

/* Read the steps of `l` from the cursor. False when decoding failed (now
   or before). */
bool gw_layout_run(gw_pdu *x, const gw_lstep *l);

/* a number step's byte order: its own, else the PDU's (one byte has none) */
static inline bool gw_layout_order(const gw_pdu *x, const gw_lstep *s)
{
    if (s->flags & (GW_LF_BE | GW_LF_LE))
        return s->flags & GW_LF_BE;
    return x->big_endian && s->size > 1;
}
/* the number of s->size bytes at p, in the step's order */
static inline uint64_t gw_layout_num_at(const gw_pdu *x, const gw_lstep *s, const uint8_t *p)
{
    return s->size == 1 ? p[0] : gw_get_uint(p, s->size, gw_layout_order(x, s));
}

/* a number step whose bytes are there, taken where no item is shown: read,
   recorded as `field`, the cursor past it */
static inline uint64_t gw_layout_quiet_take(gw_pdu *x, const gw_lstep *s, int field)
{
    uint64_t v = gw_layout_num_at(x, s, x->c.data + x->c.off);
    x->c.off += s->size;
    gw_record_num(x, field, v);
    return v;
}

/* Where nothing is shown (no item, no subtree, no summary: gw_layout_run's
   quiet reading; x not failed), the leading numbers of the steps from s
   whose bytes are there: read, recorded and checked as that reading does
   them, without its loop over step kinds. Returns the step the reading
   goes on from (the first that is not a number, or a number the bytes
   left do not hold), NULL when a check failed decoding. For a decoder
   whose layouts begin with numbers (asked at its call, not in
   gw_layout_run: elsewhere its test costs more than it saves). */
static inline const gw_lstep *gw_layout_quiet_numbers(gw_pdu *x, const gw_lstep *s)
{
    for (; s->op == GW_L_NUM && gw_remaining(&x->c) >= s->size; s++) {
        size_t off = x->c.off;
        uint64_t v = gw_layout_quiet_take(x, s, s->field);
        if (s->check && x->hooks) {
            s->check(x, off, v);
            if (x->failed)
                return NULL;
        }
    }
    return s;
}

/* gw_layout_run of a layout that begins with numbers: where nothing is
   shown, those read by gw_layout_quiet_numbers, the interpreter run from
   the step after them (if any: not when the PDU ends at a GW_L_OPTIONAL
   that follows them, which leaves the rest out) */
static inline bool gw_layout_run_numbers_first(gw_pdu *x, const gw_lstep *l)
{
    if (!x->sum.off || gw_emit_tree(&x->e) || x->failed)
        return gw_layout_run(x, l);
    l = gw_layout_quiet_numbers(x, l);
    return l && (l->op == GW_L_END || (l->op == GW_L_OPTIONAL && !gw_remaining(&x->c)) || gw_layout_run(x, l));
}

/* The geometry of a layout's fixed part, its GW_L_NUM and GW_L_BYTES steps
   up to the first step of another kind: its bytes; and where `field` is in
   it (its size in *size), or -1 when it is not there. For a protocol that
   must look at a header before decoding it (which of several fits). */
size_t gw_layout_fixed_size(const gw_lstep *l);
long gw_layout_offset(const gw_lstep *l, int field, unsigned *size);

/* ---- building a PDU from its layout (pcaptool conform) ------------------- */

/* A value to write: the k-th one given for a field goes to the field's
   k-th step. */
typedef struct gw_wval {
    int field;     /* GW_W_END ends the list; GW_W_STEP: the bytes a GW_L_STEP writes */
    uint64_t u;    /* a number */
    const void *p; /* text or bytes, n of them */
    size_t n;
} gw_wval;
#define GW_W_END (-1)
#define GW_W_STEP (-2)
#define GW_WU(f, v) {.field = (f), .u = (v)}
#define GW_WB(f, b, len) {.field = (f), .p = (b), .n = (len)}
#define GW_WSTEP(b, len) {.field = GW_W_STEP, .p = (b), .n = (len)}
#define GW_WVALS(...) ((const gw_wval[]){__VA_ARGS__, {.field = GW_W_END}})
#define GW_NO_VALUES ((const gw_wval[]){{.field = GW_W_END}})

/* Write what layout l reads, from vals, at out (at most cap bytes): a
   number without a value is 0; fixed bytes without a value are zeros, text
   and other bytes without one empty; a counted length is its bytes' count
   unless its field has a value of its own (a length that lies); a repeated
   block runs as many times as its count field's value, a GW_L_MORE block
   while its first field has values left; a GW_L_OPTIONAL part is written
   only when a value is given for it; a GW_L_STEP writes the next
   GW_W_STEP bytes (nothing when there are none; a GW_HOOK none); GW_L_IF_HOOK's block is
   written when a value is given for it; a GW_L_SWITCH writes its number
   (when it reads one) and the case of the last number written for its field, or where none was (a value the
   decoder derives, written by no step) of the next value given for it,
   taken; a GW_L_TREE writes its block. The bytes written in *len; false when they do not fit in cap
   or more than 64 values are given. */
bool gw_layout_write(const gw_lstep *l, bool big_endian, const gw_wval *vals, uint8_t *out, size_t cap,
                     size_t *len);

/* ---- a framing header ---------------------------------------------------- */

/* The header that frames a PDU on a stream, described once for the
   decoder, the protocol's pdu_length, its builder and its heuristic: its
   fixed steps (GW_NUM, GW_BYTES: the geometry gw_layout_offset reads), the
   number that tells the PDU's length and what it counts, and the fixed
   bytes a GW_BYTES step must hold (a magic), if any. At most
   GW_FRAME_STEPS steps. */
typedef struct gw_frame {
    const gw_lstep *header;
    int16_t length_field;
    bool counts_header;     /* the length counts the header's bytes too */
    bool big_endian;        /* the header's numbers' order where a step says none */
    int16_t magic_field;    /* with magic: its GW_BYTES step */
    const uint8_t *magic;   /* NULL: none */
} gw_frame;

/* inline, so that a decoder's, pdu_length's and heuristic's look at a
   header of constant steps costs what reading its bytes by hand does */
#define GW_FRAME_STEPS 8 /* a header's steps at most (a bound the compiler unrolls) */
static inline const gw_lstep *gw_frame_step_(const gw_frame *f, int field, size_t *off)
{
    size_t at = 0;
    for (unsigned i = 0; i < GW_FRAME_STEPS; i++) {
        const gw_lstep *s = &f->header[i];
        if (s->op != GW_L_NUM && s->op != GW_L_BYTES)
            break;
        if (s->field == field) {
            *off = at;
            return s;
        }
        at += s->size;
    }
    return NULL;
}
static inline bool gw_frame_order_(const gw_frame *f, const gw_lstep *s)
{
    return s->flags & GW_LF_BE ? true : s->flags & GW_LF_LE ? false : s->size > 1 && f->big_endian;
}
/* the header's bytes */
static inline size_t gw_frame_size(const gw_frame *f)
{
    size_t n = 0;
    for (unsigned i = 0; i < GW_FRAME_STEPS; i++) {
        if (f->header[i].op != GW_L_NUM && f->header[i].op != GW_L_BYTES)
            break;
        n += f->header[i].size;
    }
    return n;
}
/* the number `field` of the header at data[0..avail): false when avail
   does not hold it */
static inline bool gw_frame_num(const gw_frame *f, int field, const uint8_t *data, size_t avail, uint64_t *v)
{
    size_t off = 0;
    const gw_lstep *s = gw_frame_step_(f, field, &off);
    if (!s || avail < off + s->size)
        return false;
    *v = gw_get_uint(data + off, s->size, gw_frame_order_(f, s));
    return true;
}
/* do data[0..avail) begin with the magic (true without one; false when
   avail does not hold it)? */
static inline bool gw_frame_magic(const gw_frame *f, const uint8_t *data, size_t avail)
{
    size_t off = 0;
    const gw_lstep *s = f->magic ? gw_frame_step_(f, f->magic_field, &off) : NULL;
    if (!s)
        return true;
    return avail >= off + s->size && memcmp(data + off, f->magic, s->size) == 0;
}
/* the bytes of the PDU the header at data[0..avail) frames, header and
   body, in *n; false when avail does not hold the length yet */
static inline bool gw_frame_length(const gw_frame *f, const uint8_t *data, size_t avail, uint64_t *n)
{
    if (!gw_frame_num(f, f->length_field, data, avail, n))
        return false;
    *n += f->counts_header ? 0 : gw_frame_size(f);
    return true;
}
/* take the header's field `field` at the cursor, as its step says: a
   number (gw_take_num, *v its value if v is not NULL) or bytes
   (gw_take_bytes) */
static inline bool gw_frame_take(gw_pdu *x, const gw_frame *f, int field, uint64_t *v)
{
    size_t off = 0;
    const gw_lstep *s = gw_frame_step_(f, field, &off);
    if (!s)
        return false;
    if (s->op == GW_L_BYTES)
        return gw_take_bytes(x, field, s->size);
    return gw_take_num(x, field, s->size, gw_frame_order_(f, s), v);
}
/* write the header at out (cap bytes) for a body of `body` bytes: the
   magic, the length, the other fields from vals (as gw_layout_write); false
   when it does not fit or the length does not fit its field */
bool gw_frame_write(const gw_frame *f, const gw_wval *vals, size_t body, uint8_t *out, size_t cap);

/* ---- writing layouts ----------------------------------------------------- */

#define GW_LAYOUT(...) ((const gw_lstep[]){__VA_ARGS__, {.op = GW_L_END}})
#define GW_EMPTY ((const gw_lstep[]){{.op = GW_L_END}}) /* a PDU with no fields */
#define GW_NUM(f, n, ...) {.op = GW_L_NUM, .size = (n), .field = (f), __VA_ARGS__}
#define GW_BYTES(f, n, ...) {.op = GW_L_BYTES, .size = (n), .field = (f), __VA_ARGS__}
#define GW_REST(f) {.op = GW_L_REST, .field = (f)}
#define GW_PADDED(f, n, unterminated, padding, ...) \
    {.op = GW_L_PADDED, .size = (n), .field = (f), .arg = (unterminated), .arg2 = (padding), __VA_ARGS__}
#define GW_CSTR(f, unterminated, ...) {.op = GW_L_CSTR, .field = (f), .arg = (unterminated), __VA_ARGS__}
#define GW_COUNTED(f, len_field, n, past_end, ...) \
    {.op = GW_L_COUNTED, .size = (n), .field = (f), .arg = (len_field), .arg2 = (past_end), __VA_ARGS__}
#define GW_OPTIONAL {.op = GW_L_OPTIONAL}
#define GW_REPEAT(count_field) {.op = GW_L_REPEAT, .arg = (count_field)}
#define GW_MORE(min, ...) {.op = GW_L_MORE, .size = (min), __VA_ARGS__}
#define GW_IF(f, c, v) {.op = GW_L_IF, .arg = (f), .cmp = (c), .value = (v)}
#define GW_IF_HOOK(fn) {.op = GW_L_IF_HOOK, .test = (fn)}
#define GW_DONE {.op = GW_L_DONE}
#define GW_STEP(fn) {.op = GW_L_STEP, .step = (fn)} /* NULL: bytes only gw_layout_write is given */
/* a step of behaviour alone (matching, state): it reads no bytes, and
   gw_layout_write writes none for it (takes no GW_W_STEP bytes) */
#define GW_HOOK(fn) {.op = GW_L_STEP, .step = (fn), .arg = 1}
#define GW_SUB(l) {.op = GW_L_SUB, .sub = (l)}
#define GW_SWITCH(f, table) \
    {.op = GW_L_SWITCH, .arg = (f), .cases = (table), .value = (int32_t)(sizeof(table) / sizeof((table)[0]))}
/* a number of n bytes and the layout of its value */
#define GW_SWITCH_NUM(f, n, table, ...)                                                                       \
    {.op = GW_L_SWITCH, .size = (n), .arg = (f), .cases = (table),                                          \
     .value = (int32_t)(sizeof(table) / sizeof((table)[0])), __VA_ARGS__}
#define GW_TREE(f, fn, ...) {.op = GW_L_TREE, .field = (f), .label = (fn), __VA_ARGS__}
#define GW_REPEAT_TREE(count_field, f, fn, ...) \
    {.op = GW_L_REPEAT, .arg = (count_field), .field = (f), .label = (fn), __VA_ARGS__}
#define GW_MORE_TREE(min, f, fn, ...) {.op = GW_L_MORE, .size = (min), .field = (f), .label = (fn), __VA_ARGS__}
/* optional step members, for the "..." of the macros above */
#define GW_SUM(fmt) .sum = (fmt)
#define GW_FLAGS(fl) .flags = (fl)
#define GW_CHARS(n) .chars = (n)
#define GW_CHECK(fn) .check = (fn) /* of a GW_NUM or GW_COUNTED: the function that checks it */
#define GW_WHAT(name) .what = (name) /* what a truncation there says is missing */
#define GW_NEED(n) .size = (n) /* of a GW_TREE: the bytes its block needs whole (see there) */

#endif
