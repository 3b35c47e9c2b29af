/* pcaptool.h - what the subcommands share: exit codes and option parsing. */
#ifndef PCAPTOOL_H
#define PCAPTOOL_H

#include <stdbool.h>

#include "output.h"
#include "run.h"

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

/* "pcaptool: <message>" and a hint on stderr; returns EXIT_USAGE */
int die_usage(const char *fmt, const char *arg);
/* error|warning|note|never -> severity + 1 that fails (0: never) */
bool parse_fail_on(const char *arg, unsigned *fail_on);
/* --profile reference|spec: sets every protocol's profile option */
bool parse_profile(const char *arg);
/* --format text|json */
bool parse_format(const char *arg, out_format *f);

/* the options decode and validate share, for getopt_long */
#define RUN_SHORT_OPTS "p:no:"
#define RUN_LONG_OPTS \
    {"port", required_argument, NULL, 'p'}, {"no-heuristics", no_argument, NULL, 'n'}, \
    {"option", required_argument, NULL, 'o'}, {"profile", required_argument, NULL, 'P'}, \
    {"fail-on", required_argument, NULL, 'F'}
/* handles one of them; returns -1 when c is not one, else 0 or EXIT_USAGE */
int parse_run_opt(int c, const char *arg, run_options *o, unsigned *fail_on);

/* pcaptool stats (stats.c) */
int cmd_stats(int argc, char **argv);

#endif
