/* The pure parts of host ET linking (chakra_host_link.h): which host op is
 * which op of the trace, the converter's call order, and the host ET
 * paths a --host-et spec names. */
#include "config.h"

#include "trex/export/chakra_host_link.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- matching ----------------------------------------------------------------------------- */

struct hm_sort {
	const struct trex_host_op *host;
	const struct trex_trace_op *trace;
};

static int hm_cmp_rf(const void *a, const void *b, void *arg)
{
	const struct hm_sort *s = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int64_t rx = s->trace[x].rf_id, ry = s->trace[y].rf_id;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return (x > y) - (x < y);
}

static const char *hm_name(const struct hm_sort *s, bool host, size_t i)
{
	const char *n = host ? s->host[i].name : s->trace[i].name;
	return n ? n : "";
}

static int hm_cmp_name(const struct hm_sort *s, bool host, size_t x, size_t y)
{
	int c = strcmp(hm_name(s, host, x), hm_name(s, host, y));
	return c ? c : (x > y) - (x < y);
}

static int hm_cmp_host_name(const void *a, const void *b, void *arg)
{
	return hm_cmp_name(arg, true, *(const size_t *)a, *(const size_t *)b);
}

static int hm_cmp_trace_name(const void *a, const void *b, void *arg)
{
	return hm_cmp_name(arg, false, *(const size_t *)a, *(const size_t *)b);
}

/* 0..n-1 sorted by cmp; NULL when out of memory. */
static size_t *hm_sorted(size_t n, int (*cmp)(const void *, const void *, void *),
                         struct hm_sort *s)
{
	size_t *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = i;
	qsort_r(v, n, sizeof(*v), cmp, s);
	return v;
}

/* The first place in by_rf (ntrace trace ops with an rf_id, sorted) whose
 * rf_id is at least rf. */
static size_t hm_rf_lower(const struct hm_sort *s, const size_t *by_rf, size_t n, int64_t rf)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->trace[by_rf[mid]].rf_id < rf)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Host op i to the untaken trace op with its rf_id and name. */
static void hm_by_rf(struct hm_sort *s, const size_t *by_rf, size_t n_rf, size_t i, bool *taken,
                     size_t *match, struct trex_chakra_host_link_stats *st)
{
	bool seen = false;

	for (size_t k = hm_rf_lower(s, by_rf, n_rf, s->host[i].rf_id);
	     k < n_rf && s->trace[by_rf[k]].rf_id == s->host[i].rf_id; k++) {
		size_t t = by_rf[k];
		seen = true;
		if (!taken[t] && strcmp(hm_name(s, false, t), hm_name(s, true, i)) == 0) {
			taken[t] = true;
			match[i] = t;
			st->matched_rf_id++;
			return;
		}
	}
	st->name_mismatch += seen;
}

static bool hm_match_rf(struct hm_sort *s, size_t nhost, size_t ntrace, size_t n_rf, size_t *match,
                        struct trex_chakra_host_link_stats *st)
{
	size_t *by_rf = hm_sorted(ntrace, hm_cmp_rf, s);
	bool *taken = calloc(ntrace ? ntrace : 1, sizeof(*taken));
	bool ok = by_rf && taken;

	/* ops without an id sort first: skip them */
	size_t first = ok ? hm_rf_lower(s, by_rf, ntrace, 0) : 0;
	for (size_t i = 0; ok && i < nhost; i++)
		if (s->host[i].rf_id >= 0)
			hm_by_rf(s, by_rf + first, n_rf, i, taken, match, st);
	free(by_rf);
	free(taken);
	return ok;
}

/* No rf_ids in the trace: per name, the k-th host op to the k-th trace op. */
static bool hm_match_names(struct hm_sort *s, size_t nhost, size_t ntrace, size_t *match,
                           struct trex_chakra_host_link_stats *st)
{
	size_t *h = hm_sorted(nhost, hm_cmp_host_name, s);
	size_t *t = hm_sorted(ntrace, hm_cmp_trace_name, s);
	size_t i = 0, k = 0;

	while (h && t && i < nhost && k < ntrace) {
		int c = strcmp(hm_name(s, true, h[i]), hm_name(s, false, t[k]));
		if (c == 0) {
			match[h[i]] = t[k];
			st->matched_by_name++;
		}
		i += c <= 0;
		k += c >= 0;
	}
	bool ok = h && t;
	free(h);
	free(t);
	return ok;
}

bool trex_host_link_match(const struct trex_host_op *host, size_t nhost,
                          const struct trex_trace_op *trace, size_t ntrace, size_t *match,
                          struct trex_chakra_host_link_stats *st)
{
	struct hm_sort s = {host, trace};
	size_t n_rf = 0;
	bool ok;

	for (size_t i = 0; i < nhost; i++)
		match[i] = SIZE_MAX;
	for (size_t k = 0; k < ntrace; k++)
		n_rf += trace[k].rf_id >= 0;
	ok = n_rf ? hm_match_rf(&s, nhost, ntrace, n_rf, match, st)
	          : hm_match_names(&s, nhost, ntrace, match, st);
	for (size_t i = 0; ok && i < nhost; i++)
		st->unmatched_ops += match[i] == SIZE_MAX;
	return ok;
}

/* ---- call order ---------------------------------------------------------------------------- */

static bool hm_thread_root(const char *name)
{
	return name && (strcmp(name, "[pytorch|profiler|execution_trace|thread]") == 0 ||
	                strcmp(name, "[pytorch|profiler|execution_graph|thread]") == 0);
}

size_t trex_host_op_find(const struct trex_host_op *host, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (host[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && host[lo].id == id ? lo : SIZE_MAX;
}

/* The callees of every op, in id order: op i's are kids[first[i] ..
 * first[i + 1]); caller[i] its caller (SIZE_MAX: a root). */
struct hm_tree {
	size_t *caller, *first, *kids;
};

static bool hm_tree_make(const struct trex_host_op *host, size_t n, struct hm_tree *t)
{
	t->caller = malloc((n + 1) * sizeof(size_t));
	t->first = calloc(n + 2, sizeof(size_t));
	t->kids = malloc((n + 1) * sizeof(size_t));
	if (!t->caller || !t->first || !t->kids)
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t c = host[i].parent == host[i].id
		               ? SIZE_MAX
		               : trex_host_op_find(host, n, host[i].parent);
		t->caller[i] = c;
		if (c != SIZE_MAX)
			t->first[c + 2]++;
	}
	for (size_t i = 0; i < n; i++)
		t->first[i + 2] += t->first[i + 1];
	for (size_t i = 0; i < n; i++)
		if (t->caller[i] != SIZE_MAX)
			t->kids[t->first[t->caller[i] + 1]++] = i;
	return true;
}

static void hm_tree_free(struct hm_tree *t)
{
	free(t->caller);
	free(t->first);
	free(t->kids);
}

/* Depth first from root: a stack of (op, chain) pairs; last[chain] is the
 * op a chain visited last. */
static void hm_walk(const struct trex_host_op *host, const struct hm_tree *t, size_t root,
                    size_t *stack, size_t *last, size_t *chains, size_t *prev)
{
	size_t top = 0;

	stack[top++] = root;
	stack[top++] = (*chains)++;
	while (top) {
		size_t chain = stack[--top], op = stack[--top];
		if (hm_thread_root(host[op].name) && op != root)
			chain = (*chains)++;
		prev[op] = last[chain];
		last[chain] = op;
		for (size_t k = t->first[op + 1]; k-- > t->first[op];) {
			stack[top++] = t->kids[k];
			stack[top++] = chain;
		}
	}
}

bool trex_host_link_chain(const struct trex_host_op *host, size_t n, size_t *prev)
{
	struct hm_tree t = {NULL, NULL, NULL};
	size_t *stack = malloc((2 * n + 2) * sizeof(*stack));
	size_t *last = malloc((n + 1) * sizeof(*last));
	size_t chains = 0;
	bool ok = stack && last && hm_tree_make(host, n, &t);

	for (size_t i = 0; i < n; i++)
		prev[i] = SIZE_MAX;
	for (size_t i = 0; ok && i <= n; i++)
		last[i] = SIZE_MAX;
	/* ops on a caller cycle have no root above them: they stay chain heads */
	for (size_t i = 0; ok && i < n; i++)
		if (t.caller[i] == SIZE_MAX)
			hm_walk(host, &t, i, stack, last, &chains, prev);
	hm_tree_free(&t);
	free(stack);
	free(last);
	return ok;
}

/* ---- the --host-et spec ---------------------------------------------------------------------- */

void trex_chakra_host_et_paths_free(char **paths, size_t count)
{
	for (size_t i = 0; paths && i < count; i++)
		free(paths[i]);
	free(paths);
}

/* pattern with every "{rank}" replaced by rank; NULL when out of memory. */
static char *hm_expand(const char *pattern, int64_t rank)
{
	char num[24];
	size_t n = strlen(pattern) + 1, nl = (size_t)snprintf(num, sizeof(num), "%" PRId64, rank);
	const char *p;
	char *out, *o;

	for (p = pattern; (p = strstr(p, "{rank}")); p += 6)
		n += nl;
	if (!(out = o = malloc(n)))
		return NULL;
	for (p = pattern; *p;) {
		if (strncmp(p, "{rank}", 6) == 0) {
			memcpy(o, num, nl);
			o += nl;
			p += 6;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The comma-separated item k of spec; NULL when out of memory. */
static char *hm_item(const char *spec, size_t k)
{
	const char *p = spec, *comma;

	while (k-- && (comma = strchr(p, ',')))
		p = comma + 1;
	comma = strchr(p, ',');
	return strndup(p, comma ? (size_t)(comma - p) : strlen(p));
}

enum trex_status trex_chakra_host_et_paths(const struct trex_index *idx, const char *spec,
                                           char ***paths, size_t *count, struct trex_error *err)
{
	uint32_t files = trex_index_file_count(idx);
	bool pattern = strstr(spec, "{rank}") != NULL;
	size_t items = 1;

	for (const char *p = spec; (p = strchr(p, ',')); p++)
		items++;
	*paths = NULL;
	*count = 0;
	if (!pattern && items != files)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "--host-et names %zu host trace%s for %" PRIu32
		                      " trace file%s: give one per file, in rank order, or a "
		                      "pattern with {rank}",
		                      items, items == 1 ? "" : "s", files, files == 1 ? "" : "s");
	if (!(*paths = calloc(files ? files : 1, sizeof(**paths))))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t f = 0; f < files; f++) {
		(*paths)[f] =
		    pattern ? hm_expand(spec, trex_index_file(idx, f)->rank) : hm_item(spec, f);
		if (!(*paths)[f]) {
			trex_chakra_host_et_paths_free(*paths, f);
			*paths = NULL;
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		}
		if (!(*paths)[f][0]) {
			trex_chakra_host_et_paths_free(*paths, f + 1);
			*paths = NULL;
			return trex_error_set(err, TREX_USAGE, NULL, -1,
			                      "--host-et: an empty file name in '%s'", spec);
		}
	}
	*count = files;
	return TREX_OK;
}
