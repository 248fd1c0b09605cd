/* GPU kernel summary: per group (kernel name, launch shape, launching CPU
 * op, stream, device or rank) Time %, Total, Instances, Avg, Med, Min,
 * Max, StdDev, P95, P99, sorted by total descending. */
#ifndef TREX_ANALYSIS_KERNELS_H
#define TREX_ANALYSIS_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* X(ID, "name", "help") */
#define TREX_KERNEL_GROUP_INFO(X)                                                                  \
	X(NAME, "name", "kernel name")                                                             \
	X(SHAPE, "shape", "name + grid, block, shared memory, stream and device")                  \
	X(OP, "op", "the CPU op that launched the kernel")                                         \
	X(STREAM, "stream", "GPU stream (track) of each rank and device")                          \
	X(DEVICE, "device", "GPU device (process) of each rank")                                   \
	X(RANK, "rank", "rank (file)")

enum trex_kernel_group {
#define TREX_KERNEL_GROUP_ENUM(id, name, help) TREX_KERNELS_BY_##id,
	TREX_KERNEL_GROUP_INFO(TREX_KERNEL_GROUP_ENUM)
#undef TREX_KERNEL_GROUP_ENUM
	    TREX_KERNELS_BY_COUNT
};

/* "name", "shape", ... -> group; false if unknown. */
bool trex_kernel_group_parse(const char *s, enum trex_kernel_group *out);
const char *trex_kernel_group_name(enum trex_kernel_group g);

struct trex_kernel_ops;
struct trex_catset;

struct trex_kernel_opts {
	enum trex_kernel_group group;
	bool memory;   /* also count memcpy and memset (TREX_KIND_MEMCPY/MEMSET) */
	bool per_rank; /* BY_NAME and BY_OP only: one total column per file, in file
	                * (rank) order: key trex_file_key + "_total_ns", title
	                * trex_file_label */
	bool args;     /* BY_SHAPE only: an "args" column, the args JSON text of the
	                * group's first instance (earliest start, then lowest id) */
	/* BY_OP only: launching ops from trex_kernel_ops_compute (the same
	 * index), so that regrouping does not find them again; NULL: found here */
	const struct trex_kernel_ops *ops;
	/* Only the work whose name falls in this category of catset (NULL:
	 * the built-in rules; TREX_CATEGORY_NONE for what no rule matches),
	 * as trex_categories_table counts it; NULL: every category. */
	const char *category;
	const struct trex_catset *catset;
};

/* The launching CPU op of every GPU kernel, memcpy and memset (see
 * trex_kernels_table for the rule), found once: finding them is most of
 * the cost of grouping by op, which a view regroups on demand. */
struct trex_kernel_ops {
	uint32_t *op_name; /* per slice id: the op's name id, TREX_NONE: none found */
	uint32_t nslices;
};
enum trex_status trex_kernel_ops_compute(const struct trex_index *idx, struct trex_kernel_ops *out,
                                         struct trex_error *err);
void trex_kernel_ops_free(struct trex_kernel_ops *ops);

/* Fills t (uninitialised on entry) with one row per group. Statistics:
 * Time % = total / sum of all totals * 100; Med = mean of the two middle
 * values for even counts; StdDev = sample standard deviation (n - 1),
 * 0 for one instance; P95/P99 = nearest rank: the ceil(p * n / 100)-th
 * smallest duration (so the one instance for n = 1). Exact integer sums;
 * ties sorted by name (other groupings: by display order).
 *
 * Columns: the statistics (time_pct total_ns instances avg_ns med_ns
 * min_ns max_ns stddev_ns p95_ns p99_ns), then per group:
 *  name:   [rank<R>_total_ns...] name
 *  shape:  rank device stream shape [args] name
 *  op:     [rank<R>_total_ns...] op ("(no launching op)" when none is found)
 *  stream: rank device stream
 *  device: rank device
 *  rank:   rank file (one row per file: two files of one rank stay apart;
 *          file is its trex_file_name)
 * rank is the file's rank (a count), device its trex_device_label. Groups
 * of equal totals (and names) come in display order: file (by rank),
 * device, stream.
 * A kernel's op is the innermost cpu_op enclosing its correlated runtime
 * launch, else the cpu_op sharing the launch's (or kernel's) External id.
 * A kernel without grid/block (ROCm) takes its shape from its launch.
 * Kernels, copies and sets are device work as trex_work_kind says (any
 * accelerator's). Without a row, t->note says why (trex_work_empty_reason,
 * or that the category has no work). */
enum trex_status trex_kernels_table(const struct trex_index *idx,
                                    const struct trex_kernel_opts *opts, struct trex_table *t,
                                    struct trex_error *err);

/* The descriptors of the statistics columns (*n of them, in table order)
 * and of the name column, for tables of the same shape made elsewhere
 * (analysis/kernels_merge.h). */
const struct trex_column *trex_kernels_stat_columns(size_t *n);
const struct trex_column *trex_kernels_name_column(void);
/* The op column (BY_OP) and the Bytes and GB/s columns of --memory (*n). */
const struct trex_column *trex_kernels_op_column(void);
const struct trex_column *trex_kernels_bytes_columns(size_t *n);

/* The instances behind each row, for drilling in: row r's slice ids are
 * ids[first[r]] .. ids[first[r + 1] - 1] (ascending ids). */
struct trex_kernel_members {
	uint32_t *ids;
	size_t *first; /* nrows + 1 entries */
	size_t nrows;
};

/* trex_kernels_table, also filling *members (zeroed on failure; free it
 * with trex_kernel_members_free). */
enum trex_status trex_kernels_table_members(const struct trex_index *idx,
                                            const struct trex_kernel_opts *opts,
                                            struct trex_table *t,
                                            struct trex_kernel_members *members,
                                            struct trex_error *err);
void trex_kernel_members_free(struct trex_kernel_members *m);

/* One row per slice of ids[0..n), which is reordered to match the rows:
 * duration descending, ties by start, then id. Columns: start_ns (from the
 * trace start, trex_index_start), dur_ns, rank, device, stream, shape (the
 * kernel's, else its launch's), name. */
enum trex_status trex_kernel_instances_table(const struct trex_index *idx, uint32_t *ids, size_t n,
                                             struct trex_table *t, struct trex_error *err);

/* Labels shared by the triage analyses, written to buf (returned): a
 * device is its trex_device_label (analysis/labels.h: "GPU 0", "rank 3
 * GPU 0"); a stream is its track name ("stream 7"), else its tid text. */
const char *trex_process_label(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size);
const char *trex_track_label(const struct trex_index *idx, uint32_t track, char *buf, size_t size);

#endif
