/* output.c - JSON Lines and text output of decoded PDUs. */
#include "output.h"
#include "active/gw_replay.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <arpa/inet.h>
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

/* A byte buffer JSON is built in, numbers and text written into it by
   hand (no format parsing, no GString bookkeeping): one that grows (a
   record), or one of a fixed size passed on to a stream or a GString
   whenever it is full (to_f or to_g set: a text escaped for either). */
typedef struct {
    char *p;
    size_t len, cap;
    FILE *to_f;
    GString *to_g;
} obuf;

/* what is in b goes on to its stream or string */
static void ob_drain(obuf *b)
{
    if (b->to_f)
        fwrite(b->p, 1, b->len, b->to_f);
    else
        g_string_append_len(b->to_g, b->p, (gssize)b->len);
    b->len = 0;
}

/* room for n bytes: a buffer that passes its bytes on is drained (n is at
   most 512 there: ob_put_more passes longer runs on whole), one that grows
   grows */
static __attribute__((noinline)) void ob_grow(obuf *b, size_t n)
{
    if (b->to_f || b->to_g) {
        ob_drain(b);
        return;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n)
        cap *= 2;
    b->p = g_realloc(b->p, cap);
    b->cap = cap;
}

/* room for n more bytes: where they go */
static inline __attribute__((always_inline)) char *ob_room(obuf *b, size_t n)
{
    if (b->cap - b->len < n)
        ob_grow(b, n);
    return b->p + b->len;
}

static __attribute__((noinline)) void ob_put_more(obuf *b, const void *s, size_t n)
{
    if ((b->to_f || b->to_g) && n > b->cap) { /* passed on as it is */
        ob_drain(b);
        obuf whole = {(char *)s, n, n, b->to_f, b->to_g};
        ob_drain(&whole);
        return;
    }
    memcpy(ob_room(b, n), s, n);
    b->len += n;
}

static inline __attribute__((always_inline)) void ob_put(obuf *b, const void *s, size_t n)
{
    if (b->cap - b->len < n) {
        ob_put_more(b, s, n);
        return;
    }
    gw_copy_short(b->p + b->len, s, n);
    b->len += n;
}

static inline __attribute__((always_inline)) void ob_c(obuf *b, char c)
{
    *ob_room(b, 1) = c;
    b->len++;
}

static inline void ob_str(obuf *b, const char *s)
{
    ob_put(b, s, strlen(s));
}

/* ob_str as a call, for the text outputs: their many writes spelled out
   inline as JSON's are would crowd the inlining JSON's hot path gets */
static __attribute__((noinline)) void ob_str_call(obuf *b, const char *s)
{
    ob_put(b, s, strlen(s));
}

/* what is in b goes to f */
static void ob_flush(obuf *b, FILE *f)
{
    if (b->len)
        fwrite(b->p, 1, b->len, f);
    b->len = 0;
}

/* held JSON records are written out once this much waits */
#define OUT_FLUSH_AT ((size_t)64 << 10)
/* a held direct record's gap before its fields, for its head (a longer
   head is written after them, the fields copied behind it) */
#define JSON_GAP 512
/* held direct records go out once their buffer holds this much (gaps
   included) or this many pieces wait */
#define OUT_FLUSH_PIECES_AT ((size_t)128 << 10)
#define OUT_PIECES_MAX 512

typedef struct {
    gw_item it;
    int depth;
    size_t label;    /* offset of the label in text, or SIZE_MAX */
} ev_item;

typedef struct {
    int finding;
    int src;
    size_t off, len;
    size_t msg;      /* offset of the message in text */
    int depth;
    size_t after;    /* the items reported before it */
} ev_finding;

/* The digits of a capture time's whole seconds, kept from one record to
   the next: they change once a second of capture time, the nine after the
   point with every packet. */
typedef struct {
    int64_t sec; /* -1: none yet */
    char text[32];
    size_t len;
} seconds_seen;

/* a protocol's JSON keys, made once: `,"dnp.command":[` for each field,
   at key[f] in one text, key_len[f] bytes long (the first key of a record
   is written from its quote, without the comma) */
typedef struct {
    const gw_protocol *p;
    char *text;
    size_t *key, *key_len;
    struct json_name **names; /* "names": each field's values below NAMES_CACHED, or NULL */
    obuf names_text;          /* the escaped names they point into */
    struct json_field *jf;    /* what the direct writing needs of each field */
    struct json_label_kept *labels; /* json_label's, LABELS_KEPT of them */
    size_t labels_bytes;      /* what they added to names_text */
    size_t name_len;          /* strlen(p->name) */
    uint64_t *bool_mask;      /* a JF_BOOL field's mask (all bits: none) */
} json_keys;

/* a field as the direct writing (out_pdu_direct) writes it: its key, and
   how its values are written */
/* how a field's values are written: an unsigned number as it is (JF_U),
   a signed one (JF_I), another integer (masked: JF_INT); true or false
   (JF_BOOL: its bits under the field's bool_mask set or not); seconds
   (JF_TIME: a time's nanoseconds as gw_seconds_text writes them); any
   other value; none (not in "fields") */
enum { JF_U, JF_I, JF_INT, JF_BOOL, JF_TIME, JF_OTHER, JF_NONE };
typedef struct json_field {
    uint32_t key;     /* (json_keys' key[f]) */
    uint16_t key_len; /* (key_len[f]) */
    uint8_t kind;     /* JF_* */
    bool names;       /* an integer field with value names in its table */
} json_field;

/* A run of the direct writing: values of one field one after the other
   in a record, in `fields` from fstart (its key, or a comma when the field
   came before, then the values and a ']') and their names in `names` from
   nstart (the same way; nothing when it has none), up to the next run's
   start. Runs of a field that comes back are put together at the end. */
typedef struct {
    int field;
    uint32_t fstart, nstart;
} json_run;

/* a field of the record being written directly (where record is the
   record's number): its first run, whether it has names */
typedef struct {
    uint32_t record;
    int first;
    bool back; /* it came back: it has more runs */
    bool named;
} json_seen;

/* a label json_label escaped: the text at names_text.p + raw, raw_len
   bytes, escaped at names_text.p + at, len bytes */
typedef struct json_label_kept {
    const char *label;
    uint32_t raw, at, len;
    uint16_t raw_len;
} json_label_kept;
#define LABELS_KEPT 64
#define LABELS_BYTES ((size_t)64 << 10) /* labels kept in names_text at the most (then escaped each time) */

/* a value's name as a JSON string, at names_text.p + at, len bytes (0:
   the value has no name) */
typedef struct json_name {
    uint32_t at, len;
} json_name;
#define NAMES_CACHED 256

struct out_pdu {
    const gw_protocol *p;
    gw_sink sink;
    ev_item *items;    /* this PDU's items, n_items of them (out_pdu_keep_items) */
    size_t n_items, items_cap;
    GArray *findings;  /* ev_finding */
    GString *text;     /* labels, messages, a summary too long for sum */
    size_t summary;    /* offset in text, SUMMARY_IN_SUM, or SIZE_MAX (none) */
    /* the summary (most: gw_summary's are shorter), with its length and
       16 bytes after it that can be read (SUMMARY_PAD: its escaping reads
       16 bytes at a time) */
    char sum[256 + 16];
    size_t sum_len;
    json_keys *last_keys; /* keys_of's last answer */
    int depth;
    unsigned max_sev;
    /* per-field chaining for grouping JSON values: the first and last item
       of each field (-1 between records), the next item of the same field */
    GArray *first_of_field, *last_of_field, *next_of_item;
    json_keys keys[GW_MAX_PROTOCOLS]; /* of each protocol seen, in the order seen */
    seconds_seen seconds; /* of the last record's time */
    const char *file_json; /* out_pdu_file's, and its length */
    size_t file_json_len;
    obuf json;         /* the records written and not yet flushed */
    obuf names;        /* the record's "names" while its "fields" are written */
    bool hold;         /* out_pdu_hold: JSON records wait in json */
    /* out_pdu_direct: a JSON record's "fields" (and "names", in names)
       written as its items come, in runs of a field's values one after the
       other; when a field comes back after another (scattered), its runs
       are put together when the record is written */
    bool direct, scattered;
    bool keep_items;   /* items kept (out_pdu_keep_items) */
    json_keys *pkeys;  /* the keys of the PDU's protocol (direct) */
    /* Where the record's fields are written: `fields`, or (held records:
       out_pdu_hold) `json` itself, after a gap of JSON_GAP bytes at rec_at
       that its head then fills from the end, so that the fields are not
       copied behind the head; the records then go out as pieces of json
       (writev), the gaps' unused starts left out */
    obuf *fb;
    size_t rec_at;
    struct json_piece { size_t at, len; } *pieces;
    size_t n_pieces, pieces_cap;
    obuf head;         /* (held records) a record's head, made before it is put in its gap */
    obuf gathered;     /* (held records) the fields of a record whose fields came back */
    size_t json_used;  /* (held records) where json's written records end */
    bool in_progress;  /* (held records) a record's fields are in json, it not yet written */
    const json_field *jf; /* (pkeys->jf) */
    obuf fields;       /* the record's fields so far, in runs */
    int open;          /* the field of the last run, or -1 */
    bool open_named;   /* its names are the last in names */
    json_run *runs;
    size_t n_runs, runs_cap;
    uint32_t record;   /* numbers the records: seen[f].record == record when f was */
    json_seen *seen;   /* of each field of the protocol, n_seen of them */
    size_t n_seen;
};

static size_t keep_text(out_pdu *o, const char *s)
{
    GString *t = o->text;
    size_t at = t->len, n = strlen(s) + 1; /* with its NUL */
    if (t->allocated_len - at > n) { /* room for it and GString's NUL: copied in place */
        memcpy(t->str + at, s, n);
        t->len += n;
        t->str[t->len] = '\0';
    } else {
        g_string_append_len(t, s, (gssize)n);
    }
    return at;
}

static __attribute__((noinline)) void more_items(out_pdu *o)
{
    o->items_cap = o->items_cap ? 2 * o->items_cap : 64;
    o->items = g_renew(ev_item, o->items, o->items_cap);
}

static void direct_item(out_pdu *o, const gw_item *it);

static __attribute__((noinline)) void keep_item(out_pdu *o, const gw_item *it)
{
    if (o->n_items == o->items_cap)
        more_items(o);
    ev_item *e = &o->items[o->n_items++];
    e->it = *it;
    e->it.label = NULL;
    e->depth = o->depth;
    /* a number's label is the name of its value (JSON's "names"): kept always */
    e->label = it->label && (!o->sink.no_labels || o->p->fields[it->field].type != GW_FT_NONE)
                   ? keep_text(o, it->label) : SIZE_MAX;
}

static void on_item(void *ctx, const gw_item *it)
{
    out_pdu *o = ctx;
    if (o->keep_items) /* (n_items counts the kept items only: what out_pdu_item reads) */
        keep_item(o, it);
    if (o->direct)
        direct_item(o, it);
}

static void on_push(void *ctx)
{
    ((out_pdu *)ctx)->depth++;
}

static void on_pop(void *ctx, size_t end)
{
    (void)end;
    out_pdu *o = ctx;
    if (o->depth > 0)
        o->depth--;
}

static void on_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    out_pdu *o = ctx;
    ev_finding f = {finding, src, off, len, keep_text(o, msg), o->depth, o->n_items};
    g_array_append_val(o->findings, f);
    unsigned sev = (unsigned)o->p->findings[finding].severity + 1;
    if (sev > o->max_sev)
        o->max_sev = sev;
}

#define SUMMARY_IN_SUM (SIZE_MAX - 1)

static void on_summary(void *ctx, const char *text)
{
    out_pdu *o = ctx;
    size_t n = strlen(text);
    if (n < 256) {
        memcpy(o->sum, text, n + 1);
        o->sum_len = n;
        o->summary = SUMMARY_IN_SUM;
    } else {
        o->summary = keep_text(o, text);
    }
}

static void on_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    (void)ctx; (void)src; (void)name; (void)data; (void)len;
}

out_pdu *out_pdu_new(void)
{
    out_pdu *o = g_new0(out_pdu, 1);
    o->findings = g_array_sized_new(FALSE, FALSE, sizeof(ev_finding), 8);
    o->text = g_string_sized_new(1024);
    o->first_of_field = g_array_new(FALSE, FALSE, sizeof(int));
    o->last_of_field = g_array_new(FALSE, FALSE, sizeof(int));
    o->next_of_item = g_array_new(FALSE, FALSE, sizeof(int));
    o->seconds.sec = -1;
    o->keep_items = true;
    o->sink = (gw_sink){.ctx = o, .item = on_item, .push = on_push, .pop = on_pop,
                        .finding = on_finding, .summary = on_summary, .source = on_source};
    return o;
}

static void free_keys(json_keys *k)
{
    g_free(k->text);
    g_free(k->key);
    g_free(k->key_len);
    for (int f = 0; k->names && f < k->p->n_fields; f++)
        g_free(k->names[f]);
    g_free(k->names);
    g_free(k->names_text.p);
    g_free(k->jf);
    g_free(k->labels);
    g_free(k->bool_mask);
    *k = (json_keys){0};
}

void out_pdu_free(out_pdu *o)
{
    g_free(o->items);
    for (int k = 0; k < GW_MAX_PROTOCOLS; k++)
        free_keys(&o->keys[k]);
    g_array_free(o->findings, TRUE);
    g_string_free(o->text, TRUE);
    g_array_free(o->first_of_field, TRUE);
    g_array_free(o->last_of_field, TRUE);
    g_array_free(o->next_of_item, TRUE);
    g_free(o->json.p);
    g_free(o->names.p);
    g_free(o->fields.p);
    g_free(o->head.p);
    g_free(o->gathered.p);
    g_free(o->pieces);
    g_free(o->seen);
    g_free(o->runs);
    g_free(o);
}

static json_keys *keys_of(out_pdu *o, const gw_protocol *p);

/* ready the direct writing of a record of p: no field seen yet */
static void direct_begin(out_pdu *o, const gw_protocol *p)
{
    o->pkeys = keys_of(o, p);
    o->jf = o->pkeys->jf;
    o->fields.len = 0;
    if (o->hold) { /* the fields after a gap in json (JSON_GAP) */
        o->json.len = o->json_used; /* (a PDU begun and not written: gone) */
        ob_room(&o->json, JSON_GAP);
        o->rec_at = o->json.len;
        o->json.len += JSON_GAP;
        o->fb = &o->json;
        o->in_progress = true;
    } else {
        o->fb = &o->fields;
    }
    o->names.len = 0;
    o->open = -1;
    o->open_named = false;
    o->scattered = false;
    o->n_runs = 0;
    if (o->n_seen < (size_t)p->n_fields) {
        o->seen = g_renew(json_seen, o->seen, (size_t)p->n_fields);
        memset(o->seen + o->n_seen, 0, ((size_t)p->n_fields - o->n_seen) * sizeof *o->seen);
        o->n_seen = (size_t)p->n_fields;
    }
    if (++o->record == 0) { /* (wrapped: every field unseen again) */
        memset(o->seen, 0, o->n_seen * sizeof *o->seen);
        o->record = 1;
    }
}

gw_sink *out_pdu_begin(out_pdu *o, const gw_protocol *p)
{
    o->p = p;
    o->n_items = 0;
    if (o->findings->len)
        g_array_set_size(o->findings, 0);
    o->text->len = 0; /* (g_string_truncate's work) */
    o->text->str[0] = '\0';
    o->summary = SIZE_MAX;
    o->depth = 0;
    o->max_sev = 0;
    if (o->direct)
        direct_begin(o, p);
    return &o->sink;
}

/* items are taken where they are kept or written as they come: else the
   decoders are told that nobody takes them (gw_emit_tree) and do not make
   them */
static void take_items(out_pdu *o)
{
    bool taken = o->keep_items || o->direct;
    o->sink.item = taken ? on_item : NULL;
    o->sink.push = taken ? on_push : NULL;
    o->sink.pop = taken ? on_pop : NULL;
}

void out_pdu_direct(out_pdu *o, bool direct)
{
    o->direct = direct;
    take_items(o);
}

void out_pdu_file(out_pdu *o, const char *file_json, size_t len)
{
    o->file_json = file_json;
    o->file_json_len = len;
}

void out_pdu_keep_items(out_pdu *o, bool kept)
{
    o->keep_items = kept;
    take_items(o);
}

void out_pdu_labels(out_pdu *o, bool kept)
{
    o->sink.no_labels = !kept;
}

unsigned out_pdu_max_severity(const out_pdu *o)
{
    return o->max_sev;
}

unsigned out_pdu_n_findings(const out_pdu *o)
{
    return o->findings->len;
}

size_t out_pdu_finding_after(const out_pdu *o, unsigned k)
{
    return g_array_index(o->findings, ev_finding, k).after;
}

int out_pdu_finding(const out_pdu *o, unsigned k, const char **message)
{
    const ev_finding *f = &g_array_index(o->findings, ev_finding, k);
    *message = o->text->str + f->msg;
    return f->finding;
}

void out_conversation_key(const gw_protocol *p, const out_meta *m, char *key, size_t keysz,
                          const char **a, const char **b)
{
    const char *src = m->src ? m->src : "", *dst = m->dst ? m->dst : "";
    const char *lo = strcmp(src, dst) <= 0 ? src : dst, *hi = lo == src ? dst : src;
    /* "NAME LO HI", cut as snprintf cuts (by hand: stats asks for it each PDU) */
    const char *part[5] = {p->name, " ", lo, " ", hi};
    size_t n = 0;
    for (int i = 0; i < 5 && n + 1 < keysz; i++) {
        size_t len = strlen(part[i]), room = keysz - 1 - n;
        memcpy(key + n, part[i], len < room ? len : room);
        n += len < room ? len : room;
    }
    if (keysz)
        key[n] = '\0';
    if (a)
        *a = lo;
    if (b)
        *b = hi;
}

const char *out_pdu_summary(const out_pdu *o)
{
    return o->summary == SIZE_MAX ? "" : o->summary == SUMMARY_IN_SUM ? o->sum : o->text->str + o->summary;
}

bool out_pdu_first_u(const out_pdu *o, int field, uint64_t *v)
{
    for (size_t i = 0; i < o->n_items; i++) {
        const ev_item *e = &o->items[i];
        if (e->it.field == field && e->it.src == 0) {
            *v = e->it.v.u;
            return true;
        }
    }
    return false;
}

bool out_pdu_selected(const out_pdu *o, dfilter_eval *ev)
{
    dfilter_record r = {.p = o->p, .n_items = o->n_items, .item_stride = sizeof(ev_item),
                        .n_findings = o->findings->len, .finding_stride = sizeof(ev_finding)};
    if (o->n_items)
        r.items = &o->items[0].it;
    if (o->findings->len)
        r.findings = &g_array_index(o->findings, ev_finding, 0).finding;
    return dfilter_match(ev, &r);
}

size_t out_pdu_n_items(const out_pdu *o)
{
    return o->n_items;
}

const gw_item *out_pdu_item(const out_pdu *o, size_t i)
{
    return &o->items[i].it;
}

gw_item *out_pdu_items(const out_pdu *o, const uint8_t *data, unsigned *n)
{
    gw_item *v = g_new(gw_item, o->n_items + 1);
    unsigned k = 0;
    for (size_t i = 0; i < o->n_items; i++) {
        const gw_item *it = &o->items[i].it;
        if (!it->src)
            v[k++] = *it;
    }
    gw_replay_items_at(o->p, v, k, data);
    *n = k;
    return v;
}

/* ---- value formatting ---- */

static const char hex_digits[] = "0123456789abcdef";

/* JSON string bytes: 0 goes out as it is (printable ASCII), 1 is escaped
   (a control character, '"', '\\'), 2 is a NUL or a byte of 0x80 and above,
   which valid UTF-8 keeps and anything else makes U+FFFD */
static const uint8_t json_class[256] = {
    [0] = 2, [1 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 2,
};

/* Does any of the 8 bytes at p need escaping or checking (json_class not
   0: below 0x20, '"', '\\', 0x80 and above)? Each test leaves a byte's
   top bit set only where the byte is such a one, and where a lower byte
   of the word was (a borrow): never when none is. */
static inline bool any_special8(const uint8_t *p)
{
    const uint64_t ones = 0x0101010101010101u;
    uint64_t x, quote, backslash;
    memcpy(&x, p, 8);
    quote = x ^ (ones * '"');
    backslash = x ^ (ones * '\\');
    return (x | (x - ones * 0x20) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash)) &
           (ones * 0x80);
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* the bytes of the 16 at p that json_class does not pass (a bit each) */
static inline unsigned special16(const uint8_t *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* below 0x20 as signed bytes: the control characters and 0x80 up */
    __m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                             _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
    return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* where the run of bytes json_class passes that starts at p[i] ends: the
   first byte from i that needs escaping or checking, or n */
static inline size_t plain_run(const uint8_t *p, size_t i, size_t n, bool padded)
{
#if defined(__SSE2__)
    for (; n - i >= 16; i += 16) { /* 16 bytes at a time */
        unsigned m = special16(p + i);
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
    if (padded && i < n) /* the last few bytes with the 16 they start */
        return i + (size_t)__builtin_ctz(special16(p + i) | ~0u << (n - i));
#else
    (void)padded;
#endif
    while (n - i >= 8 && !any_special8(p + i)) /* 8 at a time */
        i += 8;
    while (i < n && !json_class[p[i]])
        i++;
    return i;
}

/* Text as a JSON string: the runs of bytes that need nothing go out at
   once; valid UTF-8 is kept, each byte of anything else (a NUL too: GLib's
   validation refuses it) becomes U+FFFD. */
static inline __attribute__((always_inline)) void json_escape_in(obuf *b, const uint8_t *p, size_t n,
                                                                  bool padded)
{
    ob_c(b, '"');
    size_t i = 0, plain = 0;
    while (i < n) {
        i = plain_run(p, i, n, padded);
        if (i == n)
            break;
        uint8_t c = p[i];
        ob_put(b, p + plain, i - plain);
        if (json_class[c] == 2) {
            /* one character: valid when GLib validates it whole */
            const gchar *end;
            g_utf8_validate((const gchar *)p + i, (gssize)(n - i < 4 ? n - i : 4), &end);
            if ((const uint8_t *)end > p + i) {
                size_t len = (size_t)g_utf8_skip[c];
                ob_put(b, p + i, len);
                i += len;
            } else {
                ob_put(b, "\xef\xbf\xbd", 3); /* U+FFFD for one invalid byte */
                i++;
            }
            plain = i;
            continue;
        }
        switch (c) {
        case '"': ob_put(b, "\\\"", 2); break;
        case '\\': ob_put(b, "\\\\", 2); break;
        case '\n': ob_put(b, "\\n", 2); break;
        case '\r': ob_put(b, "\\r", 2); break;
        case '\t': ob_put(b, "\\t", 2); break;
        default: {
            char esc[6] = {'\\', 'u', '0', '0', hex_digits[c >> 4], hex_digits[c & 15]};
            ob_put(b, esc, 6);
        }
        }
        plain = ++i;
    }
    ob_put(b, p + plain, n - plain);
    ob_c(b, '"');
}

static void json_escape(obuf *b, const uint8_t *p, size_t n)
{
    json_escape_in(b, p, n, false);
}

/* the same for text of which 16 bytes more can be read (the summary's
   buffer) */
static void json_escape_padded(obuf *b, const uint8_t *p, size_t n)
{
    json_escape_in(b, p, n, true);
}

void out_json_string(FILE *f, const uint8_t *p, size_t n)
{
    char chunk[1024];
    obuf b = {chunk, 0, sizeof chunk, f, NULL};
    json_escape(&b, p, n);
    ob_drain(&b);
}

void out_json_gstring(GString *g, const uint8_t *p, size_t n)
{
    char chunk[1024];
    obuf b = {chunk, 0, sizeof chunk, NULL, g};
    json_escape(&b, p, n);
    ob_drain(&b);
}

/* ---- JSON numbers by hand ---- */

/* 10^0 .. 10^19 */
static const uint64_t powers_of_10[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u};

/* v's decimal digits, `width` of them (leading zeros where v has fewer),
   written from the last one back, two at a time, at q */
static void put_digits(char *q, uint64_t v, unsigned width)
{
    char *d = q + width;
    for (; v > UINT32_MAX && d - q >= 2; v /= 100) {
        d -= 2;
        memcpy(d, gw_two_digits + 2 * (v % 100), 2);
    }
    uint32_t w = (uint32_t)v; /* (32-bit arithmetic: fewer instructions) */
    for (; d - q >= 2; w /= 100) {
        d -= 2;
        memcpy(d, gw_two_digits + 2 * (w % 100), 2);
    }
    if (d > q)
        *q = (char)('0' + w % 10);
}

/* how many decimal digits v has (1 for 0): from its bits' count, which
   gives the digits or one too many */
static inline unsigned decimal_width(uint64_t v)
{
    unsigned w = (unsigned)((64 - __builtin_clzll(v | 1)) * 1233) >> 12; /* log10(2) ~ 1233/4096 */
    return w + (w < 20 && v >= powers_of_10[w]);
}

/* v's decimal digits at q (room for 20): where they end */
static inline char *put_u64(char *q, uint64_t v)
{
    if (v < 10) {
        *q = (char)('0' + v);
        return q + 1;
    }
    if (v < 100) {
        memcpy(q, gw_two_digits + 2 * v, 2);
        return q + 2;
    }
    unsigned w = decimal_width(v);
    put_digits(q, v, w);
    return q + w;
}

static inline void ob_u64(obuf *b, uint64_t v)
{
    char *q = ob_room(b, 20);
    b->len += (size_t)(put_u64(q, v) - q);
}

static void ob_i64(obuf *b, int64_t v)
{
    if (v < 0) {
        ob_c(b, '-');
        ob_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        ob_u64(b, (uint64_t)v);
    }
}

static void ob_seconds(obuf *b, int64_t ns)
{
    b->len += gw_seconds_text(ob_room(b, 32), ns);
}

/* "000102...ff": a byte's two hex digits at once */
static const char hex_pairs[] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
    "303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f"
    "909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
/* 16 bytes at p as 32 hex digits at q, all at once: each half-byte plus
   '0', plus 39 more ('a' - '0' - 10) where it is above 9, the digits of
   the high and low halves then interleaved */
typedef uint8_t u8x16 __attribute__((vector_size(16)));
static inline void hex16(char *q, const uint8_t *p)
{
    u8x16 x, hi, lo;
    memcpy(&x, p, 16);
    hi = x >> 4;
    lo = x & 15;
    hi += '0' + ((u8x16)(hi > 9) & 39);
    lo += '0' + ((u8x16)(lo > 9) & 39);
    u8x16 a = __builtin_shufflevector(hi, lo, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    u8x16 z = __builtin_shufflevector(hi, lo, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    memcpy(q, &a, 16);
    memcpy(q + 16, &z, 16);
}
#define HEX16 1
#endif

static void ob_hex(obuf *b, const uint8_t *p, size_t n)
{
    while (n) { /* 256 bytes at most a time: room within any buffer's size */
        size_t k = n < 256 ? n : 256, i = 0;
        char *q = ob_room(b, 2 * k);
#ifdef HEX16
        for (; k - i >= 16; i += 16)
            hex16(q + 2 * i, p + i);
#endif
        for (; i < k; i++)
            memcpy(q + 2 * i, hex_pairs + 2 * p[i], 2);
        b->len += 2 * k;
        p += k;
        n -= k;
    }
}

/* What %.17g prints for a number of few binary digits after the point
   (1.5, -0.015625: a game's coordinates and times), made by hand: such a
   number I + M / 2^k is I + M * 5^k / 10^k exactly, k decimal digits after
   the point of which the last is a 5 (M odd), none to trim. Only where
   %.17g prints them all in fixed notation: at most 17 significant digits,
   10^-4 or more. False, nothing written, for any other number. */
static bool json_short_fraction(obuf *b, double d)
{
    double a = fabs(d);
    if (!(a >= 1e-4 && a < 1e15))
        return false;
    double whole = floor(a), frac = a - whole; /* both exact */
    uint64_t m = 0;
    unsigned k = 0;
    for (; frac != 0; k++) { /* the binary digits after the point, into m */
        if (k == 19)
            return false; /* m * 5^k would not fit */
        frac *= 2;
        m = 2 * m + (frac >= 1);
        if (frac >= 1)
            frac -= 1;
    }
    uint64_t fraction = m, i = (uint64_t)whole;
    for (unsigned j = 0; j < k; j++)
        fraction *= 5; /* < 10^k */
    unsigned int_digits = 0, frac_digits = 0; /* significant ones */
    while (int_digits < 20 && i >= powers_of_10[int_digits])
        int_digits++;
    while (frac_digits < 20 && fraction >= powers_of_10[frac_digits])
        frac_digits++;
    if ((i ? int_digits + k : frac_digits) > 17)
        return false;
    char *q = ob_room(b, 48), *start = q;
    if (d < 0)
        *q++ = '-';
    put_digits(q, i, int_digits ? int_digits : 1);
    q += int_digits ? int_digits : 1;
    *q++ = '.';
    put_digits(q, fraction, k);
    b->len += (size_t)(q + k - start);
    return true;
}

static void json_double(obuf *b, double d)
{
    if (isnan(d)) {
        ob_str(b, "\"nan\"");
    } else if (isinf(d)) {
        ob_str(b, d > 0 ? "\"inf\"" : "\"-inf\"");
    } else if (fabs(d) < 1e17 && d == (double)(int64_t)d && !(d == 0 && signbit(d))) {
        ob_i64(b, (int64_t)d); /* what %.17g prints for an integer below 10^17 */
    } else if (!json_short_fraction(b, d)) {
        char t[40];
        int n = snprintf(t, sizeof t, "%.17g", d);
        ob_put(b, t, (size_t)n);
    }
}

/* an address as Wireshark shows it (inet_ntop: RFC 5952 for IPv6) */
static const char *address_text(const gw_field *fd, const gw_item *it, char *text, size_t size)
{
    bool v4 = fd->type == GW_FT_IPV4;
    if (it->v.b.n != (v4 ? 4u : 16u) || !inet_ntop(v4 ? AF_INET : AF_INET6, it->v.b.p, text, (socklen_t)size))
        return "?";
    return text;
}

static void json_value_any(obuf *b, const gw_field *fd, const gw_item *it);

/* an item's value in JSON: the plain unsigned numbers, most values,
   inline */
static inline void json_value(obuf *b, const gw_field *fd, const gw_item *it)
{
    if (fd->type >= GW_FT_U8 && fd->type <= GW_FT_U64 && !fd->mask)
        ob_u64(b, it->v.u);
    else
        json_value_any(b, fd, it);
}

static void json_value_any(obuf *b, const gw_field *fd, const gw_item *it)
{
    char text[INET6_ADDRSTRLEN];
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64: case GW_FT_FRAMENUM:
        ob_u64(b, fd->mask ? gw_field_masked(fd, it->v.u) : it->v.u);
        break;
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        ob_i64(b, it->v.i);
        break;
    case GW_FT_BOOL: /* (a masked value is 0 when its bits under the mask are) */
        if (fd->mask ? it->v.u & fd->mask : it->v.u)
            ob_put(b, "true", 4);
        else
            ob_put(b, "false", 5);
        break;
    case GW_FT_DOUBLE:
        json_double(b, it->v.d);
        break;
    case GW_FT_RELTIME: case GW_FT_ABSTIME: /* seconds (since the epoch), as "time" */
        ob_seconds(b, it->v.i);
        break;
    case GW_FT_STRING:
        json_escape(b, it->v.b.p, it->v.b.n);
        break;
    case GW_FT_IPV4: case GW_FT_IPV6:
        ob_c(b, '"');
        ob_str(b, address_text(fd, it, text, sizeof text));
        ob_c(b, '"');
        break;
    case GW_FT_BYTES:
        ob_c(b, '"');
        ob_hex(b, it->v.b.p, it->v.b.n);
        ob_c(b, '"');
        break;
    default:
        ob_str(b, "null");
    }
}

/* The next character of p (n > 0 bytes) as Wireshark reads UTF-8: its
   length, and the code point in *c; an invalid sequence is one U+FFFD for
   each maximal subpart (the longest start of a valid sequence, at least
   one byte), as Unicode recommends and Wireshark does. */
static size_t utf8_next(const uint8_t *p, size_t n, uint32_t *c)
{
    uint8_t b = p[0];
    size_t need;
    uint8_t lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (b < 0x80) {
        *c = b;
        return 1;
    } else if (b >= 0xc2 && b <= 0xdf) {
        need = 1;
        *c = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        *c = b & 0x0f;
        lo = b == 0xe0 ? 0xa0 : 0x80;
        hi = b == 0xed ? 0x9f : 0xbf;
    } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        *c = b & 0x07;
        lo = b == 0xf0 ? 0x90 : 0x80;
        hi = b == 0xf4 ? 0x8f : 0xbf;
    } else {
        *c = 0xfffd;
        return 1;
    }
    size_t k = 1;
    for (; k <= need; k++) {
        if (k >= n || p[k] < lo || p[k] > hi) {
            *c = 0xfffd; /* the bytes so far are one maximal subpart */
            return k;
        }
        *c = *c << 6 | (p[k] & 0x3f);
        lo = 0x80;
        hi = 0xbf;
    }
    return k;
}

void out_ws_text(GString *g, const uint8_t *p, size_t n, bool tree)
{
    static const char c_escapes[] = "\a\b\f\n\r\t\v", c_letters[] = "abfnrtv";
    size_t i = 0;
    while (i < n && p[i]) { /* Wireshark's strings end at a NUL */
        size_t start = i;
        while (i < n && p[i] >= 0x20 && p[i] < 0x7f) /* plain ASCII at once */
            i++;
        g_string_append_len(g, (const char *)p + start, (gssize)(i - start));
        if (i == n || !p[i])
            break;
        uint32_t c;
        size_t k = utf8_next(p + i, n - i, &c);
        const char *esc = c && c < 0x20 ? strchr(c_escapes, (int)c) : NULL;
        if (c == 0xfffd) /* (an invalid sequence, or the character itself) */
            g_string_append(g, "\xef\xbf\xbd");
        else if (!tree || (c >= 0x80 && g_unichar_isprint(c)))
            g_string_append_len(g, (const char *)p + i, (gssize)k);
        else if (esc) /* the tree: format_text's escapes */
            g_string_append_printf(g, "\\%c", c_letters[esc - c_escapes]);
        else if (c < 0x80)
            g_string_append_printf(g, "\\%03o", (unsigned)c);
        else
            g_string_append_printf(g, c <= 0xffff ? "\\u%04X" : "\\U%08X", (unsigned)c);
        i += k;
    }
}

/* value_name: the item's own name for its value (gw_emit_named_u), or NULL */
static void text_value(obuf *o, const gw_field *fd, const gw_item *it, const char *value_name)
{
    char b[160];
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64:
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
    case GW_FT_BOOL: case GW_FT_DOUBLE:
        ob_str_call(o, gw_format_number(b, sizeof b, fd, &it->v, value_name));
        break;
    case GW_FT_FRAMENUM:
        ob_u64(o, it->v.u);
        break;
    case GW_FT_RELTIME:
        ob_seconds(o, it->v.i);
        ob_str_call(o, " s");
        break;
    case GW_FT_ABSTIME:
        ob_str_call(o, gw_format_date(b, sizeof b, it->v.i, 9));
        break;
    case GW_FT_STRING: {
        GString *t = g_string_sized_new(it->v.b.n + 16); /* -V only: not the hot path */
        out_ws_text(t, it->v.b.p, it->v.b.n, true);
        ob_put(o, t->str, t->len);
        g_string_free(t, TRUE);
        break;
    }
    case GW_FT_IPV4: case GW_FT_IPV6: {
        char text[INET6_ADDRSTRLEN];
        ob_str_call(o, address_text(fd, it, text, sizeof text));
        break;
    }
    case GW_FT_BYTES: {
        char t[GW_BYTES_TEXT_MAX];
        ob_str_call(o, gw_format_bytes(t, sizeof t, it->v.b.p, it->v.b.n));
        break;
    }
    default:
        break;
    }
}

/* the capture time ns (>= 0) as gw_seconds_text writes it at q (room
   for 32 bytes), the whole seconds from *seen where they are the same:
   its length */
static inline size_t seen_time(char *q, int64_t ns, seconds_seen *seen)
{
    int64_t sec = ns / 1000000000;
    if (sec != seen->sec) {
        seen->sec = sec;
        seen->len = gw_seconds_text(seen->text, sec * 1000000000) - 10; /* without ".000000000" */
    }
    memcpy(q, seen->text, 20); /* the digits and what follows: a copy of one size */
    q[seen->len] = '.';
    put_digits(q + seen->len + 1, (uint64_t)(ns % 1000000000), 9);
    return seen->len + 10;
}

/* the capture time ns (>= 0 from the readers, gw_time_ns) as
   gw_seconds_text writes it, the whole seconds from *seen where they are
   the same (seen may be NULL) */
static void ob_time(obuf *b, int64_t ns, seconds_seen *seen)
{
    if (!seen || ns < 0)
        ob_seconds(b, ns);
    else
        b->len += seen_time(ob_room(b, 32), ns, seen);
}

/* the length of m's file_json (0: none), out_pdu_file's where it is that */
static inline size_t file_json_len(const out_pdu *o, const out_meta *m)
{
    return !m->file_json ? 0 : m->file_json == o->file_json ? o->file_json_len : strlen(m->file_json);
}

/* the start of every record: JSON up to the summary, or the text line */
static void json_head(obuf *b, const out_meta *m, size_t nfile, const char *proto, size_t nproto,
                      const char *summary, size_t summary_len, seconds_seen *seen, bool padded)
{
    size_t nsrc = strlen(m->src), ndst = strlen(m->dst);
    if (seen && m->time_ns >= 0 && nfile + nsrc + ndst + nproto < 256) {
        /* the usual record: all of it up to the summary in the room made
           for it at once */
        char *q = ob_room(b, nfile + nsrc + ndst + nproto + 128), *start = q;
        if (nfile) {
            memcpy(q, "{\"file\":", 8);
            gw_copy_short(q + 8, m->file_json, nfile);
            q += 8 + nfile;
            memcpy(q, ",\"frame\":", 9);
        } else {
            memcpy(q, "{\"frame\":", 9);
        }
        q += 9;
        unsigned w = decimal_width(m->frame);
        put_digits(q, m->frame, w);
        q += w;
        memcpy(q, ",\"time\":", 8);
        q += 8;
        q += seen_time(q, m->time_ns, seen);
        memcpy(q, ",\"src\":\"", 8);
        gw_copy_short(q + 8, m->src, nsrc);
        q += 8 + nsrc;
        memcpy(q, "\",\"dst\":\"", 9);
        gw_copy_short(q + 9, m->dst, ndst);
        q += 9 + ndst;
        memcpy(q, "\",\"proto\":\"", 11);
        gw_copy_short(q + 11, proto, nproto);
        q += 11 + nproto;
        memcpy(q, "\",\"summary\":", 12);
        b->len += (size_t)(q + 12 - start);
        if (padded)
            json_escape_padded(b, (const uint8_t *)summary, summary_len);
        else
            json_escape(b, (const uint8_t *)summary, summary_len);
        return;
    }
    ob_c(b, '{');
    if (m->file_json) {
        ob_str(b, "\"file\":");
        ob_str(b, m->file_json);
        ob_c(b, ',');
    }
    ob_str(b, "\"frame\":");
    ob_u64(b, m->frame);
    ob_str(b, ",\"time\":");
    ob_time(b, m->time_ns, seen);
    ob_str(b, ",\"src\":\"");
    ob_str(b, m->src);
    ob_str(b, "\",\"dst\":\"");
    ob_str(b, m->dst);
    ob_str(b, "\",\"proto\":\"");
    ob_str(b, proto);
    ob_str(b, "\",\"summary\":");
    if (padded)
        json_escape_padded(b, (const uint8_t *)summary, summary_len);
    else
        json_escape(b, (const uint8_t *)summary, summary_len);
}

/* a finding object, after "findings":[ */
static void json_finding(obuf *b, const char *code, gw_severity sev, size_t off, size_t len,
                         int src, const char *msg)
{
    ob_str(b, "{\"code\":\"");
    ob_str(b, code);
    ob_str(b, "\",\"severity\":\"");
    ob_str(b, gw_severity_name(sev));
    ob_str(b, "\",\"offset\":");
    ob_u64(b, off);
    ob_str(b, ",\"length\":");
    ob_u64(b, len);
    if (src) {
        ob_str(b, ",\"source\":");
        ob_i64(b, src);
    }
    ob_str(b, ",\"message\":");
    json_escape(b, (const uint8_t *)msg, strlen(msg));
    ob_c(b, '}');
}

/* the one-line head of a PDU (or a finding) in text into b:
   "FRAME TIME SRC -> DST PROTO SUMMARY\n", by hand (fprintf's format
   parsing was most of a text line's cost) */
static void text_head_in(obuf *b, const out_meta *m, const char *proto, const char *summary)
{
    ob_u64(b, m->frame);
    ob_c(b, ' ');
    if (m->time_text)
        ob_str_call(b, m->time_text);
    else
        ob_seconds(b, m->time_ns);
    ob_c(b, ' ');
    ob_str_call(b, m->src);
    ob_str_call(b, " -> ");
    ob_str_call(b, m->dst);
    ob_c(b, ' ');
    ob_str_call(b, proto);
    ob_c(b, ' ');
    ob_str_call(b, summary);
    ob_c(b, '\n');
}

/* a finding's line under its head in text: "    SEVERITY CODE @OFF: MESSAGE\n" */
static void text_finding_in(obuf *b, gw_severity sev, const char *code, size_t off, const char *msg)
{
    ob_str_call(b, "    ");
    ob_str_call(b, gw_severity_name(sev));
    ob_c(b, ' ');
    ob_str_call(b, code);
    ob_str_call(b, " @");
    ob_u64(b, off);
    ob_str_call(b, ": ");
    ob_str_call(b, msg);
    ob_c(b, '\n');
}

/* a text line's bytes, built in a chunk passed on to f as it fills */
#define TEXT_CHUNK 1024

/* an int array of at least n entries, the new ones -1 */
static int *field_slots(GArray *a, guint n)
{
    guint had = a->len;
    if (had < n) {
        g_array_set_size(a, n);
        for (guint i = had; i < n; i++)
            g_array_index(a, int, i) = -1;
    }
    return (int *)(void *)a->data;
}

/* p's JSON keys, made the first time a record of p is written */
static json_keys *keys_of(out_pdu *o, const gw_protocol *p)
{
    if (o->last_keys && o->last_keys->p == p)
        return o->last_keys;
    json_keys *k = o->keys;
    while (k->p && k->p != p && k < o->keys + GW_MAX_PROTOCOLS - 1)
        k++;
    o->last_keys = k;
    if (k->p == p)
        return k;
    free_keys(k); /* (the last slot is remade if ever more protocols come) */
    size_t nf = (size_t)p->n_fields, size = 0;
    k->p = p;
    k->key = g_new(size_t, nf);
    k->key_len = g_new(size_t, nf);
    for (size_t f = 0; f < nf; f++)
        size += strlen(p->fields[f].abbrev) + 5;
    k->text = g_malloc(size + 1);
    char *t = k->text;
    k->jf = g_new(json_field, nf);
    k->labels = g_new0(json_label_kept, LABELS_KEPT);
    k->name_len = strlen(p->name);
    k->bool_mask = g_new(uint64_t, nf);
    for (size_t f = 0; f < nf; f++) {
        const gw_field *fd = &p->fields[f];
        k->key[f] = (size_t)(t - k->text);
        t += sprintf(t, ",\"%s\":[", fd->abbrev);
        k->key_len[f] = (size_t)(t - k->text) - k->key[f];
        bool integer = fd->type >= GW_FT_U8 && fd->type <= GW_FT_I64;
        k->jf[f] = (json_field){
            .key = (uint32_t)k->key[f], .key_len = (uint16_t)k->key_len[f],
            .kind = fd->type == GW_FT_NONE                                        ? JF_NONE
                    : fd->type >= GW_FT_U8 && fd->type <= GW_FT_U64 && !fd->mask ? JF_U
                    : fd->type >= GW_FT_I8 && fd->type <= GW_FT_I64              ? JF_I
                    : integer                                                     ? JF_INT
                    : fd->type == GW_FT_BOOL                                      ? JF_BOOL
                    : fd->type == GW_FT_RELTIME || fd->type == GW_FT_ABSTIME     ? JF_TIME
                                                                                  : JF_OTHER,
            .names = integer && fd->names};
        k->bool_mask[f] = fd->mask ? fd->mask : UINT64_MAX;
    }
    return k;
}

/* the name of an integer item's value: its own (label: gw_emit_named_u),
   else its field's table's; NULL when neither names it */
static const char *value_name(const gw_field *fd, const gw_item *it, const char *label)
{
    if (label)
        return label;
    if (!fd->names)
        return NULL;
    uint64_t v = fd->type >= GW_FT_I8 && fd->type <= GW_FT_I64 ? (uint64_t)it->v.i
                 : fd->mask ? gw_field_masked(fd, it->v.u) : it->v.u;
    return v <= UINT32_MAX ? gw_value_name_of(fd->names, (uint32_t)v) : NULL;
}

/* the JSON names of field f's values below NAMES_CACHED (a field with
   value names), escaped the first time they are asked for */
static const json_name *cached_names(json_keys *k, int f)
{
    if (!k->names)
        k->names = g_new0(json_name *, (size_t)k->p->n_fields);
    if (k->names[f])
        return k->names[f];
    const gw_field *fd = &k->p->fields[f];
    json_name *t = g_new(json_name, NAMES_CACHED);
    for (uint32_t v = 0; v < NAMES_CACHED; v++) {
        const char *name = gw_value_name_of(fd->names, v);
        size_t at = k->names_text.len;
        if (name)
            json_escape(&k->names_text, (const uint8_t *)name, strlen(name));
        t[v] = (json_name){(uint32_t)at, (uint32_t)(k->names_text.len - at)};
    }
    return k->names[f] = t;
}

/* a value's own name (an item's label: the decoders' names are static
   strings, OpenTTD's packet and command names by release) as a JSON
   string, escaped once and kept by its address (its text checked against
   what was kept, so that another text at that address is escaped anew) */
static void json_label(obuf *b, json_keys *k, const char *label)
{
    json_label_kept *e = &k->labels[((uintptr_t)label >> 3) % LABELS_KEPT];
    if (e->label != label || memcmp(k->names_text.p + e->raw, label, e->raw_len) || label[e->raw_len]) {
        size_t n = strlen(label);
        if (n > UINT16_MAX || k->labels_bytes > LABELS_BYTES) { /* (kept no more: escaped here) */
            json_escape(b, (const uint8_t *)label, n);
            return;
        }
        size_t had = k->names_text.len;
        e->label = label;
        e->raw_len = (uint16_t)n;
        e->raw = (uint32_t)k->names_text.len; /* the text as it was, then escaped */
        ob_put(&k->names_text, label, n);
        e->at = (uint32_t)k->names_text.len;
        json_escape(&k->names_text, (const uint8_t *)label, n);
        e->len = (uint32_t)(k->names_text.len - e->at);
        k->labels_bytes += k->names_text.len - had;
    }
    ob_put(b, k->names_text.p + e->at, e->len);
}

/* an integer item's value name in JSON (a string or null), as value_name()
   gives it */
static void json_value_name(obuf *b, json_keys *keys, const gw_field *fd, int f, const gw_item *it,
                            const char *label)
{
    if (!label && fd->names) {
        uint64_t v = fd->type >= GW_FT_I8 && fd->type <= GW_FT_I64 ? (uint64_t)it->v.i
                     : fd->mask ? gw_field_masked(fd, it->v.u) : it->v.u;
        if (v < NAMES_CACHED) {
            const json_name *n = &cached_names(keys, f)[v];
            if (n->len)
                ob_put(b, keys->names_text.p + n->at, n->len);
            else
                ob_put(b, "null", 4);
            return;
        }
    }
    if (label) {
        json_label(b, keys, label);
        return;
    }
    const char *name = value_name(fd, it, label);
    if (name)
        json_escape(b, (const uint8_t *)name, strlen(name));
    else
        ob_put(b, "null", 4);
}

/* json_value_name, inline for an unsigned value below NAMES_CACHED of a
   field whose names are cached (most names) */
static inline void json_value_name_fast(obuf *b, json_keys *keys, json_field jf, int f, const gw_item *it)
{
    if (!it->label && jf.kind == JF_U && it->v.u < NAMES_CACHED && keys->names && keys->names[f]) {
        const json_name *n = &keys->names[f][it->v.u];
        if (n->len)
            ob_put(b, keys->names_text.p + n->at, n->len);
        else
            ob_put(b, "null", 4);
        return;
    }
    json_value_name(b, keys, &keys->p->fields[f], f, it, it->label);
}

/* field fi's names in "names" (fi's values from item i on, along next),
   after its values in "fields", into o->names, if it has any: its table's
   or its items' own (,"fi":["name",null,...]) */
static void json_names_of(out_pdu *o, json_keys *keys, const gw_field *fd, int fi, int i, const int *next)
{
    bool named = fd->names != NULL;
    for (int k = i; k >= 0 && !named; k = next[k])
        named = o->items[k].label != SIZE_MAX;
    if (!named)
        return;
    obuf *b = &o->names;
    ob_put(b, keys->text + keys->key[fi], keys->key_len[fi]);
    for (int k = i; k >= 0; k = next[k]) {
        if (k != i)
            ob_c(b, ',');
        const ev_item *e = &o->items[k];
        if (e->label != SIZE_MAX) /* (a copy of the label: not kept by json_label) */
            json_escape(b, (const uint8_t *)o->text->str + e->label, strlen(o->text->str + e->label));
        else
            json_value_name(b, keys, fd, fi, &e->it, NULL);
    }
    ob_c(b, ']');
}

/* the open run's end: its ']' in fields, and in names if it has names */
static inline void direct_close(out_pdu *o)
{
    ob_c(o->fb, ']');
    if (o->open_named)
        ob_c(&o->names, ']');
}

static __attribute__((noinline)) void more_runs(out_pdu *o)
{
    o->runs_cap = o->runs_cap ? 2 * o->runs_cap : 64;
    o->runs = g_renew(json_run, o->runs, o->runs_cap);
}

/* a new run of field fi at q in fields (room made for a ']' and its key):
   the run before ended, its key (its first) or a comma (it comes back);
   where its value goes */
static inline char *direct_run(out_pdu *o, int fi, json_field jf, const gw_item *it, char *q)
{
    obuf *fb = o->fb, *nb = &o->names;
    if (o->open >= 0) {
        *q++ = ']';
        if (o->open_named)
            ob_c(nb, ']');
    }
    if (o->n_runs == o->runs_cap)
        more_runs(o);
    int n = (int)o->n_runs++;
    o->runs[n] = (json_run){fi, (uint32_t)(q - fb->p), (uint32_t)nb->len};
    o->open = fi;
    json_seen *s = &o->seen[fi];
    if (s->record != o->record) { /* the field's first */
        bool named = jf.names || (it->label && jf.kind <= JF_INT);
        *s = (json_seen){.record = o->record, .first = n, .named = named};
        o->open_named = named;
        const char *key = o->pkeys->text + jf.key;
        gw_copy_short(q, key, jf.key_len);
        if (named)
            ob_put(nb, key, jf.key_len);
        return q + jf.key_len;
    }
    o->scattered = true; /* it comes back */
    s->back = true;
    *q++ = ',';
    if (!s->named && jf.kind <= JF_INT && it->label)
        s->named = true; /* (the runs before have no names: null, when put together) */
    o->open_named = s->named;
    if (s->named)
        ob_c(nb, ',');
    return q;
}

/* how many commas p[0..n) has: an integer field's values less one */
static size_t commas(const char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] == ',';
    return k;
}

/* the values of run k in fields: after its key (the field's first run) or
   its comma, before its ']' (end: where the run ends) */
static inline size_t run_values(const out_pdu *o, size_t k, size_t end, size_t *n)
{
    const json_run *r = &o->runs[k];
    size_t from = r->fstart + ((int)k == o->seen[r->field].first ? o->pkeys->jf[r->field].key_len : 1);
    *n = end - from;
    return from;
}

/* names begin in the open run with its last value, which has a name of
   its own where the values before had none: null for those */
static __attribute__((noinline)) void direct_named_late(out_pdu *o, int fi, json_field jf)
{
    obuf *nb = &o->names;
    json_seen *s = &o->seen[fi];
    size_t k = o->n_runs - 1, n, from = run_values(o, k, o->fb->len, &n);
    if (s->first == (int)k)
        ob_put(nb, o->pkeys->text + jf.key, jf.key_len);
    else
        ob_c(nb, ',');
    for (size_t c = commas(o->fb->p + from, n); c; c--)
        ob_put(nb, "null,", 5);
    s->named = true;
    o->open_named = true;
}

/* direct_item of a field that has values */
static inline void direct_item_any(out_pdu *o, const gw_item *it, int fi, json_field jf)
{
    obuf *fb = o->fb;
    char *q = ob_room(fb, (size_t)jf.key_len + 34); /* a ']', its key or a comma, a number or time */
    bool fresh = fi != o->open;
    if (fresh)
        q = direct_run(o, fi, jf, it, q);
    else
        *q++ = ',';
    if (jf.kind == JF_U) {
        fb->len = (size_t)(put_u64(q, it->v.u) - fb->p);
    } else if (jf.kind == JF_BOOL) {
        bool set = it->v.u & o->pkeys->bool_mask[fi];
        memcpy(q, set ? "true" : "false", 5);
        fb->len = (size_t)(q - fb->p) + 5 - set;
    } else if (jf.kind == JF_TIME) { /* (gw_seconds_text's digits) */
        int64_t ns = it->v.i;
        uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        if (ns < 0)
            *q++ = '-';
        q = put_u64(q, u / 1000000000);
        *q = '.';
        put_digits(q + 1, u % 1000000000, 9);
        fb->len = (size_t)(q + 10 - fb->p);
    } else if (jf.kind == JF_I) {
        if (it->v.i < 0)
            *q++ = '-';
        fb->len = (size_t)(put_u64(q, it->v.i < 0 ? (uint64_t)0 - (uint64_t)it->v.i : (uint64_t)it->v.i) - fb->p);
    } else {
        fb->len = (size_t)(q - fb->p);
        json_value_any(fb, &o->p->fields[fi], it);
    }
    if (o->open_named) {
        if (!fresh)
            ob_c(&o->names, ',');
        json_value_name_fast(&o->names, o->pkeys, jf, fi, it);
    } else if (jf.kind <= JF_INT && it->label) {
        direct_named_late(o, fi, jf);
        json_value_name_fast(&o->names, o->pkeys, jf, fi, it);
    }
}

/* an item of the record into o->fields and o->names as it comes
   (out_pdu_direct): its field's values together while they come one after
   the other */
static inline void direct_item(out_pdu *o, const gw_item *it)
{
    int fi = it->field;
    json_field jf = o->jf[fi];
    if (jf.kind != JF_NONE)
        direct_item_any(o, it, fi, jf);
}

/* the end of run k in fields and names (the next run's start) */
static inline size_t run_fend(const out_pdu *o, size_t k)
{
    return k + 1 < o->n_runs ? o->runs[k + 1].fstart : o->fb->len;
}
static inline size_t run_nend(const out_pdu *o, size_t k)
{
    return k + 1 < o->n_runs ? o->runs[k + 1].nstart : o->names.len;
}

/* Is run k its field's first? */
static inline bool run_first(const out_pdu *o, size_t k)
{
    return o->seen[o->runs[k].field].first == (int)k;
}

/* a record whose fields came back (o->scattered): its "fields" and
   "names", each field's runs put together in the order of their first;
   the runs of fields that do not come back copied as they are, as many as
   follow one another at once */
static __attribute__((noinline)) void direct_gather(out_pdu *o, obuf *b)
{
    const json_keys *keys = o->pkeys;
    const json_run *runs = o->runs;
    size_t n_runs = o->n_runs;
    for (int names = 0; names < 2; names++) {
        const char *text = names ? o->names.p : o->fb->p;
        size_t text_len = names ? o->names.len : o->fb->len, at = b->len;
        ob_put(b, names ? ",\"names\":{" : ",\"fields\":{", names ? 10 : 11);
        size_t head = b->len; /* (nothing after it: no field) */
        for (size_t r = 0; r < n_runs;) {
            if (!run_first(o, r)) {
                r++;
                continue;
            }
            if (!o->seen[runs[r].field].back) { /* runs of fields that do not come back: as they are */
                size_t e = r + 1;
                while (e < n_runs && run_first(o, e) && !o->seen[runs[e].field].back)
                    e++;
                size_t from = names ? runs[r].nstart : runs[r].fstart;
                size_t to = e < n_runs ? (names ? runs[e].nstart : runs[e].fstart) : text_len;
                if (to > from) {
                    from += b->len == head; /* the record's first key without its comma */
                    ob_put(b, text + from, to - from);
                }
                r = e;
                continue;
            }
            int fi = runs[r].field;
            if (names && !o->seen[fi].named) {
                r++;
                continue;
            }
            json_field jf = keys->jf[fi];
            bool first_key = b->len == head;
            ob_put(b, keys->text + jf.key + first_key, jf.key_len - first_key);
            for (size_t k = r; k < n_runs; k++) { /* (few fields come back: each looked for) */
                if (runs[k].field != fi)
                    continue;
                if (k != r)
                    ob_c(b, ',');
                size_t n, from = run_values(o, k, run_fend(o, k) - 1, &n);
                if (!names) {
                    ob_put(b, o->fb->p + from, n);
                    continue;
                }
                size_t nfrom = runs[k].nstart, nto = run_nend(o, k);
                if (nto > nfrom) { /* its names, after its key or comma, before its ']' */
                    nfrom += k == r ? jf.key_len : 1;
                    ob_put(b, o->names.p + nfrom, nto - 1 - nfrom);
                } else { /* none: null for each of its values */
                    for (size_t c = commas(o->fb->p + from, n); c; c--)
                        ob_put(b, "null,", 5);
                    ob_put(b, "null", 4);
                }
            }
            ob_c(b, ']');
            r++;
        }
        if (b->len > head)
            ob_c(b, '}');
        else if (names)
            b->len = at; /* no names */
        else
            ob_c(b, '}');
    }
    o->names.len = 0;
}

static void json_tail(out_pdu *o, obuf *b);

/* json[at, at + len) is a piece of the records to write */
static void add_piece(out_pdu *o, size_t at, size_t len)
{
    if (o->n_pieces && o->pieces[o->n_pieces - 1].at + o->pieces[o->n_pieces - 1].len == at) {
        o->pieces[o->n_pieces - 1].len += len; /* (it follows the last) */
        return;
    }
    if (o->n_pieces == o->pieces_cap) {
        o->pieces_cap = o->pieces_cap ? 2 * o->pieces_cap : 64;
        o->pieces = g_renew(struct json_piece, o->pieces, o->pieces_cap);
    }
    o->pieces[o->n_pieces++] = (struct json_piece){at, len};
}

/* A held direct record (its fields in json after its gap): its head made
   apart and put at the end of the gap, its '{' over the first field's
   comma; then its end after the fields. A record whose fields came back,
   or whose head does not fit, is written whole after them instead. */
static void write_held(out_pdu *o, const out_meta *m, size_t name_len, const char *summary, bool in_sum)
{
    obuf *b = &o->json, *h = &o->head;
    size_t fields_at = o->rec_at + JSON_GAP, start;
    if (o->open >= 0)
        direct_close(o);
    h->len = 0;
    json_head(h, m, file_json_len(o, m), o->p->name, name_len, summary, in_sum ? o->sum_len : strlen(summary),
              &o->seconds, in_sum);
    if (o->scattered) {
        o->gathered.len = 0;
        direct_gather(o, &o->gathered); /* (its "names" too) */
        start = b->len;
        ob_put(b, h->p, h->len);
        ob_put(b, o->gathered.p, o->gathered.len);
    } else {
        ob_put(h, ",\"fields\":{", 11);
        bool any = o->open >= 0; /* (a field: its comma at fields_at) */
        if (h->len <= JSON_GAP + (size_t)any) {
            start = fields_at + any - h->len;
            memcpy(b->p + start, h->p, h->len);
        } else { /* a head longer than the gap: the fields copied behind it */
            size_t n = b->len - fields_at - any;
            start = b->len;
            ob_put(b, h->p, h->len);
            char *to = ob_room(b, n); /* (first: the buffer may move) */
            memcpy(to, b->p + fields_at + any, n);
            b->len += n;
        }
        ob_c(b, '}');
    }
    o->open = -1;
    json_tail(o, b);
    add_piece(o, start, b->len - start);
    o->json_used = b->len;
    o->in_progress = false;
}

/* the held records to f, as pieces of json (the gaps left out) */
static void write_pieces(out_pdu *o, FILE *f)
{
    int fd = fileno(f);
    size_t k = 0;
    if (fd >= 0 && fflush(f) == 0) {
        struct iovec iov[64];
        while (k < o->n_pieces) {
            int n = 0;
            for (; n < 64 && k + (size_t)n < o->n_pieces; n++)
                iov[n] = (struct iovec){o->json.p + o->pieces[k + n].at, o->pieces[k + n].len};
            struct iovec *v = iov;
            int left = n;
            while (left > 0) {
                ssize_t w = writev(fd, v, left);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w < 0)
                    break;
                for (; left > 0 && (size_t)w >= v->iov_len; v++, left--)
                    w -= (ssize_t)v->iov_len;
                if (left > 0) {
                    v->iov_base = (char *)v->iov_base + w;
                    v->iov_len -= (size_t)w;
                }
            }
            if (left > 0) { /* it failed: the rest through f, which fails as well and says so (ferror) */
                for (; left > 0; v++, left--)
                    fwrite(v->iov_base, 1, v->iov_len, f);
                k += (size_t)n;
                break;
            }
            k += (size_t)n;
        }
    }
    for (; k < o->n_pieces; k++) /* (f without a descriptor, or the rest after a failure) */
        fwrite(o->json.p + o->pieces[k].at, 1, o->pieces[k].len, f);
    o->n_pieces = 0;
    if (!o->in_progress) /* (else the record begun stays where it is) */
        o->json.len = o->json_used = 0;
}

/* One record, built in o->json after the records held before it: values
   grouped by field, fields in order of first appearance. */
static void write_json(out_pdu *o, const out_meta *m)
{
    const gw_protocol *p = o->p;
    json_keys *keys = o->direct ? o->pkeys : keys_of(o, p);
    obuf *b = &o->json;
    const char *summary = out_pdu_summary(o);
    bool in_sum = o->summary == SUMMARY_IN_SUM;
    if (o->direct && o->fb == &o->json) {
        write_held(o, m, keys->name_len, summary, in_sum);
        return;
    }
    json_head(b, m, file_json_len(o, m), p->name, keys->name_len, summary, in_sum ? o->sum_len : strlen(summary),
              &o->seconds, in_sum);
    if (o->direct) { /* fields and names written as the items came */
        if (o->open >= 0)
            direct_close(o);
        if (o->scattered) {
            direct_gather(o, b);
        } else {
            ob_put(b, ",\"fields\":{", 11);
            if (o->open >= 0)
                ob_put(b, o->fields.p + 1, o->fields.len - 1); /* its first key without the comma */
            ob_c(b, '}');
        }
        o->fields.len = 0;
        o->open = -1;
        json_tail(o, b);
        return;
    }

    guint n = (guint)o->n_items;
    int *first = field_slots(o->first_of_field, (guint)p->n_fields);
    int *last = field_slots(o->last_of_field, (guint)p->n_fields);
    if (o->next_of_item->len < n) /* (grown, never shrunk: set for items 0..n-1 below) */
        g_array_set_size(o->next_of_item, n);
    int *next = (int *)(void *)o->next_of_item->data;
    const ev_item *items = o->items;
    for (guint i = 0; i < n; i++) {
        int fi = items[i].it.field;
        next[i] = -1;
        if (first[fi] < 0)
            first[fi] = (int)i;
        else
            next[last[fi]] = (int)i;
        last[fi] = (int)i;
    }
    ob_str(b, ",\"fields\":{");
    bool any = false;
    for (guint i = 0; i < n; i++) {
        int fi = items[i].it.field;
        const gw_field *fd = &p->fields[fi];
        if (first[fi] != (int)i || fd->type == GW_FT_NONE)
            continue;
        ob_put(b, keys->text + keys->key[fi] + !any, keys->key_len[fi] - !any);
        any = true;
        for (int k = (int)i; k >= 0; k = next[k]) {
            if (k != (int)i)
                ob_c(b, ',');
            json_value(b, fd, &items[k].it);
        }
        ob_c(b, ']');
        if (fd->type >= GW_FT_U8 && fd->type <= GW_FT_I64)
            json_names_of(o, keys, fd, fi, (int)i, next);
    }
    for (guint i = 0; i < n; i++) /* -1 again, for the next record */
        first[items[i].it.field] = last[items[i].it.field] = -1;
    ob_c(b, '}');
    json_tail(o, b);
}

/* a record's end after its "fields": its "names", findings */
static void json_tail(out_pdu *o, obuf *b)
{
    const gw_protocol *p = o->p;
    /* ,"names":{...}: for each integer field of the record that has value
       names (its table, or its items' own), the name of each of its values
       in "fields" (null where it has none); nothing when no field has any */
    if (o->names.len) {
        ob_put(b, ",\"names\":{", 10);
        ob_put(b, o->names.p + 1, o->names.len - 1); /* its first key without the comma */
        ob_c(b, '}');
        o->names.len = 0;
    }
    if (!o->findings->len) {
        ob_put(b, ",\"findings\":[]}\n", 16);
        return;
    }
    ob_str(b, ",\"findings\":[");
    for (guint i = 0; i < o->findings->len; i++) {
        const ev_finding *e = &g_array_index(o->findings, ev_finding, i);
        const gw_finding_def *d = &p->findings[e->finding];
        if (i)
            ob_c(b, ',');
        json_finding(b, d->code, d->severity, e->off, e->len, e->src, o->text->str + e->msg);
    }
    ob_str(b, "]}\n");
}

static void write_text(out_pdu *o, FILE *f, int verbose, const out_meta *m)
{
    const gw_protocol *p = o->p;
    char chunk[TEXT_CHUNK];
    obuf b = {chunk, 0, sizeof chunk, f, NULL};
    text_head_in(&b, m, p->short_name, out_pdu_summary(o));
    if (verbose) {
        for (size_t i = 0; i < o->n_items; i++) {
            const ev_item *e = &o->items[i];
            const gw_field *fd = &p->fields[e->it.field];
            if (e->it.flags & GW_ITEM_HIDDEN)
                continue;
            for (size_t k = 4 + 4 * (size_t)(e->depth > 0 ? e->depth : 0); k;) { /* its indent */
                size_t w = k < 64 ? k : 64;
                memset(ob_room(&b, w), ' ', w);
                b.len += w;
                k -= w;
            }
            bool gen = e->it.flags & GW_ITEM_GENERATED;
            if (gen)
                ob_c(&b, '[');
            if (fd->type == GW_FT_NONE) {
                ob_str_call(&b, e->label != SIZE_MAX ? o->text->str + e->label : fd->name);
            } else {
                ob_str_call(&b, fd->name);
                ob_str_call(&b, ": ");
                text_value(&b, fd, &e->it, e->label != SIZE_MAX ? o->text->str + e->label : NULL);
            }
            if (gen)
                ob_c(&b, ']');
            ob_c(&b, '\n');
        }
    }
    for (guint i = 0; i < o->findings->len; i++) {
        const ev_finding *e = &g_array_index(o->findings, ev_finding, i);
        const gw_finding_def *d = &p->findings[e->finding];
        text_finding_in(&b, d->severity, d->code, e->off, o->text->str + e->msg);
    }
    ob_drain(&b);
}

void out_pdu_hold(out_pdu *o, bool hold)
{
    o->hold = hold;
}

void out_pdu_flush(out_pdu *o, FILE *f)
{
    if (o->n_pieces)
        write_pieces(o, f);
    else if (!o->in_progress) /* (held records: none waits) */
        ob_flush(&o->json, f);
}

void out_pdu_write(out_pdu *o, FILE *f, out_format fmt, int verbose, const out_meta *m)
{
    if (fmt == OUT_JSON) {
        write_json(o, m);
        if (o->n_pieces) {
            if (!o->hold || o->json.len >= OUT_FLUSH_PIECES_AT || o->n_pieces >= OUT_PIECES_MAX)
                write_pieces(o, f);
        } else if (!o->hold || o->json.len >= OUT_FLUSH_AT) {
            ob_flush(&o->json, f);
        }
    } else {
        write_text(o, f, verbose, m);
    }
}

void out_finding_write(FILE *f, out_format fmt, const out_meta *m, const out_finding *fd)
{
    if (fmt == OUT_JSON) {
        char chunk[1024]; /* a finding record is rare: written in pieces as they fill this */
        obuf b = {chunk, 0, sizeof chunk, f, NULL};
        json_head(&b, m, m->file_json ? strlen(m->file_json) : 0, fd->proto, strlen(fd->proto), fd->summary,
                  strlen(fd->summary), NULL, false);
        ob_str(&b, ",\"fields\":{},\"findings\":[");
        json_finding(&b, fd->code, fd->severity, fd->off, fd->len, 0, fd->message);
        ob_str(&b, fd->end_of_conversation ? "],\"end_of_conversation\":true}\n" : "]}\n");
        ob_drain(&b);
    } else {
        char chunk[TEXT_CHUNK];
        obuf b = {chunk, 0, sizeof chunk, f, NULL};
        text_head_in(&b, m, fd->short_name, fd->summary);
        text_finding_in(&b, fd->severity, fd->code, fd->off, fd->message);
        ob_drain(&b);
    }
}

void out_xml_text(FILE *f, const char *s)
{
    const char *p = s, *end = s + strlen(s);
    while (p < end) {
        gunichar c = g_utf8_get_char_validated(p, end - p);
        if (c == (gunichar)-1 || c == (gunichar)-2) { /* an invalid byte */
            fputs("\xef\xbf\xbd", f);
            p++;
            continue;
        }
        const char *next = g_utf8_next_char(p);
        switch (c) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0xfffe || c == 0xffff)
                fputs("\xef\xbf\xbd", f); /* not a character of XML 1.0 */
            else
                fwrite(p, 1, (size_t)(next - p), f);
        }
        p = next;
    }
}
