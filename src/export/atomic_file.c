#include "config.h"

#include "trex/export/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SUFFIX ".tmp"

struct trex_atomic_file {
	char *path; /* where the file goes: a symlink's target, resolved */
	char *tmp;  /* NULL once open: written in place (a device or FIFO) */
	FILE *stream;
	bool force;
};

static void atomic_free(struct trex_atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	free(af);
}

/* The mode a new file gets from open(..., 0666): mkstemp makes 0600. umask
 * can only be read by setting it; this runs before any thread starts. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

/* A device, FIFO or socket (/dev/null, /dev/stdout on a pipe, a named
 * pipe) is written in place: renaming a file over it would replace the
 * node itself (as root, /dev/null), and writing replaces nothing. */
static bool written_in_place(const struct stat *st)
{
	return !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode);
}

/* *exists and *st: what path names (symlinks followed), for pick_target. */
static enum trex_status check_target(const char *path, bool force, struct stat *st, bool *exists,
                                     struct trex_error *err)
{
	*exists = stat(path, st) == 0;
	if (!*exists)
		return TREX_OK;
	if (S_ISDIR(st->st_mode))
		return trex_error_set(err, TREX_IO, path, -1, "is a directory");
	if (written_in_place(st))
		return TREX_OK;
	if (!force)
		return trex_error_set(err, TREX_EXISTS, path, -1, "output exists (use --force)");
	return TREX_OK;
}

enum trex_status trex_atomic_check(const char *path, bool force, struct trex_error *err)
{
	struct stat st;
	bool exists;

	return check_target(path, force, &st, &exists, err);
}

/* Creates "<path>.XXXXXX.tmp" beside the target. */
static enum trex_status make_temp(struct trex_atomic_file *af, struct trex_error *err)
{
	size_t len = strlen(af->path);
	int fd;

	af->tmp = malloc(len + sizeof(".XXXXXX" TMP_SUFFIX));
	if (!af->tmp)
		return trex_error_set(err, TREX_NOMEM, af->path, -1, "out of memory");
	memcpy(af->tmp, af->path, len);
	memcpy(af->tmp + len, ".XXXXXX" TMP_SUFFIX, sizeof(".XXXXXX" TMP_SUFFIX));
	fd = mkstemps(af->tmp, (int)strlen(TMP_SUFFIX));
	if (fd < 0)
		return trex_error_set(err, TREX_IO, af->path, -1, "cannot create: %s",
		                      strerror(errno));
	if (fchmod(fd, new_file_mode()) != 0 || !(af->stream = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(af->tmp);
		return trex_error_set(err, TREX_IO, af->tmp, -1, "%s", strerror(e));
	}
	return TREX_OK;
}

/* Where af's bytes go, when its path names something (st): a device or
 * FIFO is opened as it is (no temp file); a symlink to a file is followed,
 * so the file is replaced and the link kept (a link left dangling names
 * nothing: it is replaced itself, with force). */
static enum trex_status pick_target(struct trex_atomic_file *af, const struct stat *st,
                                    struct trex_error *err)
{
	struct stat lst;
	char *real;

	if (written_in_place(st)) {
		if (!(af->stream = fopen(af->path, "w")))
			return trex_error_set(err, TREX_IO, af->path, -1, "cannot write: %s",
			                      strerror(errno));
		return TREX_OK;
	}
	if (lstat(af->path, &lst) != 0 || !S_ISLNK(lst.st_mode))
		return TREX_OK;
	if (!(real = realpath(af->path, NULL)))
		return trex_error_set(err, TREX_IO, af->path, -1, "%s", strerror(errno));
	free(af->path);
	af->path = real;
	return TREX_OK;
}

enum trex_status trex_atomic_open(const char *path, bool force, struct trex_atomic_file **out,
                                  FILE **stream, struct trex_error *err)
{
	struct trex_atomic_file *af;
	enum trex_status st;
	struct stat target;
	bool exists;

	*out = NULL;
	*stream = NULL;
	st = check_target(path, force, &target, &exists, err);
	if (st != TREX_OK)
		return st;
	af = calloc(1, sizeof(*af));
	if (!af || !(af->path = strdup(path))) {
		free(af);
		return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	}
	af->force = force;
	st = exists ? pick_target(af, &target, err) : TREX_OK;
	if (st == TREX_OK && !af->stream)
		st = make_temp(af, err);
	if (st != TREX_OK) {
		atomic_free(af);
		return st;
	}
	*out = af;
	*stream = af->stream;
	return TREX_OK;
}

/* Flushes the data to disk and closes the stream (always). */
static enum trex_status finish_stream(struct trex_atomic_file *af, struct trex_error *err)
{
	int failed = fflush(af->stream) != 0 || ferror(af->stream) ||
	             (af->tmp && fsync(fileno(af->stream)) != 0);
	int e = errno;

	if (fclose(af->stream) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	af->stream = NULL;
	if (failed)
		return trex_error_set(err, TREX_IO, af->path, -1, "write error: %s", strerror(e));
	return TREX_OK;
}

/* rename() that never replaces an existing file unless forced. Where the
 * file system has no RENAME_NOREPLACE, a check just before is the best we
 * can do. */
static int rename_into_place(const struct trex_atomic_file *af)
{
	struct stat st;

	if (af->force)
		return rename(af->tmp, af->path);
	if (renameat2(AT_FDCWD, af->tmp, AT_FDCWD, af->path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (lstat(af->path, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(af->tmp, af->path);
}

/* Makes the rename itself durable; failures here lose nothing already
 * visible, so they are not reported. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

enum trex_status trex_atomic_commit(struct trex_atomic_file *af, struct trex_error *err)
{
	enum trex_status st = finish_stream(af, err);

	if (!af->tmp) { /* written in place */
		atomic_free(af);
		return st;
	}
	if (st == TREX_OK && rename_into_place(af) != 0) {
		if (errno == EEXIST)
			st = trex_error_set(err, TREX_EXISTS, af->path, -1,
			                    "output exists (use --force)");
		else
			st = trex_error_set(err, TREX_IO, af->path, -1, "cannot rename %s: %s",
			                    af->tmp, strerror(errno));
	}
	if (st != TREX_OK)
		unlink(af->tmp);
	else
		sync_dir(af->path);
	atomic_free(af);
	return st;
}

void trex_atomic_abort(struct trex_atomic_file *af)
{
	if (!af)
		return;
	if (af->stream)
		fclose(af->stream);
	if (af->tmp)
		unlink(af->tmp);
	atomic_free(af);
}
