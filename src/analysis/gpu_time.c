#include "config.h"

#include "trex/core/grow.h"
#include "trex/analysis/gpu_time.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/work.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* HTA's consecutive_kernel_delay default: 30 in its trace unit, microseconds
 * (hta-analyses.md #5). */
#define KERNEL_GAP_NS 30000

static const struct trex_column cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"device", "Device", TREX_COL_TEXT, false},
    {"span_ns", "Span", TREX_COL_DURATION, true},
    {"busy_ns", "Busy", TREX_COL_DURATION, true},
    {"idle_ns", "Idle", TREX_COL_DURATION, true},
    {"busy_pct", "Busy %", TREX_COL_PERCENT, true},
    {"idle_host_wait_ns", "Host wait", TREX_COL_DURATION, true},
    {"idle_kernel_gap_ns", "Kernel wait", TREX_COL_DURATION, true},
    {"idle_sync_ns", "Sync wait", TREX_COL_DURATION, true},
    {"idle_other_ns", "Other idle", TREX_COL_DURATION, true},
    {"compute_ns", "Compute", TREX_COL_DURATION, true},
    {"comm_ns", "Comm", TREX_COL_DURATION, true},
    {"memory_ns", "Memory", TREX_COL_DURATION, true},
    {"overlap_pct", "Overlap %", TREX_COL_PERCENT, true},
    {"kernels", "Kernels", TREX_COL_COUNT, true},
    {"launches", "Launches", TREX_COL_COUNT, true},
    {"delay_min_ns", "Delay min", TREX_COL_DURATION, true},
    {"delay_med_ns", "Delay med", TREX_COL_DURATION, true},
    {"delay_avg_ns", "Delay avg", TREX_COL_DURATION, true},
    {"delay_p95_ns", "Delay P95", TREX_COL_DURATION, true},
    {"delay_max_ns", "Delay max", TREX_COL_DURATION, true},
    {"short_kernels", "Short", TREX_COL_COUNT, true},
};
enum {
	G_RANK,
	G_DEVICE,
	G_SPAN,
	G_BUSY,
	G_IDLE,
	G_BUSY_PCT,
	G_HOST,
	G_KGAP,
	G_SYNC,
	G_OTHER,
	G_COMPUTE,
	G_COMM,
	G_MEMORY,
	G_OVERLAP,
	G_KERNELS,
	G_LAUNCHES,
	G_DMIN,
	G_DMED,
	G_DAVG,
	G_DP95,
	G_DMAX,
	G_SHORT
};

/* Idle gap classes, in the order of the columns from G_HOST on. */
enum idle_class { I_HOST, I_KERNEL, I_SYNC, I_OTHER, I_COUNT };

enum work_class { W_COMPUTE, W_COMM, W_MEMORY };

struct item {
	uint32_t process;
	uint8_t cls;   /* enum work_class */
	bool launched; /* has a correlated runtime launch */
	bool shorter;  /* shorter than that launch call */
	int64_t ts, end;
	int64_t delay;  /* ts - launch ts */
	int64_t launch; /* launch call start */
};

/* A synchronization interval: a cuda_sync slice keyed by its device
 * (process), or a blocking runtime sync call keyed by its file. */
struct sync_iv {
	uint32_t key;
	int64_t ts, end;
};

struct sync_list {
	struct sync_iv *v;
	size_t n, cap;
};

static const char *const sync_calls[] = {"cudaStreamSynchronize", "cudaDeviceSynchronize",
                                         "cudaEventSynchronize"};

struct ctx {
	const struct trex_index *idx;
	const struct trex_work *work;
	struct item *v;
	size_t n, cap;
	struct sync_list gpu_sync;  /* by process */
	struct sync_list call_sync; /* by file */
	uint32_t sync_names[ARRAY_LEN(sync_calls)];
};

/* Communication when a communication rule matches (whatever the kind),
 * else memory for copies and sets, else compute. */
static enum work_class work_class(struct ctx *c, uint32_t slice, enum trex_kind k)
{
	if (trex_work_comm(c->work, slice) != TREX_COMM_NONE)
		return W_COMM;
	return k == TREX_KIND_KERNEL ? W_COMPUTE : W_MEMORY;
}

static bool push(struct ctx *c, const struct item *it)
{
	struct item *v = trex_grow(c->v, &c->cap, c->n + 1, sizeof(*v), 1024);

	if (!v)
		return false;
	c->v = v;
	c->v[c->n++] = *it;
	return true;
}

static bool push_sync(struct sync_list *l, uint32_t key, const struct trex_slice *s)
{
	struct sync_iv *v = trex_grow(l->v, &l->cap, l->n + 1, sizeof(*v), 64);

	if (!v)
		return false;
	l->v = v;
	l->v[l->n++] = (struct sync_iv){key, s->ts, s->ts + s->dur};
	return true;
}

static bool is_sync_call(const struct ctx *c, uint32_t name)
{
	for (size_t i = 0; i < ARRAY_LEN(sync_calls); i++) {
		if (c->sync_names[i] == name)
			return true;
	}
	return false;
}

/* Keeps the slice when it is a synchronization interval; false when out of memory. */
static bool collect_sync(struct ctx *c, const struct trex_slice *s, enum trex_kind k)
{
	if (k == TREX_KIND_GPU_SYNC)
		return push_sync(&c->gpu_sync, trex_index_track(c->idx, s->track)->process, s);
	if (k == TREX_KIND_RUNTIME && is_sync_call(c, s->name))
		return push_sync(&c->call_sync, trex_index_track_file(c->idx, s->track), s);
	return true;
}

static bool collect(struct ctx *c)
{
	uint32_t nslices = trex_index_slice_count(c->idx);

	for (size_t i = 0; i < ARRAY_LEN(sync_calls); i++)
		c->sync_names[i] = trex_strtab_find(trex_index_strings(c->idx), sync_calls[i],
		                                    strlen(sync_calls[i]));
	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		enum trex_kind k = trex_work_kind(c->work, i);
		struct item it = {0};
		uint32_t rt;

		if (!trex_work_is_device(c->work, i)) {
			if (!collect_sync(c, s, k))
				return false;
			continue;
		}
		it.process = trex_index_track(c->idx, s->track)->process;
		it.cls = (uint8_t)work_class(c, i, k);
		it.ts = s->ts;
		it.end = s->ts + s->dur;
		rt = trex_index_launch_of(c->idx, i);
		if (rt != TREX_NONE) {
			const struct trex_slice *r = trex_index_slice(c->idx, rt);

			it.launched = true;
			it.delay = s->ts - r->ts;
			it.launch = r->ts;
			it.shorter = s->dur < r->dur;
		}
		if (!push(c, &it))
			return false;
	}
	return true;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

static int cmp_sync(const void *a, const void *b)
{
	const struct sync_iv *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* ---- interval unions ---------------------------------------------------------------------- */

struct span {
	int64_t ts, end;
};

/* Union of the items (sorted by ts) whose class bit is in mask, into out
 * (room for n); returns its total length. */
static int64_t merge(const struct item *v, size_t n, unsigned mask, struct span *out, size_t *count)
{
	int64_t total = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(mask & (1u << v[i].cls)))
			continue;
		if (k && v[i].ts <= out[k - 1].end) {
			if (v[i].end > out[k - 1].end)
				out[k - 1].end = v[i].end;
			continue;
		}
		out[k++] = (struct span){v[i].ts, v[i].end};
	}
	for (size_t i = 0; i < k; i++)
		total += out[i].end - out[i].ts;
	*count = k;
	return total;
}

/* Length of the intersection of two sorted, disjoint span lists. */
static int64_t overlap(const struct span *a, size_t na, const struct span *b, size_t nb)
{
	int64_t total = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		int64_t lo = a[i].ts > b[j].ts ? a[i].ts : b[j].ts;
		int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;

		if (hi > lo)
			total += hi - lo;
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return total;
}

/* ---- idle gaps ------------------------------------------------------------------------------ */

/* A pass over one key's sync intervals (sorted by ts) for gaps in
 * ascending order: max_end is the latest end of the intervals taken so far. */
struct sweep {
	const struct sync_iv *v;
	size_t n, i;
	int64_t max_end;
};

static struct sweep sweep_of(const struct sync_list *l, uint32_t key)
{
	size_t lo = 0, hi = l->n, end;

	if (!l->n)
		return (struct sweep){NULL, 0, 0, INT64_MIN};
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < l->n && l->v[end].key == key; end++)
		;
	return (struct sweep){l->v + lo, end - lo, 0, INT64_MIN};
}

/* Does an interval reach inside (g0, g1): ts < g1 and end > g0? */
static bool sweep_overlaps(struct sweep *w, int64_t g0, int64_t g1)
{
	for (; w->i < w->n && w->v[w->i].ts < g1; w->i++)
		w->max_end = w->v[w->i].end > w->max_end ? w->v[w->i].end : w->max_end;
	return w->max_end > g0;
}

/* Does an interval cover [g0, g1): ts <= g0 and end >= g1? */
static bool sweep_covers(struct sweep *w, int64_t g0, int64_t g1)
{
	for (; w->i < w->n && w->v[w->i].ts <= g0; w->i++)
		w->max_end = w->v[w->i].end > w->max_end ? w->v[w->i].end : w->max_end;
	return w->max_end >= g1;
}

/* Earliest launch start of the work starting at t, INT64_MAX when none of
 * it has a launch; *i walks v (sorted by ts) forward across calls. */
static int64_t next_launch(const struct item *v, size_t n, size_t *i, int64_t t)
{
	int64_t best = INT64_MAX;

	while (*i < n && v[*i].ts < t)
		(*i)++;
	for (size_t j = *i; j < n && v[j].ts == t; j++) {
		if (v[j].launched && v[j].launch < best)
			best = v[j].launch;
	}
	return best;
}

/* Splits the gaps between the busy spans u[0..nu) of one device (work v
 * sorted by ts) into the idle classes; see gpu_time.h. The sync sweeps
 * only advance, so skipping them for classified gaps is safe. */
static void idle_breakdown(struct ctx *c, const struct item *v, size_t n, const struct span *u,
                           size_t nu, int64_t out[I_COUNT])
{
	const struct trex_process *p = trex_index_process(c->idx, v[0].process);
	struct sweep gpu = sweep_of(&c->gpu_sync, v[0].process);
	struct sweep call = sweep_of(&c->call_sync, p->file);
	size_t at = 0;

	for (size_t k = 1; k < nu; k++) {
		int64_t g0 = u[k - 1].end, g1 = u[k].ts;
		int64_t launch = next_launch(v, n, &at, g1);
		enum idle_class cls = I_OTHER;

		if (launch != INT64_MAX && launch > g0)
			cls = I_HOST;
		else if (launch != INT64_MAX && g1 - g0 < KERNEL_GAP_NS)
			cls = I_KERNEL;
		else if (sweep_overlaps(&gpu, g0, g1) || sweep_covers(&call, g0, g1))
			cls = I_SYNC;
		out[cls] += g1 - g0;
	}
}

/* ---- rows ---------------------------------------------------------------------------------- */

static void launch_stats(const struct item *v, size_t n, int64_t *delays, union trex_cell *c)
{
	size_t m = 0;
	__int128 sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].launched)
			continue;
		delays[m++] = v[i].delay;
		sum += v[i].delay;
		c[G_SHORT].count += v[i].shorter;
	}
	c[G_LAUNCHES].count = (int64_t)m;
	if (!m)
		return;
	qsort(delays, m, sizeof(*delays), cmp_i64);
	c[G_DMIN].number = (double)delays[0];
	c[G_DMAX].number = (double)delays[m - 1];
	c[G_DMED].number = m % 2 ? (double)delays[m / 2]
	                         : (double)((__int128)delays[m / 2 - 1] + delays[m / 2]) / 2.0;
	c[G_DAVG].number = (double)((long double)sum / (long double)m);
	c[G_DP95].number = (double)delays[(m * 95 + 99) / 100 - 1];
}

static bool device_row(struct ctx *c, struct trex_table *t, const struct item *v, size_t n,
                       struct span *s1, struct span *s2, int64_t *delays)
{
	union trex_cell *cell = trex_table_add_row(t);
	const struct trex_process *p = trex_index_process(c->idx, v[0].process);
	int64_t first = v[0].ts, last = v[0].end, comm, compute, idle[I_COUNT] = {0};
	size_t n1, n2;
	char buf[512];

	if (!cell)
		return false;
	for (size_t i = 1; i < n; i++)
		last = v[i].end > last ? v[i].end : last;
	cell[G_RANK].count = trex_index_file(c->idx, p->file)->rank;
	trex_process_label(c->idx, v[0].process, buf, sizeof(buf));
	if (!(cell[G_DEVICE].text = trex_table_strdup(t, buf, strlen(buf))))
		return false;
	cell[G_SPAN].number = (double)(last - first);
	cell[G_BUSY].number = (double)merge(v, n, 7u, s1, &n1);
	cell[G_IDLE].number = (double)(last - first) - cell[G_BUSY].number;
	idle_breakdown(c, v, n, s1, n1, idle);
	for (int i = 0; i < I_COUNT; i++)
		cell[G_HOST + i].number = (double)idle[i];
	cell[G_BUSY_PCT].number =
	    last > first ? cell[G_BUSY].number * 100 / (double)(last - first) : 0;
	cell[G_MEMORY].number = (double)merge(v, n, 1u << W_MEMORY, s1, &n1);
	comm = merge(v, n, 1u << W_COMM, s1, &n1);
	compute = merge(v, n, 1u << W_COMPUTE, s2, &n2);
	cell[G_COMM].number = (double)comm;
	cell[G_COMPUTE].number = (double)compute;
	cell[G_OVERLAP].number = comm ? (double)overlap(s1, n1, s2, n2) * 100 / (double)comm : 0;
	cell[G_KERNELS].count = (int64_t)n;
	launch_stats(v, n, delays, cell);
	return true;
}

static enum trex_status compute_rows(struct ctx *c, struct trex_table *t)
{
	struct span *s1 = malloc((c->n ? c->n : 1) * sizeof(*s1));
	struct span *s2 = malloc((c->n ? c->n : 1) * sizeof(*s2));
	int64_t *delays = malloc((c->n ? c->n : 1) * sizeof(*delays));
	bool ok = s1 && s2 && delays;

	if (ok && c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_item);
	if (c->gpu_sync.n)
		qsort(c->gpu_sync.v, c->gpu_sync.n, sizeof(*c->gpu_sync.v), cmp_sync);
	if (c->call_sync.n)
		qsort(c->call_sync.v, c->call_sync.n, sizeof(*c->call_sync.v), cmp_sync);
	for (size_t i = 0, j; ok && i < c->n; i = j) {
		for (j = i + 1; j < c->n && c->v[j].process == c->v[i].process; j++)
			;
		ok = device_row(c, t, c->v + i, j - i, s1, s2, delays);
	}
	free(s1);
	free(s2);
	free(delays);
	return ok ? TREX_OK : TREX_NOMEM;
}

/* Without any device work there is no row, and the table says why. */
static enum trex_status empty_note(struct ctx *c, struct trex_table *t)
{
	char why[512];
	const char *note;

	if (t->nrows)
		return TREX_OK;
	note = trex_work_empty_reason(c->idx, c->work, TREX_WORK_WANT_DEVICE, why, sizeof(why));
	if (note && !(t->note = trex_table_strdup(t, note, strlen(note))))
		return TREX_NOMEM;
	return TREX_OK;
}

enum trex_status trex_gpu_time_table(const struct trex_index *idx, struct trex_table *t,
                                     struct trex_error *err)
{
	struct trex_work work;
	struct ctx c = {.idx = idx, .work = &work};
	enum trex_status st;

	trex_table_init(t, "gpu_time", cols, ARRAY_LEN(cols));
	trex_work_count(idx, &work);
	st = collect(&c) ? compute_rows(&c, t) : TREX_NOMEM;
	if (st == TREX_OK)
		st = empty_note(&c, t);
	free(c.v);
	free(c.gpu_sync.v);
	free(c.call_sync.v);
	if (st != TREX_OK) {
		trex_table_free(t);
		return trex_error_set(err, st, NULL, -1, "gpu time: out of memory");
	}
	return TREX_OK;
}

/* ---- the classes, for other analyses ------------------------------------------------------ */

/* As work_class() decides for gpu-time: communication whatever the kind,
 * then memory for copies and sets, else compute. */
enum trex_gpu_class trex_gpu_class_of(const struct trex_index *idx, uint32_t slice)
{
	const struct trex_slice *s = trex_index_slice(idx, slice);
	enum trex_kind k = (enum trex_kind)s->kind;

	if (!trex_kind_is_device_work(k))
		return TREX_GPU_NOT_WORK;
	if (trex_slice_comm(idx, slice) != TREX_COMM_NONE)
		return TREX_GPU_COMM;
	return k == TREX_KIND_KERNEL ? TREX_GPU_COMPUTE : TREX_GPU_MEMORY;
}
