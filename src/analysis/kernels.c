#include "config.h"

#include "trex/analysis/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/categories.h"
#include "trex/analysis/labels.h"
#include "trex/analysis/copy_bytes.h"
#include "trex/core/grow.h"
#include "trex/analysis/work.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LINKS_MAX 16 /* correlated/External-id partners looked at per slice */
#define NO_OP_LABEL "(no launching op)"

static const char *const group_names[] = {
#define TREX_KERNEL_GROUP_NAME(id, name, help) name,
    TREX_KERNEL_GROUP_INFO(TREX_KERNEL_GROUP_NAME)
#undef TREX_KERNEL_GROUP_NAME
};

bool trex_kernel_group_parse(const char *s, enum trex_kernel_group *out)
{
	for (size_t i = 0; i < ARRAY_LEN(group_names); i++) {
		if (strcmp(s, group_names[i]) == 0) {
			*out = (enum trex_kernel_group)i;
			return true;
		}
	}
	return false;
}

const char *trex_kernel_group_name(enum trex_kernel_group g)
{
	return (size_t)g < ARRAY_LEN(group_names) ? group_names[g] : "?";
}

const char *trex_process_label(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size)
{
	return trex_device_label(idx, process, buf, size);
}

const char *trex_track_label(const struct trex_index *idx, uint32_t track, char *buf, size_t size)
{
	const struct trex_track *tr = trex_index_track(idx, track);
	const char *name = trex_index_str(idx, tr->name);

	snprintf(buf, size, "%s", *name ? name : trex_index_str(idx, tr->tid));
	return buf;
}

static const char *table_text(struct trex_table *t, const char *s)
{
	return trex_table_strdup(t, s, strlen(s));
}

/* ---- columns -------------------------------------------------------------------------- */

/* Column order follows nsys stats' cuda_gpu_kern_sum, percentiles appended;
 * the label columns follow and Name stays last. */
static const struct trex_column stat_cols[] = {
    {"time_pct", "Time %", TREX_COL_PERCENT, true},
    {"total_ns", "Total", TREX_COL_DURATION, true},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"avg_ns", "Avg", TREX_COL_DURATION, true},
    {"med_ns", "Med", TREX_COL_DURATION, true},
    {"min_ns", "Min", TREX_COL_DURATION, true},
    {"max_ns", "Max", TREX_COL_DURATION, true},
    {"stddev_ns", "StdDev", TREX_COL_DURATION, true},
    {"p95_ns", "P95", TREX_COL_DURATION, true},
    {"p99_ns", "P99", TREX_COL_DURATION, true},
};
enum {
	COL_PCT,
	COL_TOTAL,
	COL_N,
	COL_AVG,
	COL_MED,
	COL_MIN,
	COL_MAX,
	COL_SD,
	COL_P95,
	COL_P99,
	NSTAT
};

enum label { L_RANK, L_FILE, L_DEVICE, L_STREAM, L_SHAPE, L_ARGS, L_NAME, L_OP, NLABEL };
static const struct trex_column label_cols[NLABEL] = {
    [L_RANK] = {"rank", "Rank", TREX_COL_COUNT, false},
    [L_FILE] = {"file", "File", TREX_COL_TEXT, false},
    [L_DEVICE] = {"device", "Device", TREX_COL_TEXT, false},
    [L_STREAM] = {"stream", "Stream", TREX_COL_TEXT, false},
    [L_SHAPE] = {"shape", "Shape", TREX_COL_TEXT, false},
    [L_ARGS] = {"args", "Args", TREX_COL_TEXT, false},
    [L_NAME] = {"name", "Name", TREX_COL_TEXT, false},
    [L_OP] = {"op", "Op", TREX_COL_TEXT, false},
};

const struct trex_column *trex_kernels_stat_columns(size_t *n)
{
	*n = NSTAT;
	return stat_cols;
}

const struct trex_column *trex_kernels_name_column(void)
{
	return &label_cols[L_NAME];
}

/* The label columns of each grouping, in order; NLABEL ends a list. */
static const enum label group_labels[TREX_KERNELS_BY_COUNT][NLABEL + 1] = {
    [TREX_KERNELS_BY_NAME] = {L_NAME, NLABEL},
    [TREX_KERNELS_BY_SHAPE] = {L_RANK, L_DEVICE, L_STREAM, L_SHAPE, L_ARGS, L_NAME, NLABEL},
    [TREX_KERNELS_BY_OP] = {L_OP, NLABEL},
    [TREX_KERNELS_BY_STREAM] = {L_RANK, L_DEVICE, L_STREAM, NLABEL},
    [TREX_KERNELS_BY_DEVICE] = {L_RANK, L_DEVICE, NLABEL},
    [TREX_KERNELS_BY_RANK] = {L_RANK, L_FILE, NLABEL},
};

/* ---- collecting ------------------------------------------------------------------------ */

/* One kernel execution: its group key, file, and where it came from. */
struct sample {
	uint32_t key[3];
	uint32_t file;  /* its run: one total column each (per_rank) */
	uint32_t slice; /* for the args of the first instance */
	int64_t ts;
	int64_t dur;
};

struct sample_vec {
	struct sample *v;
	size_t n, cap;
};

static bool push_sample(struct sample_vec *sv, const struct sample *s)
{
	struct sample *v = trex_grow(sv->v, &sv->cap, sv->n + 1, sizeof(*v), 1024);

	if (!v)
		return false;
	sv->v = v;
	sv->v[sv->n++] = *s;
	return true;
}

struct ctx {
	const struct trex_index *idx;
	const struct trex_kernel_opts *opts;
	struct trex_kernel_members *members; /* NULL: not wanted */
	const struct trex_catset *catset;    /* with opts->category */
	uint8_t *name_in_cat;                /* per name id: 0 unknown, 1 in the category, 2 not */
	struct trex_work work;               /* kinds; communication with a category */
	uint32_t *anc_op;                    /* by op: innermost CPU op at or above each slice */
	uint32_t *track_file; /* by op: file of each track (launch links are per file) */
	/* with opts->memory: the copies and sets (ascending slice ids) and their
	 * bytes (-1: unknown); bytes columns when any is known */
	uint32_t *copy_ids;
	int64_t *copy_bytes;
	size_t ncopies;
	bool copy_sized;
};

static inline enum trex_kind kind_of(const struct trex_slice *s)
{
	return (enum trex_kind)s->kind;
}

/* With opts->category: the rules (the built-in ones made into *builtin
 * when none are given) and the per-name decisions. */
static enum trex_status category_filter(struct ctx *c, struct trex_catset **builtin,
                                        struct trex_error *err)
{
	enum trex_status st;

	if (!c->opts->category)
		return TREX_OK;
	c->catset = c->opts->catset;
	if (!c->catset) {
		if ((st = trex_catset_builtin(builtin, err)) != TREX_OK)
			return st;
		c->catset = *builtin;
	}
	c->name_in_cat = calloc(trex_strtab_count(trex_index_strings(c->idx)) + 1, 1);
	return c->name_in_cat ? TREX_OK : TREX_NOMEM;
}

/* Is the slice in opts->category, as trex_categories_table counts it?
 * Communication decides the built-in set's collective category, the name
 * (decided once per name) the rest. */
static bool in_category(struct ctx *c, uint32_t id, const struct trex_slice *s)
{
	uint8_t *in = &c->name_in_cat[s->name];

	if (trex_catset_comm_decides(c->catset) && trex_work_comm(&c->work, id) != TREX_COMM_NONE)
		return strcmp(TREX_CATEGORY_COMM, c->opts->category) == 0;
	if (*in == 0) {
		const char *cat = trex_catset_match(c->catset, trex_index_str(c->idx, s->name));

		*in = strcmp(cat ? cat : TREX_CATEGORY_NONE, c->opts->category) == 0 ? 1 : 2;
	}
	return *in == 1;
}

static bool counted(struct ctx *c, uint32_t id, const struct trex_slice *s)
{
	enum trex_kind k = trex_work_kind(&c->work, id);

	if (k != TREX_KIND_KERNEL &&
	    !(c->opts->memory && (k == TREX_KIND_MEMCPY || k == TREX_KIND_MEMSET)))
		return false;
	return !c->opts->category || in_category(c, id, s);
}

static uint32_t cpu_op_by_op_link(struct ctx *c, uint32_t slice)
{
	uint32_t links[LINKS_MAX];
	size_t n;

	if (slice == TREX_NONE ||
	    !(trex_index_slice(c->idx, slice)->flags & TREX_SLICE_HAS_OP_LINK))
		return TREX_NONE;
	n = trex_index_same_op_link(c->idx, slice, links, LINKS_MAX);
	for (size_t i = 0; i < n && i < LINKS_MAX; i++) {
		if (kind_of(trex_index_slice(c->idx, links[i])) == TREX_KIND_CPU_OP)
			return links[i];
	}
	return TREX_NONE;
}

/* (file, launch link) + 1 (0: none) and a slice or sample index. */
struct link_kv {
	uint64_t key;
	uint32_t val;
};

static uint64_t launch_key(struct ctx *c, uint32_t slice)
{
	const struct trex_slice *s = trex_index_slice(c->idx, slice);

	if (!(s->flags & TREX_SLICE_HAS_LAUNCH_LINK))
		return 0;
	return ((uint64_t)c->track_file[s->track] << 32 | trex_slice_launch_link(c->idx, slice)) +
	       1;
}

struct link_vec {
	struct link_kv *v;
	size_t n, cap;
};

/* Lane d's slices against lane d - 1 of the same track: a slice's parent is
 * the latest one above starting no later than it (trex_index_parent), found
 * by walking both lanes once instead of a binary search per kernel. */
static bool lane_ancestors(struct ctx *c, const struct trex_lane *lane, const struct trex_lane *up,
                           struct link_vec *rt)
{
	uint32_t j = up ? up->first : 0, end = up ? up->first + up->count : 0;

	for (uint32_t i = lane->first; i < lane->first + lane->count; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		enum trex_kind k = kind_of(s);
		uint32_t parent = TREX_NONE;

		while (j + 1 < end && trex_index_slice(c->idx, j + 1)->ts <= s->ts)
			j++;
		if (j < end && trex_index_slice(c->idx, j)->ts <= s->ts)
			parent = j;
		c->anc_op[i] = k == TREX_KIND_CPU_OP ? i
		               : parent == TREX_NONE ? TREX_NONE
		                                     : c->anc_op[parent];
		if (k == TREX_KIND_RUNTIME && (s->flags & TREX_SLICE_HAS_LAUNCH_LINK)) {
			struct link_kv *v = trex_grow(rt->v, &rt->cap, rt->n + 1, sizeof(*v), 1024);

			if (!v)
				return false;
			rt->v = v;
			rt->v[rt->n++] = (struct link_kv){launch_key(c, i), i};
		}
	}
	return true;
}

/* The innermost CPU op over every slice of the CPU threads (c->anc_op)
 * and their runtime launches with a launch link, in slice id order
 * (lanes hold consecutive ids, track by track). GPU and counter tracks hold
 * neither and are skipped. */
static enum trex_status ancestor_ops(struct ctx *c, struct link_vec *rt)
{
	const struct trex_index *idx = c->idx;
	uint32_t n = trex_index_slice_count(idx), ntracks = trex_index_track_count(idx);

	c->anc_op = malloc((n ? n : 1) * sizeof(*c->anc_op));
	c->track_file = malloc((ntracks ? ntracks : 1) * sizeof(*c->track_file));
	if (!c->anc_op || !c->track_file)
		return TREX_NOMEM;
	for (uint32_t t = 0; t < ntracks; t++)
		c->track_file[t] = trex_index_track_file(idx, t);
	for (uint32_t i = 0; i < n; i++)
		c->anc_op[i] = TREX_NONE;
	for (uint32_t t = 0; t < ntracks; t++) {
		const struct trex_track *tr = trex_index_track(idx, t);

		if (tr->kind == TREX_TRACK_GPU || tr->kind == TREX_TRACK_COUNTER)
			continue;
		for (uint32_t d = 0; d < tr->lane_count; d++) {
			if (!lane_ancestors(c, trex_index_lane(idx, tr->first_lane + d),
			                    d ? trex_index_lane(idx, tr->first_lane + d - 1) : NULL,
			                    rt))
				return TREX_NOMEM;
		}
	}
	return TREX_OK;
}

/* Name id of the CPU op that launched a kernel (its runtime launch rt,
 * TREX_NONE if none), TREX_NONE if unknown: the innermost CPU op enclosing
 * rt, else one sharing rt's or the kernel's op link. */
static uint32_t launching_op(struct ctx *c, uint32_t slice, uint32_t rt)
{
	uint32_t op = rt == TREX_NONE ? TREX_NONE : c->anc_op[rt];

	if (op == TREX_NONE)
		op = cpu_op_by_op_link(c, rt);
	if (op == TREX_NONE)
		op = cpu_op_by_op_link(c, slice);
	return op == TREX_NONE ? TREX_NONE : trex_index_slice(c->idx, op)->name;
}

/* The kernel's shape, else its launch's (ROCm keeps grid/block there). */
static uint32_t shape_of(const struct trex_index *idx, uint32_t slice)
{
	uint32_t shape = trex_slice_shape(idx, slice), rt;

	if (shape)
		return shape;
	rt = trex_index_launch_of(idx, slice);
	return rt == TREX_NONE ? 0 : trex_slice_shape(idx, rt);
}

static void sample_key(struct ctx *c, uint32_t id, const struct trex_slice *s, struct sample *out)
{
	uint32_t file = trex_index_track_file(c->idx, s->track);

	memset(out->key, 0, sizeof(out->key));
	switch (c->opts->group) {
	case TREX_KERNELS_BY_SHAPE:
		out->key[0] = s->name;
		out->key[1] = shape_of(c->idx, id);
		out->key[2] = s->track;
		break;
	case TREX_KERNELS_BY_OP:
		break; /* assign_ops, for all samples at once */
	case TREX_KERNELS_BY_STREAM:
		out->key[0] = s->track;
		break;
	case TREX_KERNELS_BY_DEVICE:
		out->key[0] = trex_index_track(c->idx, s->track)->process;
		break;
	case TREX_KERNELS_BY_RANK: /* by file: two runs of one rank stay two rows */
		out->key[0] = file;
		break;
	case TREX_KERNELS_BY_NAME:
	default:
		out->key[0] = s->name;
		break;
	}
	out->file = file;
	out->slice = id;
	out->ts = s->ts;
	out->dur = s->dur;
}

static enum trex_status collect(struct ctx *c, struct sample_vec *sv)
{
	uint32_t nslices = trex_index_slice_count(c->idx);

	for (uint32_t i = 0; i < nslices; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, i);
		struct sample smp;

		if (!counted(c, i, s))
			continue;
		sample_key(c, i, s, &smp);
		if (!push_sample(sv, &smp))
			return TREX_NOMEM;
	}
	return TREX_OK;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* ---- launching ops: runtime launches joined to kernels by sorting ----------------------- */

/* Stable LSD radix sort on key, 16 bits a pass, only the bits in use. */
static void sort_links(struct link_kv *v, struct link_kv *tmp, size_t n)
{
	uint64_t bits = 0;
	struct link_kv *src = v, *dst = tmp;
	size_t *count = malloc(65537 * sizeof(*count));

	for (size_t i = 0; i < n; i++)
		bits |= v[i].key;
	for (unsigned shift = 0; count && shift < 64 && (bits >> shift); shift += 16) {
		memset(count, 0, 65537 * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[((src[i].key >> shift) & 0xffff) + 1]++;
		for (size_t d = 0; d < 65536; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xffff]++] = src[i];
		struct link_kv *swap = src;
		src = dst;
		dst = swap;
	}
	if (!count) { /* no memory for the counts: a slower, still stable, insertion */
		for (size_t i = 1; i < n; i++) {
			struct link_kv x = v[i];
			size_t j = i;

			for (; j > 0 && v[j - 1].key > x.key; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(count);
}

/* Each kernel's launching op into its key: kernels and runtime launches
 * sorted by (file, correlation id) and merged, instead of a binary search
 * in the index per kernel (random access dominated at millions). */
static enum trex_status assign_ops(struct ctx *c, struct sample_vec *sv)
{
	struct link_vec links = {0};
	size_t most = sv->n, j = 0, nrt;
	struct link_kv *rt, *k = malloc((most ? most : 1) * sizeof(*k)), *tmp = NULL;
	enum trex_status st = k ? ancestor_ops(c, &links) : TREX_NOMEM;

	rt = links.v;
	nrt = links.n;
	most = nrt > most ? nrt : most;
	if (st == TREX_OK)
		tmp = malloc((most ? most : 1) * sizeof(*tmp));
	if (!tmp) {
		free(k);
		free(rt);
		return TREX_NOMEM;
	}
	/* stable: among launches sharing a key, the lowest slice id stays first */
	sort_links(rt, tmp, nrt);
	for (size_t i = 0; i < sv->n; i++)
		k[i] = (struct link_kv){launch_key(c, sv->v[i].slice), (uint32_t)i};
	sort_links(k, tmp, sv->n);
	free(tmp);
	for (size_t i = 0; i < sv->n; i++) {
		struct sample *smp = &sv->v[k[i].val];
		uint32_t launch = TREX_NONE;

		while (j < nrt && rt[j].key < k[i].key)
			j++;
		if (k[i].key && j < nrt && rt[j].key == k[i].key)
			launch = rt[j].val;
		smp->key[0] = launching_op(c, smp->slice, launch);
	}
	free(k);
	free(rt);
	return TREX_OK;
}

/* Launching ops found earlier (trex_kernel_ops_compute). */
static enum trex_status take_ops(const struct trex_kernel_ops *ops, struct sample_vec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		sv->v[i].key[0] =
		    sv->v[i].slice < ops->nslices ? ops->op_name[sv->v[i].slice] : TREX_NONE;
	return TREX_OK;
}

enum trex_status trex_kernel_ops_compute(const struct trex_index *idx, struct trex_kernel_ops *out,
                                         struct trex_error *err)
{
	static const struct trex_kernel_opts every = {.group = TREX_KERNELS_BY_OP, .memory = true};
	struct ctx c = {.idx = idx, .opts = &every};
	struct sample_vec sv = {NULL, 0, 0};
	uint32_t n = trex_index_slice_count(idx);
	enum trex_status st;

	*out = (struct trex_kernel_ops){malloc((n ? n : 1) * sizeof(uint32_t)), n};
	trex_work_count(idx, &c.work);
	st = out->op_name ? TREX_OK : TREX_NOMEM;
	if (st == TREX_OK)
		st = collect(&c, &sv);
	if (st == TREX_OK)
		st = assign_ops(&c, &sv);
	if (st == TREX_OK) {
		for (uint32_t i = 0; i < n; i++)
			out->op_name[i] = TREX_NONE;
		for (size_t i = 0; i < sv.n; i++)
			out->op_name[sv.v[i].slice] = sv.v[i].key[0];
	}
	free(sv.v);
	free(c.anc_op);
	free(c.track_file);
	if (st != TREX_OK) {
		trex_kernel_ops_free(out);
		return st == TREX_NOMEM ? trex_error_set(err, st, NULL, -1, "out of memory") : st;
	}
	return TREX_OK;
}

void trex_kernel_ops_free(struct trex_kernel_ops *ops)
{
	if (!ops)
		return;
	free(ops->op_name);
	*ops = (struct trex_kernel_ops){NULL, 0};
}

static int cmp_key(const struct sample *x, const struct sample *y)
{
	for (int i = 0; i < 3; i++) {
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	}
	return 0;
}

/* ---- grouping: a hash of the keys, then counting and radix sorts ------------------------ */

/* Group ids of samples by key through an open-addressing hash (qsort of
 * millions of samples took most of the time); rep[g] is the first sample
 * of group g. */
struct key_map {
	uint32_t *slot; /* group id + 1, 0: empty */
	size_t cap;     /* a power of two */
	uint32_t *rep;
	size_t n, rep_cap;
};

static size_t key_hash(const uint32_t k[3], size_t mask)
{
	uint64_t h = k[0] * 0x9e3779b97f4a7c15ull;

	h = (h ^ (h >> 29) ^ k[1]) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 31) ^ k[2]) * 0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 32)) & mask;
}

static bool map_rehash(struct key_map *m, const struct sample *v, size_t cap)
{
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return false;
	for (size_t g = 0; g < m->n; g++) {
		size_t i = key_hash(v[m->rep[g]].key, cap - 1);

		while (slot[i])
			i = (i + 1) & (cap - 1);
		slot[i] = (uint32_t)g + 1;
	}
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return true;
}

/* The group id of sample s (index si), made when its key is new. */
static bool map_group(struct key_map *m, const struct sample *v, size_t si, uint32_t *gid)
{
	size_t i;
	uint32_t *rep;

	if ((m->n + 1) * 2 > m->cap && !map_rehash(m, v, m->cap ? m->cap * 2 : 1024))
		return false;
	for (i = key_hash(v[si].key, m->cap - 1); m->slot[i]; i = (i + 1) & (m->cap - 1)) {
		if (cmp_key(&v[m->rep[m->slot[i] - 1]], &v[si]) == 0) {
			*gid = m->slot[i] - 1;
			return true;
		}
	}
	rep = trex_grow(m->rep, &m->rep_cap, m->n + 1, sizeof(*rep), 256);
	if (!rep)
		return false;
	m->rep = rep;
	m->rep[m->n] = (uint32_t)si;
	m->slot[i] = (uint32_t)m->n + 1;
	*gid = (uint32_t)m->n++;
	return true;
}

static int cmp_i64p(const void *a, const void *b)
{
	return cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* Ascending durations: LSD radix sort on the bytes in use (durations are
 * >= 0), insertion sort for short runs, qsort if a value is negative. */
static void sort_durations(int64_t *v, int64_t *tmp, size_t n)
{
	uint64_t bits = 0;
	int64_t *src = v, *dst = tmp;

	if (n < 48) {
		for (size_t i = 1; i < n; i++) {
			int64_t x = v[i];
			size_t j = i;

			for (; j > 0 && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0) {
			qsort(v, n, sizeof(*v), cmp_i64p);
			return;
		}
		bits |= (uint64_t)v[i];
	}
	for (unsigned shift = 0; shift < 64 && (bits >> shift); shift += 8) {
		size_t count[257] = {0};

		for (size_t i = 0; i < n; i++)
			count[(((uint64_t)src[i] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			dst[count[((uint64_t)src[i] >> shift) & 0xff]++] = src[i];
		int64_t *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/* The samples of each group together (in their original, slice id, order)
 * in *grouped, their durations sorted per group in *durs, and first[g] ..
 * first[g + 1] the range of group g. */
struct grouping {
	struct sample *grouped;
	int64_t *durs;
	size_t *first;
	size_t ng;
};

static void grouping_free(struct grouping *gr)
{
	free(gr->grouped);
	free(gr->durs);
	free(gr->first);
}

static enum trex_status group_samples(const struct sample *v, size_t n, struct grouping *gr)
{
	struct key_map m = {0};
	uint32_t *gid = malloc((n ? n : 1) * sizeof(*gid));
	int64_t *tmp = NULL;
	enum trex_status st = TREX_NOMEM;

	for (size_t i = 0; gid && i < n; i++) {
		if (!map_group(&m, v, i, &gid[i]))
			goto out;
	}
	gr->ng = m.n;
	gr->first = calloc(m.n + 1, sizeof(*gr->first));
	gr->grouped = malloc((n ? n : 1) * sizeof(*gr->grouped));
	gr->durs = malloc((n ? n : 1) * sizeof(*gr->durs));
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!gid || !gr->first || !gr->grouped || !gr->durs || !tmp)
		goto out;
	for (size_t i = 0; i < n; i++)
		gr->first[gid[i] + 1]++;
	for (size_t g = 0; g < m.n; g++)
		gr->first[g + 1] += gr->first[g];
	for (size_t i = n; i-- > 0;) /* backwards: ends at each group's start */
		gr->grouped[--gr->first[gid[i] + 1]] = v[i];
	/* first[g + 1] now holds group g's start: shift it to first[g] */
	memmove(gr->first, gr->first + 1, m.n * sizeof(*gr->first));
	gr->first[m.n] = n;
	for (size_t i = 0; i < n; i++)
		gr->durs[i] = gr->grouped[i].dur;
	for (size_t g = 0; g < m.n; g++)
		sort_durations(gr->durs + gr->first[g], tmp, gr->first[g + 1] - gr->first[g]);
	st = TREX_OK;
out:
	free(gid);
	free(tmp);
	free(m.slot);
	free(m.rep);
	return st;
}

/* ---- statistics ------------------------------------------------------------------------- */

struct group {
	const struct sample *v; /* its samples, in slice id order */
	const int64_t *dur;     /* their durations, sorted */
	uint64_t n;
	__int128 sum;
	double med, sd;
	const char *label, *label2; /* for tie-breaks */
};

/* Sample standard deviation (n - 1) of sorted values. Exact integer
 * moments where they fit in 128 bits (Q = n*sum(x^2) - sum(x)^2 = n*M2),
 * else a two-pass sum of squared deviations in long double. */
static double sample_stddev(const int64_t *v, uint64_t n, __int128 sum)
{
	__int128 sq = 0, nsq, sum2;
	bool overflow = false;
	long double m2;

	if (n < 2)
		return 0;
	for (uint64_t i = 0; i < n && !overflow; i++)
		overflow = __builtin_add_overflow(sq, (__int128)v[i] * v[i], &sq);
	if (!overflow && !__builtin_mul_overflow(sq, (__int128)n, &nsq) &&
	    !__builtin_mul_overflow(sum, sum, &sum2)) {
		m2 = (long double)(nsq - sum2) / (long double)n;
	} else {
		long double mean = (long double)sum / (long double)n;

		m2 = 0;
		for (uint64_t i = 0; i < n; i++)
			m2 += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	}
	return (double)sqrtl(m2 / (long double)(n - 1));
}

/* Nearest-rank percentile of n >= 1 sorted values: the ceil(p*n/100)-th. */
static int64_t percentile(const int64_t *v, uint64_t n, unsigned p)
{
	uint64_t rank = (n * p + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

static void group_stats(const struct sample *v, const int64_t *dur, uint64_t n, struct group *g)
{
	g->v = v;
	g->dur = dur;
	g->n = n;
	g->sum = 0;
	for (uint64_t i = 0; i < n; i++)
		g->sum += dur[i];
	if (n % 2)
		g->med = (double)dur[n / 2];
	else
		g->med = (double)(((__int128)dur[n / 2 - 1] + dur[n / 2])) / 2.0;
	g->sd = sample_stddev(dur, n, g->sum);
}

/* One struct group per group of gr; *out is malloc'd. */
static enum trex_status make_groups(const struct grouping *gr, struct group **out, size_t *count)
{
	struct group *g = malloc((gr->ng ? gr->ng : 1) * sizeof(*g));

	if (!g)
		return TREX_NOMEM;
	for (size_t i = 0; i < gr->ng; i++)
		group_stats(gr->grouped + gr->first[i], gr->durs + gr->first[i],
		            gr->first[i + 1] - gr->first[i], &g[i]);
	*out = g;
	*count = gr->ng;
	return TREX_OK;
}

/* Total descending; ties by name (and shape), else by key (display order). */
static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	c = strcmp(x->label, y->label);
	if (!c)
		c = strcmp(x->label2, y->label2);
	return c ? c : cmp_key(x->v, y->v);
}

static const char *key_str(const struct trex_index *idx, uint32_t id)
{
	return id == TREX_NONE ? NO_OP_LABEL : trex_index_str(idx, id);
}

static void set_labels(const struct ctx *c, struct group *g)
{
	enum trex_kernel_group gr = c->opts->group;
	bool by_text =
	    gr == TREX_KERNELS_BY_NAME || gr == TREX_KERNELS_BY_SHAPE || gr == TREX_KERNELS_BY_OP;

	g->label = by_text ? key_str(c->idx, g->v->key[0]) : "";
	g->label2 = gr == TREX_KERNELS_BY_SHAPE ? trex_index_str(c->idx, g->v->key[1]) : "";
}

/* ---- the table --------------------------------------------------------------------------- */

/* A total column per file (per_rank): groups of names or ops only. */
static bool per_run(const struct ctx *c)
{
	return c->opts->per_rank &&
	       (c->opts->group == TREX_KERNELS_BY_NAME || c->opts->group == TREX_KERNELS_BY_OP);
}

/* With --memory, where the args of copies and sets carry their size. */
static const struct trex_column bytes_cols[] = {
    {"bytes", "Bytes", TREX_COL_NUMBER, true},
    {"gbps", "GB/s", TREX_COL_NUMBER, true},
};

const struct trex_column *trex_kernels_op_column(void)
{
	return &label_cols[L_OP];
}

const struct trex_column *trex_kernels_bytes_columns(size_t *n)
{
	*n = ARRAY_LEN(bytes_cols);
	return bytes_cols;
}

/* The bytes of the copies and sets among the samples (opts->memory). */
static enum trex_status find_copy_bytes(struct ctx *c, const struct sample_vec *sv,
                                        struct trex_error *err)
{
	enum trex_status st;

	if (!c->opts->memory)
		return TREX_OK;
	c->copy_ids = malloc((sv->n ? sv->n : 1) * sizeof(*c->copy_ids));
	if (!c->copy_ids)
		return TREX_NOMEM;
	for (size_t i = 0; i < sv->n; i++) { /* samples come in slice id order */
		enum trex_kind k = kind_of(trex_index_slice(c->idx, sv->v[i].slice));

		if (k == TREX_KIND_MEMCPY || k == TREX_KIND_MEMSET)
			c->copy_ids[c->ncopies++] = sv->v[i].slice;
	}
	c->copy_bytes = malloc((c->ncopies ? c->ncopies : 1) * sizeof(*c->copy_bytes));
	if (!c->copy_bytes)
		return TREX_NOMEM;
	st = trex_copy_bytes(c->idx, c->copy_ids, c->ncopies, c->copy_bytes, err);
	for (size_t i = 0; st == TREX_OK && i < c->ncopies; i++)
		c->copy_sized = c->copy_sized || c->copy_bytes[i] >= 0;
	return st;
}

/* A group's bytes (NaN: no size known) and bandwidth, bytes / ns = GB/s over
 * the sized instances (NaN: none, or they took no time). */
static void copy_cells(const struct ctx *c, const struct group *g, union trex_cell *cell)
{
	double bytes = 0, ns = 0;
	bool sized = false;

	for (uint64_t i = 0; i < g->n; i++) {
		size_t lo = 0, hi = c->ncopies;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c->copy_ids[mid] < g->v[i].slice)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == c->ncopies || c->copy_ids[lo] != g->v[i].slice || c->copy_bytes[lo] < 0)
			continue;
		sized = true;
		bytes += (double)c->copy_bytes[lo];
		ns += (double)g->v[i].dur;
	}
	cell[0].number = sized ? bytes : NAN;
	cell[1].number = sized && ns > 0 ? bytes / ns : NAN;
}

static const struct trex_column *build_columns(struct ctx *c, struct trex_table *t)
{
	const enum label *labels = group_labels[c->opts->group];
	bool per_rank = per_run(c);
	uint32_t nfiles = trex_index_file_count(c->idx);
	size_t ncols = NSTAT + (per_rank ? nfiles : 0), k = NSTAT;
	struct trex_column *cols;

	for (const enum label *l = labels; *l != NLABEL; l++)
		ncols += *l != L_ARGS || c->opts->args;
	ncols += c->copy_sized ? ARRAY_LEN(bytes_cols) : 0;
	cols = trex_table_init_owned(t, "kernels", ncols);
	if (!cols)
		return NULL;
	memcpy(cols, stat_cols, sizeof(stat_cols));
	for (uint32_t f = 0; per_rank && f < nfiles; f++, k++) {
		char key[560], title[560];
		size_t kn = strlen(trex_file_key(c->idx, f, key, sizeof(key) - 10));

		snprintf(key + kn, sizeof(key) - kn, "_total_ns");
		trex_file_label(c->idx, f, title, sizeof(title));
		cols[k] = (struct trex_column){table_text(t, key), table_text(t, title),
		                               TREX_COL_DURATION, true};
		if (!cols[k].key || !cols[k].title)
			return NULL;
	}
	for (size_t b = 0; c->copy_sized && b < ARRAY_LEN(bytes_cols); b++)
		cols[k++] = bytes_cols[b];
	for (const enum label *l = labels; *l != NLABEL; l++) {
		if (*l != L_ARGS || c->opts->args)
			cols[k++] = label_cols[*l];
	}
	return cols;
}

/* Args JSON text of the group's first instance (earliest start). */
static enum trex_status first_args(struct ctx *c, const struct group *g, struct trex_table *t,
                                   const char **out, struct trex_error *err)
{
	const struct sample *first = g->v;
	const struct trex_slice *s;
	enum trex_status st;
	char *text = NULL;
	size_t len = 0;

	for (uint64_t i = 1; i < g->n; i++) {
		if (g->v[i].ts < first->ts ||
		    (g->v[i].ts == first->ts && g->v[i].slice < first->slice))
			first = &g->v[i];
	}
	s = trex_index_slice(c->idx, first->slice);
	st = trex_index_args_json(c->idx, trex_index_track_file(c->idx, s->track), s->args, &text,
	                          &len, err);
	if (st != TREX_OK)
		return st;
	*out = trex_table_strdup(t, text ? text : "", text ? len : 0);
	free(text);
	return *out ? TREX_OK : TREX_NOMEM;
}

static enum trex_status label_cell(struct ctx *c, const struct group *g, enum label l,
                                   struct trex_table *t, union trex_cell *cell,
                                   struct trex_error *err)
{
	const struct trex_index *idx = c->idx;
	uint32_t track = g->v->key[c->opts->group == TREX_KERNELS_BY_SHAPE ? 2 : 0];
	char buf[512];
	const char *s = NULL;

	switch (l) {
	case L_RANK:
		cell->count = trex_index_file(idx, g->v->file)->rank;
		return TREX_OK;
	case L_FILE:
		s = trex_file_name(idx, g->v->file, buf, sizeof(buf));
		break;
	case L_DEVICE:
		s = trex_process_label(idx,
		                       c->opts->group == TREX_KERNELS_BY_DEVICE
		                           ? g->v->key[0]
		                           : trex_index_track(idx, track)->process,
		                       buf, sizeof(buf));
		break;
	case L_STREAM:
		s = trex_track_label(idx, track, buf, sizeof(buf));
		break;
	case L_SHAPE:
		s = trex_index_str(idx, g->v->key[1]);
		break;
	case L_ARGS:
		return first_args(c, g, t, &cell->text, err);
	case L_NAME:
	case L_OP:
	default:
		s = key_str(idx, g->v->key[0]);
		break;
	}
	cell->text = trex_table_strdup(t, s, strlen(s));
	return cell->text ? TREX_OK : TREX_NOMEM;
}

static enum trex_status emit_row(struct ctx *c, struct trex_table *t, const struct group *g,
                                 __int128 grand, struct trex_error *err)
{
	union trex_cell *cell = trex_table_add_row(t);
	bool per_rank = per_run(c);
	size_t k = NSTAT;
	enum trex_status st = TREX_OK;

	if (!cell)
		return TREX_NOMEM;
	cell[COL_PCT].number = grand ? (double)((long double)g->sum * 100 / (long double)grand) : 0;
	cell[COL_TOTAL].number = (double)g->sum;
	cell[COL_N].count = (int64_t)g->n;
	cell[COL_AVG].number = (double)((long double)g->sum / (long double)g->n);
	cell[COL_MED].number = g->med;
	cell[COL_MIN].number = (double)g->dur[0];
	cell[COL_MAX].number = (double)g->dur[g->n - 1];
	cell[COL_SD].number = g->sd;
	cell[COL_P95].number = (double)percentile(g->dur, g->n, 95);
	cell[COL_P99].number = (double)percentile(g->dur, g->n, 99);
	if (per_rank) {
		for (uint64_t i = 0; i < g->n; i++)
			cell[k + g->v[i].file].number += (double)g->v[i].dur;
		k += trex_index_file_count(c->idx);
	}
	if (c->copy_sized) {
		copy_cells(c, g, &cell[k]);
		k += ARRAY_LEN(bytes_cols);
	}
	for (const enum label *l = group_labels[c->opts->group]; *l != NLABEL && st == TREX_OK;
	     l++) {
		if (*l != L_ARGS || c->opts->args)
			st = label_cell(c, g, *l, t, &cell[k++], err);
	}
	return st;
}

/* The slice ids of each group, in row order (ascending: samples keep the
 * slice id order within a group). */
static enum trex_status fill_members(struct trex_kernel_members *m, const struct group *g,
                                     size_t ng)
{
	size_t total = 0;

	for (size_t i = 0; i < ng; i++)
		total += (size_t)g[i].n;
	m->ids = malloc((total ? total : 1) * sizeof(*m->ids));
	m->first = malloc((ng + 1) * sizeof(*m->first));
	if (!m->ids || !m->first)
		return TREX_NOMEM;
	m->nrows = ng;
	m->first[0] = 0;
	for (size_t i = 0; i < ng; i++) {
		uint32_t *out = m->ids + m->first[i];

		for (uint64_t j = 0; j < g[i].n; j++)
			out[j] = g[i].v[j].slice;
		m->first[i + 1] = m->first[i] + (size_t)g[i].n;
	}
	return TREX_OK;
}

static enum trex_status fill_table(struct ctx *c, struct trex_table *t, struct group *g, size_t ng,
                                   struct trex_error *err)
{
	__int128 grand = 0;
	enum trex_status st = TREX_OK;

	for (size_t i = 0; i < ng; i++) {
		grand += g[i].sum;
		set_labels(c, &g[i]);
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	for (size_t i = 0; i < ng && st == TREX_OK; i++)
		st = emit_row(c, t, &g[i], grand, err);
	if (st == TREX_OK && c->members)
		st = fill_members(c->members, g, ng);
	return st;
}

static enum trex_status compute(struct ctx *c, struct trex_table *t, struct trex_error *err)
{
	struct sample_vec sv = {NULL, 0, 0};
	struct grouping gr = {0};
	struct group *g = NULL;
	size_t ng = 0;
	/* the columns come after collecting: the bytes columns need the copies found */
	enum trex_status st = collect(c, &sv);

	if (st == TREX_OK)
		st = find_copy_bytes(c, &sv, err);
	if (st == TREX_OK)
		st = build_columns(c, t) ? TREX_OK : TREX_NOMEM;
	if (st == TREX_OK && c->opts->group == TREX_KERNELS_BY_OP)
		st = c->opts->ops ? take_ops(c->opts->ops, &sv) : assign_ops(c, &sv);
	if (st == TREX_OK)
		st = group_samples(sv.v, sv.n, &gr);
	free(sv.v);
	if (st == TREX_OK)
		st = make_groups(&gr, &g, &ng);
	if (st == TREX_OK)
		st = fill_table(c, t, g, ng, err);
	grouping_free(&gr);
	free(g);
	return st;
}

/* Nothing counted: the table says why. */
static enum trex_status empty_note(struct ctx *c, struct trex_table *t)
{
	char why[512];
	const char *note = why;

	if (t->nrows)
		return TREX_OK;
	if (c->opts->category)
		snprintf(why, sizeof(why), "no device work in category %s", c->opts->category);
	else
		note = trex_work_empty_reason(c->idx, &c->work,
		                              c->opts->memory ? TREX_WORK_WANT_DEVICE
		                                              : TREX_WORK_WANT_KERNELS,
		                              why, sizeof(why));
	if (note && !(t->note = trex_table_strdup(t, note, strlen(note))))
		return TREX_NOMEM;
	return TREX_OK;
}

enum trex_status trex_kernels_table(const struct trex_index *idx,
                                    const struct trex_kernel_opts *opts, struct trex_table *t,
                                    struct trex_error *err)
{
	return trex_kernels_table_members(idx, opts, t, NULL, err);
}

void trex_kernel_members_free(struct trex_kernel_members *m)
{
	if (!m)
		return;
	free(m->ids);
	free(m->first);
	*m = (struct trex_kernel_members){0};
}

enum trex_status trex_kernels_table_members(const struct trex_index *idx,
                                            const struct trex_kernel_opts *opts,
                                            struct trex_table *t,
                                            struct trex_kernel_members *members,
                                            struct trex_error *err)
{
	static const struct trex_kernel_opts defaults = {.group = TREX_KERNELS_BY_NAME};
	struct ctx c = {.idx = idx, .opts = opts ? opts : &defaults, .members = members};
	struct trex_catset *builtin = NULL;
	enum trex_status st;

	if (members)
		*members = (struct trex_kernel_members){0};

	trex_table_init(t, "kernels", stat_cols, NSTAT);
	if ((size_t)c.opts->group >= TREX_KERNELS_BY_COUNT)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "kernel summary: bad grouping");
	trex_work_count(idx, &c.work);
	st = category_filter(&c, &builtin, err);
	if (st == TREX_OK)
		st = compute(&c, t, err);
	if (st == TREX_OK)
		st = empty_note(&c, t);
	free(c.name_in_cat);
	trex_catset_free(builtin);
	free(c.anc_op);
	free(c.track_file);
	free(c.copy_ids);
	free(c.copy_bytes);
	if (st != TREX_OK) {
		trex_table_free(t);
		trex_kernel_members_free(members);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "kernel summary: out of memory");
		return st;
	}
	return TREX_OK;
}

/* ---- instances ---------------------------------------------------------------------------- */

static const struct trex_column instance_cols[] = {
    {"start_ns", "Start", TREX_COL_DURATION, false},
    {"dur_ns", "Duration", TREX_COL_DURATION, true},
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"device", "Device", TREX_COL_TEXT, false},
    {"stream", "Stream", TREX_COL_TEXT, false},
    {"shape", "Shape", TREX_COL_TEXT, false},
    {"name", "Name", TREX_COL_TEXT, false},
};
enum { I_START, I_DUR, I_RANK, I_DEVICE, I_STREAM, I_SHAPE, I_NAME };

static int cmp_instance(const struct trex_index *idx, uint32_t a, uint32_t b)
{
	const struct trex_slice *x = trex_index_slice(idx, a), *y = trex_index_slice(idx, b);

	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (a > b) - (a < b);
}

/* Bottom-up merge sort: qsort has no context argument in C17. */
static void sort_instances(const struct trex_index *idx, uint32_t *v, uint32_t *tmp, size_t n)
{
	uint32_t *src = v, *dst = tmp;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				dst[o++] =
				    cmp_instance(idx, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		uint32_t *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/* Process p's device label in t's arena, made once per process (devices
 * holds them): a label looks at every file and process. */
static const char *device_text(const struct trex_index *idx, uint32_t p, const char **devices,
                               struct trex_table *t)
{
	char buf[512];

	if (!devices[p])
		devices[p] = table_text(t, trex_device_label(idx, p, buf, sizeof(buf)));
	return devices[p];
}

static enum trex_status instance_row(const struct trex_index *idx, uint32_t id,
                                     const char **devices, struct trex_table *t)
{
	const struct trex_slice *s = trex_index_slice(idx, id);
	const struct trex_track *tr = trex_index_track(idx, s->track);
	union trex_cell *cell = trex_table_add_row(t);
	uint32_t shape = shape_of(idx, id);
	char buf[512];

	if (!cell)
		return TREX_NOMEM;
	cell[I_START].number = (double)(s->ts - trex_index_start(idx));
	cell[I_DUR].number = (double)s->dur;
	cell[I_RANK].count = trex_index_file(idx, trex_index_track_file(idx, s->track))->rank;
	cell[I_DEVICE].text = device_text(idx, tr->process, devices, t);
	cell[I_STREAM].text = table_text(t, trex_track_label(idx, s->track, buf, sizeof(buf)));
	cell[I_SHAPE].text = table_text(t, trex_index_str(idx, shape));
	cell[I_NAME].text = table_text(t, trex_index_str(idx, s->name));
	for (int c = I_DEVICE; c <= I_NAME; c++) {
		if (!cell[c].text)
			return TREX_NOMEM;
	}
	return TREX_OK;
}

enum trex_status trex_kernel_instances_table(const struct trex_index *idx, uint32_t *ids, size_t n,
                                             struct trex_table *t, struct trex_error *err)
{
	uint32_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	const char **devices = calloc(trex_index_process_count(idx) + 1, sizeof(*devices));
	enum trex_status st = tmp && devices ? TREX_OK : TREX_NOMEM;

	trex_table_init(t, "instances", instance_cols, ARRAY_LEN(instance_cols));
	if (tmp)
		sort_instances(idx, ids, tmp, n);
	free(tmp);
	for (size_t i = 0; i < n && st == TREX_OK; i++)
		st = instance_row(idx, ids[i], devices, t);
	free(devices);
	if (st != TREX_OK) {
		trex_table_free(t);
		return trex_error_set(err, st, NULL, -1, "kernel instances: out of memory");
	}
	return TREX_OK;
}
