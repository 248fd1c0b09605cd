#include "config.h"

#include "trex/load/source_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trex/core/grow.h"

#define SOURCE_MAX ((size_t)64 << 20) /* a source file larger than this is not one */
#define WHY_MAX 320

struct entry {
	struct trex_srcfile f;
	char *recorded, *path, *text;
	char why[WHY_MAX];
	const char **lines;
	size_t *lens;
};

struct trex_srcfiles {
	char **dirs;
	size_t ndirs;
	char **old, **new_;
	size_t nmaps;
	struct entry **e; /* each its own allocation: what get returns stays put */
	size_t n, cap;
};

bool trex_srcfiles_map_valid(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq && eq > s && eq[1] != '\0';
}

static char *dup_range(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* A directory without its trailing slashes (but "/" stays). */
static char *dup_dir(const char *s, size_t n)
{
	while (n > 1 && s[n - 1] == '/')
		n--;
	return dup_range(s, n);
}

struct trex_srcfiles *trex_srcfiles_new(const char *const *dirs, size_t ndirs,
                                        const char *const *maps, size_t nmaps)
{
	struct trex_srcfiles *sf = calloc(1, sizeof(*sf));
	bool ok = sf != NULL;

	if (ok) {
		sf->dirs = calloc(ndirs + 1, sizeof(*sf->dirs));
		sf->old = calloc(nmaps + 1, sizeof(*sf->old));
		sf->new_ = calloc(nmaps + 1, sizeof(*sf->new_));
		ok = sf->dirs && sf->old && sf->new_;
	}
	for (size_t i = 0; ok && i < ndirs; i++, sf->ndirs++)
		ok = (sf->dirs[i] = dup_dir(dirs[i], strlen(dirs[i]))) != NULL;
	for (size_t i = 0; ok && i < nmaps; i++) {
		const char *eq = strchr(maps[i], '=');

		if (!eq || !trex_srcfiles_map_valid(maps[i]))
			continue;
		sf->old[sf->nmaps] = dup_dir(maps[i], (size_t)(eq - maps[i]));
		sf->new_[sf->nmaps] = dup_dir(eq + 1, strlen(eq + 1));
		ok = sf->old[sf->nmaps] && sf->new_[sf->nmaps];
		sf->nmaps++;
	}
	if (!ok) {
		trex_srcfiles_free(sf);
		return NULL;
	}
	return sf;
}

void trex_srcfiles_free(struct trex_srcfiles *sf)
{
	if (!sf)
		return;
	for (size_t i = 0; i < sf->ndirs; i++)
		free(sf->dirs[i]);
	for (size_t i = 0; i < sf->nmaps; i++) {
		free(sf->old[i]);
		free(sf->new_[i]);
	}
	for (size_t i = 0; i < sf->n; i++) {
		free(sf->e[i]->recorded);
		free(sf->e[i]->path);
		free(sf->e[i]->text);
		free(sf->e[i]->lines);
		free(sf->e[i]->lens);
		free(sf->e[i]);
	}
	free(sf->dirs);
	free(sf->old);
	free(sf->new_);
	free(sf->e);
	free(sf);
}

/* ---- reading one file -------------------------------------------------------------------- */

static bool split_lines(struct entry *e, size_t len)
{
	size_t n = 0, cap = 0;

	for (size_t pos = 0; pos < len;) {
		char *nl = memchr(e->text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - e->text) : len;
		const char **lines = trex_grow(e->lines, &cap, n + 1, sizeof(*lines), 256);
		size_t *lens;

		if (!lines)
			return false;
		e->lines = lines;
		if (!(lens = realloc(e->lens, cap * sizeof(*lens))))
			return false;
		e->lens = lens;
		lines[n] = e->text + pos;
		lens[n] = end - pos - (end > pos && e->text[end - 1] == '\r');
		n++;
		pos = end + 1;
	}
	e->f.nlines = n;
	return true;
}

/* Reads path into e; false (with errno) when it cannot. */
static bool read_text(struct entry *e, const char *path)
{
	FILE *in = fopen(path, "rb");
	struct stat st;
	size_t len;

	if (!in)
		return false;
	if (fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > SOURCE_MAX || !(e->text = malloc((size_t)st.st_size + 1))) {
		int saved = S_ISDIR(st.st_mode) ? EISDIR : errno ? errno : EFBIG;

		fclose(in);
		errno = saved;
		return false;
	}
	len = fread(e->text, 1, (size_t)st.st_size, in);
	fclose(in);
	e->text[len] = '\0';
	if (!split_lines(e, len) || !(e->path = strdup(path))) {
		errno = ENOMEM;
		return false;
	}
	return true;
}

/* Tries one candidate; keeps the first reason a file that exists fails. */
static bool try_path(struct entry *e, const char *path, size_t *tried)
{
	int why;

	(*tried)++;
	if (read_text(e, path))
		return true;
	why = errno;
	free(e->text);
	e->text = NULL;
	if (why != ENOENT && why != ENOTDIR && !e->why[0])
		snprintf(e->why, sizeof(e->why), "%s: %s", path, strerror(why));
	return false;
}

static bool try_join(struct entry *e, const char *dir, const char *rest, size_t *tried)
{
	size_t n = strlen(dir) + strlen(rest) + 2;
	char *path = malloc(n);
	bool ok;

	if (!path)
		return false;
	snprintf(path, n, "%s/%s", dir, rest);
	ok = try_path(e, path, tried);
	free(path);
	return ok;
}

/* The maps, the path itself, then each search directory with every tail. */
static bool resolve(const struct trex_srcfiles *sf, struct entry *e, size_t *tried)
{
	const char *r = e->recorded;

	for (size_t i = 0; i < sf->nmaps; i++) {
		size_t n = strlen(sf->old[i]);

		if (strncmp(r, sf->old[i], n) == 0 &&
		    (r[n] == '/' || r[n] == '\0' || (n == 1 && sf->old[i][0] == '/')) &&
		    try_join(e, sf->new_[i], r + n + (r[n] == '/'), tried))
			return true;
	}
	if (try_path(e, r, tried))
		return true;
	for (size_t i = 0; i < sf->ndirs; i++)
		for (const char *tail = r; tail; tail = strchr(tail, '/')) {
			while (*tail == '/')
				tail++;
			if (*tail && try_join(e, sf->dirs[i], tail, tried))
				return true;
		}
	return false;
}

const struct trex_srcfile *trex_srcfiles_get(struct trex_srcfiles *sf, const char *recorded)
{
	struct entry **v, *e;
	size_t tried = 0;

	for (size_t i = 0; i < sf->n; i++)
		if (strcmp(sf->e[i]->recorded, recorded) == 0)
			return &sf->e[i]->f;
	if (!(v = trex_grow(sf->e, &sf->cap, sf->n + 1, sizeof(*v), 8)))
		return NULL;
	sf->e = v;
	if (!(e = calloc(1, sizeof(*e))) || !(e->recorded = strdup(recorded))) {
		free(e);
		return NULL;
	}
	v[sf->n++] = e;
	if (!resolve(sf, e, &tried) && !e->why[0])
		snprintf(e->why, sizeof(e->why), "not found (tried %zu %s)", tried,
		         tried == 1 ? "place" : "places");
	if (e->path)
		e->why[0] = '\0';
	e->f.recorded = e->recorded;
	e->f.path = e->path;
	e->f.why = e->why;
	e->f.lines = e->lines;
	e->f.lens = e->lens;
	return &e->f;
}

const char *trex_srcfiles_line(struct trex_srcfiles *sf, const char *recorded, int64_t line,
                               size_t *len)
{
	const struct trex_srcfile *f =
	    recorded && *recorded ? trex_srcfiles_get(sf, recorded) : NULL;

	if (!f || !f->path || line < 1 || (uint64_t)line > f->nlines)
		return NULL;
	*len = f->lens[line - 1];
	return f->lines[line - 1];
}
