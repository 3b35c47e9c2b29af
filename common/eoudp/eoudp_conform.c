/* eoudp_conform.c - pcaptool conform's cases for EOUDP (gw_conform.h),
 * both roles: the EOUDP text's acknowledgements and connection, and what the
 * implementation (maelbecel/R-Type, wire-facts 4) does where the text is
 * silent or contradicts itself. Datagrams are built from the decoder's
 * header and payload layouts (eoudp.c, eoudp_build); answers are read
 * through the decoder's fields.
 *
 * Which header the implementation speaks is learnt once per run (unless
 * `-o eoudp.generation=...` forces one): a server is asked with a connect
 * in the default generation (the implementation's 26-byte header), then,
 * each on a connection of its own, in the text's 21-byte header with the
 * text's numbering and in the implementation's 22-byte one with its
 * important byte; an answer counts only in the header it was asked in (a
 * server that reads a connect in its own header may still take it for one,
 * and answer in its own); a client tells it by its first datagram. The
 * header's byte order, which the text never states, follows the
 * implementation's answers (a size field above 0 tells it:
 * eoudp.default_order); until one tells it, the option's (default the
 * implementation's big-endian order).
 *
 * Verdicts follow the sentence they rest on: the text's "MUST get an
 * acknowledge" (0x81 Connect from a client; 0x0b-0x10 from a server) is a
 * Fail when broken; the acknowledgement of a client's important event is
 * the reference's habit (wire-facts 4.5), Non-strict at most. A case that
 * checks that the implementation ignored something ends with a packet the
 * text requires an answer to (a connect to a server, an entity's component
 * to a client). */
#include <stdio.h>
#include <string.h>

#include "active/gw_conform.h"
#include "active/gw_fuzz.h"
#include "eoudp/eoudp.h"

#define P (&gw_eoudp_protocol)
#define TEXT_CMDS "EOUDP text, Commands"
#define BOTH (GW_ROLE_SERVER | GW_ROLE_CLIENT)

/* what the run learns once */
typedef struct {
    bool ready;                /* opts and next_id set */
    bool tried;                /* the server's generation was asked for */
    int gen;                   /* the header generation it answers (0: not known) */
    bool heard;                /* it sent something in the run */
    int numbering;             /* the user's eoudp.numbering */
    int opts[GW_MAX_OPTIONS];  /* the user's options with what was learnt: io->opts points here */
    uint64_t next_id;          /* our next id: a random start per run, then counting */
    uint64_t probe_id;         /* the id of the connects that asked for the generation */
    char unknown[240];         /* why the generation could not be learnt */
} eoudp_run;

/* what one case saw: the ids it sent, for the audit */
typedef struct {
    bool any;
    uint64_t first_id;   /* the case's first id (its ids run from here to the run's next_id) */
    uint64_t bogus_ack;  /* 1 + an acknowledged id pcaptool had not sent; 0: none */
    unsigned bad_size;   /* the datagram (1-based, of the peer's) whose size field matched no header; 0: none */
    uint64_t bad_size_value, bad_size_len;
    unsigned peer_pdus;
    bool accepted;       /* the server accepted (0x02) this case's connect */
    bool ended;          /* then ended the connection itself (0x03) */
    /* the datagrams pcaptool sent in every header generation
       (header/generations, recording: those sent with options of the
       case's own, not the duty's acknowledges): an implementation that
       reads one in its own header may acknowledge an id it read from other
       bytes of it, no bogus acknowledge */
    bool recording;
    unsigned n_foreign;
    uint8_t foreign[4][64];
    size_t foreign_len[4];
} eoudp_case;

/* the header lengths of the generations (eoudp.h: 21, 22, 22, 26 bytes) */
static const unsigned header_len[] = {[EOUDP_GEN_RFC] = 21, [EOUDP_GEN_PAD] = 22, [EOUDP_GEN_IMP] = 22,
                                      [EOUDP_GEN_F64] = 26};

static eoudp_run *run_of(gw_conform_io *io)
{
    eoudp_run *r = io->state;
    if (!r->ready) {
        memcpy(r->opts, io->opts, sizeof r->opts);
        r->numbering = r->opts[EOUDP_OPT_NUMBERING];
        r->next_id = (uint64_t)gw_conform_random() + 1; /* the text says nothing of where ids start */
        r->ready = true;
        io->opts = r->opts; /* what the run learns, the builder and the decoder follow */
    }
    return r;
}

/* the generation we send in, and its numbering (the text's with its own
   header, unless the user forced a generation and chose a numbering) */
static void use_generation(gw_conform_io *io, int gen, bool learnt)
{
    eoudp_run *r = run_of(io);
    r->opts[EOUDP_OPT_DEFAULT] = gen;
    r->opts[EOUDP_OPT_NUMBERING] = learnt && gen == EOUDP_GEN_RFC ? EOUDP_NUM_TEXT : r->numbering;
}

static int sending_generation(gw_conform_io *io)
{
    const int *o = run_of(io)->opts;
    return o[EOUDP_OPT_GENERATION] != EOUDP_GEN_AUTO ? o[EOUDP_OPT_GENERATION] : o[EOUDP_OPT_DEFAULT];
}

/* the text's form of a string (NUL-terminated, the length counting it) in
   its own header, the implementation's (no NUL) in the others */
static gw_wval text_value(gw_conform_io *io, int field, const char *s)
{
    size_t n = strlen(s) + (sending_generation(io) == EOUDP_GEN_RFC);
    return (gw_wval)GW_WB(field, s, n);
}

static uint64_t take_id(gw_conform_io *io)
{
    eoudp_run *r = run_of(io);
    eoudp_case *k = io->case_state;
    if (!k->any) {
        k->any = true;
        k->first_id = r->next_id;
    }
    return r->next_id++;
}

/* send command cmd with id (important where the header has the byte),
   the payload's values after the header's, in the learnt byte order */
static bool send_with(gw_conform_io *io, const int *opts, uint8_t cmd, uint64_t id, bool important,
                      const gw_wval *payload)
{
    gw_wval v[16] = {GW_WU(EOUDP_F_ID, id), GW_WU(EOUDP_F_IMPORTANT, important)};
    unsigned k = 2;
    for (; payload->field != GW_W_END && k < 15; payload++)
        v[k++] = *payload;
    v[k].field = GW_W_END;
    uint8_t d[512];
    size_t n = P->build(opts, cmd, v, d, sizeof d);
    eoudp_case *c = io->case_state;
    if (n && c->recording && opts != run_of(io)->opts && c->n_foreign < 4) { /* (a header of its own choosing) */
        size_t keep = n < sizeof c->foreign[0] ? n : sizeof c->foreign[0];
        memcpy(c->foreign[c->n_foreign], d, keep);
        c->foreign_len[c->n_foreign++] = keep;
    }
    if (!n || !io->send(io, d, n)) {
        gw_conform_say(io, GW_FAIL, "could not send command 0x%02x", cmd);
        return false;
    }
    return true;
}

static bool send_id(gw_conform_io *io, uint8_t cmd, uint64_t id, bool important, const gw_wval *payload)
{
    return send_with(io, run_of(io)->opts, cmd, id, important, payload);
}

static bool send_cmd(gw_conform_io *io, uint8_t cmd, bool important, const gw_wval *payload)
{
    return send_id(io, cmd, take_id(io), important, payload);
}

/* an id with its bytes the other way round: what a peer that reads our
   header in the other byte order (the text states none) takes it for */
static uint64_t swapped(uint64_t id)
{
    return __builtin_bswap64(id);
}

/* Is id 8 bytes (in either order) of a datagram the case recorded
   (eoudp_case.recording)? */
static bool read_from_foreign(const eoudp_case *k, uint64_t id)
{
    for (unsigned i = 0; i < k->n_foreign; i++)
        for (size_t at = 0; at + 8 <= k->foreign_len[i]; at++) {
            uint64_t big = 0, little = 0;
            for (unsigned b = 0; b < 8; b++) {
                big = big << 8 | k->foreign[i][at + b];
                little |= (uint64_t)k->foreign[i][at + b] << (8 * b);
            }
            if (id == big || id == little)
                return true;
        }
    return false;
}

/* an acknowledge of the id *arg (as the peer read it: in either byte order) */
static bool ack_of(const gw_replay_pdu *p, const void *arg)
{
    uint64_t id, want = *(const uint64_t *)arg;
    return p->type == 0x01 && !p->echo && gw_replay_u(p, EOUDP_F_ACK_ID, &id) && (id == want || id == swapped(want));
}

static bool connect_answer(const gw_replay_pdu *p, const void *arg)
{
    (void)arg;
    return !p->echo && (p->type == 0x02 || p->type == 0x03);
}

/* an answer to the connect with id *arg: its acknowledge, an accept or a
   reject */
static bool connect_heard(const gw_replay_pdu *p, const void *arg)
{
    return ack_of(p, arg) || connect_answer(p, NULL);
}

/* Is datagram p in header generation gen, as its own header tells (its
   size field fits that header's length alone; true when nothing tells)?
   A server that reads a connect in another header than it was sent in
   may still take it for a connect, and answer it, in its own header. */
static bool in_generation(const gw_replay_pdu *p, int gen)
{
    uint64_t g;
    return !gw_replay_u(p, EOUDP_F_GENERATION, &g) || (int)g == gen;
}

/* ---- what every case owes the implementation, and what it audits ---------------- */

/* the byte order a datagram's header tells: its size field, above 0 and
   equal to what follows the header, reads so in one order only */
static int told_order(const gw_replay_pdu *p)
{
    uint64_t size, order, gen;
    if (!gw_replay_u(p, EOUDP_F_SIZE, &size) || !gw_replay_u(p, EOUDP_F_HEADER_ORDER, &order) ||
        !gw_replay_u(p, EOUDP_F_GENERATION, &gen) || gen < EOUDP_GEN_RFC || gen > EOUDP_GEN_F64)
        return 0;
    return size && size == p->len - header_len[gen] ? (int)order : 0;
}

/* Every packet the implementation marks important (the header's byte, or,
   in the headers without it, what the text's "MUST get an acknowledge"
   implies: the decoder's generated field) is acknowledged, as the text
   requires of whoever receives it; what it sends is audited: an
   acknowledge must carry an id pcaptool sent (or one read in the other
   byte order: pcaptool then sends in that order), a size field must be
   the content's. */
static void eoudp_duty(gw_conform_io *io, const gw_replay_pdu *p)
{
    eoudp_run *r = run_of(io);
    eoudp_case *k = io->case_state;
    if (p->echo)
        return;
    r->heard = true;
    k->peer_pdus++;
    uint64_t first_gen; /* a client's connect: the generation we answer in, unless forced */
    if (io->role == GW_ROLE_CLIENT && p->type == 0x81 && r->opts[EOUDP_OPT_GENERATION] == EOUDP_GEN_AUTO &&
        gw_replay_u(p, EOUDP_F_GENERATION, &first_gen))
        use_generation(io, (int)first_gen, true);
    int order = told_order(p);
    if (order)
        r->opts[EOUDP_OPT_ORDER] = order;
    uint64_t size, gen, id;
    if (gw_replay_u(p, EOUDP_F_SIZE, &size) && gw_replay_u(p, EOUDP_F_GENERATION, &gen) && gen >= EOUDP_GEN_RFC &&
        gen <= EOUDP_GEN_F64 && size != p->len - header_len[gen] && !k->bad_size) {
        k->bad_size = k->peer_pdus;
        k->bad_size_value = size;
        k->bad_size_len = p->len;
    }
    if (p->type == 0x01 && gw_replay_u(p, EOUDP_F_ACK_ID, &id)) {
        bool sent = k->any && id >= k->first_id && id < r->next_id;
        bool read_swapped = k->any && swapped(id) >= k->first_id && swapped(id) < r->next_id;
        if (!sent && read_swapped) /* it reads our header the other way round: from now on, its way */
            r->opts[EOUDP_OPT_ORDER] = r->opts[EOUDP_OPT_ORDER] == EOUDP_LITTLE ? EOUDP_BIG : EOUDP_LITTLE;
        else if (!sent && id != r->probe_id && !k->bogus_ack && !read_from_foreign(k, id))
            k->bogus_ack = id + 1;
    }
    if (p->type == 0x02)
        k->accepted = true;
    if (p->type == 0x03 && k->accepted)
        k->ended = true;
    uint64_t important = 0;
    if (gw_replay_u(p, EOUDP_F_IMPORTANT, &important) && important && p->type != 0x01 && gw_replay_u(p, EOUDP_F_ID, &id))
        send_cmd(io, 0x01, false, GW_WVALS(GW_WU(EOUDP_F_ACK_ID, id)));
}

static gw_verdict eoudp_audit(gw_conform_io *io)
{
    const eoudp_case *k = io->case_state;
    if (k->bogus_ack)
        return gw_conform_say(io, GW_FAIL, "the implementation acknowledged id %llu, which pcaptool had not sent "
                              "(EOUDP text, 0x01: \"It's content is [Id] the id of the command to acknowledge.\")",
                              (unsigned long long)k->bogus_ack - 1);
    if (k->bad_size)
        return gw_conform_say(io, GW_FAIL, "the implementation's datagram %u (%llu %s) has a size field of %llu, "
                              "which fits no header (EOUDP text: \"Size - 64 bit (8 bytes) unsigned integer representing "
                              "the size of the content of the packet.\")",
                              k->bad_size, (unsigned long long)k->bad_size_len, gw_bytes(k->bad_size_len),
                              (unsigned long long)k->bad_size_value);
    return GW_PASS;
}

/* ---- the header generation ------------------------------------------------------------ */

/* the implementation as server: the generation it answers a connect in,
   learnt once per run (or forced). GW_PASS, else GW_SKIPPED with the reason */
static gw_verdict learn_generation(gw_conform_io *io)
{
    eoudp_run *r = run_of(io);
    if (!r->tried) {
        r->tried = true;
        int forced = r->opts[EOUDP_OPT_GENERATION];
        if (forced != EOUDP_GEN_AUTO) {
            r->gen = forced;
        } else {
            /* the user's default (the reference's latest), the text's, the
               reference's 22-byte one with its important byte (whose connect,
               empty, reads as the other 22-byte one's too) */
            static const int others[] = {EOUDP_GEN_RFC, EOUDP_GEN_IMP};
            int tries[3] = {r->opts[EOUDP_OPT_DEFAULT]}, n = 1;
            for (size_t g = 0; g < sizeof others / sizeof *others; g++)
                if (others[g] != tries[0])
                    tries[n++] = others[g];
            uint32_t half = gw_conform_random() | 1;
            for (int b = 0; b < 4; b++) /* bytes b3 b2 b1 b0 b0 b1 b2 b3 */
                r->probe_id |= (uint64_t)(half >> (8 * b) & 0xff) << (8 * (3 - b)) |
                               (uint64_t)(half >> (8 * b) & 0xff) << (8 * (4 + b));
            for (int i = 0; i < n && !r->gen; i++) {
                if (i && !io->reconnect(io)) /* a connection of its own: a fresh source port */
                    break;
                use_generation(io, tries[i], true);
                /* the Usage section's connect, "Client -> [0x81][Timestamp][Id]": no content, so
                   that its size (0) reads the same in either byte order, and an id whose bytes
                   read the same both ways too (a random one) */
                uint64_t id = r->probe_id;
                gw_replay_pdu a;
                if (send_id(io, 0x81, id, true, GW_NO_VALUES) &&
                    gw_conform_await(io, io->wait_ms, connect_heard, &id, &a) == GW_GOT &&
                    in_generation(&a, tries[i]))
                    r->gen = tries[i];
            }
            if (!r->gen) {
                use_generation(io, tries[0], false);
                int at = snprintf(r->unknown, sizeof r->unknown, "the server answered a connect (0x81) in none "
                                  "of the headers tried (");
                for (int i = 0; i < n && at > 0 && (size_t)at < sizeof r->unknown; i++)
                    at += snprintf(r->unknown + at, sizeof r->unknown - (size_t)at, "%s%u bytes", i ? ", " : "",
                                   header_len[tries[i]]);
                if (at > 0 && (size_t)at < sizeof r->unknown)
                    snprintf(r->unknown + at, sizeof r->unknown - (size_t)at, ")%s",
                             r->heard ? "; it sent other datagrams" : "; nothing came back");
            }
            io->reconnect(io); /* the case begins on a connection of its own */
            io->outcome[0] = 0;
            /* what the probes got back answered connects in a header the
               server may have misread (its acknowledge of an id read from
               other bytes): not the case's to audit */
            *(eoudp_case *)io->case_state = (eoudp_case){0};
        }
    }
    if (r->gen)
        return GW_PASS;
    return gw_conform_say(io, GW_SKIPPED, "%s", r->unknown);
}

/* the case ends with v (said) unless v passes */
#define UNLESS_PASS(v) \
    do { \
        gw_verdict v_ = (v); \
        if (v_ != GW_PASS) \
            return v_; \
    } while (0)

/* ---- connections -------------------------------------------------------------------- */

/* A fresh connection: as the client, a connect (important) and the
   server's accept; as the server, the client's connect (acknowledged by the
   duty) accepted. GW_PASS; else the verdict, said: Skipped when a server
   rejects (its right) or does not accept (connect/answered judges that),
   Fail when a client sends no connect. */
static gw_verdict open_connection(gw_conform_io *io)
{
    gw_replay_pdu a;
    if (io->role == GW_ROLE_SERVER) {
        UNLESS_PASS(learn_generation(io));
        if (!send_cmd(io, 0x81, true, GW_NO_VALUES))
            return GW_FAIL;
        gw_wait w = gw_conform_await(io, io->wait_ms, connect_answer, NULL, &a);
        if (w == GW_GOT && a.type == 0x02)
            return GW_PASS;
        return gw_conform_say(io, GW_SKIPPED, w == GW_GOT ? "the server rejected the connection (0x03, its right)"
                                              : w == GW_CLOSED ? "the server's port is closed"
                                                               : "the server did not accept the connect (0x02) "
                                                                 "(eoudp/connect/answered judges that)");
    }
    int64_t connect = 0x81;
    if (gw_conform_await(io, io->wait_ms, gw_conform_of_type, &connect, &a) != GW_GOT)
        return gw_conform_say(io, GW_FAIL, "the client sent no connect (0x81) within %.1f s", io->wait_ms / 1000.0);
    return send_cmd(io, 0x02, false, GW_WVALS(GW_WU(EOUDP_F_PLAYER, 0x1234))) ? GW_PASS : GW_FAIL;
}

/* the verdict v for what the implementation did not do, unless the server
   ended the connection itself (0x03, as the Usage section's End allows)
   before it could: then the case is skipped */
static gw_verdict unless_ended(gw_conform_io *io, gw_verdict v)
{
    if (!((eoudp_case *)io->case_state)->ended || v == GW_PASS)
        return v;
    char was[sizeof io->outcome];
    snprintf(was, sizeof was, "%s", io->outcome);
    return gw_conform_say(io, GW_SKIPPED, "the server ended the connection (0x03, its right) before the case was "
                          "judged: %s", was);
}

/* ---- what we send ------------------------------------------------------------------- */

/* A packet the text requires an answer to: a connect (0x81, "MUST get an
   acknowledge") to a server, an entity's component (0x0c, "MUST get an
   acknowledge") to a client, marked important where the header has the
   byte. With id (0: the next). */
static bool send_required(gw_conform_io *io, uint64_t id)
{
    static const uint8_t content[] = {1, 0, 0, 0, 2, 0, 0, 0};
    if (io->role == GW_ROLE_SERVER)
        return send_id(io, 0x81, id, true, GW_NO_VALUES);
    gw_wval comp = text_value(io, EOUDP_F_COMPONENT, "Position");
    return send_id(io, 0x0c, id, true,
                   GW_WVALS(GW_WU(EOUDP_F_ENTITY, 0x42), comp, GW_WB(EOUDP_F_CONTENT, content, sizeof content)));
}

/* the text-required packet acknowledged with its id? GW_PASS, else Fail
   (the MUST broken), said */
static gw_verdict required_acked(gw_conform_io *io, const char *what, uint64_t id)
{
    if (!id)
        id = take_id(io);
    if (!send_required(io, id))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, ack_of, &id, &a);
    if (w == GW_GOT)
        return GW_PASS;
    return unless_ended(io, gw_conform_say(io, GW_FAIL, "%s: the %s (id %llu) was not acknowledged within %.1f s, "
                                           "and the text says it MUST be%s",
                                           what, io->role == GW_ROLE_SERVER ? "connect" : "entity's component (0x0c)",
                                           (unsigned long long)id, io->wait_ms / 1000.0,
                                           w == GW_CLOSED ? " (the port is closed)" : ""));
}

/* a client's event to a server: important, the reference's important
   packet (the text's 0x8c "Send important events" in its own header, which
   has no important byte; 0x8b marked important in the implementation's),
   or not (0x8b, important = 0) */
static bool send_event(gw_conform_io *io, bool important, uint64_t id)
{
    bool text = sending_generation(io) == EOUDP_GEN_RFC;
    return send_id(io, text && important ? 0x8c : 0x8b, id, important,
                   GW_WVALS(GW_WU(EOUDP_F_EVENT, 7), GW_WU(EOUDP_F_PRESSED, 1)));
}

/* ---- both roles -------------------------------------------------------------------- */

static gw_verdict important_acked(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    if (io->role == GW_ROLE_CLIENT) {
        gw_verdict v = required_acked(io, "after the connection", 0);
        return v == GW_PASS ? gw_conform_say(io, GW_PASS, "the entity's component (0x0c) was acknowledged with its id") : v;
    }
    uint64_t id = take_id(io);
    if (!send_event(io, true, id))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, ack_of, &id, &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "the important event was acknowledged with its id");
    return unless_ended(io, gw_conform_say(io, GW_NON_STRICT, "the important event (id %llu) was not acknowledged within "
                                           "%.1f s: the reference acknowledges it; the text marks no client event "
                                           "\"MUST get an acknowledge\"%s",
                                           (unsigned long long)id, io->wait_ms / 1000.0,
                                           w == GW_CLOSED ? " (the port is closed)" : ""));
}

static const gw_conform_case case_important_acknowledged = {
    "eoudp/important/acknowledged", BOTH, "An important packet is acknowledged with its id",
    TEXT_CMDS "; wire-facts 4.5",
    "0x0c - Send entities with their components MUST get an acknowledge / When important is set the receiver "
    "answers with 0x01 carrying that id.",
    "a connection, then an entity's component (0x0c) to a client; to a server an important event (0x8b marked "
    "important; the text's 0x8c in its own header)",
    "an acknowledge (0x01) carrying its id; Fail when a client leaves the 0x0c unacknowledged (MUST); Non-strict "
    "when a server leaves the event unacknowledged (only the reference acknowledges it)",
    important_acked, GW_MUST};

/* the same packet twice with the same id: a connect to a server (no
   connection first: a connect is the packet), an entity's component to a
   client */
static gw_verdict duplicate_acked(gw_conform_io *io)
{
    if (io->role == GW_ROLE_SERVER)
        UNLESS_PASS(learn_generation(io));
    else
        UNLESS_PASS(open_connection(io));
    uint64_t id = take_id(io);
    gw_verdict v = required_acked(io, "the first send", id);
    if (v != GW_PASS)
        return v;
    v = required_acked(io, "the same id sent again", id); /* the same packet, the same id: a resend */
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "both sends (id %llu) were acknowledged", (unsigned long long)id) : v;
}

static const gw_conform_case case_important_duplicate_acked = {
    "eoudp/important/duplicate-acked", BOTH, "A duplicated packet that must be acknowledged is acknowledged again",
    "EOUDP text, Abstract; " TEXT_CMDS,
    "It take in account the unreliability of UDP and the fact that UDP packet can be lost, duplicated or arrive out "
    "of order. / 0x81 - Connect MUST get an acknowledge",
    "to a server a connect (0x81), to a client after a connection an entity's component (0x0c), then the same "
    "packet with the same id",
    "both acknowledged (an acknowledge may be lost, and the sender resends); Fail otherwise",
    duplicate_acked, GW_MUST};

/* something odd, then the packet the text requires an answer to: answered? */
static gw_verdict still_acked(gw_conform_io *io, const char *what, const char *pass)
{
    gw_verdict v = required_acked(io, what, 0);
    return v == GW_PASS ? gw_conform_say(io, GW_PASS, "%s", pass) : v;
}

static gw_verdict unimportant_not_acked(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    uint64_t id = take_id(io);
    bool text = sending_generation(io) == EOUDP_GEN_RFC;
    bool sent;
    if (io->role == GW_ROLE_SERVER) /* an event: important = 0; the text marks no 0x8b */
        sent = send_event(io, false, id);
    else if (text) /* the text's header has no important byte: a command it does not mark, packet info */
        sent = send_id(io, 0x00, id, false, GW_WVALS(GW_WU(EOUDP_F_INFO_RECEIVED, 1), GW_WU(EOUDP_F_INFO_SENT, 1)));
    else {
        static const uint8_t content[] = {1, 0, 0, 0, 2, 0, 0, 0};
        sent = send_id(io, 0x0c, id, false,
                       GW_WVALS(GW_WU(EOUDP_F_ENTITY, 0x42), text_value(io, EOUDP_F_COMPONENT, "Position"),
                                GW_WB(EOUDP_F_CONTENT, content, sizeof content)));
    }
    if (!sent)
        return GW_FAIL;
    /* silence is no evidence: a packet it must answer is the probe that
       ends the check (gw_conform_probe) */
    uint64_t probe = take_id(io);
    if (!send_required(io, probe))
        return GW_FAIL;
    gw_replay_pdu a;
    bool acked;
    gw_wait w = gw_conform_probe(io, ack_of, &probe, ack_of, &id, &a, &acked);
    if (acked)
        return gw_conform_say(io, GW_INFO, "a packet not marked important (id %llu) was acknowledged too (harmless)",
                              (unsigned long long)id);
    if (w != GW_GOT)
        return unless_ended(io, gw_conform_say(io, GW_SKIPPED, "the packet the text requires an answer to, sent after "
                                               "it, was not acknowledged either: its silence proves nothing"));
    return gw_conform_say(io, GW_PASS, "not acknowledged, while the %s after it was",
                          io->role == GW_ROLE_SERVER ? "connect" : "entity's component");
}

static const gw_conform_case case_important_unimportant_not_acked = {
    "eoudp/important/unimportant-not-acked", BOTH, "A packet not marked important needs no acknowledge",
    "wire-facts 4.5", "When important is set the receiver answers with 0x01 carrying that id.",
    "a connection, then an event (0x8b) to a server, an entity's component (0x0c) to a client, with important = 0 "
    "(the text's header has no such byte: packet info 0x00 to a client), then a packet that must be acknowledged "
    "(a connect, an entity's component)",
    "no acknowledge of the first, the second acknowledged; Info when the first is acknowledged (harmless); Skipped "
    "when the second is not (silence proves nothing)",
    unimportant_not_acked, GW_REFERENCE};

/* Each probe breaks one thing: an unknown command or a lying size is sent
   with a command number of the sender's side ("command inferior to 0x80 are
   server commands and superior to 0x80 are client commands"), so that it is
   not also the other side's command. */
static gw_verdict unknown_command(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    static const uint8_t junk[] = {1, 2, 3, 4};
    uint8_t cmd = io->role == GW_ROLE_SERVER ? 0x99 : 0x79;
    if (!send_cmd(io, cmd, false, GW_WVALS(GW_WSTEP(junk, sizeof junk))))
        return GW_FAIL;
    char what[40], pass[100];
    snprintf(what, sizeof what, "after command 0x%02x", cmd);
    snprintf(pass, sizeof pass, "command 0x%02x was ignored; the next packet that must be acknowledged was", cmd);
    return still_acked(io, what, pass);
}

static const gw_conform_case case_commands_unknown_ignored = {
    "eoudp/commands/unknown-ignored", BOTH, "An unknown command does not break the connection", TEXT_CMDS,
    "Each command is prefixed with a header define below representing the command.",
    "a connection, command 0x99 (to a server) or 0x79 (to a client) with four bytes, then a packet that must be "
    "acknowledged (a connect to a server, an entity's component to a client)",
    "that packet acknowledged; Fail otherwise",
    unknown_command, GW_MUST};

static gw_verdict size_mismatch(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    /* a client's event to a server, a server's entity deletion to a client */
    if (!send_cmd(io, io->role == GW_ROLE_SERVER ? 0x8b : 0x0e, false,
                  GW_WVALS(GW_WU(EOUDP_F_SIZE, 100), GW_WU(EOUDP_F_EVENT, 1), GW_WU(EOUDP_F_PRESSED, 0),
                           GW_WU(EOUDP_F_ENTITY, 0x42))))
        return GW_FAIL;
    return still_acked(io, "after a datagram whose size field says 100",
                       "the datagram with a lying size was ignored; the next packet that must be acknowledged was");
}

static const gw_conform_case case_commands_size_mismatch_ignored = {
    "eoudp/commands/size-mismatch-ignored", BOTH, "A datagram whose size field lies does not break the connection",
    "EOUDP text, Header", "Size - 64 bits (8 bytes) unsigned integer representing the size of the content of the packet.",
    "a connection, an event (to a server) or an entity deletion (to a client) whose size field says 100 bytes, then "
    "a packet that must be acknowledged",
    "that packet acknowledged; Fail otherwise",
    size_mismatch, GW_MUST};

static gw_verdict truncated(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    uint8_t d[64];
    size_t n = P->build(run_of(io)->opts, 0x8b, GW_WVALS(GW_WU(EOUDP_F_ID, take_id(io)), GW_WU(EOUDP_F_IMPORTANT, 1)),
                        d, sizeof d);
    if (n < 10 || !io->send(io, d, 10))
        return gw_conform_say(io, GW_FAIL, "could not send the truncated datagram");
    return still_acked(io, "after a 10-byte datagram",
                       "the 10-byte datagram was ignored; the next packet that must be acknowledged was");
}

static const gw_conform_case case_commands_truncated_ignored = {
    "eoudp/commands/truncated-ignored", BOTH, "A datagram cut inside its header does not break the connection",
    "EOUDP text, Header", "Content: [Command][Timestamp][Id][Size]",
    "a connection, the first 10 bytes of a header, then a packet that must be acknowledged",
    "that packet acknowledged; Fail otherwise",
    truncated, GW_MUST};

static gw_verdict wrong_side(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    /* a server's command from the client, or a client's from the server */
    bool ok = io->role == GW_ROLE_SERVER ? send_cmd(io, 0x02, false, GW_WVALS(GW_WU(EOUDP_F_PLAYER, 7)))
                                         : send_cmd(io, 0x8b, false, GW_WVALS(GW_WU(EOUDP_F_EVENT, 1)));
    if (!ok)
        return GW_FAIL;
    return still_acked(io, "after a command of the other side",
                       "the other side's command was ignored; the next packet that must be acknowledged was");
}

static const gw_conform_case case_commands_wrong_side_ignored = {
    "eoudp/commands/wrong-side-ignored", BOTH, "The other side's command does not break the connection", TEXT_CMDS,
    "command inferior to 0x80 are server commands and superior to 0x80 are client commands.",
    "a connection, an accept (0x02) to a server or an event (0x8b) to a client, then a packet that must be "
    "acknowledged",
    "that packet acknowledged; Fail otherwise",
    wrong_side, GW_MUST};

static gw_verdict generations(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    static const char *const names[] = {"", "21-byte (text)", "22-byte (pad)", "22-byte (important)", "26-byte (f64)"};
    char list[200] = "";
    unsigned n = 0;
    int opts[GW_MAX_OPTIONS];
    eoudp_run *r = run_of(io);
    memcpy(opts, r->opts, sizeof opts);
    ((eoudp_case *)io->case_state)->recording = true;
    for (int gen = EOUDP_GEN_RFC; gen <= EOUDP_GEN_F64; gen++) {
        opts[EOUDP_OPT_GENERATION] = gen;
        uint64_t id = take_id(io);
        /* an important packet in each: the first two generations imply it by
           the command (0x81 and the server's 0x0b..0x10 must be acked) */
        bool imp_byte = gen >= EOUDP_GEN_IMP;
        uint8_t cmd = io->role == GW_ROLE_SERVER ? (imp_byte ? 0x8b : 0x81) : 0x0e;
        /* a payload, so that the two 22-byte headers cannot both fit (the
           text's connect payload for a connect) */
        gw_replay_pdu a;
        if (!send_with(io, opts, cmd, id, true,
                       GW_WVALS(GW_WU(EOUDP_F_EVENT, 1), GW_WU(EOUDP_F_PRESSED, 1), GW_WU(EOUDP_F_ENTITY, 0x42),
                                GW_WU(EOUDP_F_CONNECT_TIMESTAMP, 0), GW_WU(EOUDP_F_CONNECT_ID, 1))))
            return GW_FAIL;
        if (gw_conform_await(io, io->wait_ms, ack_of, &id, &a) == GW_GOT)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n++ ? ", " : "", names[gen]);
    }
    gw_verdict v = gw_conform_say(io, GW_INFO, n ? "acknowledged in the %s header%s"
                                                 : "acknowledged in no header generation%s%s", list, n > 1 ? "s" : "");
    return n ? v : unless_ended(io, v);
}

static const gw_conform_case case_header_generations = {
    "eoudp/header/generations", BOTH, "Which header generations are understood (recorded)", "wire-facts 4.3",
    "Header generations (recognisable because size must equal the datagram length minus the header)",
    "a connection, then an important packet in each of the four header generations",
    "Info: the generations whose packet was acknowledged",
    generations, GW_REFERENCE};

/* ---- the implementation as server ---------------------------------------------------- */

static gw_verdict connect_acked(gw_conform_io *io)
{
    UNLESS_PASS(learn_generation(io));
    uint64_t id = take_id(io);
    if (!send_id(io, 0x81, id, true, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, ack_of, &id, &a);
    if (w == GW_GOT)
        return gw_conform_say(io, GW_PASS, "the connect (id %llu) was acknowledged", (unsigned long long)id);
    return gw_conform_say(io, GW_FAIL, "the connect (id %llu) was not acknowledged within %.1f s",
                          (unsigned long long)id, io->wait_ms / 1000.0);
}

static const gw_conform_case case_connect_acknowledged = {
    "eoudp/connect/acknowledged", GW_ROLE_SERVER, "A connect is acknowledged with its id", TEXT_CMDS,
    "0x81 - Connect MUST get an acknowledge",
    "a connect (0x81), marked important, in the header the server answers (learnt once per run: the 26-byte one, "
    "else the text's 21-byte one, else the 22-byte one with an important byte)",
    "an acknowledge (0x01) carrying the connect's id; Fail otherwise; Skipped when the server answers a connect in "
    "none of those headers",
    connect_acked, GW_MUST};

static gw_verdict connect_answered(gw_conform_io *io)
{
    UNLESS_PASS(learn_generation(io));
    if (!send_cmd(io, 0x81, true, GW_NO_VALUES))
        return GW_FAIL;
    gw_replay_pdu a;
    if (gw_conform_await(io, io->wait_ms, connect_answer, NULL, &a) != GW_GOT)
        return gw_conform_say(io, GW_NON_STRICT, "neither accept (0x02) nor reject (0x03) within %.1f s (the Usage "
                              "section's example shows one; the text has no MUST for it)", io->wait_ms / 1000.0);
    uint64_t player = 0;
    if (a.type == 0x03)
        return gw_conform_say(io, GW_PASS, "rejected (0x03)");
    if (!gw_replay_u(&a, EOUDP_F_PLAYER, &player))
        return gw_conform_say(io, GW_PASS, "accepted, with no content (the Usage section's \"Server -> "
                              "[0x02][Timestamp][Id]\"; the command table gives it [Id])");
    return gw_conform_say(io, GW_PASS, "accepted as player 0x%llx", (unsigned long long)player);
}

static const gw_conform_case case_connect_answered = {
    "eoudp/connect/answered", GW_ROLE_SERVER, "A connect is accepted or rejected", "EOUDP text, Usage",
    "Client -> [0x81][Timestamp][Id] / Server -> [0x02][Timestamp][Id] [...] Server -> [0x03][Timestamp][Id]",
    "a connect (0x81)",
    "accept (0x02), with a player id or with no content (the command table and the Usage section differ), or "
    "reject (0x03); Non-strict when neither comes (an example, no MUST)",
    connect_answered, GW_SHOULD};

static gw_verdict disconnect(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    /* then a connect, which MUST get an acknowledge: its answer ends the
       wait for a 0x11 (gw_conform_probe) */
    uint64_t probe = take_id(io);
    if (!send_cmd(io, 0x82, false, GW_NO_VALUES) || !send_required(io, probe))
        return GW_FAIL;
    int64_t reply = 0x11;
    gw_replay_pdu a;
    bool answered;
    gw_wait w = gw_conform_probe(io, ack_of, &probe, gw_conform_of_type, &reply, &a, &answered);
    if (answered)
        return gw_conform_say(io, GW_INFO, "answered with 0x11, as the text's usage section shows");
    if (w == GW_GOT)
        return gw_conform_say(io, GW_INFO, "no 0x11 before the acknowledge of a connect sent after the disconnect (the "
                              "implementation sends none; the text's usage shows one)");
    return gw_conform_say(io, GW_INFO, "no 0x11 within %.1f s (the text's usage shows one); the connect sent after "
                          "the disconnect was not acknowledged either", io->wait_ms / 1000.0);
}

static const gw_conform_case case_connect_disconnect = {
    "eoudp/connect/disconnect", GW_ROLE_SERVER, "What follows a disconnect (recorded)", "EOUDP text, Usage; wire-facts 4.8",
    "Client -> [0x82][Timestamp][Id][Id] and Server -> [0x11][Timestamp][Id][Id]",
    "a connection, then disconnect (0x82), then a connect (0x81: it MUST get an acknowledge, which ends the wait)",
    "Info: the text's usage shows a 0x11 answer, its details section none, the implementation sends none",
    disconnect, GW_OPEN};

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

static const gw_conform_case case_connect_first = {
    "eoudp/connect/first", GW_ROLE_CLIENT, "The client begins with a connect, marked important", TEXT_CMDS,
    "0x81 - Connect MUST get an acknowledge",
    "nothing: the client's first datagram is read", "a connect (0x81), important where the header says; Fail otherwise",
    connect_first, GW_MUST};

/* EOUDP text, ServerCommand: each command "MUST get an acknowledge", in each
   reading where the text contradicts itself (0x0f's content with or
   without [Content_of_a_component]; 0x10 important events [Event][Bool]
   in the command table, deleted components in the details section) */
static gw_verdict server_commands_acked(gw_conform_io *io)
{
    UNLESS_PASS(open_connection(io));
    static const uint8_t content[] = {1, 0, 0, 0};
    eoudp_run *r = run_of(io);
    enum { RUN = -1 }; /* the run's numbering; else the one that gives 0x10 a reading */
    gw_wval sys = text_value(io, EOUDP_F_SYSTEM, "movement"), ev = text_value(io, EOUDP_F_GAME_EVENTS, "start"),
            comp = text_value(io, EOUDP_F_COMPONENT, "Position");
    const struct {
        uint8_t cmd;
        int numbering;
        const char *reading;
        gw_wval v[4];
    } sends[] = {
        {0x0b, RUN, "", {sys, {.field = GW_W_END}}},
        {0x0c, RUN, "", {GW_WU(EOUDP_F_ENTITY, 0x42), comp, GW_WB(EOUDP_F_CONTENT, content, sizeof content), {.field = GW_W_END}}},
        {0x0d, RUN, "", {ev, {.field = GW_W_END}}},
        {0x0e, RUN, "", {GW_WU(EOUDP_F_ENTITY, 0x42), {.field = GW_W_END}}},
        {0x0f, RUN, " (with its content, as the command table)",
         {GW_WU(EOUDP_F_ENTITY, 0x42), comp, GW_WB(EOUDP_F_CONTENT, content, sizeof content), {.field = GW_W_END}}},
        {0x0f, RUN, " (without content, as the details section)", {GW_WU(EOUDP_F_ENTITY, 0x42), comp, {.field = GW_W_END}}},
        {0x10, EOUDP_NUM_IMPL, " (an important event, as the command table)",
         {GW_WU(EOUDP_F_EVENT, 7), GW_WU(EOUDP_F_PRESSED, 1), {.field = GW_W_END}}},
        {0x10, EOUDP_NUM_TEXT, " (a deleted component, as the details section)",
         {GW_WU(EOUDP_F_ENTITY, 0x42), comp, {.field = GW_W_END}}},
    };
    char missing[300] = "";
    for (size_t i = 0; i < sizeof sends / sizeof sends[0]; i++) {
        bool alternative = i + 1 < sizeof sends / sizeof sends[0] && sends[i + 1].cmd == sends[i].cmd;
        uint64_t id = take_id(io);
        int opts[GW_MAX_OPTIONS];
        memcpy(opts, r->opts, sizeof opts); /* as they are now: the byte order may have been learnt */
        if (sends[i].numbering != RUN)
            opts[EOUDP_OPT_NUMBERING] = sends[i].numbering;
        if (!send_with(io, opts, sends[i].cmd, id, true, sends[i].v))
            return GW_FAIL;
        gw_replay_pdu a;
        gw_wait w = gw_conform_await(io, io->wait_ms, ack_of, &id, &a);
        if (w == GW_GOT) {
            if (alternative)
                i++; /* one reading acknowledged is enough */
            continue;
        }
        if (w == GW_CLOSED)
            return gw_conform_say(io, GW_FAIL, "the client's port closed after 0x%02x", sends[i].cmd);
        if (!alternative)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s0x%02x%s", missing[0] ? ", " : "",
                     sends[i].cmd, sends[i].reading[0] && i && sends[i - 1].cmd == sends[i].cmd ? " (in either reading)" : "");
    }
    if (missing[0])
        return unless_ended(io, gw_conform_say(io, GW_FAIL, "not acknowledged within %.1f s: %s (each MUST get an acknowledge)",
                                               io->wait_ms / 1000.0, missing));
    return gw_conform_say(io, GW_PASS, "0x0b, 0x0c, 0x0d, 0x0e, 0x0f and 0x10 were each acknowledged with its id");
}

static const gw_conform_case case_important_server_commands_acked = {
    "eoudp/important/server-commands-acked", GW_ROLE_CLIENT, "Each server command the text marks is acknowledged",
    "EOUDP text, ServerCommand",
    "0x0b - Send system to load MUST get an acknowledge [...] 0x10 - Send important events [...] MUST get an "
    "acknowledge",
    "a connection, then 0x0b, 0x0c, 0x0d, 0x0e, 0x0f and 0x10, each marked important, one at a time (0x0f with and "
    "without its content, 0x10 as an important event and as a deleted component: the text says both)",
    "each acknowledged with its id (in either reading where the text contradicts itself); Fail otherwise",
    server_commands_acked, GW_MUST};

/* the case is over: end the connection as the text's usage does (a
   client's disconnect, a server's reject), so that a client quits */
static void eoudp_finish(gw_conform_io *io)
{
    send_cmd(io, io->role == GW_ROLE_SERVER ? 0x82 : 0x03, false, GW_NO_VALUES);
}

/* ---- pcaptool fuzz (active/gw_fuzz.h) ------------------------------------------------ */

static const char *const fuzz_states[] = {"connected"};

static gw_verdict fuzz_enter(gw_conform_io *io, unsigned state)
{
    (void)state;
    return open_connection(io);
}

/* the packet the text requires an answer to (a connect to a server, an
   entity's component to a client: each "MUST get an acknowledge"), with
   an id of its own; a server that ended the connection (0x03, the Usage
   section's End) owes it nothing */
static gw_wait fuzz_probe(gw_conform_io *io, const char **what)
{
    static char name[64];
    uint64_t id = take_id(io);
    snprintf(name, sizeof name, "%s #%llu", io->role == GW_ROLE_SERVER ? "connect (0x81)" : "component (0x0c)",
             (unsigned long long)id);
    *what = name;
    if (((eoudp_case *)io->case_state)->ended || !send_required(io, id))
        return GW_CLOSED;
    gw_replay_pdu a;
    gw_wait w = gw_conform_await(io, io->wait_ms, ack_of, &id, &a);
    return w != GW_GOT && ((eoudp_case *)io->case_state)->ended ? GW_CLOSED : w;
}

/* the header's id (a fresh one) and important byte (set but on an
   acknowledge and packet information) before the target's payload, in
   the generation and byte order the run learnt */
static size_t fuzz_build(gw_conform_io *io, const gw_fuzz_target *t, uint8_t *out, size_t cap)
{
    gw_wval v[16] = {GW_WU(EOUDP_F_ID, take_id(io)), GW_WU(EOUDP_F_IMPORTANT, t->type != 0x00 && t->type != 0x01)};
    unsigned k = 2;
    for (const gw_wval *w = t->vals; w->field != GW_W_END && k < 15; w++)
        v[k++] = *w;
    v[k].field = GW_W_END;
    return P->build(io->opts, t->type, v, out, cap);
}

static const uint8_t fuzz_content[] = {1, 0, 0, 0, 2, 0, 0, 0};
static const char fuzz_component[] = "Position";
static const gw_fuzz_target fuzz_targets[] = {
    {"connect", 0, 0x81, GW_NO_VALUES, GW_ROLE_SERVER, false},
    {"important event", 0, 0x8b, GW_WVALS(GW_WU(EOUDP_F_EVENT, 7), GW_WU(EOUDP_F_PRESSED, 1)), GW_ROLE_SERVER, false},
    {"entity component", 0, 0x0c,
     GW_WVALS(GW_WU(EOUDP_F_ENTITY, 0x42), GW_WB(EOUDP_F_COMPONENT, fuzz_component, sizeof fuzz_component - 1),
              GW_WB(EOUDP_F_CONTENT, fuzz_content, sizeof fuzz_content)),
     GW_ROLE_CLIENT, false},
    {"server event", 0, 0x10, GW_WVALS(GW_WU(EOUDP_F_EVENT, 7), GW_WU(EOUDP_F_PRESSED, 1)), GW_ROLE_CLIENT, false},
    {"delete entity", 0, 0x0e, GW_WVALS(GW_WU(EOUDP_F_ENTITY, 0x42)), GW_ROLE_CLIENT, false},
    {"packet information", 0, 0x00, GW_WVALS(GW_WU(EOUDP_F_INFO_RECEIVED, 1), GW_WU(EOUDP_F_INFO_SENT, 1)), BOTH, false},
    {"acknowledge", 0, 0x01, GW_WVALS(GW_WU(EOUDP_F_ACK_ID, 1)), BOTH, false},
};

static const gw_fuzz eoudp_fuzz = {fuzz_states, 1, fuzz_enter, fuzz_targets,
                                   sizeof fuzz_targets / sizeof fuzz_targets[0], fuzz_probe, fuzz_build, NULL};

/* ---- the catalogue ------------------------------------------------------------------ */




/* the catalogue, in its order: each case is defined below its run function */
static const gw_conform_case *const cases[] = {
    &case_connect_acknowledged, &case_connect_answered, &case_connect_disconnect, &case_connect_first,
    &case_important_acknowledged, &case_important_duplicate_acked, &case_important_unimportant_not_acked,
    &case_important_server_commands_acked, &case_commands_unknown_ignored, &case_commands_size_mismatch_ignored,
    &case_commands_truncated_ignored, &case_commands_wrong_side_ignored, &case_header_generations,
};

const gw_conform gw_eoudp_conform = {.transport = GW_TRANSPORT_UDP, .cases = cases,
                                     .n_cases = sizeof cases / sizeof cases[0], .duty = eoudp_duty,
                                     .finish = eoudp_finish, .audit = eoudp_audit, .state_size = sizeof(eoudp_run),
                                     .case_state_size = sizeof(eoudp_case), .fuzz = &eoudp_fuzz};
