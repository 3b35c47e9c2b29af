/* fuzz_tcp.c - libFuzzer harness for pcaptool's TCP reassembler
 * (pcaptool/tcpstream.c) with the decoder of a TCP protocol behind it. The
 * input is one connection:
 *
 *   proto:u8 (its value modulo their number picks one of the protocols that
 *   run over TCP, the value divided by 4 its options: the framing of some,
 *   OpenDrakan's, depends on them), then segments:
 *     head:u8   bit 0: direction; bits 1-4: FIN, SYN, RST, ACK;
 *               bit 5: absolute sequence number follows (u32le), else
 *     delta:i16le  the sequence number relative to the next byte expected
 *               in that direction, as the reassembler's user would track it
 *     len:u16le, then len bytes (fewer if the input ends)
 *
 * Checked: every PDU handed on that the framing can measure has exactly the
 * length the framing gives; no more bytes come out than went in; each PDU is
 * then decoded (from its own heap copy, the heuristic seeing it too)
 * through the checking sink. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "tcpstream.h"

typedef struct {
    const gw_protocol *p;
    void *conv;
    int dir;
    uint32_t frame;
    uint32_t last_at[2]; /* the frame of the direction's last PDU */
    uint64_t bytes_in, bytes_out;
} tcp_fuzz;

/* a PDU or event is never on a frame not read yet */
static void check_stamp(const tcp_fuzz *t, const tcp_stamp *at)
{
    if (!at || at->frame > t->frame || at->time_ns != (int64_t)at->frame * 1000000)
        fuzz_fail("a stamp of a frame not read yet, or none");
}

static void on_pdu(void *ctx, const uint8_t *data, size_t len, const tcp_stamp *at)
{
    tcp_fuzz *t = ctx;
    check_stamp(t, at);
    if (at->frame < t->last_at[t->dir])
        fuzz_fail("a PDU on an earlier frame than the one before it in its direction");
    t->last_at[t->dir] = at->frame;
    t->bytes_out += len;
    if (t->bytes_out > t->bytes_in)
        fuzz_fail("more bytes out of the reassembler than went in");
    if (len >= t->p->pdu_header) {
        long want = t->p->pdu_length(fuzz_opts(t->p), data, len);
        if (want > 0 && (size_t)want != len)
            fuzz_fail("PDU length differs from the framing's");
    }
    fuzz_check k;
    gw_pdu_info pi = {.frame = at->frame, .time_ns = at->time_ns, .dir = t->dir,
                      .transport = GW_TRANSPORT_TCP};
    fuzz_decode(&k, t->p, t->conv, &pi, data, len);
}

static void on_event(void *ctx, tcp_event ev, uint64_t bytes, const tcp_stamp *at)
{
    (void)bytes;
    check_stamp(ctx, at);
    if ((int)ev < 0 || ev >= TCP_N_EVENTS)
        fuzz_fail("unknown TCP event");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gw_protocol *tcp_protos[GW_MAX_PROTOCOLS];
    int n_tcp = 0;
    for (int i = 0; gw_protocols[i]; i++)
        if ((gw_protocols[i]->transports & GW_TRANSPORT_TCP) && gw_protocols[i]->pdu_length)
            tcp_protos[n_tcp++] = gw_protocols[i];
    if (size < 1 || n_tcp == 0)
        return 0;
    tcp_fuzz t = {.p = tcp_protos[data[0] % n_tcp]};
    fuzz_set_options(t.p, data[0] / 4u);
    t.conv = fuzz_conv_new(t.p);
    /* a small budget, so that the limit is reached too */
    tcp_budget budget = {.limit = 1u << 16};
    tcp_half half[2];
    tcp_half_init(&half[0], &budget);
    tcp_half_init(&half[1], &budget);
    uint32_t next[2] = {1000, 900000};
    tcp_sink out = {on_pdu, on_event, &t};
    size_t at = 1;
    while (size - at >= 5) {
        uint8_t head = data[at++];
        int dir = head & 1;
        uint32_t seq;
        if (head & 0x20) {
            if (size - at < 4)
                break;
            memcpy(&seq, data + at, 4);
            at += 4;
        } else {
            int16_t delta;
            memcpy(&delta, data + at, 2);
            at += 2;
            seq = next[dir] + (uint32_t)(int32_t)delta;
        }
        if (size - at < 2)
            break;
        size_t len = (size_t)data[at] | (size_t)data[at + 1] << 8;
        at += 2;
        if (len > size - at)
            len = size - at;
        uint8_t flags = (uint8_t)(((head >> 1) & 1 ? TCP_FIN : 0) | ((head >> 2) & 1 ? TCP_SYN : 0) |
                                  ((head >> 3) & 1 ? TCP_RST : 0) | ((head >> 4) & 1 ? TCP_ACK : 0));
        uint8_t *seg = fuzz_copy(data + at, len);
        at += len;
        t.dir = dir;
        t.frame++;
        t.bytes_in += len;
        tcp_stamp now = {t.frame, (int64_t)t.frame * 1000000, (int64_t)(t.frame - 1) * 1000000};
        tcp_half_segment(&half[dir], t.p, fuzz_opts(t.p), seq, flags, seg, len, &now, &out);
        free(seg);
        uint32_t end = seq + (uint32_t)len + ((flags & TCP_SYN) ? 1 : 0);
        if ((int32_t)(end - next[dir]) > 0)
            next[dir] = end;
    }
    tcp_stamp last = {t.frame, (int64_t)t.frame * 1000000, (int64_t)(t.frame - 1) * 1000000};
    for (int d = 0; d < 2; d++) {
        t.dir = d;
        tcp_half_finish(&half[d], t.p, fuzz_opts(t.p), &last, &out);
        tcp_half_release(&half[d]);
    }
    if (budget.used != 0)
        fuzz_fail("the TCP budget does not return to 0");
    fuzz_conv_end(t.p, t.conv);
    return 0;
}
