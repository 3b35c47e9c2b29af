/* validate.c - pcaptool validate: every finding of every capture counted
 * per rule, files (and folders, recursively) in parallel, a verdict per
 * capture; text summary, JSON Lines or JUnit XML. Nothing is printed per
 * PDU and nothing is kept per PDU: a capture's report is a tally of the
 * findings that occurred. */
#include "validate.h"

#include <getopt.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gw_core.h"
#include "output.h"
#include "pcaptool.h"
#include "run.h"
#include "tcpstream.h"

#define RUN_PROTO GW_MAX_PROTOCOLS /* "protocol" index of pcaptool's own findings */
#define MAX_FRAMES 20              /* frames kept per finding and capture */
#define MAX_PENDING 64             /* findings of one PDU kept with their message */

/* ---- which findings count ------------------------------------------------ */

static const gw_finding_def *defs_of(int proto, int *n)
{
    if (proto == RUN_PROTO) {
        *n = RUN_N_FINDINGS;
        return run_findings;
    }
    *n = gw_protocols[proto]->n_findings;
    return gw_protocols[proto]->findings;
}

static const char *proto_name(int proto)
{
    return proto == RUN_PROTO ? "capture" : gw_protocols[proto]->name;
}

static int proto_of(const gw_protocol *p)
{
    for (int i = 0; gw_protocols[i]; i++)
        if (gw_protocols[i] == p)
            return i;
    return RUN_PROTO;
}

/* the rule's citation, or NULL when the finding is not a behaviour rule */
static const char *enforces(int proto, int finding)
{
    if (proto == RUN_PROTO)
        return NULL;
    const gw_protocol *p = gw_protocols[proto];
    for (int k = 0; k < p->n_rules; k++)
        if (p->rules[k].finding == finding)
            return p->rules[k].enforces;
    return NULL;
}

static bool *disabled[GW_MAX_PROTOCOLS + 1];

/* --enable / --disable PATTERN (a code, or a glob such as "dnp.seq.*");
   false when it names no finding */
static bool set_enabled(const char *pattern, bool on)
{
    bool any = false;
    for (int pi = 0; pi <= RUN_PROTO; pi++) {
        if (pi < RUN_PROTO && !gw_protocols[pi])
            continue;
        int n;
        const gw_finding_def *d = defs_of(pi, &n);
        if (!disabled[pi])
            disabled[pi] = calloc((size_t)n, sizeof(bool));
        for (int k = 0; k < n; k++)
            if (g_pattern_match_simple(pattern, d[k].code)) {
                disabled[pi][k] = !on;
                any = true;
            }
    }
    return any;
}

static bool is_disabled(int proto, int finding)
{
    return disabled[proto] && disabled[proto][finding];
}

/* ---- one capture's report ------------------------------------------------ */

typedef struct {
    int proto, finding;
    unsigned count;
    unsigned frames[MAX_FRAMES];
    unsigned n_frames;
    char first[200]; /* the first message */
} tally;

typedef struct {
    const char *path;
    bool unreadable;
    unsigned pdus;
    unsigned protos_seen; /* bit per gw_protocols[] index, and RUN_PROTO */
    unsigned sev_count[3];
    unsigned max_sev;     /* highest severity + 1 */
    GArray *tallies;      /* tally, in order of first occurrence */
    /* per protocol and finding: 1 + the index of its tally in tallies, or 0 */
    unsigned *tally_of[GW_MAX_PROTOCOLS + 1];
    FILE *json;           /* finding records (stdout, or a temporary file) */
    bool done;
} report;

/* the current PDU's findings, until its frame is known */
typedef struct {
    int finding;
    size_t off, len;
    char msg[200];
} pending;

typedef struct {
    report *r;
    const gw_protocol *p;
    int proto;            /* p's index in gw_protocols */
    gw_sink sink;
    run_expect_fn expect_fn;
    void *expect_run;
    pending pend[MAX_PENDING];
    int n_pend, n_more; /* kept, and beyond MAX_PENDING */
    int more_finding[MAX_PENDING];
} validator;

static bool json_out;

static void count(report *r, int proto, int finding, const out_meta *m, const out_finding *fd)
{
    if (!r->tally_of[proto]) {
        int n;
        defs_of(proto, &n);
        r->tally_of[proto] = g_new0(unsigned, n);
    }
    unsigned *index = &r->tally_of[proto][finding];
    if (!*index) {
        tally fresh = {.proto = proto, .finding = finding};
        snprintf(fresh.first, sizeof fresh.first, "%s", fd->message ? fd->message : "");
        g_array_append_val(r->tallies, fresh);
        *index = r->tallies->len;
    }
    tally *t = &g_array_index(r->tallies, tally, *index - 1);
    t->count++;
    if (t->n_frames < MAX_FRAMES && (!t->n_frames || t->frames[t->n_frames - 1] != m->frame))
        t->frames[t->n_frames++] = m->frame;
    r->sev_count[fd->severity]++;
    if ((unsigned)fd->severity + 1 > r->max_sev)
        r->max_sev = (unsigned)fd->severity + 1;
    if (json_out) {
        FILE *f = r->json;
        fputs("{\"record\":\"finding\",\"file\":", f);
        out_json_string(f, (const uint8_t *)r->path, strlen(r->path));
        fprintf(f, ",\"frame\":%u,\"time\":%lld.%09lld,\"src\":\"%s\",\"dst\":\"%s\",\"proto\":\"%s\","
                   "\"rule\":\"%s\",\"severity\":\"%s\",\"behaviour\":%s,\"offset\":%zu,\"length\":%zu,"
                   "\"message\":",
                m->frame, (long long)(m->time_ns / 1000000000), (long long)(m->time_ns % 1000000000),
                m->src, m->dst, fd->proto, fd->code, gw_severity_name(fd->severity),
                enforces(proto, finding) ? "true" : "false", fd->off, fd->len);
        out_json_string(f, (const uint8_t *)(fd->message ? fd->message : ""),
                        fd->message ? strlen(fd->message) : 0);
        fprintf(f, "%s}\n", fd->end_of_conversation ? ",\"end_of_conversation\":true" : "");
    }
}

/* the sink: only findings matter */
static void v_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    validator *v = ctx;
    (void)src;
    if (v->n_pend < MAX_PENDING) {
        pending *p = &v->pend[v->n_pend++];
        p->finding = finding;
        p->off = off;
        p->len = len;
        if (msg)
            snprintf(p->msg, sizeof p->msg, "%s", msg);
        else
            p->msg[0] = '\0';
    } else if (v->n_more < MAX_PENDING) {
        v->more_finding[v->n_more++] = finding;
    }
}
/* the text report shows a finding's first message only */
static bool v_wants_message(void *ctx, int finding)
{
    validator *v = ctx;
    int proto = v->proto;
    return json_out || (!is_disabled(proto, finding) &&
                        !(v->r->tally_of[proto] && v->r->tally_of[proto][finding]));
}

static void v_expect(void *ctx, int transport, int port_side, uint16_t port, const void *conv)
{
    validator *v = ctx;
    v->expect_fn(v->expect_run, transport, port_side, port, conv);
}

static const gw_sink *v_begin(void *ctx, const gw_protocol *p, run_expect_fn fn, void *run)
{
    validator *v = ctx;
    v->p = p;
    v->proto = proto_of(p);
    v->expect_fn = fn;
    v->expect_run = run;
    v->n_pend = v->n_more = 0;
    return &v->sink;
}

static unsigned v_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    validator *v = ctx;
    int proto = v->proto;
    unsigned max = 0;
    v->r->pdus++;
    v->r->protos_seen |= 1u << proto;
    static const pending none; /* a finding past MAX_PENDING: no range or message */
    for (int i = 0; i < v->n_pend + v->n_more; i++) {
        const pending *e = i < v->n_pend ? &v->pend[i] : &none;
        int finding = i < v->n_pend ? e->finding : v->more_finding[i - v->n_pend];
        if (is_disabled(proto, finding))
            continue;
        const gw_finding_def *d = &p->findings[finding];
        out_finding fd = {.proto = p->name, .short_name = p->short_name, .code = d->code,
                          .severity = d->severity, .off = e->off, .len = e->len, .message = e->msg};
        count(v->r, proto, finding, m, &fd);
        if ((unsigned)d->severity + 1 > max)
            max = (unsigned)d->severity + 1;
    }
    return max;
}

static void v_other(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                    const out_finding *fd)
{
    validator *v = ctx;
    int proto = p ? proto_of(p) : RUN_PROTO;
    if (is_disabled(proto, index))
        return;
    v->r->protos_seen |= 1u << proto;
    count(v->r, proto, index, m, fd);
}

static void validate_one(const run_options *o, report *r)
{
    validator *v = g_new0(validator, 1);
    v->r = r;
    v->sink = (gw_sink){.ctx = v, .item = NULL, .push = NULL, .pop = NULL,
                        .finding = v_finding, .wants_message = v_wants_message,
                        .summary = NULL, .source = run_ignore_source, .expect = v_expect};
    run_consumer c = {v, v_begin, v_end, v_other};
    unsigned ignored = 0;
    r->unreadable = run_file(o, r->path, &c, &ignored) < 0;
    g_free(v);
}

/* ---- the run: files in order, several at once ------------------------- */

/* Worker threads take the captures in order, but stay at most `window`
   captures ahead of the one being printed: a capture finished before its
   turn keeps its JSON records in a temporary file, so at most `window` such
   files exist at once. */
typedef struct {
    const run_options *o;
    report *reports;
    unsigned n, next, printed, window;
    GMutex lock;
    GCond changed;
} run_all;

static gpointer worker(gpointer user)
{
    run_all *a = user;
    for (;;) {
        g_mutex_lock(&a->lock);
        while (a->next < a->n && a->next >= a->printed + a->window)
            g_cond_wait(&a->changed, &a->lock);
        if (a->next >= a->n) {
            g_mutex_unlock(&a->lock);
            return NULL;
        }
        report *r = &a->reports[a->next++];
        g_mutex_unlock(&a->lock);
        if (json_out) {
            /* kept until the capture's turn to be printed; without one, the
               records go straight out (in whatever order) */
            FILE *t = tmpfile();
            if (t)
                r->json = t;
        }
        validate_one(a->o, r);
        g_mutex_lock(&a->lock);
        r->done = true;
        g_cond_broadcast(&a->changed);
        g_mutex_unlock(&a->lock);
    }
}

static bool is_capture_name(const char *name)
{
    return g_str_has_suffix(name, ".pcap") || g_str_has_suffix(name, ".pcapng") ||
           g_str_has_suffix(name, ".cap");
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the captures under a folder, sorted, recursively */
static void add_folder(GPtrArray *files, const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d)
        return;
    GPtrArray *names = g_ptr_array_new();
    const char *n;
    while ((n = g_dir_read_name(d)))
        g_ptr_array_add(names, g_build_filename(dir, n, NULL));
    g_dir_close(d);
    g_ptr_array_sort(names, cmp_str);
    for (guint i = 0; i < names->len; i++) {
        char *path = names->pdata[i];
        if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
            add_folder(files, path);
            g_free(path);
        } else if (is_capture_name(path)) {
            g_ptr_array_add(files, path);
        } else {
            g_free(path);
        }
    }
    g_ptr_array_free(names, TRUE);
}

static bool fails(const report *r, unsigned fail_on)
{
    return r->unreadable || (fail_on && r->max_sev >= fail_on);
}

static void print_text(const report *r, unsigned fail_on)
{
    if (r->unreadable) {
        printf("UNREADABLE %s\n", r->path);
        return;
    }
    printf("%s %s (%u PDU%s; %u error%s, %u warning%s, %u note%s)\n", fails(r, fail_on) ? "FAIL" : "PASS",
           r->path, r->pdus, r->pdus == 1 ? "" : "s", r->sev_count[GW_SEV_ERROR],
           r->sev_count[GW_SEV_ERROR] == 1 ? "" : "s", r->sev_count[GW_SEV_WARNING],
           r->sev_count[GW_SEV_WARNING] == 1 ? "" : "s", r->sev_count[GW_SEV_NOTE],
           r->sev_count[GW_SEV_NOTE] == 1 ? "" : "s");
    for (guint i = 0; i < r->tallies->len; i++) {
        const tally *t = &g_array_index(r->tallies, tally, i);
        int n;
        const gw_finding_def *d = &defs_of(t->proto, &n)[t->finding];
        printf("  %-7s %-40s %5u x  frame%s", gw_severity_name(d->severity), d->code, t->count,
               t->n_frames == 1 ? "" : "s");
        for (unsigned k = 0; k < t->n_frames && k < 5; k++)
            printf("%s%u", k ? ", " : " ", t->frames[k]);
        printf("%s: %s\n", t->n_frames > 5 || t->count > t->n_frames ? " ..." : "", t->first);
    }
}

static void print_json_file(const report *r, unsigned fail_on)
{
    fputs("{\"record\":\"capture\",\"file\":", stdout);
    out_json_string(stdout, (const uint8_t *)r->path, strlen(r->path));
    printf(",\"readable\":%s,\"pdus\":%u,\"errors\":%u,\"warnings\":%u,\"notes\":%u,\"verdict\":\"%s\"}\n",
           r->unreadable ? "false" : "true", r->pdus, r->sev_count[GW_SEV_ERROR],
           r->sev_count[GW_SEV_WARNING], r->sev_count[GW_SEV_NOTE],
           fails(r, fail_on) ? "fail" : "pass");
}


/* one test case: a rule, or a protocol's well-formedness (its other findings) */
static void junit_case(FILE *f, const report *r, int proto, int rule_finding, unsigned fail_on,
                       unsigned *failures)
{
    int n;
    const gw_finding_def *defs = defs_of(proto, &n);
    const char *name = rule_finding >= 0 ? defs[rule_finding].code : NULL;
    GString *detail = g_string_new(NULL);
    unsigned failing = 0, total = 0;
    gw_severity worst = GW_SEV_NOTE;
    for (guint i = 0; i < r->tallies->len; i++) {
        const tally *t = &g_array_index(r->tallies, tally, i);
        if (t->proto != proto)
            continue;
        bool mine = rule_finding >= 0 ? t->finding == rule_finding : !enforces(proto, t->finding);
        if (!mine)
            continue;
        const gw_finding_def *d = &defs[t->finding];
        total += t->count;
        if (fail_on && (unsigned)d->severity + 1 >= fail_on)
            failing += t->count;
        if (d->severity > worst)
            worst = d->severity;
        g_string_append_printf(detail, "%s %s: %u time%s, frame%s", gw_severity_name(d->severity),
                               d->code, t->count, t->count == 1 ? "" : "s",
                               t->n_frames == 1 ? "" : "s");
        for (unsigned k = 0; k < t->n_frames; k++)
            g_string_append_printf(detail, "%s%u", k ? ", " : " ", t->frames[k]);
        g_string_append_printf(detail, "%s; first: %s\n",
                               t->count > t->n_frames ? " ..." : "", t->first);
    }
    fprintf(f, "    <testcase classname=\"%s\" name=\"", proto_name(proto));
    if (name)
        out_xml_text(f, name);
    else
        fprintf(f, "%s.well_formed", proto_name(proto));
    fputs("\">\n", f);
    if (failing) {
        (*failures)++;
        fprintf(f, "      <failure type=\"%s\" message=\"%u finding%s\">", gw_severity_name(worst),
                total, total == 1 ? "" : "s");
        out_xml_text(f, detail->str);
        fputs("</failure>\n", f);
    } else if (total) {
        fputs("      <system-out>", f);
        out_xml_text(f, detail->str);
        fputs("</system-out>\n", f);
    }
    fputs("    </testcase>\n", f);
    g_string_free(detail, TRUE);
}

static bool write_junit(const char *path, report *reports, unsigned n, unsigned fail_on)
{
    FILE *f = out_open(path);
    if (!f)
        return false;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pcaptool validate\">\n", f);
    for (unsigned i = 0; i < n; i++) {
        const report *r = &reports[i];
        /* cases go to a buffer first: the suite's counts come before them */
        char *buf = NULL;
        size_t len = 0;
        FILE *cases = open_memstream(&buf, &len);
        unsigned tests = 0, failures = 0;
        if (r->unreadable) {
            fputs("    <testcase classname=\"capture\" name=\"readable\">\n"
                  "      <error type=\"unreadable\" message=\"the capture cannot be read (see stderr)\"/>\n"
                  "    </testcase>\n", cases);
            tests = 1;
        }
        for (int proto = 0; proto <= RUN_PROTO; proto++) {
            if (!(r->protos_seen & (1u << proto)))
                continue;
            if (proto < RUN_PROTO) {
                const gw_protocol *p = gw_protocols[proto];
                for (int k = 0; k < p->n_rules; k++) {
                    if (is_disabled(proto, p->rules[k].finding))
                        continue;
                    junit_case(cases, r, proto, p->rules[k].finding, fail_on, &failures);
                    tests++;
                }
            }
            junit_case(cases, r, proto, -1, fail_on, &failures);
            tests++;
        }
        fclose(cases);
        fputs("  <testsuite name=\"", f);
        out_xml_text(f, r->path);
        fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"0\">\n", tests, failures,
                r->unreadable ? 1u : 0u);
        fwrite(buf, 1, len, f);
        fputs("  </testsuite>\n", f);
        free(buf);
    }
    fputs("</testsuites>\n", f);
    return out_close(f);
}

static void progress(unsigned done, unsigned total)
{
    enum { WIDTH = 30 };
    unsigned fill = total ? done * WIDTH / total : WIDTH;
    fprintf(stderr, "\r[");
    for (unsigned k = 0; k < WIDTH; k++)
        fputc(k < fill ? '=' : ' ', stderr);
    fprintf(stderr, "] %u/%u captures", done, total);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

static int list_rules(void)
{
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        for (int k = 0; k < p->n_rules; k++) {
            const gw_finding_def *d = &p->findings[p->rules[k].finding];
            printf("%s\t%s\t%s\t%s\n", d->code, gw_severity_name(d->severity), d->summary,
                   p->rules[k].enforces);
        }
    }
    return EXIT_CLEAN;
}

static void validate_usage(FILE *f)
{
    fputs("Usage: pcaptool validate [OPTIONS] FILE|FOLDER...\n"
          "\n"
          "Check captures against the protocols' rules: one verdict per capture.\n"
          "Folders are searched recursively for *.pcap, *.pcapng and *.cap.\n"
          "\n"
          "  -f, --format text|json       a summary per capture (default), or every\n"
          "                               finding as JSON Lines and a record per capture\n"
          "      --junit FILE             also write JUnit XML (- for stdout)\n"
          "  -j, --jobs N                 captures read at once (default: the CPUs)\n"
          "      --fail-on error|warning|note|never   (default error)\n"
          "      --profile reference|spec judge by the reference implementations\n"
          "                               (default) or by the published texts\n"
          "      --enable RULE, --disable RULE\n"
          "                               a finding code or a glob (\"dnp.seq.*\")\n"
          "      --rules                  list every rule and what it enforces\n"
          "      --no-progress            no progress bar on a terminal\n"
          "  -p, --port, -n, --no-heuristics, -o, --option   as for decode\n",
          f);
}

int cmd_validate(int argc, char **argv)
{
    run_options ro;
    run_options_init(&ro);
    unsigned fail_on = GW_SEV_ERROR + 1;
    const char *junit = NULL;
    int jobs = (int)g_get_num_processors();
    bool show_progress = true, rules = false;
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"junit", required_argument, NULL, 'J'},
        {"jobs", required_argument, NULL, 'j'},
        {"enable", required_argument, NULL, 'E'},
        {"disable", required_argument, NULL, 'D'},
        {"rules", no_argument, NULL, 'R'},
        {"no-progress", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        RUN_LONG_OPTS,
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    char *end;
    out_format format = OUT_TEXT;
    json_out = false;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:j:h" RUN_SHORT_OPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!parse_format(optarg, &format))
                return die_usage("unknown format '%s' (text or json)", optarg);
            json_out = format == OUT_JSON;
            break;
        case 'J': junit = optarg; break;
        case 'j':
            jobs = (int)strtol(optarg, &end, 10);
            if (*end || jobs < 1 || jobs > 256)
                return die_usage("bad --jobs '%s' (1 to 256)", optarg);
            break;
        case 'E':
        case 'D':
            if (!set_enabled(optarg, c == 'E'))
                return die_usage("--enable/--disable '%s': no such rule or finding", optarg);
            break;
        case 'R': rules = true; break;
        case 'N': show_progress = false; break;
        case 'h': validate_usage(stdout); return EXIT_CLEAN;
        default:
            rc = parse_run_opt(c, optarg, &ro, &fail_on);
            if (rc < 0)
                return die_usage("%s", "bad option (see pcaptool validate --help)");
            if (rc)
                return rc;
        }
    }
    if (rules)
        return list_rules();
    if (optind >= argc)
        return die_usage("%s", "validate needs at least one capture file or folder");

    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    int status = EXIT_CLEAN;
    for (int i = optind; i < argc; i++) {
        if (g_file_test(argv[i], G_FILE_TEST_IS_DIR))
            add_folder(files, argv[i]);
        else
            g_ptr_array_add(files, g_strdup(argv[i])); /* unreadable ones are reported */
    }
    unsigned n = files->len;
    report *reports = g_new0(report, n ? n : 1);
    for (unsigned i = 0; i < n; i++) {
        reports[i].path = files->pdata[i];
        reports[i].tallies = g_array_new(FALSE, FALSE, sizeof(tally));
        reports[i].json = stdout; /* a worker thread swaps in a temporary file */
    }
    bool bar = show_progress && n > 1 && isatty(STDERR_FILENO);
    run_all a = {.o = &ro, .reports = reports, .n = n, .window = 2 * (unsigned)jobs};
    g_mutex_init(&a.lock);
    g_cond_init(&a.changed);
    GThread *threads[256];
    int n_threads = jobs > 1 && n > 1 ? jobs : 0;
    for (int t = 0; t < n_threads; t++)
        threads[t] = g_thread_new("validate", worker, &a);
    unsigned passed = 0, failed = 0, unreadable = 0;
    for (unsigned i = 0; i < n; i++) {
        report *r = &reports[i];
        if (n_threads) {
            g_mutex_lock(&a.lock);
            while (!r->done)
                g_cond_wait(&a.changed, &a.lock);
            g_mutex_unlock(&a.lock);
        } else {
            validate_one(&ro, r);
        }
        if (json_out) {
            if (r->json != stdout) {
                char buf[65536];
                size_t k;
                rewind(r->json);
                while ((k = fread(buf, 1, sizeof buf, r->json)) > 0)
                    fwrite(buf, 1, k, stdout);
                fclose(r->json);
            }
            print_json_file(r, fail_on);
        } else {
            if (bar)
                fputs("\r\033[K", stderr);
            print_text(r, fail_on);
        }
        fflush(stdout);
        if (bar)
            progress(i + 1, n);
        g_mutex_lock(&a.lock);
        a.printed = i + 1;
        g_cond_broadcast(&a.changed);
        g_mutex_unlock(&a.lock);
        if (r->unreadable)
            unreadable++;
        else if (fails(r, fail_on))
            failed++;
        else
            passed++;
    }
    for (int t = 0; t < n_threads; t++)
        g_thread_join(threads[t]);
    if (!json_out)
        printf("%u capture%s: %u passed, %u failed%s", n, n == 1 ? "" : "s", passed, failed,
               unreadable ? "" : "\n");
    if (!json_out && unreadable)
        printf(", %u unreadable\n", unreadable);
    if (junit && !write_junit(junit, reports, n, fail_on)) {
        fprintf(stderr, "pcaptool: cannot write JUnit XML to '%s'\n", junit);
        status = EXIT_USAGE;
    }
    for (unsigned i = 0; i < n; i++) {
        g_array_free(reports[i].tallies, TRUE);
        for (int k = 0; k <= GW_MAX_PROTOCOLS; k++)
            g_free(reports[i].tally_of[k]);
    }
    g_free(reports);
    g_ptr_array_free(files, TRUE);
    g_mutex_clear(&a.lock);
    g_cond_clear(&a.changed);
    if (n == 0) {
        fprintf(stderr, "pcaptool: no capture files found\n");
        return EXIT_USAGE;
    }
    if (status == EXIT_CLEAN && unreadable)
        status = EXIT_USAGE;
    if (status == EXIT_CLEAN && failed)
        status = EXIT_FINDINGS;
    return status;
}
