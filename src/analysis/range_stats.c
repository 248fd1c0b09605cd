#include "config.h"

#include "trex/analysis/range_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

static const struct trex_column track_cols[TREX_RANGE_TRACK_NCOLS] = {
    {"rank", "Rank", TREX_COL_COUNT, false},        {"process", "Process", TREX_COL_TEXT, false},
    {"track", "Track", TREX_COL_TEXT, false},       {"track_id", "Id", TREX_COL_COUNT, false},
    {"slices", "Slices", TREX_COL_COUNT, true},     {"busy_ns", "Busy", TREX_COL_DURATION, true},
    {"busy_pct", "Busy %", TREX_COL_PERCENT, true},
};

static const struct trex_column name_cols[TREX_RANGE_NAME_NCOLS] = {
    {"name", "Name", TREX_COL_TEXT, false},
    {"count", "Count", TREX_COL_COUNT, true},
    {"total_ns", "Time", TREX_COL_DURATION, true},
    {"range_pct", "% of range", TREX_COL_PERCENT, true},
};

struct interval {
	int64_t b, e;
};

/* Per string id: the time and count of the slices of that name. */
struct name_acc {
	int64_t total;
	uint32_t count;
	const char *text; /* set when sorting: qsort has no context argument */
};

struct rs_ctx {
	const struct trex_index *idx;
	int64_t t0, t1;
	struct interval *iv;
	size_t niv, cap_iv;
	struct name_acc *names; /* indexed by string id */
	uint32_t nnames;
};

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* ---- one track -------------------------------------------------------------------------- */

static bool touches(const struct rs_ctx *c, const struct trex_slice *s)
{
	return s->ts < c->t1 && (s->ts + s->dur > c->t0 || (s->dur == 0 && s->ts >= c->t0));
}

/* Adds the lane's slices touching the range; returns how many, or -1 when
 * out of memory. */
static long add_lane(struct rs_ctx *c, const struct trex_lane *lane)
{
	uint32_t end = lane->first + lane->count;
	long n = 0;

	for (uint32_t i = trex_lane_find_end_at_or_after(c->idx, lane, c->t0); i < end; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		int64_t b = s->ts > c->t0 ? s->ts : c->t0;
		int64_t e = s->ts + s->dur < c->t1 ? s->ts + s->dur : c->t1;
		struct interval *iv;

		if (s->ts >= c->t1)
			break;
		if (!touches(c, s))
			continue;
		n++;
		if (s->name < c->nnames) {
			c->names[s->name].total += e - b;
			c->names[s->name].count++;
		}
		if (e <= b)
			continue;
		if (!(iv = trex_grow(c->iv, &c->cap_iv, c->niv + 1, sizeof(*iv), 256)))
			return -1;
		c->iv = iv;
		c->iv[c->niv++] = (struct interval){b, e};
	}
	return n;
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	return x->b < y->b ? -1 : x->b > y->b;
}

/* The union of the gathered intervals (nested and overlapping slices
 * count once). */
static int64_t union_len(struct rs_ctx *c)
{
	int64_t busy = 0, cb = 0, ce = 0;

	if (c->niv == 0)
		return 0; /* qsort must not get iv == NULL */
	qsort(c->iv, c->niv, sizeof(*c->iv), cmp_interval);
	for (size_t i = 0; i < c->niv; i++) {
		if (i == 0 || c->iv[i].b > ce) {
			busy += ce - cb;
			cb = c->iv[i].b;
			ce = c->iv[i].e;
		} else if (c->iv[i].e > ce) {
			ce = c->iv[i].e;
		}
	}
	return busy + (ce - cb);
}

static const char *text(struct trex_table *t, const char *s)
{
	return trex_table_strdup(t, s ? s : "", s ? strlen(s) : 0);
}

static enum trex_status add_track_row(struct rs_ctx *c, struct trex_table *t, uint32_t id,
                                      long slices, int64_t busy, struct trex_error *err)
{
	const struct trex_track *tr = trex_index_track(c->idx, id);
	const struct trex_process *p = trex_index_process(c->idx, tr->process);
	const char *name = trex_index_str(c->idx, tr->name);
	const char *pname = trex_index_str(c->idx, p->name);
	union trex_cell *row = trex_table_add_row(t);
	char proc[512];

	if (!row)
		return nomem(err);
	snprintf(proc, sizeof(proc), "%s%s%s", trex_index_str(c->idx, p->pid),
	         pname && *pname ? " " : "", pname ? pname : "");
	row[TREX_RANGE_TRACK_RANK].count = trex_index_file(c->idx, p->file)->rank;
	row[TREX_RANGE_TRACK_PROCESS].text = text(t, proc);
	row[TREX_RANGE_TRACK_NAME].text =
	    text(t, name && *name ? name : trex_index_str(c->idx, tr->tid));
	row[TREX_RANGE_TRACK_ID].count = id;
	row[TREX_RANGE_TRACK_SLICES].count = slices;
	row[TREX_RANGE_TRACK_BUSY].number = (double)busy;
	row[TREX_RANGE_TRACK_BUSY_PCT].number =
	    (double)((long double)busy * 100 / (long double)(c->t1 - c->t0));
	if (!row[TREX_RANGE_TRACK_PROCESS].text || !row[TREX_RANGE_TRACK_NAME].text)
		return nomem(err);
	return TREX_OK;
}

static enum trex_status add_tracks(struct rs_ctx *c, struct trex_table *t, struct trex_error *err)
{
	for (uint32_t id = 0; id < trex_index_track_count(c->idx); id++) {
		const struct trex_track *tr = trex_index_track(c->idx, id);
		long slices = 0;

		c->niv = 0;
		for (uint32_t l = 0; l < tr->lane_count; l++) {
			long n = add_lane(c, trex_index_lane(c->idx, tr->first_lane + l));

			if (n < 0)
				return nomem(err);
			slices += n;
		}
		if (slices > 0) {
			enum trex_status st = add_track_row(c, t, id, slices, union_len(c), err);

			if (st != TREX_OK)
				return st;
		}
	}
	return TREX_OK;
}

/* ---- names ------------------------------------------------------------------------------ */

static int cmp_name(const void *a, const void *b)
{
	const struct name_acc *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->text, y->text);
}

static enum trex_status add_names(struct rs_ctx *c, struct trex_table *t, struct trex_error *err)
{
	size_t n = 0;

	/* compact the used entries to the front, then sort them */
	for (uint32_t i = 0; i < c->nnames; i++) {
		if (c->names[i].count == 0)
			continue;
		c->names[i].text = trex_index_str(c->idx, i);
		if (!c->names[i].text)
			c->names[i].text = "";
		c->names[n++] = c->names[i];
	}
	if (n > 1)
		qsort(c->names, n, sizeof(*c->names), cmp_name);
	for (size_t i = 0; i < n; i++) {
		union trex_cell *row = trex_table_add_row(t);

		if (!row || !(row[TREX_RANGE_NAME_NAME].text = text(t, c->names[i].text)))
			return nomem(err);
		row[TREX_RANGE_NAME_COUNT].count = c->names[i].count;
		row[TREX_RANGE_NAME_TOTAL].number = (double)c->names[i].total;
		row[TREX_RANGE_NAME_RANGE_PCT].number =
		    (double)((long double)c->names[i].total * 100 / (long double)(c->t1 - c->t0));
	}
	return TREX_OK;
}

enum trex_status trex_range_stats_compute(const struct trex_index *idx, int64_t t0, int64_t t1,
                                          struct trex_range_stats *out, struct trex_error *err)
{
	struct rs_ctx c = {.idx = idx, .t0 = t0, .t1 = t1};
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	out->t0 = t0;
	out->t1 = t1;
	trex_table_init(&out->tracks, "range-tracks", track_cols, TREX_RANGE_TRACK_NCOLS);
	trex_table_init(&out->names, "range-names", name_cols, TREX_RANGE_NAME_NCOLS);
	if (t1 <= t0)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "the range end must follow its start");
	c.nnames = trex_strtab_count(trex_index_strings(idx));
	if (!(c.names = calloc(c.nnames ? c.nnames : 1, sizeof(*c.names))))
		return nomem(err);
	st = add_tracks(&c, &out->tracks, err);
	if (st == TREX_OK)
		st = add_names(&c, &out->names, err);
	free(c.iv);
	free(c.names);
	if (st != TREX_OK)
		trex_range_stats_free(out);
	return st;
}

void trex_range_stats_free(struct trex_range_stats *rs)
{
	trex_table_free(&rs->tracks);
	trex_table_free(&rs->names);
}
