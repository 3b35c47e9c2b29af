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
#include "tshark.h"

/* decode: every PDU printed */
typedef struct {
    out_pdu *out;
    out_format format;
    int verbose;
    bool quiet, flush;
    char *file_json; /* the current file's name as a JSON string */
    dfilter_eval *filter; /* -Y: only the PDUs it selects are printed and fail the run */
    tf_spec *fields;  /* -T fields: the -e fields and -E options (NULL: not asked) */
    bool as_fields;   /* -T fields */
    ts_format times;  /* -t */
    int64_t shown_ns; /* the time of the last record shown (OUT_NO_TIME: none yet) */
    unsigned limit, pdus; /* -c: print this many PDUs (0: all); how many were */
    unsigned max_sev; /* with -c or -Y: of what was shown */
} decode_out;

/* with -c: has the last PDU to show been shown? */
static bool decode_done(const decode_out *d)
{
    return d->limit && d->pdus >= d->limit;
}

/* the record's time as -t shows it, into buf (NULL: pcaptool's own) */
static const char *decode_time(decode_out *d, const out_meta *m, char *buf, size_t n)
{
    const char *t = d->times ? ts_text(buf, n, d->times, m, d->shown_ns) : NULL;
    d->shown_ns = m->time_ns;
    return t;
}

static gw_sink *decode_begin(void *ctx, const gw_protocol *p)
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
    if (decode_done(d)) /* the rest of the frame that brought the last one */
        return 0;
    if (d->filter && !out_pdu_selected(d->out, d->filter))
        return 0;
    if (!d->quiet) {
        out_meta mm = *m;
        char tt[64];
        mm.file_json = d->file_json;
        if (d->as_fields) {
            tf_write(d->fields, stdout, d->out, p, &mm, d->shown_ns);
            d->shown_ns = m->time_ns;
        } else {
            mm.time_text = decode_time(d, m, tt, sizeof tt);
            out_pdu_write(d->out, stdout, d->format, d->verbose, &mm);
        }
        decode_wrote(d);
    }
    unsigned sev = out_pdu_max_severity(d->out);
    if (sev > d->max_sev)
        d->max_sev = sev;
    if (++d->pdus == d->limit) /* -c: as if the capture ended here, but saying nothing more */
        cap_request_stop(-1);
    return sev;
}

static void decode_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                           const out_finding *fd)
{
    decode_out *d = ctx;
    if (decode_done(d))
        return;
    if (d->filter && !dfilter_match_finding(d->filter, p, index))
        return;
    if (!d->quiet && !d->as_fields) { /* -T fields: a line per PDU, none for a finding alone */
        out_meta mm = *m;
        char tt[64];
        mm.file_json = d->file_json;
        mm.time_text = decode_time(d, m, tt, sizeof tt);
        out_pdu_flush(d->out, stdout); /* the records before it */
        out_finding_write(stdout, d->format, &mm, fd);
        decode_wrote(d);
    }
    if ((unsigned)fd->severity + 1 > d->max_sev)
        d->max_sev = (unsigned)fd->severity + 1;
}

static void decode_usage(FILE *f)
{
    fputs("Usage: pcaptool decode [OPTIONS] FILE...\n"
          "       pcaptool decode [OPTIONS] -i INTERFACE [-f FILTER] [-c N] [-a duration:S] [-w FILE]\n"
          "\n"
          "Decode every PDU of the known protocols. FILE is a pcap or pcapng file, also\n"
          "gzip-compressed; '-' reads standard input (tcpdump -U -w - | pcaptool decode -).\n"
          "\n"
          "  -T, --format text|json|fields\n"
          "                               output format (default text, a line per PDU;\n"
          "                               json = JSON Lines, one record per PDU, each\n"
          "                               naming its \"file\"; fields = the -e fields, a\n"
          "                               line per PDU, as tshark -T fields prints them)\n"
          "  -e FIELD                     -T fields: a field to print (repeat: one column\n"
          "                               each): a filter name (pcaptool fields), a\n"
          "                               protocol, frame.number, frame.time,\n"
          "                               frame.time_epoch, frame.time_relative,\n"
          "                               frame.time_delta, frame.time_delta_displayed,\n"
          "                               _ws.col.Protocol, _ws.col.Info, _ws.col.Source,\n"
          "                               _ws.col.Destination\n"
          "  -E header=y|n | separator=/t|/s|C | occurrence=f|l|a | aggregator=,|/s|C |\n"
          "     quote=d|s|n               -T fields, as tshark's -E: a header line (n);\n"
          "                               between columns (tab); which of several values\n"
          "                               of a field (all); between them (,); quotes (none)\n"
          "  -t r|a|ad|adoy|d|dd|e|u|ud|udoy\n"
          "                               text: the time as tshark's -t shows it (relative\n"
          "                               to the first frame, absolute, with the date or\n"
          "                               the day of the year, delta from the frame\n"
          "                               before or from the record shown before, epoch;\n"
          "                               u: in UTC), with the capture's digits; default:\n"
          "                               seconds since the epoch, nine digits\n"
          "  -V, --verbose                text: show every field of every PDU\n"
          "  -Y, --display-filter FILTER  print only the PDUs FILTER selects (tshark's\n"
          "                               syntax, e.g. 'dnp.seq > 3 and not dnp.command ==\n"
          "                               \"Link up\"'; pcaptool fields lists the fields);\n"
          "                               findings of the others do not fail the run\n"
          "  -q, --quiet                  print no PDU: only the exit code tells\n"
          "  -l, --line-buffered          flush after every record (the default when\n"
          "                               standard output is a terminal)\n"
          "  -c, --count N                print the first N PDUs and stop (over all the\n"
          "                               inputs; what a conversation cut short would\n"
          "                               report at its end is not reported)\n"
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
          "A PDU is one protocol message: a datagram, or a message TCP reassembly cut out\n"
          "of the stream (a segment may hold several, or part of one). Records that are\n"
          "findings alone (TCP's, end of conversation) have a line of their own in text\n"
          "and JSON, none with -T fields.\n"
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
        d->as_fields = !strcmp(arg, "fields");
        if (!d->as_fields && !parse_format(arg, &d->format))
            return cli_usage_error("unknown format '%s' (text, json or fields)", arg);
        return 0;
    case 'e':
        if (!d->fields)
            d->fields = tf_new();
        return tf_add_field(d->fields, arg) ? 0 : cli_usage_error("unknown field '%s' (pcaptool fields lists them)", arg);
    case 'E':
        if (!d->fields)
            d->fields = tf_new();
        return tf_set_option(d->fields, arg) ? 0
               : cli_usage_error("bad -E '%s' (header=y|n, separator=/t|/s|C, occurrence=f|l|a, "
                                 "aggregator=,|/s|C, quote=d|s|n)", arg);
    case 't':
        return ts_parse(arg, &d->times) ? 0 : cli_usage_error("bad -t '%s' (r, a, ad, adoy, d, dd, e, u, ud or udoy)", arg);
    case 'V': d->verbose = 1; return 0;
    default: d->quiet = true; return 0; /* 'q' */
    }
}

/* the options together; CLI_GO, or the usage error's status */
static int decode_check(decode_out *d, cli_common *cc)
{
    if (d->verbose && (d->format == OUT_JSON || d->as_fields))
        return cli_usage_error("-V is for the text output (JSON always has every field)");
    if (d->verbose && d->quiet)
        return cli_usage_error("-V and -q exclude each other");
    if (d->as_fields && (!d->fields || !tf_n_fields(d->fields)))
        return cli_usage_error("-T fields needs at least one -e FIELD");
    if (!d->as_fields && d->fields)
        return cli_usage_error("-e and -E are for -T fields");
    if (d->times && (d->format == OUT_JSON || d->as_fields))
        return cli_usage_error("-t is for the text output (JSON has \"time\"; -T fields frame.time_*)");
    d->limit = cc->in.count; /* PDUs, not the packets the reading counts */
    cc->in.count = 0;
    return CLI_GO;
}

static int run_decode(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'T'},
        {"verbose", no_argument, NULL, 'V'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const cli_spec spec = {"T:Vqe:E:t:", longopts, CLI_RUN | CLI_FAIL_ON | CLI_INPUT | CLI_FILTER, decode_opt,
                                  decode_usage};
    decode_out d = {.format = OUT_TEXT, .shown_ns = OUT_NO_TIME};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &d, &cc);
    if (rc == CLI_GO)
        rc = decode_check(&d, &cc);
    if (rc != CLI_GO) {
        tf_free(d.fields);
        dfilter_free(cc.filter);
        return rc;
    }
    if ((rc = cli_check_inputs(&cc.in, argc - optind))) {
        tf_free(d.fields);
        dfilter_free(cc.filter);
        return rc;
    }
    if (cc.filter)
        d.filter = dfilter_eval_new(cc.filter);

    static char outbuf[1 << 20];
    d.flush = cc.in.line_buffered || isatty(STDOUT_FILENO);
    if (!d.flush && d.format == OUT_JSON && !d.as_fields) /* records wait in d.out's buffer and go 64 KiB at a */
        setvbuf(stdout, NULL, _IONBF, 0);  /* time: stdio's buffer would only copy them again */
    else if (!d.flush)
        setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    cap_install_signals();
    d.out = out_pdu_new();
    out_pdu_labels(d.out, d.verbose);
    bool direct = d.format == OUT_JSON && !d.as_fields && !d.quiet;
    out_pdu_direct(d.out, direct);
    /* items are kept for what reads them: -V's tree, -T fields, -Y (not
       the one-line text, nor JSON, written as they come) */
    out_pdu_keep_items(d.out, (!direct && (d.verbose || d.as_fields)) || d.filter);
    out_pdu_hold(d.out, !d.flush); /* written 64 KiB at a time, unless line by line */
    if (d.as_fields)
        tf_header(d.fields, stdout);
    run_consumer cons = {&d, decode_begin, decode_end, decode_finding, NULL, NULL};
    unsigned max_sev = 0;
    int status = EXIT_CLEAN;
    int n_files = argc - optind;
    for (int i = optind; i < argc || (cc.in.iface && i == optind); i++) {
        const char *path = cc.in.iface ? NULL : argv[i];
        const char *name = path ? path : cc.in.iface;
        GString *js = g_string_new(NULL);
        out_json_gstring(js, (const uint8_t *)name, strlen(name));
        size_t js_len = js->len;
        d.file_json = g_string_free(js, FALSE);
        out_pdu_file(d.out, d.file_json, js_len); /* (its records need not measure it) */
        if (n_files > 1 && d.format == OUT_TEXT && !d.as_fields && !d.quiet)
            printf("%s==> %s <==\n", i > optind ? "\n" : "", name);
        if (cli_read(&cc.in, &cc.ro, path, &cons, &max_sev, NULL, 0) < 0)
            status = EXIT_USAGE;
        out_pdu_flush(d.out, stdout);
        out_pdu_file(d.out, NULL, 0);
        g_free(d.file_json);
        d.file_json = NULL;
        if (cap_stop_requested())
            break;
    }
    out_pdu_free(d.out);
    tf_free(d.fields);
    dfilter_eval_free(d.filter);
    dfilter_free(cc.filter);
    if (d.limit || d.filter) /* what was not shown does not count */
        max_sev = d.max_sev;
    if (status == EXIT_CLEAN && cc.fail_on && max_sev >= cc.fail_on)
        status = EXIT_FINDINGS;
    return cli_finish(status);
}

const subcommand cmd_decode = {"decode", "FILE...", "decode every PDU of the known protocols", run_decode,
                               decode_usage};

