/* gw_core.h - the protocol-independent half of the decoder library.
 *
 * Everything a front end needs to show a protocol comes from here: the field
 * and finding tables (the only place a field or finding is named), the
 * decode context decoders read through (gw_pdu and its bounds-checked
 * gw_take_* readers), options, and the sink interface through
 * which a decoder reports fields, subtrees, findings and its one-line summary.
 * Nothing here knows Wireshark or libpcap.
 */
#ifndef GW_CORE_H
#define GW_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- field tables ------------------------------------------------------ */

typedef enum {
    GW_FT_NONE,     /* a label or subtree head, carries no value */
    GW_FT_U8, GW_FT_U16, GW_FT_U32, GW_FT_U64,
    GW_FT_I8, GW_FT_I16, GW_FT_I32, GW_FT_I64,
    GW_FT_BOOL,
    GW_FT_DOUBLE,
    GW_FT_STRING,   /* UTF-8 bytes, not NUL-terminated on the wire */
    GW_FT_BYTES,
    GW_FT_IPV4,     /* 4 address bytes in network order (v.b) */
    GW_FT_IPV6,     /* 16 address bytes (v.b) */
    GW_FT_FRAMENUM, /* a frame number (links between frames) */
    GW_FT_RELTIME,  /* nanoseconds (v.i), shown as a relative time */
    GW_FT_ABSTIME,  /* nanoseconds since the Unix epoch (v.i), shown as a UTC date
                       (gw_format_date, 9 digits: as Wireshark shows an absolute
                       time in UTC), so that a filter can compare it to a date */
} gw_ftype;

/* How a number is shown. Past DEC_HEX: decimal with a unit, or a date;
   both front ends format these through gw_format_number, so that they read
   the same ("Real time: 12.5 s", "Max incoming rate: unlimited (0)") */
typedef enum {
    GW_BASE_NONE, GW_BASE_DEC, GW_BASE_HEX, GW_BASE_DEC_HEX,
    GW_BASE_SECONDS,          /* "12.5 s" */
    GW_BASE_MILLISECONDS,     /* "40 ms" */
    GW_BASE_BYTES,            /* "14616 bytes" */
    GW_BASE_BYTES_PER_SECOND, /* "5000 bytes/s" */
    GW_BASE_EPOCH_MS,         /* milliseconds since the Unix epoch: "Nov 23, 2026
                                 10:00:00.123 UTC (1795428000123 ms)" */
} gw_base;

typedef struct {
    uint32_t value;
    const char *name;
    uint32_t max;     /* > value: the name covers value..max */
} gw_value_name;  /* tables end with {0, NULL} */

/* field flags */
#define GW_FIELD_TWO_PASS 0x1u /* only known once later frames were seen
                                  (Wireshark's second pass); pcaptool streams
                                  and never emits it */

typedef struct {
    const char *abbrev;          /* filter name, e.g. "dnp.link_id" */
    const char *name;            /* display name */
    gw_ftype type;
    gw_base base;
    const gw_value_name *names;  /* value names, or NULL */
    uint64_t mask;               /* bit mask inside the container, or 0 */
    const char *blurb;           /* one-line description */
    unsigned flags;
    int reverse;                 /* for a FRAMENUM back link: the field shown on
                                    the frame linked to (two-pass), or -1 */
} gw_field;

typedef enum { GW_SEV_NOTE = 0, GW_SEV_WARNING = 1, GW_SEV_ERROR = 2 } gw_severity;

/* what a finding is about, as Wireshark groups expert info
   (doc/README.dissector): malformed bytes; protocol violations; numbering,
   acks, retransmission, reassembly; refusals and error codes; what is shown
   raw; differences between the reference implementations and the texts,
   and choices the decoder made */
typedef enum {
    GW_GROUP_MALFORMED,
    GW_GROUP_PROTOCOL,
    GW_GROUP_SEQUENCE,
    GW_GROUP_RESPONSE_CODE,
    GW_GROUP_UNDECODED,
    GW_GROUP_COMMENT,
} gw_group;

typedef struct {
    const char *code;     /* stable, e.g. "dnp.seq.outside_window" */
    gw_severity severity;
    const char *summary;  /* what it means, one line */
    gw_group group;
} gw_finding_def;

/* "malformed", "protocol", "sequence", "response_code", "undecoded", "comment" */
const char *gw_group_name(gw_group g);

/* A behaviour rule: a finding that says what a correct peer must or must
 * not do, with the sentence of the protocol text or reference behaviour it
 * enforces. pcaptool validate reports every finding; its catalogue, JUnit
 * test cases and per-rule captures are about the rules. */
typedef struct {
    int finding;          /* index into the protocol's findings */
    const char *enforces; /* the text or behaviour, quoted or paraphrased, with its source */
} gw_rule;

/* ---- values and the sink ----------------------------------------------- */

typedef struct {
    union {
        uint64_t u;     /* U*, BOOL, FRAMENUM */
        int64_t i;      /* I*, RELTIME (nanoseconds) */
        double d;       /* DOUBLE */
        struct { const uint8_t *p; size_t n; } b; /* STRING, BYTES */
    };
} gw_value;

/* item flags */
#define GW_ITEM_GENERATED 0x1u  /* derived, not on the wire */
#define GW_ITEM_BIG_ENDIAN 0x2u /* a number read most significant byte first
                                   (gw_take_num: what pcaptool replay needs
                                   to write a new value over it) */
#define GW_ITEM_HIDDEN 0x4u     /* not shown in a tree or pcaptool's text, but
                                   filterable and in JSON: the decoder's own
                                   number for what another item shows by name
                                   (the packet an OpenTTD type means in every
                                   release's numbering) */

/* An item a decoder reports. Invariant the front ends rely on: a STRING or
 * BYTES item covers exactly its value's bytes (v.b.p == source + off and
 * v.b.n == len), so Wireshark can read it from the tvb; except a GENERATED
 * STRING, a text derived from earlier packets (gw_emit_gen_s). */
typedef struct {
    int field;        /* index into the protocol's field table */
    int src;          /* data source: 0 = the PDU, >0 = one opened by source() */
    size_t off, len;  /* bytes the item covers in that source */
    gw_value v;
    unsigned flags;
    const char *label;/* GW_FT_NONE: its text (NULL = the field's name); a
                         number: the name of its value where the field's
                         table cannot give it, because it depends on the
                         conversation (gw_emit_named_u), or NULL */
} gw_item;

typedef struct gw_sink {
    void *ctx;
    /* item, push and pop may be NULL: a front end that wants no fields
       (pcaptool validate) */
    void (*item)(void *ctx, const gw_item *it);
    /* the last item becomes the head of a subtree until pop() */
    void (*push)(void *ctx);
    void (*pop)(void *ctx, size_t end_off);
    void (*finding)(void *ctx, int finding, int src, size_t off, size_t len,
                    const char *message);
    /* May be NULL (every message wanted). False: this finding's message
       will not be shown (pcaptool validate's text report shows the first
       of each rule), so finding() gets NULL instead of a formatted one. */
    bool (*wants_message)(void *ctx, int finding);
    /* NULL when the front end shows no summary (pcaptool validate): the
       decoder then need not build it (gw_sink_summary) */
    void (*summary)(void *ctx, const char *text);
    /* true when the front end shows no item labels (pcaptool decode
       without -V: JSON and one line a PDU): decoders need not format them
       (gw_emit_text) */
    bool no_labels;
    /* a new data source (reassembled bytes), numbered from 1 in a PDU */
    void (*source)(void *ctx, int src, const char *name, const uint8_t *data,
                   size_t len);
    /* a linked conversation of the same protocol is announced (e.g. GNE's
       UDP link negotiated over TCP): on `transport`, between `port` on the
       address of side `port_side` of this conversation (0 = initiator,
       1 = responder) and any port of the other side's address. Its initiator
       is the address of this conversation's initiator; its state is
       conv_init() then conv_link(new, conv). Called with expect_ctx, not
       ctx (pcaptool's run links the conversations itself). May be NULL. */
    void (*expect)(void *expect_ctx, int transport, int port_side, uint16_t port, const void *conv);
    void *expect_ctx;
} gw_sink;

typedef enum { GW_TRANSPORT_UDP = 1, GW_TRANSPORT_TCP = 2 } gw_transport;

/* findings only known once a conversation has ended (e.g. a request that was
   never answered), each about an earlier PDU: its frame, capture time,
   direction, and the byte range within it. Wireshark shows them on that
   frame (second pass); pcaptool prints them when the conversation ends. */
typedef struct {
    void *ctx;
    void (*finding)(void *ctx, uint32_t frame, int64_t time_ns, int dir, int finding,
                    size_t off, size_t len, const char *msg);
    /* May be NULL (every message wanted). False: the message of this
       finding about `frame` will not be shown (gw_sink.wants_message), so
       finding() may get NULL instead of a formatted one; true: the
       finding() that follows carries it (gw_end_wants_message). */
    bool (*wants_message)(void *ctx, uint32_t frame, int finding);
} gw_end_sink;

static inline bool gw_end_wants_message(const gw_end_sink *s, uint32_t frame, int finding)
{
    return !s->wants_message || s->wants_message(s->ctx, frame, finding);
}

/* ---- per-PDU context handed to every decoder --------------------------- */

/* A capture time in nanoseconds from seconds and nanoseconds as a capture
   file gives them, kept within 0..2^62 so that the difference of any two
   fits in an int64_t: a damaged file's timestamps may be anything. */
static inline int64_t gw_time_ns(int64_t sec, int64_t nsec)
{
    if (sec < 0)
        return 0;
    if (sec >= (INT64_C(1) << 62) / 1000000000)
        return INT64_C(1) << 62;
    if (nsec < 0)
        nsec = 0;
    if (nsec > 999999999)
        nsec = 999999999;
    return sec * 1000000000 + nsec;
}

typedef struct {
    uint32_t frame;  /* 1-based frame number */
    int64_t time_ns; /* capture time, nanoseconds since the epoch */
    int dir;         /* 0 = from the conversation's initiator, 1 = towards it */
    int transport;   /* GW_TRANSPORT_UDP or GW_TRANSPORT_TCP */
} gw_pdu_info;

/* ---- options (preferences in Wireshark, --option in pcaptool) ---------- */

typedef struct {
    int value;
    const char *token;  /* as typed: "auto" */
    const char *title;  /* as shown: "Automatic" */
} gw_choice;           /* lists end with {0, NULL, NULL} */

/* conformance profiles (a protocol's "profile" option, pcaptool --profile) */
enum gw_profile {
    GW_PROFILE_REFERENCE = 0, /* strict: what the reference implementation does */
    GW_PROFILE_SPEC = 1,      /* strict: the published text, literally */
    GW_PROFILE_EITHER = 2,    /* the default: what either of them allows is no
                                 warning or error (a note says which reading) */
};
extern const gw_choice gw_profile_choices[];

/* A protocol's options are an array of ints, one for each entry of its
   gw_protocol.options table, in the table's order: the front end owns it
   (pcaptool per run, Wireshark as preferences), readies it with
   gw_options_init() and hands it to conv_init(), pdu_length() and
   heuristic(). No decoder keeps an option of its own. */
#define GW_MAX_OPTIONS 8
typedef struct {
    const char *name;          /* "update_layout": full name is proto.name */
    const char *title;
    const char *description;
    const gw_choice *choices;  /* enumerated values */
    int default_value;
} gw_option;

/* ---- protocols ----------------------------------------------------------- */


struct gw_wval; /* gw_layout.h */
typedef struct gw_protocol {
    const char *name;        /* filter name, "dnp" */
    const char *short_name;  /* "DNP" */
    const char *long_name;   /* "Drag[en]gine Network Protocol" */
    unsigned transports;     /* GW_TRANSPORT_* bits */
    uint16_t default_port;
    const gw_field *fields;
    int n_fields;
    const gw_finding_def *findings;
    int n_findings;
    const gw_rule *rules;
    int n_rules;
    /* running out of bytes (gw_pdu_truncated): the finding reported and the
       field the bytes left are shown as */
    int truncated_finding;
    int rest_field;
    /* statistics (pcaptool stats, Wireshark's statistics tree): the field
       whose value names a PDU's type, and numeric fields summarised per
       conversation (min, median, max) */
    int type_field;
    /* a PDU made of parts (GNE's packet chains): the field naming each
       part's type, counted per part beside the PDU types; 0: none (field 0
       never names a part) */
    int part_type_field;
    const int *measures;
    int n_measures;
    const gw_option *options;
    int n_options;
    /* conversation state of conv_size bytes: conv_init readies it (bytes it
       leaves unset are never read) */
    size_t conv_size;
    void (*conv_init)(void *conv, const int *opts);
    void (*conv_free)(void *conv);
    /* what the state holds on the heap beyond its conv_size bytes, allocator
       overhead included, as an upper bound: pcaptool's bound on decoder
       state counts it. O(1) (a running count). NULL: nothing. */
    size_t (*conv_held)(const void *conv);
    /* a conversation announced by sink->expect() inherits from its parent */
    void (*conv_link)(void *conv, const void *parent);
    /* the conversation has ended (end of capture, or its state is given up):
       report what is still open. Called at most once, before conv_free. May
       be NULL. */
    void (*conv_end)(void *conv, const gw_end_sink *sink);
    /* decode one PDU (for UDP: one datagram) */
    void (*decode)(void *conv, const gw_pdu_info *pi, const uint8_t *data,
                   size_t len, const gw_sink *sink);
    /* TCP framing, used by Wireshark's tcp_dissect_pdus and pcaptool's
       reassembler alike: given the `avail` bytes at the start of a PDU
       (at least pdu_header of them), its length (which may exceed avail),
       or GW_PDU_INVALID when these bytes cannot start a PDU: the rest of
       the segment is then handed to decode() as one PDU, which reports it,
       and the next segment is tried as a fresh start. */
    long (*pdu_length)(const int *opts, const uint8_t *data, size_t avail);
    size_t pdu_header;
    /* do these first bytes (a UDP datagram, or the first data of a TCP
       stream) look like the protocol, strongly enough to claim a
       conversation on an unknown port? */
    bool (*heuristic)(const int *opts, int transport, const uint8_t *data, size_t len);
    /* The PDUs pcaptool replay and conform send (their hooks and cases
       are not here: common/protocols_active.c finds them by the protocol's
       name), built from the decoder's own layouts: PDU `type` from vals
       (gw_layout.h) at out, framing included; its length, or 0 when it
       cannot be built */
    size_t (*build)(const int *opts, int64_t type, const struct gw_wval *vals, uint8_t *out, size_t cap);
} gw_protocol;

#define GW_PDU_INVALID (-1L)

/* every protocol the library knows, NULL-terminated; any index up to
   GW_MAX_PROTOCOLS may be read */
#define GW_MAX_PROTOCOLS 8
extern const gw_protocol *const gw_protocols[GW_MAX_PROTOCOLS + 1];
const gw_protocol *gw_protocol_by_name(const char *name);
/* Does a conversation on an unknown port belong to p? Its heuristic says
   so, and its decoder then decodes the datagram (or, over TCP, the first
   PDU when the segment holds it whole) without an error in a fresh
   conversation state: a heuristic never claims what the decoder would call
   malformed. Both front ends ask this, never the bare heuristic. */
bool gw_heuristic_accepts(const gw_protocol *p, const int *opts, int transport, const uint8_t *data,
                          size_t len);
/* p's options at their defaults (opts has GW_MAX_OPTIONS ints) */
void gw_options_init(const gw_protocol *p, int *opts);

/* ---- helpers for decoders ------------------------------------------------ */

/* a bounds-checked reader over one buffer */
typedef struct {
    const uint8_t *data;
    size_t len;
    size_t off;
} gw_cursor;

static inline size_t gw_remaining(const gw_cursor *c) { return c->len - c->off; }
bool gw_read_u8(gw_cursor *c, uint8_t *v);
bool gw_read_u16le(gw_cursor *c, uint16_t *v);
bool gw_read_u32le(gw_cursor *c, uint32_t *v);
bool gw_read_u64le(gw_cursor *c, uint64_t *v);
bool gw_skip(gw_cursor *c, size_t n);

/* an unsigned number of n (1..8) bytes at p, in either byte order (inline:
   with a constant n the compiler makes it one load) */
static inline uint64_t gw_get_uint(const uint8_t *p, unsigned n, bool big_endian)
{
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    switch (n) { /* the usual widths: one load, swapped for big-endian */
    case 1:
        return p[0];
    case 2: {
        uint16_t w;
        memcpy(&w, p, 2);
        return big_endian ? __builtin_bswap16(w) : w;
    }
    case 4: {
        uint32_t w;
        memcpy(&w, p, 4);
        return big_endian ? __builtin_bswap32(w) : w;
    }
    case 8:
        memcpy(&v, p, 8);
        return big_endian ? __builtin_bswap64(v) : v;
    default:
        break;
    }
#endif
    if (big_endian)
        for (unsigned i = 0; i < n; i++)
            v = v << 8 | p[i];
    else
        for (unsigned i = n; i-- > 0;)
            v = v << 8 | p[i];
    return v;
}

/* the low n (1..8) bytes of v at p, in either byte order (gw_get_uint's
   writer: pcaptool replay rewrites numbers in place) */
static inline void gw_put_uint(uint8_t *p, unsigned n, uint64_t v, bool big_endian)
{
    for (unsigned i = 0; i < n; i++)
        p[big_endian ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

double gw_half_to_double(uint16_t h);
/* an IEEE 754 number of `size` bytes (2, 4 or any other: 8) from its bits */
static inline double gw_float_bits(uint64_t bits, unsigned size)
{
    if (size == 2)
        return gw_half_to_double((uint16_t)bits);
    if (size == 4) {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        return f;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}
uint64_t gw_sign_extend(uint64_t v, unsigned bytes);

/* a PDU's one-line summary, built piece by piece; never overflows. When
   the front end shows none (gw_sink.summary is NULL), `off` is set and
   nothing is formatted. */
typedef struct {
    char text[256];
    size_t len;
    bool off;
} gw_summary;
static inline void gw_sink_summary(const gw_sink *sink, const char *text)
{
    if (sink->summary)
        sink->summary(sink->ctx, text);
}
void gw_summary_format(gw_summary *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* add to the summary; when it is off, not even the arguments are evaluated
   (they must have no side effects) */
#define gw_summary_add(s, ...)                \
    do {                                      \
        if (!(s)->off)                        \
            gw_summary_format(s, __VA_ARGS__); \
    } while (0)

/* packet text fit for a summary line: valid UTF-8 kept, control characters
   and invalid bytes shown as '?', cut at max_chars characters ("..." added) */
void gw_clean_text(char *out, size_t outsz, const uint8_t *p, size_t n, size_t max_chars);

/* Do these bytes read as text (a payload worth showing as a string as well
   as bytes)? At least 4 of them, valid UTF-8 without NUL, and at most one
   control character (other than tab, CR, LF) in eight. */
bool gw_looks_like_text(const uint8_t *p, size_t n);
/* Valid UTF-8 without NUL, as g_utf8_validate(p, n, NULL) judges it:
   ASCII checked eight bytes at a time, anything else by GLib. */
bool gw_utf8_valid(const uint8_t *p, size_t n);
/* The value of a BYTES item as pcaptool shows it, and the plugin where
   Wireshark's own display would differ (an empty item, which it calls
   "<MISSING>"; text): "(empty)"; else its first 64 bytes in hex ("... (N
   bytes)" after them when there are more) and, when they read as text
   (gw_looks_like_text), the text in quotes, cleaned (gw_clean_text) and
   cut at 64 characters: 506c617965725f30 ("Player_0"). Returns buf, of
   at least GW_BYTES_TEXT_MAX bytes for the whole of it. */
#define GW_BYTES_TEXT_MAX 512
const char *gw_format_bytes(char *buf, size_t n, const uint8_t *p, size_t len);

const char *gw_value_name_of(const gw_value_name *names, uint32_t v);
/* the same, or `fallback` when v has no name */
const char *gw_value_name_or(const gw_value_name *names, uint32_t v, const char *fallback);
const char *gw_severity_name(gw_severity s);

/* the value a masked field shows (mask applied and shifted down) */
uint64_t gw_field_masked(const gw_field *f, uint64_t raw);

/* A type's name in the statistics (pcaptool stats, Wireshark's trees): its
   value's name; "name (v)" when the name covers a range of values (GNE's
   user packets 16-255); "unknown (v)" when it has none. Returns buf or a
   static name. */
const char *gw_type_name(char *buf, size_t n, const gw_field *f, uint64_t v);

/* Does a number of this field need gw_format_number's text (a unit, a
   date), where a front end would otherwise show it its own way? */
static inline bool gw_field_formatted(const gw_field *f)
{
    return f->base > GW_BASE_DEC_HEX || (f->base == GW_BASE_NONE && f->type >= GW_FT_U8 && f->type <= GW_FT_I64);
}
/* The text of a number item's value as both front ends show it after
   "Name: ": its name (value_name, else the field's names) with the number
   in parentheses, a unit, a date; hex padded to the field's width as
   Wireshark pads it; doubles as Wireshark prints them (%.15g). An integer
   field of base NONE is an enumeration of the decoder's own (what it chose
   or derived, never a number on the wire): a named value shows its name
   alone ("Data byte order: Little-endian"). For U*, I*, BOOL and DOUBLE
   fields; returns buf. */
const char *gw_format_number(char *buf, size_t n, const gw_field *f, const gw_value *v,
                             const char *value_name);
/* nanoseconds as seconds.nanoseconds, nine digits after the point (a
   capture time, or a relative time that may be negative, as both front
   ends show it), into out, not NUL-terminated; returns the length */
size_t gw_seconds_text(char out[32], int64_t ns);
/* a cache line: where the parts of a conversation's state that one packet
   reads together start (pcaptool's flows, DNP's state) */
#define GW_LINE 64
/* p, or the first cache line boundary after it */
static inline void *gw_line_up(const void *p)
{
    return (void *)(((uintptr_t)p + GW_LINE - 1) & ~(uintptr_t)(GW_LINE - 1));
}

/* gw_copy_short's n bytes, w <= n <= 2w, as the first w and the last w
   (overlapping): with w a constant, a load and a store each */
static inline __attribute__((always_inline)) void gw_copy_ends(char *q, const char *s, size_t n, size_t w)
{
    char a[16], z[16];
    memcpy(a, s, w);
    memcpy(z, s + n - w, w);
    memcpy(q, a, w);
    memcpy(q + n - w, z, w);
}

/* memcpy(q, s, n), for the short copies most text is made of (JSON keys,
   numbers, names; a summary's pieces) inline rather than a call: two
   overlapping loads and stores */
static inline void gw_copy_short(char *q, const char *s, size_t n)
{
    if (n > 32)
        memcpy(q, s, n);
    else if (n >= 16)
        gw_copy_ends(q, s, n, 16);
    else if (n >= 8)
        gw_copy_ends(q, s, n, 8);
    else if (n >= 4)
        gw_copy_ends(q, s, n, 4);
    else if (n) {
        q[0] = s[0];
        q[n / 2] = s[n / 2];
        q[n - 1] = s[n - 1];
    }
}

/* "00" "01" ... "99": a number's decimal digits two at a time */
extern const char gw_two_digits[201];
/* v's digits written backwards so that they end at `end` (room for 20
   before it): where they start. Decimal; lower-case hex, at least width
   digits (zeros before, width <= 16). */
char *gw_decimal_back(char *end, uint64_t v);
char *gw_hex_back(char *end, uint64_t v, unsigned width);
/* nanoseconds since the Unix epoch as Wireshark shows a UTC time,
   "Nov 23, 2026 10:00:00.123456789 UTC", with `digits` (0..9) digits of
   the fraction; "(not a date)" before 1970 */
const char *gw_format_date(char *buf, size_t n, int64_t ns, int digits);

/* "byte" for 1, "bytes" for any other count: "1 byte", "2 bytes" */
static inline const char *gw_bytes(uint64_t n)
{
    return n == 1 ? "byte" : "bytes";
}

/* Convenience emitters used by decoders. */
typedef struct {
    const gw_sink *sink;
    int src;                    /* current data source */
    const gw_finding_def *defs;
} gw_emit;

/* Does the front end show item labels? Not when gw_sink.summary is NULL
   (pcaptool validate and stats: no text at all) nor when no_labels is set
   (pcaptool decode's JSON and one-line text): decoders then skip
   formatting labels and pass NULL, which stands for the field's name. */
static inline bool gw_emit_text(const gw_emit *e) { return e->sink->summary != NULL && !e->sink->no_labels; }
/* Does the front end take items or a tree of them? Not pcaptool validate,
   nor a quiet run: decoders may then read a part's bytes without emitting
   its items (findings are still reported). */
static inline bool gw_emit_tree(const gw_emit *e)
{
    return e->sink->item || e->sink->push || e->sink->pop;
}

/* An item to the sink, for a front end that takes items (gw_sink.item):
   the emitters below test that inline, so that where nobody takes items
   (pcaptool validate and stats, quiet runs) an item costs a test, not a
   call. */
static inline void gw_emit_item(gw_emit *e, int field, size_t off, size_t len, gw_value v, unsigned flags,
                                const char *label)
{
    if (!e->sink->item)
        return;
    gw_item it = {.field = field, .src = e->src, .off = off, .len = len, .v = v, .flags = flags, .label = label};
    e->sink->item(e->sink->ctx, &it);
}
static inline void gw_emit_u(gw_emit *e, int field, size_t off, size_t len, uint64_t v)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.u = v}, 0, NULL);
}
static inline void gw_emit_i(gw_emit *e, int field, size_t off, size_t len, int64_t v)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.i = v}, 0, NULL);
}
static inline void gw_emit_d(gw_emit *e, int field, size_t off, size_t len, double v)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.d = v}, 0, NULL);
}
static inline void gw_emit_b(gw_emit *e, int field, size_t off, size_t len, const uint8_t *p, size_t n)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.b = {p, n}}, 0, NULL);
}
static inline void gw_emit_gen_u(gw_emit *e, int field, size_t off, uint64_t v)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, 0, (gw_value){.u = v}, GW_ITEM_GENERATED, NULL);
}
static inline void gw_emit_gen_i(gw_emit *e, int field, size_t off, int64_t v)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, 0, (gw_value){.i = v}, GW_ITEM_GENERATED, NULL);
}
/* a derived number for filters and statistics only (GW_ITEM_HIDDEN) */
static inline void gw_emit_hidden_u(gw_emit *e, int field, size_t off, uint64_t v)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, 0, (gw_value){.u = v}, GW_ITEM_GENERATED | GW_ITEM_HIDDEN, NULL);
}
/* a derived text shown at d[off..off+len): n bytes at p (UTF-8 expected) */
static inline void gw_emit_gen_s(gw_emit *e, int field, size_t off, size_t len, const char *p, size_t n)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.b = {(const uint8_t *)p, n}}, GW_ITEM_GENERATED, NULL);
}
static inline void gw_emit_label(gw_emit *e, int field, size_t off, size_t len, const char *label)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.u = 0}, 0, label);
}
/* a number with the name of its value (a static string), for a value whose
   name depends on the conversation (e.g. the release's numbering); shown as
   "name (v)", as a field's own value names are */
static inline void gw_emit_named_u(gw_emit *e, int field, size_t off, size_t len, uint64_t v, const char *name)
{
    if (e->sink->item)
        gw_emit_item(e, field, off, len, (gw_value){.u = v}, 0, name);
}
static inline void gw_emit_push(gw_emit *e)
{
    if (e->sink->push)
        e->sink->push(e->sink->ctx);
}
static inline void gw_emit_pop(gw_emit *e, size_t end)
{
    if (e->sink->pop)
        e->sink->pop(e->sink->ctx, end);
}
void gw_emit_finding(gw_emit *e, int finding, size_t off, size_t len,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Where the traffic does what the reference implementation does and the
   published text does not: under GW_PROFILE_SPEC the violation spec_finding,
   every time, with spec_fmt; under GW_PROFILE_REFERENCE and GW_PROFILE_EITHER
   the divergence note note_finding once per conversation (*noted remembers
   it), with note_fmt.
   Both formats take the same arguments (note_fmt may use fewer). */
void (gw_emit_divergence)(gw_emit *e, int profile, int spec_finding, int note_finding, bool *noted,
                          size_t off, size_t len, const char *spec_fmt, const char *note_fmt, ...)
    __attribute__((format(printf, 8, 10)));
/* called only when it reports (a note already made is nothing more to do):
   profile and noted are read twice, and nothing else is evaluated when
   it does not report (the arguments must have no side effects) */
#define gw_emit_divergence(e, profile, spec_finding, note_finding, noted, ...)                     \
    do {                                                                                           \
        if ((profile) == GW_PROFILE_SPEC || !*(noted))                                             \
            (gw_emit_divergence)(e, profile, spec_finding, note_finding, noted, __VA_ARGS__);      \
    } while (0)

/* The rest of the PDU, not decoded field by field: its bytes (if any) shown
   as `data_field`, a finding over them when `finding` >= 0 (with the
   formatted message), and the cursor moved to the end. */
void gw_emit_rest(gw_emit *e, gw_cursor *c, int data_field, int finding, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ---- one PDU being decoded --------------------------------------------- */

/* bytes of the PDU a field's item covers */
typedef struct {
    const uint8_t *p;
    size_t n;
} gw_span;

/* What the gw_take_* readers (and so the layouts, gw_layout.h) leave
   behind, when a decoder wants it: for each field of the protocol, whether
   it was read in this PDU, its last number and its last text or bytes.
   The decoder sizes the arrays by its field count and clears seen[] for
   each PDU; val[] and text[] are only read where seen[] is set. */
typedef struct {
    bool *seen;
    uint64_t *val;
    gw_span *text;
} gw_record;

struct gw_pdu;
/* What a protocol adds to the core readers (any may be NULL). Setting
   them, even all NULL, also runs the functions a layout's steps name
   (gw_layout.h: GW_CHECK, GW_STEP, GW_IF_HOOK); without them a run is
   quiet. */
typedef struct gw_pdu_hooks {
    /* the name of a number's value where it depends on the conversation
       (shown as gw_emit_named_u shows it), or NULL: the field's own names */
    const char *(*value_name)(struct gw_pdu *x, int field, uint64_t v);
    /* a GW_L_COUNTED text under GW_LF_NUL, before its item: at off, n bytes
       of text, `nul` how a NUL ended it (left out of the item): GW_NUL_* */
    void (*text)(struct gw_pdu *x, int field, size_t off, size_t n, int nul);
} gw_pdu_hooks;

/* how a GW_LF_NUL text ended */
enum gw_nul {
    GW_NUL_NONE,    /* no NUL */
    GW_NUL_COUNTED, /* the last byte its length counts is a NUL */
    GW_NUL_AFTER,   /* a NUL right after the bytes its length counts (gw_pdu.nul_after) */
};

/* What a decoder holds while it reads one PDU: the bytes and where it
   stands in them, where it reports, the summary it builds, and whether
   decoding stopped. Every decoder's own context embeds one (as `p`) and
   reads through the gw_take_* helpers, so that running out of bytes is
   handled the same way in every protocol (gw_pdu_truncated). */
typedef struct gw_pdu {
    gw_emit e;
    gw_cursor c;
    gw_summary sum;
    const gw_pdu_info *pi;
    const gw_protocol *proto;
    bool failed;     /* decoding stopped: bytes ran out or could not be decoded */
    bool big_endian; /* byte order of gw_take_u */
    bool mark;       /* " (truncated)" is still to be added to the summary */
    gw_record rec;   /* none unless the decoder sets it after gw_pdu_begin */
    const gw_pdu_hooks *hooks; /* NULL unless the decoder sets them (then a
                                  layout's checks, steps and tests run too) */
    unsigned repeats; /* items the last GW_L_REPEAT/GW_L_MORE read (gw_layout.h) */
    unsigned index;   /* which item of the innermost GW_L_REPEAT/GW_L_MORE block
                         being read (0: the first) */
    uint8_t reading;  /* which reading of a GW_LF_AHEAD block (gw_layout.h) */
    bool nul_after;  /* GW_LF_NUL texts whose length leaves their NUL out: a NUL
                        right after the counted bytes is the text's (GW_NUL_AFTER) */
} gw_pdu;

/* a sink that keeps nothing and wants no message, and the PDU information
   it goes with: a quiet run asking whether bytes decode */
extern const gw_sink gw_quiet_sink;
extern const gw_pdu_info gw_quiet_pi;

/* ready x to decode data[0..len) of protocol p for sink (the summary is off
   when the sink shows none); inline: once or twice a PDU (quiet runs) */
static inline void gw_pdu_begin(gw_pdu *x, const gw_protocol *p, const gw_sink *sink, const gw_pdu_info *pi,
                                const uint8_t *data, size_t len)
{
    x->e = (gw_emit){.sink = sink, .src = 0, .defs = p->findings};
    x->c = (gw_cursor){data, len, 0};
    x->sum.len = 0;
    x->sum.text[0] = '\0';
    x->sum.off = !sink->summary;
    x->pi = pi;
    x->proto = p;
    x->failed = false;
    x->big_endian = false;
    x->mark = false;
    x->rec = (gw_record){0};
    x->hooks = NULL;
    x->repeats = 0;
    x->index = 0;
    x->reading = 0;
    x->nul_after = false;
}
/* The bytes ran out where `what` was due: once per PDU, the protocol's
   truncation finding ("Truncated: WHAT missing at offset N") over the bytes
   left, which are shown as its rest field, and decoding marked failed;
   " (truncated)" ends the summary (gw_pdu_mark: after whatever the decoder
   still adds, so that it never lands inside a parenthesis). */
void gw_pdu_truncated(gw_pdu *x, const char *what);
/* Can n bytes be read? Not once decoding failed; and when fewer are left,
   the PDU is truncated where `what` was due (gw_pdu_truncated). */
static inline bool gw_pdu_need(gw_pdu *x, size_t n, const char *what)
{
    if (x->failed)
        return false;
    if (gw_remaining(&x->c) >= n)
        return true;
    gw_pdu_truncated(x, what);
    return false;
}
/* Add " (truncated)" to the summary now if the PDU was truncated since the
   last mark: at the end of a part whose summary is complete (OpenDrakan's
   packets in a chain); gw_pdu_finish does it for the whole PDU. */
static inline void gw_pdu_mark(gw_pdu *x)
{
    if (x->mark)
        gw_summary_add(&x->sum, " (truncated)");
    x->mark = false;
}
/* hand the summary to the sink */
static inline void gw_pdu_finish(gw_pdu *x)
{
    gw_pdu_mark(x);
    gw_sink_summary(x->e.sink, x->sum.text);
}

/* Read a number of `size` (1..8) bytes in the given byte order and emit it
   as `field` by the field's type (signed I*, IEEE f32/f64 DOUBLE, else
   unsigned; named by hooks->value_name where it gives a name), recorded;
   *out (if not NULL) gets it unsigned. False, after gw_pdu_truncated(), when fewer bytes are
   left, and false without reading once decoding failed. */
bool gw_take_num_slow(gw_pdu *x, int field, unsigned size, bool big_endian, uint64_t *out);
static inline void gw_record_num(gw_pdu *x, int field, uint64_t v)
{
    if (x->rec.seen) {
        x->rec.seen[field] = true;
        x->rec.val[field] = v;
    }
}
/* inline where no item is wanted and the bytes are there (pcaptool
   validate's and stats' hot path); the rest out of line */
static inline bool gw_take_num(gw_pdu *x, int field, unsigned size, bool big_endian, uint64_t *out)
{
    if (x->failed || gw_remaining(&x->c) < size || x->e.sink->item)
        return gw_take_num_slow(x, field, size, big_endian, out);
    uint64_t v = gw_get_uint(x->c.data + x->c.off, size, big_endian);
    x->c.off += size;
    gw_record_num(x, field, v);
    if (out)
        *out = v;
    return true;
}
/* the same in the PDU's byte order (x->big_endian; one byte is one byte) */
static inline bool gw_take_u(gw_pdu *x, int field, unsigned size, uint64_t *out)
{
    return gw_take_num(x, field, size, size > 1 && x->big_endian, out);
}
/* the same for a field of at most 4 bytes */
static inline bool gw_take_u32(gw_pdu *x, int field, unsigned size, uint32_t *out)
{
    uint64_t v;
    if (!gw_take_u(x, field, size, &v))
        return false;
    if (out)
        *out = (uint32_t)v;
    return true;
}
/* n bytes as `field` (an item even when n is 0), recorded; false,
   truncated, when fewer are left */
bool gw_take_bytes(gw_pdu *x, int field, size_t n);
/* a NUL-terminated string as `field`, the item covering the text without
   its NUL; *p and *n (if not NULL) get the text, which is recorded. Without a NUL: the text to
   the end, finding `unterminated` over it, decoding failed, false. */
bool gw_take_cstr(gw_pdu *x, int field, int unterminated, const uint8_t **p, size_t *n);
/* the bytes left (if any) as `field`, not decoded further */
void gw_take_rest(gw_pdu *x, int field);
/* show d[off..off+n) (within the PDU) as `field`, recorded, without moving
   the cursor: for a reader that decides itself how many bytes make the item */
static inline void gw_pdu_text(gw_pdu *x, int field, size_t off, size_t n)
{
    const uint8_t *p = x->c.data + off;
    gw_emit_b(&x->e, field, off, n, p, n);
    if (x->rec.seen) {
        x->rec.seen[field] = true;
        x->rec.text[field] = (gw_span){p, n};
    }
}
/* The bytes left after the last field, unless decoding failed: shown as
   `field` and reported as `finding`, whose message is fmt with the count
   and "s" for a plural, e.g. "%zu byte%s after the command". */
#define gw_pdu_trailing(x, field, finding, fmt)                                              \
    do {                                                                                     \
        size_t n_left_ = gw_remaining(&(x)->c);                                              \
        if (!(x)->failed && n_left_)                                                         \
            gw_emit_rest(&(x)->e, &(x)->c, field, finding, fmt, n_left_, n_left_ == 1 ? "" : "s"); \
    } while (0)

#endif
