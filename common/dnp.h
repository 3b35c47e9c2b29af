/* dnp.h - Drag[en]gine Network Protocol (DNP): fields, findings, state.
 *
 * Wire facts: ../shared/specs/WIRE-NOTES.md section 1 (the reference
 * implementation LordOfDragons/denetwork) and dnp.md (the published text).
 */
#ifndef GW_DNP_H
#define GW_DNP_H

#include "gw_core.h"

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

/* field indexes into gw_dnp_protocol.fields */
enum dnp_field {
    DNP_F_COMMAND,
    DNP_F_PROTOCOL_COUNT,
    DNP_F_PROTOCOL,
    DNP_F_RESULT,
    DNP_F_SEQ,
    DNP_F_ACK_CODE,
    DNP_F_LINK_ID,
    DNP_F_FLAGS,
    DNP_F_FLAG_READ_ONLY,
    DNP_F_FLAG_FIRST,
    DNP_F_FLAG_LAST,
    DNP_F_LONG_FLAGS,
    DNP_F_LONG_FIRST,
    DNP_F_LONG_LAST,
    DNP_F_MESSAGE_LENGTH,
    DNP_F_MESSAGE,
    DNP_F_LINK_COUNT,
    DNP_F_LINK,
    DNP_F_VALUE_COUNT,
    DNP_F_VALUE,
    DNP_F_VALUE_INDEX,
    DNP_F_VALUE_TYPE,
    DNP_F_VALUE_LENGTH,
    DNP_F_VALUE_SINT,
    DNP_F_VALUE_UINT,
    DNP_F_VALUE_FLOAT,
    DNP_F_VALUE_STRING,
    DNP_F_VALUE_DATA,
    DNP_F_UPDATE_LAYOUT,
    DNP_F_TYPES_FROM,
    DNP_F_CHUNK,
    DNP_F_VALUES_PART,
    DNP_F_REASSEMBLED_LENGTH,
    DNP_F_REASSEMBLED_PARTS,
    DNP_F_REASSEMBLED_FIRST,
    DNP_F_ACK_REQUEST_FRAME,
    DNP_F_ACK_TIME,
    DNP_F_ACKED_IN,
    DNP_F_RESEND_OF,
    DNP_F_TRAILING,
    DNP_F_UNDECODED,
    DNP_F_COUNT
};

/* finding indexes into gw_dnp_protocol.findings */
enum dnp_finding {
    DNP_E_TRUNCATED,
    DNP_E_TRAILING,
    DNP_E_UNKNOWN_COMMAND,
    DNP_E_NO_PROTOCOLS,
    DNP_E_UNKNOWN_RESULT,
    DNP_E_PROTOCOL_IN_REJECTION,
    DNP_E_UNKNOWN_ACK_CODE,
    DNP_E_ACK_FAILED,
    DNP_E_UNKNOWN_FLAGS,
    DNP_E_UNKNOWN_TYPE,
    DNP_E_INVALID_UTF8,
    DNP_E_UNKNOWN_LINK,
    DNP_E_INDEX_RANGE,
    DNP_E_SPEC_LAYOUT,
    DNP_E_LAYOUT_AMBIGUOUS,
    DNP_E_TYPE_MISMATCH,
    DNP_E_SEQ_OUTSIDE_WINDOW,
    DNP_E_SEQ_AHEAD,
    DNP_E_SEQ_RESEND,
    DNP_E_SEQ_65535,
    DNP_E_ACK_UNMATCHED,
    DNP_E_LONG_MISSING_FIRST,
    DNP_E_LONG_RESTARTED,
    DNP_E_LONG_TOO_LONG,
    DNP_E_LINKS_NOT_KEPT,
    /* behaviour over the conversation (rules) */
    DNP_E_NOT_ACCEPTED,
    DNP_E_NOT_OFFERED,
    DNP_E_SEQ_FIRST,
    DNP_E_SEQ_SKIPPED,
    DNP_E_ACK_LATE,
    DNP_E_ACK_MISSING,
    DNP_E_RESEND_EARLY,
    DNP_E_RESEND_MISSING,
    DNP_E_ANSWER_BEFORE_ACK,
    DNP_E_ANSWER_UNEXPECTED,
    DNP_E_LINK_UNANSWERED,
    DNP_E_UPDATE_NOT_UP,
    DNP_E_UPDATE_READ_ONLY,
    DNP_E_AFTER_CLOSE,
    DNP_E_ACCEPTED_AGAIN,
    DNP_E_LINK_REUSED,
    DNP_E_CONNECT_RESEND_EARLY,
    DNP_E_CONNECT_RESEND_LATE,
    DNP_E_RESEND_AFTER_ACK,
    /* not rules: a resend after the timeout always comes with ack.late or
       ack.missing; and notes */
    DNP_E_RESEND_AFTER_TIMEOUT,
    DNP_E_CONNECT_REPEATED,
    DNP_E_OVER_1200,
    /* where the reference and the text differ (profiles) */
    DNP_E_REFERENCE_LAYOUT,
    DNP_E_NOT_IN_TEXT,
    DNP_E_DIV_LAYOUT,
    DNP_E_DIV_LONG,
    DNP_E_DIV_WRAP,
    DNP_E_COUNT
};

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
/* timing of reliable commands (dnp.md, Reliable Communication; WIRE-NOTES 1) */
#define DNP_RELIABLE_TIMEOUT_NS 3000000000ll /* acknowledged within 3 s */
#define DNP_RESEND_EARLY_NS 400000000ll      /* resend every 0.5 s: sooner than 0.4 s is early */
#define DNP_RESEND_MISSING_NS 1000000000ll   /* unacknowledged 1 s (two intervals) without a resend */
#define DNP_CLOSE_CROSSING_NS 500000000ll    /* the peer's commands this soon after a close crossed it */
/* connection requests (dnp.md, Connection Request): resent every 1 s
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
/* pcaptool replay's hooks (replay_dnp.c) */
extern const struct gw_replay gw_dnp_replay;

#endif
