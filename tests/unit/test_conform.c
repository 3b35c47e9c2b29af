/* Unit tests of gw_conform_probe (common/active/gw_conform.c), the way a negative
 * conform check ends: on the answer to a probe, not on a clock. The io is a
 * script of what the peer "sends"; it ignores the time it is given, so
 * nothing here depends on scheduling. */
#include <criterion/criterion.h>

#include "active/gw_conform.h"

enum { ANSWER = 1, FORBIDDEN = 2, OTHER = 3 };

typedef struct {
    gw_conform_io io; /* first: the callbacks get it */
    const int *script; /* PDU types; 0: silent (the wait ran out); -1: closed */
    unsigned at, decisive;
    gw_wait ended; /* what the last decisive() was told */
} scripted;

static gw_wait next(gw_conform_io *io, int ms, gw_replay_pdu *p)
{
    (void)ms;
    scripted *s = (scripted *)io;
    int t = s->script[s->at];
    if (t == 0)
        return GW_SILENT; /* and stays so */
    if (t < 0)
        return GW_CLOSED;
    s->at++;
    *p = (gw_replay_pdu){.type = t, .live = true};
    return GW_GOT;
}

static void decisive(gw_conform_io *io, gw_wait w)
{
    scripted *s = (scripted *)io;
    s->ended = w;
    s->decisive = w == GW_GOT ? s->at : 0; /* 1-based: the PDU just taken */
}

static bool of_type(const gw_replay_pdu *p, const void *arg)
{
    return p->type == *(const int *)arg;
}

static const int answer = ANSWER, forbidden = FORBIDDEN;

/* run the probe over script: what it returned, whether the forbidden came,
   the type of the PDU it gave, and which PDU it marked decisive */
static gw_wait last_ended = -1;

static gw_wait probe(const int *script, bool *came, int64_t *type, unsigned *decisive_at)
{
    scripted s = {.io = {.wait_ms = 2000, .next = next, .decisive = decisive}, .script = script, .ended = -1};
    gw_replay_pdu got = {.type = -7};
    gw_wait w = gw_conform_probe(&s.io, of_type, &answer, of_type, &forbidden, &got, came);
    *type = got.type;
    *decisive_at = s.decisive;
    last_ended = s.ended;
    return w;
}

Test(conform_probe, answer_alone_ends_it)
{
    bool came;
    int64_t type;
    unsigned at;
    cr_assert_eq(probe((const int[]){OTHER, ANSWER, 0}, &came, &type, &at), GW_GOT);
    cr_assert(!came);
    cr_assert_eq(type, ANSWER);
    cr_assert_eq(at, 2);
}

Test(conform_probe, forbidden_before_the_answer)
{
    bool came;
    int64_t type;
    unsigned at;
    cr_assert_eq(probe((const int[]){FORBIDDEN, ANSWER, 0}, &came, &type, &at), GW_GOT);
    cr_assert(came);
    cr_assert_eq(type, FORBIDDEN);
    cr_assert_eq(at, 1);
}

/* a peer that answers in batches may put it just after the probe's answer */
Test(conform_probe, forbidden_in_the_grace_after_the_answer)
{
    bool came;
    int64_t type;
    unsigned at;
    cr_assert_eq(probe((const int[]){ANSWER, OTHER, FORBIDDEN, 0}, &came, &type, &at), GW_GOT);
    cr_assert(came);
    cr_assert_eq(type, FORBIDDEN);
    cr_assert_eq(at, 3);
}

/* silence is no evidence: the probe unanswered is said as such */
Test(conform_probe, unanswered_probe_is_silent)
{
    bool came = true;
    int64_t type;
    unsigned at;
    cr_assert_eq(probe((const int[]){OTHER, 0}, &came, &type, &at), GW_SILENT);
    cr_assert(!came);
    cr_assert_eq(at, 0);
    cr_assert_eq(last_ended, GW_SILENT); /* the report draws the silence as what decided */
}

Test(conform_probe, closed_before_the_answer)
{
    bool came = true;
    int64_t type;
    unsigned at;
    cr_assert_eq(probe((const int[]){-1}, &came, &type, &at), GW_CLOSED);
    cr_assert(!came);
    cr_assert_eq(at, 0);
    cr_assert_eq(last_ended, GW_CLOSED);
}

/* the answer came: a close after it takes nothing back */
Test(conform_probe, closed_after_the_answer)
{
    bool came;
    int64_t type;
    unsigned at;
    cr_assert_eq(probe((const int[]){ANSWER, -1}, &came, &type, &at), GW_GOT);
    cr_assert(!came);
    cr_assert_eq(type, ANSWER);
    cr_assert_eq(at, 1);
    cr_assert_eq(last_ended, GW_GOT);
}

/* an await the silence ends: the silence decided, not a PDU got before */
Test(conform_await, silence_after_a_pdu_decides)
{
    scripted s = {.io = {.wait_ms = 2000, .next = next, .decisive = decisive}, .script = (const int[]){OTHER, 0}};
    gw_replay_pdu got;
    cr_assert_eq(gw_conform_await(&s.io, 100, NULL, NULL, &got), GW_GOT);
    cr_assert_eq(s.decisive, 1);
    cr_assert_eq(s.ended, GW_GOT);
    cr_assert_eq(gw_conform_await(&s.io, 100, of_type, &answer, &got), GW_SILENT);
    cr_assert_eq(s.decisive, 0);
    cr_assert_eq(s.ended, GW_SILENT);
}
