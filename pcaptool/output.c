/* output.c - JSON Lines and text output of decoded PDUs. */
#include "output.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <arpa/inet.h>

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
    /* per-field chaining for grouping JSON values */
    GArray *first_of_field, *next_of_item;
    /* linked conversations are the caller's business */
    out_expect_fn expect;
    void *expect_ctx;
};

static size_t keep_text(out_pdu *o, const char *s)
{
    size_t at = o->text->len;
    g_string_append(o->text, s);
    g_string_append_c(o->text, '\0');
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

static void on_expect(void *ctx, int transport, int port_side, uint16_t port, const void *conv)
{
    out_pdu *o = ctx;
    if (o->expect)
        o->expect(o->expect_ctx, transport, port_side, port, conv);
}

void out_pdu_on_expect(out_pdu *o, out_expect_fn fn, void *ctx)
{
    o->expect = fn;
    o->expect_ctx = ctx;
}

out_pdu *out_pdu_new(void)
{
    out_pdu *o = g_new0(out_pdu, 1);
    o->items = g_array_sized_new(FALSE, FALSE, sizeof(ev_item), 64);
    o->findings = g_array_sized_new(FALSE, FALSE, sizeof(ev_finding), 8);
    o->text = g_string_sized_new(1024);
    o->first_of_field = g_array_new(FALSE, FALSE, sizeof(int));
    o->next_of_item = g_array_new(FALSE, FALSE, sizeof(int));
    o->sink = (gw_sink){.ctx = o, .item = on_item, .push = on_push, .pop = on_pop,
                        .finding = on_finding, .summary = on_summary, .source = on_source,
                        .expect = on_expect};
    return o;
}

void out_pdu_free(out_pdu *o)
{
    g_array_free(o->items, TRUE);
    g_array_free(o->findings, TRUE);
    g_string_free(o->text, TRUE);
    g_array_free(o->first_of_field, TRUE);
    g_array_free(o->next_of_item, TRUE);
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
        g_string_append_c(o->g, c);
}

static void put_s(const text_out *o, const char *s, size_t n)
{
    if (o->f)
        fwrite(s, 1, n, o->f);
    else
        g_string_append_len(o->g, s, (gssize)n);
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

static void json_double(FILE *f, double d)
{
    if (isnan(d))
        fputs("\"nan\"", f);
    else if (isinf(d))
        fputs(d > 0 ? "\"inf\"" : "\"-inf\"", f);
    else
        fprintf(f, "%.17g", d);
}

static void print_reltime(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
}

/* an address as Wireshark shows it (inet_ntop: RFC 5952 for IPv6) */
static void print_address(FILE *f, const gw_field *fd, const gw_item *it)
{
    char text[INET6_ADDRSTRLEN];
    bool v4 = fd->type == GW_FT_IPV4;
    if (it->v.b.n != (v4 ? 4u : 16u) || !inet_ntop(v4 ? AF_INET : AF_INET6, it->v.b.p, text, sizeof text))
        strcpy(text, "?");
    fputs(text, f);
}

static void json_value(FILE *f, const gw_field *fd, const gw_item *it)
{
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64: case GW_FT_FRAMENUM:
        fprintf(f, "%" PRIu64, gw_field_masked(fd, it->v.u));
        break;
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        fprintf(f, "%" PRId64, it->v.i);
        break;
    case GW_FT_BOOL:
        fputs(gw_field_masked(fd, it->v.u) ? "true" : "false", f);
        break;
    case GW_FT_DOUBLE:
        json_double(f, it->v.d);
        break;
    case GW_FT_RELTIME:
        print_reltime(f, it->v.i);
        break;
    case GW_FT_STRING:
        out_json_string(f, it->v.b.p, it->v.b.n);
        break;
    case GW_FT_IPV4: case GW_FT_IPV6:
        fputc('"', f);
        print_address(f, fd, it);
        fputc('"', f);
        break;
    case GW_FT_BYTES:
        fputc('"', f);
        for (size_t i = 0; i < it->v.b.n; i++)
            fprintf(f, "%02x", it->v.b.p[i]);
        fputc('"', f);
        break;
    default:
        fputs("null", f);
    }
}

/* value_name: the item's own name for its value (gw_emit_named_u), or NULL */
static void text_value(FILE *f, const gw_field *fd, const gw_item *it, const char *value_name)
{
    const char *nm = value_name;
    uint64_t u = gw_field_masked(fd, it->v.u);
    switch (fd->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64:
        if (!nm && fd->names)
            nm = gw_value_name_of(fd->names, (uint32_t)u);
        if (nm)
            fprintf(f, "%s (", nm);
        if (fd->base == GW_BASE_HEX)
            fprintf(f, "0x%02" PRIx64, u);
        else
            fprintf(f, "%" PRIu64, u);
        if (nm)
            fputc(')', f);
        break;
    case GW_FT_FRAMENUM:
        fprintf(f, "%" PRIu64, u);
        break;
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        fprintf(f, "%" PRId64, it->v.i);
        break;
    case GW_FT_BOOL:
        fputs(u ? "True" : "False", f);
        break;
    case GW_FT_DOUBLE:
        fprintf(f, "%.17g", it->v.d);
        break;
    case GW_FT_RELTIME:
        print_reltime(f, it->v.i);
        fputs(" s", f);
        break;
    case GW_FT_STRING:
        out_json_string(f, it->v.b.p, it->v.b.n);
        break;
    case GW_FT_IPV4: case GW_FT_IPV6:
        print_address(f, fd, it);
        break;
    case GW_FT_BYTES:
        for (size_t i = 0; i < it->v.b.n && i < 64; i++)
            fprintf(f, "%02x", it->v.b.p[i]);
        if (it->v.b.n > 64)
            fprintf(f, "... (%zu bytes)", it->v.b.n);
        break;
    default:
        break;
    }
}

static void print_time(FILE *f, int64_t ns)
{
    fprintf(f, "%" PRId64 ".%09" PRId64, ns / 1000000000, ns % 1000000000);
}

/* the start of every record: JSON up to the summary, or the text line */
static void json_head(FILE *f, const out_meta *m, const char *proto, const char *summary)
{
    if (m->file_json)
        fprintf(f, "{\"file\":%s,\"frame\":%u,\"time\":", m->file_json, m->frame);
    else
        fprintf(f, "{\"frame\":%u,\"time\":", m->frame);
    print_time(f, m->time_ns);
    fprintf(f, ",\"src\":\"%s\",\"dst\":\"%s\",\"proto\":\"%s\",\"summary\":", m->src, m->dst, proto);
    out_json_string(f, (const uint8_t *)summary, strlen(summary));
}

static void text_head(FILE *f, const out_meta *m, const char *proto, const char *summary)
{
    fprintf(f, "%u ", m->frame);
    print_time(f, m->time_ns);
    fprintf(f, " %s -> %s %s %s\n", m->src, m->dst, proto, summary);
}

static void write_json(out_pdu *o, FILE *f, const out_meta *m)
{
    const gw_protocol *p = o->p;
    json_head(f, m, p->name, out_pdu_summary(o));

    /* group values by field, fields in order of first appearance */
    guint n = o->items->len;
    g_array_set_size(o->first_of_field, (guint)p->n_fields);
    g_array_set_size(o->next_of_item, n);
    int *first = (int *)(void *)o->first_of_field->data;
    int *next = (int *)(void *)o->next_of_item->data;
    int *last = g_alloca(sizeof(int) * (size_t)p->n_fields);
    for (int i = 0; i < p->n_fields; i++)
        first[i] = last[i] = -1;
    for (guint i = 0; i < n; i++) {
        const ev_item *e = &g_array_index(o->items, ev_item, i);
        int fi = e->it.field;
        next[i] = -1;
        if (first[fi] < 0)
            first[fi] = (int)i;
        else
            next[last[fi]] = (int)i;
        last[fi] = (int)i;
    }
    fputs(",\"fields\":{", f);
    bool any = false;
    for (guint i = 0; i < n; i++) {
        const ev_item *e = &g_array_index(o->items, ev_item, i);
        const gw_field *fd = &p->fields[e->it.field];
        if (first[e->it.field] != (int)i || fd->type == GW_FT_NONE)
            continue;
        fprintf(f, "%s\"%s\":[", any ? "," : "", fd->abbrev);
        any = true;
        for (int k = (int)i; k >= 0; k = next[k]) {
            if (k != (int)i)
                fputc(',', f);
            json_value(f, fd, &g_array_index(o->items, ev_item, k).it);
        }
        fputc(']', f);
    }
    fputs("},\"findings\":[", f);
    for (guint i = 0; i < o->findings->len; i++) {
        const ev_finding *e = &g_array_index(o->findings, ev_finding, i);
        const gw_finding_def *d = &p->findings[e->finding];
        fprintf(f, "%s{\"code\":\"%s\",\"severity\":\"%s\",\"offset\":%zu,\"length\":%zu,", i ? "," : "",
                d->code, gw_severity_name(d->severity), e->off, e->len);
        if (e->src)
            fprintf(f, "\"source\":%d,", e->src);
        fputs("\"message\":", f);
        const char *msg = o->text->str + e->msg;
        out_json_string(f, (const uint8_t *)msg, strlen(msg));
        fputc('}', f);
    }
    fputs("]}\n", f);
}

static void write_text(out_pdu *o, FILE *f, int verbose, const out_meta *m)
{
    const gw_protocol *p = o->p;
    text_head(f, m, p->short_name, out_pdu_summary(o));
    if (verbose) {
        for (guint i = 0; i < o->items->len; i++) {
            const ev_item *e = &g_array_index(o->items, ev_item, i);
            const gw_field *fd = &p->fields[e->it.field];
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
        json_head(f, m, fd->proto, fd->summary);
        fprintf(f, ",\"fields\":{},\"findings\":[{\"code\":\"%s\",\"severity\":\"%s\","
                   "\"offset\":%zu,\"length\":%zu,\"message\":",
                fd->code, gw_severity_name(fd->severity), fd->off, fd->len);
        out_json_string(f, (const uint8_t *)fd->message, strlen(fd->message));
        fputs(fd->end_of_conversation ? "}],\"end_of_conversation\":true}\n" : "}]}\n", f);
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
