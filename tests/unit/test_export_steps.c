/* --steps (export_steps.h): which device work a chosen ProfilerStep keeps,
 * the errors naming the steps a trace has, and the time range the other
 * exporters get, on a hand-built index. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/export/export_steps.h"

/* Steps 10, 11, 12 on the main thread (ts 1000, 2000, 3000; 900 long);
 * a kernel launched in each (launched in 10 but run during 11, too); a
 * kernel without a launch inside the GPU-side copy of step 11; and
 * "ProfilerStep#7x", which is no step. */
static struct trex_index *steps_index(void)
{
	struct trex_build_file f = fixture_file("steps.json");
	struct trex_builder *b = trex_builder_new(0);
	const struct fixture_slice slices[] = {
	    {"1", "1", "user_annotation", "ProfilerStep#10", 1000, 900, 0, 0, NULL},
	    {"1", "1", "user_annotation", "ProfilerStep#11", 2000, 900, 0, 0, NULL},
	    {"1", "1", "user_annotation", "ProfilerStep#12", 3000, 900, 0, 0, NULL},
	    {"1", "1", "user_annotation", "ProfilerStep#7x", 3950, 10, 0, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 1100, 10, 1, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 1800, 10, 2, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 2100, 10, 3, 0, NULL},
	    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 3100, 10, 4, 0, NULL},
	    {"0", "7", "kernel", "k10", 1200, 50, 1, 0, NULL},
	    {"0", "7", "kernel", "k10_late", 2050, 40, 2, 0, NULL},
	    {"0", "7", "kernel", "k11", 2150, 50, 3, 0, NULL},
	    {"0", "7", "kernel", "k12", 3150, 50, 4, 0, NULL},
	    {"0", "8", "gpu_user_annotation", "ProfilerStep#11", 2040, 800, 0, 0, NULL},
	    {"0", "8", "kernel", "k11_unlaunched", 2300, 50, 0, 0, NULL},
	};

	for (size_t i = 0; i < sizeof(slices) / sizeof(slices[0]); i++)
		fixture_add(b, &f, &slices[i]);
	return fixture_build(&f, &b, 1);
}

/* The names of the kernels the steps keep, blank-separated, in slice order. */
static void kept(const struct trex_index *idx, const struct trex_export_steps *s, char *out,
                 size_t size)
{
	out[0] = '\0';
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *sl = trex_index_slice(idx, i);
		const char *name = trex_index_str(idx, sl->name);
		if (strncmp(name, "k1", 2) != 0 || !trex_export_steps_keep(s, idx, i))
			continue;
		strncat(out, out[0] ? " " : "", size - strlen(out) - 1);
		strncat(out, name, size - strlen(out) - 1);
	}
}

Test(export_steps, keeps_the_work_launched_in_the_chosen_steps)
{
	struct trex_index *idx = steps_index();
	struct trex_rank_range one = {11, 11}, two[] = {{10, 10}, {12, 12}};
	struct trex_export_steps *s;
	struct trex_error err = {0};
	char names[256];

	cr_assert_eq(trex_export_steps_find(idx, &one, 1, &s, &err), TREX_OK);
	kept(idx, s, names, sizeof(names));
	/* launched in 11 (k11), not k10_late (launched in 10, run in 11); the
	 * unlaunched kernel by the GPU-side step */
	cr_assert_str_eq(names, "k11 k11_unlaunched");
	trex_export_steps_free(s);
	cr_assert_eq(trex_export_steps_find(idx, two, 2, &s, &err), TREX_OK);
	kept(idx, s, names, sizeof(names));
	cr_assert_str_eq(names, "k10 k10_late k12");
	trex_export_steps_free(s);
	trex_index_free(idx);
}

Test(export_steps, an_unknown_step_names_those_the_trace_has)
{
	struct trex_index *idx = steps_index();
	struct trex_rank_range r = {11, 13};
	struct trex_export_steps *s = NULL;
	struct trex_error err = {0};

	cr_assert_eq(trex_export_steps_find(idx, &r, 1, &s, &err), TREX_USAGE);
	cr_assert_null(s);
	cr_assert_str_eq(err.message, "--steps: the trace has no step 13; its steps are 10-12");
	trex_index_free(idx);
}

Test(export_steps, the_range_of_a_run_of_steps)
{
	struct trex_index *idx = steps_index();
	struct trex_rank_range run = {11, 12}, gap[] = {{10, 10}, {12, 12}};
	struct trex_export_steps *s;
	struct trex_error err = {0};
	int64_t a, b;

	cr_assert_eq(trex_export_steps_find(idx, &run, 1, &s, &err), TREX_OK);
	cr_assert_eq(trex_export_steps_range(s, &a, &b, &err), TREX_OK);
	cr_assert_eq(a, 2000);
	cr_assert_eq(b, 3900);
	trex_export_steps_free(s);
	cr_assert_eq(trex_export_steps_find(idx, gap, 2, &s, &err), TREX_OK);
	cr_assert_eq(trex_export_steps_range(s, &a, &b, &err), TREX_USAGE);
	cr_assert(strstr(err.message, "cannot leave out step 11"), "%s", err.message);
	trex_export_steps_free(s);
	trex_index_free(idx);
}
