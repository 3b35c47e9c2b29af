/* Unit tests of the layout interpreter (common/core/gw_layout.c) on a protocol
 * of its own: byte vectors written by hand, the values each step must read
 * from them worked out by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "collect.h"
#include "core/gw_layout.h"

enum { F_A, F_B, F_SIGNED, F_NAME, F_LEN, F_DATA, F_REST, F_HEAD, F_KIND, F_COUNT };
enum { E_TRUNCATED, E_UNTERMINATED, E_PADDING, E_PAST_END, E_COUNT };

static const gw_field fields[F_COUNT] = {
    [F_A] = {"t.a", "A", GW_FT_U8, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_B] = {"t.b", "B", GW_FT_U16, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_SIGNED] = {"t.signed", "Signed", GW_FT_I32, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_NAME] = {"t.name", "Player name", GW_FT_STRING, GW_BASE_NONE, NULL, 0, "", 0, -1},
    [F_LEN] = {"t.len", "Length", GW_FT_U32, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_DATA] = {"t.data", "Data", GW_FT_BYTES, GW_BASE_NONE, NULL, 0, "", 0, -1},
    [F_REST] = {"t.rest", "Rest", GW_FT_BYTES, GW_BASE_NONE, NULL, 0, "", 0, -1},
    [F_HEAD] = {"t.head", "Head", GW_FT_NONE, GW_BASE_NONE, NULL, 0, "", 0, -1},
    [F_KIND] = {"t.kind", "Kind", GW_FT_U8, GW_BASE_DEC, NULL, 0, "", 0, -1},
};
static const gw_finding_def findings[E_COUNT] = {
    [E_TRUNCATED] = {"t.truncated", GW_SEV_ERROR, "", GW_GROUP_MALFORMED},
    [E_UNTERMINATED] = {"t.unterminated", GW_SEV_WARNING, "", GW_GROUP_MALFORMED},
    [E_PADDING] = {"t.padding", GW_SEV_NOTE, "", GW_GROUP_MALFORMED},
    [E_PAST_END] = {"t.past_end", GW_SEV_ERROR, "", GW_GROUP_MALFORMED},
};
static const gw_protocol proto = {.name = "t", .fields = fields, .n_fields = F_COUNT, .findings = findings,
                                  .n_findings = E_COUNT, .truncated_finding = E_TRUNCATED,
                                  .rest_field = F_REST};

static collect c;
static gw_pdu x;
static bool seen[F_COUNT];
static uint64_t val[F_COUNT];
static gw_span text[F_COUNT];
static uint8_t bytes[256];
static const gw_pdu_info pi = {.frame = 1, .transport = GW_TRANSPORT_UDP};

static void begin(const char *hex)
{
    collect_init(&c);
    size_t n = unhex(hex, bytes);
    gw_pdu_begin(&x, &proto, &c.sink, &pi, bytes, n);
    memset(seen, 0, sizeof seen);
    x.rec = (gw_record){seen, val, text};
}

TestSuite(layout);

Test(layout, numbers_in_the_pdus_order_or_the_steps)
{
    begin("07 01 02 01 02 fe ff ff ff");
    x.big_endian = true;
    const gw_lstep *l = GW_LAYOUT(GW_NUM(F_A, 1, GW_SUM("a=%llu")), GW_NUM(F_B, 2, GW_SUM(" b=%llu")),
                                  GW_NUM(F_B, 2, GW_FLAGS(GW_LF_LE), GW_SUM(" b=%llu")),
                                  GW_NUM(F_SIGNED, 4, GW_FLAGS(GW_LF_LE), GW_SUM(" s=%lld")));
    cr_assert(gw_layout_run(&x, l));
    gw_pdu_finish(&x);
    /* 01 02 big-endian is 258, little-endian 513; fe ff ff ff is -2 */
    cr_assert_str_eq(c.summary, "a=7 b=258 b=513 s=-2");
    cr_assert_eq(collect_get(&c, F_B, 0)->v.u, 258);
    cr_assert_eq(collect_get(&c, F_B, 1)->v.u, 513);
    cr_assert_eq(collect_get(&c, F_SIGNED, 0)->v.i, -2);
    cr_assert(seen[F_A] && val[F_A] == 7 && val[F_B] == 513);
}

Test(layout, running_out_reports_the_field_and_shows_the_rest)
{
    begin("07 01");
    cr_assert_not(gw_layout_run(&x, GW_LAYOUT(GW_NUM(F_A, 1), GW_NUM(F_B, 2), GW_NUM(F_A, 1))));
    cr_assert_eq(collect_count(&c, F_B), 0);
    cr_assert_eq(c.n_findings, 1);
    cr_assert_eq(c.findings[0], E_TRUNCATED);
    cr_assert_eq(c.finding_off[0], 1);
    cr_assert_eq(collect_get(&c, F_REST, 0)->len, 1);
    cr_assert_eq(collect_count(&c, F_A), 1, "nothing read after the failure");
}

Test(layout, padded_text_covers_the_text_and_checks_the_padding)
{
    begin("41 62 00 00 78 00"); /* "Ab", NUL, a non-zero padding byte at 4 */
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_PADDED(F_NAME, 6, E_UNTERMINATED, E_PADDING, GW_SUM("<%s>")))));
    gw_pdu_finish(&x);
    const gw_item *it = collect_get(&c, F_NAME, 0);
    cr_assert_eq(it->off, 0);
    cr_assert_eq(it->len, 2);
    cr_assert_eq(c.n_findings, 1);
    cr_assert_eq(c.findings[0], E_PADDING);
    cr_assert_eq(c.finding_off[0], 4);
    cr_assert_str_eq(c.summary, "<Ab>");
    cr_assert_eq(x.c.off, 6);
    cr_assert(seen[F_NAME] && text[F_NAME].n == 2 && text[F_NAME].p == bytes);

    begin("41 62 63"); /* every byte text: no NUL */
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_PADDED(F_NAME, 3, E_UNTERMINATED, E_PADDING))));
    cr_assert_eq(collect_get(&c, F_NAME, 0)->len, 3);
    cr_assert_eq(c.n_findings, 1);
    cr_assert_eq(c.findings[0], E_UNTERMINATED);

    begin("41 00"); /* two of three bytes */
    cr_assert_not(gw_layout_run(&x, GW_LAYOUT(GW_PADDED(F_NAME, 3, E_UNTERMINATED, E_PADDING))));
    cr_assert_eq(c.findings[0], E_TRUNCATED);
    cr_assert_eq(collect_count(&c, F_NAME), 0);
}

Test(layout, counted_bytes_past_the_end)
{
    /* length 5, 3 bytes left: the step's own finding over the length */
    begin("05 00 00 00 aa bb cc");
    cr_assert_not(gw_layout_run(&x, GW_LAYOUT(GW_COUNTED(F_DATA, F_LEN, 4, E_PAST_END))));
    gw_pdu_finish(&x);
    cr_assert_eq(collect_get(&c, F_LEN, 0)->v.u, 5);
    cr_assert_eq(c.findings[0], E_PAST_END);
    cr_assert_eq(c.finding_off[0], 0);
    cr_assert_eq(collect_get(&c, F_REST, 0)->off, 4);
    cr_assert_eq(collect_get(&c, F_REST, 0)->len, 3);
    cr_assert_str_eq(c.summary, " (length past the end)");

    /* without one: truncated where the data was due */
    begin("05 00 00 00 aa bb cc");
    cr_assert_not(gw_layout_run(&x, GW_LAYOUT(GW_COUNTED(F_DATA, F_LEN, 4, -1))));
    cr_assert_eq(c.findings[0], E_TRUNCATED);
    cr_assert_eq(c.finding_off[0], 4);

    /* a trailing NUL left out of a text, the hook told */
    begin("03 00 00 00 41 62 00");
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_COUNTED(F_NAME, F_LEN, 4, -1, GW_FLAGS(GW_LF_NUL)))));
    cr_assert_eq(collect_get(&c, F_NAME, 0)->len, 2);
    cr_assert_eq(x.c.off, 7);
}

Test(layout, repeats_as_often_as_a_field_says)
{
    begin("03 01 00 02 00 03 00 09");
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_NUM(F_A, 1), GW_REPEAT(F_A), GW_NUM(F_B, 2, GW_SUM(" %llu"),
                                                                             GW_FLAGS(GW_LF_FIRST)),
                                          GW_DONE, GW_NUM(F_A, 1))));
    gw_pdu_finish(&x);
    cr_assert_eq(collect_count(&c, F_B), 3);
    cr_assert_eq(collect_get(&c, F_B, 2)->v.u, 3);
    cr_assert_eq(x.repeats, 3);
    cr_assert_eq(val[F_A], 9, "the step after the block");
    cr_assert_str_eq(c.summary, " 1", "the summary of the first item only");
}

Test(layout, more_items_while_another_fits)
{
    /* two texts whose lengths fit, then 5 bytes whose length (9) does not:
       trailing bytes, not a truncated item */
    begin("01 00 00 00 78 02 00 00 00 79 7a 09 00 00 00 71");
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_MORE(4, GW_FLAGS(GW_LF_FITS)),
                                          GW_COUNTED(F_NAME, F_LEN, 4, E_PAST_END), GW_DONE)));
    cr_assert_eq(x.repeats, 2);
    cr_assert_eq(collect_count(&c, F_NAME), 2);
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(gw_remaining(&x.c), 5);

    /* without GW_LF_FITS only the byte count counts: the third is read
       and its length is past the end */
    begin("01 00 00 00 78 02 00 00 00 79 7a 09 00 00 00 71");
    cr_assert_not(gw_layout_run(&x, GW_LAYOUT(GW_MORE(4), GW_COUNTED(F_NAME, F_LEN, 4, E_PAST_END), GW_DONE)));
    cr_assert_eq(x.repeats, 3);
    cr_assert_eq(c.findings[0], E_PAST_END);
    cr_assert_eq(c.finding_off[0], 11);
}

Test(layout, conditions_and_an_optional_end)
{
    const gw_lstep *l = GW_LAYOUT(GW_NUM(F_A, 1), GW_IF(F_A, GW_CMP_GE, 7), GW_NUM(F_B, 2), GW_DONE,
                                  GW_OPTIONAL, GW_NUM(F_LEN, 4));
    begin("07 01 00");
    cr_assert(gw_layout_run(&x, l), "the optional u32 is missing at the end");
    cr_assert_eq(collect_count(&c, F_B), 1);
    cr_assert_eq(c.n_findings, 0);
    begin("06 01 00 00 00");
    cr_assert(gw_layout_run(&x, l));
    cr_assert_eq(collect_count(&c, F_B), 0, "6 < 7: no B");
    cr_assert_eq(collect_get(&c, F_LEN, 0)->v.u, 1);
    begin("06 01 00");
    cr_assert_not(gw_layout_run(&x, l), "an optional field begun is a truncated one");
    cr_assert_eq(c.findings[0], E_TRUNCATED);
}

Test(layout, a_repeat_that_reads_nothing_ends, .timeout = 5)
{
    /* a count of 4294967295 over a block whose condition never holds: one
       pass, not four billion */
    begin("ff ff ff ff");
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_NUM(F_LEN, 4), GW_REPEAT(F_LEN), GW_IF(F_A, GW_CMP_EQ, 1),
                                          GW_NUM(F_A, 1), GW_DONE, GW_DONE)));
    cr_assert_eq(x.repeats, 1);
    begin("ff ff ff ff");
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_NUM(F_LEN, 4), GW_MORE(0), GW_IF(F_A, GW_CMP_EQ, 1),
                                          GW_NUM(F_A, 1), GW_DONE, GW_DONE)));
    cr_assert_eq(x.repeats, 1);
}

/* ---- a block chosen by a value, and subtrees ------------------------------ */

/* kind 0: one A; kind 1: two Bs (what a truncation there names: "Part");
   kind 2: none */
static const gw_lstep *const cases[3] = {
    GW_LAYOUT(GW_NUM(F_A, 1)),
    GW_LAYOUT(GW_NUM(F_B, 2, GW_WHAT("Part")), GW_NUM(F_B, 2, GW_WHAT("Part"))),
    NULL,
};

Test(layout, a_switch_reads_the_case_of_the_value_read)
{
    const gw_lstep *l = GW_LAYOUT(GW_NUM(F_KIND, 1), GW_SWITCH(F_KIND, cases), GW_NUM(F_A, 1));
    begin("00 07 09");
    cr_assert(gw_layout_run(&x, l));
    cr_assert_eq(collect_count(&c, F_A), 2);
    cr_assert_eq(collect_get(&c, F_A, 0)->v.u, 7);
    cr_assert_eq(collect_get(&c, F_A, 1)->v.u, 9, "the step after the switch follows its case");
    begin("01 01 00 02 01 09");
    cr_assert(gw_layout_run(&x, l));
    cr_assert_eq(collect_get(&c, F_B, 0)->v.u, 1);
    cr_assert_eq(collect_get(&c, F_B, 1)->v.u, 0x102);
    cr_assert_eq(collect_get(&c, F_A, 0)->v.u, 9);
    /* no case for 2 (NULL) nor for 3 (past the table): decoding fails there,
       nothing reported (a check on the value says why) */
    begin("02 09");
    cr_assert_not(gw_layout_run(&x, l));
    cr_assert_eq(c.n_findings, 0);
    cr_assert_eq(collect_count(&c, F_A), 0);
    begin("03 09");
    cr_assert_not(gw_layout_run(&x, l));
    cr_assert_eq(collect_count(&c, F_A), 0);
}

/* what the tree's sink saw, in order: items (with the depth of the subtree
   they are in, and a head's label) and findings (with their message) */
static struct {
    int depth, n;
    struct { int field, depth; size_t off, len; char text[96]; } ev[64];
} seq;
static gw_sink seq_sink;
static void seq_item(void *ctx, const gw_item *it)
{
    (void)ctx;
    if (seq.n < 64)
        seq.ev[seq.n++] = (typeof(seq.ev[0])){it->field, seq.depth, it->off, it->len, ""};
    if (it->label)
        snprintf(seq.ev[seq.n - 1].text, sizeof seq.ev[0].text, "%s", it->label);
    c.sink.item(c.sink.ctx, it);
}
static void seq_push(void *ctx) { (void)ctx; seq.depth++; }
static void seq_pop(void *ctx, size_t end) { (void)ctx; (void)end; seq.depth--; }
static void seq_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    (void)ctx;
    if (seq.n < 64) {
        seq.ev[seq.n] = (typeof(seq.ev[0])){-1 - finding, seq.depth, off, len, ""};
        snprintf(seq.ev[seq.n++].text, sizeof seq.ev[0].text, "%s", msg ? msg : "");
    }
    c.sink.finding(c.sink.ctx, finding, src, off, len, msg);
}
static void begin_tree(const char *hex, bool shown)
{
    begin(hex);
    memset(&seq, 0, sizeof seq);
    seq_sink = (gw_sink){.item = seq_item, .push = seq_push, .pop = seq_pop, .finding = seq_finding,
                         .summary = c.sink.summary, .ctx = c.sink.ctx};
    if (!shown) /* pcaptool validate: no items */
        seq_sink.item = NULL, seq_sink.push = NULL, seq_sink.pop = NULL;
    gw_pdu_begin(&x, &proto, &seq_sink, &pi, bytes, x.c.len);
    x.rec = (gw_record){seen, val, text};
    static const gw_pdu_hooks hooks = {0}; /* checks run */
    x.hooks = &hooks;
}

static unsigned kind_checks, reading[4];
/* a check of each kind: counts its readings; kind 9 is reported on the
   first reading (before the head), kind 1 on the last (in the subtree) */
static void check_kind(gw_pdu *p, size_t off, uint64_t v)
{
    kind_checks++;
    reading[p->reading]++;
    if (v == 1 && gw_reading_last(p))
        gw_emit_finding(&p->e, E_PADDING, off, 1, "kind 1 in the subtree");
    if (v == 1 && gw_reading_first(p))
        gw_emit_finding(&p->e, E_PAST_END, off, 1, "kind 1 before the head");
}
static void label_of(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    uint64_t kind = 99;
    for (unsigned i = 0; i < n; i++)
        if (items[i].field == F_KIND)
            kind = items[i].v.u;
    snprintf(out, size, "Item %u: kind %llu, %u items", p->index, (unsigned long long)kind, n);
}
static const gw_lstep *const items_layout =
    GW_LAYOUT(GW_NUM(F_LEN, 1), GW_REPEAT(F_LEN), GW_TREE(F_HEAD, label_of, GW_FLAGS(GW_LF_AHEAD)),
              GW_NUM(F_KIND, 1, GW_CHECK(check_kind)), GW_SWITCH(F_KIND, cases), GW_DONE, GW_DONE);

Test(layout, a_tree_read_ahead_is_labelled_from_its_items)
{
    kind_checks = 0;
    memset(reading, 0, sizeof reading);
    begin_tree("02 00 07 01 01 00 02 00", true);
    cr_assert(gw_layout_run(&x, items_layout));
    /* Length; head 0 (2 bytes), Kind, A; [finding before head 1]; head 1
       (5 bytes), Kind, [finding in it], B, B */
    int want[][4] = {{F_LEN, 0, 0, 1},  {F_HEAD, 0, 1, 2}, {F_KIND, 1, 1, 1}, {F_A, 1, 2, 1},
                     {-1 - E_PAST_END, 0, 3, 1}, {F_HEAD, 0, 3, 5}, {F_KIND, 1, 3, 1},
                     {-1 - E_PADDING, 1, 3, 1}, {F_B, 1, 4, 2}, {F_B, 1, 6, 2}};
    cr_assert_eq(seq.n, 10);
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(seq.ev[i].field, want[i][0], "event %d", i);
        cr_assert_eq(seq.ev[i].depth, want[i][1], "event %d", i);
        cr_assert_eq(seq.ev[i].off, (size_t)want[i][2], "event %d", i);
        cr_assert_eq(seq.ev[i].len, (size_t)want[i][3], "event %d", i);
    }
    cr_assert_str_eq(seq.ev[1].text, "Item 0: kind 0, 2 items");
    cr_assert_str_eq(seq.ev[5].text, "Item 1: kind 1, 3 items");
    cr_assert_eq(kind_checks, 4, "each block read twice");
    cr_assert_eq(reading[GW_READING_AHEAD], 2);
    cr_assert_eq(reading[GW_READING_AGAIN], 2);
    cr_assert_eq(x.index, 0);
}

/* the same as a repeated block whose items are subtrees */
static const gw_lstep *const items_as_trees =
    GW_LAYOUT(GW_NUM(F_LEN, 1), GW_REPEAT_TREE(F_LEN, F_HEAD, label_of, GW_FLAGS(GW_LF_AHEAD)),
              GW_NUM(F_KIND, 1, GW_CHECK(check_kind)), GW_SWITCH(F_KIND, cases), GW_DONE);

Test(layout, a_repeat_of_subtrees_shows_as_trees_do)
{
    typeof(seq) trees;
    begin_tree("02 00 07 01 01 00 02 00", true);
    cr_assert(gw_layout_run(&x, items_layout));
    trees = seq;
    begin_tree("02 00 07 01 01 00 02 00", true);
    cr_assert(gw_layout_run(&x, items_as_trees));
    cr_assert_eq(seq.n, 10);
    cr_assert(memcmp(&seq, &trees, sizeof seq) == 0);
    begin_tree("02 00 07 01 01 00 02 00", false);
    cr_assert(gw_layout_run(&x, items_as_trees));
    cr_assert_eq(val[F_B], 2);
    cr_assert_eq(x.repeats, 2);
    /* items while bytes are left: the same but for the count */
    begin_tree("00 07 01 01 00 02 00", true);
    cr_assert(gw_layout_run(&x, GW_LAYOUT(GW_MORE_TREE(1, F_HEAD, label_of, GW_FLAGS(GW_LF_AHEAD)),
                                          GW_NUM(F_KIND, 1, GW_CHECK(check_kind)), GW_SWITCH(F_KIND, cases),
                                          GW_DONE)));
    cr_assert_eq(seq.n, 9);
    for (int i = 0; i < 9; i++) {
        cr_assert_eq(seq.ev[i].field, trees.ev[i + 1].field, "event %d", i);
        cr_assert_eq(seq.ev[i].off + 1, trees.ev[i + 1].off, "event %d", i);
    }
    cr_assert_str_eq(seq.ev[4].text, "Item 1: kind 1, 3 items");
}

Test(layout, a_tree_read_ahead_that_runs_out_shows_only_the_failure)
{
    begin_tree("02 00 07 01 01 00 02", true);
    cr_assert_not(gw_layout_run(&x, items_layout));
    /* block 0 whole; block 1 runs out in its second B at offset 6: its
       check's finding, the truncation (named by the step) and the byte left,
       none of its items */
    cr_assert_eq(seq.n, 7);
    cr_assert_eq(seq.ev[3].field, F_A);
    cr_assert_eq(seq.ev[4].field, -1 - E_PAST_END);
    cr_assert_eq(seq.ev[5].field, F_REST);
    cr_assert_eq(seq.ev[5].off, 6);
    cr_assert_eq(seq.ev[5].len, 1);
    cr_assert_eq(seq.ev[5].depth, 0);
    cr_assert_eq(seq.ev[6].field, -1 - E_TRUNCATED);
    cr_assert_str_eq(seq.ev[6].text, "Truncated: Part missing at offset 6");
    cr_assert_eq(collect_count(&c, F_B), 0);
    cr_assert_eq(collect_count(&c, F_HEAD), 1);
}

Test(layout, a_tree_nothing_is_shown_of_is_read_once)
{
    kind_checks = 0;
    memset(reading, 0, sizeof reading);
    begin_tree("02 00 07 01 01 00 02 00", false);
    cr_assert(gw_layout_run(&x, items_layout));
    cr_assert_eq(kind_checks, 2);
    cr_assert_eq(reading[GW_READING_ONCE], 2);
    cr_assert_eq(seq.n, 2, "kind 1's findings, each once");
    cr_assert_eq(val[F_B], 2);
    begin_tree("02 00 07 01 01 00 02", false);
    cr_assert_not(gw_layout_run(&x, items_layout));
    cr_assert_eq(seq.n, 3);
    cr_assert_str_eq(seq.ev[2].text, "Truncated: Part missing at offset 6");
}

Test(layout, a_switch_and_a_tree_written)
{
    uint8_t out[32];
    size_t n;
    /* the case of the kind written */
    cr_assert(gw_layout_write(items_layout, false,
                              GW_WVALS(GW_WU(F_LEN, 2), GW_WU(F_KIND, 1), GW_WU(F_B, 0x201), GW_WU(F_B, 3),
                                       GW_WU(F_KIND, 0), GW_WU(F_A, 7)),
                              out, sizeof out, &n));
    cr_assert_eq(n, 8);
    cr_assert_arr_eq(out, ((uint8_t[]){2, 1, 1, 2, 3, 0, 0, 7}), 8);
    /* a kind no step writes (the decoder derives it): given, it chooses */
    const gw_lstep *derived = GW_LAYOUT(GW_SWITCH(F_KIND, cases), GW_NUM(F_A, 1));
    cr_assert(gw_layout_write(derived, false, GW_WVALS(GW_WU(F_KIND, 0), GW_WU(F_A, 5), GW_WU(F_A, 6)), out,
                              sizeof out, &n));
    cr_assert_eq(n, 2);
    cr_assert_arr_eq(out, ((uint8_t[]){5, 6}), 2);
    /* no case: not written */
    cr_assert_not(gw_layout_write(derived, false, GW_WVALS(GW_WU(F_KIND, 2)), out, sizeof out, &n));
}

/* a length judged before its bytes (GW_LF_LENGTH): where the check was
   called, and with what */
static size_t length_off;
static uint64_t length_seen;
static void check_length(gw_pdu *p, size_t off, uint64_t n)
{
    length_off = off;
    length_seen = n;
    gw_emit_finding(&p->e, E_PADDING, off, 1, "length %llu", (unsigned long long)n);
}
static const gw_lstep *const length_judged =
    GW_LAYOUT(GW_NUM(F_A, 1), GW_COUNTED(F_DATA, F_LEN, 2, -1, GW_FLAGS(GW_LF_LENGTH), GW_CHECK(check_length)),
              GW_NUM(F_A, 1));

Test(layout, a_length_judged_before_its_bytes)
{
    for (int shown = 1; shown >= 0; shown--) {
        /* length 3 at offset 1, two bytes left: the check's finding, then the
           truncation where the bytes were due (offset 3) */
        begin_tree("07 03 00 aa bb", shown);
        if (!shown) /* nothing shown, no summary: the quiet reading */
            seq_sink.summary = NULL, x.sum.off = true;
        length_off = 99;
        cr_assert_not(gw_layout_run(&x, length_judged));
        cr_assert_eq(length_off, 1);
        cr_assert_eq(length_seen, 3);
        cr_assert_eq(c.n_findings, 2);
        cr_assert_eq(c.findings[0], E_PADDING);
        cr_assert_eq(c.findings[1], E_TRUNCATED);
        cr_assert_eq(c.finding_off[1], 3);
        cr_assert_eq(collect_count(&c, F_DATA), 0);
        /* a length of 0: judged, no bytes and no item, the next step read */
        begin_tree("07 00 00 09", shown);
        if (!shown)
            seq_sink.summary = NULL, x.sum.off = true;
        cr_assert(gw_layout_run(&x, length_judged));
        cr_assert_eq(length_seen, 0);
        cr_assert_eq(collect_count(&c, F_DATA), 0);
        cr_assert_eq(val[F_A], 9);
        cr_assert_eq(c.n_findings, 1);
        /* whole: the bytes after the check */
        begin_tree("07 02 00 aa bb 09", shown);
        if (!shown)
            seq_sink.summary = NULL, x.sum.off = true;
        cr_assert(gw_layout_run(&x, length_judged));
        cr_assert(seen[F_DATA] && text[F_DATA].n == 2 && text[F_DATA].p == bytes + 3);
        cr_assert_eq(val[F_A], 9);
    }
    /* written as any counted bytes: the length from the bytes */
    uint8_t out[8];
    size_t n;
    cr_assert(gw_layout_write(length_judged, false,
                              GW_WVALS(GW_WU(F_A, 7), GW_WB(F_DATA, "\xaa\xbb", 2), GW_WU(F_A, 9)), out,
                              sizeof out, &n));
    cr_assert_eq(n, 6);
    cr_assert_arr_eq(out, ((const uint8_t[]){0x07, 0x02, 0x00, 0xaa, 0xbb, 0x09}), 6);
}

static void label_whole(gw_pdu *p, const gw_item *items, unsigned n, char *out, size_t size)
{
    (void)p, (void)items, (void)n;
    snprintf(out, size, "Pair");
}
/* a subtree whose 3 bytes (A and B) are needed whole */
static const gw_lstep *const whole_tree =
    GW_LAYOUT(GW_NUM(F_KIND, 1), GW_TREE(F_HEAD, label_whole, GW_WHAT("Pair"), GW_NEED(3)), GW_NUM(F_A, 1),
              GW_NUM(F_B, 2), GW_DONE, GW_NUM(F_KIND, 1));

Test(layout, a_tree_needed_whole)
{
    for (int shown = 1; shown >= 0; shown--) {
        /* two of its three bytes: truncated at its start (1), "Pair" missing,
           none of its items read */
        begin_tree("05 01 02", shown);
        if (!shown)
            seq_sink.summary = NULL, x.sum.off = true;
        cr_assert_not(gw_layout_run(&x, whole_tree));
        cr_assert_eq(c.n_findings, 1);
        cr_assert_eq(c.findings[0], E_TRUNCATED);
        cr_assert_eq(c.finding_off[0], 1);
        cr_assert_str_eq(seq.ev[seq.n - 1].text, "Truncated: Pair missing at offset 1");
        cr_assert_not(seen[F_A]);
        cr_assert_eq(collect_count(&c, F_HEAD), 0);
        begin_tree("05 01 02 00 06", shown);
        if (!shown)
            seq_sink.summary = NULL, x.sum.off = true;
        cr_assert(gw_layout_run(&x, whole_tree));
        cr_assert_eq(val[F_B], 2);
        cr_assert_eq(val[F_KIND], 6);
        cr_assert_eq(collect_count(&c, F_HEAD), shown ? 1 : 0);
    }
}

static void hook_nothing(gw_pdu *p) { (void)p; }

Test(layout, a_hook_writes_no_bytes)
{
    /* the GW_W_STEP bytes go to the step that reads them, past the hook */
    uint8_t out[8];
    size_t n;
    cr_assert(gw_layout_write(GW_LAYOUT(GW_HOOK(hook_nothing), GW_NUM(F_A, 1), GW_STEP(NULL)), false,
                              GW_WVALS(GW_WU(F_A, 7), GW_WSTEP("ab", 2)), out, sizeof out, &n));
    cr_assert_eq(n, 3);
    cr_assert_arr_eq(out, "\x07" "ab", 3);
}
