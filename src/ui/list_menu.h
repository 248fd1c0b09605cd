/* A small list drawn in a box over a view (private to src/ui): the table
 * views' column lists (F6: sort by, F2: columns shown). The owner keeps
 * the items and says what a pick does; the list moves its cursor with the
 * move actions and the mouse wheel, picks with Enter, Space or a click,
 * and closes with Esc (back), clear or a click outside it. */
#ifndef TREX_UI_LIST_MENU_H
#define TREX_UI_LIST_MENU_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "trex/ui/action.h"
#include "trex/ui/layout.h"
#include "trex/ui/term.h"

struct list_menu {
	bool open;
	int kind;        /* the owner's: which list this is */
	size_t n;        /* items */
	size_t sel, top; /* cursor, first item shown */
	int y, x, h, w;  /* the box at the last draw, border included */
	int rows;        /* items shown at the last draw */
};

enum list_menu_event {
	LIST_MENU_IGNORED, /* not a list action: the owner decides */
	LIST_MENU_MOVED,   /* the cursor or the scroll changed */
	LIST_MENU_PICKED,  /* item sel was picked (the list stays open) */
	LIST_MENU_CLOSED,  /* cancelled: the list is closed */
};

/* Writes item i's text (UTF-8, one line) to buf. */
typedef void list_menu_item_fn(const void *owner, size_t i, char *buf, size_t size);

/* Opens the list of n items with the cursor on sel. */
void list_menu_open(struct list_menu *m, int kind, size_t n, size_t sel);
void list_menu_close(struct list_menu *m);

enum list_menu_event list_menu_action(struct list_menu *m, enum trex_action a);
/* A mouse event at screen (y, x) with ncurses bstate. */
enum list_menu_event list_menu_mouse(struct list_menu *m, int y, int x, unsigned long bstate);

/* Draws the box, titled, at the top of area and centred in it (as many
 * items as fit, the cursor's in sight). */
void list_menu_draw(struct list_menu *m, WINDOW *win, struct trex_term *term,
                    const struct trex_rect *area, const char *title, list_menu_item_fn *item,
                    const void *owner);

/* A box with its title in the top border (what the list and the export
 * dialog draw around themselves); the inside is left as it was. */
void list_menu_box(WINDOW *win, struct trex_term *term, int y, int x, int h, int w,
                   const char *title);

#endif
