/* Two runs compared kernel by kernel: each GPU stream's kernels in launch
 * order, aligned (trex_diff_align), reported as runs of removed, added and
 * changed kernels. */
#include "config.h"

#include "trex/analysis/diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"
#include "trex/analysis/kernels.h"
#include "trex/analysis/labels.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define DEFAULT_CHANGE_PCT 10.0 /* a kernel is changed from 10 % on when no threshold is given */

static const struct trex_column run_cols[] = {
    {"status", "Status", TREX_COL_TEXT, false},
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"stream", "Stream", TREX_COL_TEXT, false},
    {"a_pos", "A pos", TREX_COL_COUNT, false},
    {"b_pos", "B pos", TREX_COL_COUNT, false},
    {"kernels", "Kernels", TREX_COL_COUNT, true},
    {"a_start_ns", "A start", TREX_COL_DURATION, false},
    {"b_start_ns", "B start", TREX_COL_DURATION, false},
    {"a_total_ns", "A total", TREX_COL_DURATION, true},
    {"b_total_ns", "B total", TREX_COL_DURATION, true},
    {"delta_ns", "Change", TREX_COL_DURATION, true},
    {"name", "First kernel", TREX_COL_TEXT, false},
};
enum {
	R_STATUS,
	R_RANK,
	R_STREAM,
	R_A_POS,
	R_B_POS,
	R_N,
	R_A_START,
	R_B_START,
	R_A_TOTAL,
	R_B_TOTAL,
	R_DELTA,
	R_NAME,
	R_COUNT
};
_Static_assert(ARRAY_LEN(run_cols) == R_COUNT, "run columns");

static const struct trex_column stream_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"stream", "Stream", TREX_COL_TEXT, false},
    {"a_kernels", "A kernels", TREX_COL_COUNT, true},
    {"b_kernels", "B kernels", TREX_COL_COUNT, true},
    {"matched", "Matched", TREX_COL_COUNT, true},
    {"removed", "Removed", TREX_COL_COUNT, true},
    {"added", "Added", TREX_COL_COUNT, true},
    {"changed", "Changed", TREX_COL_COUNT, true},
    {"a_total_ns", "A total", TREX_COL_DURATION, true},
    {"b_total_ns", "B total", TREX_COL_DURATION, true},
    {"delta_ns", "Change", TREX_COL_DURATION, true},
    {"alignment", "Alignment", TREX_COL_TEXT, false},
};
enum {
	S_RANK,
	S_STREAM,
	S_A_N,
	S_B_N,
	S_MATCHED,
	S_REMOVED,
	S_ADDED,
	S_CHANGED,
	S_A_TOTAL,
	S_B_TOTAL,
	S_DELTA,
	S_ALIGN,
	S_COUNT
};
_Static_assert(ARRAY_LEN(stream_cols) == S_COUNT, "stream columns");

/* A kernel of one side: its stream, start, slice. */
struct item {
	uint32_t stream;
	uint32_t slice;
	int64_t ts;
};

/* One side: its kernels by stream, then launch order; where each stream's
 * run starts (first[s] .. first[s + 1]), and their name keys. */
struct side {
	const struct trex_index *idx;
	struct item *items;
	size_t n;
	size_t *first;
	uint32_t *keys;
};

/* Stream keys of both sides ("rank\x1fGPU 0 stream 7"), numbered in A's
 * display order, then B's new ones; their rank and label. */
struct streams {
	struct trex_strtab *tab;
	int64_t *rank;
	char **label;
	size_t cap;
};

static int cmp_item(const void *x, const void *y)
{
	const struct item *a = x, *b = y;

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->slice > b->slice) - (a->slice < b->slice);
}

/* The stream key of track of idx, made when new. */
static uint32_t stream_of(struct streams *ss, const struct trex_index *idx, uint32_t track)
{
	const struct trex_track *tr = trex_index_track(idx, track);
	int64_t rank = trex_index_file(idx, trex_index_track_file(idx, track))->rank;
	char dev[256], str[256], label[600], key[640];
	uint32_t n = trex_strtab_count(ss->tab), id;

	snprintf(label, sizeof(label), "%s %s",
	         trex_device_name(idx, tr->process, dev, sizeof(dev)),
	         trex_track_label(idx, track, str, sizeof(str)));
	snprintf(key, sizeof(key), "%" PRId64 "\x1f%s", rank, label);
	id = trex_strtab_intern(ss->tab, key, strlen(key));
	if (id == TREX_STR_ERROR || id < n)
		return id;
	if (id >= ss->cap) {
		size_t cap = ss->cap ? ss->cap * 2 : 64;
		int64_t *r = realloc(ss->rank, cap * sizeof(*r));
		char **l = r ? realloc(ss->label, cap * sizeof(*l)) : NULL;

		if (r)
			ss->rank = r;
		if (!l)
			return TREX_STR_ERROR;
		memset(l + ss->cap, 0, (cap - ss->cap) * sizeof(*l));
		ss->label = l;
		ss->cap = cap;
	}
	ss->rank[id] = rank;
	ss->label[id] = strdup(label);
	return ss->label[id] ? id : TREX_STR_ERROR;
}

/* The stream of every GPU track of idx; TREX_NONE for the others. */
static enum trex_status track_streams(struct streams *ss, const struct trex_index *idx,
                                      uint32_t **out)
{
	uint32_t nt = trex_index_track_count(idx);
	uint32_t *v = malloc((nt ? nt : 1) * sizeof(*v));

	*out = v;
	if (!v)
		return TREX_NOMEM;
	for (uint32_t t = 0; t < nt; t++) {
		v[t] = TREX_NONE;
		if (trex_index_track(idx, t)->kind != TREX_TRACK_GPU)
			continue;
		if ((v[t] = stream_of(ss, idx, t)) == TREX_STR_ERROR)
			return TREX_NOMEM;
	}
	return TREX_OK;
}

/* The kernels of side s in stream and launch order, with their keys. */
static enum trex_status side_items(struct side *s, struct streams *ss, struct diff_keys *k,
                                   int which)
{
	uint32_t n = trex_index_slice_count(s->idx), *stream_of_track;
	enum trex_status st = track_streams(ss, s->idx, &stream_of_track);

	s->items = st == TREX_OK ? malloc((n ? n : 1) * sizeof(*s->items)) : NULL;
	if (st == TREX_OK && !s->items)
		st = TREX_NOMEM;
	for (uint32_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *sl = trex_index_slice(s->idx, i);

		if (sl->kind == TREX_KIND_KERNEL && stream_of_track[sl->track] != TREX_NONE)
			s->items[s->n++] = (struct item){stream_of_track[sl->track], i, sl->ts};
	}
	free(stream_of_track);
	if (st != TREX_OK)
		return st;
	qsort(s->items, s->n, sizeof(*s->items), cmp_item);
	s->keys = malloc((s->n ? s->n : 1) * sizeof(*s->keys));
	if (!s->keys)
		return TREX_NOMEM;
	for (size_t i = 0; i < s->n; i++) {
		s->keys[i] =
		    diff_keys_name(k, which, trex_index_slice(s->idx, s->items[i].slice)->name);
		if (s->keys[i] == TREX_STR_ERROR)
			return TREX_NOMEM;
	}
	return TREX_OK;
}

/* first[stream] for every stream of ss (once both sides are read). */
static enum trex_status side_bounds(struct side *s, uint32_t nstreams)
{
	s->first = calloc((size_t)nstreams + 1, sizeof(*s->first));
	if (!s->first)
		return TREX_NOMEM;
	for (size_t i = 0; i < s->n; i++)
		s->first[s->items[i].stream + 1]++;
	for (uint32_t st = 0; st < nstreams; st++)
		s->first[st + 1] += s->first[st];
	return TREX_OK;
}

/* ---- runs ----------------------------------------------------------------------------------- */

/* What one stream's comparison needs. */
struct stream_ctx {
	struct side *side[2];
	uint32_t stream;
	const struct streams *ss;
	struct diff_keys *keys;
	struct trex_diff_opts change; /* thresholds of "changed", defaults applied */
	uint32_t *stamp;              /* per key: the run that last saw it (distinct names) */
	uint32_t run_id;
	int64_t count[S_COUNT]; /* the stream row's counts */
	__int128 total[2];
};

static const struct trex_slice *kernel(const struct stream_ctx *c, int s, size_t pos)
{
	const struct side *sd = c->side[s];

	return trex_index_slice(sd->idx, sd->items[sd->first[c->stream] + pos].slice);
}

static uint32_t key_at(const struct stream_ctx *c, int s, size_t pos)
{
	return c->side[s]->keys[c->side[s]->first[c->stream] + pos];
}

/* "NAME" or "NAME (+N other names)" for the run of len kernels of side s
 * from pos. */
static const char *run_name(struct stream_ctx *c, struct trex_table *t, int s, size_t pos,
                            size_t len)
{
	const struct trex_index *idx = c->side[s]->idx;
	const char *first = trex_index_str(idx, kernel(c, s, pos)->name);
	size_t others = 0;
	char *buf;
	const char *out;

	c->run_id++;
	for (size_t i = 0; i < len; i++) {
		uint32_t *seen = &c->stamp[key_at(c, s, pos + i)];

		others += i && *seen != c->run_id;
		*seen = c->run_id;
	}
	if (!others)
		return trex_table_strdup(t, first, strlen(first));
	buf = malloc(strlen(first) + 48);
	if (!buf)
		return NULL;
	sprintf(buf, "%s (+%zu other %s)", first, others, others == 1 ? "name" : "names");
	out = trex_table_strdup(t, buf, strlen(buf));
	free(buf);
	return out;
}

/* Side s's kernels [pos, pos + len): summed time, and the first's start
 * from its trace start. */
static void run_side(const struct stream_ctx *c, int s, size_t pos, size_t len, double *total,
                     double *start)
{
	__int128 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += kernel(c, s, pos + i)->dur;
	*total = (double)sum;
	*start = len ? (double)(kernel(c, s, pos)->ts - trex_index_start(c->side[s]->idx)) : NAN;
}

/* A row for a run: removed (side 0 only), added (1 only) or changed. */
static enum trex_status run_row(struct stream_ctx *c, struct trex_table *t, const char *status,
                                size_t a_pos, size_t b_pos, size_t len, bool in_a, bool in_b)
{
	union trex_cell *r = trex_table_add_row(t);
	double at = 0, bt = 0, as = NAN, bs = NAN;

	if (!r)
		return TREX_NOMEM;
	if (in_a)
		run_side(c, 0, a_pos, len, &at, &as);
	if (in_b)
		run_side(c, 1, b_pos, len, &bt, &bs);
	r[R_STATUS].text = status;
	r[R_RANK].count = c->ss->rank[c->stream];
	r[R_STREAM].text =
	    trex_table_strdup(t, c->ss->label[c->stream], strlen(c->ss->label[c->stream]));
	r[R_A_POS].count = (int64_t)a_pos;
	r[R_B_POS].count = (int64_t)b_pos;
	r[R_N].count = (int64_t)len;
	r[R_A_START].number = as;
	r[R_B_START].number = bs;
	r[R_A_TOTAL].number = at;
	r[R_B_TOTAL].number = bt;
	r[R_DELTA].number = bt - at;
	r[R_NAME].text = run_name(c, t, in_a ? 0 : 1, in_a ? a_pos : b_pos, len);
	return r[R_STREAM].text && r[R_NAME].text ? TREX_OK : TREX_NOMEM;
}

static bool kernel_changed(const struct stream_ctx *c, size_t a_pos, size_t b_pos)
{
	double a = (double)kernel(c, 0, a_pos)->dur, b = (double)kernel(c, 1, b_pos)->dur;

	return !diff_below_threshold(&c->change, a, b - a);
}

/* The runs of changed kernels among len matched ones. */
static enum trex_status changed_runs(struct stream_ctx *c, struct trex_table *t,
                                     const struct trex_diff_edit *e)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; i < e->len && st == TREX_OK;) {
		size_t j = i;

		while (j < e->len && kernel_changed(c, e->a_pos + j, e->b_pos + j))
			j++;
		if (j > i) {
			st =
			    run_row(c, t, "changed", e->a_pos + i, e->b_pos + i, j - i, true, true);
			c->count[S_CHANGED] += (int64_t)(j - i);
			i = j;
		} else {
			i++;
		}
	}
	return st;
}

static enum trex_status edit_rows(struct stream_ctx *c, struct trex_table *t,
                                  const struct trex_diff_script *sc)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; i < sc->n && st == TREX_OK; i++) {
		const struct trex_diff_edit *e = &sc->v[i];

		switch (e->kind) {
		case TREX_DIFF_DEL:
			c->count[S_REMOVED] += (int64_t)e->len;
			st = run_row(c, t, "removed", e->a_pos, e->b_pos, e->len, true, false);
			break;
		case TREX_DIFF_INS:
			c->count[S_ADDED] += (int64_t)e->len;
			st = run_row(c, t, "added", e->a_pos, e->b_pos, e->len, false, true);
			break;
		case TREX_DIFF_MATCH:
		default:
			c->count[S_MATCHED] += (int64_t)e->len;
			st = changed_runs(c, t, e);
			break;
		}
	}
	return st;
}

static enum trex_status stream_row(struct stream_ctx *c, struct trex_table *t, const char *how)
{
	union trex_cell *r = trex_table_add_row(t);

	if (!r)
		return TREX_NOMEM;
	r[S_RANK].count = c->ss->rank[c->stream];
	r[S_STREAM].text =
	    trex_table_strdup(t, c->ss->label[c->stream], strlen(c->ss->label[c->stream]));
	for (int k = S_A_N; k <= S_CHANGED; k++)
		r[k].count = c->count[k];
	r[S_A_TOTAL].number = (double)c->total[0];
	r[S_B_TOTAL].number = (double)c->total[1];
	r[S_DELTA].number = (double)(c->total[1] - c->total[0]);
	r[S_ALIGN].text = how;
	return r[S_STREAM].text ? TREX_OK : TREX_NOMEM;
}

/* One stream: its kernels on both sides aligned, the runs and its row. */
static enum trex_status compare_stream(struct stream_ctx *c, struct trex_table *t,
                                       struct trex_table *streams, struct trex_error *err)
{
	size_t n[2];
	const uint32_t *seq[2];
	struct trex_diff_script sc;
	enum trex_status st;

	memset(c->count, 0, sizeof(c->count));
	for (int s = 0; s < 2; s++) {
		const struct side *sd = c->side[s];

		n[s] = sd->first[c->stream + 1] - sd->first[c->stream];
		seq[s] = sd->keys + sd->first[c->stream];
		c->total[s] = 0;
		for (size_t i = 0; i < n[s]; i++)
			c->total[s] += kernel(c, s, i)->dur;
	}
	if (!n[0] && !n[1]) /* a queue of copies and sets only */
		return TREX_OK;
	c->count[S_A_N] = (int64_t)n[0];
	c->count[S_B_N] = (int64_t)n[1];
	st = trex_diff_align(seq[0], n[0], seq[1], n[1], &sc, err);
	if (st != TREX_OK)
		return st;
	st = edit_rows(c, t, &sc);
	if (st == TREX_OK && streams)
		st = stream_row(c, streams,
		                !n[1]            ? "A only"
		                : !n[0]          ? "B only"
		                : sc.approximate ? "approximate"
		                                 : "shortest");
	trex_diff_script_free(&sc);
	return st;
}

/* ---- the tables ----------------------------------------------------------------------------- */

static void streams_free(struct streams *ss)
{
	uint32_t n = ss->tab ? trex_strtab_count(ss->tab) : 0;

	for (uint32_t i = 0; i < n && i < ss->cap; i++)
		free(ss->label[i]); /* label[0] stays NULL: id 0 is the empty string */
	free(ss->rank);
	free(ss->label);
	trex_strtab_free(ss->tab);
}

static void side_free(struct side *s)
{
	free(s->items);
	free(s->first);
	free(s->keys);
}

/* Thresholds of "changed": the options', else 10 %. */
static struct trex_diff_opts change_opts(const struct trex_diff_opts *o)
{
	struct trex_diff_opts c = *o;

	if (c.min_change_ns <= 0 && c.min_change_pct <= 0)
		c.min_change_pct = DEFAULT_CHANGE_PCT;
	return c;
}

/* Reads both sides and compares every stream. */
static enum trex_status sequence(struct side sd[2], struct diff_keys *k,
                                 const struct trex_diff_opts *o, struct trex_table *t,
                                 struct trex_table *streams, struct trex_error *err)
{
	struct streams ss = {0};
	struct stream_ctx c = {
	    .side = {&sd[0], &sd[1]}, .ss = &ss, .keys = k, .change = change_opts(o)};
	enum trex_status st = (ss.tab = trex_strtab_new()) ? TREX_OK : TREX_NOMEM;
	uint32_t nstreams = 0;

	for (int s = 0; s < 2 && st == TREX_OK; s++)
		st = side_items(&sd[s], &ss, k, s);
	if (st == TREX_OK) {
		nstreams = trex_strtab_count(ss.tab);
		st = side_bounds(&sd[0], nstreams);
	}
	if (st == TREX_OK)
		st = side_bounds(&sd[1], nstreams);
	if (st == TREX_OK && !(c.stamp = calloc(diff_keys_count(k) + 1, sizeof(*c.stamp))))
		st = TREX_NOMEM;
	/* stream 0 is the string table's empty string, never a stream key */
	for (uint32_t s = 1; s < nstreams && st == TREX_OK; s++) {
		c.stream = s;
		st = compare_stream(&c, t, streams, err);
	}
	if (st == TREX_OK)
		st = diff_empty_note((const struct trex_index *const[2]){sd[0].idx, sd[1].idx},
		                     TREX_DIFF_KERNELS, (size_t[2]){sd[0].n, sd[1].n}, t);
	free(c.stamp);
	streams_free(&ss);
	return st;
}

enum trex_status trex_diff_sequence_table(const struct trex_index *a, const struct trex_index *b,
                                          const struct trex_diff_opts *opts, struct trex_table *t,
                                          struct trex_table *streams, struct trex_error *err)
{
	static const struct trex_diff_opts defaults = {0};
	const struct trex_diff_opts *o = opts ? opts : &defaults;
	struct side sd[2] = {{.idx = a}, {.idx = b}};
	struct diff_keys k;
	enum trex_status st;

	trex_table_init(t, "sequence", run_cols, R_COUNT);
	if (streams)
		trex_table_init(streams, "streams", stream_cols, S_COUNT);
	st = diff_keys_init(&k, o->normalize);
	if (st == TREX_OK)
		st = diff_keys_bind(&k, 0, a);
	if (st == TREX_OK)
		st = diff_keys_bind(&k, 1, b);
	if (st == TREX_OK)
		st = sequence(sd, &k, o, t, streams, err);
	side_free(&sd[0]);
	side_free(&sd[1]);
	diff_keys_free(&k);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (streams)
			trex_table_free(streams);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "diff sequence: out of memory");
	}
	return st;
}
