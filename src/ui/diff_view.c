/* The kernels of this run (A) against --compare's run (B), as `trex diff
 * A B --by kernels` prints them: largest change first, new and gone rows
 * marked. The timeline stays A's: Enter shows a kernel's longest instance
 * there. */
#include "config.h"

#include "trex/ui/view.h"

#include <string.h>

#include "table_view.h"
#include "trex/analysis/diff.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

static const struct trex_view_ops diff_ops = TABLE_VIEW_OPS("diff");

/* A's longest kernel called name; TREX_NONE when A has none. */
static uint32_t longest_in_a(const struct trex_index *idx, const char *name)
{
	uint32_t id = trex_strtab_find(trex_index_strings(idx), name, strlen(name));
	uint32_t best = TREX_NONE;

	if (id == TREX_STR_ERROR)
		return TREX_NONE;
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		if (s->name == id && s->kind == TREX_KIND_KERNEL &&
		    (best == TREX_NONE || s->dur > trex_index_slice(idx, best)->dur))
			best = i;
	}
	return best;
}

/* Enter: the kernel's longest instance in A's timeline. */
static enum trex_handled diff_action(struct table_view *tv, enum trex_action a)
{
	size_t r = table_view_selected(tv);
	const char *name;
	uint32_t slice;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r == (size_t)-1 || r >= tv->table.nrows) {
		trex_ui_message(tv->base.ctx, "no row selected");
		return TREX_HANDLED;
	}
	name = trex_table_cell(&tv->table, r, tv->table.ncols - 1)->text;
	slice = longest_in_a(tv->base.ctx->idx, name);
	if (slice == TREX_NONE)
		trex_ui_message(tv->base.ctx, "only in the --compare run: not in this timeline");
	else
		trex_ui_show_slice(tv->base.ctx, slice);
	return TREX_HANDLED;
}

static const struct table_view_hooks diff_hooks = {.action = diff_action};

struct trex_view *trex_diff_view_new(struct trex_ui_ctx *ctx)
{
	struct table_view *tv;
	struct trex_table t;
	struct trex_error err;

	if (!ctx->compare) {
		trex_ui_message(ctx, "no run to compare with: open with --compare B (a trace, "
		                     "FILE,FILE... or an index file)");
		return NULL;
	}
	tv = table_view_new(sizeof(*tv), ctx, &diff_ops, &diff_hooks);
	if (!tv)
		return NULL;
	if (trex_diff_table(ctx->idx, ctx->compare, TREX_DIFF_KERNELS, NULL, &t, NULL, &err) !=
	    TREX_OK) {
		trex_ui_message(ctx, "diff: %s", err.message);
		table_view_free(&tv->base);
		return NULL;
	}
	if (t.note)
		trex_ui_message(ctx, "%s", t.note);
	return table_view_show(tv, &t, "kernels: this run (A) against --compare (B)", NULL, false);
}
