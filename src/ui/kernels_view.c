/* The kernels table (trex_kernels_table) in a table view: B cycles the
 * grouping, Enter lists a row's instances, Enter on an instance shows it
 * in the timeline. */
#include "config.h"

#include "trex/ui/view.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stalls_view.h"
#include "table_view.h"
#include "trex/analysis/kernels.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/metrics.h"

/* The launching ops, found on a second thread while the user reads the
 * table by name, so that grouping by op later costs what a regrouping
 * costs (the index is read-only: safe to share). */
struct ops_prefetch {
	const struct trex_index *idx;
	pthread_t thread;
	bool started, joined;
	enum trex_status status;
	struct trex_kernel_ops ops;
};

struct kernels_view {
	struct table_view tv;
	enum trex_kernel_group group;
	char *category; /* only this category's work (memory included), or NULL */
	struct trex_kernel_members members;
	struct ops_prefetch prefetch;
	bool metric_cols; /* the metric columns are shown (metric-columns) */
};

/* ---- launching ops, in the background ----------------------------------------------- */

static void *ops_worker(void *arg)
{
	struct ops_prefetch *p = arg;
	struct trex_error err;

	p->status = trex_kernel_ops_compute(p->idx, &p->ops, &err);
	return NULL;
}

static void prefetch_start(struct ops_prefetch *p, const struct trex_index *idx)
{
	p->idx = idx;
	p->status = TREX_NOMEM;
	p->started = pthread_create(&p->thread, NULL, ops_worker, p) == 0;
}

/* The ops once found, NULL if they could not be (then the table finds its own). */
static const struct trex_kernel_ops *prefetch_get(struct ops_prefetch *p)
{
	if (p->started && !p->joined) {
		pthread_join(p->thread, NULL);
		p->joined = true;
	}
	return p->joined && p->status == TREX_OK ? &p->ops : NULL;
}

static void prefetch_free(struct ops_prefetch *p)
{
	if (prefetch_get(p))
		trex_kernel_ops_free(&p->ops);
}

struct instances_view {
	struct table_view tv;
	uint32_t *ids; /* row r of the table is slice ids[r] */
};

/* The table actions, and open-metrics and open-stalls for the selected
 * kernel (the kernels table) or instance. */
static bool kernel_rows_supports(enum trex_action a)
{
	return trex_table_view_supports(a) || a == TREX_ACTION_OPEN_METRICS ||
	       a == TREX_ACTION_OPEN_STALLS;
}

/* The ops of a table of kernels or their instances called view_name. */
#define KERNEL_ROWS_OPS(view_name)                                                                 \
	{                                                                                          \
		.name = (view_name), .keymap = TREX_KEYMAP_TABLE,                                  \
		.supports = kernel_rows_supports, .dispatch = table_view_dispatch,                 \
		.draw = table_view_draw, .free = table_view_free, .mouse = table_view_mouse,       \
	}

/* ---- instances ------------------------------------------------------------------------- */

static enum trex_handled instances_action(struct table_view *tv, enum trex_action a)
{
	struct instances_view *iv = (struct instances_view *)tv;
	size_t r = table_view_selected(tv);
	const struct trex_index *idx = tv->base.ctx->idx;

	if (a == TREX_ACTION_OPEN_STALLS && r != (size_t)-1) { /* else the stalls table */
		const char *name = trex_index_str(idx, trex_index_slice(idx, iv->ids[r])->name);

		return stall_open_kernel(tv->base.ctx, name, true) ? TREX_HANDLED : TREX_IGNORED;
	}
	if (a == TREX_ACTION_ENTER) {
		if (r == (size_t)-1)
			trex_ui_message(tv->base.ctx, "no instance selected");
		else
			trex_ui_show_slice(tv->base.ctx, iv->ids[r]);
		return TREX_HANDLED;
	}
	if (a == TREX_ACTION_CYCLE_GROUP) {
		trex_ui_message(tv->base.ctx, "instances are not grouped; Esc goes back");
		return TREX_HANDLED;
	}
	return TREX_IGNORED;
}

static void instances_free(struct table_view *tv)
{
	free(((struct instances_view *)tv)->ids);
}

static const struct table_view_hooks instances_hooks = {
    .action = instances_action,
    .free = instances_free,
};

static const struct trex_view_ops instances_ops = KERNEL_ROWS_OPS("instances");

/* The instances of ids[0..n) (copied), titled after their group. */
static struct trex_view *instances_view_new(struct trex_ui_ctx *ctx, const uint32_t *ids, size_t n,
                                            const char *group)
{
	struct instances_view *iv =
	    table_view_new(sizeof(*iv), ctx, &instances_ops, &instances_hooks);
	struct trex_table t;
	struct trex_error err;
	char title[256];

	if (!iv)
		return NULL;
	if (!(iv->ids = malloc((n ? n : 1) * sizeof(*iv->ids)))) {
		trex_ui_message(ctx, "out of memory");
		table_view_free(&iv->tv.base);
		return NULL;
	}
	memcpy(iv->ids, ids, n * sizeof(*ids));
	if (trex_kernel_instances_table(ctx->idx, iv->ids, n, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		table_view_free(&iv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "%zu %s of %s", n, trex_plural(n, "instance", "instances"),
	         group);
	return table_view_show(&iv->tv, &t, title, "dur_ns", true);
}

/* ---- kernels --------------------------------------------------------------------------- */

/* ---- metrics ------------------------------------------------------------------------------ */

static bool kernels_build(struct kernels_view *kv);

/* The metric columns (--metric's, else every metric and report column),
 * added to t (trex_kernels_add_metrics); t freed on failure. */
static bool add_metric_columns(struct trex_ui_ctx *ctx, const struct trex_kernel_members *m,
                               struct trex_table *t)
{
	static const char *const all[] = {"all"};
	struct trex_metric_column *cols;
	size_t ncols;
	struct trex_error err;
	enum trex_status st =
	    trex_metrics_columns(ctx->metrics, ctx->metric_count ? ctx->metric_names : all,
	                         ctx->metric_count ? ctx->metric_count : 1, &cols, &ncols, &err);

	if (st == TREX_OK) {
		st = trex_kernels_add_metrics(ctx->idx, ctx->metrics, m, cols, ncols, t, &err);
		free(cols);
	}
	if (st != TREX_OK) {
		trex_table_free(t);
		trex_ui_message(ctx, "%s", err.message);
	}
	return st == TREX_OK;
}

static void toggle_metric_columns(struct kernels_view *kv)
{
	struct trex_ui_ctx *ctx = kv->tv.base.ctx;

	if (!ctx->metrics) {
		trex_ui_message(ctx,
		                "no metrics loaded: give unitrace -q/-k CSVs or -d reports with "
		                "the trace (trex TRACE METRICS.csv)");
		return;
	}
	kv->metric_cols = !kv->metric_cols;
	if (!kernels_build(kv)) {
		kv->metric_cols = !kv->metric_cols;
		return;
	}
	trex_ui_message(ctx, "metric columns %s",
	                kv->metric_cols ? "shown (h/l scroll to them, "
	                                  "F2 hides some)"
	                                : "hidden");
}

static void open_metrics(struct kernels_view *kv)
{
	size_t r = table_view_selected(&kv->tv);
	struct trex_view *v;

	if (r == (size_t)-1 || r >= kv->members.nrows) {
		trex_ui_message(kv->tv.base.ctx, "no row selected");
		return;
	}
	v = trex_kernel_metrics_view_new(kv->tv.base.ctx, kv->members.ids + kv->members.first[r],
	                                 kv->members.first[r + 1] - kv->members.first[r],
	                                 table_view_name(&kv->tv, r));
	if (v)
		trex_ui_push_view(kv->tv.base.ctx, v);
}

/* The name of the one kernel row r stands for: its instances' (when a
 * grouping other than by name mixes names, NULL). */
static const char *row_kernel_name(const struct kernels_view *kv, size_t r)
{
	const struct trex_index *idx = kv->tv.base.ctx->idx;
	const size_t *first = kv->members.first;
	uint32_t name = trex_index_slice(idx, kv->members.ids[first[r]])->name;

	for (size_t i = first[r] + 1; kv->group != TREX_KERNELS_BY_NAME && i < first[r + 1]; i++)
		if (trex_index_slice(idx, kv->members.ids[i])->name != name)
			return NULL;
	return trex_index_str(idx, name);
}

/* open-stalls: the selected kernel's stall report, else (IGNORED) the
 * app's stalls table, the status line saying why. */
static enum trex_handled open_stalls(struct kernels_view *kv)
{
	struct trex_ui_ctx *ctx = kv->tv.base.ctx;
	size_t r = table_view_selected(&kv->tv);
	const char *name;

	if (r == (size_t)-1 || r >= kv->members.nrows ||
	    kv->members.first[r] == kv->members.first[r + 1])
		return TREX_IGNORED;
	name = row_kernel_name(kv, r);
	if (!name) {
		if (ctx->profile)
			trex_ui_message(ctx, "this row is several kernels: the stalls table");
		return TREX_IGNORED;
	}
	return stall_open_kernel(ctx, name, true) ? TREX_HANDLED : TREX_IGNORED;
}

/* (Re)computes the table for the current grouping; per-rank columns when
 * grouped by name over several files. */
static bool kernels_build(struct kernels_view *kv)
{
	struct trex_ui_ctx *ctx = kv->tv.base.ctx;
	struct trex_kernel_opts opts = {
	    .group = kv->group,
	    .per_rank = (kv->group == TREX_KERNELS_BY_NAME || kv->group == TREX_KERNELS_BY_OP) &&
	                trex_index_file_count(ctx->idx) > 1,
	    .ops = kv->group == TREX_KERNELS_BY_OP ? prefetch_get(&kv->prefetch) : NULL,
	    .memory = kv->category != NULL,
	    .category = kv->category,
	    .catset = ctx->catset,
	};
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;
	char title[96];

	if (trex_kernels_table_members(ctx->idx, &opts, &t, &m, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		return false;
	}
	if (kv->metric_cols && !add_metric_columns(ctx, &m, &t)) {
		trex_kernel_members_free(&m);
		return false;
	}
	if (kv->category)
		snprintf(title, sizeof(title), "%s: work by %s", kv->category,
		         trex_kernel_group_name(kv->group));
	else
		snprintf(title, sizeof(title), "kernels by %s", trex_kernel_group_name(kv->group));
	if (!table_view_set_table(&kv->tv, &t, title, "total_ns", true)) {
		trex_kernel_members_free(&m);
		return false;
	}
	trex_kernel_members_free(&kv->members);
	kv->members = m;
	return true;
}

static void cycle_group(struct kernels_view *kv)
{
	enum trex_kernel_group old = kv->group;

	kv->group = (enum trex_kernel_group)((kv->group + 1) % TREX_KERNELS_BY_COUNT);
	if (!kernels_build(kv)) {
		kv->group = old;
		return;
	}
	trex_ui_message(kv->tv.base.ctx, "grouped by %s: %zu %s", trex_kernel_group_name(kv->group),
	                kv->tv.table.nrows, trex_plural(kv->tv.table.nrows, "row", "rows"));
}

static void open_instances(struct kernels_view *kv)
{
	size_t r = table_view_selected(&kv->tv);
	struct trex_view *v;
	char group[160];

	if (r == (size_t)-1 || r >= kv->members.nrows) {
		trex_ui_message(kv->tv.base.ctx, "no row selected");
		return;
	}
	snprintf(group, sizeof(group), "%s", table_view_name(&kv->tv, r));
	if (kv->group == TREX_KERNELS_BY_RANK) { /* the run's label, not its path */
		const struct trex_index *idx = kv->tv.base.ctx->idx;
		uint32_t first = kv->members.ids[kv->members.first[r]];

		trex_file_label(idx,
		                trex_index_track_file(idx, trex_index_slice(idx, first)->track),
		                group, sizeof(group));
	}
	v = instances_view_new(kv->tv.base.ctx, kv->members.ids + kv->members.first[r],
	                       kv->members.first[r + 1] - kv->members.first[r], group);
	if (v)
		trex_ui_push_view(kv->tv.base.ctx, v);
}

static enum trex_handled kernels_action(struct table_view *tv, enum trex_action a)
{
	struct kernels_view *kv = (struct kernels_view *)tv;

	if (a == TREX_ACTION_ENTER)
		open_instances(kv);
	else if (a == TREX_ACTION_CYCLE_GROUP)
		cycle_group(kv);
	else if (a == TREX_ACTION_METRIC_COLUMNS)
		toggle_metric_columns(kv);
	else if (a == TREX_ACTION_OPEN_METRICS)
		open_metrics(kv);
	else if (a == TREX_ACTION_OPEN_STALLS)
		return open_stalls(kv);
	else
		return TREX_IGNORED;
	return TREX_HANDLED;
}

static void kernels_free(struct table_view *tv)
{
	struct kernels_view *kv = (struct kernels_view *)tv;

	prefetch_free(&kv->prefetch);
	trex_kernel_members_free(&kv->members);
	free(kv->category);
}

static const struct table_view_hooks kernels_hooks = {
    .action = kernels_action,
    .free = kernels_free,
};

static const struct trex_view_ops kernels_ops = KERNEL_ROWS_OPS("kernels");

struct trex_view *trex_kernels_view_new(struct trex_ui_ctx *ctx)
{
	return trex_category_kernels_view_new(ctx, NULL);
}

struct trex_view *trex_category_kernels_view_new(struct trex_ui_ctx *ctx, const char *category)
{
	struct kernels_view *kv = table_view_new(sizeof(*kv), ctx, &kernels_ops, &kernels_hooks);

	if (!kv)
		return NULL;
	kv->group = TREX_KERNELS_BY_NAME;
	kv->metric_cols = ctx->metrics && ctx->metric_count; /* --metric: shown from the start */
	if (category && !(kv->category = strdup(category))) {
		trex_ui_message(ctx, "out of memory");
		table_view_free(&kv->tv.base);
		return NULL;
	}
	if (!kernels_build(kv)) {
		table_view_free(&kv->tv.base);
		return NULL;
	}
	prefetch_start(&kv->prefetch, ctx->idx);
	return &kv->tv.base;
}
