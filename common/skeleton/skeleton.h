/* skeleton.h - a protocol to copy (as Wireshark's packet-PROTOABBREV.c): the
 * smallest whole decoder, built and tested in CI but registered nowhere the
 * plugin or pcaptool look (not in protocols.c, not in GW_PROTOCOLS).
 *
 * To start a protocol "foo": copy common/skeleton/ to common/foo/ and
 * tests/skeleton/ to tests/foo/, rename skeleton -> foo, SKELETON -> FOO,
 * SK_ -> FOO_ in them, and walk HACKING.md's "A protocol" checklist.
 *
 * The made-up protocol it decodes (one PDU type; on UDP one PDU a datagram,
 * on TCP the same PDUs back to back), port 7777, big-endian:
 *
 *   offset 0  version  u8     must be 1
 *          1  type     u8     1 hello, 2 data, 3 bye
 *          2  length   u16    the payload's bytes
 *          4  payload  length bytes
 *
 * Say here where the protocol's text is (a document a reader can open, and
 * its section) and what the decoder takes from a reference implementation
 * (its repository, file and function).
 */
#ifndef GW_SKELETON_H
#define GW_SKELETON_H

#include "core/gw_core.h"
#include "core/gw_tables.h"

#define SKELETON_PORT 7777
#define SKELETON_HEADER 4 /* version, type, length */

/* fields (gw_tables.h): index, filter name (never renamed once released),
   display name, type, base, value names (in skeleton.c), bit mask, meaning */
#define SKELETON_FIELDS(F, LINK) \
    F(SK_F_VERSION, "skeleton.version", "Version", U8, DEC, NULL, 0, "Protocol version (1)") \
    F(SK_F_TYPE, "skeleton.type", "Type", U8, DEC, type_names, 0, "PDU type") \
    F(SK_F_LENGTH, "skeleton.length", "Payload length", U16, BYTES, NULL, 0, "Bytes of payload after the 4-byte header") \
    F(SK_F_PAYLOAD, "skeleton.payload", "Payload", BYTES, NONE, NULL, 0, "The PDU's payload") \
    F(SK_F_DATA, "skeleton.data", "Undecoded", BYTES, NONE, NULL, 0, "Bytes not decoded: those left where the PDU was cut short, or after it in a datagram")
enum { SKELETON_FIELDS(GW_INDEX, GW_INDEX) SK_F_COUNT };

/* findings: index, stable code (proto.thing.problem), severity (error:
   malformed or against the text; warning: legal but suspicious; note),
   Wireshark expert group, meaning */
#define SKELETON_FINDINGS(E) \
    E(SK_E_TRUNCATED, "skeleton.truncated", ERROR, MALFORMED, "The PDU ends before a field it must contain") \
    E(SK_E_VERSION, "skeleton.version.unknown", WARNING, PROTOCOL, "A version other than 1")
enum { SKELETON_FINDINGS(GW_INDEX) SK_E_COUNT };

extern const gw_protocol gw_skeleton_protocol;

#endif
