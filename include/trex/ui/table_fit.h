/* Which columns of a table view fit a width, and where: pinned columns on
 * the left in table order, then the scrolling columns from the scroll
 * position on, as many as fit in table order (the analyses put the most
 * used first), then a name column that takes what is left. Also how many
 * scrolling columns are off screen on each side, for the "◂ N more" and
 * "N more ▸" markers of the header row. Pure arithmetic, no curses
 * (test_table_fit.c). */
#ifndef TREX_UI_TABLE_FIT_H
#define TREX_UI_TABLE_FIT_H

#include <stddef.h>

enum trex_fit_role {
	TREX_FIT_SCROLL, /* scrolls sideways */
	TREX_FIT_PINNED, /* stays on the left, before the scrolling columns */
	TREX_FIT_NAME,   /* after the scrolling columns, takes what is left */
	TREX_FIT_OFF,    /* never shown (hidden by the user); not counted as "more" */
};

struct trex_fit_col {
	enum trex_fit_role role;
	int width; /* wanted width; for TREX_FIT_NAME the least it keeps */
	int title; /* display width of the title (NAME: "N more ▸" goes after it) */
};

struct trex_fit_spec {
	const struct trex_fit_col *cols;
	size_t ncols; /* at most one of them TREX_FIT_NAME */
	int width;    /* screen columns */
	int margin;   /* blank columns on the left (the mark gutter) */
	int gap;      /* blank columns between two columns */
	size_t first; /* scrolling columns scrolled off on the left (the scroll position) */
	/* The least a name column may shrink to, below its own width, so that
	 * one scrolling column shows on a narrow screen; 0: never below. */
	int name_floor;
};

struct trex_fit {
	int *x, *w;          /* the caller's arrays of ncols: screen x and width, -1: not shown */
	size_t first;        /* the scroll position used (see trex_fit_columns) */
	size_t left, right;  /* scrolling columns off screen on the left, on the right */
	int left_x, right_x; /* where "◂ N more" and "N more ▸" start; -1: no marker */
};

/* Display width of a marker for n columns ("◂ 3 more", "3 more ▸"). */
int trex_fit_marker_width(size_t n);

/* Places spec's columns. The scroll position used is spec->first, made
 * smaller while that shows no fewer columns, so that scrolling never
 * leaves blank room on the right while columns are off on the left (also
 * after the screen grows); out->right == 0 means there is nothing more to
 * scroll to. Room is kept for the markers: the left one after the pinned
 * columns, the right one ending at the right edge (over the name column's
 * header, whose least width grows to hold its title and the marker).
 * While any scrolling column is left to show, at least one shows if the
 * name, down to name_floor, leaves room for it. */
void trex_fit_columns(const struct trex_fit_spec *spec, struct trex_fit *out);

#endif
