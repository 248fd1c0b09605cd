/* The categories breakdown and the GPU-time accounting in table views.
 * GPU time is one row per device, as trex gpu-time prints it: rank and
 * device stay on the left while the twenty metrics scroll sideways, and
 * every column sorts (busy %, idle, overlap, ...). */
#include "config.h"

#include "trex/ui/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_view.h"
#include "trex/analysis/categories.h"
#include "trex/analysis/gpu_time.h"
#include "trex/analysis/kernels.h"
#include "trex/export/table_write.h"
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

/* Whether row r of a and row q of b carry the same label in every label
 * column of a (rank, device) that b has too, as the text table shows them. */
static bool same_labels(const struct trex_table *a, size_t r, const struct trex_table *b, size_t q)
{
	for (size_t c = 0; c < GPU_LABEL_COLS && c < a->ncols; c++) {
		char ta[64], tb[64];
		size_t k = b->ncols;

		for (size_t i = 0; i < b->ncols && k == b->ncols; i++)
			k = strcmp(a->cols[c].key, b->cols[i].key) == 0 ? i : k;
		if (k == b->ncols)
			return false;
		if (strcmp(trex_table_cell_text_as(&a->cols[c], trex_table_cell(a, r, c), ta,
		                                   sizeof(ta)),
		           trex_table_cell_text_as(&b->cols[k], trex_table_cell(b, q, k), tb,
		                                   sizeof(tb))) != 0)
			return false;
	}
	return true;
}

/* The earliest GPU work (kernel, copy or set) of the device of GPU-time
 * row r, found through the kernels table by device; TREX_NONE if none. */
static uint32_t first_work(struct table_view *tv, size_t r)
{
	const struct trex_index *idx = tv->base.ctx->idx;
	struct trex_kernel_opts opts = {.group = TREX_KERNELS_BY_DEVICE, .memory = true};
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_error err;
	uint32_t best = TREX_NONE;

	if (trex_kernels_table_members(idx, &opts, &t, &m, &err) != TREX_OK) {
		trex_ui_message(tv->base.ctx, "%s", err.message);
		return TREX_NONE;
	}
	for (size_t q = 0; q < t.nrows && best == TREX_NONE; q++) {
		if (!same_labels(&tv->table, r, &t, q))
			continue;
		for (size_t i = m.first[q]; i < m.first[q + 1]; i++) {
			if (best == TREX_NONE ||
			    trex_index_slice(idx, m.ids[i])->ts < trex_index_slice(idx, best)->ts)
				best = m.ids[i];
		}
	}
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	return best;
}

/* Enter on a device: the timeline, on its first work (its first stream). */
static enum trex_handled gpu_action(struct table_view *tv, enum trex_action a)
{
	size_t r = table_view_selected(tv);
	uint32_t slice;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r == (size_t)-1) {
		trex_ui_message(tv->base.ctx, "no device selected");
		return TREX_HANDLED;
	}
	slice = first_work(tv, r);
	if (slice != TREX_NONE)
		trex_ui_show_slice(tv->base.ctx, slice);
	else if (!tv->base.ctx->msg[0])
		trex_ui_message(tv->base.ctx, "no work of %s found", table_view_name(tv, r));
	return TREX_HANDLED;
}

static const struct table_view_hooks gpu_hooks = {.action = gpu_action};

static const struct trex_view_ops gpu_time_ops = TABLE_VIEW_OPS("gpu-time");

struct trex_view *trex_gpu_time_view_new(struct trex_ui_ctx *ctx)
{
	struct table_view *tv = table_view_new(sizeof(*tv), ctx, &gpu_time_ops, &gpu_hooks);
	struct trex_table t;
	struct trex_error err;
	char title[96];

	if (!tv)
		return NULL;
	if (trex_gpu_time_table(ctx->idx, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "GPU time: %s", err.message);
		table_view_free(&tv->base);
		return NULL;
	}
	tv->pinned_cols = GPU_LABEL_COLS;
	snprintf(title, sizeof(title), "GPU time of %zu device%s", t.nrows,
	         t.nrows == 1 ? "" : "s");
	return table_view_show(tv, &t, title, NULL, false);
}
