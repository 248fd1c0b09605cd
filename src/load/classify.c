#include "config.h"

#include "trex/load/classify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "trex/core/grow.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LINKS_MAX 16
#define RULE_UNKNOWN 0xfeu /* a per-name rule cache entry not looked up yet */

static const struct trex_comm_rule comm_rules[] = {
#define TREX_COMM_RULE_ROW(id, name, by, pattern, about) {name, TREX_COMM_BY_##by, pattern, about},
    TREX_COMM_RULE_INFO(TREX_COMM_RULE_ROW)
#undef TREX_COMM_RULE_ROW
};

bool trex_comm_rule(size_t i, struct trex_comm_rule *out)
{
	if (i >= ARRAY_LEN(comm_rules))
		return false;
	*out = comm_rules[i];
	return true;
}

const char *trex_comm_by_label(enum trex_comm_by by)
{
	static const char *const labels[] = {"name", "op", "arg", "graph", "schema"};

	return (unsigned)by < ARRAY_LEN(labels) ? labels[by] : "?";
}

/* ---- matching names ------------------------------------------------------------------- */

struct trex_comm_matcher {
	pcre2_code *re[TREX_COMM_RULE_COUNT]; /* NULL for ARG, GRAPH and SCHEMA rules */
	pcre2_match_data *md;
};

void trex_comm_matcher_free(struct trex_comm_matcher *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < TREX_COMM_RULE_COUNT; i++)
		pcre2_code_free(m->re[i]);
	pcre2_match_data_free(m->md);
	free(m);
}

enum trex_status trex_comm_matcher_new(struct trex_comm_matcher **out, struct trex_error *err)
{
	struct trex_comm_matcher *m = calloc(1, sizeof(*m));

	if (!m || !(m->md = pcre2_match_data_create(1, NULL))) {
		trex_comm_matcher_free(m);
		return trex_error_set(err, TREX_NOMEM, NULL, -1,
		                      "communication rules: out of memory");
	}
	for (size_t i = 0; i < TREX_COMM_RULE_COUNT; i++) {
		int code;
		PCRE2_SIZE off;

		if (comm_rules[i].by != TREX_COMM_BY_NAME && comm_rules[i].by != TREX_COMM_BY_OP)
			continue;
		m->re[i] = pcre2_compile((PCRE2_SPTR)comm_rules[i].pattern, PCRE2_ZERO_TERMINATED,
		                         0, &code, &off, NULL);
		if (!m->re[i]) {
			PCRE2_UCHAR text[160];

			pcre2_get_error_message(code, text, sizeof(text));
			trex_comm_matcher_free(m);
			return trex_error_set(err, TREX_FORMAT, NULL, -1,
			                      "communication rule %s: bad regex at offset %zu: %s",
			                      comm_rules[i].id, (size_t)off, (char *)text);
		}
	}
	*out = m;
	return TREX_OK;
}

unsigned trex_comm_match(const struct trex_comm_matcher *m, enum trex_comm_by by, const char *name)
{
	for (unsigned i = 0; i < TREX_COMM_RULE_COUNT; i++) {
		if (comm_rules[i].by == by && m->re[i] &&
		    pcre2_match(m->re[i], (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, m->md,
		                NULL) >= 0)
			return i;
	}
	return TREX_COMM_NONE;
}

unsigned trex_comm_match_args(const struct trex_args *args)
{
	unsigned best = TREX_COMM_NONE;

	for (size_t i = 0; i < args->n; i++) {
		for (unsigned r = 0; r < TREX_COMM_RULE_COUNT && r < best; r++) {
			if (comm_rules[r].by == TREX_COMM_BY_ARG &&
			    strcmp(args->v[i].key, comm_rules[r].pattern) == 0)
				best = r;
		}
	}
	return best;
}

/* ---- devices ------------------------------------------------------------------------------ */

static bool word_starts(const char *s, const char *word)
{
	size_t n = strlen(word);

	return strncmp(s, word, n) == 0 &&
	       !((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'));
}

bool trex_device_process(const struct trex_index *idx, uint32_t process)
{
	static const char *const words[] = {TREX_DEVICE_WORDS};
	const struct trex_process *p = trex_index_process(idx, process);
	const char *texts[2] = {trex_index_str(idx, p->name), trex_index_str(idx, p->labels)};

	for (size_t t = 0; t < 2; t++) {
		for (size_t w = 0; texts[t] && w < ARRAY_LEN(words); w++) {
			if (word_starts(texts[t], words[w]))
				return true;
		}
	}
	return false;
}

/* ---- classifying ----------------------------------------------------------------------------- */

struct ctx {
	const struct trex_index *idx;
	uint8_t *kind; /* per slice: in, the loader's; out, refined */
	uint8_t *comm; /* per slice: the rule it matched */
	struct trex_comm_matcher *m;
	uint8_t *device;    /* per track: 1 when a device's */
	uint8_t *name_rule; /* per name string: NAME rule, RULE_UNKNOWN */
	uint8_t *op_name;   /* per name string: OP rule, RULE_UNKNOWN */
	uint8_t *op;        /* per slice: OP rule of its innermost matching ancestor (or it) */
	uint32_t *arg_todo; /* device work that only its args can decide */
	size_t narg, cap_arg;
	const struct trex_comm_override *override; /* the category file's say, or NULL */
	uint8_t *schema; /* per name string: what the override said, SCHEMA_UNKNOWN */
};

static void find_device_tracks(struct ctx *c)
{
	uint32_t ntracks = trex_index_track_count(c->idx), nproc = trex_index_process_count(c->idx);
	uint8_t *proc = calloc(nproc ? nproc : 1, 1);

	for (uint32_t p = 0; proc && p < nproc; p++)
		proc[p] = trex_device_process(c->idx, p);
	for (uint32_t t = 0; t < ntracks; t++) {
		const struct trex_track *tr = trex_index_track(c->idx, t);

		c->device[t] = tr->kind == TREX_TRACK_GPU || (proc && proc[tr->process]);
	}
	free(proc);
}

/* An event of an unknown category on a device's track is a kernel. */
static void refine_kind(struct ctx *c, uint32_t i, const struct trex_slice *s)
{
	if (c->kind[i] == TREX_KIND_OTHER && s->cat != TREX_STR_NONE && c->device[s->track])
		c->kind[i] = TREX_KIND_KERNEL;
}

static unsigned name_rule(struct ctx *c, uint32_t name)
{
	if (c->name_rule[name] == RULE_UNKNOWN)
		c->name_rule[name] =
		    (uint8_t)trex_comm_match(c->m, TREX_COMM_BY_NAME, trex_index_str(c->idx, name));
	return c->name_rule[name];
}

static unsigned op_rule_of_name(struct ctx *c, uint32_t name)
{
	if (c->op_name[name] == RULE_UNKNOWN)
		c->op_name[name] =
		    (uint8_t)trex_comm_match(c->m, TREX_COMM_BY_OP, trex_index_str(c->idx, name));
	return c->op_name[name];
}

/* Every slice's kind refined, and its OP rule: its own name's, else its
 * parent's (parents have lower ids, so one pass in id order sees them
 * first). One pass: each pass over the slices costs a read of them all. */
static bool op_rules(struct ctx *c)
{
	uint32_t n = trex_index_slice_count(c->idx),
	         *parent = malloc((n ? n : 1) * sizeof(*parent));

	c->op = malloc(n ? n : 1);
	if (!parent || !c->op) {
		free(parent);
		return false;
	}
	trex_index_parents(c->idx, parent);
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		unsigned r = op_rule_of_name(c, s->name);

		refine_kind(c, i, s);
		c->op[i] =
		    (uint8_t)(r == TREX_COMM_NONE && parent[i] != TREX_NONE ? c->op[parent[i]] : r);
	}
	free(parent);
	return true;
}

/* The CPU op sharing the slice's op link, TREX_NONE if none. */
static uint32_t cpu_op_by_op_link(struct ctx *c, uint32_t slice)
{
	uint32_t links[LINKS_MAX];
	size_t n;

	if (!(trex_index_slice(c->idx, slice)->flags & TREX_SLICE_HAS_OP_LINK))
		return TREX_NONE;
	n = trex_index_same_op_link(c->idx, slice, links, LINKS_MAX);
	for (size_t i = 0; i < n && i < LINKS_MAX; i++) {
		if (c->kind[links[i]] == TREX_KIND_CPU_OP)
			return links[i];
	}
	return TREX_NONE;
}

/* NAME, then OP rules for one piece of device work; work with no
 * launching CPU slice and args goes to the ARG pass. */
/* Whether slice i shows a communication node of the index's graph. */
static bool graph_comm(const struct trex_index *idx, uint32_t i)
{
	const struct trex_graph *g = trex_index_graph(idx);
	uint32_t node = g ? trex_graph_node_of_slice(g, i) : TREX_GRAPH_NONE;
	uint8_t type = node == TREX_GRAPH_NONE ? TREX_NODE_OTHER : trex_graph_node(g, node)->type;

	return type == TREX_NODE_COMM_SEND || type == TREX_NODE_COMM_RECV ||
	       type == TREX_NODE_COMM_COLL;
}

/* What the category file says of a name: SCHEMA_COMM, SCHEMA_NOT, or
 * SCHEMA_UNDECIDED (the built-in rules decide); asked once per name. */
enum { SCHEMA_UNKNOWN = 0, SCHEMA_COMM, SCHEMA_NOT, SCHEMA_UNDECIDED };

static uint8_t schema_says(struct ctx *c, uint32_t name)
{
	if (!c->override)
		return SCHEMA_UNDECIDED;
	if (c->schema[name] == SCHEMA_UNKNOWN) {
		const char *s = trex_index_str(c->idx, name);
		int r = c->override->by_name(c->override->user, s ? s : "");

		c->schema[name] = r > 0 ? SCHEMA_COMM : r == 0 ? SCHEMA_NOT : SCHEMA_UNDECIDED;
	}
	return c->schema[name];
}

static bool classify_comm(struct ctx *c, uint32_t i)
{
	const struct trex_slice *s = trex_index_slice(c->idx, i);
	bool graph = graph_comm(c->idx, i);
	uint8_t says = graph ? SCHEMA_UNDECIDED : schema_says(c, s->name);
	unsigned rule = graph                 ? TREX_COMM_GRAPH
	                : says == SCHEMA_COMM ? TREX_COMM_SCHEMA
	                : says == SCHEMA_NOT  ? TREX_COMM_NONE
	                                      : name_rule(c, s->name);
	uint32_t from;

	if (rule == TREX_COMM_NONE && says != SCHEMA_NOT) {
		from = trex_index_launch_of(c->idx, i);
		if (from == TREX_NONE)
			from = cpu_op_by_op_link(c, i);
		if (from != TREX_NONE) {
			rule = c->op[from];
		} else if (s->args != TREX_ARGS_NONE) {
			uint32_t *v =
			    trex_grow(c->arg_todo, &c->cap_arg, c->narg + 1, sizeof(*v), 256);

			if (!v)
				return false;
			c->arg_todo = v;
			c->arg_todo[c->narg++] = i;
		}
	}
	c->comm[i] = (uint8_t)rule;
	return true;
}

/* ---- the ARG pass ---------------------------------------------------------------------------- */

struct arg_batch {
	struct ctx *c;
	const uint32_t *slices; /* of the file being read */
};

static enum trex_status arg_decided(void *user, size_t i, const struct trex_args *args,
                                    struct trex_error *err)
{
	struct arg_batch *b = user;

	(void)err;
	b->c->comm[b->slices[i]] = (uint8_t)trex_comm_match_args(args);
	return TREX_OK;
}

/* Reads the args of the work no name and no launching op decided, file by
 * file, and applies the ARG rules (arg_todo is in slice order, so by file). */
static enum trex_status classify_args(struct ctx *c, struct trex_error *err)
{
	trex_args_ref *refs = malloc((c->narg ? c->narg : 1) * sizeof(*refs));
	enum trex_status st = refs ? TREX_OK : TREX_NOMEM;

	for (size_t a = 0, b; st == TREX_OK && a < c->narg; a = b) {
		uint32_t file =
		    trex_index_track_file(c->idx, trex_index_slice(c->idx, c->arg_todo[a])->track);
		struct arg_batch batch = {c, c->arg_todo + a};

		for (b = a; b < c->narg &&
		            trex_index_track_file(
		                c->idx, trex_index_slice(c->idx, c->arg_todo[b])->track) == file;
		     b++)
			refs[b - a] = trex_index_slice(c->idx, c->arg_todo[b])->args;
		st = trex_index_args_each(c->idx, file, refs, b - a, arg_decided, &batch, err);
	}
	free(refs);
	if (st == TREX_NOMEM)
		trex_error_set(err, st, NULL, -1, "communication rules: out of memory");
	return st;
}

/* ---- the whole index ------------------------------------------------------------------------- */

static enum trex_status classify_all(struct ctx *c, struct trex_error *err)
{
	size_t nstr = trex_strtab_count(trex_index_strings(c->idx)) + 1;
	uint32_t n = trex_index_slice_count(c->idx), ntracks = trex_index_track_count(c->idx);
	enum trex_status st = trex_comm_matcher_new(&c->m, err);

	if (st != TREX_OK)
		return st;
	c->name_rule = malloc(nstr);
	c->op_name = malloc(nstr);
	c->device = calloc(ntracks ? ntracks : 1, 1);
	c->schema = c->override ? calloc(nstr, 1) : NULL;
	if (!c->name_rule || !c->op_name || !c->device || (c->override && !c->schema))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	memset(c->name_rule, RULE_UNKNOWN, nstr);
	memset(c->op_name, RULE_UNKNOWN, nstr);
	find_device_tracks(c);
	if (!op_rules(c))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		if (trex_kind_is_device_work((enum trex_kind)c->kind[i]) && !classify_comm(c, i))
			return trex_error_set(err, TREX_NOMEM, NULL, -1,
			                      "device work: out of memory");
	}
	return c->narg ? classify_args(c, err) : TREX_OK;
}

static enum trex_status load_classify(void *user, const struct trex_index *idx, uint8_t *kind,
                                      uint8_t *comm, struct trex_error *err)
{
	struct ctx c = {.idx = idx, .kind = kind, .comm = comm, .override = user};
	enum trex_status st;

	st = classify_all(&c, err);
	trex_comm_matcher_free(c.m);
	free(c.name_rule);
	free(c.op_name);
	free(c.device);
	free(c.schema);
	free(c.op);
	free(c.arg_todo);
	return st;
}

const struct trex_build_classifier trex_load_classifier = {load_classify, NULL};

void trex_load_classifier_with(const struct trex_comm_override *override,
                               struct trex_build_classifier *out)
{
	out->classify = load_classify;
	out->user = (void *)(uintptr_t) override; /* read only */
}
