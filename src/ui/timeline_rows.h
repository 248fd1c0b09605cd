/* The timeline's rows: rank -> process -> track lanes, with collapsible
 * group headers. Built from the index and the collapsed flags; O(tracks). */
#ifndef TREX_UI_TIMELINE_ROWS_H
#define TREX_UI_TIMELINE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"

struct trex_search;

/* TL_ROW_COUNTER: one counter series (id: its track), drawn as a sparkline.
 * TL_ROW_INSTANTS: every instant of a track (id: the track), as ticks, under
 * the track's lanes; slices hide nothing there. */
enum tl_row_kind { TL_ROW_FILE, TL_ROW_PROCESS, TL_ROW_LANE, TL_ROW_COUNTER, TL_ROW_INSTANTS };

struct tl_row {
	uint8_t kind; /* enum tl_row_kind */
	uint32_t id;  /* file, process or lane id */
};

struct tl_rows {
	struct tl_row *v;
	size_t n, cap;
	bool *file_collapsed;    /* per file */
	bool *process_collapsed; /* per process */
	/* Set before tl_rows_build: only lanes with a match (and processes
	 * holding one) get rows; counters and instants are left out. NULL:
	 * everything. */
	const struct trex_search *filter;
	double *counter_min, *counter_max; /* per track: the series' range */
};

/* Allocates the collapsed flags (all expanded) and builds the rows.
 * Returns false when out of memory. */
bool tl_rows_init(struct tl_rows *r, const struct trex_index *idx);
/* Rebuilds the rows after a collapsed flag changed. */
bool tl_rows_build(struct tl_rows *r, const struct trex_index *idx);
void tl_rows_free(struct tl_rows *r);
/* The row index of (kind, id), or the closest row before it; 0 if none. */
size_t tl_rows_find(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id);
/* The row index of (kind, id), or r->n when it has no row. */
size_t tl_rows_lookup(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id);

#endif
