#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/core/status.h"

Test(status, clear_resets_everything)
{
	struct trex_error err;

	memset(&err, 0x55, sizeof(err));
	trex_error_clear(&err);
	cr_assert_eq(err.status, TREX_OK);
	cr_assert_str_empty(err.path);
	cr_assert_str_empty(err.message);
	cr_assert_eq(err.offset, -1);
	cr_assert_eq(err.line, 0);
	cr_assert_eq(err.col, 0);
	trex_error_clear(NULL); /* no-op, no crash */
}

Test(status, set_fills_fields_and_returns_status)
{
	struct trex_error err;

	trex_error_clear(&err);
	trex_error_set_line_col(&err, 9, 9);
	cr_assert_eq(trex_error_set(&err, TREX_FORMAT, "a.json", 42, "expected %s", "':'"),
	             TREX_FORMAT);
	cr_assert_eq(err.status, TREX_FORMAT);
	cr_assert_str_eq(err.path, "a.json");
	cr_assert_eq(err.offset, 42);
	cr_assert_str_eq(err.message, "expected ':'");
	cr_assert_eq(err.line, 0, "set resets line/col");
	cr_assert_eq(err.col, 0);
	cr_assert_eq(trex_error_set(NULL, TREX_IO, "x", 1, "m"), TREX_IO);
}

Test(status, set_with_null_path_and_own_path)
{
	struct trex_error err;

	trex_error_set(&err, TREX_IO, NULL, -1, "no path");
	cr_assert_str_empty(err.path);
	trex_error_set(&err, TREX_IO, "p", -1, "one");
	/* Re-setting with the error's own path buffer keeps it. */
	trex_error_set(&err, TREX_FORMAT, err.path, 3, "two");
	cr_assert_str_eq(err.path, "p");
	cr_assert_str_eq(err.message, "two");
}

Test(status, long_path_and_message_are_truncated)
{
	char big[2000];
	struct trex_error err;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	trex_error_set(&err, TREX_IO, big, 0, "%s", big);
	cr_assert_eq(strlen(err.path), TREX_ERROR_PATH_MAX - 1);
	cr_assert_eq(strlen(err.message), TREX_ERROR_MSG_MAX - 1);
}

Test(status, format_variants)
{
	struct trex_error err;
	char buf[1024];

	trex_error_set(&err, TREX_FORMAT, "t.json", 120, "expected ','");
	trex_error_set_line_col(&err, 3, 17);
	trex_error_format(&err, buf, sizeof(buf));
	cr_assert_str_eq(buf, "t.json:3:17: (byte 120) expected ','");

	trex_error_set(&err, TREX_FORMAT, "t.json", 120, "expected ','");
	trex_error_format(&err, buf, sizeof(buf));
	cr_assert_str_eq(buf, "t.json: (byte 120) expected ','");

	/* gzip input names the compressed byte too; a new error forgets it */
	trex_error_set_line_col(&err, 3, 17);
	err.disk_offset = 77;
	trex_error_format(&err, buf, sizeof(buf));
	cr_assert_str_eq(buf, "t.json:3:17: (byte 120, compressed byte 77) expected ','");
	trex_error_set(&err, TREX_FORMAT, "t.json", 120, "expected ','");
	cr_assert_eq(err.disk_offset, -1);

	trex_error_set(&err, TREX_IO, "t.json", -1, "cannot open");
	trex_error_format(&err, buf, sizeof(buf));
	cr_assert_str_eq(buf, "t.json: cannot open");

	trex_error_set(&err, TREX_USAGE, NULL, -1, "bad option");
	cr_assert_eq(trex_error_format(&err, buf, sizeof(buf)), (int)strlen("bad option"));
	cr_assert_str_eq(buf, "bad option");
}

Test(status, format_without_message_uses_status_text)
{
	struct trex_error err;
	char buf[64];

	trex_error_set(&err, TREX_NOMEM, NULL, -1, "%s", "");
	trex_error_format(&err, buf, sizeof(buf));
	cr_assert_str_eq(buf, "out of memory");
}

Test(status, format_truncates_and_reports_full_length)
{
	struct trex_error err;
	char buf[8];
	int n;

	trex_error_set(&err, TREX_IO, "file", -1, "message");
	n = trex_error_format(&err, buf, sizeof(buf));
	cr_assert_eq(n, (int)strlen("file: message"));
	cr_assert_str_eq(buf, "file: m");
}

Test(status, names_and_exit_codes_come_from_the_table)
{
	cr_assert_str_eq(trex_status_name(TREX_OK), "ok");
	cr_assert_str_eq(trex_status_name(TREX_NOMEM), "out of memory");
	cr_assert_str_eq(trex_status_name(TREX_EXISTS), "output exists (use --force)");
	cr_assert_str_eq(trex_status_name(TREX_STATUS_COUNT), "unknown status");
	cr_assert_eq(trex_status_exit_code(TREX_OK), 0);
	cr_assert_eq(trex_status_exit_code(TREX_USAGE), 1);
	cr_assert_eq(trex_status_exit_code(TREX_IO), 2);
	cr_assert_eq(trex_status_exit_code(TREX_FORMAT), 2);
	cr_assert_eq(trex_status_exit_code(TREX_CANCELLED), 2);
	cr_assert_eq(trex_status_exit_code((enum trex_status)99), 2);
	for (int s = 0; s < TREX_STATUS_COUNT; s++)
		cr_assert(strlen(trex_status_name((enum trex_status)s)) > 0);
}
