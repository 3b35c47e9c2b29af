/* fuzz_capture.c - libFuzzer harness for pcaptool's whole reading path: the
 * input is a capture file (pcap or pcapng, either gzip-compressed or not,
 * read by pcaptool's own reader from memory), run through run_capture
 * (link layers, IP, UDP, TCP reassembly, conversations, every decoder)
 * into the JSON Lines or text output. The first byte of the file (part of
 * the pcap magic, so seeds keep their value) does not steer anything; the
 * decoder options follow its last byte, the output its length:
 *  - odd: text. -V's tree (bit 1), or the one-line text as decode writes
 *    it, from decoders told that nobody takes items, into a file; then
 *    the same capture again from decoders that make items, which must
 *    give the same lines.
 *  - even: JSON as decode writes it (records written as their items
 *    come, no labels; held and written in pieces, or record by record:
 *    bit 1; with items kept and every third PDU left unwritten, as -Y
 *    leaves PDUs it does not select: bit 2), into a file; then the same
 *    capture again as JSON made from the kept items, as replay writes it
 *    (labels, records not held), which must give the same bytes
 *    (output.h).
 * The second writing is compared with the first as it comes. */
#define _GNU_SOURCE /* fopencookie */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "output.h"
#include "run.h"

/* the input's name in the records, as a JSON string */
static const char file_json[] = "\"fuzz.pcap\"";
/* JSON longer than this is not compared (a few inputs inflate to hundreds
   of MB): the direct writing alone is checked, as for text */
#define COMPARED_AT_MOST ((off_t)64 << 20)

typedef struct {
    out_pdu *o;
    FILE *f; /* where it writes (run_into's) */
    out_format fmt;
    int verbose;
    bool leave_some; /* every third PDU begun and not written (-Y) */
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
    if (s->leave_some && m->frame % 3 == 0)
        return 0;
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

/* an output as a front end sets it up, made once and kept from input to
   input as a run keeps it from PDU to PDU */
static sinkhole *output(sinkhole *s, out_format fmt, bool direct, bool labels, bool items, bool hold)
{
    if (s->o)
        return s;
    s->fmt = fmt;
    s->verbose = labels;
    s->o = out_pdu_new();
    out_pdu_labels(s->o, labels);
    out_pdu_direct(s->o, direct);
    out_pdu_keep_items(s->o, items);
    out_pdu_hold(s->o, hold);
    out_pdu_file(s->o, file_json, sizeof file_json - 1);
    return s;
}

/* the input through s's output into f; false when it is no capture */
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
    fflush(f);
    return true;
}

/* the second writing, compared with the first (in a file) as it comes */
typedef struct {
    int fd;        /* the first's file */
    off_t at, len; /* how far the second has come; the first's length */
    const char *first_is, *second_is; /* what each is */
} compared;

static _Noreturn void differ(const compared *c, const char *buf, size_t n, size_t k)
{
    char before[121] = "", first[121] = "";
    off_t from = c->at + (off_t)k, back = from < 120 ? from : 120;
    ssize_t got = pread(c->fd, before, (size_t)back, from - back);
    before[got > 0 ? got : 0] = '\0';
    got = pread(c->fd, first, sizeof first - 1, from);
    first[got > 0 ? got : 0] = '\0';
    fprintf(stderr, "%s differs from %s at byte %lld, after\n%s\nthe first:  %s\nthe second: %.*s\n", c->first_is,
            c->second_is, (long long)from, before, first, (int)(n - k < 120 ? n - k : 120), buf + k);
    abort();
}

static ssize_t compare_write(void *cookie, const char *buf, size_t n)
{
    compared *c = cookie;
    char first[4096];
    for (size_t done = 0; done < n;) {
        size_t want = n - done < sizeof first ? n - done : sizeof first;
        ssize_t got = pread(c->fd, first, want, c->at);
        if (got < 0)
            abort();
        size_t k = 0;
        while (k < (size_t)got && first[k] == buf[done + k])
            k++;
        if (k < want) /* a byte that differs, or the first ended */
            differ(c, buf + done, n - done, k);
        c->at += got;
        done += want;
    }
    return (ssize_t)n;
}

/* the input through `first`'s output into a file, then through
   `second`'s, compared with it as it comes: the same bytes, or abort */
static void both_ways(sinkhole *first, const char *first_is, sinkhole *second, const char *second_is,
                      const uint8_t *data, size_t size)
{
    static FILE *file;
    if (!file && !(file = tmpfile())) /* (a descriptor: held records go out by writev, as decode's) */
        abort();
    rewind(file);
    if (ftruncate(fileno(file), 0) != 0)
        abort();
    if (!run_into(first, file, data, size))
        return;
    struct stat st;
    if (fstat(fileno(file), &st) != 0)
        abort();
    if (st.st_size > COMPARED_AT_MOST)
        return;
    compared c = {fileno(file), 0, st.st_size, first_is, second_is};
    FILE *f = fopencookie(&c, "w", (cookie_io_functions_t){.write = compare_write});
    if (!f)
        abort();
    run_into(second, f, data, size);
    fclose(f);
    if (c.at != c.len) /* the second ended first */
        differ(&c, "", 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!(size & 1)) {
        static sinkhole direct[4], grouped;
        unsigned w = (unsigned)(size >> 1) & 3;
        bool hold = w & 1, items = w & 2;
        sinkhole *d = output(&direct[w], OUT_JSON, true, false, items, hold);
        sinkhole *g = output(&grouped, OUT_JSON, false, true, true, false);
        d->leave_some = g->leave_some = items;
        both_ways(d, "JSON written as its items come", g, "JSON made from the kept items", data, size);
        return 0;
    }
    static sinkhole tree, line, line_items;
    if (size & 2) { /* -V: no second way to compare with */
        static FILE *null;
        if (!null && !(null = fopen("/dev/null", "w")))
            abort();
        run_into(output(&tree, OUT_TEXT, false, true, true, false), null, data, size);
        return 0;
    }
    both_ways(output(&line, OUT_TEXT, false, false, false, false), "the one-line text (no items made)",
              output(&line_items, OUT_TEXT, false, false, true, false), "the one-line text from items made",
              data, size);
    return 0;
}
