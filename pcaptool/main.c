/* main.c - pcaptool: decode game-protocol traffic in capture files. */
#include <getopt.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows.h"
#include "gw_core.h"
#include "netparse.h"
#include "output.h"
#include "tcpstream.h"

#ifndef PCAPTOOL_VERSION
#define PCAPTOOL_VERSION "0.0.0"
#endif

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

#define MAX_PORTS 16

typedef struct {
    uint16_t ports[MAX_PORTS];
    int n;
    bool set_by_user;
} port_list;

typedef struct {
    out_format format;
    int verbose;
    bool heuristics;
    unsigned fail_on;  /* severity + 1 that fails; 0 = never */
    port_list ports[GW_MAX_PROTOCOLS]; /* per gw_protocols[] index */
} options;

static void usage(FILE *f)
{
    fputs("Usage: pcaptool COMMAND [OPTIONS] [FILE...]\n"
          "\n"
          "Decode game network protocols (DNP, OpenTTD, GNE, EOUDP, OpenDrakan) in pcap and\n"
          "pcapng files.\n"
          "\n"
          "Commands:\n"
          "  decode FILE...     decode every PDU of the known protocols\n"
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

static int die_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "pcaptool: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'pcaptool --help'.\n");
    return EXIT_USAGE;
}

static int proto_index(const char *name, size_t len)
{
    for (int i = 0; gw_protocols[i]; i++)
        if (strlen(gw_protocols[i]->name) == len && strncmp(gw_protocols[i]->name, name, len) == 0)
            return i;
    return -1;
}

static bool parse_port(options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return false;
    int pi = proto_index(arg, (size_t)(eq - arg));
    char *end;
    long port = strtol(eq + 1, &end, 10);
    if (pi < 0 || *end || port < 1 || port > 65535)
        return false;
    port_list *pl = &o->ports[pi];
    if (!pl->set_by_user) {
        pl->set_by_user = true;
        pl->n = 0;
    }
    if (pl->n < MAX_PORTS)
        pl->ports[pl->n++] = (uint16_t)port;
    return true;
}

static bool parse_option(const char *arg)
{
    const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
    if (!dot || !eq || eq < dot)
        return false;
    int pi = proto_index(arg, (size_t)(dot - arg));
    if (pi < 0)
        return false;
    const gw_protocol *p = gw_protocols[pi];
    for (int i = 0; i < p->n_options; i++) {
        const gw_option *op = &p->options[i];
        if (strlen(op->name) != (size_t)(eq - dot - 1) || strncmp(op->name, dot + 1, (size_t)(eq - dot - 1)))
            continue;
        for (const gw_choice *c = op->choices; c->token; c++)
            if (strcmp(c->token, eq + 1) == 0) {
                *op->value = c->value;
                return true;
            }
    }
    return false;
}

static const gw_protocol *by_port(const options *o, const net_packet *pk)
{
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if (!((pk->l4 == NET_UDP && (p->transports & GW_TRANSPORT_UDP)) ||
              (pk->l4 == NET_TCP && (p->transports & GW_TRANSPORT_TCP))))
            continue;
        for (int k = 0; k < o->ports[i].n; k++)
            if (pk->sport == o->ports[i].ports[k] || pk->dport == o->ports[i].ports[k])
                return p;
    }
    return NULL;
}

static const gw_protocol *by_heuristic(const net_packet *pk)
{
    int transport = pk->l4 == NET_UDP ? GW_TRANSPORT_UDP : GW_TRANSPORT_TCP;
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if ((p->transports & transport) && p->heuristic &&
            p->heuristic(transport, pk->payload, pk->payload_len))
            return p;
    }
    return NULL;
}

/* what the decoding of one file needs at hand */
typedef struct {
    const options *o;
    flow_table *flows;
    const char *path;
    out_pdu *out;
    unsigned frame;
    int64_t now;
    flow *f;
    int dir;
    char src[64], dst[64];
    unsigned max_sev;
} run_ctx;

static void decode_pdu(run_ctx *r, const uint8_t *data, size_t len, int transport)
{
    gw_pdu_info pi = {.frame = r->frame, .time_ns = r->now, .dir = r->dir, .transport = transport};
    const gw_sink *sink = out_pdu_begin(r->out, r->f->p);
    r->f->p->decode(r->f->state, &pi, data, len, sink);
    out_meta m = {r->frame, r->now, r->src, r->dst};
    out_pdu_write(r->out, stdout, r->o->format, r->o->verbose, &m);
    if (out_pdu_max_severity(r->out) > r->max_sev)
        r->max_sev = out_pdu_max_severity(r->out);
}

/* a decoder announces a linked conversation (GNE's UDP link) */
static void on_expect(void *ctx, int transport, int port_side, uint16_t port, const void *conv)
{
    run_ctx *r = ctx;
    if (transport == GW_TRANSPORT_UDP && r->f->p->conv_link)
        flows_expect(r->flows, r->f, port_side, port, conv);
}

static void on_tcp_pdu(void *ctx, const uint8_t *data, size_t len)
{
    decode_pdu(ctx, data, len, GW_TRANSPORT_TCP);
}

static void on_tcp_event(void *ctx, tcp_event ev, uint64_t bytes)
{
    run_ctx *r = ctx;
    const gw_finding_def *d = &tcp_findings[ev];
    char msg[160];
    switch (ev) {
    case TCP_EV_GAP:
        snprintf(msg, sizeof msg, "%llu bytes never captured: the PDU that needed them is lost",
                 (unsigned long long)bytes);
        break;
    case TCP_EV_OOO_LIMIT:
        snprintf(msg, sizeof msg, "over %u bytes of early segments: %llu missing bytes given up",
                 TCP_OOO_MAX, (unsigned long long)bytes);
        break;
    default:
        snprintf(msg, sizeof msg, "the stream ends inside a PDU (%llu bytes pending)",
                 (unsigned long long)bytes);
        break;
    }
    out_meta m = {r->frame, r->now, r->src, r->dst};
    out_finding fd = {.proto = "tcp", .short_name = "TCP", .summary = msg, .code = d->code,
                      .severity = d->severity, .message = msg};
    out_finding_write(stdout, r->o->format, &m, &fd);
    if ((unsigned)d->severity + 1 > r->max_sev)
        r->max_sev = (unsigned)d->severity + 1;
}

/* a finding the decoder reports as its conversation ends, about an earlier
   frame */
static void on_end_finding(void *ctx, uint32_t frame, int64_t time_ns, int dir, int finding,
                           size_t off, size_t len, const char *msg)
{
    run_ctx *r = ctx;
    const gw_finding_def *d = &r->f->p->findings[finding];
    char src[64], dst[64];
    flow_endpoint(r->f, dir, src, sizeof src);
    flow_endpoint(r->f, !dir, dst, sizeof dst);
    out_meta m = {frame, time_ns, src, dst};
    out_finding fd = {.proto = r->f->p->name, .short_name = r->f->p->short_name,
                      .summary = "End of conversation", .code = d->code, .severity = d->severity,
                      .off = off, .len = len, .message = msg, .end_of_conversation = true};
    out_finding_write(stdout, r->o->format, &m, &fd);
    if ((unsigned)d->severity + 1 > r->max_sev)
        r->max_sev = (unsigned)d->severity + 1;
}

/* a conversation ends (end of file, evicted or restarted): the TCP bytes
   still waiting, then what the decoder left open */
static void on_flow_end(flow *f, void *ctx)
{
    run_ctx *r = ctx;
    r->f = f;
    if (f->tcp[0]) {
        tcp_sink ts = {on_tcp_pdu, on_tcp_event, r};
        for (int d = 0; d < 2; d++) {
            r->dir = d;
            flow_endpoint(f, d, r->src, sizeof r->src);
            flow_endpoint(f, !d, r->dst, sizeof r->dst);
            tcp_half_finish(f->tcp[d], &ts);
        }
    }
    if (f->p->conv_end) {
        gw_end_sink es = {r, on_end_finding};
        f->p->conv_end(f->state, &es);
    }
}

/* one captured packet */
static void packet(run_ctx *r, flow_table *flows, const net_packet *pk)
{
    bool tcp = pk->l4 == NET_TCP;
    bool syn = tcp && (pk->tcp_flags & TCP_SYN);
    /* like Wireshark, no protocol sees an empty datagram */
    if (!tcp && pk->payload_len == 0)
        return;
    flow *f = flows_find(flows, pk);
    if (f) {
        if (syn && !(pk->tcp_flags & TCP_ACK) && flow_direction(f, pk) == 0 &&
            r->now != f->last_seen_ns)
            flow_restart(flows, f, pk); /* a new connection reusing the ports (not a SYN
                                    retransmission in the same instant) */
    } else {
        unsigned evicted = 0;
        if (!tcp) /* a UDP link announced by a decoder comes first */
            f = flows_add_expected(flows, pk, r->now, &evicted);
        if (!f) {
            if (tcp && pk->payload_len == 0 && !syn)
                return;
            const gw_protocol *p = by_port(r->o, pk);
            if (!p && r->o->heuristics && pk->payload_len)
                p = by_heuristic(pk);
            if (!p)
                return;
            f = flows_add(flows, pk, p, NULL, r->now, syn && (pk->tcp_flags & TCP_ACK), &evicted);
        }
        if (evicted)
            fprintf(stderr, "pcaptool: %s: frame %u: conversation table full, %u idle "
                    "conversations forgotten\n", r->path, r->frame, evicted);
    }
    f->last_seen_ns = r->now;
    r->f = f;
    r->dir = flow_direction(f, pk);
    net_format_endpoint(pk, 0, r->src, sizeof r->src);
    net_format_endpoint(pk, 1, r->dst, sizeof r->dst);
    if (tcp) {
        tcp_sink ts = {on_tcp_pdu, on_tcp_event, r};
        tcp_half_segment(f->tcp[r->dir], f->p, pk->tcp_seq, pk->tcp_flags, pk->payload,
                         pk->payload_len, &ts);
    } else {
        decode_pdu(r, pk->payload, pk->payload_len, GW_TRANSPORT_UDP);
    }
}

/* Decode one capture file. Raises *max_sev to the highest severity seen + 1;
   returns 0, or EXIT_USAGE when the file cannot be read. */
static int decode_file(const options *o, const char *path, out_pdu *out, unsigned *max_sev)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
    if (!pc) {
        fprintf(stderr, "pcaptool: %s: cannot read capture: %s\n", path, err);
        return EXIT_USAGE;
    }
    int lt = pcap_datalink(pc);
    if (!net_linktype_supported(lt)) {
        fprintf(stderr, "pcaptool: %s: unsupported link type %d (%s)\n", path, lt,
                pcap_datalink_val_to_name(lt) ? pcap_datalink_val_to_name(lt) : "unknown");
        pcap_close(pc);
        return EXIT_USAGE;
    }
    run_ctx r = {.o = o, .path = path, .out = out, .max_sev = *max_sev};
    flow_table *flows = r.flows = flows_new(on_flow_end, &r);
    out_pdu_on_expect(out, on_expect, &r);
    struct pcap_pkthdr *hdr;
    const u_char *data;
    int rc;
    while ((rc = pcap_next_ex(pc, &hdr, &data)) == 1) {
        r.frame++;
        net_packet pk;
        if (net_parse(lt, data, hdr->caplen, &pk) != NET_OK)
            continue;
        r.now = (int64_t)hdr->ts.tv_sec * 1000000000 + hdr->ts.tv_usec;
        packet(&r, flows, &pk);
    }
    flows_free(flows);
    *max_sev = r.max_sev;
    int result = 0;
    if (rc == -1) {
        fflush(stdout);
        fprintf(stderr, "pcaptool: %s: capture file damaged after frame %u: %s\n", path, r.frame,
                pcap_geterr(pc));
        result = EXIT_USAGE;
    }
    pcap_close(pc);
    return result;
}

static int cmd_list(int argc, char **argv, bool fields)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && !gw_protocol_by_name(only) && !(strcmp(only, "tcp") == 0 && !fields))
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
    if (!fields && (!only || strcmp(only, "tcp") == 0))
        for (int k = 0; k < TCP_N_FINDINGS; k++)
            printf("%s\t%s\t%s\n", tcp_findings[k].code, gw_severity_name(tcp_findings[k].severity),
                   tcp_findings[k].summary);
    return EXIT_CLEAN;
}

static int cmd_decode(int argc, char **argv)
{
    options o = {.format = OUT_TEXT, .heuristics = true, .fail_on = GW_SEV_ERROR + 1};
    for (int i = 0; gw_protocols[i]; i++) {
        o.ports[i].n = gw_protocols[i]->default_port ? 1 : 0; /* GNE has none */
        o.ports[i].ports[0] = gw_protocols[i]->default_port;
    }
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"verbose", no_argument, NULL, 'V'},
        {"port", required_argument, NULL, 'p'},
        {"no-heuristics", no_argument, NULL, 'n'},
        {"option", required_argument, NULL, 'o'},
        {"fail-on", required_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:Vp:no:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "json") == 0)
                o.format = OUT_JSON;
            else if (strcmp(optarg, "text") == 0)
                o.format = OUT_TEXT;
            else
                return die_usage("unknown format '%s' (text or json)", optarg);
            break;
        case 'V': o.verbose = 1; break;
        case 'n': o.heuristics = false; break;
        case 'p':
            if (!parse_port(&o, optarg))
                return die_usage("bad --port '%s' (PROTO=PORT, e.g. dnp=3413)", optarg);
            break;
        case 'o':
            if (!parse_option(optarg))
                return die_usage("bad --option '%s' (see README for the options)", optarg);
            break;
        case 'F':
            if (strcmp(optarg, "error") == 0) o.fail_on = GW_SEV_ERROR + 1;
            else if (strcmp(optarg, "warning") == 0) o.fail_on = GW_SEV_WARNING + 1;
            else if (strcmp(optarg, "note") == 0) o.fail_on = GW_SEV_NOTE + 1;
            else if (strcmp(optarg, "never") == 0) o.fail_on = 0;
            else return die_usage("bad --fail-on '%s'", optarg);
            break;
        case 'h': usage(stdout); return EXIT_CLEAN;
        default: return die_usage("%s", "bad option");
        }
    }
    if (optind >= argc)
        return die_usage("%s", "decode needs at least one capture file");

    static char outbuf[1 << 20];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    out_pdu *out = out_pdu_new();
    unsigned max_sev = 0;
    int status = EXIT_CLEAN;
    for (int i = optind; i < argc; i++)
        if (decode_file(&o, argv[i], out, &max_sev) == EXIT_USAGE)
            status = EXIT_USAGE;
    out_pdu_free(out);
    fflush(stdout);
    if (status == EXIT_CLEAN && o.fail_on && max_sev >= o.fail_on)
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
    if (strcmp(cmd, "fields") == 0)
        return cmd_list(argc - 1, argv + 1, true);
    if (strcmp(cmd, "findings") == 0)
        return cmd_list(argc - 1, argv + 1, false);
    return die_usage("unknown command '%s'", cmd);
}
