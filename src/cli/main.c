#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "trex/analysis/categories.h"
#include "trex/core/display.h"
#include "trex/load/deeptools_log.h"
#include "trex/core/index.h"
#include "trex/core/metrics.h"
#include "trex/core/status.h"
#include "trex/core/profile.h"
#include "trex/load/source_files.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"
#include "trex/ui/app.h"

#define EXIT_INTERRUPTED 130 /* 128 + SIGINT, as shells report it */

/* The command's function; no command prints info, then kernels. */
static enum trex_status dispatch(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                                 struct trex_error *err)
{
	cli_command_fn *fn = cli_command_function(o->command);
	enum trex_status st;

	if (fn)
		return fn(o, m, out, err);
	st = cmd_info(o, m, out, err);
	return st == TREX_OK ? cmd_kernels(o, m, out, err) : st;
}

/* No command opens the interactive interface when stdin and stdout are a
 * terminal (or a screen dump is asked for); otherwise the reports. */
static bool wants_ui(const struct cli_opts *o)
{
	if (o->command != CLI_CMD_DEFAULT || o->output)
		return false;
	return o->dump_screen || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
}

/* The title bar: "demo trace", the file's path, or the count of files
 * and their base names, "8 files: worker0.json.gz, worker1.json.gz, ..."
 * (the bar cuts what does not fit with an ellipsis). */
static void ui_title(const struct cli_opts *o, const struct trex_index *idx,
                     const struct trex_profile *profile, char *buf, size_t size)
{
	if (trex_index_file_count(idx) == 0 && profile) { /* stall reports only */
		uint32_t nr = trex_profile_report_count(profile);

		snprintf(buf, size, "%s%s",
		         trex_profile_str(profile, trex_profile_report(profile, 0)->path),
		         nr > 1 ? " and more stall reports" : "");
		return;
	}
	if (o->demo)
		snprintf(buf, size, "demo trace");
	else
		cli_files_label(idx, buf, size);
}

/* Metrics inputs without a trace: the interface opens them over an empty
 * trace, titled after them. */
static enum trex_status ui_metrics_alone(const struct trex_metrics *m, struct trex_index **idx,
                                         char *title, size_t size, struct trex_error *err)
{
	static const char empty[] = "{\"traceEvents\": []}";
	struct trex_source *src;
	enum trex_status st;

	st = trex_source_open_memory("(no trace)", empty, sizeof(empty) - 1, false, &src, err);
	if (st == TREX_OK)
		st = trex_load_sources(&src, 1, NULL, idx, err);
	if (st == TREX_OK)
		snprintf(title, size, "%s (no trace)",
		         trex_metrics_str(m, trex_metrics_source(m, 0)->path));
	return st;
}

/* --min given (a time or a percentage). */
static bool min_given(const struct cli_opts *o)
{
	return o->min_ns || o->min_pct > 0;
}

static enum trex_status run_ui(const struct cli_opts *o, struct trex_error *err)
{
	struct trex_index *idx = NULL, *compare = NULL;
	struct trex_metrics *metrics = NULL;
	char **names = NULL;
	char title[512], compare_label[512] = "";
	struct trex_catset *set = NULL;
	struct trex_ideal_log *ideal = NULL;
	struct trex_profile *profile = NULL;
	struct trex_ui_opts uo = {o->keys,
	                          o->theme,
	                          o->color,
	                          o->ascii,
	                          o->script,
	                          o->dump_screen,
	                          title,
	                          o->no_mouse,
	                          .core_mhz = o->core_mhz,
	                          .step_pattern = o->step,
	                          .diff_rules = o->normalize,
	                          .diff_min_ns = o->min_ns,
	                          .diff_min_pct = o->min_pct,
	                          .force = o->force};
	enum trex_status st = TREX_OK;

	if ((o->normalize || min_given(o)) && !cli_compare_is_run(o))
		st = trex_error_set(err, TREX_USAGE, NULL, -1,
		                    "%s in the interface is for the diff view (V) of two runs: "
		                    "give the second with --compare B",
		                    o->normalize ? "--normalize" : "--min");
	/* an existing screen dump (or a trace named by mistake) is kept
	 * without --force, and that is said before a long load */
	if (st == TREX_OK && o->dump_screen)
		st = trex_atomic_check(o->dump_screen, o->force, err);
	if (st == TREX_OK)
		st = cmd_categories_schema(o, &set, err);
	if (st == TREX_OK)
		st = cmd_categories_compiler_log(o, &ideal, err);
	if (st == TREX_OK)
		st = cli_profile_load(o, &profile, &uo.baseline, &uo.sources, err);
	uo.catset = set;
	uo.ideal = ideal;
	uo.profile = profile;
	if (st == TREX_OK)
		st = cli_load(o, set, &idx, &metrics, err);
	if (st == TREX_OK && !idx)
		st = ui_metrics_alone(metrics, &idx, title, sizeof(title), err);
	else if (st == TREX_OK)
		ui_title(o, idx, profile, title, sizeof(title));
	if (st == TREX_OK && metrics)
		st = cli_link_metrics(o, idx, metrics, err);
	if (st == TREX_OK && cli_compare_is_run(o))
		st = cli_compare_load(o, set, &compare, compare_label, sizeof(compare_label), err);
	uo.compare = compare;
	uo.compare_label = compare_label;
	uo.metrics = metrics;
	if (st == TREX_OK)
		st = cli_metric_names(o, &names, &uo.metric_count, err);
	uo.metric_names = (const char *const *)names;
	if (st == TREX_OK)
		st = trex_ui_run(idx, &uo, err);
	if (idx) {
		cli_report_rank_clashes(idx); /* the interface showed it; the screen is gone now */
		trex_index_free(idx);
	}
	trex_index_free(compare);
	cli_metric_names_free(names, uo.metric_count);
	trex_metrics_free(metrics);
	trex_catset_free(set);
	trex_ideal_log_free(ideal);
	trex_profile_free(profile);
	trex_srcfiles_free(uo.sources);
	return st;
}

/* The first option given that only the interface (or a command) uses. */
static const char *ui_only_option(const struct cli_opts *o)
{
	return o->schema         ? "--schema"
	       : o->compiler_log ? "--compiler-log"
	       : o->step         ? "--step"
	       : o->dump         ? "--dump"
	       : o->compare      ? "--compare"
	       : o->normalize    ? "--normalize"
	       : min_given(o)    ? "--min"
	       : o->nsource_path ? "--source-path"
	       : o->nsource_map  ? "--source-map"
	                         : NULL;
}

/* The schema and the output first (a bad schema or an existing file fail
 * before a long load), then load, report, and commit or abort the output. */
static enum trex_status run(const struct cli_opts *o, struct trex_error *err)
{
	struct cli_output out;
	struct trex_index *idx = NULL;
	struct trex_metrics *metrics = NULL;
	struct trex_catset *set = NULL;
	struct trex_ideal_log *ideal = NULL;
	struct trex_profile *profile = NULL;
	struct trex_srcfiles *sources = NULL;
	uint32_t baseline;
	enum trex_status st = cmd_categories_schema(o, &set, err);
	const char *ui_only = ui_only_option(o);
	bool lazy = false;

	if (st == TREX_OK && ui_only && o->command == CLI_CMD_DEFAULT)
		st = trex_error_set(err, TREX_USAGE, NULL, -1,
		                    "%s without a command is for the interactive interface "
		                    "(needs a terminal or --dump-screen)",
		                    ui_only);
	if (st == TREX_OK)
		st = cmd_categories_compiler_log(o, &ideal, err);
	if (st == TREX_OK)
		st = cli_profile_load(o, &profile, &baseline, &sources, err);
	if (st == TREX_OK)
		st = cli_output_open(o, &out, err);
	if (st != TREX_OK) {
		trex_catset_free(set);
		trex_ideal_log_free(ideal);
		trex_profile_free(profile);
		trex_srcfiles_free(sources);
		return st;
	}
	/* kernels and gpu-time of many ranks: rank by rank, the set never loaded whole */
	st = cli_ranks_report(o, out.stream, &lazy, err);
	if (st == TREX_OK && !lazy)
		st = cli_load(o, set, &idx, &metrics, err);
	if (st == TREX_OK && !lazy && !idx && o->command != CLI_CMD_METRICS)
		st = trex_error_set(err, TREX_USAGE, NULL, -1,
		                    "no trace among the inputs, only metrics ('trex metrics FILE' "
		                    "reads them alone)");
	if (st == TREX_OK && idx && metrics)
		st = cli_link_metrics(o, idx, metrics, err);
	if (st == TREX_OK && !lazy) {
		struct cli_model m = {idx, set, ideal, profile, baseline, sources, metrics};

		if (idx)
			cli_report_rank_clashes(idx);
		st = dispatch(o, &m, out.stream, err);
	}
	trex_metrics_free(metrics);
	trex_catset_free(set);
	trex_ideal_log_free(ideal);
	trex_profile_free(profile);
	trex_srcfiles_free(sources);
	st = cli_output_finish(o, &out, st, err);
	if (idx)
		trex_index_free(idx);
	return st;
}

static void print_error(const struct trex_error *err)
{
	char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

	trex_error_format(err, msg, sizeof(msg));
	/* paths and schema lines come from outside: never a raw control character */
	fputs("trex: ", stderr);
	trex_escape_write(stderr, msg, strlen(msg), TREX_ESCAPE_CONTROLS);
	fputc('\n', stderr);
	if (err->status == TREX_USAGE)
		fputs("Try 'trex --help' for more information.\n", stderr);
}

int main(int argc, char **argv)
{
	struct cli_opts o;
	struct trex_error err;
	enum trex_status st;

	trex_error_clear(&err);
	st = cli_parse(argc, argv, &o, &err);
	if (st == TREX_OK && o.help) {
		cli_print_help(stdout, o.command);
		exit(fflush(stdout) == 0 ? EXIT_SUCCESS : 2);
	}
	if (st == TREX_OK && o.version) {
		puts(PACKAGE_STRING);
		exit(fflush(stdout) == 0 ? EXIT_SUCCESS : 2);
	}
	/* index writes one index file per input: there is no one index to load */
	if (st == TREX_OK && o.command == CLI_CMD_INDEX)
		st = cmd_index(&o, NULL, stdout, &err);
	else if (st == TREX_OK && o.command == CLI_CMD_DIFF) /* two loads, one per run */
		st = cmd_diff(&o, NULL, stdout, &err);
	else if (st == TREX_OK)
		st = wants_ui(&o) ? run_ui(&o, &err) : run(&o, &err);
	if (st == TREX_OK)
		exit(EXIT_SUCCESS);
	print_error(&err);
	exit(st == TREX_CANCELLED ? EXIT_INTERRUPTED : trex_status_exit_code(st));
}
