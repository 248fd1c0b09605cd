/* The CLI's side of metrics inputs: --metric names, warnings, linking. */
#include "config.h"

#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/metrics.h"
#include "trex/core/display.h"
#include "trex/core/metrics.h"

void cli_metric_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* Appends s[0..len) without its surrounding blanks, unless empty. */
static bool add_name(char **names, size_t *n, const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return true;
	return (names[(*n)++] = strndup(s, len)) != NULL;
}

enum trex_status cli_metric_names(const struct cli_opts *o, char ***names, size_t *n,
                                  struct trex_error *err)
{
	size_t cap = 1;

	*n = 0;
	for (size_t i = 0; i < o->nmetric_args; i++)
		for (const char *p = o->metric_args[i]; *p; p++)
			cap += *p == ',';
	*names = calloc(cap + o->nmetric_args, sizeof(**names));
	for (size_t i = 0; *names && i < o->nmetric_args; i++) {
		const char *p = o->metric_args[i];

		for (;;) {
			size_t len = strcspn(p, ",");

			if (!add_name(*names, n, p, len))
				goto nomem;
			if (!p[len])
				break;
			p += len + 1;
		}
	}
	if (*names)
		return TREX_OK;
nomem:
	cli_metric_names_free(*names, *n);
	*names = NULL;
	*n = 0;
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

void cli_report_metrics(const struct trex_metrics *m)
{
	char line[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

	for (uint32_t i = 0; i < trex_metrics_source_count(m); i++) {
		const struct trex_metrics_source *s = trex_metrics_source(m, i);

		if (!s->problems)
			continue;
		fprintf(stderr,
		        "trex: warning: %s: %" PRIu64
		        " %s reading metrics (rows skipped, values not "
		        "read); the first %" PRIu32 ":\n",
		        trex_metrics_str(m, s->path), s->problems,
		        trex_plural(s->problems, "problem", "problems"), s->kept);
		for (uint32_t k = 0; k < s->kept; k++) {
			trex_error_format(&s->problem[k], line, sizeof(line));
			fputs("trex: warning: ", stderr);
			trex_escape_write(stderr, line, strlen(line), TREX_ESCAPE_CONTROLS);
			fputc('\n', stderr);
		}
	}
}

enum trex_status cli_link_metrics(const struct cli_opts *o, const struct trex_index *idx,
                                  struct trex_metrics *m, struct trex_error *err)
{
	struct trex_metrics_match mm;
	char line[1024];
	enum trex_status st = trex_metrics_link(idx, m, &mm, err);

	if (st != TREX_OK || o->command == CLI_CMD_METRICS)
		return st;
	if (trex_metrics_unmatched(&mm) || mm.report_found < mm.report_rows)
		fprintf(stderr, "trex: warning: %s ('trex metrics' lists what did not)\n",
		        trex_metrics_match_line(&mm, line, sizeof(line)));
	return TREX_OK;
}

enum trex_status cli_metric_columns(const struct cli_opts *o, const struct trex_metrics *m,
                                    struct trex_metric_column **cols, size_t *n,
                                    struct trex_error *err)
{
	char **names;
	size_t nnames;
	enum trex_status st;

	*cols = NULL;
	*n = 0;
	if (!o->nmetric_args)
		return TREX_OK;
	if (!m)
		return trex_error_set(
		    err, TREX_USAGE, NULL, -1,
		    "--metric: no metrics among the inputs (give unitrace -q/-k "
		    "CSVs or -d reports, or a Kineto trace with cuda_profiler_range "
		    "events, with the trace)");
	st = cli_metric_names(o, &names, &nnames, err);
	if (st == TREX_OK)
		st = trex_metrics_columns(m, (const char *const *)names, nnames, cols, n, err);
	cli_metric_names_free(names, nnames);
	return st;
}
