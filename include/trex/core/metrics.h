/* The metrics store: per-kernel hardware metrics and profiler text reports,
 * beside the trace index (not in it: they are not events on a timeline).
 *
 * Format-neutral. Readers (src/load/) fill it through the builder calls
 * below: unitrace's -q/-k metric CSVs and -d/-h text reports, Kineto's
 * cuda_profiler_range counters. Analyses (src/analysis/metrics*.c) read it
 * and link it to a loaded trace.
 *
 * What it holds:
 *  - sources: the input files, with their problems (counted, the first
 *    TREX_METRICS_PROBLEMS kept with their positions);
 *  - metrics: a name and a unit ("XVE_ACTIVE", "%"), and how the samples
 *    of one kernel instance combine into its value (enum trex_metric_agg);
 *  - instances: one run of one kernel on one device (unitrace: a
 *    GlobalInstanceId; Kineto: one profiler range), with its samples: rows
 *    of values in the order of a layout (a list of metrics, shared by the
 *    rows of one CSV header), NAN where a row has no value;
 *  - reports: tables of text cells, each also read as a number when it is
 *    one (unitrace -d device timing, -h host timing, kernel properties).
 *
 * Strings are interned in the store's own string table (ids as in
 * core/strtab.h; 0 is ""). Ids of sources, metrics, layouts, instances and
 * reports count from 0 in the order they were added. */
#ifndef TREX_CORE_METRICS_H
#define TREX_CORE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"

#define TREX_METRICS_NONE UINT32_MAX /* no such source/metric/instance/...; out of memory */
#define TREX_METRICS_PROBLEMS 8      /* problems kept per source, with their positions */

/* How the samples of an instance make its value. */
enum trex_metric_agg {
	TREX_METRIC_SUM,   /* counts, bytes, cycles, durations: they add up */
	TREX_METRIC_MEAN,  /* percentages, frequencies, rates */
	TREX_METRIC_FIRST, /* timestamps, ids, flags: the first sample's */
};

struct trex_metric {
	uint32_t name; /* string id: "XVE_ACTIVE" */
	uint32_t unit; /* string id: "%", "ns", ...; 0 when the metric has none */
	uint8_t agg;   /* enum trex_metric_agg */
};

/* How an instance was linked to a trace (analysis/metrics_link.h). */
enum trex_metrics_link {
	TREX_MLINK_NONE = 0,   /* not linked (no trace, or not tried) */
	TREX_MLINK_ID,         /* matched by instance id and kernel name */
	TREX_MLINK_ORDER,      /* matched by kernel name and order (no ids) */
	TREX_MLINK_IN_TRACE,   /* comes from a trace event itself (Kineto ranges) */
	TREX_MLINK_NO_ID,      /* unmatched: no trace kernel has its instance id */
	TREX_MLINK_OTHER_NAME, /* unmatched: its id belongs to another kernel in the trace */
	TREX_MLINK_NO_KERNEL,  /* unmatched: no trace kernel has its name */
	TREX_MLINK_EXTRA,      /* unmatched: more instances than the trace has of the kernel */
	TREX_MLINK_AMBIGUOUS,  /* unmatched: several trace kernels fit equally */
	TREX_MLINK_IDLE,       /* samples of no kernel (unitrace NoKernel): never linked */
	TREX_MLINK_COUNT
};

enum trex_metrics_instance_flag {
	TREX_MINST_HAS_ID = 1u << 0, /* id is valid */
	TREX_MINST_IDLE = 1u << 1,   /* samples taken while no kernel ran */
};

struct trex_metrics_instance {
	uint32_t source;
	uint32_t device;  /* string id: the device as the file names it ("0", "GPU 0") */
	uint32_t kernel;  /* string id: the kernel as the file names it */
	uint32_t layout;  /* metrics of its sample rows */
	int64_t id;       /* instance id when TREX_MINST_HAS_ID */
	uint64_t first;   /* index of its first value (trex_metrics_values) */
	uint32_t samples; /* rows */
	uint32_t flags;   /* enum trex_metrics_instance_flag */
	uint32_t slice;   /* linked trace slice, TREX_METRICS_NONE if none */
	uint8_t link;     /* enum trex_metrics_link */
	int64_t offset;   /* where it starts in its source: byte, line (1-based) */
	int64_t line;
};

/* What one instance is, for trex_metrics_instance_begin. */
struct trex_metrics_instance_spec {
	uint32_t source;
	const char *device, *kernel;
	size_t device_len, kernel_len;
	uint32_t layout;
	int64_t id;
	uint32_t flags;
	int64_t offset, line;
};

struct trex_metrics_source {
	uint32_t path;     /* string id */
	uint32_t format;   /* string id: "unitrace-metrics", "kineto-ranges", ... */
	uint64_t bytes;    /* decoded bytes read */
	uint64_t lines;    /* lines read (text formats) */
	uint64_t unread;   /* of them, outside every table and metrics section (program
	                    * output, -t and -c logs): not read, counted here */
	uint64_t problems; /* all problems found (rows skipped, values not read) */
	uint32_t kept;     /* of them, kept in problem[] */
	struct trex_error problem[TREX_METRICS_PROBLEMS];
};

/* X(ID, "name"): what a report table is. */
#define TREX_REPORT_KIND_INFO(X)                                                                   \
	X(DEVICE_TIMING, "device timing")                                                          \
	X(HOST_TIMING, "host timing")                                                              \
	X(KERNEL_PROPERTIES, "kernel properties")                                                  \
	X(SUBMISSION, "kernel submission")                                                         \
	X(TOTALS, "totals")

enum trex_report_kind {
#define TREX_REPORT_KIND_ENUM(id, name) TREX_REPORT_##id,
	TREX_REPORT_KIND_INFO(TREX_REPORT_KIND_ENUM)
#undef TREX_REPORT_KIND_ENUM
	    TREX_REPORT_KIND_COUNT
};
/* "device timing", ...; "" out of range. */
const char *trex_report_kind_name(enum trex_report_kind kind);

struct trex_report {
	uint32_t source;
	uint8_t kind;     /* enum trex_report_kind */
	uint32_t section; /* string id: "Device Timing Summary" */
	uint32_t title;   /* string id: "L0 Backend", "Kernel Properties" */
	uint32_t ncols;   /* the first column names the rows */
	uint32_t nrows;
	int64_t line; /* the line of its column titles */
};

/* One cell as a reader hands it over: its text and, when it is a number, its
 * value (NAN when it is not one). */
struct trex_report_cell {
	const char *text;
	size_t len;
	double number;
};

/* ---- building ------------------------------------------------------------------------------ */

struct trex_metrics;

struct trex_metrics *trex_metrics_new(void); /* NULL when out of memory */
void trex_metrics_free(struct trex_metrics *m);

/* Interns s[0..len); TREX_METRICS_NONE when out of memory. */
uint32_t trex_metrics_intern(struct trex_metrics *m, const char *s, size_t len);

/* A new source; TREX_METRICS_NONE when out of memory. */
uint32_t trex_metrics_add_source(struct trex_metrics *m, const char *path, const char *format);
void trex_metrics_source_bytes(struct trex_metrics *m, uint32_t source, uint64_t bytes);
void trex_metrics_source_lines(struct trex_metrics *m, uint32_t source, uint64_t lines,
                               uint64_t unread);
/* Counts a problem of source; the first TREX_METRICS_PROBLEMS are kept. */
void trex_metrics_problem(struct trex_metrics *m, uint32_t source, const struct trex_error *e);

/* The metric (name, unit), added with agg when new (an existing one keeps
 * its own); TREX_METRICS_NONE when out of memory. */
uint32_t trex_metrics_metric(struct trex_metrics *m, const char *name, size_t name_len,
                             const char *unit, size_t unit_len, enum trex_metric_agg agg);
/* The layout of these n metric ids (the same list gives the same id);
 * TREX_METRICS_NONE when out of memory or n is 0. */
uint32_t trex_metrics_layout(struct trex_metrics *m, const uint32_t *metrics, uint32_t n);

/* Starts an instance; TREX_METRICS_NONE when out of memory or spec->layout
 * is not a layout. */
uint32_t trex_metrics_instance_begin(struct trex_metrics *m,
                                     const struct trex_metrics_instance_spec *spec);
/* A new sample row of the last instance begun: its values, width of its
 * layout, all NAN, to be filled by the caller until the next call that
 * adds to the store; NULL when out of memory or no instance was begun. */
double *trex_metrics_sample(struct trex_metrics *m);
/* Drops the last sample row of the last instance (a row found bad after
 * it was started). */
void trex_metrics_sample_drop(struct trex_metrics *m);
/* Removes the last instance begun when it has no sample (a kernel whose
 * rows were all bad). */
void trex_metrics_instance_end(struct trex_metrics *m);

/* A report of ncols column titles; TREX_METRICS_NONE when out of memory. */
uint32_t trex_metrics_add_report(struct trex_metrics *m, uint32_t source,
                                 enum trex_report_kind kind, const char *section, const char *title,
                                 const struct trex_report_cell *cols, uint32_t ncols, int64_t line);
/* A row of the last report: ncols cells (the first names the row). false
 * when out of memory. */
bool trex_metrics_report_row(struct trex_metrics *m, const struct trex_report_cell *cells);

/* Links instance to trace slice (TREX_METRICS_NONE: none) with how. */
void trex_metrics_set_link(struct trex_metrics *m, uint32_t instance, uint32_t slice,
                           enum trex_metrics_link link);

/* ---- reading -------------------------------------------------------------------------------- */

const char *trex_metrics_str(const struct trex_metrics *m, uint32_t id);

uint32_t trex_metrics_source_count(const struct trex_metrics *m);
const struct trex_metrics_source *trex_metrics_source(const struct trex_metrics *m, uint32_t id);

uint32_t trex_metrics_metric_count(const struct trex_metrics *m);
const struct trex_metric *trex_metrics_metric_get(const struct trex_metrics *m, uint32_t id);
/* A metric by its name ("XVE_ACTIVE") or name and unit as CSV headers write
 * them ("XVE_ACTIVE[%]"); TREX_METRICS_NONE when none. A bare name that
 * several units share gives the first added. */
uint32_t trex_metrics_metric_find(const struct trex_metrics *m, const char *name);
/* "XVE_ACTIVE[%]", or the bare name without a unit, into buf (returned). */
const char *trex_metrics_metric_label(const struct trex_metrics *m, uint32_t metric, char *buf,
                                      size_t size);

uint32_t trex_metrics_layout_width(const struct trex_metrics *m, uint32_t layout);
const uint32_t *trex_metrics_layout_metrics(const struct trex_metrics *m, uint32_t layout);
/* Position of metric in layout, or -1 when the layout lacks it. */
int64_t trex_metrics_layout_pos(const struct trex_metrics *m, uint32_t layout, uint32_t metric);

uint32_t trex_metrics_instance_count(const struct trex_metrics *m);
const struct trex_metrics_instance *trex_metrics_instance(const struct trex_metrics *m,
                                                          uint32_t id);
/* All values: instance i's sample row r is values + first + r * width. */
const double *trex_metrics_values(const struct trex_metrics *m);
/* The instance's value of metric, made from its samples by the metric's
 * agg (samples without a value left out); false (and *out NAN) when it has
 * none. */
bool trex_metrics_instance_value(const struct trex_metrics *m, uint32_t instance, uint32_t metric,
                                 double *out);

uint32_t trex_metrics_report_count(const struct trex_metrics *m);
const struct trex_report *trex_metrics_report(const struct trex_metrics *m, uint32_t id);
/* Cell (row, col) of a report: its text (a string of the store) and
 * number (NAN when not a number); row -1 gives the column title. */
const char *trex_metrics_report_cell(const struct trex_metrics *m, uint32_t report, int64_t row,
                                     uint32_t col, double *number);

/* Bytes held, for memory statistics. */
size_t trex_metrics_memory(const struct trex_metrics *m);

#endif
