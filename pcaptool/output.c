/* output.c - JSON Lines and text output of decoded PDUs. */
#include "output.h"
#include "active/gw_replay.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <arpa/inet.h>

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
static inline char *ob_room(obuf *b, size_t n)
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

static inline void ob_put(obuf *b, const void *s, size_t n)
{
    if (b->cap - b->len < n) {
        ob_put_more(b, s, n);
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void ob_c(obuf *b, char c)
{
    *ob_room(b, 1) = c;
    b->len++;
}

static inline void ob_str(obuf *b, const char *s)
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
} ev_finding;

struct out_pdu {
    const gw_protocol *p;
    gw_sink sink;
    GArray *items;     /* ev_item */
    GArray *findings;  /* ev_finding */
    GString *text;     /* labels, messages, summary */
    size_t summary;    /* offset in text, or SIZE_MAX */
    int depth;
    unsigned max_sev;
    /* per-field chaining for grouping JSON values: the first and last item
       of each field (-1 between records), the next item of the same field */
    GArray *first_of_field, *last_of_field, *next_of_item;
    obuf json;         /* the records written and not yet flushed */
    bool hold;         /* out_pdu_hold: JSON records wait in json */
};

static size_t keep_text(out_pdu *o, const char *s)
{
    size_t at = o->text->len;
    g_string_append_len(o->text, s, (gssize)strlen(s) + 1); /* with its NUL */
    return at;
}

static void on_item(void *ctx, const gw_item *it)
{
    out_pdu *o = ctx;
    ev_item e = {*it, o->depth, it->label ? keep_text(o, it->label) : SIZE_MAX};
    e.it.label = NULL;
    g_array_append_val(o->items, e);
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
    ev_finding f = {finding, src, off, len, keep_text(o, msg), o->depth};
    g_array_append_val(o->findings, f);
    unsigned sev = (unsigned)o->p->findings[finding].severity + 1;
    if (sev > o->max_sev)
        o->max_sev = sev;
}

static void on_summary(void *ctx, const char *text)
{
    out_pdu *o = ctx;
    o->summary = keep_text(o, text);
}

static void on_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    (void)ctx; (void)src; (void)name; (void)data; (void)len;
}

out_pdu *out_pdu_new(void)
{
    out_pdu *o = g_new0(out_pdu, 1);
    o->items = g_array_sized_new(FALSE, FALSE, sizeof(ev_item), 64);
    o->findings = g_array_sized_new(FALSE, FALSE, sizeof(ev_finding), 8);
    o->text = g_string_sized_new(1024);
    o->first_of_field = g_array_new(FALSE, FALSE, sizeof(int));
    o->last_of_field = g_array_new(FALSE, FALSE, sizeof(int));
    o->next_of_item = g_array_new(FALSE, FALSE, sizeof(int));
    o->sink = (gw_sink){.ctx = o, .item = on_item, .push = on_push, .pop = on_pop,
                        .finding = on_finding, .summary = on_summary, .source = on_source};
    return o;
}

void out_pdu_free(out_pdu *o)
{
    g_array_free(o->items, TRUE);
    g_array_free(o->findings, TRUE);
    g_string_free(o->text, TRUE);
    g_array_free(o->first_of_field, TRUE);
    g_array_free(o->last_of_field, TRUE);
    g_array_free(o->next_of_item, TRUE);
    g_free(o->json.p);
    g_free(o);
}

const gw_sink *out_pdu_begin(out_pdu *o, const gw_protocol *p)
{
    o->p = p;
    g_array_set_size(o->items, 0);
    g_array_set_size(o->findings, 0);
    g_string_truncate(o->text, 0);
    o->summary = SIZE_MAX;
    o->depth = 0;
    o->max_sev = 0;
    return &o->sink;
}

unsigned out_pdu_max_severity(const out_pdu *o)
{
    return o->max_sev;
}

unsigned out_pdu_n_findings(const out_pdu *o)
{
    return o->findings->len;
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
    snprintf(key, keysz, "%s %s %s", p->name, lo, hi);
    if (a)
        *a = lo;
    if (b)
        *b = hi;
}

const char *out_pdu_summary(const out_pdu *o)
{
    return o->summary == SIZE_MAX ? "" : o->text->str + o->summary;
}

bool out_pdu_first_u(const out_pdu *o, int field, uint64_t *v)
{
    for (guint i = 0; i < o->items->len; i++) {
        const ev_item *e = &g_array_index(o->items, ev_item, i);
        if (e->it.field == field && e->it.src == 0) {
            *v = e->it.v.u;
            return true;
        }
    }
    return false;
}

gw_item *out_pdu_items(const out_pdu *o, const uint8_t *data, unsigned *n)
{
    gw_item *v = g_new(gw_item, o->items->len + 1);
    unsigned k = 0;
    for (guint i = 0; i < o->items->len; i++) {
        const gw_item *it = &g_array_index(o->items, ev_item, i).it;
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

/* Text as a JSON string: the runs of bytes that need nothing go out at
   once; valid UTF-8 is kept, each byte of anything else (a NUL too: GLib's
   validation refuses it) becomes U+FFFD. */
static void json_escape(obuf *b, const uint8_t *p, size_t n)
{
    ob_c(b, '"');
    size_t i = 0, plain = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (!json_class[c]) {
            i++;
            continue;
        }
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

static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

static void ob_u64(obuf *b, uint64_t v)
{
    char t[20];
    char *q = t + sizeof t;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, two_digits + 2 * r, 2);
    }
    if (v >= 10) {
        q -= 2;
        memcpy(q, two_digits + 2 * v, 2);
    } else {
        *--q = (char)('0' + v);
    }
    ob_put(b, q, (size_t)(t + sizeof t - q));
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
    char t[32];
    ob_put(b, t, gw_seconds_text(t, ns));
}

static void print_seconds(FILE *f, int64_t ns)
{
    char b[32];
    fwrite(b, 1, gw_seconds_text(b, ns), f);
}

/* "000102...ff": a byte's two hex digits at once */
static const char hex_pairs[] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
    "303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f"
    "909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

static void ob_hex(obuf *b, const uint8_t *p, size_t n)
{
    while (n) { /* 256 bytes at most a time: room within any buffer's size */
        size_t k = n < 256 ? n : 256;
        char *q = ob_room(b, 2 * k);
        for (size_t i = 0; i < k; i++)
            memcpy(q + 2 * i, hex_pairs + 2 * p[i], 2);
        b->len += 2 * k;
        p += k;
        n -= k;
    }
}

static void json_double(obuf *b, double d)
{
    if (isnan(d)) {
        ob_str(b, "\"nan\"");
    } else if (isinf(d)) {
        ob_str(b, d > 0 ? "\"inf\"" : "\"-inf\"");
    } else if (fabs(d) < 1e17 && d == (double)(int64_t)d && !(d == 0 && signbit(d))) {
        ob_i64(b, (int64_t)d); /* what %.17g prints for an integer below 10^17 */
    } else {
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

static void print_address(FILE *f, const gw_field *fd, const gw_item *it)
{
    char text[INET6_ADDRSTRLEN];
    fputs(address_text(fd, it, text, sizeof text), f);
}

static void json_value(obuf *b, const gw_field *fd, const gw_item *it)
{
    char text[INET6_ADDRSTRLEN];
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64: case GW_FT_FRAMENUM:
        ob_u64(b, gw_field_masked(fd, it->v.u));
        break;
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        ob_i64(b, it->v.i);
        break;
    case GW_FT_BOOL:
        ob_str(b, gw_field_masked(fd, it->v.u) ? "true" : "false");
        break;
    case GW_FT_DOUBLE:
        json_double(b, it->v.d);
        break;
    case GW_FT_RELTIME:
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

/* value_name: the item's own name for its value (gw_emit_named_u), or NULL */
static void text_value(FILE *f, const gw_field *fd, const gw_item *it, const char *value_name)
{
    char b[160];
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64:
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
    case GW_FT_BOOL: case GW_FT_DOUBLE:
        fputs(gw_format_number(b, sizeof b, fd, &it->v, value_name), f);
        break;
    case GW_FT_FRAMENUM:
        fprintf(f, "%" PRIu64, it->v.u);
        break;
    case GW_FT_RELTIME:
        print_seconds(f, it->v.i);
        fputs(" s", f);
        break;
    case GW_FT_STRING:
        out_json_string(f, it->v.b.p, it->v.b.n);
        break;
    case GW_FT_IPV4: case GW_FT_IPV6:
        print_address(f, fd, it);
        break;
    case GW_FT_BYTES: {
        char t[GW_BYTES_TEXT_MAX];
        fputs(gw_format_bytes(t, sizeof t, it->v.b.p, it->v.b.n), f);
        break;
    }
    default:
        break;
    }
}

/* the start of every record: JSON up to the summary, or the text line */
static void json_head(obuf *b, const out_meta *m, const char *proto, const char *summary)
{
    ob_c(b, '{');
    if (m->file_json) {
        ob_str(b, "\"file\":");
        ob_str(b, m->file_json);
        ob_c(b, ',');
    }
    ob_str(b, "\"frame\":");
    ob_u64(b, m->frame);
    ob_str(b, ",\"time\":");
    ob_seconds(b, m->time_ns);
    ob_str(b, ",\"src\":\"");
    ob_str(b, m->src);
    ob_str(b, "\",\"dst\":\"");
    ob_str(b, m->dst);
    ob_str(b, "\",\"proto\":\"");
    ob_str(b, proto);
    ob_str(b, "\",\"summary\":");
    json_escape(b, (const uint8_t *)summary, strlen(summary));
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

static void text_head(FILE *f, const out_meta *m, const char *proto, const char *summary)
{
    fprintf(f, "%u ", m->frame);
    print_seconds(f, m->time_ns);
    fprintf(f, " %s -> %s %s %s\n", m->src, m->dst, proto, summary);
}

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

/* One record, built in o->json after the records held before it: values
   grouped by field, fields in order of first appearance. */
static void write_json(out_pdu *o, const out_meta *m)
{
    const gw_protocol *p = o->p;
    obuf *b = &o->json;
    json_head(b, m, p->name, out_pdu_summary(o));

    guint n = o->items->len;
    int *first = field_slots(o->first_of_field, (guint)p->n_fields);
    int *last = field_slots(o->last_of_field, (guint)p->n_fields);
    g_array_set_size(o->next_of_item, n);
    int *next = (int *)(void *)o->next_of_item->data;
    const ev_item *items = (const ev_item *)(void *)o->items->data;
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
        const gw_field *fd = &p->fields[items[i].it.field];
        if (first[items[i].it.field] != (int)i || fd->type == GW_FT_NONE)
            continue;
        ob_str(b, any ? ",\"" : "\"");
        ob_str(b, fd->abbrev);
        ob_str(b, "\":[");
        any = true;
        for (int k = (int)i; k >= 0; k = next[k]) {
            if (k != (int)i)
                ob_c(b, ',');
            json_value(b, fd, &items[k].it);
        }
        ob_c(b, ']');
    }
    for (guint i = 0; i < n; i++) /* -1 again, for the next record */
        first[items[i].it.field] = last[items[i].it.field] = -1;
    ob_str(b, "},\"findings\":[");
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
    text_head(f, m, p->short_name, out_pdu_summary(o));
    if (verbose) {
        for (guint i = 0; i < o->items->len; i++) {
            const ev_item *e = &g_array_index(o->items, ev_item, i);
            const gw_field *fd = &p->fields[e->it.field];
            if (e->it.flags & GW_ITEM_HIDDEN)
                continue;
            fprintf(f, "%*s", 4 + 4 * e->depth, "");
            bool gen = e->it.flags & GW_ITEM_GENERATED;
            if (gen)
                fputc('[', f);
            if (fd->type == GW_FT_NONE) {
                fputs(e->label != SIZE_MAX ? o->text->str + e->label : fd->name, f);
            } else {
                fprintf(f, "%s: ", fd->name);
                text_value(f, fd, &e->it, e->label != SIZE_MAX ? o->text->str + e->label : NULL);
            }
            fprintf(f, "%s\n", gen ? "]" : "");
        }
    }
    for (guint i = 0; i < o->findings->len; i++) {
        const ev_finding *e = &g_array_index(o->findings, ev_finding, i);
        const gw_finding_def *d = &p->findings[e->finding];
        fprintf(f, "    %s %s @%zu: %s\n", gw_severity_name(d->severity), d->code, e->off,
                o->text->str + e->msg);
    }
}

void out_pdu_hold(out_pdu *o, bool hold)
{
    o->hold = hold;
}

void out_pdu_flush(out_pdu *o, FILE *f)
{
    ob_flush(&o->json, f);
}

void out_pdu_write(out_pdu *o, FILE *f, out_format fmt, int verbose, const out_meta *m)
{
    if (fmt == OUT_JSON) {
        write_json(o, m);
        if (!o->hold || o->json.len >= OUT_FLUSH_AT)
            ob_flush(&o->json, f);
    } else {
        write_text(o, f, verbose, m);
    }
}

void out_finding_write(FILE *f, out_format fmt, const out_meta *m, const out_finding *fd)
{
    if (fmt == OUT_JSON) {
        char chunk[1024]; /* a finding record is rare: written in pieces as they fill this */
        obuf b = {chunk, 0, sizeof chunk, f, NULL};
        json_head(&b, m, fd->proto, fd->summary);
        ob_str(&b, ",\"fields\":{},\"findings\":[");
        json_finding(&b, fd->code, fd->severity, fd->off, fd->len, 0, fd->message);
        ob_str(&b, fd->end_of_conversation ? "],\"end_of_conversation\":true}\n" : "]}\n");
        ob_drain(&b);
    } else {
        text_head(f, m, fd->short_name, fd->summary);
        fprintf(f, "    %s %s @%zu: %s\n", gw_severity_name(fd->severity), fd->code, fd->off,
                fd->message);
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
