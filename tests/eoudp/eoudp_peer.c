/* eoudp_peer.c - a small EOUDP peer for pcaptool conform's tests (test
 * tooling, not a product), written from the EOUDP text and wire-facts 4 (the
 * R-Type implementation's four header generations, told apart by the size
 * field; the header big-endian, the payload little-endian).
 *
 * It answers in the 26-byte generation (f64 timestamp, important byte). It
 * acknowledges (0x01, the id) every important packet: in the 22- and
 * 26-byte headers those whose important byte is set, in the others the
 * commands the text says MUST be acknowledged (0x81 from a client, 0x0b to
 * 0x10 from a server); it ignores datagrams no generation fits. As the
 * server (--listen) it acknowledges a connect and accepts it (0x02, a player
 * id) and serves clients until killed; as the client it connects to HOST
 * PORT, and exits on a reject (0x03, the text's end of a connection) or
 * SILENCE_MS after the last datagram.
 *
 *   eoudp_peer [--listen] HOST PORT MODE SILENCE_MS
 *   MODE: good           behave
 *         no-ack         never acknowledge
 *         wrong-ack-id   acknowledge id + 1
 *         ack-once       acknowledge an id only the first time
 *         ack-all        acknowledge packets not marked important too
 *         no-accept      (server) acknowledge a connect but never accept it
 *         die-on-unknown stop answering a connection after an unknown command
 *         f64-only       understand only the 26-byte header
 *         rfc-lenient    (server) speak the text's own 21-byte header only, and
 *                        read every datagram of 21 bytes or more with it,
 *                        whatever its size field says (the text asks no
 *                        check of it): a datagram in another header is read
 *                        wrong (its id from other bytes), and answered in
 *                        the text's
 *         imp-talker     (server) the same with the 22-byte header whose
 *                        important byte follows the id (1-8 Jan 2024): a
 *                        26-byte datagram read with it has an id's byte for
 *                        its important byte; and each datagram but an
 *                        acknowledge answered with an important packet of its
 *                        own too (0x0c, an entity's component)
 *   Planted bug, for pcaptool fuzz's tests (tests/eoudp/fuzz_eoudp.py):
 *         crash-size-max abort() on a datagram whose 26-byte header's size
 *                        field says 2^64 - 1 (a peer that sizes a buffer by
 *                        it before checking it against the datagram)
 */
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 64

typedef struct {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    bool used, dead;
    uint64_t next_id;
    uint64_t acked[64];
    unsigned n_acked;
} conn;

static const char *mode;
static int fd;
static bool listening;
static conn conns[MAX_CONNS];

static bool is(const char *m)
{
    return strcmp(mode, m) == 0;
}

static uint64_t be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static void put_be(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[n - 1 - i] = (uint8_t)(v >> (8 * i));
}

static void send_cmd(conn *c, uint8_t cmd, const uint8_t *payload, size_t n)
{
    uint8_t d[64] = {cmd};
    if (is("rfc-lenient") || is("imp-talker")) { /* cmd, f32 timestamp (0), id, [important,] size */
        size_t hl = is("imp-talker") ? 22 : 21;
        put_be(d + 5, 8, c->next_id++);
        d[13] = hl == 22 && cmd == 0x0c; /* (its own component: important) */
        put_be(d + hl - 8, 8, n);
        memcpy(d + hl, payload, n);
        sendto(fd, d, hl + n, 0, (struct sockaddr *)&c->addr, c->addrlen);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double ms = (double)ts.tv_sec * 1000 + (double)(ts.tv_nsec / 1000000);
    uint64_t bits;
    memcpy(&bits, &ms, 8);
    put_be(d + 1, 8, bits);
    put_be(d + 9, 8, c->next_id++);
    d[17] = 0; /* important */
    put_be(d + 18, 8, n);
    memcpy(d + 26, payload, n);
    if (listening)
        sendto(fd, d, 26 + n, 0, (struct sockaddr *)&c->addr, c->addrlen);
    else
        send(fd, d, 26 + n, 0);
}

static void ack(conn *c, uint64_t id)
{
    for (unsigned i = 0; i < c->n_acked && is("ack-once"); i++)
        if (c->acked[i] == id)
            return;
    if (c->n_acked < 64)
        c->acked[c->n_acked++] = id;
    if (is("wrong-ack-id"))
        id++;
    uint8_t p[8];
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(id >> (8 * i)); /* payload little-endian */
    if (!is("no-ack"))
        send_cmd(c, 0x01, p, 8);
}

static bool known(uint8_t cmd)
{
    static const uint8_t codes[] = {0x00, 0x01, 0x02, 0x03, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x81, 0x82, 0x8b};
    return memchr(codes, cmd, sizeof codes) != NULL;
}

/* a datagram from c (a fresh connection when c is new); false when the
   client is to quit (the server rejected it) */
static bool datagram(conn *c, const uint8_t *d, size_t n)
{
    if (is("crash-size-max") && n >= 26 && be(d + 18, 8) == UINT64_MAX)
        abort();
    /* which header fits: the size field says the payload's length */
    int hl = 0;
    bool has_imp = false;
    if (is("rfc-lenient"))
        hl = n >= 21 ? 21 : 0;
    else if (is("imp-talker"))
        hl = n >= 22 ? 22 : 0, has_imp = true;
    else if (n >= 26 && be(d + 18, 8) == n - 26)
        hl = 26, has_imp = true;
    else if (!is("f64-only") && n >= 22 && be(d + 14, 8) == n - 22)
        hl = 22, has_imp = true;
    else if (!is("f64-only") && n >= 22 && be(d + 13, 8) == n - 22)
        hl = 22;
    else if (!is("f64-only") && n >= 21 && be(d + 13, 8) == n - 21)
        hl = 21;
    if (!hl || c->dead)
        return true;
    uint8_t cmd = d[0];
    uint64_t id = be(d + (hl == 26 ? 9 : 5), 8); /* after an f64 or f32 timestamp */
    if (!known(cmd)) {
        if (is("die-on-unknown"))
            c->dead = true;
        return true;
    }
    bool important = has_imp ? d[hl == 26 ? 17 : 13] != 0
                              : cmd == 0x81 || (cmd >= 0x0b && cmd <= 0x10);
    if (important || is("ack-all"))
        ack(c, id);
    if (cmd == 0x81 && listening && !is("no-accept")) {
        static const uint8_t player[8] = {0x2a};
        send_cmd(c, 0x02, player, sizeof player);
    }
    if (is("imp-talker") && cmd != 0x01) {
        static const uint8_t component[] = {1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 'P', 'o', 's', 0, 1, 0, 0, 0, 7};
        send_cmd(c, 0x0c, component, sizeof component);
    }
    return listening || cmd != 0x03;
}

int main(int argc, char **argv)
{
    int a = 1;
    listening = argc > 1 && strcmp(argv[1], "--listen") == 0;
    a += listening;
    if (argc - a != 4) {
        fprintf(stderr, "usage: eoudp_peer [--listen] HOST PORT MODE SILENCE_MS\n");
        return 2;
    }
    mode = argv[a + 2];
    int silence = atoi(argv[a + 3]);
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = listening ? AI_PASSIVE : 0}, *ai;
    if (getaddrinfo(argv[a], argv[a + 1], &hints, &ai) != 0)
        return 2;
    fd = socket(ai->ai_family, SOCK_DGRAM, 0);
    if (fd < 0 || (listening ? bind(fd, ai->ai_addr, ai->ai_addrlen) : connect(fd, ai->ai_addr, ai->ai_addrlen)) < 0)
        return 2;
    if (listening) /* a test waits for this line, not for a clock */
        fprintf(stderr, "eoudp_peer: listening on %s:%s\n", argv[a], argv[a + 1]);
    freeaddrinfo(ai);
    if (!listening) { /* connect (important) until the server answers */
        conns[0].used = true;
        for (int tries = 0; tries < 100; tries++) {
            uint8_t d[26] = {0x81};
            put_be(d + 9, 8, conns[0].next_id);
            d[17] = 1;
            send(fd, d, sizeof d, 0);
            struct pollfd pf = {fd, POLLIN, 0};
            if (poll(&pf, 1, 100) > 0) {
                uint8_t b;
                if (recv(fd, &b, 1, MSG_PEEK) >= 0)
                    break;
                usleep(100000);
            }
        }
        conns[0].next_id++;
    }
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, listening || silence <= 0 ? -1 : silence) <= 0)
            break;
        uint8_t d[65536];
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fd, d, sizeof d, 0, (struct sockaddr *)&from, &fl);
        if (n < 1)
            continue;
        conn *c = NULL;
        if (!listening) {
            c = &conns[0];
        } else {
            for (int i = 0; i < MAX_CONNS && !c; i++)
                if (conns[i].used && conns[i].addrlen == fl && memcmp(&conns[i].addr, &from, fl) == 0)
                    c = &conns[i];
            for (int i = 0; i < MAX_CONNS && !c; i++)
                if (!conns[i].used) {
                    c = &conns[i];
                    *c = (conn){.addr = from, .addrlen = fl, .used = true};
                }
            if (!c) { /* full: start over */
                memset(conns, 0, sizeof conns);
                c = &conns[0];
                *c = (conn){.addr = from, .addrlen = fl, .used = true};
            }
        }
        if (!datagram(c, d, (size_t)n))
            break;
    }
    close(fd);
    return 0;
}
