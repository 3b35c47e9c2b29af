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

typedef struct {
    const char *name; /* gw_protocol.name */
    const gw_replay *replay;
    const gw_conform *conform;
} active_side;

static const active_side active[] = {
    {"dnp", &gw_dnp_replay, &gw_dnp_conform},
    {"openttd", &gw_openttd_replay, &gw_openttd_conform},
    {"gne", &gw_gne_replay, &gw_gne_conform},
    {"eoudp", &gw_eoudp_replay, &gw_eoudp_conform},
    {"opendrakan", &gw_opendrakan_replay, &gw_opendrakan_conform},
};

/* protocol p's entry; NULL: it has no active side */
static const active_side *active_of(const gw_protocol *p)
{
    for (size_t i = 0; i < sizeof active / sizeof active[0]; i++)
        if (strcmp(active[i].name, p->name) == 0)
            return &active[i];
    return NULL;
}

const gw_replay *gw_replay_of(const gw_protocol *p)
{
    const active_side *a = active_of(p);
    return a ? a->replay : NULL;
}

const gw_conform *gw_conform_of(const gw_protocol *p)
{
    const active_side *a = active_of(p);
    return a ? a->conform : NULL;
}
