#include "config.h"

#include "trex/analysis/trace_critical_path.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

/* A slice id under a sort key: device work by (track, start) and by
 * (file, end), runtime calls by (file, correlation). */
struct keyed {
	uint32_t group;
	uint32_t id;
	int64_t key;
};

/* What a Kineto cuda_sync event says about the runtime call it shadows. */
enum sync_sort { SYNC_CONTEXT, SYNC_STREAM, SYNC_EVENT, SYNC_WAIT_EVENT };

struct sync_rec {
	uint32_t call;    /* the runtime call (cudaStreamSynchronize, ...) */
	uint32_t process; /* the device process of the cuda_sync event */
	uint8_t sort;     /* enum sync_sort */
	int64_t stream;   /* SYNC_STREAM: the stream synchronized */
	uint32_t waited;  /* SYNC_EVENT: the device work the event followed, or TREX_NONE */
};

/* A cudaStreamWaitEvent: dest may start once src has ended. */
struct wait_pair {
	uint32_t dest, src;
};

struct walk {
	const struct trex_index *idx;
	struct keyed *by_start, *by_end, *corr;
	size_t ndev, ncorr;
	struct sync_rec *sync;
	size_t nsync, sync_cap;
	struct wait_pair *wait;
	size_t nwait, wait_cap;
	struct trex_tpath *out;
	size_t first; /* the current file's first segment in out */
	uint32_t file;
	uint32_t fwd, bwd; /* the file's forward and backward threads, or TREX_NONE */
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The first element of a sorted keyed array at or after (group, key). */
static size_t keyed_lower(const struct keyed *a, size_t n, uint32_t group, int64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].group < group || (a[mid].group == group && a[mid].key < key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t slice_end(const struct trex_slice *s)
{
	return s->ts + s->dur;
}

static uint32_t slice_file(const struct trex_index *idx, uint32_t slice)
{
	return trex_index_track_file(idx, trex_index_slice(idx, slice)->track);
}

/* The start of the runtime call that launched device work, or the
 * work's own start when no call is known. */
static int64_t launch_ts(const struct trex_index *idx, uint32_t work)
{
	uint32_t call = trex_index_launch_of(idx, work);

	return trex_index_slice(idx, call != TREX_NONE ? call : work)->ts;
}

/* Whether slice is device work (by_start, by_end) or a runtime call
 * with a correlation (corr). */
static bool is_device(const struct trex_slice *s)
{
	return trex_kind_is_device_work((enum trex_kind)s->kind);
}

static bool is_correlated_call(const struct trex_slice *s)
{
	return s->kind == TREX_KIND_RUNTIME && (s->flags & TREX_SLICE_HAS_LAUNCH_LINK);
}

/* Sorts the device work and the runtime calls with a correlation, in
 * arrays of their own sizes (a trace of millions of slices). */
static bool index_slices(struct walk *w)
{
	const struct trex_index *idx = w->idx;
	uint32_t n = trex_index_slice_count(idx);
	size_t ndev = 0, ncorr = 0;

	for (uint32_t i = 0; i < n; i++) {
		ndev += is_device(trex_index_slice(idx, i));
		ncorr += is_correlated_call(trex_index_slice(idx, i));
	}
	w->by_start = malloc((ndev + 1) * sizeof(*w->by_start));
	w->by_end = malloc((ndev + 1) * sizeof(*w->by_end));
	w->corr = malloc((ncorr + 1) * sizeof(*w->corr));
	if (!w->by_start || !w->by_end || !w->corr)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint32_t file = trex_index_track_file(idx, s->track);

		if (is_device(s)) {
			w->by_start[w->ndev] = (struct keyed){s->track, i, s->ts};
			w->by_end[w->ndev++] = (struct keyed){file, i, slice_end(s)};
		} else if (is_correlated_call(s)) {
			w->corr[w->ncorr++] =
			    (struct keyed){file, i, trex_slice_launch_link(idx, i)};
		}
	}
	qsort(w->by_start, w->ndev, sizeof(*w->by_start), keyed_cmp);
	qsort(w->by_end, w->ndev, sizeof(*w->by_end), keyed_cmp);
	qsort(w->corr, w->ncorr, sizeof(*w->corr), keyed_cmp);
	return true;
}

/* The GPU track of process with the given stream number, TREX_NONE if none. */
static uint32_t stream_track(const struct trex_index *idx, uint32_t process, int64_t stream)
{
	const struct trex_process *p = trex_index_process(idx, process);

	for (uint32_t i = 0; i < p->track_count; i++) {
		const struct trex_track *t = trex_index_track(idx, p->first_track + i);

		if (t->kind == TREX_TRACK_GPU && t->tid_num == stream)
			return p->first_track + i;
	}
	return TREX_NONE;
}

/* The position in by_start of the first device work on track launched
 * at or after t (after t when after), from *first (the track's first).
 * A stream runs its work in launch order, so launch starts rise along it. */
static size_t launched_from(const struct walk *w, uint32_t track, int64_t t, bool after,
                            size_t *first)
{
	size_t lo = keyed_lower(w->by_start, w->ndev, track, INT64_MIN);
	size_t hi = keyed_lower(w->by_start, w->ndev, track + 1, INT64_MIN);

	*first = lo;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t at = launch_ts(w->idx, w->by_start[mid].id);

		if (at < t || (after && at == t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last device work on track launched before t (HTA's "previous
 * launch" of a cudaEventRecord), TREX_NONE if none. */
static uint32_t last_launched_before(const struct walk *w, uint32_t track, int64_t t)
{
	size_t first, i = launched_from(w, track, t, false, &first);

	return i > first ? w->by_start[i - 1].id : TREX_NONE;
}

/* The first device work on track launched after t, TREX_NONE if none. */
static uint32_t first_launched_after(const struct walk *w, uint32_t track, int64_t t)
{
	size_t first, i = launched_from(w, track, t, true, &first);

	return i < w->ndev && w->by_start[i].group == track ? w->by_start[i].id : TREX_NONE;
}

/* The runtime call of file with correlation corr, TREX_NONE if none. */
static uint32_t call_of_corr(const struct walk *w, uint32_t file, int64_t corr)
{
	size_t i = keyed_lower(w->corr, w->ncorr, file, corr);

	return i < w->ncorr && w->corr[i].group == file && w->corr[i].key == corr ? w->corr[i].id
	                                                                          : TREX_NONE;
}

/* The device work an event recorded by the call with correlation
 * record_corr followed on stream: the last work launched on it before
 * the record call. */
static uint32_t event_work(const struct walk *w, uint32_t process, int64_t stream,
                           int64_t record_corr)
{
	uint32_t file = trex_index_process(w->idx, process)->file;
	uint32_t record = call_of_corr(w, file, record_corr);
	uint32_t track = stream_track(w->idx, process, stream);

	if (record == TREX_NONE || track == TREX_NONE)
		return TREX_NONE;
	return last_launched_before(w, track, trex_index_slice(w->idx, record)->ts);
}

struct sync_args {
	int64_t stream, wait_on_stream, record_corr;
};

static int64_t arg_int(const struct trex_args *a, const char *key, int64_t none)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return strtoll(a->v[i].value, NULL, 10);
	return none;
}

static enum trex_status read_sync_args(const struct trex_index *idx, uint32_t slice,
                                       struct sync_args *sa, struct trex_error *err)
{
	const struct trex_slice *s = trex_index_slice(idx, slice);
	struct trex_args a = {0};
	enum trex_status st;

	*sa = (struct sync_args){-1, -1, -1};
	if (s->args == TREX_ARGS_NONE)
		return TREX_OK;
	st = trex_index_args(idx, slice_file(idx, slice), s->args, &a, NULL, err);
	if (st != TREX_OK)
		return st;
	sa->stream = arg_int(&a, "stream", -1);
	sa->wait_on_stream = arg_int(&a, "wait_on_stream", -1);
	sa->record_corr = arg_int(&a, "wait_on_cuda_event_record_corr_id", -1);
	trex_args_free(&a);
	return TREX_OK;
}

static bool sort_of_name(const char *name, enum sync_sort *sort)
{
	static const char *const names[] = {
	    [SYNC_CONTEXT] = "Context Sync",
	    [SYNC_STREAM] = "Stream Sync",
	    [SYNC_EVENT] = "Event Sync",
	    [SYNC_WAIT_EVENT] = "Stream Wait Event",
	};
	for (int i = 0; i <= SYNC_WAIT_EVENT; i++) {
		if (strcmp(name, names[i]) == 0) {
			*sort = (enum sync_sort)i;
			return true;
		}
	}
	return false;
}

/* Records one cuda_sync event: a GPU->GPU wait pair, or what its runtime
 * call synchronizes with. */
static enum trex_status add_sync(struct walk *w, uint32_t slice, struct trex_error *err)
{
	const struct trex_index *idx = w->idx;
	const struct trex_slice *s = trex_index_slice(idx, slice);
	uint32_t call = trex_index_launch_of(idx, slice);
	uint32_t process = trex_index_track(idx, s->track)->process;
	struct sync_args sa;
	enum sync_sort sort;
	enum trex_status st;

	if (call == TREX_NONE || !sort_of_name(trex_index_str(idx, s->name), &sort))
		return TREX_OK;
	if ((st = read_sync_args(idx, slice, &sa, err)) != TREX_OK)
		return st;
	uint32_t waited = sort == SYNC_EVENT || sort == SYNC_WAIT_EVENT
	                      ? event_work(w, process, sa.wait_on_stream, sa.record_corr)
	                      : TREX_NONE;
	if (sort == SYNC_WAIT_EVENT) {
		uint32_t track = stream_track(idx, process, sa.stream);
		int64_t at = trex_index_slice(idx, call)->ts;
		uint32_t dest = track != TREX_NONE ? first_launched_after(w, track, at) : TREX_NONE;

		if (dest == TREX_NONE || waited == TREX_NONE)
			return TREX_OK;
		w->wait = trex_grow(w->wait, &w->wait_cap, w->nwait + 1, sizeof(*w->wait), 16);
		if (!w->wait)
			return TREX_NOMEM;
		w->wait[w->nwait++] = (struct wait_pair){dest, waited};
		return TREX_OK;
	}
	w->sync = trex_grow(w->sync, &w->sync_cap, w->nsync + 1, sizeof(*w->sync), 16);
	if (!w->sync)
		return TREX_NOMEM;
	w->sync[w->nsync++] = (struct sync_rec){call, process, (uint8_t)sort, sa.stream, waited};
	return TREX_OK;
}

static int sync_cmp(const void *a, const void *b)
{
	const struct sync_rec *x = a, *y = b;
	return x->call < y->call ? -1 : x->call > y->call;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct wait_pair *x = a, *y = b;
	return x->dest < y->dest ? -1 : x->dest > y->dest;
}

static enum trex_status index_syncs(struct walk *w, struct trex_error *err)
{
	uint32_t n = trex_index_slice_count(w->idx);

	for (uint32_t i = 0; i < n; i++) {
		if (trex_index_slice(w->idx, i)->kind != TREX_KIND_GPU_SYNC)
			continue;
		enum trex_status st = add_sync(w, i, err);
		if (st == TREX_NOMEM)
			return trex_error_set(err, TREX_NOMEM, NULL, -1,
			                      "critical path: out of memory");
		if (st != TREX_OK)
			return st;
	}
	if (w->nsync)
		qsort(w->sync, w->nsync, sizeof(*w->sync), sync_cmp);
	if (w->nwait)
		qsort(w->wait, w->nwait, sizeof(*w->wait), wait_cmp);
	return TREX_OK;
}

static const struct sync_rec *sync_of_call(const struct walk *w, uint32_t call)
{
	struct sync_rec key = {.call = call};

	return w->nsync ? bsearch(&key, w->sync, w->nsync, sizeof(*w->sync), sync_cmp) : NULL;
}

/* The device work a cudaStreamWaitEvent held dest behind, TREX_NONE if none. */
static uint32_t wait_src(const struct walk *w, uint32_t dest)
{
	struct wait_pair key = {dest, 0};
	const struct wait_pair *p =
	    w->nwait ? bsearch(&key, w->wait, w->nwait, sizeof(*w->wait), wait_cmp) : NULL;

	return p ? p->src : TREX_NONE;
}

/* Calls that block until device work is done, known by name where no
 * cuda_sync event says more (HTA's blocking calls less the polling
 * cudaEventQuery and the copies, which are found by their own work). */
static bool is_sync_call_name(const char *name)
{
	static const char *const names[] = {
	    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
	    "cudaCtxSynchronize",    "cuCtxSynchronize",      "cuStreamSynchronize",
	    "cuEventSynchronize",    "hipDeviceSynchronize",  "hipStreamSynchronize",
	    "hipEventSynchronize",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* Whether work ended while call waited in [call start, t]. */
static bool ended_within(const struct trex_index *idx, uint32_t work, int64_t from, int64_t t)
{
	int64_t end = slice_end(trex_index_slice(idx, work));

	return end > from && end <= t;
}

/* The device work of the call's file (of stream of process when stream
 * >= 0) that ended last in (call start, t], launched before the call. */
static uint32_t last_work_ended(const struct walk *w, uint32_t call, uint32_t process,
                                int64_t stream, int64_t t)
{
	const struct trex_index *idx = w->idx;
	const struct trex_slice *c = trex_index_slice(idx, call);
	uint32_t file = trex_index_track_file(idx, c->track);
	size_t i = keyed_lower(w->by_end, w->ndev, file, t + 1);

	while (i-- > 0 && w->by_end[i].group == file && w->by_end[i].key > c->ts) {
		uint32_t work = w->by_end[i].id;
		const struct trex_track *tr =
		    trex_index_track(idx, trex_index_slice(idx, work)->track);

		if (stream >= 0 && (tr->process != process || tr->tid_num != stream))
			continue;
		if (launch_ts(idx, work) < c->ts)
			return work;
	}
	return TREX_NONE;
}

/* The device work a CPU slice waited for until t, TREX_NONE if it did
 * not wait: the work it launched itself (a synchronous copy), else what
 * its cuda_sync event names, else for a known sync call any work of its
 * file. */
static uint32_t waited_work(const struct walk *w, uint32_t call, int64_t t)
{
	const struct trex_index *idx = w->idx;
	const struct trex_slice *c = trex_index_slice(idx, call);
	uint32_t linked[8];
	size_t n = trex_index_same_launch_link(idx, call, linked, 8);

	for (size_t i = 0; i < n && i < 8; i++)
		if (trex_kind_is_device_work(
		        (enum trex_kind)trex_index_slice(idx, linked[i])->kind) &&
		    ended_within(idx, linked[i], c->ts, t))
			return linked[i];
	const struct sync_rec *r = sync_of_call(w, call);
	if (r && r->sort == SYNC_EVENT)
		return r->waited != TREX_NONE && ended_within(idx, r->waited, c->ts, t) ? r->waited
		                                                                        : TREX_NONE;
	if (r)
		return last_work_ended(w, call, r->process, r->sort == SYNC_STREAM ? r->stream : -1,
		                       t);
	if (is_sync_call_name(trex_index_str(idx, c->name)))
		return last_work_ended(w, call, TREX_NONE, -1, t);
	return TREX_NONE;
}

/* ---- the walk ---------------------------------------------------------- */

static bool emit(struct walk *w, uint32_t slice, uint32_t track, int64_t start, int64_t end,
                 enum trex_tpath_what what)
{
	struct trex_tpath *p = w->out;

	p->seg = trex_grow(p->seg, &p->cap, p->n + 1, sizeof(*p->seg), 64);
	if (!p->seg)
		return false;
	p->seg[p->n++] = (struct trex_tpath_seg){w->file,     slice,         track,           start,
	                                         end - start, (uint8_t)what, TREX_TPATH_START};
	return true;
}

/* Says how the segment emitted last follows the one about to be emitted. */
static void bind_last(struct walk *w, enum trex_tpath_bound b)
{
	w->out->seg[w->out->n - 1].bound = (uint8_t)b;
}

/* Where the walk is: on a thread at time t, or at device work (its end). */
struct point {
	uint32_t track;
	int64_t t;
	uint32_t work; /* TREX_NONE: on a thread */
};

/* The child of s (one lane deeper) that ended last before t, TREX_NONE if none. */
static uint32_t last_child_before(const struct trex_index *idx, uint32_t slice, int64_t t)
{
	const struct trex_slice *s = trex_index_slice(idx, slice);
	const struct trex_track *tr = trex_index_track(idx, s->track);
	uint32_t d = s->depth + 1u;

	if (d >= tr->lane_count)
		return TREX_NONE;
	const struct trex_lane *lane = trex_index_lane(idx, tr->first_lane + d);
	uint32_t i = trex_lane_find_end_at_or_after(idx, lane, t);
	if (i == lane->first || trex_index_slice(idx, i - 1)->ts < s->ts)
		return TREX_NONE;
	return i - 1;
}

/* The end of the last top-level slice of track that ended before t, or
 * INT64_MIN when none did. */
static int64_t thread_prev_end(const struct trex_index *idx, uint32_t track, int64_t t)
{
	const struct trex_track *tr = trex_index_track(idx, track);

	if (tr->lane_count == 0)
		return INT64_MIN;
	const struct trex_lane *lane = trex_index_lane(idx, tr->first_lane);
	uint32_t i = trex_lane_find_end_at_or_after(idx, lane, t);
	return i == lane->first ? INT64_MIN : slice_end(trex_index_slice(idx, i - 1));
}

/* The thread whose work counts as the same thread's as track's: the
 * backward thread for the forward one and back (HTA merges autograd's
 * thread into the forward thread, whose op waits for it), else TREX_NONE. */
static uint32_t partner_of(const struct walk *w, uint32_t track)
{
	if (w->fwd == TREX_NONE || w->bwd == TREX_NONE)
		return TREX_NONE;
	return track == w->fwd ? w->bwd : track == w->bwd ? w->fwd : TREX_NONE;
}

/* The innermost slice running at t on track or its partner: of two, the
 * one that started later (the shorter on a tie), as if nested. */
static uint32_t slice_at_merged(const struct trex_index *idx, uint32_t track, uint32_t partner,
                                int64_t t)
{
	uint32_t a = trex_index_slice_at(idx, track, t);
	uint32_t b = partner != TREX_NONE ? trex_index_slice_at(idx, partner, t) : TREX_NONE;

	if (a == TREX_NONE || b == TREX_NONE)
		return a != TREX_NONE ? a : b;
	const struct trex_slice *x = trex_index_slice(idx, a), *y = trex_index_slice(idx, b);
	if (y->ts > x->ts || (y->ts == x->ts && slice_end(y) < slice_end(x)))
		return b;
	return a;
}

/* The end of the last top-level slice of the partner that ran inside
 * slice before t, INT64_MIN if none. */
static int64_t partner_child_end(const struct trex_index *idx, uint32_t partner,
                                 const struct trex_slice *s, int64_t t)
{
	const struct trex_track *tr = trex_index_track(idx, partner);

	if (tr->lane_count == 0)
		return INT64_MIN;
	const struct trex_lane *lane = trex_index_lane(idx, tr->first_lane);
	uint32_t i = trex_lane_find_end_at_or_after(idx, lane, t);
	if (i == lane->first || trex_index_slice(idx, i - 1)->ts < s->ts)
		return INT64_MIN;
	return slice_end(trex_index_slice(idx, i - 1));
}

/* Where the own time of slice id before t begins: after its last child
 * (on its thread or the partner's), else at its start. */
static int64_t own_time_from(const struct walk *w, uint32_t id, uint32_t partner, int64_t t)
{
	const struct trex_slice *s = trex_index_slice(w->idx, id);
	uint32_t child = last_child_before(w->idx, id, t);
	int64_t from = child != TREX_NONE ? slice_end(trex_index_slice(w->idx, child)) : s->ts;
	int64_t other = partner != TREX_NONE ? partner_child_end(w->idx, partner, s, t) : INT64_MIN;

	if (other > from)
		from = other;
	return from < s->ts ? s->ts : from;
}

/* An idle gap on a thread back to the end of what ran before t (the
 * zero-length slice s at t if any); *done when nothing did. */
static bool thread_gap(struct walk *w, struct point *p, const struct trex_slice *s,
                       uint32_t partner, bool *done)
{
	int64_t prev = s ? slice_end(s) : thread_prev_end(w->idx, p->track, p->t);

	if (!s && partner != TREX_NONE) {
		int64_t other = thread_prev_end(w->idx, partner, p->t);
		prev = other > prev ? other : prev;
	}
	if (prev == INT64_MIN) {
		*done = true;
		return true;
	}
	if (w->out->n > w->first)
		bind_last(w, TREX_TPATH_THREAD_ORDER);
	if (!emit(w, TREX_NONE, p->track, prev, p->t, TREX_TPATH_IDLE))
		return false;
	p->t = prev;
	return true;
}

/* One step back on a thread from p->t. Returns false when out of memory;
 * *done when the path starts here. */
static bool thread_step(struct walk *w, struct point *p, bool *done)
{
	const struct trex_index *idx = w->idx;
	uint32_t partner = partner_of(w, p->track);
	uint32_t id = slice_at_merged(idx, p->track, partner, p->t - 1);
	const struct trex_slice *s = id != TREX_NONE ? trex_index_slice(idx, id) : NULL;

	if (!s || slice_end(s) < p->t)
		return thread_gap(w, p, s, partner, done);
	if (w->out->n > w->first)
		bind_last(w, TREX_TPATH_THREAD_ORDER);
	uint32_t work = waited_work(w, id, p->t);
	if (work != TREX_NONE) {
		int64_t released = slice_end(trex_index_slice(idx, work));

		if (!emit(w, id, s->track, released, p->t, TREX_TPATH_SYNC))
			return false;
		bind_last(w, TREX_TPATH_SYNC_BOUND);
		*p = (struct point){trex_index_slice(idx, work)->track, released, work};
		return true;
	}
	int64_t from = own_time_from(w, id, partner_of(w, s->track), p->t);
	if (!emit(w, id, s->track, from, p->t, TREX_TPATH_CPU))
		return false;
	p->track = s->track;
	p->t = from;
	return true;
}

/* The device work before work on its stream, TREX_NONE if none. */
static uint32_t stream_prev(const struct walk *w, uint32_t work)
{
	const struct trex_slice *s = trex_index_slice(w->idx, work);
	size_t i = keyed_lower(w->by_start, w->ndev, s->track, s->ts);

	while (i < w->ndev && w->by_start[i].id != work && w->by_start[i].group == s->track &&
	       w->by_start[i].key == s->ts)
		i++;
	return i > 0 && w->by_start[i - 1].group == s->track ? w->by_start[i - 1].id : TREX_NONE;
}

/* A predecessor candidate of device work: what released it, and when. */
struct release {
	uint32_t by; /* slice, TREX_NONE: none */
	int64_t at;
	enum trex_tpath_bound how;
};

/* Of the launch, the work before on the stream and a wait event, the one
 * that released work last (ties: wait, stream, launch, as HTA prefers
 * the kernel-kernel edge unless the stream was empty before the launch). */
static struct release device_release(const struct walk *w, uint32_t work)
{
	const struct trex_index *idx = w->idx;
	const struct trex_slice *s = trex_index_slice(idx, work);
	struct release best = {TREX_NONE, INT64_MIN, TREX_TPATH_START};
	uint32_t call = trex_index_launch_of(idx, work);
	uint32_t prev = stream_prev(w, work);
	uint32_t src = wait_src(w, work);

	if (call != TREX_NONE)
		best = (struct release){call, trex_index_slice(idx, call)->ts,
		                        TREX_TPATH_LAUNCH_BOUND};
	if (prev != TREX_NONE && slice_end(trex_index_slice(idx, prev)) >= best.at)
		best = (struct release){prev, slice_end(trex_index_slice(idx, prev)),
		                        TREX_TPATH_STREAM_ORDER};
	if (src != TREX_NONE && slice_end(trex_index_slice(idx, src)) >= best.at)
		best =
		    (struct release){src, slice_end(trex_index_slice(idx, src)), TREX_TPATH_WAIT};
	if (best.at > s->ts)
		best.at = s->ts;
	return best;
}

/* One step back from device work p->work, seen until p->t. */
static bool device_step(struct walk *w, struct point *p, bool *done)
{
	const struct trex_index *idx = w->idx;
	const struct trex_slice *s = trex_index_slice(idx, p->work);
	struct release r = device_release(w, p->work);

	if (!emit(w, p->work, s->track, s->ts, p->t, TREX_TPATH_DEVICE))
		return false;
	if (r.by == TREX_NONE) {
		*done = true;
		return true;
	}
	bind_last(w, r.how);
	if (r.how == TREX_TPATH_LAUNCH_BOUND) {
		const struct trex_slice *call = trex_index_slice(idx, r.by);

		if (!emit(w, r.by, call->track, r.at, s->ts, TREX_TPATH_LAUNCH))
			return false;
		*p = (struct point){call->track, r.at, TREX_NONE};
		return true;
	}
	if (r.at < s->ts) {
		if (!emit(w, TREX_NONE, s->track, r.at, s->ts, TREX_TPATH_IDLE))
			return false;
		bind_last(w, r.how);
	}
	*p = (struct point){trex_index_slice(idx, r.by)->track, r.at, r.by};
	return true;
}

/* Whether a slice may end a path: device work, or a CPU slice of a kind
 * the model knows (not a profiler's own span, kind OTHER) on a thread
 * that launched device work when its file has any (a watchdog polling
 * cudaEventQuery after the last step is not what the run waited for). */
static bool ends_path(const struct trex_index *idx, const struct trex_slice *s,
                      const uint8_t *launcher, bool any_launcher)
{
	const struct trex_track *tr = trex_index_track(idx, s->track);

	if (trex_kind_is_device_work((enum trex_kind)s->kind))
		return true;
	if (any_launcher && !launcher[s->track])
		return false;
	return tr->kind == TREX_TRACK_THREAD && !trex_index_process(idx, tr->process)->is_gpu &&
	       (s->kind == TREX_KIND_CPU_OP || s->kind == TREX_KIND_PYTHON ||
	        s->kind == TREX_KIND_ANNOTATION || s->kind == TREX_KIND_RUNTIME);
}

/* Marks in launcher the tracks of file that launched device work;
 * returns whether there is one. */
static bool mark_launchers(const struct walk *w, uint32_t file, uint8_t *launcher)
{
	size_t i = keyed_lower(w->by_end, w->ndev, file, INT64_MIN);
	bool any = false;

	for (; i < w->ndev && w->by_end[i].group == file; i++) {
		uint32_t call = trex_index_launch_of(w->idx, w->by_end[i].id);

		if (call != TREX_NONE) {
			launcher[trex_index_slice(w->idx, call)->track] = 1;
			any = true;
		}
	}
	return any;
}

/* The slice of file that ends last (ties: the lowest id) of those that
 * may end a path, TREX_NONE if none. */
static uint32_t last_slice(const struct walk *w, uint32_t file, uint8_t *launcher)
{
	const struct trex_index *idx = w->idx;
	uint32_t best = TREX_NONE;
	int64_t best_end = INT64_MIN;
	bool any = mark_launchers(w, file, launcher);

	for (uint32_t p = 0; p < trex_index_process_count(idx); p++) {
		const struct trex_process *pr = trex_index_process(idx, p);

		if (pr->file != file)
			continue;
		for (uint32_t t = pr->first_track; t < pr->first_track + pr->track_count; t++) {
			const struct trex_track *tr = trex_index_track(idx, t);

			for (uint32_t i = tr->first_slice; i < tr->first_slice + tr->slice_count;
			     i++) {
				const struct trex_slice *s = trex_index_slice(idx, i);

				if (slice_end(s) > best_end && ends_path(idx, s, launcher, any)) {
					best = i;
					best_end = slice_end(s);
				}
			}
		}
	}
	return best;
}

/* The one thread of file with a CPU op or annotation whose name holds
 * word, TREX_NONE when none or several do (HTA's rule). */
static uint32_t thread_named(const struct trex_index *idx, uint32_t file, const char *word)
{
	uint32_t found = TREX_NONE;

	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);

		if (tr->kind != TREX_TRACK_THREAD || trex_index_track_file(idx, t) != file)
			continue;
		for (uint32_t i = tr->first_slice; i < tr->first_slice + tr->slice_count; i++) {
			const struct trex_slice *s = trex_index_slice(idx, i);

			if ((s->kind == TREX_KIND_CPU_OP || s->kind == TREX_KIND_ANNOTATION) &&
			    strstr(trex_index_str(idx, s->name), word)) {
				if (found != TREX_NONE)
					return TREX_NONE;
				found = t;
				break;
			}
		}
	}
	return found;
}

/* Reverses out->seg[from, n): the walk goes back in time. */
static void reverse_from(struct trex_tpath *out, size_t from)
{
	for (size_t i = from, j = out->n; i + 1 < j; i++, j--) {
		struct trex_tpath_seg tmp = out->seg[i];
		out->seg[i] = out->seg[j - 1];
		out->seg[j - 1] = tmp;
	}
}

/* Walks file's path from its last slice. */
static bool walk_file(struct walk *w, uint32_t file)
{
	const struct trex_index *idx = w->idx;
	uint8_t *launcher = calloc((size_t)trex_index_track_count(idx) + 1, 1);
	uint32_t last = launcher ? last_slice(w, file, launcher) : TREX_NONE;
	/* every step moves back in time or along a stream; this bounds a
	 * walk that zero-length slices would keep in place */
	uint64_t steps = 4 * (uint64_t)trex_index_slice_count(idx) + 16;
	bool done = false;

	bool allocated = launcher != NULL;

	free(launcher);
	w->file = file;
	w->first = w->out->n;
	if (!allocated)
		return false;
	w->fwd = thread_named(idx, file, "forward");
	w->bwd = thread_named(idx, file, "autograd");
	if (w->fwd == w->bwd)
		w->fwd = w->bwd = TREX_NONE;
	if (last == TREX_NONE)
		return true;
	const struct trex_slice *s = trex_index_slice(idx, last);
	struct point p = {s->track, slice_end(s), TREX_NONE};
	if (trex_kind_is_device_work((enum trex_kind)s->kind))
		p.work = last;
	while (!done && steps-- > 0) {
		bool ok =
		    p.work != TREX_NONE ? device_step(w, &p, &done) : thread_step(w, &p, &done);
		if (!ok)
			return false;
	}
	reverse_from(w->out, w->first);
	return true;
}

static void walk_free(struct walk *w)
{
	free(w->by_start);
	free(w->by_end);
	free(w->corr);
	free(w->sync);
	free(w->wait);
}

enum trex_status trex_tpath_compute(const struct trex_index *idx, struct trex_tpath *out,
                                    struct trex_error *err)
{
	struct walk w = {.idx = idx, .out = out};
	enum trex_status st = TREX_OK;

	*out = (struct trex_tpath){0};
	if (!index_slices(&w))
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "critical path: out of memory");
	if (st == TREX_OK)
		st = index_syncs(&w, err);
	for (uint32_t f = 0; st == TREX_OK && f < trex_index_file_count(idx); f++)
		if (!walk_file(&w, f))
			st = trex_error_set(err, TREX_NOMEM, NULL, -1,
			                    "critical path: out of memory");
	walk_free(&w);
	if (st != TREX_OK)
		trex_tpath_free(out);
	return st;
}

void trex_tpath_free(struct trex_tpath *p)
{
	free(p->seg);
	*p = (struct trex_tpath){0};
}

enum trex_status trex_tpath_slice_marks(const struct trex_index *idx, uint8_t **marks,
                                        struct trex_error *err)
{
	struct trex_tpath p;
	enum trex_status st;

	*marks = calloc((size_t)trex_index_slice_count(idx) + 1, 1);
	if (!*marks)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "critical path: out of memory");
	st = trex_tpath_compute(idx, &p, err);
	if (st != TREX_OK) {
		free(*marks);
		*marks = NULL;
		return st;
	}
	for (size_t i = 0; i < p.n; i++)
		if (p.seg[i].slice != TREX_NONE)
			(*marks)[p.seg[i].slice] = 1;
	trex_tpath_free(&p);
	return TREX_OK;
}

const char *trex_tpath_what_label(enum trex_tpath_what w)
{
	static const char *const labels[] = {
	    [TREX_TPATH_CPU] = "cpu",       [TREX_TPATH_SYNC] = "sync",
	    [TREX_TPATH_LAUNCH] = "launch", [TREX_TPATH_DEVICE] = "device",
	    [TREX_TPATH_IDLE] = "idle",
	};
	return (unsigned)w <= TREX_TPATH_IDLE ? labels[w] : "";
}

const char *trex_tpath_bound_label(enum trex_tpath_bound b)
{
	static const char *const labels[] = {
	    [TREX_TPATH_START] = "start",         [TREX_TPATH_THREAD_ORDER] = "thread order",
	    [TREX_TPATH_LAUNCH_BOUND] = "launch", [TREX_TPATH_STREAM_ORDER] = "stream order",
	    [TREX_TPATH_SYNC_BOUND] = "sync",     [TREX_TPATH_WAIT] = "wait",
	};
	return (unsigned)b <= TREX_TPATH_WAIT ? labels[b] : "";
}

enum trex_tpath_share trex_tpath_share_of(const struct trex_index *idx,
                                          const struct trex_tpath_seg *s)
{
	switch ((enum trex_tpath_what)s->what) {
	case TREX_TPATH_CPU:
	case TREX_TPATH_SYNC:
		return TREX_SHARE_CPU;
	case TREX_TPATH_LAUNCH:
		return TREX_SHARE_LAUNCH;
	case TREX_TPATH_DEVICE:
		return trex_slice_comm(idx, s->slice) != TREX_COMM_NONE ? TREX_SHARE_COMM
		                                                        : TREX_SHARE_GPU;
	case TREX_TPATH_IDLE:
		break;
	}
	return TREX_SHARE_IDLE;
}
