/* Writes a trex_table as aligned text, CSV (RFC 4180) or JSON. */
#ifndef TREX_EXPORT_TABLE_WRITE_H
#define TREX_EXPORT_TABLE_WRITE_H

#include <stdio.h>

#include "trex/analysis/table.h"
#include "trex/core/display.h"
#include "trex/core/status.h"

enum trex_table_format { TREX_FMT_TEXT, TREX_FMT_CSV, TREX_FMT_JSON };

/* "text", "csv", "json" -> format; false if unknown. */
bool trex_table_format_parse(const char *s, enum trex_table_format *out);

/* text: titles, right-aligned numbers with their decimal points and units
 *       lined up, durations with units (trex_format_duration), the last
 *       TEXT column left-aligned and never truncated; trace text escaped
 *       (TREX_ESCAPE_TEXT of trex/core/display.h: \0, \x1b, \\, ...).
 * csv:  header of column keys, durations in ns, CRLF-free; text cells in
 *       the text table's escaped form (CSV has no escape for NUL or
 *       control characters), quoted (quotes doubled) when they hold a comma
 *       or a quote.
 * json: {"table": name, "columns": [keys], "rows": [{key: value}...]};
 *       NUL as \u0000, control characters (C0, DEL, C1) as \uXXXX, bytes
 *       that are not UTF-8 as \ufffd. */
enum trex_status trex_table_write(FILE *out, const struct trex_table *t, enum trex_table_format fmt,
                                  struct trex_error *err);

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
 * is, unescaped; durations with units, percents with 2 decimals, "-" for
 * no value); returns the text or buf (64 bytes are always enough). */
const char *trex_table_cell_text_as(const struct trex_column *col, const union trex_cell *cell,
                                    char *buf, size_t size);

/* How the numbers of a right-aligned column line up: the longest fraction
 * ('.' and its digits) and unit among its cells. */
struct trex_num_align {
	unsigned frac, unit;
};
/* What any cell fits: 3 decimals and a two-letter unit. */
#define TREX_NUM_ALIGN_ANY ((const struct trex_num_align){4, 2})

/* A cell as a right-aligned table column shows it: trex_table_cell_text_as,
 * then for durations and numbers blanks in place of the fraction and unit
 * they lack against align (NULL: TREX_NUM_ALIGN_ANY), so that the decimal
 * points and the units of the column each fall in one screen column:
 * "5     us" above "1.647 ms"; "-" stands where the last integer digit
 * does. Other cells as trex_table_cell_text_as. Returns the text or buf
 * (64 bytes are always enough). */
const char *trex_table_cell_text_aligned(const struct trex_column *col, const union trex_cell *cell,
                                         const struct trex_num_align *align, char *buf,
                                         size_t size);

#endif
