/* The ASAP schedule of hand-built graphs whose times are worked out by
 * hand in the comments: chains, a diamond, resource serialisation, a
 * collective waiting for its slower rank, estimated communication,
 * send/receive, a cut cycle, a broken deadlock; the critical path and
 * the slack. */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "trex/core/schedule.h"

struct fixture {
	struct trex_graph *g;
	struct trex_schedule s;
};

static uint32_t add(struct trex_graph *g, uint32_t rank, uint64_t id, enum trex_node_type type,
                    int64_t dur, bool cpu)
{
	struct trex_graph_node n = {
	    .id = id,
	    .dur = dur,
	    .comm_bytes = -1,
	    .offset = -1,
	    .file = rank,
	    .rank = rank,
	    .peer = -1,
	    .type = (uint8_t)type,
	    .flags = cpu ? TREX_NODE_CPU : 0,
	};
	return trex_graph_add_node(g, &n);
}

static uint32_t add_coll(struct trex_graph *g, uint32_t rank, uint64_t id, enum trex_collective c,
                         int64_t dur, int64_t bytes, const char *group)
{
	struct trex_graph_node n = {
	    .id = id,
	    .dur = dur,
	    .comm_bytes = bytes,
	    .file = rank,
	    .rank = rank,
	    .group = trex_graph_intern(g, group, strlen(group)),
	    .peer = -1,
	    .type = TREX_NODE_COMM_COLL,
	    .collective = (uint8_t)c,
	};
	return trex_graph_add_node(g, &n);
}

static uint32_t add_p2p(struct trex_graph *g, enum trex_node_type type, uint32_t rank, uint64_t id,
                        int32_t peer, int64_t dur)
{
	struct trex_graph_node n = {.id = id,
	                            .dur = dur,
	                            .comm_bytes = 1000,
	                            .file = rank,
	                            .rank = rank,
	                            .peer = peer,
	                            .type = (uint8_t)type};
	return trex_graph_add_node(g, &n);
}

static void dep(struct trex_graph *g, uint32_t child, uint64_t parent_id)
{
	cr_assert_eq(trex_graph_add_dep(g, child, parent_id, TREX_DEP_DATA), 0);
}

static void schedule_opts(struct fixture *f, double gbps, int64_t latency)
{
	struct trex_error err;
	cr_assert_eq(trex_graph_finish(f->g, &err), TREX_OK);
	struct trex_schedule_opts o = {.bandwidth_gbps = gbps, .latency_ns = latency};
	cr_assert_eq(trex_schedule_compute(f->g, &o, &f->s, &err), TREX_OK, "%s", err.message);
}

static void schedule(struct fixture *f)
{
	schedule_opts(f, TREX_SCHED_DEFAULT_BANDWIDTH_GBPS, TREX_SCHED_DEFAULT_LATENCY_NS);
}

static void done(struct fixture *f)
{
	trex_schedule_free(&f->s);
	trex_graph_free(f->g);
}

static void expect(const struct fixture *f, uint32_t v, int64_t start, int64_t dur, int64_t slack)
{
	cr_expect_eq(f->s.start[v], start, "node %u starts at %ld, not %ld", v, (long)f->s.start[v],
	             (long)start);
	cr_expect_eq(f->s.dur[v], dur, "node %u lasts %ld, not %ld", v, (long)f->s.dur[v],
	             (long)dur);
	cr_expect_eq(f->s.slack[v], slack, "node %u has slack %ld, not %ld", v, (long)f->s.slack[v],
	             (long)slack);
}

static void expect_critical(const struct fixture *f, const uint32_t *path, uint32_t n)
{
	cr_assert_eq(f->s.critical_count, n);
	for (uint32_t i = 0; i < n; i++) {
		cr_expect_eq(f->s.critical[i], path[i], "critical[%u] = %u", i, f->s.critical[i]);
		cr_expect(f->s.flags[path[i]] & TREX_SCHED_CRITICAL);
	}
}

/* a(10) -> b(20) -> c(5): 0, 10, 30; makespan 35, all critical. */
Test(schedule, chain)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t a = add(f.g, 0, 1, TREX_NODE_COMP, 10, false);
	uint32_t b = add(f.g, 0, 2, TREX_NODE_COMP, 20, false);
	uint32_t c = add(f.g, 0, 3, TREX_NODE_COMP, 5, false);
	dep(f.g, b, 1);
	dep(f.g, c, 2);
	schedule(&f);
	expect(&f, a, 0, 10, 0);
	expect(&f, b, 10, 20, 0);
	expect(&f, c, 30, 5, 0);
	cr_assert_eq(f.s.makespan, 35);
	uint32_t path[] = {a, b, c};
	expect_critical(&f, path, 3);
	cr_assert_eq(f.s.cause[a], TREX_CAUSE_NONE);
	cr_assert_eq(f.s.cause[c], TREX_CAUSE_PARENT);
	cr_assert_eq(f.s.pred[c], b);
	cr_assert_eq(f.s.estimated, 0);
	done(&f);
}

/* a(10) -> {b(20) compute, c(5) host} -> d(1): b and c both at 10 on
 * their own resources, d at 30 after b; c could end 15 ns later. */
Test(schedule, diamond)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t a = add(f.g, 0, 1, TREX_NODE_COMP, 10, false);
	uint32_t b = add(f.g, 0, 2, TREX_NODE_COMP, 20, false);
	uint32_t c = add(f.g, 0, 3, TREX_NODE_COMP, 5, true);
	uint32_t d = add(f.g, 0, 4, TREX_NODE_COMP, 1, false);
	dep(f.g, b, 1);
	dep(f.g, c, 1);
	dep(f.g, d, 2);
	dep(f.g, d, 3);
	schedule(&f);
	expect(&f, a, 0, 10, 0);
	expect(&f, b, 10, 20, 0);
	expect(&f, c, 10, 5, 15);
	expect(&f, d, 30, 1, 0);
	cr_assert_eq(f.s.makespan, 31);
	uint32_t path[] = {a, b, d};
	expect_critical(&f, path, 3);
	cr_assert_not(f.s.flags[c] & TREX_SCHED_CRITICAL);
	done(&f);
}

/* Three ready compute nodes share rank 0's compute resource in id order
 * (x first although y is shorter); the host node h runs beside them. */
Test(schedule, one_resource_runs_one_node_at_a_time)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t x = add(f.g, 0, 1, TREX_NODE_COMP, 10, false);
	uint32_t y = add(f.g, 0, 2, TREX_NODE_MEM_LOAD, 1, false);
	uint32_t z = add(f.g, 0, 3, TREX_NODE_COMP, 10, false);
	uint32_t h = add(f.g, 0, 4, TREX_NODE_COMP, 5, true);
	uint32_t other = add(f.g, 1, 1, TREX_NODE_COMP, 7, false); /* rank 1: its own resource */
	schedule(&f);
	expect(&f, x, 0, 10, 0);
	expect(&f, y, 10, 1, 0);
	expect(&f, z, 11, 10, 0);
	expect(&f, h, 0, 5, 16);
	expect(&f, other, 0, 7, 14);
	cr_assert_eq(f.s.cause[y], TREX_CAUSE_RESOURCE);
	cr_assert_eq(f.s.pred[y], x);
	cr_assert_eq(f.s.pred[z], y);
	cr_assert_eq(f.s.makespan, 21);
	uint32_t path[] = {x, y, z};
	expect_critical(&f, path, 3);
	done(&f);
}

/* Rank 0 is ready for the all-reduce at 10, rank 1 at 30: both run it
 * 30..35; rank 0's member waited for its peer, and a has 20 ns of slack. */
Test(schedule, a_collective_waits_for_its_slower_rank)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t a = add(f.g, 0, 1, TREX_NODE_COMP, 10, false);
	uint32_t ar0 = add_coll(f.g, 0, 2, TREX_COLLECTIVE_ALL_REDUCE, 5, 64, "dp");
	uint32_t b = add(f.g, 1, 1, TREX_NODE_COMP, 30, false);
	uint32_t ar1 = add_coll(f.g, 1, 2, TREX_COLLECTIVE_ALL_REDUCE, 5, 64, "dp");
	dep(f.g, ar0, 1);
	dep(f.g, ar1, 1);
	schedule(&f);
	expect(&f, a, 0, 10, 20);
	expect(&f, b, 0, 30, 0);
	expect(&f, ar0, 30, 5, 0);
	expect(&f, ar1, 30, 5, 0);
	cr_assert_eq(f.s.cause[ar0], TREX_CAUSE_PEER);
	cr_assert_eq(f.s.pred[ar0], ar1);
	cr_assert_eq(f.s.cause[ar1], TREX_CAUSE_PARENT);
	cr_assert_eq(f.s.makespan, 35);
	uint32_t path[] = {b, ar1, ar0};
	expect_critical(&f, path, 3);
	done(&f);
}

/* No durations: all-reduce of 1 MB over 2 ranks moves 2(n-1)/n = 1 x
 * 1e6 B at 50 B/ns = 20000 ns + 500 latency; all-gather of 4000 B over 4
 * ranks moves 3/4 x 4000 = 3000 B = 60 ns + 500; a barrier is latency. */
Test(schedule, communication_without_duration_is_estimated)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t ar[2], ag[4], bar[2];
	for (uint32_t r = 0; r < 2; r++)
		ar[r] = add_coll(f.g, r, 1, TREX_COLLECTIVE_ALL_REDUCE, TREX_GRAPH_DUR_UNKNOWN,
		                 1000000, "dp");
	for (uint32_t r = 0; r < 4; r++)
		ag[r] = add_coll(f.g, r, 2, TREX_COLLECTIVE_ALL_GATHER, TREX_GRAPH_DUR_UNKNOWN,
		                 4000, "world");
	for (uint32_t r = 0; r < 2; r++)
		bar[r] = add_coll(f.g, r, 3, TREX_COLLECTIVE_BARRIER, TREX_GRAPH_DUR_UNKNOWN,
		                  1 << 20, "dp");
	uint32_t comp = add(f.g, 0, 4, TREX_NODE_COMP, TREX_GRAPH_DUR_UNKNOWN, false);
	schedule(&f);
	cr_assert_eq(f.s.dur[ar[0]], 20500);
	cr_assert_eq(f.s.dur[ag[3]], 560);
	cr_assert_eq(f.s.dur[bar[1]], 500);
	cr_assert_eq(f.s.dur[comp], 0);
	cr_assert(f.s.flags[ar[1]] & TREX_SCHED_ESTIMATED);
	cr_assert_not(f.s.flags[comp] & TREX_SCHED_ESTIMATED);
	cr_assert_eq(f.s.estimated, 8);
	/* rank 0's comm resource: all-reduce 0..20500, all-gather (which ranks
	 * 2 and 3 were ready for at 0) 20500..21060, barrier 21060..21560 */
	cr_assert_eq(f.s.start[ag[2]], 20500);
	cr_assert_eq(f.s.start[bar[1]], 21060);
	cr_assert_eq(f.s.makespan, 21560);
	struct trex_schedule_opts o = {.bandwidth_gbps = 100, .latency_ns = 0};
	cr_assert_eq(trex_schedule_estimate(f.g, ar[0], &o), 10000);
	done(&f);
}

Test(schedule, bandwidth_and_latency_are_the_callers)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t s = add_p2p(f.g, TREX_NODE_COMM_SEND, 0, 1, 1, TREX_GRAPH_DUR_UNKNOWN);
	add_p2p(f.g, TREX_NODE_COMM_RECV, 1, 1, 0, TREX_GRAPH_DUR_UNKNOWN);
	schedule_opts(&f, 2.0, 100); /* 1000 B at 2 B/ns + 100 */
	cr_assert_eq(f.s.dur[s], 600);
	cr_assert_eq(f.s.makespan, 600);
	done(&f);
}

/* The receive on rank 1 is ready at 0, the send after c0 at 100: the
 * transfer runs 100..110 on both. */
Test(schedule, a_receive_starts_with_its_send)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t c0 = add(f.g, 0, 1, TREX_NODE_COMP, 100, false);
	uint32_t send = add_p2p(f.g, TREX_NODE_COMM_SEND, 0, 2, 1, 10);
	uint32_t recv = add_p2p(f.g, TREX_NODE_COMM_RECV, 1, 1, 0, 10);
	uint32_t after = add(f.g, 1, 2, TREX_NODE_COMP, 3, false);
	dep(f.g, send, 1);
	dep(f.g, after, 1);
	schedule(&f);
	expect(&f, c0, 0, 100, 0);
	expect(&f, send, 100, 10, 0);
	expect(&f, recv, 100, 10, 0);
	expect(&f, after, 110, 3, 0);
	cr_assert_eq(f.s.cause[recv], TREX_CAUSE_PEER);
	cr_assert_eq(f.s.pred[recv], send);
	uint32_t path[] = {c0, send, recv, after};
	expect_critical(&f, path, 4);
	done(&f);
}

/* An unmatched send runs alone. */
Test(schedule, a_lone_send_runs_alone)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t send = add_p2p(f.g, TREX_NODE_COMM_SEND, 0, 1, 3, 10);
	schedule(&f);
	expect(&f, send, 0, 10, 0);
	done(&f);
}

/* a <-> b: a's in-edge is cut, so a 0..10, b 10..20. */
Test(schedule, a_cut_cycle_is_scheduled)
{
	struct fixture f = {.g = trex_graph_new()};
	uint32_t a = add(f.g, 0, 1, TREX_NODE_COMP, 10, false);
	uint32_t b = add(f.g, 0, 2, TREX_NODE_COMP, 10, false);
	dep(f.g, a, 2);
	dep(f.g, b, 1);
	schedule(&f);
	expect(&f, a, 0, 10, 0);
	expect(&f, b, 10, 10, 0);
	cr_assert_eq(f.s.cause[b], TREX_CAUSE_PARENT);
	cr_assert_not(f.s.flags[a] & TREX_SCHED_UNREACHED);
	done(&f);
}

/* Rank 0 runs collective p then q, rank 1 q' then p' (a data dep each):
 * p waits for p', which waits for q', which waits for q, which waits for
 * p. The oldest waiting collective starts alone at 0 (0..10), which
 * readies the other's last member: it runs 10..20 on both ranks, and the
 * first one's late member runs alone 20..30. */
Test(schedule, a_deadlock_of_mismatched_collectives_is_broken)
{
	struct fixture f = {.g = trex_graph_new()};
	add_coll(f.g, 0, 1, TREX_COLLECTIVE_ALL_REDUCE, 10, 8, "p");
	uint32_t q = add_coll(f.g, 0, 2, TREX_COLLECTIVE_ALL_REDUCE, 10, 8, "q");
	add_coll(f.g, 1, 1, TREX_COLLECTIVE_ALL_REDUCE, 10, 8, "q");
	uint32_t p1 = add_coll(f.g, 1, 2, TREX_COLLECTIVE_ALL_REDUCE, 10, 8, "p");
	dep(f.g, q, 1);
	dep(f.g, p1, 1);
	schedule(&f);
	for (uint32_t v = 0; v < 4; v++) {
		cr_assert_not(f.s.flags[v] & TREX_SCHED_UNREACHED, "node %u", v);
		cr_assert_geq(f.s.start[v], 0);
		cr_assert_geq(f.s.slack[v], 0);
	}
	cr_assert_eq(f.s.makespan, 30);
	done(&f);
}

Test(schedule, cancel_stops_it)
{
	struct fixture f = {.g = trex_graph_new()};
	add(f.g, 0, 1, TREX_NODE_COMP, 10, false);
	struct trex_error err;
	cr_assert_eq(trex_graph_finish(f.g, &err), TREX_OK);
	volatile sig_atomic_t cancel = 1;
	struct trex_schedule_opts o = {.bandwidth_gbps = 50, .latency_ns = 500, .cancel = &cancel};
	cr_assert_eq(trex_schedule_compute(f.g, &o, &f.s, &err), TREX_CANCELLED);
	cr_assert_null(f.s.start);
	done(&f);
}

Test(schedule, an_empty_graph)
{
	struct fixture f = {.g = trex_graph_new()};
	schedule(&f);
	cr_assert_eq(f.s.makespan, 0);
	cr_assert_eq(f.s.critical_count, 0);
	done(&f);
}
