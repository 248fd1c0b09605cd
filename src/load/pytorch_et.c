/* PyTorch host execution traces (doc/formats/pytorch-et.md): the JSON
 * file PyTorch's ExecutionTraceObserver writes, {"schema", "pid", "time",
 * "start_ts", "nodes": [...], "finish_ts"}, and the same file after
 * chakra_trace_link has merged a Kineto trace into it (GPU ops with a
 * "cat", durations). Each node object becomes one graph node of the
 * file's rank: its id, name, type (Chakra's PyTorch converter's rules), a
 * duration when the file has one, and its parent op ("ctrl_deps") as a
 * control dependency; the node object itself is its args (rf_id, seq_id,
 * tid, op_schema, inputs, outputs, ... through pytorch_et_args.c), so a
 * later step can link the ops to a Kineto trace by rf_id.
 *
 * Damage is salvaged as the Chrome loader does: a node object that does
 * not parse is skipped up to the next node (counted, the first one with
 * its position), input that ends inside the node list keeps the nodes
 * before it. */
#include "config.h"

#include "formats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "pytorch_et.h"
#include "trex/core/graph.h"
#include "trex/core/grow.h"
#include "trex/load/json_args.h"

#define PE_PG_INIT "## process_group:init ##"

/* What one node object says. Strings point into the file's text. */
struct pe_node {
	uint64_t id;
	const char *name, *parents; /* parents: the "ctrl_deps" value (an id or a list) */
	size_t name_len;
	unsigned name_flags;  /* JSON_STR_* */
	uint64_t offset, len; /* the object in the file */
	int64_t dur;          /* ns, TREX_GRAPH_DUR_UNKNOWN */
	int64_t comm_bytes;
	const char *inputs, *pg_name; /* NULL: none */
	size_t pg_len;
	bool gpu; /* has "cat": a device op trace_link added */
	uint8_t type;
	uint8_t collective;
};

struct pe_reader {
	const char *text, *end, *path;
	struct trex_build_file *file;
	struct pe_node *nodes;
	size_t count, cap;
	bool has_nodes;
	const char *dialect;
};

/* ---- problems ------------------------------------------------------------------------------- */

/* Counts a problem of the file, the first one with its position. */
static void pe_problem(struct pe_reader *r, enum trex_integrity_counter c, uint64_t n,
                       const char *at, const char *what)
{
	trex_integrity_count(&r->file->integrity, c, n);
	if (r->file->first_problem.status == TREX_OK)
		trex_error_set(&r->file->first_problem, TREX_FORMAT, r->path,
		               (int64_t)(at - r->text), "%s", what);
}

static enum trex_status pe_syntax(struct pe_reader *r, const char *at, const char *what,
                                  struct trex_error *err)
{
	if (at >= r->end)
		return trex_error_set(err, TREX_FORMAT, r->path, (int64_t)(r->end - r->text),
		                      "%s, found the end of input", what);
	return trex_error_set(err, TREX_FORMAT, r->path, (int64_t)(at - r->text), "%s, found '%c'",
	                      what, *at);
}

/* ---- one node object ------------------------------------------------------------------------- */

static bool pe_key_is(const char *key, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(key, want, len) == 0;
}

/* A duration in µs (trace_link's "exclusive_dur", or "dur"): kept in ns. */
static void pe_duration(struct pe_reader *r, struct pe_node *n, const char *v, const char *end)
{
	bool saturated = false;
	const char *after;
	int64_t ns;

	if (json_parse_us_ns(v, r->end, &ns, &saturated, &after) == JSON_OK && after == end &&
	    !saturated && ns >= 0)
		n->dur = ns;
	else
		pe_problem(r, TREX_INTEG_bad_dur, 1, v, "a node's duration is no time in us");
}

/* One member of a node object, its value at v (known to end at end). */
static void pe_member(struct pe_reader *r, struct pe_node *n, const char *key, size_t klen,
                      const char *v, const char *end, bool *has_id)
{
	int64_t id = 0;
	bool is_int, saturated = false;
	const char *after;
	unsigned flags = 0;

	if (pe_key_is(key, klen, "id")) {
		*has_id = json_parse_int(v, r->end, &id, &is_int, &saturated, &after) == JSON_OK &&
		          after == end && is_int && !saturated && id >= 0;
		n->id = (uint64_t)id;
	} else if (pe_key_is(key, klen, "name") && *v == '"') {
		n->name = v + 1;
		n->name_len = (size_t)(json_string_end(v + 1, end, &flags) - n->name);
		n->name_flags = flags;
	} else if (pe_key_is(key, klen, "ctrl_deps")) {
		n->parents = v;
	} else if (pe_key_is(key, klen, "cat")) {
		n->gpu = true;
	} else if (pe_key_is(key, klen, "exclusive_dur") ||
	           (pe_key_is(key, klen, "dur") && n->dur == TREX_GRAPH_DUR_UNKNOWN)) {
		pe_duration(r, n, v, end);
	} else if (pe_key_is(key, klen, "inputs")) {
		n->inputs = v;
	} else if (pe_key_is(key, klen, "pg_name") && *v == '"') {
		n->pg_name = v + 1;
		n->pg_len = (size_t)(json_string_end(v + 1, end, &flags) - n->pg_name);
	}
}

/* The node object at p ('{'); *out after it. On a syntax error *out is
 * the damaged byte and the result false. */
static bool pe_node_parse(struct pe_reader *r, const char *p, struct pe_node *n, bool *has_id,
                          const char **out)
{
	const char *end = r->end, *key, *kend, *v, *bad = NULL;
	unsigned flags = 0;

	*n = (struct pe_node){
	    .offset = (uint64_t)(p - r->text), .dur = TREX_GRAPH_DUR_UNKNOWN, .comm_bytes = -1};
	*has_id = false;
	for (p = json_skip_ws(p + 1, end); p < end && *p != '}';) {
		if (*p != '"')
			break;
		if (!(kend = json_string_end((key = p + 1), end, &flags))) {
			p = end; /* cut inside a key */
			break;
		}
		if (!(v = json_skip_colon(kend + 1, end, &bad)) || v >= end)
			break;
		enum json_scan_status js = json_skip_value_fast(v, end, &p);
		if (js != JSON_OK) {
			p = js == JSON_INCOMPLETE ? end : p;
			break;
		}
		pe_member(r, n, key, (size_t)(kend - key), v, p, has_id);
		p = json_skip_ws(p, end);
		if (p < end && *p == ',')
			p = json_skip_ws(p + 1, end);
		else if (p < end && *p != '}')
			break;
	}
	if (p >= end || *p != '}') {
		*out = bad ? bad : p;
		return false;
	}
	*out = p + 1;
	n->len = (uint64_t)(*out - r->text) - n->offset;
	return true;
}

/* ---- the node list --------------------------------------------------------------------------- */

/* The next node object after a damaged spot: a '{' whose first key is "id",
 * as the observer writes every node; end when there is none. */
static const char *pe_resync(const char *p, const char *end)
{
	while ((p = memchr(p, '{', (size_t)(end - p)))) {
		const char *q = json_skip_ws(p + 1, end);
		if (end - q >= 4 && memcmp(q, "\"id\"", 4) == 0)
			return p;
		p++;
	}
	return end;
}

static bool pe_keep(struct pe_reader *r, const struct pe_node *n)
{
	struct pe_node *v = trex_grow(r->nodes, &r->cap, r->count + 1, sizeof(*v), 256);

	if (!v)
		return false;
	r->nodes = v;
	r->nodes[r->count++] = *n;
	return true;
}

/* Whether the top level closes properly after p: members, then '}' and
 * the end of input. */
static bool pe_top_closes(const char *p, const char *end)
{
	const char *bad;
	unsigned flags = 0;

	for (p = json_skip_ws(p, end); p < end && *p == ',';) {
		p = json_skip_ws(p + 1, end);
		if (p >= end || *p != '"' || !(p = json_string_end(p + 1, end, &flags)) ||
		    !(p = json_skip_colon(p + 1, end, &bad)) ||
		    json_skip_value(p, end, &p) != JSON_OK)
			return false;
		p = json_skip_ws(p, end);
	}
	return p < end && *p == '}' && json_skip_ws(p + 1, end) == end;
}

/* The ']' that ends the node list when no node follows a damaged one:
 * the last one after at that the rest of the top level follows; NULL if
 * none (the input was cut). */
static const char *pe_list_end(const char *at, const char *end)
{
	const char *p = end;

	while (p > at && (p = memrchr(at, ']', (size_t)(p - at))))
		if (pe_top_closes(p + 1, end))
			return p;
	return NULL;
}

/* A damaged spot from `from` (the node or separator that did not parse,
 * the damaged byte at `at`): skipped to the next node or to the end of the
 * node list, else the input was cut there. Returns where to go on. */
static const char *pe_damage(struct pe_reader *r, const char *from, const char *at)
{
	char what[96];
	const char *next = pe_resync(at < r->end ? at + 1 : at, r->end);

	if (next >= r->end && at < r->end)
		next = pe_list_end(at, r->end);
	if (!next || next >= r->end) {
		snprintf(what, sizeof(what), "the node list %s: the rest ignored",
		         at >= r->end ? "is cut off" : "is damaged here");
		pe_problem(r, TREX_INTEG_bytes_ignored, (uint64_t)(r->end - from), at, what);
		trex_integrity_count(&r->file->integrity, TREX_INTEG_events_lost, 1);
		r->file->truncated = true;
		return r->end;
	}
	pe_problem(r, TREX_INTEG_syntax_errors, 1, at, "a damaged node: skipped to the next one");
	trex_integrity_count(&r->file->integrity, TREX_INTEG_bytes_skipped,
	                     (uint64_t)(next - from));
	trex_integrity_count(&r->file->integrity, TREX_INTEG_events_lost, 1);
	return next;
}

/* The "nodes" list at p ('['); returns the position after it, or NULL
 * (out of memory). */
static const char *pe_nodes(struct pe_reader *r, const char *p)
{
	const char *end = r->end, *after;
	struct pe_node n;
	bool has_id;

	for (p = json_skip_ws(p + 1, end); p < end && *p != ']';) {
		const char *from = p;
		if (*p != '{' || !pe_node_parse(r, p, &n, &has_id, &after)) {
			p = pe_damage(r, from, *p != '{' ? p : after);
			continue;
		}
		if (!has_id)
			pe_problem(r, TREX_INTEG_missing_fields, 1, from,
			           "a node without an id (a non-negative integer): dropped");
		else if (!pe_keep(r, &n))
			return NULL;
		p = json_skip_ws(after, end);
		if (p < end && *p == ',')
			p = json_skip_ws(p + 1, end);
		else if (p < end && *p != ']')
			p = pe_damage(r, p, p);
	}
	if (p >= end)
		return end;
	return p + 1;
}

/* ---- the top level --------------------------------------------------------------------------- */

static const char *const pe_schemas[] = {
    "1.0.1",
    "1.0.2-chakra.0.0.4",
    "1.0.3-chakra.0.0.4",
    "1.1.0-chakra.0.0.4",
    "1.1.1-chakra.0.0.4",
    "1.1.1-chakra.1.0.0",
};

/* The dialect names the schema when it is one PyTorch wrote. */
static void pe_schema(struct pe_reader *r, const char *v, const char *end)
{
	unsigned flags = 0;
	const char *close = *v == '"' ? json_string_end(v + 1, end, &flags) : NULL;

	r->dialect = "host-et (unknown schema)";
	for (size_t i = 0; close && i < sizeof(pe_schemas) / sizeof(*pe_schemas); i++)
		if (pe_key_is(v + 1, (size_t)(close - v - 1), pe_schemas[i]))
			r->dialect = pe_schemas[i];
}

/* One top-level member at p (a '"'): *p_out after its value. */
static enum trex_status pe_top_member(struct pe_reader *r, const char **p_out,
                                      struct trex_error *err)
{
	const char *p = *p_out, *end = r->end, *kend, *v, *bad = NULL;
	unsigned flags = 0;

	if (!(kend = json_string_end(p + 1, end, &flags)))
		return pe_syntax(r, end, "expected the end of a key", err);
	if (!(v = json_skip_colon(kend + 1, end, &bad)) || v >= end)
		return pe_syntax(r, bad ? bad : end, "expected ':' after a key", err);
	size_t klen = (size_t)(kend - p - 1);
	if (pe_key_is(p + 1, klen, "nodes") && *v == '[') {
		r->has_nodes = true;
		if (!(*p_out = pe_nodes(r, v)))
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		return TREX_OK;
	}
	if (pe_key_is(p + 1, klen, "nodes"))
		return pe_syntax(r, v, "expected the list of nodes ('[')", err);
	enum json_scan_status js = json_skip_value(v, end, p_out);
	if (js != JSON_OK)
		return pe_syntax(r, js == JSON_INCOMPLETE ? end : *p_out, "expected a JSON value",
		                 err);
	if (pe_key_is(p + 1, klen, "schema"))
		pe_schema(r, v, *p_out);
	return TREX_OK;
}

/* After the node list a damaged or cut top level loses no node: said, the
 * rest ignored. */
static void pe_tail_damage(struct pe_reader *r, const char *at)
{
	pe_problem(r, TREX_INTEG_bytes_ignored, (uint64_t)(r->end - at), at,
	           at >= r->end ? "the trace is cut after its node list"
	                        : "damaged JSON after the node list: the rest ignored");
	r->file->truncated = at >= r->end;
}

static enum trex_status pe_parse(struct pe_reader *r, struct trex_error *err)
{
	const char *p = r->text, *end = r->end;

	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	p = json_skip_ws(p, end);
	if (p >= end || *p != '{')
		return pe_syntax(r, p, "expected a PyTorch execution trace (a JSON object)", err);
	for (p = json_skip_ws(p + 1, end); p < end && *p != '}';) {
		if (*p != '"' && r->has_nodes) {
			pe_tail_damage(r, p);
			return TREX_OK;
		}
		if (*p != '"')
			return pe_syntax(r, p, "expected a key", err);
		enum trex_status s = pe_top_member(r, &p, err);
		if (s != TREX_OK && r->has_nodes && s != TREX_NOMEM) {
			trex_error_clear(err);
			pe_tail_damage(r, p);
			return TREX_OK;
		}
		if (s != TREX_OK)
			return s;
		p = json_skip_ws(p, end);
		if (p < end && *p == ',')
			p = json_skip_ws(p + 1, end);
	}
	if (!r->has_nodes)
		return pe_syntax(r, p, "expected a \"nodes\" list (a PyTorch execution trace)",
		                 err);
	if (p >= end)
		pe_tail_damage(r, p);
	return TREX_OK;
}

/* ---- node types: Chakra's PyTorch converter's rules ------------------------------------------ */

static bool pe_name_has(const struct pe_node *n, const char *word)
{
	return n->name && memmem(n->name, n->name_len, word, strlen(word));
}

/* The collective a kernel's name says: lower-cased, '_' and '-' dropped,
 * the first of the converter's words it contains. */
static enum trex_collective pe_collective(const struct pe_node *n)
{
	static const struct {
		const char *word;
		enum trex_collective c;
	} words[] = {
	    {"allreduce", TREX_COLLECTIVE_ALL_REDUCE},
	    {"alltoall", TREX_COLLECTIVE_ALL_TO_ALL},
	    {"allgather", TREX_COLLECTIVE_ALL_GATHER},
	    {"reducescatter", TREX_COLLECTIVE_REDUCE_SCATTER},
	    {"broadcast", TREX_COLLECTIVE_BROADCAST},
	};
	char flat[512];
	size_t k = 0;

	for (size_t i = 0; i < n->name_len && k < sizeof(flat) - 1; i++) {
		char c = n->name[i];
		if (c != '_' && c != '-')
			flat[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	flat[k] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strstr(flat, words[i].word))
			return words[i].c;
	return TREX_COLLECTIVE_NONE;
}

static int pe_cmp_id(const void *a, const void *b, void *nodes_arg)
{
	const struct pe_node *nodes = nodes_arg;
	uint64_t x = nodes[*(const size_t *)a].id, y = nodes[*(const size_t *)b].id;

	return (x > y) - (x < y);
}

/* The node with id, through order (node indices sorted by id); NULL if none. */
static const struct pe_node *pe_find(const struct pe_reader *r, const size_t *order, uint64_t id)
{
	size_t lo = 0, hi = r->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->nodes[order[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->count && r->nodes[order[lo]].id == id ? &r->nodes[order[lo]] : NULL;
}

/* The parent id when "ctrl_deps" is one integer. */
static bool pe_single_parent(const struct pe_node *n, const char *end, uint64_t *id)
{
	int64_t v;
	bool is_int, saturated = false;
	const char *after;

	if (!n->parents ||
	    json_parse_int(n->parents, end, &v, &is_int, &saturated, &after) != JSON_OK ||
	    !is_int || saturated || v < 0)
		return false;
	*id = (uint64_t)v;
	return true;
}

/* ncclDevKernel_SendRecv: a send, a receive or an all-to-all, as its
 * launching op (the parent) says. */
static void pe_send_recv(const struct pe_reader *r, const size_t *order, struct pe_node *n)
{
	uint64_t pid;
	const struct pe_node *parent =
	    order && pe_single_parent(n, r->end, &pid) ? pe_find(r, order, pid) : NULL;

	n->type = TREX_NODE_COMM_COLL;
	n->collective = TREX_COLLECTIVE_NONE;
	if (parent && (pe_name_has(parent, "all_to_all") || pe_name_has(parent, "alltoall")))
		n->collective = TREX_COLLECTIVE_ALL_TO_ALL;
	else if (parent && pe_name_has(parent, "send"))
		n->type = TREX_NODE_COMM_SEND;
	else if (parent && pe_name_has(parent, "recv"))
		n->type = TREX_NODE_COMM_RECV;
}

static bool pe_is_nccl_kernel(const struct pe_node *n)
{
	return n->gpu && (pe_name_has(n, "ncclKernel") || pe_name_has(n, "ncclDevKernel"));
}

/* Every node's type; order is made when a send/receive kernel needs its parent's name. */
static bool pe_classify(struct pe_reader *r)
{
	size_t *order = NULL;

	for (size_t i = 0; i < r->count && !order; i++)
		if (pe_is_nccl_kernel(&r->nodes[i]) && pe_name_has(&r->nodes[i], "SendRecv")) {
			if (!(order = malloc(r->count * sizeof(*order))))
				return false;
			for (size_t k = 0; k < r->count; k++)
				order[k] = k;
			qsort_r(order, r->count, sizeof(*order), pe_cmp_id, r->nodes);
		}
	for (size_t i = 0; i < r->count; i++) {
		struct pe_node *n = &r->nodes[i];
		n->type = TREX_NODE_COMP;
		n->collective = TREX_COLLECTIVE_NONE;
		if (n->name && pe_key_is(n->name, n->name_len, PE_PG_INIT))
			n->type = TREX_NODE_METADATA;
		else if (pe_is_nccl_kernel(n) && pe_name_has(n, "SendRecv"))
			pe_send_recv(r, order, n);
		else if (pe_is_nccl_kernel(n))
			n->type = TREX_NODE_COMM_COLL, n->collective = (uint8_t)pe_collective(n);
	}
	free(order);
	return true;
}

/* ---- communication sizes ------------------------------------------------------------------- */

/* The n-th (0-based) integer of a JSON list at p, or -1. */
static int64_t pe_list_int(const char *p, const char *end, int nth)
{
	int64_t v = -1;
	bool is_int, saturated = false;

	if (p >= end || *p != '[')
		return -1;
	p = json_skip_ws(p + 1, end);
	for (int i = 0; p < end && *p != ']'; i++) {
		const char *next;
		if (i == nth)
			return json_parse_int(p, end, &v, &is_int, &saturated, &next) == JSON_OK &&
			               is_int && !saturated
			           ? v
			           : -1;
		if (json_skip_value(p, end, &next) != JSON_OK)
			return -1;
		p = json_skip_ws(next, end);
		if (p < end && *p == ',')
			p = json_skip_ws(p + 1, end);
	}
	return -1;
}

/* The value of key in the object at p, or NULL. */
static const char *pe_object_value(const char *p, const char *end, const char *key)
{
	const char *bad, *v, *kend;
	unsigned flags = 0;

	if (p >= end || *p != '{')
		return NULL;
	for (p = json_skip_ws(p + 1, end); p < end && *p == '"'; p = json_skip_ws(p, end)) {
		if (!(kend = json_string_end(p + 1, end, &flags)) ||
		    !(v = json_skip_colon(kend + 1, end, &bad)))
			return NULL;
		if (pe_key_is(p + 1, (size_t)(kend - p - 1), key))
			return v;
		if (json_skip_value(v, end, &p) != JSON_OK)
			return NULL;
		p = json_skip_ws(p, end);
		if (p < end && *p == ',')
			p++;
	}
	return NULL;
}

/* The converter's comm_size: the bytes of the Tensor inputs, each a list
 * [tensor id, storage id, offset, elements, bytes per element, device]. */
static int64_t pe_tensor_bytes(const char *inputs, const char *end)
{
	const char *values = pe_object_value(inputs, end, "values");
	const char *types = pe_object_value(inputs, end, "types");
	int64_t sum = 0;

	if (!values || !types || *values != '[' || *types != '[')
		return -1;
	values = json_skip_ws(values + 1, end);
	types = json_skip_ws(types + 1, end);
	while (values < end && types < end && *values != ']' && *types != ']') {
		const char *v_next, *t_next;
		if (json_skip_value(values, end, &v_next) != JSON_OK ||
		    json_skip_value(types, end, &t_next) != JSON_OK)
			break;
		int64_t elems = pe_list_int(values, v_next, 3),
		        size = pe_list_int(values, v_next, 4);
		if (end - types > 8 && memcmp(types, "\"Tensor(", 8) == 0 && elems >= 0 &&
		    size >= 0 && (size == 0 || elems <= (INT64_MAX - sum) / size))
			sum += elems * size;
		values = json_skip_ws(v_next, end);
		types = json_skip_ws(t_next, end);
		values = json_skip_ws(values + (values < end && *values == ','), end);
		types = json_skip_ws(types + (types < end && *types == ','), end);
	}
	return sum;
}

/* ---- into the graph ---------------------------------------------------------------------- */

struct pe_emit {
	struct pe_reader *r;
	struct trex_graph *g;
	uint32_t file, rank;
	char *scratch; /* decoded names */
	size_t scratch_cap;
	uint64_t counts[TREX_NODE_TYPE_COUNT];
};

/* A JSON string's text, unescaped and made valid UTF-8 when it must be. */
static uint32_t pe_intern(struct pe_emit *e, const char *s, size_t len, unsigned flags,
                          const char *at)
{
	bool repaired = false;

	if (!(flags & (JSON_STR_ESCAPED | JSON_STR_NONASCII)))
		return trex_graph_intern(e->g, s, len);
	char *buf = trex_grow(e->scratch, &e->scratch_cap, 3 * len + 1, 1, 256);
	if (!buf)
		return TREX_GRAPH_NONE;
	e->scratch = buf;
	size_t n = json_decode_string(s, len, buf, &repaired);
	if (repaired)
		pe_problem(e->r, TREX_INTEG_invalid_utf8, 1, at, "a name with invalid UTF-8");
	return trex_graph_intern(e->g, buf, n);
}

/* "ctrl_deps": the parent op as a control dependency; the root names
 * itself (the observer writes the process node so); a list is taken
 * whole (every id one parent). Returns false when out of memory. */
static bool pe_parents(struct pe_emit *e, const struct pe_node *n, uint32_t node)
{
	const char *p = n->parents, *end = e->r->end;
	uint64_t id;

	if (!p || *p == 'n') /* none, or null */
		return true;
	if (pe_single_parent(n, end, &id))
		return id == n->id || trex_graph_add_dep(e->g, node, id, TREX_DEP_CTRL) == 0;
	if (*p != '[') {
		pe_problem(e->r, TREX_INTEG_bad_values, 1, p,
		           "ctrl_deps is no node id or list of them: ignored");
		return true;
	}
	for (int i = 0;; i++) {
		int64_t v = pe_list_int(p, end, i);
		if (v < 0)
			return true;
		if ((uint64_t)v != n->id &&
		    trex_graph_add_dep(e->g, node, (uint64_t)v, TREX_DEP_CTRL))
			return false;
	}
}

static bool pe_add(struct pe_emit *e, size_t i)
{
	struct pe_node *n = &e->r->nodes[i];
	const char *at = e->r->text + n->offset;
	const char *end = e->r->end;

	if (n->type != TREX_NODE_COMP && n->type != TREX_NODE_METADATA && n->inputs)
		n->comm_bytes = pe_tensor_bytes(n->inputs, end);
	struct trex_graph_node g = {
	    .id = n->id,
	    .dur = n->dur,
	    .comm_bytes = n->comm_bytes,
	    .attrs = trex_json_args_ref(n->offset, n->len),
	    .offset = (int64_t)n->offset,
	    .record = (uint32_t)i,
	    .file = e->file,
	    .rank = e->rank,
	    .name = n->name ? pe_intern(e, n->name, n->name_len, n->name_flags, at) : 0,
	    .group = n->pg_name ? pe_intern(e, n->pg_name, n->pg_len, 0, at) : 0,
	    .peer = -1,
	    .match = TREX_GRAPH_NONE,
	    .slice = TREX_GRAPH_NONE,
	    .type = n->type,
	    .collective = n->collective,
	    .flags = n->gpu ? 0 : TREX_NODE_CPU,
	};
	if (g.name == TREX_GRAPH_NONE || g.group == TREX_GRAPH_NONE)
		return false;
	uint32_t node = trex_graph_add_node(e->g, &g);
	e->counts[n->type]++;
	return node != TREX_GRAPH_NONE && pe_parents(e, n, node);
}

static void pe_event_types(struct trex_build_file *f, const uint64_t *counts)
{
	f->event_type_count = 0;
	for (int t = 0; t < TREX_NODE_TYPE_COUNT; t++) {
		if (!counts[t])
			continue;
		struct trex_build_event_type *et = &f->event_types[f->event_type_count++];
		et->label = trex_node_type_label(t);
		et->name = "nodes";
		et->events = counts[t];
		f->events += counts[t];
	}
}

/* The rank is the file's place among the inputs: a host trace names none. */
static enum trex_status pe_emit_all(struct trex_load_job *job, struct pe_reader *r,
                                    struct trex_error *err)
{
	struct pe_emit e = {.r = r, .g = job->graph, .file = job->file_id, .rank = job->file_id};
	bool ok = pe_classify(r);

	for (size_t i = 0; ok && i < r->count; i++)
		ok = pe_add(&e, i);
	free(e.scratch);
	if (!ok)
		return trex_error_set(err, TREX_NOMEM, r->path, -1,
		                      "out of memory making the graph of %zu nodes", r->count);
	pe_event_types(r->file, e.counts);
	return TREX_OK;
}

/* ---- the format ---------------------------------------------------------------------------- */

/* The decoded text: mapped when the file is plain, else read whole. */
static enum trex_status pe_text(struct trex_source *src, char **owned, const char **text,
                                size_t *len, struct trex_error *err)
{
	size_t cap = 0, got = 0;

	*owned = NULL;
	if ((*text = trex_source_map(src, len)))
		return TREX_OK;
	*len = 0;
	do {
		char *bigger = trex_grow(*owned, &cap, *len + (1 << 20), 1, 1 << 20);
		if (!bigger) {
			free(*owned);
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		}
		*owned = bigger;
		enum trex_status s =
		    trex_source_read(src, *len, cap - *len, bigger + *len, &got, err);
		if (s != TREX_OK) {
			free(*owned);
			return s;
		}
		*len += got;
	} while (got > 0);
	*text = *owned;
	return TREX_OK;
}

static enum trex_status pe_load(struct trex_load_job *job, struct trex_error *err)
{
	struct pe_reader r = {.path = trex_source_path(job->source), .file = job->file};
	char *owned;
	size_t len;

	job->file->format = "pytorch-et";
	if (!job->graph)
		return trex_error_set(err, TREX_USAGE, r.path, -1,
		                      "a PyTorch execution trace is a graph: no graph to fill");
	enum trex_status s = pe_text(job->source, &owned, &r.text, &len, err);
	if (s != TREX_OK)
		return s;
	r.end = r.text + len;
	r.dialect = "host-et (no schema)";
	s = pe_parse(&r, err);
	if (s == TREX_OK) {
		job->file->dialect = r.dialect;
		job->file->bytes_decoded = len;
		s = pe_emit_all(job, &r, err);
	}
	free(r.nodes);
	free(owned);
	return s;
}

/* A JSON object whose first key is "schema", as the observer and
 * chakra_trace_link write it. */
static int pe_sniff(const unsigned char *head, size_t len)
{
	const char *p = (const char *)head, *end = p + len;

	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	p = json_skip_ws(p, end);
	if (p >= end || *p != '{')
		return 0;
	p = json_skip_ws(p + 1, end);
	return end - p >= 9 && memcmp(p, "\"schema\"", 8) == 0 ? 97 : 0;
}

const struct trex_format trex_format_pytorch_et = {
    .name = "pytorch-et",
    .sniff = pe_sniff,
    .load = pe_load,
    .codec = &trex_pytorch_et_args_codec,
    .graph = true,
};
