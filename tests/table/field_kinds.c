/* field_kinds.c - what tests/table_check.py needs of the field tables and
 * pcaptool's fields listing does not say: each field's kind, read from the
 * tables both front ends are built from (gw_protocols[]).
 *
 *   filter name <TAB> value | none | two-pass
 *
 * none: a label or subtree head (GW_FT_NONE), which carries no value and
 * which pcaptool's JSON therefore never lists; two-pass: a frame link
 * (GW_FIELD_TWO_PASS) only Wireshark's second pass knows. */
#include <stdio.h>

#include "core/gw_core.h"

int main(void)
{
    for (int i = 0; gw_protocols[i]; i++)
        for (int k = 0; k < gw_protocols[i]->n_fields; k++) {
            const gw_field *f = &gw_protocols[i]->fields[k];
            printf("%s\t%s\n", f->abbrev,
                   f->flags & GW_FIELD_TWO_PASS ? "two-pass" : f->type == GW_FT_NONE ? "none" : "value");
        }
    return 0;
}
