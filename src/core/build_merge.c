/* Stage 1: the parts of each file merged into the global store, in file
 * order (build_internal.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "outliers.h"
#include "trex/core/task.h"

/* ---- global processes and tracks ---------------------------------------------------- */

static uint32_t gproc_get(struct bld *c, uint32_t file, uint32_t pid)
{
	uint32_t *slot = trex_kmap_insert(&c->proc_map, ((uint64_t)file << 32) | pid, 0, 0);

	if (!slot)
		return TREX_NONE;
	if (*slot != TREX_NONE)
		return *slot;
	if (!BLD_FIT(c->procs, c->procs_cap, (size_t)c->nprocs + 1))
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
	if (!BLD_FIT(c->tracks, c->tracks_cap, (size_t)c->ntracks + 1) ||
	    !BLD_FIT(c->be_top, c->be_top_cap, (size_t)c->ntracks + 1))
		return TREX_NONE;
	t = &c->tracks[c->ntracks];
	memset(t, 0, sizeof(*t));
	t->proc = proc;
	t->key = key;
	t->cls = cls;
	t->parent = TREX_NONE;
	c->be_top[c->ntracks] = TREX_NONE;
	*slot = c->ntracks;
	return c->ntracks++;
}

/* The async track of a process for keyed slices whose outermost begin is name. */
static uint32_t async_track(struct bld *c, uint32_t proc, uint32_t name)
{
	uint32_t t = gtrack_get(c, proc, name, TREX_BT_ASYNC);

	if (t != TREX_NONE) {
		c->tracks[t].name = name;
		c->tracks[t].has_name = 1;
	}
	return t;
}

/* ---- slices by reference and stacks of open ones ------------------------------------------- */

static inline struct trex_bslice *ref_slice(struct bld *c, bld_ref r)
{
	return r & BLD_IN_REST ? SL(&c->rest, r & ~BLD_IN_REST) : SL(&c->idx->slices, r);
}

/* A part's local slice (handle) as a reference: its whole blocks went to
 * the store at store_at, the rest to rest at tail_at. */
static bld_ref part_ref(const struct pmerge *p, trex_handle h)
{
	if (h < p->full)
		return p->store_at + h;
	return BLD_IN_REST | (p->tail_at + (h - p->full));
}

static bool stack_push(struct bld *c, uint32_t *top, bld_ref slice)
{
	uint32_t i = c->pool_free;

	if (i != TREX_NONE) {
		c->pool_free = c->pool[i].prev;
	} else {
		if (!BLD_FIT(c->pool, c->pool_cap, (size_t)c->pool_n + 1))
			return false;
		i = c->pool_n++;
	}
	c->pool[i].slice = slice;
	c->pool[i].prev = *top;
	*top = i;
	return true;
}

static bld_ref stack_pop(struct bld *c, uint32_t *top)
{
	uint32_t i = *top;

	*top = c->pool[i].prev;
	c->pool[i].prev = c->pool_free;
	c->pool_free = i;
	return c->pool[i].slice;
}

/* Closes an open slice at end time t (index clock). */
static void close_slice(struct bld *c, bld_ref r, int64_t t)
{
	struct trex_bslice *s = ref_slice(c, r);
	int64_t dur = bld_sub_sat(t, s->ts);

	if (dur < 0) {
		s->dur = 0;
		s->flags |= TREX_SLICE_REVERSED;
		bld_problem(c, c->file, TREX_INTEG_reversed, s, dur);
	} else {
		s->dur = dur;
	}
}

/* Closes what is still open at the end of the file: it runs to the file's
 * last event end. */
static void close_unterminated(struct bld *c, uint32_t *top)
{
	while (*top != TREX_NONE) {
		bld_ref r = stack_pop(c, top);

		close_slice(c, r, c->file_end[c->file]);
		ref_slice(c, r)->flags |= TREX_SLICE_UNTERMINATED;
		bld_problem(c, c->file, TREX_INTEG_unmatched_begin, ref_slice(c, r), 0);
	}
}

/* ---- a part's ids ---------------------------------------------------------------------- */

static inline uint32_t map_id(struct pmerge *p, const uint32_t *map, uint32_t n, uint32_t id,
                              uint32_t fallback)
{
	if (id >= n) {
		p->bad_id = true;
		return fallback;
	}
	return map[id];
}

static inline uint32_t pstr(struct pmerge *p, uint32_t id)
{
	return map_id(p, p->smap, p->ns, id, TREX_STR_NONE);
}

static inline uint32_t ptrk(struct pmerge *p, uint32_t id)
{
	return map_id(p, p->tmap, p->nt, id, 0);
}

static enum trex_status map_strings(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	uint32_t n = trex_strtab_count(b->strs);

	pm->smap = malloc(((size_t)n + 1) * sizeof(*pm->smap));
	if (!pm->smap)
		return bld_nomem(c);
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *s = trex_strtab_get(b->strs, i, &len);

		pm->smap[i] = trex_strtab_intern(c->idx->strs, s, len);
		if (pm->smap[i] == TREX_STR_ERROR)
			return bld_nomem(c);
	}
	pm->ns = n;
	/* The part's own strings are not needed any more. */
	trex_strtab_free(b->strs);
	b->strs = NULL;
	return TREX_OK;
}

static void apply_proc_meta(struct pmerge *pm, struct gproc *g, const struct trex_bproc *p)
{
	/* Later parts win: metadata is applied in file order. */
	if (p->has_name) {
		g->name = pstr(pm, p->name);
		g->has_name = 1;
	}
	if (p->has_labels) {
		g->labels = pstr(pm, p->labels);
		g->has_labels = 1;
	}
	if (p->has_sort) {
		g->sort_index = p->sort_index;
		g->has_sort = 1;
	}
	if (p->has_rank) {
		g->rank = p->rank;
		g->has_rank = 1;
	}
	if (p->has_device)
		g->device = p->device;
}

static void apply_track_meta(struct pmerge *pm, struct gtrack *g, const struct trex_btrack *t)
{
	if (t->has_name) {
		g->name = pstr(pm, t->name);
		g->has_name = 1;
	}
	if (t->has_sort) {
		g->sort_index = t->sort_index;
		g->has_sort = 1;
	}
	if (t->parent != TREX_NONE)
		g->parent = ptrk(pm, t->parent);
}

static enum trex_status map_tracks(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	pm->pmap = malloc(((size_t)b->nprocs + 1) * sizeof(*pm->pmap));
	pm->tmap = malloc(((size_t)b->ntracks + 1) * sizeof(*pm->tmap));
	pm->gpu = calloc((size_t)b->ntracks + 1, 1);
	if (!pm->pmap || !pm->tmap || !pm->gpu)
		return bld_nomem(c);
	for (uint32_t i = 0; i < b->nprocs; i++) {
		pm->pmap[i] = gproc_get(c, c->file, pstr(pm, b->procs[i].pid));
		if (pm->pmap[i] == TREX_NONE)
			return bld_nomem(c);
		apply_proc_meta(pm, &c->procs[pm->pmap[i]], &b->procs[i]);
	}
	pm->np = b->nprocs;
	for (uint32_t i = 0; i < b->ntracks; i++) {
		const struct trex_btrack *t = &b->tracks[i];

		pm->tmap[i] = gtrack_get(c, pm->pmap[t->proc], pstr(pm, t->key), t->cls);
		if (pm->tmap[i] == TREX_NONE)
			return bld_nomem(c);
		pm->nt = i + 1; /* a parent is an earlier track */
		apply_track_meta(pm, &c->tracks[pm->tmap[i]], t);
	}
	pm->nt = b->ntracks;
	return TREX_OK;
}

/* ---- a part's slices, on the build's threads ------------------------------------------------- */

/* Clamps a complete slice's duration: negative to 0 (REVERSED), an end
 * beyond int64 to INT64_MAX (TS_SATURATED, so ts + dur stays computable).
 * Counts and offers each as an example (dur: as written). */
static void clamp_complete(struct pmerge *p, struct trex_bslice *s)
{
	int64_t dur = s->dur;

	if (s->dur < 0) {
		s->dur = 0;
		s->flags |= TREX_SLICE_REVERSED;
		p->reversed++;
		trex_earliest_offer(&p->reversed_ex,
		                    &(struct trex_problem_cand){s->ts, dur, s->track, s->name});
	}
	if (s->ts > 0 && s->dur > INT64_MAX - s->ts) {
		s->dur = INT64_MAX - s->ts;
		s->flags |= TREX_SLICE_TS_SATURATED;
	}
	if (s->flags & TREX_SLICE_TS_SATURATED) {
		p->saturated++;
		trex_earliest_offer(&p->saturated_ex,
		                    &(struct trex_problem_cand){s->ts, dur, s->track, s->name});
	}
}

/* A part's slice made global where it is: ids mapped, base time added,
 * a complete one's duration clamped; a track with device work noted.
 * A keyed slice's track waits for its pairing. */
static void prepare_slice(struct pmerge *p, int64_t base, struct trex_bslice *s)
{
	uint32_t ltrack = s->track;
	bool keyed = s->flags & TREX_SLICE_ASYNC;

	s->name = pstr(p, s->name);
	s->cat = pstr(p, s->cat);
	s->shape = pstr(p, s->shape);
	if (!keyed)
		s->track = ptrk(p, s->track);
	s->ts = bld_add_sat(s->ts, base, &s->flags);
	if (!(s->flags & (TREX_SLICE_PAIRED | TREX_SLICE_ASYNC)))
		clamp_complete(p, s);
	if (!keyed && ltrack < p->nt && trex_kind_is_gpu((enum trex_kind)s->kind))
		p->gpu[ltrack] = 1;
	if ((s->flags & TREX_SLICE_HAS_LAUNCH_LINK) &&
	    (!p->has_launch_link || s->launch_link > p->max_launch_link)) {
		p->max_launch_link = s->launch_link;
		p->has_launch_link = true;
	}
}

struct prep_job {
	struct bld *c;
	size_t first; /* the file's first part in in->parts */
};

/* Pass 1: slices made global, the partial last block copied to its place
 * in rest; flow keys counted per partition. */
static void prep_task(void *arg, size_t k, unsigned worker)
{
	struct prep_job *j = arg;
	struct bld *c = j->c;
	struct trex_builder *b = c->in->parts[j->first + k];
	struct pmerge *p = &c->pm[k];
	struct trex_vec *v = &b->slices;

	(void)worker;
	for (size_t i = 0; i < v->count; i++)
		prepare_slice(p, c->base, SL(v, i));
	for (size_t i = p->full; i < v->count; i++)
		*SL(&c->rest, p->tail_at + i - p->full) = *SL(v, i);
	if (p->full < v->count)
		trex_vec_release_block(v, (uint32_t)(p->full >> TREX_VEC_SHIFT));
	bld_flows_count(c, p, b);
}

/* Pass 2: flow points and keys written where pass 1 made room. */
static void flow_task(void *arg, size_t k, unsigned worker)
{
	struct prep_job *j = arg;

	(void)worker;
	bld_flows_fill(j->c, &j->c->pm[k], j->c->in->parts[j->first + k]);
}

/* ---- a part, serially: hand-over and pairing ----------------------------------------------------
 */

static bool note_seq_run(struct bld *c, size_t at, uint64_t seq, size_t n)
{
	if (n == 0)
		return true;
	if (!BLD_FIT(c->seq_runs, c->seq_runs_cap, c->nseq_runs + 1))
		return false;
	c->seq_runs[c->nseq_runs++] = (struct seq_run){at, seq, n};
	return true;
}

/* The part's whole blocks move into the store without copying (the file
 * order of each is noted for the sort's ties); its tail is in rest already. */
static enum trex_status hand_over(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	size_t moved, blocks = pm->full >> TREX_VEC_SHIFT;
	bool ok = true;

	if (!BLD_FIT(c->block_seq, c->block_seq_cap, c->nblock_seq + blocks + 1) ||
	    !note_seq_run(c, pm->tail_at, pm->slice_base + pm->full, b->slices.count - pm->full))
		return bld_nomem(c);
	moved = pm->full ? trex_vec_take_full_blocks(&c->idx->slices, &b->slices, &ok) : 0;
	if (!ok || moved != pm->full)
		return bld_nomem(c);
	for (size_t k = 0; k < blocks; k++)
		c->block_seq[c->nblock_seq++] = pm->slice_base + ((uint64_t)k << TREX_VEC_SHIFT);
	return TREX_OK;
}

/* Begun slices and ends in the order they were given: a begin opens its
 * slice on its track's stack (where it stands, so slices stay in file
 * order), an end closes the most recent open one. An end after k slices
 * came before the begin of slice k. */
static enum trex_status pair_part(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	size_t nb = b->begins.count, ne = b->ends.count;

	for (size_t i = 0, j = 0; i < nb || j < ne;) {
		uint32_t at = i < nb ? *TREX_VEC_AT(&b->begins, uint32_t, i) : UINT32_MAX;
		const struct trex_bend *e =
		    j < ne ? TREX_VEC_AT(&b->ends, const struct trex_bend, j) : NULL;

		if (e && e->after <= at) {
			uint32_t t = ptrk(pm, e->track);
			struct trex_bslice s = {.ts = bld_add_sat(e->ts, c->base, NULL),
			                        .track = t,
			                        .name = pstr(pm, e->name)};

			if (c->be_top[t] == TREX_NONE)
				bld_problem(c, c->file, TREX_INTEG_unmatched_end, &s, 0);
			else
				close_slice(c, stack_pop(c, &c->be_top[t]), s.ts);
			j++;
			continue;
		}
		if (!stack_push(c, &c->be_top[ref_slice(c, part_ref(pm, at))->track],
		                part_ref(pm, at)))
			return bld_nomem(c);
		i++;
	}
	return TREX_OK;
}

/* The stack top slot of a key, created empty. */
static uint32_t *async_top(struct bld *c, uint32_t proc, uint32_t space, uint64_t num, uint32_t str)
{
	uint32_t *slot = trex_kmap_insert(&c->async_map, ((uint64_t)proc << 32) | space, num, str);

	if (!slot)
		return NULL;
	if (*slot == TREX_NONE) {
		if (!BLD_FIT(c->async_tops, c->async_cap, (size_t)c->nasync + 1))
			return NULL;
		c->async_tops[c->nasync] = TREX_NONE;
		*slot = c->nasync++;
	}
	return &c->async_tops[*slot];
}

/* The track of a key's slices: that of its outermost open one, else a new
 * async track named name. */
static uint32_t keyed_track(struct bld *c, uint32_t top, uint32_t proc, uint32_t name)
{
	return top != TREX_NONE ? ref_slice(c, c->pool[top].slice)->track
	                        : async_track(c, proc, name);
}

static enum trex_status keyed_instant(struct bld *c, struct pmerge *pm, const struct trex_bkeyed *k,
                                      uint32_t top, uint32_t proc)
{
	uint32_t name = pstr(pm, k->name), track = keyed_track(c, top, proc, name);
	struct trex_instant *in;

	if (track == TREX_NONE)
		return bld_nomem(c);
	in = trex_vec_push(&c->idx->instants);
	if (!in)
		return bld_nomem(c);
	memset(in, 0, sizeof(*in));
	in->ts = bld_add_sat(k->ts, c->base, NULL);
	in->name = name;
	in->cat = pstr(pm, k->cat);
	in->track = track;
	in->scope = TREX_SCOPE_THREAD;
	in->kind = k->kind;
	in->args = k->args;
	return TREX_OK;
}

static enum trex_status keyed_record(struct bld *c, struct pmerge *pm, const struct trex_bkeyed *k)
{
	uint32_t proc, *top;
	struct trex_bslice s = {.track = TREX_NONE};

	if (k->proc >= pm->np) {
		pm->bad_id = true;
		return TREX_OK;
	}
	proc = pm->pmap[k->proc];
	top = async_top(c, proc, pstr(pm, k->space), k->num, pstr(pm, k->str));
	if (!top)
		return bld_nomem(c);
	if (k->op == TREX_KEYED_INSTANT)
		return keyed_instant(c, pm, k, *top, proc);
	if (k->op == TREX_KEYED_BEGIN) {
		bld_ref r = part_ref(pm, k->at);
		struct trex_bslice *b = ref_slice(c, r);

		b->track = keyed_track(c, *top, proc, b->name);
		if (b->track == TREX_NONE || !stack_push(c, top, r))
			return bld_nomem(c);
		return TREX_OK;
	}
	s.ts = bld_add_sat(k->ts, c->base, NULL);
	s.name = pstr(pm, k->name);
	if (*top == TREX_NONE)
		bld_problem(c, c->file, TREX_INTEG_unmatched_end, &s, 1);
	else
		close_slice(c, stack_pop(c, top), s.ts);
	return TREX_OK;
}

static enum trex_status keyed_part(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; st == TREX_OK && i < b->keyed.count; i++)
		st = keyed_record(c, pm, TREX_VEC_AT(&b->keyed, const struct trex_bkeyed, i));
	return st;
}

static enum trex_status merge_instants(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	for (size_t i = 0; i < b->instants.count; i++) {
		struct trex_instant *in = trex_vec_push(&c->idx->instants);

		if (!in)
			return bld_nomem(c);
		*in = *TREX_VEC_AT(&b->instants, struct trex_instant, i);
		in->name = pstr(pm, in->name);
		in->cat = pstr(pm, in->cat);
		in->track = ptrk(pm, in->track);
		in->ts = bld_add_sat(in->ts, c->base, NULL);
	}
	trex_vec_free(&b->instants);
	return TREX_OK;
}

static enum trex_status merge_samples(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	for (size_t i = 0; i < b->samples.count; i++) {
		struct trex_bsample *s = trex_vec_push(&c->samples);

		if (!s)
			return bld_nomem(c);
		*s = *TREX_VEC_AT(&b->samples, struct trex_bsample, i);
		s->track = ptrk(pm, s->track);
		s->ts = bld_add_sat(s->ts, c->base, NULL);
	}
	trex_vec_free(&b->samples);
	return TREX_OK;
}

/* Dependencies and graph nodes' slices wait for the slices' final ids;
 * launch and flow edges for the file's end. */
static enum trex_status merge_edges(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	for (size_t i = 0; i < b->edges.count; i++) {
		const struct trex_bedge *e = TREX_VEC_AT(&b->edges, const struct trex_bedge, i);
		struct edge_ref r = {part_ref(pm, e->from), part_ref(pm, e->to), e->kind};

		if (e->kind == TREX_EDGE_DEPENDENCY) {
			if (!BLD_FIT(c->deps, c->deps_cap, c->ndeps + 1))
				return bld_nomem(c);
			c->deps[c->ndeps++] = r;
		} else {
			if (!BLD_FIT(c->file_edges, c->file_edges_cap, c->nfile_edges + 1))
				return bld_nomem(c);
			c->file_edges[c->nfile_edges++] = r;
		}
	}
	for (size_t i = 0; i < b->graph.count; i++) {
		const struct trex_bgraph *g = TREX_VEC_AT(&b->graph, const struct trex_bgraph, i);

		if (!BLD_FIT(c->graph_refs, c->graph_refs_cap, c->ngraph_refs + 1))
			return bld_nomem(c);
		c->graph_refs[c->ngraph_refs++] =
		    (struct graph_ref){part_ref(pm, g->slice), g->node};
	}
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
	return ok ? TREX_OK : bld_nomem(c);
}

/* The part's top-level members follow the file's earlier parts'. */
static enum trex_status merge_members(struct bld *c, struct trex_builder *b)
{
	return trex_members_take(&c->idx->members[c->file], &b->members) ? TREX_OK : bld_nomem(c);
}

/* The serial rest of a part: what its tasks left, pairing, instants,
 * samples and edges. */
static enum trex_status merge_part(struct bld *c, struct trex_builder *b, struct pmerge *pm)
{
	enum trex_status st;

	for (uint32_t t = 0; t < pm->nt; t++) {
		if (pm->gpu[t])
			c->tracks[pm->tmap[t]].gpu = 1;
	}
	c->integ[c->file].reversed += pm->reversed;
	c->integ[c->file].saturated_numbers += pm->saturated;
	trex_earliest_merge(bld_cand(c, c->file, TREX_INTEG_reversed), &pm->reversed_ex);
	trex_earliest_merge(bld_cand(c, c->file, TREX_INTEG_saturated_numbers), &pm->saturated_ex);
	st = merge_problems(c, b, pm);
	if (st == TREX_OK)
		st = merge_members(c, b);
	if (st == TREX_OK)
		st = hand_over(c, b, pm);
	if (st == TREX_OK)
		st = pair_part(c, b, pm);
	if (st == TREX_OK)
		st = keyed_part(c, b, pm);
	if (st == TREX_OK)
		st = merge_instants(c, b, pm);
	if (st == TREX_OK)
		st = merge_samples(c, b, pm);
	if (st == TREX_OK)
		st = merge_edges(c, b, pm);
	if (st == TREX_OK && pm->bad_id)
		st = trex_error_set(c->err, TREX_USAGE, c->in->files[c->file].path, -1,
		                    "builder: string, track or process id out of range");
	return st;
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
	p.ts = bld_add_sat(o->ts, c->base, NULL);
	p.has_ts = true;
	outlier_what(o, p.what, sizeof(p.what));
	trex_integrity_count(&c->integ[c->file], p.counter, 1);
	if (!trex_problems_add(&pm->drops, &p))
		c->bad_alloc = true;
}

/* The file's latest event end, once its outliers are gone (unterminated
 * slices run to it). */
static void file_end_of(struct bld *c, size_t first, size_t end)
{
	int64_t e = INT64_MIN;

	for (size_t i = first; i < end; i++) {
		const struct trex_builder *b = c->in->parts[i];

		if (b->has_time && bld_add_sat(b->max_end, c->base, NULL) > e)
			e = bld_add_sat(b->max_end, c->base, NULL);
	}
	c->file_end[c->file] = e == INT64_MIN ? c->base : e;
}

static enum trex_status drop_outliers(struct bld *c, size_t first, size_t end)
{
	c->bad_alloc = false;
	if (!trex_drop_time_outliers(c->in->parts + first, end - first, on_outlier, c) ||
	    c->bad_alloc)
		return bld_nomem(c);
	file_end_of(c, first, end);
	return TREX_OK;
}

/* ---- files ------------------------------------------------------------------------------- */

static void pmerge_free(struct bld *c)
{
	for (size_t k = 0; c->pm && k < c->npm; k++) {
		free(c->pm[k].smap);
		free(c->pm[k].pmap);
		free(c->pm[k].tmap);
		free(c->pm[k].fpos);
		free(c->pm[k].gpu);
		trex_problems_free(&c->pm[k].drops);
	}
	free(c->pm);
	c->pm = NULL;
	c->npm = 0;
}

/* The id maps of the file's parts [first, end), in file order. */
static enum trex_status map_parts(struct bld *c, size_t first, size_t end)
{
	enum trex_status st = TREX_OK;

	for (size_t i = first; i < end && st == TREX_OK; i++) {
		struct trex_builder *b = c->in->parts[i];
		struct pmerge *pm = &c->pm[i - first];

		if (b->failed)
			return bld_nomem(c);
		st = map_strings(c, b, pm);
		if (st == TREX_OK)
			st = map_tracks(c, b, pm);
	}
	return st;
}

/* Where each part's slices go: its whole blocks to the store (in part
 * order), its partial last block to rest. */
static enum trex_status place_parts(struct bld *c, size_t first)
{
	size_t store = c->idx->slices.count;

	for (size_t k = 0; k < c->npm; k++) {
		const struct trex_builder *b = c->in->parts[first + k];
		struct pmerge *pm = &c->pm[k];

		if (c->slices_seen + b->slices.count > UINT32_MAX - 1)
			return bld_too_many(c);
		pm->slice_base = c->slices_seen;
		c->slices_seen += b->slices.count;
		pm->full = b->slices.count & ~(size_t)TREX_VEC_MASK;
		pm->store_at = store;
		store += pm->full;
		pm->tail_at = c->rest.count;
		for (size_t i = pm->full; i < b->slices.count; i++) {
			if (!trex_vec_push(&c->rest))
				return bld_nomem(c);
		}
	}
	return TREX_OK;
}

/* Per-file state and the id maps of its parts [first, end), in file
 * order. Time outliers are dropped from the parts once their ids can be
 * mapped, before their records are counted. */
static enum trex_status start_file(struct bld *c, size_t first, size_t end)
{
	const struct trex_build_input *in = c->in;
	enum trex_status st;

	c->file = in->parts[first]->file;
	c->file_first_track = c->ntracks;
	c->base = in->files[c->file].base_time_ns;
	c->nfile_edges = 0;
	c->file_anchored = false;
	c->npm = end - first;
	c->pm = calloc(c->npm, sizeof(*c->pm));
	if (!c->pm)
		return bld_nomem(c);
	st = map_parts(c, first, end);
	if (st == TREX_OK)
		st = drop_outliers(c, first, end);
	if (st == TREX_OK)
		st = bld_flows_start(c, first, end);
	if (st == TREX_OK)
		st = place_parts(c, first);
	return st;
}

/* The parallel passes over the file's parts. */
static void prepare_parts(struct bld *c, size_t first)
{
	struct prep_job j = {c, first};
	size_t records = 0;
	unsigned threads;

	for (size_t k = 0; k < c->npm; k++)
		records += c->in->parts[first + k]->slices.count;
	threads = bld_threads(c, records + c->nfpts);
	trex_task_run(threads, c->npm, prep_task, &j);
	bld_flows_place(c);
	trex_task_run(threads, c->npm, flow_task, &j);
}

/* The launch link a launch edge gives: its launcher's, else a new one
 * (above every link the file's loader gave). */
static enum trex_status launch_edge(struct bld *c, const struct edge_ref *e)
{
	struct trex_bslice *from = ref_slice(c, e->from), *to = ref_slice(c, e->to);

	if (!(from->flags & TREX_SLICE_HAS_LAUNCH_LINK)) {
		if (c->next_launch_link == UINT32_MAX)
			return trex_error_set(c->err, TREX_FORMAT, c->in->files[c->file].path, -1,
			                      "more launch links than the index can hold");
		from->launch_link = c->next_launch_link++;
		from->flags |= TREX_SLICE_HAS_LAUNCH_LINK;
	}
	to->launch_link = from->launch_link;
	to->flags |= TREX_SLICE_HAS_LAUNCH_LINK;
	return TREX_OK;
}

static enum trex_status apply_file_edges(struct bld *c)
{
	enum trex_status st = TREX_OK;
	uint32_t max = 0;
	bool any = false;

	for (size_t k = 0; k < c->npm; k++) {
		if (c->pm[k].has_launch_link && (!any || c->pm[k].max_launch_link > max))
			max = c->pm[k].max_launch_link;
		any |= c->pm[k].has_launch_link;
	}
	c->next_launch_link = any ? (max == UINT32_MAX ? UINT32_MAX : max + 1) : 0;
	for (size_t i = 0; st == TREX_OK && i < c->nfile_edges; i++) {
		const struct edge_ref *e = &c->file_edges[i];

		st = e->kind == TREX_EDGE_LAUNCH ? launch_edge(c, e)
		                                 : bld_flow_edge(c, e->from, e->to);
	}
	return st;
}

/* Closes what the file left open, chains its flows, applies its edges and
 * resets the per-file state. */
static enum trex_status finish_file(struct bld *c)
{
	enum trex_status st;

	for (uint32_t t = c->file_first_track; t < c->ntracks; t++)
		close_unterminated(c, &c->be_top[t]);
	for (uint32_t i = 0; i < c->nasync; i++)
		close_unterminated(c, &c->async_tops[i]);
	trex_kmap_clear(&c->async_map);
	c->nasync = 0;
	for (size_t k = 0; k < c->npm; k++)
		c->file_anchored |= c->pm[k].anchored;
	st = bld_flows_match(c);
	if (st == TREX_OK)
		st = apply_file_edges(c);
	pmerge_free(c);
	return st;
}

/* After the merge: the rest joins the whole blocks, moved when it can be. */
static enum trex_status join_rest(struct bld *c)
{
	struct trex_vec *dst = &c->idx->slices, *v = &c->rest;

	c->nfull = dst->count;
	if (!v->count)
		return TREX_OK;
	if ((dst->count == 0 || v->cap >= TREX_VEC_BLOCK) && trex_vec_adopt(dst, v))
		return TREX_OK;
	for (size_t i = 0; i < v->count; i++) {
		struct trex_bslice *s = trex_vec_push(dst);

		if (!s)
			return bld_nomem(c);
		*s = *SL(v, i);
		if (((i + 1) & TREX_VEC_MASK) == 0)
			trex_vec_release_block(v, (uint32_t)(i >> TREX_VEC_SHIFT));
	}
	trex_vec_free(v);
	return TREX_OK;
}

/* The latest event end of each file, known before its begun slices are
 * paired because unterminated slices run to it. */
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
		end = bld_add_sat(b->max_end, in->files[b->file].base_time_ns, NULL);
		if (end > c->file_end[b->file])
			c->file_end[b->file] = end;
	}
	for (size_t f = 0; f < in->file_count; f++) {
		if (c->file_end[f] == INT64_MIN)
			c->file_end[f] = in->files[f].base_time_ns;
	}
}

enum trex_status bld_merge(struct bld *c)
{
	const struct trex_build_input *in = c->in;
	enum trex_status st = TREX_OK;

	compute_file_ends(c);
	for (size_t i = 0, end; i < in->part_count && st == TREX_OK; i = end) {
		end = i + 1;
		while (end < in->part_count && in->parts[end]->file == in->parts[i]->file)
			end++;
		st = start_file(c, i, end);
		if (st == TREX_OK)
			prepare_parts(c, i);
		for (size_t k = i; k < end; k++) {
			if (st == TREX_OK)
				st = merge_part(c, in->parts[k], &c->pm[k - i]);
			trex_builder_free(in->parts[k]);
			in->parts[k] = NULL;
		}
		if (st == TREX_OK)
			st = finish_file(c);
		else
			pmerge_free(c);
	}
	if (st == TREX_OK)
		st = join_rest(c);
	return st;
}
