/* gne_conform.c - pcaptool conform's cases for GNE (gw_conform.h), both
 * roles: the GNE text's handshake, packets and ping, and
 * HawkNL's framing (wire-facts 3.1; gnelib's Connection.cpp, PacketParser).
 * As client, pcaptool accepts whatever the implementation claims. A
 * server is only welcoming to the game name and versions it was built
 * with: given with --set, or learnt once per run from its refusal of a
 * request with GNE version 0, which the text says it must refuse and
 * whose refusal carries its version information (GNE text: "The information
 * in the refusal packet gives some more information to the client to know
 * what the version mismatch was"), with its data byte order, on a
 * connection of its own. When they cannot be learnt, the cases that need
 * them are skipped, saying why: no case fails for another's question. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "active/gw_conform.h"
#include "active/gw_fuzz.h"
#include "gne/gne.h"

#define P (&gw_gne_protocol)
#define SERVER GW_ROLE_SERVER
#define CLIENT GW_ROLE_CLIENT
#define BOTH (GW_ROLE_SERVER | GW_ROLE_CLIENT)
#define HANDSHAKE "GNE text, Starting a New Connection"

/* the server's identity: given (--set game=... version=... user_version=...)
   or learnt once per run */
typedef struct {
    bool known;
    uint64_t version, sub, build, user;
    char game[33];
    bool big_endian;
    bool open; /* (in the run's state) this case's connection got past its handshake */
    char unknown[200]; /* why it could not be learnt (the cases that need it are skipped) */
    bool took_version0; /* it accepted a request with GNE version 0 */
} gne_identity;

static const char probe_game[] = "pcaptool-conform-probe";

static const char *who(const gw_conform_io *io)
{
    return io->role == GW_ROLE_SERVER ? "server" : "client";
}

static int64_t message(const gw_replay_pdu *p)
{
    uint64_t v;
    return gw_replay_u(p, GNE_F_MESSAGE, &v) ? (int64_t)v : -1;
}

static bool handshake_answer(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return message(p) == MSG_REFUSAL || message(p) == MSG_ACCEPT;
}

/* build a message in the byte order of id (little-endian while it is not
   known: learn() sets both) and send it */
/* PDU `type` built from vals in the peer's byte order, at d (at most cap
   bytes): its length, 0 when it cannot be built */
static size_t build_in_order(const gw_conform_io *io, const gne_identity *id, int64_t type, const gw_wval *vals,
                             uint8_t *d, size_t cap)
{
    int opts[GW_MAX_OPTIONS];
    memcpy(opts, io->opts, sizeof opts);
    opts[GNE_OPT_BYTE_ORDER] = id->big_endian ? GNE_ORDER_BIG : GNE_ORDER_LITTLE;
    return P->build(opts, type, vals, d, cap);
}

static bool send_in_order(gw_conform_io *io, const gne_identity *id, int64_t type, const gw_wval *vals)
{
    uint8_t d[600]; /* gnelib's messages are at most 512 bytes */
    size_t n = build_in_order(io, id, type, vals, d, sizeof d);
    return n && io->send(io, d, n);
}

/* a connection request in the server's byte order */
static bool send_request(gw_conform_io *io, const gne_identity *id, uint64_t version, const char *game,
                         uint64_t user, bool unreliable)
{
    bool sent = send_in_order(io, id, MSG_REQUEST,
                              GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_VERSION, version),
                                       GW_WU(GNE_F_SUB_VERSION, id->known ? id->sub : 0),
                                       GW_WU(GNE_F_BUILD, id->known ? id->build : 7),
                                       GW_WB(GNE_F_GAME_NAME, game, strlen(game)), GW_WU(GNE_F_USER_VERSION, user),
                                       GW_WU(GNE_F_RATE, 0), GW_WU(GNE_F_UNRELIABLE, unreliable)));
    if (!sent)
        gw_conform_say(io, GW_FAIL, "could not send the connection request");
    return sent;
}

/* the server's identity from its refusal a; false when the refusal lacks it */
static bool learn(gne_identity *id, const gw_replay_pdu *a)
{
    const gw_item *name = gw_replay_item(a, GNE_F_GAME_NAME, 0);
    uint64_t order = GNE_ORDER_LITTLE;
    gw_replay_u(a, GNE_F_BYTE_ORDER, &order);
    if (!name || !gw_replay_u(a, GNE_F_VERSION, &id->version) || !gw_replay_u(a, GNE_F_SUB_VERSION, &id->sub) ||
        !gw_replay_u(a, GNE_F_BUILD, &id->build) || !gw_replay_u(a, GNE_F_USER_VERSION, &id->user))
        return false;
    snprintf(id->game, sizeof id->game, "%.*s", (int)name->v.b.n, (const char *)name->v.b.p);
    id->big_endian = order == GNE_ORDER_BIG;
    id->known = true;
    return true;
}

/* the identity the user gave (--set game=NAME [version=A.B.C]
   [user_version=N]): false when no game was given; the byte order is
   learnt from the first answer */
static bool given(gw_conform_io *io, gne_identity *id)
{
    const char *game = io->setting(io, "game"), *v = io->setting(io, "version"), *u = io->setting(io, "user_version");
    if (!game)
        return false;
    unsigned a = 1, b = 0, c = 0;
    if (v)
        sscanf(v, "%u.%u.%u", &a, &b, &c);
    snprintf(id->game, sizeof id->game, "%s", game);
    id->version = a, id->sub = b, id->build = c;
    id->user = u ? strtoull(u, NULL, 0) : 0;
    id->known = true;
    return true;
}

/* The server's game name and versions: given, or from its refusal of a
   request with GNE version 0, which the text says it must refuse ("It must
   refuse the connection if any of the versions do not match"), and whose
   refusal carries "the server's version information"; then a fresh
   connection. When they cannot be learnt, the cases that need them are
   skipped with the reason (the case that asks about that refusal judges
   it): GW_PASS, else GW_SKIPPED with the outcome said. */
static gw_verdict identity(gw_conform_io *io, gne_identity **out)
{
    gne_identity *id = io->state;
    *out = id;
    if (id->known || given(io, id))
        return GW_PASS;
    if (!id->unknown[0]) {
        gw_replay_pdu a;
        gw_wait w = GW_CLOSED;
        if (send_request(io, id, 0, probe_game, 0, false))
            w = gw_conform_await(io, io->wait_ms, handshake_answer, NULL, &a);
        if (w != GW_GOT)
            snprintf(id->unknown, sizeof id->unknown, "%s", w == GW_CLOSED ? "the connection ended" : "no answer");
        else if ((id->took_version0 = message(&a) == MSG_ACCEPT))
            snprintf(id->unknown, sizeof id->unknown, "it accepted GNE version 0");
        else if (!learn(id, &a))
            snprintf(id->unknown, sizeof id->unknown, "its refusal lacks them");
        else if (!io->reconnect(io))
            snprintf(id->unknown, sizeof id->unknown, "no second connection");
        if (id->known)
            return GW_PASS;
    }
    return gw_conform_say(io, GW_SKIPPED, "the server's game name and versions could not be learnt from a "
                          "request with GNE version 0 (%s); give them with --set game=NAME version=A.B.C "
                          "user_version=N", id->unknown);
}

#define IDENTITY_OR(io, id) \
    gne_identity *id; \
    gw_verdict id##_v = identity(io, &id); \
    if (id##_v != GW_PASS) \
        return id##_v

static gw_verdict accepted(gw_conform_io *io, const gne_identity *id, bool unreliable, gw_replay_pdu *a);
static gw_verdict connected(gw_conform_io *io, gne_identity *local, gne_identity **id, gw_replay_pdu *a);

/* a connection accepted, by the implementation (as server) or by pcaptool
   (the implementation as client), with no UDP link; the identity in id
   (the server's, or the one the client claims); else the case ends with
   the verdict connected() gave (skipped where the server had the right) */
#define CONNECTED_OR(io, id) \
    gne_identity id##_claimed = {0}, *id; \
    gw_replay_pdu accept_; \
    gw_verdict id##_v = connected(io, &id##_claimed, &id, &accept_); \
    if (id##_v != GW_PASS) \
        return id##_v

/* Request a connection (its fields given), and return the answer's kind:
   MSG_ACCEPT, MSG_REFUSAL, or -1 (the outcome said) */
static int64_t answered(gw_conform_io *io, const gne_identity *id, uint64_t version, const char *game,
                        uint64_t user, bool unreliable, gw_replay_pdu *a)
{
    if (!send_request(io, id, version, game, user, unreliable))
        return -1;
    gw_wait w = gw_conform_await(io, io->wait_ms, handshake_answer, NULL, a);
    if (w == GW_GOT)
        return message(a);
    gw_conform_say(io, GW_FAIL, w == GW_CLOSED ? "the server closed the connection without an answer"
                                               : "no answer within %.1f s", io->wait_ms / 1000.0);
    return -1;
}

/* a connection, accepted: GW_PASS, else the verdict with the outcome
   said (a refusal of the server's own identity is its right: "it can also
   refuse the connection for any other reason it wishes": skipped) */
static gw_verdict accepted(gw_conform_io *io, const gne_identity *id, bool unreliable, gw_replay_pdu *a)
{
    int64_t k = answered(io, id, id->version, id->game, id->user, unreliable, a);
    if (k == MSG_REFUSAL)
        return gw_conform_say(io, GW_SKIPPED, "a request with the server's own game name and versions was refused "
                              "(its right: \"for any other reason it wishes\"); nothing to judge");
    return k == MSG_ACCEPT ? GW_PASS : GW_FAIL;
}

/* ---- the implementation as client: pcaptool serves ---------------------------- */

static bool is_request(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return message(p) == MSG_REQUEST;
}

/* the client's connection request, and the identity it claims */
static bool client_request(gw_conform_io *io, gne_identity *id, gw_replay_pdu *req)
{
    if (gw_conform_await(io, io->wait_ms, is_request, NULL, req) != GW_GOT) {
        gw_conform_say(io, GW_FAIL, "the client sent no connection request within %.1f s", io->wait_ms / 1000.0);
        return false;
    }
    if (!learn(id, req)) {
        gw_conform_say(io, GW_FAIL, "the connection request lacks its versions or game name");
        return false;
    }
    return true;
}

static bool accept_client(gw_conform_io *io, const gne_identity *id, int64_t udp_port)
{
    return send_in_order(io, id, MSG_ACCEPT,
                       GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_RESPONSE, 1), GW_WU(GNE_F_RATE, 0),
                                GW_WU(GNE_F_UDP_PORT, (uint64_t)udp_port)));
}

static gw_verdict connected(gw_conform_io *io, gne_identity *local, gne_identity **id, gw_replay_pdu *a)
{
    gw_verdict v = GW_FAIL;
    if (io->role == GW_ROLE_SERVER) {
        v = identity(io, id);
        if (v == GW_PASS)
            v = accepted(io, *id, false, a);
    } else {
        *id = local;
        if (client_request(io, local, a) && accept_client(io, local, -1))
            v = GW_PASS;
    }
    ((gne_identity *)io->state)->open = v == GW_PASS;
    return v;
}

static gw_verdict refused(gw_conform_io *io, int64_t k, const gw_replay_pdu *a, const char *what)
{
    if (k < 0)
        return GW_FAIL;
    if (k == MSG_ACCEPT)
        return gw_conform_say(io, GW_FAIL, "%s, yet the connection was accepted", what);
    if (a->len != 4 + 44)
        return gw_conform_say(io, GW_FAIL, "%s: refused, but with %zu %s (exactly 44 required)", what, a->len - 4, gw_bytes(a->len - 4));
    return gw_conform_say(io, GW_PASS, "%s: refused with the 44-byte refusal", what);
}

/* Does the server end the connection within ms: close it, or send an
   ExitPacket (GNE's way to end one in band)? A text for the outcome in
   *how. */
/* a message holding an ExitPacket */
static bool has_exit(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    for (unsigned k = 0; gw_replay_item(p, GNE_F_PACKET_ID, k); k++)
        if (gw_replay_item(p, GNE_F_PACKET_ID, k)->v.u == ID_EXIT)
            return true;
    return false;
}

/* Watch the peer for ms: GW_CLOSED when it ends the connection (a close
   or an ExitPacket, *how saying which), GW_GOT when `want` (unless NULL)
   accepts a PDU of its, else GW_SILENT */
static gw_wait watch(gw_conform_io *io, int ms, gw_conform_want want, const void *arg, const char **how)
{
    gw_replay_pdu a;
    int64_t until = gw_conform_clock_ms() + ms;
    for (;;) {
        gw_wait w = gw_conform_await_until(io, until, NULL, NULL, &a);
        if (w == GW_CLOSED) {
            *how = "closed the connection";
            return GW_CLOSED;
        }
        if (w == GW_SILENT)
            return GW_SILENT;
        if (has_exit(&a, NULL)) {
            *how = "sent an ExitPacket";
            return GW_CLOSED;
        }
        if (want && want(&a, arg))
            return GW_GOT;
    }
}

static bool ends(gw_conform_io *io, int ms, const char **how)
{
    return watch(io, ms, NULL, NULL, how) == GW_CLOSED;
}

/* ---- the handshake ------------------------------------------------------------ */

/* "it can choose to accept or refuse the connection": which it chose is
   recorded (info); an answer it owes, the CAP's size, is judged */
static gw_verdict handshake_accepted(gw_conform_io *io)
{
    IDENTITY_OR(io, id);
    gw_replay_pdu a;
    int64_t k = answered(io, id, id->version, id->game, id->user, false, &a);
    ((gne_identity *)io->state)->open = k == MSG_ACCEPT;
    if (k < 0)
        return GW_FAIL;
    if (k == MSG_REFUSAL)
        return gw_conform_say(io, GW_INFO, "game \"%s\", GNE %llu.%llu.%llu, user %llu: refused (its right: \"for any "
                              "other reason it wishes\")", id->game, (unsigned long long)id->version,
                              (unsigned long long)id->sub, (unsigned long long)id->build, (unsigned long long)id->user);
    if (a.len != 4 + 12)
        return gw_conform_say(io, GW_FAIL, "accepted, but the accept has %zu %s (12 over IP)", a.len - 4, gw_bytes(a.len - 4));
    return gw_conform_say(io, GW_INFO, "game \"%s\", GNE %llu.%llu.%llu, user %llu: accepted", id->game,
                          (unsigned long long)id->version, (unsigned long long)id->sub,
                          (unsigned long long)id->build, (unsigned long long)id->user);
}

static const gw_conform_case case_handshake_accepted = {
    "gne/handshake/accepted", SERVER, "The server's own game name and versions are accepted", HANDSHAKE,
    "Once the server receives the CRP, it can choose to accept or refuse the connection.",
    "a connection request with the game name, versions and byte order the server's refusal gave",
    "Info: the 12-byte accept, or a refusal (the server's choice); Fail when no answer comes or the accept is not "
    "12 bytes (a MUST: a CRP is answered by a refusal or by a CAP of \"exactly 12 when using the TCP/UDP\")",
    handshake_accepted, GW_OPEN};

/* The server's own versions with another game's name. The text's MUST is
   about versions ("It must refuse the connection if any of the versions
   do not match"); the game name is how games tell each other apart, and
   the reference refuses another's: accepting it is left open (info). */
static gw_verdict handshake_wrong_game(gw_conform_io *io)
{
    IDENTITY_OR(io, id);
    gw_replay_pdu a;
    int64_t k = answered(io, id, id->version, probe_game, id->user, false, &a);
    if (k == MSG_ACCEPT)
        return gw_conform_say(io, GW_INFO, "a request for game \"%s\" with the server's versions was accepted (the "
                              "text requires refusing other versions, not other names; the reference refuses it)",
                              probe_game);
    return refused(io, k, &a, "another game's name");
}

static const gw_conform_case case_handshake_wrong_game = {
    "gne/handshake/wrong-game", SERVER, "Another game's name is refused with the 44-byte refusal", HANDSHAKE,
    "It must refuse the connection if any of the versions do not match. [...] it sends a refusal packet with "
    "the server's version information with a size of exactly 44 bytes",
    "a connection request with the server's versions (given with --set, or learnt from its refusal of GNE "
    "version 0) and game \"pcaptool-conform-probe\"",
    "a 44-byte refusal; Info when accepted (the MUST is about versions; the reference refuses another name); "
    "Fail for another size; Skipped when the server's versions cannot be learnt",
    handshake_wrong_game, GW_MUST};

static gw_verdict handshake_wrong_version(gw_conform_io *io)
{
    gne_identity *id;
    gw_verdict v = identity(io, &id);
    if (v != GW_PASS && id->took_version0) /* the text's protocol is version 1 */
        return gw_conform_say(io, GW_FAIL, "the server accepted a request with GNE version 0 (this protocol is "
                              "version 1.0.0), where it must refuse any version that does not match");
    if (v != GW_PASS)
        return v;
    gw_replay_pdu a;
    return refused(io, answered(io, id, id->version + 9, id->game, id->user, false, &a), &a,
                   "another GNE version");
}

static const gw_conform_case case_handshake_wrong_version = {
    "gne/handshake/wrong-version", SERVER, "Another GNE version is refused", HANDSHAKE,
    "It must refuse the connection if any of the versions do not match.",
    "a connection request with the server's identity but GNE version + 9",
    "a 44-byte refusal; Fail otherwise",
    handshake_wrong_version, GW_MUST};

static gw_verdict handshake_wrong_user(gw_conform_io *io)
{
    IDENTITY_OR(io, id);
    gw_replay_pdu a;
    return refused(io, answered(io, id, id->version, id->game, id->user ^ 0x5a5a5a5au, false, &a), &a,
                   "another user version");
}

static const gw_conform_case case_handshake_wrong_user_version = {
    "gne/handshake/wrong-user-version", SERVER, "Another user version is refused", HANDSHAKE,
    "The user version [...] should match exactly between both ends of the connection. [...] It must refuse the "
    "connection if any of the versions do not match.",
    "a connection request with the server's identity but another user version",
    "a 44-byte refusal; Fail otherwise",
    handshake_wrong_user, GW_MUST};

/* The server's identity with its sub-version or its build changed: "The
   protocol version number is read as version.sub.build", and "It must
   refuse the connection if any of the versions do not match" (0.0.1 and
   0.0.2 are the text's own example of two versions). The new build stays
   in 1..255, as gnelib keeps builds (one of its two bytes zero). */
static gw_verdict wrong_part(gw_conform_io *io, bool build)
{
    IDENTITY_OR(io, id);
    gne_identity other = *id;
    if (build)
        do
            other.build = 1 + gw_conform_random() % 255;
        while (other.build == id->build);
    else
        other.sub = (id->sub + 1 + gw_conform_random() % 255) % 256;
    gw_replay_pdu a;
    char what[120];
    snprintf(what, sizeof what, "GNE %llu.%llu.%llu where the server is %llu.%llu.%llu",
             (unsigned long long)other.version, (unsigned long long)other.sub, (unsigned long long)other.build,
             (unsigned long long)id->version, (unsigned long long)id->sub, (unsigned long long)id->build);
    return refused(io, answered(io, &other, other.version, other.game, other.user, false, &a), &a, what);
}

static gw_verdict handshake_wrong_sub(gw_conform_io *io)
{
    return wrong_part(io, false);
}

static const gw_conform_case case_handshake_wrong_sub_version = {
    "gne/handshake/wrong-sub-version", SERVER, "Another GNE sub-version is refused", HANDSHAKE,
    "The protocol version number is read as version.sub.build. [...] It must refuse the connection if any of the "
    "versions do not match.",
    "a connection request with the server's identity but another sub-version (random)",
    "a 44-byte refusal; Fail otherwise; Skipped when the server's versions cannot be learnt",
    handshake_wrong_sub, GW_MUST};

static gw_verdict handshake_wrong_build(gw_conform_io *io)
{
    return wrong_part(io, true);
}

static const gw_conform_case case_handshake_wrong_build = {
    "gne/handshake/wrong-build", SERVER, "Another GNE build is refused", HANDSHAKE,
    "The protocol version number is read as version.sub.build. [...] the first attempt at implementing 1.0.0 will "
    "be versioned 0.0.1, 0.0.2, ... [...] It must refuse the connection if any of the versions do not match.",
    "a connection request with the server's identity but another build (random, 1..255)",
    "a 44-byte refusal; Fail otherwise; Skipped when the server's versions cannot be learnt",
    handshake_wrong_build, GW_MUST};

/* the 32-byte game field at off in a's bytes: "Any unused space in the
   buffer shall consist of bytes with the value of 0". GW_PASS, or the
   verdict with the outcome said (whose: "refusal", "request") */
static gw_verdict zero_padded(gw_conform_io *io, const gw_replay_pdu *a, size_t off, const char *whose)
{
    if (a->len < off + 32)
        return gw_conform_say(io, GW_SKIPPED, "the %s (%zu %s) has no 32-byte game field to read", whose,
                              a->len - 4, gw_bytes(a->len - 4));
    const uint8_t *g = a->data + off, *nul = memchr(g, 0, 32);
    if (!nul)
        return gw_conform_say(io, GW_INFO, "the %s's game name fills all 32 bytes: no unused space to judge (a name "
                              "has at most 31 characters: the decoder's warning)", whose);
    for (const uint8_t *q = nul; q < g + 32; q++)
        if (*q)
            return gw_conform_say(io, GW_FAIL, "the %s's game field holds byte 0x%02x at %d, after the name's NUL at %d "
                                  "(unused space \"shall consist of bytes with the value of 0\")", whose, *q,
                                  (int)(q - g), (int)(nul - g));
    return gw_conform_say(io, GW_PASS, "the %s's game name \"%.*s\" is NUL-terminated and the %d %s after it are 0",
                          whose, (int)(nul - g), (const char *)g, (int)(g + 32 - nul), gw_bytes((uint64_t)(g + 32 - nul)));
}

static gw_verdict game_padded(gw_conform_io *io)
{
    gw_replay_pdu a;
    if (io->role == GW_ROLE_CLIENT) {
        gne_identity id = {0};
        if (!client_request(io, &id, &a))
            return GW_FAIL;
        ((gne_identity *)io->state)->open = accept_client(io, &id, -1);
        return zero_padded(io, &a, 4 + 7, "request"); /* NL header, 'GNE', version, sub-version, build */
    }
    IDENTITY_OR(io, id);
    /* another GNE version (random): a request it must refuse */
    int64_t k = answered(io, id, (id->version + 1 + gw_conform_random() % 255) % 256, id->game, id->user, false, &a);
    if (k == MSG_ACCEPT) /* wrong-version judges that */
        return gw_conform_say(io, GW_SKIPPED, "another GNE version was accepted: no refusal to read");
    if (k != MSG_REFUSAL)
        return GW_FAIL;
    return zero_padded(io, &a, 4 + 8, "refusal"); /* NL header, 'GNE', 0, version, sub-version, build */
}

static const gw_conform_case case_handshake_game_zero_padded = {
    "gne/handshake/game-zero-padded", BOTH, "The game name's unused bytes are 0", "GNE text, The First Packet",
    "Format: of this string is a NULL-terminated ASCII string of length no greater 31 characters. Any unused space "
    "in the buffer shall consist of bytes with the value of 0.",
    "to a server a connection request with another GNE version (random; its refusal carries its game name); from a "
    "client nothing: its request is read",
    "the 32-byte game field NUL-terminated and 0 after the name; Fail when a byte after the NUL is not 0; Info when "
    "the name fills all 32 bytes (no unused space); Skipped when a server accepts (wrong-version judges that)",
    game_padded, GW_MUST};

static gw_verdict handshake_closes_after_refusal(gw_conform_io *io)
{
    IDENTITY_OR(io, id);
    gw_replay_pdu a;
    int64_t k = answered(io, id, id->version, id->game, id->user ^ 1u, false, &a);
    if (k == MSG_ACCEPT) /* wrong-user-version judges that */
        return gw_conform_say(io, GW_SKIPPED, "another user version was accepted: no refusal to close after");
    if (k != MSG_REFUSAL)
        return refused(io, k, &a, "another user version");
    const char *how;
    if (ends(io, io->wait_ms, &how))
        return gw_conform_say(io, GW_PASS, "refused, then the server %s", how);
    return gw_conform_say(io, GW_NON_STRICT, "refused, but the connection stayed open %.1f s later", io->wait_ms / 1000.0);
}

static const gw_conform_case case_handshake_closes_after_refusal = {
    "gne/handshake/closes-after-refusal", SERVER, "After a refusal the server closes", "wire-facts 3.6",
    "Sent when versions, game name or user version differ; then the server closes.",
    "a connection request with another user version",
    "the refusal, then the connection closed or an ExitPacket; Non-strict when it stays open",
    handshake_closes_after_refusal, GW_REFERENCE};

static int64_t udp_port(const gw_replay_pdu *a)
{
    const gw_item *it = gw_replay_item(a, GNE_F_UDP_PORT, 0);
    return it ? (int64_t)(int32_t)it->v.u : -1;
}

static gw_verdict udp_unasked(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    int64_t port = udp_port(&accept_);
    /* the text says how a client asks for the link, not what a server
       offers unasked (a client that did not ask considers the connection
       complete on the CAP): recorded */
    if (port > 0)
        return gw_conform_say(io, GW_INFO, "no UDP link was asked for, yet the accept offers port %lld",
                              (long long)port);
    return gw_conform_say(io, GW_INFO, "no UDP link asked for, none offered (port %lld)", (long long)port);
}

static const gw_conform_case case_handshake_udp_unasked = {
    "gne/handshake/udp-unasked", SERVER, "No UDP link is offered unless asked for", HANDSHAKE,
    "The client requests an unreliable port by sending a value of true in appropriate field of the CRP.",
    "a connection request without the unreliable link",
    "Info: an accept with UDP port -1 (or 0), or one offering a port (the text says how a client asks for the "
    "link, not what a server offers unasked)",
    udp_unasked, GW_OPEN};

static gw_verdict udp_asked(gw_conform_io *io)
{
    IDENTITY_OR(io, id);
    gw_replay_pdu a;
    gw_verdict v = accepted(io, id, true, &a);
    if (v != GW_PASS)
        return v;
    int64_t port = udp_port(&a);
    /* the server may refuse the link ("or the server refused it"): either
       is recorded; a port out of range is judged ("this shall be a gint32
       from 0 to 65535") */
    if (port > 0 && port <= 65535)
        return gw_conform_say(io, GW_INFO, "a UDP link was asked for: the accept offers port %lld", (long long)port);
    if (port > 65535)
        return gw_conform_say(io, GW_FAIL, "the accept offers UDP port %lld, out of range", (long long)port);
    return gw_conform_say(io, GW_INFO, "a UDP link was asked for; the server declined it (port %lld)", (long long)port);
}

static const gw_conform_case case_handshake_udp_asked = {
    "gne/handshake/udp-asked", SERVER, "A UDP link asked for is offered, or declined", HANDSHAKE,
    "If the client did not request an unreliable connection, or the server refused it, then the client "
    "considers the connection complete as soon as it receives the CAP.",
    "a connection request asking for the unreliable link",
    "Info: an accept with a UDP port in 1..65535, or one that declines (port -1: the server may refuse the link); "
    "Fail for a port out of range (a MUST: \"this shall be a gint32 from 0 to 65535\")",
    udp_asked, GW_OPEN};

/* ---- packets -------------------------------------------------------------------- */

static bool send_packets(gw_conform_io *io, const gne_identity *id, const gw_wval *vals)
{
    return send_in_order(io, id, MSG_PACKETS, vals);
}

#define PING(id) GW_WU(GNE_F_PACKET_ID, ID_PING), GW_WU(GNE_F_PING_REQ_ID, id)

static bool ping_reply(const gw_replay_pdu *p, const void *arg)
{
    for (unsigned k = 0;; k++) {
        const gw_item *it = gw_replay_item(p, GNE_F_PING_REQ_ID, k);
        uint64_t reply = 0;
        if (!it)
            return false;
        /* the k-th ping of the message: its reply flag is the k-th too */
        const gw_item *r = gw_replay_item(p, GNE_F_PING_REPLY, k);
        reply = r ? r->v.u : 0;
        if (it->v.u == *(const uint32_t *)arg && reply)
            return true;
    }
}

/* Before what a case judges by the connection's end, or by a ping after
   it: a ping alone, and its reply awaited (or io->wait_ms of silence:
   replying is only encouraged). A peer may end a connection whenever it
   likes (an ExitPacket "signif[ies] a graceful disconnect"): an end that
   comes now is its own, not an answer to what the case sends next. True
   while the connection is open (*answered, unless NULL: the ping was);
   false when it ended, *how saying how. */
static bool still_open(gw_conform_io *io, const gne_identity *id, bool *answered, const char **how)
{
    uint32_t want = gw_conform_random();
    *how = "closed the connection"; /* (a send fails where it has ended) */
    gw_wait w = GW_CLOSED;
    int64_t sent = gw_conform_clock_ms();
    if (send_packets(io, id, GW_WVALS(PING(want), GW_WU(GNE_F_END, 255))))
        w = watch(io, io->wait_ms, ping_reply, &want, how);
    if (w == GW_GOT) {
        /* an end right behind the reply (a peer that leaves after its first
           message) is its own too: watched for gw_conform_probe's grace */
        if (ends(io, (int)gw_conform_grace_ms(io, sent), how))
            w = GW_CLOSED;
    }
    if (answered)
        *answered = w == GW_GOT;
    return w != GW_CLOSED;
}

/* still_open, or the case skipped: the peer ended the connection itself
   before `what` was sent */
#define STILL_OPEN_OR(io, id, answered, what) \
    do { \
        const char *how_; \
        if (!still_open(io, id, answered, &how_)) \
            return gw_conform_say(io, GW_SKIPPED, "the %s %s before %s was sent (given only a ping): an end " \
                                  "of its own, its right; nothing to judge", who(io), how_, what); \
    } while (0)

/* A connection, then a ping request: GW_PASS when answered properly. A
   peer may end a connection whenever it likes (an ExitPacket "signif[ies]
   a graceful disconnect"): when this one ends, a fresh connection sent
   nothing tells an end of its own (Skipped) from one the ping met
   (Non-strict: replying is only encouraged). */
static gw_verdict ping(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    uint32_t want = gw_conform_random();
    gw_replay_pdu a;
    gw_wait w = GW_CLOSED; /* a send fails where the connection has ended */
    if (send_packets(io, id, GW_WVALS(PING(want), GW_WU(GNE_F_END, 255))))
        w = gw_conform_await(io, io->wait_ms, ping_reply, &want, &a);
    if (w == GW_CLOSED) {
        const char *how;
        if (io->role == GW_ROLE_SERVER && io->reconnect(io) && connected(io, &id_claimed, &id, &accept_) == GW_PASS &&
            ends(io, io->wait_ms, &how))
            return gw_conform_say(io, GW_SKIPPED, "the connection ended before a ping reply, and a fresh one, sent "
                                  "nothing, ended too (the %s %s): an end of its own, its right; nothing to judge",
                                  who(io), how);
        return gw_conform_say(io, GW_NON_STRICT, "the connection was closed before a ping reply (replying is "
                              "encouraged)");
    }
    if (w == GW_SILENT)
        return gw_conform_say(io, GW_NON_STRICT, "no reply to ping request %u within %.1f s (replying is encouraged)",
                              want, io->wait_ms / 1000.0);
    /* T2 and T3: the reply's two gtimes, after the request id */
    const gw_item *s2 = gw_replay_item(&a, GNE_F_TIME_SEC, 0), *u2 = gw_replay_item(&a, GNE_F_TIME_USEC, 0);
    const gw_item *s3 = gw_replay_item(&a, GNE_F_TIME_SEC, 1), *u3 = gw_replay_item(&a, GNE_F_TIME_USEC, 1);
    if (!s2 || !u2 || !s3 || !u3)
        return gw_conform_say(io, GW_FAIL, "the reply's times are missing");
    int32_t us2 = (int32_t)u2->v.u, us3 = (int32_t)u3->v.u;
    if (us2 < 0 || us2 > 999999 || us3 < 0 || us3 > 999999)
        return gw_conform_say(io, GW_FAIL, "the reply's microseconds are %d and %d (gtime: \"This value must be in "
                              "the range [0, 999,999]\")", us2, us3);
    int64_t t2 = (int64_t)(int32_t)s2->v.u * 1000000 + us2;
    int64_t t3 = (int64_t)(int32_t)s3->v.u * 1000000 + us3;
    if (t2 > t3)
        return gw_conform_say(io, GW_FAIL, "the reply's T2 is %lld us after its T3 (T2 <= T3 required)",
                              (long long)(t2 - t3));
    return gw_conform_say(io, GW_PASS, "ping %u answered with the same id, T2 <= T3 (%lld us apart)", want,
                          (long long)(t3 - t2));
}

static const gw_conform_case case_ping_reply = {
    "gne/ping/reply", BOTH, "A ping request is answered with the same id and T2 <= T3", "GNE text, PingPacket",
    "A GNE implementation is encouraged to reply to the ping. [...] In the reply packet, T2 and T3 should be "
    "set to the time the remote end received and sent the packet. T2 must be <= T3.",
    "a connection, then a message with a PingPacket request of an id random per run (T2 = T3 = 0)",
    "a PingPacket reply with that id and T2 <= T3; Non-strict when no reply comes or the connection is closed "
    "(replying is encouraged), Skipped when a fresh connection, sent nothing, is ended too (an end of the peer's "
    "own); Fail for a reply whose T2 and T3 are missing, T2 > T3 or microseconds outside "
    "0-999999 (MUSTs: \"T2 must be <= T3\"; gtime's microseconds \"must be in the range [0, 999,999]\")",
    ping, GW_SHOULD};

static bool ping_reply_either(const gw_replay_pdu *p, const void *arg)
{
    const uint32_t *ids = arg;
    return ping_reply(p, &ids[0]) || ping_reply(p, &ids[1]);
}

/* A connection, then one message: the packets in before (n values), then a
   ping request (random id) and 255. "A GNE implementation is required to
   be able to understand and parse all of these packets": the ping
   answered shows what came before it was parsed, to its last byte (the
   first reply the peer owes, whatever rate it sends at). Replying to a
   ping is only encouraged: when none comes, a ping alone is asked;
   answered, the first one's silence shows the packets before it were not
   parsed (Fail); not answered either, nothing shows (Skipped). A peer may
   end a connection whenever it likes (an ExitPacket "signif[ies] a
   graceful disconnect"): when it ends this one, a fresh connection given
   only a ping (still_open) tells an end of its own (Skipped) from one the
   packets caused (Fail); where no fresh connection can be had (the
   implementation as client), the end fails the case. */
static gw_verdict parsed_before_ping(gw_conform_io *io, const gw_wval *before, unsigned n, const char *what)
{
    CONNECTED_OR(io, id);
    uint32_t ids[2] = {gw_conform_random(), 0};
    gw_wval v[12];
    unsigned k = 0;
    for (unsigned i = 0; i < n && k < 8; i++)
        v[k++] = before[i];
    v[k++] = (gw_wval)GW_WU(GNE_F_PACKET_ID, ID_PING);
    v[k++] = (gw_wval)GW_WU(GNE_F_PING_REQ_ID, ids[0]);
    v[k++] = (gw_wval)GW_WU(GNE_F_END, 255);
    v[k].field = GW_W_END;
    gw_replay_pdu a;
    gw_wait w = GW_CLOSED; /* a send fails where the connection has ended */
    if (send_packets(io, id, v))
        w = gw_conform_await(io, io->wait_ms, ping_reply, &ids[0], &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "%s, then ping %u in the same message: the ping was answered", what, ids[0]);
    if (w == GW_CLOSED) {
        const char *how;
        bool fresh = io->role == GW_ROLE_SERVER && io->reconnect(io);
        if (fresh && connected(io, &id_claimed, &id, &accept_) == GW_PASS && !still_open(io, id, NULL, &how))
            return gw_conform_say(io, GW_SKIPPED, "the connection ended after %s and a ping, but a fresh connection "
                                  "given only a ping ended too (the %s %s): an end of its own, its right; nothing "
                                  "to judge", what, who(io), how);
        return gw_conform_say(io, GW_FAIL, "after a message of %s and a ping the %s closed the connection%s (an "
                              "implementation \"is required to be able to understand and parse all of these "
                              "packets\")", what, who(io),
                              fresh ? ", while a fresh connection given only a ping stayed open" : "");
    }
    do
        ids[1] = gw_conform_random();
    while (ids[1] == ids[0]);
    if (!send_packets(io, id, GW_WVALS(PING(ids[1]), GW_WU(GNE_F_END, 255))))
        return gw_conform_say(io, GW_FAIL, "could not send the ping");
    w = gw_conform_await(io, io->wait_ms, ping_reply_either, ids, &a);
    if (w == GW_GOT && ping_reply(&a, &ids[0]))
        return gw_conform_say(io, GW_PASS, "%s, then ping %u in the same message: the ping was answered (late)", what,
                              ids[0]);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_FAIL, "ping %u after %s went unanswered, while ping %u alone was answered: what "
                              "came before it was not parsed (an implementation \"is required to be able to "
                              "understand and parse all of these packets\")", ids[0], what, ids[1]);
    return gw_conform_say(io, GW_SKIPPED, "no ping was answered, after %s or alone (%s; replying is only "
                          "encouraged): nothing shows whether it was parsed", what,
                          w == GW_CLOSED ? "then the connection ended" : "silence");
}

/* The text gives a CustomPacket's length a guint8, gnelib writes a u16
   (wire-facts 3.4) in the data's byte order: bytes that every one of these
   readings parses to the same end. 01 (the id), 01 01, then 257 zero
   bytes: a u16 length of 257 (0x0101 in either order) and 257 bytes of
   data; or a guint8 length of 1, one byte of data (01), and 257 base
   Packets (id 0, no body). The ping begins at the same byte either way. */
static gw_verdict custom_parsed(gw_conform_io *io)
{
    static const uint8_t zeros[257];
    const gw_wval before[] = {GW_WU(GNE_F_PACKET_ID, ID_CUSTOM), GW_WB(GNE_F_CUSTOM_DATA, zeros, sizeof zeros)};
    return parsed_before_ping(io, before, 2, "a CustomPacket (bytes 01 01 01 and 257 zeros: 257 bytes of data "
                              "under a 2-byte length, 1 byte and 257 base Packets under the text's 1-byte one)");
}

static const gw_conform_case case_packets_custom_parsed = {
    "gne/packets/custom-parsed", BOTH, "A CustomPacket is parsed", "GNE text, Packet Listings",
    "A GNE implementation is required to be able to understand and parse all of these packets so that "
    "end-programmers can derive their own packet types from them. Packet, CustomPacket, RateAdjustPacket, and "
    "ExitPacket provide the base functionality",
    "a connection, then one message: a CustomPacket whose bytes (01 01 01 and 257 zeros) read to the same end "
    "under the text's 1-byte length and gnelib's 2-byte one, a ping request (random id) and 255; a ping alone when "
    "that is not answered; a fresh connection given only a ping when the connection ends",
    "the ping after the CustomPacket answered; Fail when the connection is closed after it (and a fresh one given "
    "only a ping is not), or when only the ping alone is answered (the MUST: required to parse it); Skipped when no "
    "ping is answered (replying is encouraged) or the peer ends a fresh connection too (an end of its own)",
    custom_parsed, GW_MUST};

static gw_verdict rate_parsed(gw_conform_io *io)
{
    /* random, and high enough never to hold back a ping reply */
    uint32_t rate = (1u << 20) + gw_conform_random() % (1u << 29);
    const gw_wval before[] = {GW_WU(GNE_F_PACKET_ID, ID_RATE), GW_WU(GNE_F_RATE, rate)};
    char what[80];
    snprintf(what, sizeof what, "a RateAdjustPacket (%u %s/s)", rate, gw_bytes(rate));
    return parsed_before_ping(io, before, 2, what);
}

static const gw_conform_case case_packets_rate_adjust_parsed = {
    "gne/packets/rate-adjust-parsed", BOTH, "A RateAdjustPacket is parsed", "GNE text, Packet Listings",
    "A GNE implementation is required to be able to understand and parse all of these packets so that "
    "end-programmers can derive their own packet types from them. Packet, CustomPacket, RateAdjustPacket, and "
    "ExitPacket provide the base functionality",
    "a connection, then one message: a RateAdjustPacket (a random rate of at least 1 MiB/s), a ping request "
    "(random id) and 255; a ping alone when that is not answered; a fresh connection given only a ping when the "
    "connection ends",
    "the ping after the RateAdjustPacket answered; Fail when the connection is closed after it (and a fresh one "
    "given only a ping is not), or when only the ping alone is answered (the MUST: required to parse it); Skipped "
    "when no ping is answered (replying is encouraged) or the peer ends a fresh connection too (an end of its own)",
    rate_parsed, GW_MUST};

/* a message holding a PingPacket */
static bool has_ping(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return gw_replay_item(p, GNE_F_PING_REQ_ID, 0) != NULL;
}

/* "In the request packet, T2 and T3 are to have time values of 0s, 0ms":
   an obligation ("are to"), set apart from the reply's "should" in the
   next sentence. pcaptool sends no ping in this case: the peer's first
   PingPacket is its own request, whatever its times say. */
static gw_verdict ping_request_zero(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, has_ping, NULL, &a) != GW_GOT)
        return gw_conform_say(io, GW_SKIPPED, "the %s sent no ping request of its own within %.1f s: nothing to judge",
                              who(io), io->wait_ms / 1000.0);
    const gw_item *rid = gw_replay_item(&a, GNE_F_PING_REQ_ID, 0);
    const gw_item *s2 = gw_replay_item(&a, GNE_F_TIME_SEC, 0), *u2 = gw_replay_item(&a, GNE_F_TIME_USEC, 0);
    const gw_item *s3 = gw_replay_item(&a, GNE_F_TIME_SEC, 1), *u3 = gw_replay_item(&a, GNE_F_TIME_USEC, 1);
    if (!s2 || !u2 || !s3 || !u3)
        return gw_conform_say(io, GW_FAIL, "the %s's ping request %u is cut short: its T2 and T3 are missing", who(io),
                              (unsigned)rid->v.u);
    if (s2->v.u || u2->v.u || s3->v.u || u3->v.u)
        return gw_conform_say(io, GW_FAIL, "the %s's ping request %u (pcaptool had sent no ping) carries T2 = %d s %d "
                              "us, T3 = %d s %d us (\"In the request packet, T2 and T3 are to have time values of 0s, "
                              "0ms\")", who(io), (unsigned)rid->v.u, (int32_t)s2->v.u, (int32_t)u2->v.u,
                              (int32_t)s3->v.u, (int32_t)u3->v.u);
    return gw_conform_say(io, GW_PASS, "the %s's ping request %u has T2 = T3 = 0", who(io), (unsigned)rid->v.u);
}

static const gw_conform_case case_ping_request_times_zero = {
    "gne/ping/request-times-zero", BOTH, "The peer's own ping requests carry T2 = T3 = 0", "GNE text, PingPacket",
    "In the request packet, T2 and T3 are to have time values of 0s, 0ms.",
    "a connection, and no ping: the peer's first PingPacket is its own request",
    "T2 and T3 both 0 s 0 us; Fail otherwise (\"are to have\": an obligation, set apart from the reply's "
    "\"should\"; a MUST); Skipped when the peer sends no ping request of its own",
    ping_request_zero, GW_MUST};

static gw_verdict reserved_id(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    STILL_OPEN_OR(io, id, NULL, "the reserved packet id");
    /* "the implementation defines what happens": either way is recorded;
       a ping after it ends the wait (gw_conform_probe) */
    uint32_t want = gw_conform_random();
    if (!send_packets(io, id, GW_WVALS(GW_WU(GNE_F_PACKET_ID, 12), GW_WU(GNE_F_END, 255))))
        return gw_conform_say(io, GW_FAIL, "could not send");
    if (!send_packets(io, id, GW_WVALS(PING(want), GW_WU(GNE_F_END, 255))))
        return gw_conform_say(io, GW_INFO, "after a message with reserved packet id 12 the %s ended the connection "
                              "(the ping after it could not be sent)", who(io));
    gw_replay_pdu a;
    bool exited;
    gw_wait w = gw_conform_probe(io, ping_reply, &want, has_exit, NULL, &a, &exited);
    if (exited || w == GW_CLOSED)
        return gw_conform_say(io, GW_INFO, "after a message with reserved packet id 12 the %s %s", who(io),
                              exited ? "sent an ExitPacket" : "closed the connection");
    return gw_conform_say(io, GW_INFO, "a message with reserved packet id 12 left the connection open; a ping after "
                          "it was %s", w == GW_GOT ? "answered" : "not answered (replying is only encouraged)");
}

static const gw_conform_case case_packets_reserved_id = {
    "gne/packets/reserved-id", BOTH, "A reserved packet id (recorded)", "GNE text, Packets",
    "If an error occurs during parsing, the implementation defines what happens. It could throw out the "
    "current packet and all other packets left unparsed in this GNE-level packet.",
    "a connection, a ping alone, then a message of packet id 12 (reserved) and 255, then a ping",
    "Info: what the implementation did (ended the connection, or kept it and answered the ping or not); the "
    "text leaves errors to the implementation; Skipped when it ended the connection before the message (an end of its "
    "own)",
    reserved_id, GW_OPEN};

static gw_verdict unterminated(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    STILL_OPEN_OR(io, id, NULL, "the ping request without its 255");
    gw_replay_pdu a;
    uint32_t want = gw_conform_random();
    if (!send_packets(io, id, GW_WVALS(PING(want))))
        return gw_conform_say(io, GW_FAIL, "could not send");
    const char *how = "said nothing";
    bool answered_ping = false, ended = false;
    int64_t until = gw_conform_clock_ms() + io->wait_ms;
    for (;;) {
        gw_wait w = gw_conform_await_until(io, until, NULL, NULL, &a);
        if (w != GW_GOT) {
            ended |= w == GW_CLOSED;
            how = ended ? how : "said nothing more";
            break;
        }
        answered_ping |= ping_reply(&a, &want);
        ended |= has_exit(&a, NULL);
        if (ended)
            break;
    }
    return gw_conform_say(io, GW_INFO, "a ping request without the 255 that ends its message: %s, %s",
                          answered_ping ? "answered" : "not answered",
                          ended ? "then the connection was ended" : "the connection left open");
}

static const gw_conform_case case_packets_unterminated = {
    "gne/packets/unterminated", BOTH, "A message without its 255 (recorded)", "GNE text, Packets",
    "The id 255 represents the end of the GNE-level packet and parsing stops at that point.",
    "a connection, a ping alone, then a message of a ping request and no 255",
    "Info: what the implementation did (answered, dropped the connection, or neither); the text leaves errors to the "
    "implementation; Skipped when it ended the connection before the message (an end of its own)",
    unterminated, GW_OPEN};

static gw_verdict exit_closes(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    STILL_OPEN_OR(io, id, NULL, "pcaptool's ExitPacket");
    if (!send_packets(io, id, GW_WVALS(GW_WU(GNE_F_PACKET_ID, ID_EXIT), GW_WU(GNE_F_END, 255))))
        return gw_conform_say(io, GW_FAIL, "could not send");
    ((gne_identity *)io->state)->open = false; /* ended: no second ExitPacket */
    const char *how;
    if (ends(io, io->wait_ms, &how))
        return gw_conform_say(io, GW_PASS, "after the ExitPacket the %s %s", who(io), how);
    return gw_conform_say(io, GW_INFO, "the connection stayed open %.1f s after the ExitPacket", io->wait_ms / 1000.0);
}

static const gw_conform_case case_packets_exit = {
    "gne/packets/exit", BOTH, "An ExitPacket ends the connection", "GNE text, ExitPacket",
    "When a client disconnects, it should send a valid GNE-level packet consisting of a ExitPacket over the "
    "reliable connection as its last data if possible then close its sockets.",
    "a connection, a ping alone, then the message 02 FF (an ExitPacket alone)",
    "the implementation ends the connection (a close or its own ExitPacket); Info when it leaves it open; Skipped "
    "when it ended the connection before the ExitPacket was sent (an end of its own)",
    exit_closes, GW_SHOULD};

/* ---- the implementation as client ---------------------------------------------------- */

static gw_verdict client_request_case(gw_conform_io *io)
{
    gne_identity id = {0};
    gw_replay_pdu a;
    if (!client_request(io, &id, &a))
        return GW_FAIL;
    ((gne_identity *)io->state)->open = accept_client(io, &id, -1); /* then ended as every case is */
    if (a.len != 4 + 48)
        return gw_conform_say(io, GW_FAIL, "the connection request has %zu %s (exactly 48 required)", a.len - 4, gw_bytes(a.len - 4));
    return gw_conform_say(io, GW_PASS, "a 48-byte request: game \"%s\", GNE %llu.%llu.%llu, user %llu, %s data", id.game,
                          (unsigned long long)id.version, (unsigned long long)id.sub, (unsigned long long)id.build,
                          (unsigned long long)id.user, id.big_endian ? "big-endian" : "little-endian");
}

static const gw_conform_case case_handshake_request = {
    "gne/handshake/request", CLIENT, "The client's connection request is the 48-byte CRP", HANDSHAKE,
    "the client (connecting machine) sends a packet with the following information called the connection request "
    "packet (CRP) with an exact size of 48 bytes.",
    "nothing: the client's first message is read",
    "a 48-byte request with the magic, versions, game name and user version; Fail otherwise",
    client_request_case, GW_MUST};

static gw_verdict client_refused(gw_conform_io *io)
{
    gne_identity id = {0};
    gw_replay_pdu a;
    if (!client_request(io, &id, &a))
        return GW_FAIL;
    /* the client's own identity but another user version: a mismatch */
    if (!send_in_order(io, &id, MSG_REFUSAL,
                     GW_WVALS(GW_WB(GNE_F_MAGIC, "GNE", 3), GW_WU(GNE_F_RESPONSE, 0), GW_WU(GNE_F_VERSION, id.version),
                              GW_WU(GNE_F_SUB_VERSION, id.sub), GW_WU(GNE_F_BUILD, id.build),
                              GW_WB(GNE_F_GAME_NAME, id.game, strlen(id.game)), GW_WU(GNE_F_USER_VERSION, id.user + 1))))
        return gw_conform_say(io, GW_FAIL, "could not send the refusal");
    /* the text says what a refusal is, not what a refused client does
       with its connection: recorded */
    const char *how;
    if (ends(io, io->wait_ms, &how))
        return gw_conform_say(io, GW_INFO, "refused, the client %s", how);
    return gw_conform_say(io, GW_INFO, "refused, the client kept the connection %.1f s", io->wait_ms / 1000.0);
}

static const gw_conform_case case_handshake_refused_ends = {
    "gne/handshake/refused-ends", CLIENT, "A refused client ends the connection", HANDSHAKE,
    "If the server decides to refuse, it sends a refusal packet with the server's version information",
    "a refusal: the client's own versions but another user version",
    "Info: whether the client closes the connection (or sends an ExitPacket) or keeps it (the text says nothing of "
    "what a refused client does)",
    client_refused, GW_OPEN};

static bool is_udp_port(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return message(p) == MSG_UDP_PORT;
}

static gw_verdict client_udp_port(gw_conform_io *io)
{
    gne_identity id = {0};
    gw_replay_pdu a;
    if (!client_request(io, &id, &a))
        return GW_FAIL;
    uint64_t asked = 0;
    gw_replay_u(&a, GNE_F_UNRELIABLE, &asked);
    if (!asked) {
        ((gne_identity *)io->state)->open = accept_client(io, &id, -1);
        return gw_conform_say(io, GW_SKIPPED, "the client asks for no UDP link");
    }
    if (!(((gne_identity *)io->state)->open = accept_client(io, &id, 60999)))
        return gw_conform_say(io, GW_FAIL, "could not send the accept");
    if (gw_conform_await(io, io->wait_ms, is_udp_port, NULL, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the accept offered UDP port 60999, but no 4-byte port message came");
    const gw_item *port = gw_replay_item(&a, GNE_F_UDP_PORT, 0);
    long long named = port ? (long long)(int32_t)port->v.u : -1LL;
    if (named < 0 || named > 65535)
        return gw_conform_say(io, GW_FAIL, "the client's port message names %lld (\"For UDP and IPX this shall be a "
                              "gint32 from 0 to 65535, inclusive\")", named);
    return gw_conform_say(io, GW_PASS, "the client named its UDP port, %lld", named);
}

static const gw_conform_case case_handshake_udp_port_sent = {
    "gne/handshake/udp-port-sent", CLIENT, "A client offered a UDP link names its UDP port", HANDSHAKE,
    "If a unreliable connection was successfully negotiated, then once the client receives the CAP, it will "
    "send a packet over its reliable connection with only the data needed for the server to be able to respond "
    "to the client. [...] For UDP and IPX this shall be a gint32 from 0 to 65535, inclusive.",
    "an accept offering UDP port 60999, when the request asked for the unreliable link",
    "the 4-byte port message, a port from 0 to 65535; Fail when none comes or the port is outside that range; "
    "Skipped when the client asks for no UDP link",
    client_udp_port, GW_MUST};

/* ---- HawkNL framing ----------------------------------------------------------------- */

/* a connection, then raw bytes: does the implementation drop it? The
   framing's limits are HawkNL's (the reference's library), not the GNE text's:
   staying open is at most Non-strict */
static gw_verdict dropped_after(gw_conform_io *io, const uint8_t *d, size_t n, const char *what)
{
    CONNECTED_OR(io, id);
    STILL_OPEN_OR(io, id, NULL, what);
    if (!io->send(io, d, n))
        return gw_conform_say(io, GW_FAIL, "could not send");
    const char *how;
    if (ends(io, io->wait_ms, &how))
        return gw_conform_say(io, GW_PASS, "%s: the %s %s", what, who(io), how);
    return gw_conform_say(io, GW_NON_STRICT, "%s: the connection stayed open %.1f s later (HawkNL would end it; "
                          "the GNE text says nothing)", what, io->wait_ms / 1000.0);
}

static gw_verdict bad_magic(gw_conform_io *io)
{
    /* an ExitPacket alone (02 FF) as the builder frames it, its magic made "XL" */
    uint8_t frame[16];
    size_t n = P->build(io->opts, MSG_PACKETS, GW_WVALS(GW_WU(GNE_F_PACKET_ID, ID_EXIT), GW_WU(GNE_F_END, 255)),
                        frame, sizeof frame);
    if (!n)
        return gw_conform_say(io, GW_FAIL, "pcaptool could not build its frame");
    frame[0] = 'X';
    return dropped_after(io, frame, n, "a frame with magic \"XL\"");
}

static const gw_conform_case case_framing_bad_magic = {
    "gne/framing/bad-magic", BOTH, "A frame without the NL magic ends the connection", "wire-facts 3.2",
    "'N' 'L' length:u16 BIG-endian then length bytes of content. [...] a bad magic means the stream is out of sync.",
    "a connection, a ping alone, then a frame whose magic is \"XL\"",
    "the implementation ends the connection (a close or an ExitPacket); Non-strict when it stays open (HawkNL's "
    "behaviour, the reference's; the GNE text is silent); Skipped when it ended the connection before the frame was "
    "sent (an end of its own)",
    bad_magic, GW_REFERENCE};

/* The header of an NL frame of 20000 bytes (HawkNL's limit: 16384). Where
   it lands in the peer's reads changes what HawkNL 1.70 does (it skips its
   check on a header that comes in the read of the frame before), so it is
   sent both ways on purpose, each its own case: alone, once a ping reply
   shows the peer has read all before it; in one write with a frame before. */
static const uint8_t oversized_header[] = {'N', 'L', 0x4e, 0x20, ID_EMPTY};

static gw_verdict oversized(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    bool apart;
    STILL_OPEN_OR(io, id, &apart, "the header of 20000 bytes");
    const char *how;
    if (ends(io, 0, &how)) /* an end of its own, before the header went: it answers nothing */
        return gw_conform_say(io, GW_INFO, "the %s %s before the header of 20000 bytes was sent (a ping %s): "
                              "nothing to judge", who(io), how, apart ? "answered" : "unanswered");
    if (!io->send(io, oversized_header, sizeof oversized_header))
        return gw_conform_say(io, GW_FAIL, "could not send");
    if (ends(io, io->wait_ms, &how))
        return gw_conform_say(io, GW_PASS, "an NL frame of 20000 bytes, in a write of its own: the %s %s", who(io), how);
    if (!apart) /* it may have come in the read of the ping: the other case */
        return gw_conform_say(io, GW_INFO, "an NL frame of 20000 bytes: the connection stayed open %.1f s later, but "
                              "the ping before it got no reply, so nothing shows the header came in a read of its own",
                              io->wait_ms / 1000.0);
    return gw_conform_say(io, GW_NON_STRICT, "an NL frame of 20000 bytes, in a read of its own (the ping before it "
                          "answered): the connection stayed open %.1f s later (HawkNL would end it; the GNE text says "
                          "nothing)", io->wait_ms / 1000.0);
}

static const gw_conform_case case_framing_oversized = {
    "gne/framing/oversized", BOTH, "An NL frame over 16384 bytes ends the connection", "wire-facts 3.2",
    "HawkNL refuses frames over 16384.",
    "a connection, a ping alone, then (once the ping is answered: the peer has read all before) an NL header "
    "announcing 20000 bytes, and one byte, in a write of their own",
    "the implementation ends the connection (a close or an ExitPacket); Non-strict when it stays open (HawkNL's "
    "limit, the reference's; the GNE text's lengths are 16-bit); Info when the ping got no reply (the header may have "
    "come in the ping's read) or the implementation ended the connection just before the header went; Skipped when "
    "it ended it before the ping was answered (an end of its own)",
    oversized, GW_REFERENCE};

static gw_verdict oversized_coalesced(gw_conform_io *io)
{
    CONNECTED_OR(io, id);
    STILL_OPEN_OR(io, id, NULL, "the ping and the header of 20000 bytes");
    uint8_t d[600 + sizeof oversized_header];
    size_t n = build_in_order(io, id, MSG_PACKETS, GW_WVALS(PING(gw_conform_random()), GW_WU(GNE_F_END, 255)), d, 600);
    if (!n)
        return gw_conform_say(io, GW_FAIL, "pcaptool could not build its ping");
    memcpy(d + n, oversized_header, sizeof oversized_header);
    if (!io->send(io, d, n + sizeof oversized_header))
        return gw_conform_say(io, GW_FAIL, "could not send");
    const char *how;
    if (ends(io, io->wait_ms, &how))
        return gw_conform_say(io, GW_PASS, "a ping and an NL frame of 20000 bytes in one write: the %s %s", who(io),
                              how);
    return gw_conform_say(io, GW_NON_STRICT, "a ping and an NL frame of 20000 bytes in one write: the connection stayed "
                          "open %.1f s later (HawkNL 1.70 checks its limit only on a header read on its own)",
                          io->wait_ms / 1000.0);
}

static const gw_conform_case case_framing_oversized_coalesced = {
    "gne/framing/oversized-coalesced", BOTH, "An NL frame over 16384 bytes ends the connection, also when it comes "
    "right after another", "wire-facts 3.2",
    "HawkNL refuses frames over 16384.",
    "a connection, a ping alone, then a ping request and an NL header announcing 20000 bytes, and one byte, in one "
    "write",
    "the implementation ends the connection (a close or an ExitPacket); Non-strict when it stays open (HawkNL "
    "1.70's own check is skipped then); Skipped when it ended the connection before the write (an end of its own)",
    oversized_coalesced, GW_REFERENCE};

/* the case is over: an ExitPacket, GNE's own end of a connection (a
   client quits on it), where the handshake was done */
static void gne_finish(gw_conform_io *io)
{
    gne_identity *run = io->state;
    if (run->open) /* a connection past its handshake; a refused one is just closed */
        send_packets(io, run, GW_WVALS(GW_WU(GNE_F_PACKET_ID, ID_EXIT), GW_WU(GNE_F_END, 255)));
    run->open = false;
}

/* ---- pcaptool fuzz (active/gw_fuzz.h) ------------------------------------------------- */

static const char *const fuzz_states[] = {"connected"};

static gw_verdict fuzz_enter(gw_conform_io *io, unsigned state)
{
    (void)state;
    CONNECTED_OR(io, id);
    return GW_PASS;
}

/* a ping request of an id nobody can predict: replying "is encouraged"
   (a SHOULD), so pcaptool fuzz first checks that the implementation does */
static gw_wait fuzz_probe(gw_conform_io *io, const char **what)
{
    static char name[48];
    uint32_t want = gw_conform_random();
    snprintf(name, sizeof name, "ping request %u", want);
    *what = name;
    if (!send_packets(io, io->state, GW_WVALS(PING(want), GW_WU(GNE_F_END, 255))))
        return GW_CLOSED;
    gw_replay_pdu a;
    return gw_conform_await(io, io->wait_ms, ping_reply, &want, &a);
}

/* in the byte order the implementation was found to use */
static size_t fuzz_build(gw_conform_io *io, const gw_fuzz_target *t, uint8_t *out, size_t cap)
{
    return build_in_order(io, io->state, t->type, t->vals, out, cap);
}

static const uint8_t fuzz_custom[] = "fuzz";
static const gw_fuzz_target fuzz_targets[] = {
    {"ping message", 0, MSG_PACKETS, GW_WVALS(PING(7), GW_WU(GNE_F_END, 255)), BOTH, false},
    {"custom packet", 0, MSG_PACKETS,
     GW_WVALS(GW_WU(GNE_F_PACKET_ID, ID_CUSTOM), GW_WB(GNE_F_CUSTOM_DATA, fuzz_custom, sizeof fuzz_custom - 1),
              GW_WU(GNE_F_END, 255)),
     BOTH, false},
    {"rate adjust", 0, MSG_PACKETS,
     GW_WVALS(GW_WU(GNE_F_PACKET_ID, ID_RATE), GW_WU(GNE_F_RATE, 1u << 20), GW_WU(GNE_F_END, 255)), BOTH, false},
};

static const gw_fuzz gne_fuzz = {fuzz_states, 1, fuzz_enter, fuzz_targets, sizeof fuzz_targets / sizeof fuzz_targets[0],
                                 fuzz_probe, fuzz_build, NULL};

/* ---- the catalogue ------------------------------------------------------------------- */



static const gw_conform_setting settings[] = {
    {"game", "the server's game name; without it the run learns the name and versions from the server's "
             "refusal of a request with GNE version 0 (the cases that need them are skipped when it cannot)"},
    {"version", "the server's GNE version, A.B.C (with game; default 1.0.0)"},
    {"user_version", "the server's user version (with game; default 0)"},
    {NULL, NULL},
};


/* the catalogue, in its order: each case is defined below its run function */
static const gw_conform_case *const cases[] = {
    &case_handshake_wrong_game, &case_handshake_accepted, &case_handshake_wrong_version,
    &case_handshake_wrong_user_version, &case_handshake_wrong_sub_version, &case_handshake_wrong_build,
    &case_handshake_game_zero_padded, &case_handshake_closes_after_refusal, &case_handshake_udp_unasked,
    &case_handshake_udp_asked, &case_handshake_request, &case_handshake_refused_ends, &case_handshake_udp_port_sent,
    &case_ping_reply, &case_packets_custom_parsed, &case_packets_rate_adjust_parsed, &case_ping_request_times_zero,
    &case_packets_reserved_id, &case_packets_unterminated, &case_packets_exit, &case_framing_bad_magic,
    &case_framing_oversized, &case_framing_oversized_coalesced,
};

const gw_conform gw_gne_conform = {.transport = GW_TRANSPORT_TCP, .cases = cases,
                                   .n_cases = sizeof cases / sizeof cases[0], .finish = gne_finish,
                                   .state_size = sizeof(gne_identity), .settings = settings, .fuzz = &gne_fuzz};
