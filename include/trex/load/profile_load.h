/* Stall-sampling inputs, read into a profile store (trex/core/profile.h):
 *
 *  - unitrace-stalls: Intel unitrace's --stall-sampling CSV (unitrace.md
 *    §3): optional "=== Device #N Metrics ===" banners, a header row
 *    "Kernel, IP[Address], Active[Events], ..., OtherStall[Events]" (with
 *    PSDepStall[Events] on Xe2), rows of a quoted kernel name, a hex IP
 *    offset without 0x and one count per column, all padded with blanks;
 *    with a shader dump directory (IGC .asm files), each kernel's
 *    instructions, basic blocks, source lines and the instructions its
 *    SBID stalls wait for (unitrace.md §4);
 *  - ncu-source: Nsight Compute's source page as CSV (`ncu --import R
 *    --page source --csv --print-source sass|cuda|cuda,sass`): per kernel
 *    a "Kernel Name" / "Function Name" row (and "File Path" rows), a header
 *    row, then per SASS instruction (or source line) its address, text and
 *    warp-stall sample columns stall_*.
 *
 * Files are told apart by their first bytes, never by their names. A row
 * that cannot be read (too few or too many fields, a value that is not a
 * number, a line cut short) is reported through the diag callback at its
 * line and column, counted in its report, and skipped; every intact row is
 * kept. */
#ifndef TREX_LOAD_PROFILE_LOAD_H
#define TREX_LOAD_PROFILE_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/core/profile.h"
#include "trex/core/status.h"

/* Called once per problem (FORMAT, positioned "PATH:LINE:COL"), and for
 * notes that are not errors of the input (a kernel no .asm file names). */
typedef void trex_profile_diag_fn(void *user, const struct trex_error *problem);

struct trex_profile_load_opts {
	const char *dump_dir;       /* IGC shader dump directory for unitrace inputs, or NULL */
	trex_profile_diag_fn *diag; /* may be NULL */
	void *user;
};

/* The name of the profile format that claims these first bytes of a file
 * ("unitrace-stalls", "ncu-source"), NULL when none does. */
const char *trex_profile_sniff(const char *head, size_t len);
/* The same for a file (its first 4 KiB, gzip inflated); NULL when it is
 * not a profile input, cannot be read, or is no regular file (a pipe is
 * never sniffed: what it gives is read once, by the trace loader). */
const char *trex_profile_sniff_path(const char *path);

/* Reads every path (each a profile input) into a new, frozen store, one
 * report per file in the order given. A dump directory that cannot be
 * opened is an IO error; a kernel the dump has no .asm file for keeps its
 * per-address samples (and is noted through diag). FORMAT when a file is
 * no profile input or holds no usable row. */
enum trex_status trex_profile_load_paths(const char *const *paths, size_t n,
                                         const struct trex_profile_load_opts *o,
                                         struct trex_profile **out, struct trex_error *err);

/* Reads one input from memory (path names it in messages) into p, which
 * is not frozen by it: tests and fuzzing. With o->dump_dir, its unitrace
 * kernels take their instructions from the dump. */
enum trex_status trex_profile_load_text(struct trex_profile *p, const char *path, const char *text,
                                        size_t len, const struct trex_profile_load_opts *o,
                                        struct trex_error *err);

#endif
