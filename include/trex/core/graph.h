/* The graph store: a dependency graph of work, beside the timeline (not a
 * disguise of it). Execution-graph formats (Chakra ET, ASTRA-sim text
 * workloads, PyTorch host execution traces) describe nodes and the edges
 * between them but no times; their loaders fill this store, a schedule
 * (schedule.h) gives every node a start, and the timeline shows each node
 * as one slice (trex_graph_node.slice). It knows no format.
 *
 * Nodes belong to a rank (an NPU, a GPU, a process of a job); ids are the
 * file's own, unique within a file (several files may reuse them, and one
 * file may hold several ranks). Dependencies name their parent by id, and
 * are resolved within the file at trex_graph_finish; a parent the file
 * lacks is a dangling dependency (counted, examples kept), never a crash.
 * Communication nodes of several ranks that are one collective (the k-th
 * collective of a process group on each of its ranks) or one transfer (the
 * k-th send from a to b with tag t and the k-th receive of b from a with
 * tag t) are matched at finish, so the schedule can start them together.
 *
 * Life cycle: trex_graph_new, then the builder calls (one thread), then
 * trex_graph_finish, after which the store is read-only (queries from any
 * thread). The index owns a finished graph once the build is given it
 * (trex_build_input.graph; trex_index_graph). Node, edge, group and string
 * ids are small integers valid for the life of the store. */
#ifndef TREX_CORE_GRAPH_H
#define TREX_CORE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/args.h"
#include "trex/core/status.h"

#define TREX_GRAPH_NONE UINT32_MAX /* no such node, edge, group or string */
#define TREX_GRAPH_EXAMPLES 8      /* examples kept per problem kind and file */

/* What a node does. X(NAME, "label") */
#define TREX_NODE_TYPE_INFO(X)                                                                     \
	X(OTHER, "other")                                                                          \
	X(METADATA, "metadata")                                                                    \
	X(MEM_LOAD, "mem load")                                                                    \
	X(MEM_STORE, "mem store")                                                                  \
	X(COMP, "compute")                                                                         \
	X(COMM_SEND, "send")                                                                       \
	X(COMM_RECV, "recv")                                                                       \
	X(COMM_COLL, "collective")

enum trex_node_type {
#define TREX_NODE_TYPE_ENUM(name, label) TREX_NODE_##name,
	TREX_NODE_TYPE_INFO(TREX_NODE_TYPE_ENUM)
#undef TREX_NODE_TYPE_ENUM
	    TREX_NODE_TYPE_COUNT
};
const char *trex_node_type_label(enum trex_node_type type);

/* Which collective a COMM_COLL node is (a loader maps its format's
 * numbering onto these). X(NAME, "label") */
#define TREX_COLLECTIVE_INFO(X)                                                                    \
	X(NONE, "none")                                                                            \
	X(ALL_REDUCE, "all-reduce")                                                                \
	X(REDUCE, "reduce")                                                                        \
	X(ALL_GATHER, "all-gather")                                                                \
	X(GATHER, "gather")                                                                        \
	X(SCATTER, "scatter")                                                                      \
	X(BROADCAST, "broadcast")                                                                  \
	X(ALL_TO_ALL, "all-to-all")                                                                \
	X(REDUCE_SCATTER, "reduce-scatter")                                                        \
	X(REDUCE_SCATTER_BLOCK, "reduce-scatter-block")                                            \
	X(BARRIER, "barrier")

enum trex_collective {
#define TREX_COLLECTIVE_ENUM(name, label) TREX_COLLECTIVE_##name,
	TREX_COLLECTIVE_INFO(TREX_COLLECTIVE_ENUM)
#undef TREX_COLLECTIVE_ENUM
	    TREX_COLLECTIVE_COUNT
};
const char *trex_collective_label(enum trex_collective c);

enum trex_node_flag {
	TREX_NODE_CPU = 1u << 0, /* runs on the host (Chakra is_cpu_op) */
	TREX_NODE_DUPLICATE_ID =
	    1u << 1, /* another node of its file has its id (deps name the first) */
	TREX_NODE_IN_CYCLE = 1u << 2, /* on a dependency cycle: some in-edges were cut (BROKEN) */
};

#define TREX_GRAPH_DUR_UNKNOWN INT64_C(-1)

/* One node. Strings are the graph's own (trex_graph_str). */
struct trex_graph_node {
	uint64_t id;         /* as its file numbers it */
	int64_t dur;         /* ns; TREX_GRAPH_DUR_UNKNOWN when the file gives none */
	int64_t comm_bytes;  /* communication size in bytes; -1 when none */
	trex_args_ref attrs; /* the rest (attributes, inputs, outputs), read back through the
	                      * file's codec (trex_index_args of file); TREX_ARGS_NONE: none */
	int64_t offset;      /* byte offset of its record in the decoded file, -1 unknown */
	uint32_t record;     /* its record index in the file (0-based) */
	uint32_t file;       /* global file id */
	uint32_t rank;       /* its rank */
	uint32_t name;       /* string id */
	uint32_t group;      /* string id of its process group (communicator); 0: none / all */
	int32_t peer;        /* send: destination rank, recv: source rank; -1: none */
	int32_t tag;         /* send/recv matching tag; 0 when none */
	uint32_t match;      /* its collective or transfer (trex_graph_match); TREX_GRAPH_NONE */
	uint32_t slice;      /* the timeline slice showing it; TREX_GRAPH_NONE: not shown */
	uint8_t type;        /* enum trex_node_type */
	uint8_t collective;  /* enum trex_collective (COMM_COLL), else NONE */
	uint8_t flags;       /* enum trex_node_flag */
	uint8_t spare;
};

enum trex_dep_kind {
	TREX_DEP_DATA = 0, /* from must end before to starts */
	TREX_DEP_CTRL,     /* a control dependency (Chakra ctrl_deps: the calling op in PyTorch
	                    * host traces; the only ordering edge in legacy files) */
};

enum trex_dep_flag {
	TREX_DEP_ORDERS = 1u << 0, /* the schedule waits on it (trex_graph_finish decides: data
	                            * deps always; ctrl deps of a file with no data deps) */
	TREX_DEP_BROKEN = 1u << 1, /* cut to break a cycle: the schedule ignores it */
};

/* A resolved dependency: from (the parent) -> to (the child). */
struct trex_graph_edge {
	uint32_t from, to; /* node ids */
	uint8_t kind;      /* enum trex_dep_kind */
	uint8_t flags;     /* enum trex_dep_flag */
};

/* Communication nodes of several ranks that are one operation. */
struct trex_graph_match {
	uint32_t first;     /* first member in trex_graph_match_members */
	uint32_t count;     /* members (one per rank for a collective; send + recv) */
	uint32_t group;     /* string id of the process group */
	uint32_t ordinal;   /* k: the k-th of its group (collective) or of its (src, dst, tag) */
	uint8_t collective; /* enum trex_collective; NONE for a transfer */
	bool complete;      /* every expected member was found (a lone send is not) */
};

/* Problems the graph found, per file. */
enum trex_graph_problem_kind {
	TREX_GRAPH_DANGLING_DEP = 0, /* a dependency on an id the file lacks */
	TREX_GRAPH_DUPLICATE_ID,     /* a second node with the same id */
	TREX_GRAPH_CYCLE,            /* a dependency cut to break a cycle */
	TREX_GRAPH_UNMATCHED_COMM,   /* a collective or send/recv without its peers */
	TREX_GRAPH_PROBLEM_KINDS
};
struct trex_graph_problem {
	uint32_t node;     /* node id (the child for deps) */
	uint64_t other_id; /* the missing or cut parent's id (file numbering); 0 if none */
};

/* ---- building ------------------------------------------------------------------------- */

struct trex_graph;

/* A new, empty store; NULL when out of memory. */
struct trex_graph *trex_graph_new(void);
void trex_graph_free(struct trex_graph *g);

/* Interns into the graph's string table (0 is the empty string);
 * TREX_GRAPH_NONE when out of memory. */
uint32_t trex_graph_intern(struct trex_graph *g, const char *s, size_t len);

/* Adds a node (n->match and n->slice are ignored; flags other than
 * TREX_NODE_CPU are the graph's). Returns its node id, or TREX_GRAPH_NONE
 * when out of memory. */
uint32_t trex_graph_add_node(struct trex_graph *g, const struct trex_graph_node *n);

/* A dependency of node on the node of the same file whose id is parent_id,
 * resolved at finish. Returns 0, or -1 when out of memory. */
int trex_graph_add_dep(struct trex_graph *g, uint32_t node, uint64_t parent_id,
                       enum trex_dep_kind kind);

/* The ranks a process group spans (when the input says; else a group's
 * ranks are those that have nodes in it). Returns 0, or -1 (OOM). */
int trex_graph_set_group_ranks(struct trex_graph *g, uint32_t group, const uint32_t *ranks,
                               size_t count);

/* Moves every node, pending dependency, group and string of src (not
 * finished) into g (not finished), and frees src: the loader joins the
 * graphs its files were read into. Returns 0, or -1 when out of memory
 * (src is freed either way). */
int trex_graph_append(struct trex_graph *g, struct trex_graph *src);

/* Resolves dependencies (per file, by id), decides which ones order
 * (TREX_DEP_ORDERS), cuts cycles (smallest node id first: TREX_DEP_BROKEN,
 * TREX_NODE_IN_CYCLE), matches collectives and transfers across ranks, and
 * freezes the store. Problems are counted, never fatal. Fails only when out
 * of memory. */
enum trex_status trex_graph_finish(struct trex_graph *g, struct trex_error *err);

/* ---- reading (after finish) ------------------------------------------------------------ */

uint32_t trex_graph_node_count(const struct trex_graph *g);
const struct trex_graph_node *trex_graph_node(const struct trex_graph *g, uint32_t node);
const char *trex_graph_str(const struct trex_graph *g, uint32_t id);

uint32_t trex_graph_edge_count(const struct trex_graph *g);
const struct trex_graph_edge *trex_graph_edge(const struct trex_graph *g, uint32_t edge);
/* The edges into node (its parents) or out of it (its children): edge ids,
 * *n of them; the array stays valid for the life of the store. */
const uint32_t *trex_graph_edges_of(const struct trex_graph *g, uint32_t node, bool incoming,
                                    uint32_t *n);

/* Nodes in an order where every ordering, unbroken edge goes forward
 * (ties by rank, then file order). */
const uint32_t *trex_graph_topo_order(const struct trex_graph *g);

/* Ranks: 0..rank_count-1 may have gaps; nodes of a rank in file order. */
uint32_t trex_graph_rank_count(const struct trex_graph *g); /* highest rank + 1 */
const uint32_t *trex_graph_rank_nodes(const struct trex_graph *g, uint32_t rank, uint32_t *n);

uint32_t trex_graph_match_count(const struct trex_graph *g);
const struct trex_graph_match *trex_graph_match(const struct trex_graph *g, uint32_t match);
const uint32_t *trex_graph_match_members(const struct trex_graph *g); /* node ids */
/* The ranks of a process group (set, or found), *n of them. */
const uint32_t *trex_graph_group_ranks(const struct trex_graph *g, uint32_t group, uint32_t *n);

/* Problems of file: the count of kind, and up to TREX_GRAPH_EXAMPLES
 * examples. */
uint64_t trex_graph_problem_count(const struct trex_graph *g, uint32_t file,
                                  enum trex_graph_problem_kind kind);
const struct trex_graph_problem *trex_graph_problem_examples(const struct trex_graph *g,
                                                             uint32_t file,
                                                             enum trex_graph_problem_kind kind,
                                                             uint32_t *n);

/* The slice binding, made once by the index build from the loader's
 * trex_builder_graph_node calls: node.slice for each bound node, then
 * bind_done (slice_count: the index's slices) makes the reverse map. Read
 * back: the node a slice shows, TREX_GRAPH_NONE for a slice of no node. */
void trex_graph_bind_slice(struct trex_graph *g, uint32_t node, uint32_t slice);
enum trex_status trex_graph_bind_done(struct trex_graph *g, uint32_t slice_count,
                                      struct trex_error *err);
uint32_t trex_graph_node_of_slice(const struct trex_graph *g, uint32_t slice);

size_t trex_graph_memory(const struct trex_graph *g);

/* Gives every node of g (not finished) file id file: the loader numbers
 * files by rank once every file is read (trex_builder_set_file). */
void trex_graph_set_file(struct trex_graph *g, uint32_t file);

/* The schedule (schedule.h) the loader computed for g (finished) and drew
 * as the timeline: g takes it over (*s is zeroed) and frees it with
 * itself, so analyses of the index find it (trex_graph_schedule; NULL
 * before). Returns 0, or -1 when out of memory (*s is then untouched). */
struct trex_schedule;
int trex_graph_set_schedule(struct trex_graph *g, struct trex_schedule *s);
const struct trex_schedule *trex_graph_schedule(const struct trex_graph *g);

#endif
