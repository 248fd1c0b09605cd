#include "config.h"

#include "trex/core/display.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- durations ------------------------------------------------------------------- */

/* Drops trailing fraction zeros (and a bare '.') of a %f rendering. */
static void trim_fraction(char *s)
{
	char *dot = strchr(s, '.');
	char *end;

	if (!dot)
		return;
	end = s + strlen(s);
	while (end > dot + 1 && end[-1] == '0')
		end--;
	if (end == dot + 1)
		end = dot;
	*end = '\0';
}

const char *trex_format_decimal(double v, int decimals, char *buf, size_t size)
{
	snprintf(buf, size, "%.*f", decimals, v);
	trim_fraction(buf);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, size, "0");
	return buf;
}

const char *trex_format_duration(double ns, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	const size_t last = sizeof(units) / sizeof(units[0]) - 1;
	char num[64];
	size_t u = 0;

	if (!isfinite(ns)) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (u < last && fabs(ns) >= units[u + 1].scale)
		u++;
	trex_format_decimal(ns / units[u].scale, 3, num, sizeof(num));
	/* 999.9996 us rounds to "1000": say "1 ms" instead. */
	if (u < last && fabs(strtod(num, NULL)) >= 1000) {
		u++;
		trex_format_decimal(ns / units[u].scale, 3, num, sizeof(num));
	}
	snprintf(buf, size, "%s %s", num, units[u].unit);
	return buf;
}

/* ---- trace text ------------------------------------------------------------------ */

size_t trex_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* The escape of a C0 control or DEL. */
static void control_escape(unsigned char c, char *esc)
{
	static const char named_in[] = "\t\n\r", named_out[] = "tnr";
	const char *named = c ? strchr(named_in, c) : NULL;

	if (named)
		snprintf(esc, TREX_ESCAPE_MAX + 1, "\\%c", named_out[named - named_in]);
	else
		snprintf(esc, TREX_ESCAPE_MAX + 1, "\\x%02x", c);
}

size_t trex_escape_char(const char *s, size_t len, enum trex_escape_mode mode,
                        char esc[TREX_ESCAPE_MAX + 1])
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	esc[0] = '\0';
	if (u[0] == 0 || (u[0] == 0xc0 && len >= 2 && u[1] == 0x80)) {
		snprintf(esc, TREX_ESCAPE_MAX + 1, "\\0");
		return u[0] ? 2 : 1;
	}
	if (u[0] < 0x20 || u[0] == 0x7f) {
		control_escape(u[0], esc);
		return 1;
	}
	if (u[0] == '\\' && mode == TREX_ESCAPE_TEXT)
		snprintf(esc, TREX_ESCAPE_MAX + 1, "\\\\");
	if (u[0] < 0x80)
		return 1;
	n = trex_utf8_len(u, len);
	if (n == 0) {
		snprintf(esc, TREX_ESCAPE_MAX + 1, "\\x%02x", u[0]);
		return 1;
	}
	if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0) /* U+0080..U+009F */
		snprintf(esc, TREX_ESCAPE_MAX + 1, "\\u%04x", u[1]);
	return n;
}

size_t trex_escape(const char *s, size_t len, enum trex_escape_mode mode, char *buf, size_t size)
{
	size_t total = 0, kept = 0, i = 0;
	bool cut = false;

	while (i < len) {
		char esc[TREX_ESCAPE_MAX + 1];
		size_t n = trex_escape_char(s + i, len - i, mode, esc);
		const char *piece = esc[0] ? esc : s + i;
		size_t plen = esc[0] ? strlen(esc) : n;

		if (!cut && kept + plen < size) {
			memcpy(buf + kept, piece, plen);
			kept += plen;
		} else {
			cut = true;
		}
		total += plen;
		i += n;
	}
	if (size > 0)
		buf[kept] = '\0';
	return total;
}

size_t trex_escape_write(FILE *out, const char *s, size_t len, enum trex_escape_mode mode)
{
	size_t chars = 0, i = 0;

	while (i < len) {
		char esc[TREX_ESCAPE_MAX + 1];
		size_t n = trex_escape_char(s + i, len - i, mode, esc);

		if (esc[0]) {
			if (out)
				fputs(esc, out);
			chars += strlen(esc);
		} else {
			if (out)
				fwrite(s + i, 1, n, out);
			chars++;
		}
		i += n;
	}
	return chars;
}

/* ---- counted nouns ---------------------------------------------------------------- */

const char *trex_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
