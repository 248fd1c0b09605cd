#include "config.h"

#include "trex/load/graph_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum timeline_lane { LANE_HOST, LANE_COMPUTE, LANE_COMM, LANES };

static const char *const lane_names[LANES] = {"host", "compute", "comm"};

/* The rank whose tracks were made last in a builder (nodes of a rank come in runs). */
struct timeline_rank {
	struct trex_builder *b;
	uint32_t rank, pid;
	uint32_t track[LANES]; /* TREX_NONE until used */
};

static enum timeline_lane timeline_lane(const struct trex_graph_node *n)
{
	if (n->flags & TREX_NODE_CPU)
		return LANE_HOST;
	if (n->type == TREX_NODE_COMM_SEND || n->type == TREX_NODE_COMM_RECV ||
	    n->type == TREX_NODE_COMM_COLL)
		return LANE_COMM;
	return LANE_COMPUTE;
}

static enum trex_kind timeline_kind(const struct trex_graph_node *n)
{
	if (n->flags & TREX_NODE_CPU)
		return TREX_KIND_CPU_OP;
	if (n->type == TREX_NODE_MEM_LOAD || n->type == TREX_NODE_MEM_STORE)
		return TREX_KIND_MEMCPY;
	return TREX_KIND_KERNEL;
}

static uint32_t timeline_intern(struct trex_builder *b, const char *s)
{
	return trex_builder_intern(b, s, strlen(s));
}

/* Rank n's process: named "rank N", with rank N, sorted by N. */
static bool timeline_process(struct timeline_rank *r, struct trex_builder *b, uint32_t rank)
{
	char text[32];
	snprintf(text, sizeof(text), "%u", rank);
	r->b = b;
	r->rank = rank;
	r->pid = timeline_intern(b, text);
	for (int l = 0; l < LANES; l++)
		r->track[l] = TREX_NONE;
	snprintf(text, sizeof(text), "rank %u", rank);
	uint32_t name = timeline_intern(b, text);
	return r->pid != TREX_STR_ERROR && name != TREX_STR_ERROR &&
	       trex_builder_process_name(b, r->pid, name) == 0 &&
	       trex_builder_process_rank(b, r->pid, rank) == 0 &&
	       trex_builder_process_sort_index(b, r->pid, rank) == 0;
}

static uint32_t timeline_track(struct timeline_rank *r, enum timeline_lane lane)
{
	if (r->track[lane] != TREX_NONE)
		return r->track[lane];
	uint32_t key = timeline_intern(r->b, lane_names[lane]);
	uint32_t t = trex_builder_named_track(r->b, r->pid, key, TREX_NONE);
	if (t != TREX_NONE && trex_builder_thread_sort_index(r->b, t, lane) != 0)
		t = TREX_NONE;
	return r->track[lane] = t;
}

/* Node v as a slice of b; its handle, or TREX_HANDLE_NONE when out of memory. */
static trex_handle timeline_slice(const struct trex_graph *g, const struct trex_schedule *s,
                                  struct timeline_rank *r, uint32_t v)
{
	const struct trex_graph_node *n = trex_graph_node(g, v);
	uint32_t track = timeline_track(r, timeline_lane(n));
	struct trex_ev ev = {
	    .ts = s->start[v],
	    .dur = s->dur[v],
	    .name = timeline_intern(r->b, trex_graph_str(g, n->name)),
	    .cat = timeline_intern(r->b, trex_node_type_label((enum trex_node_type)n->type)),
	    .args = n->attrs,
	    .kind = (uint8_t)timeline_kind(n),
	};
	if (track == TREX_NONE || ev.name == TREX_STR_ERROR || ev.cat == TREX_STR_ERROR)
		return TREX_HANDLE_NONE;
	trex_builder_at(r->b, n->offset);
	trex_handle h = trex_builder_complete(r->b, track, &ev);
	if (h != TREX_HANDLE_NONE && trex_builder_graph_node(r->b, h, v) != 0)
		return TREX_HANDLE_NONE;
	return h;
}

static enum trex_status timeline_nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory drawing the graph");
}

/* Each ordering, unbroken dependency between two drawn nodes of one file. */
static enum trex_status timeline_edges(const struct trex_graph *g, const uint32_t *handle,
                                       struct trex_builder *const *builders, uint32_t file_count,
                                       struct trex_error *err)
{
	for (uint32_t e = 0; e < trex_graph_edge_count(g); e++) {
		const struct trex_graph_edge *d = trex_graph_edge(g, e);
		uint32_t file = trex_graph_node(g, d->to)->file;
		if ((d->flags & (TREX_DEP_ORDERS | TREX_DEP_BROKEN)) != TREX_DEP_ORDERS ||
		    file >= file_count || !builders[file] || handle[d->from] == TREX_HANDLE_NONE ||
		    handle[d->to] == TREX_HANDLE_NONE || d->from == d->to)
			continue;
		if (trex_builder_edge(builders[file], handle[d->from], handle[d->to],
		                      TREX_EDGE_DEPENDENCY) != 0)
			return timeline_nomem(err);
	}
	return TREX_OK;
}

enum trex_status trex_graph_timeline_draw(const struct trex_graph *g, const struct trex_schedule *s,
                                          struct trex_builder *const *builders, uint32_t file_count,
                                          volatile sig_atomic_t *cancel, struct trex_error *err)
{
	uint32_t n = trex_graph_node_count(g);
	uint32_t *handle = malloc((n ? n : 1) * sizeof(*handle));
	struct timeline_rank r = {.b = NULL};
	if (!handle)
		return timeline_nomem(err);
	enum trex_status st = TREX_OK;
	for (uint32_t v = 0; st == TREX_OK && v < n; v++) {
		const struct trex_graph_node *node = trex_graph_node(g, v);
		struct trex_builder *b = node->file < file_count ? builders[node->file] : NULL;
		handle[v] = TREX_HANDLE_NONE;
		if (!b)
			continue;
		if ((r.b != b || r.rank != node->rank) && !timeline_process(&r, b, node->rank))
			st = timeline_nomem(err);
		else if ((handle[v] = timeline_slice(g, s, &r, v)) == TREX_HANDLE_NONE)
			st = timeline_nomem(err);
		else if ((v & 0xffff) == 0 && cancel && *cancel)
			st = trex_error_set(err, TREX_CANCELLED, NULL, -1, "cancelled");
	}
	if (st == TREX_OK)
		st = timeline_edges(g, handle, builders, file_count, err);
	free(handle);
	return st;
}

/* The files' graphs joined in file order into one, finished. */
static enum trex_status timeline_join(struct trex_graph **graphs, uint32_t file_count,
                                      struct trex_graph **out, struct trex_error *err)
{
	struct trex_graph *g = NULL;
	bool ok = true;
	for (uint32_t f = 0; f < file_count; f++) {
		if (!graphs[f])
			continue;
		if (!g && ok)
			ok = (g = trex_graph_new()) != NULL;
		trex_graph_set_file(graphs[f], f);
		ok = ok && trex_graph_append(g, graphs[f]) == 0;
		if (!ok)
			trex_graph_free(graphs[f]);
		graphs[f] = NULL;
	}
	*out = NULL;
	if (!ok) {
		trex_graph_free(g);
		return timeline_nomem(err);
	}
	enum trex_status st = g ? trex_graph_finish(g, err) : TREX_OK;
	if (st != TREX_OK)
		trex_graph_free(g);
	else
		*out = g;
	return st;
}

static void timeline_free_builders(struct trex_builder **builders, uint32_t file_count)
{
	for (uint32_t f = 0; f < file_count; f++) {
		trex_builder_free(builders[f]);
		builders[f] = NULL;
	}
}

/* A builder for each file that has a graph; false when out of memory. */
static bool timeline_builders(struct trex_graph *const *graphs, uint32_t file_count,
                              struct trex_builder **builders)
{
	bool ok = true;
	for (uint32_t f = 0; f < file_count; f++) {
		builders[f] = ok && graphs[f] ? trex_builder_new(f) : NULL;
		ok = ok && (!graphs[f] || builders[f]);
	}
	return ok;
}

enum trex_status trex_graph_timeline(struct trex_graph **graphs, uint32_t file_count,
                                     const struct trex_schedule_opts *opts,
                                     struct trex_builder **builders, struct trex_graph **out,
                                     struct trex_error *err)
{
	struct trex_graph *g = NULL;
	bool made = timeline_builders(graphs, file_count, builders);
	enum trex_status st = timeline_join(graphs, file_count, &g, err);
	*out = NULL;
	if (st == TREX_OK && !made)
		st = timeline_nomem(err);
	struct trex_schedule s = {0};
	if (st == TREX_OK && g)
		st = trex_schedule_compute(g, opts, &s, err);
	if (st == TREX_OK && g)
		st = trex_graph_timeline_draw(g, &s, builders, file_count, opts->cancel, err);
	if (st == TREX_OK && g && trex_graph_set_schedule(g, &s) != 0)
		st = timeline_nomem(err);
	if (st == TREX_OK) {
		*out = g;
		return TREX_OK;
	}
	trex_schedule_free(&s);
	timeline_free_builders(builders, file_count);
	trex_graph_free(g);
	return st;
}
