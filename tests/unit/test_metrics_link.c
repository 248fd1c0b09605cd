/* Metrics against a trace (analysis/metrics.h): kernel names without their
 * shape suffix, linking by instance id and name and by order with every
 * way of not matching, Kineto's profiler ranges, the kernels table's
 * metric and report columns, the summary table. Traces and metrics are
 * small texts loaded the way files are; every expected number is worked
 * out in the comments. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/metrics.h"
#include "trex/core/metrics.h"
#include "trex/load/loader.h"
#include "trex/load/metrics_load.h"
#include "trex/load/source.h"

static struct trex_index *idx;
static struct trex_metrics *m;

static void teardown(void)
{
	trex_index_free(idx);
	trex_metrics_free(m);
	idx = NULL;
	m = NULL;
}

TestSuite(metrics_link, .fini = teardown);

static void load_trace(const char *json)
{
	struct trex_source *src;
	struct trex_error err;

	cr_assert_eq(trex_source_open_memory("t.json", json, strlen(json), true, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &(struct trex_load_opts){.threads = 1}, &idx, &err),
	             TREX_OK, "%s", err.message);
}

static void load_metrics(const char *name, const char *text)
{
	struct trex_source *src;
	struct trex_error err;
	const struct trex_metrics_format *f;

	if (!m)
		m = trex_metrics_new();
	cr_assert_eq(trex_source_open_memory(name, text, strlen(text), true, &src, &err), TREX_OK);
	f = trex_metrics_format_of(src, &err);
	cr_assert_not_null(f);
	cr_assert_eq(f->load(src, m, NULL, &err), TREX_OK, "%s", err.message);
	trex_source_close(src);
}

static struct trex_metrics_match link_all(void)
{
	struct trex_metrics_match mm;
	struct trex_error err;

	cr_assert_eq(trex_metrics_link(idx, m, &mm, &err), TREX_OK, "%s", err.message);
	return mm;
}

static const char *slice_name(uint32_t id)
{
	return trex_index_str(idx, trex_index_slice(idx, id)->name);
}

/* ---- names -------------------------------------------------------------------------------------
 */

static size_t base(const char *name)
{
	return trex_kernel_name_base(name, strlen(name));
}

Test(metrics_link, shape_suffixes)
{
	cr_assert_eq(base("main::{lambda(auto:1)#4}[SIMD32 {256; 1; 1} {128; 1; 1}]"), 24);
	cr_assert_eq(base("k[SIMD_ANY {1; 1; 1} {1; 1; 1}]"), 1);
	cr_assert_eq(base("zeCommandListAppendMemoryCopy(M2D)[4194304]"), 34);
	cr_assert_eq(base("k {4; 2; 1} {8; 1; 1}]"), 1, "no SIMD width: unitrace leaves out [SIMD");
	cr_assert_eq(base("main::{lambda(auto:1)#4}"), 24, "none");
	cr_assert_eq(base("a[]"), 3, "[] is no shape");
	cr_assert_eq(base("Array<float>[3 {x}]"), 19);
	cr_assert_eq(base(""), 0);
}

/* ---- by id -------------------------------------------------------------------------------------
 */

/* unitrace's Chrome trace: device work with args.id (chromelogger.h). */
static const char trace[] =
    "{\"traceEvents\":[\n"
    "{\"ph\": \"X\", \"tid\": 5, \"pid\": 4294967295, \"name\": \"k1[SIMD32 {8; 1; 1} {256; 1; "
    "1}]\", \"cat\": \"gpu_op\", \"ts\": 100.000000, \"dur\": 10.000000, \"args\": {\"id\": "
    "\"1\"}}\n"
    ",{\"ph\": \"X\", \"tid\": 5, \"pid\": 4294967295, \"name\": \"k2[SIMD16 {1; 1; 1} {16; 1; "
    "1}]\", \"cat\": \"gpu_op\", \"ts\": 120.000000, \"dur\": 5.000000, \"args\": {\"id\": "
    "\"2\"}}\n"
    ",{\"ph\": \"X\", \"tid\": 5, \"pid\": 4294967295, \"name\": \"k1[SIMD32 {8; 1; 1} {256; 1; "
    "1}]\", \"cat\": \"gpu_op\", \"ts\": 130.000000, \"dur\": 12.000000, \"args\": {\"id\": "
    "\"3\"}}\n"
    ",{\"ph\": \"X\", \"tid\": 5, \"pid\": 4294967295, \"name\": \"k1[SIMD32 {8; 1; 1} {256; 1; "
    "1}]\", \"cat\": \"gpu_op\", \"ts\": 150.000000, \"dur\": 14.000000, \"args\": {\"id\": "
    "\"4\"}}\n"
    ",{\"ph\": \"X\", \"tid\": 6, \"pid\": 4294967295, \"name\": \"k3\", \"cat\": \"gpu_op\", "
    "\"ts\": 170.000000, \"dur\": 1.000000, \"args\": {\"id\": \"5\"}}\n"
    ",{\"ph\": \"X\", \"tid\": 7, \"pid\": 4294967295, \"name\": \"k3\", \"cat\": \"gpu_op\", "
    "\"ts\": 171.000000, \"dur\": 1.000000, \"args\": {\"id\": \"5\"}}\n"
    "]}\n";

/* id 1: k1 (shape equal); id 3: k1 without shape; id 2 is k2's, not k1's;
 * id 9 is nobody's; id 5 has two k3; id 4 has a k1 of another shape. */
static const char query[] = "Kernel,GlobalInstanceId,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%]\n"
                            "\"k1[SIMD32 {8; 1; 1} {256; 1; 1}]\",1,0,100,50.000000\n\n"
                            "\"k1\",3,0,300,70.000000\n\n"
                            "\"k1\",2,0,200,60.000000\n\n"
                            "\"k1\",9,0,900,90.000000\n\n"
                            "\"k3\",5,0,500,10.000000\n\n"
                            "\"k1[SIMD32 {9; 1; 1} {256; 1; 1}]\",4,0,400,40.000000\n\n"
                            "\"NoKernel(Before k3)\",1048577,0,1,1.000000\n\n";

Test(metrics_link, by_id_and_name)
{
	struct trex_metrics_match mm;

	load_trace(trace);
	load_metrics("q.csv", query);
	mm = link_all();
	cr_assert_eq(trex_metrics_instance(m, 0)->link, TREX_MLINK_ID);
	cr_assert_eq(trex_index_slice(idx, trex_metrics_instance(m, 0)->slice)->ts, 100000);
	cr_assert_eq(trex_metrics_instance(m, 1)->link, TREX_MLINK_ID, "no shape fits any shape");
	cr_assert_eq(trex_index_slice(idx, trex_metrics_instance(m, 1)->slice)->ts, 130000);
	cr_assert_eq(trex_metrics_instance(m, 2)->link, TREX_MLINK_OTHER_NAME);
	cr_assert_eq(trex_metrics_instance(m, 2)->slice, TREX_METRICS_NONE);
	cr_assert_eq(trex_metrics_instance(m, 3)->link, TREX_MLINK_NO_ID);
	cr_assert_eq(trex_metrics_instance(m, 4)->link, TREX_MLINK_AMBIGUOUS);
	cr_assert_eq(trex_metrics_instance(m, 5)->link, TREX_MLINK_OTHER_NAME, "shapes differ");
	cr_assert_eq(trex_metrics_instance(m, 6)->link, TREX_MLINK_IDLE);
	cr_assert_eq(mm.instances, 7);
	cr_assert_eq(trex_metrics_matched(&mm), 2);
	cr_assert_eq(trex_metrics_unmatched(&mm), 4);
	cr_assert_eq(mm.count[TREX_MLINK_OTHER_NAME], 2);
	/* k1's trace kernels: ids 1, 3, 4; 4 has no instance (its shape differs) */
	cr_assert_eq(mm.trace_without, 1);
}

Test(metrics_link, the_line_says_what_matched)
{
	struct trex_metrics_match mm;
	char line[512];

	load_trace(trace);
	load_metrics("q.csv", query);
	mm = link_all();
	cr_assert_str_eq(trex_metrics_match_line(&mm, line, sizeof(line)),
	                 "2 of 6 metric instances matched trace kernels (2 by instance id); 4 did "
	                 "not: 1 has an id no trace kernel has, 2 have the id of another kernel, 1 "
	                 "has several trace kernels that fit; 1 idle (NoKernel) left out");
}

Test(metrics_link, per_tile_copies_only_when_nothing_else_fits)
{
	static const char tiles[] = "{\"traceEvents\":[\n"
	                            "{\"ph\": \"X\", \"tid\": 5, \"pid\": 1, \"name\": \"Tile #0: "
	                            "k\", \"cat\": \"gpu_op\", "
	                            "\"ts\": 1, \"dur\": 1, \"args\": {\"id\": \"7\"}}\n"
	                            ",{\"ph\": \"X\", \"tid\": 5, \"pid\": 1, \"name\": \"k\", "
	                            "\"cat\": \"gpu_op\", \"ts\": 3, "
	                            "\"dur\": 1, \"args\": {\"id\": \"7\"}}\n"
	                            ",{\"ph\": \"X\", \"tid\": 5, \"pid\": 1, \"name\": \"Tile #1: "
	                            "j\", \"cat\": \"gpu_op\", "
	                            "\"ts\": 5, \"dur\": 1, \"args\": {\"id\": \"8\"}}\n"
	                            "]}\n";

	load_trace(tiles);
	load_metrics("q.csv", "Kernel,GlobalInstanceId,SubDeviceId,a[%]\n\"k\",7,0,1.0\n\n"
	                      "\"j\",8,0,2.0\n\n");
	link_all();
	cr_assert_str_eq(slice_name(trex_metrics_instance(m, 0)->slice), "k");
	cr_assert_str_eq(slice_name(trex_metrics_instance(m, 1)->slice), "Tile #1: j");
}

/* ---- by order ----------------------------------------------------------------------------------
 */

/* The older style has no ids: the n-th k1 of the file is the trace's n-th
 * k1 (ts 100, 130, 150); the fourth has none; k9 is in no trace. */
static const char older[] = "== Kernel Metrics ==\n\n"
                            "Kernel,Device,SubDeviceId,GpuTime[ns],\n"
                            "k1[SIMD32 {8; 1; 1} {256; 1; 1}],0,0,1,\n\n"
                            "Kernel,Device,SubDeviceId,GpuTime[ns],\n"
                            "k1[SIMD32 {8; 1; 1} {256; 1; 1}],0,0,2,\n\n"
                            "Kernel,Device,SubDeviceId,GpuTime[ns],\n"
                            "k9,0,0,3,\n\n"
                            "Kernel,Device,SubDeviceId,GpuTime[ns],\n"
                            "k1[SIMD32 {8; 1; 1} {256; 1; 1}],0,0,4,\n\n"
                            "Kernel,Device,SubDeviceId,GpuTime[ns],\n"
                            "k1[SIMD32 {8; 1; 1} {256; 1; 1}],0,0,5,\n\n";

Test(metrics_link, by_order)
{
	static const int64_t ts[] = {100000, 130000, -1, 150000, -1};
	static const enum trex_metrics_link how[] = {TREX_MLINK_ORDER, TREX_MLINK_ORDER,
	                                             TREX_MLINK_NO_KERNEL, TREX_MLINK_ORDER,
	                                             TREX_MLINK_EXTRA};

	load_trace(trace);
	load_metrics("old.txt", older);
	link_all();
	for (uint32_t i = 0; i < 5; i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);

		cr_assert_eq(in->link, how[i], "instance %u", i);
		if (ts[i] >= 0)
			cr_assert_eq(trex_index_slice(idx, in->slice)->ts, ts[i], "instance %u", i);
	}
}

/* ---- Kineto profiler ranges --------------------------------------------------------------------
 */

static const char ranges[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"ampere_sgemm\", \"pid\": 0, "
    "\"tid\": 0, \"ts\": 10, \"dur\": 5, \"args\": {\"smsp__a.sum\": 9119334400, "
    "\"smsp__b.sum\": 0.5}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\": \"ampere_sgemm\", \"pid\": 0, "
    "\"tid\": 0, \"ts\": 20, \"dur\": 5, \"args\": {\"smsp__a.sum\": 1, \"note\": \"x\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 9, \"tid\": 9, \"ts\": "
    "1, \"dur\": 40}\n"
    "]}\n";

Test(metrics_link, kineto_profiler_ranges)
{
	struct trex_error err;
	struct trex_metrics_match mm;
	double v;

	load_trace(ranges);
	m = trex_metrics_new();
	cr_assert_eq(trex_metrics_add_profiler_ranges(idx, m, &err), TREX_OK);
	cr_assert_eq(trex_metrics_instance_count(m), 2);
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_source(m, 0)->format), "kineto-ranges");
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_instance(m, 0)->device), "GPU 0");
	cr_assert(
	    trex_metrics_instance_value(m, 0, trex_metrics_metric_find(m, "smsp__a.sum"), &v));
	cr_assert_eq(v, 9119334400.0);
	cr_assert(
	    trex_metrics_instance_value(m, 0, trex_metrics_metric_find(m, "smsp__b.sum"), &v));
	cr_assert_eq(v, 0.5);
	cr_assert_eq(trex_metrics_instance(m, 1)->link, TREX_MLINK_IN_TRACE);
	cr_assert_eq(trex_index_slice(idx, trex_metrics_instance(m, 1)->slice)->ts, 20000);
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 1, "\"note\" is no counter");
	mm = link_all();
	cr_assert_eq(mm.count[TREX_MLINK_IN_TRACE], 2, "linking leaves trace events as they are");
}

Test(metrics_link, no_ranges_no_source)
{
	struct trex_error err;

	load_trace(trace);
	m = trex_metrics_new();
	cr_assert_eq(trex_metrics_add_profiler_ranges(idx, m, &err), TREX_OK);
	cr_assert_eq(trex_metrics_source_count(m), 0);
}

/* ---- the kernels table's columns ---------------------------------------------------------------
 */

static const char report[] =
    "\n=== Device Timing Summary ===\n\n== L0 Backend ==\n\n"
    "  Kernel,  Calls,  Time (ns), Time (%), Average (ns), Min (ns), Max (ns)\n"
    "  \"k1\",       2,       3000,     50.0,         1500,     1000,     2000\n"
    "  \"k1\",       1,       5000,     40.0,         5000,     5000,     5000\n"
    "  \"k2\",       1,        700,     10.0,          700,      700,      700\n"
    "\n=== Kernel Properties ===\n\n"
    "  Kernel, Compiled, SIMD\n"
    "  \"k1\",      JIT,   32\n"
    "  \"k2\",      AOT,  ANY\n";

static size_t col(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	}
	cr_assert_fail("no column %s", key);
	return 0;
}

/* The kernels table row of kernel name (full). */
static size_t row_of(const struct trex_table *t, const char *name)
{
	size_t nc = col(t, "name");

	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(trex_table_cell(t, r, nc)->text, name) == 0)
			return r;
	}
	cr_assert_fail("no row %s", name);
	return 0;
}

Test(metrics_link, kernels_table_columns)
{
	static const char *const names[] = {"XVE_ACTIVE", "Calls", "Average (ns)", "SIMD"};
	struct trex_metric_column *cols;
	struct trex_kernel_members mem;
	struct trex_table t;
	struct trex_error err;
	size_t n, k1;

	load_trace(trace);
	load_metrics("q.csv", query);
	load_metrics("d.txt", report);
	link_all();
	cr_assert_eq(trex_metrics_columns(m, names, 4, &cols, &n, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_eq(n, 4);
	cr_assert_eq(trex_kernels_table_members(idx, &(struct trex_kernel_opts){0}, &t, &mem, &err),
	             TREX_OK);
	cr_assert_eq(trex_kernels_add_metrics(idx, m, &mem, cols, n, &t, &err), TREX_OK);
	k1 = row_of(&t, "k1[SIMD32 {8; 1; 1} {256; 1; 1}]");
	/* k1's linked instances: ids 1 (50 %) and 3 (70 %) */
	cr_assert_float_eq(trex_table_cell(&t, k1, col(&t, "XVE_ACTIVE[%]"))->number, 60, 1e-12);
	/* its two report rows: 2 + 1 calls, (3000 + 5000) / 3 ns */
	cr_assert_float_eq(trex_table_cell(&t, k1, col(&t, "timing_calls"))->number, 3, 0);
	cr_assert_float_eq(trex_table_cell(&t, k1, col(&t, "timing_average_ns"))->number,
	                   8000.0 / 3, 1e-9);
	cr_assert_eq(t.cols[col(&t, "simd")].type, TREX_COL_TEXT, "ANY is text");
	cr_assert_str_eq(trex_table_cell(&t, k1, col(&t, "simd"))->text, "32");
	cr_assert_str_eq(
	    trex_table_cell(&t, row_of(&t, "k2[SIMD16 {1; 1; 1} {16; 1; 1}]"), col(&t, "simd"))
	        ->text,
	    "ANY");
	cr_assert(isnan(trex_table_cell(&t, row_of(&t, "k3"), col(&t, "XVE_ACTIVE[%]"))->number),
	          "k3 has no linked instance");
	cr_assert_eq(col(&t, "name"), t.ncols - 1, "the name stays last");
	trex_kernel_members_free(&mem);
	trex_table_free(&t);
	free(cols);
}

Test(metrics_link, unknown_column_names_say_what_there_is)
{
	static const char *const names[] = {"XVE_ACTIVE", "nope"};
	struct trex_metric_column *cols;
	struct trex_error err;
	size_t n;

	load_metrics("q.csv", query);
	cr_assert_eq(trex_metrics_columns(m, names, 2, &cols, &n, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "'nope'"), "%s", err.message);
	cr_assert(strstr(err.message, "GpuTime[ns]"), "%s", err.message);
}

/* ---- summaries ---------------------------------------------------------------------------------
 */

Test(metrics_link, summary_min_avg_max_trend)
{
	static const char q[] = "Kernel,GlobalInstanceId,SubDeviceId,a[%]\n"
	                        "\"k\",1,0,10.0\n\n\"k\",2,0,30.0\n\n\"k\",3,0,20.0\n\n";
	uint32_t a;
	struct trex_metrics_select sel = {.metrics = &a, .nmetrics = 1};
	struct trex_metrics_groups g;
	struct trex_table t;
	struct trex_error err;
	double pts[3];

	load_metrics("q.csv", q);
	a = trex_metrics_metric_find(m, "a");
	cr_assert_eq(trex_metrics_group(m, &sel, &g, &err), TREX_OK);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(trex_metrics_summary_table(m, &sel, &g, 0, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(trex_table_cell(&t, 0, 2)->count, 3);
	cr_assert_float_eq(trex_table_cell(&t, 0, 3)->number, 10, 0);
	cr_assert_float_eq(trex_table_cell(&t, 0, 4)->number, 20, 0);
	cr_assert_float_eq(trex_table_cell(&t, 0, 5)->number, 30, 0);
	/* 10, 30, 20 between 10 and 30: the lowest, the highest and a middle block */
	cr_assert_str_eq(trex_table_cell(&t, 0, 6)->text, "\xe2\x96\x81\xe2\x96\x88\xe2\x96\x84");
	trex_metrics_trend(m, a, g.ids, 3, pts, 1);
	cr_assert_float_eq(pts[0], 20, 1e-12, "one point: the mean of all");
	trex_table_free(&t);
	trex_metrics_groups_free(&g);
}

/* A point without a value is a blank; an infinite one the top block (the
 * fuzz target found the level computed from NaN before the blank). */
Test(metrics_link, trend_gaps_and_infinities)
{
	static const char q[] =
	    "Kernel,GlobalInstanceId,SubDeviceId,a[%]\n"
	    "\"k\",1,0,10.0\n\n\"k\",2,0,\n\n\"k\",3,0,inf\n\n\"k\",4,0,20.0\n\n";
	uint32_t a;
	struct trex_metrics_select sel = {.metrics = &a, .nmetrics = 1};
	struct trex_metrics_groups g;
	struct trex_table t;
	struct trex_error err;

	load_metrics("q.csv", q);
	a = trex_metrics_metric_find(m, "a");
	cr_assert_eq(trex_metrics_group(m, &sel, &g, &err), TREX_OK);
	cr_assert_eq(trex_metrics_summary_table(m, &sel, &g, 0, &t, &err), TREX_OK);
	cr_assert_eq(trex_table_cell(&t, 0, 2)->count, 3, "the one without a value is not counted");
	/* 10, none, inf, 20: lowest, blank, top, lowest (20 is nothing beside inf) */
	cr_assert_str_eq(trex_table_cell(&t, 0, 6)->text, "\xe2\x96\x81 \xe2\x96\x88\xe2\x96\x81");
	trex_table_free(&t);
	trex_metrics_groups_free(&g);
}
