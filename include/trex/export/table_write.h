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

/* Like trex_table_write, for the rows rows[0..nrows) of t in that order
 * (a view's sorted, filtered selection); rows NULL: rows 0 .. nrows - 1. */
enum trex_status trex_table_write_rows(FILE *out, const struct trex_table *t, const size_t *rows,
				       size_t nrows, enum trex_table_format fmt,
				       struct trex_error *err);

/* The format a file name asks for: ".csv" CSV, ".json" JSON, anything
 * else aligned text (case-insensitive). */
enum trex_table_format trex_table_format_for_path(const char *path);

/* Writes rows of t (as trex_table_write_rows) to path through a temp file
 * renamed on success; an existing path fails with TREX_EXISTS unless
 * force. */
enum trex_status trex_table_export(const char *path, bool force, const struct trex_table *t,
				   const size_t *rows, size_t nrows, enum trex_table_format fmt,
				   struct trex_error *err);

/* A cell as the text table shows it, as if its column were col (text as
 * is, durations with units, percents with 2 decimals, "-" for no value);
 * returns the text or buf (64 bytes are always enough). */
const char *trex_table_cell_text_as(const struct trex_column *col, const union trex_cell *cell,
				    char *buf, size_t size);

/* Formats a duration in ns with a unit and 3 significant decimals
 * ("1.234 ms", "15 ns"); returns buf. */
const char *trex_format_duration(double ns, char *buf, size_t size);

#endif
