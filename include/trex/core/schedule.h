/* The schedule of a dependency graph (graph.h): when every node would run,
 * computed from its dependencies and durations, since execution graphs
 * carry no times. It is what the timeline of a graph shows, and its
 * critical path is what bounds the makespan.
 *
 * Model (as ASTRA-sim runs an execution trace, doc/schedule.md):
 *  - a node is ready once every ordering, unbroken parent (TREX_DEP_ORDERS
 *    and not TREX_DEP_BROKEN) has ended;
 *  - each rank has one resource per class: host (TREX_NODE_CPU), device
 *    compute (COMP, MEM_LOAD/STORE, METADATA, OTHER) and device
 *    communication (COMM_*); a resource runs one node at a time, and of
 *    the ready nodes it starts the one with the smallest id first;
 *  - a matched collective (trex_graph_match) starts on all its ranks at
 *    once, when the last of them is ready and free; a receive starts with
 *    its send (a transfer); an unmatched one runs alone;
 *  - a node's duration is its own (graph node dur); a communication node
 *    without one gets an alpha-beta estimate: latency + bytes / bandwidth,
 *    scaled by the collective's traffic factor for its group size n
 *    (all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n,
 *    all-to-all (n-1)/n, broadcast and reduce 1, barrier 0 bytes), flagged
 *    TREX_SCHED_ESTIMATED; any other node without one takes 0 ns.
 *
 * Critical path: from the node that ends last, back through the
 * predecessor that made each node start when it did (a parent, the
 * previous node on its resource, or the last-ready member of its
 * collective). Slack: how much later a node could end without delaying
 * the makespan, over the same constraints. */
#ifndef TREX_CORE_SCHEDULE_H
#define TREX_CORE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#include "trex/core/graph.h"
#include "trex/core/status.h"

/* Defaults, documented in trex(1) and doc/schedule.md. */
#define TREX_SCHED_DEFAULT_BANDWIDTH_GBPS 50.0 /* GB/s per rank, as ASTRA-sim's examples */
#define TREX_SCHED_DEFAULT_LATENCY_NS 500      /* per collective step */

struct trex_schedule_opts {
	double bandwidth_gbps; /* > 0; GB/s = bytes per ns */
	int64_t latency_ns;    /* >= 0 */
	unsigned threads;      /* unused by now: the schedule is one pass */
	volatile sig_atomic_t *cancel;
};

enum trex_sched_flag {
	TREX_SCHED_ESTIMATED = 1u << 0, /* duration estimated (alpha-beta) */
	TREX_SCHED_CRITICAL = 1u << 1,  /* on the critical path */
	TREX_SCHED_UNREACHED = 1u << 2, /* never became ready (a cut cycle's rest): placed at 0 */
};

/* Why a node started when it did. */
enum trex_sched_cause {
	TREX_CAUSE_NONE = 0, /* at time 0 */
	TREX_CAUSE_PARENT,   /* its last parent ended */
	TREX_CAUSE_RESOURCE, /* its resource became free */
	TREX_CAUSE_PEER,     /* the last member of its collective or transfer became ready */
};

struct trex_schedule {
	uint32_t node_count;
	int64_t *start, *dur; /* ns, per node */
	int64_t *slack;       /* ns, per node */
	uint32_t *pred;       /* per node: the node that made it start then, TREX_GRAPH_NONE */
	uint8_t *cause;       /* per node: enum trex_sched_cause */
	uint8_t *flags;       /* per node: enum trex_sched_flag */
	int64_t makespan;     /* ns: the end of the last node */
	uint32_t *critical;   /* the critical path, first node first */
	uint32_t critical_count;
	uint32_t estimated;    /* nodes whose duration was estimated */
	double bandwidth_gbps; /* the bandwidth and latency the estimates used */
	int64_t latency_ns;
};

/* Schedules g (finished). On failure (OOM, cancelled) *out is zeroed. */
enum trex_status trex_schedule_compute(const struct trex_graph *g,
                                       const struct trex_schedule_opts *opts,
                                       struct trex_schedule *out, struct trex_error *err);
void trex_schedule_free(struct trex_schedule *s);

/* "start", "dependency", "resource" or "peer". */
const char *trex_sched_cause_label(enum trex_sched_cause cause);

/* One line for notices and `trex info`: the times are the schedule's,
 * estimated from dependencies, with the bandwidth and latency and how
 * many communication durations were estimated. Returns what snprintf
 * returns. */
int trex_schedule_describe(const struct trex_schedule *s, char *buf, size_t size);

/* The alpha-beta duration the schedule gives communication node of g
 * (finished) when the file gives none: latency + bytes x traffic factor /
 * bandwidth, rounded up to a ns (opts: 0 bandwidth, negative latency =
 * the defaults). */
int64_t trex_schedule_estimate(const struct trex_graph *g, uint32_t node,
                               const struct trex_schedule_opts *opts);

#endif
