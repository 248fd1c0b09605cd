/* The CPU ops and runtime API summaries (trex_ops_table) in table views:
 * Enter lists a row's instances (longest first), Enter on an instance
 * shows it in the timeline. */
#include "config.h"

#include "trex/ui/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_view.h"
#include "trex/analysis/ops.h"

/* ---- instances ---------------------------------------------------------------------------- */

struct cpu_instances_view {
	struct table_view tv;
	uint32_t *ids; /* row r is slice ids[r] */
};

static enum trex_handled instances_action(struct table_view *tv, enum trex_action a)
{
	struct cpu_instances_view *iv = (struct cpu_instances_view *)tv;
	size_t r = table_view_selected(tv);

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= tv->table.nrows)
		trex_ui_message(tv->base.ctx, "no instance selected");
	else
		trex_ui_show_slice(tv->base.ctx, iv->ids[r]);
	return TREX_HANDLED;
}

static void instances_free(struct table_view *tv)
{
	free(((struct cpu_instances_view *)tv)->ids);
}

static const struct table_view_hooks instances_hooks = {.action = instances_action,
                                                        .free = instances_free};
static const struct trex_view_ops instances_ops = TABLE_VIEW_OPS("instances");

/* The instances of ids[0..n) (copied), titled after their name. */
static struct trex_view *instances_view_new(struct trex_ui_ctx *ctx, const uint32_t *ids, size_t n,
                                            const char *name)
{
	struct cpu_instances_view *iv =
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
	if (trex_ops_instances_table(ctx->idx, iv->ids, n, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		table_view_free(&iv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "%zu call%s of %s", n, n == 1 ? "" : "s", name);
	return table_view_show(&iv->tv, &t, title, "dur_ns", true);
}

/* ---- ops and api -------------------------------------------------------------------------- */

struct cpu_view {
	struct table_view tv;
	struct trex_kernel_members members;
};

static enum trex_handled cpu_action(struct table_view *tv, enum trex_action a)
{
	struct cpu_view *cv = (struct cpu_view *)tv;
	size_t r = table_view_selected(tv);
	struct trex_view *v;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= cv->members.nrows) {
		trex_ui_message(tv->base.ctx, "no row selected");
		return TREX_HANDLED;
	}
	v = instances_view_new(tv->base.ctx, cv->members.ids + cv->members.first[r],
	                       cv->members.first[r + 1] - cv->members.first[r],
	                       table_view_name(tv, r));
	if (v)
		trex_ui_push_view(tv->base.ctx, v);
	return TREX_HANDLED;
}

static void cpu_free(struct table_view *tv)
{
	trex_kernel_members_free(&((struct cpu_view *)tv)->members);
}

static const struct table_view_hooks cpu_hooks = {.action = cpu_action, .free = cpu_free};
static const struct trex_view_ops ops_ops = TABLE_VIEW_OPS("ops");
static const struct trex_view_ops api_ops = TABLE_VIEW_OPS("api");

static struct trex_view *cpu_view_new(struct trex_ui_ctx *ctx, bool api)
{
	struct cpu_view *cv =
	    table_view_new(sizeof(*cv), ctx, api ? &api_ops : &ops_ops, &cpu_hooks);
	struct trex_ops_opts opts = {api, 0};
	struct trex_table t;
	struct trex_error err;
	char title[96];

	if (!cv)
		return NULL;
	if (trex_ops_table(ctx->idx, &opts, &t, &cv->members, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		table_view_free(&cv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "%s: %zu name%s", api ? "runtime API calls" : "CPU ops",
	         t.nrows, t.nrows == 1 ? "" : "s");
	if (!t.nrows)
		trex_ui_message(ctx, api ? "no runtime API calls in the trace"
		                         : "no CPU ops (cpu_op events) in the trace");
	return table_view_show(&cv->tv, &t, title, api ? "total_ns" : "self_ns", true);
}

struct trex_view *trex_ops_view_new(struct trex_ui_ctx *ctx)
{
	return cpu_view_new(ctx, false);
}

struct trex_view *trex_api_view_new(struct trex_ui_ctx *ctx)
{
	return cpu_view_new(ctx, true);
}
