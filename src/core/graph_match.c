/* trex_graph_finish's cross-rank stages: process groups' ranks, and the
 * matching of collectives (the k-th of a group on each of its ranks) and
 * transfers (the k-th send a->b tag t with the k-th receive of b from a
 * tag t). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "trex/core/grow.h"

/* ---- process groups ----------------------------------------------------------------------- */

static int graph_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts v[0..n) of (group << 32 | rank) and drops repeats; returns the new n. */
static size_t graph_sort_unique(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), graph_cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	return u;
}

/* (group, rank) pairs: those set, or those of the nodes. */
static uint64_t *graph_group_pairs(const struct trex_graph *g, bool set, size_t *n)
{
	size_t cap = set ? g->set_count : g->node_count;
	uint64_t *v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < cap; i++) {
		uint64_t p = set ? (uint64_t)g->set_ranks[i].group << 32 | g->set_ranks[i].rank
		                 : (uint64_t)g->nodes[i].group << 32 | g->nodes[i].rank;
		if (k == 0 || v[k - 1] != p)
			v[k++] = p;
	}
	*n = graph_sort_unique(v, k);
	return v;
}

/* Appends group's ranks from pairs[*i ..] (those of group) to g's groups. */
static void graph_take_group(struct trex_graph *g, const uint64_t *pairs, size_t n, size_t *i)
{
	uint32_t group = (uint32_t)(pairs[*i] >> 32);
	struct graph_group *gr = &g->groups[g->group_count++];
	gr->group = group;
	gr->first = g->group_rank_total;
	gr->count = 0;
	for (; *i < n && (uint32_t)(pairs[*i] >> 32) == group; (*i)++) {
		g->group_ranks[g->group_rank_total++] = (uint32_t)pairs[*i];
		gr->count++;
	}
}

static void graph_skip_group(const uint64_t *pairs, size_t n, size_t *i, uint32_t group)
{
	while (*i < n && (uint32_t)(pairs[*i] >> 32) == group)
		(*i)++;
}

bool graph_group_ranks(struct trex_graph *g)
{
	size_t ns = 0, nn = 0;
	uint64_t *set = graph_group_pairs(g, true, &ns);
	uint64_t *seen = set ? graph_group_pairs(g, false, &nn) : NULL;
	size_t total = ns + nn;
	g->groups = seen ? malloc((total ? total : 1) * sizeof(*g->groups)) : NULL;
	g->group_ranks = g->groups ? malloc((total ? total : 1) * sizeof(uint32_t)) : NULL;
	bool ok = g->group_ranks != NULL;
	/* merge by group: a group's set ranks win over the ranks its nodes are on */
	for (size_t i = 0, j = 0; ok && (i < ns || j < nn);) {
		uint32_t gs = i < ns ? (uint32_t)(set[i] >> 32) : UINT32_MAX;
		uint32_t gn = j < nn ? (uint32_t)(seen[j] >> 32) : UINT32_MAX;
		if (i < ns && (j == nn || gs <= gn)) {
			graph_take_group(g, set, ns, &i);
			graph_skip_group(seen, nn, &j, gs);
		} else {
			graph_take_group(g, seen, nn, &j);
		}
	}
	free(set);
	free(seen);
	return ok;
}

/* ---- matches ------------------------------------------------------------------------------ */

/* Records a match of members[0..count); an incomplete one is a problem of each member. */
static bool graph_add_match(struct trex_graph *g, const uint32_t *members, uint32_t count,
                            uint32_t ordinal, bool complete)
{
	struct trex_graph_match *m =
	    trex_grow(g->matches, &g->match_cap, g->match_count + 1, sizeof(*m), 64);
	if (!m)
		return false;
	g->matches = m;
	uint32_t *v =
	    trex_grow(g->members, &g->member_cap, g->member_count + count, sizeof(*v), 128);
	if (!v)
		return false;
	g->members = v;
	const struct trex_graph_node *first = &g->nodes[members[0]];
	m[g->match_count] = (struct trex_graph_match){
	    .first = (uint32_t)g->member_count,
	    .count = count,
	    .group = first->group,
	    .ordinal = ordinal,
	    .collective = first->collective,
	    .complete = complete,
	};
	for (uint32_t i = 0; i < count; i++) {
		v[g->member_count++] = members[i];
		g->nodes[members[i]].match = (uint32_t)g->match_count;
		if (!complete)
			graph_problem(g, g->nodes[members[i]].file, TREX_GRAPH_UNMATCHED_COMM,
			              members[i], 0);
	}
	g->match_count++;
	return true;
}

/* A node under a sort key: collectives by (group, rank), transfers by
 * (source, destination, tag); then file order. */
struct graph_keyed {
	uint32_t key[3];
	uint32_t node;
};

static int graph_cmp_key(const struct graph_keyed *x, const struct graph_keyed *y)
{
	for (int i = 0; i < 3; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return 0;
}

static int graph_cmp_keyed(const void *a, const void *b)
{
	const struct graph_keyed *x = a, *y = b;
	int c = graph_cmp_key(x, y);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static bool graph_same_key(const struct graph_keyed *x, const struct graph_keyed *y)
{
	return memcmp(x->key, y->key, sizeof(x->key)) == 0;
}

/* The nodes of type, keyed and sorted; for a receive the key is its
 * sender's view (peer, rank, tag) so that it sorts beside the sends. */
static struct graph_keyed *graph_keyed_nodes(const struct trex_graph *g, uint8_t type, uint32_t *n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < g->node_count; i++)
		k += g->nodes[i].type == type;
	struct graph_keyed *v = malloc((k ? k : 1) * sizeof(*v));
	if (!v)
		return NULL;
	*n = 0;
	for (uint32_t i = 0; i < g->node_count; i++) {
		const struct trex_graph_node *d = &g->nodes[i];
		if (d->type != type)
			continue;
		struct graph_keyed *e = &v[(*n)++];
		e->node = i;
		e->key[2] = (uint32_t)d->tag;
		if (type == TREX_NODE_COMM_COLL) {
			e->key[0] = d->group;
			e->key[1] = d->rank;
			e->key[2] = 0;
		} else if (type == TREX_NODE_COMM_SEND) {
			e->key[0] = d->rank;
			e->key[1] = (uint32_t)d->peer;
		} else {
			e->key[0] = (uint32_t)d->peer;
			e->key[1] = d->rank;
		}
	}
	qsort(v, *n, sizeof(*v), graph_cmp_keyed);
	return v;
}

/* A run of one rank's collectives of one group: v[start .. start + len). */
struct graph_run {
	uint32_t rank, start, len;
};

/* Matches the k-th collective of each run of one group, for every k. */
static bool graph_match_group(struct trex_graph *g, const struct graph_keyed *v,
                              const struct graph_run *runs, uint32_t nruns, uint32_t *scratch)
{
	uint32_t longest = 0, want_n;
	for (uint32_t r = 0; r < nruns; r++)
		longest = runs[r].len > longest ? runs[r].len : longest;
	const uint32_t *want = trex_graph_group_ranks(g, v[runs[0].start].key[0], &want_n);
	for (uint32_t k = 0; k < longest; k++) {
		uint32_t count = 0;
		bool complete = true;
		for (uint32_t r = 0; r < nruns; r++) {
			if (runs[r].len <= k)
				continue;
			scratch[count++] = v[runs[r].start + k].node;
			complete = complete &&
			           graph_find_u32(want, want_n, runs[r].rank) != TREX_GRAPH_NONE;
		}
		if (!graph_add_match(g, scratch, count, k, complete && count == want_n))
			return false;
	}
	return true;
}

bool graph_match_collectives(struct trex_graph *g)
{
	uint32_t n;
	struct graph_keyed *v = graph_keyed_nodes(g, TREX_NODE_COMM_COLL, &n);
	struct graph_run *runs = v ? malloc((n ? n : 1) * sizeof(*runs)) : NULL;
	uint32_t *scratch = runs ? malloc((n ? n : 1) * sizeof(*scratch)) : NULL;
	bool ok = scratch != NULL;
	for (uint32_t i = 0; ok && i < n;) {
		uint32_t nruns = 0, group = v[i].key[0];
		for (; i < n && v[i].key[0] == group; nruns++) {
			runs[nruns] = (struct graph_run){.rank = v[i].key[1], .start = i, .len = 0};
			for (; i < n && graph_same_key(&v[i], &v[runs[nruns].start]); i++)
				runs[nruns].len++;
		}
		ok = graph_match_group(g, v, runs, nruns, scratch);
	}
	free(v);
	free(runs);
	free(scratch);
	return ok;
}

/* Pairs the k-th send of one (source, destination, tag) with the k-th
 * receive; the rest stand alone. */
static bool graph_match_channel(struct trex_graph *g, const struct graph_keyed *sends, uint32_t ns,
                                const struct graph_keyed *recvs, uint32_t nr)
{
	uint32_t most = ns > nr ? ns : nr;
	for (uint32_t k = 0; k < most; k++) {
		uint32_t pair[2], count = 0;
		if (k < ns)
			pair[count++] = sends[k].node;
		if (k < nr)
			pair[count++] = recvs[k].node;
		bool valid = g->nodes[pair[0]].peer >= 0;
		if (!graph_add_match(g, pair, count, k, count == 2 && valid))
			return false;
	}
	return true;
}

/* The length of the run of v[i..n) with v[i]'s key. */
static uint32_t graph_key_run(const struct graph_keyed *v, uint32_t i, uint32_t n)
{
	uint32_t j = i;
	while (j < n && graph_same_key(&v[j], &v[i]))
		j++;
	return j - i;
}

bool graph_match_transfers(struct trex_graph *g)
{
	uint32_t ns = 0, nr = 0;
	struct graph_keyed *s = graph_keyed_nodes(g, TREX_NODE_COMM_SEND, &ns);
	struct graph_keyed *r = s ? graph_keyed_nodes(g, TREX_NODE_COMM_RECV, &nr) : NULL;
	bool ok = r != NULL;
	for (uint32_t i = 0, j = 0; ok && (i < ns || j < nr);) {
		int c = i == ns ? 1 : j == nr ? -1 : graph_cmp_key(&s[i], &r[j]);
		uint32_t a = c <= 0 ? graph_key_run(s, i, ns) : 0;
		uint32_t b = c >= 0 ? graph_key_run(r, j, nr) : 0;
		ok = graph_match_channel(g, s + i, a, r + j, b);
		i += a;
		j += b;
	}
	free(s);
	free(r);
	return ok;
}
