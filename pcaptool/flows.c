/* flows.c - conversation table keyed by the unordered address/port pair. */
#include "flows.h"

#include <glib.h>
#include <stddef.h>
#include <string.h>

#define FLOWS_EPOCH 16384

typedef struct {
    uint8_t l4, ipv;
    uint16_t port_a, port_b;
    uint8_t addr_a[16], addr_b[16];
} flow_key;

typedef struct {
    const gw_protocol *p;   /* NULL: a free slot */
    void *state;
    int ip_version;
    uint8_t owner[16], other[16];
    uint16_t port;
    int owner_side;         /* the side of the owner in the new flow */
} expectation;

struct flow_table {
    GHashTable *h; /* flow_key* -> flow* */
    GQueue lru;    /* flows, most recently used first (to within an epoch) */
    unsigned epoch, uses;  /* uses: lookups and additions */
    size_t state_bytes;
    tcp_budget tcp;
    flow_end_fn ended;
    void *ended_ctx;
    expectation expected[FLOWS_EXPECT_MAX];
    unsigned n_expected;   /* slots used so far (then a ring) */
};

/* 8 bytes at a time, each mixed in by a multiply (as in MurmurHash3's
   finaliser); the last, short word padded with zeros */
static guint key_hash(gconstpointer k)
{
    const uint8_t *p = k;
    uint64_t h = 0x9e3779b97f4a7c15u, w;
    size_t i = 0;
    for (; i + 8 <= sizeof(flow_key); i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, p + i, sizeof(flow_key) - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    h ^= h >> 29;
    return (guint)h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(flow_key)) == 0;
}

/* a flow and its key in one allocation: a lookup touches one place */
typedef struct {
    flow_key k;
    flow f;
} flow_entry;

static flow_entry *entry_of(flow *f)
{
    return (flow_entry *)((char *)f - offsetof(flow_entry, f));
}

static void flow_destroy(gpointer v)
{
    flow *f = v;
    /* its table's recency list and state count are kept by forget() */
    f->p->conv_free(f->state);
    g_free(f->state);
    for (int d = 0; d < 2; d++)
        if (f->tcp[d])
            tcp_half_free(f->tcp[d]);
    g_free(entry_of(f));
}

static void make_key(const net_packet *pk, flow_key *k)
{
    memset(k, 0, sizeof *k);
    k->l4 = (uint8_t)pk->l4;
    k->ipv = (uint8_t)pk->ip_version;
    int c = memcmp(pk->src, pk->dst, 16);
    bool swap = c > 0 || (c == 0 && pk->sport > pk->dport);
    memcpy(k->addr_a, swap ? pk->dst : pk->src, 16);
    memcpy(k->addr_b, swap ? pk->src : pk->dst, 16);
    k->port_a = swap ? pk->dport : pk->sport;
    k->port_b = swap ? pk->sport : pk->dport;
}

flow_table *flows_new(flow_end_fn ended, void *ctx)
{
    flow_table *t = g_new0(flow_table, 1);
    t->ended = ended;
    t->ended_ctx = ctx;
    t->h = g_hash_table_new_full(key_hash, key_equal, NULL, flow_destroy);
    g_queue_init(&t->lru);
    t->tcp.limit = TCP_BUDGET_DEFAULT;
    return t;
}

/* a fresh decoder state for p, or one linked to `parent` (gw_protocol.conv_link) */
static void *new_state(const gw_protocol *p, const void *parent)
{
    void *s = g_malloc(p->conv_size); /* conv_init sets every byte */
    p->conv_init(s);
    if (parent)
        p->conv_link(s, parent);
    return s;
}

static void drop_expectation(expectation *e)
{
    if (e->p) {
        e->p->conv_free(e->state);
        g_free(e->state);
        e->p = NULL;
    }
}

/* a flow ends: announced, then out of the recency list and the state count
   (the caller removes it from the hash table, which frees it) */
static void forget(flow_table *t, flow *f)
{
    t->ended(f, t->ended_ctx);
    g_queue_unlink(&t->lru, &f->lru);
    t->state_bytes -= f->p->conv_size;
}

/* g_hash_table_foreach_remove: every flow ends (the end of the capture) */
static gboolean end_flow(gpointer k, gpointer v, gpointer u)
{
    (void)k;
    forget(u, v);
    return TRUE;
}

/* one use of the table (a lookup or an addition): a new epoch every
   FLOWS_EPOCH uses. A flow moves to the head of the recency list at most
   once per epoch: nearly least recently used order, at a fraction of the
   moves. */
static void use(flow_table *t)
{
    if (++t->uses % FLOWS_EPOCH == 0)
        t->epoch++;
}

void flows_free(flow_table *t)
{
    g_hash_table_foreach_remove(t->h, end_flow, t);
    for (unsigned i = 0; i < FLOWS_EXPECT_MAX; i++)
        drop_expectation(&t->expected[i]);
    g_hash_table_destroy(t->h);
    g_free(t);
}

flow *flows_find(flow_table *t, const net_packet *pk)
{
    flow_key k;
    make_key(pk, &k);
    flow *f = g_hash_table_lookup(t->h, &k);
    use(t);
    if (f && f->epoch != t->epoch) {
        f->epoch = t->epoch;
        g_queue_unlink(&t->lru, &f->lru);
        g_queue_push_head_link(&t->lru, &f->lru);
    }
    return f;
}

/* end the least recently used flows, FLOWS_EVICT_BATCH of them (or all) */
static unsigned evict(flow_table *t)
{
    unsigned n = 0;
    while (t->lru.tail && n < FLOWS_EVICT_BATCH) {
        flow *f = t->lru.tail->data;
        forget(t, f);
        g_hash_table_remove(t->h, &entry_of(f)->k);
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
    net_format_endpoint(pk, reply, f->endpoint[0], sizeof f->endpoint[0]);
    net_format_endpoint(pk, !reply, f->endpoint[1], sizeof f->endpoint[1]);
}

flow *flows_add(flow_table *t, const net_packet *pk, const gw_protocol *p, void *state,
                int64_t now_ns, bool reply, unsigned *evicted)
{
    *evicted = 0;
    if (g_hash_table_size(t->h) >= FLOWS_MAX || t->state_bytes + p->conv_size > FLOWS_STATE_MAX)
        *evicted = evict(t);
    flow_entry *fe = g_new0(flow_entry, 1);
    flow_key *k = &fe->k;
    make_key(pk, k);
    flow *f = &fe->f;
    f->p = p;
    f->state = state ? state : new_state(p, NULL);
    f->ip_version = pk->ip_version;
    f->l4 = pk->l4;
    set_endpoints(f, pk, reply);
    f->last_seen_ns = now_ns;
    if (pk->l4 == NET_TCP) {
        f->tcp[0] = tcp_half_new(&t->tcp);
        f->tcp[1] = tcp_half_new(&t->tcp);
    }
    use(t);
    f->epoch = t->epoch;
    f->lru.data = f;
    g_queue_push_head_link(&t->lru, &f->lru);
    t->state_bytes += p->conv_size;
    g_hash_table_insert(t->h, k, f);
    return f;
}

void flow_restart(flow_table *t, flow *f, const net_packet *pk)
{
    t->ended(f, t->ended_ctx);
    f->p->conv_free(f->state);
    memset(f->state, 0, f->p->conv_size);
    f->p->conv_init(f->state);
    set_endpoints(f, pk, false);
    for (int d = 0; d < 2; d++)
        if (f->tcp[d])
            tcp_half_reset(f->tcp[d]);
}

int flow_direction(const flow *f, const net_packet *pk)
{
    return (memcmp(f->init_addr, pk->src, 16) == 0 && f->init_port == pk->sport) ? 0 : 1;
}

void flows_expect(flow_table *t, const flow *f, int port_side, uint16_t port, const void *parent)
{
    expectation *e = &t->expected[t->n_expected++ % FLOWS_EXPECT_MAX];
    drop_expectation(e);
    *e = (expectation){.p = f->p, .state = new_state(f->p, parent), .ip_version = f->ip_version,
                       .port = port, .owner_side = port_side};
    memcpy(e->owner, port_side ? f->resp_addr : f->init_addr, 16);
    memcpy(e->other, port_side ? f->init_addr : f->resp_addr, 16);
}

flow *flows_add_expected(flow_table *t, const net_packet *pk, int64_t now_ns, unsigned *evicted)
{
    unsigned n = t->n_expected < FLOWS_EXPECT_MAX ? t->n_expected : FLOWS_EXPECT_MAX;
    for (unsigned i = 0; i < n; i++) {
        expectation *e = &t->expected[i];
        if (!e->p || e->ip_version != pk->ip_version || pk->l4 != NET_UDP)
            continue;
        bool from_owner = !memcmp(pk->src, e->owner, 16) && pk->sport == e->port &&
                          !memcmp(pk->dst, e->other, 16);
        bool to_owner = !memcmp(pk->dst, e->owner, 16) && pk->dport == e->port &&
                        !memcmp(pk->src, e->other, 16);
        if (!from_owner && !to_owner)
            continue;
        int sender_side = from_owner ? e->owner_side : !e->owner_side;
        flow *f = flows_add(t, pk, e->p, e->state, now_ns, sender_side == 1, evicted);
        e->p = NULL; /* the flow owns the state now */
        return f;
    }
    return NULL;
}
