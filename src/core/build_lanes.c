/* Stage 3: slices sorted per track, nested into lanes and placed in
 * (track, depth, ts) order; instants and samples sorted (build_internal.h). */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "trex/core/task.h"

/* ---- file order, for ties ---------------------------------------------------------------- */

/* The file order of the slice at store place pos (before placement). */
static uint64_t seq_of(const struct bld *c, size_t pos)
{
	size_t lo = 0, hi = c->nseq_runs, r;

	if (pos < c->nfull)
		return c->block_seq[pos >> TREX_VEC_SHIFT] + (pos & TREX_VEC_MASK);
	r = pos - c->nfull;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->seq_runs[mid].at <= r)
			lo = mid;
		else
			hi = mid;
	}
	return c->seq_runs[lo].seq + (r - c->seq_runs[lo].at);
}

struct track_res {
	uint32_t *depth_counts; /* max_depth entries */
	uint32_t max_depth;
	uint32_t launch, op; /* slices with HAS_LAUNCH_LINK, HAS_OP_LINK */
	uint64_t overlaps, zero;
	int64_t min_ts, max_end;
};

struct slice_sort {
	const struct bld *c;
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

/* A sorted run of ids being merged, with its head's sort key cached. */
struct run_head {
	int64_t ts, dur;
	uint32_t id;
	uint32_t pos, end; /* head and end of the run in ids */
};

struct sort_worker {
	struct slice_sort *ss;
	/* per file: the earliest overlapping ([2 f]) and zero-length
	 * ([2 f + 1]) slices this worker met */
	struct trex_earliest *ex;
	uint32_t *tmp;
	size_t cap;
	int64_t *stack;         /* ends of the open slices, BLD_DEPTH_LIMIT entries */
	struct run_head *heads; /* KWAY_MAX entries */
	uint32_t *counts;       /* slices per depth, BLD_DEPTH_LIMIT entries */
};

/* Per-track order: ts ascending, longer first at equal ts (a parent before
 * the children starting with it), then file order. */
static inline bool key_less(const struct bld *c, int64_t ats, int64_t adur, uint32_t a, int64_t bts,
                            int64_t bdur, uint32_t b)
{
	if (ats != bts)
		return ats < bts;
	if (adur != bdur)
		return adur > bdur;
	return seq_of(c, a) < seq_of(c, b);
}

static inline bool slice_less(const struct slice_sort *ss, uint32_t a, uint32_t b)
{
	const struct trex_bslice *x = SL(ss->v, a), *y = SL(ss->v, b);

	return key_less(ss->c, x->ts, x->dur, a, y->ts, y->dur, b);
}

static bool ids_sorted(const struct slice_sort *ss, const uint32_t *ids, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (slice_less(ss, ids[i], ids[i - 1]))
			return false;
	}
	return true;
}

/* Insertion sort that gives up after budget moves: cheap for the few
 * displaced slices of a mostly sorted track. ids stays a permutation. */
static bool insertion_sort(const struct slice_sort *ss, uint32_t *ids, size_t n, size_t budget)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = ids[i];
		size_t j = i;

		while (j > 0 && slice_less(ss, x, ids[j - 1])) {
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

static size_t run_end(const struct slice_sort *ss, const uint32_t *ids, size_t i, size_t n)
{
	for (i++; i < n && !slice_less(ss, ids[i], ids[i - 1]); i++)
		;
	return i;
}

static void merge_runs(const struct slice_sort *ss, const uint32_t *a, size_t na, const uint32_t *b,
                       size_t nb, uint32_t *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < na && j < nb)
		out[k++] = slice_less(ss, b[j], a[i]) ? b[j++] : a[i++];
	memcpy(out + k, a + i, (na - i) * sizeof(*a));
	memcpy(out + k + na - i, b + j, (nb - j) * sizeof(*b));
}

/* Stable natural merge sort: runs already in order are merged, never
 * re-sorted. Short chunks are insertion-sorted first so random input does
 * not start from runs of length one. */
static void merge_sort(const struct slice_sort *ss, uint32_t *ids, uint32_t *tmp, size_t n)
{
	uint32_t *src = ids, *dst = tmp;
	size_t runs;

	for (size_t i = 0; i < n; i += 16)
		insertion_sort(ss, ids + i, n - i < 16 ? n - i : 16, SIZE_MAX);
	do {
		size_t i = 0;
		uint32_t *swap;

		for (runs = 0; i < n; runs++) {
			size_t mid = run_end(ss, src, i, n),
			       hi = mid < n ? run_end(ss, src, mid, n) : n;

			merge_runs(ss, src + i, mid - i, src + mid, hi - mid, dst + i);
			i = hi;
		}
		swap = src;
		src = dst;
		dst = swap;
	} while (runs > 1);
	if (src != ids)
		memcpy(ids, src, n * sizeof(*ids));
}

/* Runs merged at once at most; more and the merge sort is used. */
#define KWAY_MAX 1024

static inline bool head_less(const struct bld *c, const struct run_head *a,
                             const struct run_head *b)
{
	return key_less(c, a->ts, a->dur, a->id, b->ts, b->dur, b->id);
}

static inline void head_load(const struct slice_sort *ss, const uint32_t *ids, struct run_head *h)
{
	const struct trex_bslice *s = SL(ss->v, ids[h->pos]);

	h->ts = s->ts;
	h->dur = s->dur;
	h->id = ids[h->pos];
}

static void heap_down(const struct bld *c, struct run_head *h, size_t k, size_t i)
{
	struct run_head x = h[i];

	for (;;) {
		size_t l = 2 * i + 1;

		if (l >= k)
			break;
		if (l + 1 < k && head_less(c, &h[l + 1], &h[l]))
			l++;
		if (!head_less(c, &h[l], &x))
			break;
		h[i] = h[l];
		i = l;
	}
	h[i] = x;
}

/* Splits ids into its sorted runs; false if there are more than KWAY_MAX. */
static bool find_runs(const struct slice_sort *ss, const uint32_t *ids, size_t n,
                      struct run_head *heads, size_t *nruns)
{
	size_t k = 0;

	for (size_t i = 0; i < n; k++) {
		size_t e = run_end(ss, ids, i, n);

		if (k == KWAY_MAX)
			return false;
		heads[k].pos = (uint32_t)i;
		heads[k].end = (uint32_t)e;
		head_load(ss, ids, &heads[k]);
		i = e;
	}
	*nruns = k;
	return true;
}

/* Input made of a few long sorted runs (a thread's events written kind by
 * kind, each kind in order) merged in one pass through a heap of their
 * heads: each slice is read once, where pairwise merging would read it
 * once per level. The order is total, so the result is the merge sort's. */
static void kway_merge(const struct slice_sort *ss, uint32_t *ids, uint32_t *tmp, size_t n,
                       struct run_head *h, size_t k)
{
	for (size_t i = k / 2; i-- > 0;)
		heap_down(ss->c, h, k, i);
	for (size_t out = 0; out < n; out++) {
		tmp[out] = ids[h[0].pos];
		if (++h[0].pos < h[0].end) {
			head_load(ss, ids, &h[0]);
		} else {
			h[0] = h[--k];
			if (k == 0)
				break;
		}
		heap_down(ss->c, h, k, 0);
	}
	memcpy(ids, tmp, n * sizeof(*ids));
}

static void sort_ids(const struct slice_sort *ss, uint32_t *ids, uint32_t *tmp, size_t n,
                     struct run_head *heads)
{
	size_t nruns;

	if (ids_sorted(ss, ids, n))
		return;
	if (find_runs(ss, ids, n, heads, &nruns))
		kway_merge(ss, ids, tmp, n, heads, nruns);
	else if (!insertion_sort(ss, ids, n, 4 * n + 1024))
		merge_sort(ss, ids, tmp, n);
}

/* A slice's final id: the track's first id, the lanes above its own,
 * then its rank in its lane. Written here, where the ranks are made, so
 * that placement and the stages before it read one number per slice
 * instead of walking slice, track and lane (a chain of dependent loads
 * per record in placement's hot loop). depth: each slice's, by sort
 * position; counts: the slices per depth. */
static void assign_ids(struct slice_sort *ss, const uint32_t *ids, const uint32_t *depth, size_t n,
                       uint32_t *counts, uint32_t max_depth)
{
	uint32_t at = (uint32_t)(ids - ss->perm);

	for (uint32_t d = 0; d < max_depth; d++) {
		uint32_t k = counts[d];

		counts[d] = at;
		at += k;
	}
	for (size_t i = 0; i < n; i++)
		ss->c->slice_id[ids[i]] = counts[depth[i]]++;
}

/* Depth by a stack of open slice ends: a slice sits one deeper than the
 * open slices it starts inside. One that outlives the slice it starts in
 * still nests (flagged OVERLAP); every slice of a lane was popped before
 * the next one entered it, so lanes never overlap. Each slice then learns
 * its final id (assign_ids), from which placement knows where it goes. */
static enum trex_status assign_depths(struct sort_worker *w, const uint32_t *ids, size_t n,
                                      struct track_res *r, struct trex_earliest *ex)
{
	size_t sp = 0;
	uint32_t *depth = w->tmp; /* free once the ids are sorted */

	r->min_ts = INT64_MAX;
	r->max_end = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		struct trex_bslice *s = SL(w->ss->v, ids[i]);
		int64_t end = bld_slice_end(s);

		while (sp > 0 && w->stack[sp - 1] <= s->ts)
			sp--;
		if (sp > 0 && end > w->stack[sp - 1]) {
			s->flags |= TREX_SLICE_OVERLAP;
			r->overlaps++;
			trex_earliest_offer(
			    &ex[0], &(struct trex_problem_cand){s->ts, end - w->stack[sp - 1],
			                                        s->track, s->name});
		}
		if (sp >= BLD_DEPTH_LIMIT)
			return TREX_FORMAT;
		if (s->dur == 0 && !(s->flags & TREX_SLICE_REVERSED)) {
			r->zero++;
			trex_earliest_offer(
			    &ex[1], &(struct trex_problem_cand){s->ts, 0, s->track, s->name});
		}
		r->launch += (s->flags & TREX_SLICE_HAS_LAUNCH_LINK) != 0;
		r->op += (s->flags & TREX_SLICE_HAS_OP_LINK) != 0;
		if (sp == r->max_depth)
			w->counts[r->max_depth++] = 0;
		s->depth = (uint16_t)sp;
		depth[i] = (uint32_t)sp;
		w->counts[sp]++;
		w->stack[sp++] = end;
		r->min_ts = s->ts < r->min_ts ? s->ts : r->min_ts;
		r->max_end = end > r->max_end ? end : r->max_end;
	}
	r->depth_counts = malloc(r->max_depth * sizeof(*r->depth_counts));
	if (!r->depth_counts)
		return TREX_NOMEM;
	memcpy(r->depth_counts, w->counts, r->max_depth * sizeof(*r->depth_counts));
	assign_ids(w->ss, ids, depth, n, w->counts, r->max_depth);
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
	sort_ids(ss, ids, w->tmp, n, w->heads);
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

static bool worker_init(struct sort_worker *w, struct slice_sort *ss)
{
	memset(w, 0, sizeof(*w));
	w->ss = ss;
	w->stack = malloc(BLD_DEPTH_LIMIT * sizeof(*w->stack));
	w->counts = malloc(BLD_DEPTH_LIMIT * sizeof(*w->counts));
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
	unsigned n = trex_task_workers(bld_threads(c, c->idx->slices.count), ss->ntracks);
	struct sort_worker *w = calloc(n, sizeof(*w));
	bool ok = w && (n == 1 || order_by_size(ss));

	for (unsigned i = 0; ok && i < n; i++)
		ok = worker_init(&w[i], ss);
	if (!ok) {
		for (unsigned i = 0; w && i < n; i++)
			worker_free(&w[i]);
		free(w);
		return bld_nomem(c);
	}
	ss->workers = w;
	trex_task_run(n, ss->ntracks, sort_task, ss);
	ss->workers = NULL;
	for (unsigned i = 0; i < n; i++) {
		for (uint32_t f = 0; f < ss->nfiles; f++) {
			trex_earliest_merge(bld_cand(c, f, TREX_INTEG_overlaps), &w[i].ex[2 * f]);
			trex_earliest_merge(bld_cand(c, f, TREX_INTEG_zero_duration),
			                    &w[i].ex[2 * f + 1]);
		}
		worker_free(&w[i]);
	}
	free(w);
	return (enum trex_status)atomic_load(&ss->status);
}

/* ---- bucketing by track ----------------------------------------------------------------------
 * Counting sort of slice ids by (display order) track, in ranges of ids
 * on the build's threads: each range counts its slices per track, then
 * writes its ids from its own offsets, so perm is the same for any number
 * of ranges. Also renumbers each slice's track. */
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
		struct trex_bslice *s = SL(v, i);

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
	unsigned threads = bld_threads(c, v->count);
	struct bucket_job j = {c, ss, NULL, threads};
	uint32_t pos = 0;

	ss->first = calloc((size_t)ss->ntracks + 1, sizeof(*ss->first));
	ss->perm = trex_big_malloc((v->count + 1) * sizeof(*ss->perm));
	ss->res = calloc((size_t)ss->ntracks + 1, sizeof(*ss->res));
	j.next = calloc(j.ntasks * ss->ntracks + 1, sizeof(*j.next));
	if (!ss->first || !ss->perm || !ss->res || !j.next) {
		free(j.next);
		return bld_nomem(c);
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

/* A file's slice range and link counts, track by track (tracks and
 * slices of a file are contiguous). */
static void file_counts(struct trex_file_links *fl, uint32_t t, const struct trex_track *tr,
                        const struct track_res *r)
{
	if (t == fl->first_track)
		fl->first_slice = tr->first_slice;
	fl->slice_count += tr->slice_count;
	fl->launch_count += r->launch;
	fl->op_count += r->op;
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
		return bld_too_many(c);
	idx->lanes = malloc((total + 1) * sizeof(*idx->lanes));
	if (!idx->lanes)
		return bld_nomem(c);
	for (uint32_t t = 0; t < ss->ntracks; t++) {
		const struct track_res *r = &ss->res[t];
		struct trex_track *tr = &idx->tracks[t];
		uint32_t off = ss->first[t], file = bld_track_file(idx, t);

		tr->first_slice = off;
		tr->slice_count = ss->first[t + 1] - off;
		tr->first_lane = (uint32_t)l;
		tr->lane_count = r->max_depth;
		tr->max_depth = (uint16_t)r->max_depth;
		for (uint32_t d = 0; d < r->max_depth; off += r->depth_counts[d++])
			idx->lanes[l++] = (struct trex_lane){t, d, off, r->depth_counts[d]};
		c->integ[file].overlaps += r->overlaps;
		c->integ[file].zero_duration += r->zero;
		file_counts(&idx->links[file], t, tr, r);
		if (tr->slice_count)
			bld_note_span(c, r->min_ts, r->max_end);
	}
	idx->nlanes = (uint32_t)total;
	return TREX_OK;
}

/* ---- placement ---------------------------------------------------------------------------- */

/* The store being placed: slices and, moving with them, their final ids. */
struct place {
	struct trex_vec *v;
	uint32_t *dest;
};

static inline size_t place_dest(const struct place *p, size_t i)
{
	return p->dest[i];
}

static inline void place_swap(const struct place *p, size_t a, size_t b)
{
	struct trex_bslice t = *SL(p->v, a);
	uint32_t r = p->dest[a];

	*SL(p->v, a) = *SL(p->v, b);
	*SL(p->v, b) = t;
	p->dest[a] = p->dest[b];
	p->dest[b] = r;
}

/* PLACE_BUF records (under 1 MiB) are placed through a buffer in cache. */
enum { PLACE_FAN = 256, PLACE_BUF = 1 << 14 };

/* One pass of an in-place MSD radix sort by destination over [lo, hi),
 * whose records are exactly those destined for [lo, hi): records are
 * swapped into the bucket of their destination; each bucket's write head
 * only advances, so memory is touched in at most PLACE_FAN prefetchable
 * streams, where a cycle walk would wait on one random miss per record. */
static void place_pass(const struct place *p, size_t lo, size_t hi, unsigned shift)
{
	size_t head[PLACE_FAN], end[PLACE_FAN], nb = ((hi - lo - 1) >> shift) + 1;

	for (size_t b = 0; b < nb; b++) {
		head[b] = lo + (b << shift);
		end[b] = head[b] + ((size_t)1 << shift) < hi ? head[b] + ((size_t)1 << shift) : hi;
	}
	for (size_t b = 0; b < nb; b++) {
		while (head[b] < end[b]) {
			struct trex_bslice x = *SL(p->v, head[b]);
			uint32_t xr = p->dest[head[b]];
			size_t d = (xr - lo) >> shift;

			while (d != b) {
				struct trex_bslice *slot = SL(p->v, head[d]), y = *slot;
				uint32_t yr = p->dest[head[d]];

				*slot = x;
				p->dest[head[d]] = xr;
				if (++head[d] < end[d])
					__builtin_prefetch(SL(p->v, head[d]));
				x = y;
				xr = yr;
				d = (xr - lo) >> shift;
			}
			*SL(p->v, head[b]) = x;
			p->dest[head[b]] = xr;
			head[b]++;
		}
	}
}

/* A range small enough for cache: copied out, then written back to the
 * right places. */
static void place_small(const struct place *p, size_t lo, size_t hi, struct trex_bslice *buf)
{
	for (size_t i = lo; i < hi; i++)
		buf[i - lo] = *SL(p->v, i);
	for (size_t i = lo; i < hi; i++)
		*SL(p->v, p->dest[i]) = buf[i - lo];
}

static void place_range(const struct place *p, size_t lo, size_t hi, struct trex_bslice *buf)
{
	unsigned shift = 0;

	if (hi - lo <= PLACE_BUF) {
		place_small(p, lo, hi, buf);
		return;
	}
	while (((hi - lo - 1) >> shift) >= PLACE_FAN)
		shift++;
	place_pass(p, lo, hi, shift);
	for (size_t b = lo; b < hi; b += (size_t)1 << shift)
		place_range(p, b, b + ((size_t)1 << shift) < hi ? b + ((size_t)1 << shift) : hi,
		            buf);
}

/* On several threads, [lo, hi) is first split in place into the slices
 * bound for [lo, mid) and those bound for [mid, hi): each thread
 * partitions a chunk of its own, then the slices on the wrong side are
 * swapped pairwise, also in shares. Each side then goes on with its share
 * of the threads, one thread placing a range alone (place_range). The
 * places are fixed by the lanes, so the result is the same for any split. */
#define SPLIT_MAX 64

struct split_job {
	const struct place *p;
	size_t lo, mid, hi;
	unsigned threads;
	size_t nl[SPLIT_MAX]; /* per chunk: slices bound below mid */
	size_t a_lo[SPLIT_MAX], a_n[SPLIT_MAX], b_lo[SPLIT_MAX], b_n[SPLIT_MAX];
	size_t na, nb, swaps;
};

static inline size_t chunk_at(const struct split_job *j, size_t k)
{
	return j->lo + (j->hi - j->lo) * k / j->threads;
}

static void split_partition(void *arg, size_t k, unsigned worker)
{
	struct split_job *j = arg;
	size_t a = chunk_at(j, k), i = a, e = chunk_at(j, k + 1);

	(void)worker;
	for (;;) {
		while (i < e && place_dest(j->p, i) < j->mid)
			i++;
		while (i < e && place_dest(j->p, e - 1) >= j->mid)
			e--;
		if (i + 1 >= e)
			break;
		e--;
		place_swap(j->p, i, e);
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
	for (size_t n = from; n < to; n++)
		place_swap(j->p, seg_pos(j->a_lo, j->a_n, n), seg_pos(j->b_lo, j->b_n, n));
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

static bool place_split(const struct place *p, size_t lo, size_t hi, unsigned threads);

struct split_side {
	const struct place *p;
	size_t lo[2], hi[2];
	unsigned threads[2];
	atomic_bool failed;
};

static void split_side_task(void *arg, size_t k, unsigned worker)
{
	struct split_side *s = arg;

	(void)worker;
	if (!place_split(s->p, s->lo[k], s->hi[k], s->threads[k]))
		atomic_store(&s->failed, true);
}

static bool place_split(const struct place *p, size_t lo, size_t hi, unsigned threads)
{
	struct split_job *j;
	struct split_side side;
	unsigned left;

	if (threads <= 1 || hi - lo <= (size_t)PLACE_BUF * threads) {
		struct trex_bslice *buf = malloc(PLACE_BUF * sizeof(*buf));

		if (!buf)
			return false;
		if (hi > lo)
			place_range(p, lo, hi, buf);
		free(buf);
		return true;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return false;
	left = threads / 2;
	*j = (struct split_job){.p = p, .lo = lo, .hi = hi, .threads = threads};
	j->mid = lo + (hi - lo) * left / threads;
	trex_task_run(threads, threads, split_partition, j);
	split_segments(j);
	trex_task_run(threads, threads, split_swap, j);
	side = (struct split_side){p, {lo, j->mid}, {j->mid, hi}, {left, threads - left}, false};
	free(j);
	atomic_init(&side.failed, false);
	trex_task_run(2, 2, split_side_task, &side);
	return !atomic_load(&side.failed);
}

/* Moves every slice to its place in (track, depth, ts) order, in place
 * but for a buffer of PLACE_BUF records per thread. */
static enum trex_status place_slices(struct bld *c, uint32_t *dest)
{
	struct place p = {&c->idx->slices, dest};
	unsigned threads = bld_threads(c, p.v->count);

	if (threads > SPLIT_MAX)
		threads = SPLIT_MAX;
	return place_split(&p, 0, p.v->count, threads) ? TREX_OK : bld_nomem(c);
}

/* ---- slices on references: their final ids ------------------------------------------------ */

static uint32_t final_id(const struct bld *c, bld_ref r)
{
	return c->slice_id[bld_ref_place(c, r)];
}

/* Dependencies by (from, to). */
static int cmp_edge(const void *pa, const void *pb)
{
	const struct trex_edge *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* The dependencies with their slices' final ids, sorted both ways. */
static enum trex_status resolve_deps(struct bld *c)
{
	struct trex_index *idx = c->idx;
	uint64_t *keys;

	if (c->ndeps == 0)
		return TREX_OK;
	if (c->ndeps > UINT32_MAX - 1)
		return bld_too_many(c);
	idx->edges = malloc(c->ndeps * sizeof(*idx->edges));
	idx->edges_in = malloc(c->ndeps * sizeof(*idx->edges_in));
	keys = malloc(c->ndeps * sizeof(*keys));
	if (!idx->edges || !idx->edges_in || !keys) {
		free(keys);
		return bld_nomem(c);
	}
	for (size_t i = 0; i < c->ndeps; i++)
		idx->edges[i] =
		    (struct trex_edge){final_id(c, c->deps[i].from), final_id(c, c->deps[i].to)};
	qsort(idx->edges, c->ndeps, sizeof(*idx->edges), cmp_edge);
	for (size_t i = 0; i < c->ndeps; i++)
		keys[i] = ((uint64_t)idx->edges[i].to << 32) | i;
	qsort(keys, c->ndeps, sizeof(*keys), cmp_u64);
	for (size_t i = 0; i < c->ndeps; i++)
		idx->edges_in[i] = (uint32_t)keys[i];
	idx->nedges = (uint32_t)c->ndeps;
	free(keys);
	return TREX_OK;
}

/* The graph's nodes learn the final ids of the slices that show them. */
static enum trex_status bind_graph(struct bld *c)
{
	struct trex_graph *g = c->idx->graph;

	if (!g)
		return TREX_OK;
	for (size_t i = 0; i < c->ngraph_refs; i++)
		trex_graph_bind_slice(g, c->graph_refs[i].node,
		                      final_id(c, c->graph_refs[i].slice));
	return trex_graph_bind_done(g, (uint32_t)c->idx->slices.count, c->err);
}

/* The flows' ends on slices: their final ids (and with them their tracks
 * and times, once placed: bld_links). */
static void resolve_anchors(struct bld *c)
{
	for (size_t i = 0; i < c->nanchors; i++) {
		struct flow_anchor *a = &c->anchors[i];
		struct trex_flow *f = TREX_VEC_AT(&c->idx->flows, struct trex_flow, a->flow);

		if (a->to)
			f->to_slice = final_id(c, a->slice);
		else
			f->from_slice = final_id(c, a->slice);
	}
}

/* ---- the stage ------------------------------------------------------------------------------ */

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

static enum trex_status sort_tracks(struct bld *c, struct slice_sort *ss)
{
	enum trex_status st;

	ss->c = c;
	ss->v = &c->idx->slices;
	ss->ntracks = c->idx->ntracks;
	ss->nfiles = c->idx->nfiles;
	ss->track_file = malloc(((size_t)ss->ntracks + 1) * sizeof(*ss->track_file));
	if (!ss->track_file)
		return bld_nomem(c);
	for (uint32_t t = 0; t < ss->ntracks; t++)
		ss->track_file[t] = bld_track_file(c->idx, t);
	atomic_init(&ss->status, TREX_OK);
	atomic_init(&ss->bad_track, 0);
	st = bucket_slices(c, ss);
	if (st == TREX_OK)
		st = run_workers(c, ss);
	if (st == TREX_NOMEM)
		st = bld_nomem(c);
	else if (st == TREX_FORMAT)
		st = trex_error_set(c->err, TREX_FORMAT, NULL, -1,
		                    "track %u nests slices more than %u deep",
		                    atomic_load(&ss->bad_track), BLD_DEPTH_LIMIT - 1);
	return st;
}

enum trex_status bld_lanes(struct bld *c)
{
	struct slice_sort ss;
	enum trex_status st;

	memset(&ss, 0, sizeof(ss));
	c->slice_id = trex_big_malloc((c->idx->slices.count + 1) * sizeof(*c->slice_id));
	if (!c->slice_id)
		return bld_nomem(c);
	st = sort_tracks(c, &ss);
	if (st == TREX_OK)
		st = build_lanes(c, &ss);
	slice_sort_free(&ss);
	if (st == TREX_OK)
		st = resolve_deps(c);
	if (st == TREX_OK)
		st = bind_graph(c);
	if (st == TREX_OK)
		resolve_anchors(c);
	if (st == TREX_OK)
		st = place_slices(c, c->slice_id);
	free(c->slice_id);
	c->slice_id = NULL;
	return st;
}

/* ---- instants and counter samples
 * ---------------------------------------------------------------- */

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
		return v->count > UINT32_MAX - 1 ? bld_too_many(c) : bld_nomem(c);
	}
	for (size_t i = 0; i < v->count; i++) {
		struct trex_instant *in = TREX_VEC_AT(v, struct trex_instant, i);

		in->track = c->track_new[in->track];
		keys[i] = (struct rkey){in->ts, in->track, (uint32_t)i};
		bld_note_span(c, in->ts, in->ts);
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
		return v->count > UINT32_MAX - 1 ? bld_too_many(c) : bld_nomem(c);
	}
	for (size_t i = 0; i < v->count; i++) {
		struct trex_bsample *s = TREX_VEC_AT(v, struct trex_bsample, i);

		keys[i] = (struct rkey){s->ts, c->track_new[s->track], (uint32_t)i};
		bld_note_span(c, s->ts, s->ts);
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

enum trex_status bld_sort_points(struct bld *c)
{
	enum trex_status st = sort_instants(c);

	return st == TREX_OK ? sort_samples(c) : st;
}
