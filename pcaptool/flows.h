/* flows.h - the conversations pcaptool follows: which protocol, its
 * decoder state, and which side started it. Bounded in number. */
#ifndef PCAPTOOL_FLOWS_H
#define PCAPTOOL_FLOWS_H

#include <stdbool.h>

#include "gw_core.h"
#include "netparse.h"

#define FLOWS_MAX 65536

typedef struct {
    const gw_protocol *p;
    void *state;
    uint8_t init_addr[16];
    uint16_t init_port;
    int64_t last_seen_ns;
} flow;

typedef struct flow_table flow_table;

flow_table *flows_new(void);
void flows_free(flow_table *t);
flow *flows_find(flow_table *t, const net_packet *pk);
/* claim the conversation of pk for p; pk's sender is the initiator.
   Sets *evicted when the table was full and idle flows were dropped. */
flow *flows_add(flow_table *t, const net_packet *pk, const gw_protocol *p, int64_t now_ns,
                unsigned *evicted);
/* 0 when pk was sent by the initiator */
int flow_direction(const flow *f, const net_packet *pk);

#endif
