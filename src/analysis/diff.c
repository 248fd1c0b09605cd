/* Two runs compared by name (kernels, ops, categories) and in a summary. */
#include "config.h"

#include "trex/analysis/diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_internal.h"
#include "views_util.h"
#include "trex/analysis/categories.h"
#include "trex/analysis/steps.h"
#include "trex/analysis/work.h"
#include "trex/core/grow.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"
#include "trex/core/task.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- samples: (key, duration) of each counted slice of one side ----------------------------- */

struct sample {
	uint32_t key;
	int64_t dur;
};

struct sample_vec {
	struct sample *v;
	size_t n, cap;
};

static bool push_sample(struct sample_vec *sv, uint32_t key, int64_t dur)
{
	struct sample *v = trex_grow(sv->v, &sv->cap, sv->n + 1, sizeof(*v), 4096);

	if (!v)
		return false;
	sv->v = v;
	sv->v[sv->n++] = (struct sample){key, dur};
	return true;
}

/* The category of device work slice id (as trex_categories_table decides
 * it), its name's decision cached in cat_of (key + 1). */
static uint32_t category_key(struct diff_keys *k, const struct trex_catset *cs,
                             const struct trex_index *idx, uint32_t id, uint32_t *cat_of)
{
	const struct trex_slice *s = trex_index_slice(idx, id);
	const char *cat;

	if (trex_catset_comm_decides(cs) && trex_slice_comm(idx, id) != TREX_COMM_NONE)
		return diff_keys_text(k, TREX_CATEGORY_COMM, strlen(TREX_CATEGORY_COMM));
	if (cat_of[s->name])
		return cat_of[s->name] - 1;
	cat = trex_catset_match(cs, trex_index_str(idx, s->name));
	if (!cat)
		cat = TREX_CATEGORY_NONE;
	uint32_t key = diff_keys_text(k, cat, strlen(cat));

	if (key != TREX_STR_ERROR)
		cat_of[s->name] = key + 1;
	return key;
}

static bool counted(enum trex_diff_by by, enum trex_kind kind)
{
	switch (by) {
	case TREX_DIFF_OPS:
		return kind == TREX_KIND_CPU_OP;
	case TREX_DIFF_CATEGORIES:
		return trex_kind_is_device_work(kind);
	case TREX_DIFF_KERNELS:
	default:
		return kind == TREX_KIND_KERNEL;
	}
}

/* Every counted slice of side's index as a sample. */
static enum trex_status collect(struct diff_keys *k, int side, enum trex_diff_by by,
                                const struct trex_catset *cs, struct sample_vec *sv)
{
	const struct trex_index *idx = k->side[side].idx;
	uint32_t n = trex_index_slice_count(idx);
	uint32_t *cat_of = NULL;
	enum trex_status st = TREX_OK;

	if (by == TREX_DIFF_CATEGORIES) {
		cat_of = calloc(trex_strtab_count(trex_index_strings(idx)) + 1, sizeof(*cat_of));
		if (!cat_of)
			return TREX_NOMEM;
	}
	for (uint32_t i = 0; i < n && st == TREX_OK; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		uint32_t key;

		if (!counted(by, (enum trex_kind)s->kind))
			continue;
		key =
		    cat_of ? category_key(k, cs, idx, i, cat_of) : diff_keys_name(k, side, s->name);
		if (key == TREX_STR_ERROR || !push_sample(sv, key, s->dur))
			st = TREX_NOMEM;
	}
	free(cat_of);
	return st;
}

/* ---- statistics per key ------------------------------------------------------------------- */

struct key_stats {
	int64_t count;
	__int128 total;
	int64_t p95;
};

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* The k-th smallest of d[0..n) (k < n), d reordered: quickselect on a
 * median of three, falling back to a sort of what is left when the
 * partitions keep coming out lopsided, so that no input costs more than
 * the sort it replaces. Only P95 is wanted, not the order. */
static int64_t kth_smallest(int64_t *d, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k; /* want in [lo, hi] */

	for (unsigned budget = 64; lo < hi; budget--) {
		if (!budget) {
			qsort(d + lo, (size_t)(hi - lo + 1), sizeof(*d), cmp_i64);
			break;
		}
		int64_t a = d[lo], b = d[lo + (hi - lo) / 2], c = d[hi];
		int64_t pivot =
		    a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		ptrdiff_t i = lo, j = hi;

		while (i <= j) { /* Hoare: [lo, j] <= pivot <= [i, hi], between: pivot */
			while (d[i] < pivot)
				i++;
			while (d[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = d[i];
				d[i++] = d[j];
				d[j--] = t;
			}
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			break; /* between the two parts: equal to the pivot */
	}
	return d[want];
}

/* Count, total and P95 (nearest rank: the ceil(95 n / 100)-th smallest)
 * of each key's samples; out has nkeys entries, zeroed here. */
static enum trex_status key_stats(const struct sample_vec *sv, uint32_t nkeys,
                                  struct key_stats *out)
{
	size_t *first = calloc((size_t)nkeys + 1, sizeof(*first));
	int64_t *durs = malloc((sv->n ? sv->n : 1) * sizeof(*durs));

	memset(out, 0, (size_t)nkeys * sizeof(*out));
	if (!first || !durs) {
		free(first);
		free(durs);
		return TREX_NOMEM;
	}
	for (size_t i = 0; i < sv->n; i++) {
		out[sv->v[i].key].count++;
		out[sv->v[i].key].total += sv->v[i].dur;
	}
	for (uint32_t key = 0; key < nkeys; key++)
		first[key + 1] = first[key] + (size_t)out[key].count;
	for (size_t i = 0, *at = NULL; i < sv->n; i++) {
		at = &first[sv->v[i].key];
		durs[(*at)++] = sv->v[i].dur;
	}
	/* first[key] now ends key's run; it starts count earlier */
	for (uint32_t key = 0; key < nkeys; key++) {
		size_t n = (size_t)out[key].count;
		int64_t *d = durs + first[key] - n;

		if (!n)
			continue;
		out[key].p95 = kth_smallest(d, n, (n * 95 + 99) / 100 - 1);
	}
	free(first);
	free(durs);
	return TREX_OK;
}

/* key_stats of one side, as a task (core/task.h): the sides at once. */
struct stats_work {
	const struct sample_vec *sv;
	uint32_t nkeys;
	struct key_stats *out;
	enum trex_status st;
};

static void side_stats(void *arg, size_t side, unsigned worker)
{
	struct stats_work *w = (struct stats_work *)arg + side;

	(void)worker;
	w->st = key_stats(w->sv, w->nkeys, w->out);
}

/* ---- the table ---------------------------------------------------------------------------- */

static const struct trex_column diff_cols[] = {
    {"status", "Status", TREX_COL_TEXT, false},
    {"delta_ns", "Change", TREX_COL_DURATION, true},
    {"delta_pct", "Change %", TREX_COL_PERCENT, true},
    {"a_total_ns", "A total", TREX_COL_DURATION, true},
    {"b_total_ns", "B total", TREX_COL_DURATION, true},
    {"a_count", "A count", TREX_COL_COUNT, true},
    {"b_count", "B count", TREX_COL_COUNT, true},
    {"a_avg_ns", "A avg", TREX_COL_DURATION, true},
    {"b_avg_ns", "B avg", TREX_COL_DURATION, true},
    {"avg_delta_pct", "Avg change %", TREX_COL_PERCENT, true},
    {"a_p95_ns", "A P95", TREX_COL_DURATION, true},
    {"b_p95_ns", "B P95", TREX_COL_DURATION, true},
    {"name", "Name", TREX_COL_TEXT, false},
};
enum {
	D_STATUS,
	D_DELTA,
	D_DELTA_PCT,
	D_A_TOTAL,
	D_B_TOTAL,
	D_A_COUNT,
	D_B_COUNT,
	D_A_AVG,
	D_B_AVG,
	D_AVG_PCT,
	D_A_P95,
	D_B_P95,
	D_NAME,
	D_COUNT
};

double diff_change_pct(double a, double b)
{
	return a != 0 ? (b - a) / a * 100.0 : NAN;
}

bool diff_below_threshold(const struct trex_diff_opts *o, double a, double delta)
{
	double mag = fabs(delta);

	if (o->min_change_ns > 0 && mag < (double)o->min_change_ns)
		return true;
	return o->min_change_pct > 0 && mag < o->min_change_pct / 100.0 * fabs(a);
}

static const char *row_status(const struct key_stats *x, const struct key_stats *y)
{
	if (!x->count)
		return "new";
	if (!y->count)
		return "gone";
	return x->count == y->count && x->total == y->total ? "same" : "changed";
}

static void fill_side(union trex_cell *c, int side, const struct key_stats *s)
{
	c[D_A_TOTAL + side].number = (double)s->total;
	c[D_A_COUNT + side].count = s->count;
	c[D_A_AVG + side].number = s->count ? (double)s->total / (double)s->count : NAN;
	c[D_A_P95 + side].number = s->count ? (double)s->p95 : NAN;
}

static enum trex_status emit_rows(const struct diff_keys *k, const struct trex_diff_opts *o,
                                  const struct key_stats *sa, const struct key_stats *sb,
                                  struct trex_table *t, size_t *hidden)
{
	for (uint32_t key = 0; key < diff_keys_count(k); key++) {
		const char *name = diff_keys_str(k, key);
		double a = (double)sa[key].total, b = (double)sb[key].total;
		union trex_cell *c;

		if (!sa[key].count && !sb[key].count)
			continue;
		if (diff_below_threshold(o, a, b - a)) {
			(*hidden)++;
			continue;
		}
		if (!(c = trex_table_add_row(t)))
			return TREX_NOMEM;
		c[D_STATUS].text = row_status(&sa[key], &sb[key]);
		c[D_DELTA].number = b - a;
		c[D_DELTA_PCT].number = diff_change_pct(a, b);
		fill_side(c, 0, &sa[key]);
		fill_side(c, 1, &sb[key]);
		c[D_AVG_PCT].number = diff_change_pct(c[D_A_AVG].number, c[D_B_AVG].number);
		if (!(c[D_NAME].text = trex_table_strdup(t, name, strlen(name))))
			return TREX_NOMEM;
	}
	return TREX_OK;
}

/* Largest |change| first, then name (rows are D_COUNT cells). */
static int cmp_diff_row(const void *x, const void *y)
{
	const union trex_cell *a = x, *b = y;
	double da = fabs(a[D_DELTA].number), db = fabs(b[D_DELTA].number);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a[D_NAME].text, b[D_NAME].text);
}

/* The columns, the name's saying which rules matched it. */
static enum trex_status diff_columns(struct trex_table *t, const char *name, unsigned rules)
{
	struct trex_column *cols = trex_table_init_owned(t, name, D_COUNT);
	char title[128], buf[64];

	if (!cols)
		return TREX_NOMEM;
	memcpy(cols, diff_cols, sizeof(diff_cols));
	if (!rules)
		return TREX_OK;
	snprintf(title, sizeof(title), "Name (normalized: %s)",
	         trex_diff_norm_text(rules, buf, sizeof(buf)));
	cols[D_NAME].key = "name_normalized";
	cols[D_NAME].title = trex_table_strdup(t, title, strlen(title));
	return cols[D_NAME].title ? TREX_OK : TREX_NOMEM;
}

/* Why a side has nothing to compare, into buf; NULL when it has some. */
static const char *side_empty(const struct trex_index *idx, enum trex_diff_by by, size_t n,
                              char *buf, size_t size)
{
	struct trex_work w;

	if (n)
		return NULL;
	if (by == TREX_DIFF_OPS) {
		snprintf(buf, size, "no CPU ops (cpu_op events)");
		return buf;
	}
	trex_work_count(idx, &w);
	if (!trex_work_empty_reason(
	        idx, &w, by == TREX_DIFF_KERNELS ? TREX_WORK_WANT_KERNELS : TREX_WORK_WANT_DEVICE,
	        buf, size))
		snprintf(buf, size, "nothing to compare");
	return buf;
}

enum trex_status diff_empty_note(const struct trex_index *const idx[2], enum trex_diff_by by,
                                 const size_t n[2], struct trex_table *t)
{
	char why[2][512], note[1100];
	const char *w[2] = {side_empty(idx[0], by, n[0], why[0], sizeof(why[0])),
	                    side_empty(idx[1], by, n[1], why[1], sizeof(why[1]))};

	if (!w[0] && !w[1])
		return TREX_OK;
	snprintf(note, sizeof(note), "%s%s%s%s%s", w[0] ? "A: " : "", w[0] ? w[0] : "",
	         w[0] && w[1] ? "; " : "", w[1] ? "B: " : "", w[1] ? w[1] : "");
	t->note = trex_table_strdup(t, note, strlen(note));
	return t->note ? TREX_OK : TREX_NOMEM;
}

static const char *const by_names[] = {"kernels", "ops", "categories"};

/* Both sides' samples, their statistics and the rows. */
static enum trex_status diff_compute(struct diff_keys *k, enum trex_diff_by by,
                                     const struct trex_diff_opts *o, const struct trex_catset *cs,
                                     struct trex_table *t, size_t *hidden)
{
	struct sample_vec sv[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
	struct key_stats *stats[2] = {NULL, NULL};
	const struct trex_index *idx[2] = {k->side[0].idx, k->side[1].idx};
	enum trex_status st = TREX_OK;
	uint32_t nkeys;

	for (int s = 0; s < 2 && st == TREX_OK; s++)
		st = collect(k, s, by, cs, &sv[s]);
	nkeys = diff_keys_count(k);
	for (int s = 0; s < 2 && st == TREX_OK; s++)
		if (!(stats[s] = malloc(((size_t)nkeys + 1) * sizeof(*stats[s]))))
			st = TREX_NOMEM;
	if (st == TREX_OK) {
		struct stats_work w[2] = {{&sv[0], nkeys, stats[0], TREX_OK},
		                          {&sv[1], nkeys, stats[1], TREX_OK}};

		trex_task_run(o->threads, 2, side_stats, w);
		st = w[0].st != TREX_OK ? w[0].st : w[1].st;
	}
	if (st == TREX_OK)
		st = emit_rows(k, o, stats[0], stats[1], t, hidden);
	if (st == TREX_OK && t->nrows)
		qsort(t->cells, t->nrows, t->ncols * sizeof(*t->cells), cmp_diff_row);
	if (st == TREX_OK)
		st = diff_empty_note(idx, by, (size_t[2]){sv[0].n, sv[1].n}, t);
	for (int s = 0; s < 2; s++) {
		free(sv[s].v);
		free(stats[s]);
	}
	return st;
}

static enum trex_status nomem(struct trex_error *err, const char *what)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "%s: out of memory", what);
}

enum trex_status trex_diff_table(const struct trex_index *a, const struct trex_index *b,
                                 enum trex_diff_by by, const struct trex_diff_opts *opts,
                                 struct trex_table *t, size_t *hidden, struct trex_error *err)
{
	static const struct trex_diff_opts defaults = {0};
	const struct trex_diff_opts *o = opts ? opts : &defaults;
	struct trex_catset *builtin = NULL;
	const struct trex_catset *cs = o->catset;
	struct diff_keys k;
	size_t hidden_rows = 0;
	enum trex_status st;

	trex_table_init(t, "diff", diff_cols, D_COUNT);
	if ((size_t)by >= ARRAY_LEN(by_names))
		return trex_error_set(err, TREX_USAGE, NULL, -1, "diff: bad comparison");
	if (by == TREX_DIFF_CATEGORIES && !cs) {
		if ((st = trex_catset_builtin(&builtin, err)) != TREX_OK)
			return st;
		cs = builtin;
	}
	/* categories are matched as they are: the rules are for names */
	st = diff_keys_init(&k, by == TREX_DIFF_CATEGORIES ? 0 : o->normalize);
	if (st == TREX_OK)
		st = diff_columns(t, by_names[by], k.rules);
	if (st == TREX_OK)
		st = diff_keys_bind(&k, 0, a);
	if (st == TREX_OK)
		st = diff_keys_bind(&k, 1, b);
	if (st == TREX_OK)
		st = diff_compute(&k, by, o, cs, t, &hidden_rows);
	diff_keys_free(&k);
	trex_catset_free(builtin);
	if (hidden)
		*hidden = hidden_rows;
	if (st != TREX_OK) {
		trex_table_free(t);
		return st == TREX_NOMEM ? nomem(err, "diff") : st;
	}
	return TREX_OK;
}

/* ---- summary ------------------------------------------------------------------------------ */

static const struct trex_column summary_cols[] = {
    {"what", "What", TREX_COL_TEXT, false},
    {"a_count", "A count", TREX_COL_NUMBER, true},
    {"b_count", "B count", TREX_COL_NUMBER, true},
    {"a_ns", "A time", TREX_COL_DURATION, true},
    {"b_ns", "B time", TREX_COL_DURATION, true},
    {"delta_ns", "Change", TREX_COL_DURATION, true},
    {"delta_pct", "Change %", TREX_COL_PERCENT, true},
};
enum { S_WHAT, S_A_COUNT, S_B_COUNT, S_A_NS, S_B_NS, S_DELTA, S_DELTA_PCT, S_COUNT };

/* One summary row; NaN counts or times where they mean nothing. */
static enum trex_status summary_row(struct trex_table *t, const char *what, double ac, double bc,
                                    double ans, double bns)
{
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return TREX_NOMEM;
	c[S_WHAT].text = what;
	c[S_A_COUNT].number = ac;
	c[S_B_COUNT].number = bc;
	c[S_A_NS].number = ans;
	c[S_B_NS].number = bns;
	c[S_DELTA].number = bns - ans;
	c[S_DELTA_PCT].number = diff_change_pct(ans, bns);
	return TREX_OK;
}

/* What the summary reads of one side's slices, gathered in one pass:
 * kernels' (0) and copies' (1: memcpy, memset) count and summed time,
 * each device's work as spans in slice order, and which name ids name a
 * kernel. */
struct side_scan {
	uint64_t count[2];
	__int128 total[2];
	struct span *spans;
	size_t nspans;
	uint8_t *kernel_name; /* per name id: 1 when a kernel has it */
};

struct span {
	uint32_t process;
	int64_t ts, end;
};

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

static enum trex_status side_scan(const struct trex_index *idx, struct side_scan *sc)
{
	uint32_t n = trex_index_slice_count(idx);

	memset(sc, 0, sizeof(*sc));
	sc->spans = malloc((n ? n : 1) * sizeof(*sc->spans));
	sc->kernel_name = calloc(trex_strtab_count(trex_index_strings(idx)) + 1, 1);
	if (!sc->spans || !sc->kernel_name)
		return TREX_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		enum trex_kind k = (enum trex_kind)s->kind;
		int copies = k != TREX_KIND_KERNEL;

		if (!trex_kind_is_device_work(k))
			continue;
		sc->count[copies]++;
		sc->total[copies] += s->dur;
		if (!copies)
			sc->kernel_name[s->name] = 1;
		sc->spans[sc->nspans++] =
		    (struct span){trex_index_track(idx, s->track)->process, s->ts, s->ts + s->dur};
	}
	return TREX_OK;
}

static void side_scan_free(struct side_scan *sc)
{
	free(sc->spans);
	free(sc->kernel_name);
}

/* The length of the union of each device's work, summed over devices. */
static enum trex_status gpu_busy(struct side_scan *sc, double *busy)
{
	struct span *v = sc->spans;
	size_t m = sc->nspans;
	int64_t sum = 0;
	/* slices come lane by lane, each lane sorted by start: a few runs to merge */
	struct views_span *u = malloc((m ? m : 1) * sizeof(*u));

	if (!u || !views_sort_runs(v, m, sizeof(*v), cmp_span)) {
		free(u);
		return TREX_NOMEM;
	}
	for (size_t i = 0; i < m; i++)
		u[i] = (struct views_span){v[i].ts, v[i].end};
	for (size_t i = 0, j; i < m; i = j) { /* one device's run at a time */
		for (j = i + 1; j < m && v[j].process == v[i].process; j++)
			;
		sum += views_union(u + i, j - i, NULL);
	}
	free(u);
	*busy = (double)sum;
	return TREX_OK;
}

/* Steps and their summed time (trex_steps_table's rows, trex_steps_total). */
static enum trex_status step_totals(const struct trex_index *idx, const struct trex_diff_opts *o,
                                    double *count, double *total, struct trex_error *err)
{
	struct trex_step_opts so = {o->step_pattern};
	uint64_t n;
	__int128 sum;
	enum trex_status st = trex_steps_total(idx, &so, &n, &sum, err);

	*count = (double)n;
	*total = (double)sum;
	return st;
}

/* The keys of the kernel names of side s (as its scan marked them) in
 * keys[0..*n). */
static enum trex_status kernel_keys(struct diff_keys *k, int s, const struct side_scan *sc,
                                    uint32_t **keys, size_t *n)
{
	uint32_t nnames = trex_strtab_count(trex_index_strings(k->side[s].idx));

	*n = 0;
	if (!(*keys = malloc((nnames ? nnames : 1) * sizeof(**keys))))
		return TREX_NOMEM;
	for (uint32_t name = 0; name < nnames; name++) {
		if (!sc->kernel_name[name])
			continue;
		if (((*keys)[(*n)++] = diff_keys_name(k, s, name)) == TREX_STR_ERROR)
			return TREX_NOMEM;
	}
	return TREX_OK;
}

/* Distinct kernel names of each side, and those only in one: out[0],
 * out[1], new (only in B), gone (only in A). */
static enum trex_status name_counts(const struct trex_index *const idx[2],
                                    const struct side_scan sc[2], unsigned rules, double out[4])
{
	struct diff_keys k;
	uint32_t *keys[2] = {NULL, NULL};
	size_t n[2] = {0, 0};
	uint8_t *seen = NULL;
	enum trex_status st = diff_keys_init(&k, rules);

	for (int s = 0; s < 2 && st == TREX_OK; s++)
		st = diff_keys_bind(&k, s, idx[s]);
	for (int s = 0; s < 2 && st == TREX_OK; s++)
		st = kernel_keys(&k, s, &sc[s], &keys[s], &n[s]);
	if (st == TREX_OK && !(seen = calloc(diff_keys_count(&k) + 1, 1)))
		st = TREX_NOMEM;
	for (int s = 0; s < 2 && st == TREX_OK; s++)
		for (size_t i = 0; i < n[s]; i++)
			seen[keys[s][i]] |= (uint8_t)(1u << s);
	memset(out, 0, 4 * sizeof(*out));
	for (uint32_t key = 0; st == TREX_OK && key < diff_keys_count(&k); key++) {
		out[0] += seen[key] & 1;
		out[1] += (seen[key] >> 1) & 1;
		out[2] += seen[key] == 2; /* new */
		out[3] += seen[key] == 1; /* gone */
	}
	free(seen);
	free(keys[0]);
	free(keys[1]);
	diff_keys_free(&k);
	return st;
}

/* What the summary says of both sides, worked out before any row is made. */
struct summary_numbers {
	struct side_scan sc[2];
	double busy[2], names[4], steps[2], steps_ns[2];
};

/* One side's scan, GPU busy and steps, as a task (core/task.h): the
 * sides at once. */
struct numbers_work {
	const struct trex_index *idx;
	const struct trex_diff_opts *o;
	struct summary_numbers *sn;
	struct trex_error err;
	enum trex_status st;
};

static void side_numbers(void *arg, size_t side, unsigned worker)
{
	struct numbers_work *w = (struct numbers_work *)arg + side;
	struct summary_numbers *sn = w->sn;

	(void)worker;
	w->st = side_scan(w->idx, &sn->sc[side]);
	if (w->st == TREX_OK)
		w->st = gpu_busy(&sn->sc[side], &sn->busy[side]);
	if (w->st == TREX_OK)
		w->st = step_totals(w->idx, w->o, &sn->steps[side], &sn->steps_ns[side], &w->err);
}

static enum trex_status summary_numbers(const struct trex_index *const idx[2],
                                        const struct trex_diff_opts *o, struct summary_numbers *sn,
                                        struct trex_error *err)
{
	struct numbers_work w[2] = {{idx[0], o, sn, {0}, TREX_OK}, {idx[1], o, sn, {0}, TREX_OK}};

	trex_task_run(o->threads, 2, side_numbers, w);
	for (int s = 0; s < 2; s++) {
		if (w[s].st == TREX_OK)
			continue;
		if (w[s].st != TREX_NOMEM) /* NOMEM: the caller's words */
			*err = w[s].err;
		return w[s].st;
	}
	return name_counts(idx, sn->sc, o->normalize, sn->names);
}

static enum trex_status summary_rows(const struct trex_index *const idx[2],
                                     const struct summary_numbers *sn, struct trex_table *t)
{
	const struct side_scan *sc = sn->sc;
	enum trex_status st;

	st = summary_row(t, "files", trex_index_file_count(idx[0]), trex_index_file_count(idx[1]),
	                 NAN, NAN);
	if (st == TREX_OK)
		st = summary_row(t, "span", NAN, NAN,
		                 (double)(trex_index_end(idx[0]) - trex_index_start(idx[0])),
		                 (double)(trex_index_end(idx[1]) - trex_index_start(idx[1])));
	for (int copies = 0; copies < 2 && st == TREX_OK; copies++)
		st = summary_row(t, copies ? "memcpy/memset" : "kernels",
		                 (double)sc[0].count[copies], (double)sc[1].count[copies],
		                 (double)sc[0].total[copies], (double)sc[1].total[copies]);
	if (st == TREX_OK)
		st = summary_row(t, "GPU busy", NAN, NAN, sn->busy[0], sn->busy[1]);
	if (st == TREX_OK)
		st = summary_row(t, "steps", sn->steps[0], sn->steps[1], sn->steps_ns[0],
		                 sn->steps_ns[1]);
	if (st == TREX_OK)
		st = summary_row(t, "kernel names", sn->names[0], sn->names[1], NAN, NAN);
	if (st == TREX_OK)
		st = summary_row(t, "new kernel names", NAN, sn->names[2], NAN, NAN);
	if (st == TREX_OK)
		st = summary_row(t, "gone kernel names", sn->names[3], NAN, NAN, NAN);
	return st;
}

enum trex_status trex_diff_summary_table(const struct trex_index *a, const struct trex_index *b,
                                         const struct trex_diff_opts *opts, struct trex_table *t,
                                         struct trex_error *err)
{
	static const struct trex_diff_opts defaults = {0};
	const struct trex_index *idx[2] = {a, b};
	struct summary_numbers sn = {.busy = {0, 0}};
	enum trex_status st;

	trex_table_init(t, "summary", summary_cols, S_COUNT);
	st = summary_numbers(idx, opts ? opts : &defaults, &sn, err);
	if (st == TREX_OK)
		st = summary_rows(idx, &sn, t);
	side_scan_free(&sn.sc[0]);
	side_scan_free(&sn.sc[1]);
	if (st != TREX_OK) {
		trex_table_free(t);
		return st == TREX_NOMEM ? nomem(err, "diff summary") : st;
	}
	return TREX_OK;
}
