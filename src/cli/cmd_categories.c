#include "config.h"

#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/ideal_cycles.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"
#include "trex/export/unitrace_summary.h"
#include "trex/load/deeptools_log.h"

#define SCHEMA_MAX (64u << 20)         /* a category file is small; refuse anything huge */
#define COMPILER_LOG_MAX (1024u << 20) /* compiler logs are verbose, not unbounded */

static void print_diag(void *user, const char *line)
{
	(void)user;
	fprintf(stderr, "trex: %s\n", line);
}

/* The whole of a small text file (at most max bytes, what: its kind for
 * the message), NUL-terminated. */
static enum trex_status read_file(const char *path, size_t max, const char *what, char **text,
                                  size_t *len, struct trex_error *err)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	char *buf = NULL;

	if (!f)
		return trex_error_set(err, TREX_IO, path, -1, "cannot open: %s", strerror(errno));
	for (;;) {
		char *b = n + 1 >= cap || !buf ? realloc(buf, cap *= 2) : buf;
		size_t got;

		if (!b) {
			free(buf);
			fclose(f);
			return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
		}
		buf = b;
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0 || n > max)
			break;
	}
	if (ferror(f) || n > max) {
		free(buf);
		fclose(f);
		if (n > max)
			return trex_error_set(err, TREX_IO, path, -1, "too large for a %s", what);
		return trex_error_set(err, TREX_IO, path, -1, "read error");
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return TREX_OK;
}

enum trex_status cmd_categories_schema(const struct cli_opts *o, struct trex_catset **set,
                                       struct trex_error *err)
{
	char *text = NULL;
	size_t len = 0;
	enum trex_status st;

	*set = NULL;
	if (!o->schema)
		return TREX_OK;
	st = read_file(o->schema, SCHEMA_MAX, "category file", &text, &len, err);
	if (st == TREX_OK)
		st = trex_catset_parse(o->schema, text, len, print_diag, NULL, set, err);
	free(text);
	return st;
}

static void print_problem(void *user, const struct trex_error *problem)
{
	char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

	(void)user;
	trex_error_format(problem, msg, sizeof(msg));
	fprintf(stderr, "trex: %s\n", msg);
}

enum trex_status cmd_categories_compiler_log(const struct cli_opts *o, struct trex_ideal_log **log,
                                             struct trex_error *err)
{
	char *text = NULL;
	size_t len = 0;
	enum trex_status st;

	*log = NULL;
	if (!o->compiler_log)
		return TREX_OK;
	st = read_file(o->compiler_log, COMPILER_LOG_MAX, "compiler log", &text, &len, err);
	if (st == TREX_OK)
		st = trex_deeptools_log_parse(o->compiler_log, text, len, print_problem, NULL, log,
		                              err);
	free(text);
	return st;
}

/* `trex categories`: GPU time per kernel category. */
enum trex_status cmd_categories(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                                struct trex_error *err)
{
	struct trex_category_opts co = {.set = m->catset, .bar = o->format == TREX_FMT_TEXT};
	struct trex_table t;
	enum trex_status st =
	    m->ideal     ? trex_ideal_categories_table(m->idx, m->ideal, o->core_mhz, &t, err)
	    : o->explain ? trex_categories_explain_table(m->idx, &co, &t, err)
	                 : trex_categories_table(m->idx, &co, &t, err);

	if (st != TREX_OK)
		return st;
	if (o->unitrace_json)
		st = trex_unitrace_summary_write(out, &t, err);
	else
		st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		cli_print_note(out, &t);
	trex_table_free(&t);
	return st;
}
