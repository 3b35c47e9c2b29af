/* netparse.h - from a captured frame to a UDP/TCP payload: link layer
 * (Ethernet, VLAN, Linux cooked v1/v2, raw IP, BSD loopback), IPv4, IPv6. */
#ifndef PCAPTOOL_NETPARSE_H
#define PCAPTOOL_NETPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* any frame of a link type we read */
net_result net_parse_any(int linktype, const uint8_t *frame, size_t caplen, net_packet *out);

static inline uint16_t net_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t net_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The usual frame, read at fixed offsets: Ethernet, IPv4 without options
   and not a fragment, UDP or TCP without options, every header within the
   captured bytes. Fills out as net_parse_any would and returns true; false
   (out untouched) for anything else, which net_parse_any reads. Inline:
   once a packet. */
static inline bool net_parse_plain(const uint8_t *f, size_t len, net_packet *out)
{
    if (len < 14 + 20 + 8 || net_be16(f + 12) != 0x0800 || f[14] != 0x45)
        return false;
    const uint8_t *ip = f + 14, *l4 = ip + 20;
    size_t ip_len = len - 14, total = net_be16(ip + 2);
    if (total >= 20 && total < ip_len)
        ip_len = total; /* drop link-layer padding */
    if (net_be16(ip + 6) & 0x3fff)
        return false;
    size_t l4_len = ip_len - 20; /* ip_len >= 20: total, or len - 14 >= 28 */
    int proto = ip[9];
    if (proto == NET_UDP) {
        if (l4_len < 8)
            return false;
        size_t ulen = net_be16(l4 + 4), plen = l4_len - 8;
        if (ulen >= 8 && ulen - 8 < plen)
            plen = ulen - 8;
        out->payload = l4 + 8;
        out->payload_len = plen;
        out->tcp_seq = 0;
        out->tcp_flags = 0;
    } else if (proto == NET_TCP) {
        if (l4_len < 20 || (l4[12] >> 4) != 5)
            return false;
        out->payload = l4 + 20;
        out->payload_len = l4_len - 20;
        out->tcp_seq = net_be32(l4 + 4);
        out->tcp_flags = l4[13];
    } else {
        return false;
    }
    out->ip_version = 4;
    memcpy(out->src, ip + 12, 4);
    memcpy(out->dst, ip + 16, 4);
    memset(out->src + 4, 0, 12);
    memset(out->dst + 4, 0, 12);
    out->l4 = proto;
    out->sport = net_be16(l4);
    out->dport = net_be16(l4 + 2);
    return true;
}

/* the frame's UDP or TCP payload, addresses and ports (the usual frame
   inline, net_parse_any the rest) */
static inline net_result net_parse(int linktype, const uint8_t *frame, size_t caplen, net_packet *out)
{
    if (linktype == 1 /* Ethernet */ && net_parse_plain(frame, caplen, out))
        return NET_OK;
    return net_parse_any(linktype, frame, caplen, out);
}

/* "1.2.3.4:5" or "[::1]:5" (cut to bufsz - 1 bytes); its length */
size_t net_format_endpoint(const net_packet *p, int dst, char *buf, size_t bufsz);

#endif
