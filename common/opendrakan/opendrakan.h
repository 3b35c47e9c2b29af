/* opendrakan.h - the OpenDrakan network protocol (TCP and UDP port 27046).
 *
 * Wire facts: docs/wire-facts.md section 5 (Zalasus/opendrakan,
 * which has packets but no transport: this project puts reliable packets on
 * TCP and unreliable ones on UDP, one port) and the OpenDrakan draft (docs/protocol-texts.md).
 */
#ifndef GW_OPENDRAKAN_H
#define GW_OPENDRAKAN_H

#include "core/gw_core.h"
#include "core/gw_tables.h"

#define OD_PORT 27046
#define OD_DB_ENTRIES 64   /* global database table entries remembered */
#define OD_DB_PATH 96      /* bytes of a database path remembered */
#define OD_SNAPSHOTS 64    /* snapshots tracked per conversation */
#define OD_ACKS 64         /* acknowledged ticks remembered */

/* which layouts: what the reference code writes, or the draft text */
enum od_variant { OD_VARIANT_REFERENCE = 0, OD_VARIANT_DRAFT = 1 };
/* booleans in a state bundle */
enum od_bools {
    OD_BOOLS_AUTO = 0,   /* option value: from the payload length */
    OD_BOOLS_BYTES = 1,  /* one byte each: the reference's master branch */
    OD_BOOLS_PACKED = 2, /* packed LSB-first: the draft and net-dev */
};

/* packet types (opendrakan.type) */
enum {
    T_DB_ENTRY, T_LOAD_LEVEL, T_STATES, T_EXTRA_STATES, T_CONFIRM, T_GLOBAL_MESSAGE,
    T_OBJECT_MESSAGE, T_EVENT, T_ACK, T_ACTION, T_ANALOG,
    /* the draft's packets the code does not have: the draft numbers no
       packet; these follow the code's in the order the draft lists them */
    T_OBJECT_CREATED, T_LIFECYCLE, T_ANIMATION, T_SOUND, T_COUNT
};

/* the options (gw_option): opendrakan.variant, opendrakan.bools,
   opendrakan.default_bools, opendrakan.profile (enum gw_profile) */
enum { OD_OPT_VARIANT, OD_OPT_BOOLS, OD_OPT_DEFAULT_BOOLS, OD_OPT_PROFILE };

/* fields and findings (gw_tables.h) */
#define OD_FIELDS(F, LINK) \
    F(OD_F_PACKET, "opendrakan.packet", "Packet", NONE, NONE, NULL, 0, "One packet (several may share a datagram)") \
    F(OD_F_TYPE, "opendrakan.type", "Type", U8, DEC, type_names, 0, "Packet type") \
    F(OD_F_LENGTH, "opendrakan.length", "Payload length", U16, BYTES, NULL, 0, "Payload length (the 3 header bytes not included)") \
    F(OD_F_TICK, "opendrakan.tick", "Tick", I64, DEC, NULL, 0, "Server tick (one-based; 0 = none)") \
    F(OD_F_OBJECT_ID, "opendrakan.object_id", "Object id", U32, DEC_HEX, NULL, 0, "Level object id") \
    F(OD_F_DB_INDEX, "opendrakan.db_index", "Global database index", U32, DEC, NULL, 0, "Index in the server's global database table") \
    F(OD_F_DB_PATH, "opendrakan.db_path", "Database path", STRING, NONE, NULL, 0, "Database path (relative to the engine root)") \
    F(OD_F_DB_COUNT, "opendrakan.db_count", "Loaded databases", U32, DEC, NULL, 0, "Number of databases the server loaded (the table's size)") \
    F(OD_F_LEVEL_PATH, "opendrakan.level_path", "Level path", STRING, NONE, NULL, 0, "Level to load") \
    F(OD_F_BUNDLE, "opendrakan.bundle", "State bundle", NONE, NONE, NULL, 0, "Object states present, with their jump flags") \
    F(OD_F_VALUE_MASK, "opendrakan.value_mask", "Value mask", U8, HEX, NULL, 0, "States of this group present (bit 0x80: another group follows)") \
    F(OD_F_VM_POSITION, "opendrakan.value_mask.position", "Position present", BOOL, NONE, NULL, 0x01, "Value mask bit 0") \
    F(OD_F_VM_ROTATION, "opendrakan.value_mask.rotation", "Rotation present", BOOL, NONE, NULL, 0x02, "Value mask bit 1") \
    F(OD_F_VM_SCALE, "opendrakan.value_mask.scale", "Scale present", BOOL, NONE, NULL, 0x04, "Value mask bit 2") \
    F(OD_F_VM_VISIBILITY, "opendrakan.value_mask.visibility", "Visibility present", BOOL, NONE, NULL, 0x08, "Value mask bit 3") \
    F(OD_F_VM_RUNNING, "opendrakan.value_mask.running", "Running present", BOOL, NONE, NULL, 0x10, "Value mask bit 4") \
    F(OD_F_VM_MORE, "opendrakan.value_mask.more", "Another group follows", BOOL, NONE, NULL, 0x80, "Value mask bit 7") \
    F(OD_F_JUMP_MASK, "opendrakan.jump_mask", "Jump mask", U8, HEX, NULL, 0, "States of this group that jump (not interpolated)") \
    F(OD_F_JM_POSITION, "opendrakan.jump_mask.position", "Position jumps", BOOL, NONE, NULL, 0x01, "Jump mask bit 0") \
    F(OD_F_JM_ROTATION, "opendrakan.jump_mask.rotation", "Rotation jumps", BOOL, NONE, NULL, 0x02, "Jump mask bit 1") \
    F(OD_F_JM_SCALE, "opendrakan.jump_mask.scale", "Scale jumps", BOOL, NONE, NULL, 0x04, "Jump mask bit 2") \
    F(OD_F_JM_VISIBILITY, "opendrakan.jump_mask.visibility", "Visibility jumps", BOOL, NONE, NULL, 0x08, "Jump mask bit 3") \
    F(OD_F_JM_RUNNING, "opendrakan.jump_mask.running", "Running jumps", BOOL, NONE, NULL, 0x10, "Jump mask bit 4") \
    F(OD_F_JM_UNUSED, "opendrakan.jump_mask.unused", "Unused high bit", BOOL, NONE, NULL, 0x80, "Jump mask bit 7 (\"currently unused\")") \
    F(OD_F_BOOLS, "opendrakan.bool_encoding", "Boolean encoding", U8, NONE, bools_names, 0, "How the bundle's booleans are written") \
    F(OD_F_STATE, "opendrakan.state", "State", NONE, NONE, NULL, 0, "One state of the bundle") \
    F(OD_F_JUMP, "opendrakan.jump", "Jump", BOOL, NONE, NULL, 0, "This state jumps (from the jump mask)") \
    F(OD_F_POS_X, "opendrakan.position.x", "Position x", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_POS_Y, "opendrakan.position.y", "Position y", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_POS_Z, "opendrakan.position.z", "Position z", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_ROT_X, "opendrakan.rotation.x", "Rotation x", DOUBLE, NONE, NULL, 0, "Quaternion, f32") \
    F(OD_F_ROT_Y, "opendrakan.rotation.y", "Rotation y", DOUBLE, NONE, NULL, 0, "Quaternion, f32") \
    F(OD_F_ROT_Z, "opendrakan.rotation.z", "Rotation z", DOUBLE, NONE, NULL, 0, "Quaternion, f32") \
    F(OD_F_ROT_W, "opendrakan.rotation.w", "Rotation w", DOUBLE, NONE, NULL, 0, "Quaternion, f32") \
    F(OD_F_SCALE_X, "opendrakan.scale.x", "Scale x", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_SCALE_Y, "opendrakan.scale.y", "Scale y", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_SCALE_Z, "opendrakan.scale.z", "Scale z", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_VISIBLE, "opendrakan.visible", "Visible", BOOL, NONE, NULL, 0, "Visibility state") \
    F(OD_F_RUNNING, "opendrakan.running", "Running", BOOL, NONE, NULL, 0, "Running state") \
    F(OD_F_EXTRA_STATES, "opendrakan.extra_states", "Extra states", BYTES, NONE, NULL, 0, "The object class's own state bundle (its states' types are the class's)") \
    F(OD_F_REALTIME, "opendrakan.realtime", "Real time", DOUBLE, SECONDS, NULL, 0, "Server time, seconds (f64)") \
    F(OD_F_CHANGE_COUNT, "opendrakan.change_count", "Discrete changes", U32, DEC, NULL, 0, "Change packets the snapshot consists of") \
    F(OD_F_REFERENCE_TICK, "opendrakan.reference_tick", "Reference tick", I64, DEC, NULL, 0, "Tick the snapshot is delta-encoded against (0: a full snapshot)") \
    F(OD_F_CHANGES_SEEN, "opendrakan.snapshot.changes_seen", "Changes seen", U32, DEC, NULL, 0, "Change packets of this tick captured so far") \
    F(OD_F_COMPLETE, "opendrakan.snapshot.complete", "Snapshot complete", BOOL, NONE, NULL, 0, "All the snapshot's changes and its confirm have arrived") \
    LINK(OD_F_CONFIRM_FRAME, "opendrakan.snapshot.confirm_frame", "Confirm in frame", "The confirm packet of this tick's snapshot", 0, -1) \
    F(OD_F_CHANNEL, "opendrakan.channel", "Channel", U32, HEX, NULL, 0, "Message channel code") \
    F(OD_F_SENDER, "opendrakan.sender", "Sender object", U32, DEC_HEX, NULL, 0, "Sending object id") \
    F(OD_F_RECEIVER, "opendrakan.receiver", "Receiver object", U32, DEC_HEX, NULL, 0, "Receiving object id") \
    F(OD_F_BODY, "opendrakan.body", "Message body", BYTES, NONE, NULL, 0, "Message body") \
    F(OD_F_VARIANT, "opendrakan.event.variant", "Event variant", U8, DEC, variant_names, 0, "Which event") \
    F(OD_F_ACTION, "opendrakan.action", "Action code", I32, DEC, NULL, 0, "Input action code") \
    F(OD_F_KEY_DOWN, "opendrakan.key_down", "Key down", BOOL, NONE, NULL, 0, "Action event: key pressed") \
    F(OD_F_ACTION_STATE, "opendrakan.action_state", "Action state", U8, DEC, action_state_names, 0, "Action triggered: begin, end or repeat") \
    F(OD_F_ANALOG_X, "opendrakan.analog.x", "Axis x", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_ANALOG_Y, "opendrakan.analog.y", "Axis y", DOUBLE, NONE, NULL, 0, "f32") \
    F(OD_F_GREF, "opendrakan.gref", "Asset reference", NONE, NONE, NULL, 0, "Global asset reference: asset id and global database index") \
    F(OD_F_ASSET, "opendrakan.gref.asset", "Asset id", U16, DEC, NULL, 0, "Asset id in its database") \
    F(OD_F_GREF_DB, "opendrakan.gref.db_index", "Referenced database index", U32, DEC, NULL, 0, "Index in the global database table (u32 in the code, u16 in a draft packet's 4-byte reference)") \
    F(OD_F_GREF_PATH, "opendrakan.gref.db_path", "Referenced database path", STRING, NONE, NULL, 0, "The path the global database table gives this index") \
    F(OD_F_ANIM_CHANNEL, "opendrakan.anim.channel", "Animation channel", I32, DEC, NULL, 0, "Skeleton channel (-1: the whole skeleton)") \
    F(OD_F_ANIM_SPEED, "opendrakan.anim.speed", "Speed", DOUBLE, NONE, NULL, 0, "Speed modifier (f32)") \
    F(OD_F_ANIM_START, "opendrakan.anim.start_time", "Start time", DOUBLE, SECONDS, NULL, 0, "f32, seconds") \
    F(OD_F_ANIM_TRANSITION, "opendrakan.anim.transition_time", "Transition time", DOUBLE, SECONDS, NULL, 0, "f32, seconds") \
    F(OD_F_ANIM_FLAGS, "opendrakan.anim.flags", "Animation flags", U8, HEX, NULL, 0, "Bone modes of the three axes and the playback type") \
    F(OD_F_BONE_X, "opendrakan.anim.bone_mode_x", "Bone mode x", U8, DEC, bone_mode_names, 0x03, "Bits 0-1") \
    F(OD_F_BONE_Y, "opendrakan.anim.bone_mode_y", "Bone mode y", U8, DEC, bone_mode_names, 0x0c, "Bits 2-3") \
    F(OD_F_BONE_Z, "opendrakan.anim.bone_mode_z", "Bone mode z", U8, DEC, bone_mode_names, 0x30, "Bits 4-5") \
    F(OD_F_PLAYBACK, "opendrakan.anim.playback", "Playback type", U8, DEC, playback_names, 0xc0, "Bits 6-7") \
    F(OD_F_MESSAGE, "opendrakan.message", "Message", I32, DEC, NULL, 0, "Object message code") \
    F(OD_F_NEW_OBJECT, "opendrakan.new_object_id", "New object id", U32, DEC_HEX, NULL, 0, "Draft: the created object") \
    F(OD_F_PROTOTYPE, "opendrakan.prototype_id", "Prototype object id", U32, DEC_HEX, NULL, 0, "Draft: the object cloned") \
    F(OD_F_LIFECYCLE, "opendrakan.lifecycle_state", "Lifecycle state", U8, DEC, lifecycle_names, 0, "Draft: the object's new lifecycle state") \
    F(OD_F_DATA, "opendrakan.data", "Data", BYTES, NONE, NULL, 0, "Bytes not decoded field by field") \
    F(OD_F_TRAILING, "opendrakan.trailing", "Trailing bytes", BYTES, NONE, NULL, 0, "Payload bytes after the packet's fields")
enum { OD_FIELDS(GW_INDEX, GW_INDEX) OD_F_COUNT };

#define OD_FINDINGS(E) \
    E(OD_E_TRUNCATED, "opendrakan.truncated", ERROR, MALFORMED, "The packet (or datagram) ends before its header or payload does") \
    E(OD_E_PAYLOAD_SHORT, "opendrakan.payload.short", ERROR, MALFORMED, "The payload ends before a field its type must contain") \
    E(OD_E_TRAILING, "opendrakan.trailing", WARNING, MALFORMED, "Payload bytes after the packet's fields") \
    E(OD_E_UNKNOWN_TYPE, "opendrakan.type.unknown", WARNING, UNDECODED, "A packet type the variant does not define: the rest is not decoded (the draft numbers none of its packets)") \
    E(OD_E_UNEXPECTED_LINK, "opendrakan.link.unexpected", NOTE, PROTOCOL, "A packet the reference sends reliably (TCP) seen on UDP, or the reverse") \
    E(OD_E_TICK_ZERO, "opendrakan.tick.zero", WARNING, PROTOCOL, "Tick 0 (invalid) where a tick is required") \
    E(OD_E_TICK_TOP_BIT, "opendrakan.tick.top_bit", WARNING, MALFORMED, "A tick with its top bit set: negative as the code's i64, beyond 2^63 as the draft's u64") \
    E(OD_E_BUNDLE_PAST_END, "opendrakan.bundle.past_end", ERROR, MALFORMED, "The state bundle's mask chain or a state runs past the payload") \
    E(OD_E_BUNDLE_NO_STATE, "opendrakan.bundle.no_such_state", ERROR, MALFORMED, "A value mask bit for a state objects do not have") \
    E(OD_E_BUNDLE_JUMP_ONLY, "opendrakan.bundle.jump_without_value", NOTE, PROTOCOL, "A jump bit for a state the bundle does not contain") \
    E(OD_E_BUNDLE_BOOLS, "opendrakan.bundle.bools_assumed", NOTE, COMMENT, "Neither boolean encoding fits the payload length: the option's is used") \
    E(OD_E_EVENT_VARIANT, "opendrakan.event.unknown_variant", ERROR, UNDECODED, "An event variant the reference does not have") \
    E(OD_E_ANIM_FLAGS, "opendrakan.anim.bad_flags", WARNING, MALFORMED, "An animation flags byte with a bone mode or playback type of 3 (undefined)") \
    E(OD_E_GREF_UNKNOWN, "opendrakan.gref.unknown_db", NOTE, UNDECODED, "An asset reference to a global database index the captured table does not have") \
    E(OD_E_GREF_SHORT, "opendrakan.gref.short", NOTE, PROTOCOL, "Draft: a 4-byte asset reference (the draft defines no gref; its database index is 16-bit): read as u16 asset id, u16 database index") \
    E(OD_E_DB_INCOMPLETE, "opendrakan.db_table.incomplete", WARNING, PROTOCOL, "LOAD_LEVEL's database count differs from the table entries seen") \
    E(OD_E_WRONG_DIRECTION, "opendrakan.direction.wrong", WARNING, PROTOCOL, "A downlink packet (database table, level, states, snapshot confirm) from the client, or an uplink one (snapshot acknowledge, actions) from the server") \
    E(OD_E_LIFECYCLE_UNKNOWN, "opendrakan.lifecycle.unknown", WARNING, MALFORMED, "Draft: a lifecycle state above 3 (0 loaded, 1 spawned, 2 running, 3 destroyed)") \
    E(OD_E_JUMP_HIGH_BIT, "opendrakan.bundle.jump_high_bit", WARNING, PROTOCOL, "A jump mask with its highest bit set, which the draft says is unused") \
    E(OD_E_SNAP_INCOMPLETE, "opendrakan.snapshot.incomplete", NOTE, SEQUENCE, "A confirmed snapshot whose change packets did not all arrive, as the text expects of packet loss (reported when the conversation ends)") \
    E(OD_E_SNAP_UNCONFIRMED, "opendrakan.snapshot.unconfirmed", NOTE, SEQUENCE, "Change packets of a tick whose confirm never arrived, as the text expects of packet loss (reported when the conversation ends)") \
    E(OD_E_SNAP_EXCESS, "opendrakan.snapshot.excess", WARNING, SEQUENCE, "More change packets for a tick than its confirm counts") \
    E(OD_E_SNAP_RECONFIRMED, "opendrakan.snapshot.reconfirmed", NOTE, SEQUENCE, "A second confirm packet for the same tick") \
    E(OD_E_REF_UNACKED, "opendrakan.snapshot.reference_unacked", WARNING, SEQUENCE, "A delta snapshot against a tick the client never acknowledged") \
    E(OD_E_ACK_UNCONFIRMED, "opendrakan.ack.unconfirmed", WARNING, SEQUENCE, "An acknowledgement of a tick never confirmed") \
    E(OD_E_ACK_INCOMPLETE, "opendrakan.ack.incomplete", WARNING, SEQUENCE, "An acknowledgement of a snapshot not all of whose changes were seen") \
    E(OD_E_BOOLS_UNPACKED, "opendrakan.bundle.bools_unpacked", WARNING, COMMENT, "Not as the text says: booleans one byte each where the draft packs them into one") \
    E(OD_E_DIVERGENCE_BOOLS, "opendrakan.divergence.bools_bytes", NOTE, COMMENT, "Profiles either and reference: this conversation's booleans are one byte each, as the reference writes them; the draft packs them (once per conversation)") \
    E(OD_E_SNAP_FORGOTTEN, "opendrakan.snapshot.forgotten", NOTE, SEQUENCE, "More ticks open at once than are tracked: the oldest is given up unresolved")
enum { OD_FINDINGS(GW_INDEX) OD_E_COUNT };

extern const gw_protocol gw_opendrakan_protocol;

#endif
