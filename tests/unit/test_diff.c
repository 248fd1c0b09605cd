/* Comparing two runs: name rules, the sequence alignment (against a
 * dynamic-programming LCS on random pairs) and the tables over small
 * hand-built indexes, every number worked out in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/diff.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- names ---------------------------------------------------------------------------------- */

static const char *norm(const char *name, unsigned rules)
{
	static char buf[256];

	trex_diff_normalize(name, strlen(name), rules, buf, sizeof(buf));
	return buf;
}

Test(diff, hex_addresses_become_one_mark)
{
	cr_assert_str_eq(norm("copy 0x7f3a00 to 0XBEEF", TREX_DIFF_NORM_HEX), "copy 0x? to 0x?");
	cr_assert_str_eq(norm("0x", TREX_DIFF_NORM_HEX), "0x", "no digit: not an address");
	cr_assert_str_eq(norm("a10x5", TREX_DIFF_NORM_HEX), "a10x5", "inside a number: kept");
	cr_assert_str_eq(norm("k 0x1f", TREX_DIFF_NORM_HEX | TREX_DIFF_NORM_DIGITS), "k 0x?",
	                 "hex before digits");
}

Test(diff, template_digits_only_inside_angle_brackets)
{
	cr_assert_str_eq(norm("void gemm<128, 64, float>(int 3)", TREX_DIFF_NORM_TEMPLATE),
	                 "void gemm<N, N, float>(int 3)");
	cr_assert_str_eq(norm("k<4, at::F<int, 2> >(x 7)", TREX_DIFF_NORM_TEMPLATE),
	                 "k<N, at::F<int, N> >(x 7)", "nested, and closed again");
	cr_assert_str_eq(norm("operator<(a1) b2", TREX_DIFF_NORM_TEMPLATE), "operator<(a1) b2");
	cr_assert_str_eq(norm("x << 2 y1", TREX_DIFF_NORM_TEMPLATE), "x << 2 y1");
	cr_assert_str_eq(norm("triton_poi_fused_17", TREX_DIFF_NORM_DIGITS), "triton_poi_fused_N");
	cr_assert_str_eq(norm("same", 0), "same");
}

Test(diff, rule_lists_parse_and_print)
{
	unsigned r = 99;
	char buf[64];

	cr_assert(trex_diff_norm_parse("exact", &r));
	cr_assert_eq(r, 0);
	cr_assert(trex_diff_norm_parse("template,hex", &r));
	cr_assert_eq(r, TREX_DIFF_NORM_HEX | TREX_DIFF_NORM_TEMPLATE);
	cr_assert_str_eq(trex_diff_norm_text(r, buf, sizeof(buf)), "hex,template");
	cr_assert(trex_diff_norm_parse("all", &r));
	cr_assert_str_eq(trex_diff_norm_text(r, buf, sizeof(buf)), "hex,template,digits");
	r = 5;
	cr_assert(!trex_diff_norm_parse("hex,", &r));
	cr_assert(!trex_diff_norm_parse("addresses", &r));
	cr_assert_eq(r, 5, "untouched on failure");
}

/* ---- alignment ------------------------------------------------------------------------------ */

static void align(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                  struct trex_diff_script *s)
{
	struct trex_error err;

	cr_assert_eq(trex_diff_align(a, na, b, nb, s, &err), TREX_OK, "%s", err.message);
}

/* The script turns a into b, runs in order; returns the edits (removed +
 * added elements). */
static size_t check_script(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                           const struct trex_diff_script *s)
{
	size_t i = 0, j = 0, edits = 0;

	for (size_t r = 0; r < s->n; r++) {
		const struct trex_diff_edit *e = &s->v[r];

		cr_assert_eq(e->a_pos, i, "run %zu", r);
		cr_assert_eq(e->b_pos, j, "run %zu", r);
		cr_assert_gt(e->len, 0);
		if (e->kind == TREX_DIFF_MATCH) {
			for (size_t k = 0; k < e->len; k++)
				cr_assert_eq(a[i + k], b[j + k]);
			i += e->len;
			j += e->len;
		} else if (e->kind == TREX_DIFF_DEL) {
			i += e->len;
			edits += e->len;
		} else {
			j += e->len;
			edits += e->len;
		}
	}
	cr_assert_eq(i, na);
	cr_assert_eq(j, nb);
	return edits;
}

static size_t lcs(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	size_t *row = calloc((nb + 1) * 2, sizeof(*row));
	size_t *prev = row, *cur = row + nb + 1, best;

	for (size_t i = 1; i <= na; i++) {
		for (size_t j = 1; j <= nb; j++)
			cur[j] = a[i - 1] == b[j - 1]   ? prev[j - 1] + 1
			         : prev[j] > cur[j - 1] ? prev[j]
			                                : cur[j - 1];
		size_t *t = prev;
		prev = cur;
		cur = t;
	}
	best = prev[nb];
	free(row);
	return best;
}

Test(diff, an_insertion_and_a_removal_in_a_repeating_sequence)
{
	/* a b c a b c a b c: remove the second 'c' (pos 5), add 'x' after pos 6 */
	static const uint32_t a[] = {1, 2, 3, 1, 2, 3, 1, 2, 3};
	static const uint32_t b[] = {1, 2, 3, 1, 2, 1, 9, 2, 3};
	struct trex_diff_script s;

	align(a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), &s);
	cr_assert_eq(check_script(a, 9, b, 9, &s), 2);
	cr_assert_eq(s.n, 5);
	cr_assert_eq(s.v[1].kind, TREX_DIFF_DEL);
	cr_assert_eq(s.v[1].a_pos, 5);
	cr_assert_eq(s.v[1].len, 1);
	cr_assert_eq(s.v[3].kind, TREX_DIFF_INS);
	cr_assert_eq(s.v[3].b_pos, 6);
	cr_assert(!s.approximate);
	trex_diff_script_free(&s);
}

Test(diff, empty_sides_are_all_added_or_all_removed)
{
	static const uint32_t a[] = {4, 5};
	struct trex_diff_script s;

	align(a, 2, NULL, 0, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.v[0].kind, TREX_DIFF_DEL);
	cr_assert_eq(s.v[0].len, 2);
	trex_diff_script_free(&s);
	align(NULL, 0, a, 2, &s);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.v[0].kind, TREX_DIFF_INS);
	trex_diff_script_free(&s);
	align(NULL, 0, NULL, 0, &s);
	cr_assert_eq(s.n, 0);
	trex_diff_script_free(&s);
}

Test(diff, random_pairs_get_a_shortest_script)
{
	uint32_t a[60], b[60];
	unsigned seed = 12345;

	for (int round = 0; round < 400; round++) {
		size_t na = (size_t)(rand_r(&seed) % 60), nb = (size_t)(rand_r(&seed) % 60);
		uint32_t alphabet = 1 + (uint32_t)(rand_r(&seed) % 6);
		struct trex_diff_script s;

		for (size_t i = 0; i < na; i++)
			a[i] = (uint32_t)rand_r(&seed) % alphabet;
		for (size_t i = 0; i < nb; i++)
			b[i] = (uint32_t)rand_r(&seed) % alphabet;
		align(a, na, b, nb, &s);
		cr_assert_eq(check_script(a, na, b, nb, &s), na + nb - 2 * lcs(a, na, b, nb),
		             "round %d", round);
		trex_diff_script_free(&s);
	}
}

Test(diff, very_different_long_sequences_stay_valid_past_the_cost_cap)
{
	size_t n = 60000;
	uint32_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	unsigned seed = 7;
	struct trex_diff_script s;

	for (size_t i = 0; i < n; i++) {
		a[i] = (uint32_t)rand_r(&seed) % 4;
		b[i] = (uint32_t)rand_r(&seed) % 4;
	}
	align(a, n, b, n, &s);
	check_script(a, n, b, n, &s);
	cr_assert(s.approximate, "random sequences cost far more than the cap");
	trex_diff_script_free(&s);
	free(a);
	free(b);
}

/* ---- tables over hand-built indexes -----------------------------------------------------------
 */

static struct trex_index *build(const struct fixture_slice *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	file.rank = 0;
	file.has_rank = true;
	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file, &ev[i]);
	return fixture_build(&file, &b, 1);
}

/* A: gemm<128> twice (10, 30), relu 5, old 7, op aten::mm 100.
 * B: gemm<256> three times (10, 20, 60), relu 5, new 4, aten::mm 150. */
static const struct fixture_slice run_a[] = {
    {"0", "7", "kernel", "gemm<128>", 1000, 10, 0, 0, NULL},
    {"0", "7", "kernel", "relu", 1010, 5, 0, 0, NULL},
    {"0", "7", "kernel", "gemm<128>", 1020, 30, 0, 0, NULL},
    {"0", "7", "kernel", "old", 1050, 7, 0, 0, NULL},
    {"100", "100", "cpu_op", "aten::mm", 900, 100, 0, 0, NULL},
};
static const struct fixture_slice run_b[] = {
    {"0", "7", "kernel", "gemm<256>", 2000, 10, 0, 0, NULL},
    {"0", "7", "kernel", "relu", 2010, 5, 0, 0, NULL},
    {"0", "7", "kernel", "gemm<256>", 2020, 20, 0, 0, NULL},
    {"0", "7", "kernel", "gemm<256>", 2040, 60, 0, 0, NULL},
    {"0", "7", "kernel", "new", 2100, 4, 0, 0, NULL},
    {"100", "100", "cpu_op", "aten::mm", 1900, 150, 0, 0, NULL},
};

enum {
	STATUS,
	DELTA,
	DELTA_PCT,
	A_TOTAL,
	B_TOTAL,
	A_N,
	B_N,
	A_AVG,
	B_AVG,
	AVG_PCT,
	A_P95,
	B_P95,
	NAME
};

static double num(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->number;
}

static const char *text(const struct trex_table *t, size_t r, size_t c)
{
	return trex_table_cell(t, r, c)->text;
}

static void diff_table(enum trex_diff_by by, const struct trex_diff_opts *o, struct trex_table *t,
                       size_t *hidden)
{
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a)),
	                  *b = build(run_b, ARRAY_SIZE(run_b));
	struct trex_error err;

	cr_assert_eq(trex_diff_table(a, b, by, o, t, hidden, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t->ncols, NAME + 1);
	trex_index_free(a);
	trex_index_free(b);
}

Test(diff, kernels_exactly_new_and_gone_by_largest_change)
{
	struct trex_table t;
	size_t hidden;

	diff_table(TREX_DIFF_KERNELS, NULL, &t, &hidden);
	/* gemm<256> +90 (new), gemm<128> -40 (gone), old -7, new +4, relu 0 */
	cr_assert_eq(t.nrows, 5);
	cr_assert_eq(hidden, 0);
	cr_assert_str_eq(text(&t, 0, NAME), "gemm<256>");
	cr_assert_str_eq(text(&t, 0, STATUS), "new");
	cr_assert_eq(num(&t, 0, DELTA), 90);
	cr_assert(isnan(num(&t, 0, DELTA_PCT)));
	cr_assert_eq(trex_table_cell(&t, 0, B_N)->count, 3);
	cr_assert_eq(num(&t, 0, B_AVG), 30);
	cr_assert_eq(num(&t, 0, B_P95), 60, "ceil(0.95 * 3) = 3rd smallest");
	cr_assert(isnan(num(&t, 0, A_P95)));
	cr_assert_str_eq(text(&t, 1, NAME), "gemm<128>");
	cr_assert_str_eq(text(&t, 1, STATUS), "gone");
	cr_assert_eq(num(&t, 1, DELTA), -40);
	cr_assert_eq(num(&t, 1, DELTA_PCT), -100);
	cr_assert_str_eq(text(&t, 2, NAME), "old");
	cr_assert_str_eq(text(&t, 3, NAME), "new");
	cr_assert_str_eq(text(&t, 4, NAME), "relu");
	cr_assert_str_eq(text(&t, 4, STATUS), "same");
	trex_table_free(&t);
}

static int cmp_dur(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Durations for pattern p at i of n: equal, ascending, descending, few
 * values, a sawtooth, pseudo-random: the inputs a selection gets wrong. */
static int64_t pattern_dur(int p, size_t i, size_t n, uint32_t *seed)
{
	switch (p) {
	case 0:
		return 7;
	case 1:
		return (int64_t)i;
	case 2:
		return (int64_t)(n - i);
	case 3:
		return (int64_t)(i % 3);
	case 4:
		return (int64_t)(i % 17);
	default:
		*seed = *seed * 1103515245u + 12345u;
		return (int64_t)(*seed >> 16) % 1000;
	}
}

/* P95 is the nearest-rank 95th percentile whatever the durations' order
 * and repetition (it is found by selection, not by sorting). */
Test(diff, p95_is_the_nearest_rank_value_of_any_order)
{
	static const size_t sizes[] = {1, 2, 3, 19, 20, 21, 64, 100, 257, 1000};
	uint32_t seed = 1;

	for (int p = 0; p < 6; p++) {
		for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
			size_t n = sizes[z];
			struct fixture_slice *ev = calloc(n, sizeof(*ev));
			int64_t *sorted = calloc(n, sizeof(*sorted));
			struct trex_index *a, *b;
			struct trex_table t;
			struct trex_error err;

			cr_assert(ev && sorted);
			for (size_t i = 0; i < n; i++) {
				int64_t d = pattern_dur(p, i, n, &seed);
				ev[i] = (struct fixture_slice){
				    "0", "7", "kernel", "k", (int64_t)(10000 * i), d, 0, 0, NULL};
				sorted[i] = d;
			}
			qsort(sorted, n, sizeof(*sorted), cmp_dur);
			a = build(ev, n);
			b = build(ev, n);
			cr_assert_eq(trex_diff_table(a, b, TREX_DIFF_KERNELS, NULL, &t, NULL, &err),
			             TREX_OK, "%s", err.message);
			cr_assert_eq(t.nrows, 1);
			cr_assert_eq(num(&t, 0, A_P95), (double)sorted[(n * 95 + 99) / 100 - 1],
			             "pattern %d, %zu durations", p, n);
			cr_assert_eq(num(&t, 0, B_P95), num(&t, 0, A_P95));
			trex_table_free(&t);
			trex_index_free(a);
			trex_index_free(b);
			free(ev);
			free(sorted);
		}
	}
}

Test(diff, normalized_names_match_and_the_column_says_how)
{
	struct trex_diff_opts o = {.normalize = TREX_DIFF_NORM_TEMPLATE};
	struct trex_table t;

	diff_table(TREX_DIFF_KERNELS, &o, &t, NULL);
	/* gemm<N>: A 2 (40, avg 20, p95 30), B 3 (90, avg 30): +50, +125 % */
	cr_assert_eq(t.nrows, 4);
	cr_assert_str_eq(text(&t, 0, NAME), "gemm<N>");
	cr_assert_str_eq(text(&t, 0, STATUS), "changed");
	cr_assert_eq(num(&t, 0, DELTA), 50);
	cr_assert_eq(num(&t, 0, DELTA_PCT), 125);
	cr_assert_eq(num(&t, 0, A_AVG), 20);
	cr_assert_eq(num(&t, 0, AVG_PCT), 50);
	cr_assert_eq(num(&t, 0, A_P95), 30);
	cr_assert_str_eq(t.cols[NAME].key, "name_normalized");
	cr_assert_str_eq(t.cols[NAME].title, "Name (normalized: template)");
	trex_table_free(&t);
}

Test(diff, min_change_leaves_small_rows_out)
{
	struct trex_diff_opts o = {.min_change_ns = 8};
	struct trex_table t;
	size_t hidden;

	diff_table(TREX_DIFF_KERNELS, &o, &t, &hidden);
	cr_assert_eq(t.nrows, 2, "old (7), new (4) and relu (0) are under 8 ns");
	cr_assert_eq(hidden, 3);
	trex_table_free(&t);
	o = (struct trex_diff_opts){.min_change_pct = 50};
	diff_table(TREX_DIFF_OPS, &o, &t, &hidden);
	cr_assert_eq(t.nrows, 1, "aten::mm +50 %% is not under 50 %%");
	cr_assert_eq(num(&t, 0, DELTA), 50);
	trex_table_free(&t);
}

Test(diff, categories_and_ops)
{
	struct trex_table t;

	diff_table(TREX_DIFF_CATEGORIES, NULL, &t, NULL);
	/* gemm: 40 -> 90; elementwise (relu): 5 -> 5; uncategorized: old 7 -> new 4 */
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, NAME), "gemm");
	cr_assert_eq(num(&t, 0, DELTA), 50);
	cr_assert_str_eq(text(&t, 1, NAME), "uncategorized");
	cr_assert_eq(num(&t, 1, DELTA), -3);
	trex_table_free(&t);
}

Test(diff, one_side_without_kernels_says_so)
{
	static const struct fixture_slice cpu_only[] = {
	    {"100", "100", "cpu_op", "aten::mm", 900, 100, 0, 0, NULL},
	};
	struct trex_index *a = build(run_a, ARRAY_SIZE(run_a));
	struct trex_index *b = build(cpu_only, ARRAY_SIZE(cpu_only));
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_diff_table(a, b, TREX_DIFF_KERNELS, NULL, &t, NULL, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3, "A's kernels, all gone");
	cr_assert_not_null(t.note);
	cr_assert(strncmp(t.note, "B: no GPU kernels", 17) == 0, "%s", t.note);
	trex_table_free(&t);
	trex_index_free(a);
	trex_index_free(b);
}

/* Steps: A has two (100 and 200 long), B three (150, 200, 50) on rank 0. */
static const struct fixture_slice steps_a[] = {
    {"100", "100", "user_annotation", "ProfilerStep#1", 0, 100, 0, 0, NULL},
    {"100", "100", "user_annotation", "ProfilerStep#2", 100, 200, 0, 0, NULL},
    {"0", "7", "kernel", "k", 10, 40, 0, 0, NULL},
};
static const struct fixture_slice steps_b[] = {
    {"100", "100", "user_annotation", "ProfilerStep#7", 0, 150, 0, 0, NULL},
    {"100", "100", "user_annotation", "ProfilerStep#8", 150, 200, 0, 0, NULL},
    {"100", "100", "user_annotation", "ProfilerStep#9", 350, 50, 0, 0, NULL},
    {"0", "7", "kernel", "k", 10, 60, 0, 0, NULL},
};

Test(diff, steps_pair_by_position_and_extra_steps_are_new)
{
	struct trex_index *a = build(steps_a, ARRAY_SIZE(steps_a));
	struct trex_index *b = build(steps_b, ARRAY_SIZE(steps_b));
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_diff_steps_table(a, b, NULL, &t, NULL, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(text(&t, 0, 0), "changed");
	cr_assert_eq(num(&t, 0, 3), 100);
	cr_assert_eq(num(&t, 0, 4), 150);
	cr_assert_eq(num(&t, 0, 5), 50);
	cr_assert_eq(num(&t, 0, 6), 50, "+50 %%");
	cr_assert_eq(num(&t, 0, 7), 40, "A busy");
	cr_assert_eq(num(&t, 0, 8), 60, "B busy");
	cr_assert_eq(num(&t, 0, 9), 20);
	cr_assert_eq(num(&t, 0, 16), 60, "A idle 100 - 40");
	cr_assert_eq(num(&t, 0, 17), 90, "B idle 150 - 60");
	cr_assert_str_eq(text(&t, 0, 19), "ProfilerStep#1");
	cr_assert_str_eq(text(&t, 0, 20), "ProfilerStep#7");
	cr_assert_str_eq(text(&t, 1, 0), "same");
	cr_assert_str_eq(text(&t, 2, 0), "new");
	cr_assert(isnan(num(&t, 2, 3)));
	cr_assert_eq(num(&t, 2, 4), 50);
	cr_assert_str_eq(text(&t, 2, 19), "");
	cr_assert_not_null(t.note);
	cr_assert(strstr(t.note, "A has 2 steps, B 3"), "%s", t.note);
	trex_table_free(&t);
	trex_index_free(a);
	trex_index_free(b);
}

/* Stream 7: A  k1 k2 k3 k4 k5 ; B  k1 k2' k3 kX k4 (k5 gone): k2 takes
 * 30 instead of 10 (changed), kX is added, k5 removed. Stream 8 is only
 * in B. */
static const struct fixture_slice seq_a[] = {
    {"0", "7", "kernel", "k1", 0, 10, 0, 0, NULL},  {"0", "7", "kernel", "k2", 10, 10, 0, 0, NULL},
    {"0", "7", "kernel", "k3", 20, 10, 0, 0, NULL}, {"0", "7", "kernel", "k4", 30, 10, 0, 0, NULL},
    {"0", "7", "kernel", "k5", 40, 10, 0, 0, NULL},
};
static const struct fixture_slice seq_b[] = {
    {"0", "7", "kernel", "k1", 100, 10, 0, 0, NULL},
    {"0", "7", "kernel", "k2", 110, 30, 0, 0, NULL},
    {"0", "7", "kernel", "k3", 140, 10, 0, 0, NULL},
    {"0", "7", "kernel", "kX", 150, 5, 0, 0, NULL},
    {"0", "7", "kernel", "k4", 155, 10, 0, 0, NULL},
    {"0", "8", "kernel", "k9", 100, 3, 0, 0, NULL},
};

Test(diff, sequence_runs_per_stream)
{
	struct trex_index *a = build(seq_a, ARRAY_SIZE(seq_a));
	struct trex_index *b = build(seq_b, ARRAY_SIZE(seq_b));
	struct trex_table t, streams;
	struct trex_error err;

	cr_assert_eq(trex_diff_sequence_table(a, b, NULL, &t, &streams, &err), TREX_OK, "%s",
	             err.message);
	/* status rank stream a_pos b_pos kernels a_start b_start a_total b_total delta name */
	cr_assert_eq(t.nrows, 4);
	cr_assert_str_eq(text(&t, 0, 0), "changed");
	cr_assert_eq(trex_table_cell(&t, 0, 3)->count, 1);
	cr_assert_eq(num(&t, 0, 10), 20);
	cr_assert_str_eq(text(&t, 0, 11), "k2");
	cr_assert_str_eq(text(&t, 1, 0), "added");
	cr_assert_eq(trex_table_cell(&t, 1, 4)->count, 3);
	cr_assert_eq(num(&t, 1, 7), 50, "B starts at 100: kX at 150");
	cr_assert(isnan(num(&t, 1, 6)));
	cr_assert_str_eq(text(&t, 1, 11), "kX");
	cr_assert_str_eq(text(&t, 2, 0), "removed");
	cr_assert_str_eq(text(&t, 2, 11), "k5");
	cr_assert_eq(trex_table_cell(&t, 2, 3)->count, 4);
	cr_assert_str_eq(text(&t, 3, 0), "added");
	cr_assert_str_eq(text(&t, 3, 2), "GPU 0 stream 8");
	cr_assert_eq(streams.nrows, 2);
	/* rank stream a_n b_n matched removed added changed */
	cr_assert_eq(trex_table_cell(&streams, 0, 4)->count, 4);
	cr_assert_eq(trex_table_cell(&streams, 0, 5)->count, 1);
	cr_assert_eq(trex_table_cell(&streams, 0, 6)->count, 1);
	cr_assert_eq(trex_table_cell(&streams, 0, 7)->count, 1);
	cr_assert_str_eq(text(&streams, 0, 11), "shortest");
	cr_assert_str_eq(text(&streams, 1, 11), "B only");
	trex_table_free(&t);
	trex_table_free(&streams);
	trex_index_free(a);
	trex_index_free(b);
}

/* ---- the summary, and both sides at once ---------------------------------------------------- */

/* Device 0: k1 [0, 100) and k2 [50, 150) overlap on stream 7 (two lanes),
 * a copy [120, 200) on stream 8, k3 [300, 310); device 1: k4 [0, 50) in A,
 * k5 [10, 30) in B. GPU busy: A [0, 200) + [300, 310) + [0, 50) = 260,
 * B 210 + 20 = 230. Kernels: A 4 for 260, B 4 for 230; one copy of 80
 * each. Steps: one each, 400 and 500. Names: A k1-k4, B k1-k3 and k5: 4
 * each, k5 new, k4 gone. */
static const struct fixture_slice busy_a[] = {
    {"0", "7", "kernel", "k1", 0, 100, 0, 0, NULL},
    {"0", "7", "kernel", "k2", 50, 100, 0, 0, NULL},
    {"0", "8", "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 120, 80, 0, 0, NULL},
    {"0", "7", "kernel", "k3", 300, 10, 0, 0, NULL},
    {"1", "7", "kernel", "k4", 0, 50, 0, 0, NULL},
    {"100", "100", "user_annotation", "ProfilerStep#1", 0, 400, 0, 0, NULL},
};
static const struct fixture_slice busy_b[] = {
    {"0", "7", "kernel", "k1", 0, 100, 0, 0, NULL},
    {"0", "7", "kernel", "k2", 50, 100, 0, 0, NULL},
    {"0", "8", "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 120, 80, 0, 0, NULL},
    {"0", "7", "kernel", "k3", 300, 10, 0, 0, NULL},
    {"1", "7", "kernel", "k5", 10, 20, 0, 0, NULL},
    {"100", "100", "user_annotation", "ProfilerStep#1", 0, 500, 0, 0, NULL},
};

enum { S_WHAT, S_A_N, S_B_N, S_A_NS, S_B_NS };

static void summary_row_is(const struct trex_table *t, size_t r, const char *what, double an,
                           double bn, double ans, double bns)
{
	cr_assert_str_eq(text(t, r, S_WHAT), what);
	cr_assert((isnan(an) && isnan(num(t, r, S_A_N))) || num(t, r, S_A_N) == an, "%s A count",
	          what);
	cr_assert((isnan(bn) && isnan(num(t, r, S_B_N))) || num(t, r, S_B_N) == bn, "%s B count",
	          what);
	cr_assert((isnan(ans) && isnan(num(t, r, S_A_NS))) || num(t, r, S_A_NS) == ans, "%s A ns",
	          what);
	cr_assert((isnan(bns) && isnan(num(t, r, S_B_NS))) || num(t, r, S_B_NS) == bns, "%s B ns",
	          what);
}

Test(diff, summary_busy_is_the_union_per_device_and_names_are_counted)
{
	struct trex_index *a = build(busy_a, ARRAY_SIZE(busy_a));
	struct trex_index *b = build(busy_b, ARRAY_SIZE(busy_b));
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_diff_summary_table(a, b, NULL, &t, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(t.nrows, 9);
	summary_row_is(&t, 2, "kernels", 4, 4, 260, 230);
	summary_row_is(&t, 3, "memcpy/memset", 1, 1, 80, 80);
	summary_row_is(&t, 4, "GPU busy", NAN, NAN, 260, 230);
	summary_row_is(&t, 5, "steps", 1, 1, 400, 500);
	summary_row_is(&t, 6, "kernel names", 4, 4, NAN, NAN);
	summary_row_is(&t, 7, "new kernel names", NAN, 1, NAN, NAN);
	summary_row_is(&t, 8, "gone kernel names", 1, NAN, NAN, NAN);
	trex_table_free(&t);
	trex_index_free(a);
	trex_index_free(b);
}

/* Every cell of two tables alike (numbers bit for bit, NaN as NaN). */
static void same_tables(const struct trex_table *x, const struct trex_table *y)
{
	cr_assert_eq(x->nrows, y->nrows);
	cr_assert_eq(x->ncols, y->ncols);
	for (size_t r = 0; r < x->nrows; r++)
		for (size_t c = 0; c < x->ncols; c++) {
			const union trex_cell *p = trex_table_cell(x, r, c),
			                      *q = trex_table_cell(y, r, c);

			if (x->cols[c].type == TREX_COL_TEXT)
				cr_assert_str_eq(p->text, q->text, "row %zu col %zu", r, c);
			else
				cr_assert(memcmp(p, q, sizeof(*p)) == 0, "row %zu col %zu", r, c);
		}
	cr_assert((!x->note && !y->note) || (x->note && y->note && !strcmp(x->note, y->note)));
}

/* Both sides worked on at once (threads 2) give the tables of one after
 * the other (threads 0), for every comparison that splits by side. */
Test(diff, both_sides_at_once_give_the_same_tables)
{
	const struct fixture_slice *runs[3][2] = {
	    {run_a, run_b}, {busy_a, busy_b}, {steps_a, steps_b}};
	const size_t lens[3][2] = {{ARRAY_SIZE(run_a), ARRAY_SIZE(run_b)},
	                           {ARRAY_SIZE(busy_a), ARRAY_SIZE(busy_b)},
	                           {ARRAY_SIZE(steps_a), ARRAY_SIZE(steps_b)}};
	struct trex_diff_opts one = {.normalize = TREX_DIFF_NORM_TEMPLATE}, two = one;
	struct trex_error err;

	two.threads = 2;
	for (int k = 0; k < 3; k++) {
		struct trex_index *a = build(runs[k][0], lens[k][0]);
		struct trex_index *b = build(runs[k][1], lens[k][1]);
		struct trex_table x, y;

		for (int by = TREX_DIFF_KERNELS; by <= TREX_DIFF_CATEGORIES; by++) {
			cr_assert_eq(trex_diff_table(a, b, by, &one, &x, NULL, &err), TREX_OK);
			cr_assert_eq(trex_diff_table(a, b, by, &two, &y, NULL, &err), TREX_OK);
			same_tables(&x, &y);
			trex_table_free(&x);
			trex_table_free(&y);
		}
		cr_assert_eq(trex_diff_summary_table(a, b, &one, &x, &err), TREX_OK);
		cr_assert_eq(trex_diff_summary_table(a, b, &two, &y, &err), TREX_OK);
		same_tables(&x, &y);
		trex_table_free(&x);
		trex_table_free(&y);
		cr_assert_eq(trex_diff_steps_table(a, b, &one, &x, NULL, &err), TREX_OK);
		cr_assert_eq(trex_diff_steps_table(a, b, &two, &y, NULL, &err), TREX_OK);
		same_tables(&x, &y);
		trex_table_free(&x);
		trex_table_free(&y);
		trex_index_free(a);
		trex_index_free(b);
	}
}

/* A bad step pattern fails the same way with both sides at once. */
Test(diff, a_bad_step_pattern_fails_alike_at_once)
{
	struct trex_index *a = build(steps_a, ARRAY_SIZE(steps_a));
	struct trex_index *b = build(steps_b, ARRAY_SIZE(steps_b));
	struct trex_diff_opts o = {.step_pattern = "ProfilerStep#(", .threads = 2};
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_diff_steps_table(a, b, &o, &t, NULL, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "ProfilerStep#("), "%s", err.message);
	cr_assert_eq(trex_diff_summary_table(a, b, &o, &t, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "ProfilerStep#("), "%s", err.message);
	trex_index_free(a);
	trex_index_free(b);
}
