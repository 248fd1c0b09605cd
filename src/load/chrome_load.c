#include "config.h"

#include "formats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_parse.h"
#include "json_scan.h"

#define CJ_STREAM_CHUNK (4u << 20)
#define CJ_MIN_PARALLEL_BYTES (8u << 20)
#define CJ_CHUNKS_PER_THREAD 4

/* One piece of the events array parsed by one builder. */
struct cj_part {
	const char *start;        /* first event, or where the prelude left off */
	const char *stop;         /* next part's start (NULL: run to the end) */
	const char *pos;          /* where parsing stopped */
	enum cj_stop result;
	struct trex_builder *b;
	struct cj_stats st;
	struct trex_error err;
	bool truncated;
	bool cancelled, oom;
	unsigned inherited;       /* prelude features the parser needs (bare array) */
};

struct cj_pool {
	struct trex_load_job *job;
	const char *map, *end;
	struct cj_part *parts;
	size_t count;
	atomic_size_t next;
};

/* ---- one part ------------------------------------------------------------------------ */

/* Input ended inside something: count what was left and say where. */
static void cj_truncation(struct cj_parser *ps, const char *pos, const char *end)
{
	const char *rest = json_skip_ws(pos, end);
	ps->st.integrity.bytes_ignored += (uint64_t)(end - pos);
	if (rest < end)
		cj_problem(ps, pos, "input ends inside an event: %llu bytes ignored",
			   (unsigned long long)(end - pos));
	else if (ps->state == CJ_ARRAY)
		cj_problem(ps, pos, "']' closing the events array: input ends after the last event");
	else
		cj_problem(ps, pos, "'}' closing the trace object: input ends early");
}

static void cj_parse_part(struct trex_load_job *job, const char *map, const char *end,
			  struct cj_part *part)
{
	struct cj_parser ps;
	cj_parser_init(&ps, part->b, job);
	ps.base = map;
	ps.state = CJ_ARRAY;
	ps.expect_value = true;
	ps.st.features = part->inherited;
	ps.progress_bytes_from = (uint64_t)(part->start - map);
	const char *pos = part->start;
	part->result = cj_run(&ps, &pos, end, part->stop, true, &part->err);
	part->pos = pos;
	if (part->result == CJ_NEED_MORE && !ps.cancelled && !ps.oom) {
		cj_truncation(&ps, pos, end);
		part->truncated = true;
	}
	uint64_t rest = (uint64_t)(pos - map) - ps.progress_bytes_from;
	trex_load_job_progress(job, rest, rest, ps.st.events - ps.progress_events);
	part->cancelled = ps.cancelled;
	part->oom = ps.oom;
	part->st = ps.st;
	cj_parser_free(&ps);
}

static void *cj_worker(void *arg)
{
	struct cj_pool *pool = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&pool->next, 1);
		if (i >= pool->count)
			return NULL;
		cj_parse_part(pool->job, pool->map, pool->end, &pool->parts[i]);
	}
}

static void cj_run_pool(struct cj_pool *pool, unsigned threads)
{
	pthread_t tids[64];
	unsigned started = 0;
	if (threads > 64)
		threads = 64;
	for (unsigned t = 1; t < threads && t < pool->count; t++)
		if (pthread_create(&tids[started], NULL, cj_worker, pool) == 0)
			started++;
	cj_worker(pool);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
}

/* ---- splitting and the chain check ---------------------------------------------------- */

/* Guesses event boundaries; a wrong guess is caught by the chain check. */
static size_t cj_split(const char *start, const char *end, size_t want, struct cj_part *parts)
{
	size_t n = 0;
	parts[n++].start = start;
	size_t step = (size_t)(end - start) / want;
	for (size_t k = 1; k < want; k++) {
		const char *guess = start + k * step;
		if (guess <= parts[n - 1].start)
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
		file->phase_counts[ph] += st->phase_counts[ph];
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

/* Hands parts to the job in byte order and folds their statistics. */
static enum trex_status cj_finish(struct trex_load_job *job, struct cj_part **order, size_t n,
				  const struct cj_stats *prelude, struct trex_error *err)
{
	struct trex_build_file *file = job->file;
	const char *path = trex_source_path(job->source);
	unsigned features = prelude->features;
	cj_merge_stats(file, prelude, &file->first_problem, path);
	enum trex_status status = TREX_OK;
	for (size_t i = 0; i < n; i++) {
		struct cj_part *p = order[i];
		cj_merge_stats(file, &p->st, &file->first_problem, path);
		features |= p->st.features;
		file->truncated |= p->truncated;
		if (p->cancelled)
			status = TREX_CANCELLED;
		if (p->oom)
			status = TREX_NOMEM;
		if (p->result == CJ_FATAL && status == TREX_OK) {
			*err = p->err;
			status = TREX_FORMAT;
		}
		if (status == TREX_OK)
			status = trex_load_job_add_part(job, (uint32_t)i, p->b, err);
		else
			trex_builder_free(p->b);
		p->b = NULL;
	}
	file->dialect = cj_dialect(features);
	if (status == TREX_CANCELLED)
		trex_error_set(err, TREX_CANCELLED, path, -1, "loading cancelled");
	if (status == TREX_NOMEM)
		trex_error_set(err, TREX_NOMEM, path, -1, "out of memory while loading");
	return status;
}

/* ---- the prelude: up to the events array --------------------------------------------- */

static enum trex_status cj_prelude(struct trex_load_job *job, struct cj_parser *ps,
				   const char **pp, const char *end, bool final,
				   struct trex_error *err)
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
	if (s != TREX_OK) {
		cj_fill_path(err, job);
		return s;
	}
	unsigned threads = job->threads ? job->threads : 1;
	size_t want = len >= CJ_MIN_PARALLEL_BYTES && threads > 1 ? threads * CJ_CHUNKS_PER_THREAD : 1;
	struct cj_part *parts = calloc(2 * want, sizeof *parts);
	struct cj_part **order = calloc(2 * want, sizeof *order);
	if (!parts || !order) {
		free(parts);
		free(order);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	size_t n = cj_split(pos, end, want, parts);
	for (size_t i = 0; i < n; i++) {
		parts[i].inherited = pre.st.features & CJ_BARE_ARRAY;
		if (!(parts[i].b = trex_builder_new(job->file_id)))
			s = TREX_NOMEM;
	}
	if (s == TREX_OK) {
		struct cj_pool pool = {job, map, end, parts, n, 0};
		cj_run_pool(&pool, threads);
	}
	size_t nfix = 0;
	if (s == TREX_OK)
		s = cj_chain(job, map, end, parts, n, parts + n, &nfix);
	size_t k = 0;
	/* byte order: each fix-up part follows the valid parts before its start */
	for (size_t i = 0, f = 0; i < n || f < nfix;) {
		bool take_fix = f < nfix && (i >= n || parts[n + f].start < parts[i].start);
		struct cj_part *p = take_fix ? &parts[n + f++] : &parts[i++];
		if (p->b)
			order[k++] = p;
	}
	if (s == TREX_OK)
		s = cj_finish(job, order, k, &pre.st, err);
	else
		for (size_t i = 0; i < 2 * want; i++)
			trex_builder_free(parts[i].b);
	if (s == TREX_NOMEM && err->status == TREX_OK)
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	free(parts);
	free(order);
	cj_fill_path(err, job);
	return s;
}

/* ---- compressed input: streamed, inflate overlapped with parsing -------------------------- */

struct cj_stream_state {
	struct cj_parser ps;
	struct cj_part part;
	bool in_events;
};

/* Feeds one window; returns false when parsing is over. */
static bool cj_stream_window(struct cj_stream_state *s, const char *data, size_t len,
			     uint64_t offset, bool final, size_t *carry, struct trex_error *err)
{
	struct cj_parser *ps = &s->ps;
	ps->base = data;
	ps->base_offset = offset;
	const char *pos = data, *end = data + len;
	enum cj_stop r = cj_run(ps, &pos, end, NULL, final, err);
	*carry = (size_t)(end - pos);
	s->part.result = r;
	if (r == CJ_FATAL || ps->cancelled || ps->oom)
		return false;
	if (r == CJ_NEED_MORE && final) {
		cj_truncation(ps, pos, end);
		s->part.truncated = true;
	}
	return !final;
}

static enum trex_status cj_stream_loop(struct trex_load_job *job, struct trex_stream *st,
				       struct cj_stream_state *s, struct trex_error *err)
{
	size_t carry = 0;
	uint64_t reported = 0, disk_reported = 0;
	for (;;) {
		const char *data;
		size_t len;
		uint64_t offset;
		bool truncated = false;
		struct trex_error serr;
		trex_error_clear(&serr);
		enum trex_status status =
			trex_stream_next(st, carry, &data, &len, &offset, &truncated, &serr);
		bool corrupt = status == TREX_FORMAT;
		if (status != TREX_OK && !corrupt) {
			*err = serr;
			return status;
		}
		bool final = len == carry || corrupt;
		bool more = cj_stream_window(s, data, len, offset, final, &carry, err);
		if (corrupt) { /* keep what decoded; say where the compressed data broke */
			s->part.truncated = true;
			if (!s->ps.st.has_problem)
				cj_problem(&s->ps, data + len, "%s", serr.message);
		}
		uint64_t pos = offset + len - carry, disk = trex_stream_disk_position(st);
		if (trex_load_job_progress(job, pos - reported, disk - disk_reported, 0))
			s->ps.cancelled = true;
		reported = pos;
		disk_reported = disk;
		if (!more || s->ps.cancelled)
			return TREX_OK;
	}
}

static enum trex_status cj_load_stream(struct trex_load_job *job, struct trex_error *err)
{
	struct trex_stream *st;
	enum trex_status s = trex_stream_open(job->source, CJ_STREAM_CHUNK, job->threads > 1, &st, err);
	if (s != TREX_OK)
		return s;
	struct cj_stream_state *ss = calloc(1, sizeof *ss);
	struct trex_builder *b = trex_builder_new(job->file_id);
	if (!ss || !b) {
		free(ss);
		trex_builder_free(b);
		trex_stream_close(st);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	cj_parser_init(&ss->ps, b, job);
	ss->ps.stream = true;
	ss->part.b = b;
	s = cj_stream_loop(job, st, ss, err);
	job->file->bytes_decoded = trex_stream_position(st);
	trex_stream_close(st);
	if (s == TREX_OK && ss->part.result == CJ_FATAL)
		s = TREX_FORMAT;
	else if (s == TREX_OK && !(ss->ps.st.features & (CJ_TRACE_EVENTS | CJ_BARE_ARRAY))) {
		s = TREX_FORMAT;
		if (ss->ps.state == CJ_TOP_START)
			trex_error_set(err, TREX_FORMAT, NULL, 0, "expected a JSON trace, found an empty file");
		else
			trex_error_set(err, TREX_FORMAT, NULL, -1,
				       "expected a \"traceEvents\" array in the top-level object");
	}
	ss->part.st = ss->ps.st;
	ss->part.cancelled = ss->ps.cancelled;
	ss->part.oom = ss->ps.oom;
	struct cj_stats none;
	memset(&none, 0, sizeof none);
	struct cj_part *order[1] = {&ss->part};
	if (s == TREX_OK)
		s = cj_finish(job, order, 1, &none, err);
	else
		trex_builder_free(b);
	cj_parser_free(&ss->ps);
	free(ss);
	cj_fill_path(err, job);
	return s;
}

/* ---- the format ----------------------------------------------------------------------------- */

static enum trex_status cj_load(struct trex_load_job *job, struct trex_error *err)
{
	size_t len;
	const char *map = trex_source_map(job->source, &len);
	job->file->format = "chrome-json";
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
};
