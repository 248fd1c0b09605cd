/* The frozen index's layout, shared by index_build.c (writes it once) and
 * index.c (reads it). Not part of any contract outside src/core. */
#ifndef TREX_CORE_INDEX_INTERNAL_H
#define TREX_CORE_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "trex/core/clock.h"
#include "trex/core/index.h"
#include "builder_internal.h"
#include "integrity_internal.h"

/* Per file: the contiguous ranges its tracks and slices occupy (tracks are
 * numbered file by file, slices track by track), and its slices with a
 * launch / op link in launch_ids / op_ids. */
struct trex_file_links {
	uint32_t first_track, track_count;
	uint32_t first_slice, slice_count;
	size_t launch_first, launch_count;
	size_t op_first, op_count;
};

/* What only some slices have (trex_slice_launch_link, ...): one table per
 * field. A bit per slice says whether it has a value; the values of the
 * slices that have one follow in slice id order, and per 64 slices the
 * count of values before them finds a slice's value in O(1) (a popcount
 * within its word). 1.5 bits a slice, plus 4 bytes a value; a table
 * without values has no bits either (words 0). */
enum trex_side_field {
	TREX_SIDE_LAUNCH_LINK,
	TREX_SIDE_OP_LINK,
	TREX_SIDE_SHAPE,
	TREX_SIDE_COMM,
	TREX_SIDE_COUNT
};

struct trex_side_table {
	uint64_t *bits;   /* words: bit i % 64 of word i / 64 set when slice i has one */
	uint32_t *before; /* words: values of the slices below word w's first */
	uint32_t *values; /* n */
	size_t words, n;
};

/* Words of a table over nslices slices that has values. */
static inline size_t trex_side_words(size_t nslices)
{
	return (nslices + 63) / 64;
}

struct trex_index {
	struct trex_strtab *strs;
	struct trex_file *files;
	struct trex_file_links *links;
	uint32_t nfiles;
	uint32_t nprocs, ntracks, nlanes, nsamples;
	struct trex_process *procs;
	struct trex_track *tracks;
	struct trex_lane *lanes;
	struct trex_vec slices;   /* struct trex_slice, by (track, depth, ts) */
	struct trex_vec instants; /* struct trex_instant, by (track, ts) */
	struct trex_vec flows;    /* struct trex_flow, in file order of each hop's end */
	/* Per flow, the id it had in its file (trex_flow_id): the number or
	 * string id, and FLOW_ID_* bits (kind, chained). */
	uint64_t *flow_id_val;
	uint8_t *flow_id_how;
	size_t flow_ids_cap;
	struct trex_counter_sample *samples;
	/* Slice ids with HAS_LAUNCH_LINK (HAS_OP_LINK), per file ordered by
	 * (launch_link, id) ((op_link, id)); ranges in links. The keys beside
	 * the launch ids hold each one's link, so that a lookup searches a
	 * compact array rather than reading a slice at every probe: the launch
	 * link << 1 | 1 for a runtime call (kinds are the loader's: classifiers
	 * never make or unmake runtime calls). An op id's link is read from
	 * the op link side table (O(1), without reading the slice): keys
	 * beside them would cost 4 bytes an op link more. */
	uint32_t *launch_ids, *op_ids;
	uint64_t *launch_keys;
	/* The side tables of the slices' sparse fields (owned by a built
	 * index, in the mapping of an opened one). */
	struct trex_side_table side[TREX_SIDE_COUNT];
	/* Flow ids ordered by (from_slice, id) and by (to_slice, id): the
	 * leaving and entering sides of flows_of. */
	uint32_t *flows_out, *flows_in;
	/* Dependencies ordered by (from, to), and their ids by (to, id). */
	struct trex_edge *edges;
	uint32_t nedges;
	uint32_t *edges_in;
	struct trex_graph *graph; /* trex_build_input.graph, owned; NULL: none */
	int64_t start, end;
	/* Per file: its integrity examples, ordered by counter. */
	struct trex_problem_list *problems;
	/* Per file: its top-level members (trex_file_member). */
	struct trex_member_list *members;
	/* Opened from an index file (index_file.c): the arrays, strings and
	 * examples lie in its mapping, which this owns; only files, problems,
	 * members, the vectors' block directories and the string table's
	 * header are the index's own. NULL for a built index. */
	struct trex_index_file *mapped;
	/* Per process, the clock correction applied to its times (clock.h);
	 * NULL: times as loaded. */
	struct trex_clock_fix *clock_fix;
};

/* Frees an index opened from an index file (index_file.c). */
void trex_index_file_release(struct trex_index *idx);

/* flow_id_how: the kind (enum trex_flow_id_kind) in the low bits. */
#define FLOW_ID_KIND_MASK 3u
#define FLOW_ID_CHAINED 4u

static inline const struct trex_slice *trex_idx_slice(const struct trex_index *idx, uint32_t id)
{
	return TREX_VEC_AT(&idx->slices, const struct trex_slice, id);
}

static inline const struct trex_flow *trex_idx_flow(const struct trex_index *idx, uint32_t id)
{
	return TREX_VEC_AT(&idx->flows, const struct trex_flow, id);
}

/* Bits set in x. Written out: without a -m flag for the popcnt
 * instruction, __builtin_popcountll is a call into libgcc. */
static inline unsigned trex_popcount64(uint64_t x)
{
	x -= (x >> 1) & UINT64_C(0x5555555555555555);
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* How many slices below slice have a value in t (slice < 64 * t->words). */
static inline size_t trex_side_rank(const struct trex_side_table *t, uint32_t slice)
{
	uint64_t below = t->bits[slice / 64] & ((UINT64_C(1) << (slice % 64)) - 1);

	return t->before[slice / 64] + trex_popcount64(below);
}

/* The value of slice in side table field, none if it has none. */
static inline uint32_t trex_side_get(const struct trex_index *idx, enum trex_side_field field,
                                     uint32_t slice, uint32_t none)
{
	const struct trex_side_table *t = &idx->side[field];
	size_t w = slice / 64;
	uint64_t word;

	if (w >= t->words)
		return none;
	word = t->bits[w];
	if (!((word >> (slice % 64)) & 1))
		return none;
	return t->values[trex_side_rank(t, slice)];
}

/* ts + dur without overflow. */
static inline int64_t trex_slice_end(const struct trex_slice *s)
{
	int64_t end;

	if (__builtin_add_overflow(s->ts, s->dur, &end))
		return INT64_MAX;
	return end;
}

#endif
