#include "config.h"

#include "trex/load/loader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "trex/core/schedule.h"
#include "trex/core/task.h"
#include "trex/load/classify.h"
#include "trex/load/graph_timeline.h"

static const struct trex_format *const registry[] = {
    &trex_format_chrome_json,
    &trex_format_perfetto,
    &trex_format_astrasim_timeline,
    &trex_format_astrasim_text,
    &trex_format_chakra_et,  /* Chakra execution traces */
    &trex_format_pytorch_et, /* PyTorch host execution traces */
    NULL,
};

const struct trex_format *const *trex_formats(void)
{
	return registry;
}

static const struct trex_metrics_format *const metrics_registry[] = {
    &trex_format_unitrace_text,
    NULL,
};

const struct trex_metrics_format *const *trex_metrics_formats(void)
{
	return metrics_registry;
}

const struct trex_format *trex_format_named(const char *name)
{
	for (size_t i = 0; registry[i]; i++) {
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	}
	return NULL;
}

void trex_format_names(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; registry[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", registry[i]->name);
}

/* What the jobs of one load share: parts per file, progress, the lock. */
struct trex_load_shared {
	pthread_mutex_t lock;
	const struct trex_load_opts *opts;
	struct trex_load_progress progress;
	struct file_parts *files;
};

struct file_parts {
	struct trex_builder **parts;
	uint32_t *seqs;
	size_t count, cap;
	struct trex_graph *graph; /* a graph format's (job->graph), until drawn */
};

/* Adds builder b to fp's parts (sh->lock held, or one thread). */
static enum trex_status add_part(struct file_parts *fp, uint32_t seq, struct trex_builder *b,
                                 struct trex_error *err)
{
	enum trex_status s = TREX_OK;
	if (fp->count == fp->cap) {
		size_t cap = fp->cap ? 2 * fp->cap : 8;
		struct trex_builder **parts = realloc(fp->parts, cap * sizeof *parts);
		if (parts)
			fp->parts = parts;
		uint32_t *seqs = parts ? realloc(fp->seqs, cap * sizeof *seqs) : NULL;
		if (seqs) {
			fp->seqs = seqs;
			fp->cap = cap;
		} else {
			s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		}
	}
	if (s == TREX_OK) {
		fp->parts[fp->count] = b;
		fp->seqs[fp->count++] = seq;
	} else {
		trex_builder_free(b);
	}
	return s;
}

enum trex_status trex_load_job_add_part(struct trex_load_job *job, uint32_t seq,
                                        struct trex_builder *b, struct trex_error *err)
{
	struct trex_load_shared *sh = job->shared;
	pthread_mutex_lock(&sh->lock);
	enum trex_status s = add_part(&sh->files[job->file_id], seq, b, err);
	pthread_mutex_unlock(&sh->lock);
	return s;
}

bool trex_load_job_progress(struct trex_load_job *job, uint64_t decoded_bytes_delta,
                            uint64_t disk_bytes_delta, uint64_t events_delta)
{
	struct trex_load_shared *sh = job->shared;
	const struct trex_load_opts *o = sh->opts;
	pthread_mutex_lock(&sh->lock);
	sh->progress.bytes_done += decoded_bytes_delta;
	sh->progress.disk_done += disk_bytes_delta;
	sh->progress.events += events_delta;
	if (o->progress)
		o->progress(&sh->progress, o->progress_user);
	pthread_mutex_unlock(&sh->lock);
	return o->cancel && *o->cancel;
}

/* ---- choosing a format ------------------------------------------------------------------- */

static const struct trex_format *pick_format(struct trex_source *src, const char *name,
                                             struct trex_error *err)
{
	unsigned char head[64];
	if (name) {
		const struct trex_format *f = trex_format_named(name);
		char names[256];
		if (f)
			return f;
		trex_format_names(names, sizeof names);
		trex_error_set(err, TREX_USAGE, NULL, -1, "unknown input format '%s' (formats: %s)",
		               name, names);
		return NULL;
	}
	size_t n = trex_source_peek(src, head, sizeof head, err);
	if (err->status != TREX_OK)
		return NULL;
	const struct trex_format *best = NULL;
	int best_score = 0;
	for (size_t i = 0; registry[i]; i++) {
		int score = registry[i]->sniff(head, n);
		if (score > best_score) {
			best = registry[i];
			best_score = score;
		}
	}
	/* Nothing claims it: the JSON loader, the most common format, says
	 * precisely where and why it is not a trace. */
	return best ? best : registry[0];
}

/* ---- running jobs -------------------------------------------------------------------------- */

struct job_run {
	struct trex_load_job job;
	const struct trex_format *format;
	enum trex_status status;
	struct trex_error err;
};

/* Runs stop taking jobs once one has failed. */
struct job_pool {
	struct job_run *runs;
	atomic_bool failed;
};

static void run_job(struct job_run *r)
{
	trex_error_clear(&r->err);
	r->status = r->format->load(&r->job, &r->err);
}

static void job_task(void *arg, size_t i, unsigned worker)
{
	struct job_pool *pool = arg;

	(void)worker;
	if (atomic_load(&pool->failed))
		return;
	run_job(&pool->runs[i]);
	if (pool->runs[i].status != TREX_OK)
		atomic_store(&pool->failed, true);
}

/* Many files: one file per thread. Few files: each file gets every thread. */
static void run_jobs(struct job_run *runs, size_t count, unsigned threads)
{
	if (count < threads || threads <= 1) {
		for (size_t i = 0; i < count; i++) {
			runs[i].job.threads = threads;
			run_job(&runs[i]);
			if (runs[i].status != TREX_OK)
				return;
		}
		return;
	}
	struct job_pool pool = {runs, false};
	atomic_init(&pool.failed, false);
	for (size_t i = 0; i < count; i++)
		runs[i].job.threads = 1;
	trex_task_run(threads, count, job_task, &pool);
}

/* ---- after parsing -------------------------------------------------------------------------- */

/* Input lost, or a value not taken as written (index.h, damage). */
static bool lost_data(const struct trex_build_file *f)
{
	return f->truncated || trex_integrity_damaged(&f->integrity);
}

/* A file that yielded nothing but errors is not a trace; strict mode
 * refuses any loss. */
static enum trex_status check_file(const struct trex_build_file *f, bool strict,
                                   struct trex_error *err)
{
	bool nothing = f->events == 0 && (f->integrity.syntax_errors || f->integrity.bytes_skipped);
	if (!nothing && !(strict && lost_data(f)))
		return TREX_OK;
	*err = f->first_problem;
	if (err->status == TREX_OK)
		trex_error_set(err, TREX_FORMAT, f->path, -1, "expected trace events, found none");
	return TREX_FORMAT;
}

/* The first damage example of a built file as an error, or the bare count
 * when none was kept. */
static void damage_error(const struct trex_index *idx, uint32_t file, struct trex_error *err)
{
	const struct trex_file *f = trex_index_file(idx, file);
	const char *path = trex_index_str(idx, f->path);

	for (int c = TREX_INTEG_missing_fields; c < TREX_INTEG_COUNT; c++) {
		enum trex_integrity_counter k = (enum trex_integrity_counter)c;
		const struct trex_problem *p = trex_index_problem(idx, file, k, 0);

		if (!trex_integrity_get(&f->integrity, k))
			continue;
		if (!p) {
			trex_error_set(err, TREX_FORMAT, path, -1, "%s: %llu",
			               trex_integrity_label(k),
			               (unsigned long long)trex_integrity_get(&f->integrity, k));
			return;
		}
		trex_error_set(err, TREX_FORMAT, path, p->offset, "%s", p->what);
		trex_error_set_line_col(err, p->line, p->col);
		err->disk_offset = p->disk_offset;
		return;
	}
}

/* Strict mode once the index is built: the damage only the build finds
 * (time outliers, clamped ends) refuses the input too. */
static enum trex_status check_built(const struct trex_index *idx, bool strict,
                                    struct trex_error *err)
{
	for (uint32_t i = 0; strict && i < trex_index_file_count(idx); i++) {
		if (trex_integrity_damaged(&trex_index_file(idx, i)->integrity)) {
			damage_error(idx, i, err);
			return TREX_FORMAT;
		}
	}
	return TREX_OK;
}

static unsigned default_threads(const struct trex_load_opts *opts)
{
	if (opts && opts->threads)
		return opts->threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static int cmp_seq(const void *a, const void *b, void *seqs)
{
	const uint32_t *s = seqs;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	return (s[ia] > s[ib]) - (s[ia] < s[ib]);
}

/* All parts, file by file, each file's in seq order. */
static enum trex_status gather_parts(struct trex_load_shared *sh, size_t files,
                                     struct trex_builder ***out, size_t *count)
{
	size_t total = 0;
	for (size_t f = 0; f < files; f++)
		total += sh->files[f].count;
	struct trex_builder **all = calloc(total ? total : 1, sizeof *all);
	size_t *order = calloc(total ? total : 1, sizeof *order);
	if (!all || !order) {
		free(all);
		free(order);
		return TREX_NOMEM;
	}
	size_t k = 0;
	for (size_t f = 0; f < files; f++) {
		struct file_parts *fp = &sh->files[f];
		for (size_t i = 0; i < fp->count; i++)
			order[i] = i;
		qsort_r(order, fp->count, sizeof *order, cmp_seq, fp->seqs);
		for (size_t i = 0; i < fp->count; i++)
			all[k++] = fp->parts[order[i]];
		fp->count = 0; /* ownership moved */
	}
	free(order);
	*out = all;
	*count = total;
	return TREX_OK;
}

static void free_shared(struct trex_load_shared *sh, size_t files)
{
	for (size_t f = 0; sh->files && f < files; f++) {
		for (size_t i = 0; i < sh->files[f].count; i++)
			trex_builder_free(sh->files[f].parts[i]);
		free(sh->files[f].parts);
		free(sh->files[f].seqs);
		trex_graph_free(sh->files[f].graph);
	}
	free(sh->files);
	pthread_mutex_destroy(&sh->lock);
}

/* line:col (and for gzip the compressed offset) of an error's offset. */
static void add_line_col(struct trex_error *e, struct trex_source *src)
{
	if (e->status == TREX_OK || e->offset < 0 || e->line > 0 || !src)
		return;
	int64_t line, col, disk;
	uint64_t offset = (uint64_t)e->offset;
	struct trex_error ignored;
	trex_error_clear(&ignored);
	if (trex_source_positions(src, &offset, 1, &line, &col, &disk, &ignored) == TREX_OK) {
		trex_error_set_line_col(e, line, col);
		e->disk_offset = disk;
	}
}

static enum trex_status prepare_runs(struct trex_source **sources, size_t count,
                                     struct trex_load_shared *sh, struct job_run *runs,
                                     struct trex_build_file *files, struct trex_error *err)
{
	for (size_t i = 0; i < count; i++) {
		struct trex_build_file *f = &files[i];
		f->path = trex_source_path(sources[i]);
		f->gzip = trex_source_is_gzip(sources[i]);
		f->bytes_on_disk = trex_source_size_on_disk(sources[i]);
		trex_error_clear(&f->first_problem);
		sh->progress.bytes_total += f->bytes_on_disk;
		runs[i].job = (struct trex_load_job){
		    .source = sources[i],
		    .file_id = (uint32_t)i,
		    .file = f,
		    .opts = sh->opts,
		    .shared = sh,
		};
		runs[i].format = pick_format(sources[i], sh->opts->format, err);
		if (!runs[i].format) {
			add_line_col(err, sources[i]);
			return err->status;
		}
		if (runs[i].format->graph) {
			runs[i].job.graph = sh->files[i].graph = trex_graph_new();
			if (!runs[i].job.graph)
				return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		}
		f->codec = runs[i].format->codec;
		f->codec_ctx = sources[i];
	}
	return TREX_OK;
}

/* The source when its format has lines (a binary one has none), else NULL. */
static struct trex_source *text_source(const struct job_run *run, struct trex_source *src)
{
	return run->format->codec->positions ? src : NULL;
}

static enum trex_status finish_files(struct job_run *runs, struct trex_build_file *files,
                                     struct trex_source **sources, size_t count, bool strict,
                                     struct trex_error *err)
{
	for (size_t i = 0; i < count; i++) {
		if (runs[i].status != TREX_OK) {
			*err = runs[i].err;
			add_line_col(err, text_source(&runs[i], sources[i]));
			return runs[i].status;
		}
	}
	for (size_t i = 0; i < count; i++) {
		add_line_col(&files[i].first_problem, text_source(&runs[i], sources[i]));
		enum trex_status s = check_file(&files[i], strict, err);
		if (s != TREX_OK)
			return s;
	}
	return TREX_OK;
}

/* ---- ranks ---------------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

bool trex_load_assign_ranks(int64_t *ranks, const bool *claimed, size_t count)
{
	int64_t *taken = malloc((count ? count : 1) * sizeof(*taken));
	size_t ntaken = 0, next = 0;
	int64_t r = 0;

	if (!taken)
		return false;
	for (size_t i = 0; i < count; i++)
		if (claimed[i])
			taken[ntaken++] = ranks[i];
	qsort(taken, ntaken, sizeof(*taken), cmp_i64);
	for (size_t i = 0; i < count; i++) {
		if (claimed[i])
			continue;
		for (;; r++) {
			while (next < ntaken && taken[next] < r)
				next++;
			if (next == ntaken || taken[next] != r)
				break;
		}
		ranks[i] = r++;
	}
	free(taken);
	return true;
}

/* Files without distributedInfo.rank take the lowest ranks >= 0 that no
 * file claims, in command-line order, so that a file's rank does not
 * depend on where the files that have one stand on the command line. */
static enum trex_status assign_ranks(struct trex_build_file *files, size_t count)
{
	int64_t *ranks = malloc((count ? count : 1) * sizeof(*ranks));
	bool *claimed = malloc((count ? count : 1) * sizeof(*claimed));
	bool ok = ranks && claimed;

	for (size_t i = 0; ok && i < count; i++) {
		ranks[i] = files[i].rank;
		claimed[i] = files[i].has_rank;
	}
	ok = ok && trex_load_assign_ranks(ranks, claimed, count);
	for (size_t i = 0; ok && i < count; i++)
		files[i].rank = ranks[i];
	free(ranks);
	free(claimed);
	return ok ? TREX_OK : TREX_NOMEM;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

struct file_keys {
	const int64_t *ranks;
	const char *const *paths;
};

/* Rank, then (files claiming the same rank) base name, path and position:
 * the order of the command line decides nothing it does not have to. */
static int cmp_file_order(const void *a, const void *b, void *keys_arg)
{
	const struct file_keys *k = keys_arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	int c;

	if (k->ranks[ia] != k->ranks[ib])
		return k->ranks[ia] < k->ranks[ib] ? -1 : 1;
	c = strcmp(base_name(k->paths[ia]), base_name(k->paths[ib]));
	if (!c)
		c = strcmp(k->paths[ia], k->paths[ib]);
	return c ? c : (ia > ib) - (ia < ib);
}

void trex_load_order_files(const int64_t *ranks, const char *const *paths, size_t count,
                           size_t *order)
{
	struct file_keys keys = {ranks, paths};

	for (size_t i = 0; i < count; i++)
		order[i] = i;
	if (count > 1)
		qsort_r(order, count, sizeof(*order), cmp_file_order, &keys);
}

/* Renumbers the files (and their parts) in rank order: file ids are the
 * display order of every table and view. */
static enum trex_status order_by_rank(struct trex_load_shared *sh, struct trex_build_file *files,
                                      size_t count)
{
	size_t *order = malloc((count ? count : 1) * sizeof(*order));
	struct trex_build_file *f = malloc((count ? count : 1) * sizeof(*f));
	struct file_parts *p = malloc((count ? count : 1) * sizeof(*p));
	int64_t *ranks = malloc((count ? count : 1) * sizeof(*ranks));
	const char **paths = malloc((count ? count : 1) * sizeof(*paths));

	if (!order || !f || !p || !ranks || !paths) {
		free(order);
		free(f);
		free(p);
		free(ranks);
		free(paths);
		return TREX_NOMEM;
	}
	for (size_t i = 0; i < count; i++) {
		ranks[i] = files[i].rank;
		paths[i] = files[i].path;
	}
	trex_load_order_files(ranks, paths, count, order);
	free(ranks);
	free(paths);
	for (size_t i = 0; i < count; i++) {
		f[i] = files[order[i]];
		p[i] = sh->files[order[i]];
		for (size_t k = 0; k < p[i].count; k++)
			trex_builder_set_file(p[i].parts[k], (uint32_t)i);
	}
	memcpy(files, f, count * sizeof(*f));
	memcpy(sh->files, p, count * sizeof(*p));
	free(order);
	free(f);
	free(p);
	return TREX_OK;
}

/* ---- execution graphs ------------------------------------------------------------------------ */

/* The graph formats' files (their graphs, in file order) joined,
 * scheduled and drawn: each file's timeline becomes its one part. *out:
 * the graph for the build, NULL when no file was a graph. */
static enum trex_status draw_graphs(struct trex_load_shared *sh, size_t count,
                                    struct trex_graph **out, struct trex_error *err)
{
	const struct trex_load_opts *o = sh->opts;
	struct trex_schedule_opts so = {
	    .bandwidth_gbps =
	        o->bandwidth_gbps > 0 ? o->bandwidth_gbps : TREX_SCHED_DEFAULT_BANDWIDTH_GBPS,
	    .latency_ns = o->latency_ns > 0 ? o->latency_ns : TREX_SCHED_DEFAULT_LATENCY_NS,
	    .cancel = o->cancel,
	};
	struct trex_graph **graphs = calloc(count ? count : 1, sizeof(*graphs));
	struct trex_builder **parts = calloc(count ? count : 1, sizeof(*parts));
	enum trex_status s = graphs && parts ? TREX_OK : TREX_NOMEM;
	for (size_t f = 0; f < count; f++) {
		if (graphs)
			graphs[f] = sh->files[f].graph;
		else
			trex_graph_free(sh->files[f].graph);
		sh->files[f].graph = NULL;
	}
	*out = NULL;
	if (s == TREX_OK)
		s = trex_graph_timeline(graphs, (uint32_t)count, &so, parts, out, err);
	for (size_t f = 0; s == TREX_OK && f < count; f++)
		if (parts[f]) {
			s = add_part(&sh->files[f], 0, parts[f], err);
			parts[f] = NULL;
		}
	for (size_t f = 0; parts && f < count; f++)
		trex_builder_free(parts[f]);
	free(graphs);
	free(parts);
	return s;
}

enum trex_status trex_load_sources(struct trex_source **sources, size_t count,
                                   const struct trex_load_opts *opts, struct trex_index **out,
                                   struct trex_error *err)
{
	static const struct trex_load_opts no_opts;
	struct trex_load_shared sh = {.opts = opts ? opts : &no_opts};
	trex_error_clear(err);
	*out = NULL;
	pthread_mutex_init(&sh.lock, NULL);
	sh.progress.file_count = (uint32_t)count;
	struct job_run *runs = calloc(count ? count : 1, sizeof *runs);
	struct trex_build_file *files = calloc(count ? count : 1, sizeof *files);
	sh.files = calloc(count ? count : 1, sizeof *sh.files);
	enum trex_status s = runs && files && sh.files ? TREX_OK : TREX_NOMEM;
	if (s == TREX_OK && count == 0)
		s = trex_error_set(err, TREX_USAGE, NULL, -1, "no input files");
	if (s == TREX_OK)
		s = prepare_runs(sources, count, &sh, runs, files, err);
	unsigned threads = default_threads(opts);
	if (s == TREX_OK) {
		run_jobs(runs, count, threads);
		s = finish_files(runs, files, sources, count, sh.opts->strict, err);
	}
	if (s == TREX_OK)
		s = assign_ranks(files, count);
	if (s == TREX_OK)
		s = order_by_rank(&sh, files, count);
	struct trex_build_classifier with_override;
	struct trex_build_input in = {.files = files,
	                              .file_count = count,
	                              .threads = threads,
	                              .classifier = &trex_load_classifier};
	if (opts && opts->comm_override) {
		trex_load_classifier_with(opts->comm_override, &with_override);
		in.classifier = &with_override;
	}
	if (s == TREX_OK)
		s = draw_graphs(&sh, count, &in.graph, err);
	if (s == TREX_OK)
		s = gather_parts(&sh, count, &in.parts, &in.part_count);
	if (s != TREX_OK) {
		trex_graph_free(in.graph);
		in.graph = NULL;
	}
	if (s == TREX_OK) {
		s = trex_index_build(&in, out, err);
		sources = NULL; /* the index owns them now (its codecs), also on failure */
	}
	if (s == TREX_OK && (s = check_built(*out, sh.opts->strict, err)) != TREX_OK) {
		trex_index_free(*out);
		*out = NULL;
	}
	if (s == TREX_NOMEM && err->status == TREX_OK)
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	/* not built: a file's source is closed through its codec once the
	 * file has one (a format's own codec context owns the source) */
	for (size_t i = 0; sources && i < count; i++) {
		if (files && files[i].codec_ctx)
			files[i].codec->close(files[i].codec_ctx);
		else
			trex_source_close(sources[i]);
	}
	free(in.parts);
	free_shared(&sh, count);
	free(runs);
	free(files);
	return s;
}

enum trex_status trex_load_paths(const char *const *paths, size_t count,
                                 const struct trex_load_opts *opts, struct trex_index **out,
                                 struct trex_error *err)
{
	trex_error_clear(err);
	*out = NULL;
	struct trex_source **sources = calloc(count ? count : 1, sizeof *sources);
	if (!sources)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	enum trex_status s = TREX_OK;
	for (size_t i = 0; i < count && s == TREX_OK; i++)
		s = trex_source_open_cancellable(paths[i], opts ? opts->cancel : NULL, &sources[i],
		                                 err);
	if (s == TREX_OK) {
		s = trex_load_sources(sources, count, opts, out, err);
		free(sources);
		return s;
	}
	for (size_t i = 0; i < count; i++)
		if (sources[i])
			trex_source_close(sources[i]);
	free(sources);
	return s;
}
