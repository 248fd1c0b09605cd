#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/kind.h"
#include "trex/load/kinds.h"

Test(kind, kineto_categories)
{
	cr_assert_eq(trex_kind_of("kernel", "void gemm<float>()"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)"),
	             TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("gpu_memset", "Memset (Device)"), TREX_KIND_MEMSET);
	cr_assert_eq(trex_kind_of("cuda_runtime", "cudaLaunchKernel"), TREX_KIND_RUNTIME);
	cr_assert_eq(trex_kind_of("cuda_driver", "cuLaunchKernel"), TREX_KIND_RUNTIME);
	cr_assert_eq(trex_kind_of("cpu_op", "aten::mm"), TREX_KIND_CPU_OP);
	cr_assert_eq(trex_kind_of("gpu_user_annotation", "## forward ##"),
	             TREX_KIND_GPU_ANNOTATION);
	cr_assert_eq(trex_kind_of("cuda_sync", "Stream Sync"), TREX_KIND_GPU_SYNC);
	cr_assert_eq(trex_kind_of("cuda_profiler_range", "void gemm<float>()"), TREX_KIND_GPU_OTHER,
	             "CUPTI range-profiler ranges are not kernel times");
}

Test(kind, legacy_2021_categories)
{
	cr_assert_eq(trex_kind_of("Kernel", "k"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("Memcpy", "Memcpy HtoD"), TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("Memset", "Memset"), TREX_KIND_MEMSET);
	cr_assert_eq(trex_kind_of("Runtime", "cudaLaunchKernel"), TREX_KIND_RUNTIME);
	cr_assert_eq(trex_kind_of("Operator", "aten::conv2d"), TREX_KIND_CPU_OP);
}

Test(kind, unitrace_gpu_op_by_name)
{
	cr_assert(trex_kind_needs_name("gpu_op"));
	cr_assert_not(trex_kind_needs_name("kernel"));
	cr_assert_eq(
	    trex_kind_of("gpu_op", "main::{lambda(auto:1)#4}[SIMD32 {256; 1; 1} {128; 1; 1}]"),
	    TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("gpu_op", "zeCommandListAppendMemoryCopy(M2D)[4194304]"),
	             TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("gpu_op", "zeCommandListAppendMemoryFill(D)[64]"),
	             TREX_KIND_MEMSET);
	cr_assert_eq(trex_kind_of("gpu_op", "zeCommandListAppendBarrier"), TREX_KIND_GPU_OTHER);
	cr_assert_eq(trex_kind_of("gpu_op", "Tile #1: zeCommandListAppendMemoryCopy(D2M)[8]"),
	             TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("gpu_op", "Tile #0: gemm[SIMD16 {1; 1; 1} {8; 1; 1}]"),
	             TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("gpu_op", "clEnqueueReadBuffer"), TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("gpu_op", NULL), TREX_KIND_KERNEL);
}

/* The six event names of corpus kineto/hta_mtia_inference on its
 * mtia_ccp_events device streams. */
Test(kind, mtia_device_events_by_name)
{
	cr_assert(trex_kind_needs_name("mtia_ccp_events"));
	cr_assert_eq(trex_kind_of("mtia_ccp_events", "pe_exe"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("mtia_ccp_events", "merge"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("mtia_ccp_events", "remote"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("mtia_ccp_events", "dma_request"), TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("mtia_ccp_events", "event_wait"), TREX_KIND_GPU_SYNC);
	cr_assert_eq(trex_kind_of("mtia_ccp_events", "event_record"), TREX_KIND_GPU_OTHER);
	cr_assert_eq(trex_kind_of("mtia_runtime", "enqueueCommand memcpyHtoDAsync"),
	             TREX_KIND_RUNTIME);
}

/* acelyzer FLEX events have no category (corpus acelyzer/allreduce_tp4.json,
 * sample_flex_3062_job_4.json): the name's last words decide. */
Test(kind, acelyzer_flex_events_by_name)
{
	cr_assert(trex_kind_needs_name(""));
	cr_assert_eq(trex_kind_of("", "convolution_1 Cmpt Exec"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("", "AllReduce_all_reduce_4_Add_1 Cmpt Exec"), TREX_KIND_KERNEL);
	cr_assert_eq(trex_kind_of("", "add_11 Cmpt Prep"), TREX_KIND_GPU_OTHER);
	cr_assert_eq(
	    trex_kind_of("", "SenRdmaSend_82227 [sync=AllReduce_all_reduce_4_s0_r1_0] DmaO"),
	    TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("", "SenRdmaReceive_82239 [524288B] [sync=x] DmaI"),
	             TREX_KIND_MEMCPY);
	cr_assert_eq(trex_kind_of("", "Flex RoundTrip"), TREX_KIND_OTHER);
	cr_assert_eq(trex_kind_of("", "Execute Graph"), TREX_KIND_OTHER);
	cr_assert_eq(trex_kind_of("", "Cmpt Exec"), TREX_KIND_OTHER, "the suffix has its space");
	cr_assert_eq(trex_kind_of("", NULL), TREX_KIND_OTHER);
	cr_assert_eq(trex_kind_of("CatA", "x Cmpt Exec"), TREX_KIND_OTHER,
	             "only without a category");
}

Test(kind, unknown_and_null)
{
	cr_assert_eq(trex_kind_of(NULL, "x"), TREX_KIND_OTHER);
	cr_assert_eq(trex_kind_of("", "x"), TREX_KIND_OTHER);
	cr_assert_not(trex_kind_needs_name(NULL));
	cr_assert_eq(trex_kind_of("KERNEL", "x"), TREX_KIND_OTHER, "categories are case-sensitive");
	cr_assert_eq(trex_kind_of("CatA", "x"), TREX_KIND_OTHER);
}

Test(kind, gpu_flags_and_labels)
{
	cr_assert(trex_kind_is_gpu(TREX_KIND_KERNEL));
	cr_assert(trex_kind_is_gpu(TREX_KIND_MEMCPY));
	cr_assert(trex_kind_is_gpu(TREX_KIND_GPU_SYNC));
	cr_assert_not(trex_kind_is_gpu(TREX_KIND_RUNTIME));
	cr_assert_not(trex_kind_is_gpu(TREX_KIND_CPU_OP));
	cr_assert_not(trex_kind_is_gpu((enum trex_kind)999));
	cr_assert_str_eq(trex_kind_label(TREX_KIND_MEMCPY), "memcpy");
	cr_assert_str_eq(trex_kind_label((enum trex_kind)999), "?");
}

/* The man page's GPU WORK section must list every rule of the table, so
 * the documentation cannot drift from the code. */
Test(kind, man_page_lists_every_rule)
{
	const char *srcdir = getenv("TREX_SRCDIR");
	if (!srcdir)
		cr_skip_test("TREX_SRCDIR not set (run through make check)");
	char path[4096];
	snprintf(path, sizeof path, "%s/man/trex.1.in", srcdir);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	const char *section = strstr(text, ".SH GPU WORK");
	cr_assert_not_null(section);
	const char *end = strstr(section + 1, "\n.SH ");
	size_t len = end ? (size_t)(end - section) : strlen(section);
	const char *name;
	enum trex_kind kind;
	for (size_t i = 0; trex_kind_category_rule(i, &name, &kind); i++) {
		char needle[128];
		snprintf(needle, sizeof needle, "%s", name);
		cr_assert_not_null(memmem(section, len, needle, strlen(needle)),
		                   "category %s is not in GPU WORK", name);
	}
	struct trex_kind_name_rule r;
	for (size_t i = 0; trex_kind_name_rule(i, &r); i++) {
		cr_assert_not_null(memmem(section, len, r.text, strlen(r.text)),
		                   "%s name rule '%s' is not in GPU WORK", r.cat, r.text);
		if (*r.cat)
			cr_assert_not_null(memmem(section, len, r.cat, strlen(r.cat)),
			                   "category %s is not in GPU WORK", r.cat);
	}
}
