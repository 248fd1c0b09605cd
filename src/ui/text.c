#include "config.h"

#include "trex/ui/text.h"

#include <stdio.h>
#include <string.h>

#include "trex/core/display.h"

size_t trex_text_next(const char *s, size_t len, mbstate_t *ps, struct trex_text_char *out)
{
	size_t n = trex_escape_char(s, len, TREX_ESCAPE_CONTROLS, out->esc);
	wchar_t wc;
	int w;

	out->bytes = n;
	out->wc = L'?';
	if (out->esc[0]) {
		memset(ps, 0, sizeof(*ps));
		out->cols = (int)strlen(out->esc);
		return n;
	}
	if (mbrtowc(&wc, s, n, ps) != n) {
		/* the locale cannot decode it (not a UTF-8 locale): '?' per byte */
		memset(ps, 0, sizeof(*ps));
		out->bytes = 1;
		out->cols = 1;
		return 1;
	}
	w = wcwidth(wc);
	if (w < 0) {
		snprintf(out->esc, sizeof(out->esc), wc > 0xffff ? "\\U%08lx" : "\\u%04lx",
		         (unsigned long)wc);
		out->cols = (int)strlen(out->esc);
		return n;
	}
	out->wc = wc;
	out->cols = w;
	return n;
}

int trex_text_cols(const char *s, size_t len)
{
	mbstate_t ps;
	size_t i = 0;
	int cols = 0;

	memset(&ps, 0, sizeof(ps));
	while (i < len) {
		struct trex_text_char ch;

		i += trex_text_next(s + i, len - i, &ps, &ch);
		cols += ch.cols;
	}
	return cols;
}

size_t trex_text_fit(const char *s, size_t len, int width)
{
	mbstate_t ps;
	size_t i = 0;
	int used = 0;

	memset(&ps, 0, sizeof(ps));
	while (i < len) {
		struct trex_text_char ch;
		size_t n = trex_text_next(s + i, len - i, &ps, &ch);

		if (used + ch.cols > width)
			break;
		used += ch.cols;
		i += n;
	}
	return i;
}
