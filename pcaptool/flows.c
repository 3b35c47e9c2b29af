/* flows.c - conversation table keyed by the unordered address/port pair:
 * open addressing (linear probing, at most a quarter full), each slot the key's
 * hash and its flow, so a lookup touches the slot array once and the
 * matching flow once: its first cache line, which holds the key (an IPv6
 * key's rest is in the second) and what the packet reads next (flows.h). */
#include "flows.h"

#include <glib.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define FLOWS_EPOCH 16384
#define FLOWS_SLOTS_MIN 1024
/* the fast hash's probe bounds (see flows_key): one lookup's probe run
   longer than FLOWS_RUN_MAX slots (flows.h), or an epoch's lookups and
   additions probing more than FLOWS_EPOCH_EXTRA slots past their first,
   switch the table to SipHash. A table at most a quarter full under a
   hash that behaves as a random one probes about 0.17 (found) to 0.39
   (absent) slots past the first on average (Knuth's linear probing), far
   from both bounds. A quarter rather than a half: a lookup finds its key
   in the first slot more often (5 to 9 instructions a packet less on
   bench/instructions.sh's captures), for 16 bytes a slot, 4 MiB at
   FLOWS_MAX conversations. */
#define FLOWS_EPOCH_EXTRA (4 * FLOWS_EPOCH)

/* the buckets of the expectations' prints (flows_add_expected) */
#define EXPECT_BUCKETS 1024

typedef struct {
    const gw_protocol *p;   /* NULL: a free slot */
    const int *opts;
    void *state;
    int ip_version;
    uint8_t owner[16], other[16];
    uint16_t port;
    int owner_side;         /* the side of the owner in the new flow */
} expectation;

typedef struct {
    uint64_t hash;
    flow *e;                /* NULL: free */
} slot;

struct flow_table {
    slot *slots;
    size_t mask;            /* slots - 1, a power of two minus one */
    size_t n;               /* flows */
    GQueue lru;    /* flows, most recently used first (to within an epoch) */
    unsigned epoch;
    unsigned until_epoch;  /* lookups and additions (uses) left before the next epoch */
    size_t state_bytes;    /* what the flows hold: flow_cost() of each */
    size_t state_limit;    /* FLOWS_STATE_MAX, lower in tests */
    tcp_budget tcp;
    flow_end_fn ended;
    void *ended_ctx;
    expectation expected[FLOWS_EXPECT_MAX];
    /* each expectation's print (expect_print), apart, and how many waiting
       expectations have a print of each bucket (print % EXPECT_BUCKETS): a
       UDP packet no flow has (the first of a conversation, or one no
       decoder takes) looks at two buckets, and at the prints only when one
       holds some (never at the expectations' lines unless a print is its) */
    uint32_t expected_print[FLOWS_EXPECT_MAX];
    uint16_t expected_in[EXPECT_BUCKETS];
    unsigned n_expected;   /* slots used so far (then a ring) */
    uint64_t seed[2];      /* SipHash's key: random per table */
    uint64_t fast_key[4];  /* the fast hash's key: random per table */
    bool strong;           /* keys hashed by SipHash (after a flood), not the fast hash */
    bool go_strong;        /* a probe run too long: switch before the next key */
    size_t extra_probes;   /* slots probed past the first in this epoch */
};

/* Transport, IP version and the ports (the lower address's first) packed
   in the first word, then the two addresses (lower first): IPv4's both in
   the second word, the rest zero; IPv6's as the second to fifth words.
   Built and compared by whole words; hashed over the words used (2 or 5).
   The first word tells IPv4 from IPv6: an IPv4 key is compared by its two
   words, which a flow keeps in its first line (flow.key), an IPv6 key's
   other three words (flow.key6) only when those matched. */
/* transport, IP version and the ports (the lower address's first, `swap`:
   the destination's address is the lower) in one word: never zero (the
   transport is not) */
static inline uint64_t kind_and_ports(const net_packet *pk, bool swap)
{
    uint64_t ports = swap ? (uint64_t)pk->dport | (uint64_t)pk->sport << 16
                          : (uint64_t)pk->sport | (uint64_t)pk->dport << 16;
    return (uint64_t)(uint8_t)pk->l4 | (uint64_t)(uint8_t)pk->ip_version << 8 | ports << 16;
}

/* whether the key of a packet from src:sport to dst:dport puts its
   destination first: the lower address first, the lower port when the
   addresses are the same (a packet to itself: never) */
static inline bool key_swap(int ip_version, const uint8_t *src, uint16_t sport, const uint8_t *dst,
                            uint16_t dport)
{
    if (ip_version == 4) {
        uint32_t s, d;
        memcpy(&s, src, 4);
        memcpy(&d, dst, 4);
        return s != d ? s > d : sport > dport;
    }
    uint64_t s[2], d[2];
    memcpy(s, src, 16);
    memcpy(d, dst, 16);
    return s[0] != d[0] ? s[0] > d[0] : s[1] != d[1] ? s[1] > d[1] : sport > dport;
}

static inline void make_key(const net_packet *pk, flow_key *k)
{
    bool swap = k->swap = key_swap(pk->ip_version, pk->src, pk->sport, pk->dst, pk->dport);
    k->w[0] = kind_and_ports(pk, swap); /* with the IP version: no IPv4 key is an IPv6 key */
    if (pk->ip_version == 4) {
        uint32_t s, d;
        memcpy(&s, pk->src, 4);
        memcpy(&d, pk->dst, 4);
        uint64_t a = swap ? d : s, b = swap ? s : d;
        k->w[1] = a | b << 32;
        k->w[2] = k->w[3] = k->w[4] = 0;
        k->words = 2;
        return;
    }
    uint64_t s[2], d[2];
    memcpy(s, pk->src, 16);
    memcpy(d, pk->dst, 16);
    const uint64_t *a = swap ? d : s, *b = swap ? s : d;
    k->w[1] = a[0];
    k->w[2] = a[1];
    k->w[3] = b[0];
    k->w[4] = b[1];
    k->words = 5;
}

/* The keys' hash. The addresses and ports are chosen by whoever sent the
   traffic: with an unkeyed hash they can be chosen to collide (65,536
   crafted IPv6 conversations took 374 s instead of 2 s). Two keyed hashes,
   each under its own random key drawn per table (per capture read):
   - the fast one, a multiply-and-fold of the key's words xored with its
     key (a 128-bit product's halves xored, as wyhash's mum), about 10
     instructions for an IPv4 key where SipHash takes about 100. Without
     its key an attacker cannot aim keys at one slot, but it is no
     pseudo-random function: so it is only trusted while the table shows
     it works, probe runs short (find_slot counts them);
   - SipHash-1-3, a keyed pseudo-random function: once one probe run is
     longer than FLOWS_RUN_MAX or an epoch's runs are long on average
     (FLOWS_EPOCH_EXTRA), every key is hashed again by it, once, and the
     table stays with it. What a hostile capture can cost is then at most
     FLOWS_RUN_MAX probes a lookup (or 4 on average over an epoch) before
     the switch, one rehash of the table, and after it what SipHash's
     keyed table always cost. Which hash is in use changes no output:
     nothing is read in the table's order. */
#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                                  \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                                     \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                                     \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                                  \
    } while (0)

/* inline, so that with constant rounds (the table's) the loops unroll */
static inline __attribute__((always_inline)) uint64_t siphash(const uint64_t seed[2], const uint64_t *m,
                                                             size_t words, int c_rounds, int d_rounds)
{
    uint64_t v0 = seed[0] ^ 0x736f6d6570736575u, v1 = seed[1] ^ 0x646f72616e646f6du;
    uint64_t v2 = seed[0] ^ 0x6c7967656e657261u, v3 = seed[1] ^ 0x7465646279746573u;
    for (size_t i = 0; i < words; i++) {
        v3 ^= m[i];
        for (int r = 0; r < c_rounds; r++)
            SIPROUND;
        v0 ^= m[i];
    }
    uint64_t b = (uint64_t)(words * 8) << 56;
    v3 ^= b;
    for (int r = 0; r < c_rounds; r++)
        SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    for (int r = 0; r < d_rounds; r++)
        SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t flows_siphash(const uint64_t seed[2], const uint64_t *m, size_t words, int c_rounds, int d_rounds)
{
    return siphash(seed, m, words, c_rounds, d_rounds);
}

/* the 128-bit product of a and b, its halves xored: every bit of the
   result depends on every bit of both */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* the fast hash: the words in pairs, each xored with its part of the key,
   multiplied; the pairs' products (and an IPv6 key's fifth word) mixed
   once more with the key */
static inline uint64_t fast_hash(const uint64_t key[4], const flow_key *k)
{
    uint64_t h = fold_mul(k->w[0] ^ key[0], k->w[1] ^ key[1]);
    if (k->words == 5)
        h ^= fold_mul(k->w[2] ^ key[2], k->w[3] ^ key[3]) + k->w[4];
    return fold_mul(h ^ key[2], key[3] | 1);
}

/* out of line: the fast path keeps its few registers */
static __attribute__((noinline)) uint64_t strong_hash(const flow_table *t, const flow_key *k)
{
    return k->words == 2 ? siphash(t->seed, k->w, 2, 1, 3) : siphash(t->seed, k->w, 5, 1, 3);
}

static inline uint64_t key_hash(const flow_table *t, const flow_key *k)
{
    return t->strong ? strong_hash(t, k) : fast_hash(t->fast_key, k);
}

static __attribute__((noinline, cold)) void go_strong(flow_table *t);

/* pk's key and its hash: once a packet (the table switches hashes only
   here, before a key is made: no key hashed the old way is still held) */
static inline void key_of(flow_table *t, const net_packet *pk, flow_key *k)
{
    if (G_UNLIKELY(t->go_strong))
        go_strong(t);
    make_key(pk, k);
    k->hash = key_hash(t, k);
}

void flows_key(flow_table *t, const net_packet *pk, flow_key *k)
{
    key_of(t, pk, k);
}

/* the table's hash key: from getrandom(), or PCAPTOOL_HASH_SEED (hex, for
   runs that must repeat exactly) */
static void seed_table(flow_table *t)
{
    const char *fixed = getenv("PCAPTOOL_HASH_SEED");
    if (fixed && *fixed) {
        t->seed[0] = g_ascii_strtoull(fixed, NULL, 16);
        t->seed[1] = t->seed[0] ^ 0x9e3779b97f4a7c15u;
        for (int i = 0; i < 4; i++)
            t->fast_key[i] = t->seed[i & 1] * 0xbf58476d1ce4e5b9u + (uint64_t)i;
        return;
    }
    if (getrandom(t->seed, sizeof t->seed, 0) != (ssize_t)sizeof t->seed) {
        /* no entropy source: the time and the address of the table still
           keep an attacker from knowing the key in advance */
        t->seed[0] = (uint64_t)g_get_real_time() ^ (uint64_t)(uintptr_t)t;
        t->seed[1] = (uint64_t)g_get_monotonic_time() * 0x9e3779b97f4a7c15u;
    }
    if (getrandom(t->fast_key, sizeof t->fast_key, 0) != (ssize_t)sizeof t->fast_key)
        for (int i = 0; i < 4; i++)
            t->fast_key[i] = (t->seed[i & 1] ^ (uint64_t)g_get_monotonic_time()) * 0xbf58476d1ce4e5b9u + (uint64_t)i;
}

/* whether f's key is k: the two words every key uses (the first tells
   IPv4 from IPv6), in f's first line; an IPv6 key's other words, in its
   second, only for an IPv6 key */
static inline bool key_equal(const flow *f, const flow_key *k)
{
    if (((f->key[0] ^ k->w[0]) | (f->key[1] ^ k->w[1])) != 0)
        return false;
    return k->words == 2 ||
           ((f->key6[0] ^ k->w[2]) | (f->key6[1] ^ k->w[3]) | (f->key6[2] ^ k->w[4])) == 0;
}

/* f keeps k (its words: the hash is the slot's) */
static void key_keep(flow *f, const flow_key *k)
{
    f->key[0] = k->w[0];
    f->key[1] = k->w[1];
    memcpy(f->key6, &k->w[2], sizeof f->key6);
}

/* the key f keeps, hashed again (the table's hash now) */
static void key_of_flow(const flow_table *t, const flow *f, flow_key *k)
{
    k->w[0] = f->key[0];
    k->w[1] = f->key[1];
    memcpy(&k->w[2], f->key6, sizeof f->key6);
    k->words = f->ip_version == 4 ? 2 : 5;
    k->swap = false;
    k->hash = key_hash(t, k);
}

/* the slot holding key k (hash h), or the free slot where it would go;
   *run: how many slots it probed past the first */
static slot *probe(const flow_table *t, const flow_key *k, uint64_t h, size_t *run)
{
    size_t i = h & t->mask, n = 0;
    for (;; i = (i + 1) & t->mask, n++) {
        slot *s = &t->slots[i];
        if (!s->e || (s->hash == h && key_equal(s->e, k))) {
            *run = n;
            return s;
        }
    }
}

/* the first free slot of a run starting at hash h: where a key not in the
   table goes (the table made again: no key is there twice) */
static slot *free_slot(const flow_table *t, uint64_t h)
{
    size_t i = h & t->mask;
    while (t->slots[i].e)
        i = (i + 1) & t->mask;
    return &t->slots[i];
}

/* the same for a lookup or an addition: its probe run counted against
   the fast hash's bounds */
static slot *find_slot(flow_table *t, const flow_key *k, uint64_t h)
{
    size_t run;
    slot *s = probe(t, k, h, &run);
    t->extra_probes += run;
    if (G_UNLIKELY(run > FLOWS_RUN_MAX) && !t->strong)
        t->go_strong = true;
    return s;
}

static void resize(flow_table *t, size_t n_slots)
{
    slot *old = t->slots;
    size_t old_n = old ? t->mask + 1 : 0;
    t->slots = g_new0(slot, n_slots);
    t->mask = n_slots - 1;
    for (size_t i = 0; i < old_n; i++)
        if (old[i].e)
            *free_slot(t, old[i].hash) = old[i];
    g_free(old);
}

/* from the fast hash to SipHash, for good: every key hashed again, the
   slots made again (see flows_key) */
static void go_strong(flow_table *t)
{
    t->strong = true;
    t->go_strong = false;
    size_t n = t->mask + 1;
    slot *old = t->slots;
    t->slots = g_new0(slot, n);
    flow_key k;
    for (size_t i = 0; i < n; i++)
        if (old[i].e) {
            key_of_flow(t, old[i].e, &k);
            *free_slot(t, k.hash) = (slot){k.hash, old[i].e};
        }
    g_free(old);
}

bool flows_hash_is_strong(const flow_table *t)
{
    return t->strong;
}

void flows_set_fast_key(flow_table *t, const uint64_t key[4])
{
    memcpy(t->fast_key, key, sizeof t->fast_key);
}

static void insert(flow_table *t, flow *f, const flow_key *k)
{
    if ((t->n + 1) * 4 > t->mask + 1)
        resize(t, (t->mask + 1) * 2);
    *find_slot(t, k, k->hash) = (slot){k->hash, f};
    t->n++;
}

/* out of the slots; the ones after it in its probe run move back to keep
   every run unbroken (no tombstones) */
static void remove_entry(flow_table *t, const flow *e)
{
    flow_key k;
    key_of_flow(t, e, &k);
    size_t i = k.hash & t->mask;
    while (t->slots[i].e != e)
        i = (i + 1) & t->mask;
    for (size_t j = (i + 1) & t->mask; t->slots[j].e; j = (j + 1) & t->mask) {
        size_t home = t->slots[j].hash & t->mask;
        /* j's entry may fill the hole unless its home lies after the hole */
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i].e = NULL;
    t->n--;
}

/* A flow's allocation: the flow, with its tcp halves for TCP, from the
   start of a cache line (flows.h). malloc aligns to max_align_t (16 bytes
   with glibc): FLOW_SLACK bytes more make room to move to the next line. */
#define FLOW_SLACK (GW_LINE - _Alignof(max_align_t))

static size_t flow_size(bool tcp)
{
    return sizeof(flow) + (tcp ? 2 * sizeof(tcp_half) : 0);
}

static flow *flow_alloc(bool tcp)
{
    char *block = g_malloc0(flow_size(tcp) + FLOW_SLACK);
    flow *f = gw_line_up(block);
    f->slack = (uint8_t)((char *)f - block);
    return f;
}

static void flow_destroy(flow *f)
{
    /* its table's recency list and state count are kept by forget() */
    f->p->conv_free(f->state);
    g_free(f->state);
    if (f->l4 == NET_TCP)
        for (int d = 0; d < 2; d++)
            tcp_half_release(&f->tcp[d]);
    g_free((char *)f - f->slack);
}

flow_table *flows_new(flow_end_fn ended, void *ctx)
{
    flow_table *t = g_new0(flow_table, 1);
    t->ended = ended;
    t->ended_ctx = ctx;
    seed_table(t);
    resize(t, FLOWS_SLOTS_MIN);
    g_queue_init(&t->lru);
    t->until_epoch = FLOWS_EPOCH;
    t->tcp.limit = TCP_BUDGET_DEFAULT;
    t->state_limit = FLOWS_STATE_MAX;
    return t;
}

/* a fresh decoder state for p, or one linked to `parent` (gw_protocol.conv_link) */
static void *new_state(const gw_protocol *p, const int *opts, const void *parent)
{
    void *s = g_malloc(p->conv_size); /* conv_init readies it */
    p->conv_init(s, opts);
    if (parent)
        p->conv_link(s, parent);
    return s;
}

/* expectation i waits no more (its flow began, or it is dropped) */
static void expectation_done(flow_table *t, unsigned i)
{
    t->expected[i].p = NULL;
    t->expected_in[t->expected_print[i] % EXPECT_BUCKETS]--;
}

static void drop_expectation(flow_table *t, unsigned i)
{
    expectation *e = &t->expected[i];
    if (e->p) {
        e->p->conv_free(e->state);
        g_free(e->state);
        expectation_done(t, i);
    }
}

/* what a flow holds on the heap: its allocation (flow_alloc: the flow,
   TCP's halves, the slack that aligns it) and its decoder state (16 bytes
   of overhead each with glibc) and what the state says it holds besides
   (gw_protocol.conv_held, as of the last count) */
static size_t flow_cost(const gw_protocol *p, bool tcp, size_t held)
{
    return flow_size(tcp) + FLOW_SLACK + p->conv_size + 2 * 16 + held;
}

/* a flow ends: announced, then out of the recency list, the state count
   and the table, and freed */
static void forget(flow_table *t, flow *f)
{
    t->ended(f, t->ended_ctx);
    g_queue_unlink(&t->lru, &f->lru);
    t->state_bytes -= flow_cost(f->p, f->l4 == NET_TCP, f->held);
    remove_entry(t, f);
    flow_destroy(f);
}

/* one use of the table (a lookup or an addition): a new epoch every
   FLOWS_EPOCH uses. A flow moves to the head of the recency list at most
   once per epoch: nearly least recently used order, at a fraction of the
   moves. */
static __attribute__((noinline)) void new_epoch(flow_table *t)
{
    t->until_epoch = FLOWS_EPOCH;
    t->epoch++;
    if (t->extra_probes > FLOWS_EPOCH_EXTRA && !t->strong)
        t->go_strong = true;
    t->extra_probes = 0;
}

static inline void use(flow_table *t)
{
    if (--t->until_epoch == 0)
        new_epoch(t);
}

/* f, used, to the head of the recency list (once an epoch) */
static __attribute__((noinline)) void to_head(flow_table *t, flow *f)
{
    f->epoch = t->epoch;
    g_queue_unlink(&t->lru, &f->lru);
    g_queue_push_head_link(&t->lru, &f->lru);
}

void flows_free(flow_table *t)
{
    /* least recently used first: in a capture of fewer than FLOWS_EPOCH
       packets (no flow ever moved), the order they began in; each ended
       and freed without taking it out of the slots and the list, which go
       with the table */
    for (GList *l = t->lru.tail; l;) {
        flow *f = l->data;
        l = l->prev;
        t->ended(f, t->ended_ctx);
        flow_destroy(f);
    }
    for (unsigned i = 0; i < FLOWS_EXPECT_MAX; i++)
        drop_expectation(t, i);
    g_free(t->slots);
    g_free(t);
}

flow *flows_find(flow_table *t, const net_packet *pk)
{
    flow_key k;
    return flows_lookup(t, pk, &k);
}

/* find_slot's probe past the key's first slot (out of line: the key is
   usually in its first slot, or that slot is free) */
static __attribute__((noinline)) flow *find_further(flow_table *t, const flow_key *k)
{
    return find_slot(t, k, k->hash)->e;
}

static inline flow *find_key(flow_table *t, const flow_key *k)
{
    const slot *s = &t->slots[k->hash & t->mask];
    flow *f = s->e;
    if (f && !(s->hash == k->hash && key_equal(f, k)))
        f = find_further(t, k);
    use(t);
    if (f && f->epoch != t->epoch)
        to_head(t, f);
    return f;
}

flow *flows_find_key(flow_table *t, const flow_key *k)
{
    return find_key(t, k);
}

flow *flows_lookup(flow_table *t, const net_packet *pk, flow_key *k)
{
    key_of(t, pk, k);
    return find_key(t, k);
}

/* end least recently used flows, never `keep`: FLOWS_EVICT_BATCH of them
   when the table is full, and as many as it takes to bring what they hold
   a sixteenth of the state limit under it (both amortise the cost of a
   full table over many packets) */
static unsigned evict(flow_table *t, const flow *keep, size_t need)
{
    size_t n_goal = t->n >= FLOWS_MAX ? FLOWS_MAX - FLOWS_EVICT_BATCH : t->n;
    size_t bytes_goal = t->state_limit - t->state_limit / 16 - need;
    unsigned n = 0;
    GList *l = t->lru.tail;
    while (l && (t->n > n_goal || t->state_bytes > bytes_goal)) {
        flow *f = l->data;
        l = l->prev;
        if (f == keep)
            continue;
        forget(t, f);
        n++;
    }
    return n;
}

/* the initiator is pk's sender, or its receiver when `reply` */
static void set_endpoints(flow *f, const net_packet *pk, bool reply)
{
    memcpy(f->init_addr, reply ? pk->dst : pk->src, 16);
    memcpy(f->resp_addr, reply ? pk->src : pk->dst, 16);
    f->init_port = reply ? pk->dport : pk->sport;
    f->resp_port = reply ? pk->sport : pk->dport;
    f->init_swap = key_swap(pk->ip_version, f->init_addr, f->init_port, f->resp_addr, f->resp_port);
    /* the responder's text right after the initiator's: IPv4's both in one
       line (each at most 22 bytes); IPv6's at most 48 each */
    f->resp_at = (unsigned)net_format_endpoint(pk, reply, f->endpoints, sizeof f->endpoints / 2) + 1;
    net_format_endpoint(pk, !reply, f->endpoints + f->resp_at, sizeof f->endpoints / 2);
}

flow *flows_add(flow_table *t, const net_packet *pk, const gw_protocol *p, const int *opts,
                void *state, int64_t now_ns, bool reply, unsigned *evicted)
{
    flow_key k;
    flows_key(t, pk, &k);
    return flows_add_key(t, &k, pk, p, opts, state, now_ns, reply, evicted);
}

flow *flows_add_key(flow_table *t, const flow_key *k, const net_packet *pk, const gw_protocol *p,
                    const int *opts, void *state, int64_t now_ns, bool reply, unsigned *evicted)
{
    *evicted = 0;
    bool tcp = pk->l4 == NET_TCP;
    size_t cost = flow_cost(p, tcp, 0);
    if (t->n >= FLOWS_MAX || t->state_bytes + cost > t->state_limit)
        *evicted = evict(t, NULL, cost);
    flow *f = flow_alloc(tcp);
    key_keep(f, k);
    f->p = p;
    f->opts = opts;
    f->state = state ? state : new_state(p, opts, NULL);
    f->ip_version = (uint8_t)pk->ip_version;
    f->l4 = (uint8_t)pk->l4;
    set_endpoints(f, pk, reply);
    f->last_seen_ns = now_ns;
    if (tcp) {
        tcp_half_init(&f->tcp[0], &t->tcp);
        tcp_half_init(&f->tcp[1], &t->tcp);
    }
    use(t);
    f->epoch = t->epoch;
    f->lru.data = f;
    g_queue_push_head_link(&t->lru, &f->lru);
    t->state_bytes += cost;
    insert(t, f, k);
    return f;
}

void flows_set_state_limit(flow_table *t, size_t bytes)
{
    t->state_limit = bytes;
}

size_t flows_state_bytes(const flow_table *t)
{
    return t->state_bytes;
}

size_t flows_count(const flow_table *t)
{
    return t->n;
}

tcp_budget *flows_tcp_budget(flow_table *t)
{
    return &t->tcp;
}

/* flows_account, for a decoder that says what it holds */
unsigned flows_account_held(flow_table *t, flow *f)
{
    size_t held = f->p->conv_held(f->state);
    if (held == f->held && t->state_bytes <= t->state_limit)
        return 0; /* nothing changed, nothing to make room for */
    t->state_bytes = t->state_bytes - f->held + held;
    f->held = held;
    return t->state_bytes > t->state_limit ? evict(t, f, 0) : 0;
}

void flow_restart(flow_table *t, flow *f, const net_packet *pk)
{
    t->ended(f, t->ended_ctx);
    f->p->conv_free(f->state);
    f->p->conv_init(f->state, f->opts);
    set_endpoints(f, pk, false);
    if (f->l4 == NET_TCP)
        for (int d = 0; d < 2; d++)
            tcp_half_reset(&f->tcp[d]);
}

int flow_direction(const flow *f, const net_packet *pk)
{
    return (memcmp(f->init_addr, pk->src, 16) == 0 && f->init_port == pk->sport) ? 0 : 1;
}

/* a few bits of a packet from `owner`:port to `other` (or of an
   expectation): the same for the same three, seldom for others */
static uint32_t expect_print(const uint8_t *owner, uint16_t port, const uint8_t *other)
{
    uint32_t a[4], b[4];
    memcpy(a, owner, 16);
    memcpy(b, other, 16);
    uint32_t x = (a[0] ^ a[1] ^ a[2] ^ a[3]) * 0x9e3779b1u, y = b[0] ^ b[1] ^ b[2] ^ b[3];
    return x ^ (y << 7 | y >> 25) ^ port * 0x85ebca6bu;
}

void flows_expect(flow_table *t, const flow *f, int port_side, uint16_t port, const void *parent)
{
    unsigned i = t->n_expected++ % FLOWS_EXPECT_MAX;
    expectation *e = &t->expected[i];
    drop_expectation(t, i);
    *e = (expectation){.p = f->p, .opts = f->opts, .state = new_state(f->p, f->opts, parent),
                       .ip_version = f->ip_version,
                       .port = port, .owner_side = port_side};
    memcpy(e->owner, port_side ? f->resp_addr : f->init_addr, 16);
    memcpy(e->other, port_side ? f->init_addr : f->resp_addr, 16);
    t->expected_print[i] = expect_print(e->owner, port, e->other);
    t->expected_in[t->expected_print[i] % EXPECT_BUCKETS]++;
}

flow *flows_add_expected(flow_table *t, const flow_key *k, const net_packet *pk, int64_t now_ns,
                         unsigned *evicted)
{
    unsigned n = t->n_expected < FLOWS_EXPECT_MAX ? t->n_expected : FLOWS_EXPECT_MAX;
    if (pk->l4 != NET_UDP || n == 0)
        return NULL;
    /* from the owner, or to it */
    uint32_t from = expect_print(pk->src, pk->sport, pk->dst), to = expect_print(pk->dst, pk->dport, pk->src);
    if (!t->expected_in[from % EXPECT_BUCKETS] && !t->expected_in[to % EXPECT_BUCKETS])
        return NULL; /* no expectation waits with either print */
    for (unsigned i = 0; i < n; i++) {
        if (t->expected_print[i] != from && t->expected_print[i] != to)
            continue;
        expectation *e = &t->expected[i];
        if (!e->p || e->ip_version != pk->ip_version)
            continue;
        bool from_owner = !memcmp(pk->src, e->owner, 16) && pk->sport == e->port &&
                          !memcmp(pk->dst, e->other, 16);
        bool to_owner = !memcmp(pk->dst, e->owner, 16) && pk->dport == e->port &&
                        !memcmp(pk->src, e->other, 16);
        if (!from_owner && !to_owner)
            continue;
        int sender_side = from_owner ? e->owner_side : !e->owner_side;
        flow *f = flows_add_key(t, k, pk, e->p, e->opts, e->state, now_ns, sender_side == 1, evicted);
        expectation_done(t, i); /* the flow owns the state now */
        return f;
    }
    return NULL;
}
