#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "trex/analysis/categories.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

#define EXIT_INTERRUPTED 130 /* 128 + SIGINT, as shells report it */

static enum trex_status dispatch(const struct cli_opts *o, const struct trex_index *idx,
                                 const struct trex_catset *set, FILE *out, struct trex_error *err)
{
	enum trex_status st;

	switch (o->command) {
	case CLI_CMD_INFO:
		return cmd_info(o, idx, out, err);
	case CLI_CMD_KERNELS:
		return cmd_kernels(o, idx, out, err);
	case CLI_CMD_CATEGORIES:
		return cmd_categories(o, idx, set, out, err);
	case CLI_CMD_GPU_TIME:
		return cmd_gpu_time(o, idx, out, err);
	case CLI_CMD_DEFAULT:
	default:
		st = cmd_info(o, idx, out, err);
		return st == TREX_OK ? cmd_kernels(o, idx, out, err) : st;
	}
}

/* The schema and the output first (a bad schema or an existing file fail
 * before a long load), then load, report, and commit or abort the output. */
static enum trex_status run(const struct cli_opts *o, struct trex_error *err)
{
	struct cli_output out;
	struct trex_index *idx = NULL;
	struct trex_catset *set = NULL;
	enum trex_status st = cmd_categories_schema(o, &set, err);
	enum trex_status st_close;

	if (st == TREX_OK)
		st = cli_output_open(o, &out, err);
	if (st != TREX_OK) {
		trex_catset_free(set);
		return st;
	}
	st = cli_load(o, &idx, err);
	if (st == TREX_OK)
		st = dispatch(o, idx, set, out.stream, err);
	trex_catset_free(set);
	st_close = cli_output_close(&out, st == TREX_OK, err);
	if (idx)
		trex_index_free(idx);
	if (st == TREX_OK)
		st = st_close;
	/* The table writers know a stream, not its name. */
	if (st == TREX_IO && !err->path[0])
		snprintf(err->path, sizeof(err->path), "%s",
		         o->output ? o->output : "standard output");
	return st;
}

static void print_error(const struct trex_error *err)
{
	char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

	trex_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "trex: %s\n", msg);
	if (err->status == TREX_USAGE)
		fputs("Try 'trex --help' for more information.\n", stderr);
}

int main(int argc, char **argv)
{
	struct cli_opts o;
	struct trex_error err;
	enum trex_status st;

	trex_error_clear(&err);
	st = cli_parse(argc, argv, &o, &err);
	if (st == TREX_OK && o.help) {
		cli_print_help(stdout);
		exit(fflush(stdout) == 0 ? EXIT_SUCCESS : 2);
	}
	if (st == TREX_OK && o.version) {
		puts(PACKAGE_STRING);
		exit(fflush(stdout) == 0 ? EXIT_SUCCESS : 2);
	}
	if (st == TREX_OK)
		st = run(&o, &err);
	if (st == TREX_OK)
		exit(EXIT_SUCCESS);
	print_error(&err);
	exit(st == TREX_CANCELLED ? EXIT_INTERRUPTED : trex_status_exit_code(st));
}
