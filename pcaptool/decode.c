/* decode.c - pcaptool decode: every PDU of the known protocols, as text
 * (a line each, or every field with -V) or JSON Lines. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "pcaptool.h"
#include "run.h"

/* decode: every PDU printed */
typedef struct {
    out_pdu *out;
    out_format format;
    int verbose;
    bool quiet, flush;
    char *file_json; /* the current file's name as a JSON string */
    dfilter_eval *filter; /* -Y: only the PDUs it selects are printed and fail the run */
    unsigned shown_sev;   /* with -Y: the highest severity + 1 of what it selected */
} decode_out;

static const gw_sink *decode_begin(void *ctx, const gw_protocol *p)
{
    decode_out *d = ctx;
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
    if (d->filter) {
        if (!out_pdu_selected(d->out, d->filter))
            return 0;
        if (out_pdu_max_severity(d->out) > d->shown_sev)
            d->shown_sev = out_pdu_max_severity(d->out);
    }
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
    if (d->filter) {
        if (!dfilter_match_finding(d->filter, p, index))
            return;
        if ((unsigned)fd->severity + 1 > d->shown_sev)
            d->shown_sev = (unsigned)fd->severity + 1;
    }
    if (!d->quiet) {
        out_meta mm = *m;
        mm.file_json = d->file_json;
        out_pdu_flush(d->out, stdout); /* the records before it */
        out_finding_write(stdout, d->format, &mm, fd);
        decode_wrote(d);
    }
}

static void decode_usage(FILE *f)
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
          "  -Y, --display-filter FILTER  print only the PDUs FILTER selects (tshark's\n"
          "                               syntax, e.g. 'dnp.seq > 3 and not dnp.command ==\n"
          "                               \"Link up\"'; pcaptool fields lists the fields);\n"
          "                               findings of the others do not fail the run\n"
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
          "  -o, --option PROTO.NAME=VAL  set a decoder option (pcaptool options), e.g.\n"
          "                               dnp.update_layout=spec\n"
          "      --profile either|reference|spec\n"
          "                               what the text or the reference allows passes\n"
          "                               (default), or strictly by the reference\n"
          "                               implementations or the published texts\n"
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

static int decode_opt(void *ctx, int c, const char *arg)
{
    decode_out *d = ctx;
    switch (c) {
    case 'T':
        if (!parse_format(arg, &d->format))
            return cli_usage_error("unknown format '%s' (text or json)", arg);
        return 0;
    case 'V': d->verbose = 1; return 0;
    default: d->quiet = true; return 0; /* 'q' */
    }
}

static int run_decode(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'T'},
        {"verbose", no_argument, NULL, 'V'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const cli_spec spec = {"T:Vq", longopts, CLI_RUN | CLI_FAIL_ON | CLI_INPUT | CLI_FILTER, decode_opt,
                                  decode_usage};
    decode_out d = {.format = OUT_TEXT};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &d, &cc);
    if (rc != CLI_GO)
        return rc;
    if (d.verbose && d.format == OUT_JSON)
        rc = cli_usage_error("-V is for the text output (JSON always has every field)");
    else if (d.verbose && d.quiet)
        rc = cli_usage_error("-V and -q exclude each other");
    else
        rc = cli_check_inputs(&cc.in, argc - optind);
    if (rc) {
        dfilter_free(cc.filter);
        return rc;
    }
    if (cc.filter)
        d.filter = dfilter_eval_new(cc.filter);

    static char outbuf[1 << 20];
    d.flush = cc.in.line_buffered || isatty(STDOUT_FILENO);
    if (!d.flush && d.format == OUT_JSON) /* records wait in d.out's buffer and go 64 KiB at a */
        setvbuf(stdout, NULL, _IONBF, 0);  /* time: stdio's buffer would only copy them again */
    else if (!d.flush)
        setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    cap_install_signals();
    d.out = out_pdu_new();
    out_pdu_labels(d.out, d.verbose);
    out_pdu_hold(d.out, !d.flush); /* written 64 KiB at a time, unless line by line */
    run_consumer cons = {&d, decode_begin, decode_end, decode_finding, NULL, NULL};
    unsigned max_sev = 0;
    int status = EXIT_CLEAN;
    int n_files = argc - optind;
    for (int i = optind; i < argc || (cc.in.iface && i == optind); i++) {
        const char *path = cc.in.iface ? NULL : argv[i];
        const char *name = path ? path : cc.in.iface;
        GString *js = g_string_new(NULL);
        out_json_gstring(js, (const uint8_t *)name, strlen(name));
        d.file_json = g_string_free(js, FALSE);
        if (n_files > 1 && d.format == OUT_TEXT && !d.quiet)
            printf("%s==> %s <==\n", i > optind ? "\n" : "", name);
        if (cli_read(&cc.in, &cc.ro, path, &cons, &max_sev, NULL, 0) < 0)
            status = EXIT_USAGE;
        out_pdu_flush(d.out, stdout);
        g_free(d.file_json);
        d.file_json = NULL;
        if (cap_stop_requested())
            break;
    }
    out_pdu_free(d.out);
    if (d.filter)
        max_sev = d.shown_sev;
    dfilter_eval_free(d.filter);
    dfilter_free(cc.filter);
    if (status == EXIT_CLEAN && cc.fail_on && max_sev >= cc.fail_on)
        status = EXIT_FINDINGS;
    return cli_finish(status);
}

const subcommand cmd_decode = {"decode", "FILE...", "decode every PDU of the known protocols", run_decode,
                               decode_usage};

