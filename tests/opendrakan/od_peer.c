/* od_peer.c - a small OpenDrakan peer for pcaptool conform's tests (test
 * tooling, not a product), written from the OpenDrakan draft and wire-facts 5:
 * packets `type:u8, length:u16 LE, payload`; reliable ones on TCP, the
 * snapshot packets (2, 3, 4, 8) on UDP, the same ports.
 *
 * As the server (--listen) it sends each client two database table entries
 * and LOAD_LEVEL over TCP, then every 50 ms a snapshot over UDP (two
 * OBJECT_STATES_CHANGED and a CONFIRM_SNAPSHOT counting them; ticks from 1),
 * delta-encoded against the last tick the client acknowledged (else full);
 * it serves clients until killed. As the client it connects to HOST PORT,
 * reads the handshake, and acknowledges each snapshot once it is complete
 * (confirmed, and as many changes as the confirmation counts, in any order);
 * it exits when the server closes the connection or SILENCE_MS pass without
 * a packet. Unknown types and truncated packets are ignored.
 *
 *   od_peer [--listen] HOST PORT MODE SILENCE_MS
 *   MODE: good            behave
 *   server: count-wrong   confirm 3 changes, send 2
 *           tick-zero     count ticks from 0
 *           delta-unacked delta-encode against the previous tick, acknowledged or not
 *           message-udp   send a GLOBAL_MESSAGE (reliable) over UDP with each snapshot
 *           close-on-unknown  drop a client that sends an unknown type
 *   client: ack-confirm   acknowledge a snapshot on its confirmation alone
 *           ack-changes   acknowledge a tick on its first change, confirmed or not
 *           changes-first count only the changes that come before the confirmation
 *           ack-tcp       send the acknowledgements over TCP
 *           die-on-unknown  quit on an unknown type
 *   Planted bug, for pcaptool fuzz's tests (tests/opendrakan/fuzz_opendrakan.py):
 *   server: stall-ack-max  never send another snapshot to a client that
 *                   acknowledges tick 2^64 - 1 (a server whose lookup of the
 *                   acknowledged snapshot, to delta-encode against it, never
 *                   ends), while its connection stays open
 */
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { DB_ENTRY, LOAD_LEVEL, STATES, EXTRA_STATES, CONFIRM, GLOBAL_MESSAGE, OBJECT_MESSAGE, EVENT, ACK, ACTION,
       ANALOG, N_TYPES };
#define MAX_CONNS 16
#define TICKS 64

static const char *mode;
static bool listening;
static int udp;

static bool is(const char *m)
{
    return strcmp(mode, m) == 0;
}

static void le(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* one packet into out: its length */
static size_t packet(uint8_t *out, uint8_t type, const uint8_t *payload, size_t n)
{
    out[0] = type;
    le(out + 1, 2, n);
    memcpy(out + 3, payload, n);
    return 3 + n;
}

static void send_udp(const struct sockaddr_storage *to, socklen_t tl, const uint8_t *d, size_t n)
{
    if (listening)
        sendto(udp, d, n, 0, (const struct sockaddr *)to, tl);
    else
        send(udp, d, n, 0);
}

/* ---- the server ------------------------------------------------------------------- */

typedef struct {
    int fd;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int64_t tick, acked;
    bool stalled; /* stall-ack-max */
} client;

static void send_level(client *c)
{
    uint8_t d[64], p[40];
    size_t n;
    static const char *const dbs[] = {"Common/Common.db", "Dragon/Dragon.db"};
    for (uint32_t i = 0; i < 2; i++) {
        le(p, 4, i);
        memcpy(p + 4, dbs[i], strlen(dbs[i]));
        n = packet(d, DB_ENTRY, p, 4 + strlen(dbs[i]));
        send(c->fd, d, n, MSG_NOSIGNAL);
    }
    le(p, 4, 2);
    memcpy(p + 4, "Levels/test.lvl", 15);
    n = packet(d, LOAD_LEVEL, p, 19);
    send(c->fd, d, n, MSG_NOSIGNAL);
}

static void send_snapshot(client *c)
{
    static const uint8_t bundle[] = {0x01, 0x00, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40};
    uint8_t d[64], p[48];
    int64_t t = c->tick++;
    for (uint32_t obj = 1; obj <= 2; obj++) {
        le(p, 8, (uint64_t)t);
        le(p + 8, 4, obj);
        memcpy(p + 12, bundle, sizeof bundle);
        send_udp(&c->addr, c->addrlen, d, packet(d, STATES, p, 12 + sizeof bundle));
    }
    int64_t ref = is("delta-unacked") ? (t > 1 ? t - 1 : 0) : c->acked;
    le(p, 8, (uint64_t)t);
    le(p + 8, 8, 0x3ff8000000000000ull); /* 1.5 s */
    le(p + 16, 4, is("count-wrong") ? 3 : 2);
    le(p + 20, 8, (uint64_t)ref);
    send_udp(&c->addr, c->addrlen, d, packet(d, CONFIRM, p, 28));
    if (is("message-udp")) {
        le(p, 4, 0x42);
        send_udp(&c->addr, c->addrlen, d, packet(d, GLOBAL_MESSAGE, p, 4));
    }
}

static int serve(struct addrinfo *ai)
{
    int l = socket(ai->ai_family, SOCK_STREAM, 0), one = 1;
    udp = socket(ai->ai_family, SOCK_DGRAM, 0);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(udp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || udp < 0 || bind(l, ai->ai_addr, ai->ai_addrlen) < 0 || listen(l, 8) < 0 ||
        bind(udp, ai->ai_addr, ai->ai_addrlen) < 0)
        return 2;
    fprintf(stderr, "od_peer: listening\n"); /* a test waits for this line, not for a clock */
    client cs[MAX_CONNS];
    for (int i = 0; i < MAX_CONNS; i++)
        cs[i].fd = -1;
    for (;;) {
        struct pollfd pf[MAX_CONNS + 2] = {{l, POLLIN, 0}, {udp, POLLIN, 0}};
        for (int i = 0; i < MAX_CONNS; i++)
            pf[i + 2] = (struct pollfd){cs[i].fd, POLLIN, 0};
        int r = poll(pf, MAX_CONNS + 2, 50);
        if (r == 0) { /* every 50 ms: a snapshot to each client */
            for (int i = 0; i < MAX_CONNS; i++)
                if (cs[i].fd >= 0 && !cs[i].stalled)
                    send_snapshot(&cs[i]);
            continue;
        }
        if (r < 0)
            continue;
        if (pf[0].revents & POLLIN) {
            client c = {.addrlen = sizeof c.addr, .tick = is("tick-zero") ? 0 : 1};
            c.fd = accept(l, (struct sockaddr *)&c.addr, &c.addrlen);
            int i = 0;
            while (i < MAX_CONNS && cs[i].fd >= 0)
                i++;
            if (c.fd >= 0 && i < MAX_CONNS) {
                cs[i] = c;
                send_level(&cs[i]);
            } else if (c.fd >= 0) {
                close(c.fd);
            }
        }
        if (pf[1].revents & POLLIN) { /* acknowledgements */
            uint8_t d[2048];
            struct sockaddr_storage from;
            socklen_t fl = sizeof from;
            ssize_t n = recvfrom(udp, d, sizeof d, 0, (struct sockaddr *)&from, &fl);
            for (int i = 0; i < MAX_CONNS && n >= 11; i++)
                if (cs[i].fd >= 0 && cs[i].addrlen == fl && memcmp(&cs[i].addr, &from, fl) == 0 && d[0] == ACK &&
                    get(d + 1, 2) == 8) {
                    cs[i].acked = (int64_t)get(d + 3, 8);
                    cs[i].stalled |= is("stall-ack-max") && get(d + 3, 8) == UINT64_MAX;
                }
        }
        for (int i = 0; i < MAX_CONNS; i++) {
            if (cs[i].fd < 0 || !(pf[i + 2].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            uint8_t d[4096];
            ssize_t n = recv(cs[i].fd, d, sizeof d, 0);
            bool unknown = n > 0 && d[0] >= N_TYPES;
            if (n <= 0 || (unknown && is("close-on-unknown"))) {
                close(cs[i].fd);
                cs[i].fd = -1;
            }
        }
    }
}

/* ---- the client ------------------------------------------------------------------- */

static int tcp;
static int64_t conf_tick[TICKS]; /* the tick whose state a slot holds (-1 none) */
static int64_t confirmed[TICKS], changes[TICKS];
static bool acked[TICKS];

static void ack(int64_t t)
{
    int s = (int)(t % TICKS);
    if (acked[s])
        return;
    acked[s] = true;
    uint8_t p[8], d[16];
    le(p, 8, (uint64_t)t);
    size_t n = packet(d, ACK, p, 8);
    if (is("ack-tcp"))
        send(tcp, d, n, MSG_NOSIGNAL);
    else
        send(udp, d, n, 0);
}

static int slot(int64_t t)
{
    int s = (int)(((t % TICKS) + TICKS) % TICKS);
    if (conf_tick[s] != t) {
        conf_tick[s] = t;
        confirmed[s] = -1;
        changes[s] = 0;
        acked[s] = false;
    }
    return s;
}

/* the packets of a datagram; false on an unknown type in die-on-unknown */
static bool snapshot_datagram(const uint8_t *d, size_t n)
{
    for (size_t off = 0; off + 3 <= n;) {
        uint8_t type = d[off];
        size_t len = (size_t)get(d + off + 1, 2);
        if (len > n - off - 3)
            return true; /* truncated: the rest is ignored */
        const uint8_t *p = d + off + 3;
        off += 3 + len;
        if (type >= N_TYPES) {
            if (is("die-on-unknown"))
                return false;
            continue;
        }
        if ((type == STATES || type == EXTRA_STATES) && len >= 12) {
            int64_t t = (int64_t)get(p, 8);
            int s = slot(t);
            if (is("ack-changes"))
                ack(t);
            if (!is("changes-first") || confirmed[s] < 0)
                changes[s]++;
            if (confirmed[s] >= 0 && changes[s] == confirmed[s])
                ack(t);
        } else if (type == CONFIRM && len >= 28) {
            int64_t t = (int64_t)get(p, 8);
            int s = slot(t);
            confirmed[s] = (int64_t)get(p + 16, 4);
            if (changes[s] == confirmed[s] || is("ack-confirm"))
                ack(t);
        }
    }
    return true;
}

static int connect_to(struct addrinfo *ai, int silence)
{
    /* UDP first, TCP on its port (the server sends snapshots to that port) */
    tcp = socket(ai->ai_family, SOCK_STREAM, 0);
    udp = socket(ai->ai_family, SOCK_DGRAM, 0);
    struct sockaddr_storage a = {.ss_family = (sa_family_t)ai->ai_family};
    socklen_t al = ai->ai_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    /* a port of its own process id (in the ephemeral range, where no test
       binds a fixed port): the clients of one conform run, one process a
       case, then never share a port, which a random one sometimes did,
       joining two cases' UDP conversations in the run's capture; taken,
       a random one */
    uint16_t own = (uint16_t)(32768 + getpid() % 28000);
    if (ai->ai_family == AF_INET6)
        ((struct sockaddr_in6 *)&a)->sin6_port = htons(own);
    else
        ((struct sockaddr_in *)&a)->sin_port = htons(own);
    if (udp >= 0 && bind(udp, (struct sockaddr *)&a, al) < 0) {
        close(udp);
        udp = socket(ai->ai_family, SOCK_DGRAM, 0);
        a = (struct sockaddr_storage){.ss_family = (sa_family_t)ai->ai_family};
        if (udp < 0 || bind(udp, (struct sockaddr *)&a, al) < 0)
            return 2;
    }
    if (tcp < 0 || udp < 0 || getsockname(udp, (struct sockaddr *)&a, &al) < 0 ||
        bind(tcp, (struct sockaddr *)&a, al) < 0)
        return 2;
    bool up = false;
    for (int tries = 0; tries < 100 && !up; tries++) { /* until the server listens */
        up = connect(tcp, ai->ai_addr, ai->ai_addrlen) == 0;
        if (!up)
            usleep(100000);
    }
    if (!up || connect(udp, ai->ai_addr, ai->ai_addrlen) < 0)
        return 1;
    for (int i = 0; i < TICKS; i++)
        conf_tick[i] = -1;
    uint8_t buf[65536];
    size_t have = 0;
    for (;;) {
        struct pollfd pf[2] = {{tcp, POLLIN, 0}, {udp, POLLIN, 0}};
        if (poll(pf, 2, silence > 0 ? silence : -1) <= 0)
            break;
        if (pf[1].revents & POLLIN) {
            uint8_t d[2048];
            ssize_t n = recv(udp, d, sizeof d, 0);
            if (n > 0 && !snapshot_datagram(d, (size_t)n))
                break;
        }
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(tcp, buf + have, sizeof buf - have, 0);
            if (n <= 0)
                break; /* the server closed the connection */
            have += (size_t)n;
            bool quit = false;
            while (have >= 3 && have >= 3 + get(buf + 1, 2)) { /* the handshake's packets */
                size_t len = 3 + (size_t)get(buf + 1, 2);
                quit |= buf[0] >= N_TYPES && is("die-on-unknown");
                memmove(buf, buf + len, have - len);
                have -= len;
            }
            if (quit || have == sizeof buf)
                break;
        }
    }
    close(tcp);
    close(udp);
    return 0;
}

int main(int argc, char **argv)
{
    int a = 1;
    listening = argc > 1 && strcmp(argv[1], "--listen") == 0;
    a += listening;
    if (argc - a != 4) {
        fprintf(stderr, "usage: od_peer [--listen] HOST PORT MODE SILENCE_MS\n");
        return 2;
    }
    mode = argv[a + 2];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = listening ? AI_PASSIVE : 0}, *ai;
    if (getaddrinfo(argv[a], argv[a + 1], &hints, &ai) != 0)
        return 2;
    int rc = listening ? serve(ai) : connect_to(ai, atoi(argv[a + 3]));
    freeaddrinfo(ai);
    return rc;
}
