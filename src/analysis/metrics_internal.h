/* What the metrics analyses share (private to src/analysis): how kernel
 * names fit, and the trace's kernel names. */
#ifndef TREX_ANALYSIS_METRICS_INTERNAL_H
#define TREX_ANALYSIS_METRICS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

/* Do a metrics or report kernel name and a trace kernel name fit (the
 * trace's per-tile "Tile #N: " prefix taken off; analysis/metrics.h)? */
bool mx_names_fit(const char *kernel, const char *trace_name);

/* One slice of each distinct name among the trace's device work, in *out
 * (malloc'd, *n of them). */
enum trex_status mx_trace_names(const struct trex_index *idx, uint32_t **out, size_t *n,
                                struct trex_error *err);
/* Does one of the slices names[0..n) have a name that fits kernel? */
bool mx_fits_any(const struct trex_index *idx, const uint32_t *names, size_t n, const char *kernel);

#endif
