/* pcapw.c - see pcapw.h */
#include "pcapw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void pw_open_rule(pcapw *w, const char *outdir, const char *rule)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/rules", outdir);
    mkdir(path, 0755); /* EEXIST is fine; fopen reports the rest */
    snprintf(path, sizeof path, "%s/rules/%s.pcap", outdir, rule);
    pw_open(w, path, LT_ETH, 0);
}

static void w16be(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); } /* host order: x86 LE */
static void put16(FILE *f, uint16_t v) { fwrite(&v, 2, 1, f); }

void pw_open(pcapw *w, const char *path, int linktype, int pcapng)
{
    memset(w, 0, sizeof *w);
    w->f = fopen(path, "wb");
    if (!w->f) {
        perror(path);
        exit(1);
    }
    w->linktype = linktype;
    w->pcapng = pcapng;
    w->t_us = 1795000000ull * 1000000; /* 2026-11-19 */
    if (pcapng) {
        /* section header block */
        put32(w->f, 0x0a0d0d0a); put32(w->f, 28); put32(w->f, 0x1a2b3c4d);
        put16(w->f, 1); put16(w->f, 0); put32(w->f, 0xffffffff); put32(w->f, 0xffffffff);
        put32(w->f, 28);
        /* interface description block */
        put32(w->f, 1); put32(w->f, 20); put16(w->f, (uint16_t)linktype); put16(w->f, 0);
        put32(w->f, 65535); put32(w->f, 20);
    } else {
        put32(w->f, 0xa1b2c3d4); put16(w->f, 2); put16(w->f, 4); put32(w->f, 0);
        put32(w->f, 0); put32(w->f, 65535); put32(w->f, (uint32_t)linktype);
    }
}

void pw_close(pcapw *w)
{
    fclose(w->f);
}

void pw_advance(pcapw *w, uint64_t us)
{
    w->t_us += us;
}

static uint16_t ip_checksum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* a frame around an IP payload of protocol `proto` (l4 header + data) */
static void pw_ip(pcapw *w, int src_host, int dst_host, int proto, const uint8_t *l4, size_t l4len)
{
    static uint8_t frame[70000];
    size_t o = 0;
    unsigned ethertype = w->ipv6 ? 0x86dd : 0x0800;
    switch (w->linktype) {
    case LT_ETH:
        memcpy(frame, "\x02\x00\x00\x00\x00", 5); frame[5] = (uint8_t)dst_host;
        memcpy(frame + 6, "\x02\x00\x00\x00\x00", 5); frame[11] = (uint8_t)src_host;
        o = 12;
        if (w->vlan) {
            w16be(frame + o, 0x8100); w16be(frame + o + 2, 42); o += 4;
        }
        w16be(frame + o, ethertype); o += 2;
        break;
    case LT_SLL:
        memset(frame, 0, 16);
        w16be(frame, 0); w16be(frame + 2, 1); w16be(frame + 4, 6);
        frame[11] = (uint8_t)src_host;
        w16be(frame + 14, ethertype);
        o = 16;
        break;
    case LT_SLL2:
        memset(frame, 0, 20);
        w16be(frame, ethertype); frame[7] = 1; w16be(frame + 8, 1); frame[11] = 6;
        o = 20;
        break;
    case LT_NULL: {
        uint32_t fam = w->ipv6 ? 30 : 2;
        memcpy(frame, &fam, 4);
        o = 4;
        break;
    }
    default:
        break;
    }
    if (w->ipv6) {
        uint8_t *ip = frame + o;
        memset(ip, 0, 40);
        ip[0] = 0x60; w16be(ip + 4, (unsigned)l4len); ip[6] = (uint8_t)proto; ip[7] = 64;
        ip[8] = 0xfd; ip[23] = (uint8_t)src_host;
        ip[24] = 0xfd; ip[39] = (uint8_t)dst_host;
        o += 40;
    } else {
        uint8_t *ip = frame + o;
        memset(ip, 0, 20);
        ip[0] = 0x45; w16be(ip + 2, (unsigned)(20 + l4len)); ip[6] = 0x40; ip[8] = 64;
        ip[9] = (uint8_t)proto;
        ip[12] = 10; ip[15] = (uint8_t)src_host;
        ip[16] = 10; ip[19] = (uint8_t)dst_host;
        w16be(ip + 10, ip_checksum(ip, 20));
        o += 20;
    }
    memcpy(frame + o, l4, l4len);
    o += l4len;

    uint32_t sec = (uint32_t)(w->t_us / 1000000), usec = (uint32_t)(w->t_us % 1000000);
    if (w->pcapng) {
        size_t pad = (4 - o % 4) % 4;
        uint32_t total = (uint32_t)(32 + o + pad);
        put32(w->f, 6); put32(w->f, total); put32(w->f, 0);
        put32(w->f, (uint32_t)(w->t_us >> 32)); put32(w->f, (uint32_t)w->t_us);
        put32(w->f, (uint32_t)o); put32(w->f, (uint32_t)o);
        fwrite(frame, 1, o, w->f);
        fwrite("\0\0\0", 1, pad, w->f);
        put32(w->f, total);
    } else {
        put32(w->f, sec); put32(w->f, usec); put32(w->f, (uint32_t)o); put32(w->f, (uint32_t)o);
        fwrite(frame, 1, o, w->f);
    }
    w->t_us += 1000; /* 1 ms between packets unless told otherwise */
}

void pw_udp(pcapw *w, int src_host, uint16_t sport, int dst_host, uint16_t dport,
            const uint8_t *data, size_t len)
{
    static uint8_t l4[70000];
    w16be(l4, sport); w16be(l4 + 2, dport); w16be(l4 + 4, (unsigned)(8 + len)); w16be(l4 + 6, 0);
    if (len)
        memcpy(l4 + 8, data, len);
    pw_ip(w, src_host, dst_host, 17, l4, 8 + len);
}

void pw_tcp(pcapw *w, int src_host, uint16_t sport, int dst_host, uint16_t dport, uint32_t seq,
            uint32_t ack, unsigned flags, const uint8_t *data, size_t len)
{
    static uint8_t l4[70000];
    memset(l4, 0, 20);
    w16be(l4, sport); w16be(l4 + 2, dport);
    w16be(l4 + 4, seq >> 16); w16be(l4 + 6, seq & 0xffff);
    w16be(l4 + 8, ack >> 16); w16be(l4 + 10, ack & 0xffff);
    l4[12] = 5 << 4; l4[13] = (uint8_t)flags; w16be(l4 + 14, 65535);
    if (len) /* control segments pass no data */
        memcpy(l4 + 20, data, len);
    pw_ip(w, src_host, dst_host, 6, l4, 20 + len);
}

static void b_grow(bytes *b, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
}

void b_reset(bytes *b) { b->n = 0; }
void b_raw(bytes *b, const void *p, size_t n) { b_grow(b, n); memcpy(b->p + b->n, p, n); b->n += n; }
void b_u8(bytes *b, unsigned v) { uint8_t x = (uint8_t)v; b_raw(b, &x, 1); }
void b_u16(bytes *b, unsigned v) { b_u8(b, v & 0xff); b_u8(b, (v >> 8) & 0xff); }
void b_u32(bytes *b, uint32_t v) { b_u16(b, v & 0xffff); b_u16(b, v >> 16); }
void b_u64(bytes *b, uint64_t v) { b_u32(b, (uint32_t)v); b_u32(b, (uint32_t)(v >> 32)); }
void b_f32(bytes *b, float v) { uint32_t u; memcpy(&u, &v, 4); b_u32(b, u); }
void b_f64(bytes *b, double v) { uint64_t u; memcpy(&u, &v, 8); b_u64(b, u); }
void b_str16(bytes *b, const char *s) { size_t n = strlen(s); b_u16(b, (unsigned)n); b_raw(b, s, n); }

void b_hex(bytes *b, const char *hex)
{
    unsigned v;
    while (*hex) {
        if (*hex == ' ') {
            hex++;
            continue;
        }
        sscanf(hex, "%2x", &v);
        b_u8(b, v);
        hex += 2;
    }
}

int pw_run(int argc, char **argv, char *outdir, size_t n, void (*const *sections)(void))
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    snprintf(outdir, n, "%s", argv[1]);
    while (*sections)
        (*sections++)();
    return 0;
}
