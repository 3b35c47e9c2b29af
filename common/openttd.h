/* openttd.h - the OpenTTD game protocol (TCP and UDP port 3979).
 *
 * Wire facts: ../shared/specs/WIRE-NOTES.md section 2 (OpenTTD/OpenTTD
 * src/network) and openttd-wiki.md (the 0.4/0.5-era text).
 */
#ifndef GW_OPENTTD_H
#define GW_OPENTTD_H

#include "gw_core.h"

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
extern int gw_openttd_version;       /* option openttd.version */
extern int gw_openttd_default;       /* option openttd.default_version */

extern const gw_protocol gw_openttd_protocol;

#endif
