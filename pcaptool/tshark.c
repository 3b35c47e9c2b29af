/* tshark.c - see tshark.h: -t and -T fields as tshark 4.0 prints them
 * (its epan/print.c, and what it prints with our plugin). */
#include "tshark.h"

#include <arpa/inet.h>
#include <glib.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "core/gw_core.h"

/* ---- -t ------------------------------------------------------------------- */

bool ts_parse(const char *arg, ts_format *f)
{
    static const char *const names[] = {"r", "a", "ad", "adoy", "d", "dd", "e", "u", "ud", "udoy"};
    for (unsigned k = 0; k < G_N_ELEMENTS(names); k++)
        if (!strcmp(arg, names[k])) {
            *f = (ts_format)(TS_R + k);
            return true;
        }
    return false;
}

/* ns as seconds with `digits` digits after the point (cut, as Wireshark
   cuts), a '-' before a negative one */
static size_t seconds_digits(char *buf, size_t n, int64_t ns, int digits)
{
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    unsigned frac = (unsigned)(u % 1000000000);
    for (int k = digits; k < 9; k++)
        frac /= 10;
    int w = digits ? snprintf(buf, n, "%s%" PRIu64 ".%0*u", ns < 0 ? "-" : "", u / 1000000000, digits, frac)
                   : snprintf(buf, n, "%s%" PRIu64, ns < 0 ? "-" : "", u / 1000000000);
    return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
}

/* a calendar time: "2026-11-21 06:14:44.858883" and the like, local or UTC */
static const char *date_text(char *buf, size_t n, int64_t ns, bool utc, int date, int digits)
{
    time_t s = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!(utc ? gmtime_r(&s, &tm) : localtime_r(&s, &tm))) {
        snprintf(buf, n, "(not a time)");
        return buf;
    }
    size_t w = 0;
    if (date == 1)
        w = (size_t)snprintf(buf, n, "%04d-%02d-%02d ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    else if (date == 2)
        w = (size_t)snprintf(buf, n, "%04d/%03d ", tm.tm_year + 1900, tm.tm_yday + 1);
    w += (size_t)snprintf(buf + w, n - w, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (digits) {
        char frac[32];
        seconds_digits(frac, sizeof frac, ns % 1000000000, digits); /* "0.858883" */
        snprintf(buf + w, n - w, "%s", frac + 1);
    }
    return buf;
}

const char *ts_text(char *buf, size_t n, ts_format f, const out_meta *m, int64_t shown_ns)
{
    int digits = m->tsprec;
    switch (f) {
    case TS_R: seconds_digits(buf, n, m->time_ns - m->first_ns, digits); break;
    case TS_D:
        if (m->prev_ns == OUT_NO_TIME) /* a record about a frame whose predecessor is forgotten */
            snprintf(buf, n, "-");
        else
            seconds_digits(buf, n, m->time_ns - m->prev_ns, digits);
        break;
    case TS_DD: seconds_digits(buf, n, shown_ns == OUT_NO_TIME ? 0 : m->time_ns - shown_ns, digits); break;
    case TS_E: seconds_digits(buf, n, m->time_ns, digits); break;
    case TS_A: case TS_AD: case TS_ADOY: return date_text(buf, n, m->time_ns, false, f - TS_A, digits);
    case TS_U: case TS_UD: case TS_UDOY: return date_text(buf, n, m->time_ns, true, f - TS_U, digits);
    default: buf[gw_seconds_text(buf, m->time_ns)] = '\0'; break; /* (n >= 33) */
    }
    return buf;
}

/* ---- -T fields ------------------------------------------------------------ */

/* the frame's and the record's own fields, as tshark names them */
enum {
    FF_NUMBER, FF_TIME, FF_EPOCH, FF_RELATIVE, FF_DELTA, FF_DELTA_SHOWN,
    FF_COL_PROTOCOL, FF_COL_INFO, FF_COL_SOURCE, FF_COL_DESTINATION, FF_N
};
static const char *const frame_fields[FF_N] = {
    "frame.number", "frame.time", "frame.time_epoch", "frame.time_relative", "frame.time_delta",
    "frame.time_delta_displayed", "_ws.col.Protocol", "_ws.col.Info", "_ws.col.Source",
    "_ws.col.Destination",
};

typedef struct {
    char *name;
    int proto;   /* gw_protocols[] index, or -1: a frame field */
    int field;   /* the protocol's field, -1: the protocol itself; or FF_* */
    int finding; /* the protocol's finding of that name (Wireshark's expert
                    info is a field too, "1" where present), or -1 */
    GString *val; /* this line's values */
    bool any;    /* a value is in val */
} tf_col;

struct tf_spec {
    GArray *cols; /* tf_col */
    /* per protocol, the column of each field (-1: none), and of the
       protocol itself; made at the first line */
    int *col_of[GW_MAX_PROTOCOLS];
    int *finding_col[GW_MAX_PROTOCOLS];
    int proto_col[GW_MAX_PROTOCOLS];
    bool indexed;
    bool header;
    char separator, occurrence, aggregator, quote;
};

tf_spec *tf_new(void)
{
    tf_spec *t = g_new0(tf_spec, 1);
    t->cols = g_array_new(FALSE, TRUE, sizeof(tf_col));
    t->separator = '\t';
    t->occurrence = 'a';
    t->aggregator = ',';
    return t;
}

void tf_free(tf_spec *t)
{
    if (!t)
        return;
    for (guint i = 0; i < t->cols->len; i++) {
        tf_col *c = &g_array_index(t->cols, tf_col, i);
        g_free(c->name);
        g_string_free(c->val, TRUE);
    }
    g_array_free(t->cols, TRUE);
    for (int k = 0; k < GW_MAX_PROTOCOLS; k++) {
        g_free(t->col_of[k]);
        g_free(t->finding_col[k]);
    }
    g_free(t);
}

bool tf_add_field(tf_spec *t, const char *name)
{
    tf_col c = {.proto = -1, .field = -1, .finding = -1};
    for (int k = 0; k < FF_N; k++)
        if (!strcmp(name, frame_fields[k]))
            c.field = k;
    for (int i = 0; c.field < 0 && c.proto < 0 && gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if (!strcmp(name, p->name))
            c.proto = i;
        for (int f = 0; c.proto < 0 && f < p->n_fields; f++)
            if (!strcmp(name, p->fields[f].abbrev)) {
                c.proto = i;
                c.field = f;
            }
        for (int f = 0; (c.proto < 0 || c.proto == i) && f < p->n_findings; f++)
            if (!strcmp(name, p->findings[f].code)) {
                c.proto = i;
                c.finding = f;
            }
    }
    if (c.proto < 0 && c.field < 0)
        return false;
    c.name = g_strdup(name);
    c.val = g_string_sized_new(64);
    g_array_append_val(t->cols, c);
    return true;
}

unsigned tf_n_fields(const tf_spec *t)
{
    return t->cols->len;
}

/* "/t" tab, "/s" space, "/" and another letter a backslash (as tshark
   reads it), else the first character */
static char separator_char(const char *v, bool tab)
{
    if (v[0] != '/')
        return v[0];
    return v[1] == 't' && tab ? '\t' : v[1] == 's' ? ' ' : '\\';
}

bool tf_set_option(tf_spec *t, const char *opt)
{
    const char *eq = strchr(opt, '=');
    if (!eq || !eq[1])
        return false;
    size_t klen = (size_t)(eq - opt);
    const char *v = eq + 1;
#define KEY(k) (klen == strlen(k) && !strncmp(opt, k, klen))
    if (KEY("header") && (*v == 'y' || *v == 'n'))
        t->header = *v == 'y';
    else if (KEY("separator"))
        t->separator = separator_char(v, true);
    else if (KEY("occurrence") && (*v == 'f' || *v == 'l' || *v == 'a'))
        t->occurrence = *v;
    else if (KEY("aggregator"))
        t->aggregator = separator_char(v, false);
    else if (KEY("quote") && (*v == 'd' || *v == 's' || *v == 'n'))
        t->quote = *v == 'd' ? '"' : *v == 's' ? '\'' : '\0';
    else
        return false;
#undef KEY
    return true;
}

void tf_header(const tf_spec *t, FILE *f)
{
    if (!t->header)
        return;
    for (guint i = 0; i < t->cols->len; i++) {
        if (i)
            fputc(t->separator, f);
        fputs(g_array_index(t->cols, tf_col, i).name, f);
    }
    fputc('\n', f);
}

/* the columns of each protocol's fields (the last column of a name given
   twice, as tshark's table of names keeps it) */
static void make_index(tf_spec *t)
{
    for (int i = 0; gw_protocols[i]; i++) {
        t->col_of[i] = g_new(int, (size_t)gw_protocols[i]->n_fields);
        for (int f = 0; f < gw_protocols[i]->n_fields; f++)
            t->col_of[i][f] = -1;
        t->finding_col[i] = g_new(int, (size_t)gw_protocols[i]->n_findings);
        for (int f = 0; f < gw_protocols[i]->n_findings; f++)
            t->finding_col[i][f] = -1;
        t->proto_col[i] = -1;
    }
    for (guint c = 0; c < t->cols->len; c++) {
        const tf_col *col = &g_array_index(t->cols, tf_col, c);
        if (col->proto >= 0 && col->field >= 0)
            t->col_of[col->proto][col->field] = (int)c;
        else if (col->proto >= 0 && col->finding < 0)
            t->proto_col[col->proto] = (int)c;
        if (col->finding >= 0)
            t->finding_col[col->proto][col->finding] = (int)c;
    }
    t->indexed = true;
}

/* the start of another value of column c: false when it is not kept
   (occurrence=f and one is there); the one before it dropped for l */
static bool col_next(tf_spec *t, tf_col *c)
{
    if (c->any) {
        if (t->occurrence == 'f')
            return false;
        if (t->occurrence == 'l')
            g_string_truncate(c->val, 0);
        else
            g_string_append_c(c->val, t->aggregator);
    }
    c->any = true;
    return true;
}

/* "0x" and the hex digits of a field's width, as tshark prints BASE_HEX */
static unsigned hex_width(gw_ftype type)
{
    return type == GW_FT_U8 ? 2 : type == GW_FT_U16 ? 4 : type == GW_FT_U32 ? 8 : 16;
}

/* v's decimal digits (after a '-' when negative), or its hex digits (at
   least width), appended to g, by hand: g_string_append_printf formats
   through vasprintf, an allocation a value */
static void append_decimal(GString *g, uint64_t v, bool negative)
{
    char t[24];
    char *q = gw_decimal_back(t + sizeof t, v);
    if (negative)
        *--q = '-';
    g_string_append_len(g, q, (gssize)(t + sizeof t - q));
}

static void append_hex(GString *g, uint64_t v, unsigned width)
{
    char t[24];
    char *q = gw_hex_back(t + sizeof t, v, width);
    g_string_append_len(g, q, (gssize)(t + sizeof t - q));
}

/* an item's value as tshark -T fields prints it with our plugin */
static void field_value(GString *g, const gw_field *fd, const gw_item *it)
{
    switch (fd->type) {
    case GW_FT_NONE: g_string_append_c(g, '1'); break; /* present */
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64: {
        uint64_t v = fd->mask ? gw_field_masked(fd, it->v.u) : it->v.u;
        if (fd->base == GW_BASE_HEX) {
            g_string_append_len(g, "0x", 2);
            append_hex(g, v, hex_width(fd->type));
        } else {
            append_decimal(g, v, false);
        }
        break;
    }
    case GW_FT_FRAMENUM: append_decimal(g, it->v.u, false); break;
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        append_decimal(g, it->v.i < 0 ? (uint64_t)0 - (uint64_t)it->v.i : (uint64_t)it->v.i, it->v.i < 0);
        break;
    case GW_FT_BOOL: g_string_append_c(g, (fd->mask ? gw_field_masked(fd, it->v.u) : it->v.u) ? '1' : '0'); break;
    case GW_FT_DOUBLE: g_string_append_printf(g, "%.15g", it->v.d); break;
    case GW_FT_RELTIME: {
        char b[32];
        g_string_append_len(g, b, (gssize)gw_seconds_text(b, it->v.i));
        break;
    }
    case GW_FT_ABSTIME: { /* as tshark 4.0 prints a time shown in UTC */
        char b[48];
        g_string_append(g, gw_format_date(b, sizeof b, it->v.i, 9));
        break;
    }
    case GW_FT_STRING: out_ws_text(g, it->v.b.p, it->v.b.n, false); break;
    case GW_FT_BYTES:
        if (!it->v.b.n)
            g_string_append(g, "<MISSING>"); /* what tshark 4.0 prints for an empty one */
        for (size_t i = 0; i < it->v.b.n; i++)
            append_hex(g, it->v.b.p[i], 2);
        break;
    case GW_FT_IPV4: case GW_FT_IPV6: {
        char b[INET6_ADDRSTRLEN];
        bool v4 = fd->type == GW_FT_IPV4;
        if (it->v.b.n == (v4 ? 4u : 16u) && inet_ntop(v4 ? AF_INET : AF_INET6, it->v.b.p, b, sizeof b))
            g_string_append(g, b);
        break;
    }
    default: break;
    }
}

/* the time of the frame as tshark's frame.time prints it: "Nov 21, 2026
   06:14:44.858883000 UTC", local time */
static void frame_time(GString *g, int64_t ns)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t s = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!localtime_r(&s, &tm)) {
        g_string_append(g, "Not representable");
        return;
    }
    g_string_append_printf(g, "%s %2d, %d %02d:%02d:%02d.%09d %s", months[tm.tm_mon], tm.tm_mday,
                           tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ns % 1000000000),
                           tm.tm_zone ? tm.tm_zone : "");
}

static void seconds(GString *g, int64_t ns)
{
    char b[32];
    g_string_append_len(g, b, (gssize)gw_seconds_text(b, ns));
}

/* "127.0.0.1:3413" or "[fd00::1]:3413" -> the address alone */
static void address_of(GString *g, const char *endpoint)
{
    const char *colon = endpoint ? strrchr(endpoint, ':') : NULL;
    if (!colon) {
        g_string_append(g, endpoint ? endpoint : "");
        return;
    }
    bool v6 = endpoint[0] == '[';
    g_string_append_len(g, endpoint + v6, colon - endpoint - v6 - (v6 && colon[-1] == ']'));
}

static void frame_value(GString *g, int field, const gw_protocol *p, const out_pdu *o, const out_meta *m,
                        int64_t shown_ns)
{
    switch (field) {
    case FF_NUMBER: append_decimal(g, m->frame, false); break;
    case FF_TIME: frame_time(g, m->time_ns); break;
    case FF_EPOCH: seconds(g, m->time_ns); break;
    case FF_RELATIVE: seconds(g, m->time_ns - m->first_ns); break;
    case FF_DELTA: seconds(g, m->time_ns - m->prev_ns); break;
    case FF_DELTA_SHOWN: seconds(g, shown_ns == OUT_NO_TIME ? 0 : m->time_ns - shown_ns); break;
    case FF_COL_PROTOCOL: g_string_append(g, p->short_name); break;
    case FF_COL_INFO: g_string_append(g, out_pdu_summary(o)); break;
    case FF_COL_SOURCE: address_of(g, m->src); break;
    default: address_of(g, m->dst); break;
    }
}

/* tshark's print_escaped_csv: \b \f \n \r \t written as escapes */
static void write_escaped(FILE *f, const GString *g)
{
    size_t start = 0;
    for (size_t i = 0; i < g->len; i++) {
        if ((unsigned char)g->str[i] > '\r') /* (most bytes: none of them, at a compare) */
            continue;
        const char *esc = strchr("\b\f\n\r\t", g->str[i]);
        if (!g->str[i] || !esc)
            continue;
        fwrite(g->str + start, 1, i - start, f);
        fputc('\\', f);
        fputc("bfnrt"[esc - "\b\f\n\r\t"], f);
        start = i + 1;
    }
    fwrite(g->str + start, 1, g->len - start, f);
}

void tf_write(tf_spec *t, FILE *f, const out_pdu *o, const gw_protocol *p, const out_meta *m, int64_t shown_ns)
{
    if (!t->indexed)
        make_index(t);
    int pi = 0;
    while (gw_protocols[pi] && gw_protocols[pi] != p)
        pi++;
    if (!gw_protocols[pi])
        pi = -1;
    tf_col *cols = (tf_col *)(void *)t->cols->data;
    for (guint c = 0; c < t->cols->len; c++) {
        g_string_truncate(cols[c].val, 0);
        cols[c].any = false;
        if (cols[c].proto < 0 && col_next(t, &cols[c]))
            frame_value(cols[c].val, cols[c].field, p, o, m, shown_ns);
    }
    if (pi >= 0 && t->proto_col[pi] >= 0 && col_next(t, &cols[t->proto_col[pi]])) {
        GString *g = cols[t->proto_col[pi]].val;
        size_t at = g->len;
        g_string_append(g, p->long_name);
        if (*out_pdu_summary(o)) {
            g_string_append_len(g, ", ", 2);
            g_string_append(g, out_pdu_summary(o));
        }
        /* the tree item's text: at most ITEM_LABEL_LENGTH - 1 (239) bytes, cut
           at a character */
        size_t cut = at + 239;
        while (cut < g->len && cut > at && ((unsigned char)g->str[cut] & 0xc0) == 0x80)
            cut--;
        if (cut < g->len)
            g_string_truncate(g, cut);
    }
    /* the items, and the findings where they came among them (as in
       Wireshark's tree) */
    size_t n = pi >= 0 ? out_pdu_n_items(o) : 0;
    unsigned nf = pi >= 0 ? out_pdu_n_findings(o) : 0, k = 0;
    for (size_t i = 0; i <= n; i++) {
        for (; k < nf && out_pdu_finding_after(o, k) <= i; k++) {
            const char *msg;
            int c = t->finding_col[pi][out_pdu_finding(o, k, &msg)];
            if (c >= 0 && col_next(t, &cols[c]))
                g_string_append_c(cols[c].val, '1');
        }
        if (i == n)
            break;
        const gw_item *it = out_pdu_item(o, i);
        int c = t->col_of[pi][it->field];
        if (c >= 0 && col_next(t, &cols[c]))
            field_value(cols[c].val, &p->fields[it->field], it);
    }
    for (guint c = 0; c < t->cols->len; c++) {
        if (c)
            fputc(t->separator, f);
        if (!cols[c].any)
            continue;
        if (t->quote)
            fputc(t->quote, f);
        write_escaped(f, cols[c].val);
        if (t->quote)
            fputc(t->quote, f);
    }
    fputc('\n', f);
}
