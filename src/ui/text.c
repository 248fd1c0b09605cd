#include "config.h"

#include "trex/ui/text.h"

#include <string.h>
#include <wchar.h>

/* Bytes and columns of the character at s (len > 0). */
static size_t next_char(const char *s, size_t len, mbstate_t *ps, int *cols)
{
	wchar_t wc;
	size_t n = mbrtowc(&wc, s, len, ps);

	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		memset(ps, 0, sizeof(*ps));
		*cols = 1;
		return 1;
	}
	*cols = wcwidth(wc) < 0 ? 1 : wcwidth(wc);
	return n;
}

int trex_text_cols(const char *s, size_t len)
{
	mbstate_t ps;
	size_t i = 0;
	int cols = 0;

	memset(&ps, 0, sizeof(ps));
	while (i < len) {
		int w;

		i += next_char(s + i, len - i, &ps, &w);
		cols += w;
	}
	return cols;
}

size_t trex_text_fit(const char *s, size_t len, int width)
{
	mbstate_t ps;
	size_t i = 0;
	int used = 0;

	memset(&ps, 0, sizeof(ps));
	while (i < len && s[i] != '\n') {
		int w;
		size_t n = next_char(s + i, len - i, &ps, &w);

		if (used + w > width)
			break;
		used += w;
		i += n;
	}
	return i;
}
