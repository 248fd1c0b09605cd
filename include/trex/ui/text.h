/* Display width of UTF-8 text, as the terminal shows it: wide characters
 * take two columns, a control character, DEL, a C1 control, a NUL of the
 * string table, a byte that is not UTF-8 or a character the locale cannot
 * print takes the columns of its escape ("\x1b": 4; see trex/core/display.h,
 * TREX_ESCAPE_CONTROLS), and a byte the locale cannot decode one ('?').
 * Pure (locale's mbrtowc and wcwidth, no curses); trex_draw_text draws
 * exactly what trex_text_next describes, so measuring and drawing agree. */
#ifndef TREX_UI_TEXT_H
#define TREX_UI_TEXT_H

#include <stddef.h>
#include <wchar.h>

#define TREX_TEXT_ESCAPE_MAX 10 /* "\U0001f000": beyond the BMP */

/* One character of text as the interface shows it. */
struct trex_text_char {
	size_t bytes; /* taken from the text (>= 1) */
	int cols;     /* screen columns */
	wchar_t wc;   /* what to draw when esc is "" ('?' for an undecodable byte) */
	char esc[TREX_TEXT_ESCAPE_MAX + 1]; /* the escape to draw instead, or "" */
};

/* The character at s[0..len) (len > 0); ps is the decoding state, zeroed
 * before the first call. Returns out->bytes. */
size_t trex_text_next(const char *s, size_t len, mbstate_t *ps, struct trex_text_char *out);

/* Display columns of s[0..len). */
int trex_text_cols(const char *s, size_t len);

/* The longest prefix of s[0..len) that fits in width columns, in bytes
 * (never splitting a character or an escape; a newline is a "\n" escape
 * like any control character, so the prefix may go past it). */
size_t trex_text_fit(const char *s, size_t len, int width);

#endif
