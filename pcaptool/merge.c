/* merge.c - pcaptool merge: the JSON Lines or the JUnit XML of several
 * validate runs (shards of one archive: --shard, or any other split) put
 * together as one validate run over all their captures writes them. Each
 * capture's records (its finding records and its capture record, or its
 * <testsuite>) are copied whole, byte for byte; the captures come in the
 * order validate lists a folder (paths compared a component at a time);
 * the exit code is the one that run would have. Nothing but the place of
 * each capture's bytes, its path and its verdict is kept in memory. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "pcaptool.h"

enum { KIND_EMPTY, KIND_JSON, KIND_JUNIT };
static const char *const kind_name[] = {"empty", "JSON Lines", "JUnit XML"};

enum { PASSED, FAILED, UNREADABLE }; /* a capture's verdict, worst last */

typedef struct {
    const char *name; /* as given ("-": standard input) */
    FILE *f;          /* the file, or a temporary copy of a pipe */
    int kind;
} input;

/* one capture: where its bytes are, its path, its verdict */
typedef struct {
    unsigned input, line;
    off_t start, end;
    char *path;
    int verdict;
} block;

/* what validate writes around the JUnit suites */
static const char junit_head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                 "<testsuites name=\"pcaptool validate\">\n";
static const char junit_foot[] = "</testsuites>\n";

static void merge_usage(FILE *f)
{
    fputs("Usage: pcaptool merge [-q] FILE...\n"
          "\n"
          "Put the outputs of several 'pcaptool validate' runs (shards of one list of\n"
          "captures: --shard I/N, or any split) together as one run over all their\n"
          "captures writes them, on standard output: either JSON Lines (--format json)\n"
          "or JUnit XML (--junit), one kind at a time ('-': standard input). Each\n"
          "capture's records, or its <testsuite>, are copied whole; the captures come\n"
          "in the order validate lists a folder (by path, a component at a time),\n"
          "whatever the order of the FILEs. A capture found in two FILEs is an error.\n"
          "\n"
          "  -q, --quiet                  no summary line on standard error\n"
          "  -h, --help                   this help\n"
          "\n"
          "Exit codes, as validate's over all the captures: 0 every capture passed;\n"
          "1 a capture failed; 2 a capture that could not be read, a usage error, a\n"
          "FILE that cannot be read or is not the output of pcaptool validate (nothing\n"
          "is written then), or output that could not be written.\n",
          f);
}

/* paths in the order validate lists a folder: its entries sorted by name,
   a folder's captures at its place, so a component at a time ('/' before
   any other byte, the end of a path before '/') */
static int cmp_path(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca == cb) {
            if (!ca)
                return 0;
            continue;
        }
        unsigned ra = ca == '/' ? 1 : ca ? ca + 1 : 0, rb = cb == '/' ? 1 : cb ? cb + 1 : 0;
        return ra < rb ? -1 : 1;
    }
}

static int cmp_block(const void *x, const void *y)
{
    const block *a = x, *b = y;
    int c = cmp_path(a->path, b->path);
    if (c)
        return c;
    if (a->input != b->input)
        return a->input < b->input ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static void put_utf8(GString *g, gunichar c)
{
    char b[6];
    g_string_append_len(g, b, g_unichar_to_utf8(c, b));
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = g_ascii_xdigit_value(p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* the JSON string at *p (after its opening quote): its text, *p after its
   closing quote; NULL when it is not one */
static char *json_string(const char **p)
{
    GString *g = g_string_new(NULL);
    const char *s = *p;
    for (; *s && *s != '"' && *s != '\n'; s++) {
        if (*s != '\\') {
            g_string_append_c(g, *s);
            continue;
        }
        s++;
        switch (*s) {
        case '"': case '\\': case '/': g_string_append_c(g, *s); break;
        case 'b': g_string_append_c(g, '\b'); break;
        case 'f': g_string_append_c(g, '\f'); break;
        case 'n': g_string_append_c(g, '\n'); break;
        case 'r': g_string_append_c(g, '\r'); break;
        case 't': g_string_append_c(g, '\t'); break;
        case 'u': {
            int c = hex4(s + 1);
            if (c < 0)
                goto bad;
            s += 4;
            if (c >= 0xd800 && c < 0xdc00 && s[1] == '\\' && s[2] == 'u') {
                int lo = hex4(s + 3);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                    s += 6;
                }
            }
            put_utf8(g, (gunichar)c);
            break;
        }
        default: goto bad;
        }
    }
    if (*s != '"')
        goto bad;
    *p = s + 1;
    return g_string_free(g, FALSE);
bad:
    g_string_free(g, TRUE);
    return NULL;
}

/* the XML attribute value at *p (after its opening quote), as
   out_xml_text wrote it: its text, *p after the closing quote */
static char *xml_attribute(const char **p)
{
    static const struct { const char *ref; char c; } refs[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    GString *g = g_string_new(NULL);
    const char *s = *p;
    while (*s && *s != '"' && *s != '\n') {
        if (*s != '&') {
            g_string_append_c(g, *s++);
            continue;
        }
        size_t k;
        for (k = 0; k < G_N_ELEMENTS(refs); k++)
            if (g_str_has_prefix(s, refs[k].ref))
                break;
        if (k < G_N_ELEMENTS(refs)) {
            g_string_append_c(g, refs[k].c);
            s += strlen(refs[k].ref);
        } else if (s[1] == '#') {
            char *end;
            unsigned long c = s[2] == 'x' ? strtoul(s + 3, &end, 16) : strtoul(s + 2, &end, 10);
            if (*end != ';' || c > 0x10ffff)
                break;
            put_utf8(g, (gunichar)c);
            s = end + 1;
        } else {
            break;
        }
    }
    if (*s != '"') {
        g_string_free(g, TRUE);
        return NULL;
    }
    *p = s + 1;
    return g_string_free(g, FALSE);
}

/* the unsigned number after `key` in s, or -1 */
static long number_after(const char *s, const char *key)
{
    const char *k = strstr(s, key);
    if (!k || !g_ascii_isdigit(k[strlen(key)]))
        return -1;
    return strtol(k + strlen(key), NULL, 10);
}

/* a line of a JSON Lines input: 0 a finding record, 1 a capture record
   (*path, *verdict set), -1 neither */
static int json_line(const char *line, char **path, int *verdict)
{
    static const char finding[] = "{\"record\":\"finding\",\"file\":\"";
    static const char capture[] = "{\"record\":\"capture\",\"file\":\"";
    if (g_str_has_prefix(line, finding))
        return 0;
    if (!g_str_has_prefix(line, capture))
        return -1;
    const char *p = line + sizeof capture - 1;
    if (!(*path = json_string(&p)))
        return -1;
    if (strstr(p, "\"readable\":false"))
        *verdict = UNREADABLE;
    else if (strstr(p, "\"verdict\":\"fail\"}"))
        *verdict = FAILED;
    else if (strstr(p, "\"verdict\":\"pass\"}"))
        *verdict = PASSED;
    else {
        g_free(*path);
        return -1;
    }
    return 1;
}

/* a JUnit suite's first line: its path and verdict; false when it is not */
static bool junit_suite(const char *line, char **path, int *verdict)
{
    static const char suite[] = "  <testsuite name=\"";
    if (!g_str_has_prefix(line, suite))
        return false;
    const char *p = line + sizeof suite - 1;
    if (!(*path = xml_attribute(&p)))
        return false;
    long failures = number_after(p, " failures=\""), errors = number_after(p, " errors=\"");
    if (failures < 0 || errors < 0) {
        g_free(*path);
        return false;
    }
    *verdict = errors ? UNREADABLE : failures ? FAILED : PASSED;
    return true;
}

/* FILE:LINE: what is wrong, on standard error; false */
static bool bad_input(const input *in, unsigned line, const char *what)
{
    fprintf(stderr, "pcaptool merge: %s:%u: %s\n", in->name, line, what);
    return false;
}

/* the captures of one input, appended to blocks; false (said why) when it
   is not what validate writes */
static bool scan(input *in, unsigned index, GArray *blocks)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    unsigned n = 0, first = 0;
    off_t start = 0, at = 0;
    bool in_suite = false, ended = false, ok = true;
    int c = getc(in->f);
    ungetc(c, in->f);
    if (c == EOF) {
        in->kind = KIND_EMPTY;
        return !ferror(in->f) || bad_input(in, 0, g_strerror(errno));
    }
    in->kind = c == '<' ? KIND_JUNIT : KIND_JSON;
    while (ok && (len = getline(&line, &size, in->f)) >= 0) {
        n++;
        off_t next = at + len;
        if (line[len - 1] != '\n') {
            ok = bad_input(in, n, "cut short (no end of line)");
        } else if (in->kind == KIND_JSON) {
            char *path;
            int verdict;
            int r = json_line(line, &path, &verdict);
            if (r < 0)
                ok = bad_input(in, n, "not a record of pcaptool validate --format json");
            if (r >= 0 && !first) {
                first = n;
                start = at;
            }
            if (r == 1) {
                block b = {index, first, start, next, path, verdict};
                g_array_append_val(blocks, b);
                first = 0;
            }
        } else if (n == 1 || n == 2) {
            const char *want = n == 1 ? junit_head : strchr(junit_head, '\n') + 1;
            if (strncmp(line, want, (size_t)len))
                ok = bad_input(in, n, "not the JUnit XML of pcaptool validate");
        } else if (ended) {
            ok = bad_input(in, n, "after </testsuites>");
        } else if (!in_suite && !strcmp(line, junit_foot)) {
            ended = true;
        } else if (!in_suite) {
            block b = {index, n, at, 0, NULL, 0};
            if (!junit_suite(line, &b.path, &b.verdict))
                ok = bad_input(in, n, "not a <testsuite> of pcaptool validate");
            else
                g_array_append_val(blocks, b);
            in_suite = ok;
        } else if (!strcmp(line, "  </testsuite>\n")) {
            g_array_index(blocks, block, blocks->len - 1).end = next;
            in_suite = false;
        }
        at = next;
    }
    free(line);
    if (ok && ferror(in->f))
        ok = bad_input(in, n, g_strerror(errno ? errno : EIO));
    if (ok && in->kind == KIND_JSON && first)
        ok = bad_input(in, first, "findings without their capture record (a cut output?)");
    if (ok && in->kind == KIND_JUNIT && !ended)
        ok = bad_input(in, n, "no </testsuites> (a cut output?)");
    return ok;
}

/* the input as a file that can be read again: a pipe or standard input is
   copied to a temporary file first */
static bool open_input(input *in)
{
    in->f = strcmp(in->name, "-") ? fopen(in->name, "r") : stdin;
    if (!in->f) {
        fprintf(stderr, "pcaptool merge: %s: %s\n", in->name, g_strerror(errno));
        return false;
    }
    if (fseeko(in->f, 0, SEEK_CUR) == 0)
        return true;
    int err = 0;
    FILE *copy = cli_temp_file(&err);
    if (!copy) {
        fprintf(stderr, "pcaptool merge: cannot make a temporary file in %s: %s\n", g_get_tmp_dir(),
                g_strerror(err));
        return false;
    }
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, in->f)) > 0)
        fwrite(buf, 1, k, copy);
    bool ok = !ferror(in->f) && fflush(copy) == 0 && !ferror(copy);
    if (!ok)
        fprintf(stderr, "pcaptool merge: %s: %s\n", in->name, g_strerror(errno ? errno : EIO));
    if (in->f != stdin)
        fclose(in->f);
    in->f = copy;
    rewind(copy);
    return ok;
}

/* copy bytes [start, end) of f to standard output */
static bool copy_out(FILE *f, off_t start, off_t end)
{
    char buf[65536];
    if (fseeko(f, start, SEEK_SET) != 0)
        return false;
    for (off_t left = end - start; left > 0;) {
        size_t k = fread(buf, 1, left < (off_t)sizeof buf ? (size_t)left : sizeof buf, f);
        if (!k)
            return false;
        fwrite(buf, 1, k, stdout);
        left -= (off_t)k;
    }
    return !cli_stdout_failed();
}

static int merge_opt(void *ctx, int c, const char *arg)
{
    (void)c;
    (void)arg;
    *(bool *)ctx = true; /* -q */
    return 0;
}

static int run_merge(int argc, char **argv)
{
    static const struct option longopts[] = {{"quiet", no_argument, NULL, 'q'}, {NULL, 0, NULL, 0}};
    static const cli_spec spec = {"q", longopts, 0, merge_opt, merge_usage};
    bool quiet = false;
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &quiet, &cc);
    if (rc != CLI_GO)
        return rc;
    unsigned n = (unsigned)(argc - optind);
    if (!n)
        return cli_usage_error("needs the outputs of pcaptool validate to merge");
    unsigned stdin_uses = 0;
    for (int i = optind; i < argc; i++)
        stdin_uses += !strcmp(argv[i], "-");
    if (stdin_uses > 1)
        return cli_usage_error("'-' (standard input) given more than once");
    input *ins = g_new0(input, n);
    GArray *blocks = g_array_new(FALSE, FALSE, sizeof(block));
    int kind = KIND_EMPTY;
    const char *kind_from = NULL;
    bool ok = true;
    for (unsigned i = 0; ok && i < n; i++) {
        ins[i].name = argv[optind + (int)i];
        ok = open_input(&ins[i]) && scan(&ins[i], i, blocks);
        if (ok && ins[i].kind != KIND_EMPTY) {
            if (kind != KIND_EMPTY && ins[i].kind != kind) {
                fprintf(stderr, "pcaptool merge: %s is %s, %s is %s: merge one kind at a time\n",
                        kind_from, kind_name[kind], ins[i].name, kind_name[ins[i].kind]);
                ok = false;
            }
            kind = ins[i].kind;
            kind_from = ins[i].name;
        }
    }
    if (ok)
        qsort(blocks->data, blocks->len, sizeof(block), cmp_block);
    unsigned counts[3] = {0, 0, 0};
    for (guint i = 0; ok && i < blocks->len; i++) {
        const block *b = &g_array_index(blocks, block, i), *prev = b - 1;
        if (i && prev->input != b->input && !cmp_path(prev->path, b->path)) {
            fprintf(stderr, "pcaptool merge: %s: in %s (line %u) and in %s (line %u): shards that "
                    "overlap\n", b->path, ins[prev->input].name, prev->line, ins[b->input].name, b->line);
            ok = false;
        }
        counts[b->verdict]++;
    }
    if (ok && kind == KIND_JUNIT)
        fputs(junit_head, stdout);
    for (guint i = 0; ok && i < blocks->len; i++) {
        const block *b = &g_array_index(blocks, block, i);
        if (!copy_out(ins[b->input].f, b->start, b->end)) {
            if (!cli_stdout_failed())
                fprintf(stderr, "pcaptool merge: %s: %s\n", ins[b->input].name, g_strerror(errno ? errno : EIO));
            ok = false;
        }
    }
    if (ok && kind == KIND_JUNIT)
        fputs(junit_foot, stdout);
    if (ok && fflush(stdout) != 0)
        ok = !cli_stdout_failed(); /* cli_finish says why */
    if (ok && !quiet) {
        fprintf(stderr, "%u capture%s: %u passed, %u failed", blocks->len, blocks->len == 1 ? "" : "s",
                counts[PASSED], counts[FAILED]);
        if (counts[UNREADABLE])
            fprintf(stderr, ", %u unreadable", counts[UNREADABLE]);
        fprintf(stderr, " (%u input%s merged)\n", n, n == 1 ? "" : "s");
    }
    for (unsigned i = 0; i < n; i++)
        if (ins[i].f && ins[i].f != stdin)
            fclose(ins[i].f);
    for (guint i = 0; i < blocks->len; i++)
        g_free(g_array_index(blocks, block, i).path);
    g_array_free(blocks, TRUE);
    g_free(ins);
    if (!ok)
        return cli_finish(EXIT_USAGE);
    return cli_finish(counts[UNREADABLE] ? EXIT_USAGE : counts[FAILED] ? EXIT_FINDINGS : EXIT_CLEAN);
}

const subcommand cmd_merge = {"merge", "FILE...",
                              "the JSON Lines or JUnit of several validate runs\n"
                              "(shards) as one run's",
                              run_merge, merge_usage};
