#include "config.h"

#include "json_scan.h"

#include <stdlib.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ---- skipping ------------------------------------------------------------------ */

#if defined(__SSE2__)
/* Position of the next byte among " { } [ ] at or after p, or end. */
static const char *next_structural(const char *p, const char *end)
{
	const __m128i q = _mm_set1_epi8('"'), ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
	const __m128i os = _mm_set1_epi8('['), cs = _mm_set1_epi8(']');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(
		    _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, ob)),
		    _mm_or_si128(_mm_cmpeq_epi8(v, cb),
		                 _mm_or_si128(_mm_cmpeq_epi8(v, os), _mm_cmpeq_epi8(v, cs))));
		unsigned mask = (unsigned)_mm_movemask_epi8(m);
		if (mask)
			return p + json_ctz(mask);
		p += 16;
	}
	while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
		p++;
	return p;
}
#else
static const char *next_structural(const char *p, const char *end)
{
	while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
		p++;
	return p;
}
#endif

enum json_scan_status json_skip_container_bytes(const char *p, const char *end, const char **out)
{
	uint64_t depth = 0;
	for (;;) {
		p = next_structural(p, end);
		if (p >= end)
			return JSON_INCOMPLETE;
		char c = *p;
		if (c == '"') {
			unsigned flags = 0;
			p = json_string_end(p + 1, end, &flags);
			if (!p)
				return JSON_INCOMPLETE;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (--depth == 0) {
			*out = p + 1;
			return JSON_OK;
		}
		p++;
	}
}

static enum json_scan_status skip_literal(const char *p, const char *end, const char *word,
                                          const char **out)
{
	size_t n = strlen(word);
	size_t have = (size_t)(end - p);
	if (memcmp(p, word, have < n ? have : n) != 0) {
		*out = p;
		return JSON_SYNTAX;
	}
	if (have < n)
		return JSON_INCOMPLETE;
	*out = p + n;
	return JSON_OK;
}

/* 1: a digit, 2: another byte that can appear in a JSON number. */
const unsigned char json_number_class[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 2, ['+'] = 2, ['.'] = 2, ['e'] = 2, ['E'] = 2,
};

static enum json_scan_status skip_number(const char *p, const char *end, const char **out)
{
	const char *s = p;
	unsigned seen = 0;
	while (p < end && json_number_class[(unsigned char)*p])
		seen |= json_number_class[(unsigned char)*p++];
	if (p >= end)
		return JSON_INCOMPLETE;
	if (!(seen & 1)) {
		*out = s;
		return JSON_SYNTAX;
	}
	*out = p;
	return JSON_OK;
}

enum json_scan_status json_skip_value(const char *p, const char *end, const char **out)
{
	if (p >= end)
		return JSON_INCOMPLETE;
	switch (*p) {
	case '"': {
		unsigned flags = 0;
		const char *q = json_string_end(p + 1, end, &flags);
		if (!q)
			return JSON_INCOMPLETE;
		*out = q + 1;
		return JSON_OK;
	}
	case '{':
	case '[':
		return json_skip_container(p, end, out);
	case 't':
		return skip_literal(p, end, "true", out);
	case 'f':
		return skip_literal(p, end, "false", out);
	case 'n':
		return skip_literal(p, end, "null", out);
	default:
		if (*p == '-' || is_digit(*p))
			return skip_number(p, end, out);
		*out = p;
		return JSON_SYNTAX;
	}
}

/* ---- numbers ------------------------------------------------------------------------ */

/* Decimal digits of a number: up to 38 significant digits kept exactly,
 * the rest only matter for rounding (sticky). */
struct decimal {
	bool neg;
	unsigned __int128 digits;
	int ndigits; /* significant digits kept */
	int exp10;   /* value = digits * 10^exp10 */
	bool sticky; /* non-zero digits dropped beyond the kept ones */
};

static void decimal_push(struct decimal *d, int digit, bool fraction)
{
	if (d->ndigits == 0 && digit == 0) {
		if (fraction)
			d->exp10--;
		return;
	}
	if (d->ndigits < 38) {
		d->digits = d->digits * 10 + (unsigned)digit;
		d->ndigits++;
		if (fraction)
			d->exp10--;
	} else {
		if (!fraction)
			d->exp10++;
		d->sticky |= digit != 0;
	}
}

/* Reads a full JSON number into d. */
static enum json_scan_status read_decimal(const char *p, const char *end, struct decimal *d,
                                          const char **out)
{
	const char *s = p;
	memset(d, 0, sizeof *d);
	if (p < end && *p == '-') {
		d->neg = true;
		p++;
	}
	int nint = 0, nfrac = 0;
	for (; p < end && is_digit(*p); p++, nint++)
		decimal_push(d, *p - '0', false);
	if (p < end && *p == '.') {
		for (p++; p < end && is_digit(*p); p++, nfrac++)
			decimal_push(d, *p - '0', true);
		if (nfrac == 0 && p < end) {
			*out = p;
			return JSON_SYNTAX;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		long e = 0;
		int nexp = 0;
		for (; p < end && is_digit(*p); p++, nexp++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		if (nexp == 0 && p < end) {
			*out = p;
			return JSON_SYNTAX;
		}
		d->exp10 += (int)(eneg ? -e : e);
	}
	if (p >= end)
		return JSON_INCOMPLETE;
	if (nint == 0) {
		*out = s;
		return JSON_SYNTAX;
	}
	while (d->digits && d->digits % 10 == 0 && d->exp10 < 0) { /* 7.50 == 7.5 */
		d->digits /= 10;
		d->exp10++;
	}
	*out = p;
	return JSON_OK;
}

/* digits * 10^shift rounded half away from zero, saturated to INT64_MAX magnitude. */
static int64_t decimal_scale(const struct decimal *d, int shift, bool *saturated)
{
	unsigned __int128 v = d->digits;
	const unsigned __int128 limit = (unsigned __int128)INT64_MAX;
	if (v == 0)
		return 0;
	if (shift >= 0) {
		for (int i = 0; i < shift; i++) {
			if (v > limit) {
				break;
			}
			v *= 10;
		}
	} else {
		bool round_up = false;
		for (int i = 0; i < -shift && v; i++) {
			unsigned r = (unsigned)(v % 10);
			v /= 10;
			round_up = i == -shift - 1 ? r >= 5 : round_up;
		}
		v += round_up;
	}
	if (v > limit) {
		*saturated = true;
		v = limit;
	}
	return d->neg ? -(int64_t)v : (int64_t)v;
}

/* The common case: [-]digits[.digits] with few digits, no exponent. */
static enum json_scan_status fast_us_ns(const char *p, const char *end, int64_t *ns,
                                        const char **out)
{
	bool neg = p < end && *p == '-';
	p += neg;
	uint64_t ip = 0;
	int nint = 0;
#ifdef JSON_SWAR
	uint64_t head = end - p >= 9 ? json_load8(p) : 0;
	if (json_leading_digits(head) == 8) { /* epoch µs: 10-16 digits */
		ip = json_digits_value(head, 8);
		p += 8;
		nint = 8;
	}
#endif
	for (; p < end && is_digit(*p) && nint < 16; p++, nint++)
		ip = ip * 10 + (uint64_t)(*p - '0');
	if (nint == 0 || nint == 16)
		return JSON_SYNTAX; /* let the exact path decide */
	uint64_t frac = 0;
	int nfrac = 0, round = 0;
	if (p < end && *p == '.') {
		for (p++; p < end && is_digit(*p); p++, nfrac++) {
			if (nfrac < 3)
				frac = frac * 10 + (uint64_t)(*p - '0');
			else if (nfrac == 3)
				round = *p >= '5';
		}
		if (nfrac == 0)
			return JSON_SYNTAX;
	}
	if (p >= end || *p == 'e' || *p == 'E')
		return JSON_SYNTAX;
	for (int i = nfrac; i < 3; i++)
		frac *= 10;
	int64_t v = (int64_t)(ip * 1000 + frac) + round;
	*ns = neg ? -v : v;
	*out = p;
	return JSON_OK;
}

enum json_scan_status json_parse_us_ns_exact(const char *p, const char *end, int64_t *ns,
                                             bool *saturated, const char **out)
{
	if (fast_us_ns(p, end, ns, out) == JSON_OK)
		return JSON_OK;
	struct decimal d;
	enum json_scan_status st = read_decimal(p, end, &d, out);
	if (st != JSON_OK)
		return st;
	*ns = decimal_scale(&d, d.exp10 + 3, saturated);
	return JSON_OK;
}

enum json_scan_status json_parse_int(const char *p, const char *end, int64_t *value, bool *is_int,
                                     bool *saturated, const char **out)
{
	uint64_t fast;
	const char *q = json_fast_uint(p, end, &fast);
	if (q) {
		*value = (int64_t)fast;
		*is_int = true;
		*out = q;
		return JSON_OK;
	}
	struct decimal d;
	enum json_scan_status st = read_decimal(p, end, &d, out);
	if (st != JSON_OK)
		return st;
	*is_int = d.exp10 >= 0 && !d.sticky;
	*value = decimal_scale(&d, d.exp10, saturated);
	return JSON_OK;
}

enum json_scan_status json_parse_double(const char *p, const char *end, double *value,
                                        const char **out)
{
	const char *q;
	struct decimal d;
	enum json_scan_status st = read_decimal(p, end, &d, &q);
	if (st != JSON_OK) {
		*out = q;
		return st;
	}
	char buf[64];
	size_t n = (size_t)(q - p);
	if (n >= sizeof buf)
		n = sizeof buf - 1; /* beyond double precision anyway */
	memcpy(buf, p, n);
	buf[n] = '\0';
	*value = strtod(buf, NULL);
	*out = q;
	return JSON_OK;
}

/* ---- strings ------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (1..4), 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t n;
	uint32_t cp;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

bool json_utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq_len(u + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static size_t put_utf8(char *dst, uint32_t cp)
{
	unsigned char *d = (unsigned char *)dst;
	if (cp < 0x80) {
		d[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (unsigned char)(0xC0 | (cp >> 6));
		d[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (unsigned char)(0xE0 | (cp >> 12));
		d[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		d[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	d[0] = (unsigned char)(0xF0 | (cp >> 18));
	d[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	d[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	d[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

static int hex4(const char *s, size_t avail)
{
	if (avail < 4)
		return -1;
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int h = c >= '0' && c <= '9'   ? c - '0'
		        : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10
		                               : -1;
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Decodes the escape at s[0] == '\\'; returns bytes consumed, writes to *dst. */
static size_t decode_escape(const char *s, size_t avail, char **dst, bool *repaired)
{
	static const char simple_in[] = "\"\\/bfnrt", simple_out[] = "\"\\/\b\f\n\r\t";
	if (avail < 2) {
		*repaired = true;
		return avail;
	}
	const char *hit = strchr(simple_in, s[1]);
	if (s[1] && hit) {
		*(*dst)++ = simple_out[hit - simple_in];
		return 2;
	}
	int cp = s[1] == 'u' ? hex4(s + 2, avail - 2) : -1;
	if (cp < 0) {
		*repaired = true;
		*dst += put_utf8(*dst, 0xFFFD);
		return 2;
	}
	size_t used = 6;
	if (cp >= 0xD800 && cp <= 0xDBFF && avail >= 12 && s[6] == '\\' && s[7] == 'u') {
		int lo = hex4(s + 8, avail - 8);
		if (lo >= 0xDC00 && lo <= 0xDFFF) {
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			used = 12;
		}
	}
	if (cp >= 0xD800 && cp <= 0xDFFF) {
		*repaired = true;
		cp = 0xFFFD;
	}
	*dst += put_utf8(*dst, (uint32_t)cp);
	return used;
}

size_t json_decode_string(const char *s, size_t len, char *dst, bool *repaired)
{
	char *d = dst;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		if (s[i] == '\\') {
			i += decode_escape(s + i, len - i, &d, repaired);
			continue;
		}
		size_t n = utf8_seq_len(u + i, len - i);
		if (!n) {
			*repaired = true;
			d += put_utf8(d, 0xFFFD);
			i++;
			continue;
		}
		memcpy(d, s + i, n);
		d += n;
		i += n;
	}
	*d = '\0';
	return (size_t)(d - dst);
}
