/* The one JSON writer (string escapes) and the unitrace summary exporter. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/table.h"
#include "trex/export/json_write.h"
#include "trex/export/unitrace_summary.h"

/* What fn writes, as a malloc'd string. */
static char *written(void (*fn)(FILE *, const void *), const void *arg)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	cr_assert_not_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static void write_string(FILE *f, const void *s)
{
	trex_json_write_string(f, s);
}

static void assert_string(const char *in, const char *expect)
{
	char *out = written(write_string, in);

	cr_assert_str_eq(out, expect, "%s", in);
	free(out);
}

Test(json_write, escapes_quotes_controls_and_bad_utf8)
{
	assert_string("plain", "\"plain\"");
	assert_string("a\"b\\c", "\"a\\\"b\\\\c\"");
	assert_string("l1\nl2\tx\r", "\"l1\\nl2\\tx\\r\"");
	assert_string("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	assert_string("nul\xc0\x80here", "\"nul\\u0000here\""); /* the string table's NUL */
	assert_string("c1\xc2\x85", "\"c1\\u0085\"");
	assert_string("bad\xff", "\"bad\\ufffd\"");
	assert_string("caf\xc3\xa9 \xe2\x86\x92", "\"caf\xc3\xa9 \xe2\x86\x92\"");
}

static const struct trex_column cat_cols[] = {
    {"total_ns", "Time", TREX_COL_DURATION, true},
    {"share_pct", "Share %", TREX_COL_PERCENT, true},
    {"calls", "Calls", TREX_COL_COUNT, true},
    {"category", "Category", TREX_COL_TEXT, false},
};

static void write_summary(FILE *f, const void *t)
{
	struct trex_error err;

	cr_assert_eq(trex_unitrace_summary_write(f, t, &err), TREX_OK, "%s", err.message);
}

Test(unitrace_summary, one_flat_object_of_times_and_calls)
{
	struct trex_table t;
	union trex_cell *c;
	char *out;

	trex_table_init(&t, "categories", cat_cols, 4);
	c = trex_table_add_row(&t);
	cr_assert_not_null(c);
	c[0].number = 1500;
	c[2].count = 3;
	c[3].text = "gemm \"x\"";
	c = trex_table_add_row(&t);
	cr_assert_not_null(c);
	c[0].number = 20;
	c[2].count = 1;
	c[3].text = TREX_CATEGORY_NONE;
	out = written(write_summary, &t);
	cr_assert_str_eq(out, "{\"gemm \\\"x\\\"_time\": 1500, \"gemm \\\"x\\\"_calls\": 3, "
	                      "\"device_time\": 20, \"device_calls\": 1}\n");
	free(out);
	trex_table_free(&t);
}

Test(unitrace_summary, other_tables_are_a_usage_error)
{
	static const struct trex_column cols[] = {
	    {"rank", "Rank", TREX_COL_COUNT, false},
	    {"device", "Device", TREX_COL_TEXT, false},
	    {"calls", "Calls", TREX_COL_COUNT, true},
	    {"category", "Category", TREX_COL_TEXT, false},
	};
	struct trex_table t;
	struct trex_error err;
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	trex_table_init(&t, "ideal_categories", cols, 4);
	cr_assert_eq(trex_unitrace_summary_write(f, &t, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "ideal_categories"), "%s", err.message);
	fclose(f);
	trex_table_free(&t);
}
