/* netparse.h - from a captured frame to a UDP/TCP payload: link layer
 * (Ethernet, VLAN, Linux cooked v1/v2, raw IP, BSD loopback), IPv4, IPv6. */
#ifndef PCAPTOOL_NETPARSE_H
#define PCAPTOOL_NETPARSE_H

#include <stddef.h>
#include <stdint.h>

enum { NET_UDP = 17, NET_TCP = 6 };

typedef struct {
    int ip_version;          /* 4 or 6 */
    uint8_t src[16], dst[16];/* IPv4 uses the first 4 bytes */
    uint16_t sport, dport;
    int l4;                  /* NET_UDP or NET_TCP */
    const uint8_t *payload;
    size_t payload_len;
    /* TCP only */
    uint32_t tcp_seq;
    uint8_t tcp_flags;
} net_packet;

typedef enum {
    NET_OK,
    NET_NOT_IP,        /* ARP, other link payloads: nothing for us */
    NET_NOT_UDP_TCP,   /* ICMP and friends */
    NET_FRAGMENT,      /* an IP fragment: not reassembled */
    NET_TRUNCATED,     /* a header ends past the captured bytes */
    NET_BAD_LINKTYPE,  /* a link type we do not read */
} net_result;

/* Is this pcap link type one we read? */
int net_linktype_supported(int linktype);
net_result net_parse(int linktype, const uint8_t *frame, size_t caplen, net_packet *out);
/* "1.2.3.4:5" or "[::1]:5" */
void net_format_endpoint(const net_packet *p, int dst, char *buf, size_t bufsz);

#endif
