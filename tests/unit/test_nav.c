#include "config.h"

#include <criterion/criterion.h>

#include "trex/ui/nav.h"

/* ---- trex_nav_delta ------------------------------------------------------------------- */

static long delta_of(enum trex_action a, long page, long count)
{
	long d = 12345;

	cr_assert(trex_nav_delta(a, page, count, &d), "%s is a move", trex_action_name(a));
	return d;
}

/* {action, page, delta}: a line, a page, half a page rounded up (so it moves
 * at least one line), the ends as the whole count (100). */
static const struct {
	enum trex_action a;
	long page, delta;
} steps[] = {
    {TREX_ACTION_MOVE_DOWN, 10, 1},       {TREX_ACTION_MOVE_UP, 10, -1},
    {TREX_ACTION_PAGE_DOWN, 10, 10},      {TREX_ACTION_PAGE_UP, 10, -10},
    {TREX_ACTION_HALF_PAGE_DOWN, 10, 5},  {TREX_ACTION_HALF_PAGE_UP, 10, -5},
    {TREX_ACTION_HALF_PAGE_DOWN, 7, 4},   {TREX_ACTION_HALF_PAGE_UP, 7, -4},
    {TREX_ACTION_HALF_PAGE_DOWN, 1, 1},   {TREX_ACTION_HALF_PAGE_UP, 1, -1},
    {TREX_ACTION_HALF_PAGE_DOWN, 22, 11}, {TREX_ACTION_MOVE_FIRST, 10, -100},
    {TREX_ACTION_MOVE_LAST, 10, 100},
};

Test(nav, every_move_has_its_step)
{
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		cr_assert_eq(delta_of(steps[i].a, steps[i].page, 100), steps[i].delta,
		             "%s with page %ld", trex_action_name(steps[i].a), steps[i].page);
}

/* Exactly the eight moves are moves; everything else leaves *delta alone. */
Test(nav, other_actions_are_not_moves)
{
	int moves = 0;

	for (int a = TREX_ACTION_NONE; a < TREX_ACTION_COUNT; a++) {
		long d = 777;

		if (trex_nav_delta((enum trex_action)a, 10, 100, &d)) {
			moves++;
			cr_assert(trex_nav_is_move((enum trex_action)a));
			cr_assert_eq(trex_action_group((enum trex_action)a), TREX_ACTION_GROUP_MOVE,
			             "%s", trex_action_name((enum trex_action)a));
		} else {
			cr_assert_eq(d, 777, "%s wrote the delta",
			             trex_action_name((enum trex_action)a));
			cr_assert_not(trex_nav_is_move((enum trex_action)a));
		}
	}
	cr_assert_eq(moves, 8);
	cr_assert_not(trex_nav_delta(TREX_ACTION_SCROLL_LEFT, 10, 100, &(long){0}));
	cr_assert_not(trex_nav_delta(TREX_ACTION_TRACK_DOWN, 10, 100, &(long){0}));
}

/* ---- trex_nav_clamp ------------------------------------------------------------------- */

Test(nav, clamp_keeps_inside_and_empty_is_zero)
{
	cr_assert_eq(trex_nav_clamp(5, 9), 5);
	cr_assert_eq(trex_nav_clamp(0, 9), 0);
	cr_assert_eq(trex_nav_clamp(9, 9), 9);
	cr_assert_eq(trex_nav_clamp(10, 9), 9);
	cr_assert_eq(trex_nav_clamp(-3, 9), 0);
	cr_assert_eq(trex_nav_clamp(4, -1), 0); /* no rows */
	cr_assert_eq(trex_nav_clamp(-4, -7), 0);
}

/* First and last reach the ends from every position, whatever the size. */
Test(nav, first_and_last_reach_the_ends)
{
	for (long count = 0; count <= 40; count++) {
		long max = count - 1;

		for (long pos = 0; pos < (count ? count : 1); pos++) {
			long first = delta_of(TREX_ACTION_MOVE_FIRST, 5, count);
			long last = delta_of(TREX_ACTION_MOVE_LAST, 5, count);

			cr_assert_eq(trex_nav_clamp(pos + first, max), 0, "%ld of %ld", pos, count);
			cr_assert_eq(trex_nav_clamp(pos + last, max), count ? count - 1 : 0,
			             "%ld of %ld", pos, count);
		}
	}
}

/* Paging down a 30-row list by 9 stops at 9, 18, 27, then the last row;
 * paging up comes back by the same steps. */
Test(nav, pages_walk_a_list_and_stop_at_the_end)
{
	static const long down[] = {9, 18, 27, 29, 29}, up[] = {20, 11, 2, 0, 0};
	long pos = 0;

	for (size_t i = 0; i < 5; i++) {
		pos = trex_nav_clamp(pos + delta_of(TREX_ACTION_PAGE_DOWN, 9, 30), 29);
		cr_assert_eq(pos, down[i], "step %zu", i);
	}
	for (size_t i = 0; i < 5; i++) {
		pos = trex_nav_clamp(pos + delta_of(TREX_ACTION_PAGE_UP, 9, 30), 29);
		cr_assert_eq(pos, up[i], "step %zu", i);
	}
}

/* ---- trex_nav_follow ------------------------------------------------------------------ */

/* {top, pos, h, count} -> the new top, worked out by hand for a body of h. */
static const struct {
	size_t top, pos;
	int h;
	size_t count, want;
} follows[] = {
    {0, 5, 10, 100, 0},    /* on screen: stays */
    {0, 10, 10, 100, 1},   /* one below: scrolls one */
    {20, 5, 10, 100, 5},   /* above: comes to the top */
    {0, 99, 10, 100, 90},  /* the last row at the bottom */
    {95, 97, 10, 100, 90}, /* no blank lines after the last row */
    {3, 2, 10, 5, 0},      /* fewer rows than the body: from the first */
    {0, 0, 10, 0, 0},      /* no rows */
    {4, 7, 0, 100, 7},     /* no body yet: one row */
    {4, 7, -3, 100, 7},
};

Test(nav, follow_keeps_the_line_in_the_body)
{
	for (size_t i = 0; i < sizeof(follows) / sizeof(follows[0]); i++)
		cr_assert_eq(
		    trex_nav_follow(follows[i].top, follows[i].pos, follows[i].h, follows[i].count),
		    follows[i].want, "case %zu", i);
}
