/* protocols.c (skeleton test build) - the list of protocols this build
 * registers: the skeleton alone, in place of common/protocols.c (whose list
 * the plugin and pcaptool load, and which does not name it). A protocol
 * copied from the skeleton is added to that one instead. */
#include <string.h>

#include "core/gw_core.h"
#include "skeleton/skeleton.h"

const gw_protocol *const gw_protocols[GW_MAX_PROTOCOLS + 1] = {
    &gw_skeleton_protocol,
    NULL,
};

const gw_protocol *gw_protocol_by_name(const char *name)
{
    for (int i = 0; gw_protocols[i]; i++)
        if (strcmp(gw_protocols[i]->name, name) == 0)
            return gw_protocols[i];
    return NULL;
}
