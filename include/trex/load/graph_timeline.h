/* Execution graphs as a timeline: the loader's last step for graph
 * formats (trex_format.graph). The files' graphs are joined, finished
 * and scheduled (core/schedule.h), and each node becomes one complete
 * slice at its scheduled start, so that every analysis, view and export
 * reads a graph like any trace:
 *  - per rank N a process "rank N" (its rank N) with the named tracks
 *    "host", "compute" and "comm" that it uses;
 *  - a slice's name is the node's, its category the node type's label
 *    (graph.h), its args the node's attributes (the file's codec), its
 *    kind CPU_OP on the host, MEMCPY for memory loads and stores, KERNEL
 *    for the rest of the device work; communication nodes are kernels
 *    that the classifier marks communication (rule graph-comm);
 *  - each ordering, unbroken dependency is a TREX_EDGE_DEPENDENCY edge;
 *  - each slice is bound to its node (trex_builder_graph_node).
 * Node times are the schedule's, not measured ones. */
#ifndef TREX_LOAD_GRAPH_TIMELINE_H
#define TREX_LOAD_GRAPH_TIMELINE_H

#include <signal.h>
#include <stdint.h>

#include "trex/core/builder.h"
#include "trex/core/graph.h"
#include "trex/core/schedule.h"
#include "trex/core/status.h"

/* Joins graphs[0..file_count) in file order (NULL: a file that is no
 * graph; every graph is taken, also on failure), finishes and schedules
 * the result with opts, and draws file f's nodes into builders[f] (made
 * here, trex_builder_new(f); NULL for a file without a graph). *out gets
 * the finished graph holding its schedule (trex_graph_schedule), for the
 * build to bind; NULL and no builders when no file was a graph. On
 * failure nothing is left to free. */
enum trex_status trex_graph_timeline(struct trex_graph **graphs, uint32_t file_count,
                                     const struct trex_schedule_opts *opts,
                                     struct trex_builder **builders, struct trex_graph **out,
                                     struct trex_error *err);

/* Draws g (finished, scheduled by s): each node of file f into
 * builders[f] (f < file_count, not NULL; other nodes are skipped). */
enum trex_status trex_graph_timeline_draw(const struct trex_graph *g, const struct trex_schedule *s,
                                          struct trex_builder *const *builders, uint32_t file_count,
                                          volatile sig_atomic_t *cancel, struct trex_error *err);

#endif
