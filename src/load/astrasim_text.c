/* ASTRA-sim 1.0 text workloads (doc/formats/astrasim.md): a parallelism
 * policy, its header parameters, a layer count and that many layers of
 * 12 tokens (13 with HYBRID_CUSTOMIZED's per-layer policy), read as the
 * simulator reads them: a stream of tokens separated by any mix of
 * spaces, tabs, CR and LF, tokens after the last layer ignored (and
 * reported). The file becomes one dependency graph per NPU (--npus), the
 * graph Chakra's text converter writes for one pass: the same node names,
 * types, durations (the file's cycles, shown as ns), collectives and
 * sizes, data dependencies, and ids counting on across NPUs. Policies the
 * converter refuses get the layout that fits them (see layout_of). */
#include "config.h"

#include "formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/graph.h"
#include "trex/core/grow.h"
#include "trex/load/json_args.h"

#define AT_MAX_BYTES ((uint64_t)256 << 20) /* a workload is a few KiB; this is not one */
#define AT_DEFAULT_NPUS 2                  /* the fewest ASTRA-sim simulates */
#define AT_NONE UINT64_MAX                 /* no node */

/* ---- tokens ------------------------------------------------------------------------------ */

struct at_tok {
	const char *p;
	size_t len;
	uint64_t offset;
};

struct at_reader {
	const char *text, *path;
	size_t len, pos;
	struct at_tok tok; /* the last token read */
};

static bool at_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool at_next(struct at_reader *r)
{
	while (r->pos < r->len && at_blank(r->text[r->pos]))
		r->pos++;
	if (r->pos >= r->len)
		return false;
	r->tok.p = r->text + r->pos;
	r->tok.offset = r->pos;
	while (r->pos < r->len && !at_blank(r->text[r->pos]))
		r->pos++;
	r->tok.len = (size_t)(r->text + r->pos - r->tok.p);
	return true;
}

/* "expected WHAT, found 'TOKEN'" (or the end of input) at the token. */
static enum trex_status at_expected(struct at_reader *r, bool found, const char *where,
                                    const char *what, struct trex_error *err)
{
	if (!found)
		return trex_error_set(err, TREX_FORMAT, r->path, (int64_t)r->len,
		                      "%s: expected %s, found the end of input", where, what);
	return trex_error_set(err, TREX_FORMAT, r->path, (int64_t)r->tok.offset,
	                      "%s: expected %s, found '%.*s'", where, what,
	                      (int)(r->tok.len > 40 ? 40 : r->tok.len), r->tok.p);
}

static bool at_int(const struct at_tok *t, int64_t min, int64_t max, int64_t *out)
{
	char buf[32];
	char *end;

	if (t->len == 0 || t->len >= sizeof(buf))
		return false;
	memcpy(buf, t->p, t->len);
	buf[t->len] = '\0';
	if (!((buf[0] >= '0' && buf[0] <= '9') || (buf[0] == '-' && t->len > 1)))
		return false;
	errno = 0;
	long long v = strtoll(buf, &end, 10);
	if (*end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* The next token as an integer in [min, max]. */
static enum trex_status at_read_int(struct at_reader *r, int64_t min, int64_t max,
                                    const char *where, const char *what, int64_t *out,
                                    struct trex_error *err)
{
	bool found = at_next(r);
	if (found && at_int(&r->tok, min, max, out))
		return TREX_OK;
	return at_expected(r, found, where, what, err);
}

static bool at_is(const struct at_tok *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->p, word, t->len) == 0;
}

/* ---- the workload ------------------------------------------------------------------------ */

#define AT_POLICY_INFO(X)                                                                          \
	X(DATA, "DATA")                                                                            \
	X(MODEL, "MODEL")                                                                          \
	X(HYBRID_DATA_MODEL, "HYBRID_DATA_MODEL")                                                  \
	X(HYBRID_MODEL_DATA, "HYBRID_MODEL_DATA")                                                  \
	X(HYBRID_CUSTOMIZED, "HYBRID_CUSTOMIZED")                                                  \
	X(MICRO, "MICRO")                                                                          \
	X(DISTRIBUTED_INFERENCE, "DISTRIBUTED_INFERENCE")                                          \
	X(HYBRID_DLRM, "HYBRID_DLRM")                                                              \
	X(HYBRID_DLRM_ENHANCED, "HYBRID_DLRM_ENHANCED")                                            \
	X(HYBRID_TRANSFORMER, "HYBRID_TRANSFORMER")                                                \
	X(HYBRID_TRANSFORMER_FWD_IN_BCKWD, "HYBRID_TRANSFORMER_FWD_IN_BCKWD")

enum at_policy {
#define AT_POLICY_ENUM(name, word) AT_##name,
	AT_POLICY_INFO(AT_POLICY_ENUM)
#undef AT_POLICY_ENUM
	    AT_POLICIES
};

static const char *const at_policy_words[] = {
#define AT_POLICY_WORD(name, word) word,
    AT_POLICY_INFO(AT_POLICY_WORD)
#undef AT_POLICY_WORD
};

static int at_policy_of(const struct at_tok *t)
{
	for (int i = 0; i < AT_POLICIES; i++)
		if (at_is(t, at_policy_words[i]))
			return i;
	return -1;
}

/* One phase of a layer: compute, then at most one collective. */
struct at_phase {
	int64_t time;
	struct at_tok comm; /* the keyword as written (NONE: no collective) */
	uint64_t size;
};

enum { AT_FWD, AT_IG, AT_WG, AT_PHASES };

struct at_layer {
	struct at_tok name;
	struct at_phase ph[AT_PHASES];
	int64_t update;
	int policy; /* HYBRID_CUSTOMIZED: its own; else -1 */
};

struct at_workload {
	enum at_policy policy;
	int64_t last_bottom; /* HYBRID_DLRM(_ENHANCED) */
	int64_t mp_group;    /* HYBRID_TRANSFORMER(_FWD_IN_BCKWD): model_parallel_NPU_group */
	struct at_layer *layers;
	size_t count;
};

static enum trex_status at_skip_list(struct at_reader *r, const char *what, struct trex_error *err)
{
	int64_t n, v;
	enum trex_status s;

	if (!at_next(r))
		return at_expected(r, false, "header", what, err);
	s = at_read_int(r, 0, 1 << 20, "header", "a count of layers", &n, err);
	for (int64_t i = 0; s == TREX_OK && i < n; i++)
		s = at_read_int(r, 0, INT32_MAX, "header", "a layer number", &v, err);
	return s;
}

/* The policy's own header tokens (labels are read, not checked, as the
 * simulator does). */
static enum trex_status at_header(struct at_reader *r, struct at_workload *w,
                                  struct trex_error *err)
{
	enum trex_status s = TREX_OK;

	if (w->policy == AT_HYBRID_DLRM || w->policy == AT_HYBRID_DLRM_ENHANCED)
		return at_read_int(r, 0, INT32_MAX, "header",
		                   "the index of the last bottom-MLP layer", &w->last_bottom, err);
	if (w->policy != AT_HYBRID_TRANSFORMER && w->policy != AT_HYBRID_TRANSFORMER_FWD_IN_BCKWD)
		return TREX_OK;
	if (!at_next(r))
		return at_expected(r, false, "header", "model_parallel_NPU_group:", err);
	s = at_read_int(r, 1, 1 << 20, "header", "the model-parallel NPU group size", &w->mp_group,
	                err);
	if (s == TREX_OK && w->policy == AT_HYBRID_TRANSFORMER_FWD_IN_BCKWD)
		s = at_skip_list(r, "checkpoints:", err);
	if (s == TREX_OK && w->policy == AT_HYBRID_TRANSFORMER_FWD_IN_BCKWD)
		s = at_skip_list(r, "checkpoint_initiates:", err);
	return s;
}

static enum trex_status at_phase_read(struct at_reader *r, const char *where, const char *phase,
                                      struct at_phase *p, struct trex_error *err)
{
	char what[64];
	int64_t size;

	snprintf(what, sizeof(what), "the %s compute time (cycles)", phase);
	enum trex_status s = at_read_int(r, 0, INT64_MAX, where, what, &p->time, err);
	if (s != TREX_OK)
		return s;
	snprintf(what, sizeof(what), "the %s collective (ALLREDUCE, ..., NONE)", phase);
	if (!at_next(r))
		return at_expected(r, false, where, what, err);
	p->comm = r->tok;
	snprintf(what, sizeof(what), "the %s collective's size in bytes", phase);
	s = at_read_int(r, 0, INT64_MAX, where, what, &size, err);
	p->size = (uint64_t)size;
	return s;
}

static enum trex_status at_layer_read(struct at_reader *r, const struct at_workload *w, size_t i,
                                      struct at_layer *l, struct trex_error *err)
{
	static const char *const phases[AT_PHASES] = {"forward", "input-gradient",
	                                              "weight-gradient"};
	char where[96];
	int64_t reserved;
	enum trex_status s = TREX_OK;

	snprintf(where, sizeof(where), "layer %zu of %zu", i + 1, w->count);
	if (!at_next(r))
		return at_expected(r, false, where, "the layer name", err);
	l->name = r->tok;
	l->policy = -1;
	snprintf(where, sizeof(where), "layer %zu of %zu (%.*s)", i + 1, w->count,
	         (int)(l->name.len > 40 ? 40 : l->name.len), l->name.p);
	s = at_read_int(r, INT32_MIN, INT32_MAX, where, "the reserved integer (-1)", &reserved,
	                err);
	for (int k = 0; s == TREX_OK && k < AT_PHASES; k++)
		s = at_phase_read(r, where, phases[k], &l->ph[k], err);
	if (s == TREX_OK)
		s = at_read_int(r, 0, INT64_MAX, where, "the weight-update time (cycles)",
		                &l->update, err);
	if (s != TREX_OK || w->policy != AT_HYBRID_CUSTOMIZED)
		return s;
	bool found = at_next(r);
	if (found && (l->policy = at_policy_of(&r->tok)) >= 0)
		return TREX_OK;
	return at_expected(r, found, where, "the layer's policy (DATA, MODEL, HYBRID_...)", err);
}

static enum trex_status at_parse(struct at_reader *r, struct at_workload *w, struct trex_error *err)
{
	int64_t count;
	bool found = at_next(r);
	int policy = found ? at_policy_of(&r->tok) : -1;

	if (policy < 0)
		return at_expected(r, found, "header",
		                   "a parallelism policy (DATA, MODEL, HYBRID_DATA_MODEL, "
		                   "HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, MICRO, ...)",
		                   err);
	w->policy = (enum at_policy)policy;
	enum trex_status s = at_header(r, w, err);
	if (s == TREX_OK)
		s = at_read_int(r, 1, 1 << 20, "header", "the number of layers", &count, err);
	if (s != TREX_OK)
		return s;
	w->count = (size_t)count;
	w->layers = calloc(w->count, sizeof(*w->layers));
	if (!w->layers)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (size_t i = 0; s == TREX_OK && i < w->count; i++)
		s = at_layer_read(r, w, i, &w->layers[i], err);
	return s;
}

/* ---- the graph of one NPU ---------------------------------------------------------------- */

/* The nodes of each layer, by phase (AT_NONE: not made). */
struct at_made {
	uint64_t comp[AT_PHASES], comm[AT_PHASES];
};

struct at_emit {
	struct trex_graph *g;
	const struct at_workload *w;
	struct at_made *made;
	uint32_t file, rank;
	uint64_t next_id;
	uint32_t record;
	uint32_t last; /* the graph's id of the node made last */
	uint64_t counts[TREX_NODE_TYPE_COUNT];
	bool oom;
};

static const char *const at_phase_suffix[AT_PHASES] = {"FWD", "BWD_IG", "BWD_WG"};

static uint64_t at_node(struct at_emit *e, const char *name, enum trex_node_type type, int64_t dur,
                        int64_t bytes, enum trex_collective c, const struct at_layer *l)
{
	struct trex_graph_node n = {
	    .id = e->next_id,
	    .dur = dur,
	    .comm_bytes = bytes,
	    .attrs = TREX_ARGS_NONE,
	    .offset = (int64_t)l->name.offset,
	    .record = e->record++,
	    .file = e->file,
	    .rank = e->rank,
	    .name = trex_graph_intern(e->g, name, strlen(name)),
	    .peer = -1,
	    .match = TREX_GRAPH_NONE,
	    .slice = TREX_GRAPH_NONE,
	    .type = (uint8_t)type,
	    .collective = (uint8_t)c,
	};
	if (n.name == TREX_GRAPH_NONE ||
	    (e->last = trex_graph_add_node(e->g, &n)) == TREX_GRAPH_NONE)
		e->oom = true;
	e->counts[type]++;
	return e->next_id++;
}

static void at_dep(struct at_emit *e, uint64_t parent)
{
	if (parent != AT_NONE && !e->oom &&
	    trex_graph_add_dep(e->g, e->last, parent, TREX_DEP_DATA))
		e->oom = true;
}

static uint64_t at_comp(struct at_emit *e, size_t layer, int phase)
{
	const struct at_layer *l = &e->w->layers[layer];
	char name[160];

	snprintf(name, sizeof(name), "COMP_NODE_%.*s_%s", (int)l->name.len, l->name.p,
	         at_phase_suffix[phase]);
	return e->made[layer].comp[phase] =
	           at_node(e, name, TREX_NODE_COMP, l->ph[phase].time, -1, TREX_COLLECTIVE_NONE, l);
}

/* The converter's collective numbering: anything else (NONE,
 * ALLREDUCEALLTOALL) becomes an all-reduce. */
static enum trex_collective at_collective(const struct at_tok *t)
{
	return at_is(t, "ALLTOALL")        ? TREX_COLLECTIVE_ALL_TO_ALL
	       : at_is(t, "ALLGATHER")     ? TREX_COLLECTIVE_ALL_GATHER
	       : at_is(t, "REDUCESCATTER") ? TREX_COLLECTIVE_REDUCE_SCATTER
	                                   : TREX_COLLECTIVE_ALL_REDUCE;
}

/* The collective of phase of layer `of`, named after layer `named`
 * (infix: HYBRID_DATA_MODEL's "_IG_COMM_" for its input gradients). */
static uint64_t at_comm_named(struct at_emit *e, size_t named, size_t of, int phase,
                              const char *infix)
{
	const struct at_layer *n = &e->w->layers[named], *l = &e->w->layers[of];
	const struct at_phase *p = &l->ph[phase];
	char name[200];

	snprintf(name, sizeof(name), "COMM_COLL_NODE_%.*s%s_%.*s", (int)n->name.len, n->name.p,
	         infix, (int)p->comm.len, p->comm.p);
	/* no duration: the converter writes none, the schedule estimates it */
	return e->made[named].comm[phase] =
	           at_node(e, name, TREX_NODE_COMM_COLL, TREX_GRAPH_DUR_UNKNOWN, (int64_t)p->size,
	                   at_collective(&p->comm), l);
}

static uint64_t at_comm(struct at_emit *e, size_t layer, int phase)
{
	return at_comm_named(e, layer, layer, phase, "");
}

/* DATA: the forward chain, then from the last layer back: weight
 * gradient, its all-reduce, the input gradient (none for layer 0). */
static void at_data(struct at_emit *e)
{
	size_t n = e->w->count;

	for (size_t i = 0; i < n; i++) {
		at_comp(e, i, AT_FWD);
		at_dep(e, i ? e->made[i - 1].comp[AT_FWD] : AT_NONE);
	}
	for (size_t i = n; i-- > 0;) {
		at_comp(e, i, AT_WG);
		at_dep(e, i == n - 1 ? e->made[n - 1].comp[AT_FWD] : e->made[i + 1].comp[AT_IG]);
		at_comm(e, i, AT_WG);
		at_dep(e, e->made[i].comp[AT_WG]);
		if (i > 0) {
			at_comp(e, i, AT_IG);
			at_dep(e, e->made[i].comp[AT_WG]);
		}
	}
}

/* MODEL and the hybrids: forward compute and collective per layer,
 * chained; backward input gradient (after the layer above's weight
 * gradient and input-gradient collective), its collective (none for layer
 * 0), weight gradient, and with_wg_comm its collective. */
static void at_model(struct at_emit *e, bool with_wg_comm, const char *ig_infix)
{
	size_t n = e->w->count;

	for (size_t i = 0; i < n; i++) {
		at_comp(e, i, AT_FWD);
		at_dep(e, i ? e->made[i - 1].comm[AT_FWD] : AT_NONE);
		at_comm(e, i, AT_FWD);
		at_dep(e, e->made[i].comp[AT_FWD]);
	}
	for (size_t i = n; i-- > 0;) {
		at_comp(e, i, AT_IG);
		if (i == n - 1) {
			at_dep(e, e->made[n - 1].comm[AT_FWD]);
		} else {
			at_dep(e, e->made[i + 1].comp[AT_WG]);
			at_dep(e, e->made[i + 1].comm[AT_IG]);
		}
		if (i > 0) {
			at_comm_named(e, i, i, AT_IG, ig_infix);
			at_dep(e, e->made[i].comp[AT_IG]);
		}
		at_comp(e, i, AT_WG);
		at_dep(e, e->made[i].comp[AT_IG]);
		if (with_wg_comm) {
			at_comm(e, i, AT_WG);
			at_dep(e, e->made[i].comp[AT_WG]);
		}
	}
}

/* HYBRID_DLRM: the forward chain with an all-to-all after each ALLTOALL
 * layer, the layer after the bottom MLP also waiting for the embedding's
 * all-to-all; backward weight gradients (their collective unless NONE),
 * input gradients, and one input-gradient all-to-all of the embedding
 * (layer 0) after the layer above the bottom MLP. */
static void at_dlrm(struct at_emit *e)
{
	size_t n = e->w->count, bottom = (size_t)e->w->last_bottom;

	for (size_t i = 0; i < n; i++) {
		at_comp(e, i, AT_FWD);
		at_dep(e, i ? e->made[i - 1].comp[AT_FWD] : AT_NONE);
		if (i == bottom)
			at_dep(e, e->made[0].comm[AT_FWD]);
		if (at_is(&e->w->layers[i].ph[AT_FWD].comm, "ALLTOALL")) {
			at_comm(e, i, AT_FWD);
			at_dep(e, e->made[i].comp[AT_FWD]);
		}
	}
	for (size_t i = n; i-- > 0;) {
		at_comp(e, i, AT_WG);
		if (i == n - 1) {
			at_dep(e, e->made[n - 1].comp[AT_FWD]);
		} else {
			at_dep(e, e->made[i + 1].comp[AT_IG]);
			at_dep(e, e->made[i].comm[AT_IG]);
		}
		if (!at_is(&e->w->layers[i].ph[AT_WG].comm, "NONE")) {
			at_comm(e, i, AT_WG);
			at_dep(e, e->made[i].comp[AT_WG]);
		}
		if (i > 0) {
			at_comp(e, i, AT_IG);
			at_dep(e, e->made[i].comp[AT_WG]);
		}
		if (i > 0 && i == bottom + 1) {
			at_comm_named(e, 0, 0, AT_IG, "");
			at_dep(e, e->made[i].comp[AT_IG]);
		}
	}
}

/* MICRO: the weight-gradient collectives alone. */
static void at_micro(struct at_emit *e)
{
	for (size_t i = 0; i < e->w->count; i++)
		at_comm(e, i, AT_WG);
}

/* DISTRIBUTED_INFERENCE: the forward pass of MODEL alone. */
static void at_inference(struct at_emit *e)
{
	for (size_t i = 0; i < e->w->count; i++) {
		at_comp(e, i, AT_FWD);
		at_dep(e, i ? e->made[i - 1].comm[AT_FWD] : AT_NONE);
		at_comm(e, i, AT_FWD);
		at_dep(e, e->made[i].comp[AT_FWD]);
	}
}

/* The converter's layout of each policy; those it refuses take the
 * layout of the parallelism they describe: the transformer and
 * per-layer policies MODEL's with a weight-gradient collective (the
 * hybrid layout, whichever dimensions each collective spans), inference
 * MODEL's forward pass. */
static void at_layout(struct at_emit *e)
{
	for (size_t i = 0; i < e->w->count; i++)
		for (int k = 0; k < AT_PHASES; k++)
			e->made[i].comp[k] = e->made[i].comm[k] = AT_NONE;
	switch (e->w->policy) {
	case AT_DATA:
		at_data(e);
		break;
	case AT_MODEL:
		at_model(e, false, "");
		break;
	case AT_HYBRID_DATA_MODEL:
		at_model(e, true, "_IG_COMM_");
		break;
	case AT_HYBRID_DLRM:
	case AT_HYBRID_DLRM_ENHANCED:
		at_dlrm(e);
		break;
	case AT_MICRO:
		at_micro(e);
		break;
	case AT_DISTRIBUTED_INFERENCE:
		at_inference(e);
		break;
	default: /* HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED, HYBRID_TRANSFORMER(_FWD_IN_BCKWD) */
		at_model(e, true, "");
		break;
	}
}

static uint32_t at_default_npus(const struct at_workload *w)
{
	/* a transformer's model-parallel group, twice: data parallelism across groups */
	if (w->mp_group > 1 && w->mp_group <= (1 << 15))
		return (uint32_t)(2 * w->mp_group);
	return AT_DEFAULT_NPUS;
}

static enum trex_status at_emit_all(struct trex_load_job *job, const struct at_workload *w,
                                    struct trex_error *err)
{
	struct at_emit e = {.g = job->graph, .w = w, .file = job->file_id};
	uint32_t npus = job->opts && job->opts->npus ? job->opts->npus : at_default_npus(w);

	if (!(e.made = calloc(w->count, sizeof(*e.made))))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t r = 0; r < npus && !e.oom; r++) {
		e.rank = r;
		e.record = 0;
		at_layout(&e);
	}
	free(e.made);
	if (e.oom)
		return trex_error_set(err, TREX_NOMEM, trex_source_path(job->source), -1,
		                      "out of memory making the graph of %" PRIu32 " NPUs", npus);
	struct trex_build_file *f = job->file;
	f->event_type_count = 0;
	for (int t = 0; t < TREX_NODE_TYPE_COUNT; t++) {
		if (!e.counts[t])
			continue;
		f->event_types[f->event_type_count].label = trex_node_type_label(t);
		f->event_types[f->event_type_count].name = "nodes";
		f->event_types[f->event_type_count++].events = e.counts[t];
		f->events += e.counts[t];
	}
	return TREX_OK;
}

/* ---- the format --------------------------------------------------------------------------- */

static enum trex_status at_read_all(struct trex_source *src, char **text, size_t *len,
                                    struct trex_error *err)
{
	size_t cap = 0, n = 0, got = 0;
	char *buf = NULL;

	do {
		char *bigger = trex_grow(buf, &cap, n + (1 << 16), 1, 1 << 16);
		enum trex_status s =
		    bigger ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		if (s == TREX_OK && n > AT_MAX_BYTES)
			s = trex_error_set(err, TREX_FORMAT, trex_source_path(src), (int64_t)n,
			                   "more than %" PRIu64 " MiB: no ASTRA-sim text workload",
			                   AT_MAX_BYTES >> 20);
		if (s == TREX_OK)
			s = trex_source_read(src, n, cap - n, (buf = bigger) + n, &got, err);
		if (s != TREX_OK) {
			free(bigger ? bigger : buf);
			return s;
		}
		n += got;
	} while (got > 0);
	*text = buf;
	*len = n;
	return TREX_OK;
}

/* Tokens after the last layer: the simulator ignores them; said, not lost silently. */
static void at_trailing(struct at_reader *r, struct trex_build_file *f)
{
	if (!at_next(r))
		return;
	uint64_t from = r->tok.offset, bytes = r->len - from;
	trex_integrity_count(&f->integrity, TREX_INTEG_bytes_ignored, bytes);
	trex_error_set(&f->first_problem, TREX_FORMAT, r->path, (int64_t)from,
	               "'%.*s' and what follows (%" PRIu64
	               " bytes) after the last layer: ignored, as ASTRA-sim ignores it",
	               (int)(r->tok.len > 40 ? 40 : r->tok.len), r->tok.p, bytes);
}

static enum trex_status at_load(struct trex_load_job *job, struct trex_error *err)
{
	struct at_workload w = {0};
	struct at_reader r = {.path = trex_source_path(job->source)};
	char *text = NULL;

	job->file->format = "astrasim-text";
	if (!job->graph)
		return trex_error_set(err, TREX_USAGE, r.path, -1,
		                      "an ASTRA-sim text workload is a graph: no graph to fill");
	enum trex_status s = at_read_all(job->source, &text, &r.len, err);
	r.text = text;
	if (s == TREX_OK)
		s = at_parse(&r, &w, err);
	if (s == TREX_OK) {
		job->file->dialect = at_policy_words[w.policy];
		job->file->bytes_decoded = r.len;
		at_trailing(&r, job->file);
		s = at_emit_all(job, &w, err);
	}
	free(w.layers);
	free(text);
	return s;
}

/* A policy keyword, then a blank. */
static int at_sniff(const unsigned char *head, size_t len)
{
	size_t n = 0;

	while (n < len && !at_blank((char)head[n]))
		n++;
	if (n == len)
		return 0;
	struct at_tok t = {(const char *)head, n, 0};
	return at_policy_of(&t) >= 0 ? 80 : 0;
}

const struct trex_format trex_format_astrasim_text = {
    .name = "astrasim-text",
    .sniff = at_sniff,
    .load = at_load,
    .codec = &trex_json_args_codec,
    .graph = true,
};
