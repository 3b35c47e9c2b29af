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
          "Decode game network protocols (DNP) in pcap and pcapng files.\n"
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
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if (pk->l4 == NET_UDP && (p->transports & GW_TRANSPORT_UDP) && p->heuristic &&
            p->heuristic(pk->payload, pk->payload_len))
            return p;
    }
    return NULL;
}

/* Decode one capture file. Returns the highest severity seen + 1 in *max_sev;
   the return value is 0, or EXIT_USAGE when the file cannot be read. */
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
    flow_table *flows = flows_new();
    struct pcap_pkthdr *hdr;
    const u_char *data;
    unsigned frame = 0;
    int rc;
    char src[64], dst[64];
    while ((rc = pcap_next_ex(pc, &hdr, &data)) == 1) {
        frame++;
        net_packet pk;
        /* like Wireshark, no protocol sees an empty datagram */
        if (net_parse(lt, data, hdr->caplen, &pk) != NET_OK || pk.l4 != NET_UDP ||
            pk.payload_len == 0)
            continue;
        int64_t now = (int64_t)hdr->ts.tv_sec * 1000000000 + hdr->ts.tv_usec;
        flow *f = flows_find(flows, &pk);
        if (!f) {
            const gw_protocol *p = by_port(o, &pk);
            if (!p && o->heuristics)
                p = by_heuristic(&pk);
            if (!p)
                continue;
            unsigned evicted;
            f = flows_add(flows, &pk, p, now, &evicted);
            if (evicted)
                fprintf(stderr, "pcaptool: %s: frame %u: conversation table full, %u idle "
                        "conversations forgotten\n", path, frame, evicted);
        }
        f->last_seen_ns = now;
        gw_pdu_info pi = {.frame = frame, .time_ns = now, .dir = flow_direction(f, &pk)};
        const gw_sink *sink = out_pdu_begin(out, f->p);
        f->p->decode(f->state, &pi, pk.payload, pk.payload_len, sink);
        net_format_endpoint(&pk, 0, src, sizeof src);
        net_format_endpoint(&pk, 1, dst, sizeof dst);
        out_meta m = {frame, now, src, dst};
        out_pdu_write(out, stdout, o->format, o->verbose, &m);
        if (out_pdu_max_severity(out) > *max_sev)
            *max_sev = out_pdu_max_severity(out);
    }
    flows_free(flows);
    int result = 0;
    if (rc == -1) {
        fflush(stdout);
        fprintf(stderr, "pcaptool: %s: capture file damaged after frame %u: %s\n", path, frame,
                pcap_geterr(pc));
        result = EXIT_USAGE;
    }
    pcap_close(pc);
    return result;
}

static int cmd_list(int argc, char **argv, bool fields)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && !gw_protocol_by_name(only))
        return die_usage("unknown protocol '%s'", only);
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if (only && strcmp(only, p->name))
            continue;
        if (fields)
            for (int k = 0; k < p->n_fields; k++)
                printf("%s\t%s\t%s\n", p->fields[k].abbrev, p->fields[k].name, p->fields[k].blurb);
        else
            for (int k = 0; k < p->n_findings; k++)
                printf("%s\t%s\t%s\n", p->findings[k].code,
                       gw_severity_name(p->findings[k].severity), p->findings[k].summary);
    }
    return EXIT_CLEAN;
}

static int cmd_decode(int argc, char **argv)
{
    options o = {.format = OUT_TEXT, .heuristics = true, .fail_on = GW_SEV_ERROR + 1};
    for (int i = 0; gw_protocols[i]; i++) {
        o.ports[i].n = 1;
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
