/* `trex stragglers`: who arrived last at each collective and step, on the
 * aligned clock (analysis/rank_align.h). */
#include "config.h"

#include "cli.h"

#include "trex/export/table_write.h"

static enum trex_status write_json(const struct trex_table *ev, const struct trex_table *rk,
                                   FILE *out, struct trex_error *err)
{
	enum trex_status st;

	fputs("{\"events\": ", out);
	st = trex_table_write(out, ev, TREX_FMT_JSON, err);
	if (st == TREX_OK) {
		fputs(",\n\"ranks\": ", out);
		st = trex_table_write(out, rk, TREX_FMT_JSON, err);
	}
	if (st == TREX_OK)
		fputs("}\n", out);
	return st;
}

static void text_note(const struct cli_opts *o, FILE *out)
{
	if (o->align == TREX_ALIGN_NONE)
		fputs("\nTimes as recorded (--align none): clock offsets between ranks count as "
		      "lateness.\n",
		      out);
	else
		fprintf(out, "\nTimes aligned on %s (trex align shows the offsets).\n",
		        trex_align_on_name(o->align));
}

enum trex_status cmd_stragglers(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                                struct trex_error *err)
{
	struct trex_table ev, rk;
	enum trex_status st = trex_stragglers_tables(m->idx, o->step, &ev, &rk, NULL, err);

	if (st != TREX_OK)
		return st;
	if (o->format == TREX_FMT_JSON) {
		st = write_json(&ev, &rk, out, err);
	} else {
		st = trex_table_write(out, &ev, o->format, err);
		if (st == TREX_OK && o->format == TREX_FMT_TEXT) {
			fputs("\nPer rank:\n", out);
			st = trex_table_write(out, &rk, TREX_FMT_TEXT, err);
		}
	}
	if (st == TREX_OK && o->format == TREX_FMT_TEXT)
		text_note(o, out);
	trex_table_free(&ev);
	trex_table_free(&rk);
	return st;
}
