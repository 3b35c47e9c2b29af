/* run.c - see run.h */
#include "run.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "flows.h"
#include "netparse.h"
#include "reorder.h"
#include "tcpstream.h"

const gw_finding_def run_findings[RUN_N_FINDINGS] = {
    [TCP_EV_GAP] = {"tcp.gap", GW_SEV_WARNING, "Bytes of the stream were never captured: the PDU that needed them is lost, decoding resumes after it", GW_GROUP_SEQUENCE},
    [TCP_EV_OOO_LIMIT] = {"tcp.reorder_limit", GW_SEV_WARNING, "Early (out-of-order) segments reach too far (256 KiB) past the missing bytes: the missing bytes are given up", GW_GROUP_SEQUENCE},
    [TCP_EV_END_IN_PDU] = {"tcp.end_inside_pdu", GW_SEV_NOTE, "The stream ends (FIN, RST or end of capture) inside a PDU", GW_GROUP_SEQUENCE},
    [TCP_EV_MEMORY_LIMIT] = {"tcp.memory_limit", GW_SEV_WARNING, "All TCP conversations together hold too much (64 MiB) of unfinished PDUs and early segments: this conversation's is given up, decoding resumes with the next segment", GW_GROUP_SEQUENCE},
    [RUN_F_CONVERSATIONS_EVICTED] = {"capture.conversations_evicted", GW_SEV_WARNING, "Too many conversations at once (65536, or 256 MiB of conversation state): the least recently used are forgotten (their end-of-conversation checks run then); one that goes on restarts from a fresh state", GW_GROUP_SEQUENCE},
};

void run_options_init(run_options *o)
{
    memset(o, 0, sizeof *o);
    o->heuristics = true;
    for (int i = 0; gw_protocols[i]; i++) {
        o->ports[i].n = gw_protocols[i]->default_port ? 1 : 0; /* GNE has none */
        o->ports[i].ports[0] = gw_protocols[i]->default_port;
        gw_options_init(gw_protocols[i], o->opts[i]);
    }
}

const int *run_opts(const run_options *o, const gw_protocol *p)
{
    int i = 0;
    while (gw_protocols[i] && gw_protocols[i] != p)
        i++;
    return o->opts[i]; /* a protocol not in the list: zeros, never read */
}

void run_set_profile(run_options *o, int value)
{
    for (int i = 0; gw_protocols[i]; i++)
        for (int k = 0; k < gw_protocols[i]->n_options; k++)
            if (strcmp(gw_protocols[i]->options[k].name, "profile") == 0)
                o->opts[i][k] = value;
}

int run_proto_index(const char *name, size_t len)
{
    for (int i = 0; gw_protocols[i]; i++)
        if (strlen(gw_protocols[i]->name) == len && strncmp(gw_protocols[i]->name, name, len) == 0)
            return i;
    return -1;
}

bool run_parse_port(run_options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return false;
    int pi = run_proto_index(arg, (size_t)(eq - arg));
    char *end;
    long port = strtol(eq + 1, &end, 10);
    if (pi < 0 || *end || port < 1 || port > 65535)
        return false;
    run_ports *pl = &o->ports[pi];
    if (!pl->set_by_user) {
        pl->set_by_user = true;
        pl->n = 0;
    }
    if (pl->n < RUN_MAX_PORTS)
        pl->ports[pl->n++] = (uint16_t)port;
    return true;
}

bool run_parse_option(run_options *o, const char *arg)
{
    const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
    if (!dot || !eq || eq < dot)
        return false;
    int pi = run_proto_index(arg, (size_t)(dot - arg));
    if (pi < 0)
        return false;
    const gw_protocol *p = gw_protocols[pi];
    for (int i = 0; i < p->n_options; i++) {
        const gw_option *op = &p->options[i];
        if (strlen(op->name) != (size_t)(eq - dot - 1) || strncmp(op->name, dot + 1, (size_t)(eq - dot - 1)))
            continue;
        for (const gw_choice *c = op->choices; c->token; c++)
            if (strcmp(c->token, eq + 1) == 0) {
                o->opts[pi][i] = c->value;
                return true;
            }
    }
    return false;
}

static const gw_protocol *by_port(const run_options *o, const net_packet *pk)
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

static const gw_protocol *by_heuristic(const run_options *o, const net_packet *pk)
{
    int transport = pk->l4 == NET_UDP ? GW_TRANSPORT_UDP : GW_TRANSPORT_TCP;
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if ((p->transports & transport) &&
            gw_heuristic_accepts(p, o->opts[i], transport, pk->payload, pk->payload_len))
            return p;
    }
    return NULL;
}

/* what the reading of one file needs at hand */
typedef struct {
    const run_options *o;
    const run_consumer *c;
    flow_table *flows;
    const tcp_budget *tcp; /* the flows' TCP budget (flows_tcp_budget), asked once a PDU */
    unsigned frame;
    int64_t now;
    /* the times of the frame before this one (its own for frame 1), of the
       last frame read and of frame 1; the resolution's digits of this one */
    int64_t prev_ns, last_ns, first_ns;
    int tsprec;
    flow *f;
    int dir;               /* of the current PDU: 0 from f's initiator */
    unsigned max_sev;
    tcp_sink ts;           /* where the TCP reassembler hands PDUs and events (this run) */
    reorder *held;         /* records waiting for their turn in frame order */
    bool holding;          /* !reorder_empty(held), kept where held changes (asked once a PDU) */
    bool recording;        /* the current PDU goes to `held` */
    bool ending;           /* the capture ended: every record waits to be sorted */
    /* the last connections opened by a SYN (or SYN+ACK) no decoder was
       chosen for yet (no payload to look at, a port no decoder has): their
       first data still knows which side connected, as Wireshark knows.
       Their ports apart (client's | server's << 16), looked at first. */
    uint32_t opened_ports[64];
    struct {
        uint8_t client[16], server[16];
    } opened[64];
    unsigned n_opened;
} run_ctx;

/* a connection opening that came before its data */
static void note_opening(run_ctx *r, const net_packet *pk)
{
    bool reply = pk->tcp_flags & TCP_ACK; /* SYN+ACK: its receiver connected */
    unsigned i = r->n_opened++ % G_N_ELEMENTS(r->opened);
    memcpy(r->opened[i].client, reply ? pk->dst : pk->src, 16);
    memcpy(r->opened[i].server, reply ? pk->src : pk->dst, 16);
    uint16_t cport = reply ? pk->dport : pk->sport, sport = reply ? pk->sport : pk->dport;
    r->opened_ports[i] = cport | (uint32_t)sport << 16;
}

/* whether pk goes from the server of a connection note_opening() saw */
static bool from_server_of_opened(const run_ctx *r, const net_packet *pk)
{
    unsigned n = r->n_opened < G_N_ELEMENTS(r->opened) ? r->n_opened : G_N_ELEMENTS(r->opened);
    uint32_t ports = pk->dport | (uint32_t)pk->sport << 16; /* from the server to the client */
    for (unsigned i = 0; i < n; i++)
        if (r->opened_ports[i] == ports && !memcmp(r->opened[i].server, pk->src, 16) &&
            !memcmp(r->opened[i].client, pk->dst, 16))
            return true;
    return false;
}

/* whether a record of `frame` must wait: records wait already, or a
   conversation holds early bytes of an earlier frame (which it may yet
   deliver), or the capture's end is being sorted */
static bool must_wait(run_ctx *r, uint32_t frame)
{
    uint32_t first;
    return r->ending || r->holding ||
           (tcp_budget_earliest(r->tcp, &first) && first < frame);
}

/* hand on the records no conversation can deliver an earlier frame than */
static void release_held(run_ctx *r)
{
    if (!r->holding)
        return;
    uint32_t upto = r->frame, first;
    if (tcp_budget_earliest(r->tcp, &first) && first < upto)
        upto = first;
    reorder_release(r->held, upto);
    r->holding = !reorder_empty(r->held);
}

static void raise_sev(run_ctx *r, unsigned sev)
{
    if (sev > r->max_sev)
        r->max_sev = sev;
}

void run_ignore_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    (void)ctx; (void)src; (void)name; (void)data; (void)len;
}

/* a decoder announces a linked conversation (GNE's UDP link) */
static void on_expect(void *ctx, int transport, int port_side, uint16_t port, const void *conv)
{
    run_ctx *r = ctx;
    if (transport == GW_TRANSPORT_UDP && r->f->p->conv_link)
        flows_expect(r->flows, r->f, port_side, port, conv);
    if (r->recording)
        reorder_expected(r->held, transport, port_side, port);
    else if (r->c->expected)
        r->c->expected(r->c->ctx, transport, port_side, port);
}

/* a PDU of the current flow and direction, on the frame `at` (a TCP PDU's
   is the segment that completed it, which may be earlier than the packet
   being read) */
static void decode_pdu(run_ctx *r, const uint8_t *data, size_t len, int transport, const tcp_stamp *at)
{
    flow *f = r->f;
    gw_pdu_info pi = {.frame = at->frame, .time_ns = at->time_ns, .dir = r->dir, .transport = transport};
    /* field by field (an initialiser clears the padding too, 40
       instructions a PDU): a field out_meta gains must be set here */
    _Static_assert(sizeof(out_meta) == 96, "decode_pdu sets every field of out_meta");
    out_meta m;
    m.frame = at->frame;
    m.time_ns = at->time_ns;
    m.prev_ns = at->prev_ns;
    m.first_ns = r->first_ns;
    m.tsprec = r->tsprec;
    m.time_text = NULL;
    m.src = flow_endpoint(f, r->dir);
    m.dst = flow_endpoint(f, !r->dir);
    m.len = len;
    m.data = data;
    m.dir = r->dir;
    m.transport = transport;
    m.file_json = NULL;
    gw_sink *sink = r->c->pdu_begin(r->c->ctx, f->p);
    r->recording = must_wait(r, at->frame);
    if (r->recording)
        sink = reorder_pdu_begin(r->held, f->p, sink, &m);
    /* announced conversations come to the run for this PDU (never to a
       sink left from an earlier one) */
    sink->expect = on_expect;
    sink->expect_ctx = r;
    f->p->decode(f->state, &pi, data, len, sink);
    sink->expect = NULL;
    if (r->recording) {
        reorder_pdu_end(r->held);
        r->holding = !reorder_empty(r->held); /* over its bound, it may have let all go */
    } else {
        raise_sev(r, r->c->pdu_end(r->c->ctx, r->f->p, &m));
    }
    r->recording = false;
}

/* a finding outside a PDU, now or in its turn */
static void report_finding(run_ctx *r, const gw_protocol *p, int index, const out_meta *m,
                           const out_finding *fd)
{
    if (must_wait(r, m->frame)) {
        reorder_finding(r->held, p, index, m, fd);
        r->holding = !reorder_empty(r->held);
        return;
    }
    r->c->finding(r->c->ctx, p, index, m, fd);
    raise_sev(r, (unsigned)fd->severity + 1);
}

static void on_tcp_pdu(void *ctx, const uint8_t *data, size_t len, const tcp_stamp *at)
{
    decode_pdu(ctx, data, len, GW_TRANSPORT_TCP, at);
}

/* one of pcaptool's own findings (run_findings), on the frame `at` */
static void run_finding(run_ctx *r, int index, const char *msg, const tcp_stamp *at)
{
    const gw_finding_def *d = &run_findings[index];
    out_meta m = {.frame = at->frame, .time_ns = at->time_ns, .prev_ns = at->prev_ns, .first_ns = r->first_ns,
                  .tsprec = r->tsprec, .src = flow_endpoint(r->f, r->dir), .dst = flow_endpoint(r->f, !r->dir)};
    bool capture = index == RUN_F_CONVERSATIONS_EVICTED; /* the others are the TCP reassembler's */
    out_finding fd = {.proto = capture ? "capture" : "tcp", .short_name = capture ? "Capture" : "TCP",
                      .summary = msg, .code = d->code, .severity = d->severity, .message = msg};
    report_finding(r, NULL, index, &m, &fd);
}

static void on_tcp_event(void *ctx, tcp_event ev, uint64_t bytes, const tcp_stamp *at)
{
    run_ctx *r = ctx;
    char msg[200];
    switch (ev) {
    case TCP_EV_GAP:
        snprintf(msg, sizeof msg, "%llu %s never captured: the PDU that needed them is lost",
                 (unsigned long long)bytes, gw_bytes((unsigned long long)bytes));
        break;
    case TCP_EV_OOO_LIMIT:
        snprintf(msg, sizeof msg, "early segments reach over %u KiB past the missing bytes: "
                 "%llu missing %s given up", TCP_OOO_MAX >> 10, (unsigned long long)bytes, gw_bytes(bytes));
        break;
    case TCP_EV_MEMORY_LIMIT:
        snprintf(msg, sizeof msg, "TCP conversations hold over %u MiB of unfinished PDUs: "
                 "%llu %s of this one's given up", TCP_BUDGET_DEFAULT >> 20,
                 (unsigned long long)bytes, gw_bytes((unsigned long long)bytes));
        break;
    default:
        snprintf(msg, sizeof msg, "the stream ends inside a PDU (%llu %s pending)",
                 (unsigned long long)bytes, gw_bytes(bytes));
        break;
    }
    run_finding(r, (int)ev, msg, at);
}

/* the time of the frame before `frame`, where it is still known: only
   that of the frame being read is */
static int64_t prev_of(const run_ctx *r, uint32_t frame)
{
    return frame == r->frame ? r->prev_ns : OUT_NO_TIME;
}

/* a finding the decoder reports as its conversation ends, about an earlier
   frame */
static void on_end_finding(void *ctx, uint32_t frame, int64_t time_ns, int dir, int finding,
                           size_t off, size_t len, const char *msg)
{
    run_ctx *r = ctx;
    const gw_finding_def *d = &r->f->p->findings[finding];
    out_meta m = {.frame = frame, .time_ns = time_ns, .prev_ns = prev_of(r, frame), .first_ns = r->first_ns,
                  .tsprec = r->tsprec, .src = flow_endpoint(r->f, dir), .dst = flow_endpoint(r->f, !dir)};
    out_finding fd = {.proto = r->f->p->name, .short_name = r->f->p->short_name,
                      .summary = "End of conversation", .code = d->code, .severity = d->severity,
                      .off = off, .len = len, .message = msg, .end_of_conversation = true};
    report_finding(r, r->f->p, finding, &m, &fd);
}

static bool on_end_wants_message(void *ctx, uint32_t frame, int finding)
{
    run_ctx *r = ctx;
    return !r->c->wants_message || r->c->wants_message(r->c->ctx, r->f->p, frame, finding);
}

/* a conversation ends (end of file, evicted or restarted): the TCP bytes
   still waiting, then what the decoder left open */
static void on_flow_end(flow *f, void *ctx)
{
    run_ctx *r = ctx;
    r->f = f;
    if (f->l4 == NET_TCP) {
        /* the early bytes go on the segments that brought them; a stream
           ending inside a PDU on the conversation's last packet, not on
           the packet being read (the end of the capture, or another
           conversation's that needed the room) */
        tcp_stamp last = {f->last_frame, f->last_seen_ns, prev_of(r, f->last_frame)};
        for (int d = 0; d < 2; d++) {
            r->dir = d;
            tcp_half_finish(&f->tcp[d], f->p, f->opts, &last, &r->ts);
        }
    }
    if (f->p->conv_end) {
        gw_end_sink es = {r, on_end_finding, on_end_wants_message};
        f->p->conv_end(f->state, &es);
    }
}

static void report_evicted(run_ctx *r, unsigned evicted)
{
    char msg[200];
    snprintf(msg, sizeof msg, "conversation table full (%u conversations or %zu MiB of "
             "state): the %u least recently used forgotten", FLOWS_MAX,
             FLOWS_STATE_MAX >> 20, evicted);
    tcp_stamp now = {r->frame, r->now, r->prev_ns};
    run_finding(r, RUN_F_CONVERSATIONS_EVICTED, msg, &now);
}

/* one captured packet */
static void packet(run_ctx *r, flow_table *flows, const net_packet *pk)
{
    bool tcp = pk->l4 == NET_TCP;
    bool syn = tcp && (pk->tcp_flags & TCP_SYN);
    /* like Wireshark, no protocol sees an empty datagram */
    if (!tcp && pk->payload_len == 0)
        return;
    flow_key key;
    flow *f = flows_lookup(flows, pk, &key);
    unsigned evicted = 0;
    if (f) {
        if (syn && !(pk->tcp_flags & TCP_ACK) && flow_direction_key(f, &key) == 0 &&
            r->now != f->last_seen_ns)
            flow_restart(flows, f, pk); /* a new connection reusing the ports (not a SYN
                                    retransmission in the same instant) */
    } else {
        if (!tcp) /* a UDP link announced by a decoder comes first */
            f = flows_add_expected(flows, &key, pk, r->now, &evicted);
        if (!f) {
            if (tcp && pk->payload_len == 0 && !syn)
                return;
            const gw_protocol *p = by_port(r->o, pk);
            if (!p && r->o->heuristics && pk->payload_len)
                p = by_heuristic(r->o, pk);
            if (!p) {
                if (syn)
                    note_opening(r, pk);
                return;
            }
            bool reply = syn ? (pk->tcp_flags & TCP_ACK) : tcp && from_server_of_opened(r, pk);
            f = flows_add_key(flows, &key, pk, p, run_opts(r->o, p), NULL, r->now, reply, &evicted);
        }
    }
    f->last_seen_ns = r->now;
    f->last_frame = r->frame;
    int dir = flow_direction_key(f, &key);
    r->f = f;
    r->dir = dir;
    if (evicted) /* reported on this packet, the one that needed the room */
        report_evicted(r, evicted);
    tcp_stamp now = {r->frame, r->now, r->prev_ns};
    if (tcp) {
        tcp_half_segment(&f->tcp[dir], f->p, f->opts, pk->tcp_seq, pk->tcp_flags, pk->payload,
                         pk->payload_len, &now, &r->ts);
        if (pk->tcp_flags & TCP_RST) {
            /* a reset ends the connection both ways: what the other
               direction still holds is reported now, on this packet */
            r->dir = !dir;
            tcp_half_finish(&f->tcp[!dir], f->p, f->opts, &now, &r->ts);
            r->dir = dir;
        }
    } else {
        decode_pdu(r, pk->payload, pk->payload_len, GW_TRANSPORT_UDP, &now);
    }
    /* what the decoder state holds now; the room it takes is made by
       forgetting others (whose end-of-conversation findings come first) */
    evicted = flows_account(flows, f);
    if (evicted) {
        r->f = f;
        r->dir = dir;
        report_evicted(r, evicted);
    }
    run_bounds *b = r->o->bounds;
    if (b) {
        size_t state = flows_state_bytes(flows), tcp_used = flows_tcp_budget(flows)->used;
        if (state > b->state_peak)
            b->state_peak = state;
        if (tcp_used > b->tcp_peak)
            b->tcp_peak = tcp_used;
        if (state > (r->o->state_limit ? r->o->state_limit : FLOWS_STATE_MAX) && flows_count(flows) > 1)
            b->state_over++;
    }
}

int run_file(const run_options *o, const char *path, const run_consumer *c, unsigned *max_sev,
             char *err, size_t errsz)
{
    char why[256];
    cap_reader *cr = cap_open_file(path, why, sizeof why);
    if (!cr) {
        snprintf(err, errsz, "cannot read capture: %s", why);
        return -1;
    }
    int result = run_capture(o, cr, c, max_sev, err, errsz);
    cap_close(cr);
    return result;
}

int run_capture(const run_options *o, cap_reader *cr, const run_consumer *c, unsigned *max_sev,
                char *err, size_t errsz)
{
    /* pcap and live: one link type, known now; pcapng: per interface, as
       its packets come */
    int lt = cap_first_linktype(cr);
    if (lt >= 0 && !net_linktype_supported(lt)) {
        const char *name = pcap_datalink_val_to_name(lt);
        snprintf(err, errsz, "unsupported link type %d (%s)", lt, name ? name : "unknown");
        return -1;
    }
    err[0] = '\0';
    run_ctx r = {.o = o, .c = c, .max_sev = *max_sev};
    r.ts = (tcp_sink){on_tcp_pdu, on_tcp_event, &r};
    r.held = reorder_new(c, &r.max_sev);
    flow_table *flows = r.flows = flows_new(on_flow_end, &r);
    r.tcp = flows_tcp_budget(flows);
    if (o->state_limit)
        flows_set_state_limit(flows, o->state_limit);
    if (o->tcp_limit)
        flows_tcp_budget(flows)->limit = o->tcp_limit;
    cap_record rec;
    int rc;
    unsigned skipped = 0, decodable = 0;
    int skipped_lt = -1;
    int known_lt = -1; /* the last link type found supported: asked again only when it changes */
    cap_writer *save = o->save;
    unsigned count = o->count;
    while ((rc = cap_next(cr, &rec)) == 1) {
        r.frame++;
        r.prev_ns = r.frame == 1 ? rec.time_ns : r.last_ns;
        if (r.frame == 1)
            r.first_ns = rec.time_ns;
        r.last_ns = rec.time_ns;
        r.tsprec = rec.tsprec;
        if (save)
            cap_writer_put(save, &rec); /* a failure is sticky: cap_writer_close tells */
        if (rec.linktype == known_lt || net_linktype_supported(rec.linktype))
            known_lt = rec.linktype;
        if (rec.linktype != known_lt) {
            skipped++;
            skipped_lt = rec.linktype;
        } else {
            decodable++;
            net_packet pk;
            if (net_parse(rec.linktype, rec.data, rec.caplen, &pk) == NET_OK) {
                r.now = rec.time_ns;
                packet(&r, flows, &pk);
                release_held(&r);
            }
        }
        if (count && r.frame >= count)
            break;
    }
    /* what the conversations still hold, and what they report as they end,
       sorted with what waits */
    r.ending = true;
    flows_free(flows);
    reorder_release(r.held, UINT32_MAX);
    reorder_free(r.held);
    *max_sev = r.max_sev;
    if (rc < 0) {
        snprintf(err, errsz, "%s", cap_error(cr));
        return -1;
    }
    if (skipped) {
        const char *name = pcap_datalink_val_to_name(skipped_lt);
        snprintf(err, errsz, "%u packet%s of link type %d (%s) not decoded: unsupported link type",
                 skipped, skipped == 1 ? "" : "s", skipped_lt, name ? name : "unknown");
        if (!decodable)
            return -1;
        return 1;
    }
    return 0;
}
