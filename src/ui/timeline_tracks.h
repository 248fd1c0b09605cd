/* The timeline's track actions (timeline_tracks.c): the track finder, the
 * track filter, pinned, folded and depth-limited tracks, hidden noise
 * tracks. Called from the view's dispatch (timeline_view.c); the rows
 * themselves are timeline_rows.c's. */
#ifndef TREX_UI_TIMELINE_TRACKS_H
#define TREX_UI_TIMELINE_TRACKS_H

#include <stdbool.h>
#include <stddef.h>

#include "timeline_view.h"

/* FIND_TRACK, FILTER_TRACKS, PIN_TRACK, COLLAPSE_TRACK, DEPTH_LESS,
 * DEPTH_MORE, TOGGLE_HIDDEN. */
bool tl_tracks_supports(enum trex_action a);
void tl_tracks_action(struct timeline_view *tv, enum trex_action a);
/* The status line's word on what show-hidden hides ("104 empty or
 * marker-only tracks and groups hidden; H shows them"); nothing when none. */
void tl_tracks_say_hidden(struct timeline_view *tv);
/* Drops the track filter (rows rebuilt); false when there was none. */
bool tl_tracks_drop_filter(struct timeline_view *tv);
/* Appends "  TRACKS: pat" to the status text while a track filter is set. */
void tl_tracks_status(struct timeline_view *tv, char *buf, size_t size);
/* Frees the patterns (view teardown). */
void tl_tracks_free(struct timeline_view *tv);

#endif
