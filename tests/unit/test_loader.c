#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index_fixture.h"
#include "trex/core/index.h"
#include "trex/load/json_args.h"
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
	/* numbered by rank: the last path has rank 0 */
	for (uint32_t f = 0; f < 3; f++) {
		cr_assert_eq(trex_index_file(idx, f)->rank, (int64_t)f);
		cr_assert_str_eq(trex_index_str(idx, trex_index_file(idx, f)->path), paths[2 - f]);
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
	char *a =
	    write_temp("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}]");
	char *b =
	    write_temp("[{\"ph\":\"X\",\"name\":\"b\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}]");
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

/* ---- ranks and file order ------------------------------------------------------------------ */

/* Writes text to dir/name; returns the path (malloc'd). */
static char *write_named(const char *dir, const char *name, const char *text)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path = malloc(len);
	FILE *f;

	cr_assert_not_null(path);
	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, true);
	cr_assert_eq(fclose(f), 0);
	return path;
}

static const char no_rank_file[] =
    "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]";

struct named {
	const char *name;
	int rank; /* -1: none */
};

/* Loads the files in the order of order[] (indexes into files[]) and
 * returns "path-name:rank ..." in file id order. */
static void load_order(const char *dir, const struct named *files, const size_t *order, size_t n,
                       char *out, size_t size)
{
	char *paths[8], text[512];
	struct trex_index *idx;
	struct trex_error err;
	size_t len = 0;

	cr_assert_leq(n, 8);
	for (size_t i = 0; i < n; i++) {
		const struct named *f = &files[order[i]];

		if (f->rank >= 0)
			snprintf(text, sizeof text, rank_file, f->rank);
		paths[i] = write_named(dir, f->name, f->rank >= 0 ? text : no_rank_file);
	}
	cr_assert_eq(trex_load_paths((const char *const *)paths, n, NULL, &idx, &err), TREX_OK,
	             "%s", err.message);
	out[0] = '\0';
	for (uint32_t f = 0; f < trex_index_file_count(idx); f++) {
		const struct trex_file *file = trex_index_file(idx, f);
		const char *path = trex_index_str(idx, file->path);

		len += (size_t)snprintf(out + len, size - len, "%s%s:%lld", f ? " " : "",
		                        strrchr(path, '/') + 1, (long long)file->rank);
	}
	trex_index_free(idx);
	for (size_t i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}

static void swap_sizes(size_t *a, size_t *b)
{
	size_t t = *a;

	*a = *b;
	*b = t;
}

/* The next permutation of v[0..n) in lexicographic order; false after the last. */
static bool next_permutation(size_t *v, size_t n)
{
	size_t i = n - 1, j = n - 1;

	while (i > 0 && v[i - 1] >= v[i])
		i--;
	if (i == 0)
		return false;
	while (v[j] <= v[i - 1])
		j--;
	swap_sizes(&v[i - 1], &v[j]);
	for (size_t a = i, b = n - 1; a < b; a++, b--)
		swap_sizes(&v[a], &v[b]);
	return true;
}

/* Every order of files[0..n) loads the same index: want. */
static void check_every_order(const struct named *files, size_t n, const char *want)
{
	char tmpl[] = "/tmp/trex-ranks-XXXXXX", got[512];
	const char *dir = mkdtemp(tmpl);
	size_t order[8], orders = 0, every = 1;

	cr_assert_not_null(dir);
	cr_assert_leq(n, 8);
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		every *= i + 1;
	}
	do {
		load_order(dir, files, order, n, got, sizeof got);
		cr_assert_str_eq(got, want, "order %zu %zu %zu %zu", order[0], order[1], order[2],
		                 order[3]);
		orders++;
	} while (next_permutation(order, n));
	cr_assert_eq(orders, every);
	rmdir(dir);
}

Test(loader, a_file_without_rank_takes_the_lowest_free_one)
{
	/* One file of rank 1 (distributedInfo), one without: 0 for it, whichever comes first. */
	const struct named mixed[] = {{"base.json", 1}, {"other.json", -1}};
	char tmpl[] = "/tmp/trex-ranks-XXXXXX", got[512];
	const char *dir = mkdtemp(tmpl);

	cr_assert_not_null(dir);
	load_order(dir, mixed, (const size_t[]){0, 1}, 2, got, sizeof got);
	cr_assert_str_eq(got, "other.json:0 base.json:1");
	load_order(dir, mixed, (const size_t[]){1, 0}, 2, got, sizeof got);
	cr_assert_str_eq(got, "other.json:0 base.json:1");
	rmdir(dir);
}

Test(loader, files_without_rank_fill_the_gaps_in_command_line_order)
{
	const struct named files[] = {{"x.json", 0}, {"y.json", -1}, {"z.json", 2}, {"w.json", -1}};
	char tmpl[] = "/tmp/trex-ranks-XXXXXX", got[512];
	const char *dir = mkdtemp(tmpl);

	cr_assert_not_null(dir);
	load_order(dir, files, (const size_t[]){0, 1, 2, 3}, 4, got, sizeof got);
	cr_assert_str_eq(got, "x.json:0 y.json:1 z.json:2 w.json:3");
	load_order(dir, files, (const size_t[]){3, 2, 1, 0}, 4, got, sizeof got);
	cr_assert_str_eq(got, "x.json:0 w.json:1 z.json:2 y.json:3");
	rmdir(dir);
}

Test(loader, file_order_does_not_change_the_index)
{
	/* two runs of rank 1, rank 0, and a file without rank (2) */
	const struct named files[] = {
	    {"test.json", 1}, {"base.json", 1}, {"r0.json", 0}, {"none.json", -1}};

	check_every_order(files, 4, "r0.json:0 base.json:1 test.json:1 none.json:2");
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
	char *p =
	    write_temp("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1},"
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
		k += (size_t)sprintf(
		    s + k,
		    "%s{\"ph\":\"X\",\"name\":\"e\",\"pid\":0,\"tid\":0,\"ts\":%zu,\"dur\":1}",
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
	struct trex_load_opts opts = {
	    .threads = 1, .progress = on_progress, .progress_user = &seen};
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
	unsigned char *gz = fixture_gzip(text, len, &gz_len);
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

/* ---- gzip parsed on several threads ------------------------------------------------ */

/* A Kineto-like trace whose args hold text that looks like event
 * boundaries ("}, {"), so guessed part starts are sometimes wrong, with
 * top-level members before and after the events array, and an unknown key
 * in most events (counted once even when a window cuts the event). */
static char *mixed_trace(size_t n, size_t *len)
{
	char *s = malloc(n * 240 + 512);
	size_t k =
	    (size_t)sprintf(s, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0}],"
	                       "\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[");
	for (size_t i = 0; i < n; i++) {
		const char *sep = i ? ",\n  " : "";
		if (i % 7 == 3)
			k += (size_t)sprintf(
			    s + k,
			    "%s{\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\",\"pid\":1,"
			    "\"tid\":2,\"ts\":%zu,\"args\":{\"n\":%zu}}",
			    sep, i * 3, i);
		else if (i % 11 == 5)
			k +=
			    (size_t)sprintf(s + k,
			                    "%s{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":%zu,"
			                    "\"args\":{\"bytes\":%zu}}",
			                    sep, i * 3, i * 10);
		else
			k += (size_t)sprintf(
			    s + k,
			    "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"op%zu\",\"zz\":0,"
			    "\"pid\":%zu,\"tid\":%zu,\"ts\":%zu,\"dur\":2,\"args\":"
			    "{\"text\":\"a}, {b\",\"correlation\":%zu,\"External id\":%zu}}",
			    sep, i % 2 ? "kernel" : "cpu_op", i % 13, i % 2, i % 3, i * 3, i,
			    i / 2);
	}
	k += (size_t)sprintf(s + k, "],\"distributedInfo\":{\"rank\":5},\"traceName\":\"t\"}\n");
	*len = k;
	return s;
}

/* Args as their reference; a few are read back too (each read of a gzip
 * source inflates from an access point, too slow for every event). */
static void put_args(FILE *f, const struct trex_index *idx, trex_args_ref ref, uint32_t i)
{
	fprintf(f, " args@%llu+%u", (unsigned long long)trex_json_args_offset(ref),
	        trex_json_args_len(ref));
	if (i % 4096 != 7)
		return;
	char *text = NULL;
	size_t n = 0;
	struct trex_error err;
	cr_assert_eq(trex_index_args_json(idx, 0, ref, &text, &n, &err), TREX_OK);
	fprintf(f, " args=%s", text ? text : "-");
	free(text);
}

/* Everything the loader decides, as text: file statistics, the first
 * problem, every slice, instant and sample, args read back lazily. */
static char *index_text(const struct trex_index *idx)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);
	const struct trex_file *file = trex_index_file(idx, 0);
	char msg[1024] = "";
	if (file->first_problem.status != TREX_OK)
		trex_error_format(&file->first_problem, msg, sizeof msg);
	fprintf(f, "events=%llu truncated=%u rank=%lld/%u base=%lld decoded=%llu dialect=%s\n%s\n",
	        (unsigned long long)file->events, file->truncated, (long long)file->rank,
	        file->has_rank, (long long)file->base_time_ns,
	        (unsigned long long)file->bytes_decoded, trex_index_str(idx, file->dialect), msg);
	for (uint32_t ph = 0; ph < file->event_type_count; ph++)
		fprintf(f, "ph%u=%llu ", ph, (unsigned long long)file->event_types[ph].events);
#define PUT_INTEGRITY(field, label)                                                                \
	fprintf(f, "%s=%llu ", #field, (unsigned long long)file->integrity.field);
	TREX_INTEGRITY_INFO(PUT_INTEGRITY)
#undef PUT_INTEGRITY
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		fprintf(f, "\nX %lld %lld %s %s %u %u %u %u %u", (long long)s->ts,
		        (long long)s->dur, trex_index_str(idx, s->cat),
		        trex_index_str(idx, s->name), s->track, s->depth, s->flags,
		        trex_slice_launch_link(idx, i), trex_slice_op_link(idx, i));
		put_args(f, idx, s->args, i);
	}
	for (uint32_t i = 0; i < trex_index_instant_count(idx); i++) {
		const struct trex_instant *in = trex_index_instant(idx, i);
		fprintf(f, "\ni %lld %s %u", (long long)in->ts, trex_index_str(idx, in->name),
		        in->track);
		put_args(f, idx, in->args, i);
	}
	for (uint32_t i = 0; i < trex_index_sample_count(idx); i++)
		fprintf(f, "\nC %lld %g", (long long)trex_index_sample(idx, i)->ts,
		        trex_index_sample(idx, i)->value);
	fclose(f);
	return out;
}

/* Loads gzip bytes; returns the index as text, or "status N: message". */
static char *load_gz_text(const unsigned char *gz, size_t gz_len, unsigned threads, size_t window)
{
	struct trex_source *src;
	struct trex_error err;
	struct trex_index *idx;
	struct trex_load_opts opts = {.threads = threads, .stream_window = window};
	cr_assert_eq(trex_source_open_memory("m.gz", gz, gz_len, false, &src, &err), TREX_OK);
	enum trex_status s = trex_load_sources(&src, 1, &opts, &idx, &err);
	if (s != TREX_OK) {
		char msg[1024], *out = NULL;
		trex_error_format(&err, msg, sizeof msg);
		cr_assert_gt(asprintf(&out, "status %d: %s", (int)s, msg), 0);
		return out;
	}
	char *text = index_text(idx);
	trex_index_free(idx);
	return text;
}

/* One thread with the default window is the reference; several threads
 * with windows down to a few events must give the same index. */
static void expect_same_index(const unsigned char *gz, size_t gz_len, const char *what)
{
	static const size_t windows[] = {0, 65536, 4096, 700};
	static const unsigned threads[] = {2, 3, 5};
	char *ref = load_gz_text(gz, gz_len, 1, 0);
	for (size_t w = 0; w < sizeof windows / sizeof *windows; w++)
		for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
			char *got = load_gz_text(gz, gz_len, threads[t], windows[w]);
			cr_assert(strcmp(ref, got) == 0,
			          "%s: %u threads, %zu-byte windows differ:\n"
			          "%.300s\n--- vs ---\n%.300s",
			          what, threads[t], windows[w], ref, got);
			free(got);
		}
	free(ref);
}

static unsigned char *gzip_text(const char *text, size_t len, size_t *gz_len)
{
	return fixture_gzip(text, len, gz_len);
}

Test(loader, gzip_threads_give_the_one_thread_index)
{
	size_t len, gz_len;
	char *text = mixed_trace(4000, &len);
	unsigned char *gz = gzip_text(text, len, &gz_len);
	char *ref = load_gz_text(gz, gz_len, 1, 0);
	cr_assert_not_null(strstr(ref, "events=4000 truncated=0 rank=5/1 base=1700000000000000000"),
	                   "%.200s", ref);
	cr_assert_not_null(strstr(ref, "args={\"text\":\"a}, {b\""), "args read back");
	free(ref);
	expect_same_index(gz, gz_len, "whole trace");
	free(gz);
	free(text);
}

Test(loader, gzip_threads_bare_array_and_members_after_events)
{
	size_t len, gz_len;
	char *text = many_events(8000, &len);
	unsigned char *gz = gzip_text(text, len, &gz_len);
	expect_same_index(gz, gz_len, "bare array");
	free(gz);
	/* a long member after the events straddles windows at the top level */
	char *obj = malloc(len + 70000);
	size_t k = (size_t)sprintf(obj, "{\"traceEvents\":%s,\"deviceProperties\":[", text);
	for (int i = 0; i < 5000; i++)
		k += (size_t)sprintf(obj + k, "%s{\"id\":%d}", i ? "," : "", i);
	k += (size_t)sprintf(obj + k, "],\"baseTimeNanoseconds\":42} trailing");
	gz = gzip_text(obj, k, &gz_len);
	char *ref = load_gz_text(gz, gz_len, 1, 0);
	cr_assert_not_null(strstr(ref, "base=42"), "%.200s", ref);
	cr_assert_not_null(strstr(ref, "expected the end of input after the trace"), "%.400s", ref);
	free(ref);
	expect_same_index(gz, gz_len, "members after the events, then garbage");
	free(gz);
	free(obj);
	free(text);
}

Test(loader, gzip_threads_truncated_input)
{
	size_t len, gz_len;
	char *text = mixed_trace(3000, &len);
	/* JSON cut inside an event, then compressed whole */
	size_t cut = len / 2 + 17;
	unsigned char *gz = gzip_text(text, cut, &gz_len);
	char *ref = load_gz_text(gz, gz_len, 1, 0);
	cr_assert_not_null(strstr(ref, "truncated=1"), "%.200s", ref);
	cr_assert_null(strstr(ref, "events=3000 "), "events lost: %.200s", ref);
	free(ref);
	expect_same_index(gz, gz_len, "JSON cut");
	free(gz);
	/* compressed stream cut: what decoded is kept */
	gz = gzip_text(text, len, &gz_len);
	expect_same_index(gz, gz_len * 2 / 3, "gzip cut");
	free(gz);
	free(text);
}

Test(loader, gzip_threads_corrupt_spots_and_corrupt_gzip)
{
	size_t len, gz_len;
	char *text = mixed_trace(3000, &len);
	/* lost quotes and brackets: skipped, counted, resynced */
	for (size_t at = 5000; at + 1000 < len; at += len / 9) {
		char *q = strchr(text + at, '"');
		*q = '}';
		char *b = strchr(q, '{');
		*b = 'x';
	}
	unsigned char *gz = gzip_text(text, len, &gz_len);
	char *ref = load_gz_text(gz, gz_len, 1, 0);
	cr_assert_not_null(strstr(ref, "syntax_errors="), "%.200s", ref);
	cr_assert_null(strstr(ref, "syntax_errors=0 "), "the corruption is seen: %.900s", ref);
	free(ref);
	expect_same_index(gz, gz_len, "corrupt JSON");
	/* a flipped byte in the deflate data ends the input where it broke */
	gz[gz_len / 2] ^= 0x5a;
	expect_same_index(gz, gz_len, "corrupt gzip");
	free(gz);
	free(text);
}

Test(loader, gzip_threads_cancel)
{
	size_t len, gz_len;
	char *text = many_events(300000, &len);
	unsigned char *gz = fixture_gzip(text, len, &gz_len);
	volatile sig_atomic_t cancel = 0;
	struct progress_seen stop = {.cancel = &cancel};
	struct trex_load_opts opts = {.threads = 2,
	                              .cancel = &cancel,
	                              .progress = on_progress,
	                              .progress_user = &stop,
	                              .stream_window = 65536};
	struct trex_source *src;
	struct trex_error err;
	struct trex_index *idx;
	cr_assert_eq(trex_source_open_memory("m.gz", gz, gz_len, false, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_CANCELLED);
	cr_assert_null(idx);
	free(gz);
	free(text);
}

/* ---- seams: where one stream window ends and the next begins ---------------------- */

/* Events whose strings hold escapes (\" \\ \/ \n \u00e9), escaped quotes
 * before text that looks like an event boundary ("},{"), raw multi-byte
 * UTF-8, nested args, one damaged event (a missing comma, skipped and
 * counted) and a top-level member after the events whose text looks like
 * events too: a seam falling inside any of these must change nothing. */
static char *seam_trace(size_t n, size_t *len)
{
	char *s = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&s, &size);
	fputs("{\"traceEvents\":[", f);
	for (size_t i = 0; i < n; i++) {
		const char *sep = i ? ",\n " : "";
		size_t ts = 1000 + i * 10;
		switch (i % 6) {
		case 0:
			fprintf(f,
			        "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm "
			        "\\\"a\\\"},{\\\"ph\\\":"
			        "\\\"X\\\"\",\"pid\":1,\"tid\":2,\"ts\":%zu,\"dur\":4,\"args\":"
			        "{\"Input Dims\":[[8,4096],[4096,1],[]],\"path\":\"c:\\\\\\\\\"}}",
			        sep, ts);
			break;
		case 1:
			fprintf(
			    f,
			    "%s{\"ph\":\"i\",\"s\":\"t\",\"name\":\"caf\\u00e9 \\/ \\n}, {\","
			    "\"pid\":1,\"tid\":2,\"ts\":%zu,\"args\":{\"t\":\"\\\\\\\"},{\\\"\"}}",
			    sep, ts + 1);
			break;
		case 2:
			fprintf(f,
			        "%s{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":%zu,"
			        "\"args\":{\"bytes\":%zu}}",
			        sep, ts + 2, i * 4096);
			break;
		case 3:
			fprintf(f,
			        "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
			        "\"k\xc3\xa9\xe2\x86\x92\xe2"
			        "\x98\xba%zu\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":2,\"args\":"
			        "{\"correlation\":%zu,\"grid\":[1,2,3]}}",
			        sep, i % 5, ts + 3, i);
			break;
		case 4:
			/* damaged once, in the middle: a missing comma */
			fprintf(
			    f,
			    "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\""
			    "%s\"pid\":1,\"tid\":2,\"ts\":%zu,\"dur\":1,\"args\":{\"correlation\":%"
			    "zu}}",
			    sep, i == n / 2 - 2 ? " " : ",", ts + 4, i - 1);
			break;
		default:
			fprintf(f,
			        "%s{\"ph\":\"B\",\"name\":\"step \\\"%zu\\\"\",\"pid\":3,\"tid\":3,"
			        "\"ts\":%zu},{\"ph\":\"E\",\"pid\":3,\"tid\":3,\"ts\":%zu}",
			        sep, i, ts + 5, ts + 8);
		}
	}
	fputs(
	    "],\"traceName\":\"x\\\"},{\\\"ph\\\":\\\"X\\\"\",\"distributedInfo\":{\"rank\":3}}\n",
	    f);
	fclose(f);
	*len = size;
	return s;
}

/* Drops the one thing a gzip load adds to the plain one: where in the
 * compressed bytes a problem lies (", compressed byte N" in a message). */
static void drop_compressed_byte(char *text)
{
	static const char note[] = ", compressed byte ";
	char *at = strstr(text, note);
	if (!at)
		return;
	char *digits_end = at + strlen(note);
	while (*digits_end >= '0' && *digits_end <= '9')
		digits_end++;
	memmove(at, digits_end, strlen(digits_end) + 1);
}

/* The plain trace on one thread is the reference; its gzip on 1, 2 and 4
 * threads in windows of every size from 24 to 160 bytes (so that seams
 * fall on every byte of an event) and a few larger ones must match it. */
Test(loader, gzip_seams_anywhere_give_the_plain_index)
{
	size_t len, gz_len;
	char *text = seam_trace(48, &len);
	unsigned char *gz = gzip_text(text, len, &gz_len);
	char *ref = load_gz_text((const unsigned char *)text, len, 1, 0);
	cr_assert_not_null(strstr(ref, "events=55 truncated=0 rank=3/1"), "%.300s", ref);
	cr_assert_not_null(strstr(ref, "syntax_errors=1 "), "the damaged event: %.900s", ref);
	cr_assert_not_null(strstr(ref, "cpu_op aten::mm \"a\"},{\"ph\":\"X\" "), "escapes: %.2000s",
	                   ref);
	cr_assert_not_null(strstr(ref, "\ni 1011000 caf\xc3\xa9 / \n}, { "), "instant: %.3000s",
	                   ref);
	cr_assert_not_null(strstr(ref, "args={\"correlation\":45,\"grid\":[1,2,3]}"),
	                   "args read back: %.2000s", ref);
	/* the gzip reference: the plain one, but the problem says where it
	 * lies in the compressed bytes too */
	char *gz_ref = load_gz_text(gz, gz_len, 1, 0);
	cr_assert_not_null(strstr(gz_ref, ", compressed byte "), "%.300s", gz_ref);
	char *plain_part = strdup(gz_ref);
	drop_compressed_byte(plain_part);
	cr_assert_str_eq(plain_part, ref);
	free(plain_part);
	static const size_t larger[] = {211, 509, 1031, 4099};
	static const unsigned threads[] = {1, 2, 4};
	size_t nlarger = sizeof larger / sizeof *larger;
	for (size_t w = 24; w <= 160 + nlarger; w++) {
		size_t window = w <= 160 ? w : larger[w - 161];
		for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
			char *got = load_gz_text(gz, gz_len, threads[t], window);
			cr_assert(strcmp(gz_ref, got) == 0,
			          "gzip on %u threads in %zu-byte windows differs:\n"
			          "%.600s\n--- vs ---\n%.600s",
			          threads[t], window, gz_ref, got);
			free(got);
		}
	}
	free(gz_ref);
	free(ref);
	free(gz);
	free(text);
}
