/* Integrity examples on their way into the index (index.h): the lists a
 * builder and the index keep per file, and the candidates the build's
 * stages collect for their own counters. Shared by builder.c,
 * index_build.c, index_problems.c and integrity.c; no contract outside
 * src/core. */
#ifndef TREX_CORE_INTEGRITY_INTERNAL_H
#define TREX_CORE_INTEGRITY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/core/index.h"

/* A file's (or a builder's) kept examples: at most TREX_PROBLEM_EXAMPLES
 * per counter, in the order they were added; largest is the longest
 * damaged span seen, kept or not. first[] is valid after
 * trex_problems_finish (v then ordered by counter). */
struct trex_problem_list {
	struct trex_problem *v;
	uint32_t n, cap;
	uint8_t per[TREX_INTEG_COUNT];
	uint32_t first[TREX_INTEG_COUNT + 1];
	struct trex_problem largest;
	bool has_largest;
};

/* Whether p is a damaged span: a skipped spot (syntax_errors, and its
 * copies under bytes_skipped and events_lost) or an ignored cut tail
 * (bytes_ignored). */
bool trex_problem_is_span(const struct trex_problem *p);

/* Adds p as an example of its counter unless that counter has
 * TREX_PROBLEM_EXAMPLES already; a span noted under syntax_errors is also
 * an example of bytes_skipped (length > 0) and of events_lost (events > 0),
 * one under bytes_ignored also of events_lost. Spans are offered as the
 * largest whether kept or not. False when out of memory. */
bool trex_problems_add(struct trex_problem_list *l, const struct trex_problem *p);
/* Keeps p as the largest span when it is longer than the one kept. */
void trex_problems_offer_largest(struct trex_problem_list *l, const struct trex_problem *p);
/* Orders the examples by counter, keeping their order within one, and
 * fills first[]. */
void trex_problems_finish(struct trex_problem_list *l);
void trex_problems_free(struct trex_problem_list *l);

/* A problem one of the build's stages found, before it becomes an example:
 * where in time (index clock), on which track (display order once the
 * tracks are ordered), the event's name, and a value that tells it apart
 * (a clamped duration, a flow id, ...). */
struct trex_problem_cand {
	int64_t ts;
	int64_t value;
	uint32_t track, name;
};

/* The earliest candidates of one counter, by (ts, track, name, value): the
 * same set whichever way the work was split among threads. */
struct trex_earliest {
	struct trex_problem_cand c[TREX_PROBLEM_EXAMPLES];
	uint32_t n;
};

void trex_earliest_offer(struct trex_earliest *e, const struct trex_problem_cand *cand);
void trex_earliest_merge(struct trex_earliest *dst, const struct trex_earliest *src);

/* ---- from builders to the index (index_build.c) ---- */

struct trex_index;

/* Adds a part's examples to its file's, in order, with the part's string
 * and track ids mapped (smap/tmap: local id -> global, ns/nt entries; ids
 * out of range become TREX_NONE) and base added to times. */
bool trex_problems_merge_part(struct trex_problem_list *file, const struct trex_problem_list *part,
                              const uint32_t *smap, uint32_t ns, const uint32_t *tmap, uint32_t nt,
                              int64_t base);
/* Tracks renumbered for display: track = track_new[track]. */
void trex_problems_remap_tracks(struct trex_problem_list *l, const uint32_t *track_new,
                                uint32_t ntracks);
void trex_earliest_remap_tracks(struct trex_earliest *e, const uint32_t *track_new,
                                uint32_t ntracks);
/* The build's candidates of counter k as examples, after the file's own. */
bool trex_problems_add_cands(struct trex_problem_list *l, enum trex_integrity_counter k,
                             const struct trex_earliest *e);
/* Once the index is built: the slice of each example about a kept event
 * (found by track, ts and name), line:col and compressed offsets of the
 * examples with a position (one pass over the file), and the order by
 * counter. Errors reading the source leave positions unknown. */
void trex_problems_complete(struct trex_index *idx, uint32_t file);

#endif
