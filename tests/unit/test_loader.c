#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/trex-loader-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static const char rank_file[] =
	"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
	"\"ts\":1,\"dur\":2}],\"distributedInfo\":{\"rank\":%d}}";

Test(loader, files_merge_one_rank_each)
{
	char text[512];
	char *paths[3];
	for (int r = 0; r < 3; r++) {
		snprintf(text, sizeof text, rank_file, 2 - r);
		paths[r] = write_temp(text);
	}
	struct trex_index *idx;
	struct trex_error err;
	struct trex_load_opts opts = {.threads = 2};
	cr_assert_eq(trex_load_paths((const char *const *)paths, 3, &opts, &idx, &err), TREX_OK);
	cr_assert_eq(trex_index_file_count(idx), 3);
	cr_assert_eq(trex_index_slice_count(idx), 3);
	for (uint32_t f = 0; f < 3; f++) {
		cr_assert_eq(trex_index_file(idx, f)->rank, 2 - (int64_t)f);
		cr_assert_str_eq(trex_index_str(idx, trex_index_file(idx, f)->path), paths[f]);
	}
	/* same pid/tid in different files are different tracks */
	cr_assert_neq(trex_index_slice(idx, 0)->track, trex_index_slice(idx, 1)->track);
	trex_index_free(idx);
	for (int r = 0; r < 3; r++) {
		unlink(paths[r]);
		free(paths[r]);
	}
}

Test(loader, rank_defaults_to_file_position)
{
	char *a = write_temp("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}]");
	char *b = write_temp("[{\"ph\":\"X\",\"name\":\"b\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}]");
	const char *paths[] = {a, b};
	struct trex_index *idx;
	struct trex_error err;
	cr_assert_eq(trex_load_paths(paths, 2, NULL, &idx, &err), TREX_OK);
	cr_assert_eq(trex_index_file(idx, 1)->rank, 1);
	cr_assert_not(trex_index_file(idx, 1)->has_rank);
	trex_index_free(idx);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

Test(loader, missing_file_names_the_path)
{
	const char *paths[] = {"/nonexistent/trace.json"};
	struct trex_index *idx;
	struct trex_error err;
	cr_assert_eq(trex_load_paths(paths, 1, NULL, &idx, &err), TREX_IO);
	cr_assert_null(idx);
	char msg[1024];
	trex_error_format(&err, msg, sizeof msg);
	cr_assert_not_null(strstr(msg, "/nonexistent/trace.json"), "%s", msg);
}

Test(loader, strict_mode_refuses_truncation)
{
	char *p = write_temp("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1},"
			     "{\"ph\":\"X\",\"na");
	const char *paths[] = {p};
	struct trex_index *idx;
	struct trex_error err;
	cr_assert_eq(trex_load_paths(paths, 1, NULL, &idx, &err), TREX_OK);
	cr_assert(trex_index_file(idx, 0)->truncated);
	trex_index_free(idx);
	struct trex_load_opts strict = {.strict = true};
	cr_assert_eq(trex_load_paths(paths, 1, &strict, &idx, &err), TREX_FORMAT);
	cr_assert_eq(err.offset, 54, "the incomplete event starts at byte 54, got %lld",
		     (long long)err.offset);
	cr_assert_eq(err.line, 1);
	cr_assert_eq(err.col, 55);
	unlink(p);
	free(p);
}

struct progress_seen {
	uint64_t calls, last_events;
	volatile sig_atomic_t *cancel;
};

static void on_progress(const struct trex_load_progress *pr, void *user)
{
	struct progress_seen *s = user;
	s->calls++;
	s->last_events = pr->events;
	if (s->cancel)
		*s->cancel = 1;
}

static char *many_events(size_t n, size_t *len)
{
	char *s = malloc(n * 80 + 16);
	size_t k = (size_t)sprintf(s, "[");
	for (size_t i = 0; i < n; i++)
		k += (size_t)sprintf(s + k, "%s{\"ph\":\"X\",\"name\":\"e\",\"pid\":0,\"tid\":0,\"ts\":%zu,\"dur\":1}",
				     i ? "," : "", i * 2);
	k += (size_t)sprintf(s + k, "]");
	*len = k;
	return s;
}

Test(loader, progress_and_cancel)
{
	size_t len;
	char *text = many_events(300000, &len);
	struct trex_source *src;
	struct trex_error err;
	struct progress_seen seen = {0};
	struct trex_load_opts opts = {.threads = 1, .progress = on_progress, .progress_user = &seen};
	struct trex_index *idx;
	cr_assert_eq(trex_source_open_memory("m", text, len, false, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK);
	cr_assert_gt(seen.calls, 1);
	cr_assert_eq(trex_index_slice_count(idx), 300000);
	trex_index_free(idx);

	volatile sig_atomic_t cancel = 0;
	struct progress_seen stop = {.cancel = &cancel};
	opts.progress_user = &stop;
	opts.cancel = &cancel;
	cr_assert_eq(trex_source_open_memory("m", text, len, false, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_CANCELLED);
	cr_assert_null(idx);
	free(text);
}

static unsigned char *gzip_bytes(const char *text, size_t len, size_t *out_len)
{
	uLongf cap = compressBound(len) + 64;
	unsigned char *z = malloc(cap);
	z_stream zs = {0};
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)(uintptr_t)text;
	zs.avail_in = (uInt)len;
	zs.next_out = z;
	zs.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	return z;
}

struct progress_last {
	struct trex_load_progress last;
};

static void keep_last(const struct trex_load_progress *pr, void *user)
{
	((struct progress_last *)user)->last = *pr;
}

/* For gzip the progress line needs compressed bytes against the file's
 * size on disk, and decoded bytes for the rate: both, never double. */
Test(loader, gzip_progress_counts_disk_and_decoded_bytes)
{
	size_t len, gz_len;
	char *text = many_events(300000, &len);
	unsigned char *gz = gzip_bytes(text, len, &gz_len);
	struct trex_source *src;
	struct trex_error err;
	struct progress_last seen = {0};
	struct trex_load_opts opts = {.threads = 2, .progress = keep_last, .progress_user = &seen};
	struct trex_index *idx;
	cr_assert_eq(trex_source_open_memory("m.gz", gz, gz_len, false, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK);
	cr_assert_eq(seen.last.bytes_total, gz_len);
	cr_assert_eq(seen.last.disk_done, gz_len, "all compressed bytes: %llu of %zu",
		     (unsigned long long)seen.last.disk_done, gz_len);
	cr_assert_eq(seen.last.bytes_done, len, "every decoded byte once: %llu of %zu",
		     (unsigned long long)seen.last.bytes_done, len);
	trex_index_free(idx);
	free(gz);
	free(text);
}
