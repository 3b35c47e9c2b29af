/* gw_conform.c - what pcaptool conform's cases share (gw_conform.h). */
#include "active/gw_conform.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

int64_t gw_conform_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t gw_conform_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint32_t gw_conform_random(void)
{
    static uint64_t x;
    if (!x) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        x = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15u;
    }
    x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
    return (uint32_t)(x >> 16);
}

const char *gw_verdict_name(gw_verdict v)
{
    static const char *const names[GW_N_VERDICTS] = {"pass", "non-strict", "fail", "info", "skipped"};
    return v < GW_N_VERDICTS ? names[v] : "?";
}

const char *gw_strength_name(gw_strength s)
{
    static const char *const names[GW_N_STRENGTHS] = {"unstated", "MUST", "SHOULD", "open", "reference"};
    return s < GW_N_STRENGTHS ? names[s] : "?";
}

gw_verdict gw_conform_say(gw_conform_io *io, gw_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->outcome, sizeof io->outcome, fmt, ap);
    va_end(ap);
    return v;
}

static bool send_built(gw_conform_io *io, bool link, const gw_protocol *p, int64_t type, const gw_wval *vals)
{
    uint8_t d[2048];
    size_t n = p->build ? p->build(io->opts, type, vals, d, sizeof d) : 0;
    if (!n) {
        gw_conform_say(io, GW_FAIL, "pcaptool could not build its %s PDU of type %lld", p->short_name,
                       (long long)type);
        return false;
    }
    if (!(link ? io->send_link : io->send)(io, d, n)) {
        gw_conform_say(io, GW_FAIL, "could not send to the peer");
        return false;
    }
    return true;
}

bool gw_conform_send(gw_conform_io *io, const gw_protocol *p, int64_t type, const gw_wval *vals)
{
    return send_built(io, false, p, type, vals);
}

bool gw_conform_send_link(gw_conform_io *io, const gw_protocol *p, int64_t type, const gw_wval *vals)
{
    return send_built(io, true, p, type, vals);
}

bool gw_conform_of_type(const gw_replay_pdu *p, const void *arg)
{
    return p->type == *(const int64_t *)arg;
}

gw_wait gw_conform_await(gw_conform_io *io, int ms, gw_conform_want want, const void *arg,
                         gw_replay_pdu *got)
{
    return gw_conform_await_until(io, gw_conform_clock_ms() + ms, want, arg, got);
}

gw_wait gw_conform_await_until(gw_conform_io *io, int64_t deadline, gw_conform_want want, const void *arg,
                               gw_replay_pdu *got)
{
    for (;;) {
        int64_t left = deadline - gw_conform_clock_ms();
        gw_wait w = io->next(io, left > 0 ? (int)left : 0, got);
        if (w != GW_GOT) {
            io->decisive(io, w);
            return w;
        }
        if (!want || want(got, arg)) {
            io->decisive(io, GW_GOT);
            return GW_GOT;
        }
    }
}

int64_t gw_conform_grace_ms(const gw_conform_io *io, int64_t sent_ms)
{
    int64_t grace = 2 * (gw_conform_clock_ms() - sent_ms);
    if (grace < GW_PROBE_GRACE_MS)
        grace = GW_PROBE_GRACE_MS;
    if (grace > io->wait_ms / 2)
        grace = io->wait_ms / 2;
    return grace;
}

gw_wait gw_conform_probe(gw_conform_io *io, gw_conform_want answer, const void *answer_arg, gw_conform_want forbidden,
                         const void *forbidden_arg, gw_replay_pdu *got, bool *forbidden_came)
{
    int64_t sent = gw_conform_clock_ms(), deadline = sent + io->wait_ms;
    bool answered = false;
    gw_replay_pdu a;
    *forbidden_came = false;
    for (;;) {
        int64_t left = deadline - gw_conform_clock_ms();
        gw_wait w = io->next(io, left > 0 ? (int)left : 0, &a);
        if (w != GW_GOT) {
            if (!answered)
                io->decisive(io, w);
            return answered ? GW_GOT : w;
        }
        if (forbidden(&a, forbidden_arg)) {
            io->decisive(io, GW_GOT);
            *got = a;
            *forbidden_came = true;
            return GW_GOT;
        }
        if (!answered && answer(&a, answer_arg)) {
            io->decisive(io, GW_GOT);
            *got = a;
            answered = true;
            deadline = gw_conform_clock_ms() + gw_conform_grace_ms(io, sent);
        }
    }
}
