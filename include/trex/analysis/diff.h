/* Comparing two runs (`trex diff A B`): what changed between index A (the
 * base) and index B. Every function here is a function of the two indexes
 * and returns a struct trex_table, as the other analyses do; the sequence
 * alignment is also a plain function of two id arrays (trex_diff_align). */
#ifndef TREX_ANALYSIS_DIFF_H
#define TREX_ANALYSIS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* X(ID, "name", "help"): the normalising rules that names (kernels, ops)
 * are matched through, besides exact matching. Applied in this order. */
#define TREX_DIFF_NORM_INFO(X)                                                                     \
	X(HEX, "hex", "hexadecimal addresses 0x7f3a... become 0x?")                                \
	X(TEMPLATE, "template", "digits inside template arguments <...> become N: gemm<128, 2>")   \
	X(DIGITS, "digits", "every run of digits becomes N: triton_poi_fused_add_17")

enum trex_diff_norm {
#define TREX_DIFF_NORM_ENUM(id, name, help) TREX_DIFF_NORM_##id##_BIT,
	TREX_DIFF_NORM_INFO(TREX_DIFF_NORM_ENUM)
#undef TREX_DIFF_NORM_ENUM
	    TREX_DIFF_NORM_COUNT
};
#define TREX_DIFF_NORM_HEX (1u << TREX_DIFF_NORM_HEX_BIT)
#define TREX_DIFF_NORM_TEMPLATE (1u << TREX_DIFF_NORM_TEMPLATE_BIT)
#define TREX_DIFF_NORM_DIGITS (1u << TREX_DIFF_NORM_DIGITS_BIT)
#define TREX_DIFF_NORM_ALL ((1u << TREX_DIFF_NORM_COUNT) - 1)

/* "exact" (0), a rule name, "all", or a comma list of rule names -> a set
 * of rules; false (and *out untouched) for anything else. */
bool trex_diff_norm_parse(const char *s, unsigned *out);
/* The rules as the output states them: "exact", "hex,template", ...
 * (buf returned). */
const char *trex_diff_norm_text(unsigned rules, char *buf, size_t size);
/* name[0..len) through the rules into out (at most size - 1 bytes and a
 * NUL; a longer result is cut); returns its length. Rules:
 *   hex      "0x" and one or more hex digits -> "0x?"
 *   template a run of digits at template depth >= 1 ('<' opened, '>' not
 *            yet closed; "operator<" and "<<" have no depth) -> "N"
 *   digits   every run of digits -> "N" (hex addresses first when hex is
 *            also asked for, so "0x1f" stays one "0x?"). */
size_t trex_diff_normalize(const char *name, size_t len, unsigned rules, char *out, size_t size);

struct trex_catset;

struct trex_diff_opts {
	unsigned normalize;       /* trex_diff_norm bits; 0: names matched exactly */
	int64_t min_change_ns;    /* rows that changed less (|delta total|) are left out; 0 */
	double min_change_pct;    /* ... or less than this % of A's total; 0: none */
	const char *step_pattern; /* steps: PCRE2 (trex_steps_table), NULL: ProfilerStep# */
	const struct trex_catset *catset; /* categories: NULL: the built-in rules */
	unsigned threads; /* above 1: the two sides worked on at once (same results); 0: one */
};

/* What is compared, one row per name (kernels, ops) or category. */
enum trex_diff_by {
	TREX_DIFF_KERNELS,    /* GPU kernels (kind KERNEL, as `trex kernels` counts them) */
	TREX_DIFF_OPS,        /* CPU ops (kind CPU_OP, as `trex ops`), inclusive time */
	TREX_DIFF_CATEGORIES, /* device work by category, as `trex categories` decides it */
};

/* One row per name (through opts->normalize) or category present on
 * either side, over every rank of each side together:
 *   status       new (only in B), gone (only in A), same (count and total
 *                equal), changed
 *   delta_ns     total B - total A
 *   delta_pct    delta / total A * 100 (NaN when A has none)
 *   a_total_ns, b_total_ns, a_count, b_count, a_avg_ns, b_avg_ns
 *   avg_delta_pct  (avg B - avg A) / avg A * 100 (NaN unless both have it)
 *   a_p95_ns, b_p95_ns  nearest rank, as `trex kernels` (NaN: no instance)
 *   name         the name (normalized: key "name_normalized", title says
 *                the rules) or category
 * Sorted by |delta| descending, then name. Rows that changed less than
 * opts->min_change_* are left out; *hidden (may be NULL) says how many.
 * Without anything to compare on either side, no row and t->note says
 * why, naming the side (A or B). */
enum trex_status trex_diff_table(const struct trex_index *a, const struct trex_index *b,
                                 enum trex_diff_by by, const struct trex_diff_opts *opts,
                                 struct trex_table *t, size_t *hidden, struct trex_error *err);

/* The two runs in a few rows: what, a_count, b_count, a_ns, b_ns,
 * delta_ns, delta_pct (NaN where it means nothing):
 *   files        input files (counts only)
 *   span         trace span, first start to last end
 *   kernels      GPU kernel instances and their summed time
 *   memcpy/memset  copies and sets, their summed time
 *   GPU busy     the union of all device work of every GPU (its length
 *                per device, summed over devices)
 *   steps        steps (as trex_steps_table finds them) and their time
 *   kernel names distinct names (through opts->normalize)
 *   new names, gone names  names only in B, only in A. */
enum trex_status trex_diff_summary_table(const struct trex_index *a, const struct trex_index *b,
                                         const struct trex_diff_opts *opts, struct trex_table *t,
                                         struct trex_error *err);

/* Step n of A against step n of B, per rank: the steps of each rank in
 * start order (trex_steps_table), matched by position, so a run whose
 * step numbers moved (ProfilerStep#1009 against #20) still lines up.
 * Columns: status (changed, same, gone: only A has an n-th step of that
 * rank, new: only B), rank, step (n, 0-based); for dur, busy, compute,
 * comm and idle (as trex_steps_table has them): a_X_ns, b_X_ns,
 * X_delta_ns, dur's three followed by dur_delta_pct; then a_step and
 * b_step (the names; "" on the side without the step, whose numbers are
 * NaN). When the counts differ, the extra steps are rows of
 * their own and t->note says how many each side has. Steps on both sides
 * whose time changed less than opts->min_change_* are left out, counted
 * in *hidden (may be NULL). A bad step pattern is USAGE. */
enum trex_status trex_diff_steps_table(const struct trex_index *a, const struct trex_index *b,
                                       const struct trex_diff_opts *opts, struct trex_table *t,
                                       size_t *hidden, struct trex_error *err);

/* ---- sequence alignment ------------------------------------------------------------------ */

/* One run of an edit script: len elements of a from a_pos matched with len
 * of b from b_pos (MATCH), or len elements of a removed (DEL, b_pos: where
 * they would stand in b) or len elements of b added (INS, a_pos: where). */
enum trex_diff_edit_kind { TREX_DIFF_MATCH, TREX_DIFF_DEL, TREX_DIFF_INS };
struct trex_diff_edit {
	enum trex_diff_edit_kind kind;
	size_t a_pos, b_pos, len;
};
struct trex_diff_script {
	struct trex_diff_edit *v;
	size_t n, cap;
	bool approximate; /* the cost cap was hit: a valid script, not a shortest one */
};

/* An edit script turning a[0..na) into b[0..nb): Myers' O((N + M) D)
 * algorithm in linear space (the middle snake, divide and conquer) after
 * the common prefix and suffix are cut at every level, so similar
 * sequences (few edits D) take near-linear time. Two limits keep very
 * different sequences from taking O(N M): a search whose cost passes
 * about sqrt(N + M) (at least 4096) splits at the furthest point either
 * direction reached (GNU diff's heuristic), and once all searches
 * together have done 64 (N + M) + 2^24 steps, what is left of each part
 * is taken as removed and added whole. The script is then valid but
 * maybe not shortest, and says so (approximate). Runs come in order,
 * adjacent runs of one kind merged; within a replaced block the DEL run
 * comes before the INS run. */
enum trex_status trex_diff_align(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                                 struct trex_diff_script *out, struct trex_error *err);
void trex_diff_script_free(struct trex_diff_script *s);

/* The kernels of each GPU stream in launch order (start, then id),
 * aligned between A and B by name (through opts->normalize); streams are
 * matched by rank, device name and stream name. Rows, by rank, device,
 * stream, then position: the runs of
 *   removed  kernels of A missing in B
 *   added    kernels of B missing in A
 *   changed  consecutive matched kernels whose duration changed by at
 *            least opts->min_change_ns or opts->min_change_pct % of A's
 *            (both 0: 10 %)
 * Columns: status, rank, stream ("GPU 0 stream 7"), a_pos, b_pos (0-based
 * positions in the stream's sequences: where the run is or would be),
 * kernels, a_start_ns, b_start_ns (the run's first kernel from each trace
 * start; NaN on the side that lacks it), a_total_ns, b_total_ns, delta_ns,
 * name (the first kernel's; " (+N other names)" when the run has more).
 * *streams (may be NULL) receives one row per stream: rank, stream,
 * a_kernels, b_kernels, matched, removed, added, changed, a_total_ns,
 * b_total_ns, delta_ns, alignment ("shortest", "approximate", "A only",
 * "B only"). */
enum trex_status trex_diff_sequence_table(const struct trex_index *a, const struct trex_index *b,
                                          const struct trex_diff_opts *opts, struct trex_table *t,
                                          struct trex_table *streams, struct trex_error *err);

#endif
