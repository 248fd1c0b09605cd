#include "config.h"

#include "cli.h"

#include "trex/analysis/graph_nodes.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

/* `trex nodes`: the execution graph's nodes as the schedule runs them. */
enum trex_status cmd_nodes(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                           struct trex_error *err)
{
	struct trex_nodes_opts no = {o->rank, o->top};
	struct trex_table t;
	enum trex_status st = trex_nodes_table(m->idx, &no, &t, NULL, err);

	if (st != TREX_OK)
		return st;
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT && t.nrows == 0)
		fprintf(out, "(no nodes%s)\n", o->rank >= 0 ? " of that rank" : "");
	trex_table_free(&t);
	return st;
}
