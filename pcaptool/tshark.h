/* tshark.h - decode's output habits taken from tshark 4.0: the time of
 * each record as -t shows it, and -T fields (-e, -E): named fields' values
 * as tshark prints them, one line per PDU. */
#ifndef PCAPTOOL_TSHARK_H
#define PCAPTOOL_TSHARK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

/* -t: r relative to the first frame, a absolute (local time), ad with the
   date, adoy with the day of the year, d delta from the frame before, dd
   delta from the record shown before, e epoch, u ud udoy the same in UTC;
   TS_NONE: pcaptool's own (seconds since the epoch, nine digits) */
typedef enum { TS_NONE, TS_R, TS_A, TS_AD, TS_ADOY, TS_D, TS_DD, TS_E, TS_U, TS_UD, TS_UDOY } ts_format;
bool ts_parse(const char *arg, ts_format *f);
/* the record's time as -t f shows it (tshark's column, with as many digits
   after the point as the capture's resolution gives), into buf (64 bytes
   are enough); shown_ns: the time of the record shown before it
   (OUT_NO_TIME: none) */
const char *ts_text(char *buf, size_t n, ts_format f, const out_meta *m, int64_t shown_ns);

/* -T fields: the fields named by -e and the -E options */
typedef struct tf_spec tf_spec;
tf_spec *tf_new(void);
void tf_free(tf_spec *t);
/* -e NAME: false when no protocol has a field of that name (nor is it one
   of the frame's fields tf_add_field knows) */
bool tf_add_field(tf_spec *t, const char *name);
/* -E OPTION=VALUE: false when malformed */
bool tf_set_option(tf_spec *t, const char *opt);
unsigned tf_n_fields(const tf_spec *t);
/* the header line (-E header=y), if asked for */
void tf_header(const tf_spec *t, FILE *f);
/* one PDU's line (o holds its events); shown_ns as for ts_text */
void tf_write(tf_spec *t, FILE *f, const out_pdu *o, const gw_protocol *p, const out_meta *m, int64_t shown_ns);

#endif
