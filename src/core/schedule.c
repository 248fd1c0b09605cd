/* The ASAP list schedule of a dependency graph (schedule.h): one event
 * loop over node ends, one resource per (rank, class), each starting its
 * smallest ready node, and matched communication held until every member
 * has arrived. Then the critical path by predecessor chain and the slack
 * by a backward pass in reverse start order. */
#include "config.h"

#include "trex/core/schedule.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "trex/core/grow.h"

enum sched_class { SCHED_HOST, SCHED_COMPUTE, SCHED_COMM, SCHED_CLASSES };

struct sched_resource {
	struct graph_heap ready; /* its ready nodes, smallest id first */
	int64_t free_at;         /* when the last node on it ended */
	uint32_t last_ended;     /* that node, TREX_GRAPH_NONE */
	uint32_t last_started;   /* for the slack's resource order */
	bool busy;               /* running a node, or held by a member waiting for its peers */
	bool dirty;              /* on the dispatch list */
};

/* A node end in the event queue. */
struct sched_event {
	int64_t t;
	uint32_t node;
};

struct sched_match_state {
	uint32_t arrived;
	int64_t last_arrival;
	uint32_t last_member; /* the member that arrived last */
	bool started;
	bool slack_done;
};

struct sched_run {
	const struct trex_graph *g;
	const struct trex_schedule_opts *opts;
	struct trex_schedule *s;
	uint32_t *resource;  /* per node */
	uint32_t *remaining; /* per node: ordering parents not yet ended */
	int64_t *ready_at;
	uint32_t *last_parent; /* the parent that ended last */
	uint32_t *res_next;    /* the next node started on its resource */
	uint32_t *sequence;    /* nodes in the order they started */
	uint32_t started;
	struct sched_resource *res;
	uint32_t res_count;
	uint32_t *dirty; /* resources to dispatch */
	uint32_t dirty_n;
	struct sched_event *events;
	size_t event_n;
	struct sched_match_state *match;
	uint32_t *waiting; /* matches with members held, oldest first */
	uint32_t waiting_n;
};

/* ---- heaps ---------------------------------------------------------------------------------- */

static bool sched_event_before(const struct sched_event *a, const struct sched_event *b)
{
	return a->t < b->t || (a->t == b->t && a->node < b->node);
}

static void sched_event_push(struct sched_run *r, int64_t t, uint32_t node)
{
	struct sched_event e = {.t = t, .node = node}, *v = r->events;
	size_t i = r->event_n++;
	while (i > 0 && sched_event_before(&e, &v[(i - 1) / 2])) {
		v[i] = v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	v[i] = e;
}

static struct sched_event sched_event_pop(struct sched_run *r)
{
	struct sched_event *v = r->events, top = v[0], last = v[--r->event_n];
	size_t i = 0, n = r->event_n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && sched_event_before(&v[c + 1], &v[c]))
			c++;
		if (!sched_event_before(&v[c], &last))
			break;
		v[i] = v[c];
		i = c;
	}
	if (n)
		v[i] = last;
	return top;
}

/* ---- durations ----------------------------------------------------------------------------- */

/* The share of its bytes a collective moves per rank, for n ranks. */
static double sched_traffic_factor(enum trex_collective c, uint32_t n)
{
	double m = n ? (double)(n - 1) / n : 0;
	switch (c) {
	case TREX_COLLECTIVE_ALL_REDUCE:
		return 2 * m;
	case TREX_COLLECTIVE_BARRIER:
		return 0;
	case TREX_COLLECTIVE_BROADCAST:
	case TREX_COLLECTIVE_REDUCE:
	case TREX_COLLECTIVE_NONE: /* a send or receive moves its bytes once */
		return 1;
	default: /* all-gather, gather, scatter, reduce-scatter, all-to-all */
		return m;
	}
}

static bool sched_is_comm(const struct trex_graph_node *n)
{
	return n->type == TREX_NODE_COMM_SEND || n->type == TREX_NODE_COMM_RECV ||
	       n->type == TREX_NODE_COMM_COLL;
}

/* The ranks a communication node's operation spans. */
static uint32_t sched_comm_ranks(const struct trex_graph *g, const struct trex_graph_node *n)
{
	uint32_t count = 0;
	if (n->type != TREX_NODE_COMM_COLL)
		return 2;
	trex_graph_group_ranks(g, n->group, &count);
	if (n->match != TREX_GRAPH_NONE && trex_graph_match(g, n->match)->count > count)
		count = trex_graph_match(g, n->match)->count;
	return count ? count : 1;
}

int64_t trex_schedule_estimate(const struct trex_graph *g, uint32_t node,
                               const struct trex_schedule_opts *opts)
{
	const struct trex_graph_node *n = trex_graph_node(g, node);
	double bytes = n->comm_bytes > 0 ? (double)n->comm_bytes : 0;
	double gbps =
	    opts->bandwidth_gbps > 0 ? opts->bandwidth_gbps : TREX_SCHED_DEFAULT_BANDWIDTH_GBPS;
	int64_t latency = opts->latency_ns >= 0 ? opts->latency_ns : TREX_SCHED_DEFAULT_LATENCY_NS;
	double moved = bytes * sched_traffic_factor(n->collective, sched_comm_ranks(g, n));
	return latency + (int64_t)ceil(moved / gbps);
}

static void sched_durations(struct sched_run *r)
{
	const struct trex_graph *g = r->g;
	for (uint32_t v = 0; v < g->node_count; v++) {
		const struct trex_graph_node *n = &g->nodes[v];
		if (n->dur >= 0) {
			r->s->dur[v] = n->dur;
		} else if (sched_is_comm(n)) {
			r->s->dur[v] = trex_schedule_estimate(g, v, r->opts);
			r->s->flags[v] |= TREX_SCHED_ESTIMATED;
			r->s->estimated++;
		} else {
			r->s->dur[v] = 0;
		}
	}
}

/* ---- the event loop ------------------------------------------------------------------------ */

static void sched_mark_dirty(struct sched_run *r, uint32_t res)
{
	if (!r->res[res].dirty) {
		r->res[res].dirty = true;
		r->dirty[r->dirty_n++] = res;
	}
}

static bool sched_make_ready(struct sched_run *r, uint32_t v)
{
	uint32_t res = r->resource[v];
	sched_mark_dirty(r, res);
	return graph_heap_push(&r->res[res].ready, v);
}

/* Why v starts at t on its own: its last parent, its resource, or nothing. */
static void sched_own_cause(struct sched_run *r, uint32_t v, int64_t t)
{
	const struct sched_resource *res = &r->res[r->resource[v]];
	if (r->last_parent[v] != TREX_GRAPH_NONE && r->ready_at[v] == t) {
		r->s->cause[v] = TREX_CAUSE_PARENT;
		r->s->pred[v] = r->last_parent[v];
	} else if (res->last_ended != TREX_GRAPH_NONE && res->free_at == t) {
		r->s->cause[v] = TREX_CAUSE_RESOURCE;
		r->s->pred[v] = res->last_ended;
	}
}

static void sched_start(struct sched_run *r, uint32_t v, int64_t t)
{
	struct sched_resource *res = &r->res[r->resource[v]];
	res->busy = true;
	if (res->last_started != TREX_GRAPH_NONE)
		r->res_next[res->last_started] = v;
	res->last_started = v;
	r->s->start[v] = t;
	r->sequence[r->started++] = v;
	sched_event_push(r, t + r->s->dur[v], v);
}

/* Starts the members of match m that have arrived, at the last arrival. */
static void sched_start_match(struct sched_run *r, uint32_t m)
{
	const struct trex_graph_match *mt = trex_graph_match(r->g, m);
	const uint32_t *members = trex_graph_match_members(r->g) + mt->first;
	struct sched_match_state *st = &r->match[m];
	st->started = true;
	for (uint32_t i = 0; i < mt->count; i++) {
		uint32_t v = members[i];
		if (r->s->start[v] == INT64_MIN) /* not arrived (a deadlock broken) */
			continue;
		if (v != st->last_member) {
			r->s->cause[v] = TREX_CAUSE_PEER;
			r->s->pred[v] = st->last_member;
		}
		sched_start(r, v, st->last_arrival);
	}
}

/* v, popped from its idle resource at t: starts, or arrives at its match. */
static void sched_dispatch_node(struct sched_run *r, uint32_t v, int64_t t)
{
	sched_own_cause(r, v, t);
	uint32_t m = r->g->nodes[v].match;
	const struct trex_graph_match *mt = m == TREX_GRAPH_NONE ? NULL : trex_graph_match(r->g, m);
	if (!mt || mt->count < 2 || r->match[m].started) {
		sched_start(r, v, t);
		return;
	}
	struct sched_match_state *st = &r->match[m];
	r->res[r->resource[v]].busy = true; /* held while it waits for its peers */
	r->s->start[v] = INT64_MIN + 1;     /* arrived, not started */
	if (st->arrived++ == 0)
		r->waiting[r->waiting_n++] = m;
	st->last_arrival = t;
	st->last_member = v;
	if (st->arrived == mt->count)
		sched_start_match(r, m);
}

static void sched_dispatch(struct sched_run *r, int64_t t)
{
	while (r->dirty_n) {
		struct sched_resource *res = &r->res[r->dirty[--r->dirty_n]];
		res->dirty = false;
		if (!res->busy && res->ready.n)
			sched_dispatch_node(r, (uint32_t)graph_heap_pop(&res->ready), t);
	}
}

/* v ended at t: frees its resource and readies the children it held. */
static bool sched_end(struct sched_run *r, uint32_t v, int64_t t)
{
	const struct trex_graph *g = r->g;
	struct sched_resource *res = &r->res[r->resource[v]];
	res->busy = false;
	res->free_at = t;
	res->last_ended = v;
	sched_mark_dirty(r, r->resource[v]);
	for (uint32_t i = g->out_first[v]; i < g->out_first[v + 1]; i++) {
		const struct trex_graph_edge *e = &g->edges[g->out_edges[i]];
		if ((e->flags & (TREX_DEP_ORDERS | TREX_DEP_BROKEN)) != TREX_DEP_ORDERS)
			continue;
		if (t > r->ready_at[e->to] || r->last_parent[e->to] == TREX_GRAPH_NONE) {
			r->ready_at[e->to] = t;
			r->last_parent[e->to] = v;
		}
		if (--r->remaining[e->to] == 0 && !sched_make_ready(r, e->to))
			return false;
	}
	return true;
}

/* Nothing runs but members wait for peers that wait in turn (members
 * matched across groups in different orders): the oldest waiting match
 * starts now with the members it has. */
static bool sched_break_deadlock(struct sched_run *r, int64_t now)
{
	for (uint32_t i = 0; i < r->waiting_n; i++) {
		uint32_t m = r->waiting[i];
		if (!r->match[m].started) {
			r->match[m].last_arrival = now;
			sched_start_match(r, m);
			return true;
		}
	}
	return false;
}

static enum trex_status sched_loop(struct sched_run *r, struct trex_error *err)
{
	int64_t now = 0;
	uint64_t steps = 0;
	for (;;) {
		sched_dispatch(r, now);
		if (r->event_n == 0 && !sched_break_deadlock(r, now))
			break;
		if (r->event_n == 0)
			continue;
		now = r->events[0].t;
		while (r->event_n && r->events[0].t == now)
			if (!sched_end(r, sched_event_pop(r).node, now))
				return trex_error_set(err, TREX_NOMEM, NULL, -1,
				                      "out of memory scheduling a graph");
		if ((steps++ & 0xffff) == 0 && r->opts->cancel && *r->opts->cancel)
			return trex_error_set(err, TREX_CANCELLED, NULL, -1, "cancelled");
	}
	return TREX_OK;
}

/* ---- setting up ---------------------------------------------------------------------------- */

static enum sched_class sched_class_of(const struct trex_graph_node *n)
{
	if (n->flags & TREX_NODE_CPU)
		return SCHED_HOST;
	return sched_is_comm(n) ? SCHED_COMM : SCHED_COMPUTE;
}

static bool sched_alloc(struct sched_run *r)
{
	size_t n = r->g->node_count ? r->g->node_count : 1;
	struct trex_schedule *s = r->s;
	s->start = malloc(n * sizeof(*s->start));
	s->dur = calloc(n, sizeof(*s->dur));
	s->slack = calloc(n, sizeof(*s->slack));
	s->pred = malloc(n * sizeof(*s->pred));
	s->cause = calloc(n, sizeof(*s->cause));
	s->flags = calloc(n, sizeof(*s->flags));
	r->resource = malloc(n * sizeof(*r->resource));
	r->remaining = calloc(n, sizeof(*r->remaining));
	r->ready_at = calloc(n, sizeof(*r->ready_at));
	r->last_parent = malloc(n * sizeof(*r->last_parent));
	r->res_next = malloc(n * sizeof(*r->res_next));
	r->sequence = malloc(n * sizeof(*r->sequence));
	r->events = malloc(n * sizeof(*r->events));
	r->res_count = r->g->distinct_ranks * SCHED_CLASSES;
	r->res = calloc(r->res_count ? r->res_count : 1, sizeof(*r->res));
	r->dirty = malloc((r->res_count ? r->res_count : 1) * sizeof(*r->dirty));
	size_t matches = r->g->match_count ? r->g->match_count : 1;
	r->match = calloc(matches, sizeof(*r->match));
	r->waiting = malloc(matches * sizeof(*r->waiting));
	return s->start && s->dur && s->slack && s->pred && s->cause && s->flags && r->resource &&
	       r->remaining && r->ready_at && r->last_parent && r->res_next && r->sequence &&
	       r->events && r->res && r->dirty && r->match && r->waiting;
}

static bool sched_init(struct sched_run *r)
{
	const struct trex_graph *g = r->g;
	for (uint32_t i = 0; i < r->res_count; i++)
		r->res[i].last_ended = r->res[i].last_started = TREX_GRAPH_NONE;
	uint32_t last_rank = 0, slot = TREX_GRAPH_NONE;
	for (uint32_t v = 0; v < g->node_count; v++) {
		const struct trex_graph_node *n = &g->nodes[v];
		if (slot == TREX_GRAPH_NONE || n->rank != last_rank) {
			last_rank = n->rank;
			slot = graph_find_u32(g->ranks, g->distinct_ranks, n->rank);
		}
		r->resource[v] = slot * SCHED_CLASSES + sched_class_of(n);
		r->s->start[v] = INT64_MIN;
		r->s->pred[v] = r->last_parent[v] = r->res_next[v] = TREX_GRAPH_NONE;
	}
	for (uint32_t e = 0; e < g->edge_count; e++)
		if ((g->edges[e].flags & (TREX_DEP_ORDERS | TREX_DEP_BROKEN)) == TREX_DEP_ORDERS)
			r->remaining[g->edges[e].to]++;
	for (uint32_t v = 0; v < g->node_count; v++)
		if (r->remaining[v] == 0 && !sched_make_ready(r, v))
			return false;
	return true;
}

static void sched_run_free(struct sched_run *r)
{
	for (uint32_t i = 0; r->res && i < r->res_count; i++)
		free(r->res[i].ready.v);
	free(r->res);
	free(r->resource);
	free(r->remaining);
	free(r->ready_at);
	free(r->last_parent);
	free(r->res_next);
	free(r->sequence);
	free(r->events);
	free(r->dirty);
	free(r->match);
	free(r->waiting);
}

/* ---- results ------------------------------------------------------------------------------- */

/* Nodes that never started (none should: cycles are cut, deadlocks broken) sit at 0. */
static void sched_place_unreached(struct sched_run *r)
{
	struct trex_schedule *s = r->s;
	for (uint32_t v = 0; v < s->node_count; v++) {
		if (s->start[v] > INT64_MIN + 1)
			continue;
		s->start[v] = 0;
		s->flags[v] |= TREX_SCHED_UNREACHED;
		s->cause[v] = TREX_CAUSE_NONE;
		s->pred[v] = TREX_GRAPH_NONE;
	}
}

static bool sched_critical_path(struct trex_schedule *s)
{
	uint32_t last = TREX_GRAPH_NONE;
	s->makespan = 0;
	for (uint32_t v = 0; v < s->node_count; v++)
		if (last == TREX_GRAPH_NONE || s->start[v] + s->dur[v] > s->makespan) {
			s->makespan = s->start[v] + s->dur[v];
			last = v;
		}
	uint32_t n = 0;
	for (uint32_t v = last; v != TREX_GRAPH_NONE; v = s->pred[v])
		n++;
	s->critical = malloc((n ? n : 1) * sizeof(*s->critical));
	if (!s->critical)
		return false;
	s->critical_count = n;
	for (uint32_t v = last; v != TREX_GRAPH_NONE; v = s->pred[v]) {
		s->critical[--n] = v;
		s->flags[v] |= TREX_SCHED_CRITICAL;
	}
	return true;
}

/* The latest v may end: before every ordering child and the next node
 * on its resource start at their latest, and by the makespan. */
static int64_t sched_latest_end(const struct sched_run *r, const int64_t *latest_start, uint32_t v)
{
	const struct trex_graph *g = r->g;
	int64_t le = r->s->makespan;
	for (uint32_t i = g->out_first[v]; i < g->out_first[v + 1]; i++) {
		const struct trex_graph_edge *e = &g->edges[g->out_edges[i]];
		if ((e->flags & (TREX_DEP_ORDERS | TREX_DEP_BROKEN)) == TREX_DEP_ORDERS &&
		    latest_start[e->to] < le)
			le = latest_start[e->to];
	}
	if (r->res_next[v] != TREX_GRAPH_NONE && latest_start[r->res_next[v]] < le)
		le = latest_start[r->res_next[v]];
	return le;
}

/* Whether v started together with its match's other members. */
static bool sched_synced(const struct sched_run *r, uint32_t v)
{
	uint32_t m = r->g->nodes[v].match;
	return m != TREX_GRAPH_NONE && r->match[m].started &&
	       (r->s->cause[v] == TREX_CAUSE_PEER || r->match[m].last_member == v);
}

/* The members of v's match that started together share the earliest of
 * their latest starts: none can start later than the others. Their
 * successors all started after them, so their latest starts are known. */
static void sched_slack_match(struct sched_run *r, int64_t *ls, uint32_t v)
{
	uint32_t m = r->g->nodes[v].match;
	const struct trex_graph_match *mt = trex_graph_match(r->g, m);
	const uint32_t *members = trex_graph_match_members(r->g) + mt->first;
	int64_t shared = INT64_MAX;
	for (uint32_t i = 0; i < mt->count; i++) {
		uint32_t u = members[i];
		int64_t own = sched_latest_end(r, ls, u) - r->s->dur[u];
		if (sched_synced(r, u) && own < shared)
			shared = own;
	}
	for (uint32_t i = 0; i < mt->count; i++)
		if (sched_synced(r, members[i]))
			ls[members[i]] = shared;
	r->match[m].slack_done = true;
}

/* Latest starts in reverse start order, where every successor of a node
 * (child, next on its resource) comes before it; slack = latest - start. */
static bool sched_slack(struct sched_run *r)
{
	struct trex_schedule *s = r->s;
	int64_t *ls = malloc((s->node_count ? s->node_count : 1) * sizeof(*ls));
	if (!ls)
		return false;
	for (uint32_t v = 0; v < s->node_count; v++)
		ls[v] = s->makespan - s->dur[v];
	for (uint32_t i = r->started; i-- > 0;) {
		uint32_t v = r->sequence[i];
		if (!sched_synced(r, v))
			ls[v] = sched_latest_end(r, ls, v) - s->dur[v];
		else if (!r->match[r->g->nodes[v].match].slack_done)
			sched_slack_match(r, ls, v);
	}
	for (uint32_t i = 0; i < r->started; i++) {
		uint32_t v = r->sequence[i];
		s->slack[v] = ls[v] - s->start[v];
	}
	free(ls);
	return true;
}

enum trex_status trex_schedule_compute(const struct trex_graph *g,
                                       const struct trex_schedule_opts *opts,
                                       struct trex_schedule *out, struct trex_error *err)
{
	memset(out, 0, sizeof(*out));
	out->node_count = g->node_count;
	struct sched_run r = {.g = g, .opts = opts, .s = out};
	out->bandwidth_gbps =
	    opts->bandwidth_gbps > 0 ? opts->bandwidth_gbps : TREX_SCHED_DEFAULT_BANDWIDTH_GBPS;
	out->latency_ns = opts->latency_ns >= 0 ? opts->latency_ns : TREX_SCHED_DEFAULT_LATENCY_NS;
	enum trex_status st = TREX_NOMEM;
	if (sched_alloc(&r) && sched_init(&r)) {
		sched_durations(&r);
		st = sched_loop(&r, err);
	} else {
		trex_error_set(err, st, NULL, -1, "out of memory scheduling %u nodes",
		               g->node_count);
	}
	if (st == TREX_OK) {
		sched_place_unreached(&r);
		if (!sched_critical_path(out) || !sched_slack(&r))
			st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory scheduling");
	}
	sched_run_free(&r);
	if (st != TREX_OK)
		trex_schedule_free(out);
	return st;
}

void trex_schedule_free(struct trex_schedule *s)
{
	if (!s)
		return;
	free(s->start);
	free(s->dur);
	free(s->slack);
	free(s->pred);
	free(s->cause);
	free(s->flags);
	free(s->critical);
	memset(s, 0, sizeof(*s));
}

const char *trex_sched_cause_label(enum trex_sched_cause cause)
{
	static const char *const labels[] = {"start", "dependency", "resource", "peer"};
	return (unsigned)cause < sizeof(labels) / sizeof(labels[0]) ? labels[cause] : "?";
}

int trex_schedule_describe(const struct trex_schedule *s, char *buf, size_t size)
{
	return snprintf(buf, size,
	                "times estimated from dependencies (bandwidth %g GB/s, latency %" PRId64
	                " ns; %u communication %s without a duration estimated)",
	                s->bandwidth_gbps, s->latency_ns, s->estimated,
	                s->estimated == 1 ? "node" : "nodes");
}
