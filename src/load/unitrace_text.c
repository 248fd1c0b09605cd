/* unitrace's text output (unitrace.md §2-§3): what -d, -h and -s print
 * (totals, then one table per backend), the kernel properties, and the
 * metric CSVs of -q and -k (unitrace_metrics.c), in any mix: stderr of a
 * run with -d -q holds them one after the other, with the program's own
 * output between them.
 *
 * Tables: "   Kernel, Calls, Time (ns), ..." column titles right-aligned
 * with blanks, then one row per kernel or function: a quoted name (L0) or
 * a bare one (OpenCL), blanks before it, values after commas; rows end at
 * a blank line. The older kernel properties wrote the values after the
 * first comma apart by blanks only. Lines outside every table (program
 * output, -t and -c logs) are counted on the source, not read. */
#include "config.h"

#include "unitrace_parse.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "trex/core/grow.h"
#include "trex/load/metrics_load.h"

enum ut_section {
	UT_NONE,
	UT_DEVICE_TIMING, /* === Device Timing Summary === */
	UT_HOST_TIMING,   /* === API Timing Summary === */
	UT_SUBMISSION,    /* === Kernel Submission Summary === */
	UT_PROPERTIES,    /* === Kernel Properties === */
	UT_METRICS,       /* === Device #N Metrics ===, == Kernel Metrics == */
	UT_OTHER,         /* another === ... === section: not read */
};

static const struct {
	const char *banner;
	enum ut_section section;
	enum trex_report_kind kind;
} sections[] = {
    {"Device Timing Summary", UT_DEVICE_TIMING, TREX_REPORT_DEVICE_TIMING},
    {"API Timing Summary", UT_HOST_TIMING, TREX_REPORT_HOST_TIMING},
    {"Kernel Submission Summary", UT_SUBMISSION, TREX_REPORT_SUBMISSION},
    {"Kernel Properties", UT_PROPERTIES, TREX_REPORT_KERNEL_PROPERTIES},
};

void ut_problem(struct ut_reader *r, const struct text_line *line, size_t col, const char *fmt, ...)
{
	struct trex_error e;
	va_list ap;

	va_start(ap, fmt);
	trex_error_setv(&e, TREX_FORMAT, r->path,
	                (int64_t)line->offset + (col ? (int64_t)col - 1 : 0), fmt, ap);
	va_end(ap);
	trex_error_set_line_col(&e, line->number, col ? (int64_t)col : 1);
	trex_metrics_problem(r->m, r->source, &e);
}

/* ---- banners -------------------------------------------------------------------------------- */

/* "=== TEXT ===" (level 3) or "== TEXT ==" (level 2) -> TEXT and its level;
 * 0 when the line is no banner. */
static int banner(const char *p, size_t len, const char **text, size_t *text_len)
{
	size_t lead = 0, trail = 0;

	while (lead < len && p[lead] == '=')
		lead++;
	while (trail < len - lead && p[len - 1 - trail] == '=')
		trail++;
	if ((lead != 2 && lead != 3) || trail != lead || len < 2 * lead + 3 || p[lead] != ' ' ||
	    p[len - trail - 1] != ' ')
		return 0;
	*text = p + lead + 1;
	*text_len = len - lead - trail - 2;
	return (int)lead;
}

static bool text_is(const char *p, size_t len, const char *s)
{
	return len == strlen(s) && memcmp(p, s, len) == 0;
}

/* "Device #N Metrics" -> N into buf. */
static bool device_metrics_banner(const char *p, size_t len, char *buf, size_t size)
{
	static const char head[] = "Device #", tail[] = " Metrics";
	size_t h = sizeof(head) - 1, t = sizeof(tail) - 1;

	if (len <= h + t || memcmp(p, head, h) != 0 || memcmp(p + len - t, tail, t) != 0)
		return false;
	snprintf(buf, size, "%.*s", (int)(len - h - t), p + h);
	return true;
}

static void close_table(struct ut_reader *r)
{
	r->report = TREX_METRICS_NONE;
	r->expect_header = false;
}

static void enter_section(struct ut_reader *r, enum ut_section s)
{
	close_table(r);
	ut_csv_end(r);
	r->section = s;
	r->totals = TREX_METRICS_NONE;
	r->title[0] = '\0';
	/* the kernel properties table has no backend title: its header follows */
	r->expect_header = s == UT_PROPERTIES;
}

static const char *section_name(const struct ut_reader *r)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if ((int)sections[i].section == r->section)
			return sections[i].banner;
	}
	return "";
}

static enum trex_report_kind section_kind(const struct ut_reader *r)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if ((int)sections[i].section == r->section)
			return sections[i].kind;
	}
	return TREX_REPORT_TOTALS;
}

/* A banner line: a new section, a backend's table title, the older
 * style's metrics section. */
static void on_banner(struct ut_reader *r, int level, const char *t, size_t len)
{
	char dev[32];

	if (level == 3 && device_metrics_banner(t, len, dev, sizeof(dev))) {
		enter_section(r, UT_METRICS);
		snprintf(r->csv.banner_device, sizeof(r->csv.banner_device), "Device #%s", dev);
		return;
	}
	if (level == 2 && text_is(t, len, "Kernel Metrics")) {
		enter_section(r, UT_METRICS);
		r->csv.banner_device[0] = '\0';
		return;
	}
	for (size_t i = 0; level == 3 && i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (text_is(t, len, sections[i].banner)) {
			enter_section(r, sections[i].section);
			return;
		}
	}
	if (level == 2 && r->section != UT_NONE && r->section != UT_OTHER &&
	    r->section != UT_METRICS) {
		close_table(r);
		snprintf(r->title, sizeof(r->title), "%.*s", (int)len, t);
		r->expect_header = true;
		return;
	}
	enter_section(r, UT_OTHER);
}

/* ---- tables -----------------------------------------------------------------------------------
 */

static bool grow_cells(struct ut_reader *r, size_t n)
{
	struct trex_report_cell *c = trex_grow(r->cells, &r->cells_cap, n, sizeof(*c), 16);

	if (!c)
		return false;
	r->cells = c;
	return true;
}

/* fields[0..n) as cells (numbers where they are). */
static bool fields_to_cells(struct ut_reader *r, size_t n)
{
	if (!grow_cells(r, n))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct ut_field *f = &r->fields[i];
		double v;

		r->cells[i] = (struct trex_report_cell){f->p, f->len, NAN};
		if (ut_number(f->p, f->p + f->len, &v))
			r->cells[i].number = v;
	}
	return true;
}

static void table_header(struct ut_reader *r, const struct text_line *line)
{
	size_t n = ut_split(r, line);

	r->expect_header = false;
	if (n == SIZE_MAX || !fields_to_cells(r, n)) {
		r->nomem = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		r->cells[i].number = NAN; /* titles are text */
	r->report = trex_metrics_add_report(r->m, r->source, section_kind(r), section_name(r),
	                                    r->title[0] ? r->title : section_name(r), r->cells,
	                                    (uint32_t)n, line->number);
	if (r->report == TREX_METRICS_NONE)
		r->nomem = true;
}

/* The older kernel properties: "name,    27    8    0    0" - the values
 * after the first comma are apart by blanks only. Splits field 1 into
 * want fields; false when it does not hold that many. */
static bool split_blanks(struct ut_reader *r, const struct text_line *line, size_t want)
{
	const struct ut_field f = r->fields[1];
	const char *p = f.p, *end = f.p + f.len;
	size_t n = 1;

	if (!ut_grow_fields(r, 1 + want))
		return false;
	while (p < end && n <= want) {
		const char *s = p;

		while (p < end && *p != ' ' && *p != '\t')
			p++;
		r->fields[n++] = (struct ut_field){s, (size_t)(p - s), (size_t)(s - line->p) + 1};
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	return n == 1 + want && p == end;
}

/* An unquoted name with commas (OpenCL): the fields beyond the header's
 * belong to the name. */
static size_t join_name(struct ut_reader *r, const struct text_line *line, size_t n, size_t ncols)
{
	size_t extra = n - ncols;
	const struct ut_field *last = &r->fields[extra];

	r->fields[0].len = (size_t)(last->p + last->len - r->fields[0].p);
	memmove(r->fields + 1, r->fields + 1 + extra, (ncols - 1) * sizeof(*r->fields));
	(void)line;
	return ncols;
}

static void table_row(struct ut_reader *r, const struct text_line *line)
{
	const struct trex_report *rep = trex_metrics_report(r->m, r->report);
	size_t n = ut_split(r, line), ncols = rep->ncols;

	if (n == SIZE_MAX) {
		r->nomem = true;
		return;
	}
	if (n > ncols && !(r->fields[0].p > line->p && r->fields[0].p[-1] == '"'))
		n = join_name(r, line, n, ncols);
	if (n == 2 && ncols > 2 && !split_blanks(r, line, ncols - 1))
		n = 0;
	else if (n == 2 && ncols > 2)
		n = ncols;
	if (n != ncols || !line->newline) {
		ut_problem(r, line, 0, "%s row has %zu fields where its header has %zu (skipped)%s",
		           trex_report_kind_name(section_kind(r)), n, ncols,
		           line->newline ? "" : "; the input ends inside it");
		return;
	}
	if (!fields_to_cells(r, n) || !trex_metrics_report_row(r->m, r->cells)) {
		r->nomem = true;
		return;
	}
	r->read++;
}

/* "   Total Execution Time (ns):     214649009" before a section's tables. */
static bool totals_line(struct ut_reader *r, const struct text_line *line)
{
	const char *end = line->p + line->len, *colon = NULL;
	struct trex_report_cell kv[2];
	double v;
	const char *s, *vs;

	for (const char *p = line->p; p < end; p++)
		colon = *p == ':' ? p : colon;
	if (!colon)
		return false;
	vs = colon + 1;
	while (vs < end && *vs == ' ')
		vs++;
	if (!ut_number(vs, end, &v))
		return false;
	for (s = line->p; s < colon && *s == ' '; s++)
		;
	if (r->totals == TREX_METRICS_NONE) {
		static const struct trex_report_cell cols[2] = {{"Total", 5, 0}, {"Value", 5, 0}};

		r->totals =
		    trex_metrics_add_report(r->m, r->source, TREX_REPORT_TOTALS, section_name(r),
		                            "Totals", cols, 2, line->number);
	}
	kv[0] = (struct trex_report_cell){s, (size_t)(colon - s), NAN};
	kv[1] = (struct trex_report_cell){vs, (size_t)(end - vs), v};
	/* the totals come before any table, so they are the last report */
	if (r->totals == TREX_METRICS_NONE || r->totals + 1 != trex_metrics_report_count(r->m) ||
	    !trex_metrics_report_row(r->m, kv))
		r->nomem = r->totals == TREX_METRICS_NONE || r->nomem;
	else
		r->read++;
	return true;
}

/* ---- lines --------------------------------------------------------------------------------------
 */

static void metrics_line(struct ut_reader *r, const struct text_line *line)
{
	if (ut_metrics_header(line->p, line->len))
		ut_csv_header(r, line);
	else if (r->csv.active)
		ut_csv_row(r, line);
	else
		r->unread++;
}

static void on_line(struct ut_reader *r, const struct text_line *line)
{
	const char *t;
	size_t tlen;
	int level;

	if (ut_blank(line->p, line->len)) {
		/* ends a table's rows; between a title and its header it is layout */
		r->report = TREX_METRICS_NONE;
		ut_csv_break(r);
		return;
	}
	if ((level = banner(line->p, line->len, &t, &tlen)) != 0) {
		on_banner(r, level, t, tlen);
		return;
	}
	if (r->section == UT_METRICS || ut_metrics_header(line->p, line->len)) {
		if (r->section != UT_METRICS)
			enter_section(r, UT_METRICS); /* non-legacy output: no banner */
		metrics_line(r, line);
	} else if (r->expect_header) {
		table_header(r, line);
	} else if (r->report != TREX_METRICS_NONE) {
		table_row(r, line);
	} else if (r->section == UT_NONE || r->section == UT_OTHER || !totals_line(r, line)) {
		r->unread++;
	}
}

/* ---- the format
 * ---------------------------------------------------------------------------------- */

static bool starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* After "=== Device #N Metrics ===": a metric CSV header (ours), or the
 * stall-sampling CSV's blank-padded one (not ours); unknown when the
 * bytes end first. */
static int sniff_device_banner(const char *p, const char *end)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));

	if (!eol)
		return 50;
	for (p = eol; p < end && (*p == '\n' || *p == '\r'); p++)
		;
	if (p == end)
		return 50;
	if (*p == ' ')
		return 0;
	return ut_metrics_header(p, (size_t)(end - p)) || starts(p, end, "Kernel,") ? 90 : 30;
}

/* The score of a report that starts at p: a banner (or the start of one
 * where the bytes end), a device banner, a metric CSV header; 0 if none. */
static int sniff_report_start(const char *p, const char *end)
{
	static const char *const banners[] = {
	    "=== Device Timing Summary ===", "=== API Timing Summary ===",
	    "=== Kernel Submission Summary ===", "=== Kernel Properties ===",
	    "== Kernel Metrics =="};

	for (size_t i = 0; i < sizeof(banners) / sizeof(banners[0]); i++) {
		if (starts(p, end, banners[i]) || (end - p < (ptrdiff_t)strlen(banners[i]) &&
		                                   memcmp(p, banners[i], (size_t)(end - p)) == 0))
			return 90;
	}
	if (starts(p, end, "=== Device #"))
		return sniff_device_banner(p, end);
	return ut_metrics_header(p, (size_t)(end - p)) ? 90 : 0;
}

/* A report after the program's own output (stdout and the report in one
 * file): a banner at the start of a later line of the head, below the
 * score of a report that starts the file. Never a JSON document's. */
static int sniff_later_report(const char *p, const char *end)
{
	if (*p == '{' || *p == '[')
		return 0;
	for (const char *nl = memchr(p, '\n', (size_t)(end - p)); nl;
	     nl = memchr(nl + 1, '\n', (size_t)(end - nl - 1))) {
		/* enough of the line to tell a banner from a row of '=' */
		if (end - nl > 12 && sniff_report_start(nl + 1, end) >= 90)
			return 70;
	}
	return 0;
}

static int ut_sniff(const unsigned char *head, size_t len)
{
	const char *p = (const char *)head, *end = p + len;
	int score;

	while (p < end && (*p == '\n' || *p == '\r' || *p == ' '))
		p++;
	if (p == end)
		return 0;
	score = sniff_report_start(p, end);
	return score ? score : sniff_later_report(p, end);
}

static void reader_free(struct ut_reader *r)
{
	free(r->fields);
	free(r->cells);
	ut_csv_free(&r->csv);
}

/* The end of input: a gzip stream that broke or ended early is a problem
 * at its end. */
static void input_end(struct ut_reader *r, const struct text_lines *tl)
{
	struct trex_error e = tl->corrupt;

	if (e.status == TREX_OK && !tl->truncated)
		return;
	if (e.status == TREX_OK)
		trex_error_set(&e, TREX_FORMAT, r->path, (int64_t)text_lines_position(tl),
		               "the gzip stream ends early: the input stops here");
	trex_metrics_problem(r->m, r->source, &e);
}

#define PROGRESS_LINES 65536

/* Progress so far; true when cancelled. */
static bool progress(const struct text_lines *tl, struct trex_source *src,
                     const struct trex_load_opts *o)
{
	struct trex_load_progress p = {
	    .bytes_done = text_lines_position(tl),
	    .bytes_total = trex_source_size_on_disk(src),
	    .disk_done = text_lines_disk_position(tl),
	    .file_count = 1,
	};

	if (o && o->progress)
		o->progress(&p, o->progress_user);
	return o && o->cancel && *o->cancel;
}

static enum trex_status read_lines(struct ut_reader *r, struct text_lines *tl,
                                   struct trex_source *src, const struct trex_load_opts *opts,
                                   struct trex_error *err)
{
	struct text_line line;
	uint64_t n = 0;

	trex_error_clear(err);
	while (text_lines_next(tl, &line, err)) {
		on_line(r, &line);
		if (r->nomem)
			return trex_error_set(err, TREX_NOMEM, r->path, -1, "out of memory");
		if (++n % PROGRESS_LINES == 0 && progress(tl, src, opts))
			return trex_error_set(err, TREX_CANCELLED, r->path, -1, "interrupted");
	}
	if (err->status != TREX_OK)
		return err->status;
	ut_csv_end(r);
	input_end(r, tl);
	trex_metrics_source_lines(r->m, r->source, (uint64_t)tl->number, r->unread);
	trex_metrics_source_bytes(r->m, r->source, text_lines_position(tl));
	return TREX_OK;
}

static enum trex_status ut_load(struct trex_source *src, struct trex_metrics *m,
                                const struct trex_load_opts *opts, struct trex_error *err)
{
	struct ut_reader r = {.m = m,
	                      .path = trex_source_path(src),
	                      .report = TREX_METRICS_NONE,
	                      .totals = TREX_METRICS_NONE};
	struct text_lines tl;
	enum trex_status s;

	r.source = trex_metrics_add_source(m, r.path, "unitrace-text");
	if (r.source == TREX_METRICS_NONE)
		return trex_error_set(err, TREX_NOMEM, r.path, -1, "out of memory");
	s = text_lines_open(&tl, src, 0, err);
	if (s == TREX_OK) {
		s = read_lines(&r, &tl, src, opts, err);
		text_lines_close(&tl);
	}
	if (s == TREX_OK && !r.read)
		s = trex_error_set(
		    err, TREX_FORMAT, r.path, -1,
		    "expected unitrace metrics or reports (=== Device Timing Summary "
		    "===, Kernel,GlobalInstanceId,...), found none");
	reader_free(&r);
	return s;
}

const struct trex_metrics_format trex_format_unitrace_text = {
    .name = "unitrace-text",
    .sniff = ut_sniff,
    .load = ut_load,
};
