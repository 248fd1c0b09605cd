/* Input sources. Every source is one byte range held in memory (a read-only
 * mapping, an owned copy or borrowed bytes). gzip is inflated from that range
 * with ISA-L when configure found it (about three times zlib's speed, see
 * gzip_isal.h), else with zlib; access points recorded on the way (zlib's
 * examples/zran.c; whole ISA-L decoder states) let a later random read resume
 * near its offset instead of at the start. */
#include "config.h"

#include "trex/load/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZLIB_CONST
#include <zlib.h>

#if HAVE_ISAL
#include "gzip_isal.h"
#endif

/* Decoded bytes between access points: a random read inflates at most about
 * this much before its offset, and each point keeps a 32 KiB window. */
#define TREX_SOURCE_POINT_SPAN ((uint64_t)4 << 20)

enum {
	GZ_AUTO_BITS = 15 + 32, /* gzip or zlib header, told apart by inflate */
#if !HAVE_ISAL
	GZ_RAW_BITS = -15, /* bare deflate: resuming inside a member */
	GZ_TRAILER = 8,    /* CRC-32 and ISIZE closing each gzip member */
#endif
	PEEK_MAX = 64,
	READ_BLOCK = 1 << 20,   /* first read() size when a file cannot be mapped */
	SCRATCH_SIZE = 1 << 16, /* decoded bytes that are only counted or skipped */
	DEFAULT_CHUNK = 4 << 20,
	QUEUE_SLOTS = 4,         /* how far the background producer decodes ahead */
	PRODUCER_STEP = 1 << 20, /* the producer checks for close this often */
};

/* A place where inflate can resume: zran.c's point, or with ISA-L the
 * whole decoder state there. */
struct access_point {
	uint64_t out; /* decoded offset */
#if HAVE_ISAL
	struct trex_igz_snap *snap;
#else
	size_t in; /* compressed offset of the first whole byte to read */
	int bits;  /* 1-7: that many high bits of byte in-1 come first */
	unsigned dict_len;
	unsigned char *dict; /* decoded bytes before out, for back-references */
#endif
};

struct trex_source {
	char *name;
	const unsigned char *bytes; /* the whole input, compressed or not */
	size_t len;
	void *map; /* munmap()ed on close when the file is mapped */
	size_t map_len;
	void *owned; /* freed on close: read() fallback or a copy */
	size_t owned_len;
	uint64_t disk_size;
	bool gzip;
	pthread_mutex_t lock; /* guards points, npoints, cap_points, end* */
	struct access_point *points;
	size_t npoints, cap_points;
	size_t borrowed_points;    /* points[0..this) lie in an index file (trex_source_reopen) */
	atomic_size_t point_bytes; /* read without the lock by trex_source_memory */
	bool end_known;            /* a decoder reached the end: reads past end stop early */
	uint64_t end;
};

/* One inflate pass over a gzip source, from its start or an access point. */
struct gz_dec {
	struct trex_source *src;
#if HAVE_ISAL
	struct trex_igz *igz;
#else
	z_stream zs;
	bool raw; /* entered mid-member: no header, trailer not checked */
#endif
	uint64_t out;        /* decoded offset of the next byte */
	uint64_t next_point; /* no access point is due before this offset */
	bool done, truncated;
	bool header_cut; /* truncated inside a member's header */
#if !HAVE_ISAL
	gz_header head; /* head.done: the member's header was read whole */
#endif
};

enum slot_state { SLOT_FREE, SLOT_FILLING, SLOT_READY, SLOT_HELD };

/* A buffer of the background queue: headroom for the caller's carry bytes,
 * then up to chunk freshly decoded bytes. */
struct slot {
	unsigned char *base;
	size_t n;
	enum slot_state state;
	bool last;     /* the producer stops after this slot */
	size_t in_pos; /* compressed bytes consumed once this slot was filled */
	bool truncated, header_cut;
	enum trex_status status;
	struct trex_error err;
};

struct producer {
	pthread_t thread;
	bool has_thread; /* else slots are filled by trex_stream_prefetch */
	bool published_last;
	pthread_mutex_t mu;
	pthread_cond_t filled; /* a slot became READY */
	pthread_cond_t freed;  /* a slot became FREE, or stop */
	struct slot slots[QUEUE_SLOTS];
	size_t fill_idx, take_idx;
	atomic_bool stop;
	struct gz_dec dec;
	size_t chunk, headroom;
};

struct trex_stream {
	struct trex_source *src;
	size_t chunk;
	/* Produces the next window (carry bytes, then fresh ones) and returns
	 * how many fresh bytes it holds; 0 at the end or on failure. */
	size_t (*fetch)(struct trex_stream *st, size_t carry);
	const unsigned char *win; /* valid until the next call */
	size_t win_len;
	uint64_t pos;      /* decoded offset just past the window */
	uint64_t disk_pos; /* source bytes consumed to produce it (progress) */
	bool ended, truncated, header_cut;
	enum trex_status failed; /* sticky, once the bytes before it are out */
	struct trex_error fail_err;
	struct gz_dec dec; /* gzip inflated in the caller's thread */
	bool have_dec;
	unsigned char *buf; /* window for gzip, and for carries too big for a slot */
	size_t cap;
	struct producer *bg;
	struct slot *held; /* the slot the window lies in, background only */
};

static const unsigned char empty_bytes[1];

/* ---- errors --------------------------------------------------------------------- */

static enum trex_status io_error(struct trex_error *err, const char *path, const char *what,
                                 int errnum)
{
	char buf[128];

	return trex_error_set(err, TREX_IO, path, -1, "%s: %s", what,
	                      strerror_r(errnum, buf, sizeof(buf)));
}

static enum trex_status nomem(struct trex_error *err, const char *path)
{
	return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
}

/* ---- opening ---------------------------------------------------------------------- */

static struct trex_source *source_new(const char *name)
{
	struct trex_source *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->name = strdup(name);
	if (!src->name || pthread_mutex_init(&src->lock, NULL) != 0) {
		free(src->name);
		free(src);
		return NULL;
	}
	src->bytes = empty_bytes;
	atomic_init(&src->point_bytes, 0);
	return src;
}

/* By magic bytes only: names lie (.json that is gzip, .gz that is not). */
static void source_detect(struct trex_source *src)
{
	/* a lone 0x1f is a gzip header cut after one byte: no text starts so */
	src->gzip =
	    src->len >= 1 && src->bytes[0] == 0x1f && (src->len == 1 || src->bytes[1] == 0x8b);
}

/* False when mmap is refused (some file systems); the caller then read()s. */
static bool source_map_file(struct trex_source *src, int fd, size_t size)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (map == MAP_FAILED)
		return false;
	/* Loading reads front to back once: read ahead hard, drop pages behind. */
	(void)madvise(map, size, MADV_SEQUENTIAL);
	src->map = map;
	src->map_len = size;
	src->bytes = map;
	src->len = size;
	return true;
}

void trex_source_map_done(struct trex_source *src, const char *from, const char *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), map = (uintptr_t)src->map;
	uintptr_t lo = ((uintptr_t)from + page - 1) & ~(page - 1), hi = (uintptr_t)to & ~(page - 1);

	if (!src->map || (uintptr_t)from < map || (uintptr_t)to > map + src->map_len || hi <= lo)
		return;
	/* advice only: where it is refused, the pages stay mapped */
	(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Doubles *buf (at least READ_BLOCK); false and *buf freed when out of memory. */
static bool grow_read_buffer(unsigned char **buf, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : READ_BLOCK;
	unsigned char *nbuf = realloc(*buf, ncap);

	if (!nbuf) {
		free(*buf);
		return false;
	}
	*buf = nbuf;
	*cap = ncap;
	return true;
}

/* Pipes, FIFOs and special files cannot be mapped: read them whole. */
static enum trex_status source_read_fd(struct trex_source *src, int fd,
                                       volatile sig_atomic_t *cancel, struct trex_error *err)
{
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;

	do {
		if (len == cap && !grow_read_buffer(&buf, &cap))
			return nomem(err, src->name);
		n = read(fd, buf + len, cap - len);
		if (n > 0)
			len += (size_t)n;
		if (n < 0 && errno == EINTR && cancel && *cancel) {
			free(buf); /* Ctrl-C while a slow pipe blocks us */
			return trex_error_set(err, TREX_CANCELLED, src->name, (int64_t)len,
			                      "reading cancelled");
		}
	} while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0) {
		int e = errno;

		free(buf);
		return io_error(err, src->name, "cannot read", e);
	}
	src->owned = buf;
	src->owned_len = cap;
	src->bytes = buf;
	src->len = len;
	return TREX_OK;
}

static enum trex_status source_load_fd(struct trex_source *src, int fd,
                                       volatile sig_atomic_t *cancel, struct trex_error *err)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return io_error(err, src->name, "cannot stat", errno);
	if (S_ISDIR(st.st_mode))
		return io_error(err, src->name, "cannot read", EISDIR);
	/* st_size 0 may still have content (procfs), so only a sized file maps. */
	bool mappable = S_ISREG(st.st_mode) && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX;

	if (mappable && source_map_file(src, fd, (size_t)st.st_size)) {
		src->disk_size = (uint64_t)st.st_size;
		return TREX_OK;
	}
	enum trex_status s = source_read_fd(src, fd, cancel, err);

	src->disk_size = src->len;
	return s;
}

enum trex_status trex_source_open(const char *path, struct trex_source **out,
                                  struct trex_error *err)
{
	return trex_source_open_cancellable(path, NULL, out, err);
}

enum trex_status trex_source_open_cancellable(const char *path, volatile sig_atomic_t *cancel,
                                              struct trex_source **out, struct trex_error *err)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return io_error(err, path, "cannot open", errno);
	struct trex_source *src = source_new(path);

	if (!src) {
		close(fd);
		return nomem(err, path);
	}
	enum trex_status s = source_load_fd(src, fd, cancel, err);

	close(fd);
	if (s != TREX_OK) {
		trex_source_close(src);
		return s;
	}
	source_detect(src);
	*out = src;
	return TREX_OK;
}

enum trex_status trex_source_open_memory(const char *name, const void *data, size_t len, bool copy,
                                         struct trex_source **out, struct trex_error *err)
{
	*out = NULL;
	if (!name)
		name = "<memory>";
	struct trex_source *src = source_new(name);

	if (!src)
		return nomem(err, name);
	if (len > 0 && copy) {
		src->owned = malloc(len);
		if (!src->owned) {
			trex_source_close(src);
			return nomem(err, name);
		}
		memcpy(src->owned, data, len);
		src->owned_len = len;
		src->bytes = src->owned;
	} else if (len > 0) {
		src->bytes = data;
	}
	src->len = len;
	src->disk_size = len;
	source_detect(src);
	*out = src;
	return TREX_OK;
}

static void point_free(struct access_point *pt)
{
#if HAVE_ISAL
	trex_igz_snap_free(pt->snap);
#else
	free(pt->dict);
#endif
}

void trex_source_close(struct trex_source *src)
{
	if (!src)
		return;
	for (size_t i = src->borrowed_points; i < src->npoints; i++)
		point_free(&src->points[i]);
	free(src->points);
	if (src->map)
		munmap(src->map, src->map_len);
	free(src->owned);
	pthread_mutex_destroy(&src->lock);
	free(src->name);
	free(src);
}

const char *trex_source_path(const struct trex_source *src)
{
	return src->name;
}

bool trex_source_is_gzip(const struct trex_source *src)
{
	return src->gzip;
}

uint64_t trex_source_size_on_disk(const struct trex_source *src)
{
	return src->disk_size;
}

const char *trex_source_map(struct trex_source *src, size_t *len)
{
	if (src->gzip) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = src->len;
	return (const char *)src->bytes;
}

size_t trex_source_memory(const struct trex_source *src)
{
	return atomic_load(&src->point_bytes) + src->owned_len;
}

/* ---- access points ------------------------------------------------------------- */

/* The last point at or before offset; false when none is. */
static bool points_find(struct trex_source *src, uint64_t offset, struct access_point *pt)
{
	pthread_mutex_lock(&src->lock);
	size_t lo = 0, hi = src->npoints;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->points[mid].out <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = lo > 0;

	if (found)
		*pt = src->points[lo - 1];
	pthread_mutex_unlock(&src->lock);
	return found;
}

/* Called with the lock held. Points only ever extend the list at its end, one
 * span apart, so any decoder (stream, random read, several at once) may add
 * them and the list stays sorted. */
static bool points_due(const struct trex_source *src, uint64_t out)
{
	return src->npoints == 0 ||
	       out >= src->points[src->npoints - 1].out + TREX_SOURCE_POINT_SPAN;
}

static bool points_reserve(struct trex_source *src)
{
	if (src->npoints < src->cap_points)
		return true;
	size_t ncap = src->cap_points ? src->cap_points * 2 : 16;
	struct access_point *np = realloc(src->points, ncap * sizeof(*np));

	if (!np)
		return false;
	atomic_fetch_add(&src->point_bytes, (ncap - src->cap_points) * sizeof(*np));
	src->points = np;
	src->cap_points = ncap;
	return true;
}

#if HAVE_ISAL
/* Called with the lock held, between two inflate calls of d. */
static bool points_append(struct trex_source *src, struct gz_dec *d)
{
	size_t bytes = 0;
	struct trex_igz_snap *snap;

	if (!points_reserve(src) || !(snap = trex_igz_save(d->igz, &bytes)))
		return false;
	src->points[src->npoints++] = (struct access_point){.out = d->out, .snap = snap};
	atomic_fetch_add(&src->point_bytes, bytes);
	return true;
}
#else
/* Called with the lock held; d has just stopped at a block or header end. */
static bool points_append(struct trex_source *src, struct gz_dec *d)
{
	uInt dict_len = 0;
	unsigned char *dict = NULL;

	if (!points_reserve(src))
		return false;
	/* inflate's own sliding window holds the last 32 KiB it produced. */
	inflateGetDictionary(&d->zs, NULL, &dict_len);
	if (dict_len) {
		dict = malloc(dict_len);
		if (!dict)
			return false;
		inflateGetDictionary(&d->zs, dict, &dict_len);
	}
	src->points[src->npoints++] = (struct access_point){
	    .out = d->out,
	    .in = (size_t)(d->zs.next_in - src->bytes),
	    .bits = d->zs.data_type & 7,
	    .dict_len = dict_len,
	    .dict = dict,
	};
	atomic_fetch_add(&src->point_bytes, dict_len);
	return true;
}
#endif

static enum trex_status points_add(struct gz_dec *d, struct trex_error *err)
{
	struct trex_source *src = d->src;
	bool ok = true;

	pthread_mutex_lock(&src->lock);
	if (points_due(src, d->out))
		ok = points_append(src, d);
	if (src->npoints)
		d->next_point = src->points[src->npoints - 1].out + TREX_SOURCE_POINT_SPAN;
	pthread_mutex_unlock(&src->lock);
	return ok ? TREX_OK : nomem(err, src->name);
}

/* ---- inflating ------------------------------------------------------------------ */

static bool dec_in_header(const struct gz_dec *d);

static enum trex_status dec_finish(struct gz_dec *d, bool truncated)
{
	struct trex_source *src = d->src;

	d->done = true;
	d->truncated = truncated;
	d->header_cut = truncated && dec_in_header(d);
	pthread_mutex_lock(&src->lock);
	src->end_known = true;
	src->end = d->out;
	pthread_mutex_unlock(&src->lock);
	return TREX_OK;
}

static enum trex_status dec_corrupt(struct gz_dec *d, size_t at, const char *why,
                                    struct trex_error *err)
{
	d->done = true;
	return trex_error_set(err, TREX_FORMAT, d->src->name, (int64_t)d->out,
	                      "corrupt gzip data at compressed byte %zu: %s", at, why);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* More gzip members may follow (`cat a.gz b.gz`, parallel compressors).
 * Zero padding after the last one is ignored as gzip(1) does; anything else
 * would silently drop data, so it is an error. *more: a member starts at. */
static enum trex_status dec_after_member(struct gz_dec *d, size_t at, bool *more,
                                         struct trex_error *err)
{
	const unsigned char *bytes = d->src->bytes;
	size_t left = d->src->len - at;

	*more = false;
	if (all_zero(bytes + at, left))
		return dec_finish(d, false);
	if (bytes[at] != 0x1f || (left >= 2 && bytes[at + 1] != 0x8b))
		return dec_corrupt(d, at, "unexpected bytes after a gzip member", err);
	*more = true;
	return TREX_OK;
}

#if HAVE_ISAL

/* ISA-L: gzip_isal.c reads headers and checks trailers; an access point is
 * a decoder state, due after any inflate call, not only at block ends. */
static size_t dec_in_pos(const struct gz_dec *d)
{
	return trex_igz_in_pos(d->igz);
}

/* Opens a decoder at pt, or at the start when pt is NULL; on failure d->src
 * is NULL, so cleanup can tell whether there is anything to close. */
static enum trex_status dec_open(struct gz_dec *d, struct trex_source *src,
                                 const struct access_point *pt, struct trex_error *err)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	if (pt) {
		d->igz = trex_igz_restore(src->bytes, src->len, pt->snap);
		d->out = pt->out;
	} else {
		d->igz = trex_igz_new(src->bytes, src->len);
	}
	if (d->igz)
		return TREX_OK;
	d->src = NULL;
	return nomem(err, src->name);
}

static void dec_close(struct gz_dec *d)
{
	trex_igz_free(d->igz);
}

static bool dec_in_header(const struct gz_dec *d)
{
	return trex_igz_in_header(d->igz);
}

static enum trex_status dec_member_end(struct gz_dec *d, struct trex_error *err)
{
	size_t at = dec_in_pos(d);
	bool more;
	enum trex_status s = dec_after_member(d, at, &more, err);

	if (more)
		trex_igz_member(d->igz, at);
	return s;
}

/* One inflate call into dst; *got counts its output even on error. */
static enum trex_status dec_step(struct gz_dec *d, unsigned char *dst, size_t cap, size_t *got,
                                 struct trex_error *err)
{
	const char *why = "invalid data";
	enum trex_igz_result r = trex_igz_inflate(d->igz, dst, cap, got, &why);

	d->out += *got;
	switch (r) {
	case TREX_IGZ_OK:
		if (d->out < d->next_point || !trex_igz_can_save(d->igz))
			return TREX_OK;
		return points_add(d, err);
	case TREX_IGZ_MEMBER_END:
		return dec_member_end(d, err);
	case TREX_IGZ_SHORT:
		return dec_finish(d, true);
	case TREX_IGZ_NOMEM:
		return nomem(err, d->src->name);
	case TREX_IGZ_CORRUPT:
	default:
		return dec_corrupt(d, dec_in_pos(d), why, err);
	}
}

#else

static size_t dec_in_pos(const struct gz_dec *d)
{
	return (size_t)(d->zs.next_in - d->src->bytes);
}

/* The whole input is in memory; zlib only takes it in uInt-sized helpings. */
static void dec_feed(struct gz_dec *d)
{
	if (d->zs.avail_in)
		return;
	size_t left = d->src->len - dec_in_pos(d);

	d->zs.avail_in = left > UINT_MAX ? UINT_MAX : (uInt)left;
}

static enum trex_status dec_resume(struct gz_dec *d, const struct access_point *pt,
                                   struct trex_error *err)
{
	const unsigned char *bytes = d->src->bytes;
	int ret = Z_OK;

	d->zs.next_in = bytes + pt->in;
	if (pt->bits)
		ret = inflatePrime(&d->zs, pt->bits, bytes[pt->in - 1] >> (8 - pt->bits));
	if (ret == Z_OK && pt->dict_len)
		ret = inflateSetDictionary(&d->zs, pt->dict, pt->dict_len);
	if (ret != Z_OK)
		return trex_error_set(err, TREX_FORMAT, d->src->name, (int64_t)pt->out,
		                      "cannot resume inflate at an access point");
	d->out = pt->out;
	d->raw = true;
	return TREX_OK;
}

/* Opens a decoder at pt, or at the start when pt is NULL; on failure d->src
 * is NULL, so cleanup can tell whether there is anything to close. */
static enum trex_status dec_open(struct gz_dec *d, struct trex_source *src,
                                 const struct access_point *pt, struct trex_error *err)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	d->zs.next_in = src->bytes;
	if (inflateInit2(&d->zs, pt ? GZ_RAW_BITS : GZ_AUTO_BITS) != Z_OK) {
		d->src = NULL;
		return nomem(err, src->name);
	}
	if (!pt) {
		inflateGetHeader(&d->zs, &d->head);
		return TREX_OK;
	}
	enum trex_status s = dec_resume(d, pt, err);

	if (s != TREX_OK) {
		inflateEnd(&d->zs);
		d->src = NULL;
	}
	return s;
}

static void dec_close(struct gz_dec *d)
{
	inflateEnd(&d->zs);
}

/* head.done is 0 while inflate reads a gzip header (1 after, -1 for a
 * zlib stream); a member entered at an access point has no header. */
static bool dec_in_header(const struct gz_dec *d)
{
	return !d->raw && d->head.done == 0;
}

/* A member entered at an access point ends without inflate having seen its
 * header, so its trailer is skipped here; false when the input ends first. */
static bool dec_skip_trailer(struct gz_dec *d)
{
	size_t at = dec_in_pos(d);

	if (d->src->len - at < GZ_TRAILER)
		return false;
	d->zs.next_in = d->src->bytes + at + GZ_TRAILER;
	d->zs.avail_in = 0;
	return true;
}

static enum trex_status dec_member_end(struct gz_dec *d, struct trex_error *err)
{
	bool more;

	if (d->raw && !dec_skip_trailer(d))
		return dec_finish(d, true);
	enum trex_status s = dec_after_member(d, dec_in_pos(d), &more, err);

	if (!more)
		return s;
	int ret = d->raw ? inflateReset2(&d->zs, GZ_AUTO_BITS) : inflateReset(&d->zs);

	d->raw = false;
	if (ret == Z_OK)
		ret = inflateGetHeader(&d->zs, &d->head);
	return ret == Z_OK ? TREX_OK : nomem(err, d->src->name);
}

/* Z_BLOCK returns at each header end and deflate block end; bit 7 of
 * data_type marks those, bit 6 the last block of a member (followed by the
 * trailer, where raw inflate cannot resume). */
static enum trex_status dec_boundary(struct gz_dec *d, struct trex_error *err)
{
	if ((d->zs.data_type & 0xc0) != 0x80 || d->out < d->next_point)
		return TREX_OK;
	return points_add(d, err);
}

/* One inflate call into dst; *got counts its output even on error. */
static enum trex_status dec_step(struct gz_dec *d, unsigned char *dst, size_t cap, size_t *got,
                                 struct trex_error *err)
{
	z_stream *zs = &d->zs;

	dec_feed(d);
	zs->next_out = dst;
	zs->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	uInt before = zs->avail_out;
	int ret = inflate(zs, Z_BLOCK);

	*got = before - zs->avail_out;
	d->out += *got;
	switch (ret) {
	case Z_OK:
		return dec_boundary(d, err);
	case Z_STREAM_END:
		return dec_member_end(d, err);
	case Z_BUF_ERROR: /* no progress: the input ran out mid-stream */
		if (dec_in_pos(d) == d->src->len)
			return dec_finish(d, true);
		return dec_corrupt(d, dec_in_pos(d), "inflate stalled", err);
	case Z_MEM_ERROR:
		return nomem(err, d->src->name);
	default:
		return dec_corrupt(d, dec_in_pos(d), zs->msg ? zs->msg : "invalid data", err);
	}
}

#endif

/* Inflates up to cap bytes; stops short only at the end of the data or on
 * an error, and *got counts the bytes before either, so callers can hand out
 * everything decoded before a corruption. */
static enum trex_status dec_read(struct gz_dec *d, unsigned char *dst, size_t cap, size_t *got,
                                 struct trex_error *err)
{
	*got = 0;
	while (*got < cap && !d->done) {
		size_t n;
		enum trex_status s = dec_step(d, dst + *got, cap - *got, &n, err);

		*got += n;
		if (s != TREX_OK)
			return s;
	}
	return TREX_OK;
}

static enum trex_status dec_skip(struct gz_dec *d, uint64_t n, struct trex_error *err)
{
	unsigned char *scratch = malloc(SCRATCH_SIZE);
	enum trex_status s = TREX_OK;

	if (!scratch)
		return nomem(err, d->src->name);
	while (n > 0 && !d->done && s == TREX_OK) {
		size_t got;

		s = dec_read(d, scratch, n < SCRATCH_SIZE ? (size_t)n : SCRATCH_SIZE, &got, err);
		n -= got;
	}
	free(scratch);
	return s;
}

/* ---- peek, random reads, line:col ----------------------------------------------------- */

size_t trex_source_peek(struct trex_source *src, unsigned char *buf, size_t max,
                        struct trex_error *err)
{
	size_t n = max < PEEK_MAX ? max : PEEK_MAX;

	trex_error_clear(err);
	if (!src->gzip) {
		n = n < src->len ? n : src->len;
		memcpy(buf, src->bytes, n);
		return n;
	}
	struct gz_dec d;
	size_t got = 0;
	enum trex_status s = dec_open(&d, src, NULL, err);

	if (s != TREX_OK)
		return 0;
	s = dec_read(&d, buf, n, &got, err);
	dec_close(&d);
	/* data that breaks after a few bytes is still data: the loader keeps
	 * what decodes and reports the break itself */
	if (s == TREX_FORMAT && got > 0)
		trex_error_clear(err);
	return s == TREX_OK || got > 0 ? got : 0;
}

static bool source_past_end(struct trex_source *src, uint64_t offset)
{
	pthread_mutex_lock(&src->lock);
	bool past = src->end_known && offset >= src->end;

	pthread_mutex_unlock(&src->lock);
	return past;
}

/* Resumes at the nearest access point (or the start, recording points on the
 * way), skips to offset and inflates. Runs outside the lock: reads proceed in
 * parallel, each with its own inflate state. */
static enum trex_status gz_read_at(struct trex_source *src, uint64_t offset, size_t len, char *buf,
                                   size_t *got, struct trex_error *err)
{
	struct access_point pt;
	struct gz_dec d;

	if (len == 0 || source_past_end(src, offset))
		return TREX_OK;
	bool have = points_find(src, offset, &pt);
	enum trex_status s = dec_open(&d, src, have ? &pt : NULL, err);

	if (s != TREX_OK)
		return s;
	s = dec_skip(&d, offset - d.out, err);
	if (s == TREX_OK && !d.done)
		s = dec_read(&d, (unsigned char *)buf, len, got, err);
	dec_close(&d);
	return s;
}

enum trex_status trex_source_read(struct trex_source *src, uint64_t offset, size_t len, char *buf,
                                  size_t *got, struct trex_error *err)
{
	*got = 0;
	if (src->gzip)
		return gz_read_at(src, offset, len, buf, got, err);
	if (offset >= src->len)
		return TREX_OK;
	size_t left = src->len - (size_t)offset;

	*got = len < left ? len : left;
	memcpy(buf, src->bytes + offset, *got);
	return TREX_OK;
}

struct line_count {
	int64_t lines;   /* newlines seen */
	int64_t last_nl; /* offset of the last one, -1 before any */
};

static void count_lines(const unsigned char *p, size_t n, uint64_t base, struct line_count *lc)
{
	const unsigned char *end = p + n, *q = p;

	while ((q = memchr(q, '\n', (size_t)(end - q)))) {
		lc->lines++;
		lc->last_nl = (int64_t)(base + (uint64_t)(q - p));
		q++;
	}
}

/* Inflates from the start to each offset in turn (ascending), counting
 * lines on the way; at each one, the compressed byte being read. Input
 * that is cut or corrupt further on does not matter: offsets up to where
 * it decodes are placed, later ones keep the lines counted so far and no
 * compressed byte. */
static enum trex_status gz_positions(struct trex_source *src, const uint64_t *offsets, size_t n,
                                     struct line_count *lc, int64_t *disk, struct trex_error *err)
{
	unsigned char *scratch = malloc(SCRATCH_SIZE);
	struct trex_error broken;
	struct gz_dec d;
	enum trex_status s, decoding = TREX_OK;

	if (!scratch)
		return nomem(err, src->name);
	s = dec_open(&d, src, NULL, err);
	for (size_t i = 0; d.src && s == TREX_OK && i < n; i++) {
		while (decoding == TREX_OK && d.out < offsets[i] && !d.done) {
			uint64_t base = d.out, want = offsets[i] - d.out;
			size_t got;

			decoding =
			    dec_read(&d, scratch, want < SCRATCH_SIZE ? (size_t)want : SCRATCH_SIZE,
			             &got, &broken);
			count_lines(scratch, got, base, &lc[0]);
		}
		if (decoding == TREX_NOMEM)
			s = nomem(err, src->name);
		lc[1 + i] = lc[0];
		disk[i] = d.out == offsets[i] ? (int64_t)dec_in_pos(&d) : -1;
	}
	if (d.src)
		dec_close(&d);
	free(scratch);
	return s;
}

enum trex_status trex_source_positions(struct trex_source *src, const uint64_t *offsets, size_t n,
                                       int64_t *line, int64_t *col, int64_t *disk,
                                       struct trex_error *err)
{
	/* lc[0] runs along the input; lc[1 + i] is where offset i was */
	struct line_count *lc = calloc(n + 1, sizeof(*lc));
	enum trex_status s = TREX_OK;

	if (!lc)
		return nomem(err, src->name);
	lc[0].last_nl = -1;
	if (src->gzip) {
		s = gz_positions(src, offsets, n, lc, disk, err);
	} else {
		uint64_t done = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t to = offsets[i] < src->len ? offsets[i] : src->len;

			if (to > done)
				count_lines(src->bytes + done, (size_t)(to - done), done, &lc[0]);
			done = to > done ? to : done;
			lc[1 + i] = lc[0];
			disk[i] = -1;
		}
	}
	for (size_t i = 0; s == TREX_OK && i < n; i++) {
		line[i] = lc[1 + i].lines + 1;
		col[i] = (int64_t)offsets[i] - lc[1 + i].last_nl;
	}
	free(lc);
	return s;
}

enum trex_status trex_source_line_col(struct trex_source *src, uint64_t offset, int64_t *line,
                                      int64_t *col, struct trex_error *err)
{
	int64_t disk;

	return trex_source_positions(src, &offset, 1, line, col, &disk, err);
}

/* ---- streaming: windows ------------------------------------------------------------- */

/* Fresh bytes wanted after carry: a chunk, or as many as are carried when
 * that is more. A window that must keep growing (one event bigger than a
 * chunk) then doubles per call, so copying and rescanning stay linear. */
static size_t window_target(const struct trex_stream *st, size_t carry)
{
	return carry > st->chunk ? carry : st->chunk;
}

static size_t stream_fail(struct trex_stream *st, enum trex_status s)
{
	st->failed = s;
	return 0;
}

/* Plain sources hand out windows over the mapping: the carry bytes already
 * sit right before the fresh ones, so nothing is copied. */
static size_t plain_fetch(struct trex_stream *st, size_t carry)
{
	const struct trex_source *src = st->src;
	size_t left = src->len - (size_t)st->pos;
	size_t want = window_target(st, carry);
	size_t fresh = want < left ? want : left;

	st->win = src->bytes + st->pos - carry;
	st->win_len = carry + fresh;
	st->pos += fresh;
	st->disk_pos = st->pos;
	st->ended = fresh == 0;
	return fresh;
}

/* Moves the carry bytes to the front of st->buf, with room for want more. */
static bool stream_reserve(struct trex_stream *st, size_t carry, size_t want)
{
	const unsigned char *tail = st->win + st->win_len - carry;
	size_t need = carry + want;

	if (need > st->cap) {
		size_t cap = st->cap * 2 > need ? st->cap * 2 : need;
		unsigned char *buf = malloc(cap);

		if (!buf)
			return false;
		memcpy(buf, tail, carry);
		free(st->buf);
		st->buf = buf;
		st->cap = cap;
	} else if (carry) {
		memmove(st->buf, tail, carry);
	}
	st->win = st->buf;
	st->win_len = carry;
	return true;
}

/* gzip inflated in the caller's thread, straight after the carry bytes. */
static size_t gz_fetch(struct trex_stream *st, size_t carry)
{
	size_t want = window_target(st, carry), got;

	if (!stream_reserve(st, carry, want))
		return stream_fail(st, nomem(&st->fail_err, st->src->name));
	st->failed = dec_read(&st->dec, st->buf + carry, want, &got, &st->fail_err);
	if (st->dec.done && st->failed == TREX_OK) {
		st->ended = true;
		st->truncated = st->dec.truncated;
		st->header_cut = st->dec.header_cut;
	}
	st->win_len = carry + got;
	st->pos += got;
	st->disk_pos = dec_in_pos(&st->dec);
	return got;
}

/* ---- streaming: background producer ------------------------------------------- */

static void producer_fill(struct producer *p, struct slot *s)
{
	unsigned char *dst = s->base + p->headroom;

	s->n = 0;
	s->status = TREX_OK;
	/* In steps, so a closing consumer is not kept waiting for a huge chunk. */
	while (s->n < p->chunk && !p->dec.done && s->status == TREX_OK &&
	       !atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		size_t step = p->chunk - s->n, got;

		step = step < PRODUCER_STEP ? step : PRODUCER_STEP;
		s->status = dec_read(&p->dec, dst + s->n, step, &got, &s->err);
		s->n += got;
	}
	s->last = s->status != TREX_OK || p->dec.done;
	s->truncated = p->dec.truncated;
	s->header_cut = p->dec.header_cut;
	s->in_pos = dec_in_pos(&p->dec);
}

/* The next slot in ring order once it is free; NULL when told to stop. */
static struct slot *producer_claim(struct producer *p)
{
	struct slot *s = &p->slots[p->fill_idx];

	pthread_mutex_lock(&p->mu);
	while (!atomic_load(&p->stop) && s->state != SLOT_FREE)
		pthread_cond_wait(&p->freed, &p->mu);
	if (atomic_load(&p->stop))
		s = NULL;
	pthread_mutex_unlock(&p->mu);
	return s;
}

static void producer_publish(struct producer *p, struct slot *s)
{
	pthread_mutex_lock(&p->mu);
	s->state = SLOT_READY;
	p->published_last |= s->last;
	p->fill_idx = (p->fill_idx + 1) % QUEUE_SLOTS;
	pthread_cond_broadcast(&p->filled);
	pthread_mutex_unlock(&p->mu);
}

/* Without a thread: fills the next slot on the calling thread if it is
 * free and the input is not over. Slots are filled one at a time: a
 * second caller finds the slot FILLING and leaves. */
static bool producer_step(struct producer *p)
{
	struct slot *s;
	bool claimed = false;

	pthread_mutex_lock(&p->mu);
	s = &p->slots[p->fill_idx]; /* under the lock: another caller may publish */
	if (!p->published_last && !atomic_load(&p->stop) && s->state == SLOT_FREE) {
		s->state = SLOT_FILLING;
		claimed = true;
	}
	pthread_mutex_unlock(&p->mu);
	if (!claimed)
		return false;
	producer_fill(p, s);
	producer_publish(p, s);
	return true;
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	bool last = false;

	while (!last) {
		struct slot *s = producer_claim(p);

		if (!s)
			break;
		producer_fill(p, s);
		last = s->last;
		producer_publish(p, s);
	}
	return NULL;
}

/* Blocks until the producer has filled the next slot. The producer always
 * ends with a `last` slot, and the consumer stops taking after one. */
static struct slot *bg_take(struct producer *p)
{
	struct slot *s = &p->slots[p->take_idx];

	pthread_mutex_lock(&p->mu);
	while (s->state != SLOT_READY) {
		if (!p->has_thread && s->state == SLOT_FREE && !p->published_last) {
			/* nobody decoded ahead: decode it here */
			pthread_mutex_unlock(&p->mu);
			producer_step(p);
			pthread_mutex_lock(&p->mu);
			continue;
		}
		pthread_cond_wait(&p->filled, &p->mu);
	}
	s->state = SLOT_HELD;
	p->take_idx = (p->take_idx + 1) % QUEUE_SLOTS;
	pthread_mutex_unlock(&p->mu);
	return s;
}

static void bg_release(struct producer *p, struct slot *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&p->mu);
	s->state = SLOT_FREE;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->mu);
}

static void bg_note(struct trex_stream *st, const struct slot *s)
{
	st->disk_pos = s->in_pos;
	if (!s->last)
		return;
	if (s->status != TREX_OK) {
		st->failed = s->status;
		st->fail_err = s->err;
	} else {
		st->ended = true;
		st->truncated = s->truncated;
		st->header_cut = s->header_cut;
	}
}

/* Carry bigger than a slot's headroom: the window is assembled in st->buf
 * from as many slots as window_target asks for. */
static size_t bg_fetch_big(struct trex_stream *st, size_t carry, struct slot *s)
{
	struct producer *p = st->bg;
	size_t want = window_target(st, carry), got = 0;

	if (!stream_reserve(st, carry, want + p->chunk)) {
		bg_release(p, s);
		return stream_fail(st, nomem(&st->fail_err, st->src->name));
	}
	bg_release(p, st->held);
	st->held = NULL;
	for (;;) {
		memcpy(st->buf + carry + got, s->base + p->headroom, s->n);
		got += s->n;
		bg_release(p, s);
		if (got >= want || st->ended || st->failed != TREX_OK)
			break;
		s = bg_take(p);
		bg_note(st, s);
	}
	st->win_len = carry + got;
	st->pos += got;
	return got;
}

static size_t bg_fetch(struct trex_stream *st, size_t carry)
{
	struct producer *p = st->bg;
	struct slot *s = bg_take(p);

	bg_note(st, s);
	if (s->n == 0) {
		bg_release(p, s);
		st->win += st->win_len - carry;
		st->win_len = carry;
		return 0;
	}
	if (carry > p->headroom)
		return bg_fetch_big(st, carry, s);
	unsigned char *fresh = s->base + p->headroom;

	memcpy(fresh - carry, st->win + st->win_len - carry, carry);
	bg_release(p, st->held);
	st->held = s;
	st->win = fresh - carry;
	st->win_len = carry + s->n;
	st->pos += s->n;
	return s->n;
}

static void producer_free(struct producer *p)
{
	for (int i = 0; i < QUEUE_SLOTS; i++)
		free(p->slots[i].base);
	if (p->dec.src)
		dec_close(&p->dec);
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

static struct producer *producer_new(struct trex_source *src, size_t chunk)
{
	struct producer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->freed, NULL);
	atomic_init(&p->stop, false);
	p->chunk = chunk;
	/* Carries are usually a partial event; a quarter chunk bounds the copy. */
	p->headroom = chunk / 4;
	for (int i = 0; i < QUEUE_SLOTS; i++) {
		p->slots[i].base = malloc(p->headroom + chunk);
		if (!p->slots[i].base) {
			producer_free(p);
			return NULL;
		}
	}
	if (dec_open(&p->dec, src, NULL, NULL) != TREX_OK) {
		producer_free(p);
		return NULL;
	}
	return p;
}

/* The producer runs with every signal blocked, so signals such as SIGINT go
 * to the caller's threads, where the loader's handlers expect them. */
static bool producer_start(struct producer *p)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&p->thread, NULL, producer_main, p);

	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->has_thread = rc == 0;
	return rc == 0;
}

static void producer_stop(struct producer *p)
{
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->stop, true);
	pthread_cond_broadcast(&p->freed);
	pthread_mutex_unlock(&p->mu);
	if (p->has_thread)
		pthread_join(p->thread, NULL);
}

/* ---- streaming: API ---------------------------------------------------------------- */

/* Background decoding when a thread can be had; without one (thread limits)
 * the same bytes come from the caller's thread. */
static enum trex_status stream_setup_gzip(struct trex_stream *st, enum trex_stream_ahead ahead,
                                          struct trex_error *err)
{
	if (ahead != TREX_STREAM_INLINE) {
		st->bg = producer_new(st->src, st->chunk);
		if (!st->bg)
			return nomem(err, st->src->name);
		if (ahead == TREX_STREAM_ON_CALL || producer_start(st->bg)) {
			st->fetch = bg_fetch;
			return TREX_OK;
		}
		producer_free(st->bg);
		st->bg = NULL;
	}
	enum trex_status s = dec_open(&st->dec, st->src, NULL, err);

	st->have_dec = s == TREX_OK;
	st->fetch = gz_fetch;
	return s;
}

enum trex_status trex_stream_open(struct trex_source *src, size_t chunk_size,
                                  enum trex_stream_ahead ahead, struct trex_stream **out,
                                  struct trex_error *err)
{
	*out = NULL;
	struct trex_stream *st = calloc(1, sizeof(*st));

	if (!st)
		return nomem(err, src->name);
	st->src = src;
	st->chunk = chunk_size ? chunk_size : DEFAULT_CHUNK;
	st->win = empty_bytes;
	/* Plain windows are views of the mapping: nothing to decode ahead, so
	 * background only matters for gzip. */
	st->fetch = plain_fetch;
	if (src->gzip) {
		enum trex_status s = stream_setup_gzip(st, ahead, err);

		if (s != TREX_OK) {
			trex_stream_close(st);
			return s;
		}
	}
	*out = st;
	return TREX_OK;
}

enum trex_status trex_stream_next(struct trex_stream *st, size_t carry, const char **data,
                                  size_t *len, uint64_t *offset, bool *truncated,
                                  struct trex_error *err)
{
	if (carry > st->win_len)
		return trex_error_set(err, TREX_USAGE, st->src->name, (int64_t)st->pos,
		                      "carry of %zu bytes exceeds the %zu-byte window", carry,
		                      st->win_len);
	size_t fresh = 0;

	if (st->failed == TREX_OK && !st->ended)
		fresh = st->fetch(st, carry);
	if (fresh == 0 && st->failed != TREX_OK) {
		if (err)
			*err = st->fail_err;
		return st->failed;
	}
	if (fresh == 0) { /* the end: just the carried bytes, wherever they are */
		st->win += st->win_len - carry;
		st->win_len = carry;
	}
	*data = (const char *)st->win;
	*len = st->win_len;
	*offset = st->pos - st->win_len;
	*truncated = st->truncated;
	return TREX_OK;
}

bool trex_stream_prefetch(struct trex_stream *st)
{
	return st->bg && !st->bg->has_thread && producer_step(st->bg);
}

uint64_t trex_stream_position(const struct trex_stream *st)
{
	return st->pos;
}

uint64_t trex_stream_disk_position(const struct trex_stream *st)
{
	return st->disk_pos;
}

bool trex_stream_header_cut(const struct trex_stream *st)
{
	return st->ended && st->header_cut;
}

void trex_stream_close(struct trex_stream *st)
{
	if (!st)
		return;
	if (st->bg) {
		producer_stop(st->bg);
		producer_free(st->bg);
	}
	if (st->have_dec)
		dec_close(&st->dec);
	free(st->buf);
	free(st);
}

/* ---- access points in index files --------------------------------------------------------
 * Saved as a head, then per point its decoded offset, the length of its
 * bytes and the bytes, padded to 8: with ISA-L the snapshot itself, with
 * zlib a struct saved_zpoint and the window. Reopened points point into
 * the saved bytes (the index file's mapping), so nothing is copied. */

#define SAVED_POINTS_MAGIC 0x31707a6778657274ull /* "trexgzp1" */

struct saved_points {
	uint64_t magic;
	uint64_t layout; /* the decoder the points are for: trex_igz_layout(), or 1 for zlib */
	uint64_t npoints;
	uint64_t end_known, end;
};

struct saved_point {
	uint64_t out, len;
};

struct saved_zpoint {
	uint64_t in;
	int32_t bits;
	uint32_t dict_len;
};

static uint64_t points_layout(void)
{
#if HAVE_ISAL
	return trex_igz_layout();
#else
	return 1;
#endif
}

static bool put_padded(trex_args_put_fn *put, void *user, const void *bytes, size_t len)
{
	static const char zeros[8];

	return put(user, bytes, len) && put(user, zeros, (8 - len % 8) % 8);
}

/* The bytes of one point: a snapshot, or zlib's position and window. */
static bool put_point(const struct access_point *pt, trex_args_put_fn *put, void *user)
{
#if HAVE_ISAL
	struct saved_point sp = {pt->out, trex_igz_snap_size(pt->snap)};

	return put(user, &sp, sizeof(sp)) && put_padded(put, user, pt->snap, sp.len);
#else
	struct saved_zpoint z = {pt->in, pt->bits, pt->dict_len};
	struct saved_point sp = {pt->out, sizeof(z) + pt->dict_len};

	return put(user, &sp, sizeof(sp)) && put(user, &z, sizeof(z)) &&
	       put_padded(put, user, pt->dict, pt->dict_len);
#endif
}

enum trex_status trex_source_save_points(struct trex_source *src, trex_args_put_fn *put, void *user,
                                         struct trex_error *err)
{
	bool ok;

	pthread_mutex_lock(&src->lock);
	struct saved_points head = {SAVED_POINTS_MAGIC, points_layout(), src->npoints,
	                            src->end_known, src->end};
	ok = put(user, &head, sizeof(head));
	for (size_t i = 0; ok && i < src->npoints; i++)
		ok = put_point(&src->points[i], put, user);
	pthread_mutex_unlock(&src->lock);
	return ok ? TREX_OK : nomem(err, src->name);
}

/* One saved point at bytes[0..len) as a point of src, borrowing the bytes;
 * false when they do not make one. */
static bool point_from_saved(const struct trex_source *src, uint64_t out,
                             const unsigned char *bytes, size_t len, struct access_point *pt)
{
#if HAVE_ISAL
	const struct trex_igz_snap *snap = trex_igz_snap_check(bytes, len, src->len);

	*pt = (struct access_point){.out = out, .snap = (struct trex_igz_snap *)(uintptr_t)snap};
	return snap != NULL;
#else
	struct saved_zpoint z;

	if (len < sizeof(z))
		return false;
	memcpy(&z, bytes, sizeof(z));
	if (z.dict_len != len - sizeof(z) || z.dict_len > 32768 || z.in > src->len || z.bits < 0 ||
	    z.bits > 7)
		return false;
	*pt = (struct access_point){.out = out,
	                            .in = (size_t)z.in,
	                            .bits = z.bits,
	                            .dict_len = z.dict_len,
	                            .dict = (unsigned char *)(uintptr_t)(bytes + sizeof(z))};
	return true;
#endif
}

/* The saved points in src; points of another decoder are left out (a
 * random read then records them again), and so is everything from the
 * first point that does not check. */
static enum trex_status points_restore(struct trex_source *src, const unsigned char *p, size_t len,
                                       struct trex_error *err)
{
	struct saved_points head;
	size_t at = sizeof(head);

	if (len < sizeof(head))
		return TREX_OK;
	memcpy(&head, p, sizeof(head));
	if (head.magic != SAVED_POINTS_MAGIC || head.layout != points_layout() || !src->gzip ||
	    head.npoints > len / sizeof(struct saved_point))
		return TREX_OK;
	if (head.npoints && !(src->points = malloc(head.npoints * sizeof(*src->points))))
		return nomem(err, src->name);
	src->cap_points = head.npoints;
	for (uint64_t i = 0; i < head.npoints; i++) {
		struct saved_point sp;

		if (len - at < sizeof(sp))
			break;
		memcpy(&sp, p + at, sizeof(sp));
		at += sizeof(sp);
		if (sp.len > len - at || (i && sp.out <= src->points[i - 1].out) ||
		    !point_from_saved(src, sp.out, p + at, (size_t)sp.len, &src->points[i]))
			break;
		src->npoints = src->borrowed_points = (size_t)i + 1;
		at += (size_t)((sp.len + 7) / 8 * 8);
		if (at > len)
			break;
	}
	src->end_known = head.end_known && src->npoints == head.npoints;
	src->end = head.end;
	return TREX_OK;
}

enum trex_status trex_source_reopen(const char *path, const void *saved, size_t len,
                                    struct trex_source **out, struct trex_error *err)
{
	enum trex_status st = trex_source_open(path, out, err);

	if (st == TREX_OK && (st = points_restore(*out, saved, len, err)) != TREX_OK) {
		trex_source_close(*out);
		*out = NULL;
	}
	/* A reopened source serves lazy reads only: the head that opening it
	 * sniffed (a whole large folio of the page cache) need not stay mapped. */
	if (st == TREX_OK)
		trex_source_map_done(*out, (const char *)(*out)->map,
		                     (const char *)(*out)->map + (*out)->map_len);
	return st;
}

enum trex_status trex_source_codec_save(void *ctx, trex_args_put_fn *put, void *put_user,
                                        struct trex_error *err)
{
	return trex_source_save_points(ctx, put, put_user, err);
}

enum trex_status trex_source_codec_reopen(const char *path, const void *saved, size_t len,
                                          void **ctx, struct trex_error *err)
{
	struct trex_source *src = NULL;
	enum trex_status st = trex_source_reopen(path, saved, len, &src, err);

	*ctx = src;
	return st;
}
