/* main.c - pcaptool: decode and validate game-protocol traffic in capture files. */
#include <getopt.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gw_core.h"
#include "output.h"
#include "pcaptool.h"
#include "run.h"
#include "tcpstream.h"

#ifndef PCAPTOOL_VERSION
#define PCAPTOOL_VERSION "0.0.0"
#endif

static void usage(FILE *f)
{
    fputs("Usage: pcaptool COMMAND [OPTIONS] [FILE...]\n"
          "\n"
          "Decode game network protocols (DNP, OpenTTD, GNE, EOUDP, OpenDrakan) in pcap and\n"
          "pcapng files (also gzip-compressed, or '-' for standard input) and on live\n"
          "interfaces.\n"
          "\n"
          "Commands:\n"
          "  decode FILE...     decode every PDU of the known protocols\n"
          "  validate FILE|FOLDER...\n"
          "                     a verdict per capture against the protocols' rules\n"
          "                     (text, JSON Lines, JUnit XML)\n"
          "  stats FILE...      per conversation: PDUs by type, bytes, duration, findings,\n"
          "                     ack times, ping RTTs, frame lag\n"
          "  replay --target HOST:PORT FILE\n"
          "                     play one side of a recorded conversation against a live\n"
          "                     peer and judge its answers\n"
          "  fields [PROTO]     list the fields (filter names) of every protocol\n"
          "  findings [PROTO]   list the finding codes with severity and meaning\n"
          "  help [COMMAND]     this help, or a command's\n"
          "\n"
          "'pcaptool COMMAND --help' tells a command's options and exit codes.\n"
          "  --version          print the version\n"
          "\n"
          "Exit codes: 0 clean, 1 findings at or above --fail-on (or a divergence),\n"
          "2 usage error, unreadable input or output that could not be written,\n"
          "130/143 stopped by SIGINT/SIGTERM (what was read is reported).\n",
          f);
}

/* decode: every PDU printed */
typedef struct {
    out_pdu *out;
    out_format format;
    int verbose;
    bool quiet, flush;
    char *file_json; /* the current file's name as a JSON string */
} decode_out;

static const gw_sink *decode_begin(void *ctx, const gw_protocol *p, run_expect_fn fn, void *run)
{
    decode_out *d = ctx;
    out_pdu_on_expect(d->out, fn, run);
    return out_pdu_begin(d->out, p);
}

static void decode_wrote(decode_out *d)
{
    if (d->flush)
        fflush(stdout);
    cli_stdout_failed(); /* stops the reading when nothing can be written */
}

static unsigned decode_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    decode_out *d = ctx;
    (void)p;
    if (!d->quiet) {
        out_meta mm = *m;
        mm.file_json = d->file_json;
        out_pdu_write(d->out, stdout, d->format, d->verbose, &mm);
        decode_wrote(d);
    }
    return out_pdu_max_severity(d->out);
}

static void decode_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                           const out_finding *fd)
{
    decode_out *d = ctx;
    (void)p; (void)index;
    if (!d->quiet) {
        out_meta mm = *m;
        mm.file_json = d->file_json;
        out_finding_write(stdout, d->format, &mm, fd);
        decode_wrote(d);
    }
}

void decode_usage(FILE *f)
{
    fputs("Usage: pcaptool decode [OPTIONS] FILE...\n"
          "       pcaptool decode [OPTIONS] -i INTERFACE [-f FILTER] [-c N] [-a duration:S] [-w FILE]\n"
          "\n"
          "Decode every PDU of the known protocols. FILE is a pcap or pcapng file, also\n"
          "gzip-compressed; '-' reads standard input (tcpdump -U -w - | pcaptool decode -).\n"
          "\n"
          "  -T, --format text|json       output format (default text; json = JSON Lines,\n"
          "                               one record per PDU, each naming its \"file\")\n"
          "  -V, --verbose                text: show every field of every PDU\n"
          "  -q, --quiet                  print no PDU: only the exit code tells\n"
          "  -l, --line-buffered          flush after every record (the default when\n"
          "                               standard output is a terminal)\n"
          "  -c, --count N                stop after N packets\n"
          "  -i, --interface IFACE        capture live on IFACE (root or CAP_NET_RAW);\n"
          "                               Ctrl-C ends it\n"
          "  -f, --capture-filter BPF     live: a capture filter, e.g. 'udp port 3413'\n"
          "  -a, --autostop duration:S    live: stop after S seconds\n"
          "  -w, --write FILE             live: also save the packets (pcapng)\n"
          "  -p, --port PROTO=PORT        decode PROTO on PORT instead of its default port\n"
          "                               (repeat to give several ports)\n"
          "  -n, --no-heuristics          decode only on the configured ports\n"
          "  -o, --option PROTO.NAME=VAL  set a decoder option (see README), e.g.\n"
          "                               dnp.update_layout=spec\n"
          "      --profile reference|spec judge by the reference implementations\n"
          "                               (default) or by the published texts\n"
          "      --fail-on error|warning|note|never\n"
          "                               exit 1 when a finding of this severity or\n"
          "                               higher is reported (default error)\n"
          "  -h, --help                   this help\n"
          "\n"
          "Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage error, an input\n"
          "that cannot be read or is damaged (what came before the damage is decoded),\n"
          "or output that could not be written; 130/143 stopped by SIGINT/SIGTERM (what\n"
          "was read is decoded and printed).\n",
          f);
}

int cmd_decode(int argc, char **argv)
{
    run_options ro;
    run_options_init(&ro);
    cli_input in = {0};
    decode_out d = {.format = OUT_TEXT};
    unsigned fail_on = GW_SEV_ERROR + 1;
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'T'},
        {"verbose", no_argument, NULL, 'V'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        RUN_LONG_OPTS,
        FAIL_ON_LONG_OPT,
        INPUT_LONG_OPTS,
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    while ((c = getopt_long(argc, argv, ":T:Vqh" RUN_SHORT_OPTS INPUT_SHORT_OPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'T':
            if (!parse_format(optarg, &d.format))
                return cli_usage_error("unknown format '%s' (text or json)", optarg);
            break;
        case 'V': d.verbose = 1; break;
        case 'q': d.quiet = true; break;
        case 'h': return cli_help(decode_usage);
        default:
            if ((rc = cli_common_opt(c, argv, &ro, &fail_on, &in)))
                return rc;
        }
    }
    if (d.verbose && d.format == OUT_JSON)
        return cli_usage_error("-V is for the text output (JSON always has every field)");
    if (d.verbose && d.quiet)
        return cli_usage_error("-V and -q exclude each other");
    if ((rc = cli_check_inputs(&in, argc - optind)))
        return rc;

    static char outbuf[1 << 20];
    d.flush = in.line_buffered || isatty(STDOUT_FILENO);
    if (!d.flush)
        setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    cap_install_signals();
    d.out = out_pdu_new();
    run_consumer cons = {&d, decode_begin, decode_end, decode_finding};
    unsigned max_sev = 0;
    int status = EXIT_CLEAN;
    int n_files = argc - optind;
    for (int i = optind; i < argc || (in.iface && i == optind); i++) {
        const char *path = in.iface ? NULL : argv[i];
        const char *name = path ? path : in.iface;
        GString *js = g_string_new(NULL);
        out_json_gstring(js, (const uint8_t *)name, strlen(name));
        d.file_json = g_string_free(js, FALSE);
        if (n_files > 1 && d.format == OUT_TEXT && !d.quiet)
            printf("%s==> %s <==\n", i > optind ? "\n" : "", name);
        if (cli_read(&in, &ro, path, &cons, &max_sev, NULL, 0) < 0)
            status = EXIT_USAGE;
        g_free(d.file_json);
        d.file_json = NULL;
        if (cap_stop_requested())
            break;
    }
    out_pdu_free(d.out);
    if (status == EXIT_CLEAN && fail_on && max_sev >= fail_on)
        status = EXIT_FINDINGS;
    return cli_finish(status);
}

static void fields_usage(FILE *f)
{
    fputs("Usage: pcaptool fields [PROTO]\n"
          "\n"
          "List the fields of every protocol (or of PROTO: dnp, openttd, gne, eoudp,\n"
          "opendrakan), one a line: filter name, display name, description, and\n"
          "\"wireshark-two-pass\" for what only Wireshark's second pass shows.\n"
          "\n"
          "Exit codes: 0, or 2 for an unknown protocol or a usage error.\n",
          f);
}

static void findings_usage(FILE *f)
{
    fputs("Usage: pcaptool findings [--format text|markdown] [PROTO]\n"
          "\n"
          "List the finding codes of every protocol (or of PROTO, or of pcaptool's own\n"
          "\"tcp\" and \"capture\" findings, \"pcaptool\" for both), one a line: code,\n"
          "severity, meaning, and\n"
          "the Wireshark expert group (malformed, protocol, sequence, response_code,\n"
          "undecoded, comment).\n"
          "\n"
          "  -T, --format text|markdown   tab-separated lines (default), or the table\n"
          "                               the README shows (code, severity, meaning)\n"
          "  -h, --help                   this help\n"
          "\n"
          "Exit codes: 0, or 2 for an unknown protocol or a usage error.\n",
          f);
}

/* a table cell: '|' escaped */
void cli_markdown_cell(const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
}

/* code, severity, meaning, Wireshark expert group; or a markdown table row
   (own: one of pcaptool's own findings, which Wireshark does not have) */
static void print_finding(const gw_finding_def *d, bool markdown, bool own)
{
    if (!markdown) {
        printf("%s\t%s\t%s\t%s\n", d->code, gw_severity_name(d->severity), d->summary, gw_group_name(d->group));
        return;
    }
    printf("| `%s` | %s | ", d->code, gw_severity_name(d->severity));
    cli_markdown_cell(d->summary);
    fputs(own ? " (pcaptool only) |\n" : " |\n", stdout);
}

static int cmd_list(int argc, char **argv, bool fields)
{
    /* findings: --format and --help; fields: --help only (the table from its second entry) */
    static const struct option longopts[] = {{"format", required_argument, NULL, 'T'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    bool markdown = false;
    while ((c = getopt_long(argc, argv, fields ? ":h" : ":hT:", fields ? longopts + 1 : longopts, NULL)) != -1) {
        if (c == 'h')
            return cli_help(fields ? fields_usage : findings_usage);
        if (c == 'T' && !fields && (!strcmp(optarg, "text") || !strcmp(optarg, "markdown"))) {
            markdown = !strcmp(optarg, "markdown");
            continue;
        }
        if (c == 'T' && !fields)
            return cli_usage_error("--format takes text or markdown, not '%s'", optarg);
        return cli_getopt_error(c, argv);
    }
    if (argc - optind > 1)
        return cli_usage_error("takes at most one protocol ('%s' is one too many)", argv[optind + 1]);
    const char *only = optind < argc ? argv[optind] : NULL;
    /* pcaptool's own findings: "tcp", "capture", or "pcaptool" for both */
    bool own = only && (!strcmp(only, "tcp") || !strcmp(only, "capture") || !strcmp(only, "pcaptool"));
    if (only && !gw_protocol_by_name(only) && !(own && !fields))
        return cli_usage_error("unknown protocol '%s'", only);
    if (markdown)
        fputs("| code | severity | meaning |\n|---|---|---|\n", stdout);
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if (only && strcmp(only, p->name))
            continue;
        if (fields)
            for (int k = 0; k < p->n_fields; k++)
                printf("%s\t%s\t%s%s\n", p->fields[k].abbrev, p->fields[k].name, p->fields[k].blurb,
                       p->fields[k].flags & GW_FIELD_TWO_PASS ? "\twireshark-two-pass" : "");
        else
            for (int k = 0; k < p->n_findings; k++)
                print_finding(&p->findings[k], markdown, false);
    }
    if (!fields && (!only || own))
        for (int k = 0; k < RUN_N_FINDINGS; k++)
            if (!only || !strcmp(only, "pcaptool") || g_str_has_prefix(run_findings[k].code, only))
                print_finding(&run_findings[k], markdown, true);
    return cli_finish(EXIT_CLEAN);
}

static int cmd_fields(int argc, char **argv)
{
    return cmd_list(argc, argv, true);
}

static int cmd_findings(int argc, char **argv)
{
    return cmd_list(argc, argv, false);
}

static int cmd_help(int argc, char **argv);

static void help_usage(FILE *f)
{
    fputs("Usage: pcaptool help [COMMAND]\n\nThe help of pcaptool, or of COMMAND.\n"
          "\nExit codes: 0, or 2 for an unknown command.\n", f);
}

static const subcommand subcommands[] = {
    {"decode", cmd_decode, decode_usage},
    {"validate", cmd_validate, validate_usage},
    {"stats", cmd_stats, stats_usage},
    {"replay", cmd_replay, replay_usage},
    {"fields", cmd_fields, fields_usage},
    {"findings", cmd_findings, findings_usage},
    {"help", cmd_help, help_usage},
};

static const subcommand *find_subcommand(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
        if (strcmp(subcommands[i].name, name) == 0)
            return &subcommands[i];
    return NULL;
}

static int cmd_help(int argc, char **argv)
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
