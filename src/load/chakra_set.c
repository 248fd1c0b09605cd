/* Chakra ET sets (trex/load/chakra_set.h): from a prefix, a member or a
 * directory to the files {prefix}.{rank}.et of the whole set. */
#include "config.h"

#include "trex/load/chakra_set.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trex/core/grow.h"

bool trex_chakra_set_rank(const char *path, int64_t *rank, size_t *prefix_len)
{
	const char *base = strrchr(path, '/');
	size_t len = strlen(path);

	base = base ? base + 1 : path;
	if (len >= 3 && strcmp(path + len - 3, ".gz") == 0)
		len -= 3;
	if (len < 3 || strncmp(path + len - 3, ".et", 3) != 0)
		return false;
	len -= 3;
	size_t digits = 0;
	while (digits < len && path + len - digits - 1 >= base && path[len - digits - 1] >= '0' &&
	       path[len - digits - 1] <= '9')
		digits++;
	/* a prefix of at least one character, a dot, then up to 18 digits */
	if (!digits || digits > 18 || path + len - digits - 1 <= base ||
	    path[len - digits - 1] != '.')
		return false;
	*rank = strtoll(path + len - digits, NULL, 10);
	if (prefix_len)
		*prefix_len = len - digits - 1;
	return true;
}

/* ---- one set ------------------------------------------------------------------------------ */

struct ck_member {
	int64_t rank;
	char *path;
};

struct ck_list {
	struct ck_member *v;
	size_t n, cap;
};

static void ck_list_free(struct ck_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int ck_cmp_member(const void *a, const void *b)
{
	const struct ck_member *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->path, y->path);
}

static char *ck_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	bool here = strcmp(dir, ".") == 0, slash = dir[0] && dir[strlen(dir) - 1] == '/';
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s%s", here ? "" : dir, here || slash ? "" : "/", name);
	return s;
}

/* The files of dir whose names are prefix.N.et[.gz] (every set when
 * prefix is NULL), sorted by rank. */
static enum trex_status ck_scan(const char *dir, const char *prefix, struct ck_list *out,
                                struct trex_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	enum trex_status st = TREX_OK;

	memset(out, 0, sizeof(*out));
	if (!d)
		return trex_error_set(err, TREX_IO, dir, -1, "cannot read the directory: %s",
		                      strerror(errno));
	while (st == TREX_OK && (e = readdir(d))) {
		int64_t rank;
		size_t plen;
		if (!trex_chakra_set_rank(e->d_name, &rank, &plen) ||
		    (prefix && (strlen(prefix) != plen || strncmp(e->d_name, prefix, plen) != 0)))
			continue;
		struct ck_member *v = trex_grow(out->v, &out->cap, out->n + 1, sizeof(*v), 16);
		char *path = v ? ck_join(dir, e->d_name) : NULL;
		if (v)
			out->v = v;
		if (!path) {
			st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
			break;
		}
		out->v[out->n++] = (struct ck_member){rank, path};
	}
	closedir(d);
	if (st != TREX_OK)
		ck_list_free(out);
	else if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), ck_cmp_member);
	return st;
}

/* ---- the expansion ------------------------------------------------------------------------- */

struct ck_expand {
	struct trex_chakra_expansion *out;
	size_t path_cap, note_cap;
	char **sets; /* "dir/prefix" of each set expanded */
	size_t set_count, set_cap;
};

static bool ck_add_path(struct ck_expand *x, char *path)
{
	struct trex_chakra_expansion *o = x->out;
	char **v = trex_grow(o->paths, &x->path_cap, o->count + 1, sizeof(*v), 16);

	if (!v || !path) {
		free(path);
		return false;
	}
	o->paths = v;
	for (size_t i = 0; i < o->count; i++) {
		if (strcmp(o->paths[i], path) == 0) { /* named twice: once */
			free(path);
			return true;
		}
	}
	o->paths[o->count++] = path;
	return true;
}

static bool ck_note(struct ck_expand *x, bool warning, const char *text)
{
	struct trex_chakra_expansion *o = x->out;
	struct trex_chakra_note *v =
	    trex_grow(o->notes, &x->note_cap, o->note_count + 1, sizeof(*v), 4);
	char *copy = v ? strdup(text) : NULL;

	if (v)
		o->notes = v;
	if (!copy)
		return false;
	o->notes[o->note_count++] = (struct trex_chakra_note){copy, warning};
	return true;
}

/* "0-3, 5, 7-9" of the sorted ranks of l, cut to size. */
static void ck_ranks_text(const struct ck_list *l, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < l->n && n < size; i++) {
		size_t j = i;
		while (j + 1 < l->n && l->v[j + 1].rank <= l->v[j].rank + 1)
			j++;
		if (l->v[j].rank == l->v[i].rank)
			n += (size_t)snprintf(buf + n, size - n, "%s%" PRId64, i ? ", " : "",
			                      l->v[i].rank);
		else
			n += (size_t)snprintf(buf + n, size - n, "%s%" PRId64 "-%" PRId64,
			                      i ? ", " : "", l->v[i].rank, l->v[j].rank);
		i = j;
	}
}

/* What was found, and a warning when a rank below the highest is missing. */
static bool ck_set_notes(struct ck_expand *x, const char *set, const struct ck_list *l)
{
	char ranks[256], line[1024];
	int64_t missing = -1;

	for (size_t i = 0, want = 0; i < l->n && missing < 0; i++) {
		if (l->v[i].rank > (int64_t)want)
			missing = (int64_t)want;
		want = (size_t)l->v[i].rank + 1;
	}
	ck_ranks_text(l, ranks, sizeof(ranks));
	snprintf(line, sizeof(line), "%s: %zu Chakra %s (ranks %s)", set, l->n,
	         l->n == 1 ? "file" : "files", ranks);
	if (!ck_note(x, false, line))
		return false;
	if (missing < 0)
		return true;
	snprintf(line, sizeof(line), "%s: no file for rank %" PRId64 " (%s.%" PRId64 ".et)", set,
	         missing, set, missing);
	return ck_note(x, true, line);
}

/* The set prefix in dir: its files in place of the input. */
static enum trex_status ck_expand_set(struct ck_expand *x, const char *dir, const char *prefix,
                                      struct trex_error *err)
{
	char *set = ck_join(dir, prefix);
	struct ck_list l;
	enum trex_status st;

	if (!set)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (size_t i = 0; i < x->set_count; i++) {
		if (strcmp(x->sets[i], set) == 0) {
			free(set);
			return TREX_OK;
		}
	}
	char **sets = trex_grow(x->sets, &x->set_cap, x->set_count + 1, sizeof(*sets), 4);
	if (!sets) {
		free(set);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	x->sets = sets;
	x->sets[x->set_count++] = set;
	st = ck_scan(dir, prefix, &l, err);
	bool ok = st != TREX_OK || ck_set_notes(x, set, &l);
	for (size_t i = 0; ok && st == TREX_OK && i < l.n; i++) {
		ok = ck_add_path(x, l.v[i].path);
		l.v[i].path = NULL;
	}
	ck_list_free(&l);
	if (st == TREX_OK && !ok)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return st;
}

/* The base name of a scanned member, up to its prefix's end. */
static size_t ck_member_prefix(const char *path, const char **base)
{
	int64_t rank;
	size_t plen = 0;

	*base = strrchr(path, '/');
	*base = *base ? *base + 1 : path;
	trex_chakra_set_rank(*base, &rank, &plen);
	return plen;
}

/* The prefix of the one set in dir (NULL: none), or an error naming the
 * sets when there are several. */
static enum trex_status ck_dir_prefix(const char *dir, char **prefix, struct trex_error *err)
{
	struct ck_list l;
	char names[TREX_ERROR_MSG_MAX - 80];
	size_t n = 0, sets = 0;
	enum trex_status st = ck_scan(dir, NULL, &l, err);

	*prefix = NULL;
	names[0] = '\0';
	/* the members are sorted by rank: a prefix may come back after another */
	for (size_t i = 0; st == TREX_OK && i < l.n; i++) {
		const char *base;
		size_t plen = ck_member_prefix(l.v[i].path, &base);
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			const char *other;
			seen = ck_member_prefix(l.v[k].path, &other) == plen &&
			       strncmp(other, base, plen) == 0;
		}
		if (seen)
			continue;
		if (sets++ == 0 && !(*prefix = strndup(base, plen)))
			st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		if (n < sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%.*s", n ? ", " : "",
			                      (int)plen, base);
	}
	ck_list_free(&l);
	if (st == TREX_OK && sets > 1) {
		free(*prefix);
		*prefix = NULL;
		return trex_error_set(err, TREX_USAGE, dir, -1,
		                      "the directory holds several Chakra sets (%s): name one",
		                      names);
	}
	return st;
}

/* dir and base name of path (malloc'd, *dir "." when path has no slash). */
static bool ck_split(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');

	*dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	*base = strdup(slash ? slash + 1 : path);
	if (*dir && *base)
		return true;
	free(*dir);
	free(*base);
	return false;
}

static enum trex_status ck_expand_one(struct ck_expand *x, const char *in, struct trex_error *err)
{
	struct stat sb;
	char *dir, *base, *prefix = NULL;
	int64_t rank;
	size_t plen;
	enum trex_status st = TREX_OK;

	if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		st = ck_dir_prefix(in, &prefix, err);
		if (st == TREX_OK && prefix)
			st = ck_expand_set(x, in, prefix, err);
		else if (st == TREX_OK && !ck_add_path(x, strdup(in)))
			st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		free(prefix);
		return st;
	}
	if (!ck_split(in, &dir, &base))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (trex_chakra_set_rank(base, &rank, &plen)) {
		base[plen] = '\0';
		st = ck_expand_set(x, dir, base, err);
	} else if (errno = 0, stat(in, &sb) != 0 && errno == ENOENT) {
		struct ck_list l;
		st = ck_scan(dir, base, &l, err);
		bool set = st == TREX_OK && l.n > 0;
		ck_list_free(&l);
		if (set)
			st = ck_expand_set(x, dir, base, err);
		else if (st == TREX_OK || st == TREX_IO)
			st = ck_add_path(x, strdup(in))
			         ? TREX_OK
			         : trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	} else if (!ck_add_path(x, strdup(in))) {
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	free(dir);
	free(base);
	return st;
}

void trex_chakra_expansion_free(struct trex_chakra_expansion *e)
{
	for (size_t i = 0; i < e->count; i++)
		free(e->paths[i]);
	for (size_t i = 0; i < e->note_count; i++)
		free(e->notes[i].text);
	free(e->paths);
	free(e->notes);
	memset(e, 0, sizeof(*e));
}

enum trex_status trex_chakra_expand(const char *const *inputs, size_t count,
                                    struct trex_chakra_expansion *out, struct trex_error *err)
{
	struct ck_expand x = {.out = out};
	enum trex_status st = TREX_OK;

	memset(out, 0, sizeof(*out));
	trex_error_clear(err);
	for (size_t i = 0; i < count && st == TREX_OK; i++)
		st = ck_expand_one(&x, inputs[i], err);
	for (size_t i = 0; i < x.set_count; i++)
		free(x.sets[i]);
	free(x.sets);
	if (st != TREX_OK)
		trex_chakra_expansion_free(out);
	return st;
}
