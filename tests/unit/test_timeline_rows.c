/* The timeline's row model over a hand-built index of two ranks, shaped
 * like a Kineto trace:
 *
 *   rank 0 (a.json)
 *     pid 100 "python3": tid 100  step [0,100) > op [10,50) > gemm_launch [20,30)
 *                        tid 101  other [0,10)
 *                        counter "mem"
 *     pid 0 "python3":   tid 7 (GPU) gemm_kernel [20,40)
 *     pid "" :           tid ""  "Record Window End" (global instant)
 *     pid "Traces":      tid "Trace PyTorch Profiler" "Iteration Start" (global instant)
 *     pid "Spans":       tid "PyTorch Profiler" "PyTorch Profiler (0)" [0,100), cat Trace
 *     pid 3 "python3":   nothing but its name
 *     pid 200:           tid 200 "mark" (thread instant); tid 201 named, no event
 *   rank 1 (b.json)
 *     pid 300 "python3": tid 300 step [0,100)
 *     pid 1 "python3":   tid 7 (GPU) relu_kernel [0,10)
 *
 * Rows are compared as the names column would show them (no width limit). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_rows.h"
#include "trex/analysis/search.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

static void slice(struct trex_builder *b, struct trex_build_file *f, const char *pid,
                  const char *tid, const char *cat, const char *name, int64_t ts, int64_t dur)
{
	fixture_add(b, f, &(struct fixture_slice){pid, tid, cat, name, ts, dur, 0, 0, NULL});
}

static void instant(struct trex_builder *b, const char *pid, const char *tid, const char *name,
                    int64_t ts, enum trex_instant_scope scope)
{
	uint32_t track = trex_builder_track(b, fixture_str(b, pid), fixture_str(b, tid));
	struct trex_ev e = {.ts = ts, .name = fixture_str(b, name), .cat = fixture_str(b, "")};

	cr_assert_eq(trex_builder_instant(b, track, &e, scope), 0);
}

static void name_process(struct trex_builder *b, const char *pid)
{
	cr_assert_eq(trex_builder_process_name(b, fixture_str(b, pid), fixture_str(b, "python3")),
	             0);
}

static struct trex_index *make_index(void)
{
	struct trex_builder *b[2] = {trex_builder_new(0), trex_builder_new(1)};
	struct trex_build_file f[2] = {fixture_file("/x/a.json"), fixture_file("/x/b.json")};
	uint32_t quiet;

	f[1].rank = 1;
	slice(b[0], &f[0], "100", "100", "cpu_op", "step", 0, 100);
	slice(b[0], &f[0], "100", "100", "cpu_op", "op", 10, 40);
	slice(b[0], &f[0], "100", "100", "cuda_runtime", "gemm_launch", 20, 10);
	slice(b[0], &f[0], "100", "101", "cpu_op", "other", 0, 10);
	cr_assert_eq(
	    trex_builder_counter(b[0], fixture_str(b[0], "100"), fixture_str(b[0], "mem"), 0, 1.0),
	    0);
	name_process(b[0], "100");
	slice(b[0], &f[0], "0", "7", "kernel", "gemm_kernel", 20, 20);
	name_process(b[0], "0");
	instant(b[0], "", "", "Record Window End", 100, TREX_SCOPE_GLOBAL);
	instant(b[0], "Traces", "Trace PyTorch Profiler", "Iteration Start", 0, TREX_SCOPE_GLOBAL);
	slice(b[0], &f[0], "Spans", "PyTorch Profiler", "Trace", "PyTorch Profiler (0)", 0, 100);
	name_process(b[0], "3");
	instant(b[0], "200", "200", "mark", 50, TREX_SCOPE_THREAD);
	quiet = trex_builder_track(b[0], fixture_str(b[0], "200"), fixture_str(b[0], "201"));
	cr_assert_eq(trex_builder_thread_name(b[0], quiet, fixture_str(b[0], "quiet")), 0);
	slice(b[1], &f[1], "300", "300", "cpu_op", "step", 0, 100);
	name_process(b[1], "300");
	slice(b[1], &f[1], "1", "7", "kernel", "relu_kernel", 0, 10);
	name_process(b[1], "1");
	return fixture_build(f, b, 2);
}

/* The track named name (track name or tid). */
static uint32_t track(const struct trex_index *idx, const char *pid, const char *name)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);

		if (strcmp(tl_track_name(idx, t), name) == 0 &&
		    strcmp(trex_index_str(idx, trex_index_process(idx, tr->process)->pid), pid) ==
		        0)
			return t;
	}
	cr_assert_fail("no track %s/%s", pid, name);
	return TREX_NONE;
}

/* Every row's name, one per line. */
static char *labels(const struct tl_rows *r, const struct trex_index *idx)
{
	static char out[8192];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->n && len < sizeof(out); i++) {
		char name[256];

		tl_rows_label(r, idx, i, true, 0, name, sizeof(name));
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s\n", name);
	}
	return out;
}

static void rebuild(struct tl_rows *r, const struct trex_index *idx)
{
	cr_assert(tl_rows_build(r, idx));
}

static struct trex_search *search(const struct trex_index *idx, const char *pat)
{
	struct trex_search *s = NULL;
	struct trex_error err;

	cr_assert_eq(trex_search_new(idx, pat, NULL, &s, &err), TREX_OK, "%s", err.message);
	return s;
}

static struct trex_pattern *pattern(const char *pat)
{
	struct trex_pattern *p = NULL;
	struct trex_error err;

	cr_assert_eq(trex_pattern_new(pat, &p, &err), TREX_OK, "%s", err.message);
	return p;
}

/* ---- the noise rule ------------------------------------------------------------------ */

Test(timeline_rows, the_noise_rule)
{
	struct trex_index *idx = make_index();

	cr_assert(tl_track_is_noise(idx, track(idx, "", "thread")), "only a global instant");
	cr_assert(tl_track_is_noise(idx, track(idx, "Traces", "Trace PyTorch Profiler")));
	cr_assert(tl_track_is_noise(idx, track(idx, "Spans", "PyTorch Profiler")),
	          "only a Trace-category slice");
	cr_assert(tl_track_is_noise(idx, track(idx, "200", "quiet")), "nothing at all");
	cr_assert_not(tl_track_is_noise(idx, track(idx, "200", "thread 200")),
	              "a thread-scope instant is the thread's own event");
	cr_assert_not(tl_track_is_noise(idx, track(idx, "100", "thread 100")));
	cr_assert_not(tl_track_is_noise(idx, track(idx, "0", "stream 7")));
	cr_assert_not(tl_track_is_noise(idx, track(idx, "100", "mem")), "a counter with a sample");
	trex_index_free(idx);
}

/* ---- which rows ---------------------------------------------------------------------- */

static const char default_rows[] = "▾ rank 0 a.json\n"
                                   " ▾ 0 GPU 0\n"
                                   "   stream 7\n"
                                   " ▾ 100 python3\n"
                                   "   thread 100\n"
                                   "   ├ depth 2\n"
                                   "   └ depth 3\n"
                                   "   thread 101\n"
                                   "   mem\n"
                                   " ▾ 200 \n"
                                   "   thread 200\n"
                                   "▾ rank 1 b.json\n"
                                   " ▾ 1 GPU 1\n"
                                   "   stream 7\n"
                                   " ▾ 300 python3\n"
                                   "   thread 300\n";

Test(timeline_rows, by_default_gpu_first_and_no_noise)
{
	struct trex_index *idx = make_index();
	struct tl_rows r;

	cr_assert(tl_rows_init(&r, idx));
	cr_assert_str_eq(labels(&r, idx), default_rows);
	cr_assert_eq(r.noise_tracks, 4);
	/* "", Traces, Spans (only noise), 3 (no track at all); 200 keeps a thread */
	cr_assert_eq(r.noise_groups, 4);
	cr_assert_eq(r.n_pinned, 0);
	tl_rows_free(&r);
	trex_index_free(idx);
}

Test(timeline_rows, show_hidden_brings_the_noise_back)
{
	struct trex_index *idx = make_index();
	struct tl_rows r;
	const char *text;

	cr_assert(tl_rows_init(&r, idx));
	r.show_hidden = true;
	rebuild(&r, idx);
	text = labels(&r, idx);
	cr_assert(strstr(text, " ▾ (no pid) \n   thread\n"), "%s", text);
	cr_assert(strstr(text, " ▾ Traces \n   Trace PyTorch Profiler\n"), "%s", text);
	cr_assert(strstr(text, " ▾ Spans \n   PyTorch Profiler\n"), "%s", text);
	cr_assert(strstr(text, " ▾ 3 python3\n"), "an empty group: %s", text);
	/* an instants-only thread has one row; an empty one too, now */
	cr_assert(strstr(text, " ▾ 200 \n   thread 200\n   quiet\n"), "%s", text);
	r.show_hidden = false;
	rebuild(&r, idx);
	cr_assert_str_eq(labels(&r, idx), default_rows);
	tl_rows_free(&r);
	trex_index_free(idx);
}

Test(timeline_rows, a_filter_keeps_the_track_label_of_deeper_rows)
{
	struct trex_index *idx = make_index();
	struct trex_search *f = search(idx, "gemm");
	struct tl_rows r;

	cr_assert(tl_rows_init(&r, idx));
	r.filter = f;
	rebuild(&r, idx);
	/* only lanes with a match; rank 1 has none, the counter and instants go */
	cr_assert_str_eq(labels(&r, idx), "▾ rank 0 a.json\n"
	                                  " ▾ 0 GPU 0\n"
	                                  "   stream 7\n"
	                                  " ▾ 100 python3\n"
	                                  "   thread 100 (depth 3)\n");
	/* narrow: the short form, the name cut for it */
	{
		char name[64];
		size_t i = tl_rows_lookup(
		    &r, TL_ROW_LANE,
		    trex_index_track(idx, track(idx, "100", "thread 100"))->first_lane + 2);

		tl_rows_label(&r, idx, i, true, 15, name, sizeof(name));
		cr_assert_str_eq(name, "   thread 1… d3");
		tl_rows_label(&r, idx, i, false, 15, name, sizeof(name));
		cr_assert_str_eq(name, "   thread 1~ d3");
		tl_rows_label(&r, idx, i, true, 8, name, sizeof(name));
		cr_assert_str_eq(name, "   thread 100",
		                 "too narrow for both: the name, clipped when drawn");
	}
	tl_rows_free(&r);
	trex_search_free(f);
	trex_index_free(idx);
}

Test(timeline_rows, pinned_tracks_come_first_with_their_rank)
{
	struct trex_index *idx = make_index();
	struct tl_rows r;
	uint32_t s1 = track(idx, "1", "stream 7");
	struct tl_body b;

	cr_assert(tl_rows_init(&r, idx));
	r.track_flags[s1] |= TL_TRACK_PINNED;
	r.track_flags[track(idx, "100", "thread 100")] |= TL_TRACK_PINNED;
	rebuild(&r, idx);
	cr_assert_eq(r.n_pinned, 4);
	/* display order among the pinned ones; the rank when several are loaded;
	 * rank 1's GPU process has nothing left and goes */
	cr_assert_str_eq(labels(&r, idx), "   r0 thread 100\n"
	                                  "   ├ depth 2\n"
	                                  "   └ depth 3\n"
	                                  "   r1 stream 7\n"
	                                  "▾ rank 0 a.json\n"
	                                  " ▾ 0 GPU 0\n"
	                                  "   stream 7\n"
	                                  " ▾ 100 python3\n"
	                                  "   thread 101\n"
	                                  "   mem\n"
	                                  " ▾ 200 \n"
	                                  "   thread 200\n"
	                                  "▾ rank 1 b.json\n"
	                                  " ▾ 300 python3\n"
	                                  "   thread 300\n");
	/* the track filter leaves pinned tracks alone */
	{
		struct trex_pattern *p = pattern("thread 300");

		tl_rows_set_track_filter(&r, idx, p);
		rebuild(&r, idx);
		cr_assert_str_eq(labels(&r, idx), "   r0 thread 100\n"
		                                  "   ├ depth 2\n"
		                                  "   └ depth 3\n"
		                                  "   r1 stream 7\n"
		                                  "▾ rank 1 b.json\n"
		                                  " ▾ 300 python3\n"
		                                  "   thread 300\n");
		tl_rows_set_track_filter(&r, idx, NULL);
		trex_pattern_free(p);
	}
	/* the body: pinned rows on at most half of it, a line, the rest */
	b = tl_rows_body(&r, 20);
	cr_assert_eq(b.pin_h, 4);
	cr_assert_eq(b.scroll_y, 5);
	cr_assert_eq(b.scroll_h, 15);
	b = tl_rows_body(&r, 6);
	cr_assert_eq(b.pin_h, 3);
	cr_assert_eq(b.scroll_h, 2);
	tl_rows_free(&r);
	trex_index_free(idx);
}

Test(timeline_rows, folded_and_depth_limited_tracks)
{
	struct trex_index *idx = make_index();
	struct tl_rows r;
	uint32_t t = track(idx, "100", "thread 100");
	uint32_t lane = trex_index_track(idx, t)->first_lane;
	const char *text;

	cr_assert(tl_rows_init(&r, idx));
	r.track_flags[t] |= TL_TRACK_COLLAPSED;
	rebuild(&r, idx);
	text = labels(&r, idx);
	cr_assert(strstr(text, " ▾ 100 python3\n  ▸ thread 100 +2\n   thread 101\n"), "%s", text);
	cr_assert(tl_rows_lane_drawn(&r, lane));
	cr_assert_not(tl_rows_lane_drawn(&r, lane + 1));
	r.track_flags[t] &= (uint8_t)~TL_TRACK_COLLAPSED;
	r.max_depth[t] = 2;
	rebuild(&r, idx);
	text = labels(&r, idx);
	cr_assert(strstr(text, "   thread 100\n   └ depth 2 +1\n   thread 101\n"), "%s", text);
	cr_assert(tl_rows_lane_drawn(&r, lane + 1));
	cr_assert_not(tl_rows_lane_drawn(&r, lane + 2));
	tl_rows_free(&r);
	trex_index_free(idx);
}

Test(timeline_rows, the_track_filter)
{
	struct trex_index *idx = make_index();
	struct tl_rows r;
	struct trex_pattern *p = pattern("stream");

	cr_assert(tl_rows_init(&r, idx));
	cr_assert_eq(tl_rows_set_track_filter(&r, idx, p), 2);
	rebuild(&r, idx);
	cr_assert_str_eq(labels(&r, idx), "▾ rank 0 a.json\n"
	                                  " ▾ 0 GPU 0\n"
	                                  "   stream 7\n"
	                                  "▾ rank 1 b.json\n"
	                                  " ▾ 1 GPU 1\n"
	                                  "   stream 7\n");
	trex_pattern_free(p);
	/* the rank is part of the text matched */
	p = pattern("^rank 1 .*thread");
	cr_assert_eq(tl_rows_set_track_filter(&r, idx, p), 1);
	rebuild(&r, idx);
	cr_assert_str_eq(labels(&r, idx), "▾ rank 1 b.json\n ▾ 300 python3\n   thread 300\n");
	tl_rows_set_track_filter(&r, idx, NULL);
	rebuild(&r, idx);
	cr_assert_str_eq(labels(&r, idx), default_rows);
	trex_pattern_free(p);
	tl_rows_free(&r);
	trex_index_free(idx);
}

Test(timeline_rows, why_a_slice_is_hidden)
{
	struct trex_index *idx = make_index();
	struct trex_search *f = search(idx, "op|step");
	struct trex_pattern *p = pattern("rank 1");
	struct tl_rows r;
	uint32_t op = TREX_NONE, launch = TREX_NONE, span = TREX_NONE;
	uint32_t t = track(idx, "100", "thread 100");

	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const char *name = trex_index_str(idx, trex_index_slice(idx, i)->name);

		op = strcmp(name, "op") == 0 ? i : op;
		launch = strcmp(name, "gemm_launch") == 0 ? i : launch;
		span = strcmp(name, "PyTorch Profiler (0)") == 0 ? i : span;
	}
	cr_assert(tl_rows_init(&r, idx));
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, op), TL_SHOWN);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, span), TL_HIDDEN_NOISE);
	r.max_depth[t] = 1;
	rebuild(&r, idx);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, op), TL_HIDDEN_DEPTH);
	r.max_depth[t] = 0;
	r.filter = f;
	rebuild(&r, idx);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, launch), TL_HIDDEN_FILTER);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, op), TL_SHOWN);
	tl_rows_set_track_filter(&r, idx, p);
	rebuild(&r, idx);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, op), TL_HIDDEN_TRACK_FILTER);
	r.track_flags[t] |= TL_TRACK_PINNED;
	rebuild(&r, idx);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, op), TL_SHOWN, "pinned tracks stay");
	/* a collapsed group hides nothing: n/N may go there and expand it */
	r.file_collapsed[0] = true;
	r.track_flags[t] &= (uint8_t)~TL_TRACK_PINNED;
	tl_rows_set_track_filter(&r, idx, NULL);
	rebuild(&r, idx);
	cr_assert_eq(tl_rows_lookup(&r, TL_ROW_LANE, trex_index_track(idx, t)->first_lane + 1),
	             r.n);
	cr_assert_eq(tl_rows_slice_hidden(&r, idx, op), TL_SHOWN);
	trex_pattern_free(p);
	trex_search_free(f);
	tl_rows_free(&r);
	trex_index_free(idx);
}

/* ---- the track finder ---------------------------------------------------------------- */

Test(timeline_rows, the_finder_stops_at_the_outermost_match)
{
	struct trex_index *idx = make_index();
	struct tl_rows r;
	struct trex_pattern *p = pattern("stream");
	struct tl_place at, from = {-1, TREX_NONE};
	uint32_t s0 = track(idx, "0", "stream 7"), s1 = track(idx, "1", "stream 7");
	size_t row;

	cr_assert(tl_rows_init(&r, idx));
	cr_assert(tl_rows_find_next(&r, idx, p, from, &at));
	cr_assert_eq(at.level, 2);
	cr_assert_eq(at.id, s0);
	cr_assert(tl_rows_find_next(&r, idx, p, at, &at));
	cr_assert_eq(at.id, s1);
	cr_assert(tl_rows_find_next(&r, idx, p, at, &at), "wraps");
	cr_assert_eq(at.id, s0);
	trex_pattern_free(p);
	/* a rank: its row, not each of its tracks */
	p = pattern("rank 1");
	cr_assert(tl_rows_find_next(&r, idx, p, (struct tl_place){2, s0}, &at));
	cr_assert_eq(at.level, 0);
	cr_assert_eq(at.id, 1);
	cr_assert(tl_rows_find_next(&r, idx, p, at, &at));
	cr_assert_eq(at.level, 0, "the only stop");
	trex_pattern_free(p);
	/* a process */
	p = pattern("^rank 1 \\S+ 300 python");
	cr_assert(tl_rows_find_next(&r, idx, p, from, &at));
	cr_assert_eq(at.level, 1);
	cr_assert_str_eq(trex_index_str(idx, trex_index_process(idx, at.id)->pid), "300");
	trex_pattern_free(p);
	/* hidden tracks are not found; one in a collapsed group is, and revealed */
	p = pattern("Spans");
	cr_assert_not(tl_rows_find_next(&r, idx, p, from, &at));
	trex_pattern_free(p);
	p = pattern("rank 1 .*stream");
	r.file_collapsed[1] = true;
	rebuild(&r, idx);
	cr_assert(tl_rows_find_next(&r, idx, p, from, &at));
	cr_assert_eq(at.id, s1);
	row = tl_rows_reveal(&r, idx, at);
	cr_assert_lt(row, r.n);
	cr_assert_not(r.file_collapsed[1]);
	cr_assert_eq(tl_row_track(idx, &r.v[row]), s1);
	trex_pattern_free(p);
	tl_rows_free(&r);
	trex_index_free(idx);
}

/* ---- scrolling with pinned rows ------------------------------------------------------ */

Test(timeline_rows, lines_and_scrolling_around_the_pinned_rows)
{
	struct tl_rows r = {.n = 30, .n_pinned = 3};
	struct tl_body b = tl_rows_body(&r, 10);
	size_t pin_top = 0, top = 0;

	cr_assert_eq(b.pin_h, 3);
	cr_assert_eq(b.scroll_h, 6);
	tl_rows_scroll(&r, &b, 0, &pin_top, &top);
	cr_assert_eq(top, 3, "the rest starts after the pinned rows");
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 0), 0);
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 2), 2);
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 3), TL_LINE_SEPARATOR);
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 4), 3);
	/* the cursor far down: the rest scrolls, the pinned rows stay */
	tl_rows_scroll(&r, &b, 20, &pin_top, &top);
	cr_assert_eq(top, 15);
	cr_assert_eq(pin_top, 0);
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 1), 1);
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 9), 20);
	/* tl_rows_line_of inverts it, and puts rows scrolled off outside the
	 * scrolled part (flow connectors draw edge markers for them) */
	for (int y = 0; y < 10; y++) {
		size_t i = tl_rows_at_line(&r, &b, pin_top, top, y);

		if (i != TL_LINE_SEPARATOR && i != TL_LINE_NONE)
			cr_assert_eq(tl_rows_line_of(&r, &b, pin_top, top, i), y, "line %d", y);
	}
	cr_assert_eq(tl_rows_line_of(&r, &b, pin_top, top, 14), -1, "just above the scrolled part");
	cr_assert_eq(tl_rows_line_of(&r, &b, pin_top, top, 3), -12);
	cr_assert_eq(tl_rows_line_of(&r, &b, pin_top, top, 21), 10, "just below");
	/* back into the pinned rows: the rest keeps its place */
	tl_rows_scroll(&r, &b, 1, &pin_top, &top);
	cr_assert_eq(top, 15);
	/* past the last row */
	r.n = 5;
	tl_rows_scroll(&r, &b, 4, &pin_top, &top);
	cr_assert_eq(top, 3);
	cr_assert_eq(tl_rows_at_line(&r, &b, pin_top, top, 6), TL_LINE_NONE);
	/* no pinned rows: one part */
	r.n_pinned = 0;
	b = tl_rows_body(&r, 10);
	cr_assert_eq(b.pin_h, 0);
	cr_assert_eq(tl_rows_at_line(&r, &b, 0, 0, 0), 0);
}
