/* Time outliers of a file (index.h, integrity ts_out_of_range and
 * dur_out_of_range): events whose ts lies further before the start, or
 * after the end, of the file's other events than OUTLIER_FACTOR times
 * their span, and X slices longer than OUTLIER_FACTOR times the file's
 * span; spans shorter than OUTLIER_FLOOR_NS count as that long. Such
 * values come from damage (a lost digit moves an epoch timestamp by
 * decades) and would stretch every view of the trace to nothing, so the
 * records are dropped before the build merges them.
 *
 * Only the extremes matter: the OUTLIER_MAX + 1 earliest and latest starts
 * are kept while all are visited, and that pass only runs when the file's
 * starts or durations spread over more than OUTLIER_FACTOR * OUTLIER_FLOOR_NS
 * (about 17 minutes), which no short trace does. */
#include "config.h"

#include "outliers.h"

#include <stdlib.h>
#include <string.h>

#define OUTLIER_FACTOR 1000
#define OUTLIER_FLOOR_NS INT64_C(1000000000)
#define OUTLIER_MAX 64        /* per end of the file's time range */
#define OUTLIER_MIN_EVENTS 16 /* fewer: no bulk to compare with */
#define KEEP (OUTLIER_MAX + 1)

/* The largest distance from the bulk of span that is not an outlier. */
static int64_t outlier_limit(int64_t span)
{
	int64_t s = span > OUTLIER_FLOOR_NS ? span : OUTLIER_FLOOR_NS;

	return s > INT64_MAX / OUTLIER_FACTOR ? INT64_MAX : s * OUTLIER_FACTOR;
}

static uint64_t diff(int64_t hi, int64_t lo)
{
	return (uint64_t)hi - (uint64_t)lo;
}

/* ---- the extremes ------------------------------------------------------------------ */

/* lo: a max-heap of the KEEP smallest starts; hi: a min-heap of the KEEP
 * largest. */
struct extremes {
	int64_t lo[KEEP], hi[KEEP];
	size_t nlo, nhi;
	uint64_t n;
};

static int cmp3(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static void swap_i64(int64_t *a, int64_t *b)
{
	int64_t t = *a;

	*a = *b;
	*b = t;
}

/* sign +1: a max-heap (the root is the largest), -1: a min-heap. */
static void heap_sift(int64_t *h, size_t n, size_t i, int sign)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && sign * cmp3(h[l], h[m]) > 0)
			m = l;
		if (r < n && sign * cmp3(h[r], h[m]) > 0)
			m = r;
		if (m == i)
			return;
		swap_i64(&h[i], &h[m]);
		i = m;
	}
}

static void heap_push(int64_t *h, size_t *n, int64_t v, int sign)
{
	size_t i = (*n)++;

	h[i] = v;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (sign * cmp3(h[i], h[p]) <= 0)
			return;
		swap_i64(&h[i], &h[p]);
		i = p;
	}
}

/* sign +1: a max-heap keeping the smallest values; -1: a min-heap keeping
 * the largest. */
static void heap_offer(int64_t *h, size_t *n, int64_t v, int sign)
{
	if (*n < KEEP) {
		heap_push(h, n, v, sign);
		return;
	}
	if (sign > 0 ? v >= h[0] : v <= h[0])
		return;
	h[0] = v;
	heap_sift(h, *n, 0, sign);
}

static void extremes_offer(struct extremes *x, int64_t ts)
{
	x->n++;
	heap_offer(x->lo, &x->nlo, ts, 1);
	heap_offer(x->hi, &x->nhi, ts, -1);
}

static int cmp_i64(const void *pa, const void *pb)
{
	return cmp3(*(const int64_t *)pa, *(const int64_t *)pb);
}

/* ---- visiting the records of a builder ------------------------------------------------- */

static int64_t slice_ts(const struct trex_builder *b, size_t i)
{
	return TREX_VEC_AT(&b->slices, const struct trex_bslice, i)->ts;
}

/* Every record with a time, once: slices, ends, keyed ends and instants
 * (a keyed begin is its slice), instants, samples, flow points. */
static void collect(struct trex_builder *const *parts, size_t n, struct extremes *x)
{
	for (size_t p = 0; p < n; p++) {
		const struct trex_builder *b = parts[p];

		for (size_t i = 0; i < b->slices.count; i++)
			extremes_offer(x, slice_ts(b, i));
		for (size_t i = 0; i < b->ends.count; i++)
			extremes_offer(x, TREX_VEC_AT(&b->ends, const struct trex_bend, i)->ts);
		for (size_t i = 0; i < b->keyed.count; i++) {
			const struct trex_bkeyed *k =
			    TREX_VEC_AT(&b->keyed, const struct trex_bkeyed, i);

			if (k->op != TREX_KEYED_BEGIN)
				extremes_offer(x, k->ts);
		}
		for (size_t i = 0; i < b->instants.count; i++)
			extremes_offer(x,
			               TREX_VEC_AT(&b->instants, const struct trex_instant, i)->ts);
		for (size_t i = 0; i < b->samples.count; i++)
			extremes_offer(x,
			               TREX_VEC_AT(&b->samples, const struct trex_bsample, i)->ts);
		for (size_t i = 0; i < b->flows.count; i++)
			extremes_offer(x, TREX_VEC_AT(&b->flows, const struct trex_bflow, i)->ts);
	}
}

/* ---- the rule ------------------------------------------------------------------------- */

/* t: the sorted smallest (lo) and largest (hi) starts of n. The lowest
 * cut j (points below index j are outliers) whose gap to the bulk exceeds
 * the limit of the bulk's span; the bulk ends at bulk_max. */
static size_t low_cut(const int64_t *lo, size_t nlo, size_t max_cut, int64_t bulk_max)
{
	size_t cut = 0;

	for (size_t j = 1; j <= max_cut && j < nlo; j++) {
		int64_t span = (int64_t)diff(bulk_max, lo[j]);

		if (bulk_max >= lo[j] && diff(lo[j], lo[j - 1]) > (uint64_t)outlier_limit(span))
			cut = j;
	}
	return cut;
}

static size_t high_cut(const int64_t *hi, size_t nhi, size_t max_cut, int64_t bulk_min)
{
	size_t cut = 0;

	for (size_t j = 1; j <= max_cut && j < nhi; j++) {
		int64_t top = hi[nhi - 1 - j];
		int64_t span = (int64_t)diff(top, bulk_min);

		if (top >= bulk_min && diff(hi[nhi - j], top) > (uint64_t)outlier_limit(span))
			cut = j;
	}
	return cut;
}

/* The bulk [*keep_lo, *keep_hi] of the file's starts. */
static void bulk_range(struct extremes *x, int64_t *keep_lo, int64_t *keep_hi)
{
	size_t max_cut = x->n / OUTLIER_MIN_EVENTS, lc = 0, hc = 0;

	if (max_cut > OUTLIER_MAX)
		max_cut = OUTLIER_MAX;
	qsort(x->lo, x->nlo, sizeof(int64_t), cmp_i64);
	qsort(x->hi, x->nhi, sizeof(int64_t), cmp_i64);
	for (int round = 0; round < 2 && max_cut > 0; round++) {
		lc = low_cut(x->lo, x->nlo, max_cut, x->hi[x->nhi - 1 - hc]);
		hc = high_cut(x->hi, x->nhi, max_cut, x->lo[lc]);
	}
	*keep_lo = x->lo[lc];
	*keep_hi = x->hi[x->nhi - 1 - hc];
}

/* ---- dropping -------------------------------------------------------------------------
 * Records are judged kind by kind, each kind in file order (the order of
 * the examples): complete slices (OUTLIER_SLICE), begun slices with the
 * ends (OUTLIER_PAIRED), keyed records with their slices (OUTLIER_KEYED),
 * instants, samples, flow points. Slices are then compacted and what names
 * them by place (begins, ends, keyed records, flow points, edges) follows. */

struct drop_ctx {
	int64_t keep_lo, keep_hi, dur_limit;
	trex_outlier_fn fn;
	void *user;
	size_t part;
	struct trex_builder *b;
	uint8_t *gone_slice, *gone_end, *gone_keyed; /* per record: dropped */
	bool any;
};

/* The offset of the event behind an outlier, when the builder knows it. */
static int64_t outlier_at(const struct trex_builder *b, const struct trex_outlier *o)
{
	return o->by_dur            ? (o->dur == b->max_dur ? b->max_dur_at : -1)
	       : o->ts == b->min_ts ? b->min_ts_at
	       : o->ts == b->max_ts ? b->max_ts_at
	                            : -1;
}

/* Whether a record of kind k (ts, dur for complete slices, track and name
 * or TREX_NONE) is an outlier; reports it when it is. */
static bool judge(struct drop_ctx *d, int k, int64_t ts, int64_t dur, uint32_t track, uint32_t name)
{
	struct trex_outlier o;

	memset(&o, 0, sizeof(o));
	o.part = d->part;
	o.kind = k;
	o.ts = ts;
	o.dur = k == OUTLIER_SLICE ? dur : 0;
	o.track = track;
	o.name = name;
	o.keep_lo = d->keep_lo;
	o.keep_hi = d->keep_hi;
	if (ts >= d->keep_lo && ts <= d->keep_hi) {
		if (k != OUTLIER_SLICE || dur <= d->dur_limit)
			return false;
		o.by_dur = true;
	}
	o.at = outlier_at(d->b, &o);
	d->fn(d->user, &o);
	d->any = true;
	return true;
}

static void judge_slice(struct drop_ctx *d, int k, size_t i)
{
	const struct trex_bslice *s = TREX_VEC_AT(&d->b->slices, const struct trex_bslice, i);

	d->gone_slice[i] = judge(d, k, s->ts, s->dur, s->track, s->name);
}

static void judge_complete(struct drop_ctx *d)
{
	for (size_t i = 0; i < d->b->slices.count; i++) {
		const struct trex_bslice *s =
		    TREX_VEC_AT(&d->b->slices, const struct trex_bslice, i);

		if (!(s->flags & (TREX_SLICE_PAIRED | TREX_SLICE_ASYNC)))
			judge_slice(d, OUTLIER_SLICE, i);
	}
}

/* Begun slices and ends in the order they were given: an end after k
 * slices came before the begin of slice k. */
static void judge_paired(struct drop_ctx *d)
{
	const struct trex_builder *b = d->b;
	size_t nb = b->begins.count, ne = b->ends.count;

	for (size_t i = 0, j = 0; i < nb || j < ne;) {
		uint32_t at = i < nb ? *TREX_VEC_AT(&b->begins, const uint32_t, i) : UINT32_MAX;
		const struct trex_bend *e =
		    j < ne ? TREX_VEC_AT(&b->ends, const struct trex_bend, j) : NULL;

		if (e && e->after <= at) {
			d->gone_end[j++] = judge(d, OUTLIER_PAIRED, e->ts, 0, e->track, e->name);
			continue;
		}
		judge_slice(d, OUTLIER_PAIRED, at);
		i++;
	}
}

static void judge_keyed(struct drop_ctx *d)
{
	for (size_t i = 0; i < d->b->keyed.count; i++) {
		const struct trex_bkeyed *k =
		    TREX_VEC_AT(&d->b->keyed, const struct trex_bkeyed, i);

		if (k->op == TREX_KEYED_BEGIN) {
			judge_slice(d, OUTLIER_KEYED, k->at);
			d->gone_keyed[i] = d->gone_slice[k->at];
		} else {
			d->gone_keyed[i] = judge(d, OUTLIER_KEYED, k->ts, 0, TREX_NONE, k->name);
		}
	}
}

/* Compacts v, keeping record i unless gone[i]. */
static void compact(struct trex_vec *v, const uint8_t *gone)
{
	size_t w = 0;

	for (size_t i = 0; i < v->count; i++) {
		if (gone[i])
			continue;
		if (w != i)
			memcpy(trex_vec_at(v, w), trex_vec_at(v, i), v->elem);
		w++;
	}
	v->count = w;
}

/* kept[i]: slices kept before place i (i <= count), so a kept slice's new
 * place and the new `after` of a record are kept[] of the old ones. */
static uint32_t *kept_before(const uint8_t *gone, size_t n)
{
	uint32_t *kept = malloc((n + 1) * sizeof(*kept));

	if (!kept)
		return NULL;
	kept[0] = 0;
	for (size_t i = 0; i < n; i++)
		kept[i + 1] = kept[i] + !gone[i];
	return kept;
}

/* Begins, ends and keyed records without the dropped ones, at new places. */
static void renumber_pairing(struct drop_ctx *d, const uint32_t *kept)
{
	struct trex_builder *b = d->b;
	size_t w = 0;

	for (size_t i = 0; i < b->begins.count; i++) {
		uint32_t at = *TREX_VEC_AT(&b->begins, uint32_t, i);

		if (!d->gone_slice[at]) {
			*TREX_VEC_AT(&b->begins, uint32_t, w) = kept[at];
			w++;
		}
	}
	b->begins.count = w;
	compact(&b->ends, d->gone_end);
	for (size_t i = 0; i < b->ends.count; i++) {
		struct trex_bend *e = TREX_VEC_AT(&b->ends, struct trex_bend, i);

		e->after = kept[e->after];
	}
	compact(&b->keyed, d->gone_keyed);
	for (size_t i = 0; i < b->keyed.count; i++) {
		struct trex_bkeyed *k = TREX_VEC_AT(&b->keyed, struct trex_bkeyed, i);

		k->at = kept[k->at];
	}
}

/* A handle through kept[]; a dropped slice's is none. */
static trex_handle renumber_handle(const struct drop_ctx *d, const uint32_t *kept, trex_handle h)
{
	return h == TREX_HANDLE_NONE || d->gone_slice[h] ? TREX_HANDLE_NONE : kept[h];
}

/* Edges lose a dropped end; a flow point on a dropped slice stays, on no
 * slice (it counts as unbound). */
static void renumber_links(struct drop_ctx *d, const uint32_t *kept)
{
	struct trex_builder *b = d->b;
	size_t w = 0;

	for (size_t i = 0; i < b->edges.count; i++) {
		struct trex_bedge e = *TREX_VEC_AT(&b->edges, struct trex_bedge, i);

		e.from = renumber_handle(d, kept, e.from);
		e.to = renumber_handle(d, kept, e.to);
		if (e.from != TREX_HANDLE_NONE && e.to != TREX_HANDLE_NONE) {
			*TREX_VEC_AT(&b->edges, struct trex_bedge, w) = e;
			w++;
		}
	}
	b->edges.count = w;
	for (size_t i = 0; i < b->flows.count; i++) {
		struct trex_bflow *f = TREX_VEC_AT(&b->flows, struct trex_bflow, i);

		if (f->slice != TREX_HANDLE_NONE)
			f->slice = renumber_handle(d, kept, f->slice);
	}
}

/* Instants, samples and flow points of a part without their outliers. */
static void filter_points(struct drop_ctx *d)
{
	struct trex_builder *b = d->b;
	size_t w = 0;

	for (size_t i = 0; i < b->instants.count; i++) {
		struct trex_instant *in = TREX_VEC_AT(&b->instants, struct trex_instant, i);

		if (!judge(d, OUTLIER_INSTANT, in->ts, 0, in->track, in->name)) {
			*TREX_VEC_AT(&b->instants, struct trex_instant, w) = *in;
			w++;
		}
	}
	b->instants.count = w;
	w = 0;
	for (size_t i = 0; i < b->samples.count; i++) {
		struct trex_bsample *sm = TREX_VEC_AT(&b->samples, struct trex_bsample, i);

		if (!judge(d, OUTLIER_SAMPLE, sm->ts, 0, sm->track, TREX_NONE)) {
			*TREX_VEC_AT(&b->samples, struct trex_bsample, w) = *sm;
			w++;
		}
	}
	b->samples.count = w;
	w = 0;
	for (size_t i = 0; i < b->flows.count; i++) {
		struct trex_bflow *f = TREX_VEC_AT(&b->flows, struct trex_bflow, i);

		if (!judge(d, OUTLIER_FLOW, f->ts, 0, f->track, f->name)) {
			*TREX_VEC_AT(&b->flows, struct trex_bflow, w) = *f;
			w++;
		}
	}
	b->flows.count = w;
}

/* The latest end of what is left. */
static void part_end(struct trex_builder *b)
{
	int64_t max_end = INT64_MIN;

#define SEE(t) max_end = (t) > max_end ? (t) : max_end
	for (size_t i = 0; i < b->slices.count; i++) {
		const struct trex_bslice *s = TREX_VEC_AT(&b->slices, const struct trex_bslice, i);
		int64_t end;

		if (__builtin_add_overflow(s->ts, s->dur, &end))
			end = INT64_MAX;
		SEE(end);
	}
	for (size_t i = 0; i < b->ends.count; i++)
		SEE(TREX_VEC_AT(&b->ends, struct trex_bend, i)->ts);
	for (size_t i = 0; i < b->keyed.count; i++)
		SEE(TREX_VEC_AT(&b->keyed, struct trex_bkeyed, i)->ts);
	for (size_t i = 0; i < b->instants.count; i++)
		SEE(TREX_VEC_AT(&b->instants, struct trex_instant, i)->ts);
	for (size_t i = 0; i < b->samples.count; i++)
		SEE(TREX_VEC_AT(&b->samples, struct trex_bsample, i)->ts);
	for (size_t i = 0; i < b->flows.count; i++)
		SEE(TREX_VEC_AT(&b->flows, struct trex_bflow, i)->ts);
#undef SEE
	b->has_time = max_end != INT64_MIN;
	if (b->has_time)
		b->max_end = max_end;
}

static bool filter_part(struct drop_ctx *d, size_t part, struct trex_builder *b)
{
	uint32_t *kept = NULL;
	bool ok;

	d->part = part;
	d->b = b;
	d->any = false;
	d->gone_slice = calloc(b->slices.count + 1, 1);
	d->gone_end = calloc(b->ends.count + 1, 1);
	d->gone_keyed = calloc(b->keyed.count + 1, 1);
	ok = d->gone_slice && d->gone_end && d->gone_keyed;
	if (ok) {
		judge_complete(d);
		judge_paired(d);
		judge_keyed(d);
	}
	if (ok && d->any && (ok = (kept = kept_before(d->gone_slice, b->slices.count)) != NULL)) {
		renumber_pairing(d, kept);
		renumber_links(d, kept);
		compact(&b->slices, d->gone_slice);
	}
	if (ok)
		filter_points(d);
	free(kept);
	free(d->gone_slice);
	free(d->gone_end);
	free(d->gone_keyed);
	if (ok)
		part_end(b);
	return ok;
}

/* Whether the file's records spread far enough for an outlier to exist. */
static bool may_have_outliers(struct trex_builder *const *parts, size_t n)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, dur = 0;

	for (size_t p = 0; p < n; p++) {
		const struct trex_builder *b = parts[p];

		if (!b->has_time)
			continue;
		lo = b->min_ts < lo ? b->min_ts : lo;
		hi = b->max_ts > hi ? b->max_ts : hi;
		dur = b->max_dur > dur ? b->max_dur : dur;
	}
	if (hi < lo)
		return false;
	return diff(hi, lo) > (uint64_t)outlier_limit(0) || dur > outlier_limit(0);
}

bool trex_drop_time_outliers(struct trex_builder *const *parts, size_t n, trex_outlier_fn fn,
                             void *user)
{
	struct extremes *x;
	struct drop_ctx d = {.fn = fn, .user = user};
	bool ok = true;

	if (!may_have_outliers(parts, n))
		return true;
	x = calloc(1, sizeof(*x));
	if (!x)
		return false;
	collect(parts, n, x);
	if (x->n >= OUTLIER_MIN_EVENTS) {
		bulk_range(x, &d.keep_lo, &d.keep_hi);
		d.dur_limit = outlier_limit((int64_t)diff(d.keep_hi, d.keep_lo));
		for (size_t p = 0; ok && p < n; p++)
			ok = filter_part(&d, p, parts[p]);
	}
	free(x);
	return ok;
}
