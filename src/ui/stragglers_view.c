/* Stragglers (trex_stragglers_tables) in a table view: per collective and
 * step, the rank that arrived last and how long the others waited,
 * largest wait first; the title names the rank that held the others up
 * most and says whether the ranks are on one clock (--align). Enter shows
 * the last arrival in the timeline. */
#include "config.h"

#include "trex/ui/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "table_view.h"
#include "trex/analysis/rank_align.h"
#include "trex/core/clock.h"
#include "trex/core/display.h"

struct stragglers_view {
	struct table_view tv;
	uint32_t *slices; /* row r: the slice of its last arrival */
};

static enum trex_handled stragglers_action(struct table_view *tv, enum trex_action a)
{
	struct stragglers_view *sv = (struct stragglers_view *)tv;
	size_t r = table_view_selected(tv);

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= tv->table.nrows) {
		trex_ui_message(tv->base.ctx, "no event selected");
		return TREX_HANDLED;
	}
	trex_ui_show_slice(tv->base.ctx, sv->slices[r]);
	return TREX_HANDLED;
}

static void stragglers_free(struct table_view *tv)
{
	free(((struct stragglers_view *)tv)->slices);
}

static const struct table_view_hooks stragglers_hooks = {.action = stragglers_action,
                                                         .free = stragglers_free};
static const struct trex_view_ops stragglers_ops = TABLE_VIEW_OPS("stragglers");

/* "rank 7 held the others up most: 35.554 ms, last at 5 of 9 (clocks aligned)" */
static void title_of(const struct trex_index *idx, const struct trex_table *ev,
                     const struct trex_table *rk, char *buf, size_t size)
{
	bool aligned = trex_index_clock_fix(idx, 0) != NULL;
	char wait[32];

	trex_format_duration(trex_table_cell(rk, 0, 4)->number, wait, sizeof(wait));
	snprintf(buf, size,
	         "rank %" PRId64 " held the others up most: %s, last at %" PRId64 " of %zu (%s)",
	         trex_table_cell(rk, 0, 0)->count, wait, trex_table_cell(rk, 0, 1)->count,
	         ev->nrows,
	         aligned ? "clocks aligned" : "times as recorded: trex --align collectives");
}

struct trex_view *trex_stragglers_view_new(struct trex_ui_ctx *ctx)
{
	struct stragglers_view *sv =
	    table_view_new(sizeof(*sv), ctx, &stragglers_ops, &stragglers_hooks);
	struct trex_table ev, rk;
	struct trex_error err;
	char title[256];

	if (!sv)
		return NULL;
	if (trex_stragglers_tables(ctx->idx, ctx->step_pattern, &ev, &rk, &sv->slices, &err) !=
	    TREX_OK) {
		trex_ui_message(ctx, "stragglers: %s", err.message);
		table_view_free(&sv->tv.base);
		return NULL;
	}
	title_of(ctx->idx, &ev, &rk, title, sizeof(title));
	trex_table_free(&rk);
	return table_view_show(&sv->tv, &ev, title, NULL, false);
}
