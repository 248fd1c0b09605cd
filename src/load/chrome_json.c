#include "config.h"

#include "formats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_parse.h"
#include "json_scan.h"

/* An incomplete event longer than this, in a stream window, is taken for
 * corruption (a lost bracket or quote) when an event boundary follows it,
 * rather than buffering the rest of the file behind it. */
#define CJ_RESYNC_LIMIT (16u << 20)



#define CJ_PROGRESS_EVENTS 65536

void cj_parser_init(struct cj_parser *ps, struct trex_builder *b, struct trex_load_job *job)
{
	memset(ps, 0, sizeof *ps);
	ps->b = b;
	ps->job = job;
	ps->state = CJ_TOP_START;
}

void cj_parser_free(struct cj_parser *ps)
{
	free(ps->scratch);
	ps->scratch = NULL;
	free(ps->names);
	ps->names = NULL;
}

const char *cj_find_boundary(const char *p, const char *end)
{
	while (p < end) {
		const char *brace = memchr(p, '}', (size_t)(end - p));
		if (!brace)
			return NULL;
		const char *q = json_skip_ws(brace + 1, end);
		if (q < end && *q == ']')
			return q;
		if (q < end && *q == ',') {
			q = json_skip_ws(q + 1, end);
			if (q < end && *q == '{')
				return q;
		}
		p = brace + 1;
	}
	return NULL;
}

/* Reports progress every few thousand events; notices cancellation. */
static void cj_progress(struct cj_parser *ps, const char *at)
{
	if (!ps->job || ps->st.events - ps->progress_events < CJ_PROGRESS_EVENTS)
		return;
	uint64_t off = cj_offset(ps, at);
	/* streams report their bytes (decoded and compressed) per window */
	uint64_t bytes = ps->stream ? 0 : off - ps->progress_bytes_from;
	if (trex_load_job_progress(ps->job, bytes, bytes, ps->st.events - ps->progress_events))
		ps->cancelled = true;
	ps->progress_bytes_from = off;
	ps->progress_events = ps->st.events;
}

/* Accounts for the corrupt bytes [start, next) and resumes at next. */
static const char *cj_skip_to(struct cj_parser *ps, const char *start, const char *bad,
			      const char *next)
{
	cj_problem(ps, bad, "expected %s", ps->why ? ps->why : "a complete event");
	ps->st.integrity.syntax_errors++;
	ps->st.integrity.bytes_skipped += (uint64_t)(next - start);
	ps->expect_value = true;
	return next;
}

/* Skips a corrupt spot at bad inside the element that began at start.
 * Returns where to resume, or NULL to wait for more input. */
static const char *cj_resync(struct cj_parser *ps, const char *start, const char *bad,
			     const char *end, bool final)
{
	const char *next = cj_find_boundary(bad > start ? bad : start + 1, end);
	if (!next && !final)
		return NULL;
	return cj_skip_to(ps, start, bad, next ? next : end);
}

/* An array element at p. Returns the position after it, or NULL when more
 * input is needed (then *pp stays at p). */
static const char *cj_element(struct cj_parser *ps, const char *p, const char *end, bool final)
{
	const char *q;
	ps->why = NULL;
	int st = *p == '{' ? cj_parse_event(ps, p, end, &q) : (int)json_skip_value(p, end, &q);
	if (st == JSON_OK) {
		if (*p != '{')
			ps->st.integrity.bad_values++;
		ps->expect_value = false;
		return q;
	}
	if (st == JSON_INCOMPLETE) {
		bool huge = (size_t)(end - p) > CJ_RESYNC_LIMIT;
		if (!final && !huge)
			return NULL;
		/* corruption if another event follows, else a truncated tail */
		const char *next = cj_find_boundary(p + 1, end);
		if (!next)
			return NULL;
		ps->why = "the end of this event before the next one";
		return cj_skip_to(ps, p, p, next);
	}
	if (!ps->why)
		ps->why = *p == '{' ? "a value" : "an event object";
	return cj_resync(ps, p, q, end, final);
}

static enum cj_stop cj_array(struct cj_parser *ps, const char **pp, const char *end,
			     const char *stop_at, bool final)
{
	const char *p = *pp;
	for (;;) {
		*pp = p = json_skip_ws(p, end);
		if (p >= end || ps->cancelled || ps->oom)
			return CJ_NEED_MORE;
		if (ps->expect_value) {
			if (stop_at && p >= stop_at)
				return CJ_STOP_AT;
			if (*p == ']') {
				*pp = p + 1;
				return CJ_END;
			}
			const char *q = cj_element(ps, p, end, final);
			if (!q)
				return CJ_NEED_MORE;
			p = q;
			cj_progress(ps, p);
		} else if (*p == ',') {
			ps->expect_value = true;
			p++;
		} else if (*p == ']') {
			*pp = p + 1;
			return CJ_END;
		} else {
			ps->why = "',' or ']' between events";
			const char *q = cj_resync(ps, p, p, end, final);
			if (!q)
				return CJ_NEED_MORE;
			p = q;
		}
	}
}

/* ---- the top-level object ------------------------------------------------------------- */

static bool key_is(const char *key, size_t klen, const char *lit)
{
	return klen == strlen(lit) && memcmp(key, lit, klen) == 0;
}

/* distributedInfo: {"rank": N, ...}; only its own top level is searched. */
static void cj_read_rank(struct cj_parser *ps, const char *p, const char *end)
{
	p = json_skip_ws(p + 1, end);
	while (p < end && *p == '"') {
		unsigned f = 0;
		const char *kend = json_string_end(p + 1, end, &f);
		if (!kend)
			return;
		bool is_rank = key_is(p + 1, (size_t)(kend - p - 1), "rank");
		p = json_skip_ws(kend + 1, end);
		if (p >= end || *p != ':')
			return;
		p = json_skip_ws(p + 1, end);
		const char *q;
		int64_t v;
		bool is_int = false, sat = false;
		if (is_rank && *p != '"' && json_parse_int(p, end, &v, &is_int, &sat, &q) == JSON_OK &&
		    is_int && !sat) {
			ps->st.has_rank = true;
			ps->st.rank = v;
			return;
		}
		if (is_rank && *p == '"') { /* newest kineto may quote numbers */
			v = strtoll(p + 1, NULL, 10);
			ps->st.has_rank = true;
			ps->st.rank = v;
			return;
		}
		if (json_skip_value(p, end, &q) != JSON_OK)
			return;
		p = json_skip_ws(q, end);
		if (p < end && *p == ',')
			p = json_skip_ws(p + 1, end);
	}
}

static void cj_top_value(struct cj_parser *ps, const char *key, size_t klen, const char *p,
			 const char *q)
{
	if (key_is(key, klen, "deviceProperties"))
		ps->st.features |= CJ_DEVICE_PROPERTIES;
	else if (key_is(key, klen, "schemaVersion"))
		ps->st.features |= CJ_SCHEMA_VERSION;
	else if (key_is(key, klen, "distributedInfo") && *p == '{')
		cj_read_rank(ps, p, q);
	else if (key_is(key, klen, "baseTimeNanoseconds")) {
		int64_t v;
		bool is_int = false, sat = false;
		const char *r;
		if (json_parse_int(p, q + 1, &v, &is_int, &sat, &r) == JSON_OK && is_int && !sat) {
			ps->st.base_time_ns = v;
			ps->st.features |= CJ_BASE_TIME;
		}
	}
}

static enum cj_stop cj_fatal(struct cj_parser *ps, const char *at, struct trex_error *err,
			     const char *what)
{
	trex_error_set(err, TREX_FORMAT, NULL, (int64_t)cj_offset(ps, at), "expected %s", what);
	return CJ_FATAL;
}

/* One "key": value member of the top-level object at p ('"'). */
static enum cj_stop cj_top_member(struct cj_parser *ps, const char **pp, const char *end,
				  struct trex_error *err)
{
	const char *p = *pp;
	unsigned f = 0;
	const char *kend = json_string_end(p + 1, end, &f);
	if (!kend)
		return CJ_NEED_MORE;
	const char *key = p + 1;
	size_t klen = (size_t)(kend - key);
	p = json_skip_ws(kend + 1, end);
	if (p >= end)
		return CJ_NEED_MORE;
	if (*p != ':')
		return cj_fatal(ps, p, err, "':' after a top-level key");
	p = json_skip_ws(p + 1, end);
	if (p >= end)
		return CJ_NEED_MORE;
	if (key_is(key, klen, "traceEvents") && *p == '[' && !(ps->st.features & CJ_TRACE_EVENTS)) {
		ps->st.features |= CJ_TRACE_EVENTS;
		ps->state = CJ_ARRAY;
		ps->expect_value = true;
		*pp = p + 1;
		return CJ_ARRAY_OPEN;
	}
	const char *q;
	int st = json_skip_value(p, end, &q);
	if (st == JSON_INCOMPLETE)
		return CJ_NEED_MORE;
	if (st == JSON_SYNTAX)
		return cj_fatal(ps, q, err, "a JSON value");
	cj_top_value(ps, key, klen, p, q);
	ps->state = CJ_TOP_SEP;
	*pp = q;
	return CJ_STOP_AT; /* "member done": the caller loops */
}

static enum cj_stop cj_top_start(struct cj_parser *ps, const char **pp, const char *end,
				 struct trex_error *err)
{
	const char *p = *pp;
	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* UTF-8 byte order mark */
	p = json_skip_ws(p, end);
	if (p >= end)
		return CJ_NEED_MORE;
	if (*p == '[') {
		ps->st.features |= CJ_BARE_ARRAY;
		ps->state = CJ_ARRAY;
		ps->expect_value = true;
		*pp = p + 1;
		return CJ_ARRAY_OPEN;
	}
	if (*p != '{')
		return cj_fatal(ps, p, err, "'[' or '{' at the start of a JSON trace");
	ps->state = CJ_TOP_KEY;
	*pp = p + 1;
	return CJ_STOP_AT;
}

/* TOP_KEY / TOP_SEP / DONE states. */
static enum cj_stop cj_top_step(struct cj_parser *ps, const char **pp, const char *end,
				struct trex_error *err)
{
	const char *p = *pp = json_skip_ws(*pp, end);
	if (ps->state == CJ_DONE) {
		if (p < end) { /* data after the trace: ignored, counted */
			cj_problem(ps, p, "expected the end of input after the trace");
			ps->st.integrity.bytes_ignored += (uint64_t)(end - p);
			*pp = end;
		}
		return CJ_END;
	}
	if (p >= end)
		return CJ_NEED_MORE;
	if (*p == '}') {
		ps->state = CJ_DONE;
		*pp = p + 1;
		return CJ_STOP_AT;
	}
	if (ps->state == CJ_TOP_SEP) {
		if (*p != ',')
			return cj_fatal(ps, p, err, "',' or '}' in the top-level object");
		ps->state = CJ_TOP_KEY;
		*pp = p + 1;
		return CJ_STOP_AT;
	}
	if (*p != '"')
		return cj_fatal(ps, p, err, "'\"' starting a top-level key");
	return cj_top_member(ps, pp, end, err);
}

enum cj_stop cj_run(struct cj_parser *ps, const char **pp, const char *end, const char *stop_at,
		    bool final, struct trex_error *err)
{
	for (;;) {
		enum cj_stop r;
		if (ps->state == CJ_TOP_START)
			r = cj_top_start(ps, pp, end, err);
		else if (ps->state == CJ_ARRAY)
			r = cj_array(ps, pp, end, stop_at, final);
		else
			r = cj_top_step(ps, pp, end, err);
		if (r == CJ_ARRAY_OPEN && ps->stop_on_array)
			return r;
		if (ps->state == CJ_ARRAY && r == CJ_END) {
			ps->state = (ps->st.features & CJ_BARE_ARRAY) ? CJ_DONE : CJ_TOP_SEP;
			continue;
		}
		if (r == CJ_END || r == CJ_NEED_MORE || r == CJ_FATAL)
			return r;
		if (r == CJ_STOP_AT && ps->state == CJ_ARRAY)
			return r;
	}
}
