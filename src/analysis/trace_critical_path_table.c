#include "config.h"

#include "trex/analysis/trace_critical_path.h"

#include <string.h>

#include "trex/analysis/kernels.h"

enum { COL_RANK, COL_TRACK, COL_NAME, COL_KIND, COL_START, COL_DURATION, COL_BOUND, COLS };

static const struct trex_column columns[COLS] = {
    [COL_RANK] = {"rank", "Rank", TREX_COL_COUNT, false},
    [COL_TRACK] = {"track", "Track", TREX_COL_TEXT, false},
    [COL_NAME] = {"name", "Name", TREX_COL_TEXT, false},
    [COL_KIND] = {"kind", "Kind", TREX_COL_TEXT, false},
    [COL_START] = {"start_ns", "Start", TREX_COL_DURATION, false},
    [COL_DURATION] = {"duration_ns", "Duration", TREX_COL_DURATION, true},
    [COL_BOUND] = {"bound", "Bound by", TREX_COL_TEXT, false},
};

/* rank, path_ns, then ns and % per share (enum trex_tpath_share order). */
static const struct trex_column summary_columns[2 + 2 * TREX_SHARE_COUNT] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"path_ns", "Path", TREX_COL_DURATION, true},
    {"cpu_ns", "CPU", TREX_COL_DURATION, true},
    {"cpu_pct", "CPU %", TREX_COL_PERCENT, true},
    {"gpu_ns", "GPU", TREX_COL_DURATION, true},
    {"gpu_pct", "GPU %", TREX_COL_PERCENT, true},
    {"comm_ns", "Comm", TREX_COL_DURATION, true},
    {"comm_pct", "Comm %", TREX_COL_PERCENT, true},
    {"launch_ns", "Launch", TREX_COL_DURATION, true},
    {"launch_pct", "Launch %", TREX_COL_PERCENT, true},
    {"idle_ns", "Idle", TREX_COL_DURATION, true},
    {"idle_pct", "Idle %", TREX_COL_PERCENT, true},
};

/* What the kind column says of a segment. */
static const char *kind_text(const struct trex_index *idx, const struct trex_tpath_seg *s)
{
	if (s->what != TREX_TPATH_DEVICE)
		return trex_tpath_what_label((enum trex_tpath_what)s->what);
	const struct trex_slice *sl = trex_index_slice(idx, s->slice);
	return trex_slice_comm(idx, s->slice) != TREX_COMM_NONE
	           ? "communication"
	           : trex_kind_label((enum trex_kind)sl->kind);
}

static bool path_row(struct trex_table *t, const struct trex_index *idx,
                     const struct trex_tpath_seg *s)
{
	union trex_cell *row = trex_table_add_row(t);
	char track[256];

	if (!row)
		return false;
	const char *name = s->slice != TREX_NONE
	                       ? trex_index_str(idx, trex_index_slice(idx, s->slice)->name)
	                       : "(idle)";
	const char *label = trex_track_label(idx, s->track, track, sizeof(track));
	row[COL_RANK].count = trex_index_file(idx, s->file)->rank;
	row[COL_TRACK].text = trex_table_strdup(t, label, strlen(label));
	row[COL_NAME].text = trex_table_strdup(t, name, strlen(name));
	row[COL_KIND].text = kind_text(idx, s);
	row[COL_START].number = (double)(s->start - trex_index_start(idx));
	row[COL_DURATION].number = (double)s->dur;
	row[COL_BOUND].text = trex_tpath_bound_label((enum trex_tpath_bound)s->bound);
	return row[COL_TRACK].text && row[COL_NAME].text;
}

/* One summary row for the segments [from, to) of one file. */
static bool summary_row(struct trex_table *t, const struct trex_index *idx,
                        const struct trex_tpath *p, size_t from, size_t to)
{
	int64_t share[TREX_SHARE_COUNT] = {0};
	int64_t total = 0;
	union trex_cell *row = trex_table_add_row(t);

	if (!row)
		return false;
	for (size_t i = from; i < to; i++) {
		share[trex_tpath_share_of(idx, &p->seg[i])] += p->seg[i].dur;
		total += p->seg[i].dur;
	}
	row[0].count = trex_index_file(idx, p->seg[from].file)->rank;
	row[1].number = (double)total;
	for (int k = 0; k < TREX_SHARE_COUNT; k++) {
		row[2 + 2 * k].number = (double)share[k];
		row[3 + 2 * k].number = total > 0 ? 100.0 * (double)share[k] / (double)total : 0;
	}
	return true;
}

static bool fill(struct trex_table *t, struct trex_table *summary, const struct trex_index *idx,
                 const struct trex_tpath *p)
{
	size_t from = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (!path_row(t, idx, &p->seg[i]))
			return false;
		if (i + 1 == p->n || p->seg[i + 1].file != p->seg[i].file) {
			if (summary && !summary_row(summary, idx, p, from, i + 1))
				return false;
			from = i + 1;
		}
	}
	return true;
}

enum trex_status trex_trace_critical_path_table(const struct trex_index *idx, struct trex_table *t,
                                                struct trex_table *summary, struct trex_error *err)
{
	struct trex_tpath p;
	enum trex_status st;

	trex_table_init(t, "critical-path", columns, COLS);
	if (summary)
		trex_table_init(summary, "critical-path-summary", summary_columns,
		                sizeof(summary_columns) / sizeof(summary_columns[0]));
	st = trex_tpath_compute(idx, &p, err);
	if (st == TREX_OK && p.n == 0)
		st = trex_error_set(
		    err, TREX_FORMAT, NULL, -1,
		    "no execution graph and no CPU or device slices in the input: no "
		    "critical path to follow");
	if (st == TREX_OK && !fill(t, summary, idx, &p))
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "critical path: out of memory");
	trex_tpath_free(&p);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (summary)
			trex_table_free(summary);
	}
	return st;
}
