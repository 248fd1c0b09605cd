/* trex_graph_finish's structural stages: dependency resolution by id,
 * the CSR edge lists, the topological order with cycle cutting, and the
 * per-rank node lists. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "trex/core/grow.h"

/* ---- ids within a file -------------------------------------------------------------------- */

static uint64_t graph_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* Open addressing over node indexes keyed by (file, id); TREX_GRAPH_NONE = empty. */
struct graph_id_table {
	uint32_t *slot;
	size_t mask;
};

static size_t graph_id_home(uint32_t file, uint64_t id, size_t mask)
{
	return graph_mix(id ^ graph_mix(file + UINT64_C(0x9e3779b97f4a7c15))) & mask;
}

/* The slot holding (file, id), or the empty slot where it would go. */
static size_t graph_id_probe(const struct trex_graph *g, const struct graph_id_table *t,
                             uint32_t file, uint64_t id)
{
	size_t i = graph_id_home(file, id, t->mask);
	for (;;) {
		uint32_t n = t->slot[i];
		if (n == TREX_GRAPH_NONE || (g->nodes[n].id == id && g->nodes[n].file == file))
			return i;
		i = (i + 1) & t->mask;
	}
}

static bool graph_id_table_fill(struct trex_graph *g, struct graph_id_table *t)
{
	size_t size = 16;
	while (size < 2 * (size_t)g->node_count)
		size *= 2;
	t->slot = malloc(size * sizeof(*t->slot));
	if (!t->slot)
		return false;
	memset(t->slot, 0xff, size * sizeof(*t->slot));
	t->mask = size - 1;
	for (uint32_t n = 0; n < g->node_count; n++) {
		struct trex_graph_node *node = &g->nodes[n];
		size_t i = graph_id_probe(g, t, node->file, node->id);
		if (t->slot[i] == TREX_GRAPH_NONE) {
			t->slot[i] = n;
			continue;
		}
		node->flags |= TREX_NODE_DUPLICATE_ID;
		graph_problem(g, node->file, TREX_GRAPH_DUPLICATE_ID, n, node->id);
	}
	return true;
}

bool graph_resolve_deps(struct trex_graph *g)
{
	struct graph_id_table t;
	if (!graph_id_table_fill(g, &t))
		return false;
	for (size_t i = 0; i < g->dep_count; i++)
		if (g->deps[i].kind == TREX_DEP_DATA)
			g->problems[g->nodes[g->deps[i].node].file].has_data_deps = true;
	g->edges = malloc((g->dep_count ? g->dep_count : 1) * sizeof(*g->edges));
	if (!g->edges || g->dep_count >= TREX_GRAPH_NONE) {
		free(t.slot);
		return false;
	}
	for (size_t i = 0; i < g->dep_count; i++) {
		const struct graph_pending_dep *d = &g->deps[i];
		uint32_t file = g->nodes[d->node].file;
		uint32_t parent = t.slot[graph_id_probe(g, &t, file, d->parent_id)];
		if (parent == TREX_GRAPH_NONE) {
			graph_problem(g, file, TREX_GRAPH_DANGLING_DEP, d->node, d->parent_id);
			continue;
		}
		bool orders = d->kind == TREX_DEP_DATA || !g->problems[file].has_data_deps;
		g->edges[g->edge_count++] = (struct trex_graph_edge){
		    .from = parent,
		    .to = d->node,
		    .kind = d->kind,
		    .flags = orders ? TREX_DEP_ORDERS : 0,
		};
	}
	free(t.slot);
	return true;
}

/* ---- edge lists ------------------------------------------------------------------------- */

static bool graph_csr(struct trex_graph *g, bool incoming, uint32_t **first_out,
                      uint32_t **list_out)
{
	uint32_t *first = calloc((size_t)g->node_count + 1, sizeof(*first));
	uint32_t *list = malloc((g->edge_count ? g->edge_count : 1) * sizeof(*list));
	if (!first || !list) {
		free(first);
		free(list);
		return false;
	}
	for (uint32_t e = 0; e < g->edge_count; e++)
		first[(incoming ? g->edges[e].to : g->edges[e].from) + 1]++;
	for (uint32_t n = 0; n < g->node_count; n++)
		first[n + 1] += first[n];
	/* place by a moving cursor, then shift the cursors back into starts */
	for (uint32_t e = 0; e < g->edge_count; e++)
		list[first[incoming ? g->edges[e].to : g->edges[e].from]++] = e;
	for (uint32_t n = g->node_count; n > 0; n--)
		first[n] = first[n - 1];
	first[0] = 0;
	*first_out = first;
	*list_out = list;
	return true;
}

bool graph_build_csr(struct trex_graph *g)
{
	return graph_csr(g, true, &g->in_first, &g->in_edges) &&
	       graph_csr(g, false, &g->out_first, &g->out_edges);
}

static bool graph_edge_orders(const struct trex_graph_edge *e)
{
	return (e->flags & (TREX_DEP_ORDERS | TREX_DEP_BROKEN)) == TREX_DEP_ORDERS;
}

/* ---- topological order ------------------------------------------------------------------ */

bool graph_heap_push(struct graph_heap *h, uint64_t key)
{
	uint64_t *v = trex_grow(h->v, &h->cap, h->n + 1, sizeof(*v), 16);
	if (!v)
		return false;
	h->v = v;
	size_t i = h->n++;
	while (i > 0 && v[(i - 1) / 2] > key) {
		v[i] = v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	v[i] = key;
	return true;
}

uint64_t graph_heap_pop(struct graph_heap *h)
{
	uint64_t top = h->v[0], last = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= last)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

/* Ready nodes pop by rank, then file order. */
static uint64_t graph_heap_key(const struct trex_graph *g, uint32_t n)
{
	return (uint64_t)g->nodes[n].rank << 32 | n;
}

/* Kahn's state, and Tarjan's for the nodes Kahn cannot reach. */
struct graph_kahn {
	uint32_t *indeg;
	uint8_t *done;
	struct graph_heap ready; /* capacity for every node: pushes cannot fail */
	/* strongly connected components of the rest, made when Kahn stalls */
	uint32_t *index, *low, *comp, *stack, *call_node, *call_pos;
	uint8_t *on_stack;
};

/* Cuts the in-edges that min, the smallest node of its component comp,
 * gets from inside it; queues min when nothing else holds it. */
static void graph_cut_into(struct trex_graph *g, struct graph_kahn *k, uint32_t min)
{
	for (uint32_t i = g->in_first[min]; i < g->in_first[min + 1]; i++) {
		struct trex_graph_edge *e = &g->edges[g->in_edges[i]];
		if (!graph_edge_orders(e) || k->done[e->from] || k->comp[e->from] != k->comp[min])
			continue;
		e->flags |= TREX_DEP_BROKEN;
		g->nodes[min].flags |= TREX_NODE_IN_CYCLE;
		graph_problem(g, g->nodes[min].file, TREX_GRAPH_CYCLE, min, g->nodes[e->from].id);
		if (--k->indeg[min] == 0)
			graph_heap_push(&k->ready, graph_heap_key(g, min));
	}
}

/* Pops the component rooted at root off Tarjan's stack and cuts it open. */
static void graph_pop_component(struct trex_graph *g, struct graph_kahn *k, uint32_t *sp,
                                uint32_t root)
{
	uint32_t min = root, w;
	do {
		w = k->stack[--*sp];
		k->on_stack[w] = 0;
		k->comp[w] = root;
		if (w < min)
			min = w;
	} while (w != root);
	graph_cut_into(g, k, min);
}

/* Tarjan's algorithm from v over the ordering edges among unfinished nodes, iteratively. */
static void graph_tarjan(struct trex_graph *g, struct graph_kahn *k, uint32_t v, uint32_t *counter)
{
	uint32_t sp = 0, cp = 0;
	k->index[v] = k->low[v] = (*counter)++;
	k->stack[sp++] = v;
	k->on_stack[v] = 1;
	k->call_node[cp] = v;
	k->call_pos[cp++] = g->out_first[v];
	while (cp) {
		uint32_t u = k->call_node[cp - 1], pos = k->call_pos[cp - 1];
		if (pos < g->out_first[u + 1]) {
			k->call_pos[cp - 1]++;
			const struct trex_graph_edge *e = &g->edges[g->out_edges[pos]];
			uint32_t w = e->to;
			if (!graph_edge_orders(e) || k->done[w])
				continue;
			if (k->index[w] == TREX_GRAPH_NONE) {
				k->index[w] = k->low[w] = (*counter)++;
				k->stack[sp++] = w;
				k->on_stack[w] = 1;
				k->call_node[cp] = w;
				k->call_pos[cp++] = g->out_first[w];
			} else if (k->on_stack[w] && k->index[w] < k->low[u]) {
				k->low[u] = k->index[w];
			}
			continue;
		}
		cp--;
		if (cp && k->low[u] < k->low[k->call_node[cp - 1]])
			k->low[k->call_node[cp - 1]] = k->low[u];
		if (k->low[u] == k->index[u])
			graph_pop_component(g, k, &sp, u);
	}
}

static bool graph_cut_cycles(struct trex_graph *g, struct graph_kahn *k)
{
	size_t n = g->node_count;
	if (!k->index) {
		k->index = malloc(n * sizeof(uint32_t));
		k->low = malloc(n * sizeof(uint32_t));
		k->comp = malloc(n * sizeof(uint32_t));
		k->stack = malloc(n * sizeof(uint32_t));
		k->call_node = malloc(n * sizeof(uint32_t));
		k->call_pos = malloc(n * sizeof(uint32_t));
		k->on_stack = calloc(n, 1);
		if (!k->index || !k->low || !k->comp || !k->stack || !k->call_node ||
		    !k->call_pos || !k->on_stack)
			return false;
	}
	for (size_t v = 0; v < n; v++)
		k->index[v] = k->comp[v] = TREX_GRAPH_NONE;
	uint32_t counter = 0;
	for (uint32_t v = 0; v < n; v++)
		if (!k->done[v] && k->index[v] == TREX_GRAPH_NONE)
			graph_tarjan(g, k, v, &counter);
	return true;
}

static void graph_kahn_free(struct graph_kahn *k)
{
	free(k->indeg);
	free(k->done);
	free(k->ready.v);
	free(k->index);
	free(k->low);
	free(k->comp);
	free(k->stack);
	free(k->call_node);
	free(k->call_pos);
	free(k->on_stack);
}

static void graph_emit(struct trex_graph *g, struct graph_kahn *k, uint32_t v)
{
	k->done[v] = 1;
	for (uint32_t i = g->out_first[v]; i < g->out_first[v + 1]; i++) {
		const struct trex_graph_edge *e = &g->edges[g->out_edges[i]];
		if (graph_edge_orders(e) && --k->indeg[e->to] == 0)
			graph_heap_push(&k->ready, graph_heap_key(g, e->to));
	}
}

bool graph_order(struct trex_graph *g)
{
	size_t n = g->node_count;
	struct graph_kahn k = {0};
	k.indeg = calloc(n ? n : 1, sizeof(*k.indeg));
	k.done = calloc(n ? n : 1, 1);
	k.ready.v = malloc((n ? n : 1) * sizeof(*k.ready.v));
	k.ready.cap = k.ready.v ? (n ? n : 1) : 0;
	g->topo = malloc((n ? n : 1) * sizeof(*g->topo));
	bool ok = k.indeg && k.done && k.ready.v && g->topo;
	for (uint32_t e = 0; ok && e < g->edge_count; e++)
		if (graph_edge_orders(&g->edges[e]))
			k.indeg[g->edges[e].to]++;
	for (uint32_t v = 0; ok && v < n; v++)
		if (k.indeg[v] == 0)
			graph_heap_push(&k.ready, graph_heap_key(g, v));
	for (size_t emitted = 0; ok && emitted < n; emitted++) {
		if (k.ready.n == 0)
			ok = graph_cut_cycles(g, &k) && k.ready.n > 0;
		if (!ok)
			break;
		uint32_t v = (uint32_t)graph_heap_pop(&k.ready);
		g->topo[emitted] = v;
		graph_emit(g, &k, v);
	}
	graph_kahn_free(&k);
	return ok;
}

/* ---- ranks ------------------------------------------------------------------------------ */

static int graph_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static bool graph_distinct_ranks(struct trex_graph *g)
{
	uint32_t *r = malloc((g->node_count ? g->node_count : 1) * sizeof(*r));
	if (!r)
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->node_count; i++)
		if (n == 0 || r[n - 1] != g->nodes[i].rank)
			r[n++] = g->nodes[i].rank;
	qsort(r, n, sizeof(*r), graph_cmp_u32);
	uint32_t u = 0;
	for (uint32_t i = 0; i < n; i++)
		if (u == 0 || r[u - 1] != r[i])
			r[u++] = r[i];
	g->ranks = r;
	g->distinct_ranks = u;
	g->rank_count = u == 0 ? 0 : r[u - 1] == UINT32_MAX ? UINT32_MAX : r[u - 1] + 1;
	return true;
}

bool graph_rank_lists(struct trex_graph *g)
{
	if (!graph_distinct_ranks(g))
		return false;
	g->rank_first = calloc((size_t)g->distinct_ranks + 1, sizeof(*g->rank_first));
	g->rank_node_list = malloc((g->node_count ? g->node_count : 1) * sizeof(uint32_t));
	uint32_t *slot_of = malloc((g->node_count ? g->node_count : 1) * sizeof(uint32_t));
	if (!g->rank_first || !g->rank_node_list || !slot_of) {
		free(slot_of);
		return false;
	}
	uint32_t last_rank = 0, last_slot = TREX_GRAPH_NONE;
	for (uint32_t i = 0; i < g->node_count; i++) {
		if (last_slot == TREX_GRAPH_NONE || g->nodes[i].rank != last_rank) {
			last_rank = g->nodes[i].rank;
			last_slot = graph_find_u32(g->ranks, g->distinct_ranks, last_rank);
		}
		slot_of[i] = last_slot;
		g->rank_first[last_slot + 1]++;
	}
	for (uint32_t s = 0; s < g->distinct_ranks; s++)
		g->rank_first[s + 1] += g->rank_first[s];
	for (uint32_t i = 0; i < g->node_count; i++)
		g->rank_node_list[g->rank_first[slot_of[i]]++] = i;
	for (uint32_t s = g->distinct_ranks; s > 0; s--)
		g->rank_first[s] = g->rank_first[s - 1];
	g->rank_first[0] = 0;
	free(slot_of);
	return true;
}
