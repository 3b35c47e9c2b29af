/* gen_dnp.c - writes the generated DNP test captures into a folder.
 *
 * Every datagram is built here by hand from the layouts in
 * docs/wire-facts.md section 1 (reference) and the DNP text (the text's
 * link-update layout). The output is deterministic: tests regenerate the
 * captures and compare them byte for byte with captures/.
 *
 * Usage: gen_dnp OUTDIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcapw.h"

#define SERVER 2
#define SPORT 3413

static bytes b;
static char outdir[512];

static void path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", outdir, name);
}

/* send the bytes in b */
static void c2s(pcapw *w, int client, unsigned cport)
{
    pw_udp(w, client, (uint16_t)cport, SERVER, SPORT, b.p, b.n);
}

static void s2c(pcapw *w, int client, unsigned cport)
{
    pw_udp(w, SERVER, SPORT, client, (uint16_t)cport, b.p, b.n);
}

#define MSG(...) do { b_reset(&b); __VA_ARGS__; } while (0)

static void ack(unsigned seq, unsigned code) { b_u8(&b, 6); b_u16(&b, seq); b_u8(&b, code); }

/* one value of every one of the 38 types, type byte first */
static void all_types(void)
{
    b_u16(&b, 38);
    b_u8(&b, 0); b_u8(&b, 0xfb);                          /* SInt8 -5 */
    b_u8(&b, 1); b_u8(&b, 200);                           /* UInt8 200 */
    b_u8(&b, 2); b_u16(&b, (uint16_t)-1234);              /* SInt16 */
    b_u8(&b, 3); b_u16(&b, 54321);
    b_u8(&b, 4); b_u32(&b, (uint32_t)-123456789);
    b_u8(&b, 5); b_u32(&b, 3000000000u);
    b_u8(&b, 6); b_u64(&b, (uint64_t)-9000000000000000000ll);
    b_u8(&b, 7); b_u64(&b, 18000000000000000000ull);
    b_u8(&b, 8); b_u16(&b, 0xc100);                       /* Float16 -2.5 */
    b_u8(&b, 9); b_f32(&b, 0.5f);
    b_u8(&b, 10); b_f64(&b, -1234.5);
    b_u8(&b, 11); b_str16(&b, "hi");
    b_u8(&b, 12); b_u16(&b, 4); b_hex(&b, "deadbeef");
    b_u8(&b, 13); b_u8(&b, 0xff); b_u8(&b, 2);             /* Point2S8 (-1, 2) */
    b_u8(&b, 14); b_u8(&b, 3); b_u8(&b, 250);
    b_u8(&b, 15); b_u16(&b, (uint16_t)-300); b_u16(&b, 300);
    b_u8(&b, 16); b_u16(&b, 1); b_u16(&b, 65535);
    b_u8(&b, 17); b_u32(&b, (uint32_t)-70000); b_u32(&b, 70000);
    b_u8(&b, 18); b_u32(&b, 1); b_u32(&b, 4000000000u);
    b_u8(&b, 19); b_u64(&b, (uint64_t)-5); b_u64(&b, 5);
    b_u8(&b, 20); b_u64(&b, 1); b_u64(&b, 1ull << 63);
    b_u8(&b, 21); b_u8(&b, 0xff); b_u8(&b, 0xfe); b_u8(&b, 0xfd); /* (-1,-2,-3) */
    b_u8(&b, 22); b_u8(&b, 1); b_u8(&b, 2); b_u8(&b, 3);
    b_u8(&b, 23); b_u16(&b, (uint16_t)-1000); b_u16(&b, 0); b_u16(&b, 1000);
    b_u8(&b, 24); b_u16(&b, 10); b_u16(&b, 20); b_u16(&b, 30);
    b_u8(&b, 25); b_u32(&b, (uint32_t)-1); b_u32(&b, 0); b_u32(&b, 1);
    b_u8(&b, 26); b_u32(&b, 7); b_u32(&b, 8); b_u32(&b, 9);
    b_u8(&b, 27); b_u64(&b, (uint64_t)-1); b_u64(&b, 0); b_u64(&b, 1);
    b_u8(&b, 28); b_u64(&b, 4); b_u64(&b, 5); b_u64(&b, 6);
    b_u8(&b, 29); b_u16(&b, 0x3c00); b_u16(&b, 0x7bff);    /* (1.0, 65504) */
    b_u8(&b, 30); b_f32(&b, 1.5f); b_f32(&b, -2.25f);
    b_u8(&b, 31); b_f64(&b, 0.125); b_f64(&b, 1e10);
    b_u8(&b, 32); b_u16(&b, 0x3c00); b_u16(&b, 0xc100); b_u16(&b, 0); /* (1, -2.5, 0) */
    b_u8(&b, 33); b_f32(&b, 1); b_f32(&b, 2); b_f32(&b, 3);
    b_u8(&b, 34); b_f64(&b, -1); b_f64(&b, -2); b_f64(&b, -3);
    b_u8(&b, 35); b_u16(&b, 0); b_u16(&b, 0); b_u16(&b, 0); b_u16(&b, 0x3c00); /* (0,0,0,1) */
    b_u8(&b, 36); b_f32(&b, 0.5f); b_f32(&b, 0.5f); b_f32(&b, 0.5f); b_f32(&b, 0.5f);
    b_u8(&b, 37); b_f64(&b, 0.5); b_f64(&b, -0.5); b_f64(&b, 0.5); b_f64(&b, -0.5);
}

static void gen_commands(void)
{
    char p[600];
    pcapw w;
    path(p, sizeof p, "dnp-gen-commands.pcap");
    pw_open(&w, p, LT_ETH, 0);
    const int C = 1;
    const unsigned CP = 40001;

    MSG(b_hex(&b, "00 0100 0000")); c2s(&w, C, CP);            /* connect, DNP1 */
    MSG(b_hex(&b, "01 00 0000")); s2c(&w, C, CP);              /* accepted, DNP1 */
    /* link state #0, link 0, read-only, message "hi", all 38 types */
    MSG(b_hex(&b, "05 0000 0000 01 0200 6869"); all_types()); s2c(&w, C, CP);
    MSG(ack(0, 0)); c2s(&w, C, CP);
    MSG(b_hex(&b, "07 0000")); c2s(&w, C, CP);                 /* link up 0 */
    /* the client links a state of its own: #0, link 1, read-write, empty message,
       uint8 7 and string "name" */
    MSG(b_hex(&b, "05 0000 0100 00 0000 0200 01 07 0b 0400 6e616d65")); c2s(&w, C, CP);
    MSG(ack(0, 0)); s2c(&w, C, CP);
    MSG(b_hex(&b, "07 0100")); s2c(&w, C, CP);
    /* reference link update, link 0: [0] SInt8 -6, [8] Float16 1.0, [11] String "yo" */
    MSG(b_hex(&b, "09 01 0000 03 0000 fa 0800 003c 0b00 0200 796f")); s2c(&w, C, CP);
    /* reference link update, link 1: [0] UInt8 9, [1] String "abc" */
    MSG(b_hex(&b, "09 01 0100 02 0000 09 0100 0300 616263")); c2s(&w, C, CP);
    /* the published text's layout: u16 link count 1, link 0, u16 count 2,
       SInt8 -7, UInt8 250 (the first two types of link 0) */
    MSG(b_hex(&b, "09 0100 0000 0200 00 f9 01 fa")); s2c(&w, C, CP);
    MSG(b_hex(&b, "04 0100 68656c6c6f")); s2c(&w, C, CP);     /* reliable #1 "hello" */
    MSG(ack(1, 0)); c2s(&w, C, CP);
    MSG(b_hex(&b, "03 010203")); c2s(&w, C, CP);               /* unreliable */
    /* a 3000-byte long message in parts #2, #3, #4 of 1357, 1357, 286 bytes */
    static uint8_t longmsg[3000];
    for (int i = 0; i < 3000; i++)
        longmsg[i] = (uint8_t)(i % 251);
    static const unsigned flags[3] = {1, 0, 2}, offs[3] = {0, 1357, 2714}, lens[3] = {1357, 1357, 286};
    for (int i = 0; i < 3; i++) {
        MSG(b_u8(&b, 10); b_u16(&b, 2 + (unsigned)i); b_u8(&b, flags[i]); b_raw(&b, longmsg + offs[i], lens[i]));
        s2c(&w, C, CP);
    }
    for (unsigned i = 2; i <= 4; i++) {
        MSG(ack(i, 0)); c2s(&w, C, CP);
    }
    /* a long link state, link 2, read-only, in two parts #5 (first) and #6 (last):
       message "ab" + "c"; values "0200 03 3412" + "05 78563412"
       = 2 values: UInt16 0x1234, UInt32 0x12345678 */
    MSG(b_hex(&b, "0b 0500 0200 03 0200 6162 0200 03 3412")); s2c(&w, C, CP);
    MSG(b_hex(&b, "0b 0600 0200 05 0100 63 05 78563412")); s2c(&w, C, CP);
    MSG(ack(5, 0)); c2s(&w, C, CP);
    MSG(ack(6, 0)); c2s(&w, C, CP);
    MSG(b_hex(&b, "07 0200")); c2s(&w, C, CP);
    MSG(b_hex(&b, "09 01 0200 01 0100 efbeadde")); s2c(&w, C, CP); /* [1] UInt32 0xdeadbeef */
    /* the client links link 3; the server refuses it with link down */
    MSG(b_hex(&b, "05 0100 0300 00 0000 0100 01 05")); c2s(&w, C, CP);
    MSG(ack(1, 0)); s2c(&w, C, CP);
    MSG(b_hex(&b, "08 0300")); s2c(&w, C, CP);
    MSG(b_hex(&b, "02")); c2s(&w, C, CP);                      /* close */

    /* a rejected client offering DNP1 and an unknown protocol 1 */
    MSG(b_hex(&b, "00 0200 0000 0100")); c2s(&w, 3, 40002);
    MSG(b_hex(&b, "01 01")); s2c(&w, 3, 40002);
    /* no common protocol */
    MSG(b_hex(&b, "00 0100 0700")); c2s(&w, 4, 40003);
    MSG(b_hex(&b, "01 02")); s2c(&w, 4, 40003);
    pw_close(&w);
}

static void gen_sequence(void)
{
    char p[600];
    pcapw w;
    path(p, sizeof p, "dnp-gen-sequence.pcap");
    pw_open(&w, p, LT_ETH, 0);

    /* conversation A, seen from the middle: numbers wrap 65534 -> 0 (mod 65535) */
    unsigned seqs[] = {65532, 65533, 65534, 0, 1};
    for (int i = 0; i < 5; i++) {
        MSG(b_u8(&b, 4); b_u16(&b, seqs[i]); b_u8(&b, (unsigned)i)); s2c(&w, 5, 40005);
        MSG(ack(seqs[i], 0)); c2s(&w, 5, 40005);
    }
    /* conversation B: a peer that wraps at 65536 as the text says */
    unsigned seqs2[] = {65534, 65535, 0};
    for (int i = 0; i < 3; i++) {
        MSG(b_u8(&b, 4); b_u16(&b, seqs2[i])); s2c(&w, 6, 40006);
    }
    /* conversation C: resend, early arrival, outside the window, stray acks */
    MSG(b_hex(&b, "00 0100 0000")); c2s(&w, 7, 40007);
    MSG(b_hex(&b, "01 00 0000")); s2c(&w, 7, 40007);
    MSG(b_hex(&b, "04 0000 aa")); s2c(&w, 7, 40007);          /* #0 */
    pw_advance(&w, 500000);
    MSG(b_hex(&b, "04 0000 aa")); s2c(&w, 7, 40007);          /* #0 resent after 0.5 s */
    MSG(ack(0, 1)); c2s(&w, 7, 40007);                         /* failed: resend please */
    MSG(ack(0, 0)); c2s(&w, 7, 40007);
    MSG(b_hex(&b, "04 0200 cc")); s2c(&w, 7, 40007);          /* #2 before #1 */
    MSG(b_hex(&b, "04 0100 bb")); s2c(&w, 7, 40007);          /* #1 */
    MSG(b_hex(&b, "04 0300 dd")); s2c(&w, 7, 40007);          /* #3, in order again */
    MSG(b_hex(&b, "04 1400 ee")); s2c(&w, 7, 40007);          /* #20: outside [4, 14) */
    MSG(ack(7, 0)); c2s(&w, 7, 40007);                         /* #7 was never sent */
    pw_close(&w);
}

/* each prefix of a valid datagram, shortest first */
static void truncations(pcapw *w, int client, unsigned cport, int from_server, const char *hex)
{
    bytes full = {0};
    bytes save = b;
    b = full;
    b_hex(&b, hex);
    full = b;
    for (size_t n = 0; n < full.n; n++) {
        b.n = n;
        if (from_server)
            s2c(w, client, cport);
        else
            c2s(w, client, cport);
    }
    free(full.p);
    b = save;
}

static void gen_malformed(void)
{
    char p[600];
    pcapw w;
    path(p, sizeof p, "dnp-gen-malformed.pcap");
    pw_open(&w, p, LT_ETH, 0);

    /* conversation 1: truncated connection requests (each prefix, empty included) */
    truncations(&w, 8, 40008, 0, "00 0200 0000 0100");

    /* conversation 2: a link state sets link 0 = [UInt16, String, Float32] */
    const int C = 9;
    const unsigned CP = 40009;
    MSG(b_hex(&b, "00 0100 0000")); c2s(&w, C, CP);
    MSG(b_hex(&b, "01 00 0000")); s2c(&w, C, CP);
    MSG(b_hex(&b, "05 0000 0000 01 0000 0300 03 3412 0b 0200 6869 09 0000803f")); s2c(&w, C, CP);
    MSG(ack(0, 0)); c2s(&w, C, CP);
    MSG(b_hex(&b, "07 0000")); c2s(&w, C, CP);
    /* every prefix of each command */
    truncations(&w, C, CP, 1, "01 00 0000");
    truncations(&w, C, CP, 1, "04 0100 aa");
    truncations(&w, C, CP, 1, "05 0200 0100 01 0200 6869 0200 03 3412 0b 0300 616263");
    truncations(&w, C, CP, 0, "06 0000 00");
    truncations(&w, C, CP, 0, "07 0000");
    truncations(&w, C, CP, 0, "08 0000");
    truncations(&w, C, CP, 1, "09 01 0000 02 0000 3412 0200 0000803f");
    truncations(&w, C, CP, 1, "09 0100 0000 0100 03 3412");
    truncations(&w, C, CP, 1, "0a 0300 03 aabbcc");
    truncations(&w, C, CP, 1, "0b 0400 0500 06 0100 61 0100 01 05");
    /* bad counts */
    MSG(b_hex(&b, "05 0500 0600 00 0000 0a00 03 3412 03 7856")); s2c(&w, C, CP); /* 10 values, 2 there */
    MSG(b_hex(&b, "05 0600 0600 00 0500 6869")); s2c(&w, C, CP);             /* message length 5, 2 there */
    MSG(b_hex(&b, "09 03 0000 01 0000 3412")); s2c(&w, C, CP);               /* 3 links, 1 there */
    MSG(b_hex(&b, "09 0100 0000 0900 03 3412")); s2c(&w, C, CP);             /* text layout, 9 values, 1 there */
    /* unknown value types */
    MSG(b_hex(&b, "05 0700 0700 00 0000 0200 03 3412 26 00")); s2c(&w, C, CP); /* type 38 */
    MSG(b_hex(&b, "05 0800 0800 00 0000 0100 ff 00")); s2c(&w, C, CP);        /* type 255 */
    /* unknown commands */
    MSG(b_hex(&b, "0c 0102")); s2c(&w, C, CP);
    MSG(b_hex(&b, "c8")); c2s(&w, C, CP);
    /* trailing bytes */
    MSG(b_hex(&b, "02 00")); c2s(&w, C, CP);
    MSG(b_hex(&b, "07 0000 ff")); c2s(&w, C, CP);
    /* a link update for a link never linked, and a value index out of range */
    MSG(b_hex(&b, "09 01 0900 01 0000 05")); s2c(&w, C, CP);
    MSG(b_hex(&b, "09 01 0000 01 0900 00")); s2c(&w, C, CP);
    /* a layout both readings fit: reference link 0 [1] String "" or text link 256 SInt8 0 */
    MSG(b_hex(&b, "09 01 0000 01 0100 0000")); s2c(&w, C, CP);
    /* a text-layout update whose type differs from the link state's (UInt8 for UInt16) */
    MSG(b_hex(&b, "09 0100 0000 0100 01 07")); s2c(&w, C, CP);
    /* invalid UTF-8 in a string value, unknown link flags */
    MSG(b_hex(&b, "05 0900 0a00 00 0000 0100 0b 0200 fffe")); s2c(&w, C, CP);
    MSG(b_hex(&b, "05 0a00 0b00 80 0000 0100 01 01")); s2c(&w, C, CP);
    /* connection acks: a rejection carrying a protocol, an unknown result */
    MSG(b_hex(&b, "01 01 0000")); s2c(&w, C, CP);
    MSG(b_hex(&b, "01 07")); s2c(&w, C, CP);
    /* ack results: unknown */
    MSG(ack(0, 9)); c2s(&w, C, CP);
    /* long messages: a middle part with no first, then a first part twice */
    MSG(b_hex(&b, "0a 0b00 00 aa")); s2c(&w, C, CP);
    MSG(b_hex(&b, "0a 0c00 01 bb")); s2c(&w, C, CP);
    MSG(b_hex(&b, "0a 0d00 01 cc")); s2c(&w, C, CP);
    MSG(b_hex(&b, "0a 0e00 02 dd")); s2c(&w, C, CP);

    /* conversation 3: a connection request offering no protocol: ProtocolCount
       0 and no list (dnp.md, Connection Request: the protocols the client
       supports, one of which the server must support too) */
    MSG(b_hex(&b, "00 0000")); c2s(&w, 10, 40010);
    pw_close(&w);
}

/* traffic that is not DNP: DNS, NTP and `count` random datagrams (fixed seed),
   every third one starting with a DNP command byte */
static void noise(pcapw *wp, int count)
{
#define w (*wp)
    /* DNS query and answer for example.com A */
    MSG(b_hex(&b, "1234 0100 0001 0000 0000 0000 076578616d706c6503636f6d00 0001 0001"));
    pw_udp(&w, 20, 53000, 21, 53, b.p, b.n);
    MSG(b_hex(&b, "1234 8180 0001 0001 0000 0000 076578616d706c6503636f6d00 0001 0001"
              " c00c 0001 0001 00000e10 0004 5db8d822"));
    pw_udp(&w, 21, 53, 20, 53000, b.p, b.n);
    /* NTP v4 client request and server answer (48 bytes each) */
    MSG(b_u8(&b, 0x23); for (int i = 1; i < 48; i++) b_u8(&b, 0));
    pw_udp(&w, 22, 123, 23, 123, b.p, b.n);
    MSG(b_u8(&b, 0x24); b_u8(&b, 2); b_u8(&b, 6); b_u8(&b, 0xe9); for (int i = 4; i < 48; i++) b_u8(&b, (unsigned)(i * 7)));
    pw_udp(&w, 23, 123, 22, 123, b.p, b.n);
    /* random datagrams (fixed seed), some starting with DNP command bytes */
    uint32_t x = 12345;
    for (int i = 0; i < count; i++) {
        b_reset(&b);
        x = x * 1103515245u + 12345u;
        size_t len = 1 + (x >> 16) % 64;
        for (size_t k = 0; k < len; k++) {
            x = x * 1103515245u + 12345u;
            b_u8(&b, (x >> 16) & 0xff);
        }
        if (i % 3 == 0)
            b.p[0] = (uint8_t)(i % 12); /* look a bit like DNP */
        pw_udp(&w, 30 + i % 5, (uint16_t)(20000 + i), 40 + i % 7, (uint16_t)(30000 + i * 3), b.p, b.n);
    }
#undef w
}

/* DNP on an unknown port among DNS, NTP and random datagrams */
static void gen_heuristic(void)
{
    char p[600];
    pcapw w;
    path(p, sizeof p, "dnp-gen-heuristic.pcap");
    pw_open(&w, p, LT_ETH, 0);
    noise(&w, 300);
    /* the DNP conversation on port 47100 (no Wireshark dissector claims it) */
    const int C = 50, S = 51;
    MSG(b_hex(&b, "00 0100 0000")); pw_udp(&w, C, 41000, S, 47100, b.p, b.n);
    MSG(b_hex(&b, "01 00 0000")); pw_udp(&w, S, 47100, C, 41000, b.p, b.n);
    MSG(b_hex(&b, "05 0000 0000 01 0000 0100 05 2a000000")); pw_udp(&w, S, 47100, C, 41000, b.p, b.n);
    MSG(ack(0, 0)); pw_udp(&w, C, 41000, S, 47100, b.p, b.n);
    MSG(b_hex(&b, "07 0000")); pw_udp(&w, C, 41000, S, 47100, b.p, b.n);
    MSG(b_hex(&b, "09 01 0000 01 0000 2b000000")); pw_udp(&w, S, 47100, C, 41000, b.p, b.n);
    MSG(b_hex(&b, "02")); pw_udp(&w, C, 41000, S, 47100, b.p, b.n);
    pw_close(&w);
}

/* the same short exchange in every link layer and file format pcaptool reads */
static void small_session(pcapw *w)
{
    const int C = 1;
    const unsigned CP = 40010;
    MSG(b_hex(&b, "00 0100 0000")); c2s(w, C, CP);
    MSG(b_hex(&b, "01 00 0000")); s2c(w, C, CP);
    MSG(b_hex(&b, "05 0000 0000 01 0100 01 0200 08 00c1 05 63000000")); s2c(w, C, CP);
    MSG(ack(0, 0)); c2s(w, C, CP);
    MSG(b_hex(&b, "07 0000")); c2s(w, C, CP);
    /* wire-facts 1.14's captured link update: Float16 -2.5, UInt32 99 */
    MSG(b_hex(&b, "09 01 0000 02 0000 00c1 0100 63000000")); s2c(w, C, CP);
    MSG(b_hex(&b, "02")); c2s(w, C, CP);
}

/* no DNP at all: DNS, NTP and random datagrams only */
static void gen_no_dnp(void)
{
    char p[600];
    pcapw w;
    path(p, sizeof p, "other-gen-no-dnp.pcap");
    pw_open(&w, p, LT_ETH, 0);
    noise(&w, 100);
    pw_close(&w);
}

static void gen_links(void)
{
    static const struct { const char *name; int lt, ng, vlan, v6; } v[] = {
        {"dnp-gen-link-pcapng.pcapng", LT_ETH, 1, 0, 0},
        {"dnp-gen-link-vlan-ipv6.pcap", LT_ETH, 0, 1, 1},
        {"dnp-gen-link-sll.pcap", LT_SLL, 0, 0, 0},
        {"dnp-gen-link-sll2-ipv6.pcapng", LT_SLL2, 1, 0, 1},
        {"dnp-gen-link-rawip.pcap", LT_RAW, 0, 0, 0},
        {"dnp-gen-link-null.pcap", LT_NULL, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char p[600];
        pcapw w;
        path(p, sizeof p, v[i].name);
        pw_open(&w, p, v[i].lt, v[i].ng);
        w.vlan = v[i].vlan;
        w.ipv6 = v[i].v6;
        small_session(&w);
        pw_close(&w);
    }
}

/* ---- one capture per behaviour rule (captures/rules/RULE.pcap) ---------- */

static pcapw rw;
#define RC 1
#define RCP 40100
#define MS 1000ull /* pw_advance units: microseconds */

static void rule_open(const char *rule)
{
    pw_open_rule(&rw, outdir, rule);
}
static void rc2s(void) { c2s(&rw, RC, RCP); }
static void rs2c(void) { s2c(&rw, RC, RCP); }
static void rule_handshake(void)
{
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    MSG(b_hex(&b, "01 00 0000")); rs2c();
}
/* the server links link 0 (UInt8 5, Float16 -2.5) with reliable number 0 */
static void server_link(unsigned flags)
{
    MSG(b_hex(&b, "05 0000 0000"); b_u8(&b, flags); b_hex(&b, "0000 0200 01 05 08 00c1")); rs2c();
}
/* the client acknowledges it and takes it up */
static void client_takes_link(void)
{
    MSG(ack(0, 0)); rc2s();
    MSG(b_hex(&b, "07 0000")); rc2s();
}
/* the server's reliable message #seq, resent every 500 ms `resends` times */
static void server_reliable(unsigned seq, int resends)
{
    for (int i = 0; i <= resends; i++) {
        if (i)
            pw_advance(&rw, 500 * MS - 1000);
        MSG(b_u8(&b, 4); b_u16(&b, seq); b_hex(&b, "aa")); rs2c();
    }
}
static const char *ref_update = "09 01 0000 01 0000 07"; /* link 0: [0] UInt8 7 */

static void rule_captures(void)
{
    /* an unreliable message before the connection is accepted */
    rule_open("dnp.connect.not_accepted");
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    MSG(b_hex(&b, "03 0102")); rc2s();
    MSG(b_hex(&b, "01 00 0000")); rs2c();
    pw_close(&rw);

    /* the client offers DNP1 (0), the server selects protocol 5 */
    rule_open("dnp.connect_ack.not_offered");
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    MSG(b_hex(&b, "01 00 0500")); rs2c();
    pw_close(&rw);

    /* the client's connection request comes again once connected (its
       resend crossed the ack) and the server accepts it again */
    rule_open("dnp.connect_ack.accepted_again");
    rule_handshake();
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    MSG(b_hex(&b, "01 00 0000")); rs2c();
    pw_close(&rw);

    /* the server assigns link id 0 again while its first link is up */
    rule_open("dnp.link.reused_while_up");
    rule_handshake();
    server_link(0);
    client_takes_link();
    MSG(b_hex(&b, "05 0100 0000 00 0000 0200 01 05 08 00c1")); rs2c();
    MSG(ack(1, 0)); rc2s();
    MSG(b_hex(&b, "07 0000")); rc2s();
    pw_close(&rw);

    /* the client resends its connection request 0.3 s after the first */
    rule_open("dnp.connect.resend_early");
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    pw_advance(&rw, 300 * MS - 1000);
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    MSG(b_hex(&b, "01 00 0000")); rs2c();
    pw_close(&rw);

    /* every second for 6 s: past the 5 s connect timeout */
    rule_open("dnp.connect.resend_after_timeout");
    for (int i = 0; i < 7; i++) {
        if (i)
            pw_advance(&rw, 1000 * MS - 1000);
        MSG(b_hex(&b, "00 0100 0000")); rc2s();
    }
    MSG(b_hex(&b, "01 00 0000")); rs2c();
    pw_close(&rw);

    /* the server resends #0 a second after its ack */
    rule_open("dnp.resend.after_ack");
    rule_handshake();
    server_reliable(0, 0);
    MSG(ack(0, 0)); rc2s();
    pw_advance(&rw, 1000 * MS - 1000);
    server_reliable(0, 0);
    MSG(ack(0, 0)); rc2s();
    pw_close(&rw);

    /* a rejection that carries a protocol */
    rule_open("dnp.connect_ack.protocol_in_rejection");
    MSG(b_hex(&b, "00 0100 0000")); rc2s();
    MSG(b_hex(&b, "01 01 0000")); rs2c();
    pw_close(&rw);

    /* the server's first reliable number is 1 */
    rule_open("dnp.seq.first_not_zero");
    rule_handshake();
    server_reliable(1, 0);
    MSG(ack(1, 0)); rc2s();
    pw_close(&rw);

    /* the server sends #0 and #2, never #1 */
    rule_open("dnp.seq.skipped");
    rule_handshake();
    server_reliable(0, 0);
    MSG(ack(0, 0)); rc2s();
    server_reliable(2, 0);
    MSG(ack(2, 0)); rc2s();
    pw_close(&rw);

    /* #15 after #0: outside the window [1, 11) */
    rule_open("dnp.seq.outside_window");
    rule_handshake();
    server_reliable(0, 0);
    MSG(ack(0, 0)); rc2s();
    server_reliable(15, 0);
    MSG(ack(15, 0)); rc2s();
    pw_close(&rw);

    /* from the middle of a conversation (validated with connect.not_accepted
       disabled): the server numbers 65534 then 65535 */
    rule_open("dnp.seq.reserved_65535");
    server_reliable(65534, 0);
    MSG(ack(65534, 0)); rc2s();
    server_reliable(65535, 0);
    MSG(ack(65535, 0)); rc2s();
    pw_close(&rw);

    /* resent every 0.5 s, acknowledged 3.2 s after the first transmission */
    rule_open("dnp.ack.late");
    rule_handshake();
    server_reliable(0, 6);
    pw_advance(&rw, 200 * MS - 1000);
    MSG(ack(0, 0)); rc2s();
    pw_close(&rw);

    /* resent until the 3 s timeout, never acknowledged; the conversation goes on */
    rule_open("dnp.ack.missing");
    rule_handshake();
    server_reliable(0, 6);
    pw_advance(&rw, 500 * MS);
    MSG(b_hex(&b, "03 01")); rs2c();
    pw_close(&rw);

    /* resent after 0.1 s */
    rule_open("dnp.resend.early");
    rule_handshake();
    server_reliable(0, 0);
    pw_advance(&rw, 100 * MS - 1000);
    server_reliable(0, 0);
    MSG(ack(0, 0)); rc2s();
    pw_close(&rw);

    /* acknowledged after 1.5 s without a resend */
    rule_open("dnp.resend.missing");
    rule_handshake();
    server_reliable(0, 0);
    pw_advance(&rw, 1500 * MS - 1000);
    MSG(ack(0, 0)); rc2s();
    pw_close(&rw);

    /* link up before the reliable ack of the link state */
    rule_open("dnp.link.answer_before_ack");
    rule_handshake();
    server_link(0);
    MSG(b_hex(&b, "07 0000")); rc2s();
    MSG(ack(0, 0)); rc2s();
    pw_close(&rw);

    /* link up for a link nobody set up */
    rule_open("dnp.link.answer_unexpected");
    rule_handshake();
    MSG(b_hex(&b, "07 0500")); rc2s();
    pw_close(&rw);

    /* a link state acknowledged, then 3.5 s without link up or down */
    rule_open("dnp.link.unanswered");
    rule_handshake();
    server_link(0);
    MSG(ack(0, 0)); rc2s();
    pw_advance(&rw, 3500 * MS);
    MSG(b_hex(&b, "03 01")); rs2c();
    pw_close(&rw);

    /* a link update before any link up */
    rule_open("dnp.link_update.not_up");
    rule_handshake();
    server_link(0);
    MSG(ack(0, 0)); rc2s();
    MSG(b_hex(&b, ref_update)); rs2c();
    pw_close(&rw);

    /* the client updates a link the server made read-only */
    rule_open("dnp.link_update.read_only");
    rule_handshake();
    server_link(1);
    client_takes_link();
    MSG(b_hex(&b, ref_update)); rc2s();
    pw_close(&rw);

    /* the text's layout (validated under --profile spec), a Float32 where
       the link state has UInt8 */
    rule_open("dnp.link_update.type_mismatch");
    rule_handshake();
    server_link(0);
    client_takes_link();
    MSG(b_hex(&b, "09 0100 0000 0100 09 0000803f")); rs2c();
    pw_close(&rw);

    /* value index 5 of a link with two values */
    rule_open("dnp.link_update.index_out_of_range");
    rule_handshake();
    server_link(0);
    client_takes_link();
    MSG(b_hex(&b, "09 01 0000 01 0500 07")); rs2c();
    pw_close(&rw);

    /* the client closes, then sends a message 0.1 s later */
    rule_open("dnp.close.not_last");
    rule_handshake();
    MSG(b_hex(&b, "02")); rc2s();
    pw_advance(&rw, 100 * MS);
    MSG(b_hex(&b, "03 01")); rc2s();
    pw_close(&rw);

    /* the text's layout under the reference profile: UInt8 9, Float16 1.0 */
    rule_open("dnp.link_update.spec_layout");
    rule_handshake();
    server_link(0);
    client_takes_link();
    MSG(b_hex(&b, "09 0100 0000 0200 01 09 08 003c")); rs2c();
    pw_close(&rw);

    /* what the reference does and the text does not: warnings under
       --profile spec, noted once under the reference profile */
    static const char *const spec_rule[2] = {"dnp.link_update.reference_layout", "dnp.command.not_in_text"};
    static const char *const ref_rule[2] = {"dnp.divergence.update_layout", "dnp.divergence.long_commands"};
    for (int profile = 0; profile < 2; profile++) {
        /* a reference link update */
        rule_open(profile ? spec_rule[0] : ref_rule[0]);
        rule_handshake();
        server_link(0);
        client_takes_link();
        MSG(b_hex(&b, ref_update)); rs2c();
        pw_close(&rw);
        /* a long message (one part, first and last) */
        rule_open(profile ? spec_rule[1] : ref_rule[1]);
        rule_handshake();
        MSG(b_hex(&b, "0a 0000 03 616263")); rs2c();
        MSG(ack(0, 0)); rc2s();
        pw_close(&rw);
    }

    /* from the middle (connect.not_accepted disabled): 65533, 65534, 0 */
    rule_open("dnp.divergence.wrap");
    static const unsigned wrap[] = {65533, 65534, 0};
    for (int i = 0; i < 3; i++) {
        server_reliable(wrap[i], 0);
        MSG(ack(wrap[i], 0)); rc2s();
    }
    pw_close(&rw);
}

int main(int argc, char **argv)
{
    static void (*const sections[])(void) = {
        gen_commands, gen_sequence, gen_malformed, gen_heuristic, gen_links, gen_no_dnp, rule_captures, NULL};
    return pw_run(argc, argv, outdir, sizeof outdir, sections);
}
