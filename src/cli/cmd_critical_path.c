#include "config.h"

#include "cli.h"

#include <inttypes.h>

#include "trex/analysis/critical_path.h"
#include "trex/analysis/table.h"
#include "trex/analysis/trace_critical_path.h"
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

/* JSON of a trace's path: {"path": [...], "summary": [...]}. */
static enum trex_status write_trace_json(const struct trex_table *t, const struct trex_table *sum,
                                         FILE *out, struct trex_error *err)
{
	enum trex_status st;

	fputs("{\"path\": ", out);
	st = trex_table_write(out, t, TREX_FMT_JSON, err);
	if (st == TREX_OK) {
		fputs(",\n\"summary\": ", out);
		st = trex_table_write(out, sum, TREX_FMT_JSON, err);
	}
	if (st == TREX_OK)
		fputs("}\n", out);
	return st;
}

/* The critical path of a trace without an execution graph, one per rank:
 * text, the path then its shares; CSV, the path; JSON, both. */
static enum trex_status trace_path(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                                   struct trex_error *err)
{
	struct trex_table t, sum;
	enum trex_status st = trex_trace_critical_path_table(m->idx, &t, &sum, err);

	if (st != TREX_OK)
		return st;
	if (o->format == TREX_FMT_JSON) {
		st = write_trace_json(&t, &sum, out, err);
	} else {
		st = trex_table_write(out, &t, o->format, err);
		if (st == TREX_OK && o->format == TREX_FMT_TEXT) {
			fputs("\nShare of the critical path:\n", out);
			st = trex_table_write(out, &sum, TREX_FMT_TEXT, err);
		}
	}
	trex_table_free(&t);
	trex_table_free(&sum);
	return st;
}

/* `trex critical-path`: the nodes of an execution graph's schedule that
 * bound its makespan, first first; for a trace without a graph, the
 * chain of CPU work, launches, device work and syncs that bound each
 * rank's end (analysis/trace_critical_path.h). */
enum trex_status cmd_critical_path(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                                   struct trex_error *err)
{
	const struct trex_schedule *s;
	struct trex_table t;
	enum trex_status st;

	if (!trex_index_graph(m->idx))
		return trace_path(o, m, out, err);
	st = trex_critical_path_table(m->idx, &t, &s, err);

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
