/* ProfilerStep#N annotations as what an export keeps (`trex export --steps
 * LIST`). A step is a CPU-side ProfilerStep#N range (kind CPU_OP or
 * ANNOTATION: the profiler's record_function) or, for traces without one,
 * its GPU-side copy (kind GPU_ANNOTATION); N is its decimal number.
 *  - Chakra exporters keep the device work launched inside a chosen step:
 *    the runtime call that launched it starts inside one of the chosen CPU
 *    steps of its file; work without a known launch counts when it starts
 *    inside a chosen GPU-side step annotation of its file.
 *  - The other exporters keep the time range from the first chosen step's
 *    start to the last one's end, over every rank (trex_export_steps_range). */
#ifndef TREX_EXPORT_EXPORT_STEPS_H
#define TREX_EXPORT_EXPORT_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/trace_export.h"

/* The chosen steps' spans, per file. */
struct trex_export_steps;

/* Finds the chosen steps (ranges lo..hi of step numbers, n of them) in idx.
 * USAGE when a chosen number is not a step of the trace, naming the steps
 * it has ("--steps 13: the trace has steps 10-12"), or when it has none. */
enum trex_status trex_export_steps_find(const struct trex_index *idx,
                                        const struct trex_rank_range *chosen, size_t n,
                                        struct trex_export_steps **out, struct trex_error *err);
/* Whether device-work slice of file was launched inside a chosen step. */
bool trex_export_steps_keep(const struct trex_export_steps *s, const struct trex_index *idx,
                            uint32_t slice);
/* The time range the chosen steps cover (start of the first, end of the
 * last, over all files; CPU-side steps, else GPU-side ones). USAGE when the
 * choice skips a step the trace has between two chosen ones (one range
 * cannot leave it out). */
enum trex_status trex_export_steps_range(const struct trex_export_steps *s, int64_t *start,
                                         int64_t *end, struct trex_error *err);
void trex_export_steps_free(struct trex_export_steps *s);

#endif
