/* The integrity report over hand-built indexes: the counters per run in
 * their groups, the first example's columns, the examples of one counter,
 * the loss line and the byte sizes. Every number is read off the events
 * and problems added in build(). */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/analysis/integrity.h"

static struct trex_index *idx;

/* File 0, run/a.json, rank 1: kernels k1 [100, 200) and k2 at 300 whose
 * dur was a string (kept with duration 0: a bad_dur example on its track,
 * and a zero_duration note of the build); a damaged span of 50 bytes at
 * byte 100 that lost 2 events; cut at byte 765433 with 1234567 bytes
 * ignored and 1 more event lost. File 1, other/a.json, also rank 1: one op at 50, three events
 * dropped for a ts that is not a number (bytes 10, 20, 30). */
static struct trex_problem problem(enum trex_integrity_counter c, int64_t offset, const char *what)
{
	struct trex_problem p = {.counter = (uint8_t)c,
	                         .offset = offset,
	                         .disk_offset = -1,
	                         .track = TREX_NONE,
	                         .slice = TREX_NONE,
	                         .name = TREX_NONE};

	snprintf(p.what, sizeof(p.what), "%s", what);
	return p;
}

static struct trex_builder *file_a(struct trex_build_file *f)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t gpu = trex_builder_track(b, fixture_str(b, "0"), fixture_str(b, "7"));
	struct trex_problem span = problem(TREX_INTEG_syntax_errors, 100, "expected ','");
	struct trex_problem cut =
	    problem(TREX_INTEG_bytes_ignored, 765433, "input ends in an event");
	struct trex_problem dur = problem(TREX_INTEG_bad_dur, 400, "dur is a string");

	cr_assert_eq(trex_builder_thread_name(b, gpu, fixture_str(b, "stream 7")), 0);
	fixture_add(b, f, &(struct fixture_slice){"0", "7", "kernel", "k1", 100, 100, 0, 0, NULL});
	fixture_add(b, f, &(struct fixture_slice){"0", "7", "kernel", "k2", 300, 0, 0, 0, NULL});
	span.length = 50;
	span.events_lost = 2;
	cut.length = 1234567;
	cut.events_lost = 1;
	dur.track = gpu;
	dur.name = fixture_str(b, "k2");
	dur.ts = 300;
	dur.has_ts = true;
	cr_assert_eq(trex_builder_problem(b, &span), 0);
	cr_assert_eq(trex_builder_problem(b, &cut), 0);
	cr_assert_eq(trex_builder_problem(b, &dur), 0);
	f->truncated = true;
	f->bytes_decoded = 2000000;
	f->integrity.syntax_errors = 1;
	f->integrity.bytes_skipped = 50;
	f->integrity.events_lost = 3; /* 2 at the spot, 1 in the cut tail */
	f->integrity.bytes_ignored = 1234567;
	f->integrity.bad_dur = 1;
	return b;
}

static struct trex_builder *file_b(struct trex_build_file *f)
{
	struct trex_builder *b = trex_builder_new(1);

	fixture_add(b, f, &(struct fixture_slice){"5", "5", "cpu_op", "op", 50, 10, 0, 0, NULL});
	for (int i = 1; i <= 3; i++) {
		struct trex_problem p = problem(TREX_INTEG_bad_ts, 10 * i, "ts is a string");

		cr_assert_eq(trex_builder_problem(b, &p), 0);
	}
	f->integrity.bad_ts = 3;
	f->bytes_decoded = 1000;
	return b;
}

static void build(void)
{
	struct trex_build_file files[2] = {fixture_file("run/a.json"),
	                                   fixture_file("other/a.json")};
	struct trex_builder *parts[2];

	files[0].rank = files[1].rank = 1;
	files[0].has_rank = files[1].has_rank = true;
	parts[0] = file_a(&files[0]);
	parts[1] = file_b(&files[1]);
	idx = fixture_build(files, parts, 2);
}

static void teardown(void)
{
	trex_index_free(idx);
}

TestSuite(integrity, .init = build, .fini = teardown);

static const char *text(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->text;
}

static int64_t count(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->count;
}

/* ---- sizes and the loss line ------------------------------------------------------------- */

Test(integrity_bytes, human_sizes_round_and_carry)
{
	char b[32];

	cr_assert_str_eq(trex_format_bytes(0, b, sizeof(b)), "0 bytes");
	cr_assert_str_eq(trex_format_bytes(1, b, sizeof(b)), "1 byte");
	cr_assert_str_eq(trex_format_bytes(999, b, sizeof(b)), "999 bytes");
	cr_assert_str_eq(trex_format_bytes(1000, b, sizeof(b)), "1 kB");
	cr_assert_str_eq(trex_format_bytes(1234567, b, sizeof(b)), "1.2 MB");
	cr_assert_str_eq(trex_format_bytes(999949, b, sizeof(b)), "999.9 kB");
	cr_assert_str_eq(trex_format_bytes(999960, b, sizeof(b)), "1 MB", "never 1000 kB");
	cr_assert_str_eq(trex_format_bytes(UINT64_MAX, b, sizeof(b)), "18.4 EB");
}

/* The spot's phrase counts the events lost at the spot, not the cut tail's. */
Test(integrity, loss_line_of_one_file_exact_and_short)
{
	char buf[512];

	trex_loss_text(idx, 0, true, buf, sizeof(buf));
	cr_assert_str_eq(buf, "lost about 2 events and 50 bytes at 1 damaged spot; "
	                      "1.2 MB (1234567 bytes) ignored after truncation at byte 765433; "
	                      "1 value not taken as written");
	trex_loss_text(idx, 0, false, buf, sizeof(buf));
	cr_assert_str_eq(buf, "lost about 2 events and 50 bytes at 1 damaged spot; "
	                      "1.2 MB ignored after truncation; 1 value not taken as written");
	trex_loss_text(idx, 1, true, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3 values not taken as written");
}

Test(integrity, loss_line_of_every_file_sums_them)
{
	char buf[512];
	int n = trex_loss_text(idx, TREX_NONE, true, buf, sizeof(buf));

	cr_assert_str_eq(buf,
	                 "lost about 2 events and 50 bytes at 1 damaged spot; "
	                 "1.2 MB ignored after truncation; 4 values not taken as written",
	                 "no exact place for several files");
	cr_assert_eq(n, (int)strlen(buf));
}

Test(integrity, loss_line_cut_short_like_snprintf)
{
	char buf[16];
	int n = trex_loss_text(idx, 1, false, buf, sizeof(buf));

	cr_assert_eq(n, (int)strlen("3 values not taken as written"));
	cr_assert_str_eq(buf, "3 values not ta");
}

Test(integrity, lost_data_is_truncation_or_damage)
{
	cr_assert(trex_file_lost_data(trex_index_file(idx, 0)));
	cr_assert(trex_file_lost_data(trex_index_file(idx, 1)));
}

/* ---- the counters ------------------------------------------------------------------------- */

/* Damage first (in TREX_INTEGRITY_INFO order, one row per file counting
 * it), then the notes the build counted, then every zero counter once. */
Test(integrity, rows_damage_then_notes_then_zeros)
{
	static const char *const want[] = {"bad_ts",        "bad_dur",     "syntax_errors",
	                                   "bytes_skipped", "events_lost", "bytes_ignored",
	                                   "zero_duration"};
	struct trex_table t;
	struct trex_integrity_rows rows;
	struct trex_error err;
	size_t n = sizeof(want) / sizeof(want[0]);

	cr_assert_eq(trex_integrity_table(idx, &t, &rows, &err), TREX_OK);
	cr_assert_eq(t.nrows, TREX_INTEG_COUNT, "7 non-zero counters in one file each, 17 zero");
	cr_assert_eq(rows.n, t.nrows);
	for (size_t r = 0; r < n; r++)
		cr_assert_str_eq(text(&t, r, TREX_INTEG_COL_CHECK), want[r], "row %zu", r);
	cr_assert_eq(rows.v[0].file, 1);
	cr_assert_eq(rows.v[0].counter, TREX_INTEG_bad_ts);
	cr_assert_eq(rows.v[1].file, 0);
	for (size_t r = n; r < t.nrows; r++) {
		cr_assert_eq(count(&t, r, TREX_INTEG_COL_COUNT), 0, "row %zu", r);
		cr_assert_eq(rows.v[r].file, TREX_NONE);
		cr_assert_str_eq(text(&t, r, TREX_INTEG_COL_RUN), "all runs");
		cr_assert_str_eq(text(&t, r, TREX_INTEG_COL_MEANING),
		                 trex_integrity_label(rows.v[r].counter));
	}
	cr_assert_str_eq(text(&t, n, TREX_INTEG_COL_CHECK), "overlaps", "zeros in table order");
	trex_integrity_rows_free(&rows);
	trex_table_free(&t);
}

Test(integrity, runs_of_one_rank_named_apart)
{
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_integrity_table(idx, &t, NULL, &err), TREX_OK);
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_COL_RUN), "rank 1 (other/a.json)");
	cr_assert_str_eq(text(&t, 1, TREX_INTEG_COL_RUN), "rank 1 (run/a.json)");
	cr_assert_eq(count(&t, 0, TREX_INTEG_COL_COUNT), 3);
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_COL_KIND), "damage");
	cr_assert_str_eq(text(&t, 6, TREX_INTEG_COL_KIND), "note");
	trex_table_free(&t);
}

Test(integrity, byte_counters_have_a_size)
{
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_integrity_table(idx, &t, NULL, &err), TREX_OK);
	cr_assert_str_eq(text(&t, 3, TREX_INTEG_COL_CHECK), "bytes_skipped");
	cr_assert_str_eq(text(&t, 3, TREX_INTEG_COL_SIZE), "50 bytes");
	cr_assert_str_eq(text(&t, 5, TREX_INTEG_COL_SIZE), "1.2 MB");
	cr_assert_eq(count(&t, 5, TREX_INTEG_COL_COUNT), 1234567);
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_COL_SIZE), "", "not a byte counter");
	trex_table_free(&t);
}

Test(integrity, first_example_where_what_track_time_name)
{
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_integrity_table(idx, &t, NULL, &err), TREX_OK);
	/* bad_dur: kept on stream 7 of GPU 0 at 300 ns, 250 ns after the trace start (50) */
	cr_assert_str_eq(text(&t, 1, TREX_INTEG_COL_WHERE), "run/a.json (byte 400)",
	                 "no source: no line:col; the name tells the runs of rank 1 apart");
	cr_assert_str_eq(text(&t, 1, TREX_INTEG_COL_WHAT), "dur is a string");
	cr_assert_str_eq(text(&t, 1, TREX_INTEG_COL_TRACK), "GPU 0 / stream 7");
	cr_assert_eq(trex_table_cell(&t, 1, TREX_INTEG_COL_TIME)->number, 250);
	cr_assert_str_eq(text(&t, 1, TREX_INTEG_COL_NAME), "k2");
	cr_assert_eq(count(&t, 1, TREX_INTEG_COL_EXAMPLES), 1);
	/* bad_ts: three examples, the first at byte 10, no event */
	cr_assert_eq(count(&t, 0, TREX_INTEG_COL_EXAMPLES), 3);
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_COL_WHERE), "other/a.json (byte 10)");
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_COL_TRACK), "");
	cr_assert(isnan(trex_table_cell(&t, 0, TREX_INTEG_COL_TIME)->number));
	/* a zero counter has no example */
	cr_assert_str_eq(text(&t, 7, TREX_INTEG_COL_WHERE), "");
	cr_assert_eq(count(&t, 7, TREX_INTEG_COL_EXAMPLES), 0);
	trex_table_free(&t);
}

/* ---- the examples of one counter ---------------------------------------------------------- */

Test(integrity, examples_of_a_counter_in_order)
{
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_integrity_examples_table(idx, 1, TREX_INTEG_bad_ts, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	for (size_t r = 0; r < 3; r++) {
		cr_assert_eq(count(&t, r, TREX_INTEG_EX_N), (int64_t)r + 1);
		cr_assert_eq(trex_index_problem(idx, 1, TREX_INTEG_bad_ts, (uint32_t)r)->offset,
		             10 * ((int64_t)r + 1));
		cr_assert_str_eq(text(&t, r, TREX_INTEG_EX_WHAT), "ts is a string");
		cr_assert(isnan(trex_table_cell(&t, r, TREX_INTEG_EX_BYTES)->number), "not a span");
		cr_assert_eq(count(&t, r, TREX_INTEG_EX_SLICE), -1);
	}
	cr_assert_str_eq(text(&t, 2, TREX_INTEG_EX_WHERE), "other/a.json (byte 30)");
	trex_table_free(&t);
}

Test(integrity, example_kept_as_a_slice_names_it)
{
	struct trex_table t;
	struct trex_error err;
	int64_t slice;

	cr_assert_eq(trex_integrity_examples_table(idx, 0, TREX_INTEG_bad_dur, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	slice = count(&t, 0, TREX_INTEG_EX_SLICE);
	cr_assert_geq(slice, 0, "the build found the slice k2 became");
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, (uint32_t)slice)->name), "k2");
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_EX_NAME), "k2");
	cr_assert_eq(trex_table_cell(&t, 0, TREX_INTEG_EX_TIME)->number, 250);
	trex_table_free(&t);
}

Test(integrity, span_examples_have_bytes_and_events_lost)
{
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_integrity_examples_table(idx, 0, TREX_INTEG_syntax_errors, &t, &err),
	             TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(trex_table_cell(&t, 0, TREX_INTEG_EX_BYTES)->number, 50);
	cr_assert_eq(trex_table_cell(&t, 0, TREX_INTEG_EX_LOST)->number, 2);
	cr_assert_str_eq(text(&t, 0, TREX_INTEG_EX_WHERE), "run/a.json (byte 100)");
	trex_table_free(&t);
	cr_assert_eq(trex_integrity_examples_table(idx, 0, TREX_INTEG_bytes_ignored, &t, &err),
	             TREX_OK);
	cr_assert_eq(trex_table_cell(&t, 0, TREX_INTEG_EX_BYTES)->number, 1234567);
	trex_table_free(&t);
}

Test(integrity, no_examples_says_so)
{
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_integrity_examples_table(idx, 1, TREX_INTEG_overlaps, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0);
	cr_assert_str_eq(t.note, "no examples kept");
	trex_table_free(&t);
}

/* ---- one clean file ----------------------------------------------------------------------- */

Test(integrity_clean, one_file_every_counter_under_its_run)
{
	struct trex_build_file f = fixture_file("clean.json");
	struct trex_builder *b = trex_builder_new(0);
	struct trex_index *clean;
	struct trex_table t;
	struct trex_error err;
	char buf[64] = "x";

	fixture_add(b, &f, &(struct fixture_slice){"1", "1", "cpu_op", "op", 0, 10, 0, 0, NULL});
	clean = fixture_build(&f, &b, 1);
	cr_assert_not(trex_file_lost_data(trex_index_file(clean, 0)));
	cr_assert_eq(trex_loss_text(clean, 0, true, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(trex_integrity_table(clean, &t, NULL, &err), TREX_OK);
	cr_assert_eq(t.nrows, TREX_INTEG_COUNT);
	for (size_t r = 0; r < t.nrows; r++)
		cr_assert_str_eq(text(&t, r, TREX_INTEG_COL_RUN), "rank 0", "row %zu", r);
	trex_table_free(&t);
	trex_index_free(clean);
}

Test(integrity_clean, spots_that_lost_no_event_say_so)
{
	struct trex_build_file f = fixture_file("flip.json");
	struct trex_builder *b = trex_builder_new(0);
	struct trex_problem spot = problem(TREX_INTEG_syntax_errors, 18615, "expected ','");
	struct trex_index *one;
	char buf[128];

	spot.length = 4;
	fixture_add(b, &f, &(struct fixture_slice){"1", "1", "cpu_op", "op", 0, 10, 0, 0, NULL});
	cr_assert_eq(trex_builder_problem(b, &spot), 0);
	f.integrity.syntax_errors = 1;
	f.integrity.bytes_skipped = 4;
	one = fixture_build(&f, &b, 1);
	cr_assert(trex_file_lost_data(trex_index_file(one, 0)));
	trex_loss_text(one, 0, true, buf, sizeof(buf));
	cr_assert_str_eq(buf, "skipped 4 bytes at 1 damaged spot, no event lost");
	trex_index_free(one);
}
