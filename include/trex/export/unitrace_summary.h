/* unitrace's summary.py output, for tools that read it: one flat JSON
 * object of "<category>_time" (ns) and "<category>_calls" per row of a
 * categories table (trex_categories_table: total_ns first, calls third,
 * category last; any other table is a usage error);
 * work of no category counts as summary.py's default one, "device". */
#ifndef TREX_EXPORT_UNITRACE_SUMMARY_H
#define TREX_EXPORT_UNITRACE_SUMMARY_H

#include <stdio.h>

#include "trex/analysis/table.h"
#include "trex/core/status.h"

enum trex_status trex_unitrace_summary_write(FILE *out, const struct trex_table *t,
                                             struct trex_error *err);

#endif
