/* What the Chakra writer's GPU-trace path adds to stream order
 * (doc/formats/chakra.md, "Writing"): process groups on collectives with
 * the comm-group file ASTRA-sim reads (chakra_groups.c), and dependencies
 * from cross-stream waits and synchronizations (chakra_sync.c). */
#ifndef TREX_EXPORT_CHAKRA_LINK_H
#define TREX_EXPORT_CHAKRA_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

/* One device-work slice of a rank, in the order the rank's nodes get ids
 * (its node id is its position in the rank's list). */
struct cw_work {
	int64_t ts;
	uint32_t track, slice;
};

/* ---- process groups (chakra_groups.c) ------------------------------------------------------ */

/* A collective's process group as the trace's args say (Kineto's
 * "Process Group Name", "Process Group Ranks", "Process Group
 * Description"); NULL: not said. */
struct cw_pg_args {
	char *name, *ranks, *desc;
};
void cw_pg_args_free(struct cw_pg_args *a);

struct cwg_group; /* one named group */

/* The process groups a set's collectives name, as set ranks (NPU ids
 * 0..nranks-1: the position of the rank's file among the files written). */
struct cw_groups {
	uint32_t nranks;
	int64_t *trace_rank; /* set rank -> the rank its trace says (trex_file.rank) */
	struct cwg_group *v;
	size_t n, cap;
	uint64_t outside;      /* groups listing ranks that are not in the set */
	uint64_t conflicts;    /* groups named alike with different ranks */
	uint64_t named_by_us;  /* groups with ranks but no name, named here */
	uint64_t nodes_tagged; /* collectives written with pg_name */
};

/* files[0..nranks): the file of each set rank. */
enum trex_status cw_groups_init(struct cw_groups *g, const struct trex_index *idx,
                                const uint32_t *files, uint32_t nranks, struct trex_error *err);
/* The pg_name to write on a collective of set_rank in group a, NULL when
 * the group is the whole set (ASTRA-sim's default: no pg_name). The name
 * stays valid until cw_groups_free. Records that set_rank uses it. */
enum trex_status cw_groups_name(struct cw_groups *g, uint32_t set_rank, const struct cw_pg_args *a,
                                const char **pg_name, struct trex_error *err);
/* Groups whose ranks the trace does not list (their ranks are the set
 * ranks whose collectives name them). */
uint64_t cw_groups_by_use(const struct cw_groups *g);
/* The groups as ASTRA-sim's --comm-group-configuration JSON object
 * ({"<pg_name>": [set ranks...], ...}, one line, no newline); false on a
 * write error. */
bool cw_groups_json(const struct cw_groups *g, FILE *out);
void cw_groups_free(struct cw_groups *g);

/* ---- waits and synchronizations (chakra_sync.c) -----------------------------------------------
 */

/* Dependencies beyond stream order of one rank's work: node i also waits
 * for dep[first[i] .. first[i + 1]). */
struct cw_sync_deps {
	uint32_t *first;
	uint64_t *dep;
	uint64_t waits;     /* stream waits (cudaStreamWaitEvent) that became dependencies */
	uint64_t syncs;     /* host synchronizations that became dependencies */
	uint64_t edges;     /* dependencies added */
	uint64_t unmatched; /* waits and syncs that name no earlier work (nothing to add) */
};

/* The waits and synchronizations of file as dependencies between work[0..n)
 * (Kineto cuda_sync events; without them, cudaDeviceSynchronize calls):
 *  - a stream wait (Stream Wait Event on stream S for the event recorded at
 *    correlation C on stream W): the first work launched on S after the
 *    wait depends on the last work launched on W before C;
 *  - an event sync: the first work launched on every stream after it
 *    depends on that same work; a stream sync on S: on the last work
 *    launched on S before it; a device (context) sync: on the last work
 *    launched on every stream of the device before it.
 * "Launched before/after" is by correlation id (the order of the launch
 * calls); work without one takes no part, and so do syncs launched before
 * the first work or after the last. Only edges from a lower node id to a
 * higher one are kept, so the graph stays acyclic. */
enum trex_status cw_sync_deps_build(const struct trex_index *idx, uint32_t file,
                                    const struct cw_work *work, size_t n, struct cw_sync_deps *d,
                                    struct trex_error *err);
void cw_sync_deps_free(struct cw_sync_deps *d);

#endif
