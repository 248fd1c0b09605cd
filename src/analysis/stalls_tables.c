/* The stall report as tables (trex/analysis/stalls.h). */
#include "config.h"

#include "trex/analysis/stalls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NONE TREX_PROFILE_NONE
#define NO_KERNEL_NOTE "no stall samples: the reports hold no kernel"
#define NO_MATCH_NOTE "no kernel of the reports matches --kernel"

/* ---- filling rows ------------------------------------------------------------------------ */

struct filler {
	struct trex_table *t;
	const struct trex_profile *p;
	const struct trex_stall_opts *o;
	union trex_cell *c; /* the row being filled */
	bool ok;
};

static void new_row(struct filler *f)
{
	f->c = f->ok ? trex_table_add_row(f->t) : NULL;
	f->ok = f->c != NULL;
}

static void text_n(struct filler *f, size_t col, const char *s, size_t len)
{
	const char *d;

	if (!f->ok)
		return;
	d = trex_table_strdup(f->t, s ? s : "", s ? len : 0);
	f->ok = d != NULL;
	if (f->ok)
		f->c[col].text = d;
}

static void text(struct filler *f, size_t col, const char *s)
{
	text_n(f, col, s, s ? strlen(s) : 0);
}

static void count(struct filler *f, size_t col, int64_t v)
{
	if (f->ok)
		f->c[col].count = v;
}

static void number(struct filler *f, size_t col, double v)
{
	if (f->ok)
		f->c[col].number = v;
}

static const char *str(const struct filler *f, uint32_t id)
{
	return trex_profile_str(f->p, id);
}

/* The three columns that say which kernel a row is about. */
static void kernel_cells(struct filler *f, uint32_t k, size_t report, size_t device, size_t name)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(f->p, k);

	text(f, report, str(f, trex_profile_report(f->p, kk->report)->path));
	count(f, device, kk->device);
	text(f, name, str(f, kk->name));
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

static const struct trex_profile_reason *reason_at(const struct trex_profile *p, uint32_t k,
                                                   uint32_t slot)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);

	return trex_profile_reason(p, trex_profile_report(p, kk->report)->reasons[slot]);
}

/* Runs row(f, k) for every selected kernel; the note when there is none. */
static enum trex_status each_kernel(struct filler *f, void (*row)(struct filler *f, uint32_t k),
                                    struct trex_error *err)
{
	uint32_t *ks = malloc((trex_profile_kernel_count(f->p) + 1) * sizeof(*ks));
	size_t n = ks ? trex_stalls_kernels(f->p, f->o, ks) : 0;

	f->ok = ks != NULL;
	for (size_t i = 0; f->ok && i < n; i++)
		row(f, ks[i]);
	free(ks);
	if (f->ok && n == 0)
		f->t->note = trex_profile_kernel_count(f->p) ? NO_MATCH_NOTE : NO_KERNEL_NOTE;
	if (!f->ok) {
		trex_table_free(f->t);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	return TREX_OK;
}

/* ---- kernels -------------------------------------------------------------------------------- */

static const struct trex_column kernel_cols[] = {
    {"report", "Report", TREX_COL_TEXT, false},
    {"device", "Device", TREX_COL_COUNT, false},
    {"stall_samples", "Stalls", TREX_COL_COUNT, true},
    {"samples", "Samples", TREX_COL_COUNT, true},
    {"top_reason", "Top reason", TREX_COL_TEXT, false},
    {"top_pct", "Top %", TREX_COL_PERCENT, true},
    {"instructions", "Instrs", TREX_COL_COUNT, true},
    {"listing", "Listing", TREX_COL_TEXT, false},
    {"baseline", "Baseline", TREX_COL_TEXT, false},
    {"baseline_stall_samples", "Base stalls", TREX_COL_COUNT, true},
    {"change", "Change", TREX_COL_COUNT, true},
    {"name", "Kernel", TREX_COL_TEXT, false},
};
enum {
	K_REPORT,
	K_DEVICE,
	K_STALLS,
	K_SAMPLES,
	K_TOP,
	K_TOP_PCT,
	K_INSNS,
	K_LISTING,
	K_BASE,
	K_BASE_STALLS,
	K_CHANGE,
	K_NAME
};

/* Instructions of k with any sample. */
static int64_t sampled(const struct trex_profile *p, uint32_t k)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);
	uint32_t w = trex_profile_report(p, kk->report)->nreasons;
	int64_t n = 0;

	for (uint32_t i = kk->first_insn; i < kk->first_insn + kk->ninsns; i++)
		for (uint32_t s = 0; s < w; s++)
			if (trex_profile_counts(p, i)[s]) {
				n++;
				break;
			}
	return n;
}

static void kernel_row(struct filler *f, uint32_t k)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(f->p, k);
	uint32_t w = trex_profile_report(f->p, kk->report)->nreasons, top;
	uint32_t *slots = malloc((w + 1) * sizeof(*slots)),
	         base = trex_stalls_baseline(f->p, k, f->o);
	uint64_t all = 0;

	if (!slots) {
		f->ok = false;
		return;
	}
	for (uint32_t s = 0; s < w; s++)
		all += kk->totals[s];
	new_row(f);
	kernel_cells(f, k, K_REPORT, K_DEVICE, K_NAME);
	count(f, K_STALLS, (int64_t)kk->stall_total);
	count(f, K_SAMPLES, (int64_t)all);
	top = trex_stalls_reasons(f->p, k, true, slots) ? slots[0] : NONE;
	text(f, K_TOP, top == NONE ? "" : str(f, reason_at(f->p, k, top)->label));
	number(f, K_TOP_PCT, top == NONE ? NAN : share(kk->totals[top], kk->stall_total));
	count(f, K_INSNS, sampled(f->p, k));
	text(f, K_LISTING, str(f, kk->listing));
	if (base != NONE) {
		const struct trex_profile_kernel *bk = trex_profile_kernel(f->p, base);

		text(f, K_BASE, str(f, trex_profile_report(f->p, bk->report)->path));
		count(f, K_BASE_STALLS, (int64_t)bk->stall_total);
		count(f, K_CHANGE, (int64_t)kk->stall_total - (int64_t)bk->stall_total);
	} else {
		text(f, K_BASE, "");
	}
	free(slots);
}

enum trex_status trex_stalls_kernels_table(const struct trex_profile *p,
                                           const struct trex_stall_opts *o, struct trex_table *t,
                                           struct trex_error *err)
{
	struct filler f = {t, p, o, NULL, true};

	trex_table_init(t, "stall_kernels", kernel_cols, ARRAY_LEN(kernel_cols));
	return each_kernel(&f, kernel_row, err);
}

/* ---- reasons -------------------------------------------------------------------------------- */

static const struct trex_column reason_cols[] = {
    {"report", "Report", TREX_COL_TEXT, false},   {"device", "Device", TREX_COL_COUNT, false},
    {"kernel", "Kernel", TREX_COL_TEXT, false},   {"column", "Column", TREX_COL_TEXT, false},
    {"samples", "Samples", TREX_COL_COUNT, true}, {"stall_pct", "Share %", TREX_COL_PERCENT, true},
    {"name", "Reason", TREX_COL_TEXT, false},
};
enum { R_REPORT, R_DEVICE, R_KERNEL, R_COLUMN, R_SAMPLES, R_PCT, R_NAME };

static void reason_rows(struct filler *f, uint32_t k)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(f->p, k);
	uint32_t w = trex_profile_report(f->p, kk->report)->nreasons;
	uint32_t *slots = malloc((w + 1) * sizeof(*slots));
	size_t n = slots ? trex_stalls_reasons(f->p, k, false, slots) : 0;

	f->ok = f->ok && slots;
	for (size_t i = 0; f->ok && i < n; i++) {
		const struct trex_profile_reason *r = reason_at(f->p, k, slots[i]);

		new_row(f);
		kernel_cells(f, k, R_REPORT, R_DEVICE, R_KERNEL);
		text(f, R_COLUMN, str(f, r->name));
		text(f, R_NAME, str(f, r->label));
		count(f, R_SAMPLES, (int64_t)kk->totals[slots[i]]);
		number(f, R_PCT,
		       r->flags & TREX_REASON_NOT_STALL
		           ? NAN
		           : share(kk->totals[slots[i]], kk->stall_total));
	}
	free(slots);
}

enum trex_status trex_stalls_reasons_table(const struct trex_profile *p,
                                           const struct trex_stall_opts *o, struct trex_table *t,
                                           struct trex_error *err)
{
	struct filler f = {t, p, o, NULL, true};

	trex_table_init(t, "stall_reasons", reason_cols, ARRAY_LEN(reason_cols));
	return each_kernel(&f, reason_rows, err);
}

/* ---- hottest instructions -------------------------------------------------------------------- */

static const struct trex_column top_cols[] = {
    {"report", "Report", TREX_COL_TEXT, false},
    {"device", "Device", TREX_COL_COUNT, false},
    {"kernel", "Kernel", TREX_COL_TEXT, false},
    {"reason", "Reason", TREX_COL_TEXT, false},
    {"column", "Column", TREX_COL_TEXT, false},
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"address", "Address", TREX_COL_TEXT, false},
    {"samples", "Samples", TREX_COL_COUNT, true},
    {"share_pct", "Share %", TREX_COL_PERCENT, true},
    {"instruction", "Instruction", TREX_COL_TEXT, false},
    {"block", "Block", TREX_COL_TEXT, false},
    {"file", "File", TREX_COL_TEXT, false},
    {"line", "Line", TREX_COL_COUNT, false},
    {"waits_for", "Waits for", TREX_COL_TEXT, false},
    {"waits_instruction", "Awaited instruction", TREX_COL_TEXT, false},
    {"waits_file", "Awaited file", TREX_COL_TEXT, false},
    {"waits_line", "Awaited line", TREX_COL_COUNT, false},
    {"source", "Source", TREX_COL_TEXT, false},
};
enum {
	T_REPORT,
	T_DEVICE,
	T_KERNEL,
	T_REASON,
	T_COLUMN,
	T_RANK,
	T_ADDR,
	T_SAMPLES,
	T_SHARE,
	T_INSN,
	T_BLOCK,
	T_FILE,
	T_LINE,
	T_WAITS,
	T_WAITS_INSN,
	T_WAITS_FILE,
	T_WAITS_LINE,
	T_SOURCE
};

/* The columns of instruction i that every row of it repeats. */
static void insn_cells(struct filler *f, uint32_t k, uint32_t slot, size_t rank, uint32_t i)
{
	const struct trex_profile_insn *in = trex_profile_insn(f->p, i);
	const struct trex_profile_reason *r = reason_at(f->p, k, slot);
	uint64_t n = trex_profile_counts(f->p, i)[slot];
	const char *src;
	size_t len = 0;
	char addr[32];

	new_row(f);
	kernel_cells(f, k, T_REPORT, T_DEVICE, T_KERNEL);
	text(f, T_REASON, str(f, r->label));
	text(f, T_COLUMN, str(f, r->name));
	count(f, T_RANK, (int64_t)rank);
	text(f, T_ADDR, trex_stalls_addr(in, addr, sizeof(addr)));
	count(f, T_SAMPLES, (int64_t)n);
	number(f, T_SHARE, share(n, trex_profile_kernel(f->p, k)->totals[slot]));
	text(f, T_INSN, str(f, in->text));
	text(f, T_BLOCK, str(f, in->block));
	text(f, T_FILE, str(f, in->file));
	count(f, T_LINE, in->line);
	src = trex_stalls_line_text(f->p, f->o, in->file, in->line, &len);
	text_n(f, T_SOURCE, src, len);
}

static void wait_cells(struct filler *f, uint32_t k, const struct trex_profile_wait *w)
{
	uint32_t pi = w ? trex_profile_insn_find(f->p, k, w->producer) : NONE;
	char addr[32];

	if (!w) {
		text(f, T_WAITS, "");
		text(f, T_WAITS_INSN, "");
		text(f, T_WAITS_FILE, "");
		return;
	}
	text(f, T_WAITS,
	     trex_stalls_addr(&(struct trex_profile_insn){.addr = w->producer, .has_addr = true},
	                      addr, sizeof(addr)));
	text(f, T_WAITS_INSN, pi == NONE ? "" : str(f, trex_profile_insn(f->p, pi)->text));
	text(f, T_WAITS_FILE, str(f, w->file));
	count(f, T_WAITS_LINE, w->line);
}

static void top_rows(struct filler *f, uint32_t k)
{
	uint32_t w = trex_profile_report(f->p, trex_profile_kernel(f->p, k)->report)->nreasons;
	size_t top = f->o && f->o->top ? f->o->top : TREX_STALLS_TOP_DEFAULT;
	uint32_t *slots = malloc((w + 1) * sizeof(*slots)), *hot = malloc((top + 1) * sizeof(*hot));
	size_t ns = slots && hot ? trex_stalls_reasons(f->p, k, true, slots) : 0;

	f->ok = f->ok && slots && hot;
	for (size_t s = 0; f->ok && s < ns; s++) {
		size_t nh = trex_stalls_top(f->p, k, slots[s], top, hot);

		for (size_t r = 0; f->ok && r < nh; r++) {
			const struct trex_profile_insn *in = trex_profile_insn(f->p, hot[r]);

			uint32_t nw = reason_at(f->p, k, slots[s])->flags & TREX_REASON_DEPENDENCY
			                  ? in->nwaits
			                  : 0;

			insn_cells(f, k, slots[s], r + 1, hot[r]);
			wait_cells(f, k, nw ? trex_profile_wait_at(f->p, in->first_wait) : NULL);
			for (uint32_t wi = 1; f->ok && wi < nw; wi++) {
				insn_cells(f, k, slots[s], r + 1, hot[r]);
				wait_cells(f, k, trex_profile_wait_at(f->p, in->first_wait + wi));
			}
		}
	}
	free(slots);
	free(hot);
}

enum trex_status trex_stalls_top_table(const struct trex_profile *p,
                                       const struct trex_stall_opts *o, struct trex_table *t,
                                       struct trex_error *err)
{
	struct filler f = {t, p, o, NULL, true};

	trex_table_init(t, "stall_top", top_cols, ARRAY_LEN(top_cols));
	return each_kernel(&f, top_rows, err);
}

/* ---- source lines --------------------------------------------------------------------------- */

static const struct trex_column line_cols[] = {
    {"report", "Report", TREX_COL_TEXT, false},
    {"device", "Device", TREX_COL_COUNT, false},
    {"kernel", "Kernel", TREX_COL_TEXT, false},
    {"file", "File", TREX_COL_TEXT, false},
    {"line", "Line", TREX_COL_COUNT, false},
    {"stall_samples", "Stalls", TREX_COL_COUNT, true},
    {"stall_pct", "Share %", TREX_COL_PERCENT, true},
    {"top_reason", "Top reason", TREX_COL_TEXT, false},
    {"instructions", "Instrs", TREX_COL_COUNT, true},
    {"baseline_stall_samples", "Base stalls", TREX_COL_COUNT, true},
    {"change", "Change", TREX_COL_COUNT, true},
    {"source", "Source", TREX_COL_TEXT, false},
};
enum {
	L_REPORT,
	L_DEVICE,
	L_KERNEL,
	L_FILE,
	L_LINE,
	L_STALLS,
	L_PCT,
	L_TOP,
	L_INSNS,
	L_BASE,
	L_CHANGE,
	L_SOURCE
};

/* The stall reason with most samples on line li of l, "" when none. */
static const char *line_top(const struct filler *f, uint32_t k, const struct trex_stall_lines *l,
                            size_t li)
{
	const uint64_t *c = l->counts + li * l->nreasons;
	uint32_t best = NONE;

	for (uint32_t s = 0; s < l->nreasons; s++)
		if (!(reason_at(f->p, k, s)->flags & TREX_REASON_NOT_STALL) && c[s] &&
		    (best == NONE || c[s] > c[best]))
			best = s;
	return best == NONE ? "" : str(f, reason_at(f->p, k, best)->label);
}

static void line_rows(struct filler *f, uint32_t k)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(f->p, k);
	uint32_t base = trex_stalls_baseline(f->p, k, f->o);
	struct trex_stall_lines l;
	struct trex_error err;

	if (!f->ok || trex_stalls_lines(f->p, k, base, &l, &err) != TREX_OK) {
		f->ok = false;
		return;
	}
	for (size_t i = 0; f->ok && i < l.n; i++) {
		const struct trex_stall_line *ln = &l.v[i];
		const char *src;
		size_t len = 0;

		if (!ln->stall && !ln->base)
			continue;
		new_row(f);
		kernel_cells(f, k, L_REPORT, L_DEVICE, L_KERNEL);
		text(f, L_FILE, str(f, ln->file));
		count(f, L_LINE, ln->line);
		count(f, L_STALLS, (int64_t)ln->stall);
		number(f, L_PCT, share(ln->stall, kk->stall_total));
		text(f, L_TOP, line_top(f, k, &l, i));
		count(f, L_INSNS, ln->ninsns);
		count(f, L_BASE, (int64_t)ln->base);
		count(f, L_CHANGE, base == NONE ? 0 : (int64_t)ln->stall - (int64_t)ln->base);
		src = trex_stalls_line_text(f->p, f->o, ln->file, ln->line, &len);
		text_n(f, L_SOURCE, src, len);
	}
	trex_stall_lines_free(&l);
}

enum trex_status trex_stalls_lines_table(const struct trex_profile *p,
                                         const struct trex_stall_opts *o, struct trex_table *t,
                                         struct trex_error *err)
{
	struct filler f = {t, p, o, NULL, true};

	trex_table_init(t, "stall_lines", line_cols, ARRAY_LEN(line_cols));
	return each_kernel(&f, line_rows, err);
}
