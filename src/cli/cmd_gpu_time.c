#include "config.h"

#include "cli.h"

#include "trex/analysis/gpu_time.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

/* `trex gpu-time`: busy, idle, compute/communication/memory time, overlap
 * and launch statistics per GPU device. */
enum trex_status cmd_gpu_time(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                              struct trex_error *err)
{
	const struct trex_index *idx = m->idx;
	struct trex_table t;
	enum trex_status st = trex_gpu_time_table(idx, &t, err);

	if (st != TREX_OK)
		return st;
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		cli_print_note(out, &t);
	trex_table_free(&t);
	return st;
}
