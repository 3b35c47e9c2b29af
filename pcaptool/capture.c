/* capture.c - see capture.h. The file formats, as written by libpcap,
 * dumpcap and editcap:
 *   pcap:   a 24-byte header (magic a1b2c3d4 microseconds, a1b23c4d
 *           nanoseconds, a1b2cd34 the "modified" format with 8 more bytes
 *           per record header; either byte order), then records of
 *           ts_sec, ts_frac, caplen, origlen and the bytes.
 *   pcapng: blocks of type, total length, body, total length; a Section
 *           Header Block (0x0a0d0d0a, byte-order magic 1a2b3c4d) starts a
 *           section and forgets its interfaces; Interface Description
 *           Blocks (1) give each interface its link type, snapshot length
 *           and time resolution (if_tsresol, if_tsoffset); packets come in
 *           Enhanced (6), Simple (3) and obsolete (2) Packet Blocks; other
 *           blocks are skipped.
 * gzip is recognised by its magic (1f 8b) and inflated as it is read;
 * several gzip members one after another are one stream, as gzip -d reads
 * them. */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/gw_core.h"

#define CAP_BUF_INITIAL (256u << 10)
#define CAP_MAX_IFACES 65536u
#define CAP_LIVE_SNAPLEN 65535

/* ---- stopping ------------------------------------------------------------ */

volatile sig_atomic_t cap_stop_sig;
static pcap_t *volatile live_handle; /* the live capture a signal breaks */

static void on_signal(int sig)
{
    cap_stop_sig = sig;
    pcap_t *p = live_handle;
    if (p)
        pcap_breakloop(p);
}

void cap_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking read returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cap_request_stop(int sig)
{
    on_signal(sig);
}

bool cap_stop_requested(void)
{
    return cap_stop_sig != 0;
}

int cap_stop_signal(void)
{
    return cap_stop_sig > 0 ? cap_stop_sig : 0;
}

/* ---- the reader ----------------------------------------------------------- */

typedef struct {
    int linktype;
    uint32_t snaplen;
    uint64_t units;     /* timestamp units per second */
    uint8_t tsprec;     /* cap_record.tsprec */
    int64_t offset_s;   /* if_tsoffset */
} iface;

enum { FMT_PCAP, FMT_PCAPNG };

/* the digits after the point of a resolution of 1/units s: 10^-k gives k,
   2^-k as many as its last digit needs (at most 9, nanoseconds) */
static uint8_t tsprec_of(uint64_t units)
{
    uint8_t k = 0;
    for (uint64_t u = 1; u < units && k < 9; u *= 10)
        k++;
    return k;
}

struct cap_reader {
    cap_head h;         /* the decompressed (or plain) bytes, [start, end) not
                           yet used, and what cap_next's inline part reads */
    int fd;             /* -1: memory or live */
    bool own_fd;
    size_t cap;         /* the buffer's size */
    bool own_buf, eof;
    /* gzip */
    bool gz;
    z_stream z;
    uint8_t *raw;
    size_t raw_cap;
    bool raw_eof, z_ended;
    /* format */
    int fmt;
    bool big;            /* the file's byte order */
    unsigned rec_hdr;    /* pcap: 16, or 24 for the modified format */
    iface *ifaces;
    unsigned n_ifaces, ifaces_cap;
    char err[256];
    /* live */
    pcap_t *pc;
    int64_t deadline_ns; /* CLOCK_MONOTONIC; 0: none */
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void cap_stop_after(cap_reader *r, double seconds)
{
    r->deadline_ns = mono_ns() + (int64_t)(seconds * 1e9);
}

static uint16_t rd16(const cap_reader *r, const uint8_t *p)
{
    return r->big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t rd32(const cap_reader *r, const uint8_t *p)
{
    return r->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int fail(cap_reader *r, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static int fail(cap_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}

static int truncated(cap_reader *r)
{
    if (r->h.frames == 0)
        return fail(r, "truncated before its first packet");
    return fail(r, "truncated after frame %u: what came before was decoded", r->h.frames);
}

/* read(2) what is there (at least one byte unless at the end): >0 bytes,
   0 at the end, -1 error (message set), -2 stopped */
static ssize_t read_some(cap_reader *r, uint8_t *to, size_t n)
{
    for (;;) {
        if (cap_stop_sig)
            return -2;
        ssize_t k = read(r->fd, to, n);
        if (k >= 0)
            return k;
        if (errno == EINTR)
            continue;
        fail(r, "read error after frame %u: %s", r->h.frames, strerror(errno));
        return -1;
    }
}

/* more bytes at buf + end: >0, 0 at the end, -1 error, -2 stopped */
static ssize_t fill(cap_reader *r)
{
    if (r->eof)
        return 0;
    if (!r->gz) {
        ssize_t k = read_some(r, r->h.buf + r->h.end, r->cap - r->h.end);
        if (k > 0)
            r->h.end += (size_t)k;
        else if (k == 0)
            r->eof = true;
        return k;
    }
    for (;;) {
        if (r->z.avail_in == 0 && !r->raw_eof) {
            ssize_t k = read_some(r, r->raw, r->raw_cap);
            if (k < 0)
                return k;
            if (k == 0)
                r->raw_eof = true;
            r->z.next_in = r->raw;
            r->z.avail_in = (uInt)k;
        }
        if (r->z_ended) {
            /* a member ended: another may follow (gzip -d reads them all) */
            if (r->z.avail_in == 0) {
                if (r->raw_eof) {
                    r->eof = true;
                    return 0;
                }
                continue;
            }
            inflateReset(&r->z);
            r->z_ended = false;
        }
        r->z.next_out = r->h.buf + r->h.end;
        r->z.avail_out = (uInt)(r->cap - r->h.end);
        int zr = inflate(&r->z, Z_NO_FLUSH);
        size_t made = (size_t)(r->z.next_out - (r->h.buf + r->h.end));
        r->h.end += made;
        if (zr == Z_STREAM_END)
            r->z_ended = true;
        else if (zr != Z_OK && zr != Z_BUF_ERROR)
            return fail(r, "damaged compressed data after frame %u: %s", r->h.frames,
                        r->z.msg ? r->z.msg : "inflate failed");
        if (made)
            return (ssize_t)made;
        if (zr == Z_BUF_ERROR && r->raw_eof && r->z.avail_in == 0) {
            truncated(r); /* the compressed data stops inside a member */
            r->eof = true;
            return -1;
        }
    }
}

/* ensure() when the bytes are not there yet */
static __attribute__((noinline)) int ensure_more(cap_reader *r, size_t n)
{
    while (r->h.end - r->h.start < n) {
        if (r->fd < 0 && !r->gz)
            return 0; /* memory: everything is there */
        if (r->h.start && r->cap - r->h.start < n + 4096) {
            memmove(r->h.buf, r->h.buf + r->h.start, r->h.end - r->h.start);
            r->h.end -= r->h.start;
            r->h.start = 0;
        }
        if (r->cap < n) {
            size_t c = r->cap;
            while (c < n)
                c *= 2;
            r->h.buf = g_realloc(r->h.buf, c);
            r->cap = c;
        }
        ssize_t k = fill(r);
        if (k == 0)
            return 0;
        if (k < 0)
            return (int)k;
    }
    return 1;
}

/* make n bytes available from start: 1, 0 (the input ends first), -1
   error, -2 stopped (inline: nearly always they are there already) */
static inline int ensure(cap_reader *r, size_t n)
{
    if (r->h.end - r->h.start >= n)
        return 1;
    return ensure_more(r, n);
}

static int64_t ts_to_ns(const iface *i, uint64_t ts)
{
    uint64_t sec = ts / i->units, frac = ts % i->units, ns;
    if (i->units == 1000000)
        ns = frac * 1000;
    else if (i->units == 1000000000)
        ns = frac;
    else
        ns = (uint64_t)((unsigned __int128)frac * 1000000000u / i->units);
    int64_t s = sec > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)sec;
    return gw_time_ns(s + i->offset_s, (int64_t)ns);
}

static iface *add_iface(cap_reader *r, int linktype, uint32_t snaplen)
{
    if (r->n_ifaces == CAP_MAX_IFACES)
        return NULL;
    if (r->n_ifaces == r->ifaces_cap) {
        r->ifaces_cap = r->ifaces_cap ? r->ifaces_cap * 2 : 4;
        r->ifaces = g_renew(iface, r->ifaces, r->ifaces_cap);
    }
    iface *i = &r->ifaces[r->n_ifaces++];
    *i = (iface){.linktype = linktype, .snaplen = snaplen, .units = 1000000, .tsprec = 6};
    return i;
}

/* ---- pcap ----------------------------------------------------------------- */

static int pcap_header(cap_reader *r)
{
    int k = ensure(r, 24);
    if (k < 0)
        return k;
    if (k == 0)
        return fail(r, "not a capture file (too short for a pcap header)");
    const uint8_t *h = r->h.buf + r->h.start;
    uint32_t le = (uint32_t)h[3] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[1] << 8 | h[0];
    uint32_t magic = le;
    r->big = false;
    if (le == 0xd4c3b2a1 || le == 0x4d3cb2a1 || le == 0x34cdb2a1) {
        r->big = true;
        magic = rd32(r, h);
    }
    uint16_t major = rd16(r, h + 4);
    if (major != 2)
        return fail(r, "pcap version %u, not 2", major);
    r->rec_hdr = magic == 0xa1b2cd34 ? 24 : 16;
    iface *i = add_iface(r, (int)(rd32(r, h + 20) & 0x03ffffff), rd32(r, h + 16));
    i->units = magic == 0xa1b23c4d ? 1000000000 : 1000000;
    i->tsprec = tsprec_of(i->units);
    r->h.start += 24;
    /* records in the host's byte order, 16-byte headers: cap_next reads
       them in place */
    r->h.plain = r->rec_hdr == 16 && r->big == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
    r->h.linktype = i->linktype;
    r->h.tsprec = i->tsprec;
    r->h.frac_ns = i->units == 1000000 ? 1000 : 1;
    return 1;
}

static int pcap_record(cap_reader *r, cap_record *rec)
{
    int k = ensure(r, r->rec_hdr);
    if (k < 0)
        return k;
    if (k == 0)
        return r->h.end == r->h.start ? 0 : truncated(r);
    const uint8_t *h = r->h.buf + r->h.start;
    uint32_t caplen = rd32(r, h + 8), origlen = rd32(r, h + 12);
    if (caplen > CAP_MAX_RECORD)
        return fail(r, "damaged after frame %u: a record of %u %s", r->h.frames, caplen, gw_bytes(caplen));
    k = ensure(r, r->rec_hdr + caplen);
    if (k < 0)
        return k;
    if (k == 0)
        return truncated(r);
    h = r->h.buf + r->h.start;
    const iface *i = &r->ifaces[0];
    uint64_t frac = rd32(r, h + 4);
    rec->linktype = i->linktype;
    rec->iface = 0;
    rec->time_ns = gw_time_ns(rd32(r, h), (int64_t)(i->units == 1000000 ? frac * 1000 : frac));
    rec->tsprec = i->tsprec;
    rec->caplen = caplen;
    rec->origlen = origlen;
    rec->data = h + r->rec_hdr;
    r->h.start += r->rec_hdr + caplen;
    return 1;
}

/* ---- pcapng --------------------------------------------------------------- */

#define BT_SHB 0x0a0d0d0a
#define BT_IDB 1
#define BT_OPB 2
#define BT_SPB 3
#define BT_EPB 6

/* an IDB's options: if_tsresol (9) and if_tsoffset (14) */
static int idb_options(cap_reader *r, iface *i, const uint8_t *p, size_t n)
{
    while (n >= 4) {
        uint16_t code = rd16(r, p), len = rd16(r, p + 2);
        size_t padded = ((size_t)len + 3) & ~(size_t)3;
        if (code == 0 || 4 + padded > n)
            break;
        if (code == 9 && len >= 1) {
            uint8_t v = p[4], e = v & 0x7f;
            if (v & 0x80) {
                if (e > 63)
                    return fail(r, "interface %u has a time resolution of 2^-%u s", r->n_ifaces - 1, e);
                i->units = (uint64_t)1 << e;
            } else {
                if (e > 19)
                    return fail(r, "interface %u has a time resolution of 10^-%u s", r->n_ifaces - 1, e);
                i->units = 1;
                while (e--)
                    i->units *= 10;
            }
            if (i->units == 0)
                i->units = 1;
        } else if (code == 14 && len == 8) {
            uint64_t hi = rd32(r, p + 4), lo = rd32(r, p + 8);
            i->offset_s = (int64_t)(r->big ? hi << 32 | lo : lo << 32 | hi);
        }
        p += 4 + padded;
        n -= 4 + padded;
    }
    i->tsprec = tsprec_of(i->units);
    return 1;
}

static int pcapng_block(cap_reader *r, cap_record *rec)
{
    for (;;) {
        int k = ensure(r, 12);
        if (k < 0)
            return k;
        if (k == 0)
            return r->h.end == r->h.start ? 0 : truncated(r);
        const uint8_t *h = r->h.buf + r->h.start;
        uint32_t type = rd32(r, h);
        if (type == BT_SHB) {
            uint32_t m = rd32(r, h + 8);
            if (m == 0x4d3c2b1a)
                r->big = !r->big;
            else if (m != 0x1a2b3c4d)
                return fail(r, "damaged after frame %u: a section header without its byte-order magic",
                            r->h.frames);
        }
        uint32_t len = rd32(r, h + 4);
        if (len < 12 || len % 4 || len > CAP_MAX_RECORD + 64)
            return fail(r, "damaged after frame %u: a block of %u %s", r->h.frames, len, gw_bytes(len));
        k = ensure(r, len);
        if (k < 0)
            return k;
        if (k == 0)
            return truncated(r);
        h = r->h.buf + r->h.start;
        if (rd32(r, h + len - 4) != len)
            return fail(r, "damaged after frame %u: a block's two lengths differ", r->h.frames);
        r->h.start += len;
        const uint8_t *b = h + 8;
        size_t blen = len - 12;
        uint32_t ifn = 0, hi = 0, lo = 0, caplen = 0, origlen = 0;
        const uint8_t *data;
        switch (type) {
        case BT_SHB:
            if (blen < 16)
                return fail(r, "damaged after frame %u: a section header of %u %s", r->h.frames, len, gw_bytes(len));
            r->n_ifaces = 0; /* a new section describes its interfaces anew */
            continue;
        case BT_IDB: {
            if (blen < 8)
                return fail(r, "damaged after frame %u: an interface description of %u %s",
                            r->h.frames, len, gw_bytes(len));
            iface *i = add_iface(r, rd16(r, b), rd32(r, b + 4));
            if (!i)
                return fail(r, "more than %u interfaces", CAP_MAX_IFACES);
            if (idb_options(r, i, b + 8, blen - 8) < 0)
                return -1;
            continue;
        }
        case BT_EPB:
        case BT_OPB:
            if (blen < 20)
                return fail(r, "damaged after frame %u: a packet block of %u %s", r->h.frames, len, gw_bytes(len));
            ifn = type == BT_EPB ? rd32(r, b) : rd16(r, b);
            hi = rd32(r, b + 4);
            lo = rd32(r, b + 8);
            caplen = rd32(r, b + 12);
            origlen = rd32(r, b + 16);
            data = b + 20;
            if (caplen > blen - 20)
                return fail(r, "damaged after frame %u: a packet of %u %s in a block of %u",
                            r->h.frames, caplen, gw_bytes(caplen), len);
            break;
        case BT_SPB:
            if (blen < 4)
                return fail(r, "damaged after frame %u: a simple packet block of %u %s", r->h.frames, len, gw_bytes(len));
            origlen = rd32(r, b);
            caplen = origlen < blen - 4 ? origlen : (uint32_t)(blen - 4);
            if (r->n_ifaces && r->ifaces[0].snaplen && caplen > r->ifaces[0].snaplen)
                caplen = r->ifaces[0].snaplen;
            data = b + 4;
            break;
        default:
            continue; /* name resolution, statistics, secrets, custom: not ours */
        }
        if (ifn >= r->n_ifaces)
            return fail(r, "damaged after frame %u: a packet on interface %u, which was never described",
                        r->h.frames, ifn);
        const iface *i = &r->ifaces[ifn];
        rec->linktype = i->linktype;
        rec->iface = ifn;
        rec->time_ns = type == BT_SPB ? 0 : ts_to_ns(i, (uint64_t)hi << 32 | lo);
        rec->tsprec = i->tsprec;
        rec->caplen = caplen;
        rec->origlen = origlen;
        rec->data = data;
        return 1;
    }
}

/* ---- opening -------------------------------------------------------------- */

static cap_reader *reader_new(void)
{
    cap_reader *r = g_new0(cap_reader, 1);
    r->fd = -1;
    return r;
}

/* what the first bytes say: gzip, pcap or pcapng; NULL on failure */
static cap_reader *start(cap_reader *r, char *err, size_t errsz)
{
    int k = ensure(r, 2);
    if (k > 0 && r->h.buf[r->h.start] == 0x1f && r->h.buf[r->h.start + 1] == 0x8b) {
        /* gzip: what was read so far is compressed input */
        size_t have = r->h.end - r->h.start;
        if (r->fd < 0) { /* memory: the input is the whole buffer */
            r->z.next_in = r->h.buf;
            r->z.avail_in = (uInt)MIN(r->h.end, (size_t)UINT32_MAX);
            r->raw_eof = true;
        } else {
            r->raw_cap = CAP_BUF_INITIAL;
            r->raw = g_malloc(r->raw_cap);
            memcpy(r->raw, r->h.buf + r->h.start, have); /* have <= the buffer's size, its size */
            r->z.next_in = r->raw;
            r->z.avail_in = (uInt)have;
            g_free(r->h.buf);
        }
        r->cap = CAP_BUF_INITIAL;
        r->h.buf = g_malloc(r->cap);
        r->own_buf = true;
        r->h.start = r->h.end = 0;
        r->eof = false;
        r->gz = true;
        if (inflateInit2(&r->z, 15 + 32) != Z_OK) {
            snprintf(err, errsz, "cannot start decompressing");
            cap_close(r);
            return NULL;
        }
        k = ensure(r, 1);
        if (k == 0 && !r->err[0]) {
            snprintf(err, errsz, "empty compressed file, not a capture");
            cap_close(r);
            return NULL;
        }
    }
    if (k == 0 && r->h.end == r->h.start) {
        snprintf(err, errsz, "empty file, not a capture");
        cap_close(r);
        return NULL;
    }
    if (k >= 0)
        k = ensure(r, 4);
    if (k < 0) {
        snprintf(err, errsz, "%s", k == -2 ? "interrupted" : r->err);
        cap_close(r);
        return NULL;
    }
    const uint8_t *h = r->h.buf + r->h.start;
    uint32_t le = r->h.end - r->h.start >= 4
                      ? (uint32_t)h[3] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[1] << 8 | h[0]
                      : 0;
    if (le == BT_SHB) {
        /* the byte order is set when the block reader meets the SHB's magic */
        r->fmt = FMT_PCAPNG;
        return r;
    }
    static const uint32_t pcap_magics[] = {0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1,
                                           0xa1b2cd34, 0x34cdb2a1};
    for (unsigned i = 0; i < G_N_ELEMENTS(pcap_magics); i++)
        if (le == pcap_magics[i]) {
            r->fmt = FMT_PCAP;
            if (pcap_header(r) < 0) {
                snprintf(err, errsz, "%s", r->err);
                cap_close(r);
                return NULL;
            }
            return r;
        }
    snprintf(err, errsz, "not a capture file (neither pcap nor pcapng%s)", r->gz ? " inside the gzip" : "");
    cap_close(r);
    return NULL;
}

cap_reader *cap_open_file(const char *path, char *err, size_t errsz)
{
    cap_reader *r = reader_new();
    if (strcmp(path, "-") == 0) {
        r->fd = STDIN_FILENO;
    } else {
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0) {
            snprintf(err, errsz, "%s", strerror(errno));
            g_free(r);
            return NULL;
        }
        r->own_fd = true;
        struct stat st;
        if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(err, errsz, "a folder, not a capture file");
            close(r->fd);
            g_free(r);
            return NULL;
        }
    }
    r->cap = CAP_BUF_INITIAL;
    r->h.buf = g_malloc(r->cap);
    r->own_buf = true;
    return start(r, err, errsz);
}

cap_reader *cap_open_mem(const uint8_t *data, size_t len, char *err, size_t errsz)
{
    cap_reader *r = reader_new();
    r->h.buf = (uint8_t *)data;
    r->cap = r->h.end = len;
    r->eof = true;
    return start(r, err, errsz);
}

cap_reader *cap_open_live(const char *name, const char *filter, char *err, size_t errsz)
{
    char ebuf[PCAP_ERRBUF_SIZE] = "";
    pcap_t *pc = pcap_create(name, ebuf);
    if (!pc) {
        snprintf(err, errsz, "%s", ebuf);
        return NULL;
    }
    /* The kernel's ring holds buffer / snaplen packets (immediate mode uses
       one slot a packet): a snapshot length of 262144 in the default 2 MiB
       would hold 8 and drop bursts. 65535 (the loopback MTU) in 32 MiB
       holds about 500. */
    pcap_set_snaplen(pc, CAP_LIVE_SNAPLEN);
    pcap_set_buffer_size(pc, 32 << 20);
    pcap_set_promisc(pc, 1);
    pcap_set_immediate_mode(pc, 1);
    pcap_set_timeout(pc, 100);
    pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
    int rc = pcap_activate(pc);
    if (rc < 0) {
        const char *why = pcap_geterr(pc);
        snprintf(err, errsz, "%s%s%s", pcap_statustostr(rc), why && *why ? ": " : "",
                 why && *why ? why : "");
        pcap_close(pc);
        return NULL;
    }
    if (filter) {
        struct bpf_program prog;
        if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
            pcap_setfilter(pc, &prog) < 0) {
            snprintf(err, errsz, "bad capture filter '%s': %s", filter, pcap_geterr(pc));
            pcap_close(pc);
            return NULL;
        }
        pcap_freecode(&prog);
    }
    if (pcap_setnonblock(pc, 1, ebuf) < 0) {
        snprintf(err, errsz, "%s", ebuf);
        pcap_close(pc);
        return NULL;
    }
    cap_reader *r = reader_new();
    r->pc = pc;
    iface *i = add_iface(r, pcap_datalink(pc), CAP_LIVE_SNAPLEN);
    i->units = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO ? 1000000000 : 1000000;
    i->tsprec = tsprec_of(i->units);
    live_handle = pc;
    return r;
}

/* ---- reading -------------------------------------------------------------- */

int cap_next_slow(cap_reader *r, cap_record *rec)
{
    if (cap_stop_sig)
        return 0;
    int k;
    if (r->pc) {
        /* non-blocking reads and our own wait, so that the clock (-a) and
           the signals are looked at ten times a second whatever libpcap's
           timeout does in immediate mode */
        struct pcap_pkthdr *h;
        const u_char *d;
        for (;;) {
            if (cap_stop_sig)
                return 0;
            if (r->deadline_ns && mono_ns() >= r->deadline_ns)
                return 0;
            k = pcap_next_ex(r->pc, &h, &d);
            if (k == 1)
                break;
            if (k == 0) {
                struct pollfd pf = {pcap_get_selectable_fd(r->pc), POLLIN, 0};
                poll(&pf, 1, 100);
                continue;
            }
            if (k == PCAP_ERROR_BREAK || cap_stop_sig)
                return 0;
            return fail(r, "capture failed after %u packets: %s", r->h.frames, pcap_geterr(r->pc));
        }
        const iface *i = &r->ifaces[0];
        rec->linktype = i->linktype;
        rec->iface = 0;
        rec->time_ns = gw_time_ns(h->ts.tv_sec, i->units == 1000000 ? (int64_t)h->ts.tv_usec * 1000
                                                                      : (int64_t)h->ts.tv_usec);
        rec->tsprec = i->tsprec;
        rec->caplen = h->caplen;
        rec->origlen = h->len;
        rec->data = d;
        r->h.frames++;
        return 1;
    }
    k = r->fmt == FMT_PCAP ? pcap_record(r, rec) : pcapng_block(r, rec);
    if (k == -2)
        return 0; /* stopped by a signal: the end, as far as the caller goes */
    if (k == 1)
        r->h.frames++;
    return k;
}

const char *cap_error(const cap_reader *r)
{
    return r->err;
}

unsigned cap_count(const cap_reader *r)
{
    return r->h.frames;
}

int cap_first_linktype(const cap_reader *r)
{
    return r->n_ifaces ? r->ifaces[0].linktype : -1;
}

bool cap_live_drops(const cap_reader *r, unsigned *dropped)
{
    struct pcap_stat st;
    if (!r->pc || pcap_stats(r->pc, &st) < 0)
        return false;
    *dropped = st.ps_drop + st.ps_ifdrop;
    return true;
}

bool cap_is_live(const cap_reader *r)
{
    return r->pc != NULL;
}

void cap_close(cap_reader *r)
{
    if (!r)
        return;
    if (r->pc) {
        live_handle = NULL;
        pcap_close(r->pc);
    }
    if (r->own_fd)
        close(r->fd);
    if (r->gz)
        inflateEnd(&r->z);
    if (r->own_buf)
        g_free(r->h.buf);
    g_free(r->raw);
    g_free(r->ifaces);
    g_free(r);
}

/* ---- the pcapng writer ---------------------------------------------------- */

struct cap_writer {
    FILE *f;
    int linktypes[64]; /* interface k has linktypes[k] */
    unsigned n;
    int err;           /* errno of the first failure */
};

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4); /* the writer's own (host) byte order: the SHB says which */
}

static bool w_write(cap_writer *w, const void *p, size_t n)
{
    if (w->err)
        return false;
    if (fwrite(p, 1, n, w->f) != n) {
        w->err = errno ? errno : EIO;
        return false;
    }
    return true;
}

cap_writer *cap_writer_open(const char *path, char *err, size_t errsz)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errsz, "%s", strerror(errno));
        return NULL;
    }
    cap_writer *w = g_new0(cap_writer, 1);
    w->f = f;
    uint8_t shb[28];
    put32(shb, BT_SHB);
    put32(shb + 4, 28);
    put32(shb + 8, 0x1a2b3c4d);
    uint16_t ver[2] = {1, 0};
    memcpy(shb + 12, ver, 4);
    memset(shb + 16, 0xff, 8); /* section length unknown */
    put32(shb + 24, 28);
    w_write(w, shb, sizeof shb);
    return w;
}

bool cap_writer_put(cap_writer *w, const cap_record *rec)
{
    int lt = rec->linktype == 12 ? 101 : rec->linktype; /* DLT_RAW is LINKTYPE_RAW in a file */
    unsigned ifn = 0;
    while (ifn < w->n && w->linktypes[ifn] != lt)
        ifn++;
    if (ifn == w->n) {
        if (w->n == G_N_ELEMENTS(w->linktypes)) {
            w->err = EOVERFLOW;
            return false;
        }
        w->linktypes[w->n++] = lt;
        uint8_t idb[32] = {0};
        put32(idb, BT_IDB);
        put32(idb + 4, 32);
        uint16_t ltr[2] = {(uint16_t)lt, 0};
        memcpy(idb + 8, ltr, 4);
        put32(idb + 12, CAP_LIVE_SNAPLEN);
        uint16_t opt[2] = {9, 1}; /* if_tsresol: 10^-9 s */
        memcpy(idb + 16, opt, 4);
        idb[20] = 9;
        /* idb[24..27]: opt_endofopt */
        put32(idb + 28, 32);
        w_write(w, idb, sizeof idb);
    }
    size_t pad = (4 - rec->caplen % 4) % 4;
    uint32_t total = 32 + rec->caplen + (uint32_t)pad;
    uint64_t ts = (uint64_t)rec->time_ns;
    uint8_t h[28];
    put32(h, BT_EPB);
    put32(h + 4, total);
    put32(h + 8, ifn);
    put32(h + 12, (uint32_t)(ts >> 32));
    put32(h + 16, (uint32_t)ts);
    put32(h + 20, rec->caplen);
    put32(h + 24, rec->origlen);
    static const uint8_t zero[4];
    uint8_t tail[4];
    put32(tail, total);
    return w_write(w, h, sizeof h) && w_write(w, rec->data, rec->caplen) && w_write(w, zero, pad) &&
           w_write(w, tail, 4);
}

bool cap_writer_close(cap_writer *w, char *err, size_t errsz)
{
    if (fflush(w->f) != 0 && !w->err)
        w->err = errno;
    if (ferror(w->f) && !w->err)
        w->err = EIO;
    if (fclose(w->f) != 0 && !w->err)
        w->err = errno;
    bool ok = !w->err;
    if (!ok)
        snprintf(err, errsz, "%s", strerror(w->err));
    g_free(w);
    return ok;
}
