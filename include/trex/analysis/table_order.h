/* Orders and filters the rows of a trex_table without touching it: a view
 * shows a permutation of row indices, sorted by a column and narrowed by
 * a regex, and folds long C++ names for display. Pure functions. */
#ifndef TREX_ANALYSIS_TABLE_ORDER_H
#define TREX_ANALYSIS_TABLE_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/analysis/table.h"
#include "trex/core/status.h"

/* The last TEXT column of t (the name: kernel, category, metric), or
 * t->ncols when it has none. */
size_t trex_table_name_col(const struct trex_table *t);

/* Sorts rows[0..n) (row indices of t) by column col: numbers by value,
 * text by strcmp, descending when desc. Rows with equal keys are ordered
 * by the text of name_col ascending (name_col >= ncols: skipped), then by
 * row index, whatever desc says, so the order is total and reproducible.
 * NaN sorts as the smallest number. NOMEM when out of memory (rows kept). */
enum trex_status trex_table_sort_rows(const struct trex_table *t, size_t col, bool desc,
                                      size_t name_col, size_t *rows, size_t n);

/* A compiled filter pattern (PCRE2, UTF-8). Smart case: a pattern without
 * upper-case letters matches case-insensitively. */
struct trex_regex;

/* USAGE with PCRE2's message and the offset ("missing closing
 * parenthesis at 4") for a bad pattern; NOMEM when out of memory. */
enum trex_status trex_regex_compile(const char *pattern, struct trex_regex **out,
                                    struct trex_error *err);
bool trex_regex_match(const struct trex_regex *re, const char *s);
void trex_regex_free(struct trex_regex *re);

/* Copies to out (room for n) the rows of in[0..n) whose text in column col
 * matches re (non-text columns never match); out may equal in. Returns
 * how many were kept, in their order. */
size_t trex_table_filter_rows(const struct trex_table *t, size_t col, const struct trex_regex *re,
                              const size_t *in, size_t n, size_t *out);

/* Transposes t for reading a few wide rows (GPU time per device) as a
 * tall table: out gets one row per column of t from label_cols on and one
 * column per row of t. out's column 0 is "metric" (TEXT: the column's
 * title); column 1 + r is row r of t, a NUMBER column titled (and keyed)
 * by its label cells joined with blanks, counts as "KEY N" ("rank 0 GPU
 * 0"). Counts become numbers; *types (malloc'd, one per out row) keeps
 * each metric's own type for display. A t without rows gives an out
 * without rows, with t's note. NOMEM when out of memory. */
enum trex_status trex_table_transpose(const struct trex_table *t, size_t label_cols,
                                      struct trex_table *out, enum trex_col_type **types,
                                      struct trex_error *err);

/* Folds name for display: the outermost template argument lists "<...>"
 * become "<…>" and argument lists "(...)" become "(…)", nested brackets
 * included, so "void f<int, g<float> >(int*, float)" -> "void f<…>(…)".
 * "operator<", "operator<<", "operator()", "operator->" and an unbalanced
 * bracket are kept as they are. Writes at most size bytes (NUL included)
 * to buf; returns the length the whole result needs, like snprintf. */
size_t trex_name_shorten(const char *name, char *buf, size_t size);

#endif
