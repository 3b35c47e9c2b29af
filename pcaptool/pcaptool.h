/* pcaptool.h - what the subcommands share: exit codes, the table of
 * subcommands, option parsing and errors, where reports go, the inputs
 * (files, standard input, a live interface) and the checks that every write
 * reached its destination. */
#ifndef PCAPTOOL_H
#define PCAPTOOL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "capture.h"
#include "dfilter.h"
#include "output.h"
#include "run.h"

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

/* a subcommand: its name, what it takes and does (pcaptool --help lists
   them), how it runs (argv[0] is its name) and its --help */
typedef struct {
    const char *name;
    const char *operands; /* "FILE...", "[PROTO]" */
    const char *summary;  /* one line or more, '\n' between them */
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f);
} subcommand;

/* "pcaptool CMD: <message> (see pcaptool CMD --help)" on stderr; returns
   EXIT_USAGE. cli_cmd is the subcommand being run. */
extern const char *cli_cmd;
int cli_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* --side client|server: 0 client, 1 server in *side; or the usage error */
int cli_side_arg(const char *arg, int *side);
/* "pcaptool" and the subcommand's argv (argv[0] the subcommand), each
   quoted for a shell where it needs it (g_free it) */
char *cli_command_line(int argc, char **argv);
/* the error getopt_long reported (opterr is 0, optstring starts with ':') */
int cli_getopt_error(int c, char **argv);
/* the -h/--help of the current subcommand: its usage on stdout */
int cli_help(void (*usage)(FILE *f));

/* error|warning|note|never -> severity + 1 that fails (0: never) */
bool parse_fail_on(const char *arg, unsigned *fail_on);
/* --profile either|reference|spec: sets every protocol's profile option in o */
bool parse_profile(const char *arg, run_options *o);
/* --format text|json */
bool parse_format(const char *arg, out_format *f);

/* Where the packets come from: files (or "-"), or a live interface, and
   how output goes: -i IFACE, -f BPF, -c COUNT, -a duration:SEC, -w FILE,
   -l. */
struct cli_input {
    const char *iface, *filter, *save;
    unsigned count;
    double duration;
    bool line_buffered; /* -l, or standard output is a terminal */
};
typedef struct cli_input cli_input;

/* ---- parsing a subcommand's options ---------------------------------------- */

/* the groups of options a subcommand takes beside its own */
enum {
    CLI_RUN = 1,     /* -p, -n, -o, --profile: which protocols, how (run_options) */
    CLI_FAIL_ON = 2, /* --fail-on */
    CLI_INPUT = 4,   /* -i, -f, -c, -a, -w, -l: where packets come from (cli_input) */
    CLI_FILTER = 8,  /* -Y, --display-filter: which PDUs count (dfilter.h) */
};
/* what those set, ready with their defaults before the parsing */
typedef struct {
    run_options ro;
    unsigned fail_on; /* the severity + 1 that fails (default error; 0: never) */
    cli_input in;
    dfilter *filter;  /* -Y (compiled), or NULL: every PDU; the subcommand frees it */
} cli_common;
/* a subcommand's own options */
typedef struct {
    const char *short_opts;         /* getopt style, e.g. "T:Vq" (-h is added) */
    const struct option *long_opts; /* ended by {NULL}; NULL: none (--help is added) */
    unsigned takes;                 /* CLI_* groups */
    /* one of its own options, c as getopt_long returns it: 0, or EXIT_USAGE
       with the message printed (cli_usage_error); NULL: it has none */
    int (*own)(void *ctx, int c, const char *arg);
    void (*usage)(FILE *f);         /* -h, --help */
} cli_spec;
/* Parse argv's options (argv[0] is the subcommand) by spec into ctx (own
   options) and common (the groups). CLI_GO: go on with the operands from
   argv[optind]; otherwise the exit status to return (the help was shown,
   or a usage error printed). */
#define CLI_GO (-1)
int cli_parse(int argc, char **argv, const cli_spec *spec, void *ctx, cli_common *common);
/* after the options: files or -i (not both, at least one); EXIT_CLEAN or
   EXIT_USAGE (message printed) */
int cli_check_inputs(const cli_input *in, int n_files);
/* Read one input (a file path, or the live interface when path is NULL)
   through c. Returns 0, or -1 when it could not be read (the one-line
   reason printed: "pcaptool: PATH: REASON"); the reason is also copied to
   why (may be NULL). A warning (packets of an unsupported link type) is
   printed and not an error. */
int cli_read(const cli_input *in, run_options *ro, const char *path, const run_consumer *c,
             unsigned *max_sev, char *why, size_t whysz);

/* an anonymous (already unlinked) temporary file in $TMPDIR (default
   /tmp), open for writing and reading; NULL with the reason in *err */
FILE *cli_temp_file(int *err);

/* The human-readable report's stream: standard output, or standard error
   when a machine format takes standard output, or nothing (-q). */
extern FILE *cli_report;
void cli_report_to(int where); /* 0 stdout, 1 stderr, 2 nowhere */

/* Has writing to standard output failed? Remembers the reason; also asks
   the readers to stop (nothing more can be delivered). */
bool cli_stdout_failed(void);
/* a report file ("-": standard output) */
FILE *cli_open_report(const char *path);
/* close it (flush standard output); false and a one-line error when any
   write failed */
bool cli_close_report(FILE *f, const char *path);
/* the exit status at the end of a subcommand: standard output flushed and
   checked (a failure: one line, EXIT_USAGE), then a stop by SIGINT or
   SIGTERM (128 + signal), then status */
int cli_finish(int status);
/* print s as a markdown table cell ('|' escaped) */
void cli_markdown_cell(const char *s);

/* the subcommands, each in its own file (main.c has the table) */
extern const subcommand cmd_decode, cmd_validate, cmd_stats, cmd_replay, cmd_conform, cmd_fuzz, cmd_fields,
    cmd_findings, cmd_options, cmd_merge;

#endif
