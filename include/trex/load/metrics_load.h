/* Loading metrics and profiler reports into a metrics store (core/metrics.h)
 * beside a trace: inputs given together (`trex trace.json metrics.csv`) are
 * told apart by sniffing their first bytes, as traces are (loader.h): a
 * file that a metrics format claims more surely than every trace format
 * goes to the metrics store, the rest to the trace loader. */
#ifndef TREX_LOAD_METRICS_LOAD_H
#define TREX_LOAD_METRICS_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/core/index.h"
#include "trex/core/metrics.h"
#include "trex/core/status.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

/* A metrics format plug-in (registered in src/load/loader.c). */
struct trex_metrics_format {
	const char *name; /* "unitrace-text" */
	/* 0..100 over the first decoded bytes, as trex_format.sniff. */
	int (*sniff)(const unsigned char *head, size_t len);
	/* Reads src into m as a new source, reporting progress and honouring
	 * cancel as opts say (opts may be NULL). Returns OK for salvaged input
	 * (problems are counted on the source with their positions); FORMAT
	 * when nothing could be read, IO, NOMEM, CANCELLED otherwise. */
	enum trex_status (*load)(struct trex_source *src, struct trex_metrics *m,
	                         const struct trex_load_opts *opts, struct trex_error *err);
};

/* The registered metrics formats, NULL-terminated. */
const struct trex_metrics_format *const *trex_metrics_formats(void);

/* The metrics format that claims src more surely than any trace format, or
 * NULL (a trace, or nothing anyone claims); NULL with err set when src
 * cannot be read. */
const struct trex_metrics_format *trex_metrics_format_of(struct trex_source *src,
                                                         struct trex_error *err);

/* Whether a source of m lost data (rows skipped, values not read). */
bool trex_metrics_damaged(const struct trex_metrics *m);

/* Loads paths: traces into *idx (trex_load_sources, one rank per trace
 * file; NULL when no path is a trace), metrics inputs into *metrics, and
 * the counters of Kineto cuda_profiler_range events of the traces too
 * (trex_metrics_add_profiler_ranges); *metrics is NULL when there are
 * none. A metrics input from which nothing could be read is a FORMAT
 * error; with opts->strict so is any problem of one. */
enum trex_status trex_load_inputs(const char *const *paths, size_t count,
                                  const struct trex_load_opts *opts, struct trex_index **idx,
                                  struct trex_metrics **metrics, struct trex_error *err);

/* Adds the counters of every Kineto cuda_profiler_range event of idx
 * (CUPTI range profiler: one event per kernel launch, args = counter
 * values) to m as instances of a source named after the trace file,
 * format "kineto-ranges", device "GPU <pid>", one sample each, linked to
 * their event (TREX_MLINK_IN_TRACE). Args that cannot be read are
 * problems of that source. Adds nothing when there are none. */
enum trex_status trex_metrics_add_profiler_ranges(const struct trex_index *idx,
                                                  struct trex_metrics *m, struct trex_error *err);

#endif
