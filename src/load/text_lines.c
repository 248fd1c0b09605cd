#include "config.h"

#include "text_lines.h"

#include <string.h>

#define DEFAULT_WINDOW (16u << 20)

enum trex_status text_lines_open(struct text_lines *tl, struct trex_source *src, size_t window,
                                 struct trex_error *err)
{
	memset(tl, 0, sizeof(*tl));
	trex_error_clear(&tl->corrupt);
	return trex_stream_open(src, window ? window : DEFAULT_WINDOW, TREX_STREAM_THREAD, &tl->st,
	                        err);
}

/* Moves to the next window, keeping the unread bytes; false at the end. */
static bool next_window(struct text_lines *tl, struct trex_error *err)
{
	size_t carry = tl->len - tl->pos;
	bool truncated = false;

	const char *data;
	size_t len;
	uint64_t offset;
	enum trex_status s;

	if (tl->ended)
		return false;
	s = trex_stream_next(tl->st, carry, &data, &len, &offset, &truncated, &tl->corrupt);
	if (s == TREX_FORMAT) {
		/* corrupt gzip: the input ends where it broke, after the carried bytes
		 * (as the trace loader does, chrome_load.c) */
		tl->ended = tl->truncated = true;
		return true;
	}
	if (s != TREX_OK) {
		*err = tl->corrupt;
		trex_error_clear(&tl->corrupt);
		return false;
	}
	tl->data = data;
	tl->len = len;
	tl->offset = offset;
	tl->pos = 0;
	tl->truncated = truncated;
	if (tl->len == carry)
		tl->ended = true; /* nothing fresh: what is left is the last line */
	return true;
}

static void take(struct text_lines *tl, struct text_line *line, size_t len, bool newline)
{
	const char *p = tl->data + tl->pos;

	line->p = p;
	line->len = len && newline && p[len - 1] == '\r' ? len - 1 : len;
	line->offset = tl->offset + tl->pos;
	line->number = ++tl->number;
	line->newline = newline;
	tl->pos += len + newline;
}

/* A line longer than a window makes the stream's next window longer (it
 * always holds the carried bytes and fresh ones after them). */
bool text_lines_next(struct text_lines *tl, struct text_line *line, struct trex_error *err)
{
	for (;;) {
		size_t rest = tl->len - tl->pos;
		/* no pointer arithmetic on the NULL data of empty input */
		const char *nl = rest ? memchr(tl->data + tl->pos, '\n', rest) : NULL;

		if (nl) {
			take(tl, line, (size_t)(nl - (tl->data + tl->pos)), true);
			return true;
		}
		if (tl->ended) {
			if (!rest)
				return false;
			take(tl, line, rest, false);
			return true;
		}
		if (!next_window(tl, err) && !tl->ended)
			return false;
	}
}

uint64_t text_lines_position(const struct text_lines *tl)
{
	return tl->offset + tl->pos;
}

uint64_t text_lines_disk_position(const struct text_lines *tl)
{
	return trex_stream_disk_position(tl->st);
}

void text_lines_close(struct text_lines *tl)
{
	trex_stream_close(tl->st);
	tl->st = NULL;
}
