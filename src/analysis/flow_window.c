#include "config.h"

#include "trex/analysis/flow_window.h"

#include <stdlib.h>
#include <string.h>

static int64_t end_ts(const struct trex_index *idx, uint32_t id, bool to)
{
	const struct trex_flow *f = trex_index_flow(idx, id);

	return to ? f->to_ts : f->from_ts;
}

/* What a sort compares by (qsort has no context argument, hence a merge
 * sort of its own, which is also stable). */
struct order_ctx {
	const struct trex_index *idx;
	bool to;
};

static bool before(const struct order_ctx *c, uint32_t a, uint32_t b)
{
	int64_t ta = end_ts(c->idx, a, c->to), tb = end_ts(c->idx, b, c->to);

	return ta < tb || (ta == tb && a < b);
}

/* A stable merge sort of v[0, n) by (time, id), tmp of n ids. */
static void merge_sort(const struct order_ctx *c, uint32_t *v, uint32_t *tmp, uint32_t n)
{
	uint32_t half = n / 2, i = 0, j = half, k = 0;

	if (n < 2)
		return;
	merge_sort(c, v, tmp, half);
	merge_sort(c, v + half, tmp, n - half);
	while (i < half && j < n)
		tmp[k++] = before(c, v[j], v[i]) ? v[j++] : v[i++];
	while (i < half)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, sizeof(*v) * n);
}

enum trex_status trex_flow_order_build(const struct trex_index *idx, struct trex_flow_order *out,
                                       struct trex_error *err)
{
	uint32_t n = trex_index_flow_count(idx), *tmp;

	memset(out, 0, sizeof(*out));
	out->idx = idx;
	out->count = n;
	if (n == 0)
		return TREX_OK;
	out->by_from = malloc(sizeof(uint32_t) * n);
	out->by_to = malloc(sizeof(uint32_t) * n);
	tmp = malloc(sizeof(uint32_t) * n);
	if (!out->by_from || !out->by_to || !tmp) {
		free(tmp);
		trex_flow_order_free(out);
		return trex_error_set(err, TREX_NOMEM, NULL, -1,
		                      "out of memory for the time order of %u flows", n);
	}
	for (uint32_t i = 0; i < n; i++)
		out->by_from[i] = out->by_to[i] = i;
	merge_sort(&(struct order_ctx){idx, false}, out->by_from, tmp, n);
	merge_sort(&(struct order_ctx){idx, true}, out->by_to, tmp, n);
	free(tmp);
	return TREX_OK;
}

void trex_flow_order_free(struct trex_flow_order *o)
{
	free(o->by_from);
	free(o->by_to);
	o->by_from = o->by_to = NULL;
	o->count = 0;
}

/* The first position of order v whose time is >= t. */
static uint32_t lower(const struct trex_flow_order *o, const uint32_t *v, bool to, int64_t t)
{
	uint32_t lo = 0, hi = o->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (end_ts(o->idx, v[mid], to) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t trex_flows_in_window(const struct trex_flow_order *o, int64_t t0, int64_t t1, uint32_t *out,
                            size_t max)
{
	size_t n = 0;
	uint32_t a, b;

	if (o->count == 0 || t1 <= t0)
		return 0;
	a = lower(o, o->by_from, false, t0);
	b = lower(o, o->by_from, false, t1);
	for (uint32_t i = a; i < b; i++, n++)
		if (n < max)
			out[n] = o->by_from[i];
	a = lower(o, o->by_to, true, t0);
	b = lower(o, o->by_to, true, t1);
	for (uint32_t i = a; i < b; i++) {
		int64_t from = end_ts(o->idx, o->by_to[i], false);

		if (from >= t0 && from < t1)
			continue; /* listed by its start */
		if (n < max)
			out[n] = o->by_to[i];
		n++;
	}
	return n;
}
