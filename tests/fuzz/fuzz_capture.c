/* fuzz_capture.c - libFuzzer harness for pcaptool's whole reading path: the
 * input is a capture file (pcap or pcapng, either gzip-compressed or not,
 * read by pcaptool's own reader from memory), run through run_capture (link layers, IP, UDP, TCP reassembly, conversations,
 * every decoder) into the JSON Lines or text output, written to /dev/null.
 * The first byte of the file (part of the pcap magic, so seeds keep their
 * value) does not steer anything: the output format alternates by input
 * length, and the decoder options follow its last byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "output.h"
#include "run.h"

typedef struct {
    out_pdu *o;
    FILE *null;
    out_format fmt;
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
    out_pdu_write(s->o, s->null, s->fmt, 1, m);
    return out_pdu_max_severity(s->o);
}

static void finding(void *ctx, const gw_protocol *p, int index, const out_meta *m,
                    const out_finding *fd)
{
    (void)p; (void)index;
    sinkhole *s = ctx;
    out_finding_write(s->null, s->fmt, m, fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sinkhole s;
    if (!s.o) {
        s.o = out_pdu_new();
        s.null = fopen("/dev/null", "w");
        if (!s.null)
            abort();
    }
    if (size == 0)
        return 0;
    s.fmt = size & 1 ? OUT_TEXT : OUT_JSON;
    char err[320];
    cap_reader *cr = cap_open_mem(data, size, err, sizeof err);
    if (!cr)
        return 0;
    run_options o;
    run_options_init(&o);
    for (int i = 0; gw_protocols[i]; i++) { /* the last byte picks every protocol's options */
        fuzz_set_options(gw_protocols[i], data[size - 1]);
        memcpy(o.opts[i], fuzz_opts(gw_protocols[i]), sizeof o.opts[i]);
    }
    run_consumer c = {&s, begin, end, finding, NULL, NULL};
    unsigned max_sev = 0;
    (void)run_capture(&o, cr, &c, &max_sev, err, sizeof err);
    cap_close(cr);
    return 0;
}
