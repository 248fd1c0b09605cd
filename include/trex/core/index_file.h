/* Index files (.trex): a frozen index (index.h) written once and mapped
 * back in, so that reopening a trace parses nothing.
 *
 * The file is the index's own arrays as they lie in memory: a header
 * (magic, version, byte order and a fingerprint of the record layouts, the
 * counts, a checksum of itself and of the section table), a table of
 * sections (offset, length, checksum) and the sections, each 64-byte
 * aligned: strings (arena, offsets, hash slots), files with their
 * integrity counters, link ranges, processes, tracks, lanes, slices,
 * instants, flows, counter samples, the launch and op link tables, the
 * flow and dependency orders, integrity examples, per file what its args
 * codec needs to read args back (gzip access points, an args store), an
 * identity blob the caller writes and checks (which inputs, as they
 * were), and the per-file kernel summary the caller gives (empty when it
 * gives none; core/kernel_summary.h), which can be read without loading
 * the index (trex_index_file_kernel_summary). Opening checks the header, every section's checksum
 * and every id an array holds, then points the index's arrays into the mapping: only the files, the
 * examples' list heads and block directories are copied.
 *
 * Execution-graph inputs (trex_index_graph) are not written: their graph
 * store is rebuilt by scheduling, which the file does not hold
 * (trex_index_file_supported says so). */
#ifndef TREX_CORE_INDEX_FILE_H
#define TREX_CORE_INDEX_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/args.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

#define TREX_INDEX_FILE_VERSION 4

/* Whether idx can be written to an index file; false with *why (a static
 * phrase: "execution graphs are not cached", ...) when not. */
bool trex_index_file_supported(const struct trex_index *idx, const char **why);

/* Writes idx to path atomically (a temporary file in the same directory,
 * renamed over path), with identity[0..identity_len) as its identity
 * section. USAGE when trex_index_file_supported says no; IO with the
 * path and errno's words otherwise. */
enum trex_status trex_index_file_write(const struct trex_index *idx, const char *path,
                                       const void *identity, size_t identity_len,
                                       struct trex_error *err);

/* trex_index_file_write with summary[0..summary_len) as the kernel
 * summary section (trex_ksum_encode of the same index). */
enum trex_status trex_index_file_write_summary(const struct trex_index *idx, const char *path,
                                               const void *identity, size_t identity_len,
                                               const void *summary, size_t summary_len,
                                               struct trex_error *err);

/* Writes to path atomically the index file of the indexes parts[0..n)
 * loaded together, each part's files following the previous part's: what
 * a load of their traces as one set writes, made without parsing. The
 * caller orders the parts as such a load orders its files (by rank,
 * trex_load_assign_ranks) and gives each composed file its rank in that
 * load (ranks[file], NULL: as the parts hold them); a process without a
 * rank of its own takes its file's. Strings are pooled and every id moved
 * past the parts before it; records are streamed, so memory holds only
 * the pooled strings and per-part maps. No kernel summary is written (a
 * set's is read from each trace's own file). USAGE when a part cannot be
 * written (trex_index_file_supported) or the set has 2^32 - 1 records of
 * one kind or more; IO as trex_index_file_write. */
enum trex_status trex_index_file_compose(const struct trex_index *const *parts, size_t n,
                                         const int64_t *ranks, const char *path,
                                         const void *identity, size_t identity_len,
                                         struct trex_error *err);

/* A mapped index file whose header and section table checked. */
struct trex_index_file;

/* Maps path and checks its header, section table and identity section;
 * FORMAT with a one-line reason ("not a trex index file", "index file
 * version 2, this trex reads 1", "truncated", "damaged header", ...)
 * when it is not one this trex can read. */
enum trex_status trex_index_file_map(const char *path, struct trex_index_file **out,
                                     struct trex_error *err);
/* The same over len bytes at data, which must outlive the index file (and
 * an index loaded from it); name is used in messages. For tests and
 * fuzzing. */
enum trex_status trex_index_file_map_memory(const char *name, const void *data, size_t len,
                                            struct trex_index_file **out, struct trex_error *err);
/* The identity the writer gave, as written (*len its length). */
const void *trex_index_file_identity(const struct trex_index_file *f, size_t *len);
void trex_index_file_close(struct trex_index_file *f);
/* The kernel summary section as written (*len 0: none was), after checking
 * its checksum: FORMAT "damaged index file (kernel summary)" when it does
 * not match. Reads nothing else of the file. */
enum trex_status trex_index_file_kernel_summary(const struct trex_index_file *f, const void **data,
                                                size_t *len, struct trex_error *err);

/* Gives a file (path: as the index recorded it) an args codec again:
 * *codec and *ctx for the codec called name, from what its save hook
 * wrote (saved[0..len), in the mapping, which outlives the context). */
typedef enum trex_status trex_index_file_reopen_fn(void *user, const char *path, const char *name,
                                                   const void *saved, size_t len,
                                                   const struct trex_args_codec **codec, void **ctx,
                                                   struct trex_error *err);

/* The index in f: checks every section's checksum and every id and range
 * the arrays hold (FORMAT "damaged ..." when one does not), then points
 * the index into the mapping and reopens each file's codec through reopen
 * (NULL: files get no codec, their args cannot be read). Takes f over,
 * also on failure: it is closed with the index (trex_index_free). */
enum trex_status trex_index_file_load(struct trex_index_file *f, trex_index_file_reopen_fn *reopen,
                                      void *user, struct trex_index **out, struct trex_error *err);

/* For an index loaded from a mapped index file: hands back the pages of
 * the mapping that reading it made resident, as trex_index_file_load's
 * checks read every section. The interface calls it once its timeline is
 * laid out, so what stays resident is what the views read afterwards, not
 * the whole file; the bytes read the same afterwards. Nothing for a built
 * index, a memory image, or an index whose clocks were fixed
 * (trex_index_fix_clocks writes into its mapping). */
void trex_index_hand_back(const struct trex_index *idx);

/* For an index opened from an index file whose input is named otherwise
 * now (./a.json, a path relative to another directory): file's path
 * becomes path, as a parse of it would have it. */
enum trex_status trex_index_rename_file(struct trex_index *idx, uint32_t file, const char *path,
                                        struct trex_error *err);

/* Bytes of the index file an index was opened from, 0 for a built index. */
uint64_t trex_index_file_bytes(const struct trex_index *idx);

#endif
