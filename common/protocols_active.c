/* protocols_active.c - each protocol's active side (pcaptool replay's
 * hooks, pcaptool conform's catalogue), found by the protocol's name: the
 * decoders do not know it exists, and what links only the decoders (the
 * Wireshark plugin) carries none of it. Adding a protocol with an active
 * side adds it here. */
#include <string.h>

#include "active/gw_conform.h"
#include "active/gw_replay.h"

/* defined in common/<proto>/<proto>_replay.c and <proto>_conform.c */
extern const gw_replay gw_dnp_replay, gw_openttd_replay, gw_gne_replay, gw_eoudp_replay, gw_opendrakan_replay;
extern const gw_conform gw_dnp_conform, gw_openttd_conform, gw_gne_conform, gw_eoudp_conform,
    gw_opendrakan_conform;

static const struct {
    const char *name; /* gw_protocol.name */
    const gw_replay *replay;
    const gw_conform *conform;
} active[] = {
    {"dnp", &gw_dnp_replay, &gw_dnp_conform},
    {"openttd", &gw_openttd_replay, &gw_openttd_conform},
    {"gne", &gw_gne_replay, &gw_gne_conform},
    {"eoudp", &gw_eoudp_replay, &gw_eoudp_conform},
    {"opendrakan", &gw_opendrakan_replay, &gw_opendrakan_conform},
};

static unsigned index_of(const gw_protocol *p)
{
    unsigned i = 0;
    while (i < sizeof active / sizeof active[0] && strcmp(active[i].name, p->name) != 0)
        i++;
    return i;
}

const gw_replay *gw_replay_of(const gw_protocol *p)
{
    unsigned i = index_of(p);
    return i < sizeof active / sizeof active[0] ? active[i].replay : NULL;
}

const gw_conform *gw_conform_of(const gw_protocol *p)
{
    unsigned i = index_of(p);
    return i < sizeof active / sizeof active[0] ? active[i].conform : NULL;
}
