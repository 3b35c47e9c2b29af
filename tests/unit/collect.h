/* collect.h - a sink for unit tests: keeps every event of one PDU so tests
 * can ask for the values of a field. */
#ifndef GW_TEST_COLLECT_H
#define GW_TEST_COLLECT_H

#include "core/gw_core.h"
#include "active/gw_replay.h"

#define COLLECT_MAX 512

typedef struct {
    gw_item items[COLLECT_MAX];
    int n_items;
    int findings[COLLECT_MAX];
    size_t finding_off[COLLECT_MAX];
    int n_findings;
    char summary[256];
    int sources;
    uint8_t src_data[4][4096];
    size_t src_len[4];
    /* the last expect() call */
    int n_expect, expect_transport, expect_side;
    uint16_t expect_port;
    const void *expect_conv;
    gw_sink sink;
} collect;

void collect_init(collect *c);
/* "01 0a ff" -> bytes (spaces ignored); returns the count */
size_t unhex(const char *hex, uint8_t *out);
/* decode hex bytes (spaces ignored) with protocol p */
void collect_decode(collect *c, const gw_protocol *p, void *conv, uint32_t frame, int64_t time_ns,
                    int dir, const char *hex);
/* the same over a given transport (GW_TRANSPORT_*) */
void collect_decode_on(collect *c, const gw_protocol *p, void *conv, uint32_t frame,
                       int64_t time_ns, int dir, int transport, const char *hex);
/* number of values of a field, and the k-th one */
int collect_count(const collect *c, int field);
const gw_item *collect_get(const collect *c, int field, int k);
int collect_has_finding(const collect *c, int finding);
/* index of a field / finding of p by name (aborts when unknown) */
int collect_field(const gw_protocol *p, const char *abbrev);
int collect_finding(const gw_protocol *p, const char *code);
/* a conversation of p as a front end makes one, opts first reset to p's
   defaults (the conversation keeps opts: a test may change them later) */
void *test_conv_new(const gw_protocol *p, int *opts);
void test_conv_free(const gw_protocol *p, void *conv);
/* The fixture of a protocol's test suite `name`: P (the protocol), opt (the
   options every conversation here uses, back at the defaults before each
   test), conv (a fresh conversation for each test) and c (what a decode
   reported); setup() and teardown() begin and end each test. */
#define PROTOCOL_SUITE(name, proto)                                 \
    static const gw_protocol *P = &proto;                           \
    static int opt[GW_MAX_OPTIONS];                                 \
    static void *conv;                                              \
    static collect c;                                               \
    static void setup(void) { conv = test_conv_new(P, opt); }       \
    static void teardown(void) { test_conv_free(P, conv); }         \
    TestSuite(name, .init = setup, .fini = teardown)

/* a replay state as pcaptool makes one: zeroed, then given the options */
void *replay_state_new(const gw_protocol *p, const int *opts);

/* A PDU as pcaptool replay hands it to the hooks (gw_replay_pdu): hex bytes
   decoded with p in conversation conv (as the recording's or the live
   exchange's would be) over `transport`, direction `dir`; its type is the
   first value of p's type field, its items those of source 0. */
typedef struct {
    uint8_t data[4096];
    gw_item items[COLLECT_MAX];
    gw_replay_pdu v;
} replay_pdu;
const gw_replay_pdu *replay_pdu_decode(replay_pdu *r, const gw_protocol *p, void *conv, int dir,
                                       int transport, const char *hex);
/* the same PDU, from the live exchange */
const gw_replay_pdu *replay_pdu_live(replay_pdu *r);

/* DNP link state (command 5) number `seq` for link `seq`, flags 0, of
   `count` values of type 0 (SInt8) each 1, into out (10 + 2 * count
   bytes, DNP text "Link State"); returns its length */
size_t dnp_test_link_state(uint8_t *out, unsigned seq, unsigned count);

#endif
