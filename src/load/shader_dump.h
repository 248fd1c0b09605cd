/* IGC shader dumps (private to src/load): the .asm files of a dump
 * directory, matched to kernels by their //.kernel line, read into the
 * instructions of a profile kernel, and the SBID token walk that finds the
 * instruction an SbidStall waits for (unitrace.md §4; analyzeperfmetrics.py
 * AnalyzeStalls, ConstructCFG). */
#ifndef TREX_LOAD_SHADER_DUMP_H
#define TREX_LOAD_SHADER_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/profile.h"
#include "trex/core/status.h"

/* ---- one .asm text (asm_listing.c) ------------------------------------------------- */

enum asm_kind {
	ASM_OTHER, /* comments, declarations, labels, blank lines */
	ASM_INSN,  /* an instruction: not starting with "//" but holding "//" */
	ASM_LINE,  /* "// Line N[:  source]" (any blanks after //) */
	ASM_FILE,  /* "// File: PATH" */
	ASM_BLOCK, /* "// Bnnn: ... Preds:{...}, Succs:{...}" */
};

struct asm_line {
	const char *s; /* the line as written, without its newline */
	size_t len;
	enum asm_kind kind;
	uint64_t addr;  /* ASM_INSN: its offset */
	int64_t number; /* ASM_LINE: the source line */
	uint32_t block; /* the basic block holding the line (index), UINT32_MAX: none */
};

struct asm_block {
	char id[24];       /* "B003" */
	size_t head, tail; /* its lines: from its "// Bnnn:" line to the line before the next */
	uint32_t *preds;   /* block indices; names no block defines are left out */
	uint32_t npreds;
};

struct asm_listing {
	struct asm_line *lines;
	size_t n;
	struct asm_block *blocks; /* no "// Bnnn:" line: one block B000 of every line */
	uint32_t nblocks;
	bool has_source; /* some "// Line" annotation */
	/* Per line i (0..n): the nearest Line / File annotation above it (a
	 * line index < i), SIZE_MAX: none; what the walk's last backward scan
	 * looks for, found without scanning a listing that names its file once. */
	size_t *line_above, *file_above;
	bool prefixed; /* every instruction carried a "/ * [ADDR] * /" prefix */
};

/* Splits text (kept, not copied) into lines and classifies them; the
 * addresses come from the "/ * [%08X] * /" prefixes when every instruction
 * has one, else they are counted as addrasm.py does (+8 after a line
 * holding "Compacted", +16 after any other). false when out of memory. */
bool asm_listing_parse(const char *text, size_t len, struct asm_listing *out);
void asm_listing_free(struct asm_listing *a);
/* The instruction line at addr, SIZE_MAX if none. */
size_t asm_listing_find(const struct asm_listing *a, uint64_t addr);
/* The text of instruction line i as shown: without the address prefix and
 * the trailing "//" comment, blanks trimmed. */
void asm_insn_text(const struct asm_line *l, const char **s, size_t *len);
/* The source path of a File line, the source text of a Line line (after
 * "N:", blanks trimmed; empty when the compiler could not read it). */
void asm_annotation_text(const struct asm_line *l, const char **s, size_t *len);

/* What the SBID walk found for one stalled instruction: the instructions
 * that set the tokens it waits for, each with the Line and File
 * annotations the walk attributes to it (line indices, SIZE_MAX: none
 * found), and the tokens no earlier instruction sets. */
struct sbid_cause {
	size_t insn, line, file;
};
struct sbid_result {
	struct sbid_cause *causes;
	size_t n, cap;
	unsigned tokens;     /* SBID tokens the stalled instruction waits for */
	unsigned unresolved; /* of them, set by no instruction the walk reached */
};

/* The walk of analyzeperfmetrics.py from instruction line stalled: its
 * tokens ("$N.dst"/"$N.src" of the first {...} group, or "$N"; for
 * load/store/send/EOT lines only the suffixed ones; else those of the
 * first (...) group holding any), then backwards through its block and
 * breadth-first through predecessor blocks: "$N.x" is set by an earlier
 * instruction carrying "$N", a bare "$N" by an earlier non-"sync."
 * instruction carrying exactly "$N". Each block is entered once (the
 * script loops forever on a cycle it cannot resolve). 0, -1 when out of
 * memory. */
int asm_sbid_walk(const struct asm_listing *a, size_t stalled, struct sbid_result *out);
void sbid_result_free(struct sbid_result *r);

/* ---- a dump directory (shader_dump.c) ----------------------------------------------- */

struct shader_dump;

/* Lists dir's .asm files and the kernels their //.kernel lines name,
 * demangled with c++filt as analyzeperfmetrics.py does. IO when dir cannot
 * be read. */
enum trex_status shader_dump_open(const char *dir, struct shader_dump **out,
                                  struct trex_error *err);
void shader_dump_free(struct shader_dump *d);
/* The .asm file for kernel name (as a stall CSV names it), NULL if none:
 * among the files naming it, the longest path, then the largest. */
const char *shader_dump_find(const struct shader_dump *d, const char *name);

/* Reads the listing text (path names it) into kernel of p: every
 * instruction with its text, block, source file and line (counts
 * untouched), the source lines quoted by Line annotations, and for each
 * address of sbid[0..n) the instructions its SBID tokens wait for.
 * Returns false when out of memory. */
bool shader_dump_apply(struct trex_profile *p, uint32_t kernel, const char *path, const char *text,
                       size_t len, const uint64_t *sbid, size_t n);

#endif
