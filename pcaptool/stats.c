/* stats.c - pcaptool stats: per capture, protocol and conversation (a pair
 * of endpoints), what the traffic holds: PDUs by type, bytes, first and last
 * time, findings by code (resends among them) and the protocol's measures
 * (gw_protocol.measures: ack times, ping round trips, frame lag, snapshot
 * completeness) as count, min, median and max.
 *
 * Kept per conversation, never per PDU: a measure keeps at most
 * SAMPLES_MAX values; beyond that the median is taken from a uniform sample
 * of them (min, max and count stay exact). */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcaptool.h"

#define SAMPLES_MAX 4096
#define PDU_VALUES_MAX 16 /* measure values remembered within one PDU */

typedef struct {
    GArray *samples; /* double */
    uint64_t n;
    double min, max;
} measure;

typedef struct {
    uint64_t value, count;
} type_count;

typedef struct {
    const gw_protocol *p;
    char *a, *b;          /* endpoints, a < b */
    uint64_t pdus, bytes;
    int64_t first_ns, last_ns;
    GArray *types;        /* type_count, in order of first appearance */
    GArray *parts;        /* type_count of p->part_type_field, the same way */
    uint64_t *findings;   /* count per finding index */
    measure *m;           /* per p->measures[] */
} conv_stats;

typedef struct {
    GHashTable *by_key;   /* "proto a b" -> conv_stats* */
    GPtrArray *order;     /* conv_stats*, in order of first PDU */
    /* the PDU being decoded */
    const gw_protocol *p;
    gw_sink sink;
    bool have_type;
    uint64_t type;
    GArray *parts;        /* type_count of this PDU's parts (kept, emptied per PDU) */
    int n_values;
    int value_measure[PDU_VALUES_MAX];
    double value[PDU_VALUES_MAX];
    int n_found;
    int found[64];
    uint32_t rng;         /* for the reservoir: deterministic */
    /* -Y: the filter, and the PDU's items and findings it reads */
    dfilter_eval *filter;
    GArray *items;        /* gw_item */
    GArray *all_found;    /* int */
} stats_ctx;

static void conv_stats_free(gpointer q)
{
    conv_stats *s = q;
    for (int i = 0; i < s->p->n_measures; i++)
        g_array_free(s->m[i].samples, TRUE);
    g_free(s->m);
    g_free(s->findings);
    g_array_free(s->types, TRUE);
    g_array_free(s->parts, TRUE);
    g_free(s->a);
    g_free(s->b);
    g_free(s);
}

static conv_stats *conv_of(stats_ctx *x, const gw_protocol *p, const out_meta *m)
{
    const char *a, *b;
    char key[192]; /* no allocation per PDU: only a new conversation copies it */
    out_conversation_key(p, m, key, sizeof key, &a, &b);
    conv_stats *s = g_hash_table_lookup(x->by_key, key);
    if (s)
        return s;
    s = g_new0(conv_stats, 1);
    s->p = p;
    s->a = g_strdup(a);
    s->b = g_strdup(b);
    s->first_ns = m->time_ns;
    s->types = g_array_new(FALSE, FALSE, sizeof(type_count));
    s->parts = g_array_new(FALSE, FALSE, sizeof(type_count));
    s->findings = g_new0(uint64_t, (gsize)p->n_findings);
    s->m = g_new0(measure, (gsize)(p->n_measures ? p->n_measures : 1));
    for (int i = 0; i < p->n_measures; i++)
        s->m[i].samples = g_array_new(FALSE, FALSE, sizeof(double));
    g_hash_table_insert(x->by_key, g_strdup(key), s);
    g_ptr_array_add(x->order, s);
    return s;
}

static void add_sample(stats_ctx *x, measure *m, double v)
{
    if (m->n == 0 || v < m->min)
        m->min = v;
    if (m->n == 0 || v > m->max)
        m->max = v;
    m->n++;
    if (m->samples->len < SAMPLES_MAX) {
        g_array_append_val(m->samples, v);
        return;
    }
    /* reservoir sampling: value n replaces a random one with chance MAX/n */
    x->rng = x->rng * 1103515245u + 12345u;
    uint64_t k = ((uint64_t)x->rng << 16 ^ x->rng) % m->n;
    if (k < SAMPLES_MAX)
        g_array_index(m->samples, double, k) = v;
}

/* add n to value's count in a type_count array */
static void count_type(GArray *a, uint64_t value, uint64_t n)
{
    guint i;
    for (i = 0; i < a->len; i++)
        if (g_array_index(a, type_count, i).value == value)
            break;
    if (i == a->len) {
        type_count t = {value, 0};
        g_array_append_val(a, t);
    }
    g_array_index(a, type_count, i).count += n;
}

/* ---- the sink of one PDU ---- */

static void on_item(void *ctx, const gw_item *it)
{
    stats_ctx *x = ctx;
    const gw_protocol *p = x->p;
    if (x->filter)
        g_array_append_val(x->items, *it);
    if (it->field == p->type_field && !x->have_type) {
        x->have_type = true;
        x->type = it->v.u;
    }
    if (p->part_type_field && it->field == p->part_type_field)
        count_type(x->parts, it->v.u, 1);
    for (int i = 0; i < p->n_measures; i++) {
        if (it->field != p->measures[i] || x->n_values == PDU_VALUES_MAX)
            continue;
        double v;
        switch (p->fields[it->field].type) {
        case GW_FT_RELTIME: v = (double)it->v.i / 1e9; break;
        case GW_FT_DOUBLE: v = it->v.d; break;
        case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64: v = (double)it->v.i; break;
        default: v = (double)it->v.u; break;
        }
        x->value_measure[x->n_values] = i;
        x->value[x->n_values++] = v;
    }
}


static void on_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    (void)src; (void)off; (void)len; (void)msg;
    stats_ctx *x = ctx;
    if (x->filter)
        g_array_append_val(x->all_found, finding);
    if (x->n_found < (int)G_N_ELEMENTS(x->found))
        x->found[x->n_found++] = finding;
}

static gw_sink *pdu_begin(void *ctx, const gw_protocol *p)
{
    stats_ctx *x = ctx;
    x->p = p;
    x->have_type = false;
    g_array_set_size(x->parts, 0);
    x->n_values = x->n_found = 0;
    if (x->filter) {
        g_array_set_size(x->items, 0);
        g_array_set_size(x->all_found, 0);
    }
    return &x->sink;
}

static unsigned pdu_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    stats_ctx *x = ctx;
    if (x->filter) { /* a PDU the filter leaves out counts nowhere */
        dfilter_record r = {p, (const gw_item *)(void *)x->items->data, x->items->len, sizeof(gw_item),
                            (const int *)(void *)x->all_found->data, x->all_found->len, sizeof(int)};
        if (!dfilter_match(x->filter, &r))
            return 0;
    }
    conv_stats *s = conv_of(x, p, m);
    s->pdus++;
    s->bytes += m->len;
    s->last_ns = m->time_ns;
    if (x->have_type)
        count_type(s->types, x->type, 1);
    for (guint i = 0; i < x->parts->len; i++) {
        const type_count *t = &g_array_index(x->parts, type_count, i);
        count_type(s->parts, t->value, t->count);
    }
    for (int i = 0; i < x->n_values; i++)
        add_sample(x, &s->m[x->value_measure[i]], x->value[i]);
    for (int i = 0; i < x->n_found; i++)
        s->findings[x->found[i]]++;
    return 0;
}

/* transport findings belong to no protocol; end-of-conversation ones to theirs */
static void on_late_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                            const out_finding *fd)
{
    (void)fd;
    stats_ctx *x = ctx;
    if (p && (!x->filter || dfilter_match_finding(x->filter, p, index)))
        conv_of(x, p, m)->findings[index]++;
}

/* ---- output ---- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* of the samples: the middle one, or the mean of the middle two */
static double median(const measure *m)
{
    GArray *v = m->samples;
    double *d = g_memdup2(v->data, v->len * sizeof(double));
    qsort(d, v->len, sizeof(double), by_value);
    double r = v->len % 2 ? d[v->len / 2] : (d[v->len / 2 - 1] + d[v->len / 2]) / 2;
    g_free(d);
    return r;
}


static void json_str(const char *s)
{
    out_json_string(stdout, (const uint8_t *)s, strlen(s));
}

/* a type_count array by the names of `field`'s values: text, after label
   ("    types: Connection request 1, Packets 65"), or a JSON object's members */
static void text_counts(const char *label, const GArray *a, const gw_field *field)
{
    fputs(label, stdout);
    for (guint i = 0; i < a->len; i++) {
        const type_count *t = &g_array_index(a, type_count, i);
        char name[96];
        printf("%s %s %llu", i ? "," : "", gw_type_name(name, sizeof name, field, t->value),
               (unsigned long long)t->count);
    }
    printf("\n");
}

static void json_counts(const GArray *a, const gw_field *field)
{
    for (guint i = 0; i < a->len; i++) {
        const type_count *t = &g_array_index(a, type_count, i);
        char name[96];
        printf("%s", i ? "," : "");
        json_str(gw_type_name(name, sizeof name, field, t->value));
        printf(":%llu", (unsigned long long)t->count);
    }
}

static void print_text(const char *path, GPtrArray *order)
{
    printf("%s: %u conversation%s\n", path, order->len, order->len == 1 ? "" : "s");
    for (guint k = 0; k < order->len; k++) {
        const conv_stats *s = order->pdata[k];
        const gw_protocol *p = s->p;
        printf("  %s %s <-> %s: %llu PDU%s, %llu %s, %.6f s\n", p->short_name, s->a, s->b,
               (unsigned long long)s->pdus, s->pdus == 1 ? "" : "s", (unsigned long long)s->bytes, gw_bytes((unsigned long long)s->bytes),
               (double)(s->last_ns - s->first_ns) / 1e9);
        text_counts("    types:", s->types, &p->fields[p->type_field]);
        if (s->parts->len)
            text_counts("    parts:", s->parts, &p->fields[p->part_type_field]);
        for (int i = 0; i < p->n_measures; i++) {
            const measure *m = &s->m[i];
            const gw_field *f = &p->fields[p->measures[i]];
            const char *unit = f->type == GW_FT_RELTIME ? " s" : "";
            if (!m->n) {
                printf("    %s (%s): none\n", f->abbrev, f->name);
                continue;
            }
            printf("    %s (%s): %llu, min %g%s, median %g%s, max %g%s\n", f->abbrev, f->name,
                   (unsigned long long)m->n, m->min, unit, median(m), unit, m->max, unit);
        }
        bool any = false;
        for (int i = 0; i < p->n_findings; i++) {
            if (!s->findings[i])
                continue;
            printf("%s %s %llu", any ? "," : "    findings:", p->findings[i].code,
                   (unsigned long long)s->findings[i]);
            any = true;
        }
        if (any)
            printf("\n");
    }
}

static void print_json(const char *path, GPtrArray *order)
{
    for (guint k = 0; k < order->len; k++) {
        const conv_stats *s = order->pdata[k];
        const gw_protocol *p = s->p;
        printf("{\"record\":\"conversation\",\"file\":");
        json_str(path);
        printf(",\"proto\":\"%s\",\"a\":", p->name);
        json_str(s->a);
        printf(",\"b\":");
        json_str(s->b);
        printf(",\"pdus\":%llu,\"bytes\":%llu,\"first\":%lld.%09lld,\"last\":%lld.%09lld,"
               "\"duration\":%.9f,\"types\":{",
               (unsigned long long)s->pdus, (unsigned long long)s->bytes, (long long)(s->first_ns / 1000000000),
               (long long)(s->first_ns % 1000000000), (long long)(s->last_ns / 1000000000),
               (long long)(s->last_ns % 1000000000), (double)(s->last_ns - s->first_ns) / 1e9);
        json_counts(s->types, &p->fields[p->type_field]);
        printf("},\"parts\":{");
        json_counts(s->parts, &p->fields[p->part_type_field]);
        printf("},\"measures\":{");
        for (int i = 0; i < p->n_measures; i++) {
            const measure *m = &s->m[i];
            printf("%s\"%s\":{\"n\":%llu", i ? "," : "", p->fields[p->measures[i]].abbrev,
                   (unsigned long long)m->n);
            if (m->n)
                printf(",\"min\":%.9g,\"median\":%.9g,\"max\":%.9g", m->min, median(m), m->max);
            printf("}");
        }
        printf("},\"findings\":{");
        bool any = false;
        for (int i = 0; i < p->n_findings; i++) {
            if (!s->findings[i])
                continue;
            printf("%s\"%s\":%llu", any ? "," : "", p->findings[i].code, (unsigned long long)s->findings[i]);
            any = true;
        }
        printf("}}\n");
    }
}

static void stats_usage(FILE *f)
{
    fputs("Usage: pcaptool stats [OPTIONS] FILE...\n"
          "       pcaptool stats [OPTIONS] -i INTERFACE [-f FILTER] [-c N] [-a duration:S] [-w FILE]\n"
          "\n"
          "Per protocol and conversation: PDUs by type, bytes, duration, findings by\n"
          "code (resends among them) and the protocol's measures (DNP and EOUDP ack\n"
          "times, GNE ping round trips, OpenTTD frame lag, OpenDrakan snapshot\n"
          "completeness) as count, min, median and max. Stats gives no verdict: its\n"
          "exit code says only whether the input could be read.\n"
          "\n"
          "  -T, --format text|json       text (default) or JSON Lines, one record per\n"
          "                               conversation, each naming its \"file\"\n"
          "  -Y, --display-filter FILTER  count only the PDUs FILTER selects (as decode -Y):\n"
          "                               a conversation none of whose PDUs it selects\n"
          "                               is not listed\n"
          "  -c, -i, -f, -a, -w           as for decode\n"
          "  -p, --port, -n, --no-heuristics, -o, --option, --profile   as for decode\n"
          "\n"
          "Exit codes: 0; 2 for a usage error, an input that cannot be read or is\n"
          "damaged, or output that could not be written; 130/143 stopped by\n"
          "SIGINT/SIGTERM (what was read is counted and printed).\n",
          f);
}

static int stats_opt(void *ctx, int c, const char *arg)
{
    (void)c; /* 'T' */
    return parse_format(arg, ctx) ? 0 : cli_usage_error("unknown format '%s' (text or json)", arg);
}

static int run_stats(int argc, char **argv)
{
    static const struct option longopts[] = {{"format", required_argument, NULL, 'T'}, {NULL, 0, NULL, 0}};
    static const cli_spec spec = {"T:", longopts, CLI_RUN | CLI_INPUT | CLI_FILTER, stats_opt, stats_usage};
    out_format format = OUT_TEXT;
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &format, &cc);
    if (rc != CLI_GO)
        return rc;
    if (cc.in.line_buffered)
        rc = cli_usage_error("-l: stats prints when its input ends");
    else
        rc = cli_check_inputs(&cc.in, argc - optind);
    if (rc) {
        dfilter_free(cc.filter);
        return rc;
    }
    cap_install_signals();
    int status = EXIT_CLEAN;
    for (int i = optind; i < argc || (cc.in.iface && i == optind); i++) {
        const char *path = cc.in.iface ? NULL : argv[i];
        stats_ctx x = {.rng = 1};
        x.by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        x.parts = g_array_new(FALSE, FALSE, sizeof(type_count));
        x.order = g_ptr_array_new_with_free_func(conv_stats_free);
        x.sink = (gw_sink){.ctx = &x, .item = on_item, .push = NULL, .pop = NULL,
                           .finding = on_finding, .summary = NULL, .source = run_ignore_source};
        if (cc.filter) {
            x.filter = dfilter_eval_new(cc.filter);
            x.items = g_array_new(FALSE, FALSE, sizeof(gw_item));
            x.all_found = g_array_new(FALSE, FALSE, sizeof(int));
        }
        run_consumer consumer = {&x, pdu_begin, pdu_end, on_late_finding, NULL, NULL};
        unsigned max_sev = 0;
        if (cli_read(&cc.in, &cc.ro, path, &consumer, &max_sev, NULL, 0) != 0)
            status = EXIT_USAGE;
        const char *name = path ? path : cc.in.iface;
        if (format == OUT_JSON)
            print_json(name, x.order);
        else
            print_text(name, x.order);
        g_hash_table_destroy(x.by_key);
        g_ptr_array_free(x.order, TRUE);
        g_array_free(x.parts, TRUE);
        if (x.filter) {
            dfilter_eval_free(x.filter);
            g_array_free(x.items, TRUE);
            g_array_free(x.all_found, TRUE);
        }
        if (cap_stop_requested())
            break;
    }
    dfilter_free(cc.filter);
    return cli_finish(status);
}

const subcommand cmd_stats = {"stats", "FILE...",
                              "per conversation: PDUs by type, bytes, duration, findings,\n"
                              "ack times, ping RTTs, frame lag",
                              run_stats, stats_usage};
