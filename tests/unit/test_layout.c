/* Unit tests of the layout interpreter (common/core/gw_layout.c) on a protocol
 * of its own: byte vectors written by hand, the values each step must read
 * from them worked out by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "collect.h"
#include "core/gw_layout.h"

enum { F_A, F_B, F_SIGNED, F_NAME, F_LEN, F_DATA, F_REST, F_COUNT };
enum { E_TRUNCATED, E_UNTERMINATED, E_PADDING, E_PAST_END, E_COUNT };

static const gw_field fields[F_COUNT] = {
    [F_A] = {"t.a", "A", GW_FT_U8, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_B] = {"t.b", "B", GW_FT_U16, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_SIGNED] = {"t.signed", "Signed", GW_FT_I32, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_NAME] = {"t.name", "Player name", GW_FT_STRING, GW_BASE_NONE, NULL, 0, "", 0, -1},
    [F_LEN] = {"t.len", "Length", GW_FT_U32, GW_BASE_DEC, NULL, 0, "", 0, -1},
    [F_DATA] = {"t.data", "Data", GW_FT_BYTES, GW_BASE_NONE, NULL, 0, "", 0, -1},
    [F_REST] = {"t.rest", "Rest", GW_FT_BYTES, GW_BASE_NONE, NULL, 0, "", 0, -1},
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
