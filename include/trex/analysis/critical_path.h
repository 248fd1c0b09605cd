/* The critical path of an execution graph (`trex critical-path`): the
 * chain of nodes that bounds the schedule's makespan (core/schedule.h),
 * as the loader scheduled the index's graph (trex_index_graph). */
#ifndef TREX_ANALYSIS_CRITICAL_PATH_H
#define TREX_ANALYSIS_CRITICAL_PATH_H

#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/schedule.h"
#include "trex/core/status.h"

/* One row per node of the critical path, first first:
 *   rank, node (its id in its file), name, type (graph.h's label),
 *   collective ("" unless a collective), bytes (-1: none), start_ns,
 *   duration_ns (estimated ones too), estimated (1 when the duration is
 *   the alpha-beta estimate), cause (why it started then: "start",
 *   "dependency", "resource", "peer"), slack_ns.
 * *s (may be NULL) receives the schedule, for its makespan, bandwidth,
 * latency and estimate count. An index without a graph is TREX_FORMAT
 * ("no execution graph ..."). */
enum trex_status trex_critical_path_table(const struct trex_index *idx, struct trex_table *t,
                                          const struct trex_schedule **s, struct trex_error *err);

#endif
