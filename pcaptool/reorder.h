/* reorder.h - a consumer's records held back and handed on in frame order.
 *
 * A TCP PDU decoded late (from early bytes, once the bytes before them are
 * given up) belongs to an earlier frame than the packet being read
 * (tcpstream.h): run.c then records what the decoder reports, instead of
 * handing it to the consumer, and releases the records in frame order once
 * no conversation can deliver an earlier frame (tcp_budget_earliest). A
 * record is the PDU's sink events (items, subtrees, findings, summary, data
 * sources, announced conversations) with copies of every byte and text they
 * point to, or a finding outside a PDU; replaying it gives the consumer what
 * decoding straight into it would have. Nothing is held while no
 * conversation holds early bytes: ordinary captures stream as before.
 *
 * Held records take at most REORDER_MAX bytes (as allocated: a small
 * record's slot, cut from chunks and reused, a large one's allocation with
 * the allocator's overhead; the chunks are kept until reorder_free and hold
 * at most what was held at once, plus a chunk). Past that the
 * earliest are handed on at once: a record of an earlier frame coming later
 * is then out of order. */
#ifndef PCAPTOOL_REORDER_H
#define PCAPTOOL_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "run.h"

#define REORDER_MAX ((size_t)16 << 20)

typedef struct reorder reorder;

/* records for consumer c; each PDU's highest severity + 1 (pdu_end's
   answer) and each finding's raise *max_sev as they are handed on */
reorder *reorder_new(const run_consumer *c, unsigned *max_sev);
void reorder_free(reorder *q);
bool reorder_empty(const reorder *q);
/* record a PDU of p (m: as pdu_end will be told, its data the PDU's
   bytes): the sink to decode it into, with the same callbacks present as
   `like` (the consumer's) */
gw_sink *reorder_pdu_begin(reorder *q, const gw_protocol *p, const gw_sink *like, const out_meta *m);
/* the PDU decoding announced a linked conversation (run_consumer.expected) */
void reorder_expected(reorder *q, int transport, int port_side, uint16_t port);
void reorder_pdu_end(reorder *q);
/* a finding outside a PDU (run_consumer.finding); its texts are copied but
   fd->proto, short_name and code, which must outlive q (the protocols' and
   the run's static names and codes) */
void reorder_finding(reorder *q, const gw_protocol *p, int index, const out_meta *m, const out_finding *fd);
/* hand on, in frame order (in the order recorded within a frame), the
   records of frames up to `frame` */
void reorder_release(reorder *q, uint32_t frame);

#endif
