/* Metric CSV load speed (issue 14 target: >= 300 MB/s per core).
 *
 *   metrics FILE [--generate MB] [--runs N]
 *
 * With --generate, first writes FILE: a unitrace -q metric CSV of about MB
 * megabytes laid out as unitrace writes it (banner, header, a quoted kernel
 * name with its -v shape suffix, GlobalInstanceId, SubDeviceId, 13 metrics
 * of which 5 are floats in %f, a blank line after each instance; 6 kernels
 * in turn). Then loads FILE N times (default 5) into a fresh metrics store
 * through the unitrace text reader on one thread and prints the bytes,
 * instances, problems (none expected), the median and best wall time and
 * MB/s, and the median CPU time (MB/s per core, what a busy machine does
 * not distort). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_time.h"
#include "trex/core/metrics.h"
#include "trex/load/metrics_load.h"
#include "trex/load/source.h"

static const char *const kernels[] = {
    "main::{lambda(auto:1)#1}[SIMD32 {4096; 1; 1} {256; 1; 1}]",
    "gemm_kernel<float, 16>(float*, float const*, int)[SIMD16 {64; 64; 1} {8; 8; 1}]",
    "zeCommandListAppendMemoryCopy(M2D)[4194304]",
    "_ZTSZZ4mainENKUlRN4sycl3_V17handlerEE_clES2_EUlT_E_[SIMD32 {1024; 1; 1} {32; 1; 1}]",
    "softmax_kernel[SIMD16 {512; 1; 1} {128; 1; 1}]",
    "layer_norm_fwd[SIMD32 {2048; 1; 1} {64; 1; 1}]",
};

static int generate(const char *path, long mb)
{
	FILE *f = fopen(path, "w");
	long long limit = (long long)mb << 20, written = 0;
	unsigned long long id = 1;

	if (!f)
		return perror(path), 1;
	written +=
	    fprintf(f, "\n=== Device #0 Metrics ===\n\nKernel,GlobalInstanceId,SubDeviceId,"
	               "GpuTime[ns],GpuCoreClocks[cycles],AvgGpuCoreFrequencyMHz[MHz],"
	               "XVE_INST_EXECUTED_ALU0_ALL_UTILIZATION[%%],XVE_ACTIVE[%%],XVE_STALL[%%],"
	               "XVE_THREADS_OCCUPANCY_ALL[%%],L3_BYTE_READ[bytes],L3_BYTE_WRITE[bytes],"
	               "GPU_MEMORY_BYTE_READ[bytes],GPU_MEMORY_BYTE_WRITE[bytes],"
	               "QueryBeginTime[ns],ReportReason\n");
	while (written < limit) {
		unsigned long long k = id % 6, v = id * 2654435761u % 100000;

		written += fprintf(
		    f, "\"%s\",%llu,0,%llu,%llu,%llu,%f,%f,%f,%f,%llu,%llu,%llu,%llu,%llu,1\n\n",
		    kernels[k], id, 20000 + v, 30000 + v * 3, 1300 + v % 300,
		    (double)(v % 10000) / 100.0, 50.0 + (double)(v % 5000) / 100.0,
		    (double)(v % 3000) / 128.0, 40.0 + (double)(v % 600) / 16.0, v << 10, v << 8,
		    v << 9, v << 7, 1718111111000000000ull + id * 1000);
		id++;
	}
	return fclose(f) != 0;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One load of path; its wall time in ms (its CPU time in *cpu), or a
 * negative value on failure. */
static double load_once(const char *path, size_t *instances, size_t *problems, double *cpu)
{
	const struct trex_metrics_format *f = trex_metrics_formats()[0];
	struct trex_metrics *m = trex_metrics_new();
	struct trex_source *src = NULL;
	struct trex_error err;
	double t0 = now_ms(), c0 = cpu_ms(), ms = -1;

	if (m && trex_source_open(path, &src, &err) == TREX_OK) {
		if (f->load(src, m, NULL, &err) == TREX_OK) {
			ms = now_ms() - t0;
			*cpu = cpu_ms() - c0;
			*instances = trex_metrics_instance_count(m);
			*problems = trex_metrics_source(m, 0)->problems;
		} else {
			fprintf(stderr, "%s: %s\n", path, err.message);
		}
		trex_source_close(src);
	}
	trex_metrics_free(m);
	return ms;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	long mb = 0;
	int runs = 5;
	double ms[64], cpu[64];
	size_t instances = 0, problems = 0;
	FILE *f;
	long long bytes;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--generate") == 0 && i + 1 < argc)
			mb = atol(argv[++i]);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else
			path = argv[i];
	}
	if (!path || runs < 1 || runs > 64)
		return fprintf(stderr, "usage: metrics FILE [--generate MB] [--runs N<=64]\n"), 2;
	if (mb > 0 && generate(path, mb))
		return 1;
	f = fopen(path, "r");
	if (!f || fseek(f, 0, SEEK_END) != 0)
		return perror(path), 1;
	bytes = ftell(f);
	fclose(f);
	for (int r = 0; r < runs; r++) {
		if ((ms[r] = load_once(path, &instances, &problems, &cpu[r])) < 0)
			return 1;
	}
	double best = ms[0];

	for (int r = 1; r < runs; r++)
		best = ms[r] < best ? ms[r] : best;
	double med = median(ms, runs), med_cpu = median(cpu, runs);

	printf("%s: %lld bytes, %zu instances, %zu problems; %d runs: median %.3f s (%.0f MB/s), "
	       "best %.3f s (%.0f MB/s); median CPU time %.3f s (%.0f MB/s per core)\n",
	       path, bytes, instances, problems, runs, med / 1e3, (double)bytes / 1e6 / (med / 1e3),
	       best / 1e3, (double)bytes / 1e6 / (best / 1e3), med_cpu / 1e3,
	       (double)bytes / 1e6 / (med_cpu / 1e3));
	return problems ? 1 : 0;
}
