/* The stall reports among the inputs: the stalls options, telling the
 * reports from the traces, and reading them (problems as warnings). */
#include "config.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "trex/analysis/table_order.h"
#include "trex/core/builder.h"
#include "trex/core/display.h"
#include "trex/core/profile.h"
#include "trex/load/profile_load.h"
#include "trex/load/source_files.h"

#define usage(err, ...) trex_error_set(err, TREX_USAGE, NULL, -1, __VA_ARGS__)

static enum trex_status add_to_list(const char **list, size_t *n, const char *arg,
                                    const char *option, struct trex_error *err)
{
	if (*n == CLI_LIST_MAX)
		return usage(err, "--%s: at most %d of them", option, CLI_LIST_MAX);
	list[(*n)++] = arg;
	return TREX_OK;
}

static enum trex_status check_kernel_regex(const char *arg, struct trex_error *err)
{
	struct trex_regex *re;
	char why[TREX_ERROR_MSG_MAX];

	if (trex_regex_compile(arg, &re, err) != TREX_OK) {
		snprintf(why, sizeof(why), "%s", err->message);
		return usage(err, "--kernel '%s': %s", arg, why);
	}
	trex_regex_free(re);
	return TREX_OK;
}

enum trex_status cli_apply_stalls_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                        bool *handled, struct trex_error *err)
{
	*handled = true;
	switch (id) {
	case CLI_OPT_DUMP:
		o->dump = arg;
		return TREX_OK;
	case CLI_OPT_SOURCE_PATH:
		return add_to_list(o->source_path, &o->nsource_path, arg, "source-path", err);
	case CLI_OPT_SOURCE_MAP:
		if (!trex_srcfiles_map_valid(arg))
			return usage(
			    err, "--source-map: expected OLD=NEW (two directories), not '%s'", arg);
		return add_to_list(o->source_map, &o->nsource_map, arg, "source-map", err);
	case CLI_OPT_KERNEL:
		o->kernel = arg;
		return check_kernel_regex(arg, err);
	case CLI_OPT_COMPARE:
		o->compare = arg;
		return TREX_OK;
	default:
		*handled = false;
		return TREX_OK;
	}
}

enum trex_status cli_check_stalls_options(const struct cli_opts *o, struct trex_error *err)
{
	if (o->command == CLI_CMD_STALLS && o->demo)
		return usage(err,
		             "stalls: the demo trace has no stall samples; give stall reports");
	return TREX_OK;
}

/* ---- telling reports from traces -------------------------------------------------------- */

bool cli_drop_profile_inputs(struct cli_paths *paths)
{
	size_t kept = 0, n = paths->n;

	for (size_t i = 0; i < n; i++) {
		if (trex_profile_sniff_path(paths->v[i])) {
			free(paths->v[i]);
			continue;
		}
		paths->v[kept++] = paths->v[i];
	}
	paths->n = kept;
	return kept < n;
}

enum trex_status cli_empty_index(struct trex_index **out, struct trex_error *err)
{
	struct trex_build_input in = {.threads = 1};

	return trex_index_build(&in, out, err);
}

/* ---- reading them ------------------------------------------------------------------------- */

static void print_diag(void *user, const struct trex_error *e)
{
	char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

	(void)user;
	trex_error_format(e, msg, sizeof(msg));
	fprintf(stderr, "trex: %s: ", e->status == TREX_OK ? "note" : "warning");
	trex_escape_write(stderr, msg, strlen(msg), TREX_ESCAPE_CONTROLS);
	fputc('\n', stderr);
}

/* --compare first (it is the baseline report 0), then the reports among
 * the inputs in their order. */
static enum trex_status report_paths(const struct cli_opts *o, struct cli_paths *out,
                                     struct trex_error *err)
{
	struct cli_paths all;
	enum trex_status st = cli_expand_inputs(o->inputs, o->input_count, &all, err);
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (st != TREX_OK)
		return st;
	out->v = calloc(all.n + 2, sizeof(*out->v));
	if (!out->v) {
		cli_paths_free(&all);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	if (o->compare)
		out->v[n++] = strdup(o->compare);
	for (size_t i = 0; i < all.n; i++) {
		if (trex_profile_sniff_path(all.v[i]))
			out->v[n++] = all.v[i];
		else
			free(all.v[i]);
	}
	free(all.v);
	out->n = out->cap = n;
	for (size_t i = 0; i < n; i++)
		if (!out->v[i])
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return TREX_OK;
}

/* Under --strict, a report that lost rows fails at its first problem. */
static enum trex_status check_strict(const struct trex_profile *p, struct trex_error *err)
{
	for (uint32_t r = 0; r < trex_profile_report_count(p); r++) {
		const struct trex_profile_report *rep = trex_profile_report(p, r);

		if (rep->problems) {
			*err = rep->problem[0];
			return TREX_FORMAT;
		}
	}
	return TREX_OK;
}

static enum trex_status make_sources(const struct cli_opts *o, struct trex_srcfiles **sources,
                                     struct trex_error *err)
{
	*sources =
	    trex_srcfiles_new(o->source_path, o->nsource_path, o->source_map, o->nsource_map);
	return *sources ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

enum trex_status cli_profile_load(const struct cli_opts *o, struct trex_profile **profile,
                                  uint32_t *baseline, struct trex_srcfiles **sources,
                                  struct trex_error *err)
{
	struct trex_profile_load_opts lo = {o->dump, print_diag, NULL};
	struct cli_paths paths = {NULL, 0, 0};
	enum trex_status st = TREX_OK;
	struct cli_opts no_run;

	if (cli_compare_is_run(o)) { /* a trace for the diff view, not a report */
		no_run = *o;
		no_run.compare = NULL;
		o = &no_run;
	}

	*profile = NULL;
	*sources = NULL;
	*baseline = TREX_PROFILE_NONE;
	if (o->compare && !trex_profile_sniff_path(o->compare))
		return trex_error_set(
		    err, TREX_FORMAT, o->compare, -1,
		    "--compare: expected a stall report (a unitrace --stall-sampling "
		    "CSV or an Nsight Compute source-page CSV)");
	if (!o->demo)
		st = report_paths(o, &paths, err);
	if (st == TREX_OK && paths.n)
		st = trex_profile_load_paths((const char *const *)paths.v, paths.n, &lo, profile,
		                             err);
	cli_paths_free(&paths);
	if (st == TREX_OK && *profile && o->strict)
		st = check_strict(*profile, err);
	if (st == TREX_OK && !*profile && o->command == CLI_CMD_STALLS)
		st = trex_error_set(err, TREX_FORMAT, NULL, -1,
		                    "stalls: no stall report among the inputs (expected a unitrace "
		                    "--stall-sampling CSV or an Nsight Compute source-page CSV)");
	if (st == TREX_OK && o->dump && !*profile)
		st = usage(err, "--dump: no unitrace stall report among the inputs to read it for");
	if (st == TREX_OK)
		st = make_sources(o, sources, err);
	if (st != TREX_OK) {
		trex_profile_free(*profile);
		*profile = NULL;
		return st;
	}
	*baseline = o->compare ? 0 : TREX_PROFILE_NONE;
	return TREX_OK;
}
