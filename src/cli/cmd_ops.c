#include "config.h"

#include "cli.h"

#include "trex/analysis/ops.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

void cli_cpu_summary_none(bool api, FILE *out)
{
	fputs(api ? "(no runtime API calls in the trace)\n" : "(no CPU ops in the trace)\n", out);
}

enum trex_status cmd_cpu_summary(const struct cli_opts *o, const struct cli_model *m, bool api,
                                 FILE *out, struct trex_error *err)
{
	struct trex_ops_opts oo = {api, o->top};
	struct trex_table t;
	enum trex_status st = trex_ops_table(m->idx, &oo, &t, NULL, err);

	if (st != TREX_OK)
		return st;
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT && t.nrows == 0)
		cli_cpu_summary_none(api, out);
	trex_table_free(&t);
	return st;
}

/* `trex ops`: per CPU op name, calls, total, self time and GPU time launched. */
enum trex_status cmd_ops(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                         struct trex_error *err)
{
	return cmd_cpu_summary(o, m, false, out, err);
}
