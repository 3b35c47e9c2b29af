/* fuzz_check.h - a gw_sink for the fuzz harnesses that checks, on every
 * event, what the front ends rely on, and aborts (a crash libFuzzer keeps)
 * when a decoder breaks it:
 *  - field and finding indexes are in their protocol's tables;
 *  - every item and finding lies inside its data source (the PDU, or a
 *    source opened with source());
 *  - a STRING or BYTES item that is not GENERATED covers exactly its value's
 *    bytes (gw_core.h), a GENERATED one is readable;
 *  - labels, messages and summaries are NUL-terminated strings;
 *  - a subtree is never closed more often than opened.
 * Header-only: each harness includes it once. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gw_core.h"

#define FUZZ_MAX_SOURCES 16
#define FUZZ_FN static __attribute__((unused))

typedef struct {
    const gw_protocol *p;
    const uint8_t *base[FUZZ_MAX_SOURCES];
    size_t len[FUZZ_MAX_SOURCES];
    bool open[FUZZ_MAX_SOURCES]; /* an empty source may have no pointer */
    int depth;
    /* the last conversation announced by expect() */
    const void *expected_parent;
    gw_sink sink;
} fuzz_check;

FUZZ_FN __attribute__((noreturn)) void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_check: %s\n", what);
    abort();
}

/* touch every byte so that AddressSanitizer sees a bad range */
FUZZ_FN size_t fuzz_touch(const uint8_t *p, size_t n)
{
    volatile size_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    return sum;
}

FUZZ_FN void fuzz_range(const fuzz_check *k, int src, size_t off, size_t len)
{
    if (src < 0 || src >= FUZZ_MAX_SOURCES || !k->open[src])
        fuzz_fail("unknown data source");
    if (off > k->len[src] || len > k->len[src] - off)
        fuzz_fail("range outside its data source");
}

FUZZ_FN void fuzz_on_item(void *ctx, const gw_item *it)
{
    fuzz_check *k = ctx;
    if (it->field < 0 || it->field >= k->p->n_fields)
        fuzz_fail("field index out of the table");
    fuzz_range(k, it->src, it->off, it->len);
    gw_ftype t = k->p->fields[it->field].type;
    if (t == GW_FT_STRING || t == GW_FT_BYTES) {
        if (!(it->flags & GW_ITEM_GENERATED)) {
            if (it->v.b.n != it->len || (it->len && it->v.b.p != k->base[it->src] + it->off))
                fuzz_fail("STRING/BYTES item does not cover exactly its value");
        } else if (it->v.b.n) {
            fuzz_touch(it->v.b.p, it->v.b.n);
        }
    }
    if (it->label)
        (void)strlen(it->label);
}

FUZZ_FN void fuzz_on_push(void *ctx) { ((fuzz_check *)ctx)->depth++; }

FUZZ_FN void fuzz_on_pop(void *ctx, size_t end)
{
    (void)end;
    fuzz_check *k = ctx;
    if (k->depth <= 0)
        fuzz_fail("subtree closed that was never opened");
    k->depth--;
}

FUZZ_FN void fuzz_on_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    fuzz_check *k = ctx;
    if (finding < 0 || finding >= k->p->n_findings)
        fuzz_fail("finding index out of the table");
    fuzz_range(k, src, off, len);
    (void)strlen(msg);
}

FUZZ_FN void fuzz_on_summary(void *ctx, const char *text) { (void)ctx; (void)strlen(text); }

FUZZ_FN void fuzz_on_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    fuzz_check *k = ctx;
    if (src <= 0 || src >= FUZZ_MAX_SOURCES)
        fuzz_fail("data source number out of range");
    (void)strlen(name);
    fuzz_touch(data, len);
    k->base[src] = data;
    k->len[src] = len;
    k->open[src] = true;
}

FUZZ_FN void fuzz_on_expect(void *ctx, int transport, int port_side, uint16_t port, const void *conv)
{
    (void)port;
    fuzz_check *k = ctx;
    if ((transport != GW_TRANSPORT_UDP && transport != GW_TRANSPORT_TCP) ||
        (port_side != 0 && port_side != 1) || !conv)
        fuzz_fail("bad expect()");
    k->expected_parent = conv;
}

/* ready for one PDU of `len` bytes at `data` */
FUZZ_FN const gw_sink *fuzz_check_begin(fuzz_check *k, const gw_protocol *p, const uint8_t *data,
                                       size_t len)
{
    memset(k->open, 0, sizeof k->open);
    k->open[0] = true;
    k->p = p;
    k->base[0] = data;
    k->len[0] = len;
    k->depth = 0;
    k->sink = (gw_sink){.ctx = k, .item = fuzz_on_item, .push = fuzz_on_push, .pop = fuzz_on_pop,
                        .finding = fuzz_on_finding, .summary = fuzz_on_summary,
                        .source = fuzz_on_source, .expect = fuzz_on_expect, .expect_ctx = k};
    return &k->sink;
}

static const gw_protocol *fuzz_end_p;

FUZZ_FN void fuzz_on_end_finding(void *ctx, uint32_t frame, int64_t time_ns, int dir, int finding,
                                size_t off, size_t len, const char *msg)
{
    (void)ctx; (void)frame; (void)time_ns; (void)off; (void)len;
    if (finding < 0 || finding >= fuzz_end_p->n_findings || (dir != 0 && dir != 1))
        fuzz_fail("bad end-of-conversation finding");
    (void)strlen(msg);
}

/* the conversation ends: its end findings checked, its state freed */
FUZZ_FN void fuzz_conv_end(const gw_protocol *p, void *state)
{
    fuzz_end_p = p;
    if (p->conv_end) {
        gw_end_sink es = {NULL, fuzz_on_end_finding, NULL};
        p->conv_end(state, &es);
    }
    p->conv_free(state);
    free(state);
}

/* p's options in this harness: the defaults until fuzz_set_options() */
FUZZ_FN int *fuzz_opts(const gw_protocol *p)
{
    static int opts[GW_MAX_PROTOCOLS][GW_MAX_OPTIONS];
    static bool ready[GW_MAX_PROTOCOLS];
    int i = 0;
    while (gw_protocols[i] && gw_protocols[i] != p)
        i++;
    if (!ready[i]) {
        gw_options_init(p, opts[i]);
        ready[i] = true;
    }
    return opts[i];
}

FUZZ_FN void *fuzz_conv_new(const gw_protocol *p)
{
    void *s = calloc(1, p->conv_size);
    p->conv_init(s, fuzz_opts(p));
    return s;
}

/* a heap copy of exactly n bytes, so that a read past them is caught */
FUZZ_FN uint8_t *fuzz_copy(const uint8_t *data, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, data, n);
    return c;
}

/* one PDU, from its own heap copy: the heuristic sees it, then the decoder
   decodes it with conv through the checking sink k */
FUZZ_FN void fuzz_decode(fuzz_check *k, const gw_protocol *p, void *conv, const gw_pdu_info *pi,
                         const uint8_t *data, size_t n)
{
    uint8_t *pdu = fuzz_copy(data, n);
    if (p->heuristic)
        (void)p->heuristic(fuzz_opts(p), pi->transport, pdu, n);
    p->decode(conv, pi, pdu, n, fuzz_check_begin(k, p, pdu, n));
    free(pdu);
}

/* set each option of p to the choice picked by two bits of `bits` */
FUZZ_FN void fuzz_set_options(const gw_protocol *p, unsigned bits)
{
    for (int i = 0; i < p->n_options; i++) {
        int n = 0;
        while (p->options[i].choices[n].token)
            n++;
        if (n)
            fuzz_opts(p)[i] = p->options[i].choices[(bits >> (2 * i)) % (unsigned)n].value;
    }
}

#endif
