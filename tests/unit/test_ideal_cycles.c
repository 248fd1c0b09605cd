/* acelyzer's categories table over a hand-built index and a small
 * compiler log; every number below is worked out in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/analysis/ideal_cycles.h"

static struct trex_ideal_log *log_of(const char *text)
{
	struct trex_ideal_log *log = NULL;
	struct trex_error err;

	cr_assert_eq(trex_deeptools_log_parse("c.log", text, strlen(text), NULL, NULL, &log, &err),
	             TREX_OK, "%s", err.message);
	return log;
}

static struct trex_index *index_of(const struct fixture_slice *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file, &ev[i]);
	return fixture_build(&file, &b, 1);
}

static const char *text(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->text;
}

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

static int64_t count(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->count;
}

enum { RANK, DEVICE, PHASE, TIME, TIME_PCT, CALLS, IDEAL, CYCLES, IDEAL_PCT, UTIL, CATEGORY };

/* At 1100 MHz, 1100 cycles are 1000 ns. */
static const char one_table[] = " Ideal/Total Cycles \n"
                                "conv-opCatConv 1100\n"
                                "mm-opCatBmm 2200\n"
                                "big-opCatConv 110000\n"
                                "relu-opCatScalar 0\n"
                                "====== Perf Summary End ======\n";

/* Device 0 (FLEX names, no category): conv 4000 ns twice (1100 cycles
 * each), mm 2000 ns (2200 cycles: 2000 ns, fits exactly), big 5000 ns
 * (100000 ns ideal > 5000: no cycles), unknown 1000 ns (other), and a
 * Cmpt Prep that is no kernel. Device 1: a Kineto kernel "mm" of 1000 ns
 * (ideal 2000 > 1000: no cycles).
 * Device 0: Conv 13000 ns, 3 calls, 2200 cycles = 2000 ns; Bmm 2000, 1,
 * 2200 = 2000 ns; other 1000, 1, 0; Scalar and StcdpHbm 0; Total 16000,
 * 5 calls, 4400 cycles = 4000 ns. */
Test(ideal_cycles, acelyzer_categories_of_each_device)
{
	const struct fixture_slice ev[] = {
	    {"0", "1", "", "conv Cmpt Exec", 0, 4000, 0, 0, NULL},
	    {"0", "1", "", "conv Cmpt Exec", 5000, 4000, 0, 0, NULL},
	    {"0", "1", "", "mm Cmpt Exec", 10000, 2000, 0, 0, NULL},
	    {"0", "1", "", "big Cmpt Exec", 20000, 5000, 0, 0, NULL},
	    {"0", "1", "", "unknown Cmpt Exec", 30000, 1000, 0, 0, NULL},
	    {"0", "2", "", "conv Cmpt Prep", 0, 9999, 0, 0, NULL},
	    {"1", "7", "kernel", "mm", 0, 1000, 0, 0, NULL},
	};
	struct trex_index *idx = index_of(ev, sizeof(ev) / sizeof(ev[0]));
	struct trex_ideal_log *log = log_of(one_table);
	struct trex_table t;
	struct trex_error err;
	static const char *const order[] = {"StcdpHbm", "Scalar", "other", "Bmm", "Conv", "Total"};

	cr_assert_eq(trex_ideal_categories_table(idx, log, 0, &t, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_eq(t.ncols, 11);
	cr_assert_str_eq(t.cols[CATEGORY].key, "category");
	cr_assert_eq(t.nrows, 6 + 6);
	for (size_t r = 0; r < 6; r++) {
		cr_assert_str_eq(text(&t, r, CATEGORY), order[r]);
		cr_assert_str_eq(text(&t, r, DEVICE), text(&t, 0, DEVICE));
		cr_assert_str_eq(text(&t, r, PHASE), "UNKN");
	}
	cr_assert_str_neq(text(&t, 6, DEVICE), text(&t, 0, DEVICE));
	cr_assert_eq(num(&t, 4, TIME), 13000);
	cr_assert_eq(count(&t, 4, CALLS), 3);
	cr_assert_eq(count(&t, 4, CYCLES), 2200);
	cr_assert_float_eq(num(&t, 4, IDEAL), 2000, 1e-6);
	cr_assert_float_eq(num(&t, 4, TIME_PCT), 81.25, 1e-9);
	cr_assert_float_eq(num(&t, 4, IDEAL_PCT), 50, 1e-9);
	cr_assert_float_eq(num(&t, 4, UTIL), 2000.0 / 13000 * 100, 1e-9);
	cr_assert_float_eq(num(&t, 3, UTIL), 100, 1e-9);
	cr_assert_eq(num(&t, 2, TIME), 1000);
	cr_assert_eq(count(&t, 2, CYCLES), 0);
	cr_assert_eq(num(&t, 5, TIME), 16000);
	cr_assert_eq(count(&t, 5, CALLS), 5);
	cr_assert_eq(count(&t, 5, CYCLES), 4400);
	cr_assert_float_eq(num(&t, 5, TIME_PCT), 100, 1e-9);
	cr_assert_float_eq(num(&t, 5, UTIL), 4000.0 / 16000 * 100, 1e-9);
	cr_assert_eq(num(&t, 0, UTIL), 0, "no time: 0");
	/* device 1: its mm, no cycles fit */
	cr_assert_str_eq(text(&t, 10, CATEGORY), "Bmm");
	cr_assert_eq(num(&t, 10, TIME), 1000);
	cr_assert_eq(count(&t, 10, CYCLES), 0);
	cr_assert_str_eq(text(&t, 11, CATEGORY), "Total");
	trex_table_free(&t);

	/* a slower core makes the same cycles take longer */
	cr_assert_eq(trex_ideal_categories_table(idx, log, 550, &t, &err), TREX_OK);
	cr_assert_float_eq(num(&t, 4, IDEAL), 4000, 1e-6);
	trex_table_free(&t);
	trex_ideal_log_free(log);
	trex_index_free(idx);
}

/* Each device takes the table that lists most of its kernel instances. */
Test(ideal_cycles, each_device_takes_its_best_table)
{
	static const char two[] = " Ideal/Total Cycles \n"
	                          "a-opCatX 1\n"
	                          "====== Perf Summary End ======\n"
	                          " DECODING\n"
	                          " Ideal/Total Cycles \n"
	                          "a-opCatY 2\n"
	                          "b-opCatY 3\n"
	                          "====== Perf Summary End ======\n";
	const struct fixture_slice ev[] = {
	    {"0", "1", "", "a Cmpt Exec", 0, 4000, 0, 0, NULL},
	    {"1", "1", "", "a Cmpt Exec", 0, 4000, 0, 0, NULL},
	    {"1", "1", "", "b Cmpt Exec", 5000, 4000, 0, 0, NULL},
	};
	struct trex_index *idx = index_of(ev, 3);
	struct trex_ideal_log *log = log_of(two);
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_ideal_categories_table(idx, log, 0, &t, &err), TREX_OK);
	/* device 0: first table (tie 1 : 1 goes to the earlier); rows StcdpHbm,
	 * other, X, Total. Device 1: the DECODING table; StcdpHbm, other, Y, Total. */
	cr_assert_eq(t.nrows, 8);
	cr_assert_str_eq(text(&t, 2, CATEGORY), "X");
	cr_assert_str_eq(text(&t, 2, PHASE), "UNKN");
	cr_assert_str_eq(text(&t, 6, CATEGORY), "Y");
	cr_assert_str_eq(text(&t, 6, PHASE), "DECODING");
	cr_assert_eq(count(&t, 6, CALLS), 2);
	cr_assert_eq(count(&t, 6, CYCLES), 5);
	trex_table_free(&t);
	trex_ideal_log_free(log);
	trex_index_free(idx);
}

Test(ideal_cycles, no_kernels_no_rows_and_a_note)
{
	const struct fixture_slice ev[] = {{"1", "1", "cpu_op", "aten::mm", 0, 10, 0, 0, NULL}};
	struct trex_index *idx = index_of(ev, 1);
	struct trex_ideal_log *log = log_of(one_table);
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_ideal_categories_table(idx, log, 0, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0);
	cr_assert_str_eq(t.note,
	                 "no GPU kernels: this trace has only CPU events (categories cpu_op)");
	trex_table_free(&t);
	trex_ideal_log_free(log);
	trex_index_free(idx);
}
