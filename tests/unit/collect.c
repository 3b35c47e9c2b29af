#include "collect.h"
#include "active/gw_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t bytes_buf[65536];

static void c_item(void *ctx, const gw_item *it)
{
    collect *c = ctx;
    if (c->n_items < COLLECT_MAX)
        c->items[c->n_items++] = *it;
}
static void c_push(void *ctx) { (void)ctx; }
static void c_pop(void *ctx, size_t end) { (void)ctx; (void)end; }
static void c_finding(void *ctx, int f, int src, size_t off, size_t len, const char *msg)
{
    (void)src; (void)len; (void)msg;
    collect *c = ctx;
    if (c->n_findings < COLLECT_MAX) {
        c->finding_off[c->n_findings] = off;
        c->findings[c->n_findings++] = f;
    }
}
static void c_summary(void *ctx, const char *t)
{
    collect *c = ctx;
    snprintf(c->summary, sizeof c->summary, "%s", t);
}
static void c_source(void *ctx, int src, const char *name, const uint8_t *d, size_t n)
{
    (void)name;
    collect *c = ctx;
    c->sources++;
    if (src > 0 && src < 4 && n <= sizeof c->src_data[0]) {
        memcpy(c->src_data[src], d, n);
        c->src_len[src] = n;
    }
}

static void c_expect(void *ctx, int transport, int port_side, uint16_t port, const void *conv)
{
    collect *c = ctx;
    c->n_expect++;
    c->expect_transport = transport;
    c->expect_side = port_side;
    c->expect_port = port;
    c->expect_conv = conv;
}

void collect_init(collect *c)
{
    memset(c, 0, sizeof *c);
    c->sink = (gw_sink){.ctx = c, .item = c_item, .push = c_push, .pop = c_pop,
                        .finding = c_finding, .summary = c_summary, .source = c_source,
                        .expect = c_expect, .expect_ctx = c};
}

size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    unsigned v;
    for (const char *h = hex; *h;) {
        if (*h == ' ') {
            h++;
            continue;
        }
        if (sscanf(h, "%2x", &v) != 1)
            abort();
        out[n++] = (uint8_t)v;
        h += 2;
    }
    return n;
}

void collect_decode(collect *c, const gw_protocol *p, void *conv, uint32_t frame, int64_t time_ns,
                    int dir, const char *hex)
{
    /* TCP when the protocol has it */
    collect_decode_on(c, p, conv, frame, time_ns, dir,
                      p->transports & GW_TRANSPORT_TCP ? GW_TRANSPORT_TCP : GW_TRANSPORT_UDP, hex);
}

void collect_decode_on(collect *c, const gw_protocol *p, void *conv, uint32_t frame,
                       int64_t time_ns, int dir, int transport, const char *hex)
{
    collect_init(c);
    size_t n = unhex(hex, bytes_buf);
    /* decode from an exact-size heap copy so ASan sees any overread; it
       lives until the next decode, as items point into it */
    static uint8_t *copy;
    free(copy);
    copy = malloc(n ? n : 1);
    memcpy(copy, bytes_buf, n);
    gw_pdu_info pi = {frame, time_ns, dir, transport};
    p->decode(conv, &pi, copy, n, &c->sink);
}

int collect_count(const collect *c, int field)
{
    int k = 0;
    for (int i = 0; i < c->n_items; i++)
        k += c->items[i].field == field;
    return k;
}

const gw_item *collect_get(const collect *c, int field, int k)
{
    for (int i = 0; i < c->n_items; i++)
        if (c->items[i].field == field && k-- == 0)
            return &c->items[i];
    return NULL;
}

int collect_has_finding(const collect *c, int finding)
{
    for (int i = 0; i < c->n_findings; i++)
        if (c->findings[i] == finding)
            return 1;
    return 0;
}

int collect_field(const gw_protocol *p, const char *abbrev)
{
    for (int i = 0; i < p->n_fields; i++)
        if (strcmp(p->fields[i].abbrev, abbrev) == 0)
            return i;
    fprintf(stderr, "no field %s in %s\n", abbrev, p->name);
    abort();
}

int collect_finding(const gw_protocol *p, const char *code)
{
    for (int i = 0; i < p->n_findings; i++)
        if (strcmp(p->findings[i].code, code) == 0)
            return i;
    fprintf(stderr, "no finding %s in %s\n", code, p->name);
    abort();
}

size_t dnp_test_link_state(uint8_t *out, unsigned seq, unsigned count)
{
    uint8_t head[10] = {5, (uint8_t)seq, (uint8_t)(seq >> 8), (uint8_t)seq, (uint8_t)(seq >> 8),
                        0, 0, 0, (uint8_t)count, (uint8_t)(count >> 8)};
    memcpy(out, head, sizeof head);
    for (unsigned v = 0; v < count; v++) {
        out[10 + 2 * v] = 0;
        out[11 + 2 * v] = 1;
    }
    return 10 + 2 * (size_t)count;
}

void *replay_state_new(const gw_protocol *p, const int *opts)
{
    (void)opts;
    return calloc(1, gw_replay_of(p)->state_size);
}

void *test_conv_new(const gw_protocol *p, int *opts)
{
    gw_options_init(p, opts);
    void *conv = calloc(1, p->conv_size);
    p->conv_init(conv, opts);
    return conv;
}

void test_conv_free(const gw_protocol *p, void *conv)
{
    p->conv_free(conv);
    free(conv);
}

const gw_replay_pdu *replay_pdu_decode(replay_pdu *r, const gw_protocol *p, void *conv, int dir,
                                       int transport, const char *hex)
{
    static collect c;
    collect_decode_on(&c, p, conv, 1, 0, dir, transport, hex);
    size_t n = unhex(hex, r->data);
    unsigned k = 0;
    int64_t type = -1;
    for (int i = 0; i < c.n_items; i++) {
        const gw_item *it = &c.items[i];
        if (it->src)
            continue;
        if (it->field == p->type_field && type < 0)
            type = (int64_t)it->v.u;
        r->items[k++] = *it;
    }
    gw_replay_items_at(p, r->items, k, r->data);
    r->v = (gw_replay_pdu){.data = r->data, .len = n, .type = type, .transport = transport,
                           .items = r->items, .n_items = k};
    return &r->v;
}

const gw_replay_pdu *replay_pdu_live(replay_pdu *r)
{
    r->v.live = true;
    return &r->v;
}
