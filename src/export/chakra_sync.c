/* Cross-stream waits and host synchronizations of a GPU trace as Chakra
 * dependencies (chakra_link.h, cw_sync_deps_build). */
#include "config.h"

#include "chakra_link.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/kind.h"

#define CWS_NONE UINT32_MAX

/* Work with a correlation id, ordered by (track, correlation). */
struct cws_ord {
	uint32_t track;
	uint32_t id;
	int64_t corr;
};

/* A stream with work: its entries in the ordered list. */
struct cws_stream {
	uint32_t track, process;
	int64_t stream;
	size_t lo, hi;
};

struct cws_edge {
	uint64_t to, from; /* to waits for from (node ids) */
};

struct cws {
	const struct trex_index *idx;
	struct cws_ord *ord;
	struct cws_stream *streams;
	size_t nstreams;
	struct cws_edge *edges;
	size_t nedges, cap;
	int64_t first_corr, last_corr; /* of the work: syncs outside take no part */
	bool oom;
};

static int cws_ord_cmp(const void *a, const void *b)
{
	const struct cws_ord *x = a, *y = b;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cws_edge_cmp(const void *a, const void *b)
{
	const struct cws_edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The last work of stream s launched before corr (CWS_NONE: none). */
static uint32_t cws_last_before(const struct cws *c, const struct cws_stream *s, int64_t corr)
{
	size_t lo = s->lo, hi = s->hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ord[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > s->lo ? c->ord[lo - 1].id : CWS_NONE;
}

/* The first work of stream s launched after corr (CWS_NONE: none). */
static uint32_t cws_first_after(const struct cws *c, const struct cws_stream *s, int64_t corr)
{
	size_t lo = s->lo, hi = s->hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ord[mid].corr <= corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->hi ? c->ord[lo].id : CWS_NONE;
}

static const struct cws_stream *cws_stream_of(const struct cws *c, uint32_t process, int64_t stream)
{
	for (size_t i = 0; i < c->nstreams; i++)
		if (c->streams[i].process == process && c->streams[i].stream == stream)
			return &c->streams[i];
	return NULL;
}

/* Adds "to waits for from" when both exist, lie on different streams and
 * from comes first; true when added. */
static bool cws_edge(struct cws *c, uint32_t to, uint32_t from, uint32_t to_track,
                     uint32_t from_track)
{
	if (to == CWS_NONE || from == CWS_NONE || to_track == from_track || from >= to)
		return false;
	if (c->nedges == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		void *p = realloc(c->edges, cap * sizeof(*c->edges));
		if (!p) {
			c->oom = true;
			return false;
		}
		c->edges = p;
		c->cap = cap;
	}
	c->edges[c->nedges++] = (struct cws_edge){to, from};
	return true;
}

/* The first work launched after corr on every stream waits for the work
 * of the targets (one per stream; CWS_NONE where a stream has none). */
static bool cws_host_sync(struct cws *c, int64_t corr, const uint32_t *target)
{
	bool any = false;
	for (size_t i = 0; i < c->nstreams; i++) {
		uint32_t to = cws_first_after(c, &c->streams[i], corr);
		for (size_t j = 0; j < c->nstreams; j++)
			any |= cws_edge(c, to, target[j], c->streams[i].track, c->streams[j].track);
	}
	return any;
}

/* One synchronization, as its cuda_sync args say (corr: its own
 * correlation). Returns whether it added a dependency; *wait whether it
 * is a stream wait. */
struct cws_sync {
	const char *kind;
	int64_t corr, stream, wait_stream, record_corr;
	uint32_t process;
};

static bool cws_apply(struct cws *c, const struct cws_sync *y, uint32_t *target, bool *wait)
{
	bool device = strcmp(y->kind, "Context Sync") == 0 || strcmp(y->kind, "Device Sync") == 0;
	const struct cws_stream *w = cws_stream_of(
	    c, y->process, strcmp(y->kind, "Stream Sync") == 0 ? y->stream : y->wait_stream);
	int64_t before = strcmp(y->kind, "Stream Sync") == 0 ? y->corr : y->record_corr;

	*wait = strcmp(y->kind, "Stream Wait Event") == 0;
	for (size_t i = 0; i < c->nstreams; i++)
		target[i] = CWS_NONE;
	if (*wait) {
		const struct cws_stream *s = cws_stream_of(c, y->process, y->stream);
		return s && w && y->record_corr >= 0 &&
		       cws_edge(c, cws_first_after(c, s, y->corr), cws_last_before(c, w, before),
		                s->track, w->track);
	}
	if (device) {
		for (size_t i = 0; i < c->nstreams; i++)
			target[i] = cws_last_before(c, &c->streams[i], y->corr);
	} else if (w && before >= 0) {
		target[w - c->streams] = cws_last_before(c, w, before);
	}
	return cws_host_sync(c, y->corr, target);
}

static int64_t cws_num(const struct trex_args *a, const char *key, int64_t missing)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0) {
			long long v = strtoll(a->v[i].value, NULL, 10);
			return v == 4294967295LL ? -1 : v; /* -1 written as 32-bit unsigned */
		}
	return missing;
}

static const char *cws_str(const struct trex_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return a->v[i].value;
	return "";
}

/* The string ids of the runtime calls that synchronize a whole device
 * (TREX_STR_ERROR where the trace never names one). */
static void cws_device_sync_names(const struct trex_index *idx, uint32_t ids[3])
{
	static const char *const names[3] = {"cudaDeviceSynchronize", "hipDeviceSynchronize",
	                                     "cudaCtxSynchronize"};
	for (int i = 0; i < 3; i++)
		ids[i] = trex_strtab_find(trex_index_strings(idx), names[i], strlen(names[i]));
}

static enum trex_status cws_slice(struct cws *c, uint32_t file, uint32_t slice, bool from_runtime,
                                  uint32_t *target, struct cw_sync_deps *d, struct trex_error *err)
{
	const struct trex_slice *s = trex_index_slice(c->idx, slice);
	struct cws_sync y = {
	    "Context Sync", -1, -1, -1, -1, trex_index_track(c->idx, s->track)->process};
	struct trex_args a = {0};
	bool wait, added;

	if (from_runtime) {
		if (!(s->flags & TREX_SLICE_HAS_LAUNCH_LINK))
			return TREX_OK;
		y.corr = trex_slice_launch_link(c->idx, slice);
	} else {
		enum trex_status st = trex_index_args(c->idx, file, s->args, &a, NULL, err);
		if (st != TREX_OK)
			return st;
		y.kind = cws_str(&a, "cuda_sync_kind");
		y.corr = cws_num(&a, "correlation", -1);
		y.stream = cws_num(&a, "stream", -1);
		y.wait_stream = cws_num(&a, "wait_on_stream", -1);
		y.record_corr = cws_num(&a, "wait_on_cuda_event_record_corr_id", -1);
	}
	if (y.corr < c->first_corr || y.corr > c->last_corr) {
		trex_args_free(&a);
		return TREX_OK; /* before or after all the work written: nothing to order */
	}
	added = cws_apply(c, &y, target, &wait);
	if (added)
		*(wait ? &d->waits : &d->syncs) += 1;
	else
		d->unmatched++;
	trex_args_free(&a);
	return TREX_OK;
}

/* The synchronizations of file: its cuda_sync slices, else its
 * device-wide synchronization calls (*n of them, malloc'd; NULL on no
 * memory). */
static uint32_t *cws_find(const struct trex_index *idx, uint32_t file, size_t *n,
                          bool *from_runtime)
{
	uint32_t *v = NULL, names[3];
	size_t cap = 0;

	*n = 0;
	cws_device_sync_names(idx, names);
	bool named =
	    names[0] != TREX_STR_ERROR || names[1] != TREX_STR_ERROR || names[2] != TREX_STR_ERROR;
	for (int pass = 0; pass < 1 + named && *n == 0; pass++) {
		*from_runtime = pass == 1;
		for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
			const struct trex_track *tr = trex_index_track(idx, t);
			/* cuda_sync slices lie on device queues, runtime calls on threads */
			if (trex_index_track_file(idx, t) != file ||
			    (tr->kind == TREX_TRACK_GPU) != (pass == 0))
				continue;
			for (uint32_t i = tr->first_slice; i < tr->first_slice + tr->slice_count;
			     i++) {
				const struct trex_slice *s = trex_index_slice(idx, i);
				bool hit = pass == 0
				               ? s->kind == TREX_KIND_GPU_SYNC
				               : s->kind == TREX_KIND_RUNTIME &&
				                     (s->name == names[0] || s->name == names[1] ||
				                      s->name == names[2]);
				if (!hit)
					continue;
				if (*n == cap) {
					cap = cap ? 2 * cap : 64;
					uint32_t *p = realloc(v, cap * sizeof(*v));
					if (!p) {
						free(v);
						*n = 0;
						return NULL;
					}
					v = p;
				}
				v[(*n)++] = i;
			}
		}
	}
	return v ? v : malloc(1);
}

/* Every synchronization of file as dependencies. */
static enum trex_status cws_scan(struct cws *c, const uint32_t *syncs, size_t nsyncs,
                                 bool from_runtime, uint32_t file, struct cw_sync_deps *d,
                                 struct trex_error *err)
{
	uint32_t *target = malloc((c->nstreams ? c->nstreams : 1) * sizeof(*target));
	enum trex_status st =
	    target ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");

	for (size_t i = 0; st == TREX_OK && i < nsyncs; i++)
		st = cws_slice(c, file, syncs[i], from_runtime, target, d, err);
	free(target);
	return st;
}

/* The ordered list and its streams. */
static bool cws_index(struct cws *c, const struct cw_work *work, size_t n)
{
	size_t m = 0;

	c->ord = malloc((n ? n : 1) * sizeof(*c->ord));
	c->streams = malloc((n ? n : 1) * sizeof(*c->streams));
	if (!c->ord || !c->streams)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, work[i].slice);
		if (s->flags & TREX_SLICE_HAS_LAUNCH_LINK)
			c->ord[m++] =
			    (struct cws_ord){work[i].track, (uint32_t)i,
			                     trex_slice_launch_link(c->idx, work[i].slice)};
	}
	qsort(c->ord, m, sizeof(*c->ord), cws_ord_cmp);
	c->first_corr = INT64_MAX;
	c->last_corr = -1;
	for (size_t i = 0; i < m; i++) {
		c->first_corr = c->ord[i].corr < c->first_corr ? c->ord[i].corr : c->first_corr;
		c->last_corr = c->ord[i].corr > c->last_corr ? c->ord[i].corr : c->last_corr;
		if (i == 0 || c->ord[i].track != c->ord[i - 1].track) {
			const struct trex_track *tr = trex_index_track(c->idx, c->ord[i].track);
			c->streams[c->nstreams++] =
			    (struct cws_stream){c->ord[i].track, tr->process, tr->tid_num, i, i};
		}
		c->streams[c->nstreams - 1].hi = i + 1;
	}
	return true;
}

/* The edges as d->first / d->dep, deduplicated. */
static bool cws_compress(struct cws *c, size_t n, struct cw_sync_deps *d)
{
	size_t k = 0;

	d->first = calloc(n + 1, sizeof(*d->first));
	d->dep = malloc((c->nedges ? c->nedges : 1) * sizeof(*d->dep));
	if (!d->first || !d->dep)
		return false;
	if (c->nedges) /* qsort wants a pointer even for nothing */
		qsort(c->edges, c->nedges, sizeof(*c->edges), cws_edge_cmp);
	for (size_t i = 0; i < c->nedges; i++) {
		if (i && c->edges[i].to == c->edges[i - 1].to &&
		    c->edges[i].from == c->edges[i - 1].from)
			continue;
		d->dep[k++] = c->edges[i].from;
		d->first[c->edges[i].to + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		d->first[i + 1] += d->first[i];
	d->edges = k;
	return true;
}

enum trex_status cw_sync_deps_build(const struct trex_index *idx, uint32_t file,
                                    const struct cw_work *work, size_t n, struct cw_sync_deps *d,
                                    struct trex_error *err)
{
	struct cws c = {.idx = idx};
	enum trex_status st = TREX_OK;

	size_t nsyncs;
	bool from_runtime;
	uint32_t *syncs = cws_find(idx, file, &nsyncs, &from_runtime);

	memset(d, 0, sizeof(*d));
	if (!syncs)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (nsyncs == 0) {
		free(syncs);
		return TREX_OK; /* nothing beyond stream order: d->first stays NULL */
	}
	if (!cws_index(&c, work, n))
		c.oom = true;
	if (!c.oom)
		st = cws_scan(&c, syncs, nsyncs, from_runtime, file, d, err);
	free(syncs);
	if (st == TREX_OK && !c.oom && !cws_compress(&c, n, d))
		c.oom = true;
	free(c.ord);
	free(c.streams);
	free(c.edges);
	if (st == TREX_OK && c.oom)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (st != TREX_OK)
		cw_sync_deps_free(d);
	return st;
}

void cw_sync_deps_free(struct cw_sync_deps *d)
{
	free(d->first);
	free(d->dep);
	d->first = NULL;
	d->dep = NULL;
}
