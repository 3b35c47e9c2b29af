/* gw_core.c - cursor, value helpers and emitters shared by every decoder. */
#include "core/gw_core.h"

#include <inttypes.h>

#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *gw_group_name(gw_group g)
{
    static const char *const names[] = {"malformed", "protocol", "sequence", "response_code", "undecoded",
                                        "comment"};
    return (unsigned)g < G_N_ELEMENTS(names) ? names[g] : "?";
}

/* ---- heuristics ---- */

typedef struct {
    const gw_protocol *p;
    bool error;
} heuristic_check;

static void hc_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    heuristic_check *h = ctx;
    (void)src; (void)off; (void)len; (void)msg;
    if (h->p->findings[finding].severity == GW_SEV_ERROR)
        h->error = true;
}

static bool hc_no_message(void *ctx, int finding)
{
    (void)ctx; (void)finding;
    return false;
}

static void hc_source(void *ctx, int src, const char *name, const uint8_t *data, size_t len)
{
    (void)ctx; (void)src; (void)name; (void)data; (void)len;
}

void gw_options_init(const gw_protocol *p, int *opts)
{
    for (int i = 0; i < GW_MAX_OPTIONS; i++)
        opts[i] = i < p->n_options ? p->options[i].default_value : 0;
}

bool gw_heuristic_accepts(const gw_protocol *p, const int *opts, int transport, const uint8_t *data,
                          size_t len)
{
    if (!p->heuristic || !p->heuristic(opts, transport, data, len))
        return false;
    size_t n = len;
    if (transport == GW_TRANSPORT_TCP) {
        if (len < p->pdu_header)
            return true; /* no whole PDU to try: the heuristic's word */
        long l = p->pdu_length(opts, data, len);
        if (l == GW_PDU_INVALID)
            return false;
        if (l <= 0 || (size_t)l > len)
            return true;
        n = (size_t)l;
    }
    heuristic_check h = {p, false};
    gw_sink sink = {.ctx = &h, .finding = hc_finding, .wants_message = hc_no_message,
                    .source = hc_source};
    void *conv = g_malloc(p->conv_size);
    p->conv_init(conv, opts);
    gw_pdu_info pi = {.frame = 1, .transport = transport};
    p->decode(conv, &pi, data, n, &sink);
    if (p->conv_free)
        p->conv_free(conv);
    g_free(conv);
    return !h.error;
}

/* ---- cursor ---- */

bool gw_read_u8(gw_cursor *c, uint8_t *v)
{
    if (gw_remaining(c) < 1)
        return false;
    *v = c->data[c->off++];
    return true;
}

bool gw_read_u16le(gw_cursor *c, uint16_t *v)
{
    if (gw_remaining(c) < 2)
        return false;
    const uint8_t *p = c->data + c->off;
    *v = (uint16_t)(p[0] | (p[1] << 8));
    c->off += 2;
    return true;
}

bool gw_read_u32le(gw_cursor *c, uint32_t *v)
{
    if (gw_remaining(c) < 4)
        return false;
    const uint8_t *p = c->data + c->off;
    *v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
    c->off += 4;
    return true;
}

bool gw_read_u64le(gw_cursor *c, uint64_t *v)
{
    uint32_t lo, hi;
    if (gw_remaining(c) < 8)
        return false;
    gw_read_u32le(c, &lo);
    gw_read_u32le(c, &hi);
    *v = ((uint64_t)hi << 32) | lo;
    return true;
}

bool gw_skip(gw_cursor *c, size_t n)
{
    if (gw_remaining(c) < n)
        return false;
    c->off += n;
    return true;
}

/* IEEE 754 binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits */
double gw_half_to_double(uint16_t h)
{
    int sign = (h >> 15) & 1;
    int exp = (h >> 10) & 0x1f;
    int frac = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)frac, -24);              /* zero or subnormal */
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp((double)(frac | 0x400), exp - 25); /* 1.frac * 2^(exp-15) */
    return sign ? -v : v;
}

uint64_t gw_sign_extend(uint64_t v, unsigned bytes)
{
    if (bytes >= 8)
        return v;
    unsigned bits = bytes * 8;
    uint64_t m = 1ull << (bits - 1);
    v &= (1ull << bits) - 1;
    return (v ^ m) - m;
}

/* len bytes at s, of which what fits before the last byte of out[size] */
static inline void put_fit(char *out, size_t size, size_t *n, const char *s, size_t len)
{
    if (*n + len < size) { /* all of it (most) */
        gw_copy_short(out + *n, s, len);
    } else if (*n + 1 < size) {
        size_t room = size - 1 - *n;
        memcpy(out + *n, s, len < room ? len : room);
    }
    *n += len;
}

char *gw_decimal_back(char *end, uint64_t v)
{
    char *q = end;
    for (; v >= 100; v /= 100)
        memcpy(q -= 2, gw_two_digits + 2 * (v % 100), 2);
    if (v >= 10)
        memcpy(q -= 2, gw_two_digits + 2 * v, 2);
    else
        *--q = (char)('0' + v);
    return q;
}

char *gw_hex_back(char *end, uint64_t v, unsigned width)
{
    char *q = end;
    unsigned k = 0;
    do {
        *--q = "0123456789abcdef"[v & 15];
        v >>= 4;
        k++;
    } while (v);
    for (; k < width && k < 16; k++)
        *--q = '0';
    return q;
}

/* v in decimal at out (after a '-' when negative), as put_fit puts it */
static void put_number(char *out, size_t size, size_t *n, uint64_t v, bool negative)
{
    char t[24];
    char *q = gw_decimal_back(t + sizeof t, v);
    if (negative)
        *--q = '-';
    put_fit(out, size, n, q, (size_t)(t + sizeof t - q));
}

/* v in hex at out, at least width digits (zeros before), as put_fit puts it */
static void put_hex(char *out, size_t size, size_t *n, uint64_t v, unsigned width)
{
    char t[24];
    char *q = gw_hex_back(t + sizeof t, v, width);
    put_fit(out, size, n, q, (size_t)(t + sizeof t - q));
}

/* vsnprintf into out[size] (size >= 1): what it writes and returns. A
   summary's format is read for every PDU shown, so the plain conversions
   are made by hand in one pass: %s (and its precision, %.4s or %.*s), %c,
   %d, %i, %u, %x (the numbers after l, ll or z), %%, without flags, width
   or other precision; at the first other one the whole format goes to
   vsnprintf itself. */
static size_t gw_vformat(char *out, size_t size, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    size_t n = 0;
    bool plain = true;
    for (const char *f = fmt; plain;) {
        for (; *f && *f != '%'; f++, n++) /* the format's own text: a few bytes between conversions */
            if (n + 1 < size)
                out[n] = *f;
        if (!*f)
            break;
        f++;
        if (*f == '%') {
            put_fit(out, size, &n, "%", 1);
            f++;
            continue;
        }
        int precision = -1; /* %.Ns, %.*s: at most N bytes of the text */
        if (*f == '.' && f[1] == '*') {
            precision = va_arg(ap, int);
            f += 2;
        } else if (*f == '.' && f[1] >= '0' && f[1] <= '9') {
            for (precision = 0, f++; *f >= '0' && *f <= '9'; f++)
                precision = 10 * precision + (*f - '0');
        }
        int longs = 0;
        bool z = false;
        if (f[0] == 'l' && f[1] == 'l')
            longs = 2;
        else if (*f == 'l')
            longs = 1;
        else if (*f == 'z')
            z = true;
        f += longs + z;
        char conv = *f++;
        bool modified = longs || z;
        if (conv == 's' && !modified) {
            const char *str = va_arg(ap, const char *);
            if (!str && precision >= 0) {
                plain = false; /* (glibc's own way: "(null)" whole or nothing) */
                continue;
            }
            if (!str)
                str = "(null)";
            put_fit(out, size, &n, str, precision >= 0 ? strnlen(str, (size_t)precision) : strlen(str));
        } else if (precision >= 0) {
            plain = false;
        } else if (conv == 'c' && !modified) {
            char c = (char)va_arg(ap, int);
            put_fit(out, size, &n, &c, 1);
        } else if (conv == 'd' || conv == 'i') {
            int64_t v = z ? (int64_t)va_arg(ap, ptrdiff_t) : longs == 2 ? (int64_t)va_arg(ap, long long)
                      : longs ? (int64_t)va_arg(ap, long) : (int64_t)va_arg(ap, int);
            put_number(out, size, &n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
        } else if (conv == 'u' || conv == 'x') {
            uint64_t v = z ? (uint64_t)va_arg(ap, size_t) : longs == 2 ? (uint64_t)va_arg(ap, unsigned long long)
                       : longs ? (uint64_t)va_arg(ap, unsigned long) : (uint64_t)va_arg(ap, unsigned);
            if (conv == 'x')
                put_hex(out, size, &n, v, 0);
            else
                put_number(out, size, &n, v, false);
        } else {
            plain = false;
        }
    }
    if (!plain) { /* all of it again by vsnprintf */
        int k = vsnprintf(out, size, fmt, again);
        va_end(again);
        return k > 0 ? (size_t)k : 0;
    }
    va_end(again);
    out[n < size ? n : size - 1] = '\0';
    return n;
}

void gw_summary_format(gw_summary *s, const char *fmt, ...)
{
    if (s->off || s->len >= sizeof s->text - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) { /* "%s", a third of all: the text as it is */
        const char *str = va_arg(ap, const char *);
        va_end(ap);
        if (!str)
            str = "(null)";
        size_t n = strlen(str), room = sizeof s->text - 1 - s->len;
        memcpy(s->text + s->len, str, n < room ? n : room);
        s->len += n < room ? n : room;
        s->text[s->len] = '\0';
        return;
    }
    size_t n = gw_vformat(s->text + s->len, sizeof s->text - s->len, fmt, ap);
    va_end(ap);
    s->len += n;
    if (s->len > sizeof s->text - 1)
        s->len = sizeof s->text - 1;
}

void gw_clean_text(char *out, size_t outsz, const uint8_t *p, size_t n, size_t max_chars)
{
    size_t o = 0, chars = 0, i = 0;
    if (!outsz)
        return;
    while (i < n && chars < max_chars) {
        if (p[i] >= 0x20 && p[i] < 0x7f) { /* printable ASCII (most text): as it is */
            char c = (char)p[i++];
            if (o + 5 >= outsz) /* (i past it: as for any other character) */
                break;
            out[o++] = c;
            chars++;
            continue;
        }
        size_t len;
        char buf[6];
        gunichar c = g_utf8_get_char_validated((const char *)p + i, (gssize)(n - i));
        if (c == (gunichar)-1 || c == (gunichar)-2 || g_unichar_iscntrl(c)) {
            buf[0] = '?';
            len = 1;
            i += (c == (gunichar)-1 || c == (gunichar)-2) ? 1 : (size_t)g_unichar_to_utf8(c, NULL);
        } else {
            len = (size_t)g_unichar_to_utf8(c, buf);
            i += len;
        }
        if (o + len + 4 >= outsz)
            break;
        memcpy(out + o, buf, len);
        o += len;
        chars++;
    }
    if (i < n && o + 4 < outsz) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

const gw_choice gw_profile_choices[] = {
    {GW_PROFILE_EITHER, "either", "What the text or the reference allows is no warning or error (noted once, saying which)"},
    {GW_PROFILE_REFERENCE, "reference", "Strict: judge by what the reference implementation does (texts' divergences noted once)"},
    {GW_PROFILE_SPEC, "spec", "Strict: judge by the published text, literally"},
    {0, NULL, NULL}};

const char *gw_value_name_of(const gw_value_name *names, uint32_t v)
{
    for (; names && names->name; names++)
        if (names->value == v || (names->max > names->value && v >= names->value && v <= names->max))
            return names->name;
    return NULL;
}

const char *gw_value_name_or(const gw_value_name *names, uint32_t v, const char *fallback)
{
    const char *s = gw_value_name_of(names, v);
    return s ? s : fallback;
}

bool gw_utf8_valid(const uint8_t *p, size_t n)
{
    const uint64_t high = UINT64_C(0x8080808080808080), ones = UINT64_C(0x0101010101010101);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if ((w & high) || ((w - ones) & ~w & high)) /* a byte of 0x80 or more, or a NUL */
            return g_utf8_validate((const char *)p, (gssize)n, NULL);
    }
    for (; i < n; i++)
        if (p[i] == 0 || p[i] >= 0x80)
            return g_utf8_validate((const char *)p, (gssize)n, NULL);
    return true;
}

bool gw_looks_like_text(const uint8_t *p, size_t n)
{
    if (n < 4 || !gw_utf8_valid(p, n))
        return false;
    size_t controls = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == 0)
            return false;
        if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') || p[i] == 0x7f)
            controls++;
    }
    return controls * 8 <= n;
}

const char *gw_format_bytes(char *buf, size_t n, const uint8_t *p, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    if (!len) {
        snprintf(buf, n, "(empty)");
        return buf;
    }
    size_t w = 0;
    for (size_t i = 0; i < len && i < 64 && w + 3 < n; i++) {
        buf[w++] = digits[p[i] >> 4];
        buf[w++] = digits[p[i] & 15];
    }
    buf[w] = '\0';
    if (len > 64 && w < n)
        w += (size_t)snprintf(buf + w, n - w, "... (%zu bytes)", len);
    if (w < n && gw_looks_like_text(p, len)) {
        char text[4 * 64 + 8];
        gw_clean_text(text, sizeof text, p, len, 64);
        snprintf(buf + w, n - w, " (\"%s\")", text);
    }
    return buf;
}

const char *gw_type_name(char *buf, size_t n, const gw_field *f, uint64_t v)
{
    for (const gw_value_name *nm = f->names; nm && nm->name; nm++) {
        if (nm->value == v && nm->max <= nm->value)
            return nm->name;
        if (nm->max > nm->value && v >= nm->value && v <= nm->max) {
            snprintf(buf, n, "%s (%llu)", nm->name, (unsigned long long)v);
            return buf;
        }
    }
    snprintf(buf, n, "unknown (%llu)", (unsigned long long)v);
    return buf;
}

const char *gw_severity_name(gw_severity s)
{
    switch (s) {
    case GW_SEV_ERROR: return "error";
    case GW_SEV_WARNING: return "warning";
    default: return "note";
    }
}

uint64_t gw_field_masked(const gw_field *f, uint64_t raw)
{
    if (!f->mask)
        return raw;
    raw &= f->mask;
    uint64_t m = f->mask;
    while (!(m & 1)) {
        m >>= 1;
        raw >>= 1;
    }
    return raw;
}

static const char *const base_units[] = {
    [GW_BASE_SECONDS] = "s", [GW_BASE_MILLISECONDS] = "ms", [GW_BASE_BYTES] = "bytes",
    [GW_BASE_BYTES_PER_SECOND] = "bytes/s", [GW_BASE_EPOCH_MS] = "ms",
};

/* days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's
   days_from_civil, reversed) */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

const char gw_two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";

size_t gw_seconds_text(char out[32], int64_t ns)
{
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t sec = u / 1000000000;
    unsigned frac = (unsigned)(u % 1000000000);
    char b[32];
    int i = (int)sizeof b;
    for (int k = 0; k < 4; k++, frac /= 100) /* two digits at a time */
        memcpy(b + (i -= 2), gw_two_digits + 2 * (frac % 100), 2);
    b[--i] = (char)('0' + frac);
    b[--i] = '.';
    for (; sec >= 100; sec /= 100)
        memcpy(b + (i -= 2), gw_two_digits + 2 * (sec % 100), 2);
    if (sec >= 10)
        memcpy(b + (i -= 2), gw_two_digits + 2 * sec, 2);
    else
        b[--i] = (char)('0' + sec);
    if (ns < 0)
        b[--i] = '-';
    size_t n = sizeof b - (size_t)i;
    memcpy(out, b + i, n);
    return n;
}

const char *gw_format_date(char *buf, size_t n, int64_t ns, int digits)
{
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (ns < 0) { /* (an int64_t of ns ends in 2262: no year of five digits) */
        snprintf(buf, n, "(not a date)");
        return buf;
    }
    int64_t s = ns / 1000000000, days = s / 86400, y;
    unsigned sod = (unsigned)(s % 86400), m, d;
    civil_from_days(days, &y, &m, &d);
    int w = snprintf(buf, n, "%s %2u, %lld %02u:%02u:%02u", months[m - 1], d, (long long)y, sod / 3600,
                     sod / 60 % 60, sod % 60);
    if (digits > 0 && w > 0 && (size_t)w < n) {
        long frac = (long)(ns % 1000000000);
        for (int k = digits; k < 9; k++)
            frac /= 10;
        w += snprintf(buf + w, n - (size_t)w, ".%0*ld", digits, frac);
    }
    if (w > 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, " UTC");
    return buf;
}

static unsigned type_bytes(gw_ftype t)
{
    switch (t) {
    case GW_FT_U8: case GW_FT_I8: return 1;
    case GW_FT_U16: case GW_FT_I16: return 2;
    case GW_FT_U32: case GW_FT_I32: return 4;
    default: return 8;
    }
}

/* out[size] ends at n (what did not fit left out; size 0: nothing
   written, as snprintf): out */
static const char *put_end(char *out, size_t size, size_t n)
{
    if (size)
        out[n < size ? n : size - 1] = '\0';
    return out;
}

const char *gw_format_number(char *buf, size_t n, const gw_field *f, const gw_value *v,
                             const char *value_name)
{
    size_t at = 0; /* (by hand: snprintf's format parsing was most of -V's cost) */
    const char *own = f->base == GW_BASE_NONE && f->type >= GW_FT_U8 && f->type <= GW_FT_U64 && !value_name
                          ? gw_value_name_of(f->names, (uint32_t)v->u)
                          : NULL;
    if (own) { /* the decoder's own enumeration: the name says it all */
        put_fit(buf, n, &at, own, strlen(own));
        return put_end(buf, n, at);
    }
    const char *unit = (size_t)f->base < sizeof base_units / sizeof *base_units ? base_units[f->base] : NULL;
    char num[48];
    size_t nl = 0;
    switch (f->type) {
    case GW_FT_U8: case GW_FT_U16: case GW_FT_U32: case GW_FT_U64: {
        uint64_t u = gw_field_masked(f, v->u);
        if (!value_name && f->names)
            value_name = gw_value_name_of(f->names, (uint32_t)u);
        if (f->base == GW_BASE_HEX) {
            put_fit(num, sizeof num, &nl, "0x", 2);
            put_hex(num, sizeof num, &nl, u, f->mask ? 2 : 2 * type_bytes(f->type));
        } else if (f->base == GW_BASE_DEC_HEX) {
            put_number(num, sizeof num, &nl, u, false);
            put_fit(num, sizeof num, &nl, " (0x", 4);
            put_hex(num, sizeof num, &nl, u, 2 * type_bytes(f->type));
            put_fit(num, sizeof num, &nl, ")", 1);
        } else {
            put_number(num, sizeof num, &nl, u, false);
        }
        break;
    }
    case GW_FT_I8: case GW_FT_I16: case GW_FT_I32: case GW_FT_I64:
        if (!value_name && f->names)
            value_name = gw_value_name_of(f->names, (uint32_t)v->i);
        put_number(num, sizeof num, &nl, v->i < 0 ? (uint64_t)0 - (uint64_t)v->i : (uint64_t)v->i, v->i < 0);
        break;
    case GW_FT_BOOL: {
        bool set = gw_field_masked(f, v->u);
        put_fit(buf, n, &at, set ? "True" : "False", set ? 4 : 5);
        return put_end(buf, n, at);
    }
    case GW_FT_DOUBLE:
        snprintf(num, sizeof num, "%.15g", v->d);
        nl = strlen(num);
        if (f->base == GW_BASE_EPOCH_MS && !value_name) {
            char date[48];
            if (v->d >= 0 && v->d < 9.2e12) { /* whole milliseconds apart: a double's
                                                 ns near 2^60 are 256 apart */
                double whole = floor(v->d);
                int64_t ns = (int64_t)whole * 1000000 + (int64_t)llround((v->d - whole) * 1e6);
                snprintf(buf, n, "%s (%s ms)", gw_format_date(date, sizeof date, ns, 3), num);
            }
            else
                snprintf(buf, n, "(not a date) (%s ms)", num);
            return buf;
        }
        break;
    default:
        put_fit(buf, n, &at, "?", 1);
        return put_end(buf, n, at);
    }
    nl = nl < sizeof num ? nl : sizeof num - 1; /* (num is not NUL-ended: its length is nl) */
    if (unit && nl == 1 && num[0] == '1' && (f->base == GW_BASE_BYTES || f->base == GW_BASE_BYTES_PER_SECOND))
        unit = f->base == GW_BASE_BYTES ? "byte" : "byte/s"; /* "1 byte" */
    if (value_name) {
        put_fit(buf, n, &at, value_name, strlen(value_name));
        put_fit(buf, n, &at, " (", 2);
        put_fit(buf, n, &at, num, nl);
        put_fit(buf, n, &at, ")", 1);
    } else {
        put_fit(buf, n, &at, num, nl);
        if (unit) {
            put_fit(buf, n, &at, " ", 1);
            put_fit(buf, n, &at, unit, strlen(unit));
        }
    }
    return put_end(buf, n, at);
}

/* ---- emitters ---- */

static void vfinding(gw_emit *e, int finding, size_t off, size_t len, const char *fmt, va_list ap)
{
    const gw_sink *s = e->sink;
    if (s->wants_message && !s->wants_message(s->ctx, finding)) {
        s->finding(s->ctx, finding, e->src, off, len, NULL);
        return;
    }
    char msg[256];
    gw_vformat(msg, sizeof msg, fmt, ap);
    s->finding(s->ctx, finding, e->src, off, len, msg);
}

void gw_emit_finding(gw_emit *e, int finding, size_t off, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(e, finding, off, len, fmt, ap);
    va_end(ap);
}

void (gw_emit_divergence)(gw_emit *e, int profile, int spec_finding, int note_finding, bool *noted,
                          size_t off, size_t len, const char *spec_fmt, const char *note_fmt, ...)
{
    va_list ap;
    va_start(ap, note_fmt);
    if (profile == GW_PROFILE_SPEC) {
        vfinding(e, spec_finding, off, len, spec_fmt, ap);
    } else if (!*noted) {
        *noted = true;
        vfinding(e, note_finding, off, len, note_fmt, ap);
    }
    va_end(ap);
}

void gw_emit_rest(gw_emit *e, gw_cursor *c, int data_field, int finding, const char *fmt, ...)
{
    size_t off = c->off, n = gw_remaining(c);
    if (n)
        gw_emit_b(e, data_field, off, n, c->data + off, n);
    if (finding >= 0) {
        va_list ap;
        va_start(ap, fmt);
        vfinding(e, finding, off, n, fmt, ap);
        va_end(ap);
    }
    c->off = c->len;
}

/* ---- one PDU being decoded ---- */

static void quiet_finding(void *ctx, int finding, int src, size_t off, size_t len, const char *msg)
{
    (void)ctx; (void)finding; (void)src; (void)off; (void)len; (void)msg;
}
static bool quiet_no_message(void *ctx, int finding)
{
    (void)ctx; (void)finding;
    return false;
}
const gw_sink gw_quiet_sink = {.finding = quiet_finding, .wants_message = quiet_no_message};
const gw_pdu_info gw_quiet_pi = {.transport = GW_TRANSPORT_UDP};

void gw_pdu_truncated(gw_pdu *x, const char *what)
{
    if (x->failed)
        return;
    x->failed = true;
    gw_emit_rest(&x->e, &x->c, x->proto->rest_field, x->proto->truncated_finding,
                 "Truncated: %s missing at offset %zu", what, x->c.off);
    x->mark = true;
}

/* gw_pdu_need for a field; its name is looked up only when the bytes ran
   out (written out, the lookup stays off the hot path) */
static inline bool have(gw_pdu *x, int field, size_t n)
{
    if (!x->failed && gw_remaining(&x->c) >= n)
        return true;
    return gw_pdu_need(x, n, x->proto->fields[field].name);
}

/* a number of `size` bytes read as `v` at off, its item by its field's
   type to the sink (which takes items), named by the hooks where they name
   it (one of the commonest events where items are wanted) */
static inline void num_item(gw_pdu *x, int field, size_t off, unsigned size, uint64_t v, bool big_endian)
{
    gw_item it = {.field = field, .src = x->e.src, .off = off, .len = size, .v.u = v,
                  .flags = big_endian && size > 1 ? GW_ITEM_BIG_ENDIAN : 0};
    gw_ftype type = x->proto->fields[field].type;
    if (type >= GW_FT_I8 && type <= GW_FT_I64)
        it.v.i = (int64_t)gw_sign_extend(v, size);
    else if (type == GW_FT_DOUBLE)
        it.v.d = gw_float_bits(v, size); /* 2: half precision */
    if (x->hooks && x->hooks->value_name)
        it.label = x->hooks->value_name(x, field, v);
    x->e.sink->item(x->e.sink->ctx, &it);
}

bool gw_take_num_slow(gw_pdu *x, int field, unsigned size, bool big_endian, uint64_t *out)
{
    if (!have(x, field, size))
        return false;
    size_t off = x->c.off;
    uint64_t v = gw_get_uint(x->c.data + off, size, big_endian);
    x->c.off = off + size;
    gw_record_num(x, field, v);
    if (out)
        *out = v;
    if (x->e.sink->item) /* (last: a call that ends the work) */
        num_item(x, field, off, size, v, big_endian);
    return true;
}

bool gw_take_bytes(gw_pdu *x, int field, size_t n)
{
    if (!have(x, field, n))
        return false;
    gw_pdu_text(x, field, x->c.off, n);
    x->c.off += n;
    return true;
}

bool gw_take_cstr(gw_pdu *x, int field, int unterminated, const uint8_t **p, size_t *n)
{
    if (!have(x, field, 1))
        return false;
    size_t off = x->c.off, rem = gw_remaining(&x->c);
    const uint8_t *s = x->c.data + off;
    const uint8_t *nul = memchr(s, 0, rem);
    size_t len = nul ? (size_t)(nul - s) : rem;
    gw_pdu_text(x, field, off, len);
    if (p)
        *p = s;
    if (n)
        *n = len;
    if (!nul) {
        x->failed = true;
        gw_emit_finding(&x->e, unterminated, off, len, "%s runs to the end without a NUL",
                        x->proto->fields[field].name);
        x->c.off = x->c.len;
        return false;
    }
    x->c.off += len + 1;
    return true;
}

void gw_take_rest(gw_pdu *x, int field)
{
    size_t off = x->c.off, n = gw_remaining(&x->c);
    if (n)
        gw_emit_b(&x->e, field, off, n, x->c.data + off, n);
    x->c.off = x->c.len;
}
