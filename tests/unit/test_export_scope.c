/* The trace-export dialog's model (src/ui/export_scope.c) over a
 * hand-built index of one file, "/x/run.json.gz":
 *
 *   pid 1, tid 1:        "step" [0, 100), "gemm_launch" [200, 300)
 *   pid 0, tid stream 7: "gemm_kernel" [150, 250)
 *
 * The view state is written by hand as the timeline would fill it. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "export_scope.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

static struct trex_index *make_index(void)
{
	struct trex_build_file f = fixture_file("/x/run.json.gz");
	struct trex_builder *b = trex_builder_new(0);
	const struct fixture_slice slices[] = {
	    {"1", "1", "cpu_op", "step", 0, 100, 0, 0, NULL},
	    {"1", "1", "cuda_runtime", "gemm_launch", 200, 100, 0, 0, NULL},
	    {"0", "stream 7", "kernel", "gemm_kernel", 150, 100, 0, 0, NULL},
	};

	for (size_t i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
		fixture_add(b, &f, &slices[i]);
	return fixture_build(&f, &b, 1);
}

static uint32_t track_named(const struct trex_index *idx, const char *tid)
{
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++)
		if (strcmp(trex_index_str(idx, trex_index_track(idx, i)->tid), tid) == 0)
			return i;
	cr_assert_fail("no track %s", tid);
	return TREX_NONE;
}

static const struct trex_trace_exporter *ex(const char *name)
{
	return trex_trace_exporter_named(name);
}

/* The timeline's state with nothing marked, filtered or selected. */
static struct export_view_state timeline_state(void)
{
	struct export_view_state st;

	memset(&st, 0, sizeof(st));
	st.timeline = true;
	st.selected_track = TREX_NONE;
	strcpy(st.mark_key, "m");
	return st;
}

Test(export_scope, other_views_offer_all_only)
{
	struct export_view_state st;
	char why[200];

	memset(&st, 0, sizeof(st));
	st.selected_track = TREX_NONE;
	cr_assert(export_scope_available(&st, ex("chrome"), EXPORT_SCOPE_ALL, why, sizeof(why)));
	for (int k = EXPORT_SCOPE_RANGE; k < EXPORT_SCOPE_COUNT; k++) {
		cr_assert_not(export_scope_available(&st, ex("chrome"), (enum export_scope_kind)k,
		                                     why, sizeof(why)));
		cr_assert(strstr(why, "timeline"), "%s", why);
	}
}

Test(export_scope, range_needs_a_mark_and_says_the_key)
{
	struct trex_index *idx = make_index();
	struct export_view_state st = timeline_state();
	struct export_scope_built b;
	struct trex_error err;
	char why[200], label[200];

	cr_assert_not(
	    export_scope_available(&st, ex("perfetto"), EXPORT_SCOPE_RANGE, why, sizeof(why)));
	cr_assert_str_eq(why, "no range is marked (m, move, m marks one)");
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_RANGE, &b, &err), TREX_USAGE);
	st.has_range = true;
	st.range_start = 120;
	st.range_end = 180;
	cr_assert(
	    export_scope_available(&st, ex("perfetto"), EXPORT_SCOPE_RANGE, why, sizeof(why)));
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_RANGE, &b, &err), TREX_OK);
	cr_assert(b.scope.has_range);
	cr_assert_eq(b.scope.start, 120);
	cr_assert_eq(b.scope.end, 180);
	cr_assert_null(b.scope.track_set);
	cr_assert_null(b.scope.names);
	export_scope_label(idx, &st, EXPORT_SCOPE_RANGE, label, sizeof(label));
	cr_assert_str_eq(label, "marked range: 120 ns .. 180 ns");
	/* only gemm_kernel touches [120, 180] */
	cr_assert_eq(export_scope_estimate(idx, &b.scope, 0), 1);
	export_scope_release(&b);
	trex_index_free(idx);
}

Test(export_scope, visible_tracks_are_the_shown_set)
{
	struct trex_index *idx = make_index();
	struct export_view_state st = timeline_state();
	uint8_t shown[8] = {0};
	uint32_t stream = track_named(idx, "stream 7"), cpu = track_named(idx, "1");
	struct export_scope_built b;
	struct trex_error err;
	char label[200];

	shown[stream] = 1;
	st.tracks_shown = shown;
	st.shown_count = 1;
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_VISIBLE, &b, &err), TREX_OK);
	cr_assert_not_null(b.scope.track_set);
	cr_assert(trex_export_track_in(idx, &b.scope, stream));
	cr_assert_not(trex_export_track_in(idx, &b.scope, cpu));
	shown[cpu] = 1; /* a copy: later changes to the view do not leak in */
	cr_assert_not(trex_export_track_in(idx, &b.scope, cpu));
	cr_assert_eq(export_scope_estimate(idx, &b.scope, 0), 1);
	export_scope_label(idx, &st, EXPORT_SCOPE_VISIBLE, label, sizeof(label));
	cr_assert_str_eq(label, "visible tracks: 1 of 2");
	export_scope_release(&b);
	st.shown_count = 0;
	cr_assert_not(
	    export_scope_available(&st, ex("csv"), EXPORT_SCOPE_VISIBLE, label, sizeof(label)));
	trex_index_free(idx);
}

Test(export_scope, filter_is_the_slice_pattern_with_smart_case)
{
	struct trex_index *idx = make_index();
	struct export_view_state st = timeline_state();
	struct export_scope_built b;
	struct trex_error err;
	char label[200];

	cr_assert_not(
	    export_scope_available(&st, ex("csv"), EXPORT_SCOPE_FILTER, label, sizeof(label)));
	st.filter = "gemm";
	st.filter_matches = 2;
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_FILTER, &b, &err), TREX_OK);
	cr_assert(trex_export_name_in(&b.scope, "GEMM_kernel"), "lower case: caseless");
	cr_assert_not(trex_export_name_in(&b.scope, "step"));
	cr_assert_eq(export_scope_estimate(idx, &b.scope, 2), 2, "at most the filter's matches");
	export_scope_label(idx, &st, EXPORT_SCOPE_FILTER, label, sizeof(label));
	cr_assert_str_eq(label, "filter's slices: /gemm/ (2 slices)");
	export_scope_release(&b);
	st.filter = "Gemm";
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_FILTER, &b, &err), TREX_OK);
	cr_assert_not(trex_export_name_in(&b.scope, "gemm_kernel"), "upper case: exact");
	export_scope_release(&b);
	st.filter = "(";
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_FILTER, &b, &err), TREX_USAGE);
	cr_assert_null(b.names);
	trex_index_free(idx);
}

Test(export_scope, selection_is_one_track)
{
	struct trex_index *idx = make_index();
	struct export_view_state st = timeline_state();
	uint32_t stream = track_named(idx, "stream 7"), cpu = track_named(idx, "1");
	struct export_scope_built b;
	struct trex_error err;
	char label[200];

	cr_assert_not(export_scope_available(&st, ex("chrome"), EXPORT_SCOPE_SELECTION, label,
	                                     sizeof(label)));
	st.selected_track = cpu;
	strcpy(st.selected_label, "rank 0 / 1");
	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_SELECTION, &b, &err), TREX_OK);
	cr_assert(trex_export_track_in(idx, &b.scope, cpu));
	cr_assert_not(trex_export_track_in(idx, &b.scope, stream));
	cr_assert_eq(export_scope_estimate(idx, &b.scope, 0), 2);
	export_scope_label(idx, &st, EXPORT_SCOPE_SELECTION, label, sizeof(label));
	cr_assert_str_eq(label, "selected track: rank 0 / 1 (the cursor's)");
	st.selected_slice = true;
	export_scope_label(idx, &st, EXPORT_SCOPE_SELECTION, label, sizeof(label));
	cr_assert_str_eq(label, "selected track: rank 0 / 1");
	export_scope_release(&b);
	trex_index_free(idx);
}

Test(export_scope, chakra_takes_the_whole_trace)
{
	struct export_view_state st = timeline_state();
	uint8_t shown[4] = {1, 1, 1, 1};
	char why[200];

	st.has_range = true;
	st.range_end = 10;
	st.tracks_shown = shown;
	st.shown_count = 2;
	st.filter = "x";
	st.selected_track = 0;
	cr_assert(export_scope_available(&st, ex("chakra"), EXPORT_SCOPE_ALL, why, sizeof(why)));
	for (int k = EXPORT_SCOPE_RANGE; k < EXPORT_SCOPE_COUNT; k++) {
		cr_assert(export_scope_available(&st, ex("csv"), (enum export_scope_kind)k, why,
		                                 sizeof(why)));
		cr_assert_not(export_scope_available(&st, ex("chakra-json"),
		                                     (enum export_scope_kind)k, why, sizeof(why)));
		cr_assert_str_eq(why, "chakra-json writes the whole trace");
	}
}

Test(export_scope, all_counts_every_event)
{
	struct trex_index *idx = make_index();
	struct export_view_state st = timeline_state();
	struct export_scope_built b;
	struct trex_error err;
	char label[64];

	cr_assert_eq(export_scope_build(idx, &st, EXPORT_SCOPE_ALL, &b, &err), TREX_OK);
	cr_assert_eq(memcmp(&b.scope, &(struct trex_export_scope){0}, sizeof(b.scope)), 0);
	cr_assert_eq(export_scope_estimate(idx, &b.scope, 0), 3);
	export_scope_label(idx, &st, EXPORT_SCOPE_ALL, label, sizeof(label));
	cr_assert_str_eq(label, "all: 2 tracks");
	trex_index_free(idx);
}

Test(export_scope, progress_line)
{
	char buf[128];

	export_progress_text(50, 2500000, 100, false, 10, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[#####.....]  50%  50 events  2.5 MB");
	export_progress_text(150, 0, 100, false, 4, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[###.]  99%  150 events  0.0 MB", "never 100%% before the end");
	export_progress_text(1, 0, 100, true, 4, buf, sizeof(buf));
	cr_assert_str_eq(buf, "[####] 100%  1 event  0.0 MB");
}

Test(export_scope, default_names_in_the_current_directory)
{
	struct trex_index *idx = make_index();
	char buf[256];

	export_default_path(idx, ex("chrome"), EXPORT_SCOPE_RANGE, buf, sizeof(buf));
	cr_assert_str_eq(buf, "run.range.json");
	export_default_path(idx, ex("perfetto"), EXPORT_SCOPE_ALL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "run.all.pftrace");
	export_default_path(idx, ex("csv"), EXPORT_SCOPE_FILTER, buf, sizeof(buf));
	cr_assert_str_eq(buf, "run.filter.csv");
	export_default_path(idx, ex("chakra"), EXPORT_SCOPE_ALL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "run.all", "a prefix");
	export_default_path(idx, ex("chakra-json"), EXPORT_SCOPE_ALL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "run.all.chakra.json");
	trex_index_free(idx);
}

Test(export_scope, home_expanded)
{
	char buf[64];

	export_expand_home("~/out.json", "/home/u", buf, sizeof(buf));
	cr_assert_str_eq(buf, "/home/u/out.json");
	export_expand_home("~x/out.json", "/home/u", buf, sizeof(buf));
	cr_assert_str_eq(buf, "~x/out.json");
	export_expand_home("~/out.json", NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "~/out.json");
}
