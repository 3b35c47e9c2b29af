/* opendrakan.c - the OpenDrakan decoder.
 *
 * A packet is type u8, payload length u16 little-endian, payload; several
 * may share a UDP datagram (TCP: the framing gives one at a time). Numbers
 * are little-endian, ticks i64 (0 = none). Object state bundles are chains
 * of value/jump mask pairs, 7 states a group. Snapshot completeness is
 * tracked per conversation: change packets per tick against the confirm
 * packet's count, in any order.
 */
#include "opendrakan/opendrakan.h"
#include "core/gw_layout.h"

#include <stdio.h>
#include <string.h>

/* ---- tables ------------------------------------------------------------ */

static const gw_value_name type_names[] = {
    {T_DB_ENTRY, "GLOBAL_DB_TABLE_ENTRY", 0}, {T_LOAD_LEVEL, "LOAD_LEVEL", 0},
    {T_STATES, "OBJECT_STATES_CHANGED", 0}, {T_EXTRA_STATES, "OBJECT_EXTRA_STATES_CHANGED", 0},
    {T_CONFIRM, "CONFIRM_SNAPSHOT", 0}, {T_GLOBAL_MESSAGE, "GLOBAL_MESSAGE", 0},
    {T_OBJECT_MESSAGE, "OBJECT_MESSAGE", 0}, {T_EVENT, "EVENT", 0},
    {T_ACK, "ACKNOWLEDGE_SNAPSHOT", 0}, {T_ACTION, "ACTION_TRIGGERED", 0},
    {T_ANALOG, "ANALOG_ACTION_TRIGGERED", 0}, {T_OBJECT_CREATED, "OBJECT_CREATED (draft)", 0},
    {T_LIFECYCLE, "OBJECT_LIFECYCLE_STATE_CHANGED (draft)", 0}, {T_ANIMATION, "OBJECT_ANIMATION (draft)", 0},
    {T_SOUND, "SOUND (draft)", 0},
    {0, NULL, 0}};

static const gw_value_name variant_names[] = {
    {0, "Action", 0}, {1, "Object animation", 0}, {2, "Object message", 0}, {0, NULL, 0}};
static const gw_value_name bone_mode_names[] = {
    {0, "Normal", 0}, {1, "Accumulate", 0}, {2, "Ignore", 0}, {0, NULL, 0}};
static const gw_value_name playback_names[] = {
    {0, "Normal", 0}, {1, "Looping", 0}, {2, "Ping-pong", 0}, {0, NULL, 0}};
static const gw_value_name action_state_names[] = {
    {0, "Begin", 0}, {1, "End", 0}, {2, "Repeat", 0}, {0, NULL, 0}};
static const gw_value_name lifecycle_names[] = {
    {0, "Loaded", 0}, {1, "Spawned", 0}, {2, "Running", 0}, {3, "Destroyed", 0}, {0, NULL, 0}};
static const gw_value_name bools_names[] = {
    {OD_BOOLS_BYTES, "One byte each (reference master)", 0},
    {OD_BOOLS_PACKED, "Packed LSB-first (draft, net-dev)", 0}, {0, NULL, 0}};

static const gw_field fields[OD_F_COUNT] = {OD_FIELDS(GW_FIELD, GW_LINK)};

static const gw_finding_def findings[OD_E_COUNT] = {OD_FINDINGS(GW_FINDING)};

/* the behaviour rules among the findings (pcaptool validate --rules) */
static const gw_rule rules[] = {
    {OD_E_WRONG_DIRECTION, "OpenDrakan draft, Snapshot packets: \"they are only valid in the downlink. A client does not "
                         "send state updates to the server\"; Acknowledge snapshot (uplink), Action (uplink), Analog "
                         "Action (uplink); Global database table entry and Load level (downlink)"},
    {OD_E_SNAP_INCOMPLETE, "OpenDrakan draft, Snapshot transmission: \"Packet loss will cause either the "
                         "confirmation or a number of changes to be missing, so the expected change count will "
                         "never match the one recorded. Thus, an incomplete snapshot will not be considered by "
                         "the client\" (expected, so a note)"},
    {OD_E_SNAP_UNCONFIRMED, "OpenDrakan draft, Snapshot transmission: \"Packet loss will cause either the "
                          "confirmation or a number of changes to be missing\" (expected, so a note)"},
    {OD_E_SNAP_EXCESS, "OpenDrakan draft, Snapshot transmission: the confirmation \"states how many discrete "
                     "changes the snapshot with the given tick should contain\""},
    {OD_E_REF_UNACKED, "OpenDrakan draft, Acknowledge snapshot: \"the server can only use ACK'd snapshots in "
                     "delta encoding\""},
    {OD_E_ACK_UNCONFIRMED, "OpenDrakan draft, Acknowledge snapshot: \"Used by the client to tell the server that "
                         "it has received a snapshot in full\""},
    {OD_E_ACK_INCOMPLETE, "OpenDrakan draft, Acknowledge snapshot: \"Used by the client to tell the server that "
                        "it has received a snapshot in full\""},
    {OD_E_TICK_ZERO, "OpenDrakan draft, Tick number: \"Tick numbers should be one-based, since some protocol "
                   "features need to be able to pass an invalid tick\""},
    {OD_E_DB_INCOMPLETE, "OpenDrakan draft, Load level: \"The total number of databases that are loaded is "
                       "included in this packet so the client can verify that it received a complete "
                       "database table\""},
    {OD_E_UNEXPECTED_LINK, "wire-facts 5.5: \"The reference builds packets 2, 3, 4 and 8 as unreliable (UDP), "
                         "all others as reliable (TCP)\""},
    {OD_E_BOOLS_UNPACKED, "OpenDrakan draft, State serialization: \"If 8 or less boolean states are serialized "
                        "after each other, they are combined into a single byte\" (profile spec)"},
    {OD_E_DIVERGENCE_BOOLS, "wire-facts 5.7: \"the master branch writes one byte per boolean\", against "
                          "the OpenDrakan draft's packed booleans (profiles either and reference, once per conversation)"},
};

static const gw_choice variant_choices[] = {
    {OD_VARIANT_REFERENCE, "reference", "What Zalasus/opendrakan writes"},
    {OD_VARIANT_DRAFT, "draft", "The draft: real time in messages and actions"},
    {0, NULL, NULL}};
static const gw_choice bools_choices[] = {
    {OD_BOOLS_AUTO, "auto", "From the payload length"},
    {OD_BOOLS_BYTES, "bytes", "One byte each (reference master)"},
    {OD_BOOLS_PACKED, "packed", "Packed LSB-first (draft, net-dev)"},
    {0, NULL, NULL}};
static const gw_choice bools_default_choices[] = {
    {OD_BOOLS_BYTES, "bytes", "One byte each (reference master)"},
    {OD_BOOLS_PACKED, "packed", "Packed LSB-first (draft, net-dev)"},
    {0, NULL, NULL}};

static const gw_option options[] = {
    [OD_OPT_VARIANT] = {"variant", "Layouts", "The reference code's packet layouts or the draft's",
     variant_choices, OD_VARIANT_REFERENCE},
    [OD_OPT_BOOLS] = {"bools", "Boolean states", "How a state bundle's booleans are read", bools_choices,
     OD_BOOLS_AUTO},
    [OD_OPT_DEFAULT_BOOLS] = {"default_bools", "Boolean states when the length does not tell",
     "Used when neither encoding fits the payload length", bools_default_choices, OD_BOOLS_BYTES},
    [OD_OPT_PROFILE] = {"profile", "Conformance profile",
     "Judge by what the reference code (master) or the draft text allows (default: either, noting "
     "which), or strictly by one of them", gw_profile_choices,
     GW_PROFILE_EITHER},
};

/* ---- conversation ------------------------------------------------------ */

/* a snapshot (its tick is in od_conv.snap_tick); what a change reads
   (snapshot_change) in its first 16 bytes, so on one cache line (the
   slots are 48 bytes from a 16-byte boundary) */
typedef struct {
    uint32_t changes, count;
    bool confirmed;
    uint8_t first_change_dir, confirm_dir;
    uint32_t confirm_frame;
    uint32_t first_change_frame;
    uint32_t first_change_off, confirm_off; /* of the tick in its frame */
    int64_t first_change_t, confirm_t;
} snapshot;
_Static_assert(sizeof(snapshot) == 48 && offsetof(snapshot, confirm_frame) == 12,
               "a snapshot's changes, count, confirmed and confirm_frame in its first 16 bytes");

typedef struct {
    uint32_t index;
    char path[OD_DB_PATH];
} db_entry;

typedef struct {
    unsigned n_db;
    unsigned snap_next;         /* snapshots added (the next slot, modulo OD_SNAPSHOTS) */
    bool snap_wrapped;          /* every slot used (snap_next went past OD_SNAPSHOTS) */
    int64_t max_tick;           /* the largest tick added, where have_tick */
    bool have_tick;
    unsigned n_acked;
    bool bools_divergence_noted;
    int8_t server_dir;          /* learnt from the first one-way packet; -1 not yet */
    const int *opt;             /* the options (OD_OPT_*) */
    /* not cleared (about 5 KiB): only the slots in use are read */
    int64_t snap_tick[OD_SNAPSHOTS]; /* the tick of snap[k], apart: find_snapshot reads
                                        8 bytes a slot, not a line */
    snapshot snap[OD_SNAPSHOTS]; /* the first snap_next in use, all once snap_wrapped */
    int64_t acked[OD_ACKS];      /* the first n_acked set (all from OD_ACKS on) */
    db_entry db[OD_DB_ENTRIES]; /* the first n_db set */
} od_conv;

/* the snapshot slots in use: snap[0 .. snaps_in_use) */
static inline unsigned snaps_in_use(const od_conv *c)
{
    return c->snap_wrapped ? OD_SNAPSHOTS : c->snap_next;
}

static void conv_init(void *p, const int *opt)
{
    memset(p, 0, offsetof(od_conv, snap_tick));
    ((od_conv *)p)->server_dir = -1;
    ((od_conv *)p)->opt = opt;
}

static void conv_free(void *p) { (void)p; }

static void report_open(const snapshot *s, int64_t tick, const gw_end_sink *sink)
{
    char msg[160];
    if (s->confirmed && s->changes < s->count) {
        bool want = gw_end_wants_message(sink, s->confirm_frame, OD_E_SNAP_INCOMPLETE);
        if (want)
            snprintf(msg, sizeof msg, "Tick %lld: %u of %u changes arrived", (long long)tick,
                     s->changes, s->count);
        sink->finding(sink->ctx, s->confirm_frame, s->confirm_t, s->confirm_dir,
                      OD_E_SNAP_INCOMPLETE, s->confirm_off, 8, want ? msg : NULL);
    } else if (!s->confirmed && s->changes) {
        bool want = gw_end_wants_message(sink, s->first_change_frame, OD_E_SNAP_UNCONFIRMED);
        if (want)
            snprintf(msg, sizeof msg, "Tick %lld: %u change%s, never confirmed", (long long)tick,
                     s->changes, s->changes == 1 ? "" : "s");
        sink->finding(sink->ctx, s->first_change_frame, s->first_change_t, s->first_change_dir,
                      OD_E_SNAP_UNCONFIRMED, s->first_change_off, 8, want ? msg : NULL);
    }
}

static void conv_end(void *p, const gw_end_sink *sink)
{
    od_conv *c = p;
    /* oldest first: from slot 0, or once every slot was used from the next to be reused */
    unsigned first = c->snap_wrapped ? c->snap_next : 0;
    for (unsigned k = 0, n = snaps_in_use(c); k < n; k++) {
        unsigned slot = (first + k) % OD_SNAPSHOTS;
        report_open(&c->snap[slot], c->snap_tick[slot], sink);
    }
}

/* ---- decoding helpers -------------------------------------------------- */

typedef struct {
    gw_pdu p;             /* p.c: over the current packet's payload (len = its end);
                             p.failed: decoding of that packet stopped */
    od_conv *conv;
    unsigned type;        /* the current packet's type */
    size_t tick_at;       /* the current packet's tick (its payload start) */
    /* the snapshot the current packet looks up (a change, confirmation or
       acknowledgment), found before its layout ran: ahead_snap (NULL:
       none) is find_snapshot's answer for ahead_tick, where ahead */
    bool ahead;
    int64_t ahead_tick;
    snapshot *ahead_snap;
    bool seen[OD_F_COUNT]; /* what the packet's layout read (gw_record) */
    uint64_t val[OD_F_COUNT];
    gw_span text[OD_F_COUNT];
} od_ctx;

static const char *db_path(const od_conv *c, uint32_t index)
{
    for (unsigned i = 0; i < c->n_db && i < OD_DB_ENTRIES; i++)
        if (c->db[i].index == index)
            return c->db[i].path;
    return NULL;
}

/* ---- state bundles ----------------------------------------------------- */

enum kind { K_VEC3, K_QUAT, K_BOOL };
static const struct {
    const char *name;
    enum kind kind;
    int field; /* the first of its fields */
} object_states[] = {
    {"Position", K_VEC3, OD_F_POS_X}, {"Rotation", K_QUAT, OD_F_ROT_X}, {"Scale", K_VEC3, OD_F_SCALE_X},
    {"Visibility", K_BOOL, OD_F_VISIBLE}, {"Running", K_BOOL, OD_F_RUNNING},
};
#define N_OBJECT_STATES 5

/* the bytes of state s's value (a boolean packed with others: see
   walk_bundle) */
static inline size_t state_bytes(int s)
{
    return object_states[s].kind == K_VEC3 ? 12 : object_states[s].kind == K_QUAT ? 16 : 1;
}

/* A bundle of group 0 alone that names only objects' states and sets no
   jump bit without its value bit (plain: walk_bundle reports nothing of it
   but where it runs past the end), measured without the walk: its bytes
   with the booleans one byte each and packed, whether there or not. */
typedef struct {
    bool plain;
    size_t bytes, packed;
} plain_size;
static plain_size plain_bundle(const uint8_t *d, size_t len)
{
    plain_size n = {false, 2, 2};
    if (len < 2 || (d[0] & ~((1u << N_OBJECT_STATES) - 1)) || (d[1] & ~d[0]))
        return n;
    n.plain = true;
    int packed = 0; /* booleans in the current packed byte (walk_bundle's packed_bits) */
    for (int s = 0; s < N_OBJECT_STATES; s++) {
        if (!(d[0] >> s & 1))
            continue;
        n.bytes += state_bytes(s);
        if (object_states[s].kind == K_BOOL) {
            n.packed += !packed;
            packed = (packed + 1) % 8;
        } else {
            n.packed += state_bytes(s);
            packed = 0;
        }
    }
    return n;
}
/* walk_bundle's answer for a plain bundle */
static inline long plain_used(const plain_size *n, size_t len, int bools)
{
    size_t used = bools == OD_BOOLS_PACKED ? n->packed : n->bytes;
    return used <= len ? (long)used : -1;
}

/* Walk a bundle at d[0..len) with an encoding of the booleans. With x,
   emit it; without, only measure. Returns the bytes used, or -1 when it
   does not fit (runs past the end, or names a state objects lack). */
static long walk_bundle(od_ctx *x, const uint8_t *d, size_t len, size_t base, int bools)
{
    /* items, subtrees or a summary to make (else only the findings) */
    const bool show = x && (gw_emit_tree(&x->p.e) || !x->p.sum.off);
    size_t off = 0;
    int packed_bits = -1; /* packed: bits of the current boolean byte left to read */
    size_t packed_at = 0;
    for (int group = 0;; group++) {
        if (len - off < 2) {
            if (x)
                gw_emit_finding(&x->p.e, OD_E_BUNDLE_PAST_END, base + off, len - off,
                                "The mask pair of state group %d is missing", group);
            return -1;
        }
        uint8_t vm = d[off], jm = d[off + 1];
        size_t masks = off;
        if (show) {
            /* the bits of group 0 are the objects' states (a later group's
               bits name states objects lack: a finding below) */
            gw_emit_u(&x->p.e, OD_F_VALUE_MASK, base + off, 1, vm);
            if (group == 0) {
                gw_emit_push(&x->p.e);
                for (int f = OD_F_VM_POSITION; f <= OD_F_VM_MORE; f++)
                    gw_emit_u(&x->p.e, f, base + off, 1, vm);
                gw_emit_pop(&x->p.e, base + off + 1);
            }
            gw_emit_u(&x->p.e, OD_F_JUMP_MASK, base + off + 1, 1, jm);
            if (group == 0) {
                gw_emit_push(&x->p.e);
                for (int f = OD_F_JM_POSITION; f <= OD_F_JM_UNUSED; f++)
                    gw_emit_u(&x->p.e, f, base + off + 1, 1, jm);
                gw_emit_pop(&x->p.e, base + off + 2);
            }
        }
        if (x && (jm & 0x80)) /* "The highest bit of the jump mask is currently unused" */
            gw_emit_finding(&x->p.e, OD_E_JUMP_HIGH_BIT, base + off + 1, 1, "Jump mask 0x%02x", jm);
        off += 2;
        packed_bits = -1;
        for (int i = 0; i < 7; i++) {
            int s = group * 7 + i;
            if (!(vm & (1u << i))) {
                if ((jm & (1u << i)) && x)
                    gw_emit_finding(&x->p.e, OD_E_BUNDLE_JUMP_ONLY, base + masks + 1, 1,
                                    "Jump bit %d set, value bit clear", i);
                continue;
            }
            if (s >= N_OBJECT_STATES) {
                if (x)
                    gw_emit_finding(&x->p.e, OD_E_BUNDLE_NO_STATE, base + masks, 1,
                                    "State %d (group %d bit %d): objects have %d states", s, group,
                                    i, N_OBJECT_STATES);
                return -1;
            }
            bool jump = (jm >> i) & 1;
            size_t n = state_bytes(s);
            bool is_bool = object_states[s].kind == K_BOOL;
            if (is_bool && bools == OD_BOOLS_PACKED) {
                if (packed_bits <= 0) { /* a new boolean byte */
                    packed_at = off;
                    packed_bits = 8;
                    n = 1;
                } else {
                    n = 0;
                }
            } else {
                packed_bits = -1;
            }
            if (len - off < n) {
                if (x)
                    gw_emit_finding(&x->p.e, OD_E_BUNDLE_PAST_END, base + off, len - off,
                                    "%s: %zu %s needed, %zu left", object_states[s].name, n, gw_bytes(n),
                                    len - off);
                return -1;
            }
            if (show) {
                /* the state's values (a boolean, or the 3 or 4 floats of a
                   vector or quaternion), shown in its label too:
                   "Position (jump): (100, 0, -0.125)" */
                size_t at = is_bool && bools == OD_BOOLS_PACKED ? packed_at : off;
                unsigned on = 0;
                double comp[4];
                if (is_bool)
                    on = bools == OD_BOOLS_PACKED ? (d[packed_at] >> (8 - packed_bits)) & 1 : d[off] != 0;
                for (size_t k = 0; k < n / 4; k++)
                    comp[k] = gw_float_bits(gw_get_uint(d + off + 4 * k, 4, false), 4);
                char label[160] = "";
                if (gw_emit_text(&x->p.e)) {
                    int w = snprintf(label, sizeof label, "%s%s: ", object_states[s].name, jump ? " (jump)" : "");
                    if (is_bool) {
                        snprintf(label + w, sizeof label - (size_t)w, "%s", on ? "True" : "False");
                    } else {
                        for (size_t k = 0; k < n / 4 && w > 0 && (size_t)w < sizeof label; k++)
                            w += snprintf(label + w, sizeof label - (size_t)w, "%s%.15g", k ? ", " : "(", comp[k]);
                        if (w > 0 && (size_t)w < sizeof label)
                            snprintf(label + w, sizeof label - (size_t)w, ")");
                    }
                }
                gw_emit_label(&x->p.e, OD_F_STATE, base + at, is_bool ? 1 : n, *label ? label : NULL);
                gw_emit_push(&x->p.e);
                gw_emit_u(&x->p.e, OD_F_JUMP, base + masks + 1, 1, jump);
                if (is_bool)
                    gw_emit_u(&x->p.e, object_states[s].field, base + at, 1, on);
                for (size_t k = 0; k < n / 4; k++)
                    gw_emit_d(&x->p.e, object_states[s].field + (int)k, base + off + 4 * k, 4, comp[k]);
                gw_emit_pop(&x->p.e, base + at + (is_bool ? 1 : n));
                gw_summary_add(&x->p.sum, "%s%s%s", x->p.sum.len && x->p.sum.text[x->p.sum.len - 1] == '[' ? "" : " ",
                               object_states[s].name, jump ? "*" : "");
            }
            if (is_bool && bools == OD_BOOLS_PACKED)
                packed_bits--;
            off += n;
        }
        if (!(vm & 0x80))
            return (long)off;
    }
}

/* the k-th value given for field f (gw_layout_write's order), or false */
static bool given(const gw_wval *vals, int f, unsigned k, uint64_t *u)
{
    for (; vals->field != GW_W_END; vals++)
        if (vals->field == f && !k--) {
            *u = vals->u;
            return true;
        }
    return false;
}

/* A bundle of group 0 written from the table walk_bundle reads
   (object_states): its value and jump masks (OD_F_VALUE_MASK,
   OD_F_JUMP_MASK), then each state its value mask names, in order: a
   vector's or quaternion's components as f32 bits (each its own field:
   OD_F_POS_X, OD_F_POS_Y ...), a boolean one byte or packed LSB-first as
   bools says. The bytes written; 0 when a value is missing,
   they do not fit, or the mask names a state objects lack or a further
   group. */
static size_t write_bundle(const gw_wval *vals, int bools, uint8_t *out, size_t cap)
{
    uint64_t vm, jm = 0;
    if (!given(vals, OD_F_VALUE_MASK, 0, &vm) || vm >> N_OBJECT_STATES || cap < 2)
        return 0;
    given(vals, OD_F_JUMP_MASK, 0, &jm);
    out[0] = (uint8_t)vm;
    out[1] = (uint8_t)jm;
    size_t off = 2;
    int packed_bits = -1;
    size_t packed_at = 0;
    for (int s = 0; s < N_OBJECT_STATES; s++) {
        if (!(vm >> s & 1))
            continue;
        int f = object_states[s].field;
        uint64_t u;
        if (object_states[s].kind == K_BOOL) {
            if (!given(vals, f, 0, &u))
                return 0;
            if (bools == OD_BOOLS_PACKED && packed_bits > 0) { /* the byte started before */
                out[packed_at] |= (uint8_t)((u != 0) << (8 - packed_bits));
                packed_bits--;
                continue;
            }
            if (off >= cap)
                return 0;
            packed_at = off;
            packed_bits = 7;
            out[off++] = u != 0;
            continue;
        }
        packed_bits = -1;
        unsigned n = object_states[s].kind == K_VEC3 ? 3 : 4;
        for (unsigned k = 0; k < n; k++) {
            if (!given(vals, f + (int)k, 0, &u) || cap - off < 4)
                return 0;
            gw_put_uint(out + off, 4, u, false);
            off += 4;
        }
    }
    return off;
}

static int count_bools(const uint8_t *d, size_t len)
{
    /* booleans present in group 0 (objects have no more states) */
    return len >= 2 ? ((d[0] >> 3) & 1) + ((d[0] >> 4) & 1) : 0;
}

static void bundle(od_ctx *x)
{
    const uint8_t *d = x->p.c.data + x->p.c.off;
    size_t len = gw_remaining(&x->p.c), base = x->p.c.off;
    const int *opt = x->conv->opt;
    int enc = opt[OD_OPT_BOOLS], n_bools = count_bools(d, len);
    bool assumed = false;
    plain_size plain = plain_bundle(d, len);
    /* with fewer than two booleans both encodings read the same bytes
       (one boolean takes a byte either way): neither or both fit, and the
       default is used */
    if (enc == OD_BOOLS_AUTO && n_bools < 2) {
        enc = opt[OD_OPT_DEFAULT_BOOLS];
    } else if (enc == OD_BOOLS_AUTO) {
        long bytes = plain.plain ? plain_used(&plain, len, OD_BOOLS_BYTES)
                                 : walk_bundle(NULL, d, len, base, OD_BOOLS_BYTES);
        long packed = plain.plain ? plain_used(&plain, len, OD_BOOLS_PACKED)
                                  : walk_bundle(NULL, d, len, base, OD_BOOLS_PACKED);
        bool fb = bytes == (long)len, fp = packed == (long)len;
        enc = fb && !fp ? OD_BOOLS_BYTES : fp && !fb ? OD_BOOLS_PACKED : opt[OD_OPT_DEFAULT_BOOLS];
        assumed = !fb && !fp && n_bools >= 2;
    }
    gw_emit_label(&x->p.e, OD_F_BUNDLE, base, len, NULL);
    gw_emit_push(&x->p.e);
    if (n_bools >= 2)
        gw_emit_gen_u(&x->p.e, OD_F_BOOLS, base, (uint64_t)enc);
    if (assumed)
        gw_emit_finding(&x->p.e, OD_E_BUNDLE_BOOLS, base, len,
                        "Neither encoding fits %zu %s: %s used", len, gw_bytes(len),
                        gw_value_name_of(bools_names, (uint32_t)enc));
    if (n_bools >= 2 && enc == OD_BOOLS_BYTES && !assumed)
        gw_emit_divergence(&x->p.e, opt[OD_OPT_PROFILE], OD_E_BOOLS_UNPACKED, OD_E_DIVERGENCE_BOOLS,
                           &x->conv->bools_divergence_noted, base, len, "%d booleans, one byte each",
                           "Booleans one byte each (reference master); the draft packs them", n_bools);
    gw_summary_add(&x->p.sum, " [");
    /* (nothing shown: a plain bundle whose bytes are there has nothing to
       walk for) */
    bool shown = gw_emit_tree(&x->p.e) || !x->p.sum.off;
    long used = plain.plain && !shown ? plain_used(&plain, len, enc) : -1;
    if (used < 0)
        used = walk_bundle(x, d, len, base, enc);
    gw_summary_add(&x->p.sum, "]");
    if (used < 0) {
        x->p.failed = true;
        gw_summary_add(&x->p.sum, " (malformed)");
        x->p.c.off = x->p.c.len;
    } else {
        x->p.c.off += (size_t)used;
    }
    gw_emit_pop(&x->p.e, x->p.c.off);
}

/* ---- snapshots --------------------------------------------------------- */

static snapshot *find_snapshot(od_conv *c, int64_t t)
{
    /* ticks grow: one past every tick added is in no slot */
    if (!c->have_tick || t > c->max_tick)
        return NULL;
    /* the newest first (most changes are of the latest tick); a tick is in
       one slot at most (added only when not found) */
    unsigned newest = (c->snap_next - 1) % OD_SNAPSHOTS; /* (have_tick: one is) */
    if (c->snap_tick[newest] == t)
        return &c->snap[newest];
    for (unsigned k = 0, n = snaps_in_use(c); k < n; k++)
        if (c->snap_tick[k] == t)
            return &c->snap[k];
    return NULL;
}

/* the snapshot of tick t: as found ahead (look_ahead), or looked up now */
static snapshot *snapshot_of(od_ctx *x, int64_t t)
{
    if (x->ahead && x->ahead_tick == t)
        return x->ahead_snap;
    return find_snapshot(x->conv, t);
}

/* A packet of a type that looks a snapshot up (snapshot_type), its tick
   at the start of its payload (tick_at, as each of their layouts has
   it): the snapshot found now and its first line asked for, to be there
   once the layout has run (on the bench captures the state is seldom in
   the cache: packets of other conversations came between, and the
   snapshot a packet finds is mostly not the newest). */
static void look_ahead(od_ctx *x, unsigned type, const uint8_t *tick)
{
    const od_conv *c = x->conv;
    x->ahead = true;
    x->ahead_tick = (int64_t)gw_get_uint(tick, 8, false);
    x->ahead_snap = find_snapshot(x->conv, x->ahead_tick);
    if (x->ahead_snap)
        __builtin_prefetch(x->ahead_snap);
    if (type == T_CONFIRM) { /* and the acknowledged ticks was_acked reads, line by line */
        unsigned n = c->n_acked < OD_ACKS ? c->n_acked : OD_ACKS;
        uintptr_t end = (uintptr_t)(c->acked + n);
        for (uintptr_t at = (uintptr_t)c->acked & ~(uintptr_t)(GW_LINE - 1); at < end; at += GW_LINE)
            __builtin_prefetch((const void *)at);
    }
}

static snapshot *add_snapshot(od_ctx *x, int64_t t)
{
    od_conv *c = x->conv;
    x->ahead = false; /* (its answer may be this one now) */
    bool used = c->snap_wrapped; /* the slot holds the oldest */
    unsigned slot = c->snap_next++ % OD_SNAPSHOTS;
    snapshot *s = &c->snap[slot];
    c->snap_wrapped |= c->snap_next == OD_SNAPSHOTS;
    if (used && ((s->confirmed && s->changes < s->count) || (!s->confirmed && s->changes)))
        gw_emit_finding(&x->p.e, OD_E_SNAP_FORGOTTEN, x->tick_at, 8,
                        "Tick %lld given up unresolved (%u change%s%s)", (long long)c->snap_tick[slot],
                        s->changes, s->changes == 1 ? "" : "s", s->confirmed ? ", confirmed" : "");
    if (!c->have_tick || t > c->max_tick)
        c->max_tick = t;
    c->have_tick = true;
    *s = (snapshot){0};
    c->snap_tick[slot] = t;
    return s;
}

static void snapshot_change(od_ctx *x, int64_t t)
{
    snapshot *s = snapshot_of(x, t);
    if (!s) {
        s = add_snapshot(x, t);
        s->first_change_frame = x->p.pi->frame;
        s->first_change_t = x->p.pi->time_ns;
        s->first_change_dir = (uint8_t)x->p.pi->dir;
        s->first_change_off = (uint32_t)x->tick_at;
    }
    s->changes++;
    if (!s->confirmed)
        return;
    gw_emit_gen_u(&x->p.e, OD_F_CONFIRM_FRAME, x->tick_at, s->confirm_frame);
    gw_emit_gen_u(&x->p.e, OD_F_CHANGES_SEEN, x->tick_at, s->changes);
    gw_emit_gen_u(&x->p.e, OD_F_COMPLETE, x->tick_at, s->changes == s->count);
    if (s->changes > s->count)
        gw_emit_finding(&x->p.e, OD_E_SNAP_EXCESS, x->tick_at, 8, "Change %u of a snapshot of %u", s->changes,
                        s->count);
}

static bool was_acked(const od_conv *c, int64_t t)
{
    unsigned n = c->n_acked < OD_ACKS ? c->n_acked : OD_ACKS;
    for (unsigned k = 0; k < n; k++)
        if (c->acked[k] == t)
            return true;
    return false;
}

static void confirm(od_ctx *x)
{
    if (!x->seen[OD_F_REFERENCE_TICK])
        return;
    int64_t t = (int64_t)x->val[OD_F_TICK], ref = (int64_t)x->val[OD_F_REFERENCE_TICK];
    uint64_t count = x->val[OD_F_CHANGE_COUNT];
    size_t ref_off = x->p.c.off - 8;
    gw_summary_add(&x->p.sum, " tick %lld, %llu change%s, %s", (long long)t, (unsigned long long)count,
                   count == 1 ? "" : "s", ref ? "delta" : "full");
    if (ref && !was_acked(x->conv, ref))
        gw_emit_finding(&x->p.e, OD_E_REF_UNACKED, ref_off, 8,
                        "Delta against tick %lld, which the client has not acknowledged",
                        (long long)ref);
    snapshot *s = snapshot_of(x, t);
    if (!s)
        s = add_snapshot(x, t);
    if (s->confirmed)
        gw_emit_finding(&x->p.e, OD_E_SNAP_RECONFIRMED, x->tick_at, 8, "Tick %lld confirmed before in frame %u",
                        (long long)t, s->confirm_frame);
    s->confirmed = true;
    s->count = (uint32_t)count;
    s->confirm_frame = x->p.pi->frame;
    s->confirm_t = x->p.pi->time_ns;
    s->confirm_dir = (uint8_t)x->p.pi->dir;
    s->confirm_off = (uint32_t)x->tick_at;
    gw_emit_gen_u(&x->p.e, OD_F_CHANGES_SEEN, x->tick_at, s->changes);
    gw_emit_gen_u(&x->p.e, OD_F_COMPLETE, x->tick_at, s->changes == s->count);
    if (s->changes > s->count)
        gw_emit_finding(&x->p.e, OD_E_SNAP_EXCESS, x->tick_at, 8, "%u changes seen for a snapshot of %u",
                        s->changes, s->count);
    gw_summary_add(&x->p.sum, s->changes == s->count ? " (complete)"
                            : s->changes > s->count ? " (%u seen: too many)" : " (%u seen)", s->changes);
}

static void acknowledge(od_ctx *x)
{
    if (!x->seen[OD_F_TICK])
        return;
    int64_t t = (int64_t)x->val[OD_F_TICK];
    size_t off = x->tick_at;
    gw_summary_add(&x->p.sum, " tick %lld", (long long)t);
    od_conv *c = x->conv;
    c->acked[c->n_acked++ % OD_ACKS] = t;
    snapshot *s = snapshot_of(x, t);
    if (!s || !s->confirmed) {
        gw_emit_finding(&x->p.e, OD_E_ACK_UNCONFIRMED, off, 8, "Tick %lld was not confirmed", (long long)t);
        return;
    }
    gw_emit_gen_u(&x->p.e, OD_F_CONFIRM_FRAME, off, s->confirm_frame);
    if (s->changes < s->count)
        gw_emit_finding(&x->p.e, OD_E_ACK_INCOMPLETE, off, 8, "Tick %lld: %u of %u changes seen",
                        (long long)t, s->changes, s->count);
}

/* ---- packets ----------------------------------------------------------- */

static void gref(od_ctx *x)
{
    /* The code's gref (EVENT's object animation): u16 asset id, u32
       global database index. The draft uses "gref" and defines it nowhere;
       its "Asset references" gives the global database index 16 bits: a
       draft packet whose length leaves 4 bytes for it is read as u16 asset
       id, u16 index (the code's order: the draft gives none) */
    size_t after = x->type == T_ANIMATION ? 8 : 0; /* the draft animation's channel and speed */
    bool short_ref = (x->type == T_ANIMATION || x->type == T_SOUND) && gw_remaining(&x->p.c) == after + 4;
    size_t n = short_ref ? 4 : 6;
    uint64_t asset, db;
    size_t off = x->p.c.off;
    if (!gw_pdu_need(&x->p, n, "Asset reference"))
        return;
    gw_emit_label(&x->p.e, OD_F_GREF, off, n, NULL);
    gw_emit_push(&x->p.e);
    gw_take_u(&x->p, OD_F_ASSET, 2, &asset);
    gw_take_u(&x->p, OD_F_GREF_DB, n - 2, &db);
    const char *path = db_path(x->conv, (uint32_t)db);
    if (path)
        gw_emit_gen_s(&x->p.e, OD_F_GREF_PATH, off + 2, n - 2, path, strlen(path));
    else if (x->conv->n_db)
        gw_emit_finding(&x->p.e, OD_E_GREF_UNKNOWN, off + 2, n - 2, "Global database %llu is not in the table",
                        (unsigned long long)db);
    if (short_ref)
        gw_emit_finding(&x->p.e, OD_E_GREF_SHORT, off, n, "A 4-byte asset reference, read as u16 asset id, u16 "
                        "database index (the draft defines no gref)");
    gw_emit_pop(&x->p.e, off + n);
    gw_summary_add(&x->p.sum, " asset %llu/%s", (unsigned long long)asset, path ? path : "?");
}

/* the animation flags: four two-bit modes */
static void anim_flags(od_ctx *x, size_t off, uint64_t w)
{
    gw_emit_push(&x->p.e);
    gw_emit_u(&x->p.e, OD_F_BONE_X, off, 1, w);
    gw_emit_u(&x->p.e, OD_F_BONE_Y, off, 1, w);
    gw_emit_u(&x->p.e, OD_F_BONE_Z, off, 1, w);
    gw_emit_u(&x->p.e, OD_F_PLAYBACK, off, 1, w);
    gw_emit_pop(&x->p.e, off + 1);
    if ((w & 0x03) == 0x03 || (w & 0x0c) == 0x0c || (w & 0x30) == 0x30 || (w & 0xc0) == 0xc0)
        gw_emit_finding(&x->p.e, OD_E_ANIM_FLAGS, off, 1, "Flags 0x%02llx: a mode of 3", (unsigned long long)w);
    gw_summary_add(&x->p.sum, " %s", gw_value_name_or(playback_names, (uint32_t)(w >> 6), "Unknown"));
}

/* what the layouts ask of the decoder: the functions their steps name */

/* GW_IF_HOOK(draft_layout): the draft's layout. The draft puts a real time (f64) first
   in an action and an analog action, the reference does not: a payload
   whose length only the draft's fits is read the draft's way whatever the
   variant (both readings decode) */
static bool draft_layout(gw_pdu *p)
{
    od_ctx *x = (od_ctx *)p;
    if (x->conv->opt[OD_OPT_VARIANT] == OD_VARIANT_DRAFT)
        return true;
    size_t rest = gw_remaining(&x->p.c);
    return (x->type == T_ACTION && rest == 8 + 4 + 1) || (x->type == T_ANALOG && rest == 8 + 4 + 4 + 4);
}

static void step_gref(gw_pdu *p)
{
    gref((od_ctx *)p);
}
static void step_bundle(gw_pdu *p)
{
    bundle((od_ctx *)p);
}
static void sum_tick_object(gw_pdu *p)
{
    od_ctx *x = (od_ctx *)p;
    gw_summary_add(&x->p.sum, " tick %lld object %llu", (long long)x->val[OD_F_TICK],
                   (unsigned long long)x->val[OD_F_OBJECT_ID]);
}
static void sum_channel(gw_pdu *p)
{
    od_ctx *x = (od_ctx *)p;
    gw_summary_add(&x->p.sum, " channel 0x%llx", (unsigned long long)x->val[OD_F_CHANNEL]);
}

/* a tick's top bit: the code's i64 and the draft's u64 read it apart */
static void tick_top_bit(od_ctx *x, size_t off, uint64_t v)
{
    if (v >> 63)
        gw_emit_finding(&x->p.e, OD_E_TICK_TOP_BIT, off, 8, "Tick %lld as the code's i64, %llu as the draft's u64",
                        (long long)v, (unsigned long long)v);
}
static void check_tick(gw_pdu *p, size_t off, uint64_t v)
{
    od_ctx *x = (od_ctx *)p;
    if (v == 0)
        gw_emit_finding(&x->p.e, OD_E_TICK_ZERO, off, 8, "Tick 0 (none) in a packet that needs one");
    tick_top_bit(x, off, v);
}
static void check_reference_tick(gw_pdu *p, size_t off, uint64_t v)
{
    tick_top_bit((od_ctx *)p, off, v);
}
static void check_db_count(gw_pdu *p, size_t off, uint64_t v)
{
    od_ctx *x = (od_ctx *)p;
    if (v != x->conv->n_db)
        gw_emit_finding(&x->p.e, OD_E_DB_INCOMPLETE, off, 4, "%llu databases loaded, %u table entries seen",
                        (unsigned long long)v, x->conv->n_db);
}
static void check_variant(gw_pdu *p, size_t off, uint64_t v)
{
    od_ctx *x = (od_ctx *)p;
    gw_summary_add(&x->p.sum, " %s", gw_value_name_or(variant_names, (uint32_t)v, "Unknown"));
    if (v > 2)
        gw_emit_finding(&x->p.e, OD_E_EVENT_VARIANT, off, 1, "Event variant %llu", (unsigned long long)v);
}
static void check_lifecycle(gw_pdu *p, size_t off, uint64_t v)
{
    od_ctx *x = (od_ctx *)p;
    if (v > 3) /* "0 = loaded, 1 = spawned, 2 = running, 3 = destroyed" */
        gw_emit_finding(&x->p.e, OD_E_LIFECYCLE_UNKNOWN, off, 1, "Lifecycle state %llu", (unsigned long long)v);
}
static void check_anim_flags(gw_pdu *p, size_t off, uint64_t v)
{
    anim_flags((od_ctx *)p, off, v);
}

/* none to add: set, they let the layouts' steps, checks and tests run */
static const gw_pdu_hooks hooks = {0};

/* every packet's header, in a TCP stream and in a datagram's chain: its
   type, its payload's length (u16, the header not counted); described once
   for the decoder, od_pdu_length, the builder and the heuristic */
static const gw_lstep packet_header[] = {GW_NUM(OD_F_TYPE, 1), GW_NUM(OD_F_LENGTH, 2), {.op = GW_L_END}};
static const gw_frame framing = {.header = packet_header, .length_field = OD_F_LENGTH};

/* payload layouts (little-endian) */
#define L GW_LAYOUT
#define NUM(f, n, ...) GW_NUM(OD_F_##f, n, __VA_ARGS__)
#define TICK NUM(TICK, 8, GW_CHECK(check_tick))
#define REALTIME NUM(REALTIME, 8)
#define DRAFT_REALTIME GW_IF_HOOK(draft_layout), REALTIME, GW_DONE
/* the rest of the payload, a text also in the summary */
#define REST_TEXT(f) {.op = GW_L_REST, .field = OD_F_##f, GW_SUM(" %s"), GW_CHARS(48)}
#define BODY GW_OPTIONAL, GW_REST(OD_F_BODY)
#define ANIM NUM(ANIM_CHANNEL, 4), NUM(ANIM_SPEED, 4)
static const gw_lstep *const payloads[T_COUNT] = {
    [T_DB_ENTRY] = L(NUM(DB_INDEX, 4, GW_SUM(" %llu")), REST_TEXT(DB_PATH)),
    [T_LOAD_LEVEL] = L(NUM(DB_COUNT, 4, GW_CHECK(check_db_count)), REST_TEXT(LEVEL_PATH)),
    [T_STATES] = L(TICK, NUM(OBJECT_ID, 4), GW_STEP(sum_tick_object), GW_STEP(step_bundle)),
    [T_EXTRA_STATES] = L(TICK, NUM(OBJECT_ID, 4), GW_STEP(sum_tick_object), GW_REST(OD_F_EXTRA_STATES)),
    [T_CONFIRM] = L(TICK, REALTIME, NUM(CHANGE_COUNT, 4), NUM(REFERENCE_TICK, 8, GW_CHECK(check_reference_tick))),
    [T_GLOBAL_MESSAGE] = L(NUM(CHANNEL, 4), DRAFT_REALTIME, GW_STEP(sum_channel), BODY),
    /* the draft's layout (the reference never builds it) */
    [T_OBJECT_MESSAGE] = L(NUM(CHANNEL, 4), NUM(SENDER, 4), NUM(RECEIVER, 4), REALTIME, GW_STEP(sum_channel), BODY),
    [T_EVENT] = L(REALTIME, NUM(VARIANT, 1, GW_CHECK(check_variant)),
                  GW_IF(OD_F_VARIANT, GW_CMP_EQ, 0), NUM(ACTION, 4), NUM(KEY_DOWN, 1), GW_DONE,
                  GW_IF(OD_F_VARIANT, GW_CMP_EQ, 1), NUM(OBJECT_ID, 4, GW_SUM(" object %llu")), GW_STEP(step_gref),
                      ANIM, NUM(ANIM_START, 4), NUM(ANIM_TRANSITION, 4), NUM(ANIM_FLAGS, 1, GW_CHECK(check_anim_flags)),
                  GW_DONE,
                  GW_IF(OD_F_VARIANT, GW_CMP_EQ, 2), NUM(SENDER, 4), NUM(RECEIVER, 4), NUM(MESSAGE, 4), GW_DONE,
                  GW_IF(OD_F_VARIANT, GW_CMP_GE, 3), GW_REST(OD_F_DATA), GW_DONE),
    [T_ACK] = L(TICK),
    [T_ACTION] = L(DRAFT_REALTIME, NUM(ACTION, 4), NUM(ACTION_STATE, 1)),
    [T_ANALOG] = L(DRAFT_REALTIME, NUM(ACTION, 4), NUM(ANALOG_X, 4), NUM(ANALOG_Y, 4)),
    /* the draft's other snapshot changes */
    [T_OBJECT_CREATED] = L(TICK, NUM(NEW_OBJECT, 4), NUM(PROTOTYPE, 4)),
    [T_LIFECYCLE] = L(TICK, NUM(OBJECT_ID, 4), NUM(LIFECYCLE, 1, GW_CHECK(check_lifecycle))),
    [T_SOUND] = L(REALTIME, GW_STEP(step_gref)),
    /* the draft's "Object animation (downlink, reliable)" */
    [T_ANIMATION] = L(REALTIME, NUM(OBJECT_ID, 4, GW_SUM(" object %llu")), GW_STEP(step_gref), ANIM),
};

/* pcaptool conform's packets: type, the payload's length (u16), the
   payload of the type's layout, little-endian (an unknown type: the
   GW_W_STEP bytes given; a state bundle too, the decoder reads it
   procedurally) */
static size_t od_build(const int *opts, int64_t type, const gw_wval *vals, uint8_t *out, size_t cap)
{
    static const gw_lstep raw[] = {GW_STEP(NULL), {.op = GW_L_END}};
    size_t n, head = gw_frame_size(&framing);
    /* a bundle given by its values (rather than as the bytes of its step)
       written by write_bundle, in the booleans' encoding the options say */
    uint64_t u;
    gw_wval all[65];
    uint8_t b[64];
    if (type == T_STATES && given(vals, OD_F_VALUE_MASK, 0, &u)) {
        int bools = !opts                                ? OD_BOOLS_BYTES
                    : opts[OD_OPT_BOOLS] != OD_BOOLS_AUTO ? opts[OD_OPT_BOOLS]
                                                          : opts[OD_OPT_DEFAULT_BOOLS];
        size_t k = 0, nb = write_bundle(vals, bools, b, sizeof b);
        for (; vals[k].field != GW_W_END && k < 64; k++)
            all[k] = vals[k];
        if (!nb || k == 64)
            return 0;
        all[k++] = (gw_wval)GW_WSTEP(b, nb);
        all[k].field = GW_W_END;
        vals = all;
    }
    if (type < 0 || type > 255 || cap < head ||
        !gw_layout_write(type < T_COUNT ? payloads[type] : raw, false, vals, out + head, cap - head, &n) ||
        !gw_frame_write(&framing, GW_WVALS(GW_WU(OD_F_TYPE, (uint64_t)type)), n, out, cap))
        return 0;
    return n + head;
}

/* what a packet means, from what its layout read */
static void payload(od_ctx *x, unsigned type)
{
    od_conv *c = x->conv;
    const uint64_t *v = x->val;
    const bool *seen = x->seen;
    memset(x->seen, 0, sizeof x->seen);
    x->type = type;
    gw_layout_run_numbers_first(&x->p, payloads[type]);
    switch (type) {
    case T_DB_ENTRY:
        if (seen[OD_F_DB_PATH] && c->n_db < OD_DB_ENTRIES && !db_path(c, (uint32_t)v[OD_F_DB_INDEX])) {
            db_entry *e = &c->db[c->n_db++];
            e->index = (uint32_t)v[OD_F_DB_INDEX];
            size_t k = x->text[OD_F_DB_PATH].n < OD_DB_PATH - 1 ? x->text[OD_F_DB_PATH].n : OD_DB_PATH - 1;
            memcpy(e->path, x->text[OD_F_DB_PATH].p, k);
            e->path[k] = 0;
        }
        break;
    case T_STATES:
    case T_EXTRA_STATES:
        if (seen[OD_F_OBJECT_ID])
            snapshot_change(x, (int64_t)v[OD_F_TICK]);
        break;
    case T_CONFIRM:
        confirm(x);
        break;
    case T_EVENT:
        if (seen[OD_F_KEY_DOWN])
            gw_summary_add(&x->p.sum, " %d %s", (int32_t)v[OD_F_ACTION], v[OD_F_KEY_DOWN] ? "down" : "up");
        else if (seen[OD_F_MESSAGE])
            gw_summary_add(&x->p.sum, " %llu -> %llu", (unsigned long long)v[OD_F_SENDER],
                           (unsigned long long)v[OD_F_RECEIVER]);
        break;
    case T_ACK:
        acknowledge(x);
        break;
    case T_ACTION:
        if (seen[OD_F_ACTION_STATE])
            gw_summary_add(&x->p.sum, " %d %s", (int32_t)v[OD_F_ACTION],
                           gw_value_name_or(action_state_names, (uint32_t)v[OD_F_ACTION_STATE], "Unknown"));
        break;
    case T_ANALOG:
        if (seen[OD_F_ANALOG_Y])
            gw_summary_add(&x->p.sum, " %d", (int32_t)v[OD_F_ACTION]);
        break;
    case T_OBJECT_CREATED:
        if (seen[OD_F_PROTOTYPE]) {
            gw_summary_add(&x->p.sum, " tick %lld object %llu", (long long)v[OD_F_TICK],
                           (unsigned long long)v[OD_F_NEW_OBJECT]);
            snapshot_change(x, (int64_t)v[OD_F_TICK]);
        }
        break;
    case T_LIFECYCLE:
        if (seen[OD_F_LIFECYCLE]) {
            gw_summary_add(&x->p.sum, " tick %lld object %llu %s", (long long)v[OD_F_TICK],
                           (unsigned long long)v[OD_F_OBJECT_ID],
                           gw_value_name_or(lifecycle_names, (uint32_t)v[OD_F_LIFECYCLE], "Unknown"));
            snapshot_change(x, (int64_t)v[OD_F_TICK]);
        }
        break;
    default:
        break;
    }
}

/* the code's types, and the draft's it does not have (whatever the
   variant: the code uses none of their numbers) */
static bool known_type(unsigned type)
{
    return type < T_COUNT;
}

/* the types that look a snapshot up, each by the tick its payload starts with */
static bool snapshot_type(unsigned type)
{
    return type == T_STATES || type == T_EXTRA_STATES || type == T_CONFIRM || type == T_ACK ||
           type == T_OBJECT_CREATED || type == T_LIFECYCLE;
}

static bool reliable(unsigned type)
{
    return !snapshot_type(type);
}

/* which way a packet type goes by the draft: +1 downlink (server to
   client), -1 uplink, 0 either (messages and events: not stated for the
   reference's EVENT) */
static int one_way(unsigned type)
{
    switch (type) {
    case T_DB_ENTRY: case T_LOAD_LEVEL: case T_STATES: case T_EXTRA_STATES: case T_CONFIRM:
    case T_OBJECT_CREATED: case T_LIFECYCLE: case T_SOUND: case T_ANIMATION: /* the draft's */
        return 1;
    case T_ACK: case T_ACTION: case T_ANALOG:
        return -1;
    default:
        return 0;
    }
}

/* the server is the side the first one-way packet says; later packets
   the other way round are reported */
static void check_direction(od_ctx *x, unsigned type, size_t off)
{
    od_conv *c = x->conv;
    int way = one_way(type);
    if (!way)
        return;
    int from_server_dir = way > 0 ? x->p.pi->dir : !x->p.pi->dir;
    if (c->server_dir < 0) {
        c->server_dir = (int8_t)from_server_dir;
        return;
    }
    if (from_server_dir != c->server_dir)
        gw_emit_finding(&x->p.e, OD_E_WRONG_DIRECTION, off, 1, "%s from the %s (%s only)",
                        gw_value_name_of(type_names, type), way > 0 ? "client" : "server",
                        way > 0 ? "downlink" : "uplink");
}

/* one packet at d[off..len); returns where the next starts (len: stop) */
static size_t packet(od_ctx *x, const uint8_t *d, size_t len, size_t off)
{
    uint64_t type64 = 0, plen64 = 0;
    size_t have = len - off, head = gw_frame_size(&framing);
    gw_frame_num(&framing, OD_F_TYPE, d + off, have, &type64);
    bool whole = gw_frame_num(&framing, OD_F_LENGTH, d + off, have, &plen64);
    unsigned type = (unsigned)type64;
    bool known = known_type(type);
    size_t plen = (size_t)plen64;
    size_t end = whole && plen <= have - head ? off + head + plen : len;
    if (x->p.sum.len)
        gw_summary_add(&x->p.sum, " | ");
    gw_summary_add(&x->p.sum, "%s", known ? gw_value_name_of(type_names, type) : "Unknown");
    /* the name looked up only for a front end that takes items */
    bool items = x->p.e.sink->item;
    if (items)
        gw_emit_label(&x->p.e, OD_F_PACKET, off, end - off, gw_value_name_of(type_names, type));
    gw_emit_push(&x->p.e);
    /* the header through its layout (each packet is read afresh), where
       items are taken: elsewhere its values, already read, would only be
       recorded, and payload() forgets them (the bytes are there: the type's
       always, the length's when whole) */
    x->p.c = (gw_cursor){d, len, off};
    x->p.failed = false;
    if (items)
        gw_frame_take(&x->p, &framing, OD_F_TYPE, NULL);
    if (!whole) {
        gw_emit_b(&x->p.e, OD_F_DATA, off, have, d + off, have);
        gw_emit_finding(&x->p.e, OD_E_TRUNCATED, off, have, "%zu byte%s of a 3-byte packet header",
                        have, have == 1 ? "" : "s");
        gw_summary_add(&x->p.sum, " (truncated)");
        gw_emit_pop(&x->p.e, len);
        return len;
    }
    if (items)
        gw_frame_take(&x->p, &framing, OD_F_LENGTH, NULL);
    if (plen > have - head) {
        gw_emit_finding(&x->p.e, OD_E_TRUNCATED, off + 1, 2, "Payload of %zu %s, %zu present", plen, gw_bytes(plen),
                        have - head);
        x->p.mark = true; /* after what the payload shows */
    }
    if (!known) {
        gw_emit_finding(&x->p.e, OD_E_UNKNOWN_TYPE, off, 1, "Type %u", type);
        if (end > off + head)
            gw_emit_b(&x->p.e, OD_F_DATA, off + head, end - off - head, d + off + head, end - off - head);
        gw_emit_pop(&x->p.e, end);
        return len; /* where the next one starts is not known */
    }
    if (reliable(type) != (x->p.pi->transport == GW_TRANSPORT_TCP))
        gw_emit_finding(&x->p.e, OD_E_UNEXPECTED_LINK, off, 1, "%s over %s",
                        gw_value_name_of(type_names, type),
                        x->p.pi->transport == GW_TRANSPORT_TCP ? "TCP" : "UDP");
    check_direction(x, type, off);
    x->p.c = (gw_cursor){d, end, off + head};
    x->tick_at = off + head;
    x->p.failed = false;
    x->ahead = false;
    if (snapshot_type(type) && end - x->tick_at >= 8)
        look_ahead(x, type, d + x->tick_at);
    payload(x, type);
    gw_pdu_trailing(&x->p, OD_F_TRAILING, OD_E_TRAILING, "%zu byte%s after the fields");
    gw_pdu_mark(&x->p); /* this packet's summary is complete */
    gw_emit_pop(&x->p.e, end);
    return end;
}

static void od_decode(void *conv, const gw_pdu_info *pi, const uint8_t *d, size_t len,
                      const gw_sink *sink)
{
    od_ctx xs, *x = &xs;
    gw_pdu_begin(&x->p, &gw_opendrakan_protocol, sink, pi, d, len);
    x->conv = conv;
    x->tick_at = 0;
    x->p.rec = (gw_record){x->seen, x->val, x->text};
    x->p.hooks = &hooks;
    for (size_t off = 0; off < len;)
        off = packet(x, d, len, off);
    gw_pdu_finish(&x->p);
}

/* TCP framing: 3-byte header, the payload length; an unknown type cannot
   start a packet */
static long od_pdu_length(const int *opts, const uint8_t *d, size_t avail)
{
    (void)opts;
    uint64_t type, n;
    if (!gw_frame_num(&framing, OD_F_TYPE, d, avail, &type) || !known_type((unsigned)type))
        return GW_PDU_INVALID;
    return gw_frame_length(&framing, d, avail, &n) ? (long)n : 0;
}

/* the datagram or first segment is a chain of whole packets of known
   types, each long enough for its fixed fields */
static bool od_heuristic(const int *opts, int transport, const uint8_t *d, size_t len)
{
    (void)opts, (void)transport;
    /* the draft's animation and sound with a 4-byte gref (see gref()) */
    static const uint8_t min_payload[] = {4, 4, 14, 12, 28, 4, 20, 9, 8, 5, 12, 16, 13, 24, 12};
    size_t off = 0;
    int n = 0;
    size_t head = gw_frame_size(&framing);
    while (off < len) {
        uint64_t type, plen;
        if (!gw_frame_num(&framing, OD_F_LENGTH, d + off, len - off, &plen) ||
            !gw_frame_num(&framing, OD_F_TYPE, d + off, len - off, &type) || !known_type((unsigned)type))
            return false;
        if (plen < min_payload[type])
            return false;
        if (plen > len - off - head)
            return false;
        off += head + plen;
        n++;
    }
    return n > 0;
}

/* pcaptool stats and the statistics tree: snapshot completeness */
static const int measures[] = {OD_F_COMPLETE};

const gw_protocol gw_opendrakan_protocol = {
    .name = "opendrakan",
    .short_name = "OpenDrakan",
    .long_name = "OpenDrakan game engine network protocol",
    .transports = GW_TRANSPORT_UDP | GW_TRANSPORT_TCP,
    .default_port = OD_PORT,
    .fields = fields,
    .n_fields = OD_F_COUNT,
    .findings = findings,
    .n_findings = OD_E_COUNT,
    .truncated_finding = OD_E_PAYLOAD_SHORT,
    .rest_field = OD_F_DATA,
    .rules = rules,
    .n_rules = (int)(sizeof rules / sizeof rules[0]),
    .type_field = OD_F_TYPE,
    .measures = measures,
    .n_measures = (int)(sizeof measures / sizeof measures[0]),
    .options = options,
    .n_options = (int)(sizeof options / sizeof options[0]),
    .conv_size = sizeof(od_conv),
    .conv_init = conv_init,
    .conv_free = conv_free,
    .conv_end = conv_end,
    .decode = od_decode,
    .pdu_length = od_pdu_length,
    .pdu_header = 3,
    .heuristic = od_heuristic,
    .build = od_build,
};
