/* eoudp.c - the EOUDP decoder.
 *
 * A datagram is a header (four generations: 21, 22, 22 or 26 bytes; the
 * implementation writes it big-endian) and a payload in host order
 * (little-endian). The generation and header byte order are told by the
 * size field, which must equal the payload length; when several fit, the
 * conversation's earlier choice, then the option, decides.
 */
#include "eoudp/eoudp.h"

#include <time.h>
#include "core/gw_layout.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables ------------------------------------------------------------ */

static const gw_value_name generation_names[] = {
    {EOUDP_GEN_RFC, "RFC text (21-byte header)", 0},
    {EOUDP_GEN_PAD, "Implementation until 31 Dec 2023 (22 bytes, pad)", 0},
    {EOUDP_GEN_IMP, "Implementation 1-8 Jan 2024 (22 bytes, important)", 0},
    {EOUDP_GEN_F64, "Implementation from 8 Jan 2024 (26 bytes, f64 timestamp)", 0},
    {0, NULL, 0}};

static const gw_value_name order_names[] = {
    {EOUDP_BIG, "Big-endian", 0}, {EOUDP_LITTLE, "Little-endian", 0}, {0, NULL, 0}};

enum basis { BASIS_SIZE = 1, BASIS_CONVERSATION, BASIS_OPTION, BASIS_FORCED, BASIS_NEWEST };
static const gw_value_name basis_names[] = {
    {BASIS_SIZE, "the size field (only one generation fits)", 0},
    {BASIS_CONVERSATION, "earlier datagrams of the conversation", 0},
    {BASIS_OPTION, "the default generation option", 0},
    {BASIS_FORCED, "forced by the generation option", 0},
    {BASIS_NEWEST, "the newest generation that fits", 0},
    {0, NULL, 0}};

/* payload layouts */
enum layout { L_NONE, L_INFO, L_ID, L_PLAYER, L_STRING_SYSTEM, L_COMPONENT, L_STRING_EVENTS,
              L_ENTITY, L_DEL_COMPONENT, L_EVENT_BOOL, L_EVENT, L_CONNECT, L_DISCONNECT, L_EVENT_OR_END,
              L_UNKNOWN };

typedef struct {
    uint8_t code;
    const char *name;
    uint8_t layout;
    bool text_only;  /* the text's alternative numbering */
} command;

static const command commands[] = {
    {0x00, "Packet info", L_INFO, false},
    {0x01, "Acknowledge", L_ID, false},
    {0x02, "Accept connection", L_PLAYER, false},
    {0x03, "Reject connection", L_NONE, false},
    {0x0b, "System to load", L_STRING_SYSTEM, false},
    {0x0c, "Entity component", L_COMPONENT, false},
    {0x0d, "Game events", L_STRING_EVENTS, false},
    {0x0e, "Deleted entity", L_ENTITY, false},
    {0x0f, "Deleted component", L_DEL_COMPONENT, false},
    {0x10, "Important event", L_EVENT_BOOL, false},
    {0x81, "Connect", L_CONNECT, false},
    {0x82, "Disconnect", L_DISCONNECT, false},
    {0x8b, "Events", L_EVENT_BOOL, false},
    /* the text's details and usage sections */
    {0x10, "Deleted component (text)", L_DEL_COMPONENT, true},
    {0x11, "Events (text)", L_EVENT_OR_END, true},
    {0x8a, "Key events (text)", L_EVENT_BOOL, true},
    {0x8c, "Important events (text)", L_EVENT_BOOL, true},
};

static const gw_value_name command_names[] = {
    {0x00, "Packet info", 0}, {0x01, "Acknowledge", 0}, {0x02, "Accept connection", 0},
    {0x03, "Reject connection", 0}, {0x0b, "System to load", 0}, {0x0c, "Entity component", 0},
    {0x0d, "Game events", 0}, {0x0e, "Deleted entity", 0}, {0x0f, "Deleted component", 0},
    {0x10, "Important event / deleted component (text)", 0}, {0x11, "Events (text)", 0},
    {0x81, "Connect", 0}, {0x82, "Disconnect", 0}, {0x8a, "Key events (text)", 0},
    {0x8b, "Events", 0}, {0x8c, "Important events (text)", 0}, {0, NULL, 0}};

static const gw_field fields[EOUDP_F_COUNT] = {EOUDP_FIELDS(GW_FIELD, GW_LINK)};

static const gw_finding_def findings[EOUDP_E_COUNT] = {EOUDP_FINDINGS(GW_FINDING)};

/* the behaviour rules among the findings (pcaptool validate --rules) */
static const gw_rule rules[] = {
    {EOUDP_E_CONNECT_NOT_FIRST, "EOUDP text, 0x81: \"This command is used to connect to the server\", answered by "
                           "0x02 accept or 0x03 reject: a session begins with it"},
    {EOUDP_E_ACK_MISSING, "EOUDP text, Commands: \"0x0c - Send entities with their components MUST get an "
                     "acknowledge\" (likewise 0x0b, 0x0d-0x10, 0x81); wire-facts 4.5: \"When important is "
                     "set the receiver answers with 0x01 carrying that id\""},
    {EOUDP_E_ID_GAP, "wire-facts 4.5: \"The id is a per-connection counter incremented on every packet sent\""},
    {EOUDP_E_ID_OLDER, "wire-facts 4.5: \"The id is a per-connection counter incremented on every packet sent\""},
    {EOUDP_E_WRONG_SIDE, "EOUDP text, Commands: \"command inferior to 0x80 are server commands and superior to "
                    "0x80 are client commands\""},
    {EOUDP_E_SIZE_MISMATCH, "EOUDP text, Representation: \"Size - ... representing the size of the content of "
                       "the packet\""},
    {EOUDP_E_HEADER_NOT_TEXT, "EOUDP text, Representation: command, timestamp, id and size (21 bytes) (profile spec)"},
    {EOUDP_E_STRING_NOT_NUL, "EOUDP text: \"null terminated string prefixed with a 32-bit length\" (profile spec)"},
    {EOUDP_E_TIME_MS, "EOUDP text, Representation: the timestamp in seconds; wire-facts 4.4: \"really milliseconds since the "
                 "Unix epoch (the text says seconds)\" (profile spec)"},
    {EOUDP_E_DIV_HEADER, "wire-facts 4.3: header generations 22 and 26 bytes against the RFC text's 21 (reported once under "
                    "profiles either and reference)"},
    {EOUDP_E_DIV_STRINGS, "wire-facts 4.6: \"strings are u32 length + bytes in the implementation (no NUL ...)\" (reported "
                     "once under profiles either and reference)"},
    {EOUDP_E_DIV_TIME, "wire-facts 4.4: \"The timestamp is really milliseconds since the Unix epoch (the text says "
                  "seconds)\" (reported once under profiles either and reference)"},
    {EOUDP_E_CONNECT_UNANSWERED, "EOUDP text, Usage: \"Client -> [0x81][Timestamp][Id] Server -> [0x02][Timestamp][Id]\"; "
                            "End: \"Server -> [0x03][Timestamp][Id]\""},
    {EOUDP_E_DISCONNECT_UNANSWERED, "EOUDP text, Usage: \"Client -> [0x82][Timestamp][Id][Id] and Server -> "
                               "[0x11][Timestamp][Id][Id]\" (profile spec: the implementation sends no 0x11)"},
    {EOUDP_E_DIV_CLIENT_ENTITIES, "EOUDP text, Commands: \"command inferior to 0x80 are server commands\"; the R-Type "
                             "client at HEAD sends 0x0c, 0x0e and 0x0f (eoudp-gen3-r-type-head-session.pcap) "
                             "(reported once under profiles either and reference)"},
};

static const gw_choice generation_choices[] = {
    {EOUDP_GEN_AUTO, "auto", "From the size field, then the conversation"},
    {EOUDP_GEN_RFC, "21", "RFC text, 21 bytes"},
    {EOUDP_GEN_PAD, "22pad", "22 bytes with a pad byte (until 31 Dec 2023)"},
    {EOUDP_GEN_IMP, "22important", "22 bytes with important (1-8 Jan 2024)"},
    {EOUDP_GEN_F64, "26", "26 bytes, f64 timestamp (from 8 Jan 2024)"},
    {0, NULL, NULL}};


static const gw_choice numbering_choices[] = {
    {EOUDP_NUM_IMPL, "implementation", "The implementation's codes (0x10 important event, 0x8b events)"},
    {EOUDP_NUM_TEXT, "text", "The text's details section (0x10 deleted component, 0x11 events, 0x8a, 0x8c)"},
    {0, NULL, NULL}};

static const gw_choice order_choices[] = {
    {EOUDP_BIG, "big", "Big-endian, as the implementation writes its header"},
    {EOUDP_LITTLE, "little", "Little-endian (the text states no byte order)"},
    {0, NULL, NULL}};

static const gw_option options[] = {
    [EOUDP_OPT_GENERATION] = {"generation", "Header generation",
     "Header layout: told by the size field, or forced", generation_choices, EOUDP_GEN_AUTO},
    [EOUDP_OPT_DEFAULT] = {"default_generation", "Generation when ambiguous",
     "Used when several (or no) generations fit and the conversation has no earlier choice",
     generation_choices + 1 /* the same but auto */, EOUDP_GEN_F64},
    [EOUDP_OPT_NUMBERING] = {"numbering", "Command numbering",
     "Which meaning codes 0x10, 0x11, 0x8a and 0x8c have", numbering_choices, EOUDP_NUM_IMPL},
    [EOUDP_OPT_PROFILE] = {"profile", "Conformance profile",
     "Judge by what the implementation (R-Type) or the RFC text (21-byte header, NUL-terminated strings, "
     "seconds) allows (default: either, noting which), or strictly by one of them", gw_profile_choices, GW_PROFILE_EITHER},
    [EOUDP_OPT_ORDER] = {"default_order", "Byte order when ambiguous",
     "The header's byte order when the size field does not tell it (an empty payload) and the conversation has no "
     "earlier choice; the order pcaptool conform sends its headers in", order_choices, EOUDP_BIG},
};

/* ---- conversation ------------------------------------------------------ */

typedef struct {
    uint64_t id;
    uint32_t frame;
    int64_t t;
    uint8_t code, id_off;
    bool acked;
} pending;

/* the counters behind packet info (0x00), as the capture sees them: the
   implementation resets both of an endpoint's counters when it sends a
   packet info (which then counts as its first sent packet) and when it
   receives one (after counting it) */
typedef struct {
    uint32_t sent, received;          /* since the endpoint's last reset */
} counters;

typedef struct {
    int64_t claimed_sent, claimed_received, seen_sent, seen_received;
} totals;

typedef struct {
    /* what most datagrams read or write, in the first 64 bytes */
    const int *opt;          /* the options (EOUDP_OPT_*) */
    uint64_t last_id[2];
    unsigned imp_next[2];
    counters count[2];       /* of the sender of direction d */
    uint16_t imp_used[2];    /* entries of imp[d] in use: the newest, at most EOUDP_ACKS */
    uint8_t gen, order;      /* the last choice */
    int8_t client_dir;       /* -1: not known yet */
    bool have_id[2];
    bool begun;              /* a datagram with a whole header was seen */
    bool noted_header, noted_strings, noted_time, noted_client_entities; /* divergences reported */
    uint16_t imp_waiting;    /* entries in use of both imp[] not acknowledged */
    /* read by some commands only */
    uint8_t imp_found[2];    /* the entry of imp[d] find_pending found last */
    totals total[2];         /* the packet infos' counts of direction d's sender, and ours */
    int64_t connect_t;
    int64_t disconnect_t;
    uint32_t connect_frame;
    uint32_t disconnect_frame; /* the last disconnect not answered by 0x11 (0: none) */
    unsigned connect_time_n;
    uint8_t connect_time[8];  /* the connect's timestamp bytes: a retry keeps them */
    bool connect_answered;
    int8_t connect_dir;
    int8_t disconnect_dir;
    pending imp[2][EOUDP_ACKS]; /* important packets sent by direction d (not
                                   cleared: only the imp_used newest are read) */
} eoudp_conv;
_Static_assert(EOUDP_ACKS <= 256, "imp_found holds an entry's index");

static void conv_init(void *p, const int *opt)
{
    memset(p, 0, offsetof(eoudp_conv, imp));
    ((eoudp_conv *)p)->client_dir = -1;
    ((eoudp_conv *)p)->opt = opt;
}
static void conv_free(void *p) { (void)p; }

static void missing_message(char *buf, size_t n, const pending *q)
{
    snprintf(buf, n, "Important packet id %llu (command 0x%02x) never acknowledged",
             (unsigned long long)q->id, q->code);
}

/* the end of the conversation: the important packets still unanswered */
static void conv_end(void *p, const gw_end_sink *sink)
{
    eoudp_conv *c = p;
    char msg[128];
    for (int d = 0; c->imp_waiting && d < 2; d++) /* (none waiting: nothing to walk for) */
        for (unsigned k = EOUDP_ACKS - c->imp_used[d]; k < EOUDP_ACKS; k++) { /* oldest first */
            const pending *q = &c->imp[d][(c->imp_next[d] + k) % EOUDP_ACKS];
            if (q->acked)
                continue;
            missing_message(msg, sizeof msg, q);
            sink->finding(sink->ctx, q->frame, q->t, d, EOUDP_E_ACK_MISSING, q->id_off, 8, msg);
        }
    if (c->connect_frame && !c->connect_answered)
        sink->finding(sink->ctx, c->connect_frame, c->connect_t, c->connect_dir, EOUDP_E_CONNECT_UNANSWERED, 0, 1,
                      "Connect answered by neither accept (0x02) nor reject (0x03)");
    if (c->disconnect_frame && c->opt[EOUDP_OPT_PROFILE] == GW_PROFILE_SPEC)
        sink->finding(sink->ctx, c->disconnect_frame, c->disconnect_t, c->disconnect_dir,
                      EOUDP_E_DISCONNECT_UNANSWERED, 0, 1, "Disconnect not answered by 0x11");
}

/* ---- header ------------------------------------------------------------ */

/* The four headers (the EOUDP text, wire-facts 4.3), in the byte order the
   datagram's choice says. The timestamp's check reports the header's and
   the time's divergences from the text; in the headers without the
   important byte, the id's check shows what the command implies. */
static void check_stamp(gw_pdu *p, size_t off, uint64_t v);
static void check_id_implied(gw_pdu *p, size_t off, uint64_t v);
#define STAMP(n) GW_NUM(EOUDP_F_TIMESTAMP, n, GW_CHECK(check_stamp))
#define SIZE_BYTES 8 /* the size field is a u64 in every generation (fits() reads it so) */
#define SIZE_FIELD GW_NUM(EOUDP_F_SIZE, SIZE_BYTES)
#define COMMAND GW_NUM(EOUDP_F_COMMAND, 1)
static const gw_lstep *const headers[] = {
    [EOUDP_GEN_RFC] = GW_LAYOUT(COMMAND, STAMP(4), GW_NUM(EOUDP_F_ID, 8, GW_CHECK(check_id_implied)),
                                SIZE_FIELD),
    [EOUDP_GEN_PAD] = GW_LAYOUT(COMMAND, STAMP(4), GW_NUM(EOUDP_F_ID, 8, GW_CHECK(check_id_implied)),
                                SIZE_FIELD, GW_NUM(EOUDP_F_PAD, 1)),
    [EOUDP_GEN_IMP] = GW_LAYOUT(COMMAND, STAMP(4), GW_NUM(EOUDP_F_ID, 8), GW_NUM(EOUDP_F_IMPORTANT, 1),
                                SIZE_FIELD),
    [EOUDP_GEN_F64] = GW_LAYOUT(COMMAND, STAMP(8), GW_NUM(EOUDP_F_ID, 8), GW_NUM(EOUDP_F_IMPORTANT, 1),
                                SIZE_FIELD),
};

/* each header's geometry, read off its layout once */
typedef struct {
    size_t len;
    long off[EOUDP_F_COUNT]; /* -1: not in the header */
    unsigned size[EOUDP_F_COUNT];
} geometry;
static geometry geo[EOUDP_GEN_F64 + 1];
static pthread_once_t geo_once = PTHREAD_ONCE_INIT;
static bool geo_ready; /* set (release) once geo[] and by_code[] are filled */

/* the generations, newest first: the order in which they are tried */
static const int gens[] = {EOUDP_GEN_F64, EOUDP_GEN_IMP, EOUDP_GEN_PAD, EOUDP_GEN_RFC};
#define N_GENS (sizeof gens / sizeof gens[0])

/* what fits() reads of each generation, in gens[] order: its header's
   length, where its size field is, where its pad byte is (0: none); the
   sums of the sizes of headers[]' steps, written out so that fits() reads
   constants (measure_headers() holds them to the layouts: any use of the
   decoder aborts should they disagree) */
#define FIT_F64 26, 18, 0 /* command 1, stamp 8, id 8, important 1, size 8 */
#define FIT_IMP 22, 14, 0 /* command 1, stamp 4, id 8, important 1, size 8 */
#define FIT_PAD 22, 13, 21 /* command 1, stamp 4, id 8, size 8, pad 1 */
#define FIT_RFC 21, 13, 0 /* command 1, stamp 4, id 8, size 8 */

/* the command of each code, in either numbering (command_of) */
static const command *by_code[2][256];

static void measure_headers(void)
{
    for (int g = EOUDP_GEN_RFC; g <= EOUDP_GEN_F64; g++) {
        geo[g].len = gw_layout_fixed_size(headers[g]);
        for (int f = 0; f < EOUDP_F_COUNT; f++)
            geo[g].off[f] = gw_layout_offset(headers[g], f, &geo[g].size[f]);
    }
    /* fits()'s constants are this geometry written out: a layout changed
       without them would misread every datagram, so they are held to it */
    static const size_t fit[N_GENS][3] = {{FIT_F64}, {FIT_IMP}, {FIT_PAD}, {FIT_RFC}};
    for (size_t g = 0; g < N_GENS; g++) {
        const geometry *h = &geo[gens[g]];
        size_t pad = h->off[EOUDP_F_PAD] > 0 ? (size_t)h->off[EOUDP_F_PAD] : 0;
        if (fit[g][0] != h->len || (long)fit[g][1] != h->off[EOUDP_F_SIZE] || fit[g][2] != pad) {
            fprintf(stderr, "eoudp.c: FIT_ of generation %d disagrees with its header's layout\n", gens[g]);
            abort();
        }
    }
    /* the last entry of a code wins unless an earlier one is of the
       numbering asked for: 0x11, 0x8a, 0x8c exist only in the text and are
       decoded either way */
    for (int text = 0; text < 2; text++)
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
            const command **found = &by_code[text][commands[i].code];
            if (!*found || commands[i].text_only == text)
                *found = &commands[i];
        }
    __atomic_store_n(&geo_ready, true, __ATOMIC_RELEASE);
}

static inline const geometry *geometry_of(int gen)
{
    if (!__atomic_load_n(&geo_ready, __ATOMIC_ACQUIRE))
        pthread_once(&geo_once, measure_headers);
    return &geo[gen];
}

/* where a header field is (the header has every field it is asked for) */
static size_t field_off(int gen, int field, unsigned *size)
{
    const geometry *g = geometry_of(gen);
    *size = g->size[field];
    return (size_t)g->off[field];
}

/* the byte orders (bit EOUDP_BIG, bit EOUDP_LITTLE) in which a header of
   hl bytes, its size field at so and its pad byte at pad (0: none), fits
   the datagram: its size field says how many bytes follow it (and the pad
   byte, if it has one, is zero) */
static inline unsigned fits(const uint8_t *d, size_t len, size_t hl, size_t so, size_t pad)
{
    if (len < hl || (pad && d[pad]))
        return 0;
    /* every generation's size field is a u64 (one load, swapped or not) */
    uint64_t size = gw_get_uint(d + so, SIZE_BYTES, false), left = len - hl;
    return (__builtin_bswap64(size) == left) << EOUDP_BIG | (size == left) << EOUDP_LITTLE;
}

typedef struct {
    int gen, order, basis;
    bool consistent;
} header_choice;

/* the byte orders whose size field fits, of every generation at once: those
   of the g-th of gens[] at bits 4g + EOUDP_BIG and 4g + EOUDP_LITTLE (both
   when the order is not told, e.g. size 0) */
#define ORDERS(m, g) ((m) >> 4 * (g) & 0xfu)
#define FIT_ANY 0x2222u /* (m | m >> 1) & FIT_ANY: bit 4g + 1 where the g-th fits */
static inline unsigned fitting(const uint8_t *d, size_t len)
{
    return fits(d, len, FIT_F64) | fits(d, len, FIT_IMP) << 4 | fits(d, len, FIT_PAD) << 8 |
           fits(d, len, FIT_RFC) << 12;
}

/* of the orders that fit, the conversation's, else the option's (default
   big-endian, the implementation's) */
static int pick_order(unsigned orders, int conv_order, int dflt)
{
    if (conv_order && (orders & (1u << conv_order)))
        return conv_order;
    if (orders & (1u << dflt))
        return dflt;
    return dflt == EOUDP_BIG ? EOUDP_LITTLE : EOUDP_BIG;
}

/* the header of a datagram, given the generation and byte order the
   conversation used last (0: none yet) */
static header_choice choose(const int *opt, int conv_gen, int conv_order, const uint8_t *d, size_t len)
{
    int forced = opt[EOUDP_OPT_GENERATION], dflt = opt[EOUDP_OPT_DEFAULT], order = opt[EOUDP_OPT_ORDER];
    if (order != EOUDP_LITTLE)
        order = EOUDP_BIG;
    const struct { int gen, order; } conv = {conv_gen, conv_order}, *c = &conv;
    unsigned m = fitting(d, len), any = (m | m >> 1) & FIT_ANY;
    geometry_of(EOUDP_GEN_RFC); /* geo[] and by_code[] ready (eoudp_decode reads them) */
    if (forced != EOUDP_GEN_AUTO) {
        for (size_t g = 0; g < N_GENS; g++)
            if (gens[g] == forced && ORDERS(m, g))
                return (header_choice){gens[g], pick_order(ORDERS(m, g), c->order, order), BASIS_FORCED, true};
        return (header_choice){forced, c->order ? c->order : order, BASIS_FORCED, false};
    }
    /* one generation fits; or several: the conversation's, the option's,
       the newest */
    if (any && !(any & (any - 1))) {
        size_t g = (size_t)__builtin_ctz(any) / 4;
        return (header_choice){gens[g], pick_order(ORDERS(m, g), c->order, order), BASIS_SIZE, true};
    }
    for (size_t g = 0; g < N_GENS; g++)
        if (ORDERS(m, g) && gens[g] == c->gen)
            return (header_choice){gens[g], pick_order(ORDERS(m, g), c->order, order), BASIS_CONVERSATION, true};
    for (size_t g = 0; g < N_GENS; g++)
        if (ORDERS(m, g) && gens[g] == dflt)
            return (header_choice){gens[g], pick_order(ORDERS(m, g), c->order, order), BASIS_OPTION, true};
    for (size_t g = 0; g < N_GENS; g++)
        if (ORDERS(m, g))
            return (header_choice){gens[g], pick_order(ORDERS(m, g), c->order, order), BASIS_NEWEST, true};
    /* nothing fits: the size field lies */
    if (c->gen)
        return (header_choice){c->gen, c->order, BASIS_CONVERSATION, false};
    return (header_choice){dflt, order, BASIS_OPTION, false};
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct {
    gw_pdu p;        /* payload numbers are little-endian (host order) */
    eoudp_conv *conv;
    int gen;         /* the header's generation */
    const geometry *geo; /* its geometry */
    bool copy;       /* the same id as the previous datagram this way */
    bool seen[EOUDP_F_COUNT]; /* what the payload's layout read (gw_record) */
    uint64_t val[EOUDP_F_COUNT];
    gw_span text[EOUDP_F_COUNT];
} eoudp_ctx;

/* a u32-length text (gw_pdu_hooks.text): the item covers the text, a
   trailing NUL is accepted and reported, counted by the length or not (the
   text's "null terminated string prefixed with ... the length of the
   string" reads either way) */
static void text_end(gw_pdu *p, int field, size_t off, size_t n, int nul)
{
    eoudp_ctx *x = (eoudp_ctx *)p;
    const char *name = fields[field].name;
    if (nul == GW_NUL_COUNTED)
        gw_emit_finding(&x->p.e, EOUDP_E_STRING_NUL, off + n, 1, "%s ends with a NUL", name);
    else if (nul == GW_NUL_AFTER)
        gw_emit_finding(&x->p.e, EOUDP_E_STRING_NUL, off + n, 1, "%s ends with a NUL its length does not count",
                        name);
    else
        gw_emit_divergence(&x->p.e, x->conv->opt[EOUDP_OPT_PROFILE], EOUDP_E_STRING_NOT_NUL, EOUDP_E_DIV_STRINGS,
                           &x->conv->noted_strings, off, n, "%s without a NUL",
                           "%s without a NUL (the text says otherwise)", name);
}

/* the layouts' tests (GW_IF_HOOK): the text's whole connect payload is
   there; 0x11 with the 8-byte [Id] of the usage's end, or not (a 4-byte
   [Event]) */
static bool connect_payload(gw_pdu *p)
{
    return gw_remaining(&p->c) >= 12;
}
static bool end_id(gw_pdu *p)
{
    return gw_remaining(&p->c) == 8;
}
static bool not_end_id(gw_pdu *p)
{
    return gw_remaining(&p->c) != 8;
}

static bool implied_important(int gen, uint8_t code);

/* the id of a header without the important byte: what the command implies */
static void check_id_implied(gw_pdu *p, size_t off, uint64_t v)
{
    (void)off, (void)v;
    eoudp_ctx *x = (eoudp_ctx *)p;
    gw_emit_gen_u(&x->p.e, EOUDP_F_IMPORTANT, 0, implied_important(x->gen, x->p.c.data[0]));
}

/* a timestamp (a float of n bytes) as a date: milliseconds above 1e11 (what
   implementations send), else the text's seconds; none when it is no date */
static void emit_utc(gw_pdu *p, int field, size_t off, uint64_t bits, unsigned n)
{
    if (!p->e.sink->item) /* nothing shown (validate): nothing to work out */
        return;
    double t = gw_float_bits(bits, n), whole = floor(t);
    int64_t unit = t > 1e11 ? 1000000 : 1000000000; /* ns a unit */
    if (!(t >= 0) || whole >= (double)(INT64_MAX / unit))
        return;
    /* whole units apart: a double's ns near 2^60 are 256 apart */
    gw_emit_gen_i(&p->e, field, off, (int64_t)whole * unit + (int64_t)llround((t - whole) * (double)unit));
}

static void check_connect_stamp(gw_pdu *p, size_t off, uint64_t v)
{
    emit_utc(p, EOUDP_F_CONNECT_TIMESTAMP_UTC, off, v, 4);
}

/* the timestamp: the header's and the time's divergences from the text */
static void check_stamp(gw_pdu *p, size_t off, uint64_t v)
{
    eoudp_ctx *x = (eoudp_ctx *)p;
    eoudp_conv *c = x->conv;
    int profile = c->opt[EOUDP_OPT_PROFILE];
    size_t hl = x->geo->len;
    if (x->gen != EOUDP_GEN_RFC)
        gw_emit_divergence(&x->p.e, profile, EOUDP_E_HEADER_NOT_TEXT, EOUDP_E_DIV_HEADER, &c->noted_header, 0, hl,
                           "A %zu-byte header", "A %zu-byte header (the text says otherwise)", hl);
    unsigned n = x->geo->size[EOUDP_F_TIMESTAMP];
    if (gw_float_bits(v, n) > 1e11)
        gw_emit_divergence(&x->p.e, profile, EOUDP_E_TIME_MS, EOUDP_E_DIV_TIME, &c->noted_time, off, n,
                           "A timestamp in milliseconds",
                           "A timestamp in milliseconds (the text says otherwise)");
    emit_utc(p, EOUDP_F_TIMESTAMP_UTC, off, v, n);
}

static const gw_pdu_hooks hooks = {.text = text_end};

/* The header where items are taken: its layout's numbers (all there: the
   datagram holds the header), read, recorded and checked as gw_layout_run
   reads them (in the header's byte order; no step has a summary), without
   the interpreter's loop. */
static void read_header(eoudp_ctx *x, const gw_lstep *s, bool big)
{
    for (; s->op == GW_L_NUM; s++) {
        size_t off = x->p.c.off;
        uint64_t v;
        gw_take_num(&x->p, s->field, s->size, big && s->size > 1, &v);
        if (s->check)
            s->check(&x->p, off, v);
    }
}

/* The same where no item is taken (pcaptool validate): the numbers the
   decoder uses read from their places in the header (its geometry), and
   check_stamp's checks made where the timestamp is (check_id_implied only
   shows an item). Nothing reads the header's numbers from x->val but the
   decoder, which gets them here. */
static void read_header_quiet(eoudp_ctx *x, bool big, uint64_t *id, uint64_t *size, int *important)
{
    const geometry *g = x->geo;
    const uint8_t *d = x->p.c.data;
    unsigned n = g->size[EOUDP_F_TIMESTAMP];
    const eoudp_conv *c = x->conv;
    /* (once both divergences are noted, outside profile spec, it has
       nothing to report) */
    if (c->opt[EOUDP_OPT_PROFILE] == GW_PROFILE_SPEC || !c->noted_header || !c->noted_time)
        check_stamp(&x->p, (size_t)g->off[EOUDP_F_TIMESTAMP], gw_get_uint(d + g->off[EOUDP_F_TIMESTAMP], n, big));
    *id = gw_get_uint(d + g->off[EOUDP_F_ID], 8, big);
    *size = gw_get_uint(d + g->off[EOUDP_F_SIZE], SIZE_BYTES, big);
    *important = g->off[EOUDP_F_IMPORTANT] < 0 ? -1 : d[g->off[EOUDP_F_IMPORTANT]] != 0;
    x->p.c.off = g->len;
}

/* the command of a code in the numbering the options ask for, the tables
   known ready (command_of makes them so) */
static inline const command *command_in(const int *opt, uint8_t code)
{
    return by_code[opt[EOUDP_OPT_NUMBERING] == EOUDP_NUM_TEXT][code];
}

static const command *command_of(const int *opt, uint8_t code)
{
    if (!__atomic_load_n(&geo_ready, __ATOMIC_ACQUIRE))
        pthread_once(&geo_once, measure_headers);
    return command_in(opt, code);
}

/* the sender's role: 0 client, 1 server, learnt from the first command that
   only one side sends */
static void check_side(eoudp_ctx *x, uint8_t code)
{
    eoudp_conv *c = x->conv;
    int dir = x->p.pi->dir;
    if (code <= 0x01)
        return;
    bool client_cmd = code >= 0x80;
    if (c->client_dir < 0) {
        c->client_dir = (int8_t)(client_cmd ? dir : !dir);
        return;
    }
    if (client_cmd == (dir == c->client_dir))
        return;
    if (!client_cmd && (code == 0x0c || code == 0x0e || code == 0x0f)) /* the real client spawns things */
        gw_emit_divergence(&x->p.e, x->conv->opt[EOUDP_OPT_PROFILE], EOUDP_E_WRONG_SIDE, EOUDP_E_DIV_CLIENT_ENTITIES,
                           &c->noted_client_entities, 0, 1, "A server command 0x%02x from the client",
                           "Entity commands from the client (0x%02x; the text says server commands)",
                           code);
    else
        gw_emit_finding(&x->p.e, EOUDP_E_WRONG_SIDE, 0, 1, "%s command 0x%02x from the %s",
                        client_cmd ? "A client" : "A server", code, client_cmd ? "server" : "client");
}

/* ids per direction; a resend of an important packet is expected to go
   back in the numbering and is not reported as reordered */
static void track_id(eoudp_ctx *x, uint64_t id, size_t off, size_t n, bool resend)
{
    eoudp_conv *c = x->conv;
    int d = x->p.pi->dir ? 1 : 0;
    if (c->have_id[d]) {
        uint64_t last = c->last_id[d];
        x->copy = id == last;
        if (id == last)
            gw_emit_finding(&x->p.e, EOUDP_E_ID_DUPLICATE, off, n, "Id %llu again", (unsigned long long)id);
        else if (id < last && !resend)
            gw_emit_finding(&x->p.e, EOUDP_E_ID_OLDER, off, n, "Id %llu after %llu", (unsigned long long)id,
                            (unsigned long long)last);
        else if (id > last + 1)
            gw_emit_finding(&x->p.e, EOUDP_E_ID_GAP, off, n, "%llu id%s skipped after %llu",
                            (unsigned long long)(id - last - 1), id - last - 1 == 1 ? "" : "s",
                            (unsigned long long)last);
    }
    if (!c->have_id[d] || id > c->last_id[d])
        c->last_id[d] = id;
    c->have_id[d] = true;
}

/* the important packet with this id that direction d sent, or NULL */
static pending *find_pending(eoudp_conv *c, int d, uint64_t id)
{
    /* every one waiting was sent before: none has an id above the largest
       id d sent (most important packets are new: no walk) */
    if (!c->have_id[d] || id > c->last_id[d])
        return NULL;
    /* the one found last, then the one after it (acknowledges come mostly
       in the order their packets went, a resend soon after its first
       transmission), then the others newest first; an id is in one entry
       in use at most (a resend keeps the first one's) */
    unsigned newest = (c->imp_next[d] - 1) % EOUDP_ACKS;
    for (unsigned i = 0; i < 2; i++) {
        unsigned slot = (c->imp_found[d] + i) % EOUDP_ACKS;
        if ((newest - slot) % EOUDP_ACKS < c->imp_used[d] && c->imp[d][slot].id == id) {
            c->imp_found[d] = (uint8_t)slot;
            return &c->imp[d][slot];
        }
    }
    for (unsigned k = 1; k <= c->imp_used[d]; k++) {
        unsigned slot = (c->imp_next[d] - k) % EOUDP_ACKS;
        if (c->imp[d][slot].id == id) {
            c->imp_found[d] = (uint8_t)slot;
            return &c->imp[d][slot];
        }
    }
    return NULL;
}

static void ack(eoudp_ctx *x, uint64_t id, size_t off)
{
    pending *p = find_pending(x->conv, x->p.pi->dir ? 0 : 1, id);
    if (!p || p->acked) {
        gw_emit_finding(&x->p.e, EOUDP_E_ACK_UNMATCHED, off, 8, "Id %llu: %s", (unsigned long long)id,
                        p ? "already acknowledged" : "no important packet with this id seen");
        return;
    }
    p->acked = true;
    x->conv->imp_waiting--;
    gw_emit_gen_u(&x->p.e, EOUDP_F_ACK_REQUEST_FRAME, off, p->frame);
    gw_emit_gen_i(&x->p.e, EOUDP_F_ACK_TIME, off, x->p.pi->time_ns - p->t);
}

/* before the header had its flag: the text's "MUST get an acknowledge"
   commands (21 bytes), or what the Dec 2023 implementation sent with
   SendImportantPacket (22 bytes with pad: 0x0c, 0x0e, 0x0f; its important
   0x8b events look like the ordinary ones) */
static bool implied_important(int gen, uint8_t code)
{
    if (gen == EOUDP_GEN_RFC)
        return (code >= 0x0b && code <= 0x10) || code == 0x81 || code == 0x8c;
    return code == 0x0c || code == 0x0e || code == 0x0f;
}

/* a new important packet (not a resend: that keeps the first one's entry
   and time) waits for its acknowledge. The oldest of EOUDP_ACKS waiting is
   given up with a finding here. */
static void wait_for_ack(eoudp_ctx *x, uint64_t id, uint8_t code, size_t id_off)
{
    eoudp_conv *c = x->conv;
    int d = x->p.pi->dir ? 1 : 0;
    pending *slot = &c->imp[d][c->imp_next[d]++ % EOUDP_ACKS];
    bool full = c->imp_used[d] == EOUDP_ACKS; /* the slot holds the oldest */
    if (!full)
        c->imp_used[d]++;
    if (full && !slot->acked) {
        char msg[128];
        missing_message(msg, sizeof msg, slot);
        gw_emit_finding(&x->p.e, EOUDP_E_ACK_MISSING, id_off, 8, "%s in frame %u, %u important packets ago",
                        msg, slot->frame, EOUDP_ACKS);
        c->imp_waiting--;
    }
    *slot = (pending){id, x->p.pi->frame, x->p.pi->time_ns, code, (uint8_t)id_off, false};
    c->imp_waiting++;
}

/* packet info counters: every datagram counts for its sender and receiver,
   except a copy (the same id again at once: the Dec 2023 build's doubled
   sends, or HEAD's accept after the connect's acknowledge, which went out
   from a connection object of its own) */
static void count_packet(eoudp_ctx *x, uint8_t code)
{
    int d = x->p.pi->dir ? 1 : 0;
    if (x->copy)
        return;
    counters *from = &x->conv->count[d], *to = &x->conv->count[!d];
    if (code == 0x00) { /* compared in payload(); then the sender resets */
        from->sent = 1;
        from->received = 0;
    } else {
        from->sent++;
    }
    to->received++;
    if (code == 0x00)
        to->sent = to->received = 0;
}

/* a packet info: the sender's counts against the capture's */
static void packet_info(eoudp_ctx *x, int32_t received, int32_t sent)
{
    if (x->copy)
        return;
    int d = x->p.pi->dir ? 1 : 0;
    const counters *k = &x->conv->count[d];
    totals *t = &x->conv->total[d];
    t->claimed_received += received;
    t->claimed_sent += sent;
    t->seen_received += k->received;
    t->seen_sent += k->sent;
    size_t at = x->p.c.off - 8;
    gw_emit_gen_u(&x->p.e, EOUDP_F_SEEN_RECEIVED, at, k->received);
    gw_emit_gen_u(&x->p.e, EOUDP_F_SEEN_SENT, at + 4, k->sent);
    gw_emit_gen_i(&x->p.e, EOUDP_F_LOSS_TO, at, t->seen_received - t->claimed_received);
    gw_emit_gen_i(&x->p.e, EOUDP_F_LOSS_FROM, at + 4, t->claimed_sent - t->seen_sent);
}

/* payload layouts (little-endian); text and content are u32-length */
#define L GW_LAYOUT
#define NUM(f, n, ...) GW_NUM(EOUDP_F_##f, n, __VA_ARGS__)
#define TEXT(f) GW_COUNTED(EOUDP_F_##f, EOUDP_F_STRING_LENGTH, 4, EOUDP_E_STRING_PAST_END, GW_SUM(" %s"), GW_FLAGS(GW_LF_NUL))
#define CONTENT GW_COUNTED(EOUDP_F_CONTENT, EOUDP_F_CONTENT_LENGTH, 4, EOUDP_E_STRING_PAST_END)
#define FIRST_ENTITY NUM(ENTITY, 8, GW_SUM(" entity 0x%llx"), GW_FLAGS(GW_LF_FIRST))
/* the text's usage section repeats these items in one datagram:
   "[System][System]...", "[GameEvents][GameEvents]...",
   "[Entity][Component][Content_of_a_component]...", "[Entity]...": each
   is decoded (another while the bytes left hold at least its fixed part:
   fewer are trailing bytes, not a truncated item); the summary names the
   first and counts the rest */
static const gw_lstep *const payloads[L_UNKNOWN] = {
    [L_NONE] = GW_EMPTY,
    [L_INFO] = L(NUM(INFO_RECEIVED, 4), NUM(INFO_SENT, 4)),
    [L_ID] = L(NUM(ACK_ID, 8, GW_SUM(" %llu"))),
    [L_PLAYER] = L(NUM(PLAYER, 8, GW_SUM(" player 0x%llx"))),
    [L_STRING_SYSTEM] = L(GW_MORE(4, GW_FLAGS(GW_LF_FITS)), TEXT(SYSTEM), GW_DONE),
    [L_STRING_EVENTS] = L(GW_MORE(4, GW_FLAGS(GW_LF_FITS)), TEXT(GAME_EVENTS), GW_DONE),
    [L_COMPONENT] = L(GW_MORE(16), FIRST_ENTITY, TEXT(COMPONENT), CONTENT, GW_DONE),
    [L_ENTITY] = L(GW_MORE(8), FIRST_ENTITY, GW_DONE),
    /* the text's content field may follow */
    [L_DEL_COMPONENT] = L(NUM(ENTITY, 8, GW_SUM(" entity 0x%llx")), TEXT(COMPONENT), GW_OPTIONAL, CONTENT),
    [L_EVENT_BOOL] = L(NUM(EVENT, 4), NUM(PRESSED, 1)),
    [L_EVENT] = L(NUM(EVENT, 4, GW_SUM(" %llu"))),
    /* the implementation sends nothing; the text: f32 timestamp, u64 id */
    [L_CONNECT] = L(GW_IF_HOOK(connect_payload), GW_NUM(EOUDP_F_CONNECT_TIMESTAMP, 4, GW_CHECK(check_connect_stamp)), NUM(CONNECT_ID, 8), GW_DONE),
    /* the text, two ways: "It's content is empty" (0x82), "[Event]" (0x11);
       its usage's end: "Client -> [0x82][Timestamp][Id][Id] and Server ->
       [0x11][Timestamp][Id][Id]" */
    [L_DISCONNECT] = L(GW_OPTIONAL, NUM(END_ID, 8, GW_SUM(" %llu"))),
    [L_EVENT_OR_END] = L(GW_IF_HOOK(not_end_id), NUM(EVENT, 4, GW_SUM(" %llu")), GW_DONE,
                         GW_IF_HOOK(end_id), NUM(END_ID, 8, GW_SUM(" (answering disconnect %llu)")), GW_DONE),
};

/* Do the payload's bytes decode, exactly, with strings whose length counts
   their NUL (or that have none), or (nul_after) with strings whose NUL
   follows the bytes their length counts? Both are readings of the text. */
static bool payload_fits(const eoudp_ctx *x, const command *cmd, bool nul_after)
{
    gw_pdu y;
    gw_pdu_begin(&y, &gw_eoudp_protocol, &gw_quiet_sink, &gw_quiet_pi, x->p.c.data, x->p.c.len);
    y.c.off = x->p.c.off;
    y.nul_after = nul_after;
    return gw_layout_run(&y, payloads[cmd->layout]) && !y.failed && gw_remaining(&y.c) == 0;
}

/* payload_fits(x, cmd, false) without running the layout, for the
   string-bearing layouts above: a walk over their lengths as the
   interpreter reads them quietly (a number or length the bytes do not
   hold, a length past the end: no fit; another item while GW_L_MORE's
   bytes allow; GW_L_OPTIONAL's end). Should it say no, the layout runs
   to be sure (payload_fits). With x (once the walk said yes, and only
   where nobody takes items or a summary: pcaptool validate), it tells
   text_end() of each string as the layout's run would, in its order, and
   counts the GW_L_MORE items in *repeats: all that run leaves a quiet
   sink and the decoder (nul_after is off where they fit). *no_nul: no
   string's counted bytes end in a NUL. */
static bool strings_walk(eoudp_ctx *x, const uint8_t *d, size_t off, size_t len, int layout, unsigned *repeats,
                         bool *no_nul)
{
    /* the field of the layout's TEXT() */
    int text = layout == L_STRING_SYSTEM ? EOUDP_F_SYSTEM
             : layout == L_STRING_EVENTS ? EOUDP_F_GAME_EVENTS
                                         : EOUDP_F_COMPONENT;
    unsigned items = 0, nuls = 0;
#define TAKE_COUNTED(is_text)                                                                     \
    do {                                                                                          \
        if (len - off < 4)                                                                        \
            return false;                                                                         \
        uint64_t n_ = gw_get_uint(d + off, 4, false);                                             \
        if (n_ > len - off - 4)                                                                   \
            return false;                                                                         \
        off += 4;                                                                                 \
        if (is_text) {                                                                            \
            bool nul_ = n_ && d[off + n_ - 1] == 0;                                               \
            if (x)                                                                                \
                text_end(&x->p, text, off, (size_t)n_ - nul_, nul_ ? GW_NUL_COUNTED : GW_NUL_NONE); \
            nuls += nul_;                                                                         \
        }                                                                                         \
        off += (size_t)n_;                                                                        \
    } while (0)
    switch (layout) {
    case L_STRING_SYSTEM: /* GW_MORE(4, GW_LF_FITS): a length that fits the bytes left */
    case L_STRING_EVENTS:
        do {
            TAKE_COUNTED(true);
            items++;
        } while (len - off >= 4 && gw_get_uint(d + off, 4, false) <= len - off - 4);
        break;
    case L_COMPONENT: /* GW_MORE(16): entity, component, content */
        do {
            if (len - off < 8)
                return false;
            off += 8;
            TAKE_COUNTED(true);
            TAKE_COUNTED(false);
            items++;
        } while (len - off >= 16);
        break;
    case L_DEL_COMPONENT: /* entity, component, then optionally content */
        if (len - off < 8)
            return false;
        off += 8;
        TAKE_COUNTED(true);
        if (off == len)
            break;
        TAKE_COUNTED(false);
        break;
    default:
        return false;
    }
#undef TAKE_COUNTED
    *repeats = items;
    *no_nul = !nuls; /* no end that text_end() reports (GW_NUL_COUNTED) */
    return off == len;
}

static void payload(eoudp_ctx *x, const command *cmd, uint8_t code)
{
    if (!cmd) {
        gw_emit_finding(&x->p.e, EOUDP_E_UNKNOWN_COMMAND, 0, 1, "Command 0x%02x", code);
        gw_take_rest(&x->p, EOUDP_F_PAYLOAD);
        return;
    }
    size_t off = x->p.c.off;
    bool strings = cmd->layout == L_STRING_SYSTEM || cmd->layout == L_STRING_EVENTS ||
                   cmd->layout == L_COMPONENT || cmd->layout == L_DEL_COMPONENT;
    unsigned items;
    bool no_nul;
    bool fit = strings && strings_walk(NULL, x->p.c.data, off, x->p.c.len, cmd->layout, &items, &no_nul);
    if (fit && !gw_emit_tree(&x->p.e) && x->p.sum.off) {
        /* nothing to show: what the layout's run would leave, without it;
           the strings' ends told to text_end() unless it would report
           nothing (no NUL, and their divergence noted before) */
        eoudp_conv *c = x->conv;
        if (!no_nul || c->opt[EOUDP_OPT_PROFILE] == GW_PROFILE_SPEC || !c->noted_strings)
            strings_walk(x, x->p.c.data, off, x->p.c.len, cmd->layout, &items, &no_nul);
        x->p.repeats = cmd->layout == L_DEL_COMPONENT ? 0 : items;
        x->p.c.off = x->p.c.len;
        return;
    }
    x->p.nul_after = strings && x->conv->opt[EOUDP_OPT_PROFILE] != GW_PROFILE_REFERENCE && !fit &&
                     !payload_fits(x, cmd, false) && payload_fits(x, cmd, true);
    if (!gw_layout_run_numbers_first(&x->p, payloads[cmd->layout]))
        return;
    uint64_t *v = x->val;
    switch (cmd->layout) {
    case L_INFO:
        gw_summary_add(&x->p.sum, " received %d sent %d", (int32_t)v[EOUDP_F_INFO_RECEIVED],
                       (int32_t)v[EOUDP_F_INFO_SENT]);
        packet_info(x, (int32_t)v[EOUDP_F_INFO_RECEIVED], (int32_t)v[EOUDP_F_INFO_SENT]);
        break;
    case L_ID:
        ack(x, v[EOUDP_F_ACK_ID], off);
        break;
    case L_STRING_SYSTEM:
    case L_STRING_EVENTS:
        if (x->p.repeats > 1)
            gw_summary_add(&x->p.sum, " (%u items)", x->p.repeats);
        break;
    case L_COMPONENT:
    case L_ENTITY:
        if (x->p.repeats > 1)
            gw_summary_add(&x->p.sum, " (+%u more)", x->p.repeats - 1);
        break;
    case L_EVENT_BOOL:
        gw_summary_add(&x->p.sum, " %llu %s", (unsigned long long)v[EOUDP_F_EVENT],
                       v[EOUDP_F_PRESSED] ? "pressed" : "released");
        break;
    default:
        break;
    }
}

uint64_t eoudp_now_bits(unsigned width)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double ms = (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
    uint64_t bits;
    if (width == 8) {
        memcpy(&bits, &ms, 8);
    } else {
        float f = (float)ms;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        bits = b32;
    }
    return bits;
}

/* now, in seconds since the Unix epoch, as the bits of an f32: the text's
   timestamp ("32 bit (4 bytes) float representing the time in seconds";
   the origin is not given) */
static uint64_t now_seconds_f32_bits(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    float f = (float)((double)now.tv_sec + (double)now.tv_nsec / 1e9);
    uint32_t b32;
    memcpy(&b32, &f, 4);
    return b32;
}

/* pcaptool conform's datagrams: the header of the forced generation (else
   the default one), its size the payload's, its timestamp now unless a
   value is given (the text's 21-byte header: seconds, as it says; the
   implementation's: milliseconds, as f32 or f64); the header in the
   byte order of eoudp.default_order (default the implementation's
   big-endian; the text states none); the payload of the command's layout,
   little-endian */
static size_t eoudp_build(const int *opts, int64_t type, const gw_wval *vals, uint8_t *out, size_t cap)
{
    const command *cmd = type >= 0 && type < 256 ? command_of(opts, (uint8_t)type) : NULL;
    int gen = opts[EOUDP_OPT_GENERATION] != EOUDP_GEN_AUTO ? opts[EOUDP_OPT_GENERATION] : opts[EOUDP_OPT_DEFAULT];
    size_t hl = gw_layout_fixed_size(headers[gen]), n;
    static const gw_lstep raw[] = {GW_STEP(NULL), {.op = GW_L_END}}; /* an unknown command: given bytes */
    if (cap < hl || !gw_layout_write(cmd ? payloads[cmd->layout] : raw, false, vals, out + hl, cap - hl, &n))
        return 0;
    /* the header's values: the command, the size, and what vals give */
    gw_wval h[8] = {GW_WU(EOUDP_F_COMMAND, (uint64_t)type), GW_WU(EOUDP_F_SIZE, n)};
    unsigned k = 2;
    bool stamp = false, big = opts[EOUDP_OPT_ORDER] != EOUDP_LITTLE;
    for (const gw_wval *v = vals; v->field != GW_W_END && k < 7; v++)
        if (v->field == EOUDP_F_ID || v->field == EOUDP_F_IMPORTANT || v->field == EOUDP_F_TIMESTAMP ||
            v->field == EOUDP_F_SIZE) {
            stamp |= v->field == EOUDP_F_TIMESTAMP;
            if (v->field == EOUDP_F_SIZE) /* a size that lies */
                h[1] = *v;
            else
                h[k++] = *v;
        }
    if (!stamp) {
        h[k++] = (gw_wval)GW_WU(EOUDP_F_TIMESTAMP, gen == EOUDP_GEN_RFC ? now_seconds_f32_bits()
                                                      : eoudp_now_bits(gen == EOUDP_GEN_F64 ? 8 : 4));
    }
    h[k].field = GW_W_END;
    size_t hn;
    if (!gw_layout_write(headers[gen], big, h, out, hl, &hn) || hn != hl)
        return 0;
    return hl + n;
}

static void eoudp_decode(void *conv, const gw_pdu_info *pi, const uint8_t *d, size_t len,
                         const gw_sink *sink)
{
    eoudp_ctx xs, *x = &xs;
    eoudp_conv *c = conv;
    gw_pdu_begin(&x->p, &gw_eoudp_protocol, sink, pi, d, len);
    x->conv = c;
    x->copy = false;
    memset(x->seen, 0, sizeof x->seen);
    x->p.rec = (gw_record){x->seen, x->val, x->text};
    x->p.hooks = &hooks;

    header_choice h = choose(c->opt, c->gen, c->order, d, len);
    const geometry *g = &geo[h.gen]; /* (choose() made geo[] and by_code[] ready) */
    size_t hl = g->len;
    uint8_t code = len ? d[0] : 0;
    const command *cmd = command_in(c->opt, code);
    gw_emit_gen_u(&x->p.e, EOUDP_F_GENERATION, 0, (uint64_t)h.gen);
    gw_emit_gen_u(&x->p.e, EOUDP_F_HEADER_ORDER, 0, (uint64_t)h.order);
    gw_emit_gen_u(&x->p.e, EOUDP_F_BASIS, 0, (uint64_t)h.basis);
    gw_summary_add(&x->p.sum, "%s", cmd ? cmd->name : "Unknown command");
    if (len > EOUDP_MTU) /* "It also take in account the (MTU) ... (1500 bytes)" */
        gw_emit_finding(&x->p.e, EOUDP_E_OVER_MTU, 0, len, "A %zu-byte datagram (the MTU is 1500)", len);
    if (len < hl) {
        if (len)
            gw_emit_u(&x->p.e, EOUDP_F_COMMAND, 0, 1, code);
        x->p.c.off = len ? 1 : 0;
        gw_pdu_truncated(&x->p, "Header");
        gw_pdu_finish(&x->p);
        return;
    }
    if (h.consistent) {
        c->gen = (uint8_t)h.gen;
        c->order = (uint8_t)h.order;
    }
    if (h.basis != BASIS_SIZE && h.basis != BASIS_FORCED)
        gw_emit_finding(&x->p.e, EOUDP_E_GEN_FORCED, 0, hl, "%s generation taken from %s",
                        h.consistent ? "Several generations fit:" : "No generation fits:",
                        gw_value_name_of(basis_names, (uint32_t)h.basis));

    /* header */
    x->gen = h.gen;
    x->geo = g;
    uint64_t id, size;
    int flag; /* the important byte: -1 where the header has none */
    if (!sink->item) {
        read_header_quiet(x, h.order == EOUDP_BIG, &id, &size, &flag);
    } else {
        read_header(x, headers[h.gen], h.order == EOUDP_BIG);
        id = x->val[EOUDP_F_ID];
        size = x->val[EOUDP_F_SIZE];
        flag = x->seen[EOUDP_F_IMPORTANT] ? x->val[EOUDP_F_IMPORTANT] != 0 : -1;
    }
    unsigned n = g->size[EOUDP_F_SIZE];
    size_t id_off = (size_t)g->off[EOUDP_F_ID], so = (size_t)g->off[EOUDP_F_SIZE];
    bool important = flag >= 0 ? flag : implied_important(h.gen, code);
    gw_summary_add(&x->p.sum, " #%llu%s", (unsigned long long)id, important ? " (important)" : "");
    if (!h.consistent)
        gw_emit_finding(&x->p.e, EOUDP_E_SIZE_MISMATCH, so, n, "Size %llu, but %zu payload %s",
                        (unsigned long long)size, len - hl, gw_bytes(len - hl));

    if (!c->begun && code != 0x81)
        gw_emit_finding(&x->p.e, EOUDP_E_CONNECT_NOT_FIRST, 0, 1,
                        "The conversation begins with 0x%02x (or the capture began after its connect)",
                        code);
    c->begun = true;
    check_side(x, code);
    int dir = pi->dir ? 1 : 0;
    /* profile spec: the text's "MUST get an acknowledge" list, whatever the
       header's flag says */
    bool awaits_ack = important || (c->opt[EOUDP_OPT_PROFILE] == GW_PROFILE_SPEC &&
                                    implied_important(EOUDP_GEN_RFC, code));
    const pending *first = awaits_ack ? find_pending(c, dir, id) : NULL;
    bool resend = first && !(c->have_id[dir] && c->last_id[dir] == id); /* not a copy */
    if (resend) {
        gw_emit_gen_u(&x->p.e, EOUDP_F_RESEND_OF, id_off, first->frame);
        gw_emit_finding(&x->p.e, EOUDP_E_RESENT, id_off, 8, "Id %llu sent again (first in frame %u%s)",
                        (unsigned long long)id, first->frame,
                        first->acked ? ", already acknowledged" : "");
    }
    track_id(x, id, id_off, 8, resend);
    if (awaits_ack && !first)
        wait_for_ack(x, id, code, id_off);
    if (code == 0x81) {
        /* "a retried connect gets a new id but keeps its first timestamp"
           (the R-Type client): a retry of a connect already answered, sent
           before the answer reached the client, is answered too */
        unsigned tn;
        size_t to = field_off(h.gen, EOUDP_F_TIMESTAMP, &tn); /* (seldom: a connect) */
        bool retry = resend || (c->connect_frame && tn == c->connect_time_n && tn <= sizeof c->connect_time &&
                                memcmp(d + to, c->connect_time, tn) == 0);
        if (!(retry && c->connect_answered)) {
            c->connect_frame = pi->frame;
            c->connect_t = pi->time_ns;
            c->connect_dir = (int8_t)pi->dir;
            c->connect_answered = false;
            c->connect_time_n = tn <= sizeof c->connect_time ? tn : 0;
            memcpy(c->connect_time, d + to, c->connect_time_n);
        }
    }
    if ((code == 0x02 || code == 0x03) && c->connect_frame) {
        gw_emit_gen_u(&x->p.e, EOUDP_F_CONNECT_FRAME, 0, c->connect_frame);
        c->connect_answered = true;
    }
    if (code == 0x82) {
        c->disconnect_frame = pi->frame;
        c->disconnect_t = pi->time_ns;
        c->disconnect_dir = (int8_t)pi->dir;
    }
    if (code == 0x11) /* the text's answer to a disconnect */
        c->disconnect_frame = 0;

    /* payload: what the datagram has (the size field may lie) */
    x->p.c.off = hl;
    payload(x, cmd, code);
    count_packet(x, code);
    gw_pdu_trailing(&x->p, EOUDP_F_TRAILING, EOUDP_E_TRAILING, "%zu byte%s after the command's fields");
    gw_pdu_finish(&x->p);
}

/* the header's timestamp is a time: seconds or milliseconds since the Unix
   epoch (the text says seconds, the implementation sends milliseconds),
   from 1973 on; zero (an all-zero header) or noise is not */
static bool plausible_time(int gen, int order, const uint8_t *d)
{
    unsigned size;
    size_t off = field_off(gen, EOUDP_F_TIMESTAMP, &size);
    double t = gw_float_bits(gw_get_uint(d + off, size, order == EOUDP_BIG), size);
    return isfinite(t) && t >= 1e8 && t <= 1e14;
}

/* a datagram whose size field fits some generation in some byte order, with
   a known command and a plausible timestamp in that generation and order */
static bool eoudp_heuristic(const int *opt, int transport, const uint8_t *d, size_t len)
{
    unsigned m;
    if (transport != GW_TRANSPORT_UDP || len < 21 || !command_of(opt, d[0]) || !(m = fitting(d, len)))
        return false;
    for (size_t g = 0; g < N_GENS; g++)
        for (int o = EOUDP_BIG; o <= EOUDP_LITTLE; o++)
            if ((ORDERS(m, g) & (1u << o)) && plausible_time(gens[g], o, d))
                return true;
    return false;
}

/* pcaptool stats and the statistics tree: acknowledge times */
static const int measures[] = {EOUDP_F_ACK_TIME};

const gw_protocol gw_eoudp_protocol = {
    .name = "eoudp",
    .short_name = "EOUDP",
    .long_name = "Exodia game engine On UDP",
    .transports = GW_TRANSPORT_UDP,
    .default_port = EOUDP_PORT,
    .fields = fields,
    .n_fields = EOUDP_F_COUNT,
    .findings = findings,
    .n_findings = EOUDP_E_COUNT,
    .truncated_finding = EOUDP_E_TRUNCATED,
    .rest_field = EOUDP_F_PAYLOAD,
    .rules = rules,
    .n_rules = (int)(sizeof rules / sizeof rules[0]),
    .type_field = EOUDP_F_COMMAND,
    .measures = measures,
    .n_measures = (int)(sizeof measures / sizeof measures[0]),
    .options = options,
    .n_options = (int)(sizeof options / sizeof options[0]),
    .conv_size = sizeof(eoudp_conv),
    .conv_init = conv_init,
    .conv_free = conv_free,
    .conv_end = conv_end,
    .decode = eoudp_decode,
    .heuristic = eoudp_heuristic,
    .build = eoudp_build,
};
