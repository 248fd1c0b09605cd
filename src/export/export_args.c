/* Args in batches, the scope of slices and flows, and flow ids: what the
 * trace exporters share (export_internal.h). */
#include "config.h"

#include "export_internal.h"

#include <stdlib.h>
#include <string.h>

struct xargs_sink {
	struct xargs *a;
	bool oom;
};

static enum trex_status xargs_keep(void *user, size_t i, const char *text, size_t len,
                                   struct trex_error *err)
{
	struct xargs_sink *s = user;
	struct xargs *a = s->a;
	uint32_t at = a->at[i];

	if (a->used + len > a->cap) {
		size_t cap = a->cap ? a->cap : (size_t)1 << 20;
		char *p;

		while (cap < a->used + len)
			cap *= 2;
		p = realloc(a->text, cap);
		if (!p)
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		a->text = p;
		a->cap = cap;
	}
	memcpy(a->text + a->used, text, len);
	a->off[at] = a->used;
	a->len[at] = (uint32_t)len;
	a->used += len;
	return TREX_OK;
}

enum trex_status xargs_fetch(struct xargs *a, const struct trex_index *idx, uint32_t file, size_t n,
                             struct trex_error *err)
{
	struct xargs_sink sink = {a, false};
	size_t k = 0;

	a->used = 0;
	for (size_t i = 0; i < n; i++) {
		a->len[i] = 0;
		if (a->in[i] == TREX_ARGS_NONE)
			continue;
		a->refs[k] = a->in[i];
		a->at[k++] = (uint32_t)i;
	}
	return trex_index_args_json_each(idx, file, a->refs, k, xargs_keep, &sink, err);
}

enum trex_status xargs_fetch_events(struct xargs *a, const struct trex_index *idx, uint32_t file,
                                    bool slices, uint32_t first, size_t n, struct trex_error *err)
{
	for (size_t i = 0; i < n; i++)
		a->in[i] = slices ? trex_index_slice(idx, first + (uint32_t)i)->args
		                  : trex_index_instant(idx, first + (uint32_t)i)->args;
	return xargs_fetch(a, idx, file, n, err);
}

bool xargs_each(struct xargs *a, const struct trex_index *idx, uint32_t file, bool slices,
                uint32_t first, uint32_t count, xevent_fn *fn, void *user, struct trex_error *err)
{
	for (uint32_t done = 0; done < count;) {
		uint32_t k = count - done < XARGS_BATCH ? count - done : XARGS_BATCH;

		if (xargs_fetch_events(a, idx, file, slices, first + done, k, err) != TREX_OK)
			return false;
		for (uint32_t i = 0; i < k; i++) {
			if (!fn(user, first + done + i, i))
				return false;
		}
		done += k;
	}
	return true;
}

void xargs_free(struct xargs *a)
{
	if (a)
		free(a->text);
	free(a);
}

bool xscope_slice(const struct trex_index *idx, const struct trex_export_scope *s, uint32_t id,
                  int64_t *cts, int64_t *cdur, enum trex_clip *clip)
{
	const struct trex_slice *sl = trex_index_slice(idx, id);

	if (!trex_export_clip(s, sl->ts, sl->dur, cts, cdur, clip))
		return false;
	return trex_export_name_in(s, trex_index_str(idx, sl->name));
}

static int64_t clamp(int64_t t, int64_t lo, int64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

/* A flow point: kept when its track is, its slice (if any) is and, on
 * no slice, its time is in the range; *t moves into the clipped slice. */
static bool flow_end_in(const struct trex_index *idx, const struct trex_export_scope *s,
                        uint32_t track, uint32_t slice, int64_t *t)
{
	int64_t cts, cdur;
	enum trex_clip clip;
	uint8_t kind = trex_index_track(idx, track)->kind;

	if (kind != TREX_TRACK_THREAD && kind != TREX_TRACK_GPU && kind != TREX_TRACK_NAMED)
		return false;
	if (!trex_export_track_in(idx, s, track))
		return false;
	if (slice == TREX_NONE)
		return trex_export_time_in(s, *t);
	if (!xscope_slice(idx, s, slice, &cts, &cdur, &clip))
		return false;
	*t = clamp(*t, cts, cts + cdur);
	return true;
}

bool xscope_flow(const struct trex_index *idx, const struct trex_export_scope *s,
                 const struct trex_flow *f, int64_t *from_ts, int64_t *to_ts)
{
	*from_ts = f->from_ts;
	/* the end sits on its slice's start (it may have been bound to the
	 * next slice after its time) */
	*to_ts = f->to_slice != TREX_NONE ? trex_index_slice(idx, f->to_slice)->ts : f->to_ts;
	return flow_end_in(idx, s, f->from_track, f->from_slice, from_ts) &&
	       flow_end_in(idx, s, f->to_track, f->to_slice, to_ts);
}

bool xscope_tracks(const struct trex_index *idx, const struct trex_export_scope *s, xtrack_fn *fn,
                   void *user)
{
	uint32_t last = TREX_NONE;

	for (uint32_t i = 0; i < trex_index_track_count(idx); i++) {
		uint32_t process = trex_index_track(idx, i)->process;

		if (!trex_export_track_in(idx, s, i))
			continue;
		if (!fn(user, i, process != last))
			return false;
		last = process;
	}
	return true;
}

bool xscope_samples(const struct trex_index *idx, const struct trex_export_scope *s, uint32_t track,
                    xsample_fn *fn, void *user)
{
	const struct trex_track *t = trex_index_track(idx, track);
	uint32_t end = t->first_sample + t->sample_count;

	if (!trex_export_name_in(s, trex_index_str(idx, t->name)))
		return true;
	for (uint32_t i = t->first_sample; i < end; i++) {
		const struct trex_counter_sample *x = trex_index_sample(idx, i);
		bool before = s->has_range && x->ts < s->start;
		bool last_before =
		    before && (i + 1 == end || trex_index_sample(idx, i + 1)->ts > s->start);

		if (last_before && !fn(user, track, s->start, x->value))
			return false;
		if (!before && trex_export_time_in(s, x->ts) && !fn(user, track, x->ts, x->value))
			return false;
	}
	return true;
}

/* The id a flow asks for: its own unless it is one hop of a chain (its
 * points share one id, and hops written apart would chain otherwise),
 * else the launch link both ends share; kind NONE for neither. *own
 * (may be NULL): the id is the flow's own. */
static struct trex_flow_id flow_wish(const struct trex_index *idx, uint32_t flow, bool *own)
{
	const struct trex_flow *fl = trex_index_flow(idx, flow);
	struct trex_flow_id id = trex_index_flow_id(idx, flow);
	bool mine = id.kind != TREX_FLOW_ID_NONE && !id.chained;

	if (id.kind == TREX_FLOW_ID_U64 && id.num >= 0)
		id.kind = TREX_FLOW_ID_NUM; /* the same JSON number */

	if (own)
		*own = mine;
	if (mine)
		return id;
	id = (struct trex_flow_id){0, 0, TREX_FLOW_ID_NONE, false};
	if (fl->from_slice != TREX_NONE && fl->to_slice != TREX_NONE) {
		const struct trex_slice *a = trex_index_slice(idx, fl->from_slice);
		const struct trex_slice *b = trex_index_slice(idx, fl->to_slice);
		uint32_t link = trex_slice_launch_link(idx, fl->from_slice);

		if ((a->flags & b->flags & TREX_SLICE_HAS_LAUNCH_LINK) &&
		    link == trex_slice_launch_link(idx, fl->to_slice) && link) {
			id.kind = TREX_FLOW_ID_NUM;
			id.num = link;
		}
	}
	return id;
}

static bool flow_id_eq(const struct trex_flow_id *a, const struct trex_flow_id *b)
{
	return a->kind == b->kind && a->num == b->num && a->str == b->str;
}

static uint32_t flow_file(const struct trex_index *idx, const struct trex_flow *f)
{
	uint32_t track = f->from_track != TREX_NONE ? f->from_track : f->to_track;

	return track != TREX_NONE ? trex_index_track_file(idx, track) : TREX_NONE;
}

bool xflow_ids_init(struct xflow_ids *f, const struct trex_index *idx)
{
	uint32_t n = trex_index_flow_count(idx);
	size_t cap = 16;
	int64_t max = 0;

	while (cap < 2 * (size_t)n)
		cap *= 2;
	for (uint32_t i = 0; i < n; i++) {
		struct trex_flow_id id = trex_index_flow_id(idx, i);

		/* (an unsigned id beyond INT64_MAX is no number a fresh id can be) */
		if (id.kind != TREX_FLOW_ID_STR && id.num > max)
			max = id.num;
	}
	f->idx = idx;
	f->used = calloc(cap, sizeof(*f->used));
	f->mask = cap - 1;
	/* above every link and every number a file gave (a number too close
	 * to INT64_MAX to leave room is ignored: fresh ids may meet it) */
	f->next = (int64_t)UINT32_MAX + 1;
	if (max >= f->next && max < INT64_MAX - (int64_t)n)
		f->next = max + 1;
	return f->used != NULL;
}

static size_t flow_key_hash(const struct trex_flow_id *id, uint32_t cat)
{
	uint64_t h = ((uint64_t)id->num ^ ((uint64_t)id->str << 32)) * 0x9e3779b97f4a7c15u;

	h ^= (cat + ((uint64_t)id->kind << 32)) * 0xc2b2ae3d27d4eb4fu;
	return (size_t)(h ^ (h >> 29));
}

/* Flows claim (category, id) in index order: the first claim of a key
 * wins; a later flow of the same file reuses its own id (a file may
 * chain one id again once a flow ended), any other gets a fresh one. */
struct trex_flow_id xflow_id(struct xflow_ids *f, uint32_t flow)
{
	const struct trex_flow *fl = trex_index_flow(f->idx, flow);
	bool own;
	struct trex_flow_id id = flow_wish(f->idx, flow, &own);
	size_t i = flow_key_hash(&id, fl->cat) & f->mask;

	while (id.kind != TREX_FLOW_ID_NONE && f->used[i]) {
		uint32_t other = f->used[i] - 1;
		const struct trex_flow *of = trex_index_flow(f->idx, other);
		struct trex_flow_id oid = flow_wish(f->idx, other, NULL);

		if (of->cat == fl->cat && flow_id_eq(&oid, &id)) {
			if (own && flow_file(f->idx, of) == flow_file(f->idx, fl))
				return id;
			id.kind = TREX_FLOW_ID_NONE;
			break;
		}
		i = (i + 1) & f->mask;
	}
	if (id.kind != TREX_FLOW_ID_NONE) {
		f->used[i] = flow + 1;
		return id;
	}
	return (struct trex_flow_id){f->next++, 0, TREX_FLOW_ID_NUM, false};
}

void xflow_ids_free(struct xflow_ids *f)
{
	free(f->used);
	f->used = NULL;
}
