#include "config.h"

#include "formats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_parse.h"
#include "json_scan.h"

/* An incomplete event longer than this, in a stream window, is taken for
 * corruption (a lost bracket or quote) when an event boundary follows it,
 * rather than buffering the rest of the file behind it. */
#define CJ_RESYNC_LIMIT (16u << 20)

#define CJ_PROGRESS_EVENTS 65536
/* Bytes behind the parse point a mapped part keeps mapped (the event in
 * hand and the seam the chain check reads stay clear of it). */
#define CJ_RELEASE_BEHIND ((ptrdiff_t)1 << 20)
/* ... handed back in batches this large: each unmapping interrupts the
 * other threads to flush their TLBs (batches of 16 MiB: -j2 4 % slower). */
#define CJ_RELEASE_BATCH ((ptrdiff_t)128 << 20)

void cj_parser_init(struct cj_parser *ps, struct trex_builder *b, struct trex_load_job *job)
{
	memset(ps, 0, sizeof *ps);
	ps->b = b;
	ps->job = job;
	ps->state = CJ_TOP_START;
	json_lits_init(&ps->lits);
	bool scan = job && job->opts && job->opts->scan_every_member;
	ps->lit_event = scan ? JSON_LIT_NONE : JSON_LIT_EVENT;
	ps->lit_args = scan ? JSON_LIT_NONE : JSON_LIT_ARGS;
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
	/* what lies well behind is parsed: a long part need not keep it mapped */
	if (ps->release_from && at - ps->release_from > CJ_RELEASE_BATCH) {
		trex_source_map_done(ps->job->source, ps->release_from, at - CJ_RELEASE_BEHIND);
		ps->release_from = at - CJ_RELEASE_BEHIND;
	}
}

/* ---- resynchronisation ---------------------------------------------------------------
 * After damage the parser resumes at the first place, from just after
 * where the damaged thing began, where a complete event parses (an object
 * with a "ph" that is no member's value); only when none follows at all,
 * at a top-level key with its value, the ']' closing the events array or
 * the '}' closing the trace. Everything between is counted as skipped.
 * The search looks only at the bytes from the damaged thing on, never at
 * the parser's state or what came before, so a part of the parallel loader
 * and any stream window resume exactly where a serial parse does. */

enum cj_resume {
	CJ_RS_EVENT,  /* an event starts at the place */
	CJ_RS_MEMBER, /* a top-level "key": value */
	CJ_RS_CLOSE,  /* the ']' closing the events array */
	CJ_RS_END,    /* the '}' closing the trace, only whitespace after it */
	CJ_RS_NONE,   /* nothing: the input ends */
	CJ_RS_MORE,   /* undecided before the end of the bytes at hand */
};

/* What a resynchronisation may resume at besides events. */
enum {
	CJ_ALLOW_MEMBER = 1u << 0,
	CJ_ALLOW_CLOSE = 1u << 1,
	CJ_ALLOW_END = 1u << 2,
	CJ_ALLOW_TRACE_EVENTS = 1u << 3, /* of the members, only "traceEvents": [ */
};

/* The last byte before p that is not whitespace (*at: where), or 0 at base. */
static char prev_byte_at(const struct cj_parser *ps, const char *p, const char **at)
{
	while (p > ps->base && json_is_ws((unsigned char)p[-1]))
		p--;
	*at = p - 1;
	return p > ps->base ? p[-1] : 0;
}

static char prev_byte(const struct cj_parser *ps, const char *p)
{
	const char *at;
	return prev_byte_at(ps, p, &at);
}

/* Whether p is preceded by a key's colon ("key": p): a member value, not
 * an array element. */
static bool after_key(const struct cj_parser *ps, const char *p)
{
	const char *colon;
	return prev_byte_at(ps, p, &colon) == ':' && prev_byte(ps, colon) == '"';
}

/* A place to resume at is an event of at most CJ_RESUME_SPAN bytes: the
 * search probes every '{' after damage, and a probe that had to run to the
 * end of the input each time would make it quadratic. */
#define CJ_RESUME_SPAN (64u << 10)

/* The bytes a probe at p may look at: up to CJ_RESUME_SPAN, or to end;
 * *short_window: the window ends before that and more input may follow. */
static const char *cj_probe_end(const char *p, const char *end, bool final, bool *short_window)
{
	size_t avail = (size_t)(end - p);
	*short_window = avail < CJ_RESUME_SPAN && !final;
	return avail < CJ_RESUME_SPAN ? end : p + CJ_RESUME_SPAN;
}

/* The first event at or after from; CJ_RS_NONE or CJ_RS_MORE if none.
 * Once the input is complete, a search to its end that found none is
 * remembered: damage after it (garbage at the top level) would search
 * again to the end each time. A search over less (one top-level value)
 * says nothing of what follows it, so it is not remembered. */
static enum cj_resume cj_next_event(struct cj_parser *ps, const char *from, const char *end,
                                    bool final, const char **at)
{
	if (final && ps->no_event_from && cj_offset(ps, from) + 1 >= ps->no_event_from)
		return CJ_RS_NONE;
	for (const char *p = from; p < end; p++) {
		const char *q;
		bool short_window;
		p = memchr(p, '{', (size_t)(end - p));
		if (!p)
			break;
		if (after_key(ps, p))
			continue; /* a member's value, not an array element */
		int st = cj_probe_event(ps, p, cj_probe_end(p, end, final, &short_window), &q);
		if (st == JSON_OK) {
			*at = p;
			return CJ_RS_EVENT;
		}
		if (st == JSON_INCOMPLETE && short_window)
			return CJ_RS_MORE;
	}
	if (final && end == ps->limit)
		ps->no_event_from = cj_offset(ps, from) + 1;
	return final ? CJ_RS_NONE : CJ_RS_MORE;
}

/* A top-level "key": value at p ('"') followed by ',' or '}' or the end
 * (of the input, or of CJ_RESUME_SPAN bytes). */
static bool cj_member_at(const char *p, const char *end, unsigned allow)
{
	bool short_window;
	end = cj_probe_end(p, end, true, &short_window);
	unsigned f = 0;
	const char *kend = json_string_end(p + 1, end, &f), *q;
	if (!kend)
		return false;
	bool events_key = kend - p - 1 == 11 && memcmp(p + 1, "traceEvents", 11) == 0;
	q = json_skip_ws(kend + 1, end);
	if (q >= end || *q != ':')
		return false;
	q = json_skip_ws(q + 1, end);
	if (events_key && q < end && *q == '[')
		return true;
	if (allow & CJ_ALLOW_TRACE_EVENTS)
		return false;
	if (json_skip_value(q, end, &q) != JSON_OK)
		return false;
	q = json_skip_ws(q, end);
	return q >= end || *q == ',' || *q == '}';
}

/* The first member, closing ']' or final '}' at or after from (the input
 * is complete: end is its end). */
static enum cj_resume cj_next_structure(struct cj_parser *ps, const char *from, const char *end,
                                        unsigned allow, const char **at)
{
	for (const char *p = from; p < end; p++) {
		char c = *p, before;
		if (c != '"' && c != ']' && c != '}')
			continue;
		*at = p;
		const char *q = json_skip_ws(p + 1, end);
		if (c == ']' && (allow & CJ_ALLOW_CLOSE) && (q >= end || *q == ',' || *q == '}'))
			return CJ_RS_CLOSE;
		if (c == '}' && (allow & CJ_ALLOW_END) && q >= end)
			return CJ_RS_END;
		before = prev_byte(ps, p);
		if (c == '"' && (allow & (CJ_ALLOW_MEMBER | CJ_ALLOW_TRACE_EVENTS)) &&
		    (p == from || before == ',' || before == '{') && cj_member_at(p, end, allow))
			return CJ_RS_MEMBER;
	}
	return CJ_RS_NONE;
}

/* Events are looked for from ev_from, the rest from from (ev_from <= from:
 * a top-level value before the damage may have swallowed an event). */
static enum cj_resume cj_find_resume(struct cj_parser *ps, const char *ev_from, const char *from,
                                     const char *end, bool final, unsigned allow, const char **at)
{
	enum cj_resume r = cj_next_event(ps, ev_from, end, final, at);
	if (r != CJ_RS_NONE || !allow)
		return r;
	return cj_next_structure(ps, from, end, allow, at);
}

/* Whether the bytes before p name a "traceEvents" key: the object form. */
static bool cj_object_form_before(const struct cj_parser *ps, const char *p)
{
	return memmem(ps->base, (size_t)(p - ps->base), "\"traceEvents\"", 13) != NULL;
}

/* Damage found at bad, in something that began at start: skips to where
 * cj_find_resume says and sets the state for it. Returns where to go on,
 * or NULL to wait for more input (the whole span is seen again then);
 * at the end of input with nothing to resume at, the span runs to end. */
static const char *cj_resync(struct cj_parser *ps, const char *start, const char *bad,
                             const char *from, const char *end, bool final, unsigned allow)
{
	const char *at = end;
	char why[96];
	const char *ev_from = start < from ? start + 1 : from;
	enum cj_resume r = cj_find_resume(ps, ev_from, from, end, final, allow, &at);
	if (r == CJ_RS_MORE)
		return NULL;
	if (r == CJ_RS_NONE)
		at = end;
	snprintf(why, sizeof why, "expected %s", ps->why ? ps->why : "a complete event");
	cj_note_span(ps, TREX_INTEG_syntax_errors, start, bad, at, why);
	switch (r) {
	case CJ_RS_EVENT:
		if (ps->state == CJ_TOP_START && !cj_object_form_before(ps, at))
			ps->st.features |= CJ_BARE_ARRAY;
		else if (!(ps->st.features & CJ_BARE_ARRAY))
			ps->st.features |= CJ_TRACE_EVENTS;
		ps->state = CJ_ARRAY;
		ps->expect_value = true;
		return at;
	case CJ_RS_MEMBER:
		ps->state = CJ_TOP_KEY;
		return at;
	case CJ_RS_CLOSE:
		ps->state = CJ_ARRAY;
		ps->expect_value = false; /* the array loop takes the ']' */
		return at;
	case CJ_RS_END:
		ps->state = CJ_TOP_SEP;
		return at;
	default:
		return end;
	}
}

/* What damage inside the events array may resume at. */
static unsigned cj_array_allow(const struct cj_parser *ps)
{
	return ps->st.features & CJ_BARE_ARRAY ? CJ_ALLOW_CLOSE
	                                       : CJ_ALLOW_CLOSE | CJ_ALLOW_MEMBER | CJ_ALLOW_END;
}

/* An array element at p. Returns the position after it, or NULL when more
 * input is needed (then *pp stays at p). */
static const char *cj_element(struct cj_parser *ps, const char *p, const char *end, bool final)
{
	const char *q = p;
	int st = JSON_SYNTAX;
	ps->why = NULL;
	if (*p == '{')
		st = cj_parse_event(ps, p, end, &q);
	if (st == JSON_OK) {
		ps->expect_value = false;
		return q;
	}
	if (st == JSON_INCOMPLETE) {
		/* a truncated tail, unless an event follows (a lost bracket or
		 * quote): then the span is damage */
		bool huge = (size_t)(end - p) > CJ_RESYNC_LIMIT;
		if (!final && !huge)
			return NULL;
		const char *at;
		if (cj_next_event(ps, p + 1, end, final || !huge, &at) != CJ_RS_EVENT)
			return NULL;
		ps->why = "the end of this event before the next one";
		return cj_resync(ps, p, p, p + 1, end, final, cj_array_allow(ps));
	}
	if (!ps->why || *p != '{')
		ps->why = "an event object";
	return cj_resync(ps, p, q, p + 1, end, final, cj_array_allow(ps));
}

static enum cj_stop cj_array(struct cj_parser *ps, const char **pp, const char *end,
                             const char *stop_at, bool final)
{
	const char *p = *pp;
	for (;;) {
		*pp = p = json_skip_ws(p, end);
		if (p >= end || ps->cancelled || ps->oom)
			return CJ_NEED_MORE;
		if (ps->state != CJ_ARRAY)
			return CJ_STOP_AT; /* resynchronised at the top level */
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
			const char *q = cj_resync(ps, p, p, p, end, final, cj_array_allow(ps));
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
		if (is_rank && *p != '"' &&
		    json_parse_int(p, end, &v, &is_int, &sat, &q) == JSON_OK && is_int && !sat) {
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

/* The step after a resynchronisation at the top level: the events array
 * when it landed on an event. */
static enum cj_stop cj_top_resumed(const struct cj_parser *ps)
{
	return ps->state == CJ_ARRAY ? CJ_ARRAY_OPEN : CJ_STOP_AT;
}

/* Damage in the top-level object at bad (something that began at start):
 * resumes at an event, a member or the closing '}'. A ']' that just closed
 * the events array, with nothing but this damage after it, is taken for
 * part of the damage (a flipped ','). */
/* Damage in the top-level object at bad, in something that began at
 * start: resumes at an event, a member or the closing '}'. What is before
 * start is never looked at again, so a stream window's edge changes
 * nothing. */
static enum cj_stop cj_top_damage(struct cj_parser *ps, const char **pp, const char *start,
                                  const char *bad, const char *from, const char *end, bool final,
                                  const char *why)
{
	ps->why = why;
	const char *q = cj_resync(ps, start, bad, from, end, final, CJ_ALLOW_MEMBER | CJ_ALLOW_END);
	if (!q)
		return CJ_NEED_MORE;
	*pp = q;
	return cj_top_resumed(ps);
}

/* A key other than "traceEvents" before an array of events (p, '['), and
 * no events array yet: a damaged key. 1: it is, 0: it is not, -1: more
 * input is needed to tell. */
static int cj_renamed_events(struct cj_parser *ps, const char *p, const char *end, bool final)
{
	const char *q = json_skip_ws(p + 1, end), *r;
	if (ps->st.features & (CJ_TRACE_EVENTS | CJ_BARE_ARRAY))
		return 0;
	if (q >= end)
		return final ? 0 : -1;
	if (*q != '{')
		return 0;
	int st = cj_probe_event(ps, q, end, &r);
	if (st == JSON_INCOMPLETE && !final)
		return -1;
	return st == JSON_OK;
}

/* Whether a top-level value [p, q) holds complete events while no events
 * array was seen: a damaged quote or bracket made it swallow them. */
static bool cj_value_hides_events(struct cj_parser *ps, const char *p, const char *q)
{
	const char *at;
	if ((ps->st.features & (CJ_TRACE_EVENTS | CJ_BARE_ARRAY)) || (*p != '{' && *p != '['))
		return false;
	return memmem(p, (size_t)(q - p), "\"ph\"", 4) &&
	       cj_next_event(ps, p + 1, q, true, &at) == CJ_RS_EVENT;
}

static enum cj_stop cj_open_events(struct cj_parser *ps, const char **pp, const char *p)
{
	ps->st.features |= CJ_TRACE_EVENTS;
	ps->state = CJ_ARRAY;
	ps->expect_value = true;
	*pp = p + 1;
	return CJ_ARRAY_OPEN;
}

/* One "key": value member of the top-level object at p ('"'). */
static enum cj_stop cj_top_member(struct cj_parser *ps, const char **pp, const char *end,
                                  bool final, struct trex_error *err)
{
	const char *p = *pp, *start = *pp, *q;
	unsigned f = 0;
	const char *kend = json_string_end(p + 1, end, &f);
	(void)err;
	if (!kend)
		return final ? cj_top_damage(ps, pp, start, start, start + 1, end, final,
		                             "'\"' closing a top-level key")
		             : CJ_NEED_MORE;
	const char *key = p + 1;
	size_t klen = (size_t)(kend - key);
	p = json_skip_ws(kend + 1, end);
	if (p >= end)
		return CJ_NEED_MORE;
	if (*p != ':')
		return cj_top_damage(ps, pp, start, p, start + 1, end, final,
		                     "':' after a top-level key");
	p = json_skip_ws(p + 1, end);
	if (p >= end)
		return CJ_NEED_MORE;
	if (*p == '[' && key_is(key, klen, "traceEvents"))
		return cj_open_events(ps, pp, p);
	if (key_is(key, klen, "traceEvents")) {
		/* not an array: a damaged '[', or a value swallowing events */
		int st = *p == '{' ? cj_probe_event(ps, p, end, &q) : JSON_SYNTAX;
		if (st == JSON_INCOMPLETE && !final)
			return CJ_NEED_MORE;
		if (st == JSON_OK) { /* the '[' was lost: the array starts here */
			cj_note_span(ps, TREX_INTEG_syntax_errors, p, p, p,
			             "expected '[' opening the events array");
			cj_open_events(ps, pp, p);
			*pp = p;
			return CJ_ARRAY_OPEN;
		}
		return cj_top_damage(ps, pp, p, p, p + 1, end, final,
		                     "'[' opening the events array");
	}
	if (*p == '[') {
		int renamed = cj_renamed_events(ps, p, end, final);
		if (renamed < 0)
			return CJ_NEED_MORE;
		if (renamed) {
			cj_note_span(ps, TREX_INTEG_syntax_errors, start, start, start,
			             "expected \"traceEvents\" naming the array of events");
			return cj_open_events(ps, pp, p);
		}
	}
	/* Once a top-level value ran to the end of the input, the object is
	 * damaged and every later member's value may run there too: such a
	 * skip looks at most CJ_RESUME_SPAN bytes, so that each damaged spot
	 * costs that much rather than the rest of the input. */
	const char *limit = final && ps->top_ran_out && (size_t)(end - p) > CJ_RESUME_SPAN
	                        ? p + CJ_RESUME_SPAN
	                        : end;
	int st = json_skip_value(p, limit, &q);
	if (st == JSON_INCOMPLETE && !final)
		return CJ_NEED_MORE;
	if (st == JSON_INCOMPLETE && limit == end)
		ps->top_ran_out = true;
	if (st != JSON_OK) {
		const char *at;
		/* a value running to the end of input: cut input, unless
		 * something follows to resume at (a lost bracket) */
		unsigned allow = CJ_ALLOW_MEMBER | CJ_ALLOW_END;
		if (st == JSON_INCOMPLETE &&
		    cj_find_resume(ps, start + 1, start + 1, end, true, allow, &at) == CJ_RS_NONE)
			return CJ_NEED_MORE;
		return cj_top_damage(ps, pp, start, st == JSON_SYNTAX ? q : p, start + 1, end,
		                     final, "a JSON value");
	}
	if (cj_value_hides_events(ps, p, q))
		return cj_top_damage(ps, pp, start, p, start + 1, end, final, "a JSON value");
	cj_top_value(ps, key, klen, p, q);
	cj_keep_member(ps, key, klen, p, q);
	ps->state = CJ_TOP_SEP;
	*pp = q;
	return CJ_STOP_AT; /* "member done": the caller loops */
}

/* Events begin with one of these keys; a trace object never does. */
static bool cj_event_key(const char *key, size_t klen)
{
	static const char *const keys[] = {"ph",   "name", "cat", "pid", "tid", "ts", "dur",
	                                   "args", "attr", "id",  "s",   "bp",  "tts"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (key_is(key, klen, keys[i]))
			return true;
	return false;
}

/* The input starts with an event followed by ',': a bare array whose '['
 * was lost. 1: it does, 0: it does not, -1: more input is needed to tell.
 * Only an object starting with an event key is looked into, and only its
 * first CJ_PROBE_LIMIT bytes, so a trace object costs nothing here. */
#define CJ_PROBE_LIMIT (64u << 10)
static int cj_lost_array_open(struct cj_parser *ps, const char *p, const char *end, bool final)
{
	const char *key = json_skip_ws(p + 1, end), *kend, *q;
	unsigned f = 0;
	bool cut = (size_t)(end - p) < CJ_PROBE_LIMIT && !final;
	const char *limit =
	    cut ? end
	        : p + ((size_t)(end - p) < CJ_PROBE_LIMIT ? (size_t)(end - p) : CJ_PROBE_LIMIT);
	if (key >= end || *key != '"' || !(kend = json_string_end(key + 1, end, &f)))
		return cut ? -1 : 0;
	if (!cj_event_key(key + 1, (size_t)(kend - key - 1)))
		return 0;
	int st = cj_probe_event(ps, p, limit, &q);
	if (st == JSON_INCOMPLETE)
		return cut ? -1 : 0;
	q = st == JSON_OK ? json_skip_ws(q, limit) : limit;
	if (q >= limit)
		return cut ? -1 : 0;
	return *q == ',';
}

static enum cj_stop cj_top_start(struct cj_parser *ps, const char **pp, const char *end, bool final,
                                 struct trex_error *err)
{
	const char *p = *pp, *at;
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
	int lost = *p == '{' ? cj_lost_array_open(ps, p, end, final) : 0;
	if (lost < 0)
		return CJ_NEED_MORE;
	if (lost) {
		cj_note_span(ps, TREX_INTEG_syntax_errors, p, p, p,
		             "expected '[' opening the events array");
		ps->st.features |= CJ_BARE_ARRAY;
		ps->state = CJ_ARRAY;
		ps->expect_value = true;
		*pp = p;
		return CJ_ARRAY_OPEN;
	}
	if (*p == '{') {
		ps->state = CJ_TOP_KEY;
		*pp = p + 1;
		return CJ_STOP_AT;
	}
	/* a damaged first byte: salvage only what is clearly a trace */
	enum cj_resume r = cj_find_resume(ps, p, p, end, final, CJ_ALLOW_TRACE_EVENTS, &at);
	if (r == CJ_RS_MORE)
		return CJ_NEED_MORE;
	if (r == CJ_RS_NONE)
		return cj_fatal(ps, p, err, "'[' or '{' at the start of a JSON trace");
	ps->why = "'[' or '{' at the start of a JSON trace";
	*pp = cj_resync(ps, p, p, p, end, final, CJ_ALLOW_TRACE_EVENTS);
	return cj_top_resumed(ps);
}

/* Data after the closing '}' (or ']'): more of the trace when something
 * to resume at follows, else ignored. */
static enum cj_stop cj_after_trace(struct cj_parser *ps, const char **pp, const char *end,
                                   bool final)
{
	const char *p = *pp, *at;
	unsigned allow = ps->st.features & CJ_BARE_ARRAY ? 0 : CJ_ALLOW_MEMBER | CJ_ALLOW_END;
	enum cj_resume r = cj_find_resume(ps, p, p, end, final, allow, &at);
	if (r == CJ_RS_MORE)
		return CJ_NEED_MORE;
	if (r == CJ_RS_NONE) {
		cj_note_span(ps, TREX_INTEG_bytes_ignored, p, p, end,
		             "expected the end of input after the trace");
		*pp = end;
		return CJ_END;
	}
	ps->why = "the end of input after the trace";
	*pp = cj_resync(ps, p, p, p, end, final, allow);
	return cj_top_resumed(ps);
}

/* TOP_KEY / TOP_SEP / DONE states. */
static enum cj_stop cj_top_step(struct cj_parser *ps, const char **pp, const char *end, bool final,
                                struct trex_error *err)
{
	const char *p = *pp = json_skip_ws(*pp, end);
	if (ps->state == CJ_DONE) {
		if (p >= end)
			return CJ_END;
		return cj_after_trace(ps, pp, end, final);
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
			return cj_top_damage(ps, pp, p, p, p, end, final,
			                     "',' or '}' in the top-level object");
		ps->state = CJ_TOP_KEY;
		*pp = p + 1;
		return CJ_STOP_AT;
	}
	if (*p != '"')
		return cj_top_damage(ps, pp, p, p, p, end, final, "'\"' starting a top-level key");
	return cj_top_member(ps, pp, end, final, err);
}

enum cj_stop cj_run(struct cj_parser *ps, const char **pp, const char *end, const char *stop_at,
                    bool final, struct trex_error *err)
{
	ps->limit = end;
	for (;;) {
		enum cj_stop r;
		if (ps->state == CJ_TOP_START)
			r = cj_top_start(ps, pp, end, final, err);
		else if (ps->state == CJ_ARRAY)
			r = cj_array(ps, pp, end, stop_at, final);
		else
			r = cj_top_step(ps, pp, end, final, err);
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
