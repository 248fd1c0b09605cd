/* `trex diff A B`: two runs compared (analysis/diff.h). Each run is one
 * argument: a file, an index file, a comma list or a quoted glob, loaded
 * as `trex kernels` would load it (index files and the cache included). */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/diff.h"
#include "trex/analysis/table.h"
#include "trex/core/display.h"
#include "trex/load/profile_load.h"
#include "trex/export/json_write.h"
#include "trex/export/table_write.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What --by asks for; SUMMARY: the summary, then the kernels. */
enum diff_view { V_SUMMARY, V_KERNELS, V_OPS, V_CATEGORIES, V_STEPS, V_SEQUENCE };
static const char *const view_names[] = {"summary",    "kernels", "ops",
                                         "categories", "steps",   "sequence"};

enum trex_status cli_apply_diff_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                      bool *handled, struct trex_error *err)
{
	size_t len = strlen(arg);
	char *end;
	double pct;

	*handled = false;
	if (id == CLI_OPT_NORMALIZE) {
		*handled = true;
		if (trex_diff_norm_parse(arg, &o->normalize))
			return TREX_OK;
		return trex_error_set(
		    err, TREX_USAGE, NULL, -1,
		    "--normalize: expected exact, hex, template, digits, all or a "
		    "comma list of them, not '%s'",
		    arg);
	}
	if (id != CLI_OPT_MIN || !len || arg[len - 1] != '%')
		return TREX_OK;
	*handled = true;
	errno = 0;
	pct = strtod(arg, &end);
	if (end != arg + len - 1 || errno || !(pct > 0) || pct > 1e6)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "--min: expected a percentage above 0 like 5%%, not '%s'",
		                      arg);
	o->min_pct = pct;
	return TREX_OK;
}

static enum trex_status parse_view(const struct cli_opts *o, enum diff_view *v,
                                   struct trex_error *err)
{
	*v = V_SUMMARY;
	if (!o->by)
		return TREX_OK;
	for (size_t i = 1; i < ARRAY_LEN(view_names); i++) {
		if (strcmp(o->by, view_names[i]) == 0) {
			*v = (enum diff_view)i;
			return TREX_OK;
		}
	}
	return trex_error_set(err, TREX_USAGE, NULL, -1,
	                      "--by: diff compares kernels, ops, categories, steps or sequence, "
	                      "not '%s'",
	                      o->by);
}

/* ---- output ------------------------------------------------------------------------------- */

struct diff_out {
	FILE *out;
	const struct cli_opts *o;
	const struct trex_index *idx[2];
	bool first; /* JSON: no member written yet */
};

/* "A: base.json.gz" or "A: 3 files: x, y, z" */
static void side_line(FILE *out, const char *which, const struct trex_index *idx)
{
	uint32_t n = trex_index_file_count(idx);

	fprintf(out, "%s: ", which);
	if (n != 1)
		fprintf(out, "%u files: ", n);
	for (uint32_t f = 0; f < n; f++) {
		const char *p = trex_index_str(idx, trex_index_file(idx, f)->path);

		fprintf(out, "%s", f ? ", " : "");
		trex_escape_write(out, p, strlen(p), TREX_ESCAPE_TEXT);
	}
	fputc('\n', out);
}

static void json_paths(FILE *out, const char *key, const struct trex_index *idx)
{
	fprintf(out, "\"%s\": [", key);
	for (uint32_t f = 0; f < trex_index_file_count(idx); f++) {
		fputs(f ? ", " : "", out);
		trex_json_write_string(out, trex_index_str(idx, trex_index_file(idx, f)->path));
	}
	fputs("]", out);
}

/* What was compared and how names matched: lines (text) or members (JSON). */
static void header(struct diff_out *d)
{
	char rules[64];

	trex_diff_norm_text(d->o->normalize, rules, sizeof(rules));
	if (d->o->format == TREX_FMT_TEXT) {
		side_line(d->out, "A", d->idx[0]);
		side_line(d->out, "B", d->idx[1]);
		fprintf(d->out, "Names matched: %s\n", rules);
	} else if (d->o->format == TREX_FMT_JSON) {
		fputs("{", d->out);
		json_paths(d->out, "a", d->idx[0]);
		fputs(", ", d->out);
		json_paths(d->out, "b", d->idx[1]);
		fprintf(d->out, ", \"normalize\": \"%s\"", rules);
		d->first = false;
	}
}

/* The rows shown: at most --top of a comparison (limited). */
static size_t shown_rows(const struct cli_opts *o, const struct trex_table *t, bool limited)
{
	return limited && o->top && o->top < t->nrows ? o->top : t->nrows;
}

/* A note under a text table (why it has no row, what it left out), or a
 * JSON member "KEY_note". */
static void section_note(struct diff_out *d, const char *key, const char *note)
{
	if (!note || d->o->format == TREX_FMT_CSV)
		return;
	if (d->o->format == TREX_FMT_TEXT) {
		fprintf(d->out, "(%s)\n", note);
		return;
	}
	fprintf(d->out, ",\n\"%s_note\": ", key);
	trex_json_write_string(d->out, note);
}

/* One table: text with its title, JSON as member key, CSV alone. */
static enum trex_status section(struct diff_out *d, const char *key, const char *title,
                                const struct trex_table *t, bool limited, size_t hidden,
                                struct trex_error *err)
{
	size_t n = shown_rows(d->o, t, limited);
	char more[160];
	enum trex_status st;

	if (d->o->format == TREX_FMT_TEXT)
		fprintf(d->out, "\n%s\n", title);
	else if (d->o->format == TREX_FMT_JSON)
		fprintf(d->out, "%s\"%s\": ", d->first ? "{" : ",\n", key);
	d->first = false;
	st = trex_table_write_rows(d->out, t, NULL, n, d->o->format, err);
	if (st != TREX_OK)
		return st;
	if (t->nrows == 0 && d->o->format == TREX_FMT_TEXT && !t->note)
		fputs("(no rows)\n", d->out);
	section_note(d, key, t->note);
	if (n < t->nrows || hidden) {
		int k = 0;

		if (n < t->nrows)
			k = snprintf(more, sizeof(more), "%zu more rows past --top %zu",
			             t->nrows - n, d->o->top);
		if (hidden)
			snprintf(more + k, sizeof(more) - (size_t)k,
			         "%s%zu rows changed less than --min", k ? "; " : "", hidden);
		section_note(d, key, more);
	}
	return TREX_OK;
}

/* ---- the comparisons ------------------------------------------------------------------------ */

static const char *by_titles[] = {
    [TREX_DIFF_KERNELS] = "Kernels (largest change first)",
    [TREX_DIFF_OPS] = "CPU ops (largest change first)",
    [TREX_DIFF_CATEGORIES] = "Categories (largest change first)",
};
static const char *by_keys[] = {
    [TREX_DIFF_KERNELS] = "kernels",
    [TREX_DIFF_OPS] = "ops",
    [TREX_DIFF_CATEGORIES] = "categories",
};

static enum trex_status by_name(struct diff_out *d, const struct trex_diff_opts *dopts,
                                enum trex_diff_by by, struct trex_error *err)
{
	struct trex_table t;
	size_t hidden;
	enum trex_status st = trex_diff_table(d->idx[0], d->idx[1], by, dopts, &t, &hidden, err);

	if (st != TREX_OK)
		return st;
	st = section(d, by_keys[by], by_titles[by], &t, true, hidden, err);
	trex_table_free(&t);
	return st;
}

static enum trex_status summary(struct diff_out *d, const struct trex_diff_opts *dopts,
                                struct trex_error *err)
{
	struct trex_table t;
	enum trex_status st = trex_diff_summary_table(d->idx[0], d->idx[1], dopts, &t, err);

	if (st != TREX_OK)
		return st;
	if (d->o->format != TREX_FMT_CSV) /* CSV is one table: the kernels */
		st = section(d, "summary", "Summary", &t, false, 0, err);
	trex_table_free(&t);
	return st == TREX_OK ? by_name(d, dopts, TREX_DIFF_KERNELS, err) : st;
}

static enum trex_status steps(struct diff_out *d, const struct trex_diff_opts *dopts,
                              struct trex_error *err)
{
	struct trex_table t;
	size_t hidden;
	enum trex_status st = trex_diff_steps_table(d->idx[0], d->idx[1], dopts, &t, &hidden, err);

	if (st != TREX_OK)
		return st;
	st = section(d, "steps", "Steps (n-th step of each rank, A against B)", &t, true, hidden,
	             err);
	trex_table_free(&t);
	return st;
}

static enum trex_status sequence(struct diff_out *d, const struct trex_diff_opts *dopts,
                                 struct trex_error *err)
{
	struct trex_table t, streams;
	enum trex_status st =
	    trex_diff_sequence_table(d->idx[0], d->idx[1], dopts, &t, &streams, err);

	if (st != TREX_OK)
		return st;
	if (d->o->format != TREX_FMT_CSV) /* CSV is one table: the runs */
		st = section(d, "streams", "Streams (kernels in launch order, aligned)", &streams,
		             false, 0, err);
	if (st == TREX_OK)
		st = section(d, "sequence", "Removed, added and changed kernels, in launch order",
		             &t, true, 0, err);
	trex_table_free(&t);
	trex_table_free(&streams);
	return st;
}

static enum trex_status report(struct diff_out *d, enum diff_view v,
                               const struct trex_catset *schema, struct trex_error *err)
{
	struct trex_diff_opts dopts = {.normalize = d->o->normalize,
	                               .min_change_ns = d->o->min_ns,
	                               .min_change_pct = d->o->min_pct,
	                               .step_pattern = d->o->step,
	                               .catset = schema,
	                               .threads = cli_threads(d->o)};
	enum trex_status st;

	header(d);
	switch (v) {
	case V_KERNELS:
	case V_OPS:
	case V_CATEGORIES:
		st = by_name(d, &dopts, (enum trex_diff_by)(v - V_KERNELS), err);
		break;
	case V_STEPS:
		st = steps(d, &dopts, err);
		break;
	case V_SEQUENCE:
		st = sequence(d, &dopts, err);
		break;
	case V_SUMMARY:
	default:
		st = summary(d, &dopts, err);
		break;
	}
	if (st == TREX_OK && d->o->format == TREX_FMT_JSON)
		fputs("}\n", d->out);
	return st;
}

/* `trex diff A B`: the options checked and the output opened before the
 * two loads, then the report; m is NULL (main.c loads nothing for it). */
enum trex_status cmd_diff(const struct cli_opts *o, const struct cli_model *m, FILE *stream,
                          struct trex_error *err)
{
	struct trex_index *idx[2] = {NULL, NULL};
	struct trex_catset *schema = NULL;
	struct cli_output out;
	enum diff_view v;
	enum trex_status st;

	(void)m;
	(void)stream;
	st = parse_view(o, &v, err); /* two runs: checked with the options (cli_parse) */
	if (st == TREX_OK && o->step)
		st = cli_check_pattern("--step", o->step, err);
	if (st == TREX_OK)
		st = cmd_categories_schema(o, &schema, err);
	if (st != TREX_OK || (st = cli_output_open(o, &out, err)) != TREX_OK) {
		trex_catset_free(schema);
		return st;
	}
	st = cli_load_pair(o, schema, idx, err);
	if (st == TREX_OK) {
		struct diff_out d = {out.stream, o, {idx[0], idx[1]}, true};

		st = report(&d, v, schema, err);
	}
	st = cli_output_finish(o, &out, st, err);
	trex_index_free(idx[0]);
	trex_index_free(idx[1]);
	trex_catset_free(schema);
	return st;
}
