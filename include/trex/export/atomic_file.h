/* Safe output files: written to a temp file beside the target and renamed
 * over it on commit, so a reader never sees half a file and an existing
 * file is only replaced when force is set. A symlink to a file is followed
 * (the file is replaced, the link kept); a device, FIFO or socket
 * (/dev/null, /dev/stdout on a pipe) is written in place, force or not, as
 * writing to it replaces nothing and renaming over it would replace the
 * node. */
#ifndef TREX_EXPORT_ATOMIC_FILE_H
#define TREX_EXPORT_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "trex/core/status.h"

struct trex_atomic_file;

/* Fails with TREX_EXISTS when path is an existing file and !force. */
enum trex_status trex_atomic_open(const char *path, bool force, struct trex_atomic_file **out,
                                  FILE **stream, struct trex_error *err);
/* What trex_atomic_open checks first: TREX_EXISTS when path is an
 * existing file and !force, IO for a directory (to fail before a long
 * load). */
enum trex_status trex_atomic_check(const char *path, bool force, struct trex_error *err);
/* Flushes, fsyncs, renames; frees af. */
enum trex_status trex_atomic_commit(struct trex_atomic_file *af, struct trex_error *err);
/* Removes the temp file; frees af. NULL is a no-op. */
void trex_atomic_abort(struct trex_atomic_file *af);

#endif
