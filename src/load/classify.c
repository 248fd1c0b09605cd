#include "config.h"

#include "trex/load/classify.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "trex/core/grow.h"
#include "trex/core/strtab.h"
#include "trex/core/task.h"

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

/* trex_comm_match with match data of the caller's: the compiled rules are
 * shared by threads, match data is not. */
static unsigned comm_match_with(const struct trex_comm_matcher *m, pcre2_match_data *md,
                                enum trex_comm_by by, const char *name)
{
	for (unsigned i = 0; i < TREX_COMM_RULE_COUNT; i++) {
		if (comm_rules[i].by == by && m->re[i] &&
		    pcre2_match(m->re[i], (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, md,
		                NULL) >= 0)
			return i;
	}
	return TREX_COMM_NONE;
}

unsigned trex_comm_match(const struct trex_comm_matcher *m, enum trex_comm_by by, const char *name)
{
	return comm_match_with(m, m->md, by, name);
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

/* Tasks per worker of the OP pass: its tasks are cut by slice count, so
 * a few each let the workers end together. */
#define TASKS_PER_WORKER 4
/* Slices a task of the communication pass: device work gathers on a few
 * tracks, so equal shares of all slices would leave one worker most of
 * it; small fixed ranges spread it. */
#define COMM_TASK_SLICES 16384u

/* What one worker thread owns: match data and the per-name rule caches
 * (each worker looks a name up once). */
struct worker {
	pcre2_match_data *md;
	uint8_t *name_rule; /* per name string: NAME rule, RULE_UNKNOWN */
	uint8_t *op_name;   /* per name string: OP rule, RULE_UNKNOWN */
};

/* Device work that only its args can decide, in slice order: one list per
 * task of the communication pass, joined in task order. */
struct todo {
	uint32_t *v;
	size_t n, cap;
};

struct ctx {
	const struct trex_index *idx;
	uint8_t *kind; /* per slice: in, the loader's; out, refined */
	uint8_t *comm; /* per slice: the rule it matched */
	struct trex_comm_matcher *m;
	uint8_t *device;  /* per track: 1 when a device's */
	uint32_t *parent; /* per slice: trex_index_parents */
	uint8_t *op;      /* per slice: OP rule of its innermost matching ancestor (or it) */
	const struct trex_comm_override *override; /* the category file's say, or NULL */
	uint8_t *schema; /* per name string: what the override said, SCHEMA_UNKNOWN */
	unsigned nworkers;
	struct worker *workers;
	uint32_t *track_cut; /* the OP pass's tasks: tracks [track_cut[k], track_cut[k + 1]) */
	size_t ntrack_tasks, nslice_tasks;
	struct todo *todo; /* per task of the communication pass */
	atomic_bool nomem;
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

static unsigned name_rule(struct ctx *c, struct worker *w, uint32_t name)
{
	if (w->name_rule[name] == RULE_UNKNOWN)
		w->name_rule[name] = (uint8_t)comm_match_with(c->m, w->md, TREX_COMM_BY_NAME,
		                                              trex_index_str(c->idx, name));
	return w->name_rule[name];
}

static unsigned op_rule_of_name(struct ctx *c, struct worker *w, uint32_t name)
{
	if (w->op_name[name] == RULE_UNKNOWN)
		w->op_name[name] = (uint8_t)comm_match_with(c->m, w->md, TREX_COMM_BY_OP,
		                                            trex_index_str(c->idx, name));
	return w->op_name[name];
}

/* Task of the OP pass, over its range of tracks: their slices' parents,
 * then every slice's kind refined and its OP rule: its own name's, else
 * its parent's (a parent is on the same track with a lower id, so one
 * pass in id order sees it first). One pass: each costs a read of them. */
static void op_task(void *arg, size_t k, unsigned worker)
{
	struct ctx *c = arg;
	struct worker *w = &c->workers[worker];
	uint32_t t0 = c->track_cut[k], t1 = c->track_cut[k + 1];

	trex_index_parents_of(c->idx, t0, t1, c->parent);
	for (uint32_t t = t0; t < t1; t++) {
		const struct trex_track *tr = trex_index_track(c->idx, t);

		for (uint32_t i = tr->first_slice; i < tr->first_slice + tr->slice_count; i++) {
			const struct trex_slice *s = trex_index_slice(c->idx, i);
			unsigned r = op_rule_of_name(c, w, s->name);
			uint32_t up = c->parent[i];

			refine_kind(c, i, s);
			c->op[i] =
			    (uint8_t)(r == TREX_COMM_NONE && up != TREX_NONE ? c->op[up] : r);
		}
	}
}

/* The OP pass's tasks: the tracks cut where the slices before reach each
 * task's share (a track's slices are never split). */
static bool cut_tracks(struct ctx *c)
{
	uint32_t ntracks = trex_index_track_count(c->idx);
	size_t want = (size_t)c->nworkers * TASKS_PER_WORKER, k = 0;
	uint64_t total = trex_index_slice_count(c->idx), seen = 0;

	c->track_cut = malloc((want + 1) * sizeof(*c->track_cut));
	if (!c->track_cut)
		return false;
	c->track_cut[k++] = 0;
	for (uint32_t t = 0; t < ntracks && k < want; t++) {
		seen += trex_index_track(c->idx, t)->slice_count;
		if (seen * want >= total * k && t + 1 < ntracks)
			c->track_cut[k++] = t + 1;
	}
	c->track_cut[k] = ntracks;
	c->ntrack_tasks = k;
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
 * SCHEMA_UNDECIDED (the built-in rules decide); asked once per name (the
 * file's callback is not known to be thread-safe: one worker then). */
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

/* NAME, then OP rules for one piece of device work; work with no
 * launching CPU slice and args goes to the ARG pass (todo). */
static bool classify_comm(struct ctx *c, struct worker *w, struct todo *todo, uint32_t i)
{
	const struct trex_slice *s = trex_index_slice(c->idx, i);
	bool graph = graph_comm(c->idx, i);
	uint8_t says = graph ? SCHEMA_UNDECIDED : schema_says(c, s->name);
	unsigned rule = graph                 ? TREX_COMM_GRAPH
	                : says == SCHEMA_COMM ? TREX_COMM_SCHEMA
	                : says == SCHEMA_NOT  ? TREX_COMM_NONE
	                                      : name_rule(c, w, s->name);
	uint32_t from;

	if (rule == TREX_COMM_NONE && says != SCHEMA_NOT) {
		from = trex_index_launch_of(c->idx, i);
		if (from == TREX_NONE)
			from = cpu_op_by_op_link(c, i);
		if (from != TREX_NONE) {
			rule = c->op[from];
		} else if (s->args != TREX_ARGS_NONE) {
			uint32_t *v = trex_grow(todo->v, &todo->cap, todo->n + 1, sizeof(*v), 256);

			if (!v)
				return false;
			todo->v = v;
			todo->v[todo->n++] = i;
		}
	}
	c->comm[i] = (uint8_t)rule;
	return true;
}

/* Task of the communication pass: the device work among slices
 * [k * n / tasks, (k + 1) * n / tasks). */
static void comm_task(void *arg, size_t k, unsigned worker)
{
	struct ctx *c = arg;
	uint64_t n = trex_index_slice_count(c->idx);
	uint32_t lo = (uint32_t)(n * k / c->nslice_tasks),
	         hi = (uint32_t)(n * (k + 1) / c->nslice_tasks);

	for (uint32_t i = lo; i < hi; i++) {
		if (trex_kind_is_device_work((enum trex_kind)c->kind[i]) &&
		    !classify_comm(c, &c->workers[worker], &c->todo[k], i)) {
			atomic_store(&c->nomem, true);
			return;
		}
	}
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
 * file, and applies the ARG rules (todo is in slice order, so by file). */
static enum trex_status classify_args(struct ctx *c, const struct todo *todo,
                                      struct trex_error *err)
{
	trex_args_ref *refs = malloc((todo->n ? todo->n : 1) * sizeof(*refs));
	enum trex_status st = refs ? TREX_OK : TREX_NOMEM;

	for (size_t a = 0, b; st == TREX_OK && a < todo->n; a = b) {
		uint32_t file =
		    trex_index_track_file(c->idx, trex_index_slice(c->idx, todo->v[a])->track);
		struct arg_batch batch = {c, todo->v + a};

		for (b = a; b < todo->n &&
		            trex_index_track_file(
		                c->idx, trex_index_slice(c->idx, todo->v[b])->track) == file;
		     b++)
			refs[b - a] = trex_index_slice(c->idx, todo->v[b])->args;
		st = trex_index_args_each(c->idx, file, refs, b - a, arg_decided, &batch, err);
	}
	free(refs);
	if (st == TREX_NOMEM)
		trex_error_set(err, st, NULL, -1, "communication rules: out of memory");
	return st;
}

/* The tasks' lists of the ARG pass joined in task order: slice order. */
static bool join_todo(struct ctx *c, struct todo *all)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nslice_tasks; k++)
		n += c->todo[k].n;
	*all = (struct todo){malloc((n ? n : 1) * sizeof(uint32_t)), 0, n};
	if (!all->v)
		return false;
	for (size_t k = 0; k < c->nslice_tasks; k++) {
		if (!c->todo[k].n)
			continue; /* its list is NULL */
		memcpy(all->v + all->n, c->todo[k].v, c->todo[k].n * sizeof(uint32_t));
		all->n += c->todo[k].n;
	}
	return true;
}

/* ---- the whole index ------------------------------------------------------------------------- */

static bool workers_new(struct ctx *c, size_t nstr)
{
	c->workers = calloc(c->nworkers, sizeof(*c->workers));
	if (!c->workers)
		return false;
	for (unsigned w = 0; w < c->nworkers; w++) {
		struct worker *wk = &c->workers[w];

		wk->md = pcre2_match_data_create(1, NULL);
		wk->name_rule = malloc(nstr);
		wk->op_name = malloc(nstr);
		if (!wk->md || !wk->name_rule || !wk->op_name)
			return false;
		memset(wk->name_rule, RULE_UNKNOWN, nstr);
		memset(wk->op_name, RULE_UNKNOWN, nstr);
	}
	return true;
}

static void workers_free(struct ctx *c)
{
	for (unsigned w = 0; c->workers && w < c->nworkers; w++) {
		pcre2_match_data_free(c->workers[w].md);
		free(c->workers[w].name_rule);
		free(c->workers[w].op_name);
	}
	free(c->workers);
}

/* Everything the passes need; false when out of memory. */
static bool ctx_alloc(struct ctx *c, unsigned threads)
{
	size_t nstr = trex_strtab_count(trex_index_strings(c->idx)) + 1;
	uint32_t n = trex_index_slice_count(c->idx), ntracks = trex_index_track_count(c->idx);

	/* the category file's callback runs on one thread */
	c->nworkers = c->override ? 1 : trex_task_workers(threads, n);
	c->nslice_tasks = c->nworkers == 1 ? 1 : (n + COMM_TASK_SLICES - 1) / COMM_TASK_SLICES;
	c->device = calloc(ntracks ? ntracks : 1, 1);
	c->schema = c->override ? calloc(nstr, 1) : NULL;
	c->parent = malloc((n ? n : 1) * sizeof(*c->parent));
	c->op = malloc(n ? n : 1);
	c->todo = calloc(c->nslice_tasks, sizeof(*c->todo));
	atomic_init(&c->nomem, false);
	return c->device && (!c->override || c->schema) && c->parent && c->op && c->todo &&
	       workers_new(c, nstr) && cut_tracks(c);
}

static enum trex_status classify_all(struct ctx *c, unsigned threads, struct trex_error *err)
{
	enum trex_status st = trex_comm_matcher_new(&c->m, err);
	struct todo all = {0};

	if (st != TREX_OK)
		return st;
	if (!ctx_alloc(c, threads))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	find_device_tracks(c);
	/* every slice's OP rule before any device work looks up its launcher's */
	trex_task_run(c->nworkers, c->ntrack_tasks, op_task, c);
	trex_task_run(c->nworkers, c->nslice_tasks, comm_task, c);
	if (atomic_load(&c->nomem) || !join_todo(c, &all))
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "device work: out of memory");
	else if (all.n)
		st = classify_args(c, &all, err);
	free(all.v);
	return st;
}

static enum trex_status load_classify(void *user, const struct trex_index *idx, unsigned threads,
                                      uint8_t *kind, uint8_t *comm, struct trex_error *err)
{
	struct ctx c = {.idx = idx, .kind = kind, .comm = comm, .override = user};
	enum trex_status st;

	st = classify_all(&c, threads, err);
	trex_comm_matcher_free(c.m);
	workers_free(&c);
	for (size_t k = 0; c.todo && k < c.nslice_tasks; k++)
		free(c.todo[k].v);
	free(c.todo);
	free(c.track_cut);
	free(c.device);
	free(c.schema);
	free(c.parent);
	free(c.op);
	return st;
}

const struct trex_build_classifier trex_load_classifier = {load_classify, NULL};

void trex_load_classifier_with(const struct trex_comm_override *override,
                               struct trex_build_classifier *out)
{
	out->classify = load_classify;
	out->user = (void *)(uintptr_t) override; /* read only */
}
