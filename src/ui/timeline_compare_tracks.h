/* Track choices that follow across the two runs of `trex A --compare B`
 * (timeline_compare.c): a pin, a fold, a depth limit, a collapsed group,
 * hidden tracks and the track filter made in one run apply to the
 * matching tracks of the other. Runs are matched by name, never by id:
 *   a rank (file)   by its rank;
 *   a process       by its rank and its title (the device, "GPU 0", else
 *                   the process name: pids differ between runs);
 *   a track         by its process and its name ("stream 7", the thread's
 *                   name); threads without a name (the index calls them
 *                   "thread <tid>", and tids differ) by their order;
 * the n-th of several with one key matching the other run's n-th. What has
 * no counterpart keeps its own choices. The matching is pure (no curses):
 * unit-tested. */
#ifndef TREX_UI_TIMELINE_COMPARE_TRACKS_H
#define TREX_UI_TIMELINE_COMPARE_TRACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/core/index.h"

struct timeline_view;

/* Per side (0: A, 1: B) and per file, process and track of that side:
 * its counterpart in the other side, or TREX_NONE. */
struct tl_track_match {
	uint32_t *file[2], *process[2], *track[2];
};

/* Matches a's files, processes and tracks with b's; false when out of
 * memory (m then holds nothing to free). */
bool tl_track_match_init(struct tl_track_match *m, const struct trex_index *a,
                         const struct trex_index *b);
void tl_track_match_free(struct tl_track_match *m);

/* to takes from's choices on every track, process and file to has a
 * counterpart of (of_to: m's maps of to's side), and from's noise setting;
 * a track filter is compiled anew for to, its tracks with a counterpart
 * matching as theirs do. Rows are rebuilt when anything changed; returns
 * whether anything did. */
bool tl_compare_follow_tracks(struct timeline_view *to, const struct timeline_view *from,
                              const struct tl_track_match *m, int to_side);

#endif
