#include "config.h"

#include "cli.h"

#include "trex/analysis/integrity.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/table.h"
#include "trex/export/table_write.h"

void cli_integrity_damaged(FILE *out, const char *run, const char *path, const char *lost)
{
	fprintf(out, "%s (%s): %s\n", run, path, lost);
}

void cli_integrity_headline_end(FILE *out, bool any)
{
	if (!any)
		fputs("No damage: every file read to its end, every value taken as written.\n",
		      out);
	fputc('\n', out);
}

/* The text report's first lines: what each damaged run lost, in the words
 * of the warning and of the interface's notice, or that nothing was. */
static void text_headline(const struct trex_index *idx, FILE *out)
{
	char run[512], lost[1024];
	bool any = false;

	for (uint32_t i = 0; i < trex_index_file_count(idx); i++) {
		const struct trex_file *f = trex_index_file(idx, i);

		if (!trex_file_lost_data(f))
			continue;
		trex_loss_text(idx, i, true, lost, sizeof(lost));
		cli_integrity_damaged(out, trex_file_label(idx, i, run, sizeof(run)),
		                      trex_index_str(idx, f->path), lost);
		any = true;
	}
	cli_integrity_headline_end(out, any);
}

/* `trex integrity`: every integrity counter per run, damage first, with
 * its first example (where, what, track, time, name). */
enum trex_status cmd_integrity(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                               struct trex_error *err)
{
	struct trex_table t;
	enum trex_status st = trex_integrity_table(m->idx, &t, NULL, err);

	if (st != TREX_OK)
		return st;
	if (o->format == TREX_FMT_TEXT)
		text_headline(m->idx, out);
	st = trex_table_write(out, &t, o->format, err);
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		cli_print_note(out, &t);
	trex_table_free(&t);
	return st;
}
