/* Input sources: a file (plain or gzip, told apart by magic bytes, never
 * by extension) or a memory buffer, read sequentially at load time and at
 * random offsets later (lazy args, error positions). Files are only ever
 * opened read-only. Offsets are always in decoded (decompressed) bytes. */
#ifndef TREX_LOAD_SOURCE_H
#define TREX_LOAD_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/args.h"
#include "trex/core/status.h"

struct trex_source;

enum trex_status trex_source_open(const char *path, struct trex_source **out,
                                  struct trex_error *err);
/* The same, but reading a pipe or FIFO (which is read whole at open) stops
 * with TREX_CANCELLED once *cancel is non-zero. The signal handler that
 * sets it must be installed without SA_RESTART so a blocked read returns.
 * cancel may be NULL. */
enum trex_status trex_source_open_cancellable(const char *path, volatile sig_atomic_t *cancel,
                                              struct trex_source **out, struct trex_error *err);
/* A source over memory. With copy, the bytes are copied; otherwise data
 * must outlive the source. data may be gzip too. name is used in errors. */
enum trex_status trex_source_open_memory(const char *name, const void *data, size_t len, bool copy,
                                         struct trex_source **out, struct trex_error *err);
void trex_source_close(struct trex_source *src);

const char *trex_source_path(const struct trex_source *src);
bool trex_source_is_gzip(const struct trex_source *src);
uint64_t trex_source_size_on_disk(const struct trex_source *src);

/* Plain sources only: all bytes, mapped (mmap + MADV_SEQUENTIAL for files).
 * NULL for gzip. The mapping lives as long as the source. */
const char *trex_source_map(struct trex_source *src, size_t *len);
/* The loader has read [from, to) of a file's mapping (trex_source_map)
 * and needs it no more for now: its whole pages are unmapped
 * (MADV_DONTNEED). They stay in the page cache, and a later read (lazy
 * args, the chain check, an error's line:col) maps them in again, as the
 * mapping is private and never written. So a parsed trace is not
 * resident twice, and closing the source has little left to unmap. Bytes
 * that are not a file's mapping (memory sources) are left alone. */
void trex_source_map_done(struct trex_source *src, const char *from, const char *to);

/* Up to 64 first decoded bytes, for sniffing; returns how many. A gzip
 * stream that breaks after some bytes gives those (the break is for the
 * reader to report); one that gives none sets err. */
size_t trex_source_peek(struct trex_source *src, unsigned char *buf, size_t max,
                        struct trex_error *err);

/* ---- sequential streaming (any source) ------------------------------------ */

struct trex_stream;

/* Who decodes compressed input ahead of the reader. */
enum trex_stream_ahead {
	TREX_STREAM_INLINE = 0, /* nobody: trex_stream_next decodes what it hands out */
	TREX_STREAM_THREAD = 1, /* a thread of the stream's own, overlapped with parsing */
	/* the caller's threads, through trex_stream_prefetch: a parsing pool
	 * runs it as one of its tasks, so no third thread competes for cores */
	TREX_STREAM_ON_CALL = 2,
};

/* chunk_size: decoded bytes per chunk (e.g. 4 MiB). */
enum trex_status trex_stream_open(struct trex_source *src, size_t chunk_size,
                                  enum trex_stream_ahead ahead, struct trex_stream **out,
                                  struct trex_error *err);

/* TREX_STREAM_ON_CALL: decodes the chunk after those already decoded, on
 * the calling thread, when there is room for it (a few chunks ahead).
 * Any thread may call it, also while another is in trex_stream_next;
 * chunks are decoded one at a time. Returns whether it decoded one. */
bool trex_stream_prefetch(struct trex_stream *st);

/* Next window of decoded bytes. carry: how many bytes at the end of the
 * previous window the caller did not consume; the new window starts with
 * exactly those bytes, followed by fresh data, so an event cut by a chunk
 * boundary is contiguous. *offset is the decoded offset of (*data)[0].
 * *len == carry (no fresh bytes) means end of input. *truncated is set at
 * the end when a gzip stream ended early. Errors: IO, FORMAT (corrupt
 * gzip, with offset), NOMEM. The window stays valid until the next call. */
enum trex_status trex_stream_next(struct trex_stream *st, size_t carry, const char **data,
                                  size_t *len, uint64_t *offset, bool *truncated,
                                  struct trex_error *err);
/* Decoded bytes produced so far (for progress). */
uint64_t trex_stream_position(const struct trex_stream *st);
/* Source bytes (compressed for gzip) consumed to produce them, so progress
 * can be shown against the file's size on disk. */
uint64_t trex_stream_disk_position(const struct trex_stream *st);
/* Once trex_stream_next reported a truncated end: whether the gzip input
 * ended inside a member's header (at its last byte, trex_source_size_on_disk). */
bool trex_stream_header_cut(const struct trex_stream *st);
void trex_stream_close(struct trex_stream *st);

/* ---- random access ------------------------------------------------------------ */

/* Reads up to len decoded bytes at offset into buf; *got receives the count
 * (short at end of input). gzip sources use access points recorded while
 * streaming (every few MiB), so a read costs at most one span of inflate. */
enum trex_status trex_source_read(struct trex_source *src, uint64_t offset, size_t len, char *buf,
                                  size_t *got, struct trex_error *err);

/* 1-based line and byte column of a decoded offset (re-reads from the start;
 * for error messages only). */
enum trex_status trex_source_line_col(struct trex_source *src, uint64_t offset, int64_t *line,
                                      int64_t *col, struct trex_error *err);
/* The same for n offsets in ascending order, in one pass over the input,
 * and disk[i]: for gzip the compressed byte inflate was reading when it
 * produced offset i (inflate buffers its input, so this is within a few
 * KiB), -1 for plain input or an offset past the end. */
enum trex_status trex_source_positions(struct trex_source *src, const uint64_t *offsets, size_t n,
                                       int64_t *line, int64_t *col, int64_t *disk,
                                       struct trex_error *err);

/* Index files (core/index_file.h): the access points recorded so far,
 * as bytes given to put; and the file at path opened again with the
 * points saved[0..len) that save gave, borrowed (saved must outlive the
 * source). Points of another decoder build (zlib, another ISA-L) or that
 * do not check are left out: reads then record them again. */
enum trex_status trex_source_save_points(struct trex_source *src, trex_args_put_fn *put, void *user,
                                         struct trex_error *err);
enum trex_status trex_source_reopen(const char *path, const void *saved, size_t len,
                                    struct trex_source **out, struct trex_error *err);

/* The same as trex_args_codec.save and .reopen, for the codecs whose
 * context is the file's source. */
enum trex_status trex_source_codec_save(void *ctx, trex_args_put_fn *put, void *put_user,
                                        struct trex_error *err);
enum trex_status trex_source_codec_reopen(const char *path, const void *saved, size_t len,
                                          void **ctx, struct trex_error *err);

/* Bytes of memory the source holds beyond mapped file pages (access points). */
size_t trex_source_memory(const struct trex_source *src);

#endif
