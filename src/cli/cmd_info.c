#include "config.h"

#include "cli.h"

#include <inttypes.h>
#include <string.h>

#include "trex/analysis/graph_info.h"
#include "trex/analysis/summary.h"
#include "trex/analysis/table.h"
#include "trex/core/schedule.h"
#include "trex/export/table_write.h"

struct section {
	const char *title; /* text */
	const char *key;   /* JSON */
	const struct trex_table *table;
};

static size_t sections(const struct trex_summary *s, struct section *out)
{
	const struct section all[] = {
	    {"Files", "files", &s->files},
	    {"Events by phase", "phases", &s->phases},
	    {"Categories", "categories", &s->categories},
	    {"Tracks", "tracks", &s->tracks},
	    {"Integrity", "integrity", &s->integrity},
	    {"Problems (first per file)", "problems", &s->problems},
	    {"Integrity examples (first damaged spots, first of each check)", "examples",
	     &s->examples},
	};
	size_t n = sizeof(all) / sizeof(all[0]);

	for (size_t i = 0; i < n; i++)
		out[i] = all[i];
	return n;
}

/* Execution graphs: their times are a schedule's, not measured. */
static void text_schedule(const struct trex_index *idx, FILE *out)
{
	const struct trex_graph *g = idx ? trex_index_graph(idx) : NULL;
	const struct trex_schedule *sc = g ? trex_graph_schedule(g) : NULL;
	char line[256];

	if (!sc)
		return;
	trex_schedule_describe(sc, line, sizeof(line));
	fprintf(out, "Schedule: %s; critical path %u %s (trex critical-path)\n\n", line,
	        sc->critical_count, trex_plural(sc->critical_count, "node", "nodes"));
}

static void text_totals(const struct trex_summary *s, FILE *out)
{
	char span[64];

	trex_format_duration((double)(s->end_ns - s->start_ns), span, sizeof(span));
	fprintf(out, "Time span: %s (from %" PRId64 " ns to %" PRId64 " ns)\n", span, s->start_ns,
	        s->end_ns);
	fprintf(out, "Events: %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s\n\n",
	        s->slices, trex_plural(s->slices, "slice", "slices"), s->instants,
	        trex_plural(s->instants, "instant", "instants"), s->samples,
	        trex_plural(s->samples, "counter sample", "counter samples"), s->flows,
	        trex_plural(s->flows, "flow", "flows"));
}

/* One line per example: "rank R  CHECK (COUNT): EXAMPLE"; the JSON has
 * every field apart. */
static void text_examples(const struct trex_table *t, FILE *out)
{
	for (size_t r = 0; r < t->nrows; r++)
		fprintf(out, "rank %" PRId64 "  %s (%" PRId64 "): %s\n",
		        trex_table_cell(t, r, 0)->count, trex_table_cell(t, r, 1)->text,
		        trex_table_cell(t, r, 2)->count, trex_table_cell(t, r, 3)->text);
}

static enum trex_status write_text(const struct trex_summary *s, const struct trex_index *idx,
                                   FILE *out, struct trex_error *err)
{
	struct section sec[8];
	size_t n = sections(s, sec);

	for (size_t i = 0; i < n; i++) {
		enum trex_status st = TREX_OK;

		if (sec[i].table->nrows == 0 &&
		    (sec[i].table == &s->problems || sec[i].table == &s->examples))
			continue;
		fprintf(out, "%s\n", sec[i].title);
		if (sec[i].table == &s->examples)
			text_examples(sec[i].table, out);
		else if (sec[i].table == &s->tracks)
			st = trex_table_write(out, &s->tracks_text, TREX_FMT_TEXT, err);
		else
			st = trex_table_write(out, sec[i].table, TREX_FMT_TEXT, err);
		if (st != TREX_OK)
			return st;
		fputc('\n', out);
		if (i == 0)
			text_totals(s, out);
		if (i == 0)
			text_schedule(idx, out);
	}
	return TREX_OK;
}

/* One object: the totals, then each table in the table_write JSON shape. */
static void json_schedule(const struct trex_index *idx, FILE *out)
{
	const struct trex_graph *g = idx ? trex_index_graph(idx) : NULL;
	const struct trex_schedule *sc = g ? trex_graph_schedule(g) : NULL;

	if (!sc)
		return;
	fprintf(
	    out,
	    ",\n\"schedule\": {\"estimated_from_dependencies\": true, \"bandwidth_gbps\": %g, "
	    "\"latency_ns\": %" PRId64 ", \"estimated_comm_nodes\": %u, \"makespan_ns\": %" PRId64
	    ", \"critical_path_nodes\": %u}",
	    sc->bandwidth_gbps, sc->latency_ns, sc->estimated, sc->makespan, sc->critical_count);
}

static enum trex_status write_json(const struct trex_summary *s, const struct trex_index *idx,
                                   FILE *out, struct trex_error *err)
{
	struct section sec[8];
	size_t n = sections(s, sec);

	fprintf(out,
	        "{\"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"span_ns\": %" PRId64
	        ", \"slices\": %" PRIu64 ", \"instants\": %" PRIu64 ", \"samples\": %" PRIu64
	        ", \"flows\": %" PRIu64,
	        s->start_ns, s->end_ns, s->end_ns - s->start_ns, s->slices, s->instants, s->samples,
	        s->flows);
	json_schedule(idx, out);
	for (size_t i = 0; i < n; i++) {
		enum trex_status st;

		fprintf(out, ",\n\"%s\": ", sec[i].key);
		st = trex_table_write(out, sec[i].table, TREX_FMT_JSON, err);
		if (st != TREX_OK)
			return st;
	}
	return TREX_OK; /* the caller closes the object */
}

/* ---- an execution graph ------------------------------------------------------------------ */

static void text_graph_totals(const struct trex_graph_info *g, FILE *out)
{
	char span[64];

	fprintf(out,
	        "Graph: %" PRIu64 " %s, %" PRIu64 " %s (%" PRIu64 " data, %" PRIu64
	        " control), %" PRIu64 " collectives and transfers matched across ranks\n",
	        g->nodes, trex_plural(g->nodes, "node", "nodes"), g->edges,
	        trex_plural(g->edges, "dependency", "dependencies"), g->data_edges, g->ctrl_edges,
	        g->matches);
	if (g->makespan_ns < 0)
		return;
	trex_format_duration((double)g->makespan_ns, span, sizeof(span));
	/* the bandwidth, latency and estimates are on the Schedule line above */
	fprintf(out, "Makespan: %s (%" PRId64 " ns), %" PRIu32 " %s on the critical path\n\n", span,
	        g->makespan_ns, g->critical_nodes, trex_plural(g->critical_nodes, "node", "nodes"));
}

static enum trex_status write_graph_text(const struct trex_graph_info *g, FILE *out,
                                         struct trex_error *err)
{
	enum trex_status st;

	fputs("Execution graph (nodes per rank by type)\n", out);
	if ((st = trex_table_write(out, &g->ranks, TREX_FMT_TEXT, err)) != TREX_OK)
		return st;
	fputc('\n', out);
	text_graph_totals(g, out);
	if (g->comm.nrows) {
		fputs("Communication (bytes by collective type)\n", out);
		if ((st = trex_table_write(out, &g->comm, TREX_FMT_TEXT, err)) != TREX_OK)
			return st;
		fputc('\n', out);
	}
	fputs("Graph problems\n", out);
	if (!g->problems.nrows) {
		fputs("none: no dangling dependency, duplicate id, cycle or unmatched "
		      "communication\n\n",
		      out);
		return TREX_OK;
	}
	st = trex_table_write(out, &g->problems, TREX_FMT_TEXT, err);
	fputc('\n', out);
	return st;
}

static enum trex_status write_graph_json(const struct trex_graph_info *g, FILE *out,
                                         struct trex_error *err)
{
	const struct trex_table *tables[] = {&g->ranks, &g->comm, &g->problems};
	const char *keys[] = {"ranks", "comm", "problems"};

	fprintf(out,
	        ",\n\"graph\": {\"nodes\": %" PRIu64 ", \"dependencies\": %" PRIu64
	        ", \"data_dependencies\": %" PRIu64 ", \"control_dependencies\": %" PRIu64
	        ", \"matched\": %" PRIu64 ", \"dangling\": %" PRIu64 ", \"duplicate_ids\": %" PRIu64
	        ", \"cycle_cuts\": %" PRIu64 ", \"unmatched\": %" PRIu64
	        ", \"makespan_ns\": %" PRId64 ", \"critical_nodes\": %" PRIu32
	        ", \"estimated\": %" PRIu32 ", \"bandwidth_gbps\": %g, \"latency_ns\": %" PRId64,
	        g->nodes, g->edges, g->data_edges, g->ctrl_edges, g->matches, g->dangling,
	        g->duplicates, g->cycle_cuts, g->unmatched, g->makespan_ns, g->critical_nodes,
	        g->estimated, g->bandwidth_gbps, g->latency_ns);
	for (size_t i = 0; i < 3; i++) {
		enum trex_status st;
		fprintf(out, ",\n\"%s\": ", keys[i]);
		if ((st = trex_table_write(out, tables[i], TREX_FMT_JSON, err)) != TREX_OK)
			return st;
	}
	fputs("}", out);
	return TREX_OK;
}

/* The graph report, with the schedule the loader drew. */
static enum trex_status graph_info(const struct trex_index *idx, struct trex_graph_info *g,
                                   struct trex_error *err)
{
	const struct trex_graph *graph = trex_index_graph(idx);

	return trex_graph_info_compute(idx, graph ? trex_graph_schedule(graph) : NULL, g, err);
}

enum trex_status cli_info_write_set(const struct cli_opts *o, const struct trex_summary *s,
                                    FILE *out, struct trex_error *err)
{
	enum trex_status st;

	if (o->format != TREX_FMT_JSON)
		return write_text(s, NULL, out, err);
	st = write_json(s, NULL, out, err);
	fputs("}\n", out);
	return st;
}

/* `trex info`: what was loaded and how sound it is. */
enum trex_status cmd_info(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                          struct trex_error *err)
{
	const struct trex_index *idx = m->idx;
	struct trex_summary s;
	enum trex_status st = trex_summary_compute(idx, &s, err);

	if (st != TREX_OK)
		return st;
	struct trex_graph_info g;
	bool json = o->command == CLI_CMD_INFO && o->format == TREX_FMT_JSON;

	if (st == TREX_OK)
		st = graph_info(idx, &g, err);
	else
		memset(&g, 0, sizeof(g));
	if (st == TREX_OK && json) {
		st = write_json(&s, idx, out, err);
		if (st == TREX_OK && g.has_graph)
			st = write_graph_json(&g, out, err);
		fputs("}\n", out);
	} else if (st == TREX_OK) {
		st = write_text(&s, idx, out, err);
		if (st == TREX_OK && g.has_graph)
			st = write_graph_text(&g, out, err);
	}
	trex_graph_info_free(&g);
	trex_summary_free(&s);
	return st;
}
