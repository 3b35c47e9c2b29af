/* gw_tables.h - the one way a protocol lists its fields and findings.
 *
 * In its header, a protocol lists them once, as X-macros whose entries carry
 * their full index names:
 *
 *   #define DNP_FIELDS(F, LINK) \
 *       F(DNP_F_COMMAND, "dnp.command", "Command", U8, DEC, command_names, 0, "Command code") \
 *       LINK(DNP_F_ACK_FRAME, "dnp.ack.frame", "Acked in", "The frame ...", flags, reverse)
 *   #define DNP_FINDINGS(E) \
 *       E(DNP_E_TRUNCATED, "dnp.truncated", ERROR, MALFORMED, "The datagram ends ...")
 *
 *   F(index, filter name, display name, GW_FT_ type, GW_BASE_ base, value names or NULL,
 *     bit mask or 0, description)
 *   LINK(index, filter name, display name, description, GW_FIELD_ flags, reverse field or -1):
 *     a frame number that links to another frame
 *   E(index, code, GW_SEV_ severity, GW_GROUP_ group, meaning)
 *
 * and gets the index enums there:
 *
 *   enum { DNP_FIELDS(GW_INDEX, GW_INDEX) DNP_F_COUNT };
 *   enum { DNP_FINDINGS(GW_INDEX) DNP_E_COUNT };
 *
 * and the tables in its .c file (where the value-name lists are):
 *
 *   static const gw_field fields[DNP_F_COUNT] = {DNP_FIELDS(GW_FIELD, GW_LINK)};
 *   static const gw_finding_def findings[DNP_E_COUNT] = {DNP_FINDINGS(GW_FINDING)};
 */
#ifndef GW_TABLES_H
#define GW_TABLES_H

#include "core/gw_core.h"

#define GW_INDEX(index, ...) index,
#define GW_FIELD(index, abbrev, name, type, base, names, mask, blurb) \
    [index] = {abbrev, name, GW_FT_##type, GW_BASE_##base, names, mask, blurb, 0, -1},
#define GW_LINK(index, abbrev, name, blurb, flags, reverse) \
    [index] = {abbrev, name, GW_FT_FRAMENUM, GW_BASE_NONE, NULL, 0, blurb, flags, reverse},
#define GW_FINDING(index, code, sev, group, summary) \
    [index] = {code, GW_SEV_##sev, summary, GW_GROUP_##group},

#endif
