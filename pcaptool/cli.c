/* cli.c - see pcaptool.h: the parts of the command line every subcommand
 * shares, and the checks that make a failed write fail the run. */
#include <errno.h>
#include <getopt.h>
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcaptool.h"

const char *cli_cmd = "";
FILE *cli_report;

int cli_side_arg(const char *arg, int *side)
{
    if (strcmp(arg, "client") && strcmp(arg, "server"))
        return cli_usage_error("--side takes client or server, not '%s'", arg);
    *side = strcmp(arg, "server") == 0;
    return 0;
}

char *cli_command_line(int argc, char **argv)
{
    GString *command = g_string_new("pcaptool");
    for (int i = 0; i < argc; i++) {
        bool plain = argv[i][0] && strspn(argv[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                   "0123456789_./:=,+@%-") == strlen(argv[i]);
        char *q = plain ? g_strdup(argv[i]) : g_shell_quote(argv[i]);
        g_string_append_printf(command, " %s", q);
        g_free(q);
    }
    return g_string_free(command, FALSE);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pcaptool%s%s: ", *cli_cmd ? " " : "", cli_cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see pcaptool %s%s--help)\n", cli_cmd, *cli_cmd ? " " : "");
    return EXIT_USAGE;
}

int cli_getopt_error(int c, char **argv)
{
    const char *arg = argv[optind - 1];
    if (c == ':') {
        if (optopt)
            return cli_usage_error("option '-%c' needs an argument", optopt);
        return cli_usage_error("option '%s' needs an argument", arg);
    }
    if (optopt && !(arg[0] == '-' && arg[1] == '-'))
        return cli_usage_error("unknown option '-%c'", optopt);
    /* "--bogus=x": name the option only */
    const char *eq = strchr(arg, '=');
    return cli_usage_error("unknown option '%.*s'", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
}

int cli_help(void (*usage)(FILE *f))
{
    usage(stdout);
    return cli_finish(EXIT_CLEAN);
}

bool parse_fail_on(const char *arg, unsigned *fail_on)
{
    static const char *const names[] = {"note", "warning", "error"};
    for (unsigned k = 0; k < 3; k++)
        if (strcmp(arg, names[k]) == 0) {
            *fail_on = k + 1;
            return true;
        }
    if (strcmp(arg, "never") == 0) {
        *fail_on = 0;
        return true;
    }
    return false;
}

bool parse_profile(const char *arg, run_options *o)
{
    const gw_choice *c = gw_profile_choices;
    while (c->token && strcmp(c->token, arg))
        c++;
    if (!c->token)
        return false;
    run_set_profile(o, c->value);
    return true;
}

bool parse_format(const char *arg, out_format *f)
{
    if (strcmp(arg, "json") == 0)
        *f = OUT_JSON;
    else if (strcmp(arg, "text") == 0)
        *f = OUT_TEXT;
    else
        return false;
    return true;
}

/* the options that choose protocols (CLI_RUN): -1 when c is not one of
   them, else 0 or EXIT_USAGE */
#define RUN_SHORT_OPTS "p:no:"
static const struct option run_long_opts[] = {
    {"port", required_argument, NULL, 'p'}, {"no-heuristics", no_argument, NULL, 'n'},
    {"option", required_argument, NULL, 'o'}, {"profile", required_argument, NULL, 'P'},
    {NULL, 0, NULL, 0}};
static int parse_run_opt(int c, const char *arg, run_options *o)
{
    switch (c) {
    case 'p':
        return run_parse_port(o, arg) ? 0 : cli_usage_error("bad --port '%s' (PROTO=PORT, e.g. dnp=3413)", arg);
    case 'n':
        o->heuristics = false;
        return 0;
    case 'o':
        return run_parse_option(o, arg) ? 0 : cli_usage_error("bad --option '%s' (pcaptool options lists them)", arg);
    case 'P':
        return parse_profile(arg, o) ? 0 : cli_usage_error("bad --profile '%s' (either, reference or spec)", arg);
    default:
        return -1;
    }
}

void cli_markdown_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

/* where packets come from (CLI_INPUT): -1 when c is not one of them, else
   0 or EXIT_USAGE */
#define INPUT_SHORT_OPTS "i:f:c:a:w:l"
static const struct option input_long_opts[] = {
    {"interface", required_argument, NULL, 'i'}, {"capture-filter", required_argument, NULL, 'f'},
    {"count", required_argument, NULL, 'c'}, {"autostop", required_argument, NULL, 'a'},
    {"write", required_argument, NULL, 'w'}, {"line-buffered", no_argument, NULL, 'l'},
    {NULL, 0, NULL, 0}};
static int parse_input_opt(int c, const char *arg, cli_input *in);

/* -Y FILTER (CLI_FILTER): compiled into *df (a second -Y replaces the
   first, as in tshark); a mistake is EXIT_USAGE with its column shown */
static int parse_display_filter(const char *arg, dfilter **df)
{
    char err[256];
    int col, width;
    dfilter *d = dfilter_compile(arg, err, sizeof err, &col, &width);
    if (!d) {
        dfilter_print_error(stderr, arg, err, col, width);
        return EXIT_USAGE;
    }
    dfilter_free(*df);
    *df = d;
    return 0;
}

#define CLI_MAX_OPTS 40

/* append the options of table `from` to `to` (n used so far); more than
   CLI_MAX_OPTS is a mistake in a subcommand's table, caught by any run */
static int add_opts(struct option *to, int n, const struct option *from)
{
    for (; from && from->name; from++) {
        if (n == CLI_MAX_OPTS)
            g_error("pcaptool %s: more than %d options", cli_cmd, CLI_MAX_OPTS);
        to[n++] = *from;
    }
    return n;
}

int cli_parse(int argc, char **argv, const cli_spec *spec, void *ctx, cli_common *common)
{
    static const struct option help[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    static const struct option fail_on[] = {{"fail-on", required_argument, NULL, 'F'}, {NULL, 0, NULL, 0}};
    static const struct option filter[] = {{"display-filter", required_argument, NULL, 'Y'}, {NULL, 0, NULL, 0}};
    struct option longopts[CLI_MAX_OPTS + 1];
    int n = add_opts(longopts, 0, spec->long_opts);
    n = add_opts(longopts, n, help);
    if (spec->takes & CLI_RUN)
        n = add_opts(longopts, n, run_long_opts);
    if (spec->takes & CLI_FAIL_ON)
        n = add_opts(longopts, n, fail_on);
    if (spec->takes & CLI_INPUT)
        n = add_opts(longopts, n, input_long_opts);
    if (spec->takes & CLI_FILTER)
        n = add_opts(longopts, n, filter);
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    char shortopts[64];
    if ((size_t)snprintf(shortopts, sizeof shortopts, ":%sh%s%s%s", spec->short_opts ? spec->short_opts : "",
                         spec->takes & CLI_RUN ? RUN_SHORT_OPTS : "",
                         spec->takes & CLI_INPUT ? INPUT_SHORT_OPTS : "",
                         spec->takes & CLI_FILTER ? "Y:" : "") >= sizeof shortopts)
        g_error("pcaptool %s: too many short options", cli_cmd);

    run_options_init(&common->ro);
    common->fail_on = GW_SEV_ERROR + 1;
    common->in = (cli_input){0};
    common->filter = NULL;
    int c, rc;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == ':' || c == '?')
            return cli_getopt_error(c, argv);
        if (c == 'h')
            return cli_help(spec->usage);
        if (c == 'Y' && (spec->takes & CLI_FILTER))
            rc = parse_display_filter(optarg, &common->filter);
        else if (c == 'F' && (spec->takes & CLI_FAIL_ON))
            rc = parse_fail_on(optarg, &common->fail_on)
                     ? 0 : cli_usage_error("bad --fail-on '%s' (error, warning, note or never)", optarg);
        else if ((spec->takes & CLI_RUN) && (rc = parse_run_opt(c, optarg, &common->ro)) >= 0)
            ;
        else if ((spec->takes & CLI_INPUT) && (rc = parse_input_opt(c, optarg, &common->in)) >= 0)
            ;
        else
            rc = spec->own ? spec->own(ctx, c, optarg) : cli_getopt_error('?', argv);
        if (rc) {
            dfilter_free(common->filter);
            common->filter = NULL;
            return rc;
        }
    }
    return CLI_GO;
}

/* ---- inputs --------------------------------------------------------------- */

static int parse_input_opt(int c, const char *arg, cli_input *in)
{
    char *end;
    switch (c) {
    case 'i': in->iface = arg; return 0;
    case 'f':
        if (strcmp(arg, "json") == 0 || strcmp(arg, "text") == 0)
            return cli_usage_error("-f is the capture filter (as in tshark); the output format is "
                                   "-T or --format %s", arg);
        in->filter = arg;
        return 0;
    case 'c': {
        unsigned long n = strtoul(arg, &end, 10);
        if (*end || !*arg || n < 1 || n > 4000000000ul)
            return cli_usage_error("bad --count '%s' (a number of packets)", arg);
        in->count = (unsigned)n;
        return 0;
    }
    case 'a':
        if (strncmp(arg, "duration:", 9) == 0) {
            in->duration = strtod(arg + 9, &end);
            if (!*end && in->duration > 0 && in->duration <= 31536000)
                return 0;
        }
        return cli_usage_error("bad --autostop '%s' (duration:SECONDS)", arg);
    case 'w':
        if (strcmp(arg, "-") == 0)
            return cli_usage_error("-w - : the packets cannot share standard output with the report");
        in->save = arg;
        return 0;
    case 'l': in->line_buffered = true; return 0;
    default: return -1;
    }
}

int cli_check_inputs(const cli_input *in, int n_files)
{
    if (in->iface && n_files)
        return cli_usage_error("either capture files or -i INTERFACE, not both");
    if (!in->iface && !n_files)
        return cli_usage_error("needs a capture file ('-' for standard input) or -i INTERFACE");
    if (!in->iface && (in->filter || in->duration || in->save))
        return cli_usage_error("-f, -a and -w are for a live capture (-i INTERFACE)");
    return EXIT_CLEAN;
}

int cli_read(const cli_input *in, run_options *ro, const char *path, const run_consumer *c,
             unsigned *max_sev, char *why, size_t whysz)
{
    char err[320] = "";
    const char *name = path ? path : in->iface;
    ro->count = in->count;
    ro->save = NULL;
    int rc;
    if (path) {
        rc = run_file(ro, path, c, max_sev, err, sizeof err);
    } else {
        cap_reader *cr = cap_open_live(in->iface, in->filter, err, sizeof err);
        if (!cr) {
            fprintf(stderr, "pcaptool: %s: cannot capture: %s\n", name, err);
            if (why)
                snprintf(why, whysz, "cannot capture: %s", err);
            return -1;
        }
        cap_writer *w = NULL;
        if (in->save && !(w = cap_writer_open(in->save, err, sizeof err))) {
            fprintf(stderr, "pcaptool: %s: cannot write: %s\n", in->save, err);
            cap_close(cr);
            if (why)
                snprintf(why, whysz, "cannot write %s: %s", in->save, err);
            return -1;
        }
        if (in->duration)
            cap_stop_after(cr, in->duration);
        ro->save = w;
        /* as tshark says it: the capture runs from here, a test may send */
        fprintf(stderr, "Capturing on '%s'\n", in->iface);
        rc = run_capture(ro, cr, c, max_sev, err, sizeof err);
        unsigned n = cap_count(cr), dropped = 0;
        bool known = cap_live_drops(cr, &dropped);
        cap_close(cr);
        ro->save = NULL;
        fprintf(stderr, "%u packet%s captured", n, n == 1 ? "" : "s");
        if (known)
            fprintf(stderr, ", %u dropped", dropped);
        fputc('\n', stderr);
        char werr[200];
        if (w && !cap_writer_close(w, werr, sizeof werr) && rc >= 0) {
            snprintf(err, sizeof err, "cannot write %s: %s", in->save, werr);
            rc = -1;
        }
    }
    if (rc) {
        fprintf(stderr, "pcaptool: %s: %s%s\n", name, rc > 0 ? "warning: " : "", err);
        if (why)
            snprintf(why, whysz, "%s", err);
    }
    return rc < 0 ? -1 : 0;
}

/* ---- output --------------------------------------------------------------- */

/* an anonymous temporary file in $TMPDIR (default /tmp); NULL and *err */
FILE *cli_temp_file(int *err)
{
    char *path = g_build_filename(g_get_tmp_dir(), "pcaptool-XXXXXX", NULL);
    int fd = g_mkstemp(path);
    FILE *f = NULL;
    if (fd >= 0) {
        unlink(path);
        f = fdopen(fd, "w+");
        if (!f)
            close(fd);
    }
    if (!f)
        *err = errno ? errno : EIO;
    g_free(path);
    return f;
}

static int stdout_errno;
static FILE *devnull;

void cli_report_to(int where)
{
    if (where == 2) {
        if (!devnull)
            devnull = fopen("/dev/null", "w");
        cli_report = devnull ? devnull : stderr;
    } else {
        cli_report = where ? stderr : stdout;
    }
}

bool cli_stdout_failed(void)
{
    if (!ferror(stdout))
        return false;
    if (!stdout_errno) {
        stdout_errno = errno ? errno : EIO;
        cap_request_stop(-1);
    }
    return true;
}

FILE *cli_open_report(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f)
        fprintf(stderr, "pcaptool: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

bool cli_close_report(FILE *f, const char *path)
{
    if (f == stdout) {
        if (fflush(stdout) != 0 && !stdout_errno)
            stdout_errno = errno;
        return !cli_stdout_failed() && !stdout_errno;
    }
    int e = 0;
    if (fflush(f) != 0)
        e = errno;
    if (ferror(f) && !e)
        e = EIO;
    if (fclose(f) != 0 && !e)
        e = errno;
    if (e)
        fprintf(stderr, "pcaptool: cannot write %s: %s\n", path, strerror(e));
    return !e;
}

int cli_finish(int status)
{
    if (fflush(stdout) != 0 && !stdout_errno)
        stdout_errno = errno;
    cli_stdout_failed();
    if (stdout_errno) {
        fprintf(stderr, "pcaptool: cannot write to standard output: %s\n", strerror(stdout_errno));
        return EXIT_USAGE;
    }
    int sig = cap_stop_signal();
    if (sig > 0)
        return 128 + sig;
    return status;
}
