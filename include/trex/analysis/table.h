/* A result table: column descriptors + typed cells. One computation feeds
 * three consumers: the CLI text table, CSV/JSON export and (later) views. */
#ifndef TREX_ANALYSIS_TABLE_H
#define TREX_ANALYSIS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"

enum trex_col_type {
	TREX_COL_TEXT,     /* string */
	TREX_COL_COUNT,    /* int64 */
	TREX_COL_DURATION, /* double, nanoseconds (text: with unit; csv/json: ns) */
	TREX_COL_PERCENT,  /* double, 0..100 */
	TREX_COL_NUMBER,   /* double */
	TREX_COL_REAL,     /* double of any magnitude (hardware metrics): text 6 significant
	                    * digits, CSV/JSON as exact as the double */
};

struct trex_column {
	const char *key;   /* CSV/JSON header, unit in the name: "total_ns", "time_pct" */
	const char *title; /* text header: "Total", "Time %" */
	enum trex_col_type type;
	bool default_desc; /* sorts descending on first use (numbers) */
};

union trex_cell {
	int64_t count;
	double number;    /* DURATION, PERCENT, NUMBER */
	const char *text; /* owned by the table (or static); a NUL of the trace as C0 80 */
};

struct trex_table {
	const char *name;               /* "kernels" */
	const struct trex_column *cols; /* static descriptors */
	size_t ncols;
	size_t nrows;
	union trex_cell *cells; /* row-major, nrows * ncols */
	size_t cap_rows;
	struct trex_table_arena *arena; /* text storage */
	struct trex_column *owned_cols; /* cols when made at run time, else NULL */
	const char *note;               /* why there is no row (arena or static), or NULL */
};

void trex_table_init(struct trex_table *t, const char *name, const struct trex_column *cols,
                     size_t ncols);
/* Like trex_table_init, for columns known only at run time: returns ncols
 * zeroed descriptors owned (and freed) by the table, whose key/title texts
 * may live in its arena (trex_table_strdup); NULL when out of memory. */
struct trex_column *trex_table_init_owned(struct trex_table *t, const char *name, size_t ncols);
void trex_table_free(struct trex_table *t);
/* Appends a row of zero cells; returns its cells or NULL when out of memory. */
union trex_cell *trex_table_add_row(struct trex_table *t);
/* Copies s[0..len) into the table's arena as a C string, a NUL byte of s
 * kept as C0 80 as the string table does (trex/core/strtab.h), so a text
 * cell is always whole; NULL when out of memory. */
const char *trex_table_strdup(struct trex_table *t, const char *s, size_t len);
static inline union trex_cell *trex_table_cell(const struct trex_table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

#endif
