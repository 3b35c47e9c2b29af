/* dnp_peer.c - a small DNP peer for pcaptool replay's and conform's tests
 * (test tooling, not a product), written from the DNP text and what the
 * reference (denetwork) does (wire-facts 1).
 *
 * As a client it connects to HOST PORT; as a server (--listen) it answers
 * every client that comes to HOST PORT. Either way it acknowledges each
 * valid reliable message and link state (a number inside the window of 10,
 * the reference's test), holds back numbers ahead of the next expected,
 * answers each link state with a link up, ignores unknown and truncated
 * commands, and forgets a connection that the other side closes. The
 * server accepts a request that offers DNP1 (result 0, protocol 0),
 * refuses one that does not (result 2), ignores a second request from a
 * connected client and everything but requests from unconnected ones.
 * After SILENCE_MS without a datagram it exits (the client closing its
 * connection first); a client that is refused exits at once.
 *
 *   dnp_peer [--listen | --from LOCAL_PORT] HOST PORT MODE SILENCE_MS
 *   --from: a client sends from LOCAL_PORT (each process the same port, as
 *           a system may hand out the port a process that ended had)
 *   MODE: good        behave
 *         wrong-ack   acknowledge number n + 1 instead of n
 *         no-link-up  never send link up
 *         close-early close the connection right after its first ack (a
 *                     peer that drops a connection it holds)
 *         reorder     answer two reliable commands that come together in the
 *                     other order (the second's ack and link up first), as
 *                     a peer that handles them on two threads may
 *         no-window   acknowledge every number, inside the window or not
 *         ack-unreliable  acknowledge unreliable messages too (as number 0)
 *         up-first    send link up before the ack of its link state
 *         accept-any  (server) accept a request whatever it offers
 *         reack       (server) answer a connected client's repeated request
 *         remember-rejected (server) keep a refused client as connected (its
 *                     next request is then ignored as a connected client's)
 *         rerefuse    (server) refuse again, for no common protocol, every later
 *                     request from an address it once refused (it keeps
 *                     the refusal: "has to forget about the connect request")
 *         no-dnp1     (server) speak no protocol the text defines (a server of
 *                     a later protocol only: "New protocols can be added in
 *                     the future"): every request refused with result 2
 *         unknown-refused (server) refuse a request that offers an unknown
 *                     protocol, DNP1 or not, with result 2 (breaks "Servers
 *                     have to ignore unknown protocol values")
 *         unknown-accepts (client) take a connection ack whose result the
 *                     text does not define (not 1 or 2) for an acceptance
 *         slow        behave, but take 400 ms over each datagram before
 *                     answering it (a busy or distant peer)
 *   Planted bugs, for pcaptool fuzz's tests (tests/dnp/fuzz_dnp.py):
 *         crash-at-max  abort() on a link state whose value count is 65535
 *         hang-reorder  a connection whose first reliable number is not 0 (its
 *                     handshake reordered) is never answered again
 *         crash-update abort() on a link update whose link count (the
 *                     reference's u8) is above 1, as a peer that reads its
 *                     links into a one-entry array would (pcaptool fuzz
 *                     --from: the recorded link updates mutated)
 *         oob-read    reads the values a link state's count announces from a
 *                     copy of exactly the datagram's bytes: one byte past its
 *                     end when the count says one more than is there (ASan
 *                     reports it in dnp_peer_asan)
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WINDOW 10
#define MODULO 65535 /* the reference wraps here */
#define MAX_CONNS 256

typedef struct {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    bool used;
    unsigned next;            /* the next reliable number expected */
    bool held[MODULO];        /* numbers received ahead of next, not yet taken */
    bool any_reliable;        /* a reliable command came on it */
    bool hung;                /* hang-reorder: it is never answered again */
} conn;

static const char *mode;
static int fd;
static bool listening;
static conn *conns;

static bool is(const char *m)
{
    return strcmp(mode, m) == 0;
}

static void send_to(const conn *c, const uint8_t *d, size_t n)
{
    if (listening)
        sendto(fd, d, n, 0, (const struct sockaddr *)&c->addr, c->addrlen);
    else
        send(fd, d, n, 0);
}

static conn *find(const struct sockaddr_storage *a, socklen_t al)
{
    for (int i = 0; i < MAX_CONNS; i++)
        if (conns[i].used && conns[i].addrlen == al && memcmp(&conns[i].addr, a, al) == 0)
            return &conns[i];
    return NULL;
}

static conn *add(const struct sockaddr_storage *a, socklen_t al)
{
    for (int i = 0; i < MAX_CONNS; i++)
        if (!conns[i].used) {
            memset(&conns[i], 0, sizeof conns[i]);
            conns[i].used = true;
            conns[i].addr = *a;
            conns[i].addrlen = al;
            return &conns[i];
        }
    return NULL;
}

/* the reference's window test: is number n acceptable when next is expected? */
static bool in_window(unsigned n, unsigned next)
{
    if (n < next)
        return n < (next + WINDOW) % MODULO;
    return n < next + WINDOW;
}

/* reorder: the answers held back (ack, link up), and for whom */
static uint8_t held_answer[7];
static size_t n_held_answer;
static conn *held_for;

static void flush_held(void)
{
    if (!n_held_answer)
        return;
    send_to(held_for, held_answer, 4);
    if (n_held_answer > 4)
        send_to(held_for, held_answer + 4, 3);
    n_held_answer = 0;
}

/* a reliable message or link state; false when the connection is to go
   (close-early) */
static bool reliable(conn *c, const uint8_t *b, size_t n)
{
    unsigned number = (unsigned)(b[1] | b[2] << 8);
    if (is("hang-reorder") && !c->any_reliable && number != 0)
        c->hung = true;
    c->any_reliable = true;
    if (c->hung)
        return true;
    if (!is("no-window") && !in_window(number, c->next))
        return true; /* discarded, unacknowledged */
    unsigned acked = is("wrong-ack") ? number + 1 : number;
    uint8_t ack[4] = {6, (uint8_t)acked, (uint8_t)(acked >> 8), 0};
    uint8_t up[3] = {7, n >= 5 ? b[3] : 0, n >= 5 ? b[4] : 0};
    bool link_up = b[0] == 5 && n >= 5 && !is("no-link-up");
    if (number == c->next) {
        c->next = (c->next + 1) % MODULO;
        while (c->held[c->next]) { /* the ones held back, now in order */
            c->held[c->next] = false;
            c->next = (c->next + 1) % MODULO;
        }
    } else if (in_window(number, c->next) && number != c->next) {
        unsigned ahead = (number + MODULO - c->next) % MODULO;
        if (ahead < WINDOW)
            c->held[number] = true;
    }
    if (is("reorder") && !n_held_answer) { /* hold them back */
        memcpy(held_answer, ack, 4);
        memcpy(held_answer + 4, up, 3);
        n_held_answer = link_up ? 7 : 4;
        held_for = c;
        return true;
    }
    if (link_up && is("up-first"))
        send_to(c, up, sizeof up);
    send_to(c, ack, sizeof ack);
    if (link_up && !is("up-first"))
        send_to(c, up, sizeof up);
    flush_held(); /* then the first's */
    return !is("close-early");
}

/* the planted bugs of a link state (cmd, seq u16, link u16, flags u8,
   message length u16 and bytes, value count u16, then type u8 and value) */
static void planted(const uint8_t *b, size_t n)
{
    if (is("crash-update") && b[0] == 9 && n >= 2 && b[1] > 1)
        abort();
    if (b[0] != 5 || n < 8)
        return;
    size_t at = 8 + (size_t)(b[6] | b[7] << 8);
    if (at + 2 > n)
        return;
    unsigned count = (unsigned)(b[at] | b[at + 1] << 8);
    if (is("crash-at-max") && count == 0xffff)
        abort();
    if (is("oob-read")) {
        uint8_t *copy = malloc(n);
        memcpy(copy, b, n);
        volatile unsigned sum = 0;
        size_t off = at + 2;
        for (unsigned i = 0; i < count && i < 64; i++) { /* UInt32 values (type 5) only */
            uint8_t type = copy[off]; /* the bug: off may be n */
            sum += type;
            if (type != 5)
                break;
            off += 5;
        }
        free(copy);
    }
}

/* a datagram from c (NULL: from an address with no connection) */
static bool datagram(conn *c, const struct sockaddr_storage *from, socklen_t fl, const uint8_t *b, size_t n)
{
    if (listening && b[0] == 0) { /* connection request */
        if (c && !is("reack"))
            return true; /* a connected client's: ignored */
        bool dnp1 = false, unknown = false;
        unsigned count = n >= 3 ? (unsigned)(b[1] | b[2] << 8) : 0;
        for (unsigned i = 0; i < count && 3 + 2 * i + 1 < n; i++) {
            bool zero = (b[3 + 2 * i] | b[4 + 2 * i] << 8) == 0;
            dnp1 |= zero;
            unknown |= !zero;
        }
        if (is("no-dnp1") || (is("unknown-refused") && unknown))
            dnp1 = false;
        static struct sockaddr_storage refused[64]; /* rerefuse: the addresses refused */
        static unsigned n_refused;
        for (unsigned i = 0; i < n_refused && is("rerefuse"); i++)
            if (memcmp(&refused[i], from, fl) == 0)
                dnp1 = false;
        conn tmp = {.addr = *from, .addrlen = fl};
        if (!dnp1 && !is("accept-any")) {
            static const uint8_t refuse[] = {1, 2};
            send_to(&tmp, refuse, sizeof refuse);
            if (n_refused < 64)
                refused[n_refused++] = *from;
            if (is("remember-rejected") && !c)
                add(from, fl);
            return true;
        }
        if (!c)
            c = add(from, fl);
        static const uint8_t accept[] = {1, 0, 0, 0};
        send_to(&tmp, accept, sizeof accept);
        return true;
    }
    if (!c || (c->hung && b[0] != 2))
        return true; /* not connected: only a request is taken (a hung one: its close) */
    planted(b, n);
    switch (b[0]) {
    case 1: /* connection ack (the client's) */
        return true;
    case 2: /* closed by the other side */
        c->used = false;
        return listening;
    case 3:
        if (is("ack-unreliable")) {
            static const uint8_t ack0[] = {6, 0, 0, 0};
            send_to(c, ack0, sizeof ack0);
        }
        return true;
    case 4:
    case 5:
        if (n < 3)
            return true; /* truncated: nothing to acknowledge */
        if (!reliable(c, b, n)) {
            static const uint8_t close_cmd[] = {2};
            send_to(c, close_cmd, sizeof close_cmd);
            c->used = false;
            return listening;
        }
        return true;
    default:
        return true; /* unknown commands are ignored */
    }
}

int main(int argc, char **argv)
{
    int a = 1;
    listening = argc > 1 && strcmp(argv[1], "--listen") == 0;
    a += listening;
    const char *from_port = argc > 2 && strcmp(argv[1], "--from") == 0 ? argv[2] : NULL;
    a += from_port ? 2 : 0;
    if (argc - a != 4) {
        fprintf(stderr, "usage: dnp_peer [--listen | --from LOCAL_PORT] HOST PORT MODE SILENCE_MS\n");
        return 2;
    }
    mode = argv[a + 2];
    int silence = atoi(argv[a + 3]);
    conns = calloc(MAX_CONNS, sizeof *conns);
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = listening ? AI_PASSIVE : 0}, *ai;
    if (!conns || getaddrinfo(argv[a], argv[a + 1], &hints, &ai) != 0)
        return 2;
    fd = socket(ai->ai_family, SOCK_DGRAM, 0);
    if (fd >= 0 && from_port) {
        struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(from_port))};
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ai->ai_family != AF_INET || bind(fd, (struct sockaddr *)&local, sizeof local) < 0)
            return 2;
    }
    if (fd < 0 || (listening ? bind(fd, ai->ai_addr, ai->ai_addrlen) : connect(fd, ai->ai_addr, ai->ai_addrlen)) < 0)
        return 2;
    if (listening) /* a test waits for this line, not for a clock */
        fprintf(stderr, "dnp_peer: listening on %s:%s\n", argv[a], argv[a + 1]);
    conn *server = NULL;
    if (!listening) { /* until the server listens and answers */
        server = add(&(struct sockaddr_storage){0}, 0);
        server->used = false; /* connected once its ack accepts */
        static const uint8_t request[] = {0x00, 0x01, 0x00, 0x00, 0x00}; /* DNP1 */
        /* every 100 ms while the port is closed (an ICMP "port unreachable":
           not listening yet; recv fails), for up to 10 s; a server that is
           there and ignores the request is given up after 1 s of silence */
        for (int tries = 0, quiet = 0; tries < 100 && quiet < 10; tries++) {
            send(fd, request, sizeof request, 0);
            struct pollfd pf = {fd, POLLIN, 0};
            uint8_t b[4];
            quiet++;
            if (poll(&pf, 1, 100) > 0) {
                quiet = 0;
                ssize_t n = recv(fd, b, sizeof b, 0);
                if (n >= 2 && b[0] == 1) {
                    server->used = b[1] == 0 || (is("unknown-accepts") && b[1] != 1 && b[1] != 2);
                    if (!server->used) /* refused: nothing left to do */
                        return 1;
                    break;
                }
                if (n < 0)
                    usleep(100000);
            }
        }
    }
    freeaddrinfo(ai);
    bool connected = server && server->used;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, n_held_answer ? 200 : silence > 0 ? silence : -1) <= 0) {
            if (!n_held_answer)
                break;
            flush_held(); /* nothing came with it: answered after all */
            continue;
        }
        uint8_t b[65536];
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fd, b, sizeof b, 0, (struct sockaddr *)&from, &fl);
        if (n < 1)
            continue;
        if (is("slow"))
            usleep(400000);
        conn *c = listening ? find(&from, fl) : server->used ? server : NULL;
        if (!datagram(c, &from, fl, b, (size_t)n))
            break;
    }
    if (server && server->used) {
        static const uint8_t close_cmd[] = {0x02};
        send(fd, close_cmd, sizeof close_cmd, 0);
    }
    close(fd);
    return listening || connected ? 0 : 1;
}
