/* list.c - pcaptool fields and findings: the tables of the decoder library
 * (and pcaptool's own findings), as lines or as the markdown tables of docs/protocols. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "core/gw_core.h"
#include "pcaptool.h"
#include "run.h"

static void fields_usage(FILE *f)
{
    fputs("Usage: pcaptool fields [--format text|markdown] [-v] [PROTO]\n"
          "\n"
          "List the fields of every protocol (or of PROTO: dnp, openttd, gne, eoudp,\n"
          "opendrakan), one a line: filter name, display name, description, and\n"
          "\"wireshark-two-pass\" for what only Wireshark's second pass shows.\n"
          "\n"
          "  -T, --format text|markdown   tab-separated lines (default), or the table\n"
          "                               of the docs (field, name, meaning)\n"
          "  -v, --values                 the value names instead: a line per name of a\n"
          "                               field's value (field, value or LOW-HIGH, name);\n"
          "                               markdown: the table (field, value, name).\n"
          "                               Some fields also name values by the\n"
          "                               conversation (JSON's \"names\" shows them)\n"
          "  -h, --help                   this help\n"
          "\n"
          "Exit codes: 0, or 2 for an unknown protocol or a usage error.\n",
          f);
}

static void findings_usage(FILE *f)
{
    fputs("Usage: pcaptool findings [--format text|markdown] [PROTO]\n"
          "\n"
          "List the finding codes of every protocol (or of PROTO, or of pcaptool's own\n"
          "\"tcp\" and \"capture\" findings, \"pcaptool\" for both), one a line: code,\n"
          "severity, meaning, and\n"
          "the Wireshark expert group (malformed, protocol, sequence, response_code,\n"
          "undecoded, comment).\n"
          "\n"
          "  -T, --format text|markdown   tab-separated lines (default), or the table\n"
          "                               of the docs (code, severity, meaning)\n"
          "  -h, --help                   this help\n"
          "\n"
          "Exit codes: 0, or 2 for an unknown protocol or a usage error.\n",
          f);
}

static void options_usage(FILE *f)
{
    fputs("Usage: pcaptool options [PROTO]\n"
          "\n"
          "List the decoder options of every protocol (or of PROTO), as --option\n"
          "PROTO.NAME=VALUE sets them (and Wireshark's preferences show them), one a\n"
          "line: PROTO.NAME, the values (the default first), title: description.\n"
          "\n"
          "  -h, --help                   this help\n"
          "\n"
          "Exit codes: 0, or 2 for an unknown protocol or a usage error.\n",
          f);
}

/* proto.name, values (default first, '|'-separated), title: description */
static void print_option(const gw_protocol *p, const gw_option *o)
{
    printf("%s.%s\t", p->name, o->name);
    const char *sep = "";
    for (const gw_choice *c = o->choices; c->token; c++)
        if (c->value == o->default_value) {
            printf("%s", c->token);
            sep = "|";
        }
    for (const gw_choice *c = o->choices; c->token; c++)
        if (c->value != o->default_value) {
            printf("%s%s", sep, c->token);
            sep = "|";
        }
    printf("\t%s: %s\n", o->title, o->description);
}

static int list_options(int argc, char **argv)
{
    const cli_spec spec = {"", NULL, 0, NULL, options_usage};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, NULL, &cc);
    if (rc != CLI_GO)
        return rc;
    if (argc - optind > 1)
        return cli_usage_error("takes at most one protocol ('%s' is one too many)", argv[optind + 1]);
    const char *only = optind < argc ? argv[optind] : NULL;
    if (only && !gw_protocol_by_name(only))
        return cli_usage_error("unknown protocol '%s'", only);
    for (int i = 0; gw_protocols[i]; i++)
        if (!only || !strcmp(only, gw_protocols[i]->name))
            for (int k = 0; k < gw_protocols[i]->n_options; k++)
                print_option(gw_protocols[i], &gw_protocols[i]->options[k]);
    return cli_finish(EXIT_CLEAN);
}

/* code, severity, meaning, Wireshark expert group; or a markdown table row
   (own: one of pcaptool's own findings, which Wireshark does not have) */
static void print_finding(const gw_finding_def *d, bool markdown, bool own)
{
    if (!markdown) {
        printf("%s\t%s\t%s\t%s\n", d->code, gw_severity_name(d->severity), d->summary, gw_group_name(d->group));
        return;
    }
    printf("| `%s` | %s | ", d->code, gw_severity_name(d->severity));
    cli_markdown_cell(d->summary);
    fputs(own ? " (pcaptool only) |\n" : " |\n", stdout);
}

/* filter name, display name, description, "wireshark-two-pass"; or a
   markdown table row */
static void print_field(const gw_field *f, bool markdown)
{
    bool two_pass = f->flags & GW_FIELD_TWO_PASS;
    if (!markdown) {
        printf("%s\t%s\t%s%s\n", f->abbrev, f->name, f->blurb, two_pass ? "\twireshark-two-pass" : "");
        return;
    }
    printf("| `%s` | ", f->abbrev);
    cli_markdown_cell(f->name);
    fputs(" | ", stdout);
    cli_markdown_cell(f->blurb);
    fputs(two_pass ? " (Wireshark's second pass only) |\n" : " |\n", stdout);
}

/* a field's value names: field, value (LOW-HIGH for a range), name; or
   markdown table rows */
static void print_values(const gw_field *f, bool markdown)
{
    for (const gw_value_name *v = f->names; v && v->name; v++) {
        char value[32];
        if (v->max > v->value)
            snprintf(value, sizeof value, "%u-%u", v->value, v->max);
        else
            snprintf(value, sizeof value, "%u", v->value);
        if (!markdown) {
            printf("%s\t%s\t%s\n", f->abbrev, value, v->name);
            continue;
        }
        printf("| `%s` | %s | ", f->abbrev, value);
        cli_markdown_cell(v->name);
        fputs(" |\n", stdout);
    }
}

typedef struct {
    bool markdown, values;
} list_how;

static int list_opt(void *ctx, int c, const char *arg)
{
    list_how *how = ctx;
    if (c == 'v') {
        how->values = true;
        return 0;
    }
    if (strcmp(arg, "text") && strcmp(arg, "markdown"))
        return cli_usage_error("--format takes text or markdown, not '%s'", arg);
    how->markdown = !strcmp(arg, "markdown");
    return 0;
}

static int run_list(int argc, char **argv, bool fields)
{
    static const struct option format[] = {{"format", required_argument, NULL, 'T'},
                                           {"values", no_argument, NULL, 'v'}, {NULL, 0, NULL, 0}};
    static const struct option format_only[] = {{"format", required_argument, NULL, 'T'}, {NULL, 0, NULL, 0}};
    const cli_spec spec = {fields ? "T:v" : "T:", fields ? format : format_only, 0, list_opt,
                           fields ? fields_usage : findings_usage};
    list_how how = {0};
    cli_common cc;
    int rc = cli_parse(argc, argv, &spec, &how, &cc);
    if (rc != CLI_GO)
        return rc;
    bool markdown = how.markdown;
    if (argc - optind > 1)
        return cli_usage_error("takes at most one protocol ('%s' is one too many)", argv[optind + 1]);
    const char *only = optind < argc ? argv[optind] : NULL;
    /* pcaptool's own findings: "tcp", "capture", or "pcaptool" for both */
    bool own = only && (!strcmp(only, "tcp") || !strcmp(only, "capture") || !strcmp(only, "pcaptool"));
    if (only && !gw_protocol_by_name(only) && !(own && !fields))
        return cli_usage_error("unknown protocol '%s'", only);
    if (markdown)
        fputs(how.values ? "| field | value | name |\n|---|---|---|\n"
              : fields   ? "| field | name | meaning |\n|---|---|---|\n"
                         : "| code | severity | meaning |\n|---|---|---|\n",
              stdout);
    for (int i = 0; gw_protocols[i]; i++) {
        const gw_protocol *p = gw_protocols[i];
        if (only && strcmp(only, p->name))
            continue;
        if (fields)
            for (int k = 0; k < p->n_fields; k++) {
                if (how.values)
                    print_values(&p->fields[k], markdown);
                else
                    print_field(&p->fields[k], markdown);
            }
        else
            for (int k = 0; k < p->n_findings; k++)
                print_finding(&p->findings[k], markdown, false);
    }
    if (!fields && (!only || own))
        for (int k = 0; k < RUN_N_FINDINGS; k++)
            if (!only || !strcmp(only, "pcaptool") || g_str_has_prefix(run_findings[k].code, only))
                print_finding(&run_findings[k], markdown, true);
    return cli_finish(EXIT_CLEAN);
}

static int list_fields(int argc, char **argv)
{
    return run_list(argc, argv, true);
}

static int list_findings(int argc, char **argv)
{
    return run_list(argc, argv, false);
}

const subcommand cmd_fields = {"fields", "[PROTO]", "list the fields (filter names) of every protocol",
                               list_fields, fields_usage};
const subcommand cmd_findings = {"findings", "[PROTO]", "list the finding codes with severity and meaning",
                                 list_findings, findings_usage};
const subcommand cmd_options = {"options", "[PROTO]", "list the decoder options (--option PROTO.NAME=VALUE)",
                                list_options, options_usage};

