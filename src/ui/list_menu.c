#include "config.h"

#include "list_menu.h"

#include <stdio.h>
#include <string.h>

#include "trex/ui/nav.h"
#include "trex/ui/text.h"
#include "trex/ui/view.h"

#define ITEM_MAX 160
#define PAD 2 /* border and a blank on each side of an item */
#define WHEEL_ITEMS 3

void list_menu_open(struct list_menu *m, int kind, size_t n, size_t sel)
{
	*m = (struct list_menu){.open = true, .kind = kind, .n = n, .sel = sel < n ? sel : 0};
}

void list_menu_close(struct list_menu *m)
{
	m->open = false;
}

static void move_by(struct list_menu *m, long delta)
{
	m->sel = (size_t)trex_nav_clamp((long)m->sel + delta, (long)m->n - 1);
	m->top = trex_nav_follow(m->top, m->sel, m->rows, m->n);
}

enum list_menu_event list_menu_action(struct list_menu *m, enum trex_action a)
{
	long delta;

	if (trex_nav_delta(a, m->rows > 1 ? m->rows - 1 : 1, (long)m->n, &delta)) {
		move_by(m, delta);
		return LIST_MENU_MOVED;
	}
	switch (a) {
	case TREX_ACTION_ENTER:
	case TREX_ACTION_MARK_ROW:
		return m->n ? LIST_MENU_PICKED : LIST_MENU_IGNORED;
	case TREX_ACTION_BACK:
	case TREX_ACTION_CLEAR:
		list_menu_close(m);
		return LIST_MENU_CLOSED;
	default:
		return LIST_MENU_IGNORED;
	}
}

static bool inside(const struct list_menu *m, int y, int x)
{
	return y >= m->y && y < m->y + m->h && x >= m->x && x < m->x + m->w;
}

enum list_menu_event list_menu_mouse(struct list_menu *m, int y, int x, unsigned long bstate)
{
	if (bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		move_by(m, bstate & BUTTON4_PRESSED ? -WHEEL_ITEMS : WHEEL_ITEMS);
		return LIST_MENU_MOVED;
	}
	if (!(bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED)))
		return LIST_MENU_IGNORED;
	if (!inside(m, y, x)) {
		list_menu_close(m);
		return LIST_MENU_CLOSED;
	}
	if (y <= m->y || y > m->y + m->rows || m->top + (size_t)(y - m->y - 1) >= m->n)
		return LIST_MENU_IGNORED; /* the border */
	m->sel = m->top + (size_t)(y - m->y - 1);
	return LIST_MENU_PICKED;
}

/* ---- drawing ----------------------------------------------------------------------- */

/* The width the items and the title need, border included. */
static int box_width(const struct list_menu *m, const char *title, list_menu_item_fn *item,
                     const void *owner)
{
	char buf[ITEM_MAX];
	int w = trex_text_cols(title, strlen(title)) + 2 * PAD;

	for (size_t i = 0; i < m->n; i++) {
		int iw;

		item(owner, i, buf, sizeof(buf));
		iw = trex_text_cols(buf, strlen(buf)) + 2 * PAD;
		w = iw > w ? iw : w;
	}
	return w;
}

void list_menu_box(WINDOW *win, struct trex_term *term, int y, int x, int h, int w,
                   const char *title)
{
	unsigned long border = trex_term_attr(term, TREX_ROLE_BORDER);

	for (int i = 1; i < w - 1; i++) {
		trex_draw_glyph(win, term, y, x + i, L'\x2500', '-', border);
		trex_draw_glyph(win, term, y + h - 1, x + i, L'\x2500', '-', border);
	}
	for (int j = 1; j < h - 1; j++) {
		trex_draw_glyph(win, term, y + j, x, L'\x2502', '|', border);
		trex_draw_glyph(win, term, y + j, x + w - 1, L'\x2502', '|', border);
	}
	trex_draw_glyph(win, term, y, x, L'\x250c', '+', border);
	trex_draw_glyph(win, term, y, x + w - 1, L'\x2510', '+', border);
	trex_draw_glyph(win, term, y + h - 1, x, L'\x2514', '+', border);
	trex_draw_glyph(win, term, y + h - 1, x + w - 1, L'\x2518', '+', border);
	wattrset(win, (int)trex_term_attr(term, TREX_ROLE_HEADER));
	trex_draw_text(win, term, y, x + PAD, title, w - 2 * PAD);
}

static void draw_frame(const struct list_menu *m, WINDOW *win, struct trex_term *term,
                       const char *title)
{
	unsigned long border = trex_term_attr(term, TREX_ROLE_BORDER);
	char pos[48];

	list_menu_box(win, term, m->y, m->x, m->h, m->w, title);
	if ((size_t)m->rows < m->n) { /* the position, as items are out of sight */
		snprintf(pos, sizeof(pos), " %zu/%zu ", m->sel + 1, m->n);
		wattrset(win, (int)border);
		if ((int)strlen(pos) + 2 < m->w)
			trex_draw_text(win, term, m->y + m->h - 1,
			               m->x + m->w - 1 - (int)strlen(pos), pos, (int)strlen(pos));
	}
}

void list_menu_draw(struct list_menu *m, WINDOW *win, struct trex_term *term,
                    const struct trex_rect *area, const char *title, list_menu_item_fn *item,
                    const void *owner)
{
	unsigned long normal = trex_term_attr(term, TREX_ROLE_DEFAULT);
	unsigned long cursor = trex_term_attr(term, TREX_ROLE_CURSOR);
	char buf[ITEM_MAX];

	m->w = box_width(m, title, item, owner);
	m->w = m->w < area->w ? m->w : area->w;
	m->rows = (int)m->n < area->h - 2 ? (int)m->n : area->h - 2;
	m->rows = m->rows < 1 ? 1 : m->rows;
	m->h = m->rows + 2;
	m->x = area->x + (area->w - m->w) / 2;
	m->y = area->y;
	m->top = trex_nav_follow(m->top, m->sel, m->rows, m->n);
	for (int j = 1; j < m->h - 1; j++) {
		size_t i = m->top + (size_t)(j - 1);
		unsigned long attr = i == m->sel ? cursor : normal;

		trex_draw_fill(win, m->y + j, m->x + 1, m->w - 2, attr);
		if (i >= m->n)
			continue;
		item(owner, i, buf, sizeof(buf));
		wattrset(win, (int)attr);
		trex_draw_text(win, term, m->y + j, m->x + PAD, buf, m->w - 2 * PAD);
	}
	draw_frame(m, win, term, title);
}
