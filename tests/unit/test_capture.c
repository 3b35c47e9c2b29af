/* Unit tests of pcaptool's capture reader (capture.c) on files written out
 * by hand from the format texts: pcap (the libpcap file format: magic
 * a1b2c3d4 / a1b23c4d / a1b2cd34, 24-byte header, 16-byte record headers,
 * 24 in the "modified" format) and pcapng (draft-ietf-opsawg-pcapng: the
 * Section Header Block 0x0A0D0D0A with byte-order magic 0x1A2B3C4D,
 * Interface Description Block 1 with if_tsresol (code 9: "If the Most
 * Significant Bit is equal to zero, the remaining bits indicates the
 * resolution of the timestamp as a negative power of 10 ... If the Most
 * Significant Bit is equal to one ... negative power of 2") and if_tsoffset
 * (code 14, seconds), Enhanced Packet Block 6, Simple Packet Block 3 (no
 * interface id, no timestamp, interface 0), obsolete Packet Block 2). gzip
 * is made with zlib itself. Tools Wireshark ships (mergecap, editcap) check
 * the rest in tests/verdicts_check.py. */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>
#include <zlib.h>

#include "capture.h"

/* a file under construction, in one byte order */
typedef struct {
    GByteArray *b;
    bool big;
} file;

static void u8(file *f, uint8_t v)
{
    g_byte_array_append(f->b, &v, 1);
}

static void u16(file *f, uint16_t v)
{
    uint8_t x[2] = {f->big ? v >> 8 : v & 0xff, f->big ? v & 0xff : v >> 8};
    g_byte_array_append(f->b, x, 2);
}

static void u32(file *f, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        u8(f, (uint8_t)(v >> (f->big ? 24 - 8 * i : 8 * i)));
}

static void bytes(file *f, const char *s, size_t n)
{
    g_byte_array_append(f->b, (const guint8 *)s, (guint)n);
    while (f->b->len % 4)
        u8(f, 0);
}

/* a block's length is known when it ends: patch it at both places */
static guint block_start(file *f, uint32_t type)
{
    guint at = f->b->len;
    u32(f, type);
    u32(f, 0);
    return at;
}

static void block_end(file *f, guint at)
{
    uint32_t len = f->b->len + 4 - at;
    u32(f, len);
    file t = {g_byte_array_new(), f->big};
    u32(&t, len);
    memcpy(f->b->data + at + 4, t.b->data, 4);
    g_byte_array_free(t.b, TRUE);
}

static void shb(file *f)
{
    guint at = block_start(f, 0x0a0d0d0a);
    u32(f, 0x1a2b3c4d);
    u16(f, 1);
    u16(f, 0);
    u32(f, 0xffffffff); /* section length -1: not given */
    u32(f, 0xffffffff);
    block_end(f, at);
}

/* tsresol < 0: no if_tsresol option */
static void idb(file *f, uint16_t linktype, uint32_t snaplen, int tsresol, int64_t tsoffset)
{
    guint at = block_start(f, 1);
    u16(f, linktype);
    u16(f, 0);
    u32(f, snaplen);
    if (tsresol >= 0) {
        u16(f, 9);
        u16(f, 1);
        char v = (char)tsresol;
        bytes(f, &v, 1);
    }
    if (tsoffset) {
        u16(f, 14);
        u16(f, 8);
        u32(f, (uint32_t)((uint64_t)tsoffset >> (f->big ? 32 : 0)));
        u32(f, (uint32_t)((uint64_t)tsoffset >> (f->big ? 0 : 32)));
    }
    u16(f, 0); /* opt_endofopt */
    u16(f, 0);
    block_end(f, at);
}

static void epb(file *f, uint32_t iface, uint64_t ts, const char *data, uint32_t caplen, uint32_t origlen)
{
    guint at = block_start(f, 6);
    u32(f, iface);
    u32(f, (uint32_t)(ts >> 32));
    u32(f, (uint32_t)ts);
    u32(f, caplen);
    u32(f, origlen);
    bytes(f, data, caplen);
    block_end(f, at);
}

static cap_reader *open_file(const file *f, char *err)
{
    return cap_open_mem(f->b->data, f->b->len, err, 256);
}

Test(capture, pcapng_big_endian_two_interfaces_their_resolutions)
{
    file f = {g_byte_array_new(), true};
    shb(&f);
    idb(&f, 101, 0, 3, 0);           /* raw IP, milliseconds */
    idb(&f, 1, 96, 0x80 | 10, 100);  /* Ethernet, 2^-10 s, 100 s later */
    epb(&f, 0, 1234567, "\x45\x00\x00\x04", 4, 4);
    epb(&f, 1, 5 * 1024 + 512, "abcdef", 6, 60);
    guint at = block_start(&f, 3); /* a simple packet: interface 0, no time */
    u32(&f, 2);
    bytes(&f, "xy", 2);
    block_end(&f, at);
    at = block_start(&f, 5);       /* interface statistics: skipped */
    u32(&f, 0);
    block_end(&f, at);
    char err[256];
    cap_reader *r = open_file(&f, err);
    cr_assert(r, "%s", err);
    cap_record rec;
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.linktype, 101);
    cr_assert_eq(rec.iface, 0);
    cr_assert_eq(rec.time_ns, INT64_C(1234567000000), "1234567 ms");
    cr_assert_eq(rec.caplen, 4);
    cr_assert(memcmp(rec.data, "\x45\x00\x00\x04", 4) == 0);
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.linktype, 1);
    cr_assert_eq(rec.iface, 1);
    cr_assert_eq(rec.time_ns, INT64_C(105500000000), "5.5 s in 1/1024 s, plus the 100 s offset");
    cr_assert_eq(rec.caplen, 6);
    cr_assert_eq(rec.origlen, 60);
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.linktype, 101, "a simple packet is on interface 0");
    cr_assert_eq(rec.time_ns, 0);
    cr_assert_eq(rec.caplen, 2);
    cr_assert_eq(cap_next(r, &rec), 0);
    cr_assert_eq(cap_count(r), 3);
    cap_close(r);
    g_byte_array_free(f.b, TRUE);
}

Test(capture, pcapng_a_new_section_forgets_its_interfaces)
{
    file f = {g_byte_array_new(), false};
    shb(&f);
    idb(&f, 1, 0, -1, 0);
    idb(&f, 1, 0, -1, 0);
    epb(&f, 1, 1000000, "ab", 2, 2); /* microseconds by default: 1 s */
    file g = {f.b, true};           /* a second section, big-endian */
    shb(&g);
    idb(&g, 113, 0, 9, 0);
    epb(&g, 0, 7, "cd", 2, 2);
    epb(&g, 1, 7, "ef", 2, 2);      /* interface 1 of the first section: gone */
    char err[256];
    cap_reader *r = open_file(&f, err);
    cr_assert(r, "%s", err);
    cap_record rec;
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.time_ns, 1000000000);
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.linktype, 113);
    cr_assert_eq(rec.time_ns, 7);
    cr_assert_eq(cap_next(r, &rec), -1);
    cr_assert_str_eq(cap_error(r), "damaged after frame 2: a packet on interface 1, which was never described");
    cap_close(r);
    g_byte_array_free(f.b, TRUE);
}

Test(capture, pcapng_lengths_that_disagree_are_damage)
{
    file f = {g_byte_array_new(), false};
    shb(&f);
    idb(&f, 1, 0, -1, 0);
    epb(&f, 0, 0, "abcd", 4, 4);
    f.b->data[f.b->len - 4] ^= 4; /* the trailing length */
    char err[256];
    cap_reader *r = open_file(&f, err);
    cr_assert(r, "%s", err);
    cap_record rec;
    cr_assert_eq(cap_next(r, &rec), -1);
    cr_assert_str_eq(cap_error(r), "damaged after frame 0: a block's two lengths differ");
    cap_close(r);
    g_byte_array_free(f.b, TRUE);
}

/* pcap: the header and a record, in the given magic's byte order */
static void pcap_file(file *f, uint32_t magic, uint32_t linktype)
{
    u32(f, magic);
    u16(f, 2);
    u16(f, 4);
    u32(f, 0);
    u32(f, 0);
    u32(f, 65535);
    u32(f, linktype);
}

Test(capture, pcap_nanoseconds_big_endian_and_the_modified_format)
{
    file f = {g_byte_array_new(), true};
    pcap_file(&f, 0xa1b23c4d, 228); /* IPv4 link type, nanoseconds */
    u32(&f, 1795000000);
    u32(&f, 123456789);
    u32(&f, 3);
    u32(&f, 3);
    g_byte_array_append(f.b, (const guint8 *)"abc", 3);
    char err[256];
    cap_reader *r = open_file(&f, err);
    cr_assert(r, "%s", err);
    cap_record rec;
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.linktype, 228);
    cr_assert_eq(rec.time_ns, INT64_C(1795000000123456789));
    cr_assert(memcmp(rec.data, "abc", 3) == 0);
    cr_assert_eq(cap_next(r, &rec), 0);
    cap_close(r);

    file m = {g_byte_array_new(), false};
    pcap_file(&m, 0xa1b2cd34, 1); /* the modified format: 8 more bytes per record header */
    u32(&m, 10);
    u32(&m, 500000); /* microseconds */
    u32(&m, 2);
    u32(&m, 2);
    u32(&m, 7);      /* ifindex, protocol, pkt_type, pad */
    u32(&m, 0);
    g_byte_array_append(m.b, (const guint8 *)"hi", 2);
    r = open_file(&m, err);
    cr_assert(r, "%s", err);
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(rec.time_ns, INT64_C(10500000000));
    cr_assert(memcmp(rec.data, "hi", 2) == 0);
    cap_close(r);
    g_byte_array_free(f.b, TRUE);
    g_byte_array_free(m.b, TRUE);
}

Test(capture, plain_words_for_what_is_not_a_whole_capture)
{
    char err[256];
    cr_assert_null(cap_open_mem((const uint8_t *)"", 0, err, sizeof err));
    cr_assert_str_eq(err, "empty file, not a capture");
    cr_assert_null(cap_open_mem((const uint8_t *)"GET / HTTP/1.1\r\n", 16, err, sizeof err));
    cr_assert_str_eq(err, "not a capture file (neither pcap nor pcapng)");
    file f = {g_byte_array_new(), false};
    pcap_file(&f, 0xa1b2c3d4, 1);
    for (int i = 0; i < 2; i++) {
        u32(&f, 1);
        u32(&f, 0);
        u32(&f, 4);
        u32(&f, 4);
        g_byte_array_append(f.b, (const guint8 *)"abcd", 4);
    }
    g_byte_array_set_size(f.b, f.b->len - 1); /* the second record cut */
    cap_reader *r = open_file(&f, err);
    cr_assert(r, "%s", err);
    cap_record rec;
    cr_assert_eq(cap_next(r, &rec), 1);
    cr_assert_eq(cap_next(r, &rec), -1);
    cr_assert_str_eq(cap_error(r), "truncated after frame 1: what came before was decoded");
    cap_close(r);
    g_byte_array_free(f.b, TRUE);
}

Test(capture, gzip_of_two_members_reads_as_one_capture)
{
    file f = {g_byte_array_new(), false};
    pcap_file(&f, 0xa1b2c3d4, 1);
    for (int i = 0; i < 3; i++) {
        u32(&f, 100 + (uint32_t)i);
        u32(&f, 0);
        u32(&f, 4);
        u32(&f, 4);
        g_byte_array_append(f.b, (const guint8 *)"wxyz", 4);
    }
    /* split after the first record: two gzip members, as `cat a.gz b.gz` */
    uint8_t gz[1024];
    size_t n = 0, cut = 24 + 20;
    for (int part = 0; part < 2; part++) {
        z_stream z = {0};
        cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        z.next_in = f.b->data + (part ? cut : 0);
        z.avail_in = (uInt)(part ? f.b->len - cut : cut);
        z.next_out = gz + n;
        z.avail_out = (uInt)(sizeof gz - n);
        cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
        n = sizeof gz - z.avail_out;
        deflateEnd(&z);
    }
    char err[256];
    cap_reader *r = cap_open_mem(gz, n, err, sizeof err);
    cr_assert(r, "%s", err);
    cap_record rec;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(cap_next(r, &rec), 1, "record %d: %s", i, cap_error(r));
        cr_assert_eq(rec.time_ns, (100 + i) * INT64_C(1000000000));
    }
    cr_assert_eq(cap_next(r, &rec), 0);
    cap_close(r);
    /* cut inside the compressed data: truncated, not silently shorter */
    r = cap_open_mem(gz, n - 12, err, sizeof err);
    cr_assert(r, "%s", err);
    int k;
    while ((k = cap_next(r, &rec)) == 1)
        ;
    cr_assert_eq(k, -1);
    cr_assert(strstr(cap_error(r), "truncated after frame"), "%s", cap_error(r));
    cap_close(r);
    g_byte_array_free(f.b, TRUE);
}
