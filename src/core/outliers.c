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

/* Record kinds with a start time as their first field. */
static struct trex_vec *builder_vec(struct trex_builder *b, int k)
{
	struct trex_vec *v[] = {&b->slices,   &b->be,      &b->asyncs,
	                        &b->instants, &b->samples, &b->flows};

	return k < (int)(sizeof(v) / sizeof(v[0])) ? v[k] : NULL;
}

#define RECORD_KINDS 6

static int64_t rec_ts(const struct trex_vec *v, size_t i)
{
	int64_t ts;

	memcpy(&ts, trex_vec_at(v, i), sizeof(ts));
	return ts;
}

static void collect(struct trex_builder *const *parts, size_t n, struct extremes *x)
{
	for (size_t p = 0; p < n; p++) {
		for (int k = 0; k < RECORD_KINDS; k++) {
			const struct trex_vec *v = builder_vec(parts[p], k);

			for (size_t i = 0; i < v->count; i++)
				extremes_offer(x, rec_ts(v, i));
		}
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

/* ---- dropping ------------------------------------------------------------------------- */

struct drop_ctx {
	int64_t keep_lo, keep_hi, dur_limit;
	trex_outlier_fn fn;
	void *user;
};

static void rec_ids(struct trex_builder *b, int k, const void *rec, struct trex_outlier *o)
{
	o->track = TREX_NONE;
	o->name = TREX_NONE;
	if (k == 0 || k == 1) {
		const struct trex_slice *s = rec;

		o->track = s->track;
		o->name = s->name;
		o->dur = k == 0 ? s->dur : 0;
	} else if (k == 2) {
		o->name = ((const struct trex_basync *)rec)->name;
	} else if (k == 3) {
		o->track = ((const struct trex_instant *)rec)->track;
		o->name = ((const struct trex_instant *)rec)->name;
	} else if (k == 4) {
		o->track = ((const struct trex_bsample *)rec)->track;
	} else {
		o->track = ((const struct trex_bflow *)rec)->track;
		o->name = ((const struct trex_bflow *)rec)->name;
	}
	o->at = o->by_dur            ? (o->dur == b->max_dur ? b->max_dur_at : -1)
	        : o->ts == b->min_ts ? b->min_ts_at
	        : o->ts == b->max_ts ? b->max_ts_at
	                             : -1;
}

/* Whether the record is an outlier; fills o when it is. */
static bool is_outlier(const struct drop_ctx *d, struct trex_builder *b, int k, const void *rec,
                       struct trex_outlier *o)
{
	int64_t ts;

	memcpy(&ts, rec, sizeof(ts));
	memset(o, 0, sizeof(*o));
	o->ts = ts;
	o->kind = k;
	o->keep_lo = d->keep_lo;
	o->keep_hi = d->keep_hi;
	if (ts < d->keep_lo || ts > d->keep_hi) {
		rec_ids(b, k, rec, o);
		return true;
	}
	if (k != 0 || ((const struct trex_slice *)rec)->dur <= d->dur_limit)
		return false;
	o->by_dur = true;
	rec_ids(b, k, rec, o);
	return true;
}

/* Compacts v without its outliers; returns the latest end left. */
static int64_t filter_vec(const struct drop_ctx *d, size_t part, struct trex_builder *b, int k,
                          int64_t max_end)
{
	struct trex_vec *v = builder_vec(b, k);
	size_t w = 0;

	for (size_t i = 0; i < v->count; i++) {
		void *rec = trex_vec_at(v, i);
		struct trex_outlier o;

		if (is_outlier(d, b, k, rec, &o)) {
			o.part = part;
			d->fn(d->user, &o);
			continue;
		}
		int64_t end = o.ts;
		if (k == 0 && __builtin_add_overflow(o.ts, ((struct trex_slice *)rec)->dur, &end))
			end = INT64_MAX;
		max_end = end > max_end ? end : max_end;
		if (w != i)
			memcpy(trex_vec_at(v, w), rec, v->elem);
		w++;
	}
	v->count = w;
	return max_end;
}

static void filter_part(const struct drop_ctx *d, size_t part, struct trex_builder *b)
{
	int64_t max_end = INT64_MIN;

	for (int k = 0; k < RECORD_KINDS; k++)
		max_end = filter_vec(d, part, b, k, max_end);
	b->has_time = max_end != INT64_MIN;
	if (b->has_time)
		b->max_end = max_end;
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

	if (!may_have_outliers(parts, n))
		return true;
	x = calloc(1, sizeof(*x));
	if (!x)
		return false;
	collect(parts, n, x);
	if (x->n >= OUTLIER_MIN_EVENTS) {
		bulk_range(x, &d.keep_lo, &d.keep_hi);
		d.dur_limit = outlier_limit((int64_t)diff(d.keep_hi, d.keep_lo));
		for (size_t p = 0; p < n; p++)
			filter_part(&d, p, parts[p]);
	}
	free(x);
	return true;
}
