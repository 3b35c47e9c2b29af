/* conform_report.c - pcaptool conform's reports (conform.h): a line per
 * case or JSON Lines on standard output, JUnit XML, one self-contained
 * HTML page with each case's exchange drawn as a sequence diagram, and the
 * pcapng of every case's traffic with a comment per case. */
#include <stdio.h>
#include <string.h>

#include "conform.h"
#include "pcaptool.h"
#include "peer.h"

static const char *role_name(unsigned role)
{
    return role == GW_ROLE_SERVER ? "server" : "client";
}

static void json_str(FILE *f, const char *s)
{
    out_json_string(f, (const uint8_t *)s, strlen(s));
}

static const char *verdict_upper(gw_verdict v)
{
    static const char *const names[GW_N_VERDICTS] = {"PASS", "NON-STRICT", "FAIL", "INFO", "SKIPPED"};
    return v < GW_N_VERDICTS ? names[v] : "?";
}

/* the terminal's colour for a verdict (ANSI SGR: green, yellow, bold red,
   blue, grey), and back to plain */
#define SGR_PLAIN "\033[0m"
static const char *verdict_sgr(gw_verdict v)
{
    static const char *const sgr[GW_N_VERDICTS] = {"\033[32m", "\033[33m", "\033[1;31m", "\033[34m", "\033[90m"};
    return v < GW_N_VERDICTS ? sgr[v] : SGR_PLAIN;
}

/* ---- --dry-run ------------------------------------------------------------------ */

static void json_case_text(FILE *f, const gw_conform_case *c)
{
    fputs("\"case\":", f);
    json_str(f, c->id);
    fputs(",\"title\":", f);
    json_str(f, c->title);
    fputs(",\"source\":", f);
    json_str(f, c->source);
    fputs(",\"text\":", f);
    json_str(f, c->text);
    fprintf(f, ",\"strength\":\"%s\"", gw_strength_name(c->strength));
    fputs(",\"sends\":", f);
    json_str(f, c->sends);
    fputs(",\"expects\":", f);
    json_str(f, c->expects);
}

void conform_write_catalogue(const conform_run *r, out_format fmt, bool markdown)
{
    if (markdown)
        fputs("| case | what it checks | the text | strength | pcaptool sends | a conforming implementation |\n"
              "|---|---|---|---|---|---|\n", stdout);
    for (unsigned i = 0; i < r->n; i++) {
        const gw_conform_case *c = r->results[i].c;
        if (markdown) {
            printf("| `%s` | ", c->id);
            cli_markdown_cell(c->title);
            fputs(" | ", stdout);
            cli_markdown_cell(c->source);
            fputs(": \"", stdout);
            cli_markdown_cell(c->text);
            printf("\" | %s | ", gw_strength_name(c->strength));
            cli_markdown_cell(c->sends);
            fputs(" | ", stdout);
            cli_markdown_cell(c->expects);
            fputs(" |\n", stdout);
        } else if (fmt == OUT_JSON) {
            fprintf(stdout, "{\"protocol\":\"%s\",\"role\":\"%s\",", r->p->name, role_name(r->role));
            json_case_text(stdout, c);
            fputs("}\n", stdout);
        } else {
            fprintf(stdout, "%s\n  %s\n  rule:    %s: \"%s\"\n  strength: %s\n  sends:   %s\n  expects: %s\n", c->id,
                    c->title, c->source, c->text, gw_strength_name(c->strength), c->sends, c->expects);
        }
    }
    const gw_conform_setting *st = gw_conform_of(r->p)->settings;
    if (st && st->name && !markdown && fmt == OUT_TEXT) {
        fputs("settings (--set NAME=VALUE):\n", stdout);
        for (; st->name; st++)
            printf("  %-14s %s\n", st->name, st->description);
    }
    if (fmt == OUT_TEXT && !markdown)
        fprintf(cli_report, "%u %s case%s for the implementation as %s (nothing was sent)\n", r->n,
                r->p->short_name, r->n == 1 ? "" : "s", role_name(r->role));
    cli_stdout_failed();
}

/* ---- a case ---------------------------------------------------------------------- */

/* "UDP " before a PDU's summary when the catalogue runs over two transports */
static const char *transport_tag(const conform_run *r, const conform_pdu *q)
{
    if (!gw_conform_of(r->p)->link)
        return "";
    return q->transport == GW_TRANSPORT_TCP ? "TCP " : "UDP ";
}

/* what ended the exchange when a wait did (silence or the connection's
   end), as a sentence; NULL when a PDU decided or nothing did */
static const char *ended_text(const conform_result *x, char *buf, size_t n)
{
    if (x->ended == GW_CLOSED)
        return "the connection ended";
    if (x->ended != GW_SILENT)
        return NULL;
    int64_t from = x->ended_after ? g_array_index(x->pdus, conform_pdu, x->ended_after - 1).time_ns : 0;
    snprintf(buf, n, "nothing came for %.3f s", (double)(x->ended_ns - from) / 1e9);
    return buf;
}

static void text_exchange(FILE *f, const conform_run *r, const conform_result *x)
{
    if (x->not_kept)
        fprintf(f, "    (%u more PDUs, %llu %s, past what a case keeps: read, decoded, not kept)\n", x->not_kept,
                (unsigned long long)x->not_kept_bytes, gw_bytes(x->not_kept_bytes));
    char buf[64];
    const char *ended = ended_text(x, buf, sizeof buf);
    for (guint k = 0; k <= x->pdus->len; k++) {
        if (ended && k == x->ended_after)
            fprintf(f, "    . %7.3f s  (%s)   <- decided\n", x->ended_ns / 1e9, ended);
        if (k == x->pdus->len)
            break;
        const conform_pdu *q = &g_array_index(x->pdus, conform_pdu, k);
        fprintf(f, "    %s %7.3f s  %s%s%s\n", q->ours ? ">" : "<", q->time_ns / 1e9, transport_tag(r, q), q->summary,
                x->decisive == k + 1 ? "   <- decided" : "");
        for (guint j = 0; j < q->findings->len; j++) {
            const conform_finding *cf = &g_array_index(q->findings, conform_finding, j);
            const gw_finding_def *d = &r->p->findings[cf->finding];
            fprintf(f, "                 %s %s: %s\n", gw_severity_name(d->severity), d->code, cf->message);
        }
    }
}

static void json_exchange(FILE *f, const conform_run *r, const conform_result *x)
{
    fputs(",\"exchange\":[", f);
    for (guint k = 0; k < x->pdus->len; k++) {
        const conform_pdu *q = &g_array_index(x->pdus, conform_pdu, k);
        fprintf(f, "%s{\"from\":\"%s\",\"transport\":\"%s\",\"time\":%.6f,\"len\":%zu,\"summary\":", k ? "," : "",
                q->ours ? "pcaptool" : "implementation", q->transport == GW_TRANSPORT_TCP ? "tcp" : "udp",
                q->time_ns / 1e9, q->len);
        json_str(f, q->summary);
        fprintf(f, ",\"echo\":%s,\"decisive\":%s,\"findings\":[", q->echo ? "true" : "false",
                x->decisive == k + 1 ? "true" : "false");
        for (guint j = 0; j < q->findings->len; j++) {
            const conform_finding *cf = &g_array_index(q->findings, conform_finding, j);
            const gw_finding_def *d = &r->p->findings[cf->finding];
            fprintf(f, "%s{\"code\":\"%s\",\"severity\":\"%s\",\"message\":", j ? "," : "", d->code,
                    gw_severity_name(d->severity));
            json_str(f, cf->message);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputc(']', f);
    /* what decided when no PDU did: the silence or the connection's end */
    if (x->ended == GW_SILENT || x->ended == GW_CLOSED)
        fprintf(f, ",\"ended\":{\"by\":\"%s\",\"time\":%.6f}", x->ended == GW_SILENT ? "silence" : "close",
                x->ended_ns / 1e9);
}

void conform_write_case(conform_run *r, unsigned i, out_format fmt, bool verbose)
{
    const conform_result *x = &r->results[i];
    r->count[x->verdict]++;
    if (conform_fails(r, x->verdict))
        r->failed++;
    if (fmt == OUT_JSON) {
        fprintf(stdout, "{\"protocol\":\"%s\",\"role\":\"%s\",", r->p->name, role_name(r->role));
        json_case_text(stdout, x->c);
        fprintf(stdout, ",\"verdict\":\"%s\",\"fails\":%s,\"outcome\":", gw_verdict_name(x->verdict),
                conform_fails(r, x->verdict) ? "true" : "false");
        json_str(stdout, x->outcome);
        fprintf(stdout, ",\"seconds\":%.3f,\"local\":", x->seconds);
        json_str(stdout, x->local);
        fputs(",\"peer\":", stdout);
        json_str(stdout, x->peer);
        fprintf(stdout, ",\"not_kept\":{\"pdus\":%u,\"bytes\":%llu}", x->not_kept, (unsigned long long)x->not_kept_bytes);
        json_exchange(stdout, r, x);
        fputs("}\n", stdout);
        fflush(stdout);
    } else if (cli_report) {
        fprintf(cli_report, "%s%-10s%s  %-42s  %s\n", r->color ? verdict_sgr(x->verdict) : "",
                verdict_upper(x->verdict), r->color ? SGR_PLAIN : "", x->c->id, x->outcome);
        if (verbose)
            text_exchange(cli_report, r, x);
        fflush(cli_report);
    }
    cli_stdout_failed();
}

void conform_write_summary(const conform_run *r, out_format fmt)
{
    if (fmt == OUT_JSON) {
        fprintf(stdout, "{\"summary\":{\"protocol\":\"%s\",\"role\":\"%s\",\"target\":", r->p->name,
                role_name(r->role));
        json_str(stdout, r->target);
        fprintf(stdout, ",\"cases\":%u,\"run\":%u", r->n, r->done);
        for (int v = 0; v < GW_N_VERDICTS; v++) {
            char key[16];
            g_strlcpy(key, gw_verdict_name((gw_verdict)v), sizeof key);
            g_strdelimit(key, "-", '_');
            fprintf(stdout, ",\"%s\":%u", key, r->count[v]);
        }
        fprintf(stdout, ",\"failed\":%u,\"strict\":%s,\"error\":", r->failed, r->strict ? "true" : "false");
        if (r->error)
            json_str(stdout, r->error);
        else
            fputs("null", stdout);
        fprintf(stdout, ",\"started\":\"%s\",\"pcaptool\":\"%s\",\"command\":", r->started, PCAPTOOL_VERSION);
        json_str(stdout, r->command);
        fputs("}}\n", stdout);
    } else if (cli_report) {
        fprintf(cli_report, "%s %s at %s: %u of %u case%s run: %u pass, %u non-strict, %u fail, %u info, %u skipped%s\n",
                r->p->short_name, role_name(r->role), r->target, r->done, r->n, r->n == 1 ? "" : "s",
                r->count[GW_PASS], r->count[GW_NON_STRICT], r->count[GW_FAIL], r->count[GW_INFO],
                r->count[GW_SKIPPED], r->strict ? " (strict)" : "");
    }
    cli_stdout_failed();
}

/* ---- JUnit ------------------------------------------------------------------------- */

bool conform_write_junit(const conform_run *r, const char *path)
{
    FILE *f = cli_open_report(path);
    if (!f)
        return false;
    unsigned failures = 0, skipped = 0;
    for (unsigned i = 0; i < r->done; i++) {
        failures += conform_fails(r, r->results[i].verdict);
        skipped += r->results[i].verdict == GW_SKIPPED;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pcaptool conform\">\n"
          "  <testsuite name=\"", f);
    char *suite = g_strdup_printf("%s %s at %s", r->p->short_name, role_name(r->role), r->target);
    out_xml_text(f, suite);
    g_free(suite);
    /* timestamp: JUnit's, local-less ISO 8601 (the run's start, UTC) */
    fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" timestamp=\"%.19s\">\n",
            r->done + (r->error != NULL), failures, r->error != NULL, skipped, r->started);
    fprintf(f, "    <properties>\n      <property name=\"pcaptool.version\" value=\"%s\"/>\n"
               "      <property name=\"command\" value=\"", PCAPTOOL_VERSION);
    out_xml_text(f, r->command);
    fputs("\"/>\n    </properties>\n", f);
    for (unsigned i = 0; i < r->done; i++) {
        const conform_result *x = &r->results[i];
        fprintf(f, "    <testcase classname=\"conform.%s.%s\" name=\"", r->p->name, role_name(r->role));
        out_xml_text(f, x->c->id);
        fprintf(f, "\" time=\"%.3f\">\n", x->seconds);
        if (conform_fails(r, x->verdict)) {
            fprintf(f, "      <failure type=\"%s\" message=\"", gw_verdict_name(x->verdict));
            out_xml_text(f, x->outcome);
            fputs("\">", f);
            out_xml_text(f, x->c->expects);
            fputs("</failure>\n", f);
        } else if (x->verdict == GW_SKIPPED) {
            fputs("      <skipped message=\"", f);
            out_xml_text(f, x->outcome);
            fputs("\"/>\n", f);
        }
        fprintf(f, "      <system-out>%s: ", gw_verdict_name(x->verdict));
        out_xml_text(f, x->outcome);
        fputs("</system-out>\n    </testcase>\n", f);
    }
    if (r->error) {
        fprintf(f, "    <testcase classname=\"conform.%s.%s\" name=\"reach the implementation\">\n"
                   "      <error type=\"unreachable\" message=\"", r->p->name, role_name(r->role));
        out_xml_text(f, r->error);
        fputs("\"/>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return cli_close_report(f, path);
}

/* ---- pcapng ------------------------------------------------------------------------- */

static void put32(GByteArray *b, uint32_t v)
{
    g_byte_array_append(b, (const uint8_t *)&v, 4); /* the section's byte order is ours */
}

static void pad4(GByteArray *b)
{
    static const uint8_t zero[4];
    g_byte_array_append(b, zero, (4 - b->len % 4) % 4);
}

/* a block: type, then body (padded), its length before and after */
static bool write_block(FILE *f, uint32_t type, GByteArray *body)
{
    pad4(body);
    uint32_t len = body->len + 12;
    return fwrite(&type, 4, 1, f) == 1 && fwrite(&len, 4, 1, f) == 1 &&
           fwrite(body->data, 1, body->len, f) == body->len && fwrite(&len, 4, 1, f) == 1;
}

/* an enhanced packet block of frame f[0..n) at wall_ns, with a comment
   when c is not NULL */
static bool write_packet(FILE *out, GByteArray *b, int64_t wall_ns, const uint8_t *f, size_t n, const char *c)
{
    uint64_t us = (uint64_t)(wall_ns / 1000);
    g_byte_array_set_size(b, 0);
    put32(b, 0);
    put32(b, (uint32_t)(us >> 32));
    put32(b, (uint32_t)us);
    put32(b, (uint32_t)n);
    put32(b, (uint32_t)n);
    g_byte_array_append(b, f, (guint)n);
    pad4(b);
    if (c) {
        size_t cl = strlen(c);
        uint16_t code = 1, len16 = (uint16_t)(cl > 65000 ? 65000 : cl);
        g_byte_array_append(b, (const uint8_t *)&code, 2);
        g_byte_array_append(b, (const uint8_t *)&len16, 2);
        g_byte_array_append(b, (const uint8_t *)c, len16);
        pad4(b);
        put32(b, 0); /* end of options */
    }
    return write_block(out, 6, b);
}

/* a case's TCP connections in --out, by pcaptool's port: sequence numbers
   (ours, the implementation's) */
#define OUT_CONNECTIONS 32
typedef struct {
    uint16_t port[OUT_CONNECTIONS];
    uint32_t seq[OUT_CONNECTIONS][2];
    unsigned n;
    uint32_t spare[2]; /* past OUT_CONNECTIONS: one count for the rest */
} out_connections;

/* the sequence numbers of the case's connection from pcaptool's `port`;
   *opened: it is new (its handshake goes first) */
static uint32_t *connection_seq(out_connections *c, uint16_t port, bool *opened)
{
    *opened = false;
    for (unsigned i = 0; i < c->n; i++)
        if (c->port[i] == port)
            return c->seq[i];
    if (c->n == OUT_CONNECTIONS)
        return c->spare;
    *opened = true;
    c->port[c->n] = port;
    c->seq[c->n][0] = c->seq[c->n][1] = 1;
    return c->seq[c->n++];
}

bool conform_write_pcapng(const conform_run *r, const char *path)
{
    FILE *f = cli_open_report(path);
    if (!f)
        return false;
    GByteArray *b = g_byte_array_new();
    put32(b, 0x1A2B3C4D); /* section header: byte-order magic, version 1.0, length unknown */
    put32(b, 1);
    put32(b, 0xffffffff);
    put32(b, 0xffffffff);
    bool ok = write_block(f, 0x0A0D0D0A, b);
    g_byte_array_set_size(b, 0);
    put32(b, 101); /* interface: LINKTYPE_RAW, reserved 0; snap length */
    put32(b, 65535);
    ok = ok && write_block(f, 1, b);
    static uint8_t frame[65535];
    for (unsigned i = 0; i < r->done && ok; i++) {
        const conform_result *x = &r->results[i];
        out_connections conns = {.n = 0, .spare = {1, 1}};
        /* the case, on its first frame */
        char *comment = g_strdup_printf("pcaptool %s %s: %s: %s", r->subcommand ? r->subcommand : "conform", x->c->id,
                                        gw_verdict_name(x->verdict), x->outcome);
        bool we_connect = r->role == GW_ROLE_SERVER;
        for (guint k = 0; k < x->pdus->len && ok; k++) {
            const conform_pdu *q = &g_array_index(x->pdus, conform_pdu, k);
            int way = q->ours ? 0 : 1;
            struct sockaddr_storage local = x->local_addr;
            peer_set_port(&local, q->local_port);
            bool tcp = q->transport == GW_TRANSPORT_TCP, opened = false;
            uint32_t udp_seq[2] = {0, 0}, *seq = tcp ? connection_seq(&conns, q->local_port, &opened) : udp_seq;
            for (int h = 0; opened && h < 3 && ok; h++) { /* a new connection: its handshake first */
                size_t n = peer_tcp_open(frame, h, we_connect ? &local : &x->peer_addr,
                                         we_connect ? &x->peer_addr : &local);
                ok = write_packet(f, b, q->wall_ns, frame, n, comment);
                g_clear_pointer(&comment, g_free);
            }
            size_t n = peer_frame(frame, q->ours ? &local : &x->peer_addr, q->ours ? &x->peer_addr : &local, tcp,
                                  &seq[way], seq[!way], q->data, q->len);
            ok = ok && write_packet(f, b, q->wall_ns, frame, n, comment);
            g_clear_pointer(&comment, g_free);
        }
        g_free(comment);
    }
    g_byte_array_free(b, TRUE);
    if (!ok)
        fprintf(stderr, "pcaptool: %s: %s\n", path, strerror(errno));
    return cli_close_report(f, path) && ok;
}

/* ---- HTML ---------------------------------------------------------------------------- */

static const char *verdict_color(gw_verdict v)
{
    static const char *const colors[GW_N_VERDICTS] = {"#1a7f37", "#9a6700", "#cf222e", "#0969da", "#6e7781"};
    return v < GW_N_VERDICTS ? colors[v] : "#000";
}

/* text cut to at most n characters (whole UTF-8 sequences), "…" added */
static void html_cut(FILE *f, const char *s, size_t n)
{
    size_t len = strlen(s);
    if (len <= n) {
        out_xml_text(f, s);
        return;
    }
    while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
        n--;
    char *c = g_strndup(s, n);
    out_xml_text(f, c);
    fputs("\xe2\x80\xa6", f);
    g_free(c);
}

#define SVG_W 920
#define SVG_LEFT 150
#define SVG_RIGHT 770
#define SVG_ROW 34     /* a PDU's row: its summary above the arrow */
#define SVG_FINDING 14 /* more for its finding's line below the arrow */
#define SVG_MAX_PDUS 200

static unsigned svg_row(const conform_pdu *q)
{
    return SVG_ROW + (q->findings->len ? SVG_FINDING : 0);
}

/* the exchange as a sequence diagram: pcaptool's lifeline left, the
   implementation's right, an arrow per PDU with its summary above and its
   first finding below; then, when a wait ended on it, the silence (dashed
   on the implementation's lifeline) or the connection's end (a cross
   where that lifeline stops); what decided highlighted */
static void html_sequence(FILE *f, const conform_run *r, const conform_result *x)
{
    guint n = x->pdus->len < SVG_MAX_PDUS ? x->pdus->len : SVG_MAX_PDUS;
    char buf[64];
    const char *ended = x->ended_after <= n ? ended_text(x, buf, sizeof buf) : NULL;
    unsigned h = 60 + 20 + (n || ended ? 0 : SVG_ROW) + (ended ? SVG_ROW : 0), ended_top = 0;
    for (guint k = 0; k < n; k++)
        h += svg_row(&g_array_index(x->pdus, conform_pdu, k));
    fprintf(f, "<svg class=\"seq\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" role=\"img\">\n", SVG_W, h,
            SVG_W, h);
    fprintf(f, "<text x=\"%d\" y=\"18\" text-anchor=\"middle\" class=\"who\">pcaptool (%s)</text>\n", SVG_LEFT,
            r->role == GW_ROLE_SERVER ? "client" : "server");
    fprintf(f, "<text x=\"%d\" y=\"18\" text-anchor=\"middle\" class=\"who\">implementation (%s)</text>\n",
            SVG_RIGHT, role_name(r->role));
    fprintf(f, "<text x=\"%d\" y=\"34\" text-anchor=\"middle\" class=\"addr\">", SVG_LEFT);
    out_xml_text(f, x->local);
    fprintf(f, "</text><text x=\"%d\" y=\"34\" text-anchor=\"middle\" class=\"addr\">", SVG_RIGHT);
    out_xml_text(f, x->peer);
    fputs("</text>\n", f);
    fprintf(f, "<line x1=\"%d\" y1=\"40\" x2=\"%d\" y2=\"%u\" class=\"life\"/>\n", SVG_LEFT, SVG_LEFT, h - 10);
    if (!n && !ended)
        fprintf(f, "<text x=\"%d\" y=\"70\" text-anchor=\"middle\" class=\"none\">nothing was exchanged</text>\n",
                SVG_W / 2);
    unsigned top = 60; /* the current row's top */
    for (guint k = 0; k <= n; k++) {
        if (ended && k == x->ended_after) {
            unsigned y = top + 14;
            ended_top = top;
            fprintf(f, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%d\" class=\"decisive\"/>\n", SVG_LEFT - 140,
                    top - 10, SVG_RIGHT - SVG_LEFT + 280, SVG_ROW - 2);
            fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"end\" class=\"t\">%.3f s</text>\n", SVG_LEFT - 8, y + 4,
                    x->ended_ns / 1e9);
            if (x->ended == GW_CLOSED)
                fprintf(f, "<path d=\"M%d,%u l12,12 m0,-12 l-12,12\" class=\"closed\"/>\n", SVG_RIGHT - 6, y - 6);
            else
                fprintf(f, "<line x1=\"%d\" y1=\"%u\" x2=\"%d\" y2=\"%u\" class=\"silence\"/>\n", SVG_RIGHT,
                        top - 8, SVG_RIGHT, top + SVG_ROW - 14);
            fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"middle\" class=\"sum dec ended\">%s</text>\n",
                    (SVG_LEFT + SVG_RIGHT) / 2, y + 4, ended);
            top += SVG_ROW;
        }
        if (k == n)
            break;
        const conform_pdu *q = &g_array_index(x->pdus, conform_pdu, k);
        unsigned y = top + 14; /* the arrow */
        bool decisive = x->decisive == k + 1;
        if (decisive)
            fprintf(f, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%u\" class=\"decisive\"/>\n", SVG_LEFT - 140,
                    top - 10, SVG_RIGHT - SVG_LEFT + 280, svg_row(q) - 2);
        int x1 = q->ours ? SVG_LEFT : SVG_RIGHT, x2 = q->ours ? SVG_RIGHT - 6 : SVG_LEFT + 6;
        fprintf(f, "<line x1=\"%d\" y1=\"%u\" x2=\"%d\" y2=\"%u\" class=\"%s\" marker-end=\"url(#arrow)\"/>\n", x1,
                y, x2, y, q->ours ? "ours" : "theirs");
        fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"end\" class=\"t\">%.3f s</text>\n", SVG_LEFT - 8, y + 4,
                q->time_ns / 1e9);
        fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"middle\" class=\"sum%s\"><title>", (SVG_LEFT + SVG_RIGHT) / 2,
                y - 5, decisive ? " dec" : "");
        out_xml_text(f, q->summary);
        fprintf(f, " (%zu %s)</title>%s", q->len, gw_bytes(q->len), transport_tag(r, q));
        html_cut(f, q->summary, 90);
        fputs("</text>\n", f);
        if (q->findings->len) {
            const conform_finding *cf = &g_array_index(q->findings, conform_finding, 0);
            const gw_finding_def *d = &r->p->findings[cf->finding];
            fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"middle\" class=\"finding %s\"><title>", (SVG_LEFT + SVG_RIGHT) / 2,
                    y + 16, gw_severity_name(d->severity));
            out_xml_text(f, cf->message);
            fprintf(f, "</title>%s %s", gw_severity_name(d->severity), d->code);
            if (q->findings->len > 1)
                fprintf(f, " (+%u more)", q->findings->len - 1);
            fputs("</text>\n", f);
        }
        top += svg_row(q);
    }
    /* the implementation's lifeline stops where the connection ended */
    fprintf(f, "<line x1=\"%d\" y1=\"40\" x2=\"%d\" y2=\"%u\" class=\"life\"/>\n", SVG_RIGHT, SVG_RIGHT,
            ended && x->ended == GW_CLOSED ? ended_top + 8 : h - 10);
    fputs("</svg>\n", f);
    if (x->pdus->len > n)
        fprintf(f, "<p class=\"more\">%u more PDUs are in the JSON report and the --out capture.</p>\n",
                x->pdus->len - n);
}

bool conform_write_html(const conform_run *r, const char *path)
{
    FILE *f = cli_open_report(path);
    if (!f)
        return false;
    char *title = g_strdup_printf("%s conformance: the %s at %s", r->p->short_name, role_name(r->role), r->target);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
    out_xml_text(f, title);
    fputs("</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:980px;color:#1f2328}\n"
          "h1{font-size:22px}h2{font-size:17px;margin-top:34px;border-top:1px solid #d0d7de;padding-top:14px}\n"
          "table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}\n"
          ".v{font-weight:600;color:#fff;border-radius:4px;padding:1px 6px;white-space:nowrap}\n"
          "blockquote{margin:6px 0;padding:4px 12px;border-left:4px solid #d0d7de;color:#59636e}\n"
          "dt{font-weight:600;margin-top:6px}dd{margin-left:16px}code{font-size:13px}\n"
          "svg.seq{font:12px ui-monospace,monospace;background:#f6f8fa;border:1px solid #d0d7de;margin-top:8px}\n"
          ".who{font-weight:700;font-family:system-ui,sans-serif}.addr{fill:#59636e}.life{stroke:#8c959f;stroke-dasharray:4 3}\n"
          ".ours{stroke:#0969da;stroke-width:1.6}.theirs{stroke:#8250df;stroke-width:1.6}.t{fill:#6e7781}\n"
          ".decisive{fill:#fff8c5;stroke:#d4a72c}.sum.dec{font-weight:700}.none{fill:#6e7781}\n"
          ".silence{stroke:#9a6700;stroke-width:4;stroke-dasharray:4 3}.closed{stroke:#cf222e;stroke-width:2.5}"
          ".ended{font-style:italic}\n"
          ".finding{font-size:11px}.finding.error{fill:#cf222e}.finding.warning{fill:#9a6700}.finding.note{fill:#0969da}\n"
          "</style></head><body>\n<h1>", f);
    out_xml_text(f, title);
    fputs("</h1>\n<p>", f);
    fprintf(f, "%u of %u case%s run by pcaptool %s%s, started %s: <code>", r->done, r->n, r->n == 1 ? "" : "s",
            PCAPTOOL_VERSION, r->strict ? " (strict)" : "", r->started);
    out_xml_text(f, r->command);
    fputs("</code>. ", f);
    if (r->error) {
        fputs("<strong>The run stopped: ", f);
        out_xml_text(f, r->error);
        fputs("</strong>", f);
    }
    fputs("</p>\n<table><tr>", f);
    for (int v = 0; v < GW_N_VERDICTS; v++)
        fprintf(f, "<th><span class=\"v\" style=\"background:%s\">%s</span></th>", verdict_color((gw_verdict)v),
                gw_verdict_name((gw_verdict)v));
    fputs("</tr><tr>", f);
    for (int v = 0; v < GW_N_VERDICTS; v++)
        fprintf(f, "<td>%u</td>", r->count[v]);
    fputs("</tr></table>\n<h2>Cases</h2>\n<table><tr><th>case</th><th>verdict</th><th>outcome</th></tr>\n", f);
    for (unsigned i = 0; i < r->done; i++) {
        const conform_result *x = &r->results[i];
        fputs("<tr><td><a href=\"#c", f);
        fprintf(f, "%u\"><code>", i);
        out_xml_text(f, x->c->id);
        fprintf(f, "</code></a></td><td><span class=\"v\" style=\"background:%s\">%s</span></td><td>",
                verdict_color(x->verdict), gw_verdict_name(x->verdict));
        out_xml_text(f, x->outcome);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\"><defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" "
          "refX=\"9\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">"
          "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#57606a\"/></marker></defs></svg>\n", f);
    for (unsigned i = 0; i < r->done; i++) {
        const conform_result *x = &r->results[i];
        fprintf(f, "<h2 id=\"c%u\"><span class=\"v\" style=\"background:%s\">%s</span> <code>", i,
                verdict_color(x->verdict), gw_verdict_name(x->verdict));
        out_xml_text(f, x->c->id);
        fputs("</code>: ", f);
        out_xml_text(f, x->c->title);
        fputs("</h2>\n<dl><dt>The text</dt><dd>", f);
        out_xml_text(f, x->c->source);
        fputs("<blockquote>", f);
        out_xml_text(f, x->c->text);
        fputs("</blockquote></dd>\n<dt>Strength</dt><dd>", f);
        fputs(gw_strength_name(x->c->strength), f);
        fputs("</dd>\n<dt>pcaptool sends</dt><dd>", f);
        out_xml_text(f, x->c->sends);
        fputs("</dd>\n<dt>A conforming implementation</dt><dd>", f);
        out_xml_text(f, x->c->expects);
        fputs("</dd>\n<dt>Outcome</dt><dd>", f);
        out_xml_text(f, x->outcome);
        fprintf(f, " (%.3f s)</dd></dl>\n", x->seconds);
        html_sequence(f, r, x);
    }
    fputs("</body></html>\n", f);
    g_free(title);
    return cli_close_report(f, path);
}
