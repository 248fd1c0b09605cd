/* The GPU idle gaps (trex_gaps_table) in a table view, longest first:
 * Enter shows the gap in the timeline, zoomed to it with a margin, the
 * work that ends it selected. */
#include "config.h"

#include "trex/ui/view.h"

#include <stdio.h>

#include "table_view.h"
#include "trex/analysis/gaps.h"

/* ---- gaps --------------------------------------------------------------------------------- */

struct gaps_view {
	struct table_view tv;
	struct trex_gap_list gaps; /* row r is gaps.v[r] */
};

static enum trex_handled gaps_action(struct table_view *tv, enum trex_action a)
{
	struct gaps_view *gv = (struct gaps_view *)tv;
	size_t r = table_view_selected(tv);

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= gv->gaps.n)
		trex_ui_message(tv->base.ctx, "no gap selected");
	else
		trex_ui_show_range(tv->base.ctx, gv->gaps.v[r].start, gv->gaps.v[r].end,
		                   gv->gaps.v[r].after);
	return TREX_HANDLED;
}

static void gaps_free(struct table_view *tv)
{
	trex_gap_list_free(&((struct gaps_view *)tv)->gaps);
}

static const struct table_view_hooks gaps_hooks = {.action = gaps_action, .free = gaps_free};
static const struct trex_view_ops gaps_ops = TABLE_VIEW_OPS("gaps");

struct trex_view *trex_gaps_view_new(struct trex_ui_ctx *ctx)
{
	struct gaps_view *gv = table_view_new(sizeof(*gv), ctx, &gaps_ops, &gaps_hooks);
	struct trex_table t;
	struct trex_error err;
	char title[96];

	if (!gv)
		return NULL;
	if (trex_gaps_table(ctx->idx, NULL, &t, &gv->gaps, &err) != TREX_OK) {
		trex_ui_message(ctx, "gaps: %s", err.message);
		table_view_free(&gv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "%zu GPU idle gap%s, longest first", t.nrows,
	         t.nrows == 1 ? "" : "s");
	if (!t.nrows)
		trex_ui_message(ctx, "no GPU gaps: no device has two separate pieces of GPU work");
	return table_view_show(&gv->tv, &t, title, NULL, false);
}
