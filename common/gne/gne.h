/* gne.h - GNE, Gillius's Game Networking Engine, over HawkNL (no default
 * port): NL-framed TCP with a connection handshake, and a negotiated UDP link.
 *
 * Wire facts: docs/wire-facts.md section 3 (gillius/gnelib) and
 * the GNE text (the protocol text, whose packet tables were lost:
 * docs/protocol-texts.md).
 */
#ifndef GW_GNE_H
#define GW_GNE_H

#include "core/gw_core.h"
#include "core/gw_tables.h"

#define GNE_NL_MAX 16384      /* HawkNL refuses longer frames */
#define GNE_MESSAGE_MAX 512   /* gnelib's Buffer::RAW_PACKET_LEN */
#define GNE_WRAP_DEPTH 8      /* nested wrapped packets decoded */
#define GNE_PINGS 32          /* outstanding ping requests per direction */

/* data byte order of a connection */
enum gne_order {
    GNE_ORDER_AUTO = 0,   /* option value: from the handshake's build field */
    GNE_ORDER_LITTLE = 1, /* gnelib after 2012 */
    GNE_ORDER_BIG = 2,    /* releases up to 0.70 */
};
/* what a message is (gne.message) */
enum message_kind { MSG_REQUEST = 1, MSG_REFUSAL, MSG_ACCEPT, MSG_UDP_PORT, MSG_PACKETS, MSG_OUT_OF_SYNC };

/* packet ids (gne.packet.id); 255 ends a message */
enum { ID_EMPTY, ID_CUSTOM, ID_EXIT, ID_RATE, ID_PING, ID_CHANNEL, ID_OBJ_CREATE,
       ID_OBJ_UPDATE, ID_OBJ_DEATH, ID_END = 255 };

/* the options (gw_option): gne.byte_order (enum gne_order), gne.profile
   (enum gw_profile) */
enum { GNE_OPT_BYTE_ORDER, GNE_OPT_PROFILE };

/* fields and findings (gw_tables.h) */
#define GNE_FIELDS(F, LINK) \
    F(GNE_F_NL_MAGIC, "gne.nl.magic", "NL magic", STRING, NONE, NULL, 0, "HawkNL reliable-packet magic 'NL'") \
    F(GNE_F_NL_LENGTH, "gne.nl.length", "NL length", U16, BYTES, NULL, 0, "Content length of the HawkNL frame (big-endian, header excluded)") \
    F(GNE_F_MESSAGE, "gne.message", "Message", U8, NONE, message_names, 0, "What this message is in the connection") \
    F(GNE_F_BYTE_ORDER, "gne.byte_order", "Data byte order", U8, NONE, order_names, 0, "Byte order of the numbers inside GNE messages (from the handshake's build field)") \
    F(GNE_F_LINK_FRAME, "gne.link.frame", "UDP link set up in frame", FRAMENUM, NONE, NULL, 0, "The TCP frame whose accept opened this UDP link") \
    F(GNE_F_MAGIC, "gne.magic", "GNE magic", STRING, NONE, NULL, 0, "'GNE' header of a handshake message") \
    F(GNE_F_RESPONSE, "gne.response", "Response", U8, DEC, response_names, 0, "0 = refusal, 1 = accept") \
    F(GNE_F_VERSION, "gne.version", "Protocol version", U8, DEC, NULL, 0, "GNE protocol version") \
    F(GNE_F_SUB_VERSION, "gne.sub_version", "Protocol sub-version", U8, DEC, NULL, 0, "GNE protocol sub-version") \
    F(GNE_F_BUILD, "gne.build", "Build", U16, DEC, NULL, 0, "GNE protocol build, in the sender's data byte order") \
    F(GNE_F_GAME_NAME, "gne.game_name", "Game name", STRING, NONE, NULL, 0, "Game name (32-byte NUL-padded field)") \
    F(GNE_F_USER_VERSION, "gne.user_version", "User version", U32, DEC, NULL, 0, "Application protocol version") \
    F(GNE_F_RATE, "gne.rate", "Max incoming rate", U32, BYTES_PER_SECOND, rate_names, 0, "Most bytes per second the sender wants to receive (0 = unlimited)") \
    F(GNE_F_UNRELIABLE, "gne.unreliable", "Unreliable link requested", BOOL, NONE, NULL, 0, "The client asks for a UDP link") \
    F(GNE_F_UDP_PORT, "gne.udp_port", "UDP port", I32, DEC, port_names, 0, "UDP port of the sender's unreliable link (-1 = none)") \
    F(GNE_F_RATE_C2S, "gne.rate.client_to_server", "Rate limit client to server", U32, BYTES_PER_SECOND, rate_names, 0, "Bytes per second the server accepts now (0 = unlimited)") \
    F(GNE_F_RATE_S2C, "gne.rate.server_to_client", "Rate limit server to client", U32, BYTES_PER_SECOND, rate_names, 0, "Bytes per second the client accepts now (0 = unlimited)") \
    F(GNE_F_PACKET, "gne.packet", "Packet", NONE, NONE, NULL, 0, "One packet of a message") \
    F(GNE_F_PACKET_ID, "gne.packet.id", "Packet id", U8, DEC, packet_names, 0, "Packet type (9-15 reserved, 16-254 application-defined)") \
    F(GNE_F_END, "gne.end", "End marker", U8, DEC, NULL, 0, "255: end of the message, or no wrapped packet") \
    F(GNE_F_CUSTOM_LENGTH, "gne.custom.length", "Custom data length", U16, BYTES, NULL, 0, "Length of a CustomPacket's data") \
    F(GNE_F_CUSTOM_DATA, "gne.custom.data", "Custom data", BYTES, NONE, NULL, 0, "A CustomPacket's data") \
    F(GNE_F_PING_REQ_ID, "gne.ping.req_id", "Request id", U32, DEC, NULL, 0, "Matches a ping reply to its request") \
    F(GNE_F_PING_REPLY, "gne.ping.reply", "Reply", BOOL, NONE, NULL, 0, "A reply (T2 and T3 set); a request has T2 = T3 = 0") \
    F(GNE_F_TIME, "gne.time", "Time", NONE, NONE, NULL, 0, "A gtime: seconds + microseconds") \
    F(GNE_F_TIME_SEC, "gne.time.sec", "Seconds", I32, DEC, NULL, 0, "gtime seconds") \
    F(GNE_F_TIME_USEC, "gne.time.usec", "Microseconds", I32, DEC, NULL, 0, "gtime microseconds (0-999999)") \
    F(GNE_F_TIME_UTC, "gne.time.utc", "Time (UTC)", ABSTIME, NONE, NULL, 0, "The gtime as a date, for filters such as gne.time.utc > \"2026-11-21\" (not shown when it is 0, unset, or its microseconds are out of range)") \
    LINK(GNE_F_PING_REQUEST_FRAME, "gne.ping.request_frame", "Request in frame", "The frame of the request this reply answers", 0, GNE_F_PING_REPLY_FRAME) \
    LINK(GNE_F_PING_REPLY_FRAME, "gne.ping.reply_frame", "Reply in frame", "The frame of the reply to this request (two-pass)", GW_FIELD_TWO_PASS, -1) \
    F(GNE_F_PING_RTT, "gne.ping.rtt", "Round-trip time", RELTIME, NONE, NULL, 0, "R = (T4 - T1) - (T3 - T2), T1 and T4 the capture times of request and reply") \
    F(GNE_F_PING_OFFSET, "gne.ping.offset", "Clock offset", RELTIME, NONE, NULL, 0, "O = ((T2 - T1) + (T3 - T4)) / 2: the replying peer's clock minus the capture clock") \
    F(GNE_F_PING_OFFSET_ERROR, "gne.ping.offset_error", "Clock offset error bound", RELTIME, NONE, NULL, 0, "E = R / 2: the true offset lies in O - E .. O + E") \
    F(GNE_F_CHANNEL, "gne.channel", "Channel", U8, DEC, NULL, 0, "ChannelPacket channel") \
    F(GNE_F_CHANNEL_FROM, "gne.channel.from", "From", U8, DEC, NULL, 0, "ChannelPacket source") \
    F(GNE_F_OBJECT_ID, "gne.object_id", "Object id", U16, DEC, NULL, 0, "Object broker object id") \
    F(GNE_F_USER_DATA, "gne.user.data", "User data", BYTES, NONE, NULL, 0, "Application-defined packet body") \
    F(GNE_F_USER_LENGTH_UNKNOWN, "gne.user.length_unknown", "Length unknown", BOOL, NONE, NULL, 0, "An application-defined layout: the data is taken to run to the end of the message (before any wrapper fields and the 255), so later packets, if any, are inside it") \
    F(GNE_F_DATA, "gne.data", "Undecoded bytes", BYTES, NONE, NULL, 0, "Bytes that could not be decoded") \
    F(GNE_F_TRAILING, "gne.trailing", "Trailing bytes", BYTES, NONE, NULL, 0, "Bytes after the 255 that ends the message")
enum { GNE_FIELDS(GW_INDEX, GW_INDEX) GNE_F_COUNT };

#define GNE_FINDINGS(E) \
    E(GNE_E_OUT_OF_SYNC, "gne.nl.out_of_sync", ERROR, MALFORMED, "Bytes that do not start with the 'NL' magic: the stream is out of sync, decoding resumes at the next 'NL'") \
    E(GNE_E_NL_TOO_LONG, "gne.nl.too_long", ERROR, MALFORMED, "An NL frame longer than 16384 bytes (HawkNL refuses it): treated as out of sync") \
    E(GNE_E_TOO_LONG, "gne.message.too_long", NOTE, PROTOCOL, "A message over 512 bytes (gnelib's largest)") \
    E(GNE_E_UNTERMINATED, "gne.message.unterminated", ERROR, MALFORMED, "The message ends without its 255 terminator") \
    E(GNE_E_TRAILING, "gne.message.trailing", WARNING, MALFORMED, "Bytes after the 255 that ends the message") \
    E(GNE_E_TRUNCATED, "gne.packet.truncated", ERROR, MALFORMED, "A packet's body runs past the end of the message") \
    E(GNE_E_RESERVED, "gne.packet.reserved", WARNING, UNDECODED, "A reserved packet id (9-15): its layout is unknown") \
    E(GNE_E_TOO_DEEP, "gne.packet.too_deep", ERROR, UNDECODED, "Wrapped packets nested deeper than 8: not decoded further") \
    E(GNE_E_BAD_LENGTH, "gne.handshake.bad_length", ERROR, MALFORMED, "A handshake message of the wrong length (request 48, refusal 44, accept 12, UDP port 4)") \
    E(GNE_E_BAD_MAGIC, "gne.handshake.bad_magic", ERROR, MALFORMED, "A server reply to the connection request without the 'GNE' header or with an unknown response byte") \
    E(GNE_E_GAME_NAME, "gne.game_name.unterminated", WARNING, MALFORMED, "A game name filling all 32 bytes: no NUL, over the 31 characters allowed") \
    E(GNE_E_VERSIONS_MATCH, "gne.refusal.versions_match", NOTE, RESPONSE_CODE, "Refused although version, build, game name and user version all match the request: the server refused for another reason") \
    E(GNE_E_ORDER_MISMATCH, "gne.refusal.byte_order_mismatch", WARNING, RESPONSE_CODE, "Refused because the peers use different data byte orders (gnelib up to 0.70 sends big-endian, later gnelib little-endian)") \
    E(GNE_E_PORT_RANGE, "gne.udp_port.out_of_range", ERROR, MALFORMED, "A UDP port outside 0-65535 (-1 also allowed in the accept)") \
    E(GNE_E_ORDER_ASSUMED, "gne.byte_order.assumed", NOTE, COMMENT, "The handshake was not seen or its build field is ambiguous: the data byte order is assumed") \
    E(GNE_E_BAD_USEC, "gne.time.bad_usec", WARNING, MALFORMED, "A gtime whose microseconds are outside 0-999999") \
    E(GNE_E_PING_ORDER, "gne.ping.t2_after_t3", WARNING, PROTOCOL, "A ping reply whose receive time T2 is later than its send time T3") \
    E(GNE_E_PING_UNMATCHED, "gne.ping.unmatched", NOTE, SEQUENCE, "A ping reply whose request was not captured or was already answered") \
    E(GNE_E_HS_ORDER, "gne.handshake.out_of_order", WARNING, PROTOCOL, "A message from the client before the server's reply to its connection request, or any message after a refusal (once per connection)") \
    E(GNE_E_UDP_UNEXPECTED, "gne.udp_port.unexpected", WARNING, PROTOCOL, "A UDP port where no UDP link was requested and accepted: an accept offering one to a client that asked for none, or the client's 4-byte port message after an accept without one") \
    E(GNE_E_EXIT_NOT_LAST, "gne.exit.not_last", WARNING, PROTOCOL, "A message after the same side's ExitPacket on the reliable connection") \
    E(GNE_E_RATE_EXCEEDED, "gne.rate.exceeded", WARNING, PROTOCOL, "A side sent more in one second than the peer's announced maximum incoming rate allows (25% and one 512-byte message of tolerance; once per direction)") \
    E(GNE_E_PING_ID_REUSED, "gne.ping.id_reused", WARNING, SEQUENCE, "A ping request with the id of one of the same side still unanswered (ids are unique per connection)") \
    E(GNE_E_RELIABLE_ONLY, "gne.packet.not_reliable", WARNING, PROTOCOL, "An ExitPacket or RateAdjustPacket over the UDP link, where the text sends it over the reliable connection") \
    E(GNE_E_NAME_PADDING, "gne.game_name.padding", WARNING, MALFORMED, "Bytes after the game name's NUL that are not 0") \
    E(GNE_E_CUSTOM_U16, "gne.custom.length_not_text", WARNING, COMMENT, "Not as the text says: a CustomPacket length of 2 bytes, as gnelib writes it, where the text gives a guint8") \
    E(GNE_E_DATA_BIG, "gne.data.big_endian", WARNING, COMMENT, "Not as the text says: big-endian data, as gnelib up to 0.70 sends it, where the text says all data is little-endian") \
    E(GNE_E_DIV_CUSTOM_U16, "gne.divergence.custom_length", NOTE, COMMENT, "Profiles either and reference: CustomPacket lengths of 2 bytes, as gnelib writes them, where the text gives a guint8; profile either: also the text's 1-byte lengths, which gnelib does not write (once per conversation and width)") \
    E(GNE_E_DIV_DATA_BIG, "gne.divergence.big_endian", NOTE, COMMENT, "Profiles either and reference: big-endian data, as gnelib up to 0.70 sends it, where the text says little-endian (once per conversation)")
enum { GNE_FINDINGS(GW_INDEX) GNE_E_COUNT };

extern const gw_protocol gw_gne_protocol;

#endif
