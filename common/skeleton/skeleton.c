/* skeleton.c - the decoder of the protocol skeleton.h describes: the tables
 * from its lists, value names, conversation state, the PDU as a layout
 * (core/gw_layout.h) read by decode(), a check, TCP framing, a heuristic,
 * the builder pcaptool replay and conform send with, and its gw_protocol.
 *
 * What goes elsewhere, once the protocol needs it (HACKING.md):
 *   - rules validate judges (a finding about behaviour, with the sentence
 *     of the text it enforces): a gw_rule table here, .rules/.n_rules;
 *   - options (pcaptool --option, Wireshark preferences): a gw_option table
 *     here, .options/.n_options, read from the conversation's opts;
 *   - what pcaptool replay changes in a recorded conversation:
 *     common/skeleton/skeleton_replay.c (gw_replay.h), listed by name in
 *     common/protocols_active.c;
 *   - conform's cases (what the text requires, what is sent, the verdict):
 *     common/skeleton/skeleton_conform.c (gw_conform.h), listed there too.
 * The decoder knows neither of the last two.
 */
#include "skeleton/skeleton.h"

#include <stdlib.h>

#include "core/gw_layout.h"

static const gw_value_name type_names[] = {
    {1, "Hello", 0}, {2, "Data", 0}, {3, "Bye", 0}, {0, NULL, 0},
};

static const gw_field fields[SK_F_COUNT] = {SKELETON_FIELDS(GW_FIELD, GW_LINK)};
static const gw_finding_def findings[SK_E_COUNT] = {SKELETON_FINDINGS(GW_FINDING)};

/* what one conversation remembers from PDU to PDU (conv_init readies it;
   the front end owns the memory, conv_size bytes): open requests, sequence
   numbers, what conv_end reports as never answered */
typedef struct {
    uint32_t pdus; /* PDUs seen so far */
} sk_conv;

static void conv_init(void *conv, const int *opts)
{
    (void)opts; /* no options */
    ((sk_conv *)conv)->pdus = 0;
}

static void conv_free(void *conv)
{
    (void)conv; /* nothing on the heap */
}

/* the check a layout step names (GW_CHECK): the version the text knows */
static void check_version(gw_pdu *x, size_t off, uint64_t v)
{
    if (v != 1)
        gw_emit_finding(&x->e, SK_E_VERSION, off, 1, "Version %llu (the text knows 1)", (unsigned long long)v);
}

/* The PDU, described once: decode() reads it, build() writes it. A
   length-prefixed payload longer than the bytes there is a truncation
   (GW_COUNTED's -1). */
static const gw_lstep pdu[] = {
    GW_NUM(SK_F_VERSION, 1, GW_CHECK(check_version)),
    GW_NUM(SK_F_TYPE, 1, GW_FLAGS(GW_LF_NAME), GW_SUM("%s")),
    GW_COUNTED(SK_F_PAYLOAD, SK_F_LENGTH, 2, -1, GW_SUM(", %s")),
    {.op = GW_L_END},
};

/* one PDU being decoded: the core's context and what the layout recorded */
typedef struct {
    gw_pdu p;
    sk_conv *conv;
    bool seen[SK_F_COUNT];
    uint64_t val[SK_F_COUNT];
    gw_span text[SK_F_COUNT];
} sk_ctx;

/* none to add: set, they let the layout's check run */
static const gw_pdu_hooks hooks = {0};

static void sk_decode(void *conv, const gw_pdu_info *pi, const uint8_t *d, size_t len, const gw_sink *sink)
{
    sk_ctx xs, *x = &xs;
    gw_pdu_begin(&x->p, &gw_skeleton_protocol, sink, pi, d, len);
    x->conv = conv;
    memset(x->seen, 0, sizeof x->seen);
    x->p.rec = (gw_record){x->seen, x->val, x->text};
    x->p.hooks = &hooks;
    x->p.big_endian = true;
    x->conv->pdus++;
    gw_layout_run(&x->p, pdu);
    /* on UDP a datagram is one PDU: bytes after it are shown, not decoded */
    if (!x->p.failed && gw_remaining(&x->p.c) > 0)
        gw_take_rest(&x->p, SK_F_DATA);
    gw_pdu_finish(&x->p);
}

/* TCP framing: the header says how long the PDU is */
static long sk_pdu_length(const int *opts, const uint8_t *d, size_t avail)
{
    (void)opts, (void)avail;
    return SKELETON_HEADER + (long)gw_get_uint(d + 2, 2, true);
}

/* a datagram (or a stream's first bytes) that is one whole PDU of version 1
   and a known type; gw_heuristic_accepts also has it decoded without an
   error before a conversation is claimed */
static bool sk_heuristic(const int *opts, int transport, const uint8_t *d, size_t len)
{
    (void)opts;
    if (len < SKELETON_HEADER || d[0] != 1 || d[1] < 1 || d[1] > 3)
        return false;
    size_t n = SKELETON_HEADER + (size_t)gw_get_uint(d + 2, 2, true);
    return transport == GW_TRANSPORT_UDP ? n == len : n <= len;
}

/* PDU `type` from vals (version 1 unless vals give one) */
static size_t sk_build(const int *opts, int64_t type, const gw_wval *vals, uint8_t *out, size_t cap)
{
    (void)opts;
    gw_wval v[16] = {GW_WU(SK_F_TYPE, (uint64_t)type)};
    unsigned k = 1;
    bool version = false;
    for (; vals->field != GW_W_END && k < 14; vals++) {
        version |= vals->field == SK_F_VERSION;
        v[k++] = *vals;
    }
    if (!version)
        v[k++] = (gw_wval)GW_WU(SK_F_VERSION, 1);
    v[k].field = GW_W_END;
    size_t n;
    return gw_layout_write(pdu, true, v, out, cap, &n) ? n : 0;
}

const gw_protocol gw_skeleton_protocol = {
    .name = "skeleton",
    .short_name = "Skeleton",
    .long_name = "Skeleton protocol (a protocol to copy)",
    .transports = GW_TRANSPORT_UDP | GW_TRANSPORT_TCP,
    .default_port = SKELETON_PORT,
    .fields = fields,
    .n_fields = SK_F_COUNT,
    .findings = findings,
    .n_findings = SK_E_COUNT,
    .truncated_finding = SK_E_TRUNCATED,
    .rest_field = SK_F_DATA,
    .type_field = SK_F_TYPE,
    .conv_size = sizeof(sk_conv),
    .conv_init = conv_init,
    .conv_free = conv_free,
    .decode = sk_decode,
    .pdu_length = sk_pdu_length,
    .pdu_header = SKELETON_HEADER,
    .heuristic = sk_heuristic,
    .build = sk_build,
};
