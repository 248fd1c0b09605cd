/* Cursor movement shared by the views: how far move-down/up, page-down/up,
 * half-page-down/up and move-first/last go. Pure arithmetic, no curses: each
 * view keeps its own page height (what "one screen" is there) and its own
 * range of positions, and applies the delta through trex_nav_clamp(). */
#ifndef TREX_UI_NAV_H
#define TREX_UI_NAV_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/ui/action.h"

/* The signed step for action a: +-1 for a line, +-page for a screen,
 * +-(page + 1) / 2 for half a screen, -count / +count for the first / last
 * line (enough to reach either end from any position in 0..count once
 * clamped). false, *delta untouched, when a is not one of these moves.
 * page is the view's page height in lines (at least 1 makes sense). */
bool trex_nav_delta(enum trex_action a, long page, long count, long *delta);

/* Is a one of those moves? (for a view's supports()) */
bool trex_nav_is_move(enum trex_action a);

/* pos limited to 0..max; a negative max (nothing to move over) gives 0. */
long trex_nav_clamp(long pos, long max);

/* The first line to show (from top) so that line pos is inside a body of h
 * lines (h < 1 counts as 1): scrolled as little as possible, and never past
 * the point where the last of count lines is at the bottom. */
size_t trex_nav_follow(size_t top, size_t pos, int h, size_t count);

#endif
