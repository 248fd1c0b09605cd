/* Writes a trex_table as aligned text, CSV (RFC 4180) or JSON. */
#ifndef TREX_EXPORT_TABLE_WRITE_H
#define TREX_EXPORT_TABLE_WRITE_H

#include <stdio.h>

#include "trex/analysis/table.h"
#include "trex/core/status.h"

enum trex_table_format { TREX_FMT_TEXT, TREX_FMT_CSV, TREX_FMT_JSON };

/* "text", "csv", "json" -> format; false if unknown. */
bool trex_table_format_parse(const char *s, enum trex_table_format *out);

/* text: titles, right-aligned numbers, durations with units (ns/us/ms/s),
 *       the last TEXT column left-aligned and never truncated.
 * csv:  header of column keys, durations in ns, CRLF-free, quotes doubled.
 * json: {"table": name, "columns": [keys], "rows": [{key: value}...]}. */
enum trex_status trex_table_write(FILE *out, const struct trex_table *t,
				  enum trex_table_format fmt, struct trex_error *err);

/* Formats a duration in ns with a unit and 3 significant decimals
 * ("1.234 ms", "15 ns"); returns buf. */
const char *trex_format_duration(double ns, char *buf, size_t size);

#endif
