/* The Chrome trace-event JSON exporter (trace_export.h): the index as the
 * events a Chrome trace holds, so that trex, chrome://tracing and
 * Perfetto's JSON importer read it back as it was:
 *  - M events: process_name, process_labels, process_sort_index,
 *    thread_name, thread_sort_index, as the index has them;
 *  - slices as X (a begin no end closed as B alone), keyed slices as b/e
 *    pairs, instants as i (keyed ones as n), counter samples as C, flows
 *    as s/f pairs with "bp":"e" on the slices they join;
 *  - pid and tid as their original text (numbers bare, strings quoted),
 *    names and categories escaped, args byte for byte as the file had
 *    them; times in microseconds with their exact ns decimals;
 *  - with a range, slices crossing its edges cut to it with
 *    "trex_clipped": "start", "end" or "both" in their args;
 *  - flows with the ids their file gave them (xflow_id);
 *  - the top-level members of the file written (trex_file_member:
 *    schemaVersion, deviceProperties, distributedInfo, traceName, ...)
 *    byte for byte, before or after the events as the file had them;
 *    with baseTimeNanoseconds every time is written relative to it, as
 *    Kineto does. Several files in one output: the members of the first
 *    (the lowest rank) without its distributedInfo, which would give the
 *    whole output that one rank;
 *  - distributedInfo {"rank": N} when one file with a rank but no such
 *    member is written. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export_internal.h"
#include "trex/export/json_write.h"
#include "trex/export/trace_export.h"

/* The last track's ,"pid":P[,"tid":T] (events of a track come together). */
#define CW_WHERE_MAX 480
struct cw_where {
	uint32_t track; /* TREX_NONE: none yet */
	size_t len;
	char text[CW_WHERE_MAX];
};

struct cw {
	struct cw_where where[2]; /* without, with the tid */
	struct trex_wbuf *w;
	const struct trex_index *idx;
	const struct trex_export_scope *s;
	struct xargs *args;
	bool first;
	uint32_t meta_file; /* the file whose members are written; TREX_NONE: none */
	bool merged;        /* several files in one output */
	int64_t base;       /* subtracted from every time: the baseTimeNanoseconds written */
};

/* ---- pieces of an event ------------------------------------------------------------------- */

static bool cw_begin(struct cw *c, size_t room)
{
	if (!trex_wbuf_room(c->w, room))
		return false;
	if (!c->first)
		*c->w->p++ = ',';
	*c->w->p++ = '\n';
	c->first = false;
	c->w->events++;
	return true;
}

static bool cw_put(struct cw *c, const char *s)
{
	return trex_wbuf_put(c->w, s, strlen(s));
}

/* A string literal, its length known when compiling. */
#define cw_lit(c, s) trex_wbuf_put((c)->w, "" s, sizeof(s) - 1)

/* A JSON string of s[0..n), quoted. */
static bool cw_str_n(struct cw *c, const char *s, size_t n)
{
	if (TREX_JSON_ESCAPED_MAX(n) + 2 > TREX_WBUF_MAX_RESERVE) {
		char *tmp = malloc(TREX_JSON_ESCAPED_MAX(n));
		bool ok = tmp && cw_lit(c, "\"");

		ok = ok && trex_wbuf_put(c->w, tmp, trex_json_escape_into(s, n, tmp)) &&
		     cw_lit(c, "\"");
		free(tmp);
		return ok;
	}
	if (!trex_wbuf_room(c->w, TREX_JSON_ESCAPED_MAX(n) + 2))
		return false;
	*c->w->p++ = '"';
	c->w->p += trex_json_escape_into(s, n, c->w->p);
	*c->w->p++ = '"';
	return true;
}

static bool cw_str(struct cw *c, uint32_t id)
{
	size_t n;
	const char *s = trex_strtab_get(trex_index_strings(c->idx), id, &n);

	return cw_str_n(c, s, n);
}

/* An id as written: its number bare when the text is one, else quoted. */
static bool cw_id(struct cw *c, uint32_t text, int64_t num)
{
	char buf[24];
	const char *s = trex_index_str(c->idx, text);
	size_t n = (size_t)(trex_fmt_i64(buf, num) - buf);

	if (strlen(s) == n && memcmp(s, buf, n) == 0)
		return trex_wbuf_put(c->w, buf, n);
	return cw_str(c, text);
}

static bool cw_time_n(struct cw *c, const char *key, size_t klen, int64_t ns, int64_t base)
{
	if (!trex_wbuf_room(c->w, 40))
		return false;
	memcpy(c->w->p, key, klen);
	if (__builtin_sub_overflow(ns, base, &ns))
		ns = base > 0 ? INT64_MIN : INT64_MAX;
	c->w->p = trex_fmt_ns_as_us(c->w->p + klen, ns);
	return true;
}

/* key (a literal) then a time (ns on the index clock, written relative to
 * the base), or a duration, as microseconds. */
#define cw_time(c, key, ns) cw_time_n(c, "" key, sizeof(key) - 1, ns, (c)->base)
#define cw_dur(c, ns) cw_time_n(c, ",\"dur\":", sizeof(",\"dur\":") - 1, ns, 0)

static bool cw_u64(struct cw *c, const char *key, uint64_t v)
{
	if (!trex_wbuf_room(c->w, 48))
		return false;
	memcpy(c->w->p, key, strlen(key));
	c->w->p += strlen(key);
	c->w->p = trex_fmt_u64(c->w->p, v);
	return true;
}

/* key then an id as cw_id writes it, at out (room for cap); the length,
 * 0 when it does not fit. */
static size_t where_part(const struct cw *c, char *out, size_t cap, const char *key, uint32_t text,
                         int64_t num)
{
	char buf[24];
	size_t klen = strlen(key), n;
	const char *s = trex_strtab_get(trex_index_strings(c->idx), text, &n);
	size_t nlen = (size_t)(trex_fmt_i64(buf, num) - buf);

	if (n == nlen && memcmp(s, buf, n) == 0) {
		if (klen + n > cap)
			return 0;
		memcpy(out, key, klen);
		memcpy(out + klen, buf, n);
		return klen + n;
	}
	if (klen + TREX_JSON_ESCAPED_MAX(n) + 2 > cap)
		return 0;
	memcpy(out, key, klen);
	out[klen] = '"';
	n = klen + 1 + trex_json_escape_into(s, n, out + klen + 1);
	out[n] = '"';
	return n + 1;
}

/* ,"pid":P[,"tid":T] of a track, made once per track. */
static bool cw_where(struct cw *c, uint32_t track, bool tid)
{
	struct cw_where *k = &c->where[tid];
	const struct trex_track *t;
	const struct trex_process *p;
	size_t a, b = 0;

	if (k->track == track)
		return trex_wbuf_put(c->w, k->text, k->len);
	t = trex_index_track(c->idx, track);
	p = trex_index_process(c->idx, t->process);
	a = where_part(c, k->text, CW_WHERE_MAX, ",\"pid\":", p->pid, p->pid_num);
	if (a && tid)
		b = where_part(c, k->text + a, CW_WHERE_MAX - a, ",\"tid\":", t->tid, t->tid_num);
	k->track = a && (b || !tid) ? track : TREX_NONE;
	k->len = a + b;
	if (k->track == track)
		return trex_wbuf_put(c->w, k->text, k->len);
	/* too long to keep: written as it goes */
	if (!cw_lit(c, ",\"pid\":") || !cw_id(c, p->pid, p->pid_num))
		return false;
	return !tid || (cw_lit(c, ",\"tid\":") && cw_id(c, t->tid, t->tid_num));
}

/* ,"cat":C,"name":N */
static bool cw_names(struct cw *c, uint32_t cat, uint32_t name)
{
	return cw_lit(c, ",\"cat\":") && cw_str(c, cat) && cw_lit(c, ",\"name\":") &&
	       cw_str(c, name);
}

/* ,"args":{...} as the file had them, with trex_clipped first when cut. */
static bool cw_args(struct cw *c, size_t at, enum trex_clip clip)
{
	const char *text = c->args->text + c->args->off[at];
	size_t len = c->args->len[at];

	if (!len && !clip)
		return true;
	if (!cw_lit(c, ",\"args\":"))
		return false;
	if (!clip)
		return trex_wbuf_put(c->w, text, len);
	if (!cw_lit(c, "{\"trex_clipped\":\"") || !cw_put(c, trex_clip_name(clip)) ||
	    !cw_lit(c, "\""))
		return false;
	/* the members after the opening brace, if there are any */
	const char *p = len ? memchr(text, '{', len) : NULL;
	size_t rest = p ? len - (size_t)(p + 1 - text) : 0;
	const char *q = p ? p + 1 : NULL;

	while (rest && (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r'))
		q++, rest--;
	if (!rest || *q == '}')
		return cw_lit(c, "}");
	return cw_lit(c, ",") && trex_wbuf_put(c->w, q, rest);
}

/* ---- metadata ------------------------------------------------------------------------------- */

static bool cw_meta_str(struct cw *c, const char *name, uint32_t track, bool tid, uint32_t value)
{
	return cw_begin(c, 64) && cw_lit(c, "{\"ph\":\"M\",\"name\":\"") && cw_put(c, name) &&
	       cw_lit(c, "\"") && cw_where(c, track, tid) && cw_lit(c, ",\"args\":{\"") &&
	       cw_put(c, strcmp(name, "process_labels") == 0 ? "labels" : "name") &&
	       cw_lit(c, "\":") && cw_str(c, value) && cw_lit(c, "}}");
}

static bool cw_meta_sort(struct cw *c, const char *name, uint32_t track, bool tid, int64_t v)
{
	char buf[24];

	return cw_begin(c, 64) && cw_lit(c, "{\"ph\":\"M\",\"name\":\"") && cw_put(c, name) &&
	       cw_lit(c, "\"") && cw_where(c, track, tid) &&
	       cw_lit(c, ",\"args\":{\"sort_index\":") &&
	       trex_wbuf_put(c->w, buf, (size_t)(trex_fmt_i64(buf, v) - buf)) && cw_lit(c, "}}");
}

static bool is_thread_like(const struct trex_track *t)
{
	return t->kind == TREX_TRACK_THREAD || t->kind == TREX_TRACK_GPU ||
	       t->kind == TREX_TRACK_NAMED;
}

/* A process's M events, written with its first track in scope. */
static bool cw_process_meta(struct cw *c, uint32_t track)
{
	const struct trex_process *p =
	    trex_index_process(c->idx, trex_index_track(c->idx, track)->process);

	if (p->name && !cw_meta_str(c, "process_name", track, false, p->name))
		return false;
	if (p->labels && !cw_meta_str(c, "process_labels", track, false, p->labels))
		return false;
	return !p->has_sort_index ||
	       cw_meta_sort(c, "process_sort_index", track, false, p->sort_index);
}

static bool cw_track_meta(struct cw *c, uint32_t track)
{
	const struct trex_track *t = trex_index_track(c->idx, track);

	if (!is_thread_like(t))
		return true;
	if (t->name && !cw_meta_str(c, "thread_name", track, true, t->name))
		return false;
	return !t->has_sort_index ||
	       cw_meta_sort(c, "thread_sort_index", track, true, t->sort_index);
}

static bool cw_meta_of(void *user, uint32_t track, bool first_of_process)
{
	struct cw *c = user;

	return (!first_of_process || cw_process_meta(c, track)) && cw_track_meta(c, track);
}

static bool cw_metadata(struct cw *c)
{
	return xscope_tracks(c->idx, c->s, cw_meta_of, c);
}

/* ---- slices and instants -------------------------------------------------------------------- */

static bool cw_slice(struct cw *c, uint32_t id, size_t at, uint64_t async_id)
{
	const struct trex_slice *sl = trex_index_slice(c->idx, id);
	int64_t ts, dur;
	enum trex_clip clip;
	bool open_end = (sl->flags & TREX_SLICE_UNTERMINATED) != 0;

	if (!xscope_slice(c->idx, c->s, id, &ts, &dur, &clip))
		return true;
	open_end = open_end && !(clip & TREX_CLIP_END);
	if (async_id) {
		return cw_begin(c, 64) && cw_u64(c, "{\"ph\":\"b\",\"id\":", async_id) &&
		       cw_where(c, sl->track, false) && cw_time(c, ",\"ts\":", ts) &&
		       cw_names(c, sl->cat, sl->name) && cw_args(c, at, clip) && cw_lit(c, "}") &&
		       cw_begin(c, 64) && cw_u64(c, "{\"ph\":\"e\",\"id\":", async_id) &&
		       cw_where(c, sl->track, false) && cw_time(c, ",\"ts\":", ts + dur) &&
		       cw_names(c, sl->cat, sl->name) && cw_lit(c, "}");
	}
	return cw_begin(c, 64) && cw_put(c, open_end ? "{\"ph\":\"B\"" : "{\"ph\":\"X\"") &&
	       cw_where(c, sl->track, true) && cw_time(c, ",\"ts\":", ts) &&
	       (open_end || cw_dur(c, dur)) && cw_names(c, sl->cat, sl->name) &&
	       cw_args(c, at, clip) && cw_lit(c, "}");
}

/* Keyed slices pair by (category, id): the slices nested in a top-level
 * one share its id (the top-level slice's id + 1), so they nest again. */
static uint64_t cw_async_id(struct cw *c, uint32_t id)
{
	while (trex_index_slice(c->idx, id)->depth > 0) {
		uint32_t up = trex_index_parent(c->idx, id);

		if (up == TREX_NONE)
			break;
		id = up;
	}
	return (uint64_t)id + 1;
}

static bool cw_slice_of(void *user, uint32_t id, size_t at)
{
	struct cw *c = user;
	bool async =
	    trex_index_track(c->idx, trex_index_slice(c->idx, id)->track)->kind == TREX_TRACK_ASYNC;

	return cw_slice(c, id, at, async ? cw_async_id(c, id) : 0);
}

static bool cw_instant(void *user, uint32_t id, size_t at)
{
	struct cw *c = user;
	const struct trex_instant *in = trex_index_instant(c->idx, id);
	const struct trex_track *t = trex_index_track(c->idx, in->track);
	static const char scope[] = "tpg";

	if (!trex_export_time_in(c->s, in->ts) ||
	    !trex_export_name_in(c->s, trex_index_str(c->idx, in->name)))
		return true;
	if (t->kind == TREX_TRACK_ASYNC) /* ids above every slice's */
		return cw_begin(c, 64) &&
		       cw_u64(c, "{\"ph\":\"n\",\"id\":", (uint64_t)UINT32_MAX + 1 + id) &&
		       cw_where(c, in->track, false) && cw_time(c, ",\"ts\":", in->ts) &&
		       cw_names(c, in->cat, in->name) && cw_args(c, at, TREX_CLIP_NONE) &&
		       cw_lit(c, "}");
	return cw_begin(c, 64) && cw_lit(c, "{\"ph\":\"i\",\"s\":\"") &&
	       trex_wbuf_put(c->w, &scope[in->scope % 3], 1) && cw_lit(c, "\"") &&
	       cw_where(c, in->track, true) && cw_time(c, ",\"ts\":", in->ts) &&
	       cw_names(c, in->cat, in->name) && cw_args(c, at, TREX_CLIP_NONE) && cw_lit(c, "}");
}

/* ---- counters ------------------------------------------------------------------------------- */

/* A double that reads back as the same double. */
static bool cw_double(struct cw *c, double v)
{
	char buf[40];
	int n = snprintf(buf, sizeof(buf), "%.15g", v);

	if (strtod(buf, NULL) != v)
		n = snprintf(buf, sizeof(buf), "%.17g", v);
	return trex_wbuf_put(c->w, buf, (size_t)n);
}

static bool cw_sample(void *user, uint32_t track, int64_t ts, double v)
{
	struct cw *c = user;
	const struct trex_track *t = trex_index_track(c->idx, track);

	if (v != v || v - v != 0) /* NaN and infinities have no JSON number */
		return true;
	return cw_begin(c, 64) && cw_lit(c, "{\"ph\":\"C\"") && cw_where(c, track, false) &&
	       cw_time(c, ",\"ts\":", ts) && cw_lit(c, ",\"name\":") && cw_str(c, t->name) &&
	       cw_lit(c, ",\"args\":{\"value\":") && cw_double(c, v) && cw_lit(c, "}}");
}

static bool cw_counter(struct cw *c, uint32_t track)
{
	return xscope_samples(c->idx, c->s, track, cw_sample, c);
}

/* ---- flows and the document ----------------------------------------------------------------- */

/* "id": a number bare, a string quoted. */
static bool cw_flow_id(struct cw *c, const struct trex_flow_id *id)
{
	char buf[24];

	if (!cw_lit(c, "\"id\":"))
		return false;
	if (id->kind == TREX_FLOW_ID_STR)
		return cw_str(c, id->str);
	if (id->kind == TREX_FLOW_ID_U64)
		return trex_wbuf_put(c->w, buf,
		                     (size_t)(trex_fmt_u64(buf, (uint64_t)id->num) - buf));
	return trex_wbuf_put(c->w, buf, (size_t)(trex_fmt_i64(buf, id->num) - buf));
}

static bool cw_flow(struct cw *c, uint32_t flow, struct xflow_ids *ids)
{
	const struct trex_flow *f = trex_index_flow(c->idx, flow);
	int64_t from, to;
	struct trex_flow_id id;

	if (!xscope_flow(c->idx, c->s, f, &from, &to))
		return true;
	id = xflow_id(ids, flow);
	return cw_begin(c, 64) && cw_lit(c, "{\"ph\":\"s\",") && cw_flow_id(c, &id) &&
	       cw_where(c, f->from_track, true) && cw_time(c, ",\"ts\":", from) &&
	       cw_names(c, f->cat, f->name) && cw_lit(c, "}") && cw_begin(c, 64) &&
	       cw_lit(c, "{\"ph\":\"f\",\"bp\":\"e\",") && cw_flow_id(c, &id) &&
	       cw_where(c, f->to_track, true) && cw_time(c, ",\"ts\":", to) &&
	       cw_names(c, f->cat, f->name) && cw_lit(c, "}");
}

static bool cw_flows(struct cw *c, struct trex_error *err)
{
	struct xflow_ids ids;
	bool ok = true;

	if (!xflow_ids_init(&ids, c->idx)) {
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		return false;
	}
	for (uint32_t i = 0; ok && i < trex_index_flow_count(c->idx); i++)
		ok = cw_flow(c, i, &ids);
	xflow_ids_free(&ids);
	return ok;
}

static bool cw_tracks(struct cw *c, struct trex_error *err)
{
	for (uint32_t i = 0; i < trex_index_track_count(c->idx); i++) {
		const struct trex_track *t = trex_index_track(c->idx, i);
		uint32_t file = trex_index_track_file(c->idx, i);

		if (!trex_export_track_in(c->idx, c->s, i))
			continue;
		if (!xargs_each(c->args, c->idx, file, true, t->first_slice, t->slice_count,
		                cw_slice_of, c, err) ||
		    !xargs_each(c->args, c->idx, file, false, t->first_instant, t->instant_count,
		                cw_instant, c, err) ||
		    (t->kind == TREX_TRACK_COUNTER && !cw_counter(c, i)))
			return false;
	}
	return true;
}

/* ---- top-level members ---------------------------------------------------------------------- */

/* The files whose tracks the scope keeps: the first, and whether there
 * are more (tracks are numbered file by file). Without a track kept, the
 * only file, if one. */
static void cw_files(struct cw *c)
{
	c->meta_file = TREX_NONE;
	c->merged = false;
	for (uint32_t i = 0; i < trex_index_track_count(c->idx); i++) {
		uint32_t file = trex_index_track_file(c->idx, i);

		if (file == c->meta_file || !trex_export_track_in(c->idx, c->s, i))
			continue;
		if (c->meta_file != TREX_NONE) {
			c->merged = true;
			break;
		}
		c->meta_file = file;
	}
	if (c->meta_file == TREX_NONE && trex_index_file_count(c->idx) == 1)
		c->meta_file = 0;
}

static bool key_is(const struct trex_file_member *m, const char *key)
{
	return m->key_len == strlen(key) && memcmp(m->key, key, m->key_len) == 0;
}

/* Whether member m of the file written is written: not a rank's own in a
 * merged output. */
static bool cw_member_kept(const struct cw *c, const struct trex_file_member *m)
{
	return !(c->merged && key_is(m, "distributedInfo"));
}

/* The time base: the file's, when its baseTimeNanoseconds is written. */
static void cw_base(struct cw *c)
{
	struct trex_file_member m;

	c->base = 0;
	if (c->meta_file != TREX_NONE &&
	    trex_index_file_member_find(c->idx, c->meta_file, "baseTimeNanoseconds", &m) &&
	    cw_member_kept(c, &m))
		c->base = trex_index_file(c->idx, c->meta_file)->base_time_ns;
}

/* The members before the events (each followed by ",\n") or after them
 * (each preceded by it), as "key": value. */
static bool cw_members(struct cw *c, bool after)
{
	uint32_t n =
	    c->meta_file == TREX_NONE ? 0 : trex_index_file_member_count(c->idx, c->meta_file);
	struct trex_file_member m;

	for (uint32_t i = 0; i < n; i++) {
		trex_index_file_member(c->idx, c->meta_file, i, &m);
		if (m.after_events != after || !cw_member_kept(c, &m))
			continue;
		if ((after && !cw_lit(c, ",\n")) || !cw_lit(c, "\"") ||
		    !trex_wbuf_put(c->w, m.key, m.key_len) || !cw_lit(c, "\": ") ||
		    !trex_wbuf_put(c->w, m.value, m.value_len) || (!after && !cw_lit(c, ",\n")))
			return false;
	}
	return true;
}

static bool cw_head(struct cw *c)
{
	return cw_lit(c, "{") && cw_members(c, false) && cw_lit(c, "\"traceEvents\": [");
}

/* The members after the events, and the rank of the one file written
 * when it has one and no distributedInfo says it. */
static bool cw_tail(struct cw *c)
{
	const struct trex_file *f =
	    c->meta_file != TREX_NONE ? trex_index_file(c->idx, c->meta_file) : NULL;
	struct trex_file_member m;
	char buf[24];

	if (!cw_lit(c, "\n]") || !cw_members(c, true))
		return false;
	bool distributed =
	    f && trex_index_file_member_find(c->idx, c->meta_file, "distributedInfo", &m);
	if (f && !c->merged && f->has_rank && !distributed &&
	    (!cw_lit(c, ",\n\"distributedInfo\": {\"rank\": ") ||
	     !trex_wbuf_put(c->w, buf, (size_t)(trex_fmt_i64(buf, f->rank) - buf)) ||
	     !cw_lit(c, "}")))
		return false;
	return cw_lit(c, "\n}\n");
}

static enum trex_status chrome_body(struct trex_wbuf *w, const struct trex_index *idx,
                                    const struct trex_export_opts *opts, struct trex_error *err)
{
	struct cw c = {{{TREX_NONE, 0, ""}, {TREX_NONE, 0, ""}},
	               w,
	               idx,
	               &opts->scope,
	               calloc(1, sizeof(struct xargs)),
	               true,
	               TREX_NONE,
	               false,
	               0};
	bool ok;

	if (!c.args)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	err->status = TREX_OK;
	cw_files(&c);
	cw_base(&c);
	ok = cw_head(&c) && cw_metadata(&c) && cw_tracks(&c, err) && cw_flows(&c, err) &&
	     cw_tail(&c);
	xargs_free(c.args);
	if (ok)
		return TREX_OK;
	return err->status != TREX_OK ? err->status : trex_wbuf_status(w, err);
}

/* .gz names ask for gzip. */
static bool wants_gzip(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcasecmp(path + n - 3, ".gz") == 0;
}

enum trex_status trex_chrome_export(const struct trex_index *idx, const char *path,
                                    const struct trex_export_opts *opts,
                                    struct trex_export_progress *done, struct trex_error *err)
{
	return trex_export_to_path(idx, path, wants_gzip(path), opts, chrome_body, done, err);
}
