/* Unit tests of the PDU builders pcaptool conform sends with
 * (gw_layout_write through each protocol's gw_protocol.build): the bytes
 * each must write, worked out by hand from the protocol texts and
 * docs/wire-facts.md, not from our decoders. */
#include <criterion/criterion.h>
#include <string.h>

#include "dnp/dnp.h"
#include "eoudp/eoudp.h"
#include "gne/gne.h"
#include "core/gw_layout.h"
#include "opendrakan/opendrakan.h"
#include "openttd/openttd.h"

static size_t build(const gw_protocol *p, const int *opts, int64_t type, const gw_wval *vals, uint8_t *out)
{
    int defaults[GW_MAX_OPTIONS];
    if (!opts) {
        gw_options_init(p, defaults);
        opts = defaults;
    }
    return p->build(opts, type, vals, out, 256);
}

#define EXPECT_BYTES(got, n, ...) \
    do { \
        static const uint8_t want_[] = {__VA_ARGS__}; \
        cr_assert_eq(n, sizeof want_, "length %zu, expected %zu", (size_t)(n), sizeof want_); \
        cr_assert_arr_eq(got, want_, sizeof want_); \
    } while (0)

/* wire-facts 1.3: "clients send 00 01 00 00 00" (one protocol, DNP1) */
Test(build, dnp_connect_request)
{
    uint8_t d[256];
    size_t n = build(&gw_dnp_protocol, NULL, DNP_CONNECT_REQUEST,
                     GW_WVALS(GW_WU(DNP_F_PROTOCOL_COUNT, 1), GW_WU(DNP_F_PROTOCOL, 0)), d);
    EXPECT_BYTES(d, n, 0x00, 0x01, 0x00, 0x00, 0x00);
}

/* DNP text: Reliable message = code 4, UInt16 number (little-endian), data */
Test(build, dnp_reliable_message)
{
    uint8_t d[256];
    size_t n = build(&gw_dnp_protocol, NULL, DNP_RELIABLE_MESSAGE,
                     GW_WVALS(GW_WU(DNP_F_SEQ, 0x0102), GW_WB(DNP_F_MESSAGE, "hi", 2)), d);
    EXPECT_BYTES(d, n, 0x04, 0x02, 0x01, 'h', 'i');
}

/* DNP text, Connection Ack: the protocol "is only present if Result Code has
   the value 0" */
Test(build, dnp_connect_ack_protocol_only_when_accepted)
{
    uint8_t d[256];
    size_t n = build(&gw_dnp_protocol, NULL, DNP_CONNECT_ACK, GW_WVALS(GW_WU(DNP_F_RESULT, 0), GW_WU(DNP_F_PROTOCOL, 0)), d);
    EXPECT_BYTES(d, n, 0x01, 0x00, 0x00, 0x00);
    n = build(&gw_dnp_protocol, NULL, DNP_CONNECT_ACK, GW_WVALS(GW_WU(DNP_F_RESULT, 2), GW_WU(DNP_F_PROTOCOL, 0)), d);
    EXPECT_BYTES(d, n, 0x01, 0x02);
}

/* wire-facts 2.1: size u16 LE counting the whole packet, type, payload;
   13.x CLIENT_ACK is type 25: u32 frame, u8 token */
Test(build, openttd_client_ack)
{
    uint8_t d[256];
    size_t n = build(&gw_openttd_protocol, NULL, PK_CLIENT_ACK,
                     GW_WVALS(GW_WU(OTTD_F_FRAME, 0x01020304), GW_WU(OTTD_F_TOKEN, 7)), d);
    EXPECT_BYTES(d, n, 0x08, 0x00, 25, 0x04, 0x03, 0x02, 0x01, 0x07);
}

/* wire-facts 3.1: NL frame ('N' 'L', length u16 big-endian), then an
   ExitPacket alone: 02 FF */
Test(build, gne_exit_message)
{
    uint8_t d[256];
    size_t n = build(&gw_gne_protocol, NULL, MSG_PACKETS, GW_WVALS(GW_WU(GNE_F_PACKET_ID, 2), GW_WU(GNE_F_END, 255)), d);
    EXPECT_BYTES(d, n, 'N', 'L', 0x00, 0x02, 0x02, 0xff);
}

/* wire-facts 3.5: the CRP is exactly 48 bytes; build 7 little-endian is 07 00 */
Test(build, gne_request_is_48_bytes)
{
    uint8_t d[256];
    size_t n = build(&gw_gne_protocol, NULL, MSG_REQUEST,
                     GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_BUILD, 7), GW_WB(GNE_F_GAME_NAME, "x", 1),
                              GW_WU(GNE_F_USER_VERSION, 3), GW_WU(GNE_F_UNRELIABLE, 1)),
                     d);
    cr_assert_eq(n, 4 + 48);
    cr_assert_eq(d[3], 48); /* NL length */
    cr_assert_eq(memcmp(d + 4, "GNE", 3), 0);
    cr_assert_eq(d[4 + 5], 7);
    cr_assert_eq(d[4 + 6], 0);
    cr_assert_eq(d[4 + 7], 'x');
    cr_assert_eq(d[4 + 8], 0); /* NUL padding */
    cr_assert_eq(d[4 + 39], 3);
    cr_assert_eq(d[4 + 47], 1);
}

/* wire-facts 5.2: type u8, payload length u16 LE, payload; ACKNOWLEDGE_SNAPSHOT
   (8) is an i64 tick */
Test(build, opendrakan_ack)
{
    uint8_t d[256];
    size_t n = build(&gw_opendrakan_protocol, NULL, T_ACK, GW_WVALS(GW_WU(OD_F_TICK, 5)), d);
    EXPECT_BYTES(d, n, 0x08, 0x08, 0x00, 0x05, 0, 0, 0, 0, 0, 0, 0);
}

/* wire-facts 4.3: the 26-byte header (cmd, f64 timestamp, id, important,
   size) big-endian, the payload little-endian: an acknowledge of id 9 */
Test(build, eoudp_acknowledge_f64_header)
{
    uint8_t d[256];
    size_t n = build(&gw_eoudp_protocol, NULL, 0x01,
                     GW_WVALS(GW_WU(EOUDP_F_TIMESTAMP, 0), GW_WU(EOUDP_F_ID, 2), GW_WU(EOUDP_F_ACK_ID, 9)), d);
    EXPECT_BYTES(d, n, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, /* timestamp 0.0 */
                 0, 0, 0, 0, 0, 0, 0, 2,            /* id */
                 0,                                 /* important */
                 0, 0, 0, 0, 0, 0, 0, 8,            /* size */
                 9, 0, 0, 0, 0, 0, 0, 0);           /* acked id, little-endian */
}

/* EOUDP text: the header [Command][Timestamp][Id][Size], 21 bytes, the
   timestamp "32 bit (4 bytes) float representing the time in seconds"; the
   text gives no byte order, so the header may be asked for little-endian
   (eoudp.default_order): a disconnect (empty) with id 1000000 */
Test(build, eoudp_text_header_little_endian_seconds)
{
    uint8_t d[256];
    int opts[GW_MAX_OPTIONS];
    gw_options_init(&gw_eoudp_protocol, opts);
    opts[EOUDP_OPT_GENERATION] = EOUDP_GEN_RFC;
    opts[EOUDP_OPT_ORDER] = EOUDP_LITTLE;
    size_t n = build(&gw_eoudp_protocol, opts, 0x82, GW_WVALS(GW_WU(EOUDP_F_ID, 1000000)), d);
    cr_assert_eq(n, 21);
    cr_assert_eq(d[0], 0x82);
    static const uint8_t id_size[] = {0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, /* id 1000000, little-endian */
                                      0, 0, 0, 0, 0, 0, 0, 0};           /* size 0 */
    cr_assert_arr_eq(d + 5, id_size, sizeof id_size);
    float t;
    uint32_t bits = (uint32_t)d[1] | (uint32_t)d[2] << 8 | (uint32_t)d[3] << 16 | (uint32_t)d[4] << 24;
    memcpy(&t, &bits, 4);
    cr_assert(t > 1.5e9 && t < 1e10, "a time in seconds since the epoch, not milliseconds: %g", (double)t);
}

/* a counted length given on its own is written as given (a length that
   lies); the link state's values follow (a count of 0 without any) */
Test(build, counted_length_that_lies)
{
    uint8_t d[256];
    size_t n = build(&gw_dnp_protocol, NULL, DNP_LINK_STATE,
                     GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WU(DNP_F_LINK_ID, 1), GW_WU(DNP_F_MESSAGE_LENGTH, 100),
                              GW_WB(DNP_F_MESSAGE, "ab", 2)), d);
    EXPECT_BYTES(d, n, 0x05, 0, 0, 1, 0, 0, 100, 0, 'a', 'b', 0, 0);
}

/* what does not fit is not built */
Test(build, too_small)
{
    uint8_t d[4];
    size_t n = gw_dnp_protocol.build((int[GW_MAX_OPTIONS]){0}, DNP_RELIABLE_MESSAGE,
                                     GW_WVALS(GW_WU(DNP_F_SEQ, 1), GW_WB(DNP_F_MESSAGE, "hello", 5)), d, sizeof d);
    cr_assert_eq(n, 0);
}
