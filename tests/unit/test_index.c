#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/load/chrome_phases.h"
#include "trex/load/json_args.h"
#include "trex/load/kinds.h"
#include "trex/load/source.h"

/* ---- allocation failure injection ------------------------------------------------------
 * glibc without ASan: this file's malloc/calloc/realloc shadow libc's for the
 * whole test binary and fail exactly once, on the countdown's N-th call in
 * the arming thread, so every allocation of a build can be made to fail. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define OOM_TESTS 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
static _Thread_local long oom_countdown = -1;
/* Blocks allocated minus blocks freed while counting: the leak check. */
static _Thread_local bool oom_counting;
static _Thread_local long oom_live;

static int oom_now(void)
{
	if (oom_countdown < 0)
		return 0;
	if (oom_countdown-- == 0)
		return 1;
	return 0;
}

static void *oom_counted(void *p)
{
	if (p && oom_counting)
		oom_live++;
	return p;
}

void *malloc(size_t n)
{
	return oom_now() ? NULL : oom_counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
	return oom_now() ? NULL : oom_counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
	void *q;

	if (oom_now())
		return NULL;
	q = __libc_realloc(p, n);
	return p ? q : oom_counted(q);
}

void free(void *p)
{
	if (p && oom_counting)
		oom_live--;
	__libc_free(p);
}

/* False where these functions are not the ones called (valgrind replaces
 * malloc in the executable too). */
static bool oom_hook_works(void)
{
	/* called through a volatile pointer: the compiler may drop a plain
	 * malloc/free pair */
	void *(*volatile alloc)(size_t) = malloc;
	void *p;

	oom_countdown = 0;
	p = alloc(16);
	oom_countdown = -1;
	free(p);
	return p == NULL;
}
#endif

/* ---- a tiny trace language ------------------------------------------------------------- */

/* One event. ph: X B E i C s t f b e n as in Chrome traces, and metadata
 * p (process_name), L (process_labels), q (process_sort_index),
 * T (thread_name), Q (thread_sort_index). */
struct tev {
	char ph;
	const char *pid, *tid, *cat;
	char name[32];
	int64_t ts, dur;
	uint64_t id;
	bool encl;
	uint32_t corr, ext;
	uint16_t flags;
	double value;
	int64_t index;
	trex_args_ref args;
};

static struct tev EV(char ph, const char *pid, const char *tid, const char *cat, const char *name,
                     int64_t ts, int64_t dur) {
	struct tev e;

	memset(&e, 0, sizeof(e));
	e.ph = ph;
	e.pid = pid;
	e.tid = tid;
	e.cat = cat;
	snprintf(e.name, sizeof(e.name), "%s", name ? name : "");
	e.ts = ts;
	e.dur = dur;
	return e;
}

static uint32_t
S(struct trex_builder *b, const char *s)
{
	return trex_builder_intern(b, s ? s : "", s ? strlen(s) : 0);
}

static uint32_t T(struct trex_builder *b, const struct tev *e)
{
	return trex_builder_track(b, S(b, e->pid), S(b, e->tid));
}

static int feed_meta(struct trex_builder *b, const struct tev *e, uint32_t pid, uint32_t name)
{
	switch (e->ph) {
	case 'p':
		return trex_builder_process_name(b, pid, name);
	case 'L': /* as the Chrome loader: "GPU <n>" labels a device */
		if (trex_builder_process_labels(b, pid, name) != 0)
			return -1;
		return trex_builder_process_device(b, pid, strncmp(e->name, "GPU", 3) == 0);
	case 'q':
		return trex_builder_process_sort_index(b, pid, e->index);
	case 'T':
		return trex_builder_thread_name(b, T(b, e), name);
	case 'Q':
		return trex_builder_thread_sort_index(b, T(b, e), e->index);
	default:
		cr_assert_fail("unknown test phase %c", e->ph);
		return -1;
	}
}

/* s t f as the Chrome loader gives them: s and t bind to the enclosing
 * slice, f to the next one unless encl (bp:e). */
static int feed_flow(struct trex_builder *b, const struct tev *e, const struct trex_ev *ev)
{
	struct trex_flow_point p = {.key = {ev->cat, 0, e->id},
	                            .name = ev->name,
	                            .role = e->ph == 's'   ? TREX_FLOW_START
	                                    : e->ph == 't' ? TREX_FLOW_STEP
	                                                   : TREX_FLOW_END,
	                            .slice = TREX_HANDLE_NONE,
	                            .track = T(b, e),
	                            .ts = e->ts,
	                            .bind = e->ph != 'f' || e->encl ? TREX_BIND_ENCLOSING
	                                                            : TREX_BIND_NEXT};

	return trex_builder_flow(b, &p);
}

static void feed(struct trex_builder *b, const struct tev *e)
{
	struct trex_ev ev;
	uint32_t pid = S(b, e->pid);
	struct trex_key key = {S(b, e->cat), 0, e->id};
	int rc;

	memset(&ev, 0, sizeof(ev));
	ev.ts = e->ts;
	ev.dur = e->dur;
	ev.name = S(b, e->name);
	ev.cat = S(b, e->cat);
	ev.kind = (uint8_t)trex_kind_of(e->cat, e->name);
	ev.launch_link = e->corr;
	ev.op_link = e->ext;
	ev.flags = e->flags;
	ev.args = e->args;
	switch (e->ph) {
	case 'X':
		rc = trex_builder_complete(b, T(b, e), &ev) == TREX_HANDLE_NONE ? -1 : 0;
		break;
	case 'B':
		rc = trex_builder_begin(b, T(b, e), &ev) == TREX_HANDLE_NONE ? -1 : 0;
		break;
	case 'E':
		rc = trex_builder_end(b, T(b, e), &ev);
		break;
	case 'i':
		rc = trex_builder_instant(b, T(b, e), &ev, TREX_SCOPE_THREAD);
		break;
	case 'C':
		rc = trex_builder_counter(b, pid, ev.name, e->ts, e->value);
		break;
	case 's':
	case 't':
	case 'f':
		rc = feed_flow(b, e, &ev);
		break;
	case 'b':
		rc = trex_builder_keyed_begin(b, pid, &key, &ev) == TREX_HANDLE_NONE ? -1 : 0;
		break;
	case 'e':
		rc = trex_builder_keyed_end(b, pid, &key, &ev);
		break;
	case 'n':
		rc = trex_builder_keyed_instant(b, pid, &key, &ev);
		break;
	default:
		rc = feed_meta(b, e, pid, ev.name);
	}
	cr_assert_eq(rc, 0, "feeding %c %s", e->ph, e->name);
}

/* Builds files[f] from evs[f] (nev[f] events), each file split into
 * nparts builders at evenly spaced event positions. */
struct trace_spec {
	const struct tev *evs;
	size_t n;
	int64_t base;
};

static enum trex_status build_spec(const struct trace_spec *spec, size_t nfiles, size_t nparts,
                                   unsigned threads, struct trex_index **out,
                                   struct trex_error *err)
{
	struct trex_build_file files[8];
	struct trex_builder *parts[64];
	struct trex_build_input in;
	size_t np = 0;

	cr_assert_leq(nfiles, 8);
	memset(files, 0, sizeof(files));
	for (size_t f = 0; f < nfiles; f++) {
		files[f].path = f == 0 ? "a.json" : "b.json";
		files[f].format = "chrome-json";
		files[f].dialect = "kineto";
		files[f].rank = (int64_t)f;
		files[f].base_time_ns = spec[f].base;
		for (size_t p = 0; p < nparts; p++) {
			struct trex_builder *b = trex_builder_new((uint32_t)f);

			cr_assert_not_null(b);
			for (size_t i = spec[f].n * p / nparts; i < spec[f].n * (p + 1) / nparts;
			     i++)
				feed(b, &spec[f].evs[i]);
			parts[np++] = b;
		}
	}
	memset(&in, 0, sizeof(in));
	in.files = files;
	in.file_count = nfiles;
	in.parts = parts;
	in.part_count = np;
	in.threads = threads;
	return trex_index_build(&in, out, err);
}

static struct trex_index *build_n(const struct tev *evs, size_t n, size_t nparts, unsigned threads)
{
	struct trace_spec spec = {evs, n, 0};
	struct trex_index *idx = NULL;
	struct trex_error err;
	enum trex_status st = build_spec(&spec, 1, nparts, threads, &idx, &err);

	cr_assert_eq(st, TREX_OK, "build failed: %s", err.message);
	cr_assert_not_null(idx);
	return idx;
}

#define BUILD(evs) build_n((evs), sizeof(evs) / sizeof((evs)[0]), 1, 1)

/* ---- looking things up ------------------------------------------------------------------ */

static const char *str(const struct trex_index *idx, uint32_t id)
{
	return trex_index_str(idx, id);
}

static uint32_t slice_id(const struct trex_index *idx, const char *name)
{
	uint32_t found = TREX_NONE;

	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		if (strcmp(str(idx, trex_index_slice(idx, i)->name), name) == 0) {
			cr_assert_eq(found, TREX_NONE, "slice %s is not unique", name);
			found = i;
		}
	}
	cr_assert_neq(found, TREX_NONE, "no slice %s", name);
	return found;
}

static const struct trex_slice *slice_named(const struct trex_index *idx, const char *name)
{
	return trex_index_slice(idx, slice_id(idx, name));
}

static uint32_t track_id(const struct trex_index *idx, uint32_t file, const char *pid,
                         const char *tid)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);
		const struct trex_process *p = trex_index_process(idx, tr->process);

		if (p->file == file && strcmp(str(idx, p->pid), pid) == 0 &&
		    strcmp(str(idx, tr->tid), tid) == 0)
			return t;
	}
	return TREX_NONE;
}

static int64_t end_of(const struct trex_slice *s)
{
	return s->ts + s->dur;
}

/* ---- invariants every index must satisfy --------------------------------------------------- */

static void check_lane(const struct trex_index *idx, uint32_t t, uint32_t d,
                       const struct trex_lane *lane, uint32_t expect_first)
{
	cr_assert_eq(lane->track, t);
	cr_assert_eq(lane->depth, d);
	cr_assert_eq(lane->first, expect_first);
	cr_assert_gt(lane->count, 0, "no empty lanes");
	for (uint32_t i = lane->first; i < lane->first + lane->count; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		cr_assert_eq(s->track, t);
		cr_assert_eq(s->depth, d);
		cr_assert_geq(s->dur, 0);
		if (i > lane->first) {
			const struct trex_slice *p = trex_index_slice(idx, i - 1);

			/* no overlap, so sorted by start and by end at once */
			cr_assert_leq(end_of(p), s->ts, "lane %u/%u overlaps at slice %u", t, d, i);
			cr_assert_leq(p->ts, s->ts);
			cr_assert_leq(end_of(p), end_of(s));
		}
	}
}

static void check_parent(const struct trex_index *idx, uint32_t i, uint64_t *overlaps)
{
	const struct trex_slice *s = trex_index_slice(idx, i);
	uint32_t pi = trex_index_parent(idx, i);
	const struct trex_slice *p;

	if (s->flags & TREX_SLICE_OVERLAP)
		(*overlaps)++;
	if (s->depth == 0) {
		cr_assert_eq(pi, TREX_NONE);
		cr_assert_not(s->flags & TREX_SLICE_OVERLAP);
		return;
	}
	cr_assert_neq(pi, TREX_NONE, "slice %u at depth %u has no parent", i, s->depth);
	p = trex_index_slice(idx, pi);
	cr_assert_eq(p->depth, s->depth - 1);
	cr_assert_eq(p->track, s->track);
	cr_assert_leq(p->ts, s->ts);
	cr_assert_gt(end_of(p), s->ts, "a parent is open when its child starts");
	cr_assert_eq((s->flags & TREX_SLICE_OVERLAP) != 0, end_of(s) > end_of(p),
	             "OVERLAP exactly when the child outlives its parent");
}

static void check_tracks(const struct trex_index *idx)
{
	uint32_t next_track = 0;

	for (uint32_t p = 0; p < trex_index_process_count(idx); p++) {
		const struct trex_process *pr = trex_index_process(idx, p);
		bool gpu = false;

		if (p > 0)
			cr_assert_geq(pr->file, trex_index_process(idx, p - 1)->file);
		if (pr->track_count)
			cr_assert_eq(pr->first_track, next_track);
		for (uint32_t t = pr->first_track; t < pr->first_track + pr->track_count; t++) {
			cr_assert_eq(trex_index_track(idx, t)->process, p);
			gpu |= trex_index_track(idx, t)->kind == TREX_TRACK_GPU;
		}
		cr_assert_eq(pr->is_gpu, gpu);
		next_track += pr->track_count;
	}
	cr_assert_eq(next_track, trex_index_track_count(idx));
}

static void check_invariants(const struct trex_index *idx)
{
	uint32_t next_slice = 0, next_lane = 0;
	uint64_t overlaps = 0;

	check_tracks(idx);
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);
		uint32_t at = tr->first_slice;

		cr_assert_eq(tr->first_slice, next_slice);
		cr_assert_eq(tr->lane_count, tr->max_depth);
		cr_assert_eq(tr->first_lane, next_lane);
		for (uint32_t d = 0; d < tr->lane_count; d++) {
			const struct trex_lane *lane = trex_index_lane(idx, tr->first_lane + d);

			check_lane(idx, t, d, lane, at);
			at += lane->count;
		}
		cr_assert_eq(at, tr->first_slice + tr->slice_count);
		next_slice += tr->slice_count;
		next_lane += tr->lane_count;
	}
	cr_assert_eq(next_slice, trex_index_slice_count(idx));
	cr_assert_eq(next_lane, trex_index_lane_count(idx));
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		uint8_t flags = trex_index_slice(idx, i)->flags;

		cr_assert(trex_slice_launch_link(idx, i) == 0 ||
		          (flags & TREX_SLICE_HAS_LAUNCH_LINK));
		cr_assert(trex_slice_op_link(idx, i) == 0 || (flags & TREX_SLICE_HAS_OP_LINK));
		check_parent(idx, i, &overlaps);
	}
	cr_assert_eq(overlaps, trex_index_integrity(idx).overlaps);
}

/* ---- a canonical text form of a whole index (strings as text) -------------------------------- */

static void dump_meta(FILE *o, const struct trex_index *idx)
{
	struct trex_integrity in = trex_index_integrity(idx);

	fprintf(o, "span %" PRId64 " %" PRId64 "\n", trex_index_start(idx), trex_index_end(idx));
#define DUMP_INT(field, label) fprintf(o, "integrity %s %" PRIu64 "\n", #field, in.field);
	TREX_INTEGRITY_INFO(DUMP_INT)
#undef DUMP_INT
	for (uint32_t i = 0; i < trex_index_process_count(idx); i++) {
		const struct trex_process *p = trex_index_process(idx, i);

		fprintf(o, "process %u %s %" PRId64 " %s %s %" PRId64 " %u %u %u %u\n", p->file,
		        str(idx, p->pid), p->pid_num, str(idx, p->name), str(idx, p->labels),
		        p->sort_index, p->has_sort_index, p->is_gpu, p->first_track,
		        p->track_count);
	}
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++) {
		const struct trex_track *t = trex_index_track(idx, i);

		fprintf(o,
		        "track %u %s %" PRId64 " %s %" PRId64 " %u %u %u %u %u %u %u %u %u %u %u\n",
		        t->process, str(idx, t->tid), t->tid_num, str(idx, t->name), t->sort_index,
		        t->kind, t->has_sort_index, t->max_depth, t->first_lane, t->lane_count,
		        t->first_slice, t->slice_count, t->first_instant, t->instant_count,
		        t->first_sample, t->sample_count);
	}
}

static void dump_events(FILE *o, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		fprintf(o, "slice %" PRId64 " %" PRId64 " %s %s %u %u %u %" PRIu64 " %u %u %s\n",
		        s->ts, s->dur, str(idx, s->name), str(idx, s->cat), s->track, s->depth,
		        s->flags, s->args, trex_slice_launch_link(idx, i),
		        trex_slice_op_link(idx, i), str(idx, trex_slice_shape(idx, i)));
	}
	for (uint32_t i = 0; i < trex_index_instant_count(idx); i++) {
		const struct trex_instant *in = trex_index_instant(idx, i);

		fprintf(o, "instant %" PRId64 " %s %s %u %u\n", in->ts, str(idx, in->name),
		        str(idx, in->cat), in->track, in->scope);
	}
	for (uint32_t i = 0; i < trex_index_sample_count(idx); i++)
		fprintf(o, "sample %" PRId64 " %g\n", trex_index_sample(idx, i)->ts,
		        trex_index_sample(idx, i)->value);
	for (uint32_t i = 0; i < trex_index_flow_count(idx); i++) {
		const struct trex_flow *f = trex_index_flow(idx, i);

		fprintf(o, "flow %u %u %u %u %" PRId64 " %" PRId64 " %s %s\n", f->from_slice,
		        f->to_slice, f->from_track, f->to_track, f->from_ts, f->to_ts,
		        str(idx, f->cat), str(idx, f->name));
	}
}

static char *dump(const struct trex_index *idx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	cr_assert_not_null(o);
	dump_meta(o, idx);
	dump_events(o, idx);
	fclose(o);
	return buf;
}

/* ---- empty and trivial ------------------------------------------------------------------ */

Test(index, empty_build)
{
	struct trex_build_input in;
	struct trex_index *idx = NULL;
	struct trex_error err;

	memset(&in, 0, sizeof(in));
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK);
	cr_assert_eq(err.status, TREX_OK);
	cr_assert_eq(trex_index_file_count(idx), 0);
	cr_assert_eq(trex_index_slice_count(idx), 0);
	cr_assert_eq(trex_index_track_count(idx), 0);
	cr_assert_eq(trex_index_flow_count(idx), 0);
	cr_assert_eq(trex_index_start(idx), 0);
	cr_assert_eq(trex_index_end(idx), 0);
	cr_assert_gt(trex_index_memory(idx), 0);
	cr_assert_null(trex_index_slice(idx, 0));
	cr_assert_eq(trex_index_slice_at(idx, 0, 5), TREX_NONE);
	cr_assert_eq(trex_index_flows_of(idx, 0, NULL, 0), 0);
	trex_index_free(idx);
	trex_index_free(NULL);
}

Test(index, file_without_events_keeps_its_record)
{
	struct trex_build_file f;
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_input in = {&f, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	const struct trex_file *tf;

	memset(&f, 0, sizeof(f));
	f.path = "x.json";
	f.dialect = "kineto";
	f.rank = 3;
	f.has_rank = true;
	f.events = 12;
	trex_phase_event_types(&f);
	f.event_types[TREX_PH_METADATA].events = 12;
	f.integrity.syntax_errors = 2;
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK);
	cr_assert_null(b, "the build consumes its parts");
	tf = trex_index_file(idx, 0);
	cr_assert_str_eq(str(idx, tf->path), "x.json");
	cr_assert_str_eq(str(idx, tf->dialect), "kineto");
	cr_assert_str_eq(str(idx, tf->format), "");
	cr_assert_eq(tf->rank, 3);
	cr_assert(tf->has_rank);
	cr_assert_eq(tf->events, 12);
	cr_assert_eq(trex_file_events_of_type(idx, 0, "M"), 12);
	cr_assert_eq(tf->event_type_count, TREX_PH_COUNT);
	cr_assert_str_eq(str(idx, tf->event_types[TREX_PH_METADATA].name), "metadata");
	cr_assert_eq(tf->integrity.syntax_errors, 2);
	cr_assert_eq(trex_index_integrity(idx).syntax_errors, 2);
	cr_assert_null(trex_index_file(idx, 1));
	trex_index_free(idx);
}

Test(index, phase_letters_and_integrity_add)
{
	struct trex_integrity a, b;

	cr_assert_str_eq(trex_phase_letters(TREX_PH_COMPLETE), "X");
	cr_assert_str_eq(trex_phase_letters(TREX_PH_INSTANT), "i/I");
	cr_assert_str_eq(trex_phase_letters(TREX_PH_OTHER), "other");
	cr_assert_str_eq(trex_phase_letters(TREX_PH_COUNT), "?");
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.overlaps = 1;
	b.overlaps = 2;
	b.bytes_ignored = 7;
	trex_integrity_add(&a, &b);
	cr_assert_eq(a.overlaps, 3);
	cr_assert_eq(a.bytes_ignored, 7);
}

/* ---- B/E pairing: acelyzer's basic_event_test_cases.json, event by event ---------------- */

#define US(x) ((int64_t)(x)*1000)

static const struct tev *acelyzer_events(size_t *n)
{
	static struct tev e[64];
	size_t k = 0;
#define B_(tid, name, ts) e[k++] = EV('B', "0", tid, "CatA", name, US(ts), 0)
#define E_(tid, name, ts) e[k++] = EV('E', "0", tid, "CatA", name, US(ts), 0)
	e[k++] = EV('X', "0", "0", "CatA", "CaseCompX", US(1), US(10));
	B_("5", "Case1 E2", 1), E_("5", "Case1 E2", 5);
	B_("5", "CaseTSRev1", 30), E_("5", "CaseTSRev1", 20);
	B_("5", "Case2 E1", 20), E_("5", "Case2 E1", 30);
	B_("5", "Case2 E2", 21), E_("5", "Case2 E2", 25);
	B_("0", "Case3 E2", 41), E_("0", "Case3 E2", 45);
	B_("0", "Case3 E1", 40), E_("0", "Case3 E1", 50);
	B_("0", "Case4 E1", 60), E_("0", "Case4 E1", 65);
	B_("0", "Case4 E2", 61), E_("0", "Case4 E2", 70);
	B_("0", "Case5 E1", 80), E_("0", "Case5 E1", 85);
	B_("0", "Case5 E2", 81), E_("0", "Case5 E2", 90);
	B_("0", "Case6 E1", 100), E_("0", "Case6 E1", 110);
	B_("0", "Case6 E2", 105), E_("0", "Case6 E2", 115);
	B_("0", "Case6 E3", 103), E_("0", "Case6 E3", 113);
	e[k++] = EV('B', "0", "0", "CatB", "Case7 E1", US(120), 0);
	e[k++] = EV('E', "0", "0", "CatB", "Case7 E1", US(125), 0);
	e[k++] = EV('B', "0", "0", "CatB", "Case7 E2", US(120), 0);
	e[k++] = EV('E', "0", "0", "CatB", "Case7 E2", US(130), 0);
	B_("0", "Case8 E1", 140), E_("0", "Case8 E1", 160);
	B_("0", "Case8 E2", 145), E_("0", "Case8 E2", 155);
	B_("0", "Case8 E3", 150), E_("0", "Case8 E3", 158);
	B_("0", "Case8 E4", 151), E_("0", "Case8 E4", 154);
	B_("0", "Case8 E5", 153), E_("0", "Case8 E5", 157);
	e[k++] = EV('X', "0", "0", "CatA", "CaseZeroDurA", US(170), 0);
	B_("5", "CaseZeroDurB", 180), E_("5", "CaseZeroDurB", 180);
	e[k++] = EV('X', "0", "0", "CatA", "CaseZeroDurC", US(190), 0);
#undef B_
#undef E_
	*n = k;
	return e;
}

static void expect_slice(const struct trex_index *idx, const char *name, int64_t ts, int64_t dur,
                         unsigned depth, uint16_t flags)
{
	const struct trex_slice *s = slice_named(idx, name);

	cr_assert_eq(s->ts, ts, "%s ts %" PRId64, name, s->ts);
	cr_assert_eq(s->dur, dur, "%s dur %" PRId64, name, s->dur);
	cr_assert_eq(s->depth, depth, "%s depth %u", name, s->depth);
	cr_assert_eq(s->flags, flags, "%s flags %u", name, s->flags);
}

Test(index, acelyzer_edge_cases)
{
	size_t n;
	const struct tev *evs = acelyzer_events(&n);
	struct trex_index *idx = build_n(evs, n, 1, 1);
	struct trex_integrity in = trex_index_integrity(idx);
	const uint16_t BE = TREX_SLICE_PAIRED, OV = TREX_SLICE_OVERLAP | TREX_SLICE_PAIRED;

	check_invariants(idx);
	cr_assert_eq(trex_index_slice_count(idx), 24);
	expect_slice(idx, "CaseCompX", US(1), US(10), 0, 0);
	expect_slice(idx, "Case1 E2", US(1), US(4), 0, BE);
	/* E before B: kept at its B with dur 0 */
	expect_slice(idx, "CaseTSRev1", US(30), 0, 0, BE | TREX_SLICE_REVERSED);
	expect_slice(idx, "Case2 E1", US(20), US(10), 0, BE);
	expect_slice(idx, "Case2 E2", US(21), US(4), 1, BE);
	/* the short event first in the file still nests inside the long one */
	expect_slice(idx, "Case3 E1", US(40), US(10), 0, BE);
	expect_slice(idx, "Case3 E2", US(41), US(4), 1, BE);
	expect_slice(idx, "Case4 E1", US(60), US(5), 0, BE);
	expect_slice(idx, "Case4 E2", US(61), US(9), 1, OV);
	expect_slice(idx, "Case5 E2", US(81), US(9), 1, OV);
	expect_slice(idx, "Case6 E1", US(100), US(10), 0, BE);
	expect_slice(idx, "Case6 E3", US(103), US(10), 1, OV);
	expect_slice(idx, "Case6 E2", US(105), US(10), 2, OV);
	/* same start: the longer one is the parent */
	expect_slice(idx, "Case7 E2", US(120), US(10), 0, BE);
	expect_slice(idx, "Case7 E1", US(120), US(5), 1, BE);
	expect_slice(idx, "Case8 E1", US(140), US(20), 0, BE);
	expect_slice(idx, "Case8 E2", US(145), US(10), 1, BE);
	expect_slice(idx, "Case8 E3", US(150), US(8), 2, OV);
	expect_slice(idx, "Case8 E4", US(151), US(3), 3, BE);
	expect_slice(idx, "Case8 E5", US(153), US(4), 4, OV);
	expect_slice(idx, "CaseZeroDurA", US(170), 0, 0, 0);
	expect_slice(idx, "CaseZeroDurB", US(180), 0, 0, BE);
	expect_slice(idx, "CaseZeroDurC", US(190), 0, 0, 0);
	cr_assert_eq(in.overlaps, 6);
	cr_assert_eq(in.reversed, 1);
	cr_assert_eq(in.zero_duration, 3, "reversed slices are counted as reversed only");
	cr_assert_eq(in.unmatched_begin, 0);
	cr_assert_eq(in.unmatched_end, 0);
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "0", "0"))->max_depth, 5);
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "0", "5"))->max_depth, 2);
	trex_index_free(idx);
}

Test(index, unmatched_begin_runs_to_file_end_and_stray_end_is_counted)
{
	struct tev evs[] = {
	    EV('B', "1", "1", "c", "outer", 10, 0), EV('B', "1", "1", "c", "inner", 20, 0),
	    EV('E', "1", "2", "c", "", 5, 0),       EV('X', "1", "3", "c", "last", 50, 50),
	    EV('X', "1", "3", "c", "neg", 60, -5),
	};
	struct trex_index *idx = BUILD(evs);
	struct trex_integrity in = trex_index_integrity(idx);
	const uint16_t U = TREX_SLICE_PAIRED | TREX_SLICE_UNTERMINATED;

	check_invariants(idx);
	expect_slice(idx, "outer", 10, 90, 0, U);
	expect_slice(idx, "inner", 20, 80, 1, U);
	expect_slice(idx, "neg", 60, 0, 1, TREX_SLICE_REVERSED);
	cr_assert_eq(in.unmatched_begin, 2);
	cr_assert_eq(in.unmatched_end, 1);
	cr_assert_eq(in.reversed, 1);
	cr_assert_eq(trex_index_slice_count(idx), 4);
	trex_index_free(idx);
}

Test(index, be_and_x_interleave_in_file_order)
{
	/* kineto.md-style nesting of B/E around X, as in tests/data/nesting_be.json */
	struct tev evs[] = {
	    EV('B', "1", "1", "cpu_op", "outer", 0, 0),
	    EV('B', "1", "1", "cpu_op", "inner1", 1000, 0),
	    EV('E', "1", "1", "", "", 3000, 0),
	    EV('B', "1", "1", "cpu_op", "inner2", 4000, 0),
	    EV('X', "1", "1", "cpu_op", "leaf", 4500, 250),
	    EV('E', "1", "1", "", "", 5000, 0),
	    EV('E', "1", "1", "", "", 10000, 0),
	    EV('E', "1", "1", "", "", 11000, 0),
	    EV('B', "1", "2", "cpu_op", "other thread", 2000, 0),
	    EV('E', "1", "2", "", "", 2000, 0),
	    EV('B', "1", "3", "cpu_op", "open", 20000, 0),
	};
	struct trex_index *idx = BUILD(evs);
	struct trex_integrity in = trex_index_integrity(idx);

	check_invariants(idx);
	expect_slice(idx, "outer", 0, 10000, 0, TREX_SLICE_PAIRED);
	expect_slice(idx, "inner1", 1000, 2000, 1, TREX_SLICE_PAIRED);
	expect_slice(idx, "inner2", 4000, 1000, 1, TREX_SLICE_PAIRED);
	expect_slice(idx, "leaf", 4500, 250, 2, 0);
	expect_slice(idx, "other thread", 2000, 0, 0, TREX_SLICE_PAIRED);
	expect_slice(idx, "open", 20000, 0, 0, TREX_SLICE_PAIRED | TREX_SLICE_UNTERMINATED);
	cr_assert_eq(in.unmatched_end, 1);
	cr_assert_eq(in.unmatched_begin, 1);
	cr_assert_eq(in.zero_duration, 2);
	cr_assert_eq(trex_index_start(idx), 0);
	cr_assert_eq(trex_index_end(idx), 20000);
	trex_index_free(idx);
}

Test(index, zero_duration_and_touching_slices)
{
	struct tev evs[] = {
	    EV('X', "1", "1", "c", "p", 10, 10),
	    EV('X', "1", "1", "c", "z at start", 10, 0),
	    EV('X', "1", "1", "c", "z mid a", 15, 0),
	    EV('X', "1", "1", "c", "z mid b", 15, 0),
	    EV('X', "1", "1", "c", "z at end", 20, 0),
	    EV('X', "1", "1", "c", "next", 20, 5),
	    EV('X', "1", "1", "c", "same as next", 20, 5),
	};
	struct trex_index *idx = BUILD(evs);

	check_invariants(idx);
	expect_slice(idx, "p", 10, 10, 0, 0);
	expect_slice(idx, "z at start", 10, 0, 1, 0);
	expect_slice(idx, "z mid a", 15, 0, 1, 0);
	expect_slice(idx, "z mid b", 15, 0, 1, 0);
	/* a slice starting where another ends is its sibling */
	expect_slice(idx, "next", 20, 5, 0, 0);
	expect_slice(idx, "same as next", 20, 5, 1, 0);
	expect_slice(idx, "z at end", 20, 0, 2, 0);
	cr_assert_eq(trex_index_integrity(idx).zero_duration, 4);
	trex_index_free(idx);
}

/* ---- randomized traces ------------------------------------------------------------------------
 */

struct gen {
	struct tev *ev;
	size_t n, cap;
	int *depth; /* expected depth by slice number (name "s<number>") */
	uint32_t nslices, budget;
	uint64_t rng;
};

static uint64_t rng_next(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static int64_t rnd(struct gen *g, int64_t n)
{
	return n <= 0 ? 0 : (int64_t)(rng_next(g) % (uint64_t)n);
}

static struct tev *gen_push(struct gen *g, struct tev e)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->ev = realloc(g->ev, g->cap * sizeof(*g->ev));
		cr_assert_not_null(g->ev);
	}
	g->ev[g->n] = e;
	return &g->ev[g->n++];
}

static uint32_t gen_slice_no(struct gen *g, int depth)
{
	uint32_t no = g->nslices++;

	g->depth = realloc(g->depth, g->nslices * sizeof(*g->depth));
	cr_assert_not_null(g->depth);
	g->depth[no] = depth;
	return no;
}

/* A properly nested forest of slices inside [lo, hi) at depth d: X events,
 * or B/E pairs in time order (with some X children) when be. Spans never
 * repeat their parent's exactly, zero-length slices never share a start
 * with a sibling, so the expected depth is unambiguous. */
static void gen_level(struct gen *g, const char *pid, const char *tid, int64_t lo, int64_t hi,
                      int d, bool be)
{
	int64_t at = lo;

	while (at < hi && g->nslices < g->budget) {
		int64_t a = at + (rnd(g, 3) == 0 ? 0 : rnd(g, 20)), len;
		bool as_be = be && rnd(g, 3) != 0;
		char name[32];
		uint32_t no;

		if (a >= hi)
			break;
		len = rnd(g, 5) == 0 ? 0 : 1 + rnd(g, hi - a < 400 ? hi - a : 400);
		if (d > 0 && a == lo && a + len == hi)
			len--;
		no = gen_slice_no(g, d);
		snprintf(name, sizeof(name), "s%u", no);
		gen_push(g, EV(as_be ? 'B' : 'X', pid, tid, "cpu_op", name, a, as_be ? 0 : len));
		if (len > 1 && d < 8 && rnd(g, 2))
			gen_level(g, pid, tid, a, a + len, d + 1, as_be);
		if (as_be)
			gen_push(g, EV('E', pid, tid, "cpu_op", "", a + len, 0));
		at = a + len + (len == 0);
	}
}

static void gen_shuffle(struct gen *g, size_t from)
{
	for (size_t i = g->n - 1; i > from; i--) {
		size_t j = from + (size_t)rnd(g, (int64_t)(i - from + 1));
		struct tev t = g->ev[i];

		g->ev[i] = g->ev[j];
		g->ev[j] = t;
	}
}

/* Seven threads: four of X events in random order, three of B/E. */
static void gen_nested(struct gen *g, uint32_t budget)
{
	static const char *const tids[] = {"1", "2", "3", "4", "5", "6", "7"};

	for (int t = 0; t < 7; t++) {
		size_t from = g->n;

		g->budget = budget * (uint32_t)(t + 1) / 7;
		gen_level(g, "100", tids[t], 0, 30 * (int64_t)budget, 0, t >= 4);
		if (t < 4)
			gen_shuffle(g, from);
	}
}

static void gen_free(struct gen *g)
{
	free(g->ev);
	free(g->depth);
}

Test(index, random_nesting_gets_exact_depths)
{
	struct gen g = {NULL, 0, 0, NULL, 0, 0, 0x9e3779b97f4a7c15ull};
	struct trex_index *idx;

	gen_nested(&g, 10000);
	cr_assert_geq(g.nslices, 9000);
	idx = build_n(g.ev, g.n, 1, 1);
	check_invariants(idx);
	cr_assert_eq(trex_index_slice_count(idx), g.nslices);
	cr_assert_eq(trex_index_integrity(idx).overlaps, 0);
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		unsigned no = (unsigned)atoi(str(idx, s->name) + 1);

		cr_assert_eq(s->depth, g.depth[no], "s%u: depth %u, expected %d", no, s->depth,
		             g.depth[no]);
		cr_assert_not(s->flags & TREX_SLICE_OVERLAP);
	}
	trex_index_free(idx);
	gen_free(&g);
}

/* Reference depths, computed independently of the index machinery. */
struct ref {
	int64_t ts, dur;
	uint32_t seq, no;
	int tid;
};

static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;

	if (a->tid != b->tid)
		return a->tid - b->tid;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return a->seq < b->seq ? -1 : 1;
}

static void ref_depths(struct ref *r, size_t n, int *depth, bool *overlap)
{
	int64_t stack[4096];
	size_t sp = 0;

	qsort(r, n, sizeof(*r), ref_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && r[i].tid != r[i - 1].tid)
			sp = 0;
		while (sp > 0 && stack[sp - 1] <= r[i].ts)
			sp--;
		overlap[r[i].no] = sp > 0 && r[i].ts + r[i].dur > stack[sp - 1];
		depth[r[i].no] = (int)sp;
		cr_assert_lt(sp, 4096);
		stack[sp++] = r[i].ts + r[i].dur;
	}
}

Test(index, random_overlaps_match_reference_and_keep_lanes_disjoint)
{
	enum { N = 10000 };
	struct gen g = {NULL, 0, 0, NULL, 0, 0, 12345};
	struct ref *r = calloc(N, sizeof(*r));
	int *depth = calloc(N, sizeof(*depth));
	bool *overlap = calloc(N, sizeof(*overlap));
	static const char *const tids[] = {"1", "2", "3"};
	struct trex_index *idx;

	for (uint32_t i = 0; i < N; i++) {
		int tid = (int)rnd(&g, 3);
		int64_t ts = rnd(&g, 200000), dur = rnd(&g, 4) == 0 ? 0 : rnd(&g, 3000) - 100;
		char name[16];

		snprintf(name, sizeof(name), "r%u", i);
		gen_push(&g, EV('X', "7", tids[tid], "c", name, ts, dur));
		r[i] = (struct ref){ts, dur < 0 ? 0 : dur, i, i, tid};
	}
	ref_depths(r, N, depth, overlap);
	idx = build_n(g.ev, g.n, 1, 1);
	check_invariants(idx);
	for (uint32_t i = 0; i < N; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		unsigned no = (unsigned)atoi(str(idx, s->name) + 1);

		cr_assert_eq(s->depth, depth[no], "r%u", no);
		cr_assert_eq((s->flags & TREX_SLICE_OVERLAP) != 0, overlap[no], "r%u", no);
	}
	cr_assert_gt(trex_index_integrity(idx).overlaps, 100, "the test does exercise overlaps");
	trex_index_free(idx);
	free(r);
	free(depth);
	free(overlap);
	gen_free(&g);
}

/* Everything at once: nested slices, flows, async, instants, counters and
 * metadata, so that merges and thread counts can be compared whole. */
static void gen_everything(struct gen *g, uint32_t budget)
{
	static const char *const tids[] = {"1", "2", "3", "4", "5", "6", "7"};
	size_t n0;

	gen_nested(g, budget);
	n0 = g->n;
	for (int i = 0; i < 400; i++) {
		const char *a = tids[rnd(g, 7)], *b = tids[rnd(g, 7)];
		int64_t ts = rnd(g, 200000);
		struct tev *e;

		e = gen_push(g, EV(rnd(g, 10) ? 's' : 't', "100", a, "ac2g", "ac2g", ts, 0));
		e->id = (uint64_t)rnd(g, 300);
		e = gen_push(g, EV('f', "100", b, "ac2g", "ac2g", ts + rnd(g, 500), 0));
		e->id = (uint64_t)rnd(g, 300);
		e->encl = rnd(g, 2);
	}
	for (int i = 0; i < 300; i++) {
		struct tev *e = gen_push(g, EV("ben"[rnd(g, 3)], "100", "", "io",
		                               rnd(g, 2) ? "read" : "write", rnd(g, 200000), 0));

		e->id = (uint64_t)rnd(g, 20);
	}
	for (int i = 0; i < 300; i++) {
		gen_push(g, EV('i', "100", tids[rnd(g, 7)], "mem", "[memory]", rnd(g, 200000), 0));
		gen_push(g, EV('C', rnd(g, 2) ? "100" : "GPU 0", "", "", rnd(g, 2) ? "util" : "mem",
		               rnd(g, 200000), 0))
		    ->value = (double)rnd(g, 100);
	}
	gen_push(g, EV('p', "100", "", "", "python", 0, 0));
	gen_push(g, EV('T', "100", "3", "", "worker", 0, 0));
	gen_push(g, EV('Q', "100", "3", "", "", 0, 0))->index = -1;
	gen_shuffle(g, n0); /* extras land anywhere: counts must not depend on it */
}

Test(index, merging_parts_gives_the_same_index_as_one_builder)
{
	struct gen g = {NULL, 0, 0, NULL, 0, 0, 777};
	struct trex_index *one, *three, *many;
	char *d1, *d3, *dm;

	gen_everything(&g, 6000);
	one = build_n(g.ev, g.n, 1, 1);
	three = build_n(g.ev, g.n, 3, 1);
	many = build_n(g.ev, g.n, 29, 1);
	check_invariants(one);
	d1 = dump(one);
	d3 = dump(three);
	dm = dump(many);
	cr_assert(strcmp(d1, d3) == 0, "3 parts differ from 1");
	cr_assert(strcmp(d1, dm) == 0, "29 parts differ from 1");
	cr_assert_gt(trex_index_flow_count(one), 100);
	cr_assert_gt(trex_index_integrity(one).orphan_flow_end, 0);
	cr_assert_gt(trex_index_integrity(one).unbound_flow_points, 0);
	free(d1);
	free(d3);
	free(dm);
	trex_index_free(one);
	trex_index_free(three);
	trex_index_free(many);
	gen_free(&g);
}

Test(index, thread_count_does_not_change_the_index)
{
	struct gen g = {NULL, 0, 0, NULL, 0, 0, 4242};
	struct trex_index *a, *b;
	char *da, *db;

	gen_everything(&g, 80000); /* over the size where workers start */
	a = build_n(g.ev, g.n, 1, 1);
	b = build_n(g.ev, g.n, 4, 3);
	check_invariants(b);
	cr_assert_geq(trex_index_slice_count(a), 70000);
	da = dump(a);
	db = dump(b);
	cr_assert(strcmp(da, db) == 0, "threads=3 differs from threads=1");
	free(da);
	free(db);
	trex_index_free(a);
	trex_index_free(b);
	gen_free(&g);
}

/* Everything the build computes for one index, as text: the dump plus
 * lanes and, per slice, its link and flow lookups. */
static char *dump_all(const struct trex_index *idx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	uint32_t ids[64];

	cr_assert_not_null(o);
	dump_meta(o, idx);
	dump_events(o, idx);
	for (uint32_t i = 0; i < trex_index_lane_count(idx); i++) {
		const struct trex_lane *l = trex_index_lane(idx, i);

		fprintf(o, "lane %u %u %u %u\n", l->track, l->depth, l->first, l->count);
	}
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		size_t n = trex_index_same_launch_link(idx, i, ids, 64);

		fprintf(o, "links %u corr %zu:", i, n);
		for (size_t k = 0; k < n && k < 64; k++)
			fprintf(o, " %u", ids[k]);
		n = trex_index_same_op_link(idx, i, ids, 64);
		fprintf(o, " ext %zu:", n);
		for (size_t k = 0; k < n && k < 64; k++)
			fprintf(o, " %u", ids[k]);
		n = trex_index_flows_of(idx, i, ids, 64);
		fprintf(o, " flows %zu:", n);
		for (size_t k = 0; k < n && k < 64; k++)
			fprintf(o, " %u", ids[k]);
		fprintf(o, "\n");
	}
	fclose(o);
	return buf;
}

/* Correlation and External ids on some X slices, in small ranges so that
 * links have several members. */
static void gen_links(struct gen *g)
{
	for (size_t i = 0; i < g->n; i++) {
		struct tev *e = &g->ev[i];

		if (e->ph != 'X' || rnd(g, 3) == 0)
			continue;
		e->corr = (uint32_t)rnd(g, 5000);
		e->ext = (uint32_t)rnd(g, 3000);
		e->flags = (uint16_t)((rnd(g, 4) ? TREX_SLICE_HAS_LAUNCH_LINK : 0) |
		                      (rnd(g, 4) ? TREX_SLICE_HAS_OP_LINK : 0));
	}
}

/* n flow chains s -> f between random threads of gen_nested (ids in a
 * range smaller than n, so some chains restart and some ends are orphans). */
static void gen_flows(struct gen *g, int n, int64_t span)
{
	static const char *const tids[] = {"1", "2", "3", "4", "5", "6", "7"};

	for (int i = 0; i < n; i++) {
		int64_t ts = rnd(g, span);
		uint64_t id = (uint64_t)rnd(g, n - n / 8);
		struct tev *e;

		e = gen_push(g, EV('s', "100", tids[rnd(g, 7)], "ac2g", "ac2g", ts, 0));
		e->id = id;
		ts += rnd(g, 900);
		e = gen_push(g, EV('f', "100", tids[rnd(g, 7)], "ac2g", "ac2g", ts, 0));
		e->id = id;
		e->encl = rnd(g, 2);
	}
}

/* Large enough for every parallel stage of the build, in two files of
 * many parts (some all X, handed over by blocks, some with B/E), and
 * built on 1, 2, 3 and 4 threads: every field of every record must be
 * the same. */
Test(index, parallel_build_is_identical_for_any_thread_count)
{
	struct gen g0 = {NULL, 0, 0, NULL, 0, 0, 31337}, g1 = {NULL, 0, 0, NULL, 0, 0, 4711};
	struct trace_spec spec[2];
	struct trex_index *idx[4];
	struct trex_error err;
	char *ref = NULL;

	gen_everything(&g0, 90000);
	gen_flows(&g0, 70000, 30 * 90000);
	gen_links(&g0);
	gen_everything(&g1, 50000);
	gen_flows(&g1, 3000, 30 * 50000);
	gen_links(&g1);
	spec[0] = (struct trace_spec){g0.ev, g0.n, 0};
	spec[1] = (struct trace_spec){g1.ev, g1.n, 1000};
	for (unsigned t = 1; t <= 4; t++) {
		char *d;

		cr_assert_eq(build_spec(spec, 2, t == 1 ? 1 : 5 + 6 * t, t, &idx[t - 1], &err),
		             TREX_OK, "%s", err.message);
		check_invariants(idx[t - 1]);
		d = dump_all(idx[t - 1]);
		if (!ref)
			ref = d;
		else
			cr_assert(strcmp(ref, d) == 0, "threads=%u differs from threads=1", t);
		if (d != ref)
			free(d);
	}
	cr_assert_gt(trex_index_slice_count(idx[0]), 130000);
	cr_assert_gt(trex_index_flow_count(idx[0]), 66000);
	for (unsigned t = 0; t < 4; t++)
		trex_index_free(idx[t]);
	free(ref);
	gen_free(&g0);
	gen_free(&g1);
}

/* ---- flows -------------------------------------------------------------------------------------
 */

static struct tev FL(char ph, const char *pid, const char *tid, const char *cat, const char *name,
                     uint64_t id, int64_t ts, bool encl) {
	struct tev e = EV(ph, pid, tid, cat, name, ts, 0);

	e.id = id;
	e.encl = encl;
	return e;
}

Test(index, flows_chain_bind_and_count_orphans)
{
	/* tests/data/flows.json */
	struct tev evs[] = {
	    EV('X', "1", "1", "cpu_op", "A", 0, 10),
	    EV('X', "1", "2", "cpu_op", "B", 20, 10),
	    EV('X', "0", "7", "kernel", "C", 40, 5),
	    FL('s', "1", "1", "fwd", "chain", 1, 5, false),
	    FL('t', "1", "2", "fwd", "chain", 1, 25, false),
	    FL('f', "0", "7", "fwd", "chain", 1, 42, true),
	    FL('s', "1", "1", "ac2g", "ac2g", 2, 6, false),
	    FL('f', "0", "7", "ac2g", "ac2g", 2, 39, false), /* next slice: C at 40 */
	    FL('f', "0", "7", "ac2g", "ac2g", 3, 41, true),  /* no start */
	    FL('s', "1", "2", "ac2g", "ac2g", 4, 21, false), /* no end */
	    FL('s', "1", "2", "other", "same id, other cat", 2, 22, false),
	    FL('f', "0", "7", "other", "same id, other cat", 2, 43, true),
	};
	struct trex_index *idx = BUILD(evs);
	struct trex_integrity in = trex_index_integrity(idx);
	uint32_t a = slice_id(idx, "A"), b = slice_id(idx, "B"), c = slice_id(idx, "C");
	uint32_t out[8];
	bool seen[4] = {false, false, false, false};
	static const int64_t hop_ends[] = {25, 42, 39, 43};

	cr_assert_eq(trex_index_flow_count(idx), 4);
	cr_assert_eq(in.orphan_flow_start, 1);
	cr_assert_eq(in.orphan_flow_end, 1);
	cr_assert_eq(in.unbound_flow_points, 0);
	for (uint32_t i = 0; i < 4; i++) {
		const struct trex_flow *f = trex_index_flow(idx, i);
		const char *name = str(idx, f->name);

		if (f->from_ts == 5) {
			cr_assert(f->from_slice == a && f->to_slice == b && f->to_ts == 25);
			cr_assert_str_eq(name, "chain");
			seen[0] = true;
		} else if (f->from_ts == 25) {
			cr_assert(f->from_slice == b && f->to_slice == c && f->to_ts == 42);
			cr_assert_eq(f->from_track, trex_index_slice(idx, b)->track);
			cr_assert_eq(f->to_track, trex_index_slice(idx, c)->track);
			seen[1] = true;
		} else if (f->from_ts == 6) {
			cr_assert(f->from_slice == a && f->to_slice == c && f->to_ts == 39);
			cr_assert_str_eq(str(idx, f->cat), "ac2g");
			seen[2] = true;
		} else {
			cr_assert(f->from_ts == 22 && f->from_slice == b && f->to_slice == c);
			cr_assert_str_eq(name, "same id, other cat");
			seen[3] = true;
		}
		cr_assert_eq(f->to_ts, hop_ends[i], "file order of hop ends");
	}
	cr_assert(seen[0] && seen[1] && seen[2] && seen[3]);
	cr_assert_eq(trex_index_flows_of(idx, a, out, 8), 2);
	cr_assert_eq(trex_index_flows_of(idx, b, out, 8), 3, "in from A, out to C twice");
	cr_assert_eq(trex_index_flows_of(idx, c, out, 1), 3, "returns the total");
	cr_assert_eq(trex_index_flows_of(idx, c, NULL, 0), 3);
	for (uint32_t i = 0; i < 3; i++) {
		trex_index_flows_of(idx, c, out, 8);
		cr_assert_eq(trex_index_flow(idx, out[i])->to_slice, c);
	}
	trex_index_free(idx);
}

Test(index, flow_points_off_slices_are_unbound)
{
	struct tev evs[] = {
	    EV('X', "1", "1", "c", "A", 100, 10),
	    EV('X', "1", "1", "c", "A1", 102, 3),
	    EV('X', "1", "2", "c", "Z", 200, 0),
	    FL('s', "1", "1", "x", "f", 1, 50, false),  /* before A: unbound */
	    FL('f', "1", "2", "x", "f", 1, 300, false), /* no slice at or after 300 */
	    FL('s', "1", "1", "x", "g", 2, 104, false), /* deepest: A1 */
	    FL('t', "1", "1", "x", "g", 2, 110, false), /* end of A, closed interval */
	    FL('f', "1", "2", "x", "g", 2, 200, true),  /* zero-length Z at 200 */
	    FL('s', "1", "1", "x", "h", 3, 0, false),   /* unbound step chain */
	    FL('t', "1", "1", "x", "h", 3, 1, false),
	    FL('f', "1", "1", "x", "h", 3, 2, true),
	};
	struct trex_index *idx = BUILD(evs);
	uint32_t a = slice_id(idx, "A"), a1 = slice_id(idx, "A1"), z = slice_id(idx, "Z");
	int found = 0;

	/* 2 (f) + 3 (h: s, t, f; t counted once) = 5 */
	cr_assert_eq(trex_index_integrity(idx).unbound_flow_points, 5);
	for (uint32_t i = 0; i < trex_index_flow_count(idx); i++) {
		const struct trex_flow *f = trex_index_flow(idx, i);

		if (f->from_ts == 104) {
			cr_assert_eq(f->from_slice, a1);
			cr_assert_eq(f->to_slice, a);
			found++;
		} else if (f->from_ts == 110) {
			cr_assert_eq(f->from_slice, a);
			cr_assert_eq(f->to_slice, z);
			found++;
		} else if (f->from_ts == 50) {
			cr_assert_eq(f->from_slice, TREX_NONE);
			cr_assert_eq(f->to_slice, TREX_NONE);
			found++;
		}
	}
	cr_assert_eq(found, 3);
	cr_assert_eq(trex_index_flows_of(idx, a, NULL, 0), 2,
	             "one enters from A1, one leaves for Z");
	trex_index_free(idx);
}

Test(index, restarted_flow_chain_counts_one_orphan_start)
{
	struct tev evs[] = {
	    EV('X', "1", "1", "c", "A", 0, 100),       FL('s', "1", "1", "x", "f", 9, 10, false),
	    FL('s', "1", "1", "x", "f", 9, 20, false), FL('f', "1", "1", "x", "f", 9, 30, true),
	    FL('t', "1", "1", "x", "f", 9, 40, false), /* chain closed: orphan */
	};
	struct trex_index *idx = BUILD(evs);
	struct trex_integrity in = trex_index_integrity(idx);

	cr_assert_eq(trex_index_flow_count(idx), 1);
	cr_assert_eq(trex_index_flow(idx, 0)->from_ts, 20);
	cr_assert_eq(in.orphan_flow_start, 1);
	cr_assert_eq(in.orphan_flow_end, 1);
	trex_index_free(idx);
}

/* ---- correlation and External id links ----------------------------------------------------------
 */

static struct tev LX(const char *pid, const char *tid, const char *cat, const char *name,
                     int64_t ts, uint32_t corr, uint32_t ext) {
	struct tev e = EV('X', pid, tid, cat, name, ts, 5);

	e.corr = corr;
	e.ext = ext;
	e.flags = (uint16_t)((corr ? TREX_SLICE_HAS_LAUNCH_LINK : 0) |
	                     (ext ? TREX_SLICE_HAS_OP_LINK : 0));
	return e;
}

static bool
contains(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

Test(index, correlation_and_external_id_lookups)
{
	struct tev f0[] = {
	    LX("1", "1", "cpu_op", "op", 0, 0, 11),
	    LX("1", "1", "cuda_runtime", "launch1", 10, 7, 11),
	    LX("1", "1", "cuda_runtime", "launch2", 20, 8, 11),
	    LX("0", "7", "kernel", "k1", 30, 7, 11),
	    LX("0", "7", "kernel", "k2", 40, 8, 0),
	    LX("0", "7", "kernel", "k3", 50, 9, 0),
	    LX("0", "7", "kernel", "k0", 60, 0, 0),
	    LX("0", "8", "kernel", "corr 0 is a value", 70, 0, 0),
	};
	struct tev f1[] = {LX("1", "1", "cuda_runtime", "other file", 10, 7, 11)};
	struct trace_spec spec[2] = {{f0, 8, 0}, {f1, 1, 0}};
	struct trex_index *idx;
	struct trex_error err;
	uint32_t out[8], op, l1, k1;

	spec[0].evs = f0;
	f0[7].flags = TREX_SLICE_HAS_LAUNCH_LINK;
	f0[6].flags = 0;
	cr_assert_eq(build_spec(spec, 2, 1, 1, &idx, &err), TREX_OK);
	op = slice_id(idx, "op");
	l1 = slice_id(idx, "launch1");
	k1 = slice_id(idx, "k1");
	cr_assert_eq(trex_index_same_launch_link(idx, l1, out, 8), 1);
	cr_assert_eq(out[0], k1);
	cr_assert_eq(trex_index_same_launch_link(idx, k1, out, 8), 1);
	cr_assert_eq(out[0], l1);
	cr_assert_eq(trex_index_same_launch_link(idx, slice_id(idx, "k3"), out, 8), 0);
	cr_assert_eq(trex_index_same_launch_link(idx, op, out, 8), 0, "no HAS_CORR: no links");
	cr_assert_eq(trex_index_same_launch_link(idx, slice_id(idx, "k0"), out, 8), 0);
	cr_assert_eq(trex_index_same_launch_link(idx, slice_id(idx, "other file"), out, 8), 0,
	             "links stay within a file");
	cr_assert_eq(trex_index_same_op_link(idx, op, out, 8), 3);
	cr_assert(contains(out, 3, l1) && contains(out, 3, k1));
	cr_assert(contains(out, 3, slice_id(idx, "launch2")));
	cr_assert_not(contains(out, 3, op), "a slice is not its own link");
	cr_assert_eq(trex_index_same_op_link(idx, op, out, 2), 3, "total, though 2 written");
	cr_assert_eq(trex_index_same_op_link(idx, slice_id(idx, "k2"), out, 8), 0);
	cr_assert_eq(trex_index_same_launch_link(idx, TREX_NONE, out, 8), 0);
	trex_index_free(idx);
}

/* A CUDA graph launch shares its link with all its kernels; with more of
 * them than a fixed buffer and the kernels' track first in id order, the
 * launch was once not found. */
Test(index, launch_of_graph_launch_with_many_kernels)
{
	struct tev evs[21];
	struct trace_spec spec[1] = {{evs, 21, 0}};
	struct trex_index *idx;
	struct trex_error err;
	char names[20][8];
	uint32_t launch;

	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof names[i], "k%d", i);
		evs[i] = LX("0", "7", "kernel", names[i], 30 + 10 * i, 7, 0);
	}
	evs[20] = LX("1", "1", "cuda_runtime", "cudaGraphLaunch", 10, 7, 0);
	cr_assert_eq(build_spec(spec, 1, 1, 1, &idx, &err), TREX_OK);
	launch = slice_id(idx, "cudaGraphLaunch");
	cr_assert_eq(trex_index_slice(idx, launch)->kind, TREX_KIND_RUNTIME);
	for (int i = 0; i < 20; i++) {
		uint32_t k = slice_id(idx, names[i]);

		cr_assert_lt(k, launch, "the kernels come first in id order");
		cr_assert_eq(trex_index_launch_of(idx, k), launch, "%s", names[i]);
	}
	cr_assert_eq(trex_index_launch_of(idx, launch), TREX_NONE);
	trex_index_free(idx);
}

/* Lookups by link over many entries with uneven gaps and repeats (the
 * search guesses from the links' spread): every slice finds exactly the
 * others with its link. */
Test(index, link_lookups_over_uneven_links)
{
	enum { N = 300 };
	static struct tev evs[N];
	static char names[N][8];
	static uint32_t corr[N];
	struct trace_spec spec[1] = {{evs, N, 0}};
	struct trex_index *idx;
	struct trex_error err;
	uint32_t out[N];
	uint64_t x = 12345;

	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* clustered small links, a few huge ones, many repeats */
		corr[i] =
		    (x >> 60) == 0 ? (uint32_t)(x >> 33) | 1u : 1 + (uint32_t)((x >> 40) % 97);
		snprintf(names[i], sizeof names[i], "s%d", i);
		evs[i] = LX(i % 3 ? "0" : "1", "7", i % 3 ? "kernel" : "cuda_runtime", names[i],
		            10 * i, corr[i], 0);
	}
	cr_assert_eq(build_spec(spec, 1, 1, 1, &idx, &err), TREX_OK);
	for (int i = 0; i < N; i++) {
		uint32_t id = slice_id(idx, names[i]);
		size_t want = 0, got = trex_index_same_launch_link(idx, id, out, N);

		for (int j = 0; j < N; j++)
			want += j != i && corr[j] == corr[i];
		cr_assert_eq(got, want, "%s (link %u): %zu linked, want %zu", names[i], corr[i],
		             got, want);
		for (size_t k = 0; k < got; k++)
			cr_assert_eq(trex_slice_launch_link(idx, out[k]), corr[i]);
	}
	trex_index_free(idx);
}

/* ---- processes and tracks: order, kinds, names
 * ------------------------------------------------------ */

static struct tev META(char ph, const char *pid, const char *tid, const char *text, int64_t index) {
	struct tev e = EV(ph, pid, tid, "", text, 0, 0);

	e.index = index;
	return e;
}

Test(index, processes_and_tracks_follow_sort_indexes)
{
	struct tev evs[] = {
	    EV('X', "20", "5", "cpu_op", "a", 0, 1),
	    EV('X', "20", "3", "cpu_op", "b", 0, 1),
	    EV('X', "3", "1", "cpu_op", "c", 0, 1),
	    EV('X', "Spans", "PyTorch Profiler", "Trace", "d", 0, 1),
	    EV('X', "0", "stream 24", "kernel", "k24", 0, 1),
	    EV('X', "0", "stream 7", "kernel", "k7", 0, 1),
	    EV('C', "20", "", "", "mem", 0, 0),
	    EV('b', "20", "", "io", "read", 0, 0),
	    EV('e', "20", "", "io", "read", 1, 0),
	    META('q', "Spans", "", "", -5),
	    META('q', "3", "", "", 100),
	    META('Q', "20", "5", "", 1),
	    META('T', "20", "5", "main thread", 0),
	    META('p', "20", "", "python3", 0),
	    META('L', "0", "", "GPU 0", 0),
	};
	struct trex_index *idx = BUILD(evs);
	const char *pids[] = {"Spans", "0", "20", "3"};
	const struct trex_process *p20;
	const struct trex_track *t;

	check_invariants(idx);
	cr_assert_eq(trex_index_process_count(idx), 4);
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_str_eq(str(idx, trex_index_process(idx, i)->pid), pids[i], "process %u",
		                 i);
	cr_assert_eq(trex_index_process(idx, 0)->sort_index, -5);
	cr_assert(trex_index_process(idx, 0)->has_sort_index);
	cr_assert_eq(trex_index_process(idx, 2)->pid_num, 20);
	cr_assert_eq(trex_index_process(idx, 2)->sort_index, 20, "pid_num when no sort index");
	cr_assert_not(trex_index_process(idx, 2)->has_sort_index);
	p20 = trex_index_process(idx, 2);
	cr_assert_str_eq(str(idx, p20->name), "python3");
	cr_assert_eq(p20->track_count, 4);
	/* threads by sort index (tid 5 has index 1 < tid 3), then async, then counters */
	t = trex_index_track(idx, p20->first_track);
	cr_assert_str_eq(str(idx, t->tid), "5");
	cr_assert_str_eq(str(idx, t->name), "main thread");
	cr_assert_eq(t->sort_index, 1);
	t++;
	cr_assert_str_eq(str(idx, t->tid), "3");
	cr_assert_str_eq(str(idx, t->name), "thread 3");
	cr_assert_eq(t->tid_num, 3);
	t++;
	cr_assert_eq(t->kind, TREX_TRACK_ASYNC);
	cr_assert_str_eq(str(idx, t->name), "read");
	t++;
	cr_assert_eq(t->kind, TREX_TRACK_COUNTER);
	cr_assert_str_eq(str(idx, t->name), "mem");
	/* GPU process: natural order of "stream 7" and "stream 24" */
	t = trex_index_track(idx, trex_index_process(idx, 1)->first_track);
	cr_assert_str_eq(str(idx, t[0].tid), "stream 7");
	cr_assert_str_eq(str(idx, t[1].tid), "stream 24");
	cr_assert_str_eq(str(idx, t[0].name), "stream 7");
	cr_assert_eq(t[0].kind, TREX_TRACK_GPU);
	cr_assert(trex_index_process(idx, 1)->is_gpu);
	cr_assert_str_eq(str(idx, trex_index_process(idx, 1)->labels), "GPU 0");
	cr_assert_not(trex_index_process(idx, 0)->is_gpu);
	cr_assert_str_eq(str(idx, trex_index_track(idx, 0)->name), "PyTorch Profiler");
	trex_index_free(idx);
}

Test(index, gpu_tracks_by_category_or_process_label)
{
	struct tev evs[] = {
	    EV('X', "0", "7", "kernel", "k", 10, 1),
	    EV('X', "0", "8", "gpu_memcpy", "Memcpy HtoD", 10, 1),
	    EV('X', "0", "0", "python_function", "py", 10, 1),
	    EV('X', "1", "7", "cpu_op", "op", 10, 1),
	    EV('X', "1", "8", "cpu_op", "op2", 10, 1),
	    EV('X', "1", "8", "kernel", "stray kernel", 20, 1),
	    EV('X', "2", "1", "cpu_op", "on GPU-labelled pid", 10, 1),
	    META('L', "2", "", "GPU 1", 0),
	    META('L', "1", "", "CPU", 0),
	};
	struct trex_index *idx = BUILD(evs);

	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "0", "7"))->kind, TREX_TRACK_GPU);
	cr_assert_str_eq(str(idx, trex_index_track(idx, track_id(idx, 0, "0", "7"))->name),
	                 "stream 7");
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "0", "8"))->kind, TREX_TRACK_GPU);
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "0", "0"))->kind, TREX_TRACK_THREAD,
	             "python frames on pid 0 stay a CPU thread");
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "1", "7"))->kind, TREX_TRACK_THREAD);
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "1", "8"))->kind, TREX_TRACK_GPU);
	cr_assert_eq(trex_index_track(idx, track_id(idx, 0, "2", "1"))->kind, TREX_TRACK_GPU);
	cr_assert_str_eq(str(idx, trex_index_track(idx, track_id(idx, 0, "1", "7"))->name),
	                 "thread 7");
	check_invariants(idx);
	trex_index_free(idx);
}

Test(index, strings_and_tracks_are_remapped_across_parts)
{
	struct trex_builder *p[2] = {trex_builder_new(0), trex_builder_new(0)};
	struct trex_build_file f;
	struct trex_build_input in = {&f, 1, p, 2, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	struct tev e1 = EV('X', "1", "2", "cat a", "name a", 0, 10);
	struct tev e2 = EV('X', "1", "2", "cat b", "name b", 20, 10);
	struct tev e3 = EV('X', "1", "3", "cat a", "name c", 5, 1);
	struct tev m = META('T', "1", "2", "renamed", 0);

	memset(&f, 0, sizeof(f));
	/* part 2 interns in another order: local ids differ, global ones must not */
	S(p[1], "zzz");
	S(p[1], "name b");
	feed(p[0], &e1);
	feed(p[1], &e2);
	feed(p[1], &e3);
	feed(p[1], &m);
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK);
	cr_assert_eq(trex_index_track_count(idx), 2);
	cr_assert_eq(slice_named(idx, "name a")->track, slice_named(idx, "name b")->track);
	cr_assert_str_eq(str(idx, slice_named(idx, "name b")->cat), "cat b");
	cr_assert_eq(slice_named(idx, "name a")->cat, slice_named(idx, "name c")->cat);
	cr_assert_str_eq(str(idx, trex_index_track(idx, slice_named(idx, "name a")->track)->name),
	                 "renamed");
	cr_assert_neq(trex_strtab_find(trex_index_strings(idx), "zzz", 3), TREX_STR_ERROR);
	trex_index_free(idx);
}

Test(index, counters_are_sorted_per_series)
{
	struct tev evs[] = {
	    EV('C', "0", "", "", "GPU 0 Utilization", 20, 0),
	    EV('C', "0", "", "", "GPU 0 Utilization", 10, 0),
	    EV('C', "1", "", "", "mem alloc", 30, 0),
	    EV('C', "1", "", "", "mem free", 30, 0),
	    EV('C', "0", "", "", "GPU 0 Utilization", 15, 0),
	    EV('X', "1", "1", "cpu_op", "work", 0, 40),
	};
	struct trex_index *idx;
	uint32_t u;
	const struct trex_track *t;

	evs[0].value = 1.0;
	evs[1].value = 0.5;
	evs[2].value = 10;
	evs[3].value = 5.25;
	evs[4].value = 0.75;
	idx = BUILD(evs);
	cr_assert_eq(trex_index_sample_count(idx), 5);
	u = track_id(idx, 0, "0", "GPU 0 Utilization");
	cr_assert_neq(u, TREX_NONE);
	t = trex_index_track(idx, u);
	cr_assert_eq(t->kind, TREX_TRACK_COUNTER);
	cr_assert_eq(t->sample_count, 3);
	cr_assert_eq(trex_index_sample(idx, t->first_sample)->ts, 10);
	cr_assert_eq(trex_index_sample(idx, t->first_sample)->value, 0.5);
	cr_assert_eq(trex_index_sample(idx, t->first_sample + 1)->value, 0.75);
	cr_assert_eq(trex_index_sample(idx, t->first_sample + 2)->value, 1.0);
	t = trex_index_track(idx, track_id(idx, 0, "1", "mem free"));
	cr_assert_eq(t->sample_count, 1);
	cr_assert_eq(trex_index_sample(idx, t->first_sample)->value, 5.25);
	cr_assert_str_eq(str(idx, t->name), "mem free");
	cr_assert_eq(t->max_depth, 0);
	cr_assert_null(trex_index_sample(idx, 5));
	trex_index_free(idx);
}

static struct tev AS(char ph, const char *name, uint64_t id, int64_t ts) {
	struct tev e = EV(ph, "1", "1", "io", name, ts, 0);

	e.id = id;
	return e;
}

Test(index, async_pairs_land_on_the_outermost_name_track)
{
	/* tests/data/async.json plus stray and open events */
	struct tev evs[] = {
	    AS('b', "read", 1, 10000),
	    AS('b', "parse", 1, 12000),
	    AS('n', "progress", 1, 13000),
	    AS('e', "parse", 1, 15000),
	    AS('e', "read", 1, 30000),
	    AS('b', "write", 7, 11000),
	    AS('e', "write", 7, 21000),
	    AS('e', "stray", 8, 5000),
	    AS('b', "open", 9, 40000),
	    AS('n', "lonely", 10, 1000),
	    EV('X', "1", "1", "cpu_op", "last", 0, 50000),
	};
	struct trex_index *idx = BUILD(evs);
	const struct trex_slice *read = slice_named(idx, "read"),
	                        *parse = slice_named(idx, "parse");
	const struct trex_slice *write = slice_named(idx, "write"),
	                        *open = slice_named(idx, "open");
	const uint16_t A = TREX_SLICE_ASYNC;
	uint32_t lonely = TREX_NONE;

	check_invariants(idx);
	cr_assert(read->ts == 10000 && read->dur == 20000 && read->depth == 0 && read->flags == A);
	cr_assert(parse->ts == 12000 && parse->dur == 3000 && parse->depth == 1);
	cr_assert_eq(parse->track, read->track);
	cr_assert(write->ts == 11000 && write->dur == 10000 && write->depth == 0);
	cr_assert_neq(write->track, read->track);
	cr_assert_eq(trex_index_track(idx, read->track)->kind, TREX_TRACK_ASYNC);
	cr_assert_str_eq(str(idx, trex_index_track(idx, read->track)->name), "read");
	cr_assert_eq(open->flags, A | TREX_SLICE_UNTERMINATED);
	cr_assert_eq(open->dur, 10000, "open b runs to the file's last end");
	cr_assert_eq(trex_index_integrity(idx).unmatched_end, 1);
	cr_assert_eq(trex_index_integrity(idx).unmatched_begin, 1);
	cr_assert_eq(trex_index_instant_count(idx), 2);
	for (uint32_t i = 0; i < 2; i++) {
		const struct trex_instant *in = trex_index_instant(idx, i);

		if (strcmp(str(idx, in->name), "progress") == 0)
			cr_assert_eq(in->track, read->track);
		else
			lonely = in->track;
	}
	cr_assert_str_eq(str(idx, trex_index_track(idx, lonely)->name), "lonely");
	trex_index_free(idx);
}

/* ---- time base, instants, queries ---------------------------------------------------------------
 */

Test(index, base_time_is_added_per_file)
{
	const int64_t base = 1711964646000000000;
	struct tev f0[] = {
	    EV('X', "0", "20", "kernel", "nccl", 4458676522690655, 12500),
	    EV('X', "1", "1", "cpu_op", "at base", 0, 1000),
	    EV('i', "1", "1", "", "mark", 5, 0),
	    EV('B', "1", "2", "cpu_op", "open", 100, 0),
	    FL('s', "1", "1", "x", "f", 1, 500, false),
	    FL('f', "0", "20", "x", "f", 1, 4458676522690655, true),
	};
	struct tev f1[] = {EV('X', "1", "1", "cpu_op", "other", 0, 7)};
	struct trace_spec spec[2] = {{f0, 6, base}, {f1, 1, -1000}};
	struct trex_index *idx;
	struct trex_error err;
	const struct trex_flow *fl;

	cr_assert_eq(build_spec(spec, 2, 1, 1, &idx, &err), TREX_OK);
	cr_assert_eq(slice_named(idx, "nccl")->ts, 1716423322522690655);
	cr_assert_eq(slice_named(idx, "at base")->ts, base);
	cr_assert_eq(slice_named(idx, "other")->ts, -1000);
	cr_assert_eq(trex_index_instant(idx, 0)->ts, base + 5);
	cr_assert_eq(slice_named(idx, "open")->ts, base + 100);
	cr_assert_eq(end_of(slice_named(idx, "open")), 1716423322522690655 + 12500,
	             "unterminated B runs to the file's last end, base included");
	fl = trex_index_flow(idx, 0);
	cr_assert_eq(fl->from_ts, base + 500);
	cr_assert_eq(fl->to_slice, slice_id(idx, "nccl"));
	cr_assert_eq(trex_index_file(idx, 0)->base_time_ns, base);
	cr_assert_eq(trex_index_start(idx), -1000);
	cr_assert_eq(trex_index_end(idx), 1716423322522690655 + 12500);
	cr_assert_eq(trex_index_process(idx, trex_index_process_count(idx) - 1)->file, 1);
	trex_index_free(idx);
}

Test(index, saturating_times_are_flagged)
{
	struct tev f0[] = {EV('X', "1", "1", "c", "late", INT64_MAX - 10, 5)};
	struct trace_spec spec = {f0, 1, 100};
	struct trex_index *idx;
	struct trex_error err;

	cr_assert_eq(build_spec(&spec, 1, 1, 1, &idx, &err), TREX_OK);
	cr_assert_eq(slice_named(idx, "late")->ts, INT64_MAX);
	cr_assert(slice_named(idx, "late")->flags & TREX_SLICE_TS_SATURATED);
	check_invariants(idx);
	trex_index_free(idx);
}

Test(index, instants_sorted_by_track_then_time)
{
	struct tev evs[] = {
	    EV('i', "1", "2", "", "c", 30, 0),
	    EV('i', "1", "1", "", "b", 20, 0),
	    EV('i', "1", "1", "", "a", 10, 0),
	    EV('i', "1", "2", "", "d", 30, 0),
	};
	struct trex_index *idx = BUILD(evs);
	const struct trex_track *t1 = trex_index_track(idx, track_id(idx, 0, "1", "1"));
	const struct trex_track *t2 = trex_index_track(idx, track_id(idx, 0, "1", "2"));

	cr_assert_eq(t1->instant_count, 2);
	cr_assert_str_eq(str(idx, trex_index_instant(idx, t1->first_instant)->name), "a");
	cr_assert_str_eq(str(idx, trex_index_instant(idx, t1->first_instant + 1)->name), "b");
	cr_assert_eq(t2->instant_count, 2);
	cr_assert_str_eq(str(idx, trex_index_instant(idx, t2->first_instant)->name), "c",
	                 "equal times keep file order");
	cr_assert_str_eq(str(idx, trex_index_instant(idx, t2->first_instant + 1)->name), "d");
	cr_assert_eq(t1->max_depth, 0);
	cr_assert_null(trex_index_instant(idx, 4));
	trex_index_free(idx);
}

Test(index, lane_searches_slice_at_and_parent)
{
	struct tev evs[] = {
	    EV('X', "1", "1", "c", "p", 100, 100), EV('X', "1", "1", "c", "c1", 110, 20),
	    EV('X', "1", "1", "c", "c2", 150, 10), EV('X', "1", "1", "c", "g", 152, 3),
	    EV('X', "1", "1", "c", "z", 170, 0),   EV('X', "1", "1", "c", "q", 300, 10),
	    EV('X', "1", "1", "c", "ov", 305, 20), EV('X', "1", "1", "c", "in ov", 315, 5),
	};
	struct trex_index *idx = BUILD(evs);
	uint32_t t = track_id(idx, 0, "1", "1");
	const struct trex_track *tr = trex_index_track(idx, t);
	const struct trex_lane *l0 = trex_index_lane(idx, tr->first_lane);
	const struct trex_lane *l1 = trex_index_lane(idx, tr->first_lane + 1);

	check_invariants(idx);
	cr_assert_eq(tr->max_depth, 3);
	cr_assert_eq(l0->count, 2);
	cr_assert_eq(trex_lane_find_end_at_or_after(idx, l0, 0), l0->first);
	cr_assert_eq(trex_lane_find_end_at_or_after(idx, l0, 200), l0->first, "end 200 touches");
	cr_assert_eq(trex_lane_find_end_at_or_after(idx, l0, 201), l0->first + 1);
	cr_assert_eq(trex_lane_find_end_at_or_after(idx, l0, 311), l0->first + 2);
	cr_assert_eq(trex_lane_find_start_after(idx, l0, 99), l0->first);
	cr_assert_eq(trex_lane_find_start_after(idx, l0, 100), l0->first + 1);
	cr_assert_eq(trex_lane_find_start_after(idx, l1, 1000), l1->first + l1->count);
	cr_assert_eq(trex_lane_find_end_at_or_after(idx, l1, 170), slice_id(idx, "z"),
	             "a zero-length slice at t touches t");
	cr_assert_eq(trex_index_slice_at(idx, t, 153), slice_id(idx, "g"));
	cr_assert_eq(trex_index_slice_at(idx, t, 155), slice_id(idx, "c2"), "end is exclusive");
	cr_assert_eq(trex_index_slice_at(idx, t, 170), slice_id(idx, "z"));
	cr_assert_eq(trex_index_slice_at(idx, t, 171), slice_id(idx, "p"));
	cr_assert_eq(trex_index_slice_at(idx, t, 200), TREX_NONE);
	cr_assert_eq(trex_index_slice_at(idx, t, 99), TREX_NONE);
	/* after q ends, "in ov" still lies inside ov one lane deeper */
	cr_assert_eq(trex_index_slice_at(idx, t, 316), slice_id(idx, "in ov"));
	cr_assert_eq(trex_index_slice_at(idx, t, 321), slice_id(idx, "ov"));
	cr_assert_eq(trex_index_slice_at(idx, 99, 0), TREX_NONE);
	cr_assert_eq(trex_index_parent(idx, slice_id(idx, "g")), slice_id(idx, "c2"));
	cr_assert_eq(trex_index_parent(idx, slice_id(idx, "c2")), slice_id(idx, "p"));
	cr_assert_eq(trex_index_parent(idx, slice_id(idx, "z")), slice_id(idx, "p"));
	cr_assert_eq(trex_index_parent(idx, slice_id(idx, "ov")), slice_id(idx, "q"));
	cr_assert_eq(trex_index_parent(idx, slice_id(idx, "in ov")), slice_id(idx, "ov"));
	cr_assert_eq(trex_index_parent(idx, slice_id(idx, "p")), TREX_NONE);
	cr_assert_eq(trex_index_parent(idx, 999), TREX_NONE);
	trex_index_free(idx);
}

/* ---- lazy args
 * ----------------------------------------------------------------------------------- */

static const char args_json[] = "{\"traceEvents\":[\n"
                                "{\"ph\":\"X\",\"name\":\"k\",\"args\":{\"grid\":[1,2,3],\"s\":\"}{"
                                "\\\"]\",\"o\":{\"a\":{}}}},\n"
                                "{\"ph\":\"X\",\"name\":\"open\",\"args\":{\"never\":\"closes\"\n";

static struct trex_index *args_index(struct trex_source *src)
{
	struct trex_build_file f;
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_input in = {&f, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;

	memset(&f, 0, sizeof(f));
	f.path = "args.json";
	f.codec = &trex_json_args_codec;
	f.codec_ctx = src;
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK);
	cr_assert_null(f.codec_ctx, "the source moved into the index");
	cr_assert_eq(trex_index_file(idx, 0)->codec_ctx, src);
	return idx;
}

static void check_args(struct trex_index *idx)
{
	const char *obj = strstr(args_json, "{\"grid\"");
	const char *expect = "{\"grid\":[1,2,3],\"s\":\"}{\\\"]\",\"o\":{\"a\":{}}}";
	uint64_t off = (uint64_t)(obj - args_json);
	char sentinel = 'x', *text = &sentinel;
	size_t len = 1;
	struct trex_error err;

	cr_assert_eq(trex_index_args_json(idx, 0, 0, &text, &len, &err), TREX_OK);
	cr_assert_null(text, "no args");
	cr_assert_eq(len, 0);
	cr_assert_eq(trex_index_args_json(idx, 0, trex_json_args_ref(off, strlen(expect)), &text,
	                                  &len, &err),
	             TREX_OK);
	cr_assert_str_eq(text, expect);
	cr_assert_eq(len, strlen(expect));
	free(text);
	/* length unknown: re-scanned, braces inside strings do not count */
	cr_assert_eq(
	    trex_index_args_json(idx, 0, trex_json_args_ref(off, 1u << 30), &text, &len, &err),
	    TREX_OK);
	cr_assert_str_eq(text, expect);
	free(text);
	off = (uint64_t)(strstr(args_json, "{\"never\"") - args_json);
	cr_assert_eq(trex_index_args_json(idx, 0, trex_json_args_ref(off, TREX_JSON_ARGS_LEN_MAX),
	                                  &text, &len, &err),
	             TREX_FORMAT, "an object cut by the end of input");
	cr_assert_null(text);
	cr_assert_eq(trex_index_args_json(idx, 0, trex_json_args_ref(off, 500), &text, &len, &err),
	             TREX_FORMAT, "args past the end");
	cr_assert_eq(trex_index_args_json(idx, 0, trex_json_args_ref(0, 0) | 1, &text, &len, &err),
	             TREX_OK, "length 0 means no args");
	cr_assert_eq(trex_index_args_json(idx, 3, trex_json_args_ref(off, 5), &text, &len, &err),
	             TREX_USAGE);
}

Test(index, args_text_reads_and_rescans_plain_sources)
{
	struct trex_source *src;
	struct trex_error err;
	struct trex_index *idx;

	cr_assert_eq(
	    trex_source_open_memory("args.json", args_json, strlen(args_json), true, &src, &err),
	    TREX_OK);
	idx = args_index(src);
	check_args(idx);
	cr_assert_geq(trex_index_memory(idx), trex_source_memory(src));
	trex_index_free(idx); /* closes the source (valgrind/ASan see a leak otherwise) */
}

#include <zlib.h>

Test(index, args_text_reads_gzip_sources)
{
	unsigned char gz[4096];
	z_stream zs;
	struct trex_source *src;
	struct trex_error err;
	struct trex_index *idx;

	memset(&zs, 0, sizeof(zs));
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)(uintptr_t)args_json;
	zs.avail_in = (uInt)strlen(args_json);
	zs.next_out = gz;
	zs.avail_out = sizeof(gz);
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	cr_assert_eq(trex_source_open_memory("args.json.gz", gz, sizeof(gz) - zs.avail_out, true,
	                                     &src, &err),
	             TREX_OK);
	deflateEnd(&zs);
	idx = args_index(src);
	check_args(idx);
	trex_index_free(idx);
}

Test(index, args_text_without_a_source_is_an_io_error)
{
	struct tev evs[] = {EV('X', "1", "1", "c", "x", 0, 1)};
	struct trex_index *idx = BUILD(evs);
	char *text;
	size_t len;
	struct trex_error err;

	cr_assert_eq(trex_index_args_json(idx, 0, trex_json_args_ref(5, 5), &text, &len, &err),
	             TREX_IO);
	cr_assert_str_eq(err.path, "a.json");
	trex_index_free(idx);
}

/* ---- failures
 * ------------------------------------------------------------------------------------ */

Test(index, failed_builder_fails_the_build_and_everything_is_freed)
{
	struct trex_builder *p[3] = {trex_builder_new(0), trex_builder_new(0), trex_builder_new(1)};
	struct trex_build_file f[2];
	struct trex_build_input in = {f, 2, p, 3, 1, NULL, NULL};
	struct trex_index *idx = (struct trex_index *)&in;
	struct trex_error err;
	struct trex_source *src;
	struct tev e = EV('X', "1", "1", "c", "x", 0, 1);

	memset(f, 0, sizeof(f));
	cr_assert_eq(trex_source_open_memory("m", "{}", 2, true, &src, &err), TREX_OK);
	f[1].codec = &trex_json_args_codec;
	f[1].codec_ctx = src;
	feed(p[0], &e);
	cr_assert_eq(trex_builder_complete(p[1], 42, NULL), TREX_HANDLE_NONE);
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_NOMEM);
	cr_assert_eq(err.status, TREX_NOMEM);
	cr_assert_null(idx);
	cr_assert(!p[0] && !p[1] && !p[2], "parts freed on failure too");
	cr_assert_null(f[1].codec_ctx, "the source was taken (and closed)");
}

Test(index, parts_out_of_file_order_are_a_usage_error)
{
	struct trex_builder *p[2] = {trex_builder_new(1), trex_builder_new(0)};
	struct trex_build_file f[2];
	struct trex_build_input in = {f, 2, p, 2, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;

	memset(f, 0, sizeof(f));
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_USAGE);
	cr_assert_null(idx);
	cr_assert(!p[0] && !p[1]);
	p[0] = trex_builder_new(5);
	in.part_count = 1;
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_USAGE, "no such file");
	cr_assert_null(p[0]);
}

Test(index, bad_string_ids_are_a_usage_error)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file f;
	struct trex_build_input in = {&f, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	struct trex_ev ev;
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));

	memset(&f, 0, sizeof(f));
	memset(&ev, 0, sizeof(ev));
	ev.name = 12345;
	cr_assert_eq(trex_builder_complete(b, t, &ev), 0);
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_USAGE);
	cr_assert_null(idx);
}

Test(index, nesting_beyond_the_depth_limit_is_reported)
{
	enum { N = 65536 };
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file f;
	struct trex_build_input in = {&f, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	struct trex_ev ev;
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));

	memset(&f, 0, sizeof(f));
	memset(&ev, 0, sizeof(ev));
	for (int i = 0; i < N; i++) {
		ev.ts = i;
		ev.dur = 2 * (N - i);
		cr_assert_eq(trex_builder_complete(b, t, &ev), (trex_handle)i);
	}
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "deep"), "%s", err.message);
}

Test(index, deepest_allowed_nesting_builds)
{
	enum { N = 65535 };
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file f;
	struct trex_build_input in = {&f, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	struct trex_ev ev;
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));

	memset(&f, 0, sizeof(f));
	memset(&ev, 0, sizeof(ev));
	for (int i = 0; i < N; i++) {
		ev.ts = i;
		ev.dur = 2 * (N - i);
		cr_assert_eq(trex_builder_complete(b, t, &ev), (trex_handle)i);
	}
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_index_track(idx, 0)->max_depth, N);
	cr_assert_eq(trex_index_slice_at(idx, 0, N - 1), N - 1);
	trex_index_free(idx);
}

#ifdef OOM_TESTS
/* Every allocation of a build made to fail in turn: each run returns NOMEM
 * with nothing leaked (valgrind), or succeeds (a failure that is only an
 * optimisation, such as shrinking) with the very same index. */
/* A checksum of everything in an index but its strings' text; computing
 * it allocates nothing. */
static uint64_t digest(const struct trex_index *idx)
{
	struct trex_integrity in = trex_index_integrity(idx);
	uint64_t h = 1469598103934665603ull;

#define MIX(ptr, size)                                                                             \
	for (size_t b_ = 0; b_ < (size); b_++)                                                     \
		h = (h ^ ((const unsigned char *)(ptr))[b_]) * 1099511628211ull;
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		MIX(trex_index_slice(idx, i), sizeof(struct trex_slice));
		uint32_t side[4] = {trex_slice_launch_link(idx, i), trex_slice_op_link(idx, i),
		                    trex_slice_shape(idx, i), trex_slice_comm(idx, i)};
		MIX(side, sizeof(side));
	}
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++)
		MIX(trex_index_track(idx, i), sizeof(struct trex_track));
	for (uint32_t i = 0; i < trex_index_process_count(idx); i++)
		MIX(trex_index_process(idx, i), sizeof(struct trex_process));
	for (uint32_t i = 0; i < trex_index_lane_count(idx); i++)
		MIX(trex_index_lane(idx, i), sizeof(struct trex_lane));
	for (uint32_t i = 0; i < trex_index_flow_count(idx); i++)
		MIX(trex_index_flow(idx, i), sizeof(struct trex_flow));
	for (uint32_t i = 0; i < trex_index_instant_count(idx); i++)
		MIX(trex_index_instant(idx, i), sizeof(struct trex_instant));
	for (uint32_t i = 0; i < trex_index_sample_count(idx); i++)
		MIX(trex_index_sample(idx, i), sizeof(struct trex_counter_sample));
	MIX(&in, sizeof(in));
#undef MIX
	return h;
}

static void oom_parts(const struct trace_spec *spec, struct trex_builder **parts)
{
	for (size_t p = 0; p < 4; p++) {
		const struct trace_spec *sp = &spec[p / 2];

		parts[p] = trex_builder_new((uint32_t)(p / 2));
		for (size_t i = sp->n * (p % 2) / 2; i < sp->n * (p % 2 + 1) / 2; i++)
			feed(parts[p], &sp->evs[i]);
	}
}

/* One build with allocation k failing; false once no allocation failed. */
static bool oom_round(const struct trace_spec *spec, long k, uint64_t want, int *nomem)
{
	struct trex_build_file files[2];
	struct trex_builder *parts[4];
	struct trex_build_input in = {files, 2, parts, 4, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	enum trex_status st;
	bool failed;

	memset(files, 0, sizeof(files));
	files[1].base_time_ns = 7;
	oom_live = 0;
	oom_counting = true;
	oom_parts(spec, parts);
	oom_countdown = k;
	st = trex_index_build(&in, &idx, &err);
	failed = oom_countdown < 0;
	oom_countdown = -1;
	if (st == TREX_OK) {
		cr_assert_eq(digest(idx), want,
		             "allocation %ld failed quietly but changed the index", k);
		trex_index_free(idx);
	} else {
		cr_assert(failed && st == TREX_NOMEM, "allocation %ld: %s", k, err.message);
		cr_assert_null(idx);
		(*nomem)++;
	}
	oom_counting = false;
	cr_assert_eq(oom_live, 0, "allocation %ld failing leaks %ld blocks", k, oom_live);
	for (size_t p = 0; p < 4; p++)
		cr_assert_null(parts[p]);
	return failed;
}

/* Every allocation of a build made to fail in turn: each run returns NOMEM
 * having freed every block it made, or succeeds (a failure that only costs
 * an optimisation, such as shrinking) with the very same index. */
Test(index, every_allocation_failure_is_clean)
{
	struct gen g = {NULL, 0, 0, NULL, 0, 0, 99};
	struct trace_spec spec[2];
	struct trex_builder *parts[4];
	struct trex_build_file files[2];
	struct trex_build_input in = {files, 2, parts, 4, 1, NULL, NULL};
	struct trex_index *ref;
	struct trex_error err;
	uint64_t want;
	long k = 0;
	int nomem = 0;

	if (!oom_hook_works())
		cr_skip_test("the allocation hook is not in effect here");
	gen_everything(&g, 300);
	spec[0] = (struct trace_spec){g.ev, g.n / 2, 0};
	spec[1] = (struct trace_spec){g.ev + g.n / 2, g.n - g.n / 2, 7};
	memset(files, 0, sizeof(files));
	files[1].base_time_ns = 7;
	oom_parts(spec, parts);
	cr_assert_eq(trex_index_build(&in, &ref, &err), TREX_OK);
	want = digest(ref);
	while (oom_round(spec, k, want, &nomem))
		k++;
	cr_assert_gt(k, 50, "the build allocates: the countdown did reach it");
	cr_assert_gt(nomem, k / 2);
	trex_index_free(ref);
	gen_free(&g);
}
#endif

Test(index, memory_per_slice_is_small)
{
	struct gen g = {NULL, 0, 0, NULL, 0, 0, 5};
	struct trex_index *idx;
	size_t mem;

	gen_nested(&g, 100000);
	idx = build_n(g.ev, g.n, 1, 1);
	mem = trex_index_memory(idx);
	/* 56-byte slices, unique names in this test, lanes and tracks */
	cr_assert_lt(mem, (size_t)trex_index_slice_count(idx) * (56 + 40),
	             "%zu bytes for %u slices", mem, trex_index_slice_count(idx));
	cr_assert_gt(mem, (size_t)trex_index_slice_count(idx) * 56);
	trex_index_free(idx);
	gen_free(&g);
}
