/* The `trex info` report of an execution graph (core/graph.h): what each
 * rank holds, how much it communicates, what is wrong with its
 * dependencies, and how long the schedule takes. Empty tables (no rows)
 * for an index without a graph. */
#ifndef TREX_ANALYSIS_GRAPH_INFO_H
#define TREX_ANALYSIS_GRAPH_INFO_H

#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/schedule.h"
#include "trex/core/status.h"

/* Tables (uninitialised on entry), rows in rank order:
 *  ranks:    per file: rank, nodes, one count per node type (compute,
 *            collective, send, recv, mem_load, mem_store, metadata, other),
 *            host (is_cpu_op nodes), deps (dependencies into its nodes),
 *            end_ns (its last node's end in the schedule; -1 without one),
 *            schema (the file's dialect: its schema version), file
 *  comm:     per collective (Chakra's comm_type, "none" for a collective
 *            without one), then send and recv: kind, nodes, ranks (that have
 *            such nodes), bytes (comm sizes summed; nodes without one add
 *            nothing), unsized (nodes without a size), estimated (nodes whose
 *            duration the schedule estimated; -1 without a schedule)
 *  problems: per file and problem kind with a count: rank, problem, count,
 *            example (the first, in words), file */
struct trex_graph_info {
	struct trex_table ranks, comm, problems;
	uint64_t nodes, edges, data_edges, ctrl_edges, matches;
	uint64_t dangling, duplicates, cycle_cuts, unmatched;
	int64_t makespan_ns; /* -1 without a schedule */
	uint32_t critical_nodes;
	uint32_t estimated;    /* comm durations the schedule estimated ... */
	double bandwidth_gbps; /* ... with this bandwidth and latency (0 without a schedule) */
	int64_t latency_ns;
	bool has_graph;
};

/* The graph problems of file as one line, "PATH: 3 dangling dependencies
 * (first: node 7 (name, record 7, byte 120) depends on id 99, which the
 * file lacks)", for warnings; false (buf "") when it has none of kind. */
bool trex_graph_problem_line(const struct trex_index *idx, uint32_t file,
                             enum trex_graph_problem_kind kind, char *buf, size_t size);

/* sched may be NULL (no makespan, no estimates). On failure info holds
 * empty tables (trex_graph_info_free is still safe). */
enum trex_status trex_graph_info_compute(const struct trex_index *idx,
                                         const struct trex_schedule *sched,
                                         struct trex_graph_info *info, struct trex_error *err);
void trex_graph_info_free(struct trex_graph_info *info);

#endif
