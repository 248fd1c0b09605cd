/* The builder as formats other than Chrome's fill it (Perfetto, Chakra):
 * slices named by handles, edges between them whatever their times
 * (dependencies, flow hops, launches), tracks a loader names under a
 * process and nests, and ranks carried by processes. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/core/builder.h"
#include "trex/core/index.h"

static uint32_t S(struct trex_builder *b, const char *s)
{
	return trex_builder_intern(b, s, strlen(s));
}

static trex_handle slice(struct trex_builder *b, uint32_t track, const char *name, int64_t ts,
                         int64_t dur, enum trex_kind kind)
{
	struct trex_ev ev = {.ts = ts, .dur = dur, .name = S(b, name), .kind = (uint8_t)kind};
	trex_handle h = trex_builder_complete(b, track, &ev);

	cr_assert_neq(h, TREX_HANDLE_NONE, "%s", name);
	return h;
}

static struct trex_index *build(struct trex_builder *b, int64_t file_rank)
{
	struct trex_build_file f = {.path = "g.bin",
	                            .format = "test",
	                            .dialect = "graph",
	                            .rank = file_rank,
	                            .has_rank = true};
	struct trex_build_input in = {&f, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx = NULL;
	struct trex_error err;

	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

static uint32_t slice_named(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		if (strcmp(trex_index_str(idx, trex_index_slice(idx, i)->name), name) == 0)
			return i;
	}
	cr_assert_fail("no slice %s", name);
	return TREX_NONE;
}

/* Chakra-style nodes: no meaningful times, order only by dependencies;
 * the edges survive the build's sorting and are found both ways. */
Test(builder_graph, dependency_edges_resolve_to_slices_both_ways)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));
	trex_handle late = slice(b, t, "late", 300, 10, TREX_KIND_CPU_OP);
	trex_handle early = slice(b, t, "early", 100, 10, TREX_KIND_CPU_OP);
	trex_handle mid = slice(b, t, "mid", 200, 10, TREX_KIND_CPU_OP);
	struct trex_index *idx;
	uint32_t out[4], e, l, m;

	cr_assert_eq(trex_builder_edge(b, early, mid, TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, mid, late, TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, early, late, TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, early, early, TREX_EDGE_DEPENDENCY), -1, "no self edge");
	trex_builder_free(b); /* misuse leaves a builder failed: the same again, well formed */

	b = trex_builder_new(0);
	t = trex_builder_track(b, S(b, "1"), S(b, "1"));
	late = slice(b, t, "late", 300, 10, TREX_KIND_CPU_OP);
	early = slice(b, t, "early", 100, 10, TREX_KIND_CPU_OP);
	mid = slice(b, t, "mid", 200, 10, TREX_KIND_CPU_OP);
	cr_assert_eq(trex_builder_edge(b, early, mid, TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, mid, late, TREX_EDGE_DEPENDENCY), 0);
	cr_assert_eq(trex_builder_edge(b, early, late, TREX_EDGE_DEPENDENCY), 0);
	idx = build(b, 0);
	e = slice_named(idx, "early"), m = slice_named(idx, "mid"), l = slice_named(idx, "late");
	cr_assert_eq(trex_index_edge_count(idx), 3);
	cr_assert_eq(trex_index_edges_of(idx, e, false, out, 4), 2, "early has two dependents");
	cr_assert_eq(trex_index_edges_of(idx, l, true, out, 4), 2, "late waits for two");
	for (int k = 0; k < 2; k++)
		cr_assert_eq(trex_index_edge(idx, out[k])->to, l);
	cr_assert_eq(trex_index_edges_of(idx, m, true, out, 4), 1);
	cr_assert_eq(trex_index_edge(idx, out[0])->from, e);
	cr_assert_eq(trex_index_edges_of(idx, e, true, out, 4), 0);
	cr_assert_null(trex_index_edge(idx, 3));
	trex_index_free(idx);
}

/* A launch edge gives both ends one launch link; a flow edge is a flow hop. */
Test(builder_graph, launch_and_flow_edges)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t cpu = trex_builder_track(b, S(b, "1"), S(b, "1"));
	uint32_t gpu = trex_builder_track(b, S(b, "1"), S(b, "7"));
	trex_handle call = slice(b, cpu, "cudaLaunchKernel", 100, 5, TREX_KIND_RUNTIME);
	trex_handle k = slice(b, gpu, "gemm", 150, 50, TREX_KIND_KERNEL);
	trex_handle op = slice(b, cpu, "aten::mm", 90, 30, TREX_KIND_CPU_OP);
	trex_handle k2 = slice(b, gpu, "relu", 220, 5, TREX_KIND_KERNEL);
	struct trex_index *idx;
	uint32_t out[4], kid, cid;
	const struct trex_flow *f;

	cr_assert_eq(trex_builder_edge(b, call, k, TREX_EDGE_LAUNCH), 0);
	cr_assert_eq(trex_builder_edge(b, op, k2, TREX_EDGE_FLOW), 0);
	idx = build(b, 0);
	kid = slice_named(idx, "gemm");
	cid = slice_named(idx, "cudaLaunchKernel");
	cr_assert_eq(trex_index_launch_of(idx, kid), cid);
	cr_assert(trex_index_slice(idx, kid)->flags & TREX_SLICE_HAS_LAUNCH_LINK);
	cr_assert_eq(trex_index_same_launch_link(idx, cid, out, 4), 1);
	cr_assert_eq(out[0], kid);
	cr_assert_eq(trex_index_launch_of(idx, slice_named(idx, "relu")), TREX_NONE);
	cr_assert_eq(trex_index_flow_count(idx), 1);
	f = trex_index_flow(idx, 0);
	cr_assert_eq(f->from_slice, slice_named(idx, "aten::mm"));
	cr_assert_eq(f->to_slice, slice_named(idx, "relu"));
	cr_assert_eq(trex_index_track(idx, trex_index_slice(idx, kid)->track)->kind, TREX_TRACK_GPU,
	             "a thread holding device work is a device queue");
	trex_index_free(idx);
}

/* Perfetto-style tracks: named under a process, nested by parent, the
 * same (pid, key) the same track. */
Test(builder_graph, named_tracks_nest_under_their_parent)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t pid = S(b, "42");
	uint32_t outer = trex_builder_named_track(b, pid, S(b, "GPU 0"), TREX_NONE);
	uint32_t inner = trex_builder_named_track(b, pid, S(b, "stream 7"), outer);
	struct trex_index *idx;
	uint32_t to = TREX_NONE, ti = TREX_NONE;

	cr_assert_neq(outer, TREX_NONE);
	cr_assert_neq(inner, TREX_NONE);
	cr_assert_eq(trex_builder_named_track(b, pid, S(b, "stream 7"), outer), inner);
	cr_assert_eq(trex_builder_named_track(b, S(b, "43"), S(b, "x"), outer), TREX_NONE,
	             "a parent of another process");
	trex_builder_free(b);

	b = trex_builder_new(0);
	pid = S(b, "42");
	outer = trex_builder_named_track(b, pid, S(b, "GPU 0"), TREX_NONE);
	inner = trex_builder_named_track(b, pid, S(b, "stream 7"), outer);
	slice(b, inner, "k", 10, 5, TREX_KIND_KERNEL);
	slice(b, outer, "busy", 0, 100, TREX_KIND_GPU_OTHER);
	idx = build(b, 0);
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const char *name = trex_index_str(idx, trex_index_track(idx, t)->name);

		if (strcmp(name, "GPU 0") == 0)
			to = t;
		else if (strcmp(name, "stream 7") == 0)
			ti = t;
	}
	cr_assert_neq(to, TREX_NONE);
	cr_assert_neq(ti, TREX_NONE);
	cr_assert_eq(trex_index_track(idx, to)->kind, TREX_TRACK_NAMED);
	cr_assert_eq(trex_index_track(idx, to)->parent, TREX_NONE);
	cr_assert_eq(trex_index_track(idx, ti)->parent, to);
	cr_assert_gt(ti, to, "a nested track follows its parent");
	cr_assert_eq(trex_index_track(idx, ti)->slice_count, 1);
	trex_index_free(idx);
}

/* One file, many ranks: a process's own rank wins over its file's. */
Test(builder_graph, processes_carry_their_rank)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t p0 = S(b, "100"), p1 = S(b, "101"), p2 = S(b, "102");
	struct trex_index *idx;
	bool seen[3] = {false, false, false};

	slice(b, trex_builder_track(b, p0, S(b, "1")), "a", 0, 1, TREX_KIND_CPU_OP);
	slice(b, trex_builder_track(b, p1, S(b, "1")), "b", 0, 1, TREX_KIND_CPU_OP);
	slice(b, trex_builder_track(b, p2, S(b, "1")), "c", 0, 1, TREX_KIND_CPU_OP);
	cr_assert_eq(trex_builder_process_rank(b, p0, 3), 0);
	cr_assert_eq(trex_builder_process_rank(b, p1, 4), 0);
	idx = build(b, 9);
	cr_assert_eq(trex_index_process_count(idx), 3);
	for (uint32_t i = 0; i < 3; i++) {
		const struct trex_process *p = trex_index_process(idx, i);
		const char *pid = trex_index_str(idx, p->pid);

		int k = strcmp(pid, "100") == 0 ? 0 : strcmp(pid, "101") == 0 ? 1 : 2;
		static const int64_t want[] = {3, 4, 9};

		cr_assert_eq(p->rank, want[k], "pid %s", pid);
		cr_assert_eq(p->has_rank, k < 2, "pid %s: own rank, else the file's", pid);
		seen[k] = true;
	}
	cr_assert(seen[0] && seen[1] && seen[2]);
	trex_index_free(idx);
}
