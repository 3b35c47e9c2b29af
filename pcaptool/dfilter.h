/* dfilter.h - display filters (-Y FILTER): the part of Wireshark's display
 * filter language that fits our fields, compiled once into a small tree
 * and tested against each PDU without allocating.
 *
 *   dnp.seq == 3 and not dnp.command == "Link up"
 *   openttd.packet == "CLIENT_JOIN" || (openttd.name contains "Player")
 *   gne                                (a protocol: its PDUs)
 *   dnp.seq.outside_window             (a finding code: PDUs with it)
 *
 * Fields, value names and finding codes are the protocols' tables
 * (gw_protocols[]); what each operator means, and where pcaptool differs
 * from tshark, is in docs/pcaptool-decode.md ("Display filters"). */
#ifndef PCAPTOOL_DFILTER_H
#define PCAPTOOL_DFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/gw_core.h"

typedef struct dfilter dfilter;

/* Compile text. NULL on error, with *col the 1-based column (byte) where it
   is wrong, *width how many bytes from there (at least 1) and the reason
   in err (one line, no column). An empty filter (or only blanks) selects
   everything. */
dfilter *dfilter_compile(const char *text, char *err, size_t errsz, int *col, int *width);
void dfilter_free(dfilter *df);
/* the text it was compiled from */
const char *dfilter_text(const dfilter *df);

/* What a filter is tested against: one PDU of protocol p (NULL: a record
   of no protocol, pcaptool's own transport findings), its items (field
   indexes into p's fields, any data source) and the indexes of its
   findings. Items and finding indexes are read `stride` bytes apart, so
   that a front end's own records (a gw_item or an int at their start) can
   be handed as they are. */
typedef struct {
    const gw_protocol *p;
    const gw_item *items;
    size_t n_items, item_stride;
    const int *findings;
    size_t n_findings, finding_stride;
} dfilter_record;

/* A filter's evaluator for one thread: what a regular expression needs to
   match (made once, reused: testing allocates nothing). */
typedef struct dfilter_eval dfilter_eval;
dfilter_eval *dfilter_eval_new(const dfilter *df);
void dfilter_eval_free(dfilter_eval *ev);
bool dfilter_match(dfilter_eval *ev, const dfilter_record *r);
/* a record that is a finding alone (one a conversation's end reports about
   an earlier PDU of p, or with p NULL pcaptool's own transport finding):
   protocol names and finding codes can select it, fields cannot */
bool dfilter_match_finding(dfilter_eval *ev, const gw_protocol *p, int finding);

/* "pcaptool: -Y: column C: REASON", the filter and a caret line under
   the place, on f */
void dfilter_print_error(FILE *f, const char *text, const char *err, int col, int width);

#endif
