#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/load/json_scan.h"

/* Parses text (a number followed by a delimiter) as µs -> ns. */
static int64_t us_ns(const char *text, bool *saturated)
{
	const char *end = text + strlen(text), *out;
	int64_t ns = 0;
	bool sat = false;
	cr_assert_eq(json_parse_us_ns(text, end, &ns, &sat, &out), JSON_OK, "parsing %s", text);
	cr_assert(*out == ',' || *out == '}', "stops at the delimiter for %s", text);
	if (saturated)
		*saturated = sat;
	return ns;
}

Test(json_time, kineto_three_decimals_exact)
{
	cr_assert_eq(us_ns("4458676522690.655,", NULL), 4458676522690655LL);
	cr_assert_eq(us_ns("156.777,", NULL), 156777);
	cr_assert_eq(us_ns("0.001,", NULL), 1);
}

Test(json_time, epoch_microseconds_with_fraction_exact)
{
	/* a double cannot hold these; the parser must not go through one */
	cr_assert_eq(us_ns("1718111111111111.250000,", NULL), 1718111111111111250LL);
	cr_assert_eq(us_ns("1694128201426556,", NULL), 1694128201426556000LL);
	cr_assert_eq(us_ns("1703105438709308.999,", NULL), 1703105438709308999LL);
}

Test(json_time, rounding_below_a_nanosecond)
{
	cr_assert_eq(us_ns("1.0004,", NULL), 1000);
	cr_assert_eq(us_ns("1.0005,", NULL), 1001);
	cr_assert_eq(us_ns("1.00049999,", NULL), 1000);
	cr_assert_eq(us_ns("-1.0005,", NULL), -1001, "half away from zero");
	cr_assert_eq(us_ns("0.0,", NULL), 0);
	cr_assert_eq(us_ns("-0.5,", NULL), -500);
}

Test(json_time, exponent_forms)
{
	cr_assert_eq(us_ns("1.5e3,", NULL), 1500000);
	cr_assert_eq(us_ns("1e16,", NULL), 10000000000000000000ULL > INT64_MAX ? INT64_MAX : 0,
	             "1e16 us = 1e19 ns does not fit");
	cr_assert_eq(us_ns("1.7e15}", NULL), 1700000000000000000LL);
	cr_assert_eq(us_ns("2E-3,", NULL), 2);
	cr_assert_eq(us_ns("12345678901234567890123e-10,", NULL), 1234567890123457LL);
}

Test(json_time, saturation_beyond_int64)
{
	bool sat = false;
	cr_assert_eq(us_ns("99999999999999999999,", &sat), INT64_MAX);
	cr_assert(sat);
	sat = false;
	cr_assert_eq(us_ns("-99999999999999999999.5,", &sat), -INT64_MAX);
	cr_assert(sat);
	sat = false;
	cr_assert_eq(us_ns("9223372036854775,", &sat), 9223372036854775000LL);
	cr_assert_not(sat);
}

Test(json_time, incomplete_and_bad_numbers)
{
	const char *out;
	int64_t ns;
	bool sat;
	const char *t = "123.45";
	cr_assert_eq(json_parse_us_ns(t, t + strlen(t), &ns, &sat, &out), JSON_INCOMPLETE,
	             "digits may continue past the end of the window");
	t = "abc,";
	cr_assert_eq(json_parse_us_ns(t, t + 4, &ns, &sat, &out), JSON_SYNTAX);
	t = "-,";
	cr_assert_eq(json_parse_us_ns(t, t + 2, &ns, &sat, &out), JSON_SYNTAX);
	t = "1.,";
	cr_assert_neq(json_parse_us_ns(t, t + 3, &ns, &sat, &out), JSON_OK);
}

Test(json_int, integers_and_non_integers)
{
	const char *t = "15514734831341844875,", *out;
	int64_t v;
	bool is_int, sat = false;
	cr_assert_eq(json_parse_int(t, t + strlen(t), &v, &is_int, &sat, &out), JSON_OK);
	cr_assert(sat, "beyond int64");
	t = "57541,";
	sat = false;
	cr_assert_eq(json_parse_int(t, t + strlen(t), &v, &is_int, &sat, &out), JSON_OK);
	cr_assert(is_int && !sat && v == 57541);
	t = "7.5,";
	cr_assert_eq(json_parse_int(t, t + strlen(t), &v, &is_int, &sat, &out), JSON_OK);
	cr_assert_not(is_int);
	t = "7.0,";
	cr_assert_eq(json_parse_int(t, t + strlen(t), &v, &is_int, &sat, &out), JSON_OK);
	cr_assert(is_int && v == 7);
}

static const char *skip(const char *text, enum json_scan_status want)
{
	const char *out = NULL;
	cr_assert_eq(json_skip_value(text, text + strlen(text), &out), want, "skipping %s", text);
	return out;
}

Test(json_skip, values_of_every_kind)
{
	cr_assert_str_eq(skip("{\"a\": [1, {\"b\": \"}]\\\"\"}], \"c\": null}X", JSON_OK), "X");
	cr_assert_str_eq(skip("[[[]]],", JSON_OK), ",");
	cr_assert_str_eq(skip("\"x\\\\\"|", JSON_OK), "|");
	cr_assert_str_eq(skip("true,", JSON_OK), ",");
	cr_assert_str_eq(skip("null}", JSON_OK), "}");
	cr_assert_str_eq(skip("-12.5e3]", JSON_OK), "]");
	skip("{\"a\": [1, 2", JSON_INCOMPLETE);
	skip("\"unterminated", JSON_INCOMPLETE);
	skip("tru", JSON_INCOMPLETE);
	cr_assert_str_eq(skip("trux", JSON_SYNTAX), "trux");
	cr_assert_str_eq(skip("@", JSON_SYNTAX), "@");
}

Test(json_skip, deep_nesting_needs_no_stack)
{
	size_t depth = 100000;
	char *s = malloc(2 * depth + 2);
	memset(s, '[', depth);
	memset(s + depth, ']', depth);
	s[2 * depth] = ',';
	s[2 * depth + 1] = '\0';
	cr_assert_str_eq(skip(s, JSON_OK), ",");
	s[2 * depth - 1] = '\0';
	skip(s, JSON_INCOMPLETE);
	free(s);
}

Test(json_string, end_and_flags_across_simd_blocks)
{
	const char *t = "0123456789abcdefghij\\\"klmnopqrstuvwx\xc3\xa9yz\" tail";
	unsigned flags = 0;
	const char *q = json_string_end(t, t + strlen(t), &flags);
	cr_assert_not_null(q);
	cr_assert_str_eq(q, "\" tail");
	cr_assert(flags & JSON_STR_ESCAPED);
	cr_assert(flags & JSON_STR_NONASCII);
	flags = 0;
	t = "plain ascii name that is longer than sixteen bytes\"";
	q = json_string_end(t, t + strlen(t), &flags);
	cr_assert_eq(flags, 0);
	cr_assert_eq(*q, '"');
	t = "ends with a backslash \\";
	cr_assert_null(json_string_end(t, t + strlen(t), &flags));
}

static void decode(const char *in, const char *want, bool want_repaired)
{
	char out[256];
	bool repaired = false;
	size_t n = json_decode_string(in, strlen(in), out, &repaired);
	cr_assert_eq(n, strlen(want), "length for %s", in);
	cr_assert_str_eq(out, want);
	cr_assert_eq(repaired, want_repaired, "repaired flag for %s", in);
}

Test(json_string, escapes_and_repairs)
{
	decode("a\\\"b\\\\c\\/d\\n\\t", "a\"b\\c/d\n\t", false);
	decode("\\u00e9\\u20ac", "\xc3\xa9\xe2\x82\xac", false);
	decode("\\ud83d\\ude00", "\xf0\x9f\x98\x80", false);
	decode("\\ud83d alone", "\xef\xbf\xbd alone", true);
	decode("bad \xff byte", "bad \xef\xbf\xbd byte", true);
	decode("cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd", true);
	decode("\\q", "\xef\xbf\xbd", true);
	decode("overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd", true);
	cr_assert(json_utf8_valid("\xc3\xa9", 2));
	cr_assert_not(json_utf8_valid("\xed\xa0\x80", 3), "surrogates are not UTF-8");
}

Test(json_skip, fast_number_path_agrees_with_the_general_one)
{
	const char *cases[] = {"123,", "-1.5e3}", "0]", "7 ", "\"s\",", "[1],", "null,"};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = cases[i], *end = t + strlen(t), *a = NULL, *b = NULL;
		cr_assert_eq(json_skip_value_fast(t, end, &a), json_skip_value(t, end, &b), "%s",
		             t);
		cr_assert_eq(a, b, "%s", t);
	}
	const char *cut = "12345", *out;
	cr_assert_eq(json_skip_value_fast(cut, cut + 5, &out), JSON_INCOMPLETE,
	             "digits may continue past the window");
	const char *minus = "-";
	cr_assert_eq(json_skip_value_fast(minus, minus + 1, &out), JSON_INCOMPLETE);
}

/* Fast paths look a few bytes ahead (eight digits at a time) only when
 * there is room; the same text ending right after its delimiter takes the
 * byte paths. Both must agree on every number shape, length and delimiter. */
static size_t random_number(unsigned *seed, char *buf)
{
	static const char digits[] = "0123456789";
	static const char *const tails[] = {",", "}", "]", " ", "\"", "x", ".", "e5,", ".5,"};
	size_t n = 0;
	if (rand_r(seed) % 5 == 0)
		buf[n++] = '-';
	size_t nint = (size_t)(rand_r(seed) % 21);
	for (size_t i = 0; i < nint; i++)
		buf[n++] = digits[rand_r(seed) % 10];
	if (rand_r(seed) % 2) {
		buf[n++] = '.';
		size_t nfrac = (size_t)(rand_r(seed) % 11);
		for (size_t i = 0; i < nfrac; i++)
			buf[n++] = digits[rand_r(seed) % 10];
	}
	if (rand_r(seed) % 8 == 0)
		n += (size_t)sprintf(buf + n, "e%d", rand_r(seed) % 7 - 3);
	const char *tail = tails[rand_r(seed) % (sizeof tails / sizeof tails[0])];
	memcpy(buf + n, tail, strlen(tail));
	return n + strlen(tail);
}

Test(json_number, same_result_with_and_without_room_after)
{
	unsigned seed = 12345;
	char roomy[128], tight[64];
	for (int iter = 0; iter < 200000; iter++) {
		size_t n = random_number(&seed, tight);
		memset(roomy, ' ', sizeof roomy);
		memcpy(roomy, tight, n);
		const char *te = tight + n, *re = roomy + sizeof roomy;
		int64_t a = 0, b = 0;
		bool sa = false, sb = false, ia = false, ib = false;
		const char *qa = NULL, *qb = NULL;
		int st_a = json_parse_us_ns(tight, te, &a, &sa, &qa);
		int st_b = json_parse_us_ns(roomy, re, &b, &sb, &qb);
		if (st_a == JSON_OK) { /* tight ends at the delimiter: OK only before it */
			cr_assert_eq(st_b, JSON_OK, "%.*s", (int)n, tight);
			cr_assert_eq(a, b, "%.*s: %lld vs %lld", (int)n, tight, (long long)a,
			             (long long)b);
			cr_assert_eq(sa, sb, "%.*s", (int)n, tight);
			cr_assert_eq(qa - tight, qb - roomy, "%.*s", (int)n, tight);
		} else if (st_a == JSON_SYNTAX) {
			cr_assert_eq(st_b, JSON_SYNTAX, "%.*s", (int)n, tight);
		}
		st_a = json_parse_int(tight, te, &a, &ia, &sa, &qa);
		st_b = json_parse_int(roomy, re, &b, &ib, &sb, &qb);
		if (st_a == JSON_OK) {
			cr_assert_eq(st_b, JSON_OK, "%.*s", (int)n, tight);
			cr_assert_eq(a, b, "%.*s", (int)n, tight);
			cr_assert_eq(ia, ib, "%.*s", (int)n, tight);
			cr_assert_eq(sa, sb, "%.*s", (int)n, tight);
			cr_assert_eq(qa - tight, qb - roomy, "%.*s", (int)n, tight);
		}
		qa = qb = NULL;
		st_a = json_skip_value(roomy, re, &qa);
		st_b = json_skip_value_fast(roomy, re, &qb);
		cr_assert_eq(st_a, st_b, "[%.*s]", (int)n, tight);
		if (st_a != JSON_INCOMPLETE) /* *out is unset then */
			cr_assert_eq(qa, qb, "[%.*s]", (int)n, tight);
	}
}

/* ---- the vectorised container skip against the byte loop ---------------------------- */

typedef enum json_scan_status (*skip_fn)(const char *, const char *, const char **);

/* Every variant stops where the byte loop does on text[0..len), with the
 * same status, and reports the same position. */
static void skip_agrees(const char *text, size_t len, const char *what)
{
	const skip_fn variants[] = {
		json_skip_container,
		json_skip_container_blocks,
		json_skip_container_avx2,
#if defined(__SSE2__)
		json_skip_container_sse2,
#endif
	};
	const char *want = NULL, *got = NULL;
	enum json_scan_status ref = json_skip_container_bytes(text, text + len, &want);
	for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
		got = NULL;
		enum json_scan_status st = variants[v](text, text + len, &got);
		cr_assert_eq(st, ref, "%s: variant %zu status %d, byte loop %d", what, v, st, ref);
		if (ref == JSON_OK)
			cr_assert_eq(got - text, want - text,
			             "%s: variant %zu stops at %td, not %td", what, v, got - text,
			             want - text);
	}
}

/* Deterministic pseudo-random bytes, the same on every run. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random JSON-ish value: nested containers, strings with escapes and
 * bytes >= 0x80 (valid UTF-8 or not), numbers and whitespace runs. */
static void random_value(char *buf, size_t cap, size_t *n, uint64_t *s, int depth)
{
	static const char *const atoms[] = {"1", "-2.5e3", "true", "null", " ", "\n    ", ","};
	static const char *const string_parts[] = {"a",        "\\\"", "\\\\",   "\\n", "\\u00e9",
	                                           "\xc3\xa9", "\xff", "\x80",   "[",   "}",
	                                           "\\",       " ",    "{\"k\":"};
	if (*n + 64 >= cap)
		return;
	unsigned kind = (unsigned)(next_random(s) % 4);
	if (kind == 0 && depth < 8) {
		bool obj = next_random(s) & 1;
		buf[(*n)++] = obj ? '{' : '[';
		unsigned members = (unsigned)(next_random(s) % 6);
		for (unsigned i = 0; i < members && *n + 64 < cap; i++) {
			if (i)
				buf[(*n)++] = ',';
			if (obj) {
				memcpy(buf + *n, "\"key\": ", 7);
				*n += 7;
			}
			random_value(buf, cap, n, s, depth + 1);
		}
		buf[(*n)++] = obj ? '}' : ']';
	} else if (kind == 1) {
		buf[(*n)++] = '"';
		unsigned parts = (unsigned)(next_random(s) % 40);
		for (unsigned i = 0; i < parts && *n + 64 < cap; i++) {
			const char *part = string_parts[next_random(s) % 13];
			size_t len = strlen(part);
			memcpy(buf + *n, part, len);
			*n += len;
		}
		buf[(*n)++] = '"';
	} else {
		const char *atom = atoms[next_random(s) % 7];
		size_t len = strlen(atom);
		memcpy(buf + *n, atom, len);
		*n += len;
	}
}

Test(json_skip, random_json_agrees_with_the_byte_loop)
{
	enum { CAP = 1 << 14 };
	char *buf = malloc(CAP);
	cr_assert_not_null(buf);
	uint64_t s = 0x9E3779B97F4A7C15ull;
	for (int round = 0; round < 3000; round++) {
		size_t n = 0;
		buf[n++] = round & 1 ? '{' : '[';
		if (round & 1) {
			memcpy(buf + n, "\"a\":", 4);
			n += 4;
		}
		random_value(buf, CAP - 8, &n, &s, 0);
		buf[n++] = round & 1 ? '}' : ']';
		memcpy(buf + n, ", 7]", 4);
		char what[64];
		snprintf(what, sizeof what, "round %d", round);
		skip_agrees(buf, n + 4, what);
		/* every cut of it: incomplete exactly when the byte loop says so */
		for (size_t cut = 1; cut < n && cut < 300; cut += 1 + cut / 16)
			skip_agrees(buf, cut, what);
	}
	free(buf);
}

/* Quotes, backslash runs and brackets at every offset around the 16-, 32-
 * and 64-byte block edges. */
Test(json_skip, quotes_and_escapes_at_block_edges)
{
	static const char *const inner[] = {"\"\\\"]\"",    "\"\\\\\"",         "\"\\\\\\\"}\"",
	                                    "\"]\"",        "\"\\\\\\\\\\\"\"", "[\"}\"]",
	                                    "{\"\\\\\":[]}"};
	char buf[512];
	for (size_t k = 0; k < sizeof inner / sizeof inner[0]; k++) {
		for (size_t pad = 0; pad < 200; pad++) {
			size_t n = 0;
			buf[n++] = '[';
			memset(buf + n, ' ', pad);
			n += pad;
			size_t len = strlen(inner[k]);
			memcpy(buf + n, inner[k], len);
			n += len;
			memcpy(buf + n, ",1]   ", 6);
			char what[64];
			snprintf(what, sizeof what, "inner %zu at %zu", k, pad + 1);
			skip_agrees(buf, n + 6, what);
			const char *out;
			cr_assert_eq(json_skip_container(buf, buf + n + 6, &out), JSON_OK, "%s",
			             what);
			cr_assert_eq(out - buf, (ptrdiff_t)n + 3, "%s", what);
		}
	}
}

/* Damaged input: backslashes outside strings, unbalanced quotes, invalid
 * UTF-8; whatever the byte loop makes of it, the vector code does too. */
Test(json_skip, damaged_input_agrees_with_the_byte_loop)
{
	char buf[256];
	uint64_t s = 12345;
	static const char alphabet[] = "\"\\{}[]  a,:\xff\x80\xc3";
	for (int round = 0; round < 20000; round++) {
		size_t n = 1 + (size_t)(next_random(&s) % 250);
		buf[0] = round & 1 ? '{' : '[';
		for (size_t i = 1; i < n; i++)
			buf[i] = alphabet[next_random(&s) % (sizeof alphabet - 1)];
		char what[64];
		snprintf(what, sizeof what, "damaged round %d", round);
		skip_agrees(buf, n, what);
	}
}

Test(json_skip, long_args_object_and_the_value_after_it)
{
	/* an args object of many members, as Kineto writes them */
	char buf[8192];
	size_t n = 0;
	n += (size_t)snprintf(buf + n, sizeof buf - n, "{");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(
		    buf + n, sizeof buf - n,
		    "%s\"Input Dims %d\": [[8, 4096], [], [%d]], \"s\": \"x\\\"}\"", i ? ", " : "",
		    i, i);
	n += (size_t)snprintf(buf + n, sizeof buf - n, "}, \"next\": 1");
	const char *out;
	cr_assert_eq(json_skip_value(buf, buf + n, &out), JSON_OK);
	cr_assert_str_eq(out, ", \"next\": 1");
	skip_agrees(buf, n, "long args");
}

/* The eight-digits-at-a-time time parser against the exact path: the
 * same digits written as a mantissa and a negative exponent (which no
 * fast path takes), at every distance from the end of the input. */
Test(json_time, swar_digits_agree_with_the_exact_path)
{
	uint64_t s = 777;
	char text[64], mantissa[64];
	for (int round = 0; round < 20000; round++) {
		unsigned nint = 1 + (unsigned)(next_random(&s) % 17);
		unsigned nfrac = (unsigned)(next_random(&s) % 11);
		bool neg = next_random(&s) % 4 == 0;
		size_t n = 0, m = 0;
		if (neg)
			text[n++] = mantissa[m++] = '-';
		for (unsigned i = 0; i < nint; i++)
			text[n++] = mantissa[m++] = (char)('0' + next_random(&s) % 10);
		if (nfrac)
			text[n++] = '.';
		for (unsigned i = 0; i < nfrac; i++)
			text[n++] = mantissa[m++] = (char)('0' + next_random(&s) % 10);
		m += (size_t)snprintf(mantissa + m, sizeof mantissa - m, "e-%u,", nfrac);
		size_t pad = (size_t)(next_random(&s) % 24);
		text[n++] = next_random(&s) & 1 ? ',' : '}';
		memset(text + n, ' ', pad);
		const char *out, *mout;
		int64_t ns = 0, want = 0;
		bool sat = false, msat = false;
		int st = json_parse_us_ns(text, text + n + pad, &ns, &sat, &out);
		int mst = json_parse_us_ns(mantissa, mantissa + m, &want, &msat, &mout);
		cr_assert_eq(st, JSON_OK, "%.*s", (int)n, text);
		cr_assert_eq(mst, JSON_OK, "%.*s", (int)m, mantissa);
		cr_assert_eq(ns, want, "%.*s: %lld ns, exact %lld", (int)n, text, (long long)ns,
		             (long long)want);
		cr_assert_eq(sat, msat, "%.*s", (int)n, text);
		cr_assert_eq(out, text + n - 1, "%.*s stops at its delimiter", (int)n, text);
	}
}
