/* main.c - pcaptool: decode and validate game-protocol traffic in capture files. */
#include <getopt.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gw_core.h"
#include "output.h"
#include "pcaptool.h"
#include "run.h"
#include "tcpstream.h"
#include "replay.h"
#include "validate.h"

#ifndef PCAPTOOL_VERSION
#define PCAPTOOL_VERSION "0.0.0"
#endif

static void usage(FILE *f)
{
    fputs("Usage: pcaptool COMMAND [OPTIONS] [FILE...]\n"
          "\n"
          "Decode game network protocols (DNP, OpenTTD, GNE, EOUDP, OpenDrakan) in pcap and\n"
          "pcapng files.\n"
          "\n"
          "Commands:\n"
          "  decode FILE...     decode every PDU of the known protocols\n"
          "  validate FILE|FOLDER...\n"
          "                     a verdict per capture against the protocols' rules\n"
          "                     (text, JSON Lines, JUnit XML; see validate --help)\n"
          "  stats FILE...      per conversation: PDUs by type, bytes, duration, findings,\n"
          "                     ack times, ping RTTs, frame lag (see stats --help)\n"
          "  replay --target HOST:PORT FILE\n"
          "                     play one side of a recorded conversation against a live\n"
          "                     peer and judge its answers (see replay --help)\n"
          "  fields [PROTO]     list the fields (filter names) of every protocol\n"
          "  findings [PROTO]   list the finding codes with severity and meaning\n"
          "\n"
          "Options of decode:\n"
          "  -f, --format text|json       output format (default text; json = JSON Lines)\n"
          "  -V, --verbose                text: show every field of every PDU\n"
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
          "      --version                print the version\n"
          "\n"
          "Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage error or\n"
          "unreadable input.\n",
          f);
}

int die_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "pcaptool: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'pcaptool --help'.\n");
    return EXIT_USAGE;
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

/* decode: every PDU printed */
typedef struct {
    out_pdu *out;
    out_format format;
    int verbose;
} decode_out;

static const gw_sink *decode_begin(void *ctx, const gw_protocol *p, run_expect_fn fn, void *run)
{
    decode_out *d = ctx;
    out_pdu_on_expect(d->out, fn, run);
    return out_pdu_begin(d->out, p);
}

static unsigned decode_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    decode_out *d = ctx;
    (void)p;
    out_pdu_write(d->out, stdout, d->format, d->verbose, m);
    return out_pdu_max_severity(d->out);
}

static void decode_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                           const out_finding *fd)
{
    decode_out *d = ctx;
    (void)p; (void)index;
    out_finding_write(stdout, d->format, m, fd);
}

static int cmd_list(int argc, char **argv, bool fields)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    bool own = only && (strcmp(only, "tcp") == 0 || strcmp(only, "capture") == 0);
    if (only && !gw_protocol_by_name(only) && !(own && !fields))
        return die_usage("unknown protocol '%s'", only);
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
                printf("%s\t%s\t%s\n", p->findings[k].code,
                       gw_severity_name(p->findings[k].severity), p->findings[k].summary);
    }
    if (!fields && (!only || own))
        for (int k = 0; k < RUN_N_FINDINGS; k++)
            if (!only || g_str_has_prefix(run_findings[k].code, only))
                printf("%s\t%s\t%s\n", run_findings[k].code,
                       gw_severity_name(run_findings[k].severity), run_findings[k].summary);
    return EXIT_CLEAN;
}

bool parse_profile(const char *arg)
{
    const gw_choice *c = gw_profile_choices;
    while (c->token && strcmp(c->token, arg))
        c++;
    if (!c->token)
        return false;
    for (int i = 0; gw_protocols[i]; i++)
        for (int k = 0; k < gw_protocols[i]->n_options; k++)
            if (strcmp(gw_protocols[i]->options[k].name, "profile") == 0)
                *gw_protocols[i]->options[k].value = c->value;
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

int parse_run_opt(int c, const char *arg, run_options *o, unsigned *fail_on)
{
    switch (c) {
    case 'p':
        return run_parse_port(o, arg) ? 0 : die_usage("bad --port '%s' (PROTO=PORT, e.g. dnp=3413)", arg);
    case 'n':
        o->heuristics = false;
        return 0;
    case 'o':
        return run_parse_option(arg) ? 0 : die_usage("bad --option '%s' (see README for the options)", arg);
    case 'P':
        return parse_profile(arg) ? 0 : die_usage("bad --profile '%s' (reference or spec)", arg);
    case 'F':
        return parse_fail_on(arg, fail_on) ? 0 : die_usage("bad --fail-on '%s'", arg);
    default:
        return -1;
    }
}

static int cmd_decode(int argc, char **argv)
{
    run_options ro;
    run_options_init(&ro);
    decode_out d = {.format = OUT_TEXT};
    unsigned fail_on = GW_SEV_ERROR + 1;
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"verbose", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        RUN_LONG_OPTS,
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:Vh" RUN_SHORT_OPTS, longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!parse_format(optarg, &d.format))
                return die_usage("unknown format '%s' (text or json)", optarg);
            break;
        case 'V': d.verbose = 1; break;
        case 'h': usage(stdout); return EXIT_CLEAN;
        default:
            rc = parse_run_opt(c, optarg, &ro, &fail_on);
            if (rc < 0)
                return die_usage("%s", "bad option");
            if (rc)
                return rc;
        }
    }
    if (optind >= argc)
        return die_usage("%s", "decode needs at least one capture file");

    static char outbuf[1 << 20];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    d.out = out_pdu_new();
    run_consumer cons = {&d, decode_begin, decode_end, decode_finding};
    unsigned max_sev = 0;
    int status = EXIT_CLEAN;
    for (int i = optind; i < argc; i++)
        if (run_file(&ro, argv[i], &cons, &max_sev) < 0)
            status = EXIT_USAGE;
    out_pdu_free(d.out);
    fflush(stdout);
    if (status == EXIT_CLEAN && fail_on && max_sev >= fail_on)
        status = EXIT_FINDINGS;
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return EXIT_CLEAN;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pcaptool %s (libpcap: %s)\n", PCAPTOOL_VERSION, pcap_lib_version());
        return EXIT_CLEAN;
    }
    if (strcmp(cmd, "decode") == 0)
        return cmd_decode(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "stats") == 0)
        return cmd_stats(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "fields") == 0)
        return cmd_list(argc - 1, argv + 1, true);
    if (strcmp(cmd, "findings") == 0)
        return cmd_list(argc - 1, argv + 1, false);
    return die_usage("unknown command '%s'", cmd);
}
