#include "config.h"

#include "cli.h"

#include "trex/analysis/kernels.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

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
	enum trex_status st = trex_kernels_table(idx, &ko, &t, err);

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
