/* The integrity report of a set of ranks from each rank's own index in
 * turn (never one index of the set): integrity counters are per file, so
 * each rank gives its own table (trex_integrity_table) and its loss line,
 * and the set's table is those rows joined as trex_integrity_table
 * orders them for the ranks loaded as one index (files in rank order,
 * distinct ranks): the non-zero damage counters, then the non-zero
 * notes, each with one row per rank that counts it, in rank order; then
 * the counters that are 0 everywhere, one "all runs" row each. */
#ifndef TREX_ANALYSIS_INTEGRITY_SET_H
#define TREX_ANALYSIS_INTEGRITY_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/integrity.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* One rank's part: its table and rows, the start its example times are
 * from and each row's example time on the trace's clock (the set's
 * times are from the set's start, exactly: clocks beyond 2^53 ns are not
 * moved through a double), whether it lost data (trex_file_lost_data)
 * and what (its trex_loss_text, exact). */
struct trex_integrity_part {
	struct trex_table table;
	struct trex_integrity_rows rows;
	int64_t start;
	int64_t *ts; /* per row; its TIME cell NaN: none */
	bool lost_data;
	char *lost;
	char *path; /* the file's path as the index holds it */
};

/* *out (free with trex_integrity_part_free) from idx, one rank's index of
 * one file. */
enum trex_status trex_integrity_part_new(const struct trex_index *idx,
                                         struct trex_integrity_part **out, struct trex_error *err);
void trex_integrity_part_free(struct trex_integrity_part *p);

/* The set's table (t uninitialised on entry) from parts[0..n) (n >= 2) in
 * the set's order, ranks[i] the rank the set gives part i, set_start the
 * set's start (the least of the ranks' starts): runs labelled by the
 * set's rank, example times from the set's start. */
enum trex_status trex_integrity_join_table(struct trex_integrity_part *const *parts,
                                           const int64_t *ranks, size_t n, int64_t set_start,
                                           struct trex_table *t, struct trex_error *err);

#endif
