#include "config.h"

#include "cli.h"

#include <inttypes.h>

#include "trex/analysis/critical_path.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

/* The makespan and how the times were estimated, after the text table. */
static void text_footer(const struct trex_schedule *s, FILE *out)
{
	char span[64], how[256];

	trex_format_duration((double)s->makespan, span, sizeof(span));
	trex_schedule_describe(s, how, sizeof(how));
	fprintf(out, "Makespan: %s (%" PRId64 " ns), %u %s on the critical path; %s\n", span,
	        s->makespan, s->critical_count, trex_plural(s->critical_count, "node", "nodes"),
	        how);
}

/* JSON: the schedule's numbers around the table. */
static enum trex_status write_json(const struct trex_table *t, const struct trex_schedule *s,
                                   FILE *out, struct trex_error *err)
{
	fprintf(out,
	        "{\"makespan_ns\": %" PRId64 ", \"bandwidth_gbps\": %g, \"latency_ns\": %" PRId64
	        ", \"estimated_comm_nodes\": %u,\n\"path\": ",
	        s->makespan, s->bandwidth_gbps, s->latency_ns, s->estimated);
	enum trex_status st = trex_table_write(out, t, TREX_FMT_JSON, err);
	if (st == TREX_OK)
		fputs("}\n", out);
	return st;
}

/* `trex critical-path`: the nodes of an execution graph's schedule that
 * bound its makespan, first first. */
enum trex_status cmd_critical_path(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                                   struct trex_error *err)
{
	const struct trex_schedule *s;
	struct trex_table t;
	enum trex_status st = trex_critical_path_table(m->idx, &t, &s, err);

	if (st != TREX_OK)
		return st;
	if (o->format == TREX_FMT_JSON)
		st = write_json(&t, s, out, err);
	else
		st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		text_footer(s, out);
	trex_table_free(&t);
	return st;
}
