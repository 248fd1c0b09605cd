#include "config.h"

#include "cli.h"

#include <stdlib.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/metrics.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

/* The kernels table, with the metric columns --metric asks for. */
static enum trex_status kernels_table(const struct cli_opts *o, const struct cli_model *m,
                                      const struct trex_kernel_opts *ko, struct trex_table *t,
                                      struct trex_error *err)
{
	struct trex_metric_column *cols;
	struct trex_kernel_members members;
	size_t ncols;
	enum trex_status st = cli_metric_columns(o, m->metrics, &cols, &ncols, err);

	if (st != TREX_OK)
		return st;
	if (!ncols)
		return trex_kernels_table(m->idx, ko, t, err);
	st = trex_kernels_table_members(m->idx, ko, t, &members, err);
	if (st == TREX_OK) {
		st = trex_kernels_add_metrics(m->idx, m->metrics, &members, cols, ncols, t, err);
		trex_kernel_members_free(&members);
		if (st != TREX_OK)
			trex_table_free(t);
	}
	free(cols);
	return st;
}

/* `trex kernels`: the kernel summary table in the chosen format. */
enum trex_status cmd_kernels(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                             struct trex_error *err)
{
	const struct trex_index *idx = m->idx;
	/* files that claim one rank: their totals side by side, never only summed */
	struct trex_kernel_opts ko = {.group = o->group,
	                              .memory = o->memory,
	                              .per_rank = o->per_rank || trex_rank_clash_count(idx) > 0,
	                              .args = o->format != TREX_FMT_TEXT};
	struct trex_table t;
	enum trex_status st = kernels_table(o, m, &ko, &t, err);

	if (st != TREX_OK)
		return st;
	if (o->command == CLI_CMD_DEFAULT)
		fputs("GPU kernels\n", out);
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		cli_print_note(out, &t);
	trex_table_free(&t);
	return st;
}
