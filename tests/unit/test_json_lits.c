/* Member-literal prediction (src/load/json_lits.h): the table's own rules,
 * and the Chrome loader's events parsed the same with and without it. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../src/load/json_lits.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

/* The bytes at p, padded so that JSON_LIT_MAX + 1 of them can be read. */
static const char *padded(const char *s)
{
	static char buf[256];
	memset(buf, 'x', sizeof buf - 1);
	buf[sizeof buf - 1] = '\0';
	memcpy(buf, s, strlen(s));
	return buf;
}

static unsigned learn(struct json_lits *l, unsigned from, const char *lit, const char *key)
{
	const char *k = strstr(lit, key);
	return json_lits_learn(l, from, lit, strlen(lit), (size_t)(k - lit), strlen(key), false);
}

Test(json_lits, a_learned_successor_is_predicted_with_its_key)
{
	struct json_lits l;
	json_lits_init(&l);
	const char *first = "{\n    \"ph\": ", *second = ", \"cat\": ";
	unsigned a = learn(&l, JSON_LIT_EVENT, first, "ph");
	unsigned b = learn(&l, a, second, "cat");
	cr_assert_neq(a, JSON_LIT_NONE);
	cr_assert_neq(b, JSON_LIT_NONE);
	const char *p = padded("{\n    \"ph\": \"X\"");
	const struct json_lit *hit = json_lits_predict(&l, JSON_LIT_EVENT, p, p + 200, true);
	cr_assert_not_null(hit);
	cr_assert_eq(hit - l.node, a);
	cr_assert_eq(hit->len, strlen(first));
	cr_assert_eq(memcmp(p + hit->key_off, "ph", 2), 0);
	cr_assert_eq(hit->key_len, 2);
	p = padded(", \"cat\": \"cpu_op\"");
	hit = json_lits_predict(&l, a, p, p + 200, false);
	cr_assert_not_null(hit);
	cr_assert_eq(hit - l.node, b);
	/* the same literal again is the same node */
	cr_assert_eq(learn(&l, a, second, "cat"), b);
}

Test(json_lits, no_prediction_where_the_scan_could_differ)
{
	struct json_lits l;
	json_lits_init(&l);
	unsigned a = learn(&l, JSON_LIT_EVENT, "{\"ts\": ", "ts");
	/* more whitespace follows: the scan would start the value later */
	const char *p = padded("{\"ts\":  5");
	cr_assert_null(json_lits_predict(&l, JSON_LIT_EVENT, p, p + 200, true));
	/* a different byte anywhere in the literal */
	p = padded("{\"tS\": 5");
	cr_assert_null(json_lits_predict(&l, JSON_LIT_EVENT, p, p + 200, true));
	/* too close to the end of the input to compare in one go */
	p = padded("{\"ts\": 5");
	cr_assert_null(json_lits_predict(&l, JSON_LIT_EVENT, p, p + JSON_LIT_MAX, true));
	cr_assert_not_null(json_lits_predict(&l, JSON_LIT_EVENT, p, p + JSON_LIT_MAX + 1, true));
	/* an object's first literal is never predicted after a value, nor
	 * a later one at an object's start */
	cr_assert_null(json_lits_predict(&l, JSON_LIT_EVENT, p, p + 200, false));
	unsigned b = learn(&l, a, ", \"dur\": ", "dur");
	p = padded(", \"dur\": 1");
	cr_assert_not_null(json_lits_predict(&l, a, p, p + 200, false));
	cr_assert_null(json_lits_predict(&l, a, p, p + 200, true));
	(void)b;
	/* no prediction from an unknown node */
	cr_assert_null(json_lits_predict(&l, JSON_LIT_NONE, p, p + 200, false));
}

Test(json_lits, successors_are_kept_newest_first)
{
	struct json_lits l;
	json_lits_init(&l);
	unsigned a = learn(&l, JSON_LIT_ARGS, "{\"External id\": ", "External id");
	static const char *const keys[] = {"Ev Idx", "Sequence number", "device", "stream",
	                                   "bytes"};
	unsigned node[5];
	char at[5][256];
	for (int i = 0; i < 5; i++) {
		char lit[64];
		snprintf(lit, sizeof lit, ", \"%s\": ", keys[i]);
		node[i] = learn(&l, a, lit, keys[i]);
		strcat(lit, "3");
		memcpy(at[i], padded(lit), sizeof at[i]);
		/* the newest JSON_LIT_WAYS are all predicted */
		for (int k = i; k >= 0 && k > i - JSON_LIT_WAYS; k--)
			cr_assert_eq(json_lits_predict(&l, a, at[k], at[k] + 200, false) - l.node,
			             node[k], "%d after %d", k, i);
		cr_assert_eq(l.node[a].next[0], node[i] + 1);
	}
	/* the fifth pushed the oldest out */
	cr_assert_null(json_lits_predict(&l, a, at[0], at[0] + 200, false));
	/* learning one that is there again moves it to the front, dropping nothing */
	cr_assert_eq(learn(&l, a, ", \"device\": ", "device"), node[2]);
	cr_assert_eq(l.node[a].next[0], node[2] + 1);
	for (int k = 1; k < 5; k++)
		cr_assert_not_null(json_lits_predict(&l, a, at[k], at[k] + 200, false), "%d", k);
}

Test(json_lits, end_literals_and_limits)
{
	struct json_lits l;
	json_lits_init(&l);
	unsigned a = learn(&l, JSON_LIT_ARGS, "{\"x\": ", "x");
	unsigned e = json_lits_learn(&l, a, "\n    }", 6, 0, 0, true);
	cr_assert_neq(e, JSON_LIT_NONE);
	const char *p = padded("\n    },");
	const struct json_lit *hit = json_lits_predict(&l, a, p, p + 200, false);
	cr_assert_not_null(hit);
	cr_assert(hit->end);
	cr_assert_eq(hit->len, 6);
	/* too long to keep */
	char big[64];
	memset(big, ' ', sizeof big);
	cr_assert_eq(json_lits_learn(&l, a, big, JSON_LIT_MAX + 1, 0, 0, false), JSON_LIT_NONE);
	/* a full table learns nothing more but still finds what it has */
	for (unsigned i = 0; l.n < JSON_LIT_NODES; i++) {
		char lit[32];
		int n = snprintf(lit, sizeof lit, ", \"k%u\": ", i);
		cr_assert_neq(json_lits_learn(&l, JSON_LIT_NONE, lit, (size_t)n, 3, 2, false),
		              JSON_LIT_NONE);
	}
	cr_assert_eq(json_lits_learn(&l, a, ", \"new\": ", 9, 3, 3, false), JSON_LIT_NONE);
	cr_assert_eq(learn(&l, JSON_LIT_ARGS, "{\"x\": ", "x"), a);
}

/* ---- the loader with and without prediction ---------------------------------------------- */

struct text {
	char *s;
	size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
		va_end(ap);
		if ((size_t)n < t->cap - t->n) {
			t->n += (size_t)n;
			return;
		}
		t->cap = t->cap * 2 + (size_t)n + 64;
		t->s = realloc(t->s, t->cap);
	}
}

/* Separators: mostly one style (as writers do), sometimes another. */
static const char *sep(unsigned *seed, const char *usual)
{
	static const char *const other[] = {"", " ", "\n    ", "\t", "  ", "\r\n"};
	*seed = *seed * 1103515245u + 12345u;
	unsigned r = (*seed >> 16) % 100;
	return r < 85 ? usual : other[r % 6];
}

/* Event i: an 'X' named e<i> with Kineto-like args, its members in one of
 * a few orders, with whitespace variants, escaped and unknown keys, long
 * keys and args that are not an object. */
static void event(struct text *t, unsigned i, unsigned *seed)
{
	const char *a = sep(seed, " "), *b = sep(seed, "\n    "), *c = sep(seed, "");
	*seed = *seed * 1103515245u + 12345u;
	unsigned r = (*seed >> 16) % 16;
	const char *name_key = r == 3 ? "n\\u0061me" : "name";
	put(t, "{%s\"ph\":%s\"X\",%s\"cat\":%s\"%s\",%s\"%s\":%s\"e%u\",", b, a, a, a,
	    r == 5 ? "kernel" : "cpu_op", a, name_key, r == 4 ? "  " : a, i);
	if (r == 6)
		put(t, "%s\"an unknown key that is longer than thirty-two bytes\":%s1,", a, a);
	if (r % 2)
		put(t, "%s\"pid\":%s7,%s\"tid\":%s%u,", a, a, a, a, i % 3);
	else
		put(t, "%s\"tid\":%s%u,%s\"pid\":%s7,", a, a, i % 3, a, a);
	put(t, "%s\"ts\":%s%u.%03u,%s\"dur\":%s%u.5", b, a, 1000 + i * 10, i % 1000, a, a,
	    3 + i % 5);
	if (r == 7)
		put(t, ",%s\"args\":%s5", b, a);
	else if (r != 8)
		put(t, ",%s\"args\":%s{%s\"External id\":%s%u,%s\"%s\":%s%u%s%s}", b, a, c, a,
		    i + 1, c, r == 9 ? "correlation" : "Ev Idx", a, i + 2,
		    r == 10   ? ", \"grid\": [1, 2, 3], \"block\": [4, 1, 1]"
		    : r == 12 ? ",      \"est. achieved occupancy %\": 100" /* 37 bytes */
		              : "",
		    c);
	put(t, "%s}", r == 11 ? "\t" : "\n  ");
}

static struct trex_index *load_with(const char *text, size_t len, bool scan)
{
	struct trex_source *src;
	struct trex_error err;
	cr_assert_eq(trex_source_open_memory("mem.json", text, len, true, &src, &err), TREX_OK);
	struct trex_load_opts opts = {.threads = 1, .scan_every_member = scan};
	struct trex_index *idx = NULL;
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

static struct trex_index *load(const char *text, size_t len)
{
	return load_with(text, len, false);
}

static char *args_text(const struct trex_index *idx, const struct trex_slice *s)
{
	char *out = NULL;
	size_t len = 0;
	struct trex_error err;
	if (s->args == TREX_ARGS_NONE)
		return strdup("");
	cr_assert_eq(trex_index_args_json(idx, 0, s->args, &out, &len, &err), TREX_OK);
	return out ? out : strdup("");
}

static void assert_same_slice(const struct trex_index *one, uint32_t a,
                              const struct trex_index *all, uint32_t b)
{
	const struct trex_slice *x = trex_index_slice(one, a), *y = trex_index_slice(all, b);
	cr_assert_eq(x->ts, y->ts);
	cr_assert_eq(x->dur, y->dur);
	cr_assert_eq(x->kind, y->kind);
	cr_assert_eq(x->flags, y->flags);
	cr_assert_str_eq(trex_index_str(one, x->name), trex_index_str(all, y->name));
	cr_assert_str_eq(trex_index_str(one, x->cat), trex_index_str(all, y->cat));
	cr_assert_eq(trex_slice_launch_link(one, a), trex_slice_launch_link(all, b));
	cr_assert_eq(trex_slice_op_link(one, a), trex_slice_op_link(all, b));
	char *ax = args_text(one, x), *ay = args_text(all, y);
	cr_assert_str_eq(ax, ay);
	free(ax);
	free(ay);
}

/* Each event loaded alone meets a parser that has learned nothing, so it
 * is scanned member by member; in the whole trace most of its members are
 * predicted. Every slice, and every integrity counter, must agree. */
Test(json_lits, every_event_parses_the_same_predicted_or_scanned, .timeout = 120)
{
	enum { EVENTS = 600 };
	struct text all = {0}, one = {0};
	unsigned seed = 7;
	put(&all, "{\"traceEvents\": [\n  ");
	struct trex_integrity sum = {0};
	uint32_t *slice_of = calloc(EVENTS, sizeof *slice_of);
	struct trex_index **alone = calloc(EVENTS, sizeof *alone);
	for (unsigned i = 0; i < EVENTS; i++) {
		one.n = 0;
		unsigned s = seed;
		put(&one, "[");
		event(&one, i, &s);
		put(&one, "]");
		event(&all, i, &seed);
		put(&all, i + 1 < EVENTS ? ",\n  " : "\n]}\n");
		alone[i] = load(one.s, one.n);
		struct trex_integrity in = trex_index_integrity(alone[i]);
		trex_integrity_add(&sum, &in);
	}
	struct trex_index *whole = load(all.s, all.n);
	struct trex_integrity got = trex_index_integrity(whole);
	for (int c = 0; c < TREX_INTEG_COUNT; c++)
		cr_assert_eq(trex_integrity_get(&got, (enum trex_integrity_counter)c),
		             trex_integrity_get(&sum, (enum trex_integrity_counter)c), "counter %d",
		             c);
	/* the event of a slice by its ts (an escaped "name" key is not
	 * the name: such events have none) */
	for (uint32_t k = 0; k < trex_index_slice_count(whole); k++) {
		int64_t ts = trex_index_slice(whole, k)->ts;
		unsigned i = (unsigned)((ts - 1000000) / 10000);
		cr_assert_lt(i, EVENTS);
		cr_assert_eq(slice_of[i], 0);
		slice_of[i] = k + 1;
	}
	unsigned slices = 0;
	for (unsigned i = 0; i < EVENTS; i++) {
		uint32_t n = trex_index_slice_count(alone[i]);
		cr_assert_leq(n, 1);
		cr_assert_eq(n, slice_of[i] ? 1u : 0u, "event %u", i);
		if (n)
			assert_same_slice(alone[i], 0, whole, slice_of[i] - 1);
		slices += n;
		trex_index_free(alone[i]);
	}
	cr_assert_gt(slices, EVENTS / 2, "most events are slices");
	trex_index_free(whole);
	free(alone);
	free(slice_of);
	free(all.s);
	free(one.s);
}

/* The loader's own switch: the whole trace scanned member by member gives
 * the same slices, byte for byte, as with prediction. */
Test(json_lits, scanning_every_member_gives_the_same_index, .timeout = 60)
{
	struct text all = {0};
	unsigned seed = 11;
	put(&all, "[");
	for (unsigned i = 0; i < 2000; i++) {
		event(&all, i, &seed);
		put(&all, i + 1 < 2000 ? ",\n  " : "]\n");
	}
	struct trex_index *a = load_with(all.s, all.n, false), *b = load_with(all.s, all.n, true);
	cr_assert_eq(trex_index_slice_count(a), trex_index_slice_count(b));
	cr_assert_gt(trex_index_slice_count(a), 1000);
	for (uint32_t i = 0; i < trex_index_slice_count(a); i++)
		cr_assert_eq(memcmp(trex_index_slice(a, i), trex_index_slice(b, i),
		                    sizeof(struct trex_slice)),
		             0, "slice %u", i);
	struct trex_integrity x = trex_index_integrity(a), y = trex_index_integrity(b);
	cr_assert_eq(memcmp(&x, &y, sizeof x), 0);
	trex_index_free(a);
	trex_index_free(b);
	free(all.s);
}

/* Found by fuzz_json: a string in args left open swallows the next events,
 * and gzipped in windows of 183 bytes on two threads the load never ended
 * (the walk said the error was before the value it could not read, so the
 * event was tried again and again). It ends, with the plain load's counts. */
Test(json_lits, an_error_in_a_value_is_placed_at_that_value, .timeout = 30)
{
	static const char text[] =
	    "{\"traceEvents\":[\n"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":100,\"tid\":1,\"ts\":"
	    "0Ev I704tame,\"dur\":100},\n"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
	    "\"tid\":1,\"ts\":10,\"dur\":10,\"args\":{\"correlation\":1}},\n"
	    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":100,\"tid\":1,\"ts\":"
	    "100,\"dur\":100},\n"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
	    "\"tid\":1,\"ts\":190,\"dur\":8,\"args\":{\"correlation\":2}},\n"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add_kernel\",\"\xaaid\":0,\"tid\":7,"
	    "\"ts\":30,\"dur\":10,\"args\":{\"stream\":7,\"correlation\":\"aten::mul\",\"pid\":100,"
	    "\"tid\":1,\"ts\":100,\"dur\":100},\n"
	    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,"
	    "\"tid\":1,\"ts\":190,\"dur\":8,\"args\":{\"correlation\":2}},\n"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add_kernel\",\"\xaaid\":0,\"tid\":7,"
	    "\"ts\":30,\"dur\":10,\"args\":{\"stream\":7,\"correlation\":1}},\n"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",1}},\n"
	    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"mul_kernel\",\"pid\":0,\"tid\":7,\"ts\":"
	    "205,\"dur\":10,\"args\":{\"stream\":7,\"corralation\":2}}\n"
	    "]}\n"
	    "";
	size_t len = sizeof text - 1;
	uLongf zcap = compressBound((uLong)len) + 64;
	unsigned char *z = malloc(zcap);
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	cr_assert_eq(deflateInit2(&zs, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)(uintptr_t)text;
	zs.avail_in = (uInt)len;
	zs.next_out = z;
	zs.avail_out = (uInt)zcap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t zlen = zs.total_out;
	deflateEnd(&zs);
	struct trex_index *plain = load(text, len);
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct trex_source *src;
		struct trex_error err;
		struct trex_index *idx = NULL;
		struct trex_load_opts opts = {.threads = threads, .stream_window = len / 8 + 61};
		cr_assert_eq(
		    trex_source_open_memory("mem.json.gz", (const char *)z, zlen, true, &src, &err),
		    TREX_OK);
		cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK);
		cr_assert_eq(trex_index_slice_count(idx), trex_index_slice_count(plain));
		cr_assert_eq(trex_index_file(idx, 0)->events, trex_index_file(plain, 0)->events);
		trex_index_free(idx);
	}
	trex_index_free(plain);
	free(z);
}
