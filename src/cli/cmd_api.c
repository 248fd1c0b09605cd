#include "config.h"

#include "cli.h"

/* `trex api`: per runtime API call name, calls and time statistics. */
enum trex_status cmd_api(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                         struct trex_error *err)
{
	return cmd_cpu_summary(o, m, true, out, err);
}
