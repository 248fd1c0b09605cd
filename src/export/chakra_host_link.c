/* Host ET linking against a loaded GPU trace (chakra_host_link.h): each
 * host ET is loaded by the pytorch-et loader into an index of its own, its
 * ops are matched to the trace file's CPU ops (chakra_host_match.c), and
 * the writer's hooks turn them into CPU nodes and its device work into
 * linked GPU nodes. */
#include "config.h"

#include "trex/export/chakra_host_link.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trex/core/grow.h"
#include "trex/load/loader.h"

/* One trace file's host ET, matched. ops are sorted by id. */
struct hl_file {
	struct trex_index *host; /* NULL: none loaded */
	char *path;              /* the host ET's */
	struct trex_host_op *ops;
	uint32_t *node;   /* its host graph node per op */
	uint32_t *slice;  /* its trace slice per op, TREX_NONE */
	int64_t *self_ns; /* exclusive time in the trace, 0 unmatched */
	size_t *prev;     /* the op before it in call order, SIZE_MAX */
	size_t n;
	uint64_t *by_slice; /* (slice << 32 | op) of the matched ops, sorted */
	size_t n_by_slice;
	uint64_t gpu_base; /* the first id of the rank's device work */
};

struct trex_chakra_host_link {
	const struct trex_index *idx;
	struct hl_file *files;
	uint32_t nfiles;
	struct trex_chakra_host_link_stats st;
	uint32_t *parents; /* trex_index_parents of the trace */
	uint64_t *deps;    /* a GPU node's data deps */
	size_t deps_cap;
	uint64_t ctrl;
};

static enum trex_status hl_nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory linking host traces");
}

/* ---- the host ET's ops ------------------------------------------------------------------- */

static int hl_cmp_op(const void *a, const void *b, void *ops_arg)
{
	const struct trex_host_op *ops = ops_arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (ops[x].id > ops[y].id) - (ops[x].id < ops[y].id);
}

/* The first unbroken ctrl parent of node, as an id; UINT64_MAX if none. */
static uint64_t hl_caller(const struct trex_graph *g, uint32_t node)
{
	uint32_t ne;
	const uint32_t *in = trex_graph_edges_of(g, node, true, &ne);

	for (uint32_t i = 0; i < ne; i++) {
		const struct trex_graph_edge *e = trex_graph_edge(g, in[i]);
		if (e->kind == TREX_DEP_CTRL && !(e->flags & TREX_DEP_BROKEN))
			return trex_graph_node(g, e->from)->id;
	}
	return UINT64_MAX;
}

/* value as an int64, else def. */
static int64_t hl_int(const char *value, int64_t def)
{
	char *end;
	long long v;

	if (!value || !*value)
		return def;
	v = strtoll(value, &end, 10);
	return *end ? def : (int64_t)v;
}

static const char *hl_arg(const struct trex_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return a->v[i].value;
	return NULL;
}

/* The host ET's CPU ops (device nodes of an already linked ET, and second
 * nodes of an id, are counted and left out). */
static enum trex_status hl_host_ops(struct trex_chakra_host_link *l, struct hl_file *f,
                                    struct trex_error *err)
{
	const struct trex_graph *g = trex_index_graph(f->host);
	uint32_t count = g ? trex_graph_node_count(g) : 0;
	struct trex_host_op *ops = calloc(count + 1, sizeof(*ops));
	uint32_t *node = malloc((count + 1) * sizeof(*node));
	enum trex_status st = ops && node ? TREX_OK : hl_nomem(err);

	for (uint32_t i = 0; st == TREX_OK && i < count; i++) {
		const struct trex_graph_node *gn = trex_graph_node(g, i);
		struct trex_args a;
		if (!(gn->flags & TREX_NODE_CPU) || (gn->flags & TREX_NODE_DUPLICATE_ID)) {
			l->st.host_skipped++;
			continue;
		}
		st = trex_index_args(f->host, gn->file, gn->attrs, &a, NULL, err);
		if (st != TREX_OK)
			break;
		ops[f->n] =
		    (struct trex_host_op){gn->id, hl_caller(g, i), hl_int(hl_arg(&a, "rf_id"), -1),
		                          trex_graph_str(g, gn->name)};
		node[f->n++] = i;
		trex_args_free(&a);
	}
	f->ops = ops;
	f->node = node;
	return st;
}

/* Sorts the ops by id (the loader keeps file order). */
static enum trex_status hl_sort_ops(struct hl_file *f, struct trex_error *err)
{
	uint32_t *order = malloc((f->n + 1) * sizeof(*order));
	struct trex_host_op *ops = malloc((f->n + 1) * sizeof(*ops));
	uint32_t *node = malloc((f->n + 1) * sizeof(*node));

	if (!order || !ops || !node) {
		free(order);
		free(ops);
		free(node);
		return hl_nomem(err);
	}
	for (size_t i = 0; i < f->n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, f->n, sizeof(*order), hl_cmp_op, f->ops);
	for (size_t i = 0; i < f->n; i++) {
		ops[i] = f->ops[order[i]];
		node[i] = f->node[order[i]];
	}
	free(order);
	free(f->ops);
	free(f->node);
	f->ops = ops;
	f->node = node;
	f->gpu_base = f->n ? ops[f->n - 1].id + 1 : 0;
	return TREX_OK;
}

/* ---- the trace file's CPU ops ------------------------------------------------------------- */

/* The trace file's CPU ops and annotations in start order: their slices,
 * rf_ids and names. */
struct hl_trace {
	uint32_t *slice;
	struct trex_trace_op *ops;
	size_t n;
	size_t *at; /* the op of each args ref read */
};

struct hl_cpu {
	int64_t ts;
	uint32_t slice;
};

static int hl_cmp_cpu(const void *a, const void *b)
{
	const struct hl_cpu *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static bool hl_is_cpu_op(const struct trex_slice *s)
{
	return s->kind == TREX_KIND_CPU_OP || s->kind == TREX_KIND_ANNOTATION;
}

static enum trex_status hl_trace_rf(void *user, size_t i, const struct trex_args *a,
                                    struct trex_error *err)
{
	struct hl_trace *t = user;

	(void)err;
	t->ops[t->at[i]].rf_id = hl_int(hl_arg(a, "Record function id"), -1);
	return TREX_OK;
}

/* The CPU ops of file's thread tracks, sorted by start (*n; malloc'd). */
static struct hl_cpu *hl_cpu_ops(const struct trex_index *idx, uint32_t file, size_t *n)
{
	struct hl_cpu *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (uint32_t tr = 0; tr < trex_index_track_count(idx); tr++) {
		const struct trex_track *track = trex_index_track(idx, tr);
		if (track->kind != TREX_TRACK_THREAD || trex_index_track_file(idx, tr) != file)
			continue;
		for (uint32_t s = track->first_slice; s < track->first_slice + track->slice_count;
		     s++) {
			if (!hl_is_cpu_op(trex_index_slice(idx, s)))
				continue;
			struct hl_cpu *p = trex_grow(v, &cap, *n + 1, sizeof(*v), 256);
			if (!p) {
				free(v);
				*n = SIZE_MAX;
				return NULL;
			}
			v = p;
			v[(*n)++] = (struct hl_cpu){trex_index_slice(idx, s)->ts, s};
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), hl_cmp_cpu);
	return v;
}

static enum trex_status hl_trace_ops(const struct trex_index *idx, uint32_t file,
                                     struct hl_trace *t, struct trex_error *err)
{
	size_t n, k = 0;
	struct hl_cpu *v = hl_cpu_ops(idx, file, &n);
	trex_args_ref *refs = NULL;
	enum trex_status st = TREX_OK;

	if (n == SIZE_MAX)
		return hl_nomem(err);
	t->slice = malloc((n + 1) * sizeof(*t->slice));
	t->ops = malloc((n + 1) * sizeof(*t->ops));
	t->at = malloc((n + 1) * sizeof(*t->at));
	refs = malloc((n + 1) * sizeof(*refs));
	if (!t->slice || !t->ops || !t->at || !refs)
		st = hl_nomem(err);
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, v[i].slice);
		t->slice[i] = v[i].slice;
		t->ops[i] = (struct trex_trace_op){-1, trex_index_str(idx, s->name)};
		if (s->args != TREX_ARGS_NONE) {
			refs[k] = s->args;
			t->at[k++] = i;
		}
	}
	t->n = n;
	if (st == TREX_OK && k)
		st = trex_index_args_each(idx, file, refs, k, hl_trace_rf, t, err);
	free(refs);
	free(v);
	return st;
}

static void hl_trace_free(struct hl_trace *t)
{
	free(t->slice);
	free(t->ops);
	free(t->at);
}

/* ---- matching one file ---------------------------------------------------------------------- */

static int hl_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The op matched to slice, SIZE_MAX if none. */
static size_t hl_op_of_slice(const struct hl_file *f, uint32_t slice)
{
	size_t lo = 0, hi = f->n_by_slice;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((f->by_slice[mid] >> 32) < slice)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n_by_slice && (f->by_slice[lo] >> 32) == slice
	           ? (size_t)(f->by_slice[lo] & UINT32_MAX)
	           : SIZE_MAX;
}

/* Each matched op's slice and exclusive time: its duration less its
 * CPU-op callees' (as chakra_trace_link computes it). */
static void hl_self_times(const struct trex_chakra_host_link *l, struct hl_file *f,
                          const struct hl_trace *t, const size_t *match)
{
	for (size_t i = 0; i < f->n; i++) {
		f->slice[i] = match[i] == SIZE_MAX ? TREX_NONE : t->slice[match[i]];
		f->self_ns[i] = 0;
		if (match[i] != SIZE_MAX) {
			f->by_slice[f->n_by_slice++] = (uint64_t)f->slice[i] << 32 | i;
			f->self_ns[i] = trex_index_slice(l->idx, f->slice[i])->dur;
		}
	}
	qsort(f->by_slice, f->n_by_slice, sizeof(*f->by_slice), hl_cmp_u64);
	for (size_t k = 0; k < t->n; k++) {
		uint32_t up = l->parents[t->slice[k]];
		size_t op = up == TREX_NONE ? SIZE_MAX : hl_op_of_slice(f, up);
		if (op != SIZE_MAX)
			f->self_ns[op] -= trex_index_slice(l->idx, t->slice[k])->dur;
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->self_ns[i] < 0)
			f->self_ns[i] = 0; /* callees overlapping their caller's end */
}

/* Whether the host ET fits the trace file, as far as its ops tell. */
static enum trex_status hl_check_fit(const struct trex_chakra_host_link *l, const struct hl_file *f,
                                     uint32_t file, const struct hl_trace *t,
                                     const struct trex_chakra_host_link_stats *before,
                                     struct trex_error *err)
{
	uint64_t matched = l->st.matched_rf_id + l->st.matched_by_name - before->matched_rf_id -
	                   before->matched_by_name;
	uint64_t other = l->st.name_mismatch - before->name_mismatch;
	const char *trace = trex_index_str(l->idx, trex_index_file(l->idx, file)->path);

	if (t->n == 0)
		return trex_error_set(err, TREX_USAGE, f->path, -1,
		                      "%s has no CPU ops to link this host trace's ops to", trace);
	if (matched == 0 || other > matched)
		return trex_error_set(
		    err, TREX_FORMAT, f->path, -1,
		    "does not fit %s (rank %" PRId64 "): %" PRIu64 " of %zu host ops "
		    "match its CPU ops, %" PRIu64 " share a record-function id with an op "
		    "of another name; another run's or program's host trace?",
		    trace, trex_index_file(l->idx, file)->rank, matched, f->n, other);
	return TREX_OK;
}

static enum trex_status hl_match_file(struct trex_chakra_host_link *l, struct hl_file *f,
                                      uint32_t file, struct trex_error *err)
{
	struct hl_trace t = {NULL, NULL, 0, NULL};
	struct trex_chakra_host_link_stats before = l->st;
	size_t *match = malloc((f->n + 1) * sizeof(*match));
	enum trex_status st = match ? hl_trace_ops(l->idx, file, &t, err) : hl_nomem(err);

	f->slice = malloc((f->n + 1) * sizeof(*f->slice));
	f->self_ns = malloc((f->n + 1) * sizeof(*f->self_ns));
	f->prev = malloc((f->n + 1) * sizeof(*f->prev));
	f->by_slice = malloc((f->n + 1) * sizeof(*f->by_slice));
	if (st == TREX_OK && (!f->slice || !f->self_ns || !f->prev || !f->by_slice ||
	                      !trex_host_link_match(f->ops, f->n, t.ops, t.n, match, &l->st) ||
	                      !trex_host_link_chain(f->ops, f->n, f->prev)))
		st = hl_nomem(err);
	if (st == TREX_OK)
		st = hl_check_fit(l, f, file, &t, &before, err);
	if (st == TREX_OK)
		hl_self_times(l, f, &t, match);
	hl_trace_free(&t);
	free(match);
	return st;
}

/* ---- the link ------------------------------------------------------------------------------ */

static enum trex_status hl_file_open(struct trex_chakra_host_link *l, uint32_t file,
                                     volatile sig_atomic_t *cancel, struct trex_error *err)
{
	struct hl_file *f = &l->files[file];
	struct trex_load_opts o = {.cancel = cancel, .format = "pytorch-et"};
	const char *path = f->path;
	enum trex_status st = trex_load_paths(&path, 1, &o, &f->host, err);

	if (st == TREX_OK) {
		const struct trex_file *tf = trex_index_file(f->host, 0);
		l->st.damaged_host_ets += tf->first_problem.status != TREX_OK || tf->truncated;
		st = hl_host_ops(l, f, err);
	}
	if (st == TREX_OK && f->n == 0)
		st = trex_error_set(err, TREX_FORMAT, f->path, -1, "a host trace without CPU ops");
	if (st == TREX_OK)
		st = hl_sort_ops(f, err);
	if (st == TREX_OK)
		st = hl_match_file(l, f, file, err);
	return st;
}

enum trex_status trex_chakra_host_link_open(const struct trex_index *idx, const char *spec,
                                            volatile sig_atomic_t *cancel,
                                            struct trex_chakra_host_link **out,
                                            struct trex_error *err)
{
	struct trex_chakra_host_link *l;
	char **paths;
	size_t count;
	enum trex_status st;

	*out = NULL;
	if (trex_index_graph(idx))
		return trex_error_set(
		    err, TREX_USAGE, NULL, -1,
		    "--host-et links host ops to a GPU trace (Kineto); this input is "
		    "an execution graph already");
	st = trex_chakra_host_et_paths(idx, spec, &paths, &count, err);
	if (st != TREX_OK)
		return st;
	l = calloc(1, sizeof(*l));
	if (l) {
		l->idx = idx;
		l->files = calloc(count + 1, sizeof(*l->files));
		l->parents = malloc(((size_t)trex_index_slice_count(idx) + 1) * sizeof(uint32_t));
	}
	if (!l || !l->files || !l->parents) {
		trex_chakra_host_et_paths_free(paths, count);
		trex_chakra_host_link_free(l);
		return hl_nomem(err);
	}
	trex_index_parents(idx, l->parents);
	l->nfiles = (uint32_t)count;
	for (uint32_t f = 0; f < l->nfiles; f++)
		l->files[f].path = paths[f]; /* the files own them now */
	free(paths);
	for (uint32_t f = 0; st == TREX_OK && f < l->nfiles; f++)
		st = hl_file_open(l, f, cancel, err);
	if (st != TREX_OK) {
		trex_chakra_host_link_free(l);
		return st;
	}
	*out = l;
	return TREX_OK;
}

void trex_chakra_host_link_free(struct trex_chakra_host_link *l)
{
	if (!l)
		return;
	for (uint32_t i = 0; l->files && i < l->nfiles; i++) {
		struct hl_file *f = &l->files[i];
		trex_index_free(f->host);
		free(f->path);
		free(f->ops);
		free(f->node);
		free(f->slice);
		free(f->self_ns);
		free(f->prev);
		free(f->by_slice);
	}
	free(l->files);
	free(l->parents);
	free(l->deps);
	free(l);
}

const struct trex_chakra_host_link_stats *
trex_chakra_host_link_stats(const struct trex_chakra_host_link *l)
{
	return &l->st;
}

/* ---- the writer's hooks --------------------------------------------------------------------- */

bool trex_chakra_host_link_has_file(const struct trex_chakra_host_link *l, uint32_t file)
{
	return l && file < l->nfiles && l->files[file].n > 0;
}

/* The host ET attributes Chakra's PyTorch converter writes, in its order. */
static size_t hl_attrs(const struct trex_args *a, struct trex_chakra_attr_out *out)
{
	static const char *const ints[] = {"rf_id", "fw_parent", "seq_id",
	                                   "scope", "tid",       "fw_tid"};
	const char *v;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(ints) / sizeof(*ints); i++) {
		char *end;
		long long x;
		if (!(v = hl_arg(a, ints[i])) || !*v)
			continue;
		x = strtoll(v, &end, 10);
		if (!*end)
			out[n++] =
			    (struct trex_chakra_attr_out){ints[i], TREX_CHAKRA_ATTR_INT64, x, NULL};
	}
	if ((v = hl_arg(a, "op_schema")))
		out[n++] =
		    (struct trex_chakra_attr_out){"op_schema", TREX_CHAKRA_ATTR_STRING, 0, v};
	out[n++] = (struct trex_chakra_attr_out){"is_cpu_op", TREX_CHAKRA_ATTR_BOOL, 1, NULL};
	return n;
}

static enum trex_status hl_cpu_node(struct trex_chakra_host_link *l, const struct hl_file *f,
                                    size_t i, trex_chakra_node_fn *emit, void *user,
                                    struct trex_error *err)
{
	const struct trex_graph *g = trex_index_graph(f->host);
	const struct trex_graph_node *gn = trex_graph_node(g, f->node[i]);
	struct trex_chakra_attr_out attrs[8];
	struct trex_args a;
	uint64_t data = f->prev[i] == SIZE_MAX ? 0 : f->ops[f->prev[i]].id, ctrl = f->ops[i].parent;
	enum trex_status st = trex_index_args(f->host, gn->file, gn->attrs, &a, NULL, err);

	if (st != TREX_OK)
		return st;
	struct trex_chakra_node_out n = {
	    .id = f->ops[i].id,
	    .name = f->ops[i].name,
	    .type = TREX_CHAKRA_COMP_NODE,
	    .ctrl_deps = &ctrl,
	    .n_ctrl_deps = trex_host_op_find(f->ops, f->n, ctrl) != SIZE_MAX,
	    .data_deps = &data,
	    .n_data_deps = f->prev[i] != SIZE_MAX,
	    .duration_micros = (uint64_t)f->self_ns[i] / 1000, /* the converter's int(µs) */
	    .attrs = attrs,
	    .n_attrs = hl_attrs(&a, attrs),
	};
	st = emit(user, &n, err);
	trex_args_free(&a);
	l->st.host_ops += st == TREX_OK;
	return st;
}

enum trex_status trex_chakra_host_link_cpu_nodes(struct trex_chakra_host_link *l, uint32_t file,
                                                 trex_chakra_node_fn *emit, void *user,
                                                 struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0;
	     st == TREX_OK && trex_chakra_host_link_has_file(l, file) && i < l->files[file].n; i++)
		st = hl_cpu_node(l, &l->files[file], i, emit, user, err);
	return st;
}

/* The deepest linked CPU op sharing slice's op link (External id). */
static size_t hl_by_op_link(const struct trex_chakra_host_link *l, const struct hl_file *f,
                            uint32_t slice)
{
	uint32_t few[64], *same = few;
	size_t n = trex_index_same_op_link(l->idx, slice, few, 64), best = SIZE_MAX;
	int depth = -1;

	if (n > 64 && (same = malloc(n * sizeof(*same))))
		n = trex_index_same_op_link(l->idx, slice, same, n);
	else if (n > 64)
		same = few, n = 64; /* out of memory: the first ones only */
	for (size_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(l->idx, same[i]);
		size_t op = hl_is_cpu_op(s) ? hl_op_of_slice(f, same[i]) : SIZE_MAX;
		if (op != SIZE_MAX && (int)s->depth > depth) {
			best = op;
			depth = s->depth;
		}
	}
	if (same != few)
		free(same);
	return best;
}

/* The host op that launched device slice: the innermost linked CPU op
 * around its runtime call (chakra_trace_link passes over nccl:coalesced
 * for NCCL kernels: so does this), else by op link; SIZE_MAX if none. */
static size_t hl_launcher(const struct trex_chakra_host_link *l, const struct hl_file *f,
                          uint32_t slice)
{
	const char *name = trex_index_str(l->idx, trex_index_slice(l->idx, slice)->name);
	bool nccl = strcasestr(name, "nccl") != NULL;
	uint32_t up = trex_index_launch_of(l->idx, slice);

	if (up == TREX_NONE)
		return hl_by_op_link(l, f, slice);
	for (; up != TREX_NONE; up = l->parents[up]) {
		const struct trex_slice *s = trex_index_slice(l->idx, up);
		size_t op = hl_is_cpu_op(s) ? hl_op_of_slice(f, up) : SIZE_MAX;
		if (op != SIZE_MAX &&
		    !(nccl && strcmp(trex_index_str(l->idx, s->name), "nccl:coalesced") == 0))
			return op;
	}
	return SIZE_MAX;
}

bool trex_chakra_host_link_gpu_node(struct trex_chakra_host_link *l, uint32_t file, uint32_t slice,
                                    struct trex_chakra_node_out *n)
{
	if (!trex_chakra_host_link_has_file(l, file))
		return true;
	const struct hl_file *f = &l->files[file];
	size_t op = hl_launcher(l, f, slice), need = n->n_data_deps + n->n_ctrl_deps + 2, k = 0;
	uint64_t *deps = trex_grow(l->deps, &l->deps_cap, need, sizeof(*deps), 64);

	if (!deps)
		return false;
	l->deps = deps;
	for (size_t i = 0; i < n->n_data_deps; i++)
		deps[k++] = n->data_deps[i] + f->gpu_base;
	if (op != SIZE_MAX)
		deps[k++] = f->ops[op].id;
	n->data_deps = deps;
	n->n_data_deps = k;
	for (size_t i = 0; i < n->n_ctrl_deps; i++)
		deps[k++] = n->ctrl_deps[i] + f->gpu_base;
	if (op != SIZE_MAX)
		deps[k++] = f->ops[op].id;
	n->ctrl_deps = deps + n->n_data_deps;
	n->n_ctrl_deps = k - n->n_data_deps;
	n->id += f->gpu_base;
	l->st.work_linked += op != SIZE_MAX;
	l->st.work_unlinked += op == SIZE_MAX;
	return true;
}
