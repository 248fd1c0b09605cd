/* Where a row of the diff view (diff_view.c) is in run A's timeline: the
 * instance Enter shows. Pure functions of the index (no curses), so the
 * view only decides what to say. */
#ifndef TREX_UI_DIFF_GOTO_H
#define TREX_UI_DIFF_GOTO_H

#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

/* The longest slice of kind whose name, through the normalising rules
 * (trex_diff_normalize; 0: exact), is name: with rules, the longest of any
 * name of the group. TREX_NONE when idx has none; TREX_NOMEM in *st (else
 * TREX_OK) when the names cannot be sorted out. */
uint32_t diff_goto_longest(const struct trex_index *idx, uint8_t kind, const char *name,
                           unsigned rules, enum trex_status *st);

/* Kernel pos (0-based) of the GPU stream of rank called stream ("GPU 0
 * stream 7", as trex_diff_sequence_table names it) in launch order (start,
 * then id); TREX_NONE when there is no such kernel. */
uint32_t diff_goto_stream_kernel(const struct trex_index *idx, int64_t rank, const char *stream,
                                 int64_t pos);

/* The step slice of A's n-th step (0-based, start order) of rank, as
 * trex_steps_table finds steps through pattern (NULL: ProfilerStep#);
 * TREX_NONE (*err set when not TREX_OK) when there is none. */
uint32_t diff_goto_step(const struct trex_index *idx, const char *pattern, int64_t rank, int64_t n,
                        enum trex_status *st, struct trex_error *err);

#endif
