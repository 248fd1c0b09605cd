/* A generator of synthetic Kineto-shaped traces (PyTorch profiler JSON):
 * ProfilerStep annotations, nested cpu_ops, cudaLaunchKernel runtime calls
 * with correlation ids and ac2g flows, kernels on several streams,
 * memcpy/memset, NCCL kernels. Deterministic for a given seed. Used for the
 * built-in demo trace and by the benchmarks. */
#ifndef TREX_DEMO_SYNTHETIC_H
#define TREX_DEMO_SYNTHETIC_H

#include <stdint.h>
#include <stdio.h>

#include "trex/core/status.h"

struct trex_synth_params {
	uint64_t target_events; /* approximate number of trace events */
	uint32_t streams;       /* compute streams (plus one NCCL stream), >= 1 */
	uint32_t rank;          /* distributedInfo.rank */
	uint64_t seed;
};

/* Writes one complete trace to out. Returns IO on write failure. */
enum trex_status trex_synth_write(FILE *out, const struct trex_synth_params *p,
                                  uint64_t *events_written, struct trex_error *err);

/* The built-in demo trace as a malloc'd buffer. */
enum trex_status trex_synth_demo(char **buf, size_t *len, struct trex_error *err);

#endif
