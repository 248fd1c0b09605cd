/* Search and filter over slice names: one PCRE2 pattern matched once per
 * distinct name string (a bitmap over string ids), then the matching slices
 * collected per lane. Each lane's matches keep the lane's time order, so
 * "which matches touch [lo, hi) of this lane" is two binary searches and
 * "the next match after here, across all tracks" costs O(lanes x log n),
 * never a walk over the trace. */
#ifndef TREX_ANALYSIS_SEARCH_H
#define TREX_ANALYSIS_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_search; /* opaque, read-only once made */

/* Compiles pattern (UTF-8; caseless when it has no upper-case letter:
 * "smart case") and collects the slices whose name matches it. When within
 * is not NULL, a name must match within's pattern too (search inside a
 * filter). Errors: USAGE with err->offset the pattern offset and PCRE2's
 * message ("missing closing parenthesis at offset 4"); NOMEM. */
enum trex_status trex_search_new(const struct trex_index *idx, const char *pattern,
                                 const struct trex_search *within, struct trex_search **out,
                                 struct trex_error *err);
void trex_search_free(struct trex_search *s);

/* The pattern as given. */
const char *trex_search_pattern(const struct trex_search *s);
/* Number of matching slices. */
uint32_t trex_search_count(const struct trex_search *s);
/* Whether string id name / slice id matches. */
bool trex_search_name_matches(const struct trex_search *s, uint32_t name);
bool trex_search_slice_matches(const struct trex_search *s, uint32_t slice);

/* The matching slice ids of lane (ascending, so in the lane's time order);
 * *n receives how many. */
const uint32_t *trex_search_lane(const struct trex_search *s, uint32_t lane, uint32_t *n);
/* Positions [*begin, *end) in trex_search_lane()'s array of the matches
 * touching [lo, hi) (as trex_lane_find_*: a zero-length slice at lo
 * counts, a slice ending exactly at lo does not). */
void trex_search_lane_range(const struct trex_search *s, uint32_t lane, int64_t lo, int64_t hi,
                            uint32_t *begin, uint32_t *end);
/* Whether track has a match on any of its lanes. */
bool trex_search_track_has_match(const struct trex_search *s, uint32_t track);

/* A place in the order n/N walk: (ts, track, depth, slice id). */
struct trex_search_pos {
	int64_t ts;
	uint32_t track, depth, slice;
};
/* The position of slice id. */
struct trex_search_pos trex_search_pos_of(const struct trex_index *idx, uint32_t slice);
/* The first match after pos / the last match before pos, across all
 * tracks, in (ts, track, depth, id) order; TREX_NONE if none. */
uint32_t trex_search_next(const struct trex_search *s, const struct trex_search_pos *pos);
uint32_t trex_search_prev(const struct trex_search *s, const struct trex_search_pos *pos);
/* How many matches come before pos (so a match's 1-based rank is this + 1). */
uint32_t trex_search_rank(const struct trex_search *s, const struct trex_search_pos *pos);

/* The same walk, rank and count over the lanes l with lanes[l] != 0 only
 * (what a view draws); lanes NULL: every lane, as the functions above. */
uint32_t trex_search_next_in(const struct trex_search *s, const struct trex_search_pos *pos,
                             const uint8_t *lanes);
uint32_t trex_search_prev_in(const struct trex_search *s, const struct trex_search_pos *pos,
                             const uint8_t *lanes);
uint32_t trex_search_rank_in(const struct trex_search *s, const struct trex_search_pos *pos,
                             const uint8_t *lanes);
uint32_t trex_search_count_in(const struct trex_search *s, const uint8_t *lanes);

/* ---- patterns over other texts (track and rank labels) ------------------------------- */

/* One pattern compiled with the rules of trex_search_new (PCRE2, UTF-8,
 * smart case), matched against any text. Errors as trex_search_new's. */
struct trex_pattern;
enum trex_status trex_pattern_new(const char *pattern, struct trex_pattern **out,
                                  struct trex_error *err);
void trex_pattern_free(struct trex_pattern *p);
/* The pattern as given. */
const char *trex_pattern_text(const struct trex_pattern *p);
/* Whether text (NUL-terminated UTF-8) contains a match. Not thread-safe
 * for one p (it reuses its match data). */
bool trex_pattern_match(struct trex_pattern *p, const char *text);

#endif
