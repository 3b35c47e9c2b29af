/* pcaptool.h - what the subcommands share: exit codes, the table of
 * subcommands, option parsing and errors, where reports go, the inputs
 * (files, standard input, a live interface) and the checks that every write
 * reached its destination. */
#ifndef PCAPTOOL_H
#define PCAPTOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "capture.h"
#include "output.h"
#include "run.h"

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f);
} subcommand;

/* "pcaptool CMD: <message> (see pcaptool CMD --help)" on stderr; returns
   EXIT_USAGE. cli_cmd is the subcommand being run. */
extern const char *cli_cmd;
int cli_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* the error getopt_long reported (opterr is 0, optstring starts with ':') */
int cli_getopt_error(int c, char **argv);
/* the -h/--help of the current subcommand: its usage on stdout */
int cli_help(void (*usage)(FILE *f));

/* error|warning|note|never -> severity + 1 that fails (0: never) */
bool parse_fail_on(const char *arg, unsigned *fail_on);
/* --profile reference|spec: sets every protocol's profile option */
bool parse_profile(const char *arg);
/* --format text|json */
bool parse_format(const char *arg, out_format *f);

/* the options that choose protocols, for getopt_long */
#define RUN_SHORT_OPTS "p:no:"
#define RUN_LONG_OPTS \
    {"port", required_argument, NULL, 'p'}, {"no-heuristics", no_argument, NULL, 'n'}, \
    {"option", required_argument, NULL, 'o'}, {"profile", required_argument, NULL, 'P'}
/* handles one of them; returns -1 when c is not one, else 0 or EXIT_USAGE */
int parse_run_opt(int c, const char *arg, run_options *o);
#define FAIL_ON_LONG_OPT {"fail-on", required_argument, NULL, 'F'}

/* The options every command shares, at getopt_long's `default:` (c is what
   it returned): getopt's errors, --fail-on (fail_on may be NULL: no such
   option), the protocol options, the input options (in may be NULL).
   0, or EXIT_USAGE with the message printed. */
typedef struct cli_input cli_input;
int cli_common_opt(int c, char **argv, run_options *ro, unsigned *fail_on, cli_input *in);

/* Where the packets come from: files (or "-"), or a live interface, and
   how output goes: -i IFACE, -f BPF, -c COUNT, -a duration:SEC, -w FILE,
   -l. */
struct cli_input {
    const char *iface, *filter, *save;
    unsigned count;
    double duration;
    bool line_buffered; /* -l, or standard output is a terminal */
};
#define INPUT_SHORT_OPTS "i:f:c:a:w:l"
#define INPUT_LONG_OPTS \
    {"interface", required_argument, NULL, 'i'}, {"capture-filter", required_argument, NULL, 'f'}, \
    {"count", required_argument, NULL, 'c'}, {"autostop", required_argument, NULL, 'a'}, \
    {"write", required_argument, NULL, 'w'}, {"line-buffered", no_argument, NULL, 'l'}
/* returns -1 when c is not one of them, else 0 or EXIT_USAGE */
int parse_input_opt(int c, const char *arg, cli_input *in);
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

/* the subcommands */
int cmd_decode(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_replay(int argc, char **argv);
void decode_usage(FILE *f);
void validate_usage(FILE *f);
void stats_usage(FILE *f);
void replay_usage(FILE *f);

#endif
