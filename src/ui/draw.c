#include "config.h"

#include "trex/ui/view.h"

#include <string.h>
#include <wchar.h>

#include "trex/ui/text.h"

static void put_wide(WINDOW *win, wchar_t wc)
{
	wchar_t s[2] = {wc, L'\0'};

	waddnwstr(win, s, 1);
}

/* An escape in the reverse of the current attributes, so that it never
 * reads as the same letters written in the text. */
static void put_escape(WINDOW *win, const char *esc)
{
	int attrs = getattrs(win);

	wattrset(win, attrs ^ (int)A_REVERSE);
	waddstr(win, esc);
	wattrset(win, attrs);
}

int trex_draw_text(WINDOW *win, struct trex_term *term, int y, int x, const char *s, int width)
{
	mbstate_t ps;
	int used = 0;
	size_t len = strlen(s);

	memset(&ps, 0, sizeof(ps));
	wmove(win, y, x);
	while (len > 0 && used < width) {
		struct trex_text_char ch;
		size_t n = trex_text_next(s, len, &ps, &ch);

		if (used + ch.cols > width)
			break;
		if (ch.esc[0])
			put_escape(win, ch.esc);
		else
			put_wide(win, !term->utf8 && (unsigned long)ch.wc > 0x7e ? L'?' : ch.wc);
		used += ch.cols;
		s += n;
		len -= n;
	}
	return used;
}

int trex_draw_text_cut(WINDOW *win, struct trex_term *term, int y, int x, const char *s, int width)
{
	size_t len = strlen(s);
	int used;

	if (width <= 0 || trex_text_cols(s, len) <= width)
		return trex_draw_text(win, term, y, x, s, width);
	used = trex_draw_text(win, term, y, x, s, width - 1);
	wmove(win, y, x + used);
	if (term->utf8)
		put_wide(win, L'\x2026');
	else
		waddch(win, '~');
	return used + 1;
}

void trex_draw_fill(WINDOW *win, int y, int x, int width, unsigned long attr)
{
	if (width <= 0)
		return;
	wattrset(win, (int)attr);
	mvwhline(win, y, x, ' ', width);
}

void trex_draw_glyph(WINDOW *win, struct trex_term *term, int y, int x, wchar_t wc, char ascii,
                     unsigned long attr)
{
	wattrset(win, (int)attr);
	if (term->utf8) {
		wmove(win, y, x);
		put_wide(win, wc);
	} else {
		mvwaddch(win, y, x, (chtype)(unsigned char)ascii);
	}
}
