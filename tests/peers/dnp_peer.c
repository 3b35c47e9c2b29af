/* dnp_peer.c - a small DNP client for pcaptool replay's tests (test
 * tooling, not a product): it connects to HOST PORT, acknowledges every
 * reliable message and link state and answers each link state with a link
 * up, as the reference client does (WIRE-NOTES.md section 1). After
 * SILENCE_MS without a datagram it closes the connection and exits.
 *
 *   dnp_peer HOST PORT MODE SILENCE_MS
 *   MODE: good        behave
 *         wrong-ack   acknowledge number n + 1 instead of n
 *         no-link-up  never send link up
 *         close-early close the connection right after its first ack (a
 *                     peer that drops a connection it holds)
 *         reorder     answer two reliable commands that come together in the
 *                     other order (the second's ack and link up first), as
 *                     a peer that handles them on two threads may
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: dnp_peer HOST PORT good|wrong-ack|no-link-up|close-early|reorder SILENCE_MS\n");
        return 2;
    }
    const char *mode = argv[3];
    int silence = atoi(argv[4]);
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai;
    if (getaddrinfo(argv[1], argv[2], &hints, &ai) != 0)
        return 2;
    int fd = socket(ai->ai_family, SOCK_DGRAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
        return 2;
    freeaddrinfo(ai);
    static const uint8_t request[] = {0x00, 0x01, 0x00, 0x00, 0x00}; /* DNP1 */
    int connected = 0;
    for (int tries = 0; tries < 100; tries++) { /* until the server listens and answers */
        send(fd, request, sizeof request, 0);
        struct pollfd pf = {fd, POLLIN, 0};
        uint8_t b;
        /* an ICMP "port unreachable" (not listening yet) makes recv fail */
        if (poll(&pf, 1, 100) > 0) {
            if (recv(fd, &b, 1, MSG_PEEK) >= 0)
                break;
            usleep(100000);
        }
    }
    uint8_t held[7]; /* reorder: the answers held back (ack, link up) */
    size_t n_held = 0;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, n_held ? 200 : silence) <= 0) {
            if (!n_held)
                break;
            send(fd, held, 4, 0); /* nothing came with it: answered after all */
            if (n_held > 4)
                send(fd, held + 4, 3, 0);
            n_held = 0;
            continue;
        }
        uint8_t b[65536];
        ssize_t n = recv(fd, b, sizeof b, 0);
        if (n < 1)
            continue;
        if (b[0] == 1) { /* connection ack */
            connected = 1;
            continue;
        }
        if ((b[0] == 4 || b[0] == 5) && n >= 3) { /* reliable message, link state */
            unsigned number = (unsigned)(b[1] | b[2] << 8);
            if (strcmp(mode, "wrong-ack") == 0)
                number++;
            uint8_t ack[4] = {6, (uint8_t)number, (uint8_t)(number >> 8), 0};
            uint8_t up[3] = {7, b[3], b[4]};
            bool link_up = b[0] == 5 && n >= 5 && strcmp(mode, "no-link-up") != 0;
            if (strcmp(mode, "reorder") == 0 && !n_held) { /* hold them back */
                memcpy(held, ack, 4);
                memcpy(held + 4, up, 3);
                n_held = link_up ? 7 : 4;
                continue;
            }
            send(fd, ack, sizeof ack, 0);
            if (link_up)
                send(fd, up, sizeof up, 0);
            if (n_held) { /* then the first's */
                send(fd, held, 4, 0);
                if (n_held > 4)
                    send(fd, held + 4, 3, 0);
                n_held = 0;
            }
            if (strcmp(mode, "close-early") == 0)
                break;
        }
    }
    static const uint8_t close_cmd[] = {0x02};
    send(fd, close_cmd, sizeof close_cmd, 0);
    close(fd);
    return connected ? 0 : 1;
}
