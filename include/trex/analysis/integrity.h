/* The integrity report (`trex integrity` and the interface's integrity
 * view): every counter of `trex info`'s integrity section per run, with the
 * examples the index keeps for it, and the one line that says what a
 * damaged trace lost (the CLI's warning and the interface's notice). */
#ifndef TREX_ANALYSIS_INTEGRITY_H
#define TREX_ANALYSIS_INTEGRITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* ---- what was lost, in one line ----------------------------------------------------- */

/* A byte count as people read it: "1 byte", "95 bytes", "12.3 kB",
 * "1.2 MB", "3.4 GB" (powers of 1000, one decimal, rounded). Returns buf
 * (32 bytes are always enough). */
const char *trex_format_bytes(uint64_t n, char *buf, size_t size);

/* Whether file lost input or has a value not taken as written: cut short,
 * or any damage counter (trex_integrity_is_damage) non-zero. */
bool trex_file_lost_data(const struct trex_file *f);

/* What a damaged file lost (file), or every file together (TREX_NONE),
 * as phrases joined by "; ", each only when it applies:
 *   "lost about 1 event and 95 bytes at 6 damaged spots" ("skipped 4 bytes
 *       at 1 damaged spot, no event lost" when every event there was whole;
 *       the events of a cut tail are not counted here)
 *   "1.2 MB ignored after truncation" (cut short with nothing left over:
 *       "cut short after a complete event")
 *   "2 values not taken as written" (the damage counters from
 *       missing_fields to invalid_utf8: events dropped or kept changed)
 * With exact (one file only) the byte counts of 1000 and more are also
 * given exactly, and the truncation its place: "1.2 MB (1234567 bytes)
 * ignored after truncation at byte 5678". "" when nothing was lost.
 * Returns what snprintf returns. */
int trex_loss_text(const struct trex_index *idx, uint32_t file, bool exact, char *buf, size_t size);

/* ---- the counters --------------------------------------------------------------------- */

/* Columns of the integrity table. */
enum trex_integrity_col {
	TREX_INTEG_COL_RUN,   /* TEXT: trex_file_label; "all runs" (several files, count 0) */
	TREX_INTEG_COL_CHECK, /* TEXT: the counter's field name ("bytes_ignored") */
	TREX_INTEG_COL_COUNT, /* COUNT */
	TREX_INTEG_COL_SIZE,  /* TEXT: bytes_skipped, bytes_ignored: trex_format_bytes; else "" */
	TREX_INTEG_COL_KIND,  /* TEXT: "damage" or "note" (trex_integrity_is_damage) */
	TREX_INTEG_COL_EXAMPLES, /* COUNT: examples kept (at most TREX_PROBLEM_EXAMPLES) */
	TREX_INTEG_COL_WHERE,    /* TEXT: the first example's place in the file, or "" */
	TREX_INTEG_COL_WHAT,     /* TEXT: what the first example is */
	TREX_INTEG_COL_TRACK,    /* TEXT: its track, "DEVICE / TRACK", or "" */
	TREX_INTEG_COL_TIME,     /* DURATION: its time from the trace start; NaN: none */
	TREX_INTEG_COL_NAME,     /* TEXT: its event's name, or "" */
	TREX_INTEG_COL_MEANING,  /* TEXT: trex_integrity_label */
	TREX_INTEG_NCOLS
};

/* Which file and counter a row of the integrity table is. */
struct trex_integrity_row {
	uint32_t file; /* TREX_NONE: a counter that is 0 in every one of several files */
	enum trex_integrity_counter counter;
};

struct trex_integrity_rows {
	struct trex_integrity_row *v;
	size_t n;
};

/* Every counter of TREX_INTEGRITY_INFO, most telling first: the damage
 * counters that are non-zero, then the structure notes that are, then the
 * counters that are 0 everywhere; each group in TREX_INTEGRITY_INFO order.
 * A non-zero counter has one row per file that counts it (in file order);
 * a zero one a single row (its file's when only one file is loaded). The
 * first-example columns describe trex_index_problem(idx, file, counter,
 * 0); WHERE is "NAME:LINE:COL (byte N[, compressed byte C])" with the
 * file's trex_file_name, "NAME (byte N)" without line:col, "" when the
 * example has no place in the file. When rows is not NULL it receives the
 * (file, counter) of each row in row order (trex_integrity_rows_free;
 * zeroed on failure). */
enum trex_status trex_integrity_table(const struct trex_index *idx, struct trex_table *out,
                                      struct trex_integrity_rows *rows, struct trex_error *err);
void trex_integrity_rows_free(struct trex_integrity_rows *rows);

/* ---- the examples of one counter -------------------------------------------------------- */

/* Columns of the examples table. */
enum trex_integrity_example_col {
	TREX_INTEG_EX_N,     /* COUNT: 1-based, in the order the index keeps them */
	TREX_INTEG_EX_WHERE, /* TEXT: as TREX_INTEG_COL_WHERE */
	TREX_INTEG_EX_BYTES, /* NUMBER: a damaged span's bytes; NaN for other examples */
	TREX_INTEG_EX_LOST,  /* NUMBER: events estimated lost in the span; NaN likewise */
	TREX_INTEG_EX_TRACK, /* TEXT: as TREX_INTEG_COL_TRACK */
	TREX_INTEG_EX_TIME,  /* DURATION: from the trace start; NaN: none */
	TREX_INTEG_EX_SLICE, /* COUNT: the slice the event was kept as, -1: none */
	TREX_INTEG_EX_NAME,  /* TEXT: the event's name, or "" */
	TREX_INTEG_EX_WHAT,  /* TEXT: what the example is (last: the view's name column) */
	TREX_INTEG_EX_NCOLS
};

/* The examples of counter c in file, one row each: row i is
 * trex_index_problem(idx, file, c, i). */
enum trex_status trex_integrity_examples_table(const struct trex_index *idx, uint32_t file,
                                               enum trex_integrity_counter c,
                                               struct trex_table *out, struct trex_error *err);

#endif
