/* diff: times the kernel-sequence alignment of `trex diff --by sequence`.
 *
 *   diff N [--runs R]
 *
 * Makes a stream of N kernels (a training step of 137 launches of 60
 * names, repeated) and a second one with 40 edits spread over it (20
 * kernels removed, 20 runs of 1-3 new ones added), then times, median of
 * R runs (default 5): trex_diff_align of the two (issue 16 target:
 * N = 1M per side <= 1 s), the same on two unrelated random sequences of 8
 * names (the worst case: the cost cap and the work budget bound it).
 * Built by `make tests/bench/diff` and run by tests/bench/run.sh, which
 * also times `trex diff` end to end on two generated traces. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/diff.h"
#include "trex/core/status.h"

#include "bench_time.h"

#define RUNS_MAX 101
#define STEP_LEN 137
#define NAMES 60

static void report(const char *what, double *ms, int runs, double target)
{
	double m = median(ms, runs);

	printf("| %-48s | %9.2f | %9.2f | %9.2f | %6.0f | %s |\n", what, m, ms[0], ms[runs - 1],
	       target,
	       target <= 0   ? "-"
	       : m <= target ? "ok"
	                     : "OVER");
}

/* a: the step pattern repeated; b: a with edits removals and edits added
 * runs of 1-3 kernels, evenly spread. Returns b's length. */
static size_t make_pair(uint32_t *a, size_t n, uint32_t *b, size_t edits, unsigned seed)
{
	size_t nb = 0, gap = n / (2 * edits + 1);
	uint32_t step[STEP_LEN];

	for (size_t i = 0; i < STEP_LEN; i++)
		step[i] = (uint32_t)(rand_r(&seed) % NAMES);
	for (size_t i = 0; i < n; i++)
		a[i] = step[i % STEP_LEN];
	for (size_t i = 0; i < n; i++) {
		size_t k = i / gap;

		if (i % gap == gap / 2 && k % 2 == 0 && k < 2 * edits)
			continue; /* removed */
		b[nb++] = a[i];
		if (i % gap == gap / 2 && k % 2 == 1)
			for (unsigned r = 0; r <= k % 3; r++)
				b[nb++] = NAMES + (uint32_t)k; /* a name A never has */
	}
	return nb;
}

static int time_align(const char *what, const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                      int runs, double target)
{
	double ms[RUNS_MAX];
	struct trex_diff_script s = {0};
	struct trex_error err;
	size_t edits = 0;
	char line[128];

	for (int r = 0; r < runs; r++) {
		double t0 = now_ms();

		if (trex_diff_align(a, na, b, nb, &s, &err) != TREX_OK) {
			fprintf(stderr, "diff: %s\n", err.message);
			return 1;
		}
		ms[r] = now_ms() - t0;
		edits = 0;
		for (size_t i = 0; i < s.n; i++)
			edits += s.v[i].kind == TREX_DIFF_MATCH ? 0 : s.v[i].len;
		if (r + 1 < runs)
			trex_diff_script_free(&s);
	}
	report(what, ms, runs, target);
	snprintf(line, sizeof(line), "  %zu + %zu: %zu edits in %zu runs, %s", na, nb, edits, s.n,
	         s.approximate ? "approximate" : "shortest");
	printf("| %-48s | %9s | %9s | %9s | %6s |    |\n", line, "", "", "", "");
	trex_diff_script_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	int runs = 5;
	uint32_t *a, *b;
	size_t nb;
	unsigned seed = 1;

	if (argc == 4 && strcmp(argv[2], "--runs") == 0)
		runs = atoi(argv[3]);
	if (n < 1000 || runs < 1 || runs > RUNS_MAX || (argc != 2 && argc != 4)) {
		fprintf(stderr, "usage: diff N [--runs R] (N >= 1000, R 1-%d)\n", RUNS_MAX);
		return 2;
	}
	a = malloc(n * sizeof(*a));
	b = malloc(4 * n * sizeof(*b));
	if (!a || !b)
		return 1;
	nb = make_pair(a, n, b, 20, 7);
	printf("| %-48s | %9s | %9s | %9s | %6s |    |\n", "alignment", "median ms", "min ms",
	       "max ms", "target");
	printf("|%s|%s|%s|%s|%s|----|\n", "--------------------------------------------------",
	       "-----------", "-----------", "-----------", "--------");
	if (time_align("similar streams, 40 edit runs", a, n, b, nb, runs, n <= 1000000 ? 1000 : 0))
		return 1;
	nb = make_pair(a, n, b, n / 200, 7);
	if (time_align("similar streams, an edit run per 100 kernels", a, n, b, nb, runs, 0))
		return 1;
	for (size_t i = 0; i < n; i++) {
		a[i] = (uint32_t)(rand_r(&seed) % 8);
		b[i] = (uint32_t)(rand_r(&seed) % 8);
	}
	if (time_align("unrelated random streams (worst case)", a, n, b, n, runs, 0))
		return 1;
	free(a);
	free(b);
	return 0;
}
