/* The Chakra ET writer (chakra_write.h): the set's files, the graph path
 * (nodes of an execution graph) and the GPU-trace path (device work of
 * Kineto, unitrace or Perfetto traces). doc/formats/chakra.md, "Writing",
 * says what each becomes and why. */
#include "config.h"

#include "trex/export/chakra_write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/export/atomic_file.h"
#include "trex/export/chakra_host_link.h"
#include "trex/load/chakra_records.h"
#include "trex/load/classify.h"

#include "chakra_link.h"

#define CW_VERSION "0.0.4" /* what ASTRA-sim's own example traces say */
#define CW_GROUPS_SUFFIX TREX_CHAKRA_GROUPS_SUFFIX
#define CW_OBUF ((size_t)1 << 20) /* ET records go out in writes this large */

struct cw {
	const struct trex_index *idx;
	const struct trex_chakra_write_opts *o;
	struct trex_chakra_write_result *res;
	struct trex_atomic_file **files; /* every file of the set, committed together */
	uint32_t file_count, file_cap;
	FILE *out;                /* the current rank's (ET) or the document's (JSON) */
	struct trex_pb_buf node;  /* one node's payload */
	struct trex_pb_buf frame; /* its record, or its JSON */
	unsigned char *raw;       /* a record read back from its file */
	size_t raw_cap;
	bool first_node;      /* JSON: no comma before the next node */
	char *order0, *order; /* collective types in order: rank 0's, this rank's */
	size_t order0_len, order_len, order_cap;
	uint32_t rank, first_rank;
	struct cw_groups groups;  /* GPU traces: the process groups of the set */
	struct cw_sync_deps sync; /* GPU traces: this rank's waits and syncs */
	uint64_t *deps;           /* GPU traces: one node's dependencies */
	size_t deps_cap;
	char *stale_groups; /* a comm-group file to remove once the set is in place */
	char *obuf;         /* ET: records waiting to be written in one large write */
	size_t olen;
	uint8_t *as_comp; /* GPU traces: per work item of the rank, 1 = a collective's helper */
	struct trex_comm_matcher *comm; /* GPU traces: the classifier's rules, for ops */
	uint64_t records, bytes;        /* written so far, for progress */
};

static enum trex_status cw_nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

static enum trex_status cw_io(struct cw *w, struct trex_error *err)
{
	return trex_error_set(err, TREX_IO, w->o->prefix, -1, "cannot write the Chakra set");
}

/* ---- the set's files -------------------------------------------------------------------- */

static enum trex_status cw_open(struct cw *w, const char *path, struct trex_error *err)
{
	if (w->file_count == w->file_cap) {
		uint32_t cap = w->file_cap ? 2 * w->file_cap : 16;
		void *p = realloc(w->files, cap * sizeof(*w->files));
		if (!p)
			return cw_nomem(err);
		w->files = p;
		w->file_cap = cap;
	}
	enum trex_status st =
	    trex_atomic_open(path, w->o->force, &w->files[w->file_count], &w->out, err);
	if (st == TREX_OK)
		w->file_count++;
	return st;
}

static void cw_abort_all(struct cw *w)
{
	for (uint32_t i = 0; i < w->file_count; i++)
		trex_atomic_abort(w->files[i]);
	w->file_count = 0;
}

/* Renames every file into place once all are written. */
static enum trex_status cw_commit_all(struct cw *w, struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (uint32_t i = 0; i < w->file_count; i++) {
		if (st == TREX_OK)
			st = trex_atomic_commit(w->files[i], err);
		else
			trex_atomic_abort(w->files[i]);
	}
	w->file_count = 0;
	return st;
}

/* ---- records ---------------------------------------------------------------------------- */

/* Writes the records gathered in w->obuf. */
static enum trex_status cw_flush(struct cw *w, struct trex_error *err)
{
	size_t n = w->olen;

	w->olen = 0;
	return n && fwrite(w->obuf, 1, n, w->out) != n ? cw_io(w, err) : TREX_OK;
}

static enum trex_status cw_put(struct cw *w, const struct trex_pb_buf *b, struct trex_error *err)
{
	if (b->oom)
		return cw_nomem(err);
	if (w->o->format == TREX_CHAKRA_OUT_ET && (w->obuf || (w->obuf = malloc(CW_OBUF)))) {
		/* a few large writes instead of one per stdio buffer (4 KiB) */
		if (w->olen + b->len > CW_OBUF && cw_flush(w, err) != TREX_OK)
			return TREX_IO;
		if (b->len <= CW_OBUF) {
			if (b->len)
				memcpy(w->obuf + w->olen, b->p, b->len);
			w->olen += b->len;
			return TREX_OK;
		}
	}
	if (b->len && fwrite(b->p, 1, b->len, w->out) != b->len)
		return cw_io(w, err);
	return TREX_OK;
}

/* Writes one record (payload p, len bytes): framed (ET) or as JSON. */
/* Progress every TREX_CHAKRA_PROGRESS_RECORDS records; the caller's
 * answer may cancel. */
static enum trex_status cw_progress(struct cw *w, struct trex_error *err)
{
	if (++w->records % TREX_CHAKRA_PROGRESS_RECORDS || !w->o->progress)
		return TREX_OK;
	if (w->o->progress(w->o->progress_user, w->records, w->bytes))
		return trex_error_set(err, TREX_CANCELLED, NULL, -1, "cancelled");
	return TREX_OK;
}

static enum trex_status cw_record(struct cw *w, const unsigned char *p, size_t len, bool metadata,
                                  struct trex_error *err)
{
	enum trex_status st = cw_progress(w, err);

	if (st != TREX_OK)
		return st;
	w->bytes += len;
	w->frame.len = 0;
	if (w->o->format == TREX_CHAKRA_OUT_ET) {
		trex_chakra_put_record(&w->frame, p, len);
		return cw_put(w, &w->frame, err);
	}
	if (!metadata && !w->first_node && fputc(',', w->out) == EOF)
		return cw_io(w, err);
	if (!trex_chakra_record_json(p, len, metadata, &w->frame))
		return w->frame.oom ? cw_nomem(err)
		                    : trex_error_set(err, TREX_FORMAT, w->o->prefix, -1,
		                                     "a record of rank %" PRIu32 " does not decode",
		                                     w->rank);
	w->first_node = metadata;
	return cw_put(w, &w->frame, err);
}

static enum trex_status cw_rank_begin(struct cw *w, uint32_t rank, const unsigned char *meta,
                                      size_t meta_len, struct trex_error *err)
{
	enum trex_status st;

	w->rank = rank;
	w->order_len = 0;
	if (w->o->format == TREX_CHAKRA_OUT_ET) {
		size_t n = strlen(w->o->prefix) + 32;
		char *path = malloc(n);
		if (!path)
			return cw_nomem(err);
		snprintf(path, n, "%s.%" PRIu32 ".et", w->o->prefix, rank);
		st = cw_open(w, path, err);
		free(path);
	} else {
		st = fprintf(w->out,
		             "%s\n{\"rank\":%" PRIu32 ",\"metadata\":", w->res->ranks ? "," : "",
		             rank) < 0
		         ? cw_io(w, err)
		         : TREX_OK;
	}
	if (st == TREX_OK)
		st = cw_record(w, meta, meta_len, true, err);
	if (st == TREX_OK && w->o->format == TREX_CHAKRA_OUT_JSON &&
	    fputs(",\"nodes\":[", w->out) < 0)
		st = cw_io(w, err);
	return st;
}

/* Notes where this rank's collectives part from the first rank's. */
static void cw_check_order(struct cw *w)
{
	if (w->res->ranks == 0) {
		char *t = w->order0;
		w->order0 = w->order;
		w->order0_len = w->order_len;
		w->order = t;
		w->order_cap = 0;
		free(w->order);
		w->order = NULL;
		w->first_rank = w->rank;
		return;
	}
	if (w->res->order_differs ||
	    (w->order_len == w->order0_len &&
	     (w->order_len == 0 || memcmp(w->order, w->order0, w->order_len) == 0)))
		return;
	size_t k = 0;
	while (k < w->order_len && k < w->order0_len && w->order[k] == w->order0[k])
		k++;
	w->res->order_differs = true;
	snprintf(w->res->note, sizeof(w->res->note),
	         "collective %zu of rank %" PRIu32 " differs from rank %" PRIu32
	         "'s (%zu and %zu collectives): ASTRA-sim would deadlock",
	         k, w->rank, w->first_rank, w->order_len, w->order0_len);
}

static enum trex_status cw_rank_end(struct cw *w, struct trex_error *err)
{
	if (cw_flush(w, err) != TREX_OK)
		return TREX_IO;
	if (w->o->format == TREX_CHAKRA_OUT_JSON && fputs("]}", w->out) < 0)
		return cw_io(w, err);
	cw_check_order(w);
	w->res->ranks++;
	return TREX_OK;
}

static void cw_count(struct cw *w, enum trex_chakra_node_type type, int comm_type)
{
	w->res->nodes++;
	w->res->by_type[type < TREX_CHAKRA_NODE_TYPES ? type : 0]++;
	if (type != TREX_CHAKRA_COMM_COLL_NODE)
		return;
	if (w->order_len == w->order_cap) {
		size_t cap = w->order_cap ? 2 * w->order_cap : 64;
		char *p = realloc(w->order, cap);
		if (!p)
			return; /* the order check only: it then compares a shorter list */
		w->order = p;
		w->order_cap = cap;
	}
	w->order[w->order_len++] = (char)('0' + (comm_type + 1));
}

static enum trex_status cw_node(struct cw *w, const struct trex_chakra_node_out *n, int comm_type,
                                struct trex_error *err)
{
	w->node.len = 0;
	trex_chakra_encode_node(&w->node, n);
	if (w->node.oom)
		return cw_nomem(err);
	cw_count(w, n->type, comm_type);
	return cw_record(w, w->node.p, w->node.len, false, err);
}

/* ---- the graph path ------------------------------------------------------------------------- */

static uint64_t cw_micros(int64_t ns)
{
	return ns <= 0 ? 0 : (uint64_t)(ns / 1000) + (ns % 1000 >= 500);
}

/* A node of a graph format that is not a .et file, from the graph's facts. */
static enum trex_status cw_graph_node(struct cw *w, const struct trex_graph *g, uint32_t id,
                                      uint64_t **deps, size_t *deps_cap, struct trex_error *err)
{
	const struct trex_graph_node *gn = trex_graph_node(g, id);
	uint32_t ne;
	const uint32_t *in = trex_graph_edges_of(g, id, true, &ne);
	struct trex_chakra_attr_out a[5];
	size_t na = 0, nd = 0;

	if (ne > *deps_cap) {
		uint64_t *p = realloc(*deps, ne * sizeof(*p));
		if (!p)
			return cw_nomem(err);
		*deps = p;
		*deps_cap = ne;
	}
	for (int kind = TREX_DEP_DATA; kind <= TREX_DEP_CTRL; kind++)
		for (uint32_t i = 0; i < ne; i++)
			if (trex_graph_edge(g, in[i])->kind == kind)
				(*deps)[nd++] =
				    trex_graph_node(g, trex_graph_edge(g, in[i])->from)->id;
	size_t n_data = 0;
	for (uint32_t i = 0; i < ne; i++)
		n_data += trex_graph_edge(g, in[i])->kind == TREX_DEP_DATA;
	a[na++] = (struct trex_chakra_attr_out){"is_cpu_op", TREX_CHAKRA_ATTR_BOOL,
	                                        (gn->flags & TREX_NODE_CPU) != 0, NULL};
	int comm_type = -1;
	if (gn->type == TREX_NODE_COMM_COLL && gn->collective != TREX_COLLECTIVE_NONE) {
		comm_type = gn->collective - 1;
		a[na++] = (struct trex_chakra_attr_out){"comm_type", TREX_CHAKRA_ATTR_INT64,
		                                        comm_type, NULL};
	}
	if (gn->comm_bytes >= 0)
		a[na++] = (struct trex_chakra_attr_out){"comm_size", TREX_CHAKRA_ATTR_INT64,
		                                        gn->comm_bytes, NULL};
	if (gn->type == TREX_NODE_COMM_SEND || gn->type == TREX_NODE_COMM_RECV) {
		a[na++] = (struct trex_chakra_attr_out){
		    gn->type == TREX_NODE_COMM_SEND ? "comm_dst" : "comm_src",
		    TREX_CHAKRA_ATTR_INT32, gn->peer, NULL};
		a[na++] = (struct trex_chakra_attr_out){"comm_tag", TREX_CHAKRA_ATTR_INT32, gn->tag,
		                                        NULL};
	} else if (gn->group) {
		a[na++] = (struct trex_chakra_attr_out){"pg_name", TREX_CHAKRA_ATTR_STRING, 0,
		                                        trex_graph_str(g, gn->group)};
	}
	struct trex_chakra_node_out n = {
	    .id = gn->id,
	    .name = trex_graph_str(g, gn->name),
	    .type =
	        (enum trex_chakra_node_type)gn->type, /* TREX_NODE_TYPE_INFO is Chakra's order */
	    .data_deps = *deps,
	    .n_data_deps = n_data,
	    .ctrl_deps = *deps + n_data,
	    .n_ctrl_deps = nd - n_data,
	    .duration_micros = cw_micros(gn->dur),
	    .attrs = a,
	    .n_attrs = na,
	};
	return cw_node(w, &n, comm_type, err);
}

/* A node of a .et file: its own record again, made canonical. */
static enum trex_status cw_et_node(struct cw *w, const struct trex_file *f,
                                   const struct trex_graph_node *gn, struct trex_error *err)
{
	size_t len;
	bool copied;
	enum trex_status st =
	    trex_chakra_file_record(f, (uint64_t)gn->offset, &w->raw, &w->raw_cap, &len, err);

	if (st != TREX_OK)
		return st;
	w->node.len = 0;
	if (!trex_chakra_canonical_node(w->raw, len, &w->node, &copied))
		return w->node.oom
		           ? cw_nomem(err)
		           : trex_error_set(err, TREX_FORMAT, trex_index_str(w->idx, f->path),
		                            gn->offset, "this node's record no longer decodes");
	w->res->copied += copied;
	cw_count(w, (enum trex_chakra_node_type)gn->type,
	         gn->collective != TREX_COLLECTIVE_NONE ? gn->collective - 1 : -1);
	return cw_record(w, w->node.p, w->node.len, false, err);
}

/* The rank's GlobalMetadata: its file's own when it has a non-empty one. */
static enum trex_status cw_graph_metadata(struct cw *w, const struct trex_file *f, uint32_t rank,
                                          struct trex_error *err)
{
	size_t len = SIZE_MAX;

	if (trex_chakra_file_is_et(f)) {
		enum trex_status st = trex_chakra_file_metadata(f, &w->raw, &w->raw_cap, &len, err);
		if (st != TREX_OK)
			return st;
	}
	if (len == SIZE_MAX || len == 0) {
		struct trex_pb_buf b = {0};
		trex_chakra_encode_metadata(&b, CW_VERSION);
		enum trex_status st =
		    b.oom ? cw_nomem(err) : cw_rank_begin(w, rank, b.p, b.len, err);
		trex_pb_buf_free(&b);
		return st;
	}
	return cw_rank_begin(w, rank, w->raw, len, err);
}

static enum trex_status cw_graph(struct cw *w, const struct trex_graph *g, struct trex_error *err)
{
	uint64_t *deps = NULL;
	size_t deps_cap = 0;
	enum trex_status st = TREX_OK;

	for (uint32_t r = 0; st == TREX_OK && r < trex_graph_rank_count(g); r++) {
		uint32_t n;
		const uint32_t *nodes = trex_graph_rank_nodes(g, r, &n);
		if (n == 0)
			continue;
		const struct trex_file *f =
		    trex_index_file(w->idx, trex_graph_node(g, nodes[0])->file);
		bool et = trex_chakra_file_is_et(f);
		st = cw_graph_metadata(w, f, r, err);
		for (uint32_t i = 0; st == TREX_OK && i < n; i++) {
			if (w->o->cancel && *w->o->cancel)
				st = trex_error_set(err, TREX_CANCELLED, NULL, -1, "cancelled");
			else if (et)
				st = cw_et_node(w, f, trex_graph_node(g, nodes[i]), err);
			else
				st = cw_graph_node(w, g, nodes[i], &deps, &deps_cap, err);
		}
		if (st == TREX_OK)
			st = cw_rank_end(w, err);
	}
	free(deps);
	return st;
}

/* ---- the GPU-trace path ------------------------------------------------------------------- */

static int cw_work_cmp(const void *a, const void *b)
{
	const struct cw_work *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	return x->slice < y->slice ? -1 : x->slice > y->slice;
}

static const char *cw_arg(const struct trex_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return a->v[i].value;
	return NULL;
}

/* The first list of a JSON "Input Dims" value ([[394241], ...]): the
 * product of its numbers; 0 when there is none. */
static uint64_t cw_dims_elems(const char *dims)
{
	const char *p = dims ? strchr(dims, '[') : NULL;
	uint64_t n = 1;
	bool any = false;

	if (!p || !(p = strchr(p + 1, '[')))
		return 0;
	for (p++; *p && *p != ']';) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p) {
			p++;
			continue;
		}
		n *= v;
		any = true;
		p = end;
	}
	return any ? n : 0;
}

/* The first string of a JSON list value (["float", ...]) into out. */
static void cw_first_string(const char *list, char *out, size_t size)
{
	const char *p = list ? strchr(list, '"') : NULL;
	size_t n = 0;

	out[0] = '\0';
	if (!p)
		return;
	for (p++; *p && *p != '"' && n + 1 < size; p++)
		out[n++] = *p;
	out[n] = '\0';
}

/* Bytes a collective moves, as its args say: Kineto's "In msg nelems" x
 * "dtype", else a PyTorch op's first input ("Input Dims" x "Input type");
 * 0 when neither is there. */
static uint64_t cw_args_bytes(const struct trex_args *a)
{
	const char *nelems = cw_arg(a, "In msg nelems"), *dtype = cw_arg(a, "dtype");
	char type[32];

	if (nelems && dtype)
		return strtoull(nelems, NULL, 10) * trex_chakra_dtype_size(dtype);
	cw_first_string(cw_arg(a, "Input type"), type, sizeof(type));
	return cw_dims_elems(cw_arg(a, "Input Dims")) * trex_chakra_dtype_size(type);
}

/* Whether a CPU op's name is a process group's or c10d's collective. */
/* Whether name is a collective's call: an op the classifier's OP rules
 * (c10d-op, process-group-op, ...) put its launched work in communication
 * for, so that the writer and the classifier agree on what a call is. */
static bool cw_comm_op(const struct trex_comm_matcher *m, const char *name)
{
	return trex_comm_match(m, TREX_COMM_BY_OP, name) != TREX_COMM_NONE;
}

/* Whether slice's communication rule is its own (its name or args), not
 * the op that launched it. */
static bool cw_comm_itself(const struct trex_index *idx, uint32_t slice)
{
	unsigned comm = trex_slice_comm(idx, slice);
	struct trex_comm_rule r;

	return comm != TREX_COMM_NONE && (!trex_comm_rule(comm, &r) || r.by != TREX_COMM_BY_OP);
}

/* The outermost communication op (cw_comm_op) above the runtime call that
 * launched slice: the collective's call; TREX_NONE if none. */
static uint32_t cw_comm_call(const struct trex_index *idx, const struct trex_comm_matcher *m,
                             uint32_t slice)
{
	uint32_t call = TREX_NONE;

	for (uint32_t up = trex_index_launch_of(idx, slice); up != TREX_NONE;
	     up = trex_index_parent(idx, up))
		if (cw_comm_op(m, trex_index_str(idx, trex_index_slice(idx, up)->name)))
			call = up;
	return call;
}

static int cw_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* One collective is one node. Work that communicates only because a
 * collective's call launched it (a copy kernel inside nccl:all_gather),
 * beside work that is communication itself (the NCCL kernel), helps that
 * collective: it is written as COMP (*as_comp[i] = 1; malloc'd). */
static bool cw_mark_helpers(const struct trex_index *idx, const struct trex_comm_matcher *m,
                            const struct cw_work *work, size_t n, uint8_t **as_comp,
                            uint64_t *helpers)
{
	uint32_t *calls = malloc((n ? n : 1) * sizeof(*calls));
	size_t ncalls = 0;

	*as_comp = calloc(n ? n : 1, 1);
	if (!calls || !*as_comp) {
		free(calls);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t call = cw_comm_itself(idx, work[i].slice)
		                    ? cw_comm_call(idx, m, work[i].slice)
		                    : TREX_NONE;
		if (call != TREX_NONE)
			calls[ncalls++] = call;
	}
	qsort(calls, ncalls, sizeof(*calls), cw_u32_cmp);
	for (size_t i = 0; ncalls && i < n; i++) {
		uint32_t call;

		if (trex_slice_comm(idx, work[i].slice) == TREX_COMM_NONE ||
		    cw_comm_itself(idx, work[i].slice))
			continue;
		call = cw_comm_call(idx, m, work[i].slice);
		if (call != TREX_NONE &&
		    bsearch(&call, calls, ncalls, sizeof(*calls), cw_u32_cmp)) {
			(*as_comp)[i] = 1;
			++*helpers;
		}
	}
	free(calls);
	return true;
}

struct cw_comm {
	int type;             /* CollectiveCommType, -1 unknown */
	uint64_t size;        /* bytes, 0 unknown */
	struct cw_pg_args pg; /* its process group, as the args say */
	bool said;            /* args with Kineto's NCCL set (Collective name) were read */
};

/* The process-group args of a collective, the first ones found. */
static bool cw_pg_from_args(const struct trex_args *a, struct cw_pg_args *pg)
{
	static const char *const keys[] = {"Process Group Name", "Process Group Ranks",
	                                   "Process Group Description"};
	char **slot[] = {&pg->name, &pg->ranks, &pg->desc};

	if (pg->name || pg->ranks)
		return true;
	for (size_t k = 0; k < 3; k++) {
		const char *v = cw_arg(a, keys[k]);
		if (v && !(*slot[k] = strdup(v)))
			return false;
	}
	return true;
}

static enum trex_status cw_comm_from_args(const struct cw *w, uint32_t file,
                                          const struct trex_slice *s, bool op, struct cw_comm *c,
                                          struct trex_error *err)
{
	const struct trex_index *idx = w->idx;

	struct trex_args a;

	if (c->type < 0 && (!op || cw_comm_op(w->comm, trex_index_str(idx, s->name))))
		c->type = trex_chakra_comm_type_of(trex_index_str(idx, s->name));
	if (s->args == TREX_ARGS_NONE || (op && !cw_comm_op(w->comm, trex_index_str(idx, s->name))))
		return TREX_OK;
	enum trex_status st = trex_index_args(idx, file, s->args, &a, NULL, err);
	if (st != TREX_OK)
		return st;
	const char *coll = cw_arg(&a, "Collective name");
	int t = coll ? trex_chakra_comm_type_of(coll) : -1;
	c->said |= coll != NULL;
	if (t >= 0)
		c->type = t; /* the library's own word beats a name's guess */
	if (!c->size)
		c->size = cw_args_bytes(&a);
	bool pg_ok = cw_pg_from_args(&a, &c->pg);
	trex_args_free(&a);
	return pg_ok ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* What a communication kernel is: its own args and name first, then the
 * CPU ops around the runtime call that launched it, innermost first. */
static enum trex_status cw_comm_of(const struct cw *w, uint32_t file, uint32_t slice,
                                   struct cw_comm *c, struct trex_error *err)
{
	const struct trex_index *idx = w->idx;
	enum trex_status st =
	    cw_comm_from_args(w, file, trex_index_slice(idx, slice), false, c, err);
	for (uint32_t up = trex_index_launch_of(idx, slice); st == TREX_OK && up != TREX_NONE;
	     up = trex_index_parent(idx, up)) {
		if (c->type >= 0 && c->size && (c->pg.name || c->pg.ranks || c->said))
			break; /* the process group is said where the collective is */
		st = cw_comm_from_args(w, file, trex_index_slice(idx, up), true, c, err);
	}
	return st;
}

/* A node's dependencies: the work before it on its stream, then what
 * the waits and synchronizations add (into w->deps; how many). */
static size_t cw_gpu_deps(struct cw *w, uint64_t id, uint64_t last, bool *oom)
{
	const struct cw_sync_deps *d = &w->sync;
	size_t extra = d->first ? d->first[id + 1] - d->first[id] : 0, n = 0;

	*oom = false;
	if (1 + extra > w->deps_cap) {
		uint64_t *p = realloc(w->deps, (1 + extra) * sizeof(*p));
		if (!p) {
			*oom = true;
			return 0;
		}
		w->deps = p;
		w->deps_cap = 1 + extra;
	}
	if (last != UINT64_MAX)
		w->deps[n++] = last;
	for (size_t i = 0; i < extra; i++)
		w->deps[n++] = d->dep[d->first[id] + i];
	return n;
}

/* A communication kernel's attributes (a: room for 4 after is_cpu_op). */
static enum trex_status cw_gpu_comm(struct cw *w, uint32_t file, const struct cw_work *work,
                                    struct trex_chakra_node_out *n, struct trex_chakra_attr_out *a,
                                    int *type, struct trex_error *err)
{
	struct cw_comm c = {-1, 0, {NULL, NULL, NULL}, false};
	const char *pg = NULL;
	enum trex_status st = cw_comm_of(w, file, work->slice, &c, err);

	if (st == TREX_OK && c.type >= 0)
		st = cw_groups_name(&w->groups, w->res->ranks, &c.pg, &pg, err);
	cw_pg_args_free(&c.pg);
	*type = c.type;
	if (st != TREX_OK)
		return st;
	if (c.type < 0) {
		w->res->p2p_as_comp++; /* send/recv: no peer known, its time replayed */
		return TREX_OK;
	}
	n->type = TREX_CHAKRA_COMM_COLL_NODE;
	a[n->n_attrs++] =
	    (struct trex_chakra_attr_out){"comm_type", TREX_CHAKRA_ATTR_INT64, c.type, NULL};
	a[n->n_attrs++] = (struct trex_chakra_attr_out){"comm_size", TREX_CHAKRA_ATTR_INT64,
	                                                (int64_t)c.size, NULL};
	if (pg)
		a[n->n_attrs++] =
		    (struct trex_chakra_attr_out){"pg_name", TREX_CHAKRA_ATTR_STRING, 0, pg};
	w->res->comm_size_unknown += c.size == 0;
	return TREX_OK;
}

static enum trex_status cw_gpu_work(struct cw *w, uint32_t file, const struct cw_work *work,
                                    uint64_t id, uint64_t *last_on_track, struct trex_error *err)
{
	const struct trex_slice *s = trex_index_slice(w->idx, work->slice);
	struct trex_chakra_attr_out a[4] = {{"is_cpu_op", TREX_CHAKRA_ATTR_BOOL, 0, NULL}};
	bool oom;
	size_t nd = cw_gpu_deps(w, id, last_on_track[work->track], &oom);
	struct trex_chakra_node_out n = {
	    .id = id,
	    .name = trex_index_str(w->idx, s->name),
	    .type = TREX_CHAKRA_COMP_NODE,
	    .data_deps = w->deps,
	    .n_data_deps = nd,
	    .duration_micros = cw_micros(s->dur),
	    .attrs = a,
	    .n_attrs = 1,
	};
	int type = -1;

	if (oom)
		return cw_nomem(err);
	if (trex_slice_comm(w->idx, work->slice) != TREX_COMM_NONE &&
	    !(w->as_comp && w->as_comp[id])) {
		enum trex_status st = cw_gpu_comm(w, file, work, &n, a, &type, err);
		if (st != TREX_OK)
			return st;
	}
	last_on_track[work->track] = id;
	if (!trex_chakra_host_link_gpu_node(w->o->host_link, file, work->slice, &n))
		return cw_nomem(err);
	return cw_node(w, &n, n.type == TREX_CHAKRA_COMM_COLL_NODE ? type : -1, err);
}

/* Whether slice is device work the set keeps (of the chosen steps, if any). */
static bool cw_kept(const struct trex_index *idx, const struct trex_export_steps *steps,
                    uint32_t slice)
{
	return trex_kind_is_device_work((enum trex_kind)trex_index_slice(idx, slice)->kind) &&
	       (!steps || trex_export_steps_keep(steps, idx, slice));
}

/* The device work of file, in start order (*n of it; malloc'd). */
static struct cw_work *cw_file_work(const struct trex_index *idx,
                                    const struct trex_export_steps *steps, uint32_t file, size_t *n)
{
	struct cw_work *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);
		if (trex_index_track_file(idx, t) != file)
			continue;
		for (uint32_t i = tr->first_slice; i < tr->first_slice + tr->slice_count; i++) {
			const struct trex_slice *s = trex_index_slice(idx, i);
			if (!cw_kept(idx, steps, i))
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 1024;
				struct cw_work *p = realloc(v, cap * sizeof(*v));
				if (!p) {
					free(v);
					*n = SIZE_MAX;
					return NULL;
				}
				v = p;
			}
			v[(*n)++] = (struct cw_work){s->ts, t, i};
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cw_work_cmp);
	return v;
}

/* A host op of --host-et (chakra_host_link.h) as a CPU node. */
static enum trex_status cw_host_node(void *w, const struct trex_chakra_node_out *n,
                                     struct trex_error *err)
{
	return cw_node(w, n, -1, err);
}

static enum trex_status cw_gpu_rank(struct cw *w, uint32_t file, const struct cw_work *work,
                                    size_t n, uint64_t *last_on_track, struct trex_error *err)
{
	struct trex_pb_buf meta = {0};
	enum trex_status st = cw_sync_deps_build(w->idx, file, work, n, &w->sync, err);

	if (st != TREX_OK)
		return st;
	w->res->stream_waits += w->sync.waits;
	w->res->host_syncs += w->sync.syncs;
	w->res->sync_deps += w->sync.edges;
	w->res->syncs_unmatched += w->sync.unmatched;
	free(w->as_comp);
	if (!cw_mark_helpers(w->idx, w->comm, work, n, &w->as_comp, &w->res->comm_helpers)) {
		cw_sync_deps_free(&w->sync);
		return cw_nomem(err);
	}
	trex_chakra_encode_metadata(&meta, CW_VERSION);
	st = meta.oom ? cw_nomem(err) : cw_rank_begin(w, w->res->ranks, meta.p, meta.len, err);
	trex_pb_buf_free(&meta);
	if (st == TREX_OK)
		st = trex_chakra_host_link_cpu_nodes(w->o->host_link, file, cw_host_node, w, err);
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		if (w->o->cancel && *w->o->cancel)
			st = trex_error_set(err, TREX_CANCELLED, NULL, -1, "cancelled");
		else
			st = cw_gpu_work(w, file, &work[i], i, last_on_track, err);
	}
	cw_sync_deps_free(&w->sync);
	return st == TREX_OK ? cw_rank_end(w, err) : st;
}

/* Whether file has device work (is a rank of the set). */
static bool cw_file_has_work(const struct trex_index *idx, const struct trex_export_steps *steps,
                             uint32_t file)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);
		if (trex_index_track_file(idx, t) != file)
			continue;
		for (uint32_t i = tr->first_slice; i < tr->first_slice + tr->slice_count; i++)
			if (cw_kept(idx, steps, i))
				return true;
	}
	return false;
}

/* The process groups of the set's collectives, once its ranks are known. */
static enum trex_status cw_groups_begin(struct cw *w, struct trex_error *err)
{
	uint32_t nfiles = trex_index_file_count(w->idx), n = 0;
	uint32_t *files = malloc((nfiles ? nfiles : 1) * sizeof(*files));

	if (!files)
		return cw_nomem(err);
	for (uint32_t f = 0; f < nfiles; f++)
		if (cw_file_has_work(w->idx, w->o->steps, f))
			files[n++] = f;
	enum trex_status st = cw_groups_init(&w->groups, w->idx, files, n, err);
	free(files);
	return st;
}

/* {prefix}.comm_groups.json beside an ET set when a collective names a
 * group (with force and none, a stale one is removed on success). */
static enum trex_status cw_groups_file(struct cw *w, struct trex_error *err)
{
	size_t n = strlen(w->o->prefix) + sizeof(CW_GROUPS_SUFFIX);
	char *path = malloc(n);
	enum trex_status st = path ? TREX_OK : cw_nomem(err);

	if (st == TREX_OK)
		snprintf(path, n, "%s%s", w->o->prefix, CW_GROUPS_SUFFIX);
	w->res->groups = w->groups.n;
	w->res->groups_by_use = cw_groups_by_use(&w->groups);
	w->res->groups_outside = w->groups.outside;
	w->res->groups_conflicts = w->groups.conflicts;
	w->res->groups_named = w->groups.named_by_us;
	w->res->pg_tagged = w->groups.nodes_tagged;
	if (st == TREX_OK && w->groups.n) {
		st = cw_open(w, path, err);
		if (st == TREX_OK &&
		    (!cw_groups_json(&w->groups, w->out) || fputc('\n', w->out) == EOF))
			st = cw_io(w, err);
		w->res->groups_file = st == TREX_OK;
	} else if (st == TREX_OK && w->o->force) {
		w->stale_groups = path;
		path = NULL;
	}
	free(path);
	return st;
}

/* Each file with device work is one rank, numbered from 0 in file order. */
static enum trex_status cw_gpu(struct cw *w, struct trex_error *err)
{
	uint32_t tracks = trex_index_track_count(w->idx);
	uint64_t *last = malloc((tracks ? tracks : 1) * sizeof(*last));
	enum trex_status st = last ? TREX_OK : cw_nomem(err);

	for (uint32_t t = 0; last && t < tracks; t++)
		last[t] = UINT64_MAX;
	if (st == TREX_OK)
		st = trex_comm_matcher_new(&w->comm, err);
	if (st == TREX_OK)
		st = cw_groups_begin(w, err);
	for (uint32_t f = 0; st == TREX_OK && f < trex_index_file_count(w->idx); f++) {
		size_t n;
		struct cw_work *work = cw_file_work(w->idx, w->o->steps, f, &n);
		if (n == SIZE_MAX)
			st = cw_nomem(err);
		else if (n || trex_chakra_host_link_has_file(w->o->host_link, f))
			st = cw_gpu_rank(w, f, work, n, last, err);
		free(work);
	}
	free(last);
	if (st == TREX_OK && w->o->format == TREX_CHAKRA_OUT_ET)
		st = cw_groups_file(w, err);
	if (st == TREX_OK && w->o->format == TREX_CHAKRA_OUT_JSON &&
	    (fputs("\n],\"comm_groups\":", w->out) < 0 || !cw_groups_json(&w->groups, w->out)))
		st = cw_io(w, err);
	if (st == TREX_OK && w->o->format == TREX_CHAKRA_OUT_JSON) {
		w->res->groups = w->groups.n;
		w->res->pg_tagged = w->groups.nodes_tagged;
	}
	return st;
}

/* ---- the set -------------------------------------------------------------------------------- */

static void cw_free(struct cw *w)
{
	cw_abort_all(w);
	free(w->files);
	trex_pb_buf_free(&w->node);
	trex_pb_buf_free(&w->frame);
	free(w->raw);
	free(w->order0);
	free(w->order);
	free(w->deps);
	free(w->stale_groups);
	free(w->obuf);
	free(w->as_comp);
	trex_comm_matcher_free(w->comm);
	cw_groups_free(&w->groups);
}

enum trex_status trex_chakra_write(const struct trex_index *idx,
                                   const struct trex_chakra_write_opts *opts,
                                   struct trex_chakra_write_result *res, struct trex_error *err)
{
	struct cw w = {.idx = idx, .o = opts, .res = res};
	const struct trex_graph *g = trex_index_graph(idx);
	enum trex_status st = TREX_OK;

	memset(res, 0, sizeof(*res));
	if (opts->format == TREX_CHAKRA_OUT_JSON) {
		st = cw_open(&w, opts->prefix, err);
		if (st == TREX_OK && fputs("{\"ranks\":[", w.out) < 0)
			st = cw_io(&w, err);
	}
	if (st == TREX_OK)
		st = g ? cw_graph(&w, g, err) : cw_gpu(&w, err);
	if (st == TREX_OK && res->ranks == 0)
		st = trex_error_set(
		    err, TREX_USAGE, NULL, -1,
		    "nothing to write as Chakra: no execution graph and no device work");
	if (st == TREX_OK && opts->format == TREX_CHAKRA_OUT_JSON &&
	    fputs(g ? "\n]}\n" : "}\n", w.out) < 0)
		st = cw_io(&w, err);
	if (st == TREX_OK)
		st = cw_commit_all(&w, err);
	if (st == TREX_OK && w.stale_groups)
		remove(w.stale_groups); /* a set without groups: no stale file beside it */
	cw_free(&w);
	return st;
}
