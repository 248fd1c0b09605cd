/* The stalls table (trex_stalls_kernels_table, key 3): a row per kernel of
 * the stall reports; Enter opens the kernel's stall report: its reasons
 * as bars, the hottest instructions of each stall reason with their source
 * line, and under each what it waits for. Enter on an instruction opens
 * the source pane at its line, on a "waits for" row at the instruction it
 * waits for (the jump); e opens $EDITOR there. */
#include "config.h"

#include "stalls_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stall_list.h"
#include "table_view.h"
#include "trex/analysis/stalls.h"
#include "trex/core/profile.h"
#include "trex/load/source_files.h"
#include "trex/ui/nav.h"

#define STALL_BAR_W 24

struct trex_stall_opts stall_view_opts(const struct trex_ui_ctx *ctx)
{
	return (struct trex_stall_opts){0, NULL, ctx->baseline, ctx->sources};
}

uint32_t stall_kernel_by_name(const struct trex_ui_ctx *ctx, const char *name)
{
	struct trex_stall_opts o = stall_view_opts(ctx);

	return trex_stalls_kernel_for(ctx->profile, name, &o);
}

bool stall_open_kernel(struct trex_ui_ctx *ctx, const char *name, bool say_none)
{
	uint32_t k = ctx->profile ? stall_kernel_by_name(ctx, name) : TREX_PROFILE_NONE;
	struct trex_view *v;

	if (k == TREX_PROFILE_NONE) {
		if (ctx->profile && say_none)
			trex_ui_message(ctx, "no stall samples for %.160s: the stalls table", name);
		return false;
	}
	v = stall_kernel_view_new(ctx, k);
	if (v)
		trex_ui_push_view(ctx, v);
	return true;
}

/* ---- one kernel's report ------------------------------------------------------------------ */

struct stall_kernel_view {
	struct trex_view base;
	uint32_t k;
	struct stall_list list;
	char title[256];
};

static const char *kstr(const struct trex_profile *p, uint32_t id)
{
	return trex_profile_str(p, id);
}

static double share_of(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

/* "file:line" of an instruction (its base name; "" when it has none). */
static void where_of(const struct trex_profile *p, uint32_t file, int64_t line, char *buf,
                     size_t size)
{
	const char *f = kstr(p, file), *slash = strrchr(f, '/');

	if (!*f && !line)
		buf[0] = '\0';
	else
		snprintf(buf, size, "%s:%" PRId64, slash ? slash + 1 : f, line);
}

static bool add_reasons(struct stall_kernel_view *kv, const struct trex_profile *p)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, kv->k);
	const struct trex_profile_report *rep = trex_profile_report(p, kk->report);
	uint32_t *slots = malloc((rep->nreasons + 1) * sizeof(*slots));
	size_t n = slots ? trex_stalls_reasons(p, kv->k, false, slots) : 0;
	bool ok = slots != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		const struct trex_profile_reason *r =
		    trex_profile_reason(p, rep->reasons[slots[i]]);
		uint64_t v = kk->totals[slots[i]];
		bool stall = !(r->flags & TREX_REASON_NOT_STALL);
		struct stall_row row = {STALL_ROW_REASON,
		                        TREX_ROLE_DEFAULT,
		                        NULL,
		                        stall ? share_of(v, kk->stall_total) : -1,
		                        NULL,
		                        TREX_PROFILE_NONE,
		                        0,
		                        0,
		                        0};

		ok = stall_list_add(&kv->list, &row, stall ? NULL : "  (not a stall)",
		                    "  %-14s %10" PRIu64 " %7.2f%%  ", kstr(p, r->label), v,
		                    100 * share_of(v, kk->stall_total));
	}
	free(slots);
	return ok;
}

/* The rows of instruction i (rank of a reason with samples n): the
 * instruction, its source line and, for a dependency reason, what it
 * waits for. */
static bool add_insn(struct stall_kernel_view *kv, const struct trex_profile *p, uint32_t i,
                     size_t rank, uint64_t n, uint64_t reason_total, bool dependency)
{
	const struct trex_profile_insn *in = trex_profile_insn(p, i);
	struct trex_stall_opts o = stall_view_opts(kv->base.ctx);
	struct stall_row row = {STALL_ROW_INSN, TREX_ROLE_DEFAULT, NULL, -1, NULL, i, 0,
	                        in->file,       in->line};
	char addr[24], where[160];
	const char *src;
	size_t len = 0;
	bool ok;

	where_of(p, in->file, in->line, where, sizeof(where));
	ok = stall_list_add(&kv->list, &row, NULL, "  %3zu %10s %9" PRIu64 " %6.2f%%  %s", rank,
	                    trex_stalls_addr(in, addr, sizeof(addr)), n,
	                    100 * share_of(n, reason_total), kstr(p, in->text));
	src = trex_stalls_line_text(p, &o, in->file, in->line, &len);
	row = (struct stall_row){STALL_ROW_TEXT, TREX_ROLE_DIM, NULL, -1, NULL, i, 0, 0, 0};
	if (ok && *where)
		ok = stall_list_add(&kv->list, &row, NULL, "%32s%s  %.*s", "", where,
		                    src ? (int)len : 0, src ? src : "");
	for (uint32_t w = 0; ok && dependency && w < in->nwaits; w++) {
		const struct trex_profile_wait *wt = trex_profile_wait_at(p, in->first_wait + w);
		uint32_t pi = trex_profile_insn_find(p, kv->k, wt->producer);

		where_of(p, wt->file, wt->line, where, sizeof(where));
		row = (struct stall_row){STALL_ROW_WAIT, TREX_ROLE_DEFAULT, NULL,    -1, NULL, i,
		                         wt->producer,   wt->file,          wt->line};
		ok = stall_list_add(
		    &kv->list, &row, NULL, "%32swaits for 0x%" PRIx64 "  %s  %s", "", wt->producer,
		    pi == TREX_PROFILE_NONE ? "" : kstr(p, trex_profile_insn(p, pi)->text), where);
	}
	return ok;
}

static bool add_hottest(struct stall_kernel_view *kv, const struct trex_profile *p)
{
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, kv->k);
	const struct trex_profile_report *rep = trex_profile_report(p, kk->report);
	uint32_t *slots = malloc((rep->nreasons + 1) * sizeof(*slots));
	uint32_t *top = malloc(TREX_STALLS_TOP_DEFAULT * sizeof(*top));
	size_t n = slots && top ? trex_stalls_reasons(p, kv->k, true, slots) : 0;
	struct stall_row title = {
	    STALL_ROW_TEXT, TREX_ROLE_HEADER, NULL, -1, NULL, TREX_PROFILE_NONE, 0, 0, 0};
	bool ok = slots && top;

	for (size_t s = 0; ok && s < n; s++) {
		const struct trex_profile_reason *reason =
		    trex_profile_reason(p, rep->reasons[slots[s]]);
		const char *label = kstr(p, reason->label);
		size_t m = trex_stalls_top(p, kv->k, slots[s], TREX_STALLS_TOP_DEFAULT, top);

		ok = stall_list_add(&kv->list, &title, NULL, "%s", "") &&
		     stall_list_add(&kv->list, &title, NULL, "  %s: the %zu hottest instruction%s",
		                    label, m, m == 1 ? "" : "s");
		for (size_t r = 0; ok && r < m; r++)
			ok =
			    add_insn(kv, p, top[r], r + 1, trex_profile_counts(p, top[r])[slots[s]],
			             kk->totals[slots[s]], reason->flags & TREX_REASON_DEPENDENCY);
	}
	free(slots);
	free(top);
	return ok;
}

static bool kernel_build(struct stall_kernel_view *kv)
{
	const struct trex_profile *p = kv->base.ctx->profile;
	const struct trex_profile_kernel *kk = trex_profile_kernel(p, kv->k);
	struct trex_stall_opts o = stall_view_opts(kv->base.ctx);
	uint32_t base = trex_stalls_baseline(p, kv->k, &o);
	struct stall_row note = {
	    STALL_ROW_TEXT, TREX_ROLE_DIM, NULL, -1, NULL, TREX_PROFILE_NONE, 0, 0, 0};
	bool ok;

	snprintf(kv->title, sizeof(kv->title), " stalls of %s (device %" PRId64 ")",
	         kstr(p, kk->name), kk->device);
	/* what the report holds first, paths last: a narrow screen cuts paths */
	ok = stall_list_add(
	    &kv->list, &note, NULL, "  %" PRIu64 " stall samples; %s%s; report %s", kk->stall_total,
	    kk->listing ? "listing " : "no listing (addresses only)", kstr(p, kk->listing),
	    kstr(p, trex_profile_report(p, kk->report)->path));
	if (ok && base != TREX_PROFILE_NONE) {
		const struct trex_profile_kernel *bk = trex_profile_kernel(p, base);

		ok = stall_list_add(
		    &kv->list, &note, NULL,
		    "  compared: %" PRIu64 " stall samples before (%+" PRId64 "); report %s",
		    bk->stall_total, (int64_t)kk->stall_total - (int64_t)bk->stall_total,
		    kstr(p, trex_profile_report(p, bk->report)->path));
	}
	note.role = TREX_ROLE_HEADER;
	ok = ok && stall_list_add(&kv->list, &note, NULL, "%s", "") &&
	     stall_list_add(&kv->list, &note, NULL, "  %-14s %10s %8s", "Reason", "Samples",
	                    "Share") &&
	     add_reasons(kv, p) && add_hottest(kv, p);
	stall_list_select(&kv->list, 0);
	return ok;
}

static bool kernel_supports(enum trex_action a)
{
	return trex_nav_is_move(a) || a == TREX_ACTION_ENTER || a == TREX_ACTION_OPEN_SOURCE;
}

/* Enter: the source pane at the instruction, or at the one it waits for. */
static void kernel_enter(struct stall_kernel_view *kv, const struct stall_row *r)
{
	struct trex_ui_ctx *ctx = kv->base.ctx;
	const struct trex_profile *p = ctx->profile;
	uint32_t insn = r->insn;
	struct trex_view *v;

	if (r->kind == STALL_ROW_WAIT)
		insn = trex_profile_insn_find(p, kv->k, r->producer);
	if (r->kind == STALL_ROW_REASON || insn == TREX_PROFILE_NONE) {
		trex_ui_message(ctx,
		                r->kind == STALL_ROW_REASON
		                    ? "Enter on an instruction opens its source line"
		                    : "0x%" PRIx64 " is not in the kernel's listing",
		                r->producer);
		return;
	}
	v = stall_source_view_new(ctx, kv->k, trex_profile_insn(p, insn)->file,
	                          trex_profile_insn(p, insn)->line, insn);
	if (v)
		trex_ui_push_view(ctx, v);
}

/* e: $EDITOR at the selected row's source line, when its file is here. */
static void edit_line(struct trex_ui_ctx *ctx, uint32_t file, int64_t line)
{
	const struct trex_profile *p = ctx->profile;
	const struct trex_srcfile *f =
	    file && ctx->sources ? trex_srcfiles_get(ctx->sources, kstr(p, file)) : NULL;

	if (!file)
		trex_ui_message(ctx, "no source line here");
	else if (!f || !f->path)
		trex_ui_message(ctx, "%s: %s", kstr(p, file), f ? f->why : "out of memory");
	else
		stall_open_editor(ctx, f->path, line);
}

static enum trex_handled kernel_dispatch(struct trex_view *v, enum trex_action a)
{
	struct stall_kernel_view *kv = (struct stall_kernel_view *)v;
	const struct stall_row *r = stall_list_selected(&kv->list);

	if (stall_list_move(&kv->list, a))
		return TREX_HANDLED;
	if (!r)
		trex_ui_message(v->ctx, "nothing selected");
	else if (a == TREX_ACTION_ENTER)
		kernel_enter(kv, r);
	else if (a == TREX_ACTION_OPEN_SOURCE)
		edit_line(v->ctx, r->file, r->line);
	else
		return TREX_IGNORED;
	return TREX_HANDLED;
}

static void kernel_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay)
{
	struct stall_kernel_view *kv = (struct stall_kernel_view *)v;

	kv->list.bar_w = STALL_BAR_W;
	stall_list_draw(&kv->list, v, win, lay, kv->title,
	                " Enter: source line (on \"waits for\": the instruction waited for)  "
	                "e: $EDITOR");
}

static void kernel_free(struct trex_view *v)
{
	struct stall_kernel_view *kv = (struct stall_kernel_view *)v;

	stall_list_clear(&kv->list);
	free(kv);
}

static const struct trex_view_ops stall_kernel_ops = {
    .name = "stall-kernel",
    .keymap = TREX_KEYMAP_GENERIC,
    .supports = kernel_supports,
    .dispatch = kernel_dispatch,
    .draw = kernel_draw,
    .free = kernel_free,
};

struct trex_view *stall_kernel_view_new(struct trex_ui_ctx *ctx, uint32_t k)
{
	struct stall_kernel_view *kv = calloc(1, sizeof(*kv));

	if (!kv || !ctx->profile || k >= trex_profile_kernel_count(ctx->profile)) {
		trex_ui_message(ctx, kv ? "no such kernel in the stall reports" : "out of memory");
		free(kv);
		return NULL;
	}
	kv->base.ops = &stall_kernel_ops;
	kv->base.ctx = ctx;
	kv->k = k;
	if (!kernel_build(kv)) {
		trex_ui_message(ctx, "out of memory");
		kernel_free(&kv->base);
		return NULL;
	}
	return &kv->base;
}

/* ---- the stalls table -------------------------------------------------------------------- */

struct stalls_view {
	struct table_view tv;
	uint32_t *kernels; /* row r is kernel kernels[r] */
	size_t n;
};

static enum trex_handled stalls_action(struct table_view *tv, enum trex_action a)
{
	struct stalls_view *sv = (struct stalls_view *)tv;
	size_t r = table_view_selected(tv);
	struct trex_view *v;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= sv->n) {
		trex_ui_message(tv->base.ctx, "no kernel selected");
		return TREX_HANDLED;
	}
	v = stall_kernel_view_new(tv->base.ctx, sv->kernels[r]);
	if (v)
		trex_ui_push_view(tv->base.ctx, v);
	return TREX_HANDLED;
}

static void stalls_free(struct table_view *tv)
{
	free(((struct stalls_view *)tv)->kernels);
}

static const struct table_view_hooks stalls_hooks = {.action = stalls_action, .free = stalls_free};
static const struct trex_view_ops stalls_ops = TABLE_VIEW_OPS("stalls");

struct trex_view *trex_stalls_view_new(struct trex_ui_ctx *ctx)
{
	struct stalls_view *sv = table_view_new(sizeof(*sv), ctx, &stalls_ops, &stalls_hooks);
	struct trex_stall_opts o = stall_view_opts(ctx);
	uint32_t nk = ctx->profile ? trex_profile_kernel_count(ctx->profile) : 0;
	struct trex_table t;
	struct trex_error err;
	char title[96];

	if (!sv)
		return NULL;
	if (!ctx->profile) {
		trex_ui_message(ctx,
		                "no stall report loaded: give a unitrace --stall-sampling CSV or "
		                "an Nsight Compute source CSV");
		table_view_free(&sv->tv.base);
		return NULL;
	}
	sv->kernels = malloc((nk ? nk : 1) * sizeof(*sv->kernels));
	if (!sv->kernels || trex_stalls_kernels_table(ctx->profile, &o, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "stalls: %s", sv->kernels ? err.message : "out of memory");
		table_view_free(&sv->tv.base);
		return NULL;
	}
	sv->n = trex_stalls_kernels(ctx->profile, &o, sv->kernels);
	snprintf(title, sizeof(title), "stall samples of %zu kernel%s (Enter: report)", sv->n,
	         sv->n == 1 ? "" : "s");
	return table_view_show(&sv->tv, &t, title, NULL, false);
}
