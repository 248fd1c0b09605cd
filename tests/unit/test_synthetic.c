#include "config.h"

#include <criterion/criterion.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/status.h"
#include "trex/demo/synthetic.h"

/* ---- a strict JSON parser that keeps the few event fields the checks need.
 * Independent of the project's own scanner on purpose: the generator must
 * produce JSON that any parser accepts. */

struct event {
	char ph;
	char cat[24];
	char name[48];
	bool tid_is_num;
	int64_t tid;
	int64_t ts, dur, id, corr;
	int ts_frac, dur_frac; /* digits after the '.', -1 if not a number */
};

struct doc {
	struct event *ev;
	size_t n, cap;
};

struct jp {
	const char *p, *end;
	bool ok;
	struct doc *doc;
};

typedef bool (*key_fn)(struct jp *j, const char *key, size_t klen, void *ctx);

static bool parse_value(struct jp *j, int depth);

static void ws(struct jp *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p))
		j->p++;
}

static bool fail(struct jp *j)
{
	j->ok = false;
	return false;
}

static bool expect(struct jp *j, char c)
{
	ws(j);
	if (j->p >= j->end || *j->p != c)
		return fail(j);
	j->p++;
	return true;
}

static bool peek(struct jp *j, char c)
{
	ws(j);
	return j->p < j->end && *j->p == c;
}

/* Validates a string; s and n get the raw (still escaped) content. */
static bool parse_string(struct jp *j, const char **s, size_t *n)
{
	if (!expect(j, '"'))
		return false;
	const char *start = j->p;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p++;
		if (c < 0x20)
			return fail(j);
		if (c != '\\')
			continue;
		if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p))
			return fail(j);
		if (*j->p++ == 'u') {
			for (int i = 0; i < 4; i++, j->p++)
				if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p))
					return fail(j);
		}
	}
	if (j->p >= j->end)
		return fail(j);
	*s = start;
	*n = (size_t)(j->p - start);
	j->p++;
	return true;
}

static bool digits(struct jp *j)
{
	const char *s = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static bool parse_number(struct jp *j, const char **s, size_t *n)
{
	ws(j);
	*s = j->p;
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!digits(j))
		return fail(j);
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digits(j))
			return fail(j);
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return fail(j);
	}
	*n = (size_t)(j->p - *s);
	return true;
}

static bool parse_literal(struct jp *j)
{
	static const char *const lits[] = {"true", "false", "null"};
	ws(j);
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]);
		if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, lits[i], n)) {
			j->p += n;
			return true;
		}
	}
	return fail(j);
}

static bool parse_object(struct jp *j, int depth, key_fn fn, void *ctx)
{
	if (depth > 64 || !expect(j, '{'))
		return fail(j);
	if (peek(j, '}'))
		return expect(j, '}');
	do {
		const char *k;
		size_t kn;
		if (!parse_string(j, &k, &kn) || !expect(j, ':'))
			return false;
		if (!(fn && fn(j, k, kn, ctx)) && !parse_value(j, depth + 1))
			return false;
		if (!j->ok)
			return false;
	} while (peek(j, ',') && expect(j, ','));
	return expect(j, '}');
}

static bool parse_array(struct jp *j, int depth, bool (*elem)(struct jp *, int))
{
	if (depth > 64 || !expect(j, '['))
		return fail(j);
	if (peek(j, ']'))
		return expect(j, ']');
	do {
		if (!elem(j, depth + 1))
			return false;
	} while (peek(j, ',') && expect(j, ','));
	return expect(j, ']');
}

static bool parse_value(struct jp *j, int depth)
{
	const char *s;
	size_t n;
	ws(j);
	if (j->p >= j->end)
		return fail(j);
	switch (*j->p) {
	case '{':
		return parse_object(j, depth, NULL, NULL);
	case '[':
		return parse_array(j, depth, parse_value);
	case '"':
		return parse_string(j, &s, &n);
	case 't':
	case 'f':
	case 'n':
		return parse_literal(j);
	default:
		return parse_number(j, &s, &n);
	}
}

static bool key_is(const char *k, size_t kn, const char *want)
{
	return kn == strlen(want) && !memcmp(k, want, kn);
}

/* "123.456" microseconds to nanoseconds, exactly. */
static int64_t parse_ns(const char *s, size_t n, int *frac)
{
	int64_t us = 0, ns = 0;
	size_t i = 0;
	for (; i < n && s[i] != '.'; i++)
		us = us * 10 + (s[i] - '0');
	*frac = 0;
	if (i < n)
		for (i++; i < n; i++, (*frac)++)
			ns = ns * 10 + (s[i] - '0');
	for (int k = *frac; k < 3; k++)
		ns *= 10;
	return us * 1000 + ns;
}

static int64_t parse_int(const char *s, size_t n)
{
	int64_t v = 0;
	for (size_t i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static void copy_str(char *dst, size_t cap, const char *s, size_t n)
{
	n = n < cap - 1 ? n : cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static bool args_key(struct jp *j, const char *k, size_t kn, void *ctx)
{
	struct event *e = ctx;
	const char *s;
	size_t n;
	if (!key_is(k, kn, "correlation"))
		return false;
	if (parse_number(j, &s, &n))
		e->corr = parse_int(s, n);
	return true;
}

static bool event_string_key(struct jp *j, const char *k, size_t kn, struct event *e)
{
	const char *s;
	size_t n;
	if (key_is(k, kn, "ph")) {
		if (parse_string(j, &s, &n))
			e->ph = n ? s[0] : '?';
	} else if (key_is(k, kn, "cat")) {
		if (parse_string(j, &s, &n))
			copy_str(e->cat, sizeof(e->cat), s, n);
	} else if (key_is(k, kn, "name")) {
		if (parse_string(j, &s, &n))
			copy_str(e->name, sizeof(e->name), s, n);
	} else {
		return false;
	}
	return true;
}

static bool event_key(struct jp *j, const char *k, size_t kn, void *ctx)
{
	struct event *e = ctx;
	const char *s;
	size_t n;
	if (event_string_key(j, k, kn, e))
		return true;
	if (key_is(k, kn, "args")) {
		parse_object(j, 3, args_key, e); /* a failure is left in j->ok */
		return true;
	}
	bool is_ts = key_is(k, kn, "ts"), is_dur = key_is(k, kn, "dur");
	bool is_tid = key_is(k, kn, "tid"), is_id = key_is(k, kn, "id");
	if (!(is_ts || is_dur || is_tid || is_id) || peek(j, '"'))
		return false;
	if (!parse_number(j, &s, &n))
		return true;
	if (is_ts)
		e->ts = parse_ns(s, n, &e->ts_frac);
	else if (is_dur)
		e->dur = parse_ns(s, n, &e->dur_frac);
	else if (is_tid)
		e->tid = parse_int(s, n), e->tid_is_num = true;
	else
		e->id = parse_int(s, n);
	return true;
}

static bool parse_event(struct jp *j, int depth)
{
	struct doc *d = j->doc;
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 1024;
		d->ev = realloc(d->ev, d->cap * sizeof(*d->ev));
		cr_assert_not_null(d->ev);
	}
	struct event *e = &d->ev[d->n++];
	memset(e, 0, sizeof(*e));
	e->ts_frac = e->dur_frac = -1;
	return parse_object(j, depth, event_key, e);
}

static bool top_key(struct jp *j, const char *k, size_t kn, void *ctx)
{
	(void)ctx;
	if (!key_is(k, kn, "traceEvents"))
		return false;
	parse_array(j, 1, parse_event);
	return true;
}

/* Parses the whole buffer; false unless it is one valid JSON object. */
static bool parse_doc(const char *buf, size_t len, struct doc *d)
{
	struct jp j = {buf, buf + len, true, d};
	memset(d, 0, sizeof(*d));
	parse_object(&j, 0, top_key, NULL);
	ws(&j);
	return j.ok && j.p == j.end;
}

/* ---- helpers ----------------------------------------------------------------- */

static char *generate(uint64_t target, uint32_t streams, uint32_t rank, uint64_t seed, size_t *len,
                      uint64_t *events)
{
	struct trex_synth_params p = {target, streams, rank, seed};
	struct trex_error err;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	cr_assert_not_null(f);
	enum trex_status st = trex_synth_write(f, &p, events, &err);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(st, TREX_OK, "trex_synth_write: %s", err.message);
	return buf;
}

static void generate_doc(uint64_t target, uint32_t streams, struct doc *d)
{
	size_t len;
	uint64_t events;
	char *buf = generate(target, streams, 0, 42, &len, &events);
	cr_assert(parse_doc(buf, len, d), "generated trace is not valid JSON");
	cr_assert_eq(d->n, events);
	free(buf);
}

static bool is_gpu_activity(const struct event *e)
{
	return !strcmp(e->cat, "kernel") || !strcmp(e->cat, "gpu_memcpy") ||
	       !strcmp(e->cat, "gpu_memset");
}

static int cmp_tid_ts(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* Parents (longer) first when two start together. */
	return x->dur > y->dur ? -1 : x->dur < y->dur;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Copies the events that match into a fresh array, sorted by (tid, ts). */
static struct event *select_sorted(const struct doc *d, bool (*want)(const struct event *),
                                   size_t *n)
{
	struct event *out = malloc((d->n + 1) * sizeof(*out));
	cr_assert_not_null(out);
	*n = 0;
	for (size_t i = 0; i < d->n; i++)
		if (want(&d->ev[i]))
			out[(*n)++] = d->ev[i];
	qsort(out, *n, sizeof(*out), cmp_tid_ts);
	return out;
}

/* ---- tests ---------------------------------------------------------------------- */

Test(synthetic, valid_json_with_target_event_count)
{
	static const uint64_t targets[] = {5000, 20000, 100000};
	for (size_t i = 0; i < 3; i++) {
		struct doc d;
		generate_doc(targets[i], 2, &d);
		double off = ((double)d.n - (double)targets[i]) / (double)targets[i];
		cr_assert(off > -0.01 && off < 0.01, "%zu events for a target of %llu", d.n,
		          (unsigned long long)targets[i]);
		cr_assert_str_eq(d.ev[d.n - 1].name, "Record Window End");
		free(d.ev);
	}
}

Test(synthetic, same_seed_same_bytes_other_seed_other_bytes)
{
	size_t la, lb, lc;
	uint64_t ea, eb, ec;
	char *a = generate(30000, 2, 1, 7, &la, &ea);
	char *b = generate(30000, 2, 1, 7, &lb, &eb);
	char *c = generate(30000, 2, 1, 8, &lc, &ec);
	cr_assert_eq(la, lb);
	cr_assert(!memcmp(a, b, la), "same seed, different output");
	cr_assert(la != lc || memcmp(a, c, la), "different seeds, same output");
	free(a);
	free(b);
	free(c);
}

Test(synthetic, gpu_activities_never_overlap_on_a_stream)
{
	struct doc d;
	size_t n;
	generate_doc(60000, 3, &d);
	struct event *g = select_sorted(&d, is_gpu_activity, &n);
	cr_assert_gt(n, 1000);
	for (size_t i = 1; i < n; i++)
		if (g[i].tid == g[i - 1].tid)
			cr_assert_geq(g[i].ts, g[i - 1].ts + g[i - 1].dur,
			              "overlap on stream %lld at %lld", (long long)g[i].tid,
			              (long long)g[i].ts);
	free(g);
	free(d.ev);
}

static bool is_runtime(const struct event *e)
{
	return !strcmp(e->cat, "cuda_runtime");
}

static const struct event *find_runtime(const struct event *rt, size_t n, int64_t corr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rt[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && rt[lo].corr == corr ? &rt[lo] : NULL;
}

static int cmp_corr(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

Test(synthetic, every_kernel_has_its_launch_and_flow)
{
	struct doc d;
	size_t nrt, nflow = 0, nk = 0;
	generate_doc(40000, 2, &d);
	struct event *rt = select_sorted(&d, is_runtime, &nrt);
	qsort(rt, nrt, sizeof(*rt), cmp_corr);
	int64_t *flows = malloc(d.n * sizeof(*flows));
	for (size_t i = 0; i < d.n; i++)
		if (d.ev[i].ph == 'f' && !strcmp(d.ev[i].cat, "ac2g"))
			flows[nflow++] = d.ev[i].id;
	qsort(flows, nflow, sizeof(*flows), cmp_i64);
	for (size_t i = 0; i < d.n; i++) {
		const struct event *k = &d.ev[i];
		if (!is_gpu_activity(k))
			continue;
		nk++;
		const struct event *r = find_runtime(rt, nrt, k->corr);
		cr_assert_not_null(r, "no runtime call for correlation %lld", (long long)k->corr);
		cr_assert_lt(r->ts, k->ts, "kernel starts before its launch");
		cr_assert_not_null(bsearch(&k->corr, flows, nflow, sizeof(*flows), cmp_i64));
	}
	cr_assert_gt(nk, 1000);
	free(flows);
	free(rt);
	free(d.ev);
}

static bool is_cpu_slice(const struct event *e)
{
	return e->ph == 'X' && (!strcmp(e->cat, "cpu_op") || !strcmp(e->cat, "user_annotation") ||
	                        !strcmp(e->cat, "cuda_runtime"));
}

Test(synthetic, cpu_ops_nest_properly_per_thread)
{
	struct doc d;
	size_t n;
	int64_t stack[64];
	generate_doc(40000, 2, &d);
	struct event *c = select_sorted(&d, is_cpu_slice, &n);
	int depth = 0, max_depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && c[i].tid != c[i - 1].tid)
			depth = 0;
		while (depth && stack[depth - 1] <= c[i].ts)
			depth--;
		if (depth)
			cr_assert_leq(c[i].ts + c[i].dur, stack[depth - 1], "%s crosses its parent",
			              c[i].name);
		cr_assert_lt(depth, 64);
		stack[depth++] = c[i].ts + c[i].dur;
		max_depth = depth > max_depth ? depth : max_depth;
	}
	cr_assert_geq(max_depth, 4, "op trees should be 3-5 deep under ProfilerStep");
	free(c);
	free(d.ev);
}

Test(synthetic, times_are_microseconds_with_three_decimals)
{
	struct doc d;
	generate_doc(10000, 1, &d);
	for (size_t i = 0; i < d.n; i++) {
		const struct event *e = &d.ev[i];
		if (e->ts_frac >= 0)
			cr_assert_eq(e->ts_frac, 3, "event %zu: ts with %d decimals", i,
			             e->ts_frac);
		if (e->dur_frac >= 0)
			cr_assert_eq(e->dur_frac, 3, "event %zu: dur with %d decimals", i,
			             e->dur_frac);
	}
	free(d.ev);
}

Test(synthetic, one_stream_per_compute_stream_plus_nccl)
{
	struct doc d;
	int64_t tids[16];
	size_t ntid = 0, nccl = 0;
	int64_t nccl_tid = -1;
	generate_doc(30000, 3, &d);
	for (size_t i = 0; i < d.n; i++) {
		const struct event *e = &d.ev[i];
		if (strcmp(e->cat, "kernel"))
			continue;
		if (!strncmp(e->name, "nccl", 4)) {
			cr_assert(nccl_tid < 0 || nccl_tid == e->tid);
			nccl_tid = e->tid;
			nccl++;
		}
		size_t j = 0;
		while (j < ntid && tids[j] != e->tid)
			j++;
		if (j == ntid && ntid < 16)
			tids[ntid++] = e->tid;
	}
	cr_assert_eq(ntid, 4);
	cr_assert_gt(nccl, 0);
	free(d.ev);
}

Test(synthetic, demo_is_a_small_complete_trace)
{
	char *buf;
	size_t len;
	struct trex_error err;
	struct doc d;
	cr_assert_eq(trex_synth_demo(&buf, &len, &err), TREX_OK);
	cr_assert_not_null(buf);
	cr_assert_gt(len, 0);
	cr_assert(parse_doc(buf, len, &d), "demo trace is not valid JSON");
	cr_assert(d.n >= 2000 && d.n <= 5000, "demo has %zu events", d.n);
	size_t steps = 0, memcpy_n = 0;
	for (size_t i = 0; i < d.n; i++) {
		steps += !strcmp(d.ev[i].cat, "user_annotation") &&
		         !strncmp(d.ev[i].name, "ProfilerStep#", 13);
		memcpy_n += !strcmp(d.ev[i].cat, "gpu_memcpy");
	}
	cr_assert(steps >= 3 && steps <= 4, "%zu ProfilerSteps", steps);
	cr_assert_gt(memcpy_n, 0);
	free(d.ev);
	free(buf);
}

Test(synthetic, write_errors_and_bad_params_are_reported)
{
	struct trex_error err;
	struct trex_synth_params p = {20000, 0, 0, 1};
	cr_assert_eq(trex_synth_write(stdout, &p, NULL, &err), TREX_USAGE);
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		cr_skip_test("no /dev/full");
	p.streams = 1;
	cr_assert_eq(trex_synth_write(f, &p, NULL, &err), TREX_IO);
	cr_assert_eq(err.status, TREX_IO);
	fclose(f);
}
