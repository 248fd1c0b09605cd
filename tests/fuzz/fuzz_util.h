/* What the fuzz targets share: loading a trace from memory and reading
 * every cell of a table (so that uninitialised cells would show under
 * the sanitizers). Header-only: each target is compiled on its own by
 * tests/fuzz/run.sh. */
#ifndef TREX_FUZZ_UTIL_H
#define TREX_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

/* The index of size bytes at data read as the trace file name, or NULL. */
static inline struct trex_index *fuzz_load_trace(const char *name, const void *data, size_t size)
{
	struct trex_load_opts opts = {.threads = 1};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;

	if (trex_source_open_memory(name, data, size, false, &src, &err) != TREX_OK)
		return NULL;
	return trex_load_sources(&src, 1, &opts, &idx, &err) == TREX_OK ? idx : NULL;
}

/* The index of size bytes at data read as format (a trex_format name) with
 * the given loader options (opts->format is set), or NULL. */
static inline struct trex_index *fuzz_load_as(const char *name, const void *data, size_t size,
                                              struct trex_load_opts opts, const char *format)
{
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;

	opts.format = format;
	if (trex_source_open_memory(name, data, size, false, &src, &err) != TREX_OK)
		return NULL;
	return trex_load_sources(&src, 1, &opts, &idx, &err) == TREX_OK ? idx : NULL;
}

/* Reads every slice's args back as JSON through its file's codec; a sum
 * of what was read (to keep the reads). */
static inline size_t fuzz_touch_args(const struct trex_index *idx)
{
	struct trex_error err;
	size_t sum = 0;

	for (uint32_t i = 0; idx && i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint32_t file = trex_index_track_file(idx, s->track);
		char *json = NULL;
		size_t len = 0;
		if (trex_index_args_json(idx, file, s->args, &json, &len, &err) == TREX_OK)
			sum += len + (json ? (size_t)json[0] : 0);
		free(json);
	}
	return sum;
}

/* Reads every cell and the note of t when st is TREX_OK, then frees t. */
static inline void fuzz_touch_table(struct trex_table *t, enum trex_status st)
{
	char sum = 0;

	if (st != TREX_OK)
		return;
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const union trex_cell *cell = trex_table_cell(t, r, c);

			sum ^= t->cols[c].type == TREX_COL_TEXT ? (cell->text ? cell->text[0] : 0)
			                                        : (char)cell->count;
		}
	}
	sum ^= t->note ? t->note[0] : 0;
	(void)sum;
	trex_table_free(t);
}

#endif
