/* Two runs on one time axis (`trex A --compare B`): where run B's events
 * are drawn on run A's clock. A B time t reads t + offset on A's axis;
 * the offset makes one point of B coincide with one point of A: the
 * start of a ProfilerStep both have, the n-th slice of a name, or the
 * traces' starts. Pure functions of the two indexes (no curses). */
#ifndef TREX_ANALYSIS_RUN_ALIGN_H
#define TREX_ANALYSIS_RUN_ALIGN_H

#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

enum trex_run_align_kind {
	TREX_RUN_ALIGN_START, /* the traces' starts (trex_index_start) coincide */
	TREX_RUN_ALIGN_STEP,  /* ProfilerStep#step starts together */
	TREX_RUN_ALIGN_SLICE, /* the nth slice named like a_slice starts together */
};

struct trex_run_align {
	enum trex_run_align_kind kind;
	int64_t offset;            /* ns added to B's times to read them on A's axis */
	int64_t a_ts, b_ts;        /* the points made to coincide, each on its own clock */
	uint64_t step;             /* STEP: the step number */
	uint32_t nth;              /* SLICE: 1-based occurrence of the name in each run */
	uint32_t a_slice, b_slice; /* STEP, SLICE: the slices aligned; START: TREX_NONE */
};

/* A step is a cpu_op or user_annotation slice (kinds CPU_OP, ANNOTATION)
 * named "ProfilerStep#N" (N decimal); its start is the earliest start of
 * that name over all ranks of the run. */

/* Aligns the traces' starts. */
void trex_run_align_start(const struct trex_index *a, const struct trex_index *b,
                          struct trex_run_align *out);

/* Aligns at ProfilerStep#step; with step < 0 at the lowest step number
 * both runs have. USAGE (the message says which run lacks it, or that
 * they share no step) when there is none; NOMEM. out is set only on OK. */
enum trex_status trex_run_align_step(const struct trex_index *a, const struct trex_index *b,
                                     int64_t step, struct trex_run_align *out,
                                     struct trex_error *err);

/* The default: the first step both runs have, else the traces' starts. */
void trex_run_align_default(const struct trex_index *a, const struct trex_index *b,
                            struct trex_run_align *out);

/* The 1-based occurrence of slice among the slices of idx with its name,
 * in start order (ties by slice id); 0 when slice is not a slice id. */
uint32_t trex_run_align_nth(const struct trex_index *idx, uint32_t slice);

/* Aligns the nth (1-based) slice named name in A with the nth in B
 * (occurrences counted as trex_run_align_nth counts them). USAGE (which
 * run has fewer than nth) when either lacks it; NOMEM. */
enum trex_status trex_run_align_name(const struct trex_index *a, const struct trex_index *b,
                                     const char *name, uint32_t nth, struct trex_run_align *out,
                                     struct trex_error *err);

/* What out aligns, for the status line: "ProfilerStep#1009",
 * "aten::mm #2", "trace start". */
void trex_run_align_describe(const struct trex_index *a, const struct trex_run_align *al, char *buf,
                             size_t size);

#endif
