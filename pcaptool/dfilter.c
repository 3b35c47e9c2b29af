/* dfilter.c - see dfilter.h: a lexer, a recursive-descent parser into a
 * tree of nodes (the literals converted to the field's type once), and an
 * evaluator that walks the tree over a PDU's items. */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "dfilter.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEPTH 200   /* nesting of parentheses and "not": the parser recurses */
#define MAX_TEXT 16384  /* bytes of a filter */

/* ---- the tree ------------------------------------------------------------- */

typedef enum {
    N_AND, N_OR, N_NOT,
    N_ALL,     /* the empty filter */
    N_PROTO,   /* a protocol's name: a PDU of it */
    N_FIELD,   /* a field's name: the PDU has it */
    N_FINDING, /* a finding's code: the PDU has it */
    N_CMP,     /* field OP value */
} node_kind;

typedef enum {
    OP_EQ,      /* == eq any_eq: some occurrence equals */
    OP_NE,      /* != ne all_ne: none equals (as Wireshark 4.0: !(a == b)) */
    OP_ALL_EQ,  /* === all_eq: every occurrence equals */
    OP_ANY_NE,  /* !== any_ne ~=: some occurrence differs */
    OP_LT, OP_LE, OP_GT, OP_GE,
    OP_CONTAINS,
    OP_MATCHES,
} cmp_op;

/* how a field's values compare */
typedef enum { V_INT, V_DOUBLE, V_RELTIME, V_ABSTIME, V_BYTES } value_kind;

typedef struct node {
    node_kind kind;
    struct node *a, *b;
    const gw_protocol *p;
    int index; /* field or finding */
    int also;  /* N_FIELD: a finding of the same name (eoudp.trailing), or -1 */
    cmp_op op;
    value_kind vk;
    /* the value compared with: an integer as sign and magnitude, a double,
       bytes (strings, byte strings, addresses), or a regular expression */
    bool neg;
    uint64_t mag;
    double d;
    uint8_t *bytes;
    size_t n;
    pcre2_code *re;
} node;

struct dfilter {
    node *root;
    char *text;
};

struct dfilter_eval {
    const dfilter *df;
    pcre2_match_data *md;
};

static void node_free(node *n)
{
    if (!n)
        return;
    node_free(n->a);
    node_free(n->b);
    g_free(n->bytes);
    if (n->re)
        pcre2_code_free(n->re);
    g_free(n);
}

/* ---- tokens --------------------------------------------------------------- */

typedef enum {
    T_END, T_LPAREN, T_RPAREN, T_AND, T_OR, T_NOT, T_CMP, T_STRING, T_WORD,
} tok_kind;

typedef struct {
    tok_kind kind;
    size_t pos, len; /* in the text */
    cmp_op op;       /* T_CMP */
} token;

typedef struct {
    const char *s;
    size_t len;
    token t;         /* the current token */
    /* the first error: its place and reason */
    bool failed;
    size_t err_pos, err_len;
    char *err;
    size_t errsz;
    int depth;
} parser;

static void fail_at(parser *ps, size_t pos, size_t len, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void fail_at(parser *ps, size_t pos, size_t len, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = true;
    ps->err_pos = pos;
    ps->err_len = len ? len : 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->err, ps->errsz, fmt, ap);
    va_end(ap);
}

static bool word_char(char c)
{
    return g_ascii_isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
}

static const struct {
    const char *word;
    tok_kind kind;
    cmp_op op;
} keywords[] = {
    {"and", T_AND, 0}, {"or", T_OR, 0}, {"not", T_NOT, 0},
    {"eq", T_CMP, OP_EQ}, {"any_eq", T_CMP, OP_EQ}, {"ne", T_CMP, OP_NE}, {"all_ne", T_CMP, OP_NE},
    {"all_eq", T_CMP, OP_ALL_EQ}, {"any_ne", T_CMP, OP_ANY_NE},
    {"lt", T_CMP, OP_LT}, {"le", T_CMP, OP_LE}, {"gt", T_CMP, OP_GT}, {"ge", T_CMP, OP_GE},
    {"contains", T_CMP, OP_CONTAINS}, {"matches", T_CMP, OP_MATCHES},
};

static const struct {
    const char *sym;
    tok_kind kind;
    cmp_op op;
} symbols[] = { /* longest first */
    {"===", T_CMP, OP_ALL_EQ}, {"!==", T_CMP, OP_ANY_NE},
    {"==", T_CMP, OP_EQ}, {"!=", T_CMP, OP_NE}, {"~=", T_CMP, OP_ANY_NE}, {"<=", T_CMP, OP_LE},
    {">=", T_CMP, OP_GE}, {"&&", T_AND, 0}, {"||", T_OR, 0},
    {"<", T_CMP, OP_LT}, {">", T_CMP, OP_GT}, {"~", T_CMP, OP_MATCHES}, {"!", T_NOT, 0},
    {"(", T_LPAREN, 0}, {")", T_RPAREN, 0},
};

/* the next token into ps->t */
static void next(parser *ps)
{
    size_t i = ps->t.pos + ps->t.len;
    while (i < ps->len && g_ascii_isspace(ps->s[i]))
        i++;
    ps->t = (token){T_END, i, 0, 0};
    if (i >= ps->len)
        return;
    const char *s = ps->s + i;
    for (size_t k = 0; k < G_N_ELEMENTS(symbols); k++) {
        size_t n = strlen(symbols[k].sym);
        if (strncmp(s, symbols[k].sym, n) == 0) {
            ps->t = (token){symbols[k].kind, i, n, symbols[k].op};
            return;
        }
    }
    if (*s == '"') { /* to the closing quote, escapes skipped (read in string_value) */
        size_t j = i + 1;
        while (j < ps->len && ps->s[j] != '"')
            j += ps->s[j] == '\\' && j + 1 < ps->len ? 2 : 1;
        if (j >= ps->len) {
            fail_at(ps, i, ps->len - i, "the string has no closing quote");
            ps->t = (token){T_END, ps->len, 0, 0};
            return;
        }
        ps->t = (token){T_STRING, i, j + 1 - i, 0};
        return;
    }
    if (word_char(*s)) {
        size_t j = i;
        while (j < ps->len && word_char(ps->s[j]))
            j++;
        ps->t = (token){T_WORD, i, j - i, 0};
        for (size_t k = 0; k < G_N_ELEMENTS(keywords); k++)
            if (strlen(keywords[k].word) == j - i && strncmp(s, keywords[k].word, j - i) == 0) {
                ps->t.kind = keywords[k].kind;
                ps->t.op = keywords[k].op;
            }
        return;
    }
    gunichar c = g_utf8_get_char_validated(s, (gssize)(ps->len - i));
    size_t n = c < 0x80 || c == (gunichar)-1 || c == (gunichar)-2 ? 1 : (size_t)g_unichar_to_utf8(c, NULL);
    fail_at(ps, i, n, "unexpected character '%.*s'", (int)n, s);
    ps->t = (token){T_END, ps->len, 0, 0};
}

/* what the current token is, for messages */
static void describe(const parser *ps, char *buf, size_t n)
{
    if (ps->t.kind == T_END)
        snprintf(buf, n, "the end of the filter");
    else
        snprintf(buf, n, "\"%.*s\"", (int)(ps->t.len > 40 ? 40 : ps->t.len), ps->s + ps->t.pos);
}

/* ---- names ---------------------------------------------------------------- */

typedef struct {
    node_kind kind; /* N_PROTO, N_FIELD, N_FINDING */
    const gw_protocol *p;
    int index;
    int also; /* a field that is also a finding's code: the finding, else -1 */
} name_ref;

static bool lookup(const char *s, size_t n, name_ref *r)
{
    for (int k = 0; gw_protocols[k]; k++) {
        const gw_protocol *p = gw_protocols[k];
        if (strlen(p->name) == n && strncmp(p->name, s, n) == 0) {
            *r = (name_ref){N_PROTO, p, -1, -1};
            return true;
        }
        size_t pl = strlen(p->name);
        if (n <= pl || strncmp(s, p->name, pl) != 0 || s[pl] != '.')
            continue;
        *r = (name_ref){N_FIELD, p, -1, -1};
        for (int f = 0; f < p->n_fields && r->index < 0; f++)
            if (strlen(p->fields[f].abbrev) == n && strncmp(p->fields[f].abbrev, s, n) == 0)
                r->index = f;
        /* Wireshark registers a finding's code as a name to filter on too:
           where a field has the same name, its presence is either's */
        for (int f = 0; f < p->n_findings && r->also < 0; f++)
            if (strlen(p->findings[f].code) == n && strncmp(p->findings[f].code, s, n) == 0)
                r->also = f;
        if (r->index < 0 && r->also >= 0)
            *r = (name_ref){N_FINDING, p, r->also, -1};
        if (r->index >= 0 || r->kind == N_FINDING)
            return true;
    }
    return false;
}

/* ---- values --------------------------------------------------------------- */

/* a string literal's bytes (escapes as Wireshark reads them) into *out;
   false with the error set */
static bool string_value(parser *ps, const token *t, GByteArray *out)
{
    const char *s = ps->s + t->pos + 1, *end = ps->s + t->pos + t->len - 1;
    while (s < end) {
        if (*s != '\\') {
            g_byte_array_append(out, (const guint8 *)s++, 1);
            continue;
        }
        const char *at = s++;
        uint8_t c;
        int digits = 0, base = 0;
        switch (*s) {
        case '\\': case '"': case '\'': c = (uint8_t)*s; break;
        case 'a': c = '\a'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'v': c = '\v'; break;
        case 'x': digits = 2, base = 16; break;
        case 'u': digits = 4, base = 16; break;
        case 'U': digits = 8, base = 16; break;
        default:
            if (*s >= '0' && *s <= '7') {
                digits = 3, base = 8;
                s--; /* the digits start here */
                break;
            }
            fail_at(ps, (size_t)(at - ps->s), 2, "\\%c is not a valid escape sequence", *s);
            return false;
        }
        if (!digits) {
            g_byte_array_append(out, &c, 1);
            s++;
            continue;
        }
        s++;
        uint32_t v = 0;
        for (int k = 0; k < digits; k++, s++) {
            int d = s < end ? g_ascii_xdigit_value(*s) : -1;
            if (d < 0 || d >= base) {
                fail_at(ps, (size_t)(at - ps->s), (size_t)(s - at) + 1, "\\%c needs %d %s digits", at[1],
                        digits, base == 8 ? "octal" : "hex");
                return false;
            }
            v = v * (uint32_t)base + (uint32_t)d;
        }
        if (at[1] == 'u' || at[1] == 'U') {
            char u[8];
            int n = g_unichar_validate(v) ? g_unichar_to_utf8(v, u) : 0;
            if (!n) {
                fail_at(ps, (size_t)(at - ps->s), (size_t)(s - at), "not a Unicode character");
                return false;
            }
            g_byte_array_append(out, (const guint8 *)u, (guint)n);
        } else {
            if (v > 255) {
                fail_at(ps, (size_t)(at - ps->s), (size_t)(s - at), "an octal escape is at most \\377");
                return false;
            }
            c = (uint8_t)v;
            g_byte_array_append(out, &c, 1);
        }
    }
    return true;
}

/* the largest magnitude of a positive and of a negative value of the type */
static void int_range(gw_ftype t, uint64_t *max_pos, uint64_t *max_neg)
{
    static const unsigned bits[] = {
        [GW_FT_U8] = 8, [GW_FT_U16] = 16, [GW_FT_U32] = 32, [GW_FT_U64] = 64,
        [GW_FT_I8] = 8, [GW_FT_I16] = 16, [GW_FT_I32] = 32, [GW_FT_I64] = 64, [GW_FT_FRAMENUM] = 32,
    };
    unsigned b = bits[t];
    bool is_signed = t >= GW_FT_I8 && t <= GW_FT_I64;
    if (is_signed) {
        *max_pos = (UINT64_C(1) << (b - 1)) - 1;
        *max_neg = UINT64_C(1) << (b - 1);
    } else {
        *max_pos = b == 64 ? UINT64_MAX : (UINT64_C(1) << b) - 1;
        *max_neg = UINT64_MAX; /* never equal, as tshark takes -1 for a u16 */
    }
}

/* an integer as Wireshark reads it: decimal, 0x hex or 0 octal, maybe
   negative */
static bool parse_int(const char *s, size_t n, bool *neg, uint64_t *mag)
{
    char buf[72];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    const char *p = buf;
    *neg = *p == '-';
    if (*neg)
        p++;
    if (!g_ascii_isdigit(*p))
        return false;
    char *end;
    errno = 0;
    *mag = g_ascii_strtoull(p, &end, 0);
    return *end == '\0' && errno == 0;
}

static bool parse_double(const char *s, size_t n, double *d)
{
    char buf[72];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    *d = g_ascii_strtod(buf, &end);
    return *end == '\0' && errno == 0;
}

/* a date as Wireshark 4.0 reads one for an absolute time: "2026-11-21",
   "2026-11-21 06:31:17[.fraction]" (or T between), "Nov 21, 2026
   06:31:17[.fraction]"; in UTC when it ends in Z or " UTC", else in local
   time as tshark takes it: nanoseconds since the epoch */
static bool parse_date(const char *s, size_t n, int64_t *ns)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char buf[72], mon[4] = "", *end = buf;
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    struct tm tm = {.tm_isdst = -1};
    int used = 0;
    if (sscanf(buf, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &used) == 3) {
        end = buf + used;
    } else if (sscanf(buf, "%3s %2d, %4d%n", mon, &tm.tm_mday, &tm.tm_year, &used) == 3 && strstr(months, mon) &&
               (strstr(months, mon) - months) % 3 == 0) {
        tm.tm_mon = (int)(strstr(months, mon) - months) / 3 + 1;
        end = buf + used;
    } else {
        return false;
    }
    long frac = 0;
    if (*end == ' ' || *end == 'T') {
        used = 0;
        if (sscanf(end + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &used) < 2 || !used)
            return false;
        end += 1 + used;
        if (*end == ':') {
            used = 0;
            if (sscanf(end + 1, "%2d%n", &tm.tm_sec, &used) < 1 || !used)
                return false;
            end += 1 + used;
            if (*end == '.') {
                int digits = 0;
                for (end++; g_ascii_isdigit(*end); end++, digits++)
                    if (digits < 9)
                        frac = frac * 10 + (*end - '0');
                for (; digits < 9; digits++)
                    frac *= 10;
            }
        }
    }
    bool utc = strcmp(end, "Z") == 0 || strcmp(end, " UTC") == 0;
    if (!utc && *end)
        return false;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
        return false;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    time_t t = utc ? timegm(&tm) : mktime(&tm);
    if (t == (time_t)-1 && !(tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31))
        return false;
    *ns = (int64_t)t * 1000000000 + frac;
    return true;
}

/* bytes written as hex: aa:bb:cc (or - or . between), or aabbcc */
static bool parse_hex_bytes(const char *s, size_t n, GByteArray *out)
{
    size_t i = 0;
    if (n == 0)
        return false;
    while (i < n) {
        int hi = g_ascii_xdigit_value(s[i]), lo = i + 1 < n ? g_ascii_xdigit_value(s[i + 1]) : -1;
        if (hi < 0 || lo < 0)
            return false;
        uint8_t b = (uint8_t)(hi << 4 | lo);
        g_byte_array_append(out, &b, 1);
        i += 2;
        if (i < n && (s[i] == ':' || s[i] == '-' || s[i] == '.')) {
            if (++i == n)
                return false;
        }
    }
    return true;
}

static const char *type_name(gw_ftype t)
{
    switch (t) {
    case GW_FT_NONE: return "a label without a value";
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64:
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64: return "an integer";
    case GW_FT_BOOL: return "a boolean";
    case GW_FT_DOUBLE: return "a floating point number";
    case GW_FT_STRING: return "a string";
    case GW_FT_BYTES: return "a byte string";
    case GW_FT_IPV4: return "an IPv4 address";
    case GW_FT_IPV6: return "an IPv6 address";
    case GW_FT_FRAMENUM: return "a frame number";
    case GW_FT_RELTIME: return "a time in seconds";
    case GW_FT_ABSTIME: return "a date";
    }
    return "a value";
}

/* an integer field's value named by a string: its value names (any case) */
static bool value_by_name(parser *ps, const token *t, const gw_field *f, const char *name, size_t n,
                          uint64_t *v)
{
    if (!f->names) {
        fail_at(ps, t->pos, t->len, "%s is %s and has no value names: \"%.*s\" is not one of its values",
                f->abbrev, type_name(f->type), (int)n, name);
        return false;
    }
    for (const gw_value_name *vn = f->names; vn->name; vn++) {
        if (strlen(vn->name) != n || g_ascii_strncasecmp(vn->name, name, n) != 0)
            continue;
        if (vn->max > vn->value) {
            fail_at(ps, t->pos, t->len, "\"%s\" names the values %u to %u of %s: compare with numbers",
                    vn->name, vn->value, vn->max, f->abbrev);
            return false;
        }
        *v = vn->value;
        return true;
    }
    fail_at(ps, t->pos, t->len, "\"%.*s\" is not among the value names of %s", (int)n, name, f->abbrev);
    return false;
}

/* the value token t, for field f and operator n->op, into n */
static bool set_value(parser *ps, node *n, const token *t)
{
    const gw_field *f = &n->p->fields[n->index];
    const char *s = ps->s + t->pos;
    GByteArray *str = NULL;
    if (t->kind == T_STRING) {
        str = g_byte_array_new();
        if (!string_value(ps, t, str)) {
            g_byte_array_free(str, TRUE);
            return false;
        }
    }
    bool ok = false;
    if (f->type == GW_FT_NONE) {
        fail_at(ps, t->pos, t->len, "%s is a label without a value: only its presence can be tested",
                f->abbrev);
        goto out;
    }
    bool text_field = f->type == GW_FT_STRING || f->type == GW_FT_BYTES;
    if ((n->op == OP_CONTAINS || n->op == OP_MATCHES) && !text_field) {
        fail_at(ps, t->pos, t->len, "%s is %s: \"%s\" is for strings and byte strings", f->abbrev,
                type_name(f->type), n->op == OP_CONTAINS ? "contains" : "matches");
        goto out;
    }
    if (n->op == OP_MATCHES) {
        if (!str) {
            fail_at(ps, t->pos, t->len, "matches takes a regular expression in double quotes");
            goto out;
        }
        int code;
        PCRE2_SIZE at;
        /* as Wireshark 4.0: bytes, not UTF-8 (unless the pattern asks) */
        n->re = pcre2_compile(str->data, str->len, PCRE2_NEVER_BACKSLASH_C, &code, &at, NULL);
        if (!n->re) {
            char msg[160];
            pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, sizeof msg);
            fail_at(ps, t->pos, t->len, "bad regular expression: %s (at %zu)", msg, (size_t)at);
            goto out;
        }
        n->vk = V_BYTES;
        ok = true;
        goto out;
    }
    switch (f->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64:
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64: case GW_FT_FRAMENUM: {
        n->vk = V_INT;
        if (str) {
            ok = value_by_name(ps, t, f, (const char *)str->data, str->len, &n->mag);
            n->neg = false;
            break;
        }
        if (!parse_int(s, t->len, &n->neg, &n->mag)) {
            if (g_ascii_isdigit(*s) || *s == '-')
                fail_at(ps, t->pos, t->len, "\"%.*s\" is not an integer", (int)t->len, s);
            else
                ok = value_by_name(ps, t, f, s, t->len, &n->mag);
            break;
        }
        uint64_t max_pos, max_neg;
        int_range(f->type, &max_pos, &max_neg);
        if (n->neg && n->mag > max_neg)
            fail_at(ps, t->pos, t->len, "\"%.*s\" too small for this field, minimum -%llu", (int)t->len, s,
                    (unsigned long long)max_neg);
        else if (!n->neg && n->mag > max_pos)
            fail_at(ps, t->pos, t->len, "\"%.*s\" too big for this field, maximum %llu", (int)t->len, s,
                    (unsigned long long)max_pos);
        else
            ok = true;
        break;
    }
    case GW_FT_BOOL: {
        n->vk = V_INT;
        n->neg = false;
        const char *w = str ? (const char *)str->data : s;
        size_t wn = str ? str->len : t->len;
        bool neg;
        if (wn == 4 && g_ascii_strncasecmp(w, "true", 4) == 0)
            n->mag = 1, ok = true;
        else if (wn == 5 && g_ascii_strncasecmp(w, "false", 5) == 0)
            n->mag = 0, ok = true;
        else if (!str && parse_int(s, t->len, &neg, &n->mag))
            n->mag = n->mag != 0, ok = true; /* Wireshark: any number but 0 is true */
        else
            fail_at(ps, t->pos, t->len, "%s is a boolean: true, false, 1 or 0", f->abbrev);
        break;
    }
    case GW_FT_DOUBLE: case GW_FT_RELTIME:
        n->vk = f->type == GW_FT_DOUBLE ? V_DOUBLE : V_RELTIME;
        if (!str && parse_double(s, t->len, &n->d))
            ok = true;
        else
            fail_at(ps, t->pos, t->len, "%s is %s: \"%.*s\" is not a number", f->abbrev, type_name(f->type),
                    (int)t->len, s);
        break;
    case GW_FT_ABSTIME: {
        n->vk = V_ABSTIME;
        int64_t ns;
        if (parse_date(str ? (const char *)str->data : s, str ? str->len : t->len, &ns)) {
            n->neg = ns < 0;
            n->mag = n->neg ? -(uint64_t)ns : (uint64_t)ns;
            ok = true;
        } else {
            fail_at(ps, t->pos, t->len, "%s is a date: write \"2026-11-21\", \"2026-11-21 06:31:17.5\" "
                    "(local time) or \"2026-11-21T06:31:17Z\" (UTC)", f->abbrev);
        }
        break;
    }
    case GW_FT_STRING: case GW_FT_BYTES:
        n->vk = V_BYTES;
        if (str) {
            n->n = str->len;
            n->bytes = g_byte_array_steal(str, NULL);
            ok = true;
        } else if (f->type == GW_FT_STRING) { /* an unquoted word is its text, as in tshark */
            n->n = t->len;
            n->bytes = g_memdup2(s, t->len);
            ok = true;
        } else {
            GByteArray *b = g_byte_array_new();
            if (parse_hex_bytes(s, t->len, b)) {
                n->n = b->len;
                n->bytes = g_byte_array_steal(b, NULL);
                ok = true;
            } else {
                g_byte_array_free(b, TRUE);
                fail_at(ps, t->pos, t->len, "%s is a byte string: write bytes as aa:bb:cc or text in quotes",
                        f->abbrev);
            }
        }
        break;
    case GW_FT_IPV4: case GW_FT_IPV6: {
        n->vk = V_BYTES;
        char buf[64];
        int af = f->type == GW_FT_IPV4 ? AF_INET : AF_INET6;
        n->n = af == AF_INET ? 4 : 16;
        n->bytes = g_malloc(16);
        if (!str && t->len < sizeof buf) {
            memcpy(buf, s, t->len);
            buf[t->len] = '\0';
            ok = inet_pton(af, buf, n->bytes) == 1;
        }
        if (!ok)
            fail_at(ps, t->pos, t->len, "%s is %s: \"%.*s\" is not one", f->abbrev, type_name(f->type), (int)t->len,
                    s);
        break;
    }
    default:
        fail_at(ps, t->pos, t->len, "%s cannot be compared", f->abbrev);
        break;
    }
out:
    if (str)
        g_byte_array_free(str, TRUE);
    return ok;
}

/* ---- the grammar -----------------------------------------------------------
 *   expr    := and ("or" and)*
 *   and     := unary ("and" unary)*
 *   unary   := "not" unary | primary
 *   primary := "(" expr ")" | NAME [OP VALUE]
 * "not" binds tightest, then "and", then "or" (as in Wireshark). */

static node *expr(parser *ps);

static node *new_node(node_kind k)
{
    node *n = g_new0(node, 1);
    n->kind = k;
    return n;
}

static node *primary(parser *ps)
{
    char what[64];
    if (ps->t.kind == T_LPAREN) {
        size_t open = ps->t.pos;
        next(ps);
        node *n = expr(ps);
        if (ps->failed)
            return n;
        if (ps->t.kind != T_RPAREN) {
            describe(ps, what, sizeof what);
            fail_at(ps, ps->t.pos, ps->t.len, "expected ')' to close the '(' of column %zu, found %s", open + 1,
                    what);
            return n;
        }
        next(ps);
        return n;
    }
    if (ps->t.kind != T_WORD) {
        describe(ps, what, sizeof what);
        fail_at(ps, ps->t.pos, ps->t.len, "expected a field, a protocol or '(', found %s", what);
        return NULL;
    }
    token name = ps->t;
    name_ref r;
    if (!lookup(ps->s + name.pos, name.len, &r)) {
        fail_at(ps, name.pos, name.len, "unknown field \"%.*s\"", (int)name.len, ps->s + name.pos);
        return NULL;
    }
    next(ps);
    node *n = new_node(r.kind);
    n->p = r.p;
    n->index = r.index;
    n->also = r.also;
    if (ps->t.kind != T_CMP)
        return n;
    token op = ps->t;
    if (r.kind != N_FIELD) {
        fail_at(ps, name.pos, name.len, "\"%.*s\" is a %s: only its presence can be tested", (int)name.len,
                ps->s + name.pos, r.kind == N_PROTO ? "protocol" : "finding");
        return n;
    }
    n->kind = N_CMP;
    n->op = op.op;
    next(ps);
    if (ps->t.kind != T_WORD && ps->t.kind != T_STRING) {
        describe(ps, what, sizeof what);
        fail_at(ps, ps->t.pos, ps->t.len, "expected a value after \"%.*s\", found %s", (int)op.len,
                ps->s + op.pos, what);
        return n;
    }
    name_ref other;
    if (ps->t.kind == T_WORD && lookup(ps->s + ps->t.pos, ps->t.len, &other) && other.kind == N_FIELD) {
        fail_at(ps, ps->t.pos, ps->t.len, "comparing two fields is not supported: compare a field with a value");
        return n;
    }
    if (n->p->fields[n->index].type == GW_FT_NONE) {
        fail_at(ps, name.pos, name.len, "%s is a label without a value: only its presence can be tested",
                n->p->fields[n->index].abbrev);
        return n;
    }
    set_value(ps, n, &ps->t);
    next(ps);
    return n;
}

static node *unary(parser *ps)
{
    if (ps->t.kind != T_NOT)
        return primary(ps);
    if (++ps->depth > MAX_DEPTH) {
        fail_at(ps, ps->t.pos, ps->t.len, "nested too deeply (more than %d levels)", MAX_DEPTH);
        return NULL;
    }
    next(ps);
    node *n = new_node(N_NOT);
    n->a = unary(ps);
    ps->depth--;
    return n;
}

static node *binary(parser *ps, tok_kind op, node *(*operand)(parser *))
{
    node *n = operand(ps);
    while (!ps->failed && ps->t.kind == op) {
        next(ps);
        node *b = new_node(op == T_AND ? N_AND : N_OR);
        b->a = n;
        b->b = operand(ps);
        n = b;
    }
    return n;
}

static node *and_expr(parser *ps)
{
    return binary(ps, T_AND, unary);
}

static node *expr(parser *ps)
{
    if (++ps->depth > MAX_DEPTH) {
        fail_at(ps, ps->t.pos, ps->t.len, "nested too deeply (more than %d levels)", MAX_DEPTH);
        return NULL;
    }
    node *n = binary(ps, T_OR, and_expr);
    ps->depth--;
    return n;
}

dfilter *dfilter_compile(const char *text, char *err, size_t errsz, int *col, int *width)
{
    parser ps = {.s = text, .len = strlen(text), .err = err, .errsz = errsz};
    ps.t = (token){T_END, 0, 0, 0};
    if (ps.len > MAX_TEXT) { /* the tree's depth, and so the evaluator's recursion, stays bounded */
        fail_at(&ps, MAX_TEXT, 1, "the filter is longer than %d bytes", MAX_TEXT);
        *col = MAX_TEXT + 1;
        *width = 1;
        return NULL;
    }
    next(&ps);
    node *root;
    if (ps.t.kind == T_END && !ps.failed) {
        root = new_node(N_ALL);
    } else {
        root = expr(&ps);
        if (!ps.failed && ps.t.kind != T_END) {
            char what[64];
            describe(&ps, what, sizeof what);
            fail_at(&ps, ps.t.pos, ps.t.len, "unexpected %s: expected \"and\", \"or\" or the end", what);
        }
    }
    if (ps.failed) {
        node_free(root);
        *col = (int)ps.err_pos + 1;
        *width = (int)ps.err_len;
        return NULL;
    }
    dfilter *df = g_new0(dfilter, 1);
    df->root = root;
    df->text = g_strdup(text);
    return df;
}

void dfilter_free(dfilter *df)
{
    if (!df)
        return;
    node_free(df->root);
    g_free(df->text);
    g_free(df);
}

const char *dfilter_text(const dfilter *df)
{
    return df->text;
}

void dfilter_print_error(FILE *f, const char *text, const char *err, int col, int width)
{
    fprintf(f, "pcaptool: -Y: column %d: %s\n", col, err);
    /* the filter on one line (control characters as spaces), the caret under
       the place: columns counted in bytes, the caret placed by characters */
    fputs("    ", f);
    for (const char *s = text; *s; s++)
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    fputs("\n    ", f);
    size_t before = (size_t)col - 1, len = strlen(text);
    if (before > len)
        before = len;
    long chars = g_utf8_validate(text, (gssize)before, NULL) ? g_utf8_strlen(text, (gssize)before) : (long)before;
    fprintf(f, "%*s^", (int)chars, "");
    for (int k = 1; k < width && k < 80; k++)
        fputc('~', f);
    fputc('\n', f);
}

/* ---- evaluation ----------------------------------------------------------- */

dfilter_eval *dfilter_eval_new(const dfilter *df)
{
    dfilter_eval *ev = g_new0(dfilter_eval, 1);
    ev->df = df;
    ev->md = pcre2_match_data_create(1, NULL);
    return ev;
}

void dfilter_eval_free(dfilter_eval *ev)
{
    if (!ev)
        return;
    pcre2_match_data_free(ev->md);
    g_free(ev);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* -1, 0, 1: sign and magnitude a against b */
static int cmp_signed(bool an, uint64_t am, bool bn, uint64_t bm)
{
    if (an != bn)
        return an ? -1 : 1;
    return an ? cmp_u64(bm, am) : cmp_u64(am, bm);
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c < 0 ? -1 : 1;
    return cmp_u64(an, bn);
}

/* does this occurrence satisfy the node's operator (its "equal" for the
   quantified ones)? */
static bool test_one(dfilter_eval *ev, const node *n, const gw_field *f, const gw_item *it)
{
    int c;
    switch (n->vk) {
    case V_INT:
    case V_ABSTIME: {
        bool neg = false;
        uint64_t mag;
        if ((f->type >= GW_FT_I8 && f->type <= GW_FT_I64) || f->type == GW_FT_ABSTIME) {
            neg = it->v.i < 0;
            mag = neg ? -(uint64_t)it->v.i : (uint64_t)it->v.i;
        } else {
            mag = gw_field_masked(f, it->v.u);
            if (f->type == GW_FT_BOOL)
                mag = mag != 0;
        }
        c = cmp_signed(neg, mag, n->neg, n->mag);
        break;
    }
    case V_DOUBLE:
    case V_RELTIME: {
        double v = n->vk == V_DOUBLE ? it->v.d : (double)it->v.i / 1e9;
        if (v != v || n->d != n->d) /* NaN: equal to nothing, ordered against nothing */
            return n->op == OP_ANY_NE;
        c = (v > n->d) - (v < n->d);
        break;
    }
    default: {
        const uint8_t *p = it->v.b.p;
        size_t len = it->v.b.n;
        if (!p)
            len = 0;
        if (n->op == OP_CONTAINS)
            return n->n == 0 || (len >= n->n && memmem(p, len, n->bytes, n->n) != NULL);
        if (n->op == OP_MATCHES)
            return pcre2_match(n->re, p ? p : (const uint8_t *)"", len, 0, 0, ev->md, NULL) >= 0;
        c = cmp_bytes(p ? p : (const uint8_t *)"", len, n->bytes, n->n);
        break;
    }
    }
    switch (n->op) {
    case OP_EQ: case OP_NE: case OP_ALL_EQ: return c == 0;
    case OP_ANY_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    default: return false;
    }
}

#define ITEM(r, i) ((const gw_item *)((const char *)(r)->items + (i) * (r)->item_stride))
#define FINDING(r, i) (*(const int *)((const char *)(r)->findings + (i) * (r)->finding_stride))

static bool has_finding(const dfilter_record *r, int finding)
{
    for (size_t i = 0; i < r->n_findings; i++)
        if (FINDING(r, i) == finding)
            return true;
    return false;
}

static bool eval(dfilter_eval *ev, const node *n, const dfilter_record *r)
{
    switch (n->kind) {
    case N_ALL: return true;
    case N_AND: return eval(ev, n->a, r) && eval(ev, n->b, r);
    case N_OR: return eval(ev, n->a, r) || eval(ev, n->b, r);
    case N_NOT: return !eval(ev, n->a, r);
    case N_PROTO: return r->p == n->p;
    case N_FINDING:
        return r->p == n->p && has_finding(r, n->index);
    case N_FIELD:
        if (r->p != n->p)
            return false;
        for (size_t i = 0; i < r->n_items; i++)
            if (ITEM(r, i)->field == n->index)
                return true;
        return n->also >= 0 && has_finding(r, n->also);
    case N_CMP: {
        if (r->p != n->p)
            return false;
        const gw_field *f = &n->p->fields[n->index];
        bool seen = false;
        for (size_t i = 0; i < r->n_items; i++) {
            const gw_item *it = ITEM(r, i);
            if (it->field != n->index)
                continue;
            seen = true;
            bool t = test_one(ev, n, f, it);
            if (n->op == OP_NE && t)
                return false; /* one equals: not "all differ" */
            if (n->op == OP_ALL_EQ && !t)
                return false;
            if (n->op != OP_NE && n->op != OP_ALL_EQ && t)
                return true;
        }
        /* the field absent: no comparison holds (!= neither, as in tshark) */
        return seen && (n->op == OP_NE || n->op == OP_ALL_EQ);
    }
    }
    return false;
}

bool dfilter_match(dfilter_eval *ev, const dfilter_record *r)
{
    return eval(ev, ev->df->root, r);
}

bool dfilter_match_finding(dfilter_eval *ev, const gw_protocol *p, int finding)
{
    dfilter_record r = {.p = p, .findings = &finding, .n_findings = 1, .finding_stride = sizeof finding};
    return dfilter_match(ev, &r);
}
