#include "config.h"

#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/metrics.h"
#include "trex/analysis/table_order.h"
#include "trex/core/metrics.h"
#include "trex/export/table_write.h"

/* `trex metrics`: without --metric, what the inputs hold (as unitrace's
 * analyzeperfmetrics -l lists it: devices, metrics, kernels and their
 * instances), how it matched the trace, and the report tables; with
 * --metric, one row per kernel instance (or with --summary per kernel and
 * metric) of the metrics asked for. */

static enum trex_status no_metrics(struct trex_error *err)
{
	return trex_error_set(err, TREX_FORMAT, NULL, -1,
	                      "no metrics among the inputs (metrics reads unitrace -q/-k metric "
	                      "CSVs, -d/-h reports, and Kineto traces with cuda_profiler_range "
	                      "events)");
}

/* Whether --metric names "all" (every metric; report columns only when
 * named). */
static bool metric_all(const struct cli_opts *o)
{
	char **names;
	size_t n;
	bool all = false;
	struct trex_error err;

	if (cli_metric_names(o, &names, &n, &err) != TREX_OK)
		return false;
	for (size_t i = 0; i < n; i++)
		all = all || strcmp(names[i], "all") == 0;
	cli_metric_names_free(names, n);
	return all;
}

/* --metric NAME... as metric ids (report columns are for the kernels table). */
static enum trex_status chosen_metrics(const struct cli_opts *o, const struct trex_metrics *m,
                                       uint32_t **ids, size_t *n, struct trex_error *err)
{
	struct trex_metric_column *cols;
	size_t ncols, k = 0;
	enum trex_status st = cli_metric_columns(o, m, &cols, &ncols, err);
	bool all = metric_all(o);

	*ids = NULL;
	*n = 0;
	if (st != TREX_OK)
		return st;
	*ids = malloc((ncols ? ncols : 1) * sizeof(**ids));
	for (size_t i = 0; *ids && i < ncols; i++) {
		if (cols[i].is_report && all)
			continue;
		if (cols[i].is_report) {
			st = trex_error_set(
			    err, TREX_USAGE, NULL, -1,
			    "--metric %s: a column of unitrace's %s report, not a metric "
			    "('trex kernels --metric \"%s\" TRACE REPORT' shows it)",
			    cols[i].title, trex_report_kind_name(cols[i].kind), cols[i].title);
			break;
		}
		(*ids)[k++] = cols[i].metric;
	}
	free(cols);
	if (!*ids && st == TREX_OK)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	*n = k;
	return st;
}

/* Writes a section: its title (text), or its key (JSON). */
struct section_out {
	FILE *out;
	enum trex_table_format fmt;
	bool first;
};

/* CSV: the table alone (one table per run). */
static enum trex_status section(struct section_out *so, const char *key, const char *title,
                                struct trex_table *t, struct trex_error *err)
{
	enum trex_status st;

	if (so->fmt == TREX_FMT_JSON)
		fprintf(so->out, "%s\"%s\": ", so->first ? "{" : ",\n", key);
	else if (so->fmt == TREX_FMT_TEXT)
		fprintf(so->out, "%s%s\n", so->first ? "" : "\n", title);
	so->first = false;
	st = trex_table_write(so->out, t, so->fmt, err);
	if (st == TREX_OK && so->fmt == TREX_FMT_TEXT)
		cli_print_note(so->out, t);
	trex_table_free(t);
	return st;
}

static void match_json(FILE *out, const struct trex_metrics_match *mm, const char *line)
{
	fprintf(out,
	        ",\n\"match\": {\"instances\": %" PRIu64 ", \"matched\": %" PRIu64
	        ", \"unmatched\": %" PRIu64,
	        mm->instances, trex_metrics_matched(mm), trex_metrics_unmatched(mm));
	for (int l = 0; l < TREX_MLINK_COUNT; l++)
		fprintf(out, ", \"%s\": %" PRIu64,
		        trex_metrics_link_name((enum trex_metrics_link)l), mm->count[l]);
	fprintf(out,
	        ", \"trace_without_metrics\": %" PRIu64 ", \"report_rows\": %" PRIu64
	        ", \"report_rows_in_trace\": %" PRIu64 ", \"line\": \"%s\"}",
	        mm->trace_without, mm->report_rows, mm->report_found, line);
}

/* How the inputs matched the trace: the line, and what did not match. */
static enum trex_status match_section(struct section_out *so, const struct cli_model *m,
                                      struct trex_error *err)
{
	struct trex_metrics_match mm;
	struct trex_table t;
	char line[1024];
	enum trex_status st;

	trex_metrics_match_count(m->idx, m->metrics, &mm);
	trex_metrics_match_line(&mm, line, sizeof(line));
	if (so->fmt == TREX_FMT_JSON)
		match_json(so->out, &mm, line);
	else
		fprintf(so->out, "\nTrace match\n%s\n", line);
	st = trex_metrics_unmatched_table(m->metrics, m->idx, &t, err);
	if (st != TREX_OK)
		return st;
	if (t.nrows || so->fmt == TREX_FMT_JSON)
		return section(so, "unmatched", "Unmatched", &t, err);
	trex_table_free(&t);
	return TREX_OK;
}

/* Every report table, each named after its source, section and title. */
static enum trex_status report_sections(struct section_out *so, const struct trex_metrics *m,
                                        struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	if (so->fmt == TREX_FMT_JSON)
		fputs(",\n\"reports\": [", so->out);
	for (uint32_t r = 0; st == TREX_OK && r < trex_metrics_report_count(m); r++) {
		const struct trex_report *rep = trex_metrics_report(m, r);
		const char *path = trex_metrics_str(m, trex_metrics_source(m, rep->source)->path);
		char title[1024];
		struct trex_table t;

		snprintf(title, sizeof(title), "%s: %s: %s", path,
		         trex_metrics_str(m, rep->section), trex_metrics_str(m, rep->title));
		st = trex_metrics_report_table(m, r, &t, err);
		if (st != TREX_OK)
			break;
		t.name = trex_table_strdup(&t, title, strlen(title));
		if (so->fmt == TREX_FMT_JSON)
			fputs(r ? ",\n" : "\n", so->out);
		else
			fprintf(so->out, "\n%s\n", title);
		st = t.name ? trex_table_write(so->out, &t, so->fmt, err)
		            : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		trex_table_free(&t);
	}
	if (so->fmt == TREX_FMT_JSON)
		fputs("]", so->out);
	return st;
}

static enum trex_status list(const struct cli_model *m, const struct trex_metrics_select *sel,
                             const struct trex_metrics_groups *g, FILE *out,
                             enum trex_table_format fmt, struct trex_error *err)
{
	static const uint32_t none[1];
	/* the kernels as -l lists them: no metric columns */
	struct trex_metrics_select kernels = {none, 0, sel->kernel, true, false};
	struct section_out so = {out, fmt, true};
	struct trex_table t;
	enum trex_status st = trex_metrics_sources_table(m->metrics, &t, err);

	if (st == TREX_OK)
		st = section(&so, "sources", "Sources", &t, err);
	if (st == TREX_OK && (st = trex_metrics_devices_table(m->metrics, &t, err)) == TREX_OK)
		st = section(&so, "devices", "Devices", &t, err);
	if (st == TREX_OK && (st = trex_metrics_list_table(m->metrics, &t, err)) == TREX_OK)
		st = section(&so, "metrics", "Metrics", &t, err);
	if (st == TREX_OK &&
	    (st = trex_metrics_kernels_table(m->metrics, m->idx, &kernels, g, &t, err)) == TREX_OK)
		st = section(&so, "kernels", "Kernels", &t, err);
	if (st == TREX_OK && m->idx)
		st = match_section(&so, m, err);
	if (st == TREX_OK && trex_metrics_report_count(m->metrics))
		st = report_sections(&so, m->metrics, err);
	if (st == TREX_OK && fmt == TREX_FMT_JSON)
		fputs("}\n", out);
	return st;
}

/* --metric: the instances, then the summary (text); one of them (CSV,
 * JSON: both). */
static enum trex_status values(const struct cli_opts *o, const struct cli_model *m,
                               const struct trex_metrics_select *sel,
                               const struct trex_metrics_groups *g, FILE *out,
                               struct trex_error *err)
{
	struct section_out so = {out, o->format, true};
	struct trex_table t;
	enum trex_status st = TREX_OK;

	if (!o->summary || o->format == TREX_FMT_JSON) {
		st = trex_metrics_instances_table(m->metrics, m->idx, sel, g, TREX_METRICS_ALL, &t,
		                                  err);
		if (st == TREX_OK)
			st = section(&so, "instances", "Instances", &t, err);
	}
	if (st == TREX_OK && (o->summary || o->format != TREX_FMT_CSV)) {
		st = trex_metrics_summary_table(m->metrics, sel, g, TREX_METRICS_ALL, &t, err);
		if (st == TREX_OK)
			st = section(&so, "summary", "Summary", &t, err);
	}
	if (st == TREX_OK && o->format == TREX_FMT_JSON)
		fputs("}\n", out);
	return st;
}

enum trex_status cmd_metrics(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                             struct trex_error *err)
{
	/* idle samples (NoKernel) when --kernel asks for them, or in the list */
	struct trex_metrics_select sel = {.idle = o->kernel != NULL || !o->nmetric_args};
	struct trex_metrics_groups g = {0};
	struct trex_regex *re = NULL;
	uint32_t *ids = NULL;
	size_t nids = 0;
	enum trex_status st;

	if (!m->metrics)
		return no_metrics(err);
	st = chosen_metrics(o, m->metrics, &ids, &nids, err);
	if (st == TREX_OK && o->kernel)
		st = trex_regex_compile(o->kernel, &re, err);
	sel.metrics = o->nmetric_args ? ids : NULL;
	sel.nmetrics = nids;
	sel.kernel = re;
	if (st == TREX_OK)
		st = trex_metrics_group(m->metrics, &sel, &g, err);
	if (st == TREX_OK && o->nmetric_args)
		st = values(o, m, &sel, &g, out, err);
	else if (st == TREX_OK)
		st = list(m, &sel, &g, out, o->format, err);
	trex_metrics_groups_free(&g);
	trex_regex_free(re);
	free(ids);
	return st;
}
