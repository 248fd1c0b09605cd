/* Row order, regex filters and name folding for the table views: every
 * expected permutation is written out by hand. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/table.h"
#include "trex/analysis/table_order.h"

static const struct trex_column cols[] = {
    {"total_ns", "Total", TREX_COL_DURATION, true},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"name", "Name", TREX_COL_TEXT, false},
};

static void add(struct trex_table *t, double total, int64_t n, const char *name)
{
	union trex_cell *c = trex_table_add_row(t);

	cr_assert_not_null(c);
	c[0].number = total;
	c[1].count = n;
	c[2].text = trex_table_strdup(t, name, strlen(name));
}

/* Rows: 0 gemm 30/2, 1 relu 10/5, 2 attn 30/1, 3 copy NaN/5, 4 Softmax 20/3 */
static void sample(struct trex_table *t)
{
	trex_table_init(t, "kernels", cols, 3);
	add(t, 30, 2, "gemm");
	add(t, 10, 5, "relu");
	add(t, 30, 1, "attn");
	add(t, NAN, 5, "copy");
	add(t, 20, 3, "Softmax");
}

static void identity(size_t *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rows[i] = i;
}

static void expect_rows(const size_t *rows, const size_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(rows[i], want[i], "position %zu: row %zu, expected %zu", i, rows[i],
		             want[i]);
}

Test(table_order, name_col_is_last_text_column)
{
	struct trex_table t;

	sample(&t);
	cr_expect_eq(trex_table_name_col(&t), 2);
	trex_table_free(&t);
	trex_table_init(&t, "n", cols, 2);
	cr_expect_eq(trex_table_name_col(&t), 2, "no text column: ncols");
	trex_table_free(&t);
}

Test(table_order, sort_descending_ties_by_name_nan_last)
{
	struct trex_table t;
	size_t rows[5], want[] = {2, 0, 4, 1, 3};

	sample(&t);
	identity(rows, 5);
	cr_assert_eq(trex_table_sort_rows(&t, 0, true, 2, rows, 5), TREX_OK);
	expect_rows(rows, want, 5);
	trex_table_free(&t);
}

Test(table_order, sort_ascending_keeps_name_ties_ascending)
{
	struct trex_table t;
	size_t rows[5], want[] = {3, 1, 4, 2, 0};

	sample(&t);
	identity(rows, 5);
	cr_assert_eq(trex_table_sort_rows(&t, 0, false, 2, rows, 5), TREX_OK);
	expect_rows(rows, want, 5);
	trex_table_free(&t);
}

Test(table_order, sort_counts_and_text)
{
	struct trex_table t;
	size_t rows[5], by_n[] = {3, 1, 4, 0, 2}, by_name[] = {4, 2, 3, 0, 1};

	sample(&t);
	identity(rows, 5);
	cr_assert_eq(trex_table_sort_rows(&t, 1, true, 2, rows, 5), TREX_OK);
	expect_rows(rows, by_n, 5);
	/* strcmp order: upper case first */
	cr_assert_eq(trex_table_sort_rows(&t, 2, false, 2, rows, 5), TREX_OK);
	expect_rows(rows, by_name, 5);
	trex_table_free(&t);
}

Test(table_order, sort_without_name_column_falls_back_to_row_index)
{
	struct trex_table t;
	size_t rows[5] = {4, 3, 2, 1, 0}, want[] = {0, 2, 4, 1, 3};

	sample(&t);
	cr_assert_eq(trex_table_sort_rows(&t, 0, true, 99, rows, 5), TREX_OK);
	expect_rows(rows, want, 5);
	trex_table_free(&t);
}

Test(table_order, sort_subset_and_large_input_is_ordered)
{
	struct trex_table t;
	size_t sub[3] = {4, 1, 0}, want[] = {0, 4, 1};
	enum { N = 1000 };
	size_t rows[N];

	sample(&t);
	cr_assert_eq(trex_table_sort_rows(&t, 0, true, 2, sub, 3), TREX_OK);
	expect_rows(sub, want, 3);
	trex_table_free(&t);
	trex_table_init(&t, "big", cols, 3);
	for (int i = 0; i < N; i++)
		add(&t, (double)((i * 7919) % 101), i, "k");
	identity(rows, N);
	cr_assert_eq(trex_table_sort_rows(&t, 0, false, 2, rows, N), TREX_OK);
	for (int i = 1; i < N; i++) {
		double a = trex_table_cell(&t, rows[i - 1], 0)->number;
		double b = trex_table_cell(&t, rows[i], 0)->number;

		cr_assert(a < b || (a == b && rows[i - 1] < rows[i]), "at %d", i);
	}
	trex_table_free(&t);
}

Test(table_order, filter_is_smart_case_and_keeps_order)
{
	struct trex_table t;
	struct trex_regex *re;
	struct trex_error err;
	size_t rows[5] = {4, 3, 2, 1, 0}, out[5];

	sample(&t);
	cr_assert_eq(trex_regex_compile("soft|^g", &re, &err), TREX_OK);
	cr_expect_eq(trex_table_filter_rows(&t, 2, re, rows, 5, out), 2);
	cr_expect_eq(out[0], 4);
	cr_expect_eq(out[1], 0);
	trex_regex_free(re);
	cr_assert_eq(trex_regex_compile("soft", &re, &err), TREX_OK);
	cr_expect_eq(trex_table_filter_rows(&t, 2, re, rows, 5, out), 1, "lower case: caseless");
	trex_regex_free(re);
	cr_assert_eq(trex_regex_compile("Soft", &re, &err), TREX_OK);
	cr_expect_eq(trex_table_filter_rows(&t, 2, re, rows, 5, out), 1);
	trex_regex_free(re);
	cr_assert_eq(trex_regex_compile("SOFT", &re, &err), TREX_OK);
	cr_expect_eq(trex_table_filter_rows(&t, 2, re, rows, 5, out), 0, "upper case: exact");
	cr_expect_eq(trex_table_filter_rows(&t, 0, re, rows, 5, out), 0, "numbers never match");
	trex_regex_free(re);
	trex_table_free(&t);
}

Test(table_order, filter_in_place)
{
	struct trex_table t;
	struct trex_regex *re;
	struct trex_error err;
	size_t rows[5] = {0, 1, 2, 3, 4};

	sample(&t);
	cr_assert_eq(trex_regex_compile("e", &re, &err), TREX_OK);
	cr_expect_eq(trex_table_filter_rows(&t, 2, re, rows, 5, rows), 2);
	cr_expect_eq(rows[0], 0);
	cr_expect_eq(rows[1], 1);
	trex_regex_free(re);
	trex_table_free(&t);
}

Test(table_order, bad_regex_reports_pcre2_message)
{
	struct trex_regex *re = (struct trex_regex *)&re;
	struct trex_error err;

	cr_assert_eq(trex_regex_compile("gemm(", &re, &err), TREX_USAGE);
	cr_expect_null(re);
	cr_expect(strstr(err.message, "missing closing parenthesis") != NULL, "%s", err.message);
	cr_expect(strstr(err.message, "at 5") != NULL, "%s", err.message);
}

static void expect_short(const char *in, const char *want)
{
	char buf[256];
	size_t n = trex_name_shorten(in, buf, sizeof(buf));

	cr_expect_str_eq(buf, want, "%s", in);
	cr_expect_eq(n, strlen(want));
}

Test(table_order, shorten_folds_templates_and_arguments)
{
	expect_short(
	    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
	    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
	    "at::detail::Array<char*, 1>)",
	    "void at::native::vectorized_elementwise_kernel<…>(…)");
	expect_short("f<a<b<c>>>(x(y))::g<z>", "f<…>(…)::g<…>");
	expect_short("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn");
	expect_short("empty() and <>", "empty() and <>");
	expect_short("", "");
}

Test(table_order, shorten_keeps_operators_and_unbalanced_brackets)
{
	expect_short("bool operator<(A const&, A const&)", "bool operator<(…)");
	expect_short("S::operator()(int) const", "S::operator()(…) const");
	expect_short("x operator<<<int>(int)", "x operator<<<…>(…)");
	expect_short("p->q(a->b)", "p->q(…)");
	expect_short("broken<int(", "broken<int(");
	expect_short("a > b (c", "a > b (c");
	expect_short("cooperator<int>", "cooperator<…>");
}

Test(table_order, shorten_truncates_like_snprintf)
{
	char buf[8];

	cr_expect_eq(trex_name_shorten("kernel<int>(x)", buf, sizeof(buf)), strlen("kernel<…>(…)"));
	cr_expect_str_eq(buf, "kernel<");
	cr_expect_eq(trex_name_shorten("abc", NULL, 0), 3);
}

static const struct trex_column wide_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},      {"device", "Device", TREX_COL_TEXT, false},
    {"busy_ns", "Busy", TREX_COL_DURATION, true}, {"busy_pct", "Busy %", TREX_COL_PERCENT, true},
    {"kernels", "Kernels", TREX_COL_COUNT, true},
};

Test(table_order, transpose_makes_one_row_per_metric)
{
	struct trex_table t, out;
	enum trex_col_type *types;
	struct trex_error err;
	const char *dev[] = {"GPU 0", "GPU 1"};

	trex_table_init(&t, "gpu_time", wide_cols, 5);
	for (int r = 0; r < 2; r++) {
		union trex_cell *c = trex_table_add_row(&t);

		c[0].count = 3;
		c[1].text = dev[r];
		c[2].number = 1000.0 * (r + 1);
		c[3].number = 50.5 + r;
		c[4].count = 7 + r;
	}
	cr_assert_eq(trex_table_transpose(&t, 2, &out, &types, &err), TREX_OK);
	cr_assert_eq(out.ncols, 3);
	cr_assert_eq(out.nrows, 3);
	cr_expect_str_eq(out.name, "gpu_time");
	cr_expect_str_eq(out.cols[0].key, "metric");
	cr_expect_eq(out.cols[0].type, TREX_COL_TEXT);
	cr_expect_str_eq(out.cols[1].title, "rank 3 GPU 0");
	cr_expect_str_eq(out.cols[2].key, "rank 3 GPU 1");
	cr_expect_eq(out.cols[2].type, TREX_COL_NUMBER);
	cr_expect_str_eq(trex_table_cell(&out, 0, 0)->text, "Busy");
	cr_expect_str_eq(trex_table_cell(&out, 2, 0)->text, "Kernels");
	cr_expect_eq(trex_table_cell(&out, 0, 2)->number, 2000);
	cr_expect_eq(trex_table_cell(&out, 1, 1)->number, 50.5);
	cr_expect_eq(trex_table_cell(&out, 2, 2)->number, 8);
	cr_expect_eq(types[0], TREX_COL_DURATION);
	cr_expect_eq(types[1], TREX_COL_PERCENT);
	cr_expect_eq(types[2], TREX_COL_COUNT);
	cr_expect_eq(trex_table_name_col(&out), 0);
	free(types);
	trex_table_free(&out);
	trex_table_free(&t);
}

/* Several files: the device label already names the rank, said once. */
Test(table_order, transpose_says_the_rank_once)
{
	struct trex_table t, out;
	enum trex_col_type *types;
	struct trex_error err;
	const char *dev[] = {"rank 3 GPU 0", "rank 3 (b.json) GPU 0", "rank 30 GPU 0"};

	trex_table_init(&t, "gpu_time", wide_cols, 5);
	for (int r = 0; r < 3; r++) {
		union trex_cell *c = trex_table_add_row(&t);

		c[0].count = 3;
		c[1].text = dev[r];
	}
	cr_assert_eq(trex_table_transpose(&t, 2, &out, &types, &err), TREX_OK);
	cr_expect_str_eq(out.cols[1].title, "rank 3 GPU 0");
	cr_expect_str_eq(out.cols[2].title, "rank 3 (b.json) GPU 0");
	cr_expect_str_eq(out.cols[3].title, "rank 3 rank 30 GPU 0");
	free(types);
	trex_table_free(&out);
	trex_table_free(&t);
}
