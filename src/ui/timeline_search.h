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
/* The next (dir > 0) or previous match on the drawn rows from the
 * selection (else the cursor), not wrapping; with from_end the first
 * (dir > 0) or last of them. TREX_NONE when there is none or no search. */
uint32_t tl_search_find(struct timeline_view *tv, int dir, bool from_end);
/* Quietly gives tv the filter and search patterns of from, compiled over
 * tv's run (rows rebuilt when the filter changes): with --compare the run
 * the keys do not go to follows the other. */
void tl_search_follow(struct timeline_view *tv, const struct timeline_view *from);
/* Frees the searches (view teardown). */
void tl_search_free(struct timeline_view *tv);
/* ops->mouse: click selects, wheel scrolls tracks, Shift+wheel pans,
 * Ctrl+wheel zooms around the pointer. */
enum trex_handled tl_mouse(struct trex_view *v, int y, int x, unsigned long bstate);

#endif
