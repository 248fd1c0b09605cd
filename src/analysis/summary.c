#include "config.h"

#include "trex/analysis/summary.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/labels.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- column descriptors ------------------------------------------------------- */

static const struct trex_column file_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"format", "Format", TREX_COL_TEXT, false},
    {"dialect", "Dialect", TREX_COL_TEXT, false},
    {"gzip", "Gzip", TREX_COL_TEXT, false},
    {"truncated", "Truncated", TREX_COL_TEXT, false},
    {"bytes", "Bytes", TREX_COL_COUNT, true},
    {"decoded_bytes", "Decoded", TREX_COL_COUNT, true},
    {"events", "Events", TREX_COL_COUNT, true},
    {"span_ns", "Span", TREX_COL_DURATION, true},
    {"file", "File", TREX_COL_TEXT, false},
};
static const struct trex_column phase_cols[] = {
    {"phase", "Phase", TREX_COL_TEXT, false},
    {"events", "Events", TREX_COL_COUNT, true},
    {"name", "Name", TREX_COL_TEXT, false},
};
static const struct trex_column category_cols[] = {
    {"kind", "Kind", TREX_COL_TEXT, false},         {"slices", "Slices", TREX_COL_COUNT, true},
    {"instants", "Instants", TREX_COL_COUNT, true}, {"total_ns", "Total", TREX_COL_DURATION, true},
    {"category", "Category", TREX_COL_TEXT, false},
};
static const struct trex_column track_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},        {"process", "Process", TREX_COL_TEXT, false},
    {"kind", "Kind", TREX_COL_TEXT, false},         {"slices", "Slices", TREX_COL_COUNT, true},
    {"instants", "Instants", TREX_COL_COUNT, true}, {"samples", "Samples", TREX_COL_COUNT, true},
    {"depth", "Depth", TREX_COL_COUNT, true},       {"track", "Track", TREX_COL_TEXT, false},
};
/* The text report's tracks: the run and device labels in place of the numbers. */
static const struct trex_column track_text_cols[] = {
    {"run", "Run", TREX_COL_TEXT, false},           {"process", "Process", TREX_COL_TEXT, false},
    {"kind", "Kind", TREX_COL_TEXT, false},         {"slices", "Slices", TREX_COL_COUNT, true},
    {"instants", "Instants", TREX_COL_COUNT, true}, {"samples", "Samples", TREX_COL_COUNT, true},
    {"depth", "Depth", TREX_COL_COUNT, true},       {"track", "Track", TREX_COL_TEXT, false},
};
static const struct trex_column integrity_cols[] = {
    {"check", "Check", TREX_COL_TEXT, false},
    {"count", "Count", TREX_COL_COUNT, true},
    {"meaning", "Meaning", TREX_COL_TEXT, false},
};
static const struct trex_column problem_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"problem", "First problem", TREX_COL_TEXT, false},
};
enum example_col {
	EX_RANK,
	EX_CHECK,
	EX_COUNT,
	EX_EXAMPLE,
	EX_FILE,
	EX_OFFSET,
	EX_LINE,
	EX_COL,
	EX_DISK,
	EX_LENGTH,
	EX_LOST,
	EX_TRACK,
	EX_SLICE,
	EX_HAS_TS,
	EX_TS,
	EX_WHAT,
	EX_NCOLS
};
static const struct trex_column example_cols[EX_NCOLS] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"check", "Check", TREX_COL_TEXT, false},
    {"count", "Count", TREX_COL_COUNT, true},
    {"example", "Example", TREX_COL_TEXT, false},
    {"file", "File", TREX_COL_TEXT, false},
    {"offset", "Offset", TREX_COL_COUNT, false},
    {"line", "Line", TREX_COL_COUNT, false},
    {"col", "Col", TREX_COL_COUNT, false},
    {"compressed_offset", "Compressed", TREX_COL_COUNT, false},
    {"length", "Length", TREX_COL_COUNT, false},
    {"events_lost", "Events lost", TREX_COL_COUNT, false},
    {"track", "Track", TREX_COL_TEXT, false},
    {"slice", "Slice", TREX_COL_COUNT, false},
    {"has_ts", "Has ts", TREX_COL_COUNT, false},
    {"ts_ns", "Ts", TREX_COL_COUNT, false},
    {"what", "What", TREX_COL_TEXT, false},
};

/* ---- helpers ---------------------------------------------------------------------- */

static const char *dup_str(struct trex_table *t, const char *s)
{
	return trex_table_strdup(t, s, strlen(s));
}

static const char *dup_printf(struct trex_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *dup_printf(struct trex_table *t, const char *fmt, ...)
{
	va_list ap;
	int len;
	char *buf;
	const char *s = NULL;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !(buf = malloc((size_t)len + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(buf, (size_t)len + 1, fmt, ap);
	va_end(ap);
	s = trex_table_strdup(t, buf, (size_t)len);
	free(buf);
	return s;
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* ---- files ------------------------------------------------------------------------ */

struct span {
	int64_t start, end;
	bool any;
};

static void span_add(struct span *sp, int64_t start, int64_t end)
{
	if (!sp->any || start < sp->start)
		sp->start = start;
	if (!sp->any || end > sp->end)
		sp->end = end;
	sp->any = true;
}

static void track_span(const struct trex_index *idx, const struct trex_track *tr, struct span *sp)
{
	for (uint32_t i = 0; i < tr->slice_count; i++) {
		const struct trex_slice *s = trex_index_slice(idx, tr->first_slice + i);

		span_add(sp, s->ts, s->ts + s->dur);
	}
	for (uint32_t i = 0; i < tr->instant_count; i++) {
		int64_t ts = trex_index_instant(idx, tr->first_instant + i)->ts;

		span_add(sp, ts, ts);
	}
	for (uint32_t i = 0; i < tr->sample_count; i++) {
		int64_t ts = trex_index_sample(idx, tr->first_sample + i)->ts;

		span_add(sp, ts, ts);
	}
}

/* Time covered by each file's events; *out is calloc'd. */
static struct span *file_spans(const struct trex_index *idx)
{
	uint32_t nfiles = trex_index_file_count(idx);
	struct span *sp = calloc(nfiles ? nfiles : 1, sizeof(*sp));

	if (!sp)
		return NULL;
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		uint32_t file = trex_index_track_file(idx, t);

		if (file < nfiles)
			track_span(idx, trex_index_track(idx, t), &sp[file]);
	}
	return sp;
}

static bool file_row(struct trex_table *t, const struct trex_index *idx, const struct trex_file *f,
                     const struct span *sp)
{
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return false;
	c[0].count = f->rank;
	c[1].text = dup_str(t, trex_index_str(idx, f->format));
	c[2].text = dup_str(t, trex_index_str(idx, f->dialect));
	c[3].text = yes_no(f->gzip);
	c[4].text = yes_no(f->truncated);
	c[5].count = (int64_t)f->bytes_on_disk;
	c[6].count = (int64_t)f->bytes_decoded;
	c[7].count = (int64_t)f->events;
	c[8].number = sp->any ? (double)(sp->end - sp->start) : 0;
	c[9].text = dup_str(t, trex_index_str(idx, f->path));
	return c[1].text && c[2].text && c[9].text;
}

static bool fill_files(struct trex_table *t, const struct trex_index *idx)
{
	struct span *sp = file_spans(idx);
	bool ok = sp != NULL;

	for (uint32_t i = 0; ok && i < trex_index_file_count(idx); i++)
		ok = file_row(t, idx, trex_index_file(idx, i), &sp[i]);
	free(sp);
	return ok;
}

/* ---- phases ----------------------------------------------------------------------- */

/* One row per event type the loaders counted (by label, in the order the
 * files list them), with the events of every file. */
static bool fill_phases(struct trex_table *t, const struct trex_index *idx)
{
	for (uint32_t f = 0; f < trex_index_file_count(idx); f++) {
		const struct trex_file *file = trex_index_file(idx, f);

		for (uint32_t k = 0; k < file->event_type_count; k++) {
			const struct trex_event_type *et = &file->event_types[k];
			const char *label = trex_index_str(idx, et->label);
			union trex_cell *c = NULL;

			for (size_t r = 0; r < t->nrows && !c; r++) {
				if (strcmp(trex_table_cell(t, r, 0)->text, label) == 0)
					c = trex_table_cell(t, r, 0);
			}
			if (!c) {
				if (!(c = trex_table_add_row(t)))
					return false;
				c[0].text = dup_str(t, label);
				c[2].text = dup_str(t, trex_index_str(idx, et->name));
				if (!c[0].text || !c[2].text)
					return false;
			}
			c[1].count += (int64_t)et->events;
		}
	}
	return true;
}

/* ---- categories ---------------------------------------------------------------------- */

#define KIND_MIXED TREX_KIND_COUNT /* a category whose events differ in kind */

struct cat_acc {
	uint32_t cat;
	const char *name; /* of cat, for tie-breaks */
	int kind;
	uint64_t slices, instants;
	__int128 total;
};

struct cat_map {
	uint32_t *slot; /* per string id: 1 + index into acc, 0 = none yet */
	struct cat_acc *acc;
	size_t n;
};

static struct cat_acc *cat_get(const struct trex_index *idx, struct cat_map *m, uint32_t cat)
{
	if (!m->slot[cat]) {
		m->acc[m->n] =
		    (struct cat_acc){.cat = cat, .name = trex_index_str(idx, cat), .kind = -1};
		m->slot[cat] = (uint32_t)++m->n;
	}
	return &m->acc[m->slot[cat] - 1];
}

static void cat_kind(struct cat_acc *a, int kind)
{
	a->kind = a->kind < 0 || a->kind == kind ? kind : KIND_MIXED;
}

static void cat_collect(const struct trex_index *idx, struct cat_map *m)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		struct cat_acc *a = cat_get(idx, m, s->cat);

		a->slices++;
		a->total += s->dur;
		cat_kind(a, s->kind);
	}
	for (uint32_t i = 0; i < trex_index_instant_count(idx); i++) {
		const struct trex_instant *in = trex_index_instant(idx, i);
		struct cat_acc *a = cat_get(idx, m, in->cat);

		a->instants++;
		cat_kind(a, in->kind);
	}
}

static int cmp_cat(const void *pa, const void *pb)
{
	const struct cat_acc *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->slices != b->slices)
		return a->slices > b->slices ? -1 : 1;
	if (a->instants != b->instants)
		return a->instants > b->instants ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool cat_row(struct trex_table *t, const struct cat_acc *a)
{
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return false;
	c[0].text = a->kind == KIND_MIXED ? "mixed" : trex_kind_label((enum trex_kind)a->kind);
	c[1].count = (int64_t)a->slices;
	c[2].count = (int64_t)a->instants;
	c[3].number = (double)a->total;
	c[4].text = dup_str(t, a->name);
	return c[4].text != NULL;
}

static bool fill_categories(struct trex_table *t, const struct trex_index *idx)
{
	size_t nstr = trex_strtab_count(trex_index_strings(idx));
	size_t most = (size_t)trex_index_slice_count(idx) + trex_index_instant_count(idx);
	struct cat_map m = {calloc(nstr + 1, sizeof(uint32_t)), NULL, 0};
	bool ok;

	m.acc = malloc((most < nstr ? most : nstr) * sizeof(*m.acc) + sizeof(*m.acc));
	ok = m.slot && m.acc;
	if (ok) {
		cat_collect(idx, &m);
		qsort(m.acc, m.n, sizeof(*m.acc), cmp_cat);
	}
	for (size_t i = 0; ok && i < m.n; i++)
		ok = cat_row(t, &m.acc[i]);
	free(m.slot);
	free(m.acc);
	return ok;
}

/* ---- tracks -------------------------------------------------------------------------- */

static const char *track_kind_label(uint8_t kind)
{
	static const char *const labels[] = {"thread", "gpu", "counter", "async", "named"};

	return kind < ARRAY_LEN(labels) ? labels[kind] : "other";
}

static const char *process_label(struct trex_table *t, const struct trex_index *idx,
                                 const struct trex_process *p)
{
	const char *name = trex_index_str(idx, p->name);
	const char *pid = trex_index_str(idx, p->pid);

	return *name ? dup_printf(t, "%s (%s)", name, pid) : dup_str(t, pid);
}

static bool track_row(struct trex_table *t, const struct trex_index *idx, uint32_t id)
{
	const struct trex_track *tr = trex_index_track(idx, id);
	const struct trex_process *p = trex_index_process(idx, tr->process);
	const char *name = trex_index_str(idx, tr->name);
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return false;
	c[0].count = trex_index_file(idx, p->file)->rank;
	c[1].text = process_label(t, idx, p);
	c[2].text = track_kind_label(tr->kind);
	c[3].count = tr->slice_count;
	c[4].count = tr->instant_count;
	c[5].count = tr->sample_count;
	c[6].count = tr->max_depth;
	c[7].text = dup_str(t, *name ? name : trex_index_str(idx, tr->tid));
	return c[1].text && c[7].text;
}

static bool fill_tracks(struct trex_table *t, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++) {
		if (!track_row(t, idx, i))
			return false;
	}
	return true;
}

/* The rows of tracks again, the rank and the process named as every view
 * names runs and devices. */
static bool fill_tracks_text(struct trex_table *t, const struct trex_table *tracks,
                             const struct trex_index *idx)
{
	char buf[512];

	for (uint32_t i = 0; i < tracks->nrows; i++) {
		const struct trex_track *tr = trex_index_track(idx, i);
		union trex_cell *c = trex_table_add_row(t);

		if (!c)
			return false;
		memcpy(c, trex_table_cell(tracks, i, 0), tracks->ncols * sizeof(*c));
		c[0].text = dup_str(
		    t, trex_file_label(idx, trex_index_track_file(idx, i), buf, sizeof(buf)));
		c[1].text = dup_str(t, trex_device_name(idx, tr->process, buf, sizeof(buf)));
		c[7].text = dup_str(t, trex_table_cell(tracks, i, 7)->text);
		if (!c[0].text || !c[1].text || !c[7].text)
			return false;
	}
	return true;
}

/* ---- integrity and problems --------------------------------------------------------------- */

static bool fill_integrity(struct trex_table *t, const struct trex_index *idx)
{
	struct trex_integrity in = trex_index_integrity(idx);

	for (int k = 0; k < TREX_INTEG_COUNT; k++) {
		enum trex_integrity_counter c = (enum trex_integrity_counter)k;
		union trex_cell *row = trex_table_add_row(t);

		if (!row)
			return false;
		row[0].text = trex_integrity_name(c);
		row[1].count = (int64_t)trex_integrity_get(&in, c);
		row[2].text = trex_integrity_label(c);
	}
	return true;
}

static bool fill_problems(struct trex_table *t, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_file_count(idx); i++) {
		const struct trex_file *f = trex_index_file(idx, i);
		char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];
		union trex_cell *c;

		if (f->first_problem.status == TREX_OK)
			continue;
		if (!(c = trex_table_add_row(t)))
			return false;
		trex_error_format(&f->first_problem, msg, sizeof(msg));
		c[0].count = f->rank;
		if (!(c[1].text = dup_str(t, msg)))
			return false;
	}
	return true;
}

/* ---- integrity examples ------------------------------------------------------------------ */

static bool example_row(struct trex_table *t, const struct trex_index *idx, uint32_t file,
                        const char *check, uint64_t count, const struct trex_problem *p)
{
	const struct trex_file *f = trex_index_file(idx, file);
	const struct trex_track *tr =
	    p->track != TREX_NONE ? trex_index_track(idx, p->track) : NULL;
	char text[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 256];
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return false;
	trex_problem_format(idx, file, p, text, sizeof(text));
	c[EX_RANK].count = f->rank;
	c[EX_CHECK].text = check;
	c[EX_COUNT].count = (int64_t)count;
	c[EX_EXAMPLE].text = dup_str(t, text);
	c[EX_FILE].text = dup_str(t, trex_index_str(idx, f->path));
	c[EX_OFFSET].count = p->offset;
	c[EX_LINE].count = p->line > 0 ? p->line : -1;
	c[EX_COL].count = p->col > 0 ? p->col : -1;
	c[EX_DISK].count = p->offset >= 0 ? p->disk_offset : -1;
	c[EX_LENGTH].count = (int64_t)p->length;
	c[EX_LOST].count = (int64_t)p->events_lost;
	c[EX_TRACK].text = dup_str(t, tr ? trex_index_str(idx, tr->name) : "");
	c[EX_SLICE].count = p->slice == TREX_NONE ? -1 : (int64_t)p->slice;
	c[EX_HAS_TS].count = p->has_ts;
	c[EX_TS].count = p->has_ts ? p->ts : 0;
	c[EX_WHAT].text = dup_str(t, p->what);
	return c[EX_EXAMPLE].text && c[EX_FILE].text && c[EX_TRACK].text && c[EX_WHAT].text;
}

/* Per file: its first and largest damaged spans, then the first example of
 * every non-zero counter. */
static bool fill_examples(struct trex_table *t, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_file_count(idx); i++) {
		const struct trex_file *f = trex_index_file(idx, i);
		const struct trex_problem *first = trex_index_damage(idx, i, false);
		const struct trex_problem *largest = trex_index_damage(idx, i, true);

		if (first && !example_row(t, idx, i, "damage_first", first->length, first))
			return false;
		if (largest && !example_row(t, idx, i, "damage_largest", largest->length, largest))
			return false;
		for (int k = 0; k < TREX_INTEG_COUNT; k++) {
			enum trex_integrity_counter c = (enum trex_integrity_counter)k;
			const struct trex_problem *p = trex_index_problem(idx, i, c, 0);
			uint64_t n = trex_integrity_get(&f->integrity, c);

			if (p && n && !example_row(t, idx, i, trex_integrity_name(c), n, p))
				return false;
		}
	}
	return true;
}

/* ---- entry points -------------------------------------------------------------------- */

static void summary_init(struct trex_summary *s)
{
	memset(s, 0, sizeof(*s));
	trex_table_init(&s->files, "files", file_cols, ARRAY_LEN(file_cols));
	trex_table_init(&s->phases, "phases", phase_cols, ARRAY_LEN(phase_cols));
	trex_table_init(&s->categories, "categories", category_cols, ARRAY_LEN(category_cols));
	trex_table_init(&s->tracks, "tracks", track_cols, ARRAY_LEN(track_cols));
	trex_table_init(&s->tracks_text, "tracks", track_text_cols, ARRAY_LEN(track_text_cols));
	trex_table_init(&s->integrity, "integrity", integrity_cols, ARRAY_LEN(integrity_cols));
	trex_table_init(&s->problems, "problems", problem_cols, ARRAY_LEN(problem_cols));
	trex_table_init(&s->examples, "examples", example_cols, ARRAY_LEN(example_cols));
}

enum trex_status trex_summary_compute(const struct trex_index *idx, struct trex_summary *s,
                                      struct trex_error *err)
{
	summary_init(s);
	s->start_ns = trex_index_start(idx);
	s->end_ns = trex_index_end(idx);
	s->slices = trex_index_slice_count(idx);
	s->instants = trex_index_instant_count(idx);
	s->samples = trex_index_sample_count(idx);
	s->flows = trex_index_flow_count(idx);
	if (fill_files(&s->files, idx) && fill_phases(&s->phases, idx) &&
	    fill_categories(&s->categories, idx) && fill_tracks(&s->tracks, idx) &&
	    fill_tracks_text(&s->tracks_text, &s->tracks, idx) &&
	    fill_integrity(&s->integrity, idx) && fill_problems(&s->problems, idx) &&
	    fill_examples(&s->examples, idx))
		return TREX_OK;
	trex_summary_free(s);
	summary_init(s);
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "trace summary: out of memory");
}

void trex_summary_free(struct trex_summary *s)
{
	trex_table_free(&s->files);
	trex_table_free(&s->phases);
	trex_table_free(&s->categories);
	trex_table_free(&s->tracks);
	trex_table_free(&s->tracks_text);
	trex_table_free(&s->integrity);
	trex_table_free(&s->problems);
	trex_table_free(&s->examples);
}
