/* The nodes of an execution graph (trex_nodes_table) in a table view: Enter
 * shows a node in full (trex_node_detail_table), where Enter on a parent or
 * child walks to that node and Enter on any other row shows the node in
 * the timeline. */
#include "config.h"

#include "trex/ui/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_view.h"
#include "trex/analysis/graph_nodes.h"
#include "trex/core/graph.h"

static struct trex_view *node_view_new(struct trex_ui_ctx *ctx, uint32_t node);

/* Shows node's slice in the timeline, or says why it cannot. */
static void show_node(struct trex_ui_ctx *ctx, uint32_t node)
{
	const struct trex_graph *g = trex_index_graph(ctx->idx);
	const struct trex_graph_node *n = g ? trex_graph_node(g, node) : NULL;

	if (!n || n->slice == TREX_GRAPH_NONE)
		trex_ui_message(ctx, "this node is not on the timeline");
	else
		trex_ui_show_slice(ctx, n->slice);
}

static void open_node(struct trex_ui_ctx *ctx, uint32_t node)
{
	struct trex_view *v = node_view_new(ctx, node);

	if (v)
		trex_ui_push_view(ctx, v);
}

/* ---- one node ------------------------------------------------------------------------------ */

struct node_view {
	struct table_view tv;
	uint32_t node;
	uint32_t *row_node; /* per row: the node a parent or child row leads to */
};

static enum trex_handled node_action(struct table_view *tv, enum trex_action a)
{
	struct node_view *nv = (struct node_view *)tv;
	size_t r = table_view_selected(tv);

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r < tv->table.nrows && nv->row_node[r] != TREX_GRAPH_NONE)
		open_node(tv->base.ctx, nv->row_node[r]);
	else
		show_node(tv->base.ctx, nv->node);
	return TREX_HANDLED;
}

static void node_free(struct table_view *tv)
{
	free(((struct node_view *)tv)->row_node);
}

static const struct table_view_hooks node_hooks = {.action = node_action, .free = node_free};
static const struct trex_view_ops node_ops = TABLE_VIEW_OPS("node");

static struct trex_view *node_view_new(struct trex_ui_ctx *ctx, uint32_t node)
{
	struct node_view *nv = table_view_new(sizeof(*nv), ctx, &node_ops, &node_hooks);
	const struct trex_graph *g = trex_index_graph(ctx->idx);
	struct trex_table t;
	struct trex_error err;
	char title[256];

	if (!nv)
		return NULL;
	nv->node = node;
	if (trex_node_detail_table(ctx->idx, node, &t, &nv->row_node, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		table_view_free(&nv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "node %" PRIu64 " of rank %" PRIu32 ": %s",
	         trex_graph_node(g, node)->id, trex_graph_node(g, node)->rank,
	         trex_graph_str(g, trex_graph_node(g, node)->name));
	/* table order: fields, attributes, then parents and children */
	return table_view_show(&nv->tv, &t, title, NULL, false);
}

/* ---- every node ---------------------------------------------------------------------------- */

struct nodes_view {
	struct table_view tv;
	uint32_t *node_of_row;
};

static enum trex_handled nodes_action(struct table_view *tv, enum trex_action a)
{
	struct nodes_view *nv = (struct nodes_view *)tv;
	size_t r = table_view_selected(tv);

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= tv->table.nrows)
		trex_ui_message(tv->base.ctx, "no node selected");
	else
		open_node(tv->base.ctx, nv->node_of_row[r]);
	return TREX_HANDLED;
}

static void nodes_free(struct table_view *tv)
{
	free(((struct nodes_view *)tv)->node_of_row);
}

static const struct table_view_hooks nodes_hooks = {.action = nodes_action, .free = nodes_free};
static const struct trex_view_ops nodes_ops = TABLE_VIEW_OPS("nodes");

struct trex_view *trex_nodes_view_new(struct trex_ui_ctx *ctx)
{
	struct nodes_view *nv = table_view_new(sizeof(*nv), ctx, &nodes_ops, &nodes_hooks);
	struct trex_nodes_opts opts = {-1, 0};
	struct trex_table t;
	struct trex_error err;
	char title[96];

	if (!nv)
		return NULL;
	if (trex_nodes_table(ctx->idx, &opts, &t, &nv->node_of_row, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		table_view_free(&nv->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "execution graph: %zu node%s", t.nrows,
	         t.nrows == 1 ? "" : "s");
	/* table order is by start; a sort key would lose the row -> node map's order */
	return table_view_show(&nv->tv, &t, title, NULL, false);
}
