/* What the parts of the run comparison (analysis/diff.h) share: the
 * matched names of both sides. Not a public contract. */
#ifndef TREX_ANALYSIS_DIFF_INTERNAL_H
#define TREX_ANALYSIS_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "trex/analysis/diff.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* Keys: the names of both sides through the normalising rules, interned
 * in one table, so that equal keys are equal ids. Side 0 is A, 1 is B. */
struct diff_keys {
	unsigned rules; /* trex_diff_norm bits */
	struct trex_strtab *tab;
	struct {
		const struct trex_index *idx;
		uint32_t *of_name; /* per name id of idx: key + 1, 0: not yet known */
	} side[2];
	char *buf; /* normalising room */
	size_t buf_cap;
};

enum trex_status diff_keys_init(struct diff_keys *k, unsigned rules);
void diff_keys_free(struct diff_keys *k);
/* Makes side (0 or 1) ready for the names of idx. */
enum trex_status diff_keys_bind(struct diff_keys *k, int side, const struct trex_index *idx);
/* The key of name id name of side; TREX_STR_ERROR when out of memory. */
uint32_t diff_keys_name(struct diff_keys *k, int side, uint32_t name);
/* The key of a text taken as is (categories); TREX_STR_ERROR when out of memory. */
uint32_t diff_keys_text(struct diff_keys *k, const char *s, size_t len);
uint32_t diff_keys_count(const struct diff_keys *k);
const char *diff_keys_str(const struct diff_keys *k, uint32_t key);

/* Is a change of delta from a below opts' thresholds (min_change_ns,
 * min_change_pct of |a|)? Never with neither set. */
bool diff_below_threshold(const struct trex_diff_opts *o, double a, double delta);
/* (b - a) / a * 100; NaN when a is 0. */
double diff_change_pct(double a, double b);

/* t->note "A: no GPU kernels: ...; B: ..." for the sides with nothing to
 * compare (n[side] items of what by counts); no note when both have some. */
enum trex_status diff_empty_note(const struct trex_index *const idx[2], enum trex_diff_by by,
                                 const size_t n[2], struct trex_table *t);

#endif
