/* The stall views (private to src/ui): one kernel's stall report and the
 * source pane of one kernel's lines, pushed from the stalls and sources
 * tables, the kernels table and each other. */
#ifndef TREX_UI_STALLS_VIEW_H
#define TREX_UI_STALLS_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "trex/ui/view.h"

/* The stall report of kernel k of ctx->profile: its reasons as bars, the
 * hottest instructions of each stall reason with their source lines and
 * what they wait for. NULL with ctx->msg set when it cannot be made. */
struct trex_view *stall_kernel_view_new(struct trex_ui_ctx *ctx, uint32_t k);
/* The source pane of kernel k: its files with per-line samples and reason
 * bars in the margin, the cursor on file:line (0 / 0: the hottest line),
 * and with insn (a store index, TREX_PROFILE_NONE: none) the assembly of
 * its line shown and the cursor on it. */
struct trex_view *stall_source_view_new(struct trex_ui_ctx *ctx, uint32_t k, uint32_t file,
                                        int64_t line, uint32_t insn);
/* The stall options the views compute with (ctx's baseline and sources). */
struct trex_stall_opts stall_view_opts(const struct trex_ui_ctx *ctx);
/* The kernel of ctx's stall reports that the trace's kernel name is
 * (trex_stalls_kernel_for, the baseline's left out), TREX_PROFILE_NONE
 * when none. */
uint32_t stall_kernel_by_name(const struct trex_ui_ctx *ctx, const char *name);
/* open-stalls on a kernel (the kernels table's row, the timeline's
 * slice): its stall report pushed on the view the user is in, true. false
 * when no stall report has it, for the caller to let the app open the
 * stalls table; with say_none (and a report loaded) the status line says
 * that the kernel has no stall samples. */
bool stall_open_kernel(struct trex_ui_ctx *ctx, const char *name, bool say_none);

#endif
