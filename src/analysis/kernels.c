#include "config.h"

#include "trex/core/grow.h"
#include "trex/analysis/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LINKS_MAX 16 /* correlated/External-id partners looked at per slice */
#define NO_OP_LABEL "(no launching op)"

static const char *const group_names[] = {
#define TREX_KERNEL_GROUP_NAME(id, name, help) name,
    TREX_KERNEL_GROUP_INFO(TREX_KERNEL_GROUP_NAME)
#undef TREX_KERNEL_GROUP_NAME
};

bool trex_kernel_group_parse(const char *s, enum trex_kernel_group *out)
{
	for (size_t i = 0; i < ARRAY_LEN(group_names); i++) {
		if (strcmp(s, group_names[i]) == 0) {
			*out = (enum trex_kernel_group)i;
			return true;
		}
	}
	return false;
}

const char *trex_kernel_group_name(enum trex_kernel_group g)
{
	return (size_t)g < ARRAY_LEN(group_names) ? group_names[g] : "?";
}

const char *trex_process_label(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size)
{
	const struct trex_process *p = trex_index_process(idx, process);
	const char *name = trex_index_str(idx, p->name);
	const char *pid = trex_index_str(idx, p->pid);

	if (*name)
		snprintf(buf, size, "%s (%s)", name, pid);
	else
		snprintf(buf, size, "%s", pid);
	return buf;
}

const char *trex_track_label(const struct trex_index *idx, uint32_t track, char *buf, size_t size)
{
	const struct trex_track *tr = trex_index_track(idx, track);
	const char *name = trex_index_str(idx, tr->name);

	snprintf(buf, size, "%s", *name ? name : trex_index_str(idx, tr->tid));
	return buf;
}

/* ---- columns -------------------------------------------------------------------------- */

/* Column order follows nsys stats' cuda_gpu_kern_sum, percentiles appended;
 * the label columns follow and Name stays last. */
static const struct trex_column stat_cols[] = {
    {"time_pct", "Time %", TREX_COL_PERCENT, true},
    {"total_ns", "Total", TREX_COL_DURATION, true},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"avg_ns", "Avg", TREX_COL_DURATION, true},
    {"med_ns", "Med", TREX_COL_DURATION, true},
    {"min_ns", "Min", TREX_COL_DURATION, true},
    {"max_ns", "Max", TREX_COL_DURATION, true},
    {"stddev_ns", "StdDev", TREX_COL_DURATION, true},
    {"p95_ns", "P95", TREX_COL_DURATION, true},
    {"p99_ns", "P99", TREX_COL_DURATION, true},
};
enum { COL_PCT, COL_TOTAL, COL_N, COL_AVG, COL_MED, COL_MIN, COL_MAX, COL_SD, COL_P95, COL_P99,
       NSTAT };

enum label { L_RANK, L_DEVICE, L_STREAM, L_SHAPE, L_ARGS, L_NAME, L_OP, NLABEL };
static const struct trex_column label_cols[NLABEL] = {
    [L_RANK] = {"rank", "Rank", TREX_COL_COUNT, false},
    [L_DEVICE] = {"device", "Device", TREX_COL_TEXT, false},
    [L_STREAM] = {"stream", "Stream", TREX_COL_TEXT, false},
    [L_SHAPE] = {"shape", "Shape", TREX_COL_TEXT, false},
    [L_ARGS] = {"args", "Args", TREX_COL_TEXT, false},
    [L_NAME] = {"name", "Name", TREX_COL_TEXT, false},
    [L_OP] = {"op", "Op", TREX_COL_TEXT, false},
};

/* The label columns of each grouping, in order; NLABEL ends a list. */
static const enum label group_labels[TREX_KERNELS_BY_COUNT][NLABEL + 1] = {
    [TREX_KERNELS_BY_NAME] = {L_NAME, NLABEL},
    [TREX_KERNELS_BY_SHAPE] = {L_RANK, L_DEVICE, L_STREAM, L_SHAPE, L_ARGS, L_NAME, NLABEL},
    [TREX_KERNELS_BY_OP] = {L_OP, NLABEL},
    [TREX_KERNELS_BY_STREAM] = {L_RANK, L_DEVICE, L_STREAM, NLABEL},
    [TREX_KERNELS_BY_DEVICE] = {L_RANK, L_DEVICE, NLABEL},
    [TREX_KERNELS_BY_RANK] = {L_RANK, NLABEL},
};

/* ---- collecting ------------------------------------------------------------------------ */

/* One kernel execution: its group key, rank slot, and where it came from. */
struct sample {
	uint32_t key[3];
	uint32_t rank;  /* rank slot (per_rank) */
	uint32_t slice; /* for the args of the first instance */
	int64_t ts;
	int64_t dur;
};

struct sample_vec {
	struct sample *v;
	size_t n, cap;
};

static bool push_sample(struct sample_vec *sv, const struct sample *s)
{
	struct sample *v = trex_grow(sv->v, &sv->cap, sv->n + 1, sizeof(*v), 1024);

	if (!v)
		return false;
	sv->v = v;
	sv->v[sv->n++] = *s;
	return true;
}

/* Kinds cached per category string id: 0 = not yet known, 0xff = decided
 * per event name (unitrace gpu_op), else kind + 1. */
#define KIND_BY_NAME 0xff

struct ctx {
	const struct trex_index *idx;
	const struct trex_kernel_opts *opts;
	uint8_t *cat_kind;
	uint32_t *file_rank; /* file id -> rank slot */
	int64_t *ranks;      /* rank slot -> rank, ascending */
	uint32_t nranks;
};

static enum trex_kind kind_of(struct ctx *c, const struct trex_slice *s)
{
	uint8_t *k = &c->cat_kind[s->cat];
	const char *cat;

	if (*k == 0) {
		cat = trex_index_str(c->idx, s->cat);
		*k = trex_kind_needs_name(cat) ? KIND_BY_NAME : (uint8_t)(trex_kind_of(cat, NULL) + 1);
	}
	if (*k == KIND_BY_NAME)
		return trex_kind_of(trex_index_str(c->idx, s->cat), trex_index_str(c->idx, s->name));
	return (enum trex_kind)(*k - 1);
}

static bool counted(struct ctx *c, const struct trex_slice *s)
{
	enum trex_kind k = kind_of(c, s);

	return k == TREX_KIND_KERNEL ||
	       (c->opts->memory && (k == TREX_KIND_MEMCPY || k == TREX_KIND_MEMSET));
}

static uint32_t cpu_op_by_ext_id(struct ctx *c, uint32_t slice)
{
	uint32_t links[LINKS_MAX];
	size_t n;

	if (slice == TREX_NONE || !(trex_index_slice(c->idx, slice)->flags & TREX_SLICE_HAS_EXT_ID))
		return TREX_NONE;
	n = trex_index_same_ext_id(c->idx, slice, links, LINKS_MAX);
	for (size_t i = 0; i < n && i < LINKS_MAX; i++) {
		if (kind_of(c, trex_index_slice(c->idx, links[i])) == TREX_KIND_CPU_OP)
			return links[i];
	}
	return TREX_NONE;
}

/* Name id of the CPU op that launched a kernel, TREX_NONE if unknown. */
static uint32_t launching_op(struct ctx *c, uint32_t slice)
{
	uint32_t rt = trex_index_launch_of(c->idx, slice), op = TREX_NONE;

	for (uint32_t p = rt == TREX_NONE ? TREX_NONE : trex_index_parent(c->idx, rt);
	     p != TREX_NONE && op == TREX_NONE; p = trex_index_parent(c->idx, p)) {
		if (kind_of(c, trex_index_slice(c->idx, p)) == TREX_KIND_CPU_OP)
			op = p;
	}
	if (op == TREX_NONE)
		op = cpu_op_by_ext_id(c, rt);
	if (op == TREX_NONE)
		op = cpu_op_by_ext_id(c, slice);
	return op == TREX_NONE ? TREX_NONE : trex_index_slice(c->idx, op)->name;
}

/* The kernel's shape, else its launch's (ROCm keeps grid/block there). */
static uint32_t shape_of(struct ctx *c, uint32_t slice, const struct trex_slice *s)
{
	uint32_t rt;

	if (s->shape)
		return s->shape;
	rt = trex_index_launch_of(c->idx, slice);
	return rt == TREX_NONE ? 0 : trex_index_slice(c->idx, rt)->shape;
}

static void sample_key(struct ctx *c, uint32_t id, const struct trex_slice *s, struct sample *out)
{
	uint32_t file = trex_index_track_file(c->idx, s->track);

	memset(out->key, 0, sizeof(out->key));
	switch (c->opts->group) {
	case TREX_KERNELS_BY_SHAPE:
		out->key[0] = s->name;
		out->key[1] = shape_of(c, id, s);
		out->key[2] = s->track;
		break;
	case TREX_KERNELS_BY_OP:
		out->key[0] = launching_op(c, id);
		break;
	case TREX_KERNELS_BY_STREAM:
		out->key[0] = s->track;
		break;
	case TREX_KERNELS_BY_DEVICE:
		out->key[0] = trex_index_track(c->idx, s->track)->process;
		break;
	case TREX_KERNELS_BY_RANK:
		out->key[0] = c->file_rank[file];
		break;
	case TREX_KERNELS_BY_NAME:
	default:
		out->key[0] = s->name;
		break;
	}
	out->rank = c->file_rank[file];
	out->slice = id;
	out->ts = s->ts;
	out->dur = s->dur;
}

static enum trex_status collect(struct ctx *c, struct sample_vec *sv)
{
	uint32_t nslices = trex_index_slice_count(c->idx);

	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		struct sample smp;

		if (!counted(c, s))
			continue;
		sample_key(c, i, s, &smp);
		if (!push_sample(sv, &smp))
			return TREX_NOMEM;
	}
	return TREX_OK;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* Distinct ranks, ascending, and each file's slot among them. */
static enum trex_status rank_slots(struct ctx *c)
{
	uint32_t nfiles = trex_index_file_count(c->idx);

	c->file_rank = calloc(nfiles ? nfiles : 1, sizeof(*c->file_rank));
	c->ranks = calloc(nfiles ? nfiles : 1, sizeof(*c->ranks));
	if (!c->file_rank || !c->ranks)
		return TREX_NOMEM;
	for (uint32_t f = 0; f < nfiles; f++) {
		int64_t r = trex_index_file(c->idx, f)->rank;
		uint32_t pos = 0;

		while (pos < c->nranks && c->ranks[pos] < r)
			pos++;
		if (pos < c->nranks && c->ranks[pos] == r)
			continue;
		memmove(c->ranks + pos + 1, c->ranks + pos, (c->nranks - pos) * sizeof(*c->ranks));
		c->ranks[pos] = r;
		c->nranks++;
	}
	for (uint32_t f = 0; f < nfiles; f++) {
		int64_t r = trex_index_file(c->idx, f)->rank;

		while (c->ranks[c->file_rank[f]] != r)
			c->file_rank[f]++;
	}
	return TREX_OK;
}

static int cmp_key(const struct sample *x, const struct sample *y)
{
	for (int i = 0; i < 3; i++) {
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	}
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = cmp_key(x, y);

	return c ? c : cmp_i64(x->dur, y->dur);
}

/* ---- statistics ------------------------------------------------------------------------- */

struct group {
	const struct sample *v; /* its samples, sorted by duration */
	uint64_t n;
	__int128 sum;
	double med, sd;
	const char *label, *label2; /* for tie-breaks */
};

/* Sample standard deviation (n - 1) of sorted values. Exact integer
 * moments where they fit in 128 bits (Q = n*sum(x^2) - sum(x)^2 = n*M2),
 * else a two-pass sum of squared deviations in long double. */
static double sample_stddev(const struct sample *v, uint64_t n, __int128 sum)
{
	__int128 sq = 0, nsq, sum2;
	bool overflow = false;
	long double m2;

	if (n < 2)
		return 0;
	for (uint64_t i = 0; i < n && !overflow; i++)
		overflow = __builtin_add_overflow(sq, (__int128)v[i].dur * v[i].dur, &sq);
	if (!overflow && !__builtin_mul_overflow(sq, (__int128)n, &nsq) &&
	    !__builtin_mul_overflow(sum, sum, &sum2)) {
		m2 = (long double)(nsq - sum2) / (long double)n;
	} else {
		long double mean = (long double)sum / (long double)n;

		m2 = 0;
		for (uint64_t i = 0; i < n; i++)
			m2 += ((long double)v[i].dur - mean) * ((long double)v[i].dur - mean);
	}
	return (double)sqrtl(m2 / (long double)(n - 1));
}

/* Nearest-rank percentile of n >= 1 sorted values: the ceil(p*n/100)-th. */
static int64_t percentile(const struct sample *v, uint64_t n, unsigned p)
{
	uint64_t rank = (n * p + 99) / 100;

	return v[rank ? rank - 1 : 0].dur;
}

static void group_stats(const struct sample *v, uint64_t n, struct group *g)
{
	g->v = v;
	g->n = n;
	g->sum = 0;
	for (uint64_t i = 0; i < n; i++)
		g->sum += v[i].dur;
	if (n % 2)
		g->med = (double)v[n / 2].dur;
	else
		g->med = (double)(((__int128)v[n / 2 - 1].dur + v[n / 2].dur)) / 2.0;
	g->sd = sample_stddev(v, n, g->sum);
}

/* Groups sorted samples; *out is malloc'd. */
static enum trex_status make_groups(const struct sample *v, size_t n, struct group **out,
                                    size_t *count)
{
	size_t distinct = n ? 1 : 0, ng = 0;
	struct group *g;

	for (size_t i = 1; i < n; i++)
		distinct += cmp_key(&v[i], &v[i - 1]) != 0;
	g = malloc((distinct ? distinct : 1) * sizeof(*g));
	if (!g)
		return TREX_NOMEM;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && cmp_key(&v[j], &v[i]) == 0; j++)
			;
		group_stats(v + i, j - i, &g[ng++]);
	}
	*out = g;
	*count = ng;
	return TREX_OK;
}

/* Total descending; ties by name (and shape), else by key (display order). */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	c = strcmp(x->label, y->label);
	if (!c)
		c = strcmp(x->label2, y->label2);
	return c ? c : cmp_key(x->v, y->v);
}

static const char *key_str(const struct trex_index *idx, uint32_t id)
{
	return id == TREX_NONE ? NO_OP_LABEL : trex_index_str(idx, id);
}

static void set_labels(const struct ctx *c, struct group *g)
{
	enum trex_kernel_group gr = c->opts->group;
	bool by_text = gr == TREX_KERNELS_BY_NAME || gr == TREX_KERNELS_BY_SHAPE ||
	               gr == TREX_KERNELS_BY_OP;

	g->label = by_text ? key_str(c->idx, g->v->key[0]) : "";
	g->label2 = gr == TREX_KERNELS_BY_SHAPE ? trex_index_str(c->idx, g->v->key[1]) : "";
}

/* ---- the table --------------------------------------------------------------------------- */

static const struct trex_column *build_columns(struct ctx *c, struct trex_table *t)
{
	const enum label *labels = group_labels[c->opts->group];
	bool per_rank = c->opts->per_rank && c->opts->group == TREX_KERNELS_BY_NAME;
	size_t ncols = NSTAT + (per_rank ? c->nranks : 0), k = NSTAT;
	struct trex_column *cols;

	for (const enum label *l = labels; *l != NLABEL; l++)
		ncols += *l != L_ARGS || c->opts->args;
	cols = trex_table_init_owned(t, "kernels", ncols);
	if (!cols)
		return NULL;
	memcpy(cols, stat_cols, sizeof(stat_cols));
	for (uint32_t r = 0; per_rank && r < c->nranks; r++, k++) {
		char key[48], title[40];
		int kn = snprintf(key, sizeof(key), "rank%lld_total_ns", (long long)c->ranks[r]);
		int tn = snprintf(title, sizeof(title), "Rank %lld", (long long)c->ranks[r]);

		cols[k] = (struct trex_column){trex_table_strdup(t, key, (size_t)kn),
		                               trex_table_strdup(t, title, (size_t)tn),
		                               TREX_COL_DURATION, true};
		if (!cols[k].key || !cols[k].title)
			return NULL;
	}
	for (const enum label *l = labels; *l != NLABEL; l++) {
		if (*l != L_ARGS || c->opts->args)
			cols[k++] = label_cols[*l];
	}
	return cols;
}

/* Args JSON text of the group's first instance (earliest start). */
static enum trex_status first_args(struct ctx *c, const struct group *g, struct trex_table *t,
                                   const char **out, struct trex_error *err)
{
	const struct sample *first = g->v;
	const struct trex_slice *s;
	enum trex_status st;
	char *text = NULL;
	size_t len = 0;

	for (uint64_t i = 1; i < g->n; i++) {
		if (g->v[i].ts < first->ts || (g->v[i].ts == first->ts && g->v[i].slice < first->slice))
			first = &g->v[i];
	}
	s = trex_index_slice(c->idx, first->slice);
	st = trex_index_args_text(c->idx, trex_index_track_file(c->idx, s->track), s->args, &text,
	                          &len, err);
	if (st != TREX_OK)
		return st;
	*out = trex_table_strdup(t, text ? text : "", text ? len : 0);
	free(text);
	return *out ? TREX_OK : TREX_NOMEM;
}

static enum trex_status label_cell(struct ctx *c, const struct group *g, enum label l,
                                   struct trex_table *t, union trex_cell *cell,
                                   struct trex_error *err)
{
	const struct trex_index *idx = c->idx;
	uint32_t track = g->v->key[c->opts->group == TREX_KERNELS_BY_SHAPE ? 2 : 0];
	char buf[512];
	const char *s = NULL;

	switch (l) {
	case L_RANK:
		cell->count = c->ranks[g->v->rank];
		return TREX_OK;
	case L_DEVICE:
		s = trex_process_label(idx,
		                       c->opts->group == TREX_KERNELS_BY_DEVICE
		                           ? g->v->key[0]
		                           : trex_index_track(idx, track)->process,
		                       buf, sizeof(buf));
		break;
	case L_STREAM:
		s = trex_track_label(idx, track, buf, sizeof(buf));
		break;
	case L_SHAPE:
		s = trex_index_str(idx, g->v->key[1]);
		break;
	case L_ARGS:
		return first_args(c, g, t, &cell->text, err);
	case L_NAME:
	case L_OP:
	default:
		s = key_str(idx, g->v->key[0]);
		break;
	}
	cell->text = trex_table_strdup(t, s, strlen(s));
	return cell->text ? TREX_OK : TREX_NOMEM;
}

static enum trex_status emit_row(struct ctx *c, struct trex_table *t, const struct group *g,
                                 __int128 grand, struct trex_error *err)
{
	union trex_cell *cell = trex_table_add_row(t);
	bool per_rank = c->opts->per_rank && c->opts->group == TREX_KERNELS_BY_NAME;
	size_t k = NSTAT;
	enum trex_status st = TREX_OK;

	if (!cell)
		return TREX_NOMEM;
	cell[COL_PCT].number = grand ? (double)((long double)g->sum * 100 / (long double)grand) : 0;
	cell[COL_TOTAL].number = (double)g->sum;
	cell[COL_N].count = (int64_t)g->n;
	cell[COL_AVG].number = (double)((long double)g->sum / (long double)g->n);
	cell[COL_MED].number = g->med;
	cell[COL_MIN].number = (double)g->v[0].dur;
	cell[COL_MAX].number = (double)g->v[g->n - 1].dur;
	cell[COL_SD].number = g->sd;
	cell[COL_P95].number = (double)percentile(g->v, g->n, 95);
	cell[COL_P99].number = (double)percentile(g->v, g->n, 99);
	if (per_rank) {
		for (uint64_t i = 0; i < g->n; i++)
			cell[k + g->v[i].rank].number += (double)g->v[i].dur;
		k += c->nranks;
	}
	for (const enum label *l = group_labels[c->opts->group]; *l != NLABEL && st == TREX_OK; l++) {
		if (*l != L_ARGS || c->opts->args)
			st = label_cell(c, g, *l, t, &cell[k++], err);
	}
	return st;
}

static enum trex_status fill_table(struct ctx *c, struct trex_table *t, struct group *g,
                                   size_t ng, struct trex_error *err)
{
	__int128 grand = 0;
	enum trex_status st = TREX_OK;

	for (size_t i = 0; i < ng; i++) {
		grand += g[i].sum;
		set_labels(c, &g[i]);
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	for (size_t i = 0; i < ng && st == TREX_OK; i++)
		st = emit_row(c, t, &g[i], grand, err);
	return st;
}

static enum trex_status compute(struct ctx *c, struct trex_table *t, struct trex_error *err)
{
	struct sample_vec sv = {NULL, 0, 0};
	struct group *g = NULL;
	size_t ng = 0;
	enum trex_status st = rank_slots(c);

	if (st == TREX_OK)
		st = build_columns(c, t) ? TREX_OK : TREX_NOMEM;
	if (st == TREX_OK)
		st = collect(c, &sv);
	if (st == TREX_OK && sv.n)
		qsort(sv.v, sv.n, sizeof(*sv.v), cmp_sample);
	if (st == TREX_OK)
		st = make_groups(sv.v, sv.n, &g, &ng);
	if (st == TREX_OK)
		st = fill_table(c, t, g, ng, err);
	free(sv.v);
	free(g);
	return st;
}

enum trex_status trex_kernels_table(const struct trex_index *idx,
                                    const struct trex_kernel_opts *opts, struct trex_table *t,
                                    struct trex_error *err)
{
	static const struct trex_kernel_opts defaults = {TREX_KERNELS_BY_NAME, false, false, false};
	struct ctx c = {.idx = idx, .opts = opts ? opts : &defaults};
	enum trex_status st;

	trex_table_init(t, "kernels", stat_cols, NSTAT);
	if ((size_t)c.opts->group >= TREX_KERNELS_BY_COUNT)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "kernel summary: bad grouping");
	c.cat_kind = calloc(trex_strtab_count(trex_index_strings(idx)) + 1, 1);
	st = c.cat_kind ? compute(&c, t, err) : TREX_NOMEM;
	free(c.cat_kind);
	free(c.file_rank);
	free(c.ranks);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "kernel summary: out of memory");
		return st;
	}
	return TREX_OK;
}
