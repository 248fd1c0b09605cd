#include "config.h"

#include "trex/analysis/critical_path.h"

#include <string.h>

#include "trex/core/graph.h"

enum {
	COL_RANK,
	COL_NODE,
	COL_NAME,
	COL_TYPE,
	COL_COLLECTIVE,
	COL_BYTES,
	COL_START,
	COL_DURATION,
	COL_ESTIMATED,
	COL_CAUSE,
	COL_SLACK,
	COLS
};

static const struct trex_column columns[COLS] = {
    [COL_RANK] = {"rank", "Rank", TREX_COL_COUNT, false},
    [COL_NODE] = {"node", "Node", TREX_COL_COUNT, false},
    [COL_NAME] = {"name", "Name", TREX_COL_TEXT, false},
    [COL_TYPE] = {"type", "Type", TREX_COL_TEXT, false},
    [COL_COLLECTIVE] = {"collective", "Collective", TREX_COL_TEXT, false},
    [COL_BYTES] = {"bytes", "Bytes", TREX_COL_COUNT, true},
    [COL_START] = {"start_ns", "Start", TREX_COL_DURATION, false},
    [COL_DURATION] = {"duration_ns", "Duration", TREX_COL_DURATION, true},
    [COL_ESTIMATED] = {"estimated", "Est", TREX_COL_COUNT, false},
    [COL_CAUSE] = {"cause", "Cause", TREX_COL_TEXT, false},
    [COL_SLACK] = {"slack_ns", "Slack", TREX_COL_DURATION, true},
};

static bool critical_row(struct trex_table *t, const struct trex_graph *g,
                         const struct trex_schedule *s, uint32_t v)
{
	const struct trex_graph_node *n = trex_graph_node(g, v);
	union trex_cell *row = trex_table_add_row(t);
	if (!row)
		return false;
	const char *name = trex_graph_str(g, n->name);
	row[COL_RANK].count = n->rank;
	row[COL_NODE].count = (int64_t)n->id;
	row[COL_NAME].text = trex_table_strdup(t, name, strlen(name));
	row[COL_TYPE].text = trex_node_type_label((enum trex_node_type)n->type);
	row[COL_COLLECTIVE].text = n->type == TREX_NODE_COMM_COLL
	                               ? trex_collective_label((enum trex_collective)n->collective)
	                               : "";
	row[COL_BYTES].count = n->comm_bytes;
	row[COL_START].number = (double)s->start[v];
	row[COL_DURATION].number = (double)s->dur[v];
	row[COL_ESTIMATED].count = (s->flags[v] & TREX_SCHED_ESTIMATED) != 0;
	row[COL_CAUSE].text = trex_sched_cause_label((enum trex_sched_cause)s->cause[v]);
	row[COL_SLACK].number = (double)s->slack[v];
	return row[COL_NAME].text != NULL;
}

enum trex_status trex_critical_path_table(const struct trex_index *idx, struct trex_table *t,
                                          const struct trex_schedule **out, struct trex_error *err)
{
	const struct trex_graph *g = trex_index_graph(idx);
	const struct trex_schedule *s = g ? trex_graph_schedule(g) : NULL;
	trex_table_init(t, "critical-path", columns, COLS);
	if (out)
		*out = s;
	if (!s)
		return trex_error_set(err, TREX_FORMAT, NULL, -1,
		                      "no execution graph in the input (critical-path reads Chakra "
		                      "ET, ASTRA-sim and PyTorch execution traces)");
	for (uint32_t i = 0; i < s->critical_count; i++) {
		if (!critical_row(t, g, s, s->critical[i])) {
			trex_table_free(t);
			return trex_error_set(err, TREX_NOMEM, NULL, -1,
			                      "critical path: out of memory");
		}
	}
	return TREX_OK;
}
