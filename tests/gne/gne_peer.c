/* gne_peer.c - a small GNE server for pcaptool conform's tests (test
 * tooling, not a product), written from the GNE text and wire-facts 3 (HawkNL
 * framing, the 48-byte request, the 44-byte refusal, the 12-byte accept,
 * packets ended by 255): game "conform-test", GNE 0.0.7, user version 3,
 * little-endian data (big-endian with mode big). It refuses a request whose
 * game or versions differ and closes; accepts the rest, offering a UDP port
 * when asked; answers each ping request (T2 <= T3); ends a connection with
 * an ExitPacket on an ExitPacket, a message without its 255, a frame
 * without the NL magic or over 16384 bytes; skips the rest of a message at
 * a packet id it does not know. Serves clients until killed (--listen).
 *
 * As a client it sends the 48-byte request (the same identity, asking for a
 * UDP link), names its UDP port when the accept offers one, ends the
 * connection when refused, and then behaves as the server does with
 * packets; it exits when the connection ends or SILENCE_MS pass quietly.
 *
 *   gne_peer [--listen] HOST PORT MODE SILENCE_MS
 *   MODE: good, big     behave (big: big-endian data)
 *         refusal-48    refuse with 48 bytes instead of 44
 *         accept-user   accept a request whose user version differs
 *         lax-versions  compare only the first part of the GNE version (not
 *                       its sub-version or build)
 *         keep-open     leave a refused connection open
 *         no-ping       never answer a ping
 *         ping-order    answer pings with T2 after T3
 *         udp-always    offer a UDP port even when not asked
 *         no-resync     ignore a bad magic or an oversized frame (skip 4 bytes)
 *         exit-early    (server) end every connection with an ExitPacket right
 *                       after its accept (its right: a graceful disconnect)
 *         drop-custom   (server) throw out the rest of a message at a
 *                       CustomPacket, as at a packet it cannot read
 *         close-rate    (server) end the connection at a RateAdjustPacket
 *         one-ping      answer only the first ping of a connection (replying is
 *                       only encouraged; as a peer whose rate holds back
 *                       every later reply beyond the wait would look)
 *         crash-custom-max  (a planted bug, for pcaptool fuzz's tests) abort() on
 *                       a CustomPacket whose length is 65535
 *   client: no-udp        ask for no UDP link
 *           no-port       ask for a UDP link, and never name its port
 *           port-range    name its UDP port as -1 (outside 0..65535)
 *           stay-refused  keep the connection when refused
 *           leave-first   answer the first message after the handshake, then
 *                         leave (an ExitPacket: "a graceful disconnect")
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
#include <sys/time.h>
#include <unistd.h>

#define MAX_CONNS 32
#define GAME "conform-test"
#define USER 3u

typedef struct {
    int fd, udp;
    bool accepted, pinged; /* pinged: a ping of this connection answered */
    uint8_t buf[20000];
    size_t n;
} conn;

static const char *mode;
static bool big;

static bool is(const char *m)
{
    return strcmp(mode, m) == 0;
}

static void put(uint8_t *p, unsigned n, uint32_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint32_t)p[big ? n - 1 - i : i] << (8 * i);
    return v;
}

static void send_frame(conn *c, const uint8_t *d, size_t n)
{
    uint8_t f[4 + 64] = {'N', 'L', (uint8_t)(n >> 8), (uint8_t)n};
    memcpy(f + 4, d, n);
    send(c->fd, f, 4 + n, MSG_NOSIGNAL);
}

static void drop(conn *c)
{
    close(c->fd);
    if (c->udp >= 0)
        close(c->udp);
    c->fd = -1;
}

static void leave(conn *c) /* an ExitPacket, then close */
{
    static const uint8_t exit_msg[] = {2, 255};
    send_frame(c, exit_msg, sizeof exit_msg);
    drop(c);
}

static void handshake(conn *c, const uint8_t *d, size_t n)
{
    bool lax = is("lax-versions");
    bool ok = n == 48 && memcmp(d, "GNE", 3) == 0 && d[3] == 0 && (lax || (d[4] == 0 && get(d + 5, 2) == 7)) &&
              strncmp((const char *)d + 7, GAME, 32) == 0 && (get(d + 39, 4) == USER || is("accept-user"));
    if (!ok) {
        uint8_t r[48] = {'G', 'N', 'E', 0, 0, 0};
        put(r + 6, 2, 7);
        strcpy((char *)r + 8, GAME);
        put(r + 40, 4, USER);
        send_frame(c, r, is("refusal-48") ? 48 : 44);
        if (!is("keep-open"))
            drop(c);
        return;
    }
    int port = -1;
    if (d[47] || is("udp-always")) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t al = sizeof a;
        c->udp = socket(AF_INET, SOCK_DGRAM, 0);
        if (c->udp >= 0 && bind(c->udp, (struct sockaddr *)&a, al) == 0 &&
            getsockname(c->udp, (struct sockaddr *)&a, &al) == 0)
            port = ntohs(a.sin_port);
    }
    uint8_t cap[12] = {'G', 'N', 'E', 1};
    put(cap + 4, 4, 0);
    put(cap + 8, 4, (uint32_t)port);
    send_frame(c, cap, sizeof cap);
    c->accepted = true;
    if (is("exit-early"))
        leave(c);
}

static uint32_t now_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint32_t)tv.tv_usec;
}

static bool client_mode;

/* the client's request: its identity, a UDP link asked for */
static void send_request(conn *c)
{
    uint8_t r[48] = {'G', 'N', 'E', 0, 0};
    put(r + 5, 2, 7);
    strcpy((char *)r + 7, GAME);
    put(r + 39, 4, USER);
    put(r + 43, 4, 0);
    r[47] = !is("no-udp");
    send_frame(c, r, sizeof r);
}

/* the server's answer to the request */
static void answered(conn *c, const uint8_t *d, size_t n)
{
    if (n < 4 || memcmp(d, "GNE", 3) != 0 || d[3] != 1) { /* refused */
        if (!is("stay-refused"))
            drop(c);
        return;
    }
    c->accepted = true;
    int32_t port = n >= 12 ? (int32_t)get(d + 8, 4) : -1;
    if (port > 0 && !is("no-udp") && !is("no-port")) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t al = sizeof a;
        c->udp = socket(AF_INET, SOCK_DGRAM, 0);
        if (c->udp >= 0 && bind(c->udp, (struct sockaddr *)&a, al) == 0 &&
            getsockname(c->udp, (struct sockaddr *)&a, &al) == 0) {
            uint8_t m[4];
            put(m, 4, is("port-range") ? 0xffffffffu : ntohs(a.sin_port));
            send_frame(c, m, sizeof m);
        }
    }
}

/* one message of packets; false when the connection is to end */
static bool packets(conn *c, const uint8_t *d, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t id = d[i++];
        if (id == 255) {
            if (is("leave-first")) {
                leave(c);
                return false;
            }
            return true;
        }
        if (id == 2) { /* ExitPacket */
            leave(c);
            return false;
        }
        if (id == 0)
            continue;
        if ((id == 1 && is("drop-custom")) || (id == 3 && is("close-rate"))) {
            if (id == 3)
                leave(c);
            return id == 1;
        }
        if (id == 3 && i + 4 <= n) {
            i += 4;
            continue;
        }
        if (id == 1 && i + 2 <= n) {
            if (is("crash-custom-max") && get(d + i, 2) == 0xffff)
                abort();
            i += 2 + get(d + i, 2);
            continue;
        }
        if (id == 4 && i + 20 <= n) {
            uint8_t r[22] = {4};
            memcpy(r + 1, d + i, 4);
            uint32_t t2 = now_us() % 500000, t3 = t2 + 1;
            if (is("ping-order"))
                t2 += 100000;
            put(r + 5, 4, 1);
            put(r + 9, 4, t2);
            put(r + 13, 4, 1);
            put(r + 17, 4, t3);
            r[21] = 255;
            bool request = get(d + i + 4, 4) == 0 && get(d + i + 8, 4) == 0;
            if (request && !is("no-ping") && !(is("one-ping") && c->pinged))
                send_frame(c, r, sizeof r);
            c->pinged |= request;
            i += 20;
            continue;
        }
        return true; /* a packet it cannot read: the rest of the message is thrown out */
    }
    leave(c); /* no 255: an error while parsing */
    return false;
}

static void input(conn *c)
{
    ssize_t r = recv(c->fd, c->buf + c->n, sizeof c->buf - c->n, 0);
    if (r <= 0) {
        drop(c);
        return;
    }
    c->n += (size_t)r;
    while (c->fd >= 0 && c->n >= 4) {
        size_t len = (size_t)(c->buf[2] << 8 | c->buf[3]);
        if (c->buf[0] != 'N' || c->buf[1] != 'L' || len > 16384) {
            if (!is("no-resync")) {
                leave(c);
                return;
            }
            memmove(c->buf, c->buf + 4, c->n - 4); /* carry on as if nothing */
            c->n -= 4;
            continue;
        }
        if (c->n < 4 + len)
            return;
        if (c->accepted)
            packets(c, c->buf + 4, len);
        else if (client_mode)
            answered(c, c->buf + 4, len);
        else
            handshake(c, c->buf + 4, len);
        if (c->fd < 0)
            return;
        memmove(c->buf, c->buf + 4 + len, c->n - 4 - len);
        c->n -= 4 + len;
    }
}

static int client(struct addrinfo *ai, int silence)
{
    static conn c;
    c.fd = socket(ai->ai_family, SOCK_STREAM, 0);
    c.udp = -1;
    bool up = false;
    for (int tries = 0; tries < 100 && c.fd >= 0 && !up; tries++) { /* until the server listens */
        up = connect(c.fd, ai->ai_addr, ai->ai_addrlen) == 0;
        if (!up)
            usleep(100000);
    }
    if (!up)
        return 1;
    send_request(&c);
    while (c.fd >= 0) {
        struct pollfd pf = {c.fd, POLLIN, 0};
        if (poll(&pf, 1, silence > 0 ? silence : -1) <= 0)
            break;
        input(&c);
    }
    if (c.fd >= 0)
        drop(&c);
    return 0;
}

int main(int argc, char **argv)
{
    int a = 1;
    bool listening = argc > 1 && strcmp(argv[1], "--listen") == 0;
    a += listening;
    if (argc - a != 4) {
        fprintf(stderr, "usage: gne_peer [--listen] HOST PORT MODE SILENCE_MS\n");
        return 2;
    }
    mode = argv[a + 2];
    big = is("big");
    client_mode = !listening;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = listening ? AI_PASSIVE : 0}, *ai;
    if (getaddrinfo(argv[a], argv[a + 1], &hints, &ai) != 0)
        return 2;
    if (!listening)
        return client(ai, atoi(argv[a + 3]));
    int l = socket(ai->ai_family, SOCK_STREAM, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || bind(l, ai->ai_addr, ai->ai_addrlen) < 0 || listen(l, 8) < 0)
        return 2;
    fprintf(stderr, "gne_peer: listening\n"); /* a test waits for this line, not for a clock */
    freeaddrinfo(ai);
    static conn conns[MAX_CONNS];
    for (int i = 0; i < MAX_CONNS; i++)
        conns[i].fd = -1;
    for (;;) {
        struct pollfd pf[MAX_CONNS + 1] = {{l, POLLIN, 0}};
        for (int i = 0; i < MAX_CONNS; i++)
            pf[i + 1] = (struct pollfd){conns[i].fd, POLLIN, 0};
        if (poll(pf, MAX_CONNS + 1, -1) < 0)
            continue;
        if (pf[0].revents & POLLIN) {
            int fd = accept(l, NULL, NULL);
            int i = 0;
            while (i < MAX_CONNS && conns[i].fd >= 0)
                i++;
            if (i == MAX_CONNS)
                close(fd);
            else if (fd >= 0)
                conns[i] = (conn){.fd = fd, .udp = -1};
        }
        for (int i = 0; i < MAX_CONNS; i++)
            if (conns[i].fd >= 0 && (pf[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                input(&conns[i]);
    }
}
