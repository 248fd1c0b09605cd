/* The timeline view's state, shared by its actions (timeline_view.c) and
 * its drawing (timeline_draw.c). */
#ifndef TREX_UI_TIMELINE_VIEW_H
#define TREX_UI_TIMELINE_VIEW_H

#include <stdint.h>

#include "timeline_rows.h"
#include "trex/ui/view.h"

#define TL_ZOOM_STACK 64

struct tl_window {
	int64_t t0, span;
};

struct timeline_view {
	struct trex_view base;
	struct tl_rows rows;
	size_t cur_row, top_row;
	int body_h, cols;     /* from the last layout */
	struct tl_window win; /* visible time window */
	int64_t cursor;       /* cursor time, ns */
	uint32_t selected;    /* slice id or TREX_NONE */
	struct tl_window zoom_stack[TL_ZOOM_STACK];
	int zoom_depth;
	uint32_t *cell_slice; /* per column of a lane row: single slice, or TREX_NONE */
	int cell_cap;
};

void timeline_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay);

/* The role a slice is drawn in (by its category and name). */
enum trex_role timeline_slice_role(const struct trex_index *idx, const struct trex_slice *s);

#endif
