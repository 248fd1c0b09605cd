#include "config.h"

#include "cli.h"

#include "trex/analysis/gaps.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

void cli_gaps_none(const struct cli_opts *o, FILE *out)
{
	fputs(o->min_ns ? "(no GPU gap that long)\n"
	                : "(no GPU gaps: no device has two separate pieces of GPU work)\n",
	      out);
}

/* `trex gaps`: each GPU's idle gaps, longest first, and what the CPU was
 * doing when each began. */
enum trex_status cmd_gaps(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                          struct trex_error *err)
{
	struct trex_gap_opts go = {o->min_ns, o->top};
	struct trex_table t;
	enum trex_status st = trex_gaps_table(m->idx, &go, &t, NULL, err);

	if (st != TREX_OK)
		return st;
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT && t.nrows == 0)
		cli_gaps_none(o, out);
	trex_table_free(&t);
	return st;
}
