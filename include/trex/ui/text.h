/* Display width of UTF-8 text, as the terminal shows it: wide characters
 * take two columns, an invalid byte or a non-printable character one.
 * Pure (locale's wcwidth, no curses); used wherever text is measured. */
#ifndef TREX_UI_TEXT_H
#define TREX_UI_TEXT_H

#include <stddef.h>

/* Display columns of s[0..len). */
int trex_text_cols(const char *s, size_t len);

/* The longest prefix of s[0..len) that fits in width columns, stopping
 * before a newline, in bytes (never splitting a character). */
size_t trex_text_fit(const char *s, size_t len, int width);

#endif
