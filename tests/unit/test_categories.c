/* Kernel categories: the built-in rules, unitrace INI schemas, trex rules
 * files and the category table over small hand-built indexes. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define DIAGS_MAX 8

struct diags {
	char line[DIAGS_MAX][256];
	size_t n;
};

static void collect(void *user, const char *line)
{
	struct diags *d = user;

	if (d->n < DIAGS_MAX)
		snprintf(d->line[d->n], sizeof(d->line[0]), "%s", line);
	d->n++;
}

static struct trex_catset *parse(const char *text, struct diags *d)
{
	struct trex_catset *cs = NULL;
	struct trex_error err;

	memset(d, 0, sizeof(*d));
	cr_assert_eq(trex_catset_parse("s.ini", text, strlen(text), collect, d, &cs, &err), TREX_OK,
	             "%s", err.message);
	return cs;
}

static void assert_cat(const struct trex_catset *cs, const char *name, const char *want)
{
	const char *got = trex_catset_match(cs, name);

	if (!want)
		cr_assert_null(got, "%s: got %s", name, got);
	else
		cr_assert(got && strcmp(got, want) == 0, "%s: want %s, got %s", name, want,
		          got ? got : "(none)");
}

Test(categories, builtin_rules)
{
	struct trex_catset *cs = NULL;
	struct trex_error err;

	cr_assert_eq(trex_catset_builtin(&cs, &err), TREX_OK, "%s", err.message);
	assert_cat(cs, "ampere_sgemm_128x64_tn", "gemm");
	assert_cat(cs, "Cijk_Alik_Bljk_SB_MT64x16x32", "gemm");
	assert_cat(cs, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "collective");
	assert_cat(cs, "Memcpy HtoD (Pageable -> Device)", "memcpy");
	assert_cat(cs, "Memset (Device)", "memset");
	assert_cat(cs, "void flash_fwd_kernel<Flash_fwd_kernel_traits>", "attention");
	assert_cat(cs, "void cudnn::bn_bw_1C11_kernel_new<float>", "normalization");
	assert_cat(cs, "void implicit_convolve_sgemm<float>", "convolution");
	assert_cat(cs, "void at::native::reduce_kernel<512, 1>", "reduction");
	assert_cat(cs, "cunn_SoftMaxForward", "softmax");
	assert_cat(cs, "void at::native::vectorized_elementwise_kernel<4>", "elementwise");
	assert_cat(cs, "void at::native::indexSelectLargeIndex<float>", "other");
	assert_cat(cs, "my_custom_thing", NULL);
	/* the communication NAME rules decide collective (analysis/work.h) */
	assert_cat(cs, "dpsk::ep::internode::combine", "collective");
	assert_cat(cs, "hcom_allReduce__428_0_1", "collective");
	assert_cat(cs, "void combineKernel<__nv_bfloat16, float, 10ul, true, true>(float*)",
	           "collective");
	cr_assert(trex_catset_comm_decides(cs));
	trex_catset_free(cs);
}

/* Line numbers matter: the diagnostics name them. */
static const char llama_like[] = "# a unitrace schema\n"         /* 1 */
                                 "[matmul if equals to]\n"       /* 2 */
                                 "gemm kernel\n"                 /* 3 */
                                 "\n"                            /* 4 */
                                 "[matmul.sub if starts with]\n" /* 5 */
                                 "xetla::hgemm   \n"             /* 6 */
                                 "[attn if starts with]\n"       /* 7 */
                                 "xetla::\n"                     /* 8 */
                                 "[sync.ccl if ends  with]\n"    /* 9 */
                                 "::SYNC\n"                      /* 10 */
                                 "[bogus if contains]\n"         /* 11 */
                                 "x\n"                           /* 12 */
                                 "[vector if startswith]\n"      /* 13 */
                                 "dup := ignored value\n"        /* 14 */
                                 "; a comment\n"                 /* 15 */
                                 "dup\n"                         /* 16 */
                                 "[attn if starts with]\n"       /* 17 */
                                 "late\n";                       /* 18 */

Test(categories, unitrace_ini_semantics)
{
	struct diags d;
	struct trex_catset *cs = parse(llama_like, &d);

	/* equals to: spaces removed on both sides, the whole name only */
	assert_cat(cs, "gemm kernel", "matmul");
	assert_cat(cs, "gemmkernel", "matmul");
	assert_cat(cs, "gemm kernel2", NULL);
	/* starts with: the longest tag wins, ".sub" dropped */
	assert_cat(cs, "xetla::hgemm_caller<half>", "matmul");
	assert_cat(cs, "xetla::fmha", "attn");
	/* ends with only when no direct tag matches */
	assert_cat(cs, "ccl::allreduce::SYNC", "sync");
	assert_cat(cs, "xetla::fmha::SYNC", "attn");
	/* the bad section's tags are not loaded; ":=" ends a tag */
	assert_cat(cs, "x", NULL);
	assert_cat(cs, "dupe", "vector");
	/* a duplicate section is ignored */
	assert_cat(cs, "late", NULL);
	cr_assert_eq(d.n, 3, "diagnostics: %zu", d.n);
	cr_assert(strstr(d.line[0], "s.ini:11: unknown rule 'contains'"), "%s", d.line[0]);
	cr_assert(strstr(d.line[1], "s.ini:16: duplicate tag 'dup'"), "%s", d.line[1]);
	cr_assert(strstr(d.line[2], "s.ini:17: duplicate section"), "%s", d.line[2]);
	trex_catset_free(cs);
}

Test(categories, ini_errors_keep_the_rest)
{
	struct diags d;
	struct trex_catset *cs = parse("[a if starts with]\nfoo\n[b starts with]\nbar\n[c if "
	                               "ends with\nbaz\n[d if ends with]\nqux\n",
	                               &d);

	assert_cat(cs, "foo1", "a");
	assert_cat(cs, "1qux", "d");
	assert_cat(cs, "bar", NULL);
	cr_assert_eq(d.n, 2);
	cr_assert(strstr(d.line[0], "s.ini:3: expected [CATEGORY if"), "%s", d.line[0]);
	cr_assert(strstr(d.line[1], "s.ini:5: section header without ']'"), "%s", d.line[1]);
	trex_catset_free(cs);
}

Test(categories, trex_rules_file)
{
	struct diags d;
	struct trex_catset *cs = parse("# trex rules\n"
	                               "gemm = (?i)gemm\n"
	                               "no equals sign here\n"
	                               "attn = flash(\n"
	                               "other = .\n"
	                               "gemm = ^cutlass\n",
	                               &d);

	assert_cat(cs, "SGEMM_big", "gemm");
	assert_cat(cs, "flash_fwd", "other"); /* attn did not compile */
	assert_cat(cs, "cutlass_x", "other"); /* first match in file order */
	cr_assert_eq(d.n, 2);
	cr_assert(strstr(d.line[0], "s.ini:3: expected CATEGORY = REGEX"), "%s", d.line[0]);
	cr_assert(strstr(d.line[1], "s.ini:4: bad regex"), "%s", d.line[1]);
	trex_catset_free(cs);
}

Test(categories, a_file_without_rules_fails)
{
	struct trex_catset *cs = NULL;
	struct trex_error err;
	const char text[] = "# nothing\n\n";

	cr_assert_eq(trex_catset_parse("e.rules", text, strlen(text), NULL, NULL, &cs, &err),
	             TREX_FORMAT);
	cr_assert_null(cs);
	cr_assert(strstr(err.message, "no category rules"));
}

/* ---- the table ------------------------------------------------------------------------ */

struct gev {
	const char *pid, *cat, *name;
	int64_t ts, dur;
};

static struct trex_index *index_of(const struct gev *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file,
		            &(struct fixture_slice){ev[i].pid, "7", ev[i].cat, ev[i].name, ev[i].ts,
		                                    ev[i].dur, 0, 0, NULL});
	return fixture_build(&file, &b, 1);
}

static size_t row_of(const struct trex_table *t, const char *cat)
{
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(trex_table_cell(t, r, t->ncols - 1)->text, cat) == 0)
			return r;
	}
	cr_assert_fail("no row %s", cat);
	return 0;
}

Test(categories, table_sums_time_calls_and_devices)
{
	/* GPU 0: sgemm 100 + 20, memcpy 50; GPU 1: sgemm 10, mystery 30; a CPU
	 * op and a runtime call are not GPU work. Total 210. */
	const struct gev ev[] = {
	    {"0", "kernel", "sgemm", 0, 100},
	    {"0", "kernel", "sgemm", 200, 20},
	    {"0", "gpu_memcpy", "Memcpy DtoD", 300, 50},
	    {"1", "kernel", "sgemm", 0, 10},
	    {"1", "kernel", "mystery", 100, 30},
	    {"2", "cpu_op", "aten::mm", 0, 1000},
	    {"2", "cuda_runtime", "cudaMemcpy", 2000, 500},
	};
	struct trex_index *idx = index_of(ev, 7);
	struct trex_category_opts o = {NULL, true};
	struct trex_table t;
	struct trex_error err;
	size_t g, u, m;

	cr_assert_eq(trex_categories_table(idx, &o, &t, &err), TREX_OK);
	/* total, share, calls, 2 devices, bar, rules, category */
	cr_assert_eq(t.ncols, 8);
	cr_assert_str_eq(t.cols[3].key, "rank0_gpu0_ns");
	cr_assert_str_eq(t.cols[3].title, "GPU 0");
	cr_assert_str_eq(t.cols[4].key, "rank0_gpu1_ns");
	cr_assert_str_eq(t.cols[5].key, "bar");
	cr_assert_str_eq(t.cols[6].key, "rules");
	cr_assert_str_eq(t.cols[7].key, "category");
	g = row_of(&t, "gemm");
	cr_assert_eq(g, 0);
	cr_assert_eq(trex_table_cell(&t, g, 0)->number, 130);
	cr_assert_float_eq(trex_table_cell(&t, g, 1)->number, 130.0 / 210 * 100, 1e-9);
	cr_assert_eq(trex_table_cell(&t, g, 2)->count, 3);
	cr_assert_eq(trex_table_cell(&t, g, 3)->number, 120);
	cr_assert_eq(trex_table_cell(&t, g, 4)->number, 10);
	cr_assert_str_eq(trex_table_cell(&t, g, 5)->text, "############"); /* 61.9 % */
	cr_assert_str_eq(trex_table_cell(&t, g, 6)->text, "gemm regex");
	m = row_of(&t, "memcpy");
	cr_assert_eq(trex_table_cell(&t, m, 0)->number, 50);
	cr_assert_str_eq(trex_table_cell(&t, m, 6)->text, "memcpy regex");
	u = row_of(&t, "uncategorized");
	cr_assert_eq(trex_table_cell(&t, u, 0)->number, 30);
	cr_assert_eq(trex_table_cell(&t, u, 4)->number, 30);
	cr_assert_str_eq(trex_table_cell(&t, u, 6)->text, "");
	/* every built-in category has a row, the empty ones last by name */
	cr_assert_eq(t.nrows, 12);
	cr_assert_str_eq(trex_table_cell(&t, 3, 7)->text, "attention");
	cr_assert_str_eq(trex_table_cell(&t, 3, 6)->text, "");
	cr_assert_eq(trex_table_cell(&t, 3, 0)->number, 0);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(categories, a_schema_category_named_uncategorized_is_one_row)
{
	const struct gev ev[] = {{"0", "kernel", "a1", 0, 5}, {"0", "kernel", "zz", 10, 7}};
	struct trex_index *idx = index_of(ev, 2);
	struct diags d;
	struct trex_catset *cs = parse("uncategorized = ^a\n", &d);
	struct trex_category_opts o = {cs, false};
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_categories_table(idx, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(t.ncols, 6);
	cr_assert_str_eq(trex_table_cell(&t, 0, 4)->text, "line 1");
	cr_assert_eq(trex_table_cell(&t, 0, 0)->number, 12);
	cr_assert_eq(trex_table_cell(&t, 0, 2)->count, 2);
	trex_table_free(&t);
	trex_catset_free(cs);
	trex_index_free(idx);
}

/* DeepEP kernels were uncategorized (issue 10); a kernel launched under
 * c10d::allreduce_ is collective whatever its name, and the rules column
 * and the explain table say which rule decided. */
Test(categories, communication_rules_decide_collective)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");
	const struct fixture_slice ev[] = {
	    {"1", "1", "cpu_op", "c10d::allreduce_", 0, 100, 0, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 10, 5, 4, 0, NULL},
	    {"0", "7", "kernel", "dpsk::ep::internode::combine", 0, 40, 0, 0, NULL},
	    {"0", "7", "kernel", "dpsk::ep::internode::dispatch", 50, 60, 0, 0, NULL},
	    {"0", "7", "kernel", "my_ring", 200, 25, 4, 0, NULL},
	    {"0", "7", "kernel", "sgemm", 300, 10, 0, 0, NULL},
	};
	struct trex_index *idx;
	struct trex_table t;
	struct trex_error err;
	size_t r;

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		fixture_add(b, &file, &ev[i]);
	idx = fixture_build(&file, &b, 1);
	cr_assert_eq(trex_categories_table(idx, NULL, &t, &err), TREX_OK);
	r = row_of(&t, "collective");
	cr_assert_eq(r, 0);
	cr_assert_eq(trex_table_cell(&t, r, 0)->number, 125);
	cr_assert_eq(trex_table_cell(&t, r, 2)->count, 3);
	cr_assert_str_eq(trex_table_cell(&t, r, t.ncols - 2)->text, "deepep, c10d-op");
	cr_assert_eq(trex_table_cell(&t, row_of(&t, "uncategorized"), 0)->number, 0);
	trex_table_free(&t);

	cr_assert_eq(trex_categories_explain_table(idx, NULL, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	cr_assert_str_eq(t.cols[3].key, "category");
	cr_assert_str_eq(t.cols[6].key, "example");
	cr_assert_eq(trex_table_cell(&t, 0, 0)->number, 100);
	cr_assert_str_eq(trex_table_cell(&t, 0, 3)->text, "collective");
	cr_assert_str_eq(trex_table_cell(&t, 0, 4)->text, "name");
	cr_assert_str_eq(trex_table_cell(&t, 0, 5)->text, "deepep");
	cr_assert_str_eq(trex_table_cell(&t, 0, 6)->text, "dpsk::ep::internode::dispatch");
	cr_assert_str_eq(trex_table_cell(&t, 1, 4)->text, "op");
	cr_assert_str_eq(trex_table_cell(&t, 1, 5)->text, "c10d-op");
	cr_assert_str_eq(trex_table_cell(&t, 1, 6)->text, "my_ring");
	cr_assert_eq(trex_table_cell(&t, 1, 2)->count, 1);
	cr_assert_str_eq(trex_table_cell(&t, 2, 5)->text, "gemm regex");
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(categories, no_device_work_no_rows_and_a_note)
{
	const struct gev ev[] = {{"1", "cpu_op", "aten::mm", 0, 5},
	                         {"1", "cpu_op", "aten::add", 9, 1}};
	struct trex_index *idx = index_of(ev, 2);
	struct trex_table t;
	struct trex_error err;

	cr_assert_eq(trex_categories_table(idx, NULL, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0);
	cr_assert_str_eq(t.cols[t.ncols - 1].key, "category");
	cr_assert_str_eq(t.note, "no GPU work: this trace has only CPU events (categories cpu_op)");
	trex_table_free(&t);
	cr_assert_null(t.note);
	cr_assert_eq(trex_categories_explain_table(idx, NULL, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0);
	cr_assert_not_null(t.note);
	trex_table_free(&t);
	trex_index_free(idx);
}

/* A category file's communication categories (--schema decides which work
 * is communication for every view): the name up to its first dot, case,
 * '_' and '-' ignored. */
Test(categories, communication_category_names)
{
	cr_assert(trex_category_is_comm("comm"));
	cr_assert(trex_category_is_comm("Communication"));
	cr_assert(trex_category_is_comm("allreduce.ccl"));
	cr_assert(trex_category_is_comm("all_gather"));
	cr_assert(trex_category_is_comm("Reduce-Scatter"));
	cr_assert(trex_category_is_comm("NCCL"));
	cr_assert_not(trex_category_is_comm("sync.allreduce"));
	cr_assert_not(trex_category_is_comm("gemm"));
	cr_assert_not(trex_category_is_comm("reduce"));
	cr_assert_not(trex_category_is_comm("communication_and_more_than_thirty_two_chars"));
}

/* ---- a set joined from its ranks' parts ------------------------------------------------ */

Test(categories, parts_of_two_ranks_join_as_one_set)
{
	/* rank 3: GPU 0 sgemm 100, memcpy 50; rank 5: GPU 1 sgemm 10, mystery 30
	 * and GPU 2 sgemm 40. Total 230: gemm 150 (3 calls). */
	const struct gev a[] = {{"0", "kernel", "sgemm", 0, 100},
	                        {"0", "gpu_memcpy", "Memcpy DtoD", 300, 50}};
	const struct gev b[] = {{"1", "kernel", "sgemm", 0, 10},
	                        {"1", "kernel", "mystery", 100, 30},
	                        {"2", "kernel", "sgemm", 0, 40}};
	struct trex_index *ia = index_of(a, 2), *ib = index_of(b, 3);
	struct trex_category_part *parts[2] = {NULL, NULL};
	const int64_t ranks[2] = {3, 5};
	struct trex_table t;
	struct trex_error err;
	bool joined = false;
	size_t g, u;

	cr_assert_eq(trex_category_part_new(ia, &parts[0], &err), TREX_OK);
	cr_assert_eq(trex_category_part_new(ib, &parts[1], &err), TREX_OK);
	trex_index_free(ia);
	trex_index_free(ib); /* a part keeps no reference to its index */
	cr_assert_eq(trex_categories_join_table(parts, ranks, 2, false, &t, &joined, &err),
	             TREX_OK);
	cr_assert(joined);
	/* total, share, calls, 3 devices, rules, category */
	cr_assert_eq(t.ncols, 8);
	cr_assert_str_eq(t.cols[3].key, "rank3_gpu0_ns");
	cr_assert_str_eq(t.cols[3].title, "rank 3 GPU 0");
	cr_assert_str_eq(t.cols[4].key, "rank5_gpu1_ns");
	cr_assert_str_eq(t.cols[5].title, "rank 5 GPU 2");
	g = row_of(&t, "gemm");
	cr_assert_eq(g, 0);
	cr_assert_eq(trex_table_cell(&t, g, 0)->number, 150);
	cr_assert_float_eq(trex_table_cell(&t, g, 1)->number, 150.0 / 230 * 100, 1e-9);
	cr_assert_eq(trex_table_cell(&t, g, 2)->count, 3);
	cr_assert_eq(trex_table_cell(&t, g, 3)->number, 100);
	cr_assert_eq(trex_table_cell(&t, g, 4)->number, 10);
	cr_assert_eq(trex_table_cell(&t, g, 5)->number, 40);
	cr_assert_str_eq(trex_table_cell(&t, g, 6)->text, "gemm regex");
	u = row_of(&t, "uncategorized");
	cr_assert_eq(trex_table_cell(&t, u, 0)->number, 30);
	cr_assert_eq(trex_table_cell(&t, u, 4)->number, 30);
	cr_assert_eq(trex_table_cell(&t, u, 3)->number, 0);
	cr_assert_eq(t.nrows, 12);
	trex_table_free(&t);
	trex_category_part_free(parts[0]);
	trex_category_part_free(parts[1]);
}

Test(categories, parts_without_device_work_do_not_join)
{
	const struct gev ev[] = {{"2", "cpu_op", "aten::mm", 0, 1000}};
	struct trex_index *idx = index_of(ev, 1);
	struct trex_category_part *part = NULL;
	const int64_t rank = 0;
	struct trex_table t;
	struct trex_error err;
	bool joined = true;

	cr_assert_eq(trex_category_part_new(idx, &part, &err), TREX_OK);
	cr_assert_eq(trex_categories_join_table(&part, &rank, 1, true, &t, &joined, &err), TREX_OK);
	cr_assert_not(joined);
	cr_assert_eq(t.nrows, 0);
	trex_table_free(&t);
	trex_category_part_free(part);
	trex_index_free(idx);
}
