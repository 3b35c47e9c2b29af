/* peer.c - targets, endpoint names, sending and --out frames for the
 * subcommands that talk to a live peer (peer.h). */
#include "peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool peer_parse_target(const char *arg, char *host, size_t hostsz, char *port, size_t portsz)
{
    const char *colon;
    if (arg[0] == '[') {
        const char *end = strchr(arg, ']');
        if (!end || end[1] != ':')
            return false;
        g_strlcpy(host, arg + 1, MIN(hostsz, (size_t)(end - arg)));
        colon = end + 1;
    } else {
        colon = strrchr(arg, ':');
        if (!colon || colon == arg)
            return false;
        g_strlcpy(host, arg, MIN(hostsz, (size_t)(colon - arg) + 1));
    }
    g_strlcpy(port, colon + 1, portsz);
    char *end;
    long p = strtol(port, &end, 10);
    return *port && !*end && p >= 1 && p <= 65535;
}

void peer_set_port(struct sockaddr_storage *a, uint16_t port)
{
    if (a->ss_family == AF_INET)
        ((struct sockaddr_in *)a)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)a)->sin6_port = htons(port);
}

uint16_t peer_port_of(const struct sockaddr_storage *a)
{
    return ntohs(a->ss_family == AF_INET ? ((const struct sockaddr_in *)a)->sin_port
                                         : ((const struct sockaddr_in6 *)a)->sin6_port);
}

void peer_endpoint_name(const struct sockaddr_storage *a, char *buf, size_t n)
{
    char host[INET6_ADDRSTRLEN] = "?";
    bool v4 = a->ss_family == AF_INET;
    if (v4)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, host, sizeof host);
    else
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, host, sizeof host);
    snprintf(buf, n, v4 ? "%s:%u" : "[%s]:%u", host, peer_port_of(a));
}

bool peer_send_all(int fd, bool udp, const uint8_t *d, size_t len, int timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t deadline = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + timeout_ms;
    while (len) {
        ssize_t n = send(fd, d, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ECONNREFUSED && udp)
                return true; /* the peer's port closed: the next receive tells */
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return false;
            /* the peer does not read: wait for room, not past the deadline */
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t left = deadline - ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
            struct pollfd pf = {fd, POLLOUT, 0};
            if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
                errno = ETIMEDOUT;
                return false;
            }
            continue;
        }
        d += n;
        len -= (size_t)n;
    }
    return true;
}

static size_t frame(uint8_t *f, const struct sockaddr_storage *src, const struct sockaddr_storage *dst, bool tcp,
                    uint8_t flags, uint32_t *seq, uint32_t ack, const uint8_t *d, size_t len)
{
    bool v6 = src->ss_family == AF_INET6;
    size_t iph = v6 ? 40 : 20, l4h = tcp ? 20 : 8;
    size_t total = iph + l4h + len;
    if (total > 65535)
        total = 65535, len = 65535 - iph - l4h;
    memset(f, 0, iph + l4h);
    uint16_t sport, dport;
    if (v6) {
        const struct sockaddr_in6 *s = (const void *)src, *t = (const void *)dst;
        f[0] = 0x60;
        f[4] = (uint8_t)((l4h + len) >> 8);
        f[5] = (uint8_t)(l4h + len);
        f[6] = tcp ? 6 : 17;
        f[7] = 64;
        memcpy(f + 8, &s->sin6_addr, 16);
        memcpy(f + 24, &t->sin6_addr, 16);
        sport = ntohs(s->sin6_port);
        dport = ntohs(t->sin6_port);
    } else {
        const struct sockaddr_in *s = (const void *)src, *t = (const void *)dst;
        f[0] = 0x45;
        f[2] = (uint8_t)(total >> 8);
        f[3] = (uint8_t)total;
        f[8] = 64;
        f[9] = tcp ? 6 : 17;
        memcpy(f + 12, &s->sin_addr, 4);
        memcpy(f + 16, &t->sin_addr, 4);
        uint32_t sum = 0;
        for (int i = 0; i < 20; i += 2)
            sum += (uint32_t)(f[i] << 8 | f[i + 1]);
        while (sum >> 16)
            sum = (sum & 0xffff) + (sum >> 16);
        f[10] = (uint8_t)(~sum >> 8);
        f[11] = (uint8_t)~sum;
        sport = ntohs(s->sin_port);
        dport = ntohs(t->sin_port);
    }
    uint8_t *l4 = f + iph;
    l4[0] = (uint8_t)(sport >> 8);
    l4[1] = (uint8_t)sport;
    l4[2] = (uint8_t)(dport >> 8);
    l4[3] = (uint8_t)dport;
    if (tcp) {
        for (int i = 0; i < 4; i++) {
            l4[4 + i] = (uint8_t)(*seq >> (24 - 8 * i));
            l4[8 + i] = (uint8_t)(ack >> (24 - 8 * i));
        }
        l4[12] = 5 << 4;
        l4[13] = flags;
        l4[14] = 0xff;
        l4[15] = 0xff;
        *seq += (uint32_t)len;
    } else {
        l4[4] = (uint8_t)((8 + len) >> 8);
        l4[5] = (uint8_t)(8 + len);
    }
    if (len)
        memcpy(l4 + l4h, d, len);
    return total;
}

size_t peer_frame(uint8_t *f, const struct sockaddr_storage *src, const struct sockaddr_storage *dst, bool tcp,
                  uint32_t *seq, uint32_t ack, const uint8_t *d, size_t len)
{
    return frame(f, src, dst, tcp, 0x18 /* PSH, ACK */, seq, ack, d, len);
}

size_t peer_tcp_open(uint8_t *f, int k, const struct sockaddr_storage *connector,
                     const struct sockaddr_storage *listener)
{
    /* SYN (sequence 0), SYN+ACK (0, acknowledging 1), ACK (1, 1): the data
       then starts at 1 both ways, as peer_frame's callers count */
    static const uint8_t flags[3] = {0x02, 0x12, 0x10};
    uint32_t seq = k == 2, ack = k > 0;
    return frame(f, k == 1 ? listener : connector, k == 1 ? connector : listener, true, flags[k], &seq, ack, NULL, 0);
}
