/* --compare FILE[,FILE...] in the interface: a second run stacked under
 * the first on one time axis (ui/timeline_compare.h). The same option
 * names a stall report for the stalls views; what it is, is decided by
 * the file: a stall report stays one, anything else is a run. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trex/core/display.h"
#include "trex/load/profile_load.h"

bool cli_compare_is_run(const struct cli_opts *o)
{
	return o->compare && o->command == CLI_CMD_DEFAULT && !trex_profile_sniff_path(o->compare);
}

const char *cli_compare_report(const struct cli_opts *o)
{
	return cli_compare_is_run(o) ? NULL : o->compare;
}

void cli_files_label(const struct trex_index *idx, char *buf, size_t size)
{
	uint32_t n = trex_index_file_count(idx);
	size_t used;

	if (n == 1) {
		snprintf(buf, size, "%s", trex_index_str(idx, trex_index_file(idx, 0)->path));
		return;
	}
	used = (size_t)snprintf(buf, size, "%" PRIu32 " %s: ", n, trex_plural(n, "file", "files"));
	for (uint32_t i = 0; i < n && used < size; i++) {
		const char *path = trex_index_str(idx, trex_index_file(idx, i)->path);
		const char *base = strrchr(path, '/');

		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
		                         base && base[1] ? base + 1 : path);
	}
}

enum trex_status cli_compare_load(const struct cli_opts *o, const struct trex_catset *schema,
                                  struct trex_index **out, char *label, size_t size,
                                  struct trex_error *err)
{
	struct cli_opts b = *o;
	char *input = strdup(o->compare);
	enum trex_status st;

	*out = NULL;
	if (!input)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	b.inputs = &input;
	b.input_count = 1;
	b.demo = false;
	st = cli_load(&b, schema, out, NULL, err);
	free(input);
	if (st == TREX_OK && *out)
		cli_files_label(*out, label, size);
	return st;
}
