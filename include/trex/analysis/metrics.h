/* Per-kernel hardware metrics (core/metrics.h) against a trace: linking
 * metric instances to the trace's kernels, and the tables `trex metrics`,
 * the metrics view and the kernels table's metric columns show.
 *
 * Linking rules (man trex, METRICS), for every instance that is not idle
 * and not already an event of the trace (Kineto ranges):
 *  1. With an instance id (unitrace GlobalInstanceId): the trace kernels
 *     whose args.id is that id (unitrace writes the same number there).
 *     Of them, the one whose name fits the instance's kernel (below) is its
 *     match (TREX_MLINK_ID); a per-tile copy ("Tile #1: ...") only when
 *     nothing else fits. None with the id: NO_ID; only other kernels:
 *     OTHER_NAME; several that fit: AMBIGUOUS.
 *  2. Without one (the older CSV style): per source, device and kernel, the
 *     n-th instance in the file is the n-th kernel of that name in the
 *     trace in time order (ORDER); past the trace's count: EXTRA; a name no
 *     trace kernel has: NO_KERNEL.
 * Names fit when they are equal once the shape suffix unitrace adds with -v
 * ("[SIMD32 {256; 1; 1} {128; 1; 1}]", "[4194304]" for copies) is taken off
 * both, and their shapes are equal where both have one. */
#ifndef TREX_ANALYSIS_METRICS_H
#define TREX_ANALYSIS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/metrics.h"
#include "trex/core/status.h"

/* Report tables that join the kernels table: device timing and kernel
 * properties (one row per kernel). */
static inline bool trex_report_joins(const struct trex_report *r)
{
	return r->kind == TREX_REPORT_DEVICE_TIMING || r->kind == TREX_REPORT_KERNEL_PROPERTIES;
}

/* "id", "order", "trace", "no such id", ...: how an instance was linked. */
const char *trex_metrics_link_name(enum trex_metrics_link link);

/* The length of name without its unitrace shape suffix (the whole length
 * when it has none). */
size_t trex_kernel_name_base(const char *name, size_t len);

/* What linking found. */
struct trex_metrics_match {
	uint64_t instances;                 /* all instances */
	uint64_t count[TREX_MLINK_COUNT];   /* per outcome */
	uint64_t trace_without;             /* trace kernels of the linked kernels' names
	                                     * that no instance links to */
	uint64_t report_rows, report_found; /* device timing and kernel properties rows,
	                                     * and those whose kernel the trace has */
};
/* Instances linked (by id, by order, or trace events themselves). */
uint64_t trex_metrics_matched(const struct trex_metrics_match *mm);
/* Instances that should have linked and did not (neither matched nor idle). */
uint64_t trex_metrics_unmatched(const struct trex_metrics_match *mm);

/* Links m's instances to idx (see above); match may be NULL. Fails with
 * NOMEM, or an error of reading a trace event's args back. */
enum trex_status trex_metrics_link(const struct trex_index *idx, struct trex_metrics *m,
                                   struct trex_metrics_match *match, struct trex_error *err);
/* The counts of an already linked store (no trace: NONE everywhere). */
void trex_metrics_match_count(const struct trex_index *idx, const struct trex_metrics *m,
                              struct trex_metrics_match *match);
/* One line: "40 of 42 metric instances matched trace kernels (38 by
 * instance id, 2 by order); 2 did not: 1 has an id no trace kernel has, 1
 * the id of another kernel" (what is 0 left out), into buf (returned). */
const char *trex_metrics_match_line(const struct trex_metrics_match *mm, char *buf, size_t size);

/* ---- choosing -------------------------------------------------------------------------------- */

/* What a table shows: metrics (ids, nmetrics of them; metrics NULL: every
 * one the instances have) and kernels (NULL: all) whose names match
 * kernel; idle instances only with idle. */
struct trex_metrics_select {
	const uint32_t *metrics;
	size_t nmetrics;
	const struct trex_regex *kernel;
	bool idle;
	bool no_kernel; /* instances table: without the kernel column (one kernel's view) */
};

/* Instances by kernel: group g is the instances ids[first[g]] ..
 * ids[first[g + 1] - 1] of one source, device and kernel, in file order;
 * groups in the order their first instance came. */
struct trex_metrics_groups {
	uint32_t *ids;
	size_t *first;
	size_t n;
};
enum trex_status trex_metrics_group(const struct trex_metrics *m,
                                    const struct trex_metrics_select *sel,
                                    struct trex_metrics_groups *out, struct trex_error *err);
void trex_metrics_groups_free(struct trex_metrics_groups *g);

/* ---- tables -----------------------------------------------------------------------------------
 */

/* One row per source: format, bytes, lines, unread lines, instances,
 * report tables, problems, path. */
enum trex_status trex_metrics_sources_table(const struct trex_metrics *m, struct trex_table *t,
                                            struct trex_error *err);
/* One row per source and device: kernels, instances, samples, device. */
enum trex_status trex_metrics_devices_table(const struct trex_metrics *m, struct trex_table *t,
                                            struct trex_error *err);
/* One row per metric: unit, how samples combine, instances with a value,
 * samples with a value, metric ("XVE_ACTIVE[%]"). */
enum trex_status trex_metrics_list_table(const struct trex_metrics *m, struct trex_table *t,
                                         struct trex_error *err);
/* One row per group (trex_metrics_group): device, instances, matched (to
 * the trace), samples, the trace time of the matched ones (idx may be
 * NULL), the mean over its instances of each chosen metric (key: the
 * metric's label; without chosen metrics, every metric), kernel. */
enum trex_status trex_metrics_kernels_table(const struct trex_metrics *m,
                                            const struct trex_index *idx,
                                            const struct trex_metrics_select *sel,
                                            const struct trex_metrics_groups *g,
                                            struct trex_table *t, struct trex_error *err);
/* A device as tables name it: "Device #0", "GPU 0", after the source's
 * file name when m has several sources; "-" when the file names none. */
const char *trex_metrics_device_label(const struct trex_metrics *m, uint32_t instance, char *buf,
                                      size_t size);
/* The groups a table covers: one (g's group), or all (TREX_METRICS_ALL). */
#define TREX_METRICS_ALL SIZE_MAX
/* One row per instance of the group(s), group after group, each in file
 * order: device, n (1-based among its group's), id, samples, link, trace
 * start (from the trace's start) and duration when linked (idx may be
 * NULL), each chosen metric's value, kernel. Without chosen metrics
 * (sel->nmetrics 0) every metric the instances have. */
enum trex_status trex_metrics_instances_table(const struct trex_metrics *m,
                                              const struct trex_index *idx,
                                              const struct trex_metrics_select *sel,
                                              const struct trex_metrics_groups *g, size_t group,
                                              struct trex_table *t, struct trex_error *err);
/* Per group and chosen metric (as above): device, unit, instances with a
 * value, min, mean, max over them, a trend of TREX_METRICS_TREND points
 * (trex_metrics_trend) as a text sparkline, metric, kernel. */
#define TREX_METRICS_TREND 16
enum trex_status trex_metrics_summary_table(const struct trex_metrics *m,
                                            const struct trex_metrics_select *sel,
                                            const struct trex_metrics_groups *g, size_t group,
                                            struct trex_table *t, struct trex_error *err);
/* The trend of metric over ids[0..n) in npoints points (each the mean of
 * the values of its share of the instances; NAN where none has one). */
void trex_metrics_trend(const struct trex_metrics *m, uint32_t metric, const uint32_t *ids,
                        size_t n, double *points, size_t npoints);
/* Every instance that did not link (neither matched nor idle) and every
 * report row whose kernel the trace lacks: source line, device, id, why,
 * kernel. */
enum trex_status trex_metrics_unmatched_table(const struct trex_metrics *m,
                                              const struct trex_index *idx, struct trex_table *t,
                                              struct trex_error *err);
/* A report as a table: its columns (numbers where every cell is one;
 * "(ns)" columns as durations, "(%)" as percentages), its first column
 * last (the name). */
enum trex_status trex_metrics_report_table(const struct trex_metrics *m, uint32_t report,
                                           struct trex_table *t, struct trex_error *err);

/* ---- the kernels table's metric columns ---------------------------------------------------------
 */

/* Resolves names (metric names "XVE_ACTIVE" or "XVE_ACTIVE[%]", report
 * columns "SIMD", "Calls", or "all") against m: *cols receives the
 * columns (malloc'd, *n of them). An unknown name is a USAGE error naming
 * it and what there is. */
struct trex_metric_column {
	bool is_report;    /* a report column, else a metric */
	uint32_t metric;   /* the metric */
	uint8_t kind;      /* report: enum trex_report_kind */
	const char *title; /* report: the column title (a string of m) */
};
enum trex_status trex_metrics_columns(const struct trex_metrics *m, const char *const *names,
                                      size_t nnames, struct trex_metric_column **cols, size_t *n,
                                      struct trex_error *err);

/* Adds cols to a kernels table t made with members (trex_kernels_table_members),
 * before its name column: for a metric, the mean over the row's instances
 * linked to metrics; for a report column, the value of the report rows
 * whose kernel fits the row's kernel (device timing rows of one name
 * summed: calls, time, min, max, average = time / calls). A row without a
 * value shows none. */
enum trex_status trex_kernels_add_metrics(const struct trex_index *idx,
                                          const struct trex_metrics *m,
                                          const struct trex_kernel_members *members,
                                          const struct trex_metric_column *cols, size_t ncols,
                                          struct trex_table *t, struct trex_error *err);

#endif
