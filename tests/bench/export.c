/* export: times the trace writers on a loaded trace.
 *
 *   export TRACE OUTDIR [--runs N]
 *
 * Loads TRACE once (not timed), then writes it with each exporter of the
 * table (trace_export.h) to OUTDIR/bench.<ext>, N times (default 3), and
 * prints per exporter the median wall and CPU time, and the output MB/s
 * and events/s per CPU second (the machine may be shared; events written: one per Chrome event
 * line, one per Perfetto track event, one per CSV row). Targets (issue 13): Chrome JSON >= 500 MB/s
 * of output per core, Perfetto >= 1M events/s. Built by `make bench`. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trex/core/index.h"
#include "trex/export/trace_export.h"
#include "trex/load/loader.h"

#include "bench_time.h"

#define RUNS_MAX 21

/* CPU time of this process (all threads), ms: the export runs on one
 * thread, so this is its cost per core whatever else loads the machine. */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int bench_one(const struct trex_index *idx, const struct trex_trace_exporter *ex,
                     const char *outdir, int runs)
{
	char path[4096];
	double ms[RUNS_MAX], cpu[RUNS_MAX];
	struct trex_export_progress done = {0, 0, "", ""};
	struct trex_export_opts o = {.force = true};
	struct trex_error err;
	size_t elen = strcspn(ex->extensions, " ");

	snprintf(path, sizeof(path), "%s/bench%.*s", outdir, (int)elen, ex->extensions);
	for (int r = 0; r < runs; r++) {
		double t0 = now_ms(), c0 = cpu_ms();

		if (ex->write(idx, path, &o, &done, &err) != TREX_OK) {
			fprintf(stderr, "export: %s: %s\n", ex->name, err.message);
			return -1;
		}
		ms[r] = now_ms() - t0;
		cpu[r] = cpu_ms() - c0;
	}
	double m = median(ms, runs), c = median(cpu, runs);
	printf("| %-9s | %9.1f | %9.1f | %9.1f | %8.0f | %9.2f |\n", ex->name, m, c,
	       (double)done.bytes / 1e6, (double)done.bytes / 1e3 / c,
	       (double)done.events / 1e3 / c);
	remove(path);
	return 0;
}

int main(int argc, char **argv)
{
	struct trex_load_opts opts = {0};
	struct trex_index *idx;
	struct trex_error err;
	int runs = 3;

	if (argc < 3) {
		fprintf(stderr, "usage: export TRACE OUTDIR [--runs N]\n");
		return 1;
	}
	if (argc == 5 && strcmp(argv[3], "--runs") == 0)
		runs = atoi(argv[4]);
	if (runs < 1 || runs > RUNS_MAX)
		runs = 3;
	double t0 = now_ms();
	if (trex_load_paths((const char *const *)&argv[1], 1, &opts, &idx, &err) != TREX_OK) {
		fprintf(stderr, "export: %s\n", err.message);
		return 2;
	}
	printf("loaded %u slices, %u flows in %.0f ms (not counted below)\n\n",
	       trex_index_slice_count(idx), trex_index_flow_count(idx), now_ms() - t0);
	printf("| exporter  | median ms | CPU ms | output MB | MB/s (CPU) | Mevents/s (CPU) |\n");
	printf("|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < trex_trace_exporter_count(); i++) {
		if (bench_one(idx, trex_trace_exporter_at(i), argv[2], runs) != 0) {
			trex_index_free(idx);
			return 2;
		}
	}
	trex_index_free(idx);
	return 0;
}
