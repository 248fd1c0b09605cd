#include "config.h"

#include "cli.h"

#include "trex/analysis/steps.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

void cli_steps_none(const struct cli_opts *o, FILE *out)
{
	fprintf(out, "(no steps: no CPU op or annotation matches %s; try --step REGEX)\n",
	        o->step ? o->step : TREX_STEP_PATTERN);
}

/* `trex steps`: per step, its time and how the GPUs of its rank spent it. */
enum trex_status cmd_steps(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                           struct trex_error *err)
{
	struct trex_step_opts so = {o->step};
	struct trex_table t;
	enum trex_status st = trex_steps_table(m->idx, &so, &t, NULL, err);

	if (st != TREX_OK)
		return st;
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT && t.nrows == 0)
		cli_steps_none(o, out);
	trex_table_free(&t);
	return st;
}
