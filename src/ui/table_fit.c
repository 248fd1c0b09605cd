#include "config.h"

#include "trex/ui/table_fit.h"

#include <stdbool.h>

#define NO_COL ((size_t)-1)
#define MARKER_TEXT_COLS 7 /* "◂ " and " more" around the count */
#define NAME_TRIES 4       /* the name's least width grows with the marker's digits */

int trex_fit_marker_width(size_t n)
{
	int w = MARKER_TEXT_COLS;

	do {
		w++;
		n /= 10;
	} while (n);
	return w;
}

static size_t name_col(const struct trex_fit_spec *s)
{
	for (size_t c = 0; c < s->ncols; c++) {
		if (s->cols[c].role == TREX_FIT_NAME)
			return c;
	}
	return NO_COL;
}

static size_t scroll_count(const struct trex_fit_spec *s)
{
	size_t n = 0;

	for (size_t c = 0; c < s->ncols; c++)
		n += s->cols[c].role == TREX_FIT_SCROLL;
	return n;
}

static void put(struct trex_fit *o, size_t c, int x, int w)
{
	if (w > 0) {
		o->x[c] = x;
		o->w[c] = w;
	}
}

/* The pinned columns from x; returns where the next column goes. */
static int place_pinned(const struct trex_fit_spec *s, struct trex_fit *o, int x)
{
	for (size_t c = 0; c < s->ncols; c++) {
		int w = s->cols[c].width;

		if (s->cols[c].role != TREX_FIT_PINNED)
			continue;
		w = w < s->width - x ? w : s->width - x;
		if (w <= 0)
			break;
		put(o, c, x, w);
		x += w + s->gap;
	}
	return x;
}

/* Without a name column the right marker needs its own room, a full gap
 * away from the last title so that it never reads as part of it: the last
 * columns give it up. */
static void make_room_right(const struct trex_fit_spec *s, struct trex_fit *o)
{
	for (size_t c = s->ncols; o->right && c-- > 0;) {
		if (s->cols[c].role != TREX_FIT_SCROLL || o->w[c] < 0)
			continue;
		if (o->x[c] + o->w[c] + s->gap + trex_fit_marker_width(o->right) <= s->width)
			break;
		o->x[c] = o->w[c] = -1;
		o->right++;
	}
}

/* Where the first scrolling column must end: the name may give up room
 * down to name_floor (still holding its title and a marker). */
static int first_limit(const struct trex_fit_spec *s, size_t name, int limit)
{
	int keep;

	if (name == NO_COL || s->name_floor <= 0)
		return limit;
	keep = s->cols[name].title + 1 + trex_fit_marker_width(s->ncols);
	keep = keep > s->name_floor ? keep : s->name_floor;
	return s->width - keep > limit ? s->width - keep : limit;
}

/* One placement from scroll position first, the name keeping name_min. */
static void place(const struct trex_fit_spec *s, size_t first, int name_min, struct trex_fit *o)
{
	size_t name = name_col(s), skipped = 0, placed = 0;
	int x, limit = s->width - (name != NO_COL ? name_min : 0);
	bool full = false;

	for (size_t c = 0; c < s->ncols; c++)
		o->x[c] = o->w[c] = -1;
	o->first = o->left = first;
	o->right = 0;
	o->left_x = o->right_x = -1;
	x = place_pinned(s, o, s->margin);
	if (first > 0) {
		o->left_x = x < s->width ? x : -1;
		x += trex_fit_marker_width(first) + s->gap;
	}
	for (size_t c = 0; c < s->ncols; c++) {
		if (s->cols[c].role != TREX_FIT_SCROLL || skipped++ < first)
			continue;
		full =
		    full || x + s->cols[c].width > (placed ? limit : first_limit(s, name, limit));
		if (full) {
			o->right++;
			continue;
		}
		put(o, c, x, s->cols[c].width);
		x += s->cols[c].width + s->gap;
		placed++;
	}
	if (name != NO_COL && x < s->width)
		put(o, name, x, s->width - x);
	else if (name == NO_COL)
		make_room_right(s, o);
	if (o->right && s->width - trex_fit_marker_width(o->right) >= s->margin)
		o->right_x = s->width - trex_fit_marker_width(o->right);
}

/* place(), the name's least width grown until its title and the right
 * marker both fit in its header. */
static void place_with_name(const struct trex_fit_spec *s, size_t first, struct trex_fit *o)
{
	size_t name = name_col(s);
	int name_min = name != NO_COL ? s->cols[name].width : 0;

	for (int i = 0; i < NAME_TRIES; i++) {
		int need;

		place(s, first, name_min, o);
		if (name == NO_COL || !o->right)
			return;
		need = s->cols[name].title + 1 + trex_fit_marker_width(o->right);
		if (name_min >= need)
			return;
		name_min = need;
	}
}

void trex_fit_columns(const struct trex_fit_spec *s, struct trex_fit *o)
{
	size_t n = scroll_count(s);
	size_t first = s->first < n ? s->first : (n ? n - 1 : 0);

	place_with_name(s, first, o);
	/* everything up to the last column shows: scroll back while that stays so */
	while (!o->right && first > 0) {
		place_with_name(s, first - 1, o);
		if (o->right) {
			place_with_name(s, first, o);
			break;
		}
		first--;
	}
}
