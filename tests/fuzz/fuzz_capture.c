/* fuzz_capture.c - libFuzzer harness for pcaptool's whole reading path: the
 * input is a capture file (pcap or pcapng, either gzip-compressed or not,
 * read by pcaptool's own reader from memory), run through run_capture (link layers, IP, UDP, TCP reassembly, conversations,
 * every decoder) into the JSON Lines or text output.
 * The first byte of the file (part of the pcap magic, so seeds keep their
 * value) does not steer anything: the output follows the input's length,
 * and the decoder options its last byte. The length's low four bits pick
 * how pcaptool decode writes (decode.c): text or JSON; the one-line text
 * or -V's tree; JSON held in a buffer or each record at once, with labels
 * (-V) or without. JSON is written both as the items come (decode's own
 * way) and from the kept items (replay's), and the two must be the same
 * bytes (output.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "output.h"
#include "run.h"

/* the input's name in the records, as a JSON string */
static const char file_json[] = "\"fuzz.pcap\"";

typedef struct {
    out_pdu *o;
    FILE *f; /* where it writes (run_into's) */
    out_format fmt;
    int verbose;
} sinkhole;

static gw_sink *begin(void *ctx, const gw_protocol *p)
{
    sinkhole *s = ctx;
    return out_pdu_begin(s->o, p);
}

static unsigned end(void *ctx, const gw_protocol *p, const out_meta *m)
{
    (void)p;
    sinkhole *s = ctx;
    out_meta mm = *m;
    mm.file_json = file_json; /* (as decode: each record names its file) */
    out_pdu_write(s->o, s->f, s->fmt, s->verbose, &mm);
    return out_pdu_max_severity(s->o);
}

static void finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                    const out_finding *fd)
{
    (void)p; (void)index;
    sinkhole *s = ctx;
    out_meta mm = *m;
    mm.file_json = file_json;
    out_pdu_flush(s->o, s->f); /* (as decode does: the records before it first) */
    out_finding_write(s->f, s->fmt, &mm, fd);
}

/* the output of an input of `size` bytes, set up as decode sets it up
   (one for each of the 16 ways, kept from input to input as a run keeps
   it from PDU to PDU) */
static sinkhole *output_of(size_t size)
{
    static sinkhole ways[16];
    unsigned w = (unsigned)(size & 15);
    sinkhole *s = &ways[w];
    if (s->o)
        return s;
    bool json = w & 1, second = w & 2, hold = w & 4, labels = w & 8;
    s->fmt = json ? OUT_JSON : OUT_TEXT;
    s->verbose = json ? labels : second; /* text: the one line, or -V */
    s->o = out_pdu_new();
    out_pdu_labels(s->o, json ? labels : second);
    bool direct = json && !second; /* JSON as decode writes it, or from the items (replay) */
    out_pdu_direct(s->o, direct);
    out_pdu_keep_items(s->o, !direct && (s->verbose || json));
    out_pdu_hold(s->o, hold);
    out_pdu_file(s->o, file_json, sizeof file_json - 1);
    return s;
}

/* the input through way s's output into f; false when it is no capture */
static bool run_into(sinkhole *s, FILE *f, const uint8_t *data, size_t size)
{
    char err[320];
    cap_reader *cr = cap_open_mem(data, size, err, sizeof err);
    if (!cr)
        return false;
    run_options o;
    run_options_init(&o);
    for (int i = 0; gw_protocols[i]; i++) { /* the last byte picks every protocol's options */
        fuzz_set_options(gw_protocols[i], data[size - 1]);
        memcpy(o.opts[i], fuzz_opts(gw_protocols[i]), sizeof o.opts[i]);
    }
    s->f = f;
    run_consumer c = {s, begin, end, finding, NULL, NULL};
    unsigned max_sev = 0;
    (void)run_capture(&o, cr, &c, &max_sev, err, sizeof err);
    cap_close(cr);
    out_pdu_flush(s->o, f);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!(size & 1)) { /* text */
        static FILE *null;
        if (!null && !(null = fopen("/dev/null", "w")))
            abort();
        run_into(output_of(size), null, data, size);
        return 0;
    }
    /* JSON as decode writes it, as the items come: the same bytes as JSON
       made from the items (output.h), records and findings */
    char *direct, *grouped;
    size_t direct_len, grouped_len;
    FILE *a = open_memstream(&direct, &direct_len), *b = open_memstream(&grouped, &grouped_len);
    if (!a || !b)
        abort();
    sinkhole *s = output_of(size & ~(size_t)2), *g = output_of(size | 2); /* (held or not, labels or not alike) */
    if (run_into(s, a, data, size))
        run_into(g, b, data, size);
    fclose(a);
    fclose(b);
    if (direct_len != grouped_len || memcmp(direct, grouped, direct_len)) {
        size_t k = 0;
        while (k < direct_len && k < grouped_len && direct[k] == grouped[k])
            k++;
        fprintf(stderr, "direct JSON differs from JSON made from the items at byte %zu:\n%.300s\n---\n%.300s\n", k,
                direct + (k > 100 ? k - 100 : 0), grouped + (k > 100 ? k - 100 : 0));
        abort();
    }
    free(direct);
    free(grouped);
    return 0;
}
