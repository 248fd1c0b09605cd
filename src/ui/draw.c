#include "config.h"

#include "trex/ui/view.h"

#include <string.h>
#include <wchar.h>

#define TEXT_CHUNK 64

static void put_wide(WINDOW *win, wchar_t wc)
{
	wchar_t s[2] = {wc, L'\0'};

	waddnwstr(win, s, 1);
}

int trex_draw_text(WINDOW *win, struct trex_term *term, int y, int x, const char *s, int width)
{
	mbstate_t ps;
	int used = 0;
	size_t len = strlen(s);

	memset(&ps, 0, sizeof(ps));
	wmove(win, y, x);
	while (len > 0 && used < width) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, len, &ps);
		int w;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			memset(&ps, 0, sizeof(ps));
			wc = L'?';
			n = 1;
		}
		if (!term->utf8 && (unsigned long)wc > 0x7e)
			wc = L'?';
		w = wcwidth(wc);
		if (w < 0)
			wc = L'?', w = 1;
		if (used + w > width)
			break;
		put_wide(win, wc);
		used += w;
		s += n;
		len -= n;
	}
	return used;
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
