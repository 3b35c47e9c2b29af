/* tcpstream.h - TCP reassembly into PDUs, written once for every TCP
 * protocol: one byte stream per direction, in sequence order, cut into
 * PDUs by the protocol's framing function (gw_protocol.pdu_length).
 *
 * Handles PDUs split across segments, several PDUs in one segment,
 * out-of-order segments, retransmissions and overlaps, and gaps (missing
 * data: the PDU that needed it is dropped and the stream resumes at the next
 * segment that starts past it, as Wireshark does). Memory per direction is
 * bounded: the pending bytes of one PDU (at most the protocol's largest PDU
 * plus one segment) and at most TCP_OOO_MAX bytes of early segments. */
#ifndef PCAPTOOL_TCPSTREAM_H
#define PCAPTOOL_TCPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_core.h"

#define TCP_OOO_MAX (256u * 1024)

typedef struct tcp_half tcp_half;

/* transport-level events, reported beside the PDUs */
typedef enum {
    TCP_EV_GAP,          /* bytes never captured: a PDU was lost */
    TCP_EV_OOO_LIMIT,    /* too many early bytes buffered: treated as a gap */
    TCP_EV_END_IN_PDU,   /* FIN/RST or end of capture inside a PDU */
} tcp_event;

/* their finding codes, indexed by tcp_event */
#define TCP_N_FINDINGS 3
extern const gw_finding_def tcp_findings[TCP_N_FINDINGS];

typedef struct {
    void (*pdu)(void *ctx, const uint8_t *data, size_t len);
    void (*event)(void *ctx, tcp_event ev, uint64_t bytes);
    void *ctx;
} tcp_sink;

tcp_half *tcp_half_new(void);
void tcp_half_free(tcp_half *h);
void tcp_half_reset(tcp_half *h);
/* one segment in this direction; flags as in the TCP header */
void tcp_half_segment(tcp_half *h, const gw_protocol *p, uint32_t seq, uint8_t flags,
                      const uint8_t *data, size_t len, const tcp_sink *out);
/* the capture ended: report a PDU left incomplete */
void tcp_half_finish(tcp_half *h, const tcp_sink *out);

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

#endif
