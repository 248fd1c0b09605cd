/* `trex align` and --align: the ranks' clocks (analysis/rank_align.h). */
#include "config.h"

#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/clock.h"
#include "trex/core/display.h"
#include "trex/export/table_write.h"

enum trex_status cli_apply_align_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                       bool *handled, struct trex_error *err)
{
	enum trex_align_on on;

	*handled = id == CLI_OPT_ON || id == CLI_OPT_ALIGN;
	if (!*handled)
		return TREX_OK;
	if (!trex_align_on_parse(arg, &on) || (id == CLI_OPT_ON && on == TREX_ALIGN_NONE))
		return trex_error_set(
		    err, TREX_USAGE, NULL, -1, "--%s: expected collectives or steps%s, not '%s'",
		    id == CLI_OPT_ON ? "on" : "align", id == CLI_OPT_ON ? "" : " (or none)", arg);
	if (id == CLI_OPT_ON)
		o->align_on = on;
	else
		o->align = on;
	return TREX_OK;
}

static double largest_residual(const struct trex_rank_align *a, uint32_t *unaligned)
{
	double max = 0;

	*unaligned = 0;
	for (uint32_t u = 0; u < a->nranks; u++) {
		max = fmax(max, a->ranks[u].max_ns);
		*unaligned += !a->ranks[u].aligned;
	}
	return max;
}

static void say_aligned(const struct cli_opts *o, const struct trex_rank_align *a)
{
	uint32_t unaligned;
	char res[32];

	trex_format_duration(largest_residual(a, &unaligned), res, sizeof(res));
	if (!o->quiet)
		fprintf(stderr,
		        "trex: %" PRIu32 " ranks put on one clock by %" PRIu64
		        " %s (largest residual %s; trex align shows each rank's offset)\n",
		        a->nranks - unaligned, a->anchors,
		        o->align == TREX_ALIGN_STEPS ? "step boundaries" : "collectives", res);
	if (unaligned)
		fprintf(stderr,
		        "trex: warning: %" PRIu32
		        " %s no %s with the others: their times are as recorded\n",
		        unaligned, unaligned == 1 ? "rank shares" : "ranks share",
		        o->align == TREX_ALIGN_STEPS ? "step" : "collective");
}

enum trex_status cli_align_index(const struct cli_opts *o, struct trex_index *idx,
                                 struct trex_error *err)
{
	struct trex_align_opts ao = {o->align, o->step};
	struct trex_rank_align a;
	struct trex_clock_fix *fix = NULL;
	enum trex_status st;

	if (o->align == TREX_ALIGN_NONE)
		return TREX_OK;
	if (trex_index_graph(idx)) /* its timeline is a schedule: moving slices would leave it */
		return trex_error_set(err, TREX_FORMAT, NULL, -1,
		                      "--align %s: execution graphs (Chakra ET, ASTRA-sim, PyTorch "
		                      "host ET) are scheduled on one clock already",
		                      trex_align_on_name(o->align));
	st = trex_rank_align(idx, &ao, &a, err);
	if (st == TREX_USAGE || st == TREX_FORMAT) {
		char why[TREX_ERROR_MSG_MAX];

		snprintf(why, sizeof(why), "%s", err->message);
		return trex_error_set(err, st, NULL, -1, "--align %s: %s",
		                      trex_align_on_name(o->align), why);
	}
	if (st == TREX_OK)
		st = trex_rank_align_fixes(idx, &a, &fix, err);
	if (st == TREX_OK)
		st = trex_index_fix_clocks(idx, fix, err);
	if (st == TREX_OK)
		say_aligned(o, &a);
	free(fix);
	trex_rank_align_free(&a);
	return st;
}

static enum trex_status write_json(const struct cli_opts *o, const struct trex_rank_align *a,
                                   const struct trex_table *t, FILE *out, struct trex_error *err)
{
	enum trex_status st;

	fprintf(out,
	        "{\"on\": \"%s\", \"anchors\": %" PRIu64 ", \"mismatched\": %" PRIu64
	        ", \"groups\": %" PRIu32 ",\n\"ranks\": ",
	        trex_align_on_name(o->align_on), a->anchors, a->mismatched, a->groups);
	st = trex_table_write(out, t, TREX_FMT_JSON, err);
	if (st == TREX_OK)
		fputs("}\n", out);
	return st;
}

static void text_footer(const struct cli_opts *o, const struct trex_rank_align *a, FILE *out)
{
	bool steps = o->align_on == TREX_ALIGN_STEPS;

	fprintf(out, "\n%" PRIu64 " anchors: %s of %" PRIu32 " %s%s", a->anchors,
	        steps ? "the starts and ends of steps" : "the ends of collectives", a->groups,
	        steps ? trex_plural(a->groups, "step name", "step names")
	              : trex_plural(a->groups, "communicator", "communicators"),
	        a->mismatched ? "" : ".\n");
	if (a->mismatched)
		fprintf(out,
		        "; %" PRIu64 " left out, their names differing from their rank peers'.\n",
		        a->mismatched);
	fputs("Aligned time = recorded + offset + drift x (time - the rank's mean anchor time); "
	      "--align collectives|steps applies it.\n",
	      out);
}

/* `trex align`: each rank's clock against the reference. */
enum trex_status cmd_align(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                           struct trex_error *err)
{
	struct trex_align_opts ao = {o->align_on, o->step};
	struct trex_rank_align a;
	struct trex_table t;
	enum trex_status st = trex_rank_align(m->idx, &ao, &a, err);

	if (st != TREX_OK)
		return st;
	st = trex_rank_align_table(m->idx, &a, &t, err);
	if (st == TREX_OK) {
		if (o->format == TREX_FMT_JSON)
			st = write_json(o, &a, &t, out, err);
		else
			st = trex_table_write(out, &t, o->format, err);
		if (st == TREX_OK && o->format == TREX_FMT_TEXT)
			text_footer(o, &a, out);
		trex_table_free(&t);
	}
	trex_rank_align_free(&a);
	return st;
}
