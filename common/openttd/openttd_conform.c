/* openttd_conform.c - pcaptool conform's cases for the OpenTTD game
 * protocol (gw_conform.h), both roles: what a 13.x server does with a join (the OpenTTD wiki text's "Joining", wire-facts 2.9,
 * OpenTTD's src/network/network_server.cpp as 13.0 has it) and with
 * packets that break the framing. Packets are built from the decoder's
 * 13.x layouts (openttd.c, ottd_build; --option openttd.version picks
 * another numbering); answers are read through the decoder's fields (the
 * hidden openttd.packet names a packet whatever its number). */
#include <string.h>

#include "active/gw_conform.h"
#include "active/gw_fuzz.h"
#include "openttd/openttd.h"

#define P (&gw_openttd_protocol)
#define SERVER GW_ROLE_SERVER
#define CLIENT GW_ROLE_CLIENT
#define SRC "network_server.cpp (13.0)"
#define CSRC "network_client.cpp (13.0)"

/* what the 13.0 client sends (captured: openttd-13.0-join.pcap) */
static const char revision[] = "13.0";
#define NEWGRF_VERSION 0x1d086d64u
#define SPECTATOR 255

static int64_t packet(const gw_replay_pdu *p)
{
    uint64_t v;
    return gw_replay_u(p, OTTD_F_PACKET, &v) ? (int64_t)v : -1;
}

static const char *error_name(const gw_replay_pdu *p, char *buf, size_t n)
{
    const gw_item *it = gw_replay_item(p, OTTD_F_ERROR_CODE, 0);
    if (!it)
        return "without a code";
    const char *name = gw_value_name_of(P->fields[OTTD_F_ERROR_CODE].names, (uint32_t)it->v.u);
    snprintf(buf, n, "%s (%llu)", name ? name : "unknown", (unsigned long long)it->v.u);
    return buf;
}

static bool send_join(gw_conform_io *io, const char *rev, size_t rev_len, uint32_t grf, const char *name,
                      size_t name_len)
{
    return gw_conform_send(io, P, PK_CLIENT_JOIN,
                           GW_WVALS(GW_WB(OTTD_F_REVISION, rev, rev_len), GW_WU(OTTD_F_NEWGRF_VERSION, grf),
                                    GW_WB(OTTD_F_NAME, name, name_len), GW_WU(OTTD_F_COMPANY, SPECTATOR),
                                    GW_WU(OTTD_F_LANGUAGE, 0)));
}

static bool game_info(const gw_replay_pdu *p, const void *arg);

/* The join as both readings have it: the wiki's client asks for the server
   info first ("first packet, always needed"), 13.x's joins at once (a 13.0
   server answers both on one connection). So the info is asked for first,
   then the join goes; a server that ends the connection after the info gets
   the join on a fresh one. JOIN_SENT; REFUSED: a refusal came instead of the
   info, in *a, and nothing more went; or -1 (the outcome said). */
enum { JOIN_SENT, REFUSED };
static int send_good_join(gw_conform_io *io, gw_replay_pdu *a)
{
    if (!gw_conform_send(io, P, PK_CLIENT_GAME_INFO, GW_NO_VALUES))
        return -1;
    gw_wait w = gw_conform_await(io, io->wait_ms, game_info, NULL, a);
    if (w == GW_GOT && packet(a) != PK_SERVER_GAME_INFO)
        return REFUSED;
    if (w == GW_CLOSED && !io->reconnect(io)) {
        gw_conform_say(io, GW_FAIL, "the server closed the connection after CLIENT_GAME_INFO and could not be "
                       "reached again");
        return -1;
    }
    return send_join(io, revision, sizeof revision - 1, NEWGRF_VERSION, "conform", 7) ? JOIN_SENT : -1;
}

/* the packets that carry a join on: the server's next step */
static bool join_step(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    int64_t k = packet(p);
    return k == PK_SERVER_WELCOME || k == PK_SERVER_CHECK_NEWGRFS || k == PK_SERVER_NEED_GAME_PASSWORD ||
           k == PK_SERVER_NEED_COMPANY_PASSWORD || k == PK_SERVER_ERROR || k == PK_SERVER_FULL ||
           k == PK_SERVER_BANNED;
}

/* A join as far as WELCOME, through NEWGRF checks (answered) and no
   password. The client id in *id; false with the outcome said (the verdict
   in *v: Skipped where a password is asked, else Fail). */
static bool joined(gw_conform_io *io, uint64_t *id, gw_verdict *v)
{
    *v = GW_FAIL;
    gw_replay_pdu a;
    int sent = send_good_join(io, &a);
    if (sent < 0)
        return false;
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    unsigned asked = 0; /* game passwords sent */
    for (bool have = sent == REFUSED;; have = false) {
        gw_wait w = have ? GW_GOT : gw_conform_await_until(io, until, join_step, NULL, &a);
        if (w != GW_GOT) {
            gw_conform_say(io, GW_FAIL, w == GW_CLOSED ? "the server closed the connection during the join"
                                                       : "the join got no answer in time");
            return false;
        }
        int64_t k = packet(&a);
        char e[64];
        if (k == PK_SERVER_WELCOME) {
            *id = 0;
            gw_replay_u(&a, OTTD_F_CLIENT_ID, id);
            return true;
        }
        if (k == PK_SERVER_CHECK_NEWGRFS) {
            if (!gw_conform_send(io, P, PK_CLIENT_NEWGRFS_CHECKED, GW_NO_VALUES))
                return false;
            continue;
        }
        const char *password = io->setting(io, "password");
        if (k == PK_SERVER_NEED_GAME_PASSWORD && password && !asked++) {
            if (!gw_conform_send(io, P, PK_CLIENT_GAME_PASSWORD,
                                 GW_WVALS(GW_WB(OTTD_F_PASSWORD, password, strlen(password)))))
                return false;
            continue;
        }
        if (k == PK_SERVER_NEED_GAME_PASSWORD || k == PK_SERVER_NEED_COMPANY_PASSWORD) {
            *v = GW_SKIPPED;
            gw_conform_say(io, GW_SKIPPED, "the server asks for a %s password%s", k == PK_SERVER_NEED_GAME_PASSWORD ?
                           "game" : "company", password ? " again" : ", which pcaptool was not given (--set "
                           "password=...)");
            return false;
        }
        /* full, banned, not on the allow list, another revision: a server
           may refuse a join, and then there is nothing to judge */
        *v = gw_conform_say(io, GW_SKIPPED, "the server refused the join (%s%s%s): its right, but nothing to judge",
                            k == PK_SERVER_ERROR ? "SERVER_ERROR" : k == PK_SERVER_FULL ? "SERVER_FULL" : "SERVER_BANNED",
                            k == PK_SERVER_ERROR ? " " : "", k == PK_SERVER_ERROR ? error_name(&a, e, sizeof e) : "");
        return false;
    }
}

#define REFUSES_ALL (-4)

/* Did the server end the join (a SERVER_ERROR, or the connection closed)
   within the wait? The error code, or -1: closed without one, -2: it went
   on, -3: silence, REFUSES_ALL: it refuses every client here (SERVER_FULL,
   SERVER_BANNED, SERVER_ERROR FULL or NOT_ON_ALLOW_LIST, which a server
   sends to any join or at once on connecting: no sign of what it makes of
   the case's packet). */
static int64_t ending(gw_conform_io *io, gw_replay_pdu *a, gw_conform_want step)
{
    gw_wait w = gw_conform_await(io, io->wait_ms, step, NULL, a);
    if (w == GW_CLOSED)
        return -1;
    if (w == GW_SILENT)
        return -3;
    if (packet(a) == PK_SERVER_FULL || packet(a) == PK_SERVER_BANNED)
        return REFUSES_ALL;
    if (packet(a) != PK_SERVER_ERROR)
        return -2;
    uint64_t code = 0;
    gw_replay_u(a, OTTD_F_ERROR_CODE, &code);
    return code == 14 || code == 21 ? REFUSES_ALL : (int64_t)code;
}

static gw_verdict refuses_all(gw_conform_io *io, const gw_replay_pdu *a, const char *what)
{
    char e[64];
    int64_t k = packet(a);
    return gw_conform_say(io, GW_SKIPPED, "%s: the server refuses every client here (%s%s%s): nothing to judge", what,
                          k == PK_SERVER_FULL ? "SERVER_FULL" : k == PK_SERVER_BANNED ? "SERVER_BANNED" : "SERVER_ERROR",
                          k == PK_SERVER_ERROR ? " " : "", k == PK_SERVER_ERROR ? error_name(a, e, sizeof e) : "");
}

/* A join step, or the map: what a server that takes CLIENT_GETMAP sends. */
static bool join_or_map(const gw_replay_pdu *p, const void *arg)
{
    int64_t k = packet(p);
    return join_step(p, arg) || k == PK_SERVER_WAIT || k == PK_SERVER_MAP_BEGIN || k == PK_SERVER_MAP_SIZE ||
           k == PK_SERVER_MAP_DATA || k == PK_SERVER_MAP_DONE;
}

/* The reference refuses with error `want` (a SERVER_ERROR with another
   code, a bare close, or silence: Non-strict, the code being the
   reference's); a server that goes on (a step `step` accepts, other than a
   SERVER_ERROR): `going_on`, Non-strict where only the reference refuses,
   Fail where the wiki's join requires it (a password, authorization). */
static gw_verdict refused_with(gw_conform_io *io, uint64_t want, const char *what, gw_conform_want step,
                               gw_verdict going_on)
{
    gw_replay_pdu a;
    int64_t code = ending(io, &a, step);
    const char *wname = gw_value_name_of(P->fields[OTTD_F_ERROR_CODE].names, (uint32_t)want);
    char e[64];
    if (code == (int64_t)want)
        return gw_conform_say(io, GW_PASS, "%s: SERVER_ERROR %s", what, error_name(&a, e, sizeof e));
    if (code == REFUSES_ALL)
        return refuses_all(io, &a, what);
    if (code >= 0)
        return gw_conform_say(io, GW_NON_STRICT, "%s: SERVER_ERROR %s, not %s", what, error_name(&a, e, sizeof e), wname);
    if (code == -1)
        return gw_conform_say(io, GW_NON_STRICT, "%s: the connection was closed without a SERVER_ERROR %s", what, wname);
    if (code == -2)
        return gw_conform_say(io, going_on, "%s, yet the server went on", what);
    return gw_conform_say(io, GW_NON_STRICT, "%s: no answer within %.1f s", what, io->wait_ms / 1000.0);
}

/* the reference drops a connection that breaks the framing: a
   SERVER_ERROR or a close; one that answers as to a good packet:
   `answered` (Non-strict, where only the reference drops it; Fail where
   the wiki requires what the packet breaks) */
static gw_verdict dropped(gw_conform_io *io, const char *what, gw_verdict answered)
{
    gw_replay_pdu a;
    int64_t code = ending(io, &a, join_step);
    char e[64];
    if (code == REFUSES_ALL)
        return refuses_all(io, &a, what);
    if (code == -1)
        return gw_conform_say(io, GW_PASS, "%s: the server closed the connection", what);
    if (code >= 0)
        return gw_conform_say(io, GW_PASS, "%s: SERVER_ERROR %s", what, error_name(&a, e, sizeof e));
    if (code == -2)
        return gw_conform_say(io, answered, "%s, yet the server answered as to a good packet", what);
    return gw_conform_say(io, GW_INFO, "%s: the server said nothing within %.1f s and kept the connection", what,
                          io->wait_ms / 1000.0);
}

/* ---- the cases -------------------------------------------------------------------- */

static gw_verdict join_welcome(gw_conform_io *io)
{
    uint64_t id;
    gw_verdict v;
    if (!joined(io, &id, &v))
        return v;
    return gw_conform_say(io, GW_PASS, "welcomed as client %llu", (unsigned long long)id);
}

static const gw_conform_case case_join_welcome = {
    "openttd/join/welcome", SERVER, "A join as the 13.0 client sends it is welcomed",
    "OpenTTD wiki text, Joining; wire-facts 2.9",
    "Then it verifies itself, gives his name and, if needed, passwords.",
    "CLIENT_GAME_INFO (the wiki's first packet), then CLIENT_JOIN: revision \"13.0\", NewGRF version "
    "0x1d086d64, name \"conform\", spectator",
    "SERVER_WELCOME (after SERVER_CHECK_NEWGRFS, and the game password given with --set password=... when asked); "
    "Skipped when a password is asked and not given, or "
    "the join is refused (full, banned, another revision: the server's right); Fail on silence or a close",
    join_welcome, GW_MUST};

static gw_verdict join_wrong_revision(gw_conform_io *io)
{
    /* no release's name: a decoder (ours too) keeps the numbering it has,
       where "0.1.0-..." would switch it to 0.5-0.7's */
    static const char rev[] = "conform-no-release";
    if (!send_join(io, rev, sizeof rev - 1, NEWGRF_VERSION, "conform", 7))
        return GW_FAIL;
    return refused_with(io, 8, "revision \"conform-no-release\"", join_step, GW_NON_STRICT);
}

static const gw_conform_case case_join_wrong_revision = {
    "openttd/join/wrong-revision", SERVER, "Another revision is refused with WRONG_REVISION", SRC,
    "Receive_CLIENT_JOIN: if (!IsNetworkCompatibleVersion(client_revision) ...) return "
    "this->SendError(NETWORK_ERROR_WRONG_REVISION);",
    "CLIENT_JOIN with revision \"conform-no-release\"",
    "SERVER_ERROR WRONG_REVISION (8); Non-strict for another error, a bare close, silence or a join that goes on (the "
    "reference's refusal: the wiki names none); Skipped when the server refuses every client (full, banned)",
    join_wrong_revision, GW_REFERENCE};

static gw_verdict join_wrong_newgrf_version(gw_conform_io *io)
{
    if (!send_join(io, revision, sizeof revision - 1, 0x00000001u, "conform", 7))
        return GW_FAIL;
    return refused_with(io, 8, "NewGRF version 1 with revision 13.0", join_step, GW_NON_STRICT);
}

static const gw_conform_case case_join_wrong_newgrf_version = {
    "openttd/join/wrong-newgrf-version", SERVER, "Another NewGRF version is refused with WRONG_REVISION", SRC,
    "Receive_CLIENT_JOIN: ... || _openttd_newgrf_version != newgrf_version) return "
    "this->SendError(NETWORK_ERROR_WRONG_REVISION);",
    "CLIENT_JOIN with revision \"13.0\" and NewGRF version 1",
    "SERVER_ERROR WRONG_REVISION (8); Non-strict for another error, a bare close, silence or a join that goes on (the "
    "reference's refusal: the wiki names none); Skipped when the server refuses every client (full, banned)",
    join_wrong_newgrf_version, GW_REFERENCE};

static gw_verdict join_empty_name(gw_conform_io *io)
{
    if (!send_join(io, revision, sizeof revision - 1, NEWGRF_VERSION, "", 0))
        return GW_FAIL;
    return refused_with(io, 20, "an empty client name", join_step, GW_NON_STRICT);
}

static const gw_conform_case case_join_empty_name = {
    "openttd/join/empty-name", SERVER, "An empty client name is refused", SRC,
    "Receive_CLIENT_JOIN: if (!NetworkIsValidClientName(client_name)) return "
    "this->SendError(NETWORK_ERROR_INVALID_CLIENT_NAME);",
    "CLIENT_JOIN with an empty name",
    "SERVER_ERROR INVALID_CLIENT_NAME (20); Non-strict for another error, a bare close, silence or a join that goes on "
    "(the reference's refusal: the wiki names none); Skipped when the server refuses every client (full, banned)",
    join_empty_name, GW_REFERENCE};

static bool game_info(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return packet(p) == PK_SERVER_GAME_INFO || packet(p) == PK_SERVER_ERROR || packet(p) == PK_SERVER_FULL ||
           packet(p) == PK_SERVER_BANNED;
}

static gw_verdict info_unauthorized(gw_conform_io *io)
{
    if (!gw_conform_send(io, P, PK_CLIENT_GAME_INFO, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, game_info, NULL, &a);
    if (w == GW_GOT && packet(&a) == PK_SERVER_GAME_INFO) {
        const gw_item *name = gw_replay_item(&a, OTTD_F_SERVER_NAME, 0);
        return gw_conform_say(io, GW_PASS, "SERVER_GAME_INFO before any join%s%.*s%s", name ? " (server \"" : "",
                              name ? (int)name->v.b.n : 0, name ? (const char *)name->v.b.p : "", name ? "\")" : "");
    }
    if (w == GW_GOT && packet(&a) != PK_SERVER_ERROR)
        return refuses_all(io, &a, "CLIENT_GAME_INFO");
    char e[64];
    if (w == GW_GOT)
        return gw_conform_say(io, GW_FAIL, "CLIENT_GAME_INFO before any join: SERVER_ERROR %s",
                              error_name(&a, e, sizeof e));
    return gw_conform_say(io, GW_FAIL, "CLIENT_GAME_INFO before any join: %s",
                          w == GW_CLOSED ? "the server closed the connection" : "no answer");
}

static const gw_conform_case case_info_without_authorization = {
    "openttd/info/without-authorization", SERVER, "The server info is given before any join", "OpenTTD wiki text, The protocol",
    "The client can get the server info without authorization.",
    "CLIENT_GAME_INFO on a fresh connection",
    "SERVER_GAME_INFO; Skipped when the server refuses every client (full, banned); Fail on an error, a close or "
    "silence",
    info_unauthorized, GW_MUST};

static gw_verdict getmap_unauthorized(gw_conform_io *io)
{
    if (!gw_conform_send(io, P, PK_CLIENT_GETMAP, GW_NO_VALUES))
        return GW_FAIL;
    /* "before it gets the map, it needs authorization": the map (or a
       join step) given to it breaks the wiki */
    return refused_with(io, 6, "CLIENT_GETMAP before any join", join_or_map, GW_FAIL);
}

static const gw_conform_case case_join_getmap_unauthorized = {
    "openttd/join/getmap-unauthorized", SERVER, "The map is not sent to a client that has not joined", SRC,
    "Receive_CLIENT_GETMAP: if (this->status != STATUS_AUTHORIZED) return "
    "this->SendError(NETWORK_ERROR_NOT_AUTHORIZED);",
    "CLIENT_GETMAP as the first packet",
    "SERVER_ERROR NOT_AUTHORIZED (6); Non-strict for another error, a bare close or silence (the code is the "
    "reference's); Fail when the map or a join step comes (a MUST: the wiki's \"before it gets the map, it needs "
    "authorization\")",
    getmap_unauthorized, GW_REFERENCE};

static gw_verdict command_before_map(gw_conform_io *io)
{
    uint64_t id;
    gw_verdict v;
    if (!joined(io, &id, &v))
        return v;
    static const uint8_t none[1];
    if (!gw_conform_send(io, P, PK_CLIENT_COMMAND,
                         GW_WVALS(GW_WU(OTTD_F_COMPANY, 0), GW_WU(OTTD_F_CMD, 1), GW_WU(OTTD_F_TILE, 0),
                                  GW_WB(OTTD_F_CMD_DATA, none, 0), GW_WU(OTTD_F_CALLBACK, 0))))
        return GW_FAIL;
    return refused_with(io, 7, "CLIENT_COMMAND after WELCOME, before the map", join_step, GW_NON_STRICT);
}

static const gw_conform_case case_join_command_before_map = {
    "openttd/join/command-before-map", SERVER, "A command before the map is loaded is refused", SRC,
    "Receive_CLIENT_COMMAND: if (this->status < STATUS_DONE_MAP || this->HasClientQuit()) return "
    "this->SendError(NETWORK_ERROR_NOT_EXPECTED);",
    "a join to WELCOME, then CLIENT_COMMAND",
    "SERVER_ERROR NOT_EXPECTED (7); Non-strict for another error, a bare close, silence or a join that goes on (the "
    "reference's refusal: the wiki is silent); Skipped when the server refuses every client; Fail when the join "
    "itself fails (openttd/join/welcome's MUST)",
    command_before_map, GW_REFERENCE};

/* a join through the map: WELCOME, GETMAP, the map's packets up to
   MAP_DONE. The announced size and the data's bytes in *size, *data. */
static bool map_transfer(gw_conform_io *io, uint64_t *id, uint64_t *size, uint64_t *data, gw_verdict *v)
{
    if (!joined(io, id, v))
        return false;
    if (!gw_conform_send(io, P, PK_CLIENT_GETMAP, GW_NO_VALUES))
        return false;
    *size = UINT64_MAX;
    *data = 0;
    gw_replay_pdu a;
    int64_t until = gw_conform_clock_ms() + (int64_t)io->wait_ms * 5; /* a map takes its time */
    for (;;) {
        gw_wait w = gw_conform_await_until(io, until, NULL, NULL, &a);
        if (w != GW_GOT) {
            *v = gw_conform_say(io, GW_FAIL, w == GW_CLOSED ? "the server closed the connection during the map"
                                                            : "the map did not come to its end in time");
            return false;
        }
        int64_t k = packet(&a);
        const gw_item *it;
        if (k == PK_SERVER_MAP_SIZE)
            gw_replay_u(&a, OTTD_F_MAP_SIZE, size);
        else if (k == PK_SERVER_MAP_DATA && (it = gw_replay_item(&a, OTTD_F_MAP_DATA, 0)))
            *data += it->len;
        else if (k == PK_SERVER_MAP_DONE)
            return true;
        else if (k == PK_SERVER_ERROR) {
            char e[64];
            *v = gw_conform_say(io, GW_FAIL, "SERVER_ERROR %s during the map", error_name(&a, e, sizeof e));
            return false;
        }
    }
}

static gw_verdict map_sizes(gw_conform_io *io)
{
    uint64_t id, size, data;
    gw_verdict v;
    if (!map_transfer(io, &id, &size, &data, &v))
        return v;
    /* the packets and their sizes are the reference's (wire-facts 2.8) */
    if (size == UINT64_MAX)
        return gw_conform_say(io, GW_NON_STRICT, "no SERVER_MAP_SIZE before SERVER_MAP_DONE");
    if (size != data)
        return gw_conform_say(io, GW_NON_STRICT, "SERVER_MAP_SIZE announced %llu %s, SERVER_MAP_DATA carried %llu",
                              (unsigned long long)size, gw_bytes((unsigned long long)size), (unsigned long long)data);
    return gw_conform_say(io, GW_PASS, "SERVER_MAP_SIZE %llu %s, and SERVER_MAP_DATA carried as many",
                          (unsigned long long)size, gw_bytes((unsigned long long)size));
}

static const gw_conform_case case_map_sizes_add_up = {
    "openttd/map/sizes-add-up", SERVER, "The map data adds up to the announced size", "wire-facts 2.8",
    "SERVER_MAP_SIZE: u32 bytes of the savegame SERVER_MAP_DATA carries",
    "a join to WELCOME, then CLIENT_GETMAP",
    "SERVER_MAP_SIZE, then SERVER_MAP_DATA packets whose bytes sum to it, then SERVER_MAP_DONE; Non-strict when "
    "SERVER_MAP_SIZE is missing or the sizes differ (the reference's packets); Fail when the join or the map does "
    "not come to its end (a MUST: the wiki's join, where the client \"asks for a copy of the current map\")",
    map_sizes, GW_REFERENCE};

static bool join_of(const gw_replay_pdu *p, const void *arg)
{
    uint64_t id;
    return packet(p) == PK_SERVER_JOIN && gw_replay_u(p, OTTD_F_CLIENT_ID, &id) && id == *(const uint64_t *)arg;
}

static gw_verdict join_announced(gw_conform_io *io)
{
    uint64_t id, size, data;
    gw_verdict v;
    if (!map_transfer(io, &id, &size, &data, &v))
        return v;
    if (!gw_conform_send(io, P, PK_CLIENT_MAP_OK, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, join_of, &id, &a);
    if (w != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "no SERVER_JOIN for client %llu after CLIENT_MAP_OK", (unsigned long long)id);
    return gw_conform_say(io, GW_PASS, "SERVER_JOIN for client %llu, the id WELCOME gave", (unsigned long long)id);
}

static const gw_conform_case case_join_announced = {
    "openttd/join/announced", SERVER, "After the map, the join is announced with the welcomed id",
    "OpenTTD wiki text, Joining; " SRC,
    "Receive_CLIENT_MAP_OK: ... NetworkAdminClientInfo / SendJoin(this->client_id) to every client",
    "a join through the map, then CLIENT_MAP_OK",
    "SERVER_JOIN naming the client id SERVER_WELCOME gave; Fail otherwise (a MUST: the wiki's \"After it received "
    "the map, it starts playing, and also the player is announced\", SERVER_JOIN going \"also [to] the client who "
    "just joined\")",
    join_announced, GW_REFERENCE};

static gw_verdict unknown_type(gw_conform_io *io)
{
    uint64_t id;
    gw_verdict v;
    if (!joined(io, &id, &v))
        return v;
    static const uint8_t pkt[] = {0x03, 0x00, 0xfa}; /* size 3, type 250: no packet of any release */
    if (!io->send(io, pkt, sizeof pkt))
        return gw_conform_say(io, GW_FAIL, "could not send");
    return dropped(io, "packet type 250 after WELCOME", GW_NON_STRICT);
}

static const gw_conform_case case_packets_unknown_type = {
    "openttd/packets/unknown-type", SERVER, "An unknown packet type ends the connection",
    "network/core/tcp_game.cpp (13.0)",
    "HandlePacket: default: Debug(net, 0, \"Received invalid packet type {}\", type); return "
    "NETWORK_RECV_STATUS_MALFORMED_PACKET;",
    "a join to WELCOME, then a 3-byte packet of type 250",
    "a SERVER_ERROR or a close; Info when the server ignores it; Skipped when it refuses every client "
    "(full, banned); Non-strict when it answers as to a good packet (the reference's limit, not the wiki's)",
    unknown_type, GW_REFERENCE};

static gw_verdict oversized(gw_conform_io *io)
{
    /* a header whose size says 65535 bytes: over TCP_MTU (32767), the most
       any 13.x packet may have (and its high bit is reserved); a hundred
       bytes follow, so the packet's content is never complete */
    uint8_t pkt[103] = {0xff, 0xff};
    pkt[2] = 2; /* CLIENT_JOIN in 13.x */
    if (!io->send(io, pkt, sizeof pkt))
        return gw_conform_say(io, GW_FAIL, "could not send");
    return dropped(io, "a packet whose size says 65535 bytes", GW_NON_STRICT);
}

static const gw_conform_case case_packets_oversized = {
    "openttd/packets/oversized", SERVER, "A packet over the size limit ends the connection",
    "wire-facts 2.2; OpenTTD 13.0 src/network/core/packet.cpp",
    "Limits: 1460 (COMPAT_MTU) normally, 32767 (TCP_MTU) for map data, game info and some others; the high "
    "bit of the size is reserved.",
    "the header of a packet whose size says 65535 bytes, and 100 bytes of it",
    "a SERVER_ERROR or a close; Info when the server ignores it; Skipped when it refuses every client "
    "(full, banned); Non-strict when it answers as to a good packet (the reference's limit, not the wiki's)",
    oversized, GW_REFERENCE};

static gw_verdict undersized(gw_conform_io *io)
{
    static const uint8_t pkt[] = {0x02, 0x00, 0x02}; /* size 2: less than its own header */
    if (!io->send(io, pkt, sizeof pkt))
        return gw_conform_say(io, GW_FAIL, "could not send");
    return dropped(io, "a packet whose size (2) is less than its header", GW_NON_STRICT);
}

static const gw_conform_case case_packets_undersized = {
    "openttd/packets/undersized", SERVER, "A size below the header's ends the connection",
    "wire-facts 2.1",
    "size:u16 LE (counts the whole packet including the 2 size bytes), type:u8, payload. Minimum 3.",
    "a packet whose size field says 2",
    "a SERVER_ERROR or a close; Info when the server ignores it; Skipped when it refuses every client "
    "(full, banned); Non-strict when it answers as to a good packet (the reference's limit, not the wiki's)",
    undersized, GW_REFERENCE};

static gw_verdict truncated_join(gw_conform_io *io)
{
    /* CLIENT_JOIN ending inside its revision: no NUL, no NewGRF version */
    static const uint8_t pkt[] = {0x05, 0x00, 0x02, '1', '3'};
    if (!io->send(io, pkt, sizeof pkt))
        return gw_conform_say(io, GW_FAIL, "could not send");
    /* the wiki: a string "You must read it till you reach a zero" */
    return dropped(io, "a CLIENT_JOIN cut inside its revision", GW_FAIL);
}

static const gw_conform_case case_packets_truncated = {
    "openttd/packets/truncated", SERVER, "A packet that ends inside a field ends the connection",
    "wire-facts 2.3; OpenTTD 13.0 src/network/core/packet.cpp",
    "strings are UTF-8 terminated by \\0 with no length",
    "a 5-byte CLIENT_JOIN whose revision has no terminator and no fields after it",
    "a SERVER_ERROR or a close; Info when the server ignores it; Skipped when it refuses every client "
    "(full, banned); Fail when it answers as to a good packet (a MUST: the wiki's string, \"You must read it till "
    "you reach a zero\")",
    truncated_join, GW_REFERENCE};

static gw_verdict password_wrong(gw_conform_io *io)
{
    gw_replay_pdu a;
    int sent = send_good_join(io, &a);
    if (sent < 0)
        return GW_FAIL;
    gw_wait w = sent == REFUSED ? GW_GOT : gw_conform_await(io, io->wait_ms, join_step, NULL, &a);
    if (w != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the join got no answer");
    if (packet(&a) == PK_SERVER_CHECK_NEWGRFS) {
        if (!gw_conform_send(io, P, PK_CLIENT_NEWGRFS_CHECKED, GW_NO_VALUES))
            return GW_FAIL;
        if (gw_conform_await(io, io->wait_ms, join_step, NULL, &a) != GW_GOT)
            return gw_conform_say(io, GW_FAIL, "no answer after CLIENT_NEWGRFS_CHECKED");
    }
    if (packet(&a) == PK_SERVER_FULL || packet(&a) == PK_SERVER_BANNED || packet(&a) == PK_SERVER_ERROR)
        return refuses_all(io, &a, "the join");
    if (packet(&a) != PK_SERVER_NEED_GAME_PASSWORD)
        return gw_conform_say(io, GW_SKIPPED, "the server asks for no game password");
    static const char wrong[] = "not-the-password";
    if (!gw_conform_send(io, P, PK_CLIENT_GAME_PASSWORD, GW_WVALS(GW_WB(OTTD_F_PASSWORD, wrong, sizeof wrong - 1))))
        return GW_FAIL;
    /* the wiki's join "gives his name and, if needed, passwords": one that
       goes on with a wrong one has no authorization */
    return refused_with(io, 10, "a wrong game password", join_step, GW_FAIL);
}

static const gw_conform_case case_join_wrong_password = {
    "openttd/join/wrong-password", SERVER, "A wrong game password is refused", "OpenTTD wiki text, Joining; " SRC,
    "Receive_CLIENT_GAME_PASSWORD: if (_settings_client.network.server_password.compare(password) != 0) return "
    "this->SendError(NETWORK_ERROR_WRONG_PASSWORD);",
    "a join, then a wrong CLIENT_GAME_PASSWORD when SERVER_NEED_GAME_PASSWORD asks for one",
    "SERVER_ERROR WRONG_PASSWORD (10); Non-strict for another error, a bare close or silence (the code is the "
    "reference's); Fail when the join goes on (a MUST: the wiki's join \"gives his name and, if needed, passwords\", "
    "and \"before it gets the map, it needs authorization\"); Skipped when the server asks for no password",
    password_wrong, GW_REFERENCE};

/* ---- the implementation as client: pcaptool serves -------------------------------- */

static bool is_join(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return packet(p) == PK_CLIENT_JOIN;
}

/* the client's CLIENT_JOIN: false with the outcome said */
static bool client_joined(gw_conform_io *io, gw_replay_pdu *a)
{
    if (gw_conform_await(io, io->wait_ms, is_join, NULL, a) == GW_GOT)
        return true;
    gw_conform_say(io, GW_FAIL, "the client sent no CLIENT_JOIN within %.1f s", io->wait_ms / 1000.0);
    return false;
}

#define JOINED_OR_FAIL(io, a) \
    gw_replay_pdu a; \
    if (!client_joined(io, &a)) \
        return GW_FAIL

static gw_verdict client_join(gw_conform_io *io)
{
    JOINED_OR_FAIL(io, a);
    const gw_item *rev = gw_replay_item(&a, OTTD_F_REVISION, 0), *name = gw_replay_item(&a, OTTD_F_NAME, 0);
    if (!rev || !name)
        return gw_conform_say(io, GW_FAIL, "CLIENT_JOIN without its revision or name");
    return gw_conform_say(io, GW_PASS, "CLIENT_JOIN: revision \"%.*s\", name \"%.*s\"", (int)rev->v.b.n,
                          (const char *)rev->v.b.p, (int)name->v.b.n, (const char *)name->v.b.p);
}

static const gw_conform_case case_client_join = {
    "openttd/client/join", CLIENT, "The client begins with CLIENT_JOIN", "OpenTTD wiki text, Joining; wire-facts 2.9",
    "it first fetches some data ... Then it verifies itself, gives his name and, if needed, passwords.",
    "nothing: the client's first packet is read",
    "CLIENT_JOIN with a revision and a name; Fail otherwise",
    client_join, GW_MUST};

/* a refusal of the join; does the client end the connection? */
static gw_verdict client_ends_after(gw_conform_io *io, int64_t pk, const gw_wval *vals, const char *what)
{
    JOINED_OR_FAIL(io, a);
    if (!gw_conform_send(io, P, pk, vals))
        return GW_FAIL;
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    gw_wait w;
    while ((w = gw_conform_await_until(io, until, NULL, NULL, &a)) == GW_GOT)
        if (packet(&a) == PK_CLIENT_GETMAP || packet(&a) == PK_CLIENT_NEWGRFS_CHECKED)
            return gw_conform_say(io, GW_NON_STRICT, "after %s the client went on with the join", what);
    if (w == GW_CLOSED)
        return gw_conform_say(io, GW_PASS, "after %s the client closed the connection", what);
    return gw_conform_say(io, GW_NON_STRICT, "after %s the client kept the connection %.1f s", what,
                          io->wait_ms / 1000.0);
}

static gw_verdict client_error(gw_conform_io *io)
{
    return client_ends_after(io, PK_SERVER_ERROR, GW_WVALS(GW_WU(OTTD_F_ERROR_CODE, 8)), "SERVER_ERROR WRONG_REVISION");
}

static const gw_conform_case case_client_error_ends = {
    "openttd/client/error-ends", CLIENT, "A client told SERVER_ERROR leaves", CSRC,
    "Receive_SERVER_ERROR: ... return NETWORK_RECV_STATUS_SERVER_ERROR;",
    "SERVER_ERROR WRONG_REVISION after the join",
    "the client closes the connection; Non-strict when it goes on with the join or stays (the reference's; the "
    "wiki says nothing of it)",
    client_error, GW_REFERENCE};

static gw_verdict client_full(gw_conform_io *io)
{
    return client_ends_after(io, PK_SERVER_FULL, GW_NO_VALUES, "SERVER_FULL");
}

static const gw_conform_case case_client_full_ends = {
    "openttd/client/full-ends", CLIENT, "A client told the server is full leaves", CSRC,
    "Receive_SERVER_FULL: ... return NETWORK_RECV_STATUS_SERVER_FULL;",
    "SERVER_FULL after the join",
    "the client closes the connection; Non-strict when it goes on with the join or stays (the reference's; the "
    "wiki says nothing of it)",
    client_full, GW_REFERENCE};

static gw_verdict client_banned(gw_conform_io *io)
{
    return client_ends_after(io, PK_SERVER_BANNED, GW_NO_VALUES, "SERVER_BANNED");
}

static const gw_conform_case case_client_banned_ends = {
    "openttd/client/banned-ends", CLIENT, "A banned client leaves", CSRC,
    "Receive_SERVER_BANNED: ... return NETWORK_RECV_STATUS_SERVER_BANNED;",
    "SERVER_BANNED after the join",
    "the client closes the connection; Non-strict when it goes on with the join or stays (the reference's; the "
    "wiki says nothing of it)",
    client_banned, GW_REFERENCE};

/* a step of the join sent: does the client answer with `want`? */
static gw_verdict client_answers(gw_conform_io *io, int64_t pk, const gw_wval *vals, int64_t want, const char *what,
                                 const char *answer, gw_verdict otherwise)
{
    JOINED_OR_FAIL(io, a);
    if (!gw_conform_send(io, P, pk, vals))
        return GW_FAIL;
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    gw_wait r;
    while ((r = gw_conform_await_until(io, until, NULL, NULL, &a)) == GW_GOT)
        if (packet(&a) == want)
            return gw_conform_say(io, GW_PASS, "%s answered with %s", what, answer);
    return gw_conform_say(io, otherwise, "%s: no %s within %.1f s%s", what, answer, io->wait_ms / 1000.0,
                          r == GW_CLOSED ? " (the client closed the connection)" : "");
}

static gw_verdict client_newgrfs(gw_conform_io *io)
{
    return client_answers(io, PK_SERVER_CHECK_NEWGRFS, GW_WVALS(GW_WU(OTTD_F_GRF_COUNT, 0)), PK_CLIENT_NEWGRFS_CHECKED,
                          "SERVER_CHECK_NEWGRFS (no NewGRFs)", "CLIENT_NEWGRFS_CHECKED", GW_NON_STRICT);
}

static const gw_conform_case case_client_newgrfs_checked = {
    "openttd/client/newgrfs-checked", CLIENT, "A NewGRF check is answered", CSRC,
    "Receive_SERVER_CHECK_NEWGRFS: ... if (ret == NETWORK_RECV_STATUS_OKAY) SendNewGRFsOk();",
    "SERVER_CHECK_NEWGRFS listing no NewGRF",
    "CLIENT_NEWGRFS_CHECKED; Non-strict otherwise (the reference's step: the wiki has no NewGRF check)",
    client_newgrfs, GW_REFERENCE};

static gw_verdict client_welcome(gw_conform_io *io)
{
    static const char id[] = "conform";
    return client_answers(io, PK_SERVER_WELCOME,
                          GW_WVALS(GW_WU(OTTD_F_CLIENT_ID, 5), GW_WU(OTTD_F_GENERATION_SEED, 1),
                                   GW_WB(OTTD_F_NETWORK_ID, id, sizeof id - 1)),
                          PK_CLIENT_GETMAP, "SERVER_WELCOME", "CLIENT_GETMAP", GW_FAIL);
}

static const gw_conform_case case_client_welcome_getmap = {
    "openttd/client/welcome-getmap", CLIENT, "A welcomed client asks for the map", "OpenTTD wiki text, Joining",
    "Then it asks for a copy of the current map",
    "SERVER_WELCOME (client id 5)",
    "CLIENT_GETMAP; Fail otherwise",
    client_welcome, GW_MUST};

static gw_verdict client_password(gw_conform_io *io)
{
    return client_answers(io, PK_SERVER_NEED_GAME_PASSWORD, GW_NO_VALUES, PK_CLIENT_GAME_PASSWORD,
                          "SERVER_NEED_GAME_PASSWORD", "CLIENT_GAME_PASSWORD", GW_INFO);
}

static const gw_conform_case case_client_game_password = {
    "openttd/client/game-password", CLIENT, "A client asked for the game password answers (recorded)", CSRC,
    "Receive_SERVER_NEED_GAME_PASSWORD: ... ShowNetworkNeedPassword / SendGamePassword",
    "SERVER_NEED_GAME_PASSWORD",
    "CLIENT_GAME_PASSWORD; Info when none comes (a client without a password waits for its user)",
    client_password, GW_REFERENCE};

/* raw bytes after the join: does the client drop the connection? */
static gw_verdict client_dropped(gw_conform_io *io, const uint8_t *d, size_t n, const char *what)
{
    JOINED_OR_FAIL(io, a);
    if (!io->send(io, d, n))
        return gw_conform_say(io, GW_FAIL, "could not send");
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    gw_wait w;
    while ((w = gw_conform_await_until(io, until, NULL, NULL, &a)) == GW_GOT)
        ;
    if (w == GW_CLOSED)
        return gw_conform_say(io, GW_PASS, "%s: the client closed the connection", what);
    return gw_conform_say(io, GW_INFO, "%s: the client kept the connection %.1f s", what, io->wait_ms / 1000.0);
}

static gw_verdict client_unknown(gw_conform_io *io)
{
    static const uint8_t pkt[] = {0x03, 0x00, 0xfa};
    return client_dropped(io, pkt, sizeof pkt, "packet type 250");
}

static const gw_conform_case case_client_unknown_type = {
    "openttd/client/unknown-type", CLIENT, "An unknown packet type ends the connection (recorded)",
    "network/core/tcp_game.cpp (13.0)",
    "HandlePacket: default: Debug(net, 0, \"Received invalid packet type {}\", type); return "
    "NETWORK_RECV_STATUS_MALFORMED_PACKET;",
    "a 3-byte packet of type 250 after the join",
    "the client closes the connection; Info when it keeps it",
    client_unknown, GW_REFERENCE};

static gw_verdict client_undersized(gw_conform_io *io)
{
    static const uint8_t pkt[] = {0x02, 0x00, 0x02};
    return client_dropped(io, pkt, sizeof pkt, "a packet whose size (2) is less than its header");
}

static const gw_conform_case case_client_undersized = {
    "openttd/client/undersized", CLIENT, "A size below the header's ends the connection (recorded)", "wire-facts 2.1",
    "size:u16 LE (counts the whole packet including the 2 size bytes), type:u8, payload. Minimum 3.",
    "a packet whose size field says 2, after the join",
    "the client closes the connection; Info when it keeps it",
    client_undersized, GW_REFERENCE};

/* the case is over: a client leaves; pcaptool as server just closes */
static void ottd_finish(gw_conform_io *io)
{
    if (io->role == GW_ROLE_SERVER)
        gw_conform_send(io, P, PK_CLIENT_QUIT, GW_NO_VALUES);
}



static const gw_conform_setting settings[] = {
    {"password", "the server's game password: the join sends it when asked (without it, a server with a "
                 "password skips the cases that need a join)"},
    {NULL, NULL},
};

/* the cases build 13.x's packets (the join, the errors of
   network_server.cpp 13.0); the wiki's 0.5-0.7 numbering has no
   CLIENT_GAME_INFO of the same shape, nor most of them */
static const char *ottd_unusable(const int *opts)
{
    return opts[OTTD_OPT_VERSION] == OTTD_V_OLD
               ? "OpenTTD's cases speak 13.x and later (its join, its errors); -o openttd.version=0.7 (the wiki's "
                 "0.5-0.7 numbering) leaves them nothing to send"
               : NULL;
}


/* ---- pcaptool fuzz (active/gw_fuzz.h) ------------------------------------------------ */

enum { FZ_CONNECTED, FZ_JOINED };
static const char *const fuzz_states[] = {"connected", "joined"};

/* a fresh connection; joined: a join as far as WELCOME, as the join
   cases make it (a password asked and not given: unreached). The
   implementation as client: its CLIENT_JOIN read, whatever the state (a
   13.0 client's join stays in STATUS_JOIN until a WELCOME: all that goes
   before the map is sent there) */
static gw_verdict fuzz_enter(gw_conform_io *io, unsigned state)
{
    gw_replay_pdu a;
    if (io->role == CLIENT)
        return client_joined(io, &a) ? GW_PASS : GW_FAIL;
    if (state == FZ_CONNECTED)
        return GW_PASS;
    uint64_t id;
    gw_verdict v;
    return joined(io, &id, &v) ? GW_PASS : v == GW_FAIL ? GW_FAIL : GW_SKIPPED;
}

static bool is_getmap(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return packet(p) == PK_CLIENT_GETMAP;
}

/* CLIENT_GAME_INFO, which "the client can get [...] without
   authorization" and a 13.x server answers at any stage of a join
   (Receive_CLIENT_GAME_INFO: SendGameInfo()): SERVER_GAME_INFO, or the
   server's refusal of every client (full, banned). To a client:
   SERVER_WELCOME, after which the wiki's client "asks for a copy of the
   current map" (13.0's Receive_SERVER_WELCOME: return SendGetMap(),
   accepted from STATUS_JOIN until STATUS_AUTHORIZED, through a NewGRF
   check and a password request) */
static gw_wait fuzz_probe(gw_conform_io *io, const char **what)
{
    static const char id[] = "fuzz";
    gw_replay_pdu a;
    if (io->role == CLIENT) {
        *what = "SERVER_WELCOME";
        if (!gw_conform_send(io, P, PK_SERVER_WELCOME, GW_WVALS(GW_WU(OTTD_F_CLIENT_ID, 5), GW_WU(
                                 OTTD_F_GENERATION_SEED, 1), GW_WB(OTTD_F_NETWORK_ID, id, sizeof id - 1))))
            return GW_CLOSED;
        return gw_conform_await(io, io->wait_ms, is_getmap, NULL, &a);
    }
    *what = "CLIENT_GAME_INFO";
    if (!gw_conform_send(io, P, PK_CLIENT_GAME_INFO, GW_NO_VALUES))
        return GW_CLOSED;
    return gw_conform_await(io, io->wait_ms, game_info, NULL, &a);
}

/* a replay's probe to a client (the last PDU: SERVER_WELCOME) is answered
   by CLIENT_GETMAP, not by the CLIENT_NEWGRFS_CHECKED a check before it
   may still bring; a server's by one packet of any kind */
static unsigned fuzz_replay_answer(unsigned role, gw_conform_want *answer)
{
    *answer = role == CLIENT ? is_getmap : NULL;
    return 1;
}

static const char fuzz_chat[] = "fuzz";
static const gw_fuzz_target fuzz_targets[] = {
    {"game info request", FZ_CONNECTED, PK_CLIENT_GAME_INFO, GW_NO_VALUES, SERVER, false},
    {"join", FZ_CONNECTED, PK_CLIENT_JOIN,
     GW_WVALS(GW_WB(OTTD_F_REVISION, revision, sizeof revision - 1), GW_WU(OTTD_F_NEWGRF_VERSION, NEWGRF_VERSION),
              GW_WB(OTTD_F_NAME, "fuzz", 4), GW_WU(OTTD_F_COMPANY, SPECTATOR), GW_WU(OTTD_F_LANGUAGE, 0)),
     SERVER, false},
    /* to everyone (action 3: NETWORK_ACTION_CHAT, destination type 0:
       DESTTYPE_BROADCAST) */
    {"chat", FZ_JOINED, PK_CLIENT_CHAT,
     GW_WVALS(GW_WU(OTTD_F_ACTION, 3), GW_WU(OTTD_F_DEST_TYPE, 0), GW_WU(OTTD_F_DEST, 0),
              GW_WB(OTTD_F_MESSAGE, fuzz_chat, sizeof fuzz_chat - 1), GW_WU(OTTD_F_CHAT_DATA, 0)),
     SERVER, false},
    {"map request", FZ_JOINED, PK_CLIENT_GETMAP, GW_NO_VALUES, SERVER, false},
    /* to a client, in STATUS_JOIN (13.0's network_client.cpp): a NewGRF
       check (answered, the status kept), the password requests (the
       status AUTH_GAME or AUTH_COMPANY: a WELCOME still taken), the
       WELCOME itself, and a client's info and a chat, which it reads
       (SERVER_CLIENT_INFO) or refuses (SERVER_CHAT) before it is
       authorized */
    {"newgrf check", FZ_CONNECTED, PK_SERVER_CHECK_NEWGRFS, GW_WVALS(GW_WU(OTTD_F_GRF_COUNT, 0)), CLIENT, false},
    {"game password request", FZ_CONNECTED, PK_SERVER_NEED_GAME_PASSWORD, GW_NO_VALUES, CLIENT, false},
    {"company password request", FZ_CONNECTED, PK_SERVER_NEED_COMPANY_PASSWORD,
     GW_WVALS(GW_WU(OTTD_F_GENERATION_SEED, 1), GW_WB(OTTD_F_NETWORK_ID, "fuzz", 4)), CLIENT, false},
    {"welcome", FZ_CONNECTED, PK_SERVER_WELCOME,
     GW_WVALS(GW_WU(OTTD_F_CLIENT_ID, 5), GW_WU(OTTD_F_GENERATION_SEED, 1), GW_WB(OTTD_F_NETWORK_ID, "fuzz", 4)),
     CLIENT, false},
    {"client info", FZ_CONNECTED, PK_SERVER_CLIENT_INFO,
     GW_WVALS(GW_WU(OTTD_F_CLIENT_ID, 5), GW_WU(OTTD_F_COMPANY, SPECTATOR), GW_WB(OTTD_F_NAME, "fuzz", 4)), CLIENT,
     false},
    {"chat", FZ_CONNECTED, PK_SERVER_CHAT,
     GW_WVALS(GW_WU(OTTD_F_ACTION, 3), GW_WU(OTTD_F_CLIENT_ID, 5), GW_WU(OTTD_F_SELF_SEND, 0),
              GW_WB(OTTD_F_MESSAGE, fuzz_chat, sizeof fuzz_chat - 1), GW_WU(OTTD_F_CHAT_DATA, 0)),
     CLIENT, false},
};

static const gw_fuzz ottd_fuzz = {fuzz_states, 2, fuzz_enter, fuzz_targets, sizeof fuzz_targets / sizeof fuzz_targets[0],
                                  fuzz_probe, NULL, fuzz_replay_answer};

/* the catalogue, in its order: each case is defined below its run function */
static const gw_conform_case *const cases[] = {
    &case_join_welcome, &case_join_wrong_revision, &case_join_wrong_newgrf_version, &case_join_empty_name,
    &case_join_wrong_password, &case_info_without_authorization, &case_join_getmap_unauthorized,
    &case_join_command_before_map, &case_map_sizes_add_up, &case_join_announced, &case_packets_unknown_type,
    &case_packets_oversized, &case_packets_undersized, &case_packets_truncated, &case_client_join,
    &case_client_error_ends, &case_client_full_ends, &case_client_banned_ends, &case_client_newgrfs_checked,
    &case_client_welcome_getmap, &case_client_game_password, &case_client_unknown_type, &case_client_undersized,
};

const gw_conform gw_openttd_conform = {.transport = GW_TRANSPORT_TCP, .cases = cases,
                                       .n_cases = sizeof cases / sizeof cases[0], .finish = ottd_finish,
                                       .settings = settings, .unusable = ottd_unusable, .fuzz = &ottd_fuzz};
