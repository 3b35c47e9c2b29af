/* conform.c - pcaptool conform: a protocol's conformance cases
 * (common/<proto>/<proto>_conform.c, active/gw_conform.h) asked of a live implementation,
 * one fresh connection per case, each judged by what the peer sends back
 * or stops sending; a verdict per case, reported as text, JSON Lines,
 * JUnit and a self-contained HTML page, the traffic saved as one pcapng.
 *
 * Every PDU sent or received is decoded with a conversation state of the
 * case's own, so the report shows the decoders' summaries and findings of
 * exactly what went on the wire. */
#include <errno.h>
#include <glib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "active/gw_conform.h"
#include "conform.h"
#include "output.h"
#include "pcaptool.h"
#include "peer.h"
#include "tcpstream.h"

#define MAX_PDU (1u << 20)  /* a TCP PDU longer than this is not waited for */
#define CASE_BOUND 15       /* a case ends after this many --timeout waits, whatever it awaits */
/* What a case keeps of its exchange for the reports and --out: the first
   KEEP_PDUS PDUs and KEEP_BYTES of their bytes. Past that every PDU is
   still read, decoded and given to the case (a flood the peer may send
   does not decide a verdict: time does), then counted and dropped, so a
   run's memory does not grow with what the peer sends. */
#define KEEP_PDUS 1024
#define KEEP_BYTES (256u << 10)
#define SCRATCH 16          /* PDUs past the bound live this long (items valid for the case) */
#define AUDIT_MS 20         /* what comes this soon after a case's verdict is audited with it */

/* ---- one case's exchange ---------------------------------------------------- */

static int64_t now_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void free_pdu(conform_pdu *x)
{
    if (!x->findings)
        return;
    g_free(x->data);
    g_free(x->items);
    g_free(x->summary);
    for (guint i = 0; i < x->findings->len; i++)
        g_free(g_array_index(x->findings, conform_finding, i).message);
    g_array_free(x->findings, TRUE);
}

void conform_result_truncate(conform_result *r, unsigned n)
{
    for (guint i = n; r->pdus && i < r->pdus->len; i++)
        free_pdu(&g_array_index(r->pdus, conform_pdu, i));
    if (r->pdus && n < r->pdus->len)
        g_array_set_size(r->pdus, n);
}

void conform_result_clear(conform_result *r)
{
    if (!r->pdus)
        return;
    for (guint i = 0; i < r->pdus->len; i++)
        free_pdu(&g_array_index(r->pdus, conform_pdu, i));
    g_array_free(r->pdus, TRUE);
    r->pdus = NULL;
}

struct conform_driver {
    gw_conform_io io; /* first: the cases see this */
    const gw_protocol *p;
    const gw_conform *cf; /* p's catalogue */
    const int *opts;
    const char *target;
    bool implementation_is_server;
    int transport;
    int fd, listen_fd;
    int link_fd;       /* the catalogue's second channel (gw_conform.link): UDP on the same ports; -1 none */
    struct sockaddr_storage local, peer, last_peer;
    bool have_last_peer;
    char local_name[64], peer_name[64];
    bool closed;       /* the peer closed (TCP) or its port is closed (UDP) */
    bool link_closed;  /* the link's port is closed (ICMP port unreachable) */
    bool refused;      /* ... by a refusal: nothing listens there */
    bool peer_spoke;   /* in any case of the run */
    unsigned connections; /* the implementation's, in the run (pcaptool as server) */
    int peer_wait_ms;  /* the implementation as client: how long a case waits for it to come (--peer-wait) */
    GHashTable *sent;  /* GBytes of the PDUs pcaptool sent in this case: an echo is recognised */
    conform_pdu scratch[SCRATCH]; /* PDUs past the case's keep bound */
    unsigned scratch_next;
    size_t kept_bytes; /* of the case's kept PDUs */
    GByteArray *inbuf; /* TCP bytes not yet cut into PDUs */
    GArray *ready;     /* PDUs received but not yet given (ready_pdu) */
    void *conv, *link_conv; /* decoder states: the main channel's, the link's */
    out_pdu *out;
    conform_result *cur;
    int64_t case_start_ns, wall_start_ns;
    int64_t case_deadline_ns; /* the case's time bound (CASE_BOUND waits) */
    char **sets;       /* --set NAME=VALUE */
    unsigned n_sets;
    bool no_audit;     /* pcaptool fuzz: what its mutations send is no case's, nothing to audit */
};
typedef struct conform_driver driver;

/* decode one PDU of the exchange with the case's conversation state and
   keep it (past the keep bound: only until SCRATCH more have come), with
   its summary, findings and items */
static conform_pdu *record(driver *D, bool ours, int transport, const uint8_t *d, size_t len)
{
    int64_t t = now_ns(CLOCK_MONOTONIC) - D->case_start_ns;
    bool client_is_us = D->implementation_is_server;
    int dir = ours == client_is_us ? 0 : 1;
    bool keep = D->cur->pdus->len < KEEP_PDUS && D->kept_bytes + len <= KEEP_BYTES;
    gw_pdu_info pi = {.frame = D->cur->pdus->len + D->cur->not_kept + 1, .time_ns = D->wall_start_ns + t, .dir = dir,
                      .transport = transport};
    const gw_sink *sink = out_pdu_begin(D->out, D->p);
    D->p->decode(transport == D->transport ? D->conv : D->link_conv, &pi, d, len, sink);
    GBytes *key = g_bytes_new(d, len);
    bool echo = false;
    if (ours && g_hash_table_size(D->sent) < KEEP_PDUS)
        g_hash_table_add(D->sent, g_bytes_ref(key));
    else if (!ours)
        echo = g_hash_table_contains(D->sent, key);
    g_bytes_unref(key);
    const char *summary = out_pdu_summary(D->out);
    conform_pdu x = {.ours = ours, .echo = echo, .transport = transport, .local_port = peer_port_of(&D->local),
                     .time_ns = t, .wall_ns = D->wall_start_ns + t, .len = len,
                     .data = g_memdup2(d, len ? len : 1),
                     .summary = echo ? g_strdup_printf("%s [a PDU pcaptool sent, sent back]", summary) : g_strdup(summary),
                     .findings = g_array_new(FALSE, FALSE, sizeof(conform_finding))};
    uint64_t type;
    x.type = out_pdu_first_u(D->out, D->p->type_field, &type) ? (int64_t)type : -1;
    x.items = out_pdu_items(D->out, x.data, &x.n_items);
    for (unsigned k = 0; k < out_pdu_n_findings(D->out); k++) {
        const char *msg;
        int f = out_pdu_finding(D->out, k, &msg);
        conform_finding cf = {f, g_strdup(msg)};
        g_array_append_val(x.findings, cf);
    }
    if (!keep) {
        D->cur->not_kept++;
        D->cur->not_kept_bytes += len;
        conform_pdu *slot = &D->scratch[D->scratch_next++ % SCRATCH];
        free_pdu(slot);
        *slot = x;
        return slot;
    }
    D->kept_bytes += len;
    g_array_append_val(D->cur->pdus, x);
    return &g_array_index(D->cur->pdus, conform_pdu, D->cur->pdus->len - 1);
}

/* the case is over: what it kept loses the items only the case used, and
   the PDUs past its bound go */
static void end_record(driver *D)
{
    for (guint i = 0; i < D->cur->pdus->len; i++) {
        conform_pdu *x = &g_array_index(D->cur->pdus, conform_pdu, i);
        g_free(x->items);
        x->items = NULL;
        x->n_items = 0;
    }
    for (unsigned i = 0; i < SCRATCH; i++) {
        free_pdu(&D->scratch[i]);
        D->scratch[i] = (conform_pdu){0};
    }
    g_hash_table_remove_all(D->sent);
    D->kept_bytes = 0;
}

static void on_sent_stream_pdu(void *ctx, const uint8_t *d, size_t len, const tcp_stamp *at)
{
    (void)at;
    record(ctx, true, GW_TRANSPORT_TCP, d, len);
}

/* Send len bytes in one write; what goes is recorded PDU by PDU (on a
   stream, several PDUs in one write are several PDUs, as Wireshark shows
   them; bytes that end inside a PDU go as one) */
static bool send_on(gw_conform_io *io, int transport, const uint8_t *d, size_t len, bool bytewise)
{
    driver *D = (driver *)io;
    bool link = transport != D->transport;
    int fd = link ? D->link_fd : D->fd;
    if (fd < 0 || (!link && D->closed && D->transport == GW_TRANSPORT_TCP))
        return false;
    size_t used = 0;
    if (transport == GW_TRANSPORT_TCP) {
        tcp_sink ts = {on_sent_stream_pdu, NULL, D};
        long pending;
        used = tcp_cut(D->p, D->opts, d, len, NULL, &ts, &pending);
    }
    if (used < len || !len)
        record(D, true, transport, d + used, len - used);
    if (!bytewise || transport != GW_TRANSPORT_TCP)
        return peer_send_all(fd, transport == GW_TRANSPORT_UDP, d, len, D->io.wait_ms);
    int one = 1; /* each byte its own segment */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (size_t i = 0; i < len; i++)
        if (!peer_send_all(fd, false, d + i, 1, D->io.wait_ms))
            return false;
    return true;
}

static bool io_send_on(gw_conform_io *io, int transport, const uint8_t *d, size_t len)
{
    return send_on(io, transport, d, len, false);
}

static bool io_send(gw_conform_io *io, const uint8_t *d, size_t len)
{
    return io_send_on(io, ((driver *)io)->transport, d, len);
}

static bool io_send_link(gw_conform_io *io, const uint8_t *d, size_t len)
{
    driver *D = (driver *)io;
    return D->cf->link && io_send_on(io, D->cf->link, d, len);
}

static void io_decisive(gw_conform_io *io, gw_wait w)
{
    driver *D = (driver *)io;
    conform_result *r = D->cur;
    r->ended = w;
    r->decisive = 0;
    if (w != GW_GOT) {
        r->ended_ns = now_ns(CLOCK_MONOTONIC) - D->case_start_ns;
        r->ended_after = r->pdus->len;
    } else if (r->pdus->len && !r->not_kept) {
        r->decisive = r->pdus->len; /* 1-based */
    }
}

static int connect_to(driver *D, char *why, size_t whysz);
static void close_connection(driver *D);

/* a fresh decoder state for the case's connection */
static void free_convs(driver *D)
{
    for (int k = 0; k < 2; k++) {
        void **c = k ? &D->link_conv : &D->conv;
        if (*c && D->p->conv_free)
            D->p->conv_free(*c);
        g_free(*c);
        *c = NULL;
    }
}

/* (with the options the cases see: a catalogue may have pointed io.opts
   at its own, with what the run learnt) */
static void fresh_conv(driver *D)
{
    free_convs(D);
    D->conv = g_malloc(D->p->conv_size);
    D->p->conv_init(D->conv, D->io.opts);
    if (D->cf->link) { /* the link begins as the decoder's linked conversation */
        D->link_conv = g_malloc(D->p->conv_size);
        D->p->conv_init(D->link_conv, D->io.opts);
        if (D->p->conv_link)
            D->p->conv_link(D->link_conv, D->conv);
    }
}

static bool io_reconnect(gw_conform_io *io)
{
    driver *D = (driver *)io;
    char why[300];
    if (!D->implementation_is_server)
        return false;
    close_connection(D);
    fresh_conv(D);
    return connect_to(D, why, sizeof why) == 0;
}

/* a PDU received, waiting to be given to the case */
typedef struct {
    GByteArray *b;
    int transport;
    int64_t at_ns; /* when it arrived (the kernel's wall-clock stamp; 0: not known) */
} ready_pdu;

static void queue_pdu(driver *D, int transport, const uint8_t *d, size_t len, int64_t at_ns)
{
    ready_pdu r = {g_byte_array_sized_new((guint)len), transport, at_ns};
    g_byte_array_append(r.b, d, (guint)len);
    g_array_append_val(D->ready, r);
}

static void on_stream_pdu(void *ctx, const uint8_t *d, size_t len, const tcp_stamp *at)
{
    (void)at;
    driver *D = ctx;
    queue_pdu(D, D->transport, d, len, 0);
}

/* a datagram and the kernel's stamp of its arrival (SO_TIMESTAMPNS; 0 when
   none came) */
static ssize_t recv_stamped(int fd, uint8_t *buf, size_t n, int64_t *at_ns)
{
    char control[CMSG_SPACE(sizeof(struct timespec))];
    struct iovec iov = {buf, n};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t r = recvmsg(fd, &m, MSG_DONTWAIT);
    *at_ns = 0;
    for (struct cmsghdr *c = r >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            *at_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    return r;
}

static void stamp_arrivals(int fd)
{
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}

/* the peer's next PDU within ms */
static gw_wait io_next(gw_conform_io *io, int ms, gw_replay_pdu *p)
{
    driver *D = (driver *)io;
    int64_t deadline = now_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
    if (deadline > D->case_deadline_ns)
        deadline = D->case_deadline_ns;
    if (now_ns(CLOCK_MONOTONIC) >= D->case_deadline_ns) {
        D->cur->over_time = true;
        return GW_SILENT;
    }
    static uint8_t buf[65536];
    bool polled = false;
    for (;;) {
        if (D->ready->len) {
            ready_pdu r = g_array_index(D->ready, ready_pdu, 0);
            g_array_remove_index(D->ready, 0);
            int transport = r.transport;
            conform_pdu *x = record(D, false, transport, r.b->data, r.b->len);
            g_byte_array_free(r.b, TRUE);
            *p = (gw_replay_pdu){.data = x->data, .len = x->len, .type = x->type, .transport = transport,
                                 .live = true, .echo = x->echo, .at_ns = r.at_ns, .items = x->items,
                                 .n_items = x->n_items};
            D->peer_spoke = true;
            if (D->cf->duty)
                D->cf->duty(io, p);
            return GW_GOT;
        }
        if (D->closed || D->fd < 0)
            return GW_CLOSED;
        int64_t left = (deadline - now_ns(CLOCK_MONOTONIC)) / 1000000;
        if (left < 0 || (left == 0 && polled))
            return GW_SILENT;
        polled = true; /* what has come already is read, even with no time left */
        struct pollfd pf[2] = {{D->fd, POLLIN, 0}, {D->link_fd, POLLIN, 0}};
        int r = poll(pf, D->link_fd >= 0 && !D->link_closed ? 2 : 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return GW_SILENT;
        if (D->link_fd >= 0 && pf[1].revents) {
            /* a datagram of the link, or its error (ICMP port unreachable):
               the link is gone, the main channel goes on */
            int64_t at;
            ssize_t n = recv_stamped(D->link_fd, buf, sizeof buf, &at);
            if (n >= 0)
                queue_pdu(D, D->cf->link, buf, (size_t)n, at);
            else if (errno != EAGAIN && errno != EINTR)
                D->link_closed = true;
        }
        if (!pf[0].revents)
            continue;
        int64_t at;
        ssize_t n = recv_stamped(D->fd, buf, sizeof buf, &at);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            D->closed = true;
            D->refused = errno == ECONNREFUSED && !D->peer_spoke;
            /* Linux reports a UDP port's ICMP error before the datagrams
               that came ahead of it: those are still the peer's, read them
               first (its in-band close among them) */
            while (D->transport == GW_TRANSPORT_UDP && (n = recv_stamped(D->fd, buf, sizeof buf, &at)) >= 0)
                queue_pdu(D, D->transport, buf, (size_t)n, at);
            continue;
        }
        if (D->transport == GW_TRANSPORT_UDP) {
            queue_pdu(D, D->transport, buf, (size_t)n, at);
            continue;
        }
        if (n == 0) {
            D->closed = true;
            /* what is left is one PDU, cut short */
            if (D->inbuf->len)
                on_stream_pdu(D, D->inbuf->data, D->inbuf->len, NULL);
            g_byte_array_set_size(D->inbuf, 0);
            continue;
        }
        g_byte_array_append(D->inbuf, buf, (guint)n);
        tcp_sink ts = {on_stream_pdu, NULL, D};
        long pending;
        size_t used = tcp_cut(D->p, D->opts, D->inbuf->data, D->inbuf->len, NULL, &ts, &pending);
        if (pending > (long)MAX_PDU) { /* not waited for: the rest as one */
            on_stream_pdu(D, D->inbuf->data + used, D->inbuf->len - used, NULL);
            used = D->inbuf->len;
        }
        g_byte_array_remove_range(D->inbuf, 0, (guint)used);
    }
}

static bool io_link_refused(gw_conform_io *io)
{
    return ((driver *)io)->link_closed;
}

static const char *io_setting(gw_conform_io *io, const char *name)
{
    driver *D = (driver *)io;
    size_t n = strlen(name);
    for (unsigned i = 0; i < D->n_sets; i++)
        if (strncmp(D->sets[i], name, n) == 0 && D->sets[i][n] == '=')
            return D->sets[i] + n + 1;
    return NULL;
}

/* ---- connections ------------------------------------------------------------- */

static void close_connection(driver *D)
{
    if (D->fd >= 0)
        close(D->fd);
    if (D->link_fd >= 0)
        close(D->link_fd);
    D->fd = D->link_fd = -1;
    D->link_closed = false;
    g_byte_array_set_size(D->inbuf, 0);
    for (guint i = 0; i < D->ready->len; i++)
        g_byte_array_free(g_array_index(D->ready, ready_pdu, i).b, TRUE);
    g_array_set_size(D->ready, 0);
    D->closed = false;
}

static struct addrinfo *resolve(driver *D, bool passive, char *why, size_t whysz)
{
    char host[256], port[16];
    if (!peer_parse_target(D->target, host, sizeof host, port, sizeof port)) {
        snprintf(why, whysz, "bad --target '%s' (HOST:PORT, [IPV6]:PORT)", D->target);
        return NULL;
    }
    struct addrinfo hints = {.ai_socktype = D->transport == GW_TRANSPORT_TCP ? SOCK_STREAM : SOCK_DGRAM,
                             .ai_flags = passive ? AI_PASSIVE : 0}, *ai;
    int e = getaddrinfo(host, port, &hints, &ai);
    if (e) {
        snprintf(why, whysz, "--target %s: %s", D->target, gai_strerror(e));
        return NULL;
    }
    return ai;
}

static void name_ends(driver *D)
{
    socklen_t l = sizeof D->local;
    getsockname(D->fd, (struct sockaddr *)&D->local, &l);
    l = sizeof D->peer;
    getpeername(D->fd, (struct sockaddr *)&D->peer, &l);
    peer_endpoint_name(&D->local, D->local_name, sizeof D->local_name);
    peer_endpoint_name(&D->peer, D->peer_name, sizeof D->peer_name);
}

/* pcaptool as client: a fresh connection to the target. 0, or EXIT_USAGE
   with the reason (the target cannot be reached at all) */
static int connect_to(driver *D, char *why, size_t whysz)
{
    struct addrinfo *ai = resolve(D, false, why, whysz);
    if (!ai)
        return EXIT_USAGE;
    D->fd = socket(ai->ai_family, ai->ai_socktype, 0);
    if (D->fd >= 0)
        stamp_arrivals(D->fd);
    if (D->fd >= 0 && D->cf->link) {
        /* the link's UDP socket first, then TCP on its port: the server may
           send datagrams as soon as it has accepted (a port whose TCP side
           is taken is tried again with another) */
        for (int attempt = 0; attempt < 16 && D->link_fd < 0; attempt++) {
            struct sockaddr_storage a = {.ss_family = (sa_family_t)ai->ai_family};
            socklen_t al = ai->ai_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
            int u = socket(ai->ai_family, SOCK_DGRAM, 0);
            if (u >= 0 && bind(u, (struct sockaddr *)&a, al) == 0 && getsockname(u, (struct sockaddr *)&a, &al) == 0 &&
                bind(D->fd, (struct sockaddr *)&a, al) == 0 && connect(u, ai->ai_addr, ai->ai_addrlen) == 0)
                D->link_fd = u, stamp_arrivals(u);
            else if (u >= 0)
                close(u);
        }
    }
    if (D->fd < 0 || connect(D->fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        snprintf(why, whysz, "cannot connect to %s: %s", D->target, strerror(errno));
        freeaddrinfo(ai);
        return EXIT_USAGE;
    }
    freeaddrinfo(ai);
    name_ends(D);
    return 0;
}

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    char x[64], y[64];
    peer_endpoint_name(a, x, sizeof x);
    peer_endpoint_name(b, y, sizeof y);
    return strcmp(x, y) == 0;
}

/* pcaptool as server: its socket at the target, listening (TCP: kept
   from case to case; UDP: a fresh one a case). 0, or EXIT_USAGE with the
   reason in why. */
static int listen_at(driver *D, char *why, size_t whysz)
{
    bool tcp = D->transport == GW_TRANSPORT_TCP;
    if (D->listen_fd >= 0 && tcp)
        return 0;
    struct addrinfo *ai = resolve(D, true, why, whysz);
    if (!ai)
        return EXIT_USAGE;
    int fd = socket(ai->ai_family, ai->ai_socktype, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), stamp_arrivals(fd);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || (tcp && listen(fd, 4) < 0)) {
        snprintf(why, whysz, "cannot listen on %s: %s", D->target, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return EXIT_USAGE;
    }
    freeaddrinfo(ai);
    D->listen_fd = fd;
    static bool told;
    if (!told) /* once the socket listens: a script may start the peer now */
        fprintf(stderr, "conform: waiting for the implementation on %s\n", D->target);
    told = true;
    return 0;
}

/* pcaptool as server: the implementation's next connection (TCP: the next
   one accepted; UDP: the first datagram from an address other than the
   previous case's peer, which stays queued). 0; 1 when none came within
   the wait; EXIT_USAGE when the target cannot be listened on. */
static int accept_from(driver *D, char *why, size_t whysz)
{
    bool tcp = D->transport == GW_TRANSPORT_TCP;
    if ((D->listen_fd < 0 || !tcp) && listen_at(D, why, whysz) != 0)
        return EXIT_USAGE;
    int64_t deadline = now_ns(CLOCK_MONOTONIC) + (int64_t)D->peer_wait_ms * 1000000;
    for (;;) {
        int64_t left = (deadline - now_ns(CLOCK_MONOTONIC)) / 1000000;
        struct pollfd pf = {D->listen_fd, POLLIN, 0};
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
            snprintf(why, whysz, "no implementation came to %s within %g s", D->target, D->peer_wait_ms / 1000.0);
            return 1;
        }
        if (tcp) {
            D->fd = accept(D->listen_fd, NULL, NULL);
            if (D->fd < 0)
                continue;
            name_ends(D);
            if (D->cf->link) { /* UDP on the same ports, to the same peer */
                int one = 1;
                D->link_fd = socket(D->local.ss_family, SOCK_DGRAM, 0);
                if (D->link_fd >= 0)
                    setsockopt(D->link_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), stamp_arrivals(D->link_fd);
                if (D->link_fd < 0 || bind(D->link_fd, (struct sockaddr *)&D->local, sizeof D->local) < 0 ||
                    connect(D->link_fd, (struct sockaddr *)&D->peer, sizeof D->peer) < 0) {
                    snprintf(why, whysz, "no UDP socket on %s: %s", D->local_name, strerror(errno));
                    return EXIT_USAGE;
                }
            }
            return 0;
        }
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        uint8_t b;
        if (recvfrom(D->listen_fd, &b, 1, MSG_PEEK, (struct sockaddr *)&from, &fl) < 0)
            continue;
        if (D->have_last_peer && same_address(&from, &D->last_peer)) {
            recv(D->listen_fd, &b, 1, 0); /* the previous case's peer, still talking */
            continue;
        }
        if (connect(D->listen_fd, (struct sockaddr *)&from, fl) < 0)
            continue;
        D->fd = D->listen_fd; /* this case's: a fresh socket for the next */
        D->listen_fd = -1;
        D->last_peer = from;
        D->have_last_peer = true;
        name_ends(D);
        return 0;
    }
}

/* ---- running ------------------------------------------------------------------- */

/* Run case c against the implementation: 0 with the result in *r, or
   EXIT_USAGE (the reason in why) when the target cannot be reached. */
static int run_case(driver *D, const gw_conform_case *c, conform_result *r, char *why, size_t whysz)
{
    *r = (conform_result){.c = c, .pdus = g_array_new(FALSE, TRUE, sizeof(conform_pdu))};
    D->cur = r;
    D->case_start_ns = now_ns(CLOCK_MONOTONIC);
    D->wall_start_ns = now_ns(CLOCK_REALTIME);
    int rc = D->implementation_is_server ? connect_to(D, why, whysz) : accept_from(D, why, whysz);
    if (rc == EXIT_USAGE)
        return rc;
    if (rc == 1 && !D->connections)
        return EXIT_USAGE; /* nobody came at all: one line, not a column of fails */
    if (rc == 1) {
        r->verdict = GW_FAIL;
        snprintf(r->outcome, sizeof r->outcome, "the implementation, which came for earlier cases, did not come for this one within %g s",
                 D->peer_wait_ms / 1000.0);
        return 0;
    }
    D->connections++;
    g_strlcpy(r->local, D->local_name, sizeof r->local);
    g_strlcpy(r->peer, D->peer_name, sizeof r->peer);
    r->local_addr = D->local;
    r->peer_addr = D->peer;
    fresh_conv(D);
    D->io.outcome[0] = 0;
    memset(D->io.case_state, 0, D->cf->case_state_size);
    D->case_start_ns = now_ns(CLOCK_MONOTONIC);
    D->case_deadline_ns = D->case_start_ns + (int64_t)CASE_BOUND * D->io.wait_ms * 1000000;
    r->verdict = c->run(&D->io);
    g_strlcpy(r->outcome, D->io.outcome, sizeof r->outcome);
    if (r->over_time) { /* what the case saw last was not silence but its end */
        r->verdict = GW_FAIL;
        snprintf(r->outcome, sizeof r->outcome, "the case did not come to a verdict within its bound of %.1f s",
                 CASE_BOUND * D->io.wait_ms / 1000.0);
    }
    if (D->cf->audit && !D->no_audit && r->verdict != GW_FAIL) {
        /* what has come already, and what comes in the next AUDIT_MS, is
           audited too: a stream of canned answers shows itself by going on */
        gw_replay_pdu x;
        int64_t until = gw_conform_clock_ms() + AUDIT_MS;
        for (int k = 0; k < 256; k++) {
            int64_t left = until - gw_conform_clock_ms();
            if (io_next(&D->io, left > 0 ? (int)left : 0, &x) != GW_GOT)
                break;
        }
        gw_verdict v = D->cf->audit(&D->io);
        if (v != GW_PASS) {
            r->verdict = v;
            g_strlcpy(r->outcome, D->io.outcome, sizeof r->outcome);
        }
    }
    if (D->cf->finish && !D->closed)
        D->cf->finish(&D->io);
    end_record(D);
    r->seconds = (double)(now_ns(CLOCK_MONOTONIC) - D->case_start_ns) / 1e9;
    free_convs(D);
    bool refused = D->refused;
    D->refused = false;
    close_connection(D);
    if (refused && D->implementation_is_server) {
        snprintf(why, whysz, "%s: nothing listens there (port unreachable)", D->target);
        return EXIT_USAGE;
    }
    return 0;
}

/* the cases of catalogue cf for the implementation's role that --case
   selects, in catalogue order */
static GPtrArray *select_cases(const gw_conform *cf, unsigned role, char **globs, unsigned n_globs)
{
    GPtrArray *a = g_ptr_array_new();
    for (unsigned i = 0; i < cf->n_cases; i++) {
        const gw_conform_case *c = cf->cases[i];
        bool want = n_globs == 0;
        for (unsigned g = 0; g < n_globs && !want; g++)
            want = g_pattern_match_simple(globs[g], c->id);
        if (want && (c->roles & role))
            g_ptr_array_add(a, (gpointer)c);
    }
    return a;
}

/* ---- the driver, for pcaptool fuzz ------------------------------------------------- */

conform_driver *conform_driver_new(const gw_protocol *p, const gw_conform *cf, const int *opts, const char *target,
                                   unsigned role, double timeout, double peer_wait, char **sets, unsigned n_sets)
{
    driver *D = g_new0(driver, 1);
    *D = (driver){.p = p, .cf = cf, .opts = opts, .target = target, .implementation_is_server = role == GW_ROLE_SERVER,
                  .transport = cf->transport, .fd = -1, .listen_fd = -1, .link_fd = -1, .out = out_pdu_new(),
                  .inbuf = g_byte_array_new(), .ready = g_array_new(FALSE, FALSE, sizeof(ready_pdu)),
                  .sent = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL),
                  .sets = sets, .n_sets = n_sets, .peer_wait_ms = (int)(peer_wait * 1000)};
    D->io = (gw_conform_io){.role = role, .opts = opts, .wait_ms = (int)(timeout * 1000),
                            .driver = D, .send = io_send, .send_link = io_send_link, .next = io_next,
                            .decisive = io_decisive, .reconnect = io_reconnect, .setting = io_setting,
                            .link_refused = io_link_refused,
                            .state = g_malloc0(cf->state_size + 1),
                            .case_state = g_malloc0(cf->case_state_size + 1)};
    return D;
}

void conform_driver_free(conform_driver *D)
{
    if (!D)
        return;
    close_connection(D);
    if (D->listen_fd >= 0)
        close(D->listen_fd);
    free_convs(D);
    out_pdu_free(D->out);
    g_free(D->io.state);
    g_free(D->io.case_state);
    g_byte_array_free(D->inbuf, TRUE);
    g_array_free(D->ready, TRUE);
    g_hash_table_destroy(D->sent);
    g_free(D);
}

void conform_driver_no_audit(conform_driver *D)
{
    D->no_audit = true;
}

gw_conform_io *conform_driver_io(conform_driver *D)
{
    return &D->io;
}

int conform_driver_run(conform_driver *D, const gw_conform_case *c, conform_result *r, char *why, size_t whysz)
{
    return run_case(D, c, r, why, whysz);
}

int conform_driver_listen(conform_driver *D, char *why, size_t whysz)
{
    return D->transport == GW_TRANSPORT_TCP ? listen_at(D, why, whysz) : 0;
}

bool conform_driver_pending(conform_driver *D, int ms)
{
    if (D->transport != GW_TRANSPORT_TCP || D->listen_fd < 0)
        return true;
    struct pollfd pf = {D->listen_fd, POLLIN, 0};
    return poll(&pf, 1, ms) > 0;
}

void conform_driver_peer_ended(conform_driver *D)
{
    D->have_last_peer = false;
}

unsigned conform_driver_recorded(const conform_driver *D)
{
    return D->cur && D->cur->pdus ? D->cur->pdus->len : 0;
}

bool conform_driver_peer_spoke(const conform_driver *D)
{
    return D->peer_spoke;
}

unsigned conform_driver_items(conform_driver *D, const uint8_t *d, size_t n, gw_item **items)
{
    void *conv = g_malloc(D->p->conv_size);
    D->p->conv_init(conv, D->io.opts);
    gw_pdu_info pi = {.frame = 1, .dir = D->implementation_is_server ? 0 : 1, .transport = D->transport};
    D->p->decode(conv, &pi, d, n, out_pdu_begin(D->out, D->p));
    unsigned k;
    *items = out_pdu_items(D->out, d, &k);
    if (D->p->conv_free)
        D->p->conv_free(conv);
    g_free(conv);
    return k;
}

bool conform_driver_send_bytewise(conform_driver *D, const uint8_t *d, size_t n)
{
    return send_on(&D->io, D->transport, d, n, true);
}

/* ---- the command ----------------------------------------------------------------- */

typedef struct {
    const char *proto, *target, *junit, *html, *out_path;
    int side;        /* pcaptool's: 0 client (the implementation serves), 1 server */
    bool strict, dry, quiet, verbose, markdown;
    const char *color; /* --color: auto (default), always, never */
    double timeout, peer_wait;
    out_format fmt;
    char *globs[32];
    unsigned n_globs;
    char *sets[16]; /* --set NAME=VALUE */
    unsigned n_sets;
} conform_args;

enum { O_STRICT = 256, O_TIMEOUT, O_PEER_WAIT, O_JUNIT, O_HTML, O_DRY, O_CASE, O_PROTO, O_SET, O_COLOR };

static void conform_usage(FILE *f)
{
    fputs("Usage: pcaptool conform --proto PROTO --target HOST:PORT [OPTIONS]\n"
          "\n"
          "Ask a live implementation of PROTO the questions its protocol text answers,\n"
          "one case at a time, each from a fresh connection, and judge each by what the\n"
          "implementation sends back or stops sending.\n"
          "\n"
          "      --proto PROTO          the protocol (pcaptool conform --proto PROTO --dry-run\n"
          "                             lists its cases)\n"
          "  -t, --target HOST:PORT     the implementation (client side: where to connect or\n"
          "                             send; server side: where to listen for it)\n"
          "  -s, --side client|server   the side pcaptool plays (default client: the\n"
          "                             implementation is the server); with server, the\n"
          "                             implementation must connect once per case\n"
          "      --case GLOB            only the cases whose id matches (* and ?; repeatable)\n"
          "      --set NAME=VALUE       tell the cases what they cannot learn from the\n"
          "                             implementation (repeatable; --dry-run lists the\n"
          "                             protocol's settings: GNE's game, version and\n"
          "                             user_version)\n"
          "      --strict               a Non-strict verdict (a recommendation not followed)\n"
          "                             fails too\n"
          "      --timeout SECONDS      longest wait for an answer the text requires (default\n"
          "                             2); where an answer must not come, a probe the text\n"
          "                             requires an answer to follows, and its answer ends it\n"
          "      --peer-wait SECONDS    --side server: how long each case waits for the\n"
          "                             implementation to come (default 30)\n"
          "  -T, --format text|json     a line per case, or JSON Lines (a record per case,\n"
          "                             then a summary) (default text); with --dry-run also\n"
          "                             markdown (the tables of docs/conform.md)\n"
          "  -V, --verbose              text: each case's exchange under its line\n"
          "      --color auto|always|never  text: verdicts in colour (auto: on a terminal,\n"
          "                             unless NO_COLOR is set)\n"
          "      --junit FILE           also write JUnit XML ('-': standard output, the text\n"
          "                             then on standard error)\n"
          "      --html FILE            also write one self-contained HTML page\n"
          "  -w, --out FILE             write every case's traffic to one pcapng (a comment\n"
          "                             per case)\n"
          "      --dry-run              list the cases that would run; contact nobody\n"
          "  -q, --quiet                no text report\n"
          "  -o, --option PROTO.NAME=VALUE, --profile   as for decode\n"
          "\n"
          "Verdicts: pass; non-strict (a SHOULD not followed); fail (a MUST broken); info\n"
          "(the text leaves it open: recorded); skipped (not applicable, with the reason).\n"
          "\n"
          "Exit codes: 0 no case failed; 1 a case failed (with --strict: or was non-strict);\n"
          "2 usage error, a target that cannot be reached (connection refused, ICMP port\n"
          "unreachable, no implementation came), or output that could not be written.\n",
          f);
}

/* a duration option: seconds above 0, at most an hour */
static int seconds_arg(const char *name, const char *arg, double *out)
{
    char *end;
    *out = strtod(arg, &end);
    if (*end || !(*out > 0 && *out <= 3600))
        return cli_usage_error("%s takes seconds above 0, at most 3600, not '%s'", name, arg);
    return 0;
}

static int conform_opt(void *ctx, int c, const char *arg)
{
    conform_args *a = ctx;
    switch (c) {
    case O_PROTO: a->proto = arg; return 0;
    case 't': a->target = arg; return 0;
    case 's': return cli_side_arg(arg, &a->side);
    case O_CASE:
        if (a->n_globs == G_N_ELEMENTS(a->globs))
            return cli_usage_error("at most %zu --case patterns", G_N_ELEMENTS(a->globs));
        a->globs[a->n_globs++] = (char *)arg;
        return 0;
    case O_SET:
        if (a->n_sets == G_N_ELEMENTS(a->sets))
            return cli_usage_error("at most %zu --set", G_N_ELEMENTS(a->sets));
        if (!strchr(arg, '=') || arg[0] == '=')
            return cli_usage_error("--set takes NAME=VALUE, not '%s'", arg);
        a->sets[a->n_sets++] = (char *)arg;
        return 0;
    case O_STRICT: a->strict = true; return 0;
    case O_TIMEOUT: return seconds_arg("--timeout", arg, &a->timeout);
    case O_PEER_WAIT: return seconds_arg("--peer-wait", arg, &a->peer_wait);
    case 'T':
        a->markdown = strcmp(arg, "markdown") == 0;
        if (a->markdown || parse_format(arg, &a->fmt))
            return 0;
        return cli_usage_error("--format takes text, json or (with --dry-run) markdown, not '%s'", arg);
    case 'V': a->verbose = true; return 0;
    case O_JUNIT: a->junit = arg; return 0;
    case O_HTML: a->html = arg; return 0;
    case O_COLOR:
        if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never"))
            return cli_usage_error("--color takes auto, always or never, not '%s'", arg);
        a->color = arg;
        return 0;
    case 'w': a->out_path = arg; return 0;
    case O_DRY: a->dry = true; return 0;
    case 'q': a->quiet = true; return 0;
    default: return EXIT_USAGE;
    }
}

static const char *role_name(unsigned role)
{
    return role == GW_ROLE_SERVER ? "server" : "client";
}

static int run_conform(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"proto", required_argument, NULL, O_PROTO},
        {"target", required_argument, NULL, 't'},
        {"side", required_argument, NULL, 's'},
        {"case", required_argument, NULL, O_CASE},
        {"set", required_argument, NULL, O_SET},
        {"strict", no_argument, NULL, O_STRICT},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"peer-wait", required_argument, NULL, O_PEER_WAIT},
        {"format", required_argument, NULL, 'T'},
        {"verbose", no_argument, NULL, 'V'},
        {"junit", required_argument, NULL, O_JUNIT},
        {"html", required_argument, NULL, O_HTML},
        {"color", required_argument, NULL, O_COLOR},
        {"out", required_argument, NULL, 'w'},
        {"dry-run", no_argument, NULL, O_DRY},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const cli_spec spec = {"t:s:T:Vw:q", longopts, CLI_RUN, conform_opt, conform_usage};
    conform_args a = {.timeout = 2, .peer_wait = 30, .fmt = OUT_TEXT};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &a, &cc);
    if (rc != CLI_GO)
        return rc;
    if (optind != argc)
        return cli_usage_error("takes no operands");
    if (!a.proto)
        return cli_usage_error("needs --proto PROTO");
    const gw_protocol *p = gw_protocol_by_name(a.proto);
    if (!p)
        return cli_usage_error("no protocol '%s' (pcaptool fields lists them)", a.proto);
    const gw_conform *cf = gw_conform_of(p);
    if (!cf)
        return cli_usage_error("%s has no conformance cases yet", p->short_name);
    if (!a.target && !a.dry)
        return cli_usage_error("needs --target HOST:PORT (or --dry-run)");
    if (a.markdown && !a.dry)
        return cli_usage_error("--format markdown is for --dry-run's catalogue");
    if (a.dry && (a.junit || a.out_path || a.html))
        return cli_usage_error("--dry-run contacts nobody: --junit, --html and --out have nothing to report");
    if (a.junit && strcmp(a.junit, "-") == 0 && a.fmt == OUT_JSON)
        return cli_usage_error("--format json and --junit - would both take standard output");
    unsigned role = a.side ? GW_ROLE_CLIENT : GW_ROLE_SERVER; /* the implementation's */
    GPtrArray *cases = select_cases(cf, role, a.globs, a.n_globs);
    if (!cases->len) {
        g_ptr_array_free(cases, TRUE);
        return cli_usage_error("no %s case for the implementation as %s%s", p->short_name, role_name(role),
                               a.n_globs ? " matches --case" : "");
    }
    for (unsigned i = 0; i < a.n_sets; i++) {
        const gw_conform_setting *st = cf->settings;
        size_t n = strcspn(a.sets[i], "=");
        while (st && st->name && !(strlen(st->name) == n && strncmp(st->name, a.sets[i], n) == 0))
            st++;
        if (!st || !st->name) {
            g_ptr_array_free(cases, TRUE);
            return cli_usage_error("%s's cases have no setting '%.*s' (--dry-run lists them)", p->short_name, (int)n,
                                   a.sets[i]);
        }
    }
    const char *unusable = cf->unusable ? cf->unusable(run_opts(&cc.ro, p)) : NULL;
    if (unusable) {
        g_ptr_array_free(cases, TRUE);
        return cli_usage_error("%s", unusable);
    }
    cli_report_to(a.quiet ? 2 : a.junit && strcmp(a.junit, "-") == 0 ? 1 : 0);
    const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM"); /* no-color.org */
    bool color = a.color && strcmp(a.color, "always") == 0;
    if (!a.color || strcmp(a.color, "auto") == 0)
        color = cli_report && isatty(fileno(cli_report)) && !(no_color && *no_color) &&
                !(term && strcmp(term, "dumb") == 0);
    conform_run run = {.p = p, .role = role, .target = a.target ? a.target : "nobody", .strict = a.strict,
                       .n = cases->len, .results = g_new0(conform_result, cases->len), .color = color};
    char *command = cli_command_line(argc, argv);
    run.command = command;
    time_t now = time(NULL);
    strftime(run.started, sizeof run.started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (a.dry) {
        for (guint i = 0; i < cases->len; i++)
            run.results[i] = (conform_result){.c = g_ptr_array_index(cases, i), .verdict = GW_SKIPPED};
        conform_write_catalogue(&run, a.fmt, a.markdown);
        g_free(run.results);
        g_ptr_array_free(cases, TRUE);
        g_free(command);
        return cli_finish(EXIT_CLEAN);
    }
    driver *D = conform_driver_new(p, cf, run_opts(&cc.ro, p), a.target, role, a.timeout, a.peer_wait, a.sets, a.n_sets);
    char why[400] = "";
    int status = EXIT_CLEAN;
    for (guint i = 0; i < cases->len && status == EXIT_CLEAN; i++) {
        status = run_case(D, g_ptr_array_index(cases, i), &run.results[i], why, sizeof why);
        if (status == EXIT_CLEAN) {
            run.done++;
            conform_write_case(&run, i, a.fmt, a.verbose);
        }
    }
    if (status != EXIT_CLEAN)
        fprintf(stderr, "pcaptool: %s\n", why);
    if (status == EXIT_CLEAN && !D->peer_spoke) {
        /* not one byte from the implementation in the whole run: no
           verdict can rest on that */
        if (D->implementation_is_server && D->transport == GW_TRANSPORT_UDP)
            snprintf(why, sizeof why, "nothing came back from %s in any case (no implementation answering there?)", a.target);
        else if (D->implementation_is_server)
            snprintf(why, sizeof why, "%s accepted %u connections but sent nothing on any (it closed or reset each)",
                     a.target, D->connections);
        else
            snprintf(why, sizeof why, "the implementation connected to %s %u times but sent nothing (it closed or reset each)",
                     a.target, D->connections);
        fprintf(stderr, "pcaptool: %s\n", why);
        status = EXIT_USAGE;
    }
    run.error = status != EXIT_CLEAN ? why : NULL;
    conform_write_summary(&run, a.fmt);
    bool written = true;
    if (a.junit)
        written &= conform_write_junit(&run, a.junit);
    if (a.html)
        written &= conform_write_html(&run, a.html);
    if (a.out_path)
        written &= conform_write_pcapng(&run, a.out_path);
    if (status == EXIT_CLEAN)
        status = !written ? EXIT_USAGE : run.failed ? EXIT_FINDINGS : EXIT_CLEAN;
    for (guint i = 0; i < cases->len; i++)
        conform_result_clear(&run.results[i]);
    g_free(run.results);
    g_ptr_array_free(cases, TRUE);
    g_free(command);
    conform_driver_free(D);
    return cli_finish(status);
}

const subcommand cmd_conform = {"conform", "--proto PROTO --target HOST:PORT",
                                "ask a live implementation the questions its protocol text answers,\n"
                                "a case at a time, with a verdict each (h2spec-style)",
                                run_conform, conform_usage};
