/* The exporters' table, the scope rules they share and their output
 * buffer (trace_export.h). */
#include "config.h"

#include "trex/export/trace_export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "trex/analysis/table_order.h"
#include "trex/export/atomic_file.h"

static const struct trex_trace_exporter exporters[] = {
#define TREX_TRACE_EXPORT_ENTRY(id, name, ext, fn, summary) {name, ext, fn, summary},
    TREX_TRACE_EXPORTERS(TREX_TRACE_EXPORT_ENTRY)
#undef TREX_TRACE_EXPORT_ENTRY
};

#define EXPORTER_COUNT (sizeof(exporters) / sizeof(exporters[0]))

size_t trex_trace_exporter_count(void)
{
	return EXPORTER_COUNT;
}

const struct trex_trace_exporter *trex_trace_exporter_at(size_t i)
{
	return i < EXPORTER_COUNT ? &exporters[i] : NULL;
}

const struct trex_trace_exporter *trex_trace_exporter_named(const char *name)
{
	for (size_t i = 0; i < EXPORTER_COUNT; i++) {
		if (strcmp(exporters[i].name, name) == 0)
			return &exporters[i];
	}
	return NULL;
}

static bool ends_with(const char *s, size_t n, const char *suffix, size_t m)
{
	return n >= m && strncasecmp(s + n - m, suffix, m) == 0;
}

const struct trex_trace_exporter *trex_trace_exporter_for_path(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < EXPORTER_COUNT; i++) {
		const char *e = exporters[i].extensions;

		while (*e) {
			size_t m = strcspn(e, " ");

			if (ends_with(path, n, e, m))
				return &exporters[i];
			e += m + (e[m] == ' ');
		}
	}
	return NULL;
}

void trex_trace_exporter_names(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < EXPORTER_COUNT && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
		                         exporters[i].name);
}

enum trex_status trex_trace_export_check(const char *path, bool force, struct trex_error *err)
{
	return strcmp(path, "-") == 0 ? TREX_OK : trex_atomic_check(path, force, err);
}

/* ---- scope ---------------------------------------------------------------------------------- */

static bool rank_in(const struct trex_export_scope *s, int64_t rank)
{
	if (!s->nranks)
		return true;
	for (size_t i = 0; i < s->nranks; i++) {
		if (rank >= s->ranks[i].lo && rank <= s->ranks[i].hi)
			return true;
	}
	return false;
}

bool trex_export_track_in(const struct trex_index *idx, const struct trex_export_scope *s,
                          uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx, track);

	if (s->track_set && !s->track_set[track])
		return false;
	if (!rank_in(s, trex_index_process(idx, t->process)->rank))
		return false;
	if (!s->tracks)
		return true;
	return trex_regex_match(s->tracks, trex_index_str(idx, t->name ? t->name : t->tid));
}

bool trex_export_name_in(const struct trex_export_scope *s, const char *name)
{
	return !s->names || trex_regex_match(s->names, name);
}

const char *trex_clip_name(enum trex_clip c)
{
	static const char *const names[] = {"", "start", "end", "both"};

	return names[c & 3];
}

bool trex_export_time_in(const struct trex_export_scope *s, int64_t t)
{
	return !s->has_range || (t >= s->start && t <= s->end);
}

bool trex_export_clip(const struct trex_export_scope *s, int64_t ts, int64_t dur, int64_t *cts,
                      int64_t *cdur, enum trex_clip *clip)
{
	int64_t end = ts + dur; /* never overflows (index.h) */
	unsigned c = TREX_CLIP_NONE;

	*cts = ts;
	*cdur = dur;
	*clip = TREX_CLIP_NONE;
	if (!s->has_range)
		return true;
	if (dur == 0 ? !trex_export_time_in(s, ts) : end <= s->start || ts >= s->end)
		return false;
	if (ts < s->start) {
		ts = s->start;
		c |= TREX_CLIP_START;
	}
	if (end > s->end) {
		end = s->end;
		c |= TREX_CLIP_END;
	}
	*cts = ts;
	*cdur = end - ts;
	*clip = (enum trex_clip)c;
	return true;
}

/* ---- numbers -------------------------------------------------------------------------------- */

char *trex_fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *trex_fmt_i64(char *p, int64_t v)
{
	if (v >= 0)
		return trex_fmt_u64(p, (uint64_t)v);
	*p++ = '-';
	return trex_fmt_u64(p, (uint64_t)0 - (uint64_t)v);
}

char *trex_fmt_ns_as_us(char *p, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(mag % 1000);

	if (ns < 0)
		*p++ = '-';
	p = trex_fmt_u64(p, mag / 1000);
	if (frac) {
		*p++ = '.';
		*p++ = (char)('0' + frac / 100);
		frac %= 100;
		if (frac) {
			*p++ = (char)('0' + frac / 10);
			if (frac % 10)
				*p++ = (char)('0' + frac % 10);
		}
	}
	return p;
}

/* ---- output -----------------------------------------------------------------------------------
 */

struct wimpl {
	FILE *out;
	const char *path;
	bool gzip;
	z_stream z;
	unsigned char *zbuf;
	const struct trex_export_opts *opts;
	uint64_t bytes;
	enum trex_status st;
	struct trex_error err;
};

#define ZBUF_SIZE ((size_t)256 << 10)

static bool wimpl_fail(struct trex_wbuf *w, enum trex_status st, const char *what)
{
	struct wimpl *im = w->impl;

	if (!w->failed)
		im->st = trex_error_set(&im->err, st, im->path, -1, "%s", what);
	w->failed = true;
	return false;
}

static bool write_out(struct trex_wbuf *w, const void *p, size_t n)
{
	struct wimpl *im = w->impl;

	if (n && fwrite(p, 1, n, im->out) != n)
		return wimpl_fail(w, TREX_IO, strerror(errno));
	return true;
}

/* Deflates what is in z's input (flush: Z_NO_FLUSH or Z_FINISH). */
static bool deflate_out(struct trex_wbuf *w, int flush)
{
	struct wimpl *im = w->impl;
	int rc;

	do {
		im->z.next_out = im->zbuf;
		im->z.avail_out = (uInt)ZBUF_SIZE;
		rc = deflate(&im->z, flush);
		if (rc == Z_STREAM_ERROR)
			return wimpl_fail(w, TREX_IO, "gzip compression failed");
		if (!write_out(w, im->zbuf, ZBUF_SIZE - im->z.avail_out))
			return false;
	} while (im->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return true;
}

bool trex_wbuf_flush(struct trex_wbuf *w)
{
	struct wimpl *im = w->impl;
	size_t n = (size_t)(w->p - w->buf);

	if (w->failed)
		return false;
	if (im->gzip) {
		im->z.next_in = (unsigned char *)w->buf;
		im->z.avail_in = (uInt)n;
		if (!deflate_out(w, Z_NO_FLUSH))
			return false;
	} else if (!write_out(w, w->buf, n)) {
		return false;
	}
	im->bytes += n;
	w->p = w->buf;
	if (im->opts->progress) {
		struct trex_export_progress pr = {im->bytes, w->events, "", ""};

		if (im->opts->progress(im->opts->progress_user, &pr))
			return wimpl_fail(w, TREX_CANCELLED, "export cancelled");
	}
	return true;
}

bool trex_wbuf_put_slow(struct trex_wbuf *w, const void *s, size_t n)
{
	const char *p = s;

	while (n) {
		size_t room = (size_t)(w->end - w->p), k = n < room ? n : room;

		memcpy(w->p, p, k);
		w->p += k;
		p += k;
		n -= k;
		if (n && !trex_wbuf_flush(w))
			return false;
	}
	return true;
}

enum trex_status trex_wbuf_status(const struct trex_wbuf *w, struct trex_error *err)
{
	const struct wimpl *im = w->impl;

	if (!w->failed)
		return TREX_OK;
	*err = im->err;
	return im->st;
}

static enum trex_status wimpl_open(struct wimpl *im, struct trex_wbuf *w, struct trex_error *err)
{
	w->buf = malloc(TREX_WBUF_SIZE);
	w->p = w->buf;
	w->end = w->buf + TREX_WBUF_SIZE;
	w->impl = im;
	if (!w->buf)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (!im->gzip)
		return TREX_OK;
	im->zbuf = malloc(ZBUF_SIZE);
	/* level 1: gzip that keeps up with the writers; 16 + 15: a gzip header */
	if (!im->zbuf ||
	    deflateInit2(&im->z, 1, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(im->zbuf);
		im->zbuf = NULL;
		im->gzip = false;
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	return TREX_OK;
}

/* Flushes what is left (and ends the gzip stream); frees the buffers. */
static bool wimpl_finish(struct wimpl *im, struct trex_wbuf *w, bool ok)
{
	ok = ok && trex_wbuf_flush(w);
	if (im->gzip) {
		ok = ok && deflate_out(w, Z_FINISH);
		deflateEnd(&im->z);
		free(im->zbuf);
	}
	free(w->buf);
	return ok;
}

/* Opens path for writing ("-": standard output). */
static enum trex_status open_target(const char *path, bool force, struct trex_atomic_file **af,
                                    FILE **out, struct trex_error *err)
{
	*af = NULL;
	if (strcmp(path, "-") == 0) {
		*out = stdout;
		return TREX_OK;
	}
	return trex_atomic_open(path, force, af, out, err);
}

enum trex_status trex_export_to_path(const struct trex_index *idx, const char *path, bool gzip,
                                     const struct trex_export_opts *opts, trex_wbuf_write_fn *fn,
                                     struct trex_export_progress *done, struct trex_error *err)
{
	struct wimpl im = {.path = path, .gzip = gzip, .opts = opts, .st = TREX_OK};
	struct trex_wbuf w = {0};
	struct trex_atomic_file *af;
	enum trex_status st = open_target(path, opts->force, &af, &im.out, err);

	if (st != TREX_OK)
		return st;
	st = wimpl_open(&im, &w, err);
	if (st == TREX_OK)
		st = fn(&w, idx, opts, err);
	if (!wimpl_finish(&im, &w, st == TREX_OK) && st == TREX_OK)
		st = trex_wbuf_status(&w, err);
	if (st == TREX_OK && !af && fflush(im.out) != 0)
		st = trex_error_set(err, TREX_IO, "standard output", -1, "write error: %s",
		                    strerror(errno));
	if (af && st == TREX_OK)
		st = trex_atomic_commit(af, err);
	else if (af)
		trex_atomic_abort(af);
	if (done)
		*done = (struct trex_export_progress){im.bytes, w.events, "", ""};
	return st;
}
