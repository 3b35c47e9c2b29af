/* protocols.c - the protocols the decoders know (gw_protocols[]): the one
 * place that names them all; adding a protocol adds it here. */
#include <string.h>

#include "dnp/dnp.h"
#include "eoudp/eoudp.h"
#include "gne/gne.h"
#include "core/gw_core.h"
#include "opendrakan/opendrakan.h"
#include "openttd/openttd.h"

/* sized so that every index up to GW_MAX_PROTOCOLS reads NULL past the list */
const gw_protocol *const gw_protocols[GW_MAX_PROTOCOLS + 1] = {
    &gw_dnp_protocol,
    &gw_openttd_protocol,
    &gw_gne_protocol,
    &gw_eoudp_protocol,
    &gw_opendrakan_protocol,
    NULL,
};

const gw_protocol *gw_protocol_by_name(const char *name)
{
    for (int i = 0; gw_protocols[i]; i++)
        if (strcmp(gw_protocols[i]->name, name) == 0)
            return gw_protocols[i];
    return NULL;
}
