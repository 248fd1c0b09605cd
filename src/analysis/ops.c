#include "config.h"

#include "trex/analysis/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/gpu_time.h"
#include "trex/analysis/slice_info.h"
#include "trex/core/strtab.h"
#include "views_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct trex_column op_cols[] = {
    {"calls", "Calls", TREX_COL_COUNT, true},     {"total_ns", "Total", TREX_COL_DURATION, true},
    {"self_ns", "Self", TREX_COL_DURATION, true}, {"self_pct", "Self %", TREX_COL_PERCENT, true},
    {"avg_ns", "Avg", TREX_COL_DURATION, true},   {"p95_ns", "P95", TREX_COL_DURATION, true},
    {"max_ns", "Max", TREX_COL_DURATION, true},   {"gpu_ns", "GPU time", TREX_COL_DURATION, true},
    {"name", "Name", TREX_COL_TEXT, false},
};
enum { O_CALLS, O_TOTAL, O_SELF, O_SELF_PCT, O_AVG, O_P95, O_MAX, O_GPU, O_NAME };

static const struct trex_column api_cols[] = {
    {"time_pct", "Time %", TREX_COL_PERCENT, true},
    {"total_ns", "Total", TREX_COL_DURATION, true},
    {"calls", "Calls", TREX_COL_COUNT, true},
    {"avg_ns", "Avg", TREX_COL_DURATION, true},
    {"med_ns", "Med", TREX_COL_DURATION, true},
    {"min_ns", "Min", TREX_COL_DURATION, true},
    {"max_ns", "Max", TREX_COL_DURATION, true},
    {"stddev_ns", "StdDev", TREX_COL_DURATION, true},
    {"p95_ns", "P95", TREX_COL_DURATION, true},
    {"name", "Name", TREX_COL_TEXT, false},
};
enum { A_PCT, A_TOTAL, A_CALLS, A_AVG, A_MED, A_MIN, A_MAX, A_SD, A_P95, A_NAME };

static const struct trex_column instance_cols[] = {
    {"start_ns", "Start", TREX_COL_DURATION, false},
    {"dur_ns", "Duration", TREX_COL_DURATION, true},
    {"self_ns", "Self", TREX_COL_DURATION, true},
    {"gpu_ns", "GPU time", TREX_COL_DURATION, true},
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"thread", "Thread", TREX_COL_TEXT, false},
    {"name", "Name", TREX_COL_TEXT, false},
};
enum { I_START, I_DUR, I_SELF, I_GPU, I_RANK, I_THREAD, I_NAME };

/* ---- costs: self time and GPU time launched ------------------------------------------------ */

struct costs {
	const struct trex_index *idx;
	uint32_t *up; /* per slice: the innermost CPU op strictly above it, TREX_NONE; NULL: not
	               * needed (no op among the slices asked for) */
};

/* up[] of lane's slices, from lane `above` (one level up, or NULL): a
 * slice's parent is the latest slice above starting no later than it. */
static void lane_up(struct costs *c, const struct trex_lane *lane, const struct trex_lane *above)
{
	uint32_t j = above ? above->first : 0, end = above ? above->first + above->count : 0;

	for (uint32_t i = lane->first; i < lane->first + lane->count; i++) {
		int64_t ts = trex_index_slice(c->idx, i)->ts;
		uint32_t parent = TREX_NONE;

		while (j + 1 < end && trex_index_slice(c->idx, j + 1)->ts <= ts)
			j++;
		if (j < end && trex_index_slice(c->idx, j)->ts <= ts)
			parent = j;
		c->up[i] = parent == TREX_NONE                              ? TREX_NONE
		           : views_kind(c->idx, parent) == TREX_KIND_CPU_OP ? parent
		                                                            : c->up[parent];
	}
}

static enum trex_status build_up(struct costs *c)
{
	uint32_t n = trex_index_slice_count(c->idx), ntracks = trex_index_track_count(c->idx);

	if (!(c->up = malloc((n ? n : 1) * sizeof(*c->up))))
		return TREX_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		c->up[i] = TREX_NONE;
	for (uint32_t t = 0; t < ntracks; t++) {
		const struct trex_track *tr = trex_index_track(c->idx, t);

		if (tr->kind == TREX_TRACK_GPU || tr->kind == TREX_TRACK_COUNTER)
			continue;
		for (uint32_t d = 0; d < tr->lane_count; d++)
			lane_up(c, trex_index_lane(c->idx, tr->first_lane + d),
			        d ? trex_index_lane(c->idx, tr->first_lane + d - 1) : NULL);
	}
	return TREX_OK;
}

/* Position of id in ids[0..n) (ascending), or n. */
static size_t find_id(const uint32_t *ids, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == id ? lo : n;
}

/* Adds each GPU work's duration to gpu[] of its launching call and of the
 * ops enclosing that call, where they are among ids. */
static void add_gpu(struct costs *c, const uint32_t *ids, size_t n, int64_t *gpu)
{
	uint32_t nslices = trex_index_slice_count(c->idx);

	for (uint32_t g = 0; g < nslices; g++) {
		int64_t dur = trex_index_slice(c->idx, g)->dur;

		if (trex_gpu_class_of(c->idx, g) == TREX_GPU_NOT_WORK)
			continue;
		for (uint32_t x = trex_index_launch_of(c->idx, g); x != TREX_NONE;
		     x = c->up ? c->up[x] : TREX_NONE) {
			size_t pos = find_id(ids, n, x);

			if (pos < n && __builtin_add_overflow(gpu[pos], dur, &gpu[pos]))
				gpu[pos] = INT64_MAX; /* saturated durations */
		}
	}
}

/* self[] and gpu[] of ids[0..n), ascending. */
static enum trex_status costs_of(const struct trex_index *idx, const uint32_t *ids, size_t n,
                                 int64_t *self, int64_t *gpu)
{
	struct costs c = {.idx = idx};
	bool ops = false;
	enum trex_status st = TREX_OK;

	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		int64_t busy;

		trex_slice_children(idx, ids[i], NULL, 0, &busy);
		self[i] = trex_index_slice(idx, ids[i])->dur - busy;
		gpu[i] = 0;
		ops = ops || views_kind(idx, ids[i]) == TREX_KIND_CPU_OP;
	}
	if (st == TREX_OK && ops)
		st = build_up(&c);
	if (st == TREX_OK)
		add_gpu(&c, ids, n, gpu);
	free(c.up);
	return st;
}

/* ---- the summary table --------------------------------------------------------------------- */

/* A row: the instances of one name, ids[first .. first + n) of the members. */
struct group {
	uint32_t name;
	const char *label; /* its text, for ties */
	size_t first, n;
	__int128 self, gpu; /* sums of the instances' */
	struct views_stats st;
};

struct table_ctx {
	const struct trex_index *idx;
	const struct trex_ops_opts *opts;
	uint32_t *ids; /* every instance, grouped by name (ascending ids within a group) */
	int64_t *durs; /* their durations, sorted within each group */
	struct group *g;
	size_t ng, n;
};

/* The instances of the wanted kind, ascending. */
static enum trex_status instances(const struct trex_index *idx, bool api, uint32_t **out,
                                  size_t *count)
{
	enum trex_kind want = api ? TREX_KIND_RUNTIME : TREX_KIND_CPU_OP;
	uint32_t n = trex_index_slice_count(idx), m = 0;
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	if (!ids) {
		free(ids);
		return TREX_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (views_kind(idx, i) == want)
			ids[m++] = i;
	}
	*out = ids;
	*count = m;
	return TREX_OK;
}

/* One group per distinct name of ids[0..n), numbered in gid[] (per name
 * string id) in order of first appearance, with the calls and costs
 * summed; false when out of memory. */
static bool make_groups(struct table_ctx *c, const uint32_t *ids, size_t n, uint32_t *gid,
                        const int64_t *self, const int64_t *gpu)
{
	size_t nstr = trex_strtab_count(trex_index_strings(c->idx)) + 1;

	memset(gid, 0xff, nstr * sizeof(*gid));
	for (size_t i = 0; i < n; i++) {
		uint32_t name = trex_index_slice(c->idx, ids[i])->name;

		if (gid[name] == TREX_NONE)
			gid[name] = (uint32_t)c->ng++;
	}
	if (!(c->g = calloc(c->ng ? c->ng : 1, sizeof(*c->g))))
		return false;
	for (size_t i = 0; i < n; i++) {
		uint32_t name = trex_index_slice(c->idx, ids[i])->name;
		struct group *g = &c->g[gid[name]];

		g->name = name;
		g->label = trex_index_str(c->idx, name);
		g->n++;
		g->self += self[i];
		g->gpu += gpu[i];
	}
	return true;
}

/* Groups ids[0..n) by name (a counting sort over the groups: stable, so
 * each group stays ascending) into c->ids and c->g, each group's
 * durations sorted in c->durs and its statistics taken. */
static enum trex_status group_by_name(struct table_ctx *c, const uint32_t *ids, size_t n,
                                      const int64_t *self, const int64_t *gpu)
{
	uint32_t *gid = malloc((trex_strtab_count(trex_index_strings(c->idx)) + 1) * sizeof(*gid));

	c->ids = malloc((n ? n : 1) * sizeof(*c->ids));
	c->durs = malloc((n ? n : 1) * sizeof(*c->durs));
	if (!gid || !c->ids || !c->durs || !make_groups(c, ids, n, gid, self, gpu)) {
		free(gid);
		return TREX_NOMEM;
	}
	for (size_t g = 1; g < c->ng; g++)
		c->g[g].first = c->g[g - 1].first + c->g[g - 1].n;
	for (size_t g = 0; g < c->ng; g++)
		c->g[g].n = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, ids[i]);
		struct group *g = &c->g[gid[s->name]];

		c->ids[g->first + g->n] = ids[i];
		c->durs[g->first + g->n++] = s->dur;
	}
	free(gid);
	for (size_t g = 0; g < c->ng; g++) {
		views_sort_i64(c->durs + c->g[g].first, c->g[g].n);
		views_stats_of(c->durs + c->g[g].first, c->g[g].n, &c->g[g].st);
	}
	return TREX_OK;
}

static int cmp_label(const struct group *x, const struct group *y)
{
	return strcmp(x->label, y->label);
}

/* ops: self time descending, ties by name */
static int cmp_ops(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return cmp_label(x, y);
}

/* api: total descending, ties by name */
static int cmp_api(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->st.sum != y->st.sum)
		return x->st.sum > y->st.sum ? -1 : 1;
	return cmp_label(x, y);
}

static void op_row(const struct group *g, __int128 all_self, union trex_cell *cell)
{
	cell[O_CALLS].count = (int64_t)g->n;
	cell[O_TOTAL].number = (double)g->st.sum;
	cell[O_SELF].number = (double)g->self;
	cell[O_SELF_PCT].number =
	    all_self ? (double)((long double)g->self * 100 / (long double)all_self) : 0;
	cell[O_AVG].number = g->st.avg;
	cell[O_P95].number = (double)g->st.p95;
	cell[O_MAX].number = (double)g->st.max;
	cell[O_GPU].number = (double)g->gpu;
}

static void api_row(const struct group *g, __int128 all_total, union trex_cell *cell)
{
	cell[A_PCT].number =
	    all_total ? (double)((long double)g->st.sum * 100 / (long double)all_total) : 0;
	cell[A_TOTAL].number = (double)g->st.sum;
	cell[A_CALLS].count = (int64_t)g->n;
	cell[A_AVG].number = g->st.avg;
	cell[A_MED].number = g->st.med;
	cell[A_MIN].number = (double)g->st.min;
	cell[A_MAX].number = (double)g->st.max;
	cell[A_SD].number = g->st.sd;
	cell[A_P95].number = (double)g->st.p95;
}

static enum trex_status emit(struct table_ctx *c, struct trex_table *t)
{
	bool api = c->opts->api;
	__int128 all = 0;
	size_t rows = c->opts->top && c->opts->top < c->ng ? c->opts->top : c->ng;

	for (size_t g = 0; g < c->ng; g++)
		all += api ? c->g[g].st.sum : c->g[g].self;
	if (c->ng > 1)
		qsort(c->g, c->ng, sizeof(*c->g), api ? cmp_api : cmp_ops);
	for (size_t r = 0; r < rows; r++) {
		union trex_cell *cell = trex_table_add_row(t);

		if (!cell)
			return TREX_NOMEM;
		if (api)
			api_row(&c->g[r], all, cell);
		else
			op_row(&c->g[r], all, cell);
		cell[api ? A_NAME : O_NAME].text = views_text(t, c->g[r].label);
		if (!cell[api ? A_NAME : O_NAME].text)
			return TREX_NOMEM;
	}
	c->ng = rows;
	return TREX_OK;
}

/* The instances of each row, in row order. */
static enum trex_status fill_members(const struct table_ctx *c, struct trex_kernel_members *m)
{
	size_t total = 0;

	for (size_t g = 0; g < c->ng; g++)
		total += c->g[g].n;
	m->ids = malloc((total ? total : 1) * sizeof(*m->ids));
	m->first = malloc((c->ng + 1) * sizeof(*m->first));
	if (!m->ids || !m->first)
		return TREX_NOMEM;
	m->nrows = c->ng;
	m->first[0] = 0;
	for (size_t g = 0; g < c->ng; g++) {
		memcpy(m->ids + m->first[g], c->ids + c->g[g].first, c->g[g].n * sizeof(*m->ids));
		m->first[g + 1] = m->first[g] + c->g[g].n;
	}
	return TREX_OK;
}

/* c's instances of the wanted kind grouped by name, with their costs. */
static enum trex_status grouped(struct table_ctx *c)
{
	uint32_t *ids = NULL;
	int64_t *self = NULL, *gpu = NULL;
	size_t n = 0;
	enum trex_status st = instances(c->idx, c->opts->api, &ids, &n);

	if (st == TREX_OK) {
		self = malloc((n ? n : 1) * sizeof(*self));
		gpu = malloc((n ? n : 1) * sizeof(*gpu));
		st = self && gpu ? costs_of(c->idx, ids, n, self, gpu) : TREX_NOMEM;
	}
	if (st == TREX_OK)
		st = group_by_name(c, ids, n, self, gpu);
	free(ids);
	free(self);
	free(gpu);
	return st;
}

enum trex_status trex_ops_table(const struct trex_index *idx, const struct trex_ops_opts *opts,
                                struct trex_table *t, struct trex_kernel_members *members,
                                struct trex_error *err)
{
	static const struct trex_ops_opts defaults = {false, 0};
	struct table_ctx c = {.idx = idx, .opts = opts ? opts : &defaults};
	enum trex_status st;

	if (c.opts->api)
		trex_table_init(t, "api", api_cols, ARRAY_LEN(api_cols));
	else
		trex_table_init(t, "ops", op_cols, ARRAY_LEN(op_cols));
	if (members)
		*members = (struct trex_kernel_members){0};
	st = grouped(&c);
	if (st == TREX_OK)
		st = emit(&c, t);
	if (st == TREX_OK && members)
		st = fill_members(&c, members);
	free(c.ids);
	free(c.durs);
	free(c.g);
	if (st != TREX_OK) {
		trex_table_free(t);
		trex_kernel_members_free(members);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "%s: out of memory",
			                      c.opts->api ? "api" : "ops");
	}
	return st;
}

/* ---- one rank's part, and the set's table joined from them ------------------------------------
 */

struct trex_ops_part {
	struct group *g; /* label: labels[g]; first/n into durs */
	char **labels;   /* owned copies of the names */
	size_t ng;
	int64_t *durs; /* each group's durations, sorted */
};

void trex_ops_part_free(struct trex_ops_part *p)
{
	for (size_t g = 0; p && p->labels && g < p->ng; g++)
		free(p->labels[g]);
	if (p) {
		free(p->labels);
		free(p->g);
		free(p->durs);
	}
	free(p);
}

/* c's groups and durations moved into a new part; NULL when out of memory. */
static struct trex_ops_part *part_of(struct table_ctx *c)
{
	struct trex_ops_part *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->g = c->g;
	p->ng = c->ng;
	p->durs = c->durs;
	c->g = NULL;
	c->durs = NULL;
	if (!(p->labels = calloc(p->ng + 1, sizeof(*p->labels)))) {
		trex_ops_part_free(p);
		return NULL;
	}
	for (size_t g = 0; g < p->ng; g++) {
		if (!(p->labels[g] = strdup(trex_index_str(c->idx, p->g[g].name)))) {
			trex_ops_part_free(p);
			return NULL;
		}
		p->g[g].label = p->labels[g];
	}
	return p;
}

enum trex_status trex_ops_part_new(const struct trex_index *idx, bool api,
                                   struct trex_ops_part **out, struct trex_error *err)
{
	struct trex_ops_opts opts = {api, 0};
	struct table_ctx c = {.idx = idx, .opts = &opts};
	enum trex_status st = grouped(&c);

	if (st == TREX_OK && !(*out = part_of(&c)))
		st = TREX_NOMEM;
	free(c.ids);
	free(c.durs);
	free(c.g);
	if (st == TREX_NOMEM)
		return trex_error_set(err, st, NULL, -1, "%s: out of memory", api ? "api" : "ops");
	return st;
}

struct part_ref {
	const struct trex_ops_part *part;
	const struct group *g;
};

static int cmp_part_ref(const void *a, const void *b)
{
	const struct part_ref *x = a, *y = b;

	return strcmp(x->g->label, y->g->label);
}

/* The parts' groups of one name as one group of c: sums added, durations
 * sorted together (c->durs from *at on), statistics taken. */
static void join_group(struct table_ctx *c, const struct part_ref *r, size_t k, size_t *at)
{
	struct group *g = &c->g[c->ng++];

	*g = (struct group){.label = r[0].g->label, .first = *at};
	for (size_t i = 0; i < k; i++) {
		memcpy(c->durs + *at, r[i].part->durs + r[i].g->first, r[i].g->n * sizeof(int64_t));
		*at += r[i].g->n;
		g->n += r[i].g->n;
		g->self += r[i].g->self;
		g->gpu += r[i].g->gpu;
	}
	views_sort_i64(c->durs + g->first, g->n);
	views_stats_of(c->durs + g->first, g->n, &g->st);
}

/* Every part's groups, ordered by name: *nref of them. */
static struct part_ref *part_refs(struct trex_ops_part *const *parts, size_t n, size_t *nref,
                                  size_t *ndurs)
{
	size_t total = 0, k = 0;
	struct part_ref *r;

	*ndurs = 0;
	for (size_t i = 0; i < n; i++)
		total += parts[i]->ng;
	if (!(r = malloc((total ? total : 1) * sizeof(*r))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		for (size_t g = 0; g < parts[i]->ng; g++) {
			r[k++] = (struct part_ref){parts[i], &parts[i]->g[g]};
			*ndurs += parts[i]->g[g].n;
		}
	}
	qsort(r, total, sizeof(*r), cmp_part_ref);
	*nref = total;
	return r;
}

enum trex_status trex_ops_join_table(struct trex_ops_part *const *parts, size_t n,
                                     const struct trex_ops_opts *opts, struct trex_table *t,
                                     struct trex_error *err)
{
	struct table_ctx c = {.opts = opts};
	size_t nref = 0, ndurs = 0, at = 0;
	struct part_ref *r = part_refs(parts, n, &nref, &ndurs);
	enum trex_status st = TREX_OK;

	if (opts->api)
		trex_table_init(t, "api", api_cols, ARRAY_LEN(api_cols));
	else
		trex_table_init(t, "ops", op_cols, ARRAY_LEN(op_cols));
	c.g = calloc(nref ? nref : 1, sizeof(*c.g));
	c.durs = malloc((ndurs ? ndurs : 1) * sizeof(*c.durs));
	if (!r || !c.g || !c.durs)
		st = TREX_NOMEM;
	for (size_t i = 0, j; st == TREX_OK && i < nref; i = j) {
		for (j = i + 1; j < nref && strcmp(r[j].g->label, r[i].g->label) == 0; j++)
			;
		join_group(&c, r + i, j - i, &at);
	}
	if (st == TREX_OK)
		st = emit(&c, t);
	free(r);
	free(c.g);
	free(c.durs);
	if (st != TREX_OK) {
		trex_table_free(t);
		return trex_error_set(err, st, NULL, -1, "%s: out of memory",
		                      opts->api ? "api" : "ops");
	}
	return TREX_OK;
}

/* ---- instances ----------------------------------------------------------------------------- */

struct instance {
	uint32_t id;
	int64_t ts, dur, self, gpu;
};

/* duration descending, then start, then id */
static int cmp_instance(const void *a, const void *b)
{
	const struct instance *x = a, *y = b;

	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static enum trex_status instance_row(const struct trex_index *idx, const struct instance *in,
                                     struct trex_table *t)
{
	const struct trex_slice *s = trex_index_slice(idx, in->id);
	union trex_cell *cell = trex_table_add_row(t);
	char buf[512];

	if (!cell)
		return TREX_NOMEM;
	cell[I_START].number = views_from_start(idx, s->ts);
	cell[I_DUR].number = (double)s->dur;
	cell[I_SELF].number = (double)in->self;
	cell[I_GPU].number = (double)in->gpu;
	cell[I_RANK].count = trex_index_file(idx, trex_index_track_file(idx, s->track))->rank;
	cell[I_THREAD].text = views_text(t, trex_track_label(idx, s->track, buf, sizeof(buf)));
	cell[I_NAME].text = views_text(t, trex_index_str(idx, s->name));
	return cell[I_THREAD].text && cell[I_NAME].text ? TREX_OK : TREX_NOMEM;
}

enum trex_status trex_ops_instances_table(const struct trex_index *idx, uint32_t *ids, size_t n,
                                          struct trex_table *t, struct trex_error *err)
{
	struct instance *in = malloc((n ? n : 1) * sizeof(*in));
	int64_t *self = malloc((n ? n : 1) * sizeof(*self));
	int64_t *gpu = malloc((n ? n : 1) * sizeof(*gpu));
	enum trex_status st = in && self && gpu ? TREX_OK : TREX_NOMEM;

	trex_table_init(t, "instances", instance_cols, ARRAY_LEN(instance_cols));
	if (st == TREX_OK && n > 1)
		qsort(ids, n, sizeof(*ids), cmp_u32);
	if (st == TREX_OK)
		st = costs_of(idx, ids, n, self, gpu);
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, ids[i]);

		in[i] = (struct instance){ids[i], s->ts, s->dur, self[i], gpu[i]};
	}
	if (st == TREX_OK && n > 1)
		qsort(in, n, sizeof(*in), cmp_instance);
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		ids[i] = in[i].id;
		st = instance_row(idx, &in[i], t);
	}
	free(in);
	free(self);
	free(gpu);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "instances: out of memory");
	}
	return st;
}
