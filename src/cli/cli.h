/* The command-line front end: option parsing, input expansion, loading with
 * progress and Ctrl-C, output files, and one function per command. Only
 * main.c calls exit(); everything here returns a status. */
#ifndef TREX_CLI_CLI_H
#define TREX_CLI_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/rank_align.h"
#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/atomic_file.h"
#include "trex/export/trace_export.h"
#include "trex/load/index_cache.h"
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
	  "per GPU: span, busy (union), idle, compute/comm/memory, overlap, launch delays")        \
	X(GAPS, "gaps", cmd_gaps,                                                                  \
	  "idle gaps of each GPU, longest first, with the CPU op running when each began")         \
	X(STEPS, "steps", cmd_steps,                                                               \
	  "per ProfilerStep (or --step): time, GPU busy, compute, comm, overlap, idle")            \
	X(OPS, "ops", cmd_ops,                                                                     \
	  "CPU ops: calls, total, self time, avg, P95, max, GPU time launched")                    \
	X(API, "api", cmd_api,                                                                     \
	  "runtime API calls (cuda*, hip*, cu*): calls, total, avg, med, min, max, P95")           \
	X(INTEGRITY, "integrity", cmd_integrity,                                                   \
	  "what was lost or repaired: every integrity counter per run, with its first example")    \
	X(STALLS, "stalls", cmd_stalls,                                                            \
	  "per kernel: stall samples by reason, hottest instructions and source lines, what "      \
	  "they wait for (unitrace --stall-sampling CSV, Nsight Compute source CSV)")              \
	X(METRICS, "metrics", cmd_metrics,                                                         \
	  "per-kernel hardware metrics (unitrace -q/-k, Kineto ranges) and unitrace reports: "     \
	  "devices, metrics, kernels; --metric: their values")                                     \
	X(NODES, "nodes", cmd_nodes,                                                               \
	  "execution-graph nodes (Chakra ET, ASTRA-sim, PyTorch host ET) as scheduled: type, "     \
	  "bytes, start, duration, slack, critical path")                                          \
	X(CRITICAL_PATH, "critical-path", cmd_critical_path,                                       \
	  "execution graphs: the chain of nodes that bounds the estimated makespan, with each "    \
	  "one's start, duration, cause and slack; traces: the CPU work, launches, device work "   \
	  "and syncs that bound each rank's end, and its CPU/GPU/comm/launch/idle shares")         \
	X(DIFF, "diff", cmd_diff,                                                                  \
	  "two runs A B (each FILE, FILE,FILE... or a quoted glob; index files too) compared: "    \
	  "a summary and the kernels, or --by ops, categories, steps or sequence")                 \
	X(EXPORT, "export", cmd_export,                                                            \
	  "the trace, or a time range, tracks, slices or ranks of it, as Chrome JSON, Perfetto "   \
	  "protobuf or a CSV of slices (--to, -o OUT)")                                            \
	X(INDEX, "index", cmd_index,                                                               \
	  "build each trace's index file (FILE.trex), -j N files at once, so that later opens "    \
	  "map it instead of parsing")                                                             \
	X(ALIGN, "align", cmd_align,                                                               \
	  "rank clocks: the offset (and drift) that lines up each rank's collectives (or "         \
	  "steps) with the others', anchors and residuals")                                        \
	X(STRAGGLERS, "stragglers", cmd_stragglers,                                                \
	  "per collective and step, after alignment: the rank that arrived last, by how much, "    \
	  "and how long the others waited; per rank: times last, wait caused")

enum cli_command {
	CLI_CMD_DEFAULT, /* no subcommand: info, then kernels */
#define CLI_COMMAND_ENUM(id, name, fn, summary) CLI_CMD_##id,
	CLI_COMMAND_INFO(CLI_COMMAND_ENUM)
#undef CLI_COMMAND_ENUM
};

/* Where an option applies (its command's own option set): a set of
 * commands, CLI_IN(DEFAULT) standing for no command (the interface, or the
 * info and kernels reports without a terminal). */
#define CLI_IN(cmd) (1u << CLI_CMD_##cmd)
#define CLI_ANYWHERE UINT32_MAX
#define CLI_UI CLI_IN(DEFAULT)
/* Where the ranks of a load can be aligned (--align): not in `trex align`
 * itself, nor where no times are shown. */
#define CLI_ALIGNABLE (CLI_ANYWHERE & ~(CLI_IN(ALIGN) | CLI_IN(INDEX)))

/* X(ID, "long", 'short' or 0, "ARG" or NULL, WHERE, "help"): every option,
 * for the parser, the check of where it applies and --help (the man page
 * lists the same set). */
#define CLI_OPTION_INFO(X)                                                                         \
	X(FORMAT, "format", 0, "FMT", CLI_ANYWHERE,                                                \
	  "output format: text (default), csv or json; info: text or json; "                       \
	  "categories: also unitrace-json")                                                        \
	X(SCHEMA, "schema", 0, "FILE",                                                             \
	  CLI_IN(CATEGORIES) | CLI_IN(GPU_TIME) | CLI_IN(STEPS) | CLI_IN(DIFF) | CLI_IN(DEFAULT),  \
	  "unitrace category schema (INI) or trex rules file: the categories (command and view), " \
	  "and which work is communication (its comm, allreduce, ... categories) everywhere")      \
	X(COMPILER_LOG, "compiler-log", 0, "FILE", CLI_IN(CATEGORIES) | CLI_IN(DEFAULT),           \
	  "categories (command and view): acelyzer's table of AIU kernel categories, ideal "       \
	  "cycles and PT utilisation from this DeepTools compiler log")                            \
	X(CORE_FREQ, "core-freq", 0, "MHZ", CLI_IN(CATEGORIES) | CLI_IN(DEFAULT),                  \
	  "with --compiler-log: the AIU core clock turning ideal cycles into time (default 1100)") \
	X(EXPLAIN, "explain", 0, NULL, CLI_IN(CATEGORIES),                                         \
	  "categories: one row per rule that decided work: what it matched, an example")           \
	X(BY, "by", 0, "KEY", CLI_IN(KERNELS) | CLI_IN(DIFF),                                      \
	  "kernels: group by name (default), shape, op, stream, device or rank; diff: compare "    \
	  "kernels, ops, categories, steps or sequence (default: a summary, then kernels)")        \
	X(MEMORY, "memory", 0, NULL, CLI_IN(KERNELS), "kernels: count memcpy and memset too")      \
	X(PER_RANK, "per-rank", 0, NULL, CLI_IN(KERNELS),                                          \
	  "kernels --by name|op: one total column per rank (file)")                                \
	X(STEP, "step", 0, "REGEX",                                                                \
	  CLI_IN(STEPS) | CLI_IN(DIFF) | CLI_IN(DEFAULT) | CLI_IN(ALIGN) | CLI_IN(STRAGGLERS),     \
	  "steps (command and view), diff, align, stragglers: steps are the ops/annotations "      \
	  "matching REGEX (default ^ProfilerStep#)")                                               \
	X(MIN, "min", 0, "TIME", CLI_IN(GAPS) | CLI_IN(DIFF) | CLI_IN(DEFAULT),                    \
	  "gaps: leave out gaps shorter than TIME (1500, 50us, 2.5ms); diff (and the diff view): " \
	  "leave out rows that changed less than TIME or PCT% (5%), and call a kernel changed "    \
	  "from there on")                                                                         \
	X(NORMALIZE, "normalize", 0, "RULES", CLI_IN(DIFF) | CLI_IN(DEFAULT),                      \
	  "diff (and the diff view): match names through rules: hex (0x... addresses), template "  \
	  "(digits in <...>), digits (every number), all, or a comma list (default: exact)")       \
	X(TOP, "top", 0, "N",                                                                      \
	  CLI_IN(GAPS) | CLI_IN(OPS) | CLI_IN(API) | CLI_IN(STALLS) | CLI_IN(NODES) |              \
	      CLI_IN(DIFF),                                                                        \
	  "gaps, ops, api, nodes, diff: only the first N rows; stalls: N instructions per "        \
	  "reason (default 10)")                                                                   \
	X(RANK, "rank", 0, "N", CLI_IN(NODES), "nodes: only the nodes of rank N")                  \
	X(DUMP, "dump", 0, "DIR", CLI_IN(STALLS) | CLI_IN(DEFAULT),                                \
	  "stalls (command and view): the IGC shader dump directory (.asm files) of unitrace "     \
	  "stall reports")                                                                         \
	X(SOURCE_PATH, "source-path", 0, "DIR", CLI_IN(STALLS) | CLI_IN(DEFAULT),                  \
	  "stalls: look for source files under DIR too (repeatable)")                              \
	X(SOURCE_MAP, "source-map", 0, "OLD=NEW", CLI_IN(STALLS) | CLI_IN(DEFAULT),                \
	  "stalls: a source file recorded under directory OLD is under NEW here (repeatable)")     \
	X(KERNEL, "kernel", 0, "REGEX", CLI_IN(STALLS) | CLI_IN(METRICS),                          \
	  "stalls, metrics: only the kernels whose names match REGEX")                             \
	X(COMPARE, "compare", 0, "FILE", CLI_IN(STALLS) | CLI_IN(DEFAULT),                         \
	  "stalls (command and view): the stall report the others are compared with, per line; "   \
	  "interface: else a second run (FILE[,FILE...]) stacked under the first's timeline, "     \
	  "whose kernels V compares with the first's")                                             \
	X(METRIC, "metric", 0, "NAME[,NAME]", CLI_IN(METRICS) | CLI_IN(KERNELS) | CLI_IN(DEFAULT), \
	  "metrics: the metrics to show; kernels and the interface: metric columns in the "        \
	  "kernels "                                                                               \
	  "table (metric or report column names, or all)")                                         \
	X(SUMMARY, "summary", 0, NULL, CLI_IN(METRICS),                                            \
	  "metrics --metric: min, avg, max and trend per kernel instead of one row per instance")  \
	X(TO, "to", 0, "FORMAT", CLI_IN(EXPORT),                                                   \
	  "export: chrome, perfetto or csv (default: from -o's extension: .json, .json.gz, "       \
	  ".pftrace, .perfetto-trace, .pb, .csv)")                                                 \
	X(RANGE, "range", 0, "A:B", CLI_IN(EXPORT),                                                \
	  "export: only the time range A:B, times as the interface takes them (1.5ms:2ms, "        \
	  "absolute ns; A: or :B for open ends); slices crossing its edges are cut")               \
	X(TRACKS, "tracks", 0, "REGEX", CLI_IN(EXPORT),                                            \
	  "export: only the tracks whose names match REGEX")                                       \
	X(FILTER, "filter", 0, "REGEX", CLI_IN(EXPORT),                                            \
	  "export: only the slices, instants and counters whose names match REGEX")                \
	X(RANKS, "ranks", 0, "LIST", CLI_IN(EXPORT), "export: only these ranks (0,2-3)")           \
	X(STEPS, "steps", 0, "LIST", CLI_IN(EXPORT),                                               \
	  "export: only ProfilerSteps LIST (12, 10-12, 10,12): chakra keeps the GPU work "         \
	  "launched in them, other formats their time range (one run of steps)")                   \
	X(HOST_ET, "host-et", 0, "FILE[,FILE]", CLI_IN(EXPORT),                                    \
	  "export --to chakra|chakra-json: the PyTorch host execution traces of the run, one per " \
	  "trace file in rank order (or a pattern with {rank}): host ops as CPU nodes, kernels "   \
	  "after their launching op")                                                              \
	X(ON, "on", 0, "WHAT", CLI_IN(ALIGN),                                                      \
	  "align: match the ranks on collectives (default) or steps")                              \
	X(ALIGN, "align", 0, "WHAT", CLI_ALIGNABLE,                                                \
	  "put the ranks on one clock first, matched on collectives or steps, or none (the "       \
	  "default; stragglers: collectives)")                                                     \
	X(OUTPUT, "output", 'o', "FILE", CLI_ANYWHERE,                                             \
	  "write the report to FILE, atomically, as its extension says (.csv, .json, else "        \
	  "text) unless --format; '-' is stdout")                                                  \
	X(FORCE, "force", 0, NULL, CLI_ANYWHERE, "replace an existing output file")                \
	X(THREADS, "threads", 'j', "N", CLI_ANYWHERE,                                              \
	  "loader threads, 0 = all cores (default: $TREX_THREADS or 0)")                           \
	X(INPUT_FORMAT, "input-format", 0, "NAME", CLI_ANYWHERE,                                   \
	  "read every input as format NAME (chrome-json, perfetto, astrasim-timeline, "            \
	  "astrasim-text, chakra-et, pytorch-et) instead of telling it by "                        \
	  "its first bytes")                                                                       \
	X(BANDWIDTH, "bandwidth", 0, "GBPS", CLI_ANYWHERE,                                         \
	  "execution graphs: GB/s per rank that estimates communication without a duration "       \
	  "(default 50)")                                                                          \
	X(LATENCY, "latency", 0, "NS", CLI_ANYWHERE,                                               \
	  "execution graphs: latency per collective step, in ns or with a unit (default 500; "     \
	  "0: the default)")                                                                       \
	X(NPUS, "npus", 0, "N", CLI_ANYWHERE,                                                      \
	  "ASTRA-sim text workloads: the NPUs to convert for (default 2 or what the policy "       \
	  "needs)")                                                                                \
	X(NPU_FREQUENCY, "npu-frequency", 0, "GHZ", CLI_ANYWHERE,                                  \
	  "ASTRA-sim timelines: the NPU clock turning cycles into time (default 1: a cycle a ns)") \
	X(NO_CACHE, "no-cache", 0, NULL, CLI_ANYWHERE,                                             \
	  "neither read nor write index files (.trex): parse the trace")                           \
	X(REBUILD_CACHE, "rebuild-cache", 0, NULL, CLI_ANYWHERE,                                   \
	  "parse the trace and write its index file again, even when it is fresh")                 \
	X(STRICT, "strict", 0, NULL, CLI_ANYWHERE,                                                 \
	  "exit 2 when input was lost or a value not taken as written (damaged input)")            \
	X(QUIET, "quiet", 'q', NULL, CLI_ANYWHERE, "no progress line")                             \
	X(DEMO, "demo", 0, NULL, CLI_ANYWHERE, "use the built-in demo trace instead of files")     \
	X(KEYS, "keys", 0, "FILE", CLI_UI,                                                         \
	  "UI: key bindings (default: $TREX_KEYS or $XDG_CONFIG_HOME/trex/keys)")                  \
	X(THEME, "theme", 0, "FILE|NAME", CLI_UI,                                                  \
	  "UI: colour theme file, or an installed theme (dark, light, mono, high-contrast)")       \
	X(COLOR, "color", 0, "WHEN", CLI_UI,                                                       \
	  "UI: colours auto (default; off with NO_COLOR), always, never")                          \
	X(ASCII, "ascii", 0, NULL, CLI_UI,                                                         \
	  "UI: ASCII glyphs only (default in a non-UTF-8 locale)")                                 \
	X(NO_MOUSE, "no-mouse", 0, NULL, CLI_UI,                                                   \
	  "UI: leave the mouse to the terminal (text selection)")                                  \
	X(SCRIPT, "script", 0, "KEYS", CLI_UI,                                                     \
	  "UI: key names (and click:Y,X ...) separated by spaces, pressed before the terminal")    \
	X(DUMP_SCREEN, "dump-screen", 0, "FILE", CLI_UI,                                           \
	  "UI: after --script, write the screen as text to FILE and quit (no terminal needed)")    \
	X(HELP, "help", 'h', NULL, CLI_ANYWHERE, "show this help and exit")                        \
	X(VERSION, "version", 'V', NULL, CLI_ANYWHERE, "show the version and exit")

enum cli_option {
#define CLI_OPTION_ENUM(id, name, short_name, arg, where, help) CLI_OPT_##id,
	CLI_OPTION_INFO(CLI_OPTION_ENUM)
#undef CLI_OPTION_ENUM
	    CLI_OPT_COUNT
};

#define CLI_LIST_MAX 32 /* repeatable options: at most this many of each */
#define CLI_METRIC_ARGS_MAX 64

struct cli_opts {
	enum cli_command command;
	enum trex_table_format format;
	enum trex_kernel_group group;
	const char *output;       /* NULL: stdout */
	unsigned threads;         /* 0 = all cores */
	bool memory, per_rank;    /* kernels */
	bool unitrace_json;       /* categories --format unitrace-json (format is then JSON) */
	const char *schema;       /* categories --schema */
	const char *compiler_log; /* categories --compiler-log */
	unsigned core_mhz;        /* --core-freq, 0: the default */
	bool explain;             /* categories --explain */
	const char *step;         /* steps --step REGEX, NULL: the default */
	int64_t min_ns;           /* gaps, diff --min TIME */
	double min_pct;           /* diff --min PCT%, 0: none */
	const char *by;           /* --by as given (diff's comparisons; kernels: group) */
	unsigned normalize;       /* diff --normalize: trex_diff_norm bits, 0: exact */
	size_t top;       /* gaps, ops, api, nodes --top; 0: all; stalls: per reason, 0: 10 */
	int64_t rank;     /* nodes --rank; -1: every rank */
	const char *dump; /* stalls --dump DIR */
	const char *source_path[CLI_LIST_MAX]; /* stalls --source-path, in order */
	size_t nsource_path;
	const char *source_map[CLI_LIST_MAX]; /* stalls --source-map OLD=NEW, in order */
	size_t nsource_map;
	const char *kernel;                           /* stalls, metrics --kernel REGEX */
	const char *compare;                          /* stalls --compare FILE */
	const char *metric_args[CLI_METRIC_ARGS_MAX]; /* --metric, as given (comma lists) */
	size_t nmetric_args;
	bool summary; /* metrics --summary */
	/* export: --to (NULL: from -o), --range, --tracks, --filter, --ranks */
	const char *export_to, *range, *tracks, *filter;
	struct trex_rank_range ranks[CLI_LIST_MAX];
	size_t nranks;
	struct trex_rank_range steps[CLI_LIST_MAX]; /* export --steps */
	size_t nsteps;
	const char *host_et;      /* export: --host-et (chakra_host_link.h), NULL */
	const char *input_format; /* --input-format, NULL: each input by its first bytes */
	double bandwidth_gbps;    /* --bandwidth, 0: the default */
	int64_t latency_ns;       /* --latency, 0: the default */
	uint32_t npus;            /* --npus, 0: each text workload's default */
	double npu_frequency_ghz; /* --npu-frequency, 0: 1 GHz */
	bool force, strict, quiet, demo, help, version;
	bool no_cache, rebuild_cache; /* --no-cache, --rebuild-cache */
	/* the interactive UI (no command, on a terminal or with --dump-screen) */
	const char *keys, *theme, *script, *dump_screen;
	enum trex_color_mode color;
	bool ascii, no_mouse;
	uint64_t given; /* bit i: option i (enum cli_option) was given */
	char **inputs;  /* FILE arguments as given (lists, globs) */
	size_t input_count;
	/* --align (given, or the command's default: none, stragglers collectives) and
	 * align --on (default collectives) */
	enum trex_align_on align, align_on;
};

/* ---- cli_common.c ------------------------------------------------------------------ */

/* Parses argv (GNU getopt, options anywhere); USAGE with a one-line
 * message in err on any problem. o->inputs points into argv. */
enum trex_status cli_parse(int argc, char **argv, struct cli_opts *o, struct trex_error *err);
/* --help: every command and option; with a command, its own options. */
void cli_print_help(FILE *out, enum cli_command c);

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
/* Appends a copy of path. */
enum trex_status cli_paths_push(struct cli_paths *p, const char *path, struct trex_error *err);
/* ---- cli_compare.c: --compare's second run ----------------------------------------- */

/* Whether --compare names a run to stack under the inputs' in the
 * interface (no command, and not a stall report). */
bool cli_compare_is_run(const struct cli_opts *o);
/* The title of an index's files: the path of one, or "8 files: " and
 * their base names ("worker0.json.gz, worker1.json.gz, ..."). */
void cli_files_label(const struct trex_index *idx, char *buf, size_t size);
/* --compare when it names a stall report (the stalls baseline), else NULL. */
const char *cli_compare_report(const struct cli_opts *o);
/* Loads --compare's run (comma lists, globs, index files, as the inputs)
 * as cli_load does, warnings included; label gets its file names. */
struct trex_catset;
enum trex_status cli_compare_load(const struct cli_opts *o, const struct trex_catset *schema,
                                  struct trex_index **out, char *label, size_t size,
                                  struct trex_error *err);

/* Whether path names an index file (FILE.trex): globs leave those out, and
 * one given as an input stands for its trace. */
bool cli_is_index_file(const char *path);

/* Loads the inputs (or the demo trace) into one index, with a progress
 * line on a terminal and Ctrl-C cancelling (CANCELLED); prints warning
 * lines for each file that lost data (a summary, then its first and largest
 * damaged spots and the first example of each damage counter, each with
 * its position), and fails (FORMAT) under --strict. Metrics inputs go to
 * *metrics (trex_load_inputs; metrics may be NULL only when there are
 * none), with warnings for their problems; *out is NULL when every input
 * was a metrics input. schema (--schema, may be NULL) decides which
 * device work is communication, as its categories say (load/classify.h). */
struct trex_metrics;
struct trex_catset;
enum trex_status cli_load(const struct cli_opts *o, const struct trex_catset *schema,
                          struct trex_index **out, struct trex_metrics **metrics,
                          struct trex_error *err);
/* The threads -j asks for, 0 (the default) being the online cores. */
unsigned cli_threads(const struct cli_opts *o);
/* The two runs of `trex diff` (o->inputs[0] and [1], one argument each),
 * each loaded as cli_load loads its inputs and reported on in that order
 * (A's warnings first, each run's rank clashes after its warnings), but
 * both at once, B in a thread of its own and each on half the threads,
 * unless there is one (-j 1, or one core). On failure the first side's
 * error, both NULL. */
enum trex_status cli_load_pair(const struct cli_opts *o, const struct trex_catset *schema,
                               struct trex_index *out[2], struct trex_error *err);
/* The index-file cache mode --no-cache and --rebuild-cache ask for, and
 * its note (a refused or unwritable index file) as one line on stderr. */
enum trex_cache_mode cli_cache_mode(const struct cli_opts *o);
void cli_print_cache_note(const struct trex_cache_report *r);
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
/* Closes the output after a command that ended with st (committing it
 * when st is OK) and returns st, else the close's error; an I/O error
 * without a path gets the output's name (the table writers know only a
 * stream). */
enum trex_status cli_output_finish(const struct cli_opts *o, struct cli_output *out,
                                   enum trex_status st, struct trex_error *err);

/* A regex option's argument, compiled to check it: USAGE naming the
 * option and why, so that a bad pattern fails before a long load. */
enum trex_status cli_check_pattern(const char *option, const char *arg, struct trex_error *err);

/* Ctrl-C during a long step (loading does it itself): from begin to end,
 * SIGINT sets the flag begin returns instead of ending trex. */
const volatile sig_atomic_t *cli_interrupt_begin(struct sigaction *old);
void cli_interrupt_end(const struct sigaction *old);

/* The warning lines of every file of idx that lost data, as cli_load
 * prints them. */
void cli_describe_losses(const struct trex_index *idx, FILE *out);

/* ---- cli_ranks.c: many ranks ------------------------------------------------------------ */

/* A directory among the paths becomes its regular files, by name (hidden
 * files and index files left out); IO when it holds none. */
enum trex_status cli_expand_dirs(struct cli_paths *p, struct trex_error *err);
/* `trex kernels` (grouped by name) and `trex gpu-time` of several traces
 * (files, globs, directories), rank by rank without loading the set as
 * one index (cli_ranks.c says how); *done false, nothing written, when
 * the options or the inputs need the merged load (which then runs as
 * before). */
enum trex_status cli_ranks_report(const struct cli_opts *o, FILE *out, bool *done,
                                  struct trex_error *err);

/* ---- one file per command ------------------------------------------------------------ */

struct trex_catset;

/* What a command reads besides its options: the loaded index and what was
 * read before the load (--schema rules; NULL: the built-in ones). */
struct trex_ideal_log;
struct trex_profile;
struct trex_srcfiles;
struct cli_model {
	const struct trex_index *idx; /* NULL only for `trex metrics` of metrics inputs alone */
	const struct trex_catset *catset;
	const struct trex_ideal_log *ideal; /* --compiler-log, or NULL */
	const struct trex_profile *profile; /* the stall reports among the inputs, or NULL */
	uint32_t baseline;                  /* --compare's report, TREX_PROFILE_NONE without */
	struct trex_srcfiles *sources;      /* --source-path and --source-map, or NULL */
	const struct trex_metrics *metrics; /* metrics inputs, linked to idx; or NULL */
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
/* The line `trex steps` and `trex gaps` print under a table with no row. */
void cli_steps_none(const struct cli_opts *o, FILE *out);
void cli_gaps_none(const struct cli_opts *o, FILE *out);
/* ... and `trex ops` (api false) and `trex api` */
void cli_cpu_summary_none(bool api, FILE *out);
/* `trex info`'s report of a set of ranks (no execution graph) from its
 * joined summary (analysis/summary_set.h), as cmd_info writes it. */
struct trex_summary;
enum trex_status cli_info_write_set(const struct cli_opts *o, const struct trex_summary *s,
                                    FILE *out, struct trex_error *err);
/* `trex integrity`'s text headline: a line per damaged run (run, path,
 * trex_loss_text), then the end (the no-damage line unless any). */
void cli_integrity_damaged(FILE *out, const char *run, const char *path, const char *lost);
void cli_integrity_headline_end(FILE *out, bool any);
static inline void cli_print_note(FILE *out, const struct trex_table *t)
{
	if (t->nrows == 0)
		fprintf(out, "(%s)\n", t->note ? t->note : "no rows");
}
/* The ops (api false) or runtime API summary of `trex ops` and `trex api`,
 * with a line saying so when it is empty. */
enum trex_status cmd_cpu_summary(const struct cli_opts *o, const struct cli_model *m, bool api,
                                 FILE *out, struct trex_error *err);

/* ---- cmd_diff.c ------------------------------------------------------------------------- */

/* The value of a diff option (--normalize, --min PCT%) into o; *handled
 * false when id is not one or the value is for another command (--min
 * TIME). USAGE for a bad value. */
enum trex_status cli_apply_diff_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                      bool *handled, struct trex_error *err);

/* ---- cmd_export.c ------------------------------------------------------------------------ */

/* The value of an export option (--to, --range, --tracks, --filter,
 * --ranks) into o, checked; *handled false when id is not one. */
enum trex_status cli_apply_export_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                        bool *handled, struct trex_error *err);
/* Before the load: -o is given, the format known, an existing output
 * refused without --force. */
enum trex_status cmd_export_check(const struct cli_opts *o, struct trex_error *err);

/* ---- cmd_align.c ------------------------------------------------------------------------- */

/* The value of --on or --align into o; *handled false when id is neither. */
enum trex_status cli_apply_align_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                       bool *handled, struct trex_error *err);
/* After the load: the ranks of idx put on one clock as --align asks (its
 * default for the command), with a line on stderr saying how well (unless
 * --quiet); USAGE, saying why, when they cannot be. */
enum trex_status cli_align_index(const struct cli_opts *o, struct trex_index *idx,
                                 struct trex_error *err);

/* ---- cli_metrics.c ---------------------------------------------------------------------- */

/* The --metric names, comma lists split and blanks trimmed: *names is
 * malloc'd (free it and every name), *n of them. */
enum trex_status cli_metric_names(const struct cli_opts *o, char ***names, size_t *n,
                                  struct trex_error *err);
void cli_metric_names_free(char **names, size_t n);
/* Warnings on stderr for every metrics input that had problems: a summary
 * line, then each problem kept, positioned. */
void cli_report_metrics(const struct trex_metrics *m);
/* Links the metrics to the trace (analysis/metrics.h); unless the command
 * is `trex metrics` (whose report says it), a warning line when some
 * instance or report row did not match. */
enum trex_status cli_link_metrics(const struct cli_opts *o, const struct trex_index *idx,
                                  struct trex_metrics *m, struct trex_error *err);
/* The metric columns --metric asks for in the kernels table, against m
 * (*cols NULL and *n 0 without --metric). USAGE without metrics inputs, or
 * for a name m lacks. */
struct trex_metric_column;
enum trex_status cli_metric_columns(const struct cli_opts *o, const struct trex_metrics *m,
                                    struct trex_metric_column **cols, size_t *n,
                                    struct trex_error *err);

/* Reads and checks --schema before the (long) load; NULL set: built-in. */
enum trex_status cmd_categories_schema(const struct cli_opts *o, struct trex_catset **set,
                                       struct trex_error *err);
/* Reads --compiler-log before the load (problems on stderr, positioned);
 * NULL log without the option. */
enum trex_status cmd_categories_compiler_log(const struct cli_opts *o, struct trex_ideal_log **log,
                                             struct trex_error *err);

/* ---- cli_profile.c: stall reports among the inputs ------------------------------------ */

/* Reads the inputs that are stall reports (and --compare, first) into
 * *profile (NULL when there is none), problems on stderr as warnings
 * (under --strict the first one fails, FORMAT); *baseline is --compare's
 * report. Sets up *sources from --source-path and --source-map. */
enum trex_status cli_profile_load(const struct cli_opts *o, struct trex_profile **profile,
                                  uint32_t *baseline, struct trex_srcfiles **sources,
                                  struct trex_error *err);
/* Takes the stall reports out of paths (they are not traces); returns
 * whether there was any. */
bool cli_drop_profile_inputs(struct cli_paths *paths);
/* The value of a stalls option (--dump, --source-path, --source-map,
 * --kernel, --compare) into o, *handled set; *handled false when id is not
 * one. USAGE for a bad value. */
enum trex_status cli_apply_stalls_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                        bool *handled, struct trex_error *err);
/* Those options with the command. */
enum trex_status cli_check_stalls_options(const struct cli_opts *o, struct trex_error *err);
/* An index of no file, for inputs that are only stall reports. */
enum trex_status cli_empty_index(struct trex_index **out, struct trex_error *err);

#endif
