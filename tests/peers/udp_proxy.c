/* udp_proxy.c - a UDP relay for pcaptool replay's tests (test tooling, not
 * a product): it takes datagrams on 127.0.0.1:LISTEN_PORT from one client
 * and relays them to HOST:PORT, and the answers back, changing the answers
 * as MODE says. After SILENCE_MS without a datagram it exits.
 *
 *   udp_proxy LISTEN_PORT HOST PORT MODE SILENCE_MS
 *   MODE: double  every answer goes to the client twice (as the Dec 2023
 *                 R-Type build sends every EOUDP datagram)
 */
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 6 || strcmp(argv[4], "double") != 0) {
        fprintf(stderr, "usage: udp_proxy LISTEN_PORT HOST PORT double SILENCE_MS\n");
        return 2;
    }
    int silence = atoi(argv[5]);
    struct sockaddr_in here = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int front = socket(AF_INET, SOCK_DGRAM, 0);
    if (front < 0 || bind(front, (struct sockaddr *)&here, sizeof here) < 0)
        return 2;
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai;
    if (getaddrinfo(argv[2], argv[3], &hints, &ai) != 0)
        return 2;
    int back = socket(ai->ai_family, SOCK_DGRAM, 0);
    if (back < 0 || connect(back, ai->ai_addr, ai->ai_addrlen) < 0)
        return 2;
    freeaddrinfo(ai);
    struct sockaddr_storage client;
    socklen_t client_len = 0;
    printf("udp_proxy: listening\n");
    fflush(stdout);
    for (;;) {
        struct pollfd pf[2] = {{front, POLLIN, 0}, {back, POLLIN, 0}};
        if (poll(pf, 2, silence) <= 0)
            break;
        uint8_t b[65536];
        if (pf[0].revents & POLLIN) { /* from the client: relayed */
            struct sockaddr_storage from;
            socklen_t fl = sizeof from;
            ssize_t n = recvfrom(front, b, sizeof b, 0, (struct sockaddr *)&from, &fl);
            if (n >= 0) {
                client = from;
                client_len = fl;
                send(back, b, (size_t)n, 0);
            }
        }
        if (pf[1].revents & POLLIN) { /* an answer: to the client, twice */
            ssize_t n = recv(back, b, sizeof b, 0);
            if (n >= 0 && client_len)
                for (int k = 0; k < 2; k++)
                    sendto(front, b, (size_t)n, 0, (struct sockaddr *)&client, client_len);
        }
    }
    return 0;
}
