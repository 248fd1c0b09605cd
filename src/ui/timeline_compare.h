/* Two runs stacked on one time axis (`trex A --compare B`): run A's
 * timeline with run B's below it, each a timeline view of its own index
 * under a header row naming the run. Keys go to the run the cursor is
 * on; the other run follows it (window, cursor, zoom, search, filter,
 * marks, the details pane). B's times read on A's axis moved by the
 * alignment's offset (trex/analysis/run_align.h): the first ProfilerStep
 * both runs have, else the traces' starts, until align-step or
 * align-slice picks another point. */
#ifndef TREX_UI_TIMELINE_COMPARE_H
#define TREX_UI_TIMELINE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "timeline_view.h"

/* The compare view of ctx->idx (A) and ctx->compare (B); NULL when out
 * of memory. */
struct trex_view *tl_compare_new(struct trex_ui_ctx *ctx);

/* Run A's timeline when v is a compare view, else v. _focus_a also
 * moves the keys to run A (the app shows a slice of A there). */
struct trex_view *tl_compare_a(struct trex_view *v);
struct trex_view *tl_compare_focus_a(struct trex_view *v);

/* The details pane's line for a slice of run B starting at ts (B's
 * clock): "1.5 ms (1500000 ns from B's start; absolute N ns), offset
 * +2 ms". */
void tl_compare_original_time(const struct timeline_view *tv, int64_t ts, char *buf, size_t size);

/* The first screen's word on run B's damaged input ("run B: 15 bytes
 * ignored after truncation"), like run A's; "" when it was read whole or
 * there is no run B. */
void tl_compare_notice(const struct trex_ui_ctx *ctx, char *buf, size_t size);

/* Where each run's rows go in a body of body_h lines from line body_y: a
 * header row, then the run's rows, A first. A run with few rows takes
 * only those, the other the rest; else each takes half (A the odd line).
 * Pure: unit-tested. */
struct tl_compare_split {
	int a_y, a_h; /* A's rows; its header row is a_y - 1 */
	int b_y, b_h; /* B's rows; its header row is b_y - 1 */
};
struct tl_compare_split tl_compare_split(int body_y, int body_h, size_t a_rows, size_t b_rows);

#endif
