#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "index_fixture.h"
#include "trex/load/source.h"

/* ---- helpers ------------------------------------------------------------------------ */

struct bytes {
	unsigned char *p;
	size_t n, cap;
};

static void bytes_add(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		cr_assert_not_null(b->p);
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static uint64_t rnd(uint64_t *s)
{
	/* splitmix64: reproducible across runs, seeds printed on failure. */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t rnd_below(uint64_t *s, size_t n)
{
	return n ? (size_t)(rnd(s) % n) : 0;
}

/* Trace-like JSON lines with random names and numbers: compresses like a
 * real trace, so deflate blocks and access points land at realistic places. */
static struct bytes payload(size_t n, uint64_t seed)
{
	struct bytes b = {0};
	char line[256];

	while (b.n < n) {
		int k = snprintf(line, sizeof(line),
		                 "{\"ph\":\"X\",\"name\":\"kernel_%zu\",\"ts\":%zu,\"dur\":%zu,"
		                 "\"args\":{\"grid\":[%zu,1,1],\"stream\":%zu}},\n",
		                 rnd_below(&seed, 500), b.n * 3, rnd_below(&seed, 100000),
		                 rnd_below(&seed, 4096), rnd_below(&seed, 8));
		size_t take = (size_t)k < n - b.n ? (size_t)k : n - b.n;

		bytes_add(&b, line, take);
	}
	return b;
}

static struct bytes gzip_bytes(const void *data, size_t n, int level)
{
	z_stream zs = {0};
	struct bytes out = {0};

	cr_assert_eq(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	out.cap = deflateBound(&zs, n) + 64;
	out.p = malloc(out.cap);
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)n;
	zs.next_out = out.p;
	zs.avail_out = (uInt)out.cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out.n = zs.total_out;
	deflateEnd(&zs);
	return out;
}

/* Concatenated gzip members, one per piece of data split at cuts. */
static struct bytes gzip_members(const struct bytes *data, const size_t *cuts, size_t ncuts)
{
	struct bytes out = {0};
	size_t from = 0;

	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : data->n;
		struct bytes m = gzip_bytes(data->p + from, to - from, 1);

		bytes_add(&out, m.p, m.n);
		free(m.p);
		from = to;
	}
	return out;
}

static char *write_temp(const void *p, size_t n)
{
	char *path = strdup("/tmp/trex-test-source-XXXXXX");
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, p, n), (ssize_t)n);
	close(fd);
	return path;
}

static struct trex_source *open_mem(const struct bytes *b)
{
	struct trex_source *src;
	struct trex_error err;

	cr_assert_eq(trex_source_open_memory("mem", b->p, b->n, false, &src, &err), TREX_OK);
	return src;
}

/* What the caller carries over: mostly a small partial event, sometimes
 * everything (a huge event), sometimes nothing. */
static size_t pick_carry(uint64_t *s, size_t len)
{
	switch (rnd_below(s, 10)) {
	case 0:
		return 0;
	case 1:
		return len;
	case 2:
	case 3:
		return rnd_below(s, len + 1);
	default:
		return rnd_below(s, (len < 200 ? len : 200) + 1);
	}
}

struct drained {
	struct bytes out;
	bool truncated;
	enum trex_status status;
	struct trex_error err;
	size_t calls;
};

/* TREX_STREAM_ON_CALL: a second thread decoding ahead while the reader
 * takes windows, as a parsing pool does. */
struct prefetcher {
	struct trex_stream *st;
	atomic_bool stop;
	size_t decoded;
	pthread_t thread;
};

static void *prefetch_main(void *arg)
{
	struct prefetcher *pf = arg;
	while (!atomic_load(&pf->stop))
		if (trex_stream_prefetch(pf->st))
			pf->decoded++;
		else
			sched_yield();
	return NULL;
}

/* Streams src to its end, checking the carry contract on every window, and
 * rebuilds the decoded bytes. seed 0 carries nothing. With ON_CALL, an odd
 * seed also prefetches on a second thread (an even one never prefetches:
 * the reader then decodes each chunk itself). */
static struct drained drain(struct trex_source *src, size_t chunk, enum trex_stream_ahead ahead,
                            uint64_t seed)
{
	struct drained d = {0};
	struct trex_stream *st;
	size_t carry = 0;
	struct prefetcher pf = {0};

	d.status = trex_stream_open(src, chunk, ahead, &st, &d.err);
	cr_assert_eq(d.status, TREX_OK, "%s", d.err.message);
	bool prefetching = ahead == TREX_STREAM_ON_CALL && seed % 2 == 1;
	if (prefetching) {
		pf.st = st;
		atomic_init(&pf.stop, false);
		cr_assert_eq(pthread_create(&pf.thread, NULL, prefetch_main, &pf), 0);
	}
	for (;;) {
		const char *data;
		size_t len;
		uint64_t off;

		d.status = trex_stream_next(st, carry, &data, &len, &off, &d.truncated, &d.err);
		if (d.status != TREX_OK)
			break;
		d.calls++;
		cr_assert_geq(len, carry);
		cr_assert_eq(off + carry, d.out.n, "offset %lu carry %zu have %zu",
		             (unsigned long)off, carry, d.out.n);
		cr_assert(carry == 0 || memcmp(data, d.out.p + d.out.n - carry, carry) == 0,
		          "carry bytes changed");
		bytes_add(&d.out, data + carry, len - carry);
		if (len == carry)
			break;
		carry = seed ? pick_carry(&seed, len) : 0;
	}
	if (prefetching) {
		atomic_store(&pf.stop, true);
		pthread_join(pf.thread, NULL);
	}
	if (d.status == TREX_OK)
		cr_assert_eq(trex_stream_position(st), d.out.n);
	trex_stream_close(st);
	return d;
}

static void expect_same(const struct bytes *got, const struct bytes *want)
{
	cr_assert_eq(got->n, want->n, "got %zu bytes, want %zu", got->n, want->n);
	cr_assert(want->n == 0 || memcmp(got->p, want->p, want->n) == 0, "decoded bytes differ");
}

static void expect_stream(struct trex_source *src, const struct bytes *want, size_t chunk,
                          enum trex_stream_ahead bg, uint64_t seed)
{
	struct drained d = drain(src, chunk, bg, seed);

	cr_assert_eq(d.status, TREX_OK, "%s", d.err.message);
	cr_assert_not(d.truncated);
	expect_same(&d.out, want);
	free(d.out.p);
}

static void expect_reads(struct trex_source *src, const struct bytes *want, int count,
                         size_t maxlen, uint64_t seed)
{
	char *buf = malloc(maxlen);

	for (int i = 0; i < count; i++) {
		uint64_t off = rnd_below(&seed, want->n + 100);
		size_t len = 1 + rnd_below(&seed, maxlen), got;
		struct trex_error err;

		cr_assert_eq(trex_source_read(src, off, len, buf, &got, &err), TREX_OK, "%s",
		             err.message);
		size_t left = off < want->n ? want->n - off : 0;

		cr_assert_eq(got, len < left ? len : left, "read at %lu", (unsigned long)off);
		cr_assert(memcmp(buf, want->p + off, got) == 0, "read at %lu differs",
		          (unsigned long)off);
	}
	free(buf);
}

/* ---- plain and memory ------------------------------------------------------------- */

Test(source, plain_file_round_trip)
{
	struct bytes data = payload(300000, 1);
	char *path = write_temp(data.p, data.n);
	struct trex_source *src;
	struct trex_error err;
	unsigned char head[100];
	size_t len;

	cr_assert_eq(trex_source_open(path, &src, &err), TREX_OK, "%s", err.message);
	unlink(path); /* the source keeps its mapping; nothing left behind if a check fails */
	cr_assert_not(trex_source_is_gzip(src));
	cr_assert_str_eq(trex_source_path(src), path);
	cr_assert_eq(trex_source_size_on_disk(src), data.n);
	const char *map = trex_source_map(src, &len);

	cr_assert_eq(len, data.n);
	cr_assert(memcmp(map, data.p, len) == 0);
	cr_assert_eq(trex_source_peek(src, head, sizeof(head), &err), 64);
	cr_assert(memcmp(head, data.p, 64) == 0);
	cr_assert_eq(trex_source_memory(src), 0, "a mapped file holds no heap memory");
	expect_stream(src, &data, 4096, false, 0);
	expect_stream(src, &data, 4096, true, 7);
	expect_stream(src, &data, 1 << 20, false, 8);
	expect_reads(src, &data, 100, 5000, 3);
	trex_source_close(src);
	free(path);
	free(data.p);
}

Test(source, map_done_unmaps_pages_that_read_back_the_same)
{
	struct bytes data = payload(4u << 20, 9);
	char *path = write_temp(data.p, data.n);
	struct trex_source *src, *copy;
	struct trex_error err;
	size_t len;

	cr_assert_eq(trex_source_open(path, &src, &err), TREX_OK, "%s", err.message);
	unlink(path);
	const char *map = trex_source_map(src, &len);

	cr_assert(memcmp(map, data.p, len) == 0);
	cr_assert_geq(fixture_mapping_rss_kb(map), 4000, "all read: all resident");
	trex_source_map_done(src, map + 100, map + len - 100);
	cr_assert_leq(fixture_mapping_rss_kb(map), 8, "but the two partial pages at the ends");
	cr_assert(memcmp(map, data.p, len) == 0, "read again from the page cache");
	trex_source_map_done(src, map + len - 100, map + 100); /* empty: nothing */
	trex_source_map_done(src, map, map + len + 1);         /* past the mapping: nothing */
	cr_assert_geq(fixture_mapping_rss_kb(map), 4000);
	trex_source_close(src);
	/* a memory source's bytes are the caller's or its own heap: kept */
	cr_assert_eq(trex_source_open_memory("c", data.p, data.n, true, &copy, &err), TREX_OK);
	map = trex_source_map(copy, &len);
	trex_source_map_done(copy, map, map + len);
	cr_assert(memcmp(map, data.p, len) == 0);
	trex_source_close(copy);
	free(path);
	free(data.p);
}

Test(source, plain_windows_are_zero_copy)
{
	struct bytes data = payload(100000, 2);
	struct trex_source *src = open_mem(&data);
	struct trex_stream *st;
	struct trex_error err;
	const char *win;
	size_t len, carry = 0;
	uint64_t off;
	bool trunc;

	cr_assert_eq(trex_stream_open(src, 1000, false, &st, &err), TREX_OK);
	do {
		cr_assert_eq(trex_stream_next(st, carry, &win, &len, &off, &trunc, &err), TREX_OK);
		cr_assert_eq((const unsigned char *)win, data.p + off);
		carry = len / 3;
	} while (len != carry);
	trex_stream_close(st);
	trex_source_close(src);
	free(data.p);
}

Test(source, memory_copy_and_borrow)
{
	struct bytes data = payload(5000, 3);
	struct trex_source *borrow, *copy;
	struct trex_error err;
	size_t len;

	cr_assert_eq(trex_source_open_memory("b", data.p, data.n, false, &borrow, &err), TREX_OK);
	cr_assert_eq(trex_source_open_memory("c", data.p, data.n, true, &copy, &err), TREX_OK);
	cr_assert_eq((const unsigned char *)trex_source_map(borrow, &len), data.p);
	const char *cmap = trex_source_map(copy, &len);

	cr_assert_neq((const unsigned char *)cmap, data.p);
	cr_assert_eq(len, data.n);
	cr_assert_geq(trex_source_memory(copy), data.n);
	cr_assert_str_eq(trex_source_path(copy), "c");
	memset(data.p, 'x', data.n);
	cr_assert_neq(cmap[0], 'x', "a copy does not follow the caller's buffer");
	trex_source_close(borrow);
	trex_source_close(copy);
	free(data.p);
}

Test(source, empty_file)
{
	char *path = write_temp("", 0);
	struct trex_source *src;
	struct trex_error err;
	unsigned char head[8];
	char buf[8];
	size_t len = 99, got = 99;
	int64_t line, col;

	cr_assert_eq(trex_source_open(path, &src, &err), TREX_OK, "%s", err.message);
	unlink(path);
	cr_assert_not(trex_source_is_gzip(src));
	cr_assert_not_null(trex_source_map(src, &len), "empty plain is still plain, not gzip");
	cr_assert_eq(len, 0);
	cr_assert_eq(trex_source_peek(src, head, sizeof(head), &err), 0);
	cr_assert_eq(trex_source_read(src, 0, 8, buf, &got, &err), TREX_OK);
	cr_assert_eq(got, 0);
	cr_assert_eq(trex_source_line_col(src, 0, &line, &col, &err), TREX_OK);
	cr_assert_eq(line, 1);
	cr_assert_eq(col, 1);
	struct drained d = drain(src, 4096, false, 0);

	cr_assert_eq(d.status, TREX_OK);
	cr_assert_eq(d.out.n, 0);
	cr_assert_eq(d.calls, 1, "the first call already says end of input");
	trex_source_close(src);
	free(path);
}

Test(source, nonexistent_file_names_path)
{
	const char *path = "/tmp/trex-test-source-does-not-exist/x.json.gz";
	struct trex_source *src = (struct trex_source *)1;
	struct trex_error err;

	cr_assert_eq(trex_source_open(path, &src, &err), TREX_IO);
	cr_assert_null(src);
	cr_assert_eq(err.status, TREX_IO);
	cr_assert_str_eq(err.path, path);
	cr_assert_not_null(strstr(err.message, strerror(ENOENT)), "%s", err.message);
}

Test(source, directory_is_an_io_error)
{
	struct trex_source *src;
	struct trex_error err;

	cr_assert_eq(trex_source_open("/tmp", &src, &err), TREX_IO);
	cr_assert_str_eq(err.path, "/tmp");
	cr_assert_not_null(strstr(err.message, strerror(EISDIR)), "%s", err.message);
}

struct fifo_writer {
	const char *path;
	const struct bytes *data;
};

static void *fifo_write(void *arg)
{
	const struct fifo_writer *w = arg;
	int fd = open(w->path, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, w->data->p, w->data->n) < 0)
			perror("fifo write");
		close(fd);
	}
	return NULL;
}

/* A pipe cannot be mapped: the source reads it into memory instead. */
Test(source, fifo_is_read_not_mapped)
{
	struct bytes data = payload(3 << 20, 4);
	struct bytes gz = gzip_bytes(data.p, data.n, 1);
	char path[64] = "/tmp/trex-test-fifo-XXXXXX";
	struct fifo_writer w = {path, &gz};
	struct trex_source *src;
	struct trex_error err;
	pthread_t t;

	cr_assert_not_null(mkdtemp(path));
	strcat(path, "/f");
	cr_assert_eq(mkfifo(path, 0600), 0);
	pthread_create(&t, NULL, fifo_write, &w);
	cr_assert_eq(trex_source_open(path, &src, &err), TREX_OK, "%s", err.message);
	pthread_join(t, NULL);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	cr_assert(trex_source_is_gzip(src));
	cr_assert_eq(trex_source_size_on_disk(src), gz.n);
	expect_stream(src, &data, 1 << 16, true, 5);
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

/* ---- gzip ---------------------------------------------------------------------------- */

Test(source, gzip_single_member)
{
	struct bytes data = payload(1 << 20, 5);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	char *path = write_temp(gz.p, gz.n);
	struct trex_source *src;
	struct trex_error err;
	unsigned char head[64];
	size_t len = 1;

	cr_assert_eq(trex_source_open(path, &src, &err), TREX_OK, "%s", err.message);
	unlink(path);
	cr_assert(trex_source_is_gzip(src), "detected by magic bytes, whatever the name");
	cr_assert_null(trex_source_map(src, &len));
	cr_assert_eq(trex_source_size_on_disk(src), gz.n);
	cr_assert_eq(trex_source_peek(src, head, sizeof(head), &err), 64);
	cr_assert(memcmp(head, data.p, 64) == 0);
	expect_stream(src, &data, 1 << 16, false, 0);
	expect_stream(src, &data, 1 << 16, true, 0);
	expect_stream(src, &data, 12345, true, 9);
	trex_source_close(src);
	free(path);
	free(gz.p);
	free(data.p);
}

Test(source, gzip_multi_member_with_empty_members)
{
	struct bytes data = payload(2 << 20, 6);
	size_t cuts[] = {0, 1000, 1000, 700000, 1500000, 2 << 20};
	struct bytes gz = gzip_members(&data, cuts, sizeof(cuts) / sizeof(cuts[0]));
	struct trex_source *src = open_mem(&gz);

	cr_assert(trex_source_is_gzip(src));
	expect_stream(src, &data, 1 << 16, false, 0);
	expect_stream(src, &data, 100000, true, 11);
	expect_stream(src, &data, 100000, TREX_STREAM_ON_CALL, 11);
	expect_stream(src, &data, 70000, TREX_STREAM_ON_CALL, 12);
	expect_reads(src, &data, 100, 20000, 12);
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

Test(source, carry_contract_random, .timeout = 120)
{
	struct bytes data = payload(200000, 7);
	size_t cuts[] = {50000, 120000};
	struct bytes gz = gzip_members(&data, cuts, 2);
	struct trex_source *plain = open_mem(&data), *zip = open_mem(&gz);
	uint64_t seed = 99;

	for (int i = 0; i < 60; i++) {
		size_t chunk = 64 + rnd_below(&seed, 20000);
		struct trex_source *src = i % 2 ? zip : plain;
		enum trex_stream_ahead bg = (enum trex_stream_ahead)((i / 2) % 3);

		expect_stream(src, &data, chunk, bg, 1000 + (uint64_t)i);
	}
	trex_source_close(plain);
	trex_source_close(zip);
	free(gz.p);
	free(data.p);
}

Test(source, tiny_chunks)
{
	struct bytes data = payload(3000, 8);
	struct bytes gz = gzip_bytes(data.p, data.n, 9);
	struct trex_source *plain = open_mem(&data), *zip = open_mem(&gz);

	for (size_t chunk = 1; chunk <= 5; chunk++) {
		expect_stream(plain, &data, chunk, false, chunk);
		expect_stream(zip, &data, chunk, false, chunk);
		expect_stream(zip, &data, chunk, true, chunk);
		expect_stream(zip, &data, chunk, TREX_STREAM_ON_CALL, chunk);
	}
	trex_source_close(plain);
	trex_source_close(zip);
	free(gz.p);
	free(data.p);
}

/* A caller stuck inside one huge event carries its whole window every time;
 * the window must grow geometrically, not by one chunk per call. */
static void expect_growth(struct trex_source *src, const struct bytes *want,
                          enum trex_stream_ahead bg)
{
	struct trex_stream *st;
	struct trex_error err;
	const char *win;
	size_t len = 0, calls = 0;
	uint64_t off;
	bool trunc;

	cr_assert_eq(trex_stream_open(src, 4096, bg, &st, &err), TREX_OK);
	while (len < (1u << 20)) {
		cr_assert_eq(trex_stream_next(st, len, &win, &len, &off, &trunc, &err), TREX_OK);
		cr_assert_eq(off, 0);
		calls++;
	}
	cr_assert_leq(calls, 12, "%zu calls to reach 1 MiB from 4 KiB chunks", calls);
	cr_assert(memcmp(win, want->p, len) == 0);
	/* And it shrinks back to chunk-sized steps once the event is done. */
	cr_assert_eq(trex_stream_next(st, 10, &win, &len, &off, &trunc, &err), TREX_OK);
	cr_assert_leq(len, 10 + 4096);
	cr_assert(memcmp(win, want->p + off, len) == 0);
	trex_stream_close(st);
}

Test(source, window_grows_for_huge_carry)
{
	struct bytes data = payload(3 << 20, 9);
	struct bytes gz = gzip_bytes(data.p, data.n, 1);
	struct trex_source *plain = open_mem(&data), *zip = open_mem(&gz);

	expect_growth(plain, &data, false);
	expect_growth(zip, &data, false);
	expect_growth(zip, &data, true);
	expect_growth(zip, &data, TREX_STREAM_ON_CALL);
	trex_source_close(plain);
	trex_source_close(zip);
	free(gz.p);
	free(data.p);
}

Test(source, carry_larger_than_window_is_usage_error)
{
	struct bytes data = payload(1000, 10);
	struct trex_source *src = open_mem(&data);
	struct trex_stream *st;
	struct trex_error err;
	const char *win;
	size_t len;
	uint64_t off;
	bool trunc;

	cr_assert_eq(trex_stream_open(src, 100, false, &st, &err), TREX_OK);
	cr_assert_eq(trex_stream_next(st, 0, &win, &len, &off, &trunc, &err), TREX_OK);
	cr_assert_eq(trex_stream_next(st, len + 1, &win, &len, &off, &trunc, &err), TREX_USAGE);
	trex_stream_close(st);
	trex_source_close(src);
	free(data.p);
}

/* How many bytes zlib itself can decode from a cut gzip file. */
static size_t decodable(const struct bytes *gz, size_t cut, size_t max)
{
	z_stream zs = {0};
	unsigned char *out = malloc(max + 1);

	cr_assert_eq(inflateInit2(&zs, 15 + 32), Z_OK);
	zs.next_in = gz->p;
	zs.avail_in = (uInt)cut;
	zs.next_out = out;
	zs.avail_out = (uInt)max + 1;
	inflate(&zs, Z_SYNC_FLUSH);
	size_t n = zs.total_out;

	inflateEnd(&zs);
	free(out);
	return n;
}

/* A gzip stream cut at byte `at` streams exactly prefix, flagged truncated,
 * whoever decodes it. */
static void expect_cut_stream(struct trex_source *src, const struct bytes *prefix, size_t chunk,
                              uint64_t seed, size_t at)
{
	for (int bg = TREX_STREAM_INLINE; bg <= TREX_STREAM_ON_CALL; bg++) {
		struct drained d = drain(src, chunk, (enum trex_stream_ahead)bg, seed);

		cr_assert_eq(d.status, TREX_OK, "cut %zu: %s", at, d.err.message);
		cr_assert(d.truncated, "cut at %zu", at);
		expect_same(&d.out, prefix);
		free(d.out.p);
	}
}

Test(source, truncated_gzip_delivers_what_decodes)
{
	struct bytes data = payload(300000, 11);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	size_t cuts[] = {2,        5,         10,       11,       20,       100,     gz.n / 3,
	                 gz.n / 2, gz.n - 20, gz.n - 9, gz.n - 8, gz.n - 4, gz.n - 1};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct bytes cut = {gz.p, cuts[i], cuts[i]};
		struct trex_source *src = open_mem(&cut);
		size_t want = decodable(&gz, cuts[i], data.n);
		struct bytes prefix = {data.p, want, want};

		expect_cut_stream(src, &prefix, 8192, 20 + i, cuts[i]);
		expect_reads(src, &prefix, 10, 50000, i);
		trex_source_close(src);
	}
	free(gz.p);
	free(data.p);
}

/* Flipped bytes anywhere: a FORMAT error naming the source, or data (the
 * header has fields nobody checks), never a crash. */
Test(source, corrupt_gzip_never_crashes, .timeout = 120)
{
	struct bytes data = payload(200000, 12);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	unsigned char *bad = malloc(gz.n);
	uint64_t seed = 5;
	int errors = 0;

	for (int i = 0; i < 300; i++) {
		memcpy(bad, gz.p, gz.n);
		for (int k = 0; k <= i % 3; k++)
			bad[2 + rnd_below(&seed, gz.n - 2)] ^=
			    (unsigned char)(1 + rnd_below(&seed, 255));
		struct bytes b = {bad, gz.n, gz.n};
		struct trex_source *src = open_mem(&b);
		struct drained d = drain(src, 1 << 15, i % 4 == 0, (uint64_t)i);

		cr_assert(d.status == TREX_OK || d.status == TREX_FORMAT, "status %d", d.status);
		if (d.status == TREX_FORMAT) {
			errors++;
			cr_assert_str_eq(d.err.path, "mem");
			cr_assert_not_null(strstr(d.err.message, "gzip"), "%s", d.err.message);
			cr_assert_geq(d.err.offset, 0);
		}
		char buf[100];
		size_t got;
		struct trex_error err;

		trex_source_read(src, rnd_below(&seed, data.n), sizeof(buf), buf, &got, &err);
		free(d.out.p);
		trex_source_close(src);
	}
	cr_assert_gt(errors, 150, "CRC and structure checks catch most flips (%d)", errors);
	free(bad);
	free(gz.p);
	free(data.p);
}

/* A valid member followed by a member with a good header and broken deflate
 * data: all of the first member comes out, then the error. */
Test(source, corrupt_member_after_good_data)
{
	struct bytes data = payload(150000, 13);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	static const unsigned char broken[] = {0x1f, 0x8b, 8,    0,    0,    0,    0,    0,
	                                       0,    3,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	bytes_add(&gz, broken, sizeof(broken));
	struct trex_source *src = open_mem(&gz);

	for (int bg = TREX_STREAM_INLINE; bg <= TREX_STREAM_ON_CALL; bg++) {
		struct drained d = drain(src, 1 << 14, bg, 0);

		cr_assert_eq(d.status, TREX_FORMAT);
		expect_same(&d.out, &data);
		cr_assert_eq(d.err.offset, (int64_t)data.n, "decoded offset of the failure");
		cr_assert_not_null(strstr(d.err.message, "compressed byte"), "%s", d.err.message);
		free(d.out.p);
	}
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

Test(source, trailing_zeros_ignored_garbage_rejected)
{
	struct bytes data = payload(50000, 14);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	static const unsigned char zeros[512];
	size_t good = gz.n;

	bytes_add(&gz, zeros, sizeof(zeros));
	struct trex_source *src = open_mem(&gz);

	expect_stream(src, &data, 1 << 14, false, 0);
	trex_source_close(src);
	gz.n = good;
	bytes_add(&gz, "junk", 4);
	src = open_mem(&gz);
	struct drained d = drain(src, 1 << 14, false, 0);

	cr_assert_eq(d.status, TREX_FORMAT);
	cr_assert_not_null(strstr(d.err.message, "after a gzip member"), "%s", d.err.message);
	free(d.out.p);
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

Test(source, peek_corrupt_header_reports_error)
{
	static const unsigned char bad[] = {0x1f, 0x8b, 99, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4};
	struct bytes b = {(unsigned char *)(uintptr_t)bad, sizeof(bad), sizeof(bad)};
	struct trex_source *src = open_mem(&b);
	struct trex_error err;
	unsigned char head[64];

	cr_assert_eq(trex_source_peek(src, head, sizeof(head), &err), 0);
	cr_assert_eq(err.status, TREX_FORMAT);
	trex_source_close(src);
}

/* A stream that breaks after a few bytes gives those to the sniffer: the
 * loader then keeps what decodes instead of refusing the file. */
Test(source, peek_gives_what_decodes_before_a_break)
{
	static const char text[] = "[{\"ph\":\"X\"},";
	struct bytes data = {(unsigned char *)(uintptr_t)text, sizeof(text) - 1, sizeof(text) - 1};
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	static const unsigned char broken[] = {0x1f, 0x8b, 8,    0,    0,    0,    0,    0,
	                                       0,    3,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct trex_error err;
	unsigned char head[64];

	bytes_add(&gz, broken, sizeof(broken));
	struct trex_source *src = open_mem(&gz);
	cr_assert_eq(trex_source_peek(src, head, sizeof(head), &err), data.n);
	cr_assert_eq(err.status, TREX_OK);
	cr_assert_eq(memcmp(head, data.p, data.n), 0);
	trex_source_close(src);
	free(gz.p);
}

/* ---- random access ------------------------------------------------------------------- */

/* Bytes one access point may hold: zlib's 32 KiB window, or with ISA-L the
 * whole decoder state (about 21 KiB of tables and 32-64 KiB of history). */
#if HAVE_ISAL
#define POINT_MAX 90000
#else
#define POINT_MAX 33000
#endif

static struct bytes big_payload;
static struct bytes big_gz;

static void big_setup(void)
{
	/* Several access points' worth (span 4 MiB). */
	big_payload = payload(26 << 20, 15);
	big_gz = gzip_bytes(big_payload.p, big_payload.n, 1);
}

static void big_teardown(void)
{
	free(big_payload.p);
	free(big_gz.p);
}

Test(source, random_reads_match_stream, .init = big_setup, .fini = big_teardown, .timeout = 300)
{
	char *path = write_temp(big_gz.p, big_gz.n);
	struct trex_source *src;
	struct trex_error err;

	cr_assert_eq(trex_source_open(path, &src, &err), TREX_OK);
	unlink(path);
	struct drained d = drain(src, 1 << 20, true, 77);

	cr_assert_eq(d.status, TREX_OK);
	expect_same(&d.out, &big_payload);
	size_t mem = trex_source_memory(src);

	cr_assert_geq(mem, 5 * 32768, "access points recorded while streaming (%zu)", mem);
	cr_assert_leq(mem, 8 * POINT_MAX, "one point per span, not per block (%zu)", mem);
	expect_reads(src, &d.out, 200, 100000, 31);
	/* Streaming again finds the points already there. */
	free(d.out.p);
	d = drain(src, 1 << 20, false, 0);
	cr_assert_eq(trex_source_memory(src), mem);
	free(d.out.p);
	trex_source_close(src);
	free(path);
}

Test(source, random_reads_without_streaming, .init = big_setup, .fini = big_teardown,
     .timeout = 300)
{
	struct trex_source *src = open_mem(&big_gz);
	char buf[16];
	size_t got;
	struct trex_error err;

	cr_assert_eq(trex_source_memory(src), 0);
	/* The first read inflates from the start and records points on the way. */
	cr_assert_eq(trex_source_read(src, big_payload.n - 10, 16, buf, &got, &err), TREX_OK);
	cr_assert_eq(got, 10);
	cr_assert(memcmp(buf, big_payload.p + big_payload.n - 10, 10) == 0);
	cr_assert_geq(trex_source_memory(src), 5 * 32768);
	expect_reads(src, &big_payload, 60, 100000, 32);
	trex_source_close(src);
}

struct reader {
	struct trex_source *src;
	uint64_t seed;
};

static void *read_many(void *arg)
{
	struct reader *r = arg;

	expect_reads(r->src, &big_payload, 25, 20000, r->seed);
	return NULL;
}

Test(source, concurrent_random_reads, .init = big_setup, .fini = big_teardown, .timeout = 300)
{
	struct trex_source *src = open_mem(&big_gz);
	struct reader r[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		r[i] = (struct reader){src, 40 + (uint64_t)i};
		pthread_create(&t[i], NULL, read_many, &r[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	trex_source_close(src);
}

/* Members just over one span long put access points at member starts;
 * hundreds of small members make reads cross many member ends. */
Test(source, random_reads_multi_member, .timeout = 300)
{
	struct bytes data = payload(22 << 20, 16);
	size_t cuts[700], n = 0;

	for (size_t at = 0; n < 3; n++)
		cuts[n] = at += (4 << 20) + 100;
	for (size_t at = cuts[2]; n < 700 && at + 16384 < data.n; n++)
		cuts[n] = at += 16384;
	struct bytes gz = gzip_members(&data, cuts, n);
	struct trex_source *src = open_mem(&gz);
	size_t got;
	char buf[1];
	struct trex_error err;

	expect_reads(src, &data, 100, 50000, 51);
	expect_stream(src, &data, 1 << 20, true, 52);
	expect_reads(src, &data, 100, 50000, 53);
	for (size_t i = 0; i < n; i += 37) {
		cr_assert_eq(trex_source_read(src, cuts[i], 1, buf, &got, &err), TREX_OK);
		cr_assert_eq(buf[0], (char)data.p[cuts[i]]);
	}
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

/* ---- gzip variants, trailers, cuts across members ------------------------------------ */

/* deflate with a chosen strategy and memory level, and an optional header
 * with a name, comment, extra field and header CRC. */
static struct bytes gzip_custom(const void *data, size_t n, int level, int strategy, int mem_level,
                                bool fields)
{
	static unsigned char extra[] = "xx\x04\x00"
	                               "abcd";
	static unsigned char name[] = "trace.json", comment[] = "made by test_source";
	gz_header head = {0};
	z_stream zs = {0};
	struct bytes out = {0};

	cr_assert_eq(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, mem_level, strategy), Z_OK);
	if (fields) {
		head.name = name;
		head.comment = comment;
		head.extra = extra;
		head.extra_len = sizeof(extra) - 1;
		head.hcrc = 1;
		cr_assert_eq(deflateSetHeader(&zs, &head), Z_OK);
	}
	out.cap = deflateBound(&zs, n) + 256;
	out.p = malloc(out.cap);
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)n;
	zs.next_out = out.p;
	zs.avail_out = (uInt)out.cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out.n = zs.total_out;
	deflateEnd(&zs);
	return out;
}

/* Stored, fixed-Huffman, Huffman-only and RLE members, with and without
 * header fields: every block type and header path of the inflater. */
Test(source, gzip_block_types_and_header_fields, .timeout = 120)
{
	static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE,
	                                 Z_FILTERED};
	struct bytes data = payload(3 << 20, 21), gz = {0};
	size_t piece = data.n / 6;

	for (size_t i = 0; i < 6; i++) {
		size_t n = i < 5 ? piece : data.n - 5 * piece;
		struct bytes m = gzip_custom(data.p + i * piece, n, i == 5 ? 0 : 6,
		                             strategies[i % 5], 8, i % 2 == 0);

		bytes_add(&gz, m.p, m.n);
		free(m.p);
	}
	struct trex_source *src = open_mem(&gz);

	expect_stream(src, &data, 1 << 16, false, 0);
	expect_stream(src, &data, 300000, true, 23);
	expect_reads(src, &data, 200, 70000, 24);
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

static void expect_bad_trailer(size_t from_end, const char *why)
{
	struct bytes data = payload(400000, 25);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);

	gz.p[gz.n - from_end] ^= 0x40;
	struct trex_source *src = open_mem(&gz);

	for (int bg = TREX_STREAM_INLINE; bg <= TREX_STREAM_ON_CALL; bg++) {
		struct drained d = drain(src, 1 << 15, bg, 0);

		cr_assert_eq(d.status, TREX_FORMAT, "%s", why);
		cr_assert_not_null(strstr(d.err.message, why), "%s", d.err.message);
		cr_assert_not_null(strstr(d.err.message, "compressed byte"), "%s", d.err.message);
		cr_assert_eq(d.err.offset, (int64_t)data.n, "everything decodes before the check");
		expect_same(&d.out, &data);
		free(d.out.p);
	}
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

Test(source, gzip_crc_and_length_checked)
{
	expect_bad_trailer(8, "incorrect data check");
	expect_bad_trailer(2, "incorrect length check");
}

/* Input that ends right before an unmapped page: the inflater must never
 * read past the last byte (ISA-L loads input 8 bytes at a time), whole or
 * cut at any of the last few bytes. */
Test(source, gzip_never_reads_past_the_input, .timeout = 120)
{
	struct bytes data = payload(300000, 29);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (gz.n / page + 2) * page;
	unsigned char *map =
	    mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(mprotect(map + span, page, PROT_NONE), 0);
	for (size_t cut = 0; cut < 24; cut++) {
		size_t n = gz.n - cut;
		struct bytes b = {map + span - n, n, n};

		memcpy(b.p, gz.p, n);
		struct trex_source *src = open_mem(&b);
		struct drained d = drain(src, 1 << 16, cut % 2 == 1, 0);

		cr_assert_eq(d.status, TREX_OK, "cut %zu: %s", cut, d.err.message);
		cr_assert_eq(d.truncated, cut > 0);
		if (cut == 0)
			expect_same(&d.out, &data);
		free(d.out.p);
		trex_source_close(src);
	}
	munmap(map, span + page);
	free(gz.p);
	free(data.p);
}

/* What zlib decodes from the first cut bytes of a multi-member file. */
static size_t decodable_members(const struct bytes *gz, size_t cut, size_t max)
{
	unsigned char *out = malloc(max + 1);
	size_t at = 0, total = 0;

	while (at < cut && gz->p[at] == 0x1f) {
		z_stream zs = {0};

		cr_assert_eq(inflateInit2(&zs, 15 + 32), Z_OK);
		zs.next_in = gz->p + at;
		zs.avail_in = (uInt)(cut - at);
		zs.next_out = out;
		zs.avail_out = (uInt)max + 1;
		int ret = inflate(&zs, Z_SYNC_FLUSH);

		total += zs.total_out;
		at += zs.total_in;
		inflateEnd(&zs);
		if (ret != Z_STREAM_END)
			break;
	}
	free(out);
	return total;
}

/* Cuts in every part of a three-member file: headers, deflate data and
 * trailers of the first and second members. What comes out is what zlib
 * gets, byte for byte, streamed or read at random. */
Test(source, truncated_members_deliver_what_decodes, .timeout = 120)
{
	struct bytes data = payload(600000, 26);
	size_t cuts[] = {200000, 400000};
	struct bytes gz = gzip_members(&data, cuts, 2);
	struct bytes first = gzip_bytes(data.p, 200000, 1);
	size_t m1 = first.n; /* where the second member starts */
	size_t at[] = {m1 - 8,       m1 - 3,       m1 + 1,       m1 + 5,    m1 + 10,
	               m1 + 11,      m1 + 12,      m1 + 40,      m1 + 1000, gz.n / 2,
	               gz.n / 2 + 1, gz.n / 2 + 2, gz.n / 2 + 3, gz.n - 9,  gz.n - 5};

	free(first.p);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct bytes cut = {gz.p, at[i], at[i]};
		struct trex_source *src = open_mem(&cut);
		size_t want = decodable_members(&gz, at[i], data.n);
		struct bytes prefix = {data.p, want, want};

		expect_cut_stream(src, &prefix, 5000, 60 + i, at[i]);
		expect_reads(src, &prefix, 20, 3000, 70 + i);
		trex_source_close(src);
	}
	free(gz.p);
	free(data.p);
}

/* Repetitive lines and a large memory level make deflate blocks longer than
 * an access-point span. Reads still come back right, and with ISA-L, whose
 * points are decoder states rather than block starts, a point still lands
 * every span, so no read inflates more than a span or so. */
Test(source, random_reads_in_blocks_longer_than_a_span, .timeout = 300)
{
	struct bytes data = {0};
	char line[4000];
	uint64_t seed = 27;

	memset(line, 'a', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	while (data.n < (48u << 20)) {
		int k = snprintf(line, 40, "{\"n\":%zu,\"k\":\"", rnd_below(&seed, 1000000));

		line[k] = 'a';
		bytes_add(&data, line, sizeof(line));
	}
	struct bytes gz = gzip_custom(data.p, data.n, 6, Z_DEFAULT_STRATEGY, 9, false);
	struct trex_source *src = open_mem(&gz);

	expect_stream(src, &data, 1 << 20, true, 0);
	size_t mem = trex_source_memory(src);

#if HAVE_ISAL
	cr_assert_geq(mem, 10 * 50000, "a point every 4 MiB span inside long blocks (%zu)", mem);
#endif
	cr_assert_leq(mem, 13 * POINT_MAX, "one point per span at most (%zu)", mem);
	expect_reads(src, &data, 100, 100000, 28);
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

/* ---- line:col ---------------------------------------------------------------------------- */

static void expect_line_col(struct trex_source *src, uint64_t off, int64_t line, int64_t col)
{
	int64_t l, c;
	struct trex_error err;

	cr_assert_eq(trex_source_line_col(src, off, &l, &c, &err), TREX_OK);
	cr_assert_eq(l, line, "offset %lu: line %ld, want %ld", (unsigned long)off, (long)l,
	             (long)line);
	cr_assert_eq(c, col, "offset %lu: col %ld, want %ld", (unsigned long)off, (long)c,
	             (long)col);
}

Test(source, line_col_plain_and_gzip)
{
	struct bytes text = {(unsigned char *)(uintptr_t) "ab\ncd\n\nef", 9, 9};
	struct bytes gz = gzip_bytes(text.p, text.n, 6);
	struct trex_source *srcs[2] = {open_mem(&text), open_mem(&gz)};

	for (int i = 0; i < 2; i++) {
		expect_line_col(srcs[i], 0, 1, 1);
		expect_line_col(srcs[i], 2, 1, 3);
		expect_line_col(srcs[i], 3, 2, 1);
		expect_line_col(srcs[i], 6, 3, 1);
		expect_line_col(srcs[i], 8, 4, 2);
		expect_line_col(srcs[i], 9, 4, 3);
		trex_source_close(srcs[i]);
	}
	free(gz.p);
}

Test(source, line_col_large_gzip)
{
	struct bytes data = payload(500000, 17);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	struct trex_source *src = open_mem(&gz);
	uint64_t seed = 3;

	for (int i = 0; i < 10; i++) {
		size_t off = rnd_below(&seed, data.n);
		int64_t line = 1, col = 1;

		for (size_t k = 0; k < off; k++) {
			col++;
			if (data.p[k] == '\n') {
				line++;
				col = 1;
			}
		}
		expect_line_col(src, off, line, col);
	}
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

/* Many offsets placed in one pass: the same line:col as one at a time;
 * the compressed offset of a gzip source grows with the decoded one and
 * stays inside the file; plain sources have none. */
Test(source, positions_in_one_pass)
{
	struct bytes data = payload(200000, 23);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	struct trex_source *srcs[2] = {open_mem(&data), open_mem(&gz)};
	uint64_t offs[] = {0, 1, 999, 1000, 50000, 123457, 199999};
	size_t n = sizeof(offs) / sizeof(offs[0]);
	int64_t line[7], col[7], disk[7];
	struct trex_error err;

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(trex_source_positions(srcs[i], offs, n, line, col, disk, &err),
		             TREX_OK);
		for (size_t k = 0; k < n; k++) {
			expect_line_col(srcs[i], offs[k], line[k], col[k]);
			if (i == 0)
				cr_assert_eq(disk[k], -1, "plain input has no compressed offset");
			else
				cr_assert(disk[k] >= (k ? disk[k - 1] : 0) &&
				              disk[k] <= (int64_t)gz.n,
				          "offset %llu: compressed %lld",
				          (unsigned long long)offs[k], (long long)disk[k]);
		}
		if (i == 1)
			cr_assert_gt(disk[n - 1], disk[1], "later bytes lie further in the file");
		trex_source_close(srcs[i]);
	}
	free(gz.p);
	free(data.p);
}

/* Corrupt gzip data after good data: the offsets that decoded are still
 * placed (the loader's message about the break used to lose its line:col). */
Test(source, positions_before_a_corruption)
{
	struct bytes data = payload(40000, 31);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	static const unsigned char broken[] = {0x1f, 0x8b, 8,    0,    0,    0,    0,    0,
	                                       0,    3,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint64_t offs[] = {100, data.n, data.n + 10};
	int64_t line[3], col[3], disk[3];
	struct trex_error err;

	bytes_add(&gz, broken, sizeof(broken));
	struct trex_source *src = open_mem(&gz);
	cr_assert_eq(trex_source_positions(src, offs, 3, line, col, disk, &err), TREX_OK);
	expect_line_col(src, 100, line[0], col[0]);
	cr_assert_geq(disk[0], 0);
	cr_assert_geq(disk[1], 0, "the last byte that decoded");
	cr_assert_eq(disk[2], -1, "past what decodes");
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

/* A gzip stream cut inside its header is told apart from one cut in its
 * data; a lone 0x1f is such a header (issue 10: it used to read as empty). */
Test(source, header_cut_is_told_apart)
{
	struct bytes data = payload(5000, 29);
	struct bytes gz = gzip_bytes(data.p, data.n, 6);
	size_t cuts[] = {1, 2, 5, 9, 40};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct bytes cut = {gz.p, cuts[i], cuts[i]};
		struct trex_source *src = open_mem(&cut);
		struct trex_stream *st;
		struct trex_error err;
		const char *p;
		size_t len;
		uint64_t off;
		bool truncated = false;

		cr_assert(trex_source_is_gzip(src), "cut %zu", cuts[i]);
		cr_assert_eq(trex_stream_open(src, 4096, TREX_STREAM_INLINE, &st, &err), TREX_OK);
		while (trex_stream_next(st, 0, &p, &len, &off, &truncated, &err) == TREX_OK && len)
			;
		cr_assert(truncated, "cut %zu", cuts[i]);
		cr_assert_eq(trex_stream_header_cut(st), cuts[i] < 10, "cut %zu", cuts[i]);
		trex_stream_close(st);
		trex_source_close(src);
	}
	free(gz.p);
	free(data.p);
}

/* ---- background producer ---------------------------------------------------------------- */

Test(source, background_stopped_early, .timeout = 120)
{
	struct bytes data = payload(8 << 20, 18);
	struct bytes gz = gzip_bytes(data.p, data.n, 1);
	struct trex_source *src = open_mem(&gz);
	uint64_t seed = 8;

	for (int i = 0; i < 40; i++) {
		struct trex_stream *st;
		struct trex_error err;
		size_t chunk = 4096 + rnd_below(&seed, 1 << 18), carry = 0, len;
		int take = i % 5;
		const char *win;
		uint64_t off;
		bool trunc;

		cr_assert_eq(trex_stream_open(src, chunk, true, &st, &err), TREX_OK);
		for (int k = 0; k < take; k++) {
			cr_assert_eq(trex_stream_next(st, carry, &win, &len, &off, &trunc, &err),
			             TREX_OK);
			cr_assert(memcmp(win, data.p + off, len) == 0);
			carry = len / 2;
		}
		if (i % 7 == 0)
			usleep(2000); /* let the producer fill every slot and block */
		trex_stream_close(st);
	}
	trex_source_close(src);
	free(gz.p);
	free(data.p);
}

/* What zlib decodes of gz before it stops, at its end or at an error. */
static struct bytes zlib_decoded(const struct bytes *gz, bool *error)
{
	struct bytes out = {0};
	unsigned char chunk[4096];
	z_stream zs = {0};
	int ret;

	cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = gz->p;
	zs.avail_in = (uInt)gz->n;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		ret = inflate(&zs, Z_NO_FLUSH);
		bytes_add(&out, chunk, sizeof(chunk) - zs.avail_out);
	} while (ret == Z_OK);
	*error = ret != Z_STREAM_END;
	inflateEnd(&zs);
	return out;
}

/* Corrupt data: ISA-L decodes ahead into a buffer of its own and reported
 * an error it met there before the good bytes that precede it (the smaller
 * the chunk, the more were lost), or wrote a few bytes past where zlib
 * stops. Whatever the chunk and whoever decodes, the bytes before a break
 * are now zlib's, and then the corruption is reported. */
Test(source, corrupt_gzip_streams_the_bytes_zlib_decodes, .timeout = 120)
{
	struct bytes data = payload(300000, 41), gz = gzip_bytes(data.p, data.n, 6);
	static const size_t chunks[] = {1, 7, 100, 2458, 4096, 65536, 1 << 20};
	unsigned early = 0;
	uint64_t seed = 99;

	for (int c = 0; c < 60; c++) {
		struct bytes bad = {0};
		bool zerr;

		bytes_add(&bad, gz.p, gz.n);
		size_t at = 10 + rnd_below(&seed, c < 30 ? 200 : bad.n - 40);
		for (int k = 0; k < 3; k++)
			bad.p[at + (size_t)k] ^= (unsigned char)(0x5a + 17 * k + c);
		struct bytes want = zlib_decoded(&bad, &zerr);
		early += zerr && want.n < data.n;
		for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
			struct trex_source *src = open_mem(&bad);
			enum trex_stream_ahead ahead = (enum trex_stream_ahead)(i % 3);
			struct drained d = drain(src, chunks[i], ahead, 0);

			cr_assert_eq(d.out.n, want.n,
			             "corruption %d at %zu, chunk %zu: %zu bytes, zlib %zu", c, at,
			             chunks[i], d.out.n, want.n);
			cr_assert(want.n == 0 || memcmp(d.out.p, want.p, want.n) == 0,
			          "corruption %d, chunk %zu", c, chunks[i]);
			cr_assert_eq(d.status != TREX_OK, zerr, "corruption %d, chunk %zu", c,
			             chunks[i]);
			free(d.out.p);
			trex_source_close(src);
		}
		free(want.p);
		free(bad.p);
	}
	cr_assert_gt(early, 10, "breaks inside the data were tried");
	free(data.p);
	free(gz.p);
}
