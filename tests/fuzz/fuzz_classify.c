/* libFuzzer target: arbitrary bytes as a DeepTools compiler log (the
 * ideal-cycles reader, then acelyzer's categories table over a small fixed
 * AIU trace) and as a trace (device work and communication rules, lazy args
 * read back in windows, categories and their explanation, GPU time, the
 * categories table of a fixed log, the empty-table reasons). Built and run
 * by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/gpu_time.h"
#include "trex/analysis/ideal_cycles.h"
#include "trex/analysis/table.h"
#include "trex/analysis/work.h"
#include "trex/core/index.h"
#include "trex/load/deeptools_log.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two AIU devices in FLEX form, and a log with two tables for them. */
static const char aiu_trace[] =
    "[{\"name\":\"conv Cmpt Exec\",\"ph\":\"B\",\"pid\":0,\"tid\":1,\"ts\":1},"
    "{\"name\":\"conv Cmpt Exec\",\"ph\":\"E\",\"pid\":0,\"tid\":1,\"ts\":9},"
    "{\"name\":\"mm Cmpt Exec\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3},"
    "{\"name\":\"x DmaO\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":2,\"dur\":3,"
    "\"args\":{\"CollGroup\":\"g\"}}]";
static const char aiu_log[] = " Ideal/Total Cycles \nconv-opCatConv 1100\n"
                              "====== Perf Summary End ======\n DECODING\n"
                              " Ideal/Total Cycles \nmm-opCatBmm 99\n";

static void ignore(void *user, const struct trex_error *problem)
{
	(void)user;
	(void)problem;
}

static void as_log(const uint8_t *data, size_t size)
{
	struct trex_ideal_log *log = NULL;
	struct trex_index *idx;
	struct trex_table t;
	struct trex_error err;

	if (trex_deeptools_log_parse("fuzz.log", (const char *)data, size, ignore, NULL, &log,
	                             &err) != TREX_OK)
		return;
	idx = fuzz_load_trace("aiu.json", aiu_trace, sizeof(aiu_trace) - 1);
	if (idx)
		fuzz_touch_table(&t, trex_ideal_categories_table(idx, log, 7, &t, &err));
	trex_index_free(idx);
	trex_ideal_log_free(log);
}

static void as_trace(const uint8_t *data, size_t size)
{
	struct trex_index *idx = fuzz_load_trace("fuzz.json", data, size);
	struct trex_ideal_log *log = NULL;
	struct trex_category_opts opts = {NULL, true};
	struct trex_work w;
	struct trex_table t;
	struct trex_error err;
	char why[256];

	if (!idx)
		return;
	trex_work_count(idx, &w);
	trex_work_empty_reason(idx, &w, TREX_WORK_WANT_KERNELS, why, sizeof(why));
	fuzz_touch_table(&t, trex_gpu_time_table(idx, &t, &err));
	fuzz_touch_table(&t, trex_categories_table(idx, &opts, &t, &err));
	fuzz_touch_table(&t, trex_categories_explain_table(idx, &opts, &t, &err));
	if (trex_deeptools_log_parse("aiu.log", aiu_log, sizeof(aiu_log) - 1, NULL, NULL, &log,
	                             &err) == TREX_OK)
		fuzz_touch_table(&t, trex_ideal_categories_table(idx, log, 0, &t, &err));
	trex_ideal_log_free(log);
	trex_index_free(idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_log(data, size);
	as_trace(data, size);
	return 0;
}
