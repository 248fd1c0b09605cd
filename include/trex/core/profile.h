/* The profile store: what a GPU profiler sampled per instruction, beside the
 * trace index (not in it). For each report (one input file), device and
 * kernel it keeps, per instruction address, the sample count of each stall
 * reason the report has, with the instruction's text, basic block, source
 * file and line; the instructions a stalled instruction waits for; and the
 * text of source lines as the input quoted them. It knows no format: the
 * Intel and NVIDIA readers (src/load) fill it through the builder calls
 * below, the analyses (src/analysis/stalls.c) read it.
 *
 * Life cycle: trex_profile_new, then any number of builder calls (one
 * thread), then trex_profile_freeze, after which it is read-only: the
 * builder calls are valid only before it; of the query calls, strings,
 * reasons, reports and kernels (but not their totals or instructions) may
 * also be read while building. Ids (reports, reasons, kernels, strings) are small integers
 * that stay valid for the life of the store. */
#ifndef TREX_CORE_PROFILE_H
#define TREX_CORE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"

#define TREX_PROFILE_NONE UINT32_MAX /* no such id */
#define TREX_PROFILE_PROBLEMS 8      /* positioned problems kept per report */

/* What a stall reason means for the analyses. */
enum trex_reason_flag {
	TREX_REASON_NOT_STALL = 1u << 0,  /* samples of a thread that was issuing (Active,
	                                   * selected): shown, never counted as a stall */
	TREX_REASON_DEPENDENCY = 1u << 1, /* waiting for a value another instruction
	                                   * produces (SBID, scoreboard): an
	                                   * instruction's waits explain its samples
	                                   * of these reasons, and of no other */
};

struct trex_profile_reason {
	uint32_t name;  /* string id: the column as the input names it, "SbidStall" */
	uint32_t label; /* string id: a short label for tables, "Sbid" */
	uint32_t flags; /* enum trex_reason_flag */
};

/* One input file. Its reasons are its sample columns, in input order. */
struct trex_profile_report {
	uint32_t path;     /* string id */
	uint32_t format;   /* string id: "unitrace-stalls", "ncu-source" */
	uint32_t *reasons; /* reason ids, nreasons of them */
	uint32_t nreasons;
	uint64_t rows;                                    /* instruction rows read */
	uint64_t problems;                                /* rows or fields reported and skipped */
	struct trex_error problem[TREX_PROFILE_PROBLEMS]; /* the first ones, positioned */
};

enum trex_kernel_flag {
	TREX_KERNEL_LISTING = 1u << 0, /* every instruction came from a disassembly (a dump) */
	TREX_KERNEL_SOURCE = 1u << 1,  /* some instruction has a source line */
};

struct trex_profile_kernel {
	uint32_t report;
	int64_t device;      /* device number as the input gives it (0 when it has none) */
	uint32_t name;       /* string id, as the report names it */
	uint32_t listing;    /* string id: the dump file the instructions came from, 0 if none */
	uint32_t flags;      /* enum trex_kernel_flag */
	uint32_t first_insn; /* its instructions: [first_insn, first_insn + ninsns) */
	uint32_t ninsns;
	uint64_t *totals;     /* per reason of its report: samples over all instructions */
	uint64_t stall_total; /* samples of every stall reason (not NOT_STALL ones) */
};

/* One instruction (or, for inputs that give only source lines, one line). */
struct trex_profile_insn {
	uint64_t addr;               /* offset in the kernel; meaningless without has_addr */
	bool has_addr;               /* false: a source-line row of an input without addresses */
	uint32_t text;               /* string id: the instruction as disassembled, 0 if unknown */
	uint32_t block;              /* string id: its basic block ("B003"), 0 if unknown */
	uint32_t file;               /* string id: its source file, 0 if unknown */
	int64_t line;                /* its source line, 0 if unknown */
	uint32_t first_wait, nwaits; /* what it waits for (trex_profile_wait_at) */
};

/* An instruction a stalled one waits for: the producer of a value it needs,
 * with the source line and file the finding attributes to it (0: unknown). */
struct trex_profile_wait {
	uint64_t producer;
	uint32_t file;
	int64_t line;
};

struct trex_profile;

/* ---- building ---------------------------------------------------------------------- */

struct trex_profile *trex_profile_new(void);
void trex_profile_free(struct trex_profile *p);

/* Interns s[0..len) in the store's strings; TREX_PROFILE_NONE when out of
 * memory. Id 0 is "". */
uint32_t trex_profile_intern(struct trex_profile *p, const char *s, size_t len);

/* The reason called name (created with label and flags on first use; a
 * later call with the same name returns it unchanged). NONE on OOM. */
uint32_t trex_profile_reason_add(struct trex_profile *p, const char *name, const char *label,
                                 uint32_t flags);

/* A new report of path in format with the reason columns reasons[0..n)
 * (copied). NONE on OOM. */
uint32_t trex_profile_report_add(struct trex_profile *p, const char *path, const char *format,
                                 const uint32_t *reasons, uint32_t n);
/* Counts a row of report (rows) and, when problem is not NULL, a problem
 * (kept among the first TREX_PROFILE_PROBLEMS). */
void trex_profile_report_note(struct trex_profile *p, uint32_t report, uint64_t rows,
                              const struct trex_error *problem);

/* The kernel (report, device, name id), created on first use; NONE on OOM. */
uint32_t trex_profile_kernel_add(struct trex_profile *p, uint32_t report, int64_t device,
                                 uint32_t name);
/* Marks where a kernel's instructions came from (a dump file) and its flags. */
void trex_profile_kernel_set(struct trex_profile *p, uint32_t kernel, uint32_t listing,
                             uint32_t flags);

/* What a row tells about an instruction; fields left 0 add nothing. */
struct trex_insn_info {
	uint64_t addr;
	bool has_addr;
	uint32_t text, block, file; /* string ids or 0 */
	int64_t line;               /* or 0 */
};

/* Adds an instruction row to kernel: counts[0..nreasons of its report) are
 * added to what earlier rows of the same address gave (counts NULL: none,
 * the row only describes the instruction); non-zero fields of info replace
 * earlier ones. Rows without an address (has_addr false) are told apart by
 * info->addr, which the reader chooses (an ordinal). 0, or -1 on OOM. */
int trex_profile_insn_add(struct trex_profile *p, uint32_t kernel,
                          const struct trex_insn_info *info, const uint64_t *counts);
/* The instruction at addr of kernel waits for producer (file/line: the
 * source the finding gives it, 0 if none). 0, or -1 on OOM. */
int trex_profile_wait_add(struct trex_profile *p, uint32_t kernel, uint64_t addr, uint64_t producer,
                          uint32_t file, int64_t line);
/* The text of line of file as an input quoted it (the first quote wins).
 * 0, or -1 on OOM. */
int trex_profile_source_add(struct trex_profile *p, uint32_t file, int64_t line, uint32_t text);

/* Freezes the store: merges the rows of each instruction, orders each
 * kernel's instructions by address (rows without one after, by ordinal),
 * sums the totals. NOMEM when out of memory (the store is then unusable). */
enum trex_status trex_profile_freeze(struct trex_profile *p, struct trex_error *err);

/* ---- reading (frozen) ---------------------------------------------------------------- */

const char *trex_profile_str(const struct trex_profile *p, uint32_t id);
/* The id of a string already in the store, NONE when absent. */
uint32_t trex_profile_str_find(const struct trex_profile *p, const char *s, size_t len);

uint32_t trex_profile_reason_count(const struct trex_profile *p);
const struct trex_profile_reason *trex_profile_reason(const struct trex_profile *p, uint32_t id);

uint32_t trex_profile_report_count(const struct trex_profile *p);
const struct trex_profile_report *trex_profile_report(const struct trex_profile *p, uint32_t id);

/* Kernels in the order of their reports, then of first appearance. */
uint32_t trex_profile_kernel_count(const struct trex_profile *p);
const struct trex_profile_kernel *trex_profile_kernel(const struct trex_profile *p, uint32_t id);

/* Instruction i of the store (kernel ranges index into it). */
const struct trex_profile_insn *trex_profile_insn(const struct trex_profile *p, uint32_t i);
/* Its sample counts, one per reason of its kernel's report. */
const uint64_t *trex_profile_counts(const struct trex_profile *p, uint32_t i);
/* The instruction of kernel at addr, NONE if it has none. */
uint32_t trex_profile_insn_find(const struct trex_profile *p, uint32_t kernel, uint64_t addr);
/* Wait w of the store (an instruction's range indexes into it). */
const struct trex_profile_wait *trex_profile_wait_at(const struct trex_profile *p, uint32_t w);
/* The quoted text of line of file (string id), 0 when no input quoted it. */
uint32_t trex_profile_source_text(const struct trex_profile *p, uint32_t file, int64_t line);

/* Bytes held, for memory statistics. */
size_t trex_profile_memory(const struct trex_profile *p);

#endif
