#include "config.h"

#include "trex/analysis/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Column order follows nsys stats' cuda_gpu_kern_sum; Name stays last. */
#define KERNEL_STAT_COLUMNS                                          \
	{"time_pct", "Time %", TREX_COL_PERCENT, true},              \
	{"total_ns", "Total", TREX_COL_DURATION, true},              \
	{"instances", "Instances", TREX_COL_COUNT, true},            \
	{"avg_ns", "Avg", TREX_COL_DURATION, true},                  \
	{"med_ns", "Med", TREX_COL_DURATION, true},                  \
	{"min_ns", "Min", TREX_COL_DURATION, true},                  \
	{"max_ns", "Max", TREX_COL_DURATION, true},                  \
	{"stddev_ns", "StdDev", TREX_COL_DURATION, true}

static const struct trex_column by_name_cols[] = {
	KERNEL_STAT_COLUMNS,
	{"name", "Name", TREX_COL_TEXT, false},
};
static const struct trex_column by_shape_cols[] = {
	KERNEL_STAT_COLUMNS,
	{"shape", "Shape", TREX_COL_TEXT, false},
	{"name", "Name", TREX_COL_TEXT, false},
};
enum { COL_PCT, COL_TOTAL, COL_N, COL_AVG, COL_MED, COL_MIN, COL_MAX, COL_SD, COL_SHAPE };

/* One kernel execution: its group key (name id << 32 | shape id) and duration. */
struct sample {
	uint64_t key;
	int64_t dur;
};

struct group {
	uint32_t name, shape;
	const char *name_s, *shape_s; /* for tie-breaks */
	uint64_t n;
	__int128 sum;
	int64_t min, max;
	double med, sd;
};

/* Per category string id: not yet classified, kernel, not a kernel, or
 * decided per event name (unitrace gpu_op). */
enum { CAT_UNKNOWN, CAT_KERNEL, CAT_OTHER, CAT_BY_NAME };

static bool is_kernel(const struct trex_index *idx, uint8_t *cat_kind, const struct trex_slice *s)
{
	uint8_t *k = &cat_kind[s->cat];

	if (*k == CAT_UNKNOWN) {
		const char *cat = trex_index_str(idx, s->cat);

		if (trex_kind_needs_name(cat))
			*k = CAT_BY_NAME;
		else
			*k = trex_kind_of(cat, NULL) == TREX_KIND_KERNEL ? CAT_KERNEL : CAT_OTHER;
	}
	if (*k == CAT_BY_NAME)
		return trex_kind_of(trex_index_str(idx, s->cat), trex_index_str(idx, s->name)) ==
		       TREX_KIND_KERNEL;
	return *k == CAT_KERNEL;
}

struct sample_vec {
	struct sample *v;
	size_t n, cap;
};

static bool push_sample(struct sample_vec *sv, uint64_t key, int64_t dur)
{
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 1024;
		struct sample *v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return false;
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n].key = key;
	sv->v[sv->n].dur = dur;
	sv->n++;
	return true;
}

/* All kernel executions with their group keys. */
static enum trex_status collect(const struct trex_index *idx, bool by_shape, struct sample_vec *sv)
{
	uint32_t nslices = trex_index_slice_count(idx);
	uint8_t *cat_kind = calloc(trex_strtab_count(trex_index_strings(idx)) + 1, 1);
	enum trex_status st = cat_kind ? TREX_OK : TREX_NOMEM;

	for (uint32_t i = 0; i < nslices && st == TREX_OK; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint64_t key = (uint64_t)s->name << 32 | (by_shape ? s->shape : 0);

		if (is_kernel(idx, cat_kind, s) && !push_sample(sv, key, s->dur))
			st = TREX_NOMEM;
	}
	free(cat_kind);
	return st;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->dur > y->dur) - (x->dur < y->dur);
}

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

/* Statistics of one run of equal keys, sorted by duration. */
static void group_stats(const struct sample *v, uint64_t n, struct group *g)
{
	g->name = (uint32_t)(v[0].key >> 32);
	g->shape = (uint32_t)v[0].key;
	g->n = n;
	g->sum = 0;
	for (uint64_t i = 0; i < n; i++)
		g->sum += v[i].dur;
	g->min = v[0].dur;
	g->max = v[n - 1].dur;
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
		distinct += v[i].key != v[i - 1].key;
	g = malloc((distinct ? distinct : 1) * sizeof(*g));
	if (!g)
		return TREX_NOMEM;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].key == v[i].key; j++)
			;
		group_stats(v + i, j - i, &g[ng++]);
	}
	*out = g;
	*count = ng;
	return TREX_OK;
}

/* Total descending; ties by name, then shape (byte order). */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	c = strcmp(x->name_s, y->name_s);
	return c ? c : strcmp(x->shape_s, y->shape_s);
}

static const char *table_str(struct trex_table *t, const struct trex_index *idx, uint32_t id)
{
	size_t len;
	const char *s = trex_strtab_get(trex_index_strings(idx), id, &len);

	return trex_table_strdup(t, s, len);
}

static bool emit_row(struct trex_table *t, const struct trex_index *idx, const struct group *g,
                     __int128 grand, bool by_shape)
{
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return false;
	c[COL_PCT].number = grand ? (double)((long double)g->sum * 100 / (long double)grand) : 0;
	c[COL_TOTAL].number = (double)g->sum;
	c[COL_N].count = (int64_t)g->n;
	c[COL_AVG].number = (double)((long double)g->sum / (long double)g->n);
	c[COL_MED].number = g->med;
	c[COL_MIN].number = (double)g->min;
	c[COL_MAX].number = (double)g->max;
	c[COL_SD].number = g->sd;
	if (by_shape && !(c[COL_SHAPE].text = table_str(t, idx, g->shape)))
		return false;
	c[t->ncols - 1].text = table_str(t, idx, g->name);
	return c[t->ncols - 1].text != NULL;
}

static enum trex_status fill_table(struct trex_table *t, const struct trex_index *idx,
                                   struct group *g, size_t ng, bool by_shape)
{
	__int128 grand = 0;

	for (size_t i = 0; i < ng; i++) {
		grand += g[i].sum;
		g[i].name_s = trex_index_str(idx, g[i].name);
		g[i].shape_s = trex_index_str(idx, g[i].shape);
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	for (size_t i = 0; i < ng; i++) {
		if (!emit_row(t, idx, &g[i], grand, by_shape))
			return TREX_NOMEM;
	}
	return TREX_OK;
}

enum trex_status trex_kernels_table(const struct trex_index *idx,
                                    const struct trex_kernel_opts *opts, struct trex_table *t,
                                    struct trex_error *err)
{
	bool by_shape = opts && opts->group == TREX_KERNELS_BY_SHAPE;
	struct sample_vec sv = {NULL, 0, 0};
	struct group *g = NULL;
	size_t ng = 0;
	enum trex_status st;

	if (by_shape)
		trex_table_init(t, "kernels", by_shape_cols, ARRAY_LEN(by_shape_cols));
	else
		trex_table_init(t, "kernels", by_name_cols, ARRAY_LEN(by_name_cols));
	st = collect(idx, by_shape, &sv);
	if (st == TREX_OK && sv.n)
		qsort(sv.v, sv.n, sizeof(*sv.v), cmp_sample);
	if (st == TREX_OK)
		st = make_groups(sv.v, sv.n, &g, &ng);
	if (st == TREX_OK)
		st = fill_table(t, idx, g, ng, by_shape);
	free(sv.v);
	free(g);
	if (st != TREX_OK) {
		trex_table_free(t);
		return trex_error_set(err, st, NULL, -1, "kernel summary: out of memory");
	}
	return TREX_OK;
}
