/* The metrics store (core/metrics.h): metrics and layouts interned,
 * instances and their samples, how samples make an instance's value,
 * reports, problems, finding metrics by name. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trex/core/metrics.h"

static struct trex_metrics *m;

static void setup(void)
{
	m = trex_metrics_new();
	cr_assert_not_null(m);
}

static void teardown(void)
{
	trex_metrics_free(m);
}

TestSuite(metrics, .init = setup, .fini = teardown);

static uint32_t metric(const char *name, const char *unit, enum trex_metric_agg agg)
{
	return trex_metrics_metric(m, name, strlen(name), unit, strlen(unit), agg);
}

static uint32_t begin(uint32_t source, const char *kernel, uint32_t layout, int64_t id)
{
	struct trex_metrics_instance_spec s = {
	    .source = source,
	    .device = "Device #0",
	    .device_len = 9,
	    .kernel = kernel,
	    .kernel_len = strlen(kernel),
	    .layout = layout,
	    .id = id,
	    .flags = TREX_MINST_HAS_ID,
	    .line = 7,
	};

	return trex_metrics_instance_begin(m, &s);
}

Test(metrics, metrics_and_layouts_are_interned)
{
	uint32_t a = metric("XVE_ACTIVE", "%", TREX_METRIC_MEAN);
	uint32_t b = metric("GpuTime", "ns", TREX_METRIC_SUM);
	uint32_t ids[2] = {a, b}, rev[2] = {b, a};
	char label[64];

	cr_assert_eq(metric("XVE_ACTIVE", "%", TREX_METRIC_SUM), a, "same name and unit: same id");
	cr_assert_eq(trex_metrics_metric_get(m, a)->agg, TREX_METRIC_MEAN, "the first agg stays");
	cr_assert_neq(metric("XVE_ACTIVE", "", TREX_METRIC_MEAN), a,
	              "another unit: another metric");
	cr_assert_eq(trex_metrics_layout(m, ids, 2), trex_metrics_layout(m, ids, 2));
	cr_assert_neq(trex_metrics_layout(m, ids, 2), trex_metrics_layout(m, rev, 2));
	cr_assert_eq(trex_metrics_layout(m, ids, 0), TREX_METRICS_NONE);
	cr_assert_eq(trex_metrics_layout_pos(m, trex_metrics_layout(m, rev, 2), a), 1);
	cr_assert_str_eq(trex_metrics_metric_label(m, a, label, sizeof(label)), "XVE_ACTIVE[%]");
	cr_assert_eq(trex_metrics_metric_find(m, "XVE_ACTIVE[%]"), a);
	cr_assert_eq(trex_metrics_metric_find(m, "XVE_ACTIVE"), a, "bare name: the first unit");
	cr_assert_eq(trex_metrics_metric_find(m, "GpuTime[ns]"), b);
	cr_assert_eq(trex_metrics_metric_find(m, "GpuTime[us]"), TREX_METRICS_NONE);
	cr_assert_eq(trex_metrics_metric_find(m, "nothing"), TREX_METRICS_NONE);
}

Test(metrics, samples_make_the_value_by_agg)
{
	uint32_t ids[3] = {metric("GpuTime", "ns", TREX_METRIC_SUM),
	                   metric("XVE_ACTIVE", "%", TREX_METRIC_MEAN),
	                   metric("QueryBeginTime", "ns", TREX_METRIC_FIRST)};
	uint32_t src = trex_metrics_add_source(m, "q.csv", "unitrace-text");
	uint32_t lay = trex_metrics_layout(m, ids, 3);
	uint32_t in = begin(src, "k", lay, 12);
	double rows[3][3] = {{10, 50, NAN}, {20, NAN, 1000}, {30, 70, 2000}}, v;

	for (int r = 0; r < 3; r++)
		memcpy(trex_metrics_sample(m), rows[r], sizeof(rows[r]));
	cr_assert_eq(trex_metrics_instance(m, in)->samples, 3);
	cr_assert(trex_metrics_instance_value(m, in, ids[0], &v));
	cr_assert_float_eq(v, 60, 1e-12, "sum");
	cr_assert(trex_metrics_instance_value(m, in, ids[1], &v));
	cr_assert_float_eq(v, 60, 1e-12, "mean of the samples with a value");
	cr_assert(trex_metrics_instance_value(m, in, ids[2], &v));
	cr_assert_float_eq(v, 1000, 1e-12, "the first sample with a value");
	cr_assert_not(trex_metrics_instance_value(m, in, metric("other", "", 0), &v));
	cr_assert(isnan(v));
}

Test(metrics, a_fresh_sample_has_no_values_and_can_be_dropped)
{
	uint32_t id = metric("a", "", TREX_METRIC_SUM);
	uint32_t lay = trex_metrics_layout(m, &id, 1);
	uint32_t in;
	double *row;

	cr_assert_null(trex_metrics_sample(m), "no instance yet");
	in = begin(0, "k", lay, 1);
	row = trex_metrics_sample(m);
	cr_assert(isnan(row[0]));
	row[0] = 5;
	trex_metrics_sample_drop(m);
	cr_assert_eq(trex_metrics_instance(m, in)->samples, 0);
	trex_metrics_instance_end(m);
	cr_assert_eq(trex_metrics_instance_count(m), 0, "an instance without samples goes");
	in = begin(0, "k", lay, 1);
	trex_metrics_sample(m)[0] = 7;
	trex_metrics_instance_end(m);
	cr_assert_eq(trex_metrics_instance_count(m), 1, "one with samples stays");
	cr_assert_eq(
	    trex_metrics_instance_begin(m, &(struct trex_metrics_instance_spec){.layout = 99}),
	    TREX_METRICS_NONE, "no such layout");
}

Test(metrics, instances_keep_what_they_are)
{
	uint32_t id = metric("a", "", TREX_METRIC_SUM);
	uint32_t lay = trex_metrics_layout(m, &id, 1);
	uint32_t in = begin(3, "main::{lambda(auto:1)#1}", lay, 42);
	const struct trex_metrics_instance *i = trex_metrics_instance(m, in);

	cr_assert_str_eq(trex_metrics_str(m, i->kernel), "main::{lambda(auto:1)#1}");
	cr_assert_str_eq(trex_metrics_str(m, i->device), "Device #0");
	cr_assert_eq(i->id, 42);
	cr_assert_eq(i->source, 3);
	cr_assert_eq(i->line, 7);
	cr_assert_eq(i->slice, TREX_METRICS_NONE);
	cr_assert_eq(i->link, TREX_MLINK_NONE);
	trex_metrics_set_link(m, in, 17, TREX_MLINK_ID);
	cr_assert_eq(trex_metrics_instance(m, in)->slice, 17);
	cr_assert_eq(trex_metrics_instance(m, in)->link, TREX_MLINK_ID);
}

Test(metrics, reports_keep_text_and_numbers)
{
	struct trex_report_cell cols[3] = {{"Kernel", 6, NAN}, {"Calls", 5, NAN}, {"SIMD", 4, NAN}};
	struct trex_report_cell row[3] = {{"\"gemm, k\"", 9, NAN}, {"4", 1, 4}, {"ANY", 3, NAN}};
	uint32_t r = trex_metrics_add_report(m, 0, TREX_REPORT_DEVICE_TIMING,
	                                     "Device Timing Summary", "L0 Backend", cols, 3, 9);
	double v;

	cr_assert_eq(r, 0);
	cr_assert(trex_metrics_report_row(m, row));
	cr_assert_eq(trex_metrics_report(m, r)->nrows, 1);
	cr_assert_eq(trex_metrics_report(m, r)->line, 9);
	cr_assert_str_eq(trex_metrics_report_cell(m, r, -1, 1, NULL), "Calls");
	cr_assert_str_eq(trex_metrics_report_cell(m, r, 0, 0, NULL), "\"gemm, k\"");
	cr_assert_str_eq(trex_metrics_report_cell(m, r, 0, 1, &v), "4");
	cr_assert_float_eq(v, 4, 0);
	trex_metrics_report_cell(m, r, 0, 2, &v);
	cr_assert(isnan(v), "text is no number");
	cr_assert_str_eq(trex_metrics_report_cell(m, r, 1, 0, &v), "", "past the rows");
	cr_assert_str_eq(trex_report_kind_name(TREX_REPORT_KERNEL_PROPERTIES), "kernel properties");
}

Test(metrics, problems_are_counted_and_the_first_kept)
{
	uint32_t s = trex_metrics_add_source(m, "bad.csv", "unitrace-text");
	struct trex_error e;

	for (int i = 0; i < TREX_METRICS_PROBLEMS + 3; i++) {
		trex_error_set(&e, TREX_FORMAT, "bad.csv", i, "problem %d", i);
		trex_metrics_problem(m, s, &e);
	}
	cr_assert_eq(trex_metrics_source(m, s)->problems, TREX_METRICS_PROBLEMS + 3);
	cr_assert_eq(trex_metrics_source(m, s)->kept, TREX_METRICS_PROBLEMS);
	cr_assert_str_eq(trex_metrics_source(m, s)->problem[1].message, "problem 1");
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_source(m, s)->path), "bad.csv");
	cr_assert_gt(trex_metrics_memory(m), 0);
}
