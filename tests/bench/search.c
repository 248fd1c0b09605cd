/* Search benchmark: tests/bench/search TRACE [RUNS] [PATTERN...]
 *
 * Loads TRACE and times, for each pattern (default: a few kernel, NCCL,
 * runtime and catch-all regexes), compiling it and collecting every
 * matching slice (trex_search_new: what `/` does per keystroke), median
 * and max of RUNS (default 5); then the cost of one `n` and one `N` from
 * the middle of the trace (median of 1000), which is what a key costs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trex/analysis/search.h"
#include "trex/load/loader.h"

#include "bench_time.h"

#define RUNS_MAX 1000
#define STEP_RUNS 1000

/* Median ms of one next and one previous match from the middle of the trace. */
static void steps(const struct trex_index *idx, const struct trex_search *s, double *next_ms,
                  double *prev_ms)
{
	static double tn[STEP_RUNS], tp[STEP_RUNS];
	int64_t mid = trex_index_start(idx) + (trex_index_end(idx) - trex_index_start(idx)) / 2;
	struct trex_search_pos pos = {mid, 0, 0, 0};
	volatile uint32_t sink = 0;

	for (int i = 0; i < STEP_RUNS; i++) {
		double t0 = now_ms();

		sink += trex_search_next(s, &pos);
		tn[i] = now_ms() - t0;
		t0 = now_ms();
		sink += trex_search_prev(s, &pos);
		tp[i] = now_ms() - t0;
		pos.ts += 1000;
	}
	(void)sink;
	*next_ms = median(tn, STEP_RUNS);
	*prev_ms = median(tp, STEP_RUNS);
}

static int bench(const struct trex_index *idx, const char *pat, int runs)
{
	double t[RUNS_MAX], tmax = 0, next_ms = 0, prev_ms = 0;
	uint32_t count = 0;

	for (int i = 0; i < runs; i++) {
		struct trex_search *s = NULL;
		struct trex_error err;
		double t0 = now_ms();

		if (trex_search_new(idx, pat, NULL, &s, &err) != TREX_OK) {
			fprintf(stderr, "search: %s: %s\n", pat, err.message);
			return 1;
		}
		count = trex_search_count(s);
		t[i] = now_ms() - t0;
		tmax = t[i] > tmax ? t[i] : tmax;
		if (i == 0)
			steps(idx, s, &next_ms, &prev_ms);
		trex_search_free(s);
	}
	printf("| `");
	for (const char *p = pat; *p; p++) /* a | would end the Markdown cell */
		if (*p == '|')
			fputs("\\|", stdout);
		else
			putchar(*p);
	printf("` | %u | %.1f | %.1f | %.4f | %.4f |\n", count, median(t, runs), tmax, next_ms,
	       prev_ms);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = {
	    "gemm", "^nccl", "memcpy|memset", "cudaLaunchKernel", "^(?!.*gemm).*kernel", "."};
	struct trex_load_opts opts = {0};
	struct trex_index *idx = NULL;
	struct trex_error err;
	int runs = argc > 2 ? atoi(argv[2]) : 5, rc = 0;
	double t0;

	if (argc < 2 || runs < 1 || runs > RUNS_MAX) {
		fprintf(stderr, "usage: %s TRACE [RUNS] [PATTERN...]\n", argv[0]);
		return 1;
	}
	t0 = now_ms();
	if (trex_load_paths((const char *const *)&argv[1], 1, &opts, &idx, &err) != TREX_OK) {
		fprintf(stderr, "search: %s\n", err.message);
		return 2;
	}
	printf("%s: %u slices, %u lanes, %u strings, loaded in %.0f ms\n\n", argv[1],
	       trex_index_slice_count(idx), trex_index_lane_count(idx),
	       trex_strtab_count(trex_index_strings(idx)), now_ms() - t0);
	printf("| pattern | matches | median ms | max ms | n ms | N ms "
	       "|\n|---|---|---|---|---|---|\n");
	if (argc > 3)
		for (int i = 3; i < argc && rc == 0; i++)
			rc = bench(idx, argv[i], runs);
	else
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]) && rc == 0; i++)
			rc = bench(idx, defaults[i], runs);
	trex_index_free(idx);
	return rc;
}
