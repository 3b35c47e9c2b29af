/* Unit tests of pcaptool's display filters (pcaptool/dfilter.c): the
 * errors and their columns, precedence, and each operator, tested against
 * PDUs the DNP decoder made of bytes checked by hand (tests/dnp/test_dnp.c:
 * denetwork's captured link state, wire-facts 1.14). What tshark does with
 * the same filters on real captures is tests/dfilter_check.py. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "dfilter.h"
#include "dnp/dnp.h"

PROTOCOL_SUITE(dfilter, gw_dnp_protocol);

/* the link state denetwork sent (wire-facts 1.14): command 5 (Link state),
   reliable number 0, link 0, flags 01 (read-only), message 01, two values:
   the string "Sat Nov 21 06:14:44 2026" (type 11) and the int8 30 (type 2) */
#define CAPTURED_LINK_STATE \
    "05 0000 0000 01 0100 01 0200 0b 1800 536174204e6f762032312030363a31343a34342032303236 02 1e00"

static bool selects(const char *text)
{
    char err[256];
    int col, width;
    dfilter *df = dfilter_compile(text, err, sizeof err, &col, &width);
    cr_assert_not_null(df, "'%s': column %d: %s", text, col, err);
    dfilter_eval *ev = dfilter_eval_new(df);
    dfilter_record r = {P, c.items, (size_t)c.n_items, sizeof(gw_item), c.findings, (size_t)c.n_findings, sizeof(int)};
    bool m = dfilter_match(ev, &r);
    dfilter_eval_free(ev);
    dfilter_free(df);
    return m;
}

#define YES(f) cr_expect(selects(f), "'%s' should select the PDU", f)
#define NO(f) cr_expect(!selects(f), "'%s' should not select the PDU", f)

/* the filter is refused at column col (1-based), with a reason holding what */
static void refused(const char *text, int col, const char *what)
{
    char err[256];
    int at = -1, width = -1;
    dfilter *df = dfilter_compile(text, err, sizeof err, &at, &width);
    cr_assert_null(df, "'%s' was accepted", text);
    cr_expect_eq(at, col, "'%s': column %d, not %d (%s)", text, at, col, err);
    cr_expect(width >= 1);
    cr_expect(strstr(err, what), "'%s': \"%s\" does not say \"%s\"", text, err, what);
    cr_expect(!strchr(err, '\n'), "one line");
}

Test(dfilter, errors_name_their_column)
{
    refused("openttd.packet == 3 and openttd.pakcet == 2", 25, "unknown field \"openttd.pakcet\"");
    refused("dnp.sequence", 1, "unknown field");
    refused("dnp.seq ==", 11, "expected a value after \"==\", found the end of the filter");
    refused("dnp.seq == 1 and", 17, "expected a field");
    refused("dnp.seq == 1 AND dnp", 14, "unexpected \"AND\"");
    refused("(dnp.seq == 1", 14, "expected ')' to close the '(' of column 1");
    refused("dnp.seq == 1)", 13, "unexpected \")\"");
    refused("dnp.seq = 1", 9, "unexpected character '='");
    refused("dnp.value.string == \"abc", 21, "no closing quote");
    refused("dnp.value.string == \"a\\qb\"", 23, "\\q is not a valid escape");
    refused("dnp.value.string == \"\\x4\"", 22, "\\x needs 2 hex digits");
    refused("dnp.command == \"Link\"", 16, "\"Link\" is not among the value names of dnp.command");
    refused("dnp.seq == \"1\"", 12, "has no value names");
    refused("dnp.command == 256", 16, "too big for this field, maximum 255");
    refused("dnp.value.sint < -9223372036854775809", 18, "too small");
    refused("dnp.command == 1.5", 16, "not an integer");
    refused("dnp.command contains 01", 22, "\"contains\" is for strings");
    refused("dnp.value.string matches abc", 26, "regular expression in double quotes");
    refused("dnp.value.string matches \"(\"", 26, "bad regular expression");
    refused("dnp == 1", 1, "is a protocol: only its presence");
    refused("dnp.truncated == 1", 1, "is a finding: only its presence");
    refused("dnp.link == 1", 1, "label without a value");
    refused("dnp.seq == dnp.link_id", 12, "comparing two fields");
    refused("dnp.value.float == abc", 20, "not a number");
    refused("dnp.flags.read_only == yes", 24, "boolean");
    refused("dnp.message == 0g", 16, "byte string");
    refused("gne.packet.id == \"User packet\"", 18, "names the values 16 to 254");
    refused("not not", 8, "expected a field");
    refused("dnp.seq > 1 && é", 16, "unexpected character 'é'");
}

Test(dfilter, error_message_shows_the_place)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    dfilter_print_error(f, "dnp and openttd.pakcet", "unknown field \"openttd.pakcet\"", 9, 14);
    fclose(f);
    cr_expect_str_eq(buf, "pcaptool: -Y: column 9: unknown field \"openttd.pakcet\"\n"
                          "    dnp and openttd.pakcet\n"
                          "            ^~~~~~~~~~~~~~\n");
    free(buf);
}

Test(dfilter, empty_selects_all)
{
    collect_decode(&c, P, conv, 3, 0, 1, CAPTURED_LINK_STATE);
    YES("");
    YES("  ");
}

Test(dfilter, precedence)
{
    collect_decode(&c, P, conv, 3, 0, 1, CAPTURED_LINK_STATE);
    /* "and" binds tighter than "or": T or (F and F) */
    YES("dnp.command == 5 or dnp.seq == 1 and dnp.seq == 2");
    NO("(dnp.command == 5 or dnp.seq == 1) and dnp.seq == 2");
    YES("dnp.seq == 1 and dnp.seq == 2 || dnp.command == 5");
    /* "not" tighter than "and": (not F) and F */
    NO("not dnp.seq == 1 and dnp.seq == 1");
    YES("not (dnp.seq == 1 and dnp.seq == 1)");
    YES("!dnp.seq == 1 && !(dnp.seq == 2)");
    YES("not not dnp.seq == 0");
    YES("((dnp))");
}

Test(dfilter, equality_over_several_occurrences)
{
    collect_decode(&c, P, conv, 3, 0, 1, CAPTURED_LINK_STATE);
    /* dnp.value.type occurs twice: 11 and 2 */
    YES("dnp.value.type == 2");
    YES("dnp.value.type eq 11");
    YES("dnp.value.type any_eq 11");
    NO("dnp.value.type == 3");
    /* != is "none equals" (Wireshark 4.0: the same as !(a == b)) */
    NO("dnp.value.type != 2");
    NO("dnp.value.type ne 11");
    YES("dnp.value.type != 3");
    YES("dnp.value.type all_ne 3");
    /* === every occurrence, !== and ~= some occurrence differs */
    NO("dnp.value.type === 2");
    NO("dnp.value.type all_eq 2");
    YES("dnp.value.type === 2 or dnp.seq === 0");
    YES("dnp.value.type !== 2");
    YES("dnp.value.type ~= 11");
    YES("dnp.value.type any_ne 11");
    NO("dnp.seq !== 0");
    /* a field the PDU lacks: no comparison holds, != neither */
    NO("dnp.ack_code == 0");
    NO("dnp.ack_code != 0");
    NO("dnp.ack_code !== 0");
    YES("not dnp.ack_code");
}

Test(dfilter, order)
{
    collect_decode(&c, P, conv, 3, 0, 1, CAPTURED_LINK_STATE);
    YES("dnp.value.type > 10");
    YES("dnp.value.type gt 10");
    NO("dnp.value.type > 11");
    YES("dnp.value.type >= 11");
    YES("dnp.value.type ge 11");
    NO("dnp.value.type >= 12");
    YES("dnp.value.type < 3");
    YES("dnp.value.type lt 3");
    NO("dnp.value.type < 2");
    YES("dnp.value.type <= 2");
    YES("dnp.value.type le 2");
    NO("dnp.value.type <= 1");
    /* signed: the int8 30 */
    YES("dnp.value.sint == 30");
    YES("dnp.value.sint > -1");
    NO("dnp.value.sint < -5");
    NO("dnp.seq == -1"); /* below any unsigned value, as tshark takes it */
    YES("dnp.seq > -1");
}

Test(dfilter, numbers_names_booleans)
{
    collect_decode(&c, P, conv, 3, 0, 1, CAPTURED_LINK_STATE);
    YES("dnp.command == 5");
    YES("dnp.command == 0x05");
    YES("dnp.command == 005"); /* octal, as Wireshark reads it */
    NO("dnp.command == 010");
    /* value names: any case, quoted or not, and ordered by their value */
    YES("dnp.command == \"Link state\"");
    YES("dnp.command == \"LINK STATE\"");
    NO("dnp.command == Message");
    YES("dnp.command > \"Message\"");
    /* a masked boolean: any number but 0 is true */
    YES("dnp.flags.read_only == 1");
    YES("dnp.flags.read_only == true");
    YES("dnp.flags.read_only == \"True\"");
    YES("dnp.flags.read_only == 2");
    NO("dnp.flags.read_only == 0");
    NO("dnp.flags.read_only == false");
    /* presence of fields, protocols; dnp.flags 01 */
    YES("dnp.flags == 0x01 and dnp.value.string and dnp");
    NO("openttd");
    YES("not openttd");
    NO("openttd.name == \"x\" or gne");
}

Test(dfilter, strings_and_bytes)
{
    collect_decode(&c, P, conv, 3, 0, 1, CAPTURED_LINK_STATE);
    YES("dnp.value.string == \"Sat Nov 21 06:14:44 2026\"");
    NO("dnp.value.string == \"Sat Nov 21 06:14:44\"");
    YES("dnp.value.string contains \"06:14\"");
    NO("dnp.value.string contains \"06:15\"");
    YES("dnp.value.string contains \"\\x53at\""); /* escapes: \x53 and \123 are 'S' */
    YES("dnp.value.string contains \"\\123at\"");
    YES("dnp.value.string contains \"\\u0053at\"");
    YES("dnp.value.string matches \"^Sat .* 2026$\"");
    NO("dnp.value.string matches \"^sat\""); /* case-sensitive, as tshark */
    YES("dnp.value.string matches \"(?i)^sat\"");
    YES("dnp.value.string ~ \"\\\\d{2}:\\\\d{2}\"");
    YES("dnp.value.string > \"Sat\"");
    NO("dnp.value.string < \"Sat\"");
    /* bytes: hex with or without separators, or text */
    YES("dnp.message == 01");
    YES("dnp.message contains 01");
    YES("dnp.message == \"\\x01\"");
    NO("dnp.message == 01:02");
    NO("dnp.message contains 0102");
}

Test(dfilter, floats_times_findings)
{
    /* link 0 = [Float16, UInt32], then the update: float16 -2.5, uint32 99 */
    collect_decode(&c, P, conv, 5, 0, 1, "05 0000 0000 00 0000 0200 08 0000 05 00000000");
    collect_decode(&c, P, conv, 9, 0, 1, "09 01 0000 02 0000 00c1 0100 63000000");
    YES("dnp.value.float == -2.5");
    YES("dnp.value.float == -25e-1");
    YES("dnp.value.float < -2");
    NO("dnp.value.float > -2.5");
    YES("dnp.value.uint == 99 && dnp.value.uint <= 0x63");
    /* the reliable #0, acked 10 ms later: dnp.ack.time 0.01 s */
    collect_decode(&c, P, conv, 1, 0, 1, "04 0000 aa");
    collect_decode(&c, P, conv, 2, 10000000, 0, "06 0000 00");
    YES("dnp.ack.time == 0.01");
    YES("dnp.ack.time > 0.009 and dnp.ack.time < 0.011");
    NO("dnp.ack.time > 0.01");
    YES("dnp.ack_code == \"Success\"");
    /* a finding's code: presence */
    collect_decode(&c, P, conv, 3, 0, 1, "05 00");
    YES("dnp.truncated");
    YES("dnp.truncated and dnp.command == 5");
    NO("not dnp.truncated");
    NO("dnp.seq.outside_window");
}

Test(dfilter, a_finding_alone)
{
    /* a finding a conversation's end reports: protocol and code select it,
       fields cannot; a transport finding (no protocol) only "not ..." */
    char err[256];
    int col, width;
    dfilter *df = dfilter_compile("dnp.ack.missing or not dnp.seq == 1", err, sizeof err, &col, &width);
    dfilter *proto = dfilter_compile("dnp && !dnp.seq", err, sizeof err, &col, &width);
    dfilter *field = dfilter_compile("dnp.seq == 0 || openttd", err, sizeof err, &col, &width);
    cr_assert(df && proto && field);
    dfilter_eval *e1 = dfilter_eval_new(df), *e2 = dfilter_eval_new(proto), *e3 = dfilter_eval_new(field);
    cr_expect(dfilter_match_finding(e1, P, DNP_E_ACK_MISSING));
    cr_expect(dfilter_match_finding(e2, P, DNP_E_ACK_MISSING));
    cr_expect(!dfilter_match_finding(e3, P, DNP_E_ACK_MISSING));
    cr_expect(dfilter_match_finding(e1, NULL, 0));
    cr_expect(!dfilter_match_finding(e2, NULL, 0));
    dfilter_eval_free(e1);
    dfilter_eval_free(e2);
    dfilter_eval_free(e3);
    dfilter_free(df);
    dfilter_free(proto);
    dfilter_free(field);
}

Test(dfilter, nesting_and_length_are_bounded)
{
    GString *s = g_string_new(NULL);
    for (int k = 0; k < 300; k++)
        g_string_append_c(s, '(');
    g_string_append(s, "dnp");
    refused(s->str, 201, "nested too deeply");
    g_string_truncate(s, 0);
    g_string_append(s, "dnp");
    while (s->len <= 16384)
        g_string_append(s, " or dnp");
    refused(s->str, 16385, "longer than 16384 bytes");
    g_string_free(s, TRUE);
}
