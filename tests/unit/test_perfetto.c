/* The Perfetto protobuf decoder on hand-made traces (packets written with
 * protobuf-c's pack functions, framing edge cases as raw bytes) and on the
 * corpus perfetto/ files, whose counts are MANIFEST.md's (counted there
 * with protoc's own decoder). tests/e2e/perfetto.sh compares every record
 * of the corpus files with tests/e2e/perfetto.py. */
#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "perfetto_decode.h"
#include "perfetto_trace.pb-c.h"
#include "trex/core/kind.h"
#include "trex/load/loader.h"

/* protobuf-c's strings are char *; the literals given to them are never
 * written through. */
#define S(lit) ((char *)(uintptr_t)(lit))

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent Event;
typedef Perfetto__Protos__TrackDescriptor Track;
typedef Perfetto__Protos__DebugAnnotation Ann;

/* ---- a sink that keeps everything ---------------------------------------------------- */

#define MAX_RECORDS 64

struct rec {
	char kind; /* 'T' track, 'B' 'E' 'I' event, 'C' counter */
	struct trex_pf_where where;
	uint64_t track;
	int64_t ts;
	uint64_t parent;
	bool has_parent;
	enum trex_pf_track_kind track_kind;
	int32_t pid;
	int64_t tid;
	char name[64], category[64], unit[16], args[512];
	uint64_t flows[4], terms[4];
	size_t n_flows, n_terms;
	uint64_t event_offset;
	uint32_t event_length;
	bool interned, is_double;
	int64_t ivalue;
	double dvalue;
};

struct sink {
	struct rec r[MAX_RECORDS];
	struct rec overflow; /* records past MAX_RECORDS (the corpus) land here */
	size_t n;
	struct trex_error problems[8];
	size_t n_problems;
	struct trex_pf_stats stats;
	struct trex_error err;
	enum trex_status status;
};

static struct rec *next(struct sink *s, char kind, const struct trex_pf_where *w)
{
	struct rec *r = s->n < MAX_RECORDS ? &s->r[s->n] : &s->overflow;
	s->n++;
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->where = *w;
	return r;
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "(null)");
}

static enum trex_status on_track(void *user, const struct trex_pf_track *t, struct trex_error *e)
{
	struct rec *r = next(user, 'T', &t->where);

	(void)e;
	r->track = t->uuid;
	r->parent = t->parent_uuid;
	r->has_parent = t->has_parent;
	r->track_kind = t->kind;
	r->pid = t->pid;
	r->tid = t->tid;
	copy(r->name, sizeof(r->name), t->name);
	copy(r->unit, sizeof(r->unit), t->unit);
	return TREX_OK;
}

static enum trex_status on_event(void *user, const struct trex_pf_event *ev, struct trex_error *e)
{
	struct rec *r = next(user, "?BEI"[ev->type], &ev -> where);
	size_t len = 0;

	(void)e;
	r->track = ev->track_uuid;
	r->ts = ev->ts;
	copy(r->name, sizeof(r->name), ev->name);
	copy(r->category, sizeof(r->category), ev->category);
	for (size_t i = 0; i < ev->n_args; i++)
		len += (size_t)snprintf(r->args + len, sizeof(r->args) - len, "%s%s=%s",
		                        i ? ";" : "", ev->args[i].key, ev->args[i].value);
	r->n_flows = ev->n_flow_ids < 4 ? ev->n_flow_ids : 4;
	for (size_t i = 0; i < r->n_flows; i++)
		r->flows[i] = ev->flow_ids[i];
	r->n_terms = ev->n_terminating_flow_ids < 4 ? ev->n_terminating_flow_ids : 4;
	for (size_t i = 0; i < r->n_terms; i++)
		r->terms[i] = ev->terminating_flow_ids[i];
	r->event_offset = ev->event_offset;
	r->event_length = ev->event_length;
	r->interned = ev->args_interned;
	return TREX_OK;
}

static enum trex_status on_counter(void *user, const struct trex_pf_counter *c,
                                   struct trex_error *e)
{
	struct rec *r = next(user, 'C', &c->where);

	(void)e;
	r->track = c->track_uuid;
	r->ts = c->ts;
	r->is_double = c->is_double;
	r->ivalue = c->int_value;
	r->dvalue = c->double_value;
	return TREX_OK;
}

static void on_problem(void *user, const struct trex_error *p)
{
	struct sink *s = user;

	if (s->n_problems < 8)
		s->problems[s->n_problems] = *p;
	s->n_problems++;
}

static struct sink *decode(const void *data, size_t len)
{
	struct sink *s = calloc(1, sizeof(*s));
	struct trex_pf_sink sink = {s, on_track, on_event, on_counter, on_problem};

	cr_assert_not_null(s);
	s->status = trex_pf_decode_buffer("t.pftrace", data, len, &sink, &s->stats, &s->err);
	return s;
}

/* ---- writing traces -------------------------------------------------------------------- */

struct trace {
	unsigned char *buf;
	size_t len, cap;
	uint64_t offsets[32]; /* where each packet starts */
	size_t n;
};

static void put_bytes(struct trace *t, const void *p, size_t n)
{
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2 + 64;
		t->buf = realloc(t->buf, t->cap);
		cr_assert_not_null(t->buf);
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

static void put_varint(struct trace *t, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	put_bytes(t, b, n);
}

static void add(struct trace *t, const Packet *p)
{
	size_t n = perfetto__protos__trace_packet__get_packed_size(p);
	unsigned char *b = malloc(n + 1);

	cr_assert_not_null(b);
	perfetto__protos__trace_packet__pack(p, b);
	if (t->n < 32)
		t->offsets[t->n++] = t->len;
	put_bytes(t, "\x0a", 1);
	put_varint(t, n);
	put_bytes(t, b, n);
	free(b);
}

static Packet packet(uint32_t seq, uint64_t ts)
{
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	if (seq) {
		p.optional_trusted_packet_sequence_id_case =
		    PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
		p.trusted_packet_sequence_id = seq;
	}
	p.has_timestamp = ts != 0;
	p.timestamp = ts;
	return p;
}

static void add_event(struct trace *t, uint32_t seq, uint64_t ts, Event *e)
{
	Packet p = packet(seq, ts);

	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = e;
	add(t, &p);
}

static Event event(int type, uint64_t track, const char *name)
{
	Event e = PERFETTO__PROTOS__TRACK_EVENT__INIT;

	e.has_type = true;
	e.type = type;
	e.has_track_uuid = track != 0;
	e.track_uuid = track;
	if (name) {
		e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
		e.name = S(name);
	}
	return e;
}

static void add_track(struct trace *t, Track *td)
{
	Packet p = packet(0, 0);

	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = td;
	add(t, &p);
}

static Track track(uint64_t uuid, uint64_t parent, const char *name)
{
	Track td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;

	td.has_uuid = true;
	td.uuid = uuid;
	td.has_parent_uuid = parent != 0;
	td.parent_uuid = parent;
	if (name) {
		td.static_or_dynamic_name_case =
		    PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
		td.name = S(name);
	}
	return td;
}

static Ann named(const char *name)
{
	Ann a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;

	a.name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
	a.name = S(name);
	return a;
}

#define BEGIN PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define END PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END
#define INSTANT PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
#define COUNTER PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER

/* ---- framing ------------------------------------------------------------------------------ */

Test(perfetto, empty_input_is_a_trace_with_nothing)
{
	struct sink *s = decode("", 0);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->stats.packets, 0);
	cr_assert_eq(s->n, 0);
	free(s);
}

/* SDK writers back-patch a fixed 4-byte length: 0x82 0x80 0x80 0x00 is 2. */
Test(perfetto, redundant_varint_bytes_and_other_top_level_fields)
{
	static const unsigned char raw[] = {
	    0x0a, 0x82, 0x80, 0x80, 0x00, 0x50, 0x07,       /* packet {seq 7} */
	    0x10, 0x05,                                     /* Trace field 2, varint: skipped */
	    0x19, 1,    2,    3,    4,    5,    6,    7, 8, /* field 3, fixed64: skipped */
	    0x0a, 0x00,                                     /* an empty packet */
	};
	struct sink *s = decode(raw, sizeof(raw));

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->stats.packets, 2);
	cr_assert_eq(s->stats.other_top_level_fields, 2);
	cr_assert_eq(s->stats.bytes, sizeof(raw));
	free(s);
}

Test(perfetto, truncated_packet_keeps_the_complete_ones_and_says_where)
{
	struct trace t = {0};
	Event e = event(INSTANT, 5, "first");

	add_event(&t, 1, 100, &e);
	size_t cut_at = t.len;
	put_bytes(&t, "\x0a\x10\x50", 3); /* declares 16 bytes, 1 follows */
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_FORMAT);
	cr_assert_eq(s->err.offset, (int64_t)cut_at);
	cr_assert_str_eq(s->err.path, "t.pftrace");
	cr_assert(strstr(s->err.message, "truncated: packet 1 declares 16 bytes, 1 remain"), "%s",
	          s->err.message);
	cr_assert_eq(s->stats.truncated, 1);
	cr_assert_eq(s->stats.packets, 1);
	cr_assert_eq(s->n, 1);
	cr_assert_str_eq(s->r[0].name, "first");
	free(s);
	free(t.buf);
}

Test(perfetto, truncated_inside_the_length_varint)
{
	struct sink *s = decode("\x0a\x00\x0a\x80", 4);

	cr_assert_eq(s->status, TREX_FORMAT);
	cr_assert_eq(s->err.offset, 2);
	cr_assert(strstr(s->err.message, "packet 1: expected a packet length"), "%s",
	          s->err.message);
	cr_assert_eq(s->stats.packets, 1);
	free(s);
}

Test(perfetto, bad_wire_type_is_a_positioned_format_error)
{
	struct sink *s = decode("\x0a\x00\x0b\x00", 4); /* field 1 as a group start */

	cr_assert_eq(s->status, TREX_FORMAT);
	cr_assert_eq(s->err.offset, 2);
	cr_assert(strstr(s->err.message, "packet 1: expected a known wire type"), "%s",
	          s->err.message);
	cr_assert_eq(s->stats.truncated, 0);
	free(s);
}

/* A packet whose inside does not decode is skipped, counted and reported;
 * the packets around it are read. */
Test(perfetto, corrupt_packet_is_skipped_and_reported)
{
	struct trace t = {0};
	Event e = event(INSTANT, 5, "after");

	put_bytes(&t, "\x0a\x03\x5a\x05\x08", 5); /* track_event of 5 bytes in a 3-byte packet */
	add_event(&t, 1, 100, &e);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->stats.corrupt_packets, 1);
	cr_assert_eq(s->n_problems, 1);
	cr_assert_eq(s->problems[0].offset, 0);
	cr_assert(strstr(s->problems[0].message, "packet 0: does not decode"), "%s",
	          s->problems[0].message);
	cr_assert_eq(s->n, 1);
	cr_assert_str_eq(s->r[0].name, "after");
	free(s);
	free(t.buf);
}

/* ---- tracks and slices ------------------------------------------------------------------------
 */

Test(perfetto, tracks_slices_and_instants)
{
	struct trace t = {0};
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	Track proc = track(1, 0, NULL), thr = track(2, 1, NULL), gpu = track(3, 1, "stream 7");
	char *cats[] = {S("cuda"), S("kernel")};
	Event outer = event(BEGIN, 2, "outer"), inner = event(BEGIN, 2, "inner");
	Event end = event(END, 2, NULL), inst = event(INSTANT, 3, "mark"),
	      stray = event(END, 3, NULL);

	pd.has_pid = thd.has_pid = thd.has_tid = true;
	pd.pid = thd.pid = 42;
	thd.tid = 4200000000LL; /* past int32: tid is int64 since 2026 */
	pd.process_name = S("train.py");
	thd.thread_name = S("main");
	proc.process = &pd;
	thr.thread = &thd;
	inner.n_categories = 2;
	inner.categories = cats;
	add_track(&t, &proc);
	add_track(&t, &thr);
	add_track(&t, &gpu);
	add_event(&t, 1, 1000, &outer);
	add_event(&t, 1, 1100, &inner);
	add_event(&t, 1, 1200, &end);
	add_event(&t, 1, 1300, &inst);
	add_event(&t, 1, 1350, &stray);
	add_event(&t, 1, 1400, &end);
	add_event(&t, 1, 1500, &outer); /* never ends */
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 9);
	cr_assert_eq(s->r[0].track_kind, TREX_PF_TRACK_PROCESS);
	cr_assert_eq(s->r[0].pid, 42);
	cr_assert_str_eq(s->r[0].name, "train.py");
	cr_assert_eq(s->r[1].track_kind, TREX_PF_TRACK_THREAD);
	cr_assert_eq(s->r[1].tid, 4200000000LL);
	cr_assert(s->r[1].has_parent && s->r[1].parent == 1);
	cr_assert_str_eq(s->r[1].name, "main");
	cr_assert_eq(s->r[2].track_kind, TREX_PF_TRACK_NAMED);
	cr_assert_str_eq(s->r[2].name, "stream 7");
	cr_assert_eq(s->r[3].kind, 'B');
	cr_assert_eq(s->r[3].ts, 1000);
	cr_assert_eq(s->r[4].kind, 'B');
	cr_assert_str_eq(s->r[4].category, "cuda,kernel");
	cr_assert_eq(s->r[5].kind, 'E');
	cr_assert_eq(s->r[5].ts, 1200);
	cr_assert_eq(s->r[6].kind, 'I');
	cr_assert_eq(s->r[6].track, 3);
	cr_assert_eq(s->r[7].kind, 'E'); /* the stray END on track 3 is dropped */
	cr_assert_eq(s->r[7].ts, 1400);
	cr_assert_eq(s->r[8].where.packet_index, 9);
	cr_assert_eq(s->r[8].where.packet_offset, t.offsets[9]);
	cr_assert_eq(s->stats.slice_begins, 3);
	cr_assert_eq(s->stats.slice_ends, 2);
	cr_assert_eq(s->stats.unmatched_slice_ends, 1);
	cr_assert_eq(s->stats.unfinished_slices, 1);
	cr_assert_eq(s->n_problems, 1);
	cr_assert_eq(s->problems[0].offset, (int64_t)t.offsets[7]);
	free(s);
	free(t.buf);
}

static enum trex_status args_text(void *user, const struct trex_pf_arg *args, size_t n,
                                  struct trex_error *err)
{
	char *out = user;
	size_t len = 0;

	(void)err;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, 512 - len, "%s%s=%s", i ? ";" : "", args[i].key,
		                        args[i].value);
	return TREX_OK;
}

/* The recorded byte range is the TrackEvent itself: it unpacks again, and
 * its annotations read back as the record had them. */
Test(perfetto, event_byte_range_gives_the_args_again)
{
	struct trace t = {0};
	Event e = event(INSTANT, 9, "again");
	Ann a = named("k"), b = named("list"), x = named(""), *anns[] = {&a, &b}, *xs[] = {&x};
	char text[512] = "";
	struct trex_error err;

	a.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	a.string_value = S("v");
	x.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
	x.double_value = 2.5;
	b.n_array_values = 1;
	b.array_values = xs;
	e.n_debug_annotations = 2;
	e.debug_annotations = anns;
	add_event(&t, 3, 77, &e);
	add_event(&t, 3, 78, &e);
	struct sink *s = decode(t.buf, t.len);
	struct rec *r = &s->r[1];

	cr_assert_eq(s->n, 2);
	cr_assert_gt(r->event_offset, t.offsets[1]);
	Event *back =
	    perfetto__protos__track_event__unpack(NULL, r->event_length, t.buf + r->event_offset);
	cr_assert_not_null(back);
	cr_assert_str_eq(back->name, "again");
	perfetto__protos__track_event__free_unpacked(back, NULL);
	cr_assert_str_eq(r->args, "k=v;list=[2.5]");
	cr_assert_eq(trex_pf_event_args("t.pftrace", r->event_offset, t.buf + r->event_offset,
	                                r->event_length, args_text, text, &err),
	             TREX_OK, "%s", err.message);
	cr_assert_str_eq(text, r->args);
	/* bytes that are not a TrackEvent: a positioned error */
	cr_assert_eq(trex_pf_event_args("t.pftrace", 5, "\x5a\x09", 2, args_text, text, &err),
	             TREX_FORMAT);
	cr_assert_eq(err.offset, 5);
	free(s);
	free(t.buf);
}

/* ---- interning and incremental state ------------------------------------------------------------
 */

Test(perfetto, interning_and_incremental_state)
{
	Perfetto__Protos__EventName en1 = {
	    PROTOBUF_C_MESSAGE_INIT(&perfetto__protos__event_name__descriptor), true, 1, S("step")};
	Perfetto__Protos__EventName en2 = {
	    PROTOBUF_C_MESSAGE_INIT(&perfetto__protos__event_name__descriptor), true, 2,
	    S("other")};
	Perfetto__Protos__EventCategory ec1 = {
	    PROTOBUF_C_MESSAGE_INIT(&perfetto__protos__event_category__descriptor), true, 1,
	    S("gpu")};
	Perfetto__Protos__DebugAnnotationName an1 = {
	    PROTOBUF_C_MESSAGE_INIT(&perfetto__protos__debug_annotation_name__descriptor), true, 1,
	    S("stream")};
	struct trace t = {0};
	Perfetto__Protos__InternedData in = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__EventName *names[] = {&en1, &en2};
	Perfetto__Protos__EventCategory *cats[] = {&ec1};
	Perfetto__Protos__DebugAnnotationName *anames[] = {&an1};
	uint64_t cat_iids[] = {1};
	Ann a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT, *anns[] = {&a};
	Event e = event(INSTANT, 4, NULL);
	Packet p;

	in.n_event_names = 2;
	in.event_names = names;
	in.n_event_categories = 1;
	in.event_categories = cats;
	in.n_debug_annotation_names = 1;
	in.debug_annotation_names = anames;
	a.name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
	a.name_iid = 1;
	a.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	a.int_value = 7;
	e.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
	e.name_iid = 1;
	e.n_category_iids = 1;
	e.category_iids = cat_iids;
	e.n_debug_annotations = 1;
	e.debug_annotations = anns;
	/* 0: sequence 9 needs state it never had: dropped */
	p = packet(9, 5);
	p.has_sequence_flags = true;
	p.sequence_flags = 2;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = &e;
	add(&t, &p);
	/* 1: cleared, defines and uses the entries at once */
	p = packet(1, 10);
	p.has_sequence_flags = true;
	p.sequence_flags = 3;
	p.interned_data = &in;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = &e;
	add(&t, &p);
	/* 2: a later packet uses them */
	p.sequence_flags = 2;
	p.timestamp = 20;
	p.interned_data = NULL;
	add(&t, &p);
	/* 3: data was lost before this one: dropped until the next clear */
	p.has_previous_packet_dropped = true;
	p.previous_packet_dropped = 1;
	p.timestamp = 30;
	add(&t, &p);
	/* 4: cleared again without entries: the iids mean nothing now */
	p.has_previous_packet_dropped = false;
	p.sequence_flags = 3;
	p.timestamp = 40;
	add(&t, &p);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 3);
	cr_assert_str_eq(s->r[0].name, "step");
	cr_assert_str_eq(s->r[0].category, "gpu");
	cr_assert_str_eq(s->r[0].args, "stream=7");
	cr_assert(s->r[0].interned);
	cr_assert_eq(s->r[1].ts, 20);
	cr_assert_str_eq(s->r[1].name, "step");
	cr_assert_eq(s->r[2].ts, 40);
	cr_assert_str_eq(s->r[2].name, "(null)");
	cr_assert_str_eq(s->r[2].category, "(null)");
	cr_assert_str_eq(s->r[2].args, "=7");
	cr_assert_eq(s->stats.dropped_no_state, 2);
	cr_assert_eq(s->stats.loss_reports, 1);
	cr_assert_eq(s->stats.unresolved_iids, 3);
	cr_assert_eq(s->stats.interned_entries, 4);
	free(s);
	free(t.buf);
}

/* ---- defaults, clocks, counters
 * ------------------------------------------------------------------ */

Test(perfetto, packet_defaults_give_track_and_clock)
{
	struct trace t = {0};
	Perfetto__Protos__TracePacketDefaults def = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	Perfetto__Protos__ClockSnapshot snap = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c64 = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock boot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[] = {&c64, &boot};
	Event e = event(INSTANT, 0, "tick");
	Packet p = packet(5, 0);

	ted.has_track_uuid = true;
	ted.track_uuid = 77;
	def.track_event_defaults = &ted;
	def.has_timestamp_clock_id = true;
	def.timestamp_clock_id = 64;
	/* SDK style: clock 64 counts microseconds incrementally from 1000 us,
	 * which is BOOTTIME 5,000,000 ns */
	c64.has_clock_id = c64.has_timestamp = c64.has_is_incremental = true;
	c64.has_unit_multiplier_ns = true;
	c64.clock_id = 64;
	c64.timestamp = 1000;
	c64.is_incremental = true;
	c64.unit_multiplier_ns = 1000;
	boot.has_clock_id = boot.has_timestamp = true;
	boot.clock_id = 6;
	boot.timestamp = 5000000;
	snap.n_clocks = 2;
	snap.clocks = clocks;
	p.has_sequence_flags = true;
	p.sequence_flags = 1;
	p.trace_packet_defaults = &def;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &snap;
	add(&t, &p);
	add_event(&t, 5, 3, &e); /* +3 us */
	add_event(&t, 5, 2, &e); /* +2 us */
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 2);
	cr_assert_eq(s->r[0].track, 77);
	cr_assert_eq(s->r[0].ts, 5003000);
	cr_assert_eq(s->r[1].ts, 5005000);
	cr_assert_eq(s->stats.clock_snapshots, 1);
	cr_assert_eq(s->stats.unconverted_timestamps, 0);
	free(s);
	free(t.buf);
}

Test(perfetto, global_clock_snapshot_converts_other_clocks)
{
	struct trace t = {0};
	Perfetto__Protos__ClockSnapshot snap = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock mono = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock boot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[] = {&mono, &boot};
	Event e = event(INSTANT, 1, "x");
	Packet p = packet(0, 0);

	mono.has_clock_id = mono.has_timestamp = boot.has_clock_id = boot.has_timestamp = true;
	mono.clock_id = 3;
	mono.timestamp = 100;
	boot.clock_id = 6;
	boot.timestamp = 1100;
	snap.n_clocks = 2;
	snap.clocks = clocks;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &snap;
	add(&t, &p);
	p = packet(2, 150);
	p.has_timestamp_clock_id = true;
	p.timestamp_clock_id = 3; /* MONOTONIC: +1000 on BOOTTIME */
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = &e;
	add(&t, &p);
	p.timestamp_clock_id = 1; /* REALTIME: no snapshot has it */
	add(&t, &p);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->n, 2);
	cr_assert_eq(s->r[0].ts, 1150);
	cr_assert_eq(s->r[1].ts, 150);
	cr_assert_eq(s->stats.unconverted_timestamps, 1);
	free(s);
	free(t.buf);
}

Test(perfetto, counters_scaled_summed_and_extra)
{
	struct trace t = {0};
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	Track mem = track(10, 1, "mem"), load = track(11, 1, "load");
	Perfetto__Protos__CounterDescriptor plain = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	uint64_t extra_uuids[] = {11};
	int64_t extra_values[] = {9};
	Event c = event(COUNTER, 10, NULL);

	cd.has_unit = cd.has_unit_multiplier = cd.has_is_incremental = true;
	cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
	cd.unit_multiplier = 1024;
	cd.is_incremental = true;
	mem.counter = &cd;
	load.counter = &plain;
	add_track(&t, &mem);
	add_track(&t, &load);
	c.counter_value_field_case =
	    PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
	c.counter_value = 2;
	add_event(&t, 1, 10, &c);
	c.counter_value = 3;
	c.n_extra_counter_track_uuids = c.n_extra_counter_values = 1;
	c.extra_counter_track_uuids = extra_uuids;
	c.extra_counter_values = extra_values;
	add_event(&t, 1, 20, &c);
	Event d = event(COUNTER, 11, NULL);
	d.counter_value_field_case =
	    PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
	d.double_counter_value = 0.25;
	add_event(&t, 1, 30, &d);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 6);
	cr_assert_eq(s->r[0].track_kind, TREX_PF_TRACK_COUNTER);
	cr_assert_str_eq(s->r[0].unit, "bytes");
	cr_assert_eq(s->r[2].kind, 'C');
	cr_assert_eq(s->r[2].ivalue, 2048);
	cr_assert_eq(s->r[3].ivalue, 5120); /* incremental: 2048 + 3072 */
	cr_assert_eq(s->r[4].track, 11);
	cr_assert_eq(s->r[4].ivalue, 9);
	cr_assert_eq(s->r[4].ts, 20);
	cr_assert(s->r[5].is_double);
	cr_assert_float_eq(s->r[5].dvalue, 0.25, 1e-12);
	cr_assert_eq(s->stats.counter_values, 4);
	free(s);
	free(t.buf);
}

/* Extra counter tracks from the sequence's defaults; values past the
 * tracks are dropped and counted, never silently. */
Test(perfetto, extra_counters_from_defaults_and_dropped_ones)
{
	struct trace t = {0};
	Perfetto__Protos__TracePacketDefaults def = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults ted = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	uint64_t uuids[] = {21}, duuids[] = {22};
	int64_t values[] = {4, 5};
	double dvalues[] = {1.5};
	Event e = event(INSTANT, 1, "with counters");
	Packet p = packet(3, 50);

	ted.n_extra_counter_track_uuids = 1;
	ted.extra_counter_track_uuids = uuids;
	ted.n_extra_double_counter_track_uuids = 1;
	ted.extra_double_counter_track_uuids = duuids;
	def.track_event_defaults = &ted;
	e.n_extra_counter_values = 2;
	e.extra_counter_values = values;
	e.n_extra_double_counter_values = 1;
	e.extra_double_counter_values = dvalues;
	p.has_sequence_flags = true;
	p.sequence_flags = 1;
	p.trace_packet_defaults = &def;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = &e;
	add(&t, &p);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 3);
	cr_assert_eq(s->r[0].kind, 'I');
	cr_assert_eq(s->r[1].track, 21);
	cr_assert_eq(s->r[1].ivalue, 4);
	cr_assert_eq(s->r[1].ts, 50);
	cr_assert_eq(s->r[2].track, 22);
	cr_assert(s->r[2].is_double);
	cr_assert_float_eq(s->r[2].dvalue, 1.5, 1e-12);
	cr_assert_eq(s->stats.dropped_counter_values, 1);
	cr_assert_eq(s->n_problems, 1);
	free(s);
	free(t.buf);
}

/* Legacy (TYPE_UNSPECIFIED) events, zstd-compressed packets and broken
 * compressed_packets are not read: each is counted and reported. */
Test(perfetto, unread_data_is_counted)
{
	struct trace t = {0};
	Event legacy = event(0, 1, "legacy");
	Packet p = packet(0, 0);
	unsigned char junk[] = {0x78, 0x9c, 0x01, 0x02};

	add_event(&t, 1, 5, &legacy);
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_ZSTD_COMPRESSED_PACKETS;
	p.zstd_compressed_packets.data = junk;
	p.zstd_compressed_packets.len = sizeof(junk);
	add(&t, &p);
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_COMPRESSED_PACKETS;
	p.compressed_packets.data = junk;
	p.compressed_packets.len = sizeof(junk);
	add(&t, &p);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 0);
	cr_assert_eq(s->stats.skipped_events, 1);
	cr_assert_eq(s->stats.zstd_packets, 1);
	cr_assert_eq(s->stats.corrupt_packets, 1);
	cr_assert_eq(s->n_problems, 3);
	cr_assert_eq(s->problems[2].offset, (int64_t)t.offsets[2]);
	free(s);
	free(t.buf);
}

/* ---- flows, annotations, unknown fields, compression --------------------------------------------
 */

Test(perfetto, flows_new_and_old)
{
	struct trace t = {0};
	uint64_t flows[] = {0xffffffffffffffffULL}, old[] = {5}, term[] = {6};
	Event e = event(INSTANT, 1, "f");

	e.n_flow_ids = 1;
	e.flow_ids = flows;
	e.n_flow_ids_old = 1;
	e.flow_ids_old = old;
	e.n_terminating_flow_ids = 1;
	e.terminating_flow_ids = term;
	add_event(&t, 1, 1, &e);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->n, 1);
	cr_assert_eq(s->r[0].n_flows, 2);
	cr_assert_eq(s->r[0].flows[0], 0xffffffffffffffffULL);
	cr_assert_eq(s->r[0].flows[1], 5);
	cr_assert_eq(s->r[0].n_terms, 1);
	cr_assert_eq(s->r[0].terms[0], 6);
	free(s);
	free(t.buf);
}

Test(perfetto, debug_annotation_values_as_text)
{
	struct trace t = {0};
	Ann b = named("b"), u = named("u"), i = named("i"), d = named("d"), str = named("s");
	Ann ptr = named("p"), js = named("j"), dict = named("dict"), arr = named("arr");
	Ann k1 = named("q\"k"), k2 = named("n"), e1 = named(""), e2 = named("");
	Ann nest = named("nest");
	Perfetto__Protos__DebugAnnotation__NestedValue nv =
	    PERFETTO__PROTOS__DEBUG_ANNOTATION__NESTED_VALUE__INIT;
	Perfetto__Protos__DebugAnnotation__NestedValue nv1 =
	    PERFETTO__PROTOS__DEBUG_ANNOTATION__NESTED_VALUE__INIT;
	Perfetto__Protos__DebugAnnotation__NestedValue *nvs[] = {&nv1};
	char *keys[] = {S("x")};
	Ann *kids[] = {&k1, &k2}, *elems[] = {&e1, &e2};
	Ann *all[] = {&b, &u, &i, &d, &str, &ptr, &js, &dict, &arr, &nest};
	Event e = event(INSTANT, 1, "a");

	b.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
	b.bool_value = true;
	u.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
	u.uint_value = 18446744073709551615ULL;
	i.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	i.int_value = -3;
	d.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
	d.double_value = 0.1;
	str.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	str.string_value = S("two words");
	ptr.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE;
	ptr.pointer_value = 0xdead;
	js.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_LEGACY_JSON_VALUE;
	js.legacy_json_value = S("{\"a\":1}");
	k1.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	k1.string_value = S("tab\there");
	k2.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
	k2.double_value = 1.5;
	dict.n_dict_entries = 2;
	dict.dict_entries = kids;
	e1.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	e1.int_value = 1;
	e2.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_POINTER_VALUE;
	e2.pointer_value = 16;
	arr.n_array_values = 2;
	arr.array_values = elems;
	nv1.has_bool_value = true;
	nv1.bool_value = false;
	nv.has_nested_type = true;
	nv.nested_type = PERFETTO__PROTOS__DEBUG_ANNOTATION__NESTED_VALUE__NESTED_TYPE__DICT;
	nv.n_dict_keys = nv.n_dict_values = 1;
	nv.dict_keys = keys;
	nv.dict_values = nvs;
	nest.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_NESTED_VALUE;
	nest.nested_value = &nv;
	e.n_debug_annotations = 10;
	e.debug_annotations = all;
	add_event(&t, 1, 1, &e);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->n, 1);
	cr_assert_str_eq(s->r[0].args,
	                 "b=true;u=18446744073709551615;i=-3;d=0.1;s=two words;p=0xdead;"
	                 "j={\"a\":1};dict={\"q\\\"k\":\"tab\\u0009here\",\"n\":1.5};"
	                 "arr=[1,\"0x10\"];nest={\"x\":false}");
	cr_assert_not(s->r[0].interned);
	cr_assert_eq(s->stats.debug_annotations, 10);
	free(s);
	free(t.buf);
}

Test(perfetto, unknown_fields_are_skipped_and_counted)
{
	/* packet {field 900: varint 1; track_event {type 3, name "u", field
	 * 100: "zz"}}, a packet of two unknown fields, and one whose track
	 * event's annotation (a repeated message) has field 99 */
	static const unsigned char raw[] = {
	    0x0a, 0x10, 0xa0, 0x38, 0x01, 0x5a, 0x0b, 0x48, 0x03, 0xba, 0x01, 0x01, 'u',
	    0xa2, 0x06, 0x02, 'z',  'z',  0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0a, 0x0c,
	    0x5a, 0x0a, 0x48, 0x03, 0x22, 0x06, 0x52, 0x01, 'k',  0x98, 0x06, 0x01,
	};
	struct sink *s = decode(raw, sizeof(raw));

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 2);
	cr_assert_str_eq(s->r[0].name, "u");
	cr_assert_str_eq(s->r[1].args, "k=");
	cr_assert_eq(s->stats.unknown_fields, 5);
	cr_assert_eq(s->stats.packets_with_unknown_fields, 3);
	free(s);
}

Test(perfetto, compressed_packets_are_expanded)
{
	struct trace inner = {0}, t = {0};
	Event e = event(INSTANT, 1, "zipped");
	unsigned char z[512];
	uLongf zlen = sizeof(z);
	Packet p = packet(0, 0);

	add_event(&inner, 1, 10, &e);
	add_event(&inner, 1, 20, &e);
	cr_assert_eq(compress(z, &zlen, inner.buf, inner.len), Z_OK);
	add_event(&t, 1, 5, &e);
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_COMPRESSED_PACKETS;
	p.compressed_packets.data = z;
	p.compressed_packets.len = zlen;
	add(&t, &p);
	struct sink *s = decode(t.buf, t.len);

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->n, 3);
	cr_assert_eq(s->r[2].ts, 20);
	cr_assert_str_eq(s->r[2].name, "zipped");
	cr_assert_eq(s->r[2].where.packet_index, 1);
	cr_assert_eq(s->r[2].where.packet_offset, t.offsets[1]);
	cr_assert_eq(s->r[2].event_length, 0);
	cr_assert_eq(s->stats.compressed_packets, 1);
	cr_assert_eq(s->stats.packets, 4);
	free(s);
	free(t.buf);
	free(inner.buf);
}

/* ---- the corpus
 * ---------------------------------------------------------------------------------- */

static struct sink *decode_corpus(const char *name)
{
	const char *corpus = getenv("TREX_CORPUS");
	char path[1024];
	struct trex_source *src = NULL;
	struct trex_error err;

	if (!corpus)
		cr_skip_test("TREX_CORPUS not set");
	snprintf(path, sizeof(path), "%s/perfetto/%s", corpus, name);
	if (trex_source_open(path, &src, &err) != TREX_OK)
		cr_skip_test("%s", err.message);
	struct sink *s = calloc(1, sizeof(*s));
	struct trex_pf_sink sink = {s, on_track, NULL, NULL, on_problem};
	s->status = trex_pf_decode(src, &sink, &s->stats, &s->err);
	trex_source_close(src);
	return s;
}

Test(perfetto, corpus_tokio_census)
{
	struct sink *s = decode_corpus("tokio-runtime-slices.pftrace");

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->stats.packets, 472);
	cr_assert_eq(s->stats.track_descriptors, 10);
	cr_assert_eq(s->stats.track_events, 462);
	cr_assert_eq(s->stats.slice_begins, 227);
	cr_assert_eq(s->stats.slice_ends, 227);
	cr_assert_eq(s->stats.instants, 8);
	cr_assert_eq(s->stats.debug_annotations, 557);
	cr_assert_eq(s->stats.unfinished_slices, 0);
	cr_assert_eq(s->stats.bytes, 148012);
	cr_assert_eq(s->r[0].track_kind, TREX_PF_TRACK_PROCESS);
	cr_assert_eq(s->r[0].pid, 1605085);
	free(s);
}

Test(perfetto, corpus_service_only_has_no_events)
{
	struct sink *s = decode_corpus("qmljulia-service-only.pftrace");

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->stats.packets, 23);
	cr_assert_eq(s->stats.clock_snapshots, 12);
	cr_assert_eq(s->stats.track_events, 0);
	cr_assert_eq(s->n, 0);
	free(s);
}

Test(perfetto, corpus_systing_tracks_without_events)
{
	struct sink *s = decode_corpus("systing-linux-system.pb");

	cr_assert_eq(s->status, TREX_OK, "%s", s->err.message);
	cr_assert_eq(s->stats.packets, 739);
	cr_assert_eq(s->stats.track_descriptors, 219);
	cr_assert_eq(s->stats.clock_snapshots, 1);
	cr_assert_eq(s->stats.track_events, 0);
	cr_assert_gt(s->stats.unknown_fields, 0);
	free(s);
}

/* ---- the loader: records into the index ---------------------------------------------------- */

static uint32_t track_named(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++)
		if (strcmp(trex_index_str(idx, trex_index_track(idx, i)->name), name) == 0)
			return i;
	return TREX_NONE;
}

/* A process, its thread, a custom track under the process and one under
 * that, a counter track; a flow from a launch on the thread to a kernel on
 * the nested track; annotations that are strings and numbers. The
 * descriptor of the nested track comes after its first event (as some
 * writers do): the track must still nest. */
Test(perfetto, loader_tracks_nesting_flows_kinds_args_counters)
{
	struct trace t = {0};
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	Track proc = track(1, 0, NULL), thr = track(2, 1, NULL), gpu = track(3, 1, "GPU 0"),
	      stream = track(4, 3, "stream 7"), mem = track(5, 1, "memory");
	Event launch = event(BEGIN, 2, "cudaLaunchKernel"), end_cpu = event(END, 2, NULL);
	Event gemm = event(BEGIN, 4, "gemm"), end_gpu = event(END, 4, NULL);
	Event value = event(COUNTER, 5, NULL);
	Ann s = named("s"), n = named("n");
	Ann *anns[] = {&s, &n};
	char *kernel_cat[] = {S("kernel")};
	uint64_t flow = 99;

	pd.has_pid = thd.has_pid = thd.has_tid = true;
	pd.pid = thd.pid = 42;
	thd.tid = 7;
	pd.process_name = S("train.py");
	thd.thread_name = S("main");
	proc.process = &pd;
	thr.thread = &thd;
	mem.counter = &cd;
	s.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	s.string_value = S("say \"5\"");
	n.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	n.int_value = 5;
	launch.n_debug_annotations = 2;
	launch.debug_annotations = anns;
	launch.n_flow_ids = 1;
	launch.flow_ids = &flow;
	gemm.n_categories = 1;
	gemm.categories = kernel_cat;
	gemm.n_terminating_flow_ids = 1;
	gemm.terminating_flow_ids = &flow;
	value.counter_value_field_case =
	    PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
	value.counter_value = 1024;
	add_track(&t, &proc);
	add_track(&t, &thr);
	add_track(&t, &gpu);
	add_track(&t, &mem);
	add_event(&t, 1, 1000, &launch);
	add_event(&t, 1, 1000, &value);
	add_event(&t, 1, 1500, &end_cpu);
	add_event(&t, 1, 2000, &gemm);
	add_track(&t, &stream); /* after its first event */
	add_event(&t, 1, 3000, &end_gpu);

	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;
	cr_assert_eq(trex_source_open_memory("t.pftrace", t.buf, t.len, false, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, NULL, &idx, &err), TREX_OK, "%s", err.message);

	cr_assert_str_eq(trex_index_str(idx, trex_index_file(idx, 0)->format), "perfetto");
	cr_assert_eq(trex_index_slice_count(idx), 2);
	uint32_t main_track = track_named(idx, "main"), gpu_track = track_named(idx, "GPU 0"),
	         stream_track = track_named(idx, "stream 7"),
	         mem_track = track_named(idx, "memory");
	cr_assert(main_track != TREX_NONE && gpu_track != TREX_NONE && stream_track != TREX_NONE &&
	          mem_track != TREX_NONE);
	const struct trex_track *st = trex_index_track(idx, stream_track);
	cr_assert_eq(st->parent, gpu_track, "stream 7 nests under GPU 0");
	const struct trex_process *p = trex_index_process(idx, st->process);
	cr_assert_str_eq(trex_index_str(idx, p->pid), "42");
	cr_assert_str_eq(trex_index_str(idx, p->name), "train.py");
	cr_assert_eq(trex_index_track(idx, main_track)->process, st->process);
	cr_assert_eq(trex_index_track(idx, mem_track)->kind, TREX_TRACK_COUNTER);
	cr_assert_eq(trex_index_track(idx, mem_track)->sample_count, 1);
	cr_assert_eq(trex_index_sample(idx, trex_index_track(idx, mem_track)->first_sample)->value,
	             1024.0);

	const struct trex_slice *k = trex_index_slice(idx, st->first_slice);
	const struct trex_slice *l =
	    trex_index_slice(idx, trex_index_track(idx, main_track)->first_slice);
	cr_assert_str_eq(trex_index_str(idx, k->name), "gemm");
	cr_assert_eq(k->kind, TREX_KIND_KERNEL);
	cr_assert_eq(k->dur, 1000);
	cr_assert_eq(trex_index_flow_count(idx), 1);
	const struct trex_flow *f = trex_index_flow(idx, 0);
	cr_assert_eq(f->from_track, main_track);
	cr_assert_eq(f->to_track, stream_track);

	char *json = NULL;
	size_t len = 0;
	struct trex_args a;
	cr_assert_eq(trex_index_args_json(idx, 0, l->args, &json, &len, &err), TREX_OK);
	cr_assert_str_eq(json, "{\"s\":\"say \\\"5\\\"\",\"n\":5}");
	cr_assert_eq(len, strlen(json));
	free(json);
	cr_assert_eq(trex_index_args(idx, 0, l->args, &a, NULL, &err), TREX_OK);
	cr_assert_eq(a.n, 2);
	cr_assert_str_eq(a.v[0].key, "s");
	cr_assert_str_eq(a.v[0].value, "say \"5\"");
	cr_assert_str_eq(a.v[1].value, "5");
	trex_args_free(&a);
	cr_assert_eq(trex_index_args_json(idx, 0, k->args, &json, &len, &err), TREX_OK);
	cr_assert_null(json);
	trex_index_free(idx);
	free(t.buf);
}

/* A parent's descriptor after its child's track was used: the file is
 * read again, and the child nests under it in the parent's process. */
Test(perfetto, loader_parent_described_late)
{
	struct trace t = {0};
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	Track proc = track(1, 0, NULL), gpu = track(3, 1, "GPU 0"),
	      stream = track(4, 3, "stream 7");
	Event k = event(BEGIN, 4, "k"), end = event(END, 4, NULL);

	pd.has_pid = true;
	pd.pid = 42;
	proc.process = &pd;
	add_track(&t, &proc);
	add_track(&t, &stream);
	add_event(&t, 1, 1000, &k);
	add_track(&t, &gpu);
	add_event(&t, 1, 2000, &end);

	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;
	cr_assert_eq(trex_source_open_memory("t.pftrace", t.buf, t.len, false, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, NULL, &idx, &err), TREX_OK, "%s", err.message);
	uint32_t s = track_named(idx, "stream 7"), g = track_named(idx, "GPU 0");
	cr_assert(s != TREX_NONE && g != TREX_NONE);
	cr_assert_eq(trex_index_track(idx, s)->parent, g);
	const struct trex_process *p = trex_index_process(idx, trex_index_track(idx, s)->process);
	cr_assert_str_eq(trex_index_str(idx, p->pid), "42");
	cr_assert_eq(trex_index_slice_count(idx), 1);
	cr_assert_eq(trex_index_slice(idx, 0)->dur, 1000);
	trex_index_free(idx);
	free(t.buf);
}

/* Progress comes every few MiB while the packets are read, not only at the
 * end, so a cancel stops a large file part-way. */
struct progress_log {
	size_t calls;
	uint64_t first_bytes, last_bytes;
	volatile sig_atomic_t cancel;
};

static void on_progress(const struct trex_load_progress *p, void *user)
{
	struct progress_log *log = user;

	if (log->calls++ == 0)
		log->first_bytes = p->bytes_done;
	log->last_bytes = p->bytes_done;
	log->cancel = log->calls >= 2;
}

static void big_trace(struct trace *t)
{
	static char name[64 * 1024];
	Track thr = track(2, 0, "main");
	Event e;

	memset(name, 'k', sizeof(name) - 1);
	add_track(t, &thr);
	for (int i = 0; i < 160; i++) { /* 160 slices of 64 KiB names: 10 MiB */
		e = event(BEGIN, 2, name);
		add_event(t, 1, 1000 + 10 * (uint64_t)i, &e);
		e = event(END, 2, NULL);
		add_event(t, 1, 1005 + 10 * (uint64_t)i, &e);
	}
}

Test(perfetto, loader_reports_progress_while_reading_and_cancels_part_way)
{
	struct trace t = {0};
	struct progress_log log = {0};
	struct trex_load_opts opts = {.threads = 1, .progress = on_progress, .progress_user = &log};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;

	big_trace(&t);
	cr_assert_eq(trex_source_open_memory("big.pftrace", t.buf, t.len, false, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_index_slice_count(idx), 160);
	cr_assert_gt(log.calls, 2, "progress came %zu times", log.calls);
	cr_assert_lt(log.first_bytes, t.len / 2, "first progress at byte %" PRIu64 " of %zu",
	             log.first_bytes, t.len);
	cr_assert_eq(log.last_bytes, t.len);
	trex_index_free(idx);

	memset(&log, 0, sizeof(log));
	opts.cancel = &log.cancel;
	cr_assert_eq(trex_source_open_memory("big.pftrace", t.buf, t.len, false, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_CANCELLED);
	cr_assert_lt(log.last_bytes, t.len, "cancelled only at byte %" PRIu64 " of %zu",
	             log.last_bytes, t.len);
	free(t.buf);
}
