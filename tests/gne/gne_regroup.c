/* gne_regroup.c - a TCP relay for pcaptool replay's GNE tests (test
 * tooling, not a product): it takes one client on 127.0.0.1:LISTEN_PORT
 * and relays its stream to HOST:PORT unchanged, and the server's stream
 * back regrouped, as gnelib's own timing may group it: every two HawkNL
 * frames of packets that come within 200 ms of each other go as one frame
 * (one message: the first's 255 dropped), and before the first of them a
 * ping request nobody recorded (id 99, little-endian data), as gnelib's
 * periodic pinging sends. Handshake frames ("GNE" first) go unchanged.
 * It exits when either side closes.
 *
 *   gne_regroup LISTEN_PORT HOST PORT
 */
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void send_frame(int fd, const uint8_t *content, size_t n)
{
    uint8_t h[4] = {'N', 'L', (uint8_t)(n >> 8), (uint8_t)n};
    send(fd, h, 4, MSG_NOSIGNAL);
    send(fd, content, n, MSG_NOSIGNAL);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gne_regroup LISTEN_PORT HOST PORT\n");
        return 2;
    }
    struct sockaddr_in here = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ls < 0 || bind(ls, (struct sockaddr *)&here, sizeof here) < 0 || listen(ls, 1) < 0)
        return 2;
    printf("gne_regroup: listening\n");
    fflush(stdout);
    int client = accept(ls, NULL, NULL);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
    if (client < 0 || getaddrinfo(argv[2], argv[3], &hints, &ai) != 0)
        return 2;
    int server = socket(ai->ai_family, SOCK_STREAM, 0);
    if (server < 0 || connect(server, ai->ai_addr, ai->ai_addrlen) < 0)
        return 2;
    freeaddrinfo(ai);
    static uint8_t in[1 << 20], held[70000];
    size_t n_in = 0, n_held = 0;
    bool pinged = false;
    for (;;) {
        struct pollfd pf[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
        int r = poll(pf, 2, n_held ? 200 : -1);
        if (r < 0)
            break;
        if (r == 0) { /* nothing came with the held frame: it goes alone */
            send_frame(client, held, n_held);
            n_held = 0;
            continue;
        }
        uint8_t b[65536];
        if (pf[0].revents) {
            ssize_t n = recv(client, b, sizeof b, 0);
            if (n <= 0)
                break;
            send(server, b, (size_t)n, MSG_NOSIGNAL);
        }
        if (!pf[1].revents)
            continue;
        ssize_t n = recv(server, b, sizeof b, 0);
        if (n <= 0)
            break;
        if (n_in + (size_t)n > sizeof in)
            break;
        memcpy(in + n_in, b, (size_t)n);
        n_in += (size_t)n;
        size_t at = 0;
        while (n_in - at >= 4) { /* whole frames: header "NL", u16 big-endian length */
            size_t len = (size_t)in[at + 2] << 8 | in[at + 3];
            if (n_in - at < 4 + len)
                break;
            const uint8_t *c = in + at + 4;
            bool packets = len >= 1 && c[len - 1] == 0xff && !(len >= 3 && !memcmp(c, "GNE", 3));
            if (!packets) {
                if (n_held) {
                    send_frame(client, held, n_held);
                    n_held = 0;
                }
                send_frame(client, c, len);
            } else if (n_held) { /* the second of two: one message */
                memcpy(held + n_held - 1, c, len);
                send_frame(client, held, n_held - 1 + len);
                n_held = 0;
            } else {
                if (!pinged) {
                    uint8_t ping[22] = {4, 99};
                    ping[21] = 0xff;
                    send_frame(client, ping, sizeof ping);
                    pinged = true;
                }
                memcpy(held, c, len);
                n_held = len;
            }
            at += 4 + len;
        }
        memmove(in, in + at, n_in - at);
        n_in -= at;
    }
    if (n_held)
        send_frame(client, held, n_held);
    close(client);
    close(server);
    return 0;
}
