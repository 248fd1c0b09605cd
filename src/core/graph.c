#include "config.h"

#include "trex/core/graph.h"

#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "trex/core/grow.h"
#include "trex/core/schedule.h"

const char *trex_node_type_label(enum trex_node_type type)
{
	static const char *const labels[] = {
#define TREX_NODE_TYPE_LABEL(name, label) label,
	    TREX_NODE_TYPE_INFO(TREX_NODE_TYPE_LABEL)
#undef TREX_NODE_TYPE_LABEL
	};
	return (unsigned)type < TREX_NODE_TYPE_COUNT ? labels[type] : "?";
}

const char *trex_collective_label(enum trex_collective c)
{
	static const char *const labels[] = {
#define TREX_COLLECTIVE_LABEL(name, label) label,
	    TREX_COLLECTIVE_INFO(TREX_COLLECTIVE_LABEL)
#undef TREX_COLLECTIVE_LABEL
	};
	return (unsigned)c < TREX_COLLECTIVE_COUNT ? labels[c] : "?";
}

/* ---- building ------------------------------------------------------------------------- */

struct trex_graph *trex_graph_new(void)
{
	struct trex_graph *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->strs = trex_strtab_new();
	if (!g->strs) {
		free(g);
		return NULL;
	}
	return g;
}

static void graph_free_finished(struct trex_graph *g)
{
	free(g->edges);
	free(g->in_first);
	free(g->in_edges);
	free(g->out_first);
	free(g->out_edges);
	free(g->topo);
	free(g->ranks);
	free(g->rank_first);
	free(g->rank_node_list);
	free(g->matches);
	free(g->members);
	free(g->groups);
	free(g->group_ranks);
	free(g->problems);
	free(g->slice_node);
	trex_schedule_free(g->schedule);
	free(g->schedule);
}

void trex_graph_free(struct trex_graph *g)
{
	if (!g)
		return;
	trex_strtab_free(g->strs);
	free(g->nodes);
	free(g->deps);
	free(g->set_ranks);
	graph_free_finished(g);
	free(g);
}

uint32_t trex_graph_intern(struct trex_graph *g, const char *s, size_t len)
{
	if (g->finished)
		return TREX_GRAPH_NONE;
	uint32_t id = trex_strtab_intern(g->strs, s, len);
	return id == TREX_STR_ERROR ? TREX_GRAPH_NONE : id;
}

uint32_t trex_graph_add_node(struct trex_graph *g, const struct trex_graph_node *n)
{
	if (g->finished || g->node_count == TREX_GRAPH_NONE - 1)
		return TREX_GRAPH_NONE;
	struct trex_graph_node *v =
	    trex_grow(g->nodes, &g->node_cap, (size_t)g->node_count + 1, sizeof(*v), 1024);
	if (!v)
		return TREX_GRAPH_NONE;
	g->nodes = v;
	struct trex_graph_node *d = &v[g->node_count];
	*d = *n;
	d->match = TREX_GRAPH_NONE;
	d->slice = TREX_GRAPH_NONE;
	d->flags = n->flags & TREX_NODE_CPU;
	/* a loader's slip must not become an out-of-range read later */
	uint32_t strings = trex_strtab_count(g->strs);
	if (d->name >= strings)
		d->name = 0;
	if (d->group >= strings)
		d->group = 0;
	if (d->type >= TREX_NODE_TYPE_COUNT)
		d->type = TREX_NODE_OTHER;
	if (d->collective >= TREX_COLLECTIVE_COUNT || d->type != TREX_NODE_COMM_COLL)
		d->collective = TREX_COLLECTIVE_NONE;
	return g->node_count++;
}

int trex_graph_add_dep(struct trex_graph *g, uint32_t node, uint64_t parent_id,
                       enum trex_dep_kind kind)
{
	if (g->finished || node >= g->node_count)
		return -1;
	struct graph_pending_dep *v =
	    trex_grow(g->deps, &g->dep_cap, g->dep_count + 1, sizeof(*v), 1024);
	if (!v)
		return -1;
	g->deps = v;
	v[g->dep_count++] =
	    (struct graph_pending_dep){.parent_id = parent_id,
	                               .node = node,
	                               .kind = kind == TREX_DEP_CTRL ? TREX_DEP_CTRL : 0};
	return 0;
}

int trex_graph_set_group_ranks(struct trex_graph *g, uint32_t group, const uint32_t *ranks,
                               size_t count)
{
	if (g->finished)
		return -1;
	if (count == 0)
		return 0;
	struct graph_group_rank *v =
	    trex_grow(g->set_ranks, &g->set_cap, g->set_count + count, sizeof(*v), 64);
	if (!v)
		return -1;
	g->set_ranks = v;
	for (size_t i = 0; i < count; i++)
		v[g->set_count++] = (struct graph_group_rank){.group = group, .rank = ranks[i]};
	return 0;
}

/* src's string ids as g's. */
static uint32_t *graph_map_strings(struct trex_graph *g, const struct trex_graph *src)
{
	uint32_t n = trex_strtab_count(src->strs);
	uint32_t *map = malloc((size_t)n * sizeof(*map));
	if (!map)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		size_t len;
		const char *s = trex_strtab_get(src->strs, i, &len);
		map[i] = trex_strtab_intern(g->strs, s, len);
		if (map[i] == TREX_STR_ERROR) {
			free(map);
			return NULL;
		}
	}
	return map;
}

static bool graph_append_items(struct trex_graph *g, const struct trex_graph *src,
                               const uint32_t *map)
{
	size_t nodes = (size_t)g->node_count + src->node_count;
	if (nodes >= TREX_GRAPH_NONE)
		return false;
	/* trex_grow hands back NULL for an array that is empty and stays so */
	struct trex_graph_node *nv = trex_grow(g->nodes, &g->node_cap, nodes, sizeof(*nv), 1024);
	if (!nv && nodes)
		return false;
	g->nodes = nv;
	struct graph_pending_dep *dv =
	    trex_grow(g->deps, &g->dep_cap, g->dep_count + src->dep_count, sizeof(*dv), 1024);
	if (!dv && g->dep_count + src->dep_count)
		return false;
	g->deps = dv;
	struct graph_group_rank *sv =
	    trex_grow(g->set_ranks, &g->set_cap, g->set_count + src->set_count, sizeof(*sv), 64);
	if (!sv && g->set_count + src->set_count)
		return false;
	g->set_ranks = sv;
	uint32_t base = g->node_count;
	for (uint32_t i = 0; i < src->node_count; i++) {
		struct trex_graph_node n = src->nodes[i];
		n.name = map[n.name];
		n.group = map[n.group];
		nv[g->node_count++] = n;
	}
	for (size_t i = 0; i < src->dep_count; i++) {
		dv[g->dep_count] = src->deps[i];
		dv[g->dep_count++].node += base;
	}
	for (size_t i = 0; i < src->set_count; i++)
		sv[g->set_count++] = (struct graph_group_rank){
		    .group = map[src->set_ranks[i].group], .rank = src->set_ranks[i].rank};
	return true;
}

int trex_graph_append(struct trex_graph *g, struct trex_graph *src)
{
	if (!src)
		return 0;
	bool ok = !g->finished && !src->finished;
	uint32_t *map = ok ? graph_map_strings(g, src) : NULL;
	ok = map && graph_append_items(g, src, map);
	free(map);
	trex_graph_free(src);
	return ok ? 0 : -1;
}

void graph_problem(struct trex_graph *g, uint32_t file, enum trex_graph_problem_kind kind,
                   uint32_t node, uint64_t other_id)
{
	if (file >= g->file_count)
		return;
	struct graph_file_problems *p = &g->problems[file];
	p->count[kind]++;
	if (p->examples[kind] < TREX_GRAPH_EXAMPLES)
		p->example[kind][p->examples[kind]++] =
		    (struct trex_graph_problem){.node = node, .other_id = other_id};
}

static bool graph_alloc_problems(struct trex_graph *g)
{
	uint32_t files = 0;
	for (uint32_t i = 0; i < g->node_count; i++)
		if (g->nodes[i].file >= files)
			files = g->nodes[i].file + 1;
	g->problems = calloc(files ? files : 1, sizeof(*g->problems));
	g->file_count = files;
	return g->problems != NULL;
}

enum trex_status trex_graph_finish(struct trex_graph *g, struct trex_error *err)
{
	if (g->finished)
		return TREX_OK;
	/* the store is frozen from here: give back what doubling left over */
	struct trex_graph_node *fit =
	    g->node_count ? realloc(g->nodes, g->node_count * sizeof(*fit)) : NULL;
	if (fit) {
		g->nodes = fit;
		g->node_cap = g->node_count;
	}
	bool ok = graph_alloc_problems(g) && graph_resolve_deps(g) && graph_build_csr(g) &&
	          graph_order(g) && graph_rank_lists(g) && graph_group_ranks(g) &&
	          graph_match_collectives(g) && graph_match_transfers(g);
	free(g->deps);
	g->deps = NULL;
	g->dep_count = g->dep_cap = 0;
	free(g->set_ranks);
	g->set_ranks = NULL;
	g->set_count = g->set_cap = 0;
	g->finished = true;
	if (!ok) {
		graph_free_finished(g);
		memset(&g->edges, 0, sizeof(*g) - offsetof(struct trex_graph, edges));
		return trex_error_set(err, TREX_NOMEM, NULL, -1,
		                      "out of memory finishing a graph of %u nodes", g->node_count);
	}
	return TREX_OK;
}

/* ---- reading -------------------------------------------------------------------------- */

uint32_t trex_graph_node_count(const struct trex_graph *g)
{
	return g->node_count;
}

const struct trex_graph_node *trex_graph_node(const struct trex_graph *g, uint32_t node)
{
	return node < g->node_count ? &g->nodes[node] : NULL;
}

const char *trex_graph_str(const struct trex_graph *g, uint32_t id)
{
	return id < trex_strtab_count(g->strs) ? trex_strtab_get(g->strs, id, NULL) : "";
}

uint32_t trex_graph_edge_count(const struct trex_graph *g)
{
	return g->edge_count;
}

const struct trex_graph_edge *trex_graph_edge(const struct trex_graph *g, uint32_t edge)
{
	return edge < g->edge_count ? &g->edges[edge] : NULL;
}

const uint32_t *trex_graph_edges_of(const struct trex_graph *g, uint32_t node, bool incoming,
                                    uint32_t *n)
{
	const uint32_t *first = incoming ? g->in_first : g->out_first;
	if (!first || node >= g->node_count) {
		*n = 0;
		return NULL;
	}
	*n = first[node + 1] - first[node];
	return (incoming ? g->in_edges : g->out_edges) + first[node];
}

const uint32_t *trex_graph_topo_order(const struct trex_graph *g)
{
	return g->topo;
}

uint32_t trex_graph_rank_count(const struct trex_graph *g)
{
	return g->rank_count;
}

uint32_t graph_find_u32(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x ? lo : TREX_GRAPH_NONE;
}

const uint32_t *trex_graph_rank_nodes(const struct trex_graph *g, uint32_t rank, uint32_t *n)
{
	uint32_t slot =
	    g->ranks ? graph_find_u32(g->ranks, g->distinct_ranks, rank) : TREX_GRAPH_NONE;
	if (slot == TREX_GRAPH_NONE) {
		*n = 0;
		return NULL;
	}
	*n = g->rank_first[slot + 1] - g->rank_first[slot];
	return g->rank_node_list + g->rank_first[slot];
}

uint32_t trex_graph_match_count(const struct trex_graph *g)
{
	return (uint32_t)g->match_count;
}

const struct trex_graph_match *trex_graph_match(const struct trex_graph *g, uint32_t match)
{
	return match < g->match_count ? &g->matches[match] : NULL;
}

const uint32_t *trex_graph_match_members(const struct trex_graph *g)
{
	return g->members;
}

const uint32_t *trex_graph_group_ranks(const struct trex_graph *g, uint32_t group, uint32_t *n)
{
	uint32_t lo = 0, hi = g->group_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->groups[mid].group < group)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->group_count || g->groups[lo].group != group) {
		*n = 0;
		return NULL;
	}
	*n = g->groups[lo].count;
	return g->group_ranks + g->groups[lo].first;
}

uint64_t trex_graph_problem_count(const struct trex_graph *g, uint32_t file,
                                  enum trex_graph_problem_kind kind)
{
	if (file >= g->file_count || (unsigned)kind >= TREX_GRAPH_PROBLEM_KINDS)
		return 0;
	return g->problems[file].count[kind];
}

const struct trex_graph_problem *trex_graph_problem_examples(const struct trex_graph *g,
                                                             uint32_t file,
                                                             enum trex_graph_problem_kind kind,
                                                             uint32_t *n)
{
	if (file >= g->file_count || (unsigned)kind >= TREX_GRAPH_PROBLEM_KINDS) {
		*n = 0;
		return NULL;
	}
	*n = g->problems[file].examples[kind];
	return g->problems[file].example[kind];
}

/* ---- the slice binding ------------------------------------------------------------------ */

void trex_graph_bind_slice(struct trex_graph *g, uint32_t node, uint32_t slice)
{
	if (node < g->node_count)
		g->nodes[node].slice = slice;
}

enum trex_status trex_graph_bind_done(struct trex_graph *g, uint32_t slice_count,
                                      struct trex_error *err)
{
	free(g->slice_node);
	g->slice_node = malloc((slice_count ? slice_count : 1) * sizeof(*g->slice_node));
	g->slice_count = 0;
	if (!g->slice_node)
		return trex_error_set(err, TREX_NOMEM, NULL, -1,
		                      "out of memory binding %u slices to graph nodes",
		                      slice_count);
	for (uint32_t s = 0; s < slice_count; s++)
		g->slice_node[s] = TREX_GRAPH_NONE;
	for (uint32_t i = 0; i < g->node_count; i++) {
		uint32_t s = g->nodes[i].slice;
		if (s == TREX_GRAPH_NONE)
			continue;
		if (s < slice_count)
			g->slice_node[s] = i;
		else
			g->nodes[i].slice = TREX_GRAPH_NONE;
	}
	g->slice_count = slice_count;
	return TREX_OK;
}

uint32_t trex_graph_node_of_slice(const struct trex_graph *g, uint32_t slice)
{
	return slice < g->slice_count ? g->slice_node[slice] : TREX_GRAPH_NONE;
}

size_t trex_graph_memory(const struct trex_graph *g)
{
	size_t u32 = sizeof(uint32_t);
	size_t csr = g->in_first ? 2 * ((size_t)g->node_count + 1 + g->edge_count) * u32 : 0;
	return sizeof(*g) + trex_strtab_memory(g->strs) + g->node_cap * sizeof(*g->nodes) +
	       g->dep_cap * sizeof(*g->deps) + g->set_cap * sizeof(*g->set_ranks) +
	       (size_t)g->edge_count * sizeof(*g->edges) + csr +
	       (g->topo ? g->node_count * u32 : 0) +
	       (g->ranks ? (2 * (size_t)g->distinct_ranks + 1 + g->node_count) * u32 : 0) +
	       g->match_cap * sizeof(*g->matches) + g->member_cap * u32 +
	       (size_t)g->group_count * sizeof(*g->groups) + (size_t)g->group_rank_total * u32 +
	       (size_t)g->file_count * sizeof(*g->problems) + (size_t)g->slice_count * u32;
}

void trex_graph_set_file(struct trex_graph *g, uint32_t file)
{
	for (uint32_t i = 0; !g->finished && i < g->node_count; i++)
		g->nodes[i].file = file;
}

int trex_graph_set_schedule(struct trex_graph *g, struct trex_schedule *s)
{
	struct trex_schedule *own = malloc(sizeof(*own));
	if (!own)
		return -1;
	*own = *s;
	memset(s, 0, sizeof(*s));
	if (g->schedule) {
		trex_schedule_free(g->schedule);
		free(g->schedule);
	}
	g->schedule = own;
	return 0;
}

const struct trex_schedule *trex_graph_schedule(const struct trex_graph *g)
{
	return g->schedule;
}
