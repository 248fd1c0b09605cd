/* The `trex info` report of a set of ranks from each rank's own summary
 * (trex_summary_compute of its index alone), never one index of the set:
 * what the report of the ranks loaded as one index (files in rank order,
 * distinct ranks, no execution graph) holds, cell for cell:
 *  files, tracks, tracks_text, problems: each rank's rows in rank order,
 *      the rank the set's ("rank R" in tracks_text); the merged index
 *      keeps each file's tracks together, in the file's order;
 *  phases: by label in the order the ranks first list them, summed;
 *  categories: summed by category, the kind "mixed" where the ranks'
 *      differ, ordered as trex_summary_compute orders them;
 *  integrity: summed;
 *  examples: each rank's in rank order, slice ids moved past the slices
 *      of the ranks before (the merged index numbers them rank by rank);
 *  start_ns, end_ns: the least start and greatest end; the counts summed. */
#ifndef TREX_ANALYSIS_SUMMARY_SET_H
#define TREX_ANALYSIS_SUMMARY_SET_H

#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/summary.h"
#include "trex/core/status.h"

/* out (uninitialised on entry; trex_summary_free) from parts[0..n) in the
 * set's order, ranks[i] the rank the set gives part i. Each part must
 * have a time span (a summary of (0, 0) may or may not have one: the
 * caller takes the merged load). On failure out holds empty tables. */
enum trex_status trex_summary_join(const struct trex_summary *const *parts, const int64_t *ranks,
                                   size_t n, struct trex_summary *out, struct trex_error *err);

#endif
