/* conform_eoudp.c - pcaptool conform's cases for EOUDP (gw_conform.h),
 * both roles: eoudp.md's acknowledgements and connection, and what the
 * implementation (maelbecel/R-Type, WIRE-NOTES 4) does where the text is
 * silent or contradicts itself. Datagrams are built from the decoder's
 * header and payload layouts (eoudp.c, eoudp_build) in the header
 * generation the options say (default: the 26-byte one of January 2024 on)
 * with the implementation's big-endian header; answers are read through
 * the decoder's fields. */
#include <stdio.h>
#include <string.h>

#include "gw_conform.h"
#include "eoudp.h"

#define P (&gw_eoudp_protocol)
#define BOTH (GW_ROLE_SERVER | GW_ROLE_CLIENT)

/* our side of one case's connection: the next id we send */
typedef struct {
    gw_conform_io *io;
    uint64_t next_id;
} side;

static bool send_cmd(side *s, uint8_t cmd, bool important, const gw_wval *payload)
{
    gw_wval v[16] = {GW_WU(EOUDP_F_ID, s->next_id++), GW_WU(EOUDP_F_IMPORTANT, important)};
    unsigned k = 2;
    for (; payload->field != GW_W_END && k < 15; payload++)
        v[k++] = *payload;
    v[k].field = GW_W_END;
    return gw_conform_send(s->io, P, cmd, v);
}

static bool ack_of(const gw_replay_pdu *p, const void *arg)
{
    uint64_t id;
    return p->type == 0x01 && gw_replay_u(p, EOUDP_F_ACK_ID, &id) && id == *(const uint64_t *)arg;
}

static bool connect_answer(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return p->type == 0x02 || p->type == 0x03;
}

/* the important packet we send in each role: an event from a client, an
   entity's component from a server */
static bool send_important(side *s, bool important, uint64_t *id)
{
    *id = s->next_id;
    static const char comp[] = "Position";
    static const uint8_t content[] = {1, 0, 0, 0, 2, 0, 0, 0};
    if (s->io->role == GW_ROLE_SERVER)
        return send_cmd(s, 0x8b, important, GW_WVALS(GW_WU(EOUDP_F_EVENT, 7), GW_WU(EOUDP_F_PRESSED, 1)));
    return send_cmd(s, 0x0c, important,
                    GW_WVALS(GW_WU(EOUDP_F_ENTITY, 0x42), GW_WB(EOUDP_F_COMPONENT, comp, sizeof comp - 1),
                             GW_WB(EOUDP_F_CONTENT, content, sizeof content)));
}

/* our important packet acknowledged with its id? GW_PASS or the verdict said */
static gw_verdict acked(side *s, const char *what)
{
    uint64_t id;
    if (!send_important(s, true, &id))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(s->io, s->io->wait_ms, ack_of, &id, &a);
    if (w == GW_GOT)
        return GW_PASS;
    return gw_conform_say(s->io, GW_FAIL, "%s: important packet %llu was not acknowledged within %.1f s%s", what,
                          (unsigned long long)id, s->io->wait_ms / 1000.0,
                          w == GW_CLOSED ? " (the port is closed)" : "");
}

/* A fresh connection: as the client, a connect (important) and the
   server's accept; as the server, the client's connect acknowledged and
   accepted. False with the outcome said. */
static bool open_connection(side *s)
{
    gw_conform_io *io = s->io;
    gw_replay_pdu a;
    if (io->role == GW_ROLE_SERVER) {
        if (!send_cmd(s, 0x81, true, GW_NO_VALUES))
            return false;
        gw_wait w = gw_conform_await(io, io->wait_ms, connect_answer, NULL, &a);
        if (w == GW_GOT && a.type == 0x02)
            return true;
        gw_conform_say(io, GW_FAIL, w == GW_GOT ? "the server rejected the connection (0x03)"
                                    : w == GW_CLOSED ? "the server could not be reached"
                                                     : "the connect was not answered with an accept");
        return false;
    }
    int64_t connect = 0x81;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &connect, &a) != GW_GOT) {
        gw_conform_say(io, GW_FAIL, "the client sent no connect (0x81) within %.1f s", io->wait_ms / 1000.0);
        return false;
    }
    uint64_t id = 0;
    gw_replay_u(&a, EOUDP_F_ID, &id);
    return send_cmd(s, 0x01, false, GW_WVALS(GW_WU(EOUDP_F_ACK_ID, id))) &&
           send_cmd(s, 0x02, false, GW_WVALS(GW_WU(EOUDP_F_PLAYER, 0x1234)));
}

#define OPEN_OR_FAIL(io, s) \
    side s = {io, 0}; \
    if (!open_connection(&s)) \
        return GW_FAIL

/* ---- both roles -------------------------------------------------------------------- */

static gw_verdict important_acked(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    gw_verdict v = acked(&s, "after the connection");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "the important packet was acknowledged with its id") : v;
}

static gw_verdict duplicate_acked(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    gw_verdict v = acked(&s, "the first send");
    if (v != GW_PASS)
        return v;
    s.next_id--; /* the same packet, the same id: a resend */
    v = acked(&s, "the same id sent again");
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "both sends of the important packet were acknowledged") : v;
}

static gw_verdict unimportant_not_acked(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    uint64_t id;
    if (!send_important(&s, false, &id))
        return GW_FAIL;
    gw_replay_pdu a;
    if (gw_conform_await(io, io->quiet_ms, ack_of, &id, &a) == GW_GOT)
        return gw_conform_say(io, GW_INFO, "a packet not marked important was acknowledged too");
    return gw_conform_say(io, GW_PASS, "a packet not marked important was not acknowledged");
}

/* something odd, then an important packet: still acknowledged? */
static gw_verdict still_acked(side *s, const char *what, const char *pass)
{
    gw_verdict v = acked(s, what);
    return v == GW_PASS ? gw_conform_say(s->io, GW_PASS, "%s", pass) : v;
}

static gw_verdict unknown_command(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    static const uint8_t junk[] = {1, 2, 3, 4};
    if (!send_cmd(&s, 0x99, false, GW_WVALS(GW_WSTEP(junk, sizeof junk))))
        return GW_FAIL;
    return still_acked(&s, "after command 0x99", "command 0x99 was ignored; the next important packet was acknowledged");
}

static gw_verdict size_mismatch(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    if (!send_cmd(&s, 0x8b, false, GW_WVALS(GW_WU(EOUDP_F_SIZE, 100), GW_WU(EOUDP_F_EVENT, 1), GW_WU(EOUDP_F_PRESSED, 0))))
        return GW_FAIL;
    return still_acked(&s, "after a datagram whose size field says 100",
                       "the datagram with a lying size was ignored; the next important packet was acknowledged");
}

static gw_verdict truncated(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    uint8_t d[64];
    size_t n = P->build(io->opts, 0x8b, GW_WVALS(GW_WU(EOUDP_F_ID, s.next_id++), GW_WU(EOUDP_F_IMPORTANT, 1)), d, sizeof d);
    if (n < 10 || !io->send(io, d, 10))
        return gw_conform_say(io, GW_FAIL, "could not send the truncated datagram");
    return still_acked(&s, "after a 10-byte datagram", "the 10-byte datagram was ignored; the next important packet was acknowledged");
}

static gw_verdict wrong_side(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    /* a server's command from the client, or a client's from the server */
    bool ok = io->role == GW_ROLE_SERVER ? send_cmd(&s, 0x02, false, GW_WVALS(GW_WU(EOUDP_F_PLAYER, 7)))
                                         : send_cmd(&s, 0x8b, false, GW_WVALS(GW_WU(EOUDP_F_EVENT, 1)));
    if (!ok)
        return GW_FAIL;
    return still_acked(&s, "after a command of the other side", "the other side's command was ignored; the next important packet was acknowledged");
}

static gw_verdict generations(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    static const char *const names[] = {"", "21-byte (text)", "22-byte (pad)", "22-byte (important)", "26-byte (f64)"};
    char list[200] = "";
    unsigned n = 0;
    int opts[GW_MAX_OPTIONS];
    memcpy(opts, io->opts, sizeof opts);
    for (int gen = EOUDP_GEN_RFC; gen <= EOUDP_GEN_F64; gen++) {
        opts[EOUDP_OPT_GENERATION] = gen;
        uint8_t d[128];
        uint64_t id = s.next_id++;
        /* an important packet in each: the first two generations imply it by
           the command (0x81 and the server's 0x0b..0x10 must be acked) */
        bool imp_byte = gen >= EOUDP_GEN_IMP;
        uint8_t cmd = io->role == GW_ROLE_SERVER ? (imp_byte ? 0x8b : 0x81) : 0x10;
        /* a payload, so that the two 22-byte headers cannot both fit (the
           text's connect payload for a connect) */
        size_t len = P->build(opts, cmd,
                              GW_WVALS(GW_WU(EOUDP_F_ID, id), GW_WU(EOUDP_F_IMPORTANT, 1), GW_WU(EOUDP_F_EVENT, 1),
                                       GW_WU(EOUDP_F_CONNECT_TIMESTAMP, 0), GW_WU(EOUDP_F_CONNECT_ID, 1)),
                              d, sizeof d);
        gw_replay_pdu a;
        if (!len || !io->send(io, d, len))
            return gw_conform_say(io, GW_FAIL, "could not send");
        if (gw_conform_await(io, io->wait_ms, ack_of, &id, &a) == GW_GOT) {
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n++ ? ", " : "", names[gen]);
        }
    }
    return gw_conform_say(io, GW_INFO, n ? "acknowledged in the %s header%s" : "acknowledged in no header generation%s%s",
                          list, n > 1 ? "s" : "");
}

/* ---- the implementation as server ---------------------------------------------------- */

static gw_verdict connect_acked(gw_conform_io *io)
{
    side s = {io, 0};
    uint64_t id = s.next_id;
    if (!send_cmd(&s, 0x81, true, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, ack_of, &id, &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "the connect (id %llu) was acknowledged", (unsigned long long)id);
    return gw_conform_say(io, GW_FAIL, "the connect was not acknowledged within %.1f s", io->wait_ms / 1000.0);
}

static gw_verdict connect_answered(gw_conform_io *io)
{
    side s = {io, 0};
    if (!send_cmd(&s, 0x81, true, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, connect_answer, NULL, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "neither accept (0x02) nor reject (0x03) within %.1f s", io->wait_ms / 1000.0);
    uint64_t player = 0;
    if (a.type == 0x03)
        return gw_conform_say(io, GW_PASS, "rejected (0x03)");
    if (!gw_replay_u(&a, EOUDP_F_PLAYER, &player))
        return gw_conform_say(io, GW_FAIL, "an accept without its player id");
    return gw_conform_say(io, GW_PASS, "accepted as player 0x%llx", (unsigned long long)player);
}

static gw_verdict disconnect(gw_conform_io *io)
{
    OPEN_OR_FAIL(io, s);
    if (!send_cmd(&s, 0x82, false, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, NULL, NULL, &a);
    if (w == GW_GOT && a.type == 0x11)
        return gw_conform_say(io, GW_INFO, "answered with 0x11, as the text's usage section shows");
    if (w == GW_GOT)
        return gw_conform_say(io, GW_INFO, "answered with 0x%02llx", (unsigned long long)a.type);
    return gw_conform_say(io, GW_INFO, "no answer (the implementation sends none; the text's usage shows 0x11)");
}

/* ---- the implementation as client ---------------------------------------------------- */

static gw_verdict connect_first(gw_conform_io *io)
{
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, NULL, NULL, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the client sent nothing within %.1f s", io->wait_ms / 1000.0);
    if (a.type != 0x81)
        return gw_conform_say(io, GW_FAIL, "the client's first command is 0x%02llx, not connect (0x81)",
                              (unsigned long long)a.type);
    uint64_t imp = 1;
    if (gw_replay_u(&a, EOUDP_F_IMPORTANT, &imp) && !imp)
        return gw_conform_say(io, GW_FAIL, "the connect is not marked important (it MUST get an acknowledge)");
    return gw_conform_say(io, GW_PASS, "the client's first command is a connect");
}

/* the case is over: end the connection as the text's usage does (a
   client's disconnect, a server's reject), so that a client quits */
static void eoudp_finish(gw_conform_io *io)
{
    side s = {io, 1000000}; /* past any id the case used */
    send_cmd(&s, io->role == GW_ROLE_SERVER ? 0x82 : 0x03, false, GW_NO_VALUES);
}

/* ---- the catalogue ------------------------------------------------------------------ */

#define TEXT_CMDS "eoudp.md, Commands"
static const gw_conform_case cases[] = {
    {"eoudp/connect/acknowledged", GW_ROLE_SERVER, "A connect is acknowledged with its id", TEXT_CMDS,
     "0x81 - Connect MUST get an acknowledge",
     "a connect (0x81), marked important", "an acknowledge (0x01) carrying the connect's id; Fail otherwise",
     connect_acked},
    {"eoudp/connect/answered", GW_ROLE_SERVER, "A connect is accepted or rejected", "eoudp.md, Usage",
     "Client -> [0x81][Timestamp][Id] / Server -> [0x02][Timestamp][Id] [...] Server -> [0x03][Timestamp][Id]",
     "a connect (0x81)", "accept (0x02) with a player id, or reject (0x03); Fail when neither comes",
     connect_answered},
    {"eoudp/connect/disconnect", GW_ROLE_SERVER, "What follows a disconnect (recorded)", "eoudp.md, Usage; WIRE-NOTES 4",
     "Client -> [0x82][Timestamp][Id][Id] and Server -> [0x11][Timestamp][Id][Id]",
     "a connection, then disconnect (0x82)",
     "Info: the text's usage shows a 0x11 answer, its details section none, the implementation sends none",
     disconnect},
    {"eoudp/connect/first", GW_ROLE_CLIENT, "The client begins with a connect, marked important", TEXT_CMDS,
     "0x81 - Connect MUST get an acknowledge",
     "nothing: the client's first datagram is read", "a connect (0x81), important where the header says; Fail otherwise",
     connect_first},
    {"eoudp/important/acknowledged", BOTH, "An important packet is acknowledged with its id", "WIRE-NOTES 4; " TEXT_CMDS,
     "When important is set the receiver answers with 0x01 carrying that id.",
     "a connection, then an important packet (an event 0x8b to a server, an entity's component 0x0c to a client)",
     "an acknowledge (0x01) carrying its id; Fail otherwise",
     important_acked},
    {"eoudp/important/duplicate-acked", BOTH, "A duplicated important packet is acknowledged again", "eoudp.md, Abstract",
     "It take in account the unreliability of UDP and the fact that UDP packet can be lost, duplicated or arrive out "
     "of order.",
     "a connection, an important packet, then the same packet with the same id",
     "both acknowledged (an acknowledge may be lost, and the sender resends); Fail otherwise",
     duplicate_acked},
    {"eoudp/important/unimportant-not-acked", BOTH, "A packet not marked important needs no acknowledge",
     "WIRE-NOTES 4", "When important is set the receiver answers with 0x01 carrying that id.",
     "a connection, then the same kind of packet with important = 0",
     "no acknowledge; Info when one comes (harmless)",
     unimportant_not_acked},
    {"eoudp/commands/unknown-ignored", BOTH, "An unknown command does not break the connection", TEXT_CMDS,
     "Each command is prefixed with a header define below representing the command.",
     "a connection, command 0x99 with four bytes, then an important packet",
     "the important packet acknowledged; Fail otherwise",
     unknown_command},
    {"eoudp/commands/size-mismatch-ignored", BOTH, "A datagram whose size field lies does not break the connection",
     "eoudp.md, Header", "Size - 64 bits (8 bytes) unsigned integer representing the size of the content of the packet.",
     "a connection, an event whose size field says 100 bytes, then an important packet",
     "the important packet acknowledged; Fail otherwise",
     size_mismatch},
    {"eoudp/commands/truncated-ignored", BOTH, "A datagram cut inside its header does not break the connection",
     "eoudp.md, Header", "Content: [Command][Timestamp][Id][Size]",
     "a connection, the first 10 bytes of a header, then an important packet",
     "the important packet acknowledged; Fail otherwise",
     truncated},
    {"eoudp/commands/wrong-side-ignored", BOTH, "The other side's command does not break the connection", TEXT_CMDS,
     "command inferior to 0x80 are server commands and superior to 0x80 are client commands.",
     "a connection, an accept (0x02) to a server or an event (0x8b) to a client, then an important packet",
     "the important packet acknowledged; Fail otherwise",
     wrong_side},
    {"eoudp/header/generations", BOTH, "Which header generations are understood (recorded)", "WIRE-NOTES 4",
     "Header generations (recognisable because size must equal the datagram length minus the header)",
     "a connection, then an important packet in each of the four header generations",
     "Info: the generations whose packet was acknowledged",
     generations},
};

const gw_conform gw_eoudp_conform = {.transport = GW_TRANSPORT_UDP, .cases = cases,
                                     .n_cases = sizeof cases / sizeof cases[0], .finish = eoudp_finish};
