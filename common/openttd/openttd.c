/* openttd.c - the OpenTTD game protocol decoder.
 *
 * A packet is `size:u16 LE` (the whole packet, size bytes included),
 * `type:u8`, payload. The meaning of `type` depends on the version, inferred
 * per connection from the revision string of CLIENT_JOIN or SERVER_GAME_INFO.
 * Payload layouts are described once, as small op lists interpreted by
 * decode_layout(); the few that need more (game info, map data, frames)
 * have their own functions.
 */
#include "openttd/openttd.h"
#include "core/gw_layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- packets ---------------------------------------------------------------- */

/* every packet of every version, by meaning; the wire code depends on the version */
#define AS_NAME(id, name) {PK_##id, name, 0},
static const gw_value_name packet_names[] = {OTTD_PACKETS(AS_NAME){0, NULL, 0}};

/* which side sends a TCP game packet, by its name: 0 the client, 1 the
   server, -1 either; worked out from the names by the compiler (the
   builtin folds on literals), not for each PDU */
#define SENDER_OF(name) \
    (!__builtin_strncmp(name, "CLIENT_", 7) ? 0 : !__builtin_strncmp(name, "SERVER_", 7) ? 1 : -1)
#define AS_SENDER(id, name) [PK_##id] = SENDER_OF(name),
static const int8_t packet_senders[] = {OTTD_PACKETS(AS_SENDER)};

/* wire code -> packet, per numbering */
static const uint8_t numbering_13[] = {
    PK_SERVER_FULL, PK_SERVER_BANNED, PK_CLIENT_JOIN, PK_SERVER_ERROR, PK_CLIENT_UNUSED,
    PK_SERVER_UNUSED, PK_SERVER_GAME_INFO, PK_CLIENT_GAME_INFO, PK_SERVER_CHECK_NEWGRFS,
    PK_CLIENT_NEWGRFS_CHECKED, PK_SERVER_NEED_GAME_PASSWORD, PK_CLIENT_GAME_PASSWORD,
    PK_SERVER_NEED_COMPANY_PASSWORD, PK_CLIENT_COMPANY_PASSWORD, PK_SERVER_WELCOME,
    PK_SERVER_CLIENT_INFO, PK_CLIENT_GETMAP, PK_SERVER_WAIT, PK_SERVER_MAP_BEGIN,
    PK_SERVER_MAP_SIZE, PK_SERVER_MAP_DATA, PK_SERVER_MAP_DONE, PK_CLIENT_MAP_OK, PK_SERVER_JOIN,
    PK_SERVER_FRAME, PK_CLIENT_ACK, PK_SERVER_SYNC, PK_CLIENT_COMMAND, PK_SERVER_COMMAND,
    PK_CLIENT_CHAT, PK_SERVER_CHAT, PK_SERVER_EXTERNAL_CHAT, PK_CLIENT_RCON, PK_SERVER_RCON,
    PK_CLIENT_MOVE, PK_SERVER_MOVE, PK_CLIENT_SET_PASSWORD, PK_CLIENT_SET_NAME,
    PK_SERVER_COMPANY_UPDATE, PK_SERVER_CONFIG_UPDATE, PK_SERVER_NEWGAME, PK_SERVER_SHUTDOWN,
    PK_CLIENT_QUIT, PK_SERVER_QUIT, PK_CLIENT_ERROR, PK_SERVER_ERROR_QUIT};

/* 14.x: NEWGAME and SHUTDOWN move to 8 and 9, 13.x's 8-39 to 10-41 */
static const uint8_t numbering_14[] = {
    PK_SERVER_FULL, PK_SERVER_BANNED, PK_CLIENT_JOIN, PK_SERVER_ERROR, PK_CLIENT_UNUSED,
    PK_SERVER_UNUSED, PK_SERVER_GAME_INFO, PK_CLIENT_GAME_INFO, PK_SERVER_NEWGAME,
    PK_SERVER_SHUTDOWN, PK_SERVER_CHECK_NEWGRFS, PK_CLIENT_NEWGRFS_CHECKED,
    PK_SERVER_NEED_GAME_PASSWORD, PK_CLIENT_GAME_PASSWORD, PK_SERVER_NEED_COMPANY_PASSWORD,
    PK_CLIENT_COMPANY_PASSWORD, PK_SERVER_WELCOME, PK_SERVER_CLIENT_INFO, PK_CLIENT_GETMAP,
    PK_SERVER_WAIT, PK_SERVER_MAP_BEGIN, PK_SERVER_MAP_SIZE, PK_SERVER_MAP_DATA,
    PK_SERVER_MAP_DONE, PK_CLIENT_MAP_OK, PK_SERVER_JOIN, PK_SERVER_FRAME, PK_CLIENT_ACK,
    PK_SERVER_SYNC, PK_CLIENT_COMMAND, PK_SERVER_COMMAND, PK_CLIENT_CHAT, PK_SERVER_CHAT,
    PK_SERVER_EXTERNAL_CHAT, PK_CLIENT_RCON, PK_SERVER_RCON, PK_CLIENT_MOVE, PK_SERVER_MOVE,
    PK_CLIENT_SET_PASSWORD, PK_CLIENT_SET_NAME, PK_SERVER_COMPANY_UPDATE,
    PK_SERVER_CONFIG_UPDATE, PK_CLIENT_QUIT, PK_SERVER_QUIT, PK_CLIENT_ERROR,
    PK_SERVER_ERROR_QUIT};

static const uint8_t numbering_15[] = {
    PK_SERVER_FULL, PK_SERVER_BANNED, PK_CLIENT_JOIN, PK_SERVER_ERROR, PK_CLIENT_UNUSED,
    PK_SERVER_UNUSED, PK_SERVER_GAME_INFO, PK_CLIENT_GAME_INFO, PK_SERVER_NEWGAME,
    PK_SERVER_SHUTDOWN, PK_SERVER_AUTH_REQUEST, PK_CLIENT_AUTH_RESPONSE,
    PK_SERVER_ENABLE_ENCRYPTION, PK_CLIENT_IDENTIFY, PK_SERVER_CHECK_NEWGRFS,
    PK_CLIENT_NEWGRFS_CHECKED, PK_SERVER_WELCOME, PK_SERVER_CLIENT_INFO, PK_CLIENT_GETMAP,
    PK_SERVER_WAIT, PK_SERVER_MAP_BEGIN, PK_SERVER_MAP_SIZE, PK_SERVER_MAP_DATA,
    PK_SERVER_MAP_DONE, PK_CLIENT_MAP_OK, PK_SERVER_JOIN, PK_SERVER_FRAME, PK_CLIENT_ACK,
    PK_SERVER_SYNC, PK_CLIENT_COMMAND, PK_SERVER_COMMAND, PK_CLIENT_CHAT, PK_SERVER_CHAT,
    PK_SERVER_EXTERNAL_CHAT, PK_CLIENT_RCON, PK_SERVER_RCON, PK_CLIENT_MOVE, PK_SERVER_MOVE,
    PK_CLIENT_SET_NAME, PK_SERVER_CONFIG_UPDATE, PK_CLIENT_QUIT, PK_SERVER_QUIT,
    PK_CLIENT_ERROR, PK_SERVER_ERROR_QUIT};

/* 0.5 - 0.7 (the wiki's set) */
static const uint8_t numbering_old[] = {
    PK_SERVER_FULL, PK_SERVER_BANNED, PK_CLIENT_JOIN, PK_SERVER_ERROR, PK_CLIENT_COMPANY_INFO,
    PK_SERVER_COMPANY_INFO, PK_SERVER_CLIENT_INFO, PK_SERVER_NEED_PASSWORD, PK_CLIENT_PASSWORD,
    PK_SERVER_WELCOME, PK_CLIENT_GETMAP, PK_SERVER_WAIT, PK_SERVER_MAP, PK_CLIENT_MAP_OK,
    PK_SERVER_JOIN, PK_SERVER_FRAME, PK_SERVER_SYNC, PK_CLIENT_ACK, PK_CLIENT_COMMAND,
    PK_SERVER_COMMAND, PK_CLIENT_CHAT, PK_SERVER_CHAT, PK_CLIENT_SET_PASSWORD,
    PK_CLIENT_SET_NAME, PK_CLIENT_QUIT, PK_CLIENT_ERROR, PK_SERVER_QUIT, PK_SERVER_ERROR_QUIT,
    PK_SERVER_SHUTDOWN, PK_SERVER_NEWGAME, PK_SERVER_RCON, PK_CLIENT_RCON,
    PK_SERVER_CHECK_NEWGRFS, PK_CLIENT_NEWGRFS_CHECKED, PK_SERVER_MOVE, PK_CLIENT_MOVE,
    PK_SERVER_COMPANY_UPDATE, PK_SERVER_CONFIG_UPDATE};

/* UDP: 12.0 and later have two packets; before, a larger set */
static const uint8_t numbering_udp_old[] = {
    PK_UDP_CLIENT_FIND_SERVER, PK_UDP_SERVER_RESPONSE, PK_UDP_CLIENT_DETAIL_INFO,
    PK_UDP_SERVER_DETAIL_INFO, PK_UDP_SERVER_REGISTER, PK_UDP_MASTER_ACK_REGISTER,
    PK_UDP_CLIENT_GET_LIST, PK_UDP_MASTER_RESPONSE_LIST, PK_UDP_SERVER_UNREGISTER,
    PK_UDP_CLIENT_GET_NEWGRFS, PK_UDP_SERVER_NEWGRFS, PK_UDP_MASTER_SESSION_KEY};

#define N(a) (sizeof(a) / sizeof(a)[0])

/* packets that may be up to 32767 bytes (TCP_MTU) */
static bool large_packet(int pk)
{
    return pk == PK_SERVER_MAP_DATA || pk == PK_SERVER_GAME_INFO || pk == PK_SERVER_MAP ||
           pk == PK_SERVER_CHECK_NEWGRFS || pk == PK_SERVER_COMMAND || pk == PK_CLIENT_COMMAND ||
           pk == PK_UDP_SERVER_RESPONSE || pk == PK_UDP_SERVER_DETAIL_INFO || pk == PK_ENCRYPTED;
}

static const gw_value_name error_names[] = {
    {0, "GENERAL", 0}, {1, "DESYNC", 0}, {2, "SAVEGAME_FAILED", 0}, {3, "CONNECTION_LOST", 0},
    {4, "ILLEGAL_PACKET", 0}, {5, "NEWGRF_MISMATCH", 0}, {6, "NOT_AUTHORIZED", 0}, {7, "NOT_EXPECTED", 0},
    {8, "WRONG_REVISION", 0}, {9, "NAME_IN_USE", 0}, {10, "WRONG_PASSWORD", 0}, {11, "COMPANY_MISMATCH", 0},
    {12, "KICKED", 0}, {13, "CHEATER", 0}, {14, "FULL", 0}, {15, "TOO_MANY_COMMANDS", 0},
    {16, "TIMEOUT_PASSWORD", 0}, {17, "TIMEOUT_COMPUTER", 0}, {18, "TIMEOUT_MAP", 0},
    {19, "TIMEOUT_JOIN", 0}, {20, "INVALID_CLIENT_NAME", 0}, {21, "NOT_ON_ALLOW_LIST", 0},
    {22, "NO_AUTHENTICATION_METHOD_AVAILABLE", 0}, {0, NULL, 0}};

/* the wiki's "Type of password (Game-Password (0) or Company-Password (1))" */
static const gw_value_name password_type_names[] = {{0, "GAME", 0}, {1, "COMPANY", 0}, {0, NULL, 0}};

/* the wiki's SERVER_MAP "packet-type (MAP_PACKET_START, MAP_PACKET_NORMAL and MAP_PACKET_END)" */
static const gw_value_name map_packet_names[] = {
    {0, "MAP_PACKET_START", 0}, {1, "MAP_PACKET_NORMAL", 0}, {2, "MAP_PACKET_END", 0}, {0, NULL, 0}};

/* 15.x authentication methods (network_crypto.h, NetworkAuthenticationMethod) */
static const gw_value_name auth_method_names[] = {
    {0, "X25519_KEY_EXCHANGE_ONLY", 0}, {1, "X25519_PAKE", 0}, {2, "X25519_AUTHORIZED_KEY", 0}, {0, NULL, 0}};

static const gw_value_name action_names[] = {
    {0, "JOIN", 0}, {1, "LEAVE", 0}, {2, "SERVER_MESSAGE", 0}, {3, "CHAT", 0}, {4, "CHAT_COMPANY", 0},
    {5, "CHAT_CLIENT", 0}, {6, "GIVE_MONEY", 0}, {7, "NAME_CHANGE", 0}, {8, "COMPANY_SPECTATOR", 0},
    {9, "COMPANY_JOIN", 0}, {10, "COMPANY_NEW", 0}, {11, "KICKED", 0}, {12, "EXTERNAL_CHAT", 0}, {0, NULL, 0}};

static const gw_value_name desttype_names[] = {
    {0, "BROADCAST", 0}, {1, "TEAM", 0}, {2, "CLIENT", 0}, {0, NULL, 0}};

static const gw_value_name company_names[] = {
    {0xfe, "new company", 0}, {0xff, "spectator", 0}, {0, NULL, 0}};

static const gw_value_name version_names[] = {
    {OTTD_V_OLD, "0.5-0.7", 0}, {OTTD_V13, "13.x", 0}, {OTTD_V14, "14.x", 0}, {OTTD_V15, "15.x", 0}, {0, NULL, 0}};

/* gfx_type.h TextColour: the console colour of SERVER_RCON and
   SERVER_EXTERNAL_CHAT (console_type.h: CC_DEFAULT SILVER, CC_ERROR RED,
   CC_WARNING LIGHT_BLUE, CC_INFO YELLOW, CC_DEBUG LIGHT_BROWN, CC_COMMAND
   GOLD, CC_WHITE WHITE) */
static const gw_value_name colour_names[] = {
    {0, "BLUE", 0}, {1, "SILVER", 0}, {2, "GOLD", 0}, {3, "RED", 0}, {4, "PURPLE", 0}, {5, "LIGHT_BROWN", 0},
    {6, "ORANGE", 0}, {7, "GREEN", 0}, {8, "YELLOW", 0}, {9, "DARK_GREEN", 0}, {10, "CREAM", 0}, {11, "BROWN", 0},
    {12, "WHITE", 0}, {13, "LIGHT_BLUE", 0}, {14, "GREY", 0}, {15, "DARK_BLUE", 0}, {16, "BLACK", 0}, {0, NULL, 0}};

/* the first byte of MASTER_RESPONSE_LIST: "ver == 1" an IPv4 list (0.5 -
   0.7 network_udp.cpp); from 1.0 the ServerListType plus one */
static const gw_value_name master_list_names[] = {{1, "IPv4", 0}, {2, "IPv6", 0}, {0, NULL, 0}};

/* CLIENT_GET_LIST's ServerListType (1.0 and later: SLT_IPv4, SLT_IPv6, SLT_AUTODETECT) */
static const gw_value_name list_type_names[] = {{0, "IPv4", 0}, {1, "IPv6", 0}, {2, "AUTODETECT", 0}, {0, NULL, 0}};

static const gw_value_name landscape_names[] = {
    {0, "temperate", 0}, {1, "sub-arctic", 0}, {2, "sub-tropical", 0}, {3, "toyland", 0}, {0, NULL, 0}};

/* ---- fields ------------------------------------------------------------------- */

static const gw_field fields[OTTD_F_COUNT] = {OTTD_FIELDS(GW_FIELD, GW_LINK)};

/* ---- findings ------------------------------------------------------------------ */

static const gw_finding_def findings[OTTD_E_COUNT] = {OTTD_FINDINGS(GW_FINDING)};

/* the behaviour rules among the findings (pcaptool validate --rules) */
static const gw_rule rules[] = {
    {OTTD_E_JOIN_ORDER, "OpenTTD wiki text, Joining: \"it first fetches some data ... Then it verifies itself, gives his name "
                    "and, if needed, passwords. Then it asks for a copy of the current map\"; wire-facts 2.9: the 13.x "
                    "packets JOIN, WELCOME, GETMAP, WAIT, MAP_BEGIN, MAP_SIZE, MAP_DATA, MAP_DONE, MAP_OK"},
    {OTTD_E_MAP_MISMATCH, "wire-facts 2.8: \"SERVER_MAP_SIZE: u32 bytes\" of the savegame SERVER_MAP_DATA carries (the "
                          "reference's packet; the wiki has none: a note)"},
    {OTTD_E_FRAME_BACK, "OpenTTD wiki text: \"the server sends out a FRAME-packet every frame\"; CLIENT_ACK \"Tell the server we "
                    "are done with this frame\": frame counters only advance"},
    {OTTD_E_ACK_BEYOND_MAX, "OpenTTD wiki text: \"Because a client can never be beyond the max-frame\""},
    {OTTD_E_COMMAND_PASSED, "OpenTTD wiki text: \"Just before that, the server has sent all DoCommands for the max-frame in the "
                        "FRAME-packet ... all DoCommands are executed on the same frame\""},
    {OTTD_E_WRONG_DIRECTION, "OpenTTD wiki text: packets named PACKET_CLIENT_* are sent by the client, PACKET_SERVER_* by the "
                         "server"},
    {OTTD_E_TOO_LARGE, "wire-facts 2.2: \"Limits: 1460 (COMPAT_MTU) normally, 32767 (TCP_MTU) for map data, game info and some "
                   "others\" (the reference's limits; the wiki states none: a note)"},
};

static const gw_choice version_choices[] = {
    {OTTD_V_AUTO, "auto", "From the revision string (the default numbering until one is seen)"},
    {OTTD_V_OLD, "0.7", "0.5 - 0.7"},
    {OTTD_V13, "13", "13.x"},
    {OTTD_V14, "14", "14.x"},
    {OTTD_V15, "15", "15.x"},
    {0, NULL, NULL}};

static const gw_choice default_choices[] = {
    {OTTD_V_OLD, "0.7", "0.5 - 0.7"},
    {OTTD_V13, "13", "13.x"},
    {OTTD_V14, "14", "14.x"},
    {OTTD_V15, "15", "15.x"},
    {0, NULL, NULL}};

static const gw_option options[] = {
    [OTTD_OPT_VERSION] = {"version", "Packet numbering",
     "Which version's packet numbering to use: inferred per connection from the revision "
     "string, or forced", version_choices, OTTD_V_AUTO},
    [OTTD_OPT_DEFAULT_VERSION] = {"default_version", "Numbering until the revision is known",
     "The numbering used for a connection before its revision string is seen",
     default_choices, OTTD_V13},
};

/* ---- payload layouts ----------------------------------------------------------- */

/* layout steps (gw_layout.h) in OpenTTD's terms: numbers are little-endian
   ("all numbers are little endian" but NewGRF ids), strings NUL-terminated */
/* the decoder's own parts a layout step names (defined with the hooks) */
static void cmd32(gw_pdu *p);
static bool tile_before_14(gw_pdu *p);
#define L GW_LAYOUT
#define U8(f) GW_NUM(OTTD_F_##f, 1)
#define U16(f) GW_NUM(OTTD_F_##f, 2)
#define U32(f) GW_NUM(OTTD_F_##f, 4)
#define U64(f) GW_NUM(OTTD_F_##f, 8)
#define BOOL(f) GW_NUM(OTTD_F_##f, 1)
#define STR(f) GW_CSTR(OTTD_F_##f, OTTD_E_STRING_UNTERMINATED)
#define BYTES(f, n) GW_BYTES(OTTD_F_##f, n)
#define REST(f) GW_REST(OTTD_F_##f)
#define OPT GW_OPTIONAL
/* a NewGRF id: u32 read big-endian ("They are big-endian numbers") */
#define GRF_ID GW_NUM(OTTD_F_GRF_ID, 4, GW_FLAGS(GW_LF_BE))
/* u16 length and that many bytes */
#define BUF16(f) GW_COUNTED(OTTD_F_##f, OTTD_F_DATA_LENGTH, 2, -1)
/* 0.4-0.7's u32 command: id | flags << 8 | error message << 16 */
#define CMD32 GW_STEP(cmd32)
/* the u32 tile, before 14.x */
#define TILE GW_IF_HOOK(tile_before_14), U32(TILE), GW_DONE
#define GRFS(...) U8(GRF_COUNT), GW_REPEAT(OTTD_F_GRF_COUNT), GRF_ID, BYTES(GRF_MD5, 16), __VA_ARGS__ GW_DONE
#define DECODE_PARAMS U32(DECODE_PARAM), U32(DECODE_PARAM), U32(DECODE_PARAM), U32(DECODE_PARAM), \
    U32(DECODE_PARAM), U32(DECODE_PARAM), U32(DECODE_PARAM), U32(DECODE_PARAM), U32(DECODE_PARAM), \
    U32(DECODE_PARAM)
#define NONE GW_EMPTY

/* every packet's header, TCP and UDP: its size (u16, the whole packet's
   bytes), its type; described once for the decoder, ottd_pdu_length, the
   builder and the heuristic */
static const gw_lstep frame_header[] = {U16(SIZE), U8(TYPE), {.op = GW_L_END}};
static const gw_frame framing = {.header = frame_header, .length_field = OTTD_F_SIZE, .counts_header = true};

/* 13.x payloads (wire-facts 2.8); 14.x and 15.x differ only where noted */
static const gw_lstep *const layouts_13[PK_COUNT] = {
    [PK_CLIENT_JOIN] = L(STR(REVISION), U32(NEWGRF_VERSION), STR(NAME), U8(COMPANY), U8(LANGUAGE)),
    [PK_SERVER_ERROR] = L(U8(ERROR_CODE), OPT, STR(REASON)),
    [PK_SERVER_CHECK_NEWGRFS] = L(GRFS()),
    [PK_CLIENT_GAME_PASSWORD] = L(STR(PASSWORD)),
    [PK_CLIENT_COMPANY_PASSWORD] = L(STR(PASSWORD)),
    [PK_CLIENT_SET_PASSWORD] = L(STR(PASSWORD)),
    [PK_SERVER_NEED_COMPANY_PASSWORD] = L(U32(GENERATION_SEED), STR(NETWORK_ID)),
    [PK_SERVER_WELCOME] = L(U32(CLIENT_ID), U32(GENERATION_SEED), STR(NETWORK_ID)),
    [PK_SERVER_CLIENT_INFO] = L(U32(CLIENT_ID), U8(COMPANY), STR(NAME)),
    [PK_SERVER_WAIT] = L(U8(WAITING)),
    [PK_SERVER_MAP_BEGIN] = L(U32(FRAME)),
    [PK_SERVER_MAP_SIZE] = L(U32(MAP_SIZE)),
    [PK_SERVER_JOIN] = L(U32(CLIENT_ID)),
    [PK_SERVER_QUIT] = L(U32(CLIENT_ID)),
    [PK_SERVER_FRAME] = L(U32(FRAME), U32(FRAME_MAX), OPT, U8(TOKEN)),
    [PK_CLIENT_ACK] = L(U32(FRAME), U8(TOKEN)),
    [PK_SERVER_SYNC] = L(U32(FRAME), U32(SEED1)),
    [PK_CLIENT_COMMAND] = L(U8(COMPANY), U16(CMD), U16(ERR_MSG), TILE, BUF16(CMD_DATA), U8(CALLBACK)),
    [PK_SERVER_COMMAND] = L(U8(COMPANY), U16(CMD), U16(ERR_MSG), TILE, BUF16(CMD_DATA), U8(CALLBACK),
                            U32(FRAME), BOOL(MY_CMD)),
    [PK_CLIENT_CHAT] = L(U8(ACTION), U8(DEST_TYPE), U32(DEST), STR(MESSAGE), U64(CHAT_DATA)),
    [PK_SERVER_CHAT] = L(U8(ACTION), U32(CLIENT_ID), BOOL(SELF_SEND), STR(MESSAGE), U64(CHAT_DATA)),
    [PK_SERVER_EXTERNAL_CHAT] = L(STR(SOURCE), U16(COLOUR), STR(USER), STR(MESSAGE)),
    [PK_CLIENT_RCON] = L(STR(PASSWORD), STR(RCON_COMMAND)),
    [PK_SERVER_RCON] = L(U16(COLOUR), STR(RCON_OUTPUT)),
    [PK_CLIENT_MOVE] = L(U8(COMPANY), STR(PASSWORD)),
    [PK_SERVER_MOVE] = L(U32(CLIENT_ID), U8(COMPANY)),
    [PK_CLIENT_SET_NAME] = L(STR(NAME)),
    [PK_SERVER_COMPANY_UPDATE] = L(U16(COMPANY_MASK)),
    [PK_SERVER_CONFIG_UPDATE] = L(U8(MAX_COMPANIES), STR(SERVER_NAME)),
    [PK_CLIENT_ERROR] = L(U8(ERROR_CODE)),
    [PK_SERVER_ERROR_QUIT] = L(U32(CLIENT_ID), U8(ERROR_CODE)),
    [PK_SERVER_FULL] = NONE,
    [PK_SERVER_BANNED] = NONE,
    [PK_CLIENT_GAME_INFO] = NONE,
    [PK_CLIENT_NEWGRFS_CHECKED] = NONE,
    [PK_SERVER_NEED_GAME_PASSWORD] = NONE,
    [PK_CLIENT_GETMAP] = NONE,
    [PK_SERVER_MAP_DONE] = NONE,
    [PK_CLIENT_MAP_OK] = NONE,
    [PK_SERVER_NEWGAME] = NONE,
    [PK_SERVER_SHUTDOWN] = NONE,
    [PK_CLIENT_QUIT] = NONE,
    [PK_UDP_CLIENT_FIND_SERVER] = NONE,
    [PK_UDP_CLIENT_DETAIL_INFO] = NONE,
};

/* 15.x where it differs from 13.x, as OpenTTD's own code writes it:
   network_client.cpp SendJoin (revision, NewGRF version), SendIdentify
   (name, company), SendMove (company), ReceiveServerClientInfo (id,
   company, name, public key), ReceiveServerWelcome (the client id);
   network_crypto.cpp's X25519 handlers: SendRequest after the method byte
   (public key 32, nonce 24), SendResponse (public key 32, MAC 16, message
   8), SendEnableEncryption (nonce 24). */
static const gw_lstep *const layouts_15[PK_COUNT] = {
    [PK_CLIENT_JOIN] = L(STR(REVISION), U32(NEWGRF_VERSION)),
    [PK_CLIENT_IDENTIFY] = L(STR(NAME), U8(COMPANY)),
    [PK_SERVER_AUTH_REQUEST] = L(U8(AUTH_METHOD), BYTES(AUTH_PUBLIC_KEY, 32), BYTES(AUTH_NONCE, 24)),
    [PK_CLIENT_AUTH_RESPONSE] = L(BYTES(AUTH_PUBLIC_KEY, 32), BYTES(AUTH_MAC, 16), BYTES(AUTH_MESSAGE, 8)),
    [PK_SERVER_ENABLE_ENCRYPTION] = L(BYTES(ENCRYPTION_NONCE, 24)),
    [PK_SERVER_WELCOME] = L(U32(CLIENT_ID)),
    [PK_SERVER_CLIENT_INFO] = L(U32(CLIENT_ID), U8(COMPANY), STR(NAME), STR(PUBLIC_KEY)),
    [PK_CLIENT_MOVE] = L(U8(COMPANY)),
};

/* the wiki's layouts (0.4/0.5 era) */
static const gw_lstep *const layouts_old[PK_COUNT] = {
    [PK_CLIENT_JOIN] = L(STR(REVISION), STR(NAME), U8(COMPANY), U8(LANGUAGE)),
    [PK_SERVER_ERROR] = L(U8(ERROR_CODE)),
    [PK_CLIENT_ERROR] = L(U8(ERROR_CODE)),
    [PK_SERVER_CLIENT_INFO] = L(U8(CLIENT_ID), U8(COMPANY), STR(NAME)),
    [PK_SERVER_NEED_PASSWORD] = L(U8(PASSWORD_TYPE)),
    [PK_CLIENT_PASSWORD] = L(U8(PASSWORD_TYPE), STR(PASSWORD)),
    [PK_SERVER_WELCOME] = L(U8(CLIENT_ID)),
    [PK_SERVER_JOIN] = L(U8(CLIENT_ID)),
    [PK_SERVER_WAIT] = L(U8(WAITING)),
    [PK_SERVER_FRAME] = L(U32(FRAME), U32(FRAME_MAX), OPT, U32(SEED1), U32(SEED2)),
    [PK_SERVER_SYNC] = L(U32(FRAME), U32(SEED1), OPT, U32(SEED2)),
    [PK_CLIENT_ACK] = L(U32(FRAME)),
    /* the wiki: "Uint32: decode_params < 10 times ... >", "Uint8: CallBackID", and
       from the server "Uint32: Frame of execution" */
    [PK_CLIENT_COMMAND] = L(U8(COMPANY), CMD32, U32(P1), U32(P2), U32(TILE), DECODE_PARAMS, U8(CALLBACK)),
    [PK_SERVER_COMMAND] = L(U8(COMPANY), CMD32, U32(P1), U32(P2), U32(TILE), DECODE_PARAMS, U8(CALLBACK),
                            U32(FRAME)),
    [PK_CLIENT_CHAT] = L(U8(ACTION), U8(DEST_TYPE), U8(DEST), STR(MESSAGE)),
    [PK_SERVER_CHAT] = L(U8(ACTION), U8(CLIENT_ID), STR(MESSAGE)),
    [PK_CLIENT_SET_PASSWORD] = L(STR(PASSWORD)),
    [PK_CLIENT_SET_NAME] = L(STR(NAME)),
    [PK_CLIENT_QUIT] = L(STR(REASON)),
    [PK_SERVER_QUIT] = L(U8(CLIENT_ID), STR(REASON)),
    [PK_SERVER_ERROR_QUIT] = L(U8(CLIENT_ID), U8(ERROR_CODE)),
    [PK_SERVER_RCON] = L(U16(COLOUR), STR(RCON_OUTPUT)),
    [PK_CLIENT_RCON] = L(STR(PASSWORD), STR(RCON_COMMAND)),
    [PK_SERVER_CHECK_NEWGRFS] = L(GRFS()),
    [PK_SERVER_FULL] = NONE,
    [PK_SERVER_BANNED] = NONE,
    [PK_CLIENT_COMPANY_INFO] = NONE,
    [PK_CLIENT_GETMAP] = NONE,
    [PK_CLIENT_MAP_OK] = NONE,
    [PK_SERVER_SHUTDOWN] = NONE,
    [PK_SERVER_NEWGAME] = NONE,
    [PK_CLIENT_NEWGRFS_CHECKED] = NONE,
    /* the packets numbered 34-37 in this numbering, as the 1.0 server writes
       and reads them (network_server.cpp: SERVER_MOVE u32 client id + u8
       company; CLIENT_MOVE u8 company, then the password only when that
       company has one; SERVER_COMPANY_UPDATE the u16 mask of companies with
       a password; SERVER_CONFIG_UPDATE max_companies, max_spectators) */
    [PK_SERVER_MOVE] = L(U32(CLIENT_ID), U8(COMPANY)),
    [PK_CLIENT_MOVE] = L(U8(COMPANY), OPT, STR(PASSWORD)),
    [PK_SERVER_COMPANY_UPDATE] = L(U16(COMPANY_MASK)),
    [PK_SERVER_CONFIG_UPDATE] = L(U8(MAX_COMPANIES), U8(MAX_SPECTATORS)),
};

/* Real 0.5 - 0.7 builds where they differ from the wiki's (0.4) layouts, as
   their sources write and read the packets. 0.5 (network_server.c) and 0.6
   (network_client.cpp) alike: u16 client ids; CLIENT_JOIN and
   SERVER_CLIENT_INFO end with the client's unique id; a command carries
   "string: text" where 0.4 had ten decode_params; SERVER_CHAT "uint16:
   Client-index" and a bool self_send. */
static const gw_lstep *const layouts_05[PK_COUNT] = {
    [PK_CLIENT_JOIN] = L(STR(REVISION), STR(NAME), U8(COMPANY), U8(LANGUAGE), STR(UNIQUE_ID)),
    [PK_SERVER_CLIENT_INFO] = L(U16(CLIENT_ID), U8(COMPANY), STR(NAME), STR(UNIQUE_ID)),
    [PK_SERVER_WELCOME] = L(U16(CLIENT_ID)),
    [PK_SERVER_JOIN] = L(U16(CLIENT_ID)),
    [PK_CLIENT_COMMAND] = L(U8(COMPANY), CMD32, U32(P1), U32(P2), U32(TILE), STR(CMD_TEXT), U8(CALLBACK)),
    [PK_SERVER_COMMAND] = L(U8(COMPANY), CMD32, U32(P1), U32(P2), U32(TILE), STR(CMD_TEXT), U8(CALLBACK),
                            U32(FRAME)),
    [PK_SERVER_CHAT] = L(U8(ACTION), U16(CLIENT_ID), BOOL(SELF_SEND), STR(MESSAGE)),
    [PK_SERVER_QUIT] = L(U16(CLIENT_ID), STR(REASON)),
    [PK_SERVER_ERROR_QUIT] = L(U16(CLIENT_ID), U8(ERROR_CODE)),
};

/* 0.7 (network_client.cpp) where it differs from 0.5/0.6: u32 ClientIDs;
   CLIENT_JOIN ends with the client's network_id (as 0.6's with its unique
   id, and the command is 0.6's); SERVER_CLIENT_INFO without it; SERVER_WELCOME and
   (company passwords) SERVER_NEED_PASSWORD give the generation seed and
   the server's network id for password hashing; chat "uint32: Destination
   CompanyID/Client-identifier" and "uint64: Some arbitrary number";
   SERVER_COMMAND ends with my_cmd; the quits carry no message. */
static const gw_lstep *const layouts_07[PK_COUNT] = {
    [PK_SERVER_CLIENT_INFO] = L(U32(CLIENT_ID), U8(COMPANY), STR(NAME)),
    [PK_SERVER_NEED_PASSWORD] = L(U8(PASSWORD_TYPE), OPT, U32(GENERATION_SEED), STR(NETWORK_ID)),
    [PK_SERVER_WELCOME] = L(U32(CLIENT_ID), U32(GENERATION_SEED), STR(NETWORK_ID)),
    [PK_SERVER_JOIN] = L(U32(CLIENT_ID)),
    [PK_SERVER_COMMAND] = L(U8(COMPANY), CMD32, U32(P1), U32(P2), U32(TILE), STR(CMD_TEXT), U8(CALLBACK),
                            U32(FRAME), BOOL(MY_CMD)),
    [PK_CLIENT_CHAT] = L(U8(ACTION), U8(DEST_TYPE), U32(DEST), STR(MESSAGE), U64(CHAT_DATA)),
    [PK_SERVER_CHAT] = L(U8(ACTION), U32(CLIENT_ID), BOOL(SELF_SEND), STR(MESSAGE), U64(CHAT_DATA)),
    [PK_CLIENT_QUIT] = NONE,
    [PK_SERVER_QUIT] = L(U32(CLIENT_ID)),
    [PK_SERVER_ERROR_QUIT] = L(U32(CLIENT_ID), U8(ERROR_CODE)),
};

/* The UDP set before 12.0 (0.5 - 0.7 network_udp.cpp, 1.x core/udp.h);
   SERVER_RESPONSE is the game info, SERVER_DETAIL_INFO and
   MASTER_RESPONSE_LIST have functions of their own. */
static const gw_lstep *const layouts_udp[PK_COUNT] = {
    [PK_UDP_CLIENT_FIND_SERVER] = NONE,
    [PK_UDP_CLIENT_DETAIL_INFO] = NONE,
    [PK_UDP_MASTER_ACK_REGISTER] = NONE,
    /* "Packet is: WELCOME_MESSAGE, Version, server_port", and from protocol 2 the session key */
    [PK_UDP_SERVER_REGISTER] = L(STR(MASTER_WELCOME), U8(MASTER_VERSION), U16(MASTER_PORT), OPT, U64(MASTER_SESSION_KEY)),
    /* "Packet is: Version, server_port" */
    [PK_UDP_SERVER_UNREGISTER] = L(U8(MASTER_VERSION), U16(MASTER_PORT)),
    /* "packet only contains protocol version"; protocol 2 adds the list type */
    [PK_UDP_CLIENT_GET_LIST] = L(U8(MASTER_VERSION), OPT, U8(MASTER_LIST_TYPE)),
    [PK_UDP_CLIENT_GET_NEWGRFS] = L(GRFS()),
    [PK_UDP_SERVER_NEWGRFS] = L(GRFS(STR(GRF_NAME),)),
    [PK_UDP_MASTER_SESSION_KEY] = L(U64(MASTER_SESSION_KEY)),
};

/* ---- command and callback names ---------------------------------------------- */

/* The command ids of enum Commands (src/command_type.h), in order, and the
   releases whose enum has each: 13.x as 13.0 has it, 14.x as 14.1 (the
   releases' sources as Debian ships them, openttd_13.0.orig.tar.xz and
   openttd_14.1.orig.tar.xz). A release's id is the entry's position among
   that release's entries; the enum never changes within a release series,
   whose versions play together. 15.x and 1.x-12.x have other enums not
   checked against their sources here: their ids stay numbers. */
enum { IN13 = 1, IN14 = 2, BOTH = IN13 | IN14 };
static const struct {
    const char *name;
    uint8_t in;
} commands[] = {
    {"CMD_BUILD_RAILROAD_TRACK", BOTH}, {"CMD_REMOVE_RAILROAD_TRACK", BOTH},
    {"CMD_BUILD_SINGLE_RAIL", BOTH}, {"CMD_REMOVE_SINGLE_RAIL", BOTH},
    {"CMD_LANDSCAPE_CLEAR", BOTH}, {"CMD_BUILD_BRIDGE", BOTH}, {"CMD_BUILD_RAIL_STATION", BOTH},
    {"CMD_BUILD_TRAIN_DEPOT", BOTH}, {"CMD_BUILD_SIGNALS", IN13}, {"CMD_REMOVE_SIGNALS", IN13},
    {"CMD_BUILD_SINGLE_SIGNAL", IN14}, {"CMD_REMOVE_SINGLE_SIGNAL", IN14},
    {"CMD_TERRAFORM_LAND", BOTH}, {"CMD_BUILD_OBJECT", BOTH}, {"CMD_BUILD_OBJECT_AREA", BOTH},
    {"CMD_BUILD_TUNNEL", BOTH}, {"CMD_REMOVE_FROM_RAIL_STATION", BOTH}, {"CMD_CONVERT_RAIL", BOTH},
    {"CMD_BUILD_RAIL_WAYPOINT", BOTH}, {"CMD_RENAME_WAYPOINT", BOTH},
    {"CMD_REMOVE_FROM_RAIL_WAYPOINT", BOTH}, {"CMD_BUILD_ROAD_STOP", BOTH},
    {"CMD_REMOVE_ROAD_STOP", BOTH}, {"CMD_BUILD_LONG_ROAD", BOTH}, {"CMD_REMOVE_LONG_ROAD", BOTH},
    {"CMD_BUILD_ROAD", BOTH}, {"CMD_BUILD_ROAD_DEPOT", BOTH}, {"CMD_CONVERT_ROAD", BOTH},
    {"CMD_BUILD_AIRPORT", BOTH}, {"CMD_BUILD_DOCK", BOTH}, {"CMD_BUILD_SHIP_DEPOT", BOTH},
    {"CMD_BUILD_BUOY", BOTH}, {"CMD_PLANT_TREE", BOTH}, {"CMD_BUILD_VEHICLE", BOTH},
    {"CMD_SELL_VEHICLE", BOTH}, {"CMD_REFIT_VEHICLE", BOTH}, {"CMD_SEND_VEHICLE_TO_DEPOT", BOTH},
    {"CMD_SET_VEHICLE_VISIBILITY", BOTH}, {"CMD_MOVE_RAIL_VEHICLE", BOTH},
    {"CMD_FORCE_TRAIN_PROCEED", BOTH}, {"CMD_REVERSE_TRAIN_DIRECTION", BOTH},
    {"CMD_CLEAR_ORDER_BACKUP", BOTH}, {"CMD_MODIFY_ORDER", BOTH}, {"CMD_SKIP_TO_ORDER", BOTH},
    {"CMD_DELETE_ORDER", BOTH}, {"CMD_INSERT_ORDER", BOTH}, {"CMD_CHANGE_SERVICE_INT", BOTH},
    {"CMD_BUILD_INDUSTRY", BOTH}, {"CMD_INDUSTRY_CTRL", IN13}, {"CMD_INDUSTRY_SET_FLAGS", IN14},
    {"CMD_INDUSTRY_SET_EXCLUSIVITY", IN14}, {"CMD_INDUSTRY_SET_TEXT", IN14},
    {"CMD_INDUSTRY_SET_PRODUCTION", IN14}, {"CMD_SET_COMPANY_MANAGER_FACE", BOTH},
    {"CMD_SET_COMPANY_COLOUR", BOTH}, {"CMD_INCREASE_LOAN", BOTH}, {"CMD_DECREASE_LOAN", BOTH},
    {"CMD_SET_COMPANY_MAX_LOAN", IN14}, {"CMD_WANT_ENGINE_PREVIEW", BOTH},
    {"CMD_ENGINE_CTRL", BOTH}, {"CMD_RENAME_VEHICLE", BOTH}, {"CMD_RENAME_ENGINE", BOTH},
    {"CMD_RENAME_COMPANY", BOTH}, {"CMD_RENAME_PRESIDENT", BOTH}, {"CMD_RENAME_STATION", BOTH},
    {"CMD_RENAME_DEPOT", BOTH}, {"CMD_PLACE_SIGN", BOTH}, {"CMD_RENAME_SIGN", BOTH},
    {"CMD_TURN_ROADVEH", BOTH}, {"CMD_PAUSE", BOTH}, {"CMD_BUY_SHARE_IN_COMPANY", IN13},
    {"CMD_SELL_SHARE_IN_COMPANY", IN13}, {"CMD_BUY_COMPANY", BOTH}, {"CMD_FOUND_TOWN", BOTH},
    {"CMD_RENAME_TOWN", BOTH}, {"CMD_DO_TOWN_ACTION", BOTH}, {"CMD_TOWN_CARGO_GOAL", BOTH},
    {"CMD_TOWN_GROWTH_RATE", BOTH}, {"CMD_TOWN_RATING", BOTH}, {"CMD_TOWN_SET_TEXT", BOTH},
    {"CMD_EXPAND_TOWN", BOTH}, {"CMD_DELETE_TOWN", BOTH}, {"CMD_ORDER_REFIT", BOTH},
    {"CMD_CLONE_ORDER", BOTH}, {"CMD_CLEAR_AREA", BOTH}, {"CMD_MONEY_CHEAT", BOTH},
    {"CMD_CHANGE_BANK_BALANCE", BOTH}, {"CMD_BUILD_CANAL", BOTH}, {"CMD_CREATE_SUBSIDY", BOTH},
    {"CMD_COMPANY_CTRL", BOTH}, {"CMD_CUSTOM_NEWS_ITEM", BOTH}, {"CMD_CREATE_GOAL", BOTH},
    {"CMD_REMOVE_GOAL", BOTH}, {"CMD_SET_GOAL_DESTINATION", IN14}, {"CMD_SET_GOAL_TEXT", BOTH},
    {"CMD_SET_GOAL_PROGRESS", BOTH}, {"CMD_SET_GOAL_COMPLETED", BOTH}, {"CMD_GOAL_QUESTION", BOTH},
    {"CMD_GOAL_QUESTION_ANSWER", BOTH}, {"CMD_CREATE_STORY_PAGE", BOTH},
    {"CMD_CREATE_STORY_PAGE_ELEMENT", BOTH}, {"CMD_UPDATE_STORY_PAGE_ELEMENT", BOTH},
    {"CMD_SET_STORY_PAGE_TITLE", BOTH}, {"CMD_SET_STORY_PAGE_DATE", BOTH},
    {"CMD_SHOW_STORY_PAGE", BOTH}, {"CMD_REMOVE_STORY_PAGE", BOTH},
    {"CMD_REMOVE_STORY_PAGE_ELEMENT", BOTH}, {"CMD_SCROLL_VIEWPORT", BOTH},
    {"CMD_STORY_PAGE_BUTTON", BOTH}, {"CMD_LEVEL_LAND", BOTH}, {"CMD_BUILD_LOCK", BOTH},
    {"CMD_BUILD_SIGNAL_TRACK", BOTH}, {"CMD_REMOVE_SIGNAL_TRACK", BOTH}, {"CMD_GIVE_MONEY", BOTH},
    {"CMD_CHANGE_SETTING", BOTH}, {"CMD_CHANGE_COMPANY_SETTING", BOTH},
    {"CMD_SET_AUTOREPLACE", BOTH}, {"CMD_CLONE_VEHICLE", BOTH}, {"CMD_START_STOP_VEHICLE", BOTH},
    {"CMD_MASS_START_STOP", BOTH}, {"CMD_AUTOREPLACE_VEHICLE", BOTH},
    {"CMD_DEPOT_SELL_ALL_VEHICLES", BOTH}, {"CMD_DEPOT_MASS_AUTOREPLACE", BOTH},
    {"CMD_CREATE_GROUP", BOTH}, {"CMD_DELETE_GROUP", BOTH}, {"CMD_ALTER_GROUP", BOTH},
    {"CMD_ADD_VEHICLE_GROUP", BOTH}, {"CMD_ADD_SHARED_VEHICLE_GROUP", BOTH},
    {"CMD_REMOVE_ALL_VEHICLES_GROUP", BOTH}, {"CMD_SET_GROUP_FLAG", BOTH},
    {"CMD_SET_GROUP_LIVERY", BOTH}, {"CMD_MOVE_ORDER", BOTH}, {"CMD_CHANGE_TIMETABLE", BOTH},
    {"CMD_BULK_CHANGE_TIMETABLE", BOTH}, {"CMD_SET_VEHICLE_ON_TIME", BOTH},
    {"CMD_AUTOFILL_TIMETABLE", BOTH}, {"CMD_SET_TIMETABLE_START", BOTH},
    {"CMD_OPEN_CLOSE_AIRPORT", BOTH}, {"CMD_CREATE_LEAGUE_TABLE", BOTH},
    {"CMD_CREATE_LEAGUE_TABLE_ELEMENT", BOTH}, {"CMD_UPDATE_LEAGUE_TABLE_ELEMENT_DATA", BOTH},
    {"CMD_UPDATE_LEAGUE_TABLE_ELEMENT_SCORE", BOTH}, {"CMD_REMOVE_LEAGUE_TABLE_ELEMENT", BOTH},
};

/* the callback index after a command (network_command.cpp, _callback_tuple:
   the same in 13.0 and 14.1) */
static const char *const callbacks[] = {
    "none", "CcBuildPrimaryVehicle", "CcBuildAirport", "CcBuildBridge",
    "CcPlaySound_CONSTRUCTION_WATER", "CcBuildDocks", "CcFoundTown", "CcBuildRoadTunnel",
    "CcBuildRailTunnel", "CcBuildWagon", "CcRoadDepot", "CcRailDepot", "CcPlaceSign",
    "CcPlaySound_EXPLOSION", "CcPlaySound_CONSTRUCTION_OTHER", "CcPlaySound_CONSTRUCTION_RAIL",
    "CcStation", "CcTerraform", "CcAI", "CcCloneVehicle", "CcCreateGroup", "CcFoundRandomTown",
    "CcRoadStop", "CcBuildIndustry", "CcStartStopVehicle", "CcGame", "CcAddVehicleNewGroup"};

/* the name of command `id` in release series `release` (OTTD_V13 or
   OTTD_V14), or NULL */
static const char *command_name(int release, uint64_t id)
{
    unsigned in = release == OTTD_V13 ? IN13 : release == OTTD_V14 ? IN14 : 0;
    uint64_t n = 0;
    for (size_t i = 0; in && i < N(commands); i++)
        if ((commands[i].in & in) && n++ == id)
            return commands[i].name;
    return NULL;
}

/* ---- conversation state --------------------------------------------------------- */

typedef struct {
    /* what every packet reads, in the first 16 bytes: on one cache line
       wherever the allocator (16-byte aligned) puts the state */
    const int *opt;  /* the options (OTTD_OPT_*) */
    int version;              /* numbering in use, 0 = not known yet */
    bool encrypted;           /* after SERVER_ENABLE_ENCRYPTION */
    bool have_server_frame;
    bool have_ack;
    bool map_announced;
    uint32_t server_frame, frame_max;
    uint32_t last_ack;
    uint32_t map_total, map_received;
    bool map_header_seen;
    uint8_t join_step;        /* enum join_step reached, JOIN_NONE until CLIENT_JOIN */
    uint8_t old_release;      /* 0.x numbering: 5 for 0.5/0.6, 7 for 0.7, 0 the wiki's (0.4) layouts */
    bool release_known;       /* version is the revision's own release, not a guess */
} ottd_conv;

/* the join sequence of 13.x and newer, in order; a packet may come once its
   step's predecessor was reached and as long as no later step was */
enum join_step {
    JOIN_NONE, JOIN_JOIN, JOIN_AUTH, JOIN_WELCOME, JOIN_GETMAP, JOIN_WAIT, JOIN_MAP_BEGIN,
    JOIN_MAP_SIZE, JOIN_MAP_DATA, JOIN_MAP_DONE, JOIN_MAP_OK
};

typedef struct {
    uint8_t step, after; /* its step, and the step that must have been reached */
} join_rule;

static join_rule join_rule_of(int pk)
{
    switch (pk) {
    case PK_CLIENT_JOIN: return (join_rule){JOIN_JOIN, JOIN_NONE};
    case PK_SERVER_CHECK_NEWGRFS: case PK_CLIENT_NEWGRFS_CHECKED:
    case PK_SERVER_NEED_GAME_PASSWORD: case PK_CLIENT_GAME_PASSWORD:
    case PK_SERVER_NEED_COMPANY_PASSWORD: case PK_CLIENT_COMPANY_PASSWORD:
    case PK_SERVER_AUTH_REQUEST: case PK_CLIENT_AUTH_RESPONSE:
    case PK_SERVER_ENABLE_ENCRYPTION: case PK_CLIENT_IDENTIFY:
        return (join_rule){JOIN_AUTH, JOIN_JOIN};
    case PK_SERVER_WELCOME: return (join_rule){JOIN_WELCOME, JOIN_JOIN};
    case PK_CLIENT_GETMAP: return (join_rule){JOIN_GETMAP, JOIN_WELCOME};
    case PK_SERVER_WAIT: return (join_rule){JOIN_WAIT, JOIN_GETMAP};
    case PK_SERVER_MAP_BEGIN: return (join_rule){JOIN_MAP_BEGIN, JOIN_GETMAP};
    case PK_SERVER_MAP_SIZE: return (join_rule){JOIN_MAP_SIZE, JOIN_MAP_BEGIN};
    case PK_SERVER_MAP_DATA: return (join_rule){JOIN_MAP_DATA, JOIN_MAP_SIZE};
    case PK_SERVER_MAP_DONE: return (join_rule){JOIN_MAP_DONE, JOIN_MAP_SIZE};
    case PK_CLIENT_MAP_OK: return (join_rule){JOIN_MAP_OK, JOIN_MAP_DONE};
    default: return (join_rule){JOIN_NONE, JOIN_NONE};
    }
}

static const char *const join_step_names[] = {
    "nothing", "CLIENT_JOIN", "the password/identification exchange", "SERVER_WELCOME", "CLIENT_GETMAP",
    "SERVER_WAIT", "SERVER_MAP_BEGIN", "SERVER_MAP_SIZE", "SERVER_MAP_DATA", "SERVER_MAP_DONE", "CLIENT_MAP_OK"};

static void conv_init(void *p, const int *opt)
{
    memset(p, 0, sizeof(ottd_conv));
    ((ottd_conv *)p)->opt = opt;
}
static void conv_free(void *p) { (void)p; }

/* ---- decoding ---------------------------------------------------------------------- */

typedef struct {
    gw_pdu p;
    ottd_conv *conv;
    int version;
    int release;              /* the release series whose names apply (13, 14), or 0 */
    bool seen[OTTD_F_COUNT];
    /* not cleared for each PDU (it is large): the last value of each numeric field and string, for summaries and
       checks: read only where seen[] says it was set in this PDU */
    uint64_t val[OTTD_F_COUNT];
    gw_span text[OTTD_F_COUNT];
} ottd_ctx;

#define summary_add(x, ...) gw_summary_add(&(x)->p.sum, __VA_ARGS__)

/* a value's name that depends on the release (commands, callbacks), or NULL */
static const char *release_name(const ottd_ctx *x, int field, uint64_t v)
{
    if (field == OTTD_F_CMD)
        return command_name(x->release, v);
    if (field == OTTD_F_CALLBACK && (x->release == OTTD_V13 || x->release == OTTD_V14) && v < N(callbacks))
        return callbacks[v];
    return NULL;
}

/* release names (gw_pdu_hooks.value_name) */
static const char *value_name(gw_pdu *p, int field, uint64_t v)
{
    return release_name((ottd_ctx *)p, field, v);
}

/* CMD32 */
static void cmd32(gw_pdu *p)
{
    /* command.h: the low byte indexes _command_proc_table (cmd & 0xFF),
       the flags (CMD_AUTO 0x0200 ...) are the next byte, CMD_MSG(x)
       puts the error message's string id in the high 16 bits; little
       endian, so each is its own bytes */
    ottd_ctx *x = (ottd_ctx *)p;
    size_t off = x->p.c.off;
    if (!gw_take_num(&x->p, OTTD_F_CMD32, 4, false, NULL))
        return;
    gw_emit_push(&x->p.e);
    gw_emit_u(&x->p.e, OTTD_F_CMD32_ID, off, 1, x->val[OTTD_F_CMD32] & 0xff);
    gw_emit_u(&x->p.e, OTTD_F_CMD32_FLAGS, off + 1, 1, (x->val[OTTD_F_CMD32] >> 8) & 0xff);
    gw_emit_u(&x->p.e, OTTD_F_ERR_MSG, off + 2, 2, x->val[OTTD_F_CMD32] >> 16);
    gw_emit_pop(&x->p.e, off + 4);
}

/* TILE */
static bool tile_before_14(gw_pdu *p)
{
    return ((ottd_ctx *)p)->version < OTTD_V14;
}

/* set, the hooks let the layouts' steps and tests run; names by release
   only where the release is known for sure */
static const gw_pdu_hooks hooks = {0};
static const gw_pdu_hooks release_hooks = {.value_name = value_name};

static int version_from_revision(const uint8_t *s, size_t n, bool *guess, uint8_t *old_release)
{
    unsigned major = 0;
    size_t i = 0;
    *guess = false;
    *old_release = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && major < 1000)
        major = major * 10 + (unsigned)(s[i++] - '0');
    if (i == 0 || i >= n || s[i] != '.')
        return 0; /* "norev000", a git hash: nothing to learn */
    if (major == 0) {
        /* "0.5.3", "0.6.0-RC1", "0.7.1": the release picks the layouts */
        unsigned minor = i + 1 < n ? (unsigned)(s[i + 1] - '0') : 0;
        if (i + 2 >= n || s[i + 2] < '0' || s[i + 2] > '9')
            *old_release = minor == 5 || minor == 6 ? 5 : minor == 7 ? 7 : 0;
        return OTTD_V_OLD;
    }
    if (major == 13 || major == 14 || major == 15)
        return (int)major;
    *guess = true;
    return major < 13 ? OTTD_V13 : OTTD_V15;
}

static void learn_version(ottd_ctx *x, const uint8_t *rev, size_t n, size_t off)
{
    bool guess;
    uint8_t old_release;
    int v = version_from_revision(rev, n, &guess, &old_release);
    if (v == OTTD_V_OLD)
        x->conv->old_release = old_release;
    if (!v || x->conv->opt[OTTD_OPT_VERSION] != OTTD_V_AUTO)
        return;
    if (guess)
        gw_emit_finding(&x->p.e, OTTD_E_VERSION_GUESS, off, n,
                        "Revision \"%.*s\": using the %s numbering", (int)(n > 40 ? 40 : n), rev,
                        gw_value_name_of(version_names, (uint32_t)v));
    x->conv->version = v;
    x->conv->release_known = !guess;
}

/* The game info block as OpenTTD's DeserializeNetworkGameInfo
   (src/network/core/network_game_info.cpp) reads it, newest version first,
   each version's part falling through to the older ones: 7 ticks playing;
   6 the NewGRF serialisation (0 id + MD5, 1 with names, 2 lookup ids; 3 and
   more: the reader stops); 5 game script version and name; 4 the NewGRFs;
   3 u32 dates; 2 companies; 1 names, then the language byte and the map
   name while the version is below 6, u16 dates below 3. */
static void game_info(ottd_ctx *x)
{
    if (!gw_take_u(&x->p, OTTD_F_GI_VERSION, 1, NULL))
        return;
    unsigned v = (unsigned)x->val[OTTD_F_GI_VERSION];
    unsigned grf_type = 0;
    if (v >= 7 && !gw_take_u(&x->p, OTTD_F_GI_TICKS, 8, NULL))
        return;
    if (v >= 6) {
        if (!gw_take_u(&x->p, OTTD_F_GI_GRF_TYPE, 1, NULL))
            return;
        grf_type = (unsigned)x->val[OTTD_F_GI_GRF_TYPE];
        if (grf_type > 2) /* the reader stops: nothing after it is read */
            return;
    }
    if (v >= 5 && !gw_layout_run(&x->p, L(U32(GI_GS_VERSION), STR(GI_GS_NAME))))
        return;
    if (v >= 4) {
        if (!gw_take_u(&x->p, OTTD_F_GRF_COUNT, 1, NULL))
            return;
        for (uint64_t i = 0; i < x->val[OTTD_F_GRF_COUNT] && !x->p.failed; i++) {
            if (grf_type == 2) {
                gw_take_u(&x->p, OTTD_F_GRF_LOOKUP, 4, NULL);
                continue;
            }
            gw_layout_run(&x->p, L(GRF_ID, BYTES(GRF_MD5, 16)));
            if (grf_type == 1)
                gw_take_cstr(&x->p, OTTD_F_GRF_NAME, OTTD_E_STRING_UNTERMINATED, NULL, NULL);
        }
    }
    if (v >= 3 && !gw_layout_run(&x->p, L(U32(GI_GAME_DATE), U32(GI_START_DATE))))
        return;
    if (v >= 2 && !gw_layout_run(&x->p, L(U8(GI_COMPANIES_MAX), U8(GI_COMPANIES_ON), U8(GI_SPECTATORS_MAX))))
        return;
    if (!gw_layout_run(&x->p, L(STR(SERVER_NAME), STR(REVISION))))
        return;
    if (v < 6 && !gw_take_u(&x->p, OTTD_F_LANGUAGE, 1, NULL))
        return;
    if (!gw_layout_run(&x->p, L(BOOL(GI_PASSWORD), U8(GI_CLIENTS_MAX), U8(GI_CLIENTS_ON), U8(GI_SPECTATORS_ON))))
        return;
    if (v < 3 && !gw_layout_run(&x->p, L(U16(GI_OLD_DATE), U16(GI_OLD_DATE))))
        return;
    if (v < 6 && !gw_take_cstr(&x->p, OTTD_F_GI_MAP_NAME, OTTD_E_STRING_UNTERMINATED, NULL, NULL))
        return;
    gw_layout_run(&x->p, L(U16(GI_MAP_WIDTH), U16(GI_MAP_HEIGHT), U8(GI_LANDSCAPE), BOOL(GI_DEDICATED)));
}

/* company info 4 over UDP: clients while the marker byte is 1 */
static void client_list(ottd_ctx *x)
{
    while (gw_take_u(&x->p, OTTD_F_CI_CLIENT_FOLLOWS, 1, NULL) && x->val[OTTD_F_CI_CLIENT_FOLLOWS] == 1)
        if (!gw_layout_run(&x->p, L(STR(NAME), STR(UNIQUE_ID), U32(CI_JOIN_DATE))))
            return;
}

/* One company of SERVER_COMPANY_INFO (TCP, 0.5 - 0.7) or UDP
   SERVER_DETAIL_INFO, by the company info version: the block every version
   has (0.7 Send_CompanyInformation: index, name, inaugurated year, value,
   money, income, performance, "1 if there is a passord", five vehicle and
   five station counts); 6 (1.x) adds is_ai; over TCP the names of its
   clients follow; over UDP, version 4 (0.5 network_udp.c) follows it with
   its clients, each "uint8 == 1 indicates that a client is following",
   name, unique id and join date, and a 0 that ends the list. */
static void company_entry(ottd_ctx *x, unsigned version, bool udp)
{
    if (!gw_layout_run(&x->p, L(U8(COMPANY), STR(CI_NAME), U32(CI_INAUGURATED), U64(CI_VALUE), U64(CI_MONEY),
                         U64(CI_INCOME), U16(CI_PERFORMANCE), BOOL(CI_PASSWORD), U16(CI_TRAINS), U16(CI_LORRIES),
                         U16(CI_BUSES), U16(CI_PLANES), U16(CI_SHIPS), U16(CI_TRAIN_STATIONS),
                         U16(CI_TRUCK_STOPS), U16(CI_BUS_STOPS), U16(CI_AIRPORTS), U16(CI_DOCKS))))
        return;
    if (version >= 6 && !gw_take_u(&x->p, OTTD_F_CI_IS_AI, 1, NULL))
        return;
    if (!udp)
        gw_take_cstr(&x->p, OTTD_F_CI_CLIENTS, OTTD_E_STRING_UNTERMINATED, NULL, NULL);
    else if (version <= 4)
        client_list(x);
}

/* TCP SERVER_COMPANY_INFO: version, the number of active companies (0 in
   the packet that ends the list), one company */
static void company_info(ottd_ctx *x)
{
    if (!gw_layout_run(&x->p, L(U8(CI_VERSION), U8(CI_COUNT))) || !x->val[OTTD_F_CI_COUNT])
        return;
    company_entry(x, (unsigned)x->val[OTTD_F_CI_VERSION], false);
}

/* UDP SERVER_DETAIL_INFO: version, count, that many companies; version 4
   then lists the spectators the same way */
static void detail_info(ottd_ctx *x)
{
    if (!gw_layout_run(&x->p, L(U8(CI_VERSION), U8(CI_COUNT))))
        return;
    unsigned version = (unsigned)x->val[OTTD_F_CI_VERSION];
    for (uint64_t i = 0, n = x->val[OTTD_F_CI_COUNT]; i < n && !x->p.failed; i++)
        company_entry(x, version, true);
    if (version <= 4 && !x->p.failed)
        client_list(x);
}

/* MASTER_RESPONSE_LIST: the address family, a count, then each server's
   address (4 or 16 bytes, in network order) and its u16 port */
static void master_list(ottd_ctx *x)
{
    if (!gw_layout_run(&x->p, L(U8(MASTER_LIST))))
        return;
    unsigned family = (unsigned)x->val[OTTD_F_MASTER_LIST];
    if (family != 1 && family != 2) {
        gw_take_bytes(&x->p, OTTD_F_PAYLOAD, gw_remaining(&x->p.c));
        return;
    }
    if (!gw_take_u(&x->p, OTTD_F_MASTER_COUNT, 2, NULL))
        return;
    int field = family == 1 ? OTTD_F_MASTER_IPV4 : OTTD_F_MASTER_IPV6;
    size_t alen = family == 1 ? 4 : 16;
    for (uint64_t i = 0; i < x->val[OTTD_F_MASTER_COUNT] && !x->p.failed; i++)
        if (gw_take_bytes(&x->p, field, alen))
            gw_take_u(&x->p, OTTD_F_MASTER_SERVER_PORT, 2, NULL);
}

static bool printable4(const uint8_t *p)
{
    for (int i = 0; i < 4; i++)
        if (p[i] < 0x20 || p[i] > 0x7e)
            return false;
    return true;
}

static void map_data(ottd_ctx *x)
{
    ottd_conv *cv = x->conv;
    size_t off = x->p.c.off, n = gw_remaining(&x->p.c);
    gw_emit_b(&x->p.e, OTTD_F_MAP_DATA, off, n, x->p.c.data + off, n);
    if (!cv->map_header_seen) {
        cv->map_header_seen = true;
        if (n >= 8 && printable4(x->p.c.data + off)) {
            gw_emit_label(&x->p.e, OTTD_F_SAVEGAME, off, 8, "Savegame header");
            gw_emit_push(&x->p.e);
            gw_take_bytes(&x->p, OTTD_F_SAVEGAME_FORMAT, 4);
            gw_take_num(&x->p, OTTD_F_SAVEGAME_VERSION, 2, true, NULL);
            gw_take_num(&x->p, OTTD_F_SAVEGAME_MINOR, 2, true, NULL);
            gw_emit_pop(&x->p.e, off + 8);
            summary_add(x, " %.4s v%u", (const char *)x->p.c.data + off, (unsigned)x->val[OTTD_F_SAVEGAME_VERSION]);
        } else {
            gw_emit_finding(&x->p.e, OTTD_E_NOT_SAVEGAME, off, n < 8 ? n : 8,
                            "The map does not start with a savegame header");
        }
    }
    x->p.c.off = x->p.c.len;
    cv->map_received += (uint32_t)n;
    gw_emit_gen_u(&x->p.e, OTTD_F_MAP_RECEIVED, off, cv->map_received);
    if (cv->map_announced) {
        gw_emit_gen_u(&x->p.e, OTTD_F_MAP_TOTAL, off, cv->map_total);
        summary_add(x, " %u/%u %s", cv->map_received, cv->map_total, gw_bytes(cv->map_total));
    } else {
        summary_add(x, " %u %s", cv->map_received, gw_bytes(cv->map_received));
    }
}

/* a map transfer's bookkeeping, shared by 13.x's SERVER_MAP_BEGIN /
   _SIZE / _DONE and the parts of 0.5-0.7's SERVER_MAP */
static void map_begin(ottd_conv *cv)
{
    cv->map_received = 0;
    cv->map_header_seen = false;
    cv->map_announced = false;
}

static void map_announce(ottd_conv *cv, uint32_t total)
{
    cv->map_announced = true;
    cv->map_total = total;
}

static void map_check_sum(ottd_ctx *x, size_t off, const char *announcer)
{
    const ottd_conv *cv = x->conv;
    if (cv->map_announced && cv->map_received != cv->map_total)
        gw_emit_finding(&x->p.e, OTTD_E_MAP_MISMATCH, off, 1, "%u map %s received, %s said %u", cv->map_received,
                        gw_bytes(cv->map_received), announcer, cv->map_total);
}

/* the 0.5-0.7 SERVER_MAP: one packet type with a part code */
static void old_map(ottd_ctx *x)
{
    if (!gw_take_u(&x->p, OTTD_F_MAP_PACKET, 1, NULL))
        return;
    ottd_conv *cv = x->conv;
    switch (x->val[OTTD_F_MAP_PACKET]) {
    case 0: /* the wiki: the frame; every release's server then sends the savegame's size */
        map_begin(cv);
        if (gw_layout_run(&x->p, L(U32(FRAME), OPT, U32(MAP_SIZE))) && x->seen[OTTD_F_MAP_SIZE]) {
            map_announce(cv, (uint32_t)x->val[OTTD_F_MAP_SIZE]);
            summary_add(x, " start, %u %s", cv->map_total, gw_bytes(cv->map_total));
        }
        break;
    case 1: map_data(x); break;
    default: /* the end; 0.4 put the companies' seeds in it */
        if (x->val[OTTD_F_MAP_PACKET] == 2)
            map_check_sum(x, x->p.c.off - 1, "MAP_PACKET_START");
        if (gw_remaining(&x->p.c))
            gw_take_bytes(&x->p, OTTD_F_PAYLOAD, gw_remaining(&x->p.c));
        break;
    }
}

/* a string field's last value in the summary */
static void summary_text(ottd_ctx *x, int field, size_t max_chars, const char *fmt)
{
    char text[256];
    if (!x->seen[field] || x->p.sum.off)
        return;
    gw_clean_text(text, sizeof text, x->text[field].p, x->text[field].n, max_chars);
    summary_add(x, fmt, text);
}

/* after the fields: what the packet means for the connection */
static void check_join(ottd_ctx *x, int pk, size_t type_off)
{
    ottd_conv *cv = x->conv;
    join_rule r = join_rule_of(pk);
    if (r.step == JOIN_NONE || x->version == OTTD_V_OLD || (cv->join_step == JOIN_NONE && pk != PK_CLIENT_JOIN))
        return; /* not a join packet, the wiki's era, or a capture begun after the join */
    bool repeats = r.step == JOIN_AUTH || r.step == JOIN_WAIT || r.step == JOIN_MAP_DATA;
    if (cv->join_step < r.after)
        gw_emit_finding(&x->p.e, OTTD_E_JOIN_ORDER, type_off, 1, "%s before %s", join_step_names[r.step],
                        join_step_names[r.after]);
    else if (cv->join_step > r.step || (cv->join_step == r.step && !repeats))
        gw_emit_finding(&x->p.e, OTTD_E_JOIN_ORDER, type_off, 1, "%s after %s", join_step_names[r.step],
                        join_step_names[cv->join_step]);
    if (r.step > cv->join_step)
        cv->join_step = r.step;
}

/* " CMD_PAUSE" where the release names the command, else " cmd 62" */
static void summary_command(ottd_ctx *x)
{
    if (!x->seen[OTTD_F_CMD] && !x->seen[OTTD_F_CMD32])
        return;
    uint64_t id = x->seen[OTTD_F_CMD] ? x->val[OTTD_F_CMD] : x->val[OTTD_F_CMD32] & 0xff;
    /* (named as its item is: by the release known for sure, whether or not
       items are taken) */
    const char *name = x->seen[OTTD_F_CMD] ? release_name(x, OTTD_F_CMD, id) : NULL;
    if (name)
        summary_add(x, " %s", name);
    else
        summary_add(x, " cmd %u", (unsigned)id);
}

static void analyse(ottd_ctx *x, int pk, size_t type_off)
{
    ottd_conv *cv = x->conv;
    check_join(x, pk, type_off);
    switch (pk) {
    case PK_SERVER_FRAME:
        if (!x->seen[OTTD_F_FRAME] || !x->seen[OTTD_F_FRAME_MAX])
            break;
        if (cv->have_server_frame && x->val[OTTD_F_FRAME] < cv->server_frame)
            gw_emit_finding(&x->p.e, OTTD_E_FRAME_BACK, type_off + 1, 4, "Frame %u after frame %u",
                            (unsigned)x->val[OTTD_F_FRAME], cv->server_frame);
        cv->have_server_frame = true;
        cv->server_frame = (uint32_t)x->val[OTTD_F_FRAME];
        cv->frame_max = (uint32_t)x->val[OTTD_F_FRAME_MAX];
        summary_add(x, " frame %u max %u", cv->server_frame, cv->frame_max);
        break;
    case PK_CLIENT_ACK: {
        if (!x->seen[OTTD_F_FRAME])
            break;
        uint32_t ack = (uint32_t)x->val[OTTD_F_FRAME];
        summary_add(x, " frame %u", ack);
        if (cv->have_ack && ack < cv->last_ack)
            gw_emit_finding(&x->p.e, OTTD_E_FRAME_BACK, type_off + 1, 4, "Ack of frame %u after frame %u",
                            ack, cv->last_ack);
        cv->have_ack = true;
        cv->last_ack = ack;
        if (cv->have_server_frame) {
            uint32_t lag = cv->server_frame > ack ? cv->server_frame - ack : 0;
            gw_emit_gen_u(&x->p.e, OTTD_F_ACK_LAG, type_off + 1, lag);
            summary_add(x, " (%u behind)", lag);
            if (ack > cv->frame_max)
                gw_emit_finding(&x->p.e, OTTD_E_ACK_BEYOND_MAX, type_off + 1, 4,
                                "Ack of frame %u beyond frame_max %u", ack, cv->frame_max);
        }
        break;
    }
    case PK_SERVER_SYNC: case PK_SERVER_MAP_BEGIN:
        if (x->seen[OTTD_F_FRAME])
            summary_add(x, " frame %u", (unsigned)x->val[OTTD_F_FRAME]);
        if (pk == PK_SERVER_MAP_BEGIN)
            map_begin(cv);
        break;
    case PK_SERVER_MAP_SIZE:
        if (x->seen[OTTD_F_MAP_SIZE]) {
            map_announce(cv, (uint32_t)x->val[OTTD_F_MAP_SIZE]);
            summary_add(x, " %u %s", cv->map_total, gw_bytes(cv->map_total));
        }
        break;
    case PK_SERVER_MAP_DONE:
        gw_emit_gen_u(&x->p.e, OTTD_F_MAP_RECEIVED, type_off, cv->map_received);
        if (cv->map_announced)
            gw_emit_gen_u(&x->p.e, OTTD_F_MAP_TOTAL, type_off, cv->map_total);
        map_check_sum(x, type_off, "SERVER_MAP_SIZE");
        summary_add(x, " (%u %s)", cv->map_received, gw_bytes(cv->map_received));
        break;
    case PK_SERVER_ENABLE_ENCRYPTION:
        cv->encrypted = true;
        break;
    case PK_SERVER_COMMAND:
        if (!x->seen[OTTD_F_FRAME])
            break;
        summary_command(x);
        summary_add(x, " frame %u", (unsigned)x->val[OTTD_F_FRAME]);
        if (cv->have_server_frame && x->val[OTTD_F_FRAME] <= cv->server_frame)
            gw_emit_finding(&x->p.e, OTTD_E_COMMAND_PASSED, type_off, 1,
                            "Command for frame %u, but SERVER_FRAME %u was already sent", (unsigned)x->val[OTTD_F_FRAME],
                            cv->server_frame);
        break;
    case PK_CLIENT_COMMAND:
        summary_command(x);
        break;
    default:
        break;
    }
    /* key values */
    if (x->seen[OTTD_F_ACTION]) /* chat: what and to whom */
        summary_add(x, " %s", gw_value_name_or(action_names, (uint32_t)x->val[OTTD_F_ACTION], "unknown action"));
    if (x->seen[OTTD_F_DEST_TYPE] && x->seen[OTTD_F_DEST]) {
        uint64_t dt = x->val[OTTD_F_DEST_TYPE];
        if (dt == 0)
            summary_add(x, " to all");
        else
            summary_add(x, " to %s %u", dt == 1 ? "company" : dt == 2 ? "client" : "destination ?",
                        (unsigned)x->val[OTTD_F_DEST]);
    }
    if (x->seen[OTTD_F_CLIENT_ID] && pk != PK_SERVER_COMMAND)
        summary_add(x, " %s %u",
                    x->seen[OTTD_F_ACTION] && x->val[OTTD_F_ACTION] >= 3 && x->val[OTTD_F_ACTION] <= 5
                        ? "from client" /* CHAT, CHAT_COMPANY, CHAT_CLIENT */
                        : "client",
                    (unsigned)x->val[OTTD_F_CLIENT_ID]);
    if (x->seen[OTTD_F_ERROR_CODE]) {
        summary_add(x, " error %s",
                    gw_value_name_or(error_names, (uint32_t)x->val[OTTD_F_ERROR_CODE], "unknown"));
    }
    summary_text(x, OTTD_F_NAME, 40, " \"%s\"");
    if (x->seen[OTTD_F_MESSAGE] && x->text[OTTD_F_MESSAGE].n) /* a notice's message is empty */
        summary_text(x, OTTD_F_MESSAGE, 60, " \"%s\"");
    if (pk != PK_SERVER_GAME_INFO && pk != PK_UDP_SERVER_RESPONSE)
        summary_text(x, OTTD_F_REVISION, 20, " rev %s");
    summary_text(x, OTTD_F_SERVER_NAME, 40, " \"%s\"");
}

static const gw_lstep rest_payload[] = {REST(PAYLOAD), {.op = GW_L_END}};

static const gw_lstep *layout_of(int version, bool udp, int old_release, int pk)
{
    const gw_lstep *l;
    if (udp)
        l = layouts_udp[pk];
    else if (version == OTTD_V_OLD) /* 0.7 over 0.5/0.6 over the wiki's */
        l = old_release == 7 && layouts_07[pk] ? layouts_07[pk]
          : old_release >= 5 && layouts_05[pk] ? layouts_05[pk]
          : layouts_old[pk];
    else
        l = version == OTTD_V15 && layouts_15[pk] ? layouts_15[pk] : layouts_13[pk];
    return l ? l : rest_payload;
}

static int packet_of(int version, bool udp, unsigned type)
{
    const uint8_t *t;
    size_t n;
    if (udp) {
        t = numbering_udp_old; n = N(numbering_udp_old);
    } else if (version == OTTD_V_OLD) {
        t = numbering_old; n = N(numbering_old);
    } else if (version == OTTD_V14) {
        t = numbering_14; n = N(numbering_14);
    } else if (version == OTTD_V15) {
        t = numbering_15; n = N(numbering_15);
    } else {
        t = numbering_13; n = N(numbering_13);
    }
    return type < n ? t[type] : PK_UNKNOWN;
}

/* pcaptool conform's packets: `type` is the packet (enum packet, PK_*),
   numbered and laid out as the forced version, else the default one,
   says; framed as the TCP game protocol frames it (size u16 counting the
   whole packet, type u8) */
static size_t ottd_build(const int *opts, int64_t type, const gw_wval *vals, uint8_t *out, size_t cap)
{
    int version = opts[OTTD_OPT_VERSION] != OTTD_V_AUTO ? opts[OTTD_OPT_VERSION] : opts[OTTD_OPT_DEFAULT_VERSION];
    int wire = -1;
    for (unsigned t = 0; t < 256 && wire < 0; t++)
        if (type > PK_UNKNOWN && type < PK_COUNT && packet_of(version, false, t) == type)
            wire = (int)t;
    size_t n, head = gw_frame_size(&framing);
    if (wire < 0 || cap < head ||
        !gw_layout_write(layout_of(version, false, 0, (int)type), false, vals, out + head, cap - head, &n) ||
        !gw_frame_write(&framing, GW_WVALS(GW_WU(OTTD_F_TYPE, (uint64_t)wire)), n, out, cap))
        return 0;
    return n + head;
}

static void ottd_decode(void *conv, const gw_pdu_info *pi, const uint8_t *data, size_t len,
                        const gw_sink *sink)
{
    ottd_ctx xs, *x = &xs;
    /* past its gw_pdu (gw_pdu_begin readies that, and its summary's 256
       bytes need no clearing) up to the values seen[] guards */
    memset((char *)x + sizeof x->p, 0, offsetof(ottd_ctx, val) - sizeof x->p);
    gw_pdu_begin(&x->p, &gw_openttd_protocol, sink, pi, data, len);
    x->p.rec = (gw_record){x->seen, x->val, x->text};
    x->p.hooks = &hooks;
    ottd_conv *cv = conv;
    bool udp = pi->transport == GW_TRANSPORT_UDP;
    x->conv = cv;

    uint64_t size64;
    if (!gw_frame_take(&x->p, &framing, OTTD_F_SIZE, &size64)) {
        gw_sink_summary(sink, "Truncated packet");
        return;
    }
    unsigned size = (unsigned)size64;
    size_t head = gw_frame_size(&framing);
    if (size < head || (size & 0x8000)) {
        gw_emit_finding(&x->p.e, OTTD_E_BAD_SIZE, 0, 2, "Size %u: %s", size,
                        size < head ? "below the 3-byte header" : "the reserved high bit is set");
        gw_take_bytes(&x->p, OTTD_F_PAYLOAD, gw_remaining(&x->p.c));
        summary_add(x, "Invalid size %u (%zu %s skipped)", size, len, gw_bytes(len));
        gw_pdu_finish(&x->p);
        return;
    }
    /* UDP: the size must match the datagram (TCP framing guarantees it) */
    size_t end = size < len ? size : len;
    x->p.c.len = end;

    if (cv->encrypted && !udp) {
        gw_take_bytes(&x->p, OTTD_F_MAC, 16);
        gw_take_bytes(&x->p, OTTD_F_ENCRYPTED, gw_remaining(&x->p.c));
        gw_emit_finding(&x->p.e, OTTD_E_ENCRYPTED, 2, end - 2, "Encrypted packet");
        summary_add(x, "Encrypted packet (%u %s)", size, gw_bytes(size));
    } else {
        /* the type is shown by the name it has in this connection's
           numbering, which its own value may decide (CLIENT_JOIN) */
        size_t type_off = x->p.c.off;
        if (!gw_pdu_need(&x->p, 1, fields[OTTD_F_TYPE].name)) {
            gw_sink_summary(sink, "Truncated packet");
            return;
        }
        uint64_t type64 = 0;
        gw_frame_num(&framing, OTTD_F_TYPE, data, end, &type64);
        unsigned type = (unsigned)type64;
        x->p.c.off++;
        gw_record_num(&x->p, OTTD_F_TYPE, type);
        int forced = cv->opt[OTTD_OPT_VERSION];
        if (!udp && forced == OTTD_V_AUTO && type == 2 && !cv->version) {
            /* CLIENT_JOIN is 2 in every numbering: its revision tells the rest */
            const uint8_t *rev = data + head;
            const uint8_t *nul = memchr(rev, 0, end - head);
            if (nul)
                learn_version(x, rev, (size_t)(nul - rev), head);
        }
        int version = forced != OTTD_V_AUTO ? forced
                    : cv->version ? cv->version : cv->opt[OTTD_OPT_DEFAULT_VERSION];
        x->version = version;
        /* names that differ between releases only for a release known for sure */
        if (forced != OTTD_V_AUTO || cv->release_known)
            x->release = version;
        if (x->release)
            x->p.hooks = &release_hooks;
        int pk = packet_of(version, udp, type);
        const char *pn = packet_names[pk].name; /* the table is in enum order */
        gw_emit_named_u(&x->p.e, OTTD_F_TYPE, type_off, 1, type, pk == PK_UNKNOWN ? NULL : pn);
        if (!udp)
            gw_emit_gen_u(&x->p.e, OTTD_F_VERSION, type_off, (uint64_t)version);
        gw_emit_hidden_u(&x->p.e, OTTD_F_PACKET, type_off, (uint64_t)pk);
        if (pk == PK_UNKNOWN) {
            gw_emit_finding(&x->p.e, OTTD_E_UNKNOWN_TYPE, type_off, 1, "Type %u is not a %s%s packet", type,
                            udp ? "UDP" : gw_value_name_of(version_names, (uint32_t)version),
                            udp ? "" : " game");
            summary_add(x, "Unknown type %u", type);
            gw_take_bytes(&x->p, OTTD_F_PAYLOAD, gw_remaining(&x->p.c));
        } else {
            summary_add(x, "%s", pn);
            int sender = udp ? -1 : packet_senders[pk];
            if (sender >= 0 && sender != pi->dir)
                gw_emit_finding(&x->p.e, OTTD_E_WRONG_DIRECTION, type_off, 1, "%s sent by the %s", pn,
                                pi->dir ? "server" : "client");
            unsigned limit = large_packet(pk) ? OPENTTD_MTU_LARGE : OPENTTD_MTU;
            if (size > limit)
                gw_emit_finding(&x->p.e, OTTD_E_TOO_LARGE, 0, 2, "%s of %u %s (limit %u)", pn, size, gw_bytes(size), limit);
            if (pk == PK_SERVER_GAME_INFO || (pk == PK_UDP_SERVER_RESPONSE && gw_remaining(&x->p.c)))
                game_info(x);
            else if (pk == PK_SERVER_MAP_DATA)
                map_data(x);
            else if (pk == PK_SERVER_MAP)
                old_map(x);
            else if (pk == PK_SERVER_COMPANY_INFO)
                company_info(x);
            else if (pk == PK_UDP_SERVER_DETAIL_INFO)
                detail_info(x);
            else if (pk == PK_UDP_MASTER_RESPONSE_LIST)
                master_list(x);
            else
                gw_layout_run_numbers_first(&x->p, layout_of(version, udp, cv->old_release, pk));
            if (pk == PK_SERVER_GAME_INFO && x->seen[OTTD_F_REVISION] && !cv->version)
                learn_version(x, x->text[OTTD_F_REVISION].p, x->text[OTTD_F_REVISION].n,
                              (size_t)(x->text[OTTD_F_REVISION].p - data));
            gw_pdu_trailing(&x->p, OTTD_F_TRAILING, OTTD_E_TRAILING, "%zu byte%s after the last field");
            analyse(x, pk, type_off);
        }
    }
    if (size > len)
        gw_emit_finding(&x->p.e, OTTD_E_TRUNCATED, len, 0, "Size %u, but the %s has %zu %s", size,
                        udp ? "datagram" : "packet", len, gw_bytes(len));
    else if (size < len && udp)
        gw_emit_finding(&x->p.e, OTTD_E_TRAILING, size, len - size, "%zu %s after the packet's size",
                        len - size, gw_bytes(len - size));
    gw_pdu_finish(&x->p);
}

static long ottd_pdu_length(const int *opts, const uint8_t *data, size_t avail)
{
    (void)opts;
    uint64_t size;
    if (!gw_frame_length(&framing, data, avail, &size))
        return 0;
    if (size < gw_frame_size(&framing) || (size & 0x8000))
        return GW_PDU_INVALID;
    return (long)size;
}

/* The first bytes of a connection or datagram: a CLIENT_JOIN whose revision
 * string is printable and terminated, or (UDP) a 3-byte CLIENT_FIND_SERVER.
 * Not a CLIENT_GAME_INFO (03 00 07): three bytes are too few to claim a TCP
 * conversation on an unknown port (ordinary streams hold them by chance;
 * on port 3979 it is decoded all the same). */
static bool ottd_heuristic(const int *opts, int transport, const uint8_t *data, size_t len)
{
    (void)opts;
    size_t head = gw_frame_size(&framing);
    uint64_t size, type;
    if (!gw_frame_num(&framing, OTTD_F_SIZE, data, len, &size) || !gw_frame_num(&framing, OTTD_F_TYPE, data, len, &type))
        return false;
    if (transport == GW_TRANSPORT_UDP)
        return size == head && len == head && type == 0;
    if (size < head || size > len || size > OPENTTD_MTU)
        return false;
    if (type != 2 || size < 8)
        return false;
    size_t i = head;
    while (i < size && data[i] >= 0x20 && data[i] < 0x7f)
        i++;
    return i > 3 && i < size && data[i] == 0;
}

/* pcaptool stats and the statistics tree: how far clients lag behind */
static const int measures[] = {OTTD_F_ACK_LAG};

const gw_protocol gw_openttd_protocol = {
    .name = "openttd",
    .short_name = "OpenTTD",
    .long_name = "OpenTTD game protocol",
    .transports = GW_TRANSPORT_TCP | GW_TRANSPORT_UDP,
    .default_port = OPENTTD_PORT,
    .fields = fields,
    .n_fields = OTTD_F_COUNT,
    .findings = findings,
    .n_findings = OTTD_E_COUNT,
    .truncated_finding = OTTD_E_TRUNCATED,
    .rest_field = OTTD_F_PAYLOAD,
    .rules = rules,
    .n_rules = (int)(sizeof rules / sizeof rules[0]),
    .type_field = OTTD_F_PACKET,
    .measures = measures,
    .n_measures = (int)(sizeof measures / sizeof measures[0]),
    .options = options,
    .n_options = (int)(sizeof options / sizeof options[0]),
    .conv_size = sizeof(ottd_conv),
    .conv_init = conv_init,
    .conv_free = conv_free,
    .decode = ottd_decode,
    .pdu_length = ottd_pdu_length,
    .pdu_header = 2,
    .heuristic = ottd_heuristic,
    .build = ottd_build,
};
