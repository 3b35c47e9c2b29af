/* openttd.h - the OpenTTD game protocol (TCP and UDP port 3979).
 *
 * Wire facts: docs/wire-facts.md section 2 (OpenTTD/OpenTTD
 * src/network) and the OpenTTD wiki text (the 0.4/0.5-era text:
 * docs/protocol-texts.md).
 */
#ifndef GW_OPENTTD_H
#define GW_OPENTTD_H

#include "core/gw_core.h"
#include "core/gw_tables.h"

#define OPENTTD_PORT 3979
#define OPENTTD_MTU 1460          /* COMPAT_MTU: most packets */
#define OPENTTD_MTU_LARGE 32767   /* TCP_MTU: map data, game info, ... */

/* which packet numbering a connection uses */
enum openttd_version {
    OTTD_V_AUTO = 0, /* option value: infer from the revision string */
    OTTD_V_OLD = 1,  /* 0.5 - 0.7, the wiki's packet set */
    OTTD_V13 = 13,
    OTTD_V14 = 14,
    OTTD_V15 = 15,
};
/* the packets of every numbering (openttd.packet: their names, in enum order) */
#define OTTD_PACKETS(X) \
    X(UNKNOWN, "unknown") \
    X(SERVER_FULL, "SERVER_FULL") X(SERVER_BANNED, "SERVER_BANNED") \
    X(CLIENT_JOIN, "CLIENT_JOIN") X(SERVER_ERROR, "SERVER_ERROR") \
    X(CLIENT_UNUSED, "CLIENT_UNUSED") X(SERVER_UNUSED, "SERVER_UNUSED") \
    X(SERVER_GAME_INFO, "SERVER_GAME_INFO") X(CLIENT_GAME_INFO, "CLIENT_GAME_INFO") \
    X(SERVER_CHECK_NEWGRFS, "SERVER_CHECK_NEWGRFS") X(CLIENT_NEWGRFS_CHECKED, "CLIENT_NEWGRFS_CHECKED") \
    X(SERVER_NEED_GAME_PASSWORD, "SERVER_NEED_GAME_PASSWORD") X(CLIENT_GAME_PASSWORD, "CLIENT_GAME_PASSWORD") \
    X(SERVER_NEED_COMPANY_PASSWORD, "SERVER_NEED_COMPANY_PASSWORD") \
    X(CLIENT_COMPANY_PASSWORD, "CLIENT_COMPANY_PASSWORD") \
    X(SERVER_WELCOME, "SERVER_WELCOME") X(SERVER_CLIENT_INFO, "SERVER_CLIENT_INFO") \
    X(CLIENT_GETMAP, "CLIENT_GETMAP") X(SERVER_WAIT, "SERVER_WAIT") \
    X(SERVER_MAP_BEGIN, "SERVER_MAP_BEGIN") X(SERVER_MAP_SIZE, "SERVER_MAP_SIZE") \
    X(SERVER_MAP_DATA, "SERVER_MAP_DATA") X(SERVER_MAP_DONE, "SERVER_MAP_DONE") \
    X(CLIENT_MAP_OK, "CLIENT_MAP_OK") X(SERVER_JOIN, "SERVER_JOIN") \
    X(SERVER_FRAME, "SERVER_FRAME") X(CLIENT_ACK, "CLIENT_ACK") X(SERVER_SYNC, "SERVER_SYNC") \
    X(CLIENT_COMMAND, "CLIENT_COMMAND") X(SERVER_COMMAND, "SERVER_COMMAND") \
    X(CLIENT_CHAT, "CLIENT_CHAT") X(SERVER_CHAT, "SERVER_CHAT") \
    X(SERVER_EXTERNAL_CHAT, "SERVER_EXTERNAL_CHAT") \
    X(CLIENT_RCON, "CLIENT_RCON") X(SERVER_RCON, "SERVER_RCON") \
    X(CLIENT_MOVE, "CLIENT_MOVE") X(SERVER_MOVE, "SERVER_MOVE") \
    X(CLIENT_SET_PASSWORD, "CLIENT_SET_PASSWORD") X(CLIENT_SET_NAME, "CLIENT_SET_NAME") \
    X(SERVER_COMPANY_UPDATE, "SERVER_COMPANY_UPDATE") X(SERVER_CONFIG_UPDATE, "SERVER_CONFIG_UPDATE") \
    X(SERVER_NEWGAME, "SERVER_NEWGAME") X(SERVER_SHUTDOWN, "SERVER_SHUTDOWN") \
    X(CLIENT_QUIT, "CLIENT_QUIT") X(SERVER_QUIT, "SERVER_QUIT") \
    X(CLIENT_ERROR, "CLIENT_ERROR") X(SERVER_ERROR_QUIT, "SERVER_ERROR_QUIT") \
    /* 0.5 - 0.7 only */ \
    X(CLIENT_COMPANY_INFO, "CLIENT_COMPANY_INFO") X(SERVER_COMPANY_INFO, "SERVER_COMPANY_INFO") \
    X(SERVER_NEED_PASSWORD, "SERVER_NEED_PASSWORD") X(CLIENT_PASSWORD, "CLIENT_PASSWORD") \
    X(SERVER_MAP, "SERVER_MAP") \
    /* 15.x only */ \
    X(SERVER_AUTH_REQUEST, "SERVER_AUTH_REQUEST") X(CLIENT_AUTH_RESPONSE, "CLIENT_AUTH_RESPONSE") \
    X(SERVER_ENABLE_ENCRYPTION, "SERVER_ENABLE_ENCRYPTION") X(CLIENT_IDENTIFY, "CLIENT_IDENTIFY") \
    /* UDP */ \
    X(UDP_CLIENT_FIND_SERVER, "UDP CLIENT_FIND_SERVER") X(UDP_SERVER_RESPONSE, "UDP SERVER_RESPONSE") \
    X(UDP_CLIENT_DETAIL_INFO, "UDP CLIENT_DETAIL_INFO") X(UDP_SERVER_DETAIL_INFO, "UDP SERVER_DETAIL_INFO") \
    X(UDP_SERVER_REGISTER, "UDP SERVER_REGISTER") X(UDP_MASTER_ACK_REGISTER, "UDP MASTER_ACK_REGISTER") \
    X(UDP_CLIENT_GET_LIST, "UDP CLIENT_GET_LIST") X(UDP_MASTER_RESPONSE_LIST, "UDP MASTER_RESPONSE_LIST") \
    X(UDP_SERVER_UNREGISTER, "UDP SERVER_UNREGISTER") X(UDP_CLIENT_GET_NEWGRFS, "UDP CLIENT_GET_NEWGRFS") \
    X(UDP_SERVER_NEWGRFS, "UDP SERVER_NEWGRFS") X(UDP_MASTER_SESSION_KEY, "UDP MASTER_SESSION_KEY") \
    /* after SERVER_ENABLE_ENCRYPTION (15.x) */ \
    X(ENCRYPTED, "encrypted")

#define OTTD_AS_ENUM(id, name) PK_##id,
enum packet { OTTD_PACKETS(OTTD_AS_ENUM) PK_COUNT };

/* the options (gw_option): openttd.version (enum openttd_version),
   openttd.default_version */
enum { OTTD_OPT_VERSION, OTTD_OPT_DEFAULT_VERSION };

/* fields and findings (gw_tables.h) */
#define OTTD_FIELDS(F, LINK) \
    F(OTTD_F_SIZE, "openttd.size", "Size", U16, BYTES, NULL, 0, "Packet size, the 2 size bytes included") \
    F(OTTD_F_TYPE, "openttd.type", "Type", U8, DEC, NULL, 0, "Packet type as on the wire (its meaning depends on the version)") \
    F(OTTD_F_PACKET, "openttd.packet", "Packet", U8, DEC, packet_names, 0, "The packet the type means in this connection's version (hidden: for filters that hold in every version, openttd.packet == \"SERVER_FRAME\")") \
    F(OTTD_F_VERSION, "openttd.version", "Version (packet numbering)", U8, NONE, version_names, 0, "Packet numbering used for this connection") \
    F(OTTD_F_REVISION, "openttd.revision", "Revision", STRING, NONE, NULL, 0, "OpenTTD revision string") \
    F(OTTD_F_NEWGRF_VERSION, "openttd.newgrf_version", "NewGRF version", U32, HEX, NULL, 0, "NewGRF version of the client") \
    F(OTTD_F_NAME, "openttd.name", "Name", STRING, NONE, NULL, 0, "Client name") \
    F(OTTD_F_UNIQUE_ID, "openttd.unique_id", "Unique id", STRING, NONE, NULL, 0, "The client's unique id (0.5-0.7: CLIENT_JOIN, SERVER_CLIENT_INFO, company info 4 client lists)") \
    F(OTTD_F_COMPANY, "openttd.company", "Company", U8, DEC, company_names, 0, "Company (0xFE new, 0xFF spectator)") \
    F(OTTD_F_LANGUAGE, "openttd.language", "Language", U8, DEC, NULL, 0, "Language id (CLIENT_JOIN; game info 1-5)") \
    F(OTTD_F_ERROR_CODE, "openttd.error_code", "Error", U8, DEC, error_names, 0, "Network error code") \
    F(OTTD_F_REASON, "openttd.reason", "Reason", STRING, NONE, NULL, 0, "Error or leave message") \
    F(OTTD_F_CLIENT_ID, "openttd.client_id", "Client id", U32, DEC, NULL, 0, "Client id") \
    F(OTTD_F_GENERATION_SEED, "openttd.generation_seed", "Generation seed", U32, HEX, NULL, 0, "Seed for password hashing") \
    F(OTTD_F_NETWORK_ID, "openttd.network_id", "Network id", STRING, NONE, NULL, 0, "Server's network id") \
    F(OTTD_F_PASSWORD_TYPE, "openttd.password_type", "Password type", U8, DEC, password_type_names, 0, "0 game, 1 company (0.5-0.7)") \
    F(OTTD_F_PASSWORD, "openttd.password", "Password", STRING, NONE, NULL, 0, "A (hashed) password") \
    F(OTTD_F_GRF_COUNT, "openttd.grf.count", "NewGRF count", U8, DEC, NULL, 0, "Number of NewGRFs") \
    F(OTTD_F_GRF_ID, "openttd.grf.id", "NewGRF id", U32, HEX, NULL, 0, "NewGRF id, as OpenTTD shows it: its four bytes in order (big-endian)") \
    F(OTTD_F_GRF_MD5, "openttd.grf.md5", "NewGRF MD5", BYTES, NONE, NULL, 0, "NewGRF MD5 sum") \
    F(OTTD_F_GRF_NAME, "openttd.grf.name", "NewGRF name", STRING, NONE, NULL, 0, "NewGRF name") \
    F(OTTD_F_GRF_LOOKUP, "openttd.grf.lookup_id", "NewGRF lookup id", U32, DEC, NULL, 0, "A NewGRF named by its id in a lookup table sent before (game info 6+, serialisation 2)") \
    F(OTTD_F_WAITING, "openttd.waiting", "Clients waiting", U8, DEC, NULL, 0, "Clients waiting for the map") \
    F(OTTD_F_FRAME, "openttd.frame", "Frame", U32, DEC, NULL, 0, "Frame counter") \
    F(OTTD_F_FRAME_MAX, "openttd.frame_max", "Frame max", U32, DEC, NULL, 0, "How far the client may run") \
    F(OTTD_F_TOKEN, "openttd.token", "Token", U8, HEX, NULL, 0, "Frame token the client echoes") \
    F(OTTD_F_SEED1, "openttd.seed1", "Seed 1", U32, HEX, NULL, 0, "Random seed for the sync check") \
    F(OTTD_F_SEED2, "openttd.seed2", "Seed 2", U32, HEX, NULL, 0, "Second random seed (old builds)") \
    F(OTTD_F_ACK_LAG, "openttd.ack_lag", "Frames behind the server", U32, DEC, NULL, 0, "Server's latest frame minus the frame this CLIENT_ACK acknowledges") \
    F(OTTD_F_MAP_PACKET, "openttd.map.part", "Map packet", U8, DEC, map_packet_names, 0, "0.5-0.7 SERVER_MAP part: 0 start, 1 normal, 2 end") \
    F(OTTD_F_MAP_SIZE, "openttd.map.size", "Map size", U32, BYTES, NULL, 0, "Bytes of the savegame to come") \
    F(OTTD_F_SAVEGAME, "openttd.savegame", "Savegame header", NONE, NONE, NULL, 0, "Header of the savegame the map data starts with") \
    F(OTTD_F_SAVEGAME_FORMAT, "openttd.savegame.format", "Savegame format", STRING, NONE, NULL, 0, "Savegame compression tag (OTTX = xz)") \
    F(OTTD_F_SAVEGAME_VERSION, "openttd.savegame.version", "Savegame version", U16, DEC, NULL, 0, "Savegame version (big-endian)") \
    F(OTTD_F_SAVEGAME_MINOR, "openttd.savegame.minor", "Savegame minor version", U16, DEC, NULL, 0, "Savegame minor version (big-endian)") \
    F(OTTD_F_MAP_DATA, "openttd.map.data", "Map data", BYTES, NONE, NULL, 0, "Savegame bytes") \
    F(OTTD_F_MAP_RECEIVED, "openttd.map.received", "Map bytes so far", U32, BYTES, NULL, 0, "Savegame bytes received up to this packet") \
    F(OTTD_F_MAP_TOTAL, "openttd.map.total", "Map bytes announced", U32, BYTES, NULL, 0, "SERVER_MAP_SIZE of this transfer") \
    F(OTTD_F_CMD, "openttd.cmd", "Command", U16, DEC, NULL, 0, "Command id") \
    F(OTTD_F_CMD32, "openttd.cmd.word", "Command word", U32, HEX, NULL, 0, "0.4-0.7: the command id, its flags and its error message in one u32") \
    F(OTTD_F_CMD32_ID, "openttd.cmd.word.id", "Command id", U8, DEC, NULL, 0, "0.4-0.7: the low byte, the index into _command_proc_table (cmd & 0xFF)") \
    F(OTTD_F_CMD32_FLAGS, "openttd.cmd.word.flags", "Command flags", U8, HEX, NULL, 0, "0.4-0.6: bits 8-15, CMD_AUTO 0x02, CMD_NO_WATER 0x04 ... (0.7 sends them cleared)") \
    F(OTTD_F_ERR_MSG, "openttd.cmd.error_message", "Error message", U16, HEX, NULL, 0, "String id shown when the command fails") \
    F(OTTD_F_P1, "openttd.cmd.param1", "Parameter 1", U32, HEX, NULL, 0, "Command parameter 1 (0.5-0.7)") \
    F(OTTD_F_P2, "openttd.cmd.param2", "Parameter 2", U32, HEX, NULL, 0, "Command parameter 2 (0.5-0.7)") \
    F(OTTD_F_TILE, "openttd.cmd.tile", "Tile", U32, DEC, NULL, 0, "Tile of the command") \
    F(OTTD_F_DATA_LENGTH, "openttd.cmd.data_length", "Data length", U16, BYTES, NULL, 0, "Length of the command data") \
    F(OTTD_F_CMD_TEXT, "openttd.cmd.text", "Command text", STRING, NONE, NULL, 0, "The command's text parameter (0.5-0.7)") \
    F(OTTD_F_CMD_DATA, "openttd.cmd.data", "Command data", BYTES, NONE, NULL, 0, "Command parameters") \
    F(OTTD_F_CALLBACK, "openttd.cmd.callback", "Callback", U8, DEC, NULL, 0, "Callback id") \
    F(OTTD_F_DECODE_PARAM, "openttd.cmd.decode_param", "Decode parameter", U32, HEX, NULL, 0, "One of the ten u32 decode_params after the tile (0.5-0.7, the wiki's layout)") \
    F(OTTD_F_MY_CMD, "openttd.cmd.own", "Own command", BOOL, NONE, NULL, 0, "The command came from this client") \
    F(OTTD_F_ACTION, "openttd.chat.action", "Action", U8, DEC, action_names, 0, "Chat action") \
    F(OTTD_F_DEST_TYPE, "openttd.chat.dest_type", "Destination type", U8, DEC, desttype_names, 0, "Chat destination type") \
    F(OTTD_F_DEST, "openttd.chat.dest", "Destination", U32, DEC, NULL, 0, "Chat destination (client or company)") \
    F(OTTD_F_MESSAGE, "openttd.chat.message", "Message", STRING, NONE, NULL, 0, "Chat text") \
    F(OTTD_F_CHAT_DATA, "openttd.chat.data", "Data", U64, DEC, NULL, 0, "Chat data (money given)") \
    F(OTTD_F_SELF_SEND, "openttd.chat.self_send", "Self sent", BOOL, NONE, NULL, 0, "The message is the receiver's own") \
    F(OTTD_F_SOURCE, "openttd.chat.source", "Source", STRING, NONE, NULL, 0, "External chat source") \
    F(OTTD_F_COLOUR, "openttd.colour", "Colour", U16, DEC, colour_names, 0, "Text colour (TextColour)") \
    F(OTTD_F_USER, "openttd.chat.user", "User", STRING, NONE, NULL, 0, "External chat user") \
    F(OTTD_F_RCON_COMMAND, "openttd.rcon.command", "Console command", STRING, NONE, NULL, 0, "Remote console command") \
    F(OTTD_F_RCON_OUTPUT, "openttd.rcon.output", "Console output", STRING, NONE, NULL, 0, "Remote console output") \
    F(OTTD_F_COMPANY_MASK, "openttd.company_mask", "Passworded companies", U16, HEX, NULL, 0, "Bit mask of companies with a password") \
    F(OTTD_F_MAX_COMPANIES, "openttd.max_companies", "Max companies", U8, DEC, NULL, 0, "Maximum number of companies") \
    F(OTTD_F_SERVER_NAME, "openttd.server_name", "Server name", STRING, NONE, NULL, 0, "Server name") \
    F(OTTD_F_MAX_SPECTATORS, "openttd.max_spectators", "Max spectators", U8, DEC, NULL, 0, "Maximum number of spectators (SERVER_CONFIG_UPDATE, 1.x)") \
    F(OTTD_F_CI_VERSION, "openttd.ci.version", "Company info version", U8, DEC, NULL, 0, "Version of the SERVER_COMPANY_INFO block") \
    F(OTTD_F_CI_COUNT, "openttd.ci.companies", "Active companies", U8, DEC, NULL, 0, "Companies in the game (0 in the packet that ends the list)") \
    F(OTTD_F_CI_NAME, "openttd.ci.name", "Company name", STRING, NONE, NULL, 0, "Company name") \
    F(OTTD_F_CI_INAUGURATED, "openttd.ci.inaugurated", "Inaugurated", U32, DEC, NULL, 0, "Year the company was founded") \
    F(OTTD_F_CI_VALUE, "openttd.ci.value", "Company value", I64, DEC, NULL, 0, "Company value") \
    F(OTTD_F_CI_MONEY, "openttd.ci.money", "Money", I64, DEC, NULL, 0, "Money in the bank") \
    F(OTTD_F_CI_INCOME, "openttd.ci.income", "Income", I64, DEC, NULL, 0, "Last year's income") \
    F(OTTD_F_CI_PERFORMANCE, "openttd.ci.performance", "Performance", U16, DEC, NULL, 0, "Performance rating") \
    F(OTTD_F_CI_PASSWORD, "openttd.ci.password", "Company has a password", BOOL, NONE, NULL, 0, "The company has a password") \
    F(OTTD_F_CI_TRAINS, "openttd.ci.vehicles.trains", "Trains", U16, DEC, NULL, 0, "Trains") \
    F(OTTD_F_CI_LORRIES, "openttd.ci.vehicles.lorries", "Lorries", U16, DEC, NULL, 0, "Road vehicles for freight") \
    F(OTTD_F_CI_BUSES, "openttd.ci.vehicles.buses", "Buses", U16, DEC, NULL, 0, "Road vehicles for passengers") \
    F(OTTD_F_CI_PLANES, "openttd.ci.vehicles.planes", "Aircraft", U16, DEC, NULL, 0, "Aircraft") \
    F(OTTD_F_CI_SHIPS, "openttd.ci.vehicles.ships", "Ships", U16, DEC, NULL, 0, "Ships") \
    F(OTTD_F_CI_TRAIN_STATIONS, "openttd.ci.stations.train", "Train stations", U16, DEC, NULL, 0, "Train stations") \
    F(OTTD_F_CI_TRUCK_STOPS, "openttd.ci.stations.truck", "Lorry stops", U16, DEC, NULL, 0, "Lorry stops") \
    F(OTTD_F_CI_BUS_STOPS, "openttd.ci.stations.bus", "Bus stops", U16, DEC, NULL, 0, "Bus stops") \
    F(OTTD_F_CI_AIRPORTS, "openttd.ci.stations.airport", "Airports", U16, DEC, NULL, 0, "Airports") \
    F(OTTD_F_CI_DOCKS, "openttd.ci.stations.dock", "Docks", U16, DEC, NULL, 0, "Docks") \
    F(OTTD_F_CI_IS_AI, "openttd.ci.is_ai", "AI", BOOL, NONE, NULL, 0, "The company is an AI (company info 6 and later)") \
    F(OTTD_F_CI_CLIENT_FOLLOWS, "openttd.ci.client_follows", "Client follows", BOOL, NONE, NULL, 0, "Company info 4 client lists: 1 a client follows, 0 the list ends") \
    F(OTTD_F_CI_JOIN_DATE, "openttd.ci.join_date", "Join date", U32, DEC, NULL, 0, "Company info 4 client lists: the day the client joined") \
    F(OTTD_F_CI_CLIENTS, "openttd.ci.clients", "Company clients", STRING, NONE, NULL, 0, "Names of the clients playing the company (\"<none>\" if none)") \
    F(OTTD_F_MASTER_WELCOME, "openttd.master.welcome", "Welcome message", STRING, NONE, NULL, 0, "SERVER_REGISTER's \"OpenTTDRegister\", which roots out other packets") \
    F(OTTD_F_MASTER_VERSION, "openttd.master.version", "Master server protocol", U8, DEC, NULL, 0, "Version of the master server protocol (1 before 1.0, 2 after)") \
    F(OTTD_F_MASTER_PORT, "openttd.master.port", "Game port", U16, DEC, NULL, 0, "The port the registering game server listens on") \
    F(OTTD_F_MASTER_SESSION_KEY, "openttd.master.session_key", "Session key", U64, HEX, NULL, 0, "Master server session key (protocol 2)") \
    F(OTTD_F_MASTER_LIST_TYPE, "openttd.master.list_type", "List type", U8, DEC, list_type_names, 0, "CLIENT_GET_LIST: which servers to list (protocol 2)") \
    F(OTTD_F_MASTER_LIST, "openttd.master.list", "Address family", U8, DEC, master_list_names, 0, "MASTER_RESPONSE_LIST: 1 IPv4 addresses, 2 IPv6 addresses") \
    F(OTTD_F_MASTER_COUNT, "openttd.master.servers", "Servers", U16, DEC, NULL, 0, "Servers in MASTER_RESPONSE_LIST") \
    F(OTTD_F_MASTER_IPV4, "openttd.master.ipv4", "Server IPv4 address", IPV4, NONE, NULL, 0, "A listed server's IPv4 address") \
    F(OTTD_F_MASTER_IPV6, "openttd.master.ipv6", "Server IPv6 address", IPV6, NONE, NULL, 0, "A listed server's IPv6 address") \
    F(OTTD_F_MASTER_SERVER_PORT, "openttd.master.server_port", "Server port", U16, DEC, NULL, 0, "A listed server's port") \
    F(OTTD_F_GI_VERSION, "openttd.gi.version", "Game info version", U8, DEC, NULL, 0, "Version of the game info block") \
    F(OTTD_F_GI_TICKS, "openttd.gi.ticks_playing", "Ticks playing", U64, DEC, NULL, 0, "Ticks the game has run (game info 7)") \
    F(OTTD_F_GI_GRF_TYPE, "openttd.gi.newgrf_type", "NewGRF serialisation", U8, DEC, NULL, 0, "0 = id and MD5, 1 = with names, 2 = lookup ids") \
    F(OTTD_F_GI_GS_VERSION, "openttd.gi.gs_version", "Game script version", U32, DEC, NULL, 0, "Game script version") \
    F(OTTD_F_GI_GS_NAME, "openttd.gi.gs_name", "Game script", STRING, NONE, NULL, 0, "Game script name") \
    F(OTTD_F_GI_GAME_DATE, "openttd.gi.game_date", "Game date", U32, DEC, NULL, 0, "Current game date (days)") \
    F(OTTD_F_GI_START_DATE, "openttd.gi.start_date", "Start date", U32, DEC, NULL, 0, "Start date (days)") \
    F(OTTD_F_GI_COMPANIES_MAX, "openttd.gi.companies_max", "Companies max", U8, DEC, NULL, 0, "Maximum companies") \
    F(OTTD_F_GI_COMPANIES_ON, "openttd.gi.companies_on", "Companies", U8, DEC, NULL, 0, "Current companies") \
    F(OTTD_F_GI_SPECTATORS_MAX, "openttd.gi.spectators_max", "Spectators max", U8, DEC, NULL, 0, "Maximum spectators (legacy)") \
    F(OTTD_F_GI_PASSWORD, "openttd.gi.password", "Server has a password", BOOL, NONE, NULL, 0, "The server needs a password") \
    F(OTTD_F_GI_CLIENTS_MAX, "openttd.gi.clients_max", "Clients max", U8, DEC, NULL, 0, "Maximum clients") \
    F(OTTD_F_GI_CLIENTS_ON, "openttd.gi.clients_on", "Clients", U8, DEC, NULL, 0, "Current clients") \
    F(OTTD_F_GI_SPECTATORS_ON, "openttd.gi.spectators_on", "Spectators", U8, DEC, NULL, 0, "Current spectators") \
    F(OTTD_F_GI_OLD_DATE, "openttd.gi.old_date", "Date (old)", U16, DEC, NULL, 0, "Game or start date before game info 3") \
    F(OTTD_F_GI_MAP_NAME, "openttd.gi.map_name", "Map name", STRING, NONE, NULL, 0, "Map name (game info 1-5)") \
    F(OTTD_F_GI_MAP_WIDTH, "openttd.gi.map_width", "Map width", U16, DEC, NULL, 0, "Map width") \
    F(OTTD_F_GI_MAP_HEIGHT, "openttd.gi.map_height", "Map height", U16, DEC, NULL, 0, "Map height") \
    F(OTTD_F_GI_LANDSCAPE, "openttd.gi.landscape", "Landscape", U8, DEC, landscape_names, 0, "Climate") \
    F(OTTD_F_GI_DEDICATED, "openttd.gi.dedicated", "Dedicated", BOOL, NONE, NULL, 0, "Dedicated server") \
    F(OTTD_F_MAC, "openttd.mac", "MAC", BYTES, NONE, NULL, 0, "Message authentication code of an encrypted packet") \
    F(OTTD_F_AUTH_METHOD, "openttd.auth.method", "Authentication method", U8, DEC, auth_method_names, 0, "15.x: how the client must authenticate") \
    F(OTTD_F_AUTH_PUBLIC_KEY, "openttd.auth.public_key", "Key-exchange public key", BYTES, NONE, NULL, 0, "15.x: the sender's X25519 public key (32 bytes)") \
    F(OTTD_F_AUTH_NONCE, "openttd.auth.nonce", "Key-exchange nonce", BYTES, NONE, NULL, 0, "15.x: the nonce of the key exchange (24 bytes)") \
    F(OTTD_F_AUTH_MAC, "openttd.auth.mac", "Key-exchange MAC", BYTES, NONE, NULL, 0, "15.x: the MAC of the key-exchange message (16 bytes)") \
    F(OTTD_F_AUTH_MESSAGE, "openttd.auth.message", "Key-exchange message", BYTES, NONE, NULL, 0, "15.x: the encrypted random key-exchange message (8 bytes)") \
    F(OTTD_F_ENCRYPTION_NONCE, "openttd.encryption_nonce", "Encryption nonce", BYTES, NONE, NULL, 0, "15.x: the nonce the encrypted connection starts from (24 bytes)") \
    F(OTTD_F_PUBLIC_KEY, "openttd.public_key", "Public key", STRING, NONE, NULL, 0, "15.x: a client's public key, as hex (SERVER_CLIENT_INFO)") \
    F(OTTD_F_ENCRYPTED, "openttd.encrypted", "Encrypted", BYTES, NONE, NULL, 0, "Encrypted type and payload") \
    F(OTTD_F_PAYLOAD, "openttd.payload", "Payload", BYTES, NONE, NULL, 0, "Payload not decoded field by field") \
    F(OTTD_F_TRAILING, "openttd.trailing", "Trailing bytes", BYTES, NONE, NULL, 0, "Bytes after the packet's fields")
enum { OTTD_FIELDS(GW_INDEX, GW_INDEX) OTTD_F_COUNT };

#define OTTD_FINDINGS(E) \
    E(OTTD_E_BAD_SIZE, "openttd.size.invalid", ERROR, MALFORMED, "A size below 3 or with the reserved high bit: the stream is out of step and is resynchronised at the next segment") \
    E(OTTD_E_TOO_LARGE, "openttd.size.too_large", NOTE, MALFORMED, "A packet larger than its type allows (1460, or 32767 for map data and game info)") \
    E(OTTD_E_TRUNCATED, "openttd.truncated", ERROR, MALFORMED, "The packet ends before a field its type must contain") \
    E(OTTD_E_STRING_UNTERMINATED, "openttd.string.unterminated", ERROR, MALFORMED, "A string runs to the end of the packet without its NUL") \
    E(OTTD_E_TRAILING, "openttd.trailing_bytes", WARNING, MALFORMED, "Bytes follow the packet's last field") \
    E(OTTD_E_UNKNOWN_TYPE, "openttd.type.unknown", WARNING, UNDECODED, "A packet type this version does not define") \
    E(OTTD_E_VERSION_GUESS, "openttd.version.assumed", NOTE, COMMENT, "A revision whose numbering is not known here: the nearest known numbering is used") \
    E(OTTD_E_ACK_BEYOND_MAX, "openttd.ack.beyond_frame_max", WARNING, SEQUENCE, "A client acknowledges a frame beyond the server's frame_max") \
    E(OTTD_E_FRAME_BACK, "openttd.frame.backwards", WARNING, SEQUENCE, "A frame counter lower than the previous one in the same direction") \
    E(OTTD_E_MAP_MISMATCH, "openttd.map.size_mismatch", NOTE, PROTOCOL, "The map bytes received differ from SERVER_MAP_SIZE") \
    E(OTTD_E_NOT_SAVEGAME, "openttd.map.no_savegame_header", NOTE, PROTOCOL, "The first map data does not start with a savegame header (what the reference sends; the wiki does not say what the map bytes are)") \
    E(OTTD_E_ENCRYPTED, "openttd.encrypted_packet", NOTE, UNDECODED, "An encrypted packet (after SERVER_ENABLE_ENCRYPTION): not decoded") \
    E(OTTD_E_JOIN_ORDER, "openttd.join.out_of_order", WARNING, PROTOCOL, "A packet of the join sequence (JOIN, passwords, WELCOME, GETMAP, WAIT, MAP_BEGIN, MAP_SIZE, MAP_DATA, MAP_DONE, MAP_OK) before the step it follows, or after a later one (13.x and newer, once JOIN was seen)") \
    E(OTTD_E_COMMAND_PASSED, "openttd.command.frame_passed", WARNING, SEQUENCE, "A SERVER_COMMAND to be executed in a frame the server has already sent (it must be later than the last SERVER_FRAME)") \
    E(OTTD_E_WRONG_DIRECTION, "openttd.direction.wrong", WARNING, PROTOCOL, "A SERVER_ packet from the client (the side that opened the TCP connection) or a CLIENT_ packet from the server")
enum { OTTD_FINDINGS(GW_INDEX) OTTD_E_COUNT };

extern const gw_protocol gw_openttd_protocol;

#endif
