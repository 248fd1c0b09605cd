#include "config.h"

#include "trex/analysis/gaps.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/gpu_time.h"
#include "trex/analysis/kernels.h"
#include "trex/core/grow.h"
#include "views_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NOTHING_RUNNING "(nothing running)"
#define LAUNCH_UNKNOWN "(launch unknown)"

static const struct trex_column cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"device", "Device", TREX_COL_TEXT, false},
    {"start_ns", "Start", TREX_COL_DURATION, false},
    {"length_ns", "Length", TREX_COL_DURATION, true},
    {"call", "Call", TREX_COL_TEXT, false},
    {"thread", "Thread", TREX_COL_TEXT, false},
    {"cpu_op", "CPU op", TREX_COL_TEXT, false},
};
enum { C_RANK, C_DEVICE, C_START, C_LENGTH, C_CALL, C_THREAD, C_OP };

/* One piece of GPU work and its launch. */
struct work {
	uint32_t process;
	uint32_t slice;
	uint32_t launch; /* runtime call, TREX_NONE if unknown */
	int64_t ts, end;
	int64_t launch_ts;
};

struct ctx {
	const struct trex_index *idx;
	const struct trex_gap_opts *opts;
	struct work *w;
	size_t nw, cap_w;
	struct trex_gap *g;
	size_t ng, cap_g;
};

static int cmp_work(const void *a, const void *b)
{
	const struct work *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static enum trex_status collect_work(struct ctx *c)
{
	uint32_t n = trex_index_slice_count(c->idx);
	enum trex_status st = TREX_OK;

	for (uint32_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		struct work *v;
		uint32_t rt;

		if (trex_gpu_class_of(c->idx, i) == TREX_GPU_NOT_WORK)
			continue;
		v = trex_grow(c->w, &c->cap_w, c->nw + 1, sizeof(*v), 1024);
		if (!v) {
			st = TREX_NOMEM;
			break;
		}
		c->w = v;
		rt = trex_index_launch_of(c->idx, i);
		c->w[c->nw++] =
		    (struct work){trex_index_track(c->idx, s->track)->process,
		                  i,
		                  rt,
		                  s->ts,
		                  s->ts + s->dur,
		                  rt == TREX_NONE ? 0 : trex_index_slice(c->idx, rt)->ts};
	}
	if (st == TREX_OK && c->nw > 1)
		qsort(c->w, c->nw, sizeof(*c->w), cmp_work);
	return st;
}

/* ---- what the CPU was doing --------------------------------------------------------------- */

/* The innermost op (cpu_op or user annotation) and runtime call running
 * on track at t. */
static void cpu_at(struct ctx *c, uint32_t track, int64_t t, struct trex_gap *g)
{
	uint32_t s = trex_index_slice_at(c->idx, track, t);

	for (; s != TREX_NONE; s = trex_index_parent(c->idx, s)) {
		enum trex_kind k = views_kind(c->idx, s);

		if (k == TREX_KIND_RUNTIME && g->call == TREX_NONE)
			g->call = s;
		if (k == TREX_KIND_CPU_OP || k == TREX_KIND_ANNOTATION) {
			g->op = s;
			return;
		}
	}
}

/* The launch that tells the thread: the earliest-starting launch of the
 * work starting at the gap's end, else the latest-starting one of the work
 * ending at its start (*before_launch, found by the sweep). */
static uint32_t gap_launch(const struct work *v, size_t n, size_t next, int64_t at,
                           const struct work *before_launch)
{
	const struct work *best = NULL;

	for (size_t j = next; j < n && v[j].ts == at; j++) {
		if (v[j].launch != TREX_NONE && (!best || v[j].launch_ts < best->launch_ts))
			best = &v[j];
	}
	if (!best)
		best = before_launch;
	return best ? best->launch : TREX_NONE;
}

static bool add_gap(struct ctx *c, const struct trex_gap *g)
{
	struct trex_gap *v;

	if (g->end - g->start < c->opts->min_ns)
		return true;
	v = trex_grow(c->g, &c->cap_g, c->ng + 1, sizeof(*v), 256);
	if (!v)
		return false;
	c->g = v;
	c->g[c->ng] = *g;
	if (g->thread != TREX_NONE)
		cpu_at(c, g->thread, g->start, &c->g[c->ng]);
	c->ng++;
	return true;
}

/* The gaps of one device's work v[0..n) (sorted by ts). */
static bool device_gaps(struct ctx *c, const struct work *v, size_t n)
{
	int64_t end = v[0].end;
	const struct work *before = &v[0];
	const struct work *before_launch = v[0].launch != TREX_NONE ? &v[0] : NULL;

	for (size_t i = 1; i < n; i++) {
		if (v[i].ts > end) {
			uint32_t rt = gap_launch(v, n, i, v[i].ts, before_launch);
			struct trex_gap g = {end,        v[i].ts,   v[0].process, before->slice,
			                     v[i].slice, TREX_NONE, TREX_NONE,    TREX_NONE};

			if (rt != TREX_NONE)
				g.thread = trex_index_slice(c->idx, rt)->track;
			if (!add_gap(c, &g))
				return false;
		}
		if (v[i].ts > end || v[i].end > end) {
			end = v[i].end;
			before = &v[i];
			before_launch = NULL;
		}
		if (v[i].end == end && v[i].launch != TREX_NONE &&
		    (!before_launch || v[i].launch_ts > before_launch->launch_ts))
			before_launch = &v[i];
	}
	return true;
}

static int cmp_gap(const void *a, const void *b)
{
	const struct trex_gap *x = a, *y = b;
	int64_t lx = x->end - x->start, ly = y->end - y->start;

	if (lx != ly)
		return lx > ly ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->process > y->process) - (x->process < y->process);
}

static enum trex_status find_gaps(struct ctx *c)
{
	for (size_t i = 0, j; i < c->nw; i = j) {
		for (j = i + 1; j < c->nw && c->w[j].process == c->w[i].process; j++)
			;
		if (!device_gaps(c, c->w + i, j - i))
			return TREX_NOMEM;
	}
	if (c->ng > 1)
		qsort(c->g, c->ng, sizeof(*c->g), cmp_gap);
	if (c->opts->top && c->ng > c->opts->top)
		c->ng = c->opts->top;
	return TREX_OK;
}

/* ---- the table ---------------------------------------------------------------------------- */

static const char *name_of(const struct trex_index *idx, uint32_t slice, const char *none)
{
	return slice == TREX_NONE ? none : trex_index_str(idx, trex_index_slice(idx, slice)->name);
}

static bool gap_row(struct ctx *c, struct trex_table *t, const struct trex_gap *g)
{
	const struct trex_index *idx = c->idx;
	union trex_cell *cell = trex_table_add_row(t);
	char buf[512];

	if (!cell)
		return false;
	cell[C_RANK].count = trex_index_file(idx, trex_index_process(idx, g->process)->file)->rank;
	cell[C_DEVICE].text = views_text(t, views_device_label(idx, g->process, buf, sizeof(buf)));
	cell[C_START].number = views_from_start(idx, g->start);
	cell[C_LENGTH].number = (double)(g->end - g->start);
	cell[C_THREAD].text = views_text(
	    t, g->thread == TREX_NONE ? "" : trex_track_label(idx, g->thread, buf, sizeof(buf)));
	cell[C_CALL].text = views_text(t, name_of(idx, g->call, ""));
	cell[C_OP].text = views_text(
	    t, g->thread == TREX_NONE ? LAUNCH_UNKNOWN : name_of(idx, g->op, NOTHING_RUNNING));
	return cell[C_DEVICE].text && cell[C_THREAD].text && cell[C_CALL].text && cell[C_OP].text;
}

enum trex_status trex_gaps_table(const struct trex_index *idx, const struct trex_gap_opts *opts,
                                 struct trex_table *t, struct trex_gap_list *list,
                                 struct trex_error *err)
{
	static const struct trex_gap_opts all = {0, 0};
	struct ctx c = {.idx = idx, .opts = opts ? opts : &all};
	enum trex_status st = TREX_OK;

	trex_table_init(t, "gaps", cols, ARRAY_LEN(cols));
	if (list)
		*list = (struct trex_gap_list){NULL, 0};
	if (st == TREX_OK)
		st = collect_work(&c);
	if (st == TREX_OK)
		st = find_gaps(&c);
	for (size_t i = 0; st == TREX_OK && i < c.ng; i++)
		st = gap_row(&c, t, &c.g[i]) ? TREX_OK : TREX_NOMEM;
	free(c.w);
	if (st == TREX_OK && list) {
		*list = (struct trex_gap_list){c.g, c.ng};
		c.g = NULL;
	}
	free(c.g);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "gaps: out of memory");
	}
	return st;
}

void trex_gap_list_free(struct trex_gap_list *list)
{
	if (!list)
		return;
	free(list->v);
	*list = (struct trex_gap_list){NULL, 0};
}
