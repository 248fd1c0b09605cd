/* Status codes and positioned errors: every fallible function returns an
 * enum trex_status and fills a struct trex_error with where and why. */
#ifndef TREX_CORE_STATUS_H
#define TREX_CORE_STATUS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* X(NAME, exit_code, description): one table for enum, names and exit codes. */
#define TREX_STATUS_INFO(X)                                                                        \
	X(OK, 0, "ok")                                                                             \
	X(USAGE, 1, "usage error")                                                                 \
	X(IO, 2, "cannot read or write a file")                                                    \
	X(FORMAT, 2, "invalid or unsupported input")                                               \
	X(NOMEM, 2, "out of memory")                                                               \
	X(CANCELLED, 2, "cancelled")                                                               \
	X(EXISTS, 2, "output exists (use --force)")

enum trex_status {
#define TREX_STATUS_ENUM(name, code, desc) TREX_##name,
	TREX_STATUS_INFO(TREX_STATUS_ENUM)
#undef TREX_STATUS_ENUM
	    TREX_STATUS_COUNT
};

#define TREX_ERROR_PATH_MAX 512
#define TREX_ERROR_MSG_MAX 256

/* A positioned error. offset/line/col are -1/0/0 when unknown.
 * line and col are 1-based; col counts bytes. offset counts decoded bytes;
 * for gzip input disk_offset is the compressed byte being inflated there
 * (-1 when not gzip or unknown). */
struct trex_error {
	enum trex_status status;
	char path[TREX_ERROR_PATH_MAX];
	int64_t offset;
	int64_t line;
	int64_t col;
	int64_t disk_offset;
	char message[TREX_ERROR_MSG_MAX];
};

/* Resets err to TREX_OK with no position. err may be NULL (then no-op). */
void trex_error_clear(struct trex_error *err);

/* Sets status, path (may be NULL), byte offset (-1 if none) and a printf
 * message; line/col are reset to 0, disk_offset to -1. Returns status so callers can
 * `return trex_error_set(...)`. err may be NULL. */
enum trex_status trex_error_set(struct trex_error *err, enum trex_status status, const char *path,
                                int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
enum trex_status trex_error_setv(struct trex_error *err, enum trex_status status, const char *path,
                                 int64_t offset, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

/* Adds line:col to an error that already has an offset. */
void trex_error_set_line_col(struct trex_error *err, int64_t line, int64_t col);

/* One line, no newline:
 *   "PATH:LINE:COL: (byte OFFSET) MESSAGE"  when everything is known,
 *   "PATH: (byte OFFSET) MESSAGE", "PATH: MESSAGE" or "MESSAGE" otherwise;
 * gzip input: "(byte OFFSET, compressed byte DISK_OFFSET)".
 * Returns what snprintf returns. */
int trex_error_format(const struct trex_error *err, char *buf, size_t size);

const char *trex_status_name(enum trex_status status);
/* Process exit code for a status (0 ok, 1 usage, 2 input/output problems). */
int trex_status_exit_code(enum trex_status status);

#endif
