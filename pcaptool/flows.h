/* flows.h - the conversations pcaptool follows: which protocol, its
 * decoder state, and which side started it. Bounded in number. */
#ifndef PCAPTOOL_FLOWS_H
#define PCAPTOOL_FLOWS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/gw_core.h"
#include "netparse.h"
#include "tcpstream.h"

/* The table holds at most FLOWS_MAX conversations and FLOWS_STATE_MAX bytes
   of conversation state (the flows, their decoder states and what those
   hold on the heap, gw_protocol.conv_held); beyond either, the least recently used
   FLOWS_EVICT_BATCH conversations end early (their end-of-conversation
   checks run then). TCP conversations together buffer at most
   TCP_BUDGET_DEFAULT bytes (tcpstream.h). */
#define FLOWS_MAX 65536
#define FLOWS_STATE_MAX ((size_t)256 << 20)
#define FLOWS_EVICT_BATCH (FLOWS_MAX / 16)

/* A conversation, laid out by what a packet reads (flows.c allocates it at
   the start of a 64-byte cache line): a UDP packet of an IPv4 conversation
   reads the first line alone (its key, decoder, state, what the state holds,
   its recency and direction, where its endpoints' text is); an IPv6 one the
   second line too (the rest of its key); a TCP segment the first line (with
   its options and what it last saw) and the first line of its direction's
   tcp_half (each half starts a line: tcpstream.h), the half's second line
   when a PDU is under way. The rest is read when a conversation begins or
   ends, or once an epoch (its place in the recency list); the endpoints'
   text when a PDU or a finding is shown. Only a TCP conversation is
   allocated with its two tcp halves. */
typedef struct flow {
    /* the first line: every packet */
    uint64_t key[2];   /* the table's (flows.c): the first two words of its key */
    const gw_protocol *p;
    void *state;
    /* its state's conv_held() at the last count (56 bits: more than any
       heap holds), then two fields of a few bits, in one word */
    size_t held : 56;
    unsigned resp_at : 7; /* where the responder's "ip:port" starts in endpoints */
    bool init_swap : 1;   /* the key's `swap` for a packet from the initiator */
    const int *opts;   /* p's options (gw_options_init), outliving the flow */
    int64_t last_seen_ns;
    unsigned last_frame;  /* the frame of its last packet */
    unsigned epoch;    /* when it last moved to the head of the recency list */
    /* the second line: an IPv6 packet's key, the recency list, the rest of
       what a conversation's start and end read */
    uint64_t key6[3];  /* the table's: an IPv6 key's other words (zero for IPv4) */
    GList lru;         /* in the table's recency list (data: this flow) */
    uint16_t init_port, resp_port;
    uint8_t ip_version, l4;
    uint8_t slack;     /* the bytes before the flow in its allocation (flows.c) */
    /* the third and fourth lines: "ip:port" of the initiator then of the
       responder (both in the third line for IPv4: flow_endpoint), then
       their addresses */
    _Alignas(64) char endpoints[96];
    uint8_t init_addr[16], resp_addr[16];
    /* TCP (l4 NET_TCP) alone: the byte stream of each direction, each
       half on lines of its own */
    _Alignas(64) tcp_half tcp[];
} flow;

_Static_assert(offsetof(flow, key6) == 64 && offsetof(flow, endpoints) == 128 &&
                   offsetof(flow, tcp) == 256 && sizeof(tcp_half) % 64 == 0,
               "flow: the lines as its comment says");

/* "ip:port" of the initiator (side 0) or of the responder (side 1) */
static inline const char *flow_endpoint(const flow *f, int side)
{
    return f->endpoints + (side ? f->resp_at : 0);
}

typedef struct flow_table flow_table;

/* a packet's conversation key and its hash (flows_key): made once a packet,
   for the lookup and, when it finds nothing, the addition */
typedef struct {
    uint64_t w[5];
    unsigned words; /* hashed: 2 (IPv4) or 5 (IPv6) */
    bool swap;      /* the packet's destination is the key's first endpoint */
    uint64_t hash;
} flow_key;

/* `ended` is called for every flow before its state is given up: evicted,
   restarted, or at flows_free (the end of the capture) */
typedef void (*flow_end_fn)(flow *f, void *ctx);
flow_table *flows_new(flow_end_fn ended, void *ctx);
/* SipHash-c-d of `words` little-endian 64-bit words under the 128-bit key
   `seed`; the table uses SipHash-1-3 */
uint64_t flows_siphash(const uint64_t seed[2], const uint64_t *m, size_t words, int c_rounds, int d_rounds);
void flows_free(flow_table *t);
/* pk's key, hashed under t's key (a fast keyed hash, or SipHash-1-3 once
   probe runs grew long: flows.c says why) */
void flows_key(flow_table *t, const net_packet *pk, flow_key *k);
/* whether t hashes by SipHash now (tests) */
bool flows_hash_is_strong(const flow_table *t);
/* the fast hash's key, in place of the random one (tests: a key chosen to
   make keys collide) */
void flows_set_fast_key(flow_table *t, const uint64_t key[4]);
/* the flow of pk (of key k, flows_key), now the most recently used, or NULL */
flow *flows_find(flow_table *t, const net_packet *pk);
flow *flows_find_key(flow_table *t, const flow_key *k);
/* both at once: pk's key in *k, and its flow (or NULL) */
flow *flows_lookup(flow_table *t, const net_packet *pk, flow_key *k);
/* claim the conversation of pk for p; the initiator is pk's sender, or its
   receiver when `reply` (a SYN+ACK seen first), its options opts. `state`
   is the decoder state to adopt (NULL: a fresh one). Sets *evicted to the number of least
   recently used flows ended to make room (usually 0). */
flow *flows_add(flow_table *t, const net_packet *pk, const gw_protocol *p, const int *opts,
                void *state, int64_t now_ns, bool reply, unsigned *evicted);
/* the same with pk's key k (flows_key), not hashed again */
flow *flows_add_key(flow_table *t, const flow_key *k, const net_packet *pk, const gw_protocol *p,
                    const int *opts, void *state, int64_t now_ns, bool reply, unsigned *evicted);
/* count again what f's decoder state holds (after a packet was decoded);
   when the table then holds over FLOWS_STATE_MAX, least recently used flows
   other than f end: returns how many (usually 0) */
unsigned flows_account_held(flow_table *t, flow *f);
static inline unsigned flows_account(flow_table *t, flow *f)
{
    /* a decoder that holds nothing besides its state is never counted again
       (inline: most packets of such protocols cost a test, not a call) */
    return f->p->conv_held ? flows_account_held(t, f) : 0;
}
/* a lower bound than FLOWS_STATE_MAX (tests) */
void flows_set_state_limit(flow_table *t, size_t bytes);
/* what the table's flows hold, as the bound counts it; how many flows;
   its TCP budget */
size_t flows_state_bytes(const flow_table *t);
size_t flows_count(const flow_table *t);
tcp_budget *flows_tcp_budget(flow_table *t);
/* a new connection on the same addresses and ports: fresh state */
void flow_restart(flow_table *t, flow *f, const net_packet *pk);
/* a conversation announced by a decoder (gw_sink.expect): `port` on the
   address of side port_side of f, any port on its other side's address.
   The flow that matches gets a state linked to `parent` (f's decoder state,
   gw_protocol.conv_link); at most FLOWS_EXPECT_MAX wait, the oldest is
   dropped. */
#define FLOWS_EXPECT_MAX 256
/* a probe run longer than this switches the table from its fast hash to
   SipHash (flows.c) */
#define FLOWS_RUN_MAX 64
void flows_expect(flow_table *t, const flow *f, int port_side, uint16_t port, const void *parent);
/* the expected conversation pk (UDP, key k) belongs to, now claimed, or NULL */
flow *flows_add_expected(flow_table *t, const flow_key *k, const net_packet *pk, int64_t now_ns,
                         unsigned *evicted);
/* 0 when pk was sent by the initiator */
int flow_direction(const flow *f, const net_packet *pk);
/* the same from pk's key (flows_key) when f is its flow */
static inline int flow_direction_key(const flow *f, const flow_key *k)
{
    return k->swap != f->init_swap;
}

#endif
