/* This run (A) against --compare's run (B), as `trex diff A B --by X
 * --normalize R --min M` prints it: the same tables (analysis/diff.h),
 * largest change first, new and gone rows marked. B (cycle-group) goes
 * through kernels, ops, categories, steps and the per-stream kernel
 * sequence; R (name-rule) through the name rules (exact, hex, template,
 * digits, all), said in the title; H (min-change) hides rows that changed
 * less than a time or a %. The timeline stays A's: Enter shows where a
 * row is there (diff_goto.c), or says that only B has it. */
#include "config.h"

#include "trex/ui/view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_goto.h"
#include "table_view.h"
#include "trex/analysis/diff.h"
#include "trex/core/display.h"
#include "trex/core/kind.h"
#include "trex/ui/timespec.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What is compared: every --by of `trex diff`, in the order B goes. */
enum diff_by { BY_KERNELS, BY_OPS, BY_CATEGORIES, BY_STEPS, BY_SEQUENCE, BY_COUNT };
static const char *const by_names[BY_COUNT] = {"kernels", "ops", "categories", "steps", "sequence"};

/* The rules R goes through; a comma list from --normalize goes on at exact. */
static const unsigned rule_cycle[] = {0, TREX_DIFF_NORM_HEX, TREX_DIFF_NORM_TEMPLATE,
                                      TREX_DIFF_NORM_DIGITS, TREX_DIFF_NORM_ALL};

struct diff_view {
	struct table_view tv;
	enum diff_by by;
	unsigned rules; /* trex_diff_norm bits, 0: exact */
	int64_t min_ns; /* hide rows that changed less; 0: none */
	double min_pct; /* ... or less than this % of A's; 0: none */
	size_t hidden;  /* rows the thresholds hid */
	char min_text[TREX_PROMPT_MAX];
};

static const struct trex_view_ops diff_ops = TABLE_VIEW_OPS("diff");

static struct diff_view *dv_of(struct table_view *tv)
{
	return (struct diff_view *)tv;
}

/* Whether the comparison matches names (the rules matter to it). */
static bool by_names_matched(enum diff_by by)
{
	return by == BY_KERNELS || by == BY_OPS || by == BY_SEQUENCE;
}

/* "5 %", "20 us" or "" */
static void min_describe(const struct diff_view *dv, char *buf, size_t size)
{
	char d[32];

	if (dv->min_pct > 0) {
		snprintf(buf, size, "%g %%", dv->min_pct);
	} else if (dv->min_ns > 0) {
		trex_format_duration((double)dv->min_ns, d, sizeof(d));
		snprintf(buf, size, "%s", d);
	} else {
		buf[0] = '\0';
	}
}

/* "kernels: this run (A) against --compare (B); names matched: hex;
 * 3 rows changed less than 5 %" */
static void make_title(const struct diff_view *dv, char *buf, size_t size)
{
	char rules[64], min[40];
	int n;

	trex_diff_norm_text(dv->rules, rules, sizeof(rules));
	n = snprintf(buf, size, "%s: this run (A) against --compare (B); names matched: %s%s",
	             by_names[dv->by], rules, by_names_matched(dv->by) ? "" : " (not used)");
	min_describe(dv, min, sizeof(min));
	if (n > 0 && (size_t)n < size && dv->hidden)
		snprintf(buf + n, size - (size_t)n, "; %zu %s changed less than %s", dv->hidden,
		         trex_plural(dv->hidden, "row", "rows"), min);
}

/* The table of the view's comparison, as `trex diff --by` computes it. */
static enum trex_status compute(struct diff_view *dv, struct trex_table *t, size_t *hidden,
                                struct trex_error *err)
{
	struct trex_ui_ctx *ctx = dv->tv.base.ctx;
	struct trex_diff_opts o = {.normalize = dv->rules,
	                           .min_change_ns = dv->min_ns,
	                           .min_change_pct = dv->min_pct,
	                           .step_pattern = ctx->step_pattern,
	                           .catset = ctx->catset};
	static const enum trex_diff_by table_by[] = {TREX_DIFF_KERNELS, TREX_DIFF_OPS,
	                                             TREX_DIFF_CATEGORIES};
	struct trex_table streams;
	enum trex_status st;

	*hidden = 0;
	if (dv->by == BY_STEPS)
		return trex_diff_steps_table(ctx->idx, ctx->compare, &o, t, hidden, err);
	if (dv->by != BY_SEQUENCE)
		return trex_diff_table(ctx->idx, ctx->compare, table_by[dv->by], &o, t, hidden,
		                       err);
	st = trex_diff_sequence_table(ctx->idx, ctx->compare, &o, t, &streams, err);
	if (st == TREX_OK)
		trex_table_free(&streams); /* the runs are the rows; the CLI's CSV has them alone */
	return st;
}

/* (Re)computes and shows the table; false (the view as it was) when it
 * cannot be computed, the status line saying why. */
static bool build(struct diff_view *dv)
{
	struct trex_ui_ctx *ctx = dv->tv.base.ctx;
	struct trex_table t;
	struct trex_error err;
	size_t hidden;
	char title[256];
	size_t was = dv->hidden;

	if (compute(dv, &t, &hidden, &err) != TREX_OK) {
		trex_ui_message(ctx, "diff: %s", err.message);
		return false;
	}
	dv->hidden = hidden;
	make_title(dv, title, sizeof(title));
	if (!table_view_set_table(&dv->tv, &t, title, NULL, false)) {
		dv->hidden = was;
		return false;
	}
	if (dv->tv.table.note)
		trex_ui_message(ctx, "%s", dv->tv.table.note);
	return true;
}

/* ---- B, R and H ------------------------------------------------------------------------------ */

/* "comparing ops: 12 rows, names matched: exact" */
static void say_rows(struct diff_view *dv, const char *what)
{
	char rules[64];

	trex_diff_norm_text(dv->rules, rules, sizeof(rules));
	if (dv->tv.table.note)
		return; /* build said why there is no row */
	trex_ui_message(dv->tv.base.ctx, "%s: %zu %s, names matched: %s", what, dv->tv.table.nrows,
	                trex_plural(dv->tv.table.nrows, "row", "rows"), rules);
}

static void cycle_by(struct diff_view *dv)
{
	enum diff_by old = dv->by;
	char what[64];

	dv->by = (enum diff_by)((dv->by + 1) % BY_COUNT);
	if (!build(dv)) {
		dv->by = old;
		return;
	}
	snprintf(what, sizeof(what), "comparing %s", by_names[dv->by]);
	say_rows(dv, what);
}

static void next_rule(struct diff_view *dv)
{
	unsigned old = dv->rules, next = rule_cycle[0];
	char rules[64];

	for (size_t i = 0; i + 1 < ARRAY_LEN(rule_cycle); i++)
		if (rule_cycle[i] == dv->rules)
			next = rule_cycle[i + 1];
	dv->rules = next;
	if (!build(dv)) {
		dv->rules = old;
		return;
	}
	trex_diff_norm_text(dv->rules, rules, sizeof(rules));
	if (by_names_matched(dv->by))
		say_rows(dv, by_names[dv->by]);
	else
		trex_ui_message(dv->tv.base.ctx,
		                "names matched: %s (for kernels, ops and sequence; %s are not "
		                "matched by name)",
		                rules, by_names[dv->by]);
}

/* "5%", "5 %" -> 5; -1 for anything else. */
static double parse_pct(const char *text)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	while (*end == ' ')
		end++;
	if (end == text || *end != '%' || end[1] || errno || !(v > 0) || v > 1e6)
		return -1;
	return v;
}

static void min_submit(struct trex_view *v, const char *text)
{
	struct diff_view *dv = dv_of((struct table_view *)v);
	int64_t ns = 0, old_ns = dv->min_ns;
	double pct = 0, old_pct = dv->min_pct;
	bool relative = false;
	char min[40];

	while (*text == ' ')
		text++;
	if (*text && strcmp(text, "0") != 0 && (pct = parse_pct(text)) < 0) {
		pct = 0;
		if (!trex_timespec_parse(text, &ns, &relative) || relative || ns < 0) {
			trex_ui_message(v->ctx,
			                "hide changes under: a time like 50us or 1500 (ns), "
			                "a percentage like 5%%, or 0 for none; not '%s'",
			                text);
			return;
		}
	}
	dv->min_ns = ns;
	dv->min_pct = pct;
	if (!build(dv)) {
		dv->min_ns = old_ns;
		dv->min_pct = old_pct;
		return;
	}
	min_describe(dv, min, sizeof(min));
	if (!*min)
		trex_ui_message(v->ctx, "every row shown: %zu", dv->tv.table.nrows);
	else
		trex_ui_message(v->ctx, "%zu %s changed less than %s: hidden", dv->hidden,
		                trex_plural(dv->hidden, "row", "rows"), min);
}

static void open_min(struct diff_view *dv)
{
	struct trex_prompt_spec spec = {
	    .label = "hide changes under (time, %, 0: none): ",
	    .initial = dv->min_text,
	    .history = TREX_PROMPT_HISTORY_OTHER,
	    .on_submit = min_submit,
	};

	min_describe(dv, dv->min_text, sizeof(dv->min_text));
	for (char *p = dv->min_text; *p; p++) /* "5 %" -> "5%", "20 us" -> "20us" */
		if (*p == ' ')
			memmove(p, p + 1, strlen(p));
	trex_ui_prompt(dv->tv.base.ctx, &dv->tv.base, &spec);
}

/* ---- Enter: the row in A's timeline ---------------------------------------------------------- */

/* Column key of the view's table; its index, or ncols. */
static size_t col(const struct table_view *tv, const char *key)
{
	size_t c = 0;

	while (c < tv->table.ncols && strcmp(tv->table.cols[c].key, key) != 0)
		c++;
	return c;
}

static const char *text_at(const struct table_view *tv, size_t r, const char *key)
{
	size_t c = col(tv, key);

	return c < tv->table.ncols ? trex_table_cell(&tv->table, r, c)->text : "";
}

static int64_t count_at(const struct table_view *tv, size_t r, const char *key)
{
	size_t c = col(tv, key);

	return c < tv->table.ncols ? trex_table_cell(&tv->table, r, c)->count : -1;
}

/* Kernels and ops: A's longest instance of the row's name (any name of
 * the group when names are normalised). */
static void goto_name(struct diff_view *dv, size_t r)
{
	struct trex_ui_ctx *ctx = dv->tv.base.ctx;
	const char *name = dv->rules && col(&dv->tv, "name") == dv->tv.table.ncols
	                       ? text_at(&dv->tv, r, "name_normalized")
	                       : text_at(&dv->tv, r, "name");
	uint8_t kind = dv->by == BY_OPS ? TREX_KIND_CPU_OP : TREX_KIND_KERNEL;
	enum trex_status st;
	uint32_t slice;

	if (dv->by == BY_CATEGORIES) {
		struct trex_view *v = trex_category_kernels_view_new(ctx, name);

		if (v)
			trex_ui_push_view(ctx, v);
		return;
	}
	slice = diff_goto_longest(ctx->idx, kind, name, dv->rules, &st);
	if (st != TREX_OK)
		trex_ui_message(ctx, "out of memory");
	else if (slice == TREX_NONE)
		trex_ui_message(ctx, "only in the --compare run: not in this timeline");
	else
		trex_ui_show_slice(ctx, slice);
}

/* Steps: A's n-th step of the row's rank, zoomed to. */
static void goto_step(struct diff_view *dv, size_t r)
{
	struct trex_ui_ctx *ctx = dv->tv.base.ctx;
	int64_t rank = count_at(&dv->tv, r, "rank"), n = count_at(&dv->tv, r, "step");
	struct trex_error err;
	enum trex_status st;
	uint32_t id;

	if (strcmp(text_at(&dv->tv, r, "status"), "new") == 0) {
		trex_ui_message(ctx,
		                "only in the --compare run: step %" PRId64 " of rank %" PRId64
		                " (%s) is not in this timeline",
		                n, rank, text_at(&dv->tv, r, "b_step"));
		return;
	}
	id = diff_goto_step(ctx->idx, ctx->step_pattern, rank, n, &st, &err);
	if (st != TREX_OK) {
		trex_ui_message(ctx, "steps: %s", err.message);
	} else if (id == TREX_NONE) {
		trex_ui_message(ctx, "step %" PRId64 " of rank %" PRId64 " is not in this timeline",
		                n, rank);
	} else {
		const struct trex_slice *s = trex_index_slice(ctx->idx, id);

		trex_ui_show_range(ctx, s->ts, s->ts + s->dur, id);
	}
}

/* Sequence: the run's first kernel in A, or where B has it. */
static void goto_run(struct diff_view *dv, size_t r)
{
	struct trex_ui_ctx *ctx = dv->tv.base.ctx;
	int64_t rank = count_at(&dv->tv, r, "rank");
	const char *stream = text_at(&dv->tv, r, "stream");
	uint32_t id;
	char at[32];

	if (strcmp(text_at(&dv->tv, r, "status"), "added") == 0) {
		double b_start =
		    trex_table_cell(&dv->tv.table, r, col(&dv->tv, "b_start_ns"))->number;

		trex_format_duration(b_start, at, sizeof(at));
		trex_ui_message(ctx,
		                "only in the --compare run: kernel %" PRId64 " of rank %" PRId64
		                " %s there, at %s from B's start; not in this timeline",
		                count_at(&dv->tv, r, "b_pos"), rank, stream, at);
		return;
	}
	id = diff_goto_stream_kernel(ctx->idx, rank, stream, count_at(&dv->tv, r, "a_pos"));
	if (id == TREX_NONE)
		trex_ui_message(ctx,
		                "kernel %" PRId64 " of rank %" PRId64 " %s is not in this "
		                "timeline",
		                count_at(&dv->tv, r, "a_pos"), rank, stream);
	else
		trex_ui_show_slice(ctx, id);
}

static enum trex_handled diff_action(struct table_view *tv, enum trex_action a)
{
	struct diff_view *dv = dv_of(tv);
	size_t r = table_view_selected(tv);

	if (a == TREX_ACTION_CYCLE_GROUP)
		cycle_by(dv);
	else if (a == TREX_ACTION_NAME_RULE)
		next_rule(dv);
	else if (a == TREX_ACTION_MIN_CHANGE)
		open_min(dv);
	else if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	else if (r == (size_t)-1 || r >= tv->table.nrows)
		trex_ui_message(tv->base.ctx, tv->table.nrows ? "no row selected"
		                                              : "no rows: nothing to show in A");
	else if (dv->by == BY_STEPS)
		goto_step(dv, r);
	else if (dv->by == BY_SEQUENCE)
		goto_run(dv, r);
	else if (strcmp(text_at(tv, r, "status"), "new") == 0)
		trex_ui_message(tv->base.ctx, "only in the --compare run: not in this timeline");
	else
		goto_name(dv, r);
	return TREX_HANDLED;
}

static const struct table_view_hooks diff_hooks = {.action = diff_action};

struct trex_view *trex_diff_view_new(struct trex_ui_ctx *ctx)
{
	struct diff_view *dv;

	if (!ctx->compare) {
		trex_ui_message(ctx, "no run to compare with: open with --compare B (a trace, "
		                     "FILE,FILE... or an index file)");
		return NULL;
	}
	dv = table_view_new(sizeof(*dv), ctx, &diff_ops, &diff_hooks);
	if (!dv)
		return NULL;
	dv->by = BY_KERNELS;
	dv->rules = ctx->diff_rules;
	dv->min_ns = ctx->diff_min_ns;
	dv->min_pct = ctx->diff_min_pct;
	if (!build(dv)) {
		table_view_free(&dv->tv.base);
		return NULL;
	}
	return &dv->tv.base;
}
