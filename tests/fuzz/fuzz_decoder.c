/* fuzz_decoder.c - libFuzzer harness for one protocol decoder, built once
 * per protocol (FUZZ_PROTO, e.g. "dnp"). The input is one conversation:
 *
 *   options:u8, then records until the input ends:
 *     head:u8   bit 0: direction (0 = from the initiator)
 *               bit 1: to the linked conversation announced by expect(), if any
 *               bit 2: over TCP (protocols that have both transports)
 *               bit 3: cut by the protocol's TCP framing (pdu_length) first
 *               bits 4-7: k, time since the previous record: 0, else 2^(k-1) ms
 *     len:u16le, then len bytes (fewer if the input ends)
 *
 * Each record is decoded as one PDU from its own heap copy of exactly its
 * size, so that a read past the end is caught by AddressSanitizer; the sink
 * checks the front ends' invariants (fuzz_check.h). The heuristic sees every
 * record too. At the end the conversation ends (conv_end) and is freed.
 * tests/fuzz/make_seeds.c writes this format from the captures. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#ifndef FUZZ_PROTO
#error "FUZZ_PROTO names the protocol"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gw_protocol *p = gw_protocol_by_name(FUZZ_PROTO);
    if (!p)
        abort();
    if (size < 1)
        return 0;
    fuzz_set_options(p, data[0]);
    size_t at = 1;
    void *conv = fuzz_conv_new(p), *linked = NULL;
    fuzz_check k;
    uint32_t frame = 0;
    int64_t now = 1700000000ll * 1000000000;
    while (size - at >= 3) {
        uint8_t head = data[at];
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (len > size - at)
            len = size - at;
        unsigned k_time = head >> 4;
        if (k_time)
            now += (int64_t)1000000 << (k_time - 1);
        int transport = p->transports & GW_TRANSPORT_UDP ? GW_TRANSPORT_UDP : GW_TRANSPORT_TCP;
        if ((head & 4) && (p->transports & GW_TRANSPORT_TCP))
            transport = GW_TRANSPORT_TCP;
        size_t n = len;
        if (transport == GW_TRANSPORT_TCP && (head & 8) && p->pdu_length && len >= p->pdu_header) {
            long want = p->pdu_length(fuzz_opts(p), data + at, len);
            if (want > 0 && (size_t)want <= len)
                n = (size_t)want;
        }
        gw_pdu_info pi = {.frame = ++frame, .time_ns = now, .dir = head & 1, .transport = transport};
        void *target = (head & 2) && linked ? linked : conv;
        k.expected_parent = NULL;
        fuzz_decode(&k, p, target, &pi, data + at, n);
        at += len;
        /* a linked conversation announced: the newest replaces the last */
        if (k.expected_parent && p->conv_link) {
            void *fresh = fuzz_conv_new(p);
            p->conv_link(fresh, k.expected_parent);
            if (linked)
                fuzz_conv_end(p, linked);
            linked = fresh;
        }
    }
    if (linked)
        fuzz_conv_end(p, linked);
    fuzz_conv_end(p, conv);
    return 0;
}
