/* eoudp.h - EOUDP, Exodia On UDP (UDP port 8082 server, 8083 client).
 *
 * Wire facts: docs/wire-facts.md section 4 (maelbecel/R-Type)
 * and the EOUDP text (the RFC text of 27 December 2023:
 * docs/protocol-texts.md).
 */
#ifndef GW_EOUDP_H
#define GW_EOUDP_H

#include "core/gw_core.h"
#include "core/gw_tables.h"

#define EOUDP_PORT 8082
#define EOUDP_ACKS 256   /* important packets awaiting their ack, per direction */

/* header generations */
enum eoudp_generation {
    EOUDP_GEN_AUTO = 0,  /* option value: from the size field */
    EOUDP_GEN_RFC = 1,   /* the text: cmd, f32 timestamp, id, size (21 bytes) */
    EOUDP_GEN_PAD = 2,   /* until 31 Dec 2023: the same plus a zero pad byte (22) */
    EOUDP_GEN_IMP = 3,   /* 1-8 Jan 2024: important u8 before size (22) */
    EOUDP_GEN_F64 = 4,   /* from 8 Jan 2024: f64 timestamp, important (26) */
};
enum eoudp_order { EOUDP_BIG = 1, EOUDP_LITTLE = 2 };
enum eoudp_numbering { EOUDP_NUM_IMPL = 0, EOUDP_NUM_TEXT = 1 };

/* the options (gw_option): eoudp.generation (forced, or AUTO),
   eoudp.default_generation (when ambiguous), eoudp.numbering,
   eoudp.profile (enum gw_profile), eoudp.default_order (the header's byte
   order when ambiguous, enum eoudp_order; what pcaptool conform sends in) */
enum { EOUDP_OPT_GENERATION, EOUDP_OPT_DEFAULT, EOUDP_OPT_NUMBERING, EOUDP_OPT_PROFILE, EOUDP_OPT_ORDER };

/* fields and findings (gw_tables.h) */
#define EOUDP_FIELDS(F, LINK) \
    F(EOUDP_F_COMMAND, "eoudp.command", "Command", U8, HEX, command_names, 0, "Command code (below 0x80 from the server, from 0x80 from the client)") \
    F(EOUDP_F_TIMESTAMP, "eoudp.timestamp", "Timestamp", DOUBLE, EPOCH_MS, NULL, 0, "Sender's time, milliseconds since the Unix epoch (f32 in the 21/22-byte headers, f64 in the 26-byte one)") \
    F(EOUDP_F_TIMESTAMP_UTC, "eoudp.timestamp.utc", "Timestamp (UTC)", ABSTIME, NONE, NULL, 0, "The timestamp as a date, for filters such as eoudp.timestamp.utc > \"2026-11-21\": milliseconds above 1e11, else the text's seconds") \
    F(EOUDP_F_ID, "eoudp.id", "Id", U64, DEC, NULL, 0, "Per-direction packet counter") \
    F(EOUDP_F_IMPORTANT, "eoudp.important", "Important", BOOL, NONE, NULL, 0, "The receiver must acknowledge this packet (a header byte from Jan 2024; before, implied by the command and shown generated)") \
    F(EOUDP_F_PAD, "eoudp.pad", "Pad", U8, HEX, NULL, 0, "Zero pad byte of the 22-byte header until 31 Dec 2023") \
    F(EOUDP_F_SIZE, "eoudp.size", "Size", U64, BYTES, NULL, 0, "Payload length") \
    F(EOUDP_F_GENERATION, "eoudp.generation", "Header generation", U8, NONE, generation_names, 0, "Which header layout this datagram uses") \
    F(EOUDP_F_HEADER_ORDER, "eoudp.header_order", "Header byte order", U8, NONE, order_names, 0, "Byte order of the header fields (the implementation swaps them to big-endian)") \
    F(EOUDP_F_BASIS, "eoudp.generation.basis", "Generation chosen from", U8, NONE, basis_names, 0, "What decided the header generation") \
    F(EOUDP_F_INFO_RECEIVED, "eoudp.info.received", "Packets received", I32, DEC, NULL, 0, "Packets the sender received since its last packet info") \
    F(EOUDP_F_INFO_SENT, "eoudp.info.sent", "Packets sent", I32, DEC, NULL, 0, "Packets the sender sent since its last packet info") \
    F(EOUDP_F_SEEN_RECEIVED, "eoudp.info.seen_received", "Packets to the sender in the capture", U32, DEC, NULL, 0, "Datagrams the capture saw going to the sender over the same span (since the last packet info either way)") \
    F(EOUDP_F_SEEN_SENT, "eoudp.info.seen_sent", "Packets from the sender in the capture", U32, DEC, NULL, 0, "Datagrams the capture saw coming from the sender over the same span") \
    F(EOUDP_F_LOSS_TO, "eoudp.loss.to_sender", "Lost on the way to the sender", I64, DEC, NULL, 0, "Since the conversation began: datagrams the capture saw going to the sender minus those it says it received (negative: it counted more than the capture saw)") \
    F(EOUDP_F_LOSS_FROM, "eoudp.loss.from_sender", "Sent but not captured", I64, DEC, NULL, 0, "Since the conversation began: datagrams the sender says it sent minus those the capture saw from it (lost before the capture point, or not captured)") \
    F(EOUDP_F_ACK_ID, "eoudp.ack_id", "Acknowledged id", U64, DEC, NULL, 0, "Id of the important packet acknowledged") \
    LINK(EOUDP_F_ACK_REQUEST_FRAME, "eoudp.ack.request_frame", "Acknowledges frame", "The important packet this acknowledge answers", 0, EOUDP_F_ACKED_IN) \
    F(EOUDP_F_ACK_TIME, "eoudp.ack.time", "Acknowledge time", RELTIME, NONE, NULL, 0, "Time from the important packet to its acknowledge") \
    LINK(EOUDP_F_RESEND_OF, "eoudp.resend_of", "Resend of frame", "The first send of this important packet (same id)", 0, -1) \
    LINK(EOUDP_F_ACKED_IN, "eoudp.ack.acked_in", "Acknowledged in frame", "The acknowledge of this important packet (two-pass)", GW_FIELD_TWO_PASS, -1) \
    F(EOUDP_F_PLAYER, "eoudp.player", "Player id", U64, HEX, NULL, 0, "The player id an accept gives") \
    LINK(EOUDP_F_CONNECT_FRAME, "eoudp.connect_frame", "Connect in frame", "The connect this accept or reject answers", 0, -1) \
    F(EOUDP_F_ENTITY, "eoudp.entity", "Entity", U64, HEX, NULL, 0, "Entity id") \
    F(EOUDP_F_STRING_LENGTH, "eoudp.string.length", "String length", U32, BYTES, NULL, 0, "Length of the string that follows") \
    F(EOUDP_F_COMPONENT, "eoudp.component", "Component", STRING, NONE, NULL, 0, "Component name") \
    F(EOUDP_F_SYSTEM, "eoudp.system", "System", STRING, NONE, NULL, 0, "System to load") \
    F(EOUDP_F_GAME_EVENTS, "eoudp.game_events", "Game events", STRING, NONE, NULL, 0, "Game events") \
    F(EOUDP_F_CONTENT_LENGTH, "eoudp.content.length", "Content length", U32, BYTES, NULL, 0, "Length of the component content") \
    F(EOUDP_F_CONTENT, "eoudp.content", "Content", BYTES, NONE, NULL, 0, "Component content (the component's own layout)") \
    F(EOUDP_F_EVENT, "eoudp.event", "Event", U32, DEC, NULL, 0, "Event (key) code") \
    F(EOUDP_F_PRESSED, "eoudp.pressed", "Pressed", BOOL, NONE, NULL, 0, "Key press (true) or release") \
    F(EOUDP_F_CONNECT_TIMESTAMP, "eoudp.connect.timestamp", "Client timestamp", DOUBLE, EPOCH_MS, NULL, 0, "The text's connect payload: client time (f32)") \
    F(EOUDP_F_CONNECT_TIMESTAMP_UTC, "eoudp.connect.timestamp.utc", "Client timestamp (UTC)", ABSTIME, NONE, NULL, 0, "The client timestamp as a date: milliseconds above 1e11, else the text's seconds") \
    F(EOUDP_F_CONNECT_ID, "eoudp.connect.server_id", "Server id", U64, HEX, NULL, 0, "The text's connect payload: the server to connect to") \
    F(EOUDP_F_END_ID, "eoudp.end.id", "Id (usage)", U64, DEC, NULL, 0, "The [Id] the text's usage section gives a disconnect (0x82) and its answer (0x11)") \
    F(EOUDP_F_PAYLOAD, "eoudp.payload", "Payload", BYTES, NONE, NULL, 0, "Payload not decoded field by field") \
    F(EOUDP_F_TRAILING, "eoudp.trailing", "Trailing bytes", BYTES, NONE, NULL, 0, "Bytes after the command's fields")
enum { EOUDP_FIELDS(GW_INDEX, GW_INDEX) EOUDP_F_COUNT };

#define EOUDP_FINDINGS(E) \
    E(EOUDP_E_TRUNCATED, "eoudp.truncated", ERROR, MALFORMED, "The datagram ends before a field its command must contain") \
    E(EOUDP_E_SIZE_MISMATCH, "eoudp.size.mismatch", ERROR, MALFORMED, "No header generation's size field matches the datagram length") \
    E(EOUDP_E_STRING_PAST_END, "eoudp.string.past_end", ERROR, MALFORMED, "A string or content length runs past the end of the datagram") \
    E(EOUDP_E_STRING_NUL, "eoudp.string.nul_terminated", NOTE, COMMENT, "A NUL-terminated string (the text's form; the implementation sends none)") \
    E(EOUDP_E_TRAILING, "eoudp.trailing", WARNING, MALFORMED, "Bytes after the command's fields") \
    E(EOUDP_E_UNKNOWN_COMMAND, "eoudp.command.unknown", WARNING, UNDECODED, "A command code no generation defines") \
    E(EOUDP_E_WRONG_SIDE, "eoudp.command.wrong_side", WARNING, PROTOCOL, "A server command (below 0x80) from the client, or a client command from the server") \
    E(EOUDP_E_ID_DUPLICATE, "eoudp.id.duplicate", NOTE, SEQUENCE, "The same id as the previous packet in this direction (a resend, or the Dec 2023 build's doubled sends)") \
    E(EOUDP_E_ID_OLDER, "eoudp.id.reordered", NOTE, SEQUENCE, "An id lower than one already seen in this direction: reordered or resent") \
    E(EOUDP_E_RESENT, "eoudp.resent", NOTE, SEQUENCE, "An important packet sent again with its id (its acknowledge did not come)") \
    E(EOUDP_E_CONNECT_NOT_FIRST, "eoudp.connect.not_first", WARNING, PROTOCOL, "The conversation does not begin with a connect (0x81) from the client") \
    E(EOUDP_E_ID_GAP, "eoudp.id.gap", NOTE, SEQUENCE, "Ids skipped in this direction: packets lost or not captured") \
    E(EOUDP_E_ACK_UNMATCHED, "eoudp.ack.unmatched", NOTE, SEQUENCE, "An acknowledge for no important packet seen, or one already acknowledged") \
    E(EOUDP_E_ACK_MISSING, "eoudp.ack.missing", WARNING, SEQUENCE, "An important packet never acknowledged (reported when the conversation ends, or once 256 newer important packets wait)") \
    E(EOUDP_E_GEN_FORCED, "eoudp.generation.forced", NOTE, COMMENT, "The header generation was not told by the size field") \
    E(EOUDP_E_HEADER_NOT_TEXT, "eoudp.header.not_text", WARNING, COMMENT, "Not as the text says: an implementation header (22 or 26 bytes), not the text's 21 bytes") \
    E(EOUDP_E_STRING_NOT_NUL, "eoudp.string.not_nul_terminated", WARNING, COMMENT, "Not as the text says: a string without the NUL the text requires") \
    E(EOUDP_E_TIME_MS, "eoudp.timestamp.milliseconds", WARNING, COMMENT, "Not as the text says: a timestamp in milliseconds (over 1e11) where the text says seconds") \
    E(EOUDP_E_DIV_HEADER, "eoudp.divergence.header", NOTE, COMMENT, "Profiles either and reference: the implementation's 22- or 26-byte header, not the text's 21 bytes (once per conversation)") \
    E(EOUDP_E_DIV_STRINGS, "eoudp.divergence.strings", NOTE, COMMENT, "Profiles either and reference: strings without the NUL the text gives them, as the implementation sends them (once per conversation)") \
    E(EOUDP_E_DIV_TIME, "eoudp.divergence.timestamp", NOTE, COMMENT, "Profiles either and reference: timestamps in milliseconds, as the implementation sends them, where the text says seconds (once per conversation)") \
    E(EOUDP_E_OVER_MTU, "eoudp.datagram.over_mtu", WARNING, PROTOCOL, "A datagram over the 1500-byte MTU the text takes into account") \
    E(EOUDP_E_CONNECT_UNANSWERED, "eoudp.connect.unanswered", WARNING, PROTOCOL, "A connect answered by neither accept nor reject (reported when the conversation ends)") \
    E(EOUDP_E_DISCONNECT_UNANSWERED, "eoudp.disconnect.unanswered", WARNING, COMMENT, "Not as the text says: a disconnect the server does not answer with 0x11, as the text's usage section shows (reported when the conversation ends)") \
    E(EOUDP_E_DIV_CLIENT_ENTITIES, "eoudp.divergence.client_entities", NOTE, COMMENT, "Profiles either and reference: the client sends entity commands (0x0c, 0x0e, 0x0f), server commands by the text's numbering, as the implementation's client does when it spawns things (once per conversation)")
enum { EOUDP_FINDINGS(GW_INDEX) EOUDP_E_COUNT };

extern const gw_protocol gw_eoudp_protocol;
/* now, in milliseconds since the Unix epoch, as the bits of an f64 (width
   8) or an f32 (4): a timestamp to send */
uint64_t eoudp_now_bits(unsigned width);

/* "the (MTU) Maximum Transmission Unit of the network (1500 bytes)" */
#define EOUDP_MTU 1500

#endif
