/* `trex index FILE... [-j N]`: each trace's index file (load/index_cache.h),
 * built N files at once; a file whose index file is fresh is left as it is
 * (--rebuild-cache builds it again). One line per file, in input order. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "trex/core/index_file.h"
#include "trex/load/index_cache.h"
#include "trex/load/source.h"

struct index_job {
	const char *path;
	enum trex_status status;
	struct trex_error err;
	struct trex_cache_report rep;
	uint64_t events;
	const char *why_not; /* not cacheable: why (static) */
};

struct index_pool {
	struct index_job *jobs;
	size_t n, next;
	pthread_mutex_t lock;
	struct trex_load_opts lo;
	enum trex_cache_mode mode;
};

static void index_one(struct index_pool *pool, struct index_job *job)
{
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;

	trex_error_clear(&job->err);
	job->status = trex_source_open(job->path, &src, &job->err);
	if (job->status == TREX_OK)
		job->status =
		    trex_cache_load(&src, 1, &pool->lo, pool->mode, &job->rep, &idx, &job->err);
	if (job->status != TREX_OK)
		return;
	for (uint32_t f = 0; f < trex_index_file_count(idx); f++)
		job->events += trex_index_file(idx, f)->events;
	/* not written without a note: the input itself is not cacheable; with
	 * one, the write failed (a full disk, a file size limit): the job did */
	if (!job->rep.hit && !job->rep.written && trex_index_file_supported(idx, &job->why_not)) {
		job->why_not = job->rep.note[0] ? NULL : "only regular files are indexed";
		if (job->rep.note[0]) {
			job->status =
			    trex_error_set(&job->err, TREX_IO, NULL, -1, "%s", job->rep.note);
			job->rep.note[0] = '\0'; /* told once, as the job's error */
		}
	}
	trex_index_free(idx);
}

static void *index_worker(void *arg)
{
	struct index_pool *pool = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next < pool->n ? pool->next++ : pool->n;
		pthread_mutex_unlock(&pool->lock);
		if (i == pool->n)
			return NULL;
		index_one(pool, &pool->jobs[i]);
	}
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* "TRACE: built INDEX (E events, B bytes, X bytes/event)", "... up to date", or why not. */
static void report_job(const struct index_job *job, FILE *out)
{
	const struct trex_cache_report *r = &job->rep;
	uint64_t bytes = r->path[0] ? file_size(r->path) : 0;

	if (r->note[0])
		cli_print_cache_note(r);
	if (job->status != TREX_OK) {
		char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

		trex_error_format(&job->err, msg, sizeof(msg));
		fprintf(stderr, "trex: %s\n", msg);
		return;
	}
	if (!r->hit && !r->written) {
		fprintf(out, "%s: not indexed: %s\n", job->path,
		        job->why_not ? job->why_not : "the index file could not be written");
		return;
	}
	fprintf(out, "%s: %s %s (%" PRIu64 " events, %" PRIu64 " bytes, %.1f bytes/event)\n",
	        job->path, r->hit ? "up to date," : "built", r->path, job->events, bytes,
	        job->events ? (double)bytes / (double)job->events : 0.0);
}

/* Workers: N files at once; a file gets what threads are left over. */
static enum trex_status run_pool(struct index_pool *pool, unsigned jobs, struct trex_error *err)
{
	unsigned workers = jobs < pool->n ? jobs : (unsigned)pool->n;
	pthread_t *t = calloc(workers, sizeof(*t));
	unsigned started = 0;

	if (!t)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	pool->lo.threads = jobs / workers ? jobs / workers : 1;
	for (; started < workers; started++)
		if (pthread_create(&t[started], NULL, index_worker, pool) != 0)
			break;
	if (started == 0)
		index_worker(pool);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	return TREX_OK;
}

static enum trex_status index_paths(const struct cli_opts *o, const struct cli_paths *paths,
                                    FILE *out, struct trex_error *err)
{
	struct index_pool pool = {.n = paths->n, .mode = cli_cache_mode(o)};
	enum trex_status st, worst = TREX_OK;
	size_t failed = 0;

	pool.lo = (struct trex_load_opts){.strict = o->strict,
	                                  .format = o->input_format,
	                                  .bandwidth_gbps = o->bandwidth_gbps,
	                                  .latency_ns = o->latency_ns,
	                                  .npus = o->npus,
	                                  .npu_frequency_ghz = o->npu_frequency_ghz};
	pool.jobs = calloc(paths->n ? paths->n : 1, sizeof(*pool.jobs));
	if (!pool.jobs)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (size_t i = 0; i < paths->n; i++)
		pool.jobs[i].path = paths->v[i];
	pthread_mutex_init(&pool.lock, NULL);
	st = run_pool(&pool, cli_threads(o), err);
	pthread_mutex_destroy(&pool.lock);
	for (size_t i = 0; st == TREX_OK && i < paths->n; i++) {
		report_job(&pool.jobs[i], out);
		failed += pool.jobs[i].status != TREX_OK;
		if (pool.jobs[i].status != TREX_OK && worst == TREX_OK)
			worst = pool.jobs[i].status;
	}
	free(pool.jobs);
	if (st == TREX_OK && failed) /* every file was tried; each failure said why above */
		st = trex_error_set(err, worst, NULL, -1, "index: %zu of %zu files failed", failed,
		                    paths->n);
	return st;
}

enum trex_status cmd_index(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                           struct trex_error *err)
{
	struct cli_paths paths;
	enum trex_status st;

	(void)m;
	if (o->no_cache)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "index: --no-cache builds nothing");
	if (o->demo || o->input_count == 0)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "index: which traces? (FILE...)");
	st = cli_expand_inputs(o->inputs, o->input_count, &paths, err);
	if (st == TREX_OK)
		st = cli_expand_dirs(&paths, err);
	if (st == TREX_OK)
		st = index_paths(o, &paths, out, err);
	cli_paths_free(&paths);
	return st;
}
