#include "config.h"

#include "trex/core/builder.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_internal.h"
#include "trex/core/kind.h"
#include "trex/load/source.h"

/* trex_index_build() in stages:
 *
 *  1. merge: builders are consumed in order (each freed as soon as it is
 *     read), their strings and tracks remapped to global ones, X slices
 *     moved or copied into the index's blocked slice store, B/E and async
 *     b/e paired into slices (placed at the B, so store order stays file
 *     order); per file, what is left open is closed at its end and flow
 *     points are matched into hops;
 *  2. order: processes and tracks are sorted for display and renumbered;
 *  3. slices: counting sort by track into a permutation of ids, per-track
 *     sort by (ts, dur desc, file order) that is a linear check for sorted
 *     input, depths with a stack (each slice learns its lane and its rank
 *     in it), then an in-place radix placement puts the store in (track,
 *     depth, ts) order;
 *  4. instants, samples, flows (bound to slices) and link tables. */

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
	uint8_t *cat_cls;
	size_t cat_cls_cap;
	struct trex_integrity *integ; /* the build's own counts, per file */
	int64_t *file_end;
	/* the part being merged */
	uint32_t *smap, *pmap, *tmap;
	size_t smap_cap, pmap_cap, tmap_cap;
	uint32_t nsmap, npmap, ntmap;
	bool bad_id;
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
	struct trex_vec fpts;    /* struct fpoint: the file's flow points in order */
	struct trex_vec *fparts; /* struct fkey, by key hash */
	uint32_t nfparts;
	uint32_t *prev; /* per flow point: the point it continues, or NONE */
	struct chain *chains;
	size_t chains_cap;
	uint32_t *chain_slots; /* chain index + 1, 0 = empty */
	size_t slots_cap;
	struct fkey *sorted_keys; /* one partition's keys in chain time order */
	size_t sorted_keys_cap;
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

/* A local string id of the part being merged, as a global one. Bad ids
 * (a loader bug) are remembered and fail the build after the part. */
static inline uint32_t gstr(struct bld *c, uint32_t id)
{
	if (id >= c->nsmap) {
		c->bad_id = true;
		return TREX_STR_NONE;
	}
	return c->smap[id];
}

static inline uint32_t gtrk(struct bld *c, uint32_t id)
{
	if (id >= c->ntmap) {
		c->bad_id = true;
		return 0;
	}
	return c->tmap[id];
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
	return TREX_VEC_AT(&c->idx->slices, struct trex_slice, id);
}

/* Closes an open B/b slice at end time t (index clock). */
static void close_slice(struct bld *c, uint32_t id, int64_t t)
{
	struct trex_slice *s = gslice(c, id);
	int64_t dur = sub_sat(t, s->ts);

	if (dur < 0) {
		s->dur = 0;
		s->flags |= TREX_SLICE_REVERSED;
		c->integ[c->file].reversed++;
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
		c->integ[c->file].unmatched_begin++;
	}
}

/* ---- merging one part: ids ------------------------------------------------------------------ */

static enum trex_status map_strings(struct bld *c, struct trex_builder *b)
{
	uint32_t n = trex_strtab_count(b->strs);

	if (!GROW(c->smap, c->smap_cap, n))
		return nomem(c);
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *s = trex_strtab_get(b->strs, i, &len);

		c->smap[i] = trex_strtab_intern(c->idx->strs, s, len);
		if (c->smap[i] == TREX_STR_ERROR)
			return nomem(c);
	}
	c->nsmap = n;
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

static enum trex_status map_tracks(struct bld *c, struct trex_builder *b)
{
	if (!GROW(c->pmap, c->pmap_cap, b->nprocs) || !GROW(c->tmap, c->tmap_cap, b->ntracks))
		return nomem(c);
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
	c->npmap = b->nprocs;
	c->ntmap = b->ntracks;
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

	if (c->idx->slices.count >= UINT32_MAX - 1)
		return too_many(c);
	*id = (uint32_t)c->idx->slices.count;
	dst = trex_vec_push(&c->idx->slices);
	if (!dst)
		return nomem(c);
	*dst = *s;
	return TREX_OK;
}

/* An X record made global: negative durations clamp to 0 (REVERSED). */
static void prepare_x(struct bld *c, struct trex_slice *s)
{
	globalize(c, s);
	if (s->dur < 0) {
		s->dur = 0;
		s->flags |= TREX_SLICE_REVERSED;
		c->integ[c->file].reversed++;
	}
	if (s->ts > 0 && s->dur > INT64_MAX - s->ts) { /* keep ts + dur computable */
		s->dur = INT64_MAX - s->ts;
		s->flags |= TREX_SLICE_TS_SATURATED;
	}
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
			c->integ[c->file].unmatched_end++;
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

/* A part without B/E hands its X slices over whole: remapped where they
 * are, their blocks moved into the index. */
static enum trex_status adopt_slices(struct bld *c, struct trex_builder *b, bool *adopted)
{
	struct trex_vec *v = &b->slices;

	*adopted = false;
	if (b->be.count || !v->count || c->idx->slices.count + v->count >= UINT32_MAX - 1)
		return TREX_OK;
	if ((c->idx->slices.count & TREX_VEC_MASK) || c->idx->slices.count != c->idx->slices.cap ||
	    (c->idx->slices.count && v->cap < TREX_VEC_BLOCK))
		return TREX_OK;
	for (size_t i = 0; i < v->count; i++)
		prepare_x(c, SL(v, i));
	if (!trex_vec_adopt(&c->idx->slices, v))
		return nomem(c);
	*adopted = true;
	return TREX_OK;
}

static enum trex_status merge_slices(struct bld *c, struct trex_builder *b)
{
	size_t ix = 0, ib = 0, nx = b->slices.count, nb = b->be.count;
	bool adopted;
	enum trex_status st = adopt_slices(c, b, &adopted);

	if (st != TREX_OK || adopted)
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
	if (*top == TREX_NONE)
		c->integ[c->file].unmatched_end++;
	else
		close_slice(c, stack_pop(c, top), s.ts);
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

/* A flow point goes to the file's point list and its key to a partition;
 * chains are matched when the file is complete (match_flows). */
static enum trex_status merge_flow(struct bld *c, const struct trex_bflow *p)
{
	uint32_t cat = gstr(c, p->cat), id_str = gstr(c, p->id_str);
	uint64_t h = trex_kmap_hash(cat, p->id, id_str);
	struct fpoint *pt;
	struct fkey *k;

	if (c->fpts.count >= UINT32_MAX - 1)
		return too_many(c);
	pt = trex_vec_push(&c->fpts);
	if (!pt)
		return nomem(c);
	*pt = (struct fpoint){add_sat(p->ts, c->base, NULL),
	                      gtrk(c, p->track),
	                      gstr(c, p->name),
	                      cat,
	                      (uint8_t)p->phase,
	                      p->enclosing};
	k = trex_vec_push(&c->fparts[(h >> 40) & (c->nfparts - 1)]);
	if (!k)
		return nomem(c);
	*k = (struct fkey){p->id, pt->ts, cat, id_str, (uint32_t)(c->fpts.count - 1),
			   (uint8_t)p->phase};
	return TREX_OK;
}

static enum trex_status merge_flows(struct bld *c, struct trex_builder *b)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; st == TREX_OK && i < b->flows.count; consume(&b->flows, &i))
		st = merge_flow(c, TREX_VEC_AT(&b->flows, struct trex_bflow, i));
	return st;
}

/* ---- flow matching
 * --------------------------------------------------------------------------------- */

static struct chain *chain_find(struct bld *c, const struct fkey *k, uint32_t *nchains, size_t mask)
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
static void match_point(struct bld *c, struct chain *ch, const struct fkey *k)
{
	struct trex_integrity *in = &c->integ[c->file];

	c->prev[k->seq] = TREX_NONE;
	if (k->phase == 's') {
		if (ch->open && !ch->has_edge)
			in->orphan_flow_start++;
		ch->last = k->seq;
		ch->open = 1;
		ch->has_edge = 0;
		return;
	}
	if (!ch->open) {
		in->orphan_flow_end++;
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
static enum trex_status match_partition(struct bld *c, const struct trex_vec *keys)
{
	size_t n = keys->count, cap = 16;
	uint32_t nchains = 0;

	while (cap < 2 * n)
		cap *= 2;
	if (!GROW(c->chains, c->chains_cap, n) || !GROW(c->chain_slots, c->slots_cap, cap) ||
	    !GROW(c->sorted_keys, c->sorted_keys_cap, n))
		return nomem(c);
	for (size_t i = 0; i < n; i++)
		c->sorted_keys[i] = *TREX_VEC_AT(keys, struct fkey, i);
	if (n > 1)
		qsort(c->sorted_keys, n, sizeof(*c->sorted_keys), fkey_order);
	memset(c->chain_slots, 0, cap * sizeof(*c->chain_slots));
	for (size_t i = 0; i < n; i++)
		match_point(c, chain_find(c, &c->sorted_keys[i], &nchains, cap - 1),
			    &c->sorted_keys[i]);
	for (uint32_t i = 0; i < nchains; i++) {
		if (c->chains[i].open && !c->chains[i].has_edge)
			c->integ[c->file].orphan_flow_start++;
	}
	return TREX_OK;
}

/* One flow per hop, in file order of the hop's end. Until flows are bound
 * to slices, from_slice says whether the from point is a step (counted as
 * unbound already as the previous hop's end) and to_slice how the end
 * binds. */
static enum trex_status emit_flows(struct bld *c)
{
	for (size_t i = 0; i < c->fpts.count; i++) {
		const struct fpoint *to, *from;
		struct trex_flow *f;

		if (c->prev[i] == TREX_NONE)
			continue;
		to = TREX_VEC_AT(&c->fpts, struct fpoint, i);
		from = TREX_VEC_AT(&c->fpts, struct fpoint, c->prev[i]);
		f = trex_vec_push(&c->idx->flows);
		if (!f)
			return nomem(c);
		*f = (struct trex_flow){from->phase == 't', to->encl, from->track, to->track,
		                        from->ts,           to->ts,   from->cat,   from->name};
	}
	return TREX_OK;
}

static void flow_parts_free(struct bld *c)
{
	for (uint32_t p = 0; c->fparts && p < c->nfparts; p++)
		trex_vec_free(&c->fparts[p]);
	free(c->fparts);
	c->fparts = NULL;
	c->nfparts = 0;
	trex_vec_free(&c->fpts);
	free(c->prev);
	c->prev = NULL;
}

static enum trex_status match_flows(struct bld *c)
{
	enum trex_status st = TREX_OK;

	c->prev = malloc((c->fpts.count + 1) * sizeof(*c->prev));
	if (!c->prev)
		st = nomem(c);
	for (uint32_t p = 0; st == TREX_OK && p < c->nfparts; p++) {
		st = match_partition(c, &c->fparts[p]);
		trex_vec_free(&c->fparts[p]);
	}
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

/* Per-file state; flow keys get about FLOW_PART_KEYS per partition. */
static enum trex_status start_file(struct bld *c, size_t part)
{
	const struct trex_build_input *in = c->in;
	uint32_t file = in->parts[part]->file;
	size_t points = 0;

	c->file = file;
	c->file_first_track = c->ntracks;
	c->seq_base = 0;
	c->base = in->files[file].base_time_ns;
	for (size_t i = part; i < in->part_count && in->parts[i]->file == file; i++)
		points += in->parts[i]->flows.count;
	c->nfparts = 1;
	while (c->nfparts < FLOW_PARTS_MAX && (size_t)c->nfparts * FLOW_PART_KEYS < points)
		c->nfparts *= 2;
	trex_vec_init(&c->fpts, sizeof(struct fpoint));
	c->fparts = calloc(c->nfparts, sizeof(*c->fparts));
	if (!c->fparts)
		return nomem(c);
	for (uint32_t p = 0; p < c->nfparts; p++) {
		trex_vec_init(&c->fparts[p], sizeof(struct fkey));
		if (!trex_vec_reserve(&c->fparts[p], points / c->nfparts * 5 / 4 + 16))
			return nomem(c);
	}
	return trex_vec_reserve(&c->fpts, points) ? TREX_OK : nomem(c);
}

static enum trex_status merge_part(struct bld *c, struct trex_builder *b)
{
	enum trex_status st;

	if (b->failed)
		return nomem(c);
	if (c->seq_base + b->seq > UINT32_MAX)
		return too_many(c);
	c->bad_id = false;
	st = map_strings(c, b);
	if (st == TREX_OK)
		st = map_tracks(c, b);
	if (st == TREX_OK)
		st = merge_slices(c, b);
	if (st == TREX_OK)
		st = merge_asyncs(c, b);
	if (st == TREX_OK)
		st = merge_instants(c, b);
	if (st == TREX_OK)
		st = merge_samples(c, b);
	if (st == TREX_OK)
		st = merge_flows(c, b);
	if (st == TREX_OK && c->bad_id)
		st = trex_error_set(c->err, TREX_USAGE, c->in->files[c->file].path, -1,
		                    "builder: string, track or process id out of range");
	c->seq_base += b->seq;
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

	for (size_t i = 0; i < in->part_count && st == TREX_OK; i++) {
		struct trex_builder *b = in->parts[i];

		if (i == 0 || b->file != c->file) {
			if (i > 0)
				st = finish_file(c);
			if (st == TREX_OK)
				st = start_file(c, i);
		}
		if (st == TREX_OK)
			st = merge_part(c, b);
		trex_builder_free(b);
		in->parts[i] = NULL;
	}
	if (st == TREX_OK && in->part_count > 0)
		st = finish_file(c);
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
	uint32_t ntracks;
	atomic_uint next;
	atomic_int status;
	atomic_uint bad_track;
};

struct sort_worker {
	struct slice_sort *ss;
	uint32_t *tmp;
	size_t cap;
	int64_t *stack;   /* ends of the open slices, DEPTH_LIMIT entries */
	uint32_t *counts; /* slices per depth, DEPTH_LIMIT entries */
	pthread_t thread;
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

static void sort_ids(const struct trex_vec *v, uint32_t *ids, uint32_t *tmp, size_t n)
{
	if (ids_sorted(v, ids, n))
		return;
	if (!insertion_sort(v, ids, n, 4 * n + 1024))
		merge_sort(v, ids, tmp, n);
}

/* Depth by a stack of open slice ends: a slice sits one deeper than the
 * open slices it starts inside. One that outlives the slice it starts in
 * still nests (flagged OVERLAP); every slice of a lane was popped before
 * the next one entered it, so lanes never overlap. reserved receives the
 * slice's rank in its lane, from which place_slices() knows where it goes. */
static enum trex_status assign_depths(struct sort_worker *w, const uint32_t *ids, size_t n,
                                      struct track_res *r)
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
		}
		if (sp >= DEPTH_LIMIT)
			return TREX_FORMAT;
		if (s->dur == 0 && !(s->flags & TREX_SLICE_REVERSED))
			r->zero++;
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
	sort_ids(ss->v, ids, w->tmp, n);
	return assign_depths(w, ids, n, &ss->res[t]);
}

static void *sort_worker_main(void *arg)
{
	struct sort_worker *w = arg;
	struct slice_sort *ss = w->ss;

	while (atomic_load(&ss->status) == TREX_OK) {
		unsigned k = atomic_fetch_add(&ss->next, 1);
		uint32_t t;
		int expected = TREX_OK;
		enum trex_status st;

		if (k >= ss->ntracks)
			break;
		t = ss->order ? ss->order[k] : k;
		st = sort_track(w, t);
		if (st != TREX_OK &&
		    atomic_compare_exchange_strong(&ss->status, &expected, (int)st))
			atomic_store(&ss->bad_track, t);
	}
	return NULL;
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
	unsigned n = c->in->threads;

	/* Threads only pay off on large inputs. */
	if (n <= 1 || c->idx->slices.count < ((size_t)1 << 16))
		return 1;
	if (n > 64)
		n = 64;
	return n < ss->ntracks ? n : (ss->ntracks ? ss->ntracks : 1);
}

static bool worker_init(struct sort_worker *w, struct slice_sort *ss)
{
	memset(w, 0, sizeof(*w));
	w->ss = ss;
	w->stack = malloc(DEPTH_LIMIT * sizeof(*w->stack));
	w->counts = malloc(DEPTH_LIMIT * sizeof(*w->counts));
	return w->stack && w->counts;
}

static void worker_free(struct sort_worker *w)
{
	free(w->tmp);
	free(w->stack);
	free(w->counts);
}

/* Sorts and nests every track, on up to in->threads threads; tracks are
 * independent, so the result does not depend on the thread count. */
static enum trex_status run_workers(struct bld *c, struct slice_sort *ss)
{
	unsigned n = worker_count(c, ss), started = 1;
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
	/* A thread that cannot start leaves its share to the others. */
	while (started < n &&
	       pthread_create(&w[started].thread, NULL, sort_worker_main, &w[started]) == 0)
		started++;
	sort_worker_main(&w[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	for (unsigned i = 0; i < n; i++)
		worker_free(&w[i]);
	free(w);
	return (enum trex_status)atomic_load(&ss->status);
}

/* Counting sort of slice ids by (display order) track. Also renumbers
 * each slice's track. */
static enum trex_status bucket_slices(struct bld *c, struct slice_sort *ss)
{
	struct trex_vec *v = &c->idx->slices;
	uint32_t *next;

	ss->first = calloc((size_t)ss->ntracks + 1, sizeof(*ss->first));
	ss->perm = malloc((v->count + 1) * sizeof(*ss->perm));
	ss->res = calloc((size_t)ss->ntracks + 1, sizeof(*ss->res));
	next = malloc(((size_t)ss->ntracks + 1) * sizeof(*next));
	if (!ss->first || !ss->perm || !ss->res || !next) {
		free(next);
		return nomem(c);
	}
	for (size_t i = 0; i < v->count; i++) {
		struct trex_slice *s = SL(v, i);

		s->track = c->track_new[s->track];
		ss->first[s->track + 1]++;
	}
	for (uint32_t t = 0; t < ss->ntracks; t++) {
		ss->first[t + 1] += ss->first[t];
		next[t] = ss->first[t];
	}
	for (size_t i = 0; i < v->count; i++)
		ss->perm[next[SL(v, i)->track]++] = (uint32_t)i;
	free(next);
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

/* Moves every slice to its place in (track, depth, ts) order, in place
 * but for a buffer of PLACE_BUF records. */
static enum trex_status place_slices(struct bld *c)
{
	struct trex_vec *v = &c->idx->slices;
	struct trex_slice *buf = malloc(PLACE_BUF * sizeof(*buf));

	if (!buf)
		return nomem(c);
	if (v->count)
		place_range(c->idx, v, 0, v->count, buf);
	free(buf);
	return TREX_OK;
}

static void slice_sort_free(struct slice_sort *ss)
{
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
	atomic_init(&ss.next, 0);
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
	tmp = malloc(n * sizeof(*tmp));
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

/* Binds both ends of every flow to slices, counting points on none. */
static void bind_flows(struct bld *c, uint32_t *hints)
{
	struct trex_index *idx = c->idx;

	for (size_t i = 0; i < idx->flows.count; i++) {
		struct trex_flow *f = TREX_VEC_AT(&idx->flows, struct trex_flow, i);
		bool from_step = f->from_slice, to_enclosing = f->to_slice;
		struct trex_integrity *integ;

		f->from_track = c->track_new[f->from_track];
		f->to_track = c->track_new[f->to_track];
		integ = &c->integ[track_file(idx, f->from_track)];
		f->from_slice = bind_enclosing(idx, f->from_track, f->from_ts, hints);
		f->to_slice = to_enclosing ? bind_enclosing(idx, f->to_track, f->to_ts, hints)
		                           : bind_next(idx, f->to_track, f->to_ts, hints);
		if (f->from_slice == TREX_NONE && !from_step)
			integ->unbound_flow_points++;
		if (f->to_slice == TREX_NONE)
			integ->unbound_flow_points++;
		note_span(c, f->from_ts, f->from_ts);
		note_span(c, f->to_ts, f->to_ts);
	}
}

/* Flow ids ordered by (slice at one end, id). */
static bool flow_order(struct trex_index *idx, bool to, uint64_t *keys, uint32_t *out)
{
	size_t n = idx->flows.count;

	for (size_t i = 0; i < n; i++) {
		const struct trex_flow *f = trex_idx_flow(idx, (uint32_t)i);

		keys[i] = ((uint64_t)(to ? f->to_slice : f->from_slice) << 32) | i;
	}
	if (!sort_hi32(keys, n))
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = (uint32_t)keys[i];
	return true;
}

static enum trex_status index_flows(struct bld *c)
{
	struct trex_index *idx = c->idx;
	size_t n = idx->flows.count;
	uint32_t *hints = calloc((size_t)idx->nlanes + 1, sizeof(*hints));
	uint64_t *keys = malloc((n + 1) * sizeof(*keys));
	bool ok;

	idx->flows_out = malloc((n + 1) * sizeof(*idx->flows_out));
	idx->flows_in = malloc((n + 1) * sizeof(*idx->flows_in));
	ok = hints && keys && idx->flows_out && idx->flows_in;
	if (ok)
		bind_flows(c, hints);
	ok = ok && flow_order(idx, false, keys, idx->flows_out) &&
	     flow_order(idx, true, keys, idx->flows_in);
	free(hints);
	free(keys);
	return ok ? TREX_OK : nomem(c);
}

/* One file's slice ids carrying each link, ordered by (link value, id):
 * keys collected in one pass over the file's slices, then sorted. */
static bool file_links(struct trex_index *idx, const struct trex_file_links *fl, uint64_t *ck,
                       uint64_t *ek)
{
	size_t nc = 0, ne = 0;

	for (uint32_t i = fl->first_slice; i < fl->first_slice + fl->slice_count; i++) {
		const struct trex_slice *s = trex_idx_slice(idx, i);

		if (s->flags & TREX_SLICE_HAS_CORR)
			ck[nc++] = ((uint64_t)s->corr << 32) | i;
		if (s->flags & TREX_SLICE_HAS_EXT_ID)
			ek[ne++] = ((uint64_t)s->ext_id << 32) | i;
	}
	if (!sort_hi32(ck, nc) || !sort_hi32(ek, ne))
		return false;
	for (size_t k = 0; k < nc; k++)
		idx->corr_ids[fl->corr_first + k] = (uint32_t)ck[k];
	for (size_t k = 0; k < ne; k++)
		idx->ext_ids[fl->ext_first + k] = (uint32_t)ek[k];
	return true;
}

static enum trex_status build_links(struct bld *c)
{
	struct trex_index *idx = c->idx;
	size_t nc = 0, ne = 0, most_c = 0, most_e = 0;
	uint64_t *ck, *ek;
	bool ok;

	for (uint32_t f = 0; f < idx->nfiles; f++) {
		struct trex_file_links *fl = &idx->links[f];

		fl->corr_first = nc;
		fl->ext_first = ne;
		nc += fl->corr_count;
		ne += fl->ext_count;
		most_c = fl->corr_count > most_c ? fl->corr_count : most_c;
		most_e = fl->ext_count > most_e ? fl->ext_count : most_e;
	}
	idx->corr_ids = malloc((nc + 1) * sizeof(*idx->corr_ids));
	idx->ext_ids = malloc((ne + 1) * sizeof(*idx->ext_ids));
	ck = malloc((most_c + 1) * sizeof(*ck));
	ek = malloc((most_e + 1) * sizeof(*ek));
	ok = idx->corr_ids && idx->ext_ids && ck && ek;
	for (uint32_t f = 0; ok && f < idx->nfiles; f++)
		ok = file_links(idx, &idx->links[f], ck, ek);
	free(ck);
	free(ek);
	return ok ? TREX_OK : nomem(c);
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
	idx->start = 1; /* start > end: no event seen yet */
	idx->end = 0;
	c->pool_free = TREX_NONE;
	idx->strs = trex_strtab_new();
	c->integ = calloc(nf, sizeof(*c->integ));
	c->file_end = calloc(nf, sizeof(*c->file_end));
	if (!idx->strs || !c->integ || !c->file_end)
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
	free(c->cat_cls);
	free(c->integ);
	free(c->file_end);
	free(c->smap);
	free(c->pmap);
	free(c->tmap);
	free(c->be_top);
	free(c->pool);
	trex_kmap_free(&c->async_map);
	free(c->async_tops);
	flow_parts_free(c);
	free(c->chains);
	free(c->chain_slots);
	free(c->sorted_keys);
	free(c->track_new);
}

/* Integrity counts are final only after every stage; file records take
 * them last. */
static void add_integrity(struct bld *c)
{
	for (uint32_t f = 0; f < c->idx->nfiles; f++)
		trex_integrity_add(&c->idx->files[f].integrity, &c->integ[f]);
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
		add_integrity(&c);
	bld_free(&c);
	if (st != TREX_OK) {
		trex_index_free(c.idx);
		return st;
	}
	freeze(c.idx);
	*out = c.idx;
	return TREX_OK;
}
