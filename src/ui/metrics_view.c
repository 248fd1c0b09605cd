/* The metrics view (open-metrics): the per-kernel hardware metrics of
 * the metrics inputs (analysis/metrics.h) in a table view.
 *  - The top view: one row per kernel (source, device, kernel) with the
 *    mean of each metric (those of --metric, else all); B shows the other
 *    tables in turn: devices, metrics, sources, what did not match the
 *    trace, and each unitrace report. Enter on a kernel opens it.
 *  - A kernel's view: one row per instance, the metrics as columns (F2
 *    hides some, h/l scroll), with min, avg, max and a trend sparkline of
 *    each metric over the instances (in file order) pinned above the rows.
 *    Enter on a matched instance shows its kernel in the timeline. */
#include "config.h"

#include "trex/ui/view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_view.h"
#include "trex/analysis/metrics.h"
#include "trex/export/table_write.h"
#include "trex/ui/layout.h"

#define SUMMARY_ROWS 4 /* min, avg, max, trend */

/* ---- the chosen metrics ---------------------------------------------------------------------- */

/* --metric's metrics (report columns and unknown names left out: the
 * kernels table reports those); *ids NULL when none was asked for. */
static bool chosen(const struct trex_ui_ctx *ctx, uint32_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	if (!ctx->metric_count)
		return true;
	if (!(*ids = malloc(ctx->metric_count * sizeof(**ids))))
		return false;
	for (size_t i = 0; i < ctx->metric_count; i++) {
		uint32_t id = trex_metrics_metric_find(ctx->metrics, ctx->metric_names[i]);

		if (id != TREX_METRICS_NONE)
			(*ids)[(*n)++] = id;
	}
	if (!*n) {
		free(*ids);
		*ids = NULL;
	}
	return true;
}

/* ---- one kernel's instances -------------------------------------------------------------------
 */

struct instances_view {
	struct table_view tv;
	uint32_t *ids; /* the instances, in file order; table row r is ids[r] */
	size_t n;
	struct trex_table summary; /* per metric: min, avg, max (analysis) */
	bool has_summary;
};

static const struct trex_column real_col = {"", "", TREX_COL_REAL, true};

/* The summary row of the metric shown in column c, or (size_t)-1. */
static size_t summary_of(const struct instances_view *iv, size_t c)
{
	const char *key = iv->tv.table.cols[c].key;

	if (iv->tv.table.cols[c].type != TREX_COL_REAL)
		return (size_t)-1;
	for (size_t r = 0; r < iv->summary.nrows; r++) {
		if (strcmp(trex_table_cell(&iv->summary, r, 7)->text, key) == 0)
			return r;
	}
	return (size_t)-1;
}

static int summary_rows(const struct table_view *tv)
{
	const struct instances_view *iv = (const struct instances_view *)tv;

	return iv->has_summary && iv->summary.nrows ? SUMMARY_ROWS : 0;
}

/* The trend of the metric of summary row r over the column's width. */
static void draw_trend(struct instances_view *iv, WINDOW *win, int y, int x, int w, size_t r)
{
	static const char ascii_levels[] = " _.-:=+*#";
	const struct trex_ui_ctx *ctx = iv->tv.base.ctx;
	uint32_t metric =
	    trex_metrics_metric_find(ctx->metrics, trex_table_cell(&iv->summary, r, 7)->text);
	double *pts = malloc((size_t)w * sizeof(*pts)), lo = INFINITY, hi = -INFINITY;
	int n = iv->n < (size_t)w ? (int)iv->n : w;

	if (!pts || metric == TREX_METRICS_NONE) {
		free(pts);
		return;
	}
	trex_metrics_trend(ctx->metrics, metric, iv->ids, iv->n, pts, (size_t)n);
	for (int i = 0; i < n; i++) {
		lo = pts[i] < lo ? pts[i] : lo;
		hi = pts[i] > hi ? pts[i] : hi;
	}
	for (int i = 0; i < n; i++) {
		int level = isnan(pts[i]) ? 0 : trex_spark_level(pts[i], lo, hi);

		if (level)
			trex_draw_glyph(win, ctx->term, y, x + w - n + i, (wchar_t)(0x2580 + level),
			                ascii_levels[level],
			                trex_term_attr(ctx->term, TREX_ROLE_NUMBER));
	}
	free(pts);
}

static void draw_summary(struct table_view *tv, WINDOW *win, int y, int i, int width)
{
	static const char *const labels[SUMMARY_ROWS] = {"min", "avg", "max", "trend"};
	struct instances_view *iv = (struct instances_view *)tv;
	struct trex_term *term = tv->base.ctx->term;
	char buf[64];

	trex_draw_fill(win, y, 0, width, trex_term_attr(term, TREX_ROLE_DEFAULT));
	wattrset(win, (int)trex_term_attr(term, TREX_ROLE_HEADER));
	trex_draw_text(win, term, y, tv->col_x[0] >= 0 ? tv->col_x[0] : 1, labels[i], 6);
	for (size_t c = 0; c < tv->table.ncols; c++) {
		size_t r = tv->col_w[c] > 0 ? summary_of(iv, c) : (size_t)-1;
		const char *s;

		if (r == (size_t)-1)
			continue;
		if (i == SUMMARY_ROWS - 1) {
			draw_trend(iv, win, y, tv->col_x[c], tv->col_w[c], r);
			continue;
		}
		s = trex_table_cell_text_as(
		    &real_col, trex_table_cell(&iv->summary, r, 3 + (size_t)i), buf, sizeof(buf));
		wattrset(win, (int)trex_term_attr(term, TREX_ROLE_NUMBER));
		trex_draw_text(win, term, y,
		               tv->col_x[c] + tv->col_w[c] - (int)strlen(s) > tv->col_x[c]
		                   ? tv->col_x[c] + tv->col_w[c] - (int)strlen(s)
		                   : tv->col_x[c],
		               s, tv->col_w[c]);
	}
}

static enum trex_handled instances_action(struct table_view *tv, enum trex_action a)
{
	struct instances_view *iv = (struct instances_view *)tv;
	const struct trex_ui_ctx *ctx = tv->base.ctx;
	size_t r = table_view_selected(tv);
	const struct trex_metrics_instance *in;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= iv->n) {
		trex_ui_message(tv->base.ctx, "no instance selected");
		return TREX_HANDLED;
	}
	in = trex_metrics_instance(ctx->metrics, iv->ids[r]);
	if (in->slice < trex_index_slice_count(ctx->idx))
		trex_ui_show_slice(tv->base.ctx, in->slice);
	else
		trex_ui_message(tv->base.ctx, "this instance is in no trace kernel (%s)",
		                trex_metrics_link_name((enum trex_metrics_link)in->link));
	return TREX_HANDLED;
}

static void instances_free(struct table_view *tv)
{
	struct instances_view *iv = (struct instances_view *)tv;

	if (iv->has_summary)
		trex_table_free(&iv->summary);
	free(iv->ids);
}

static const struct table_view_hooks instances_hooks = {
    .action = instances_action,
    .free = instances_free,
    .summary_rows = summary_rows,
    .draw_summary = draw_summary,
};
static const struct trex_view_ops instances_ops = TABLE_VIEW_OPS("metric instances");

/* The instance and summary tables of ids[0..n) as one group. */
static bool instance_tables(struct instances_view *iv, struct trex_table *t)
{
	struct trex_ui_ctx *ctx = iv->tv.base.ctx;
	size_t first[2] = {0, iv->n};
	struct trex_metrics_groups g = {iv->ids, first, 1};
	struct trex_metrics_select sel = {.idle = true, .no_kernel = true};
	uint32_t *ids;
	struct trex_error err;
	bool ok;

	if (!chosen(ctx, &ids, &sel.nmetrics)) {
		trex_ui_message(ctx, "out of memory");
		return false;
	}
	sel.metrics = ids;
	ok = trex_metrics_instances_table(ctx->metrics, ctx->idx, &sel, &g, 0, t, &err) == TREX_OK;
	if (ok &&
	    trex_metrics_summary_table(ctx->metrics, &sel, &g, 0, &iv->summary, &err) != TREX_OK) {
		trex_table_free(t);
		ok = false;
	}
	iv->has_summary = ok;
	if (!ok)
		trex_ui_message(ctx, "%s", err.message);
	free(ids);
	return ok;
}

/* The instances ids[0..n) (copied), titled after name. */
static struct trex_view *instances_view_new(struct trex_ui_ctx *ctx, const uint32_t *ids, size_t n,
                                            const char *name)
{
	struct instances_view *iv =
	    table_view_new(sizeof(*iv), ctx, &instances_ops, &instances_hooks);
	struct trex_table t;
	char title[256];
	size_t linked = 0;

	if (!iv)
		return NULL;
	iv->n = n;
	if (!(iv->ids = malloc((n ? n : 1) * sizeof(*iv->ids)))) {
		trex_ui_message(ctx, "out of memory");
		table_view_free(&iv->tv.base);
		return NULL;
	}
	memcpy(iv->ids, ids, n * sizeof(*ids));
	if (!instance_tables(iv, &t)) {
		table_view_free(&iv->tv.base);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		linked += trex_metrics_instance(ctx->metrics, ids[i])->slice != TREX_METRICS_NONE;
	snprintf(title, sizeof(title), "metrics of %s: %zu %s, %zu in the trace", name, n,
	         trex_plural(n, "instance", "instances"), linked);
	iv->tv.pinned_cols = 2; /* device and # stay when the metrics scroll; match is the name */
	return table_view_show(&iv->tv, &t, title, NULL, false);
}

struct trex_view *trex_kernel_metrics_view_new(struct trex_ui_ctx *ctx, const uint32_t *ids,
                                               size_t n, const char *name)
{
	const struct trex_metrics *m = ctx->metrics;
	uint32_t *inst = NULL;
	size_t k = 0;
	struct trex_view *v;

	if (!m) {
		trex_ui_message(ctx, "no metrics loaded: give unitrace -q/-k CSVs with the trace "
		                     "(trex TRACE METRICS.csv)");
		return NULL;
	}
	inst = malloc((trex_metrics_instance_count(m) + 1) * sizeof(*inst));
	for (uint32_t i = 0; inst && i < trex_metrics_instance_count(m); i++) {
		uint32_t s = trex_metrics_instance(m, i)->slice;

		for (size_t j = 0; s != TREX_METRICS_NONE && j < n; j++) {
			if (ids[j] == s) {
				inst[k++] = i;
				break;
			}
		}
	}
	if (!inst)
		trex_ui_message(ctx, "out of memory");
	else if (!k)
		trex_ui_message(ctx,
		                "no metric instance matched %s (trex metrics lists the "
		                "unmatched ones)",
		                n == 1 ? "this kernel instance" : "these kernel instances");
	v = inst && k ? instances_view_new(ctx, inst, k, name) : NULL;
	free(inst);
	return v;
}

/* ---- the top view ------------------------------------------------------------------------------
 */

/* What the top view shows: the kernels, then (B) the other tables. */
enum metrics_table {
	MT_KERNELS,
	MT_DEVICES,
	MT_LIST,
	MT_SOURCES,
	MT_UNMATCHED,
	MT_REPORTS, /* MT_REPORTS + r: report r */
};

struct metrics_view {
	struct table_view tv;
	size_t shown; /* enum metrics_table */
	struct trex_metrics_groups groups;
};

static size_t table_count(const struct trex_ui_ctx *ctx)
{
	return MT_REPORTS + trex_metrics_report_count(ctx->metrics);
}

/* The kernels table and its groups (for Enter). */
static enum trex_status kernels_table(struct metrics_view *mv, struct trex_table *t,
                                      struct trex_error *err)
{
	struct trex_ui_ctx *ctx = mv->tv.base.ctx;
	struct trex_metrics_select sel = {.idle = true};
	uint32_t *ids;
	enum trex_status st;

	if (!chosen(ctx, &ids, &sel.nmetrics))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	sel.metrics = ids;
	trex_metrics_groups_free(&mv->groups);
	st = trex_metrics_group(ctx->metrics, &sel, &mv->groups, err);
	if (st == TREX_OK)
		st = trex_metrics_kernels_table(ctx->metrics, ctx->idx, &sel, &mv->groups, t, err);
	free(ids);
	return st;
}

/* Table number `shown` and its title. */
static enum trex_status shown_table(struct metrics_view *mv, struct trex_table *t, char *title,
                                    size_t size, struct trex_error *err)
{
	const struct trex_metrics *m = mv->tv.base.ctx->metrics;
	const struct trex_report *rep;

	switch (mv->shown) {
	case MT_KERNELS:
		snprintf(title, size, "metrics by kernel");
		return kernels_table(mv, t, err);
	case MT_DEVICES:
		snprintf(title, size, "metrics: devices");
		return trex_metrics_devices_table(m, t, err);
	case MT_LIST:
		snprintf(title, size, "metrics: the metrics");
		return trex_metrics_list_table(m, t, err);
	case MT_SOURCES:
		snprintf(title, size, "metrics: input files");
		return trex_metrics_sources_table(m, t, err);
	case MT_UNMATCHED:
		snprintf(title, size, "metrics: what did not match the trace");
		return trex_metrics_unmatched_table(m, mv->tv.base.ctx->idx, t, err);
	default:
		rep = trex_metrics_report(m, (uint32_t)(mv->shown - MT_REPORTS));
		snprintf(title, size, "%s: %s", trex_metrics_str(m, rep->section),
		         trex_metrics_str(m, rep->title));
		return trex_metrics_report_table(m, (uint32_t)(mv->shown - MT_REPORTS), t, err);
	}
}

static bool show_table(struct metrics_view *mv)
{
	struct trex_ui_ctx *ctx = mv->tv.base.ctx;
	struct trex_table t;
	struct trex_error err;
	char title[256];

	if (shown_table(mv, &t, title, sizeof(title), &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		return false;
	}
	return table_view_set_table(&mv->tv, &t, title, NULL, false);
}

static void next_table(struct metrics_view *mv)
{
	size_t old = mv->shown;

	mv->shown = (mv->shown + 1) % table_count(mv->tv.base.ctx);
	if (!show_table(mv)) {
		mv->shown = old;
		return;
	}
	trex_ui_message(mv->tv.base.ctx, "%s: %zu %s (B: the next table)", mv->tv.title,
	                mv->tv.table.nrows, trex_plural(mv->tv.table.nrows, "row", "rows"));
}

static void open_kernel(struct metrics_view *mv)
{
	size_t r = table_view_selected(&mv->tv);
	struct trex_view *v;

	if (mv->shown != MT_KERNELS) {
		trex_ui_message(mv->tv.base.ctx, "nothing to open here: B until the kernels table");
		return;
	}
	if (r >= mv->groups.n) {
		trex_ui_message(mv->tv.base.ctx, "no kernel selected");
		return;
	}
	v = instances_view_new(mv->tv.base.ctx, mv->groups.ids + mv->groups.first[r],
	                       mv->groups.first[r + 1] - mv->groups.first[r],
	                       table_view_name(&mv->tv, r));
	if (v)
		trex_ui_push_view(mv->tv.base.ctx, v);
}

static enum trex_handled metrics_action(struct table_view *tv, enum trex_action a)
{
	struct metrics_view *mv = (struct metrics_view *)tv;

	if (a == TREX_ACTION_ENTER)
		open_kernel(mv);
	else if (a == TREX_ACTION_CYCLE_GROUP)
		next_table(mv);
	else
		return TREX_IGNORED;
	return TREX_HANDLED;
}

static void metrics_free(struct table_view *tv)
{
	trex_metrics_groups_free(&((struct metrics_view *)tv)->groups);
}

static const struct table_view_hooks metrics_hooks = {.action = metrics_action,
                                                      .free = metrics_free};
static const struct trex_view_ops metrics_ops = TABLE_VIEW_OPS("metrics");

/* The status message on opening: how the metrics matched the trace. */
static void match_message(struct trex_ui_ctx *ctx)
{
	struct trex_metrics_match mm;
	char line[TREX_UI_MSG_MAX];

	trex_metrics_match_count(ctx->idx, ctx->metrics, &mm);
	if (!trex_index_slice_count(ctx->idx)) /* metrics alone: nothing to match */
		trex_ui_message(ctx, "no trace loaded: give the trace with the metrics to link "
		                     "their instances to its kernels");
	else if (mm.instances || mm.report_rows)
		trex_ui_message(ctx, "%s", trex_metrics_match_line(&mm, line, sizeof(line)));
}

/* The kernels; reports alone (no instance): the first device timing
 * table, else the first report. */
static size_t first_table(const struct trex_metrics *m)
{
	if (trex_metrics_instance_count(m) || !trex_metrics_report_count(m))
		return MT_KERNELS;
	for (uint32_t r = 0; r < trex_metrics_report_count(m); r++) {
		if (trex_metrics_report(m, r)->kind == TREX_REPORT_DEVICE_TIMING)
			return MT_REPORTS + r;
	}
	return MT_REPORTS;
}

struct trex_view *trex_metrics_view_new(struct trex_ui_ctx *ctx)
{
	struct metrics_view *mv;

	if (!ctx->metrics) {
		trex_ui_message(ctx, "no metrics loaded: give unitrace -q/-k CSVs or -d/-h reports "
		                     "with the trace (trex TRACE METRICS.csv)");
		return NULL;
	}
	mv = table_view_new(sizeof(*mv), ctx, &metrics_ops, &metrics_hooks);
	if (!mv)
		return NULL;
	mv->shown = first_table(ctx->metrics);
	if (!show_table(mv)) {
		table_view_free(&mv->tv.base);
		return NULL;
	}
	match_message(ctx);
	return &mv->tv.base;
}
