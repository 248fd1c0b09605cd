/* The categories breakdown and the GPU-time accounting in table views.
 * GPU time has ~25 metrics per device and few devices, so it is shown
 * transposed (one row per metric, one column per device) to be readable
 * at 80x24; export writes the per-device table the CLI prints. */
#include "config.h"

#include "trex/ui/view.h"

#include <stdio.h>
#include <stdlib.h>

#include "table_view.h"
#include "trex/analysis/categories.h"
#include "trex/analysis/gpu_time.h"
#include "trex/analysis/ideal_cycles.h"

#define GPU_LABEL_COLS 2 /* rank, device */

static const struct trex_view_ops categories_ops = TABLE_VIEW_OPS("categories");

/* Enter on a category lists its work in a kernels view. */
static enum trex_handled categories_action(struct table_view *tv, enum trex_action a)
{
	size_t r = table_view_selected(tv);
	struct trex_view *v;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r == (size_t)-1 || r >= tv->table.nrows) {
		trex_ui_message(tv->base.ctx, "no row selected");
		return TREX_HANDLED;
	}
	v = trex_category_kernels_view_new(tv->base.ctx, table_view_name(tv, r));
	if (v)
		trex_ui_push_view(tv->base.ctx, v);
	return TREX_HANDLED;
}

static const struct table_view_hooks categories_hooks = {.action = categories_action};

static const struct table_view_hooks ideal_hooks = {0};

/* With --compiler-log: acelyzer's table, in its own row order. */
static struct trex_view *ideal_categories_view(struct trex_ui_ctx *ctx)
{
	struct table_view *tv = table_view_new(sizeof(*tv), ctx, &categories_ops, &ideal_hooks);
	struct trex_table t;
	struct trex_error err;

	if (!tv)
		return NULL;
	if (trex_ideal_categories_table(ctx->idx, ctx->ideal, ctx->core_mhz, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "categories: %s", err.message);
		table_view_free(&tv->base);
		return NULL;
	}
	return table_view_show(tv, &t, "categories (--compiler-log ideal cycles)", NULL, false);
}

struct trex_view *trex_categories_view_new(struct trex_ui_ctx *ctx)
{
	struct table_view *tv;
	struct trex_category_opts opts = {.set = ctx->catset, .bar = true};
	struct trex_table t;
	struct trex_error err;

	if (ctx->ideal)
		return ideal_categories_view(ctx);
	tv = table_view_new(sizeof(*tv), ctx, &categories_ops, &categories_hooks);
	if (!tv)
		return NULL;
	if (trex_categories_table(ctx->idx, &opts, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "categories: %s", err.message);
		table_view_free(&tv->base);
		return NULL;
	}
	return table_view_show(tv, &t, ctx->catset ? "categories (--schema rules)" : "categories",
	                       "total_ns", true);
}

/* ---- GPU time ------------------------------------------------------------------------- */

struct gpu_time_view {
	struct table_view tv;
	struct trex_table wide;    /* one row per device, as the CLI prints it */
	enum trex_col_type *types; /* per metric (row of the shown table) */
};

static enum trex_col_type gpu_cell_type(const struct table_view *tv, size_t row, size_t col)
{
	const struct gpu_time_view *gv = (const struct gpu_time_view *)tv;

	if (col == 0)
		return TREX_COL_TEXT;
	/* the transposed cells hold numbers, counts included */
	return gv->types[row] == TREX_COL_COUNT ? TREX_COL_NUMBER : gv->types[row];
}

static const struct trex_table *gpu_export(struct table_view *tv, const size_t **rows, size_t *n)
{
	struct gpu_time_view *gv = (struct gpu_time_view *)tv;

	*rows = NULL;
	*n = gv->wide.nrows;
	return &gv->wide;
}

static void gpu_free(struct table_view *tv)
{
	struct gpu_time_view *gv = (struct gpu_time_view *)tv;

	trex_table_free(&gv->wide);
	free(gv->types);
}

static const struct table_view_hooks gpu_hooks = {
    .free = gpu_free,
    .cell_type = gpu_cell_type,
    .export_table = gpu_export,
};

static const struct trex_view_ops gpu_time_ops = TABLE_VIEW_OPS("gpu-time");

struct trex_view *trex_gpu_time_view_new(struct trex_ui_ctx *ctx)
{
	struct gpu_time_view *gv = table_view_new(sizeof(*gv), ctx, &gpu_time_ops, &gpu_hooks);
	struct trex_table tall;
	struct trex_error err;
	char title[96];

	if (!gv)
		return NULL;
	if (trex_gpu_time_table(ctx->idx, &gv->wide, &err) != TREX_OK) {
		trex_ui_message(ctx, "GPU time: %s", err.message);
		free(gv);
		return NULL;
	}
	if (trex_table_transpose(&gv->wide, GPU_LABEL_COLS, &tall, &gv->types, &err) != TREX_OK) {
		trex_ui_message(ctx, "GPU time: %s", err.message);
		trex_table_free(&gv->wide);
		free(gv);
		return NULL;
	}
	snprintf(title, sizeof(title), "GPU time of %zu device%s", gv->wide.nrows,
	         gv->wide.nrows == 1 ? "" : "s");
	return table_view_show(&gv->tv, &tall, title, NULL, false);
}
