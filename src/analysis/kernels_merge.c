/* The all-ranks kernels table from per-rank summaries (kernels_merge.h). */
#include "config.h"

#include "trex/analysis/kernels_merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/core/grow.h"

/* One rank's row of a name. */
struct contrib {
	uint32_t part;
	uint32_t group;
	const struct trex_ksum_row *row;
};

/* A kernel name over every rank: its contributions c[0..m). */
struct mgroup {
	const char *name;
	size_t name_len;
	const struct contrib *c;
	size_t m;
	uint64_t n;
	__int128 sum;
	int64_t min, max, p95, p99;
	double med, sd;
};

struct merge {
	const struct trex_kernels_part *parts;
	size_t nparts;
	struct contrib *contribs; /* grouped by name once sorted */
	size_t ncontribs;
	struct mgroup *groups;
	size_t ngroups, groups_cap;
	uint32_t *slot; /* group id + 1, 0: empty */
	size_t cap;     /* a power of two */
};

/* ---- names to groups ------------------------------------------------------------------------ */

static size_t name_hash(const char *s, size_t len, size_t mask)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29)) & mask;
}

static bool rehash(struct merge *mg, size_t cap)
{
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return false;
	for (size_t g = 0; g < mg->ngroups; g++) {
		size_t i = name_hash(mg->groups[g].name, mg->groups[g].name_len, cap - 1);

		while (slot[i])
			i = (i + 1) & (cap - 1);
		slot[i] = (uint32_t)g + 1;
	}
	free(mg->slot);
	mg->slot = slot;
	mg->cap = cap;
	return true;
}

/* The group of a row's name, made when the name is new. */
static bool group_of(struct merge *mg, const struct trex_ksum_row *r, uint32_t *gid)
{
	struct mgroup *v;
	size_t i;

	if ((mg->ngroups + 1) * 2 > mg->cap && !rehash(mg, mg->cap ? mg->cap * 2 : 256))
		return false;
	for (i = name_hash(r->name, r->name_len, mg->cap - 1); mg->slot[i];
	     i = (i + 1) & (mg->cap - 1)) {
		const struct mgroup *g = &mg->groups[mg->slot[i] - 1];

		if (g->name_len == r->name_len && memcmp(g->name, r->name, r->name_len) == 0) {
			*gid = mg->slot[i] - 1;
			return true;
		}
	}
	v = trex_grow(mg->groups, &mg->groups_cap, mg->ngroups + 1, sizeof(*v), 256);
	if (!v)
		return false;
	mg->groups = v;
	mg->groups[mg->ngroups] = (struct mgroup){.name = r->name, .name_len = r->name_len};
	mg->slot[i] = (uint32_t)mg->ngroups + 1;
	*gid = (uint32_t)mg->ngroups++;
	return true;
}

/* Every part's rows as contributions, sorted by group (a counting sort:
 * within a group, in part order). */
static bool gather(struct merge *mg)
{
	struct contrib *v, *sorted;
	size_t *first;

	for (size_t p = 0; p < mg->nparts; p++)
		mg->ncontribs += mg->parts[p].sum->files[mg->parts[p].file].nrows;
	v = malloc((mg->ncontribs ? mg->ncontribs : 1) * sizeof(*v));
	sorted = malloc((mg->ncontribs ? mg->ncontribs : 1) * sizeof(*sorted));
	if (!v || !sorted) {
		free(v);
		free(sorted);
		return false;
	}
	mg->contribs = sorted;
	for (size_t p = 0, k = 0; p < mg->nparts; p++) {
		const struct trex_ksum *s = mg->parts[p].sum;
		const struct trex_ksum_file *f = &s->files[mg->parts[p].file];

		for (size_t r = f->first_row; r < f->first_row + f->nrows; r++, k++) {
			v[k] = (struct contrib){(uint32_t)p, 0, &s->rows[r]};
			if (!group_of(mg, v[k].row, &v[k].group)) {
				free(v);
				return false;
			}
		}
	}
	first = calloc(mg->ngroups + 1, sizeof(*first));
	if (!first) {
		free(v);
		return false;
	}
	for (size_t k = 0; k < mg->ncontribs; k++)
		first[v[k].group + 1]++;
	for (size_t g = 0; g < mg->ngroups; g++) {
		first[g + 1] += first[g];
		mg->groups[g].c = sorted + first[g];
		mg->groups[g].m = first[g + 1] - first[g];
	}
	for (size_t k = 0; k < mg->ncontribs; k++)
		sorted[first[v[k].group]++] = v[k];
	free(first);
	free(v);
	return true;
}

/* ---- statistics ----------------------------------------------------------------------------- */

/* The k-th smallest (from 1) duration of a group: the least value v in
 * [min, max] with k durations at or below it. */
static int64_t kth(const struct mgroup *g, uint64_t k)
{
	int64_t lo = g->min, hi = g->max;

	if (g->m == 1)
		return trex_ksum_dur(g->c[0].row, k - 1);
	while (lo < hi) {
		int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
		uint64_t at_or_below = 0;

		for (size_t i = 0; i < g->m; i++)
			at_or_below += trex_ksum_count_le(g->c[i].row, mid);
		if (at_or_below >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Nearest rank, as trex_kernels_table: the ceil(p*n/100)-th smallest. */
static int64_t percentile(const struct mgroup *g, unsigned p)
{
	uint64_t rank = (g->n * p + 99) / 100;

	return kth(g, rank ? rank : 1);
}

/* Sample standard deviation (n - 1), by the merged table's formula. */
static double stddev(const struct mgroup *g)
{
	__int128 sq = 0, nsq, sum2;
	bool overflow = false;
	long double m2 = 0;

	if (g->n < 2)
		return 0;
	for (size_t i = 0; i < g->m && !overflow; i++)
		overflow = g->c[i].row->sumsq_overflow ||
		           __builtin_add_overflow(sq, g->c[i].row->sumsq, &sq);
	if (!overflow && !__builtin_mul_overflow(sq, (__int128)g->n, &nsq) &&
	    !__builtin_mul_overflow(g->sum, g->sum, &sum2)) {
		m2 = (long double)(nsq - sum2) / (long double)g->n;
	} else {
		long double mean = (long double)g->sum / (long double)g->n;

		for (size_t i = 0; i < g->m; i++)
			for (uint64_t j = 0; j < g->c[i].row->n; j++) {
				long double d = (long double)trex_ksum_dur(g->c[i].row, j) - mean;

				m2 += d * d;
			}
	}
	return (double)sqrtl(m2 / (long double)(g->n - 1));
}

static void group_stats(struct mgroup *g)
{
	g->n = 0;
	g->sum = 0;
	g->min = g->c[0].row->min;
	g->max = g->c[0].row->max;
	for (size_t i = 0; i < g->m; i++) {
		const struct trex_ksum_row *r = g->c[i].row;

		g->n += r->n;
		g->sum += r->sum;
		g->min = r->min < g->min ? r->min : g->min;
		g->max = r->max > g->max ? r->max : g->max;
	}
	if (g->n % 2)
		g->med = (double)kth(g, g->n / 2 + 1);
	else
		g->med = (double)((__int128)kth(g, g->n / 2) + kth(g, g->n / 2 + 1)) / 2.0;
	g->p95 = percentile(g, 95);
	g->p99 = percentile(g, 99);
	g->sd = stddev(g);
}

/* Total descending, ties by name: the merged table's order by name. */
static int cmp_mgroup(const void *a, const void *b)
{
	const struct mgroup *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* ---- the table ------------------------------------------------------------------------------- */

static bool make_columns(const struct merge *mg, const struct trex_kernels_merge_opts *mo,
                         struct trex_table *t)
{
	size_t nstat, nbytes, k;
	const struct trex_column *stat = trex_kernels_stat_columns(&nstat);
	const struct trex_column *bytes = trex_kernels_bytes_columns(&nbytes);
	size_t ncols = nstat + (mo->per_rank ? mg->nparts : 0) + (mo->copies ? nbytes : 0) + 1;
	struct trex_column *cols = trex_table_init_owned(t, "kernels", ncols);

	if (!cols)
		return false;
	memcpy(cols, stat, nstat * sizeof(*cols));
	k = nstat;
	for (size_t p = 0; mo->per_rank && p < mg->nparts; p++, k++) {
		char key[64], title[64];

		snprintf(key, sizeof(key), "rank%lld_total_ns", (long long)mg->parts[p].rank);
		snprintf(title, sizeof(title), "rank %lld", (long long)mg->parts[p].rank);
		cols[k] = (struct trex_column){trex_table_strdup(t, key, strlen(key)),
		                               trex_table_strdup(t, title, strlen(title)),
		                               TREX_COL_DURATION, true};
		if (!cols[k].key || !cols[k].title)
			return false;
	}
	if (mo->copies) {
		memcpy(cols + k, bytes, nbytes * sizeof(*cols));
		k += nbytes;
	}
	cols[k] = mo->by_op ? *trex_kernels_op_column() : *trex_kernels_name_column();
	return true;
}

/* The group's Bytes and GB/s (kernels.c's copy_cells over the ranks'
 * sums: integers, exact in a double below 2^53 whatever the order). */
static void copy_cells(const struct merge *mg, const struct trex_kernels_copy *const *copies,
                       const struct mgroup *g, union trex_cell *cell)
{
	int64_t bytes = 0, ns = 0;
	bool sized = false;

	for (size_t i = 0; i < g->m; i++) {
		const struct trex_kernels_part *p = &mg->parts[g->c[i].part];
		const struct trex_kernels_copy *c;

		if (!copies[g->c[i].part])
			continue;
		c = &copies[g->c[i].part][g->c[i].row - p->sum->rows];
		sized = sized || c->sized;
		bytes += c->bytes;
		ns += c->ns;
	}
	cell[0].number = sized ? (double)bytes : NAN;
	cell[1].number = sized && ns > 0 ? (double)bytes / (double)ns : NAN;
}

static bool emit_row(struct trex_table *t, const struct merge *mg, const struct mgroup *g,
                     __int128 grand, const struct trex_kernels_merge_opts *mo)
{
	union trex_cell *cell = trex_table_add_row(t);
	size_t k = 0;

	if (!cell)
		return false;
	cell[k++].number =
	    grand ? (double)((long double)g->sum * 100 / (long double)grand) : 0; /* Time % */
	cell[k++].number = (double)g->sum;
	cell[k++].count = (int64_t)g->n;
	cell[k++].number = (double)((long double)g->sum / (long double)g->n);
	cell[k++].number = g->med;
	cell[k++].number = (double)g->min;
	cell[k++].number = (double)g->max;
	cell[k++].number = g->sd;
	cell[k++].number = (double)g->p95;
	cell[k++].number = (double)g->p99;
	for (size_t i = 0; mo->per_rank && i < g->m; i++)
		cell[k + g->c[i].part].number = (double)g->c[i].row->sum;
	if (mo->copies)
		copy_cells(mg, mo->copies, g, &cell[t->ncols - 3]);
	k = t->ncols - 1;
	cell[k].text = trex_table_strdup(t, g->name, g->name_len);
	return cell[k].text != NULL;
}

static bool fill(struct merge *mg, const struct trex_kernels_merge_opts *mo, struct trex_table *t)
{
	__int128 grand = 0;

	for (size_t g = 0; g < mg->ngroups; g++) {
		group_stats(&mg->groups[g]);
		grand += mg->groups[g].sum;
	}
	if (mg->ngroups) /* groups is NULL without any: qsort's pointer must not be */
		qsort(mg->groups, mg->ngroups, sizeof(*mg->groups), cmp_mgroup);
	if (!make_columns(mg, mo, t))
		return false;
	for (size_t g = 0; g < mg->ngroups; g++)
		if (!emit_row(t, mg, &mg->groups[g], grand, mo))
			return false;
	return true;
}

enum trex_status trex_kernels_merge_table(const struct trex_kernels_part *parts, size_t n,
                                          bool per_rank, struct trex_table *t,
                                          struct trex_error *err)
{
	struct trex_kernels_merge_opts mo = {.per_rank = per_rank};

	return trex_kernels_merge_table_opts(parts, n, &mo, t, err);
}

enum trex_status trex_kernels_merge_table_opts(const struct trex_kernels_part *parts, size_t n,
                                               const struct trex_kernels_merge_opts *mo,
                                               struct trex_table *t, struct trex_error *err)
{
	struct merge mg = {.parts = parts, .nparts = n};
	bool ok;

	trex_table_init(t, "kernels", NULL, 0);
	ok = gather(&mg) && fill(&mg, mo, t);
	free(mg.contribs);
	free(mg.groups);
	free(mg.slot);
	if (!ok) {
		trex_table_free(t);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "kernel summary: out of memory");
	}
	return TREX_OK;
}
