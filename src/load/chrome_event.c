#include "config.h"

#include "chrome_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "trex/core/strtab.h"
#include "trex/load/json_args.h"
#include "trex/load/kinds.h"

/* A string or number token as written in the file. */
struct tok {
	const char *p; /* content (string: between the quotes) */
	size_t len;
	unsigned flags; /* JSON_STR_* */
	bool present;
	bool is_string;
};

/* What was wrong with a ts or dur value. */
enum cj_time_problem { CJ_TIME_OK = 0, CJ_TIME_TYPE, CJ_TIME_RANGE };

struct cj_event {
	const char *start; /* the '{' */
	char ph;
	bool has_ph;
	struct tok name, cat, pid, tid, id, scope, bp;
	const char *ph_at; /* the ph value, for messages */
	int64_t ts, dur;
	bool has_ts, has_dur;
	const char *ts_bad, *dur_bad; /* a value that is no usable time (time_problem) */
	const char *bad_value_at;     /* args (or attr) that is no object */
	const char *utf8_at;          /* a string repaired as UTF-8 */
	uint32_t unknown_keys;        /* counted with the event once it is complete */
	const char *unknown_key;      /* the first one (its text) */
	const char *args;             /* the args (or attr) object, braces included */
	size_t args_len;
	/* from args */
	uint32_t launch_link, op_link; /* args.correlation, args."External id" */
	uint16_t link_flags;
	struct tok grid, block, smem, a_name, a_labels;
	int64_t a_sort_index;
	bool has_sort_index;
};

void cj_problem(struct cj_parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->st.has_problem)
		return;
	ps->st.has_problem = true;
	ps->st.problem_offset = cj_offset(ps, at);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->st.problem, sizeof ps->st.problem, fmt, ap);
	va_end(ap);
}

struct trex_builder *cj_builder(struct cj_parser *ps)
{
	if (!ps->b && ps->job && !ps->oom) {
		ps->b = trex_builder_new(ps->job->file_id);
		ps->oom = !ps->b;
	}
	return ps->b;
}

/* Keeps p as an example (at: where, NULL unknown; always: spans, which the
 * builder weighs for the largest even past the examples it keeps) and
 * makes damage the part's first problem. */
static void cj_examplev(struct cj_parser *ps, struct trex_problem *p, const char *at, bool always,
                        const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
static void cj_examplev(struct cj_parser *ps, struct trex_problem *p, const char *at, bool always,
                        const char *fmt, va_list ap)
{
	enum trex_integrity_counter k = (enum trex_integrity_counter)p->counter;
	bool damage = trex_integrity_is_damage(k);
	bool keep = always || ps->examples[k] < TREX_PROBLEM_EXAMPLES;
	struct trex_builder *b;

	if (!keep && (!damage || ps->st.has_problem))
		return;
	p->offset = at ? (int64_t)cj_offset(ps, at) : -1;
	p->disk_offset = -1;
	p->slice = TREX_NONE;
	vsnprintf(p->what, sizeof p->what, fmt, ap);
	if (damage && at)
		cj_problem(ps, at, "%s", p->what);
	if (!keep || !(b = cj_builder(ps)))
		return;
	if (ps->examples[k] < TREX_PROBLEM_EXAMPLES)
		ps->examples[k]++;
	if (trex_builder_problem(b, p) != 0)
		ps->oom = true;
}

static void cj_example_fmt(struct cj_parser *ps, struct trex_problem *p, const char *at,
                           bool always, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void cj_example_fmt(struct cj_parser *ps, struct trex_problem *p, const char *at,
                           bool always, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cj_examplev(ps, p, at, always, fmt, ap);
	va_end(ap);
}

static void problem_init(struct trex_problem *p, enum trex_integrity_counter k,
                         const struct cj_about *about)
{
	memset(p, 0, sizeof *p);
	p->counter = (uint8_t)k;
	p->track = about ? about->track : TREX_NONE;
	p->name = about ? about->name : TREX_NONE;
	p->ts = about ? about->ts : 0;
	p->has_ts = about && about->has_ts;
}

/* An example of counter k at `at`, without counting it. */
static void cj_example(struct cj_parser *ps, enum trex_integrity_counter k, const char *at,
                       const struct cj_about *about, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void cj_example(struct cj_parser *ps, enum trex_integrity_counter k, const char *at,
                       const struct cj_about *about, const char *fmt, ...)
{
	struct trex_problem p;
	va_list ap;

	problem_init(&p, k, about);
	va_start(ap, fmt);
	cj_examplev(ps, &p, at, false, fmt, ap);
	va_end(ap);
}

void cj_note(struct cj_parser *ps, enum trex_integrity_counter k, const char *at,
             const struct cj_about *about, const char *fmt, ...)
{
	struct trex_problem p;
	va_list ap;

	trex_integrity_count(&ps->st.integrity, k, 1);
	problem_init(&p, k, about);
	va_start(ap, fmt);
	cj_examplev(ps, &p, at, false, fmt, ap);
	va_end(ap);
}

/* Events estimated lost in [start, next): its "ph" keys (every event has
 * one), or one for an event cut before its "ph". */
static uint64_t events_in(const char *start, const char *next)
{
	uint64_t n = 0;
	const char *p = start, *q;
	while ((q = memmem(p, (size_t)(next - p), "\"ph\"", 4))) {
		const char *colon = json_skip_ws(q + 4, next);
		n += colon < next && *colon == ':';
		p = q + 4;
	}
	p = json_skip_ws(start, next);
	return n == 0 && p < next && *p == '{' ? 1 : n;
}

void cj_note_span(struct cj_parser *ps, enum trex_integrity_counter k, const char *start,
                  const char *bad, const char *next, const char *why)
{
	struct trex_problem p;
	uint64_t len = (uint64_t)(next - start);

	problem_init(&p, k, NULL);
	p.length = len;
	p.events_lost = events_in(start, next);
	if (k == TREX_INTEG_syntax_errors) {
		ps->st.integrity.syntax_errors++;
		ps->st.integrity.bytes_skipped += len;
	} else {
		ps->st.integrity.bytes_ignored += len;
	}
	ps->st.integrity.events_lost += p.events_lost;
	/* the part's first problem is where the parser stopped; the example
	 * is the span, from its first byte */
	cj_problem(ps, bad, "%s", why);
	if (start < bad)
		cj_example_fmt(ps, &p, start, true, "%s (at byte %llu)", why,
		               (unsigned long long)cj_offset(ps, bad));
	else
		cj_example_fmt(ps, &p, start, true, "%s", why);
}

static int syntax(struct cj_parser *ps, const char *at, const char **out, const char *why)
{
	ps->why = why;
	*out = at;
	return JSON_SYNTAX;
}

static bool tok_is(const struct tok *t, const char *s, size_t n)
{
	return t->present && t->len == n && memcmp(t->p, s, n) == 0;
}

/* ---- values ------------------------------------------------------------------------- */

/* A string or any other value kept as its text (pid, tid, id, name ...). */
static inline __attribute__((always_inline)) int
read_token(struct cj_parser *ps, const char *p, const char *end, struct tok *t, const char **out)
{
	t->present = true;
	t->flags = 0;
	if (p < end && *p == '"') {
		const char *q = json_string_end(p + 1, end, &t->flags);
		if (!q)
			return JSON_INCOMPLETE;
		t->p = p + 1;
		t->len = (size_t)(q - p - 1);
		t->is_string = true;
		*out = q + 1;
		return JSON_OK;
	}
	t->is_string = false;
	const char *q;
	int st = json_skip_value_fast(p, end, &q); /* pid/tid: numbers, inline */
	if (st == JSON_SYNTAX)
		return syntax(ps, q, out, "a value");
	if (st != JSON_OK)
		return st;
	t->p = p;
	t->len = (size_t)(q - p);
	*out = q;
	return JSON_OK;
}

/* The JSON type of the value starting with c, for messages. */
static const char *json_type(char c)
{
	switch (c) {
	case '"':
		return "a string";
	case '{':
		return "an object";
	case '[':
		return "an array";
	case 'n':
		return "null";
	case 't':
	case 'f':
		return "a boolean";
	default:
		return "a number";
	}
}

/* ts/dur: a number of microseconds, or the same quoted. Anything else, or
 * a number beyond int64 ns, is skipped and *bad set to it (time_problem
 * tells which; the event decides what it means once it is complete). */
static inline __attribute__((always_inline)) int read_time(struct cj_parser *ps, const char *p,
                                                           const char *end, int64_t *ns, bool *has,
                                                           const char **bad, const char **out)
{
	bool quoted = p < end && *p == '"', saturated = false;
	const char *q;
	int st = json_parse_us_ns(p + quoted, end, ns, &saturated, &q);
	if (st == JSON_OK && quoted && q < end && *q != '"')
		st = JSON_SYNTAX; /* "12abc": text, not a number */
	if (st == JSON_SYNTAX) {
		st = json_skip_value(p, end, &q);
		if (st == JSON_SYNTAX)
			return syntax(ps, q, out, "a number");
		*bad = p;
		*out = q;
		return st;
	}
	if (st != JSON_OK)
		return st;
	if (quoted) {
		if (q >= end)
			return JSON_INCOMPLETE;
		q++;
	}
	if (saturated)
		*bad = p;
	*has = !saturated;
	*out = q;
	return JSON_OK;
}

static inline __attribute__((always_inline)) int read_u32_link(struct cj_parser *ps, const char *p,
                                                               const char *end, uint32_t *v,
                                                               uint16_t *flags, uint16_t flag,
                                                               const char **out)
{
	if (p < end && *p != '-' && (*p < '0' || *p > '9'))
		return json_skip_value(p, end, out) == JSON_SYNTAX
		           ? syntax(ps, *out, out, "a value")
		           : JSON_OK;
	uint64_t small;
	const char *q = json_fast_uint(p, end, &small); /* the common case, inline */
	if (q) {
		if (small > 0 && small <= UINT32_MAX) {
			*v = (uint32_t)small;
			*flags |= flag;
		}
		*out = q;
		return JSON_OK;
	}
	int64_t value;
	bool is_int = false, sat = false;
	int st = json_parse_int(p, end, &value, &is_int, &sat, out);
	if (st == JSON_SYNTAX)
		return syntax(ps, *out, out, "a number");
	if (st == JSON_OK && is_int && !sat && value > 0 && value <= (int64_t)UINT32_MAX) {
		*v = (uint32_t)value;
		*flags |= flag;
	}
	return st;
}

static int read_int64(struct cj_parser *ps, const char *p, const char *end, int64_t *v, bool *has,
                      const char **out)
{
	int64_t value;
	bool is_int = false, sat = false;
	int st = json_parse_int(p, end, &value, &is_int, &sat, out);
	if (st == JSON_SYNTAX) {
		st = json_skip_value(p, end, out);
		return st == JSON_SYNTAX ? syntax(ps, *out, out, "a number") : st;
	}
	if (st == JSON_OK) {
		*v = value;
		*has = true;
	}
	return st;
}

/* ---- objects ------------------------------------------------------------------------ */

typedef int (*cj_member_fn)(struct cj_parser *ps, void *ctx, const char *key, size_t klen,
                            const char *p, const char *end, const char **out);

/* The next member, found by scanning from mark (the object's '{' when
 * first, else the end of the last value): *key and *klen (0 when the key
 * has escapes: no known key has any), *kf its JSON_STR_* flags, and
 * *value. At the object's end *key is NULL and *out is after its '}'.
 * Returns JSON_OK, INCOMPLETE or SYNTAX (*out: the bad byte). */
static inline __attribute__((always_inline)) int
scan_member(struct cj_parser *ps, const char *mark, const char *end, bool first, const char **key,
            size_t *klen, unsigned *kf, const char **value, const char **out)
{
	const char *p = json_skip_ws(first ? mark + 1 : mark, end), *bad = NULL;
	*key = NULL;
	if (!first) {
		if (p >= end)
			return JSON_INCOMPLETE;
		if (*p == ',')
			p = json_skip_ws(p + 1, end);
		else if (*p != '}')
			return syntax(ps, p, out, "',' or '}' after a value");
	}
	if (p >= end)
		return JSON_INCOMPLETE;
	if (*p == '}') {
		*out = p + 1;
		return JSON_OK;
	}
	if (*p != '"')
		return syntax(ps, p, out, "'\"' starting a key or '}'");
	const char *kend = json_string_end(p + 1, end, kf);
	if (!kend)
		return JSON_INCOMPLETE;
	*value = json_skip_colon(kend + 1, end, &bad);
	if (bad)
		return syntax(ps, bad, out, "':' after a key");
	if (*value >= end)
		return JSON_INCOMPLETE;
	*key = p + 1;
	*klen = *kf & JSON_STR_ESCAPED ? 0 : (size_t)(kend - *key);
	return JSON_OK;
}

/* Iterates the members of the object at p ('{'), calling fn for each value.
 * Trailing commas are tolerated. lit: the kind of object whose member
 * literals predict one another (json_lits.h: where one is found, the scan
 * is skipped), or JSON_LIT_NONE to scan every member. */
static inline __attribute__((always_inline)) int walk_object(struct cj_parser *ps, void *ctx,
                                                             const char *p, const char *end,
                                                             cj_member_fn fn, unsigned lit,
                                                             const char **out)
{
	const char *mark = p; /* the '{', then the end of each value */
	const bool learn = lit != JSON_LIT_NONE;
	for (bool first = true;; first = false) {
		const struct json_lit *hit = json_lits_predict(&ps->lits, lit, mark, end, first);
		const char *key, *value;
		size_t klen;
		if (hit && hit->end) {
			*out = mark + hit->len;
			return JSON_OK;
		}
		if (hit) {
			lit = hit->self;
			key = mark + hit->key_off;
			klen = hit->key_len;
			value = mark + hit->len;
		} else {
			unsigned kf = 0;
			int st = scan_member(ps, mark, end, first, &key, &klen, &kf, &value, out);
			if (st != JSON_OK)
				return st;
			if (learn && !key)
				json_lits_learn(&ps->lits, lit, mark, (size_t)(*out - mark), 0, 0,
				                true);
			if (!key)
				return JSON_OK;
			if (learn)
				lit = kf ? JSON_LIT_NONE
				         : json_lits_learn(&ps->lits, lit, mark,
				                           (size_t)(value - mark),
				                           (size_t)(key - mark), klen, false);
		}
		mark = value; /* where an error that names no place is */
		int st = fn(ps, ctx, key, klen, value, end, &mark);
		if (st != JSON_OK) {
			*out = mark;
			return st;
		}
	}
}

#define KEY_IS(lit) (klen == sizeof(lit) - 1 && memcmp(key, lit, sizeof(lit) - 1) == 0)

static inline __attribute__((always_inline)) int skip_member(struct cj_parser *ps, const char *p,
                                                             const char *end, const char **out)
{
	int st = json_skip_value_fast(p, end, out);
	return st == JSON_SYNTAX ? syntax(ps, *out, out, "a value") : st;
}

/* args: only the keys that link or group events are read now; the rest
 * stays in the file and is decoded on request. */
static int args_member(struct cj_parser *ps, void *ctx, const char *key, size_t klen, const char *p,
                       const char *end, const char **out)
{
	struct cj_event *ev = ctx;
	switch (klen) {
	case 4:
		if (KEY_IS("grid"))
			return read_token(ps, p, end, &ev->grid, out);
		if (KEY_IS("name"))
			return read_token(ps, p, end, &ev->a_name, out);
		break;
	case 5:
		if (KEY_IS("block"))
			return read_token(ps, p, end, &ev->block, out);
		break;
	case 6:
		if (KEY_IS("labels"))
			return read_token(ps, p, end, &ev->a_labels, out);
		break;
	case 10:
		if (KEY_IS("sort_index"))
			return read_int64(ps, p, end, &ev->a_sort_index, &ev->has_sort_index, out);
		break;
	case 11:
		if (KEY_IS("correlation"))
			return read_u32_link(ps, p, end, &ev->launch_link, &ev->link_flags,
			                     TREX_SLICE_HAS_LAUNCH_LINK, out);
		if (KEY_IS("External id") || KEY_IS("external id"))
			return read_u32_link(ps, p, end, &ev->op_link, &ev->link_flags,
			                     TREX_SLICE_HAS_OP_LINK, out);
		break;
	case 13:
		if (KEY_IS("shared memory"))
			return read_token(ps, p, end, &ev->smem, out);
		break;
	default:
		break;
	}
	return skip_member(ps, p, end, out);
}

static int read_args(struct cj_parser *ps, struct cj_event *ev, const char *p, const char *end,
                     const char **out)
{
	if (p < end && *p != '{') {
		ev->bad_value_at = p;
		return skip_member(ps, p, end, out);
	}
	int st = walk_object(ps, ev, p, end, args_member, ps->lit_args, out);
	if (st == JSON_OK) {
		ev->args = p;
		ev->args_len = (size_t)(*out - p);
	}
	return st;
}

/* id2: {"local": X} or {"global": X}; either is the flow/async id. */
static int id2_member(struct cj_parser *ps, void *ctx, const char *key, size_t klen, const char *p,
                      const char *end, const char **out)
{
	struct cj_event *ev = ctx;
	if (KEY_IS("local") || KEY_IS("global"))
		return read_token(ps, p, end, &ev->id, out);
	return skip_member(ps, p, end, out);
}

/* Keys of the Trace Event Format that trex does not use. */
static bool known_unused_key(const char *key, size_t klen)
{
	static const char *const keys[] = {
	    "tts",   "tdur",    "sf",      "esf",      "stack",         "estack",
	    "cname", "bind_id", "flow_in", "flow_out", "use_async_tts", "scope"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strlen(keys[i]) == klen && memcmp(keys[i], key, klen) == 0)
			return true;
	return false;
}

static inline __attribute__((always_inline)) int event_member(struct cj_parser *ps, void *ctx,
                                                              const char *key, size_t klen,
                                                              const char *p, const char *end,
                                                              const char **out)
{
	struct cj_event *ev = ctx;
	switch (klen) {
	case 1:
		if (KEY_IS("s"))
			return read_token(ps, p, end, &ev->scope, out);
		break;
	case 2:
		if (KEY_IS("ph")) {
			struct tok t = {0};
			int st = read_token(ps, p, end, &t, out);
			ev->has_ph = st == JSON_OK;
			ev->ph = t.is_string && t.len == 1 ? t.p[0] : '?';
			ev->ph_at = p;
			return st;
		}
		if (KEY_IS("ts"))
			return read_time(ps, p, end, &ev->ts, &ev->has_ts, &ev->ts_bad, out);
		if (KEY_IS("id"))
			return read_token(ps, p, end, &ev->id, out);
		if (KEY_IS("bp"))
			return read_token(ps, p, end, &ev->bp, out);
		break;
	case 3:
		if (KEY_IS("pid"))
			return read_token(ps, p, end, &ev->pid, out);
		if (KEY_IS("tid"))
			return read_token(ps, p, end, &ev->tid, out);
		if (KEY_IS("cat"))
			return read_token(ps, p, end, &ev->cat, out);
		if (KEY_IS("dur"))
			return read_time(ps, p, end, &ev->dur, &ev->has_dur, &ev->dur_bad, out);
		if (KEY_IS("id2"))
			return p < end && *p == '{'
			           ? walk_object(ps, ev, p, end, id2_member, JSON_LIT_NONE, out)
			           : skip_member(ps, p, end, out);
		break;
	case 4:
		if (KEY_IS("name"))
			return read_token(ps, p, end, &ev->name, out);
		if (KEY_IS("args"))
			return read_args(ps, ev, p, end, out);
		if (KEY_IS("attr")) {
			ps->st.features |= CJ_ATTR;
			return read_args(ps, ev, p, end, out);
		}
		break;
	default:
		break;
	}
	if (!known_unused_key(key, klen) && ev->unknown_keys++ == 0) {
		ev->unknown_key = key;
	}
	return skip_member(ps, p, end, out);
}

/* ---- interning ------------------------------------------------------------------------ */

static bool scratch_reserve(struct cj_parser *ps, size_t n)
{
	if (n <= ps->scratch_cap)
		return true;
	size_t cap = ps->scratch_cap ? ps->scratch_cap : 4096;
	while (cap < n)
		cap *= 2;
	char *s = realloc(ps->scratch, cap);
	if (!s)
		return false;
	ps->scratch = s;
	ps->scratch_cap = cap;
	return true;
}

/* The string id of a token's text (decoded and UTF-8-repaired if needed). */
static uint32_t intern_tok(struct cj_parser *ps, const struct tok *t)
{
	if (!t->present)
		return TREX_STR_NONE;
	if (!(t->flags & (JSON_STR_ESCAPED | JSON_STR_NONASCII)) ||
	    (!(t->flags & JSON_STR_ESCAPED) && json_utf8_valid(t->p, t->len)))
		return trex_builder_intern(ps->b, t->p, t->len);
	if (!scratch_reserve(ps, 3 * t->len + 1))
		return TREX_STR_ERROR;
	bool repaired = false;
	size_t n = json_decode_string(t->p, t->len, ps->scratch, &repaired);
	ps->st.integrity.invalid_utf8 += repaired;
	if (repaired && !ps->utf8_at)
		ps->utf8_at = t->p;
	return trex_builder_intern(ps->b, ps->scratch, n);
}

/* memcmp(a, b, n) == 0 for the short texts of the caches below, without
 * a call: two overlapping words cover 8..16 bytes, reading only [0, n). */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y, u, v;
	if (n > 16)
		return memcmp(a, b, n) == 0;
	if (n >= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(&u, a + n - 8, 8);
		memcpy(&v, b + n - 8, 8);
		return ((x ^ y) | (u ^ v)) == 0;
	}
	if (n >= 4) {
		uint32_t p, q, r, t;
		memcpy(&p, a, 4);
		memcpy(&q, b, 4);
		memcpy(&r, a + n - 4, 4);
		memcpy(&t, b + n - 4, 4);
		return ((p ^ q) | (r ^ t)) == 0;
	}
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static size_t name_slot(const struct tok *t)
{
	uint64_t head = 0, tail = 0;
	memcpy(&head, t->p, t->len < 8 ? t->len : 8);
	if (t->len >= 8)
		memcpy(&tail, t->p + t->len - 8, 8);
	uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ t->len) * 0xFF51AFD7ED558CCDull;
	return (size_t)(h >> 56) % CJ_NAME_CACHE;
}

/* Whether a token's text is its string as it is (no escapes, ASCII only):
 * the caches below keep only such text, so that every string that needed
 * decoding goes through intern_tok and has its repairs counted each time. */
static bool tok_plain(const struct tok *t)
{
	return !(t->flags & (JSON_STR_ESCAPED | JSON_STR_NONASCII));
}

/* intern_tok for event names, through the name cache. */
static uint32_t intern_name(struct cj_parser *ps, const struct tok *t)
{
	if (!t->present || !tok_plain(t) || t->len == 0 || t->len > CJ_NAME_CACHE_MAX)
		return intern_tok(ps, t);
	if (!ps->names && !(ps->names = calloc(CJ_NAME_CACHE, sizeof *ps->names)))
		return intern_tok(ps, t);
	struct cj_name_cache *c = &ps->names[name_slot(t)];
	if (c->len == t->len && same_bytes(c->text, t->p, t->len))
		return c->id;
	uint32_t id = intern_tok(ps, t);
	if (id != TREX_STR_ERROR) {
		memcpy(c->text, t->p, t->len);
		c->len = (uint16_t)t->len;
		c->id = id;
	}
	return id;
}

static uint32_t intern_cached(struct cj_parser *ps, struct cj_short_cache *c, const struct tok *t,
                              bool *hit)
{
	*hit = t->present && c->valid && c->len == t->len && same_bytes(c->text, t->p, t->len);
	if (*hit)
		return c->id;
	uint32_t id = intern_tok(ps, t);
	c->valid = t->present && t->len <= sizeof c->text && tok_plain(t);
	if (c->valid) {
		if (t->len)
			memcpy(c->text, t->p, t->len);
		c->len = (uint8_t)t->len;
		c->id = id;
	}
	return id;
}

/* Dialect evidence from a category seen for the first time in a row. */
static unsigned cat_features(const struct tok *cat)
{
	static const struct {
		const char *cat;
		unsigned feature;
	} table[] = {
	    {"cpu_op", CJ_KINETO_CATS},
	    {"cuda_runtime", CJ_KINETO_CATS},
	    {"kernel", CJ_KINETO_CATS},
	    {"gpu_memcpy", CJ_KINETO_CATS},
	    {"user_annotation", CJ_KINETO_CATS},
	    {"Operator", CJ_LEGACY_CATS},
	    {"Runtime", CJ_LEGACY_CATS},
	    {"Kernel", CJ_LEGACY_CATS},
	    {"gpu_op", CJ_GPU_OP},
	    {"mtia_runtime", CJ_MTIA},
	    {"mtia_ccp_events", CJ_MTIA},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (tok_is(cat, table[i].cat, strlen(table[i].cat)))
			return table[i].feature;
	return 0;
}

static bool cache_text_eq(const char *cached, uint8_t len, const struct tok *t)
{
	return len == t->len && same_bytes(cached, t->p, len);
}

/* The kind of a category's events (load/kinds.h), or CJ_KIND_BY_NAME. */
static uint8_t cat_kind(const char *cat)
{
	if (trex_kind_needs_name(cat))
		return CJ_KIND_BY_NAME;
	return (uint8_t)trex_kind_of(cat, NULL);
}

/* The category's string id, dialect evidence and kind, through the cache. */
static uint32_t intern_cat(struct cj_parser *ps, const struct tok *t, unsigned *features,
                           uint8_t *kind)
{
	for (unsigned i = 0; i < CJ_CAT_CACHE; i++) {
		const struct cj_cat_cache *c = &ps->cats[i];
		if (c->valid && cache_text_eq(c->text, c->len, t)) {
			*features = c->features;
			*kind = c->kind;
			return c->id;
		}
	}
	uint32_t id = intern_tok(ps, t);
	*features = cat_features(t);
	if (id == TREX_STR_ERROR)
		return id;
	*kind = cat_kind(trex_builder_str(ps->b, id));
	/* text that needed decoding is not cached: each use counts its repairs */
	if (t->len > sizeof ps->cats[0].text || !tok_plain(t))
		return id;
	struct cj_cat_cache *c = &ps->cats[ps->cat_next++ % CJ_CAT_CACHE];
	if (t->len)
		memcpy(c->text, t->p, t->len);
	c->len = (uint8_t)t->len;
	c->valid = true;
	c->id = id;
	c->features = *features;
	c->kind = *kind;
	return id;
}

/* pid/tid: a string, absent, or an integer that fits 64 bits. */
static bool id_ok(const struct tok *t)
{
	if (!t->present || t->is_string)
		return true;
	const char *p = t->p;
	size_t n = t->len;
	bool neg = n && *p == '-';
	p += neg;
	n -= neg;
	if (n == 0 || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)(p[i] - '0') > 9)
			return false;
	}
	if (n < 19)
		return true;
	const char *limit = neg ? "9223372036854775808" : "18446744073709551615";
	size_t ln = strlen(limit);
	return n < ln || (n == ln && memcmp(p, limit, n) <= 0);
}

/* The event's thread track, through the cache; also sets ps->ids_ok to
 * whether its pid and tid are of the right type, which the cache keeps
 * with them so that the common event pays nothing for the check. */
static uint32_t event_track(struct cj_parser *ps, const struct cj_event *ev)
{
	bool strings = ev->pid.is_string && ev->tid.is_string;
	for (unsigned i = 0; i < CJ_TRACK_CACHE; i++) {
		const struct cj_track_cache *c = &ps->tracks[i];
		if (c->valid && c->strings == strings &&
		    cache_text_eq(c->tid, c->tid_len, &ev->tid) &&
		    cache_text_eq(c->pid, c->pid_len, &ev->pid)) {
			ps->ids_ok = c->ids_ok;
			return c->track;
		}
	}
	ps->ids_ok = id_ok(&ev->pid) && id_ok(&ev->tid);
	uint32_t pid = intern_tok(ps, &ev->pid), tid = intern_tok(ps, &ev->tid);
	if (pid == TREX_STR_ERROR || tid == TREX_STR_ERROR)
		return TREX_NONE;
	uint32_t track = trex_builder_track(ps->b, pid, tid);
	if (track == TREX_NONE || ev->pid.len > sizeof ps->tracks[0].pid ||
	    ev->tid.len > sizeof ps->tracks[0].tid || !tok_plain(&ev->pid) || !tok_plain(&ev->tid))
		return track;
	struct cj_track_cache *c = &ps->tracks[ps->track_next++ % CJ_TRACK_CACHE];
	if (ev->pid.len) /* an absent pid/tid has no text pointer */
		memcpy(c->pid, ev->pid.p, ev->pid.len);
	if (ev->tid.len)
		memcpy(c->tid, ev->tid.p, ev->tid.len);
	c->pid_len = (uint8_t)ev->pid.len;
	c->tid_len = (uint8_t)ev->tid.len;
	c->pid_id = pid;
	c->track = track;
	c->strings = strings;
	c->ids_ok = ps->ids_ok;
	c->valid = true;
	return track;
}

/* "grid=[x,y,z] block=[x,y,z] smem=N" without whitespace, interned. */
static uint32_t make_shape(struct cj_parser *ps, const struct tok *const parts[3])
{
	size_t need = parts[0]->len + parts[1]->len + parts[2]->len + 32;
	if (!scratch_reserve(ps, need))
		return TREX_STR_ERROR;
	char *d = ps->scratch;
	static const char *const labels[] = {"grid=", " block=", " smem="};
	static const size_t label_len[] = {5, 7, 6};
	for (int i = 0; i < 3; i++) {
		memcpy(d, labels[i], label_len[i]);
		d += label_len[i];
		const struct tok *t = parts[i];
		for (size_t k = 0; t->present && k < t->len; k++)
			if (!json_is_ws((unsigned char)t->p[k]) && t->p[k] != '"')
				*d++ = t->p[k];
		if (!t->present)
			*d++ = '?';
	}
	return trex_builder_intern(ps->b, ps->scratch, (size_t)(d - ps->scratch));
}

/* The cache entry for these args' raw text, or NULL when it is too long. */
static struct cj_shape_cache *shape_slot(struct cj_parser *ps, const struct tok *const parts[3])
{
	uint64_t h = 0;
	size_t total = 0;
	for (int i = 0; i < 3; i++) {
		const struct tok *t = parts[i];
		uint64_t head = 0;
		if (t->present)
			memcpy(&head, t->p, t->len < 8 ? t->len : 8);
		total += t->len;
		h = (h ^ head ^ (t->present ? t->len : CJ_SHAPE_ABSENT)) * 0x9E3779B97F4A7C15ull;
	}
	return total <= CJ_SHAPE_TEXT ? &ps->shapes[(h >> 58) % CJ_SHAPE_CACHE] : NULL;
}

/* Whether entry c holds exactly these args' raw text. */
static bool shape_cached(const struct cj_shape_cache *c, const struct tok *const parts[3])
{
	size_t at = 0;
	if (!c->valid)
		return false;
	for (int i = 0; i < 3; i++) {
		const struct tok *t = parts[i];
		if (c->len[i] != (t->present ? t->len : CJ_SHAPE_ABSENT))
			return false;
		if (t->present && !same_bytes(c->text + at, t->p, t->len))
			return false;
		at += t->present ? t->len : 0;
	}
	return true;
}

/* The launch shape's string id (shape_slot keeps the recent ones), or 0. */
static uint32_t shape_id(struct cj_parser *ps, const struct cj_event *ev)
{
	if (!ev->grid.present && !ev->block.present)
		return TREX_STR_NONE;
	const struct tok *const parts[3] = {&ev->grid, &ev->block, &ev->smem};
	struct cj_shape_cache *c = shape_slot(ps, parts);
	if (c && shape_cached(c, parts))
		return c->id;
	uint32_t id = make_shape(ps, parts);
	if (!c || id == TREX_STR_ERROR)
		return id;
	size_t at = 0;
	for (int i = 0; i < 3; i++) {
		const struct tok *t = parts[i];
		c->len[i] = (uint8_t)(t->present ? t->len : CJ_SHAPE_ABSENT);
		if (t->present && t->len) {
			memcpy(c->text + at, t->p, t->len);
			at += t->len;
		}
	}
	c->id = id;
	c->valid = true;
	return id;
}

static int fill_common(struct cj_parser *ps, const struct cj_event *ev, struct trex_ev *out)
{
	memset(out, 0, sizeof *out);
	out->ts = ev->ts;
	out->dur = ev->dur;
	out->name = intern_name(ps, &ev->name);
	uint8_t kind = 0;
	if (ev->cat.present) {
		unsigned features;
		out->cat = intern_cat(ps, &ev->cat, &features, &kind);
		ps->cat_kind_bits = features;
	} else {
		out->cat = TREX_STR_NONE;
		kind = cat_kind("");
	}
	ps->st.features |= ps->cat_kind_bits;
	if (ev->args)
		out->args = trex_json_args_ref(cj_offset(ps, ev->args), ev->args_len);
	out->launch_link = ev->launch_link;
	out->op_link = ev->op_link;
	out->flags = ev->link_flags;
	out->shape = shape_id(ps, ev);
	if (out->name == TREX_STR_ERROR || out->cat == TREX_STR_ERROR ||
	    out->shape == TREX_STR_ERROR)
		return -1;
	out->kind = kind != CJ_KIND_BY_NAME
	                ? kind
	                : (uint8_t)trex_kind_of(trex_builder_str(ps->b, out->cat),
	                                        trex_builder_str(ps->b, out->name));
	if ((ps->cat_kind_bits & CJ_KINETO_CATS) && ev->name.len > 3 &&
	    memcmp(ev->name.p, "hip", 3) == 0)
		ps->st.features |= CJ_HIP;
	return 0;
}

/* ---- dispatch ---------------------------------------------------------------------- */

static enum trex_phase phase_of(char ph)
{
	switch (ph) {
	case 'X':
		return TREX_PH_COMPLETE;
	case 'B':
		return TREX_PH_BEGIN;
	case 'E':
		return TREX_PH_END;
	case 'i':
	case 'I':
	case 'R':
		return TREX_PH_INSTANT;
	case 'C':
		return TREX_PH_COUNTER;
	case 'M':
		return TREX_PH_METADATA;
	case 's':
		return TREX_PH_FLOW_START;
	case 't':
		return TREX_PH_FLOW_STEP;
	case 'f':
		return TREX_PH_FLOW_END;
	case 'b':
		return TREX_PH_ASYNC_BEGIN;
	case 'e':
		return TREX_PH_ASYNC_END;
	case 'n':
		return TREX_PH_ASYNC_INSTANT;
	default:
		return TREX_PH_OTHER;
	}
}

/* Kineto labels its GPU processes "GPU <n>": their threads are device
 * queues (the last labels of a process decide, as for the labels). */
static int process_labels(struct cj_parser *ps, uint32_t pid, const struct tok *labels)
{
	uint32_t id = intern_tok(ps, labels);
	const char *text = id == TREX_STR_ERROR ? NULL : trex_builder_str(ps->b, id);

	if (!text || trex_builder_process_labels(ps->b, pid, id) != 0)
		return -1;
	return trex_builder_process_device(ps->b, pid, strncmp(text, "GPU", 3) == 0);
}

static int emit_metadata(struct cj_parser *ps, const struct cj_event *ev)
{
	bool hit;
	uint32_t pid = intern_cached(ps, &ps->pid, &ev->pid, &hit);
	if (pid == TREX_STR_ERROR)
		return -1;
	if (tok_is(&ev->name, "process_name", 12) && ev->a_name.present)
		return trex_builder_process_name(ps->b, pid, intern_tok(ps, &ev->a_name));
	if (tok_is(&ev->name, "process_labels", 14) && ev->a_labels.present)
		return process_labels(ps, pid, &ev->a_labels);
	if (tok_is(&ev->name, "process_sort_index", 18) && ev->has_sort_index)
		return trex_builder_process_sort_index(ps->b, pid, ev->a_sort_index);
	bool thread_name = tok_is(&ev->name, "thread_name", 11) && ev->a_name.present;
	bool thread_sort = tok_is(&ev->name, "thread_sort_index", 17) && ev->has_sort_index;
	if (!thread_name && !thread_sort)
		return 0;
	uint32_t track = event_track(ps, ev);
	if (track == TREX_NONE)
		return -1;
	return thread_name ? trex_builder_thread_name(ps->b, track, intern_tok(ps, &ev->a_name))
	                   : trex_builder_thread_sort_index(ps->b, track, ev->a_sort_index);
}

/* Splits an id token into a number or a string id. */
static int flow_id(struct cj_parser *ps, const struct tok *t, uint64_t *id, uint32_t *id_str)
{
	*id = 0;
	*id_str = 0;
	if (!t->present)
		return 0;
	if (!t->is_string) {
		int64_t v;
		bool is_int = false, sat = false;
		const char *q;
		if (json_parse_int(t->p, t->p + t->len + 1, &v, &is_int, &sat, &q) == JSON_OK &&
		    is_int && !sat && q == t->p + t->len) {
			*id = (uint64_t)v;
			return 0;
		}
	}
	*id_str = intern_tok(ps, t);
	return *id_str == TREX_STR_ERROR ? -1 : 0;
}

/* One sample per numeric member of args; the series is named after the
 * event (and the member when there are several, and the id if any). */
struct counter_walk {
	struct cj_parser *ps;
	const struct cj_event *ev;
	uint32_t pid;
	unsigned numeric;
	bool emit;
	int rc;
};

static int counter_member(struct cj_parser *ps, void *ctx, const char *key, size_t klen,
                          const char *p, const char *end, const char **out)
{
	struct counter_walk *w = ctx;
	double value;
	if (json_parse_double(p, end, &value, out) != JSON_OK)
		return skip_member(ps, p, end, out);
	if (!w->emit) {
		w->numeric++;
		return JSON_OK;
	}
	const struct cj_event *ev = w->ev;
	size_t need = ev->name.len + ev->id.len + klen + 8;
	if (!scratch_reserve(ps, need)) {
		w->rc = -1;
		return JSON_OK;
	}
	int n = snprintf(ps->scratch, need, "%.*s", (int)ev->name.len, ev->name.p);
	if (ev->id.present)
		n +=
		    snprintf(ps->scratch + n, need - (size_t)n, " %.*s", (int)ev->id.len, ev->id.p);
	if (w->numeric > 1)
		n += snprintf(ps->scratch + n, need - (size_t)n, " %.*s", (int)klen, key);
	uint32_t series = trex_builder_intern(ps->b, ps->scratch, (size_t)n);
	if (series == TREX_STR_ERROR ||
	    trex_builder_counter(ps->b, w->pid, series, ev->ts, value) != 0)
		w->rc = -1;
	return JSON_OK;
}

static int emit_counter(struct cj_parser *ps, const struct cj_event *ev)
{
	if (!ev->args)
		return 0;
	bool hit;
	struct counter_walk w = {ps, ev, intern_cached(ps, &ps->pid, &ev->pid, &hit), 0, false, 0};
	if (w.pid == TREX_STR_ERROR)
		return -1;
	const char *end = ev->args + ev->args_len, *out;
	walk_object(ps, &w, ev->args, end, counter_member, JSON_LIT_NONE, &out);
	w.emit = true;
	walk_object(ps, &w, ev->args, end, counter_member, JSON_LIT_NONE, &out);
	return w.rc;
}

/* b/e/n: keyed slices of the process, paired by (cat, id). */
static int emit_async(struct cj_parser *ps, const struct cj_event *ev, const struct trex_key *key,
                      const struct trex_ev *te)
{
	bool hit;
	uint32_t pid = intern_cached(ps, &ps->pid, &ev->pid, &hit);
	if (pid == TREX_STR_ERROR)
		return -1;
	if (ev->ph == 'b')
		return trex_builder_keyed_begin(ps->b, pid, key, te) == TREX_HANDLE_NONE ? -1 : 0;
	if (ev->ph == 'e')
		return trex_builder_keyed_end(ps->b, pid, key, te);
	return trex_builder_keyed_instant(ps->b, pid, key, te);
}

/* s/t/f: flow points chained by (cat, id); s and t sit on the slice
 * enclosing them, f on the next slice unless "bp":"e". */
static int emit_flow(struct cj_parser *ps, const struct cj_event *ev, const struct trex_key *key,
                     const struct trex_ev *te)
{
	uint32_t track = event_track(ps, ev);
	if (track == TREX_NONE)
		return -1;
	struct trex_flow_point p = {
	    .key = *key,
	    .name = te->name,
	    .role = ev->ph == 's'   ? TREX_FLOW_START
	            : ev->ph == 't' ? TREX_FLOW_STEP
	                            : TREX_FLOW_END,
	    .slice = TREX_HANDLE_NONE,
	    .track = track,
	    .ts = ev->ts,
	    .bind = ev->ph != 'f' || tok_is(&ev->bp, "e", 1) ? TREX_BIND_ENCLOSING : TREX_BIND_NEXT,
	};
	return trex_builder_flow(ps->b, &p);
}

static int emit_flow_or_async(struct cj_parser *ps, const struct cj_event *ev, struct trex_ev *te)
{
	struct trex_key key = {.space = te->cat};
	if (flow_id(ps, &ev->id, &key.num, &key.str) != 0)
		return -1;
	if (ev->ph == 'b' || ev->ph == 'e' || ev->ph == 'n')
		return emit_async(ps, ev, &key, te);
	return emit_flow(ps, ev, &key, te);
}

static enum trex_instant_scope instant_scope(const struct cj_event *ev)
{
	if (tok_is(&ev->scope, "g", 1))
		return TREX_SCOPE_GLOBAL;
	if (tok_is(&ev->scope, "p", 1))
		return TREX_SCOPE_PROCESS;
	return TREX_SCOPE_THREAD;
}

/* Not strchr("stfben", ph): a libc call per event, where this is a bit test. */
static inline bool is_flow_or_async(char ph)
{
	switch (ph) {
	case 's':
	case 't':
	case 'f':
	case 'b':
	case 'e':
	case 'n':
		return true;
	default:
		return false;
	}
}

static int emit_timed(struct cj_parser *ps, const struct cj_event *ev)
{
	struct trex_ev te;
	if (fill_common(ps, ev, &te) != 0)
		return -1;
	if (ev->ph == 'C')
		return emit_counter(ps, ev);
	if (is_flow_or_async(ev->ph))
		return emit_flow_or_async(ps, ev, &te);
	uint32_t track = event_track(ps, ev);
	if (track == TREX_NONE)
		return -1;
	switch (ev->ph) {
	case 'X':
		return trex_builder_complete(ps->b, track, &te) == TREX_HANDLE_NONE ? -1 : 0;
	case 'B':
		return trex_builder_begin(ps->b, track, &te) == TREX_HANDLE_NONE ? -1 : 0;
	case 'E':
		return trex_builder_end(ps->b, track, &te);
	default:
		return trex_builder_instant(ps->b, track, &te, instant_scope(ev));
	}
}

/* ---- problems of one event -------------------------------------------------------------- */

/* Phases of the Trace Event Format that trex reads past (async S/T/p/F of
 * the old kind, samples, objects, memory dumps, clock syncs, contexts). */
static bool unsupported_phase(const struct tok *ph)
{
	return ph->is_string && ph->len == 1 && strchr("STpFPNODVvc()", ph->p[0]) && ph->p[0];
}

/* Up to 40 bytes of the value at p, for messages. */
static int value_len(struct cj_parser *ps, const char *p)
{
	const char *q;
	if (json_skip_value(p, ps->limit, &q) != JSON_OK)
		q = p + 1;
	return q - p > 40 ? 40 : (int)(q - p);
}

/* What was wrong with the time value at bad (NULL: nothing): not a number,
 * or a number beyond int64 ns. */
static enum cj_time_problem time_problem(struct cj_parser *ps, const char *bad)
{
	int64_t ns;
	bool saturated = false;
	const char *q;

	if (!bad)
		return CJ_TIME_OK;
	bad += *bad == '"';
	if (json_parse_us_ns(bad, ps->limit, &ns, &saturated, &q) == JSON_OK && saturated)
		return CJ_TIME_RANGE;
	return CJ_TIME_TYPE;
}

static void note_phase(struct cj_parser *ps, const struct cj_event *ev)
{
	const char *at = ev->ph_at;
	struct tok t = {.p = at + 1, .present = true, .is_string = *at == '"'};
	unsigned f = 0;
	const char *q = t.is_string ? json_string_end(at + 1, ps->limit, &f) : NULL;

	t.len = q ? (size_t)(q - at - 1) : 0;
	if (unsupported_phase(&t))
		cj_note(ps, TREX_INTEG_unsupported_phase, at, NULL, "phase \"%c\" is not shown",
		        t.p[0]);
	else if (t.is_string)
		cj_note(ps, TREX_INTEG_unknown_phase, at, NULL,
		        "ph \"%.*s\" is no trace-event phase", t.len > 24 ? 24 : (int)t.len, t.p);
	else
		cj_note(ps, TREX_INTEG_unknown_phase, at, NULL, "ph is %s", json_type(*at));
}

/* event_dropped's checks, for an event that may have a problem. */
static bool drop_checks(struct cj_parser *ps, const struct cj_event *ev, enum trex_phase ph)
{
	if (!ev->has_ph) {
		cj_note(ps, TREX_INTEG_missing_fields, ev->start, NULL, "event without \"ph\"");
		return true;
	}
	if (ph == TREX_PH_OTHER) {
		note_phase(ps, ev);
		return true;
	}
	/* metadata needs no time: it is kept, the bad ts counted all the same */
	bool meta = ph == TREX_PH_METADATA;
	const char *kept = meta ? " (metadata: kept)" : "";
	enum cj_time_problem tp = time_problem(ps, ev->ts_bad);
	if (tp == CJ_TIME_TYPE)
		cj_note(ps, TREX_INTEG_bad_ts, ev->ts_bad, NULL, "ts is %s%s",
		        json_type(*ev->ts_bad), kept);
	else if (tp == CJ_TIME_RANGE)
		cj_note(ps, TREX_INTEG_ts_out_of_range, ev->ts_bad, NULL,
		        "ts %.*s us is beyond int64 ns%s", value_len(ps, ev->ts_bad), ev->ts_bad,
		        kept);
	if (meta || tp != CJ_TIME_OK)
		return !meta;
	if (!ev->has_ts) {
		cj_note(ps, TREX_INTEG_missing_fields, ev->start, NULL,
		        "\"%c\" event without \"ts\"", ev->ph);
		return true;
	}
	if (ph == TREX_PH_COMPLETE && time_problem(ps, ev->dur_bad) == CJ_TIME_RANGE) {
		cj_note(ps, TREX_INTEG_dur_out_of_range, ev->dur_bad, NULL,
		        "dur %.*s us is beyond int64 ns", value_len(ps, ev->dur_bad), ev->dur_bad);
		return true;
	}
	return false;
}

/* Problems that drop the event (each counted with an example); true when
 * it is dropped. An event with a phase, a usable ts and no bad time (nearly
 * every one) is kept without the checks' call. */
static inline bool event_dropped(struct cj_parser *ps, const struct cj_event *ev,
                                 enum trex_phase ph)
{
	if (ph != TREX_PH_OTHER && ph != TREX_PH_METADATA && ev->has_ts && !ev->ts_bad &&
	    !ev->dur_bad)
		return false;
	return drop_checks(ps, ev, ph);
}

static bool on_thread_track(enum trex_phase ph)
{
	return ph == TREX_PH_COMPLETE || ph == TREX_PH_BEGIN || ph == TREX_PH_END ||
	       ph == TREX_PH_INSTANT || ph == TREX_PH_FLOW_START || ph == TREX_PH_FLOW_STEP ||
	       ph == TREX_PH_FLOW_END;
}

/* The kept event a problem is about: its track (thread-track phases),
 * name and ts, all through the caches the event just went through. */
static void event_about(struct cj_parser *ps, const struct cj_event *ev, enum trex_phase ph,
                        struct cj_about *a)
{
	uint32_t name = ev->name.present ? intern_tok(ps, &ev->name) : TREX_NONE;

	a->name = name == TREX_STR_ERROR ? TREX_NONE : name;
	a->track = on_thread_track(ph) ? event_track(ps, ev) : TREX_NONE;
	a->ts = ev->ts;
	a->has_ts = ph != TREX_PH_METADATA && ev->has_ts;
}

/* kept_notes' notes, for an event that has something to note (bad_dur
 * and ids_ok as kept_notes found them). */
static void note_kept(struct cj_parser *ps, const struct cj_event *ev, enum trex_phase ph,
                      bool bad_dur, bool ids_ok)
{
	bool bad_pid = !ids_ok && !id_ok(&ev->pid), bad_tid = !ids_ok && !bad_pid;
	uint64_t utf8 = ps->st.integrity.invalid_utf8;
	struct cj_about a;

	event_about(ps, ev, ph, &a);
	ps->st.integrity.invalid_utf8 = utf8; /* the name was counted when it was interned */
	if (bad_dur && ev->dur_bad)
		cj_note(ps, TREX_INTEG_bad_dur, ev->dur_bad, &a, "dur is %s (kept with duration 0)",
		        json_type(*ev->dur_bad));
	else if (bad_dur)
		cj_note(ps, TREX_INTEG_bad_dur, ev->start, &a,
		        "X event without \"dur\" (kept with duration 0)");
	if (bad_pid || bad_tid) {
		const struct tok *t = bad_pid ? &ev->pid : &ev->tid;
		cj_note(ps, TREX_INTEG_bad_ids, t->p, &a,
		        "%s %.*s is not a string or a 64-bit integer", bad_pid ? "pid" : "tid",
		        t->len > 40 ? 40 : (int)t->len, t->p);
	}
	if (ev->bad_value_at)
		cj_note(ps, TREX_INTEG_bad_values, ev->bad_value_at, &a, "args is %s (ignored)",
		        json_type(*ev->bad_value_at));
	if (ps->utf8_at)
		cj_example(ps, TREX_INTEG_invalid_utf8, ps->utf8_at, &a,
		           "invalid UTF-8 replaced by U+FFFD");
	if (ev->unknown_keys) {
		unsigned f = 0;
		const char *q = json_string_end(ev->unknown_key, ps->limit, &f);
		int klen = q ? (int)(q - ev->unknown_key) : 0;
		cj_example(ps, TREX_INTEG_unknown_keys, ev->unknown_key, &a, "unknown key \"%.*s\"",
		           klen > 40 ? 40 : klen, ev->unknown_key);
	}
}

/* Problems of an event that was kept, each with where it went. The
 * thread-track phases went through event_track, which checked the ids.
 * Inline: nearly every event has none, and then costs no call. */
static inline void kept_notes(struct cj_parser *ps, const struct cj_event *ev, enum trex_phase ph)
{
	bool bad_dur = ph == TREX_PH_COMPLETE && !ev->has_dur;
	bool ids_ok = on_thread_track(ph) ? ps->ids_ok : id_ok(&ev->pid) && id_ok(&ev->tid);

	if (bad_dur || !ids_ok || ev->bad_value_at || ps->utf8_at || ev->unknown_keys)
		note_kept(ps, ev, ph, bad_dur, ids_ok);
}

static int dispatch(struct cj_parser *ps, const struct cj_event *ev)
{
	enum trex_phase ph = ev->has_ph ? phase_of(ev->ph) : TREX_PH_OTHER;
	int rc;

	ps->st.events++;
	ps->st.phase_counts[ph]++;
	ps->st.integrity.unknown_keys += ev->unknown_keys;
	if (event_dropped(ps, ev, ph))
		return 0;
	if (ph == TREX_PH_METADATA) {
		rc = emit_metadata(ps, ev);
	} else {
		trex_builder_at(ps->b, (int64_t)cj_offset(ps, ev->start));
		rc = emit_timed(ps, ev);
	}
	if (rc == 0)
		kept_notes(ps, ev, ph);
	return rc;
}

static int probe_member(struct cj_parser *ps, void *ctx, const char *key, size_t klen,
                        const char *p, const char *end, const char **out)
{
	bool *has_ph = ctx;

	if (KEY_IS("ph") && p < end && *p == '"')
		*has_ph = true;
	return skip_member(ps, p, end, out);
}

int cj_probe_event(struct cj_parser *ps, const char *p, const char *end, const char **out)
{
	bool has_ph = false;
	const char *why = ps->why;
	int st = walk_object(ps, &has_ph, p, end, probe_member, JSON_LIT_NONE, out);

	ps->why = why;
	if (st == JSON_OK && !has_ph) {
		*out = p;
		return JSON_SYNTAX;
	}
	return st;
}

/* Clears an event with 16-byte stores: gcc makes a memset of this size
 * (and a plain loop of stores, which it recognises as one) a `rep stos`,
 * whose start-up cost was 3.5 % of a one-core load (once per event). The
 * empty asm hides the address from that recognition. */
static inline void clear_event(struct cj_event *ev)
{
#if defined(__SSE2__)
	unsigned char *b = (unsigned char *)ev;
	const __m128i zero = _mm_setzero_si128();
	size_t i = 0;

#pragma GCC unroll 32
	for (; i + 16 <= sizeof *ev; i += 16) {
		__asm__("" : "+r"(b));
		_mm_storeu_si128((__m128i *)(void *)(b + i), zero);
	}
	if (i < sizeof *ev)
		_mm_storeu_si128((__m128i *)(void *)(b + sizeof *ev - 16), zero);
#else
	memset(ev, 0, sizeof *ev);
#endif
}

int cj_parse_event(struct cj_parser *ps, const char *p, const char *end, const char **out)
{
	struct cj_event ev;
	clear_event(&ev);
	ev.start = p;
	ps->utf8_at = NULL;
	int st = walk_object(ps, &ev, p, end, event_member, ps->lit_event, out);
	if (st != JSON_OK)
		return st;
	if (dispatch(ps, &ev) != 0)
		ps->oom = true;
	return JSON_OK;
}
