/* Streaming JSON scanning primitives for the trace loaders: no DOM, no
 * allocation on the fast path. Every function takes [p, end) and returns
 * a position; NULL means "input ended inside the value" (the caller may
 * retry with more bytes) unless documented otherwise. */
#ifndef TREX_LOAD_JSON_SCAN_H
#define TREX_LOAD_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
	JSON_STR_ESCAPED = 1u << 0,  /* contains a backslash escape */
	JSON_STR_NONASCII = 1u << 1, /* contains bytes >= 0x80 (needs UTF-8 check) */
};

/* Result of skipping or parsing a value. */
enum json_scan_status {
	JSON_OK = 0,
	JSON_INCOMPLETE, /* input ended inside the value */
	JSON_SYNTAX,     /* unexpected byte at *where */
};

static inline bool json_is_ws(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

#if defined(__SSE2__)
static inline unsigned json_ctz(unsigned x)
{
	return (unsigned)__builtin_ctz(x);
}
#endif

/* Pretty-printed traces (Kineto: newline + indentation between members)
 * spend much of their bytes here: one compare exits when there is no
 * whitespace, runs are skipped 16 bytes at a time. */
static inline const char *json_skip_ws(const char *p, const char *end)
{
	if (p < end && !json_is_ws((unsigned char)*p))
		return p;
#if defined(__SSE2__)
	const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
	const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i ws =
		    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
		                 _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
		unsigned other = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFFu;
		if (other)
			return p + json_ctz(other);
		p += 16;
	}
#endif
	while (p < end && json_is_ws((unsigned char)*p))
		p++;
	return p;
}

/* ---- eight bytes at a time (SWAR) ----------------------------------------------------
 * Digits counted and valued in a 64-bit word loaded from memory. The word's
 * byte 0 must be its low byte, so these exist on little-endian machines
 * only (JSON_SWAR); elsewhere the callers take their byte loops. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_SWAR 1

static inline uint64_t json_load8(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* How many of the eight bytes in v are digits before the first byte that
 * is not. Carries and borrows only run towards later bytes, so the count
 * is exact. */
static inline unsigned json_leading_digits(uint64_t v)
{
	uint64_t x = (v & 0xF0F0F0F0F0F0F0F0ull) |
	             (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4);
	x ^= 0x3333333333333333ull; /* zero bytes: digits */
	return x ? (unsigned)__builtin_ctzll(x) / 8 : 8;
}

/* The value of the first n (1..8) digits of v, which json_leading_digits
 * counted: shifted so that they end the word, as n digits after leading
 * zeros, then combined pairwise in a handful of multiplies. */
static inline uint64_t json_digits_value(uint64_t v, unsigned n)
{
	v = (v - 0x3030303030303030ull) << (8 * (8 - n));
	v = (v * 10) + (v >> 8);
	return (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
	        (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
	       32;
}

static inline uint64_t json_pow10(unsigned n) /* n <= 8 */
{
	static const uint64_t pow10[9] = {1,      10,      100,      1000,     10000,
	                                  100000, 1000000, 10000000, 100000000};
	return pow10[n];
}

/* json_parse_us_ns's common case without a loop, where 17 bytes can be
 * read from p: [-]digits[.digits] of at most 15 + 7 digits, integer and
 * fraction digits counted and valued eight at a time. JSON_SYNTAX for
 * anything else (the exact path then decides). */
static inline __attribute__((always_inline)) enum json_scan_status
json_us_ns_swar(const char *p, const char *end, int64_t *ns, const char **out)
{
	bool neg = *p == '-';
	p += neg;
	if (end - p < 17)
		return JSON_SYNTAX;
	uint64_t head = json_load8(p);
	unsigned nint = json_leading_digits(head);
	uint64_t ip;
	if (nint == 8) {
		uint64_t next = json_load8(p + 8);
		unsigned more = json_leading_digits(next);
		if (more == 8)
			return JSON_SYNTAX; /* 16 digits or more: the exact path */
		ip = json_digits_value(head, 8) * json_pow10(more) +
		     (more ? json_digits_value(next, more) : 0);
		nint += more;
	} else if (nint) {
		ip = json_digits_value(head, nint);
	} else {
		return JSON_SYNTAX;
	}
	p += nint;
	uint64_t frac = 0;
	int round = 0;
	if (*p == '.') {
		if (end - p < 10)
			return JSON_SYNTAX;
		uint64_t f = json_load8(p + 1);
		unsigned nfrac = json_leading_digits(f);
		if (nfrac == 0 || nfrac == 8)
			return JSON_SYNTAX;
		unsigned kept = nfrac < 3 ? nfrac : 3;
		frac = json_digits_value(f, kept) * json_pow10(3 - kept);
		round = nfrac > 3 && p[4] >= '5';
		p += 1 + nfrac;
	}
	if (p >= end || *p == 'e' || *p == 'E')
		return JSON_SYNTAX;
	int64_t v = (int64_t)(ip * 1000 + frac) + round;
	*ns = neg ? -v : v;
	*out = p;
	return JSON_OK;
}
#endif

/* Fast path for a plain non-negative integer of at most 18 digits followed
 * by a delimiter inside [p, end); returns NULL when the number is anything
 * else (the caller then takes the exact general path). */
static inline const char *json_fast_uint(const char *p, const char *end, uint64_t *value)
{
#ifdef JSON_SWAR
	if (end - p > 8) { /* up to seven digits: no loop */
		uint64_t w = json_load8(p);
		unsigned n = json_leading_digits(w);
		if (n > 0 && n < 8 && p[n] != '.' && p[n] != 'e' && p[n] != 'E') {
			*value = json_digits_value(w, n);
			return p + n;
		}
	}
#endif
	uint64_t v = 0;
	const char *s = p;
	while (p < end && (unsigned char)(*p - '0') < 10 && p - s < 18)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (p == s || p >= end || (unsigned char)(*p - '0') < 10 || *p == '.' || *p == 'e' ||
	    *p == 'E')
		return NULL;
	*value = v;
	return p;
}

/* p points just after an opening quote. Returns the position of the closing
 * quote (NULL if not found before end) and ORs JSON_STR_* into *flags. */
static inline const char *json_string_end(const char *p, const char *end, unsigned *flags)
{
#if defined(__SSE2__)
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i bslash = _mm_set1_epi8('\\');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote));
		unsigned b = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, bslash));
		unsigned hi = (unsigned)_mm_movemask_epi8(v);
		unsigned stop = q | b;
		if (!stop) {
			if (hi)
				*flags |= JSON_STR_NONASCII;
			p += 16;
			continue;
		}
		unsigned i = json_ctz(stop);
		if (hi & ((1u << i) - 1u))
			*flags |= JSON_STR_NONASCII;
		if (q & (1u << i))
			return p + i;
		*flags |= JSON_STR_ESCAPED;
		p += i + 2; /* the backslash and the escaped byte */
	}
#endif
	while (p < end) {
		unsigned char c = (unsigned char)*p;
		if (c == '"')
			return p;
		if (c == '\\') {
			*flags |= JSON_STR_ESCAPED;
			p += 2;
			continue;
		}
		if (c >= 0x80)
			*flags |= JSON_STR_NONASCII;
		p++;
	}
	return NULL;
}

/* After a key: ':' and whitespace. Returns the value's first byte, or NULL
 * if there is no ':' (then *bad is where one was expected). */
static inline const char *json_skip_colon(const char *p, const char *end, const char **bad)
{
	if (end - p >= 3 && p[0] == ':' && p[1] == ' ' && !json_is_ws((unsigned char)p[2]))
		return p + 2; /* the pretty-printer's ": " */
	p = json_skip_ws(p, end);
	if (p < end && *p != ':') {
		*bad = p;
		return NULL;
	}
	return json_skip_ws(p + 1, end);
}

/* Skips one JSON value of any kind starting at p (no leading whitespace).
 * Objects and arrays are skipped by bracket matching (strings honoured,
 * contents not validated; depth is unbounded and needs no stack). On
 * JSON_OK *out is the position after the value; on JSON_SYNTAX *out is the
 * offending byte. */
enum json_scan_status json_skip_value(const char *p, const char *end, const char **out);

/* Skips the object or array at p ('{' or '['), as json_skip_value: 64
 * bytes at a time with the best vector unit the CPU has (AVX2, checked at
 * run time; SSE2; else byte by byte). Every variant stops at the same
 * byte as json_skip_container_bytes, damaged input included. */
enum json_scan_status json_skip_container(const char *p, const char *end, const char **out);

/* The variants, for tests: the byte loop (the reference), the block
 * algorithm on masks built byte by byte, SSE2, and AVX2 (the byte loop
 * when the CPU has no AVX2: json_skip_has_avx2 says). */
enum json_scan_status json_skip_container_bytes(const char *p, const char *end, const char **out);
enum json_scan_status json_skip_container_blocks(const char *p, const char *end, const char **out);
#if defined(__SSE2__)
enum json_scan_status json_skip_container_sse2(const char *p, const char *end, const char **out);
#endif
enum json_scan_status json_skip_container_avx2(const char *p, const char *end, const char **out);
bool json_skip_has_avx2(void);

extern const unsigned char json_number_class[256];

/* Skips a value; numbers, the common case in args, without a call. */
static inline enum json_scan_status json_skip_value_fast(const char *p, const char *end,
                                                         const char **out)
{
	if (p < end && (json_number_class[(unsigned char)*p] & 1)) {
#ifdef JSON_SWAR
		if (end - p > 8) { /* digits ended by a byte of no number */
			unsigned n = json_leading_digits(json_load8(p));
			if (n < 8 && !json_number_class[(unsigned char)p[n]]) {
				*out = p + n;
				return JSON_OK;
			}
		}
#endif
		const char *q = p + 1;
		while (q < end && json_number_class[(unsigned char)*q])
			q++;
		if (q < end) {
			*out = q;
			return JSON_OK;
		}
	}
	return json_skip_value(p, end, out);
}

/* Parses a JSON number of microseconds (integer, decimal or exponent form)
 * exactly into nanoseconds, rounding half away from zero below 1 ns.
 * *saturated is set when the value does not fit int64 ns (clamped).
 * Returns JSON_OK with *out after the number. A number directly followed
 * by the end of input is INCOMPLETE (more digits may follow). */
enum json_scan_status json_parse_us_ns_exact(const char *p, const char *end, int64_t *ns,
                                             bool *saturated, const char **out);
static inline __attribute__((always_inline)) enum json_scan_status
json_parse_us_ns(const char *p, const char *end, int64_t *ns, bool *saturated, const char **out)
{
#ifdef JSON_SWAR
	/* the common case inline: a call and its frame cost as much again */
	if (p < end && json_us_ns_swar(p, end, ns, out) == JSON_OK)
		return JSON_OK;
#endif
	return json_parse_us_ns_exact(p, end, ns, saturated, out);
}

/* Parses a JSON integer (optionally negative; a fraction or exponent makes
 * it JSON_SYNTAX-free but *is_int false). *saturated when beyond int64. */
enum json_scan_status json_parse_int(const char *p, const char *end, int64_t *value, bool *is_int,
                                     bool *saturated, const char **out);

/* Parses a JSON number as a double (counter values; not for times). */
enum json_scan_status json_parse_double(const char *p, const char *end, double *value,
                                        const char **out);

/* Decodes string content s[0..len) (between the quotes) into dst, which
 * must hold len + 3 bytes (an escape never grows; invalid bytes become
 * U+FFFD, 3 bytes for 1, so it can grow: dst must hold 3 * len + 1).
 * Resolves escapes incl. \u surrogate pairs, replaces invalid UTF-8 and
 * lone surrogates by U+FFFD. Returns the decoded length; *repaired is set
 * when anything invalid was replaced. */
size_t json_decode_string(const char *s, size_t len, char *dst, bool *repaired);

/* True when s[0..len) is valid UTF-8. */
bool json_utf8_valid(const char *s, size_t len);

#endif
