/* The nodes of an execution graph (the index's graph, core/graph.h) as
 * tables: every node with when the schedule runs it, and one node in full
 * (its fields, the attributes its file holds, its parents and children),
 * for `trex nodes` and the nodes view alike. */
#ifndef TREX_ANALYSIS_GRAPH_NODES_H
#define TREX_ANALYSIS_GRAPH_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_nodes_opts {
	int64_t rank; /* only this rank's nodes; -1: every rank */
	size_t top;   /* only the first top rows; 0: all */
};

/* One row per node, by start (ties: rank, then id): rank id name type
 * collective bytes start_ns dur_ns slack_ns parents children critical.
 * start is from the index's start; bytes 0 for a node that moves none;
 * parents and children count the dependencies the schedule waits on;
 * critical is "yes" on the critical path, "est" marks an estimated
 * duration. *node_of_row (when not NULL) gets the node id of each row
 * (malloc'd, the caller frees it). An index without a graph: TREX_FORMAT
 * with a one-line reason. */
enum trex_status trex_nodes_table(const struct trex_index *idx, const struct trex_nodes_opts *o,
                                  struct trex_table *out, uint32_t **node_of_row,
                                  struct trex_error *err);

/* Node node in full, as (field, value) rows: its fields and schedule,
 * where its record is, its attributes (read back through its file's
 * codec), then a row per parent ("waits for") and per child ("needed
 * by"). *row_node (when not NULL) gets, per row, the node a parent or
 * child row leads to, else TREX_GRAPH_NONE (malloc'd). */
enum trex_status trex_node_detail_table(const struct trex_index *idx, uint32_t node,
                                        struct trex_table *out, uint32_t **row_node,
                                        struct trex_error *err);

/* The message for an index without a graph. */
#define TREX_NODES_NO_GRAPH                                                                        \
	"no execution graph in the input (nodes come from Chakra ET sets, ASTRA-sim text "         \
	"workloads and PyTorch host execution traces)"

#endif
