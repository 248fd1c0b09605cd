/* Reading the text inputs of the profile readers (private to src/load):
 * a whole file (plain or gzip) in memory, and its lines split into CSV
 * fields with their positions, so that every problem can be reported at
 * its line and column. */
#ifndef TREX_LOAD_PROFILE_TEXT_H
#define TREX_LOAD_PROFILE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/profile.h"
#include "trex/core/status.h"
#include "trex/load/profile_load.h"

#define PROFILE_TEXT_MAX ((size_t)4 << 30) /* larger than any stall report */
#define PROFILE_SNIFF_BYTES 4096

/* The decoded bytes of path (gzip inflated), NUL-terminated, at most max
 * bytes (IO error beyond). *text is malloc'd. */
enum trex_status profile_text_read(const char *path, size_t max, char **text, size_t *len,
                                   struct trex_error *err);
/* Up to max first decoded bytes of path into buf; returns how many (0 when
 * it cannot be read). */
size_t profile_text_head(const char *path, char *buf, size_t max);

/* One field of a line: its text (unquoted, "" undoubled), where it starts
 * (1-based byte column) and whether it was quoted. Blanks around an
 * unquoted field and around the quotes of a quoted one are not part of it. */
struct pcsv_field {
	const char *s;
	size_t len;
	int64_t col;
	bool quoted;
};

/* A cursor over the lines of a text. */
struct pcsv {
	const char *text;
	size_t len, pos;
	/* the current line */
	const char *line;
	size_t line_len;
	int64_t lineno;      /* 1-based */
	int64_t line_offset; /* byte offset of the line in the text */
	bool line_cut;       /* the text ends inside this line (no newline) */
	/* its fields after pcsv_split */
	struct pcsv_field *f;
	size_t nf, cap_f;
	char *scratch; /* undoubled quoted fields */
	size_t cap_scratch;
};

void pcsv_init(struct pcsv *c, const char *text, size_t len);
void pcsv_free(struct pcsv *c);
/* Moves to the next line (without its \n or \r\n); false at the end. */
bool pcsv_next(struct pcsv *c);
/* Whether the current line is empty or blanks only. */
bool pcsv_blank(const struct pcsv *c);
/* Splits the current line at commas outside double quotes. Returns 0, or
 * the column of a problem with *why set: a quote that is not closed on
 * its line, text after a closing quote. -1 when out of memory. */
int64_t pcsv_split(struct pcsv *c, const char **why);

/* Whether field f is exactly s. */
bool pcsv_is(const struct pcsv_field *f, const char *s);
/* Numbers. Decimal: digits, with ',' between groups of three allowed
 * ("1,234", as Nsight Compute prints counts); hexadecimal: digits 0-9a-fA-F
 * with an optional 0x. false when the field is anything else or the value
 * exceeds 2^64 - 1. */
bool pcsv_u64(const struct pcsv_field *f, uint64_t *out);
bool pcsv_hex(const struct pcsv_field *f, uint64_t *out);

/* The value of a hexadecimal digit, -1 for any other character. */
int pcsv_hex_digit(char ch);

/* A problem at the current line, column col (1-based; 0: the line), as a
 * positioned FORMAT error of path: "PATH:LINE:COL: MESSAGE". */
void pcsv_problem(const struct pcsv *c, const char *path, int64_t col, struct trex_error *e,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A field's text for a message ("%.*s"), cut at 40 bytes. */
#define PCSV_SHOWN(f) (int)((f)->len > 40 ? 40 : (f)->len), (f)->s

struct profile_ctx;
/* A problem at column col of c's current line in report of path: reported
 * (positioned) and counted. */
void profile_row_problem(struct profile_ctx *ctx, uint32_t report, const struct pcsv *c,
                         const char *path, int64_t col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Whether c's current line has the want fields of the header at line
 * header_line; else reports the line as too long, too short or cut. */
bool profile_row_shape(struct profile_ctx *ctx, uint32_t report, const struct pcsv *c,
                       const char *path, size_t want, int64_t header_line);

/* ---- the profile formats ---------------------------------------------------------- */

/* What a load shares between its files: the store, the options, and the
 * SBID-stalled instructions of the Intel reports, which the shader dump
 * walk (shader_dump.c) starts from once every file is read. */
struct sbid_stall {
	uint32_t kernel;
	uint64_t addr;
};
struct profile_ctx {
	struct trex_profile *p;
	const struct trex_profile_load_opts *o;
	struct sbid_stall *sbid;
	size_t nsbid, cap_sbid;
	uint32_t *dumped_reports; /* reports whose kernels want a shader dump */
	size_t ndumped, cap_dumped;
};

/* Asks for the shader dump walk over report's kernels once every file is
 * read (with o->dump_dir). false when out of memory. */
bool profile_want_dump(struct profile_ctx *c, uint32_t report);

/* Reports problem (positioned) through the options' diag and counts it in
 * report. */
void profile_problem(struct profile_ctx *c, uint32_t report, const struct trex_error *problem);

/* A profile input format (the registry is in profile_load.c). */
struct trex_profile_format {
	const char *name; /* "unitrace-stalls" */
	/* 0..100: how sure the format is about these first bytes */
	int (*sniff)(const char *head, size_t len);
	/* Reads text (the whole file) into c->p as one report. Problems in rows
	 * are reported and the rows skipped; fails (FORMAT, positioned) only
	 * when nothing of the file is usable. */
	enum trex_status (*load)(struct profile_ctx *c, const char *path, const char *text,
	                         size_t len, struct trex_error *err);
};

#endif
