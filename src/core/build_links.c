/* Stage 4: flows bound to slices, the link tables (build_internal.h). */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "trex/core/task.h"

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

/* ---- binding flow points to slices ----------------------------------------------------------
 * Flows come in file order, so consecutive queries on a lane land near
 * each other: each lane keeps the position of its last answer and searches
 * outward from it (galloping), touching few slices per query. */

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
	uint32_t *hints;                  /* per lane */
	struct trex_integrity *integ;     /* per file */
	struct trex_earliest *unbound_ex; /* per file */
	int64_t start, end;               /* span seen, start > end if none */
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

/* One end of a flow: on the slice it was given (anchored), or bound by
 * time on its track; its track and time are then the slice's. */
static void bind_end(struct bld *c, struct bind_task *t, uint32_t *slice, uint32_t *track,
                     int64_t *ts, bool anchored, bool next)
{
	const struct trex_index *idx = c->idx;

	if (anchored) {
		const struct trex_slice *s = trex_idx_slice(idx, *slice);

		*track = s->track;
		*ts = s->ts;
		return;
	}
	if (*track == TREX_NONE) {
		*slice = TREX_NONE;
		return;
	}
	*track = c->track_new[*track];
	*slice = next ? bind_next(idx, *track, *ts, t->hints)
	              : bind_enclosing(idx, *track, *ts, t->hints);
}

static void bind_range(struct bld *c, struct bind_task *t, size_t lo, size_t hi)
{
	struct trex_index *idx = c->idx;

	for (size_t i = lo; i < hi; i++) {
		struct trex_flow *f = TREX_VEC_AT(&idx->flows, struct trex_flow, i);
		uint8_t how = c->flow_how[i];
		uint32_t file;

		bind_end(c, t, &f->from_slice, &f->from_track, &f->from_ts, how & FLOW_FROM_ANCHOR,
		         how & FLOW_FROM_NEXT);
		bind_end(c, t, &f->to_slice, &f->to_track, &f->to_ts, how & FLOW_TO_ANCHOR,
		         how & FLOW_TO_NEXT);
		file = f->from_track != TREX_NONE ? bld_track_file(idx, f->from_track)
		       : f->to_track != TREX_NONE ? bld_track_file(idx, f->to_track)
		                                  : 0;
		if (f->from_slice == TREX_NONE && !(how & FLOW_FROM_STEP))
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
 * ids by launch link and by op link. Each table is one task sorting
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

/* Keys (link << 32 | slice id) of the file's slices that have a value in
 * side table t, in slice id order, at most max; returns how many. The
 * bits are walked word by word, the values in step with them. */
static size_t side_keys(const struct trex_side_table *t, const struct trex_file_links *fl,
                        uint64_t *keys, size_t max)
{
	uint64_t end = (uint64_t)fl->first_slice + fl->slice_count;
	size_t n = 0, r;

	if (!t->words || fl->slice_count == 0)
		return 0;
	r = trex_side_rank(t, fl->first_slice);
	for (uint64_t w = fl->first_slice / 64; w * 64 < end && n < max; w++) {
		uint64_t bits = t->bits[w];

		if (w == fl->first_slice / 64)
			bits &= ~((UINT64_C(1) << (fl->first_slice % 64)) - 1);
		while (bits && n < max) {
			uint64_t id = w * 64 + (uint64_t)__builtin_ctzll(bits);

			if (id >= end)
				return n;
			keys[n++] = (uint64_t)t->values[r++] << 32 | id;
			bits &= bits - 1;
		}
	}
	return n;
}

/* File f's slices by (launch_link, id) or (op_link, id). */
static bool file_links(struct trex_index *idx, const struct trex_file_links *fl, bool op)
{
	size_t n = 0, want = op ? fl->op_count : fl->launch_count;
	uint32_t *out = op ? idx->op_ids + fl->op_first : idx->launch_ids + fl->launch_first;
	uint64_t *keys = trex_big_malloc((want + 1) * sizeof(*keys));

	if (!keys)
		return false;
	n = side_keys(&idx->side[op ? TREX_SIDE_OP_LINK : TREX_SIDE_LAUNCH_LINK], fl, keys, want);
	if (!sort_hi32(keys, n)) {
		free(keys);
		return false;
	}
	for (size_t k = 0; k < n; k++) {
		uint32_t id = (uint32_t)keys[k], link = (uint32_t)(keys[k] >> 32);

		out[k] = id;
		if (!op)
			idx->launch_keys[fl->launch_first + k] =
			    (uint64_t)link << 1 |
			    (trex_idx_slice(idx, id)->kind == TREX_KIND_RUNTIME);
	}
	free(keys);
	return true;
}

/* Task 2f / 2f + 1: file f's op link / launch link table (the larger
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
static enum trex_status bind_flows(struct bld *c)
{
	struct trex_index *idx = c->idx;
	unsigned threads = bld_threads(c, idx->slices.count + idx->flows.count);
	size_t nc = 0, ne = 0, n = idx->flows.count;
	struct bind_job b = {c, calloc(threads, sizeof(*b.tasks)), threads, false};
	struct link_job l = {idx, false};
	struct bind_link_job j = {&b, &l, 2 * (size_t)idx->nfiles};
	bool ok;

	for (uint32_t f = 0; f < idx->nfiles; f++) {
		struct trex_file_links *fl = &idx->links[f];

		fl->launch_first = nc;
		fl->op_first = ne;
		nc += fl->launch_count;
		ne += fl->op_count;
	}
	atomic_init(&l.failed, false);
	idx->launch_ids = malloc((nc + 1) * sizeof(*idx->launch_ids));
	idx->op_ids = malloc((ne + 1) * sizeof(*idx->op_ids));
	idx->launch_keys = malloc((nc + 1) * sizeof(*idx->launch_keys));
	idx->flows_out = malloc((n + 1) * sizeof(*idx->flows_out));
	idx->flows_in = malloc((n + 1) * sizeof(*idx->flows_in));
	ok = b.tasks && idx->launch_ids && idx->op_ids && idx->launch_keys && idx->flows_out &&
	     idx->flows_in;
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
			bld_note_span(c, b.tasks[k].start, b.tasks[k].start);
			bld_note_span(c, b.tasks[k].end, b.tasks[k].end);
		}
		for (uint32_t f = 0; ok && f < idx->nfiles; f++) {
			trex_integrity_add(&c->integ[f], &b.tasks[k].integ[f]);
			trex_earliest_merge(bld_cand(c, f, TREX_INTEG_unbound_flow_points),
			                    &b.tasks[k].unbound_ex[f]);
		}
		free(b.tasks[k].hints);
		free(b.tasks[k].integ);
		free(b.tasks[k].unbound_ex);
	}
	free(b.tasks);
	return ok && !atomic_load(&l.failed) ? TREX_OK : bld_nomem(c);
}

/* The flow tables, once flows are bound. */
static enum trex_status flow_tables(struct bld *c)
{
	struct trex_index *idx = c->idx;
	struct link_job l = {idx, false};

	atomic_init(&l.failed, false);
	trex_task_run(bld_threads(c, idx->flows.count), 2, flow_link_task, &l);
	return atomic_load(&l.failed) ? bld_nomem(c) : TREX_OK;
}

enum trex_status bld_links(struct bld *c)
{
	enum trex_status st = bind_flows(c);

	return st == TREX_OK ? flow_tables(c) : st;
}
