/* output.h - pcaptool's sinks: a PDU's decoder events collected, then
 * written as one JSON line or as text. Buffers are reused from PDU to PDU. */
#ifndef PCAPTOOL_OUTPUT_H
#define PCAPTOOL_OUTPUT_H

#include <stdbool.h>
#include <glib.h>
#include <stdio.h>

#include "core/gw_core.h"
#include "dfilter.h"

typedef enum { OUT_TEXT, OUT_JSON } out_format;

typedef struct out_pdu out_pdu;

out_pdu *out_pdu_new(void);
void out_pdu_free(out_pdu *o);
/* start collecting the events of one PDU of protocol p; returns the sink */
gw_sink *out_pdu_begin(out_pdu *o, const gw_protocol *p);
/* Are item labels kept (the default)? Only text with -V shows them: when
   not, decoders are told (gw_sink.no_labels) and need not format them. */
void out_pdu_labels(out_pdu *o, bool kept);
/* JSON records of the PDUs to come are built while their events come (the
   default: from the events at out_pdu_write); the same record either way.
   For a sink whose PDUs are written as JSON. */
void out_pdu_direct(out_pdu *o, bool direct);
/* Are the PDU's items kept (the default)? Whatever reads them (-Y, -T
   fields, -V's text, replay: out_pdu_item, out_pdu_items, out_pdu_first_u,
   out_pdu_selected) needs them; a direct JSON record does not. Neither
   kept nor written as they come (the one-line text): the sink takes no
   items (gw_sink.item NULL), and the decoders make none. */
void out_pdu_keep_items(out_pdu *o, bool kept);
/* the input's name as a JSON string, as the records of a file carry it in
   out_meta.file_json, and its length: records of this one need not
   measure it (NULL: none; until the next call, file_json is not freed) */
void out_pdu_file(out_pdu *o, const char *file_json, size_t len);
/* highest finding severity of the PDU, plus one (0: no finding) */
unsigned out_pdu_max_severity(const out_pdu *o);
/* the PDU's findings: how many, and the k-th one's index in the protocol's
   findings (its message in *message, valid until the next PDU) */
unsigned out_pdu_n_findings(const out_pdu *o);
int out_pdu_finding(const out_pdu *o, unsigned k, const char **message);
/* how many of the PDU's kept items were reported before its k-th finding */
size_t out_pdu_finding_after(const out_pdu *o, unsigned k);
/* the PDU's summary ("" when none) */
const char *out_pdu_summary(const out_pdu *o);
/* the first value of an unsigned field of the PDU itself; false if absent */
bool out_pdu_first_u(const out_pdu *o, int field, uint64_t *v);
/* does the display filter select the PDU (its items and findings)? */
bool out_pdu_selected(const out_pdu *o, dfilter_eval *ev);
/* the PDU's items, all of them (labels not set): how many, the i-th */
size_t out_pdu_n_items(const out_pdu *o);
const gw_item *out_pdu_item(const out_pdu *o, size_t i);
/* the items over the PDU's own bytes (source 0), in order, copied (g_free
   them) without labels, their texts and bytes pointing into `data` (a copy
   of the PDU's bytes; a generated text is left empty); their count in *n */
gw_item *out_pdu_items(const out_pdu *o, const uint8_t *data, unsigned *n);

typedef struct {
    unsigned frame;
    int64_t time_ns;
    /* the time of the frame before (frame - 1; frame 1's own), OUT_NO_TIME
       when not known (a record about an earlier frame at a conversation's
       end); of the input's first frame; the digits after the point its
       resolution gives (cap_record.tsprec) */
    int64_t prev_ns, first_ns;
    int tsprec;
    /* the time as the text output shows it (decode -t); NULL: seconds since
       the epoch, nine digits after the point */
    const char *time_text;
    const char *src, *dst;
    size_t len;       /* the PDU's bytes (0 for records that are not a PDU) */
    /* a PDU's own bytes (len of them), its direction (0: from the
       conversation's initiator) and GW_TRANSPORT_*; NULL, 0, 0 otherwise */
    const uint8_t *data;
    int dir, transport;
    /* the input's name as a JSON string (quotes included), written as the
       record's "file"; NULL: none */
    const char *file_json;
} out_meta;

#define OUT_NO_TIME INT64_MIN

void out_pdu_write(out_pdu *o, FILE *f, out_format fmt, int verbose, const out_meta *m);
/* hold: JSON records wait in o's buffer and go to f (out_pdu_write's)
   once 64 KiB wait, or at out_pdu_flush, which the caller calls before
   anything else is written to f and at the end; not held (the default):
   each record is written as it is made */
void out_pdu_hold(out_pdu *o, bool hold);
void out_pdu_flush(out_pdu *o, FILE *f);

/* the conversation a PDU belongs to, as stats lists and replay numbers
   them: "PROTO A B" into key (at most keysz bytes), A and B its two
   endpoints in order (each may be asked for, or not: NULL) */
void out_conversation_key(const gw_protocol *p, const out_meta *m, char *key, size_t keysz,
                          const char **a, const char **b);

/* a finding as a record of its own: a transport-level one (TCP gaps and the
   like, proto "tcp"), or one a decoder reports when a conversation ends
   (about an earlier frame: the record carries "end_of_conversation": true) */
typedef struct {
    const char *proto, *short_name, *summary;
    const char *code;
    gw_severity severity;
    size_t off, len;
    const char *message;
    bool end_of_conversation;
} out_finding;
void out_finding_write(FILE *f, out_format fmt, const out_meta *m, const out_finding *fd);

/* JSON string escaping; invalid UTF-8 bytes become U+FFFD */
void out_json_string(FILE *f, const uint8_t *p, size_t n);
void out_json_gstring(GString *g, const uint8_t *p, size_t n);
/* A string item's bytes as Wireshark 4.0 shows them, up to a NUL, appended
   to g: invalid UTF-8 as U+FFFD (one for each maximal subpart); in the
   tree (decode -V) without quotes and the characters it cannot print
   escaped as its format_text does (\a \b \f \n \r \t \v, other ASCII
   controls in octal \035, others \u200B); else (-T fields) raw. */
void out_ws_text(GString *g, const uint8_t *p, size_t n, bool tree);
/* XML text and attribute escaping (JUnit): markup characters as entities;
   invalid UTF-8 bytes and characters XML 1.0 does not allow (control
   characters but tab, newline and carriage return; U+FFFE, U+FFFF) become
   U+FFFD */
void out_xml_text(FILE *f, const char *s);

#endif
