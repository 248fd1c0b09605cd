/* Lines of a text input (plain or gzip), for the loaders of text formats:
 * each line with its byte offset and 1-based number, read through a
 * trex_stream so that gzip input needs no more memory than its window.
 * Private to src/load. */
#ifndef TREX_LOAD_TEXT_LINES_H
#define TREX_LOAD_TEXT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"
#include "trex/load/source.h"

struct text_line {
	const char *p; /* the line without its '\n' (and without a '\r' before it) */
	size_t len;
	uint64_t offset; /* decoded byte offset of p[0] */
	int64_t number;  /* 1-based */
	bool newline;    /* false: the input ended inside this line */
};

struct text_lines {
	struct trex_stream *st;
	const char *data;
	size_t len, pos;
	uint64_t offset; /* of data[0] */
	int64_t number;
	bool ended, truncated;
	struct trex_error corrupt; /* status FORMAT: where a gzip stream broke */
};

/* Opens src for reading lines in windows of window bytes (0: 16 MiB). */
enum trex_status text_lines_open(struct text_lines *tl, struct trex_source *src, size_t window,
                                 struct trex_error *err);
/* The next line: true with *line filled, false at the end of input or on
 * an error (err->status set: IO, NOMEM). At the end, tl->truncated says
 * whether a gzip stream ended early, and tl->corrupt (status FORMAT) where
 * one broke: the input then ends there. Valid until the next call. */
bool text_lines_next(struct text_lines *tl, struct text_line *line, struct trex_error *err);
/* Decoded bytes consumed so far, and the bytes on disk read for them. */
uint64_t text_lines_position(const struct text_lines *tl);
uint64_t text_lines_disk_position(const struct text_lines *tl);
void text_lines_close(struct text_lines *tl);

#endif
