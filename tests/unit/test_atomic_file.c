/* Atomic output files: no clobbering without force, replacement with force,
 * abort leaves nothing, and the final name never shows a partial file;
 * symlinks are followed and devices and FIFOs written in place. */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trex/export/atomic_file.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/trex-atomic-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

TestSuite(atomic_file, .init = make_dir, .fini = remove_dir);

static const char *in_dir(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static size_t entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(atomic_file, new_file_gets_content_and_umask_mode)
{
	struct trex_atomic_file *af;
	struct trex_error err;
	struct stat st;
	FILE *f;
	char path[512];
	mode_t old = umask(027);

	snprintf(path, sizeof(path), "%s", in_dir("out.csv"));
	cr_assert_eq(trex_atomic_open(path, false, &af, &f, &err), TREX_OK);
	fputs("a,b\n", f);
	cr_assert_eq(trex_atomic_commit(af, &err), TREX_OK);
	umask(old);
	cr_assert_str_eq(read_file(path), "a,b\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0640);
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, existing_file_is_kept_without_force)
{
	struct trex_atomic_file *af = NULL;
	struct trex_error err;
	FILE *f = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s", in_dir("out.csv"));
	write_file(path, "old\n");
	cr_assert_eq(trex_atomic_open(path, false, &af, &f, &err), TREX_EXISTS);
	cr_assert_null(af);
	cr_assert_eq(err.status, TREX_EXISTS);
	cr_assert_str_eq(err.path, path);
	cr_assert_str_eq(read_file(path), "old\n");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, force_replaces_and_final_name_never_shows_partial_data)
{
	struct trex_atomic_file *af;
	struct trex_error err;
	FILE *f;
	char path[512];

	snprintf(path, sizeof(path), "%s", in_dir("out.json"));
	write_file(path, "old\n");
	cr_assert_eq(trex_atomic_open(path, true, &af, &f, &err), TREX_OK);
	fputs("new data\n", f);
	fflush(f);
	/* Written and flushed, not committed: the target still holds the old file,
	 * and the temp file sits beside it under "<name>.XXXXXX.tmp". */
	cr_assert_str_eq(read_file(path), "old\n");
	cr_assert_eq(entries(), 2);
	DIR *d = opendir(dir);
	struct dirent *e;
	bool temp_seen = false;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, "out.json.", 9) == 0 && len == 9 + 6 + 4 &&
		    strcmp(e->d_name + len - 4, ".tmp") == 0)
			temp_seen = true;
	}
	closedir(d);
	cr_assert(temp_seen);
	cr_assert_eq(trex_atomic_commit(af, &err), TREX_OK);
	cr_assert_str_eq(read_file(path), "new data\n");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, abort_leaves_nothing)
{
	struct trex_atomic_file *af;
	struct trex_error err;
	FILE *f;
	char path[512];

	snprintf(path, sizeof(path), "%s", in_dir("out.csv"));
	cr_assert_eq(trex_atomic_open(path, false, &af, &f, &err), TREX_OK);
	fputs("partial", f);
	cr_assert_null(read_file(path));
	trex_atomic_abort(af);
	cr_assert_null(read_file(path));
	cr_assert_eq(entries(), 0);
	trex_atomic_abort(NULL);
}

Test(atomic_file, file_created_meanwhile_is_not_clobbered)
{
	struct trex_atomic_file *af;
	struct trex_error err;
	FILE *f;
	char path[512];

	snprintf(path, sizeof(path), "%s", in_dir("race.csv"));
	cr_assert_eq(trex_atomic_open(path, false, &af, &f, &err), TREX_OK);
	fputs("mine\n", f);
	write_file(path, "theirs\n");
	cr_assert_eq(trex_atomic_commit(af, &err), TREX_EXISTS);
	cr_assert_str_eq(err.path, path);
	cr_assert_str_eq(read_file(path), "theirs\n");
	cr_assert_eq(entries(), 1);
}

Test(atomic_file, directories_and_missing_parents_are_errors)
{
	struct trex_atomic_file *af;
	struct trex_error err;
	FILE *f;
	char path[512];

	cr_assert_eq(trex_atomic_open(dir, true, &af, &f, &err), TREX_IO);
	snprintf(path, sizeof(path), "%s", in_dir("no/such/dir.csv"));
	cr_assert_eq(trex_atomic_open(path, false, &af, &f, &err), TREX_IO);
	cr_assert_str_eq(err.path, path);
	cr_assert_eq(entries(), 0);
}

static void *drain_fifo(void *path)
{
	static char got[64];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(got, 1, sizeof(got) - 1, f) : 0;

	got[n] = '\0';
	if (f)
		fclose(f);
	return got;
}

/* Renaming over a FIFO (or, as root, /dev/null) replaced the node itself
 * with a regular file: such targets are written in place, force or not. */
Test(atomic_file, fifos_and_devices_are_written_in_place)
{
	char fifo[512];
	struct trex_atomic_file *af;
	struct trex_error err;
	struct stat st;
	pthread_t reader;
	void *got;
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s", in_dir("pipe"));
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	for (int force = 0; force < 2; force++) {
		cr_assert_eq(pthread_create(&reader, NULL, drain_fifo, fifo), 0);
		cr_assert_eq(trex_atomic_check(fifo, force, &err), TREX_OK, "%s", err.message);
		cr_assert_eq(trex_atomic_open(fifo, force, &af, &f, &err), TREX_OK, "%s",
		             err.message);
		fputs("through the pipe\n", f);
		cr_assert_eq(trex_atomic_commit(af, &err), TREX_OK, "%s", err.message);
		cr_assert_eq(pthread_join(reader, &got), 0);
		cr_assert_str_eq(got, "through the pipe\n");
		cr_assert_eq(lstat(fifo, &st), 0);
		cr_assert(S_ISFIFO(st.st_mode), "still a FIFO (force %d)", force);
		cr_assert_eq(entries(), 1, "no temp file left");
	}
	/* a device without force (with it, a failure would replace /dev/null) */
	cr_assert_eq(trex_atomic_open("/dev/null", false, &af, &f, &err), TREX_OK, "%s",
	             err.message);
	fputs("nothing", f);
	cr_assert_eq(trex_atomic_commit(af, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_atomic_open("/dev/null", false, &af, &f, &err), TREX_OK);
	trex_atomic_abort(af);
	cr_assert_eq(stat("/dev/null", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
}

/* A symlink to a file: the file is replaced (with force), the link kept. */
Test(atomic_file, symlinks_are_followed_to_the_file)
{
	char target[512], link_path[512], *text;
	struct trex_atomic_file *af;
	struct trex_error err;
	struct stat st;
	FILE *f;

	snprintf(target, sizeof(target), "%s", in_dir("real.csv"));
	snprintf(link_path, sizeof(link_path), "%s", in_dir("link.csv"));
	write_file(target, "old\n");
	cr_assert_eq(symlink("real.csv", link_path), 0);
	cr_assert_eq(trex_atomic_open(link_path, false, &af, &f, &err), TREX_EXISTS);
	cr_assert_eq(trex_atomic_open(link_path, true, &af, &f, &err), TREX_OK, "%s", err.message);
	fputs("new\n", f);
	cr_assert_eq(trex_atomic_commit(af, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(lstat(link_path, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link is kept");
	text = read_file(target);
	cr_assert_str_eq(text, "new\n");
	cr_assert_eq(entries(), 2, "no temp file left");
}
