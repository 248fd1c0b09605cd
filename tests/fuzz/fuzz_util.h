/* What the fuzz targets share: loading a trace from memory and reading
 * every cell of a table (so that uninitialised cells would show under
 * the sanitizers). Header-only: each target is compiled on its own by
 * tests/fuzz/run.sh. */
#ifndef TREX_FUZZ_UTIL_H
#define TREX_FUZZ_UTIL_H

#include <stddef.h>

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
