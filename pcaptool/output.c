/* output.c - JSON Lines and text output of decoded PDUs. */
#include "output.h"
#include "gw_replay.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <arpa/inet.h>

/* Appending to a GString without g_string_append's general path (it
   handles inserting anywhere: a tenth of decode --format json's time) */
static inline void gs_put(GString *g, const char *s, size_t n)
{
    if (g->len + n + 1 > g->allocated_len) {
        size_t at = g->len;
        g_string_set_size(g, at + n); /* grows the allocation */
        g->len = at;
    }
    memcpy(g->str + g->len, s, n);
    g->len += n;
    g->str[g->len] = '\0';
}

static inline void gs_c(GString *g, char c)
{
    gs_put(g, &c, 1);
}

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
    GString *json;     /* the record being written */
};

static size_t keep_text(out_pdu *o, const char *s)
{
    size_t at = o->text->len;
    gs_put(o->text, s, strlen(s) + 1); /* with its NUL */
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
    o->json = g_string_sized_new(4096);
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
    g_string_free(o->json, TRUE);
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

/* JSON escaping into a growing string or a stream: one walk, two sinks */
typedef struct {
    FILE *f;
    GString *g;
} text_out;

static void put_c(const text_out *o, char c)
{
    if (o->f)
        fputc(c, o->f);
    else
        gs_c(o->g, c);
}

static void put_s(const text_out *o, const char *s, size_t n)
{
    if (o->f)
        fwrite(s, 1, n, o->f);
    else
        gs_put(o->g, s, n);
}

static void json_escape(const text_out *o, const uint8_t *p, size_t n)
{
    put_c(o, '"');
    size_t i = 0;
    while (i < n) {
        const gchar *end;
        /* the longest valid UTF-8 run from here */
        g_utf8_validate((const gchar *)p + i, (gssize)(n - i), &end);
        size_t good = (size_t)((const uint8_t *)end - (p + i));
        size_t plain = i; /* a run of bytes that need no escape goes out at once */
        for (size_t k = i; k < i + good; k++) {
            uint8_t c = p[k];
            if (c >= 0x20 && c != '"' && c != '\\')
                continue;
            put_s(o, (const char *)p + plain, k - plain);
            plain = k + 1;
            char esc[8];
            switch (c) {
            case '"': put_s(o, "\\\"", 2); break;
            case '\\': put_s(o, "\\\\", 2); break;
            case '\n': put_s(o, "\\n", 2); break;
            case '\r': put_s(o, "\\r", 2); break;
            case '\t': put_s(o, "\\t", 2); break;
            default:
                snprintf(esc, sizeof esc, "\\u%04x", c);
                put_s(o, esc, 6);
            }
        }
        put_s(o, (const char *)p + plain, i + good - plain);
        i += good;
        if (i < n) {
            put_s(o, "\xef\xbf\xbd", 3); /* U+FFFD for one invalid byte */
            i++;
        }
    }
    put_c(o, '"');
}

void out_json_string(FILE *f, const uint8_t *p, size_t n)
{
    text_out o = {f, NULL};
    json_escape(&o, p, n);
}

void out_json_gstring(GString *g, const uint8_t *p, size_t n)
{
    text_out o = {NULL, g};
    json_escape(&o, p, n);
}

/* ---- JSON into a string: numbers by hand, no format parsing ---- */

static void gs_u64(GString *g, uint64_t v)
{
    char b[20];
    int i = (int)sizeof b;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    gs_put(g, b + i, sizeof b - (size_t)i);
}

static void gs_i64(GString *g, int64_t v)
{
    if (v < 0) {
        gs_c(g, '-');
        gs_u64(g, (uint64_t)0 - (uint64_t)v);
    } else {
        gs_u64(g, (uint64_t)v);
    }
}

static void gs_seconds(GString *g, int64_t ns)
{
    char b[32];
    gs_put(g, b, gw_seconds_text(b, ns));
}

static void print_seconds(FILE *f, int64_t ns)
{
    char b[32];
    fwrite(b, 1, gw_seconds_text(b, ns), f);
}

static void gs_hex(GString *g, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    size_t at = g->len;
    g_string_set_size(g, at + 2 * n);
    for (size_t i = 0; i < n; i++) {
        g->str[at + 2 * i] = digits[p[i] >> 4];
        g->str[at + 2 * i + 1] = digits[p[i] & 15];
    }
}

static void gs_str(GString *g, const char *s)
{
    gs_put(g, s, strlen(s));
}

static void json_double(GString *g, double d)
{
    if (isnan(d))
        gs_str(g, "\"nan\"");
    else if (isinf(d))
        gs_str(g, d > 0 ? "\"inf\"" : "\"-inf\"");
    else if (fabs(d) < 1e17 && d == (double)(int64_t)d && !(d == 0 && signbit(d)))
        gs_i64(g, (int64_t)d); /* what %.17g prints for an integer below 10^17 */
    else
        g_string_append_printf(g, "%.17g", d);
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

static void json_value(GString *g, const gw_field *fd, const gw_item *it)
{
    char text[INET6_ADDRSTRLEN];
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64: case GW_FT_FRAMENUM:
        gs_u64(g, gw_field_masked(fd, it->v.u));
        break;
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        gs_i64(g, it->v.i);
        break;
    case GW_FT_BOOL:
        gs_str(g, gw_field_masked(fd, it->v.u) ? "true" : "false");
        break;
    case GW_FT_DOUBLE:
        json_double(g, it->v.d);
        break;
    case GW_FT_RELTIME:
        gs_seconds(g, it->v.i);
        break;
    case GW_FT_STRING:
        out_json_gstring(g, it->v.b.p, it->v.b.n);
        break;
    case GW_FT_IPV4: case GW_FT_IPV6:
        gs_c(g, '"');
        gs_str(g, address_text(fd, it, text, sizeof text));
        gs_c(g, '"');
        break;
    case GW_FT_BYTES:
        gs_c(g, '"');
        gs_hex(g, it->v.b.p, it->v.b.n);
        gs_c(g, '"');
        break;
    default:
        gs_str(g, "null");
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
static void json_head(GString *g, const out_meta *m, const char *proto, const char *summary)
{
    gs_c(g, '{');
    if (m->file_json) {
        gs_str(g, "\"file\":");
        gs_str(g, m->file_json);
        gs_c(g, ',');
    }
    gs_str(g, "\"frame\":");
    gs_u64(g, m->frame);
    gs_str(g, ",\"time\":");
    gs_seconds(g, m->time_ns);
    gs_str(g, ",\"src\":\"");
    gs_str(g, m->src);
    gs_str(g, "\",\"dst\":\"");
    gs_str(g, m->dst);
    gs_str(g, "\",\"proto\":\"");
    gs_str(g, proto);
    gs_str(g, "\",\"summary\":");
    out_json_gstring(g, (const uint8_t *)summary, strlen(summary));
}

/* a finding object, after "findings":[ */
static void json_finding(GString *g, const char *code, gw_severity sev, size_t off, size_t len,
                         int src, const char *msg)
{
    gs_str(g, "{\"code\":\"");
    gs_str(g, code);
    gs_str(g, "\",\"severity\":\"");
    gs_str(g, gw_severity_name(sev));
    gs_str(g, "\",\"offset\":");
    gs_u64(g, off);
    gs_str(g, ",\"length\":");
    gs_u64(g, len);
    if (src) {
        gs_str(g, ",\"source\":");
        gs_i64(g, src);
    }
    gs_str(g, ",\"message\":");
    out_json_gstring(g, (const uint8_t *)msg, strlen(msg));
    gs_c(g, '}');
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

/* One record, built in o->json and written at once: values grouped by
   field, fields in order of first appearance. */
static void write_json(out_pdu *o, FILE *f, const out_meta *m)
{
    const gw_protocol *p = o->p;
    GString *g = o->json;
    g_string_truncate(g, 0);
    json_head(g, m, p->name, out_pdu_summary(o));

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
    gs_str(g, ",\"fields\":{");
    bool any = false;
    for (guint i = 0; i < n; i++) {
        const gw_field *fd = &p->fields[items[i].it.field];
        if (first[items[i].it.field] != (int)i || fd->type == GW_FT_NONE)
            continue;
        gs_str(g, any ? ",\"" : "\"");
        gs_str(g, fd->abbrev);
        gs_str(g, "\":[");
        any = true;
        for (int k = (int)i; k >= 0; k = next[k]) {
            if (k != (int)i)
                gs_c(g, ',');
            json_value(g, fd, &items[k].it);
        }
        gs_c(g, ']');
    }
    for (guint i = 0; i < n; i++) /* -1 again, for the next record */
        first[items[i].it.field] = last[items[i].it.field] = -1;
    gs_str(g, "},\"findings\":[");
    for (guint i = 0; i < o->findings->len; i++) {
        const ev_finding *e = &g_array_index(o->findings, ev_finding, i);
        const gw_finding_def *d = &p->findings[e->finding];
        if (i)
            gs_c(g, ',');
        json_finding(g, d->code, d->severity, e->off, e->len, e->src, o->text->str + e->msg);
    }
    gs_str(g, "]}\n");
    fwrite(g->str, 1, g->len, f);
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

void out_pdu_write(out_pdu *o, FILE *f, out_format fmt, int verbose, const out_meta *m)
{
    if (fmt == OUT_JSON)
        write_json(o, f, m);
    else
        write_text(o, f, verbose, m);
}

void out_finding_write(FILE *f, out_format fmt, const out_meta *m, const out_finding *fd)
{
    if (fmt == OUT_JSON) {
        static _Thread_local GString *g; /* a finding record is rare: one buffer, kept */
        if (!g)
            g = g_string_sized_new(512);
        g_string_truncate(g, 0);
        json_head(g, m, fd->proto, fd->summary);
        gs_str(g, ",\"fields\":{},\"findings\":[");
        json_finding(g, fd->code, fd->severity, fd->off, fd->len, 0, fd->message);
        gs_str(g, fd->end_of_conversation ? "],\"end_of_conversation\":true}\n" : "]}\n");
        fwrite(g->str, 1, g->len, f);
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
