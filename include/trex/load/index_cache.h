/* The index-file cache: loading through index files (core/index_file.h)
 * when they are fresh, writing them when not.
 *
 * One index file per load: per input file when one file is loaded, per
 * set (the files, in command-line order, which decides ranks) when
 * several are. Where:
 *  - $TREX_INDEX_DIR/NAME.HASH.trex when TREX_INDEX_DIR is set (tests,
 *    or one place for every index);
 *  - else a single trace's index is TRACE.trex beside it (trace.json.gz
 *    -> trace.json.gz.trex) when its directory is writable, else, and
 *    for sets always, $XDG_CACHE_HOME/trex/NAME.HASH.trex
 *    (~/.cache/trex when XDG_CACHE_HOME is unset), HASH being that of
 *    the inputs' real paths.
 * An index file is used only when every input is as it was: same real
 * path, size, modification time and hash of sampled blocks (16 blocks
 * of 4 KiB spread over the file, and its first and last; the whole file
 * for one modified less than 2 s before the load: racy), and the load
 * options that shape the index (input format, execution-graph and
 * ASTRA-sim options) are the same; a load with other options than the
 * defaults keeps its own index file in the cache directory (the options
 * hashed into HASH). A stale, damaged or foreign index file
 * is replaced by a parse, with a one-line note. A set without a fresh
 * index file of its own whose every trace has one (trex index) gets one
 * composed from theirs (trex_index_file_compose), parsing nothing: a job's
 * ranks indexed by its own launcher then open in seconds. Not cached: memory and
 * pipe inputs, execution graphs (Chakra ET, PyTorch host ET, ASTRA-sim
 * workloads; their schedule depends on options), loads with a category
 * file that decides communication (--schema: a callback the cache
 * cannot fingerprint) and --strict loads of damaged input (parsed, so
 * the error is the parse's). */
#ifndef TREX_LOAD_INDEX_CACHE_H
#define TREX_LOAD_INDEX_CACHE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "trex/core/index.h"
#include "trex/core/kernel_summary.h"
#include "trex/core/index_file.h"
#include "trex/core/status.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

enum trex_cache_mode {
	TREX_CACHE_OFF = 0, /* parse; neither read nor write index files */
	TREX_CACHE_USE,     /* read a fresh index file, else parse and write one */
	TREX_CACHE_REBUILD, /* parse and write, whatever is there */
};

/* What the cache did, for the caller to say. */
struct trex_cache_report {
	bool hit;     /* the index came from path */
	bool written; /* the index was parsed and written to path */
	/* the index of a set was written to path from the index files of its
	 * traces (trex_index_file_compose), not parsed (written is set too) */
	bool composed;
	char path[PATH_MAX];
	/* One line when something is worth saying, else "": an index file
	 * refused ("PATH: stale (the trace changed): rebuilt"), or one that
	 * could not be written. */
	char note[PATH_MAX + TREX_ERROR_MSG_MAX + 64];
};

/* trex_load_sources through the cache: sources (moved in, closed on
 * failure too) loaded from a fresh index file, else parsed and, when
 * cacheable, written to one. report may be NULL. Failing to write is
 * not an error (report->note says so). */
enum trex_status trex_cache_load(struct trex_source **sources, size_t count,
                                 const struct trex_load_opts *opts, enum trex_cache_mode mode,
                                 struct trex_cache_report *report, struct trex_index **out,
                                 struct trex_error *err);

/* The index file a load of paths[0..count) uses (first choice when
 * several places are possible and none exists yet) in buf; false when
 * the inputs cannot be cached (not regular files, too long a path). */
bool trex_cache_path(const char *const *paths, size_t count, char *buf, size_t size);

/* A trex_index_file_reopen_fn: the codec named name of the registered
 * formats, reopened over the file at path (user NULL), or at the path
 * user (a struct trex_cache_renames) gives for it. */
struct trex_cache_renames {
	const char *const *recorded; /* paths as the index file recorded them */
	const char *const *now;      /* the same files as named now */
	size_t count;
};
enum trex_status trex_cache_reopen_codec(void *user, const char *path, const char *name,
                                         const void *saved, size_t len,
                                         const struct trex_args_codec **codec, void **ctx,
                                         struct trex_error *err);

/* One trace of a set of ranks, summarised without loading the set:
 * its kernel summary (core/kernel_summary.h) read from its own fresh index
 * file (mode TREX_CACHE_USE), which stays mapped; else the trace loaded
 * whole through the cache (parsed and its index file written, or a fresh
 * index file loaded when the trace lost data, so that the loss can be
 * told from idx), and its summary made from that. rep says what the cache
 * did (rep.note: a refused index file). */
struct trex_cache_rank {
	struct trex_ksum sum;         /* one file */
	struct trex_index_file *file; /* the mapping sum points into, or NULL */
	struct trex_index *idx;       /* the trace loaded whole, or NULL */
	struct trex_cache_report rep;
};
enum trex_status trex_cache_rank_open(const char *path, const struct trex_load_opts *opts,
                                      enum trex_cache_mode mode, struct trex_cache_rank *out,
                                      struct trex_error *err);
void trex_cache_rank_close(struct trex_cache_rank *r);
/* What trex_cache_rank_open(path, opts, TREX_CACHE_USE, out) gives when
 * the trace has a fresh index file of its own (unchanged, its data
 * intact): its kernel summary, read without loading anything. false
 * (out empty) otherwise. */
bool trex_cache_rank_summary(const char *path, const struct trex_load_opts *opts,
                             struct trex_cache_rank *out);

#endif
