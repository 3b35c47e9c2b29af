/* plugin.c - the Wireshark front end: glue from common/ to epan.
 *
 * Every protocol in gw_protocols[] is registered from its tables: fields
 * become hf entries, findings expert infos, options preferences. Decoding is
 * done once per PDU, on the first (in-order) pass, with the conversation
 * state; the decoder's sink events are recorded per PDU and replayed into the
 * tree on every pass, so a frame shows the same thing however often and in
 * whatever order Wireshark revisits it.
 */
#include <epan/conversation.h>
#include <epan/charsets.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/stats_tree.h>
#include <epan/tap.h>
#include <epan/dissectors/packet-tcp.h>
#include <wsutil/wmem/wmem.h>
/* the Wireshark release built for is at least major.minor */
#define GW_WS_SINCE(major, minor) (GW_WS_MAJOR > (major) || (GW_WS_MAJOR == (major) && GW_WS_MINOR >= (minor)))
#if GW_WS_SINCE(4, 2)
#include <wsutil/plugins.h> /* WS_PLUGIN_DESC_DISSECTOR (not installed by 4.0's headers) */
#endif

#include "core/gw_core.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = GW_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = GW_WS_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = GW_WS_MINOR;
WS_DLL_PUBLIC void plugin_register(void);
#ifdef WS_PLUGIN_DESC_DISSECTOR /* 4.2 on: what kind of plugin this is */
WS_DLL_PUBLIC uint32_t plugin_describe(void);
uint32_t plugin_describe(void)
{
    return WS_PLUGIN_DESC_DISSECTOR;
}
#endif

/* what epan's callbacks (heuristic dissectors, wmem callbacks) return:
   gboolean up to 4.0, C's bool from 4.2 on */
#if GW_WS_SINCE(4, 2)
typedef bool epan_bool;
#else
typedef gboolean epan_bool;
#endif

#define MAX_PROTOS GW_MAX_PROTOCOLS
#define MAX_SOURCES 4
#define MAX_DEPTH 16
#define INFO_KEY 0xffffffffu /* packet-scope proto data: Info column started */

typedef struct {
    const gw_protocol *p;
    int proto;
    int ett_proto;
    int *hf;       /* one per field */
    int *ett;      /* one per field, for subtrees */
    expert_field *ei;
    dissector_handle_t udp_handle, tcp_handle;
    wmem_map_t *records_by_frame; /* frame -> first rec_pdu of the frame */
    wmem_map_t *convs;            /* every ws_conv of the file (a set) */
    int tap;                      /* its statistics tree's tap */
    int opts[GW_MAX_OPTIONS];     /* its options: the preferences' storage */
} ws_proto;

static ws_proto protos[MAX_PROTOS];
static int n_protos;

/* ---- recorded sink events ---- */

enum { EV_ITEM, EV_PUSH, EV_POP, EV_FINDING, EV_SOURCE };

typedef struct {
    guint8 kind;
    guint8 src;
    guint16 flags;
    gint32 index;      /* field, finding or source number */
    guint32 off, len;
    gw_value v;        /* numbers; bytes are read back from the tvb */
    const char *text;  /* label, finding message or source name */
    const guint8 *data;/* source bytes */
} rec_ev;

typedef struct rec_pdu {
    wmem_array_t *ev;
    const char *summary;
} rec_pdu;

typedef struct {
    ws_proto *wp;
    rec_pdu *rec;
    packet_info *pinfo;
    int dir;          /* of the PDU being decoded */
} rec_ctx;

static void rec_push_ev(rec_ctx *rc, const rec_ev *ev)
{
    wmem_array_append_one(rc->rec->ev, *ev);
}

static void rec_item(void *ctx, const gw_item *it)
{
    rec_ctx *rc = ctx;
    const gw_field *f = &rc->wp->p->fields[it->field];
    rec_ev ev = {.kind = EV_ITEM, .src = (guint8)it->src, .flags = (guint16)it->flags,
                 .index = it->field, .off = (guint32)it->off, .len = (guint32)it->len,
                 .v = it->v, .text = it->label ? wmem_strdup(wmem_file_scope(), it->label) : NULL};
    if (f->type == GW_FT_STRING && (it->flags & GW_ITEM_GENERATED)) /* not in the tvb */
        ev.text = (const char *)get_utf_8_string(wmem_file_scope(), it->v.b.p, (gint)it->v.b.n);
    rec_push_ev(rc, &ev);
    /* a back link also shows on the frame it points to (seen on later passes) */
    if (f->type == GW_FT_FRAMENUM && f->reverse >= 0) {
        rec_pdu *target = wmem_map_lookup(rc->wp->records_by_frame, GUINT_TO_POINTER(it->v.u));
        if (target) {
            rec_ev back = {.kind = EV_ITEM, .flags = GW_ITEM_GENERATED, .index = f->reverse,
                           .v.u = rc->pinfo->num};
            wmem_array_append_one(target->ev, back);
        }
    }
}

static void rec_push(void *ctx)
{
    rec_ev ev = {.kind = EV_PUSH};
    rec_push_ev(ctx, &ev);
}

static void rec_pop(void *ctx, size_t end)
{
    rec_ev ev = {.kind = EV_POP, .off = (guint32)end};
    rec_push_ev(ctx, &ev);
}

static void rec_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    rec_ev ev = {.kind = EV_FINDING, .src = (guint8)src, .index = finding, .off = (guint32)off,
                 .len = (guint32)len, .text = wmem_strdup(wmem_file_scope(), msg)};
    rec_push_ev(ctx, &ev);
}

static void rec_summary(void *ctx, const char *text)
{
    rec_ctx *rc = ctx;
    rc->rec->summary = wmem_strdup(wmem_file_scope(), text);
}

static void rec_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    rec_ev ev = {.kind = EV_SOURCE, .index = src, .len = (guint32)len,
                 .text = wmem_strdup(wmem_file_scope(), name),
                 .data = wmem_memdup(wmem_file_scope(), data, len)};
    rec_push_ev(ctx, &ev);
}

/* ---- conversation state ---- */

typedef struct {
    address initiator;      /* direction 0 = sent from here ... */
    guint32 initiator_port;
    gboolean by_port_owner; /* ... or, for a conversation announced by
                               expect(): from the side owning port_owner */
    address port_owner;
    guint32 owner_port;
    int owner_side;
    void *state;
    const gw_protocol *p;
    gboolean ended;         /* conv_end() called */
} ws_conv;

static epan_bool free_conv_state(wmem_allocator_t *allocator _U_, wmem_cb_event_t event _U_, void *data)
{
    ws_conv *c = data;
    c->p->conv_free(c->state);
    return FALSE;
}

static ws_conv *new_conv(ws_proto *wp, conversation_t *conv)
{
    ws_conv *c = wmem_new0(wmem_file_scope(), ws_conv);
    c->p = wp->p;
    c->state = wmem_alloc0(wmem_file_scope(), wp->p->conv_size);
    wp->p->conv_init(c->state, wp->opts);
    wmem_register_callback(wmem_file_scope(), free_conv_state, c);
    conversation_add_proto_data(conv, wp->proto, c);
    wmem_map_insert(wp->convs, c, c);
    return c;
}

/* ---- the end of the first pass: what conversations left open ---- */

static void end_finding(void *ctx, uint32_t frame, int64_t time_ns _U_, int dir _U_, int finding,
                        size_t off, size_t len, const char *msg)
{
    ws_proto *wp = ctx;
    rec_pdu *rec = wmem_map_lookup(wp->records_by_frame, GUINT_TO_POINTER(frame));
    if (!rec)
        return;
    rec_ev ev = {.kind = EV_FINDING, .index = finding, .off = (guint32)off, .len = (guint32)len,
                 .text = wmem_strdup(wmem_file_scope(), msg)};
    wmem_array_append_one(rec->ev, ev);
}

static void end_conv(gpointer key, gpointer value _U_, gpointer user)
{
    ws_proto *wp = user;
    ws_conv *c = key;
    if (c->ended || !wp->p->conv_end)
        return;
    c->ended = TRUE;
    gw_end_sink es = {wp, end_finding, NULL};
    wp->p->conv_end(c->state, &es);
}

/* Wireshark calls this after its first, in-order pass over a file (tshark
   with -2, the GUI once a file is read): the findings show from the second
   pass on, on the frames they concern */
static void end_all_conversations(void)
{
    for (int i = 0; i < n_protos; i++)
        wmem_map_foreach(protos[i].convs, end_conv, &protos[i]);
}

/* the conversation a decoder announced (rec_expect: a port on one address,
   any port on the other) that this UDP datagram belongs to, or NULL. From
   4.6 on, UDP's own conversation for the datagram's ports is found before
   the announced one, which holds the state and the dissector. */
static ws_conv *announced_conv(ws_proto *wp, packet_info *pinfo)
{
    for (int side = 0; side < 2; side++) {
        const address *a = side ? &pinfo->dst : &pinfo->src, *b = side ? &pinfo->src : &pinfo->dst;
        guint32 pa = side ? pinfo->destport : pinfo->srcport, pb = side ? pinfo->srcport : pinfo->destport;
        conversation_t *w = find_conversation(pinfo->num, a, b, CONVERSATION_UDP, pa, pb, NO_PORT_B);
        ws_conv *c = w ? conversation_get_proto_data(w, wp->proto) : NULL;
        if (c && c->by_port_owner)
            return c;
    }
    return NULL;
}

static ws_conv *get_conv(ws_proto *wp, packet_info *pinfo)
{
    conversation_t *conv = find_or_create_conversation(pinfo);
    ws_conv *c = conversation_get_proto_data(conv, wp->proto);
    if (!c && pinfo->ptype == PT_UDP && (c = announced_conv(wp, pinfo)) != NULL) {
        /* UDP's conversation now leads to ours, in both directions */
        conversation_add_proto_data(conv, wp->proto, c);
        conversation_set_dissector(conv, wp->udp_handle);
    }
    if (!c) {
        c = new_conv(wp, conv);
        /* the side that opened the conversation (TCP: the SYN's sender),
           not the sender of the first PDU, as pcaptool's flows */
        copy_address_wmem(wmem_file_scope(), &c->initiator, conversation_key_addr1(conv->key_ptr));
        c->initiator_port = conversation_key_port1(conv->key_ptr);
    }
    return c;
}

static int conv_direction(const ws_conv *c, const packet_info *pinfo)
{
    if (c->by_port_owner)
        return addresses_equal(&pinfo->src, &c->port_owner) && pinfo->srcport == c->owner_port
                   ? c->owner_side : !c->owner_side;
    return addresses_equal(&pinfo->src, &c->initiator) && pinfo->srcport == c->initiator_port ? 0 : 1;
}

/* a linked conversation announced by the decoder: `port` on the address of
   side port_side (this PDU's sender when port_side == dir), any port on the
   other address */
static void rec_expect(void *ctx, int transport, int port_side, uint16_t port, const void *parent)
{
    rec_ctx *rc = ctx;
    ws_proto *wp = rc->wp;
    packet_info *pinfo = rc->pinfo;
    if (transport != GW_TRANSPORT_UDP || !wp->udp_handle || !wp->p->conv_link)
        return;
    const address *owner = port_side == rc->dir ? &pinfo->src : &pinfo->dst;
    const address *other = port_side == rc->dir ? &pinfo->dst : &pinfo->src;
    conversation_t *conv = conversation_new(pinfo->num, owner, other, CONVERSATION_UDP, port, 0,
                                            NO_PORT2);
    conversation_set_dissector(conv, wp->udp_handle);
    ws_conv *c = new_conv(wp, conv);
    c->by_port_owner = TRUE;
    copy_address_wmem(wmem_file_scope(), &c->port_owner, owner);
    c->owner_port = port;
    c->owner_side = port_side;
    wp->p->conv_link(c->state, parent);
}

/* Does this number need gw_format_number's text rather than Wireshark's?
   A name for its value that depends on the conversation, a unit or a date,
   or a value its field's names do not cover (Wireshark would say
   "Unknown (0)" of company 0; both front ends show the number). */
static gboolean own_text(const gw_field *f, const rec_ev *ev)
{
    if (ev->text || gw_field_formatted(f))
        return TRUE;
    if (!f->names)
        return FALSE;
    guint64 v = f->type >= GW_FT_I8 && f->type <= GW_FT_I64 ? (guint64)ev->v.i : gw_field_masked(f, ev->v.u);
    return gw_value_name_of(f->names, (uint32_t)v) == NULL;
}

/* ---- replay into the tree ---- */

static void replay(ws_proto *wp, const rec_pdu *rec, tvbuff_t *tvb, packet_info *pinfo,
                   proto_tree *tree)
{
    tvbuff_t *src_tvb[MAX_SOURCES] = {tvb};
    proto_tree *stack[MAX_DEPTH];
    proto_item *heads[MAX_DEPTH];
    tvbuff_t *head_tvb[MAX_DEPTH];
    int depth = 0;
    proto_item *last = NULL;
    tvbuff_t *last_tvb = tvb;
    int last_field = 0;
    guint n = wmem_array_get_count(rec->ev);
    const rec_ev *evs = wmem_array_get_raw(rec->ev);

    stack[0] = tree;
    for (guint i = 0; i < n; i++) {
        const rec_ev *ev = &evs[i];
        tvbuff_t *t = ev->src < MAX_SOURCES && src_tvb[ev->src] ? src_tvb[ev->src] : tvb;
        proto_tree *cur = stack[depth];
        switch (ev->kind) {
        case EV_SOURCE:
            if (ev->index > 0 && ev->index < MAX_SOURCES) {
                tvbuff_t *nt = tvb_new_child_real_data(tvb, ev->data, ev->len, ev->len);
                add_new_data_source(pinfo, nt, ev->text);
                src_tvb[ev->index] = nt;
            }
            break;
        case EV_PUSH:
            if (depth + 1 < MAX_DEPTH) {
                heads[depth + 1] = last;
                head_tvb[depth + 1] = last_tvb;
                stack[depth + 1] = last ? proto_item_add_subtree(last, wp->ett[last_field]) : cur;
                depth++;
            }
            break;
        case EV_POP:
            if (depth > 0) {
                if (heads[depth])
                    proto_item_set_end(heads[depth], head_tvb[depth], (gint)ev->off);
                depth--;
            }
            break;
        case EV_FINDING:
            proto_tree_add_expert_format(cur, pinfo, &wp->ei[ev->index], t, ev->off, ev->len, "%s",
                                         ev->text);
            break;
        case EV_ITEM: {
            const gw_field *f = &wp->p->fields[ev->index];
            int hf = wp->hf[ev->index];
            char vt[160];
            gint off = (gint)ev->off, len = (gint)ev->len;
            switch (f->type) {
            case GW_FT_NONE:
                last = proto_tree_add_none_format(cur, hf, t, off, len, "%s",
                                                  ev->text ? ev->text : f->name);
                break;
            case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_FRAMENUM:
                last = own_text(f, ev)
                           ? proto_tree_add_uint_format_value(cur, hf, t, off, len, (guint32)ev->v.u, "%s",
                                                              gw_format_number(vt, sizeof vt, f, &ev->v, ev->text))
                           : proto_tree_add_uint(cur, hf, t, off, len, (guint32)ev->v.u);
                break;
            case GW_FT_U64:
                last = own_text(f, ev)
                           ? proto_tree_add_uint64_format_value(cur, hf, t, off, len, ev->v.u, "%s",
                                                                gw_format_number(vt, sizeof vt, f, &ev->v, ev->text))
                           : proto_tree_add_uint64(cur, hf, t, off, len, ev->v.u);
                break;
            case GW_FT_I8: case GW_FT_I16: case GW_FT_I32:
                last = own_text(f, ev)
                           ? proto_tree_add_int_format_value(cur, hf, t, off, len, (gint32)ev->v.i, "%s",
                                                             gw_format_number(vt, sizeof vt, f, &ev->v, ev->text))
                           : proto_tree_add_int(cur, hf, t, off, len, (gint32)ev->v.i);
                break;
            case GW_FT_I64:
                last = own_text(f, ev)
                           ? proto_tree_add_int64_format_value(cur, hf, t, off, len, ev->v.i, "%s",
                                                               gw_format_number(vt, sizeof vt, f, &ev->v, ev->text))
                           : proto_tree_add_int64(cur, hf, t, off, len, ev->v.i);
                break;
            case GW_FT_BOOL:
                last = proto_tree_add_boolean(cur, hf, t, off, len, (guint32)ev->v.u);
                break;
            case GW_FT_DOUBLE:
                last = own_text(f, ev)
                           ? proto_tree_add_double_format_value(cur, hf, t, off, len, ev->v.d, "%s",
                                                                gw_format_number(vt, sizeof vt, f, &ev->v, ev->text))
                           : proto_tree_add_double(cur, hf, t, off, len, ev->v.d);
                break;
            case GW_FT_RELTIME: { /* "0.040349000 s", as pcaptool shows it */
                nstime_t ns = {(time_t)(ev->v.i / 1000000000), (int)(ev->v.i % 1000000000)};
                char sec[32];
                int n = (int)gw_seconds_text(sec, ev->v.i);
                last = proto_tree_add_time_format_value(cur, hf, t, off, len, &ns, "%.*s s", n, sec);
                break;
            }
            case GW_FT_ABSTIME: { /* in every release as 4.0 shows a UTC time, and pcaptool */
                nstime_t ns = {(time_t)(ev->v.i / 1000000000), (int)(ev->v.i % 1000000000)};
                char date[48];
                last = proto_tree_add_time_format_value(cur, hf, t, off, len, &ns, "%s",
                                                        gw_format_date(date, sizeof date, ev->v.i, 9));
                break;
            }
            case GW_FT_STRING:
                last = ev->flags & GW_ITEM_GENERATED ? proto_tree_add_string(cur, hf, t, off, len, ev->text)
                       : len == 0 /* an empty text, not "<MISSING>" */
                           ? proto_tree_add_string(cur, hf, t, off, 0, "")
                           : proto_tree_add_item(cur, hf, t, off, len, ENC_UTF_8);
                break;
            case GW_FT_BYTES: {
                /* Wireshark's hex, but for an empty item ("<MISSING>") and text */
                const guint8 *b = len > 0 ? tvb_get_ptr(t, off, len) : NULL;
                if (len == 0 || gw_looks_like_text(b, (size_t)len)) {
                    char tx[GW_BYTES_TEXT_MAX];
                    last = proto_tree_add_bytes_format_value(cur, hf, t, off, len, b, "%s",
                                                             gw_format_bytes(tx, sizeof tx, b, (size_t)len));
                } else {
                    last = proto_tree_add_item(cur, hf, t, off, len, ENC_NA);
                }
                break;
            }
            case GW_FT_IPV6:
                last = proto_tree_add_item(cur, hf, t, off, len, ENC_NA);
                break;
            case GW_FT_IPV4:
                last = proto_tree_add_item(cur, hf, t, off, len, ENC_BIG_ENDIAN);
                break;
            }
            last_tvb = t;
            last_field = ev->index;
            if (ev->flags & GW_ITEM_GENERATED)
                proto_item_set_generated(last);
            if (ev->flags & GW_ITEM_HIDDEN)
                proto_item_set_hidden(last);
            break;
        }
        }
    }
}

/* ---- the statistics tree (Statistics menu, tshark -z PROTO,tree) ---- */

typedef struct {
    const ws_proto *wp;
    const rec_pdu *rec;
} tap_pdu;

static const char *const TREE_TYPES = "PDUs by type";
static const char *const TREE_FINDINGS = "Findings by severity";
static const char *const TREE_RULES = "Rules reported";
static const char *const TREE_PARTS = "Parts by type";

static void tree_init(stats_tree *st)
{
    stats_tree_create_node(st, TREE_TYPES, 0, STAT_DT_INT, TRUE);
    stats_tree_create_node(st, TREE_FINDINGS, 0, STAT_DT_INT, TRUE);
    stats_tree_create_node(st, TREE_RULES, 0, STAT_DT_INT, TRUE);
}

static gboolean is_rule(const gw_protocol *p, int finding)
{
    for (int i = 0; i < p->n_rules; i++)
        if (p->rules[i].finding == finding)
            return TRUE;
    return FALSE;
}

/* one PDU: its type (the protocol's type field) and its findings, as
   pcaptool stats counts them */
static tap_packet_status tree_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                     const void *data, tap_flags_t flags _U_)
{
    const tap_pdu *t = data;
    const gw_protocol *p = t->wp->p;
    gboolean typed = FALSE;
    guint n = (guint)wmem_array_get_count(t->rec->ev);
    for (guint i = 0; i < n; i++) {
        const rec_ev *ev = wmem_array_index(t->rec->ev, i);
        if (ev->kind == EV_ITEM && ev->index == p->type_field && !typed) {
            char buf[48];
            tick_stat_node(st, TREE_TYPES, 0, TRUE);
            tick_stat_node(st, gw_type_name(buf, sizeof buf, &p->fields[p->type_field], ev->v.u),
                           stats_tree_parent_id_by_name(st, TREE_TYPES), FALSE);
            typed = TRUE;
        } else if (ev->kind == EV_ITEM && p->part_type_field && ev->index == p->part_type_field) {
            char buf[48];
            tick_stat_node(st, TREE_PARTS, 0, TRUE);
            tick_stat_node(st, gw_type_name(buf, sizeof buf, &p->fields[p->part_type_field], ev->v.u),
                           stats_tree_parent_id_by_name(st, TREE_PARTS), FALSE);
        } else if (ev->kind == EV_FINDING) {
            const gw_finding_def *d = &p->findings[ev->index];
            const char *sev = gw_severity_name(d->severity);
            /* the code alone keeps the Count and Rate columns in view;
               Expert Information says what it means */
            const char *label = d->code;
            tick_stat_node(st, TREE_FINDINGS, 0, TRUE);
            int sev_node = tick_stat_node(st, sev, stats_tree_parent_id_by_name(st, TREE_FINDINGS), TRUE);
            tick_stat_node(st, label, sev_node, FALSE);
            if (is_rule(p, ev->index)) {
                tick_stat_node(st, TREE_RULES, 0, TRUE);
                tick_stat_node(st, label, stats_tree_parent_id_by_name(st, TREE_RULES), FALSE);
            }
        }
    }
    return TAP_PACKET_REDRAW;
}

static int dissect_pdu(ws_proto *wp, tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
                       int transport)
{
    guint32 key = (guint32)tvb_raw_offset(tvb);
    rec_pdu *rec = p_get_proto_data(wmem_file_scope(), pinfo, wp->proto, key);

    if (!rec) {
        /* first pass: decode with the conversation state and record */
        ws_conv *conv = get_conv(wp, pinfo);
        gw_pdu_info pi = {
            .frame = pinfo->num,
            .time_ns = gw_time_ns(pinfo->abs_ts.secs, pinfo->abs_ts.nsecs),
            .dir = conv_direction(conv, pinfo),
            .transport = transport,
        };
        rec = wmem_new0(wmem_file_scope(), rec_pdu);
        rec->ev = wmem_array_sized_new(wmem_file_scope(), sizeof(rec_ev), 16);
        p_add_proto_data(wmem_file_scope(), pinfo, wp->proto, key, rec);
        if (!wmem_map_contains(wp->records_by_frame, GUINT_TO_POINTER(pinfo->num)))
            wmem_map_insert(wp->records_by_frame, GUINT_TO_POINTER(pinfo->num), rec);
        rec_ctx rc = {wp, rec, pinfo, pi.dir};
        gw_sink sink = {.ctx = &rc, .item = rec_item, .push = rec_push, .pop = rec_pop,
                        .finding = rec_finding, .summary = rec_summary, .source = rec_source,
                        .expect = rec_expect, .expect_ctx = &rc};
        guint len = tvb_captured_length(tvb);
        wp->p->decode(conv->state, &pi, tvb_get_ptr(tvb, 0, len), len, &sink);
    }

    col_set_str(pinfo->cinfo, COL_PROTOCOL, wp->p->short_name);
    /* several PDUs in one frame: their summaries side by side */
    const char *summary = rec->summary ? rec->summary : "";
    if (p_get_proto_data(pinfo->pool, pinfo, wp->proto, INFO_KEY)) {
        col_append_sep_str(pinfo->cinfo, COL_INFO, " | ", summary);
    } else {
        col_add_str(pinfo->cinfo, COL_INFO, summary);
        p_add_proto_data(pinfo->pool, pinfo, wp->proto, INFO_KEY, GINT_TO_POINTER(1));
    }
    proto_item *ti = proto_tree_add_item(tree, wp->proto, tvb, 0, -1, ENC_NA);
    if (rec->summary)
        proto_item_append_text(ti, ", %s", rec->summary);
    replay(wp, rec, tvb, pinfo, proto_item_add_subtree(ti, wp->ett_proto));
    if (have_tap_listener(wp->tap)) {
        tap_pdu *t = wmem_new(pinfo->pool, tap_pdu);
        *t = (tap_pdu){wp, rec};
        tap_queue_packet(wp->tap, pinfo, t);
    }
    return (int)tvb_captured_length(tvb);
}

static int dissect_udp_cb(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_,
                          void *cb)
{
    return dissect_pdu(cb, tvb, pinfo, tree, GW_TRANSPORT_UDP);
}

/* TCP: the protocol's framing cuts the stream into PDUs. tcp_dissect_pdus
   is told the fixed part is 1 byte, not pdu_header: it reports any length
   below its fixed part as a malformed packet, and the framing may cut off
   less than pdu_header bytes of garbage before a resynchronisation point.
   While the length is not known, 0 asks for one more segment (allowed only
   where TCP can reassemble; elsewhere the rest goes as one PDU). */
static guint tcp_pdu_len(packet_info *pinfo, tvbuff_t *tvb, int offset, void *data)
{
    ws_proto *wp = data;
    guint avail = tvb_captured_length_remaining(tvb, offset);
    long n = avail < wp->p->pdu_header
                 ? 0
                 : wp->p->pdu_length(wp->opts, tvb_get_ptr(tvb, offset, avail), avail);
    if (n == 0)
        return pinfo->can_desegment ? 0 : avail;
    return n < 0 ? avail : (guint)n; /* not a PDU start: the rest, reported as such */
}

static int tcp_pdu_cb(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return dissect_pdu(data, tvb, pinfo, tree, GW_TRANSPORT_TCP);
}

static int dissect_tcp_cb(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_,
                          void *cb)
{
    ws_proto *wp = cb;
    tcp_dissect_pdus(tvb, pinfo, tree, TRUE, 1, tcp_pdu_len, tcp_pdu_cb, wp);
    return (int)tvb_captured_length(tvb);
}

static epan_bool heur_common(int i, int transport, tvbuff_t *tvb, packet_info *pinfo,
                            proto_tree *tree)
{
    ws_proto *wp = &protos[i];
    guint len = tvb_captured_length(tvb);
    if (!gw_heuristic_accepts(wp->p, wp->opts, transport, tvb_get_ptr(tvb, 0, len), len))
        return FALSE;
    dissector_handle_t h = transport == GW_TRANSPORT_TCP ? wp->tcp_handle : wp->udp_handle;
    conversation_set_dissector(find_or_create_conversation(pinfo), h);
    /* called directly: another call_dissector level would use up TCP's
       can_desegment, and a PDU split after its first segment would be lost */
    if (transport == GW_TRANSPORT_TCP)
        dissect_tcp_cb(tvb, pinfo, tree, NULL, wp);
    else
        dissect_udp_cb(tvb, pinfo, tree, NULL, wp);
    return TRUE;
}

#define HEUR(i) \
    static epan_bool heur_udp_##i(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *d _U_) \
    { return heur_common(i, GW_TRANSPORT_UDP, tvb, pinfo, tree); } \
    static epan_bool heur_tcp_##i(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *d _U_) \
    { return heur_common(i, GW_TRANSPORT_TCP, tvb, pinfo, tree); }
HEUR(0) HEUR(1) HEUR(2) HEUR(3) HEUR(4) HEUR(5) HEUR(6) HEUR(7)
static heur_dissector_t heur_udp[MAX_PROTOS] = {heur_udp_0, heur_udp_1, heur_udp_2, heur_udp_3,
                                                heur_udp_4, heur_udp_5, heur_udp_6, heur_udp_7};
static heur_dissector_t heur_tcp[MAX_PROTOS] = {heur_tcp_0, heur_tcp_1, heur_tcp_2, heur_tcp_3,
                                                heur_tcp_4, heur_tcp_5, heur_tcp_6, heur_tcp_7};

/* ---- registration ---- */

static enum ftenum ws_ftype(gw_ftype t)
{
    switch (t) {
    case GW_FT_U8: return FT_UINT8;
    case GW_FT_U16: return FT_UINT16;
    case GW_FT_U32: return FT_UINT32;
    case GW_FT_U64: return FT_UINT64;
    case GW_FT_I8: return FT_INT8;
    case GW_FT_I16: return FT_INT16;
    case GW_FT_I32: return FT_INT32;
    case GW_FT_I64: return FT_INT64;
    case GW_FT_BOOL: return FT_BOOLEAN;
    case GW_FT_DOUBLE: return FT_DOUBLE;
    case GW_FT_STRING: return FT_STRING;
    case GW_FT_BYTES: return FT_BYTES;
    case GW_FT_IPV4: return FT_IPv4;
    case GW_FT_IPV6: return FT_IPv6;
    case GW_FT_FRAMENUM: return FT_FRAMENUM;
    case GW_FT_RELTIME: return FT_RELATIVE_TIME;
    case GW_FT_ABSTIME: return FT_ABSOLUTE_TIME;
    default: return FT_NONE;
    }
}

static int ws_base(const gw_field *f)
{
    switch (f->type) {
    case GW_FT_BOOL:
        return f->mask ? 8 : BASE_NONE; /* bits of the container (u8 flags) */
    case GW_FT_ABSTIME:
        return ABSOLUTE_TIME_UTC;
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64:
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        switch (f->base) {
        case GW_BASE_HEX: return BASE_HEX;
        case GW_BASE_DEC_HEX: return BASE_DEC_HEX;
        default: return BASE_DEC;
        }
    default:
        return BASE_NONE;
    }
}

/* a field's value names: a value_string, or a range_string when some name
   covers a range (display gets BASE_RANGE_STRING) */
static const void *ws_value_names(const gw_value_name *names, int *display)
{
    int n = 0;
    bool ranges = false;
    for (; names[n].name; n++)
        ranges |= names[n].max > names[n].value;
    if (ranges) {
        range_string *rs = g_new0(range_string, n + 1);
        for (int i = 0; i < n; i++) {
            rs[i].value_min = names[i].value;
            rs[i].value_max = names[i].max > names[i].value ? names[i].max : names[i].value;
            rs[i].strptr = names[i].name;
        }
        *display |= BASE_RANGE_STRING;
        return rs;
    }
    value_string *vs = g_new0(value_string, n + 1);
    for (int i = 0; i < n; i++) {
        vs[i].value = names[i].value;
        vs[i].strptr = names[i].name;
    }
    return vs;
}

static void register_one(ws_proto *wp)
{
    const gw_protocol *p = wp->p;
    wp->proto = proto_register_protocol(p->long_name, p->short_name, p->name);
    wp->tap = register_tap(p->name);
    /* Statistics -> <protocol> -> PDU types and findings, as built-in
       dissectors' trees sit under their protocol's name */
    stats_tree_register_plugin(p->name, p->name, g_strdup_printf("%s/PDU types and findings", p->short_name), 0,
                               tree_packet, tree_init, NULL);

    hf_register_info *hfri = g_new0(hf_register_info, p->n_fields);
    wp->hf = g_new(int, p->n_fields);
    wp->ett = g_new(int, p->n_fields);
    for (int i = 0; i < p->n_fields; i++) {
        const gw_field *f = &p->fields[i];
        wp->hf[i] = -1;
        wp->ett[i] = -1;
        hfri[i].p_id = &wp->hf[i];
        hfri[i].hfinfo.name = f->name;
        hfri[i].hfinfo.abbrev = f->abbrev;
        hfri[i].hfinfo.type = ws_ftype(f->type);
        hfri[i].hfinfo.display = ws_base(f);
        if (f->type == GW_FT_FRAMENUM && f->reverse >= 0)
            hfri[i].hfinfo.strings = FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE);
        else if (f->type == GW_FT_FRAMENUM && (f->flags & GW_FIELD_TWO_PASS))
            hfri[i].hfinfo.strings = FRAMENUM_TYPE(FT_FRAMENUM_REQUEST);
        else if (f->names)
            hfri[i].hfinfo.strings = ws_value_names(f->names, &hfri[i].hfinfo.display);
        hfri[i].hfinfo.bitmask = f->mask;
        hfri[i].hfinfo.blurb = f->blurb;
        hfri[i].hfinfo.id = -1;
        hfri[i].hfinfo.parent = 0;
        hfri[i].hfinfo.ref_type = HF_REF_TYPE_NONE;
        hfri[i].hfinfo.same_name_prev_id = -1;
        hfri[i].hfinfo.same_name_next = NULL;
    }
    proto_register_field_array(wp->proto, hfri, p->n_fields);

    wp->ett_proto = -1;
    int **etts = g_new(int *, p->n_fields + 1);
    etts[0] = &wp->ett_proto;
    for (int i = 0; i < p->n_fields; i++)
        etts[i + 1] = &wp->ett[i];
    proto_register_subtree_array(etts, p->n_fields + 1);

    ei_register_info *eiri = g_new0(ei_register_info, p->n_findings);
    wp->ei = g_new0(expert_field, p->n_findings);
    for (int i = 0; i < p->n_findings; i++) {
        const gw_finding_def *d = &p->findings[i];
        wp->ei[i].ei = EI_INIT_EI;
        wp->ei[i].hf = EI_INIT_HF;
        eiri[i].ids = &wp->ei[i];
        eiri[i].eiinfo.name = d->code;
        static const int groups[] = {[GW_GROUP_MALFORMED] = PI_MALFORMED, [GW_GROUP_PROTOCOL] = PI_PROTOCOL,
                                     [GW_GROUP_SEQUENCE] = PI_SEQUENCE, [GW_GROUP_RESPONSE_CODE] = PI_RESPONSE_CODE,
                                     [GW_GROUP_UNDECODED] = PI_UNDECODED, [GW_GROUP_COMMENT] = PI_COMMENTS_GROUP};
        eiri[i].eiinfo.group = groups[d->group];
        eiri[i].eiinfo.severity = d->severity == GW_SEV_ERROR ? PI_ERROR
                                : d->severity == GW_SEV_WARNING ? PI_WARN : PI_NOTE;
        eiri[i].eiinfo.summary = d->summary;
        eiri[i].eiinfo.hf_info.p_id = &eiri[i].ids->hf;
        eiri[i].eiinfo.hf_info.hfinfo.id = -1;
        eiri[i].eiinfo.hf_info.hfinfo.abbrev = d->code;
        eiri[i].eiinfo.hf_info.hfinfo.name = d->summary;
    }
    expert_module_t *em = expert_register_protocol(wp->proto);
    expert_register_field_array(em, eiri, p->n_findings);

    module_t *mod = prefs_register_protocol(wp->proto, NULL);
    gw_options_init(p, wp->opts);
    for (int i = 0; i < p->n_options; i++) {
        const gw_option *o = &p->options[i];
        int n = 0;
        while (o->choices[n].token)
            n++;
        enum_val_t *ev = g_new0(enum_val_t, n + 1);
        for (int k = 0; k < n; k++) {
            ev[k].name = o->choices[k].token;
            ev[k].description = o->choices[k].title;
            ev[k].value = o->choices[k].value;
        }
        prefs_register_enum_preference(mod, o->name, o->title, o->description, &wp->opts[i], ev, FALSE);
    }

    char name[64];
    if (p->transports & GW_TRANSPORT_UDP)
        wp->udp_handle = register_dissector_with_data(p->name, dissect_udp_cb, wp->proto, wp);
    if (p->transports & GW_TRANSPORT_TCP) {
        g_snprintf(name, sizeof name, "%s.tcp", p->name);
        wp->tcp_handle = register_dissector_with_data(g_strdup(name), dissect_tcp_cb, wp->proto, wp);
    }
    wp->records_by_frame = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
                                                  g_direct_hash, g_direct_equal);
    wp->convs = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
                                       g_direct_equal);
}

static void proto_register_gamewire(void)
{
    for (int i = 0; gw_protocols[i] && n_protos < MAX_PROTOS; i++) {
        protos[n_protos].p = gw_protocols[i];
        register_one(&protos[n_protos]);
        n_protos++;
    }
    register_postseq_cleanup_routine(end_all_conversations);
}

/* a port preference (and Decode As); a protocol with no default port gets
   an empty one */
static void add_port_pref(const char *table, guint16 port, dissector_handle_t h)
{
    if (port)
        dissector_add_uint_with_preference(table, port, h);
    else
        dissector_add_uint_range_with_preference(table, "", h);
}

static void proto_reg_handoff_gamewire(void)
{
    for (int i = 0; i < n_protos; i++) {
        ws_proto *wp = &protos[i];
        for (int tcp = 0; tcp < 2; tcp++) {
            const char *l4 = tcp ? "tcp" : "udp";
            if (!(wp->p->transports & (tcp ? GW_TRANSPORT_TCP : GW_TRANSPORT_UDP)))
                continue;
            add_port_pref(tcp ? "tcp.port" : "udp.port", wp->p->default_port,
                          tcp ? wp->tcp_handle : wp->udp_handle);
            char name[64];
            g_snprintf(name, sizeof name, "%s_%s", wp->p->name, l4);
            if (wp->p->heuristic)
                heur_dissector_add(l4, tcp ? heur_tcp[i] : heur_udp[i],
                                   /* what Enabled Protocols lists under the protocol */
                                   g_strdup_printf("%s over %s on any port, found by its first bytes",
                                                   wp->p->short_name, tcp ? "TCP" : "UDP"),
                                   g_strdup(name), wp->proto, HEURISTIC_ENABLE);
        }
    }
}

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_gamewire;
    plug.register_handoff = proto_reg_handoff_gamewire;
    proto_register_plugin(&plug);
}
