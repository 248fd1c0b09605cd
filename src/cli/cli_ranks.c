/* Many ranks without one index of them all: directories as inputs;
 * `trex kernels` of several traces from each rank's own index file (its
 * kernel summary, core/kernel_summary.h), merged (analysis/kernels_merge.h);
 * other groupings and --memory from each rank's index, by parts or rows
 * (analysis/kernels_rank.h);
 * `trex gpu-time`, `steps` and `gaps` of several traces from each rank's
 * own table, whose rows (each one device's or one step's of that rank)
 * are relabelled and timed as the set names and times them, then joined:
 * by rank (gaps longest first). The set is
 * never loaded as one index: for kernels a rank whose index file is fresh
 * is only mapped and its summary read; any other rank is loaded alone
 * (from its index file, or parsed and its index file written), summarised
 * or tabled, and freed, -j N ranks at once. */
#include "config.h"

#include "cli.h"

#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/gaps.h"
#include "trex/analysis/gpu_time.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/integrity_set.h"
#include "trex/analysis/kernels_merge.h"
#include "trex/analysis/kernels_rank.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/ops.h"
#include "trex/analysis/steps.h"
#include "trex/analysis/summary_set.h"
#include "trex/core/index.h"
#include "trex/export/table_write.h"
#include "trex/load/loader.h"

/* ---- directories ------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The regular files of dir but hidden ones and index files, by name. */
static enum trex_status dir_files(const char *dir, struct cli_paths *out, struct trex_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t from = out->n;
	enum trex_status st = TREX_OK;

	if (!d)
		return trex_error_set(err, TREX_IO, dir, -1, "cannot read the directory");
	while (st == TREX_OK && (e = readdir(d))) {
		struct stat sb;
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		char *path = malloc(len);

		if (!path) {
			st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
			break;
		}
		snprintf(path, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
		         e->d_name);
		if (e->d_name[0] != '.' && !cli_is_index_file(path) && stat(path, &sb) == 0 &&
		    S_ISREG(sb.st_mode))
			st = cli_paths_push(out, path, err);
		free(path);
	}
	closedir(d);
	if (st == TREX_OK && out->n == from)
		st = trex_error_set(err, TREX_IO, dir, -1, "no trace in this directory");
	if (st == TREX_OK)
		qsort(out->v + from, out->n - from, sizeof(*out->v), cmp_str);
	return st;
}

enum trex_status cli_expand_dirs(struct cli_paths *p, struct trex_error *err)
{
	struct cli_paths out = {0};
	enum trex_status st = TREX_OK;
	bool any = false;

	for (size_t i = 0; i < p->n && !any; i++)
		any = is_dir(p->v[i]);
	if (!any)
		return TREX_OK;
	for (size_t i = 0; i < p->n && st == TREX_OK; i++)
		st = is_dir(p->v[i]) ? dir_files(p->v[i], &out, err)
		                     : cli_paths_push(&out, p->v[i], err);
	if (st != TREX_OK) {
		cli_paths_free(&out);
		return st;
	}
	cli_paths_free(p);
	*p = out;
	return TREX_OK;
}

#define PROGRESS_SECONDS 0.1 /* between redraws, as the loading line */

/* ---- one rank ------------------------------------------------------------------------------ */

struct rank_job {
	const char *path;
	enum trex_status st;
	struct trex_error err;
	struct trex_cache_rank r;
	struct trex_table table;         /* gpu-time, steps, gaps: the rank's own, when has_table */
	struct trex_category_part *cats; /* categories: the rank's part, when has_table */
	struct trex_ops_part *ops;       /* ops, api: the rank's part, when has_table */
	struct trex_kernels_rank *kern;  /* kernels by name (--memory) or op: the rank's part */
	struct trex_integrity_part *integ; /* integrity: the rank's part */
	struct trex_summary *summary;      /* info: the rank's own report */
	bool has_table;
	int64_t start;    /* of the rank's index: its table's times are from there */
	bool empty;       /* the rank's index has no time span */
	int64_t own_rank; /* as its own index gives it */
	bool claimed;     /* by the trace itself (distributedInfo) */
	int64_t rank;     /* in the set */
	char *warnings;   /* the loss of a damaged trace, as the merged load tells it */
	size_t warnings_len;
};

struct rank_pool {
	struct rank_job *jobs;
	size_t n, next, done;
	pthread_mutex_t lock;
	struct trex_load_opts lo;
	enum trex_cache_mode mode;
	const struct cli_opts *o;
	bool tables;       /* each rank's table of the command, else its kernel summary */
	bool summary_only; /* a summary from a fresh index file, or the job fails */
	bool progress;     /* a line on stderr */
	bool shown;        /* it was drawn */
	double shown_at;
	struct timespec start;
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* A trace loaded whole that lost data: its warnings kept for the end, then
 * the index freed (only its summary is needed). */
static void rank_loaded(struct rank_job *job)
{
	const struct trex_index *idx = job->r.idx;
	FILE *mem;

	for (uint32_t f = 0; f < trex_index_file_count(idx); f++)
		if (trex_file_lost_data(trex_index_file(idx, f)) &&
		    (mem = open_memstream(&job->warnings, &job->warnings_len))) {
			cli_describe_losses(idx, mem);
			fclose(mem);
			break;
		}
	trex_index_free(job->r.idx);
	job->r.idx = NULL;
}

/* Whether kernels of a set come from the ranks' summaries (by name, no
 * --memory), else from each rank's index (kernels_rank.h). */
static bool kernels_summarised(const struct cli_opts *o)
{
	return o->group == TREX_KERNELS_BY_NAME && !o->memory;
}

/* Whether kernels group what spans ranks (by name, by op): a part each. */
static bool kernels_by_part(const struct cli_opts *o)
{
	return o->group == TREX_KERNELS_BY_NAME || o->group == TREX_KERNELS_BY_OP;
}

/* The command's table of one rank's index, as the command makes it
 * (categories, ops, api, kernels by name or op: the rank's part of the
 * set's table, in the job). */
static enum trex_status command_table(const struct cli_opts *o, const struct trex_index *idx,
                                      struct rank_job *job)
{
	struct trex_table *t = &job->table;
	struct trex_error *err = &job->err;
	struct trex_step_opts so = {o->step};
	struct trex_gap_opts go = {o->min_ns, o->top};
	struct trex_kernel_opts ko = {
	    .group = o->group, .memory = o->memory, .args = o->format != TREX_FMT_TEXT};

	if (o->command == CLI_CMD_KERNELS && kernels_by_part(o)) /* a part, no table */
		return trex_kernels_rank_new(idx, &ko, &job->kern, err);
	if (o->command == CLI_CMD_KERNELS)
		return trex_kernels_table(idx, &ko, t, err);
	if (o->command == CLI_CMD_INTEGRITY)
		return trex_integrity_part_new(idx, &job->integ, err);
	if (o->command == CLI_CMD_INFO)
		return (job->summary = malloc(sizeof(*job->summary)))
		           ? trex_summary_compute(idx, job->summary, err)
		           : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (o->command == CLI_CMD_STEPS)
		return trex_steps_table(idx, &so, t, NULL, err);
	if (o->command == CLI_CMD_CATEGORIES) /* a part, no table */
		return trex_category_part_new(idx, &job->cats, err);
	if (o->command == CLI_CMD_OPS || o->command == CLI_CMD_API)
		return trex_ops_part_new(idx, o->command == CLI_CMD_API, &job->ops, err);
	if (o->command == CLI_CMD_GAPS)
		return trex_gaps_table(idx, &go, t, NULL, err);
	return trex_gpu_time_table(idx, t, err);
}

/* The rank loaded alone, whole (through its index file when fresh), and
 * the command's table of it made. */
static enum trex_status rank_table(struct rank_pool *pool, struct rank_job *job)
{
	struct trex_source *src = NULL;
	enum trex_status st = trex_source_open(job->path, &src, &job->err);

	if (st == TREX_OK)
		st = trex_cache_load(&src, 1, &pool->lo, pool->mode, &job->r.rep, &job->r.idx,
		                     &job->err);
	if (st == TREX_OK && trex_index_file_count(job->r.idx) == 1 &&
	    !trex_index_graph(job->r.idx)) {
		job->own_rank = trex_index_file(job->r.idx, 0)->rank;
		job->claimed = trex_index_file(job->r.idx, 0)->has_rank;
		job->start = trex_index_start(job->r.idx);
		job->empty = job->start == 0 && trex_index_end(job->r.idx) == 0;
		st = command_table(pool->o, job->r.idx, job);
		job->has_table = st == TREX_OK;
	}
	return st;
}

static void rank_one(struct rank_pool *pool, struct rank_job *job)
{
	trex_error_clear(&job->err);
	if (pool->tables) {
		job->st = rank_table(pool, job);
	} else {
		if (!pool->summary_only)
			job->st = trex_cache_rank_open(job->path, &pool->lo, pool->mode, &job->r,
			                               &job->err);
		else if (trex_cache_rank_summary(job->path, &pool->lo, &job->r))
			job->st = TREX_OK;
		else
			job->st = trex_error_set(&job->err, TREX_USAGE, job->path, -1,
			                         "no fresh index file: loaded whole");
		if (job->st == TREX_OK) {
			job->own_rank = job->r.sum.files[0].rank;
			job->claimed = job->r.sum.files[0].has_rank;
		}
	}
	if (job->st == TREX_OK && job->r.idx &&
	    (trex_index_graph(job->r.idx) || (pool->tables && !job->has_table)))
		job->st = trex_error_set(&job->err, TREX_USAGE, job->path, -1,
		                         "an execution graph or several runs: loaded with the set");
	if (job->st == TREX_OK && job->r.idx)
		rank_loaded(job);
}

static void *rank_worker(void *arg)
{
	struct rank_pool *pool = arg;

	for (;;) {
		size_t i;
		double now;

		pthread_mutex_lock(&pool->lock);
		i = pool->next < pool->n && !*pool->lo.cancel ? pool->next++ : pool->n;
		pthread_mutex_unlock(&pool->lock);
		if (i == pool->n)
			return NULL;
		rank_one(pool, &pool->jobs[i]);
		pthread_mutex_lock(&pool->lock);
		pool->done++;
		now = seconds_since(&pool->start);
		if (pool->progress && now - pool->shown_at >= PROGRESS_SECONDS) {
			fprintf(stderr, "\rtrex: ranks %zu/%zu, %.1f s\033[K", pool->done, pool->n,
			        now);
			pool->shown_at = now;
			pool->shown = true;
		}
		pthread_mutex_unlock(&pool->lock);
	}
}

static void run_jobs(struct rank_pool *pool, unsigned jobs)
{
	unsigned workers = jobs < pool->n ? jobs : (unsigned)pool->n, started = 0;
	pthread_t *t = calloc(workers ? workers : 1, sizeof(*t));

	pool->lo.threads = jobs / (workers ? workers : 1);
	for (; t && started < workers; started++)
		if (pthread_create(&t[started], NULL, rank_worker, pool) != 0)
			break;
	if (started == 0)
		rank_worker(pool);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	if (pool->shown)
		fputs("\r\033[K", stderr);
}

/* ---- the set ------------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Ranks as a load of the set gives them (trex_load_assign_ranks). false
 * when two files claim one rank (the merged load shows them apart and
 * warns) or out of memory (the merged load then says so). */
static bool assign_ranks(struct rank_job *jobs, size_t n)
{
	int64_t *v = malloc((n ? n : 1) * sizeof(*v));
	bool *claimed = calloc(n ? n : 1, sizeof(*claimed));
	bool distinct = v && claimed;

	for (size_t i = 0; distinct && i < n; i++) {
		v[i] = jobs[i].own_rank;
		claimed[i] = jobs[i].claimed;
	}
	distinct = distinct && trex_load_assign_ranks(v, claimed, n);
	for (size_t i = 0; distinct && i < n; i++)
		jobs[i].rank = v[i];
	if (distinct)
		qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 1; distinct && i < n; i++)
		distinct = v[i] != v[i - 1];
	free(v);
	free(claimed);
	return distinct;
}

/* The notes of the cache in input order (jobs), then the losses in the
 * set's order (by rank), as the merged load warns. */
static void report_jobs(const struct rank_job *jobs, struct rank_job *const *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].r.rep.note[0])
			cli_print_cache_note(&jobs[i].r.rep);
	for (size_t i = 0; i < n; i++)
		if (order[i]->warnings)
			fwrite(order[i]->warnings, 1, order[i]->warnings_len, stderr);
}

/* The line the command prints under a text table without rows. */
static void print_empty(const struct cli_opts *o, const struct trex_table *t, FILE *out)
{
	if (t->nrows)
		return;
	if (o->command == CLI_CMD_STEPS)
		cli_steps_none(o, out);
	else if (o->command == CLI_CMD_GAPS)
		cli_gaps_none(o, out);
	else if (o->command == CLI_CMD_OPS || o->command == CLI_CMD_API)
		cli_cpu_summary_none(o->command == CLI_CMD_API, out);
	else
		cli_print_note(out, t);
}

/* `trex integrity`'s text headline: what each damaged rank lost, by rank. */
static void integrity_headline(struct rank_job *const *order, size_t n, FILE *out)
{
	char run[64];
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct trex_integrity_part *p = order[i]->integ;

		if (!p->lost_data)
			continue;
		cli_integrity_damaged(out, trex_rank_label(order[i]->rank, run, sizeof(run)),
		                      p->path, p->lost);
		any = true;
	}
	cli_integrity_headline_end(out, any);
}

/* t (taken over) as the command's report, after the notes and warnings of
 * the ranks (jobs, in input order; order: by rank). */
static enum trex_status write_report(const struct cli_opts *o, const struct rank_job *jobs,
                                     struct rank_job *const *order, size_t n, struct trex_table *t,
                                     FILE *out, struct trex_error *err)
{
	enum trex_status st;

	/* under --strict a loss failed its rank: the merged load tells it */
	report_jobs(jobs, order, n);
	if (o->command == CLI_CMD_INTEGRITY && o->format == TREX_FMT_TEXT)
		integrity_headline(order, n, out);
	st = trex_table_write(out, t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		print_empty(o, t, out);
	trex_table_free(t);
	return st;
}

/* A table of the set from its ranks (order[0..n), by rank): into *t when
 * *served, else the set needs the merged load (t left empty). */
typedef enum trex_status set_table_fn(const struct cli_opts *o, struct rank_job *const *order,
                                      size_t n, struct trex_table *t, bool *served,
                                      struct trex_error *err);

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* kernels: the ranks' summaries merged; not served without any kernel. */
static enum trex_status kernels_set(const struct cli_opts *o, struct rank_job *const *order,
                                    size_t n, struct trex_table *t, bool *served,
                                    struct trex_error *err)
{
	struct trex_kernels_part *parts = malloc((n ? n : 1) * sizeof(*parts));
	enum trex_status st;

	if (!parts)
		return nomem(err);
	for (size_t i = 0; i < n; i++)
		parts[i] = (struct trex_kernels_part){&order[i]->r.sum, 0, order[i]->rank};
	st = trex_kernels_merge_table(parts, n, o->per_rank, t, err);
	free(parts);
	*served = st == TREX_OK && t->nrows > 0;
	return st;
}

/* kernels by name with --memory, or by op: the ranks' parts merged; not
 * served without any row (its note needs the index). */
static enum trex_status kernels_parts_set(const struct cli_opts *o, struct rank_job *const *order,
                                          size_t n, struct trex_table *t, bool *served,
                                          struct trex_error *err)
{
	struct trex_kernels_part *parts = malloc((n ? n : 1) * sizeof(*parts));
	const struct trex_kernels_copy **copies = malloc((n ? n : 1) * sizeof(*copies));
	struct trex_kernels_merge_opts mo = {o->per_rank, o->group == TREX_KERNELS_BY_OP, NULL};
	enum trex_status st;

	if (!parts || !copies) {
		free(parts);
		free(copies);
		return nomem(err);
	}
	for (size_t i = 0; i < n; i++) {
		const struct trex_kernels_rank *k = order[i]->kern;

		parts[i] = (struct trex_kernels_part){&k->sum, 0, order[i]->rank};
		copies[i] = k->copies;
		if (k->copies) /* the bytes columns when any rank has sizes */
			mo.copies = copies;
	}
	st = trex_kernels_merge_table_opts(parts, n, &mo, t, err);
	free(parts);
	free(copies);
	*served = st == TREX_OK && t->nrows > 0;
	return st;
}

/* kernels by shape, stream, device or rank: the ranks' rows joined; not
 * served without any row (its note needs the index). */
static enum trex_status kernels_rows_set(const struct cli_opts *o, struct rank_job *const *order,
                                         size_t n, struct trex_table *t, bool *served,
                                         struct trex_error *err)
{
	const struct trex_table **tables = malloc((n ? n : 1) * sizeof(*tables));
	int64_t *ranks = malloc((n ? n : 1) * sizeof(*ranks));
	enum trex_status st = TREX_NOMEM;

	(void)o;
	if (tables && ranks) {
		for (size_t i = 0; i < n; i++) {
			tables[i] = &order[i]->table;
			ranks[i] = order[i]->rank;
		}
		st = trex_kernels_join_table(tables, ranks, n, t, err);
	}
	free(tables);
	free(ranks);
	*served = st == TREX_OK && t->nrows > 0;
	return st == TREX_NOMEM ? nomem(err) : st;
}

/* One row of one rank's table, and where the set puts it. */
struct row_ref {
	const struct rank_job *job;
	size_t row;
	int64_t start; /* gaps: the start on the trace's clock (ns: beyond a double's 2^53) */
	double length; /* gaps: the length (ns) */
};

static size_t col_of(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	return t->ncols;
}

/* Row ref->row of its rank's table appended to out: the rank column the
 * set's rank, the device named as in a set ("rank 3 GPU 0"), Start from
 * the set's start (set_start) instead of the rank's, text copied into
 * out's arena. */
static bool append_row(struct trex_table *out, const struct row_ref *ref, int64_t set_start)
{
	const struct trex_table *in = &ref->job->table;
	union trex_cell *cell = trex_table_add_row(out);
	int64_t rank = ref->job->rank;

	for (size_t c = 0; cell && c < in->ncols; c++) {
		const union trex_cell *from = trex_table_cell(in, ref->row, c);
		char label[600], run[64];

		cell[c] = *from;
		if (strcmp(in->cols[c].key, "rank") == 0)
			cell[c].count = rank;
		else if (strcmp(in->cols[c].key, "start_ns") == 0) /* one rounding, as the set's */
			cell[c].number =
			    (double)((int64_t)from->number + (ref->job->start - set_start));
		if (in->cols[c].type != TREX_COL_TEXT)
			continue;
		if (strcmp(in->cols[c].key, "device") == 0)
			snprintf(label, sizeof(label), "%s %s",
			         trex_rank_label(rank, run, sizeof(run)), from->text);
		else
			snprintf(label, sizeof(label), "%s", from->text);
		if (!(cell[c].text = trex_table_strdup(out, label, strlen(label))))
			return false;
	}
	return cell != NULL;
}

/* The rows refs[0..n) in one table with the columns of the first rank's. */
static bool joined_rows(const struct row_ref *refs, size_t n, const struct trex_table *first,
                        int64_t set_start, struct trex_table *t)
{
	struct trex_column *cols = trex_table_init_owned(t, first->name, first->ncols);
	bool ok = cols != NULL;

	for (size_t c = 0; ok && c < first->ncols; c++) {
		cols[c] = first->cols[c];
		cols[c].key = trex_table_strdup(t, first->cols[c].key, strlen(first->cols[c].key));
		cols[c].title =
		    trex_table_strdup(t, first->cols[c].title, strlen(first->cols[c].title));
		ok = cols[c].key && cols[c].title;
	}
	for (size_t i = 0; ok && i < n; i++)
		ok = append_row(t, &refs[i], set_start);
	return ok;
}

/* As the gaps table orders gaps: longest first, then earliest, then as
 * the set has them (by rank, each rank's rows in its table's order). */
static int cmp_ref_gap(const void *a, const void *b)
{
	const struct row_ref *x = a, *y = b;

	if (x->length != y->length)
		return x->length > y->length ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->job->rank != y->job->rank)
		return x->job->rank < y->job->rank ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

/* Every row of every rank, in the order the set's table has them, in
 * *out (*n of them; gaps: at most --top); false when out of memory. */
static bool ordered_rows(const struct cli_opts *o, struct rank_job *const *order, size_t njobs,
                         struct row_ref **out, size_t *n)
{
	size_t total = 0, k = 0;
	struct row_ref *refs;

	for (size_t i = 0; i < njobs; i++)
		total += order[i]->table.nrows;
	if (!(refs = malloc((total ? total : 1) * sizeof(*refs))))
		return false;
	for (size_t i = 0; i < njobs; i++) {
		const struct trex_table *t = &order[i]->table;
		size_t cs = col_of(t, "start_ns"), cl = col_of(t, "length_ns");

		for (size_t r = 0; r < t->nrows; r++, k++) {
			refs[k] = (struct row_ref){order[i], r, 0, 0};
			if (cs < t->ncols && cl < t->ncols) {
				refs[k].start =
				    (int64_t)trex_table_cell(t, r, cs)->number + order[i]->start;
				refs[k].length = trex_table_cell(t, r, cl)->number;
			}
		}
	}
	if (o->command == CLI_CMD_GAPS) /* else the rows are in rank order already */
		qsort(refs, total, sizeof(*refs), cmp_ref_gap);
	*n = o->command == CLI_CMD_GAPS && o->top && total > o->top ? o->top : total;
	*out = refs;
	return true;
}

/* gpu-time, steps, gaps: the ranks' rows joined; not served when a rank
 * has no time span, or gpu-time has no device (its note needs the index). */
static enum trex_status rows_set(const struct cli_opts *o, struct rank_job *const *order, size_t n,
                                 struct trex_table *t, bool *served, struct trex_error *err)
{
	struct row_ref *refs = NULL;
	int64_t set_start = INT64_MAX;
	size_t nrows;
	bool ok;

	*served = false;
	for (size_t i = 0; i < n; i++) {
		if (order[i]->empty)
			return TREX_OK;
		set_start = order[i]->start < set_start ? order[i]->start : set_start;
	}
	if (!ordered_rows(o, order, n, &refs, &nrows))
		return nomem(err);
	ok = joined_rows(refs, nrows, &order[0]->table, set_start, t);
	free(refs);
	if (!ok)
		return nomem(err);
	*served = t->nrows > 0 || o->command != CLI_CMD_GPU_TIME;
	return TREX_OK;
}

/* ops, api: the ranks' parts joined by name. */
static enum trex_status ops_set(const struct cli_opts *o, struct rank_job *const *order, size_t n,
                                struct trex_table *t, bool *served, struct trex_error *err)
{
	struct trex_ops_part **parts = malloc((n ? n : 1) * sizeof(*parts));
	struct trex_ops_opts oo = {o->command == CLI_CMD_API, o->top};
	enum trex_status st;

	if (!parts)
		return nomem(err);
	for (size_t i = 0; i < n; i++)
		parts[i] = order[i]->ops;
	st = trex_ops_join_table(parts, n, &oo, t, err);
	free(parts);
	*served = st == TREX_OK;
	return st;
}

/* categories: the ranks' parts summed; not served without any device work
 * (its note needs the index). */
static enum trex_status categories_set(const struct cli_opts *o, struct rank_job *const *order,
                                       size_t n, struct trex_table *t, bool *served,
                                       struct trex_error *err)
{
	struct trex_category_part **parts = malloc((n ? n : 1) * sizeof(*parts));
	int64_t *ranks = malloc((n ? n : 1) * sizeof(*ranks));
	enum trex_status st = TREX_NOMEM;

	if (parts && ranks) {
		for (size_t i = 0; i < n; i++) {
			parts[i] = order[i]->cats;
			ranks[i] = order[i]->rank;
		}
		st = trex_categories_join_table(parts, ranks, n, o->format == TREX_FMT_TEXT, t,
		                                served, err);
	}
	free(parts);
	free(ranks);
	return st == TREX_NOMEM ? nomem(err) : st;
}

/* integrity: the ranks' rows joined; not served when a rank has no time
 * span (the set's start, which example times are from, is unsure). */
static enum trex_status integrity_set(const struct cli_opts *o, struct rank_job *const *order,
                                      size_t n, struct trex_table *t, bool *served,
                                      struct trex_error *err)
{
	struct trex_integrity_part **parts = malloc((n ? n : 1) * sizeof(*parts));
	int64_t *ranks = malloc((n ? n : 1) * sizeof(*ranks));
	int64_t set_start = INT64_MAX;
	enum trex_status st = TREX_OK;
	bool spans = true;

	(void)o;
	*served = false;
	if (!parts || !ranks) {
		free(parts);
		free(ranks);
		return nomem(err);
	}
	for (size_t i = 0; i < n; i++) {
		parts[i] = order[i]->integ;
		ranks[i] = order[i]->rank;
		set_start = order[i]->start < set_start ? order[i]->start : set_start;
		spans = spans && !order[i]->empty;
	}
	if (spans) {
		st = trex_integrity_join_table(parts, ranks, n, set_start, t, err);
		*served = st == TREX_OK;
	}
	free(parts);
	free(ranks);
	return st;
}

static int cmp_job_rank(const void *a, const void *b)
{
	const struct rank_job *x = *(const struct rank_job *const *)a;
	const struct rank_job *y = *(const struct rank_job *const *)b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* How the command's table of a set is made from its ranks. */
static set_table_fn *set_table_of(const struct cli_opts *o)
{
	if (o->command == CLI_CMD_KERNELS)
		return kernels_summarised(o) ? kernels_set
		       : kernels_by_part(o)  ? kernels_parts_set
		                             : kernels_rows_set;
	if (o->command == CLI_CMD_CATEGORIES)
		return categories_set;
	if (o->command == CLI_CMD_OPS || o->command == CLI_CMD_API)
		return ops_set;
	if (o->command == CLI_CMD_INTEGRITY)
		return integrity_set;
	return rows_set;
}

/* `trex info` of the set from its ranks' summaries, written: *done; not
 * when a rank has no time span (the set's span is unsure). */
static enum trex_status info_report(const struct cli_opts *o, const struct rank_job *jobs,
                                    struct rank_job *const *order, size_t n, FILE *out, bool *done,
                                    struct trex_error *err)
{
	const struct trex_summary **parts = malloc((n ? n : 1) * sizeof(*parts));
	int64_t *ranks = malloc((n ? n : 1) * sizeof(*ranks));
	struct trex_summary s;
	enum trex_status st = parts && ranks ? TREX_OK : nomem(err);
	bool spans = true;

	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		parts[i] = order[i]->summary;
		ranks[i] = order[i]->rank;
		spans = spans && !order[i]->empty;
	}
	if (st == TREX_OK && spans &&
	    (st = trex_summary_join(parts, ranks, n, &s, err)) == TREX_OK) {
		*done = true;
		report_jobs(jobs, order, n);
		st = cli_info_write_set(o, &s, out, err);
		trex_summary_free(&s);
	}
	free(parts);
	free(ranks);
	return st;
}

/* The command's table of the set made from its ranks and written: *done;
 * nothing written when two files claim one rank (the merged load shows
 * them apart and warns) or the table needs the merged load. */
static enum trex_status set_report(const struct cli_opts *o, struct rank_job *jobs, size_t n,
                                   FILE *out, bool *done, struct trex_error *err)
{
	set_table_fn *make = set_table_of(o);
	struct rank_job **order;
	struct trex_table t;
	enum trex_status st;
	bool served = false;

	if (!assign_ranks(jobs, n))
		return TREX_OK;
	if (!(order = malloc((n ? n : 1) * sizeof(*order))))
		return nomem(err);
	for (size_t i = 0; i < n; i++)
		order[i] = &jobs[i];
	qsort(order, n, sizeof(*order), cmp_job_rank); /* the set's file order */
	if (o->command == CLI_CMD_INFO) {
		st = info_report(o, jobs, order, n, out, done, err);
		free(order);
		return st;
	}
	trex_table_init(&t, "", NULL, 0);
	st = make(o, order, n, &t, &served, err);
	if (st == TREX_OK && served) {
		*done = true;
		st = write_report(o, jobs, order, n, &t, out, err); /* frees t */
	} else {
		trex_table_free(&t);
	}
	free(order);
	return st;
}

/* Whether the command asks for what ranks give apart: kernels by name
 * alone (summaries), or by any grouping, --memory and --per-rank from
 * each rank's index (not under --align: the merged load aligns first;
 * nor with --metric columns), gpu-time (device rows), steps (step rows)
 * or gaps (device gaps; times from the set's start, so not under
 * --align, which moves ranks against each other). */
static bool ranks_serve(const struct cli_opts *o)
{
	bool kernels = o->command == CLI_CMD_KERNELS && !o->nmetric_args &&
	               (kernels_summarised(o) || o->align == TREX_ALIGN_NONE);

	bool timed = (o->command == CLI_CMD_STEPS || o->command == CLI_CMD_GAPS) &&
	             o->align == TREX_ALIGN_NONE;
	bool categories = o->command == CLI_CMD_CATEGORIES && !o->explain && !o->unitrace_json;
	bool tables = o->command == CLI_CMD_GPU_TIME || o->command == CLI_CMD_OPS ||
	              o->command == CLI_CMD_API || o->command == CLI_CMD_INTEGRITY ||
	              o->command == CLI_CMD_INFO;

	return (kernels || timed || categories || tables) && !o->schema && !o->compiler_log &&
	       !o->no_cache && !o->demo && !o->dump && !o->compare && o->input_count > 0;
}

static enum trex_status run_set(const struct cli_opts *o, const struct cli_paths *paths, FILE *out,
                                bool *done, struct trex_error *err)
{
	struct sigaction old;
	struct rank_pool pool = {.n = paths->n,
	                         .mode = cli_cache_mode(o),
	                         .o = o,
	                         .tables = o->command != CLI_CMD_KERNELS || !kernels_summarised(o),
	                         .summary_only = paths->n == 1};
	enum trex_status st = TREX_OK;
	bool failed = false;

	pool.jobs = calloc(paths->n, sizeof(*pool.jobs));
	if (!pool.jobs)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	pool.lo = (struct trex_load_opts){.strict = o->strict, .format = o->input_format};
	pool.progress = !o->quiet && isatty(STDERR_FILENO);
	for (size_t i = 0; i < paths->n; i++)
		pool.jobs[i].path = paths->v[i];
	clock_gettime(CLOCK_MONOTONIC, &pool.start);
	pthread_mutex_init(&pool.lock, NULL);
	/* the loader only reads the flag; its field is not const-qualified */
	pool.lo.cancel = (volatile sig_atomic_t *)(uintptr_t)cli_interrupt_begin(&old);
	run_jobs(&pool, cli_threads(o));
	if (*pool.lo.cancel)
		st = trex_error_set(err, TREX_CANCELLED, NULL, -1, "interrupted");
	cli_interrupt_end(&old);
	pthread_mutex_destroy(&pool.lock);
	for (size_t i = 0; st == TREX_OK && i < paths->n; i++)
		if (pool.jobs[i].st == TREX_CANCELLED)
			st = trex_error_set(err, TREX_CANCELLED, NULL, -1, "interrupted");
		else if (pool.jobs[i].st != TREX_OK)
			failed = true; /* the merged load says what is wrong */
	if (st == TREX_OK && !failed)
		st = set_report(o, pool.jobs, paths->n, out, done, err);
	for (size_t i = 0; i < paths->n; i++) {
		if (pool.jobs[i].has_table)
			trex_table_free(&pool.jobs[i].table);
		trex_category_part_free(pool.jobs[i].cats);
		trex_ops_part_free(pool.jobs[i].ops);
		trex_kernels_rank_free(pool.jobs[i].kern);
		trex_integrity_part_free(pool.jobs[i].integ);
		if (pool.jobs[i].summary)
			trex_summary_free(pool.jobs[i].summary);
		free(pool.jobs[i].summary);
		trex_cache_rank_close(&pool.jobs[i].r);
		free(pool.jobs[i].warnings);
	}
	free(pool.jobs);
	return st;
}

/* Whether paths (after expansion) are served rank by rank: two or more,
 * or one trace's kernels table by name, which its fresh index file's
 * kernel summary gives (nothing else of the file read, where the index
 * would compute it from every kernel). run_set then reads that summary
 * alone; without one (a first open, damage) the whole load serves it. */
static bool ranks_take(const struct cli_opts *o, const struct cli_paths *paths)
{
	if (paths->n != 1)
		return paths->n > 1;
	return o->command == CLI_CMD_KERNELS && kernels_summarised(o) &&
	       o->align == TREX_ALIGN_NONE && cli_cache_mode(o) == TREX_CACHE_USE;
}

enum trex_status cli_ranks_report(const struct cli_opts *o, FILE *out, bool *done,
                                  struct trex_error *err)
{
	struct cli_paths paths;
	enum trex_status st;

	*done = false;
	if (!ranks_serve(o))
		return TREX_OK;
	/* any problem with the inputs is the merged load's to tell */
	if (cli_expand_inputs(o->inputs, o->input_count, &paths, err) != TREX_OK) {
		trex_error_clear(err);
		return TREX_OK;
	}
	st = cli_expand_dirs(&paths, err);
	if (st != TREX_OK || cli_drop_profile_inputs(&paths) || !ranks_take(o, &paths)) {
		cli_paths_free(&paths);
		trex_error_clear(err);
		return TREX_OK;
	}
	st = run_set(o, &paths, out, done, err);
	cli_paths_free(&paths);
	return st;
}
