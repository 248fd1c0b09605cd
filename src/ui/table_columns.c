/* The column lists of a table view, drawn over it: F6 sorts by the column
 * picked in the list of all columns; F2 shows or hides columns (the name
 * column always shows, and at least one other column stays). */
#include "config.h"

#include "table_view.h"

#include <stdio.h>
#include <stdlib.h>

enum column_list { LIST_SORT = 1, LIST_SHOWN };

static void sort_item(const void *owner, size_t i, char *buf, size_t size)
{
	const struct table_view *tv = owner;

	snprintf(buf, size, "%s%s%s%s", tv->table.cols[i].title, i == tv->sort_col ? " " : "",
	         i == tv->sort_col ? table_view_sort_mark(tv) : "",
	         table_view_col_shown(tv, i) ? "" : " (hidden)");
}

static void shown_item(const void *owner, size_t i, char *buf, size_t size)
{
	const struct table_view *tv = owner;

	snprintf(buf, size, "[%c] %s%s", table_view_col_shown(tv, i) ? 'x' : ' ',
	         tv->table.cols[i].title, i == tv->name_col ? " (always)" : "");
}

void table_columns_open_sort(struct table_view *tv)
{
	size_t sel = tv->sort_col != TABLE_VIEW_NO_SORT ? tv->sort_col : 0;

	if (!tv->table.ncols)
		return;
	list_menu_open(&tv->menu, LIST_SORT, tv->table.ncols, sel);
	trex_ui_message(tv->base.ctx, "sort by: Enter sorts by the column, Esc cancels");
}

void table_columns_open_shown(struct table_view *tv)
{
	if (!tv->table.ncols)
		return;
	list_menu_open(&tv->menu, LIST_SHOWN, tv->table.ncols, 0);
	trex_ui_message(tv->base.ctx, "columns: Enter or Space shows or hides one, Esc closes");
}

static size_t shown_count(const struct table_view *tv)
{
	size_t n = 0;

	for (size_t c = 0; c < tv->table.ncols; c++)
		n += table_view_col_shown(tv, c) && c != tv->name_col;
	return n;
}

static void pick_sort(struct table_view *tv, size_t c)
{
	list_menu_close(&tv->menu);
	if (c != tv->sort_col)
		table_view_sort_by(tv, c, tv->table.cols[c].default_desc);
	trex_ui_message(tv->base.ctx, "sorted by %s %s%s", tv->table.cols[c].title,
	                table_view_sort_mark(tv),
	                table_view_col_shown(tv, c) ? "" : " (a hidden column: F2 shows it)");
}

static void toggle_shown(struct table_view *tv, size_t c)
{
	const char *title = tv->table.cols[c].title;

	if (c == tv->name_col) {
		trex_ui_message(tv->base.ctx, "%s always shows", title);
		return;
	}
	if (table_view_col_shown(tv, c) && shown_count(tv) <= 1) {
		trex_ui_message(tv->base.ctx, "%s is the last column shown", title);
		return;
	}
	if (!tv->col_off && !(tv->col_off = calloc(tv->table.ncols, sizeof(*tv->col_off)))) {
		trex_ui_message(tv->base.ctx, "out of memory");
		return;
	}
	tv->col_off[c] = !tv->col_off[c];
	trex_ui_message(tv->base.ctx, "%s %s", title, tv->col_off[c] ? "hidden" : "shown");
}

static void closed(struct table_view *tv, int kind)
{
	size_t hidden = tv->table.ncols - shown_count(tv) - (tv->name_col < tv->table.ncols);

	if (kind == LIST_SORT)
		trex_ui_message(tv->base.ctx, "sort unchanged");
	else if (hidden)
		trex_ui_message(tv->base.ctx, "%zu column%s hidden (F2 shows them)", hidden,
		                hidden == 1 ? "" : "s");
	else
		trex_ui_message(tv->base.ctx, "every column shown");
}

static enum trex_handled on_event(struct table_view *tv, enum list_menu_event ev)
{
	int kind = tv->menu.kind;

	if (ev == LIST_MENU_PICKED && kind == LIST_SORT)
		pick_sort(tv, tv->menu.sel);
	else if (ev == LIST_MENU_PICKED)
		toggle_shown(tv, tv->menu.sel);
	else if (ev == LIST_MENU_CLOSED)
		closed(tv, kind);
	return TREX_HANDLED;
}

enum trex_handled table_columns_action(struct table_view *tv, enum trex_action a)
{
	enum list_menu_event ev;

	/* the key that opened the list closes it */
	if (a == (tv->menu.kind == LIST_SORT ? TREX_ACTION_SORT_MENU : TREX_ACTION_COLUMNS)) {
		list_menu_close(&tv->menu);
		return on_event(tv, LIST_MENU_CLOSED);
	}
	ev = list_menu_action(&tv->menu, a);
	if (ev == LIST_MENU_IGNORED)
		trex_ui_message(tv->base.ctx, "%s",
		                tv->menu.kind == LIST_SORT
		                    ? "Enter sorts by the column, Esc cancels"
		                    : "Enter or Space shows or hides, Esc closes");
	return on_event(tv, ev);
}

enum trex_handled table_columns_mouse(struct table_view *tv, int y, int x, unsigned long bstate)
{
	return on_event(tv, list_menu_mouse(&tv->menu, y, x, bstate));
}

void table_columns_draw(struct table_view *tv, WINDOW *win, const struct trex_layout *lay, int y)
{
	struct trex_rect area = {y + 1, 0, lay->status.y - y - 1, lay->header.w};

	list_menu_draw(&tv->menu, win, tv->base.ctx->term, &area,
	               tv->menu.kind == LIST_SORT ? " sort by " : " columns shown ",
	               tv->menu.kind == LIST_SORT ? sort_item : shown_item, tv);
}
