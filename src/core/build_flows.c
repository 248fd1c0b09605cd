/* Stage 1, flows: a file's flow points chained into hops (builder.h). The
 * parts' points are written into the file's list and their keys into
 * partitions by key hash at positions fixed in advance (one task per
 * part); at the file's end the partitions are matched in parallel and
 * each hop becomes an index flow, bound to slices in stage 4. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "trex/core/task.h"

static inline uint32_t pstr(struct pmerge *p, uint32_t id)
{
	if (id >= p->ns) {
		p->bad_id = true;
		return TREX_STR_NONE;
	}
	return p->smap[id];
}

static inline uint32_t flow_part(const struct bld *c, uint32_t cat, uint64_t id, uint32_t id_str)
{
	return (uint32_t)((trex_kmap_hash(cat, id, id_str) >> 40) & (c->nfparts - 1));
}

enum trex_status bld_flows_start(struct bld *c, size_t first, size_t end)
{
	size_t points = 0;

	for (size_t i = first; i < end; i++)
		points += c->in->parts[i]->flows.count;
	if (points > UINT32_MAX - 1)
		return bld_too_many(c);
	c->nfparts = 1;
	while (c->nfparts < FLOW_PARTS_MAX && (size_t)c->nfparts * FLOW_PART_KEYS < points)
		c->nfparts *= 2;
	c->nfpts = points;
	c->fpts = trex_big_malloc((points + 1) * sizeof(*c->fpts));
	c->fkeys = trex_big_malloc((points + 1) * sizeof(*c->fkeys));
	c->fpart_first = calloc((size_t)c->nfparts + 1, sizeof(*c->fpart_first));
	if (!c->fpts || !c->fkeys || !c->fpart_first)
		return bld_nomem(c);
	points = 0;
	for (size_t i = first; i < end; i++) {
		struct pmerge *pm = &c->pm[i - first];

		pm->flow_first = points;
		points += c->in->parts[i]->flows.count;
		pm->fpos = calloc(c->nfparts, sizeof(*pm->fpos));
		if (!pm->fpos)
			return bld_nomem(c);
	}
	return TREX_OK;
}

void bld_flows_count(struct bld *c, struct pmerge *p, const struct trex_builder *b)
{
	for (size_t i = 0; i < b->flows.count; i++) {
		const struct trex_bflow *f = TREX_VEC_AT(&b->flows, const struct trex_bflow, i);

		p->fpos[flow_part(c, pstr(p, f->space), f->num, pstr(p, f->str))]++;
	}
}

void bld_flows_place(struct bld *c)
{
	size_t pos = 0;

	for (uint32_t h = 0; h < c->nfparts; h++) {
		c->fpart_first[h] = pos;
		for (size_t k = 0; k < c->npm; k++) {
			size_t n = c->pm[k].fpos[h];

			c->pm[k].fpos[h] = pos;
			pos += n;
		}
	}
	c->fpart_first[c->nfparts] = pos;
}

/* A part's local slice as a merge-time reference (build_merge.c's rule:
 * the whole blocks went to the store, the rest to rest). */
static bld_ref part_ref(const struct pmerge *p, trex_handle h)
{
	if (h < p->full)
		return p->store_at + h;
	return BLD_IN_REST | (p->tail_at + (h - p->full));
}

void bld_flows_fill(struct bld *c, struct pmerge *p, struct trex_builder *b)
{
	for (size_t i = 0; i < b->flows.count; i++) {
		const struct trex_bflow *f = TREX_VEC_AT(&b->flows, const struct trex_bflow, i);
		uint32_t cat = pstr(p, f->space), id_str = pstr(p, f->str);
		size_t seq = p->flow_first + i;
		struct fpoint *pt = &c->fpts[seq];
		bool on_slice = f->slice != TREX_HANDLE_NONE;

		p->anchored |= on_slice;
		*pt = (struct fpoint){bld_add_sat(f->ts, c->base, NULL),
		                      on_slice ? part_ref(p, f->slice) : BLD_REF_NONE,
		                      id_str ? id_str : f->num,
		                      TREX_NONE,
		                      pstr(p, f->name),
		                      cat,
		                      f->role,
		                      f->bind,
		                      id_str           ? TREX_FLOW_ID_STR
		                      : f->id_unsigned ? TREX_FLOW_ID_U64
		                                       : TREX_FLOW_ID_NUM};
		if (!on_slice && f->track < p->nt)
			pt->track = p->tmap[f->track];
		else if (!on_slice)
			p->bad_id = f->track != TREX_NONE;
		c->fkeys[p->fpos[flow_part(c, cat, f->num, id_str)]++] =
		    (struct fkey){f->num, pt->ts, cat, id_str, (uint32_t)seq, f->role};
	}
	/* The part's points are not needed any more. */
	trex_vec_free(&b->flows);
}

/* ---- matching ----------------------------------------------------------------------------- */

/* A chain being matched: its key and its last point (start or step). */
struct chain {
	uint64_t id;
	uint32_t cat, id_str, last;
	uint32_t first, count; /* its keys' place in the grouped keys */
	uint8_t open, has_edge;
};

/* One matching task's scratch and counts: partitions are matched on the
 * build's threads, each writing only its own points' prev entries. */
struct match_task {
	struct chain *chains;
	size_t chains_cap;
	uint32_t *chain_slots; /* chain index + 1, 0 = empty */
	size_t slots_cap;
	struct fkey *grouped; /* the partition's keys, chain by chain */
	size_t grouped_cap;
	uint32_t *chain_of; /* each key's chain */
	size_t chain_of_cap;
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

/* A start begins a chain (a restarted chain that never got a hop is an
 * orphan start), a step continues it, an end ends it; a step or end
 * without a chain is an orphan end. A point's prev is the point its hop
 * comes from. */
static void match_point(struct match_task *c, struct chain *ch, const struct fkey *k)
{
	c->prev[k->seq] = TREX_NONE;
	if (k->role == TREX_FLOW_START) {
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
	if (k->role == TREX_FLOW_END)
		ch->open = 0;
	else
		ch->last = k->seq;
}

/* Chains in time order (Kineto writes each kernel's end before its
 * launch's start in the file). Ties: start, step, end, then file order. */
static inline bool fkey_less(const struct fkey *x, const struct fkey *y)
{
	if (x->cat != y->cat)
		return x->cat < y->cat;
	if (x->id != y->id)
		return x->id < y->id;
	if (x->id_str != y->id_str)
		return x->id_str < y->id_str;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->role != y->role)
		return x->role < y->role;
	return x->seq < y->seq;
}

/* Sorts keys[0..n) by fkey_less, stably as qsort's merge sort does, with
 * the comparison inline (qsort's call per comparison was most of the
 * matching's time); halves already in order are not merged, so the
 * nearly sorted keys of a trace cost little more than a pass. tmp: room
 * for n keys. */
static void fkey_sort(struct fkey *keys, struct fkey *tmp, size_t n)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			struct fkey k = keys[i];
			size_t j = i;
			for (; j > 0 && fkey_less(&k, &keys[j - 1]); j--)
				keys[j] = keys[j - 1];
			keys[j] = k;
		}
		return;
	}
	size_t half = n / 2, i = 0, j = half, o = 0;
	fkey_sort(keys, tmp, half);
	fkey_sort(keys + half, tmp, n - half);
	if (!fkey_less(&keys[half], &keys[half - 1]))
		return;
	while (i < half && j < n)
		tmp[o++] = fkey_less(&keys[j], &keys[i]) ? keys[j++] : keys[i++];
	memcpy(tmp + o, keys + i, (half - i) * sizeof *keys);
	memcpy(keys, tmp, (o + half - i) * sizeof *keys);
}

/* The chains of keys[0..n), in order of first appearance (a table sized
 * to them), and the keys grouped by chain in c->grouped, each chain's in
 * file order. */
static uint32_t group_chains(struct match_task *c, const struct fkey *keys, size_t n, size_t mask)
{
	uint32_t nchains = 0, at = 0;

	memset(c->chain_slots, 0, (mask + 1) * sizeof(*c->chain_slots));
	for (size_t i = 0; i < n; i++) {
		struct chain *ch = chain_find(c, &keys[i], &nchains, mask);

		c->chain_of[i] = (uint32_t)(ch - c->chains);
		ch->count++;
	}
	for (uint32_t k = 0; k < nchains; k++) {
		c->chains[k].first = at;
		at += c->chains[k].count;
		c->chains[k].count = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct chain *ch = &c->chains[c->chain_of[i]];

		c->grouped[ch->first + ch->count++] = keys[i];
	}
	return nchains;
}

/* Keys of one partition, chain by chain, each chain's in time order. A
 * chain is matched on its own, so the order of the chains does not
 * matter (the orphans' examples are the earliest whatever the order):
 * grouping by a hash table and sorting each chain's few keys costs far
 * less than sorting the partition. keys: room to sort in afterwards. */
static bool match_partition(struct match_task *c, struct fkey *keys, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	if (!BLD_FIT(c->chains, c->chains_cap, n) || !BLD_FIT(c->chain_slots, c->slots_cap, cap) ||
	    !BLD_FIT(c->grouped, c->grouped_cap, n) || !BLD_FIT(c->chain_of, c->chain_of_cap, n))
		return false;
	uint32_t nchains = group_chains(c, keys, n, cap - 1);
	for (uint32_t k = 0; k < nchains; k++) {
		struct chain *ch = &c->chains[k];
		struct fkey *chain_keys = c->grouped + ch->first;

		fkey_sort(chain_keys, keys, ch->count);
		for (uint32_t i = 0; i < ch->count; i++)
			match_point(c, ch, &chain_keys[i]);
		if (ch->open && !ch->has_edge) {
			c->orphan_start++;
			orphan_point(c, &c->orphan_start_ex, ch->last, ch->id);
		}
	}
	return true;
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
	free(t->grouped);
	free(t->chain_of);
}

/* ---- emitting hops ---------------------------------------------------------------------- */

/* One flow per hop, in file order of the hop's end. Ranges of points are
 * counted, then written from their offsets, on the build's threads. */
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

static uint8_t hop_how(const struct fpoint *from, const struct fpoint *to)
{
	return (uint8_t)((from->role == TREX_FLOW_STEP ? FLOW_FROM_STEP : 0) |
	                 (from->bind == TREX_BIND_NEXT ? FLOW_FROM_NEXT : 0) |
	                 (to->bind == TREX_BIND_NEXT ? FLOW_TO_NEXT : 0) |
	                 (from->anchor != BLD_REF_NONE ? FLOW_FROM_ANCHOR : 0) |
	                 (to->anchor != BLD_REF_NONE ? FLOW_TO_ANCHOR : 0));
}

/* The hop's id as its points had it (both have the same key). */
static uint8_t hop_id_how(const struct fpoint *from, const struct fpoint *to)
{
	bool chained = from->role == TREX_FLOW_STEP || to->role == TREX_FLOW_STEP;

	return (uint8_t)(to->id_kind | (chained ? FLOW_ID_CHAINED : 0));
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
		    (struct trex_flow){TREX_NONE, TREX_NONE, from->track, to->track,
		                       from->ts,  to->ts,    from->cat,   from->name};
		c->flow_how[out] = hop_how(from, to);
		c->idx->flow_id_val[out] = to->id;
		c->idx->flow_id_how[out] = hop_id_how(from, to);
		out++;
	}
}

static bool add_anchor(struct bld *c, size_t flow, bool to, bld_ref slice)
{
	if (!BLD_FIT(c->anchors, c->anchors_cap, c->nanchors + 1))
		return false;
	c->anchors[c->nanchors++] = (struct flow_anchor){(uint32_t)flow, to, slice};
	return true;
}

/* The hops' ends on slices, in flow order (rare: only formats with handles). */
static bool emit_anchors(struct bld *c, size_t base)
{
	size_t out = base;

	for (size_t i = 0; i < c->nfpts; i++) {
		const struct fpoint *to = &c->fpts[i], *from;

		if (c->prev[i] == TREX_NONE)
			continue;
		from = &c->fpts[c->prev[i]];
		if (from->anchor != BLD_REF_NONE && !add_anchor(c, out, false, from->anchor))
			return false;
		if (to->anchor != BLD_REF_NONE && !add_anchor(c, out, true, to->anchor))
			return false;
		out++;
	}
	return true;
}

/* Room for flows [0, n): records, how each binds and their ids. */
static bool flows_fit(struct bld *c, size_t n)
{
	struct trex_index *idx = c->idx;

	while (idx->flows.count < n) {
		if (!trex_vec_push(&idx->flows))
			return false;
	}
	if (n + 1 > idx->flow_ids_cap) {
		size_t cap = idx->flow_ids_cap, cap2 = idx->flow_ids_cap;

		if (!BLD_FIT(idx->flow_id_val, cap, n + 1) ||
		    !BLD_FIT(idx->flow_id_how, cap2, n + 1))
			return false;
		idx->flow_ids_cap = cap < cap2 ? cap : cap2;
	}
	return BLD_FIT(c->flow_how, c->flow_how_cap, n + 1);
}

static enum trex_status emit_flows(struct bld *c)
{
	unsigned threads = bld_threads(c, c->nfpts);
	struct emit_job j = {c, c->idx->flows.count, threads, calloc(threads, sizeof(size_t))};
	size_t pos = j.base;

	if (!j.at)
		return bld_nomem(c);
	trex_task_run(threads, j.ntasks, emit_count, &j);
	for (size_t k = 0; k < j.ntasks; k++) {
		size_t n = j.at[k];

		j.at[k] = pos;
		pos += n;
	}
	if (pos > UINT32_MAX - 1 || !flows_fit(c, pos)) {
		free(j.at);
		return pos > UINT32_MAX - 1 ? bld_too_many(c) : bld_nomem(c);
	}
	trex_task_run(threads, j.ntasks, emit_fill, &j);
	free(j.at);
	if (c->file_anchored && !emit_anchors(c, j.base))
		return bld_nomem(c);
	return TREX_OK;
}

enum trex_status bld_flow_edge(struct bld *c, bld_ref from, bld_ref to)
{
	size_t n = c->idx->flows.count;

	if (n >= UINT32_MAX - 1)
		return bld_too_many(c);
	if (!flows_fit(c, n + 1) || !add_anchor(c, n, false, from) || !add_anchor(c, n, true, to))
		return bld_nomem(c);
	*TREX_VEC_AT(&c->idx->flows, struct trex_flow, n) = (struct trex_flow){
	    TREX_NONE, TREX_NONE, TREX_NONE, TREX_NONE, 0, 0, TREX_STR_NONE, TREX_STR_NONE};
	c->flow_how[n] = FLOW_FROM_ANCHOR | FLOW_TO_ANCHOR;
	c->idx->flow_id_val[n] = 0;
	c->idx->flow_id_how[n] = TREX_FLOW_ID_NONE;
	return TREX_OK;
}

void bld_flows_free(struct bld *c)
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

enum trex_status bld_flows_match(struct bld *c)
{
	unsigned threads = bld_threads(c, c->nfpts);
	struct match_job j = {c, calloc(threads, sizeof(*j.tasks)), threads};
	enum trex_status st = TREX_OK;

	c->prev = trex_big_malloc((c->nfpts + 1) * sizeof(*c->prev));
	if (!c->prev || !j.tasks)
		st = bld_nomem(c);
	for (size_t k = 0; st == TREX_OK && k < j.ntasks; k++) {
		j.tasks[k].prev = c->prev;
		j.tasks[k].fpts = c->fpts;
	}
	if (st == TREX_OK)
		trex_task_run(threads, j.ntasks, match_task_main, &j);
	for (size_t k = 0; st == TREX_OK && k < j.ntasks; k++) {
		if (j.tasks[k].failed)
			st = bld_nomem(c);
		c->integ[c->file].orphan_flow_start += j.tasks[k].orphan_start;
		c->integ[c->file].orphan_flow_end += j.tasks[k].orphan_end;
		trex_earliest_merge(bld_cand(c, c->file, TREX_INTEG_orphan_flow_start),
		                    &j.tasks[k].orphan_start_ex);
		trex_earliest_merge(bld_cand(c, c->file, TREX_INTEG_orphan_flow_end),
		                    &j.tasks[k].orphan_end_ex);
	}
	free(j.tasks);
	if (st == TREX_OK)
		st = emit_flows(c);
	bld_flows_free(c);
	return st;
}
