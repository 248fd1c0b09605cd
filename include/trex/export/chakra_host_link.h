/* Host ops and device work in one Chakra set (`trex export --to chakra
 * --host-et HOSTET...`): each trace file (rank) of a GPU trace (Kineto) is
 * paired with the PyTorch host execution trace of the same process, read by
 * the pytorch-et loader. The host ops become CPU nodes (is_cpu_op true) and
 * the trace's device work stays the writer's GPU nodes, each after the host
 * op that launched it, as chakra_trace_link and Chakra's PyTorch converter
 * would make them in two steps (doc/formats/chakra.md, "Host ET linking"):
 *  - a host op is the trace's CPU op with the same record-function id
 *    (host ET attr rf_id, Kineto arg "Record function id") and the same
 *    name; when the trace carries no record-function ids at all, the k-th
 *    host op of a name is the trace's k-th op of that name;
 *  - a device slice's launching op is the innermost linked CPU op around
 *    the runtime call its launch link (correlation) names, else the linked
 *    CPU op sharing its op link (External id);
 *  - a CPU node lasts its op's exclusive time in the trace (0 unmatched),
 *    depends (data) on the op before it in call order on its thread and
 *    (ctrl) on its caller; a linked GPU node depends on its launching op
 *    (data and ctrl) besides the work before it on its stream.
 * Nothing is dropped: unmatched host ops and unlinked device work are
 * written as well, and counted. */
#ifndef TREX_EXPORT_CHAKRA_HOST_LINK_H
#define TREX_EXPORT_CHAKRA_HOST_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/chakra_write.h"

struct trex_chakra_host_link; /* the host ETs of a trace, matched to it */

/* What the linking found, all ranks together. */
struct trex_chakra_host_link_stats {
	uint64_t host_ops;         /* host ops written as CPU nodes */
	uint64_t matched_rf_id;    /* linked by record-function id */
	uint64_t matched_by_name;  /* linked by name and order (no ids in the trace) */
	uint64_t unmatched_ops;    /* no op of the trace: duration 0 */
	uint64_t name_mismatch;    /* an op of the trace had the rf_id with another name */
	uint64_t host_skipped;     /* host ET nodes not written: device nodes of an already
	                            * linked ET (the trace's own device work is written) and
	                            * second nodes of an id */
	uint64_t work_linked;      /* device work written after its launching host op */
	uint64_t work_unlinked;    /* device work with no linked launching op */
	uint64_t damaged_host_ets; /* host ETs the loader salvaged (trex integrity tells) */
};

/* The host ET paths spec names for idx's files, in file (rank) order:
 * "A,B,..." (one per file) or a pattern holding "{rank}", replaced by each
 * file's rank. *paths (and each path) malloc'd; free with
 * trex_chakra_host_et_paths_free. Fails with TREX_USAGE when the count is
 * not the trace's file count. */
enum trex_status trex_chakra_host_et_paths(const struct trex_index *idx, const char *spec,
                                           char ***paths, size_t *count, struct trex_error *err);
void trex_chakra_host_et_paths_free(char **paths, size_t count);

/* Loads the host ETs spec names (trex_chakra_host_et_paths) and matches
 * each to its trace file of idx (which must have no execution graph).
 * Fails on a host ET that does not load, and with TREX_FORMAT on one that
 * does not fit its trace file (no op matches it, or most ops with a shared
 * record-function id have other names: another run's or program's ET). */
enum trex_status trex_chakra_host_link_open(const struct trex_index *idx, const char *spec,
                                            volatile sig_atomic_t *cancel,
                                            struct trex_chakra_host_link **out,
                                            struct trex_error *err);
void trex_chakra_host_link_free(struct trex_chakra_host_link *l);
const struct trex_chakra_host_link_stats *
trex_chakra_host_link_stats(const struct trex_chakra_host_link *l);

/* ---- the writer's hooks (chakra_write.c) ---------------------------------------------------- */

/* Whether file has host ops to write (a rank even without device work). */
bool trex_chakra_host_link_has_file(const struct trex_chakra_host_link *l, uint32_t file);

/* Each host op of file as a CPU node, in id order, to emit. */
typedef enum trex_status trex_chakra_node_fn(void *user, const struct trex_chakra_node_out *n,
                                             struct trex_error *err);
enum trex_status trex_chakra_host_link_cpu_nodes(struct trex_chakra_host_link *l, uint32_t file,
                                                 trex_chakra_node_fn *emit, void *user,
                                                 struct trex_error *err);

/* Makes the writer's node for device slice of file a linked GPU node: its
 * id and data deps, in the writer's numbering of the rank's device work
 * (from 0), move above the host op ids, and the launching op, when there
 * is one, is added as a data and a ctrl dependency. n's dep arrays then
 * point into l, valid until the next call. False when out of memory. */
bool trex_chakra_host_link_gpu_node(struct trex_chakra_host_link *l, uint32_t file, uint32_t slice,
                                    struct trex_chakra_node_out *n);

/* ---- the matcher (exposed for tests) ------------------------------------------------------- */

/* A host op: its id, its caller's id (UINT64_MAX: none in the file), its
 * rf_id (< 0: none) and name. */
struct trex_host_op {
	uint64_t id, parent;
	int64_t rf_id;
	const char *name;
};

/* A CPU op of the trace, in start order: its rf_id (< 0: none) and name. */
struct trex_trace_op {
	int64_t rf_id;
	const char *name;
};

/* match[i] = the trace op host op i is linked to, SIZE_MAX for none: by
 * rf_id and equal name, or, when no trace op has an rf_id, the k-th host op
 * of a name (in id order) to the k-th trace op of that name. A trace op
 * links at most one host op. Counts go to st (matched_rf_id,
 * matched_by_name, unmatched_ops, name_mismatch). False when out of
 * memory. */
bool trex_host_link_match(const struct trex_host_op *host, size_t nhost,
                          const struct trex_trace_op *trace, size_t ntrace, size_t *match,
                          struct trex_chakra_host_link_stats *st);

/* The op of host (sorted by id) with id, SIZE_MAX if none. */
size_t trex_host_op_find(const struct trex_host_op *host, size_t n, uint64_t id);

/* The converter's call order: host (sorted by id) walked depth first from
 * each op without a caller, callees in id order; prev[i] = the op visited
 * before op i in its chain (SIZE_MAX: first). A thread root
 * ("[pytorch|profiler|execution_trace|thread]") starts a chain of its own,
 * as the converter's one walk per thread does. False when out of memory. */
bool trex_host_link_chain(const struct trex_host_op *host, size_t n, size_t *prev);

#endif
