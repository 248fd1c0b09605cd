#include "config.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trex/analysis/categories.h"
#include "trex/load/classify.h"
#include "trex/analysis/graph_info.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/labels.h"
#include "trex/core/display.h"
#include "trex/analysis/table_order.h"
#include "trex/core/grow.h"
#include "trex/core/metrics.h"
#include "trex/load/chakra_set.h"
#include "trex/load/loader.h"
#include "trex/load/metrics_load.h"
#include "trex/load/source.h"
#include "trex/demo/synthetic.h"
#include "trex/ui/timespec.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_THREADS 4096
#define LONG_ONLY 256 /* getopt values of options without a short name */
#define PROGRESS_INTERVAL_NS 100000000LL
#define TOP_MAX 1000000000ULL /* --top: more rows than any table has */

/* ---- option table ------------------------------------------------------------------ */

struct option_desc {
	const char *name;
	int short_name;
	const char *arg;
	uint32_t where; /* CLI_IN(...) of the commands it applies to */
	const char *help;
};

static const struct option_desc option_descs[] = {
#define CLI_OPTION_DESC(id, name, short_name, arg, where, help)                                    \
	{name, short_name, arg, where, help},
    CLI_OPTION_INFO(CLI_OPTION_DESC)
#undef CLI_OPTION_DESC
};

static const struct {
	const char *name, *summary;
	cli_command_fn *fn;
} command_descs[] = {
#define CLI_COMMAND_DESC(id, name, fn, summary) {name, summary, fn},
    CLI_COMMAND_INFO(CLI_COMMAND_DESC)
#undef CLI_COMMAND_DESC
};

cli_command_fn *cli_command_function(enum cli_command c)
{
	if (c == CLI_CMD_DEFAULT || (size_t)c > ARRAY_LEN(command_descs))
		return NULL;
	return command_descs[c - 1].fn;
}

static int option_val(size_t id)
{
	return option_descs[id].short_name ? option_descs[id].short_name : LONG_ONLY + (int)id;
}

/* getopt_long's tables, derived from option_descs. */
static void getopt_tables(struct option *longs, char *shorts)
{
	*shorts++ = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < CLI_OPT_COUNT; i++) {
		longs[i] = (struct option){option_descs[i].name,
		                           option_descs[i].arg ? required_argument : no_argument,
		                           NULL, option_val(i)};
		if (option_descs[i].short_name) {
			*shorts++ = (char)option_descs[i].short_name;
			if (option_descs[i].arg)
				*shorts++ = ':';
		}
	}
	longs[CLI_OPT_COUNT] = (struct option){NULL, 0, NULL, 0};
	*shorts = '\0';
}

_Static_assert(CLI_OPT_COUNT <= 64, "cli_opts.given has a bit per option");
_Static_assert(ARRAY_LEN(command_descs) < 32, "option_descs' where has a bit per command");

static bool option_applies(enum cli_option id, enum cli_command c)
{
	return option_descs[id].where & (1u << c);
}

static void print_option(FILE *out, const struct option_desc *d)
{
	char spec[48];
	int n = d->short_name ? snprintf(spec, sizeof(spec), "-%c, ", d->short_name)
	                      : snprintf(spec, sizeof(spec), "    ");

	snprintf(spec + n, sizeof(spec) - (size_t)n, "--%s%s%s", d->name, d->arg ? "=" : "",
	         d->arg ? d->arg : "");
	fprintf(out, "  %-20s %s\n", spec, d->help);
}

/* One command's usage, summary and own options, then the common ones. */
static void print_command_help(FILE *out, enum cli_command c)
{
	fprintf(out, "Usage: trex %s [OPTION]... FILE...\n%s.\n\nOptions of %s:\n",
	        command_descs[c - 1].name, command_descs[c - 1].summary, command_descs[c - 1].name);
	for (size_t i = 0; i < CLI_OPT_COUNT; i++) {
		if (option_descs[i].where != CLI_ANYWHERE && option_applies((enum cli_option)i, c))
			print_option(out, &option_descs[i]);
	}
	fputs("\nOptions of every command:\n", out);
	for (size_t i = 0; i < CLI_OPT_COUNT; i++) {
		if (option_descs[i].where == CLI_ANYWHERE)
			print_option(out, &option_descs[i]);
	}
	fputs("\nExit status: 0 ok, 1 usage error, 2 unreadable or invalid input (or output),\n"
	      "130 interrupted.\n",
	      out);
}

void cli_print_help(FILE *out, enum cli_command c)
{
	if (c != CLI_CMD_DEFAULT && (size_t)c <= ARRAY_LEN(command_descs)) {
		print_command_help(out, c);
		return;
	}
	fputs("Usage: trex [OPTION]... [FILE]...\n", out);
	for (size_t i = 0; i < ARRAY_LEN(command_descs); i++)
		fprintf(out, "       trex %s [OPTION]... FILE...\n", command_descs[i].name);
	fputs("Answers \"where did the time go?\" for GPU/accelerator traces: PyTorch profiler\n"
	      "(Kineto), unitrace and acelyzer Chrome-trace JSON, plain or gzip.\n\nCommands:\n",
	      out);
	for (size_t i = 0; i < ARRAY_LEN(command_descs); i++)
		fprintf(out, "  %-10s %s\n", command_descs[i].name, command_descs[i].summary);
	fputs("  (none)     info, then kernels; without FILE, the demo trace\n\n"
	      "Options ('trex COMMAND --help' lists a command's own):\n",
	      out);
	for (size_t i = 0; i < CLI_OPT_COUNT; i++)
		print_option(out, &option_descs[i]);
	fputs("\nFILE may be a comma-separated list or a quoted glob pattern; several files\n"
	      "merge into one trace, one rank per file. Times are exact nanoseconds.\n\n"
	      "Exit status: 0 ok, 1 usage error, 2 unreadable or invalid input (or output),\n"
	      "130 interrupted.\n",
	      out);
}

/* ---- parsing ------------------------------------------------------------------------- */

struct parse_state {
	bool format_set, threads_set;
	bool format_from_path; /* -o FILE's extension chose the format */
};

#define usage(err, ...) trex_error_set(err, TREX_USAGE, NULL, -1, __VA_ARGS__)

static enum trex_status parse_threads(const char *s, const char *what, unsigned *out,
                                      struct trex_error *err)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (!*s || *s < '0' || *s > '9' || *end || errno || n > MAX_THREADS)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "%s: expected a number of threads (0-%d), not '%s'", what,
		                      MAX_THREADS, s);
	*out = (unsigned)n;
	return TREX_OK;
}

/* --core-freq: a clock in MHz, 1 to 100000. */
static enum trex_status parse_core_freq(const char *s, unsigned *out, struct trex_error *err)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (!*s || *s < '0' || *s > '9' || *end || errno || n < 1 || n > 100000)
		return usage(err, "--core-freq: expected a clock in MHz (1-100000), not '%s'", s);
	*out = (unsigned)n;
	return TREX_OK;
}

/* --bandwidth GBPS (a positive number) and --latency NS (a time, ns without a unit). */
static enum trex_status parse_schedule_value(struct cli_opts *o, enum cli_option id,
                                             const char *arg, struct trex_error *err)
{
	char *end;
	bool relative;
	double v;

	if (id == CLI_OPT_LATENCY) {
		if (!trex_timespec_parse(arg, &o->latency_ns, &relative) || relative ||
		    o->latency_ns < 0)
			return usage(
			    err, "--latency: expected a time like 500 (ns) or 2us, not '%s'", arg);
		return TREX_OK;
	}
	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v > 0) || v > 1e9)
		return usage(
		    err, "--bandwidth: expected GB/s per rank (a number above 0), not '%s'", arg);
	o->bandwidth_gbps = v;
	return TREX_OK;
}

/* What the metrics options need of each other (where each applies is
 * check_where's). */
static enum trex_status check_metrics_options(const struct cli_opts *o, struct trex_error *err)
{
	bool metrics = o->command == CLI_CMD_METRICS;

	if (o->summary && !o->nmetric_args)
		return usage(err, "--summary needs --metric NAME (which metrics to sum up)");
	if (metrics && !o->nmetric_args && o->format == TREX_FMT_CSV)
		return usage(err, "metrics: without --metric the report is several tables: text or "
		                  "json (--metric NAME makes one table, for csv)");
	return TREX_OK;
}

/* What the stalls and metrics options need of each other. */
static enum trex_status check_view_options(const struct cli_opts *o, struct trex_error *err)
{
	if (cli_check_stalls_options(o, err) != TREX_OK)
		return err->status;
	return check_metrics_options(o, err);
}

static enum trex_status check_classify_options(const struct cli_opts *o, struct trex_error *err)
{
	if (o->core_mhz && !o->compiler_log)
		return usage(err, "--core-freq needs --compiler-log");
	if (o->compiler_log && (o->schema || o->explain || o->unitrace_json))
		return usage(err,
		             "--compiler-log makes its own table: not with --schema, --explain "
		             "or --format unitrace-json");
	return TREX_OK;
}

static enum trex_status apply_ui_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                       struct trex_error *err)
{
	switch (id) {
	case CLI_OPT_KEYS:
		o->keys = arg;
		return TREX_OK;
	case CLI_OPT_THEME:
		o->theme = arg;
		return TREX_OK;
	case CLI_OPT_COLOR:
		if (!trex_color_mode_parse(arg, &o->color))
			return usage(err, "--color: expected auto, always or never, not '%s'", arg);
		return TREX_OK;
	case CLI_OPT_SCRIPT:
		o->script = arg;
		return TREX_OK;
	case CLI_OPT_DUMP_SCREEN:
		o->dump_screen = arg;
		return TREX_OK;
	default:
		return TREX_OK;
	}
}

/* A regex option's argument, checked when parsed: a bad pattern fails
 * before a long load. */
enum trex_status cli_check_pattern(const char *option, const char *arg, struct trex_error *err)
{
	struct trex_regex *re;
	char why[TREX_ERROR_MSG_MAX];

	if (trex_regex_compile(arg, &re, err) != TREX_OK) {
		snprintf(why, sizeof(why), "%s", err->message);
		return usage(err, "%s '%s': %s", option, arg, why);
	}
	trex_regex_free(re);
	return TREX_OK;
}

/* The options of metrics. */
static enum trex_status apply_metrics_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                            struct trex_error *err)
{
	switch (id) {
	case CLI_OPT_METRIC:
		if (o->nmetric_args == CLI_METRIC_ARGS_MAX)
			return usage(err, "--metric: at most %d times (NAME,NAME,... lists more)",
			             CLI_METRIC_ARGS_MAX);
		o->metric_args[o->nmetric_args++] = arg;
		return TREX_OK;
	case CLI_OPT_KERNEL:
		o->kernel = arg;
		return cli_check_pattern("--kernel", arg, err);
	default:
		return apply_ui_value(o, id, arg, err);
	}
}

/* The options of gaps, steps, ops and api. */
static enum trex_status apply_view_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                         struct trex_error *err)
{
	bool relative, handled;
	enum trex_status st;
	char *end;
	unsigned long long n;

	switch (id) {
	case CLI_OPT_STEP:
		o->step = arg;
		return cli_check_pattern("--step", arg, err);
	case CLI_OPT_MIN:
		st = cli_apply_diff_value(o, id, arg, &handled, err);
		if (handled)
			return st;
		if (!trex_timespec_parse(arg, &o->min_ns, &relative) || relative)
			return usage(err,
			             "--min: expected a time like 50us or 1500 (ns), or for diff a "
			             "percentage like 5%%, not '%s'",
			             arg);
		return TREX_OK;
	case CLI_OPT_TOP:
		errno = 0;
		n = strtoull(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end || errno || n == 0 || n > TOP_MAX)
			return usage(err, "--top: expected a number of rows (1 or more), not '%s'",
			             arg);
		o->top = (size_t)n;
		return TREX_OK;
	case CLI_OPT_RANK:
		errno = 0;
		n = strtoull(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end || errno || n > INT32_MAX)
			return usage(err, "--rank: expected a rank (0 or more), not '%s'", arg);
		o->rank = (int64_t)n;
		return TREX_OK;
	default:
		st = cli_apply_export_value(o, id, arg, &handled, err);
		if (handled)
			return st;
		st = cli_apply_align_value(o, id, arg, &handled, err);
		if (handled)
			return st;
		st = cli_apply_stalls_value(o, id, arg, &handled, err);
		if (handled)
			return st;
		st = cli_apply_diff_value(o, id, arg, &handled, err);
		return handled ? st : apply_metrics_value(o, id, arg, err);
	}
}

/* The largest NPU count a text workload is converted for: every NPU is a
 * copy of the whole graph. */
#define NPUS_MAX 65536

static enum trex_status parse_npus(const char *arg, uint32_t *out, struct trex_error *err)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end || errno || n < 1 || n > NPUS_MAX)
		return usage(err, "--npus: expected a number of NPUs (1-%d), not '%s'", NPUS_MAX,
		             arg);
	*out = (uint32_t)n;
	return TREX_OK;
}

static enum trex_status parse_npu_frequency(const char *arg, double *out, struct trex_error *err)
{
	char *end;
	double ghz;

	errno = 0;
	ghz = strtod(arg, &end);
	if (end == arg || *end || errno || !(ghz >= 0.000001) || ghz > 1000000)
		return usage(err,
		             "--npu-frequency: expected the NPU clock in GHz (0.000001-1000000, "
		             "e.g. 1.5), not '%s'",
		             arg);
	*out = ghz;
	return TREX_OK;
}

static enum trex_status apply_value(struct cli_opts *o, struct parse_state *ps, enum cli_option id,
                                    const char *arg, struct trex_error *err)
{
	switch (id) {
	case CLI_OPT_FORMAT:
		ps->format_set = true;
		o->unitrace_json = strcmp(arg, "unitrace-json") == 0;
		if (o->unitrace_json)
			o->format = TREX_FMT_JSON;
		else if (!trex_table_format_parse(arg, &o->format))
			return usage(err, "--format: expected text, csv or json, not '%s'", arg);
		return TREX_OK;
	case CLI_OPT_SCHEMA:
		o->schema = arg;
		return TREX_OK;
	case CLI_OPT_COMPILER_LOG:
		o->compiler_log = arg;
		return TREX_OK;
	case CLI_OPT_CORE_FREQ:
		return parse_core_freq(arg, &o->core_mhz, err);
	case CLI_OPT_BY: /* checked once the command is known (check_by) */
		o->by = arg;
		return TREX_OK;
	case CLI_OPT_OUTPUT:
		o->output = arg;
		return TREX_OK;
	case CLI_OPT_INPUT_FORMAT:
		o->input_format = arg;
		if (!trex_format_named(arg)) {
			char names[256];

			trex_format_names(names, sizeof(names));
			return usage(err, "--input-format: no format '%s' (formats: %s)", arg,
			             names);
		}
		return TREX_OK;
	case CLI_OPT_THREADS:
		ps->threads_set = true;
		return parse_threads(arg, "--threads", &o->threads, err);
	case CLI_OPT_BANDWIDTH:
	case CLI_OPT_LATENCY:
		return parse_schedule_value(o, id, arg, err);
	case CLI_OPT_NPUS:
		return parse_npus(arg, &o->npus, err);
	case CLI_OPT_NPU_FREQUENCY:
		return parse_npu_frequency(arg, &o->npu_frequency_ghz, err);
	default:
		return apply_view_value(o, id, arg, err);
	}
}

static enum trex_status apply_option(struct cli_opts *o, struct parse_state *ps, enum cli_option id,
                                     const char *arg, struct trex_error *err)
{
	switch (id) {
	case CLI_OPT_FORCE:
		o->force = true;
		break;
	case CLI_OPT_MEMORY:
		o->memory = true;
		break;
	case CLI_OPT_PER_RANK:
		o->per_rank = true;
		break;
	case CLI_OPT_EXPLAIN:
		o->explain = true;
		break;
	case CLI_OPT_SUMMARY:
		o->summary = true;
		break;
	case CLI_OPT_STRICT:
		o->strict = true;
		break;
	case CLI_OPT_NO_CACHE:
		o->no_cache = true;
		break;
	case CLI_OPT_REBUILD_CACHE:
		o->rebuild_cache = true;
		break;
	case CLI_OPT_QUIET:
		o->quiet = true;
		break;
	case CLI_OPT_DEMO:
		o->demo = true;
		break;
	case CLI_OPT_ASCII:
		o->ascii = true;
		break;
	case CLI_OPT_NO_MOUSE:
		o->no_mouse = true;
		break;
	case CLI_OPT_HELP:
		o->help = true;
		break;
	case CLI_OPT_VERSION:
		o->version = true;
		break;
	default:
		return apply_value(o, ps, id, arg, err);
	}
	return TREX_OK;
}

static enum trex_status bad_option(int c, int argc, char **argv, struct trex_error *err)
{
	const char *arg = optind - 1 < argc ? argv[optind - 1] : "";
	char shortopt[3] = {'-', (char)optopt, '\0'};

	/* For an unknown short option in a cluster (-qx), name just the letter. */
	if (c == '?' && optopt && strcmp(arg, shortopt) != 0 && strncmp(arg, "--", 2) != 0)
		arg = shortopt;
	if (c == ':')
		return usage(err, "option '%s' needs an argument", arg);
	return usage(err, "unknown option '%s'", arg);
}

static enum trex_status parse_options(int argc, char **argv, struct cli_opts *o,
                                      struct parse_state *ps, struct trex_error *err)
{
	struct option longs[CLI_OPT_COUNT + 1];
	char shorts[2 * CLI_OPT_COUNT + 2];
	int c;

	getopt_tables(longs, shorts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		size_t id = 0;
		enum trex_status st;

		while (id < CLI_OPT_COUNT && option_val(id) != c)
			id++;
		if (id == CLI_OPT_COUNT)
			return bad_option(c, argc, argv, err);
		o->given |= 1ull << id;
		st = apply_option(o, ps, (enum cli_option)id, optarg, err);
		if (st != TREX_OK)
			return st;
	}
	return TREX_OK;
}

/* The first operand names the command when it is one. */
static void take_command(struct cli_opts *o)
{
	if (o->input_count == 0)
		return;
	for (size_t i = 0; i < ARRAY_LEN(command_descs); i++) {
		if (strcmp(o->inputs[0], command_descs[i].name) == 0) {
			o->command = (enum cli_command)(i + 1);
			o->inputs++;
			o->input_count--;
			return;
		}
	}
}

/* Without --format, -o FILE writes what its extension asks for (".csv"
 * CSV, ".json" JSON, else text), as the interface's export does. */
static void format_from_path(struct cli_opts *o, struct parse_state *ps)
{
	if (ps->format_set || !o->output || strcmp(o->output, "-") == 0)
		return;
	o->format = trex_table_format_for_path(o->output);
	ps->format_from_path = o->format != TREX_FMT_TEXT;
}

/* "'trex a', 'trex b' and the interface": where an option applies. */
static void where_text(uint32_t where, char *buf, size_t size)
{
	size_t n = 0, count = 0, done = 0;
	bool ui = where & (1u << CLI_CMD_DEFAULT);

	for (size_t i = 0; i < ARRAY_LEN(command_descs); i++)
		count += (where >> (i + 1)) & 1u;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(command_descs) && n < size; i++) {
		if (!((where >> (i + 1)) & 1u))
			continue;
		done++;
		n += (size_t)snprintf(buf + n, size - n, "%s'trex %s'",
		                      done == 1              ? ""
		                      : done == count && !ui ? " and "
		                                             : ", ",
		                      command_descs[i].name);
	}
	if (ui && n < size)
		snprintf(buf + n, size - n, "%sthe interface", count ? " and " : "");
}

/* Every option given belongs to the command's own set (option_descs' where). */
static enum trex_status check_where(const struct cli_opts *o, struct trex_error *err)
{
	char where[1024];

	for (size_t i = 0; i < CLI_OPT_COUNT; i++) {
		if (!(o->given & (1ull << i)) || option_applies((enum cli_option)i, o->command))
			continue;
		if (option_descs[i].where == CLI_UI)
			return usage(err, "--%s is for the interactive interface (no command)",
			             option_descs[i].name);
		where_text(option_descs[i].where, where, sizeof(where));
		return usage(err, "--%s applies to %s only", option_descs[i].name, where);
	}
	return TREX_OK;
}

/* --by: diff's comparisons are diff's to check; for kernels, a grouping. */
static enum trex_status check_by(struct cli_opts *o, struct trex_error *err)
{
	if (!o->by || o->command == CLI_CMD_DIFF || trex_kernel_group_parse(o->by, &o->group))
		return TREX_OK;
	return usage(err, "--by: expected name, shape, op, stream, device or rank, not '%s'",
	             o->by);
}

static enum trex_status check_combination(const struct cli_opts *o, const struct parse_state *ps,
                                          struct trex_error *err)
{
	if (check_where(o, err) != TREX_OK)
		return TREX_USAGE;
	if (o->min_pct > 0 && o->command != CLI_CMD_DIFF && o->command != CLI_CMD_DEFAULT)
		return usage(err,
		             "--min PCT%% applies to 'trex diff' and the diff view only (gaps: "
		             "--min TIME)");
	if (o->command == CLI_CMD_INFO && o->format == TREX_FMT_CSV)
		return ps->format_from_path
		           ? usage(err,
		                   "info: -o %s asks for csv, but info is text or json "
		                   "(--format text|json, or another file name)",
		                   o->output)
		           : usage(err, "info: --format is text or json (csv is for 'kernels')");
	if (o->command == CLI_CMD_DEFAULT && ps->format_from_path)
		return usage(
		    err, "-o %s asks for %s, which needs a command: 'trex info' or 'trex kernels'",
		    o->output, o->format == TREX_FMT_CSV ? "csv" : "json");
	if (o->command == CLI_CMD_DEFAULT && ps->format_set && o->format != TREX_FMT_TEXT)
		return usage(err,
		             "--format csv|json needs a command: 'trex info' or 'trex kernels'");
	if (o->unitrace_json && o->command != CLI_CMD_CATEGORIES)
		return usage(err, "--format unitrace-json applies to 'trex categories' only");
	if (o->per_rank && o->group != TREX_KERNELS_BY_NAME && o->group != TREX_KERNELS_BY_OP)
		return usage(err, "--per-rank needs --by name or --by op");
	if (check_classify_options(o, err) != TREX_OK)
		return TREX_USAGE;
	if (check_view_options(o, err) != TREX_OK)
		return TREX_USAGE;
	if (o->demo && o->input_count)
		return usage(err, "--demo takes no FILE arguments");
	if (o->command == CLI_CMD_DIFF && o->demo)
		return usage(err, "diff compares two runs, A and B, not the demo trace");
	if (o->command == CLI_CMD_DIFF && o->input_count != 2)
		return usage(err,
		             "diff: expected two runs, A and B (each a file, an index file, "
		             "FILE,FILE... or a quoted glob), got %zu argument%s",
		             o->input_count, o->input_count == 1 ? "" : "s");
	if (o->command != CLI_CMD_DEFAULT && !o->demo && !o->input_count)
		return usage(err, "no input: give FILE... or --demo");
	return TREX_OK;
}

enum trex_status cli_parse(int argc, char **argv, struct cli_opts *o, struct trex_error *err)
{
	struct parse_state ps = {false, false, false};
	const char *env = getenv("TREX_THREADS");
	enum trex_status st;

	memset(o, 0, sizeof(*o));
	o->command = CLI_CMD_DEFAULT;
	o->format = TREX_FMT_TEXT;
	o->group = TREX_KERNELS_BY_NAME;
	o->rank = -1;
	o->align_on = TREX_ALIGN_COLLECTIVES;
	st = parse_options(argc, argv, o, &ps, err);
	if (st != TREX_OK)
		return st;
	o->inputs = argv + optind;
	o->input_count = (size_t)(argc - optind);
	take_command(o);
	if (o->command == CLI_CMD_STRAGGLERS && !(o->given & (1ull << CLI_OPT_ALIGN)))
		o->align = TREX_ALIGN_COLLECTIVES;
	if (o->help || o->version)
		return TREX_OK;
	format_from_path(o, &ps);
	if (!ps.threads_set && env && *env) {
		st = parse_threads(env, "TREX_THREADS", &o->threads, err);
		if (st != TREX_OK)
			return st;
	}
	if (o->command == CLI_CMD_DEFAULT && !o->input_count)
		o->demo = true;
	if (check_where(o, err) != TREX_OK || check_by(o, err) != TREX_OK)
		return TREX_USAGE;
	return check_combination(o, &ps, err);
}

/* ---- input expansion ---------------------------------------------------------------- */

static enum trex_status paths_add(struct cli_paths *p, const char *s, size_t len,
                                  struct trex_error *err)
{
	char **v = trex_grow(p->v, &p->cap, p->n + 1, sizeof(*v), 8);

	if (!v)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	p->v = v;
	if (!(p->v[p->n] = strndup(s, len)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	p->n++;
	return TREX_OK;
}

enum trex_status cli_paths_push(struct cli_paths *p, const char *path, struct trex_error *err)
{
	return paths_add(p, path, strlen(path), err);
}

void cli_paths_free(struct cli_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool cli_is_index_file(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && strcmp(path + n - 5, ".trex") == 0;
}

static bool paths_has(const struct cli_paths *p, const char *path, size_t len)
{
	for (size_t i = 0; i < p->n; i++)
		if (strlen(p->v[i]) == len && strncmp(p->v[i], path, len) == 0)
			return true;
	return false;
}

/* An index file named as an input (a shell glob took TRACE.trex along)
 * stands for its trace: dropped when the trace is an input too, else
 * replaced by it, so `trex a.json.trex` opens a.json through its index. */
static enum trex_status index_inputs_to_traces(struct cli_paths *p, struct trex_error *err)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->n; i++) {
		char *path = p->v[i];
		size_t len = strlen(path) - 5;

		if (cli_is_index_file(path) && paths_has(p, path, len)) {
			free(path);
			continue;
		}
		if (cli_is_index_file(path)) {
			char *trace = strndup(path, len);

			if (!trace)
				return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
			if (exists(trace)) {
				free(path);
				path = trace;
			} else {
				free(trace);
			}
		}
		p->v[kept++] = path;
	}
	p->n = kept;
	return TREX_OK;
}

static enum trex_status expand_glob(const char *pattern, struct cli_paths *out,
                                    struct trex_error *err)
{
	glob_t g;
	int rc = glob(pattern, 0, NULL, &g);
	enum trex_status st = TREX_OK;

	if (rc == GLOB_NOMATCH)
		return trex_error_set(err, TREX_IO, pattern, -1, "no file matches this pattern");
	if (rc != 0) {
		globfree(&g);
		return trex_error_set(err, rc == GLOB_NOSPACE ? TREX_NOMEM : TREX_IO, pattern, -1,
		                      "cannot expand the pattern");
	}
	for (size_t i = 0; i < g.gl_pathc && st == TREX_OK; i++)
		if (!cli_is_index_file(g.gl_pathv[i])) /* TRACE.trex beside each trace */
			st = paths_add(out, g.gl_pathv[i], strlen(g.gl_pathv[i]), err);
	globfree(&g);
	return st;
}

/* One list element: an existing file, a glob pattern, or a plain path
 * (which the loader then reports if it cannot be read). */
static enum trex_status expand_one(const char *s, struct cli_paths *out, struct trex_error *err)
{
	if (!exists(s) && strpbrk(s, "*?["))
		return expand_glob(s, out, err);
	return paths_add(out, s, strlen(s), err);
}

static enum trex_status expand_list(const char *arg, struct cli_paths *out, struct trex_error *err)
{
	enum trex_status st = TREX_OK;
	const char *p = arg;

	while (st == TREX_OK && *p) {
		size_t len = strcspn(p, ",");
		char *piece = strndup(p, len);

		if (!piece)
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		if (len)
			st = expand_one(piece, out, err);
		free(piece);
		p += len + (p[len] == ',');
	}
	return st;
}

enum trex_status cli_expand_inputs(char *const *args, size_t count, struct cli_paths *out,
                                   struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < count && st == TREX_OK; i++) {
		size_t before = out->n;

		if (exists(args[i]))
			st = paths_add(out, args[i], strlen(args[i]), err);
		else
			st = expand_list(args[i], out, err);
		if (st == TREX_OK && out->n == before)
			st = trex_error_set(err, TREX_USAGE, NULL, -1, "empty file name in '%s'",
			                    args[i]);
	}
	if (st == TREX_OK)
		st = index_inputs_to_traces(out, err);
	if (st != TREX_OK)
		cli_paths_free(out);
	return st;
}

/* ---- progress and Ctrl-C --------------------------------------------------------------- */

/* The one piece of process-wide state: a signal handler can only reach
 * a static. */
static volatile sig_atomic_t load_cancelled;

static void on_sigint(int sig)
{
	(void)sig;
	load_cancelled = 1;
}

const volatile sig_atomic_t *cli_interrupt_begin(struct sigaction *old)
{
	struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESETHAND};

	load_cancelled = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
	return &load_cancelled;
}

void cli_interrupt_end(const struct sigaction *old)
{
	sigaction(SIGINT, old, NULL);
}

struct progress {
	struct timespec start;
	int64_t last_ns;
	bool shown;
};

static int64_t elapsed_ns(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - since->tv_sec) * 1000000000LL +
	       (now.tv_nsec - since->tv_nsec);
}

/* Called serialized from the loading threads; redraws the line in place.
 * On-disk progress where the loader reports it, else decoded bytes (the
 * same thing for plain files); the rate is decoded bytes parsed. */
static void on_progress(const struct trex_load_progress *p, void *user)
{
	struct progress *pr = user;
	int64_t ns = elapsed_ns(&pr->start);
	uint64_t done = p->disk_done ? p->disk_done : p->bytes_done;
	double mb = 1e6, secs = (double)ns / 1e9;

	if (pr->shown && ns - pr->last_ns < PROGRESS_INTERVAL_NS)
		return;
	pr->last_ns = ns;
	pr->shown = true;
	if (done <= p->bytes_total)
		fprintf(stderr, "\rtrex: loading %.1f/%.1f MB", (double)done / mb,
		        (double)p->bytes_total / mb);
	else
		fprintf(stderr, "\rtrex: loading %.1f MB", (double)done / mb);
	fprintf(stderr, ", %" PRIu64 " %s, %.1f MB/s\033[K", p->events,
	        trex_plural(p->events, "event", "events"),
	        secs > 0 ? (double)p->bytes_done / mb / secs : 0.0);
}

static void progress_clear(const struct progress *pr)
{
	if (pr->shown)
		fputs("\r\033[K", stderr);
}

/* ---- loading ---------------------------------------------------------------------------- */

static enum trex_status load_demo(const struct trex_load_opts *lo, struct trex_index **out,
                                  struct trex_error *err)
{
	struct trex_source *src;
	char *buf;
	size_t len;
	enum trex_status st = trex_synth_demo(&buf, &len, err);

	if (st != TREX_OK)
		return st;
	st = trex_source_open_memory("(demo)", buf, len, true, &src, err);
	free(buf);
	if (st != TREX_OK)
		return st;
	return trex_load_sources(&src, 1, lo, out, err);
}

/* Chakra ET sets named by a prefix, a member or a directory become their
 * files (trex/load/chakra_set.h); says what it found on stderr. */
static enum trex_status expand_chakra_sets(struct cli_paths *paths, bool quiet,
                                           struct trex_error *err)
{
	struct trex_chakra_expansion x;
	enum trex_status st = trex_chakra_expand((const char *const *)paths->v, paths->n, &x, err);

	if (st != TREX_OK)
		return st;
	for (size_t i = 0; i < x.note_count; i++)
		if (x.notes[i].warning || !quiet)
			fprintf(stderr, "trex: %s%s\n", x.notes[i].warning ? "warning: " : "",
			        x.notes[i].text);
	cli_paths_free(paths);
	paths->v = x.paths;
	paths->n = paths->cap = x.count;
	x.paths = NULL;
	x.count = 0;
	trex_chakra_expansion_free(&x);
	return TREX_OK;
}

static enum trex_status load_files(const struct cli_opts *o, const struct trex_load_opts *lo,
                                   struct trex_index **out, struct trex_metrics **metrics,
                                   struct trex_error *err)
{
	struct cli_paths paths;
	struct trex_metrics *m = NULL;
	bool dropped;
	enum trex_status st = cli_expand_inputs(o->inputs, o->input_count, &paths, err);

	if (st == TREX_OK)
		st = expand_chakra_sets(&paths, o->quiet, err);
	if (st == TREX_OK) /* after the Chakra sets, which may be directories */
		st = cli_expand_dirs(&paths, err);
	if (st != TREX_OK) {
		cli_paths_free(&paths);
		return st;
	}
	/* stall reports are read apart (cli_profile_load); what is left is
	 * traces and metrics, or nothing but reports (an empty trace then) */
	dropped = cli_drop_profile_inputs(&paths);
	st = trex_load_inputs((const char *const *)paths.v, paths.n, lo, out, &m, err);
	if (st == TREX_OK && !*out && dropped)
		st = cli_empty_index(out, err);
	cli_paths_free(&paths);
	if (st == TREX_OK && m && !metrics) { /* a caller that takes no metrics */
		st = trex_error_set(err, TREX_USAGE,
		                    trex_metrics_str(m, trex_metrics_source(m, 0)->path), -1,
		                    "metrics input: not for this command");
		trex_index_free(*out);
		*out = NULL;
	}
	if (metrics)
		*metrics = m;
	else
		trex_metrics_free(m);
	return st;
}

/* "PATH: damaged input: read N events; " and what was lost, in the words
 * of the interface's notice (trex_loss_text), with exact byte counts
 * (events read: those that parsed, the ones then dropped for their values
 * included). */
static void loss_summary(const struct trex_index *idx, uint32_t file, FILE *out)
{
	const struct trex_file *f = trex_index_file(idx, file);
	char lost[1024];

	trex_loss_text(idx, file, true, lost, sizeof(lost));
	fprintf(out, "%s: damaged input: read %" PRIu64 " %s%s%s\n", trex_index_str(idx, f->path),
	        f->events, trex_plural(f->events, "event", "events"), lost[0] ? "; " : "", lost);
}

static void loss_line(const struct trex_index *idx, uint32_t file, const struct trex_problem *p,
                      const char *what, FILE *out)
{
	char line[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 256];

	trex_problem_format(idx, file, p, line, sizeof(line));
	fprintf(out, "trex: warning: %s (%s)\n", line, what);
}

/* The warning lines of a file that lost data: the summary, the first and
 * the largest damaged spans, and the first example of every other damage
 * counter, each with its position. */
static void describe_loss(const struct trex_index *idx, uint32_t file, FILE *out)
{
	const struct trex_file *f = trex_index_file(idx, file);
	const struct trex_problem *first = trex_index_damage(idx, file, false);
	const struct trex_problem *largest = trex_index_damage(idx, file, true);
	char what[200];

	fputs("trex: warning: ", out);
	loss_summary(idx, file, out);
	if (first)
		loss_line(idx, file, first, "first damaged spot", out);
	if (largest && first && largest->offset != first->offset)
		loss_line(idx, file, largest, "largest damaged spot", out);
	for (int c = TREX_INTEG_missing_fields; c < TREX_INTEG_syntax_errors; c++) {
		enum trex_integrity_counter k = (enum trex_integrity_counter)c;
		const struct trex_problem *p = trex_index_problem(idx, file, k, 0);

		if (!p || !trex_integrity_get(&f->integrity, k))
			continue;
		snprintf(what, sizeof(what), "%s %" PRIu64 ": %s", trex_integrity_name(k),
		         trex_integrity_get(&f->integrity, k), trex_integrity_label(k));
		loss_line(idx, file, p, what, out);
	}
}

void cli_describe_losses(const struct trex_index *idx, FILE *out)
{
	for (uint32_t i = 0; i < trex_index_file_count(idx); i++)
		if (trex_file_lost_data(trex_index_file(idx, i)))
			describe_loss(idx, i, out);
}

/* Warning lines for every file that lost data; under --strict, an error
 * at the first file's first problem. */
static enum trex_status report_loss(const struct trex_index *idx, bool strict,
                                    struct trex_error *err)
{
	uint32_t first_lossy = UINT32_MAX;

	for (uint32_t i = 0; i < trex_index_file_count(idx); i++) {
		if (!trex_file_lost_data(trex_index_file(idx, i)))
			continue;
		describe_loss(idx, i, stderr);
		if (first_lossy == UINT32_MAX)
			first_lossy = i;
	}
	if (!strict || first_lossy == UINT32_MAX)
		return TREX_OK;
	*err = trex_index_file(idx, first_lossy)->first_problem;
	if (err->status == TREX_OK)
		trex_error_set(err, TREX_FORMAT,
		               trex_index_str(idx, trex_index_file(idx, first_lossy)->path), -1,
		               "input data was lost (--strict)");
	return TREX_FORMAT;
}

/* A warning line per file and kind of graph problem (dangling
 * dependencies, duplicate ids, cycles, unmatched communication). */
static void report_graph_problems(const struct trex_index *idx)
{
	char line[1024];

	for (uint32_t f = 0; trex_index_graph(idx) && f < trex_index_file_count(idx); f++)
		for (int k = 0; k < TREX_GRAPH_PROBLEM_KINDS; k++)
			if (trex_graph_problem_line(idx, f, (enum trex_graph_problem_kind)k, line,
			                            sizeof(line)))
				fprintf(stderr, "trex: warning: %s\n", line);
}

void cli_report_rank_clashes(const struct trex_index *idx)
{
	char line[2048];

	for (uint32_t i = 0; i < trex_rank_clash_count(idx); i++)
		fprintf(stderr, "trex: warning: %s\n",
		        trex_rank_clash_warning(idx, i, line, sizeof(line)));
}

enum trex_cache_mode cli_cache_mode(const struct cli_opts *o)
{
	return o->no_cache        ? TREX_CACHE_OFF
	       : o->rebuild_cache ? TREX_CACHE_REBUILD
	                          : TREX_CACHE_USE;
}

void cli_print_cache_note(const struct trex_cache_report *r)
{
	fputs("trex: ", stderr);
	trex_escape_write(stderr, r->note, strlen(r->note), TREX_ESCAPE_CONTROLS);
	fputc('\n', stderr);
}

/* o's load options: Ctrl-C through load_cancelled, no progress line (the
 * caller chooses one), index files as --no-cache and --rebuild-cache say. */
static struct trex_load_opts load_opts_of(const struct cli_opts *o,
                                          const struct trex_comm_override *by_schema,
                                          struct trex_cache_report *cache)
{
	return (struct trex_load_opts){.threads = o->threads,
	                               .strict = o->strict,
	                               .format = o->input_format,
	                               .bandwidth_gbps = o->bandwidth_gbps,
	                               .latency_ns = o->latency_ns,
	                               .npus = o->npus,
	                               .npu_frequency_ghz = o->npu_frequency_ghz,
	                               .comm_override = by_schema,
	                               .cancel = &load_cancelled,
	                               .cache = cli_cache_mode(o),
	                               .cache_report = cache};
}

static bool progress_wanted(const struct cli_opts *o)
{
	return !o->quiet && isatty(STDERR_FILENO);
}

/* What follows a load whose status is st: the index-file cache's note,
 * an interrupt, the lost data (--strict), graph problems, --align; *out
 * and *metrics freed when any of them fails. */
static enum trex_status after_load(const struct cli_opts *o, const struct trex_cache_report *cache,
                                   enum trex_status st, struct trex_index **out,
                                   struct trex_metrics **metrics, struct trex_error *err)
{
	if (!o->demo && cache->note[0])
		cli_print_cache_note(cache);
	if (st == TREX_OK && load_cancelled)
		st = trex_error_set(err, TREX_CANCELLED, NULL, -1, "interrupted");
	if (st == TREX_OK && *out)
		st = report_loss(*out, o->strict, err);
	if (st == TREX_OK && *out)
		report_graph_problems(*out);
	if (st == TREX_OK && *out)
		st = cli_align_index(o, *out, err);
	if (st == TREX_OK && metrics && *metrics)
		cli_report_metrics(*metrics);
	if (st != TREX_OK && *out) {
		trex_index_free(*out);
		*out = NULL;
	}
	if (st != TREX_OK && metrics) {
		trex_metrics_free(*metrics);
		*metrics = NULL;
	}
	return st;
}

enum trex_status cli_load(const struct cli_opts *o, const struct trex_catset *schema,
                          struct trex_index **out, struct trex_metrics **metrics,
                          struct trex_error *err)
{
	struct progress pr = {.last_ns = 0, .shown = false};
	struct trex_cache_report cache = {.hit = false};
	struct trex_comm_override by_schema = {trex_catset_comm_by_name, schema};
	struct trex_load_opts lo = load_opts_of(o, schema ? &by_schema : NULL, &cache);
	struct sigaction old;
	enum trex_status st;

	*out = NULL;
	if (metrics)
		*metrics = NULL;
	lo.progress_user = &pr;
	if (progress_wanted(o))
		lo.progress = on_progress;
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	cli_interrupt_begin(&old);
	st = o->demo ? load_demo(&lo, out, err) : load_files(o, &lo, out, metrics, err);
	cli_interrupt_end(&old);
	progress_clear(&pr);
	return after_load(o, &cache, st, out, metrics, err);
}

/* ---- two runs at once (trex diff) ------------------------------------------------------------ */

unsigned cli_threads(const struct cli_opts *o)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	return o->threads ? o->threads : cores > 1 ? (unsigned)cores : 1;
}

/* One progress line for both loads: each side's latest report, summed. */
struct pair_progress {
	pthread_mutex_t lock;
	struct progress pr;
	struct trex_load_progress part[2];
};

struct pair_side {
	struct cli_opts one; /* o with this side's input alone */
	struct trex_load_opts lo;
	struct trex_cache_report cache;
	struct trex_index *idx;
	struct trex_error err;
	enum trex_status st;
	struct pair_progress *pp;
	int side;
};

static void on_pair_progress(const struct trex_load_progress *p, void *user)
{
	struct pair_side *s = user;
	struct pair_progress *pp = s->pp;
	struct trex_load_progress sum;

	pthread_mutex_lock(&pp->lock);
	pp->part[s->side] = *p;
	sum = pp->part[0];
	sum.bytes_done += pp->part[1].bytes_done;
	sum.bytes_total += pp->part[1].bytes_total;
	sum.disk_done += pp->part[1].disk_done;
	sum.events += pp->part[1].events;
	sum.files_done += pp->part[1].files_done;
	sum.file_count += pp->part[1].file_count;
	on_progress(&sum, &pp->pr);
	pthread_mutex_unlock(&pp->lock);
}

static void *load_pair_side(void *arg)
{
	struct pair_side *s = arg;

	s->st = load_files(&s->one, &s->lo, &s->idx, NULL, &s->err);
	return NULL;
}

/* Both sides loaded, B in a thread of its own and each on half the
 * threads (as trex index shares them among files), unless there is one
 * thread (-j 1, or one core) or no thread could start: then B only after
 * A loaded, as before, on all of them. */
static void load_both(const struct cli_opts *o, struct pair_side s[2])
{
	unsigned jobs = cli_threads(o);
	pthread_t b;
	bool threaded;

	s[0].lo.threads = s[1].lo.threads = jobs / 2 ? jobs / 2 : 1;
	threaded = jobs > 1 && pthread_create(&b, NULL, load_pair_side, &s[1]) == 0;
	if (!threaded)
		s[0].lo.threads = s[1].lo.threads = o->threads;
	load_pair_side(&s[0]);
	if (threaded)
		pthread_join(b, NULL);
	else if (s[0].st == TREX_OK)
		load_pair_side(&s[1]);
}

enum trex_status cli_load_pair(const struct cli_opts *o, const struct trex_catset *schema,
                               struct trex_index *out[2], struct trex_error *err)
{
	struct trex_comm_override by_schema = {trex_catset_comm_by_name, schema};
	struct pair_progress pp = {.pr = {.last_ns = 0, .shown = false}};
	struct pair_side s[2];
	struct sigaction old;
	enum trex_status st = TREX_OK;

	for (int i = 0; i < 2; i++) {
		s[i] = (struct pair_side){.one = *o, .st = TREX_OK, .pp = &pp, .side = i};
		s[i].one.inputs = o->inputs + i;
		s[i].one.input_count = 1;
		s[i].lo = load_opts_of(o, schema ? &by_schema : NULL, &s[i].cache);
		s[i].lo.progress_user = &s[i];
		if (progress_wanted(o))
			s[i].lo.progress = on_pair_progress;
	}
	pthread_mutex_init(&pp.lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &pp.pr.start);
	cli_interrupt_begin(&old);
	load_both(o, s);
	cli_interrupt_end(&old);
	progress_clear(&pp.pr);
	pthread_mutex_destroy(&pp.lock);
	/* what follows each load, A's first, as when they loaded one by one */
	for (int i = 0; i < 2; i++) {
		if (st == TREX_OK && s[i].st != TREX_OK)
			*err = s[i].err;
		if (st == TREX_OK)
			st = after_load(&s[i].one, &s[i].cache, s[i].st, &s[i].idx, NULL, err);
		if (st == TREX_OK)
			cli_report_rank_clashes(s[i].idx);
	}
	for (int i = 0; i < 2; i++) {
		out[i] = st == TREX_OK ? s[i].idx : NULL;
		if (st != TREX_OK)
			trex_index_free(s[i].idx);
	}
	return st;
}

/* ---- output ----------------------------------------------------------------------------- */

enum trex_status cli_output_open(const struct cli_opts *o, struct cli_output *out,
                                 struct trex_error *err)
{
	out->af = NULL;
	out->stream = stdout;
	if (o->command == CLI_CMD_EXPORT) /* the exporter makes its own files */
		return cmd_export_check(o, err);
	if (!o->output || strcmp(o->output, "-") == 0)
		return TREX_OK;
	return trex_atomic_open(o->output, o->force, &out->af, &out->stream, err);
}

enum trex_status cli_output_finish(const struct cli_opts *o, struct cli_output *out,
                                   enum trex_status st, struct trex_error *err)
{
	enum trex_status st_close = cli_output_close(out, st == TREX_OK, err);

	if (st == TREX_OK)
		st = st_close;
	if (st == TREX_IO && !err->path[0])
		snprintf(err->path, sizeof(err->path), "%s",
		         o->output ? o->output : "standard output");
	return st;
}

enum trex_status cli_output_close(struct cli_output *out, bool ok, struct trex_error *err)
{
	if (out->af && !ok) {
		trex_atomic_abort(out->af);
		return TREX_OK;
	}
	if (out->af)
		return trex_atomic_commit(out->af, err);
	if ((fflush(stdout) != 0 || ferror(stdout)) && ok)
		return trex_error_set(err, TREX_IO, "standard output", -1, "write error: %s",
		                      strerror(errno));
	return TREX_OK;
}
