/* The Perfetto protobuf exporter (trace_export.h), written in the wire
 * format by hand (shared/formats/perfetto.md, "Minimal writer"):
 *  - one TrackDescriptor per process (pid, name), per thread (pid, tid,
 *    name) and per other track under its process: GPU streams, keyed
 *    slices, counter series (CounterDescriptor); slices that overlap an
 *    enclosing one only partly (trex nests them deeper, Perfetto's stacks
 *    cannot) go on a track of their own, "<track> (overlaps)";
 *  - slices as SLICE_BEGIN/SLICE_END pairs, instants as INSTANT, samples
 *    as COUNTER (double values), on one packet sequence whose event names
 *    and categories are interned (the first packet clears the incremental
 *    state, sequence flags 3; the others need it, 2);
 *  - flows as flow_ids on the begin of their first slice and
 *    terminating_flow_ids on the begin of their last;
 *  - args as debug annotations: strings, integers and booleans typed,
 *    other numbers, objects, arrays and null as their JSON text
 *    (legacy_json_value), so that nothing is rounded;
 *  - times in absolute ns (the default clock).
 * Tracks of CPU threads go first, so that a launch precedes its work. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "trex/export/pb_wire.h"
#include "trex/export/trace_export.h"
#include "trex/load/json_args.h"

/* ---- the wire format ------------------------------------------------------------------------ */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

static void pb_tag(struct trex_pb_buf *b, unsigned field, unsigned wt)
{
	trex_pb_put_varint(b, ((uint64_t)field << 3) | wt);
}

static void pb_u64(struct trex_pb_buf *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, WT_VARINT);
	trex_pb_put_varint(b, v);
}

static void pb_fixed64(struct trex_pb_buf *b, unsigned field, uint64_t v)
{
	pb_tag(b, field, WT_I64);
	if (!trex_pb_reserve(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static void pb_double(struct trex_pb_buf *b, unsigned field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(b, field, v);
}

static void pb_bytes(struct trex_pb_buf *b, unsigned field, const void *s, size_t n)
{
	pb_tag(b, field, WT_LEN);
	trex_pb_put_varint(b, n);
	trex_pb_put_bytes(b, s, n);
}

static void pb_str(struct trex_pb_buf *b, unsigned field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* inner as a message field of b; inner is emptied for reuse. */
static void pb_msg(struct trex_pb_buf *b, unsigned field, struct trex_pb_buf *inner)
{
	pb_bytes(b, field, inner->p, inner->len);
	b->oom |= inner->oom;
	inner->len = 0;
}

/* ---- field numbers (perfetto.md) ------------------------------------------------------------ */

enum {
	PKT_TIMESTAMP = 8,
	PKT_SEQ_ID = 10,
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED = 12,
	PKT_SEQ_FLAGS = 13,
	PKT_TRACK_DESCRIPTOR = 60,
	TE_CATEGORY_IIDS = 3,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_DOUBLE_COUNTER = 44,
	TE_FLOW_IDS = 47,
	TE_TERMINATING_FLOW_IDS = 48,
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT = 5,
	TD_COUNTER = 8,
	DA_BOOL = 2,
	DA_INT = 4,
	DA_STRING = 6,
	DA_LEGACY_JSON = 9,
	DA_NAME = 10,
	ID_CATEGORIES = 1,
	ID_NAMES = 2,
};
enum { TYPE_BEGIN = 1, TYPE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
#define SEQ_CLEARED 1u
#define SEQ_NEEDS_STATE 2u
#define SEQ_ID 1u

/* Track uuids: a kind in the top bits, the index's id below. */
#define UUID_PROCESS(p) (((uint64_t)1 << 40) | (p))
#define UUID_TRACK(t) (((uint64_t)2 << 40) | (t))
#define UUID_OVERLAPS(t) (((uint64_t)3 << 40) | (t))

struct pw {
	struct trex_wbuf *w;
	const struct trex_index *idx;
	const struct trex_export_scope *s;
	struct xargs *args;
	struct trex_pb_buf pkt, te, sub, sub2;
	uint8_t *interned; /* a bit per string id: its iid was given */
	bool first_packet;
	int32_t *pids;   /* per process: the pid written */
	uint32_t *order; /* scratch: one track's slices in time order */
	size_t order_cap;
	uint32_t *overlap; /* scratch: the level of each of those (pw_levels) */
};

/* Frames pkt as one Trace.packet into the output. */
static bool pw_emit(struct pw *c)
{
	uint8_t head[11];
	size_t h = 0;
	uint64_t v = c->pkt.len;

	if (c->pkt.oom)
		return false;
	head[h++] = 0x0a;
	while (v >= 0x80) {
		head[h++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	head[h++] = (uint8_t)v;
	bool ok = trex_wbuf_put(c->w, head, h) && trex_wbuf_put(c->w, c->pkt.p, c->pkt.len);
	c->pkt.len = 0;
	return ok;
}

static void pw_sequence(struct pw *c)
{
	pb_u64(&c->pkt, PKT_SEQ_ID, SEQ_ID);
	pb_u64(&c->pkt, PKT_SEQ_FLAGS,
	       c->first_packet ? SEQ_CLEARED | SEQ_NEEDS_STATE : SEQ_NEEDS_STATE);
	c->first_packet = false;
}

/* ---- tracks --------------------------------------------------------------------------------- */

/* The pid of a process: its number when it is one that fits and no other
 * process took it, else one beyond every pid. */
static bool pw_pids(struct pw *c)
{
	uint32_t n = trex_index_process_count(c->idx);
	int32_t next = 0x40000000;

	c->pids = malloc((n ? n : 1) * sizeof(*c->pids));
	if (!c->pids)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_process *p = trex_index_process(c->idx, i);
		char buf[24];
		const char *text = trex_index_str(c->idx, p->pid);
		bool ok = p->pid_num >= 0 && p->pid_num < 0x40000000 &&
		          strcmp(text, (*trex_fmt_i64(buf, p->pid_num) = '\0', buf)) == 0;

		for (uint32_t k = 0; ok && k < i; k++)
			ok = c->pids[k] != (int32_t)p->pid_num;
		c->pids[i] = ok ? (int32_t)p->pid_num : next++;
	}
	return true;
}

static bool pw_process_track(struct pw *c, uint32_t process)
{
	const struct trex_process *p = trex_index_process(c->idx, process);

	pb_u64(&c->sub, 1, (uint64_t)(uint32_t)c->pids[process]);
	if (p->name)
		pb_str(&c->sub, 6, trex_index_str(c->idx, p->name));
	if (p->labels)
		pb_str(&c->sub, 8, trex_index_str(c->idx, p->labels));
	pb_u64(&c->te, TD_UUID, UUID_PROCESS(process));
	pb_msg(&c->te, TD_PROCESS, &c->sub);
	pb_msg(&c->pkt, PKT_TRACK_DESCRIPTOR, &c->te);
	return pw_emit(c);
}

/* A thread with a numeric tid is a thread track; GPU streams, keyed
 * slices, counters and other tracks are tracks under their process. */
static bool pw_track(struct pw *c, uint32_t track)
{
	const struct trex_track *t = trex_index_track(c->idx, track);
	const char *name = trex_index_str(c->idx, t->name ? t->name : t->tid);
	char buf[24];
	bool thread = t->kind == TREX_TRACK_THREAD &&
	              strcmp(trex_index_str(c->idx, t->tid),
	                     (*trex_fmt_i64(buf, t->tid_num) = '\0', buf)) == 0;

	pb_u64(&c->te, TD_UUID, UUID_TRACK(track));
	if (thread) {
		pb_u64(&c->sub, 1, (uint64_t)(uint32_t)c->pids[t->process]);
		pb_u64(&c->sub, 2, (uint64_t)t->tid_num);
		if (t->name)
			pb_str(&c->sub, 5, name);
		pb_msg(&c->te, TD_THREAD, &c->sub);
	} else {
		pb_u64(&c->te, TD_PARENT, UUID_PROCESS(t->process));
		pb_str(&c->te, TD_NAME, name);
		if (t->kind == TREX_TRACK_COUNTER)
			pb_msg(&c->te, TD_COUNTER, &c->sub);
	}
	pb_msg(&c->pkt, PKT_TRACK_DESCRIPTOR, &c->te);
	return pw_emit(c);
}

static uint64_t level_uuid(uint32_t track, unsigned level);

/* The track of a track's slices that overlap at level (1, 2, ...). */
static bool pw_overlaps_track(struct pw *c, uint32_t track, unsigned level)
{
	const struct trex_track *t = trex_index_track(c->idx, track);
	const char *name = trex_index_str(c->idx, t->name ? t->name : t->tid);
	size_t size = strlen(name) + 32;
	char *full = malloc(size);

	if (!full)
		return false;
	if (level == 1)
		snprintf(full, size, "%s (overlaps)", name);
	else
		snprintf(full, size, "%s (overlaps %u)", name, level);
	pb_u64(&c->te, TD_UUID, level_uuid(track, level));
	pb_u64(&c->te, TD_PARENT, UUID_PROCESS(t->process));
	pb_str(&c->te, TD_NAME, full);
	free(full);
	pb_msg(&c->pkt, PKT_TRACK_DESCRIPTOR, &c->te);
	return pw_emit(c);
}

/* ---- events --------------------------------------------------------------------------------- */

/* Interns string id (as iid id + 1) into the packet's interned data when
 * it is new; field: ID_NAMES or ID_CATEGORIES. */
static void pw_intern(struct pw *c, unsigned field, uint32_t id, struct trex_pb_buf *interned)
{
	uint8_t bit = (uint8_t)(1u << (id & 7));

	if (c->interned[id >> 3] & bit)
		return;
	c->interned[id >> 3] |= bit;
	pb_u64(&c->sub2, 1, (uint64_t)id + 1);
	pb_str(&c->sub2, 2, trex_index_str(c->idx, id));
	pb_msg(interned, field, &c->sub2);
}

static inline bool json_blank(char ch)
{
	return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
}

static inline bool json_ends_literal(char ch)
{
	return ch == ',' || ch == '}' || ch == ']' || json_blank(ch);
}

/* The end of the JSON value at p. */
static const char *json_skip(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				p += *p == '\\';
			p++;
		} else if (*p == '{' || *p == '[') {
			depth++;
			p++;
		} else if (*p == '}' || *p == ']') {
			depth--;
			p++;
		} else if (depth == 0) {
			while (p < end && !json_ends_literal(*p))
				p++;
			return p;
		} else {
			p++;
		}
		if (depth <= 0)
			return p;
	}
	return end;
}

static const char *json_ws(const char *p, const char *end)
{
	while (p < end && json_blank(*p))
		p++;
	return p;
}

/* The first character of each top-level member's value, in order. */
static size_t json_value_kinds(const char *text, size_t len, char *kinds, size_t max)
{
	const char *p = text, *end = text + len;
	size_t n = 0;

	p = json_ws(p, end);
	if (p >= end || *p != '{')
		return 0;
	for (p++;;) {
		p = json_ws(p, end);
		if (p >= end || *p != '"')
			return n;
		p = json_skip(p, end);
		p = json_ws(p, end);
		if (p >= end || *p != ':')
			return n;
		p = json_ws(p + 1, end);
		if (p >= end)
			return n;
		if (n < max)
			kinds[n] = *p;
		n++;
		p = json_ws(json_skip(p, end), end);
		if (p >= end || *p != ',')
			return n;
		p++;
	}
}

/* An integer as written that fits int64. */
static bool json_int(const char *s, int64_t *v)
{
	char *q;

	if (!*s || strpbrk(s, ".eE"))
		return false;
	*v = strtoll(s, &q, 10);
	return *q == '\0' && *v != INT64_MAX && *v != INT64_MIN;
}

static void pw_annotation(struct pw *c, const char *key, const char *value, char kind)
{
	int64_t v;

	pb_str(&c->sub, DA_NAME, key);
	if (kind == '"')
		pb_str(&c->sub, DA_STRING, value);
	else if (kind == 't' || kind == 'f')
		pb_u64(&c->sub, DA_BOOL, kind == 't');
	else if (json_int(value, &v))
		pb_u64(&c->sub, DA_INT, (uint64_t)v);
	else
		pb_str(&c->sub, DA_LEGACY_JSON, value);
	pb_msg(&c->te, TE_DEBUG_ANNOTATIONS, &c->sub);
}

/* The event's args (batch entry at) as debug annotations. */
static bool pw_annotations(struct pw *c, size_t at, enum trex_clip clip, struct trex_error *err)
{
	const char *text = c->args->text + c->args->off[at];
	size_t len = c->args->len[at];
	struct trex_args a;
	char kinds[256];
	size_t nk;

	if (clip)
		pw_annotation(c, "trex_clipped", trex_clip_name(clip), '"');
	if (!len)
		return true;
	if (trex_json_args_decode(text, len, &a, NULL, err) != TREX_OK)
		return false;
	nk = json_value_kinds(text, len, kinds, sizeof(kinds));
	for (size_t i = 0; i < a.n; i++)
		pw_annotation(c, a.v[i].key, a.v[i].value,
		              i < nk && i < sizeof(kinds) ? kinds[i] : '"');
	trex_args_free(&a);
	return true;
}

static void pw_event_head(struct pw *c, int64_t ts, uint64_t track_uuid, unsigned type)
{
	pb_u64(&c->pkt, PKT_TIMESTAMP, (uint64_t)ts);
	pw_sequence(c);
	pb_u64(&c->te, TE_TYPE, type);
	pb_u64(&c->te, TE_TRACK_UUID, track_uuid);
}

/* The event's name and category, interned. */
static void pw_event_names(struct pw *c, uint32_t name, uint32_t cat, struct trex_pb_buf *interned)
{
	pw_intern(c, ID_NAMES, name, interned);
	pb_u64(&c->te, TE_NAME_IID, (uint64_t)name + 1);
	if (cat) {
		pw_intern(c, ID_CATEGORIES, cat, interned);
		pb_u64(&c->te, TE_CATEGORY_IIDS, (uint64_t)cat + 1);
	}
}

/* te into the packet, with the interned data it needs. */
static bool pw_event_done(struct pw *c, struct trex_pb_buf *interned)
{
	pb_msg(&c->pkt, PKT_TRACK_EVENT, &c->te);
	if (interned->len)
		pb_msg(&c->pkt, PKT_INTERNED, interned);
	c->w->events++;
	return pw_emit(c);
}

/* The flows that leave (flow_ids) or end on (terminating) slice. */
static void pw_flow_ids(struct pw *c, uint32_t slice)
{
	uint32_t ids[64];
	size_t n = trex_index_flows_of(c->idx, slice, ids, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		const struct trex_flow *f = trex_index_flow(c->idx, ids[i]);
		int64_t from, to;

		if (!xscope_flow(c->idx, c->s, f, &from, &to))
			continue;
		if (f->from_slice == slice)
			pb_fixed64(&c->te, TE_FLOW_IDS, (uint64_t)ids[i] + 1);
		else if (f->to_slice == slice)
			pb_fixed64(&c->te, TE_TERMINATING_FLOW_IDS, (uint64_t)ids[i] + 1);
	}
}

static bool pw_begin(struct pw *c, uint32_t id, size_t at, uint64_t uuid, int64_t ts,
                     enum trex_clip clip, struct trex_error *err)
{
	const struct trex_slice *sl = trex_index_slice(c->idx, id);
	struct trex_pb_buf interned = {0};
	bool ok;

	pw_event_head(c, ts, uuid, TYPE_BEGIN);
	pw_event_names(c, sl->name, sl->cat, &interned);
	pw_flow_ids(c, id);
	ok = pw_annotations(c, at, clip, err) && pw_event_done(c, &interned);
	free(interned.p);
	return ok && !interned.oom;
}

static bool pw_end(struct pw *c, uint64_t uuid, int64_t ts)
{
	pw_event_head(c, ts, uuid, TYPE_END);
	pb_msg(&c->pkt, PKT_TRACK_EVENT, &c->te);
	c->w->events++;
	return pw_emit(c);
}

/* ---- one track's slices ----------------------------------------------------------------------
 * In time order (ties: outer first); a slice that ends after the one it
 * starts in goes a level down (an overlaps track), as many as it takes. */

#define PW_LEVELS 8

struct order_key {
	int64_t ts;
	uint32_t depth, id;
};

static int order_cmp(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

struct lvl_stack {
	int64_t end[256];
	uint32_t id[256];
	size_t n;
};

static uint64_t level_uuid(uint32_t track, unsigned level)
{
	return level == 0 ? UUID_TRACK(track)
	                  : UUID_OVERLAPS(track) | ((uint64_t)(level - 1) << 44);
}

/* The slices of track in scope, ordered, into c->order; *n of them. */
static bool pw_order(struct pw *c, const struct trex_track *t, size_t *n)
{
	struct order_key *keys = malloc((t->slice_count ? t->slice_count : 1) * sizeof(*keys));
	size_t k = 0;

	if (!keys)
		return false;
	for (uint32_t i = 0; i < t->slice_count; i++) {
		uint32_t id = t->first_slice + i;
		int64_t ts, dur;
		enum trex_clip clip;

		if (xscope_slice(c->idx, c->s, id, &ts, &dur, &clip))
			keys[k++] = (struct order_key){ts, trex_index_slice(c->idx, id)->depth, id};
	}
	qsort(keys, k, sizeof(*keys), order_cmp);
	for (size_t i = 0; i < k; i++)
		c->order[i] = keys[i].id;
	free(keys);
	*n = k;
	return true;
}

static int64_t clipped_end(struct pw *c, uint32_t id, int64_t *ts, enum trex_clip *clip)
{
	int64_t dur;

	xscope_slice(c->idx, c->s, id, ts, &dur, clip);
	return *ts + dur;
}

/* Which level each ordered slice goes to (c->overlap); returns the
 * deepest level used + 1. */
static unsigned pw_levels(struct pw *c, size_t n, struct lvl_stack *st)
{
	unsigned used = 1;

	for (unsigned l = 0; l < PW_LEVELS; l++)
		st[l].n = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t ts;
		enum trex_clip clip;
		int64_t end = clipped_end(c, c->order[i], &ts, &clip);
		unsigned l = 0;

		for (;; l++) {
			struct lvl_stack *s = &st[l];

			while (s->n && s->end[s->n - 1] <= ts &&
			       !(s->end[s->n - 1] == ts && end == ts))
				s->n--;
			if (l + 1 == PW_LEVELS || !s->n || s->end[s->n - 1] >= end)
				break;
		}
		if (st[l].n < 256) {
			st[l].end[st[l].n] = end;
			st[l].id[st[l].n++] = c->order[i];
		}
		c->overlap[i] = l;
		used = l + 1 > used ? l + 1 : used;
	}
	return used;
}

/* Ends of the slices open on level l that end by ts (all of them when
 * all). */
static bool pw_close(struct pw *c, struct lvl_stack *s, uint64_t uuid, int64_t ts, bool all)
{
	while (s->n && (all || s->end[s->n - 1] <= ts)) {
		s->n--;
		if (!pw_end(c, uuid, s->end[s->n]))
			return false;
	}
	return true;
}

/* Level l's slices of the ordered ones, begins and ends. */
static bool pw_level(struct pw *c, uint32_t track, unsigned l, size_t n, struct lvl_stack *s,
                     uint32_t file, struct trex_error *err)
{
	uint64_t uuid = level_uuid(track, l);

	s->n = 0;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < XARGS_BATCH ? n - done : XARGS_BATCH;

		for (size_t i = 0; i < k; i++)
			c->args->in[i] = c->overlap[done + i] == l
			                     ? trex_index_slice(c->idx, c->order[done + i])->args
			                     : TREX_ARGS_NONE;
		if (xargs_fetch(c->args, c->idx, file, k, err) != TREX_OK)
			return false;
		for (size_t i = 0; i < k; i++) {
			uint32_t id = c->order[done + i];
			int64_t ts, end;
			enum trex_clip clip;

			if (c->overlap[done + i] != l)
				continue;
			end = clipped_end(c, id, &ts, &clip);
			if (!pw_close(c, s, uuid, ts, false) ||
			    !pw_begin(c, id, i, uuid, ts, clip, err))
				return false;
			if (s->n < 256) {
				s->end[s->n] = end;
				s->id[s->n++] = id;
			} else if (!pw_end(c, uuid,
			                   end)) { /* deeper than any stack: ends at once */
				return false;
			}
		}
		done += k;
	}
	return pw_close(c, s, uuid, 0, true);
}

static bool pw_slices(struct pw *c, uint32_t track, struct trex_error *err)
{
	const struct trex_track *t = trex_index_track(c->idx, track);
	struct lvl_stack *st;
	size_t n;
	unsigned levels;
	bool ok = true;

	if (!t->slice_count)
		return true;
	if (t->slice_count > c->order_cap) {
		free(c->order);
		free(c->overlap);
		c->order = malloc(t->slice_count * sizeof(*c->order));
		c->overlap = malloc(t->slice_count * sizeof(*c->overlap));
		c->order_cap = c->order && c->overlap ? t->slice_count : 0;
		if (!c->order_cap)
			return false;
	}
	st = malloc(PW_LEVELS * sizeof(*st));
	if (!st || !pw_order(c, t, &n)) {
		free(st);
		return false;
	}
	levels = pw_levels(c, n, st);
	for (unsigned l = 1; ok && l < levels; l++)
		ok = pw_overlaps_track(c, track, l);
	for (unsigned l = 0; ok && l < levels; l++)
		ok = pw_level(c, track, l, n, &st[l], trex_index_track_file(c->idx, track), err);
	free(st);
	return ok;
}

/* ---- instants, counters, the trace ---------------------------------------------------------- */

struct pw_instant_job {
	struct pw *c;
	struct trex_error *err;
};

static bool pw_instant(void *user, uint32_t id, size_t at)
{
	struct pw_instant_job *j = user;
	struct pw *c = j->c;
	const struct trex_instant *in = trex_index_instant(c->idx, id);
	struct trex_pb_buf interned = {0};
	bool ok;

	if (!trex_export_time_in(c->s, in->ts) ||
	    !trex_export_name_in(c->s, trex_index_str(c->idx, in->name)))
		return true;
	pw_event_head(c, in->ts, UUID_TRACK(in->track), TYPE_INSTANT);
	pw_event_names(c, in->name, in->cat, &interned);
	ok = pw_annotations(c, at, TREX_CLIP_NONE, j->err) && pw_event_done(c, &interned);
	free(interned.p);
	return ok && !interned.oom;
}

static bool pw_instants(struct pw *c, uint32_t track, struct trex_error *err)
{
	const struct trex_track *t = trex_index_track(c->idx, track);
	struct pw_instant_job j = {c, err};

	return xargs_each(c->args, c->idx, trex_index_track_file(c->idx, track), false,
	                  t->first_instant, t->instant_count, pw_instant, &j, err);
}

static bool pw_sample(void *user, uint32_t track, int64_t ts, double v)
{
	struct pw *c = user;
	pw_event_head(c, ts, UUID_TRACK(track), TYPE_COUNTER);
	pb_double(&c->te, TE_DOUBLE_COUNTER, v);
	pb_msg(&c->pkt, PKT_TRACK_EVENT, &c->te);
	c->w->events++;
	return pw_emit(c);
}

static bool pw_counter(struct pw *c, uint32_t track)
{
	return xscope_samples(c->idx, c->s, track, pw_sample, c);
}

static bool pw_descriptor(void *user, uint32_t track, bool first_of_process)
{
	struct pw *c = user;

	return (!first_of_process ||
	        pw_process_track(c, trex_index_track(c->idx, track)->process)) &&
	       pw_track(c, track);
}

static bool pw_descriptors(struct pw *c)
{
	return xscope_tracks(c->idx, c->s, pw_descriptor, c);
}

/* Device queues after every other track: launches before their work. */
static bool pw_events(struct pw *c, struct trex_error *err)
{
	for (int gpu = 0; gpu < 2; gpu++) {
		for (uint32_t i = 0; i < trex_index_track_count(c->idx); i++) {
			const struct trex_track *t = trex_index_track(c->idx, i);

			if ((t->kind == TREX_TRACK_GPU) != gpu ||
			    !trex_export_track_in(c->idx, c->s, i))
				continue;
			if (!pw_slices(c, i, err) || !pw_instants(c, i, err) ||
			    (t->kind == TREX_TRACK_COUNTER && !pw_counter(c, i)))
				return false;
		}
	}
	return true;
}

static void pw_free(struct pw *c)
{
	free(c->pkt.p);
	free(c->te.p);
	free(c->sub.p);
	free(c->sub2.p);
	free(c->interned);
	free(c->pids);
	free(c->order);
	free(c->overlap);
	xargs_free(c->args);
}

static enum trex_status perfetto_body(struct trex_wbuf *w, const struct trex_index *idx,
                                      const struct trex_export_opts *opts, struct trex_error *err)
{
	struct pw c = {.w = w, .idx = idx, .s = &opts->scope, .first_packet = true};
	uint32_t nstr = trex_strtab_count(trex_index_strings(idx));
	bool ok;

	c.args = calloc(1, sizeof(*c.args));
	c.interned = calloc(nstr / 8 + 1, 1);
	err->status = TREX_OK;
	ok = c.args && c.interned && pw_pids(&c);
	if (!ok) {
		pw_free(&c);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	/* the sequence starts with a packet that only clears its state, so that
	 * even an export of nothing is a trace */
	pw_sequence(&c);
	ok = pw_emit(&c) && pw_descriptors(&c) && pw_events(&c, err);
	ok = ok && !c.pkt.oom && !c.te.oom && !c.sub.oom && !c.sub2.oom;
	pw_free(&c);
	if (ok)
		return TREX_OK;
	if (err->status != TREX_OK)
		return err->status;
	if (w->failed)
		return trex_wbuf_status(w, err);
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

enum trex_status trex_perfetto_export(const struct trex_index *idx, const char *path,
                                      const struct trex_export_opts *opts,
                                      struct trex_export_progress *done, struct trex_error *err)
{
	return trex_export_to_path(idx, path, false, opts, perfetto_body, done, err);
}
