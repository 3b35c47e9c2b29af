/* capture.h - where packets come from: a capture file (pcap, pcapng with any
 * number of interfaces of any link types, either gzip-compressed or not; a
 * path, or "-" for standard input) or a live interface (libpcap). A record
 * points into the reader's own buffer and stays valid until the next call:
 * nothing is allocated per packet. Files are read as their bytes arrive, so
 * a pipe from `tcpdump -U -w -` is decoded while it flows. */
#ifndef PCAPTOOL_CAPTURE_H
#define PCAPTOOL_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/gw_core.h"

typedef struct {
    int linktype;         /* the interface's LINKTYPE_ value */
    unsigned iface;       /* pcapng interface (0 for pcap and live) */
    int64_t time_ns;      /* since the epoch, clamped to 0..2^62 */
    uint8_t tsprec;       /* the digits after the point its resolution gives
                             (0..9: 6 for microseconds), as Wireshark counts them */
    uint32_t caplen, origlen;
    const uint8_t *data;  /* caplen bytes */
} cap_record;

typedef struct cap_reader cap_reader;

#define CAP_MAX_RECORD (16u << 20) /* a record larger is damage, not a packet */

/* The start of every reader (capture.c keeps it), which cap_next's inline
   part reads: the bytes read and not yet used, [buf + start, buf + end);
   the records returned so far; and for a pcap file in the host's byte order
   (`plain`: records are read in place, without byte swapping) its link
   type, its timestamps' digits (cap_record.tsprec) and nanoseconds per
   unit of a timestamp's fraction (1000 or 1). */
typedef struct {
    uint8_t *buf;
    size_t start, end;
    unsigned frames;
    bool plain;
    int linktype;
    uint8_t tsprec;
    uint32_t frac_ns;
} cap_head;

/* set by SIGINT and SIGTERM (cap_install_signals) or cap_request_stop */
extern volatile sig_atomic_t cap_stop_sig;

/* Open a capture file ("-": standard input). NULL and a reason in err when
   it cannot be opened or is not a capture ("empty file, not a capture",
   "not a capture file (neither pcap nor pcapng)", the system's reason). */
cap_reader *cap_open_file(const char *path, char *err, size_t errsz);
/* the same over bytes in memory (not copied; they must outlive the reader) */
cap_reader *cap_open_mem(const uint8_t *data, size_t len, char *err, size_t errsz);

/* A live capture on an interface: snapshot length 65535, a 32 MiB kernel
   buffer, immediate delivery, an optional BPF filter (NULL: none). NULL and
   a reason in err. */
cap_reader *cap_open_live(const char *iface, const char *filter, char *err, size_t errsz);

/* a live reader ends after this many seconds (-a duration:SEC) */
void cap_stop_after(cap_reader *r, double seconds);

/* The next record: 1, 0 at the end (or when cap_stop_requested() became
   true), -1 when the input is damaged or cannot be read (cap_error says
   why, in plain words: "truncated after frame N: ..."). A live reader
   returns 0 only when stopped. cap_next_slow reads any record; cap_next
   inline the usual one, and calls it for the rest. */
int cap_next_slow(cap_reader *r, cap_record *rec);
static inline int cap_next(cap_reader *r, cap_record *rec)
{
    /* inline, the usual record: a plain pcap record whose bytes are all
       there (the checks of cap_next_slow's, in the same order) */
    cap_head *h = (cap_head *)(void *)r;
    size_t have = h->end - h->start;
    if (h->plain && !cap_stop_sig && have >= 16) {
        const uint8_t *p = h->buf + h->start;
        uint32_t w[4]; /* seconds, fraction, captured and original length */
        memcpy(w, p, sizeof w);
        if (w[2] <= CAP_MAX_RECORD && have - 16 >= w[2]) {
            rec->linktype = h->linktype;
            rec->iface = 0;
            rec->time_ns = gw_time_ns(w[0], (int64_t)w[1] * h->frac_ns);
            rec->tsprec = h->tsprec;
            rec->caplen = w[2];
            rec->origlen = w[3];
            rec->data = p + 16;
            h->start += 16 + (size_t)w[2];
            h->frames++;
            return 1;
        }
    }
    return cap_next_slow(r, rec);
}
const char *cap_error(const cap_reader *r);
/* packets so far (records returned) */
unsigned cap_count(const cap_reader *r);
/* is the link type of the first interface known (pcap: the header's;
   pcapng: the first IDB's, 0 when none was seen yet); -1 when none */
int cap_first_linktype(const cap_reader *r);
bool cap_is_live(const cap_reader *r);
/* a live reader: packets the kernel or the interface dropped so far */
bool cap_live_drops(const cap_reader *r, unsigned *dropped);
void cap_close(cap_reader *r);

/* SIGINT and SIGTERM ask every reader to stop (at the next record, or in a
   blocking read); cap_stop_signal() is the signal that did (0: none).
   cap_request_stop() is the same from code (a negative value: a stop that
   is no signal, such as output that can no longer be written). */
void cap_install_signals(void);
void cap_request_stop(int sig);
bool cap_stop_requested(void);
int cap_stop_signal(void);

/* A pcapng file written as packets come (pcaptool -w): one interface per
   link type seen, nanosecond timestamps. NULL and a reason in err. */
typedef struct cap_writer cap_writer;
cap_writer *cap_writer_open(const char *path, char *err, size_t errsz);
/* false when writing failed (cap_writer_error says why) */
bool cap_writer_put(cap_writer *w, const cap_record *rec);
/* flush and close; false when anything failed (err says why) */
bool cap_writer_close(cap_writer *w, char *err, size_t errsz);

#endif
