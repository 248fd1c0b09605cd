/* Chakra ET sets: the files {prefix}.{rank}.et (or .et.gz) of one run,
 * one rank per file. An input that names a set (its prefix, one of its
 * files, or the directory that holds it) stands for every file of the set,
 * in rank order. */
#ifndef TREX_LOAD_CHAKRA_SET_H
#define TREX_LOAD_CHAKRA_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"

/* Whether path's base name is {prefix}.{rank}.et or {prefix}.{rank}.et.gz
 * (rank decimal digits); then *rank and, when prefix_len is not NULL,
 * the length of path up to the prefix's end. */
bool trex_chakra_set_rank(const char *path, int64_t *rank, size_t *prefix_len);

/* What an expansion says about the sets it found. */
struct trex_chakra_note {
	char *text;   /* one line, no newline */
	bool warning; /* a rank is missing; else a count of what was found */
};

struct trex_chakra_expansion {
	char **paths; /* the inputs with each set's files in its place */
	size_t count;
	struct trex_chakra_note *notes;
	size_t note_count;
};

/* Expands the inputs: a directory holding one set, a set's prefix (no
 * such file, but {prefix}.N.et exist) or one file of a set becomes the
 * set's files in rank order; a set named twice comes once; other inputs
 * stay as they are. A directory holding several sets is a usage error
 * that lists their prefixes. out is empty on failure. */
enum trex_status trex_chakra_expand(const char *const *inputs, size_t count,
                                    struct trex_chakra_expansion *out, struct trex_error *err);
void trex_chakra_expansion_free(struct trex_chakra_expansion *e);

#endif
