/* The integrity report: the counters per run with their first example,
 * the examples of one counter, and the line that says what was lost. */
#include "config.h"

#include "trex/analysis/integrity.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/labels.h"
#include "trex/core/display.h"
#include "trex/core/grow.h"
#include "views_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LABEL_MAX 512
#define EXACT_FROM 1000 /* byte counts from here on are also given exactly */

/* ---- bytes and the loss line ------------------------------------------------------------- */

const char *trex_format_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
	char num[32];
	double v = (double)n;
	size_t u = 0;

	if (n < 1000) {
		snprintf(buf, size, "%" PRIu64 " %s", n, trex_plural(n, "byte", "bytes"));
		return buf;
	}
	v /= 1000;
	while (u + 1 < ARRAY_LEN(units) && v >= 1000) {
		v /= 1000;
		u++;
	}
	trex_format_decimal(v, 1, num, sizeof(num));
	/* 999.96 kB rounds to "1000": say "1 MB" */
	if (u + 1 < ARRAY_LEN(units) && strtod(num, NULL) >= 1000) {
		u++;
		trex_format_decimal(v / 1000, 1, num, sizeof(num));
	}
	snprintf(buf, size, "%s %s", num, units[u]);
	return buf;
}

bool trex_file_lost_data(const struct trex_file *f)
{
	return f->truncated || trex_integrity_damaged(&f->integrity);
}

#define PHRASE_MAX 160

/* "1.2 MB", or with exact "1.2 MB (1234567 bytes)", into buf. */
static const char *bytes_text(uint64_t n, bool exact, char *buf, size_t size)
{
	char b[32];

	trex_format_bytes(n, b, sizeof(b));
	if (exact && n >= EXACT_FROM)
		snprintf(buf, size, "%s (%" PRIu64 " bytes)", b, n);
	else
		snprintf(buf, size, "%s", b);
	return buf;
}

/* Values of events dropped or kept changed: the damage counters before
 * the damaged spans (index.h). */
static uint64_t values_not_as_written(const struct trex_integrity *in)
{
	uint64_t n = 0;

	for (int c = TREX_INTEG_missing_fields; c < TREX_INTEG_syntax_errors; c++)
		n += trex_integrity_get(in, (enum trex_integrity_counter)c);
	return n;
}

/* What the files in [first, last) lost together. */
struct loss {
	struct trex_integrity in;
	bool truncated;
	uint64_t cut_at;    /* one file: where its ignored tail begins */
	uint64_t spot_lost; /* events lost at damaged spots (events_lost less the cut tails') */
};

static void loss_of(const struct trex_index *idx, uint32_t first, uint32_t last, struct loss *l)
{
	uint64_t tail_lost = 0;

	memset(l, 0, sizeof(*l));
	for (uint32_t i = first; i < last; i++) {
		const struct trex_file *f = trex_index_file(idx, i);
		const struct trex_problem *tail =
		    trex_index_problem(idx, i, TREX_INTEG_bytes_ignored, 0);

		trex_integrity_add(&l->in, &f->integrity);
		l->truncated = l->truncated || f->truncated || f->integrity.bytes_ignored;
		l->cut_at = f->bytes_decoded - f->integrity.bytes_ignored;
		tail_lost += tail ? tail->events_lost : 0;
	}
	l->spot_lost = l->in.events_lost > tail_lost ? l->in.events_lost - tail_lost : 0;
}

/* "lost about E events and B at S damaged spots", or "skipped B at S
 * damaged spots, no event lost"; "" without damaged spots. */
static void spans_text(const struct loss *l, bool exact, char *buf, size_t size)
{
	char b[64], lost[64] = "";
	uint64_t n = l->spot_lost, spots = l->in.syntax_errors;

	buf[0] = '\0';
	if (!spots)
		return;
	if (n)
		snprintf(lost, sizeof(lost), "lost about %" PRIu64 " %s and", n,
		         trex_plural(n, "event", "events"));
	snprintf(buf, size, "%s %s at %" PRIu64 " damaged %s%s", n ? lost : "skipped",
	         bytes_text(l->in.bytes_skipped, exact, b, sizeof(b)), spots,
	         trex_plural(spots, "spot", "spots"), n ? "" : ", no event lost");
}

/* "B ignored after truncation[ at byte K]"; "" when not cut short. */
static void cut_text(const struct loss *l, bool exact, char *buf, size_t size)
{
	char b[64], at[48] = "";

	buf[0] = '\0';
	if (!l->truncated)
		return;
	if (!l->in.bytes_ignored) {
		snprintf(buf, size, "cut short after a complete event");
		return;
	}
	if (exact)
		snprintf(at, sizeof(at), " at byte %" PRIu64, l->cut_at);
	snprintf(buf, size, "%s ignored after truncation%s",
	         bytes_text(l->in.bytes_ignored, exact, b, sizeof(b)), at);
}

/* The non-empty phrases[0..n) joined by "; " into buf; as snprintf returns. */
static int join_phrases(char phrases[][PHRASE_MAX], size_t n, char *buf, size_t size)
{
	int len = 0;

	for (size_t i = 0; i < n; i++) {
		size_t at = (size_t)len < size ? (size_t)len : size ? size - 1 : 0;

		if (phrases[i][0])
			len += snprintf(size ? buf + at : NULL, size - at, "%s%s", len ? "; " : "",
			                phrases[i]);
	}
	return len;
}

int trex_loss_text(const struct trex_index *idx, uint32_t file, bool exact, char *buf, size_t size)
{
	char phrases[3][PHRASE_MAX] = {"", "", ""};
	uint32_t n = trex_index_file_count(idx);
	struct loss l;
	uint64_t values;

	if (size)
		buf[0] = '\0';
	if (file != TREX_NONE && file >= n)
		return 0;
	if (file == TREX_NONE)
		loss_of(idx, 0, n, &l);
	else
		loss_of(idx, file, file + 1, &l);
	exact = exact && file != TREX_NONE;
	spans_text(&l, exact, phrases[0], PHRASE_MAX);
	cut_text(&l, exact, phrases[1], PHRASE_MAX);
	values = values_not_as_written(&l.in);
	if (values)
		snprintf(phrases[2], PHRASE_MAX, "%" PRIu64 " %s not taken as written", values,
		         trex_plural(values, "value", "values"));
	return join_phrases(phrases, 3, buf, size);
}

/* ---- the counters --------------------------------------------------------------------------- */

static const struct trex_column integrity_cols[TREX_INTEG_NCOLS] = {
    [TREX_INTEG_COL_RUN] = {"run", "Run", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_CHECK] = {"check", "Check", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_COUNT] = {"count", "Count", TREX_COL_COUNT, true},
    [TREX_INTEG_COL_SIZE] = {"size", "Size", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_KIND] = {"kind", "Kind", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_EXAMPLES] = {"examples", "Examples", TREX_COL_COUNT, true},
    [TREX_INTEG_COL_WHERE] = {"where", "Where", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_WHAT] = {"what", "What", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_TRACK] = {"track", "Track", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_TIME] = {"time_ns", "Time", TREX_COL_DURATION, false},
    [TREX_INTEG_COL_NAME] = {"name", "Name", TREX_COL_TEXT, false},
    [TREX_INTEG_COL_MEANING] = {"meaning", "Meaning", TREX_COL_TEXT, false},
};

static const struct trex_column example_cols[TREX_INTEG_EX_NCOLS] = {
    [TREX_INTEG_EX_N] = {"n", "#", TREX_COL_COUNT, false},
    [TREX_INTEG_EX_WHERE] = {"where", "Where", TREX_COL_TEXT, false},
    [TREX_INTEG_EX_WHAT] = {"what", "What", TREX_COL_TEXT, false},
    [TREX_INTEG_EX_BYTES] = {"bytes", "Bytes", TREX_COL_NUMBER, true},
    [TREX_INTEG_EX_LOST] = {"events_lost", "Lost", TREX_COL_NUMBER, true},
    [TREX_INTEG_EX_TRACK] = {"track", "Track", TREX_COL_TEXT, false},
    [TREX_INTEG_EX_TIME] = {"time_ns", "Time", TREX_COL_DURATION, false},
    [TREX_INTEG_EX_SLICE] = {"slice", "Slice", TREX_COL_COUNT, false},
    [TREX_INTEG_EX_NAME] = {"name", "Name", TREX_COL_TEXT, false},
};

static bool is_byte_counter(enum trex_integrity_counter c)
{
	return c == TREX_INTEG_bytes_skipped || c == TREX_INTEG_bytes_ignored;
}

/* "NAME:LINE:COL (byte N, compressed byte C)", "NAME (byte N)" or "". */
static const char *where_text(struct trex_table *t, const struct trex_index *idx, uint32_t file,
                              const struct trex_problem *p)
{
	char name[LABEL_MAX], buf[LABEL_MAX + 128];
	int k;

	if (!p || p->offset < 0)
		return "";
	trex_file_name(idx, file, name, sizeof(name));
	if (p->line > 0)
		k = snprintf(buf, sizeof(buf), "%s:%" PRId64 ":%" PRId64 " (byte %" PRId64, name,
		             p->line, p->col, p->offset);
	else
		k = snprintf(buf, sizeof(buf), "%s (byte %" PRId64, name, p->offset);
	if (k > 0 && (size_t)k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - (size_t)k,
		         p->disk_offset >= 0 ? ", compressed byte %" PRId64 ")" : ")",
		         p->disk_offset);
	return views_text(t, buf);
}

/* "GPU 0 / stream 7": the device (process) and the track, or "". */
static const char *track_text(struct trex_table *t, const struct trex_index *idx, uint32_t track)
{
	const struct trex_track *tr;
	char dev[LABEL_MAX], buf[2 * LABEL_MAX];
	const char *name;

	if (track == TREX_NONE || track >= trex_index_track_count(idx))
		return "";
	tr = trex_index_track(idx, track);
	name = trex_index_str(idx, tr->name);
	snprintf(buf, sizeof(buf), "%s / %s", trex_device_name(idx, tr->process, dev, sizeof(dev)),
	         *name ? name : trex_index_str(idx, tr->tid));
	return views_text(t, buf);
}

static double time_of(const struct trex_index *idx, const struct trex_problem *p)
{
	return p && p->has_ts ? views_from_start(idx, p->ts) : NAN;
}

static const char *name_of(struct trex_table *t, const struct trex_index *idx,
                           const struct trex_problem *p)
{
	return p && p->name != TREX_NONE ? views_text(t, trex_index_str(idx, p->name)) : "";
}

/* The run label of a row: its file's, or "all runs". */
static const char *run_text(struct trex_table *t, const struct trex_index *idx, uint32_t file)
{
	char buf[LABEL_MAX];

	if (file == TREX_NONE)
		return "all runs";
	return views_text(t, trex_file_label(idx, file, buf, sizeof(buf)));
}

struct rows_out {
	struct trex_table *t;
	struct trex_integrity_rows *rows; /* may be NULL */
	size_t cap;
};

static bool remember(struct rows_out *o, uint32_t file, enum trex_integrity_counter c)
{
	struct trex_integrity_rows *r = o->rows;
	struct trex_integrity_row *v;

	if (!r)
		return true;
	if (!(v = trex_grow(r->v, &o->cap, r->n + 1, sizeof(*v), 32)))
		return false;
	r->v = v;
	r->v[r->n++] = (struct trex_integrity_row){file, c};
	return true;
}

/* The first-example columns of row. */
static bool example_cells(struct trex_table *t, const struct trex_index *idx, uint32_t file,
                          enum trex_integrity_counter c, union trex_cell *row)
{
	const struct trex_problem *p =
	    file == TREX_NONE ? NULL : trex_index_problem(idx, file, c, 0);

	row[TREX_INTEG_COL_EXAMPLES].count =
	    file == TREX_NONE ? 0 : trex_index_problem_count(idx, file, c);
	row[TREX_INTEG_COL_WHERE].text = where_text(t, idx, file, p);
	row[TREX_INTEG_COL_WHAT].text = p ? views_text(t, p->what) : "";
	row[TREX_INTEG_COL_TRACK].text = track_text(t, idx, p ? p->track : TREX_NONE);
	row[TREX_INTEG_COL_TIME].number = time_of(idx, p);
	row[TREX_INTEG_COL_NAME].text = name_of(t, idx, p);
	return row[TREX_INTEG_COL_WHERE].text && row[TREX_INTEG_COL_WHAT].text &&
	       row[TREX_INTEG_COL_TRACK].text && row[TREX_INTEG_COL_NAME].text;
}

static bool counter_row(struct rows_out *o, const struct trex_index *idx, uint32_t file,
                        enum trex_integrity_counter c, uint64_t count)
{
	struct trex_table *t = o->t;
	union trex_cell *row = trex_table_add_row(t);
	char size[32];

	if (!row || !remember(o, file, c))
		return false;
	row[TREX_INTEG_COL_RUN].text = run_text(t, idx, file);
	row[TREX_INTEG_COL_CHECK].text = trex_integrity_name(c);
	row[TREX_INTEG_COL_COUNT].count = (int64_t)count;
	row[TREX_INTEG_COL_SIZE].text =
	    is_byte_counter(c) ? views_text(t, trex_format_bytes(count, size, sizeof(size))) : "";
	row[TREX_INTEG_COL_KIND].text = trex_integrity_is_damage(c) ? "damage" : "note";
	row[TREX_INTEG_COL_MEANING].text = trex_integrity_label(c);
	return row[TREX_INTEG_COL_RUN].text && row[TREX_INTEG_COL_SIZE].text &&
	       example_cells(t, idx, file, c, row);
}

/* The groups of rows, in order. */
enum counter_group { GROUP_DAMAGE, GROUP_NOTES, GROUP_ZERO };

static enum counter_group group_of(enum trex_integrity_counter c, uint64_t total)
{
	if (total == 0)
		return GROUP_ZERO;
	return trex_integrity_is_damage(c) ? GROUP_DAMAGE : GROUP_NOTES;
}

/* The rows of counter c: one per file counting it, or one for none. */
static bool counter_rows(struct rows_out *o, const struct trex_index *idx,
                         enum trex_integrity_counter c, uint64_t total)
{
	uint32_t nfiles = trex_index_file_count(idx);

	if (total == 0)
		return counter_row(o, idx, nfiles == 1 ? 0 : TREX_NONE, c, 0);
	for (uint32_t f = 0; f < nfiles; f++) {
		uint64_t n = trex_integrity_get(&trex_index_file(idx, f)->integrity, c);

		if (n && !counter_row(o, idx, f, c, n))
			return false;
	}
	return true;
}

static bool fill_counters(struct rows_out *o, const struct trex_index *idx)
{
	struct trex_integrity sum = trex_index_integrity(idx);

	for (int g = GROUP_DAMAGE; g <= GROUP_ZERO; g++) {
		for (int k = 0; k < TREX_INTEG_COUNT; k++) {
			enum trex_integrity_counter c = (enum trex_integrity_counter)k;
			uint64_t total = trex_integrity_get(&sum, c);

			if (group_of(c, total) == (enum counter_group)g &&
			    !counter_rows(o, idx, c, total))
				return false;
		}
	}
	return true;
}

void trex_integrity_rows_free(struct trex_integrity_rows *rows)
{
	free(rows->v);
	rows->v = NULL;
	rows->n = 0;
}

enum trex_status trex_integrity_table(const struct trex_index *idx, struct trex_table *out,
                                      struct trex_integrity_rows *rows, struct trex_error *err)
{
	struct rows_out o = {out, rows, 0};

	trex_table_init(out, "integrity", integrity_cols, TREX_INTEG_NCOLS);
	if (rows)
		*rows = (struct trex_integrity_rows){NULL, 0};
	if (trex_index_file_count(idx) == 0)
		out->note = "no input files";
	if (trex_index_file_count(idx) == 0 || fill_counters(&o, idx))
		return TREX_OK;
	trex_table_free(out);
	if (rows)
		trex_integrity_rows_free(rows);
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "integrity: out of memory");
}

/* ---- the examples of one counter ------------------------------------------------------------ */

static bool example_row(struct trex_table *t, const struct trex_index *idx, uint32_t file,
                        const struct trex_problem *p, uint32_t i)
{
	union trex_cell *row = trex_table_add_row(t);
	enum trex_integrity_counter c = (enum trex_integrity_counter)p->counter;
	bool span =
	    is_byte_counter(c) || c == TREX_INTEG_syntax_errors || c == TREX_INTEG_events_lost;

	if (!row)
		return false;
	row[TREX_INTEG_EX_N].count = (int64_t)i + 1;
	row[TREX_INTEG_EX_WHERE].text = where_text(t, idx, file, p);
	row[TREX_INTEG_EX_WHAT].text = views_text(t, p->what);
	row[TREX_INTEG_EX_BYTES].number = span ? (double)p->length : NAN;
	row[TREX_INTEG_EX_LOST].number = span ? (double)p->events_lost : NAN;
	row[TREX_INTEG_EX_TRACK].text = track_text(t, idx, p->track);
	row[TREX_INTEG_EX_TIME].number = time_of(idx, p);
	row[TREX_INTEG_EX_SLICE].count = p->slice == TREX_NONE ? -1 : (int64_t)p->slice;
	row[TREX_INTEG_EX_NAME].text = name_of(t, idx, p);
	return row[TREX_INTEG_EX_WHERE].text && row[TREX_INTEG_EX_WHAT].text &&
	       row[TREX_INTEG_EX_TRACK].text && row[TREX_INTEG_EX_NAME].text;
}

enum trex_status trex_integrity_examples_table(const struct trex_index *idx, uint32_t file,
                                               enum trex_integrity_counter c,
                                               struct trex_table *out, struct trex_error *err)
{
	uint32_t n = trex_index_problem_count(idx, file, c);

	trex_table_init(out, "integrity examples", example_cols, TREX_INTEG_EX_NCOLS);
	if (n == 0)
		out->note = "no examples kept";
	for (uint32_t i = 0; i < n; i++) {
		if (!example_row(out, idx, file, trex_index_problem(idx, file, c, i), i)) {
			trex_table_free(out);
			return trex_error_set(err, TREX_NOMEM, NULL, -1,
			                      "integrity examples: out of memory");
		}
	}
	return TREX_OK;
}
