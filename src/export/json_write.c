#include "config.h"

#include "trex/export/json_write.h"

#include <stdbool.h>
#include <string.h>

#include "trex/core/display.h"

/* The JSON escape of the character at p (n bytes left), or false when it
 * goes out as it is; *len gets its length. */
static bool json_escape(const unsigned char *p, size_t n, char esc[8], size_t *len)
{
	*len = trex_utf8_len(p, n);
	if (p[0] == 0xc0 && n >= 2 && p[1] == 0x80) { /* a NUL of the string table */
		*len = 2;
		snprintf(esc, 8, "\\u0000");
	} else if (*len == 0) { /* not UTF-8: JSON strings cannot hold it */
		*len = 1;
		snprintf(esc, 8, "\\ufffd");
	} else if (*p == '"' || *p == '\\') {
		snprintf(esc, 8, "\\%c", *p);
	} else if (*p == '\n' || *p == '\t' || *p == '\r') {
		snprintf(esc, 8, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
	} else if (*p < 0x20 || *p == 0x7f) {
		snprintf(esc, 8, "\\u%04x", *p);
	} else if (*len == 2 && p[0] == 0xc2 && p[1] < 0xa0) { /* C1 controls */
		snprintf(esc, 8, "\\u%04x", p[1]);
	} else {
		return false;
	}
	return true;
}

void trex_json_write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	putc('"', out);
	while (n) {
		char esc[8];
		size_t len;

		if (json_escape(p, n, esc, &len))
			fputs(esc, out);
		else
			fwrite(p, 1, len, out);
		p += len;
		n -= len;
	}
	putc('"', out);
}

/* Bytes that go out as they are: printable ASCII but the quote and the
 * backslash (the common case, copied in runs). */
static inline bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

size_t trex_json_escape_into(const char *s, size_t n, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;

	while (n) {
		size_t run = 0, len;
		char esc[8];

		while (run < n && json_plain(p[run]))
			run++;
		memcpy(o, p, run);
		o += run;
		p += run;
		n -= run;
		if (!n)
			break;
		if (json_escape(p, n, esc, &len)) {
			size_t e = strlen(esc);

			memcpy(o, esc, e);
			o += e;
		} else {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
		n -= len;
	}
	return (size_t)(o - out);
}
