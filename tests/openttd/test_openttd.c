/* Unit tests of the OpenTTD decoder on byte vectors written by hand from
 * wire-facts 2 (13.x payloads, 14.x/15.x numbering) and the
 * wiki (0.5 era). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "openttd/openttd.h"
#include "active/gw_replay.h"

PROTOCOL_SUITE(openttd, gw_openttd_protocol);

#define field(abbrev) collect_field(P, abbrev)

#define finding(code) collect_finding(P, code)

/* over TCP, from the side that sends the packet: from the client, or again
   from the server when the decoder says the client does not send it (the
   conversation state is flat, so it can be put back) */
static void dec(const char *hex)
{
    void *before = malloc(P->conv_size);
    memcpy(before, conv, P->conv_size);
    collect_decode(&c, P, conv, 1, 0, 0, hex);
    if (collect_has_finding(&c, finding("openttd.direction.wrong"))) {
        memcpy(conv, before, P->conv_size);
        collect_decode(&c, P, conv, 1, 0, 1, hex);
    }
    free(before);
}

static void dec_udp(const char *hex)
{
    size_t n;
    static uint8_t buf[512];
    n = unhex(hex, buf);
    gw_pdu_info pi = {1, 0, 0, GW_TRANSPORT_UDP};
    collect_init(&c);
    P->decode(conv, &pi, buf, n, &c.sink);
}

static uint64_t U(const char *abbrev, int k)
{
    const gw_item *it = collect_get(&c, field(abbrev), k);
    cr_assert_not_null(it, "%s #%d missing", abbrev, k);
    return it->v.u;
}

static void S(const char *abbrev, int k, const char *expect)
{
    const gw_item *it = collect_get(&c, field(abbrev), k);
    cr_assert_not_null(it, "%s #%d missing", abbrev, k);
    cr_assert_eq(it->v.b.n, strlen(expect), "%s: length %zu", abbrev, it->v.b.n);
    cr_assert(memcmp(it->v.b.p, expect, it->v.b.n) == 0, "%s", abbrev);
}

/* the value's own name, given per release (gw_emit_named_u), or NULL */
static const char *named(const char *abbrev, int k)
{
    const gw_item *it = collect_get(&c, field(abbrev), k);
    cr_assert_not_null(it, "%s #%d missing", abbrev, k);
    return it->label;
}

/* the packet the type means: the generated openttd.packet, by name */
static void packet_is(const char *name)
{
    const gw_item *it = collect_get(&c, field("openttd.packet"), 0);
    cr_assert_not_null(it);
    const char *got = gw_value_name_of(P->fields[field("openttd.packet")].names, (uint32_t)it->v.u);
    cr_assert_str_eq(got, name);
}

static void clean(void)
{
    cr_assert_eq(c.n_findings, 0, "unexpected finding %s",
                 c.n_findings ? P->findings[c.findings[0]].code : "");
}

Test(openttd, framing_sizes)
{
    static const uint8_t s0[] = {0, 0}, s2[] = {2, 0}, s3[] = {3, 0}, big[] = {0xff, 0x7f}, hi[] = {0xff, 0xff};
    cr_assert_eq(P->pdu_length(opt, s0, 1), 0, "one byte: need more");
    cr_assert_eq(P->pdu_length(opt, s0, 2), GW_PDU_INVALID);
    cr_assert_eq(P->pdu_length(opt, s2, 2), GW_PDU_INVALID);
    cr_assert_eq(P->pdu_length(opt, s3, 2), 3);
    cr_assert_eq(P->pdu_length(opt, big, 2), 32767);
    cr_assert_eq(P->pdu_length(opt, hi, 2), GW_PDU_INVALID, "reserved high bit");
    cr_assert_eq(P->pdu_header, 2);
}

Test(openttd, captured_client_join)
{
    /* wire-facts 2.8: "13.0\0" 646d081d "CapClient\0" fe 00 */
    dec("1800 02 31332e3000 646d081d 436170436c69656e7400 fe 00");
    clean();
    cr_assert_eq(U("openttd.size", 0), 24);
    cr_assert_eq(U("openttd.type", 0), 2);
    packet_is("CLIENT_JOIN");
    S("openttd.revision", 0, "13.0");
    cr_assert_eq(U("openttd.newgrf_version", 0), 0x1d086d64);
    S("openttd.name", 0, "CapClient");
    cr_assert_eq(U("openttd.company", 0), 0xfe);
    cr_assert_eq(U("openttd.version", 0), 13);
}

Test(openttd, layouts_of_13x)
{
    /* type, payload, a field and its value */
    static const struct { const char *hex, *packet, *field; uint64_t value; } v[] = {
        {"0300 00", "SERVER_FULL", "openttd.type", 0},
        {"0300 01", "SERVER_BANNED", "openttd.type", 1},
        {"0500 03 09 00", "SERVER_ERROR", "openttd.error_code", 9},
        {"0300 04", "CLIENT_UNUSED", "openttd.size", 3},
        {"0300 07", "CLIENT_GAME_INFO", "openttd.type", 7},
        {"0300 09", "CLIENT_NEWGRFS_CHECKED", "openttd.type", 9},
        {"0300 0a", "SERVER_NEED_GAME_PASSWORD", "openttd.type", 10},
        {"0500 0b 7800", "CLIENT_GAME_PASSWORD", "openttd.size", 5},
        {"0900 0c 39300000 6e00", "SERVER_NEED_COMPANY_PASSWORD", "openttd.generation_seed", 12345},
        {"0500 0d 7800", "CLIENT_COMPANY_PASSWORD", "openttd.size", 5},
        {"0c00 0e 02000000 39300000 00", "SERVER_WELCOME", "openttd.client_id", 2},
        {"0a00 0f 01000000 ff 4100", "SERVER_CLIENT_INFO", "openttd.company", 0xff},
        {"0300 10", "CLIENT_GETMAP", "openttd.type", 16},
        {"0400 11 02", "SERVER_WAIT", "openttd.waiting", 2},
        {"0700 12 e1000000", "SERVER_MAP_BEGIN", "openttd.frame", 225},
        {"0700 13 a4380000", "SERVER_MAP_SIZE", "openttd.map.size", 14500},
        {"0300 15", "SERVER_MAP_DONE", "openttd.type", 21},
        {"0300 16", "CLIENT_MAP_OK", "openttd.type", 22},
        {"0700 17 02000000", "SERVER_JOIN", "openttd.client_id", 2},
        {"0c00 18 e8000000 e9000000 0d", "SERVER_FRAME", "openttd.frame_max", 233},
        {"0800 19 e8000000 0d", "CLIENT_ACK", "openttd.token", 13},
        {"0b00 1a e8000000 b8d3cab6", "SERVER_SYNC", "openttd.seed1", 0xb6cad3b8},
        /* the captured command: company ff, cmd 82, err 0, tile 0, 7 bytes, callback 0 */
        {"1600 1b ff 5200 0000 00000000 0700 00ff0000000000 00", "CLIENT_COMMAND", "openttd.cmd", 82},
        {"1b00 1c ff 5200 0000 00000000 0700 00ff0002000000 00 e9000000 01", "SERVER_COMMAND", "openttd.frame", 233},
        {"1400 1d 03 00 00000000 686900 0000000000000000", "CLIENT_CHAT", "openttd.chat.action", 3},
        {"1200 1e 0a 02000000 00 00 0100000000000000", "SERVER_CHAT", "openttd.chat.data", 1},
        {"0b00 1f 6100 0500 6200 6300", "SERVER_EXTERNAL_CHAT", "openttd.colour", 5},
        {"0700 20 7000 6800", "CLIENT_RCON", "openttd.size", 7},
        {"0700 21 0100 6f00", "SERVER_RCON", "openttd.colour", 1},
        {"0600 22 01 7000", "CLIENT_MOVE", "openttd.company", 1},
        {"0800 23 03000000 01", "SERVER_MOVE", "openttd.client_id", 3},
        {"0500 24 7000", "CLIENT_SET_PASSWORD", "openttd.size", 5},
        {"0500 25 6e00", "CLIENT_SET_NAME", "openttd.size", 5},
        {"0500 26 0000", "SERVER_COMPANY_UPDATE", "openttd.company_mask", 0},
        {"1000 27 0f 436170747572655465737400", "SERVER_CONFIG_UPDATE", "openttd.max_companies", 15},
        {"0300 28", "SERVER_NEWGAME", "openttd.type", 40},
        {"0300 29", "SERVER_SHUTDOWN", "openttd.type", 41},
        {"0300 2a", "CLIENT_QUIT", "openttd.type", 42},
        {"0700 2b 02000000", "SERVER_QUIT", "openttd.client_id", 2},
        {"0400 2c 07", "CLIENT_ERROR", "openttd.error_code", 7},
        {"0800 2d 04000000 0c", "SERVER_ERROR_QUIT", "openttd.error_code", 12},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        teardown();
        setup();
        dec(v[i].hex);
        clean();
        packet_is(v[i].packet);
        cr_assert_eq(U(v[i].field, 0), v[i].value, "%s: %s", v[i].packet, v[i].field);
    }
}

Test(openttd, check_newgrfs_loops_over_its_count)
{
    dec("2c00 08 02 20204444 000102030405060708090a0b0c0d0e0f 04030201 f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    clean();
    cr_assert_eq(U("openttd.grf.count", 0), 2);
    /* the id's bytes in order, as OpenTTD shows it (network_client.cpp:
       "NewGRF {:08X} not found", std::byteswap of the little-endian read) */
    cr_assert_eq(U("openttd.grf.id", 0), 0x20204444);
    cr_assert_eq(U("openttd.grf.id", 1), 0x04030201);
    S("openttd.grf.md5", 1, "\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff");
}

Test(openttd, map_data_header_and_progress)
{
    dec("0700 13 14000000");                     /* MAP_SIZE 20 */
    dec("0f00 14 4f545458 012e 0000 fd377a58");  /* 12 bytes: OTTX, version 302, minor 0 */
    clean();
    S("openttd.savegame.format", 0, "OTTX");
    cr_assert_eq(U("openttd.savegame.version", 0), 302);
    cr_assert_eq(U("openttd.savegame.minor", 0), 0);
    cr_assert_eq(U("openttd.map.received", 0), 12);
    cr_assert_eq(U("openttd.map.total", 0), 20);
    dec("0b00 14 5a000001 69220000");
    cr_assert_eq(U("openttd.map.received", 0), 20);
    dec("0300 15");
    clean();
    dec("0300 15"); /* a second MAP_DONE: still 20 of 20 */
    clean();
}

Test(openttd, map_that_does_not_add_up)
{
    dec("0700 13 14000000");
    dec("0b00 14 4f545458 012e 0000");
    dec("0300 15");
    cr_assert(collect_has_finding(&c, finding("openttd.map.size_mismatch")));
}

/* the wiki's PACKET_SERVER_COMMAND: PlayerID u8, CommandID u32, P1, P2,
   Tile, ten u32 decode_params, CallBackID u8, "Frame of execution" u32: the
   frame is read, so a command for a frame the server already sent is
   caught in that era too (SERVER_FRAME is 15 there, COMMAND 19) */
/* The wiki's command (0.4): ten u32 decode_params after the tile, the
   callback, the server's "Uint32: Frame of execution". It applies while no
   0.5 - 0.7 revision was seen: here the numbering is forced. */
Test(openttd, wiki_commands_have_their_frame)
{
    opt[OTTD_OPT_VERSION] = OTTD_V_OLD;
    dec("0b00 0f 64000000 69000000");               /* FRAME 100, max 105 */
    dec("4100 13 00 05000000 01000000 02000000 2c010000"
        " 00000000 01000000 02000000 03000000 04000000 05000000 06000000 07000000 08000000 09000000"
        " 00 6e000000");                            /* SERVER_COMMAND for frame 110 */
    clean();
    packet_is("SERVER_COMMAND");
    cr_assert_eq(U("openttd.cmd.decode_param", 9), 9);
    cr_assert_eq(U("openttd.frame", 0), 110);
    cr_assert_null(named("openttd.cmd.callback", 0)); /* 13.x's callback names are not the wiki's */
    dec("4100 13 00 05000000 01000000 02000000 2c010000"
        " 00000000 01000000 02000000 03000000 04000000 05000000 06000000 07000000 08000000 09000000"
        " 00 63000000");                            /* for frame 99: passed */
    cr_assert(collect_has_finding(&c, finding("openttd.command.frame_passed")));
}

/* 0.7 network_client.cpp: SendJoin revision, client name, playas, language,
   network_id; the command "uint8: CompanyID, uint32: CommandID, uint32: P1,
   uint32: P2, uint32: Tile, string: text, uint8: CallBackID", and from the
   server cp.frame = Recv_uint32(), cp.my_cmd = Recv_bool(). */
Test(openttd, commands_07_have_text_frame_and_my_cmd)
{
    dec("1100 02 302e372e3500 4100 01 00 61626300"); /* "0.7.5", "A", company 1, id "abc" */
    clean();
    S("openttd.unique_id", 0, "abc");
    dec("0b00 0f 64000000 69000000");               /* FRAME 100, max 105 */
    dec("1800 12 00 05000000 01000000 02000000 2c010000 676f00 03"); /* CLIENT_COMMAND */
    clean();
    packet_is("CLIENT_COMMAND");
    cr_assert_eq(U("openttd.cmd.word", 0), 5);
    cr_assert_eq(U("openttd.cmd.tile", 0), 300);
    S("openttd.cmd.text", 0, "go");
    cr_assert_eq(U("openttd.cmd.callback", 0), 3);
    dec("1d00 13 00 05000000 01000000 02000000 2c010000 676f00 03 6e000000 01");
    clean();
    packet_is("SERVER_COMMAND");
    cr_assert_eq(U("openttd.frame", 0), 110);
    cr_assert_eq(U("openttd.cmd.own", 0), 1);
    dec("1d00 13 00 05000000 01000000 02000000 2c010000 676f00 03 63000000 00"); /* frame 99: passed */
    cr_assert(collect_has_finding(&c, finding("openttd.command.frame_passed")));
}

/* 0.5 network_server.c / 0.6 network_client.cpp: the command's text and
   frame, no my_cmd; u16 client indexes; the unique id after the name. */
Test(openttd, layouts_05_06_from_the_source)
{
    dec("1100 02 302e362e3300 4100 01 00 61626300"); /* "0.6.3" */
    clean();
    dec("1c00 13 00 05000000 01000000 02000000 2c010000 676f00 03 6e000000");
    clean();
    S("openttd.cmd.text", 0, "go");
    cr_assert_eq(U("openttd.frame", 0), 110);
    /* 0.6 DoCommandP sends cmd with its flags (NetworkSend_Command(tile, p1,
       p2, cmd, callback)); command.h: the id is cmd & 0xFF, CMD_AUTO 0x0200,
       CMD_NO_WATER 0x0400, CMD_MSG(x) ((x)<<16). CMD_BUILD_SINGLE_RAIL (2)
       | CMD_AUTO | CMD_NO_WATER | CMD_MSG(0x1011) = 0x10110602. */
    dec("1600 12 00 02061110 01000000 02000000 2c010000 00 00");
    clean();
    cr_assert_eq(U("openttd.cmd.word", 0), 0x10110602);
    cr_assert_eq(U("openttd.cmd.word.id", 0), 2);
    cr_assert_eq(U("openttd.cmd.word.flags", 0), 0x06);
    cr_assert_eq(U("openttd.cmd.error_message", 0), 0x1011);
    cr_assert_str_eq(c.summary, "CLIENT_COMMAND cmd 2");
    dec("0500 09 0300");                            /* SERVER_WELCOME: uint16 own client id */
    clean();
    cr_assert_eq(U("openttd.client_id", 0), 3);
    dec("0d00 06 0300 01 4200 7569643100");         /* SERVER_CLIENT_INFO: index, playas, name, unique id */
    clean();
    S("openttd.name", 0, "B");
    S("openttd.unique_id", 0, "uid1");
    dec("0a00 15 03 0300 01 686900");               /* SERVER_CHAT: action, u16 index, self_send, "hi" */
    clean();
    cr_assert_eq(U("openttd.client_id", 0), 3);
    S("openttd.chat.message", 0, "hi");
    dec("0800 1a 0300 627900");                     /* SERVER_QUIT: u16 index, leave message */
    clean();
    S("openttd.reason", 0, "by");
    dec("0600 1b 0300 0c");                         /* SERVER_ERROR_QUIT: u16 index, KICKED */
    clean();
    cr_assert_eq(U("openttd.error_code", 0), 12);
    /* SERVER_MAP start: "Send_uint32(_frame_counter); Send_uint32(ftell(file_pointer))" */
    dec("0c00 0c 00 64000000 0a000000");
    clean();
    cr_assert_eq(U("openttd.map.size", 0), 10);
    dec("0d00 0c 01 4f54545800030000 01");          /* 9 of the 10 bytes */
    clean();
    dec("0400 0c 02");                              /* MAP_PACKET_END */
    cr_assert(collect_has_finding(&c, finding("openttd.map.size_mismatch")));
}

Test(openttd, version_from_the_revision)
{
    dec("0c00 02 31342e3100 00000000 4100 fe 00"); /* "14.1" */
    cr_assert_eq(U("openttd.version", 0), 14);
    dec("0300 08");                                 /* 8 is SERVER_NEWGAME in 14.x */
    packet_is("SERVER_NEWGAME");
    teardown();
    setup();
    dec("1100 02 302e372e3500 4100 01 00 61626300"); /* "0.7.5" */
    clean();
    cr_assert_eq(U("openttd.version", 0), OTTD_V_OLD);
    S("openttd.name", 0, "A");
    dec("0e00 09 02000000 78563412 696400");         /* 9 is SERVER_WELCOME: u32 id, seed, network id */
    clean();
    packet_is("SERVER_WELCOME");
    cr_assert_eq(U("openttd.client_id", 0), 2);
    cr_assert_eq(U("openttd.generation_seed", 0), 0x12345678);
    S("openttd.network_id", 0, "id");
    dec("0b00 07 01 78563412 696400");              /* NEED_PASSWORD company: + seed, network id */
    clean();
    cr_assert_eq(U("openttd.password_type", 0), 1);
    dec("0400 07 00");                              /* game password: the type alone */
    clean();
    teardown();
    setup();
    dec("0d00 02 302e342e3800 4100 01 00");         /* "0.4.8": the wiki's layouts */
    clean();
    dec("0400 09 02");                              /* SERVER_WELCOME, the wiki's Uint8 */
    clean();
    cr_assert_eq(U("openttd.client_id", 0), 2);
    teardown();
    setup();
    dec("0e00 02 312e31302e3300 00000000 00 fe 00"); /* "1.10.3": not a known numbering */
    cr_assert(collect_has_finding(&c, finding("openttd.version.assumed")));
    cr_assert_eq(U("openttd.version", 0), 13);
}

/* Command ids are positions in enum Commands (src/command_type.h), which
   differs between releases; read from the releases' sources (Debian's
   openttd_13.0 and openttd_14.1 orig tarballs): 46 is CMD_INDUSTRY_CTRL in
   13.0 and CMD_INDUSTRY_SET_FLAGS in 14.1 (which split it in four), 135 is
   CMD_END in 13.0 and CMD_UPDATE_LEAGUE_TABLE_ELEMENT_DATA in 14.1; callback
   23 is CcBuildIndustry (network_command.cpp, _callback_tuple, the same in
   both). The layouts: NetworkGameSocketHandler::SendCommand, with the u32
   tile only in 13.0. A release not read here (15.x, a guessed 1.x) keeps
   the number. */
Test(openttd, commands_named_by_release)
{
    dec("0c00 02 31332e3000 00000000 4100 fe 00");  /* JOIN "13.0" */
    dec("0f00 1b 00 2e00 0000 00000000 0000 17");     /* CLIENT_COMMAND */
    clean();
    cr_assert_eq(U("openttd.cmd", 0), 46);
    cr_assert_str_eq(named("openttd.cmd", 0), "CMD_INDUSTRY_CTRL");
    cr_assert_str_eq(named("openttd.cmd.callback", 0), "CcBuildIndustry");
    cr_assert_str_eq(c.summary, "CLIENT_COMMAND CMD_INDUSTRY_CTRL");
    dec("0f00 1b 00 8700 0000 00000000 0000 1b");     /* 135 = CMD_END, callback 27: past the tables */
    cr_assert_null(named("openttd.cmd", 0));
    cr_assert_null(named("openttd.cmd.callback", 0));
    cr_assert_str_eq(c.summary, "CLIENT_COMMAND cmd 135");
    teardown();
    setup();
    dec("0c00 02 31342e3100 00000000 4100 fe 00");  /* JOIN "14.1" */
    dec("0b00 1d 00 2e00 0000 0000 17");              /* CLIENT_COMMAND, no tile */
    clean();
    cr_assert_str_eq(named("openttd.cmd", 0), "CMD_INDUSTRY_SET_FLAGS");
    cr_assert_str_eq(named("openttd.cmd.callback", 0), "CcBuildIndustry");
    dec("0b00 1d 00 8700 0000 0000 00");
    cr_assert_str_eq(named("openttd.cmd", 0), "CMD_UPDATE_LEAGUE_TABLE_ELEMENT_DATA");
    cr_assert_str_eq(named("openttd.cmd.callback", 0), "none");
    teardown();
    setup();
    dec("0e00 02 312e31302e3300 00000000 00 fe 00"); /* "1.10.3": 13.x numbering assumed */
    dec("0f00 1b 00 2e00 0000 00000000 0000 17");
    clean();
    cr_assert_eq(U("openttd.cmd", 0), 46);
    cr_assert_null(named("openttd.cmd", 0));
    cr_assert_null(named("openttd.cmd.callback", 0));
    cr_assert_str_eq(c.summary, "CLIENT_COMMAND cmd 46");
    teardown();
    setup();
    dec("0f00 1b 00 2e00 0000 00000000 0000 17");     /* no revision seen: the default numbering */
    cr_assert_null(named("openttd.cmd", 0));
    teardown();
    setup();
    opt[OTTD_OPT_VERSION] = OTTD_V14;                    /* the user says 14.x */
    dec("0b00 1d 00 2e00 0000 0000 17");
    cr_assert_str_eq(named("openttd.cmd", 0), "CMD_INDUSTRY_SET_FLAGS");
    opt[OTTD_OPT_VERSION] = OTTD_V15;
    dec("0b00 1d 00 2e00 0000 0000 17");
    cr_assert_null(named("openttd.cmd", 0));
}

Test(openttd, forced_numbering_wins)
{
    opt[OTTD_OPT_VERSION] = OTTD_V15;
    dec("0c00 02 31332e3000 00000000 4100 fe 00"); /* says 13.0 */
    cr_assert_eq(U("openttd.version", 0), 15);
    dec("0300 0c");
    packet_is("SERVER_ENABLE_ENCRYPTION");
    dec("1600 eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee 0102030405");
    cr_assert(collect_has_finding(&c, finding("openttd.encrypted_packet")));
    S("openttd.mac", 0, "\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee\xee");
}

/* 15.x as its own code writes it (network_client.cpp: SendJoin revision +
   NewGRF version, SendIdentify name + company, SendMove company,
   ReceiveServerClientInfo id + company + name + public key,
   ReceiveServerWelcome the client id; network_crypto.cpp: the X25519
   request's method, 32-byte key, 24-byte nonce; the response's key, 16-byte
   MAC, 8-byte message; the 24-byte encryption nonce; network_type.h: error
   21 NOT_ON_ALLOW_LIST, 22 NO_AUTHENTICATION_METHOD_AVAILABLE). Before,
   every 15.x join was read with the 13.x layout and was "truncated". */
Test(openttd, layouts_15_from_the_source)
{
    dec("0c00 02 31352e3000 0000001f");                 /* JOIN: learns 15.x */
    clean();
    cr_assert_eq(U("openttd.version", 0), 15);
    S("openttd.revision", 0, "15.0");
    cr_assert_eq(U("openttd.newgrf_version", 0), 0x1f000000);
    dec("3c00 0a 02 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34 35 36 37");
    clean();
    packet_is("SERVER_AUTH_REQUEST");
    cr_assert_eq(U("openttd.auth.method", 0), 2);
    dec("3b00 0b 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 a0 b0 b0 b0 b0 b0 b0 b0 b0");
    clean();
    packet_is("CLIENT_AUTH_RESPONSE");
    dec("1b00 0c 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34 35 36 37");                                   /* ENABLE_ENCRYPTION */
    clean();
    dec("1600 eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee 0102030405");
    cr_assert(collect_has_finding(&c, finding("openttd.encrypted_packet")));
}

/* what a 15.x connection sends encrypted, in the clear as a decryptor
   would show it */
Test(openttd, layouts_15_after_the_key_exchange)
{
    dec("0c00 02 31352e3000 0000001f");
    dec("0b00 0d 54657374657200 ff");                    /* IDENTIFY "Tester", spectator */
    clean();
    S("openttd.name", 0, "Tester");
    dec("0700 10 05000000");                             /* WELCOME client 5 */
    clean();
    cr_assert_eq(U("openttd.client_id", 0), 5);
    dec("1400 11 05000000 00 54657374657200 6162636400"); /* CLIENT_INFO, key "abcd" */
    clean();
    S("openttd.public_key", 0, "abcd");
    dec("0400 24 01");                                   /* MOVE to company 1 */
    clean();
    packet_is("CLIENT_MOVE");
    dec("0400 03 15");
    clean();
    cr_assert_str_eq(gw_value_name_of(P->fields[field("openttd.error_code")].names, (uint32_t)U("openttd.error_code", 0)),
                     "NOT_ON_ALLOW_LIST");
    dec("0400 03 16");
    cr_assert_str_eq(gw_value_name_of(P->fields[field("openttd.error_code")].names, (uint32_t)U("openttd.error_code", 0)),
                     "NO_AUTHENTICATION_METHOD_AVAILABLE");
}

Test(openttd, game_info_7_has_ticks)
{
    dec("3100 06 07 1400000000000000 00 03000000 475300 00 10000000 20000000 0f 01 0a"
        " 5300 31342e3100 00 19 02 00 0001 8000 01 01");
    clean();
    cr_assert_eq(U("openttd.gi.version", 0), 7);
    cr_assert_eq(U("openttd.gi.ticks_playing", 0), 20);
    S("openttd.revision", 0, "14.1");
    cr_assert_eq(U("openttd.gi.map_width", 0), 256);
    cr_assert_eq(U("openttd.gi.map_height", 0), 128);
    cr_assert_eq(U("openttd.version", 0), 13, "this packet read with the default");
    dec("0300 09");
    packet_is("SERVER_SHUTDOWN"); /* and the next with 14.x, learned from it */
}

/* Game info version 5, laid out as OpenTTD's DeserializeNetworkGameInfo
   reads it: gs version (-1: none) and name, 1 NewGRF (id, MD5), u32 dates,
   companies, names, the language byte and the map name (both "while
   game_info_version < 6"), clients, map size, landscape, dedicated. */
Test(openttd, game_info_5_has_language_and_map_name)
{
    dec("3f00 06 05 ffffffff 00 01 04030201 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 90230b00 a81f0b00 0f 01 0a"
        " 5300 31332e3000 00 00 19 02 00 4d617000 0001 8000 01 01");
    clean();
    cr_assert_eq(U("openttd.gi.version", 0), 5);
    cr_assert_eq(U("openttd.gi.gs_version", 0), 4294967295u);
    cr_assert_eq(U("openttd.grf.id", 0), 0x04030201, "its bytes in order");
    cr_assert_eq(U("openttd.gi.game_date", 0), 730000);
    cr_assert_eq(U("openttd.language", 0), 0);
    cr_assert_eq(U("openttd.gi.clients_max", 0), 25);
    S("openttd.gi.map_name", 0, "Map");
    cr_assert_eq(U("openttd.gi.map_width", 0), 256);
    cr_assert_eq(U("openttd.gi.map_height", 0), 128);
    cr_assert_eq(U("openttd.gi.landscape", 0), 1);
}

/* version 6 with NewGRFs by lookup id (serialisation 2): a u32 each */
Test(openttd, game_info_6_lookup_ids)
{
    dec("2c00 06 06 02 00000000 00 02 07000000 08000000 01000000 01000000 01 00 01"
        " 5300 3100 00 02 01 00 1000 1000 00 00");
    clean();
    cr_assert_eq(U("openttd.grf.lookup_id", 0), 7);
    cr_assert_eq(U("openttd.grf.lookup_id", 1), 8);
    cr_assert_eq(U("openttd.gi.map_width", 0), 16);
}

Test(openttd, udp_discovery)
{
    dec_udp("0300 00");
    clean();
    packet_is("UDP CLIENT_FIND_SERVER");
    dec_udp("0300 01");
    clean();
    packet_is("UDP SERVER_RESPONSE");
    dec_udp("0500 01"); /* size 5, 3 bytes there */
    cr_assert(collect_has_finding(&c, finding("openttd.truncated")));
}

/* The UDP set before 12.0 as OpenTTD's sources write it: 0.7
   network_udp.cpp (REGISTER "WELCOME_MESSAGE, Version, server_port",
   UNREGISTER "Version, server_port", GET_LIST "only contains protocol
   version", NEWGRF request and reply, MASTER_RESPONSE_LIST "version ... an
   uint16 which indicates how many ip:port pairs ... an uint32 (ip) and an
   uint16 (port)"); 1.x core/udp.h and network_udp.cpp (REGISTER adds "uint64
   The session key", GET_LIST "uint8 The type of server to look for",
   MASTER_SESSION_KEY "uint64 The session key", the list's first byte is the
   ServerListType plus one, 4 or 16 address bytes). */
Test(openttd, udp_master_server_and_newgrfs)
{
    dec_udp("1600 04 4f70656e54544452656769737465720001 8b0f");
    clean();
    packet_is("UDP SERVER_REGISTER");
    S("openttd.master.welcome", 0, "OpenTTDRegister");
    cr_assert_eq(U("openttd.master.version", 0), 1);
    cr_assert_eq(U("openttd.master.port", 0), 3979);
    dec_udp("1e00 04 4f70656e54544452656769737465720002 8b0f 0807060504030201");
    clean();
    cr_assert_eq(U("openttd.master.session_key", 0), 0x0102030405060708ull);
    dec_udp("0300 05");
    clean();
    packet_is("UDP MASTER_ACK_REGISTER");
    dec_udp("0600 08 02 8b0f");
    clean();
    packet_is("UDP SERVER_UNREGISTER");
    cr_assert_eq(U("openttd.master.port", 0), 3979);
    dec_udp("0400 06 01");
    clean();
    packet_is("UDP CLIENT_GET_LIST");
    dec_udp("0500 06 02 02");
    clean();
    cr_assert_eq(U("openttd.master.list_type", 0), 2);
    dec_udp("1200 07 01 0200 c0a80001 8b0f 0a000002 8c0f");
    clean();
    packet_is("UDP MASTER_RESPONSE_LIST");
    cr_assert_eq(U("openttd.master.servers", 0), 2);
    const gw_item *a4 = collect_get(&c, field("openttd.master.ipv4"), 0);
    cr_assert(a4 && a4->v.b.n == 4 && !memcmp(a4->v.b.p, "\xc0\xa8\x00\x01", 4), "192.168.0.1");
    cr_assert_eq(U("openttd.master.server_port", 0), 3979);
    a4 = collect_get(&c, field("openttd.master.ipv4"), 1);
    cr_assert(a4 && a4->v.b.n == 4 && !memcmp(a4->v.b.p, "\x0a\x00\x00\x02", 4), "10.0.0.2");
    cr_assert_eq(U("openttd.master.server_port", 1), 3980);
    dec_udp("1800 07 02 0100 20010db8000000000000000000000001 8b0f");
    clean();
    const gw_item *a6 = collect_get(&c, field("openttd.master.ipv6"), 0);
    cr_assert(a6 && a6->v.b.n == 16 && a6->v.b.p[0] == 0x20 && a6->v.b.p[15] == 1);
    dec_udp("1200 07 01 0300 c0a80001 8b0f 0a000002 8c0f"); /* says 3, has 2 */
    cr_assert(collect_has_finding(&c, finding("openttd.truncated")));
    dec_udp("1800 09 01 44443301 00112233445566778899aabbccddeeff");
    clean();
    packet_is("UDP CLIENT_GET_NEWGRFS");
    cr_assert_eq(U("openttd.grf.id", 0), 0x44443301);
    dec_udp("1a00 0a 01 44443301 00112233445566778899aabbccddeeff 4e00");
    clean();
    S("openttd.grf.name", 0, "N");
    dec_udp("0b00 0b 0807060504030201");
    clean();
    packet_is("UDP MASTER_SESSION_KEY");
    cr_assert_eq(U("openttd.master.session_key", 0), 0x0102030405060708ull);
}

#define COMPANY_BLOCK "00 416200 9e070000 a086010000000000 fbffffffffffffff 2c01000000000000 2a00 01" \
    " 0100 0200 0300 0400 0500 0600 0700 0800 0900 0a00"

/* SERVER_DETAIL_INFO by company info version: 4 (0.5 network_udp.c: after
   each company its clients, "The uint8 == 1 indicates that a client is
   following", name, unique id, join date, and 0; then the spectators), 5
   (0.7 Send_CompanyInformation: the company alone), 6 (1.x: "bool Company
   is an AI" at the end) */
Test(openttd, udp_detail_info_versions)
{
    dec_udp("3c00 03 05 01 " COMPANY_BLOCK);
    clean();
    packet_is("UDP SERVER_DETAIL_INFO");
    S("openttd.ci.name", 0, "Ab");
    cr_assert_eq((int64_t)U("openttd.ci.money", 0), -5);
    cr_assert_eq(U("openttd.ci.stations.dock", 0), 10);
    dec_udp("3d00 03 06 01 " COMPANY_BLOCK " 01");
    clean();
    cr_assert_eq(U("openttd.ci.is_ai", 0), 1);
    dec_udp("5000 03 04 01 " COMPANY_BLOCK " 01 4300 7500 05000000 00  01 5300 7600 06000000 00");
    clean();
    S("openttd.name", 0, "C");
    S("openttd.unique_id", 0, "u");
    cr_assert_eq(U("openttd.ci.join_date", 0), 5);
    S("openttd.name", 1, "S");
    cr_assert_eq(U("openttd.ci.join_date", 1), 6);
    dec_udp("3d00 03 05 01 " COMPANY_BLOCK " 01"); /* version 5 has no is_ai */
    cr_assert(collect_has_finding(&c, finding("openttd.trailing_bytes")));
}

/* gfx_type.h TextColour: TC_RED = 0x03 (console_type.h CC_ERROR) */
Test(openttd, rcon_colour_by_name)
{
    dec("0800 21 0300 6f6b00"); /* 13.x SERVER_RCON */
    clean();
    cr_assert_eq(U("openttd.colour", 0), 3);
    cr_assert_str_eq(gw_value_name_of(P->fields[field("openttd.colour")].names, 3), "RED");
    cr_assert_str_eq(gw_value_name_of(P->fields[field("openttd.colour")].names, 13), "LIGHT_BLUE");
}

Test(openttd, damaged_packets)
{
    dec("0000 1d000000");
    cr_assert(collect_has_finding(&c, finding("openttd.size.invalid")));
    dec("0600 25 414243");                          /* name without NUL */
    cr_assert(collect_has_finding(&c, finding("openttd.string.unterminated")));
    dec("0900 17 03000000 ffff");                    /* JOIN + 2 bytes */
    cr_assert(collect_has_finding(&c, finding("openttd.trailing_bytes")));
    dec("0500 63 0102");                             /* type 99 */
    cr_assert(collect_has_finding(&c, finding("openttd.type.unknown")));
    dec("0700 18 0a000000");                         /* FRAME without frame_max */
    cr_assert(collect_has_finding(&c, finding("openttd.truncated")));
}

Test(openttd, frame_analysis)
{
    dec("0c00 18 64000000 69000000 01");  /* frame 100, max 105 */
    dec("0800 19 62000000 01");           /* ack 98: 2 behind */
    clean();
    cr_assert_eq(U("openttd.ack_lag", 0), 2);
    dec("0800 19 6e000000 01");           /* ack 110 > max 105 */
    cr_assert(collect_has_finding(&c, finding("openttd.ack.beyond_frame_max")));
    dec("0c00 18 63000000 69000000 01");  /* frame 99 after 100 */
    cr_assert(collect_has_finding(&c, finding("openttd.frame.backwards")));
}

Test(openttd, heuristic)
{
    uint8_t b[64];
    size_t n = unhex("1800 02 31332e3000 646d081d 436170436c69656e7400 fe 00", b);
    cr_assert(P->heuristic(opt, GW_TRANSPORT_TCP, b, n));
    n = unhex("0300 07", b); /* CLIENT_GAME_INFO: three bytes claim no TCP conversation */
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_TCP, b, n));
    n = unhex("0300 00", b);
    cr_assert(P->heuristic(opt, GW_TRANSPORT_UDP, b, n));
    n = unhex("474554202f20485454502f312e310d0a", b); /* "GET / HTTP/1.1" */
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_TCP, b, n));
    n = unhex("160301 0200 01", b);                  /* a TLS record */
    cr_assert_not(P->heuristic(opt, GW_TRANSPORT_TCP, b, n));
}

/* ---- pcaptool replay's hooks ---- */

#define T GW_TRANSPORT_TCP

/* the packet value (openttd.packet) of a name */
static int64_t pk(const char *name)
{
    const gw_value_name *n = P->fields[field("openttd.packet")].names;
    for (; n->name; n++)
        if (strcmp(n->name, name) == 0)
            return n->value;
    cr_assert_fail("no packet %s", name);
    return -1;
}

/* a packet decoded as replay hands it to the hooks (dir 1: the server's) */
static const gw_replay_pdu *pdu(replay_pdu *x, void *cv, int dir, const char *hex)
{
    return replay_pdu_decode(x, P, cv, dir, T, hex);
}

/* the same from the live server */
static const gw_replay_pdu *live(replay_pdu *x, void *cv, const char *hex)
{
    replay_pdu_decode(x, P, cv, 1, T, hex);
    return replay_pdu_live(x);
}

/* welcomed as client 7 by the live server, as client 2 in the recording */
static void welcomed(void *st, void *rec_conv, void *live_conv)
{
    replay_pdu x;
    gw_replay_of(P)->recorded(st, pdu(&x, rec_conv, 1, "0c 00 0e  02 00 00 00  39 30 00 00  00"), false);
    gw_replay_of(P)->observe(st, live(&x, live_conv, "0c 00 0e  07 00 00 00  39 30 00 00  00"), false);
}

Test(openttd, replay_need)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    replay_pdu x;
    const gw_replay_pdu *p = pdu(&x, conv, 1, "0b 00 18  e8 00 00 00  e8 00 00 00"); /* SERVER_FRAME, no token */
    cr_assert_eq(p->type, pk("SERVER_FRAME"));
    cr_assert_eq(r->need(st, p), GW_REPLAY_PERIODIC);
    p = pdu(&x, conv, 1, "0c 00 18  e8 00 00 00  e8 00 00 00  0d");    /* token 0x0d */
    cr_assert_eq(r->need(st, p), GW_REPLAY_ANSWER);
    p = pdu(&x, conv, 1, "03 00 15"); /* SERVER_MAP_DONE */
    cr_assert_eq(p->type, pk("SERVER_MAP_DONE"));
    cr_assert_eq(r->need(st, p), GW_REPLAY_ANSWER);
    p = pdu(&x, conv, 1, "07 00 1a  0a 00 00 00"); /* SERVER_SYNC, frame 10 */
    cr_assert_eq(p->type, pk("SERVER_SYNC"));
    cr_assert_eq(r->need(st, p), GW_REPLAY_OPTIONAL);
    /* SERVER_COMMAND: the echo of ours (my_cmd, the last byte, 1) answers it */
    p = pdu(&x, conv, 1, "1b 00 1c 00 52 00 00 00 00 00 00 00 05 00 01 02 03 04 05 00 e9 00 00 00 01");
    cr_assert_eq(p->type, pk("SERVER_COMMAND"));
    cr_assert_eq(r->need(st, p), GW_REPLAY_ANSWER);
    p = pdu(&x, conv, 1, "1b 00 1c 00 52 00 00 00 00 00 00 00 05 00 01 02 03 04 05 00 ea 00 00 00 00");
    cr_assert_eq(r->need(st, p), GW_REPLAY_OPTIONAL);
    free(st);
}

Test(openttd, replay_ack_follows_the_live_frames_and_token)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    void *live_conv = test_conv_new(P, opt);
    replay_pdu x, y;
    uint8_t ack[16];
    /* recorded CLIENT_ACK: frame 232 (0xe8), token 0x0d */
    const gw_replay_pdu *rec = pdu(&x, conv, 0, "08 00 19  e8 00 00 00  0d");
    cr_assert_eq(rec->type, pk("CLIENT_ACK"));
    /* nothing learnt yet: sent as recorded */
    memcpy(ack, rec->data, rec->len);
    r->adapt(st, rec, ack);
    cr_assert_arr_eq(ack, rec->data, rec->len);
    /* the live server's frame 0x1234 with token 0x5a, then frame 0x1235
       without one: ack 0x1235, token 0x5a */
    r->observe(st, pdu(&y, live_conv, 1, "0c 00 18  34 12 00 00  34 12 00 00  5a"), false);
    r->observe(st, pdu(&y, live_conv, 1, "0b 00 18  35 12 00 00  35 12 00 00"), false);
    r->adapt(st, rec, ack);
    uint8_t want[8];
    unhex("08 00 19  35 12 00 00  5a", want);
    cr_assert_arr_eq(ack, want, 8);
    test_conv_free(P, live_conv);
    free(st);
}

Test(openttd, replay_match_checks_our_client_id_and_command)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    void *live_conv = test_conv_new(P, opt);
    replay_pdu x, y;
    char why[200] = "";
    welcomed(st, conv, live_conv);
    /* SERVER_JOIN of the recorded client 2, ours: it answers; the live one
       must name 7. Another client's join, recorded or live, is optional. */
    const gw_replay_pdu *rec = pdu(&x, conv, 1, "07 00 17  02 00 00 00");
    cr_assert_eq(rec->type, pk("SERVER_JOIN"));
    cr_assert_eq(r->need(st, rec), GW_REPLAY_ANSWER);
    cr_assert_eq(r->need(st, pdu(&y, conv, 1, "07 00 17  03 00 00 00")), GW_REPLAY_OPTIONAL);
    cr_assert_eq(r->need(st, live(&y, live_conv, "07 00 17  07 00 00 00")), GW_REPLAY_ANSWER);
    cr_assert_eq(r->need(st, live(&y, live_conv, "07 00 17  02 00 00 00")), GW_REPLAY_OPTIONAL);
    cr_assert(r->match(st, rec, live(&y, live_conv, "07 00 17  07 00 00 00"), why, sizeof why));
    cr_assert_not(r->match(st, rec, live(&y, live_conv, "07 00 17  03 00 00 00"), why, sizeof why));
    cr_assert_str_eq(why, "announces client 3, but the server welcomed us as client 7");
    /* the echo of our command 82 (0x52) must be command 82 */
    rec = pdu(&x, conv, 1, "1b 00 1c 00 52 00 00 00 00 00 00 00 05 00 01 02 03 04 05 00 e9 00 00 00 01");
    cr_assert_not(r->match(st, rec, pdu(&y, live_conv, 1, "1b 00 1c 00 38 00 00 00 00 00 00 00 05 00 01 02 03 04 05 00 e9 00 00 00 01"),
                           why, sizeof why));
    cr_assert_str_eq(why, "echoes command 56, recorded 82");
    /* a SERVER_ERROR's code must be the recorded one: 10 WRONG_PASSWORD */
    rec = pdu(&x, conv, 1, "04 00 03 0a");
    cr_assert_eq(rec->type, pk("SERVER_ERROR"));
    cr_assert_not(r->match(st, rec, pdu(&y, live_conv, 1, "04 00 03 08"), why, sizeof why));
    cr_assert_str_eq(why, "error 8, recorded 10");
    test_conv_free(P, live_conv);
    free(st);
}

/* The packets the wiki leaves out, from the servers that send them. 0.7.x
   network_server.cpp, SERVER_COMPANY_INFO (type 5): u8 version (5), u8
   active companies, u8 index, string name, u32 inaugurated year, u64 value,
   money, income, u16 performance, bool password, 5 u16 vehicle counts, 5
   u16 station counts, string of client names; "version, 0" ends the list.
   1.0 network_server.cpp, in this numbering 34 SERVER_MOVE (u32 client id,
   u8 company), 35 CLIENT_MOVE (u8 company, the password only for a
   company that has one), 36 SERVER_COMPANY_UPDATE (u16 mask), 37
   SERVER_CONFIG_UPDATE (u8 max_companies, u8 max_spectators). */
Test(openttd, old_company_info_move_and_updates)
{
    dec("1100 02 302e372e3500 4100 01 00 61626300"); /* "0.7.5" */
    dec("3e00 05 05 01 00 416200 9e070000"
        " a086010000000000 fbffffffffffffff 2c01000000000000 2a00 01"
        " 0100 0200 0300 0400 0500 0600 0700 0800 0900 0a00 4300");
    clean();
    packet_is("SERVER_COMPANY_INFO");
    cr_assert_eq(U("openttd.ci.version", 0), 5);
    cr_assert_eq(U("openttd.ci.companies", 0), 1);
    S("openttd.ci.name", 0, "Ab");
    cr_assert_eq(U("openttd.ci.inaugurated", 0), 1950);
    cr_assert_eq(U("openttd.ci.value", 0), 100000);
    cr_assert_eq((int64_t)U("openttd.ci.money", 0), -5);
    cr_assert_eq(U("openttd.ci.income", 0), 300);
    cr_assert_eq(U("openttd.ci.performance", 0), 42);
    cr_assert_eq(U("openttd.ci.password", 0), 1);
    cr_assert_eq(U("openttd.ci.vehicles.ships", 0), 5);
    cr_assert_eq(U("openttd.ci.stations.train", 0), 6);
    cr_assert_eq(U("openttd.ci.stations.dock", 0), 10);
    S("openttd.ci.clients", 0, "C");
    dec("0500 05 05 00");                           /* the end of the list */
    clean();
    cr_assert_eq(U("openttd.ci.companies", 0), 0);
    cr_assert_null(collect_get(&c, field("openttd.ci.name"), 0));
    dec("0800 22 07000000 02");                     /* SERVER_MOVE */
    clean();
    packet_is("SERVER_MOVE");
    cr_assert_eq(U("openttd.client_id", 0), 7);
    cr_assert_eq(U("openttd.company", 0), 2);
    dec("0400 23 ff");                              /* CLIENT_MOVE to spectators, no password */
    clean();
    packet_is("CLIENT_MOVE");
    cr_assert_eq(U("openttd.company", 0), 255);
    dec("0700 23 01 707700");                       /* to company 1, password "pw" */
    clean();
    S("openttd.password", 0, "pw");
    dec("0500 24 0500");                            /* companies 0 and 2 have passwords */
    clean();
    cr_assert_eq(U("openttd.company_mask", 0), 5);
    dec("0500 25 08 0a");
    clean();
    packet_is("SERVER_CONFIG_UPDATE");
    cr_assert_eq(U("openttd.max_companies", 0), 8);
    cr_assert_eq(U("openttd.max_spectators", 0), 10);
    dec("0600 25 08 0a 00");                        /* one byte too many */
    cr_assert(collect_has_finding(&c, finding("openttd.trailing_bytes")));
}

/* the server's error closes; another client's quit does not, ours does */
Test(openttd, replay_closes)
{
    const gw_replay *r = gw_replay_of(P);
    void *st = replay_state_new(P, opt);
    replay_pdu x;
    cr_assert(r->closes(st, pdu(&x, conv, 1, "04 00 03 0a")));
    cr_assert_not(r->closes(st, pdu(&x, conv, 1, "07 00 17  07 00 00 00")), "SERVER_JOIN");
    void *live_conv = test_conv_new(P, opt);
    welcomed(st, conv, live_conv);
    const gw_replay_pdu *quit = live(&x, live_conv, "07 00 2b  03 00 00 00");
    cr_assert_eq(quit->type, pk("SERVER_QUIT"));
    cr_assert_not(r->closes(st, quit), "client 3 quits");
    cr_assert(r->closes(st, live(&x, live_conv, "07 00 2b  07 00 00 00")), "we are announced gone");
    test_conv_free(P, live_conv);
    free(st);
}
