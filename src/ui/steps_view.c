/* The per-step breakdown (trex_steps_table) in a table view, steps in
 * time order per rank: Enter zooms the timeline to the step (with a
 * margin), the step selected. */
#include "config.h"

#include "trex/ui/view.h"

#include <stdio.h>
#include <stdlib.h>

#include "table_view.h"
#include "trex/analysis/steps.h"

struct steps_view {
	struct table_view tv;
	uint32_t *ids; /* row r is step slice ids[r] */
};

static enum trex_handled steps_action(struct table_view *tv, enum trex_action a)
{
	struct steps_view *sv = (struct steps_view *)tv;
	size_t r = table_view_selected(tv);
	const struct trex_slice *s;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= tv->table.nrows) {
		trex_ui_message(tv->base.ctx, "no step selected");
		return TREX_HANDLED;
	}
	s = trex_index_slice(tv->base.ctx->idx, sv->ids[r]);
	trex_ui_show_range(tv->base.ctx, s->ts, s->ts + s->dur, sv->ids[r]);
	return TREX_HANDLED;
}

static void steps_free(struct table_view *tv)
{
	free(((struct steps_view *)tv)->ids);
}

static const struct table_view_hooks steps_hooks = {.action = steps_action, .free = steps_free};
static const struct trex_view_ops steps_ops = TABLE_VIEW_OPS("steps");

struct trex_view *trex_steps_view_new(struct trex_ui_ctx *ctx)
{
	struct steps_view *sv = table_view_new(sizeof(*sv), ctx, &steps_ops, &steps_hooks);
	struct trex_step_opts opts = {ctx->step_pattern};
	const char *pattern = ctx->step_pattern ? ctx->step_pattern : TREX_STEP_PATTERN;
	struct trex_table t;
	struct trex_error err;
	char title[160];

	if (!sv)
		return NULL;
	if (trex_steps_table(ctx->idx, &opts, &t, &sv->ids, &err) != TREX_OK) {
		trex_ui_message(ctx, "steps: %s", err.message);
		table_view_free(&sv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "%zu step%s (%s) on the GPUs", t.nrows,
	         t.nrows == 1 ? "" : "s", pattern);
	if (!t.nrows)
		trex_ui_message(ctx,
		                "no steps: no CPU op or annotation matches %s (trex --step REGEX)",
		                pattern);
	return table_view_show(&sv->tv, &t, title, NULL, false);
}
