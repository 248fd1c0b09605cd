/* trex_index_build() in stages, one file each, sharing this state:
 *
 *  1. merge (build_merge.c, build_flows.c), file by file: the parts'
 *     strings, processes and tracks are mapped to global ones (serially:
 *     unique ones are few); then, one task per part, their slices are made
 *     global where they are and their flow points put in the file's lists;
 *     then, serially in file order, full blocks of slices move into the
 *     store without copying (the last partial block was copied by the
 *     task), begun and keyed slices are paired with their ends, instants
 *     and samples are copied, and each builder is freed. At the end of a
 *     file what is open is closed, flow points are chained into hops and
 *     launch edges give slices their links;
 *  2. order (build_order.c): processes and tracks are sorted for display
 *     and renumbered;
 *  3. lanes (build_lanes.c): a counting sort by track, a sort per track by
 *     (ts, longer first, file order), depths by a stack of open ends (each
 *     slice learns its lane and its rank in it), lanes, then an in-place
 *     radix placement puts the store in (track, depth, ts) order;
 *     instants and samples sorted;
 *     then (build_narrow.c) the placed slices are narrowed in place into
 *     struct trex_slice, block by block on the threads, their sparse fields
 *     into the side tables;
 *  4. links (build_links.c): flows bound to slices, the link tables,
 *     dependency edges;
 *  5. classify: the loader's classifier refines kinds and decides
 *     communication.
 *
 * Where a stage runs tasks (trex_task_run), each writes only its own
 * outputs and these are combined in a fixed order; where slices are in the
 * store before placement does not matter (track, ts, dur and file order
 * alone decide where a slice goes), so the index is the same for any
 * number of threads. Private to src/core. */
#ifndef TREX_CORE_BUILD_INTERNAL_H
#define TREX_CORE_BUILD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index_internal.h"
#include "integrity_internal.h"
#include "trex/core/builder.h"

#define SL(v, id) TREX_VEC_AT((v), struct trex_bslice, (id))

/* trex_slice_end of a slice being built. */
static inline int64_t bld_slice_end(const struct trex_bslice *s)
{
	int64_t end;

	if (__builtin_add_overflow(s->ts, s->dur, &end))
		return INT64_MAX;
	return end;
}

/* Threads only pay off on large inputs. */
#define BLD_PAR_MIN_RECORDS ((size_t)1 << 16)

/* Deepest depth + 1 must fit trex_track.max_depth (uint16_t). */
#define BLD_DEPTH_LIMIT UINT16_MAX

/* A slice during the merge: its place in the store of whole blocks, or
 * (BLD_IN_REST) in rest, which joins the store after every file. */
typedef uint64_t bld_ref;
#define BLD_IN_REST ((bld_ref)1 << 63)
#define BLD_REF_NONE UINT64_MAX

struct gproc {
	int64_t sort_index, rank;
	uint32_t file, pid, name, labels;
	uint8_t has_name, has_labels, has_sort, has_rank, device;
};

struct gtrack {
	int64_t sort_index;
	uint32_t proc, key, name, parent;
	uint8_t cls, has_name, has_sort, gpu;
};

/* Open begun / keyed slices: per-key stacks linked through one pool. */
struct stack_ent {
	bld_ref slice;
	uint32_t prev;
};

/* A flow point, in file order, and its key, kept apart in partitions by
 * key hash so that matching runs in cache. A point on a slice (anchor)
 * takes that slice's track and time. */
struct fpoint {
	int64_t ts;
	bld_ref anchor; /* BLD_REF_NONE: bound by track and time */
	uint64_t id;    /* its key's number, or its string id (id_kind) */
	uint32_t track, name, cat;
	uint8_t role, bind, id_kind; /* enum trex_flow_id_kind */
};

struct fkey {
	uint64_t id;
	int64_t ts;
	uint32_t cat, id_str, seq;
	uint8_t role;
};

/* Flow points per key partition: about this many, so a partition's
 * matching table stays in cache. */
#define FLOW_PART_KEYS 4096
#define FLOW_PARTS_MAX 4096

/* How a flow's ends are bound once slices are placed (flow_how). */
enum {
	FLOW_FROM_STEP = 1,   /* the from point is a step (unbound: counted as an end already) */
	FLOW_TO_NEXT = 2,     /* the to point binds to the next slice, not the enclosing one */
	FLOW_FROM_ANCHOR = 4, /* the from point sits on a slice (flow_anchor) */
	FLOW_TO_ANCHOR = 8,
	FLOW_FROM_NEXT = 16, /* the from point binds to the next slice */
};

/* A flow end on a slice, until slices have their final ids. */
struct flow_anchor {
	uint32_t flow;
	bool to;
	bld_ref slice;
};

/* One part of the file being merged: its id maps, and what its records,
 * prepared on the build's threads, leave for the serial merge to apply. */
struct pmerge {
	uint32_t *smap, *pmap, *tmap; /* local string/process/track -> global */
	uint32_t ns, np, nt;
	uint64_t slice_base; /* file order of the part's first slice, over all files */
	size_t flow_first;   /* its first flow point in the file's list */
	size_t *fpos;        /* per partition: where its next key goes */
	uint8_t *gpu;        /* per local track: holds device work */
	uint64_t reversed;   /* complete slices clamped */
	uint64_t saturated;  /* complete slices whose end was clamped */
	struct trex_earliest reversed_ex, saturated_ex;
	struct trex_problem_list drops; /* its time outliers, as examples */
	uint32_t max_launch_link;
	bool has_launch_link;
	size_t full;     /* slices [0, full) move whole into the store ... */
	size_t store_at; /* ... to here */
	size_t tail_at;  /* slices [full, count) are copied to rest from here */
	bool anchored;   /* has flow points on slices */
	bool bad_id;
};

/* A run of rest: rest[at, at + n) holds slices of file order seq, seq + 1, ... */
struct seq_run {
	size_t at;
	uint64_t seq;
	size_t n;
};

/* An edge between two slices until slices have their final ids. */
struct edge_ref {
	bld_ref from, to;
	uint8_t kind; /* enum trex_edge_kind */
};

/* A slice that shows a graph node, until slices have their final ids. */
struct graph_ref {
	bld_ref slice;
	uint32_t node;
};

struct bld {
	const struct trex_build_input *in;
	struct trex_error *err;
	struct trex_index *idx;
	struct gproc *procs;
	uint32_t nprocs;
	size_t procs_cap;
	struct gtrack *tracks;
	uint32_t ntracks;
	size_t tracks_cap;
	struct trex_kmap proc_map, track_map;
	struct trex_vec samples; /* struct trex_bsample, global tracks */
	/* Slices being merged: parts' whole blocks move into idx->slices, so
	 * it only ever holds full blocks until the merge ends; the parts'
	 * partial last blocks are copied to rest, which joins idx->slices
	 * after the merge (bld_ref). */
	struct trex_vec rest;
	/* File order of the slices in the store, for ties in the sort:
	 * block_seq[k] is that of the first slice of store block k, seq_runs
	 * those of rest. */
	uint64_t *block_seq;
	size_t nblock_seq, block_seq_cap;
	struct seq_run *seq_runs;
	size_t nseq_runs, seq_runs_cap;
	size_t nfull;                 /* slices in whole blocks, once rest has joined */
	uint64_t slices_seen;         /* slices of the files merged so far */
	struct trex_integrity *integ; /* the build's own counts, per file */
	/* the build's own integrity examples, per file and counter: the
	 * earliest (tracks in display order once stage 2 renumbered them) */
	struct trex_earliest *cand;
	int64_t *file_end;
	struct pmerge *pm; /* the file's parts */
	size_t npm;
	/* the file being merged */
	uint32_t file, file_first_track;
	int64_t base;
	uint32_t next_launch_link; /* a new launch link of the file (launch edges) */
	uint32_t *be_top;          /* per global track: its open begun slices */
	size_t be_top_cap;
	struct stack_ent *pool;
	uint32_t pool_n, pool_free;
	size_t pool_cap;
	struct trex_kmap async_map; /* (proc, space), num, str -> async_tops index */
	uint32_t *async_tops;
	uint32_t nasync;
	size_t async_cap;
	struct fpoint *fpts; /* the file's flow points in order */
	size_t nfpts;
	struct fkey *fkeys;  /* their keys, grouped by partition (key hash) */
	size_t *fpart_first; /* nfparts + 1: where each partition's keys start */
	uint32_t nfparts;
	uint32_t *prev; /* per flow point: the point it continues, or NONE */
	bool bad_alloc; /* a callback ran out of memory */
	/* flows: how each binds, and the ends on slices */
	uint8_t *flow_how;
	size_t flow_how_cap;
	struct flow_anchor *anchors;
	size_t nanchors, anchors_cap;
	struct edge_ref *file_edges; /* the file's launch and flow edges, applied at its end */
	size_t nfile_edges, file_edges_cap;
	struct edge_ref *deps; /* dependencies, all files */
	size_t ndeps, deps_cap;
	struct graph_ref *graph_refs; /* slices that show graph nodes, all files */
	size_t ngraph_refs, graph_refs_cap;
	bool file_anchored; /* the file has flow points on slices */
	/* stage 2 results */
	uint32_t *track_new; /* old track id -> display order id */
	/* stage 3: each slice's final id, by store place (moves with the
	 * slice while it is placed) */
	uint32_t *slice_id;
};

/* ---- build.c: shared helpers ---- */

enum trex_status bld_nomem(struct bld *c);
/* "more than N slices, flows or flow points" for the file being merged. */
enum trex_status bld_too_many(struct bld *c);
/* arr grown to hold n > *cap elements of size elem (new space zeroed),
 * or NULL when out of memory (arr is then untouched). */
void *bld_grow(void *arr, size_t *cap, size_t n, size_t elem);
/* Makes array p (capacity cap elements) hold n; false when out of memory. */
#define BLD_FIT(p, cap, n)                                                                         \
	({                                                                                         \
		bool fits_ = (size_t)(n) <= (cap);                                                 \
		if (!fits_) {                                                                      \
			void *grown_ = bld_grow((p), &(cap), (n), sizeof(*(p)));                   \
			if (grown_) {                                                              \
				(p) = grown_;                                                      \
				fits_ = true;                                                      \
			}                                                                          \
		}                                                                                  \
		fits_;                                                                             \
	})
int64_t bld_add_sat(int64_t a, int64_t b, uint16_t *flags);
int64_t bld_sub_sat(int64_t a, int64_t b);
unsigned bld_threads(const struct bld *c, size_t records);
struct trex_earliest *bld_cand(struct bld *c, uint32_t file, enum trex_integrity_counter k);
/* A problem of the build's own about slice s, counted and offered as an
 * example. */
void bld_problem(struct bld *c, uint32_t file, enum trex_integrity_counter k,
                 const struct trex_bslice *s, int64_t value);
void bld_note_span(struct bld *c, int64_t start, int64_t end);
uint32_t bld_track_file(const struct trex_index *idx, uint32_t track);
/* A merge-time reference as a place in the joined store. */
size_t bld_ref_place(const struct bld *c, bld_ref r);

/* ---- the stages ---- */

enum trex_status bld_merge(struct bld *c);
enum trex_status bld_order(struct bld *c);
enum trex_status bld_lanes(struct bld *c);
enum trex_status bld_sort_points(struct bld *c);
/* The store of placed struct trex_bslice becomes one of struct trex_slice
 * and the side tables (index_internal.h). */
enum trex_status bld_narrow(struct bld *c);

/* A side table being filled, slice ids ascending. Out of memory sets
 * failed (and every later push is dropped). */
struct bld_side {
	struct trex_side_table *t;
	size_t nslices, cap;
	bool failed;
};
void bld_side_start(struct bld_side *s, struct trex_side_table *t, size_t nslices);
/* bld_side_push when there is no room (or no bits yet). */
void bld_side_push_slow(struct bld_side *s, uint32_t slice, uint32_t value);

static inline void bld_side_push(struct bld_side *s, uint32_t slice, uint32_t value)
{
	struct trex_side_table *t = s->t;

	if (t->n == s->cap || !t->bits) {
		bld_side_push_slow(s, slice, value);
		return;
	}
	t->bits[slice / 64] |= UINT64_C(1) << (slice % 64);
	t->values[t->n++] = value;
}
/* The counts per word, the values cut to size; false when out of memory. */
bool bld_side_finish(struct bld_side *s);
enum trex_status bld_links(struct bld *c);

/* ---- build_flows.c: the file's flow points into hops ---- */

/* Room for the file's points (parts [first, end) of in->parts). */
enum trex_status bld_flows_start(struct bld *c, size_t first, size_t end);
/* Task work for part k (its builder b): counts its keys per partition. */
void bld_flows_count(struct bld *c, struct pmerge *p, const struct trex_builder *b);
/* Where each part's keys go, once every part counted. */
void bld_flows_place(struct bld *c);
/* Task work: writes part k's points and keys; frees its flow records. */
void bld_flows_fill(struct bld *c, struct pmerge *p, struct trex_builder *b);
/* At the end of a file: chains the points into hops (index flows). */
enum trex_status bld_flows_match(struct bld *c);
/* One flow edge between two slices (TREX_EDGE_FLOW). */
enum trex_status bld_flow_edge(struct bld *c, bld_ref from, bld_ref to);
void bld_flows_free(struct bld *c);

#endif
