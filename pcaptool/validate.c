/* validate.c - pcaptool validate: every finding of every capture counted
 * per rule, files (and folders, recursively) in parallel, a verdict per
 * capture; text summary, JSON Lines or JUnit XML. Nothing is printed per
 * PDU and nothing is kept per PDU: a capture's report is a tally of the
 * findings that occurred. */
#include <errno.h>
#include <dirent.h>
#include <sys/stat.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gw_core.h"
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
    const char *path;     /* NULL: the live capture */
    const char *name;     /* the path, or the interface */
    bool unreadable;
    char *reason;         /* why it is unreadable (or NULL) */
    char *said;           /* the line for standard error, printed at its turn (or NULL) */
    int tmp_errno;        /* the temporary file for its JSON could not be made */
    bool not_read;        /* a stop came before it was read */
    bool interrupted;     /* a stop came while it was read */
    unsigned pdus;
    unsigned protos_seen; /* bit per gw_protocols[] index, and RUN_PROTO */
    unsigned sev_count[3];
    unsigned max_sev;     /* highest severity + 1 */
    GArray *tallies;      /* tally, in order of first occurrence */
    /* per protocol and finding: 1 + the index of its tally in tallies, or 0 */
    unsigned *tally_of[GW_MAX_PROTOCOLS + 1];
    /* per protocol and finding: 1 + the earliest frame of a finding a
       conversation's end reported with its message, or 0 */
    uint32_t *end_message_of[GW_MAX_PROTOCOLS + 1];
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
    /* the same for findings outside a PDU (a conversation's end reports
       many of one protocol in a row) */
    const gw_protocol *other_p;
    int other_proto;
    gw_sink sink;
    pending pend[MAX_PENDING];
    int n_pend, n_more; /* kept, and beyond MAX_PENDING */
    int more_finding[MAX_PENDING];
    /* -Y: the filter, and what it reads of the PDU (kept from PDU to PDU) */
    dfilter_eval *filter;
    GArray *items;        /* gw_item */
    GArray *found;        /* int: every finding of the PDU */
} validator;

static bool json_out, line_buffered;
static const cli_input *input;
static const dfilter *display_filter; /* -Y: only the PDUs it selects are counted */

/* after a record went to standard output */
static void validate_wrote(void)
{
    if (line_buffered)
        fflush(stdout);
    cli_stdout_failed();
}

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
        out_json_string(f, (const uint8_t *)r->name, strlen(r->name));
        fprintf(f, ",\"frame\":%u,\"time\":%lld.%09lld,\"src\":\"%s\",\"dst\":\"%s\",\"proto\":\"%s\","
                   "\"code\":\"%s\",\"severity\":\"%s\",\"behaviour\":%s,\"offset\":%zu,\"length\":%zu,"
                   "\"message\":",
                m->frame, (long long)(m->time_ns / 1000000000), (long long)(m->time_ns % 1000000000),
                m->src, m->dst, fd->proto, fd->code, gw_severity_name(fd->severity),
                enforces(proto, finding) ? "true" : "false", fd->off, fd->len);
        out_json_string(f, (const uint8_t *)(fd->message ? fd->message : ""),
                        fd->message ? strlen(fd->message) : 0);
        fprintf(f, "%s}\n", fd->end_of_conversation ? ",\"end_of_conversation\":true" : "");
        if (f == stdout)
            validate_wrote();
    }
}

/* the sink: only findings matter */
static void v_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    validator *v = ctx;
    (void)src;
    if (v->filter)
        g_array_append_val(v->found, finding);
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
static bool message_shown(const validator *v, int proto, int finding)
{
    return json_out || (!is_disabled(proto, finding) &&
                        !(v->r->tally_of[proto] && v->r->tally_of[proto][finding]));
}

static bool v_wants_message(void *ctx, int finding)
{
    validator *v = ctx;
    return message_shown(v, v->proto, finding);
}

/* p's index (proto_of), looked up again only when p is not the *last
   whose index *index holds */
static int proto_cached(const gw_protocol **last, int *index, const gw_protocol *p)
{
    if (p != *last) {
        *last = p;
        *index = proto_of(p);
    }
    return *index;
}

/* the same for a finding a conversation's end reports about `frame`: once
   its rule has a tally its message is not shown, however late the finding
   is counted; nor when an end finding of the rule about the same frame or
   an earlier one carries its message (records are counted in frame order,
   a frame's in the order they came: that one is counted first, all are) */
static bool v_end_wants_message(void *ctx, const gw_protocol *p, uint32_t frame, int finding)
{
    validator *v = ctx;
    int proto = proto_cached(&v->other_p, &v->other_proto, p);
    if (!message_shown(v, proto, finding))
        return false;
    if (json_out)
        return true;
    if (!v->r->end_message_of[proto]) {
        int n;
        defs_of(proto, &n);
        v->r->end_message_of[proto] = g_new0(uint32_t, n);
    }
    uint32_t *first = &v->r->end_message_of[proto][finding];
    if (*first && *first - 1 <= frame)
        return false;
    *first = frame + 1;
    return true;
}

static gw_sink *v_begin(void *ctx, const gw_protocol *p)
{
    validator *v = ctx;
    proto_cached(&v->p, &v->proto, p);
    v->n_pend = v->n_more = 0;
    if (v->filter) {
        g_array_set_size(v->items, 0);
        g_array_set_size(v->found, 0);
    }
    return &v->sink;
}

/* -Y: the sink takes items too */
static void v_item(void *ctx, const gw_item *it)
{
    g_array_append_val(((validator *)ctx)->items, *it);
}

/* the PDU's findings counted; their highest severity + 1 */
static __attribute__((noinline)) unsigned count_pending(validator *v, const gw_protocol *p,
                                                        const out_meta *m)
{
    int proto = v->proto;
    unsigned max = 0;
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

static unsigned v_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    validator *v = ctx;
    if (v->filter) {
        dfilter_record rec = {p, (const gw_item *)(void *)v->items->data, v->items->len, sizeof(gw_item),
                              (const int *)(void *)v->found->data, v->found->len, sizeof(int)};
        if (!dfilter_match(v->filter, &rec))
            return 0;
    }
    v->r->pdus++;
    v->r->protos_seen |= 1u << v->proto;
    /* most PDUs have no finding: no call */
    return v->n_pend + v->n_more ? count_pending(v, p, m) : 0;
}

static void v_other(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                    const out_finding *fd)
{
    validator *v = ctx;
    int proto = proto_cached(&v->other_p, &v->other_proto, p);
    if (is_disabled(proto, index) || (v->filter && !dfilter_match_finding(v->filter, p, index)))
        return;
    v->r->protos_seen |= 1u << proto;
    count(v->r, proto, index, m, fd);
}

static void validator_free(validator *v)
{
    if (v->filter) {
        dfilter_eval_free(v->filter);
        g_array_free(v->items, TRUE);
        g_array_free(v->found, TRUE);
    }
    g_free(v);
}

static void validate_one(const run_options *ro, report *r)
{
    run_options o = *ro; /* cli_read sets what it reads */
    validator *v = g_new0(validator, 1);
    v->r = r;
    v->proto = v->other_proto = RUN_PROTO; /* proto_of(NULL): the run's own findings */
    v->sink = (gw_sink){.ctx = v, .item = NULL, .push = NULL, .pop = NULL,
                        .finding = v_finding, .wants_message = v_wants_message,
                        .summary = NULL, .source = run_ignore_source};
    if (display_filter) { /* the items the filter reads: only then (they cost) */
        v->filter = dfilter_eval_new(display_filter);
        v->items = g_array_new(FALSE, FALSE, sizeof(gw_item));
        v->found = g_array_new(FALSE, FALSE, sizeof(int));
        v->sink.item = v_item;
    }
    run_consumer c = {v, v_begin, v_end, v_other, NULL, v_end_wants_message};
    unsigned ignored = 0;
    char why[320];
    if (cap_stop_requested()) {
        r->not_read = true;
        validator_free(v);
        return;
    }
    if (r->unreadable) {
        /* not read: found so while listing a folder, or no temporary file */
    } else if (r->path) {
        /* as cli_read does, but its line is said in the captures' order
           (run_validate prints it at the capture's turn), not as a worker
           thread meets it */
        o.count = input->count;
        o.save = NULL;
        int rc = run_file(&o, r->path, &c, &ignored, why, sizeof why);
        if (rc)
            r->said = g_strdup_printf("pcaptool: %s: %s%s\n", r->name, rc > 0 ? "warning: " : "", why);
        if (rc < 0) {
            r->unreadable = true;
            r->reason = g_strdup(why);
        }
    } else if (cli_read(input, &o, NULL, &c, &ignored, why, sizeof why) < 0) {
        r->unreadable = true;
        r->reason = g_strdup(why);
    }
    r->interrupted = cap_stop_requested();
    validator_free(v);
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
            /* kept until the capture's turn to be printed, in $TMPDIR */
            r->json = cli_temp_file(&r->tmp_errno);
            if (!r->json)
                r->unreadable = true; /* not read: the run fails (see print_reports) */
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
    static const char *const ends[] = {".pcap", ".pcapng", ".cap", ".pcap.gz", ".pcapng.gz", ".cap.gz"};
    for (size_t i = 0; i < G_N_ELEMENTS(ends); i++)
        if (g_str_has_suffix(name, ends[i]))
            return true;
    return false;
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* what validate will read: a capture, or something it could not read */
typedef struct {
    char *path;
    char *reason; /* NULL: to be read */
} found;

static void add_found(GArray *list, const char *path, const char *reason)
{
    found f = {g_strdup(path), reason ? g_strdup(reason) : NULL};
    g_array_append_val(list, f);
}

/* The captures under a folder, sorted, recursively; links followed (a
   folder already on the way down is not entered again). Whatever cannot
   be read is listed with its reason: a folder that cannot be opened or
   listed, an entry that cannot be looked at, a broken link. */
static void add_folder(GArray *list, const char *dir, GHashTable *on_the_way)
{
    DIR *d = opendir(dir);
    if (!d) {
        add_found(list, dir, g_strerror(errno));
        return;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    struct dirent *e;
    for (;;) {
        errno = 0;
        if (!(e = readdir(d)))
            break;
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            g_ptr_array_add(names, g_build_filename(dir, e->d_name, NULL));
    }
    if (errno)
        add_found(list, dir, g_strerror(errno)); /* a listing cut short */
    closedir(d);
    g_ptr_array_sort(names, cmp_str);
    for (guint i = 0; i < names->len; i++) {
        const char *path = names->pdata[i];
        struct stat st;
        if (stat(path, &st) < 0) {
            int err = errno;
            struct stat ls;
            bool link = lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode);
            add_found(list, path, link && err == ENOENT ? "broken link" : g_strerror(err));
        } else if (S_ISDIR(st.st_mode)) {
            char *key = g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
            if (g_hash_table_add(on_the_way, key)) {
                add_folder(list, path, on_the_way);
                g_hash_table_remove(on_the_way, key);
            }
        } else if (is_capture_name(path)) {
            add_found(list, path, NULL);
        }
    }
    g_ptr_array_free(names, TRUE);
}

/* an operand or a line of --files-from: a folder is searched, anything
   else is taken as a capture (one that cannot be read says so when read) */
static void add_operand(GArray *list, const char *path, GHashTable *on_the_way)
{
    struct stat st;
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        guint before = list->len;
        add_folder(list, path, on_the_way);
        if (list->len == before)
            fprintf(stderr, "pcaptool: %s: no capture files in this folder\n", path);
    } else {
        add_found(list, path, NULL);
    }
}

/* --files-from FILE ('-': standard input): a path a line, empty lines
   skipped; false with a one-line error when it cannot be read */
static bool read_list(const char *file, GPtrArray *paths)
{
    FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
    if (!f) {
        fprintf(stderr, "pcaptool: %s: cannot read the list: %s\n", file, g_strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    while ((len = getline(&line, &size, f)) >= 0) {
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len > 0)
            g_ptr_array_add(paths, g_strdup(line));
    }
    free(line);
    bool ok = !ferror(f);
    if (!ok)
        fprintf(stderr, "pcaptool: %s: cannot read the list: %s\n", file, g_strerror(errno ? errno : EIO));
    if (f != stdin)
        fclose(f);
    return ok;
}

/* --shard I/N: keep the entries whose place in the whole list (from 0) is
   I - 1 modulo N */
static void keep_shard(GArray *list, unsigned shard, unsigned shards)
{
    guint kept = 0;
    for (guint i = 0; i < list->len; i++) {
        found *f = &g_array_index(list, found, i);
        if (i % shards == shard - 1) {
            g_array_index(list, found, kept++) = *f;
        } else {
            g_free(f->path);
            g_free(f->reason);
        }
    }
    g_array_set_size(list, kept);
}

static bool require_pdus;

static bool fails(const report *r, unsigned fail_on)
{
    return r->unreadable || (fail_on && r->max_sev >= fail_on) || (require_pdus && !r->pdus);
}

static void print_text(FILE *out, const report *r, unsigned fail_on)
{
    if (r->unreadable) {
        fprintf(out, "UNREADABLE %s: %s\n", r->name, r->reason ? r->reason : "cannot be read");
        return;
    }
    fprintf(out, "%s %s (%u PDU%s; %u error%s, %u warning%s, %u note%s)%s%s%s\n",
            fails(r, fail_on) ? "FAIL" : "PASS", r->name, r->pdus, r->pdus == 1 ? "" : "s",
            r->sev_count[GW_SEV_ERROR], r->sev_count[GW_SEV_ERROR] == 1 ? "" : "s",
            r->sev_count[GW_SEV_WARNING], r->sev_count[GW_SEV_WARNING] == 1 ? "" : "s",
            r->sev_count[GW_SEV_NOTE], r->sev_count[GW_SEV_NOTE] == 1 ? "" : "s",
            r->pdus ? "" : display_filter ? ": no PDU selected by -Y" : ": no PDUs of any protocol",
            r->pdus || !require_pdus ? "" : " (--require-pdus)",
            r->interrupted ? " [stopped before its end]" : "");
    for (guint i = 0; i < r->tallies->len; i++) {
        const tally *t = &g_array_index(r->tallies, tally, i);
        int n;
        const gw_finding_def *d = &defs_of(t->proto, &n)[t->finding];
        fprintf(out, "  %-7s %-40s %5u x  frame%s", gw_severity_name(d->severity), d->code, t->count,
                t->n_frames == 1 ? "" : "s");
        for (unsigned k = 0; k < t->n_frames && k < 5; k++)
            fprintf(out, "%s%u", k ? ", " : " ", t->frames[k]);
        fprintf(out, "%s: %s\n", t->n_frames > 5 || t->count > t->n_frames ? " ..." : "", t->first);
    }
}

static void print_json_file(const report *r, unsigned fail_on)
{
    fputs("{\"record\":\"capture\",\"file\":", stdout);
    out_json_string(stdout, (const uint8_t *)r->name, strlen(r->name));
    printf(",\"readable\":%s,", r->unreadable ? "false" : "true");
    if (r->unreadable) {
        fputs("\"reason\":", stdout);
        out_json_string(stdout, (const uint8_t *)r->reason, r->reason ? strlen(r->reason) : 0);
        fputc(',', stdout);
    }
    printf("\"pdus\":%u,\"errors\":%u,\"warnings\":%u,\"notes\":%u,%s\"verdict\":\"%s\"}\n",
           r->pdus, r->sev_count[GW_SEV_ERROR], r->sev_count[GW_SEV_WARNING],
           r->sev_count[GW_SEV_NOTE], r->interrupted ? "\"stopped\":true," : "",
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
    FILE *f = cli_open_report(path);
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
        unsigned skipped = 0;
        if (r->unreadable) {
            fputs("    <testcase classname=\"capture\" name=\"readable\">\n"
                  "      <error type=\"unreadable\" message=\"", cases);
            out_xml_text(cases, r->reason ? r->reason : "cannot be read");
            fputs("\"/>\n    </testcase>\n", cases);
            tests = 1;
        } else if (!r->pdus) {
            /* nothing of ours in it: a wrong port, a handshake not captured */
            fputs("    <testcase classname=\"capture\" name=\"has_pdus\">\n", cases);
            if (require_pdus) {
                fprintf(cases, "      <failure type=\"no_pdus\" message=\"%s (--require-pdus)\"/>\n",
                        display_filter ? "no PDU selected by -Y" : "no PDUs of any protocol");
                failures++;
            } else {
                fprintf(cases, "      <skipped message=\"%s\"/>\n",
                        display_filter ? "no PDU selected by -Y" : "no PDUs of any protocol");
                skipped++;
            }
            fputs("    </testcase>\n", cases);
            tests++;
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
        out_xml_text(f, r->name);
        fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n", tests, failures,
                r->unreadable ? 1u : 0u, skipped);
        fwrite(buf, 1, len, f);
        fputs("  </testsuite>\n", f);
        free(buf);
    }
    fputs("</testsuites>\n", f);
    return cli_close_report(f, path);
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

static int list_rules(out_format fmt, bool markdown)
{
    if (markdown)
        fputs("| rule | severity | meaning | enforces |\n|---|---|---|---|\n", stdout);
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        for (int k = 0; k < p->n_rules; k++) {
            const gw_finding_def *d = &p->findings[p->rules[k].finding];
            if (markdown) {
                printf("| `%s` | %s | ", d->code, gw_severity_name(d->severity));
                cli_markdown_cell(d->summary);
                fputs(" | ", stdout);
                cli_markdown_cell(p->rules[k].enforces);
                fputs(" |\n", stdout);
            } else if (fmt == OUT_JSON) {
                printf("{\"record\":\"rule\",\"code\":\"%s\",\"severity\":\"%s\",\"summary\":", d->code,
                       gw_severity_name(d->severity));
                out_json_string(stdout, (const uint8_t *)d->summary, strlen(d->summary));
                fputs(",\"enforces\":", stdout);
                out_json_string(stdout, (const uint8_t *)p->rules[k].enforces, strlen(p->rules[k].enforces));
                fputs("}\n", stdout);
            } else {
                printf("%s\t%s\t%s\t%s\n", d->code, gw_severity_name(d->severity), d->summary,
                       p->rules[k].enforces);
            }
        }
    }
    return cli_finish(EXIT_CLEAN);
}

static void validate_usage(FILE *f)
{
    fputs("Usage: pcaptool validate [OPTIONS] FILE|FOLDER...\n"
          "       pcaptool validate [OPTIONS] --files-from LIST [FILE|FOLDER...]\n"
          "       pcaptool validate [OPTIONS] -i INTERFACE [-f FILTER] [-c N] [-a duration:S] [-w FILE]\n"
          "\n"
          "Check captures against the protocols' rules: one verdict per capture.\n"
          "Folders are searched recursively for *.pcap, *.pcapng and *.cap (also .gz);\n"
          "whatever under them cannot be read is an UNREADABLE entry and fails the run.\n"
          "'-' reads standard input.\n"
          "\n"
          "  -T, --format text|json       a summary per capture (default), or every\n"
          "                               finding as JSON Lines and a record per capture\n"
          "      --junit FILE             also write JUnit XML; '-' puts it on standard\n"
          "                               output and the text report on standard error\n"
          "                               (not with --format json)\n"
          "  -Y, --display-filter FILTER  count only the findings of the PDUs FILTER\n"
          "                               selects (as decode -Y); every PDU is still\n"
          "                               checked, and PDUs counts the selected ones\n"
          "  -q, --quiet                  no text report (the exit code, JSON or JUnit tell)\n"
          "      --require-pdus           a capture with no PDU of any protocol fails\n"
          "  -j, --jobs N                 captures read at once, each by one thread;\n"
          "                               the same output in the same order whatever N\n"
          "                               (default: the CPUs)\n"
          "      --files-from FILE        also the captures and folders FILE names, a\n"
          "                               path a line ('-': standard input)\n"
          "      --shard I/N              only every N-th capture of the whole list,\n"
          "                               from the I-th (1 <= I <= N); pcaptool merge\n"
          "                               puts the shards' JSON Lines or JUnit together\n"
          "      --fail-on error|warning|note|never   (default error)\n"
          "      --profile either|reference|spec\n"
          "                               what the text or the reference allows passes\n"
          "                               (default), or strictly by the reference\n"
          "                               implementations or the published texts\n"
          "      --enable RULE, --disable RULE\n"
          "                               a finding code or a glob (\"dnp.seq.*\")\n"
          "      --rules                  list every rule and what it enforces (text;\n"
          "                               JSON Lines with --format json; a markdown\n"
          "                               table with --format markdown)\n"
          "      --no-progress            no progress bar on a terminal\n"
          "  -l, -c, -i, -f, -a, -w       as for decode (live capture: one verdict)\n"
          "  -p, --port, -n, --no-heuristics, -o, --option   as for decode\n"
          "\n"
          "Exit codes: 0 every capture passed; 1 a capture failed (findings at or above\n"
          "--fail-on, or no PDUs with --require-pdus); 2 usage error, a capture or folder\n"
          "that cannot be read, no capture found (a --shard whose share is empty is\n"
          "no error), or output that could not be written;\n"
          "130/143 stopped by SIGINT/SIGTERM (the captures read so far are reported).\n",
          f);
}

enum { O_JUNIT = 1000, O_ENABLE, O_DISABLE, O_RULES, O_NO_PROGRESS, O_REQUIRE_PDUS, O_FILES_FROM, O_SHARD };

/* validate's own options */
typedef struct {
    const char *junit;
    int jobs;
    const char *files_from;
    unsigned shard, shards; /* --shard I/N (shards 0: all) */
    bool show_progress, rules, quiet, markdown;
    out_format format;
} validate_args;

static int validate_opt(void *ctx, int c, const char *arg)
{
    validate_args *a = ctx;
    char *end;
    switch (c) {
    case 'T':
        a->markdown = !strcmp(arg, "markdown"); /* --rules only */
        if (!a->markdown && !parse_format(arg, &a->format))
            return cli_usage_error("unknown format '%s' (text or json)", arg);
        json_out = a->format == OUT_JSON;
        return 0;
    case O_JUNIT: a->junit = arg; return 0;
    case 'j':
        a->jobs = (int)strtol(arg, &end, 10);
        if (*end || a->jobs < 1 || a->jobs > 256)
            return cli_usage_error("bad --jobs '%s' (1 to 256)", arg);
        return 0;
    case O_ENABLE:
    case O_DISABLE:
        if (!set_enabled(arg, c == O_ENABLE))
            return cli_usage_error("--enable/--disable '%s': no such rule or finding", arg);
        return 0;
    case O_RULES: a->rules = true; return 0;
    case O_NO_PROGRESS: a->show_progress = false; return 0;
    case O_REQUIRE_PDUS: require_pdus = true; return 0;
    case O_FILES_FROM: a->files_from = arg; return 0;
    case O_SHARD: {
        unsigned long i = strtoul(arg, &end, 10), n = 0;
        if (end != arg && *end == '/' && g_ascii_isdigit(end[1]))
            n = strtoul(end + 1, &end, 10);
        if (*end || i < 1 || n < 1 || i > n || n > 1000000 || !g_ascii_isdigit(*arg))
            return cli_usage_error("bad --shard '%s' (I/N: the I-th of N shards, 1 <= I <= N)", arg);
        a->shard = (unsigned)i;
        a->shards = (unsigned)n;
        return 0;
    }
    default: a->quiet = true; return 0; /* 'q' */
    }
}

static int run_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'T'},
        {"junit", required_argument, NULL, O_JUNIT},
        {"jobs", required_argument, NULL, 'j'},
        {"enable", required_argument, NULL, O_ENABLE},
        {"disable", required_argument, NULL, O_DISABLE},
        {"rules", no_argument, NULL, O_RULES},
        {"no-progress", no_argument, NULL, O_NO_PROGRESS},
        {"require-pdus", no_argument, NULL, O_REQUIRE_PDUS},
        {"files-from", required_argument, NULL, O_FILES_FROM},
        {"shard", required_argument, NULL, O_SHARD},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const cli_spec spec = {"T:j:q", longopts, CLI_RUN | CLI_FAIL_ON | CLI_INPUT | CLI_FILTER,
                                  validate_opt, validate_usage};
    validate_args args = {.jobs = (int)g_get_num_processors(), .show_progress = true, .format = OUT_TEXT};
    json_out = require_pdus = false;
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &args, &cc);
    if (rc != CLI_GO)
        return rc;
    display_filter = cc.filter; /* kept to the end of the run */
    if (args.rules) {
        if (optind < argc)
            return cli_usage_error("--rules takes no capture");
        return list_rules(args.format, args.markdown);
    }
    if (args.markdown)
        return cli_usage_error("--format markdown is for --rules");
    if (args.junit && strcmp(args.junit, "-") == 0 && json_out)
        return cli_usage_error("--format json and --junit - would both take standard output");
    if ((rc = cli_check_inputs(&cc.in, argc - optind + (args.files_from != NULL))))
        return rc;
    if (cc.in.iface && args.shards)
        return cli_usage_error("--shard is for capture files, not -i INTERFACE");
    GPtrArray *listed = g_ptr_array_new_with_free_func(g_free);
    if (args.files_from) {
        bool from_stdin = strcmp(args.files_from, "-") == 0;
        for (int i = optind; i < argc && from_stdin; i++)
            if (strcmp(argv[i], "-") == 0) {
                g_ptr_array_free(listed, TRUE);
                return cli_usage_error("'-' and --files-from - would both read standard input");
            }
        if (!read_list(args.files_from, listed)) {
            g_ptr_array_free(listed, TRUE);
            return cli_finish(EXIT_USAGE);
        }
        for (guint i = 0; i < listed->len && from_stdin; i++)
            if (strcmp(listed->pdata[i], "-") == 0) {
                g_ptr_array_free(listed, TRUE);
                return cli_usage_error("the list read from standard input names '-'");
            }
    }
    /* standard output carries one format: JSON Lines, JUnit, or the text */
    cli_report_to(args.quiet ? 2 : args.junit && strcmp(args.junit, "-") == 0 ? 1 : 0);
    line_buffered = cc.in.line_buffered || isatty(STDOUT_FILENO);
    input = &cc.in;
    cap_install_signals();

    GArray *list = g_array_new(FALSE, FALSE, sizeof(found));
    if (cc.in.iface) {
        add_found(list, cc.in.iface, NULL);
    } else {
        GHashTable *on_the_way = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        for (int i = optind; i < argc; i++)
            add_operand(list, argv[i], on_the_way);
        for (guint i = 0; i < listed->len; i++)
            add_operand(list, listed->pdata[i], on_the_way);
        g_hash_table_destroy(on_the_way);
    }
    g_ptr_array_free(listed, TRUE);
    unsigned n_all = list->len; /* before --shard took its share */
    if (args.shards)
        keep_shard(list, args.shard, args.shards);
    unsigned n = list->len;
    report *reports = g_new0(report, n ? n : 1);
    for (unsigned i = 0; i < n; i++) {
        found *fo = &g_array_index(list, found, i);
        reports[i].path = cc.in.iface ? NULL : fo->path;
        reports[i].name = fo->path;
        reports[i].unreadable = fo->reason != NULL;
        reports[i].reason = fo->reason;
        reports[i].tallies = g_array_new(FALSE, FALSE, sizeof(tally));
        reports[i].json = stdout; /* a worker thread swaps in a temporary file */
        if (fo->reason)
            fprintf(stderr, "pcaptool: %s: %s\n", fo->path, fo->reason);
    }
    bool bar = args.show_progress && !args.quiet && n > 1 && isatty(STDERR_FILENO) && cli_report == stdout;
    run_all a = {.o = &cc.ro, .reports = reports, .n = n, .window = 2 * (unsigned)args.jobs};
    g_mutex_init(&a.lock);
    g_cond_init(&a.changed);
    GThread *threads[256];
    int n_threads = args.jobs > 1 && n > 1 ? args.jobs : 0;
    for (int t = 0; t < n_threads; t++)
        threads[t] = g_thread_new("validate", worker, &a);
    unsigned passed = 0, failed = 0, unreadable = 0, shown = 0;
    int status = EXIT_CLEAN;
    for (unsigned i = 0; i < n; i++) {
        report *r = &reports[i];
        if (n_threads) {
            g_mutex_lock(&a.lock);
            while (!r->done)
                g_cond_wait(&a.changed, &a.lock);
            g_mutex_unlock(&a.lock);
        } else {
            validate_one(&cc.ro, r);
        }
        if (r->not_read)
            break; /* a stop came first */
        if (r->tmp_errno) {
            fprintf(stderr, "pcaptool: cannot make a temporary file in %s: %s\n", g_get_tmp_dir(),
                    g_strerror(r->tmp_errno));
            status = EXIT_USAGE;
            cap_request_stop(-1);
            break;
        }
        if (bar)
            fputs("\r\033[K", stderr);
        if (r->said)
            fputs(r->said, stderr);
        if (json_out) {
            if (r->json != stdout) {
                char buf[65536];
                size_t k;
                bool bad = fflush(r->json) != 0 || ferror(r->json);
                rewind(r->json);
                while (!bad && (k = fread(buf, 1, sizeof buf, r->json)) > 0)
                    fwrite(buf, 1, k, stdout);
                bad = bad || ferror(r->json);
                fclose(r->json);
                if (bad) {
                    fprintf(stderr, "pcaptool: cannot keep the JSON records of %s in %s: %s\n",
                            r->name, g_get_tmp_dir(), g_strerror(errno ? errno : EIO));
                    status = EXIT_USAGE;
                    cap_request_stop(-1);
                    break;
                }
            }
            print_json_file(r, cc.fail_on);
        } else {
            print_text(cli_report, r, cc.fail_on);
        }
        shown++;
        fflush(cli_report);
        fflush(stdout);
        validate_wrote();
        if (bar)
            progress(i + 1, n);
        g_mutex_lock(&a.lock);
        a.printed = i + 1;
        g_cond_broadcast(&a.changed);
        g_mutex_unlock(&a.lock);
        if (r->unreadable)
            unreadable++;
        else if (fails(r, cc.fail_on))
            failed++;
        else
            passed++;
        if (cap_stop_requested())
            break;
    }
    if (n_threads) { /* the workers may wait for captures never printed */
        g_mutex_lock(&a.lock);
        a.next = a.n;
        g_cond_broadcast(&a.changed);
        g_mutex_unlock(&a.lock);
    }
    for (int t = 0; t < n_threads; t++)
        g_thread_join(threads[t]);
    for (unsigned i = shown; i < n; i++) /* temporary files of captures never printed */
        if (reports[i].json && reports[i].json != stdout)
            fclose(reports[i].json);
    if (!json_out) {
        fprintf(cli_report, "%u capture%s: %u passed, %u failed", shown, shown == 1 ? "" : "s", passed,
                failed);
        if (unreadable)
            fprintf(cli_report, ", %u unreadable", unreadable);
        if (shown < n)
            fprintf(cli_report, " (%u not read: stopped)", n - shown);
        fputc('\n', cli_report);
    }
    if (args.junit && !write_junit(args.junit, reports, shown, cc.fail_on))
        status = EXIT_USAGE;
    for (unsigned i = 0; i < n; i++) {
        g_array_free(reports[i].tallies, TRUE);
        for (int k = 0; k <= GW_MAX_PROTOCOLS; k++) {
            g_free(reports[i].tally_of[k]);
            g_free(reports[i].end_message_of[k]);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        g_free(g_array_index(list, found, i).path);
        g_free(reports[i].reason);
        g_free(reports[i].said);
    }
    g_array_free(list, TRUE);
    g_free(reports);
    g_mutex_clear(&a.lock);
    g_cond_clear(&a.changed);
    if (n_all == 0) {
        fprintf(stderr, "pcaptool: no capture files found\n");
        return cli_finish(EXIT_USAGE);
    }
    if (status == EXIT_CLEAN && unreadable)
        status = EXIT_USAGE;
    if (status == EXIT_CLEAN && failed)
        status = EXIT_FINDINGS;
    return cli_finish(status);
}

const subcommand cmd_validate = {"validate", "FILE|FOLDER...",
                                 "a verdict per capture against the protocols' rules\n"
                                 "(text, JSON Lines, JUnit XML)",
                                 run_validate, validate_usage};
