/* dnp_conform.c - pcaptool conform's cases for DNP (gw_conform.h): what
 * the DNP text requires of a server and a client, and where the text is silent
 * what the reference implementation (LordOfDragons/denetwork,
 * wire-facts 1) does. Every command sent is built from the
 * decoder's layouts (dnp.c, dnp_build); every answer is read through the
 * decoder's fields. */
#include <stdio.h>

#include "active/gw_conform.h"
#include "active/gw_fuzz.h"
#include "dnp/dnp.h"

#define P (&gw_dnp_protocol)
#define RELIABLE "DNP text, Reliable Communication"
#define BOTH (GW_ROLE_SERVER | GW_ROLE_CLIENT)

static const uint8_t payload[] = "conform";

/* what a case sent and what the peer answered that refers to nothing sent */
static bool reliable_command(const gw_replay_pdu *p)
{
    return p->type == DNP_RELIABLE_MESSAGE || p->type == DNP_LINK_STATE || p->type == DNP_RELIABLE_MESSAGE_LONG ||
           p->type == DNP_LINK_STATE_LONG;
}

typedef struct {
    uint64_t numbers;   /* bit n: reliable #n was sent (pcaptool sends #0 to #10) */
    int64_t sent_ns[64]; /* when #n first went (wall clock) */
    unsigned requests;  /* connection requests sent */
    unsigned answers;   /* connection acks received */
    int64_t bogus_ack;  /* 1 + the number of an ack of nothing sent; 0: none */
    uint64_t peer_acked; /* bit n: the peer acknowledged #n (its own ack, not ours sent back) */
    bool peer_closed;   /* the peer sent a connection close */
    int64_t peer_first; /* 1 + the number of the peer's first reliable command; 0: none yet */
    bool hold_acks;     /* the duty leaves the peer's reliable commands unacknowledged */
    bool connected;     /* a connection was accepted (by either side) */
} dnp_case;

/* is number n in the set (bit n; numbers past 63 are never in it)? */
static bool in_set(uint64_t set, uint64_t n)
{
    return n < 64 && (set >> n & 1);
}

static void sent_number(gw_conform_io *io, uint64_t n)
{
    dnp_case *k = io->case_state;
    if (n < 64 && !in_set(k->numbers, n)) {
        k->numbers |= 1ull << n;
        k->sent_ns[n] = gw_conform_wall_ns(); /* just before it goes */
    }
}

/* ---- the peer's answers ---------------------------------------------------- */

static bool ack_of(const gw_replay_pdu *p, const void *arg)
{
    uint64_t seq;
    return p->type == DNP_RELIABLE_ACK && gw_replay_u(p, DNP_F_SEQ, &seq) && seq == *(const uint64_t *)arg;
}

static bool any_ack(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return p->type == DNP_RELIABLE_ACK;
}

static bool link_answer(const gw_replay_pdu *p, const void *arg)
{
    uint64_t id;
    return (p->type == DNP_LINK_UP || p->type == DNP_LINK_DOWN) && gw_replay_u(p, DNP_F_LINK_ID, &id) &&
           id == *(const uint64_t *)arg;
}

static bool send_reliable(gw_conform_io *io, uint64_t number)
{
    sent_number(io, number);
    return gw_conform_send(io, P, DNP_RELIABLE_MESSAGE,
                           GW_WVALS(GW_WU(DNP_F_SEQ, number), GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1)));
}

static bool send_request(gw_conform_io *io, unsigned n, const uint16_t *protocols)
{
    gw_wval v[18] = {GW_WU(DNP_F_PROTOCOL_COUNT, n)};
    for (unsigned i = 0; i < n && i < 16; i++)
        v[1 + i] = (gw_wval)GW_WU(DNP_F_PROTOCOL, protocols[i]);
    v[1 + (n < 16 ? n : 16)].field = GW_W_END;
    ((dnp_case *)io->case_state)->requests++;
    return gw_conform_send(io, P, DNP_CONNECT_REQUEST, v);
}

/* Reliable #number sent: is it acknowledged (with code 0) within the wait?
   An ack with result 1 asks for a resend ("Used if the receiver would like
   sender to resend the message"): pcaptool resends, up to three times.
   GW_PASS, or the verdict with the outcome said. With `forbidden` (NULL:
   none), #number is the probe that ends a negative check
   (gw_conform_probe): a PDU it accepts, before the ack or just after,
   sets *bad and *got and returns GW_FAIL, its outcome for the caller to
   say. */
static gw_verdict probe_acked(gw_conform_io *io, uint64_t number, const char *what, gw_conform_want forbidden,
                              const void *forbidden_arg, bool *bad, gw_replay_pdu *got)
{
    *bad = false;
    for (unsigned sent = 1;; sent++) {
        if (!send_reliable(io, number))
            return GW_FAIL;
        gw_wait w = forbidden && sent == 1 ? gw_conform_probe(io, ack_of, &number, forbidden, forbidden_arg, got, bad)
                                           : gw_conform_await(io, io->wait_ms, ack_of, &number, got);
        if (*bad)
            return GW_FAIL;
        if (w != GW_GOT && ((dnp_case *)io->case_state)->peer_closed)
            /* "Send by the client before closing connection to server. Send
               by server before disconnecting client": either may end it
               when it likes, and then nothing more can be asked */
            return gw_conform_say(io, GW_SKIPPED, "%s: the peer closed the connection (its right) before reliable "
                                  "message #%llu could be acknowledged; nothing to judge", what,
                                  (unsigned long long)number);
        if (w == GW_CLOSED)
            return gw_conform_say(io, GW_FAIL, "%s: the connection ended before reliable message #%llu was "
                                  "acknowledged", what, (unsigned long long)number);
        if (w == GW_SILENT)
            return gw_conform_say(io, GW_FAIL, "%s: reliable message #%llu was not acknowledged within %.1f s", what,
                                  (unsigned long long)number, io->wait_ms / 1000.0);
        uint64_t code = 0;
        gw_replay_u(got, DNP_F_ACK_CODE, &code);
        if (code == 0)
            return GW_PASS;
        if (code != 1)
            return gw_conform_say(io, GW_FAIL, "%s: reliable message #%llu was acknowledged with result %llu (it "
                                  "\"has to be one of these values\": 0 or 1)", what, (unsigned long long)number,
                                  (unsigned long long)code);
        if (sent == 4)
            return gw_conform_say(io, GW_INFO, "%s: reliable message #%llu was acknowledged with result 1 (resend) "
                                  "each of the four times it was sent", what, (unsigned long long)number);
    }
}

static gw_verdict acked(gw_conform_io *io, uint64_t number, const char *what)
{
    bool bad;
    gw_replay_pdu a;
    return probe_acked(io, number, what, NULL, NULL, &bad, &a);
}

/* forbidden while a probe #n is out: an ack of another number, or a second
   ack of #n (a peer acknowledging what it should not may give it any
   number, #n among them) */
typedef struct {
    uint64_t number;
    unsigned acks;
} probe_number;

static bool other_ack(const gw_replay_pdu *p, const void *arg)
{
    probe_number *n = (probe_number *)arg;
    return p->type == DNP_RELIABLE_ACK && (!ack_of(p, &n->number) || n->acks++ > 0);
}

/* `unless` was sent, which must go unacknowledged: then reliable #number,
   acknowledged (acked()) in the same wait, ends the check (the probe) */
static gw_verdict acked_unless(gw_conform_io *io, uint64_t number, const char *what, const char *unless)
{
    bool bad;
    gw_replay_pdu a;
    probe_number n = {number, 0};
    gw_verdict v = probe_acked(io, number, what, other_ack, &n, &bad, &a);
    if (!bad)
        return v;
    uint64_t seq = 0;
    gw_replay_u(&a, DNP_F_SEQ, &seq);
    return gw_conform_say(io, GW_FAIL, "%s, but the peer acknowledged #%llu", unless, (unsigned long long)seq);
}

/* the server's answer to a connection request: GW_PASS with the result, or
   GW_FAIL with the outcome said */
static gw_verdict request_answer(gw_conform_io *io, uint64_t *result, uint64_t *proto)
{
    int64_t type = DNP_CONNECT_ACK;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, gw_conform_of_type, &type, &a);
    if (w == GW_CLOSED)
        return gw_conform_say(io, GW_FAIL, "the server's port was closed (ICMP port unreachable)");
    if (w != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "no connection ack within %.1f s", io->wait_ms / 1000.0);
    *result = 1;
    *proto = UINT64_MAX;
    gw_replay_u(&a, DNP_F_RESULT, result);
    gw_replay_u(&a, DNP_F_PROTOCOL, proto);
    return GW_PASS;
}

/* a connection request offering n protocols, and the server's answer */
static gw_verdict request_answered(gw_conform_io *io, unsigned n, const uint16_t *offer, uint64_t *result,
                                   uint64_t *proto)
{
    *result = 1;
    *proto = UINT64_MAX;
    if (!send_request(io, n, offer))
        return GW_FAIL;
    return request_answer(io, result, proto);
}

static const uint16_t dnp1[] = {0}; /* the only protocol the text defines */

/* `what` was sent, which a server must leave unacknowledged: a connection
   request, which it must answer, is the probe that ends the check
   (gw_conform_probe). `silent`: the outcome when the request goes
   unanswered too; `pass`: when answered (a %llu for its result). */
static gw_verdict unacked_then_answered(gw_conform_io *io, const char *what, const char *silent, const char *pass)
{
    if (!send_request(io, 1, dnp1))
        return GW_FAIL;
    int64_t type = DNP_CONNECT_ACK;
    gw_replay_pdu a;
    bool acked;
    gw_wait w = gw_conform_probe(io, gw_conform_of_type, &type, any_ack, NULL, &a, &acked);
    uint64_t n = 0;
    if (acked) {
        gw_replay_u(&a, DNP_F_SEQ, &n);
        return gw_conform_say(io, GW_FAIL, "%s, but the peer acknowledged #%llu", what, (unsigned long long)n);
    }
    if (w == GW_CLOSED)
        return gw_conform_say(io, GW_FAIL, "%s; then the server's port was closed (nothing shows it ignored it)", what);
    if (w != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "%s", silent);
    gw_replay_u(&a, DNP_F_RESULT, &n);
    return gw_conform_say(io, GW_PASS, pass, (unsigned long long)n);
}

/* A fresh connection: as the client, request one offering DNP1 and wait
   for its acceptance; as the server, wait for the client's request and
   accept it with DNP1. GW_PASS, or the case's verdict with the outcome
   said: a refusal for "technical reasons or restrictions imposed on the
   client" (result 1, and any code the text does not know, which "has to
   be treated as if ResultCode had been 1") is the server's right, and
   leaves nothing to judge: skipped. So is a refusal for no common protocol
   (result 2): DNP1 is the only protocol the text defines, but no sentence
   requires a server to speak it ("New protocols can be added in the
   future"), and one that speaks none the client offers answers 2. */
static gw_verdict open_connection(gw_conform_io *io)
{
    gw_replay_pdu a;
    if (io->role == GW_ROLE_SERVER) {
        uint64_t result, proto;
        if (request_answered(io, 1, dnp1, &result, &proto) != GW_PASS)
            return GW_FAIL;
        if (result == 0)
            return GW_PASS;
        if (result == 2)
            return gw_conform_say(io, GW_SKIPPED, "the server refused DNP1 for no common protocol (result 2): it "
                                  "speaks none the text defines, which no sentence requires of it; nothing to judge");
        return gw_conform_say(io, GW_SKIPPED, "the server refused the connection (result %llu: technical reasons or "
                              "restrictions, its right); nothing to judge", (unsigned long long)result);
    }
    int64_t type = DNP_CONNECT_REQUEST;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &type, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the client sent no connection request within %.1f s", io->wait_ms / 1000.0);
    if (!gw_conform_send(io, P, DNP_CONNECT_ACK, GW_WVALS(GW_WU(DNP_F_RESULT, 0), GW_WU(DNP_F_PROTOCOL, 0))))
        return GW_FAIL;
    ((dnp_case *)io->case_state)->connected = true;
    return GW_PASS;
}

#define OPEN_OR_FAIL(io) \
    do { \
        gw_verdict open_ = open_connection(io); \
        if (open_ != GW_PASS) \
            return open_; \
    } while (0)

/* ---- both roles ------------------------------------------------------------ */

static gw_verdict reliable_acked(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    gw_verdict v = acked(io, 0, "the first reliable message");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "reliable message #0 was acknowledged with result 0") : v;
}

static const gw_conform_case case_reliable_acked = {
    "dnp/reliable/acked", BOTH, "A reliable message is acknowledged", RELIABLE,
    "Every valid received command has to be acknowledged.",
    "a connection, then reliable message #0",
    "a reliable ack of #0 with result 0 (pcaptool resends, up to three times, while the ack says 1: a resend "
    "asked for; Info when it always does); Fail when none comes or the result is neither 0 nor 1",
    reliable_acked, GW_MUST};

static gw_verdict reliable_each_acked(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    for (uint64_t n = 0; n < 5; n++)
        if (!send_reliable(io, n))
            return GW_FAIL;
    bool seen[5] = {false};
    unsigned got = 0;
    gw_replay_pdu a;
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    while (got < 5 && gw_conform_await_until(io, until, any_ack, NULL, &a) == GW_GOT) {
        uint64_t seq;
        if (gw_replay_u(&a, DNP_F_SEQ, &seq) && seq < 5 && !seen[seq]) {
            seen[seq] = true;
            got++;
        }
    }
    if (got == 5)
        return gw_conform_say(io, GW_PASS, "all five reliable messages #0 to #4 were acknowledged");
    if (((dnp_case *)io->case_state)->peer_closed)
        return gw_conform_say(io, GW_SKIPPED, "the peer closed the connection (its right) after %u of five "
                              "acknowledgements; nothing to judge", got);
    unsigned first = 0;
    while (seen[first])
        first++;
    return gw_conform_say(io, GW_FAIL, "%u of five reliable messages were acknowledged; #%u was not", got, first);
}

static const gw_conform_case case_reliable_each_acked = {
    "dnp/reliable/each-acked", BOTH, "Each of several reliable messages is acknowledged", RELIABLE,
    "Every valid received command has to be acknowledged.",
    "a connection, then reliable messages #0 to #4 back to back",
    "an ack for each of #0 to #4, in any order; Fail when one is missing",
    reliable_each_acked, GW_MUST};

/* reliable #a, then #b once #a is acknowledged: both acknowledged */
static gw_verdict acked_in_turn(gw_conform_io *io, uint64_t a, const char *what_a, uint64_t b, const char *what_b,
                                const char *pass)
{
    OPEN_OR_FAIL(io);
    gw_verdict v = acked(io, a, what_a);
    if (v == GW_PASS)
        v = acked(io, b, what_b);
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "%s", pass) : v;
}

static gw_verdict reliable_duplicate(gw_conform_io *io)
{
    return acked_in_turn(io, 0, "the first transmission", 0, "the duplicate", "both transmissions of #0 were acknowledged");
}

static const gw_conform_case case_reliable_duplicate_acked = {
    "dnp/reliable/duplicate-acked", BOTH, "A duplicate reliable message is acknowledged again", RELIABLE,
    "The receiving side has to ignore duplicate or not expected commands. [...] Every valid received "
    "command has to be acknowledged.",
    "a connection, reliable message #0, and #0 again once acknowledged",
    "both acknowledged (a duplicate inside the window is valid; its ack stops the resends). Whether the "
    "application got it twice cannot be seen on the wire",
    reliable_duplicate, GW_MUST};

static gw_verdict reliable_outside_window(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    if (!send_reliable(io, DNP_WINDOW))
        return GW_FAIL;
    gw_verdict v = acked_unless(io, 0, "after the discarded #10", "#10 is outside the window (the next expected is #0)");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "#10 was discarded unacknowledged; #0 was then acknowledged") : v;
}

static const gw_conform_case case_reliable_outside_window = {
    "dnp/reliable/outside-window", BOTH, "A number outside the window of 10 is discarded", RELIABLE,
    "ReliableWindowSize is 10 [...]. If the command is not accepted it has to be discarded and processing "
    "this command stops.",
    "a connection, reliable message #10 (the next expected is #0), then #0",
    "no ack of #10, then an ack of #0; Fail when #10 is acknowledged or #0 is not",
    reliable_outside_window, GW_MUST};

static gw_verdict reliable_ahead(gw_conform_io *io)
{
    return acked_in_turn(io, 1, "#1 sent before #0 (inside the window)", 0, "#0 after #1",
                         "#1, ahead of #0, was acknowledged, and then #0");
}

static const gw_conform_case case_reliable_ahead_acked = {
    "dnp/reliable/ahead-acked", BOTH, "A number ahead of the next expected is acknowledged and held", RELIABLE,
    "If CommandNumber does not equal NextReceiveCommand the command has over-taken the next expected "
    "command and has to be held back [...]. Every valid received command has to be acknowledged.",
    "a connection, reliable message #1, then #0",
    "both acknowledged; Fail otherwise (the order given to the application cannot be seen on the wire)",
    reliable_ahead, GW_MUST};

static gw_verdict unknown_command(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    static const uint8_t junk[] = {0x01, 0x02, 0x03};
    if (!gw_conform_send(io, P, 99, GW_WVALS(GW_WSTEP(junk, sizeof junk))))
        return GW_FAIL;
    gw_verdict v = acked(io, 0, "after command code 99");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "command 99 was ignored and #0 then acknowledged") : v;
}

static const gw_conform_case case_commands_unknown_ignored = {
    "dnp/commands/unknown-ignored", BOTH, "An unknown command code is ignored", "DNP text, Commands",
    "Network clients are required to ignore all commands with unknown CommandCode.",
    "a connection, command code 99 with three bytes, then reliable message #0",
    "#0 acknowledged: the connection is still usable; Fail otherwise",
    unknown_command, GW_MUST};

static gw_verdict truncated_command(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    /* a reliable message cut inside its number: the code and one byte */
    uint8_t d[8];
    size_t n = P->build(io->opts, DNP_RELIABLE_MESSAGE, GW_WVALS(GW_WU(DNP_F_SEQ, 0)), d, sizeof d);
    if (n < 2 || !io->send(io, d, 2))
        return gw_conform_say(io, GW_FAIL, "could not send the truncated command");
    gw_verdict v = acked(io, 0, "after a truncated reliable message");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "the 2-byte command was ignored and #0 then acknowledged") : v;
}

static const gw_conform_case case_commands_truncated_ignored = {
    "dnp/commands/truncated-ignored", BOTH, "A truncated command does not break the connection",
    "DNP text, Reliable message", "If a message is not fully received it has to be considered lost.",
    "a connection, a reliable message cut after one byte of its number, then reliable message #0",
    "#0 acknowledged: the connection is still usable; Fail otherwise",
    truncated_command, GW_MUST};

static gw_verdict unreliable_not_acked(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    if (!gw_conform_send(io, P, DNP_MESSAGE, GW_WVALS(GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1))))
        return GW_FAIL;
    gw_verdict v = acked_unless(io, 0, "after the unreliable message", "an unreliable message is not acknowledged");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "no acknowledgement followed the unreliable message; reliable #0 "
                                         "was then acknowledged") : v;
}

static const gw_conform_case case_message_unreliable_not_acked = {
    "dnp/message/unreliable-not-acked", BOTH, "An unreliable message is not acknowledged", "DNP text, Message",
    "Unreliable messages are used for frequently send messages. They are not acknowledged and thus can be "
    "possibly lost.",
    "a connection, an unreliable message, then reliable message #0 (the probe)",
    "no reliable ack but #0's; Fail when another comes, or when #0 is not acknowledged",
    unreliable_not_acked, GW_MUST};

static gw_verdict link_state_answered(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    /* denetwork keeps one space of link ids for the links it offers and
       those it takes, and drops a link state whose id it uses itself
       without an answer: an id no implementation starts its own at */
    uint64_t link = 1000, number = 0;
    sent_number(io, number);
    const gw_wval *state = GW_WVALS(GW_WU(DNP_F_SEQ, number), GW_WU(DNP_F_LINK_ID, link), GW_WU(DNP_F_FLAGS, 1),
                                    GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1),
                                    /* one value: UInt32 (type 5) 99 */
                                    GW_WU(DNP_F_VALUE_COUNT, 1), GW_WU(DNP_F_VALUE_TYPE, 5),
                                    GW_WU(DNP_F_VALUE_UINT, 99));
    if (!gw_conform_send(io, P, DNP_LINK_STATE, state))
        return GW_FAIL;
    /* the ack and the link's answer, in the order they come (an ack with
       result 1 asks for the link state again) */
    int ack_at = 0, answer_at = 0, k = 0, resends = 0;
    uint64_t answer = 0, code;
    gw_replay_pdu a;
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    while ((!ack_at || !answer_at) && gw_conform_await_until(io, until, NULL, NULL, &a) == GW_GOT) {
        k++;
        if (!ack_at && ack_of(&a, &number) && gw_replay_u(&a, DNP_F_ACK_CODE, &code) && code == 1 && resends < 3) {
            resends++;
            if (!gw_conform_send(io, P, DNP_LINK_STATE, state))
                return GW_FAIL;
            until = gw_conform_clock_ms() + io->wait_ms;
        } else if (!ack_at && ack_of(&a, &number))
            ack_at = k;
        else if (!answer_at && link_answer(&a, &link))
            answer_at = k, answer = (uint64_t)a.type;
    }
    if (!ack_at && ((dnp_case *)io->case_state)->peer_closed)
        return gw_conform_say(io, GW_SKIPPED, "the peer closed the connection (its right) before the link state was "
                              "acknowledged; nothing to judge");
    if (!ack_at)
        return gw_conform_say(io, GW_FAIL, "the link state (#0) was not acknowledged within %.1f s", io->wait_ms / 1000.0);
    if (!answer_at)
        return gw_conform_say(io, GW_FAIL, "the link state was acknowledged, but neither link up nor link down for "
                              "link 1000 came within %.1f s", io->wait_ms / 1000.0);
    const char *name = answer == DNP_LINK_UP ? "link up" : "link down";
    if (answer_at < ack_at) /* the text orders nothing here */
        return gw_conform_say(io, GW_INFO, "%s came before the reliable ack (the text allows it; the reference sends "
                              "the ack first)", name);
    return gw_conform_say(io, GW_PASS, "acknowledged, then answered with %s", name);
}

static const gw_conform_case case_link_state_answered = {
    "dnp/link/state-answered", BOTH, "A link state is acknowledged and answered with link up or down",
    "DNP text, Network States; wire-facts 1.9",
    "The receiver has to send back a Link Up command if the link is accepted or a Link Down command to "
    "reject it.",
    "a connection, then link state #0 for link 1000 (read-only, one UInt32 value 99)",
    "the ack of #0 (resent while acknowledged with result 1), then link up or link down for link 1000; Info "
    "when the answer comes before the ack (the text orders nothing; the reference acknowledges first); Fail "
    "when either is missing",
    link_state_answered, GW_MUST};

static gw_verdict update_unknown_link(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    /* the reference's layout (the option's default): one link, 77, of one
       value, index 0, a UInt32 99 (its type, from a link state never
       sent, not written) */
    if (!gw_conform_send(io, P, DNP_LINK_UPDATE,
                         GW_WVALS(GW_WU(DNP_F_LINK_COUNT, 1), GW_WU(DNP_F_LINK_ID, 77), GW_WU(DNP_F_VALUE_COUNT, 1),
                                  GW_WU(DNP_F_VALUE_INDEX, 0), GW_WU(DNP_F_VALUE_TYPE, 5),
                                  GW_WU(DNP_F_VALUE_UINT, 99))))
        return GW_FAIL;
    gw_verdict v = acked(io, 0, "after a link update for link 77, never linked");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "the update for an unknown link was ignored and #0 then acknowledged") : v;
}

static const gw_conform_case case_link_update_unknown_link = {
    "dnp/link/update-unknown-link", BOTH, "A link update for a link never set up is ignored",
    "DNP text, Link update",
    "Client or server is only allowed to send a state update if it has a read-write state.",
    "a connection, a link update for link 77 (never linked), then reliable message #0",
    "#0 acknowledged: the update was dropped and the connection is still usable; Fail otherwise",
    update_unknown_link, GW_MUST};

static gw_verdict close_ends(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    if (!gw_conform_send(io, P, DNP_CLOSE, GW_NO_VALUES) || !send_reliable(io, 0))
        return GW_FAIL;
    if (io->role == GW_ROLE_CLIENT) {
        /* a client that was closed ends or connects anew: its port closing
           or a fresh request shows it; a client still there and silent
           cannot be told from one that ignored #0 */
        int64_t until = gw_conform_clock_ms() + io->wait_ms;
        while (gw_conform_clock_ms() < until) {
            if (!gw_conform_send(io, P, DNP_MESSAGE, GW_WVALS(GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1))))
                break;
            gw_replay_pdu a;
            gw_wait w = gw_conform_await(io, 200, NULL, NULL, &a);
            if (w == GW_CLOSED)
                return gw_conform_say(io, GW_PASS, "#0 went unacknowledged and the client's port then closed: it ended");
            if (w == GW_GOT && any_ack(&a, NULL))
                return gw_conform_say(io, GW_FAIL, "after the close the client acknowledged a reliable message");
            if (w == GW_GOT && a.type == DNP_CONNECT_REQUEST)
                return gw_conform_say(io, GW_PASS, "#0 went unacknowledged and the client asked for a new connection");
        }
        return gw_conform_say(io, GW_INFO, "#0 went unacknowledged, but the client stayed silent and its port open: "
                              "ignoring cannot be told from not listening");
    }
    /* the server forgot the connection: a new request is answered */
    return unacked_then_answered(io, "the connection was closed",
                                 "#0 went unacknowledged after the close, but a new connection request was not "
                                 "answered either: silence shows nothing",
                                 "after the close #0 went unacknowledged, and a new connection request was answered "
                                 "(result %llu): the connection was forgotten");
}

static const gw_conform_case case_connection_close_ends = {
    "dnp/connection/close-ends", BOTH, "After a close the connection is gone", "DNP text, Close Connection",
    "Send by the client before closing connection to server. Send by server before disconnecting client.",
    "a connection, connection close, then reliable message #0; to a server then a new connection request (the "
    "probe), to a client unreliable messages until its port closes or it asks anew",
    "no acknowledgement of #0; Fail when one comes, or when a server answers the new request neither",
    close_ends, GW_MUST};

/* the peer's own reliable command (an echo of ours counts: an application
   may send back what it got) */
static bool peer_reliable(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return reliable_command(p);
}

static bool same_reliable(const gw_replay_pdu *p, const void *arg)
{
    uint64_t seq;
    return reliable_command(p) && gw_replay_u(p, DNP_F_SEQ, &seq) && seq == *(const uint64_t *)arg;
}

/* The peer's reliable command left unacknowledged (the duty holds its
   acks): the same number must come again before ReliableTimeout
   (recommended 3 s), and again after an ack with result 1, which leaves it
   unacknowledged ("Used if the receiver would like sender to resend the
   message"). A peer that sends no reliable command of its own cannot be
   asked. */
static gw_verdict reliable_resent(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    dnp_case *k = io->case_state;
    k->hold_acks = true;
    gw_verdict v = acked(io, 0, "the prompt"); /* an application may answer it */
    if (v != GW_PASS)
        return v;
    gw_replay_pdu a;
    uint64_t seq;
    if (gw_conform_await(io, io->wait_ms, peer_reliable, NULL, &a) != GW_GOT || !gw_replay_u(&a, DNP_F_SEQ, &seq))
        return gw_conform_say(io, GW_SKIPPED, "the peer sent no reliable command of its own within %.1f s: nothing "
                              "to judge", io->wait_ms / 1000.0);
    int64_t first = gw_conform_clock_ms();
    gw_wait w = gw_conform_await_until(io, first + 3000 + io->wait_ms, same_reliable, &seq, &a);
    int64_t took = gw_conform_clock_ms() - first;
    if (w != GW_GOT && k->peer_closed && took < 1000) /* before a resend was due (0.5 s recommended) */
        return gw_conform_say(io, GW_SKIPPED, "the peer closed the connection (its right) %lld ms after its reliable "
                              "#%llu, before a resend was due; nothing to judge", (long long)took,
                              (unsigned long long)seq);
    if (w != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the peer's reliable #%llu, unacknowledged, was not resent within %.1f s "
                              "(\"the sender has to resend the same command\")%s", (unsigned long long)seq,
                              (3000 + io->wait_ms) / 1000.0,
                              w == GW_CLOSED || k->peer_closed ? "; the peer ended the connection" : "");
    if (!gw_conform_send(io, P, DNP_RELIABLE_ACK, GW_WVALS(GW_WU(DNP_F_SEQ, seq), GW_WU(DNP_F_ACK_CODE, 1))))
        return GW_FAIL;
    w = gw_conform_await_until(io, gw_conform_clock_ms() + 3000 + io->wait_ms, same_reliable, &seq, &a);
    k->hold_acks = false;
    if (w != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the peer resent #%llu after %lld ms unacknowledged, but not after an ack "
                              "with result 1 (a failed receipt: it stays unacknowledged)", (unsigned long long)seq,
                              (long long)took);
    gw_conform_send(io, P, DNP_RELIABLE_ACK, GW_WVALS(GW_WU(DNP_F_SEQ, seq), GW_WU(DNP_F_ACK_CODE, 0)));
    return gw_conform_say(io, GW_PASS, "the peer's #%llu was resent %lld ms after it went unacknowledged, and again "
                          "after an ack with result 1", (unsigned long long)seq, (long long)took);
}

static const gw_conform_case case_reliable_resent = {
    "dnp/reliable/resent", BOTH, "An unacknowledged reliable command is resent", RELIABLE,
    "If a reliable command is not acknowledged before ReliableResendInterval (recommended 0.5s) the sender has "
    "to resend the same command. [...] 1: Receiving command failed. Used if the receiver would like sender to "
    "resend the message.",
    "a connection and reliable message #0 (a prompt); the peer's own first reliable command is then left "
    "unacknowledged, and once resent acknowledged with result 1",
    "the same number again within 3 s (the recommended ReliableTimeout), and again after the ack with result 1; "
    "Skipped when the peer sends no reliable command of its own; Fail otherwise",
    reliable_resent, GW_MUST};

/* ---- the implementation as server ------------------------------------------ */

static gw_verdict connect_accepted(gw_conform_io *io)
{
    uint64_t result, proto;
    if (request_answered(io, 1, dnp1, &result, &proto) != GW_PASS)
        return GW_FAIL;
    if (result == 2) /* the text requires no protocol of a server */
        return gw_conform_say(io, GW_INFO, "a request offering DNP1 was refused for no common protocol (result 2): the "
                              "server speaks none of the protocols the text defines, which no sentence requires");
    if (result != 0)
        return gw_conform_say(io, GW_SKIPPED, "refused (result %llu: technical reasons or restrictions, the server's "
                              "right); acceptance cannot be judged", (unsigned long long)result);
    if (proto != 0)
        return gw_conform_say(io, GW_FAIL, "accepted, but with protocol %lld, which the request did not offer",
                              proto == UINT64_MAX ? -1LL : (long long)proto);
    /* an ack refers to no request: the connection must also work, one
       command after another */
    gw_verdict v = acked(io, 0, "on the accepted connection");
    if (v == GW_PASS)
        v = acked(io, 1, "on the accepted connection");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "accepted (result 0) with protocol 0, DNP1; reliable #0, then #1, "
                                         "acknowledged") : v;
}

static const gw_conform_case case_connect_accepted = {
    "dnp/connect/accepted", GW_ROLE_SERVER, "A request offering DNP1 is accepted with DNP1",
    "DNP text, Connection Ack",
    "The server checks if the client supports at least one protocol the server supports too.",
    "a connection request offering protocol 0 (DNP1), then reliable messages #0 and #1, each once the one "
    "before is acknowledged",
    "a connection ack with result 0 and protocol 0, then the acks of #0 and #1 (a connection ack refers to no "
    "request: the connection must work); Skipped when refused with result 1 (the server's right); Info when refused "
    "with result 2 (no sentence requires a server to speak DNP1); Fail otherwise",
    connect_accepted, GW_MUST};

static gw_verdict connect_no_common(gw_conform_io *io)
{
    static const uint16_t other[] = {7};
    uint64_t result = 9, proto;
    if (request_answered(io, 1, other, &result, &proto) != GW_PASS)
        return GW_FAIL;
    if (result == 2)
        return gw_conform_say(io, GW_PASS, "refused with result 2, no common protocol");
    if (result == 0)
        return gw_conform_say(io, GW_FAIL, "accepted a client that offers only protocol 7");
    /* result 1 ("technical reasons or restrictions imposed on the client",
       and any code the text does not know) may come first: the text
       orders no reasons */
    return gw_conform_say(io, GW_INFO, "refused with result %llu rather than 2 (no common protocol): a refusal for "
                          "restrictions is the server's right too", (unsigned long long)result);
}

static const gw_conform_case case_connect_no_common_protocol = {
    "dnp/connect/no-common-protocol", GW_ROLE_SERVER, "No common protocol is refused with result 2",
    "DNP text, Connection Ack",
    "2: Connection rejected because the client and server have no common protocol to speak.",
    "a connection request offering only protocol 7",
    "a connection ack with result 2; Info for result 1 or a code the text does not know (a refusal for "
    "restrictions may come first); Fail when accepted or unanswered",
    connect_no_common, GW_MUST};

/* "If the server rejects the client it has to forget about the connect
   request after sending the answer": a request it must refuse (one unknown
   protocol, random), then, from the same address and port, one offering
   DNP1. A server that still holds the first ("has to ignore connect
   requests for an already connected client") leaves the second
   unanswered; one that forgot it answers it as a stranger's, and the
   connection then works (#0 acknowledged). */
static gw_verdict connect_rejected_forgotten(gw_conform_io *io)
{
    const uint16_t other[] = {(uint16_t)(1 + gw_conform_random() % 65535)}; /* 1..65535: not DNP1 */
    uint64_t first = 9, result = 9, proto;
    if (request_answered(io, 1, other, &first, &proto) != GW_PASS) {
        char was[sizeof io->outcome];
        snprintf(was, sizeof was, "%s", io->outcome);
        return gw_conform_say(io, GW_SKIPPED, "the request offering only protocol %u was not answered (%s): no "
                              "rejection to forget (no-common-protocol judges the answer)", other[0], was);
    }
    if (first == 0)
        return gw_conform_say(io, GW_SKIPPED, "a request offering only protocol %u was accepted: no rejection to "
                              "forget (no-common-protocol judges that)", other[0]);
    if (request_answered(io, 1, dnp1, &result, &proto) != GW_PASS) {
        char was[sizeof io->outcome];
        snprintf(was, sizeof was, "%s", io->outcome);
        return gw_conform_say(io, GW_FAIL, "after refusing a request offering only protocol %u (result %llu), the "
                              "server did not answer a request offering DNP1 from the same address (%s): the "
                              "rejected request was not forgotten", other[0], (unsigned long long)first, was);
    }
    if (result == 2) {
        /* a server that speaks no DNP1 (no sentence requires it), or one
           that kept the first offer: DNP1 from a fresh address tells them
           apart */
        uint64_t fresh = 9;
        if (!io->reconnect(io) || request_answered(io, 1, dnp1, &fresh, &proto) != GW_PASS || fresh != 0)
            return gw_conform_say(io, GW_SKIPPED, "after refusing a request offering only protocol %u, the server "
                                  "refused one offering DNP1 for no common protocol (result 2), and DNP1 from a fresh "
                                  "address was not accepted either: it speaks no DNP1, which no sentence requires; "
                                  "nothing to judge", other[0]);
        ((dnp_case *)io->case_state)->connected = true;
        return gw_conform_say(io, GW_FAIL, "after refusing a request offering only protocol %u, the server refused one "
                              "offering DNP1 from the same address for no common protocol (result 2), while it "
                              "accepted DNP1 from a fresh address: the first offer was not forgotten", other[0]);
    }
    if (result != 0)
        return gw_conform_say(io, GW_SKIPPED, "the request offering DNP1 was refused too (result %llu: technical "
                              "reasons or restrictions, the server's right); nothing to judge",
                              (unsigned long long)result);
    gw_verdict v = acked(io, 0, "on the connection accepted after the rejection");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "refused a request offering only protocol %u (result %llu), "
                                         "then accepted one offering DNP1 from the same address and acknowledged #0 "
                                         "on it", other[0], (unsigned long long)first)
                        : v;
}

static const gw_conform_case case_connect_rejected_forgotten = {
    "dnp/connect/rejected-forgotten", GW_ROLE_SERVER, "A rejected client is forgotten", "DNP text, Connection Ack",
    "If the server rejects the client it has to forget about the connect request after sending the answer.",
    "a connection request offering only an unknown protocol (random, 1..65535), then, from the same address and "
    "port, one offering DNP1, and reliable message #0 once accepted; one offering DNP1 from a fresh address when "
    "the second is refused for no common protocol",
    "the first refused, the second answered and accepted, #0 acknowledged; Fail when the second goes unanswered, "
    "or is refused for no common protocol while DNP1 from a fresh address is accepted (the rejection was "
    "remembered), or #0 is not acknowledged; Skipped when the first is accepted or unanswered (no-common-protocol "
    "judges that), or the second is refused with result 1 (the server's right), or with result 2 and DNP1 from a "
    "fresh address too (a server that speaks no DNP1, which no sentence forbids)",
    connect_rejected_forgotten, GW_MUST};

static gw_verdict connect_unknown_ignored(gw_conform_io *io)
{
    static const uint16_t offer[] = {9, 0};
    uint64_t result = 9, proto;
    if (request_answered(io, 2, offer, &result, &proto) != GW_PASS)
        return GW_FAIL;
    if (result == 0 && proto == 0)
        return gw_conform_say(io, GW_PASS, "accepted with DNP1; the unknown protocol 9 was passed over");
    if (result == 0)
        return gw_conform_say(io, GW_FAIL, "accepted with protocol %llu, unknown", (unsigned long long)proto);
    if (result != 2)
        return gw_conform_say(io, GW_SKIPPED, "refused (result %llu: technical reasons or restrictions, the server's "
                              "right); cannot be judged", (unsigned long long)result);
    /* refused for no common protocol: for 9, not passed over, or for DNP1,
       which a server need not speak. DNP1 alone from the same address (a
       refused request is forgotten) tells them apart. */
    if (request_answered(io, 1, dnp1, &result, &proto) != GW_PASS) {
        char was[sizeof io->outcome];
        snprintf(was, sizeof was, "%s", io->outcome);
        return gw_conform_say(io, GW_SKIPPED, "refused 9 and DNP1 for no common protocol (result 2), then did not "
                              "answer DNP1 alone (%s): rejected-forgotten judges that", was);
    }
    if (result == 0)
        return gw_conform_say(io, GW_FAIL, "refused a client that offers protocols 9 and 0 for no common protocol "
                              "(result 2), then accepted DNP1 alone: the unknown 9 was not passed over");
    return gw_conform_say(io, GW_SKIPPED, "refused 9 and DNP1 for no common protocol (result 2), and DNP1 alone too "
                          "(result %llu): the server speaks no DNP1, which no sentence requires; nothing to judge",
                          (unsigned long long)result);
}

static const gw_conform_case case_connect_unknown_protocol_ignored = {
    "dnp/connect/unknown-protocol-ignored", GW_ROLE_SERVER, "Unknown protocols in a request are passed over",
    "DNP text, Connection Request", "Servers have to ignore unknown protocol values.",
    "a connection request offering protocols 9 and 0; when refused for no common protocol, one offering DNP1 alone "
    "from the same address",
    "accepted with protocol 0; Fail when accepted with another, or refused for no common protocol while DNP1 alone "
    "is then accepted; Skipped when refused with result 1 (the server's right), or when DNP1 alone is refused too (a "
    "server that speaks no DNP1, which no sentence forbids)",
    connect_unknown_ignored, GW_MUST};

static gw_verdict connect_repeat_ignored(gw_conform_io *io)
{
    OPEN_OR_FAIL(io);
    gw_verdict v = acked(io, 0, "before the second request");
    if (v != GW_PASS)
        return v;
    if (!send_request(io, 1, dnp1))
        return GW_FAIL;
    /* the connection and its numbering go on: #1 is the next, and the probe */
    int64_t type = DNP_CONNECT_ACK;
    gw_replay_pdu a;
    bool answered;
    v = probe_acked(io, 1, "after the ignored request", gw_conform_of_type, &type, &answered, &a);
    if (answered)
        /* a close that came before the answer (PDUs are taken in order) */
        return ((dnp_case *)io->case_state)->peer_closed
                   ? gw_conform_say(io, GW_SKIPPED, "the server closed the connection (its right) before the second "
                                    "request, which then opened a new one; nothing to judge")
                   : gw_conform_say(io, GW_FAIL, "a second connection request on a connected client was answered");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "the second request went unanswered and #1 was then acknowledged") : v;
}

static const gw_conform_case case_connect_repeat_ignored = {
    "dnp/connect/repeat-ignored", GW_ROLE_SERVER, "A connected client's second request is ignored",
    "DNP text, Connection Request", "The server has to ignore connect requests for an already connected client.",
    "a connection, reliable message #0, a second connection request, reliable message #1",
    "no answer to the second request, and #1 acknowledged (the numbering goes on); Fail otherwise",
    connect_repeat_ignored, GW_MUST};

static gw_verdict connect_first(gw_conform_io *io)
{
    if (!send_reliable(io, 0))
        return GW_FAIL;
    /* silence is no evidence: the server must answer a request */
    return unacked_then_answered(io, "no connection was requested",
                                 "a reliable message from an unconnected client went unanswered, but so did the "
                                 "connection request after it: silence shows nothing",
                                 "a reliable message from an unconnected client went unanswered; the request after "
                                 "it was answered (result %llu)");
}

static const gw_conform_case case_connect_connect_first = {
    "dnp/connect/connect-first", GW_ROLE_SERVER, "Nothing but a request is taken from an unconnected client",
    "DNP text, Connection Request",
    "This is the only command accepted by the server from an unconnected client.",
    "reliable message #0 without connecting, then a connection request (the probe: it must be answered)",
    "no acknowledgement before the request's answer; Fail when one comes, or when the request goes unanswered "
    "too (silence shows nothing)",
    connect_first, GW_MUST};

/* ---- the implementation as client ------------------------------------------ */

static gw_verdict request_offers_dnp1(gw_conform_io *io)
{
    int64_t type = DNP_CONNECT_REQUEST;
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &type, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "no connection request within %.1f s", io->wait_ms / 1000.0);
    uint64_t count = 0, proto;
    gw_replay_u(&a, DNP_F_PROTOCOL_COUNT, &count);
    for (unsigned k = 0; gw_replay_item(&a, DNP_F_PROTOCOL, k); k++) {
        proto = gw_replay_item(&a, DNP_F_PROTOCOL, k)->v.u;
        if (proto == 0)
            return gw_conform_say(io, GW_PASS, "the request offers %llu protocol%s, DNP1 among them",
                                  (unsigned long long)count, count == 1 ? "" : "s");
    }
    return gw_conform_say(io, GW_FAIL, "the request offers %llu protocols, none of them DNP1 (0)", (unsigned long long)count);
}

static const gw_conform_case case_connect_request_offers_dnp1 = {
    "dnp/connect/request-offers-dnp1", GW_ROLE_CLIENT, "The client's request offers DNP1",
    "DNP text, Connection Request; wire-facts 1.3",
    "Each list entry has to be one of these values: 0: Drag[en]gine Network Protocol Version 1 (DNP1)",
    "nothing: the client's first command is read",
    "a connection request listing protocol 0; Fail otherwise",
    request_offers_dnp1, GW_MUST};

/* "All unknown result codes have to be treated is if ResultCode had been
   1": a rejection. The client's request answered with a code the text does
   not define (random, 3..255; the ack then carries no protocol: "only
   present if Result Code has the value 0"), then reliable #0, which only a
   connected peer acknowledges. An ack, or the client's own traffic on the
   connection, shows it took the code for an acceptance (Fail). Silence or
   its port closing shows nothing: a rejected client is as quiet as a dead
   one (Info). A new request shows it is alive and unconnected: pcaptool
   accepts it and asks #0 again, which now must be acknowledged (Pass: the
   first #0 went unacknowledged because the client was not connected). */
static gw_verdict unknown_result(gw_conform_io *io)
{
    int64_t type = DNP_CONNECT_REQUEST;
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &type, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "no connection request within %.1f s", io->wait_ms / 1000.0);
    uint64_t code = 3 + gw_conform_random() % 253;
    if (!gw_conform_send(io, P, DNP_CONNECT_ACK, GW_WVALS(GW_WU(DNP_F_RESULT, code))))
        return GW_FAIL;
    /* #0 sent each ReliableResendInterval (0.5 s), as to a connected
       client: a client that has gone shows at once (its port closes) */
    int64_t until = gw_conform_clock_ms() + io->wait_ms + 1000; /* and one Connect Resend Interval */
    for (int64_t resend = 0;;) {
        int64_t now = gw_conform_clock_ms();
        if (now >= resend && now < until) {
            if (!send_reliable(io, 0))
                return GW_FAIL;
            resend = now + 500;
        }
        gw_wait w = gw_conform_await_until(io, resend < until ? resend : until, NULL, NULL, &a);
        if (w == GW_SILENT && gw_conform_clock_ms() < until)
            continue;
        if (w == GW_CLOSED)
            return gw_conform_say(io, GW_INFO, "answered with result %llu, the client left #0 unacknowledged and its "
                                  "port then closed: no sign it took the code for an acceptance, but a closed port "
                                  "shows nothing", (unsigned long long)code);
        if (w == GW_SILENT)
            return gw_conform_say(io, GW_INFO, "answered with result %llu, the client left #0 unacknowledged and "
                                  "stayed silent: no sign it took the code for an acceptance, but silence shows "
                                  "nothing", (unsigned long long)code);
        if (a.type == DNP_RELIABLE_ACK)
            return gw_conform_say(io, GW_FAIL, "answered with result %llu, the client acknowledged reliable #0: it "
                                  "took the code for an acceptance (unknown codes \"have to be treated is if "
                                  "ResultCode had been 1\")", (unsigned long long)code);
        if (reliable_command(&a) || a.type == DNP_MESSAGE || a.type == DNP_LINK_UPDATE)
            return gw_conform_say(io, GW_FAIL, "answered with result %llu, the client sent command %lld as on an "
                                  "accepted connection (unknown codes \"have to be treated is if ResultCode had "
                                  "been 1\")", (unsigned long long)code, (long long)a.type);
        if (a.type == DNP_CONNECT_REQUEST)
            break;
    }
    /* it asks again: accepted now, the same #0 must be acknowledged */
    if (!gw_conform_send(io, P, DNP_CONNECT_ACK, GW_WVALS(GW_WU(DNP_F_RESULT, 0), GW_WU(DNP_F_PROTOCOL, 0))))
        return GW_FAIL;
    ((dnp_case *)io->case_state)->connected = true;
    gw_verdict v = acked(io, 0, "on the connection accepted after the unknown code");
    if (v == GW_PASS)
        return gw_conform_say(io, GW_PASS, "answered with result %llu, the client left #0 unacknowledged and asked "
                              "again; accepted then, it acknowledged #0", (unsigned long long)code);
    if (v == GW_SKIPPED)
        return v;
    char was[sizeof io->outcome];
    snprintf(was, sizeof was, "%s", io->outcome);
    return gw_conform_say(io, GW_INFO, "answered with result %llu, the client left #0 unacknowledged and asked again, "
                          "but once accepted it did not answer either (%s): nothing to compare with",
                          (unsigned long long)code, was);
}

static const gw_conform_case case_connect_unknown_result_rejected = {
    "dnp/connect/unknown-result-rejected", GW_ROLE_CLIENT, "An unknown connection ack result is a rejection",
    "DNP text, Connection Ack",
    "More result codes can be added in the future. All unknown result codes have to be treated is if ResultCode "
    "had been 1.",
    "a connection ack with a result code the text does not define (random, 3..255, no protocol field), then "
    "reliable message #0 every 0.5 s; accepted (result 0) if the client asks again, and #0 again",
    "no ack of #0 while rejected; Pass when the client asks again and, accepted, acknowledges #0; Fail when it "
    "acknowledges #0 or sends commands of a connection after the unknown code (the MUST: treated as a "
    "rejection); Info when it stays silent or its port closes (a rejected client is as quiet as a dead one), or "
    "does not answer once accepted either",
    unknown_result, GW_MUST};

static gw_verdict request_resent(gw_conform_io *io)
{
    int64_t type = DNP_CONNECT_REQUEST;
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &type, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "no connection request within %.1f s", io->wait_ms / 1000.0);
    /* unanswered: another within the recommended second (and slack) */
    if (gw_conform_await(io, 2000, gw_conform_of_type, &type, &a) == GW_GOT)
        return gw_conform_say(io, GW_PASS, "the unanswered request was sent again");
    return gw_conform_say(io, GW_NON_STRICT, "the unanswered request was not sent again within 2 s (recommended: every 1 s)");
}

static const gw_conform_case case_connect_request_resent = {
    "dnp/connect/request-resent", GW_ROLE_CLIENT, "An unanswered request is sent again",
    "DNP text, Connection Request",
    "If the client does not receive a Connect Acknowledge command until Connect Resend Interval "
    "(recommended 1s) after sending the last request the command has to be resend.",
    "no answer to the client's connection request",
    "another request within 2 s; Non-strict when none comes (the interval is a recommendation)",
    request_resent, GW_SHOULD};

/* ---- what pcaptool owes the implementation in every case ----------------------- */

/* Acknowledge each reliable command of the implementation's, as a
   conforming peer must (else it resends every 0.5 s and drops the
   connection after 3 s: denetwork does), and decline each state it links
   with link down: pcaptool is no application. */
static void dnp_duty(gw_conform_io *io, const gw_replay_pdu *p)
{
    uint64_t seq, link;
    dnp_case *k = io->case_state;
    /* an ack of a number never sent, or one that had arrived before the
       number went (the kernel's stamp), answers nothing */
    if (p->type == DNP_RELIABLE_ACK && gw_replay_u(p, DNP_F_SEQ, &seq) && !k->bogus_ack &&
        (!in_set(k->numbers, seq) || (p->at_ns && p->at_ns < k->sent_ns[seq])))
        k->bogus_ack = (int64_t)seq + 1;
    if (p->type == DNP_RELIABLE_ACK && !p->echo && gw_replay_u(p, DNP_F_SEQ, &seq) && seq < 64)
        k->peer_acked |= 1ull << seq;
    uint64_t result;
    if (p->type == DNP_CONNECT_ACK) {
        k->answers++;
        if (gw_replay_u(p, DNP_F_RESULT, &result) && result == 0)
            k->connected = true;
    }
    if (p->type == DNP_CLOSE)
        k->peer_closed = true;
    if (reliable_command(p) && !k->peer_first && gw_replay_u(p, DNP_F_SEQ, &seq))
        k->peer_first = (int64_t)seq + 1;
    /* Our reliable command sent back is acknowledged too (an application
       may echo what it got, and would otherwise drop us after its
       ReliableTimeout), but only once the peer has acknowledged that number
       itself: a peer that reflects datagrams would send our ack back, and
       that would read as its ack of a command it never acknowledged. */
    if (!reliable_command(p) || !gw_replay_u(p, DNP_F_SEQ, &seq) || k->hold_acks ||
        (p->echo && !in_set(k->peer_acked, seq)))
        return;
    gw_conform_send(io, P, DNP_RELIABLE_ACK, GW_WVALS(GW_WU(DNP_F_SEQ, seq), GW_WU(DNP_F_ACK_CODE, 0)));
    bool last = true;
    if (p->type == DNP_LINK_STATE_LONG) {
        uint64_t flags = 0;
        gw_replay_u(p, DNP_F_FLAGS, &flags);
        last = flags & 0x4;
    }
    if ((p->type == DNP_LINK_STATE || p->type == DNP_LINK_STATE_LONG) && last && gw_replay_u(p, DNP_F_LINK_ID, &link))
        gw_conform_send(io, P, DNP_LINK_DOWN, GW_WVALS(GW_WU(DNP_F_LINK_ID, link)));
}

/* the case is over: close the connection, as a server does before it
   forgets a client (a client then quits); there is none to close when no
   connection was accepted (a refused client just goes) or the peer closed it */
static void dnp_finish(gw_conform_io *io)
{
    const dnp_case *k = io->case_state;
    if (k->connected && !k->peer_closed)
        gw_conform_send(io, P, DNP_CLOSE, GW_NO_VALUES);
    else if (io->role == GW_ROLE_CLIENT && !k->connected)
        /* a client whose request the case left unanswered (or refused):
           a refusal ("restrictions imposed on the client") ends its
           resending at once, where silence would leave it trying until its
           Connect Timeout */
        gw_conform_send(io, P, DNP_CONNECT_ACK, GW_WVALS(GW_WU(DNP_F_RESULT, 1)));
}

/* A peer acknowledges what it received: an ack of a number never sent,
   or more connection acks than requests, is no answer of a conforming peer
   (a flood of canned datagrams passes every positive check otherwise:
   DNP's numbers start at 0 on every connection). */
static gw_verdict dnp_audit(gw_conform_io *io)
{
    const dnp_case *k = io->case_state;
    if (k->bogus_ack)
        return gw_conform_say(io, GW_FAIL, "the peer acknowledged reliable #%lld before pcaptool sent it (or "
                              "never sent it)", (long long)k->bogus_ack - 1);
    if (k->peer_first > 1)
        return gw_conform_say(io, GW_FAIL, "the peer's first reliable command on the connection is #%lld "
                              "(NextSendCommand \"has to be set to 0 upon every accepted connection request\")",
                              (long long)k->peer_first - 1);
    if (k->answers > k->requests)
        return gw_conform_say(io, GW_FAIL, "the peer sent %u connection acks to %u connection request%s", k->answers,
                              k->requests, k->requests == 1 ? "" : "s");
    return GW_PASS;
}

/* ---- pcaptool fuzz (active/gw_fuzz.h) ----------------------------------------- */

enum { FZ_CONNECTED, FZ_LINK_UP };
static const char *const fuzz_states[] = {"connected", "link up"};

/* the next reliable number pcaptool has not sent on this connection (its
   own, sent in order from 0: what a mutation wrote is not counted) */
static uint64_t next_number(gw_conform_io *io)
{
    return (uint64_t)__builtin_popcountll(((dnp_case *)io->case_state)->numbers);
}

static gw_verdict fuzz_enter(gw_conform_io *io, unsigned state)
{
    OPEN_OR_FAIL(io);
    if (state == FZ_CONNECTED)
        return GW_PASS;
    /* a link of pcaptool's (1001, read-write: it may send updates), its
       state acknowledged and answered with link up */
    uint64_t link = 1001, number = next_number(io);
    sent_number(io, number);
    if (!gw_conform_send(io, P, DNP_LINK_STATE,
                         GW_WVALS(GW_WU(DNP_F_SEQ, number), GW_WU(DNP_F_LINK_ID, link), GW_WU(DNP_F_FLAGS, 0),
                                  GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1), GW_WU(DNP_F_VALUE_COUNT, 1),
                                  GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 99))))
        return GW_FAIL;
    gw_replay_pdu a;
    int64_t up = DNP_LINK_UP;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &up, &a) != GW_GOT)
        return gw_conform_say(io, GW_SKIPPED, "link 1001 was not taken up within %.1f s", io->wait_ms / 1000.0);
    return GW_PASS;
}

/* reliable message #next: "Every valid received command has to be
   acknowledged" */
static gw_wait fuzz_probe(gw_conform_io *io, const char **what)
{
    static char name[48];
    uint64_t number = next_number(io);
    snprintf(name, sizeof name, "reliable message #%llu", (unsigned long long)number);
    *what = name;
    if (!send_reliable(io, number))
        return GW_CLOSED;
    gw_replay_pdu a;
    return gw_conform_await(io, io->wait_ms, ack_of, &number, &a);
}


static const gw_fuzz_target fuzz_targets[] = {
    {"connection request", FZ_CONNECTED, DNP_CONNECT_REQUEST,
     GW_WVALS(GW_WU(DNP_F_PROTOCOL_COUNT, 1), GW_WU(DNP_F_PROTOCOL, 0)), GW_ROLE_SERVER, false},
    {"unreliable message", FZ_CONNECTED, DNP_MESSAGE, GW_WVALS(GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1)),
     BOTH, false},
    {"reliable message", FZ_CONNECTED, DNP_RELIABLE_MESSAGE,
     GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1)), BOTH, false},
    /* a long message in one part (first and last) */
    {"long reliable message", FZ_CONNECTED, DNP_RELIABLE_MESSAGE_LONG,
     GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WU(DNP_F_LONG_FLAGS, 3), GW_WB(DNP_F_CHUNK, payload, sizeof payload - 1)),
     BOTH, false},
    {"link state", FZ_CONNECTED, DNP_LINK_STATE,
     GW_WVALS(GW_WU(DNP_F_SEQ, 0), GW_WU(DNP_F_LINK_ID, 1002), GW_WU(DNP_F_FLAGS, 0),
              GW_WB(DNP_F_MESSAGE, payload, sizeof payload - 1), GW_WU(DNP_F_VALUE_COUNT, 1),
              GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 99)),
     BOTH, false},
    /* link 1001's one UInt32 value (in the option's layout: the reference's) */
    {"link update", FZ_LINK_UP, DNP_LINK_UPDATE,
     GW_WVALS(GW_WU(DNP_F_LINK_COUNT, 1), GW_WU(DNP_F_LINK_ID, 1001), GW_WU(DNP_F_VALUE_COUNT, 1),
              GW_WU(DNP_F_VALUE_INDEX, 0), GW_WU(DNP_F_VALUE_TYPE, 5), GW_WU(DNP_F_VALUE_UINT, 100)),
     BOTH, false},
};

static const gw_fuzz dnp_fuzz = {fuzz_states, 2, fuzz_enter, fuzz_targets,
                                 sizeof fuzz_targets / sizeof fuzz_targets[0], fuzz_probe, NULL, NULL};

/* ---- the catalogue ---------------------------------------------------------- */




/* the catalogue, in its order: each case is defined below its run function */
static const gw_conform_case *const cases[] = {
    &case_connect_accepted, &case_connect_no_common_protocol, &case_connect_rejected_forgotten,
    &case_connect_unknown_protocol_ignored, &case_connect_repeat_ignored, &case_connect_connect_first,
    &case_connect_request_offers_dnp1, &case_connect_unknown_result_rejected, &case_connect_request_resent,
    &case_reliable_acked, &case_reliable_each_acked, &case_reliable_duplicate_acked, &case_reliable_outside_window,
    &case_reliable_resent, &case_reliable_ahead_acked, &case_commands_unknown_ignored,
    &case_commands_truncated_ignored, &case_message_unreliable_not_acked, &case_link_state_answered,
    &case_link_update_unknown_link, &case_connection_close_ends,
};

const gw_conform gw_dnp_conform = {.transport = GW_TRANSPORT_UDP, .cases = cases, .n_cases = sizeof cases / sizeof cases[0],
                                   .duty = dnp_duty, .finish = dnp_finish,
                                   .case_state_size = sizeof(dnp_case), .audit = dnp_audit, .fuzz = &dnp_fuzz};
