/* Redraw benchmark: tests/bench/redraw TRACE [COLSxROWS] [RUNS]
 *
 * Loads TRACE, opens the timeline headless (curses on /dev/null, as
 * --dump-screen does without a tty) at COLSxROWS (default 200x60) and
 * times full redraws (erase, the view's draw, doupdate) at fit-all and at
 * every 2x zoom-in down to 2 us per column, then the same with a search
 * highlight and a filter active. Prints one Markdown row per level with the
 * median and the maximum of RUNS (default 20) redraws. Then a synthetic
 * counter series of COUNTER_SAMPLES samples: the time to build its peaks
 * and to compute one row of COLS cells at every zoom level, exact (peaks)
 * and sampled (trex_counter_cell, at most 16 samples per cell). */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../src/ui/timeline_view.h"
#include "trex/analysis/counter_range.h"
#include "trex/analysis/search.h"
#include "trex/core/builder.h"
#include "trex/load/loader.h"
#include "trex/ui/term.h"
#include "trex/ui/view.h"

#include "bench_time.h"

#define RUNS_MAX 1000
#define FINEST_NS_PER_COL 2000
#define COUNTER_SAMPLES 4000000 /* 1 sample per us, with a spike every 4099 */

static void quiet(void *user, const char *text)
{
	(void)user;
	(void)text;
}

struct bench {
	struct trex_view *v;
	struct trex_layout lay;
	int runs;
};

static double one_redraw(struct bench *b)
{
	double t0 = now_ms();

	werase(stdscr);
	b->v->ops->draw(b->v, stdscr, &b->lay);
	wnoutrefresh(stdscr);
	doupdate();
	return now_ms() - t0;
}

/* Median and max of b->runs redraws, printed as a table row. */
static void measure(struct bench *b, const char *what, FILE *out)
{
	struct timeline_view *tv = (struct timeline_view *)b->v;
	double t[RUNS_MAX];
	char per[32];

	for (int i = 0; i < b->runs; i++)
		t[i] = one_redraw(b);
	qsort(t, (size_t)b->runs, sizeof(t[0]), cmp_double);
	trex_format_duration((double)(tv->win.span / (tv->cols > 0 ? tv->cols : 1)), per,
	                     sizeof(per));
	fprintf(out, "| %s | %s | %.3f | %.3f |\n", what, per, t[b->runs / 2], t[b->runs - 1]);
}

static void zoom_levels(struct bench *b, const char *what, FILE *out)
{
	struct timeline_view *tv = (struct timeline_view *)b->v;

	b->v->ops->dispatch(b->v, TREX_ACTION_FIT_ALL);
	for (int level = 0; level < 64; level++) {
		int64_t before = tv->win.span;

		measure(b, what, out);
		if (tv->win.span / tv->cols <= FINEST_NS_PER_COL)
			break;
		b->v->ops->dispatch(b->v, TREX_ACTION_ZOOM_IN);
		if (tv->win.span == before)
			break;
	}
}

static struct trex_search *search(const struct trex_index *idx, const char *pat,
                                  const struct trex_search *within)
{
	struct trex_search *s = NULL;
	struct trex_error err;

	if (trex_search_new(idx, pat, within, &s, &err) != TREX_OK)
		fprintf(stderr, "redraw: %s\n", err.message);
	return s;
}

static int run(const struct trex_index *idx, int cols, int rows, int runs, FILE *out)
{
	struct trex_term term;
	struct trex_term_opts to = {.color = TREX_COLOR_AUTO, .headless = true};
	struct trex_theme theme;
	struct trex_error err;
	struct trex_ui_ctx ctx;
	struct bench b = {NULL, {0}, runs};
	struct timeline_view *tv;
	struct trex_keymap *km = trex_keymap_new();

	memset(&term, 0, sizeof(term));
	memset(&ctx, 0, sizeof(ctx));
	trex_theme_init(&theme);
	trex_theme_load_builtin(&theme, quiet, NULL);
	if (trex_term_start(&term, &to, &theme, &err) != TREX_OK) {
		fprintf(stderr, "redraw: %s\n", err.message);
		return 1;
	}
	resizeterm(rows, cols);
	ctx.term = &term;
	ctx.idx = idx;
	ctx.km = km;
	ctx.title = "bench";
	if (km)
		trex_keymap_load_builtin(km, quiet, NULL);
	b.v = trex_timeline_view_new(&ctx);
	if (!b.v || !km) {
		trex_keymap_free(km);
		trex_term_stop(&term);
		fprintf(stderr, "redraw: out of memory\n");
		return 1;
	}
	tv = (struct timeline_view *)b.v;
	trex_layout_compute(COLS, LINES, &b.lay);
	one_redraw(&b); /* the view learns its width */
	zoom_levels(&b, "plain", out);
	tv->search = search(idx, "gemm", NULL);
	zoom_levels(&b, "search /gemm", out);
	tv->filter = search(idx, "kernel", NULL);
	tv->rows.filter = tv->filter;
	tl_rows_build(&tv->rows, idx);
	zoom_levels(&b, "filter \\kernel + /gemm", out);
	b.v->ops->free(b.v);
	trex_keymap_free(km);
	trex_term_stop(&term);
	fprintf(out, "\nscreen %dx%d (asked %dx%d), utf8 %d, colours %d\n", COLS, LINES, cols, rows,
	        term.utf8, term.depth);
	return 0;
}

/* ---- counters ----------------------------------------------------------------------- */

static struct trex_index *counter_index(void)
{
	struct trex_builder *b = trex_builder_new(0);
	struct trex_build_file file = {
	    .path = "bench", .format = "synthetic", .dialect = "kineto", .events = COUNTER_SAMPLES};
	struct trex_build_input in = {
	    .files = &file, .file_count = 1, .parts = &b, .part_count = 1, .threads = 1};
	struct trex_index *idx = NULL;
	struct trex_error err;
	uint32_t name;

	if (!b)
		return NULL;
	name = trex_builder_intern(b, "mem", 3);
	for (uint32_t i = 0; i < COUNTER_SAMPLES; i++)
		trex_builder_counter(b, 1, name, (int64_t)i * 1000, i % 4099 == 7 ? 100.0 : i % 10);
	if (trex_index_build(&in, &idx, &err) != TREX_OK) {
		fprintf(stderr, "redraw: %s\n", err.message);
		return NULL;
	}
	return idx;
}

/* ms for one row of cols cells over [t0, t0 + span); exact or sampled. */
static double counter_row(const struct trex_index *idx, const struct trex_counter_peaks *p,
                          int cols, int64_t t0, int64_t span, double *sum)
{
	struct trex_tmap m = {t0, span, cols};
	double t = now_ms();

	for (int c = 0; c < cols; c++) {
		int64_t lo, hi;
		double v = 0;

		trex_tmap_cell(&m, c, &lo, &hi);
		if (p ? trex_counter_peaks_cell(p, lo, hi, &v)
		      : trex_counter_cell(idx, 0, lo, hi, &v))
			*sum += v;
	}
	return now_ms() - t;
}

static int counter_bench(int cols, int runs, FILE *out)
{
	struct trex_index *idx = counter_index();
	struct trex_counter_peaks p;
	double t0, t[RUNS_MAX], u[RUNS_MAX], exact = 0, sampled = 0;
	int64_t span = (int64_t)COUNTER_SAMPLES * 1000;
	char per[32];

	if (!idx || trex_index_track(idx, 0)->kind != TREX_TRACK_COUNTER)
		return 1;
	t0 = now_ms();
	if (trex_counter_peaks_build(idx, 0, &p, NULL) != TREX_OK)
		return 1;
	fprintf(out, "\ncounter: %u samples, peaks built in %.1f ms (%zu bytes)\n\n", p.count,
	        now_ms() - t0, sizeof(double) * p.nblocks * (size_t)p.levels);
	fprintf(out, "| counter row | per column | exact median ms | sampled median ms |\n"
	             "|---|---|---|---|\n");
	for (; span / cols >= FINEST_NS_PER_COL; span /= 2) {
		int64_t start = ((int64_t)COUNTER_SAMPLES * 1000 - span) / 2;

		for (int i = 0; i < runs; i++) {
			t[i] = counter_row(idx, &p, cols, start, span, &exact);
			u[i] = counter_row(idx, NULL, cols, start, span, &sampled);
		}
		qsort(t, (size_t)runs, sizeof(t[0]), cmp_double);
		qsort(u, (size_t)runs, sizeof(u[0]), cmp_double);
		trex_format_duration((double)(span / cols), per, sizeof(per));
		fprintf(out, "| %d cells | %s | %.4f | %.4f |\n", cols, per, t[runs / 2],
		        u[runs / 2]);
	}
	/* the sums keep the loops from being optimised away, and show the
	 * sampled rows missing peaks */
	fprintf(out, "\nsum of cell values: exact %.0f, sampled %.0f\n", exact, sampled);
	trex_counter_peaks_free(&p);
	trex_index_free(idx);
	return 0;
}

int main(int argc, char **argv)
{
	struct trex_load_opts opts = {0};
	struct trex_index *idx = NULL;
	struct trex_error err;
	int cols = 200, rows = 60, runs = 20, rc;
	double t0;
	FILE *out;

	if (argc < 2 || argc > 4 || (argc > 2 && sscanf(argv[2], "%dx%d", &cols, &rows) != 2) ||
	    (argc > 3 && (runs = atoi(argv[3])) < 1) || runs > RUNS_MAX) {
		fprintf(stderr, "usage: %s TRACE [COLSxROWS] [RUNS]\n", argv[0]);
		return 1;
	}
	setlocale(LC_ALL, "");
	t0 = now_ms();
	if (trex_load_paths((const char *const *)&argv[1], 1, &opts, &idx, &err) != TREX_OK) {
		fprintf(stderr, "redraw: %s\n", err.message);
		return 2;
	}
	/* curses owns stdout's terminal, if any: the table goes to a copy of it */
	out = fdopen(dup(1), "w");
	if (!out)
		return 2;
	fprintf(out, "%s: %u slices, %u tracks, %u lanes, loaded in %.0f ms\n\n", argv[1],
	        trex_index_slice_count(idx), trex_index_track_count(idx),
	        trex_index_lane_count(idx), now_ms() - t0);
	fprintf(out, "| state | per column | median ms | max ms |\n|---|---|---|---|\n");
	rc = run(idx, cols, rows, runs, out);
	if (rc == 0)
		rc = counter_bench(cols, runs, out);
	fclose(out);
	trex_index_free(idx);
	return rc;
}
