/* What rank alignment and stragglers share (private to src/analysis): the
 * ranks of an index and the events every rank has, matched across ranks
 * (rank_align.h describes the model). */
#ifndef TREX_ANALYSIS_RANK_EVENTS_H
#define TREX_ANALYSIS_RANK_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/rank_align.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* The ranks: one per (file, process rank), in that order. */
struct rank_units {
	uint32_t n;
	uint32_t *of_process; /* process id -> unit */
	uint32_t *file;       /* unit -> file */
	int64_t *rank;        /* unit -> rank */
};

/* One rank's part in an event: a collective's kernel or a step. */
struct rank_event {
	uint32_t unit;
	uint32_t group; /* rank_events.groups id: the communicator, or the step's name */
	/* its event in the group: collectives, the position in the group of
	 * the rank with most of them that matches it (negative: before that
	 * rank's first); steps, the occurrence of the name on the rank */
	int32_t seq;
	uint32_t name; /* string id of the kernel's (step's) name */
	uint32_t slice;
	int64_t start, end;
	bool step;
	bool mismatched; /* its name is not its event's (left out) */
};

/* Events ordered by (group, seq, unit): one matched event is a run
 * of equal (group, seq). */
struct rank_events {
	struct rank_event *v;
	size_t n, cap;
	char **groups; /* group names, malloc'd */
	uint32_t ngroups;
	size_t groups_cap;
	uint64_t mismatched;
};

enum trex_status rank_units_of(const struct trex_index *idx, struct rank_units *u,
                               struct trex_error *err);
void rank_units_free(struct rank_units *u);

/* The collectives (collectives true) or steps of every unit, matched and
 * ordered as above; mismatched ones flagged. */
enum trex_status rank_events_collect(const struct trex_index *idx, const struct rank_units *u,
                                     bool collectives, const char *step_pattern,
                                     struct rank_events *ev, struct trex_error *err);
void rank_events_free(struct rank_events *ev);

/* The end of the run of events matched with ev->v[i] (one past it). */
size_t rank_events_run_end(const struct rank_events *ev, size_t i);

/* FORMAT: fewer than two ranks, or none with what (e.g. "collectives"):
 * a message saying so and what to give instead. */
enum trex_status rank_events_missing(const struct trex_index *idx, const struct rank_units *u,
                                     const char *what, const char *hint, struct trex_error *err);

#endif
