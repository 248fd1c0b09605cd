/* Loading: files -> sniff -> format loader -> builders -> frozen index.
 * Each input format is one struct trex_format in the registry
 * (src/load/loader.c); adding a format adds one file and one line there. */
#ifndef TREX_LOAD_LOADER_H
#define TREX_LOAD_LOADER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/load/source.h"

struct trex_comm_override;
struct trex_cache_report;

struct trex_load_progress {
	uint64_t bytes_done;  /* decoded bytes parsed so far, all files */
	uint64_t bytes_total; /* bytes on disk of all files (gzip: compressed) */
	uint64_t disk_done;   /* on-disk bytes consumed so far */
	uint64_t events;
	uint32_t files_done, file_count;
};
typedef void (*trex_progress_fn)(const struct trex_load_progress *progress, void *user);

struct trex_load_opts {
	unsigned threads;              /* 0 = all online cores */
	bool strict;                   /* any integrity problem that drops data is an error */
	volatile sig_atomic_t *cancel; /* non-zero: stop, return CANCELLED; may be NULL */
	trex_progress_fn
	    progress; /* called every few MiB from the loading threads, serialized; may be NULL */
	void *progress_user;
	/* Decoded bytes per window of a gzip stream (0: the loader's default).
	 * Tests make it tiny so events straddle windows and parallel parts. */
	size_t stream_window;
	/* Tests: the Chrome JSON loader scans every member of every event
	 * instead of taking the repeated ones from what it learned
	 * (load/json_lits.h), so that the two can be compared. */
	bool scan_every_member;
	/* The format of every input by its name (trex_format.name), for
	 * formats whose first bytes say little; NULL: sniffed per file. */
	const char *format;
	/* Execution graphs (core/schedule.h): the bandwidth and latency that
	 * estimate communication without a duration; 0: the defaults. */
	double bandwidth_gbps;
	int64_t latency_ns;
	/* ASTRA-sim inputs: the NPUs a text workload is converted for (0: its
	 * own default), and the clock of a simulator timeline in GHz, cycles
	 * per ns (0: 1 GHz, one cycle a ns, as ASTRA-sim counts). */
	uint32_t npus;
	double npu_frequency_ghz;
	/* Communication as a category file says (--schema; classify.h), or
	 * NULL: the built-in rules alone. */
	const struct trex_comm_override *comm_override;
	/* trex_load_inputs: index files (load/index_cache.h), an enum
	 * trex_cache_mode (0: off), and what the cache did (may be NULL). */
	unsigned cache;
	struct trex_cache_report *cache_report;
};

/* A format plug-in. */
struct trex_load_job;
struct trex_format {
	const char *name; /* "chrome-json" */
	/* 0..100: how sure the format is about these first decoded bytes. */
	int (*sniff)(const unsigned char *head, size_t len);
	/* Parses job->source into builders (trex_load_job_add_part) and fills
	 * job->file. Returns OK for salvaged input too (problems are counted
	 * in job->file->integrity and job->file->first_problem). */
	enum trex_status (*load)(struct trex_load_job *job, struct trex_error *err);
	/* How the index reads the file's args back (core/args.h). Its context
	 * is the file's source unless load() sets job->file->codec_ctx to one
	 * of its own (that then owns the source). */
	const struct trex_args_codec *codec;
	/* An execution-graph format: load() puts the file's nodes and
	 * dependencies into job->graph (core/graph.h) and makes no builders;
	 * once every file is read, the loader joins the graphs, schedules them
	 * (core/schedule.h) and draws the schedule as the files' timeline. */
	bool graph;
};

struct trex_load_job {
	struct trex_source *source;
	uint32_t file_id;
	struct trex_build_file *file; /* to fill: dialect, rank, base time, counts */
	const struct trex_load_opts *opts;
	unsigned threads; /* threads this job may use */
	/* graph formats only: an empty graph of this file's own, to fill
	 * (trex_graph_add_node with .file = file_id); the loader owns it */
	struct trex_graph *graph;
	/* private to loader.c */
	struct trex_load_shared *shared;
};

/* Adds a finished builder for this job's file; parts are merged in the
 * order of their seq (byte order within the file). The job owns b after. */
enum trex_status trex_load_job_add_part(struct trex_load_job *job, uint32_t seq,
                                        struct trex_builder *b, struct trex_error *err);
/* Reports progress (thread-safe): decoded bytes parsed, bytes of the file
 * on disk consumed (compressed for gzip; the same as decoded otherwise),
 * events. Returns true when cancelled. */
bool trex_load_job_progress(struct trex_load_job *job, uint64_t decoded_bytes_delta,
                            uint64_t disk_bytes_delta, uint64_t events_delta);

/* Loads several inputs into one index, one rank per file: a file's rank is
 * its distributedInfo.rank, else the lowest rank >= 0 that no file claims
 * (files without one take them in command-line order). The index numbers
 * the files by rank; files claiming the same rank stay apart (by base
 * name, then path), so the order of the inputs changes nothing else. */
enum trex_status trex_load_paths(const char *const *paths, size_t count,
                                 const struct trex_load_opts *opts, struct trex_index **out,
                                 struct trex_error *err);
/* The ranks of count files in command-line order, as trex_load_sources
 * gives them: a file that claims none (claimed[i] false) takes the lowest
 * rank >= 0 that no file claims and no earlier such file took (ranks[i]
 * set); false when out of memory. */
bool trex_load_assign_ranks(int64_t *ranks, const bool *claimed, size_t count);
/* The order in which trex_load_sources numbers count files of the given
 * (assigned) ranks and paths: order[k] is the input position of file k;
 * by rank, then base name, path and position. */
void trex_load_order_files(const int64_t *ranks, const char *const *paths, size_t count,
                           size_t *order);

/* Same over already-open sources (memory buffers in tests, the demo); the
 * sources move into the index (closed on failure too). */
enum trex_status trex_load_sources(struct trex_source **sources, size_t count,
                                   const struct trex_load_opts *opts, struct trex_index **out,
                                   struct trex_error *err);

/* The registered formats, NULL-terminated. */
const struct trex_format *const *trex_formats(void);
/* The registered format called name, NULL if none. */
const struct trex_format *trex_format_named(const char *name);
/* Their names, "chrome-json, ...", for messages (cut to size). */
void trex_format_names(char *buf, size_t size);

#endif
