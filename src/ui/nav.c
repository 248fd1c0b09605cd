#include "config.h"

#include "trex/ui/nav.h"

bool trex_nav_delta(enum trex_action a, long page, long count, long *delta)
{
	switch (a) {
	case TREX_ACTION_MOVE_DOWN:
		*delta = 1;
		return true;
	case TREX_ACTION_MOVE_UP:
		*delta = -1;
		return true;
	case TREX_ACTION_PAGE_DOWN:
		*delta = page;
		return true;
	case TREX_ACTION_PAGE_UP:
		*delta = -page;
		return true;
	case TREX_ACTION_HALF_PAGE_DOWN:
		*delta = (page + 1) / 2;
		return true;
	case TREX_ACTION_HALF_PAGE_UP:
		*delta = -(page + 1) / 2;
		return true;
	case TREX_ACTION_MOVE_FIRST:
		*delta = -count;
		return true;
	case TREX_ACTION_MOVE_LAST:
		*delta = count;
		return true;
	default:
		return false;
	}
}

bool trex_nav_is_move(enum trex_action a)
{
	long delta;

	return trex_nav_delta(a, 1, 1, &delta);
}

size_t trex_nav_follow(size_t top, size_t pos, int h, size_t count)
{
	size_t rows = h > 0 ? (size_t)h : 1;

	if (pos < top)
		top = pos;
	if (pos >= top + rows)
		top = pos - rows + 1;
	if (top + rows > count)
		top = count > rows ? count - rows : 0;
	return top;
}

long trex_nav_clamp(long pos, long max)
{
	if (pos > max)
		pos = max;
	return pos < 0 ? 0 : pos;
}
