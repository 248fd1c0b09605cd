/* What the gaps, steps and ops analyses share (private to src/analysis):
 * the device label, a per-category kind cache, and duration statistics. */
#ifndef TREX_ANALYSIS_VIEWS_UTIL_H
#define TREX_ANALYSIS_VIEWS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/analysis/work.h"
#include "trex/core/index.h"
#include "trex/core/kind.h"

/* The label of a GPU device (process) in these tables: the one gpu-time
 * prints today, so that one place switches when devices get names of
 * their own. Written to buf, returned. */
const char *views_device_label(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size);

/* t from the start of the trace (trex_index_start), as a table cell:
 * exact below 2^53 ns, and no overflow whatever the times. */
double views_from_start(const struct trex_index *idx, int64_t t);

/* Copies s into t's arena: NULL when out of memory. */
const char *views_text(struct trex_table *t, const char *s);

/* A slice's kind, as the build stored it. */
static inline enum trex_kind views_kind(const struct trex_index *idx, uint32_t slice)
{
	return (enum trex_kind)trex_index_slice(idx, slice)->kind;
}

/* Statistics of n >= 1 durations sorted ascending: med is the mean of the
 * two middle values for even n, p95 the nearest rank (the ceil(95 n /
 * 100)-th smallest), sd the sample standard deviation (n - 1; 0 for one). */
struct views_stats {
	__int128 sum;
	double avg, med, sd;
	int64_t min, max, p95;
};
void views_stats_of(const int64_t *sorted, size_t n, struct views_stats *out);
/* Sorts v[0..n) ascending. */
void views_sort_i64(int64_t *v, size_t n);
/* Sorts v[0..n) (elements of size bytes) by cmp, stably, by merging the
 * ascending runs it already holds: about n log2(runs) comparisons, so
 * slices gathered lane by lane (each lane sorted by start) cost a pass or
 * two, and any other order what a merge sort costs. false when out of
 * memory (v is then as it was). */
bool views_sort_runs(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));

struct views_span {
	int64_t ts, end;
};
/* Merges v[0..n) (sorted by ts) in place into *merged (may be NULL)
 * disjoint spans; returns the length of their union. */
int64_t views_union(struct views_span *v, size_t n, size_t *merged);
/* Length of the intersection of two sorted, disjoint span lists. */
int64_t views_overlap(const struct views_span *a, size_t na, const struct views_span *b, size_t nb);

#endif
