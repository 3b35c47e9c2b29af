/* Unit tests of the OpenDrakan decoder: packets from
 * opendrakan-reference-master.pcap (bytes of the reference's own
 * PacketBuilder) and hand-written ones for the draft's layouts, packed
 * booleans, malformed chains and snapshot bookkeeping (wire-facts
 * 5); expected values worked out by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "opendrakan/opendrakan.h"
#include "active/gw_replay.h"

PROTOCOL_SUITE(opendrakan, gw_opendrakan_protocol);

static bool has(const char *code) { return collect_has_finding(&c, collect_finding(P, code)); }
/* findings other than the once-per-conversation note that the booleans are
   one byte each (the reference's way, profile reference) */
static int other_findings(void)
{
    int n = 0, divergence = collect_finding(P, "opendrakan.divergence.bools_bytes");
    for (int i = 0; i < c.n_findings; i++)
        n += c.findings[i] != divergence;
    return n;
}
static int count(const char *abbrev) { return collect_count(&c, collect_field(P, abbrev)); }
static const gw_item *item(const char *abbrev, int k)
{
    const gw_item *it = collect_get(&c, collect_field(P, abbrev), k);
    cr_assert_not_null(it, "%s #%d missing", abbrev, k);
    return it;
}
static uint64_t U(const char *abbrev) { return item(abbrev, 0)->v.u; }
static double D(const char *abbrev, int k) { return item(abbrev, k)->v.d; }

enum { UDP = GW_TRANSPORT_UDP, TCP = GW_TRANSPORT_TCP };

/* the server is direction 0: the client's packets (acknowledge 08, actions
   09 and 0a) go the other way */
static void dec(uint32_t frame, int transport, const char *hex)
{
    int uplink = hex[0] == '0' && (hex[1] == '8' || hex[1] == '9' || hex[1] == 'a');
    collect_decode_on(&c, P, conv, frame, 0, uplink, transport, hex);
}

/* what conv_end() reports */
static int n_end, end_finding[16];
static uint32_t end_frame[16];
static void on_end(void *ctx, uint32_t frame, int64_t t, int dir, int finding, size_t off,
                   size_t len, const char *msg)
{
    (void)ctx; (void)t; (void)dir; (void)off; (void)len; (void)msg;
    if (n_end < 16) {
        end_frame[n_end] = frame;
        end_finding[n_end++] = finding;
    }
}

Test(opendrakan, reference_states_all_five)
{
    /* frame 10: type 2, length 0x38 = 56, tick 1000, object 0x1234, masks
       1f 00, position (1.5, -2.25, 3), rotation (.5, -.5, .5, .5), scale
       (1, 2, .5), visible 1, running 0: one byte each (2 bools: 16 + 2
       bytes, packed would be 1) */
    dec(10, UDP,
        "02 3800 e803000000000000 34120000 1f00 0000c03f 000010c0 00004040"
        " 0000003f 000000bf 0000003f 0000003f 0000803f 00000040 0000003f 01 00");
    cr_assert_eq(c.n_findings, 1);
    cr_assert(has("opendrakan.divergence.bools_bytes"));
    cr_assert_eq(U("opendrakan.type"), 2);
    cr_assert_eq(U("opendrakan.length"), 56);
    cr_assert_eq(item("opendrakan.tick", 0)->v.i, 1000);
    cr_assert_eq(U("opendrakan.object_id"), 0x1234);
    cr_assert_eq(U("opendrakan.value_mask"), 0x1f);
    cr_assert_eq(U("opendrakan.bool_encoding"), OD_BOOLS_BYTES);
    cr_assert_float_eq(D("opendrakan.position.y", 0), -2.25, 1e-9);
    cr_assert_float_eq(D("opendrakan.rotation.y", 0), -0.5, 1e-9);
    cr_assert_float_eq(D("opendrakan.scale.y", 0), 2.0, 1e-9);
    cr_assert_eq(U("opendrakan.visible"), 1);
    cr_assert_eq(item("opendrakan.running", 0)->v.u, 0);
    cr_assert_eq(count("opendrakan.jump"), 5);
}

Test(opendrakan, packed_booleans_told_by_the_length)
{
    /* visibility and running, running jumps: masks 18 10; packed LSB-first
       into one byte 0x02 (visible 0, running 1): payload 8+4+2+1 = 15 */
    dec(1, UDP, "02 0f00 0100000000000000 2b000000 1810 02");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.bool_encoding"), OD_BOOLS_PACKED);
    cr_assert_eq(item("opendrakan.visible", 0)->v.u, 0);
    cr_assert_eq(U("opendrakan.running"), 1);
    cr_assert_eq(item("opendrakan.jump", 1)->v.u, 1);
    /* the same states one byte each: 16 bytes (frame 14 of the capture) */
    dec(2, UDP, "02 1000 ec03000000000000 2b000000 1810 00 01");
    cr_assert_eq(c.n_findings, 1);
    cr_assert(has("opendrakan.divergence.bools_bytes"));
    cr_assert_eq(U("opendrakan.bool_encoding"), OD_BOOLS_BYTES);
    cr_assert_eq(U("opendrakan.running"), 1);
    /* once per conversation under the reference profile; each time under spec */
    dec(3, UDP, "02 1000 ec03000000000000 2b000000 1810 00 01");
    cr_assert_eq(c.n_findings, 0);
    opt[OD_OPT_PROFILE] = GW_PROFILE_SPEC;
    dec(4, UDP, "02 1000 ec03000000000000 2b000000 1810 00 01");
    cr_assert(has("opendrakan.bundle.bools_unpacked"));
    dec(5, UDP, "02 0f00 0100000000000000 2b000000 1810 02");
    cr_assert_eq(c.n_findings, 0);
    opt[OD_OPT_PROFILE] = GW_PROFILE_REFERENCE;
}

Test(opendrakan, malformed_chains)
{
    /* 0x80: another group follows, but the payload ends */
    dec(1, UDP, "02 0e00 0100000000000000 01000000 8000");
    cr_assert(has("opendrakan.bundle.past_end"));
    /* a second group naming state 7 (objects have 5) */
    dec(2, UDP, "02 1000 0100000000000000 01000000 8000 0100");
    cr_assert(has("opendrakan.bundle.no_such_state"));
    /* position announced, 4 of its 12 bytes there */
    dec(3, UDP, "02 1200 0100000000000000 01000000 0100 0000803f");
    cr_assert(has("opendrakan.bundle.past_end"));
    /* a jump bit without its value bit */
    dec(4, UDP, "02 0e00 0100000000000000 01000000 0002");
    cr_assert(has("opendrakan.bundle.jump_without_value"));
    /* a payload length past the datagram, then a packet cut in its header */
    dec(5, UDP, "08 0800 e8030000");
    cr_assert(has("opendrakan.truncated"));
    dec(6, UDP, "08 08");
    cr_assert(has("opendrakan.truncated"));
    /* unknown type */
    dec(7, TCP, "2a 0000");
    cr_assert(has("opendrakan.type.unknown"));
}

/* OpenDrakan draft: snapshot packets "are only valid in the downlink. A client
   does not send state updates to the server"; the acknowledge is uplink.
   The server is the side the first one-way packet says. */
Test(opendrakan, packets_in_the_wrong_direction)
{
    collect_decode_on(&c, P, conv, 1, 0, 1, UDP, "04 1c00 0500000000000000 0000000000000040 00000000 0000000000000000");
    cr_assert_eq(c.n_findings, 0, "the first says the server is direction 1");
    collect_decode_on(&c, P, conv, 2, 0, 0, UDP, "08 0800 0500000000000000");
    cr_assert_eq(c.n_findings, 0, "the client acknowledges");
    collect_decode_on(&c, P, conv, 3, 0, 0, UDP, "02 0e00 0600000000000000 01000000 0000");
    cr_assert(has("opendrakan.direction.wrong"), "a state change from the client");
    collect_decode_on(&c, P, conv, 4, 0, 1, UDP, "08 0800 0500000000000000");
    cr_assert(has("opendrakan.direction.wrong"), "an acknowledge from the server");
}

/* "The highest bit of the jump mask is currently unused" */
Test(opendrakan, jump_mask_high_bit)
{
    dec(1, UDP, "02 0e00 0500000000000000 01000000 0080");
    cr_assert(has("opendrakan.bundle.jump_high_bit"));
    dec(2, UDP, "02 0e00 0600000000000000 01000000 0000");
    cr_assert(!has("opendrakan.bundle.jump_high_bit"));
}

Test(opendrakan, snapshot_complete_in_any_order)
{
    /* tick 5: one change, the confirm (count 2, full), the second change:
       it completes the snapshot and links to the confirm */
    dec(1, UDP, "02 0e00 0500000000000000 01000000 0000");
    dec(2, UDP, "04 1c00 0500000000000000 0000000000000040 02000000 0000000000000000");
    cr_assert_eq(U("opendrakan.change_count"), 2);
    cr_assert_eq(U("opendrakan.snapshot.changes_seen"), 1);
    cr_assert_eq(U("opendrakan.snapshot.complete"), 0);
    cr_assert_float_eq(D("opendrakan.realtime", 0), 2.0, 1e-12);
    dec(3, UDP, "02 0e00 0500000000000000 02000000 0000");
    cr_assert_eq(U("opendrakan.snapshot.confirm_frame"), 2);
    cr_assert_eq(U("opendrakan.snapshot.complete"), 1);
    /* the client acknowledges it; a delta against tick 5 is then fine */
    dec(4, UDP, "08 0800 0500000000000000");
    cr_assert_eq(c.n_findings, 0);
    dec(5, UDP, "04 1c00 0600000000000000 0000000000000040 01000000 0500000000000000");
    cr_assert(!has("opendrakan.snapshot.reference_unacked"));
    /* tick 7: confirmed with 2 changes, one arrives; a delta against 6,
       never acknowledged; an acknowledgement of tick 9, never confirmed */
    dec(6, UDP, "04 1c00 0700000000000000 0000000000000040 02000000 0600000000000000");
    cr_assert(has("opendrakan.snapshot.reference_unacked"));
    dec(7, UDP, "02 0e00 0700000000000000 01000000 0000");
    dec(8, UDP, "08 0800 0900000000000000");
    cr_assert(has("opendrakan.ack.unconfirmed"));
    /* at the end: tick 6 (1 change expected, none) and 7 incomplete */
    n_end = 0;
    gw_end_sink es = {NULL, on_end, NULL};
    P->conv_end(conv, &es);
    cr_assert_eq(n_end, 2);
    int incomplete = collect_finding(P, "opendrakan.snapshot.incomplete");
    cr_assert(end_finding[0] == incomplete && end_finding[1] == incomplete);
    cr_assert((end_frame[0] == 5 && end_frame[1] == 6) || (end_frame[0] == 6 && end_frame[1] == 5));
}

Test(opendrakan, several_packets_in_one_datagram)
{
    dec(1, UDP, "08 0800 0100000000000000 08 0800 0200000000000000");
    cr_assert_eq(count("opendrakan.type"), 2);
    cr_assert_eq(item("opendrakan.tick", 1)->v.i, 2);
    cr_assert(strstr(c.summary, " | ") != NULL);
}

Test(opendrakan, events_and_the_database_table)
{
    /* frames 4 and 6: table entries 3 and 0x12345678 */
    dec(4, TCP, "00 1400 03000000 436f6d6d6f6e2f636f6d6d6f6e2e6462");
    cr_assert_eq(U("opendrakan.db_index"), 3);
    /* an animation event against entry 3: asset 0x0102, channel -1, flags
       0x9a = playback 2 (bits 6-7), bone modes z 1, y 2, x 2 */
    dec(5, TCP, "07 2400 0000000000001040 01 43000000 0201 03000000 ffffffff 0000803f"
                " 00000000 00000000 9a");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.gref.asset"), 0x0102);
    const gw_item *path = item("opendrakan.gref.db_path", 0);
    cr_assert(path->v.b.n == 16 && memcmp(path->v.b.p, "Common/common.db", 16) == 0);
    cr_assert_eq(item("opendrakan.anim.channel", 0)->v.i, -1);
    cr_assert_eq(U("opendrakan.anim.flags"), 0x9a); /* masked by the front ends */
    cr_assert_eq(gw_field_masked(&P->fields[collect_field(P, "opendrakan.anim.playback")], 0x9a), 2);
    cr_assert_eq(gw_field_masked(&P->fields[collect_field(P, "opendrakan.anim.bone_mode_z")], 0x9a), 1);
    /* frame 40: action 3 begin (reference: no real time) */
    dec(40, TCP, "09 0500 03000000 00");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(item("opendrakan.action", 0)->v.i, 3);
}

/* the draft's "Object animation (downlink, reliable)": f64 realtime, u32 id,
   gref anim_ref, i32 channel_index, f32 speed_modifier (code 13: the draft
   numbers no packet; the draft-only ones follow the code's in the draft's
   order); its lifecycle states "0 = loaded, 1 = spawned, 2 = running, 3 =
   destroyed", a fifth flagged */
Test(opendrakan, draft_object_animation_and_lifecycle_states)
{
    opt[OD_OPT_VARIANT] = OD_VARIANT_DRAFT;
    dec(1, TCP, "0d 1a00 000000000000f83f 2a000000 0201 07000000 01000000 0000803f");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.object_id"), 42);
    cr_assert_eq(U("opendrakan.gref.asset"), 0x102);
    cr_assert_eq(U("opendrakan.gref.db_index"), 7);
    cr_assert_eq(U("opendrakan.anim.channel"), 1);
    cr_assert_float_eq(D("opendrakan.realtime", 0), 1.5, 1e-12);
    dec(2, UDP, "0c 0d00 0a00000000000000 07000000 04");
    cr_assert(has("opendrakan.lifecycle.unknown"));
    /* the code has no packet 13: the draft's decodes under either variant;
       15 is no packet of either */
    opt[OD_OPT_VARIANT] = OD_VARIANT_REFERENCE;
    dec(3, TCP, "0d 1a00 000000000000f83f 2a000000 0201 07000000 01000000 0000803f");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.object_id"), 42);
    dec(4, TCP, "0f 0000");
    cr_assert(has("opendrakan.type.unknown"));
}

/* the draft's "Sound (downlink, reliable)": f64 realtime, gref sound_ref
   (code 14). The draft defines no gref: the code's is u16 asset, u32 index
   (6 bytes); a 4-byte one (the draft's 16-bit index) reads as u16 asset,
   u16 index with a note, and is no error */
Test(opendrakan, draft_sound_both_grefs)
{
    dec(1, TCP, "0e 0e00 0000000000000840 0c00 07000000");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.gref.asset"), 12);
    cr_assert_eq(U("opendrakan.gref.db_index"), 7);
    dec(2, TCP, "0e 0c00 0000000000000840 0c00 0100");
    cr_assert_eq(c.n_findings, 1);
    cr_assert(has("opendrakan.gref.short"));
    cr_assert_eq(U("opendrakan.gref.asset"), 12);
    cr_assert_eq(U("opendrakan.gref.db_index"), 1);
    cr_assert_float_eq(D("opendrakan.realtime", 0), 3.0, 1e-12);
}

Test(opendrakan, draft_layouts)
{
    opt[OD_OPT_VARIANT] = OD_VARIANT_DRAFT;
    /* action with the draft's real time first: 1.5 s, action 3, repeat */
    dec(1, TCP, "09 0d00 000000000000f83f 03000000 02");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_float_eq(D("opendrakan.realtime", 0), 1.5, 1e-12);
    cr_assert_eq(U("opendrakan.action_state"), 2);
    /* the draft-only lifecycle packet (this project's code 12): destroyed */
    dec(2, UDP, "0c 0d00 0a00000000000000 07000000 03");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.lifecycle_state"), 3);
    /* tick 10's snapshot: that lifecycle change, a created object (code 11:
       tick 10, object 8 cloned from 7) and the confirm counting both */
    dec(3, UDP, "0b 1000 0a00000000000000 08000000 07000000"
                " 04 1c00 0a00000000000000 0000000000000000 02000000 0000000000000000");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.new_object_id"), 8);
    cr_assert_eq(U("opendrakan.snapshot.changes_seen"), 2);
    cr_assert_eq(U("opendrakan.snapshot.complete"), 1);
    /* a u64 tick beyond the code's i64: 2^63 + 1 */
    dec(4, UDP, "08 0800 0100000000000080");
    cr_assert(has("opendrakan.tick.top_bit"));
    cr_assert_eq((uint64_t)item("opendrakan.tick", 0)->v.i, 0x8000000000000001ull);
    /* the code has no packet 12: the draft's decodes under the reference
       variant too */
    opt[OD_OPT_VARIANT] = OD_VARIANT_REFERENCE;
    dec(5, UDP, "0c 0d00 0a00000000000000 07000000 03");
    cr_assert(!has("opendrakan.type.unknown"));
    cr_assert_eq(U("opendrakan.lifecycle_state"), 3);
}

Test(opendrakan, framing_and_heuristic)
{
    uint8_t d[64];
    size_t n = unhex("09 0500 03000000 00", d);
    cr_assert_eq(P->pdu_length(opt, d, 3), 8);
    cr_assert(P->heuristic(opt, TCP, d, n));
    cr_assert(!P->heuristic(opt, TCP, d, n - 1)); /* not a whole packet */
    d[0] = 0x2a;
    cr_assert_eq(P->pdu_length(opt, d, 3), GW_PDU_INVALID);
    cr_assert(!P->heuristic(opt, UDP, d, n));
}

/* Every bundle of ObjectStates: each of the 5 states absent, present, or
   present and jumping (3^5 = 243), in both boolean encodings, written here
   from wire-facts 5.6 (one mask pair; states in order; booleans one
   byte each, or the present ones packed LSB-first into one byte) and read
   back with the encoding told by the length. */
static void hex_f32(char **h, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++)
        *h += sprintf(*h, "%02x", (u >> (8 * i)) & 0xff);
}

Test(opendrakan, every_bundle_in_both_encodings)
{
    for (int enc = OD_BOOLS_BYTES; enc <= OD_BOOLS_PACKED; enc++) {
        for (int combo = 0; combo < 243; combo++) {
            unsigned vm = 0, jm = 0;
            for (int s = 0, d = combo; s < 5; s++, d /= 3) {
                vm |= (d % 3 != 0) << s;
                jm |= (d % 3 == 2) << s;
            }
            unsigned visible = (combo / 7) & 1, running = (combo / 11) & 1;
            char hex[256], body[200], *h = body;
            h += sprintf(h, "%02x%02x", vm, jm);
            size_t n = 2;
            if (vm & 1) { hex_f32(&h, 1.5f); hex_f32(&h, (float)combo); hex_f32(&h, -3.0f); n += 12; }
            if (vm & 2) { for (int i = 0; i < 4; i++) hex_f32(&h, 0.25f * i); n += 16; }
            if (vm & 4) { hex_f32(&h, 2.0f); hex_f32(&h, 4.0f); hex_f32(&h, (float)enc); n += 12; }
            if (enc == OD_BOOLS_BYTES) {
                if (vm & 8) { h += sprintf(h, "%02x", visible); n++; }
                if (vm & 16) { h += sprintf(h, "%02x", running); n++; }
            } else if (vm & 0x18) {
                unsigned byte = 0, bit = 0;
                if (vm & 8) byte |= visible << bit++;
                if (vm & 16) byte |= running << bit++;
                h += sprintf(h, "%02x", byte);
                n++;
            }
            sprintf(hex, "02 %02zx%02zx 0500000000000000 09000000 %s", (12 + n) & 0xff, (12 + n) >> 8, body);
            dec((uint32_t)combo + 1, UDP, hex);
            cr_assert_eq(other_findings(), 0, "combo %d enc %d: %d findings", combo, enc, c.n_findings);
            cr_assert_eq(U("opendrakan.value_mask"), vm);
            cr_assert_eq(U("opendrakan.jump_mask"), jm);
            int present = __builtin_popcount(vm);
            cr_assert_eq(count("opendrakan.jump"), present, "combo %d", combo);
            for (int s = 0, k = 0; s < 5; s++)
                if (vm & (1u << s))
                    cr_assert_eq(item("opendrakan.jump", k++)->v.u, (jm >> s) & 1, "combo %d state %d", combo, s);
            cr_assert_eq(count("opendrakan.position.y"), vm & 1);
            if (vm & 1)
                cr_assert_float_eq(D("opendrakan.position.y", 0), (double)combo, 1e-9);
            cr_assert_eq(count("opendrakan.rotation.w"), (vm >> 1) & 1);
            if (vm & 2)
                cr_assert_float_eq(D("opendrakan.rotation.w", 0), 0.75, 1e-9);
            cr_assert_eq(count("opendrakan.scale.z"), (vm >> 2) & 1);
            if (vm & 4)
                cr_assert_float_eq(D("opendrakan.scale.z", 0), (double)enc, 1e-9);
            cr_assert_eq(count("opendrakan.visible"), (vm >> 3) & 1);
            if (vm & 8)
                cr_assert_eq(U("opendrakan.visible"), visible, "combo %d enc %d", combo, enc);
            cr_assert_eq(count("opendrakan.running"), (vm >> 4) & 1);
            if (vm & 16)
                cr_assert_eq(U("opendrakan.running"), running, "combo %d enc %d", combo, enc);
            /* the encoding is told (and shown) only when both booleans are there */
            cr_assert_eq(count("opendrakan.bool_encoding"), (vm & 0x18) == 0x18);
            if ((vm & 0x18) == 0x18)
                cr_assert_eq(U("opendrakan.bool_encoding"), (unsigned)enc);
        }
    }
}

/* Where nothing is shown (pcaptool validate: no items, no subtrees, no
   summary) a bundle of objects' states alone is measured rather than
   walked: the findings must be those of a full decoding, for every value
   mask, jump masks with and without stray bits, each length cut short, in
   each booleans' option. Two conversations see the same packets, one
   decoded in full, one quietly. */
Test(opendrakan, bundles_quiet_as_in_full)
{
    static const int encs[] = {OD_BOOLS_AUTO, OD_BOOLS_BYTES, OD_BOOLS_PACKED};
    collect q;
    void *quiet = test_conv_new(P, opt);
    uint32_t frame = 0;
    for (size_t e = 0; e < sizeof encs / sizeof encs[0]; e++) {
        opt[OD_OPT_BOOLS] = encs[e];
        for (unsigned vm = 0; vm < 256; vm++) {
            const unsigned jms[] = {0, vm, vm & 0x15, vm | 0x80, 0x01, 0xff};
            for (size_t j = 0; j < sizeof jms / sizeof jms[0]; j++) {
                for (unsigned len = 0; len <= 46; len += len < 16 ? 1 : 3) {
                    char hex[256], *h = hex;
                    h += sprintf(h, "02%02x00 0500000000000000 09000000", 12 + len);
                    for (unsigned k = 0; k < len; k++)
                        h += sprintf(h, "%02x", k == 0 ? vm : k == 1 ? jms[j] : (k * 37) & 0xff);
                    frame++;
                    dec(frame, UDP, hex);
                    collect_init(&q);
                    q.sink.item = NULL, q.sink.push = NULL, q.sink.pop = NULL, q.sink.summary = NULL;
                    uint8_t bytes[128];
                    size_t n = unhex(hex, bytes);
                    uint8_t *b = malloc(n); /* (ASan sees an overread) */
                    memcpy(b, bytes, n);
                    gw_pdu_info pi = {frame, 0, 0, UDP};
                    P->decode(quiet, &pi, b, n, &q.sink);
                    free(b);
                    cr_assert_eq(q.n_findings, c.n_findings, "vm %02x jm %02x len %u enc %d", vm, jms[j], len,
                                 encs[e]);
                    for (int i = 0; i < c.n_findings; i++)
                        cr_assert(q.findings[i] == c.findings[i] && q.finding_off[i] == c.finding_off[i],
                                  "vm %02x jm %02x len %u enc %d: finding %d", vm, jms[j], len, encs[e], i);
                }
            }
        }
    }
    test_conv_free(P, quiet);
}

/* ---- pcaptool replay's hooks ---- */

#define CONFIRM(tick, changes) "04 1c 00 " tick " 00 00 00 00 00 00 00 00 " changes " 00 00 00 00 00 00 00 00"
#define CHANGE(tick) "02 0c 00 " tick " 01 00 00 00"
#define ACK(tick) "08 08 00 " tick

/* a datagram decoded as replay hands it to the hooks (the recording's and
   the live exchange's in conversations of their own) */
static const gw_replay_pdu *pdu(replay_pdu *x, bool recorded, bool ours, const char *hex)
{
    static void *live_conv;
    if (!live_conv)
        live_conv = test_conv_new(P, opt);
    return replay_pdu_decode(x, P, recorded ? conv : live_conv, ours ? 0 : 1, GW_TRANSPORT_UDP, hex);
}

static void feed(const gw_replay *r, void *st, bool recorded, bool ours, const char *hex)
{
    replay_pdu x;
    if (recorded)
        r->recorded(st, pdu(&x, true, ours, hex), ours);
    else
        r->observe(st, pdu(&x, false, ours, hex), ours);
}

/* the tick our recorded ACKNOWLEDGE_SNAPSHOT names once adapted */
static uint64_t adapted_ack(const gw_replay *r, void *st, const char *hex)
{
    replay_pdu x;
    uint8_t d[16];
    const gw_replay_pdu *p = pdu(&x, true, true, hex);
    memcpy(d, p->data, p->len);
    r->adapt(st, p, d);
    return gw_get_uint(d + 3, 8, false);
}

Test(opendrakan, replay_acks_name_complete_live_snapshots)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    /* the recorded peer confirmed ticks 10 then 11 */
    feed(r, st, true, false, CONFIRM("0a 00 00 00 00 00 00 00", "01 00 00 00"));
    feed(r, st, true, false, CONFIRM("0b 00 00 00 00 00 00 00", "02 00 00 00"));
    /* live: 100 with its 1 change (complete), 101 with 1 of 2 */
    feed(r, st, false, false, CHANGE("64 00 00 00 00 00 00 00") CONFIRM("64 00 00 00 00 00 00 00", "01 00 00 00"));
    feed(r, st, false, false, CONFIRM("65 00 00 00 00 00 00 00", "02 00 00 00"));
    feed(r, st, false, false, CHANGE("65 00 00 00 00 00 00 00"));
    cr_assert_eq(adapted_ack(r, st, ACK("0a 00 00 00 00 00 00 00")), 100);
    /* 101 stands where 11 stood, but is incomplete: the newest complete */
    cr_assert_eq(adapted_ack(r, st, ACK("0b 00 00 00 00 00 00 00")), 100);
    /* a tick the recording never confirmed: the same */
    cr_assert_eq(adapted_ack(r, st, ACK("63 00 00 00 00 00 00 00")), 100);
    /* the second change of 101 comes: now it is acknowledged for 11 */
    feed(r, st, false, false, CHANGE("65 00 00 00 00 00 00 00"));
    cr_assert_eq(adapted_ack(r, st, ACK("0b 00 00 00 00 00 00 00")), 101);
    free(st);
}

Test(opendrakan, replay_peer_acks_name_our_complete_snapshots)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    char why[200] = "";
    replay_pdu x, y;
    /* we sent tick 5 whole, tick 6 with 0 of 1 changes */
    feed(r, st, false, true, CHANGE("05 00 00 00 00 00 00 00") CONFIRM("05 00 00 00 00 00 00 00", "01 00 00 00"));
    feed(r, st, false, true, CONFIRM("06 00 00 00 00 00 00 00", "01 00 00 00"));
    const gw_replay_pdu *rec = pdu(&x, true, false, ACK("05 00 00 00 00 00 00 00"));
    cr_assert_eq(r->need(st, rec), GW_REPLAY_ANSWER);
    cr_assert(r->match(st, rec, pdu(&y, false, false, ACK("05 00 00 00 00 00 00 00")), why, sizeof why));
    cr_assert_not(r->match(st, rec, pdu(&y, false, false, ACK("06 00 00 00 00 00 00 00")), why, sizeof why));
    cr_assert_str_eq(why, "acknowledges tick 6, whose snapshot we sent incomplete (0 of 1 changes)");
    cr_assert_not(r->match(st, rec, pdu(&y, false, false, ACK("07 00 00 00 00 00 00 00")), why, sizeof why));
    cr_assert_str_eq(why, "acknowledges tick 7, which we did not confirm");
    free(st);
}

/* The draft's ACTION_TRIGGERED and ANALOG_ACTION_TRIGGERED begin with the
   real time (f64), the reference's do not: under the default variant each
   layout decodes where the length fits it, neither gives a finding */
Test(opendrakan, actions_in_either_layout)
{
    dec(1, TCP, "09 0500 07000000 01");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(U("opendrakan.action"), 7);
    cr_assert_eq(count("opendrakan.realtime"), 0);
    dec(2, TCP, "09 0d00 000000000000f83f 07000000 01");
    cr_assert_eq(c.n_findings, 0, "the draft's layout: no trailing bytes");
    cr_assert_eq(U("opendrakan.action"), 7);
    cr_assert_float_eq(D("opendrakan.realtime", 0), 1.5, 1e-9);
    dec(3, TCP, "0a 1400 0000000000000040 02000000 0000803f 000000bf");
    cr_assert_eq(c.n_findings, 0);
    cr_assert_float_eq(D("opendrakan.realtime", 0), 2.0, 1e-9);
    cr_assert_eq(U("opendrakan.action"), 2);
}
