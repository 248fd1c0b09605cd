/* How values are shown to people, in one place for the text and CSV
 * writers, the CLI and the interface: durations with a unit, trace text
 * with its control characters escaped, and counted nouns. Pure C, no
 * curses: the interface measures and draws through trex/ui/text.h, which
 * is built on these. */
#ifndef TREX_CORE_DISPLAY_H
#define TREX_CORE_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- durations ------------------------------------------------------------------- */

/* The one duration format of every view and text report: the largest
 * unit (ns, us, ms, s) the value reaches, at most 3 decimals, rounded to
 * nearest, trailing zeros dropped: 1646897 -> "1.647 ms", 577665000 ->
 * "577.665 ms", 15 -> "15 ns", 999999.6 -> "1 ms" (never "1000 us"),
 * -1500 -> "-1.5 us"; a value that is not finite -> "-". Returns buf
 * (32 bytes are always enough). */
const char *trex_format_duration(double ns, char *buf, size_t size);

/* v with at most decimals decimals, rounded, trailing fraction zeros
 * dropped and never "-0": (2.50, 3) -> "2.5", (-0.0001, 3) -> "0". Returns
 * buf. */
const char *trex_format_decimal(double v, int decimals, char *buf, size_t size);

/* ---- trace text ------------------------------------------------------------------ */

/* Strings from a trace may hold anything: NUL (which the string table
 * keeps as the two bytes C0 80, see trex/core/strtab.h), control
 * characters, DEL, C1 controls and, in paths, bytes that are not UTF-8.
 * None of them is ever written raw; each is shown as an escape:
 *
 *   NUL -> \0   tab -> \t   newline -> \n   carriage return -> \r
 *   other C0 controls and DEL -> \xHH       C1 controls (U+0080-U+009F) -> \u00HH
 *   a byte that does not start valid UTF-8 -> \xHH (HH >= 80)
 *
 * (HH lower-case hex). TREX_ESCAPE_TEXT also writes every backslash as
 * \\, so that the shown text reads back to exactly the original: the text
 * tables and CSV of the CLI and of exports. TREX_ESCAPE_CONTROLS leaves
 * backslashes as they are: messages on stderr, and the interface, which
 * draws escapes in reverse video instead (a literal "\x1b" is plain text,
 * an escaped ESC is highlighted). */
enum trex_escape_mode {
	TREX_ESCAPE_CONTROLS,
	TREX_ESCAPE_TEXT,
};

#define TREX_ESCAPE_MAX 6 /* the longest escape, "\u009f" */

/* The character at s[0..len) (len > 0): returns how many bytes it takes
 * (1-4) and writes its escape, NUL-terminated, to esc; esc is "" when the
 * character shows as itself (a printable ASCII character or a whole valid
 * UTF-8 sequence outside the C1 range). */
size_t trex_escape_char(const char *s, size_t len, enum trex_escape_mode mode,
                        char esc[TREX_ESCAPE_MAX + 1]);

/* s[0..len) as shown, into buf (always NUL-terminated when size > 0; cut
 * before a character or escape that does not fit). Returns the length of
 * the whole shown form, like snprintf. */
size_t trex_escape(const char *s, size_t len, enum trex_escape_mode mode, char *buf, size_t size);

/* Writes s[0..len) as shown to out (NULL: only measures); returns the
 * characters written (an escape counts its bytes, a UTF-8 sequence one),
 * for column widths. */
size_t trex_escape_write(FILE *out, const char *s, size_t len, enum trex_escape_mode mode);

/* Length (2-4) of the valid UTF-8 sequence of a non-ASCII character at s
 * (n bytes left), 1 for ASCII, 0 when s[0] does not start one (overlong,
 * surrogate, beyond U+10FFFF, cut short). */
size_t trex_utf8_len(const unsigned char *s, size_t n);

/* ---- counted nouns ---------------------------------------------------------------- */

/* one when n == 1, else many: "%zu %s", n, trex_plural(n, "child", "children"). */
const char *trex_plural(uint64_t n, const char *one, const char *many);

#endif
