#include "config.h"

#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/stalls.h"
#include "trex/analysis/table_order.h"
#include "trex/core/display.h"
#include "trex/core/profile.h"
#include "trex/export/table_write.h"

#define BAR_WIDTH 30
#define HOT_LINES 10

struct report {
	const struct trex_profile *p;
	const struct trex_stall_opts *so;
	const struct cli_opts *o;
	FILE *out;
};

static const char *str(const struct report *r, uint32_t id)
{
	return trex_profile_str(r->p, id);
}

/* Text from the inputs, escaped (names and source come from outside). */
static void put(const struct report *r, const char *s, size_t len)
{
	trex_escape_write(r->out, s, len, TREX_ESCAPE_TEXT);
}

static void puts_esc(const struct report *r, const char *s)
{
	put(r, s, strlen(s));
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- a kernel's header ---------------------------------------------------------------------- */

static void kernel_header(const struct report *r, uint32_t k)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(r->p, k);
	const struct trex_profile_report *rep = trex_profile_report(r->p, kk->report);
	uint32_t base = trex_stalls_baseline(r->p, k, r->so);

	fputs("Kernel ", r->out);
	puts_esc(r, *str(r, kk->name) ? str(r, kk->name) : "(unnamed)");
	fprintf(r->out, "\n  device %" PRId64 ", report ", kk->device);
	puts_esc(r, str(r, rep->path));
	fprintf(r->out, "; %" PRIu64 " stall %s\n  ", kk->stall_total,
	        trex_plural(kk->stall_total, "sample", "samples"));
	if (kk->listing) {
		fputs("listing ", r->out);
		puts_esc(r, str(r, kk->listing));
	} else if (kk->flags & TREX_KERNEL_SOURCE ||
	           strcmp(str(r, rep->format), "ncu-source") == 0) {
		fputs("instructions as the report gives them", r->out);
	} else {
		fprintf(r->out, "no listing: samples per address only%s",
		        r->o->dump ? " (no .asm file of the dump names it)" : " (give --dump DIR)");
	}
	fputc('\n', r->out);
	if (base != TREX_PROFILE_NONE) {
		const struct trex_profile_kernel *bk = trex_profile_kernel(r->p, base);

		fputs("  compared with ", r->out);
		puts_esc(r, str(r, trex_profile_report(r->p, bk->report)->path));
		fprintf(r->out, ": %" PRIu64 " stall samples there, %+" PRId64 " here\n",
		        bk->stall_total, (int64_t)kk->stall_total - (int64_t)bk->stall_total);
	}
}

static void bar(const struct report *r, uint64_t part, uint64_t whole)
{
	int n = whole ? (int)((part * BAR_WIDTH + whole / 2) / whole) : 0;

	for (int i = 0; i < n; i++)
		fputc('#', r->out);
}

static void reasons(const struct report *r, uint32_t k, uint32_t *slots)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(r->p, k);
	const struct trex_profile_report *rep = trex_profile_report(r->p, kk->report);
	size_t n = trex_stalls_reasons(r->p, k, false, slots);

	fprintf(r->out, "\n  %-14s %10s %8s\n", "Reason", "Samples", "Share %");
	for (size_t i = 0; i < n; i++) {
		const struct trex_profile_reason *re =
		    trex_profile_reason(r->p, rep->reasons[slots[i]]);
		bool stall = !(re->flags & TREX_REASON_NOT_STALL);

		fprintf(r->out, "  %-14s %10" PRIu64, str(r, re->label), kk->totals[slots[i]]);
		if (stall) {
			fprintf(r->out, " %8.2f  ", pct(kk->totals[slots[i]], kk->stall_total));
			bar(r, kk->totals[slots[i]], kk->stall_total);
		} else {
			fputs("        -  (not a stall)", r->out);
		}
		fputc('\n', r->out);
	}
}

/* ---- hot instructions --------------------------------------------------------------------------
 */

static void source_ref(const struct report *r, uint32_t file, int64_t line)
{
	const char *text;
	size_t len;

	if (!file && !line)
		return;
	puts_esc(r, file ? str(r, file) : "?");
	fprintf(r->out, ":%" PRId64, line);
	if ((text = trex_stalls_line_text(r->p, r->so, file, line, &len)) != NULL) {
		while (len && (*text == ' ' || *text == '\t')) {
			text++;
			len--;
		}
		fputs("  ", r->out);
		put(r, text, len);
	}
}

static void waits(const struct report *r, uint32_t k, const struct trex_profile_insn *in)
{
	for (uint32_t w = 0; w < in->nwaits; w++) {
		const struct trex_profile_wait *wt = trex_profile_wait_at(r->p, in->first_wait + w);
		uint32_t pi = trex_profile_insn_find(r->p, k, wt->producer);

		fprintf(r->out, "%31swaits for 0x%" PRIx64 "  ", "", wt->producer);
		puts_esc(r,
		         pi == TREX_PROFILE_NONE ? "" : str(r, trex_profile_insn(r->p, pi)->text));
		if (wt->file || wt->line) {
			fprintf(r->out, "\n%41s", "");
			source_ref(r, wt->file, wt->line);
		}
		fputc('\n', r->out);
	}
}

static void hot_insn(const struct report *r, uint32_t k, uint32_t slot, size_t rank, uint32_t i)
{
	const struct trex_profile_insn *in = trex_profile_insn(r->p, i);
	uint64_t n = trex_profile_counts(r->p, i)[slot];
	char addr[32];

	fprintf(r->out, "  %3zu %-10s %8" PRIu64 " %6.2f%%  ", rank,
	        trex_stalls_addr(in, addr, sizeof(addr)), n,
	        pct(n, trex_profile_kernel(r->p, k)->totals[slot]));
	puts_esc(r, in->text ? str(r, in->text) : in->has_addr ? "(not in the listing)" : "");
	fputc('\n', r->out);
	if (in->file || in->line) {
		fprintf(r->out, "%31s", "");
		source_ref(r, in->file, in->line);
		fputc('\n', r->out);
	}
	if (trex_profile_reason(
	        r->p,
	        trex_profile_report(r->p, trex_profile_kernel(r->p, k)->report)->reasons[slot])
	        ->flags &
	    TREX_REASON_DEPENDENCY)
		waits(r, k, in);
}

static void hot(const struct report *r, uint32_t k, uint32_t *slots, uint32_t *top)
{
	const struct trex_profile_report *rep =
	    trex_profile_report(r->p, trex_profile_kernel(r->p, k)->report);
	size_t ns = trex_stalls_reasons(r->p, k, true, slots), want = r->so->top;

	for (size_t s = 0; s < ns; s++) {
		const struct trex_profile_reason *re =
		    trex_profile_reason(r->p, rep->reasons[slots[s]]);
		size_t n = trex_stalls_top(r->p, k, slots[s], want, top);

		fprintf(r->out, "\n  %s: the %zu hottest %s\n", str(r, re->label), n,
		        trex_plural(n, "instruction", "instructions"));
		fprintf(r->out, "  %3s %-10s %8s %7s  %s\n", "#", "Address", "Samples", "Share",
		        "Instruction / source line");
		for (size_t i = 0; i < n; i++)
			hot_insn(r, k, slots[s], i + 1, top[i]);
	}
}

/* ---- hot source lines ------------------------------------------------------------------------ */

struct hot_line {
	const struct trex_stall_lines *l;
	size_t i;
};

static int cmp_hot_line(const void *a, const void *b)
{
	const struct hot_line *x = a, *y = b;
	uint64_t sx = x->l->v[x->i].stall, sy = y->l->v[y->i].stall;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static void line_row(const struct report *r, const struct trex_stall_lines *l, size_t i,
                     bool compared, uint64_t total)
{
	const struct trex_stall_line *ln = &l->v[i];

	fprintf(r->out, "  %10" PRIu64 " %7.2f%%", ln->stall, pct(ln->stall, total));
	if (compared)
		fprintf(r->out, " %10" PRIu64 " %+8" PRId64, ln->base,
		        (int64_t)ln->stall - (int64_t)ln->base);
	fputs("  ", r->out);
	source_ref(r, ln->file, ln->line);
	fputc('\n', r->out);
}

static enum trex_status hot_lines(const struct report *r, uint32_t k, struct trex_error *err)
{
	uint32_t base = trex_stalls_baseline(r->p, k, r->so);
	struct trex_stall_lines l;
	struct hot_line *h;
	size_t n = 0;
	enum trex_status st = trex_stalls_lines(r->p, k, base, &l, err);

	if (st != TREX_OK)
		return st;
	if (!(h = malloc((l.n ? l.n : 1) * sizeof(*h)))) {
		trex_stall_lines_free(&l);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].line && (l.v[i].stall || l.v[i].base))
			h[n++] = (struct hot_line){&l, i};
	qsort(h, n, sizeof(*h), cmp_hot_line);
	if (n) {
		fprintf(r->out, "\n  Hottest source lines\n  %10s %8s%s  %s\n", "Samples", "Share",
		        base != TREX_PROFILE_NONE ? "   Baseline   Change" : "",
		        "File:line  source");
		for (size_t i = 0; i < n && i < HOT_LINES; i++)
			line_row(r, &l, h[i].i, base != TREX_PROFILE_NONE,
			         trex_profile_kernel(r->p, k)->stall_total);
	}
	free(h);
	trex_stall_lines_free(&l);
	return TREX_OK;
}

/* ---- the report --------------------------------------------------------------------------------
 */

static enum trex_status text_kernel(const struct report *r, uint32_t k, struct trex_error *err)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(r->p, k);
	uint32_t w = trex_profile_report(r->p, kk->report)->nreasons;
	size_t top = r->so->top ? r->so->top : TREX_STALLS_TOP_DEFAULT;
	uint32_t *slots = malloc((w + 1) * sizeof(*slots)),
	         *hot_v = malloc((top + 1) * sizeof(*hot_v));
	enum trex_status st = TREX_OK;

	if (!slots || !hot_v)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (st == TREX_OK) {
		kernel_header(r, k);
		reasons(r, k, slots);
		hot(r, k, slots, hot_v);
		st = hot_lines(r, k, err);
		fputc('\n', r->out);
	}
	free(slots);
	free(hot_v);
	return st;
}

static enum trex_status write_text(const struct report *r, struct trex_error *err)
{
	uint32_t *ks = malloc((trex_profile_kernel_count(r->p) + 1) * sizeof(*ks));
	size_t n = ks ? trex_stalls_kernels(r->p, r->so, ks) : 0;
	enum trex_status st =
	    ks ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");

	for (size_t i = 0; st == TREX_OK && i < n; i++)
		st = text_kernel(r, ks[i], err);
	if (st == TREX_OK && n == 0)
		fprintf(r->out, "(%s)\n",
		        trex_profile_kernel_count(r->p)
		            ? "no kernel of the reports matches --kernel"
		            : "no stall samples: the reports hold no kernel");
	free(ks);
	return st;
}

typedef enum trex_status stalls_table_fn(const struct trex_profile *p,
                                         const struct trex_stall_opts *o, struct trex_table *t,
                                         struct trex_error *err);

/* One object: the kernels, their reasons, the hottest instructions, the lines. */
static enum trex_status write_json(const struct report *r, struct trex_error *err)
{
	static const struct {
		const char *key;
		stalls_table_fn *make;
	} parts[] = {{"kernels", trex_stalls_kernels_table},
	             {"reasons", trex_stalls_reasons_table},
	             {"top", trex_stalls_top_table},
	             {"lines", trex_stalls_lines_table}};
	enum trex_status st = TREX_OK;

	fputc('{', r->out);
	for (size_t i = 0; st == TREX_OK && i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct trex_table t;

		st = parts[i].make(r->p, r->so, &t, err);
		if (st != TREX_OK)
			break;
		fprintf(r->out, "%s\"%s\": ", i ? ",\n" : "", parts[i].key);
		st = trex_table_write(r->out, &t, TREX_FMT_JSON, err);
		trex_table_free(&t);
	}
	fputs("}\n", r->out);
	return st;
}

static enum trex_status write_csv(const struct report *r, struct trex_error *err)
{
	struct trex_table t;
	enum trex_status st = trex_stalls_top_table(r->p, r->so, &t, err);

	if (st == TREX_OK)
		st = trex_table_write(r->out, &t, TREX_FMT_CSV, err);
	trex_table_free(&t);
	return st;
}

/* `trex stalls`: per kernel the samples by reason, the hottest
 * instructions of each reason (what the SBID ones wait for) and the
 * hottest source lines; CSV: the hottest instructions; JSON: every table. */
enum trex_status cmd_stalls(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                            struct trex_error *err)
{
	struct trex_regex *re = NULL;
	struct trex_stall_opts so = {o->top, NULL, m->baseline, m->sources};
	struct report r = {m->profile, &so, o, out};
	enum trex_status st = TREX_OK;

	if (!m->profile)
		return trex_error_set(err, TREX_FORMAT, NULL, -1,
		                      "stalls: no stall report among the inputs");
	if (o->kernel && (st = trex_regex_compile(o->kernel, &re, err)) != TREX_OK)
		return st;
	so.kernel = re;
	if (o->format == TREX_FMT_JSON)
		st = write_json(&r, err);
	else if (o->format == TREX_FMT_CSV)
		st = write_csv(&r, err);
	else
		st = write_text(&r, err);
	trex_regex_free(re);
	return st;
}
