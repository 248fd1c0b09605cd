/* The DeepTools compiler log of IBM AIU workloads: its "Perf Summary"
 * ideal-cycles tables, the source of acelyzer's kernel categories and
 * ideal cycles (acelyzer.md §4).
 *
 * A table runs from a line containing " Ideal/Total Cycles " to one
 * containing "====== Perf Summary End ======". Inside it, a data line is
 * "NAME CYCLES" (NAME of letters, digits, '_' and '-'; blanks between,
 * trailing blanks allowed): NAME up to its first "-opCat" is the kernel
 * (its trace event is "<kernel> Cmpt Exec"), the text after its last
 * "-opCat" the category; a NAME ending in "-NA" (the kernel is what
 * precedes it) or without either suffix is category NotAvailable. Names
 * containing "Precompute" or "-LxPreload" are not kernels (skipped), nor
 * is "Total" (the table's sum, kept as total_cycles). Header ("Name ..."),
 * rule (only '-', '=', '~' and blanks) and blank lines are layout; any
 * other line inside a table is reported and skipped. A line that is only
 * blanks around PREFILL or DECODING sets the phase of the tables after it
 * (UNKN before any). A line containing "DSM-AutoPilot BEGIN" marks the log
 * as compiled with autopilot on (acelyzer: categories unreliable). */
#ifndef TREX_LOAD_DEEPTOOLS_LOG_H
#define TREX_LOAD_DEEPTOOLS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"

struct trex_ideal_kernel {
	char *name;      /* "convolution_1 Cmpt Exec" */
	char *category;  /* "Conv_fp16", "NotAvailable" */
	uint64_t cycles; /* ideal cycles */
	int64_t line;    /* 1-based line of its data line */
};

struct trex_ideal_table {
	char *phase;                       /* "PREFILL", "DECODING" or "UNKN" */
	struct trex_ideal_kernel *kernels; /* in log order, names unique */
	size_t nkernels;
	char **categories; /* distinct, in order of first appearance */
	size_t ncategories;
	uint64_t total_cycles; /* its "Total" line, 0 when it has none */
	int64_t line;          /* of its " Ideal/Total Cycles " line */
	bool closed;           /* its end line was found */
};

struct trex_ideal_log {
	struct trex_ideal_table *tables;
	size_t ntables;
	bool autopilot;
};

/* Called once per problem that is skipped, the error positioned at it
 * (path, byte offset, line:col; status FORMAT). */
typedef void trex_ideal_diag_fn(void *user, const struct trex_error *problem);

/* Parses a log's text (path is for messages). Reported and skipped: lines
 * inside a table that are neither data nor layout, cycles beyond 2^64 - 1,
 * a kernel listed twice in a table (the first entry stays); reported and
 * kept: a table the file ends in. Fails with FORMAT, positioned at the end
 * of the text, when no table has a kernel; NOMEM when out of memory. */
enum trex_status trex_deeptools_log_parse(const char *path, const char *text, size_t len,
                                          trex_ideal_diag_fn *diag, void *user,
                                          struct trex_ideal_log **out, struct trex_error *err);

/* The kernel of table t whose trace event is name, NULL if none. */
const struct trex_ideal_kernel *trex_ideal_table_find(const struct trex_ideal_table *t,
                                                      const char *name);

void trex_ideal_log_free(struct trex_ideal_log *log);

#endif
