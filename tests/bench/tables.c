/* tables: times what the triage table views compute after a load.
 *
 *   tables TRACE... [--runs N]
 *
 * Loads the traces once (not timed), then times, median of N runs (default
 * 5): the kernels table by name as the kernels view builds it (statistics,
 * instance lists and the default sort), each regrouping (shape, op,
 * stream, device, rank), re-sorting the by-name rows by each column, a
 * regex filter, and the instances table of the biggest group (Enter).
 * Targets (issue 4): table <= 100 ms, regroup or re-sort <= 50 ms. Built
 * by `make tests/bench/tables` and run by tests/bench/run.sh. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/table_order.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"

#include "bench_time.h"

#define RUNS_MAX 101

static void report(const char *what, double *ms, int runs, double target)
{
	double m = median(ms, runs);

	if (target <= 0) { /* no target of its own */
		printf("| %-44s | %9.2f | %9.2f | %9.2f |      - |  |\n", what, m, ms[0],
		       ms[runs - 1]);
		return;
	}
	printf("| %-44s | %9.2f | %9.2f | %9.2f | %6.0f | %s |\n", what, m, ms[0], ms[runs - 1],
	       target, m <= target ? "ok" : "OVER");
}

/* The kernels view's work for one grouping: table, members, sorted rows. */
static int build(const struct trex_index *idx, enum trex_kernel_group g,
                 const struct trex_kernel_ops *ops, struct trex_table *t,
                 struct trex_kernel_members *m, size_t **rows)
{
	struct trex_kernel_opts opts = {.group = g,
	                                .per_rank = g == TREX_KERNELS_BY_NAME &&
	                                            trex_index_file_count(idx) > 1,
	                                .ops = ops};
	struct trex_error err;

	if (trex_kernels_table_members(idx, &opts, t, m, &err) != TREX_OK) {
		fprintf(stderr, "tables: %s\n", err.message);
		return -1;
	}
	*rows = malloc((t->nrows ? t->nrows : 1) * sizeof(**rows));
	if (!*rows)
		return -1;
	for (size_t i = 0; i < t->nrows; i++)
		(*rows)[i] = i;
	return trex_table_sort_rows(t, 1, true, trex_table_name_col(t), *rows, t->nrows) == TREX_OK
	           ? 0
	           : -1;
}

static void drop(struct trex_table *t, struct trex_kernel_members *m, size_t *rows)
{
	trex_table_free(t);
	trex_kernel_members_free(m);
	free(rows);
}

/* One grouping, runs times; ops NULL: launching ops found each time. */
static int time_group(const struct trex_index *idx, enum trex_kernel_group g,
                      const struct trex_kernel_ops *ops, int runs, const char *label, double target)
{
	double ms[RUNS_MAX];
	char what[96];
	size_t nrows = 0;

	for (int i = 0; i < runs; i++) {
		struct trex_table t;
		struct trex_kernel_members m;
		size_t *rows;
		double t0 = now_ms();

		if (build(idx, g, ops, &t, &m, &rows) != 0)
			return -1;
		ms[i] = now_ms() - t0;
		nrows = t.nrows;
		drop(&t, &m, rows);
	}
	snprintf(what, sizeof(what), "%s %s (%zu rows)", label, trex_kernel_group_name(g), nrows);
	report(what, ms, runs, target);
	return 0;
}

/* What the kernels view does: the table by name when it opens, the
 * launching ops on a second thread meanwhile (found once), then each
 * regrouping with them. */
static int time_groups(const struct trex_index *idx, int runs)
{
	struct trex_kernel_ops ops;
	struct trex_error err;
	double ms[RUNS_MAX];

	if (time_group(idx, TREX_KERNELS_BY_NAME, NULL, runs, "kernels table by", 100) != 0)
		return -1;
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();

		if (trex_kernel_ops_compute(idx, &ops, &err) != TREX_OK)
			return -1;
		ms[i] = now_ms() - t0;
		if (i + 1 < runs)
			trex_kernel_ops_free(&ops);
	}
	report("launching ops (background thread at open)", ms, runs, 0);
	for (int g = 1; g < TREX_KERNELS_BY_COUNT; g++)
		if (time_group(idx, (enum trex_kernel_group)g, &ops, runs, "regroup by", 50) != 0)
			return -1;
	trex_kernel_ops_free(&ops);
	/* trex kernels --by op: one table, its ops found for it */
	return time_group(idx, TREX_KERNELS_BY_OP, NULL, runs, "one-off table (CLI) by", 0);
}

static int time_sorts(const struct trex_index *idx, int runs)
{
	struct trex_table t;
	struct trex_kernel_members m;
	size_t *rows;

	if (build(idx, TREX_KERNELS_BY_NAME, NULL, &t, &m, &rows) != 0)
		return -1;
	for (size_t c = 0; c < t.ncols; c++) {
		double ms[RUNS_MAX];
		char what[64];

		for (int i = 0; i < runs; i++) {
			double t0 = now_ms();

			trex_table_sort_rows(&t, c, i % 2 == 0, trex_table_name_col(&t), rows,
			                     t.nrows);
			ms[i] = now_ms() - t0;
		}
		snprintf(what, sizeof(what), "re-sort by %s", t.cols[c].key);
		report(what, ms, runs, 50);
	}
	drop(&t, &m, rows);
	return 0;
}

static int time_filter_and_instances(const struct trex_index *idx, int runs)
{
	struct trex_table t;
	struct trex_kernel_members m;
	size_t *rows, big = 0, kept = 0;
	double fms[RUNS_MAX], ims[RUNS_MAX];
	struct trex_regex *re;
	struct trex_error err;
	char what[64];

	if (build(idx, TREX_KERNELS_BY_NAME, NULL, &t, &m, &rows) != 0 ||
	    trex_regex_compile("gemm|elementwise", &re, &err) != TREX_OK)
		return -1;
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();

		kept = trex_table_filter_rows(&t, trex_table_name_col(&t), re, rows, t.nrows, rows);
		fms[i] = now_ms() - t0;
		for (size_t r = 0; r < t.nrows; r++)
			rows[r] = r;
	}
	snprintf(what, sizeof(what), "filter gemm|elementwise (%zu kept)", kept);
	report(what, fms, runs, 50);
	trex_regex_free(re);
	for (size_t r = 1; r < m.nrows; r++) {
		if (m.first[r + 1] - m.first[r] > m.first[big + 1] - m.first[big])
			big = r;
	}
	for (int i = 0; m.nrows && i < runs; i++) {
		struct trex_table it;
		double t0 = now_ms();

		if (trex_kernel_instances_table(idx, m.ids + m.first[big],
		                                m.first[big + 1] - m.first[big], &it,
		                                &err) != TREX_OK)
			return -1;
		ims[i] = now_ms() - t0;
		trex_table_free(&it);
	}
	snprintf(what, sizeof(what), "instances (%zu)",
	         m.nrows ? m.first[big + 1] - m.first[big] : 0);
	if (m.nrows)
		report(what, ims, runs, 100);
	drop(&t, &m, rows);
	return 0;
}

int main(int argc, char **argv)
{
	const char *paths[64];
	size_t npaths = 0;
	int runs = 5;
	struct trex_load_opts opts = {0};
	struct trex_index *idx;
	struct trex_error err;
	double t0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (npaths < 64)
			paths[npaths++] = argv[i];
	}
	if (!npaths || runs < 1 || runs > RUNS_MAX) {
		fprintf(stderr, "usage: tables TRACE... [--runs N (1..%d)]\n", RUNS_MAX);
		return 1;
	}
	t0 = now_ms();
	if (trex_load_paths(paths, npaths, &opts, &idx, &err) != TREX_OK) {
		fprintf(stderr, "tables: %s\n", err.message);
		return 1;
	}
	printf("loaded %zu file(s), %u slices in %.0f ms (not counted below)\n\n", npaths,
	       trex_index_slice_count(idx), now_ms() - t0);
	printf("| %-44s | %9s | %9s | %9s | %6s | %s |\n", "step", "median ms", "min ms", "max ms",
	       "target", "");
	printf("|%s|%s|%s|%s|%s|%s|\n", "----------------------------------------------",
	       "-----------", "-----------", "-----------", "--------", "------");
	if (time_groups(idx, runs) || time_sorts(idx, runs) ||
	    time_filter_and_instances(idx, runs)) {
		trex_index_free(idx);
		return 1;
	}
	trex_index_free(idx);
	return 0;
}
