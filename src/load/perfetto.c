/* The Perfetto loader: the decoder's records (perfetto_decode.h) as
 * builder calls. Thread tracks are the builder's (pid, tid) tracks;
 * process tracks and custom tracks are named tracks of the process their
 * ancestors name (nested under their parent track when it is of the same
 * process; under a "global tracks" process when no ancestor has a pid);
 * counter tracks are counter series. Slices, instants and counter values
 * go on their track, flow ids become flow points on their slice, and the
 * debug annotations are kept in the file's args store, read back by the
 * "perfetto" args codec.
 *
 * Annotations are stored as decoded text rather than re-read from the
 * file on request: interned names and strings are per-sequence state that
 * is gone by then, and a gzip input cannot be read at an offset cheaply. */
#include "config.h"

#include "formats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_decode.h"
#include "perfetto_internal.h"
#include "trex/core/grow.h"
#include "trex/load/kinds.h"

/* Parents followed to find a track's process; a longer chain is a cycle. */
#define PL_MAX_DEPTH 64
#define PL_GLOBAL_PID "global"

/* ---- the args store and its codec ----------------------------------------------------------
 * One record per event with annotations, at ref - 1: a uint32 count, then
 * per annotation a byte (1: quote the value in JSON), the key and the
 * value, each NUL-terminated. */

struct pl_codec {
	struct trex_source *src; /* owned: the index closes the file through the codec */
	struct pf_text store;
	bool borrowed; /* store lies in an index file's mapping (pl_reopen) */
};

static trex_args_ref pl_store_args(struct pl_codec *c, const struct trex_pf_arg *args, size_t n)
{
	uint32_t count = (uint32_t)n;
	size_t at = c->store.len;

	if (!pf_text_append(&c->store, (const char *)&count, sizeof(count)))
		return TREX_ARGS_NONE - 1;
	for (size_t i = 0; i < n; i++) {
		char quoted = args[i].quoted;
		if (!pf_text_append(&c->store, &quoted, 1) ||
		    !pf_text_append(&c->store, args[i].key, strlen(args[i].key) + 1) ||
		    !pf_text_append(&c->store, args[i].value, strlen(args[i].value) + 1))
			return TREX_ARGS_NONE - 1;
	}
	return (trex_args_ref)at + 1;
}

static enum trex_status pl_damaged(const struct pl_codec *c, trex_args_ref ref,
                                   struct trex_error *err)
{
	return trex_error_set(err, TREX_FORMAT, trex_source_path(c->src), -1,
	                      "damaged annotations under reference %" PRIu64, ref);
}

/* The record of ref: its count and where its entries start and end. */
static enum trex_status pl_record(const struct pl_codec *c, trex_args_ref ref, uint32_t *n,
                                  const char **start, const char **end, struct trex_error *err)
{
	if (ref == TREX_ARGS_NONE || ref > c->store.len || ref - 1 + sizeof(*n) > c->store.len)
		return trex_error_set(err, TREX_FORMAT, trex_source_path(c->src), -1,
		                      "no annotations stored under reference %" PRIu64, ref);
	memcpy(n, c->store.buf + ref - 1, sizeof(*n));
	*start = c->store.buf + ref - 1 + sizeof(*n);
	const char *p = *start, *limit = c->store.buf + c->store.len;
	/* the store ends in a NUL (a record's last value; pl_reopen checks it
	 * for one from an index file), but no record may run past it */
	for (uint32_t i = 0; i < *n; i++) {
		if (limit - p < 3)
			return pl_damaged(c, ref, err);
		p++;
		p += strlen(p) + 1;
		if (p >= limit)
			return pl_damaged(c, ref, err);
		p += strlen(p) + 1;
	}
	*end = p;
	return TREX_OK;
}

static enum trex_status pl_decode(void *ctx, trex_args_ref ref, struct trex_args *out,
                                  bool *truncated, struct trex_error *err)
{
	const char *start, *end;
	uint32_t n = 0;

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	enum trex_status s = pl_record(ctx, ref, &n, &start, &end, err);
	if (s != TREX_OK)
		return s;
	out->buf = malloc((size_t)(end - start) + 1);
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->buf || !out->v) {
		trex_args_free(out);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	memcpy(out->buf, start, (size_t)(end - start));
	const char *p = out->buf;
	for (uint32_t i = 0; i < n; i++) {
		out->v[i].key = ++p;
		p += strlen(p) + 1;
		out->v[i].value = p;
		p += strlen(p) + 1;
	}
	out->n = n;
	return TREX_OK;
}

static enum trex_status pl_json(void *ctx, trex_args_ref ref, char **out, size_t *len,
                                struct trex_error *err)
{
	struct pf_text t = {0};
	const char *p, *end;
	uint32_t n = 0;

	*out = NULL;
	*len = 0;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	enum trex_status s = pl_record(ctx, ref, &n, &p, &end, err);
	if (s != TREX_OK)
		return s;
	bool ok = pf_text_append(&t, "{", 1);
	for (uint32_t i = 0; ok && i < n; i++) {
		bool quoted = *p++;
		const char *key = p, *value = p + strlen(p) + 1;
		p = value + strlen(value) + 1;
		ok =
		    (i == 0 || pf_text_append(&t, ",", 1)) && pf_json_string(&t, key) &&
		    pf_text_append(&t, ":", 1) &&
		    (quoted ? pf_json_string(&t, value) : pf_text_append(&t, value, strlen(value)));
	}
	ok = ok && pf_text_append(&t, "}", 2); /* with its NUL */
	if (!ok) {
		pf_text_free(&t);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	*out = t.buf;
	*len = t.len - 1;
	return TREX_OK;
}

static size_t pl_memory(const void *ctx)
{
	const struct pl_codec *c = ctx;
	return sizeof(*c) + c->store.cap;
}

static void pl_close(void *ctx)
{
	struct pl_codec *c = ctx;

	if (!c)
		return;
	trex_source_close(c->src);
	if (!c->borrowed)
		pf_text_free(&c->store);
	free(c);
}

/* Index files: the args store is all that reading args back needs. */
static enum trex_status pl_save(void *ctx, trex_args_put_fn *put, void *put_user,
                                struct trex_error *err)
{
	struct pl_codec *c = ctx;

	if (!put(put_user, c->store.buf, c->store.len))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return TREX_OK;
}

/* The store is borrowed from the index file; it must end a record (a NUL)
 * so that reading one never runs past it. */
static enum trex_status pl_reopen(const char *path, const void *saved, size_t len, void **ctx,
                                  struct trex_error *err)
{
	struct pl_codec *c;
	enum trex_status st;

	*ctx = NULL;
	if (len && ((const char *)saved)[len - 1] != '\0')
		return trex_error_set(err, TREX_FORMAT, path, -1, "damaged annotations store");
	if (!(c = calloc(1, sizeof(*c))))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	st = trex_source_open(path, &c->src, err);
	if (st != TREX_OK) {
		free(c);
		return st;
	}
	c->store.buf = (char *)(uintptr_t)saved;
	c->store.len = len;
	c->borrowed = true;
	*ctx = c;
	return TREX_OK;
}

/* No positions: a binary file has no lines. */
static const struct trex_args_codec pl_codec = {
    .name = "perfetto",
    .decode = pl_decode,
    .json = pl_json,
    .memory = pl_memory,
    .close = pl_close,
    .save = pl_save,
    .reopen = pl_reopen,
};

/* ---- tracks ------------------------------------------------------------------------------ */

/* A track uuid as the loader knows it: what its descriptor said and,
 * once an event needs it, its builder track (or counter series). */
struct pl_track {
	uint64_t uuid, parent;
	bool has_parent, described;
	enum trex_pf_track_kind kind;
	int32_t pid;
	int64_t tid;
	uint32_t name;   /* builder string id, TREX_NONE when none */
	uint32_t pid_id; /* resolved: the process it belongs to */
	uint32_t local;  /* resolved: builder track; TREX_NONE until then */
	bool resolved;
	/* slices begun on it and not ended yet, for flows on their ends */
	trex_handle *open;
	size_t n_open, cap_open;
};

/* The event types of `trex info`, in this order. */
enum pl_type { PL_BEGIN, PL_END, PL_INSTANT, PL_COUNTER, PL_TRACK, PL_OTHER, PL_TYPES };

struct pl_loader {
	struct trex_load_job *job;
	struct trex_builder *b;
	struct pl_codec *codec;
	struct pf_map index; /* uuid -> place in tracks */
	struct pl_track *tracks;
	size_t n_tracks, cap_tracks;
	struct pf_map flows; /* flow ids seen and not terminated */
	/* flow id -> handle + 1 of the runtime call that started it (0: none
	 * now), so the device work it ends gets a launch edge as well */
	struct pf_map launchers;
	/* uuids of tracks placed before their descriptor came, or of parents
	 * a placed track named before theirs came */
	struct pf_map awaited;
	uint32_t global_pid, flow_space;
	bool global_named;
	uint64_t types[PL_TYPES];
	struct trex_pf_stats seen; /* the decoder's counts at its last problem */
	const struct trex_pf_stats *stats;
	bool oom;
	/* a descriptor came after an event had put its track somewhere: the
	 * file is read again with every descriptor known */
	bool late_descriptor;
	/* progress reported so far (decoded and disk bytes, events); kept
	 * across a second reading, which reports only what lies beyond */
	uint64_t reported_bytes, reported_disk, reported_events;
};

static uint32_t pl_intern(struct pl_loader *l, const char *s)
{
	uint32_t id = trex_builder_intern(l->b, s ? s : "", s ? strlen(s) : 0);
	if (id == TREX_STR_ERROR)
		l->oom = true;
	return id;
}

/* prefix then v in decimal ("12" for an empty prefix). */
static uint32_t pl_intern_num(struct pl_loader *l, const char *prefix, int64_t v)
{
	char buf[48];
	snprintf(buf, sizeof(buf), "%s%" PRId64, prefix, v);
	return pl_intern(l, buf);
}

/* prefix then a track uuid ("track 8013421951300188163"). */
static uint32_t pl_intern_uuid(struct pl_loader *l, const char *prefix, uint64_t uuid)
{
	char buf[48];
	snprintf(buf, sizeof(buf), "%s%" PRIu64, prefix, uuid);
	return pl_intern(l, buf);
}

/* The loader's entry for uuid, made (undescribed) on first sight. */
static struct pl_track *pl_track_of(struct pl_loader *l, uint64_t uuid)
{
	uint32_t at = pf_map_get(&l->index, uuid);
	if (at != PF_MAP_EMPTY)
		return &l->tracks[at];
	struct pl_track *v = trex_grow(l->tracks, &l->cap_tracks, l->n_tracks + 1, sizeof(*v), 64);
	if (!v || !pf_map_put(&l->index, uuid, (uint32_t)l->n_tracks)) {
		if (v)
			l->tracks = v;
		l->oom = true;
		return NULL;
	}
	l->tracks = v;
	struct pl_track *t = &v[l->n_tracks++];
	memset(t, 0, sizeof(*t));
	t->uuid = uuid;
	t->name = TREX_NONE;
	t->local = TREX_NONE;
	return t;
}

/* The parent of t when it is described, else NULL. */
static struct pl_track *pl_parent(struct pl_loader *l, const struct pl_track *t)
{
	if (!t->has_parent)
		return NULL;
	uint32_t at = pf_map_get(&l->index, t->parent);
	return at == PF_MAP_EMPTY || !l->tracks[at].described ? NULL : &l->tracks[at];
}

/* The process of t: the pid of its nearest process or thread ancestor
 * (itself included), else the global tracks' process. */
static uint32_t pl_process(struct pl_loader *l, const struct pl_track *t)
{
	for (int depth = 0; t && depth < PL_MAX_DEPTH; depth++, t = pl_parent(l, t)) {
		if (t->kind == TREX_PF_TRACK_PROCESS || t->kind == TREX_PF_TRACK_THREAD)
			return pl_intern_num(l, "", t->pid);
	}
	if (!l->global_named) { /* named once it has a track */
		l->global_named = true;
		if (trex_builder_process_name(l->b, l->global_pid, pl_intern(l, "global tracks")) <
		    0)
			l->oom = true;
	}
	return l->global_pid;
}

static void pl_name_track(struct pl_loader *l, struct pl_track *t)
{
	if (t->kind == TREX_PF_TRACK_PROCESS && t->name != TREX_NONE)
		trex_builder_process_name(l->b, pl_intern_num(l, "", t->pid), t->name);
	if (t->local != TREX_NONE && t->name != TREX_NONE)
		trex_builder_thread_name(l->b, t->local, t->name);
}

static uint32_t pl_named_key(struct pl_loader *l, const struct pl_track *t)
{
	return pl_intern_uuid(l, "track ", t->uuid);
}

/* Makes t's builder track (counters: its series' process) on first use. */
static void pl_resolve(struct pl_loader *l, struct pl_track *t, int depth)
{
	if (t->resolved || depth > PL_MAX_DEPTH)
		return;
	t->resolved = true;
	if ((!t->described && !pf_map_put(&l->awaited, t->uuid, 1)) ||
	    (t->has_parent && !pl_parent(l, t) && !pf_map_put(&l->awaited, t->parent, 1)))
		l->oom = true;
	t->pid_id = pl_process(l, t);
	if (t->kind == TREX_PF_TRACK_COUNTER)
		return;
	if (t->kind == TREX_PF_TRACK_THREAD) {
		t->local = trex_builder_track(l->b, t->pid_id, pl_intern_num(l, "", t->tid));
	} else {
		struct pl_track *p = pl_parent(l, t);
		uint32_t parent = TREX_NONE;
		if (p && p->kind != TREX_PF_TRACK_PROCESS && p->kind != TREX_PF_TRACK_COUNTER) {
			pl_resolve(l, p, depth + 1);
			if (p->pid_id == t->pid_id)
				parent = p->local;
		}
		t->local = trex_builder_named_track(l->b, t->pid_id, pl_named_key(l, t), parent);
		if (t->local == TREX_NONE && parent != TREX_NONE)
			t->local = trex_builder_named_track(l->b, t->pid_id, pl_named_key(l, t),
			                                    TREX_NONE);
		if (t->name == TREX_NONE && t->kind == TREX_PF_TRACK_PROCESS)
			t->name = pl_intern(l, "process-wide slices");
	}
	if (t->local == TREX_NONE)
		l->oom = true;
	pl_name_track(l, t);
}

static enum trex_status pl_on_track(void *user, const struct trex_pf_track *d,
                                    struct trex_error *err)
{
	struct pl_loader *l = user;
	struct pl_track *t = pl_track_of(l, d->uuid);

	(void)err;
	l->types[PL_TRACK]++;
	if (!t)
		return TREX_NOMEM;
	if (!t->described && pf_map_get(&l->awaited, d->uuid) != PF_MAP_EMPTY)
		l->late_descriptor = true;
	/* a track already in use stays where it is (until a second reading);
	 * only its name follows */
	t->kind = d->kind;
	t->has_parent = d->has_parent;
	t->parent = d->parent_uuid;
	t->pid = d->pid;
	t->tid = d->tid;
	t->described = true;
	if (d->name)
		t->name = pl_intern(l, d->name);
	pl_name_track(l, t);
	return l->oom ? TREX_NOMEM : TREX_OK;
}

/* ---- events ------------------------------------------------------------------------------ */

static void pl_flow(struct pl_loader *l, uint64_t id, enum trex_flow_role role,
                    const struct trex_ev *ev, trex_handle slice, uint32_t track, int64_t ts)
{
	struct trex_flow_point p = {
	    .key = {.space = l->flow_space, .num = id},
	    .name = ev->name,
	    .role = role,
	    .slice = slice,
	    .track = track,
	    .ts = ts,
	    .bind = TREX_BIND_ENCLOSING,
	    .id_unsigned = true,
	};
	if (trex_builder_flow(l->b, &p) < 0)
		l->oom = true;
}

/* pf_map has no delete: a terminated id is kept with value 0. */
static bool pl_flow_live(const struct pl_loader *l, uint64_t id)
{
	uint32_t v = pf_map_get(&l->flows, id);
	return v != PF_MAP_EMPTY && v != 0;
}

/* A flow from a runtime call's begin to the begin of device work is a
 * launch (Kineto's correlation in the JSON form): the work gets a launch
 * edge from the call too, so launch delays and launch_of work as there. */
static void pl_note_launcher(struct pl_loader *l, uint64_t id, const struct trex_pf_event *e,
                             const struct trex_ev *ev, trex_handle slice)
{
	bool launcher = e->type == TREX_PF_SLICE_BEGIN && ev->kind == TREX_KIND_RUNTIME &&
	                slice != TREX_HANDLE_NONE;
	uint32_t v = launcher ? slice + 1 : 0;

	if ((launcher || pf_map_get(&l->launchers, id) != PF_MAP_EMPTY) &&
	    !pf_map_put(&l->launchers, id, v))
		l->oom = true;
}

static void pl_launch_edge(struct pl_loader *l, uint64_t id, const struct trex_pf_event *e,
                           const struct trex_ev *ev, trex_handle slice)
{
	uint32_t v = pf_map_get(&l->launchers, id);

	if (v == PF_MAP_EMPTY || v == 0 || e->type != TREX_PF_SLICE_BEGIN ||
	    slice == TREX_HANDLE_NONE || !trex_kind_is_device_work((enum trex_kind)ev->kind))
		return;
	if (trex_builder_edge(l->b, v - 1, slice, TREX_EDGE_LAUNCH) < 0)
		l->oom = true;
}

/* An event's flow ids: the first of an id starts a flow, later ones step
 * it; a terminating id ends it (and may start again later). */
static void pl_flows(struct pl_loader *l, const struct trex_pf_event *e, const struct trex_ev *ev,
                     trex_handle slice, uint32_t track)
{
	for (size_t i = 0; i < e->n_flow_ids; i++) {
		uint64_t id = e->flow_ids[i];
		bool known = pl_flow_live(l, id);
		if (!known && !pf_map_put(&l->flows, id, 1))
			l->oom = true;
		if (known)
			pl_launch_edge(l, id, e, ev, slice);
		else
			pl_note_launcher(l, id, e, ev, slice);
		pl_flow(l, id, known ? TREX_FLOW_STEP : TREX_FLOW_START, ev, slice, track, e->ts);
	}
	for (size_t i = 0; i < e->n_terminating_flow_ids; i++) {
		uint64_t id = e->terminating_flow_ids[i];
		if (pl_flow_live(l, id)) {
			pl_launch_edge(l, id, e, ev, slice);
			if (!pf_map_put(&l->flows, id, 0) || !pf_map_put(&l->launchers, id, 0))
				l->oom = true;
		}
		pl_flow(l, id, TREX_FLOW_END, ev, slice, track, e->ts);
	}
}

static bool pl_push_open(struct pl_track *t, trex_handle h)
{
	trex_handle *v = trex_grow(t->open, &t->cap_open, t->n_open + 1, sizeof(*v), 4);
	if (!v)
		return false;
	t->open = v;
	t->open[t->n_open++] = h;
	return true;
}

#define PL_PROGRESS_BYTES (4u << 20)

static uint64_t pl_events(const struct pl_loader *l)
{
	return l->types[PL_BEGIN] + l->types[PL_END] + l->types[PL_INSTANT] + l->types[PL_COUNTER];
}

/* Reports the progress up to decoded byte offset with its disk bytes
 * (offset itself for a plain file; a gzip file's are known only at its
 * end) and events; TREX_CANCELLED when the user cancelled. */
static enum trex_status pl_report(struct pl_loader *l, uint64_t offset, uint64_t disk,
                                  struct trex_error *err)
{
	uint64_t events = pl_events(l);
	uint64_t bytes = offset > l->reported_bytes ? offset - l->reported_bytes : 0;
	uint64_t disk_bytes = disk > l->reported_disk ? disk - l->reported_disk : 0;
	uint64_t new_events = events > l->reported_events ? events - l->reported_events : 0;

	l->reported_bytes += bytes;
	l->reported_disk += disk_bytes;
	l->reported_events += new_events;
	if (trex_load_job_progress(l->job, bytes, disk_bytes, new_events))
		return trex_error_set(err, TREX_CANCELLED, trex_source_path(l->job->source), -1,
		                      "loading cancelled");
	return TREX_OK;
}

/* Every few MiB of packets: progress, and a chance to cancel. */
static enum trex_status pl_tick(struct pl_loader *l, uint64_t offset, struct trex_error *err)
{
	if (offset < l->reported_bytes + PL_PROGRESS_BYTES)
		return TREX_OK;
	return pl_report(l, offset, trex_source_is_gzip(l->job->source) ? 0 : offset, err);
}

static enum trex_status pl_on_event(void *user, const struct trex_pf_event *e,
                                    struct trex_error *err)
{
	struct pl_loader *l = user;
	struct pl_track *t = pl_track_of(l, e->track_uuid);
	struct trex_ev ev = {.ts = e->ts};
	trex_handle h = TREX_HANDLE_NONE;

	if (!t)
		return TREX_NOMEM;
	if (pl_tick(l, e->where.packet_offset, err) != TREX_OK)
		return err->status;
	if (!t->described && !t->resolved && e->track_uuid == 0)
		t->name = pl_intern(l, "events without a track");
	pl_resolve(l, t, 0);
	trex_builder_at(l->b, (int64_t)e->where.packet_offset);
	ev.name = e->name ? pl_intern(l, e->name) : 0;
	ev.cat = e->category ? pl_intern(l, e->category) : 0;
	ev.kind = (uint8_t)trex_kind_of(e->category, e->name);
	if (e->n_args &&
	    (ev.args = pl_store_args(l->codec, e->args, e->n_args)) == TREX_ARGS_NONE - 1)
		return TREX_NOMEM;
	switch (e->type) {
	case TREX_PF_SLICE_BEGIN:
		l->types[PL_BEGIN]++;
		h = trex_builder_begin(l->b, t->local, &ev);
		if (h == TREX_HANDLE_NONE || !pl_push_open(t, h))
			return TREX_NOMEM;
		break;
	case TREX_PF_SLICE_END:
		l->types[PL_END]++;
		if (trex_builder_end(l->b, t->local, &ev) < 0)
			return TREX_NOMEM;
		h = t->n_open ? t->open[--t->n_open] : TREX_HANDLE_NONE;
		break;
	case TREX_PF_INSTANT:
		l->types[PL_INSTANT]++;
		if (trex_builder_instant(l->b, t->local, &ev, TREX_SCOPE_THREAD) < 0)
			return TREX_NOMEM;
		break;
	}
	pl_flows(l, e, &ev, h, t->local);
	return l->oom ? TREX_NOMEM : TREX_OK;
}

static enum trex_status pl_on_counter(void *user, const struct trex_pf_counter *c,
                                      struct trex_error *err)
{
	struct pl_loader *l = user;
	struct pl_track *t = pl_track_of(l, c->track_uuid);

	if (!t)
		return TREX_NOMEM;
	if (pl_tick(l, c->where.packet_offset, err) != TREX_OK)
		return err->status;
	pl_resolve(l, t, 0);
	uint32_t series =
	    t->name != TREX_NONE ? t->name : pl_intern_uuid(l, "counter ", c->track_uuid);
	double v = c->is_double ? c->double_value : (double)c->int_value;
	l->types[PL_COUNTER]++;
	trex_builder_at(l->b, (int64_t)c->where.packet_offset);
	if (trex_builder_counter(l->b, t->pid_id, series, c->ts, v) < 0)
		l->oom = true;
	return l->oom ? TREX_NOMEM : TREX_OK;
}

/* ---- problems ----------------------------------------------------------------------------- */

static void pl_note(struct pl_loader *l, enum trex_integrity_counter c, const struct trex_error *e,
                    uint64_t length, uint64_t lost)
{
	struct trex_problem p = {
	    .offset = e->offset,
	    .disk_offset = -1,
	    .length = length,
	    .events_lost = lost,
	    .track = TREX_NONE,
	    .slice = TREX_NONE,
	    .name = TREX_NONE,
	    .counter = (uint8_t)c,
	};
	size_t n = strnlen(e->message, sizeof(p.what) - 1);

	memcpy(p.what, e->message, n); /* cut to fit */
	p.what[n] = '\0';
	if (trex_builder_problem(l->b, &p) < 0)
		l->oom = true;
	if (trex_integrity_is_damage(c) && l->job->file->first_problem.status == TREX_OK)
		l->job->file->first_problem = *e;
}

/* The decoder counted the problem before reporting it: the count that
 * moved says which one it is. */
static void pl_on_problem(void *user, const struct trex_error *e)
{
	struct pl_loader *l = user;
	const struct trex_pf_stats *s = l->stats;
	enum trex_integrity_counter c = TREX_INTEG_syntax_errors;

	if (s->unmatched_slice_ends != l->seen.unmatched_slice_ends)
		c = TREX_INTEG_unmatched_end;
	else if (s->skipped_events != l->seen.skipped_events)
		c = TREX_INTEG_unsupported_phase;
	else if (s->dropped_counter_values != l->seen.dropped_counter_values)
		c = TREX_INTEG_bad_values;
	l->seen = *s;
	pl_note(l, c, e, 0, 0);
}

/* The decoder's counts as the file's integrity counters. */
static void pl_integrity(struct trex_integrity *in, const struct trex_pf_stats *s)
{
	in->syntax_errors += s->corrupt_packets + s->zstd_packets;
	in->unmatched_end += s->unmatched_slice_ends;
	in->unsupported_phase += s->skipped_events;
	in->bad_values +=
	    s->unresolved_iids + s->dropped_counter_values + s->unconverted_timestamps;
	in->events_lost += s->dropped_no_state;
	in->unknown_keys += s->unknown_fields;
}

/* ---- the format --------------------------------------------------------------------------- */

static const char *const pl_type_labels[PL_TYPES][2] = {
    {"B", "slice begin"},
    {"E", "slice end"},
    {"i", "instant"},
    {"C", "counter value"},
    {"track", "track descriptor (not an event)"},
    {"other", "packets without track events (config, ftrace, samples...: not read)"},
};

static void pl_fill_file(struct pl_loader *l, const struct trex_pf_stats *s)
{
	struct trex_build_file *f = l->job->file;

	l->types[PL_OTHER] = s->packets - s->track_events - s->track_descriptors;
	if (s->packets < s->track_events + s->track_descriptors)
		l->types[PL_OTHER] = 0;
	for (int i = 0; i < PL_TYPES; i++) {
		f->event_types[i].label = pl_type_labels[i][0];
		f->event_types[i].name = pl_type_labels[i][1];
		f->event_types[i].events = l->types[i];
	}
	f->event_type_count = PL_TYPES;
	f->events =
	    l->types[PL_BEGIN] + l->types[PL_END] + l->types[PL_INSTANT] + l->types[PL_COUNTER];
	f->bytes_decoded = s->input_bytes;
	pl_integrity(&f->integrity, s);
}

/* The rest of the input after a framing error is lost: noted with its
 * length, everything before it kept. */
static void pl_cut(struct pl_loader *l, const struct trex_pf_stats *s, const struct trex_error *e)
{
	uint64_t at = e->offset > 0 ? (uint64_t)e->offset : 0;
	uint64_t rest = s->input_bytes > at ? s->input_bytes - at : 0;

	l->job->file->truncated = true;
	/* the cut packet: one event or descriptor, as far as anyone can tell */
	trex_integrity_count(&l->job->file->integrity, TREX_INTEG_bytes_ignored, rest);
	trex_integrity_count(&l->job->file->integrity, TREX_INTEG_events_lost, 1);
	pl_note(l, TREX_INTEG_bytes_ignored, e, rest, 1);
}

static void pl_free(struct pl_loader *l)
{
	for (size_t i = 0; i < l->n_tracks; i++)
		free(l->tracks[i].open);
	free(l->tracks);
	pf_map_free(&l->index);
	pf_map_free(&l->flows);
	pf_map_free(&l->launchers);
	pf_map_free(&l->awaited);
}

static enum trex_status pl_run(struct pl_loader *l, struct trex_error *err)
{
	struct trex_pf_stats stats;
	struct trex_error derr;
	struct trex_pf_sink sink = {
	    .user = l,
	    .track = pl_on_track,
	    .event = pl_on_event,
	    .counter = pl_on_counter,
	    .problem = pl_on_problem,
	};
	l->stats = &stats;
	l->global_pid = pl_intern(l, PL_GLOBAL_PID);
	l->flow_space = pl_intern(l, "flow");
	if (l->oom)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	enum trex_status s = trex_pf_decode(l->job->source, &sink, &stats, &derr);
	pl_fill_file(l, &stats);
	if (s == TREX_FORMAT && !l->oom) {
		pl_cut(l, &stats, &derr);
		s = TREX_OK;
	}
	if (l->oom || s == TREX_NOMEM)
		return trex_error_set(err, TREX_NOMEM, trex_source_path(l->job->source), -1,
		                      "out of memory while loading");
	if (s != TREX_OK) {
		*err = derr;
		return s;
	}
	return l->job->file->events == 0 && l->job->file->truncated
	           ? (*err = l->job->file->first_problem, TREX_FORMAT)
	           : TREX_OK;
}

/* Forgets what the last reading built, keeping what the descriptors
 * said, for reading the file again into builder b. */
static void pl_restart(struct pl_loader *l, struct trex_builder *b)
{
	struct trex_build_file *f = l->job->file;

	trex_builder_free(l->b);
	l->b = b;
	for (size_t i = 0; i < l->n_tracks; i++) {
		struct pl_track *t = &l->tracks[i];
		t->resolved = false;
		t->local = TREX_NONE;
		t->name = TREX_NONE; /* the old builder's string */
		t->n_open = 0;
	}
	pf_map_clear(&l->flows);
	pf_map_clear(&l->launchers);
	pf_map_clear(&l->awaited);
	l->codec->store.len = 0;
	memset(l->types, 0, sizeof(l->types));
	memset(&l->seen, 0, sizeof(l->seen));
	memset(&f->integrity, 0, sizeof(f->integrity));
	trex_error_clear(&f->first_problem);
	f->truncated = false;
	l->late_descriptor = false;
	l->global_named = false;
}

static enum trex_status pl_load(struct trex_load_job *job, struct trex_error *err)
{
	struct pl_loader l = {.job = job};

	job->file->format = "perfetto";
	job->file->dialect = "track-event";
	l.codec = calloc(1, sizeof(*l.codec));
	l.b = trex_builder_new(job->file_id);
	if (!l.codec || !l.b) {
		free(l.codec);
		trex_builder_free(l.b);
		job->file->codec_ctx = NULL; /* not a codec's: the loader closes the source */
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	l.codec->src = job->source;
	job->file->codec_ctx = l.codec;
	enum trex_status s = pl_run(&l, err);
	if (s == TREX_OK && l.late_descriptor) {
		struct trex_builder *again = trex_builder_new(job->file_id);
		if (!again) {
			s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		} else {
			pl_restart(&l, again);
			s = pl_run(&l, err);
		}
	}
	pl_free(&l);
	if (s == TREX_OK)
		s = pl_report(&l, job->file->bytes_decoded, trex_source_size_on_disk(job->source),
		              err);
	if (s == TREX_OK)
		return trex_load_job_add_part(job, 0, l.b, err);
	trex_builder_free(l.b);
	return s;
}

/* A Trace starts with its first packet: tag 0x0A, a varint length, then
 * a field tag of the packet. Text that happens to start with a newline
 * (JSON, for one) is printable throughout: not a trace. */
static int pl_sniff(const unsigned char *head, size_t len)
{
	size_t i = 1;
	uint64_t n = 0;
	bool binary = false;

	if (len < 3 || head[0] != 0x0a)
		return 0;
	for (int shift = 0; i < len && shift < 64; shift += 7) {
		n |= (uint64_t)(head[i] & 0x7f) << shift;
		if (!(head[i++] & 0x80))
			break;
	}
	if (i >= len || head[i - 1] & 0x80 || n == 0)
		return 0;
	unsigned wire = head[i] & 7;
	if ((head[i] >> 3) == 0 || (wire != 0 && wire != 1 && wire != 2 && wire != 5))
		return 0;
	for (size_t k = 0; k < len && !binary; k++)
		binary = head[k] < 0x20 ? head[k] != '\n' && head[k] != '\r' && head[k] != '\t'
		                        : head[k] >= 0x7f;
	return binary ? 90 : 0;
}

const struct trex_format trex_format_perfetto = {
    .name = "perfetto",
    .sniff = pl_sniff,
    .load = pl_load,
    .codec = &pl_codec,
};
