/* The command-line front end: option parsing, input expansion, loading with
 * progress and Ctrl-C, output files, and one function per command. Only
 * main.c calls exit(); everything here returns a status. */
#ifndef TREX_CLI_CLI_H
#define TREX_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trex/analysis/kernels.h"
#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/atomic_file.h"
#include "trex/export/table_write.h"
#include "trex/ui/theme.h"

/* X(ID, "name", function, "summary"): the subcommands, for the parser, the
 * dispatcher (main.c) and --help. A new command is one line here and one
 * file, src/cli/cmd_<name>.c, defining its function (cli_command_fn). */
#define CLI_COMMAND_INFO(X)                                                                        \
	X(INFO, "info", cmd_info,                                                                  \
	  "files, formats, events by phase and category, tracks, time span, "                      \
	  "integrity")                                                                             \
	X(KERNELS, "kernels", cmd_kernels,                                                         \
	  "GPU kernel summary: Time %, Total, Instances, Avg, Med, Min, "                          \
	  "Max, StdDev, P95, P99, Name")                                                           \
	X(CATEGORIES, "categories", cmd_categories,                                                \
	  "GPU time by kernel category (GEMM, attention, collectives, ...), "                      \
	  "built-in, --schema or --compiler-log (AIU)")                                            \
	X(GPU_TIME, "gpu-time", cmd_gpu_time,                                                      \
	  "per GPU: span, busy (union), idle, compute/comm/memory, overlap, launch delays")      \
	X(GAPS, "gaps", cmd_gaps,                                                                  \
	  "idle gaps of each GPU, longest first, with the CPU op running when each began")       \
	X(STEPS, "steps", cmd_steps,                                                               \
	  "per ProfilerStep (or --step): time, GPU busy, compute, comm, overlap, idle")          \
	X(OPS, "ops", cmd_ops,                                                                     \
	  "CPU ops: calls, total, self time, avg, P95, max, GPU time launched")                  \
	X(API, "api", cmd_api,                                                                     \
	  "runtime API calls (cuda*, hip*, cu*): calls, total, avg, med, min, max, P95")

enum cli_command {
	CLI_CMD_DEFAULT, /* no subcommand: info, then kernels */
#define CLI_COMMAND_ENUM(id, name, fn, summary) CLI_CMD_##id,
	CLI_COMMAND_INFO(CLI_COMMAND_ENUM)
#undef CLI_COMMAND_ENUM
};

/* X(ID, "long", 'short' or 0, "ARG" or NULL, "help"): every option, for the
 * parser and --help (the man page lists the same set). */
#define CLI_OPTION_INFO(X)                                                                         \
	X(FORMAT, "format", 0, "FMT",                                                              \
	  "output format: text (default), csv or json; info: text or json; "                       \
	  "categories: also unitrace-json")                                                        \
	X(SCHEMA, "schema", 0, "FILE",                                                             \
	  "categories (command and view): unitrace category schema (INI) or trex rules file")     \
	X(COMPILER_LOG, "compiler-log", 0, "FILE",                                                 \
	  "categories (command and view): acelyzer's table of AIU kernel categories, ideal "       \
	  "cycles and PT utilisation from this DeepTools compiler log")                            \
	X(CORE_FREQ, "core-freq", 0, "MHZ",                                                        \
	  "with --compiler-log: the AIU core clock turning ideal cycles into time (default 1100)") \
	X(EXPLAIN, "explain", 0, NULL,                                                             \
	  "categories: one row per rule that decided work: what it matched, an example")          \
	X(BY, "by", 0, "KEY",                                                                      \
	  "kernels: group by name (default), shape, op, stream, device or rank")                   \
	X(MEMORY, "memory", 0, NULL, "kernels: count memcpy and memset too")                       \
	X(PER_RANK, "per-rank", 0, NULL, "kernels --by name|op: one total column per rank (file)") \
	X(STEP, "step", 0, "REGEX",                                                                \
	  "steps (command and view): steps are the ops/annotations matching REGEX "                \
	  "(default ^ProfilerStep#)")                                                              \
	X(MIN, "min", 0, "TIME", "gaps: leave out gaps shorter than TIME (1500, 50us, 2.5ms)")    \
	X(TOP, "top", 0, "N", "gaps, ops, api: only the first N rows")                             \
	X(OUTPUT, "output", 'o', "FILE",                                                           \
	  "write the report to FILE, atomically, as its extension says (.csv, .json, else "        \
	  "text) unless --format; '-' is stdout")                                                  \
	X(FORCE, "force", 0, NULL, "replace an existing output file")                              \
	X(THREADS, "threads", 'j', "N",                                                            \
	  "loader threads, 0 = all cores (default: $TREX_THREADS or 0)")                           \
	X(INPUT_FORMAT, "input-format", 0, "NAME",                                                 \
	  "read every input as format NAME (chrome-json) instead of telling it by its first bytes") \
	X(STRICT, "strict", 0, NULL,                                                               \
	  "exit 2 when input was lost or a value not taken as written (damaged input)")            \
	X(QUIET, "quiet", 'q', NULL, "no progress line")                                           \
	X(DEMO, "demo", 0, NULL, "use the built-in demo trace instead of files")                   \
	X(KEYS, "keys", 0, "FILE",                                                                 \
	  "UI: key bindings (default: $TREX_KEYS or $XDG_CONFIG_HOME/trex/keys)")                  \
	X(THEME, "theme", 0, "FILE|NAME",                                                          \
	  "UI: colour theme file, or an installed theme (dark, light, mono, high-contrast)")       \
	X(COLOR, "color", 0, "WHEN", "UI: colours auto (default; off with NO_COLOR), always, never") \
	X(ASCII, "ascii", 0, NULL, "UI: ASCII glyphs only (default in a non-UTF-8 locale)")       \
	X(NO_MOUSE, "no-mouse", 0, NULL, "UI: leave the mouse to the terminal (text selection)")   \
	X(SCRIPT, "script", 0, "KEYS",                                                             \
	  "UI: key names (and click:Y,X ...) separated by spaces, pressed before the terminal")   \
	X(DUMP_SCREEN, "dump-screen", 0, "FILE",                                                   \
	  "UI: after --script, write the screen as text to FILE and quit (no terminal needed)")    \
	X(HELP, "help", 'h', NULL, "show this help and exit")                                      \
	X(VERSION, "version", 'V', NULL, "show the version and exit")

enum cli_option {
#define CLI_OPTION_ENUM(id, name, short_name, arg, help) CLI_OPT_##id,
	CLI_OPTION_INFO(CLI_OPTION_ENUM)
#undef CLI_OPTION_ENUM
	    CLI_OPT_COUNT
};

struct cli_opts {
	enum cli_command command;
	enum trex_table_format format;
	enum trex_kernel_group group;
	const char *output; /* NULL: stdout */
	unsigned threads;   /* 0 = all cores */
	bool memory, per_rank; /* kernels */
	bool unitrace_json;    /* categories --format unitrace-json (format is then JSON) */
	const char *schema;    /* categories --schema */
	const char *compiler_log; /* categories --compiler-log */
	unsigned core_mhz;     /* --core-freq, 0: the default */
	bool explain;          /* categories --explain */
	const char *step;      /* steps --step REGEX, NULL: the default */
	int64_t min_ns;        /* gaps --min */
	size_t top;            /* gaps, ops, api --top; 0: all */
	const char *input_format; /* --input-format, NULL: each input by its first bytes */
	bool force, strict, quiet, demo, help, version;
	/* the interactive UI (no command, on a terminal or with --dump-screen) */
	const char *keys, *theme, *script, *dump_screen;
	enum trex_color_mode color;
	bool ascii, no_mouse, ui_option;
	char **inputs; /* FILE arguments as given (lists, globs) */
	size_t input_count;
};

/* ---- cli_common.c ------------------------------------------------------------------ */

/* Parses argv (GNU getopt, options anywhere); USAGE with a one-line
 * message in err on any problem. o->inputs points into argv. */
enum trex_status cli_parse(int argc, char **argv, struct cli_opts *o, struct trex_error *err);
void cli_print_help(FILE *out);

/* Expanded input paths. */
struct cli_paths {
	char **v;
	size_t n, cap;
};
/* Comma lists and glob patterns -> paths. An argument naming an existing
 * file is taken as is; a pattern matching nothing is an IO error naming it. */
enum trex_status cli_expand_inputs(char *const *args, size_t count, struct cli_paths *out,
                                   struct trex_error *err);
void cli_paths_free(struct cli_paths *p);

/* Loads the inputs (or the demo trace) into one index, with a progress
 * line on a terminal and Ctrl-C cancelling (CANCELLED); prints warning
 * lines for each file that lost data (a summary, then its first and largest
 * damaged spots and the first example of each damage counter, each with
 * its position), and fails (FORMAT) under --strict. */
enum trex_status cli_load(const struct cli_opts *o, struct trex_index **out,
                          struct trex_error *err);
/* One warning line on stderr per rank that several files claim (they stay
 * separate runs; analysis/labels.h). Printed after the interface exits,
 * else right after loading. */
void cli_report_rank_clashes(const struct trex_index *idx);

/* Where the report goes: stdout, or an atomic file committed at the end. */
struct cli_output {
	FILE *stream;
	struct trex_atomic_file *af; /* NULL for stdout */
};
enum trex_status cli_output_open(const struct cli_opts *o, struct cli_output *out,
                                 struct trex_error *err);
/* Commits (ok) or aborts the output; returns the first error. */
enum trex_status cli_output_close(struct cli_output *out, bool ok, struct trex_error *err);

/* ---- one file per command ------------------------------------------------------------ */

struct trex_catset;

/* What a command reads besides its options: the loaded index and what was
 * read before the load (--schema rules; NULL: the built-in ones). */
struct trex_ideal_log;
struct cli_model {
	const struct trex_index *idx;
	const struct trex_catset *catset;
	const struct trex_ideal_log *ideal; /* --compiler-log, or NULL */
};

/* A command writes its report to out; errors are values in err. */
typedef enum trex_status cli_command_fn(const struct cli_opts *o, const struct cli_model *m,
                                        FILE *out, struct trex_error *err);

#define CLI_COMMAND_DECL(id, name, fn, summary) cli_command_fn fn;
CLI_COMMAND_INFO(CLI_COMMAND_DECL)
#undef CLI_COMMAND_DECL

/* The function of a command; NULL for CLI_CMD_DEFAULT. */
cli_command_fn *cli_command_function(enum cli_command c);

/* The text report's line under a table without rows: why (t->note). */
static inline void cli_print_note(FILE *out, const struct trex_table *t)
{
	if (t->nrows == 0)
		fprintf(out, "(%s)\n", t->note ? t->note : "no rows");
}
/* The ops (api false) or runtime API summary of `trex ops` and `trex api`,
 * with a line saying so when it is empty. */
enum trex_status cmd_cpu_summary(const struct cli_opts *o, const struct cli_model *m, bool api,
                                 FILE *out, struct trex_error *err);

/* Reads and checks --schema before the (long) load; NULL set: built-in. */
enum trex_status cmd_categories_schema(const struct cli_opts *o, struct trex_catset **set,
                                       struct trex_error *err);
/* Reads --compiler-log before the load (problems on stderr, positioned);
 * NULL log without the option. */
enum trex_status cmd_categories_compiler_log(const struct cli_opts *o,
                                             struct trex_ideal_log **log,
                                             struct trex_error *err);

#endif
