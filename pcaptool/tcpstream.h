/* tcpstream.h - TCP reassembly into PDUs, written once for every TCP
 * protocol: one byte stream per direction, in sequence order, cut into
 * PDUs by the protocol's framing function (gw_protocol.pdu_length).
 *
 * Handles PDUs split across segments, several PDUs in one segment,
 * out-of-order segments, retransmissions and overlaps, and gaps (missing
 * data: the PDU that needed it is dropped and the stream resumes at the next
 * segment that starts past it, as Wireshark does). Memory per direction is
 * bounded: the pending bytes of one PDU (at most the protocol's largest PDU
 * plus one segment) and at most TCP_OOO_MAX bytes of early segments; and
 * all the halves sharing a tcp_budget together hold at most its limit (plus
 * one segment): beyond it, the half that needs more gives up its PDU. */
#ifndef PCAPTOOL_TCPSTREAM_H
#define PCAPTOOL_TCPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gw_core.h"

#define TCP_OOO_MAX (256u * 1024)

#define TCP_BUDGET_DEFAULT (64u << 20) /* bytes all conversations may hold */

typedef struct tcp_half tcp_half;

typedef struct {
    size_t used, limit;
} tcp_budget;

/* transport-level events, reported beside the PDUs (as the findings of the
   same index in run.h's run_findings) */
typedef enum {
    TCP_EV_GAP,          /* bytes never captured: a PDU was lost */
    TCP_EV_OOO_LIMIT,    /* too many early bytes buffered: treated as a gap */
    TCP_EV_END_IN_PDU,   /* FIN/RST or end of capture inside a PDU */
    TCP_EV_MEMORY_LIMIT, /* the budget is spent: a PDU under way given up */
    TCP_N_EVENTS
} tcp_event;

typedef struct {
    void (*pdu)(void *ctx, const uint8_t *data, size_t len);
    void (*event)(void *ctx, tcp_event ev, uint64_t bytes);
    void *ctx;
} tcp_sink;

tcp_half *tcp_half_new(tcp_budget *budget);
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
