/* gne.c - the GNE decoder.
 *
 * TCP carries HawkNL frames: 'N' 'L', length u16 big-endian, content. The
 * first frames of a connection are the handshake (connection request,
 * refusal or accept, the client's UDP port); every later frame, and every
 * datagram of the negotiated UDP link, is a message: packets [id][body]
 * ending with 255. Numbers inside are in the connection's data byte order,
 * told by the handshake's build field.
 */
#include "gne/gne.h"
#include "core/gw_layout.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- tables ------------------------------------------------------------ */

static const gw_value_name message_names[] = {
    {MSG_REQUEST, "Connection request", 0}, {MSG_REFUSAL, "Refusal", 0},
    {MSG_ACCEPT, "Connection accepted", 0}, {MSG_UDP_PORT, "Client UDP port", 0},
    {MSG_PACKETS, "Message of packets", 0}, {MSG_OUT_OF_SYNC, "Out of sync", 0}, {0, NULL, 0}};

static const gw_value_name order_names[] = {
    {GNE_ORDER_LITTLE, "Little-endian", 0}, {GNE_ORDER_BIG, "Big-endian", 0}, {0, NULL, 0}};

static const gw_value_name response_names[] = {
    {0, "Refused", 0}, {1, "Accepted", 0}, {0, NULL, 0}};

static const gw_value_name rate_names[] = {{0, "unlimited", 0}, {0, NULL, 0}};

static const gw_value_name port_names[] = {{0xffffffffu, "none", 0}, {0, NULL, 0}}; /* -1 */

static const gw_value_name packet_names[] = {
    {ID_EMPTY, "Empty packet", 0}, {ID_CUSTOM, "Custom packet", 0}, {ID_EXIT, "Exit packet", 0},
    {ID_RATE, "Rate adjust packet", 0}, {ID_PING, "Ping packet", 0},
    {ID_CHANNEL, "Channel packet", 0}, {ID_OBJ_CREATE, "Object creation packet", 0},
    {ID_OBJ_UPDATE, "Object update packet", 0}, {ID_OBJ_DEATH, "Object death packet", 0},
    {9, "Reserved packet", 15}, {16, "User packet", 254}, {ID_END, "End of message", 0},
    {0, NULL, 0}};

static const gw_field fields[GNE_F_COUNT] = {GNE_FIELDS(GW_FIELD, GW_LINK)};

static const gw_finding_def findings[GNE_E_COUNT] = {GNE_FINDINGS(GW_FINDING)};

/* the behaviour rules among the findings (pcaptool validate --rules) */
static const gw_rule rules[] = {
    {GNE_E_PING_ID_REUSED, "GNE text, PingPacket: \"The ID in the packet is used to match a request to its reply and "
                        "should be unique for a given connection\""},
    {GNE_E_RELIABLE_ONLY, "GNE text, Ending a Connection: an ExitPacket \"over the reliable connection\"; Bandwidth: "
                       "\"sending a RateAdjustPacket over the reliable connection\""},
    {GNE_E_NAME_PADDING, "GNE text, Starting a New Connection: \"Any unused space in the buffer shall consist of bytes with the value "
                      "of 0\""},
    {GNE_E_CUSTOM_U16, "GNE text, CustomPacket: \"guint8 length\"; wire-facts 3.10: \"u16 length + bytes (the protocol text "
                    "implies u8; the code uses u16)\" (profile spec)"},
    {GNE_E_DATA_BIG, "GNE text, Data Formats: \"All of the data types will be in little-endian format\"; wire-facts 3.4: "
                  "\"releases up to 0.70 actually sent big-endian data over IP\" (profile spec)"},
    {GNE_E_DIV_CUSTOM_U16, "wire-facts 3.10: CustomPacket \"u16 length + bytes (the protocol text implies u8; the code uses "
                        "u16)\" (reported once under profiles either and reference; the text's 1-byte length too under either)"},
    {GNE_E_DIV_DATA_BIG, "wire-facts 3.4: \"releases up to 0.70 actually sent big-endian data over IP\" (reported once "
                      "under profiles either and reference)"},
    {GNE_E_BAD_LENGTH, "GNE text, Starting a New Connection: the request is \"exactly 48 bytes\", the refusal \"a size of exactly 44 "
                    "bytes\"; wire-facts 3.7: accept 12, UDP port 4"},
    {GNE_E_HS_ORDER, "GNE text, Starting a New Connection: \"Once the server receives the CRP, it can choose to accept or refuse the "
                  "connection\"; the client considers the connection complete \"as soon as it receives the CAP\""},
    {GNE_E_VERSIONS_MATCH, "GNE text, Starting a New Connection: \"It must refuse the connection if any of the versions do not match. If can "
                        "also refuse the connection for any other reason\" (a note: the reason is not on the wire)"},
    {GNE_E_UDP_UNEXPECTED, "GNE text, Starting a New Connection: \"If the client did not request an unreliable connection, or the server "
                        "refused it, then the client considers the connection complete as soon as it receives the CAP\""},
    {GNE_E_UNTERMINATED, "GNE text, Packets: \"The id 255 represents the end of the GNE-level packet\""},
    {GNE_E_TOO_LONG, "wire-facts 3.3: gnelib's RAW_PACKET_LEN of 512 bytes per message (gnelib's alone; the GNE text sets no "
                    "limit on a message: a note)"},
    {GNE_E_EXIT_NOT_LAST, "GNE text, Ending a Connection: \"it should send a valid GNE-level packet consisting of a ExitPacket over "
                       "the reliable connection as its last data\""},
    {GNE_E_PING_ORDER, "GNE text, PingPacket: the reply's T2 is when the request was received, T3 when the reply was sent"},
    {GNE_E_RATE_EXCEEDED, "GNE text, Bandwidth control: \"the server in any particular second should not send out more than "
                       "approximately 3200 bytes to that client\" (for a requested 3200)"},
};

static const gw_choice order_choices[] = {
    {GNE_ORDER_AUTO, "auto", "From the handshake's build field (little-endian when not seen)"},
    {GNE_ORDER_LITTLE, "little", "Little-endian (gnelib after 2012)"},
    {GNE_ORDER_BIG, "big", "Big-endian (gnelib up to 0.70)"},
    {0, NULL, NULL}};

static const gw_option options[] = {
    [GNE_OPT_BYTE_ORDER] = {"byte_order", "Data byte order",
     "Byte order of the numbers inside GNE messages: told per connection by the handshake's "
     "build field, or forced", order_choices, GNE_ORDER_AUTO},
    [GNE_OPT_PROFILE] = {"profile", "Judge by",
     "What the traffic is checked against: what gnelib (the reference) or the text allows (default: "
     "either, noting once per conversation which reading it follows); or strictly gnelib, or the text "
     "literally, where the other's departures are warnings", gw_profile_choices, GW_PROFILE_EITHER},
};

/* ---- conversation state ------------------------------------------------ */

enum stage { HS_START, HS_WAIT_REPLY, HS_WAIT_PORT, HS_DONE, HS_REFUSED };

#define RATE_WINDOW_NS 1000000000ll /* rates are bytes per second */

typedef struct {
    uint32_t id;
    uint32_t frame;
    int64_t t1;
    bool used, answered;
} ping_request;

typedef struct {
    /* what most packets read or write, in the first 64 bytes */
    const int *opt;      /* the options (GNE_OPT_*) */
    int64_t rate_window[2]; /* by role: start of the current one-second window */
    uint32_t rate_bytes[2]; /* sent in it */
    uint32_t rate[2];    /* max incoming rate announced by the client (0) and server (1) */
    uint32_t link_frame; /* UDP link: the accept that opened it */
    uint8_t stage;
    uint8_t client_dir;  /* the direction the connection request came from */
    uint8_t order;       /* learnt from the handshake, 0 = not known */
    bool order_noted;    /* the assumption was reported */
    bool order_flagged;  /* handshake.out_of_order reported */
    bool port_msg_possible; /* the accept opened no UDP link: the client's next message is checked */
    bool exited[2];      /* ExitPacket sent, by role */
    bool exit_flagged[2];
    bool rate_known[2];
    bool rate_flagged[2];
    /* the pings' and the handshake's */
    uint8_t pings_kept[2]; /* pings[dir][0..pings_kept) written (the ring fills from 0) */
    unsigned ping_next[2];
    bool unreliable;     /* the client asked for a UDP link */
    bool have_request;
    uint8_t req_version, req_sub, req_order;
    uint16_t req_build;
    uint32_t req_user;
    uint8_t req_name[32];
    bool noted_custom, noted_custom_u8, noted_big; /* divergences reported */
    /* by requesting direction; last: only pings[dir][0..pings_kept) are
       read, so the rest is not cleared */
    ping_request pings[2][GNE_PINGS];
} gne_conv;

static void conv_init(void *p, const int *opt)
{
    memset(p, 0, offsetof(gne_conv, pings));
    ((gne_conv *)p)->opt = opt;
}
static void conv_free(void *p) { (void)p; }

static void conv_link(void *p, const void *parent)
{
    gne_conv *c = p;
    const gne_conv *t = parent;
    c->stage = HS_DONE;
    c->order = t->order;
    c->order_noted = true; /* reported on the TCP connection if at all */
    c->client_dir = 0;     /* a linked conversation starts at the client */
    memcpy(c->rate, t->rate, sizeof c->rate);
    memcpy(c->rate_known, t->rate_known, sizeof c->rate_known);
    c->link_frame = t->link_frame;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct {
    gw_pdu p;          /* p.big_endian: the data byte order of this message */
    gne_conv *conv;
    bool seen[GNE_F_COUNT]; /* what the layouts read (gw_record) */
    uint64_t val[GNE_F_COUNT];
    gw_span text[GNE_F_COUNT];
    /* the packet being read (its id's offset), how deep it is wrapped, and
       the bytes of its wrapping packets' fields after it */
    size_t start, tail;
    int depth;
    size_t id_at, times_at; /* a ping's request id, its gtimes */
    size_t sum_at;   /* a ping's place in the summary */
    size_t gtime_at; /* where the gtime being read starts */
    int32_t sec[2], usec[2]; /* a ping's T2 and T3 */
} gne_ctx;

/* the handshake messages' layouts (GNE's connection.cpp and
   ConnectionParams: "GNE", then the versions; the data byte order) */
#define NUM(f, n) GW_NUM(GNE_F_##f, n)
#define END {.op = GW_L_END}
/* "GNE", which a connection request and a server's reply begin with */
#define MAGIC GW_BYTES(GNE_F_MAGIC, 3)
static const gw_lstep magic[] = {MAGIC, END};
/* HawkNL's frame on TCP: "NL", the length of what follows (u16, always
   big-endian); described once for the decoder, gne_pdu_length, the builder
   and the heuristic */
static const gw_lstep nl_header[] = {GW_BYTES(GNE_F_NL_MAGIC, 2), GW_NUM(GNE_F_NL_LENGTH, 2, GW_FLAGS(GW_LF_BE)), END};
static const gw_frame nl_frame = {.header = nl_header, .length_field = GNE_F_NL_LENGTH,
                                  .magic_field = GNE_F_NL_MAGIC, .magic = (const uint8_t *)"NL"};
/* a server's reply: "GNE", its response; looked at as a header is before
   a message is decoded (which message it is): its magic, its response */
static const gw_lstep reply[] = {MAGIC, NUM(RESPONSE, 1), END};
static const gw_frame handshake = {.header = reply, .magic_field = GNE_F_MAGIC, .magic = (const uint8_t *)"GNE"};
static const gw_lstep versions[] = {NUM(VERSION, 1), NUM(SUB_VERSION, 1), NUM(BUILD, 2), END};
/* the client's UDP port, a message of its own */
static const gw_lstep udp_port_layout[] = {NUM(UDP_PORT, 4), END};
/* the 32-byte NUL-padded game name (the item covers the text), the user's version */
static const gw_lstep game[] = {
    GW_PADDED(GNE_F_GAME_NAME, 32, GNE_E_GAME_NAME, GNE_E_NAME_PADDING, GW_SUM(", game \"%s\"")),
    NUM(USER_VERSION, 4), END};

/* the connection request after its first 7 bytes (read once the build
   field told the byte order) */
static const gw_lstep request_tail[] = {GW_SUB(game), NUM(RATE, 4), NUM(UNRELIABLE, 1), END};

/* where the build field is in a message of that head (the request's magic,
   a reply's magic and response), the versions before it; *end: where it
   ends */
static size_t build_at(const gw_lstep *head, size_t *end)
{
    unsigned size = 0;
    size_t at = gw_layout_fixed_size(head) + (size_t)gw_layout_offset(versions, GNE_F_BUILD, &size);
    *end = at + size;
    return at;
}

static int role(const gne_ctx *x) /* 0 = client, 1 = server */
{
    return x->p.pi->dir == x->conv->client_dir ? 0 : 1;
}

static bool is_big(const gne_conv *c)
{
    if (c->opt[GNE_OPT_BYTE_ORDER] != GNE_ORDER_AUTO)
        return c->opt[GNE_OPT_BYTE_ORDER] == GNE_ORDER_BIG;
    return c->order == GNE_ORDER_BIG;
}

static void emit_order(gne_ctx *x, size_t off)
{
    if (off > x->p.c.len) /* a message too short to hold the build it would sit on */
        off = x->p.c.len;
    gw_emit_gen_u(&x->p.e, GNE_F_BYTE_ORDER, off, x->p.big_endian ? GNE_ORDER_BIG : GNE_ORDER_LITTLE);
}

/* "WHAT 12800 bytes/s", or "WHAT unlimited" for a rate of 0 (rate_names) */
static void summary_rate(gne_ctx *x, const char *what, uint64_t rate)
{
    const char *name = gw_value_name_of(rate_names, (uint32_t)rate);
    if (name)
        gw_summary_add(&x->p.sum, "%s %s", what, name);
    else
        gw_summary_add(&x->p.sum, "%s %llu %s/s", what, (unsigned long long)rate, gw_bytes((unsigned long long)rate));
}

static void emit_rates(gne_ctx *x, size_t off)
{
    gne_conv *c = x->conv;
    if (c->rate_known[1])
        gw_emit_gen_u(&x->p.e, GNE_F_RATE_C2S, off, c->rate[1]);
    if (c->rate_known[0])
        gw_emit_gen_u(&x->p.e, GNE_F_RATE_S2C, off, c->rate[0]);
}

/* the build field's two bytes tell the byte order: gnelib keeps builds
   below 256 so that one of them is zero */
static uint8_t order_of_build(const uint8_t *b)
{
    if (b[0] && !b[1])
        return GNE_ORDER_LITTLE;
    if (!b[0] && b[1])
        return GNE_ORDER_BIG;
    return 0;
}

static void note_assumed_order(gne_ctx *x, size_t off, const char *why)
{
    if (x->conv->order_noted || x->conv->opt[GNE_OPT_BYTE_ORDER] != GNE_ORDER_AUTO)
        return;
    x->conv->order_noted = true;
    gw_emit_finding(&x->p.e, GNE_E_ORDER_ASSUMED, off, 0, "%s: data taken as %s", why,
                    x->p.big_endian ? "big-endian" : "little-endian");
}

static void connection_request(gne_ctx *x, size_t len)
{
    gne_conv *c = x->conv;
    const uint8_t *p = x->p.c.data + x->p.c.off;
    size_t start = x->p.c.off;
    size_t end, at = build_at(magic, &end);
    uint8_t order = len >= end ? order_of_build(p + at) : 0;
    if (order)
        c->order = order;
    x->p.big_endian = is_big(c);
    c->client_dir = (uint8_t)x->p.pi->dir;
    if (order == GNE_ORDER_BIG)
        gw_emit_divergence(&x->p.e, x->conv->opt[GNE_OPT_PROFILE], GNE_E_DATA_BIG, GNE_E_DIV_DATA_BIG, &c->noted_big,
                           start + at, end - at,
                           "Big-endian data (build field %s)", "Big-endian data (build field %s; the text says "
                           "little-endian)", "00 07");
    gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, start, MSG_REQUEST);
    emit_order(x, start + at);
    gw_summary_add(&x->p.sum, "Connection request:");
    if (len != 48)
        gw_emit_finding(&x->p.e, GNE_E_BAD_LENGTH, start, len, "Connection request of %zu %s (48 expected)", len, gw_bytes(len));
    if (!order)
        note_assumed_order(x, start + at, "Build field with no zero byte");
    c->stage = HS_WAIT_REPLY;
    const uint64_t *v = x->val;
    if (!gw_layout_run(&x->p, GW_LAYOUT(GW_SUB(magic), GW_SUB(versions))))
        return;
    gw_summary_add(&x->p.sum, " GNE %u.%u.%u", (unsigned)v[GNE_F_VERSION], (unsigned)v[GNE_F_SUB_VERSION],
                   (unsigned)v[GNE_F_BUILD]);
    bool whole = gw_layout_run(&x->p, request_tail);
    if (x->seen[GNE_F_GAME_NAME])
        memcpy(c->req_name, x->text[GNE_F_GAME_NAME].p, 32);
    if (!whole)
        return;
    c->have_request = true;
    c->req_version = (uint8_t)v[GNE_F_VERSION];
    c->req_sub = (uint8_t)v[GNE_F_SUB_VERSION];
    c->req_build = (uint16_t)v[GNE_F_BUILD];
    c->req_order = x->p.big_endian ? GNE_ORDER_BIG : GNE_ORDER_LITTLE;
    c->req_user = (uint32_t)v[GNE_F_USER_VERSION];
    c->rate[0] = (uint32_t)v[GNE_F_RATE];
    c->rate_known[0] = true;
    c->unreliable = v[GNE_F_UNRELIABLE] != 0;
    gw_summary_add(&x->p.sum, ", user %u", (unsigned)v[GNE_F_USER_VERSION]);
    if (c->unreliable)
        gw_summary_add(&x->p.sum, ", UDP requested");
}

static void refusal(gne_ctx *x, size_t len)
{
    gne_conv *c = x->conv;
    size_t start = x->p.c.off;
    /* the refusal's build is in the server's order, which may differ */
    size_t end, at = build_at(reply, &end);
    uint8_t order = len >= end ? order_of_build(x->p.c.data + start + at) : 0;
    bool big = x->p.big_endian;
    if (order && c->opt[GNE_OPT_BYTE_ORDER] == GNE_ORDER_AUTO)
        x->p.big_endian = order == GNE_ORDER_BIG;
    gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, start, MSG_REFUSAL);
    emit_order(x, start + at);
    gw_summary_add(&x->p.sum, "Refused:");
    c->stage = HS_REFUSED;
    if (len != 44)
        gw_emit_finding(&x->p.e, GNE_E_BAD_LENGTH, start, len, "Refusal of %zu %s (44 expected)", len, gw_bytes(len));
    const uint64_t *v = x->val;
    if (!gw_layout_run(&x->p, GW_LAYOUT(GW_SUB(reply), GW_SUB(versions))))
        goto out;
    gw_summary_add(&x->p.sum, " server GNE %u.%u.%u", (unsigned)v[GNE_F_VERSION],
                   (unsigned)v[GNE_F_SUB_VERSION], (unsigned)v[GNE_F_BUILD]);
    if (!gw_layout_run(&x->p, game))
        goto out;
    gw_summary_add(&x->p.sum, ", user %u", (unsigned)v[GNE_F_USER_VERSION]);
    if (c->have_request && v[GNE_F_VERSION] == c->req_version && v[GNE_F_SUB_VERSION] == c->req_sub &&
        v[GNE_F_BUILD] == c->req_build && v[GNE_F_USER_VERSION] == c->req_user &&
        memcmp(x->text[GNE_F_GAME_NAME].p, c->req_name, 32) == 0) {
        uint8_t server_order = x->p.big_endian ? GNE_ORDER_BIG : GNE_ORDER_LITTLE;
        if (server_order != c->req_order)
            gw_emit_finding(&x->p.e, GNE_E_ORDER_MISMATCH, start + at, end - at,
                            "Versions match but the client sends %s and the server %s data",
                            c->req_order == GNE_ORDER_BIG ? "big-endian" : "little-endian",
                            server_order == GNE_ORDER_BIG ? "big-endian" : "little-endian");
        else
            gw_emit_finding(&x->p.e, GNE_E_VERSIONS_MATCH, start, len,
                            "Refused, yet every version field matches the request");
    }
out:
    x->p.big_endian = big;
}

static void check_port(gne_ctx *x, size_t off, size_t len, int64_t port, bool allow_none)
{
    if (port > 65535 || port < (allow_none ? -1 : 0))
        gw_emit_finding(&x->p.e, GNE_E_PORT_RANGE, off, len, "UDP port %lld is out of range", (long long)port);
}

/* the accept's rate: the server's maximum incoming rate */
static void accept_rate(gw_pdu *p, size_t off, uint64_t rate)
{
    (void)off;
    gne_ctx *x = (gne_ctx *)p;
    x->conv->rate[1] = (uint32_t)rate;
    x->conv->rate_known[1] = true;
    summary_rate(x, ", rate", rate);
}

/* the accept's UDP port (at off): the link it opens, if the client asked
   for one */
static void accept_port(gw_pdu *p, size_t off, uint64_t port)
{
    gne_ctx *x = (gne_ctx *)p;
    gne_conv *c = x->conv;
    size_t len = x->p.c.off - off;
    int64_t sport = (int64_t)gw_sign_extend(port, (unsigned)len);
    check_port(x, off, len, sport, true);
    emit_rates(x, x->start);
    c->port_msg_possible = !(c->unreliable && sport > 0);
    if (sport > 0 && !c->unreliable)
        gw_emit_finding(&x->p.e, GNE_E_UDP_UNEXPECTED, off, len,
                        "The accept offers UDP port %lld, but the client asked for no UDP link", (long long)sport);
    if (sport > 0) {
        /* the client answers any positive port with its own */
        gw_summary_add(&x->p.sum, ", UDP port %lld", (long long)sport);
        if (c->unreliable)
            c->stage = HS_WAIT_PORT;
        if (c->unreliable && sport <= 65535) {
            c->link_frame = x->p.pi->frame;
            if (x->p.e.sink->expect)
                x->p.e.sink->expect(x->p.e.sink->expect_ctx, GW_TRANSPORT_UDP, !c->client_dir,
                                    (uint16_t)sport, c);
        }
    } else {
        gw_summary_add(&x->p.sum, ", no UDP");
    }
}

/* the accept: the server's rate, then (over IP) its UDP port */
static const gw_lstep accept_layout[] = {GW_SUB(reply), GW_NUM(GNE_F_RATE, 4, GW_CHECK(accept_rate)), GW_OPTIONAL,
                                         GW_NUM(GNE_F_UDP_PORT, 4, GW_CHECK(accept_port)), END};

static void accept_msg(gne_ctx *x, size_t len)
{
    gne_conv *c = x->conv;
    size_t start = x->start = x->p.c.off;
    gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, start, MSG_ACCEPT);
    emit_order(x, start);
    gw_summary_add(&x->p.sum, "Accepted");
    c->stage = HS_DONE;
    if (len != 12)
        gw_emit_finding(&x->p.e, GNE_E_BAD_LENGTH, start, len, "Accept of %zu %s (12 expected over IP)", len,
                        gw_bytes(len));
    if (gw_layout_run(&x->p, accept_layout) && !x->seen[GNE_F_UDP_PORT])
        emit_rates(x, start); /* no port: not an IP link */
}

static void udp_port_msg(gne_ctx *x)
{
    size_t start = x->p.c.off;
    gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, start, MSG_UDP_PORT);
    emit_order(x, start);
    x->conv->stage = HS_DONE;
    if (gw_layout_run(&x->p, udp_port_layout)) {
        size_t len = x->p.c.off - start;
        int64_t sport = (int64_t)gw_sign_extend(x->val[GNE_F_UDP_PORT], (unsigned)len);
        check_port(x, start, len, sport, false);
        gw_summary_add(&x->p.sum, "Client UDP port %lld", (long long)sport);
    }
}

/* ---- packets ---- */

/* A message's packets are one description (packet, below) read by the
   decoder and written by gne_build: each its id, then the body its id
   gives (GNE text, Packet Listings; wire-facts 3.10). What is behaviour
   rather than bytes is in the checks and steps the layouts name: where
   the chain ends (packets(): 255, or the message's end), a wrapped
   packet's depth, the CustomPacket length's width, ping matching, the
   rate state and the findings. */

/* a CustomPacket read with the text's 1-byte length: the id recorded for
   it (custom_packet, by custom_width), which its layout asks; gne_build
   writes gnelib's 2-byte one, that of the id it wrote */
#define ID_CUSTOM_TEXT 256

#define T2_WHAT "T2 (remote receive time)"
#define T3_WHAT "T3 (remote send time)"
static const char *const gtime_what[2] = {T2_WHAT, T3_WHAT};

/* a gtime in nanoseconds */
static inline int64_t gtime_ns(int32_t sec, int32_t usec)
{
    return (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
}

/* a gtime as a UTC date; 0.0, which a ping request carries, as "not set" */
static void print_gtime(char *buf, size_t n, int32_t sec, int32_t usec)
{
    if (sec == 0 && usec == 0)
        snprintf(buf, n, "not set (0.000000)");
    else
        gw_format_date(buf, n, gtime_ns(sec, usec), 6);
}

/* a gtime's subtree label, from its values read ahead: "T2 (remote receive
   time): <date>" */
static void gtime_label(const gne_ctx *x, int k, char *out, size_t size)
{
    char t[40];
    print_gtime(t, sizeof t, (int32_t)x->val[GNE_F_TIME_SEC], (int32_t)x->val[GNE_F_TIME_USEC]);
    snprintf(out, size, "%s: %s", gtime_what[k], t);
}
static void label_t2(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    (void)items, (void)n;
    gtime_label((const gne_ctx *)p, 0, out, size);
}
static void label_t3(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    (void)items, (void)n;
    gtime_label((const gne_ctx *)p, 1, out, size);
}

/* a gtime's microseconds (k: T2 or T3), its last field: the gtime kept for
   the ping; in its subtree the date, or the finding for microseconds out
   of range */
static void gtime_read(gne_ctx *x, int k, size_t off, uint64_t v)
{
    int32_t usec = (int32_t)v;
    x->sec[k] = (int32_t)x->val[GNE_F_TIME_SEC];
    x->usec[k] = usec;
    if (!gw_reading_last(&x->p))
        return;
    size_t at = x->gtime_at;
    x->gtime_at = x->p.c.off; /* the next gtime's start */
    if (usec < 0 || usec > 999999)
        gw_emit_finding(&x->p.e, GNE_E_BAD_USEC, off, x->p.c.off - off, "%s: %d microseconds", gtime_what[k],
                        usec);
    else if (x->p.e.sink->item && gtime_ns(x->sec[k], usec) > 0)
        gw_emit_gen_i(&x->p.e, GNE_F_TIME_UTC, at, gtime_ns(x->sec[k], usec));
}
static void t2_usec(gw_pdu *p, size_t off, uint64_t v) { gtime_read((gne_ctx *)p, 0, off, v); }
static void t3_usec(gw_pdu *p, size_t off, uint64_t v) { gtime_read((gne_ctx *)p, 1, off, v); }

/* a ping's request id: the summary until the gtimes tell request or reply */
static void ping_id(gw_pdu *p, size_t off, uint64_t id)
{
    gne_ctx *x = (gne_ctx *)p;
    x->id_at = off;
    x->gtime_at = x->times_at = x->p.c.off; /* T2's start */
    x->sum_at = x->p.sum.len;
    gw_summary_add(&x->p.sum, "Ping %u", (unsigned)id);
}

/* a ping read whole: a request kept, a reply matched to its request */
static void ping_done(gw_pdu *p)
{
    gne_ctx *x = (gne_ctx *)p;
    gne_conv *c = x->conv;
    size_t start = x->start;
    uint64_t id = x->val[GNE_F_PING_REQ_ID];
    int64_t t2 = gtime_ns(x->sec[0], x->usec[0]), t3 = gtime_ns(x->sec[1], x->usec[1]);
    bool reply = x->sec[0] || x->usec[0] || x->sec[1] || x->usec[1]; /* a request's are 0.0 */
    int dir = x->p.pi->dir ? 1 : 0;
    gw_emit_gen_u(&x->p.e, GNE_F_PING_REPLY, start, reply);
    x->p.sum.len = x->sum_at; /* now known: request or reply */
    x->p.sum.text[x->sum_at] = '\0';
    if (!reply) {
        for (unsigned k = 0; k < c->pings_kept[dir]; k++) {
            const ping_request *o = &c->pings[dir][k];
            if (o->used && !o->answered && o->id == (uint32_t)id) {
                gw_emit_finding(&x->p.e, GNE_E_PING_ID_REUSED, x->id_at, x->times_at - x->id_at,
                                "Ping request %u while request %u of frame %u is unanswered", (unsigned)id,
                                (unsigned)id, o->frame);
                break;
            }
        }
        ping_request *r = &c->pings[dir][c->ping_next[dir]++ % GNE_PINGS];
        if (c->pings_kept[dir] < GNE_PINGS)
            c->pings_kept[dir]++;
        *r = (ping_request){(uint32_t)id, x->p.pi->frame, x->p.pi->time_ns, true, false};
        gw_summary_add(&x->p.sum, "Ping request %u", (unsigned)id);
        return;
    }
    gw_summary_add(&x->p.sum, "Ping reply %u", (unsigned)id);
    if (t2 > t3)
        gw_emit_finding(&x->p.e, GNE_E_PING_ORDER, x->times_at, x->p.c.off - x->times_at, "T2 is %lld us after T3",
                        (long long)((t2 - t3) / 1000));
    /* the request came the other way; newest first */
    ping_request *req = NULL;
    for (unsigned k = 1; k <= c->pings_kept[!dir] && !req; k++) {
        ping_request *r = &c->pings[!dir][(c->ping_next[!dir] - k) % GNE_PINGS];
        if (r->used && r->id == id)
            req = r;
    }
    if (!req || req->answered) {
        gw_emit_finding(&x->p.e, GNE_E_PING_UNMATCHED, start, 1, "No unanswered request %u was seen",
                        (unsigned)id);
        return;
    }
    req->answered = true;
    int64_t t1 = req->t1, t4 = x->p.pi->time_ns;
    int64_t rtt = (t4 - t1) - (t3 - t2);
    int64_t offset = ((t2 - t1) + (t3 - t4)) / 2;
    gw_emit_gen_u(&x->p.e, GNE_F_PING_REQUEST_FRAME, start, req->frame);
    gw_emit_gen_i(&x->p.e, GNE_F_PING_RTT, start, rtt);
    gw_emit_gen_i(&x->p.e, GNE_F_PING_OFFSET, start, offset);
    gw_emit_gen_i(&x->p.e, GNE_F_PING_OFFSET_ERROR, start, rtt / 2);
    gw_summary_add(&x->p.sum, " (RTT %.3f ms)", (double)rtt / 1e6);
}

/* where an application-defined body ends: everything up to the fields of
   the packets wrapping it (tail bytes) and the message's final 255 */
static size_t user_end(const gne_ctx *x, size_t tail)
{
    size_t end = x->p.c.len;
    if (end > x->p.c.off && x->p.c.data[end - 1] == ID_END)
        end--;
    return end >= x->p.c.off + tail ? end - tail : x->p.c.off;
}

/* The width of a CustomPacket's length (at `at`): the text's guint8 or
   gnelib's 2 bytes (wire-facts 3.10). Under profile reference always
   gnelib's; else the reading whose data ends where the message's packets
   do (before the wrapping packets' fields and the final 255), else the one
   whose data fits, gnelib's first. */
static unsigned custom_width(const gne_ctx *x, size_t at, size_t tail)
{
    int profile = x->conv->opt[GNE_OPT_PROFILE];
    if (profile == GW_PROFILE_REFERENCE)
        return 2;
    size_t end = user_end(x, tail), n = x->p.c.len;
    bool fits[3] = {false}, exact[3] = {false};
    for (unsigned w = 1; w <= 2; w++)
        if (at + w <= n) {
            size_t e = at + w + (size_t)gw_get_uint(x->p.c.data + at, w, w > 1 && x->p.big_endian);
            fits[w] = e <= end;
            exact[w] = e == end;
        }
    if (exact[2] || (fits[2] && !exact[1]))
        return 2;
    if (fits[1])
        return 1;
    return 2; /* neither: read as gnelib's, truncated */
}

/* What a packet's id says, at the start of its body: its summary, the
   findings about the id, the state an ExitPacket ends; and a
   CustomPacket's width chosen */
static void empty_packet(gw_pdu *p)
{
    gw_summary_add(&p->sum, "Empty");
}
static void exit_packet(gw_pdu *p)
{
    gne_ctx *x = (gne_ctx *)p;
    gw_summary_add(&x->p.sum, "Exit");
    if (x->p.pi->transport == GW_TRANSPORT_UDP && x->depth == 0)
        gw_emit_finding(&x->p.e, GNE_E_RELIABLE_ONLY, x->start, 1, "ExitPacket over the UDP link");
    if (x->p.pi->transport == GW_TRANSPORT_TCP)
        x->conv->exited[role(x)] = true;
}
static void channel_packet(gw_pdu *p)
{
    gw_summary_add(&p->sum, "Channel [");
}
static void object_packet(gw_pdu *p)
{
    gne_ctx *x = (gne_ctx *)p;
    uint64_t id = x->val[GNE_F_PACKET_ID];
    gw_summary_add(&x->p.sum, "%s [", id == ID_OBJ_CREATE ? "Object creation"
                                      : id == ID_OBJ_UPDATE ? "Object update" : "Object death");
}
/* the text's 1-byte length (custom_width) recorded as the packet's id
   ID_CUSTOM_TEXT, which its layout asks */
static void custom_packet(gw_pdu *p)
{
    gne_ctx *x = (gne_ctx *)p;
    if (custom_width(x, x->p.c.off, x->tail) == 1)
        gw_record_num(p, GNE_F_PACKET_ID, ID_CUSTOM_TEXT);
}

/* a CustomPacket's length, before its data: its width against the text
   (the 2-byte one gnelib writes, or the text's guint8 under profile either) */
static void custom_length(gw_pdu *p, size_t off, uint64_t v)
{
    gne_ctx *x = (gne_ctx *)p;
    int profile = x->conv->opt[GNE_OPT_PROFILE];
    size_t width = x->p.c.off - off; /* (its bytes not taken yet) */
    if (x->val[GNE_F_PACKET_ID] != ID_CUSTOM_TEXT)
        gw_emit_divergence(&x->p.e, profile, GNE_E_CUSTOM_U16, GNE_E_DIV_CUSTOM_U16, &x->conv->noted_custom, off,
                           width, "A 2-byte CustomPacket length",
                           "A 2-byte CustomPacket length (the text gives a guint8)");
    else if (profile == GW_PROFILE_EITHER && !x->conv->noted_custom_u8) {
        x->conv->noted_custom_u8 = true;
        gw_emit_finding(&x->p.e, GNE_E_DIV_CUSTOM_U16, off, width,
                        "A 1-byte CustomPacket length, the text's guint8 (gnelib writes 2 bytes)");
    }
    gw_summary_add(&x->p.sum, "Custom (%u %s)", (unsigned)v, gw_bytes(v));
}

/* a RateAdjustPacket's rate: the sender's maximum incoming rate from now
   (wrapped, it is application data) */
static void rate_adjust(gw_pdu *p, size_t off, uint64_t v)
{
    (void)off;
    gne_ctx *x = (gne_ctx *)p;
    if (x->depth == 0) {
        gne_conv *c = x->conv;
        c->rate[role(x)] = (uint32_t)v;
        c->rate_known[role(x)] = true;
        /* the peer honours it "within a second" */
        c->rate_window[!role(x)] = x->p.pi->time_ns + RATE_WINDOW_NS;
        c->rate_bytes[!role(x)] = 0;
        emit_rates(x, x->start);
    }
    summary_rate(x, "Rate adjust", v);
    if (x->p.pi->transport == GW_TRANSPORT_UDP && x->depth == 0)
        gw_emit_finding(&x->p.e, GNE_E_RELIABLE_ONLY, x->start, 1, "RateAdjustPacket over the UDP link");
}

static void channel_said(gw_pdu *p, size_t off, uint64_t from)
{
    (void)off;
    gne_ctx *x = (gne_ctx *)p;
    gw_summary_add(&x->p.sum, "] channel %u from %u", (unsigned)x->val[GNE_F_CHANNEL], (unsigned)from);
}

static void object_said(gw_pdu *p, size_t off, uint64_t id)
{
    (void)off;
    gw_summary_add(&p->sum, "] object %u", (unsigned)id);
}

/* a reserved or application-defined packet: its layout is not known, its
   body taken to run to the end of the message's packets */
static void unknown_body(gw_pdu *p)
{
    gne_ctx *x = (gne_ctx *)p;
    size_t start = x->start, end = user_end(x, x->tail);
    unsigned id = (unsigned)x->val[GNE_F_PACKET_ID];
    if (id < 16) {
        gw_emit_finding(&x->p.e, GNE_E_RESERVED, start, 1, "Reserved packet id %u", id);
        if (end > x->p.c.off)
            gw_take_bytes(&x->p, GNE_F_DATA, end - x->p.c.off);
        gw_summary_add(&x->p.sum, "Reserved %u", id);
    } else {
        gw_emit_gen_u(&x->p.e, GNE_F_USER_LENGTH_UNKNOWN, start, 1);
        if (end > x->p.c.off)
            gw_take_bytes(&x->p, GNE_F_USER_DATA, end - x->p.c.off);
        gw_summary_add(&x->p.sum, "User packet %u", id);
    }
}

/* a packet's subtree label: its id's name, the id the chain looked at to
   know a packet starts here */
static void label_packet(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    (void)items, (void)n;
    uint8_t id = p->c.data[p->c.off];
    snprintf(out, size, "%s (%u)", gw_value_name_of(packet_names, id), id);
}

static void wrapped(gw_pdu *p);

/* the 255 that ends a message, or stands for no wrapped packet */
static const gw_lstep end_mark[] = {NUM(END, 1), END};
/* end_mark read: its one number taken as its step says, inline (once a
   message: a layout run would cost more than the byte) */
static inline void take_end(gne_ctx *x)
{
    gw_take_u(&x->p, end_mark[0].field, end_mark[0].size, NULL);
}
/* a gtime (T2, T3), a subtree labelled with its date, needed whole: its
   fields F(field, bytes, check), seconds and microseconds */
#define GTIME_FIELDS(F, usec) F(GNE_F_TIME_SEC, 4, NULL) F(GNE_F_TIME_USEC, 4, usec)
#define GTIME_STEP(f, n, fn) GW_NUM(f, n, GW_CHECK(fn)),
#define GTIME_BYTES(f, n, fn) +(n)
#define GTIME(what, label, usec)                                                                               \
    GW_TREE(GNE_F_TIME, label, GW_FLAGS(GW_LF_AHEAD), GW_WHAT(what), GW_NEED(0 GTIME_FIELDS(GTIME_BYTES, usec))), \
        GTIME_FIELDS(GTIME_STEP, usec) GW_DONE
/* a CustomPacket's data, its length of n bytes judged before it */
#define CUSTOM(n) \
    GW_COUNTED(GNE_F_CUSTOM_DATA, GNE_F_CUSTOM_LENGTH, n, -1, GW_FLAGS(GW_LF_LENGTH), GW_CHECK(custom_length))
/* the body of each packet by its id: a ping's request id and T2, T3 (a
   request has both 0); a CustomPacket's length and data; a
   RateAdjustPacket's rate; a channel or object packet's wrapped packet
   (or 255), then its own fields; nothing for the empty packet and the
   ExitPacket; an unknown layout for reserved and application ids */
static const gw_lstep *const body_of_id[ID_END] = {
    [ID_EMPTY] = GW_LAYOUT(GW_HOOK(empty_packet)),
    [ID_CUSTOM] = GW_LAYOUT(GW_HOOK(custom_packet), GW_IF(GNE_F_PACKET_ID, GW_CMP_EQ, ID_CUSTOM_TEXT), CUSTOM(1),
                            GW_DONE, GW_IF(GNE_F_PACKET_ID, GW_CMP_NE, ID_CUSTOM_TEXT), CUSTOM(2), GW_DONE),
    [ID_EXIT] = GW_LAYOUT(GW_HOOK(exit_packet)),
    [ID_RATE] = GW_LAYOUT(GW_NUM(GNE_F_RATE, 4, GW_CHECK(rate_adjust))),
    [ID_PING] = GW_LAYOUT(GW_NUM(GNE_F_PING_REQ_ID, 4, GW_CHECK(ping_id)), GTIME(T2_WHAT, label_t2, t2_usec),
                          GTIME(T3_WHAT, label_t3, t3_usec), GW_HOOK(ping_done)),
    [ID_CHANNEL] = GW_LAYOUT(GW_HOOK(channel_packet), GW_STEP(wrapped), NUM(CHANNEL, 1),
                             GW_NUM(GNE_F_CHANNEL_FROM, 1, GW_CHECK(channel_said))),
    [ID_OBJ_CREATE... ID_OBJ_DEATH] = GW_LAYOUT(GW_HOOK(object_packet), GW_STEP(wrapped),
                                                GW_NUM(GNE_F_OBJECT_ID, 2, GW_CHECK(object_said))),
    [ID_OBJ_DEATH + 1 ... ID_END - 1] = GW_LAYOUT(GW_STEP(unknown_body)),
};
/* a packet: its id, then its body (the 255 has none: it ends the chain) */
#define PACKET GW_NUM(GNE_F_PACKET_ID, 1), GW_SWITCH(GNE_F_PACKET_ID, body_of_id)
static const gw_lstep packet_body[] = {PACKET, END};
/* as the decoder shows it, a subtree */
static const gw_lstep packet_tree[] = {GW_TREE(GNE_F_PACKET, label_packet), GW_SUB(packet_body), GW_DONE, END};

/* read a packet: a subtree where one is shown, else its bytes alone (as
   the tree would read them, without a block to enter) */
static void packet(gne_ctx *x)
{
    x->start = x->p.c.off;
    gw_layout_run(&x->p, gw_emit_tree(&x->p.e) ? packet_tree : packet_body);
}

/* the bytes of a wrapping packet's own fields, after its wrapped packet:
   the fixed part after the step that reads it (ChannelPacket: channel and
   source, object packets: the object id) */
static size_t wrapper_fields(uint64_t id)
{
    const gw_lstep *l = id < ID_END ? body_of_id[id] : NULL;
    for (; l && l->op != GW_L_END; l++)
        if (l->op == GW_L_STEP && l->step == wrapped)
            return gw_layout_fixed_size(l + 1);
    return 0;
}

/* the packet inside a ChannelPacket or an object packet, or a lone 255:
   read to a depth of GNE_WRAP_DEPTH */
static void wrapped(gw_pdu *p)
{
    gne_ctx *x = (gne_ctx *)p;
    if (!gw_remaining(&x->p.c)) {
        gw_pdu_truncated(&x->p, "Wrapped packet");
        return;
    }
    if (x->p.c.data[x->p.c.off] == ID_END) {
        take_end(x);
        gw_summary_add(&x->p.sum, "no packet");
        return;
    }
    if (x->depth + 1 >= GNE_WRAP_DEPTH) {
        x->p.failed = true;
        size_t n = gw_remaining(&x->p.c);
        gw_emit_finding(&x->p.e, GNE_E_TOO_DEEP, x->p.c.off, n, "Wrapped packets nested more than %d deep",
                        GNE_WRAP_DEPTH);
        gw_take_rest(&x->p, GNE_F_DATA);
        gw_summary_add(&x->p.sum, "...");
        return;
    }
    size_t start = x->start, tail = wrapper_fields(x->val[GNE_F_PACKET_ID]);
    x->depth++;
    x->tail += tail;
    packet(x);
    x->depth--;
    x->tail -= tail;
    x->start = start;
}

/* the chain: packets until the 255 that ends it */
static void packets(gne_ctx *x)
{
    size_t start = x->p.c.off, len = gw_remaining(&x->p.c);
    gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, start, MSG_PACKETS);
    emit_order(x, start);
    if (x->conv->link_frame && x->p.pi->transport == GW_TRANSPORT_UDP)
        gw_emit_gen_u(&x->p.e, GNE_F_LINK_FRAME, start, x->conv->link_frame);
    if (len > GNE_MESSAGE_MAX)
        gw_emit_finding(&x->p.e, GNE_E_TOO_LONG, start, len, "Message of %zu %s (at most %d)", len, gw_bytes(len),
                        GNE_MESSAGE_MAX);
    x->depth = 0;
    x->tail = 0;
    int n = 0;
    while (!x->p.failed) {
        if (!gw_remaining(&x->p.c)) {
            gw_emit_finding(&x->p.e, GNE_E_UNTERMINATED, x->p.c.off, 0,
                            "The message ends after %d packet%s without 255", n, n == 1 ? "" : "s");
            break;
        }
        if (x->p.c.data[x->p.c.off] == ID_END) {
            take_end(x);
            size_t rest = gw_remaining(&x->p.c);
            if (rest) {
                gw_emit_finding(&x->p.e, GNE_E_TRAILING, x->p.c.off, rest, "%zu byte%s after the 255", rest,
                                rest == 1 ? "" : "s");
                gw_take_rest(&x->p, GNE_F_TRAILING);
            }
            break;
        }
        if (n++)
            gw_summary_add(&x->p.sum, ", ");
        packet(x);
    }
    if (n == 0)
        gw_summary_add(&x->p.sum, "Empty message");
}

static void message(gne_ctx *x)
{
    gne_conv *c = x->conv;
    size_t len = gw_remaining(&x->p.c);
    const uint8_t *p = x->p.c.data + x->p.c.off;
    x->p.big_endian = is_big(c);
    bool tcp = x->p.pi->transport == GW_TRANSPORT_TCP;
    /* in the handshake: does the message begin as its messages do ("GNE"),
       and a reply's response */
    bool gne = false;
    uint64_t response = UINT64_MAX;
    if (tcp && (c->stage == HS_START || c->stage == HS_WAIT_REPLY)) {
        gne = gw_frame_magic(&handshake, p, len);
        gw_frame_num(&handshake, GNE_F_RESPONSE, p, len, &response);
    }

    if (tcp && c->stage == HS_START) {
        c->stage = HS_DONE;
        if (gne && len == 48)
            { connection_request(x, len); return; }
        /* a server reply seen first: the other side is the client */
        size_t build_end;
        build_at(magic, &build_end);
        if (gne && response <= 1 && (len == 44 || len == 12)) {
            c->client_dir = (uint8_t)!x->p.pi->dir;
            c->stage = HS_WAIT_REPLY;
        } else if (gne && len >= build_end) {
            { connection_request(x, len); return; }
        }
    }
    if (tcp && c->stage == HS_WAIT_REPLY && role(x) == 1) {
        if (gne && response == 0)
            { refusal(x, len); return; }
        if (gne && response == 1)
            { accept_msg(x, len); return; }
        c->stage = HS_DONE;
        size_t head = gw_frame_size(&handshake);
        gw_emit_finding(&x->p.e, GNE_E_BAD_MAGIC, x->p.c.off, len < head ? len : head,
                        "Expected a refusal or an accept");
    }
    if (tcp && c->stage == HS_WAIT_REPLY && role(x) == 0 && !c->order_flagged) {
        c->order_flagged = true;
        gw_emit_finding(&x->p.e, GNE_E_HS_ORDER, x->p.c.off, len, "A message from the client before the server's reply");
    }
    if (tcp && c->stage == HS_REFUSED && !c->order_flagged) {
        c->order_flagged = true;
        gw_emit_finding(&x->p.e, GNE_E_HS_ORDER, x->p.c.off, len, "A message from the %s after the refusal",
                        role(x) ? "server" : "client");
    }
    if (tcp && c->stage == HS_DONE && role(x) == 0 && c->port_msg_possible) {
        c->port_msg_possible = false;
        if (len == gw_layout_fixed_size(udp_port_layout) && p[len - 1] != ID_END) { /* (packets end with 255) */
            gw_emit_finding(&x->p.e, GNE_E_UDP_UNEXPECTED, x->p.c.off, len,
                            "A 4-byte UDP port message, but the accept opened no UDP link");
            udp_port_msg(x);
            return;
        }
    }
    if (tcp && c->stage == HS_WAIT_PORT && role(x) == 0) {
        if (len == gw_layout_fixed_size(udp_port_layout))
            { udp_port_msg(x); return; }
        c->stage = HS_DONE;
        gw_emit_finding(&x->p.e, GNE_E_BAD_LENGTH, x->p.c.off, len,
                        "Expected the client's 4-byte UDP port, got %zu %s", len, gw_bytes(len));
    }
    if (c->stage == HS_START) /* UDP on a port given by the user */
        c->stage = HS_DONE;
    if (!c->order)
        note_assumed_order(x, x->p.c.off, tcp ? "No connection request seen" : "No TCP connection linked");
    int r = role(x);
    if (tcp && c->exited[r] && !c->exit_flagged[r]) {
        c->exit_flagged[r] = true;
        gw_emit_finding(&x->p.e, GNE_E_EXIT_NOT_LAST, x->p.c.off, len, "The %s sends on after its ExitPacket",
                        r ? "server" : "client");
    }
    packets(x);
}

/* bytes sent by this PDU's side against the other side's announced maximum
   incoming rate, in one-second windows (a new window starts with the first
   PDU after the last one ended: no deficit builds up). A linked UDP
   conversation keeps its own count. */
static void check_rate(gne_ctx *x, size_t bytes)
{
    gne_conv *c = x->conv;
    int r = role(x);
    int64_t t = x->p.pi->time_ns;
    if (t < c->rate_window[r])
        return; /* within a second of a rate change */
    if (t - c->rate_window[r] >= RATE_WINDOW_NS) {
        c->rate_window[r] = t;
        c->rate_bytes[r] = 0;
    }
    c->rate_bytes[r] += (uint32_t)bytes;
    uint32_t limit = c->rate[!r];
    if (!c->rate_known[!r] || limit == 0 || c->rate_flagged[r])
        return;
    if ((uint64_t)c->rate_bytes[r] > (uint64_t)limit + limit / 4 + GNE_MESSAGE_MAX) {
        c->rate_flagged[r] = true;
        gw_emit_finding(&x->p.e, GNE_E_RATE_EXCEEDED, 0, bytes,
                        "The %s sent %u %s within %.3f s; the %s accepts %u %s per second",
                        r ? "server" : "client", c->rate_bytes[r], gw_bytes(c->rate_bytes[r]), (double)(t - c->rate_window[r]) / 1e9,
                        r ? "client" : "server", limit, gw_bytes(limit));
    }
}

static void gne_decode(void *conv, const gw_pdu_info *pi, const uint8_t *data, size_t len,
                       const gw_sink *sink)
{
    gne_ctx xs, *x = &xs;
    gw_pdu_begin(&x->p, &gw_gne_protocol, sink, pi, data, len);
    x->conv = conv;
    memset(x->seen, 0, sizeof x->seen);
    x->p.rec = (gw_record){x->seen, x->val, x->text};
    static const gw_pdu_hooks hooks = {0}; /* the packets' checks and steps run */
    x->p.hooks = &hooks;

    if (pi->transport == GW_TRANSPORT_TCP) {
        size_t head = gw_frame_size(&nl_frame);
        if (len < head || !gw_frame_magic(&nl_frame, data, len)) {
            gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, 0, MSG_OUT_OF_SYNC);
            gw_emit_finding(&x->p.e, GNE_E_OUT_OF_SYNC, 0, len, "%zu %s without the NL magic", len, gw_bytes(len));
            gw_take_rest(&x->p, GNE_F_DATA);
            gw_summary_add(&x->p.sum, "Out of sync (%zu %s skipped)", len, gw_bytes(len));
            gw_pdu_finish(&x->p);
            return;
        }
        uint64_t n = 0;
        gw_frame_take(&x->p, &nl_frame, GNE_F_NL_MAGIC, NULL);
        gw_frame_take(&x->p, &nl_frame, GNE_F_NL_LENGTH, &n);
        if (n > GNE_NL_MAX) {
            gw_emit_hidden_u(&x->p.e, GNE_F_MESSAGE, 0, MSG_OUT_OF_SYNC);
            gw_emit_finding(&x->p.e, GNE_E_NL_TOO_LONG, 2, 2, "NL frame of %u %s (at most %d)",
                            (unsigned)n, gw_bytes((unsigned)n), GNE_NL_MAX);
            gw_take_rest(&x->p, GNE_F_DATA);
            gw_summary_add(&x->p.sum, "Out of sync (NL length %u)", (unsigned)n);
            gw_pdu_finish(&x->p);
            return;
        }
        if (head + n < len)
            x->p.c.len = head + (size_t)n;
        if (head + n > len)
            gw_emit_finding(&x->p.e, GNE_E_TRUNCATED, len, 0, "NL length %u, but only %zu %s",
                            (unsigned)n, len - head, gw_bytes(len - head));
    }
    message(x);
    check_rate(x, len);
    gw_pdu_finish(&x->p);
}

/* ---- pcaptool conform's messages ---------------------------------------------- */

/* The written forms of what conform sends: the handshake's messages, and a
   message of packets (each its id and body, as the decoder reads them:
   PACKET), ended by 255 when a value is given for it. What the decoder
   reads by a step is written from the GW_W_STEP bytes given, in order: a
   channel or object packet's wrapped packet (or 255), an unknown id's
   body. A CustomPacket is written with gnelib's 2-byte length. conform
   decodes what it built back with the decoder. */
static const gw_lstep request_layout[] = {GW_SUB(magic), GW_SUB(versions), GW_SUB(request_tail), END};
static const gw_lstep refusal_layout[] = {GW_SUB(reply), GW_SUB(versions), GW_SUB(game), END};
static const gw_lstep packets_layout[] = {GW_MORE(1), PACKET, GW_DONE, GW_OPTIONAL, GW_SUB(end_mark), END};

/* type: MSG_REQUEST, MSG_REFUSAL, MSG_ACCEPT, MSG_UDP_PORT or MSG_PACKETS, in an NL
   frame (TCP), the data in the byte order the byte_order option forces
   (little-endian when auto) */
static size_t gne_build(const int *opts, int64_t type, const gw_wval *vals, uint8_t *out, size_t cap)
{
    const gw_lstep *l = type == MSG_REQUEST ? request_layout : type == MSG_REFUSAL ? refusal_layout
                      : type == MSG_ACCEPT ? accept_layout : type == MSG_UDP_PORT ? udp_port_layout
                      : type == MSG_PACKETS ? packets_layout : NULL;
    size_t n, head = gw_frame_size(&nl_frame);
    if (!l || cap < head ||
        !gw_layout_write(l, opts[GNE_OPT_BYTE_ORDER] == GNE_ORDER_BIG, vals, out + head, cap - head, &n) ||
        n > GNE_NL_MAX || !gw_frame_write(&nl_frame, GW_NO_VALUES, n, out, cap))
        return 0;
    return n + head;
}

/* NL framing; on a bad header, the bytes up to the next "NL" form one
   (reported) PDU, so decoding resynchronises there */
static long gne_pdu_length(const int *opts, const uint8_t *data, size_t avail)
{
    (void)opts;
    size_t from = 1;
    uint64_t n;
    if (!gw_frame_length(&nl_frame, data, avail, &n))
        return 0;
    if (gw_frame_magic(&nl_frame, data, avail)) {
        if (n <= GNE_NL_MAX + gw_frame_size(&nl_frame))
            return (long)n;
        from = 2;
    }
    for (size_t i = from; i < avail; i++)
        if (gw_frame_magic(&nl_frame, data + i, avail - i))
            return (long)i;
    return GW_PDU_INVALID;
}

/* the first data of a GNE connection: the connection request's NL header
   (gnelib sends it in a segment of its own), or a frame starting "GNE" */
static bool gne_heuristic(const int *opts, int transport, const uint8_t *d, size_t len)
{
    (void)opts;
    uint64_t n;
    if (transport != GW_TRANSPORT_TCP || !gw_frame_num(&nl_frame, GNE_F_NL_LENGTH, d, len, &n) ||
        !gw_frame_magic(&nl_frame, d, len) || n > 255)
        return false;
    size_t head = gw_frame_size(&nl_frame);
    if (len == head)
        return n == 48;
    return n >= gw_layout_fixed_size(magic) && gw_frame_magic(&handshake, d + head, len - head);
}

/* pcaptool stats and the statistics tree: ping round trips */
static const int measures[] = {GNE_F_PING_RTT};

const gw_protocol gw_gne_protocol = {
    .name = "gne",
    .short_name = "GNE",
    .long_name = "Gillius's Game Networking Engine",
    .transports = GW_TRANSPORT_TCP | GW_TRANSPORT_UDP,
    .default_port = 0,
    .fields = fields,
    .n_fields = GNE_F_COUNT,
    .findings = findings,
    .n_findings = GNE_E_COUNT,
    .truncated_finding = GNE_E_TRUNCATED,
    .rest_field = GNE_F_DATA,
    .rules = rules,
    .n_rules = (int)(sizeof rules / sizeof rules[0]),
    .type_field = GNE_F_MESSAGE,
    .part_type_field = GNE_F_PACKET_ID,
    .measures = measures,
    .n_measures = (int)(sizeof measures / sizeof measures[0]),
    .options = options,
    .n_options = (int)(sizeof options / sizeof options[0]),
    .conv_size = sizeof(gne_conv),
    .conv_init = conv_init,
    .conv_free = conv_free,
    .conv_link = conv_link,
    .decode = gne_decode,
    .pdu_length = gne_pdu_length,
    .pdu_header = 4,
    .heuristic = gne_heuristic,
    .build = gne_build,
};
