/* The execution-graph pipeline without a file format: two files' graphs
 * (rank 0 and rank 1) joined, scheduled and drawn (trex_graph_timeline),
 * then built into an index that owns the graph and binds it to the
 * slices; the classifier marks the communication nodes. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/critical_path.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/core/schedule.h"
#include "trex/load/classify.h"
#include "trex/load/graph_timeline.h"

static uint32_t add(struct trex_graph *g, uint32_t file, uint64_t id, const char *name,
                    enum trex_node_type type, int64_t dur, bool cpu)
{
	struct trex_graph_node n = {
	    .id = id,
	    .dur = dur,
	    .comm_bytes = type == TREX_NODE_COMM_COLL ? 1000000 : -1,
	    .offset = -1,
	    .file = file,
	    .rank = file,
	    .name = trex_graph_intern(g, name, strlen(name)),
	    .group = type == TREX_NODE_COMM_COLL ? trex_graph_intern(g, "dp", 2) : 0,
	    .peer = -1,
	    .type = (uint8_t)type,
	    .collective = type == TREX_NODE_COMM_COLL ? TREX_COLLECTIVE_ALL_REDUCE : 0,
	    .flags = cpu ? TREX_NODE_CPU : 0,
	};
	return trex_graph_add_node(g, &n);
}

/* Rank r: launch (host, 5) -> gemm (compute, 100 + 50r) -> all-reduce
 * (estimated: 1 MB x 2(n-1)/n at 50 B/ns + 500 = 20500) -> load (mem, 7). */
static struct trex_graph *rank_graph(uint32_t r)
{
	struct trex_graph *g = trex_graph_new();
	add(g, r, 10, "aten::linear", TREX_NODE_COMP, 5, true);
	uint32_t gemm = add(g, r, 11, "gemm", TREX_NODE_COMP, 100 + 50 * (int64_t)r, false);
	uint32_t ar =
	    add(g, r, 12, "all_reduce", TREX_NODE_COMM_COLL, TREX_GRAPH_DUR_UNKNOWN, false);
	uint32_t load = add(g, r, 13, "load", TREX_NODE_MEM_LOAD, 7, false);
	trex_graph_add_dep(g, gemm, 10, TREX_DEP_DATA);
	trex_graph_add_dep(g, ar, 11, TREX_DEP_DATA);
	trex_graph_add_dep(g, load, 12, TREX_DEP_DATA);
	return g;
}

struct pipeline {
	struct trex_index *idx;
	const struct trex_graph *g;
	const struct trex_schedule *s;
};

static struct pipeline run_pipeline(void)
{
	struct trex_graph *graphs[2] = {rank_graph(0), rank_graph(1)};
	struct trex_builder *parts[2];
	struct trex_graph *g;
	struct trex_error err;
	struct trex_schedule_opts o = {.bandwidth_gbps = 50, .latency_ns = 500};
	cr_assert_eq(trex_graph_timeline(graphs, 2, &o, parts, &g, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_null(graphs[0]);
	cr_assert_not_null(parts[0]);
	cr_assert_not_null(parts[1]);
	struct trex_build_file f[2] = {
	    {.path = "rank0.et", .format = "test", .dialect = "graph", .rank = 0, .has_rank = true},
	    {.path = "rank1.et", .format = "test", .dialect = "graph", .rank = 1, .has_rank = true},
	};
	struct trex_build_input in = {.files = f,
	                              .file_count = 2,
	                              .parts = parts,
	                              .part_count = 2,
	                              .threads = 1,
	                              .classifier = &trex_load_classifier,
	                              .graph = g};
	struct pipeline p = {0};
	cr_assert_eq(trex_index_build(&in, &p.idx, &err), TREX_OK, "%s", err.message);
	p.g = trex_index_graph(p.idx);
	cr_assert_eq(p.g, g);
	p.s = trex_graph_schedule(p.g);
	cr_assert_not_null(p.s);
	return p;
}

static uint32_t slice_of(const struct pipeline *p, uint32_t rank, const char *name)
{
	uint32_t n;
	const uint32_t *nodes = trex_graph_rank_nodes(p->g, rank, &n);
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_graph_node *node = trex_graph_node(p->g, nodes[i]);
		if (strcmp(trex_graph_str(p->g, node->name), name) == 0) {
			cr_assert_neq(node->slice, TREX_GRAPH_NONE);
			cr_assert_eq(trex_graph_node_of_slice(p->g, node->slice), nodes[i]);
			return node->slice;
		}
	}
	cr_assert_fail("no node %s on rank %u", name, rank);
	return TREX_NONE;
}

static const char *track_name(const struct trex_index *idx, uint32_t slice)
{
	return trex_index_str(idx,
	                      trex_index_track(idx, trex_index_slice(idx, slice)->track)->name);
}

Test(graph_timeline, each_node_is_a_slice_at_its_scheduled_time)
{
	struct pipeline p = run_pipeline();
	/* rank 0: launch 0..5, gemm 5..105; rank 1 gemm 5..155; the
	 * all-reduce waits for rank 1: 155..20655; loads 20655..20662 */
	const struct trex_slice *gemm1 = trex_index_slice(p.idx, slice_of(&p, 1, "gemm"));
	cr_assert_eq(gemm1->ts, 5);
	cr_assert_eq(gemm1->dur, 150);
	uint32_t ar0 = slice_of(&p, 0, "all_reduce");
	cr_assert_eq(trex_index_slice(p.idx, ar0)->ts, 155);
	cr_assert_eq(trex_index_slice(p.idx, ar0)->dur, 20500);
	const struct trex_slice *load0 = trex_index_slice(p.idx, slice_of(&p, 0, "load"));
	cr_assert_eq(load0->ts, 20655);
	cr_assert_eq(p.s->makespan, 20662);
	cr_assert_eq(p.s->estimated, 2);
	cr_assert_eq(p.s->bandwidth_gbps, 50);
	cr_assert_eq(p.s->latency_ns, 500);
	trex_index_free(p.idx);
}

Test(graph_timeline, kinds_tracks_and_processes_follow_the_node)
{
	struct pipeline p = run_pipeline();
	uint32_t launch = slice_of(&p, 1, "aten::linear"), gemm = slice_of(&p, 1, "gemm");
	uint32_t ar = slice_of(&p, 1, "all_reduce"), load = slice_of(&p, 1, "load");
	cr_assert_eq(trex_index_slice(p.idx, launch)->kind, TREX_KIND_CPU_OP);
	cr_assert_eq(trex_index_slice(p.idx, gemm)->kind, TREX_KIND_KERNEL);
	cr_assert_eq(trex_index_slice(p.idx, load)->kind, TREX_KIND_MEMCPY);
	cr_assert_eq(trex_index_slice(p.idx, ar)->kind, TREX_KIND_KERNEL);
	cr_assert_eq(trex_slice_comm(p.idx, ar), TREX_COMM_GRAPH);
	cr_assert_eq(trex_slice_comm(p.idx, gemm), TREX_COMM_NONE);
	cr_assert_str_eq(trex_index_str(p.idx, trex_index_slice(p.idx, ar)->cat), "collective");
	cr_assert_str_eq(trex_index_str(p.idx, trex_index_slice(p.idx, load)->cat), "mem load");
	cr_assert_str_eq(track_name(p.idx, launch), "host");
	cr_assert_str_eq(track_name(p.idx, gemm), "compute");
	cr_assert_str_eq(track_name(p.idx, load), "compute");
	cr_assert_str_eq(track_name(p.idx, ar), "comm");
	const struct trex_track *t = trex_index_track(p.idx, trex_index_slice(p.idx, ar)->track);
	const struct trex_process *proc = trex_index_process(p.idx, t->process);
	cr_assert_str_eq(trex_index_str(p.idx, proc->name), "rank 1");
	cr_assert_eq(proc->rank, 1);
	cr_assert_eq(trex_index_process_count(p.idx), 2);
	cr_assert_eq(trex_index_track_count(p.idx), 6);
	trex_index_free(p.idx);
}

Test(graph_timeline, dependencies_are_edges_and_the_index_owns_the_graph)
{
	struct pipeline p = run_pipeline();
	uint32_t gemm = slice_of(&p, 0, "gemm"), ar = slice_of(&p, 0, "all_reduce");
	uint32_t in[4];
	size_t n = trex_index_edges_of(p.idx, ar, true, in, 4);
	cr_assert_eq(n, 1);
	cr_assert_eq(trex_index_edge(p.idx, in[0])->from, gemm);
	cr_assert_eq(trex_index_edge_count(p.idx), 6);
	cr_assert_gt(trex_index_memory(p.idx), trex_graph_memory(p.g));
	trex_index_free(p.idx); /* frees the graph and its schedule (ASan checks) */
}

Test(graph_timeline, no_graph_no_builders)
{
	struct trex_graph *graphs[2] = {NULL, NULL};
	struct trex_builder *parts[2] = {(struct trex_builder *)1, (struct trex_builder *)1};
	struct trex_graph *g = (struct trex_graph *)1;
	struct trex_error err;
	struct trex_schedule_opts o = {.bandwidth_gbps = 50, .latency_ns = 500};
	cr_assert_eq(trex_graph_timeline(graphs, 2, &o, parts, &g, &err), TREX_OK);
	cr_assert_null(g);
	cr_assert_null(parts[0]);
	cr_assert_null(parts[1]);
}

Test(graph_timeline, cancel_frees_everything)
{
	struct trex_graph *graphs[1] = {rank_graph(0)};
	struct trex_builder *parts[1];
	struct trex_graph *g;
	struct trex_error err;
	volatile sig_atomic_t cancel = 1;
	struct trex_schedule_opts o = {.bandwidth_gbps = 50, .latency_ns = 500, .cancel = &cancel};
	cr_assert_eq(trex_graph_timeline(graphs, 1, &o, parts, &g, &err), TREX_CANCELLED);
	cr_assert_null(g);
	cr_assert_null(parts[0]);
}

/* The critical path: rank 1's launch, its gemm (the slower), its
 * all-reduce, rank 0's all-reduce that waited for it, and the load after
 * it (the last node to end, rank 0's load being first in file order). */
Test(graph_timeline, critical_path_table)
{
	struct pipeline p = run_pipeline();
	struct trex_table t;
	const struct trex_schedule *s;
	struct trex_error err;
	cr_assert_eq(trex_critical_path_table(p.idx, &t, &s, &err), TREX_OK);
	cr_assert_eq(s, p.s);
	const char *want[][3] = {{"1", "aten::linear", "start"},
	                         {"1", "gemm", "dependency"},
	                         {"1", "all_reduce", "dependency"},
	                         {"0", "all_reduce", "peer"},
	                         {"0", "load", "dependency"}};
	cr_assert_eq(t.nrows, 5);
	for (size_t r = 0; r < 5; r++) {
		cr_expect_eq(trex_table_cell(&t, r, 0)->count, atoi(want[r][0]), "row %zu", r);
		cr_expect_str_eq(trex_table_cell(&t, r, 2)->text, want[r][1], "row %zu", r);
		cr_expect_str_eq(trex_table_cell(&t, r, 9)->text, want[r][2], "row %zu", r);
		cr_expect_eq(trex_table_cell(&t, r, 10)->number, 0, "row %zu has no slack", r);
	}
	cr_assert_eq(trex_table_cell(&t, 2, 1)->count, 12);
	cr_assert_str_eq(trex_table_cell(&t, 2, 3)->text, "collective");
	cr_assert_str_eq(trex_table_cell(&t, 2, 4)->text, "all-reduce");
	cr_assert_eq(trex_table_cell(&t, 2, 5)->count, 1000000);
	cr_assert_eq(trex_table_cell(&t, 2, 6)->number, 155);
	cr_assert_eq(trex_table_cell(&t, 2, 7)->number, 20500);
	cr_assert_eq(trex_table_cell(&t, 2, 8)->count, 1);
	cr_assert_eq(trex_table_cell(&t, 1, 8)->count, 0);
	trex_table_free(&t);
	trex_index_free(p.idx);
}

Test(graph_timeline, critical_path_without_a_graph_says_so)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file f = {.path = "x.json", .format = "test"};
	struct trex_build_input in = {
	    .files = &f, .file_count = 1, .parts = &b, .part_count = 1, .threads = 1};
	struct trex_index *idx;
	struct trex_table t;
	struct trex_error err;
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK);
	cr_assert_eq(trex_critical_path_table(idx, &t, NULL, &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "no execution graph"));
	trex_table_free(&t);
	trex_index_free(idx);
}
