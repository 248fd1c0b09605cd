/* The sources table (trex_stalls_lines_table, key 5): the sampled source
 * lines of every kernel, hottest first; Enter opens the source pane: the
 * kernel's files as text with each line's stall samples, share, a bar and
 * its top reason in the margin (and the change against the baseline when
 * compared), like perf annotate. Enter on a line shows or hides its
 * assembly; Enter on an instruction that waits for another jumps to that
 * one; e opens $EDITOR at the line. Files that cannot be read show the
 * sampled lines with the text the inputs quote, and why. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stall_list.h"
#include "stalls_view.h"
#include "table_view.h"
#include "trex/analysis/stalls.h"
#include "trex/core/profile.h"
#include "trex/load/source_files.h"
#include "trex/ui/nav.h"

#define SOURCE_BAR_W 10

struct source_view {
	struct trex_view base;
	uint32_t k, base_k;
	struct trex_stall_lines lines;
	bool *open;       /* per line of lines: its assembly shown */
	uint64_t hottest; /* the most stall samples of a line (bar scale) */
	struct stall_list list;
	char title[256];
};

static const char *pstr(const struct source_view *sv, uint32_t id)
{
	return trex_profile_str(sv->base.ctx->profile, id);
}

/* The label of line li's stall reason with most samples, "" when none. */
static const char *top_reason(const struct source_view *sv, size_t li)
{
	const struct trex_profile *p = sv->base.ctx->profile;
	const struct trex_profile_report *rep =
	    trex_profile_report(p, trex_profile_kernel(p, sv->k)->report);
	const uint64_t *c = sv->lines.counts + li * sv->lines.nreasons;
	uint32_t best = TREX_PROFILE_NONE;

	for (uint32_t s = 0; s < sv->lines.nreasons; s++)
		if (!(trex_profile_reason(p, rep->reasons[s])->flags & TREX_REASON_NOT_STALL) &&
		    c[s] && (best == TREX_PROFILE_NONE || c[s] > c[best]))
			best = s;
	return best == TREX_PROFILE_NONE
	           ? ""
	           : pstr(sv, trex_profile_reason(p, rep->reasons[best])->label);
}

/* The instructions of line li under it: address, stall samples, text,
 * and what each waits for. */
static bool add_asm(struct source_view *sv, size_t li)
{
	const struct trex_profile *p = sv->base.ctx->profile;
	const struct trex_stall_line *l = &sv->lines.v[li];

	for (uint32_t j = 0; j < l->ninsns; j++) {
		uint32_t i = sv->lines.insns[l->first + j];
		const struct trex_profile_insn *in = trex_profile_insn(p, i);
		uint64_t n = trex_stalls_insn_total(p, sv->k, i);
		struct stall_row row = {STALL_ROW_INSN,
		                        n ? TREX_ROLE_STALL : TREX_ROLE_DIM,
		                        NULL,
		                        -1,
		                        NULL,
		                        i,
		                        0,
		                        l->file,
		                        l->line};
		char addr[24], waits[160] = "";

		for (uint32_t w = 0; w < in->nwaits && strlen(waits) < sizeof(waits) - 24; w++)
			snprintf(waits + strlen(waits), sizeof(waits) - strlen(waits),
			         "%s0x%" PRIx64, w ? ", " : "  <- waits for ",
			         trex_profile_wait_at(p, in->first_wait + w)->producer);
		char count[24] = "";

		if (n)
			snprintf(count, sizeof(count), "%" PRIu64, n);
		if (!stall_list_add(&sv->list, &row, NULL, "%9s %6s   %8s  %s%s", count, "",
		                    trex_stalls_addr(in, addr, sizeof(addr)), pstr(sv, in->text),
		                    waits))
			return false;
	}
	return true;
}

/* text[0..len) with its tabs expanded to tab stops of 8 (the cells the
 * drawing would otherwise escape), into buf. */
static const char *expand_tabs(const char *text, size_t len, char *buf, size_t size, size_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 8 < size; i++) {
		if (text[i] != '\t') {
			buf[n++] = text[i];
			continue;
		}
		do
			buf[n++] = ' ';
		while (n % 8);
	}
	*out = n;
	return buf;
}

/* One source line row: the margin (li: its entry in lines, SIZE_MAX: no
 * samples), the line number and text. */
static bool add_line(struct source_view *sv, size_t li, uint32_t file, int64_t line,
                     const char *text, size_t len)
{
	const struct trex_stall_line *l = li == SIZE_MAX ? NULL : &sv->lines.v[li];
	uint64_t total = trex_profile_kernel(sv->base.ctx->profile, sv->k)->stall_total;
	struct stall_row row = {STALL_ROW_SOURCE,
	                        l && l->stall ? TREX_ROLE_STALL : TREX_ROLE_DEFAULT,
	                        NULL,
	                        l ? (sv->hottest ? (double)l->stall / (double)sv->hottest : 0) : 0,
	                        NULL,
	                        TREX_PROFILE_NONE,
	                        0,
	                        file,
	                        line};
	char count[24] = "", pct[16] = "", change[24] = "", *tail = NULL, expanded[1024];
	bool ok;

	if (text)
		text = expand_tabs(text, len, expanded, sizeof(expanded), &len);

	if (l && (l->stall || l->base)) {
		snprintf(count, sizeof(count), "%" PRIu64, l->stall);
		snprintf(pct, sizeof(pct), "%.1f%%",
		         total ? 100.0 * (double)l->stall / (double)total : 0);
	}
	if (l && sv->base_k != TREX_PROFILE_NONE && (l->stall || l->base))
		snprintf(change, sizeof(change), "%+" PRId64, (int64_t)l->stall - (int64_t)l->base);
	if (asprintf(&tail, " %-10s%*s%s %5" PRId64 " %s %.*s", l ? top_reason(sv, li) : "",
	             sv->base_k != TREX_PROFILE_NONE ? 8 - (int)strlen(change) : 0, "", change,
	             line, sv->base.ctx->term && sv->base.ctx->term->utf8 ? "│" : "|",
	             text ? (int)len : 0, text ? text : "") < 0)
		return false;
	ok = stall_list_add(&sv->list, &row, tail, "%9s %6s ", count, pct);
	free(tail);
	return ok && (!l || !sv->open[li] || add_asm(sv, li));
}

/* The rows of one file: its header, then every line of it when it can be
 * read (lines [from, to) of sv->lines are its sampled ones), else only
 * the sampled lines with the text the inputs quote. */
static bool add_file(struct source_view *sv, size_t from, size_t to)
{
	struct trex_ui_ctx *ctx = sv->base.ctx;
	uint32_t file = sv->lines.v[from].file;
	const char *recorded = pstr(sv, file);
	const struct trex_srcfile *f =
	    file && ctx->sources ? trex_srcfiles_get(ctx->sources, recorded) : NULL;
	struct trex_stall_opts o = stall_view_opts(ctx);
	struct stall_row head = {
	    STALL_ROW_TEXT, TREX_ROLE_HEADER, NULL, -1, NULL, TREX_PROFILE_NONE, 0, 0, 0};
	bool ok;

	if (!file)
		ok = stall_list_add(&sv->list, &head, NULL,
		                    "-- instructions without a source line --");
	else if (f && f->path)
		ok = stall_list_add(&sv->list, &head, NULL, "-- %s%s%s --", recorded,
		                    strcmp(f->path, recorded) ? ", read from " : "",
		                    strcmp(f->path, recorded) ? f->path : "");
	else
		ok = stall_list_add(&sv->list, &head, NULL,
		                    "-- %s: %s; the sampled lines as quoted --", recorded,
		                    f ? f->why : "no --source-path or --source-map");
	for (size_t n = 1, li = from; ok && f && f->path && n <= f->nlines; n++) {
		while (li < to && sv->lines.v[li].line < (int64_t)n) /* [from, to) by line */
			li++;
		ok = add_line(sv, li < to && sv->lines.v[li].line == (int64_t)n ? li : SIZE_MAX,
		              file, (int64_t)n, f->lines[n - 1], f->lens[n - 1]);
	}
	for (size_t li = from; ok && li < to; li++) {
		const struct trex_stall_line *l = &sv->lines.v[li];
		size_t len = 0;
		const char *text;

		if (f && f->path && l->line >= 1 && (uint64_t)l->line <= f->nlines)
			continue; /* shown above */
		text = trex_stalls_line_text(ctx->profile, &o, file, l->line, &len);
		ok = add_line(sv, li, file, l->line, text, len);
	}
	return ok;
}

static bool source_build(struct source_view *sv)
{
	size_t from = 0;
	bool ok = true;

	stall_list_clear(&sv->list);
	for (size_t li = 1; ok && li <= sv->lines.n; li++)
		if (li == sv->lines.n || sv->lines.v[li].file != sv->lines.v[from].file) {
			ok = add_file(sv, from, li);
			from = li;
		}
	return ok;
}

/* The row of source line file:line, or with insn its instruction's row;
 * SIZE_MAX when none. */
static size_t find_row(const struct source_view *sv, uint32_t file, int64_t line, uint32_t insn)
{
	for (size_t r = 0; r < sv->list.n; r++) {
		const struct stall_row *row = &sv->list.v[r];

		if (insn != TREX_PROFILE_NONE
		        ? row->kind == STALL_ROW_INSN && row->insn == insn
		        : row->kind == STALL_ROW_SOURCE && row->file == file && row->line == line)
			return r;
	}
	return SIZE_MAX;
}

/* With insn, shows line file:line's assembly; true when it was hidden. */
static bool open_for_insn(struct source_view *sv, uint32_t file, int64_t line, uint32_t insn)
{
	size_t li = trex_stall_lines_find(&sv->lines, file, line);

	if (insn == TREX_PROFILE_NONE || li == SIZE_MAX || sv->open[li])
		return false;
	sv->open[li] = true;
	return true;
}

/* Shows line file:line with its assembly when insn is set, the cursor on
 * it (or on insn); false when out of memory. */
static bool source_go(struct source_view *sv, uint32_t file, int64_t line, uint32_t insn)
{
	size_t r;

	if (open_for_insn(sv, file, line, insn) && !source_build(sv))
		return false;
	r = find_row(sv, file, line, insn);
	if (r == SIZE_MAX)
		r = find_row(sv, file, line, TREX_PROFILE_NONE);
	stall_list_select(&sv->list, r == SIZE_MAX ? 0 : r);
	return true;
}

/* Enter on a line: its assembly shown or hidden; on an instruction that
 * waits for another: the cursor to that one, else its line folded. */
static void source_enter(struct source_view *sv, const struct stall_row *r)
{
	const struct trex_profile *p = sv->base.ctx->profile;
	uint32_t file = r->file, insn = TREX_PROFILE_NONE;
	int64_t line = r->line;
	size_t li = trex_stall_lines_find(&sv->lines, file, line);

	if (r->kind == STALL_ROW_INSN && trex_profile_insn(p, r->insn)->nwaits) {
		const struct trex_profile_insn *in = trex_profile_insn(p, r->insn);
		uint64_t producer = trex_profile_wait_at(p, in->first_wait)->producer;

		insn = trex_profile_insn_find(p, sv->k, producer);
		if (insn == TREX_PROFILE_NONE) {
			trex_ui_message(sv->base.ctx, "0x%" PRIx64 " is not in the listing",
			                producer);
			return;
		}
		file = trex_profile_insn(p, insn)->file;
		line = trex_profile_insn(p, insn)->line;
		trex_ui_message(sv->base.ctx, "0x%" PRIx64 ": the instruction waited for",
		                producer);
	} else if (li == SIZE_MAX || !sv->lines.v[li].ninsns) {
		trex_ui_message(sv->base.ctx, "no instruction of the kernel is on this line");
		return;
	} else {
		sv->open[li] = !sv->open[li];
	}
	if (!source_build(sv) || !source_go(sv, file, line, insn))
		trex_ui_message(sv->base.ctx, "out of memory");
}

static bool source_supports(enum trex_action a)
{
	return trex_nav_is_move(a) || a == TREX_ACTION_ENTER || a == TREX_ACTION_OPEN_SOURCE;
}

static enum trex_handled source_dispatch(struct trex_view *v, enum trex_action a)
{
	struct source_view *sv = (struct source_view *)v;
	const struct stall_row *r = stall_list_selected(&sv->list);
	const struct trex_srcfile *f;

	if (stall_list_move(&sv->list, a))
		return TREX_HANDLED;
	if (a != TREX_ACTION_ENTER && a != TREX_ACTION_OPEN_SOURCE)
		return TREX_IGNORED;
	if (!r) {
		trex_ui_message(v->ctx, "nothing selected");
		return TREX_HANDLED;
	}
	if (a == TREX_ACTION_ENTER) {
		source_enter(sv, r);
		return TREX_HANDLED;
	}
	f = r->file && v->ctx->sources ? trex_srcfiles_get(v->ctx->sources, pstr(sv, r->file))
	                               : NULL;
	if (f && f->path)
		stall_open_editor(v->ctx, f->path, r->line);
	else
		trex_ui_message(v->ctx, "%s: %s", r->file ? pstr(sv, r->file) : "this line",
		                r->file ? (f ? f->why : "no --source-path or --source-map")
		                        : "has no source file");
	return TREX_HANDLED;
}

static void source_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay)
{
	struct source_view *sv = (struct source_view *)v;
	const struct stall_row *r = stall_list_selected(&sv->list);
	char status[160];

	sv->list.bar_w = SOURCE_BAR_W;
	snprintf(status, sizeof(status),
	         " %s:%" PRId64 "  Enter: assembly / jump to what it waits "
	         "for  e: $EDITOR",
	         r && r->file ? pstr(sv, r->file) : "-", r ? r->line : 0);
	stall_list_draw(&sv->list, v, win, lay, sv->title, status);
}

static void source_free(struct trex_view *v)
{
	struct source_view *sv = (struct source_view *)v;

	stall_list_clear(&sv->list);
	trex_stall_lines_free(&sv->lines);
	free(sv->open);
	free(sv);
}

static const struct trex_view_ops source_ops = {
    .name = "source",
    .keymap = TREX_KEYMAP_GENERIC,
    .supports = source_supports,
    .dispatch = source_dispatch,
    .draw = source_draw,
    .free = source_free,
};

/* The hottest line of sv (index), 0 when none has samples. */
static size_t hottest_line(struct source_view *sv)
{
	size_t best = 0;

	for (size_t li = 0; li < sv->lines.n; li++) {
		if (sv->lines.v[li].stall > sv->lines.v[best].stall)
			best = li;
		if (sv->lines.v[li].stall > sv->hottest)
			sv->hottest = sv->lines.v[li].stall;
	}
	return best;
}

struct trex_view *stall_source_view_new(struct trex_ui_ctx *ctx, uint32_t k, uint32_t file,
                                        int64_t line, uint32_t insn)
{
	struct source_view *sv = calloc(1, sizeof(*sv));
	struct trex_stall_opts o = stall_view_opts(ctx);
	struct trex_error err;
	size_t hot;

	if (!sv) {
		trex_ui_message(ctx, "out of memory");
		return NULL;
	}
	sv->base.ops = &source_ops;
	sv->base.ctx = ctx;
	sv->k = k;
	sv->base_k = trex_stalls_baseline(ctx->profile, k, &o);
	if (trex_stalls_lines(ctx->profile, k, sv->base_k, &sv->lines, &err) != TREX_OK ||
	    !(sv->open = calloc(sv->lines.n + 1, sizeof(*sv->open)))) {
		trex_ui_message(ctx, "sources: %s", sv->open ? err.message : "out of memory");
		source_free(&sv->base);
		return NULL;
	}
	hot = hottest_line(sv);
	for (size_t li = 0; li < sv->lines.n; li++) /* no source: the per-address histogram */
		sv->open[li] = sv->lines.v[li].file == 0;
	snprintf(sv->title, sizeof(sv->title), " source of %s (device %" PRId64 ")%s",
	         pstr(sv, trex_profile_kernel(ctx->profile, k)->name),
	         trex_profile_kernel(ctx->profile, k)->device,
	         sv->base_k != TREX_PROFILE_NONE ? ", compared" : "");
	if (!file && !line && sv->lines.n) {
		file = sv->lines.v[hot].file;
		line = sv->lines.v[hot].line;
	}
	open_for_insn(sv, file, line, insn); /* built once, the line open */
	if (!source_build(sv) || !source_go(sv, file, line, insn)) {
		trex_ui_message(ctx, "out of memory");
		source_free(&sv->base);
		return NULL;
	}
	return &sv->base;
}

/* ---- the sources table ------------------------------------------------------------------- */

struct line_ref {
	uint32_t k, file;
	int64_t line;
};

struct sources_view {
	struct table_view tv;
	struct line_ref *refs; /* row r is refs[r], as trex_stalls_lines_table makes them */
	size_t n, cap;
};

static bool add_refs(struct sources_view *sv, const struct trex_profile *p, uint32_t k,
                     const struct trex_stall_opts *o)
{
	struct trex_stall_lines l;
	struct trex_error err;
	bool ok;

	if (trex_stalls_lines(p, k, trex_stalls_baseline(p, k, o), &l, &err) != TREX_OK)
		return false;
	ok = true;
	for (size_t i = 0; ok && i < l.n; i++) {
		if (!l.v[i].stall && !l.v[i].base)
			continue;
		if (sv->n == sv->cap) {
			size_t cap = sv->cap ? sv->cap * 2 : 64;
			struct line_ref *v = realloc(sv->refs, cap * sizeof(*v));

			ok = v != NULL;
			if (!ok)
				break;
			sv->refs = v;
			sv->cap = cap;
		}
		sv->refs[sv->n++] = (struct line_ref){k, l.v[i].file, l.v[i].line};
	}
	trex_stall_lines_free(&l);
	return ok;
}

static enum trex_handled sources_action(struct table_view *tv, enum trex_action a)
{
	struct sources_view *sv = (struct sources_view *)tv;
	size_t r = table_view_selected(tv);
	struct trex_view *v;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= sv->n) {
		trex_ui_message(tv->base.ctx, "no line selected");
		return TREX_HANDLED;
	}
	v = stall_source_view_new(tv->base.ctx, sv->refs[r].k, sv->refs[r].file, sv->refs[r].line,
	                          TREX_PROFILE_NONE);
	if (v)
		trex_ui_push_view(tv->base.ctx, v);
	return TREX_HANDLED;
}

static void sources_free(struct table_view *tv)
{
	free(((struct sources_view *)tv)->refs);
}

static const struct table_view_hooks sources_hooks = {.action = sources_action,
                                                      .free = sources_free};
static const struct trex_view_ops sources_ops = TABLE_VIEW_OPS("sources");

struct trex_view *trex_sources_view_new(struct trex_ui_ctx *ctx)
{
	struct sources_view *sv = table_view_new(sizeof(*sv), ctx, &sources_ops, &sources_hooks);
	struct trex_stall_opts o = stall_view_opts(ctx);
	uint32_t nk = ctx->profile ? trex_profile_kernel_count(ctx->profile) : 0, *kernels;
	size_t n = 0;
	bool ok;
	struct trex_table t;
	struct trex_error err;

	if (!sv)
		return NULL;
	if (!ctx->profile) {
		trex_ui_message(ctx,
		                "no stall report loaded: give a unitrace --stall-sampling CSV or "
		                "an Nsight Compute source CSV");
		table_view_free(&sv->tv.base);
		return NULL;
	}
	kernels = malloc((nk ? nk : 1) * sizeof(*kernels));
	ok = kernels != NULL;
	if (ok)
		n = trex_stalls_kernels(ctx->profile, &o, kernels);
	for (size_t i = 0; ok && i < n; i++)
		ok = add_refs(sv, ctx->profile, kernels[i], &o);
	free(kernels);
	if (!ok || trex_stalls_lines_table(ctx->profile, &o, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "sources: %s", ok ? err.message : "out of memory");
		table_view_free(&sv->tv.base);
		return NULL;
	}
	return table_view_show(&sv->tv, &t, "sampled source lines (Enter: source pane)",
	                       "stall_samples", true);
}
