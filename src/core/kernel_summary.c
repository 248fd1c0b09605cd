/* Per-file kernel summaries (kernel_summary.h): made from an index,
 * encoded for an index file, decoded and checked. */
#include "config.h"

#include "trex/core/kernel_summary.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#include "builder_internal.h"

#define KSUM_MAGIC 0x314d55534b584552ull /* "REXKSUM1" */

struct enc_head {
	uint64_t magic;
	uint32_t nfiles, pad;
	uint64_t nrows, text_len, dur_len;
};

struct enc_file {
	int64_t rank;
	uint64_t events;
	uint64_t first_row, nrows;
	uint8_t has_rank, lost_data, pad[6];
};

struct enc_row {
	uint64_t n;
	int64_t min, max;
	uint64_t sum[2], sumsq[2]; /* low, high 64 bits */
	uint64_t name_at, name_len, durs_at;
	uint32_t width, sumsq_overflow;
};

static size_t pad8(size_t n)
{
	return (n + 7) / 8 * 8;
}

/* ---- making ------------------------------------------------------------------------------ */

/* One kernel: sorted by file, name id, duration. */
struct kentry {
	uint32_t file, name;
	int64_t dur;
};

/* A (file, name) pair's kernels: how many, and where they go. */
struct kgroup {
	uint32_t file, name;
	size_t count, at;
};

static int cmp_kgroup(const void *a, const void *b)
{
	const struct kgroup *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

/* The groups of (file, name) pairs, numbered through a key map. */
struct kgroups {
	struct kgroup *g;
	size_t n, cap;
	struct trex_kmap map;
};

/* The number of (file, name)'s group, made when new; UINT32_MAX: no memory. */
static uint32_t kgroup_of(struct kgroups *t, uint32_t file, uint32_t name)
{
	uint32_t *slot = trex_kmap_insert(&t->map, file, name, 0);

	if (!slot)
		return UINT32_MAX;
	if (*slot != TREX_NONE)
		return *slot;
	struct kgroup *g = trex_grow(t->g, &t->cap, t->n + 1, sizeof(*g), 256);

	if (!g)
		return UINT32_MAX;
	t->g = g;
	t->g[t->n] = (struct kgroup){file, name, 0, 0};
	*slot = (uint32_t)t->n;
	return (uint32_t)t->n++;
}

/* v[0, n) by duration, ascending: LSD radix sort of the durations' bytes
 * (sign bit flipped), skipping the bytes every duration shares; tmp holds
 * n entries. */
static void sort_by_dur(struct kentry *v, size_t n, struct kentry *tmp)
{
	static const uint64_t flip = (uint64_t)1 << 63;
	size_t hist[8][256] = {{0}};

	for (size_t i = 0; i < n; i++) {
		uint64_t k = (uint64_t)v[i].dur ^ flip;

		for (unsigned b = 0; b < 8; b++)
			hist[b][(k >> (8 * b)) & 0xff]++;
	}
	for (unsigned b = 0; b < 8; b++) {
		size_t at = 0;
		uint64_t k0 = ((uint64_t)v[0].dur ^ flip) >> (8 * b) & 0xff;

		if (hist[b][k0] == n)
			continue; /* one value of this byte: the pass would move nothing */
		for (unsigned d = 0; d < 256; d++) {
			size_t c = hist[b][d];

			hist[b][d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[hist[b][(((uint64_t)v[i].dur ^ flip) >> (8 * b)) & 0xff]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* Small groups: insertion sort by duration. */
static void sort_small(struct kentry *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct kentry x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].dur > x.dur; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Orders the groups by (file, name) and sets each one's at to where its
 * kernels start; rank[g]: the place of group number g in that order. */
static void order_groups(struct kgroups *t, uint32_t *rank)
{
	size_t at = 0;

	for (size_t i = 0; i < t->n; i++)
		t->g[i].at = i; /* the group's number, kept through the sort */
	if (t->n > 1)           /* qsort of NULL, even of nothing, is undefined */
		qsort(t->g, t->n, sizeof(*t->g), cmp_kgroup);
	for (size_t i = 0; i < t->n; i++) {
		rank[t->g[i].at] = (uint32_t)i;
		t->g[i].at = at;
		at += t->g[i].count;
	}
}

/* Each group's run of v (in group order) sorted by duration. */
static bool sort_groups(const struct kgroups *t, struct kentry *v)
{
	size_t most = 1;
	struct kentry *tmp;

	for (size_t i = 0; i < t->n; i++)
		most = t->g[i].count > most ? t->g[i].count : most;
	if (!(tmp = malloc(most * sizeof(*tmp))))
		return false;
	for (size_t i = 0, from = 0; i < t->n; from += t->g[i++].count) {
		if (t->g[i].count <= 32)
			sort_small(v + from, t->g[i].count);
		else
			sort_by_dur(v + from, t->g[i].count, tmp);
	}
	free(tmp);
	return true;
}

/* The index's kernels sorted by file, name id and duration (the rows'
 * order): grouped by (file, name) through a key map, placed group by
 * group, then each group sorted by duration, where one comparison sort of
 * them all cost as much as writing the rest of the index file. NULL: no
 * memory. */
static struct kentry *kernels_sorted(const struct trex_index *idx, size_t *count)
{
	uint32_t n = trex_index_slice_count(idx);
	struct kgroups t = {0};
	struct kentry *v = NULL;
	uint32_t *group = NULL, *rank = NULL;
	size_t k = 0;
	bool ok;

	for (uint32_t i = 0; i < n; i++)
		k += trex_index_slice(idx, i)->kind == TREX_KIND_KERNEL;
	ok = (v = malloc((k ? k : 1) * sizeof(*v))) &&
	     (group = malloc((k ? k : 1) * sizeof(*group)));
	k = 0;
	for (uint32_t i = 0; ok && i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		if (s->kind != TREX_KIND_KERNEL)
			continue;
		group[k] = kgroup_of(&t, trex_index_track_file(idx, s->track), s->name);
		ok = group[k] != UINT32_MAX;
		if (ok)
			t.g[group[k++]].count++;
	}
	ok = ok && (rank = malloc((t.n ? t.n : 1) * sizeof(*rank)));
	if (ok) {
		order_groups(&t, rank);
		k = 0;
		for (uint32_t i = 0; i < n; i++) {
			const struct trex_slice *s = trex_index_slice(idx, i);
			struct kgroup *g;

			if (s->kind != TREX_KIND_KERNEL)
				continue;
			g = &t.g[rank[group[k++]]];
			v[g->at++] = (struct kentry){g->file, g->name, s->dur};
		}
		ok = sort_groups(&t, v);
	}
	free(group);
	free(rank);
	free(t.g);
	trex_kmap_free(&t.map);
	if (!ok) {
		free(v);
		return NULL;
	}
	*count = k;
	return v;
}

/* The end of the run of entries sharing v[at]'s file and name. */
static size_t run_end(const struct kentry *v, size_t n, size_t at)
{
	size_t e = at + 1;

	while (e < n && v[e].file == v[at].file && v[e].name == v[at].name)
		e++;
	return e;
}

static unsigned width_of(const struct kentry *v, size_t from, size_t to)
{
	return v[from].dur >= 0 && v[to - 1].dur <= (int64_t)UINT32_MAX ? 4 : 8;
}

/* Row sizes: *rows, *text and *durs bytes the encoding needs. */
static void measure(const struct trex_index *idx, const struct kentry *v, size_t n, size_t *rows,
                    size_t *text, size_t *durs)
{
	*rows = *text = *durs = 0;
	for (size_t at = 0, e; at < n; at = e) {
		size_t len;

		e = run_end(v, n, at);
		trex_strtab_get(trex_index_strings(idx), v[at].name, &len);
		(*rows)++;
		*text += pad8(len + 1);
		*durs += pad8((e - at) * width_of(v, at, e));
	}
}

static void put_u128(uint64_t out[2], __int128 v)
{
	out[0] = (uint64_t)v;
	out[1] = (uint64_t)((unsigned __int128)v >> 64);
}

static __int128 get_u128(const uint64_t in[2])
{
	return (__int128)((unsigned __int128)in[1] << 64 | in[0]);
}

/* The row of entries v[from..to) at r, its name and durations written at
 * base + *tat and base + *dat; the row holds them as offsets into the text
 * and the durations (which begin at text_at and durs_at). */
static void fill_row(const struct trex_index *idx, const struct kentry *v, size_t from, size_t to,
                     struct enc_row *r, unsigned char *base, const size_t region[2], size_t *tat,
                     size_t *dat)
{
	size_t len;
	const char *name = trex_strtab_get(trex_index_strings(idx), v[from].name, &len);
	__int128 sum = 0, sq = 0;
	bool overflow = false;

	memset(r, 0, sizeof(*r));
	r->n = to - from;
	r->min = v[from].dur;
	r->max = v[to - 1].dur;
	r->width = width_of(v, from, to);
	r->name_at = *tat - region[0];
	r->name_len = len;
	memcpy(base + *tat, name, len);
	*tat += pad8(len + 1);
	r->durs_at = *dat - region[1];
	for (size_t i = from; i < to; i++) {
		sum += v[i].dur;
		overflow =
		    overflow || __builtin_add_overflow(sq, (__int128)v[i].dur * v[i].dur, &sq);
		if (r->width == 4) {
			uint32_t d = (uint32_t)v[i].dur;

			memcpy(base + *dat + (i - from) * 4, &d, 4);
		} else {
			memcpy(base + *dat + (i - from) * 8, &v[i].dur, 8);
		}
	}
	*dat += pad8(r->n * r->width);
	put_u128(r->sum, sum);
	put_u128(r->sumsq, overflow ? 0 : sq);
	r->sumsq_overflow = overflow;
}

static void fill_files(const struct trex_index *idx, const struct kentry *v, size_t n,
                       struct enc_file *files)
{
	uint32_t nfiles = trex_index_file_count(idx);
	size_t row = 0, at = 0;

	for (uint32_t f = 0; f < nfiles; f++) {
		const struct trex_file *file = trex_index_file(idx, f);

		files[f] = (struct enc_file){.rank = file->rank,
		                             .events = file->events,
		                             .first_row = row,
		                             .has_rank = file->has_rank != 0,
		                             .lost_data = file->truncated ||
		                                          trex_integrity_damaged(&file->integrity)};
		for (; at < n && v[at].file == f; at = run_end(v, n, at))
			row++;
		files[f].nrows = row - files[f].first_row;
	}
}

enum trex_status trex_ksum_encode(const struct trex_index *idx, void **out, size_t *len,
                                  struct trex_error *err)
{
	uint32_t nfiles = trex_index_file_count(idx);
	size_t n = 0, nrows, text, durs, total, tat, dat, row = 0, region[2];
	struct kentry *v = kernels_sorted(idx, &n);
	struct enc_head head = {KSUM_MAGIC, nfiles, 0, 0, 0, 0};
	unsigned char *p = NULL;

	*out = NULL;
	if (v) {
		measure(idx, v, n, &nrows, &text, &durs);
		head.nrows = nrows;
		head.text_len = text;
		head.dur_len = durs;
		tat = sizeof(head) + nfiles * sizeof(struct enc_file) +
		      nrows * sizeof(struct enc_row);
		dat = tat + text;
		total = dat + durs;
		region[0] = tat;
		region[1] = dat;
		p = calloc(1, total);
	}
	if (!p) {
		free(v);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "kernel summary: out of memory");
	}
	memcpy(p, &head, sizeof(head));
	fill_files(idx, v, n, (struct enc_file *)(p + sizeof(head)));
	for (size_t at = 0, e; at < n; at = e, row++) {
		struct enc_row r;

		e = run_end(v, n, at);
		fill_row(idx, v, at, e, &r, p, region, &tat, &dat);
		memcpy(p + sizeof(head) + nfiles * sizeof(struct enc_file) + row * sizeof(r), &r,
		       sizeof(r));
	}
	free(v);
	*out = p;
	*len = total;
	return TREX_OK;
}

/* ---- reading ----------------------------------------------------------------------------- */

uint64_t trex_ksum_count_le(const struct trex_ksum_row *r, int64_t v)
{
	uint64_t lo = 0, hi = r->n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (trex_ksum_dur(r, mid) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct decoder {
	const unsigned char *data;
	size_t len;
	struct enc_head head;
	size_t rows_at, text_at, durs_at;
};

static bool range_ok(uint64_t at, uint64_t n, uint64_t limit)
{
	return at <= limit && n <= limit - at;
}

/* The durations agree with the row's count, sum, squares, min and max. */
static bool durs_ok(const struct trex_ksum_row *r)
{
	__int128 sum = 0, sq = 0;
	bool overflow = false;
	int64_t prev = trex_ksum_dur(r, 0);

	for (uint64_t i = 0; i < r->n; i++) {
		int64_t d = trex_ksum_dur(r, i);

		if (d < prev)
			return false;
		prev = d;
		sum += d;
		overflow = overflow || __builtin_add_overflow(sq, (__int128)d * d, &sq);
	}
	return r->min == trex_ksum_dur(r, 0) && r->max == prev && sum == r->sum &&
	       overflow == r->sumsq_overflow && (overflow || sq == r->sumsq);
}

static bool decode_row(const struct decoder *d, size_t i, struct trex_ksum_row *out)
{
	struct enc_row r;
	const unsigned char *name;

	memcpy(&r, d->data + d->rows_at + i * sizeof(r), sizeof(r));
	if (r.n == 0 || (r.width != 4 && r.width != 8) || r.sumsq_overflow > 1 ||
	    r.name_len >= d->head.text_len ||
	    !range_ok(r.name_at, r.name_len + 1, d->head.text_len) ||
	    r.n > d->head.dur_len / r.width ||
	    !range_ok(r.durs_at, r.n * r.width, d->head.dur_len) || r.durs_at % 8)
		return false;
	name = d->data + d->text_at + r.name_at;
	if (name[r.name_len] != '\0' || memchr(name, '\0', r.name_len))
		return false;
	*out = (struct trex_ksum_row){(const char *)name,
	                              r.name_len,
	                              r.n,
	                              r.min,
	                              r.max,
	                              get_u128(r.sum),
	                              get_u128(r.sumsq),
	                              r.sumsq_overflow != 0,
	                              d->data + d->durs_at + r.durs_at,
	                              r.width};
	return durs_ok(out);
}

static bool decode_files(const struct decoder *d, struct trex_ksum *out)
{
	uint64_t next = 0;

	for (uint32_t f = 0; f < out->nfiles; f++) {
		struct enc_file e;

		memcpy(&e, d->data + sizeof(d->head) + f * sizeof(e), sizeof(e));
		if (e.first_row != next || e.nrows > d->head.nrows - next || e.has_rank > 1 ||
		    e.lost_data > 1)
			return false;
		out->files[f] = (struct trex_ksum_file){e.rank,   e.has_rank != 0, e.lost_data != 0,
		                                        e.events, e.first_row,     e.nrows};
		next += e.nrows;
	}
	return next == d->head.nrows;
}

static bool decode_head(struct decoder *d)
{
	uint64_t at = sizeof(d->head);

	if (d->len < sizeof(d->head) || (uintptr_t)d->data % 8)
		return false;
	memcpy(&d->head, d->data, sizeof(d->head));
	if (d->head.magic != KSUM_MAGIC || d->head.nfiles > d->len / sizeof(struct enc_file) ||
	    d->head.nrows > d->len / sizeof(struct enc_row))
		return false;
	at += d->head.nfiles * sizeof(struct enc_file);
	d->rows_at = at;
	at += d->head.nrows * sizeof(struct enc_row);
	d->text_at = at;
	if (!range_ok(at, d->head.text_len, d->len) || d->head.text_len % 8)
		return false;
	at += d->head.text_len;
	d->durs_at = at;
	return d->head.dur_len == d->len - at && at <= d->len;
}

enum trex_status trex_ksum_decode(const void *data, size_t len, const char *name,
                                  struct trex_ksum *out, struct trex_error *err)
{
	struct decoder d = {.data = data, .len = len};
	bool ok = decode_head(&d);

	memset(out, 0, sizeof(*out));
	if (ok) {
		out->nfiles = d.head.nfiles;
		out->nrows = d.head.nrows;
		out->files = calloc(out->nfiles ? out->nfiles : 1, sizeof(*out->files));
		out->rows = calloc(out->nrows ? out->nrows : 1, sizeof(*out->rows));
		if (!out->files || !out->rows) {
			trex_ksum_free(out);
			return trex_error_set(err, TREX_NOMEM, NULL, -1,
			                      "kernel summary: out of memory");
		}
		ok = decode_files(&d, out);
	}
	for (size_t i = 0; ok && i < out->nrows; i++)
		ok = decode_row(&d, i, &out->rows[i]);
	if (!ok) {
		trex_ksum_free(out);
		return trex_error_set(err, TREX_FORMAT, name, -1, "damaged kernel summary");
	}
	return TREX_OK;
}

enum trex_status trex_ksum_of_index(const struct trex_index *idx, struct trex_ksum *out,
                                    struct trex_error *err)
{
	void *bytes;
	size_t len;
	enum trex_status st = trex_ksum_encode(idx, &bytes, &len, err);

	memset(out, 0, sizeof(*out));
	if (st == TREX_OK)
		st = trex_ksum_decode(bytes, len, "(kernel summary)", out, err);
	if (st == TREX_OK)
		out->owned = bytes;
	else
		free(bytes);
	return st;
}

void trex_ksum_free(struct trex_ksum *s)
{
	if (!s)
		return;
	free(s->files);
	free(s->rows);
	free(s->owned);
	memset(s, 0, sizeof(*s));
}
