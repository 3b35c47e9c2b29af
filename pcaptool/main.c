/* main.c - pcaptool: the table of subcommands, pcaptool's own help, and
 * the dispatch to a subcommand (each in its own file, see pcaptool.h). */
#include <getopt.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "pcaptool.h"

#ifndef PCAPTOOL_VERSION
#define PCAPTOOL_VERSION "0.0.0"
#endif

static const subcommand cmd_help;

static const subcommand *const subcommands[] = {
    &cmd_decode, &cmd_validate, &cmd_stats, &cmd_replay, &cmd_conform, &cmd_fuzz, &cmd_merge, &cmd_fields, &cmd_findings, &cmd_options, &cmd_help,
};

/* "  NAME OPERANDS" and the summary from column 22, on the next line when
   they do not fit before it */
static void list_subcommand(FILE *f, const subcommand *s)
{
    int n = fprintf(f, "  %s %s", s->name, s->operands);
    const char *line = s->summary;
    if (n > 19) {
        fputc('\n', f);
        n = 0;
    }
    for (;;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(f, "%*s%.*s\n", 21 - n, "", len, line);
        if (!nl)
            break;
        line = nl + 1;
        n = 0;
    }
}

static void usage(FILE *f)
{
    fputs("Usage: pcaptool COMMAND [OPTIONS] [FILE...]\n"
          "\n"
          "Decode game network protocols (DNP, OpenTTD, GNE, EOUDP, OpenDrakan) in pcap and\n"
          "pcapng files (also gzip-compressed, or '-' for standard input) and on live\n"
          "interfaces.\n"
          "\n"
          "Commands:\n",
          f);
    for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
        list_subcommand(f, subcommands[i]);
    fputs("\n"
          "'pcaptool COMMAND --help' tells a command's options and exit codes.\n"
          "  --version          print the version\n"
          "\n"
          "Exit codes: 0 clean, 1 findings at or above --fail-on (or a divergence),\n"
          "2 usage error, unreadable input or output that could not be written,\n"
          "130/143 stopped by SIGINT/SIGTERM (what was read is reported).\n"
          "\n"
          "The manual: man pcaptool.\n",
          f);
}

static const subcommand *find_subcommand(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
        if (strcmp(subcommands[i]->name, name) == 0)
            return subcommands[i];
    return NULL;
}

static void help_usage(FILE *f)
{
    fputs("Usage: pcaptool help [COMMAND]\n\nThe help of pcaptool, or of COMMAND.\n"
          "\nExit codes: 0, or 2 for an unknown command.\n", f);
}

static int run_help(int argc, char **argv)
{
    if (argc > 2)
        return cli_usage_error("takes at most one command");
    if (argc < 2) {
        usage(stdout);
        return cli_finish(EXIT_CLEAN);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cli_help(help_usage);
    const subcommand *s = find_subcommand(argv[1]);
    if (!s)
        return cli_usage_error("unknown command '%s'", argv[1]);
    s->usage(stdout);
    return cli_finish(EXIT_CLEAN);
}

static const subcommand cmd_help = {"help", "[COMMAND]", "this help, or a command's", run_help, help_usage};

int main(int argc, char **argv)
{
    cli_report = stdout;
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return cli_finish(EXIT_CLEAN);
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pcaptool %s (libpcap: %s; zlib %s)\n", PCAPTOOL_VERSION, pcap_lib_version(), zlibVersion());
        return cli_finish(EXIT_CLEAN);
    }
    const subcommand *s = find_subcommand(cmd);
    if (!s) {
        fprintf(stderr, "pcaptool: unknown command '%s' (see pcaptool --help)\n", cmd);
        return EXIT_USAGE;
    }
    cli_cmd = s->name;
    opterr = 0;
    optind = 1;
    return s->run(argc - 1, argv + 1);
}
