#include "config.h"

#include "formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_parse.h"
#include "json_scan.h"
#include "trex/load/json_args.h"
#include "trex/core/task.h"

#define CJ_STREAM_CHUNK (4u << 20)
#define CJ_MIN_PARALLEL_BYTES (8u << 20)
#define CJ_CHUNKS_PER_THREAD 4
/* Several threads: 16 MiB windows (32 MiB ones were no faster). Each window
 * ends at a barrier, and one pool task decodes the next window meanwhile:
 * with equal parts, two per thread, the thread that drew that task ended
 * late and the other waited (15 % of the cores idle at -j2). Parts are
 * therefore guided: each takes 1/threads of what is left, down to 1/32 of
 * the window, so the last ones are small and the threads end together.
 * Not smaller: each part is a builder of its own until the index is built
 * (equal 1 MiB parts: +80 MiB peak RSS on a 1 GB trace). */
#define CJ_PARALLEL_WINDOW (16u << 20)
#define CJ_WINDOW_PARTS_PER_THREAD 8
#define CJ_WINDOW_PART_DIVISOR 32
#define CJ_MAX_PARTS 1024 /* cut points one split may make */

/* One piece of the events array parsed by one builder. */
struct cj_part {
	const char *start; /* first event, or where the prelude left off */
	const char *stop;  /* next part's start (NULL: run to the end) */
	const char *pos;   /* where parsing stopped */
	enum cj_stop result;
	struct trex_builder *b;
	struct cj_stats st;
	struct trex_error err;
	bool truncated;
	bool cancelled, oom;
	unsigned inherited; /* prelude features the parser needs (bare array) */
	/* stream windows; all zero for a mapped file */
	bool open_end;           /* more input follows end: stop before an unfinished event */
	bool stream;             /* bytes are reported per window, not per part */
	bool after_value;        /* starts after an event, before its ',' */
	uint64_t base_offset;    /* decoded offset of the window */
	enum cj_state end_state; /* where the parser was when it stopped */
	bool end_expect;
	uint64_t gzip_cut; /* the window's: the gzip input is cut here */
};

struct cj_pool {
	struct trex_load_job *job;
	const char *map, *end;
	struct cj_part *parts;
	size_t count;
	/* decoded ahead as the pool's first task (the longest, so it never
	 * ends the window late); NULL for a mapped file */
	struct trex_stream *prefetch;
};

/* ---- one part ------------------------------------------------------------------------ */

/* Input ended inside something: count what was left and say where.
 * gzip_cut: the compressed size when a gzip stream was cut, else 0. */
static void cj_truncation(struct cj_parser *ps, const char *pos, const char *end, uint64_t gzip_cut)
{
	const char *rest = json_skip_ws(pos, end);
	char msg[160], gz[80] = "";
	if (gzip_cut)
		snprintf(gz, sizeof gz, " (the gzip data is cut at compressed byte %llu)",
		         (unsigned long long)gzip_cut);
	if (rest < end)
		snprintf(msg, sizeof msg, "input ends inside %s: %llu bytes ignored%s",
		         ps->state == CJ_ARRAY ? "an event" : "the top-level object",
		         (unsigned long long)(end - pos), gz);
	else if (ps->state == CJ_ARRAY)
		snprintf(msg, sizeof msg,
		         "']' closing the events array: input ends after the last event%s", gz);
	else
		snprintf(msg, sizeof msg, "'}' closing the trace object: input ends early%s", gz);
	ps->limit = end;
	cj_note_span(ps, TREX_INTEG_bytes_ignored, pos, pos, end, msg);
}

static void cj_parse_part(struct trex_load_job *job, const char *map, const char *end,
                          struct cj_part *part)
{
	struct cj_parser ps;
	cj_parser_init(&ps, part->b, job);
	ps.base = map;
	ps.base_offset = part->base_offset;
	ps.stream = part->stream;
	ps.state = CJ_ARRAY;
	ps.expect_value = !part->after_value;
	ps.st.features = part->inherited;
	ps.progress_bytes_from = part->base_offset + (uint64_t)(part->start - map);
	ps.release_from = part->stream ? NULL : part->start;
	const char *pos = part->start;
	part->result = cj_run(&ps, &pos, end, part->stop, !part->open_end, &part->err);
	part->pos = pos;
	if (part->result == CJ_NEED_MORE && !part->open_end && !ps.cancelled && !ps.oom) {
		cj_truncation(&ps, pos, end, part->gzip_cut);
		part->truncated = true;
	}
	uint64_t rest = part->stream ? 0 : cj_offset(&ps, pos) - ps.progress_bytes_from;
	trex_load_job_progress(job, rest, rest, ps.st.events - ps.progress_events);
	if (ps.release_from) /* parsed: its pages need not stay mapped */
		trex_source_map_done(job->source, ps.release_from, pos);
	part->end_state = ps.state;
	part->end_expect = ps.expect_value;
	part->cancelled = ps.cancelled;
	part->oom = ps.oom;
	part->st = ps.st;
	cj_parser_free(&ps);
	trex_builder_trim(part->b); /* small parts, many kept until the build */
}

static size_t cj_pool_tasks(const struct cj_pool *pool)
{
	return pool->count + (pool->prefetch != NULL);
}

static void cj_task(void *arg, size_t i, unsigned worker)
{
	struct cj_pool *pool = arg;
	size_t first_part = pool->prefetch != NULL;

	(void)worker;
	if (i < first_part)
		trex_stream_prefetch(pool->prefetch);
	else
		cj_parse_part(pool->job, pool->map, pool->end, &pool->parts[i - first_part]);
}

static void cj_run_pool(struct cj_pool *pool, unsigned threads)
{
	trex_task_run(threads, cj_pool_tasks(pool), cj_task, pool);
}

/* ---- splitting and the chain check ---------------------------------------------------- */

/* Guesses event boundaries at the given offsets from start (ascending);
 * a wrong guess is caught by the chain check. */
static size_t cj_split_at(const char *start, const char *end, const size_t *cuts, size_t ncuts,
                          struct cj_part *parts)
{
	size_t n = 0;
	parts[n++].start = start;
	for (size_t k = 0; k < ncuts; k++) {
		const char *guess = start + cuts[k];
		if (guess <= parts[n - 1].start || guess >= end)
			continue;
		const char *b = cj_find_boundary(guess, end);
		if (!b || *b != '{' || b <= parts[n - 1].start)
			continue;
		parts[n++].start = b;
	}
	for (size_t i = 0; i < n; i++)
		parts[i].stop = i + 1 < n ? parts[i + 1].start : NULL;
	return n;
}

/* want parts of equal size. */
static size_t cj_split(const char *start, const char *end, size_t want, struct cj_part *parts)
{
	size_t cuts[CJ_MAX_PARTS] = {0}; /* -O3 cannot see that n bounds the reads */
	size_t step = (size_t)(end - start) / want, n = 0;
	for (size_t k = 1; k < want && n < CJ_MAX_PARTS; k++)
		cuts[n++] = k * step;
	return cj_split_at(start, end, cuts, n, parts);
}

/* At most want parts, each a share of what is left and none under min:
 * big parts first and small ones last, so that the threads of a pool run
 * out of work at nearly the same time (a window ends at a barrier). */
static size_t cj_split_guided(const char *start, const char *end, size_t share, size_t min,
                              size_t want, struct cj_part *parts)
{
	size_t cuts[CJ_MAX_PARTS];
	size_t len = (size_t)(end - start), at = 0, n = 0;
	while (n + 1 < want && n < CJ_MAX_PARTS) {
		size_t step = (len - at) / share;
		if (step < min)
			step = min;
		if (at + step >= len)
			break;
		at += step;
		cuts[n++] = at;
	}
	return cj_split_at(start, end, cuts, n, parts);
}

/* A part is valid when the part before it stopped exactly at its start;
 * otherwise the guess was inside an event or string: its work is thrown
 * away and the gap is parsed again from where the last valid part ended. */
static enum trex_status cj_chain(struct trex_load_job *job, const char *map, const char *end,
                                 struct cj_part *parts, size_t n, struct cj_part *fix, size_t *nfix)
{
	const char *pos = parts[0].start;
	*nfix = 0;
	for (size_t i = 0; i < n; i++) {
		if (parts[i].start == pos && pos != NULL) {
			pos = parts[i].result == CJ_STOP_AT ? parts[i].pos : NULL;
			continue;
		}
		trex_builder_free(parts[i].b);
		parts[i].b = NULL;
		if (!pos || (parts[i].stop && pos >= parts[i].stop))
			continue; /* ended already, or the next part may still line up */
		struct cj_part *f = &fix[(*nfix)++];
		memset(f, 0, sizeof *f);
		f->start = pos;
		f->stop = parts[i].stop;
		f->inherited = parts[0].inherited;
		f->open_end = parts[0].open_end;
		f->gzip_cut = parts[0].gzip_cut;
		f->stream = parts[0].stream;
		f->base_offset = parts[0].base_offset;
		f->b = trex_builder_new(job->file_id);
		if (!f->b)
			return TREX_NOMEM;
		cj_parse_part(job, map, end, f);
		pos = f->result == CJ_STOP_AT ? f->pos : NULL;
	}
	return TREX_OK;
}

/* ---- merging results into the file ------------------------------------------------------ */

static void cj_merge_stats(struct trex_build_file *file, const struct cj_stats *st,
                           struct trex_error *first, const char *path)
{
	for (int ph = 0; ph < TREX_PH_COUNT; ph++)
		file->event_types[ph].events += st->phase_counts[ph];
	file->events += st->events;
	trex_integrity_add(&file->integrity, &st->integrity);
	if (st->has_rank) {
		file->has_rank = true;
		file->rank = st->rank;
	}
	if (st->features & CJ_BASE_TIME)
		file->base_time_ns = st->base_time_ns;
	if (st->has_problem && first->status == TREX_OK)
		trex_error_set(first, TREX_FORMAT, path, (int64_t)st->problem_offset, "%s",
		               st->problem);
}

static const char *cj_dialect(unsigned f)
{
	if (f & CJ_ATTR)
		return "acelyzer-flex";
	if (f & CJ_GPU_OP)
		return "unitrace";
	if (f & CJ_LEGACY_CATS)
		return "kineto-2021";
	if (f & CJ_MTIA)
		return "kineto-mtia";
	if (f & CJ_HIP)
		return "kineto-rocm";
	if (f & (CJ_KINETO_CATS | CJ_DEVICE_PROPERTIES | CJ_SCHEMA_VERSION))
		return "kineto";
	return "chrome";
}

/* What the parts handed over so far add up to. */
struct cj_sink {
	unsigned features;
	enum trex_status status;
};

/* Folds one part's statistics into the file and hands its builder (if any)
 * to the job; parts must come in byte order. */
static void cj_emit(struct trex_load_job *job, struct cj_part *p, uint32_t seq,
                    struct cj_sink *sink, struct trex_error *err)
{
	struct trex_build_file *file = job->file;
	cj_merge_stats(file, &p->st, &file->first_problem, trex_source_path(job->source));
	sink->features |= p->st.features;
	file->truncated |= p->truncated;
	if (p->cancelled)
		sink->status = TREX_CANCELLED;
	if (p->oom)
		sink->status = TREX_NOMEM;
	if (p->result == CJ_FATAL && sink->status == TREX_OK) {
		*err = p->err;
		sink->status = TREX_FORMAT;
	}
	if (!p->b)
		return;
	if (sink->status == TREX_OK)
		sink->status = trex_load_job_add_part(job, seq, p->b, err);
	else
		trex_builder_free(p->b);
	p->b = NULL;
}

static enum trex_status cj_sink_end(struct trex_load_job *job, const struct cj_sink *sink,
                                    struct trex_error *err)
{
	const char *path = trex_source_path(job->source);
	job->file->dialect = cj_dialect(sink->features);
	if (sink->status == TREX_CANCELLED)
		trex_error_set(err, TREX_CANCELLED, path, -1, "loading cancelled");
	if (sink->status == TREX_NOMEM)
		trex_error_set(err, TREX_NOMEM, path, -1, "out of memory while loading");
	return sink->status;
}

/* Hands parts to the job in byte order and folds their statistics; the
 * prelude's builder (its problems, if any; NULL otherwise) comes first. */
static enum trex_status cj_finish(struct trex_load_job *job, struct cj_part **order, size_t n,
                                  const struct cj_stats *prelude, struct trex_builder *prelude_b,
                                  struct trex_error *err)
{
	struct cj_sink sink = {prelude->features, TREX_OK};
	uint32_t seq = 0;
	cj_merge_stats(job->file, prelude, &job->file->first_problem,
	               trex_source_path(job->source));
	if (prelude_b)
		sink.status = trex_load_job_add_part(job, seq++, prelude_b, err);
	for (size_t i = 0; i < n; i++)
		cj_emit(job, order[i], seq++, &sink, err);
	return cj_sink_end(job, &sink, err);
}

/* The valid parts and the chain's fix-ups (parts + n) in byte order: each
 * fix-up follows the valid parts before its start. Returns how many. */
static size_t cj_order(struct cj_part *parts, size_t n, size_t nfix, struct cj_part **order)
{
	size_t k = 0;
	for (size_t i = 0, f = 0; i < n || f < nfix;) {
		bool take_fix = f < nfix && (i >= n || parts[n + f].start < parts[i].start);
		struct cj_part *p = take_fix ? &parts[n + f++] : &parts[i++];
		if (p->b)
			order[k++] = p;
	}
	return k;
}

/* ---- the prelude: up to the events array --------------------------------------------- */

static enum trex_status cj_prelude(struct trex_load_job *job, struct cj_parser *ps, const char **pp,
                                   const char *end, bool final, struct trex_error *err)
{
	enum cj_stop r = cj_run(ps, pp, end, NULL, final, err);
	if (r == CJ_ARRAY_OPEN)
		return TREX_OK;
	if (r == CJ_NEED_MORE && !final)
		return TREX_CANCELLED; /* not an error: "need more" for the stream path */
	const char *at = json_skip_ws(ps->base, end);
	if (r == CJ_FATAL)
		return TREX_FORMAT;
	if (at >= end && ps->state == CJ_TOP_START)
		trex_error_set(err, TREX_FORMAT, NULL, (int64_t)cj_offset(ps, end),
		               "expected a JSON trace, found an empty file");
	else if (r == CJ_NEED_MORE)
		trex_error_set(err, TREX_FORMAT, NULL, (int64_t)cj_offset(ps, *pp),
		               "expected the \"traceEvents\" array before the end of input");
	else
		trex_error_set(err, TREX_FORMAT, NULL, (int64_t)cj_offset(ps, end),
		               "expected a \"traceEvents\" array in the top-level object");
	(void)job;
	return TREX_FORMAT;
}

static void cj_fill_path(struct trex_error *err, struct trex_load_job *job)
{
	if (err->status != TREX_OK && err->path[0] == '\0')
		snprintf(err->path, sizeof err->path, "%s", trex_source_path(job->source));
}

/* ---- plain input: mapped, parsed in parallel ---------------------------------------------- */

static enum trex_status cj_load_mapped(struct trex_load_job *job, const char *map, size_t len,
                                       struct trex_error *err)
{
	const char *end = map + len, *pos = map;
	struct cj_parser pre;
	cj_parser_init(&pre, NULL, job);
	pre.base = map;
	pre.stop_on_array = true;
	enum trex_status s = cj_prelude(job, &pre, &pos, end, true, err);
	cj_parser_free(&pre);
	if (s == TREX_OK && pre.oom)
		s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (s != TREX_OK) {
		trex_builder_free(pre.b);
		cj_fill_path(err, job);
		return s;
	}
	unsigned threads = job->threads ? job->threads : 1;
	size_t want =
	    len >= CJ_MIN_PARALLEL_BYTES && threads > 1 ? threads * CJ_CHUNKS_PER_THREAD : 1;
	struct cj_part *parts = calloc(2 * want, sizeof *parts);
	struct cj_part **order = calloc(2 * want, sizeof *order);
	if (!parts || !order) {
		free(parts);
		free(order);
		trex_builder_free(pre.b);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	size_t n = cj_split(pos, end, want, parts);
	for (size_t i = 0; i < n; i++) {
		parts[i].inherited = pre.st.features & (CJ_BARE_ARRAY | CJ_TRACE_EVENTS);
		if (!(parts[i].b = trex_builder_new(job->file_id)))
			s = TREX_NOMEM;
	}
	if (s == TREX_OK) {
		struct cj_pool pool = {job, map, end, parts, n, NULL};
		cj_run_pool(&pool, threads);
	}
	size_t nfix = 0;
	if (s == TREX_OK)
		s = cj_chain(job, map, end, parts, n, parts + n, &nfix);
	size_t k = cj_order(parts, n, nfix, order);
	if (s == TREX_OK) {
		s = cj_finish(job, order, k, &pre.st, pre.b, err);
	} else {
		for (size_t i = 0; i < 2 * want; i++)
			trex_builder_free(parts[i].b);
		trex_builder_free(pre.b);
	}
	if (s == TREX_NOMEM && err->status == TREX_OK)
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	free(parts);
	free(order);
	cj_fill_path(err, job);
	return s;
}

/* ---- compressed input: streamed, inflate overlapped with parsing -------------------------- */

/* One window of decoded bytes, and whether it is the last. */
struct cj_window {
	const char *data;
	size_t len;
	uint64_t offset;
	bool final;
	bool corrupt;           /* the gzip data broke after these bytes */
	struct trex_error serr; /* why, when corrupt */
	uint64_t gzip_cut;      /* final, gzip input cut: its compressed size; else 0 */
	bool header_cut;        /* ... inside a member's header */
};

static size_t cj_window_bytes(const struct trex_load_job *job, bool parallel)
{
	if (job->opts->stream_window)
		return job->opts->stream_window;
	return parallel ? CJ_PARALLEL_WINDOW : CJ_STREAM_CHUNK;
}

/* The window after the last one's carry bytes. Corrupt gzip ends the input
 * where it broke: the carried bytes are then parsed as the last window. */
static enum trex_status cj_next_window(struct trex_load_job *job, struct trex_stream *st,
                                       size_t carry, struct cj_window *w, struct trex_error *err)
{
	const char *tail = w->data + w->len - carry;
	uint64_t tail_offset = w->offset + w->len - carry;
	bool truncated = false;
	trex_error_clear(&w->serr);
	enum trex_status s =
	    trex_stream_next(st, carry, &w->data, &w->len, &w->offset, &truncated, &w->serr);
	w->corrupt = s == TREX_FORMAT;
	if (s != TREX_OK && !w->corrupt) {
		*err = w->serr;
		return s;
	}
	if (w->corrupt) {
		w->data = tail;
		w->len = carry;
		w->offset = tail_offset;
	}
	w->final = w->len == carry || w->corrupt;
	w->gzip_cut = w->final && truncated ? trex_source_size_on_disk(job->source) : 0;
	w->header_cut = w->gzip_cut && trex_stream_header_cut(st);
	return TREX_OK;
}

/* Decoded and compressed bytes consumed up to the carry; true when cancelled. */
static bool cj_window_progress(struct trex_load_job *job, struct trex_stream *st,
                               const struct cj_window *w, size_t carry, uint64_t *reported,
                               uint64_t *disk_reported)
{
	uint64_t pos = w->offset + w->len - carry, disk = trex_stream_disk_position(st);
	bool cancel = trex_load_job_progress(job, pos - *reported, disk - *disk_reported, 0);
	*reported = pos;
	*disk_reported = disk;
	return cancel;
}

/* ---- one thread: the whole stream through one parser -------------------------------------- */

struct cj_stream_state {
	struct cj_parser ps;
	struct cj_part part;
	bool in_events;
};

/* Feeds one window; returns false when parsing is over. */
static bool cj_stream_window(struct cj_stream_state *s, const struct cj_window *w, size_t *carry,
                             struct trex_error *err)
{
	struct cj_parser *ps = &s->ps;
	ps->base = w->data;
	ps->base_offset = w->offset;
	const char *pos = w->data, *end = w->data + w->len;
	enum cj_stop r = cj_run(ps, &pos, end, NULL, w->final, err);
	*carry = (size_t)(end - pos);
	s->part.result = r;
	if (r == CJ_FATAL || ps->cancelled || ps->oom)
		return false;
	if (r == CJ_NEED_MORE && w->final) {
		cj_truncation(ps, pos, end, w->gzip_cut);
		s->part.truncated = true;
	}
	return !w->final;
}

/* Parses one window (whether more follow; *carry: its bytes left for the
 * next one); the serial and the parallel paths each have one. */
typedef bool cj_window_fn(void *state, const struct cj_window *w, size_t *carry,
                          struct trex_error *err);

/* Windows from the stream to parse until the input or parsing ends; a
 * corrupt compressed stream keeps what decoded and becomes ps's problem
 * (unless the file has one), Ctrl-C sets ps->cancelled. */
/* How a gzip stream ended early, for a message: its break or its cut. */
struct cj_gzip_end {
	char what[TREX_ERROR_MSG_MAX];
};

static enum trex_status cj_window_loop(struct trex_load_job *job, struct trex_stream *st,
                                       cj_window_fn *parse, void *state, struct cj_parser *ps,
                                       bool *truncated, struct cj_gzip_end *gz_end,
                                       struct trex_error *err)
{
	struct cj_window w = {.data = ""};
	size_t carry = 0;
	uint64_t reported = 0, disk_reported = 0;
	for (;;) {
		enum trex_status status = cj_next_window(job, st, carry, &w, err);
		if (status != TREX_OK)
			return status;
		bool more = parse(state, &w, &carry, err);
		const char *end = w.data + w.len;
		if (w.corrupt)
			snprintf(gz_end->what, sizeof gz_end->what, "%s", w.serr.message);
		else if (w.gzip_cut)
			snprintf(gz_end->what, sizeof gz_end->what,
			         "the gzip data is cut at compressed byte %llu",
			         (unsigned long long)w.gzip_cut);
		if (w.corrupt) {
			*truncated = true;
			cj_note_span(ps, TREX_INTEG_bytes_ignored, end, end, end, w.serr.message);
		} else if (w.gzip_cut && !*truncated && !job->file->truncated) {
			/* the JSON looked complete: the cut is in the gzip framing */
			char msg[128];
			snprintf(msg, sizeof msg,
			         "truncated gzip %s: the input ends at compressed byte %llu",
			         w.header_cut ? "header" : "data", (unsigned long long)w.gzip_cut);
			*truncated = true;
			cj_note_span(ps, TREX_INTEG_bytes_ignored, end, end, end, msg);
		}
		if (cj_window_progress(job, st, &w, carry, &reported, &disk_reported))
			ps->cancelled = true;
		if (!more || ps->cancelled)
			return TREX_OK;
	}
}

static bool cj_serial_window(void *state, const struct cj_window *w, size_t *carry,
                             struct trex_error *err)
{
	return cj_stream_window(state, w, carry, err);
}

/* No events array anywhere: say what the input looked like instead, and
 * where it ended (decoded; for gzip that ended early, how). */
static enum trex_status cj_no_events(const struct cj_parser *ps, struct trex_stream *st,
                                     struct trex_load_job *job, const struct cj_gzip_end *gz_end,
                                     struct trex_error *err)
{
	uint64_t end = trex_stream_position(st);
	unsigned long long cut = job->file->truncated ? trex_source_size_on_disk(job->source) : 0;
	if (end == 0 && cut && trex_stream_header_cut(st))
		return trex_error_set(err, TREX_FORMAT, NULL, 0,
		                      "truncated gzip header: the input ends at compressed byte "
		                      "%llu",
		                      cut);
	if (end == 0 && cut)
		return trex_error_set(err, TREX_FORMAT, NULL, 0,
		                      "truncated gzip data: the input ends at compressed byte %llu "
		                      "before the first decoded byte",
		                      cut);
	if (ps->state == CJ_TOP_START)
		return trex_error_set(err, TREX_FORMAT, NULL, 0,
		                      "expected a JSON trace, found an empty file");
	if (gz_end->what[0])
		return trex_error_set(err, TREX_FORMAT, NULL, (int64_t)end,
		                      "expected the \"traceEvents\" array before the end of input "
		                      "(%s)",
		                      gz_end->what);
	return trex_error_set(err, TREX_FORMAT, NULL, (int64_t)end,
	                      "expected a \"traceEvents\" array in the top-level object");
}

static enum trex_status cj_load_serial(struct trex_load_job *job, struct trex_stream *st,
                                       struct trex_error *err)
{
	struct cj_stream_state *ss = calloc(1, sizeof *ss);
	struct trex_builder *b = trex_builder_new(job->file_id);
	if (!ss || !b) {
		free(ss);
		trex_builder_free(b);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	cj_parser_init(&ss->ps, b, job);
	ss->ps.stream = true;
	ss->part.b = b;
	struct cj_gzip_end gz_end = {""};
	enum trex_status s = cj_window_loop(job, st, cj_serial_window, ss, &ss->ps,
	                                    &ss->part.truncated, &gz_end, err);
	job->file->bytes_decoded = trex_stream_position(st);
	if (s == TREX_OK && ss->part.result == CJ_FATAL)
		s = TREX_FORMAT;
	else if (s == TREX_OK && !(ss->ps.st.features & (CJ_TRACE_EVENTS | CJ_BARE_ARRAY))) {
		job->file->truncated |= ss->part.truncated;
		s = cj_no_events(&ss->ps, st, job, &gz_end, err);
	}
	ss->part.st = ss->ps.st;
	ss->part.cancelled = ss->ps.cancelled;
	ss->part.oom = ss->ps.oom;
	struct cj_stats none;
	memset(&none, 0, sizeof none);
	struct cj_part *order[1] = {&ss->part};
	if (s == TREX_OK)
		s = cj_finish(job, order, 1, &none, NULL, err);
	else
		trex_builder_free(b);
	cj_parser_free(&ss->ps);
	free(ss);
	return s;
}

/* ---- several threads: each window's stretch of events parsed in parts --------------------- */

/* The top level (outside the events array) is parsed here, between
 * windows; the events of each window are split into parts parsed on the
 * pool and checked as a chain, as for a mapped file. The part that ends a
 * window's chain hands its parser state to the next window. Meanwhile one
 * of the pool's tasks inflates the next window (TREX_STREAM_ON_CALL). */
struct cj_pstream {
	struct trex_load_job *job;
	struct cj_parser top; /* makes no events: no builder */
	bool top_truncated;
	bool fatal;            /* the top level was not JSON: err is set */
	struct cj_part *parts; /* 2 * want: the guesses, then the chain's fix-ups */
	struct cj_part **order;
	size_t want;      /* parts per window */
	size_t min_split; /* smaller stretches are parsed as one part */
	size_t min_part;  /* the guided split's smallest part */
	uint32_t seq;     /* the next part's place in the file */
	struct cj_sink sink;
	struct trex_error *err;
	struct trex_stream *stream; /* decodes ahead on the pool */
};

/* Hands over what the top level counted since last time, so the file gets
 * its statistics in byte order with the parts'. */
static void cj_top_flush(struct cj_pstream *s)
{
	struct cj_part seg;
	memset(&seg, 0, sizeof seg);
	seg.st = s->top.st;
	seg.b = s->top.b; /* the top level's problems, if it had any */
	s->top.b = NULL;
	seg.truncated = s->top_truncated;
	seg.cancelled = s->top.cancelled;
	seg.oom = s->top.oom;
	cj_emit(s->job, &seg, s->seq, &s->sink, s->err);
	/* kept: the features that steer parsing, and the rank and base time
	 * (the file keeps the last ones, so handing them again is harmless) */
	struct cj_stats *st = &s->top.st;
	memset(st->phase_counts, 0, sizeof st->phase_counts);
	st->events = 0;
	memset(&st->integrity, 0, sizeof st->integrity);
	st->has_problem = false;
	s->top_truncated = false;
}

/* The part that ended a window's chain leaves the parser where it stopped. */
static void cj_top_resume(struct cj_parser *top, const struct cj_part *t)
{
	top->state = t->end_state;
	top->expect_value = t->end_expect;
	top->st.features |= t->st.features;
	if (t->st.has_rank) {
		top->st.has_rank = true;
		top->st.rank = t->st.rank;
	}
	if (t->st.features & CJ_BASE_TIME)
		top->st.base_time_ns = t->st.base_time_ns;
}

static bool cj_window_split(struct cj_pstream *s, const struct cj_window *w, const char *pos,
                            size_t *n)
{
	const char *end = w->data + w->len;
	struct cj_part *parts = s->parts;
	memset(parts, 0, 2 * s->want * sizeof *parts);
	*n = (size_t)(end - pos) >= s->min_split
	         ? cj_split_guided(pos, end, s->job->threads, s->min_part, s->want, parts)
	         : cj_split(pos, end, 1, parts);
	bool ok = true;
	for (size_t i = 0; i < *n; i++) {
		/* a part's base time would be its own (none): the top level keeps it */
		parts[i].inherited = s->top.st.features & ~(unsigned)CJ_BASE_TIME;
		parts[i].open_end = !w->final;
		parts[i].gzip_cut = w->gzip_cut;
		parts[i].stream = true;
		parts[i].base_offset = w->offset;
		parts[i].b = trex_builder_new(s->job->file_id);
		ok = ok && parts[i].b;
	}
	parts[0].after_value = !s->top.expect_value;
	return ok;
}

/* Parses the events from pos to the window's end on the pool and hands the
 * parts over. Returns the part that ended the chain, NULL without memory. */
static struct cj_part *cj_window_parts(struct cj_pstream *s, const struct cj_window *w,
                                       const char *pos)
{
	const char *end = w->data + w->len;
	size_t n = 0, nfix = 0;
	bool ok = cj_window_split(s, w, pos, &n);
	if (ok) {
		struct cj_pool pool = {s->job, w->data, end, s->parts, n, s->stream};
		cj_run_pool(&pool, s->job->threads);
		ok = cj_chain(s->job, w->data, end, s->parts, n, s->parts + n, &nfix) == TREX_OK;
	}
	if (!ok) {
		for (size_t i = 0; i < 2 * s->want; i++)
			trex_builder_free(s->parts[i].b);
		s->sink.status = TREX_NOMEM;
		return NULL;
	}
	size_t k = cj_order(s->parts, n, nfix, s->order);
	for (size_t i = 0; i < k; i++)
		cj_emit(s->job, s->order[i], s->seq++, &s->sink, s->err);
	return s->order[k - 1]; /* the first part always starts the chain */
}

/* Parses one window; *carry: its bytes left for the next one. Returns
 * false when parsing is over. */
static bool cj_pwindow(struct cj_pstream *s, const struct cj_window *w, size_t *carry)
{
	struct cj_parser *top = &s->top;
	const char *pos = w->data, *end = w->data + w->len;
	top->base = w->data;
	top->base_offset = w->offset;
	if (top->state != CJ_ARRAY) {
		enum cj_stop r = cj_run(top, &pos, end, NULL, w->final, s->err);
		*carry = (size_t)(end - pos);
		if (r == CJ_FATAL) {
			s->fatal = true;
			return false;
		}
		if (r != CJ_ARRAY_OPEN) {
			if (r == CJ_NEED_MORE && w->final) {
				cj_truncation(top, pos, end, w->gzip_cut);
				s->top_truncated = true;
			}
			return !w->final;
		}
	}
	cj_top_flush(s);
	const struct cj_part *t = cj_window_parts(s, w, pos);
	if (!t || s->sink.status != TREX_OK)
		return false;
	cj_top_resume(top, t);
	*carry = (size_t)(end - t->pos);
	return !w->final;
}

static bool cj_parallel_window(void *state, const struct cj_window *w, size_t *carry,
                               struct trex_error *err)
{
	(void)err; /* the parts report into the pstream's own error */
	return cj_pwindow(state, w, carry);
}

static enum trex_status cj_load_parallel(struct trex_load_job *job, struct trex_stream *st,
                                         struct trex_error *err)
{
	struct cj_pstream s = {.job = job, .err = err, .stream = st};
	struct cj_gzip_end gz_end = {""};
	size_t window = cj_window_bytes(job, true);
	s.want = job->threads * CJ_WINDOW_PARTS_PER_THREAD;
	s.min_split = window / 2;
	s.min_part = window / CJ_WINDOW_PART_DIVISOR + 1;
	s.parts = calloc(2 * s.want, sizeof *s.parts);
	s.order = calloc(2 * s.want, sizeof *s.order);
	enum trex_status status = TREX_OK;
	if (!s.parts || !s.order)
		status = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	cj_parser_init(&s.top, NULL, job);
	s.top.stream = true;
	s.top.stop_on_array = true;
	if (status == TREX_OK)
		status = cj_window_loop(job, st, cj_parallel_window, &s, &s.top, &s.top_truncated,
		                        &gz_end, err);
	job->file->bytes_decoded = trex_stream_position(st);
	if (status == TREX_OK && s.fatal)
		status = TREX_FORMAT;
	else if (status == TREX_OK && s.sink.status == TREX_OK &&
	         !(s.top.st.features & (CJ_TRACE_EVENTS | CJ_BARE_ARRAY))) {
		job->file->truncated |= s.top_truncated;
		status = cj_no_events(&s.top, st, job, &gz_end, err);
	}
	if (status == TREX_OK) {
		cj_top_flush(&s);
		status = cj_sink_end(job, &s.sink, err);
	}
	trex_builder_free(s.top.b);
	cj_parser_free(&s.top);
	free(s.parts);
	free(s.order);
	return status;
}

static enum trex_status cj_load_stream(struct trex_load_job *job, struct trex_error *err)
{
	struct trex_stream *st;
	bool parallel = job->threads > 1;
	enum trex_status s =
	    trex_stream_open(job->source, cj_window_bytes(job, parallel),
	                     parallel ? TREX_STREAM_ON_CALL : TREX_STREAM_INLINE, &st, err);
	if (s != TREX_OK)
		return s;
	s = parallel ? cj_load_parallel(job, st, err) : cj_load_serial(job, st, err);
	trex_stream_close(st);
	cj_fill_path(err, job);
	return s;
}

/* ---- the format ----------------------------------------------------------------------------- */

static enum trex_status cj_load(struct trex_load_job *job, struct trex_error *err)
{
	size_t len;
	const char *map = trex_source_map(job->source, &len);
	job->file->format = "chrome-json";
	trex_phase_event_types(job->file);
	if (map) {
		job->file->bytes_decoded = len;
		return cj_load_mapped(job, map, len, err);
	}
	return cj_load_stream(job, err);
}

static int cj_sniff(const unsigned char *head, size_t len)
{
	const char *p = (const char *)head, *end = p + len;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	p = json_skip_ws(p, end);
	if (p >= end)
		return 10; /* empty or blank: let the JSON loader explain */
	if (*p == '[')
		return 60;
	if (*p != '{')
		return 0;
	return memmem(head, len, "\"traceEvents\"", 13) ? 95 : 60;
}

const struct trex_format trex_format_chrome_json = {
    .name = "chrome-json",
    .sniff = cj_sniff,
    .load = cj_load,
    .codec = &trex_json_args_codec,
};
