#include "config.h"

#include "trex/analysis/graph_nodes.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/display.h"
#include "trex/core/graph.h"
#include "trex/core/schedule.h"

/* ---- one node's schedule ------------------------------------------------------------------ */

/* When and how long node runs: its slice's, which is the schedule's (the
 * timeline shows the schedule), from the index's start; -1 when shown
 * nowhere. */
static void node_times(const struct trex_index *idx, const struct trex_graph_node *n,
                       int64_t *start, int64_t *dur)
{
	const struct trex_slice *s;

	*start = *dur = -1;
	if (n->slice == TREX_GRAPH_NONE || n->slice >= trex_index_slice_count(idx))
		return;
	s = trex_index_slice(idx, n->slice);
	*start = s->ts - trex_index_start(idx);
	*dur = s->dur;
}

static int64_t node_slack(const struct trex_schedule *s, uint32_t node)
{
	return s && node < s->node_count ? s->slack[node] : -1;
}

static uint8_t node_sched_flags(const struct trex_schedule *s, uint32_t node)
{
	return s && node < s->node_count ? s->flags[node] : 0;
}

static uint32_t ordering_degree(const struct trex_graph *g, uint32_t node, bool incoming)
{
	uint32_t n, count = 0;
	const uint32_t *e = trex_graph_edges_of(g, node, incoming, &n);

	for (uint32_t i = 0; i < n; i++) {
		const struct trex_graph_edge *d = trex_graph_edge(g, e[i]);

		count += (d->flags & TREX_DEP_ORDERS) && !(d->flags & TREX_DEP_BROKEN);
	}
	return count;
}

static const char *collective_text(const struct trex_graph_node *n)
{
	return n->type == TREX_NODE_COMM_COLL
	           ? trex_collective_label((enum trex_collective)n->collective)
	           : "";
}

/* ---- the nodes table ---------------------------------------------------------------------- */

static const struct trex_column node_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"id", "Id", TREX_COL_COUNT, false},
    {"name", "Name", TREX_COL_TEXT, false},
    {"type", "Type", TREX_COL_TEXT, false},
    {"collective", "Collective", TREX_COL_TEXT, false},
    {"bytes", "Bytes", TREX_COL_COUNT, true},
    {"start_ns", "Start", TREX_COL_DURATION, false},
    {"dur_ns", "Duration", TREX_COL_DURATION, true},
    {"slack_ns", "Slack", TREX_COL_DURATION, true},
    {"parents", "Parents", TREX_COL_COUNT, true},
    {"children", "Children", TREX_COL_COUNT, true},
    {"critical", "Critical", TREX_COL_TEXT, false},
};
enum {
	NC_RANK,
	NC_ID,
	NC_NAME,
	NC_TYPE,
	NC_COLL,
	NC_BYTES,
	NC_START,
	NC_DUR,
	NC_SLACK,
	NC_PARENTS,
	NC_CHILDREN,
	NC_CRITICAL,
	NC_COUNT
};

struct node_order {
	int64_t start;
	uint32_t rank;
	uint64_t id;
	uint32_t node;
};

static int node_order_cmp(const void *a, const void *b)
{
	const struct node_order *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static const char *critical_text(uint8_t flags)
{
	bool crit = flags & TREX_SCHED_CRITICAL, est = flags & TREX_SCHED_ESTIMATED;

	return crit && est ? "yes est" : crit ? "yes" : est ? "est" : "";
}

static bool node_row(struct trex_table *t, const struct trex_index *idx, const struct trex_graph *g,
                     const struct trex_schedule *s, uint32_t node)
{
	const struct trex_graph_node *n = trex_graph_node(g, node);
	union trex_cell *c = trex_table_add_row(t);
	const char *name = trex_graph_str(g, n->name);
	int64_t start, dur, slack = node_slack(s, node);

	if (!c)
		return false;
	node_times(idx, n, &start, &dur);
	c[NC_RANK].count = n->rank;
	c[NC_ID].count = (int64_t)n->id;
	c[NC_NAME].text = trex_table_strdup(t, name ? name : "", name ? strlen(name) : 0);
	c[NC_TYPE].text = trex_node_type_label((enum trex_node_type)n->type);
	c[NC_COLL].text = collective_text(n);
	c[NC_BYTES].count = n->comm_bytes > 0 ? n->comm_bytes : 0;
	c[NC_START].number = (double)start;
	c[NC_DUR].number = (double)dur;
	c[NC_SLACK].number = (double)slack;
	c[NC_PARENTS].count = ordering_degree(g, node, true);
	c[NC_CHILDREN].count = ordering_degree(g, node, false);
	c[NC_CRITICAL].text = critical_text(node_sched_flags(s, node));
	return c[NC_NAME].text != NULL;
}

static enum trex_status no_graph(struct trex_error *err)
{
	return trex_error_set(err, TREX_FORMAT, NULL, -1, "%s", TREX_NODES_NO_GRAPH);
}

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* The nodes the options keep, in table order; *n of them. */
static struct node_order *ordered_nodes(const struct trex_index *idx, const struct trex_graph *g,
                                        const struct trex_nodes_opts *o, size_t *n)
{
	uint32_t count = trex_graph_node_count(g);
	struct node_order *v = malloc((count ? count : 1) * sizeof(*v));
	int64_t dur;

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < count; i++) {
		const struct trex_graph_node *nd = trex_graph_node(g, i);

		if (o && o->rank >= 0 && (int64_t)nd->rank != o->rank)
			continue;
		v[*n] = (struct node_order){0, nd->rank, nd->id, i};
		node_times(idx, nd, &v[*n].start, &dur);
		(*n)++;
	}
	qsort(v, *n, sizeof(*v), node_order_cmp);
	return v;
}

enum trex_status trex_nodes_table(const struct trex_index *idx, const struct trex_nodes_opts *o,
                                  struct trex_table *out, uint32_t **node_of_row,
                                  struct trex_error *err)
{
	const struct trex_graph *g = trex_index_graph(idx);
	const struct trex_schedule *s = g ? trex_graph_schedule(g) : NULL;
	struct node_order *order;
	size_t n, rows;

	if (node_of_row)
		*node_of_row = NULL;
	trex_table_init(out, "nodes", node_cols, NC_COUNT);
	if (!g)
		return no_graph(err);
	if (!(order = ordered_nodes(idx, g, o, &n)))
		return nomem(err);
	rows = o && o->top && o->top < n ? o->top : n;
	if (node_of_row && !(*node_of_row = malloc((rows ? rows : 1) * sizeof(**node_of_row)))) {
		free(order);
		return nomem(err);
	}
	for (size_t r = 0; r < rows; r++) {
		if (!node_row(out, idx, g, s, order[r].node)) {
			free(order);
			trex_table_free(out);
			if (node_of_row) {
				free(*node_of_row);
				*node_of_row = NULL;
			}
			return nomem(err);
		}
		if (node_of_row)
			(*node_of_row)[r] = order[r].node;
	}
	if (!n)
		out->note = "the graph has no nodes";
	free(order);
	return TREX_OK;
}

/* ---- one node in full --------------------------------------------------------------------- */

static const struct trex_column detail_cols[] = {
    {"field", "Field", TREX_COL_TEXT, false},
    {"value", "Value", TREX_COL_TEXT, false},
};

struct detail {
	struct trex_table *t;
	uint32_t *row_node;
	size_t cap;
	bool oom;
};

static void detail_row(struct detail *d, const char *field, uint32_t leads_to, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void detail_row(struct detail *d, const char *field, uint32_t leads_to, const char *fmt, ...)
{
	char buf[1024];
	union trex_cell *c;
	va_list ap;
	int len;

	if (d->oom)
		return;
	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(buf))
		len = (int)sizeof(buf) - 1;
	if (d->t->nrows == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 32;
		uint32_t *v = realloc(d->row_node, cap * sizeof(*v));
		if (!v) {
			d->oom = true;
			return;
		}
		d->row_node = v;
		d->cap = cap;
	}
	if (!(c = trex_table_add_row(d->t))) {
		d->oom = true;
		return;
	}
	d->row_node[d->t->nrows - 1] = leads_to;
	c[0].text = trex_table_strdup(d->t, field, strlen(field));
	c[1].text = trex_table_strdup(d->t, buf, (size_t)len);
	d->oom = !c[0].text || !c[1].text;
}

static const char *dur_text(int64_t ns, char *buf, size_t size)
{
	return ns < 0 ? "-" : trex_format_duration((double)ns, buf, size);
}

static void detail_fields(struct detail *d, const struct trex_index *idx,
                          const struct trex_graph *g, uint32_t node)
{
	const struct trex_graph_node *n = trex_graph_node(g, node);
	const struct trex_schedule *s = trex_graph_schedule(g);
	const struct trex_file *f = trex_index_file(idx, n->file);
	const char *path = f ? trex_index_str(idx, f->path) : NULL;
	uint8_t flags = node_sched_flags(s, node);
	int64_t start, dur;
	char a[32], b[32];

	node_times(idx, n, &start, &dur);
	detail_row(d, "id", TREX_GRAPH_NONE, "%" PRIu64, n->id);
	detail_row(d, "name", TREX_GRAPH_NONE, "%s", trex_graph_str(g, n->name));
	detail_row(d, "type", TREX_GRAPH_NONE, "%s%s",
	           trex_node_type_label((enum trex_node_type)n->type),
	           n->flags & TREX_NODE_CPU ? " (host)" : "");
	detail_row(d, "rank", TREX_GRAPH_NONE, "%" PRIu32, n->rank);
	if (n->type == TREX_NODE_COMM_COLL)
		detail_row(d, "collective", TREX_GRAPH_NONE, "%s", collective_text(n));
	if (n->comm_bytes >= 0)
		detail_row(d, "bytes", TREX_GRAPH_NONE, "%" PRId64, n->comm_bytes);
	if (n->group)
		detail_row(d, "group", TREX_GRAPH_NONE, "%s", trex_graph_str(g, n->group));
	if (n->peer >= 0)
		detail_row(d, n->type == TREX_NODE_COMM_RECV ? "from rank" : "to rank",
		           TREX_GRAPH_NONE, "%" PRId32 " (tag %" PRId32 ")", n->peer, n->tag);
	detail_row(d, "start", TREX_GRAPH_NONE, "%s", dur_text(start, a, sizeof(a)));
	detail_row(d, "duration", TREX_GRAPH_NONE, "%s%s", dur_text(dur, b, sizeof(b)),
	           flags & TREX_SCHED_ESTIMATED       ? " (estimated)"
	           : n->dur == TREX_GRAPH_DUR_UNKNOWN ? " (none in the file)"
	                                              : "");
	if (s)
		detail_row(d, "slack", TREX_GRAPH_NONE, "%s%s",
		           dur_text(node_slack(s, node), a, sizeof(a)),
		           flags & TREX_SCHED_CRITICAL ? " (on the critical path)" : "");
	/* the position first: a long path is what a narrow screen cuts */
	detail_row(d, "record", TREX_GRAPH_NONE, "%" PRIu32 " at byte %" PRId64 " of %s", n->record,
	           n->offset, path ? path : "?");
}

static void detail_attrs(struct detail *d, const struct trex_index *idx,
                         const struct trex_graph_node *n)
{
	struct trex_args args = {0};
	struct trex_error err;

	if (n->attrs == TREX_ARGS_NONE)
		return;
	if (trex_index_args(idx, n->file, n->attrs, &args, NULL, &err) != TREX_OK) {
		detail_row(d, "attributes", TREX_GRAPH_NONE, "cannot be read: %s", err.message);
		return;
	}
	for (size_t i = 0; i < args.n; i++)
		detail_row(d, args.v[i].key, TREX_GRAPH_NONE, "%s", args.v[i].value);
	trex_args_free(&args);
}

static void detail_edges(struct detail *d, const struct trex_graph *g, uint32_t node, bool incoming)
{
	uint32_t n;
	const uint32_t *e = trex_graph_edges_of(g, node, incoming, &n);

	for (uint32_t i = 0; i < n; i++) {
		const struct trex_graph_edge *x = trex_graph_edge(g, e[i]);
		uint32_t other = incoming ? x->from : x->to;
		const struct trex_graph_node *o = trex_graph_node(g, other);
		const char *how = x->flags & TREX_DEP_BROKEN      ? ", cut: a cycle"
		                  : !(x->flags & TREX_DEP_ORDERS) ? ", does not order"
		                  : x->kind == TREX_DEP_CTRL      ? ", control"
		                                                  : "";

		detail_row(d, incoming ? "waits for" : "needed by", other, "%" PRIu64 " %s (%s%s)",
		           o->id, trex_graph_str(g, o->name),
		           trex_node_type_label((enum trex_node_type)o->type), how);
	}
}

enum trex_status trex_node_detail_table(const struct trex_index *idx, uint32_t node,
                                        struct trex_table *out, uint32_t **row_node,
                                        struct trex_error *err)
{
	const struct trex_graph *g = trex_index_graph(idx);
	struct detail d = {out, NULL, 0, false};

	if (row_node)
		*row_node = NULL;
	trex_table_init(out, "node", detail_cols, 2);
	if (!g)
		return no_graph(err);
	if (node >= trex_graph_node_count(g))
		return trex_error_set(err, TREX_USAGE, NULL, -1, "no node %" PRIu32, node);
	detail_fields(&d, idx, g, node);
	detail_attrs(&d, idx, trex_graph_node(g, node));
	detail_edges(&d, g, node, true);
	detail_edges(&d, g, node, false);
	if (d.oom) {
		free(d.row_node);
		trex_table_free(out);
		return nomem(err);
	}
	if (row_node)
		*row_node = d.row_node;
	else
		free(d.row_node);
	return TREX_OK;
}
