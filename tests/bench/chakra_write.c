/* Chakra ET writing speed (`make bench`, tests/bench/run.sh; issue 13
 * target: >= 2M nodes/s):
 *
 *   tests/bench/chakra_write OUTDIR RUNS INPUT...
 *
 * Loads INPUT (a Chakra set, as tests/bench/chakra writes it, or GPU
 * traces) once with -j1, then writes it as a Chakra ET set to
 * OUTDIR/out.{rank}.et RUNS times (the previous run's files removed first,
 * untimed), on one thread, and prints the
 * nodes written and the medians: wall and CPU time (this process's: the
 * machine is shared, so CPU time is what "per core" means), nodes/s of
 * each, and MB written. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_time.h"
#include "trex/export/chakra_write.h"
#include "trex/load/chakra_set.h"
#include "trex/load/loader.h"

#define MAX_RUNS 32

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fail(const char *what, const struct trex_error *err)
{
	char msg[600];

	trex_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "chakra_write bench: %s: %s\n", what, msg);
	return 1;
}

/* The bytes of the set's files; with remove, removes them too (so that a
 * run times writing, not dropping the previous run's pages). */
static uint64_t set_bytes(const char *prefix, uint32_t ranks, bool remove)
{
	uint64_t total = 0;
	char *path = malloc(strlen(prefix) + 32);

	for (uint32_t r = 0; path && r < ranks; r++) {
		struct stat sb;
		sprintf(path, "%s.%" PRIu32 ".et", prefix, r);
		if (stat(path, &sb) == 0)
			total += (uint64_t)sb.st_size;
		if (remove)
			unlink(path);
	}
	free(path);
	return total;
}

static struct trex_index *load(char **inputs, size_t n, struct trex_error *err)
{
	struct trex_load_opts lo = {.threads = 1};
	struct trex_chakra_expansion ex;
	struct trex_index *idx = NULL;

	if (trex_chakra_expand((const char *const *)inputs, n, &ex, err) != TREX_OK)
		return NULL;
	enum trex_status st =
	    trex_load_paths((const char *const *)ex.paths, ex.count, &lo, &idx, err);
	trex_chakra_expansion_free(&ex);
	return st == TREX_OK ? idx : NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: chakra_write OUTDIR RUNS INPUT...\n");
		return 2;
	}
	int runs = atoi(argv[2]);
	char *prefix = malloc(strlen(argv[1]) + 8);
	struct trex_error err = {0};
	double wall[MAX_RUNS], cpu[MAX_RUNS];
	struct trex_chakra_write_result res = {0};

	if (runs < 1 || runs > MAX_RUNS || !prefix)
		return 2;
	mkdir(argv[1], 0777);
	sprintf(prefix, "%s/out", argv[1]);
	struct trex_index *idx = load(argv + 3, (size_t)(argc - 3), &err);
	if (!idx)
		return fail("load", &err);
	struct trex_chakra_write_opts o = {
	    .prefix = prefix, .format = TREX_CHAKRA_OUT_ET, .force = true};
	for (int i = 0; i < runs; i++) {
		set_bytes(prefix, res.ranks, true);
		double w0 = now_ms(), c0 = cpu_ms();
		if (trex_chakra_write(idx, &o, &res, &err) != TREX_OK)
			return fail("write", &err);
		wall[i] = now_ms() - w0;
		cpu[i] = cpu_ms() - c0;
	}
	double w = median(wall, runs), c = median(cpu, runs);
	printf("chakra write: %" PRIu32 " ranks, %" PRIu64 " nodes, %.1f MB\n", res.ranks,
	       res.nodes, (double)set_bytes(prefix, res.ranks, false) / 1e6);
	printf("chakra write -j1: %.0f ms wall (%.2f M nodes/s), %.0f ms CPU (%.2f M nodes/s)\n", w,
	       (double)res.nodes / w / 1e3, c, (double)res.nodes / c / 1e3);
	trex_index_free(idx);
	free(prefix);
	return 0;
}
