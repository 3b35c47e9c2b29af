/* run.h - reading one capture file through the decoders: link, IP, UDP and
 * TCP reassembly, conversations, protocol choice. What becomes of each PDU
 * and finding is up to the consumer (decode prints, validate counts). */
#ifndef PCAPTOOL_RUN_H
#define PCAPTOOL_RUN_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "core/gw_core.h"
#include "output.h"
#include "tcpstream.h"

#define RUN_MAX_PORTS 16

/* pcaptool's own findings, about the transport and the capture rather than
   a protocol: first the TCP reassembler's (indexed by tcp_event), then the
   conversation table's */
enum {
    RUN_F_CONVERSATIONS_EVICTED = TCP_N_EVENTS,
    RUN_N_FINDINGS
};
extern const gw_finding_def run_findings[RUN_N_FINDINGS];

typedef struct {
    uint16_t ports[RUN_MAX_PORTS];
    int n;
    bool set_by_user;
} run_ports;

/* what the bounds saw (the fuzz harnesses check it): the most
   conversation state and TCP data held after a packet, and how often the
   state was over its limit after a packet while other conversations than
   the one being read were still held (never, if the table keeps its bound) */
typedef struct {
    size_t state_peak, tcp_peak;
    unsigned state_over;
} run_bounds;

/* how protocols are recognised, and how much is read */
typedef struct {
    bool heuristics;
    run_ports ports[GW_MAX_PROTOCOLS]; /* per gw_protocols[] index */
    int opts[GW_MAX_PROTOCOLS][GW_MAX_OPTIONS]; /* each protocol's options (-o, --profile) */
    unsigned count;      /* stop after this many packets (-c); 0: all */
    cap_writer *save;    /* every packet read is also written here (-w) */
    /* lower bounds than FLOWS_STATE_MAX and TCP_BUDGET_DEFAULT (0: those),
       and where to report what they saw (NULL: nowhere): for tests */
    size_t state_limit, tcp_limit;
    run_bounds *bounds;
} run_options;

void run_options_init(run_options *o);
/* "dnp=3413": false when malformed or unknown */
bool run_parse_port(run_options *o, const char *arg);
/* "dnp.update_layout=spec": sets the decoder option; false when unknown */
bool run_parse_option(run_options *o, const char *arg);
/* --profile: every protocol's "profile" option to value */
void run_set_profile(run_options *o, int value);
/* p's options in o */
const int *run_opts(const run_options *o, const gw_protocol *p);
/* index of a protocol in gw_protocols[] by name (len bytes), or -1 */
int run_proto_index(const char *name, size_t len);

/* the source() callback of a consumer that has no use for reassembled data */
void run_ignore_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len);

/* where a file's PDUs and findings go */
typedef struct {
    void *ctx;
    /* the sink for the next PDU of p (the run sets its expect and
       expect_ctx for the decoding, and expect back to NULL after it: the
       run links announced conversations itself, then tells expected()) */
    gw_sink *(*pdu_begin)(void *ctx, const gw_protocol *p);
    /* the PDU is decoded; returns its highest finding severity + 1 (0: none) */
    unsigned (*pdu_end)(void *ctx, const gw_protocol *p, const out_meta *m);
    /* a finding outside a PDU: a transport one (p NULL, index into
       run_findings[]) or one reported as a conversation ends */
    void (*finding)(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                    const out_finding *fd);
    /* the PDU being decoded announced a linked conversation (gw_sink.expect),
       which the run now recognises; may be NULL */
    void (*expected)(void *ctx, int transport, int port_side, uint16_t port);
    /* will the message of p's finding about `frame` be shown, which a
       conversation's end is about to report (gw_end_sink.wants_message)?
       May be NULL: every message is */
    bool (*wants_message)(void *ctx, const gw_protocol *p, uint32_t frame, int finding);
} run_consumer;

/* Read one capture file ("-": standard input), raising *max_sev to the
   highest finding severity + 1 seen. Returns 0; 1 when it was read but some
   packets could not be decoded (their link type), said in err; -1 when it
   cannot be read or is damaged, the reason in err as one line without the
   path ("cannot read capture: No such file or directory", "truncated after
   frame 52: what came before was decoded"), what came before the damage
   consumed. A stop asked for by a signal ends the reading as if the input
   ended there (cap_stop_signal tells). */
int run_file(const run_options *o, const char *path, const run_consumer *c, unsigned *max_sev,
             char *err, size_t errsz);
/* the same for a capture already open (a file or a live interface); the
   caller closes it */
int run_capture(const run_options *o, cap_reader *cr, const run_consumer *c, unsigned *max_sev,
                char *err, size_t errsz);

#endif
