/* Result tables and their writers: text alignment, CSV quoting (RFC 4180)
 * and JSON escaping (duration units: test_display.c). Expected outputs are
 * written out by hand. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

static const struct trex_column cols[] = {
    {"time_pct", "Time %", TREX_COL_PERCENT, true},
    {"total_ns", "Total", TREX_COL_DURATION, true},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"name", "Name", TREX_COL_TEXT, false},
};

static void add(struct trex_table *t, double pct, double total, int64_t n, const char *name)
{
	union trex_cell *c = trex_table_add_row(t);

	cr_assert_not_null(c);
	c[0].number = pct;
	c[1].number = total;
	c[2].count = n;
	c[3].text = trex_table_strdup(t, name, strlen(name));
	cr_assert_not_null(c[3].text);
}

/* Runs the writer into a string; the caller frees it. */
static char *render(const struct trex_table *t, enum trex_table_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct trex_error err;

	cr_assert_not_null(f);
	cr_assert_eq(trex_table_write(f, t, fmt, &err), TREX_OK);
	fclose(f);
	return buf;
}

/* ---- the table itself ---------------------------------------------------------- */

Test(table, rows_grow_and_cells_start_zeroed)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	for (int i = 0; i < 1000; i++)
		add(&t, i, i * 2.0, i, "k");
	cr_assert_eq(t.nrows, 1000);
	cr_assert_eq(trex_table_cell(&t, 999, 2)->count, 999);
	cr_assert_eq(trex_table_cell(&t, 500, 1)->number, 1000.0);
	union trex_cell *c = trex_table_add_row(&t);
	cr_assert_eq(c[2].count, 0);
	cr_assert_null(c[3].text);
	trex_table_free(&t);
	cr_assert_eq(t.nrows, 0);
}

Test(table, strdup_copies_long_and_embedded_text)
{
	struct trex_table t;
	size_t big = 200000;
	char *s = malloc(big);

	memset(s, 'x', big);
	trex_table_init(&t, "t", cols, 4);
	const char *a = trex_table_strdup(&t, "abcdef", 3);
	const char *b = trex_table_strdup(&t, s, big);
	const char *c = trex_table_strdup(&t, "", 0);
	free(s);
	cr_assert_str_eq(a, "abc");
	cr_assert_eq(strlen(b), big);
	cr_assert_str_eq(c, "");
	/* an embedded NUL is kept as the string table keeps it, never cutting the text */
	cr_assert_str_eq(trex_table_strdup(&t, "a\0b\0", 4), "a\xc0\x80"
	                                                     "b\xc0\x80");
	trex_table_free(&t);
}

/* ---- formats and durations ---------------------------------------------------------- */

Test(table_write, format_names)
{
	enum trex_table_format f;

	cr_assert(trex_table_format_parse("csv", &f) && f == TREX_FMT_CSV);
	cr_assert(trex_table_format_parse("json", &f) && f == TREX_FMT_JSON);
	cr_assert(trex_table_format_parse("text", &f) && f == TREX_FMT_TEXT);
	cr_assert_not(trex_table_format_parse("CSV", &f));
	cr_assert_not(trex_table_format_parse("", &f));
}

/* ---- text ------------------------------------------------------------------------------ */

Test(table_write, text_aligns_numbers_right_and_name_left)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	add(&t, 75, 1500000, 3, "gemm");
	add(&t, 25, 500, 12, "a very long kernel name, never truncated");
	char *s = render(&t, TREX_FMT_TEXT);
	cr_assert_str_eq(s,
	                 "Time %     Total  Instances  Name\n"
	                 "------  --------  ---------  ----\n"
	                 " 75.00    1.5 ms          3  gemm\n"
	                 " 25.00  500   ns         12  a very long kernel name, never truncated\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, text_counts_utf8_characters_and_shows_control_chars)
{
	static const struct trex_column c2[] = {
	    {"a", "A", TREX_COL_TEXT, false},
	    {"n", "N", TREX_COL_COUNT, true},
	    {"b", "B", TREX_COL_TEXT, false},
	};
	struct trex_table t;

	trex_table_init(&t, "t", c2, 3);
	union trex_cell *r = trex_table_add_row(&t);
	r[0].text = "\xc3\xa9t\xc3\xa9"; /* été: 3 characters */
	r[1].count = 7;
	r[2].text = "x\ny";
	r = trex_table_add_row(&t);
	r[0].text = "abcd";
	r[1].count = -1;
	r[2].text = "";
	char *s = render(&t, TREX_FMT_TEXT);
	cr_assert_str_eq(s, "A      N  B\n"
	                    "----  --  -\n"
	                    "\xc3\xa9t\xc3\xa9    7  x\\ny\n"
	                    "abcd  -1\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, text_shows_nul_and_escapes_apart_from_literal_backslashes)
{
	static const struct trex_column c1[] = {{"name", "Name", TREX_COL_TEXT, false}};
	struct trex_table t;

	trex_table_init(&t, "t", c1, 1);
	/* the string table keeps a NUL as C0 80 (strtab.h) */
	trex_table_add_row(&t)[0].text = "a\xc0\x80"
	                                 "b";
	trex_table_add_row(&t)[0].text = "a\xc0\x80"
	                                 "c";
	trex_table_add_row(&t)[0].text = "esc\x1b[31mred";
	trex_table_add_row(&t)[0].text = "lit\\x1b[31mred";
	trex_table_add_row(&t)[0].text = "del\x7f c1\xc2\x9b bad\xff";
	char *s = render(&t, TREX_FMT_TEXT);
	cr_assert_str_eq(s, "Name\n"
	                    "----\n"
	                    "a\\0b\n"
	                    "a\\0c\n"
	                    "esc\\x1b[31mred\n"
	                    "lit\\\\x1b[31mred\n"
	                    "del\\x7f c1\\u009b bad\\xff\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, text_lines_up_decimal_points_and_units)
{
	static const struct trex_column c3[] = {
	    {"total_ns", "Total", TREX_COL_DURATION, true},
	    {"ratio", "Ratio", TREX_COL_NUMBER, true},
	    {"avg_ns", "Avg", TREX_COL_DURATION, true},
	};
	static const double rows[][3] = {
	    {1646897, 2.5, 1e9}, {577665000, 10, 5}, {15, 0.125, NAN}, {2.5e9, NAN, 1500}};
	struct trex_table t;

	trex_table_init(&t, "t", c3, 3);
	for (size_t i = 0; i < 4; i++) {
		union trex_cell *c = trex_table_add_row(&t);

		for (int k = 0; k < 3; k++)
			c[k].number = rows[i][k];
	}
	char *s = render(&t, TREX_FMT_TEXT);
	/* "-" stands where the last integer digit does */
	cr_assert_str_eq(s, "     Total   Ratio     Avg\n"
	                    "----------  ------  ------\n"
	                    "  1.647 ms   2.5    1   s \n"
	                    "577.665 ms  10      5   ns\n"
	                    " 15     ns   0.125  -     \n"
	                    "  2.5   s    -      1.5 us\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, cell_text_aligned_for_any_column)
{
	static const struct trex_column d = {"d", "D", TREX_COL_DURATION, true};
	static const struct trex_column p = {"p", "P", TREX_COL_PERCENT, true};
	static const struct trex_column n = {"n", "N", TREX_COL_COUNT, true};
	union trex_cell c;
	char buf[64];

	c.number = 5000;
	cr_assert_str_eq(trex_table_cell_text_aligned(&d, &c, NULL, buf, sizeof(buf)), "5     us");
	c.number = 1646897;
	cr_assert_str_eq(trex_table_cell_text_aligned(&d, &c, NULL, buf, sizeof(buf)), "1.647 ms");
	c.number = 2.5e9;
	cr_assert_str_eq(trex_table_cell_text_aligned(&d, &c, NULL, buf, sizeof(buf)), "2.5   s ");
	c.number = NAN;
	cr_assert_str_eq(trex_table_cell_text_aligned(&d, &c, NULL, buf, sizeof(buf)), "-       ");
	c.number = 12.5;
	cr_assert_str_eq(trex_table_cell_text_aligned(&p, &c, NULL, buf, sizeof(buf)), "12.50");
	c.count = 42;
	cr_assert_str_eq(trex_table_cell_text_aligned(&n, &c, NULL, buf, sizeof(buf)), "42");
	/* every aligned duration is as wide as the others with as many integer digits */
	c.number = 999;
	cr_assert_eq(strlen(trex_table_cell_text_aligned(&d, &c, NULL, buf, sizeof(buf))), 10);
}

Test(table_write, text_empty_table_has_header_only)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	char *s = render(&t, TREX_FMT_TEXT);
	cr_assert_str_eq(s, "Time %  Total  Instances  Name\n"
	                    "------  -----  ---------  ----\n");
	free(s);
	trex_table_free(&t);
}

/* ---- CSV --------------------------------------------------------------------------------- */

Test(table_write, csv_quotes_commas_quotes_and_escapes_control_characters)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	add(&t, 50, 1000, 1, "void gemm<float, 128>(float*, int)");
	add(&t, 30, 12.5, 2, "say \"hi\"");
	add(&t, 20, 7, 3, "line1\nline2\rend");
	add(&t, 0, 0, 4, "plain");
	/* one CSV row is one line; a NUL (C0 80), ESC and a backslash as in the text table */
	add(&t, 0, 0, 5,
	    "a\xc0\x80"
	    "b,\x1b[0m\\x");
	char *s = render(&t, TREX_FMT_CSV);
	cr_assert_str_eq(s, "time_pct,total_ns,instances,name\n"
	                    "50,1000,1,\"void gemm<float, 128>(float*, int)\"\n"
	                    "30,12.500,2,\"say \"\"hi\"\"\"\n"
	                    "20,7,3,line1\\nline2\\rend\n"
	                    "0,0,4,plain\n"
	                    "0,0,5,\"a\\0b,\\x1b[0m\\\\x\"\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, csv_numbers_never_use_exponents)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	add(&t, 100.0 / 3.0, 1e15, 1, "big");
	add(&t, 1e-7, 2.0 / 3.0, 1, "small");
	char *s = render(&t, TREX_FMT_CSV);
	cr_assert_str_eq(s, "time_pct,total_ns,instances,name\n"
	                    "33.333333,1000000000000000,1,big\n"
	                    "0,0.667,1,small\n");
	free(s);
	trex_table_free(&t);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

Test(table_write, json_shape_and_escapes)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	add(&t, 62.5, 1234.5, 2, "q\"b\\s\x01\t\n\xc3\xa9\xf0\x9f\x98\x80");
	add(&t, NAN, 5, 1, "bad\xff utf8 \xc3");
	char *s = render(&t, TREX_FMT_JSON);
	cr_assert_str_eq(s, "{\"table\": \"kernels\", \"columns\": [\"time_pct\", \"total_ns\", "
	                    "\"instances\", \"name\"], \"rows\": [\n"
	                    "  {\"time_pct\": 62.5, \"total_ns\": 1234.500, \"instances\": 2, "
	                    "\"name\": \"q\\\"b\\\\s\\u0001\\t\\n\xc3\xa9\xf0\x9f\x98\x80\"},\n"
	                    "  {\"time_pct\": null, \"total_ns\": 5, \"instances\": 1, "
	                    "\"name\": \"bad\\ufffd utf8 \\ufffd\"}\n"
	                    "]}\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, json_escapes_nul_del_and_c1_controls)
{
	static const struct trex_column c1[] = {{"s", "S", TREX_COL_TEXT, false}};
	struct trex_table t;

	trex_table_init(&t, "t", c1, 1);
	trex_table_add_row(&t)[0].text = "a\xc0\x80"
	                                 "b\x7f\xc2\x9b[2J\xc2\xa0\x1b";
	char *s = render(&t, TREX_FMT_JSON);
	cr_assert_str_eq(s, "{\"table\": \"t\", \"columns\": [\"s\"], \"rows\": [\n"
	                    "  {\"s\": \"a\\u0000b\\u007f\\u009b[2J\xc2\xa0\\u001b\"}\n]}\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, json_rejects_overlong_and_surrogate_utf8)
{
	static const struct trex_column c1[] = {{"s", "S", TREX_COL_TEXT, false}};
	struct trex_table t;

	trex_table_init(&t, "t", c1, 1);
	trex_table_add_row(&t)[0].text = "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80";
	char *s = render(&t, TREX_FMT_JSON);
	cr_assert_str_eq(s, "{\"table\": \"t\", \"columns\": [\"s\"], \"rows\": [\n"
	                    "  {\"s\": \"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
	                    "\\ufffd\\ufffd\\ufffd\\ufffd\"}\n]}\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, json_empty_table)
{
	struct trex_table t;

	trex_table_init(&t, "kernels", cols, 4);
	char *s = render(&t, TREX_FMT_JSON);
	cr_assert_str_eq(s, "{\"table\": \"kernels\", \"columns\": [\"time_pct\", \"total_ns\", "
	                    "\"instances\", \"name\"], \"rows\": []}\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, write_error_is_reported)
{
	struct trex_table t;
	struct trex_error err;
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	trex_table_init(&t, "kernels", cols, 4);
	add(&t, 1, 2, 3, "x");
	cr_assert_eq(trex_table_write(f, &t, TREX_FMT_CSV, &err), TREX_IO);
	cr_assert_eq(err.status, TREX_IO);
	fclose(f);
	trex_table_free(&t);
}

/* ---- a view's selection of rows, and exporting it to a file ------------------------- */

static char *render_rows(const struct trex_table *t, const size_t *rows, size_t n,
                         enum trex_table_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct trex_error err;

	cr_assert_not_null(f);
	cr_assert_eq(trex_table_write_rows(f, t, rows, n, fmt, &err), TREX_OK);
	fclose(f);
	return buf;
}

static void three_rows(struct trex_table *t)
{
	trex_table_init(t, "kernels", cols, 4);
	add(t, 50, 500, 5, "a");
	add(t, 30, 300, 3, "bb");
	add(t, 20, 200, 2, "c");
}

Test(table_write, rows_selection_in_given_order)
{
	struct trex_table t;
	size_t rows[] = {2, 0};
	char *s;

	three_rows(&t);
	s = render_rows(&t, rows, 2, TREX_FMT_CSV);
	cr_expect_str_eq(s, "time_pct,total_ns,instances,name\n20,200,2,c\n50,500,5,a\n");
	free(s);
	s = render_rows(&t, rows, 2, TREX_FMT_JSON);
	cr_expect_str_eq(s, "{\"table\": \"kernels\", \"columns\": [\"time_pct\", \"total_ns\", "
	                    "\"instances\", \"name\"], \"rows\": [\n"
	                    "  {\"time_pct\": 20, \"total_ns\": 200, \"instances\": 2, \"name\": "
	                    "\"c\"},\n"
	                    "  {\"time_pct\": 50, \"total_ns\": 500, \"instances\": 5, \"name\": "
	                    "\"a\"}\n]}\n");
	free(s);
	/* text widths come from the selected rows only ("bb" is left out) */
	s = render_rows(&t, rows, 2, TREX_FMT_TEXT);
	cr_expect_str_eq(s, "Time %   Total  Instances  Name\n"
	                    "------  ------  ---------  ----\n"
	                    " 20.00  200 ns          2  c\n"
	                    " 50.00  500 ns          5  a\n");
	free(s);
	trex_table_free(&t);
}

Test(table_write, rows_null_is_every_row_and_zero_rows_is_header)
{
	struct trex_table t;
	char *a, *b;

	three_rows(&t);
	a = render_rows(&t, NULL, t.nrows, TREX_FMT_CSV);
	b = render(&t, TREX_FMT_CSV);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	a = render_rows(&t, NULL, 0, TREX_FMT_CSV);
	cr_expect_str_eq(a, "time_pct,total_ns,instances,name\n");
	free(a);
	trex_table_free(&t);
}

Test(table_write, format_for_path_uses_the_extension)
{
	cr_expect_eq(trex_table_format_for_path("k.csv"), TREX_FMT_CSV);
	cr_expect_eq(trex_table_format_for_path("/tmp/K.CSV"), TREX_FMT_CSV);
	cr_expect_eq(trex_table_format_for_path("out.json"), TREX_FMT_JSON);
	cr_expect_eq(trex_table_format_for_path("out.txt"), TREX_FMT_TEXT);
	cr_expect_eq(trex_table_format_for_path("out"), TREX_FMT_TEXT);
	cr_expect_eq(trex_table_format_for_path("dir.csv/out"), TREX_FMT_TEXT);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 4096);

	cr_assert_not_null(f);
	cr_assert_not_null(buf);
	cr_assert(fread(buf, 1, 4095, f) < 4095);
	fclose(f);
	return buf;
}

Test(table_write, export_writes_replaces_only_with_force)
{
	char dir[] = "/tmp/trex-export-XXXXXX", path[64];
	struct trex_table t;
	struct trex_error err;
	size_t rows[] = {1};
	char *s;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/k.csv", dir);
	three_rows(&t);
	cr_assert_eq(trex_table_export(path, false, &t, rows, 1, TREX_FMT_CSV, &err), TREX_OK);
	s = slurp(path);
	cr_expect_str_eq(s, "time_pct,total_ns,instances,name\n30,300,3,bb\n");
	free(s);
	cr_expect_eq(trex_table_export(path, false, &t, NULL, 3, TREX_FMT_CSV, &err), TREX_EXISTS);
	s = slurp(path);
	cr_expect_str_eq(s, "time_pct,total_ns,instances,name\n30,300,3,bb\n", "kept");
	free(s);
	cr_expect_eq(trex_table_export(path, true, &t, NULL, 0, TREX_FMT_CSV, &err), TREX_OK);
	s = slurp(path);
	cr_expect_str_eq(s, "time_pct,total_ns,instances,name\n");
	free(s);
	unlink(path);
	snprintf(path, sizeof(path), "%s/missing/k.csv", dir);
	cr_expect_eq(trex_table_export(path, false, &t, NULL, 3, TREX_FMT_CSV, &err), TREX_IO);
	rmdir(dir);
	trex_table_free(&t);
}
