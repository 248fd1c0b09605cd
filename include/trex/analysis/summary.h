/* The `trex info` report: files, formats, events by phase and category,
 * tracks, time span and integrity. */
#ifndef TREX_ANALYSIS_SUMMARY_H
#define TREX_ANALYSIS_SUMMARY_H

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* Tables of the info report, each filled (uninitialised on entry):
 *  files:      rank, format, dialect, gzip, truncated, bytes, decoded_bytes,
 *              events, span, file
 *  phases:     phase, events (summed over files), name
 *  categories: kind, slices, instants, total time, category (by total desc)
 *  tracks:     rank, process, kind, slices, instants, samples, depth, track
 *  tracks_text: the same rows for the text report, with run (trex_file_label:
 *              "rank 1 (base.json.gz)" for files that claim one rank) in
 *              place of rank and the process as trex_device_name ("GPU 1")
 *  integrity:  check, count (summed over files), meaning: every
 *              TREX_INTEGRITY_INFO field, in its order
 *  problems:   rank, problem: each file's first_problem, formatted with
 *              trex_error_format (files without one have no row)
 *  examples:   per file, its first and largest damaged spans (check
 *              "damage_first", "damage_largest", count = bytes), then the
 *              first example of each non-zero counter in TREX_INTEGRITY_INFO
 *              order: rank, check, count, example (trex_problem_format),
 *              file, offset, line, col, compressed_offset, length,
 *              events_lost, track, slice, ts_ns, what; unknown numbers are
 *              -1 (ts_ns: has_ts 0), texts "" */
struct trex_summary {
	struct trex_table files, phases, categories, tracks, integrity, problems, examples;
	struct trex_table tracks_text; /* tracks as the text report shows them */
	int64_t start_ns, end_ns;
	uint64_t slices, instants, samples, flows;
};

/* On failure s holds empty tables (trex_summary_free is still safe). */
enum trex_status trex_summary_compute(const struct trex_index *idx, struct trex_summary *s,
                                      struct trex_error *err);
void trex_summary_free(struct trex_summary *s);

#endif
