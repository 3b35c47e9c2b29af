/* peer.h - what the subcommands that talk to a live peer share (replay,
 * conform): HOST:PORT targets, endpoint names, and the frames of their
 * --out captures. */
#ifndef PCAPTOOL_PEER_H
#define PCAPTOOL_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* "HOST:PORT" or "[IPV6]:PORT" into host and port; false when malformed */
bool peer_parse_target(const char *arg, char *host, size_t hostsz, char *port, size_t portsz);
void peer_set_port(struct sockaddr_storage *a, uint16_t port);
uint16_t peer_port_of(const struct sockaddr_storage *a);
/* "1.2.3.4:5" or "[::1]:5" */
void peer_endpoint_name(const struct sockaddr_storage *a, char *buf, size_t n);
/* send all of d (TCP: however many calls it takes) within timeout_ms;
   false on an error or when the peer took too little of it in that time
   (errno ETIMEDOUT: a peer that never reads); a UDP port found closed is
   not an error: the next receive tells */
bool peer_send_all(int fd, bool udp, const uint8_t *d, size_t len, int timeout_ms);

/* The frame of a PDU in an --out capture (LINKTYPE_RAW): an IPv4 or IPv6
   packet from src to dst with a UDP datagram, or a TCP segment (PSH+ACK,
   sequence number *seq, acknowledging ack; *seq advances by the PDU's
   length) around it. f has room for 65535 bytes; the frame's length (a PDU
   too long for one packet is cut). */
size_t peer_frame(uint8_t *f, const struct sockaddr_storage *src, const struct sockaddr_storage *dst, bool tcp,
                  uint32_t *seq, uint32_t ack, const uint8_t *d, size_t len);

/* The k-th (0, 1, 2) frame of the handshake that opens a TCP connection
   from connector to listener, into f: so that a reader of --out knows which
   side connected (without it, the first side to send would be taken for
   the client, and a protocol whose server speaks first reads backwards).
   Data then starts at sequence number 1 both ways. */
size_t peer_tcp_open(uint8_t *f, int k, const struct sockaddr_storage *connector,
                     const struct sockaddr_storage *listener);

#endif
