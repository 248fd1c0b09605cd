/* The timeline's search, filter and mouse (timeline_search.c), called from
 * the view's dispatch (timeline_view.c). */
#ifndef TREX_UI_TIMELINE_SEARCH_H
#define TREX_UI_TIMELINE_SEARCH_H

#include "timeline_view.h"

/* SEARCH, NEXT_MATCH, PREV_MATCH, FILTER. */
void tl_search_action(struct timeline_view *tv, enum trex_action a);
/* CLEAR: the selection, else the search highlight, else the filter, one per call. */
void tl_search_clear(struct timeline_view *tv);
/* Drops the filter (the search is redone over everything), for a slice
 * the filter hides that must be shown. */
void tl_search_drop_filter(struct timeline_view *tv);
/* Frees the searches (view teardown). */
void tl_search_free(struct timeline_view *tv);
/* ops->mouse: click selects, wheel scrolls tracks, Shift+wheel pans,
 * Ctrl+wheel zooms around the pointer. */
enum trex_handled tl_mouse(struct trex_view *v, int y, int x, unsigned long bstate);

#endif
