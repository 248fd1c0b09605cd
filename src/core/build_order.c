/* Stage 2: processes and tracks in display order (build_internal.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"

/* A whole-string decimal integer (pid/tid texts are printed that way). */
static bool parse_int(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

	*out = 0;
	s += neg;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (limit - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Compares digit runs by value so "stream 7" sorts before "stream 24". */
static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (is_digit(*a) && is_digit(*b)) {
			size_t la = 0, lb = 0;
			int d;

			while (*a == '0' && is_digit(a[1]))
				a++;
			while (*b == '0' && is_digit(b[1]))
				b++;
			while (is_digit(a[la]))
				la++;
			while (is_digit(b[lb]))
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			d = memcmp(a, b, la);
			if (d)
				return d;
			a += la;
			b += lb;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}

struct okey {
	int64_t sort, num;
	const char *text;
	uint32_t major; /* file for processes, new process id for tracks */
	uint32_t cls;   /* track class: threads, named, async, counters */
	uint32_t id;
};

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int okey_cmp(const void *pa, const void *pb)
{
	const struct okey *a = pa, *b = pb;
	int d;

	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if ((d = cmp_i64(a->sort, b->sort)) || (d = cmp_i64(a->num, b->num)))
		return d;
	if ((d = natural_cmp(a->text, b->text)) || (d = strcmp(a->text, b->text)))
		return d;
	return a->id < b->id ? -1 : a->id > b->id;
}

static const char *gtext(struct bld *c, uint32_t id)
{
	return trex_strtab_get(c->idx->strs, id, NULL);
}

/* Processes by (file, sort_index, pid_num, pid text); a process without a
 * rank of its own has its file's. */
static enum trex_status order_processes(struct bld *c, uint32_t *proc_new)
{
	struct okey *keys = malloc(((size_t)c->nprocs + 1) * sizeof(*keys));
	struct trex_index *idx = c->idx;

	idx->procs = calloc((size_t)c->nprocs + 1, sizeof(*idx->procs));
	if (!keys || !idx->procs) {
		free(keys);
		return bld_nomem(c);
	}
	for (uint32_t i = 0; i < c->nprocs; i++) {
		const struct gproc *g = &c->procs[i];
		struct okey *k = &keys[i];

		parse_int(gtext(c, g->pid), &k->num);
		k->sort = g->has_sort ? g->sort_index : k->num;
		k->text = gtext(c, g->pid);
		k->major = g->file;
		k->cls = 0;
		k->id = i;
	}
	qsort(keys, c->nprocs, sizeof(*keys), okey_cmp);
	for (uint32_t n = 0; n < c->nprocs; n++) {
		const struct gproc *g = &c->procs[keys[n].id];
		struct trex_process *p = &idx->procs[n];

		proc_new[keys[n].id] = n;
		p->file = g->file;
		p->pid = g->pid;
		p->pid_num = keys[n].num;
		p->name = g->has_name ? g->name : TREX_STR_NONE;
		p->labels = g->has_labels ? g->labels : TREX_STR_NONE;
		p->sort_index = keys[n].sort;
		p->has_sort_index = g->has_sort;
		p->rank = g->has_rank ? g->rank : idx->files[g->file].rank;
		p->has_rank = g->has_rank;
	}
	idx->nprocs = c->nprocs;
	free(keys);
	return TREX_OK;
}

/* A thread is a device queue when it holds device work or its process is
 * a device; a named track when it holds device work (a Perfetto GPU stream
 * track, a graph's compute lane). */
static enum trex_track_kind track_kind(struct bld *c, const struct gtrack *g)
{
	switch (g->cls) {
	case TREX_BT_COUNTER:
		return TREX_TRACK_COUNTER;
	case TREX_BT_ASYNC:
		return TREX_TRACK_ASYNC;
	case TREX_BT_NAMED:
		return g->gpu ? TREX_TRACK_GPU : TREX_TRACK_NAMED;
	default:
		return g->gpu || c->procs[g->proc].device ? TREX_TRACK_GPU : TREX_TRACK_THREAD;
	}
}

static bool numeric_text(const char *s)
{
	s += *s == '-';
	if (!*s)
		return false;
	while (is_digit(*s))
		s++;
	return !*s;
}

/* Its given name, else "thread <tid>" / "stream <tid>" for numeric tids
 * and the tid (or key) text itself otherwise ("stream 7" in 2021 traces). */
static uint32_t track_name(struct bld *c, const struct gtrack *g, const struct trex_track *t)
{
	const char *what = t->kind == TREX_TRACK_GPU ? "stream" : "thread";
	const char *tid = gtext(c, g->key);
	char buf[64];
	int n;

	if (g->has_name)
		return g->name;
	if (t->kind != TREX_TRACK_THREAD && t->kind != TREX_TRACK_GPU)
		return g->key;
	if ((*tid && !numeric_text(tid)) || strlen(tid) > 40)
		return g->key;
	n = snprintf(buf, sizeof(buf), *tid ? "%s %s" : "%s", what, tid);
	return trex_strtab_intern(c->idx->strs, buf, (size_t)n);
}

static enum trex_status finish_track(struct bld *c, uint32_t n, const struct okey *k)
{
	const struct gtrack *g = &c->tracks[k->id];
	struct trex_track *t = &c->idx->tracks[n];
	struct trex_process *p = &c->idx->procs[k->major];

	t->process = k->major;
	t->tid = g->key;
	t->tid_num = k->num;
	t->sort_index = k->sort;
	t->has_sort_index = g->has_sort;
	t->kind = (uint8_t)track_kind(c, g);
	t->name = track_name(c, g, t);
	if (t->name == TREX_STR_ERROR)
		return bld_nomem(c);
	if (t->kind == TREX_TRACK_GPU)
		p->is_gpu = 1;
	if (p->track_count++ == 0)
		p->first_track = n;
	return TREX_OK;
}

/* Nested tracks follow their parent (depth first, siblings in key
 * order): keys sorted as if flat are reordered only when some track has
 * a parent. */
static enum trex_status nest_tracks(struct bld *c, struct okey *keys)
{
	uint32_t n = c->ntracks, *stack = NULL, out = 0, sp = 0;
	struct okey *sorted = NULL;
	bool nested = false;

	for (uint32_t i = 0; i < n && !nested; i++)
		nested = c->tracks[i].parent != TREX_NONE;
	if (!nested)
		return TREX_OK;
	stack = malloc((size_t)n * sizeof(*stack));
	sorted = malloc((size_t)n * sizeof(*sorted));
	if (!stack || !sorted) {
		free(stack);
		free(sorted);
		return bld_nomem(c);
	}
	/* roots in key order; each followed by its children, found by a scan
	 * of the keys after it (children sort anywhere: their class may differ) */
	for (uint32_t i = 0; i < n; i++) {
		if (c->tracks[keys[i].id].parent != TREX_NONE)
			continue;
		stack[sp++] = i;
		while (sp > 0) {
			uint32_t at = stack[--sp];

			sorted[out++] = keys[at];
			for (uint32_t j = n; j-- > 0;) {
				if (c->tracks[keys[j].id].parent == keys[at].id)
					stack[sp++] = j;
			}
		}
	}
	memcpy(keys, sorted, (size_t)out * sizeof(*keys));
	free(stack);
	free(sorted);
	return out == n ? TREX_OK : bld_nomem(c);
}

/* Tracks by (process, class, sort_index, tid_num, tid text): threads and
 * device queues first, then named, async groups, counters; nested tracks
 * right after their parent. */
static enum trex_status order_tracks(struct bld *c, const uint32_t *proc_new)
{
	struct okey *keys = malloc(((size_t)c->ntracks + 1) * sizeof(*keys));
	struct trex_index *idx = c->idx;
	enum trex_status st = TREX_OK;

	idx->tracks = calloc((size_t)c->ntracks + 1, sizeof(*idx->tracks));
	c->track_new = malloc(((size_t)c->ntracks + 1) * sizeof(*c->track_new));
	if (!keys || !idx->tracks || !c->track_new) {
		free(keys);
		return bld_nomem(c);
	}
	for (uint32_t i = 0; i < c->ntracks; i++) {
		const struct gtrack *g = &c->tracks[i];
		struct okey *k = &keys[i];

		parse_int(gtext(c, g->key), &k->num);
		k->sort = g->has_sort ? g->sort_index : k->num;
		k->text = gtext(c, g->key);
		k->major = proc_new[g->proc];
		k->cls = g->cls;
		k->id = i;
	}
	qsort(keys, c->ntracks, sizeof(*keys), okey_cmp);
	st = nest_tracks(c, keys);
	idx->ntracks = c->ntracks;
	for (uint32_t n = 0; n < c->ntracks && st == TREX_OK; n++) {
		c->track_new[keys[n].id] = n;
		st = finish_track(c, n, &keys[n]);
	}
	for (uint32_t n = 0; n < c->ntracks && st == TREX_OK; n++) {
		uint32_t parent = c->tracks[keys[n].id].parent;

		idx->tracks[n].parent = parent == TREX_NONE ? TREX_NONE : c->track_new[parent];
	}
	free(keys);
	return st;
}

/* Tracks and slices of a file are contiguous once tracks are in display
 * order; the link tables are built per file from these ranges. */
static enum trex_status file_ranges(struct bld *c)
{
	struct trex_index *idx = c->idx;

	idx->links = calloc((size_t)idx->nfiles + 1, sizeof(*idx->links));
	if (!idx->links)
		return bld_nomem(c);
	for (uint32_t t = idx->ntracks; t-- > 0;) {
		struct trex_file_links *fl = &idx->links[idx->procs[idx->tracks[t].process].file];

		fl->first_track = t;
		fl->track_count++;
	}
	return TREX_OK;
}

enum trex_status bld_order(struct bld *c)
{
	uint32_t *proc_new = malloc(((size_t)c->nprocs + 1) * sizeof(*proc_new));
	enum trex_status st;

	if (!proc_new)
		return bld_nomem(c);
	st = order_processes(c, proc_new);
	if (st == TREX_OK)
		st = order_tracks(c, proc_new);
	free(proc_new);
	if (st == TREX_OK)
		st = file_ranges(c);
	return st;
}
