#include "config.h"

#include "trex/core/status.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const status_desc[] = {
#define STATUS_DESC(name, code, desc) desc,
    TREX_STATUS_INFO(STATUS_DESC)
#undef STATUS_DESC
};

static const int status_code[] = {
#define STATUS_CODE(name, code, desc) code,
    TREX_STATUS_INFO(STATUS_CODE)
#undef STATUS_CODE
};

void trex_error_clear(struct trex_error *err)
{
	if (!err)
		return;
	err->status = TREX_OK;
	err->path[0] = '\0';
	err->offset = -1;
	err->line = 0;
	err->col = 0;
	err->disk_offset = -1;
	err->message[0] = '\0';
}

enum trex_status trex_error_setv(struct trex_error *err, enum trex_status status, const char *path,
                                 int64_t offset, const char *fmt, va_list ap)
{
	if (!err)
		return status;
	err->status = status;
	/* path and err->path may be the same buffer when a caller re-sets an
	 * error it already holds; snprintf must not see overlapping buffers. */
	if (path != err->path)
		snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->offset = offset;
	err->line = 0;
	err->col = 0;
	err->disk_offset = -1;
	if (fmt)
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
	else
		err->message[0] = '\0';
	return status;
}

enum trex_status trex_error_set(struct trex_error *err, enum trex_status status, const char *path,
                                int64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trex_error_setv(err, status, path, offset, fmt, ap);
	va_end(ap);
	return status;
}

void trex_error_set_line_col(struct trex_error *err, int64_t line, int64_t col)
{
	if (!err)
		return;
	err->line = line;
	err->col = col;
}

int trex_error_format(const struct trex_error *err, char *buf, size_t size)
{
	const char *msg = err->message[0] ? err->message : trex_status_name(err->status);
	char where[TREX_ERROR_PATH_MAX + 48] = "";
	char at[80] = "";

	if (err->path[0] && err->line > 0)
		snprintf(where, sizeof(where), "%s:%" PRId64 ":%" PRId64 ": ", err->path, err->line,
		         err->col);
	else if (err->path[0])
		snprintf(where, sizeof(where), "%s: ", err->path);
	if (err->offset >= 0 && err->disk_offset >= 0)
		snprintf(at, sizeof(at), "(byte %" PRId64 ", compressed byte %" PRId64 ") ",
		         err->offset, err->disk_offset);
	else if (err->offset >= 0)
		snprintf(at, sizeof(at), "(byte %" PRId64 ") ", err->offset);
	return snprintf(buf, size, "%s%s%s", where, at, msg);
}

/* The human description ("out of memory"): what a user sees when an error
 * carries no message of its own. */
const char *trex_status_name(enum trex_status status)
{
	if ((unsigned)status >= TREX_STATUS_COUNT)
		return "unknown status";
	return status_desc[status];
}

int trex_status_exit_code(enum trex_status status)
{
	if ((unsigned)status >= TREX_STATUS_COUNT)
		return 2;
	return status_code[status];
}
