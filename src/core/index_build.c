#include "config.h"

#include "trex/core/builder.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "integrity_internal.h"
#include "outliers.h"
#include "trex/core/kind.h"
#include "trex/core/task.h"
#include "trex/load/source.h"

/* trex_index_build() in stages:
 *
 *  1. merge, file by file: the parts' strings and tracks are remapped to
 *     global ones (serially: unique ones are few); then, one task per part
 *     on in->threads threads, X slices of parts without B/E are made
 *     global where they are and flow points converted to positions fixed
 *     in advance; then, serially and in file order, those parts' full
 *     slice blocks move into the index's store without copying (their
 *     last partial blocks were copied by the tasks), B/E and async b/e are
 *     paired into slices, and each builder is freed. Per file, what is
 *     left open is closed at its end and flow points are matched into
 *     hops (key partitions in parallel);
 *  2. order: processes and tracks are sorted for display and renumbered;
 *  3. slices: counting sort by track into a permutation of ids, per-track
 *     sort by (ts, dur desc, file order) that is a linear check for sorted
 *     input and a one-pass merge for a few sorted runs, depths with a
 *     stack (each slice learns its lane and its rank in it), then an
 *     in-place radix placement puts the store in (track, depth, ts) order;
 *  4. instants, samples, flows (bound to slices) and link tables.
 *
 * Where the build runs tasks in parallel, each writes only its own outputs
 * and these are combined in a fixed order, and the order of slices in the
 * store before placement does not matter (placement is decided by track,
 * ts, dur and file order alone), so the index is the same for any number
 * of threads. */

#define SL(v, id) TREX_VEC_AT((v), struct trex_slice, (id))

/* ---- build state ------------------------------------------------------------------ */

struct gproc {
	int64_t sort_index;
	uint32_t file, pid, name, labels;
	uint8_t has_name, has_labels, has_sort;
};

struct gtrack {
	int64_t sort_index;
	uint32_t proc, key, name;
	uint8_t cls, has_name, has_sort, gpu;
};

/* Open B / async b slices: per-key stacks linked through one pool. */
struct stack_ent {
	uint32_t slice, prev;
};

/* A flow point, kept in file order, and its matching key, kept apart in
 * partitions by key hash so that matching runs in cache. */
struct fpoint {
	int64_t ts;
	uint32_t track, name, cat;
	uint8_t phase, encl;
};

struct fkey {
	uint64_t id;
	int64_t ts;
	uint32_t cat, id_str, seq;
	uint8_t phase;
};

/* A chain being matched: its key and its last point (s or t). */
struct chain {
	uint64_t id;
	uint32_t cat, id_str, last;
	uint8_t open, has_edge;
};

/* Flow points per key partition: about this many, so a partition's
 * matching table stays in cache. */
#define FLOW_PART_KEYS 4096
#define FLOW_PARTS_MAX 4096

/* One part of the file being merged: its id maps, and what its records,
 * prepared on the build's threads, leave for the serial merge to apply. */
struct pmerge {
	uint32_t *smap, *pmap, *tmap; /* local string/process/track -> global */
	uint32_t ns, np, nt;
	uint64_t seq_base; /* file order of the part's first event */
	size_t flow_first; /* its first flow point in the file's list */
	size_t *fpos;      /* per partition: where its next key goes */
	uint8_t *catc;     /* per local string: category class, once seen */
	uint8_t *gpu;      /* per local track: holds GPU work */
	uint64_t reversed; /* X slices clamped */
	uint64_t saturated; /* X slices whose end was clamped */
	struct trex_earliest reversed_ex, saturated_ex;
	struct trex_problem_list drops; /* its time outliers, as examples */
	size_t tail_at;    /* where its partial last block goes in rest */
	bool bad_id, prepped;
};

/* Category classes, cached per global string id. */
enum { CAT_UNKNOWN = 0, CAT_CPU, CAT_GPU, CAT_BY_NAME };

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
	 * it only ever holds full blocks until the merge ends; everything
	 * else (tails, B/E, async) is appended here, with ids into it, and
	 * joins idx->slices after the merge. Ids before the placement do not
	 * matter: (track, ts, dur, file order) decides where a slice goes. */
	struct trex_vec rest;
	uint8_t *cat_cls;
	size_t cat_cls_cap;
	struct trex_integrity *integ; /* the build's own counts, per file */
	/* the build's own integrity examples, per file and counter: the
	 * earliest (tracks in display order once stage 2 renumbered them) */
	struct trex_earliest *cand;
	int64_t *file_end;
	/* the part being merged: its maps (in pm) */
	uint32_t *smap, *pmap, *tmap;
	uint32_t nsmap, npmap, ntmap;
	bool bad_id;
	bool bad_alloc;    /* a callback ran out of memory */
	struct pmerge *pm; /* the file's parts */
	size_t npm;
	/* the file being merged */
	uint32_t file, file_first_track;
	uint64_t seq_base;
	int64_t base;
	uint32_t *be_top; /* per global track */
	size_t be_top_cap;
	struct stack_ent *pool;
	uint32_t pool_n, pool_free;
	size_t pool_cap;
	struct trex_kmap async_map; /* (proc, cat), id, id_str -> async_tops index */
	uint32_t *async_tops;
	uint32_t nasync;
	size_t async_cap;
	struct fpoint *fpts; /* the file's flow points in order */
	size_t nfpts;
	struct fkey *fkeys;  /* their keys, grouped by partition (key hash) */
	size_t *fpart_first; /* nfparts + 1: where each partition's keys start */
	uint32_t nfparts;
	uint32_t *prev; /* per flow point: the point it continues, or NONE */
	/* stage 2 results */
	uint32_t *track_new; /* old track id -> display order id */
};

static enum trex_status nomem(struct bld *c)
{
	return trex_error_set(c->err, TREX_NOMEM, NULL, -1, "out of memory building the index");
}

/* arr grown to hold n > *cap elements of size elem (new space zeroed),
 * or NULL when out of memory (arr is then untouched). */
static void *grow_array(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	while (c < n)
		c *= 2;
	p = realloc(arr, c * elem);
	if (!p)
		return NULL;
	memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
	*cap = c;
	return p;
}

/* Makes array p (capacity cap elements) hold n; false when out of memory. */
#define GROW(p, cap, n)                                                                            \
	({                                                                                         \
		bool fits_ = (size_t)(n) <= (cap);                                                 \
		if (!fits_) {                                                                      \
			void *grown_ = grow_array((p), &(cap), (n), sizeof(*(p)));                 \
			if (grown_) {                                                              \
				(p) = grown_;                                                      \
				fits_ = true;                                                      \
			}                                                                          \
		}                                                                                  \
		fits_;                                                                             \
	})

static int64_t add_sat(int64_t a, int64_t b, uint16_t *flags)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	if (flags)
		*flags |= TREX_SLICE_TS_SATURATED;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static int64_t sub_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_sub_overflow(a, b, &r))
		return r;
	return b < 0 ? INT64_MAX : INT64_MIN;
}

/* A part's local id through its map to the global one; an id past the map
 * (a loader bug) gives fallback and sets *bad, which fails the build after
 * the part. */
static inline uint32_t map_id(const uint32_t *map, uint32_t n, uint32_t id, uint32_t fallback,
			      bool *bad)
{
	if (id >= n) {
		*bad = true;
		return fallback;
	}
	return map[id];
}

/* Local string / track ids of the part being merged, as global ones. */
static inline uint32_t gstr(struct bld *c, uint32_t id)
{
	return map_id(c->smap, c->nsmap, id, TREX_STR_NONE, &c->bad_id);
}

static inline uint32_t gtrk(struct bld *c, uint32_t id)
{
	return map_id(c->tmap, c->ntmap, id, 0, &c->bad_id);
}

static inline struct trex_earliest *cand_of(struct bld *c, uint32_t file,
                                            enum trex_integrity_counter k)
{
	return &c->cand[(size_t)file * TREX_INTEG_COUNT + k];
}

/* A problem of the build's own, counted and offered as an example. */
static void build_problem(struct bld *c, uint32_t file, enum trex_integrity_counter k,
                          const struct trex_slice *s, int64_t value)
{
	struct trex_problem_cand cand = {s->ts, value, s->track, s->name};

	trex_integrity_count(&c->integ[file], k, 1);
	trex_earliest_offer(cand_of(c, file, k), &cand);
}

/* Threads only pay off on large inputs (as for the slice sort). */
#define PAR_MIN_RECORDS ((size_t)1 << 16)

static unsigned par_threads(const struct bld *c, size_t records)
{
	unsigned n = c->in->threads;

	if (n <= 1 || records < PAR_MIN_RECORDS)
		return 1;
	return n > TREX_TASK_THREADS_MAX ? TREX_TASK_THREADS_MAX : n;
}

/* ---- global processes and tracks ---------------------------------------------------- */

static uint32_t gproc_get(struct bld *c, uint32_t file, uint32_t pid)
{
	uint32_t *slot = trex_kmap_insert(&c->proc_map, ((uint64_t)file << 32) | pid, 0, 0);

	if (!slot)
		return TREX_NONE;
	if (*slot != TREX_NONE)
		return *slot;
	if (!GROW(c->procs, c->procs_cap, (size_t)c->nprocs + 1))
		return TREX_NONE;
	memset(&c->procs[c->nprocs], 0, sizeof(c->procs[0]));
	c->procs[c->nprocs].file = file;
	c->procs[c->nprocs].pid = pid;
	*slot = c->nprocs;
	return c->nprocs++;
}

static uint32_t gtrack_get(struct bld *c, uint32_t proc, uint32_t key, uint8_t cls)
{
	uint32_t *slot = trex_kmap_insert(&c->track_map, ((uint64_t)proc << 32) | key, cls, 0);
	struct gtrack *t;

	if (!slot)
		return TREX_NONE;
	if (*slot != TREX_NONE)
		return *slot;
	if (!GROW(c->tracks, c->tracks_cap, (size_t)c->ntracks + 1) ||
	    !GROW(c->be_top, c->be_top_cap, (size_t)c->ntracks + 1))
		return TREX_NONE;
	t = &c->tracks[c->ntracks];
	memset(t, 0, sizeof(*t));
	t->proc = proc;
	t->key = key;
	t->cls = cls;
	c->be_top[c->ntracks] = TREX_NONE;
	*slot = c->ntracks;
	return c->ntracks++;
}

/* The async track of a process for events whose outermost b is name. */
static uint32_t async_track(struct bld *c, uint32_t proc, uint32_t name)
{
	uint32_t t = gtrack_get(c, proc, name, TREX_BT_ASYNC);

	if (t != TREX_NONE) {
		c->tracks[t].name = name;
		c->tracks[t].has_name = 1;
	}
	return t;
}

/* ---- category classes ---------------------------------------------------------------- */

static bool cat_cls_fit(struct bld *c)
{
	return GROW(c->cat_cls, c->cat_cls_cap, trex_strtab_count(c->idx->strs));
}

static uint8_t classify_cat(struct bld *c, uint32_t cat)
{
	const char *s = trex_strtab_get(c->idx->strs, cat, NULL);

	if (trex_kind_needs_name(s))
		return c->cat_cls[cat] = CAT_BY_NAME;
	return c->cat_cls[cat] = trex_kind_is_gpu(trex_kind_of(s, NULL)) ? CAT_GPU : CAT_CPU;
}

/* A track is a GPU track when any of its slices is GPU work. */
static inline void note_kind(struct bld *c, const struct trex_slice *s)
{
	uint8_t k;

	if (c->tracks[s->track].gpu)
		return;
	k = c->cat_cls[s->cat];
	if (k == CAT_UNKNOWN)
		k = classify_cat(c, s->cat);
	if (k == CAT_BY_NAME)
		k = trex_kind_is_gpu(trex_kind_of(trex_strtab_get(c->idx->strs, s->cat, NULL),
		                                  trex_strtab_get(c->idx->strs, s->name, NULL)))
		        ? CAT_GPU
		        : CAT_CPU;
	if (k == CAT_GPU)
		c->tracks[s->track].gpu = 1;
}

/* ---- stacks of open slices --------------------------------------------------------------- */

static bool stack_push(struct bld *c, uint32_t *top, uint32_t slice)
{
	uint32_t i = c->pool_free;

	if (i != TREX_NONE) {
		c->pool_free = c->pool[i].prev;
	} else {
		if (!GROW(c->pool, c->pool_cap, (size_t)c->pool_n + 1))
			return false;
		i = c->pool_n++;
	}
	c->pool[i].slice = slice;
	c->pool[i].prev = *top;
	*top = i;
	return true;
}

static uint32_t stack_pop(struct bld *c, uint32_t *top)
{
	uint32_t i = *top;

	*top = c->pool[i].prev;
	c->pool[i].prev = c->pool_free;
	c->pool_free = i;
	return c->pool[i].slice;
}

static inline struct trex_slice *gslice(struct bld *c, uint32_t id)
{
	return TREX_VEC_AT(&c->rest, struct trex_slice, id);
}

/* Closes an open B/b slice at end time t (index clock). */
static void close_slice(struct bld *c, uint32_t id, int64_t t)
{
	struct trex_slice *s = gslice(c, id);
	int64_t dur = sub_sat(t, s->ts);

	if (dur < 0) {
		s->dur = 0;
		s->flags |= TREX_SLICE_REVERSED;
		build_problem(c, c->file, TREX_INTEG_reversed, s, dur);
	} else {
		s->dur = dur;
	}
}

/* Closes what is still open at the end of the file: it runs to the file's
 * last event end. */
static void close_unterminated(struct bld *c, uint32_t *top)
{
	while (*top != TREX_NONE) {
		uint32_t id = stack_pop(c, top);

		close_slice(c, id, c->file_end[c->file]);
		gslice(c, id)->flags |= TREX_SLICE_UNTERMINATED;
		build_problem(c, c->file, TREX_INTEG_unmatched_begin, gslice(c, id), 0);
	}
}

/* ---- merging one part: ids ------------------------------------------------------------------ */

static enum trex_status map_strings(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	uint32_t n = trex_strtab_count(b->strs);

	pm->smap = malloc(((size_t)n + 1) * sizeof(*pm->smap));
	pm->catc = calloc((size_t)n + 1, 1);
	if (!pm->smap || !pm->catc)
		return nomem(c);
	c->smap = pm->smap;
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *s = trex_strtab_get(b->strs, i, &len);

		c->smap[i] = trex_strtab_intern(c->idx->strs, s, len);
		if (c->smap[i] == TREX_STR_ERROR)
			return nomem(c);
	}
	c->nsmap = pm->ns = n;
	/* The part's own strings are not needed any more. */
	trex_strtab_free(b->strs);
	b->strs = NULL;
	return cat_cls_fit(c) ? TREX_OK : nomem(c);
}

static void apply_proc_meta(struct bld *c, struct gproc *g, const struct trex_bproc *p)
{
	/* Later parts win: metadata is applied in file order. */
	if (p->has_name) {
		g->name = gstr(c, p->name);
		g->has_name = 1;
	}
	if (p->has_labels) {
		g->labels = gstr(c, p->labels);
		g->has_labels = 1;
	}
	if (p->has_sort) {
		g->sort_index = p->sort_index;
		g->has_sort = 1;
	}
}

static void apply_track_meta(struct bld *c, struct gtrack *g, const struct trex_btrack *t)
{
	if (t->has_name) {
		g->name = gstr(c, t->name);
		g->has_name = 1;
	}
	if (t->has_sort) {
		g->sort_index = t->sort_index;
		g->has_sort = 1;
	}
}

static enum trex_status map_tracks(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	pm->pmap = malloc(((size_t)b->nprocs + 1) * sizeof(*pm->pmap));
	pm->tmap = malloc(((size_t)b->ntracks + 1) * sizeof(*pm->tmap));
	pm->gpu = calloc((size_t)b->ntracks + 1, 1);
	if (!pm->pmap || !pm->tmap || !pm->gpu)
		return nomem(c);
	c->pmap = pm->pmap;
	c->tmap = pm->tmap;
	for (uint32_t i = 0; i < b->nprocs; i++) {
		c->pmap[i] = gproc_get(c, c->file, gstr(c, b->procs[i].pid));
		if (c->pmap[i] == TREX_NONE)
			return nomem(c);
		apply_proc_meta(c, &c->procs[c->pmap[i]], &b->procs[i]);
	}
	for (uint32_t i = 0; i < b->ntracks; i++) {
		const struct trex_btrack *t = &b->tracks[i];

		c->tmap[i] = gtrack_get(c, c->pmap[t->proc], gstr(c, t->key), t->cls);
		if (c->tmap[i] == TREX_NONE)
			return nomem(c);
		apply_track_meta(c, &c->tracks[c->tmap[i]], t);
	}
	c->npmap = pm->np = b->nprocs;
	c->ntmap = pm->nt = b->ntracks;
	return TREX_OK;
}

/* ---- merging one part: slices -----------------------------------------------------------------
 */

static enum trex_status too_many(struct bld *c)
{
	return trex_error_set(c->err, TREX_FORMAT, c->in->files[c->file].path, -1,
	                      "more than %" PRIu32 " slices, flows or flow points: beyond what "
	                      "the index can hold",
	                      UINT32_MAX - 1);
}

/* The record as a global slice: ids remapped, base time added. */
static void globalize(struct bld *c, struct trex_slice *s)
{
	s->name = gstr(c, s->name);
	s->cat = gstr(c, s->cat);
	s->shape = gstr(c, s->shape);
	s->track = gtrk(c, s->track);
	s->ts = add_sat(s->ts, c->base, &s->flags);
	s->reserved = (uint32_t)(c->seq_base + s->reserved);
	s->depth = 0;
}

static enum trex_status append_slice(struct bld *c, const struct trex_slice *s, uint32_t *id)
{
	struct trex_slice *dst;

	if (c->idx->slices.count + c->rest.count >= UINT32_MAX - 1)
		return too_many(c);
	*id = (uint32_t)c->rest.count;
	dst = trex_vec_push(&c->rest);
	if (!dst)
		return nomem(c);
	*dst = *s;
	return TREX_OK;
}

/* Clamps an X record's duration: negative to 0 (REVERSED), an end beyond
 * int64 to INT64_MAX (TS_SATURATED, so ts + dur stays computable). Counts
 * and offers each as an example into *reversed / *saturated (dur: as written). */
static void clamp_x(struct trex_slice *s, uint64_t *reversed, struct trex_earliest *reversed_ex,
                    uint64_t *saturated, struct trex_earliest *saturated_ex)
{
	int64_t dur = s->dur;

	if (s->dur < 0) {
		s->dur = 0;
		s->flags |= TREX_SLICE_REVERSED;
		(*reversed)++;
		trex_earliest_offer(reversed_ex,
		                    &(struct trex_problem_cand){s->ts, dur, s->track, s->name});
	}
	if (s->ts > 0 && s->dur > INT64_MAX - s->ts) {
		s->dur = INT64_MAX - s->ts;
		s->flags |= TREX_SLICE_TS_SATURATED;
	}
	if (s->flags & TREX_SLICE_TS_SATURATED) {
		(*saturated)++;
		trex_earliest_offer(saturated_ex,
		                    &(struct trex_problem_cand){s->ts, dur, s->track, s->name});
	}
}

/* An X record made global, its duration clamped (clamp_x). */
static void prepare_x(struct bld *c, struct trex_slice *s)
{
	globalize(c, s);
	clamp_x(s, &c->integ[c->file].reversed, cand_of(c, c->file, TREX_INTEG_reversed),
	        &c->integ[c->file].saturated_numbers,
	        cand_of(c, c->file, TREX_INTEG_saturated_numbers));
	note_kind(c, s);
}

static enum trex_status merge_x(struct bld *c, const struct trex_slice *src)
{
	struct trex_slice s = *src;
	uint32_t id;

	prepare_x(c, &s);
	return append_slice(c, &s, &id);
}

/* B opens a slice where it stands (so slices stay in file order); E closes
 * the most recent open B of its track. */
static enum trex_status merge_be(struct bld *c, const struct trex_slice *src)
{
	struct trex_slice s = *src;
	enum trex_status st;
	uint32_t id;

	globalize(c, &s);
	if (src->depth == TREX_BE_END) {
		if (c->be_top[s.track] == TREX_NONE)
			build_problem(c, c->file, TREX_INTEG_unmatched_end, &s, 0);
		else
			close_slice(c, stack_pop(c, &c->be_top[s.track]), s.ts);
		return TREX_OK;
	}
	s.flags |= TREX_SLICE_FROM_BE;
	note_kind(c, &s);
	st = append_slice(c, &s, &id);
	if (st == TREX_OK && !stack_push(c, &c->be_top[s.track], id))
		st = nomem(c);
	return st;
}

/* Steps through a part's vector, freeing each block once it is read, so
 * merging never holds a part and its copy in full at the same time. */
static inline void consume(struct trex_vec *v, size_t *i)
{
	if ((++*i & TREX_VEC_MASK) == 0)
		trex_vec_release_block(v, (uint32_t)((*i >> TREX_VEC_SHIFT) - 1));
}

/* A part without B/E hands its X slices over: remapped where they are, its
 * full blocks moved into the index, only the partial last block copied. */
static enum trex_status hand_over_slices(struct bld *c, struct trex_builder *b,
                                         const struct pmerge *pm, bool *done)
{
	bool prepped = pm->prepped;
	struct trex_vec *v = &b->slices;
	size_t first;
	bool ok;

	*done = false;
	if (b->be.count || !v->count)
		return TREX_OK;
	if (!prepped && c->idx->slices.count + c->rest.count + v->count >= UINT32_MAX - 1)
		return too_many(c);
	for (size_t i = 0; !prepped && i < v->count; i++)
		prepare_x(c, SL(v, i));
	first = trex_vec_take_full_blocks(&c->idx->slices, v, &ok);
	if (!ok)
		return nomem(c);
	/* A prepared part's tail is in rest already (prep_task). */
	for (size_t i = first; !prepped && i < v->count; consume(v, &i)) {
		struct trex_slice *dst = trex_vec_push(&c->rest);

		if (!dst)
			return nomem(c);
		*dst = *SL(v, i);
	}
	*done = true;
	return TREX_OK;
}

/* After the merge: the rest joins the whole blocks, moved when it can be. */
static enum trex_status join_rest(struct bld *c)
{
	struct trex_vec *dst = &c->idx->slices, *v = &c->rest;

	if (!v->count)
		return TREX_OK;
	if ((dst->count == 0 || v->cap >= TREX_VEC_BLOCK) && trex_vec_adopt(dst, v))
		return TREX_OK;
	for (size_t i = 0; i < v->count; consume(v, &i)) {
		struct trex_slice *s = trex_vec_push(dst);

		if (!s)
			return nomem(c);
		*s = *SL(v, i);
	}
	trex_vec_free(v);
	return TREX_OK;
}

static enum trex_status merge_slices(struct bld *c, struct trex_builder *b, const struct pmerge *pm)
{
	size_t ix = 0, ib = 0, nx = b->slices.count, nb = b->be.count;
	bool done;
	enum trex_status st = hand_over_slices(c, b, pm, &done);

	if (st != TREX_OK || done)
		return st;

	/* Both lists are in file order: merge them by sequence number. */
	while (st == TREX_OK && ix < nx && ib < nb) {
		const struct trex_slice *x = TREX_VEC_AT(&b->slices, struct trex_slice, ix);
		const struct trex_slice *e = TREX_VEC_AT(&b->be, struct trex_slice, ib);

		if (x->reserved < e->reserved) {
			st = merge_x(c, x);
			consume(&b->slices, &ix);
		} else {
			st = merge_be(c, e);
			consume(&b->be, &ib);
		}
	}
	for (; st == TREX_OK && ix < nx; consume(&b->slices, &ix))
		st = merge_x(c, TREX_VEC_AT(&b->slices, struct trex_slice, ix));
	for (; st == TREX_OK && ib < nb; consume(&b->be, &ib))
		st = merge_be(c, TREX_VEC_AT(&b->be, struct trex_slice, ib));
	return st;
}

/* ---- merging one part: async events ------------------------------------------------------------
 */

/* The stack top slot of an async key, created empty. */
static uint32_t *async_top(struct bld *c, uint32_t proc, uint32_t cat, uint64_t id, uint32_t id_str)
{
	uint32_t *slot = trex_kmap_insert(&c->async_map, ((uint64_t)proc << 32) | cat, id, id_str);

	if (!slot)
		return NULL;
	if (*slot == TREX_NONE) {
		if (!GROW(c->async_tops, c->async_cap, (size_t)c->nasync + 1))
			return NULL;
		c->async_tops[c->nasync] = TREX_NONE;
		*slot = c->nasync++;
	}
	return &c->async_tops[*slot];
}

static enum trex_status async_begin(struct bld *c, const struct trex_basync *a,
                                    struct trex_slice *s, uint32_t *top, uint32_t proc)
{
	enum trex_status st;
	uint32_t id;

	/* All slices of one id chain go on the track of its outermost b. */
	s->track = *top != TREX_NONE ? gslice(c, c->pool[*top].slice)->track
	                             : async_track(c, proc, s->name);
	if (s->track == TREX_NONE)
		return nomem(c);
	s->flags |= a->flags | TREX_SLICE_ASYNC;
	s->args = a->args;
	s->corr = a->corr;
	s->ext_id = a->ext_id;
	s->shape = gstr(c, a->shape);
	s->reserved = (uint32_t)(c->seq_base + a->seq);
	st = append_slice(c, s, &id);
	if (st == TREX_OK && !stack_push(c, top, id))
		st = nomem(c);
	return st;
}

static enum trex_status async_instant(struct bld *c, const struct trex_basync *a,
                                      const struct trex_slice *s, uint32_t top, uint32_t proc)
{
	struct trex_instant *in;
	uint32_t track =
	    top != TREX_NONE ? gslice(c, c->pool[top].slice)->track : async_track(c, proc, s->name);

	if (track == TREX_NONE)
		return nomem(c);
	in = trex_vec_push(&c->idx->instants);
	if (!in)
		return nomem(c);
	memset(in, 0, sizeof(*in));
	in->ts = s->ts;
	in->name = s->name;
	in->cat = s->cat;
	in->track = track;
	in->scope = TREX_SCOPE_THREAD;
	in->args = a->args;
	return TREX_OK;
}

static enum trex_status merge_async(struct bld *c, const struct trex_basync *a)
{
	struct trex_slice s;
	uint32_t proc, *top;

	if (a->proc >= c->npmap) {
		c->bad_id = true;
		return TREX_OK;
	}
	proc = c->pmap[a->proc];
	memset(&s, 0, sizeof(s));
	s.name = gstr(c, a->name);
	s.cat = gstr(c, a->cat);
	s.ts = add_sat(a->ts, c->base, &s.flags);
	top = async_top(c, proc, s.cat, a->id, gstr(c, a->id_str));
	if (!top)
		return nomem(c);
	if (a->phase == 'b')
		return async_begin(c, a, &s, top, proc);
	if (a->phase == 'n')
		return async_instant(c, a, &s, *top, proc);
	if (*top == TREX_NONE) {
		s.track = TREX_NONE;
		build_problem(c, c->file, TREX_INTEG_unmatched_end, &s, 1);
	} else {
		close_slice(c, stack_pop(c, top), s.ts);
	}
	return TREX_OK;
}

/* ---- merging one part: instants, samples, flows
 * --------------------------------------------------- */

static enum trex_status merge_instants(struct bld *c, struct trex_builder *b)
{
	for (size_t i = 0; i < b->instants.count; consume(&b->instants, &i)) {
		struct trex_instant *in = trex_vec_push(&c->idx->instants);

		if (!in)
			return nomem(c);
		*in = *TREX_VEC_AT(&b->instants, struct trex_instant, i);
		in->name = gstr(c, in->name);
		in->cat = gstr(c, in->cat);
		in->track = gtrk(c, in->track);
		in->ts = add_sat(in->ts, c->base, NULL);
	}
	return TREX_OK;
}

static enum trex_status merge_samples(struct bld *c, struct trex_builder *b)
{
	for (size_t i = 0; i < b->samples.count; consume(&b->samples, &i)) {
		struct trex_bsample *s = trex_vec_push(&c->samples);

		if (!s)
			return nomem(c);
		*s = *TREX_VEC_AT(&b->samples, struct trex_bsample, i);
		s->track = gtrk(c, s->track);
		s->ts = add_sat(s->ts, c->base, NULL);
	}
	return TREX_OK;
}

/* ---- merging on the build's threads -----------------------------------------------------------
 * Once a file's parts have their id maps (serially: unique strings and
 * tracks are few), each part's X slices (parts without B/E) are remapped
 * where they are and its flow points converted into the file's point list
 * and key partitions at positions fixed in advance, one task per part. */

static inline uint32_t pstr(struct pmerge *p, uint32_t id)
{
	return map_id(p->smap, p->ns, id, TREX_STR_NONE, &p->bad_id);
}

static inline uint32_t ptrk(struct pmerge *p, uint32_t id)
{
	return map_id(p->tmap, p->nt, id, 0, &p->bad_id);
}

/* classify_cat without the shared cache. */
static uint8_t cat_class(const struct bld *c, uint32_t cat)
{
	const char *s = trex_strtab_get(c->idx->strs, cat, NULL);

	if (trex_kind_needs_name(s))
		return CAT_BY_NAME;
	return trex_kind_is_gpu(trex_kind_of(s, NULL)) ? CAT_GPU : CAT_CPU;
}

/* prepare_x for a part's X record in place, with local ids still in it;
 * reads the (then unchanging) global strings only. */
static void prep_x(const struct bld *c, struct pmerge *p, int64_t base, struct trex_slice *s)
{
	uint32_t lcat = s->cat, ltrack = s->track;
	uint8_t k;

	s->name = pstr(p, s->name);
	s->cat = pstr(p, s->cat);
	s->shape = pstr(p, s->shape);
	s->track = ptrk(p, s->track);
	s->ts = add_sat(s->ts, base, &s->flags);
	s->reserved = (uint32_t)(p->seq_base + s->reserved);
	s->depth = 0;
	clamp_x(s, &p->reversed, &p->reversed_ex, &p->saturated, &p->saturated_ex);
	if (ltrack >= p->nt || p->gpu[ltrack])
		return;
	if (lcat < p->ns) {
		if (p->catc[lcat] == CAT_UNKNOWN)
			p->catc[lcat] = cat_class(c, s->cat);
		k = p->catc[lcat];
	} else {
		k = cat_class(c, s->cat);
	}
	if (k == CAT_BY_NAME)
		k = trex_kind_is_gpu(trex_kind_of(trex_strtab_get(c->idx->strs, s->cat, NULL),
		                                  trex_strtab_get(c->idx->strs, s->name, NULL)))
		        ? CAT_GPU
		        : CAT_CPU;
	if (k == CAT_GPU)
		p->gpu[ltrack] = 1;
}

static inline uint32_t flow_part(const struct bld *c, uint32_t cat, uint64_t id, uint32_t id_str)
{
	return (uint32_t)((trex_kmap_hash(cat, id, id_str) >> 40) & (c->nfparts - 1));
}

struct prep_job {
	struct bld *c;
	size_t first; /* the file's first part in in->parts */
};

/* Parts without B/E: their records after the last full block, which
 * stays in the part to be handed over whole (trex_vec_take_full_blocks). */
static inline size_t tail_first(const struct trex_builder *b)
{
	return b->slices.count & ~(size_t)TREX_VEC_MASK;
}

/* Pass 1: X slices remapped, the partial last block copied to its place
 * in rest; flow keys counted per partition. */
static void prep_task(void *arg, size_t k, unsigned worker)
{
	struct prep_job *j = arg;
	struct bld *c = j->c;
	struct trex_builder *b = c->in->parts[j->first + k];
	struct pmerge *p = &c->pm[k];
	struct trex_vec *v = &b->slices;

	(void)worker;
	if (!b->be.count) {
		size_t t = tail_first(b);

		for (size_t i = 0; i < v->count; i++)
			prep_x(c, p, c->base, SL(v, i));
		for (size_t i = t; i < v->count; i++)
			*SL(&c->rest, p->tail_at + i - t) = *SL(v, i);
		if (t < v->count)
			trex_vec_release_block(v, (uint32_t)(t >> TREX_VEC_SHIFT));
		p->prepped = true;
	}
	for (size_t i = 0; i < b->flows.count; i++) {
		const struct trex_bflow *f = TREX_VEC_AT(&b->flows, struct trex_bflow, i);

		p->fpos[flow_part(c, pstr(p, f->cat), f->id, pstr(p, f->id_str))]++;
	}
}

/* Pass 2: flow points and keys written where pass 1 made room. A flow
 * point goes to the file's point list and its key to a partition; chains
 * are matched when the file is complete (match_flows). */
static void flow_task(void *arg, size_t k, unsigned worker)
{
	struct prep_job *j = arg;
	struct bld *c = j->c;
	struct trex_builder *b = c->in->parts[j->first + k];
	struct pmerge *p = &c->pm[k];

	(void)worker;
	for (size_t i = 0; i < b->flows.count; i++) {
		const struct trex_bflow *f = TREX_VEC_AT(&b->flows, struct trex_bflow, i);
		uint32_t cat = pstr(p, f->cat), id_str = pstr(p, f->id_str);
		size_t seq = p->flow_first + i;
		struct fpoint *pt = &c->fpts[seq];

		*pt = (struct fpoint){add_sat(f->ts, c->base, NULL),
		                      ptrk(p, f->track),
		                      pstr(p, f->name),
		                      cat,
		                      (uint8_t)f->phase,
		                      f->enclosing};
		c->fkeys[p->fpos[flow_part(c, cat, f->id, id_str)]++] =
		    (struct fkey){f->id, pt->ts, cat, id_str, (uint32_t)seq, (uint8_t)f->phase};
	}
	/* The part's points are not needed any more. */
	trex_vec_free(&b->flows);
}

/* ---- flow matching
 * --------------------------------------------------------------------------------- */

/* One matching task's scratch and counts: partitions are matched on the
 * build's threads, each writing only its own points' prev entries. */
struct match_task {
	struct chain *chains;
	size_t chains_cap;
	uint32_t *chain_slots; /* chain index + 1, 0 = empty */
	size_t slots_cap;
	uint64_t orphan_start, orphan_end;
	struct trex_earliest orphan_start_ex, orphan_end_ex;
	const struct fpoint *fpts;
	uint32_t *prev;
	bool failed;
};

/* An orphan flow point (the point seq, of flow id) as an example. */
static void orphan_point(struct match_task *c, struct trex_earliest *e, uint32_t seq, uint64_t id)
{
	const struct fpoint *pt = &c->fpts[seq];

	trex_earliest_offer(e,
	                    &(struct trex_problem_cand){pt->ts, (int64_t)id, pt->track, pt->name});
}

static struct chain *chain_find(struct match_task *c, const struct fkey *k, uint32_t *nchains,
                                size_t mask)
{
	size_t i = trex_kmap_hash(k->cat, k->id, k->id_str) & mask;
	struct chain *ch;

	for (; c->chain_slots[i]; i = (i + 1) & mask) {
		ch = &c->chains[c->chain_slots[i] - 1];
		if (ch->id == k->id && ch->cat == k->cat && ch->id_str == k->id_str)
			return ch;
	}
	c->chain_slots[i] = ++*nchains;
	ch = &c->chains[*nchains - 1];
	memset(ch, 0, sizeof(*ch));
	ch->id = k->id;
	ch->cat = k->cat;
	ch->id_str = k->id_str;
	return ch;
}

/* s starts a chain (a restarted chain that never got a hop is an orphan
 * start), t continues it, f ends it; t/f without a chain are orphan ends.
 * A point's prev is the point its hop comes from. */
static void match_point(struct match_task *c, struct chain *ch, const struct fkey *k)
{
	c->prev[k->seq] = TREX_NONE;
	if (k->phase == 's') {
		if (ch->open && !ch->has_edge) {
			c->orphan_start++;
			orphan_point(c, &c->orphan_start_ex, ch->last, ch->id);
		}
		ch->last = k->seq;
		ch->open = 1;
		ch->has_edge = 0;
		return;
	}
	if (!ch->open) {
		c->orphan_end++;
		orphan_point(c, &c->orphan_end_ex, k->seq, k->id);
		return;
	}
	c->prev[k->seq] = ch->last;
	ch->has_edge = 1;
	if (k->phase == 'f')
		ch->open = 0;
	else
		ch->last = k->seq;
}

static int phase_rank(uint8_t phase)
{
	return phase == 's' ? 0 : phase == 't' ? 1 : 2;
}

/* Chains in time order, as Chrome's importer matches them: Kineto writes
 * each kernel's 'f' before its launch's 's' in the file. Ties: s, t, f,
 * then file order. */
static int fkey_order(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->id_str != y->id_str)
		return x->id_str < y->id_str ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (phase_rank(x->phase) != phase_rank(y->phase))
		return phase_rank(x->phase) - phase_rank(y->phase);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Keys of one partition, in time order per chain, through a table sized
 * to them. */
static bool match_partition(struct match_task *c, struct fkey *keys, size_t n)
{
	size_t cap = 16;
	uint32_t nchains = 0;

	while (cap < 2 * n)
		cap *= 2;
	if (!GROW(c->chains, c->chains_cap, n) || !GROW(c->chain_slots, c->slots_cap, cap))
		return false;
	if (n > 1)
		qsort(keys, n, sizeof(*keys), fkey_order);
	memset(c->chain_slots, 0, cap * sizeof(*c->chain_slots));
	for (size_t i = 0; i < n; i++)
		match_point(c, chain_find(c, &keys[i], &nchains, cap - 1), &keys[i]);
	for (uint32_t i = 0; i < nchains; i++) {
		if (c->chains[i].open && !c->chains[i].has_edge) {
			c->orphan_start++;
			orphan_point(c, &c->orphan_start_ex, c->chains[i].last, c->chains[i].id);
		}
	}
	return true;
}

/* One flow per hop, in file order of the hop's end. Until flows are bound
 * to slices, from_slice says whether the from point is a step (counted as
 * unbound already as the previous hop's end) and to_slice how the end
 * binds. Ranges of points are counted, then written from their offsets,
 * on the build's threads. */
struct emit_job {
	struct bld *c;
	size_t base, ntasks;
	size_t *at; /* per task: hops, then where its flows start */
};

static void emit_count(void *arg, size_t k, unsigned worker)
{
	struct emit_job *j = arg;
	size_t n = 0, np = j->c->nfpts;

	(void)worker;
	for (size_t i = np * k / j->ntasks; i < np * (k + 1) / j->ntasks; i++)
		n += j->c->prev[i] != TREX_NONE;
	j->at[k] = n;
}

static void emit_fill(void *arg, size_t k, unsigned worker)
{
	struct emit_job *j = arg;
	struct bld *c = j->c;
	size_t out = j->at[k], np = c->nfpts;

	(void)worker;
	for (size_t i = np * k / j->ntasks; i < np * (k + 1) / j->ntasks; i++) {
		const struct fpoint *to = &c->fpts[i], *from;

		if (c->prev[i] == TREX_NONE)
			continue;
		from = &c->fpts[c->prev[i]];
		*TREX_VEC_AT(&c->idx->flows, struct trex_flow, out) =
		    (struct trex_flow){from->phase == 't', to->encl, from->track, to->track,
		                       from->ts,           to->ts,   from->cat,   from->name};
		out++;
	}
}

static enum trex_status emit_flows(struct bld *c)
{
	unsigned threads = par_threads(c, c->nfpts);
	struct emit_job j = {c, c->idx->flows.count, threads, calloc(threads, sizeof(size_t))};
	size_t pos = j.base;

	if (!j.at)
		return nomem(c);
	trex_task_run(threads, j.ntasks, emit_count, &j);
	for (size_t k = 0; k < j.ntasks; k++) {
		size_t n = j.at[k];

		j.at[k] = pos;
		pos += n;
	}
	while (c->idx->flows.count < pos) {
		if (!trex_vec_push(&c->idx->flows)) {
			free(j.at);
			return nomem(c);
		}
	}
	trex_task_run(threads, j.ntasks, emit_fill, &j);
	free(j.at);
	return TREX_OK;
}

static void flow_parts_free(struct bld *c)
{
	free(c->fkeys);
	c->fkeys = NULL;
	free(c->fpart_first);
	c->fpart_first = NULL;
	c->nfparts = 0;
	free(c->fpts);
	c->fpts = NULL;
	c->nfpts = 0;
	free(c->prev);
	c->prev = NULL;
}

struct match_job {
	struct bld *c;
	struct match_task *tasks;
	size_t ntasks;
};

/* Task k matches a contiguous range of partitions. */
static void match_task_main(void *arg, size_t k, unsigned worker)
{
	struct match_job *j = arg;
	struct match_task *t = &j->tasks[k];
	uint32_t np = j->c->nfparts, lo = (uint32_t)(np * k / j->ntasks),
	         hi = (uint32_t)(np * (k + 1) / j->ntasks);

	(void)worker;
	for (uint32_t p = lo; p < hi && !t->failed; p++) {
		size_t first = j->c->fpart_first[p], n = j->c->fpart_first[p + 1] - first;

		t->failed = !match_partition(t, j->c->fkeys + first, n);
	}
	free(t->chains);
	free(t->chain_slots);
}

static enum trex_status match_flows(struct bld *c)
{
	unsigned threads = par_threads(c, c->nfpts);
	struct match_job j = {c, calloc(threads, sizeof(*j.tasks)), threads};
	enum trex_status st = TREX_OK;

	c->prev = trex_big_malloc((c->nfpts + 1) * sizeof(*c->prev));
	if (!c->prev || !j.tasks)
		st = nomem(c);
	for (size_t k = 0; st == TREX_OK && k < j.ntasks; k++) {
		j.tasks[k].prev = c->prev;
		j.tasks[k].fpts = c->fpts;
	}
	if (st == TREX_OK)
		trex_task_run(threads, j.ntasks, match_task_main, &j);
	for (size_t k = 0; st == TREX_OK && k < j.ntasks; k++) {
		if (j.tasks[k].failed)
			st = nomem(c);
		c->integ[c->file].orphan_flow_start += j.tasks[k].orphan_start;
		c->integ[c->file].orphan_flow_end += j.tasks[k].orphan_end;
		trex_earliest_merge(cand_of(c, c->file, TREX_INTEG_orphan_flow_start),
		                    &j.tasks[k].orphan_start_ex);
		trex_earliest_merge(cand_of(c, c->file, TREX_INTEG_orphan_flow_end),
		                    &j.tasks[k].orphan_end_ex);
	}
	free(j.tasks);
	if (st == TREX_OK)
		st = emit_flows(c);
	flow_parts_free(c);
	return st;
}

static enum trex_status merge_asyncs(struct bld *c, struct trex_builder *b)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; st == TREX_OK && i < b->asyncs.count; consume(&b->asyncs, &i))
		st = merge_async(c, TREX_VEC_AT(&b->asyncs, struct trex_basync, i));
	return st;
}

/* ---- merging: files and parts
 * -------------------------------------------------------------------- */

/* Closes what the file left open, matches its flows and resets the
 * per-file state. */
static enum trex_status finish_file(struct bld *c)
{
	for (uint32_t t = c->file_first_track; t < c->ntracks; t++)
		close_unterminated(c, &c->be_top[t]);
	for (uint32_t i = 0; i < c->nasync; i++)
		close_unterminated(c, &c->async_tops[i]);
	trex_kmap_clear(&c->async_map);
	c->nasync = 0;
	return match_flows(c);
}

static void pmerge_free(struct bld *c)
{
	for (size_t k = 0; c->pm && k < c->npm; k++) {
		free(c->pm[k].smap);
		free(c->pm[k].pmap);
		free(c->pm[k].tmap);
		free(c->pm[k].fpos);
		free(c->pm[k].catc);
		free(c->pm[k].gpu);
		trex_problems_free(&c->pm[k].drops);
	}
	free(c->pm);
	c->pm = NULL;
	c->npm = 0;
}

/* ---- time outliers ---------------------------------------------------------------------- */

static uint32_t map_or_none(const uint32_t *map, uint32_t n, uint32_t id)
{
	return id < n ? map[id] : TREX_NONE;
}

/* "ts lies 1.5e+09 s before the file's other events (they span 2.1 s)" */
static void outlier_what(const struct trex_outlier *o, char *buf, size_t size)
{
	double span = ((double)o->keep_hi - (double)o->keep_lo) / 1e9;

	if (o->by_dur)
		snprintf(buf, size,
		         "dur %.3g s is %.3g times the span of the file's events (%.3g s)",
		         (double)o->dur / 1e9, span > 0 ? (double)o->dur / 1e9 / span : 0.0, span);
	else
		snprintf(buf, size, "ts lies %.3g s %s the file's other events (they span %.3g s)",
		         (o->ts < o->keep_lo ? (double)o->keep_lo - (double)o->ts
		                             : (double)o->ts - (double)o->keep_hi) /
		             1e9,
		         o->ts < o->keep_lo ? "before" : "after", span);
}

/* One dropped time outlier: counted, and kept as an example of its part. */
static void on_outlier(void *user, const struct trex_outlier *o)
{
	struct bld *c = user;
	struct pmerge *pm = &c->pm[o->part];
	struct trex_problem p;

	memset(&p, 0, sizeof(p));
	p.counter = o->by_dur ? TREX_INTEG_dur_out_of_range : TREX_INTEG_ts_out_of_range;
	p.offset = o->at;
	p.disk_offset = -1;
	p.track = o->track == TREX_NONE ? TREX_NONE : map_or_none(pm->tmap, pm->nt, o->track);
	p.name = o->name == TREX_NONE ? TREX_NONE : map_or_none(pm->smap, pm->ns, o->name);
	p.slice = TREX_NONE;
	p.ts = add_sat(o->ts, c->base, NULL);
	p.has_ts = true;
	outlier_what(o, p.what, sizeof(p.what));
	trex_integrity_count(&c->integ[c->file], p.counter, 1);
	if (!trex_problems_add(&pm->drops, &p))
		c->bad_alloc = true;
}

/* The file's latest event end, once its outliers are gone. */
static void file_end_of(struct bld *c, size_t first, size_t end)
{
	int64_t e = INT64_MIN;

	for (size_t i = first; i < end; i++) {
		const struct trex_builder *b = c->in->parts[i];

		if (b->has_time && add_sat(b->max_end, c->base, NULL) > e)
			e = add_sat(b->max_end, c->base, NULL);
	}
	c->file_end[c->file] = e == INT64_MIN ? c->base : e;
}

static enum trex_status drop_outliers(struct bld *c, size_t first, size_t end)
{
	c->bad_alloc = false;
	if (!trex_drop_time_outliers(c->in->parts + first, end - first, on_outlier, c) ||
	    c->bad_alloc)
		return nomem(c);
	file_end_of(c, first, end);
	return TREX_OK;
}

/* The id maps of the file's parts [first, end), in file order. */
static enum trex_status map_parts(struct bld *c, size_t first, size_t end)
{
	enum trex_status st = TREX_OK;

	for (size_t i = first; i < end && st == TREX_OK; i++) {
		struct trex_builder *b = c->in->parts[i];
		struct pmerge *pm = &c->pm[i - first];

		if (b->failed)
			return nomem(c);
		c->bad_id = false;
		st = map_strings(c, b, pm);
		if (st == TREX_OK)
			st = map_tracks(c, b, pm);
		pm->bad_id = c->bad_id;
	}
	return st;
}

/* Per-file state and the id maps of its parts [first, end), in file
 * order; flow keys get about FLOW_PART_KEYS per partition. Time outliers
 * are dropped from the parts once their ids can be mapped, before their
 * records are counted. */
static enum trex_status start_file(struct bld *c, size_t first, size_t end)
{
	const struct trex_build_input *in = c->in;
	uint32_t file = in->parts[first]->file;
	uint64_t seq = 0;
	size_t points = 0;
	enum trex_status st;

	c->file = file;
	c->file_first_track = c->ntracks;
	c->base = in->files[file].base_time_ns;
	c->npm = end - first;
	c->pm = calloc(c->npm, sizeof(*c->pm));
	if (!c->pm)
		return nomem(c);
	st = map_parts(c, first, end);
	if (st == TREX_OK)
		st = drop_outliers(c, first, end);
	if (st != TREX_OK)
		return st;
	for (size_t i = first; i < end; i++)
		points += in->parts[i]->flows.count;
	if (points > UINT32_MAX - 1)
		return too_many(c);
	c->nfparts = 1;
	while (c->nfparts < FLOW_PARTS_MAX && (size_t)c->nfparts * FLOW_PART_KEYS < points)
		c->nfparts *= 2;
	c->nfpts = points;
	c->fpts = trex_big_malloc((points + 1) * sizeof(*c->fpts));
	c->fkeys = trex_big_malloc((points + 1) * sizeof(*c->fkeys));
	c->fpart_first = calloc((size_t)c->nfparts + 1, sizeof(*c->fpart_first));
	if (!c->fpts || !c->fkeys || !c->fpart_first)
		return nomem(c);
	points = 0;
	for (size_t i = first; i < end; i++) {
		struct trex_builder *b = in->parts[i];
		struct pmerge *pm = &c->pm[i - first];

		if (seq + b->seq > UINT32_MAX)
			return too_many(c);
		pm->seq_base = seq;
		pm->flow_first = points;
		seq += b->seq;
		points += b->flows.count;
		pm->fpos = calloc(c->nfparts, sizeof(*pm->fpos));
		if (!pm->fpos)
			return nomem(c);
	}
	return TREX_OK;
}

/* The parallel passes over the file's parts, then where each part's keys
 * go: partition by partition, parts in file order. */
static enum trex_status prepare_parts(struct bld *c, size_t first)
{
	struct prep_job j = {c, first};
	size_t records = 0, pos = 0;
	unsigned threads;

	for (size_t k = 0; k < c->npm; k++) {
		const struct trex_builder *b = c->in->parts[first + k];

		records += b->slices.count + b->be.count + b->asyncs.count;
	}
	if (c->idx->slices.count + c->rest.count + records >= UINT32_MAX - 1)
		return too_many(c);
	for (size_t k = 0; k < c->npm; k++) {
		const struct trex_builder *b = c->in->parts[first + k];

		size_t tail = b->be.count ? 0 : b->slices.count - tail_first(b);

		/* room in rest for the tails, filled by the threads */
		c->pm[k].tail_at = c->rest.count;
		for (size_t i = 0; i < tail; i++) {
			if (!trex_vec_push(&c->rest))
				return nomem(c);
		}
	}
	threads = par_threads(c, records + c->nfpts);
	trex_task_run(threads, c->npm, prep_task, &j);
	for (uint32_t h = 0; h < c->nfparts; h++) {
		c->fpart_first[h] = pos;
		for (size_t k = 0; k < c->npm; k++) {
			size_t n = c->pm[k].fpos[h];

			c->pm[k].fpos[h] = pos;
			pos += n;
		}
	}
	c->fpart_first[c->nfparts] = pos;
	trex_task_run(threads, c->npm, flow_task, &j);
	return TREX_OK;
}

/* The part's integrity examples, in file order: the loader's, then the
 * time outliers dropped from it. */
static enum trex_status merge_problems(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	struct trex_problem_list *l = &c->idx->problems[c->file];
	bool ok =
	    trex_problems_merge_part(l, &b->probs, pm->smap, pm->ns, pm->tmap, pm->nt, c->base);

	for (uint32_t i = 0; ok && i < pm->drops.n; i++)
		ok = trex_problems_add(l, &pm->drops.v[i]);
	return ok ? TREX_OK : nomem(c);
}

/* The serial rest of a part: what its threads left, B/E and async
 * pairing, instants and samples. */
static enum trex_status merge_part(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	enum trex_status st;

	c->smap = pm->smap;
	c->nsmap = pm->ns;
	c->pmap = pm->pmap;
	c->npmap = pm->np;
	c->tmap = pm->tmap;
	c->ntmap = pm->nt;
	c->bad_id = pm->bad_id;
	c->seq_base = pm->seq_base;
	for (uint32_t t = 0; t < pm->nt; t++) {
		if (pm->gpu[t])
			c->tracks[pm->tmap[t]].gpu = 1;
	}
	c->integ[c->file].reversed += pm->reversed;
	c->integ[c->file].saturated_numbers += pm->saturated;
	trex_earliest_merge(cand_of(c, c->file, TREX_INTEG_reversed), &pm->reversed_ex);
	trex_earliest_merge(cand_of(c, c->file, TREX_INTEG_saturated_numbers), &pm->saturated_ex);
	st = merge_problems(c, b, pm);
	if (st == TREX_OK)
		st = merge_slices(c, b, pm);
	if (st == TREX_OK)
		st = merge_asyncs(c, b);
	if (st == TREX_OK)
		st = merge_instants(c, b);
	if (st == TREX_OK)
		st = merge_samples(c, b);
	if (st == TREX_OK && c->bad_id)
		st = trex_error_set(c->err, TREX_USAGE, c->in->files[c->file].path, -1,
		                    "builder: string, track or process id out of range");
	return st;
}

/* The latest event end of each file, known before its B/E are paired
 * because unterminated slices run to it. */
static void compute_file_ends(struct bld *c)
{
	const struct trex_build_input *in = c->in;

	for (size_t f = 0; f < in->file_count; f++)
		c->file_end[f] = INT64_MIN;
	for (size_t i = 0; i < in->part_count; i++) {
		const struct trex_builder *b = in->parts[i];
		int64_t end;

		if (!b->has_time)
			continue;
		end = add_sat(b->max_end, in->files[b->file].base_time_ns, NULL);
		if (end > c->file_end[b->file])
			c->file_end[b->file] = end;
	}
	for (size_t f = 0; f < in->file_count; f++) {
		if (c->file_end[f] == INT64_MIN)
			c->file_end[f] = in->files[f].base_time_ns;
	}
}

static enum trex_status check_parts(struct bld *c)
{
	const struct trex_build_input *in = c->in;

	for (size_t i = 0; i < in->part_count; i++) {
		const struct trex_builder *b = in->parts[i];

		if (!b || b->file >= in->file_count ||
		    (i > 0 && in->parts[i - 1] && b->file < in->parts[i - 1]->file))
			return trex_error_set(c->err, TREX_USAGE, NULL, -1,
			                      "build input: part %zu is missing, names no file or "
			                      "is out of file order",
			                      i);
	}
	return TREX_OK;
}

static enum trex_status merge_all(struct bld *c)
{
	const struct trex_build_input *in = c->in;
	enum trex_status st = TREX_OK;

	for (size_t i = 0, end; i < in->part_count && st == TREX_OK; i = end) {
		end = i + 1;
		while (end < in->part_count && in->parts[end]->file == in->parts[i]->file)
			end++;
		st = start_file(c, i, end);
		if (st == TREX_OK)
			st = prepare_parts(c, i);
		for (size_t k = i; k < end; k++) {
			if (st == TREX_OK)
				st = merge_part(c, in->parts[k], &c->pm[k - i]);
			trex_builder_free(in->parts[k]);
			in->parts[k] = NULL;
		}
		pmerge_free(c);
		if (st == TREX_OK)
			st = finish_file(c);
	}
	if (st == TREX_OK)
		st = join_rest(c);
	return st;
}

/* ---- display order
 * -------------------------------------------------------------------------------- */

/* A whole-string decimal integer (pid/tid texts are printed that way). */
static bool parse_int(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	*out = 0;
	s += neg;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (limit - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Compares digit runs by value so "stream 7" sorts before "stream 24". */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (is_digit(*a) && is_digit(*b)) {
			size_t la = 0, lb = 0;
			int d;

			while (*a == '0' && is_digit(a[1]))
				a++;
			while (*b == '0' && is_digit(b[1]))
				b++;
			while (is_digit(a[la]))
				la++;
			while (is_digit(b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			d = memcmp(a, b, la);
			if (d)
				return d;
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

struct okey {
	int64_t sort, num;
	const char *text;
	uint32_t major; /* file for processes, new process id for tracks */
	uint32_t cls;   /* track class: threads, async, counters */
	uint32_t id;
};

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int okey_cmp(const void *pa, const void *pb)
{
	const struct okey *a = pa, *b = pb;
	int d;

	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if ((d = cmp_i64(a->sort, b->sort)) || (d = cmp_i64(a->num, b->num)))
		return d;
	if ((d = natural_cmp(a->text, b->text)) || (d = strcmp(a->text, b->text)))
		return d;
	return a->id < b->id ? -1 : a->id > b->id;
}

static const char *gtext(struct bld *c, uint32_t id)
{
	return trex_strtab_get(c->idx->strs, id, NULL);
}

/* Processes by (file, sort_index, pid_num, pid text). */
static enum trex_status order_processes(struct bld *c, uint32_t *proc_new)
{
	struct okey *keys = malloc(((size_t)c->nprocs + 1) * sizeof(*keys));
	struct trex_index *idx = c->idx;

	idx->procs = calloc((size_t)c->nprocs + 1, sizeof(*idx->procs));
	if (!keys || !idx->procs) {
		free(keys);
		return nomem(c);
	}
	for (uint32_t i = 0; i < c->nprocs; i++) {
		const struct gproc *g = &c->procs[i];
		struct okey *k = &keys[i];

		parse_int(gtext(c, g->pid), &k->num);
		k->sort = g->has_sort ? g->sort_index : k->num;
		k->text = gtext(c, g->pid);
		k->major = g->file;
		k->cls = 0;
		k->id = i;
	}
	qsort(keys, c->nprocs, sizeof(*keys), okey_cmp);
	for (uint32_t n = 0; n < c->nprocs; n++) {
		const struct gproc *g = &c->procs[keys[n].id];
		struct trex_process *p = &idx->procs[n];

		proc_new[keys[n].id] = n;
		p->file = g->file;
		p->pid = g->pid;
		p->pid_num = keys[n].num;
		p->name = g->has_name ? g->name : TREX_STR_NONE;
		p->labels = g->has_labels ? g->labels : TREX_STR_NONE;
		p->sort_index = keys[n].sort;
		p->has_sort_index = g->has_sort;
	}
	idx->nprocs = c->nprocs;
	free(keys);
	return TREX_OK;
}

static enum trex_track_kind track_kind(struct bld *c, const struct gtrack *g,
                                       const struct trex_process *p)
{
	if (g->cls == TREX_BT_COUNTER)
		return TREX_TRACK_COUNTER;
	if (g->cls == TREX_BT_ASYNC)
		return TREX_TRACK_ASYNC;
	if (g->gpu || strncmp(gtext(c, p->labels), "GPU", 3) == 0)
		return TREX_TRACK_GPU;
	return TREX_TRACK_THREAD;
}

static bool numeric_text(const char *s)
{
	s += *s == '-';
	if (!*s)
		return false;
	while (is_digit(*s))
		s++;
	return !*s;
}

/* thread_name when given, else "thread <tid>" / "stream <tid>" for numeric
 * tids and the tid text itself otherwise ("stream 7" in 2021 traces). */
static uint32_t track_name(struct bld *c, const struct gtrack *g, const struct trex_track *t)
{
	const char *what = t->kind == TREX_TRACK_GPU ? "stream" : "thread";
	const char *tid = gtext(c, g->key);
	char buf[64];
	int n;

	if (g->has_name)
		return g->name;
	if (t->kind == TREX_TRACK_COUNTER || t->kind == TREX_TRACK_ASYNC ||
	    (*tid && !numeric_text(tid)) || strlen(tid) > 40)
		return g->key;
	n = snprintf(buf, sizeof(buf), *tid ? "%s %s" : "%s", what, tid);
	return trex_strtab_intern(c->idx->strs, buf, (size_t)n);
}

static enum trex_status finish_track(struct bld *c, uint32_t n, const struct okey *k)
{
	const struct gtrack *g = &c->tracks[k->id];
	struct trex_track *t = &c->idx->tracks[n];
	struct trex_process *p = &c->idx->procs[k->major];

	t->process = k->major;
	t->tid = g->key;
	t->tid_num = k->num;
	t->sort_index = k->sort;
	t->has_sort_index = g->has_sort;
	t->kind = (uint8_t)track_kind(c, g, p);
	t->name = track_name(c, g, t);
	if (t->name == TREX_STR_ERROR)
		return nomem(c);
	if (t->kind == TREX_TRACK_GPU)
		p->is_gpu = 1;
	if (p->track_count++ == 0)
		p->first_track = n;
	return TREX_OK;
}

/* Tracks by (process, class, sort_index, tid_num, tid text): threads and
 * GPU streams first, then async groups, then counters. */
static enum trex_status order_tracks(struct bld *c, const uint32_t *proc_new)
{
	struct okey *keys = malloc(((size_t)c->ntracks + 1) * sizeof(*keys));
	struct trex_index *idx = c->idx;
	enum trex_status st = TREX_OK;

	idx->tracks = calloc((size_t)c->ntracks + 1, sizeof(*idx->tracks));
	c->track_new = malloc(((size_t)c->ntracks + 1) * sizeof(*c->track_new));
	if (!keys || !idx->tracks || !c->track_new) {
		free(keys);
		return nomem(c);
	}
	for (uint32_t i = 0; i < c->ntracks; i++) {
		const struct gtrack *g = &c->tracks[i];
		struct okey *k = &keys[i];

		parse_int(gtext(c, g->key), &k->num);
		k->sort = g->has_sort ? g->sort_index : k->num;
		k->text = gtext(c, g->key);
		k->major = proc_new[g->proc];
		k->cls = g->cls;
		k->id = i;
	}
	qsort(keys, c->ntracks, sizeof(*keys), okey_cmp);
	idx->ntracks = c->ntracks;
	for (uint32_t n = 0; n < c->ntracks && st == TREX_OK; n++) {
		c->track_new[keys[n].id] = n;
		st = finish_track(c, n, &keys[n]);
	}
	free(keys);
	return st;
}

/* Tracks and slices of a file are contiguous once tracks are in display
 * order; the link tables are built per file from these ranges. */
static enum trex_status file_ranges(struct bld *c)
{
	struct trex_index *idx = c->idx;

	idx->links = calloc((size_t)idx->nfiles + 1, sizeof(*idx->links));
	if (!idx->links)
		return nomem(c);
	for (uint32_t t = idx->ntracks; t-- > 0;) {
		struct trex_file_links *fl = &idx->links[idx->procs[idx->tracks[t].process].file];

		fl->first_track = t;
		fl->track_count++;
	}
	return TREX_OK;
}

static enum trex_status order_all(struct bld *c)
{
	uint32_t *proc_new = malloc(((size_t)c->nprocs + 1) * sizeof(*proc_new));
	enum trex_status st;

	if (!proc_new)
		return nomem(c);
	st = order_processes(c, proc_new);
	if (st == TREX_OK)
		st = order_tracks(c, proc_new);
	free(proc_new);
	if (st == TREX_OK)
		st = file_ranges(c);
	return st;
}

/* ---- slices: order, depth, lanes
 * ----------------------------------------------------------------- */

/* Deepest depth + 1 must fit trex_track.max_depth (uint16_t). */
#define DEPTH_LIMIT UINT16_MAX

struct track_res {
	uint32_t *depth_counts; /* max_depth entries */
	uint32_t max_depth;
	uint32_t corr, ext; /* slices with HAS_CORR, HAS_EXT_ID */
	uint64_t overlaps, zero;
	int64_t min_ts, max_end;
};

struct slice_sort {
	struct trex_vec *v;
	uint32_t *perm;        /* slice ids grouped by track, then sorted per track */
	uint32_t *first;       /* ntracks + 1: where each track's ids start in perm */
	struct track_res *res; /* per track */
	uint32_t *order;       /* tracks, largest first (several workers only) */
	uint32_t *track_file;  /* per track: its file */
	uint32_t nfiles;
	uint32_t ntracks;
	struct sort_worker *workers; /* per worker of the task run */
	atomic_int status;
	atomic_uint bad_track;
};

struct sort_worker {
	struct slice_sort *ss;
	/* per file: the earliest overlapping ([2 f]) and zero-length
	 * ([2 f + 1]) slices this worker met */
	struct trex_earliest *ex;
	uint32_t *tmp;
	size_t cap;
	int64_t *stack;   /* ends of the open slices, DEPTH_LIMIT entries */
	struct run_head *heads; /* KWAY_MAX entries */
	uint32_t *counts; /* slices per depth, DEPTH_LIMIT entries */
};

/* Per-track order: ts ascending, longer first at equal ts (a parent before
 * the children starting with it), then file order. */
static inline bool slice_less(const struct trex_slice *a, const struct trex_slice *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->dur != b->dur)
		return a->dur > b->dur;
	return a->reserved < b->reserved;
}

static bool ids_sorted(const struct trex_vec *v, const uint32_t *ids, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (slice_less(SL(v, ids[i]), SL(v, ids[i - 1])))
			return false;
	}
	return true;
}

/* Insertion sort that gives up after budget moves: cheap for the few
 * displaced slices of a mostly sorted track. ids stays a permutation. */
static bool insertion_sort(const struct trex_vec *v, uint32_t *ids, size_t n, size_t budget)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = ids[i];
		const struct trex_slice *sx = SL(v, x);
		size_t j = i;

		while (j > 0 && slice_less(sx, SL(v, ids[j - 1]))) {
			ids[j] = ids[j - 1];
			j--;
			if (budget-- == 0) {
				ids[j] = x;
				return false;
			}
		}
		ids[j] = x;
	}
	return true;
}

static size_t run_end(const struct trex_vec *v, const uint32_t *ids, size_t i, size_t n)
{
	for (i++; i < n && !slice_less(SL(v, ids[i]), SL(v, ids[i - 1])); i++)
		;
	return i;
}

static void merge_runs(const struct trex_vec *v, const uint32_t *a, size_t na, const uint32_t *b,
                       size_t nb, uint32_t *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na && j < nb)
		out[k++] = slice_less(SL(v, b[j]), SL(v, a[i])) ? b[j++] : a[i++];
	memcpy(out + k, a + i, (na - i) * sizeof(*a));
	memcpy(out + k + na - i, b + j, (nb - j) * sizeof(*b));
}

/* Stable natural merge sort: runs already in order are merged, never
 * re-sorted. Short chunks are insertion-sorted first so random input does
 * not start from runs of length one. */
static void merge_sort(const struct trex_vec *v, uint32_t *ids, uint32_t *tmp, size_t n)
{
	uint32_t *src = ids, *dst = tmp;
	size_t runs;

	for (size_t i = 0; i < n; i += 16)
		insertion_sort(v, ids + i, n - i < 16 ? n - i : 16, SIZE_MAX);
	do {
		size_t i = 0;
		uint32_t *swap;

		for (runs = 0; i < n; runs++) {
			size_t mid = run_end(v, src, i, n),
			       hi = mid < n ? run_end(v, src, mid, n) : n;

			merge_runs(v, src + i, mid - i, src + mid, hi - mid, dst + i);
			i = hi;
		}
		swap = src;
		src = dst;
		dst = swap;
	} while (runs > 1);
	if (src != ids)
		memcpy(ids, src, n * sizeof(*ids));
}

/* A sorted run of ids being merged, with its head's sort key cached. */
struct run_head {
	int64_t ts, dur;
	uint32_t reserved;
	uint32_t pos, end; /* head and end of the run in ids */
};

/* Runs merged at once at most; more and the merge sort is used. */
#define KWAY_MAX 1024

static inline bool head_less(const struct run_head *a, const struct run_head *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->dur != b->dur)
		return a->dur > b->dur;
	return a->reserved < b->reserved;
}

static inline void head_load(const struct trex_vec *v, const uint32_t *ids, struct run_head *h)
{
	const struct trex_slice *s = SL(v, ids[h->pos]);

	h->ts = s->ts;
	h->dur = s->dur;
	h->reserved = s->reserved;
}

static void heap_down(struct run_head *h, size_t k, size_t i)
{
	struct run_head x = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= k)
			break;
		if (c + 1 < k && head_less(&h[c + 1], &h[c]))
			c++;
		if (!head_less(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* Splits ids into its sorted runs; false if there are more than KWAY_MAX. */
static bool find_runs(const struct trex_vec *v, const uint32_t *ids, size_t n,
                      struct run_head *heads, size_t *nruns)
{
	size_t k = 0;

	for (size_t i = 0; i < n; k++) {
		size_t e = run_end(v, ids, i, n);

		if (k == KWAY_MAX)
			return false;
		heads[k].pos = (uint32_t)i;
		heads[k].end = (uint32_t)e;
		head_load(v, ids, &heads[k]);
		i = e;
	}
	*nruns = k;
	return true;
}

/* Input made of a few long sorted runs (a thread's events written kind by
 * kind, each kind in order) merged in one pass through a heap of their
 * heads: each slice is read once, where pairwise merging would read it
 * once per level. The order is total, so the result is the merge sort's. */
static void kway_merge(const struct trex_vec *v, uint32_t *ids, uint32_t *tmp, size_t n,
                       struct run_head *h, size_t k)
{
	for (size_t i = k / 2; i-- > 0;)
		heap_down(h, k, i);
	for (size_t out = 0; out < n; out++) {
		tmp[out] = ids[h[0].pos];
		if (++h[0].pos < h[0].end) {
			head_load(v, ids, &h[0]);
		} else {
			h[0] = h[--k];
			if (k == 0)
				break;
		}
		heap_down(h, k, 0);
	}
	memcpy(ids, tmp, n * sizeof(*ids));
}

static void sort_ids(const struct trex_vec *v, uint32_t *ids, uint32_t *tmp, size_t n,
                     struct run_head *heads)
{
	size_t nruns;

	if (ids_sorted(v, ids, n))
		return;
	if (find_runs(v, ids, n, heads, &nruns))
		kway_merge(v, ids, tmp, n, heads, nruns);
	else if (!insertion_sort(v, ids, n, 4 * n + 1024))
		merge_sort(v, ids, tmp, n);
}

/* Depth by a stack of open slice ends: a slice sits one deeper than the
 * open slices it starts inside. One that outlives the slice it starts in
 * still nests (flagged OVERLAP); every slice of a lane was popped before
 * the next one entered it, so lanes never overlap. reserved receives the
 * slice's rank in its lane, from which place_slices() knows where it goes. */
static enum trex_status assign_depths(struct sort_worker *w, const uint32_t *ids, size_t n,
                                      struct track_res *r, struct trex_earliest *ex)
{
	size_t sp = 0;

	r->min_ts = INT64_MAX;
	r->max_end = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		struct trex_slice *s = SL(w->ss->v, ids[i]);
		int64_t end = trex_slice_end(s);

		while (sp > 0 && w->stack[sp - 1] <= s->ts)
			sp--;
		if (sp > 0 && end > w->stack[sp - 1]) {
			s->flags |= TREX_SLICE_OVERLAP;
			r->overlaps++;
			trex_earliest_offer(
			    &ex[0], &(struct trex_problem_cand){s->ts, end - w->stack[sp - 1],
			                                        s->track, s->name});
		}
		if (sp >= DEPTH_LIMIT)
			return TREX_FORMAT;
		if (s->dur == 0 && !(s->flags & TREX_SLICE_REVERSED)) {
			r->zero++;
			trex_earliest_offer(
			    &ex[1], &(struct trex_problem_cand){s->ts, 0, s->track, s->name});
		}
		r->corr += (s->flags & TREX_SLICE_HAS_CORR) != 0;
		r->ext += (s->flags & TREX_SLICE_HAS_EXT_ID) != 0;
		if (sp == r->max_depth)
			w->counts[r->max_depth++] = 0;
		s->depth = (uint16_t)sp;
		s->reserved = w->counts[sp]++;
		w->stack[sp++] = end;
		r->min_ts = s->ts < r->min_ts ? s->ts : r->min_ts;
		r->max_end = end > r->max_end ? end : r->max_end;
	}
	r->depth_counts = malloc(r->max_depth * sizeof(*r->depth_counts));
	if (!r->depth_counts)
		return TREX_NOMEM;
	memcpy(r->depth_counts, w->counts, r->max_depth * sizeof(*r->depth_counts));
	return TREX_OK;
}

static bool worker_fit(struct sort_worker *w, size_t n)
{
	uint32_t *tmp;

	if (n <= w->cap)
		return true;
	tmp = realloc(w->tmp, n * sizeof(*tmp));
	if (!tmp)
		return false;
	w->tmp = tmp;
	w->cap = n;
	return true;
}

static enum trex_status sort_track(struct sort_worker *w, uint32_t t)
{
	struct slice_sort *ss = w->ss;
	uint32_t *ids = ss->perm + ss->first[t];
	size_t n = ss->first[t + 1] - ss->first[t];

	if (n == 0)
		return TREX_OK;
	if (!worker_fit(w, n))
		return TREX_NOMEM;
	sort_ids(ss->v, ids, w->tmp, n, w->heads);
	return assign_depths(w, ids, n, &ss->res[t], &w->ex[2 * (size_t)ss->track_file[t]]);
}

/* Task k: the k-th track in ss->order (largest first), on its worker's scratch. */
static void sort_task(void *arg, size_t k, unsigned worker)
{
	struct slice_sort *ss = arg;
	uint32_t t = ss->order ? ss->order[k] : (uint32_t)k;
	int expected = TREX_OK;
	enum trex_status st;

	if (atomic_load(&ss->status) != TREX_OK)
		return;
	st = sort_track(&ss->workers[worker], t);
	if (st != TREX_OK && atomic_compare_exchange_strong(&ss->status, &expected, (int)st))
		atomic_store(&ss->bad_track, t);
}

static int cmp_track_size(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return *a > *b ? -1 : *a < *b;
}

/* Large tracks first, so one late giant does not leave the others idle. */
static bool order_by_size(struct slice_sort *ss)
{
	uint64_t *keys = malloc(((size_t)ss->ntracks + 1) * sizeof(*keys));

	ss->order = malloc(((size_t)ss->ntracks + 1) * sizeof(*ss->order));
	if (!keys || !ss->order) {
		free(keys);
		return false;
	}
	for (uint32_t t = 0; t < ss->ntracks; t++)
		keys[t] = ((uint64_t)(ss->first[t + 1] - ss->first[t]) << 32) | (UINT32_MAX - t);
	qsort(keys, ss->ntracks, sizeof(*keys), cmp_track_size);
	for (uint32_t k = 0; k < ss->ntracks; k++)
		ss->order[k] = UINT32_MAX - (uint32_t)keys[k];
	free(keys);
	return true;
}

static unsigned worker_count(const struct bld *c, const struct slice_sort *ss)
{
	return trex_task_workers(par_threads(c, c->idx->slices.count), ss->ntracks);
}

static bool worker_init(struct sort_worker *w, struct slice_sort *ss)
{
	memset(w, 0, sizeof(*w));
	w->ss = ss;
	w->stack = malloc(DEPTH_LIMIT * sizeof(*w->stack));
	w->counts = malloc(DEPTH_LIMIT * sizeof(*w->counts));
	w->heads = malloc(KWAY_MAX * sizeof(*w->heads));
	w->ex = calloc(2 * (size_t)ss->nfiles + 2, sizeof(*w->ex));
	return w->stack && w->counts && w->heads && w->ex;
}

static void worker_free(struct sort_worker *w)
{
	free(w->tmp);
	free(w->stack);
	free(w->counts);
	free(w->heads);
	free(w->ex);
}

/* Sorts and nests every track, on up to in->threads threads; tracks are
 * independent, so the result does not depend on the thread count. */
static enum trex_status run_workers(struct bld *c, struct slice_sort *ss)
{
	unsigned n = worker_count(c, ss);
	struct sort_worker *w = calloc(n, sizeof(*w));
	bool ok = w && (n == 1 || order_by_size(ss));

	for (unsigned i = 0; ok && i < n; i++)
		ok = worker_init(&w[i], ss);
	if (!ok) {
		for (unsigned i = 0; w && i < n; i++)
			worker_free(&w[i]);
		free(w);
		return nomem(c);
	}
	ss->workers = w;
	trex_task_run(n, ss->ntracks, sort_task, ss);
	ss->workers = NULL;
	for (unsigned i = 0; i < n; i++) {
		for (uint32_t f = 0; f < ss->nfiles; f++) {
			trex_earliest_merge(cand_of(c, f, TREX_INTEG_overlaps), &w[i].ex[2 * f]);
			trex_earliest_merge(cand_of(c, f, TREX_INTEG_zero_duration),
			                    &w[i].ex[2 * f + 1]);
		}
		worker_free(&w[i]);
	}
	free(w);
	return (enum trex_status)atomic_load(&ss->status);
}

/* Counting sort of slice ids by (display order) track, in ranges of ids
 * on the build's threads: each range counts its slices per track, then
 * writes its ids from its own offsets, so perm is the same for any
 * number of ranges. Also renumbers each slice's track. */
struct bucket_job {
	struct bld *c;
	struct slice_sort *ss;
	uint32_t *next; /* ntasks x ntracks: counts, then write offsets */
	size_t ntasks;
};

static void bucket_count(void *arg, size_t k, unsigned worker)
{
	struct bucket_job *j = arg;
	struct trex_vec *v = &j->c->idx->slices;
	uint32_t *cnt = j->next + k * j->ss->ntracks;

	(void)worker;
	for (size_t i = v->count * k / j->ntasks; i < v->count * (k + 1) / j->ntasks; i++) {
		struct trex_slice *s = SL(v, i);

		s->track = j->c->track_new[s->track];
		cnt[s->track]++;
	}
}

static void bucket_fill(void *arg, size_t k, unsigned worker)
{
	struct bucket_job *j = arg;
	struct trex_vec *v = &j->c->idx->slices;
	uint32_t *next = j->next + k * j->ss->ntracks;

	(void)worker;
	for (size_t i = v->count * k / j->ntasks; i < v->count * (k + 1) / j->ntasks; i++)
		j->ss->perm[next[SL(v, i)->track]++] = (uint32_t)i;
}

static enum trex_status bucket_slices(struct bld *c, struct slice_sort *ss)
{
	struct trex_vec *v = &c->idx->slices;
	unsigned threads = par_threads(c, v->count);
	struct bucket_job j = {c, ss, NULL, threads};
	uint32_t pos = 0;

	ss->first = calloc((size_t)ss->ntracks + 1, sizeof(*ss->first));
	ss->perm = trex_big_malloc((v->count + 1) * sizeof(*ss->perm));
	ss->res = calloc((size_t)ss->ntracks + 1, sizeof(*ss->res));
	j.next = calloc(j.ntasks * ss->ntracks + 1, sizeof(*j.next));
	if (!ss->first || !ss->perm || !ss->res || !j.next) {
		free(j.next);
		return nomem(c);
	}
	trex_task_run(threads, j.ntasks, bucket_count, &j);
	for (uint32_t t = 0; t < ss->ntracks; t++) {
		ss->first[t] = pos;
		for (size_t k = 0; k < j.ntasks; k++) {
			uint32_t n = j.next[k * ss->ntracks + t];

			j.next[k * ss->ntracks + t] = pos;
			pos += n;
		}
	}
	ss->first[ss->ntracks] = pos;
	trex_task_run(threads, j.ntasks, bucket_fill, &j);
	free(j.next);
	return TREX_OK;
}

static void note_span(struct bld *c, int64_t start, int64_t end)
{
	struct trex_index *idx = c->idx;

	if (idx->start > idx->end) {
		idx->start = start;
		idx->end = end;
		return;
	}
	idx->start = start < idx->start ? start : idx->start;
	idx->end = end > idx->end ? end : idx->end;
}

static uint32_t track_file(const struct trex_index *idx, uint32_t track)
{
	return idx->procs[idx->tracks[track].process].file;
}

/* A file's slice range and link counts, track by track (tracks and
 * slices of a file are contiguous). */
static void file_counts(struct trex_file_links *fl, uint32_t t, const struct trex_track *tr,
                        const struct track_res *r)
{
	if (t == fl->first_track)
		fl->first_slice = tr->first_slice;
	fl->slice_count += tr->slice_count;
	fl->corr_count += r->corr;
	fl->ext_count += r->ext;
}

/* Lanes, track ranges, integrity counts and the time span from the
 * per-track results. */
static enum trex_status build_lanes(struct bld *c, struct slice_sort *ss)
{
	struct trex_index *idx = c->idx;
	size_t total = 0, l = 0;

	for (uint32_t t = 0; t < ss->ntracks; t++)
		total += ss->res[t].max_depth;
	if (total > UINT32_MAX - 1)
		return too_many(c);
	idx->lanes = malloc((total + 1) * sizeof(*idx->lanes));
	if (!idx->lanes)
		return nomem(c);
	for (uint32_t t = 0; t < ss->ntracks; t++) {
		const struct track_res *r = &ss->res[t];
		struct trex_track *tr = &idx->tracks[t];
		uint32_t off = ss->first[t];

		tr->first_slice = off;
		tr->slice_count = ss->first[t + 1] - off;
		tr->first_lane = (uint32_t)l;
		tr->lane_count = r->max_depth;
		tr->max_depth = (uint16_t)r->max_depth;
		for (uint32_t d = 0; d < r->max_depth; off += r->depth_counts[d++])
			idx->lanes[l++] = (struct trex_lane){t, d, off, r->depth_counts[d]};
		c->integ[track_file(idx, t)].overlaps += r->overlaps;
		c->integ[track_file(idx, t)].zero_duration += r->zero;
		file_counts(&idx->links[track_file(idx, t)], t, tr, r);
		if (tr->slice_count)
			note_span(c, r->min_ts, r->max_end);
	}
	idx->nlanes = (uint32_t)total;
	return TREX_OK;
}

/* Where a slice goes: its lane's first id plus its rank in the lane. */
static inline size_t slice_dest(const struct trex_index *idx, const struct trex_slice *s)
{
	return idx->lanes[idx->tracks[s->track].first_lane + s->depth].first + s->reserved;
}

/* PLACE_BUF records (under 1 MiB) are placed through a buffer in cache. */
enum { PLACE_FAN = 256, PLACE_BUF = 1 << 14 };

/* One pass of an in-place MSD radix sort by destination over [lo, hi),
 * whose records are exactly those destined for [lo, hi): records are
 * swapped into the bucket of their destination; each bucket's write head
 * only advances, so memory is touched in at most PLACE_FAN prefetchable
 * streams, where a cycle walk would wait on one random miss per record. */
static void place_pass(const struct trex_index *idx, struct trex_vec *v, size_t lo, size_t hi,
                       unsigned shift)
{
	size_t head[PLACE_FAN], end[PLACE_FAN], nb = ((hi - lo - 1) >> shift) + 1;

	for (size_t b = 0; b < nb; b++) {
		head[b] = lo + (b << shift);
		end[b] = head[b] + ((size_t)1 << shift) < hi ? head[b] + ((size_t)1 << shift) : hi;
	}
	for (size_t b = 0; b < nb; b++) {
		while (head[b] < end[b]) {
			struct trex_slice x = *SL(v, head[b]);
			size_t d = (slice_dest(idx, &x) - lo) >> shift;

			while (d != b) {
				struct trex_slice *slot = SL(v, head[d]), y = *slot;

				*slot = x;
				if (++head[d] < end[d])
					__builtin_prefetch(SL(v, head[d]));
				x = y;
				d = (slice_dest(idx, &x) - lo) >> shift;
			}
			*SL(v, head[b]) = x;
			head[b]++;
		}
	}
}

/* A range small enough for cache: copied out, then written back to the
 * right places (with the rank no longer needed cleared). */
static void place_small(const struct trex_index *idx, struct trex_vec *v, size_t lo, size_t hi,
                        struct trex_slice *buf)
{
	for (size_t i = lo; i < hi; i++)
		buf[i - lo] = *SL(v, i);
	for (size_t i = 0; i < hi - lo; i++) {
		struct trex_slice *dst = SL(v, slice_dest(idx, &buf[i]));

		*dst = buf[i];
		dst->reserved = 0;
	}
}

static void place_range(const struct trex_index *idx, struct trex_vec *v, size_t lo, size_t hi,
                        struct trex_slice *buf)
{
	unsigned shift = 0;

	if (hi - lo <= PLACE_BUF) {
		place_small(idx, v, lo, hi, buf);
		return;
	}
	while (((hi - lo - 1) >> shift) >= PLACE_FAN)
		shift++;
	place_pass(idx, v, lo, hi, shift);
	for (size_t b = lo; b < hi; b += (size_t)1 << shift)
		place_range(idx, v, b,
		            b + ((size_t)1 << shift) < hi ? b + ((size_t)1 << shift) : hi, buf);
}

/* On several threads, [lo, hi) is first split in place into the slices
 * bound for [lo, mid) and those bound for [mid, hi): each thread
 * partitions a chunk of its own, then the slices on the wrong side are
 * swapped pairwise, also in shares. Each side then goes on with its share
 * of the threads, one thread placing a range alone (place_range). The
 * places are fixed by the lanes, so the result is the same for any split. */
#define SPLIT_MAX 64

struct split_job {
	const struct trex_index *idx;
	struct trex_vec *v;
	size_t lo, mid, hi;
	unsigned threads;
	size_t nl[SPLIT_MAX]; /* per chunk: slices bound below mid */
	size_t a_lo[SPLIT_MAX], a_n[SPLIT_MAX], b_lo[SPLIT_MAX], b_n[SPLIT_MAX];
	size_t na, nb, swaps;
	atomic_bool failed;
};

static inline size_t chunk_at(const struct split_job *j, size_t k)
{
	return j->lo + (j->hi - j->lo) * k / j->threads;
}

static void split_partition(void *arg, size_t k, unsigned worker)
{
	struct split_job *j = arg;
	size_t a = chunk_at(j, k), i = a, e = chunk_at(j, k + 1);
	struct trex_slice t;

	(void)worker;
	for (;;) {
		while (i < e && slice_dest(j->idx, SL(j->v, i)) < j->mid)
			i++;
		while (i < e && slice_dest(j->idx, SL(j->v, e - 1)) >= j->mid)
			e--;
		if (i + 1 >= e)
			break;
		e--;
		t = *SL(j->v, i);
		*SL(j->v, i) = *SL(j->v, e);
		*SL(j->v, e) = t;
		i++;
	}
	j->nl[k] = i - a;
}

/* Position of the n-th slot of a list of segments. */
static size_t seg_pos(const size_t *lo, const size_t *len, size_t n)
{
	size_t s = 0;

	while (n >= len[s])
		n -= len[s++];
	return lo[s] + n;
}

static void split_swap(void *arg, size_t k, unsigned worker)
{
	struct split_job *j = arg;
	size_t from = j->swaps * k / j->threads, to = j->swaps * (k + 1) / j->threads;

	(void)worker;
	for (size_t n = from; n < to; n++) {
		struct trex_slice *x = SL(j->v, seg_pos(j->a_lo, j->a_n, n));
		struct trex_slice *y = SL(j->v, seg_pos(j->b_lo, j->b_n, n));
		struct trex_slice t = *x;

		*x = *y;
		*y = t;
	}
}

/* The misplaced slices after split_partition: bound high below mid (a)
 * and bound low from mid on (b), as lists of segments. */
static void split_segments(struct split_job *j)
{
	j->na = j->nb = j->swaps = 0;
	for (size_t k = 0; k < j->threads; k++) {
		size_t a = chunk_at(j, k), e = chunk_at(j, k + 1), m = a + j->nl[k];
		size_t r0 = m > j->lo ? m : j->lo, r1 = e < j->mid ? e : j->mid;
		size_t l0 = a > j->mid ? a : j->mid, l1 = m;

		if (r0 < r1) {
			j->a_lo[j->na] = r0;
			j->a_n[j->na++] = r1 - r0;
			j->swaps += r1 - r0;
		}
		if (l0 < l1) {
			j->b_lo[j->nb] = l0;
			j->b_n[j->nb++] = l1 - l0;
		}
	}
}

static bool place_split(const struct trex_index *idx, struct trex_vec *v, size_t lo, size_t hi,
                        unsigned threads);

struct split_side {
	const struct trex_index *idx;
	struct trex_vec *v;
	size_t lo[2], hi[2];
	unsigned threads[2];
	atomic_bool failed;
};

static void split_side_task(void *arg, size_t k, unsigned worker)
{
	struct split_side *s = arg;

	(void)worker;
	if (!place_split(s->idx, s->v, s->lo[k], s->hi[k], s->threads[k]))
		atomic_store(&s->failed, true);
}

static bool place_split(const struct trex_index *idx, struct trex_vec *v, size_t lo, size_t hi,
                        unsigned threads)
{
	struct split_job *j;
	struct split_side side;
	unsigned left;

	if (threads <= 1 || hi - lo <= (size_t)PLACE_BUF * threads) {
		struct trex_slice *buf = malloc(PLACE_BUF * sizeof(*buf));

		if (!buf)
			return false;
		if (hi > lo)
			place_range(idx, v, lo, hi, buf);
		free(buf);
		return true;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return false;
	left = threads / 2;
	*j = (struct split_job){.idx = idx, .v = v, .lo = lo, .hi = hi, .threads = threads};
	j->mid = lo + (hi - lo) * left / threads;
	trex_task_run(threads, threads, split_partition, j);
	split_segments(j);
	trex_task_run(threads, threads, split_swap, j);
	side =
	    (struct split_side){idx, v, {lo, j->mid}, {j->mid, hi}, {left, threads - left}, false};
	free(j);
	atomic_init(&side.failed, false);
	trex_task_run(2, 2, split_side_task, &side);
	return !atomic_load(&side.failed);
}

/* Moves every slice to its place in (track, depth, ts) order, in place
 * but for a buffer of PLACE_BUF records per thread. */
static enum trex_status place_slices(struct bld *c)
{
	struct trex_vec *v = &c->idx->slices;
	unsigned threads = par_threads(c, v->count);

	if (threads > SPLIT_MAX)
		threads = SPLIT_MAX;
	return place_split(c->idx, v, 0, v->count, threads) ? TREX_OK : nomem(c);
}

static void slice_sort_free(struct slice_sort *ss)
{
	free(ss->track_file);
	for (uint32_t t = 0; ss->res && t < ss->ntracks; t++)
		free(ss->res[t].depth_counts);
	free(ss->res);
	free(ss->first);
	free(ss->perm);
	free(ss->order);
}

static enum trex_status sort_slices(struct bld *c)
{
	struct slice_sort ss;
	enum trex_status st;

	memset(&ss, 0, sizeof(ss));
	ss.v = &c->idx->slices;
	ss.ntracks = c->idx->ntracks;
	ss.nfiles = c->idx->nfiles;
	ss.track_file = malloc(((size_t)ss.ntracks + 1) * sizeof(*ss.track_file));
	if (!ss.track_file)
		return nomem(c);
	for (uint32_t t = 0; t < ss.ntracks; t++)
		ss.track_file[t] = c->idx->procs[c->idx->tracks[t].process].file;
	atomic_init(&ss.status, TREX_OK);
	atomic_init(&ss.bad_track, 0);
	st = bucket_slices(c, &ss);
	if (st == TREX_OK)
		st = run_workers(c, &ss);
	if (st == TREX_NOMEM)
		st = nomem(c);
	else if (st == TREX_FORMAT)
		st = trex_error_set(c->err, TREX_FORMAT, NULL, -1,
		                    "track %u nests slices more than %u deep",
		                    atomic_load(&ss.bad_track), DEPTH_LIMIT - 1);
	if (st == TREX_OK)
		st = build_lanes(c, &ss);
	slice_sort_free(&ss);
	if (st == TREX_OK)
		st = place_slices(c);
	return st;
}

/* ---- instants and counter samples
 * -------------------------------------------------------------------- */

struct rkey {
	int64_t ts;
	uint32_t track, id;
};

static int rkey_cmp(const void *pa, const void *pb)
{
	const struct rkey *a = pa, *b = pb;

	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Sorts keys by (track, ts, file order) unless they already are. */
static void sort_rkeys(struct rkey *keys, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (rkey_cmp(&keys[i], &keys[i - 1]) < 0) {
			qsort(keys, n, sizeof(*keys), rkey_cmp);
			return;
		}
	}
}

static enum trex_status sort_instants(struct bld *c)
{
	struct trex_vec *v = &c->idx->instants;
	struct rkey *keys = malloc((v->count + 1) * sizeof(*keys));
	uint32_t *perm = malloc((v->count + 1) * sizeof(*perm));

	if (!keys || !perm || v->count > UINT32_MAX - 1) {
		free(keys);
		free(perm);
		return v->count > UINT32_MAX - 1 ? too_many(c) : nomem(c);
	}
	for (size_t i = 0; i < v->count; i++) {
		struct trex_instant *in = TREX_VEC_AT(v, struct trex_instant, i);

		in->track = c->track_new[in->track];
		keys[i] = (struct rkey){in->ts, in->track, (uint32_t)i};
		note_span(c, in->ts, in->ts);
	}
	sort_rkeys(keys, v->count);
	for (size_t i = 0; i < v->count; i++) {
		struct trex_track *t = &c->idx->tracks[keys[i].track];

		perm[i] = keys[i].id;
		if (t->instant_count++ == 0)
			t->first_instant = (uint32_t)i;
	}
	trex_vec_permute(v, perm);
	free(keys);
	free(perm);
	return TREX_OK;
}

static enum trex_status sort_samples(struct bld *c)
{
	struct trex_vec *v = &c->samples;
	struct rkey *keys = malloc((v->count + 1) * sizeof(*keys));
	struct trex_index *idx = c->idx;

	idx->samples = malloc((v->count + 1) * sizeof(*idx->samples));
	if (!keys || !idx->samples || v->count > UINT32_MAX - 1) {
		free(keys);
		return v->count > UINT32_MAX - 1 ? too_many(c) : nomem(c);
	}
	for (size_t i = 0; i < v->count; i++) {
		struct trex_bsample *s = TREX_VEC_AT(v, struct trex_bsample, i);

		keys[i] = (struct rkey){s->ts, c->track_new[s->track], (uint32_t)i};
		note_span(c, s->ts, s->ts);
	}
	sort_rkeys(keys, v->count);
	for (size_t i = 0; i < v->count; i++) {
		const struct trex_bsample *s = TREX_VEC_AT(v, struct trex_bsample, keys[i].id);
		struct trex_track *t = &idx->tracks[keys[i].track];

		idx->samples[i] = (struct trex_counter_sample){s->ts, s->value};
		if (t->sample_count++ == 0)
			t->first_sample = (uint32_t)i;
	}
	idx->nsamples = (uint32_t)v->count;
	free(keys);
	trex_vec_free(v);
	return TREX_OK;
}

/* ---- flows and links
 * ------------------------------------------------------------------------------------ */

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

enum { RADIX = 1 << 16, RADIX_MIN = 4096 };

/* One LSD pass by the 16-bit digit at shift, counts in hist. */
static void radix_pass(const uint64_t *src, uint64_t *dst, size_t n, unsigned shift, size_t *hist)
{
	size_t pos = 0;

	for (size_t d = 0; d < RADIX; d++) {
		size_t k = hist[d];

		hist[d] = pos;
		pos += k;
	}
	for (size_t i = 0; i < n; i++)
		dst[hist[(src[i] >> shift) & (RADIX - 1)]++] = src[i];
}

/* Sorts keys (value << 32 | id) collected in id order by value, keeping id
 * order among equal values: LSD radix on the two 16-bit digits of the
 * value, both counted in one pass; a digit equal in every key costs no
 * pass. Small inputs are sorted whole (same order: ids are unique). */
static bool sort_hi32(uint64_t *keys, size_t n)
{
	uint64_t *tmp, *src = keys, *dst;
	size_t *hist;

	if (n < RADIX_MIN) {
		qsort(keys, n, sizeof(*keys), cmp_u64);
		return true;
	}
	tmp = trex_big_malloc(n * sizeof(*tmp));
	hist = calloc(2 * RADIX, sizeof(*hist));
	if (!tmp || !hist) {
		free(tmp);
		free(hist);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		hist[(keys[i] >> 32) & (RADIX - 1)]++;
		hist[RADIX + (keys[i] >> 48)]++;
	}
	dst = tmp;
	for (unsigned pass = 0; pass < 2; pass++) {
		size_t *h = hist + pass * RADIX;
		unsigned shift = 32 + 16 * pass;

		if (h[(src[0] >> shift) & (RADIX - 1)] == n)
			continue;
		radix_pass(src, dst, n, shift, h);
		dst = src;
		src = src == keys ? tmp : keys;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof(*keys));
	free(tmp);
	free(hist);
	return true;
}

/* ---- binding flow points to slices
 * ---------------------------------------------------------------- Flows come in file order, so
 * consecutive queries on a lane land near each other: each lane keeps the position of its last
 * answer and searches outward from it (galloping), touching few slices per query. */

static inline int64_t lane_ts(const struct trex_index *idx, uint32_t i)
{
	return trex_idx_slice(idx, i)->ts;
}

/* First position in [lo, hi) with ts > t, given that it is in [lo, hi]. */
static uint32_t first_after(const struct trex_index *idx, uint32_t lo, uint32_t hi, int64_t t)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (lane_ts(idx, mid) > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First slice of lane with ts > t, galloping from *hint; updates *hint. */
static uint32_t gallop_after(const struct trex_index *idx, const struct trex_lane *lane, int64_t t,
                             uint32_t *hint)
{
	uint32_t first = lane->first, end = first + lane->count, h = *hint, lo, hi;
	uint64_t step = 1;

	if (h < first || h >= end)
		h = first;
	if (lane_ts(idx, h) <= t) {
		lo = h + 1;
		hi = lo;
		while (hi < end && lane_ts(idx, hi) <= t) {
			lo = hi + 1;
			hi = lo + step < end ? (uint32_t)(lo + step) : end;
			step *= 2;
		}
	} else {
		hi = h;
		lo = h;
		while (lo > first && lane_ts(idx, lo - 1) > t) {
			hi = lo - 1;
			lo = hi - first > step ? (uint32_t)(hi - step) : first;
			step *= 2;
		}
	}
	*hint = first_after(idx, lo, hi, t);
	return *hint;
}

/* Deepest slice whose closed span [ts, end] holds t (s, t and bp:"e" f
 * points bind this way), TREX_NONE if none. */
static uint32_t bind_enclosing(const struct trex_index *idx, uint32_t track, int64_t t,
                               uint32_t *hints)
{
	const struct trex_track *tr = &idx->tracks[track];

	for (uint32_t d = tr->lane_count; d-- > 0;) {
		uint32_t l = tr->first_lane + d;
		uint32_t i = gallop_after(idx, &idx->lanes[l], t, &hints[l]);

		if (i > idx->lanes[l].first && t <= trex_slice_end(trex_idx_slice(idx, i - 1)))
			return i - 1;
	}
	return TREX_NONE;
}

/* The slice starting first at or after t (the shallowest on ties): where a
 * plain f point binds. TREX_NONE if none. */
static uint32_t bind_next(const struct trex_index *idx, uint32_t track, int64_t t, uint32_t *hints)
{
	const struct trex_track *tr = &idx->tracks[track];
	uint32_t best = TREX_NONE;

	for (uint32_t d = 0; d < tr->lane_count; d++) {
		uint32_t l = tr->first_lane + d;
		const struct trex_lane *lane = &idx->lanes[l];
		uint32_t i =
		    t == INT64_MIN ? lane->first : gallop_after(idx, lane, t - 1, &hints[l]);

		if (i < lane->first + lane->count &&
		    (best == TREX_NONE || lane_ts(idx, i) < lane_ts(idx, best)))
			best = i;
	}
	return best;
}

/* Flows are bound in ranges, one per task, each with its own search hints
 * and counts (summed afterwards, in task order). */
struct bind_task {
	uint32_t *hints;              /* per lane */
	struct trex_integrity *integ; /* per file */
	struct trex_earliest *unbound_ex; /* per file */
	int64_t start, end;           /* span seen, start > end if none */
};

/* A flow point on no slice: counted and offered as an example of file. */
static void unbound_point(struct bind_task *t, uint32_t file, const struct trex_flow *f, bool to)
{
	t->integ[file].unbound_flow_points++;
	trex_earliest_offer(&t->unbound_ex[file],
	                    &(struct trex_problem_cand){to ? f->to_ts : f->from_ts, to,
	                                                to ? f->to_track : f->from_track, f->name});
}

struct bind_job {
	struct bld *c;
	struct bind_task *tasks;
	size_t ntasks;
	bool failed;
};

static void bind_range(struct bld *c, struct bind_task *t, size_t lo, size_t hi)
{
	struct trex_index *idx = c->idx;

	for (size_t i = lo; i < hi; i++) {
		struct trex_flow *f = TREX_VEC_AT(&idx->flows, struct trex_flow, i);
		bool from_step = f->from_slice, to_enclosing = f->to_slice;
		uint32_t file;

		f->from_track = c->track_new[f->from_track];
		f->to_track = c->track_new[f->to_track];
		file = track_file(idx, f->from_track);
		f->from_slice = bind_enclosing(idx, f->from_track, f->from_ts, t->hints);
		f->to_slice = to_enclosing ? bind_enclosing(idx, f->to_track, f->to_ts, t->hints)
		                           : bind_next(idx, f->to_track, f->to_ts, t->hints);
		if (f->from_slice == TREX_NONE && !from_step)
			unbound_point(t, file, f, false);
		if (f->to_slice == TREX_NONE)
			unbound_point(t, file, f, true);
		t->start = f->from_ts < t->start ? f->from_ts : t->start;
		t->start = f->to_ts < t->start ? f->to_ts : t->start;
		t->end = f->from_ts > t->end ? f->from_ts : t->end;
		t->end = f->to_ts > t->end ? f->to_ts : t->end;
	}
}

static void bind_task_main(void *arg, size_t k, unsigned worker)
{
	struct bind_job *j = arg;
	size_t n = j->c->idx->flows.count;

	(void)worker;
	bind_range(j->c, &j->tasks[k], n * k / j->ntasks, n * (k + 1) / j->ntasks);
}

/* Link tables: flow ids by the slice at each end, and per file the slice
 * ids by correlation and by External id. Each table is one task sorting
 * keys (value << 32 | id) of its own, so the tables build in parallel. */
struct link_job {
	struct trex_index *idx;
	atomic_bool failed;
};

/* Flows by (from_slice, id) or (to_slice, id). */
static bool flow_order(struct trex_index *idx, bool to, uint32_t *out)
{
	size_t n = idx->flows.count;
	uint64_t *keys = trex_big_malloc((n + 1) * sizeof(*keys));
	bool ok = keys != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		const struct trex_flow *f = trex_idx_flow(idx, (uint32_t)i);

		keys[i] = ((uint64_t)(to ? f->to_slice : f->from_slice) << 32) | i;
	}
	ok = ok && sort_hi32(keys, n);
	for (size_t i = 0; ok && i < n; i++)
		out[i] = (uint32_t)keys[i];
	free(keys);
	return ok;
}

/* File f's slices by (corr, id) or (ext_id, id). */
static bool file_links(struct trex_index *idx, const struct trex_file_links *fl, bool ext)
{
	size_t n = 0, want = ext ? fl->ext_count : fl->corr_count;
	uint16_t flag = ext ? TREX_SLICE_HAS_EXT_ID : TREX_SLICE_HAS_CORR;
	uint32_t *out = ext ? idx->ext_ids + fl->ext_first : idx->corr_ids + fl->corr_first;
	uint64_t *keys = trex_big_malloc((want + 1) * sizeof(*keys));

	if (!keys)
		return false;
	for (uint32_t i = fl->first_slice; i < fl->first_slice + fl->slice_count; i++) {
		const struct trex_slice *s = trex_idx_slice(idx, i);

		if ((s->flags & flag) && n < want)
			keys[n++] = ((uint64_t)(ext ? s->ext_id : s->corr) << 32) | i;
	}
	if (!sort_hi32(keys, n)) {
		free(keys);
		return false;
	}
	for (size_t k = 0; k < n; k++)
		out[k] = (uint32_t)keys[k];
	free(keys);
	return true;
}

/* Task 2f / 2f + 1: file f's External id / correlation table (the larger
 * usually first). */
static void link_task(struct link_job *j, size_t k)
{
	if (!file_links(j->idx, &j->idx->links[k / 2], k % 2 == 0))
		atomic_store(&j->failed, true);
}

/* Task 0 / 1: flows by their from / to slice. */
static void flow_link_task(void *arg, size_t k, unsigned worker)
{
	struct link_job *j = arg;

	(void)worker;
	if (!flow_order(j->idx, k == 1, k == 1 ? j->idx->flows_in : j->idx->flows_out))
		atomic_store(&j->failed, true);
}

/* Binding flows (in ranges) and the files' link tables are independent:
 * one set of tasks, the largest tables first. */
struct bind_link_job {
	struct bind_job *bind;
	struct link_job *link;
	size_t nfile; /* 2 per file */
};

static void bind_link_task(void *arg, size_t k, unsigned worker)
{
	struct bind_link_job *j = arg;

	(void)worker;
	if (k < j->nfile)
		link_task(j->link, k);
	else
		bind_task_main(j->bind, k - j->nfile, worker);
}

/* Binds both ends of every flow to slices, counting points on none, and
 * builds the files' link tables alongside. */
static enum trex_status index_flows(struct bld *c)
{
	struct trex_index *idx = c->idx;
	unsigned threads = par_threads(c, idx->slices.count + idx->flows.count);
	size_t nc = 0, ne = 0, n = idx->flows.count;
	struct bind_job b = {c, calloc(threads, sizeof(*b.tasks)), threads, false};
	struct link_job l = {idx, false};
	struct bind_link_job j = {&b, &l, 2 * (size_t)idx->nfiles};
	bool ok;

	for (uint32_t f = 0; f < idx->nfiles; f++) {
		struct trex_file_links *fl = &idx->links[f];

		fl->corr_first = nc;
		fl->ext_first = ne;
		nc += fl->corr_count;
		ne += fl->ext_count;
	}
	atomic_init(&l.failed, false);
	idx->corr_ids = malloc((nc + 1) * sizeof(*idx->corr_ids));
	idx->ext_ids = malloc((ne + 1) * sizeof(*idx->ext_ids));
	idx->flows_out = malloc((n + 1) * sizeof(*idx->flows_out));
	idx->flows_in = malloc((n + 1) * sizeof(*idx->flows_in));
	ok = b.tasks && idx->corr_ids && idx->ext_ids && idx->flows_out && idx->flows_in;
	for (size_t k = 0; ok && k < b.ntasks; k++) {
		b.tasks[k].hints = calloc((size_t)idx->nlanes + 1, sizeof(*b.tasks[k].hints));
		b.tasks[k].integ = calloc((size_t)idx->nfiles + 1, sizeof(*b.tasks[k].integ));
		b.tasks[k].unbound_ex =
		    calloc((size_t)idx->nfiles + 1, sizeof(*b.tasks[k].unbound_ex));
		b.tasks[k].start = INT64_MAX;
		b.tasks[k].end = INT64_MIN;
		ok = b.tasks[k].hints && b.tasks[k].integ && b.tasks[k].unbound_ex;
	}
	if (ok)
		trex_task_run(threads, j.nfile + b.ntasks, bind_link_task, &j);
	for (size_t k = 0; b.tasks && k < b.ntasks; k++) {
		if (ok && b.tasks[k].start <= b.tasks[k].end) {
			note_span(c, b.tasks[k].start, b.tasks[k].start);
			note_span(c, b.tasks[k].end, b.tasks[k].end);
		}
		for (uint32_t f = 0; ok && f < idx->nfiles; f++) {
			trex_integrity_add(&c->integ[f], &b.tasks[k].integ[f]);
			trex_earliest_merge(cand_of(c, f, TREX_INTEG_unbound_flow_points),
			                    &b.tasks[k].unbound_ex[f]);
		}
		free(b.tasks[k].hints);
		free(b.tasks[k].integ);
		free(b.tasks[k].unbound_ex);
	}
	free(b.tasks);
	return ok && !atomic_load(&l.failed) ? TREX_OK : nomem(c);
}

/* The flow tables, once flows are bound. */
static enum trex_status build_links(struct bld *c)
{
	struct trex_index *idx = c->idx;
	struct link_job l = {idx, false};

	atomic_init(&l.failed, false);
	trex_task_run(par_threads(c, idx->flows.count), 2, flow_link_task, &l);
	return atomic_load(&l.failed) ? nomem(c) : TREX_OK;
}

/* ---- files, setup and teardown
 * ----------------------------------------------------------------------- */

static uint32_t intern_c(struct bld *c, const char *s)
{
	return s ? trex_strtab_intern(c->idx->strs, s, strlen(s)) : TREX_STR_NONE;
}

static enum trex_status fill_file(struct bld *c, uint32_t f)
{
	const struct trex_build_file *in = &c->in->files[f];
	struct trex_file *out = &c->idx->files[f];

	out->path = intern_c(c, in->path);
	out->format = intern_c(c, in->format);
	out->dialect = intern_c(c, in->dialect);
	if (out->path == TREX_STR_ERROR || out->format == TREX_STR_ERROR ||
	    out->dialect == TREX_STR_ERROR)
		return nomem(c);
	out->rank = in->rank;
	out->has_rank = in->has_rank;
	out->gzip = in->gzip;
	out->truncated = in->truncated;
	out->base_time_ns = in->base_time_ns;
	out->bytes_on_disk = in->bytes_on_disk;
	out->bytes_decoded = in->bytes_decoded;
	memcpy(out->phase_counts, in->phase_counts, sizeof(out->phase_counts));
	out->events = in->events;
	out->integrity = in->integrity;
	out->first_problem = in->first_problem;
	return TREX_OK;
}

/* Takes the sources at once, so that on any failure the index (or, when
 * not even that exists, this function) closes them. */
static enum trex_status take_sources(struct bld *c)
{
	const struct trex_build_input *in = c->in;
	struct trex_index *idx = calloc(1, sizeof(*idx));

	if (idx)
		idx->files = calloc(in->file_count + 1, sizeof(*idx->files));
	if (!idx || !idx->files || in->file_count > UINT32_MAX - 1) {
		for (size_t f = 0; f < in->file_count; f++) {
			trex_source_close(in->files[f].source);
			in->files[f].source = NULL;
		}
		free(idx);
		return nomem(c);
	}
	c->idx = idx;
	idx->nfiles = (uint32_t)in->file_count;
	for (size_t f = 0; f < in->file_count; f++) {
		idx->files[f].source = in->files[f].source;
		in->files[f].source = NULL;
	}
	return TREX_OK;
}

static enum trex_status bld_init(struct bld *c)
{
	struct trex_index *idx;
	size_t nf = c->in->file_count + 1;
	enum trex_status st = take_sources(c);

	if (st != TREX_OK)
		return st;
	idx = c->idx;
	trex_vec_init(&idx->slices, sizeof(struct trex_slice));
	trex_vec_init(&idx->instants, sizeof(struct trex_instant));
	trex_vec_init(&idx->flows, sizeof(struct trex_flow));
	trex_vec_init(&c->samples, sizeof(struct trex_bsample));
	trex_vec_init(&c->rest, sizeof(struct trex_slice));
	idx->start = 1; /* start > end: no event seen yet */
	idx->end = 0;
	c->pool_free = TREX_NONE;
	idx->strs = trex_strtab_new();
	c->integ = calloc(nf, sizeof(*c->integ));
	c->file_end = calloc(nf, sizeof(*c->file_end));
	c->cand = calloc(nf * TREX_INTEG_COUNT, sizeof(*c->cand));
	idx->problems = calloc(nf, sizeof(*idx->problems));
	if (!idx->strs || !c->integ || !c->file_end || !c->cand || !idx->problems)
		return nomem(c);
	for (uint32_t f = 0; f < idx->nfiles; f++) {
		st = fill_file(c, f);
		if (st != TREX_OK)
			return st;
	}
	return TREX_OK;
}

static void bld_free(struct bld *c)
{
	const struct trex_build_input *in = c->in;

	for (size_t i = 0; i < in->part_count; i++) {
		trex_builder_free(in->parts[i]);
		in->parts[i] = NULL;
	}
	free(c->procs);
	free(c->tracks);
	trex_kmap_free(&c->proc_map);
	trex_kmap_free(&c->track_map);
	trex_vec_free(&c->samples);
	trex_vec_free(&c->rest);
	free(c->cat_cls);
	free(c->integ);
	free(c->cand);
	free(c->file_end);
	pmerge_free(c);
	free(c->be_top);
	free(c->pool);
	trex_kmap_free(&c->async_map);
	free(c->async_tops);
	flow_parts_free(c);
	free(c->track_new);
}

/* Integrity counts are final only after every stage; file records take
 * them last, with the build's own examples after the loader's. */
static enum trex_status add_integrity(struct bld *c)
{
	for (uint32_t f = 0; f < c->idx->nfiles; f++) {
		trex_integrity_add(&c->idx->files[f].integrity, &c->integ[f]);
		for (int k = 0; k < TREX_INTEG_COUNT; k++) {
			if (!trex_problems_add_cands(&c->idx->problems[f],
			                             (enum trex_integrity_counter)k,
			                             cand_of(c, f, (enum trex_integrity_counter)k)))
				return nomem(c);
		}
		trex_problems_complete(c->idx, f);
	}
	return TREX_OK;
}

/* Examples found before the tracks were put in display order follow them. */
static void renumber_problem_tracks(struct bld *c)
{
	for (uint32_t f = 0; f < c->idx->nfiles; f++) {
		trex_problems_remap_tracks(&c->idx->problems[f], c->track_new, c->ntracks);
		for (int k = 0; k < TREX_INTEG_COUNT; k++)
			trex_earliest_remap_tracks(cand_of(c, f, (enum trex_integrity_counter)k),
			                           c->track_new, c->ntracks);
	}
}

static void freeze(struct trex_index *idx)
{
	if (idx->start > idx->end) {
		idx->start = 0;
		idx->end = 0;
	}
	trex_vec_shrink(&idx->slices);
	trex_vec_shrink(&idx->instants);
	trex_vec_shrink(&idx->flows);
	trex_strtab_shrink(idx->strs);
}

static enum trex_status build_stages(struct bld *c)
{
	enum trex_status st = check_parts(c);

	if (st != TREX_OK)
		return st;
	compute_file_ends(c);
	st = merge_all(c);
	if (st == TREX_OK)
		st = order_all(c);
	if (st == TREX_OK)
		renumber_problem_tracks(c);
	if (st == TREX_OK)
		st = sort_slices(c);
	if (st == TREX_OK)
		st = sort_instants(c);
	if (st == TREX_OK)
		st = sort_samples(c);
	if (st == TREX_OK)
		st = index_flows(c);
	if (st == TREX_OK)
		st = build_links(c);
	return st;
}

enum trex_status trex_index_build(const struct trex_build_input *in, struct trex_index **out,
                                  struct trex_error *err)
{
	struct bld c;
	enum trex_status st;

	*out = NULL;
	trex_error_clear(err);
	memset(&c, 0, sizeof(c));
	c.in = in;
	c.err = err;
	st = bld_init(&c);
	if (st == TREX_OK)
		st = build_stages(&c);
	if (st == TREX_OK)
		st = add_integrity(&c);
	bld_free(&c);
	if (st != TREX_OK) {
		trex_index_free(c.idx);
		return st;
	}
	freeze(c.idx);
	*out = c.idx;
	return TREX_OK;
}
