/* The project's one JSON writer: every JSON document trex writes (tables,
 * summaries, exports) escapes its strings here, the same way. */
#ifndef TREX_EXPORT_JSON_WRITE_H
#define TREX_EXPORT_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Writes s as a JSON string: quotes, backslashes and control characters
 * (C0, DEL, C1; the string table's NUL, C0 80, as \u0000) escaped, bytes
 * that are not UTF-8 as \ufffd, so that the document always parses and
 * never carries a raw control character. */
void trex_json_write_string(FILE *out, const char *s);

/* The inside of that JSON string (no quotes) for s[0..n), into out, which
 * has room for TREX_JSON_ESCAPED_MAX(n) bytes; returns the bytes written.
 * For writers that format into their own buffers. */
#define TREX_JSON_ESCAPED_MAX(n) (6 * (size_t)(n))
size_t trex_json_escape_into(const char *s, size_t n, char *out);

#endif
