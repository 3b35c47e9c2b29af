/* replay.c - pcaptool replay: one side of a recorded conversation played
 * against a live peer, its answers decoded and judged.
 *
 * The recording is read through the usual path (run_file), keeping the
 * PDUs of one conversation (and of a link it announces, or its own traffic
 * over the other transport: a second channel). Our side's PDUs are sent in
 * order (at the recorded pace unless --no-wait), each adapted by the
 * protocol's replay hooks (gw_protocol.replay: sequence numbers, ids,
 * ports that must follow the live peer). Before each of them, the peer's
 * PDUs that the recording has since our previous one must have come, as
 * the hooks' need() says: each answer (matched by channel, type and need,
 * in any order within that stretch, checked field by field by the hooks),
 * at least one of each periodic type, none of the optional ones. The first
 * miss is the divergence reported. Every PDU sent or received is decoded
 * with a conversation state of its own, so the live exchange gets the
 * decoders' findings too. */
#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "active/gw_replay.h"
#include "output.h"
#include "peer.h"
#include "pcaptool.h"
#include "run.h"
#include "tcpstream.h"

#define MAX_PDU (1u << 20) /* a received TCP PDU longer than this is not waited for */
#define PEER_WAIT_MS 30000 /* the server side waits this long (or --timeout) for its peer */

/* ---- the recording ------------------------------------------------------ */

/* the replayed conversation, and the second one its protocol may open
   beside it (GNE's UDP link) */
enum { MAIN, LINK, N_CHANNELS };

typedef struct {
    unsigned frame;
    int64_t time_ns;
    int channel;      /* MAIN or LINK */
    int transport;    /* GW_TRANSPORT_* */
    int dir;          /* 0: from the client (the conversation's initiator) */
    uint8_t *data;
    size_t len;
    int64_t type;     /* the protocol's type field, or -1 */
    gw_item *items;   /* what the decoder read in it (out_pdu_items) */
    unsigned n_items;
    char *summary;
    gw_replay_need need; /* the peer's: what the live peer must send here */
    bool matched;
    bool unasked;     /* the peer's close at the end, on its own: a note when missing, not a divergence */
} rec_pdu;

typedef struct {
    unsigned want;    /* the conversation to keep, 1-based */
    GHashTable *seen; /* "proto a b" -> ordinal */
    const run_options *ro;
    out_pdu *out;
    const gw_protocol *p;
    const int *opts;  /* p's options, from ro */
    int transport;
    char endpoint[2][64];
    GArray *pdus;     /* rec_pdu */
    void *hooks;      /* the replay hooks' state (gw_replay), once loaded */
    /* a conversation the replayed one announces (sink->expect): the
       endpoint that owns the port, once a PDU of the replayed conversation
       announced it; the PDU being decoded may be announcing one */
    char link_endpoint[72];
    bool link_same_ports; /* the conversation itself uses the other transport too */
    bool announcing;
    int announced_side;
    uint16_t announced_port;
    const gw_replay *rp; /* p's replay hooks (NULL: none), once p is known */
} recording;

static void load_expected(void *ctx, int transport, int port_side, uint16_t port)
{
    recording *r = ctx;
    if (transport == GW_TRANSPORT_UDP) {
        r->announcing = true;
        r->announced_side = port_side;
        r->announced_port = port;
    }
}

static gw_sink *load_begin(void *ctx, const gw_protocol *p)
{
    recording *r = ctx;
    r->announcing = false;
    return out_pdu_begin(r->out, p);
}

/* "host:port" with another port (IPv6 hosts are bracketed) */
static void with_port(const char *endpoint, uint16_t port, char *out, size_t n)
{
    const char *colon = strrchr(endpoint, ':');
    int host = colon ? (int)(colon - endpoint) : (int)strlen(endpoint);
    snprintf(out, n, "%.*s:%u", host, endpoint, port);
}

static int64_t pdu_type(const out_pdu *o, const gw_protocol *p)
{
    uint64_t v;
    return out_pdu_first_u(o, p->type_field, &v) ? (int64_t)v : -1;
}

static unsigned load_end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    recording *r = ctx;
    /* conversations numbered as pcaptool stats lists them: by protocol and
       pair of endpoints, in the order they first appear */
    char key[192];
    out_conversation_key(p, m, key, sizeof key, NULL, NULL);
    gpointer n = g_hash_table_lookup(r->seen, key);
    if (!n) {
        n = GUINT_TO_POINTER(g_hash_table_size(r->seen) + 1);
        g_hash_table_insert(r->seen, g_strdup(key), n);
    }
    int channel = MAIN, dir = m->dir;
    if (GPOINTER_TO_UINT(n) == r->want && r->p && m->transport != r->transport) {
        /* the same endpoints over the other transport (OpenDrakan: reliable
           on TCP, the rest on UDP): a link with the same ports, oriented as
           the conversation's first transport is */
        channel = LINK;
        r->link_same_ports = true;
        dir = strcmp(m->src, r->endpoint[0]) != 0;
    } else if (GPOINTER_TO_UINT(n) != r->want) {
        /* the link the replayed conversation announced, oriented by the run
           as its parent is (0: the client) */
        if (p != r->p || m->transport != GW_TRANSPORT_UDP || !r->link_endpoint[0] ||
            (strcmp(m->src, r->link_endpoint) && strcmp(m->dst, r->link_endpoint)))
            return 0;
        channel = LINK;
    } else if (!r->p) {
        r->p = p;
        r->opts = run_opts(r->ro, p);
        r->transport = m->transport;
        g_strlcpy(r->endpoint[m->dir], m->src, sizeof r->endpoint[0]);
        g_strlcpy(r->endpoint[!m->dir], m->dst, sizeof r->endpoint[0]);
    }
    if (channel == MAIN && r->announcing)
        with_port(r->endpoint[r->announced_side], r->announced_port, r->link_endpoint,
                  sizeof r->link_endpoint);
    rec_pdu x = {.frame = m->frame, .time_ns = m->time_ns, .channel = channel, .transport = m->transport, .dir = dir,
                 .data = g_memdup2(m->data, m->len), .len = m->len, .type = pdu_type(r->out, p),
                 .summary = g_strdup(out_pdu_summary(r->out))};
    x.items = out_pdu_items(r->out, x.data, &x.n_items);
    g_array_append_val(r->pdus, x);
    return 0;
}

static void load_finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                         const out_finding *fd)
{
    (void)ctx; (void)p; (void)index; (void)m; (void)fd;
}

/* ---- the live exchange -------------------------------------------------- */

typedef struct {
    int channel;
    uint8_t *data;
    size_t len;
    int64_t type;
    gw_item *items;
    unsigned n_items;
    gw_replay_need need;
    bool closes;           /* an in-band close (gw_replay.closes) */
    char *summary;
} live_pdu;

/* n items of a PDU of protocol p, copied, pointing into `to`, a copy of
   the PDU's bytes */
static gw_item *copy_items(const gw_protocol *p, const gw_item *items, unsigned n, const uint8_t *to)
{
    gw_item *c = g_memdup2(items, (gsize)n * sizeof *items + 1);
    gw_replay_items_at(p, c, n, to);
    return c;
}

/* a live PDU as the replay hooks see it */
static gw_replay_pdu hook_view(const uint8_t *d, size_t len, int64_t type, int transport,
                               const gw_item *items, unsigned n_items)
{
    return (gw_replay_pdu){.data = d, .len = len, .type = type, .transport = transport, .live = true,
                           .items = items, .n_items = n_items};
}

static gw_replay_pdu rec_view(const rec_pdu *r)
{
    gw_replay_pdu v = hook_view(r->data, r->len, r->type, r->transport, r->items, r->n_items);
    v.live = false;
    return v;
}

/* a socket to the peer: the replayed conversation's, or the link's (UDP,
   opened when the recording has one, connected once the peer names its
   port) */
typedef struct {
    int fd;                /* -1: none */
    int transport;
    bool connected;
    struct sockaddr_storage local, peer;
    char local_name[64], peer_name[64];
    void *conv;            /* decoder state (NULL until first used) */
    uint32_t tcp_seq[2];   /* ours, the peer's: for --out (0: its handshake not written yet) */
} channel;

typedef struct {
    const recording *rec;
    const gw_protocol *p;
    int side;              /* our direction in the recording: 0 client, 1 server */
    double speed;
    bool no_wait;
    bool as_recorded;      /* our PDUs not adapted */
    int timeout_ms;
    out_format format;
    channel ch[N_CHANNELS];
    int64_t start_ns;      /* when the exchange began (monotonic) */
    int64_t sent_ns;       /* when our last PDU went (monotonic; start_ns before the first) */
    int64_t rec_sent_ns;   /* ... and when it went in the recording (the recording's first PDU before) */
    int64_t wall_start_ns; /* the same moment, wall clock (for output and --out) */
    /* received bytes not yet cut into PDUs (TCP) */
    GByteArray *inbuf;
    bool peer_closed;
    /* the peer's in-band close (gw_replay.closes) not yet found in the
       recording: its channel, type and summary (NULL: none) */
    int close_channel;
    int64_t close_type;
    char *close_summary;
    bool unreachable;      /* UDP: ICMP port unreachable before any answer */
    /* the peer's answers and periodic PDUs not yet matched to the recording */
    GArray *waiting;       /* live_pdu */
    unsigned unexpected;   /* answers the recording does not have */
    void *adapt_state;
    gw_replay_link *link;  /* in adapt_state, when the protocol has links */
    out_pdu *out;
    size_t n_pdus;         /* the recording's PDUs */
    unsigned frame;        /* live PDUs so far (frame numbers of --out) */
    unsigned sent, received, max_sev;
    pcap_dumper_t *dump;
    bool diverged;
    /* for --junit: the divergence, and the live exchange's findings by code */
    char *divergence;      /* "KIND\0text" */
    GArray *findings;      /* live_finding */
} live;

typedef struct {
    int finding;
    unsigned count, first_frame;
    char *first;
} live_finding;

static int64_t now_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void dump_frame(live *L, const uint8_t *f, size_t n, int64_t wall_ns)
{
    struct pcap_pkthdr h = {.caplen = (bpf_u_int32)n, .len = (bpf_u_int32)n};
    h.ts.tv_sec = (time_t)(wall_ns / 1000000000);
    h.ts.tv_usec = (suseconds_t)(wall_ns % 1000000000 / 1000);
    pcap_dump((u_char *)L->dump, &h, f);
}

/* a TCP channel's first PDU: the frames of its handshake in --out (who
   connected; counted as live frames, so that a live frame number is the
   --out frame) */
static void dump_tcp_open(live *L, channel *c, int64_t wall_ns)
{
    static uint8_t f[128];
    bool we_connect = L->side == 0;
    for (int k = 0; k < 3; k++) {
        L->frame++;
        if (L->dump)
            dump_frame(L, f, peer_tcp_open(f, k, we_connect ? &c->local : &c->peer, we_connect ? &c->peer : &c->local),
                       wall_ns);
    }
    c->tcp_seq[0] = c->tcp_seq[1] = 1;
}

/* a frame of --out around a PDU sent or received */
static void dump_pdu(live *L, channel *c, bool ours, const uint8_t *d, size_t len, int64_t wall_ns)
{
    if (!L->dump)
        return;
    static uint8_t f[65535];
    int way = ours ? 0 : 1; /* 0: ours, 1: the peer's */
    dump_frame(L, f, peer_frame(f, ours ? &c->local : &c->peer, ours ? &c->peer : &c->local,
                                c->transport == GW_TRANSPORT_TCP, &c->tcp_seq[way], c->tcp_seq[!way], d, len),
               wall_ns);
}

/* decode one live PDU with its conversation's state and print it; returns
   its type. The link's state begins as the decoder's linked conversation
   (gw_protocol.conv_link), as the run would begin it. */
static int64_t live_decode(live *L, int ch, bool ours, const uint8_t *d, size_t len)
{
    channel *c = &L->ch[ch];
    if (!c->conv) {
        c->conv = g_malloc(L->p->conv_size);
        L->p->conv_init(c->conv, L->rec->opts);
        if (ch == LINK && L->p->conv_link)
            L->p->conv_link(c->conv, L->ch[MAIN].conv);
    }
    int64_t wall = L->wall_start_ns + (now_ns(CLOCK_MONOTONIC) - L->start_ns);
    if (c->transport == GW_TRANSPORT_TCP && !c->tcp_seq[0])
        dump_tcp_open(L, c, wall);
    L->frame++;
    int dir = ours ? L->side : !L->side;
    gw_pdu_info pi = {.frame = L->frame, .time_ns = wall, .dir = dir, .transport = c->transport};
    const gw_sink *sink = out_pdu_begin(L->out, L->p);
    L->p->decode(c->conv, &pi, d, len, sink);
    out_meta m = {.frame = L->frame, .time_ns = wall, .src = ours ? c->local_name : c->peer_name,
                  .dst = ours ? c->peer_name : c->local_name, .len = len, .data = d, .dir = dir,
                  .transport = c->transport};
    out_pdu_write(L->out, L->format == OUT_JSON ? stdout : cli_report, L->format, 0, &m);
    cli_stdout_failed();
    for (unsigned k = 0; k < out_pdu_n_findings(L->out); k++) {
        const char *msg;
        int f = out_pdu_finding(L->out, k, &msg);
        guint i = 0;
        while (i < L->findings->len && g_array_index(L->findings, live_finding, i).finding != f)
            i++;
        if (i == L->findings->len) {
            live_finding x = {f, 0, L->frame, g_strdup(msg)};
            g_array_append_val(L->findings, x);
        }
        g_array_index(L->findings, live_finding, i).count++;
    }
    unsigned sev = out_pdu_max_severity(L->out);
    if (sev > L->max_sev)
        L->max_sev = sev;
    dump_pdu(L, c, ours, d, len, wall);
    return pdu_type(L->out, L->p);
}

static void set_peer(channel *c, const struct sockaddr_storage *a)
{
    c->peer = *a;
    c->connected = true;
    peer_endpoint_name(&c->peer, c->peer_name, sizeof c->peer_name);
}

/* the link goes to the port the peer named, on the peer's address */
static void connect_link(live *L)
{
    channel *c = &L->ch[LINK];
    if (c->fd < 0 || c->connected || !L->link || !L->link->peers)
        return;
    struct sockaddr_storage a = L->ch[MAIN].peer;
    peer_set_port(&a, L->link->peers);
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) == 0)
        set_peer(c, &a);
}

static void divergence(live *L, const rec_pdu *r, const char *what, const char *detail)
{
    if (L->diverged)
        return;
    L->diverged = true;
    L->divergence = r ? g_strdup_printf("%s%crecorded frame %u, %s: %s (after live frame %u)", what, 0,
                                        r->frame, r->summary, detail, L->frame)
                      : g_strdup_printf("%s%c%s (after live frame %u)", what, 0, detail, L->frame);
    if (L->format == OUT_JSON) {
        printf("{\"record\":\"divergence\",\"step\":%u,\"kind\":\"%s\",\"recorded_frame\":%u,"
               "\"expected\":",
               L->frame, what, r ? r->frame : 0);
        const char *exp = r ? r->summary : "";
        out_json_string(stdout, (const uint8_t *)exp, strlen(exp));
        printf(",\"detail\":");
        out_json_string(stdout, (const uint8_t *)detail, strlen(detail));
        printf("}\n");
    } else {
        fprintf(cli_report, "DIVERGENCE (%s) after live frame %u: ", what, L->frame);
        if (r)
            fprintf(cli_report, "recorded frame %u, %s: ", r->frame, r->summary);
        fprintf(cli_report, "%s\n", detail);
    }
}

static gw_replay_need need_of(const gw_replay *rp, void *hooks, const gw_replay_pdu *x)
{
    return rp ? rp->need(hooks, x) : GW_REPLAY_ANSWER;
}

static void free_live_pdu(live_pdu *x)
{
    g_free(x->data);
    g_free(x->items);
    g_free(x->summary);
}

/* a PDU from the peer: decoded, printed, learnt from, and kept unless
   optional */
#define MAX_PARTS 64 /* parts of one PDU judged one by one; more are judged as one */

/* the parts of p (gw_replay.parts) into parts[], their count (p itself: 1) */
static unsigned parts_of(const gw_replay *rp, const gw_replay_pdu *p, gw_replay_pdu parts[MAX_PARTS])
{
    unsigned n = rp && rp->parts ? rp->parts(p, parts, MAX_PARTS) : 0;
    if (n == 0 || n > MAX_PARTS) {
        parts[0] = *p;
        n = 1;
    }
    return n;
}

/* a summary of part k of n */
static char *part_summary(const char *summary, unsigned k, unsigned n)
{
    return n > 1 ? g_strdup_printf("%s (part %u of %u)", summary, k + 1, n) : g_strdup(summary);
}

/* a PDU from the peer: decoded, printed, learnt from, and each of its
   parts kept unless optional */
static void on_received(live *L, int ch, const uint8_t *d, size_t len)
{
    L->received++;
    int64_t type = live_decode(L, ch, false, d, len);
    unsigned n_items;
    gw_item *items = out_pdu_items(L->out, d, &n_items);
    gw_replay_pdu view = hook_view(d, len, type, L->ch[ch].transport, items, n_items);
    const gw_replay *rp = L->rec->rp;
    if (rp && rp->observe) {
        rp->observe(L->adapt_state, &view, false);
        connect_link(L);
    }
    gw_replay_pdu parts[MAX_PARTS];
    unsigned n = rp && rp->repeats && rp->repeats(L->adapt_state, &view) ? 0 : parts_of(L->rec->rp, &view, parts);
    for (unsigned k = 0; k < n; k++) {
        gw_replay_pdu *part = &parts[k];
        bool closes = rp && rp->closes && rp->closes(L->adapt_state, part);
        if (closes && !L->close_summary) {
            L->close_channel = ch;
            L->close_type = part->type;
            L->close_summary = part_summary(out_pdu_summary(L->out), k, n);
        }
        gw_replay_need need = need_of(L->rec->rp, L->adapt_state, part);
        if (need == GW_REPLAY_OPTIONAL)
            continue;
        live_pdu x = {.channel = ch, .data = g_memdup2(d, len), .len = len, .type = part->type,
                      .n_items = part->n_items, .need = need, .closes = closes,
                      .summary = part_summary(out_pdu_summary(L->out), k, n)};
        x.items = copy_items(L->p, part->items, part->n_items, x.data);
        g_array_append_val(L->waiting, x);
    }
    g_free(items);
}

/* the peer's recorded PDUs, each as its parts (ours go whole) */
static void split_parts(recording *r, int side)
{
    if (!r->rp || !r->rp->parts)
        return;
    GArray *all = g_array_new(FALSE, TRUE, sizeof(rec_pdu));
    for (guint i = 0; i < r->pdus->len; i++) {
        rec_pdu *x = &g_array_index(r->pdus, rec_pdu, i);
        gw_replay_pdu parts[MAX_PARTS], v = rec_view(x);
        unsigned n = x->dir == side ? 0 : parts_of(r->rp, &v, parts);
        if (n == 0) {
            g_array_append_val(all, *x);
            continue;
        }
        for (unsigned k = 0; k < n; k++) {
            rec_pdu y = *x;
            y.data = g_memdup2(x->data, x->len);
            y.items = copy_items(r->p, parts[k].items, parts[k].n_items, y.data);
            y.n_items = parts[k].n_items;
            y.type = parts[k].type;
            y.summary = part_summary(x->summary, k, n);
            g_array_append_val(all, y);
        }
        g_free(x->data);
        g_free(x->items);
        g_free(x->summary);
    }
    g_array_free(r->pdus, TRUE);
    r->pdus = all;
}

static void on_stream_pdu(void *ctx, const uint8_t *d, size_t len, const tcp_stamp *at)
{
    (void)at;
    on_received(ctx, MAIN, d, len);
}

/* cut the received stream into PDUs (TCP) with the reassembler's framing */
static void cut_stream(live *L)
{
    tcp_sink ts = {on_stream_pdu, NULL, L}; /* tcp_cut raises no events */
    long pending;
    size_t used = tcp_cut(L->p, L->rec->opts, L->inbuf->data, L->inbuf->len, NULL, &ts, &pending);
    if (pending > (long)MAX_PDU) { /* not waited for: the rest as one */
        on_received(L, MAIN, L->inbuf->data + used, L->inbuf->len - used);
        used = L->inbuf->len;
    }
    g_byte_array_remove_range(L->inbuf, 0, (guint)used);
}

static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                   &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

/* a datagram on the link: before the peer named its port, the first one
   from the peer's host names it (anybody else's are dropped) */
static void receive_link(live *L)
{
    channel *c = &L->ch[LINK];
    uint8_t buf[65536];
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(c->fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
    if (n <= 0) /* nothing, or an ICMP unreachable from an earlier send */
        return;
    if (!c->connected) {
        if (!same_host(&from, &L->ch[MAIN].peer) || connect(c->fd, (struct sockaddr *)&from, fl))
            return;
        set_peer(c, &from);
        if (L->link)
            L->link->peers = peer_port_of(&from);
    }
    on_received(L, LINK, buf, (size_t)n);
}

/* receive for at most ms milliseconds (0: only what is there); false when
   nothing more can come */
static bool receive(live *L, int ms)
{
    if (L->peer_closed) { /* the link may still hold datagrams */
        struct pollfd lp = {L->ch[LINK].fd, POLLIN, 0};
        while (lp.fd >= 0 && poll(&lp, 1, 0) > 0)
            receive_link(L);
        return false;
    }
    struct pollfd pf[N_CHANNELS] = {{L->ch[MAIN].fd, POLLIN, 0}, {L->ch[LINK].fd, POLLIN, 0}};
    int r = poll(pf, L->ch[LINK].fd >= 0 ? 2 : 1, ms);
    if (r <= 0)
        return r == 0;
    if (L->ch[LINK].fd >= 0 && (pf[LINK].revents & POLLIN))
        receive_link(L);
    if (!pf[MAIN].revents)
        return true;
    channel *c = &L->ch[MAIN];
    uint8_t buf[65536];
    ssize_t n = recv(c->fd, buf, sizeof buf, 0);
    if (n < 0) {
        /* UDP: an ICMP port unreachable from an earlier send: its port
           closed. What it sent before is still queued (the error comes
           first): read that too. Before any answer the target cannot be
           reached. */
        bool refused = errno == ECONNREFUSED && c->transport == GW_TRANSPORT_UDP;
        while (refused && (n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT)) >= 0)
            if (n > 0)
                on_received(L, MAIN, buf, (size_t)n);
        if (refused && L->received == 0)
            L->unreachable = true;
        L->peer_closed = true;
        return false;
    }
    if (c->transport == GW_TRANSPORT_UDP) {
        if (n > 0)
            on_received(L, MAIN, buf, (size_t)n);
        return true;
    }
    if (n == 0) {
        L->peer_closed = true;
        return false;
    }
    g_byte_array_append(L->inbuf, buf, (guint)n);
    cut_stream(L);
    return true;
}

/* match the waiting live PDUs to the peer's recorded ones in pdus[a, b):
   an answer to an answer of its type not matched yet; a periodic PDU to all
   the periodic ones of its type (the first one that comes is checked).
   Periodic PDUs the stretch has no use for are dropped; answers stay, they
   may come early for a later stretch. */
static bool same_kind(const live *L, const rec_pdu *r, const live_pdu *x)
{
    return r->dir != L->side && r->channel == x->channel && r->need == x->need && r->type == x->type;
}

static void match_waiting(live *L, rec_pdu *pdus, size_t a, size_t b)
{
    const gw_replay *rp = L->rec->rp;
    for (guint w = 0; w < L->waiting->len && !L->diverged;) {
        live_pdu *x = &g_array_index(L->waiting, live_pdu, w);
        rec_pdu *r = NULL;
        bool fresh = false;
        for (size_t i = a; i < b && !fresh; i++)
            if (same_kind(L, &pdus[i], x) && (!pdus[i].matched || x->need == GW_REPLAY_PERIODIC)) {
                fresh = !pdus[i].matched;
                if (!r || fresh)
                    r = &pdus[i];
            }
        if (!r && x->need == GW_REPLAY_ANSWER) {
            w++;
            continue;
        }
        /* of the answers it may stand for, the one it identifies; a close
           that stands for none is not the recording's (lost_in_band) */
        gw_replay_pdu lv = hook_view(x->data, x->len, x->type, L->ch[x->channel].transport, x->items,
                                     x->n_items);
        bool identified = false;
        for (size_t i = (size_t)(r - pdus); fresh && x->need == GW_REPLAY_ANSWER && rp && rp->identifies && i < b; i++) {
            gw_replay_pdu rv = rec_view(&pdus[i]);
            if (same_kind(L, &pdus[i], x) && !pdus[i].matched && rp->identifies(L->adapt_state, &rv, &lv)) {
                r = &pdus[i];
                identified = true;
                break;
            }
        }
        if (fresh && x->closes && rp && rp->identifies && !identified) {
            w++;
            continue;
        }
        if (fresh) {
            char why[200] = "";
            gw_replay_pdu rv = rec_view(r);
            if (rp && !rp->match(L->adapt_state, &rv, &lv, why, sizeof why))
                divergence(L, r, "field", why);
            connect_link(L);
            if (x->closes) { /* the recording's close, here */
                g_free(L->close_summary);
                L->close_summary = NULL;
            }
            for (size_t i = a; i < b; i++)
                if (same_kind(L, &pdus[i], x) && (&pdus[i] == r || x->need == GW_REPLAY_PERIODIC))
                    pdus[i].matched = true;
        }
        free_live_pdu(x);
        g_array_remove_index(L->waiting, w);
    }
}

static rec_pdu *first_unmatched(const live *L, rec_pdu *pdus, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (pdus[i].dir != L->side && pdus[i].need != GW_REPLAY_OPTIONAL && !pdus[i].matched)
            return &pdus[i];
    return NULL;
}

/* The peer closed in band. Where the recording's peer closes too, from
   the stretch pdus[a, b) on, with nothing more it must send before (only
   our PDUs, which the close may cross), that is its close, and it is
   forgotten. Else, while we have `next` to send or answers still to
   await, the replay cannot go on: `connection lost`. */
static bool lost_in_band(live *L, rec_pdu *pdus, size_t a, size_t b, rec_pdu *next)
{
    if (!L->close_summary || L->diverged)
        return L->diverged;
    for (size_t i = a; i < L->n_pdus; i++) {
        if (pdus[i].dir == L->side || pdus[i].matched)
            continue;
        gw_replay_pdu rv = rec_view(&pdus[i]);
        if (pdus[i].channel == L->close_channel && pdus[i].type == L->close_type &&
            L->rec->rp->closes(L->adapt_state, &rv)) {
            g_free(L->close_summary);
            L->close_summary = NULL;
            return false;
        }
        if (pdus[i].need != GW_REPLAY_OPTIONAL)
            break; /* it had to send this first */
    }
    rec_pdu *r = first_unmatched(L, pdus, a, b); /* what will not come, else what we cannot send */
    if (!r)
        r = next;
    if (!r)
        return false; /* nothing left to do: the exchange is complete */
    char detail[300];
    snprintf(detail, sizeof detail, "the peer sent %s, a close the recording does not have here",
             L->close_summary);
    divergence(L, r, "connection lost", detail);
    return true;
}

/* wait until the peer's answers and periodic PDUs in pdus[a, b) have come
   (`next`: our PDU to send after them, or NULL). An answer may take as long
   after our last PDU as it took in the recording (at --speed), and
   --timeout more. */
static void await_answers(live *L, rec_pdu *pdus, size_t a, size_t b, rec_pdu *next)
{
    int64_t took = 0;
    for (size_t i = a; i < b; i++)
        if (pdus[i].dir != L->side && pdus[i].time_ns - L->rec_sent_ns > took)
            took = pdus[i].time_ns - L->rec_sent_ns;
    int64_t deadline = now_ns(CLOCK_MONOTONIC) + (int64_t)L->timeout_ms * 1000000;
    int64_t recorded = L->sent_ns + (int64_t)((double)took / L->speed) + (int64_t)L->timeout_ms * 1000000;
    if (recorded > deadline)
        deadline = recorded;
    rec_pdu *r;
    for (;;) {
        match_waiting(L, pdus, a, b); /* what came last too, before giving up */
        if (lost_in_band(L, pdus, a, b, next))
            return;
        if (L->diverged || L->unreachable || !(r = first_unmatched(L, pdus, a, b)))
            return;
        int64_t left = (deadline - now_ns(CLOCK_MONOTONIC)) / 1000000;
        if (left <= 0 || !receive(L, (int)left)) {
            match_waiting(L, pdus, a, b);
            if (lost_in_band(L, pdus, a, b, next))
                return;
            if (L->diverged || L->unreachable || !(r = first_unmatched(L, pdus, a, b)) || r->unasked)
                return;
            char detail[300];
            if (L->waiting->len) {
                const live_pdu *x = &g_array_index(L->waiting, live_pdu, 0);
                snprintf(detail, sizeof detail, "the peer sent %s (%zu %s) instead", x->summary,
                         x->len, gw_bytes(x->len));
                divergence(L, r, "different type", detail);
            } else {
                if (L->peer_closed)
                    snprintf(detail, sizeof detail, "the peer closed the connection first");
                else
                    snprintf(detail, sizeof detail, "not received within %.1f s", L->timeout_ms / 1000.0);
                divergence(L, r, "missing answer", detail);
            }
            return;
        }
    }
}

static void play(live *L, rec_pdu *pdus, size_t n)
{
    size_t seg = 0; /* the first recorded PDU since our last one */
    L->n_pdus = n;
    int64_t t0 = n ? pdus[0].time_ns : 0;
    L->sent_ns = L->start_ns;
    L->rec_sent_ns = t0;
    for (size_t i = 0; i < n && !L->diverged && !L->unreachable; i++) {
        if (pdus[i].dir != L->side)
            continue;
        await_answers(L, pdus, seg, i, &pdus[i]);
        if (L->diverged || L->unreachable)
            break;
        if (!L->no_wait) { /* the recorded pace, receiving meanwhile */
            int64_t due = L->start_ns + (int64_t)((double)(pdus[i].time_ns - t0) / L->speed);
            int64_t left;
            while ((left = due - now_ns(CLOCK_MONOTONIC)) > 0 && receive(L, (int)(left / 1000000) + 1))
                ;
        }
        match_waiting(L, pdus, seg, i); /* what came meanwhile belongs to this stretch */
        if (lost_in_band(L, pdus, seg, i, &pdus[i]))
            break;
        channel *c = &L->ch[pdus[i].channel];
        if (!c->connected) {
            divergence(L, &pdus[i], "missing answer", "the peer named no port for the link");
            break;
        }
        uint8_t *d = g_memdup2(pdus[i].data, pdus[i].len);
        if (L->rec->rp && !L->as_recorded) {
            gw_replay_pdu rv = rec_view(&pdus[i]);
            L->rec->rp->adapt(L->adapt_state, &rv, d);
        }
        if (!peer_send_all(c->fd, c->transport == GW_TRANSPORT_UDP, d, pdus[i].len, L->timeout_ms)) {
            char detail[200];
            snprintf(detail, sizeof detail, "sending failed: %s", strerror(errno));
            divergence(L, &pdus[i], "connection lost", detail);
            g_free(d);
            break;
        }
        L->sent++;
        L->sent_ns = now_ns(CLOCK_MONOTONIC);
        L->rec_sent_ns = pdus[i].time_ns;
        int64_t type = live_decode(L, pdus[i].channel, true, d, pdus[i].len);
        if (L->rec->rp && L->rec->rp->observe) {
            unsigned n_items;
            gw_item *items = out_pdu_items(L->out, d, &n_items);
            gw_replay_pdu view = hook_view(d, pdus[i].len, type, c->transport, items, n_items);
            L->rec->rp->observe(L->adapt_state, &view, true);
            g_free(items);
        }
        g_free(d);
        receive(L, 0);
        seg = i + 1;
    }
    if (!L->diverged && !L->unreachable)
        await_answers(L, pdus, seg, n, NULL);
    for (guint w = 0; w < L->waiting->len; w++)
        if (g_array_index(L->waiting, live_pdu, w).need == GW_REPLAY_ANSWER)
            L->unexpected++;
}

/* A close the recording's peer made at the end on its own, over a second
   after our last PDU (an operator's kick, a server shutting down), answers
   nothing we sent: it is waited for as long as it took, but a live peer
   that does not close there owes nothing (a note says so). A close sooner
   than that may answer our last PDU, and stays what it was. */
#define UNASKED_CLOSE_NS 1000000000ll
static void mark_unasked_close(recording *r, rec_pdu *pdus, int side)
{
    if (!r->rp || !r->rp->closes)
        return;
    int64_t last_ours = -1;
    for (guint i = 0; i < r->pdus->len; i++)
        if (pdus[i].dir == side)
            last_ours = pdus[i].time_ns;
    for (guint i = 0; i < r->pdus->len; i++) {
        gw_replay_pdu rv = rec_view(&pdus[i]);
        if (pdus[i].dir != side && last_ours >= 0 && pdus[i].time_ns - last_ours > UNASKED_CLOSE_NS &&
            r->rp->closes(r->hooks, &rv))
            pdus[i].unasked = true;
    }
}

/* ---- setting up --------------------------------------------------------- */

/* A client whose recording carries the conversation over TCP and UDP on the
   same ports binds its UDP socket before it connects, on the port its TCP
   connection will use: a server sends its first datagrams as soon as it
   has accepted, and a socket bound only after connect() could miss them
   (seen on a loaded machine). A port whose TCP side is taken is tried
   again with another. */
#define PRELINK (-2)
static void prebind_link(live *L, int tcp_fd, int family)
{
    channel *c = &L->ch[LINK];
    c->fd = -1;
    for (int attempt = 0; attempt < 16 && c->fd < 0; attempt++) {
        struct sockaddr_storage a = {.ss_family = (sa_family_t)family};
        socklen_t al = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
        int u = socket(family, SOCK_DGRAM, 0);
        if (u < 0)
            return;
        if (bind(u, (struct sockaddr *)&a, al) == 0 && getsockname(u, (struct sockaddr *)&a, &al) == 0 &&
            bind(tcp_fd, (struct sockaddr *)&a, al) == 0)
            c->fd = u;
        else
            close(u);
    }
}

/* the socket to the peer: connected to the target (client), or bound to it
   and then connected to the first peer that comes (server); -1 and the
   reason in why on failure */
static int open_peer(live *L, const char *target, int *err_is_timeout, char *why, size_t whysz)
{
    char host[256], port[16];
    *err_is_timeout = 0;
    if (!peer_parse_target(target, host, sizeof host, port, sizeof port)) {
        snprintf(why, whysz, "bad --target '%s' (HOST:PORT, [IPV6]:PORT)", target);
        return -1;
    }
    bool tcp = L->rec->transport == GW_TRANSPORT_TCP;
    struct addrinfo hints = {.ai_socktype = tcp ? SOCK_STREAM : SOCK_DGRAM,
                             .ai_flags = L->side ? AI_PASSIVE : 0}, *ai;
    int e = getaddrinfo(host, port, &hints, &ai);
    if (e) {
        snprintf(why, whysz, "--target %s: %s", target, gai_strerror(e));
        return -1;
    }
    int fd = socket(ai->ai_family, ai->ai_socktype, 0);
    if (fd < 0) {
        snprintf(why, whysz, "socket: %s", strerror(errno));
        freeaddrinfo(ai);
        return -1;
    }
    if (!L->side) {
        if (L->ch[LINK].fd == PRELINK)
            prebind_link(L, fd, ai->ai_family);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
            snprintf(why, whysz, "cannot connect to %s: %s", target, strerror(errno));
            close(fd);
            freeaddrinfo(ai);
            return -1;
        }
        freeaddrinfo(ai);
        return fd;
    }
    /* the server: the first peer to come is the only one heard */
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || (tcp && listen(fd, 1) < 0)) {
        snprintf(why, whysz, "cannot listen on %s: %s", target, strerror(errno));
        close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    /* said once the socket listens: a script may start the peer now */
    fprintf(stderr, "replay: waiting for the peer on %s\n", target);
    struct pollfd pf = {fd, POLLIN, 0};
    int wait_ms = L->timeout_ms > PEER_WAIT_MS ? L->timeout_ms : PEER_WAIT_MS;
    if (poll(&pf, 1, wait_ms) <= 0) {
        snprintf(why, whysz, "no peer came to %s within %.1f s", target, wait_ms / 1000.0);
        close(fd);
        *err_is_timeout = 1;
        return -1;
    }
    if (tcp) {
        int c = accept(fd, NULL, NULL);
        close(fd);
        if (c < 0)
            snprintf(why, whysz, "accept: %s", strerror(errno));
        return c;
    }
    /* UDP: the first datagram's sender becomes the peer; the datagram stays
       queued for the exchange to read */
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    uint8_t b;
    if (recvfrom(fd, &b, 1, MSG_PEEK, (struct sockaddr *)&from, &fl) < 0 ||
        connect(fd, (struct sockaddr *)&from, fl) < 0) {
        snprintf(why, whysz, "%s: %s", target, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* JUnit: one suite for the replay, a case for its agreement with the
   recording and one for the live exchange's findings; when the replay
   could not run (error: why), one case with that error. L may be NULL
   (nothing was exchanged), proto "" when the protocol is not known. */
static bool write_junit(const char *path, const live *L, const char *proto, const char *suite,
                        unsigned fail_on, const char *error)
{
    FILE *f = cli_open_report(path);
    if (!f)
        return false;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pcaptool replay\">\n"
          "  <testsuite name=\"", f);
    out_xml_text(f, suite);
    if (error) {
        fputs("\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n", f);
        fprintf(f, "    <testcase classname=\"replay%s%s\" name=\"answers as recorded\">\n"
                   "      <error type=\"cannot replay\" message=\"", *proto ? "." : "", proto);
        out_xml_text(f, error);
        fputs("\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n", f);
        return cli_close_report(f, path);
    }
    const gw_protocol *p = L->p;
    GString *detail = g_string_new(NULL);
    unsigned failing = 0, total = 0;
    gw_severity worst = GW_SEV_NOTE;
    for (guint i = 0; i < L->findings->len; i++) {
        const live_finding *x = &g_array_index(L->findings, live_finding, i);
        const gw_finding_def *d = &p->findings[x->finding];
        total += x->count;
        if (fail_on && (unsigned)d->severity + 1 >= fail_on)
            failing += x->count;
        if (d->severity > worst)
            worst = d->severity;
        g_string_append_printf(detail, "%s %s: %u time%s, first in live frame %u: %s\n",
                               gw_severity_name(d->severity), d->code, x->count,
                               x->count == 1 ? "" : "s", x->first_frame, x->first);
    }
    fprintf(f, "\" tests=\"2\" failures=\"%u\" errors=\"0\" skipped=\"0\">\n",
            (L->diverged ? 1u : 0u) + (failing ? 1u : 0u));
    fprintf(f, "    <testcase classname=\"replay.%s\" name=\"answers as recorded\">\n", p->name);
    if (L->divergence) {
        const char *kind = L->divergence, *text = kind + strlen(kind) + 1;
        fputs("      <failure type=\"", f);
        out_xml_text(f, kind);
        fputs("\" message=\"", f);
        out_xml_text(f, text);
        fputs("\"/>\n", f);
    }
    fprintf(f, "    </testcase>\n    <testcase classname=\"replay.%s\" name=\"%s.well_formed\">\n",
            p->name, p->name);
    if (total) {
        if (failing)
            fprintf(f, "      <failure type=\"%s\" message=\"%u finding%s\">", gw_severity_name(worst),
                    total, total == 1 ? "" : "s");
        else
            fputs("      <system-out>", f);
        out_xml_text(f, detail->str);
        fputs(failing ? "</failure>\n" : "</system-out>\n", f);
    }
    fputs("    </testcase>\n  </testsuite>\n</testsuites>\n", f);
    g_string_free(detail, TRUE);
    return cli_close_report(f, path);
}

static bool recording_has_link(const recording *r)
{
    for (guint i = 0; i < r->pdus->len; i++)
        if (g_array_index(r->pdus, rec_pdu, i).channel == LINK)
            return true;
    return false;
}

/* the link's socket, on the address of the replayed conversation's: on the
   same ports at both ends when the recording has the conversation itself
   on the other transport, else on a port of its own, told to the
   protocol's hooks */
static void open_link(live *L, bool same_ports)
{
    channel *c = &L->ch[LINK], *m = &L->ch[MAIN];
    c->transport = m->transport == GW_TRANSPORT_TCP ? GW_TRANSPORT_UDP : GW_TRANSPORT_TCP;
    if (c->transport == GW_TRANSPORT_TCP) {
        fprintf(stderr, "pcaptool: the recording's TCP part is not replayed when it begins over UDP\n");
        return;
    }
    c->local = m->local;
    peer_set_port(&c->local, same_ports ? peer_port_of(&m->local) : 0);
    socklen_t sl = sizeof c->local;
    bool prebound = c->fd >= 0; /* by prebind_link, on the same port */
    if (!prebound)
        c->fd = socket(c->local.ss_family, SOCK_DGRAM, 0);
    if (c->fd < 0 || (!prebound && (bind(c->fd, (struct sockaddr *)&c->local, sizeof c->local) < 0 ||
                                    getsockname(c->fd, (struct sockaddr *)&c->local, &sl) < 0))) {
        fprintf(stderr, "pcaptool: no UDP socket for the link: %s\n", strerror(errno));
        if (c->fd >= 0)
            close(c->fd);
        c->fd = -1;
        return;
    }
    peer_endpoint_name(&c->local, c->local_name, sizeof c->local_name);
    g_strlcpy(c->peer_name, "?", sizeof c->peer_name);
    if (same_ports) {
        struct sockaddr_storage a = m->peer;
        if (connect(c->fd, (struct sockaddr *)&a, sizeof a) == 0)
            set_peer(c, &a);
    } else if (L->link) {
        L->link->ours = peer_port_of(&c->local);
    }
}

/* what the decoders leave open when the conversation ends (as validate
   reports on the --out capture): counted, printed, and judged with
   --fail-on like the PDUs' findings */
static int ending_channel; /* the channel whose conversation ends */

static void on_end_finding(void *ctx, uint32_t frame, int64_t time_ns, int dir, int finding, size_t off,
                           size_t len, const char *msg)
{
    live *L = ctx;
    channel *c = &L->ch[ending_channel];
    const gw_finding_def *d = &L->p->findings[finding];
    bool ours = dir == L->side;
    out_meta m = {.frame = frame, .time_ns = time_ns, .src = ours ? c->local_name : c->peer_name,
                  .dst = ours ? c->peer_name : c->local_name, .dir = dir, .transport = c->transport};
    out_finding fd = {.proto = L->p->name, .short_name = L->p->short_name, .summary = "End of conversation",
                      .code = d->code, .severity = d->severity, .off = off, .len = len, .message = msg,
                      .end_of_conversation = true};
    out_finding_write(L->format == OUT_JSON ? stdout : cli_report, L->format, &m, &fd);
    guint i = 0;
    while (i < L->findings->len && g_array_index(L->findings, live_finding, i).finding != finding)
        i++;
    if (i == L->findings->len) {
        live_finding x = {finding, 0, frame, g_strdup(msg)};
        g_array_append_val(L->findings, x);
    }
    g_array_index(L->findings, live_finding, i).count++;
    if ((unsigned)d->severity + 1 > L->max_sev)
        L->max_sev = (unsigned)d->severity + 1;
}

static void end_conversations(live *L)
{
    if (!L->p->conv_end)
        return;
    for (int i = 0; i < N_CHANNELS; i++)
        if (L->ch[i].conv) {
            ending_channel = i;
            gw_end_sink es = {L, on_end_finding, NULL};
            L->p->conv_end(L->ch[i].conv, &es);
        }
    cli_stdout_failed();
}

static void close_live(live *L)
{
    for (int i = 0; i < N_CHANNELS; i++) {
        if (L->ch[i].fd >= 0)
            close(L->ch[i].fd);
        if (L->ch[i].conv) {
            L->p->conv_free(L->ch[i].conv);
            g_free(L->ch[i].conv);
        }
    }
}

static void replay_usage(FILE *f)
{
    fputs("Usage: pcaptool replay --target HOST:PORT [OPTIONS] FILE\n"
          "\n"
          "Play one side of a recorded conversation against a live peer and judge its\n"
          "answers with the decoders and the recording.\n"
          "\n"
          "  -t, --target HOST:PORT     the live peer (client side: where to connect or send;\n"
          "                             server side: where to listen for it)\n"
          "  -s, --side client|server   the side pcaptool plays (default client)\n"
          "  -c, --conversation N       the Nth conversation, as pcaptool stats lists them\n"
          "                             (default 1)\n"
          "      --speed X              X times the recorded pace (default 1)\n"
          "      --no-wait              send as soon as the answers have come (not with\n"
          "                             --speed)\n"
          "      --timeout SECONDS      longest wait for an answer past the time it took in\n"
          "                             the recording (default 5)\n"
          "      --as-recorded          send our PDUs byte for byte as recorded, without\n"
          "                             adapting them to the live peer\n"
          "  -w, --out FILE             write what was sent and received to a pcap\n"
          "      --dry-run              print what would be sent; contact nobody\n"
          "  -T, --format text|json     output format (default text)\n"
          "      --junit FILE           also write JUnit XML, whatever the outcome; '-' puts\n"
          "                             it on standard output and the text on standard error\n"
          "                             (not with --format json)\n"
          "  -q, --quiet                no text report (the exit code, JSON or JUnit tell)\n"
          "      --fail-on error|warning|note|never   as for decode (default error)\n"
          "  -p, --port, -n, --no-heuristics, -o, --option, --profile   as for decode\n"
          "\n"
          "Exit codes: 0 the peer answered as recorded, no finding at or above --fail-on;\n"
          "1 a divergence, or such findings, or no peer came to a server side; 2 usage\n"
          "error, unreadable capture, no such conversation, a peer that cannot be reached\n"
          "(connection refused, ICMP port unreachable), or output that could not be\n"
          "written.\n",
          f);
}

static void free_recording(recording *r)
{
    for (guint i = 0; i < r->pdus->len; i++) {
        g_free(g_array_index(r->pdus, rec_pdu, i).data);
        g_free(g_array_index(r->pdus, rec_pdu, i).items);
        g_free(g_array_index(r->pdus, rec_pdu, i).summary);
    }
    g_array_free(r->pdus, TRUE);
    g_hash_table_destroy(r->seen);
    out_pdu_free(r->out);
    g_free(r->hooks);
}

static void dry_run(const recording *r, int side, out_format fmt)
{
    const rec_pdu *pdus = (const rec_pdu *)(const void *)r->pdus->data;
    for (guint i = 0; i < r->pdus->len; i++) {
        const rec_pdu *x = &pdus[i];
        double t = (double)(x->time_ns - pdus[0].time_ns) / 1e9;
        static const char *const needs[] = {[GW_REPLAY_OPTIONAL] = "may receive",
                                            [GW_REPLAY_PERIODIC] = "periodic",
                                            [GW_REPLAY_ANSWER] = "await"};
        const char *what = x->dir == side ? "send" : needs[x->need];
        if (fmt == OUT_JSON) {
            printf("{\"record\":\"plan\",\"step\":\"%s\",\"recorded_frame\":%u,\"offset\":%.6f,"
                   "\"length\":%zu,\"link\":%s,\"summary\":",
                   what, x->frame, t, x->len, x->channel == LINK ? "true" : "false");
            out_json_string(stdout, (const uint8_t *)x->summary, strlen(x->summary));
            printf("}\n");
        } else {
            printf("%10.6f  %-11s %s (recorded frame %u, %zu %s%s)\n", t, what, x->summary,
                   x->frame, x->len, gw_bytes(x->len), x->channel == LINK ? ", on the UDP link" : "");
        }
    }
}

/* a replay that could not run: its JUnit file all the same, then status */
static int replay_end(const char *junit, const live *L, const char *proto, char *suite,
                      unsigned fail_on, const char *why, int status)
{
    if (junit && !write_junit(junit, L, proto, suite, fail_on, why))
        status = EXIT_USAGE;
    g_free(suite);
    return cli_finish(status);
}

enum { O_SPEED = 1000, O_NO_WAIT, O_TIMEOUT, O_DRY, O_AS_RECORDED, O_JUNIT };

/* replay's own options */
typedef struct {
    const char *target, *out_path, *junit;
    int side;
    unsigned conversation;
    double speed, timeout;
    bool no_wait, dry, as_recorded, quiet, speed_given;
    out_format fmt;
} replay_args;

static int replay_opt(void *ctx, int c, const char *arg)
{
    replay_args *a = ctx;
    char *end;
    switch (c) {
    case 't': a->target = arg; return 0;
    case 's': return cli_side_arg(arg, &a->side);
    case 'c':
        a->conversation = (unsigned)strtoul(arg, &end, 10);
        if (*end || a->conversation < 1)
            return cli_usage_error("bad --conversation '%s' (1, 2, ...)", arg);
        return 0;
    case O_SPEED:
        a->speed = strtod(arg, &end);
        if (*end || !(a->speed > 0))
            return cli_usage_error("bad --speed '%s' (a positive factor)", arg);
        a->speed_given = true;
        return 0;
    case O_NO_WAIT: a->no_wait = true; return 0;
    case O_TIMEOUT:
        a->timeout = strtod(arg, &end);
        if (*end || !(a->timeout > 0) || a->timeout > 3600)
            return cli_usage_error("bad --timeout '%s' (seconds, up to 3600)", arg);
        return 0;
    case 'w': a->out_path = arg; return 0;
    case O_DRY: a->dry = true; return 0;
    case O_AS_RECORDED: a->as_recorded = true; return 0;
    case O_JUNIT: a->junit = arg; return 0;
    case 'T':
        return parse_format(arg, &a->fmt) ? 0 : cli_usage_error("unknown format '%s' (text or json)", arg);
    default: a->quiet = true; return 0; /* 'q' */
    }
}

static int run_replay(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"target", required_argument, NULL, 't'},
        {"side", required_argument, NULL, 's'},
        {"conversation", required_argument, NULL, 'c'},
        {"speed", required_argument, NULL, O_SPEED},
        {"no-wait", no_argument, NULL, O_NO_WAIT},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"out", required_argument, NULL, 'w'},
        {"dry-run", no_argument, NULL, O_DRY},
        {"as-recorded", no_argument, NULL, O_AS_RECORDED},
        {"junit", required_argument, NULL, O_JUNIT},
        {"format", required_argument, NULL, 'T'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const cli_spec spec = {"t:s:c:w:T:q", longopts, CLI_RUN | CLI_FAIL_ON, replay_opt, replay_usage};
    replay_args a = {.conversation = 1, .speed = 1, .timeout = 5, .fmt = OUT_TEXT};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &a, &cc);
    if (rc != CLI_GO)
        return rc;
    if (optind != argc - 1)
        return cli_usage_error("needs exactly one capture file");
    if (!a.target && !a.dry)
        return cli_usage_error("needs --target HOST:PORT (or --dry-run)");
    if (a.no_wait && a.speed_given)
        return cli_usage_error("--no-wait and --speed exclude each other");
    if (a.dry && (a.junit || a.out_path))
        return cli_usage_error("--dry-run contacts nobody: --junit and --out have nothing to report");
    if (a.junit && strcmp(a.junit, "-") == 0 && a.fmt == OUT_JSON)
        return cli_usage_error("--format json and --junit - would both take standard output");
    cli_report_to(a.quiet ? 2 : a.junit && strcmp(a.junit, "-") == 0 ? 1 : 0);
    char *suite = g_strdup_printf("%s conversation %u, the %s against %s", argv[optind], a.conversation,
                                  a.side ? "server" : "client", a.target ? a.target : "nobody");
    char why[400] = "";

    recording r = {.want = a.conversation, .ro = &cc.ro, .out = out_pdu_new(), .pdus = g_array_new(FALSE, TRUE, sizeof(rec_pdu)),
                   .seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
    run_consumer cons = {&r, load_begin, load_end, load_finding, load_expected, NULL};
    unsigned ignored = 0;
    char err[320];
    int read_rc = run_file(&cc.ro, argv[optind], &cons, &ignored, err, sizeof err);
    if (read_rc)
        fprintf(stderr, "pcaptool: %s: %s%s\n", argv[optind], read_rc > 0 ? "warning: " : "", err);
    if (read_rc < 0) {
        snprintf(why, sizeof why, "%s: %s", argv[optind], err);
        free_recording(&r);
        return replay_end(a.junit, NULL, "", suite, cc.fail_on, why, EXIT_USAGE);
    }
    if (!r.p) {
        snprintf(why, sizeof why, "%s: no conversation %u (it has %u)", argv[optind], a.conversation,
                 g_hash_table_size(r.seen));
        fprintf(stderr, "pcaptool: %s\n", why);
        free_recording(&r);
        return replay_end(a.junit, NULL, "", suite, cc.fail_on, why, EXIT_USAGE);
    }
    /* the hooks see the whole recording, the peer's PDUs in parts, then
       say what the peer must send */
    r.rp = gw_replay_of(r.p);
    guint n_recorded = r.pdus->len;
    split_parts(&r, a.side);
    rec_pdu *pdus = (rec_pdu *)(void *)r.pdus->data;
    r.hooks = r.rp ? g_malloc0(r.rp->state_size) : NULL;
    for (guint i = 0; r.rp && r.rp->recorded && i < r.pdus->len; i++) {
        gw_replay_pdu rv = rec_view(&pdus[i]);
        r.rp->recorded(r.hooks, &rv, pdus[i].dir == a.side);
    }
    for (guint i = 0; i < r.pdus->len; i++) {
        gw_replay_pdu rv = rec_view(&pdus[i]);
        pdus[i].need = need_of(r.rp, r.hooks, &rv);
    }
    mark_unasked_close(&r, pdus, a.side);
    if (a.fmt == OUT_TEXT)
        fprintf(cli_report, "replay: %s conversation %u of %s (%s <-> %s, %u PDUs), playing the %s%s%s\n",
               r.p->short_name, a.conversation, argv[optind], r.endpoint[0], r.endpoint[1],
               n_recorded, a.side ? "server" : "client", a.target ? ", target " : "", a.target ? a.target : "");
    if (!r.rp && a.fmt == OUT_TEXT)
        fprintf(cli_report, "replay: no adaptation for %s: PDUs go as recorded, every answer is awaited\n",
                r.p->short_name);
    else if (a.as_recorded && a.fmt == OUT_TEXT)
        fprintf(cli_report, "replay: --as-recorded: our PDUs go byte for byte as recorded\n");
    if (a.dry) {
        dry_run(&r, a.side, a.fmt);
        free_recording(&r);
        g_free(suite);
        return cli_finish(EXIT_CLEAN);
    }

    live L = {.rec = &r, .p = r.p, .side = a.side, .speed = a.speed, .no_wait = a.no_wait,
              .as_recorded = a.as_recorded,
              .timeout_ms = (int)(a.timeout * 1000), .format = a.fmt};
    int timed_out;
    channel *m = &L.ch[MAIN];
    bool has_link = recording_has_link(&r);
    L.ch[LINK].fd = r.transport == GW_TRANSPORT_TCP && r.link_same_ports && has_link ? PRELINK : -1;
    m->fd = open_peer(&L, a.target, &timed_out, why, sizeof why);
    if (L.ch[LINK].fd == PRELINK)
        L.ch[LINK].fd = -1;
    if (m->fd < 0) {
        if (L.ch[LINK].fd >= 0)
            close(L.ch[LINK].fd);
        fprintf(stderr, "pcaptool: %s\n", why);
        const char *proto = r.p->name;
        free_recording(&r);
        if (timed_out) /* the peer's fault: a failure, not an error */
            return replay_end(a.junit, NULL, proto, suite, cc.fail_on, why, EXIT_FINDINGS);
        return replay_end(a.junit, NULL, proto, suite, cc.fail_on, why, EXIT_USAGE);
    }
    m->transport = r.transport;
    socklen_t sl = sizeof m->local;
    getsockname(m->fd, (struct sockaddr *)&m->local, &sl);
    peer_endpoint_name(&m->local, m->local_name, sizeof m->local_name);
    sl = sizeof m->peer;
    getpeername(m->fd, (struct sockaddr *)&m->peer, &sl);
    set_peer(m, &m->peer);
    L.adapt_state = r.hooks;
    if (has_link) {
        if (r.rp && r.rp->link)
            L.link = r.rp->link(L.adapt_state);
        open_link(&L, r.link_same_ports);
    }
    pcap_t *dead = NULL;
    if (a.out_path) {
        dead = pcap_open_dead(DLT_RAW, 65535);
        L.dump = pcap_dump_open(dead, a.out_path);
        if (!L.dump) {
            snprintf(why, sizeof why, "cannot write %s: %s", a.out_path, pcap_geterr(dead));
            fprintf(stderr, "pcaptool: %s\n", why);
            pcap_close(dead);
            close_live(&L);
            const char *proto = r.p->name;
            free_recording(&r);
            return replay_end(a.junit, NULL, proto, suite, cc.fail_on, why, EXIT_USAGE);
        }
    }
    L.inbuf = g_byte_array_new();
    L.waiting = g_array_new(FALSE, FALSE, sizeof(live_pdu));
    L.findings = g_array_new(FALSE, FALSE, sizeof(live_finding));
    m->conv = g_malloc(r.p->conv_size);
    r.p->conv_init(m->conv, r.opts);
    L.out = out_pdu_new();
    L.start_ns = now_ns(CLOCK_MONOTONIC);
    L.wall_start_ns = now_ns(CLOCK_REALTIME);

    play(&L, pdus, r.pdus->len);
    if (!L.unreachable)
        end_conversations(&L);
    char note[200] = "";
    for (guint i = 0; i < r.pdus->len && !L.unreachable; i++)
        if (pdus[i].unasked && !pdus[i].matched)
            snprintf(note, sizeof note, "the recording's peer closed the connection on its own at the end (frame "
                     "%u); the live peer did not, and nothing asked it to", pdus[i].frame);

    bool fail = L.diverged || (cc.fail_on && L.max_sev >= cc.fail_on);
    if (L.unreachable)
        snprintf(why, sizeof why, "%s cannot be reached (ICMP port unreachable)", a.target);
    if (L.unreachable)
        fprintf(stderr, "pcaptool: %s\n", why);
    else if (a.fmt == OUT_JSON) {
        printf("{\"record\":\"replay\",\"file\":");
        out_json_string(stdout, (const uint8_t *)argv[optind], strlen(argv[optind]));
        printf(",\"conversation\":%u,\"side\":\"%s\",\"target\":", a.conversation,
               a.side ? "server" : "client");
        out_json_string(stdout, (const uint8_t *)a.target, strlen(a.target));
        printf(",\"sent\":%u,\"received\":%u,\"unexpected\":%u,\"diverged\":%s,\"verdict\":\"%s\",\"note\":",
               L.sent, L.received, L.unexpected, L.diverged ? "true" : "false", fail ? "fail" : "pass");
        if (note[0])
            out_json_string(stdout, (const uint8_t *)note, strlen(note));
        else
            fputs("null", stdout);
        fputs("}\n", stdout);
    } else {
        fprintf(cli_report, "%s: %u sent, %u received", fail ? "FAIL" : "PASS", L.sent, L.received);
        if (L.unexpected)
            fprintf(cli_report, ", %u answer%s the recording does not have", L.unexpected,
                    L.unexpected == 1 ? "" : "s");
        fprintf(cli_report, "%s\n", L.diverged ? ", diverged from the recording" : "");
        if (note[0])
            fprintf(cli_report, "note: %s\n", note);
    }
    rc = L.unreachable ? EXIT_USAGE : fail ? EXIT_FINDINGS : EXIT_CLEAN;
    if (L.dump) {
        FILE *df = pcap_dump_file(L.dump);
        bool bad = pcap_dump_flush(L.dump) != 0 || ferror(df);
        int e = errno;
        pcap_dump_close(L.dump);
        pcap_close(dead);
        if (bad) {
            fprintf(stderr, "pcaptool: cannot write %s: %s\n", a.out_path, g_strerror(e ? e : EIO));
            rc = EXIT_USAGE;
        }
    }
    if (a.junit && !write_junit(a.junit, &L, L.p->name, suite, cc.fail_on, L.unreachable ? why : NULL))
        rc = EXIT_USAGE;
    g_free(suite);
    close_live(&L);
    g_byte_array_free(L.inbuf, TRUE);
    for (guint i = 0; i < L.waiting->len; i++)
        free_live_pdu(&g_array_index(L.waiting, live_pdu, i));
    g_array_free(L.waiting, TRUE);
    for (guint i = 0; i < L.findings->len; i++)
        g_free(g_array_index(L.findings, live_finding, i).first);
    g_array_free(L.findings, TRUE);
    g_free(L.divergence);
    g_free(L.close_summary);
    out_pdu_free(L.out);
    free_recording(&r);
    return cli_finish(rc);
}

const subcommand cmd_replay = {"replay", "--target HOST:PORT FILE",
                               "play one side of a recorded conversation against a live\n"
                               "peer and judge its answers",
                               run_replay, replay_usage};
