/* dnp.c - the DNP decoder: one datagram is one command.
 *
 * Layouts follow the reference implementation (wire-facts 1); the
 * published text's link-update layout is decoded too and reported as a
 * difference. Conversation state carries what later commands need: value
 * types per link id (link updates carry none), long-message parts, and the
 * reliable numbering per direction for acknowledgement matching.
 */
#include "dnp/dnp.h"
#include "core/gw_layout.h"

#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>


/* ---- tables ---------------------------------------------------------------- */

static const gw_value_name command_names[] = {
    {0, "Connection request", 0}, {1, "Connection ack", 0}, {2, "Connection close", 0},
    {3, "Message", 0}, {4, "Reliable message", 0}, {5, "Link state", 0},
    {6, "Reliable ack", 0}, {7, "Link up", 0}, {8, "Link down", 0}, {9, "Link update", 0},
    {10, "Reliable message (long)", 0}, {11, "Link state (long)", 0}, {0, NULL, 0}};

static const gw_value_name protocol_names[] = {{0, "DNP1", 0}, {0, NULL, 0}};

static const gw_value_name result_names[] = {
    {0, "Accepted", 0}, {1, "Rejected", 0}, {2, "No common protocol", 0}, {0, NULL, 0}};

static const gw_value_name ack_code_names[] = {
    {0, "Success", 0}, {1, "Failed (resend)", 0}, {0, NULL, 0}};

static const gw_value_name layout_names[] = {
    {DNP_LAYOUT_AUTO, "Automatic", 0},
    {DNP_LAYOUT_REFERENCE, "Reference (u8 counts, value index, no type)", 0},
    {DNP_LAYOUT_SPEC, "Published text (u16 counts, type byte per value)", 0},
    {0, NULL, 0}};

/* The state value types (wire-facts 1): code, name, kind (VK_SINT, VK_UINT,
   VK_FLOAT: that many components of that many bytes; VK_STRING, VK_DATA:
   a u16 length and the bytes), bytes per component, components. Each
   type's layout (value_of_type) is made from its row. */
#define DNP_VALUE_TYPES(X) \
    X(0, "SInt8", VK_SINT, 1, 1) \
    X(1, "UInt8", VK_UINT, 1, 1) \
    X(2, "SInt16", VK_SINT, 2, 1) \
    X(3, "UInt16", VK_UINT, 2, 1) \
    X(4, "SInt32", VK_SINT, 4, 1) \
    X(5, "UInt32", VK_UINT, 4, 1) \
    X(6, "SInt64", VK_SINT, 8, 1) \
    X(7, "UInt64", VK_UINT, 8, 1) \
    X(8, "Float16", VK_FLOAT, 2, 1) \
    X(9, "Float32", VK_FLOAT, 4, 1) \
    X(10, "Float64", VK_FLOAT, 8, 1) \
    X(11, "String", VK_STRING, 1, 1) \
    X(12, "Data", VK_DATA, 1, 1) \
    X(13, "Point2S8", VK_SINT, 1, 2) \
    X(14, "Point2U8", VK_UINT, 1, 2) \
    X(15, "Point2S16", VK_SINT, 2, 2) \
    X(16, "Point2U16", VK_UINT, 2, 2) \
    X(17, "Point2S32", VK_SINT, 4, 2) \
    X(18, "Point2U32", VK_UINT, 4, 2) \
    X(19, "Point2S64", VK_SINT, 8, 2) \
    X(20, "Point2U64", VK_UINT, 8, 2) \
    X(21, "Point3S8", VK_SINT, 1, 3) \
    X(22, "Point3U8", VK_UINT, 1, 3) \
    X(23, "Point3S16", VK_SINT, 2, 3) \
    X(24, "Point3U16", VK_UINT, 2, 3) \
    X(25, "Point3S32", VK_SINT, 4, 3) \
    X(26, "Point3U32", VK_UINT, 4, 3) \
    X(27, "Point3S64", VK_SINT, 8, 3) \
    X(28, "Point3U64", VK_UINT, 8, 3) \
    X(29, "Vector2F16", VK_FLOAT, 2, 2) \
    X(30, "Vector2F32", VK_FLOAT, 4, 2) \
    X(31, "Vector2F64", VK_FLOAT, 8, 2) \
    X(32, "Vector3F16", VK_FLOAT, 2, 3) \
    X(33, "Vector3F32", VK_FLOAT, 4, 3) \
    X(34, "Vector3F64", VK_FLOAT, 8, 3) \
    X(35, "QuaternionF16", VK_FLOAT, 2, 4) \
    X(36, "QuaternionF32", VK_FLOAT, 4, 4) \
    X(37, "QuaternionF64", VK_FLOAT, 8, 4)

#define AS_NAME(code, name, kind, width, ncomp) {code, name, 0},
#define DNP_N_TYPES 38
static const gw_value_name type_names[] = {DNP_VALUE_TYPES(AS_NAME) {0, NULL, 0}};

static const gw_field fields[DNP_F_COUNT] = {DNP_FIELDS(GW_FIELD, GW_LINK)};

static const gw_finding_def findings[DNP_E_COUNT] = {DNP_FINDINGS(GW_FINDING)};

/* the behaviour rules among the findings (pcaptool validate --rules) */
static const gw_rule rules[] = {
    {DNP_E_NOT_ACCEPTED, "DNP text, Connection Request: \"This is the only command accepted by the server from an "
                         "unconnected client\""},
    {DNP_E_LINK_REUSED, "DNP text, Link State: \"Once assigned the LinkId can not be reused until it has been taken "
                        "down\""},
    {DNP_E_CONNECT_RESEND_EARLY, "DNP text, Connection Request: \"If the client does not receive a Connect Acknowledge "
                                 "command until Connect Resend Interval (recommended 1s) after sending the last "
                                 "request the command has to be resend\""},
    {DNP_E_CONNECT_RESEND_LATE, "DNP text, Connection Request: \"If Connect Timeout (recommended 5s) elapsed since the "
                                "first request send the client has to stop resending the connect request\""},
    {DNP_E_RESEND_AFTER_ACK, "DNP text, Reliable Communication: the sender resends \"until the command is "
                             "acknowledged or ReliableTimeout is reached\""},
    {DNP_E_ACCEPTED_AGAIN, "DNP text, Connection Request: \"The server has to ignore connect requests for an already "
                           "connected client\""},
    {DNP_E_NOT_OFFERED, "DNP text, Connection Ack: \"The server checks if the client supports at least one protocol "
                        "the server supports too\" (Protocol: \"Protocol selected by the server\")"},
    {DNP_E_PROTOCOL_IN_REJECTION, "DNP text, Connection Ack: Protocol \"is only present if Result Code has the value 0\""},
    {DNP_E_SEQ_FIRST, "DNP text, Reliable Communication: NextSendCommand \"has to be set to 0 upon every accepted "
                      "connection request\""},
    {DNP_E_SEQ_SKIPPED, "DNP text, Reliable Communication: \"The sender assigns the next NextSendCommand ... It then "
                        "increments NextSendCommand by one\""},
    {DNP_E_SEQ_OUTSIDE_WINDOW, "DNP text, Reliable Communication: \"ReliableWindowSize is 10 ... If the command is not "
                               "accepted it has to be discarded\""},
    {DNP_E_SEQ_65535, "wire-facts 1.5: \"The reference wraps modulo 65535 (0xFFFF is never used)\" (profile reference)"},
    {DNP_E_ACK_LATE, "DNP text, Reliable Communication: \"reliable commands can be delayed for up to ReliableTimeout "
                     "(recommended 3s)\""},
    {DNP_E_ACK_MISSING, "DNP text, Reliable Communication: \"Every valid received command has to be acknowledged\""},
    {DNP_E_RESEND_EARLY, "DNP text, Reliable Communication: \"If a reliable command is not acknowledged before "
                         "ReliableResendInterval (recommended 0.5s) the sender has to resend the same command\""},
    {DNP_E_RESEND_MISSING, "DNP text, Reliable Communication: \"This is repeated every ReliableResendInterval until the "
                           "command is acknowledged or ReliableTimeout is reached\""},
    {DNP_E_ANSWER_BEFORE_ACK, "wire-facts 1.9: \"A link state answered: the receiver sends the reliable ack (6), then "
                              "link up (7), or link down (8) to refuse\"; the DNP text orders neither (the reference's habit: a note)"},
    {DNP_E_ANSWER_UNEXPECTED, "DNP text, Link up: \"Used to accept a Link State command\"; Network States: \"The receiver "
                              "has to send back a Link Up command if the link is accepted\""},
    {DNP_E_LINK_UNANSWERED, "DNP text, Network States: \"The receiver has to send back a Link Up command if the link is "
                            "accepted or a Link Down command to reject it\""},
    {DNP_E_UPDATE_NOT_UP, "DNP text, Link up: \"Only after receiving a Link Up command the client is allowed to send "
                          "state updates\""},
    {DNP_E_UPDATE_READ_ONLY, "DNP text, Link update: \"Client or server is only allowed to send a state update if it has "
                             "a read-write state\""},
    {DNP_E_TYPE_MISMATCH, "DNP text, Network States: \"the same count of values with the same data types\""},
    {DNP_E_INDEX_RANGE, "DNP text, Network States: \"the same count of values with the same data types\" (the "
                        "reference's value index)"},
    {DNP_E_AFTER_CLOSE, "DNP text, Close Connection: \"Send by the client before closing connection to server. Send by "
                        "server before disconnecting client\""},
    {DNP_E_SPEC_LAYOUT, "wire-facts 1.10: link update, reference: \"link_count:u8 ... no type byte\" (profile reference)"},
    {DNP_E_REFERENCE_LAYOUT, "DNP text, Link update: \"UInt16 LinkCount\", \"UInt16 ValueCount\", ValueData with its "
                             "type (profile spec)"},
    {DNP_E_NOT_IN_TEXT, "DNP text, Commands: codes 0 to 9 only; wire-facts 1.2: 10 and 11 \"Not in the spec text\" "
                        "(profile spec)"},
    {DNP_E_DIV_LAYOUT, "wire-facts 1.10: link update \"reference: ... spec text: LinkCount:u16 ...\" (reported once "
                       "under profiles either and reference; the text's layout too under either)"},
    {DNP_E_DIV_LONG, "wire-facts 1.2: commands 10 and 11 \"Not in the spec text\" (reported once under profiles "
                     "either and reference)"},
    {DNP_E_DIV_WRAP, "wire-facts 1.5: \"The reference wraps modulo 65535 ...; the spec text says 65536\" (reported once "
                     "under profiles either and reference; 65535 too under either)"},
};

static const gw_choice layout_choices[] = {
    {DNP_LAYOUT_AUTO, "auto", "Recognise from the bytes (reference when both fit)"},
    {DNP_LAYOUT_REFERENCE, "reference", "Reference implementation (u8 counts, value index)"},
    {DNP_LAYOUT_SPEC, "spec", "Published text (u16 counts, type byte per value)"},
    {0, NULL, NULL}};

static const gw_option options[] = {
    [DNP_OPT_UPDATE_LAYOUT] = {"update_layout", "Link update layout",
     "Layout of link updates (command 9): the reference implementation's, the published text's, "
     "or recognised from the bytes",
     layout_choices, DNP_LAYOUT_AUTO},
    [DNP_OPT_PROFILE] = {"profile", "Conformance profile",
     "Judge by what the reference implementation (wraps at 65535, u8 link updates, long commands) or "
     "the published text allows (default: either, noting which), or strictly by one of them", gw_profile_choices, GW_PROFILE_EITHER},
};

/* ---- conversation state ---------------------------------------------------- */

enum link_answer { ANSWER_NONE, ANSWER_UP, ANSWER_DOWN };

typedef struct {
    uint32_t frame;  /* the link state that gave the types */
    uint16_t id;     /* its link id (dir: its sender) */
    int64_t time_ns, acked_ns;
    uint16_t seq;    /* its reliable number (the completing part of a long one) */
    uint8_t dir;     /* its sender */
    uint8_t flags;
    bool acked;
    uint8_t answer;  /* enum link_answer */
    uint16_t count;
    uint8_t *types;  /* value type per index: after the link in its own
                        allocation, or in its slot (link_new) */
} dnp_link;

/* The conversation's state starts at a cache line (conv_at), and so do
   the parts of it one packet reads together */
#define CONV_LINE GW_LINE

/* a link kept in the conversation's own storage (dnp_conv.link_slots):
   one whose types fit, while a slot is free; a slot fills a cache line */
#define LINK_INLINE (CONV_LINE - sizeof(dnp_link))
#define LINK_SLOTS 8
typedef struct {
    _Alignas(CONV_LINE) dnp_link l;
    uint8_t types[LINK_INLINE];
} dnp_link_slot;

#define HISTORY 64 /* reliable commands remembered per direction */

/* an entry of a direction's history; only the newest n_used are ever
   read (the others are not cleared: each is written whole when taken) */
typedef struct {
    uint16_t seq;
    uint8_t used, acked;
    bool resend_noted;    /* dnp.resend.missing reported */
    bool resend_asked;    /* an ack with result 1 came since its latest transmission */
    bool discarded;       /* outside the receiver's window when it last came */
    int32_t link_id;      /* a link state's link, or -1 */
    uint32_t first_frame;
    int64_t first_time_ns, last_time_ns; /* first and latest transmission */
    int64_t acked_ns;
} dnp_sent;

typedef struct {
    uint16_t seq;
    size_t off, len;         /* piece in data */
    size_t voff, vlen;       /* values piece in data (command 11) */
} dnp_part;

typedef struct {
    bool active, have_last;
    uint8_t command;         /* 10 or 11 */
    uint16_t first_seq, last_seq;
    uint32_t first_frame;
    uint16_t link_id;
    uint8_t flags;
    GArray *parts;           /* dnp_part */
    GByteArray *data;
    GByteArray *out, *vout;  /* assembled message / values */
    size_t cost;             /* what the message under way holds: its bytes and
                                a part record for each part (PART_COST) */
    size_t peak_len[4];      /* the longest each buffer was since it was made
                                (ARR_*): the arrays never shrink until remade */
    size_t peak_cost;        /* array_cost() of the four peak_len, summed */
} dnp_long;

enum { ARR_PARTS, ARR_DATA, ARR_OUT, ARR_VOUT };

typedef struct {
    bool started;
    bool fresh;              /* no reliable number since the accepted connection */
    bool first_not_zero;     /* dnp.seq.first_not_zero reported: 0 is not also skipped */
    uint16_t next;
    uint8_t n_used;          /* entries of sent[] in use: the newest n_used slots */
    uint8_t run;             /* the newest `run` of them hold consecutive numbers
                                (the newest the highest, in 16 bits): find_sent
                                looks these up without a walk */
    unsigned sent_pos;
    dnp_long lng;
    dnp_sent sent[HISTORY];  /* last: conv_init clears what comes before */
} dnp_direction;

enum conn_state { CONN_NONE, CONN_REQUESTED, CONN_OPEN, CONN_REFUSED, CONN_CLOSED };

#define OFFERED_MAX 16

/* link ids below LINKS_DIRECT kept in a slot are found by id
   (dnp_conv.by_id), not in the table: BY_ID_NONE, BY_ID_TABLE (one in an
   allocation of its own) or 1 + its slot */
#define LINKS_DIRECT 8
enum { BY_ID_NONE = 0, BY_ID_TABLE = 0xff };

typedef struct {
    /* read or written by every PDU (dnp_decode, check_connection,
       check_resends, conv_held): together in the first cache line */
    _Alignas(CONV_LINE) int64_t last_ns;
    int64_t resends_checked_ns; /* when check_resends last looked */
    /* at most the latest transmission time of every reliable command that
       check_resends may still report (INT64_MAX: none): it looks only once
       DNP_RESEND_MISSING_NS have passed since */
    int64_t resend_due_ns;
    size_t held;             /* what conv_held says: CONV_FIXED_HEAP, links_bytes and
                                both directions' lng.peak_cost, kept as they change */
    const int *opt;          /* the options (DNP_OPT_*) */
    uint8_t state;           /* enum conn_state */
    uint8_t client_dir;
    bool midway;             /* the capture began inside the conversation */
    bool flagged_state;      /* not_accepted / not_last reported for this connection or close */
    bool noted_layout;       /* divergence reported (the others below) */
    uint8_t n_pending;       /* entries of the histories in use that check_resends
                                may still report (sent_pending) */
    uint8_t by_id[2][LINKS_DIRECT]; /* by sender and link id, the ids below LINKS_DIRECT */
    /* the rest is read by some commands only */
    bool noted_spec_layout, noted_long, noted_wrap;
    uint8_t closer_dir;
    bool links_full_noted;
    uint8_t links_bits;      /* the links table has 1 << links_bits slots */
    uint8_t slots_used;      /* bit i: link_slots[i] holds a link (made or kept) */
    uint8_t n_offered;       /* OFFERED_MAX + 1: too many to check */
    dnp_link **links;        /* by sender and link id, the others: link_of() (NULL: none yet) */
    uint32_t links_bytes;    /* what they hold (LINK_COST), at most DNP_LINKS_MAX */
    uint32_t links_mul;      /* the table's hash multiplier (odd, drawn for it) */
    uint32_t links_used;     /* links in the table */
    uint32_t links_heap;     /* links in their own allocation (not in link_slots) */
    uint16_t offered[OFFERED_MAX];
    int64_t close_ns;
    int64_t request_first_ns, request_last_ns; /* the connection requests of this connection */
    dnp_direction dir[2];    /* conv_init clears each up to its history; nothing
                                after it is cleared (read only where in use) */
    dnp_link_slot link_slots[LINK_SLOTS];
} dnp_conv;

/* bytes of long messages under reassembly (their cost) in all
   conversations of this thread (one capture: pcaptool reads each file in
   one thread; Wireshark dissects in one) */
static _Thread_local size_t long_held;

/* What the state holds on the heap, as the bounds count it, allocator
   overhead included (16 bytes an allocation with glibc):
   - a link: its allocation, and its share of the links table (counted as
     GLib's table took it, a key, a value and a hash per slot, a quarter of
     the slots used: 80 bytes; links_grow keeps at least an eighth of its
     pointers in use, 64 bytes a link at most);
   - a part of a long message: its record in the parts array, besides its
     bytes in the data array;
   - an array: what it allocated for the most it held since it was made
     (GLib never shrinks them), array_cost();
   - the links table and the eight arrays themselves.
   A link in the conversation's own slots, or kept by its id (by_id) rather
   than in the table, is counted all the same. */
#define ALLOC_OVERHEAD 16
#define LINK_COST(count) (sizeof(dnp_link) + (count) + ALLOC_OVERHEAD + 4 * (8 + 8 + 4))
#define PART_COST sizeof(dnp_part)
#define CONV_FIXED_HEAP 1024

/* an array that held at most n bytes: GLib allocates a power of two (16
   at least); glibc serves 128 KiB and more by mmap, a page more with its
   header */
static size_t array_cost(size_t n)
{
    size_t p = 16;
    while (p < n)
        p <<= 1;
    return !n ? 0 : p + (p >= (128u << 10) ? 4096 : ALLOC_OVERHEAD);
}

/* a long message's arrays: made by its first part (and again after
   long_reset gave them back), so that a conversation without long messages
   allocates none */
static void long_ready(dnp_long *l)
{
    if (l->parts)
        return;
    l->parts = g_array_new(FALSE, FALSE, sizeof(dnp_part));
    l->data = g_byte_array_new();
    l->out = g_byte_array_new();
    l->vout = g_byte_array_new();
}

static void long_free(dnp_long *l)
{
    if (!l->parts)
        return;
    g_array_free(l->parts, TRUE);
    g_byte_array_free(l->data, TRUE);
    g_byte_array_free(l->out, TRUE);
    g_byte_array_free(l->vout, TRUE);
    l->parts = NULL;
    l->data = l->out = l->vout = NULL;
}

/* forget the message under way; buffers that grew past 64 KiB are given
   back, so that an idle conversation holds little */
static void long_reset(dnp_conv *c, dnp_long *l)
{
    l->active = l->have_last = false;
    long_held -= l->cost;
    l->cost = 0;
    if (!l->parts)
        return;
    g_array_set_size(l->parts, 0);
    g_byte_array_set_size(l->data, 0);
    if (l->peak_len[ARR_PARTS] + l->peak_len[ARR_DATA] > (64u << 10)) {
        long_free(l); /* made again by the next part */
        memset(l->peak_len, 0, sizeof l->peak_len);
        c->held -= l->peak_cost;
        l->peak_cost = 0;
    }
}

static void long_grew(dnp_conv *c, dnp_long *l, int arr, size_t bytes)
{
    if (bytes > l->peak_len[arr]) {
        size_t more = array_cost(bytes) - array_cost(l->peak_len[arr]);
        l->peak_cost += more;
        c->held += more;
        l->peak_len[arr] = bytes;
    }
}

/* ---- the links table: open addressing, linear probing, at most half full
   and (past 16 slots) at least an eighth; the slot of a key by a
   multiplier drawn for each table (links_multiplier), so that ids chosen
   to collide cannot pile up. Which slot a link has changes nothing that is reported. */

#define LINKS_MIN_BITS 4

/* a table's multiplier: odd, another for each table and each run (a
   capture made to collide cannot know it): splitmix64 over a counter of
   the thread's, started from the clock and where the thread's storage
   is (no allocation, unlike GLib's generator) */
static uint32_t links_multiplier(void)
{
    static _Thread_local uint64_t state;
    if (!state)
        state = (uint64_t)g_get_monotonic_time() ^ (uint64_t)(uintptr_t)&state;
    uint64_t z = (state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return (uint32_t)(z ^ (z >> 31)) | 1u;
}

static uint32_t link_slot(const dnp_conv *c, unsigned dir, uint16_t id)
{
    uint32_t key = (uint32_t)dir << 16 | id;
    return (key * c->links_mul) >> (32 - c->links_bits);
}

/* the slot holding link (dir, id), or of the empty slot where it goes */
static uint32_t links_find(const dnp_conv *c, unsigned dir, uint16_t id)
{
    uint32_t mask = (1u << c->links_bits) - 1, i = link_slot(c, dir, id);
    for (const dnp_link *l; (l = c->links[i]); i = (i + 1) & mask)
        if (l->id == id && l->dir == dir)
            break;
    return i;
}

/* the table remade with 1 << bits slots */
static void links_resize(dnp_conv *c, uint8_t bits)
{
    dnp_link **old = c->links;
    uint32_t n = old ? 1u << c->links_bits : 0;
    c->links = g_new0(dnp_link *, (size_t)1 << bits);
    c->links_bits = bits;
    for (uint32_t i = 0; i < n; i++)
        if (old[i])
            c->links[links_find(c, old[i]->dir, old[i]->id)] = old[i];
    g_free(old);
}

/* a link of count values, its types to be read: in a free slot of the
   conversation's when they fit, else in an allocation of its own */
static dnp_link *link_new(dnp_conv *c, uint16_t count)
{
    dnp_link *l;
    uint8_t free_slots = (uint8_t)~c->slots_used;
    if (count <= LINK_INLINE && free_slots) {
        unsigned i = (unsigned)__builtin_ctz(free_slots);
        c->slots_used |= (uint8_t)(1u << i);
        l = &c->link_slots[i].l;
        l->types = c->link_slots[i].types;
    } else {
        l = g_malloc(sizeof(dnp_link) + count);
        l->types = (uint8_t *)(l + 1);
        c->links_heap++;
    }
    l->count = count;
    return l;
}

/* the slot holding l, or LINK_SLOTS when l has an allocation of its own */
static unsigned slot_of(const dnp_conv *c, const dnp_link *l)
{
    uintptr_t at = (uintptr_t)l - (uintptr_t)c->link_slots;
    return at < sizeof c->link_slots ? (unsigned)(at / sizeof(dnp_link_slot)) : LINK_SLOTS;
}

/* the link a by_id entry names when it is in a slot, else NULL */
static dnp_link *slot_link(const dnp_conv *c, uint8_t where)
{
    return where != BY_ID_NONE && where != BY_ID_TABLE ? (dnp_link *)&c->link_slots[where - 1].l : NULL;
}

static void link_free(dnp_conv *c, dnp_link *l)
{
    if (!l)
        return;
    unsigned slot = slot_of(c, l);
    if (slot < LINK_SLOTS) {
        c->slots_used &= (uint8_t)~(1u << slot);
    } else {
        g_free(l);
        c->links_heap--;
    }
}

static void links_clear(dnp_conv *c)
{
    memset(c->by_id, 0, sizeof c->by_id); /* (the links it finds are in slots) */
    c->slots_used = 0; /* (a link made but not yet kept is made after a restart, never across one) */
    if (!c->links)
        return;
    for (uint32_t i = 0; c->links_heap && i < 1u << c->links_bits; i++)
        link_free(c, c->links[i]);
    g_free(c->links);
    c->links = NULL;
    c->links_used = c->links_bits = 0;
}

static void links_add(dnp_conv *c, dnp_link *link)
{
    if (link->id < LINKS_DIRECT) {
        unsigned slot = slot_of(c, link);
        c->by_id[link->dir][link->id] = slot < LINK_SLOTS ? (uint8_t)(slot + 1) : BY_ID_TABLE;
        if (slot < LINK_SLOTS)
            return;
    }
    if (!c->links) {
        c->links_mul = links_multiplier();
        links_resize(c, LINKS_MIN_BITS);
    } else if ((c->links_used + 1) * 2 > 1u << c->links_bits) {
        links_resize(c, c->links_bits + 1);
    }
    c->links[links_find(c, link->dir, link->id)] = link;
    c->links_used++;
}

/* remove and free the table's link in slot i: the links after it in its
   run move back where their probe would find them */
static void links_remove(dnp_conv *c, uint32_t i)
{
    uint32_t mask = (1u << c->links_bits) - 1;
    link_free(c, c->links[i]);
    c->links[i] = NULL;
    for (uint32_t j = (i + 1) & mask; c->links[j]; j = (j + 1) & mask) {
        uint32_t home = link_slot(c, c->links[j]->dir, c->links[j]->id);
        /* stays unless its home is not cyclically within (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            c->links[i] = c->links[j];
            c->links[j] = NULL;
            i = j;
        }
    }
    c->links_used--;
    if (c->links_bits > LINKS_MIN_BITS && c->links_used * 8 < 1u << c->links_bits)
        links_resize(c, c->links_bits - 1);
}

/* The state in the conv_size bytes the caller gave (gw_protocol.conv_size):
   from their first cache line boundary, wherever the allocator put them */
static dnp_conv *conv_at(const void *p)
{
    return gw_line_up(p);
}

static void conv_init(void *p, const int *opt)
{
    dnp_conv *c = conv_at(p);
    /* all but the histories, which are read only where in use */
    memset(c, 0, offsetof(dnp_conv, dir));
    for (int d = 0; d < 2; d++)
        memset(&c->dir[d], 0, offsetof(dnp_direction, sent));
    c->opt = opt;
    c->held = CONV_FIXED_HEAP;
    c->resend_due_ns = INT64_MAX;
}

static void conv_free(void *p)
{
    dnp_conv *c = conv_at(p);
    links_clear(c);
    for (int d = 0; d < 2; d++) {
        dnp_long *l = &c->dir[d].lng;
        long_held -= l->cost;
        long_free(l);
    }
}

static size_t conv_held(const void *p)
{
    return conv_at(p)->held;
}

/* a new connection: numbering restarts at 0 and old links are gone */
static void conv_restart(dnp_conv *c)
{
    links_clear(c);
    c->held -= c->links_bytes;
    c->links_bytes = 0;
    c->resend_due_ns = INT64_MAX;
    c->n_pending = 0; /* (the histories are emptied below) */
    for (int d = 0; d < 2; d++) {
        dnp_direction *dd = &c->dir[d];
        dd->started = dd->fresh = true;
        dd->first_not_zero = false;
        dd->next = 0;
        dd->n_used = dd->run = 0; /* the history's entries are not read again until written */
        long_reset(c, &dd->lng);
    }
}

/* ---- decoding helpers ---------------------------------------------------- */

typedef struct {
    gw_pdu p;
    dnp_conv *conv;
    bool resend;     /* the reliable number was sent before */
    dnp_sent *sent;  /* the reliable command's history entry */
    unsigned n_protocols; /* protocols a connection request offered so far */
    bool connected;  /* a connection request on a connected conversation */
    bool implausible; /* the heuristic's checks failed */
    bool answers;    /* a connection ack answering this conversation's request */
    dnp_link *link;  /* the values a link state described (check_value_count) */
    bool seen[DNP_F_COUNT]; /* what the command's layout read (gw_record) */
    uint64_t val[DNP_F_COUNT];
    gw_span text[DNP_F_COUNT];
    /* a link update's reading (read_update sets them) */
    const dnp_link *cur_link; /* the link its link is (check_link), or NULL */
    bool spec_update; /* in the text's layout */
    bool unknown_link; /* a link with no link state: values not read */
    bool links_said;  /* its link count is in the summary */
    const dnp_link *found[UINT8_MAX]; /* its links, as ref_update_clean found them (a u8 counts them) */
} dnp_ctx;

#define summary_add(x, ...) gw_summary_add(&(x)->p.sum, __VA_ARGS__)

static void label_escape(char *out, size_t outsz, const uint8_t *p, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < outsz; i++) {
        uint8_t ch = p[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')
            out[o++] = (char)ch;
        else
            o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", ch);
    }
    if (o + 5 >= outsz && n)
        o = (size_t)snprintf(out + o, outsz - o, "...") + o;
    out[o < outsz ? o : outsz - 1] = '\0';
}

/* "The sender assigns a LinkId": each side numbers the links it sets up,
   so links are kept by the direction of their link state and the id */
static dnp_link *link_in_table(const dnp_conv *c, unsigned sender_dir, uint32_t id)
{
    return c->links ? c->links[links_find(c, sender_dir, (uint16_t)id)] : NULL;
}

/* (inline: a link update looks up each of its links once or twice) */
static inline __attribute__((always_inline)) dnp_link *link_of(const dnp_conv *c, unsigned sender_dir, uint32_t id)
{
    if (id < LINKS_DIRECT && c->by_id[sender_dir][id] != BY_ID_TABLE)
        return slot_link(c, c->by_id[sender_dir][id]);
    return link_in_table(c, sender_dir, id);
}

/* forget (and free) the link (dir, id), which is kept */
static void link_forget(dnp_conv *c, unsigned dir, uint16_t id)
{
    if (id < LINKS_DIRECT) {
        uint8_t where = c->by_id[dir][id];
        c->by_id[dir][id] = BY_ID_NONE;
        if (where != BY_ID_TABLE) {
            link_free(c, slot_link(c, where));
            return;
        }
    }
    links_remove(c, links_find(c, dir, id));
}

/* a link state (or the completion of a long one) carried by reliable
   command x->sent; a resend leaves the link as its first transmission made it */
static void remember_link(dnp_ctx *x, uint16_t link_id, uint8_t flags, dnp_link *link)
{
    if (!link)
        return;
    unsigned dir = x->p.pi->dir;
    const dnp_link *old = link_of(x->conv, dir, link_id);
    if (x->resend && old && old->seq == x->sent->seq) {
        link_free(x->conv, link);
        return;
    }
    /* "Once assigned the LinkId can not be reused until it has been taken
       down": free again only after a link down */
    if (old && old->answer != ANSWER_DOWN && !(x->resend && old->seq == x->sent->seq))
        gw_emit_finding(&x->p.e, DNP_E_LINK_REUSED, 0, 0,
                        "Link id %u assigned again while its link (frame %u) is %s", link_id, old->frame,
                        old->answer == ANSWER_UP ? "up" : "not taken down");
    size_t size = LINK_COST(link->count);
    if (old) {
        x->conv->links_bytes -= LINK_COST(old->count);
        x->conv->held -= LINK_COST(old->count);
        link_forget(x->conv, dir, link_id);
    }
    if (x->conv->links_bytes + size > DNP_LINKS_MAX) {
        if (!x->conv->links_full_noted)
            gw_emit_finding(&x->p.e, DNP_E_LINKS_NOT_KEPT, 0, 0,
                            "Over %u KiB of link states in this conversation: link %u is not kept",
                            DNP_LINKS_MAX >> 10, link_id);
        x->conv->links_full_noted = true;
        link_free(x->conv, link);
        return;
    }
    x->conv->links_bytes += (uint32_t)size;
    x->conv->held += size;
    link->id = link_id;
    link->time_ns = x->p.pi->time_ns;
    link->seq = x->sent->seq;
    link->dir = (uint8_t)x->p.pi->dir;
    link->flags = flags;
    link->acked = x->sent->acked;
    link->acked_ns = 0;
    link->answer = ANSWER_NONE;
    x->sent->link_id = link_id;
    links_add(x->conv, link);
}

/* ---- reliable numbering --------------------------------------------------- */

/* may check_resends still report history entry s (in use)? Not acknowledged,
   not reported, its latest transmission within the reliable timeout of its
   first. dnp_conv.n_pending counts them: wherever an entry's acked,
   resend_noted or last_time_ns changes, or it is taken or recycled. */
static bool sent_pending(const dnp_sent *s)
{
    return !s->acked && !s->resend_noted && s->last_time_ns - s->first_time_ns < DNP_RELIABLE_TIMEOUT_NS;
}

/* The history entry of reliable number seq, or NULL. A number is in the
   history at most once (track_seq adds only numbers it does not find), in
   the newest n_used slots; the newest `run` of them are consecutive
   numbers, found by their distance from the newest, and only the older
   ones are walked. */
static dnp_sent *find_sent(dnp_direction *d, uint16_t seq)
{
    if (!d->n_used)
        return NULL;
    unsigned newest = (d->sent_pos + HISTORY - 1) % HISTORY;
    unsigned dist = (uint16_t)(d->sent[newest].seq - seq);
    if (dist < d->run)
        return &d->sent[(newest + HISTORY - dist) % HISTORY];
    for (unsigned i = d->run; i < d->n_used; i++) {
        dnp_sent *s = &d->sent[(newest + HISTORY - i) % HISTORY];
        if (s->seq == seq)
            return s;
    }
    return NULL;
}

/* a new history entry for reliable number seq (not in the history); the
   oldest entry's slot once all HISTORY are in use (*recycled), read
   before it is written */
static dnp_sent *add_sent(dnp_direction *d, uint16_t seq, bool *recycled)
{
    *recycled = d->n_used == HISTORY;
    unsigned newest = (d->sent_pos + HISTORY - 1) % HISTORY;
    bool follows = d->n_used && seq == (uint16_t)(d->sent[newest].seq + 1);
    d->run = follows ? (uint8_t)(d->run < HISTORY ? d->run + 1 : HISTORY) : 1;
    if (d->n_used < HISTORY)
        d->n_used++;
    dnp_sent *s = &d->sent[d->sent_pos];
    d->sent_pos = (d->sent_pos + 1) % HISTORY;
    return s;
}


/* where reliable numbers wrap: the reference's 65535 or the text's 65536 */
static unsigned seq_modulo(const dnp_conv *c)
{
    return c->opt[DNP_OPT_PROFILE] == GW_PROFILE_SPEC ? 65536u : DNP_SEQ_MODULO;
}

static uint16_t seq_next(unsigned modulo, uint16_t n)
{
    return (uint16_t)((n + 1u) % modulo);
}

/* how far seq is ahead of base in a numbering that wraps at modulo */
static unsigned seq_ahead(unsigned modulo, uint16_t seq, uint16_t base)
{
    return (seq + modulo - base) % modulo;
}

/* the receiver's next expected number moves over every number it took (sent
   and not discarded as outside its window) */
static void advance_window(const dnp_conv *c, dnp_direction *d)
{
    const dnp_sent *s;
    while ((s = find_sent(d, d->next)) && !s->discarded)
        d->next = seq_next(seq_modulo(c), d->next);
}

/* The number of a reliable command sent in direction x->p.pi->dir; x->sent
   becomes its entry in the direction's history (for a resend, the first
   transmission's). */
static void track_seq(dnp_ctx *x, uint16_t seq, size_t off)
{
    dnp_direction *d = &x->conv->dir[x->p.pi->dir];
    dnp_sent *prev = find_sent(d, seq);
    int profile = x->conv->opt[DNP_OPT_PROFILE];
    bool ref = profile != GW_PROFILE_SPEC; /* the reference's wrap is allowed */
    if (seq == 0xffff && profile == GW_PROFILE_REFERENCE)
        gw_emit_finding(&x->p.e, DNP_E_SEQ_65535, off, 2,
                        "Reliable number 65535 (the reference never uses it)");
    else if (seq == 0xffff && profile == GW_PROFILE_EITHER && !x->conv->noted_wrap) {
        /* the text's wrap at 65536: allowed by the text, so a note */
        x->conv->noted_wrap = true;
        gw_emit_finding(&x->p.e, DNP_E_DIV_WRAP, off, 2,
                        "Reliable number 65535: the text's numbering, which wraps at 65536 (the reference "
                        "wraps from 65534 to 0)");
    }
    if (prev) {
        int64_t since = x->p.pi->time_ns - prev->last_time_ns;
        gw_emit_gen_u(&x->p.e, DNP_F_RESEND_OF, off, prev->first_frame);
        gw_emit_finding(&x->p.e, DNP_E_SEQ_RESEND, off, 2,
                        "Resend of reliable number %u (first sent in frame %u)", seq,
                        prev->first_frame);
        if (since < DNP_RESEND_EARLY_NS && !prev->acked && !prev->resend_asked) /* result 1 asks for it now */
            gw_emit_finding(&x->p.e, DNP_E_RESEND_EARLY, off, 2,
                            "Reliable number %u resent %.3f s after its previous transmission", seq,
                            (double)since / 1e9);
        if (prev->acked && x->p.pi->time_ns - prev->acked_ns > DNP_CLOSE_CROSSING_NS)
            gw_emit_finding(&x->p.e, DNP_E_RESEND_AFTER_ACK, off, 2,
                            "Reliable number %u resent %.3f s after its ack", seq,
                            (double)(x->p.pi->time_ns - prev->acked_ns) / 1e9);
        else if (!prev->acked &&
                 x->p.pi->time_ns - prev->first_time_ns > DNP_RELIABLE_TIMEOUT_NS + DNP_TIMER_SLACK_NS)
            gw_emit_finding(&x->p.e, DNP_E_RESEND_AFTER_TIMEOUT, off, 2,
                            "Reliable number %u resent %.3f s after it was first sent", seq,
                            (double)(x->p.pi->time_ns - prev->first_time_ns) / 1e9);
        bool was_pending = sent_pending(prev);
        prev->last_time_ns = x->p.pi->time_ns;
        x->conv->n_pending = (uint8_t)(x->conv->n_pending + sent_pending(prev) - was_pending);
        if (prev->last_time_ns < x->conv->resend_due_ns)
            x->conv->resend_due_ns = prev->last_time_ns;
        prev->resend_asked = false;
        x->resend = true;
        x->sent = prev;
        /* a number discarded before may be inside the window now */
        if (prev->discarded && seq_ahead(seq_modulo(x->conv), seq, d->next) < DNP_WINDOW) {
            prev->discarded = false;
            advance_window(x->conv, d);
        }
        return;
    }
    if (!d->started) {
        d->started = true;
        d->next = seq;
    }
    if (d->fresh) {
        d->fresh = false;
        /* the receiver still expects 0 (its window does not move to the
           sender's first number): what follows is judged against that */
        d->first_not_zero = seq != 0;
        if (seq != 0)
            gw_emit_finding(&x->p.e, DNP_E_SEQ_FIRST, off, 2,
                            "First reliable number after the accepted connection is %u", seq);
    }
    unsigned ahead = seq_ahead(seq_modulo(x->conv), seq, d->next);
    if (seq == 0xffff && ref)
        ahead = 0;
    if (ahead >= DNP_WINDOW) {
        gw_emit_finding(&x->p.e, DNP_E_SEQ_OUTSIDE_WINDOW, off, 2,
                        "Reliable number %u outside the window [%u, %u)", seq, d->next,
                        (d->next + DNP_WINDOW) % seq_modulo(x->conv));
    } else if (ahead > 0) {
        gw_emit_finding(&x->p.e, DNP_E_SEQ_AHEAD, off, 2,
                        "Reliable number %u arrived before %u", seq, d->next);
    }
    if (ref && seq == 0 && d->next == 0 && find_sent(d, 65534) && !find_sent(d, 65535) &&
        !x->conv->noted_wrap) {
        x->conv->noted_wrap = true;
        gw_emit_finding(&x->p.e, DNP_E_DIV_WRAP, off, 2,
                        "Reliable numbers wrap from 65534 to 0 (the text wraps at 65536)");
    }
    bool recycled;
    dnp_sent *s = add_sent(d, seq, &recycled);
    if (recycled && !s->acked && x->p.pi->time_ns - s->first_time_ns >= DNP_RELIABLE_TIMEOUT_NS)
        gw_emit_finding(&x->p.e, DNP_E_ACK_MISSING, off, 2,
                        "Reliable number %u (frame %u) never acknowledged, %d newer numbers sent since",
                        s->seq, s->first_frame, HISTORY);
    if (recycled && sent_pending(s))
        x->conv->n_pending--;
    *s = (dnp_sent){.seq = seq, .used = 1, .link_id = -1, .first_frame = x->p.pi->frame,
                    .first_time_ns = x->p.pi->time_ns, .last_time_ns = x->p.pi->time_ns};
    x->conv->n_pending++;
    if (s->last_time_ns < x->conv->resend_due_ns)
        x->conv->resend_due_ns = s->last_time_ns;
    s->discarded = ahead >= DNP_WINDOW;
    x->sent = s;
    if (seq == 0xffff && ref) {
        d->next = 0;
        return;
    }
    if (ahead == 0)
        advance_window(x->conv, d);
}

/* ---- long messages -------------------------------------------------------- */

/* parts in numbering order from the first (a numbering: {first, modulo}) */
static int part_order(const void *a, const void *b, void *numbering)
{
    const unsigned *n = numbering;
    unsigned da = seq_ahead(n[1], ((const dnp_part *)a)->seq, (uint16_t)n[0]);
    unsigned db = seq_ahead(n[1], ((const dnp_part *)b)->seq, (uint16_t)n[0]);
    return (da > db) - (da < db);
}

/* Store one part; when the message is complete (first and last seen and no
 * number between them missing) assemble it into lng->out (and lng->vout) and
 * return true. */
static bool long_add(dnp_ctx *x, dnp_long *l, uint16_t seq, bool first, bool last,
                     const uint8_t *piece, size_t n, const uint8_t *vpiece, size_t vn,
                     size_t flags_off)
{
    if (first) {
        if (l->active)
            gw_emit_finding(&x->p.e, DNP_E_LONG_RESTARTED, flags_off, 1,
                            "New long message while the one started in frame %u is incomplete",
                            l->first_frame);
        long_reset(x->conv, l);
        l->active = true;
        l->first_seq = seq;
        l->first_frame = x->p.pi->frame;
    } else if (!l->active) {
        gw_emit_finding(&x->p.e, DNP_E_LONG_MISSING_FIRST, flags_off, 1,
                        "Part %u of a long message whose first part was not seen", seq);
        return false;
    }
    long_ready(l);
    size_t cost = n + vn + PART_COST;
    if (l->cost + cost > DNP_REASSEMBLY_MAX || l->parts->len >= DNP_SEQ_MODULO) {
        gw_emit_finding(&x->p.e, DNP_E_LONG_TOO_LONG, flags_off, 1,
                        "Long message over %u bytes or %u parts: not reassembled",
                        DNP_REASSEMBLY_MAX, DNP_SEQ_MODULO);
        long_reset(x->conv, l);
        return false;
    }
    if (long_held + cost > DNP_REASSEMBLY_TOTAL_MAX) {
        gw_emit_finding(&x->p.e, DNP_E_LONG_TOO_LONG, flags_off, 1,
                        "Long messages under reassembly in all conversations over %u MiB: "
                        "this one is not reassembled", DNP_REASSEMBLY_TOTAL_MAX >> 20);
        long_reset(x->conv, l);
        return false;
    }
    long_held += cost;
    l->cost += cost;
    dnp_part p = {.seq = seq, .off = l->data->len, .len = n};
    g_byte_array_append(l->data, piece, (guint)n);
    p.voff = l->data->len;
    p.vlen = vn;
    if (vn)
        g_byte_array_append(l->data, vpiece, (guint)vn);
    g_array_append_val(l->parts, p);
    long_grew(x->conv, l, ARR_DATA, l->data->len);
    long_grew(x->conv, l, ARR_PARTS, l->parts->len * sizeof(dnp_part));
    if (last) {
        l->have_last = true;
        l->last_seq = seq;
    }
    if (!l->have_last)
        return false;
    unsigned numbering[2] = {l->first_seq, seq_modulo(x->conv)};
    unsigned want = seq_ahead(numbering[1], l->last_seq, l->first_seq) + 1;
    if (l->parts->len != want)
        return false;
    g_array_sort_with_data(l->parts, part_order, numbering);
    g_byte_array_set_size(l->out, 0);
    g_byte_array_set_size(l->vout, 0);
    for (guint i = 0; i < l->parts->len; i++) {
        dnp_part *q = &g_array_index(l->parts, dnp_part, i);
        if (q->len) /* an empty message has no buffer to point into */
            g_byte_array_append(l->out, l->data->data + q->off, (guint)q->len);
        if (q->vlen)
            g_byte_array_append(l->vout, l->data->data + q->voff, (guint)q->vlen);
    }
    long_grew(x->conv, l, ARR_OUT, l->out->len);
    long_grew(x->conv, l, ARR_VOUT, l->vout->len);
    return true;
}

static void emit_reassembly_info(dnp_ctx *x, dnp_long *l, size_t off)
{
    gw_emit_gen_u(&x->p.e, DNP_F_REASSEMBLED_FIRST, off, l->first_frame);
    gw_emit_gen_u(&x->p.e, DNP_F_REASSEMBLED_PARTS, off, l->parts->len);
    gw_emit_gen_u(&x->p.e, DNP_F_REASSEMBLED_LENGTH, off, l->out->len);
}

/* ---- commands ----------------------------------------------------------- */

static void summary_flags(dnp_ctx *x, uint32_t flags)
{
    if (flags & 1)
        summary_add(x, " read-only");
}

/* a flags byte's subtree: the bits of fields f[0..n) */
static void flag_bits(dnp_ctx *x, size_t off, uint64_t v, const int *f, unsigned n)
{
    gw_emit_push(&x->p.e);
    for (unsigned i = 0; i < n; i++)
        gw_emit_u(&x->p.e, f[i], off, 1, v);
    gw_emit_pop(&x->p.e, off + 1);
}

static void offer(dnp_ctx *x, uint32_t proto);

/* what the commands' layouts ask of the decoder: the functions their
   steps name. The heuristic runs the same layouts with heuristic_hooks:
   there a check only judges whether its value is plausible (at most 16
   protocols, each a number below 256; a known result, a selected protocol
   below 256; link flags other than read-only unknown) and reports
   nothing; the link state's values are read as the decoder reads them. */
static const gw_pdu_hooks hooks = {0}, heuristic_hooks = {0};
/* true in the heuristic's run, where `implausible` is all a check adds */
static bool judged(dnp_ctx *x, bool implausible)
{
    if (x->p.hooks != &heuristic_hooks)
        return false;
    x->implausible |= implausible;
    return true;
}

static void ack_result(dnp_ctx *x, uint64_t result, size_t off);
static void ack_selected(dnp_ctx *x, uint64_t proto, size_t off);

/* a reliable command's number, tracked */
static void check_seq(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (!judged(x, false))
        track_seq(x, (uint16_t)v, off);
}
static void check_protocol_count(gw_pdu *p, size_t off, uint64_t v)
{
    (void)off;
    dnp_ctx *x = (dnp_ctx *)p;
    if (!judged(x, v == 0 || v > 16) && v == 0)
        gw_emit_finding(&x->p.e, DNP_E_NO_PROTOCOLS, 1, 2, "No protocol offered");
}
static void check_offer(gw_pdu *p, size_t off, uint64_t v)
{
    (void)off;
    dnp_ctx *x = (dnp_ctx *)p;
    if (!judged(x, v > 255))
        offer(x, (uint32_t)v);
}
static void check_result(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (!judged(x, v > 2))
        ack_result(x, v, off);
}
static void check_selected(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (!judged(x, v > 255))
        ack_selected(x, v, off);
}
static void check_link_flags(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (judged(x, v > 1))
        return;
    flag_bits(x, off, v, (const int[]){DNP_F_FLAG_READ_ONLY}, 1);
    summary_flags(x, (uint32_t)v);
    if (v & ~1u)
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_FLAGS, off, 1, "Unknown link flags 0x%02x", (unsigned)v);
}
static void check_part_flags(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (judged(x, false))
        return;
    flag_bits(x, off, v, (const int[]){DNP_F_LONG_FIRST, DNP_F_LONG_LAST}, 2);
    if (v & ~3u)
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_FLAGS, off, 1, "Unknown part flags 0x%02x", (unsigned)v);
}
static void check_long_link_flags(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (judged(x, false))
        return;
    flag_bits(x, off, v, (const int[]){DNP_F_FLAG_READ_ONLY, DNP_F_FLAG_FIRST, DNP_F_FLAG_LAST}, 3);
    if (v & ~7u)
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_FLAGS, off, 1, "Unknown link flags 0x%02x", (unsigned)v);
    summary_add(x, " link %u part%s%s", (unsigned)x->val[DNP_F_LINK_ID], v & 2 ? " first" : "",
                v & 4 ? " last" : "");
    summary_flags(x, (uint32_t)v);
}

/* -- typed values (link states 5 and 11, link updates 9) -- */

/* a value of unknown type: decoding stops at its type byte (at off), the
   rest shown undecoded (numbered: the finding names the value) */
static void unknown_type(dnp_ctx *x, size_t off, uint64_t type, bool numbered)
{
    x->p.failed = true;
    x->p.c.off = off;
    if (numbered)
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_TYPE, off, 1, "Unknown value type %u for value %u", (unsigned)type,
                        x->p.index);
    else
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_TYPE, off, 1, "Unknown value type %u", (unsigned)type);
    gw_take_rest(&x->p, DNP_F_UNDECODED);
}

/* a link state's value count: the link's types are kept as they are read
   (x->link; the heuristic keeps none) */
static void check_value_count(gw_pdu *p, size_t off, uint64_t v)
{
    (void)off;
    dnp_ctx *x = (dnp_ctx *)p;
    if (judged(x, false))
        return;
    link_free(x->conv, x->link); /* (one list of values a command) */
    x->link = link_new(x->conv, (uint16_t)v);
    x->link->frame = x->p.pi->frame;
}
/* a link state's value type (the heuristic: the switch fails an unknown one) */
static void check_state_type(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (judged(x, false))
        return;
    if (v >= DNP_N_TYPES)
        unknown_type(x, off, v, true);
    else if (x->link && x->p.index < x->link->count)
        x->link->types[x->p.index] = (uint8_t)v;
}
/* a string value's encoding (not in a quiet run: update_fits) */
static void check_utf8(gw_pdu *p, size_t off, uint64_t n)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (gw_reading_last(p) && !judged(x, false) && x->p.e.sink != &gw_quiet_sink &&
        !gw_utf8_valid(x->p.c.data + off, (size_t)n))
        gw_emit_finding(&x->p.e, DNP_E_INVALID_UTF8, off, (size_t)n, "String value is not valid UTF-8");
}
/* a link update's value type in the text's layout, against the link state's */
static void check_update_type(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    const dnp_link *link = x->cur_link;
    unsigned i = x->p.index;
    if (v >= DNP_N_TYPES)
        unknown_type(x, off, v, false);
    else if (gw_reading_first(p) && link && i < link->count && link->types[i] != v)
        gw_emit_finding(&x->p.e, DNP_E_TYPE_MISMATCH, off, 1, "Value %u has type %s, the link state said %s", i,
                        type_names[v].name, type_names[link->types[i]].name);
}

/* a link update's link count in the summary: before its first link's */
static void link_count_said(dnp_ctx *x)
{
    uint64_t n = x->val[DNP_F_LINK_COUNT];
    summary_add(x, ": %u link%s", (unsigned)n, n == 1 ? "" : "s");
    x->links_said = true;
}

/* may this side update the link? */
static void check_update_allowed(dnp_ctx *x, const dnp_link *link, uint16_t id, size_t off)
{
    if (link->answer != ANSWER_UP)
        gw_emit_finding(&x->p.e, DNP_E_UPDATE_NOT_UP, off, 2, "Link %u is %s", id,
                        link->answer == ANSWER_DOWN ? "down" : "not up (no link up seen)");
    if (link->dir != x->p.pi->dir && (link->flags & 1))
        gw_emit_finding(&x->p.e, DNP_E_UPDATE_READ_ONLY, off, 2,
                        "Link %u is read-only to this side (link state in frame %u)", id, link->frame);
}

/* the link a link update's link id names: the sender's own, else the other side's */
static const dnp_link *update_link(const dnp_ctx *x, uint32_t id)
{
    const dnp_link *link = link_of(x->conv, x->p.pi->dir, id);
    return link ? link : link_of(x->conv, !x->p.pi->dir, id);
}

/* check_link once the link is known (update_link) */
static void link_known(dnp_ctx *x, size_t off, uint32_t nvalues, const dnp_link *link)
{
    bool spec = x->spec_update;
    size_t lstart = off - 2;
    unsigned l = x->p.index;
    uint32_t id = (uint32_t)x->val[DNP_F_LINK_ID];
    if (!x->p.sum.off) { /* (links_said is read only where there is a summary) */
        if (l == 0)
            link_count_said(x);
        if (l < 3)
            summary_add(x, "%s link %u: %u value%s", l ? ";" : ",", id, nvalues, nvalues == 1 ? "" : "s");
    }
    x->cur_link = link;
    if (link) {
        gw_emit_gen_u(&x->p.e, DNP_F_TYPES_FROM, lstart, link->frame);
        check_update_allowed(x, link, (uint16_t)id, lstart);
    }
    if (!spec && !link) {
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_LINK, lstart, gw_remaining(&x->p.c),
                        "Link %u: no link state seen, value types unknown", id);
        gw_take_rest(&x->p, DNP_F_UNDECODED);
        summary_add(x, " (unknown link)");
        x->unknown_link = true;
        x->p.failed = true; /* the update ends here, not truncated */
    }
}

/* one link of a link update, its value count (at off) after its id: the
   link state that gives its types (the sender's own link, its owner
   updating it, else the other side's; a quiet run in the text's layout,
   update_fits, needs none); in the reference layout, without one the
   values cannot be read */
static void check_link(gw_pdu *p, size_t off, uint64_t v)
{
    dnp_ctx *x = (dnp_ctx *)p;
    if (x->spec_update && x->p.e.sink == &gw_quiet_sink)
        return; /* update_fits in the text's layout: nothing to look up, nobody hears */
    link_known(x, off, (uint32_t)v, update_link(x, (uint32_t)x->val[DNP_F_LINK_ID]));
}
/* a value of the reference's link update, its index (at voff): its type,
   from the link state */
static void check_index(gw_pdu *p, size_t voff, uint64_t idx)
{
    dnp_ctx *x = (dnp_ctx *)p;
    const dnp_link *link = x->cur_link;
    if (!link) { /* a quiet run (the layout is not read without one) */
        x->p.failed = true;
        return;
    }
    if (idx >= link->count) {
        x->p.failed = true; /* what follows reports it: shown though the value is not */
        gw_emit_u(&x->p.e, DNP_F_VALUE_INDEX, voff, 2, idx);
        gw_emit_finding(&x->p.e, DNP_E_INDEX_RANGE, voff, 2, "Value index %u, but link %u has %u values",
                        (unsigned)idx, (unsigned)x->val[DNP_F_LINK_ID], link->count);
        gw_take_rest(&x->p, DNP_F_UNDECODED);
        return;
    }
    gw_emit_gen_u(&x->p.e, DNP_F_VALUE_TYPE, x->p.c.off, link->types[idx]);
    gw_record_num(&x->p, DNP_F_VALUE_TYPE, link->types[idx]);
}

static void label_link(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    (void)items;
    (void)n;
    snprintf(out, size, "Link %u", p->index);
}
/* a value's label from its items read ahead: "Value 0: UInt32 = 99",
   "Value 1: Point2S8 (1, -2)", "Value 2: String \"ab\"", "Value 3: Data (3 bytes)" */
static void label_value(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    unsigned index = p->index, nc = 0;
    uint64_t type = 0;
    const gw_item *bytes = NULL, *comp[4];
    for (unsigned i = 0; i < n; i++) {
        const gw_item *it = &items[i];
        switch (it->field) {
        case DNP_F_VALUE_INDEX: index = (unsigned)it->v.u; break;
        case DNP_F_VALUE_TYPE: type = it->v.u; break;
        case DNP_F_VALUE_STRING:
        case DNP_F_VALUE_DATA: bytes = it; break;
        case DNP_F_VALUE_SINT:
        case DNP_F_VALUE_UINT:
        case DNP_F_VALUE_FLOAT:
            if (nc < 4)
                comp[nc++] = it;
            break;
        default: break;
        }
    }
    const char *name = gw_value_name_or(type_names, (uint32_t)type, "?");
    if (size > 160)
        size = 160;
    int m = snprintf(out, size, "Value %u: %s", index, name);
    if (bytes && bytes->field == DNP_F_VALUE_STRING) {
        char esc[64];
        label_escape(esc, sizeof esc, bytes->v.b.p, bytes->v.b.n);
        snprintf(out + m, size - (size_t)m, " \"%s\"", esc);
    } else if (bytes) {
        snprintf(out + m, size - (size_t)m, " (%u %s)", (unsigned)bytes->v.b.n, gw_bytes(bytes->v.b.n));
    } else {
        m += snprintf(out + m, size - (size_t)m, nc > 1 ? " (" : " = ");
        for (unsigned i = 0; i < nc && m < (int)size; i++) {
            const char *sep = i ? ", " : "";
            if (comp[i]->field == DNP_F_VALUE_FLOAT)
                m += snprintf(out + m, size - (size_t)m, "%s%g", sep, comp[i]->v.d);
            else if (comp[i]->field == DNP_F_VALUE_SINT)
                m += snprintf(out + m, size - (size_t)m, "%s%lld", sep, (long long)comp[i]->v.i);
            else
                m += snprintf(out + m, size - (size_t)m, "%s%llu", sep, (unsigned long long)comp[i]->v.u);
        }
        if (nc > 1 && m < (int)size)
            snprintf(out + m, size - (size_t)m, ")");
    }
}

/* the commands' layouts (DNP text, wire-facts 1; little-endian) */
#define L GW_LAYOUT
#define NUM(f, n, ...) GW_NUM(DNP_F_##f, n, __VA_ARGS__)
/* a reliable command's number, tracked */
#define SEQ NUM(SEQ, 2, GW_SUM(" #%llu"), GW_CHECK(check_seq))
static const gw_lstep *const connect_request = L(NUM(PROTOCOL_COUNT, 2, GW_CHECK(check_protocol_count)),
                                                 GW_REPEAT(DNP_F_PROTOCOL_COUNT),
                                                 NUM(PROTOCOL, 2, GW_CHECK(check_offer)), GW_DONE);
static const gw_lstep *const message = L(GW_REST(DNP_F_MESSAGE));
static const gw_lstep *const reliable_message = L(SEQ, GW_REST(DNP_F_MESSAGE));
/* a state value by its type: components of a width, or a u16 length and
   bytes (the truncation names the part of the value missing) */
#define COMP(k, w) GW_NUM(DNP_F_VALUE_##k, w, GW_WHAT("Value component"))
#define COMPS_1(k, w) COMP(k, w)
#define COMPS_2(k, w) COMP(k, w), COMP(k, w)
#define COMPS_3(k, w) COMP(k, w), COMP(k, w), COMP(k, w)
#define COMPS_4(k, w) COMP(k, w), COMP(k, w), COMP(k, w), COMP(k, w)
#define VALUE_VK_SINT(w, n) COMPS_##n(SINT, w)
#define VALUE_VK_UINT(w, n) COMPS_##n(UINT, w)
#define VALUE_VK_FLOAT(w, n) COMPS_##n(FLOAT, w)
#define VALUE_VK_STRING(w, n) \
    GW_COUNTED(DNP_F_VALUE_STRING, DNP_F_VALUE_LENGTH, 2, -1, GW_WHAT("Value bytes"), GW_CHECK(check_utf8))
#define VALUE_VK_DATA(w, n) GW_COUNTED(DNP_F_VALUE_DATA, DNP_F_VALUE_LENGTH, 2, -1, GW_WHAT("Value bytes"))
#define AS_LAYOUT(code, name, kind, width, ncomp) [code] = L(VALUE_##kind(width, ncomp)),
static const gw_lstep *const value_of_type[DNP_N_TYPES] = {DNP_VALUE_TYPES(AS_LAYOUT)};
/* values, each a subtree labelled from what it holds, shown when it is whole */
#define VALUES(count) GW_REPEAT_TREE(DNP_F_##count, DNP_F_VALUE, label_value, GW_FLAGS(GW_LF_AHEAD))
#define VALUE_OF_TYPE GW_SWITCH(DNP_F_VALUE_TYPE, value_of_type) /* the type derived */
/* typed values (link states, and long ones' reassembled values): a u16
   count, then each value's type and value */
#define TYPED_VALUES                                                                                      \
    NUM(VALUE_COUNT, 2, GW_CHECK(check_value_count)), VALUES(VALUE_COUNT),                             \
        GW_SWITCH_NUM(DNP_F_VALUE_TYPE, 1, value_of_type, GW_CHECK(check_state_type)), GW_DONE
static const gw_lstep *const state_values = L(TYPED_VALUES);
/* the values follow the message */
static const gw_lstep *const link_state = L(SEQ, NUM(LINK_ID, 2, GW_SUM(" link %llu")),
                                            NUM(FLAGS, 1, GW_CHECK(check_link_flags)),
                                            GW_COUNTED(DNP_F_MESSAGE, DNP_F_MESSAGE_LENGTH, 2, -1), TYPED_VALUES);
/* the link update (9) in its two layouts (wire-facts 1.10): a link count,
   then per link (a subtree) its id, value count and values. The
   reference's: u8 counts, each value's index (its type from the link's
   link state); the text's: u16 counts, each value's type */
#define LINKS GW_REPEAT_TREE(DNP_F_LINK_COUNT, DNP_F_LINK, label_link)
static const gw_lstep *const ref_update =
    L(NUM(LINK_COUNT, 1), LINKS, NUM(LINK_ID, 2),
      NUM(VALUE_COUNT, 1, GW_CHECK(check_link)), VALUES(VALUE_COUNT), NUM(VALUE_INDEX, 2, GW_CHECK(check_index)),
      VALUE_OF_TYPE, GW_DONE, GW_DONE);
static const gw_lstep *const spec_update =
    L(NUM(LINK_COUNT, 2), LINKS, NUM(LINK_ID, 2),
      NUM(VALUE_COUNT, 2, GW_CHECK(check_link)), VALUES(VALUE_COUNT),
      GW_SWITCH_NUM(DNP_F_VALUE_TYPE, 1, value_of_type, GW_CHECK(check_update_type)), GW_DONE, GW_DONE);
static const gw_lstep *const reliable_ack = L(NUM(SEQ, 2, GW_SUM(" #%llu")), NUM(ACK_CODE, 1));
static const gw_lstep *const link_up_down = L(NUM(LINK_ID, 2, GW_SUM(" %llu")));
static const gw_lstep *const message_long = L(SEQ, NUM(LONG_FLAGS, 1, GW_CHECK(check_part_flags)),
                                              GW_REST(DNP_F_CHUNK));
static const gw_lstep *const link_state_long = L(SEQ, NUM(LINK_ID, 2), NUM(FLAGS, 1, GW_CHECK(check_long_link_flags)),
                                                 GW_COUNTED(DNP_F_CHUNK, DNP_F_MESSAGE_LENGTH, 2, -1),
                                                 GW_REST(DNP_F_VALUES_PART));
/* the connection ack: the result; the protocol selected, "only present if
   Result Code has the value 0" (a rejection that carries one anyway is
   read by check_result and reported) */
static const gw_lstep *const connect_ack = L(NUM(RESULT, 1, GW_CHECK(check_result)),
                                             GW_IF(DNP_F_RESULT, GW_CMP_EQ, 0), NUM(PROTOCOL, 2, GW_CHECK(check_selected)),
                                             GW_DONE);
static const gw_lstep *const close_cmd = GW_EMPTY;
static const gw_lstep *const unknown_cmd = L(GW_STEP(NULL)); /* conform: bytes of its own */

/* a command's layout by its code (NULL: none; close has no fields); a link
   update's as the option says (the reference's unless it says the text's) */
static const gw_lstep *layout_of(int64_t cmd, const int *opts)
{
    switch (cmd) {
    case DNP_LINK_UPDATE: return opts && opts[DNP_OPT_UPDATE_LAYOUT] == DNP_LAYOUT_SPEC ? spec_update : ref_update;
    case DNP_CONNECT_REQUEST: return connect_request;
    case DNP_CONNECT_ACK: return connect_ack;
    case DNP_CLOSE: return close_cmd;
    case DNP_MESSAGE: return message;
    case DNP_RELIABLE_MESSAGE: return reliable_message;
    case DNP_LINK_STATE: return link_state;
    case DNP_RELIABLE_ACK: return reliable_ack;
    case DNP_LINK_UP:
    case DNP_LINK_DOWN: return link_up_down;
    case DNP_RELIABLE_MESSAGE_LONG: return message_long;
    case DNP_LINK_STATE_LONG: return link_state_long;
    default: return NULL;
    }
}

/* pcaptool conform's commands: the code, then the command's layout (an
   unknown code: the code and whatever GW_W_STEP bytes are given) */
static size_t dnp_build(const int *opts, int64_t type, const gw_wval *vals, uint8_t *out, size_t cap)
{
    if (type < 0 || type > 255 || cap < 1)
        return 0;
    out[0] = (uint8_t)type;
    const gw_lstep *l = layout_of(type, opts);
    size_t n;
    return gw_layout_write(l ? l : unknown_cmd, false, vals, out + 1, cap - 1, &n) ? n + 1 : 0;
}

static void cmd_connect_request(dnp_ctx *x)
{
    dnp_conv *c = x->conv;
    /* "The server has to ignore connect requests for an already connected
       client": the connection and its numbering go on */
    bool connected = c->state == CONN_OPEN && !c->midway && x->p.pi->dir == c->client_dir;
    x->connected = connected;
    int64_t now = x->p.pi->time_ns;
    if (connected) {
        gw_emit_finding(&x->p.e, DNP_E_CONNECT_REPEATED, 0, 1,
                        "Connection request on a connected conversation: the server must ignore it");
    } else if (c->state == CONN_REQUESTED && x->p.pi->dir == c->client_dir) {
        /* a resend: no ack yet (every 1 s, for 5 s at most) */
        if (now - c->request_last_ns < DNP_CONNECT_RESEND_EARLY_NS)
            gw_emit_finding(&x->p.e, DNP_E_CONNECT_RESEND_EARLY, 0, 1,
                            "Connection request resent %.3f s after the previous one",
                            (double)(now - c->request_last_ns) / 1e9);
        if (now - c->request_first_ns > DNP_CONNECT_TIMEOUT_NS + DNP_TIMER_SLACK_NS)
            gw_emit_finding(&x->p.e, DNP_E_CONNECT_RESEND_LATE, 0, 1,
                            "Connection request resent %.3f s after the first",
                            (double)(now - c->request_first_ns) / 1e9);
        c->request_last_ns = now;
        c->n_offered = 0;
    } else {
        c->request_first_ns = c->request_last_ns = now;
        conv_restart(c);
        c->state = CONN_REQUESTED;
        c->client_dir = (uint8_t)x->p.pi->dir;
        c->flagged_state = false;
        c->n_offered = 0;
    }
    x->n_protocols = 0;
    gw_layout_run(&x->p, connect_request);
    if (x->n_protocols)
        summary_add(x, ")");
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
}

/* one protocol a connection request offers */
static void offer(dnp_ctx *x, uint32_t proto)
{
    dnp_conv *c = x->conv;
    if (!x->connected && c->n_offered < OFFERED_MAX)
        c->offered[c->n_offered] = (uint16_t)proto;
    if (!x->connected && c->n_offered <= OFFERED_MAX)
        c->n_offered++;
    unsigned i = x->n_protocols++;
    const char *nm = gw_value_name_of(protocol_names, proto);
    summary_add(x, i ? ", " : " (");
    if (i == 4)
        summary_add(x, "...");
    else if (i < 4 && nm)
        summary_add(x, "%s", nm);
    else if (i < 4)
        summary_add(x, "unknown(%u)", proto);
}

/* the connection ack's result (check_result) */
static void ack_result(dnp_ctx *x, uint64_t v, size_t off)
{
    uint32_t result = (uint32_t)v;
    const char *rn = gw_value_name_of(result_names, result);
    summary_add(x, ": %s", rn ? rn : "unknown result");
    if (!rn)
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_RESULT, off, 1, "Unknown result code %u", result);
    dnp_conv *c = x->conv;
    x->answers = c->state == CONN_REQUESTED && x->p.pi->dir != c->client_dir;
    if (x->answers)
        c->state = result == 0 ? CONN_OPEN : CONN_REFUSED;
    else if (result == 0 && c->state == CONN_OPEN && !c->midway && x->p.pi->dir != c->client_dir)
        gw_emit_finding(&x->p.e, DNP_E_ACCEPTED_AGAIN, 0, 2,
                        "The server accepts a connection request on a connection it accepted before");
    if (result != 0 && gw_remaining(&x->p.c) == 2) {
        gw_emit_finding(&x->p.e, DNP_E_PROTOCOL_IN_REJECTION, x->p.c.off, 2, "Rejection carries a protocol");
        gw_take_u32(&x->p, DNP_F_PROTOCOL, 2, NULL);
    }
}

/* the protocol an accepting connection ack selected (check_selected) */
static void ack_selected(dnp_ctx *x, uint64_t v, size_t off)
{
    uint32_t proto = (uint32_t)v;
    dnp_conv *c = x->conv;
    summary_add(x, ", %s", gw_value_name_or(protocol_names, proto, "unknown protocol"));
    bool offered = !x->answers || c->n_offered > OFFERED_MAX;
    for (unsigned k = 0; k < c->n_offered && !offered; k++)
        offered = c->offered[k] == proto;
    if (!offered)
        gw_emit_finding(&x->p.e, DNP_E_NOT_OFFERED, off, 2, "Protocol %u selected, but the client did not offer it",
                        proto);
}

static void cmd_connect_ack(dnp_ctx *x)
{
    gw_layout_run(&x->p, connect_ack);
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
}

static void cmd_message(dnp_ctx *x, bool reliable)
{
    if (!gw_layout_run(&x->p, reliable ? reliable_message : message))
        return;
    size_t n = x->text[DNP_F_MESSAGE].n;
    summary_add(x, " (%zu byte%s)", n, n == 1 ? "" : "s");
}

/* the types of the typed values just read (x->link), NULL when they were
   not read whole */
static dnp_link *values_read(dnp_ctx *x)
{
    dnp_link *link = x->link;
    x->link = NULL;
    if (x->p.failed) {
        link_free(x->conv, link);
        return NULL;
    }
    return link;
}

/* The reference layout where nothing is shown (validate), read without the
   interpreter: ref_update's steps and the values' layouts as quiet_block
   reads them (the same checks in the same order, the same records but the
   values' components, which nothing reads), where a first pass that
   changes nothing finds every byte there, every link known and every
   value index in range; anything else goes to the interpreter. The reader
   knows the reference's widths (a u8 link count and value count, u16 link
   id and value index, u16 counted lengths); ref_shape checks once that
   the layouts have them (else the interpreter reads every update) and
   takes each value type's bytes from its layout where it is numbers alone
   (0: one counted step). */
static struct {
    bool usable, state_usable; /* the link update's reader; the link state's */
    bool spec_widths;          /* spec_may_fit's widths are spec_update's */
    uint8_t fixed[DNP_N_TYPES];
} ref_geo;
static pthread_once_t ref_geo_once = PTHREAD_ONCE_INIT;
static bool ref_geo_ready; /* set (release) once ref_geo is filled */

/* is step s the little-endian number of `size` bytes of field f, with check `check`? */
static bool number_step(const gw_lstep *s, int f, unsigned size, gw_check_fn check)
{
    return s->op == GW_L_NUM && s->field == f && s->size == size && !(s->flags & GW_LF_BE) && s->check == check;
}

static void ref_shape(void)
{
    const gw_lstep *s = ref_update;
    bool ok = number_step(&s[0], DNP_F_LINK_COUNT, 1, NULL) && s[1].op == GW_L_REPEAT &&
              s[1].arg == DNP_F_LINK_COUNT && number_step(&s[2], DNP_F_LINK_ID, 2, NULL) &&
              number_step(&s[3], DNP_F_VALUE_COUNT, 1, check_link) && s[4].op == GW_L_REPEAT &&
              s[4].arg == DNP_F_VALUE_COUNT && number_step(&s[5], DNP_F_VALUE_INDEX, 2, check_index) &&
              s[6].op == GW_L_SWITCH && !s[6].size && s[6].arg == DNP_F_VALUE_TYPE && s[6].cases == value_of_type &&
              s[6].value == DNP_N_TYPES && s[7].op == GW_L_DONE && s[8].op == GW_L_DONE && s[9].op == GW_L_END;
    for (int t = 0; ok && t < DNP_N_TYPES; t++) {
        const gw_lstep *v = value_of_type[t];
        size_t k = 0, n = 0;
        for (; v[k].op == GW_L_NUM; k++) { /* numbers alone: their bytes */
            ok = ok && !v[k].check;
            n += v[k].size;
        }
        if (k) {
            ok = ok && v[k].op == GW_L_END && n < 256;
            ref_geo.fixed[t] = (uint8_t)n;
        } else { /* one counted step, a u16 length */
            ok = ok && v[0].op == GW_L_COUNTED && v[1].op == GW_L_END && v[0].size == 2 &&
                 !(v[0].flags & (GW_LF_BE | GW_LF_NUL | GW_LF_LENGTH));
        }
    }
    ref_geo.usable = ok;
    s = link_state;
    ref_geo.state_usable =
        ok && number_step(&s[0], DNP_F_SEQ, 2, check_seq) && number_step(&s[1], DNP_F_LINK_ID, 2, NULL) &&
        number_step(&s[2], DNP_F_FLAGS, 1, check_link_flags) && s[3].op == GW_L_COUNTED &&
        s[3].field == DNP_F_MESSAGE && s[3].arg == DNP_F_MESSAGE_LENGTH && s[3].size == 2 && !s[3].flags &&
        !s[3].check && number_step(&s[4], DNP_F_VALUE_COUNT, 2, check_value_count) && s[5].op == GW_L_REPEAT &&
        s[5].arg == DNP_F_VALUE_COUNT && s[6].op == GW_L_SWITCH && s[6].size == 1 && s[6].arg == DNP_F_VALUE_TYPE &&
        s[6].cases == value_of_type && s[6].value == DNP_N_TYPES && s[6].check == check_state_type &&
        !(s[6].flags & GW_LF_BE) && s[7].op == GW_L_DONE && s[8].op == GW_L_END;
    s = spec_update;
    ref_geo.spec_widths = number_step(&s[0], DNP_F_LINK_COUNT, 2, NULL) && s[1].op == GW_L_REPEAT &&
                          number_step(&s[2], DNP_F_LINK_ID, 2, NULL) &&
                          number_step(&s[3], DNP_F_VALUE_COUNT, 2, check_link) && s[4].op != GW_L_NUM;
    __atomic_store_n(&ref_geo_ready, true, __ATOMIC_RELEASE);
}

static void geo_ready(void)
{
    if (!__atomic_load_n(&ref_geo_ready, __ATOMIC_ACQUIRE))
        pthread_once(&ref_geo_once, ref_shape);
}

static uint16_t u16_at(const uint8_t *p)
{
    return (uint16_t)gw_get_uint(p, 2, false);
}

/* does a value of type t fit d[*at..len)? (*at moved past it) */
static inline __attribute__((always_inline)) bool value_clean(const uint8_t *d, size_t *at, size_t len, unsigned t)
{
    size_t size = ref_geo.fixed[t];
    if (!size) {
        if (len - *at < 2)
            return false;
        size = u16_at(d + *at);
        *at += 2;
    }
    if (len - *at < size)
        return false;
    *at += size;
    return true;
}

/* a value of type t that value_clean found there, read as its layout is */
static inline __attribute__((always_inline)) void value_read(dnp_ctx *x, unsigned t)
{
    gw_pdu *p = &x->p;
    if (ref_geo.fixed[t]) {
        p->c.off += ref_geo.fixed[t];
        return;
    }
    const gw_lstep *s = value_of_type[t];
    size_t bytes = u16_at(p->c.data + p->c.off), off = p->c.off + 2;
    gw_record_num(p, s->arg, bytes);
    gw_pdu_text(p, s->field, off, bytes);
    p->c.off = off + bytes;
    if (s->check == check_utf8) /* (a string's: called directly) */
        check_utf8(p, off, bytes);
    else if (s->check)
        s->check(p, off, bytes);
}

/* one value: the number before it (its index or its type: `size` bytes
   as `field`) read, recorded and checked, then, unless that failed, the
   value of its type (recorded by then) */
static void value_item(dnp_ctx *x, int field, unsigned size, gw_check_fn check)
{
    gw_pdu *p = &x->p;
    size_t off = p->c.off;
    unsigned v = size == 1 ? p->c.data[off] : u16_at(p->c.data + off);
    gw_record_num(p, field, v);
    p->c.off = off + size;
    check(p, off, v);
    if (!p->failed)
        value_read(x, (unsigned)x->val[DNP_F_VALUE_TYPE]);
}

/* does the update at the cursor read whole, every link known, every index
   in range? (x->found[i]: the link of its link i) */
static bool ref_update_clean(dnp_ctx *x)
{
    const uint8_t *d = x->p.c.data;
    size_t at = x->p.c.off, len = x->p.c.len;
    if (at >= len)
        return false;
    const dnp_link **found = x->found;
    for (unsigned links = d[at++]; links; links--) {
        if (len - at < 3)
            return false;
        const dnp_link *link = *found++ = update_link(x, u16_at(d + at));
        unsigned n = d[at + 2];
        at += 3;
        if (!link)
            return false;
        for (; n; n--) {
            if (len - at < 2)
                return false;
            unsigned idx = u16_at(d + at);
            at += 2;
            if (idx >= link->count || !value_clean(d, &at, len, link->types[idx]))
                return false;
        }
    }
    return true;
}

/* read what ref_update_clean found clean, as quiet_block reads it (the
   links it found not looked up again) */
static void ref_update_read(dnp_ctx *x)
{
    gw_pdu *p = &x->p;
    const uint8_t *d = p->c.data;
    unsigned outer = p->index, links = d[p->c.off++];
    gw_record_num(p, DNP_F_LINK_COUNT, links);
    for (unsigned l = 0; l < links; l++) {
        p->index = l;
        size_t off = p->c.off;
        unsigned n = d[off + 2];
        gw_record_num(p, DNP_F_LINK_ID, u16_at(d + off));
        gw_record_num(p, DNP_F_VALUE_COUNT, n);
        p->c.off = off + 3;
        link_known(x, off + 2, n, x->found[l]);
        unsigned v = 0;
        while (v < n && !p->failed) {
            p->index = v++;
            value_item(x, DNP_F_VALUE_INDEX, 2, check_index);
        }
        p->repeats = v;
        if (p->failed) { /* (as the interpreter leaves them) */
            p->repeats = l + 1;
            break;
        }
    }
    if (!p->failed)
        p->repeats = links;
    p->index = outer;
}

/* may x be read without the interpreter? (decoding, nothing shown) */
static bool quick_allowed(const dnp_ctx *x)
{
    if (x->p.failed || x->p.hooks != &hooks || !x->p.sum.off || gw_emit_tree(&x->p.e) || x->p.big_endian)
        return false;
    geo_ready();
    return true;
}

/* the reference's update read by ref_update_read where it may be: true
   when it was (decoding may have failed there all the same) */
static bool ref_update_quick(dnp_ctx *x)
{
    if (x->spec_update || !quick_allowed(x) || !ref_geo.usable || !ref_update_clean(x))
        return false;
    ref_update_read(x);
    return true;
}

/* A link state where nothing is shown, read the same way as link_state's
   steps (state_shape checks them once: a u16 number, a u16 link id, a u8
   flags byte, a u16-counted message, a u16 value count, then each value's
   u8 type and the value), where a first pass finds every byte there and
   every type known. */
static bool link_state_clean(const dnp_ctx *x)
{
    const uint8_t *d = x->p.c.data;
    size_t at = x->p.c.off, len = x->p.c.len;
    if (len - at < 7)
        return false;
    size_t m = u16_at(d + at + 5);
    at += 7;
    if (len - at < m || len - at - m < 2)
        return false;
    at += m;
    unsigned n = u16_at(d + at);
    at += 2;
    for (; n; n--) {
        if (at >= len)
            return false;
        unsigned t = d[at++];
        if (t >= DNP_N_TYPES || !value_clean(d, &at, len, t))
            return false;
    }
    return true;
}

static void link_state_read(dnp_ctx *x)
{
    gw_pdu *p = &x->p;
    const uint8_t *d = p->c.data;
    size_t off = p->c.off;
    unsigned seq = u16_at(d + off), flags = d[off + 4];
    gw_record_num(p, DNP_F_SEQ, seq);
    p->c.off = off + 2;
    check_seq(p, off, seq);
    if (p->failed)
        return;
    gw_record_num(p, DNP_F_LINK_ID, u16_at(d + off + 2));
    gw_record_num(p, DNP_F_FLAGS, flags);
    p->c.off = off + 5;
    check_link_flags(p, off + 4, flags);
    if (p->failed)
        return;
    size_t m = u16_at(d + off + 5);
    gw_record_num(p, DNP_F_MESSAGE_LENGTH, m);
    gw_pdu_text(p, DNP_F_MESSAGE, off + 7, m);
    off += 7 + m;
    unsigned n = u16_at(d + off);
    gw_record_num(p, DNP_F_VALUE_COUNT, n);
    p->c.off = off + 2;
    check_value_count(p, off, n);
    if (p->failed)
        return;
    unsigned outer = p->index, v = 0;
    while (v < n && !p->failed) {
        p->index = v++;
        value_item(x, DNP_F_VALUE_TYPE, 1, check_state_type);
    }
    p->repeats = v;
    p->index = outer;
}

/* the layout l at the cursor: false when decoding failed */
static bool run_layout(dnp_ctx *x, const gw_lstep *l)
{
    gw_layout_run_numbers_first(&x->p, l); /* (reliable ack, link up and down: numbers alone) */
    return !x->p.failed;
}

static bool link_state_quick(dnp_ctx *x)
{
    if (!quick_allowed(x) || !ref_geo.state_usable || !link_state_clean(x))
        return false;
    link_state_read(x);
    return true;
}

static void cmd_link_state(dnp_ctx *x)
{
    x->link = NULL;
    if (!link_state_quick(x))
        gw_layout_run(&x->p, link_state);
    x->link = values_read(x);
    if (!x->seen[DNP_F_MESSAGE])
        return;
    if (x->link)
        summary_add(x, ", %u value%s", x->link->count, x->link->count == 1 ? "" : "s");
    remember_link(x, (uint16_t)x->val[DNP_F_LINK_ID], (uint8_t)(x->val[DNP_F_FLAGS] & 1), x->link);
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
}

/* the first successful ack of reliable command s, `took` after it was first sent */
static void ack_reliable(dnp_ctx *x, dnp_sent *s, int64_t took, size_t off)
{
    if (sent_pending(s))
        x->conv->n_pending--;
    s->acked = 1;
    s->acked_ns = x->p.pi->time_ns;
    if (took > DNP_RELIABLE_TIMEOUT_NS)
        gw_emit_finding(&x->p.e, DNP_E_ACK_LATE, off, 2,
                        "Reliable number %u acknowledged %.3f s after frame %u (timeout 3 s)", s->seq,
                        (double)took / 1e9, s->first_frame);
    int64_t quiet = x->p.pi->time_ns - s->last_time_ns;
    if (quiet > DNP_RESEND_MISSING_NS && !s->resend_noted)
        gw_emit_finding(&x->p.e, DNP_E_RESEND_MISSING, off, 2,
                        "Reliable number %u went %.3f s without a resend before this ack", s->seq,
                        (double)quiet / 1e9);
    if (s->link_id < 0)
        return;
    dnp_link *link = link_of(x->conv, !x->p.pi->dir, (uint32_t)s->link_id);
    if (link && link->seq == s->seq) {
        link->acked = true;
        link->acked_ns = x->p.pi->time_ns;
    }
}

static void cmd_reliable_ack(dnp_ctx *x)
{
    size_t off = x->p.c.off;
    if (!run_layout(x, reliable_ack))
        return;
    uint32_t seq = (uint32_t)x->val[DNP_F_SEQ], code = (uint32_t)x->val[DNP_F_ACK_CODE];
    const char *cn = gw_value_name_of(ack_code_names, code);
    summary_add(x, " %s", cn ? cn : "unknown");
    if (!cn)
        gw_emit_finding(&x->p.e, DNP_E_UNKNOWN_ACK_CODE, 3, 1, "Unknown ack result %u", code);
    else if (code == 1)
        gw_emit_finding(&x->p.e, DNP_E_ACK_FAILED, 3, 1, "Receiver asks to resend #%u", seq);
    /* an ack answers a command sent the other way */
    dnp_sent *s = find_sent(&x->conv->dir[!x->p.pi->dir], (uint16_t)seq);
    if (s) {
        int64_t took = x->p.pi->time_ns - s->first_time_ns;
        gw_emit_gen_u(&x->p.e, DNP_F_ACK_REQUEST_FRAME, off, s->first_frame);
        gw_emit_gen_i(&x->p.e, DNP_F_ACK_TIME, off, took);
        if (!s->acked && code == 0)
            ack_reliable(x, s, took, off);
        else if (!s->acked && code == 1)
            s->resend_asked = true;
    } else {
        gw_emit_finding(&x->p.e, DNP_E_ACK_UNMATCHED, off, 2,
                        "Ack of reliable number %u, which was not seen", seq);
    }
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
}

static void cmd_link_up_down(dnp_ctx *x, bool up)
{
    if (!run_layout(x, link_up_down))
        return;
    uint32_t link_id = (uint32_t)x->val[DNP_F_LINK_ID];
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
    /* an answer to the other side's link state; else the sender's own link
       (taken down by it, or a link up it may not send) */
    dnp_link *link = link_of(x->conv, !x->p.pi->dir, link_id);
    if (!link)
        link = link_of(x->conv, x->p.pi->dir, link_id);
    bool from_sender = link && link->dir == x->p.pi->dir;
    if (!link) {
        if (!x->conv->midway)
            gw_emit_finding(&x->p.e, DNP_E_ANSWER_UNEXPECTED, 1, 2, "Link %s for link %u, which no link state set up",
                            up ? "up" : "down", link_id);
        return;
    }
    if (up && from_sender) {
        gw_emit_finding(&x->p.e, DNP_E_ANSWER_UNEXPECTED, 1, 2,
                        "Link up for link %u from the side that sent its link state (frame %u)", link_id,
                        link->frame);
        return;
    }
    if (!from_sender && link->answer == ANSWER_NONE && !link->acked)
        gw_emit_finding(&x->p.e, DNP_E_ANSWER_BEFORE_ACK, 1, 2,
                        "Link %s for link %u before the ack of its link state (frame %u)", up ? "up" : "down",
                        link_id, link->frame);
    link->answer = up ? ANSWER_UP : ANSWER_DOWN;
}

/* -- link update (9) -- */

/* The link update in one layout, from the cursor (after the command
   code). False when it cannot be read in this layout to the end of its
   links (decoding failed, or a link with no link state in the reference
   layout, shown raw). */
static bool read_update(dnp_ctx *x, int layout)
{
    x->spec_update = layout == DNP_LAYOUT_SPEC;
    x->unknown_link = x->links_said = false;
    x->cur_link = NULL;
    if (!ref_update_quick(x))
        gw_layout_run(&x->p, x->spec_update ? spec_update : ref_update);
    if (!x->p.sum.off) { /* (the summary's end) */
        if (!x->links_said && x->seen[DNP_F_LINK_COUNT]) /* no link read */
            link_count_said(x);
        if (!x->unknown_link && x->seen[DNP_F_LINK_COUNT] && x->val[DNP_F_LINK_COUNT] > 3)
            summary_add(x, "; ...");
    }
    return !x->p.failed;
}

/* a finding nobody hears: asking whether bytes parse (update_fits, the heuristic) */
/* x reads data[at..len) and reports nothing */
static void begin_quiet(dnp_ctx *x, const dnp_conv *conv, const uint8_t *data, size_t len, size_t at)
{
    /* as dnp_decode readies its context: the gw_pdu by gw_pdu_begin, seen[] cleared */
    memset((char *)x + sizeof x->p, 0, offsetof(dnp_ctx, val) - sizeof x->p);
    x->conv = (dnp_conv *)conv; /* only read */
    gw_pdu_begin(&x->p, &gw_dnp_protocol, &gw_quiet_sink, &gw_quiet_pi, data, len);
    x->p.rec = (gw_record){x->seen, x->val, x->text};
    x->p.c.off = at;
}

/* Does the whole link update parse, exactly, in this layout? */
static bool update_fits(const dnp_conv *conv, const uint8_t *data, size_t len, int layout)
{
    dnp_ctx y;
    begin_quiet(&y, conv, data, len, 1);
    y.p.hooks = &hooks; /* the links' types are looked up as in decoding */
    return read_update(&y, layout) && gw_remaining(&y.p.c) == 0;
}

/* Does the link update at x's cursor fit the text's layout, as far as the
   layout's geometry tells without reading values? Not when its bytes are
   fewer than its link count's links take at least (each its fixed part:
   the steps the text's layout reads first in a link, its id and value
   count); and links of no values take their fixed part alone, so while
   they have none where they end is known. Maybe (true) once a link has
   values: update_fits reads them. It knows the text's widths (a u16 link
   count, u16 link id and value count), which ref_shape checks once in
   spec_update (else it says maybe). */
static bool spec_may_fit(const dnp_ctx *x)
{
    geo_ready();
    if (!ref_geo.spec_widths)
        return true; /* (update_fits decides) */
    size_t left = gw_remaining(&x->p.c);
    if (left < 2)
        return false;
    const uint8_t *p = x->p.c.data + x->p.c.off;
    size_t n = u16_at(p);
    p += 2;
    left -= 2;
    if (left < n * 4)
        return false;
    for (; n; n--, p += 4, left -= 4)
        if (u16_at(p + 2))
            return true;
    return left == 0;
}

static void cmd_link_update(dnp_ctx *x)
{
    int layout = x->conv->opt[DNP_OPT_UPDATE_LAYOUT];
    if (layout == DNP_LAYOUT_AUTO) { /* tried only when the option does not force one */
        /* whether the reference's fits matters only when the text's does */
        bool spec_fits = spec_may_fit(x) && update_fits(x->conv, x->p.c.data, x->p.c.len, DNP_LAYOUT_SPEC);
        bool ref_fits = spec_fits && update_fits(x->conv, x->p.c.data, x->p.c.len, DNP_LAYOUT_REFERENCE);
        /* the text's layout only where the bytes leave no doubt: it fits
           exactly and the reference's does not; damaged datagrams are read
           as the reference's (the option forces either) */
        layout = (spec_fits && !ref_fits) ? DNP_LAYOUT_SPEC : DNP_LAYOUT_REFERENCE;
        if (spec_fits && ref_fits)
            gw_emit_finding(&x->p.e, DNP_E_LAYOUT_AMBIGUOUS, 1, gw_remaining(&x->p.c),
                            "Both link-update layouts fit; decoded as the reference's");
    }
    gw_emit_gen_u(&x->p.e, DNP_F_UPDATE_LAYOUT, 1, (uint64_t)layout);
    if (layout == DNP_LAYOUT_SPEC) {
        if (x->conv->opt[DNP_OPT_PROFILE] == GW_PROFILE_REFERENCE)
            gw_emit_finding(&x->p.e, DNP_E_SPEC_LAYOUT, 1, gw_remaining(&x->p.c),
                            "Link update in the published text's layout (u16 counts, type bytes)");
        else if (x->conv->opt[DNP_OPT_PROFILE] == GW_PROFILE_EITHER && !x->conv->noted_spec_layout) {
            /* the text's own layout: allowed by the text, so a note */
            x->conv->noted_spec_layout = true;
            gw_emit_finding(&x->p.e, DNP_E_DIV_LAYOUT, 1, gw_remaining(&x->p.c),
                            "Link updates in the text's layout (u16 counts, a type per value), which the "
                            "reference does not send");
        }
    } else {
        gw_emit_divergence(&x->p.e, x->conv->opt[DNP_OPT_PROFILE], DNP_E_REFERENCE_LAYOUT, DNP_E_DIV_LAYOUT,
                           &x->conv->noted_layout, 1, gw_remaining(&x->p.c),
                           "Link update in the reference layout (u8 counts, value index, no type)",
                           "Link updates in the reference layout (the text has u16 counts and a type per value)");
    }

    read_update(x, layout);
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
}

/* -- long commands (10, 11) -- */

static void cmd_message_long(dnp_ctx *x)
{
    if (!gw_layout_run(&x->p, message_long))
        return;
    uint16_t seq = (uint16_t)x->val[DNP_F_SEQ];
    uint32_t flags = (uint32_t)x->val[DNP_F_LONG_FLAGS];
    size_t off = (size_t)(x->text[DNP_F_CHUNK].p - x->p.c.data), n = x->text[DNP_F_CHUNK].n;
    size_t foff = off - 1; /* the flags before the chunk */
    dnp_direction *d = &x->conv->dir[x->p.pi->dir];
    /* a resend must not be appended twice */
    dnp_sent *s = find_sent(d, seq);
    bool resend = s && s->first_frame != x->p.pi->frame;
    summary_add(x, " part%s%s (%zu byte%s)", flags & 1 ? " first" : "", flags & 2 ? " last" : "", n,
                n == 1 ? "" : "s");
    if (resend)
        return;
    dnp_long *l = &d->lng;
    if (long_add(x, l, seq, flags & 1, flags & 2, x->p.c.data + off, n, NULL, 0, foff)) {
        emit_reassembly_info(x, l, off);
        x->p.e.sink->source(x->p.e.sink->ctx, 1, "Reassembled DNP message", l->out->data, l->out->len);
        x->p.e.src = 1;
        gw_emit_b(&x->p.e, DNP_F_MESSAGE, 0, l->out->len, l->out->data, l->out->len);
        x->p.e.src = 0;
        summary_add(x, ", message of %u %s reassembled", l->out->len, gw_bytes(l->out->len));
        long_reset(x->conv, l);
    }
}

static void cmd_link_state_long(dnp_ctx *x)
{
    if (!gw_layout_run(&x->p, link_state_long))
        return;
    uint16_t seq = (uint16_t)x->val[DNP_F_SEQ];
    uint32_t link_id = (uint32_t)x->val[DNP_F_LINK_ID], flags = (uint32_t)x->val[DNP_F_FLAGS];
    dnp_direction *d = &x->conv->dir[x->p.pi->dir];
    dnp_sent *s = find_sent(d, seq);
    bool resend = s && s->first_frame != x->p.pi->frame;
    const uint8_t *chunk = x->text[DNP_F_CHUNK].p, *values = x->text[DNP_F_VALUES_PART].p;
    size_t mlen = x->text[DNP_F_CHUNK].n, vn = x->text[DNP_F_VALUES_PART].n;
    size_t voff = (size_t)(values - x->p.c.data), foff = (size_t)(chunk - x->p.c.data) - 3;
    if (resend)
        return;
    dnp_long *l = &d->lng;
    if (!long_add(x, l, seq, flags & 2, flags & 4, chunk, mlen, values, vn, foff))
        return;
    emit_reassembly_info(x, l, voff);
    x->p.e.sink->source(x->p.e.sink->ctx, 1, "Reassembled DNP link-state message", l->out->data, l->out->len);
    x->p.e.sink->source(x->p.e.sink->ctx, 2, "Reassembled DNP link-state values", l->vout->data, l->vout->len);
    x->p.e.src = 1;
    gw_emit_b(&x->p.e, DNP_F_MESSAGE, 0, l->out->len, l->out->data, l->out->len);
    /* the values are decoded from their own reassembled buffer */
    x->p.e.src = 2;
    gw_cursor saved = x->p.c;
    x->p.c = (gw_cursor){l->vout->data, l->vout->len, 0};
    x->link = NULL;
    gw_layout_run(&x->p, state_values);
    dnp_link *link = values_read(x);
    if (link)
        summary_add(x, ", reassembled: %u value%s", link->count, link->count == 1 ? "" : "s");
    remember_link(x, (uint16_t)link_id, (uint8_t)(flags & 1), link);
    gw_pdu_trailing(&x->p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command");
    x->p.c = saved;
    x->p.e.src = 0;
    long_reset(x->conv, l);
}

/* ---- the connection's life ------------------------------------------------ */

/* Before the connection is accepted only the handshake; after a close
   nothing but a new connection request (the peer's commands that crossed
   the close excepted). Each reported once per connection or close. */
static void check_connection(dnp_ctx *x, uint8_t cmd)
{
    dnp_conv *c = x->conv;
    if (c->state == CONN_OPEN && cmd != DNP_CLOSE && cmd != DNP_CONNECT_REQUEST)
        return; /* (the usual case: nothing to note) */
    if (cmd == DNP_CONNECT_REQUEST && x->p.pi->dir == c->client_dir)
        return;
    if (cmd == DNP_CONNECT_REQUEST && c->state == CONN_NONE)
        return;
    switch (c->state) {
    case CONN_NONE:
        c->midway = true;
        c->state = CONN_OPEN;
        gw_emit_finding(&x->p.e, DNP_E_NOT_ACCEPTED, 0, 1,
                        "The conversation begins with command %u, not a connection request (or the capture "
                        "began after it)", cmd);
        return;
    case CONN_REQUESTED:
        if (cmd == DNP_CONNECT_ACK && x->p.pi->dir != c->client_dir)
            return;
        /* fall through */
    case CONN_REFUSED:
        if (!c->flagged_state)
            gw_emit_finding(&x->p.e, DNP_E_NOT_ACCEPTED, 0, 1, "Command %u %s", cmd,
                            c->state == CONN_REFUSED ? "after the connection was refused"
                                                     : "before the connection was accepted");
        c->flagged_state = true;
        return;
    case CONN_CLOSED:
        if (c->flagged_state ||
            (x->p.pi->dir != c->closer_dir && x->p.pi->time_ns - c->close_ns <= DNP_CLOSE_CROSSING_NS))
            return;
        c->flagged_state = true;
        gw_emit_finding(&x->p.e, DNP_E_AFTER_CLOSE, 0, 1, "Command %u %.3f s after the %s closed the connection",
                        cmd, (double)(x->p.pi->time_ns - c->close_ns) / 1e9,
                        x->p.pi->dir == c->closer_dir ? "same side" : "other side");
        return;
    default:
        if (cmd == DNP_CLOSE) {
            c->state = CONN_CLOSED;
            c->closer_dir = (uint8_t)x->p.pi->dir;
            c->close_ns = x->p.pi->time_ns;
            c->flagged_state = false;
        }
        return;
    }
}

/* what the end of the conversation leaves open, in frame order */
typedef struct {
    uint32_t frame;
    int64_t time_ns;
    int dir, finding;
    size_t off;
    char msg[112];
} dnp_open_item;

static int open_item_order(const void *a, const void *b)
{
    uint32_t fa = ((const dnp_open_item *)a)->frame, fb = ((const dnp_open_item *)b)->frame;
    return (fa > fb) - (fa < fb);
}

/* it, kept among what the end leaves open (the list made by the first:
   most conversations leave nothing) */
static void open_add(GArray **open, const dnp_open_item *it)
{
    if (!*open)
        *open = g_array_new(FALSE, TRUE, sizeof(dnp_open_item));
    g_array_append_vals(*open, it, 1);
}

static void conv_end(void *p, const gw_end_sink *sink)
{
    dnp_conv *c = conv_at(p);
    GArray *open = NULL;
    dnp_open_item it;
    for (int d = 0; d < 2; d++) {
        dnp_direction *dd = &c->dir[d];
        const dnp_sent *skipped_by = NULL;
        unsigned later = 0;
        for (unsigned i = HISTORY - dd->n_used; i < HISTORY; i++) { /* the oldest in use first */
            const dnp_sent *s = &dd->sent[(dd->sent_pos + i) % HISTORY];
            if (!s->used || s->discarded)
                continue;
            unsigned ahead = seq_ahead(seq_modulo(c), s->seq, dd->next);
            if (dd->started && ahead > 0 && ahead < DNP_WINDOW) {
                later++;
                if (!skipped_by || s->first_frame < skipped_by->first_frame)
                    skipped_by = s;
            }
            if (!s->acked && !s->resend_noted && c->state != CONN_CLOSED &&
                c->last_ns - s->last_time_ns > DNP_RESEND_MISSING_NS &&
                s->last_time_ns - s->first_time_ns < DNP_RELIABLE_TIMEOUT_NS) {
                it = (dnp_open_item){s->first_frame, s->first_time_ns, d, DNP_E_RESEND_MISSING, 1, ""};
                snprintf(it.msg, sizeof it.msg, "Reliable number %u was not resent in the %.3f s the conversation "
                         "went on unacknowledged", s->seq, (double)(c->last_ns - s->last_time_ns) / 1e9);
                open_add(&open, &it);
            }
            if (s->acked || c->last_ns - s->first_time_ns < DNP_RELIABLE_TIMEOUT_NS)
                continue;
            it = (dnp_open_item){s->first_frame, s->first_time_ns, d, DNP_E_ACK_MISSING, 1, ""};
            snprintf(it.msg, sizeof it.msg, "Reliable number %u never acknowledged", s->seq);
            open_add(&open, &it);
        }
        if (skipped_by && !(dd->first_not_zero && dd->next == 0)) {
            it = (dnp_open_item){skipped_by->first_frame, skipped_by->first_time_ns, d, DNP_E_SEQ_SKIPPED, 1, ""};
            snprintf(it.msg, sizeof it.msg, "Reliable number %u never sent, but %u later one%s", dd->next,
                     later, later == 1 ? " was" : "s were");
            open_add(&open, &it);
        }
    }
    for (uint32_t i = 0; i < 2 * LINKS_DIRECT + (c->links ? 1u << c->links_bits : 0); i++) {
        /* those in slots by id, then the table's in its order: sorted by
           frame below, and no two links have one */
        const dnp_link *l = i < 2 * LINKS_DIRECT ? slot_link(c, c->by_id[i / LINKS_DIRECT][i % LINKS_DIRECT])
                                                 : c->links[i - 2 * LINKS_DIRECT];
        if (!l || !l->acked || l->answer != ANSWER_NONE || c->last_ns - l->acked_ns < DNP_RELIABLE_TIMEOUT_NS)
            continue;
        it = (dnp_open_item){l->frame, l->time_ns, l->dir, DNP_E_LINK_UNANSWERED, 3, ""};
        snprintf(it.msg, sizeof it.msg, "Link %u acknowledged but neither link up nor link down followed",
                 l->id);
        open_add(&open, &it);
    }
    if (!open)
        return;
    g_array_sort(open, open_item_order);
    for (guint i = 0; i < open->len; i++) {
        const dnp_open_item *o = &g_array_index(open, dnp_open_item, i);
        sink->finding(sink->ctx, o->frame, o->time_ns, o->dir, o->finding, o->off, 2, o->msg);
    }
    g_array_free(open, TRUE);
}

/* Time passes with every PDU of the conversation, whichever way: a
   reliable command left unacknowledged past DNP_RESEND_MISSING_NS since its
   last transmission, within the reliable timeout, should have been resent
   by now (reported once, on the PDU that shows the time has passed; not
   after a close). Looked at every 100 ms of capture time at most. */
static void check_resends(dnp_ctx *x)
{
    dnp_conv *c = x->conv;
    int64_t now = x->p.pi->time_ns;
    if (now - c->resends_checked_ns < 100000000 || c->state == CONN_CLOSED)
        return;
    c->resends_checked_ns = now;
    /* none can be due yet: each that may still be reported was last sent
       at resend_due_ns or later */
    if (now - c->resend_due_ns <= DNP_RESEND_MISSING_NS)
        return;
    int64_t due = INT64_MAX;
    for (int d = 0; c->n_pending && d < 2; d++) /* (none pending: nothing to walk for) */
        for (unsigned i = HISTORY - c->dir[d].n_used; i < HISTORY; i++) { /* in use, the oldest first */
            dnp_sent *s = &c->dir[d].sent[(c->dir[d].sent_pos + i) % HISTORY];
            if (!s->used || !sent_pending(s))
                continue;
            if (now - s->last_time_ns <= DNP_RESEND_MISSING_NS) {
                if (s->last_time_ns < due)
                    due = s->last_time_ns;
                continue;
            }
            s->resend_noted = true;
            c->n_pending--;
            gw_emit_finding(&x->p.e, DNP_E_RESEND_MISSING, 0, 1,
                            "Reliable number %u (frame %u) has gone %.3f s unacknowledged without a resend", s->seq,
                            s->first_frame, (double)(now - s->last_time_ns) / 1e9);
        }
    c->resend_due_ns = due;
}

/* ---- entry points ----------------------------------------------------------- */

static void dnp_decode(void *conv, const gw_pdu_info *pi, const uint8_t *data, size_t len,
                       const gw_sink *sink)
{
    dnp_ctx x;
    /* what follows the gw_pdu (gw_pdu_begin readies it) up to seen[]:
       val[] and text[] are read only where seen[] is set */
    memset((char *)&x + sizeof x.p, 0, offsetof(dnp_ctx, val) - sizeof x.p);
    x.conv = conv_at(conv);
    /* A link update reads its links' types first thing, the conversation's
       first line (by_id) then a link's slot: asked for now, with that
       line, the slot comes at once rather than after it (on the bench
       captures the state is seldom in the cache, packets of other
       conversations coming between). The first slot: where a
       conversation's first link is kept. */
    if (len >= 4 && data[0] == DNP_LINK_UPDATE)
        __builtin_prefetch(&x.conv->link_slots[0]);
    gw_pdu_begin(&x.p, &gw_dnp_protocol, sink, pi, data, len);
    x.p.rec = (gw_record){x.seen, x.val, x.text};
    x.p.hooks = &hooks;
    x.conv->last_ns = pi->time_ns;
    uint32_t cmd = 0;
    if (!gw_pdu_need(&x.p, 1, "Command code")) {
        gw_sink_summary(sink, "Empty datagram");
        return;
    }
    gw_take_u32(&x.p, DNP_F_COMMAND, 1, &cmd);
    check_connection(&x, cmd);
    check_resends(&x);
    if (len > DNP_MESSAGE_RULE_OF_THUMB && pi->transport == GW_TRANSPORT_UDP)
        gw_emit_finding(&x.p.e, DNP_E_OVER_1200, 0, len, "A %zu-byte datagram (the text's rule of thumb: 1200)",
                        len);
    if (!x.p.sum.off) {
        const char *name = gw_value_name_of(command_names, cmd);
        if (name)
            summary_add(&x, "%s", name);
        else
            summary_add(&x, "Unknown command %u", cmd);
    }

    switch (cmd) {
    case DNP_CONNECT_REQUEST: cmd_connect_request(&x); break;
    case DNP_CONNECT_ACK: cmd_connect_ack(&x); break;
    case DNP_CLOSE: gw_pdu_trailing(&x.p, DNP_F_TRAILING, DNP_E_TRAILING, "%zu trailing byte%s after the command"); break;
    case DNP_MESSAGE: cmd_message(&x, false); break;
    case DNP_RELIABLE_MESSAGE: cmd_message(&x, true); break;
    case DNP_LINK_STATE: cmd_link_state(&x); break;
    case DNP_RELIABLE_ACK: cmd_reliable_ack(&x); break;
    case DNP_LINK_UP: cmd_link_up_down(&x, true); break;
    case DNP_LINK_DOWN: cmd_link_up_down(&x, false); break;
    case DNP_LINK_UPDATE: cmd_link_update(&x); break;
    case DNP_RELIABLE_MESSAGE_LONG:
    case DNP_LINK_STATE_LONG:
        gw_emit_divergence(&x.p.e, x.conv->opt[DNP_OPT_PROFILE], DNP_E_NOT_IN_TEXT, DNP_E_DIV_LONG, &x.conv->noted_long, 0, 1,
                           "Command %u is not in the published text",
                           "Command %u: the published text has no long commands", cmd);
        if (cmd == DNP_RELIABLE_MESSAGE_LONG)
            cmd_message_long(&x);
        else
            cmd_link_state_long(&x);
        break;
    default:
        gw_emit_finding(&x.p.e, DNP_E_UNKNOWN_COMMAND, 0, 1, "Unknown command code %u", cmd);
        gw_take_rest(&x.p, DNP_F_UNDECODED);
        break;
    }
    gw_pdu_finish(&x.p);
}


/* Strong enough to claim a conversation on an unknown port: only commands
 * whose whole datagram is determined by the layout and that parse exactly:
 * the connection request and ack (how every conversation starts) and the
 * link state. */
static bool dnp_heuristic(const int *opts, int transport, const uint8_t *data, size_t len)
{
    (void)opts; /* the layouts it accepts do not depend on them */
    if (len < 2 || transport != GW_TRANSPORT_UDP)
        return false;
    const gw_lstep *l = data[0] == DNP_CONNECT_REQUEST ? connect_request
                      : data[0] == DNP_CONNECT_ACK    ? connect_ack
                      : data[0] == DNP_LINK_STATE     ? link_state
                                                      : NULL;
    if (!l)
        return false;
    /* the whole datagram in the command's layout, exactly */
    dnp_ctx y;
    begin_quiet(&y, NULL, data, len, 1);
    y.p.hooks = &heuristic_hooks;
    bool fits = gw_layout_run(&y.p, l) && !y.implausible && gw_remaining(&y.p.c) == 0;
    if (l == link_state) /* at least one value */
        fits = fits && y.seen[DNP_F_VALUE_COUNT] && y.val[DNP_F_VALUE_COUNT] > 0;
    return fits;
}

/* pcaptool stats and the statistics tree: ack response times */
static const int measures[] = {DNP_F_ACK_TIME};


const gw_protocol gw_dnp_protocol = {
    .name = "dnp",
    .short_name = "DNP",
    .long_name = "Drag[en]gine game engine Network Protocol",
    .transports = GW_TRANSPORT_UDP,
    .default_port = DNP_PORT,
    .fields = fields,
    .n_fields = DNP_F_COUNT,
    .findings = findings,
    .n_findings = DNP_E_COUNT,
    .truncated_finding = DNP_E_TRUNCATED,
    .rest_field = DNP_F_UNDECODED,
    .rules = rules,
    .n_rules = (int)(sizeof rules / sizeof rules[0]),
    .type_field = DNP_F_COMMAND,
    .measures = measures,
    .n_measures = (int)(sizeof measures / sizeof measures[0]),
    .options = options,
    .n_options = (int)(sizeof options / sizeof options[0]),
    .conv_size = sizeof(dnp_conv) + CONV_LINE - 1, /* (conv_at) */
    .conv_init = conv_init,
    .conv_free = conv_free,
    .conv_held = conv_held,
    .conv_end = conv_end,
    .decode = dnp_decode,
    .heuristic = dnp_heuristic,
    .build = dnp_build,
};
