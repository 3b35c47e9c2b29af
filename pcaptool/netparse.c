/* netparse.c - link layer and IP parsing, every read bounds-checked. */
#include "netparse.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* pcap link types (www.tcpdump.org/linktypes.html) */
#define LT_NULL 0
#define LT_ETHERNET 1
#define LT_RAW_OLD 12
#define LT_RAW 101
#define LT_LOOP 108
#define LT_LINUX_SLL 113
#define LT_IPV4 228
#define LT_IPV6 229
#define LT_LINUX_SLL2 276

#define ETH_IPV4 0x0800
#define ETH_IPV6 0x86dd
#define ETH_VLAN 0x8100
#define ETH_QINQ 0x88a8
#define ETH_QINQ_OLD 0x9100


int net_linktype_supported(int lt)
{
    switch (lt) {
    case LT_NULL: case LT_ETHERNET: case LT_RAW_OLD: case LT_RAW: case LT_LOOP:
    case LT_LINUX_SLL: case LT_IPV4: case LT_IPV6: case LT_LINUX_SLL2:
        return 1;
    default:
        return 0;
    }
}

static net_result parse_l4(int proto, const uint8_t *p, size_t len, net_packet *out)
{
    out->l4 = proto;
    if (proto == NET_UDP) {
        if (len < 8)
            return NET_TRUNCATED;
        out->sport = net_be16(p);
        out->dport = net_be16(p + 2);
        size_t ulen = net_be16(p + 4);
        /* the UDP length is authoritative when it fits (Ethernet pads short frames) */
        size_t plen = len - 8;
        if (ulen >= 8 && ulen - 8 < plen)
            plen = ulen - 8;
        out->payload = p + 8;
        out->payload_len = plen;
        return NET_OK;
    }
    if (proto == NET_TCP) {
        if (len < 20)
            return NET_TRUNCATED;
        size_t hl = (size_t)(p[12] >> 4) * 4;
        if (hl < 20 || hl > len)
            return NET_TRUNCATED;
        out->sport = net_be16(p);
        out->dport = net_be16(p + 2);
        out->tcp_seq = net_be32(p + 4);
        out->tcp_flags = p[13];
        out->payload = p + hl;
        out->payload_len = len - hl;
        return NET_OK;
    }
    return NET_NOT_UDP_TCP;
}

static net_result parse_ipv4(const uint8_t *p, size_t len, net_packet *out)
{
    if (len < 20)
        return NET_TRUNCATED;
    size_t hl = (size_t)(p[0] & 0x0f) * 4;
    size_t total = net_be16(p + 2);
    if (hl < 20 || len < hl)
        return NET_TRUNCATED;
    if (total >= hl && total < len)
        len = total; /* drop link-layer padding */
    out->ip_version = 4; /* the rest of src and dst: zeroed by net_parse */
    memcpy(out->src, p + 12, 4);
    memcpy(out->dst, p + 16, 4);
    uint16_t frag = net_be16(p + 6);
    if (frag & 0x3fff) /* more fragments, or an offset */
        return NET_FRAGMENT;
    return parse_l4(p[9], p + hl, len - hl, out);
}

static net_result parse_ipv6(const uint8_t *p, size_t len, net_packet *out)
{
    if (len < 40)
        return NET_TRUNCATED;
    size_t plen = net_be16(p + 4);
    if (40 + plen < len)
        len = 40 + plen;
    out->ip_version = 6;
    memcpy(out->src, p + 8, 16);
    memcpy(out->dst, p + 24, 16);
    int next = p[6];
    size_t off = 40;
    for (int hops = 0; hops < 16; hops++) {
        switch (next) {
        case 0: case 43: case 60: /* hop-by-hop, routing, destination options */
            if (off + 8 > len)
                return NET_TRUNCATED;
            next = p[off];
            off += ((size_t)p[off + 1] + 1) * 8;
            break;
        case 44: /* fragment */
            if (off + 8 > len)
                return NET_TRUNCATED;
            if (net_be16(p + off + 2) & 0xfff9) /* offset or more-fragments */
                return NET_FRAGMENT;
            next = p[off];
            off += 8;
            break;
        default:
            if (off > len)
                return NET_TRUNCATED;
            return parse_l4(next, p + off, len - off, out);
        }
    }
    return NET_NOT_UDP_TCP;
}

static net_result parse_ethertype(uint16_t type, const uint8_t *p, size_t len, net_packet *out)
{
    if (type == ETH_IPV4)
        return parse_ipv4(p, len, out);
    if (type == ETH_IPV6)
        return parse_ipv6(p, len, out);
    return NET_NOT_IP;
}

static net_result parse_ip_any(const uint8_t *p, size_t len, net_packet *out)
{
    if (len < 1)
        return NET_TRUNCATED;
    if ((p[0] >> 4) == 4)
        return parse_ipv4(p, len, out);
    if ((p[0] >> 4) == 6)
        return parse_ipv6(p, len, out);
    return NET_NOT_IP;
}

net_result net_parse_any(int lt, const uint8_t *f, size_t len, net_packet *out)
{
    memset(out, 0, sizeof *out);
    switch (lt) {
    case LT_ETHERNET: {
        if (len < 14)
            return NET_TRUNCATED;
        uint16_t type = net_be16(f + 12);
        size_t off = 14;
        while (type == ETH_VLAN || type == ETH_QINQ || type == ETH_QINQ_OLD) {
            if (off + 4 > len)
                return NET_TRUNCATED;
            type = net_be16(f + off + 2);
            off += 4;
        }
        return parse_ethertype(type, f + off, len - off, out);
    }
    case LT_LINUX_SLL:
        if (len < 16)
            return NET_TRUNCATED;
        return parse_ethertype(net_be16(f + 14), f + 16, len - 16, out);
    case LT_LINUX_SLL2:
        if (len < 20)
            return NET_TRUNCATED;
        return parse_ethertype(net_be16(f), f + 20, len - 20, out);
    case LT_NULL:
    case LT_LOOP: {
        if (len < 4)
            return NET_TRUNCATED;
        /* the address family, in the capturing host's byte order (NULL) or
           big-endian (LOOP); AF_INET is 2 everywhere, AF_INET6 varies */
        uint32_t fam_le = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
        uint32_t fam = lt == LT_LOOP ? net_be32(f) : (fam_le < 256 ? fam_le : net_be32(f));
        if (fam == 2)
            return parse_ipv4(f + 4, len - 4, out);
        if (fam == 10 || fam == 24 || fam == 28 || fam == 30)
            return parse_ipv6(f + 4, len - 4, out);
        return NET_NOT_IP;
    }
    case LT_RAW_OLD:
    case LT_RAW:
    case LT_IPV4:
    case LT_IPV6:
        return parse_ip_any(f, len, out);
    default:
        return NET_BAD_LINKTYPE;
    }
}

size_t net_format_endpoint(const net_packet *p, int dst, char *buf, size_t bufsz)
{
    char a[INET6_ADDRSTRLEN];
    const uint8_t *addr = dst ? p->dst : p->src;
    uint16_t port = dst ? p->dport : p->sport;
    if (p->ip_version == 4) {
        /* by hand: inet_ntop and snprintf cost more than the rest of a
           short conversation's first packet */
        char text[22]; /* "255.255.255.255:65535" */
        char *o = text;
        for (int i = 0; i < 4; i++) {
            unsigned v = addr[i];
            if (v >= 100)
                *o++ = (char)('0' + v / 100);
            if (v >= 10)
                *o++ = (char)('0' + v / 10 % 10);
            *o++ = (char)('0' + v % 10);
            *o++ = i < 3 ? '.' : ':';
        }
        char digits[5];
        int n = 0;
        do
            digits[n++] = (char)('0' + port % 10);
        while ((port /= 10) > 0);
        while (n)
            *o++ = digits[--n];
        size_t n_text = (size_t)(o - text);
        if (n_text >= bufsz)
            n_text = bufsz - 1;
        memcpy(buf, text, n_text);
        buf[n_text] = '\0';
        return n_text;
    }
    inet_ntop(AF_INET6, addr, a, sizeof a);
    int n = snprintf(buf, bufsz, "[%s]:%u", a, port);
    return n < 0 ? 0 : (size_t)n < bufsz ? (size_t)n : bufsz - 1;
}
