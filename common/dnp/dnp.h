/* dnp.h - Drag[en]gine Network Protocol (DNP): fields, findings, state.
 *
 * Wire facts: docs/wire-facts.md section 1 (the reference
 * implementation LordOfDragons/denetwork) and the DNP text (the published text: docs/protocol-texts.md).
 */
#ifndef GW_DNP_H
#define GW_DNP_H

#include "core/gw_core.h"
#include "core/gw_tables.h"

enum dnp_command {
    DNP_CONNECT_REQUEST = 0,
    DNP_CONNECT_ACK = 1,
    DNP_CLOSE = 2,
    DNP_MESSAGE = 3,
    DNP_RELIABLE_MESSAGE = 4,
    DNP_LINK_STATE = 5,
    DNP_RELIABLE_ACK = 6,
    DNP_LINK_UP = 7,
    DNP_LINK_DOWN = 8,
    DNP_LINK_UPDATE = 9,
    DNP_RELIABLE_MESSAGE_LONG = 10,
    DNP_LINK_STATE_LONG = 11,
};

/* field indexes into gw_dnp_protocol.fields (gw_tables.h) */
#define DNP_FIELDS(F, LINK) \
    F(DNP_F_COMMAND, "dnp.command", "Command", U8, DEC, command_names, 0, "Command code") \
    F(DNP_F_PROTOCOL_COUNT, "dnp.protocol_count", "Protocol count", U16, DEC, NULL, 0, "Number of protocols the client offers") \
    F(DNP_F_PROTOCOL, "dnp.protocol", "Protocol", U16, DEC, protocol_names, 0, "A protocol offered (request) or selected (ack)") \
    F(DNP_F_RESULT, "dnp.result", "Result", U8, DEC, result_names, 0, "The server's decision on a connection request") \
    F(DNP_F_SEQ, "dnp.seq", "Reliable number", U16, DEC, NULL, 0, "Sequence number of a reliable command (4, 5, 10, 11) or of the one acknowledged (6)") \
    F(DNP_F_ACK_CODE, "dnp.ack_code", "Ack result", U8, DEC, ack_code_names, 0, "Result of a reliable ack") \
    F(DNP_F_LINK_ID, "dnp.link_id", "Link id", U16, DEC, NULL, 0, "Identifier of a state link") \
    F(DNP_F_FLAGS, "dnp.flags", "Link flags", U8, HEX, NULL, 0, "Link state flags") \
    F(DNP_F_FLAG_READ_ONLY, "dnp.flags.read_only", "Read-only", BOOL, NONE, NULL, 0x1, "The receiver may not update the state") \
    F(DNP_F_FLAG_FIRST, "dnp.flags.first_part", "First part of a link state", BOOL, NONE, NULL, 0x2, "First part of a long link state") \
    F(DNP_F_FLAG_LAST, "dnp.flags.last_part", "Last part of a link state", BOOL, NONE, NULL, 0x4, "Last part of a long link state") \
    F(DNP_F_LONG_FLAGS, "dnp.long_flags", "Part flags", U8, HEX, NULL, 0, "Flags of a long reliable message part") \
    F(DNP_F_LONG_FIRST, "dnp.long_flags.first", "First part of a message", BOOL, NONE, NULL, 0x1, "First part of a long message") \
    F(DNP_F_LONG_LAST, "dnp.long_flags.last", "Last part of a message", BOOL, NONE, NULL, 0x2, "Last part of a long message") \
    F(DNP_F_MESSAGE_LENGTH, "dnp.message_length", "Message length", U16, BYTES, NULL, 0, "Length of the link state's message") \
    F(DNP_F_MESSAGE, "dnp.message", "Message", BYTES, NONE, NULL, 0, "Application message (commands 3, 4, 5; reassembled on the last part of 10 and 11)") \
    F(DNP_F_LINK_COUNT, "dnp.link_count", "Link count", U16, DEC, NULL, 0, "Number of links in a link update") \
    F(DNP_F_LINK, "dnp.link", "Link", NONE, NONE, NULL, 0, "One link of a link update") \
    F(DNP_F_VALUE_COUNT, "dnp.value_count", "Value count", U16, DEC, NULL, 0, "Number of values") \
    F(DNP_F_VALUE, "dnp.value", "Value", NONE, NONE, NULL, 0, "One state value") \
    F(DNP_F_VALUE_INDEX, "dnp.value.index", "Value index", U16, DEC, NULL, 0, "Index of the value in the linked state") \
    F(DNP_F_VALUE_TYPE, "dnp.value.type", "Value type", U8, DEC, type_names, 0, "State value type (derived from the link state in reference link updates)") \
    F(DNP_F_VALUE_LENGTH, "dnp.value.length", "Value length", U16, BYTES, NULL, 0, "Length of a string or data value") \
    F(DNP_F_VALUE_SINT, "dnp.value.sint", "Signed integer", I64, DEC, NULL, 0, "A signed integer value or component") \
    F(DNP_F_VALUE_UINT, "dnp.value.uint", "Unsigned integer", U64, DEC, NULL, 0, "An unsigned integer value or component") \
    F(DNP_F_VALUE_FLOAT, "dnp.value.float", "Float", DOUBLE, NONE, NULL, 0, "A floating point value or component (float16, float32, float64)") \
    F(DNP_F_VALUE_STRING, "dnp.value.string", "String", STRING, NONE, NULL, 0, "A UTF-8 string value") \
    F(DNP_F_VALUE_DATA, "dnp.value.data", "Data", BYTES, NONE, NULL, 0, "A data value") \
    F(DNP_F_UPDATE_LAYOUT, "dnp.update_layout", "Link update layout", U8, NONE, layout_names, 0, "Which link-update layout decoded this command") \
    F(DNP_F_TYPES_FROM, "dnp.types_from", "Value types from frame", FRAMENUM, NONE, NULL, 0, "The link state that gave the value types") \
    F(DNP_F_CHUNK, "dnp.chunk", "Part data", BYTES, NONE, NULL, 0, "The piece of a long message or long link-state message in this part") \
    F(DNP_F_VALUES_PART, "dnp.values_part", "Values part", BYTES, NONE, NULL, 0, "The piece of a long link state's values in this part") \
    F(DNP_F_REASSEMBLED_LENGTH, "dnp.reassembled.length", "Reassembled length", U32, BYTES, NULL, 0, "Length of the reassembled long message") \
    F(DNP_F_REASSEMBLED_PARTS, "dnp.reassembled.parts", "Reassembled parts", U32, DEC, NULL, 0, "Number of parts of the long message") \
    F(DNP_F_REASSEMBLED_FIRST, "dnp.reassembled.first_frame", "First part in frame", FRAMENUM, NONE, NULL, 0, "Frame of the long message's first part") \
    LINK(DNP_F_ACK_REQUEST_FRAME, "dnp.ack.request_frame", "Acknowledges frame", "Frame of the reliable command this ack answers", 0, DNP_F_ACKED_IN) \
    F(DNP_F_ACK_TIME, "dnp.ack.time", "Ack time", RELTIME, NONE, NULL, 0, "Time from the command's first transmission to this ack") \
    LINK(DNP_F_ACKED_IN, "dnp.ack.acked_in", "Acknowledged in frame", "Frame of the ack of this reliable command", GW_FIELD_TWO_PASS, -1) \
    F(DNP_F_RESEND_OF, "dnp.resend_of", "Resend of frame", FRAMENUM, NONE, NULL, 0, "First transmission of this reliable number") \
    F(DNP_F_TRAILING, "dnp.trailing", "Trailing bytes", BYTES, NONE, NULL, 0, "Bytes after the end of the command") \
    F(DNP_F_UNDECODED, "dnp.undecoded", "Undecoded", BYTES, NONE, NULL, 0, "Bytes that could not be decoded")
enum { DNP_FIELDS(GW_INDEX, GW_INDEX) DNP_F_COUNT };

/* finding indexes into gw_dnp_protocol.findings */
#define DNP_FINDINGS(E) \
    E(DNP_E_TRUNCATED, "dnp.truncated", ERROR, MALFORMED, "The datagram ends before a field the command must contain") \
    E(DNP_E_TRAILING, "dnp.trailing_bytes", WARNING, MALFORMED, "Bytes follow the end of the command") \
    E(DNP_E_UNKNOWN_COMMAND, "dnp.command.unknown", WARNING, UNDECODED, "Unknown command code (peers must ignore it)") \
    E(DNP_E_NO_PROTOCOLS, "dnp.connect.no_protocols", WARNING, PROTOCOL, "A connection request that offers no protocol") \
    E(DNP_E_UNKNOWN_RESULT, "dnp.connect_ack.unknown_result", NOTE, RESPONSE_CODE, "Unknown connection result code (treated as rejected)") \
    E(DNP_E_PROTOCOL_IN_REJECTION, "dnp.connect_ack.protocol_in_rejection", WARNING, MALFORMED, "A rejecting connection ack carries a protocol (only accepted ones do)") \
    E(DNP_E_UNKNOWN_ACK_CODE, "dnp.ack.unknown_code", WARNING, RESPONSE_CODE, "Unknown reliable ack result code") \
    E(DNP_E_ACK_FAILED, "dnp.ack.failed", NOTE, RESPONSE_CODE, "The receiver asks for a resend") \
    E(DNP_E_UNKNOWN_FLAGS, "dnp.flags.unknown", WARNING, MALFORMED, "Flag bits the protocol does not define") \
    E(DNP_E_UNKNOWN_TYPE, "dnp.value.unknown_type", ERROR, MALFORMED, "Unknown state value type: the rest cannot be decoded") \
    E(DNP_E_INVALID_UTF8, "dnp.value.invalid_utf8", WARNING, MALFORMED, "A string value is not valid UTF-8") \
    E(DNP_E_UNKNOWN_LINK, "dnp.link_update.unknown_link", WARNING, UNDECODED, "A link update for a link whose link state was not seen: values shown as raw bytes") \
    E(DNP_E_INDEX_RANGE, "dnp.link_update.index_out_of_range", ERROR, MALFORMED, "A value index beyond the link state's value count") \
    E(DNP_E_SPEC_LAYOUT, "dnp.link_update.spec_layout", WARNING, COMMENT, "Not as the reference implementation does it: a link update in the published text's layout, which the reference does not send") \
    E(DNP_E_LAYOUT_AMBIGUOUS, "dnp.link_update.layout_ambiguous", NOTE, COMMENT, "Both link-update layouts fit these bytes; the reference layout was used") \
    E(DNP_E_TYPE_MISMATCH, "dnp.link_update.type_mismatch", WARNING, PROTOCOL, "A value's type differs from the type in the link state") \
    E(DNP_E_SEQ_OUTSIDE_WINDOW, "dnp.seq.outside_window", WARNING, SEQUENCE, "A reliable number outside the receive window of 10: the receiver discards it") \
    E(DNP_E_SEQ_AHEAD, "dnp.seq.ahead", NOTE, SEQUENCE, "A reliable number ahead of the next expected one (an earlier one is missing or late)") \
    E(DNP_E_SEQ_RESEND, "dnp.seq.resend", NOTE, SEQUENCE, "A reliable command sent again with the same number") \
    E(DNP_E_SEQ_65535, "dnp.seq.reserved_65535", WARNING, SEQUENCE, "Not as the reference implementation does it: reliable number 65535: the reference wraps from 65534 to 0, the text at 65536") \
    E(DNP_E_ACK_UNMATCHED, "dnp.ack.unmatched", WARNING, SEQUENCE, "An ack for a reliable number not seen in this conversation") \
    E(DNP_E_LONG_MISSING_FIRST, "dnp.long.missing_first", WARNING, SEQUENCE, "A part of a long message whose first part was not seen") \
    E(DNP_E_LONG_RESTARTED, "dnp.long.restarted", WARNING, SEQUENCE, "A first part while another long message was incomplete: the earlier one is dropped") \
    E(DNP_E_LONG_TOO_LONG, "dnp.long.too_long", ERROR, SEQUENCE, "A long message over the reassembly limit (1 MiB, or 64 MiB for all under way at once): it is not reassembled") \
    E(DNP_E_LINKS_NOT_KEPT, "dnp.link.not_kept", NOTE, UNDECODED, "Over 1 MiB of link states in one conversation: a new link's value types are not kept, so its updates are shown as raw bytes (once per conversation)") \
    /* behaviour over the conversation (rules) */ \
    E(DNP_E_NOT_ACCEPTED, "dnp.connect.not_accepted", WARNING, PROTOCOL, "A command other than the connection handshake before the connection was accepted (or the capture began after the connect); once per connection") \
    E(DNP_E_NOT_OFFERED, "dnp.connect_ack.not_offered", WARNING, PROTOCOL, "The accepting connection ack selects a protocol the client did not offer") \
    E(DNP_E_SEQ_FIRST, "dnp.seq.first_not_zero", WARNING, SEQUENCE, "The first reliable number after an accepted connection is not 0") \
    E(DNP_E_SEQ_SKIPPED, "dnp.seq.skipped", WARNING, SEQUENCE, "A reliable number never sent while later ones were (reported when the conversation ends)") \
    E(DNP_E_ACK_LATE, "dnp.ack.late", WARNING, SEQUENCE, "A reliable command acknowledged more than 3 s (the reliable timeout) after it was first sent") \
    E(DNP_E_ACK_MISSING, "dnp.ack.missing", WARNING, SEQUENCE, "A reliable command never acknowledged although the conversation went on for 3 s or more") \
    E(DNP_E_RESEND_EARLY, "dnp.resend.early", WARNING, SEQUENCE, "A reliable command resent less than 0.4 s after its previous transmission (the interval is 0.5 s)") \
    E(DNP_E_RESEND_MISSING, "dnp.resend.missing", WARNING, SEQUENCE, "A reliable command left unacknowledged for over 1 s without a resend (the interval is 0.5 s)") \
    E(DNP_E_ANSWER_BEFORE_ACK, "dnp.link.answer_before_ack", NOTE, SEQUENCE, "Link up or link down answers a link state before its reliable ack") \
    E(DNP_E_ANSWER_UNEXPECTED, "dnp.link.answer_unexpected", WARNING, PROTOCOL, "Link up or link down for no link state of the other side (or link up from the link's own sender)") \
    E(DNP_E_LINK_UNANSWERED, "dnp.link.unanswered", WARNING, PROTOCOL, "A link state acknowledged but answered by neither link up nor link down within 3 s (reported when the conversation ends)") \
    E(DNP_E_UPDATE_NOT_UP, "dnp.link_update.not_up", WARNING, PROTOCOL, "A link update for a link that is not up (no link up seen, or taken down)") \
    E(DNP_E_UPDATE_READ_ONLY, "dnp.link_update.read_only", WARNING, PROTOCOL, "A link update from the receiver of a read-only link") \
    E(DNP_E_AFTER_CLOSE, "dnp.close.not_last", WARNING, PROTOCOL, "A command after connection close (other than a new connection request); once per close") \
    E(DNP_E_ACCEPTED_AGAIN, "dnp.connect_ack.accepted_again", WARNING, PROTOCOL, "The server accepts a connection request on a conversation already connected, which it has to ignore") \
    E(DNP_E_LINK_REUSED, "dnp.link.reused_while_up", WARNING, PROTOCOL, "A link state for a link id its sender assigned before and has not taken down (no link down seen)") \
    E(DNP_E_CONNECT_RESEND_EARLY, "dnp.connect.resend_early", WARNING, SEQUENCE, "A connection request resent less than 0.8 s after the previous one (the interval is 1 s)") \
    E(DNP_E_CONNECT_RESEND_LATE, "dnp.connect.resend_after_timeout", WARNING, SEQUENCE, "A connection request resent more than 5 s (the connect timeout) after the first") \
    E(DNP_E_RESEND_AFTER_ACK, "dnp.resend.after_ack", WARNING, SEQUENCE, "A reliable command resent over 0.5 s after its ack (not a resend that crossed it)") \
    /* not rules: a resend after the timeout always comes with ack.late or \
    ack.missing; and notes */ \
    E(DNP_E_RESEND_AFTER_TIMEOUT, "dnp.resend.after_timeout", WARNING, SEQUENCE, "A reliable command resent more than 3 s (the reliable timeout) after it was first sent") \
    E(DNP_E_CONNECT_REPEATED, "dnp.connect.repeated", NOTE, SEQUENCE, "A connection request on a connected conversation (a client resends while the ack is in flight): the server must ignore it; the conversation's state is kept") \
    E(DNP_E_OVER_1200, "dnp.datagram.over_1200", NOTE, PROTOCOL, "A datagram over 1200 bytes, the text's rule of thumb for what one IPv4 packet carries") \
    /* where the reference and the text differ (profiles) */ \
    E(DNP_E_REFERENCE_LAYOUT, "dnp.link_update.reference_layout", WARNING, COMMENT, "Not as the text says: a link update in the reference layout (u8 counts, value index, no type), not the text's") \
    E(DNP_E_NOT_IN_TEXT, "dnp.command.not_in_text", WARNING, COMMENT, "Not as the text says: a long command (10, 11), which the text does not define") \
    E(DNP_E_DIV_LAYOUT, "dnp.divergence.update_layout", NOTE, COMMENT, "Profiles either and reference: link updates in the reference layout, which differs from the text's; profile either: also in the text's layout, which the reference does not send (once per conversation and layout)") \
    E(DNP_E_DIV_LONG, "dnp.divergence.long_commands", NOTE, COMMENT, "Profiles either and reference: long commands (10, 11), which the text does not define (once per conversation)") \
    E(DNP_E_DIV_WRAP, "dnp.divergence.wrap", NOTE, COMMENT, "Profiles either and reference: reliable numbers wrap from 65534 to 0 where the text wraps at 65536; profile either: also number 65535, the text's wrap (once per conversation)")
enum { DNP_FINDINGS(GW_INDEX) DNP_E_COUNT };

/* the link-update layout option (preference dnp.update_layout) */
enum dnp_update_layout {
    DNP_LAYOUT_AUTO = 0,
    DNP_LAYOUT_REFERENCE = 1,
    DNP_LAYOUT_SPEC = 2,
};
/* the options (gw_option): dnp.update_layout, dnp.profile (enum gw_profile) */
enum { DNP_OPT_UPDATE_LAYOUT, DNP_OPT_PROFILE };

#define DNP_PORT 3413
#define DNP_WINDOW 10
#define DNP_SEQ_MODULO 65535u    /* the reference wraps here; the text (profile spec) says 65536 */
/* timing of reliable commands (DNP text, Reliable Communication; wire-facts 1.6) */
#define DNP_RELIABLE_TIMEOUT_NS 3000000000ll /* acknowledged within 3 s */
#define DNP_RESEND_EARLY_NS 400000000ll      /* resend every 0.5 s: sooner than 0.4 s is early */
#define DNP_RESEND_MISSING_NS 1000000000ll   /* unacknowledged 1 s (two intervals) without a resend */
#define DNP_CLOSE_CROSSING_NS 500000000ll    /* the peer's commands this soon after a close crossed it */
/* connection requests (DNP text, Connection Request): resent every 1 s
   without an ack (sooner than 0.8 s is early), not after 5 s since the
   first; a timer's lateness allowed beyond a limit */
#define DNP_CONNECT_RESEND_EARLY_NS 800000000ll
#define DNP_CONNECT_TIMEOUT_NS 5000000000ll
#define DNP_TIMER_SLACK_NS 250000000ll
#define DNP_MESSAGE_RULE_OF_THUMB 1200 /* bytes "can be expected to be transmitted in one package" */
#define DNP_REASSEMBLY_MAX (1u << 20) /* bytes of one long message we keep */
#define DNP_REASSEMBLY_TOTAL_MAX (64u << 20) /* ... and of all under way at once */
#define DNP_LINKS_MAX (1u << 20)      /* bytes of link states (value types) kept per conversation */

extern const gw_protocol gw_dnp_protocol;

#endif
