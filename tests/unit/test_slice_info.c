/* Slice details: self time, children, enclosing step/annotation, links and
 * args, over small hand-built indexes and tests/data files. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/slice_info.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/load/json_args.h"
#include "trex/load/loader.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct sev {
	const char *pid, *tid, *cat, *name;
	int64_t ts, dur;
	uint32_t corr, ext;
};

static struct trex_index *build(const struct sev *ev, size_t n)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("t.json");

	for (size_t i = 0; i < n; i++)
		fixture_add(b, &file,
		            &(struct fixture_slice){ev[i].pid, ev[i].tid, ev[i].cat, ev[i].name,
		                                    ev[i].ts, ev[i].dur, ev[i].corr, ev[i].ext,
		                                    NULL});
	return fixture_build(&file, &b, 1);
}

/* The one slice called name. */
static uint32_t find(const struct trex_index *idx, const char *name)
{
	uint32_t found = TREX_NONE;

	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++)
		if (strcmp(trex_index_str(idx, trex_index_slice(idx, i)->name), name) == 0) {
			cr_assert_eq(found, TREX_NONE, "two slices called %s", name);
			found = i;
		}
	cr_assert_neq(found, TREX_NONE, "no slice called %s", name);
	return found;
}

static const char *name_of(const struct trex_index *idx, uint32_t id)
{
	return id == TREX_NONE ? "(none)" : trex_index_str(idx, trex_index_slice(idx, id)->name);
}

/* The kind of link to target, or -1 when it is not listed. */
static int link_to(const struct trex_slice_info *info, uint32_t target)
{
	for (size_t i = 0; i < info->link_count; i++)
		if (info->links[i].slice == target)
			return (int)info->links[i].kind;
	return -1;
}

/* A training step: ProfilerStep#3 holds aten::mm (which launches gemm on
 * the GPU through cudaLaunchKernel) and aten::add; times in ns.
 *
 *   thread 1: ProfilerStep#3 [0, 100)
 *               aten::mm [10, 40)          aten::add [50, 60)
 *                 cudaLaunchKernel [15, 20)
 *   stream 7:   nccl [0, 100) (gpu_user_annotation)
 *                  gemm [30, 35)                                 */
static const struct sev step[] = {
    {"1", "1", "user_annotation", "ProfilerStep#3", 0, 100, 0, 0},
    {"1", "1", "cpu_op", "aten::mm", 10, 30, 0, 7},
    {"1", "1", "cuda_runtime", "cudaLaunchKernel", 15, 5, 42, 7},
    {"1", "1", "cpu_op", "aten::add", 50, 10, 0, 8},
    {"0", "stream 7", "gpu_user_annotation", "gpu_annot", 0, 100, 0, 0},
    {"0", "stream 7", "kernel", "gemm", 30, 5, 42, 7},
};

Test(slice_info, self_time_is_duration_minus_direct_children)
{
	struct trex_index *idx = build(step, ARRAY_SIZE(step));
	struct trex_slice_info info;

	/* 100 - (30 + 10): the launch inside aten::mm is not a direct child */
	trex_slice_info_compute(idx, find(idx, "ProfilerStep#3"), &info);
	cr_assert_eq(info.self_ns, 60);
	cr_assert_eq(info.child_count, 2);
	cr_assert_str_eq(name_of(idx, info.children[0]), "aten::mm");
	cr_assert_str_eq(name_of(idx, info.children[1]), "aten::add");
	cr_assert_eq(info.parent, TREX_NONE);
	/* 30 - 5 */
	trex_slice_info_compute(idx, find(idx, "aten::mm"), &info);
	cr_assert_eq(info.self_ns, 25);
	cr_assert_str_eq(name_of(idx, info.parent), "ProfilerStep#3");
	/* a leaf: all self */
	trex_slice_info_compute(idx, find(idx, "aten::add"), &info);
	cr_assert_eq(info.self_ns, 10);
	cr_assert_eq(info.child_count, 0);
	trex_index_free(idx);
}

Test(slice_info, kernel_links_to_its_launch_first)
{
	struct trex_index *idx = build(step, ARRAY_SIZE(step));
	uint32_t gemm = find(idx, "gemm"), launch = find(idx, "cudaLaunchKernel");
	struct trex_slice_info info;

	trex_slice_info_compute(idx, gemm, &info);
	cr_assert_eq(info.launch, launch);
	cr_assert_gt(info.link_count, 0);
	cr_assert_eq(info.links[0].kind, TREX_LINK_LAUNCH);
	cr_assert_eq(info.links[0].slice, launch);
	/* aten::mm shares External id 7; the launch is listed once */
	cr_assert_eq(link_to(&info, find(idx, "aten::mm")), TREX_LINK_EXT_ID);
	/* on the GPU track the innermost annotation is the GPU one; the step
	 * is found through the launch's ancestors */
	cr_assert_str_eq(name_of(idx, info.annotation), "gpu_annot");
	cr_assert_str_eq(name_of(idx, info.step), "ProfilerStep#3");
	cr_assert_eq(link_to(&info, info.step), TREX_LINK_STEP);
	cr_assert_eq(link_to(&info, find(idx, "aten::add")), -1);
	for (size_t i = 0; i < info.link_count; i++)
		for (size_t j = i + 1; j < info.link_count; j++)
			cr_assert_neq(info.links[i].slice, info.links[j].slice);
	trex_index_free(idx);
}

Test(slice_info, launch_links_to_its_kernel_first)
{
	struct trex_index *idx = build(step, ARRAY_SIZE(step));
	struct trex_slice_info info;

	trex_slice_info_compute(idx, find(idx, "cudaLaunchKernel"), &info);
	cr_assert_eq(info.launch, TREX_NONE);
	cr_assert_eq(info.links[0].kind, TREX_LINK_LAUNCHED);
	cr_assert_str_eq(name_of(idx, info.links[0].slice), "gemm");
	cr_assert_eq(link_to(&info, find(idx, "aten::mm")), TREX_LINK_EXT_ID);
	/* the step encloses it; it is also the innermost user annotation */
	cr_assert_str_eq(name_of(idx, info.step), "ProfilerStep#3");
	cr_assert_eq(info.annotation, info.step);
	cr_assert_str_eq(trex_link_label(TREX_LINK_LAUNCHED), "launched");
	cr_assert_str_eq(trex_link_label(TREX_LINK_COUNT), "");
	trex_index_free(idx);
}

Test(slice_info, children_are_links_after_the_parent)
{
	struct trex_index *idx = build(step, ARRAY_SIZE(step));
	struct trex_slice_info info;

	trex_slice_info_compute(idx, find(idx, "ProfilerStep#3"), &info);
	cr_assert_eq(info.link_count, 2);
	cr_assert_eq(link_to(&info, find(idx, "aten::mm")), TREX_LINK_CHILD);
	cr_assert_eq(link_to(&info, find(idx, "aten::add")), TREX_LINK_CHILD);
	/* the launch shares aten::mm's External id: listed as that, once */
	trex_slice_info_compute(idx, find(idx, "aten::mm"), &info);
	cr_assert_eq(link_to(&info, find(idx, "cudaLaunchKernel")), TREX_LINK_EXT_ID);
	/* the parent is also the step and annotation: listed once, as the first */
	cr_assert_eq(link_to(&info, find(idx, "ProfilerStep#3")), TREX_LINK_ANNOTATION);
	trex_index_free(idx);
}

/* A child running past its parent's end only counts inside the parent;
 * zero-length children count but take no time. */
Test(slice_info, children_are_clipped_to_the_parent)
{
	static const struct sev ev[] = {
	    {"1", "1", "cpu_op", "P", 0, 100, 0, 0},
	    {"1", "1", "cpu_op", "C", 90, 30, 0, 0},
	    {"1", "1", "cpu_op", "Z", 40, 0, 0, 0},
	};
	struct trex_index *idx = build(ev, ARRAY_SIZE(ev));
	struct trex_slice_info info;

	trex_slice_info_compute(idx, find(idx, "P"), &info);
	cr_assert_eq(info.child_count, 2);
	cr_assert_eq(info.self_ns, 90);
	trex_index_free(idx);
}

/* More children than kept: the total is exact, the self time covers all. */
Test(slice_info, many_children)
{
	struct sev ev[41];
	char names[41][16];
	struct trex_index *idx;
	struct trex_slice_info info;

	ev[0] = (struct sev){"1", "1", "cpu_op", "P", 0, 1000, 0, 0};
	for (int i = 1; i < 41; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d", i);
		ev[i] = (struct sev){"1", "1", "cpu_op", names[i], i * 20, 10, 0, 0};
	}
	idx = build(ev, ARRAY_SIZE(ev));
	trex_slice_info_compute(idx, find(idx, "P"), &info);
	cr_assert_eq(info.child_count, 40);
	cr_assert_eq(info.self_ns, 1000 - 40 * 10);
	cr_assert_str_eq(name_of(idx, info.children[TREX_SLICE_INFO_CHILDREN - 1]), "c16");
	trex_index_free(idx);
}

/* ---- args -------------------------------------------------------------------------------- */

static void decode(const char *json, struct trex_args *a, bool *truncated)
{
	struct trex_error err;

	cr_assert_eq(trex_json_args_decode(json, strlen(json), a, truncated, &err), TREX_OK);
}

Test(args, decodes_strings_numbers_and_nested_values)
{
	struct trex_args a;
	bool trunc;

	decode("{ \"External id\": 7, \"name\" : \"a\\\"b\\u00e9\\n\",\n"
	       "  \"dims\": [[1, 2], [ 3 ]], \"o\": {\"k\": \" x y \"}, \"n\": null, \"t\": true }",
	       &a, &trunc);
	cr_assert_not(trunc);
	cr_assert_eq(a.n, 6);
	cr_assert_str_eq(a.v[0].key, "External id");
	cr_assert_str_eq(a.v[0].value, "7");
	cr_assert_str_eq(a.v[1].key, "name");
	cr_assert_str_eq(a.v[1].value, "a\"b\xc3\xa9\n");
	cr_assert_str_eq(a.v[2].value, "[[1,2],[3]]");
	cr_assert_str_eq(a.v[3].value, "{\"k\":\" x y \"}");
	cr_assert_str_eq(a.v[4].value, "null");
	cr_assert_str_eq(a.v[5].value, "true");
	trex_args_free(&a);
}

Test(args, surrogate_pairs_lone_surrogates_and_nul)
{
	struct trex_args a;

	decode("{\"e\":\"\\ud83d\\ude00\",\"l\":\"\\ud800x\",\"z\":\"a\\u0000b\",\"k\\u0000\":1}",
	       &a, NULL);
	cr_assert_eq(a.n, 4);
	cr_assert_str_eq(a.v[0].value, "\xf0\x9f\x98\x80");
	cr_assert_str_eq(a.v[1].value, "\xef\xbf\xbdx");
	/* a NUL is kept, as the string table keeps it (C0 80), not replaced */
	cr_assert_str_eq(a.v[2].value, "a\xc0\x80"
	                               "b");
	cr_assert_str_eq(a.v[3].key, "k\xc0\x80");
	trex_args_free(&a);
}

Test(args, tolerates_truncated_and_broken_input)
{
	struct trex_args a;
	bool trunc;

	decode("{\"a\": 1, \"b\": [1, 2", &a, &trunc);
	cr_assert(trunc);
	cr_assert_eq(a.n, 1);
	cr_assert_str_eq(a.v[0].key, "a");
	trex_args_free(&a);
	decode("{\"a\": \"x\" \"b\": 2}", &a, &trunc);
	cr_assert(trunc);
	cr_assert_eq(a.n, 1);
	trex_args_free(&a);
	decode("[1, 2]", &a, &trunc);
	cr_assert(trunc);
	cr_assert_eq(a.n, 0);
	trex_args_free(&a);
	decode("{}", &a, &trunc);
	cr_assert_not(trunc);
	cr_assert_eq(a.n, 0);
	trex_args_free(&a);
	decode("{\"bad\\q\": 1}", &a, &trunc);
	cr_assert(trunc);
	cr_assert_eq(a.n, 0);
	trex_args_free(&a);
}

/* ---- over tests/data files ------------------------------------------------------------------ */

static struct trex_index *load(const char *name)
{
	const char *srcdir = getenv("TREX_SRCDIR");
	char path[1024];
	const char *paths[1] = {path};
	struct trex_load_opts opts = {.threads = 1};
	struct trex_index *idx = NULL;
	struct trex_error err;

	snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir ? srcdir : ".", name);
	cr_assert_eq(trex_load_paths(paths, 1, &opts, &idx, &err), TREX_OK, "%s: %s", path,
	             err.message);
	return idx;
}

/* The slice starting at ts (ns). */
static uint32_t at(const struct trex_index *idx, int64_t ts)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++)
		if (trex_index_slice(idx, i)->ts - trex_index_start(idx) == ts)
			return i;
	cr_assert_fail("no slice at %lld", (long long)ts);
	return TREX_NONE;
}

Test(data, kernel_args_from_the_file)
{
	struct trex_index *idx = load("kernels.json");
	struct trex_args a;
	struct trex_error err;

	/* "say \"hi\", then bye" at 30 us: args {"grid":[1,1,1],"block":[32,1,1],
	 * "shared memory":1024} */
	cr_assert_eq(trex_slice_args(idx, at(idx, 20000), &a, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(a.n, 3);
	cr_assert_str_eq(a.v[0].key, "grid");
	cr_assert_str_eq(a.v[0].value, "[1,1,1]");
	cr_assert_str_eq(a.v[1].value, "[32,1,1]");
	cr_assert_str_eq(a.v[2].key, "shared memory");
	cr_assert_str_eq(a.v[2].value, "1024");
	trex_args_free(&a);
	/* the memcpy has no args */
	cr_assert_eq(trex_slice_args(idx, at(idx, 40000), &a, &err), TREX_OK);
	cr_assert_eq(a.n, 0);
	trex_args_free(&a);
	trex_index_free(idx);
}

Test(data, flows_both_ways)
{
	struct trex_index *idx = load("flows.json");
	uint32_t a = find(idx, "A"), b = find(idx, "B"), c = find(idx, "C");
	struct trex_slice_info info;

	/* A -> B (chain s -> t) and A -> C (ac2g s -> f at the next slice) */
	trex_slice_info_compute(idx, a, &info);
	cr_assert_eq(link_to(&info, b), TREX_LINK_FLOW_OUT);
	cr_assert_eq(link_to(&info, c), TREX_LINK_FLOW_OUT);
	trex_slice_info_compute(idx, c, &info);
	cr_assert_eq(link_to(&info, a), TREX_LINK_FLOW_IN);
	cr_assert_eq(link_to(&info, b), TREX_LINK_FLOW_IN);
	cr_assert_eq(info.self_ns, 5000);
	trex_index_free(idx);
}

/* Dependency edges (an execution graph's) are links both ways: what a
 * slice waits for, latest end first (the one that decided its start
 * leads), and what waits for it. */
Test(links, dependencies_latest_end_first)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = fixture_file("g.et");
	uint32_t pid = trex_builder_intern(b, "rank 0", 6);
	uint32_t key = trex_builder_intern(b, "compute", 7);
	uint32_t track = trex_builder_named_track(b, pid, key, TREX_NONE);
	const char *names[] = {"early", "late", "join", "after"};
	int64_t ts[] = {0, 0, 300, 500}, dur[] = {100, 300, 200, 10};
	trex_handle h[4];

	cr_assert_neq(track, TREX_NONE);
	for (int i = 0; i < 4; i++) {
		struct trex_ev ev = {.ts = ts[i], .dur = dur[i], .kind = TREX_KIND_KERNEL};

		ev.name = trex_builder_intern(b, names[i], strlen(names[i]));
		h[i] = trex_builder_complete(b, track, &ev);
		cr_assert_neq(h[i], TREX_HANDLE_NONE);
	}
	cr_assert_eq(trex_builder_edge(b, h[0], h[2], TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, h[1], h[2], TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, h[2], h[3], TREX_EDGE_DEPENDENCY), 0);
	file.events = 4;
	struct trex_index *idx = fixture_build(&file, &b, 1);
	uint32_t early = find(idx, "early"), late = find(idx, "late"), join = find(idx, "join"),
	         after = find(idx, "after");
	struct trex_slice_info info;

	trex_slice_info_compute(idx, join, &info);
	cr_assert_eq(info.link_count, 3);
	cr_assert_eq(info.links[0].kind, TREX_LINK_WAITS_FOR);
	cr_assert_eq(info.links[0].slice, late, "first: %s", name_of(idx, info.links[0].slice));
	cr_assert_eq(info.links[1].kind, TREX_LINK_WAITS_FOR);
	cr_assert_eq(info.links[1].slice, early);
	cr_assert_eq(info.links[2].kind, TREX_LINK_NEEDED_BY);
	cr_assert_eq(info.links[2].slice, after);
	trex_slice_info_compute(idx, early, &info);
	cr_assert_eq(link_to(&info, join), TREX_LINK_NEEDED_BY);
	cr_assert_str_eq(trex_link_label(TREX_LINK_WAITS_FOR), "waits for");
	trex_index_free(idx);
}
