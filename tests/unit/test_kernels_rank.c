/* The kernels table of a set rank by rank (analysis/kernels_rank.h): the
 * merge selects Med, P95 and P99 from several sorted arrays as a sort of
 * them all would, and each rank's parts (by name with --memory, by op)
 * and rows (by shape, stream, device, rank) make the table of the ranks
 * loaded as one index, cell for cell. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/kernels_merge.h"
#include "trex/analysis/kernels_rank.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/kernel_summary.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"
#include "index_fixture.h"

#define NRANKS 3
#define NPARTS 5

static unsigned long long lcg(unsigned long long *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* ---- percentiles over several sorted arrays ----------------------------------------------------
 */

static double cell(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return t->cols[c].type == TREX_COL_COUNT
			           ? (double)trex_table_cell(t, 0, c)->count
			           : trex_table_cell(t, 0, c)->number;
	cr_assert_fail("no column %s", key);
	return 0;
}

/* One name over NPARTS parts of random sizes (some empty), durations
 * with ties and a wide range, each part's sorted; the merge against the
 * statistics of all durations sorted together. */
static void random_merge(unsigned long long seed)
{
	int64_t *all = malloc(NPARTS * 400 * sizeof(*all)), *durs[NPARTS];
	struct trex_ksum sums[NPARTS];
	struct trex_ksum_row rows[NPARTS];
	struct trex_ksum_file files[NPARTS];
	struct trex_kernels_part parts[NPARTS];
	struct trex_table t;
	struct trex_error err;
	size_t total = 0, nparts = 0;
	int64_t spread = 1 + (int64_t)(lcg(&seed) % 3 ? 50 : 5000000000ll);

	cr_assert(all);
	for (int p = 0; p < NPARTS; p++) {
		size_t n = lcg(&seed) % 400;

		if (lcg(&seed) % 4 == 0)
			n = 0; /* the name is not on that rank */
		if (n == 0)
			continue;
		durs[nparts] = all + total;
		for (size_t i = 0; i < n; i++)
			all[total + i] = (int64_t)(lcg(&seed) % (unsigned long long)spread);
		qsort(durs[nparts], n, sizeof(int64_t), cmp_i64);
		rows[nparts] = (struct trex_ksum_row){
		    "k", 1, n, durs[nparts][0], durs[nparts][n - 1], 0, 0, false, durs[nparts], 8};
		for (size_t i = 0; i < n; i++) {
			rows[nparts].sum += durs[nparts][i];
			rows[nparts].sumsq += (__int128)durs[nparts][i] * durs[nparts][i];
		}
		files[nparts] = (struct trex_ksum_file){p, true, false, n, 0, 1};
		sums[nparts] = (struct trex_ksum){&files[nparts], 1, &rows[nparts], 1, NULL};
		parts[nparts] = (struct trex_kernels_part){&sums[nparts], 0, p};
		total += n;
		nparts++;
	}
	if (!total) {
		free(all);
		return;
	}
	qsort(all, total, sizeof(*all), cmp_i64);
	cr_assert(trex_kernels_merge_table(parts, nparts, false, &t, &err) == TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(cell(&t, "instances"), (double)total);
	cr_assert_eq(cell(&t, "min_ns"), (double)all[0]);
	cr_assert_eq(cell(&t, "max_ns"), (double)all[total - 1]);
	cr_assert_eq(cell(&t, "med_ns"),
	             total % 2 ? (double)all[total / 2]
	                       : (double)((__int128)all[total / 2 - 1] + all[total / 2]) / 2.0,
	             "seed %llu", seed);
	cr_assert_eq(cell(&t, "p95_ns"), (double)all[(total * 95 + 99) / 100 - 1]);
	cr_assert_eq(cell(&t, "p99_ns"), (double)all[(total * 99 + 99) / 100 - 1]);
	trex_table_free(&t);
	free(all);
}

Test(kernels_rank, percentiles_over_sorted_arrays_are_those_of_one_sort)
{
	for (unsigned long long seed = 1; seed <= 300; seed++)
		random_merge(seed * 7919);
}

/* ---- parts and rows against the set loaded as one index ----------------------------------------
 */

/* Rank r (claiming rank NRANKS - 1 - r): CPU ops launching kernels on two
 * streams (correlation ids), copies with and without bytes, a kernel
 * without a launch; rank 2 has no sized copy. Equal work on every rank
 * (ties across ranks) and some of its own; a kernel "tie_r" of equal total
 * on each (ties ordered by name, against the ranks' order). */
static void rank_trace(int r, struct fixture_text *t)
{
	FILE *f = open_memstream(&t->s, &t->len);
	unsigned long long seed = 99 + (unsigned long long)r;
	long long ts = 1000;
	int corr = 1;

	cr_assert(f);
	fprintf(f, "{\"traceEvents\":[\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"step\","
	           "\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}");
	for (int i = 0; i < 60; i++, corr++, ts += 100) {
		const char *op = i % 3 == 0 ? "aten::mm" : i % 3 == 1 ? "aten::add" : "aten::copy_";
		bool copy = i % 3 == 2;
		int stream = 7 + i % 2;
		long long dur = i < 20 ? 5 : 1 + (long long)(lcg(&seed) % 30);

		fprintf(f,
		        ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":2,"
		        "\"ts\":%lld,\"dur\":20}",
		        op, ts);
		fprintf(f,
		        ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,"
		        "\"tid\":2,\"ts\":%lld,\"dur\":5,\"args\":{\"correlation\":%d}}",
		        copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", ts + 2, corr);
		if (copy && (r == 2 || i % 4 == 1))
			fprintf(f,
			        ",\n{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\","
			        "\"pid\":0,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,"
			        "\"args\":{\"correlation\":%d,\"stream\":%d}}",
			        stream, ts + 30, dur, corr, stream);
		else
			fprintf(
			    f,
			    ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,"
			    "\"ts\":%lld,\"dur\":%lld,\"args\":{\"correlation\":%d,\"stream\":%d,"
			    "\"bytes\":%d,\"grid\":[%d,1,1],\"block\":[128,1,1]}}",
			    copy ? "gpu_memcpy" : "kernel", copy ? "Memcpy DtoH" : "gemm", stream,
			    ts + 30, dur, corr, stream, 4096 * (i + r), 1 + i % 2);
	}
	fprintf(f,
	        ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"own_%d\",\"pid\":0,\"tid\":7,"
	        "\"ts\":%lld,\"dur\":%d}",
	        r, ts += 100, 3 + r);
	/* equal totals, names in the opposite order of the ranks: by name */
	fprintf(f,
	        ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tie_%d\",\"pid\":0,\"tid\":7,"
	        "\"ts\":%lld,\"dur\":7}",
	        r, ts += 100);
	fprintf(f, "\n],\"distributedInfo\":{\"rank\":%d,\"world_size\":%d}}\n", NRANKS - 1 - r,
	        NRANKS);
	cr_assert(fclose(f) == 0);
}

static bool has_column(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return true;
	return false;
}

/* The set's table by ko, from each rank's index as the CLI makes it. */
static void rank_by_rank(struct fixture_text *t, const struct trex_index *set,
                         const struct trex_kernel_opts *ko, struct trex_table *out)
{
	struct trex_kernels_rank *kr[NRANKS];
	struct trex_kernels_part parts[NRANKS];
	const struct trex_kernels_copy *copies[NRANKS];
	struct trex_table tables[NRANKS];
	const struct trex_table *tp[NRANKS];
	int64_t ranks[NRANKS];
	struct trex_kernels_merge_opts mo = {ko->per_rank, ko->group == TREX_KERNELS_BY_OP, NULL};
	bool by_part = ko->group == TREX_KERNELS_BY_NAME || ko->group == TREX_KERNELS_BY_OP;
	struct trex_error err;

	for (uint32_t f = 0; f < NRANKS; f++) {
		size_t input = (size_t)(NRANKS - 1 - trex_index_file(set, f)->rank);
		struct trex_index *one = fixture_load_texts(t, &input, 1);

		ranks[f] = trex_index_file(set, f)->rank;
		if (by_part) {
			cr_assert(trex_kernels_rank_new(one, ko, &kr[f], &err) == TREX_OK, "%s",
			          err.message);
			parts[f] = (struct trex_kernels_part){&kr[f]->sum, 0, ranks[f]};
			copies[f] = kr[f]->copies;
			mo.copies = kr[f]->copies ? copies : mo.copies;
		} else {
			cr_assert(trex_kernels_table(one, ko, &tables[f], &err) == TREX_OK);
			tp[f] = &tables[f];
		}
		trex_index_free(one);
	}
	if (by_part)
		cr_assert(trex_kernels_merge_table_opts(parts, NRANKS, &mo, out, &err) == TREX_OK);
	else
		cr_assert(trex_kernels_join_table(tp, ranks, NRANKS, out, &err) == TREX_OK);
	for (int f = 0; f < NRANKS; f++)
		if (by_part)
			trex_kernels_rank_free(kr[f]);
		else
			trex_table_free(&tables[f]);
}

static void matches(enum trex_kernel_group group, bool memory, bool per_rank, bool args)
{
	struct fixture_text t[NRANKS];
	size_t all[NRANKS];
	struct trex_kernel_opts ko = {
	    .group = group, .memory = memory, .per_rank = per_rank, .args = args};
	struct trex_table merged, lazy;
	struct trex_index *set;
	struct trex_error err;

	for (int r = 0; r < NRANKS; r++) {
		rank_trace(r, &t[r]);
		all[r] = (size_t)r;
	}
	set = fixture_load_texts(t, all, NRANKS);
	cr_assert(trex_kernels_table(set, &ko, &merged, &err) == TREX_OK);
	rank_by_rank(t, set, &ko, &lazy);
	cr_assert_gt(lazy.nrows, 2);
	cr_assert_eq(has_column(&merged, "bytes"), memory); /* some copies are sized */
	fixture_same_table(&merged, &lazy);
	trex_table_free(&merged);
	trex_table_free(&lazy);
	for (int r = 0; r < NRANKS; r++)
		free(t[r].s);
	trex_index_free(set);
}

Test(kernels_rank, by_name_with_memory_is_the_merged_table)
{
	matches(TREX_KERNELS_BY_NAME, true, false, false);
	matches(TREX_KERNELS_BY_NAME, true, true, false);
}

Test(kernels_rank, by_op_is_the_merged_table)
{
	matches(TREX_KERNELS_BY_OP, false, false, false);
	matches(TREX_KERNELS_BY_OP, true, true, false);
}

Test(kernels_rank, rows_of_one_rank_are_the_merged_table)
{
	for (int g = TREX_KERNELS_BY_SHAPE; g < TREX_KERNELS_BY_COUNT; g++) {
		if (g == TREX_KERNELS_BY_OP)
			continue;
		matches((enum trex_kernel_group)g, false, false, g == TREX_KERNELS_BY_SHAPE);
		matches((enum trex_kernel_group)g, true, false, false);
	}
}

Test(kernels_rank, a_part_is_by_name_or_op_only)
{
	struct fixture_text t;
	size_t zero = 0;
	struct trex_index *one;
	struct trex_kernels_rank *kr;
	struct trex_kernel_opts ko = {.group = TREX_KERNELS_BY_STREAM};
	struct trex_error err;

	rank_trace(0, &t);
	one = fixture_load_texts(&t, &zero, 1);
	cr_assert(trex_kernels_rank_new(one, &ko, &kr, &err) == TREX_USAGE);
	cr_assert_null(kr);
	trex_index_free(one);
	free(t.s);
}
