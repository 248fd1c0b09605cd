/* Event arguments, whatever the format: the index keeps one opaque
 * reference per event (trex_args_ref) and, per file, the codec its loader
 * supplied to read them back on request (a details pane, an export, an
 * analysis that needs one value). Each format has one codec (JSON for
 * Chrome traces); the core never looks inside a reference.
 *
 * Decoded args are (key, value) text pairs: strings as their text,
 * numbers and true/false/null as written, nested objects and arrays as
 * compact JSON text. */
#ifndef TREX_CORE_ARGS_H
#define TREX_CORE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"

/* What the file's codec needs to find one event's args again. */
typedef uint64_t trex_args_ref;
#define TREX_ARGS_NONE ((trex_args_ref)0) /* the event has no args */

struct trex_arg {
	const char *key;
	const char *value;
};

struct trex_args {
	struct trex_arg *v;
	size_t n;
	char *buf; /* holds every key and value */
};

void trex_args_free(struct trex_args *a);

/* One args object of a batch, for trex_args_codec.decode_each: read in
 * the codec's order, reported with its index in the batch. */
typedef enum trex_status trex_args_each_fn(void *user, size_t i, const struct trex_args *args,
                                           struct trex_error *err);

/* One args object of a batch as the JSON object text the file holds
 * (text[0..len), not NUL-terminated, valid during the call), for
 * trex_args_codec.json_each. */
typedef enum trex_status trex_args_json_fn(void *user, size_t i, const char *text, size_t len,
                                           struct trex_error *err);

/* Takes len bytes for an index file (core/index_file.h); false when it
 * cannot (out of memory, or the file's write failed: the writer then
 * reports that failure, whatever status save returns). */
typedef bool trex_args_put_fn(void *user, const void *bytes, size_t len);

/* How the index reads a file back, supplied by the file's loader; ctx is
 * the loader's (the open source, for one) and the index owns it. */
struct trex_args_codec {
	const char *name; /* "json" */
	/* Decodes one reference (TREX_ARGS_NONE: n = 0). *truncated (may be
	 * NULL) says whether the args ended before they were complete. */
	enum trex_status (*decode)(void *ctx, trex_args_ref ref, struct trex_args *out,
	                           bool *truncated, struct trex_error *err);
	/* The args as one compact JSON object text, malloc'd, NUL-terminated
	 * (*out NULL, *len 0 for none). */
	enum trex_status (*json)(void *ctx, trex_args_ref ref, char **out, size_t *len,
	                         struct trex_error *err);
	/* Decodes refs[0..n) (none TREX_ARGS_NONE), each reported to fn, in
	 * whatever order reads the file best; NULL: the index calls decode
	 * once per reference, in the given order. */
	enum trex_status (*decode_each)(void *ctx, const trex_args_ref *refs, size_t n,
	                                trex_args_each_fn *fn, void *user, struct trex_error *err);
	/* For messages: 1-based line and column of decoded byte offsets (in
	 * ascending order) and the compressed byte behind each (-1 if none);
	 * NULL for a format without lines. */
	enum trex_status (*positions)(void *ctx, const uint64_t *offsets, size_t n, int64_t *line,
	                              int64_t *col, int64_t *disk, struct trex_error *err);
	size_t (*memory)(const void *ctx); /* bytes held, for memory statistics */
	void (*close)(void *ctx);
	/* Like decode_each, each object as json gives it; NULL: the index
	 * calls json once per reference instead. */
	enum trex_status (*json_each)(void *ctx, const trex_args_ref *refs, size_t n,
	                              trex_args_json_fn *fn, void *user, struct trex_error *err);
	/* Index files (core/index_file.h): what reading args back needs beyond
	 * the source file itself (gzip access points, an args store), given to
	 * put; NULL: files of this codec are not cached. */
	enum trex_status (*save)(void *ctx, trex_args_put_fn *put, void *put_user,
	                         struct trex_error *err);
	/* A context over the source file at path again, from what save gave
	 * (saved[0..len), which outlives the context: it lies in the index
	 * file's mapping). Must not trust saved beyond its checksum: checks
	 * what it reads. */
	enum trex_status (*reopen)(const char *path, const void *saved, size_t len, void **ctx,
	                           struct trex_error *err);
};

#endif
