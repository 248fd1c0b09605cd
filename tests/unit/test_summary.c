/* The info report over a hand-built two-file index: every count below is
 * read off the events added in build(). */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/summary.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/load/chrome_phases.h"
#include "trex/load/kinds.h"

static struct trex_index *idx;
static struct trex_summary sum;

static uint32_t S(struct trex_builder *b, const char *s)
{
	uint32_t id = trex_builder_intern(b, s, strlen(s));

	cr_assert_neq(id, TREX_STR_ERROR);
	return id;
}

static void slice(struct trex_builder *b, uint32_t track, const char *cat, const char *name,
                  int64_t ts, int64_t dur)
{
	struct trex_ev e = {.ts = ts,
	                    .dur = dur,
	                    .name = S(b, name),
	                    .cat = S(b, cat),
	                    .kind = (uint8_t)trex_kind_of(cat, name)};

	cr_assert_neq(trex_builder_complete(b, track, &e), TREX_HANDLE_NONE);
}

/* File a.json (rank 3): GPU stream "stream 7" of process "python" (pid 0)
 * with kernels k1 [0, 100) and k2 [200, 250); CPU thread 100/1 with a
 * zero-length cpu_op at 1000, an E without B at 1500 and an instant at 2000,
 * and a damaged span of 11 bytes at byte 120 noted by the loader.
 * File b.json (rank 4): one cpu_op [500, 3500). */
static const struct trex_problem span = {.counter = TREX_INTEG_syntax_errors,
                                         .offset = 120,
                                         .disk_offset = -1,
                                         .length = 11,
                                         .events_lost = 1,
                                         .track = TREX_NONE,
                                         .name = TREX_NONE,
                                         .what = "expected ','"};

static struct trex_builder *file_a(void)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t gpu = trex_builder_track(b, S(b, "0"), S(b, "7"));
	uint32_t cpu = trex_builder_track(b, S(b, "100"), S(b, "1"));
	struct trex_ev end = {.ts = 1500, .name = S(b, "lonely"), .cat = S(b, "cpu_op")};
	struct trex_ev mem = {.ts = 2000,
	                      .name = S(b, "[memory]"),
	                      .cat = S(b, "cpu_instant_event"),
	                      .kind = (uint8_t)trex_kind_of("cpu_instant_event", "[memory]")};

	cr_assert_eq(trex_builder_process_name(b, S(b, "0"), S(b, "python")), 0);
	cr_assert_eq(trex_builder_thread_name(b, gpu, S(b, "stream 7")), 0);
	slice(b, gpu, "kernel", "k1", 0, 100);
	slice(b, gpu, "kernel", "k2", 200, 50);
	slice(b, cpu, "cpu_op", "op", 1000, 0);
	cr_assert_eq(trex_builder_end(b, cpu, &end), 0);
	cr_assert_eq(trex_builder_instant(b, cpu, &mem, TREX_SCOPE_THREAD), 0);
	cr_assert_eq(trex_builder_problem(b, &span), 0);
	return b;
}

static struct trex_builder *file_b(void)
{
	struct trex_builder *b = trex_builder_new(1);

	slice(b, trex_builder_track(b, S(b, "5"), S(b, "5")), "cpu_op", "op2", 500, 3000);
	return b;
}

static void build(void)
{
	struct trex_build_file files[2] = {
	    {.path = "a.json",
	     .format = "chrome-json",
	     .dialect = "kineto",
	     .rank = 3,
	     .has_rank = true,
	     .gzip = true,
	     .truncated = true,
	     .bytes_on_disk = 1000,
	     .bytes_decoded = 5000,
	     .events = 7},
	    {.path = "b.json",
	     .format = "chrome-json",
	     .dialect = "kineto-2021",
	     .rank = 4,
	     .bytes_on_disk = 10,
	     .bytes_decoded = 10,
	     .events = 1},
	};
	struct trex_builder *parts[2] = {file_a(), file_b()};
	struct trex_build_input in = {files, 2, parts, 2, 1, NULL, NULL};
	struct trex_error err;

	trex_phase_event_types(&files[0]);
	trex_phase_event_types(&files[1]);
	files[0].event_types[TREX_PH_COMPLETE].events = 3;
	files[0].event_types[TREX_PH_END].events = 1;
	files[0].event_types[TREX_PH_INSTANT].events = 1;
	files[0].event_types[TREX_PH_METADATA].events = 2;
	files[1].event_types[TREX_PH_COMPLETE].events = 1;
	files[0].integrity.bytes_ignored = 37;
	files[0].integrity.syntax_errors = 2;
	files[0].integrity.bytes_skipped = 11;
	trex_error_set(&files[0].first_problem, TREX_FORMAT, "a.json", 120, "expected ','");
	trex_error_set_line_col(&files[0].first_problem, 3, 17);
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_summary_compute(idx, &sum, &err), TREX_OK);
}

static void teardown(void)
{
	trex_summary_free(&sum);
	trex_index_free(idx);
}

TestSuite(summary, .init = build, .fini = teardown);

static const union trex_cell *cell(const struct trex_table *t, size_t r, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (strcmp(t->cols[c].key, key) == 0)
			return trex_table_cell(t, r, c);
	}
	cr_assert_fail("no column %s in %s", key, t->name);
	return NULL;
}

/* The row whose column key holds text, or fails. */
static size_t row_with(const struct trex_table *t, const char *key, const char *text)
{
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(cell(t, r, key)->text, text) == 0)
			return r;
	}
	cr_assert_fail("no row %s=%s in %s", key, text, t->name);
	return 0;
}

Test(summary, totals_and_span)
{
	cr_assert_eq(sum.start_ns, 0);
	cr_assert_eq(sum.end_ns, 3500);
	cr_assert_eq(sum.slices, 4);
	cr_assert_eq(sum.instants, 1);
	cr_assert_eq(sum.samples, 0);
	cr_assert_eq(sum.flows, 0);
}

Test(summary, files)
{
	const struct trex_table *t = &sum.files;

	cr_assert_eq(t->nrows, 2);
	cr_assert_str_eq(t->cols[t->ncols - 1].key, "file");
	cr_assert_str_eq(cell(t, 0, "file")->text, "a.json");
	cr_assert_eq(cell(t, 0, "rank")->count, 3);
	cr_assert_str_eq(cell(t, 0, "format")->text, "chrome-json");
	cr_assert_str_eq(cell(t, 0, "dialect")->text, "kineto");
	cr_assert_str_eq(cell(t, 0, "gzip")->text, "yes");
	cr_assert_str_eq(cell(t, 0, "truncated")->text, "yes");
	cr_assert_eq(cell(t, 0, "bytes")->count, 1000);
	cr_assert_eq(cell(t, 0, "decoded_bytes")->count, 5000);
	cr_assert_eq(cell(t, 0, "events")->count, 7);
	cr_assert_eq(cell(t, 0, "span_ns")->number, 2000); /* 0 .. instant at 2000 */
	cr_assert_str_eq(cell(t, 1, "file")->text, "b.json");
	cr_assert_str_eq(cell(t, 1, "dialect")->text, "kineto-2021");
	cr_assert_str_eq(cell(t, 1, "gzip")->text, "no");
	cr_assert_eq(cell(t, 1, "rank")->count, 4);
	cr_assert_eq(cell(t, 1, "span_ns")->number, 3000);
}

Test(summary, phases_summed_over_files)
{
	const struct trex_table *t = &sum.phases;

	cr_assert_eq(t->nrows, TREX_PH_COUNT);
	cr_assert_str_eq(cell(t, 0, "phase")->text, "X");
	cr_assert_str_eq(cell(t, 0, "name")->text, "complete");
	cr_assert_eq(cell(t, TREX_PH_COMPLETE, "events")->count, 4);
	cr_assert_eq(cell(t, TREX_PH_BEGIN, "events")->count, 0);
	cr_assert_eq(cell(t, TREX_PH_END, "events")->count, 1);
	cr_assert_eq(cell(t, TREX_PH_INSTANT, "events")->count, 1);
	cr_assert_eq(cell(t, TREX_PH_METADATA, "events")->count, 2);
	cr_assert_str_eq(cell(t, TREX_PH_FLOW_START, "name")->text, "flow start");
	cr_assert_str_eq(cell(t, TREX_PH_FLOW_START, "phase")->text, "s");
}

Test(summary, categories_by_total_time)
{
	const struct trex_table *t = &sum.categories;

	cr_assert_eq(t->nrows, 3);
	/* cpu_op 0 + 3000 ns, kernel 100 + 50 ns, the instant's category 0 ns. */
	cr_assert_str_eq(cell(t, 0, "category")->text, "cpu_op");
	cr_assert_str_eq(cell(t, 0, "kind")->text, "cpu op");
	cr_assert_eq(cell(t, 0, "slices")->count, 2);
	cr_assert_eq(cell(t, 0, "total_ns")->number, 3000);
	cr_assert_str_eq(cell(t, 1, "category")->text, "kernel");
	cr_assert_str_eq(cell(t, 1, "kind")->text, "kernel");
	cr_assert_eq(cell(t, 1, "slices")->count, 2);
	cr_assert_eq(cell(t, 1, "instants")->count, 0);
	cr_assert_eq(cell(t, 1, "total_ns")->number, 150);
	cr_assert_str_eq(cell(t, 2, "category")->text, "cpu_instant_event");
	cr_assert_str_eq(cell(t, 2, "kind")->text, "cpu instant");
	cr_assert_eq(cell(t, 2, "slices")->count, 0);
	cr_assert_eq(cell(t, 2, "instants")->count, 1);
}

Test(summary, tracks)
{
	const struct trex_table *t = &sum.tracks;
	size_t gpu, cpu;

	cr_assert_eq(t->nrows, 3);
	gpu = row_with(t, "track", "stream 7");
	cr_assert_str_eq(cell(t, gpu, "process")->text, "python (0)");
	cr_assert_eq(cell(t, gpu, "rank")->count, 3);
	cr_assert_eq(cell(t, gpu, "slices")->count, 2);
	cr_assert_eq(cell(t, gpu, "depth")->count, 1);
	cpu = row_with(t, "process", "100");
	cr_assert_eq(cell(t, cpu, "slices")->count, 1);
	cr_assert_eq(cell(t, cpu, "instants")->count, 1);
	cr_assert_str_eq(cell(t, cpu, "kind")->text, "thread");
	cr_assert_eq(cell(t, row_with(t, "process", "5"), "rank")->count, 4);
}

Test(summary, integrity_lists_every_counter)
{
	const struct trex_table *t = &sum.integrity;
	static const char *const fields[] = {
#define FIELD_NAME(field, label) #field,
	    TREX_INTEGRITY_INFO(FIELD_NAME)
#undef FIELD_NAME
	};

	cr_assert_eq(t->nrows, sizeof(fields) / sizeof(fields[0]));
	for (size_t r = 0; r < t->nrows; r++) {
		cr_assert_str_eq(cell(t, r, "check")->text, fields[r]);
		cr_assert_gt(strlen(cell(t, r, "meaning")->text), 0);
	}
	cr_assert_eq(cell(t, row_with(t, "check", "bytes_ignored"), "count")->count, 37);
	cr_assert_eq(cell(t, row_with(t, "check", "syntax_errors"), "count")->count, 2);
	cr_assert_eq(cell(t, row_with(t, "check", "bytes_skipped"), "count")->count, 11);
	cr_assert_eq(cell(t, row_with(t, "check", "unmatched_end"), "count")->count, 1);
	cr_assert_eq(cell(t, row_with(t, "check", "unmatched_begin"), "count")->count, 0);
	cr_assert_eq(cell(t, row_with(t, "check", "overlaps"), "count")->count, 0);
}

Test(summary, first_problem_per_file)
{
	const struct trex_table *t = &sum.problems;

	cr_assert_eq(t->nrows, 1);
	cr_assert_eq(cell(t, 0, "rank")->count, 3);
	cr_assert_str_eq(cell(t, 0, "problem")->text, "a.json:3:17: (byte 120) expected ','");
}

/* Per file: the first and largest damaged spans, then the first example of
 * every non-zero counter, the loader's and the build's. */
Test(summary, integrity_examples_first_of_each_check)
{
	const struct trex_table *t = &sum.examples;
	size_t r = row_with(t, "check", "damage_first");

	cr_assert_eq(cell(t, r, "rank")->count, 3);
	cr_assert_eq(cell(t, r, "offset")->count, 120);
	cr_assert_eq(cell(t, r, "length")->count, 11);
	cr_assert_eq(cell(t, r, "events_lost")->count, 1);
	cr_assert_eq(cell(t, r, "line")->count, -1, "no source, no line");
	cr_assert_str_eq(cell(t, r, "example")->text,
	                 "a.json: (byte 120) expected ',' (11 bytes, 1 event lost)");
	row_with(t, "check", "damage_largest");
	r = row_with(t, "check", "syntax_errors");
	cr_assert_eq(cell(t, r, "count")->count, 2, "the file's count");
	row_with(t, "check", "bytes_skipped");
	r = row_with(t, "check", "unmatched_end");
	cr_assert_eq(cell(t, r, "ts_ns")->count, 1500);
	cr_assert_eq(cell(t, r, "has_ts")->count, 1);
	cr_assert_str_eq(cell(t, r, "what")->text, "E without an open B on its track");
	r = row_with(t, "check", "zero_duration");
	cr_assert_str_eq(cell(t, r, "track")->text, "thread 1");
	cr_assert_geq(cell(t, r, "slice")->count, 0, "the zero-length slice is named");
	for (size_t i = 0; i < t->nrows; i++)
		cr_assert_neq(cell(t, i, "count")->count, 0, "only non-zero counters: row %zu", i);
}
