#include "config.h"

#include "trex/analysis/steps.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/gpu_time.h"
#include "trex/analysis/table_order.h"
#include "trex/core/grow.h"
#include "trex/core/strtab.h"
#include "views_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct trex_column cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"start_ns", "Start", TREX_COL_DURATION, false},
    {"dur_ns", "Step time", TREX_COL_DURATION, true},
    {"busy_ns", "GPU busy", TREX_COL_DURATION, true},
    {"idle_ns", "GPU idle", TREX_COL_DURATION, true},
    {"busy_pct", "Busy %", TREX_COL_PERCENT, true},
    {"compute_ns", "Compute", TREX_COL_DURATION, true},
    {"comm_ns", "Comm", TREX_COL_DURATION, true},
    {"overlap_ns", "Overlap", TREX_COL_DURATION, true},
    {"memory_ns", "Memcpy/set", TREX_COL_DURATION, true},
    {"kernels", "Kernels", TREX_COL_COUNT, true},
    {"step", "Step", TREX_COL_TEXT, false},
};
enum {
	C_RANK,
	C_START,
	C_DUR,
	C_BUSY,
	C_IDLE,
	C_BUSY_PCT,
	C_COMPUTE,
	C_COMM,
	C_OVERLAP,
	C_MEMORY,
	C_KERNELS,
	C_STEP
};

/* GPU work of a file, and the steps. */
struct item {
	uint32_t file;
	uint32_t slice;
	int64_t ts, end;
	uint8_t cls; /* enum trex_gpu_class (work only) */
};

struct item_vec {
	struct item *v;
	size_t n, cap;
};

static bool push(struct item_vec *iv, const struct item *it)
{
	struct item *v = trex_grow(iv->v, &iv->cap, iv->n + 1, sizeof(*v), 1024);

	if (!v)
		return false;
	iv->v = v;
	iv->v[iv->n++] = *it;
	return true;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

struct ctx {
	const struct trex_index *idx;
	struct trex_regex *re;
	uint8_t *name_match; /* per name string id: 0 unknown, 1 a step, 2 not */
	struct item_vec work, steps;
	struct views_span *span[4]; /* scratch per class: all, compute, comm, memory */
};

static bool is_step(struct ctx *c, const struct trex_slice *s)
{
	enum trex_kind k = (enum trex_kind)s->kind;

	if (k != TREX_KIND_CPU_OP && k != TREX_KIND_ANNOTATION)
		return false;
	if (!c->name_match[s->name])
		c->name_match[s->name] =
		    trex_regex_match(c->re, trex_index_str(c->idx, s->name)) ? 1 : 2;
	return c->name_match[s->name] == 1;
}

static enum trex_status collect(struct ctx *c)
{
	uint32_t n = trex_index_slice_count(c->idx), track = TREX_NONE, file = 0;
	enum trex_status st = TREX_OK;

	for (uint32_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		bool work = trex_kind_is_device_work((enum trex_kind)s->kind);
		struct item it;

		/* a step's kinds are never GPU work (trex_gpu_class_of) */
		if (!work && !is_step(c, s))
			continue;
		if (s->track != track) /* slices come track by track */
			file = trex_index_track_file(c->idx, track = s->track);
		it = (struct item){
		    file, i, s->ts, s->ts + s->dur,
		    (uint8_t)(work ? trex_gpu_class_of(c->idx, i) : TREX_GPU_NOT_WORK)};
		if (!push(work ? &c->work : &c->steps, &it))
			st = TREX_NOMEM;
	}
	if (st != TREX_OK)
		return st;
	/* gathered lane by lane, each lane sorted by start: a few runs per file */
	if (!views_sort_runs(c->work.v, c->work.n, sizeof(*c->work.v), cmp_item) ||
	    !views_sort_runs(c->steps.v, c->steps.n, sizeof(*c->steps.v), cmp_item))
		return TREX_NOMEM;
	for (int k = 0; k < 4; k++) {
		if (!(c->span[k] = malloc((c->work.n ? c->work.n : 1) * sizeof(*c->span[k]))))
			return TREX_NOMEM;
	}
	return TREX_OK;
}

/* ---- one step ----------------------------------------------------------------------------- */

/* The work of one file: v[0..n), sorted by ts; max_dur its longest item. */
struct file_work {
	const struct item *v;
	size_t n;
	int64_t max_dur;
};

static struct file_work work_of(const struct ctx *c, uint32_t file)
{
	const struct item *v = c->work.v;
	size_t lo = 0, hi = c->work.n, end;
	struct file_work fw = {NULL, 0, 0};

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].file < file)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < c->work.n && v[end].file == file; end++)
		fw.max_dur =
		    v[end].end - v[end].ts > fw.max_dur ? v[end].end - v[end].ts : fw.max_dur;
	fw.v = v + lo;
	fw.n = end - lo;
	return fw;
}

/* The first item of fw that may reach into a window starting at t0. */
static size_t first_reaching(const struct file_work *fw, int64_t t0)
{
	int64_t from = t0 < INT64_MIN + fw->max_dur ? INT64_MIN : t0 - fw->max_dur;
	size_t lo = 0, hi = fw->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fw->v[mid].ts < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fills a row's GPU columns from the work of fw clipped to [t0, t1). */
static void step_gpu(struct ctx *c, const struct file_work *fw, int64_t t0, int64_t t1,
                     union trex_cell *cell)
{
	size_t n[4] = {0, 0, 0, 0}, m[4];
	int64_t len[4];

	for (size_t i = first_reaching(fw, t0); i < fw->n && fw->v[i].ts < t1; i++) {
		const struct item *it = &fw->v[i];
		struct views_span s = {it->ts > t0 ? it->ts : t0, it->end < t1 ? it->end : t1};
		int k = it->cls == TREX_GPU_COMPUTE ? 1 : it->cls == TREX_GPU_COMM ? 2 : 3;

		if (it->cls != TREX_GPU_MEMORY && it->ts >= t0)
			cell[C_KERNELS].count++;
		if (s.end <= s.ts)
			continue;
		c->span[0][n[0]++] = s;
		c->span[k][n[k]++] = s;
	}
	for (int k = 0; k < 4; k++)
		len[k] = views_union(c->span[k], n[k], &m[k]);
	cell[C_BUSY].number = (double)len[0];
	cell[C_IDLE].number = (double)(t1 - t0 - len[0]);
	cell[C_BUSY_PCT].number = t1 > t0 ? (double)len[0] * 100 / (double)(t1 - t0) : 0;
	cell[C_COMPUTE].number = (double)len[1];
	cell[C_COMM].number = (double)len[2];
	cell[C_MEMORY].number = (double)len[3];
	cell[C_OVERLAP].number = (double)views_overlap(c->span[1], m[1], c->span[2], m[2]);
}

static enum trex_status rows(struct ctx *c, struct trex_table *t)
{
	struct file_work fw = {NULL, 0, 0};
	uint32_t file = UINT32_MAX;

	for (size_t i = 0; i < c->steps.n; i++) {
		const struct item *st = &c->steps.v[i];
		union trex_cell *cell = trex_table_add_row(t);

		if (!cell)
			return TREX_NOMEM;
		if (st->file != file)
			fw = work_of(c, file = st->file);
		cell[C_RANK].count = trex_index_file(c->idx, st->file)->rank;
		cell[C_START].number = views_from_start(c->idx, st->ts);
		cell[C_DUR].number = (double)(st->end - st->ts);
		step_gpu(c, &fw, st->ts, st->end, cell);
		cell[C_STEP].text = views_text(
		    t, trex_index_str(c->idx, trex_index_slice(c->idx, st->slice)->name));
		if (!cell[C_STEP].text)
			return TREX_NOMEM;
	}
	return TREX_OK;
}

static enum trex_status step_ids(const struct ctx *c, uint32_t **ids)
{
	if (!c->steps.n)
		return TREX_OK;
	if (!(*ids = malloc(c->steps.n * sizeof(**ids))))
		return TREX_NOMEM;
	for (size_t i = 0; i < c->steps.n; i++)
		(*ids)[i] = c->steps.v[i].slice;
	return TREX_OK;
}

/* c->re from opts' pattern and c->name_match for idx's names; USAGE with
 * PCRE2's words for a bad pattern. */
static enum trex_status ctx_open(struct ctx *c, const struct trex_index *idx,
                                 const struct trex_step_opts *opts, struct trex_error *err)
{
	const char *pattern = opts && opts->pattern ? opts->pattern : TREX_STEP_PATTERN;
	enum trex_status st;

	*c = (struct ctx){.idx = idx};
	st = trex_regex_compile(pattern, &c->re, err);
	if (st == TREX_USAGE) {
		char why[TREX_ERROR_MSG_MAX];

		snprintf(why, sizeof(why), "%s", err->message);
		return trex_error_set(err, st, NULL, -1, "step pattern '%s': %s", pattern, why);
	}
	if (st != TREX_OK)
		return st;
	c->name_match = calloc(trex_strtab_count(trex_index_strings(idx)) + 1, 1);
	return c->name_match ? TREX_OK : TREX_NOMEM;
}

enum trex_status trex_steps_total(const struct trex_index *idx, const struct trex_step_opts *opts,
                                  uint64_t *count, __int128 *total, struct trex_error *err)
{
	uint32_t n = trex_index_slice_count(idx);
	struct ctx c;
	enum trex_status st = ctx_open(&c, idx, opts, err);

	*count = 0;
	*total = 0;
	/* a step's kinds are never GPU work: collect's test comes down to is_step */
	for (uint32_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		if (is_step(&c, s)) {
			(*count)++;
			*total += s->dur;
		}
	}
	trex_regex_free(c.re);
	free(c.name_match);
	if (st == TREX_NOMEM)
		return trex_error_set(err, st, NULL, -1, "steps: out of memory");
	return st;
}

enum trex_status trex_steps_table(const struct trex_index *idx, const struct trex_step_opts *opts,
                                  struct trex_table *t, uint32_t **ids, struct trex_error *err)
{
	struct ctx c;
	enum trex_status st;

	trex_table_init(t, "steps", cols, ARRAY_LEN(cols));
	if (ids)
		*ids = NULL;
	st = ctx_open(&c, idx, opts, err);
	if (st == TREX_USAGE)
		return st;
	if (st == TREX_OK)
		st = collect(&c);
	if (st == TREX_OK)
		st = rows(&c, t);
	if (st == TREX_OK && ids)
		st = step_ids(&c, ids);
	trex_regex_free(c.re);
	free(c.name_match);
	free(c.work.v);
	free(c.steps.v);
	for (int k = 0; k < 4; k++)
		free(c.span[k]);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "steps: out of memory");
	}
	return st;
}
