/* Dropping a file's time outliers from its builders before the build
 * merges them (outliers.c has the rule). Private to src/core. */
#ifndef TREX_CORE_OUTLIERS_H
#define TREX_CORE_OUTLIERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder_internal.h"

enum trex_outlier_kind {
	OUTLIER_SLICE,  /* a complete slice */
	OUTLIER_PAIRED, /* a begun slice or an end */
	OUTLIER_KEYED,  /* a keyed slice, end or instant */
	OUTLIER_INSTANT,
	OUTLIER_SAMPLE,
	OUTLIER_FLOW,
};

/* One dropped record: which part and kind of record, its start and
 * (complete slice) duration on the file's clock, its part-local track and name (TREX_NONE
 * when the record has none), the file offset when known (-1), whether it
 * went for its duration rather than its start, and the range of starts
 * that were kept. */
struct trex_outlier {
	size_t part;
	int kind;
	int64_t ts, dur, at;
	uint32_t track, name;
	bool by_dur;
	int64_t keep_lo, keep_hi; /* the starts kept: the file's bulk */
};

typedef void (*trex_outlier_fn)(void *user, const struct trex_outlier *o);

/* Removes the time outliers of one file's parts (in file order) from their
 * record vectors, calling fn for each, and updates each part's latest end;
 * what names slices by place (handles) follows them. Returns false when
 * out of memory. */
bool trex_drop_time_outliers(struct trex_builder *const *parts, size_t n, trex_outlier_fn fn,
                             void *user);

#endif
