/* The graph store's representation, shared by graph.c (building, reading)
 * and graph_finish.c (resolution, cycles, matching). */
#ifndef TREX_CORE_GRAPH_INTERNAL_H
#define TREX_CORE_GRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/graph.h"
#include "trex/core/strtab.h"

/* A dependency as added: resolved by id within its child's file at finish. */
struct graph_pending_dep {
	uint64_t parent_id;
	uint32_t node;
	uint8_t kind;
};

/* One rank of a process group as trex_graph_set_group_ranks says. */
struct graph_group_rank {
	uint32_t group, rank;
};

/* A process group's ranks: group_ranks[first .. first + count). */
struct graph_group {
	uint32_t group, first, count;
};

struct graph_file_problems {
	uint64_t count[TREX_GRAPH_PROBLEM_KINDS];
	struct trex_graph_problem example[TREX_GRAPH_PROBLEM_KINDS][TREX_GRAPH_EXAMPLES];
	uint32_t examples[TREX_GRAPH_PROBLEM_KINDS];
	bool has_data_deps; /* decides whether its ctrl deps order */
};

struct trex_graph {
	struct trex_strtab *strs;
	struct trex_graph_node *nodes;
	size_t node_cap;
	uint32_t node_count;
	struct graph_pending_dep *deps; /* freed at finish */
	size_t dep_count, dep_cap;
	struct graph_group_rank *set_ranks; /* freed at finish */
	size_t set_count, set_cap;
	bool finished;

	/* made by finish */
	struct trex_graph_edge *edges;
	uint32_t edge_count;
	uint32_t *in_first, *in_edges; /* CSR: edges of node n at [first[n], first[n + 1]) */
	uint32_t *out_first, *out_edges;
	uint32_t *topo;
	uint32_t rank_count;                   /* highest rank + 1 */
	uint32_t distinct_ranks;               /* ranks that have nodes */
	uint32_t *ranks;                       /* those ranks, ascending */
	uint32_t *rank_first, *rank_node_list; /* CSR by index into ranks */
	struct trex_graph_match *matches;
	size_t match_count, match_cap;
	uint32_t *members;
	size_t member_count, member_cap;
	struct graph_group *groups; /* ascending by group */
	uint32_t group_count;
	uint32_t *group_ranks;
	uint32_t group_rank_total;
	struct graph_file_problems *problems; /* per file id, file_count of them */
	uint32_t file_count;

	struct trex_schedule *schedule; /* trex_graph_set_schedule */

	/* made by the slice binding */
	uint32_t *slice_node;
	uint32_t slice_count;
};

/* Records a problem of kind against file (counted; the first few kept). */
void graph_problem(struct trex_graph *g, uint32_t file, enum trex_graph_problem_kind kind,
                   uint32_t node, uint64_t other_id);

/* The index of x in v[0..n) (ascending), or TREX_GRAPH_NONE. */
uint32_t graph_find_u32(const uint32_t *v, uint32_t n, uint32_t x);

/* A min-heap of 64-bit keys. push returns false when out of memory. */
struct graph_heap {
	uint64_t *v;
	size_t n, cap;
};
bool graph_heap_push(struct graph_heap *h, uint64_t key);
uint64_t graph_heap_pop(struct graph_heap *h); /* h->n > 0 */

/* finish's stages (graph_finish.c, graph_match.c); each returns false when out of memory. */
bool graph_resolve_deps(struct trex_graph *g);
bool graph_build_csr(struct trex_graph *g);
bool graph_order(struct trex_graph *g);
bool graph_group_ranks(struct trex_graph *g);
bool graph_rank_lists(struct trex_graph *g);
bool graph_match_collectives(struct trex_graph *g);
bool graph_match_transfers(struct trex_graph *g);

#endif
