/* Round trips through each protocol's one description of its bytes: every
 * PDU type its builder (gw_protocol.build, what pcaptool conform sends)
 * can write is built with values, decoded in a conversation that expects
 * it, and must show the same values (the item of the k-th value given for
 * a field covers the bytes it was written to, and holds it) and no finding
 * (but a divergence note: the reference's form, which the text does not
 * have, is noted once a conversation).
 * On TCP the protocol's framing (pdu_length) must cut exactly the PDU that
 * was built. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "core/gw_layout.h"
#include "dnp/dnp.h"
#include "eoudp/eoudp.h"
#include "gne/gne.h"
#include "opendrakan/opendrakan.h"
#include "openttd/openttd.h"

/* one PDU of a conversation: its type, the side that sends it (0: the
   client), its transport and the values it is built from */
typedef struct {
    int64_t type;
    int dir;
    int transport;
    const gw_wval *vals;
} rt_pdu;

#define TCP GW_TRANSPORT_TCP
#define UDP GW_TRANSPORT_UDP

static uint8_t built[64][2048];

/* the k-th item (not a derived one) of a field */
static const gw_item *wire_item(const collect *c, int field, int k)
{
    for (int i = 0; i < c->n_items; i++)
        if (c->items[i].field == field && !(c->items[i].flags & GW_ITEM_GENERATED) && k-- == 0)
            return &c->items[i];
    return NULL;
}

/* the k-th derived item of a field */
static const gw_item *derived_item(const collect *c, int field, int k)
{
    for (int i = 0; i < c->n_items; i++)
        if (c->items[i].field == field && (c->items[i].flags & GW_ITEM_GENERATED) && k-- == 0)
            return &c->items[i];
    return NULL;
}

/* build each PDU of seq, decode it in one conversation of p (opts: the
   options, NULL: the defaults), check its values and that nothing is
   reported; returns the PDUs checked */
static unsigned round_trip(const gw_protocol *p, const int *opts_in, const rt_pdu *seq, size_t n)
{
    int opts[GW_MAX_OPTIONS];
    gw_options_init(p, opts);
    if (opts_in)
        memcpy(opts, opts_in, sizeof opts);
    void *conv = test_conv_new(p, opts);
    if (opts_in)
        memcpy(opts, opts_in, sizeof opts); /* test_conv_new reset them */
    cr_assert_leq(n, 64);
    for (size_t i = 0; i < n; i++) {
        const rt_pdu *q = &seq[i];
        uint8_t *d = built[i];
        size_t len = p->build(opts, q->type, q->vals, d, sizeof built[i]);
        cr_assert_gt(len, 0, "%s: PDU %zu (type %lld) could not be built", p->name, i, (long long)q->type);
        if (q->transport == TCP && p->pdu_length) {
            cr_assert_geq(len, p->pdu_header);
            cr_assert_eq(p->pdu_length(opts, d, len), (long)len, "%s: PDU %zu: the framing cuts %ld of %zu bytes",
                         p->name, i, p->pdu_length(opts, d, len), len);
        }
        collect c;
        collect_init(&c);
        gw_pdu_info pi = {(uint32_t)i + 1, 1000000000ll + (int64_t)i * 10000000ll, q->dir, q->transport};
        p->decode(conv, &pi, d, len, &c.sink);
        int bad = 0;
        for (int f = 0; f < c.n_findings; f++) {
            const char *code = p->findings[c.findings[f]].code;
            if (strstr(code, ".divergence."))
                continue; /* the note that the reference's form is not the text's (once a conversation) */
            cr_log_error("%s: PDU %zu (type %lld, \"%s\"): finding %s", p->name, i, (long long)q->type, c.summary,
                         code);
            bad++;
        }
        cr_assert_eq(bad, 0, "%s: PDU %zu (type %lld, \"%s\") has findings", p->name, i, (long long)q->type,
                     c.summary);
        for (const gw_wval *v = q->vals; v->field != GW_W_END; v++) {
            if (v->field == GW_W_STEP)
                continue; /* bytes a protocol's own step writes: shown by the fields it reads */
            int k = 0;
            for (const gw_wval *w = q->vals; w != v; w++)
                k += w->field == v->field;
            const gw_field *f = &p->fields[v->field];
            const gw_item *it = wire_item(&c, v->field, k);
            const gw_item *derived = it ? NULL : derived_item(&c, v->field, k);
            if (derived) { /* given to the builder, not written: the decoder derives it */
                cr_assert_eq(derived->v.u, v->u, "%s: PDU %zu: %s derived as %llu, given %llu", p->name, i,
                             f->abbrev, (unsigned long long)derived->v.u, (unsigned long long)v->u);
                continue;
            }
            cr_assert_not_null(it, "%s: PDU %zu: no item %d of %s", p->name, i, k, f->abbrev);
            cr_assert_eq(it->src, 0);
            cr_assert_leq(it->off + it->len, len, "%s: PDU %zu: %s past the end", p->name, i, f->abbrev);
            if (v->p || f->type == GW_FT_STRING || f->type == GW_FT_BYTES) {
                cr_assert_eq(it->len, v->n, "%s: PDU %zu: %s of %zu bytes, %zu written", p->name, i, f->abbrev,
                             it->len, v->n);
                cr_assert(v->n == 0 || memcmp(d + it->off, v->p, v->n) == 0, "%s: PDU %zu: %s differs", p->name, i,
                          f->abbrev);
            } else if (f->type == GW_FT_BOOL) { /* (a bit of a byte it shares, packed) */
                cr_assert_eq(it->v.u != 0, v->u != 0, "%s: PDU %zu: %s read %llu, written %llu", p->name, i,
                             f->abbrev, (unsigned long long)it->v.u, (unsigned long long)v->u);
            } else {
                cr_assert(it->len >= 1 && it->len <= 8, "%s: PDU %zu: %s covers %zu bytes", p->name, i, f->abbrev,
                          it->len);
                uint64_t raw = gw_get_uint(d + it->off, (unsigned)it->len, it->flags & GW_ITEM_BIG_ENDIAN);
                uint64_t want = it->len == 8 ? v->u : v->u & ((1ull << (8 * it->len)) - 1);
                cr_assert_eq(raw, want, "%s: PDU %zu: %s read 0x%llx, written 0x%llx", p->name, i, f->abbrev,
                             (unsigned long long)raw, (unsigned long long)want);
                if (f->type >= GW_FT_U8 && f->type <= GW_FT_U64)
                    cr_assert_eq(it->v.u, want, "%s: PDU %zu: %s shown as %llu, written %llu", p->name, i,
                                 f->abbrev, (unsigned long long)it->v.u, (unsigned long long)want);
            }
        }
    }
    test_conv_free(p, conv);
    return (unsigned)n;
}

/* ---- DNP: a connection, reliable commands, a link's life, long commands ---- */

/* typed values (DNP text, Link State): count u16, then type u8 and value:
   UInt32 99, String "ab" (length u16): a long link state's values part,
   bytes the decoder reassembles */
static const uint8_t dnp_values[] = {0x02, 0x00, 0x05, 0x63, 0x00, 0x00, 0x00, 0x0b, 0x02, 0x00, 'a', 'b'};

Test(roundtrip, dnp)
{
    const rt_pdu seq[] = {
        {DNP_CONNECT_REQUEST, 0, UDP, GW_WVALS(GW_WU(DNP_F_PROTOCOL_COUNT, 1), GW_WU(DNP_F_PROTOCOL, 0))},
        {DNP_CONNECT_ACK, 1, UDP, GW_WVALS(GW_WU(DNP_F_RESULT, 0), GW_WU(DNP_F_PROTOCOL, 0))},
        {DNP_RELIABLE_MESSAGE, 0, UDP, GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WB(DNP_F_MESSAGE, "hello", 5))},
        {DNP_RELIABLE_ACK, 1, UDP, GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WU(DNP_F_ACK_CODE, 0))},
        {DNP_MESSAGE, 0, UDP, GW_WVALS(GW_WB(DNP_F_MESSAGE, "ping", 4))},
        {DNP_LINK_STATE, 1, UDP,
         GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WU(DNP_F_LINK_ID, 5), GW_WU(DNP_F_FLAGS, 0), GW_WB(DNP_F_MESSAGE, "state", 5),
                  GW_WU(DNP_F_VALUE_COUNT, 2), GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 99),
                  GW_WU(DNP_F_VALUE_TYPE, 11), GW_WB(DNP_F_VALUE_STRING, "ab", 2))},
        {DNP_RELIABLE_ACK, 0, UDP, GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WU(DNP_F_ACK_CODE, 0))},
        {DNP_LINK_UP, 0, UDP, GW_WVALS(GW_WU(DNP_F_LINK_ID, 5))},
        /* the reference's layout: value 0's type (UInt32) from the link state */
        {DNP_LINK_UPDATE, 1, UDP,
         GW_WVALS(GW_WU(DNP_F_LINK_COUNT, 1), GW_WU(DNP_F_LINK_ID, 5), GW_WU(DNP_F_VALUE_COUNT, 1),
                  GW_WU(DNP_F_VALUE_INDEX, 0), GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 42))},
        {DNP_RELIABLE_MESSAGE_LONG, 0, UDP,
         GW_WVALS(GW_WU(DNP_F_SEQ, 1), GW_WU(DNP_F_LONG_FLAGS, 3), GW_WB(DNP_F_CHUNK, "long", 4))},
        {DNP_RELIABLE_ACK, 1, UDP, GW_WVALS(GW_WU(DNP_F_SEQ, 1), GW_WU(DNP_F_ACK_CODE, 0))},
        {DNP_LINK_STATE_LONG, 1, UDP,
         GW_WVALS(GW_WU(DNP_F_SEQ, 1), GW_WU(DNP_F_LINK_ID, 6), GW_WU(DNP_F_FLAGS, 7), GW_WB(DNP_F_CHUNK, "s", 1),
                  GW_WB(DNP_F_VALUES_PART, dnp_values, sizeof dnp_values))},
        {DNP_RELIABLE_ACK, 0, UDP, GW_WVALS(GW_WU(DNP_F_SEQ, 1), GW_WU(DNP_F_ACK_CODE, 0))},
        {DNP_LINK_DOWN, 1, UDP, GW_WVALS(GW_WU(DNP_F_LINK_ID, 5))},
        {DNP_CLOSE, 0, UDP, GW_NO_VALUES},
    };
    int opts[GW_MAX_OPTIONS];
    gw_options_init(&gw_dnp_protocol, opts);
    opts[DNP_OPT_PROFILE] = GW_PROFILE_REFERENCE; /* the long commands are the reference's */
    round_trip(&gw_dnp_protocol, opts, seq, sizeof seq / sizeof seq[0]);
}

/* the state value types as wire-facts 1 lists them: kind (S signed, U
   unsigned, F float: components of a width; T string, D data: u16 length
   and bytes), bytes per component, components */
static const struct {
    char kind;
    uint8_t width, ncomp;
} dnp_types[38] = {
    {'S', 1, 1}, {'U', 1, 1}, {'S', 2, 1}, {'U', 2, 1}, {'S', 4, 1}, {'U', 4, 1}, {'S', 8, 1}, {'U', 8, 1},
    {'F', 2, 1}, {'F', 4, 1}, {'F', 8, 1}, {'T', 1, 1}, {'D', 1, 1},
    {'S', 1, 2}, {'U', 1, 2}, {'S', 2, 2}, {'U', 2, 2}, {'S', 4, 2}, {'U', 4, 2}, {'S', 8, 2}, {'U', 8, 2},
    {'S', 1, 3}, {'U', 1, 3}, {'S', 2, 3}, {'U', 2, 3}, {'S', 4, 3}, {'U', 4, 3}, {'S', 8, 3}, {'U', 8, 3},
    {'F', 2, 2}, {'F', 4, 2}, {'F', 8, 2}, {'F', 2, 3}, {'F', 4, 3}, {'F', 8, 3}, {'F', 2, 4}, {'F', 4, 4},
    {'F', 8, 4}};

/* the values of types first..last, appended at v, each with its type (in
   the reference's link update given, not written: the decoder derives it
   from the link state), and from index on with their index (the
   reference's link update); returns the count */
static size_t dnp_typed(gw_wval *v, int first, int last, int index)
{
    size_t n = 0;
    for (int t = first; t <= last; t++) {
        if (index >= 0)
            v[n++] = (gw_wval)GW_WU(DNP_F_VALUE_INDEX, (uint64_t)(index + t - first));
        v[n++] = (gw_wval)GW_WU(DNP_F_VALUE_TYPE, (uint64_t)t);
        for (int c = 0; c < dnp_types[t].ncomp; c++) {
            unsigned w = dnp_types[t].width;
            uint64_t neg = (uint64_t)-(int64_t)(t + c + 1); /* -t-c-1 in w bytes */
            switch (dnp_types[t].kind) {
            case 'S': v[n++] = (gw_wval)GW_WU(DNP_F_VALUE_SINT, w == 8 ? neg : neg & ((1ull << (8 * w)) - 1)); break;
            case 'U': v[n++] = (gw_wval)GW_WU(DNP_F_VALUE_UINT, (uint64_t)(200 + t + c) << (8 * (w - 1))); break;
            case 'F': /* 1.5, -2.5 ... in half, single or double precision */
                v[n++] = (gw_wval)GW_WU(DNP_F_VALUE_FLOAT, w == 2 ? 0x3e00u + c : w == 4 ? 0x3fc00000u + c
                                                                                  : 0x3ff8000000000000ull + c);
                break;
            case 'T': v[n++] = (gw_wval)GW_WB(DNP_F_VALUE_STRING, "h\xc3\xa9", 3); break;
            default: v[n++] = (gw_wval)GW_WB(DNP_F_VALUE_DATA, "\x00\x01\xff", 3); break;
            }
        }
    }
    return n;
}

/* every value type, in link states (links 10, 11, 12: types 0-12, 13-28,
   29-37) and then in link updates of those links from their owner, in the
   reference's layout or the text's */
static void dnp_every_type(int layout)
{
    static const int from[3] = {0, 13, 29}, to[3] = {12, 28, 37};
    static gw_wval vals[16][64];
    rt_pdu seq[32];
    size_t n = 0;
    seq[n++] = (rt_pdu){DNP_CONNECT_REQUEST, 0, UDP, GW_WVALS(GW_WU(DNP_F_PROTOCOL_COUNT, 1), GW_WU(DNP_F_PROTOCOL, 0))};
    seq[n++] = (rt_pdu){DNP_CONNECT_ACK, 1, UDP, GW_WVALS(GW_WU(DNP_F_RESULT, 0), GW_WU(DNP_F_PROTOCOL, 0))};
    for (int l = 0; l < 3; l++) {
        gw_wval *v = vals[l];
        size_t k = 0;
        v[k++] = (gw_wval)GW_WU(DNP_F_SEQ, (uint64_t)l);
        v[k++] = (gw_wval)GW_WU(DNP_F_LINK_ID, 10u + (uint64_t)l);
        v[k++] = (gw_wval)GW_WU(DNP_F_FLAGS, 1);
        v[k++] = (gw_wval)GW_WB(DNP_F_MESSAGE, "types", 5);
        v[k++] = (gw_wval)GW_WU(DNP_F_VALUE_COUNT, (uint64_t)(to[l] - from[l] + 1));
        k += dnp_typed(v + k, from[l], to[l], -1);
        cr_assert_leq(k, 63);
        v[k].field = GW_W_END;
        seq[n++] = (rt_pdu){DNP_LINK_STATE, 1, UDP, v};
        /* (values that outlive the loop's block) */
        gw_wval *ack = vals[8 + 2 * l], *up = vals[9 + 2 * l];
        ack[0] = (gw_wval)GW_WU(DNP_F_SEQ, (uint64_t)l);
        ack[1] = (gw_wval)GW_WU(DNP_F_ACK_CODE, 0);
        ack[2].field = GW_W_END;
        up[0] = (gw_wval)GW_WU(DNP_F_LINK_ID, 10u + (uint64_t)l);
        up[1].field = GW_W_END;
        seq[n++] = (rt_pdu){DNP_RELIABLE_ACK, 0, UDP, ack};
        seq[n++] = (rt_pdu){DNP_LINK_UP, 0, UDP, up};
    }
    /* the updates: each link's values; in the reference's layout, which
       names each value by its index, a link's in two updates where one
       would take more than 64 values to build (the text's has each value
       at its place, all of them) */
    static const int ufrom[5] = {0, 13, 21, 29, 33}, uto[5] = {12, 20, 28, 32, 37}, ulink[5] = {0, 1, 1, 2, 2};
    static const int sfrom[3] = {0, 13, 29}, sto[3] = {12, 28, 37}, slink[3] = {0, 1, 2};
    bool spec = layout == DNP_LAYOUT_SPEC;
    for (int u = 0; u < (spec ? 3 : 5); u++) {
        int f = spec ? sfrom[u] : ufrom[u], t = spec ? sto[u] : uto[u], link = spec ? slink[u] : ulink[u];
        gw_wval *v = vals[3 + u];
        size_t k = 0;
        v[k++] = (gw_wval)GW_WU(DNP_F_LINK_COUNT, 1);
        v[k++] = (gw_wval)GW_WU(DNP_F_LINK_ID, 10u + (uint64_t)link);
        v[k++] = (gw_wval)GW_WU(DNP_F_VALUE_COUNT, (uint64_t)(t - f + 1));
        k += dnp_typed(v + k, f, t, spec ? -1 : f - from[link]);
        cr_assert_leq(k, 63);
        v[k].field = GW_W_END;
        seq[n++] = (rt_pdu){DNP_LINK_UPDATE, 1, UDP, v};
    }
    int opts[GW_MAX_OPTIONS];
    gw_options_init(&gw_dnp_protocol, opts);
    opts[DNP_OPT_UPDATE_LAYOUT] = layout;
    cr_assert_eq(round_trip(&gw_dnp_protocol, opts, seq, n), spec ? 14 : 16);
}

Test(roundtrip, dnp_every_value_type_reference_layout)
{
    dnp_every_type(DNP_LAYOUT_REFERENCE);
}

Test(roundtrip, dnp_every_value_type_text_layout)
{
    dnp_every_type(DNP_LAYOUT_SPEC);
}

/* the builder writes a link update as wire-facts 1.10 has it, bytes
   written here by hand: the reference's (link count u8; link id u16,
   value count u8; value index u16 and the value, no type) and the text's
   (link count u16; link id u16, value count u16; type u8 and the value) */
Test(roundtrip, dnp_update_bytes)
{
    const gw_wval *vals = GW_WVALS(GW_WU(DNP_F_LINK_COUNT, 1), GW_WU(DNP_F_LINK_ID, 77), GW_WU(DNP_F_VALUE_COUNT, 2),
                                   GW_WU(DNP_F_VALUE_INDEX, 0), GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 99),
                                   GW_WU(DNP_F_VALUE_INDEX, 1), GW_WU(DNP_F_VALUE_TYPE, 11),
                                   GW_WB(DNP_F_VALUE_STRING, "ab", 2));
    static const uint8_t ref[] = {DNP_LINK_UPDATE, 0x01, 0x4d, 0x00, 0x02, 0x00, 0x00, 0x63, 0x00, 0x00,
                                  0x00, 0x01, 0x00, 0x02, 0x00, 'a', 'b'};
    static const uint8_t text[] = {DNP_LINK_UPDATE, 0x01, 0x00, 0x4d, 0x00, 0x02, 0x00, 0x05, 0x63, 0x00,
                                   0x00, 0x00, 0x0b, 0x02, 0x00, 'a', 'b'};
    uint8_t d[64];
    int opts[GW_MAX_OPTIONS];
    gw_options_init(&gw_dnp_protocol, opts);
    size_t n = gw_dnp_protocol.build(opts, DNP_LINK_UPDATE, vals, d, sizeof d);
    cr_assert_eq(n, sizeof ref);
    cr_assert_arr_eq(d, ref, n);
    const gw_wval *spec = GW_WVALS(GW_WU(DNP_F_LINK_COUNT, 1), GW_WU(DNP_F_LINK_ID, 77), GW_WU(DNP_F_VALUE_COUNT, 2),
                                   GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 99), GW_WU(DNP_F_VALUE_TYPE, 11),
                                   GW_WB(DNP_F_VALUE_STRING, "ab", 2));
    opts[DNP_OPT_UPDATE_LAYOUT] = DNP_LAYOUT_SPEC;
    n = gw_dnp_protocol.build(opts, DNP_LINK_UPDATE, spec, d, sizeof d);
    cr_assert_eq(n, sizeof text);
    cr_assert_arr_eq(d, text, n);
    /* a type with no layout is not written */
    cr_assert_eq(gw_dnp_protocol.build(opts, DNP_LINK_UPDATE,
                                       GW_WVALS(GW_WU(DNP_F_LINK_COUNT, 1), GW_WU(DNP_F_VALUE_COUNT, 1),
                                                GW_WU(DNP_F_VALUE_TYPE, 38)),
                                       d, sizeof d),
                 0);
}

Test(roundtrip, dnp_rejected)
{
    const rt_pdu seq[] = {
        {DNP_CONNECT_REQUEST, 0, UDP, GW_WVALS(GW_WU(DNP_F_PROTOCOL_COUNT, 2), GW_WU(DNP_F_PROTOCOL, 7), GW_WU(DNP_F_PROTOCOL, 9))},
        {DNP_CONNECT_ACK, 1, UDP, GW_WVALS(GW_WU(DNP_F_RESULT, 2))},
    };
    round_trip(&gw_dnp_protocol, NULL, seq, 2);
}

/* ---- OpenTTD: every packet of the game protocol, from its sender ---------- */

Test(roundtrip, openttd_every_packet)
{
    const gw_value_name *names = gw_openttd_protocol.fields[OTTD_F_PACKET].names;
    unsigned n = 0;
    for (const gw_value_name *nm = names; nm->name; nm++) {
        int dir = strncmp(nm->name, "CLIENT_", 7) == 0 ? 0 : strncmp(nm->name, "SERVER_", 7) == 0 ? 1 : -1;
        if (dir < 0)
            continue; /* UDP packets: not built */
        uint8_t d[2048];
        int opts[GW_MAX_OPTIONS];
        gw_options_init(&gw_openttd_protocol, opts);
        if (!gw_openttd_protocol.build(opts, nm->value, GW_NO_VALUES, d, sizeof d))
            continue; /* not a packet of the version built */
        /* read procedurally by the decoder, and without a layout to build
           them from: the builder writes their type alone */
        if (nm->value == PK_SERVER_GAME_INFO || nm->value == PK_SERVER_MAP_DATA)
            continue;
        /* a command's tile is written when given (before 14.x) */
        const gw_wval *command = GW_WVALS(GW_WU(OTTD_F_COMPANY, 1), GW_WU(OTTD_F_CMD, 2), GW_WU(OTTD_F_TILE, 0x1234),
                                          GW_WB(OTTD_F_CMD_DATA, "xy", 2), GW_WU(OTTD_F_CALLBACK, 3));
        bool cmd = nm->value == PK_CLIENT_COMMAND || nm->value == PK_SERVER_COMMAND;
        rt_pdu one = {nm->value, dir, TCP, cmd ? command : GW_NO_VALUES};
        n += round_trip(&gw_openttd_protocol, NULL, &one, 1);
    }
    cr_assert_gt(n, 40, "%u packets", n);
}

/* ---- GNE: the handshake, then messages of packets ------------------------- */

/* a connection request of GNE 0.9.7, its UDP link asked for or not */
#define GNE_REQUEST(unreliable)                                                                                \
    {MSG_REQUEST, 0, TCP,                                                                                      \
     GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_VERSION, 0), GW_WU(GNE_F_SUB_VERSION, 9),            \
              GW_WU(GNE_F_BUILD, 7), GW_WB(GNE_F_GAME_NAME, game, sizeof game - 1), GW_WU(GNE_F_USER_VERSION, 3), \
              GW_WU(GNE_F_RATE, 5000), GW_WU(GNE_F_UNRELIABLE, unreliable))}

Test(roundtrip, gne)
{
    static const char game[] = "roundtrip";
    const rt_pdu seq[] = {
        GNE_REQUEST(0),
        {MSG_ACCEPT, 1, TCP,
         GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_RESPONSE, 1), GW_WU(GNE_F_RATE, 6000),
                  GW_WU(GNE_F_UDP_PORT, 0))},
        /* a ping request (id, two gtimes), a custom packet, a rate adjust, an exit: the whole chain */
        {MSG_PACKETS, 0, TCP,
         GW_WVALS(GW_WU(GNE_F_PACKET_ID, 4), GW_WU(GNE_F_PING_REQ_ID, 11), GW_WU(GNE_F_TIME_SEC, 0),
                  GW_WU(GNE_F_TIME_USEC, 0), GW_WU(GNE_F_TIME_SEC, 0), GW_WU(GNE_F_TIME_USEC, 0),
                  GW_WU(GNE_F_PACKET_ID, 1), GW_WB(GNE_F_CUSTOM_DATA, "abc", 3), GW_WU(GNE_F_PACKET_ID, 3),
                  GW_WU(GNE_F_RATE, 7000), GW_WU(GNE_F_END, 255))},
        /* the reply to that ping (T2 <= T3, microseconds in range); a channel
           packet and the three object packets, each wrapping no packet (255,
           bytes the decoder's step reads: GW_W_STEP) but the last, which
           wraps a channel packet wrapping none */
        {MSG_PACKETS, 1, TCP,
         GW_WVALS(GW_WU(GNE_F_PACKET_ID, 4), GW_WU(GNE_F_PING_REQ_ID, 11), GW_WU(GNE_F_TIME_SEC, 1795242133),
                  GW_WU(GNE_F_TIME_USEC, 279216), GW_WU(GNE_F_TIME_SEC, 1795242133), GW_WU(GNE_F_TIME_USEC, 279226),
                  GW_WU(GNE_F_PACKET_ID, 5), GW_WSTEP("\xff", 1), GW_WU(GNE_F_CHANNEL, 3),
                  GW_WU(GNE_F_CHANNEL_FROM, 1), GW_WU(GNE_F_PACKET_ID, 6), GW_WSTEP("\xff", 1),
                  GW_WU(GNE_F_OBJECT_ID, 9), GW_WU(GNE_F_PACKET_ID, 7), GW_WSTEP("\xff", 1),
                  GW_WU(GNE_F_OBJECT_ID, 10), GW_WU(GNE_F_PACKET_ID, 8), GW_WSTEP("\x05\xff\x04\x02", 4),
                  GW_WU(GNE_F_OBJECT_ID, 11), GW_WU(GNE_F_END, 255))},
        /* an application-defined packet: its body (GW_W_STEP) runs to the 255 */
        {MSG_PACKETS, 0, TCP, GW_WVALS(GW_WU(GNE_F_PACKET_ID, 16), GW_WSTEP("ab", 2), GW_WU(GNE_F_END, 255))},
        {MSG_PACKETS, 1, TCP, GW_WVALS(GW_WU(GNE_F_PACKET_ID, 0), GW_WU(GNE_F_PACKET_ID, 2), GW_WU(GNE_F_END, 255))},
    };
    round_trip(&gw_gne_protocol, NULL, seq, sizeof seq / sizeof seq[0]);
    const rt_pdu refused[] = {
        seq[0],
        {MSG_REFUSAL, 1, TCP,
         GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_RESPONSE, 0), GW_WU(GNE_F_VERSION, 0),
                  GW_WU(GNE_F_SUB_VERSION, 9), GW_WU(GNE_F_BUILD, 8), GW_WB(GNE_F_GAME_NAME, game, sizeof game - 1),
                  GW_WU(GNE_F_USER_VERSION, 3))},
    };
    round_trip(&gw_gne_protocol, NULL, refused, 2);
    /* a UDP link asked for and accepted: the client answers with its port */
    const rt_pdu link[] = {
        GNE_REQUEST(1),
        {MSG_ACCEPT, 1, TCP,
         GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_RESPONSE, 1), GW_WU(GNE_F_RATE, 6000),
                  GW_WU(GNE_F_UDP_PORT, 5001))},
        {MSG_UDP_PORT, 0, TCP, GW_WVALS(GW_WU(GNE_F_UDP_PORT, 40000))},
    };
    round_trip(&gw_gne_protocol, NULL, link, 3);
}

/* The message of packets written byte for byte as the GNE text and gnelib
   lay it out (little-endian data): a ping request, a CustomPacket (u16
   length), a RateAdjustPacket, a ChannelPacket wrapping none, 255; and the
   decoder's reading of it: each packet's fields, no finding but the note
   that the CustomPacket's length is gnelib's */
Test(roundtrip, gne_packets_bytes)
{
    static const uint8_t want[] = {'N', 'L', 0x00, 0x24,
                                   0x04, 0x0b, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                   0x01, 0x02, 0x00, 'a', 'b',
                                   0x03, 0x58, 0x1b, 0x00, 0x00,
                                   0x05, 0xff, 0x03, 0x01,
                                   0xff};
    int opts[GW_MAX_OPTIONS];
    gw_options_init(&gw_gne_protocol, opts);
    uint8_t d[128];
    size_t n = gw_gne_protocol.build(
        opts, MSG_PACKETS,
        GW_WVALS(GW_WU(GNE_F_PACKET_ID, 4), GW_WU(GNE_F_PING_REQ_ID, 11), GW_WU(GNE_F_PACKET_ID, 1),
                 GW_WB(GNE_F_CUSTOM_DATA, "ab", 2), GW_WU(GNE_F_PACKET_ID, 3), GW_WU(GNE_F_RATE, 7000),
                 GW_WU(GNE_F_PACKET_ID, 5), GW_WSTEP("\xff", 1), GW_WU(GNE_F_CHANNEL, 3), GW_WU(GNE_F_CHANNEL_FROM, 1),
                 GW_WU(GNE_F_END, 255)),
        d, sizeof d);
    cr_assert_eq(n, sizeof want);
    cr_assert_arr_eq(d, want, n);
    /* decoded (no handshake seen: the data taken as little-endian, noted) */
    void *conv = test_conv_new(&gw_gne_protocol, opts);
    collect c;
    collect_init(&c);
    gw_pdu_info pi = {1, 1000000000ll, 0, TCP};
    gw_gne_protocol.decode(conv, &pi, d, n, &c.sink);
    cr_assert_str_eq(c.summary, "Ping request 11, Custom (2 bytes), Rate adjust 7000 bytes/s, Channel [no packet] "
                                "channel 3 from 1");
    cr_assert_eq(collect_count(&c, GNE_F_PACKET), 4);
    cr_assert_eq(collect_get(&c, GNE_F_CUSTOM_LENGTH, 0)->v.u, 2);
    cr_assert_eq(collect_get(&c, GNE_F_CUSTOM_LENGTH, 0)->len, 2);
    cr_assert_eq(collect_get(&c, GNE_F_RATE, 0)->v.u, 7000);
    cr_assert_eq(collect_get(&c, GNE_F_CHANNEL_FROM, 0)->v.u, 1);
    cr_assert_eq(collect_count(&c, GNE_F_END), 2);
    for (int f = 0; f < c.n_findings; f++)
        cr_assert(c.findings[f] == GNE_E_ORDER_ASSUMED || c.findings[f] == GNE_E_DIV_CUSTOM_U16, "finding %s",
                  gw_gne_protocol.findings[c.findings[f]].code);
    test_conv_free(&gw_gne_protocol, conv);
}

/* ---- OpenDrakan: every packet type, on the link it belongs to ------------- */

/* a state bundle's values: position (group 0, value mask bit 0, no jump),
   three f32 */
#define OD_POSITION                                                                          \
    GW_WU(OD_F_VALUE_MASK, 0x01), GW_WU(OD_F_JUMP_MASK, 0), GW_WU(OD_F_POS_X, 0x3f800000), \
        GW_WU(OD_F_POS_Y, 0x40000000), GW_WU(OD_F_POS_Z, 0x40400000)
/* every state objects have: position (jumps), rotation, scale, visible,
   running (not) */
#define OD_EVERY_STATE                                                                                        \
    GW_WU(OD_F_VALUE_MASK, 0x1f), GW_WU(OD_F_JUMP_MASK, 0x01), GW_WU(OD_F_POS_X, 0x3f800000),                \
        GW_WU(OD_F_POS_Y, 0xc0000000), GW_WU(OD_F_POS_Z, 0), GW_WU(OD_F_ROT_X, 0), GW_WU(OD_F_ROT_Y, 0),     \
        GW_WU(OD_F_ROT_Z, 0x3f000000), GW_WU(OD_F_ROT_W, 0x3f5db3d7), GW_WU(OD_F_SCALE_X, 0x40400000),       \
        GW_WU(OD_F_SCALE_Y, 0x40400000), GW_WU(OD_F_SCALE_Z, 0x3e800000), GW_WU(OD_F_VISIBLE, 1), GW_WU(OD_F_RUNNING, 0)

Test(roundtrip, opendrakan)
{
    const rt_pdu seq[] = {
        {T_DB_ENTRY, 1, TCP, GW_WVALS(GW_WU(OD_F_DB_INDEX, 0), GW_WB(OD_F_DB_PATH, "Common/Common.db", 16))},
        {T_LOAD_LEVEL, 1, TCP, GW_WVALS(GW_WU(OD_F_DB_COUNT, 1), GW_WB(OD_F_LEVEL_PATH, "Levels/rt.lvl", 13))},
        {T_STATES, 1, UDP, GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_OBJECT_ID, 4), OD_POSITION)},
        {T_STATES, 1, UDP, GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_OBJECT_ID, 5), OD_EVERY_STATE)},
        {T_EXTRA_STATES, 1, UDP,
         GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_OBJECT_ID, 4), GW_WB(OD_F_EXTRA_STATES, "\x01\x02", 2))},
        {T_CONFIRM, 1, UDP,
         GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_REALTIME, 0x3ff8000000000000ull), GW_WU(OD_F_CHANGE_COUNT, 3),
                  GW_WU(OD_F_REFERENCE_TICK, 0))},
        {T_ACK, 0, UDP, GW_WVALS(GW_WU(OD_F_TICK, 1))},
        {T_EVENT, 0, TCP,
         GW_WVALS(GW_WU(OD_F_REALTIME, 0x3ff8000000000000ull), GW_WU(OD_F_VARIANT, 2), GW_WU(OD_F_SENDER, 1),
                  GW_WU(OD_F_RECEIVER, 2), GW_WU(OD_F_MESSAGE, 3))},
    };
    round_trip(&gw_opendrakan_protocol, NULL, seq, sizeof seq / sizeof seq[0]);
}

/* both booleans in one byte (the draft's packing, LSB first), and one
   byte each (the reference's master), as the option says */
Test(roundtrip, opendrakan_booleans)
{
    for (int bools = OD_BOOLS_BYTES; bools <= OD_BOOLS_PACKED; bools++) {
        int opts[GW_MAX_OPTIONS];
        gw_options_init(&gw_opendrakan_protocol, opts);
        opts[OD_OPT_BOOLS] = bools;
        for (uint64_t v = 0; v < 4; v++) {
            const rt_pdu one[] = {{T_STATES, 1, UDP,
                                   GW_WVALS(GW_WU(OD_F_TICK, 1), GW_WU(OD_F_OBJECT_ID, 4), GW_WU(OD_F_VALUE_MASK, 0x18),
                                            GW_WU(OD_F_JUMP_MASK, 0x10), GW_WU(OD_F_VISIBLE, v & 1),
                                            GW_WU(OD_F_RUNNING, v >> 1))}};
            round_trip(&gw_opendrakan_protocol, opts, one, 1);
            /* the bundle: two masks, then one byte packed or two */
            uint8_t d[64];
            size_t n = gw_opendrakan_protocol.build(opts, T_STATES, one[0].vals, d, sizeof d);
            size_t at = n - (bools == OD_BOOLS_PACKED ? 1 : 2);
            cr_assert_eq(d[at - 2], 0x18);
            cr_assert_eq(d[at - 1], 0x10);
            if (bools == OD_BOOLS_PACKED)
                cr_assert_eq(d[at], v, "packed: 0x%02x for visible %u running %u", d[at], (unsigned)(v & 1),
                             (unsigned)(v >> 1));
            else
                cr_assert(d[at] == (v & 1) && d[at + 1] == v >> 1);
        }
    }
}

/* ---- EOUDP: every command of the numbering built ---------------------------- */

Test(roundtrip, eoudp_every_command)
{
    unsigned n = 0;
    for (int64_t code = 0; code < 256; code++) {
        uint8_t d[2048];
        int opts[GW_MAX_OPTIONS];
        gw_options_init(&gw_eoudp_protocol, opts);
        const char *name = gw_value_name_of(gw_eoudp_protocol.fields[EOUDP_F_COMMAND].names, (uint32_t)code);
        if (!name || !gw_eoudp_protocol.build(opts, code, GW_NO_VALUES, d, sizeof d))
            continue;
        /* after the client's connect, which every conversation begins with */
        const rt_pdu two[] = {{0x81, 0, UDP, code == 1 ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WU(EOUDP_F_IMPORTANT, 1))
                                                      : GW_WVALS(GW_WU(EOUDP_F_ID, 1))},
                              {code, code & 0x80 ? 0 : 1, UDP,
                               code == 1    ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WU(EOUDP_F_ACK_ID, 1)) /* the connect's */
                               : code == 0x0b ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WB(EOUDP_F_SYSTEM, "sys", 3))
                               : code == 0x0d ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WB(EOUDP_F_GAME_EVENTS, "ev", 2))
                               : code == 0x0c ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WU(EOUDP_F_ENTITY, 5),
                                                         GW_WB(EOUDP_F_COMPONENT, "pos", 3))
                               : code == 0x11 ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WU(EOUDP_F_EVENT, 4))
                               : code == 0x0e ? GW_WVALS(GW_WU(EOUDP_F_ID, 1), GW_WU(EOUDP_F_ENTITY, 5))
                                              : GW_WVALS(GW_WU(EOUDP_F_ID, code & 0x80 ? 2 : 1))}};
        n += round_trip(&gw_eoudp_protocol, NULL, code == 0x81 ? two + 1 : two, code == 0x81 ? 1 : 2);
    }
    cr_assert_gt(n, 10, "%u commands", n);
}
