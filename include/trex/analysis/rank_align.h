/* Rank alignment (`trex align`, --align) and stragglers (`trex
 * stragglers` and its view): the ranks of one job recorded each on its
 * own clock, put on one clock by matching events that happen together on
 * every rank, and then, on that clock, which rank kept the others waiting.
 *
 * The model (man trex, RANK ALIGNMENT):
 *  - collectives: the n-th collective of a communicator is the same
 *    operation on each of its ranks. Communicators are told apart by
 *    Kineto's "Process Group Name" arg on the collective's kernel (one
 *    communicator of every rank without it), collectives are the device
 *    work a communication rule matches (load/classify.h), ordered by
 *    start on each rank. A collective starts on a rank when that rank
 *    arrives, but it can finish nowhere before the last rank has arrived,
 *    and from then on every rank moves the same data: its *ends* are
 *    simultaneous to within the last step's latency. Ends are the anchors;
 *    the n-th collectives whose kernel names differ from the name most of
 *    its ranks show are left out (counted as mismatched);
 *  - steps: the start and the end of each step (steps.h: ProfilerStep#N,
 *    or --step) of the same name and occurrence line up on every rank.
 * Each rank is a unit of (file, process rank): one per file for Kineto.
 * The reference clock is the lowest rank's that shares anchors with
 * others. Every other rank's clock gets an affine correction (core/clock.h)
 * fitted by least squares to the anchors, jointly over all ranks (the
 * anchor's true time is the mean of its corrected times): an offset, and
 * a drift where it is measurable: at least 4 anchors over at least 1 ms
 * whose offset-only residuals show a slope of more than 3 standard errors
 * and 0.01 ppm. Residuals are the corrected anchor times' distances from
 * the anchor's mean. */
#ifndef TREX_ANALYSIS_RANK_ALIGN_H
#define TREX_ANALYSIS_RANK_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/clock.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

enum trex_align_on {
	TREX_ALIGN_NONE = 0,
	TREX_ALIGN_COLLECTIVES,
	TREX_ALIGN_STEPS,
};

/* "none", "collectives", "steps"; parse: false for another word. */
const char *trex_align_on_name(enum trex_align_on on);
bool trex_align_on_parse(const char *s, enum trex_align_on *out);

struct trex_align_opts {
	enum trex_align_on on;    /* COLLECTIVES or STEPS */
	const char *step_pattern; /* steps: PCRE2 (steps.h); NULL: TREX_STEP_PATTERN */
};

/* One rank's clock as the fit found it. */
struct trex_rank_clock {
	uint32_t file;
	int64_t rank;
	struct trex_clock_fix fix; /* identity for the reference and unaligned ranks */
	uint32_t anchors;          /* anchors it shares with other ranks */
	bool reference;            /* its clock is the one the others are put on */
	bool aligned;              /* reference, or linked to it through anchors */
	bool has_drift;            /* the drift was measurable (see above) */
	double rms_ns, max_ns;     /* residuals after the fit (0 without anchors) */
};

struct trex_rank_align {
	struct trex_rank_clock *ranks; /* by rank (file order, then process rank) */
	uint32_t nranks;
	uint64_t anchors;    /* anchors with at least two ranks */
	uint64_t mismatched; /* events left out: their name differs from their anchor's */
	uint32_t groups;     /* communicators (collectives) or step names (steps) */
};

/* Finds the clocks of idx's ranks. FORMAT with a message saying what is
 * missing for one rank and when no two ranks share an anchor (no
 * collectives, no steps); a bad step pattern is USAGE. */
enum trex_status trex_rank_align(const struct trex_index *idx, const struct trex_align_opts *opts,
                                 struct trex_rank_align *out, struct trex_error *err);
void trex_rank_align_free(struct trex_rank_align *a);

/* The correction of every process of idx (trex_index_process_count,
 * malloc'd; for trex_index_fix_clocks): its rank's. */
enum trex_status trex_rank_align_fixes(const struct trex_index *idx,
                                       const struct trex_rank_align *a, struct trex_clock_fix **out,
                                       struct trex_error *err);

/* The clocks as a table, one row per rank in rank order:
 *   rank
 *   offset_ns   correction (aligned - original) at the mean time of its anchors
 *   drift_ppm   correction per second, in µs (0 when not measurable)
 *   anchors     anchors shared with other ranks
 *   rms_ns, max_ns  residuals
 *   note        "reference clock", "no drift measurable" (anchors too
 *               few or too close, or no slope), "no anchors shared with
 *               the reference: not aligned", a warning when residuals
 *               exceed 100 us (anchors likely mismatched), or "" */
enum trex_status trex_rank_align_table(const struct trex_index *idx,
                                       const struct trex_rank_align *a, struct trex_table *t,
                                       struct trex_error *err);

/* ---- stragglers ---------------------------------------------------------------------------
 * On the index's clock (align it first: trex_index_fix_clocks), for every
 * collective (communicator and position, as above) and every step (name
 * and occurrence) that at least two ranks have: each rank arrives at a
 * collective when its kernel starts and at a step's end when its step
 * ends; the last to arrive held the others up. Rows of the events table,
 * largest total wait first (then time):
 *   last_rank   the rank that arrived last (the lowest of a tie)
 *   wait_sum_ns, wait_max_ns  over the other ranks: last arrival - theirs
 *   late_ns     how long after the next latest rank it arrived
 *   ranks       ranks taking part
 *   at_ns       the last arrival, from the trace start
 *   kind        "collective" or "step"
 *   group       communicator ("Process Group Name", "" without), or ""
 *   event       "#N NAME" (N: the collective's position in its
 *               communicator, from 1; NAME: the kernel's, or the step's)
 * The ranks table, largest wait caused first (then rank):
 *   rank, last (events where it arrived last), collectives_last,
 *   steps_last, wait_caused_ns (the wait sums of those events),
 *   late_max_ns (its largest late_ns)
 * *slices (may be NULL) receives, per events row, the slice of the last
 * arrival (malloc'd). FORMAT as trex_rank_align says for missing events. */
enum trex_status trex_stragglers_tables(const struct trex_index *idx, const char *step_pattern,
                                        struct trex_table *events, struct trex_table *ranks,
                                        uint32_t **slices, struct trex_error *err);

#endif
