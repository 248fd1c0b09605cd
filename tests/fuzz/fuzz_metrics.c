/* libFuzzer target: arbitrary bytes as unitrace text (-q/-k metric CSVs,
 * -d/-h reports; the reader itself, not only what sniffs as one) linked to
 * a small fixed unitrace trace, with every metrics table and the kernels
 * table's metric and report columns built from it; and as a trace whose
 * Kineto cuda_profiler_range events become metrics. Built and run by
 * tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/metrics.h"
#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/metrics.h"
#include "trex/load/loader.h"
#include "trex/load/metrics_load.h"
#include "trex/load/source.h"

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two kernels' device ops with instance ids 1..3, as unitrace writes them. */
static const char unitrace_trace[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"tid\":1,\"pid\":1,\"name\":\"k1[SIMD32 {8; 1; 1} {256; 1; 1}]\","
    "\"cat\":\"gpu_op\",\"ts\":10,\"dur\":5,\"args\":{\"id\":\"1\"}},\n"
    "{\"ph\":\"X\",\"tid\":1,\"pid\":1,\"name\":\"k2\",\"cat\":\"gpu_op\",\"ts\":20,\"dur\":5,"
    "\"args\":{\"id\":\"2\"}},\n"
    "{\"ph\":\"X\",\"tid\":1,\"pid\":1,\"name\":\"k1[SIMD32 {8; 1; 1} {256; 1; 1}]\","
    "\"cat\":\"gpu_op\",\"ts\":30,\"dur\":5,\"args\":{\"id\":\"3\"}}]}\n";

/* The kernels table with every metric and report column m has. */
static void kernels_with_metrics(const struct trex_index *idx, const struct trex_metrics *m)
{
	static const char *const all[] = {"all"};
	struct trex_metric_column *cols = NULL;
	struct trex_kernel_members mem;
	struct trex_table t;
	struct trex_error err;
	size_t n = 0;

	if (trex_metrics_columns(m, all, 1, &cols, &n, &err) != TREX_OK)
		return;
	if (trex_kernels_table_members(idx, &(struct trex_kernel_opts){0}, &t, &mem, &err) ==
	    TREX_OK) {
		fuzz_touch_table(&t, trex_kernels_add_metrics(idx, m, &mem, cols, n, &t, &err));
		trex_kernel_members_free(&mem);
	}
	free(cols);
}

/* Every table of a loaded and linked store. */
static void tables(const struct trex_index *idx, const struct trex_metrics *m)
{
	struct trex_metrics_select sel = {.idle = true};
	struct trex_metrics_groups g;
	struct trex_table t;
	struct trex_error err;

	fuzz_touch_table(&t, trex_metrics_sources_table(m, &t, &err));
	fuzz_touch_table(&t, trex_metrics_devices_table(m, &t, &err));
	fuzz_touch_table(&t, trex_metrics_list_table(m, &t, &err));
	fuzz_touch_table(&t, trex_metrics_unmatched_table(m, idx, &t, &err));
	for (uint32_t r = 0; r < trex_metrics_report_count(m); r++)
		fuzz_touch_table(&t, trex_metrics_report_table(m, r, &t, &err));
	if (trex_metrics_group(m, &sel, &g, &err) != TREX_OK)
		return;
	fuzz_touch_table(&t, trex_metrics_kernels_table(m, idx, &sel, &g, &t, &err));
	fuzz_touch_table(
	    &t, trex_metrics_instances_table(m, idx, &sel, &g, TREX_METRICS_ALL, &t, &err));
	fuzz_touch_table(&t, trex_metrics_summary_table(m, &sel, &g, TREX_METRICS_ALL, &t, &err));
	if (g.n) {
		sel.no_kernel = true;
		fuzz_touch_table(&t, trex_metrics_instances_table(m, idx, &sel, &g, 0, &t, &err));
	}
	trex_metrics_groups_free(&g);
	if (idx)
		kernels_with_metrics(idx, m);
}

static void as_unitrace_text(const struct trex_index *idx, const uint8_t *data, size_t size)
{
	const struct trex_metrics_format *f = trex_metrics_formats()[0];
	struct trex_metrics *m = trex_metrics_new();
	struct trex_source *src = NULL;
	struct trex_error err;

	if (!m)
		return;
	if (trex_source_open_memory("m.txt", data, size, false, &src, &err) == TREX_OK) {
		(void)trex_metrics_format_of(src, &err);
		if (f->load(src, m, NULL, &err) == TREX_OK &&
		    (!idx || trex_metrics_link(idx, m, NULL, &err) == TREX_OK))
			tables(idx, m);
		trex_source_close(src);
	}
	trex_metrics_free(m);
}

static void as_profiler_ranges(const uint8_t *data, size_t size)
{
	struct trex_index *idx = fuzz_load_trace("t.json", data, size);
	struct trex_metrics *m = idx ? trex_metrics_new() : NULL;
	struct trex_error err;

	if (m && trex_metrics_add_profiler_ranges(idx, m, &err) == TREX_OK &&
	    trex_metrics_link(idx, m, NULL, &err) == TREX_OK)
		tables(idx, m);
	trex_metrics_free(m);
	trex_index_free(idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trex_index *idx =
	    fuzz_load_trace("u.json", unitrace_trace, sizeof(unitrace_trace) - 1);

	as_unitrace_text(idx, data, size);
	as_unitrace_text(NULL, data, size);
	as_profiler_ranges(data, size);
	trex_index_free(idx);
	return 0;
}
