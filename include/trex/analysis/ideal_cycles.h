/* acelyzer's categories table (acelyzer.md §3, §4): per AIU device, the
 * time of its kernels by the kernel category of the DeepTools compiler
 * log (load/deeptools_log.h), beside their ideal cycles and the share of
 * that time the processing tiles would need at the ideal (PT
 * utilisation). */
#ifndef TREX_ANALYSIS_IDEAL_CYCLES_H
#define TREX_ANALYSIS_IDEAL_CYCLES_H

#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/load/deeptools_log.h"

/* acelyzer's default core clock (its --freq default 1000:1100, MHz). */
#define TREX_IDEAL_CORE_MHZ 1100u

/* Device kernels (trex_work_kind KERNEL) of every process that runs any,
 * each matched by its name (" Cmpt Exec" appended when missing) to the
 * log table listing the most of the device's kernel instances (ties: the
 * earlier table). Per device, one row per category of that table, plus
 * "Total", "StcdpHbm" and "other" (kernels the table does not list):
 *   rank, device, phase (the table's),
 *   kernel_ns     the category's summed kernel durations
 *   time_pct      of the device's Total
 *   calls
 *   ideal_ns      ideal cycles / core_mhz, summed
 *   ideal_cycles  the kernels' ideal cycles, summed
 *   ideal_pct     of the device's Total ideal time
 *   pt_util_pct   ideal_ns / kernel_ns * 100 (0 without time)
 *   category
 * An instance whose ideal time exceeds its duration adds no ideal cycles
 * (acelyzer drops them: the table does not fit that run). Rows by device
 * (display order), then kernel time ascending with Total last, ties in
 * acelyzer's order: StcdpHbm, other, then the log's. Without a
 * kernel, no row and t->note says why. core_mhz 0: TREX_IDEAL_CORE_MHZ. */
enum trex_status trex_ideal_categories_table(const struct trex_index *idx,
                                             const struct trex_ideal_log *log, uint32_t core_mhz,
                                             struct trex_table *t, struct trex_error *err);

#endif
