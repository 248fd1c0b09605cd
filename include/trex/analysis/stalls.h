/* Stall reports from a profile store (trex/core/profile.h): for each
 * kernel its samples by stall reason, the hottest instructions of each
 * reason with their source line and, for dependency stalls, the
 * instruction they wait for; its source lines with their samples; and,
 * when the same kernel is in two reports, the per-line differences. One
 * computation for `trex stalls`, the stalls views and the exporters.
 *
 * Orders: reasons by samples, most first (ties: the report's column
 * order); instructions of a reason by its samples, most first (ties: by
 * address), as analyzeperfmetrics.py's report; lines by file then line. */
#ifndef TREX_ANALYSIS_STALLS_H
#define TREX_ANALYSIS_STALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/profile.h"
#include "trex/core/status.h"

#define TREX_STALLS_TOP_DEFAULT 10 /* analyzeperfmetrics.py's -n */

struct trex_regex;    /* analysis/table_order.h */
struct trex_srcfiles; /* load/source_files.h */

struct trex_stall_opts {
	size_t top;                      /* instructions per reason; 0: TREX_STALLS_TOP_DEFAULT */
	const struct trex_regex *kernel; /* only kernels whose name matches; NULL: all */
	/* The report kernels are compared with (same device and name);
	 * TREX_PROFILE_NONE: the latest earlier report that has the kernel. */
	uint32_t baseline;
	struct trex_srcfiles *sources; /* source text from files; NULL: quoted text only */
};

/* The kernels o selects, in store order, into out (room for every kernel
 * of p); returns how many. */
size_t trex_stalls_kernels(const struct trex_profile *p, const struct trex_stall_opts *o,
                           uint32_t *out);
/* The kernel of p that the trace's kernel name is, by the first of: the
 * same name; the same once a trailing "[...]" (unitrace's shape suffix),
 * a leading "void " and "(...)" standing for an argument list are set
 * aside; the same without argument lists (ncu's function names); one
 * naming the other without its scopes ("ns::k" and "k"). Kernels of
 * o->baseline (not NONE) are left out; of several, the one with the most
 * stall samples (one per device). TREX_PROFILE_NONE when none. */
uint32_t trex_stalls_kernel_for(const struct trex_profile *p, const char *name,
                                const struct trex_stall_opts *o);
/* The kernel k is compared with: same device and name in o->baseline (or
 * an earlier report); TREX_PROFILE_NONE when none. */
uint32_t trex_stalls_baseline(const struct trex_profile *p, uint32_t k,
                              const struct trex_stall_opts *o);

/* Report columns (slots) of kernel k with samples, in the reasons' order;
 * with stalls_only, NOT_STALL reasons left out. slots has room for the
 * report's reasons; returns how many. */
size_t trex_stalls_reasons(const struct trex_profile *p, uint32_t k, bool stalls_only,
                           uint32_t *slots);
/* The store indices of the (at most top) instructions of kernel k with
 * samples of reason slot, hottest first; returns how many. */
size_t trex_stalls_top(const struct trex_profile *p, uint32_t k, uint32_t slot, size_t top,
                       uint32_t *out);
/* Stall samples of instruction i (its kernel's stall reasons summed). */
uint64_t trex_stalls_insn_total(const struct trex_profile *p, uint32_t k, uint32_t i);

/* The text of line of file (string ids of p): the file's own line when
 * o->sources finds it, else the text an input quoted; NULL when neither. */
const char *trex_stalls_line_text(const struct trex_profile *p, const struct trex_stall_opts *o,
                                  uint32_t file, int64_t line, size_t *len);

/* ---- per source line ------------------------------------------------------------------- */

struct trex_stall_line {
	uint32_t file;          /* string id (0: no file known) */
	int64_t line;           /* 0: instructions without a line */
	uint64_t stall;         /* stall samples of its instructions */
	uint64_t base;          /* the baseline kernel's, when compared */
	uint32_t first, ninsns; /* its instructions: insns[first .. first + ninsns) */
};

/* Kernel k's instructions grouped by source line (file, line order; the
 * instructions of a line by address), each line's counts per report
 * column in counts[line * nreasons + slot]. base: a kernel to compare
 * with (lines only it has appear with no instructions), or NONE. */
struct trex_stall_lines {
	struct trex_stall_line *v;
	size_t n;
	uint32_t *insns; /* store indices */
	uint64_t *counts;
	uint32_t nreasons;
};
enum trex_status trex_stalls_lines(const struct trex_profile *p, uint32_t k, uint32_t base,
                                   struct trex_stall_lines *out, struct trex_error *err);
void trex_stall_lines_free(struct trex_stall_lines *l);
/* The line of l holding file:line, SIZE_MAX if none. */
size_t trex_stall_lines_find(const struct trex_stall_lines *l, uint32_t file, int64_t line);

/* ---- tables (one computation for the CLI, the views and the exporters) ---------------------- */

/* "stall_kernels": per selected kernel: report, device, stall samples,
 * all samples, the top reason and its share, sampled instructions, the
 * listing (dump) it came with, the baseline report, its stall samples
 * and the difference; the kernel name last. A note says why when empty. */
enum trex_status trex_stalls_kernels_table(const struct trex_profile *p,
                                           const struct trex_stall_opts *o, struct trex_table *t,
                                           struct trex_error *err);
/* "stall_reasons": per selected kernel and reason with samples: samples,
 * share of the kernel's stall samples (empty for NOT_STALL reasons). */
enum trex_status trex_stalls_reasons_table(const struct trex_profile *p,
                                           const struct trex_stall_opts *o, struct trex_table *t,
                                           struct trex_error *err);
/* "stall_top": per selected kernel, stall reason and rank (at most
 * o->top): address, samples, share of the reason's samples, instruction,
 * basic block, source file, line and its text; and for each instruction
 * it waits for (one row each, the rank repeated) its address, text, file
 * and line. */
enum trex_status trex_stalls_top_table(const struct trex_profile *p,
                                       const struct trex_stall_opts *o, struct trex_table *t,
                                       struct trex_error *err);
/* "stall_lines": per selected kernel and source line with samples (or
 * baseline samples): stall samples, share, top reason, instructions, and
 * when compared the baseline's samples and the difference; the text. */
enum trex_status trex_stalls_lines_table(const struct trex_profile *p,
                                         const struct trex_stall_opts *o, struct trex_table *t,
                                         struct trex_error *err);

/* "0x1b8" (has_addr) or "-" into buf (24 bytes are enough). */
const char *trex_stalls_addr(const struct trex_profile_insn *in, char *buf, size_t size);

#endif
