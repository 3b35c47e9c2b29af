/* pcapw.h - a tiny capture writer for the test generators: pcap or pcapng,
 * Ethernet (optionally VLAN-tagged), Linux cooked v1/v2, raw IP or BSD
 * loopback framing, IPv4 or IPv6, UDP. Timestamps advance deterministically. */
#ifndef GW_TEST_PCAPW_H
#define GW_TEST_PCAPW_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { LT_NULL = 0, LT_ETH = 1, LT_RAW = 101, LT_SLL = 113, LT_SLL2 = 276 };

typedef struct {
    FILE *f;
    int linktype;
    int pcapng;
    int vlan;      /* Ethernet: add an 802.1Q tag */
    int ipv6;
    uint64_t t_us; /* next timestamp, microseconds since the epoch */
} pcapw;

typedef struct {
    uint8_t *p;
    size_t n, cap;
} bytes;

/* a generator's main: its one argument, the folder it writes to, into
   outdir (n bytes), then each of its sections (NULL-terminated) in turn;
   the exit code (2 after a usage line on stderr) */
int pw_run(int argc, char **argv, char *outdir, size_t n, void (*const *sections)(void));
void pw_open(pcapw *w, const char *path, int linktype, int pcapng);
/* OUTDIR/rules/RULE.pcap (Ethernet, pcap): a behaviour rule's capture; the
   folder is made if needed */
void pw_open_rule(pcapw *w, const char *outdir, const char *rule);
void pw_close(pcapw *w);
/* one UDP datagram; hosts are 1..255 (10.0.0.h / fd00::h) */
void pw_udp(pcapw *w, int src_host, uint16_t sport, int dst_host, uint16_t dport,
            const uint8_t *data, size_t len);
/* one TCP segment; flags as in the header (0x02 SYN, 0x10 ACK, 0x01 FIN, 0x04 RST, 0x08 PSH) */
void pw_tcp(pcapw *w, int src_host, uint16_t sport, int dst_host, uint16_t dport, uint32_t seq,
            uint32_t ack, unsigned flags, const uint8_t *data, size_t len);
void pw_advance(pcapw *w, uint64_t us);

void b_reset(bytes *b);
void b_u8(bytes *b, unsigned v);
void b_u16(bytes *b, unsigned v);   /* little-endian */
void b_u32(bytes *b, uint32_t v);
void b_u64(bytes *b, uint64_t v);
void b_f32(bytes *b, float v);
void b_f64(bytes *b, double v);
void b_raw(bytes *b, const void *p, size_t n);
void b_str16(bytes *b, const char *s); /* u16 length + bytes */
void b_hex(bytes *b, const char *hex);

#endif
