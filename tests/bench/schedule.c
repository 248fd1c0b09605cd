/* The graph engine on a generated execution graph (issue 12 target:
 * schedule + critical path of 3M nodes <= 1 s):
 *   schedule [NODES] [RANKS] [RUNS]   (default 3000000 64 5)
 * Each rank is a training-step-like chain: host ops launching compute
 * (a dep on the previous two nodes, so resources contend), an all-reduce
 * of the world every 50 nodes without a duration (estimated), and a
 * send to the next rank every 200 nodes with its receive there. Prints
 * the build (add + finish) once, and the median schedule time. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"
#include "trex/core/graph.h"
#include "trex/core/schedule.h"

static uint32_t bench_add(struct trex_graph *g, uint32_t rank, uint64_t i, uint32_t ranks,
                          const uint32_t *names, uint32_t world)
{
	struct trex_graph_node n = {.id = i,
	                            .dur = 1000 + (int64_t)((i * 7919 + rank * 104729) % 5000),
	                            .comm_bytes = -1,
	                            .offset = -1,
	                            .file = rank,
	                            .rank = rank,
	                            .name = names[0],
	                            .peer = -1,
	                            .type = TREX_NODE_COMP};
	if (i % 50 == 49) {
		n.type = TREX_NODE_COMM_COLL;
		n.collective = TREX_COLLECTIVE_ALL_REDUCE;
		n.group = world;
		n.comm_bytes = 64 << 20;
		n.dur = TREX_GRAPH_DUR_UNKNOWN;
		n.name = names[1];
	} else if (i % 200 == 100) {
		n.type = TREX_NODE_COMM_SEND;
		n.peer = (int32_t)((rank + 1) % ranks);
		n.comm_bytes = 1 << 20;
		n.name = names[2];
	} else if (i % 200 == 101) {
		n.type = TREX_NODE_COMM_RECV;
		n.peer = (int32_t)((rank + ranks - 1) % ranks);
		n.comm_bytes = 1 << 20;
		n.name = names[3];
	} else if (i % 3 == 0) {
		n.flags = TREX_NODE_CPU;
		n.name = names[4];
	}
	return trex_graph_add_node(g, &n);
}

static struct trex_graph *bench_graph(uint32_t nodes, uint32_t ranks)
{
	struct trex_graph *g = trex_graph_new();
	const char *text[] = {"gemm", "all_reduce", "send", "recv", "aten::linear"};
	uint32_t names[5];
	for (int i = 0; i < 5; i++)
		names[i] = trex_graph_intern(g, text[i], strlen(text[i]));
	uint32_t world = trex_graph_intern(g, "world", 5);
	uint64_t per_rank = nodes / ranks;
	for (uint32_t r = 0; r < ranks; r++)
		for (uint64_t i = 0; i < per_rank; i++) {
			uint32_t v = bench_add(g, r, i, ranks, names, world);
			if (v == TREX_GRAPH_NONE ||
			    (i > 0 && trex_graph_add_dep(g, v, i - 1, TREX_DEP_DATA)) ||
			    (i > 2 && i % 3 != 0 &&
			     trex_graph_add_dep(g, v, i - 3, TREX_DEP_DATA))) {
				trex_graph_free(g);
				return NULL;
			}
		}
	return g;
}

int main(int argc, char **argv)
{
	uint32_t nodes = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 3000000;
	uint32_t ranks = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 64;
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	if (ranks == 0 || runs < 1 || runs > 100)
		return 1;
	double t0 = now_ms();
	struct trex_graph *g = bench_graph(nodes, ranks);
	struct trex_error err;
	if (!g)
		return 2;
	double t1 = now_ms();
	if (trex_graph_finish(g, &err) != TREX_OK)
		return 2;
	double t2 = now_ms();
	double times[100];
	struct trex_schedule s = {0};
	struct trex_schedule_opts o = {.bandwidth_gbps = TREX_SCHED_DEFAULT_BANDWIDTH_GBPS,
	                               .latency_ns = TREX_SCHED_DEFAULT_LATENCY_NS};
	for (int i = 0; i < runs; i++) {
		trex_schedule_free(&s);
		double a = now_ms();
		if (trex_schedule_compute(g, &o, &s, &err) != TREX_OK)
			return 2;
		times[i] = now_ms() - a;
	}
	printf(
	    "| graph | nodes | edges | matches | add ms | finish ms | schedule ms (median of %d) "
	    "| makespan ms | critical nodes | estimated |\n",
	    runs);
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	printf("| %u ranks | %u | %u | %u | %.0f | %.0f | %.0f | %.3f | %u | %u |\n", ranks,
	       trex_graph_node_count(g), trex_graph_edge_count(g), trex_graph_match_count(g),
	       t1 - t0, t2 - t1, median(times, runs), (double)s.makespan / 1e6, s.critical_count,
	       s.estimated);
	trex_schedule_free(&s);
	trex_graph_free(g);
	return 0;
}
