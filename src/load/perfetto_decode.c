/* Perfetto decoder: the Trace framing over a stream of decoded bytes, one
 * TracePacket at a time, and the records each packet becomes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "perfetto_internal.h"
#include "trex/core/grow.h"

typedef Perfetto__Protos__TracePacket pf_packet;
typedef Perfetto__Protos__TrackEvent pf_track_event;

/* Decoded bytes per stream window; a packet longer than that is carried
 * into a window that grows to hold it. */
#define PF_WINDOW (4u << 20)
/* The most one compressed_packets field may inflate to. */
#define PF_MAX_INFLATED ((size_t)1 << 30)

/* ---- varints and the framing ------------------------------------------------------- */

enum pf_varint { PF_VARINT_OK, PF_VARINT_SHORT, PF_VARINT_BAD };

/* Reads a varint at p[*pos..len); accepts redundant continuation bytes
 * (writers back-patch fixed 4-byte lengths) up to the 10 a uint64 takes. */
static enum pf_varint read_varint(const unsigned char *p, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10; i++) {
		if (*pos + i >= len)
			return PF_VARINT_SHORT;
		v |= (uint64_t)(p[*pos + i] & 0x7f) << (7 * i);
		if (!(p[*pos + i] & 0x80)) {
			*pos += i + 1;
			*out = v;
			return PF_VARINT_OK;
		}
	}
	return PF_VARINT_BAD;
}

/* One top-level field of the Trace message, as found in a window. */
struct pf_field {
	uint32_t number;
	uint32_t wire_type;
	size_t body;     /* offset of the payload in the window */
	uint64_t length; /* payload bytes (length-delimited fields) */
	uint64_t end;    /* offset after the field, possibly past the window */
};

enum pf_frame { PF_FRAME_OK, PF_FRAME_SHORT, PF_FRAME_BAD };

static enum pf_frame frame_field(const unsigned char *p, size_t len, size_t pos, struct pf_field *f,
                                 const char **what)
{
	uint64_t tag, skip;
	size_t at = pos;
	enum pf_varint v = read_varint(p, len, &at, &tag);

	*what = "a field tag";
	if (v != PF_VARINT_OK)
		return v == PF_VARINT_SHORT ? PF_FRAME_SHORT : PF_FRAME_BAD;
	f->number = (uint32_t)(tag >> 3);
	f->wire_type = (uint32_t)(tag & 7);
	f->length = 0;
	if (tag >> 3 == 0 || tag >> 32)
		return PF_FRAME_BAD;
	switch (f->wire_type) {
	case 0: /* varint */
		*what = "a varint field";
		v = read_varint(p, len, &at, &skip);
		if (v != PF_VARINT_OK)
			return v == PF_VARINT_SHORT ? PF_FRAME_SHORT : PF_FRAME_BAD;
		f->body = at;
		f->end = at;
		return PF_FRAME_OK;
	case 1: /* fixed64 */
	case 5: /* fixed32 */
		f->body = at;
		f->end = at + (f->wire_type == 1 ? 8 : 4);
		*what = "a fixed-width field";
		return f->end <= len ? PF_FRAME_OK : PF_FRAME_SHORT;
	case 2:
		*what = "a packet length";
		v = read_varint(p, len, &at, &f->length);
		if (v != PF_VARINT_OK)
			return v == PF_VARINT_SHORT ? PF_FRAME_SHORT : PF_FRAME_BAD;
		f->body = at;
		f->end = at + f->length;
		*what = "the rest of the packet";
		return f->length <= len - at ? PF_FRAME_OK : PF_FRAME_SHORT;
	default: /* groups (3, 4) and the unused 6, 7 never appear in a Trace */
		*what = "a known wire type";
		return PF_FRAME_BAD;
	}
}

/* ---- records -------------------------------------------------------------------------- */

/* A packet's bytes, and their decoded offset when they are the file's
 * (not when inflated from compressed_packets). */
struct pf_bytes {
	const unsigned char *p;
	size_t len;
	uint64_t offset;
	bool in_file;
};

static void problem(struct pf_decoder *d, const struct trex_pf_where *w, const char *what)
{
	struct trex_error e;

	if (!d->sink->problem)
		return;
	trex_error_set(&e, TREX_FORMAT, d->path, (int64_t)w->packet_offset, "packet %llu: %s",
	               (unsigned long long)w->packet_index, what);
	d->sink->problem(d->sink->user, &e);
}

static enum trex_status nomem(struct pf_decoder *d, const struct trex_pf_where *w,
                              struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, d->path, (int64_t)w->packet_offset,
	                      "out of memory decoding packet %llu",
	                      (unsigned long long)w->packet_index);
}

/* The track's state, made on first reference. */
static struct pf_track_state *track_state(struct pf_decoder *d, uint64_t uuid)
{
	uint32_t i = pf_map_get(&d->track_index, uuid);
	if (i != PF_MAP_EMPTY)
		return &d->tracks[i];
	struct pf_track_state *v =
	    trex_grow(d->tracks, &d->cap_tracks, d->n_tracks + 1, sizeof(*v), 64);
	if (!v)
		return NULL;
	d->tracks = v;
	if (d->n_tracks >= PF_MAP_EMPTY ||
	    !pf_map_put(&d->track_index, uuid, (uint32_t)d->n_tracks))
		return NULL;
	struct pf_track_state *t = &d->tracks[d->n_tracks++];
	memset(t, 0, sizeof(*t));
	t->multiplier = 1;
	return t;
}

static const char *counter_unit(const Perfetto__Protos__CounterDescriptor *c)
{
	if (c->unit_name)
		return c->unit_name;
	switch (c->unit) {
	case PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_TIME_NS:
		return "ns";
	case PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT:
		return "count";
	case PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES:
		return "bytes";
	default:
		return NULL;
	}
}

static const char *descriptor_name(const Perfetto__Protos__TrackDescriptor *td)
{
	switch (td->static_or_dynamic_name_case) {
	case PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME:
		return td->name;
	case PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_STATIC_NAME:
		return td->static_name;
	case PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_ATRACE_NAME:
		return td->atrace_name;
	default:
		break;
	}
	if (td->thread && td->thread->thread_name)
		return td->thread->thread_name;
	if (td->process && td->process->process_name)
		return td->process->process_name;
	return NULL;
}

static enum trex_status on_track_descriptor(struct pf_decoder *d, const struct trex_pf_where *w,
                                            const Perfetto__Protos__TrackDescriptor *td,
                                            struct trex_error *err)
{
	struct trex_pf_track t = {.where = *w, .uuid = td->uuid, .name = descriptor_name(td)};
	struct pf_track_state *st = track_state(d, td->uuid);

	if (!st)
		return nomem(d, w, err);
	d->stats->track_descriptors++;
	t.has_parent = td->has_parent_uuid;
	t.parent_uuid = td->parent_uuid;
	if (td->thread) {
		t.kind = TREX_PF_TRACK_THREAD;
		t.pid = td->thread->pid;
		t.tid = td->thread->tid;
	} else if (td->process) {
		t.kind = TREX_PF_TRACK_PROCESS;
		t.pid = td->process->pid;
	} else if (td->counter) {
		t.kind = TREX_PF_TRACK_COUNTER;
		t.unit = counter_unit(td->counter);
		st->counter = true;
		st->incremental = td->counter->is_incremental;
		st->multiplier = td->counter->has_unit_multiplier && td->counter->unit_multiplier
		                     ? td->counter->unit_multiplier
		                     : 1;
	}
	if (!d->sink->track)
		return TREX_OK;
	return d->sink->track(d->sink->user, &t, err);
}

static enum trex_status emit_counter(struct pf_decoder *d, struct trex_pf_counter *c,
                                     struct trex_error *err)
{
	struct pf_track_state *st = track_state(d, c->track_uuid);

	if (!st)
		return nomem(d, &c->where, err);
	if (c->is_double) {
		c->double_value *= (double)st->multiplier;
		if (st->incremental)
			c->double_value = st->double_sum += c->double_value;
	} else {
		c->int_value = (int64_t)((uint64_t)c->int_value * (uint64_t)st->multiplier);
		if (st->incremental)
			c->int_value = st->int_sum =
			    (int64_t)((uint64_t)st->int_sum + (uint64_t)c->int_value);
	}
	d->stats->counter_values++;
	return d->sink->counter ? d->sink->counter(d->sink->user, c, err) : TREX_OK;
}

/* Extra counter values: values[i] (ints, or doubles when dvalues) goes to
 * uuids[i]; values without a track are dropped and counted. */
static enum trex_status extra_counters(struct pf_decoder *d, const struct trex_pf_where *w,
                                       int64_t ts, const uint64_t *uuids, size_t n_uuids,
                                       const int64_t *values, const double *dvalues, size_t n,
                                       struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	if (n > n_uuids) {
		d->stats->dropped_counter_values += n - n_uuids;
		problem(d, w, "more extra counter values than extra counter tracks (dropped)");
	}
	for (size_t i = 0; st == TREX_OK && i < n && i < n_uuids; i++) {
		struct trex_pf_counter c = {.where = *w, .track_uuid = uuids[i], .ts = ts};
		c.is_double = dvalues != NULL;
		if (dvalues)
			c.double_value = dvalues[i];
		else
			c.int_value = values[i];
		st = emit_counter(d, &c, err);
	}
	return st;
}

/* The event's own counter value (TYPE_COUNTER) and its extra values, each
 * on its track (from the event, else the sequence's defaults). */
static enum trex_status on_counters(struct pf_decoder *d, struct pf_seq *s,
                                    const struct trex_pf_where *w, const pf_track_event *te,
                                    uint64_t track, int64_t ts, struct trex_error *err)
{
	enum trex_status st = TREX_OK;
	bool own_ints = te->n_extra_counter_track_uuids > 0;
	bool own_doubles = te->n_extra_double_counter_track_uuids > 0;

	if (te->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER &&
	    te->counter_value_field_case !=
	        PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD__NOT_SET) {
		struct trex_pf_counter c = {.where = *w, .track_uuid = track, .ts = ts};
		c.is_double =
		    te->counter_value_field_case ==
		    PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
		c.int_value = te->counter_value;
		c.double_value = te->double_counter_value;
		st = emit_counter(d, &c, err);
	}
	if (st == TREX_OK && te->n_extra_counter_values)
		st = extra_counters(
		    d, w, ts, own_ints ? te->extra_counter_track_uuids : s->extra_counter_uuids,
		    own_ints ? te->n_extra_counter_track_uuids : s->n_extra_counter_uuids,
		    te->extra_counter_values, NULL, te->n_extra_counter_values, err);
	if (st == TREX_OK && te->n_extra_double_counter_values)
		st = extra_counters(d, w, ts,
		                    own_doubles ? te->extra_double_counter_track_uuids
		                                : s->extra_double_counter_uuids,
		                    own_doubles ? te->n_extra_double_counter_track_uuids
		                                : s->n_extra_double_counter_uuids,
		                    NULL, te->extra_double_counter_values,
		                    te->n_extra_double_counter_values, err);
	return st;
}

/* Name and categories, inline or interned, into d->scratch; offsets out
 * (SIZE_MAX: none). Returns false when out of memory. */
static bool event_strings(struct pf_decoder *d, struct pf_seq *s, const pf_track_event *te,
                          size_t *name_off, size_t *cat_off)
{
	const char *name = NULL;

	*name_off = *cat_off = SIZE_MAX;
	if (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME) {
		name = te->name;
	} else if (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID) {
		name = pf_dict_get(&s->names, te->name_iid);
		if (!name)
			d->stats->unresolved_iids++;
	}
	if (name) {
		*name_off = d->scratch.len;
		if (!pf_text_append(&d->scratch, name, strlen(name) + 1))
			return false;
	}
	size_t n_cats = te->n_categories + te->n_category_iids;
	if (!n_cats)
		return true;
	*cat_off = d->scratch.len;
	for (size_t i = 0; i < n_cats; i++) {
		const char *cat =
		    i < te->n_categories
		        ? te->categories[i]
		        : pf_dict_get(&s->categories, te->category_iids[i - te->n_categories]);
		if (!cat) {
			d->stats->unresolved_iids++;
			continue;
		}
		if ((d->scratch.len > *cat_off && !pf_text_append(&d->scratch, ",", 1)) ||
		    !pf_text_append(&d->scratch, cat, strlen(cat)))
			return false;
	}
	if (d->scratch.len == *cat_off) /* none resolved */
		*cat_off = SIZE_MAX;
	return pf_text_append(&d->scratch, "", 1);
}

/* Copies n ids to dst (an absent repeated field is NULL with n 0, which
 * memcpy may not be given); returns the end. */
static uint64_t *put_ids(uint64_t *dst, const uint64_t *src, size_t n)
{
	if (n)
		memcpy(dst, src, n * sizeof(*dst));
	return dst + n;
}

/* flow_ids then flow_ids_old, then the terminating ones, into d->flows. */
static bool event_flows(struct pf_decoder *d, const pf_track_event *te, struct trex_pf_event *ev)
{
	size_t n_flow = te->n_flow_ids + te->n_flow_ids_old;
	size_t n_term = te->n_terminating_flow_ids + te->n_terminating_flow_ids_old;

	if (!(n_flow + n_term))
		return true;
	uint64_t *v = trex_grow(d->flows, &d->cap_flows, n_flow + n_term, sizeof(*v), 8);
	if (!v)
		return false;
	d->flows = v;
	v = put_ids(v, te->flow_ids, te->n_flow_ids);
	v = put_ids(v, te->flow_ids_old, te->n_flow_ids_old);
	v = put_ids(v, te->terminating_flow_ids, te->n_terminating_flow_ids);
	put_ids(v, te->terminating_flow_ids_old, te->n_terminating_flow_ids_old);
	ev->flow_ids = d->flows;
	ev->n_flow_ids = n_flow;
	ev->terminating_flow_ids = d->flows + n_flow;
	ev->n_terminating_flow_ids = n_term;
	return true;
}

/* Keeps the per-track stack of open slices: an END with nothing open on
 * its track is dropped and counted. Returns whether to emit. */
static bool slice_balance(struct pf_decoder *d, struct pf_track_state *t,
                          const struct trex_pf_where *w, enum trex_pf_event_type type)
{
	switch (type) {
	case TREX_PF_SLICE_BEGIN:
		d->stats->slice_begins++;
		t->open++;
		return true;
	case TREX_PF_SLICE_END:
		if (!t->open) {
			d->stats->unmatched_slice_ends++;
			problem(d, w, "slice end with no open slice on its track (dropped)");
			return false;
		}
		d->stats->slice_ends++;
		t->open--;
		return true;
	case TREX_PF_INSTANT:
		d->stats->instants++;
		return true;
	}
	return false;
}

static enum trex_status on_slice(struct pf_decoder *d, struct pf_seq *s, struct trex_pf_event *ev,
                                 const pf_track_event *te, struct trex_error *err)
{
	struct pf_track_state *t = track_state(d, ev->track_uuid);
	size_t name_off, cat_off;
	bool interned = false;

	if (!t)
		return nomem(d, &ev->where, err);
	if (!slice_balance(d, t, &ev->where, ev->type))
		return TREX_OK;
	d->scratch.len = 0;
	if (!event_strings(d, s, te, &name_off, &cat_off) || !event_flows(d, te, ev))
		return nomem(d, &ev->where, err);
	int64_t n_args =
	    pf_args_collect(d, s, te->debug_annotations, te->n_debug_annotations, &interned);
	if (n_args < 0)
		return nomem(d, &ev->where, err);
	pf_args_finish(d, (size_t)n_args);
	ev->name = name_off == SIZE_MAX ? NULL : d->scratch.buf + name_off;
	ev->category = cat_off == SIZE_MAX ? NULL : d->scratch.buf + cat_off;
	ev->args = d->args;
	ev->n_args = (size_t)n_args;
	ev->args_interned = interned;
	d->stats->debug_annotations += (uint64_t)n_args;
	return d->sink->event ? d->sink->event(d->sink->user, ev, err) : TREX_OK;
}

/* The packet's clock: its own, else the sequence's default, else the
 * trace's. */
static int64_t packet_time(struct pf_decoder *d, struct pf_seq *s, const pf_packet *p)
{
	uint32_t clock = p->has_timestamp_clock_id ? p->timestamp_clock_id
	                 : s->has_clock_default    ? s->clock_default
	                                           : d->stats->trace_clock;
	bool converted;
	int64_t ts = pf_clock_to_trace(d, s, clock, p->timestamp, &converted);

	if (!converted)
		d->stats->unconverted_timestamps++;
	return ts;
}

/* Where the packet's TrackEvent (field 11) lies in its bytes; false when
 * it is not there once (a repeated message field is merged from pieces). */
static bool find_track_event(const unsigned char *bytes, size_t len, size_t *at, uint32_t *n)
{
	size_t pos = 0, found = 0;
	struct pf_field f;
	const char *what;

	while (pos < len && frame_field(bytes, len, pos, &f, &what) == PF_FRAME_OK) {
		if (f.number == 11 && f.wire_type == 2) {
			*at = f.body;
			*n = f.length <= UINT32_MAX ? (uint32_t)f.length : 0;
			found++;
		}
		pos = f.end;
	}
	return found == 1 && pos == len;
}

static enum trex_status on_track_event(struct pf_decoder *d, struct pf_seq *s,
                                       const struct trex_pf_where *w, const pf_packet *p,
                                       const struct pf_bytes *raw, struct trex_error *err)
{
	const pf_track_event *te = p->track_event;
	struct trex_pf_event ev = {.where = *w, .sequence_id = s->id};
	enum trex_status st;

	d->stats->track_events++;
	ev.track_uuid = te->has_track_uuid     ? te->track_uuid
	                : s->has_track_default ? s->track_default
	                                       : 0;
	ev.ts = packet_time(d, s, p);
	size_t at = 0;
	if (raw->in_file && find_track_event(raw->p, raw->len, &at, &ev.event_length))
		ev.event_offset = raw->offset + at;
	switch (te->type) {
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END:
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT:
		ev.type = (enum trex_pf_event_type)te->type;
		st = on_slice(d, s, &ev, te, err);
		break;
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER:
		st = TREX_OK;
		break;
	default:
		d->stats->skipped_events++;
		problem(d, w, "track event of a type this reader does not know (skipped)");
		return TREX_OK;
	}
	if (st != TREX_OK)
		return st;
	return on_counters(d, s, w, te, ev.track_uuid, ev.ts, err);
}

/* ---- packets -------------------------------------------------------------------------- */

/* protobuf-c allocates every string and sub-message of a packet: they come
 * from blocks that are kept and reused, and the whole packet is let go at
 * once (free is a no-op), which is what a packet-at-a-time reader needs. */
#define PF_BLOCK ((size_t)64 << 10)

struct pf_block {
	struct pf_block *next;
	size_t cap, used;
	max_align_t data[];
};

static void *arena_alloc(void *ctx, size_t size)
{
	struct pf_block **head = ctx, *b = *head;

	if (size > SIZE_MAX - sizeof(*b) - sizeof(max_align_t))
		return NULL;
	size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!b || b->cap - b->used < size) {
		size_t cap = size > PF_BLOCK ? size : PF_BLOCK;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = *head;
		b->cap = cap;
		b->used = 0;
		*head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	return p;
}

static void arena_free(void *ctx, void *p)
{
	(void)ctx;
	(void)p;
}

/* Forgets a packet's allocations, keeping one ordinary block for the next. */
static void arena_reset(struct pf_block **head)
{
	struct pf_block *keep = NULL;

	for (struct pf_block *b = *head, *next; b; b = next) {
		next = b->next;
		if (!keep && b->cap == PF_BLOCK) {
			keep = b;
			continue;
		}
		free(b);
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	*head = keep;
}

static enum trex_status walk(struct pf_decoder *d, const unsigned char *p, size_t len,
                             uint64_t base, const struct trex_pf_where *outer, uint64_t *index,
                             size_t *consumed, struct trex_error *err);

/* Inflates compressed_packets (zlib or gzip) and decodes the packets in it. */
static enum trex_status on_compressed(struct pf_decoder *d, const struct trex_pf_where *w,
                                      const ProtobufCBinaryData *bytes, struct trex_error *err)
{
	uint64_t inner = 0;
	z_stream z = {0};
	struct pf_text out = {0};
	enum trex_status st = TREX_OK;
	int rc = Z_OK;
	size_t consumed;

	if (d->depth >= PF_MAX_NESTING) {
		problem(d, w, "compressed packets nested too deep (skipped)");
		return TREX_OK;
	}
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return nomem(d, w, err);
	z.next_in = bytes->data;
	z.avail_in = (uInt)bytes->len;
	while (rc == Z_OK && out.len < PF_MAX_INFLATED) {
		if (!pf_text_reserve(&out, 1 << 16)) {
			st = nomem(d, w, err);
			break;
		}
		z.next_out = (Bytef *)out.buf + out.len;
		z.avail_out = (uInt)(out.cap - out.len - 1);
		rc = inflate(&z, Z_NO_FLUSH);
		out.len = (size_t)((char *)z.next_out - out.buf);
		if (rc == Z_BUF_ERROR && z.avail_in == 0)
			break;
	}
	inflateEnd(&z);
	if (st == TREX_OK && rc != Z_STREAM_END) {
		d->stats->corrupt_packets++;
		problem(d, w, "compressed packets do not inflate completely (the rest is lost)");
	}
	d->stats->compressed_packets++;
	d->depth++;
	if (st == TREX_OK)
		st = walk(d, (const unsigned char *)out.buf, out.len, 0, w, &inner, &consumed, err);
	d->depth--;
	if (st == TREX_OK && consumed < out.len)
		problem(d, w, "compressed packets end inside a packet (the rest is lost)");
	pf_text_free(&out);
	/* a framing error inside one compressed field is that field's damage */
	if (st == TREX_FORMAT) {
		problem(d, w, err->message);
		st = TREX_OK;
	}
	return st;
}

/* The sequence bookkeeping a packet asks for, before its payload; returns
 * false when the packet must be dropped (its incremental state is gone). */
static bool packet_sequence(struct pf_decoder *d, struct pf_seq *s, const pf_packet *p)
{
	if (p->has_previous_packet_dropped && p->previous_packet_dropped) {
		d->stats->loss_reports++;
		s->state_valid = false;
	}
	if ((p->sequence_flags & PF_SEQ_INCREMENTAL_STATE_CLEARED) ||
	    (p->has_incremental_state_cleared && p->incremental_state_cleared)) {
		pf_seq_clear(s);
		s->state_valid = true;
	}
	if ((p->sequence_flags & PF_SEQ_NEEDS_INCREMENTAL_STATE) && !s->state_valid) {
		d->stats->dropped_no_state++;
		return false;
	}
	return true;
}

static enum trex_status on_payload(struct pf_decoder *d, struct pf_seq *s,
                                   const struct trex_pf_where *w, const pf_packet *p,
                                   const struct pf_bytes *raw, struct trex_error *err)
{
	switch (p->data_case) {
	case PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT:
		pf_clock_snapshot(d, s, p->clock_snapshot);
		return TREX_OK;
	case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR:
		return on_track_descriptor(d, w, p->track_descriptor, err);
	case PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT:
		return on_track_event(d, s, w, p, raw, err);
	case PERFETTO__PROTOS__TRACE_PACKET__DATA_COMPRESSED_PACKETS:
		return on_compressed(d, w, &p->compressed_packets, err);
	case PERFETTO__PROTOS__TRACE_PACKET__DATA_ZSTD_COMPRESSED_PACKETS:
		d->stats->zstd_packets++;
		problem(d, w, "zstd-compressed packets cannot be read (skipped)");
		return TREX_OK;
	default:
		return TREX_OK;
	}
}

/* One TracePacket. */
static enum trex_status on_packet(struct pf_decoder *d, const struct pf_bytes *raw,
                                  const struct trex_pf_where *w, struct trex_error *err)
{
	ProtobufCAllocator alloc = {arena_alloc, arena_free, &d->blocks[d->depth]};
	pf_packet *p = perfetto__protos__trace_packet__unpack(&alloc, raw->len, raw->p);
	enum trex_status st = TREX_OK;

	d->stats->packets++;
	if (!p) {
		arena_reset(&d->blocks[d->depth]);
		d->stats->corrupt_packets++;
		problem(d, w, "does not decode as a TracePacket (skipped)");
		return TREX_OK;
	}
	uint64_t unknown = pf_unknown_fields(d, &p->base);
	d->stats->unknown_fields += unknown;
	d->stats->packets_with_unknown_fields += unknown > 0;
	struct pf_seq *s = pf_seq_get(d, p->trusted_packet_sequence_id);
	if (!s) {
		st = nomem(d, w, err);
	} else if (packet_sequence(d, s, p)) {
		if (p->interned_data) {
			int64_t added = pf_seq_intern(s, p->interned_data);
			d->stats->interned_entries += added > 0 ? (uint64_t)added : 0;
			if (added < 0)
				st = nomem(d, w, err);
		}
		if (st == TREX_OK && p->trace_packet_defaults &&
		    !pf_seq_set_defaults(s, p->trace_packet_defaults))
			st = nomem(d, w, err);
		if (st == TREX_OK)
			st = on_payload(d, s, w, p, raw, err);
	}
	arena_reset(&d->blocks[d->depth]);
	return st;
}

/* Decodes the complete fields of p[0..len) (base: the decoded offset of
 * p[0]; outer: the enclosing packet, NULL at top level). *consumed: bytes
 * of whole fields; the rest is an incomplete field for the caller to
 * carry. TREX_FORMAT for a malformed field. */
static enum trex_status walk(struct pf_decoder *d, const unsigned char *p, size_t len,
                             uint64_t base, const struct trex_pf_where *outer, uint64_t *index,
                             size_t *consumed, struct trex_error *err)
{
	size_t pos = 0;
	enum trex_status st = TREX_OK;

	while (st == TREX_OK && pos < len) {
		struct pf_field f;
		const char *what;
		struct trex_pf_where w = {base + pos, *index};
		enum pf_frame fr = frame_field(p, len, pos, &f, &what);
		if (outer)
			w = *outer;
		if (fr == PF_FRAME_SHORT)
			break;
		if (fr == PF_FRAME_BAD) {
			*consumed = pos;
			return trex_error_set(err, TREX_FORMAT, d->path, (int64_t)(base + pos),
			                      "packet %llu: expected %s, found corrupt bytes",
			                      (unsigned long long)*index, what);
		}
		if (f.number == 1 && f.wire_type == 2) {
			struct pf_bytes raw = {p + f.body, f.length, base + f.body, !outer};
			(*index)++;
			st = on_packet(d, &raw, &w, err);
		} else {
			d->stats->other_top_level_fields++;
		}
		pos = f.end;
	}
	*consumed = pos;
	return st;
}

/* ---- the stream ---------------------------------------------------------------------- */

/* Why the bytes left at the end are not a packet, as a positioned error. */
static enum trex_status truncation(struct pf_decoder *d, const unsigned char *p, size_t len,
                                   uint64_t offset, uint64_t index, struct trex_error *err)
{
	struct pf_field f;
	const char *what;

	d->stats->truncated = 1;
	if (frame_field(p, len, 0, &f, &what) == PF_FRAME_SHORT && f.wire_type == 2 &&
	    f.length > 0 && f.body <= len)
		return trex_error_set(err, TREX_FORMAT, d->path, (int64_t)offset,
		                      "truncated: packet %llu declares %llu bytes, %zu remain",
		                      (unsigned long long)index, (unsigned long long)f.length,
		                      len - f.body);
	return trex_error_set(err, TREX_FORMAT, d->path, (int64_t)offset,
	                      "truncated: packet %llu: expected %s, the input ends",
	                      (unsigned long long)index, what);
}

static void decoder_free(struct pf_decoder *d)
{
	pf_seqs_free(d);
	pf_map_free(&d->track_index);
	free(d->tracks);
	for (int i = 0; i <= PF_MAX_NESTING; i++) {
		arena_reset(&d->blocks[i]);
		free(d->blocks[i]);
	}
	pf_text_free(&d->scratch);
	free(d->flows);
	free(d->args);
	pf_msg_fields_free(d);
}

static void count_unfinished(struct pf_decoder *d)
{
	for (size_t i = 0; i < d->n_tracks; i++)
		d->stats->unfinished_slices += d->tracks[i].open;
}

static enum trex_status decode_stream(struct pf_decoder *d, struct trex_stream *stream,
                                      struct trex_error *err)
{
	size_t carry = 0, consumed;
	uint64_t index = 0;
	bool gzip_cut = false; /* said by the window that reached the end */

	for (;;) {
		const char *data;
		size_t len;
		uint64_t offset;
		bool truncated = false;
		enum trex_status st =
		    trex_stream_next(stream, carry, &data, &len, &offset, &truncated, err);
		if (st != TREX_OK)
			return st;
		gzip_cut = gzip_cut || truncated;
		d->stats->input_bytes = offset + len;
		const unsigned char *p = (const unsigned char *)data;
		if (len == carry) {
			d->stats->bytes = offset + len - carry;
			if (carry)
				return truncation(d, p, len, offset, index, err);
			if (gzip_cut) {
				d->stats->truncated = 1;
				return trex_error_set(
				    err, TREX_FORMAT, d->path, (int64_t)offset,
				    "truncated: the gzip stream ends early, after packet %llu",
				    (unsigned long long)index);
			}
			return TREX_OK;
		}
		st = walk(d, p, len, offset, NULL, &index, &consumed, err);
		d->stats->bytes = offset + consumed;
		if (st != TREX_OK)
			return st;
		carry = len - consumed;
	}
}

enum trex_status trex_pf_decode(struct trex_source *src, const struct trex_pf_sink *sink,
                                struct trex_pf_stats *stats, struct trex_error *err)
{
	struct pf_decoder d = {.sink = sink, .stats = stats, .path = trex_source_path(src)};
	struct trex_stream *stream = NULL;
	enum trex_status st;

	memset(stats, 0, sizeof(*stats));
	stats->trace_clock = PF_CLOCK_BOOTTIME;
	trex_error_clear(err);
	st = trex_stream_open(src, PF_WINDOW, TREX_STREAM_INLINE, &stream, err);
	if (st == TREX_OK)
		st = decode_stream(&d, stream, err);
	count_unfinished(&d);
	trex_stream_close(stream);
	decoder_free(&d);
	return st;
}

enum trex_status trex_pf_decode_buffer(const char *name, const void *data, size_t len,
                                       const struct trex_pf_sink *sink, struct trex_pf_stats *stats,
                                       struct trex_error *err)
{
	struct trex_source *src = NULL;
	enum trex_status st = trex_source_open_memory(name, data, len, false, &src, err);

	if (st != TREX_OK) {
		memset(stats, 0, sizeof(*stats));
		return st;
	}
	st = trex_pf_decode(src, sink, stats, err);
	trex_source_close(src);
	return st;
}

enum trex_status trex_pf_event_args(const char *name, uint64_t offset, const void *bytes,
                                    size_t len, trex_pf_args_fn *fn, void *user,
                                    struct trex_error *err)
{
	struct trex_pf_stats stats = {0};
	struct pf_decoder d = {.stats = &stats, .path = name};
	ProtobufCAllocator alloc = {arena_alloc, arena_free, &d.blocks[0]};
	pf_track_event *te = perfetto__protos__track_event__unpack(&alloc, len, bytes);
	struct pf_seq *s = te ? pf_seq_get(&d, 0) : NULL; /* empty dictionaries */
	enum trex_status st;
	bool interned;

	if (!te)
		st = trex_error_set(err, TREX_FORMAT, name, (int64_t)offset,
		                    "expected a TrackEvent's %zu bytes, found corrupt ones", len);
	else if (!s)
		st = trex_error_set(err, TREX_NOMEM, name, (int64_t)offset, "out of memory");
	else {
		int64_t n = pf_args_collect(&d, s, te->debug_annotations, te->n_debug_annotations,
		                            &interned);
		if (n < 0) {
			st =
			    trex_error_set(err, TREX_NOMEM, name, (int64_t)offset, "out of memory");
		} else {
			pf_args_finish(&d, (size_t)n);
			st = fn(user, d.args, (size_t)n, err);
		}
	}
	decoder_free(&d);
	return st;
}
