/* The index-file cache (index_cache.h): where index files live, what makes
 * one fresh, and loading through them. */
#include "config.h"

#include "trex/load/index_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "trex/core/kernel_summary.h"

#define IDENTITY_MAGIC 0x3264697865727472ull /* "trexid2" */
#define SAMPLE_BLOCKS 16
#define SAMPLE_SIZE 4096
/* A trace modified this shortly before it is loaded may be modified again
 * within one tick of the file system's clock, keeping its size and mtime
 * (racy, as git says): its whole content is hashed too, and checked on
 * every open. */
#define RACY_NS (2 * 1000000000LL)
#define FULL_HASH_BLOCK ((size_t)1 << 20)

/* ---- identity ------------------------------------------------------------------------------- */

/* One input as it is now: the identity section holds one per input, in
 * command-line order, each followed by its real path and the path as
 * given (NUL-terminated, padded to 8). */
struct input_id {
	uint64_t size;
	int64_t mtime_ns;
	uint64_t sample_hash;
	uint64_t full_hash; /* racy inputs only, else 0 */
	uint32_t racy;
	uint32_t real_len, given_len; /* without their NULs */
	uint32_t pad;
};

struct identity_head {
	uint64_t magic;
	uint64_t opts_key;
	uint64_t count;
};

struct input_now {
	struct input_id id;
	char *real;
	const char *given;
};

static uint64_t crc64ish(uint64_t h, const void *p, size_t n)
{
	uLong lo = crc32((uLong)(h & 0xffffffffu), p, (uInt)n);
	uLong hi = adler32((uLong)(h >> 32) | 1u, p, (uInt)n);

	return (uint64_t)hi << 32 | (uint64_t)lo;
}

/* 16 blocks spread over the file, its first and its last: a change
 * that keeps size and mtime (a copy with -p, a clock set back) still
 * shows in all but unlucky cases, for 72 KiB of reads. */
static bool sample_hash(int fd, uint64_t size, uint64_t *out)
{
	unsigned char buf[SAMPLE_SIZE];
	uint64_t h = size;

	for (int i = 0; i <= SAMPLE_BLOCKS + 1; i++) {
		uint64_t at = i == SAMPLE_BLOCKS + 1 ? (size > SAMPLE_SIZE ? size - SAMPLE_SIZE : 0)
		                                     : size / (SAMPLE_BLOCKS + 1) * (uint64_t)i;
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)at);

		if (n < 0)
			return false;
		h = crc64ish(h, buf, (size_t)n);
	}
	*out = h;
	return true;
}

/* The hash of a whole file; false when it cannot be read. */
static bool full_hash(const char *path, uint64_t *out)
{
	unsigned char *buf = malloc(FULL_HASH_BLOCK);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t h = 1;
	ssize_t n = 0;

	while (buf && fd >= 0 && (n = read(fd, buf, FULL_HASH_BLOCK)) > 0)
		h = crc64ish(h, buf, (size_t)n);
	free(buf);
	if (fd >= 0)
		close(fd);
	*out = h;
	return buf && fd >= 0 && n == 0;
}

static bool racy(int64_t mtime_ns)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return mtime_ns + RACY_NS >= (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* false when path is not a regular file that can be read. */
static bool input_now(const char *path, struct input_now *in)
{
	struct stat st;
	int fd;
	bool ok;

	memset(in, 0, sizeof(*in));
	/* a FIFO read at load time would block a second open */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (in->real = realpath(path, NULL));
	if (ok) {
		in->id.size = (uint64_t)st.st_size;
		in->id.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		ok = sample_hash(fd, in->id.size, &in->id.sample_hash);
		in->id.racy = racy(in->id.mtime_ns);
		in->id.real_len = (uint32_t)strlen(in->real);
		in->id.given_len = (uint32_t)strlen(path);
		in->given = path;
	}
	close(fd);
	return ok;
}

static void inputs_free(struct input_now *in, size_t n)
{
	for (size_t i = 0; in && i < n; i++)
		free(in[i].real);
	free(in);
}

/* The options that change what a load builds (threads and progress do not). */
static uint64_t opts_key(const struct trex_load_opts *o)
{
	char s[256];
	int n = snprintf(s, sizeof(s), "%s|%zu|%.17g|%" PRId64 "|%" PRIu32 "|%.17g",
	                 o && o->format ? o->format : "", o ? o->stream_window : 0,
	                 o ? o->bandwidth_gbps : 0.0, o ? o->latency_ns : 0, o ? o->npus : 0,
	                 o ? o->npu_frequency_ghz : 0.0);

	return crc64ish(1, s, n > 0 ? (size_t)n : 0);
}

static size_t pad8(size_t n)
{
	return (n + 7) / 8 * 8;
}

/* The identity section of a load of in[0..n). NULL when out of memory. */
static void *identity_make(const struct input_now *in, size_t n, uint64_t key, size_t *len)
{
	struct identity_head head = {IDENTITY_MAGIC, key, n};
	size_t total = sizeof(head);
	unsigned char *p;

	for (size_t i = 0; i < n; i++)
		total +=
		    sizeof(in[i].id) + pad8(in[i].id.real_len + 1) + pad8(in[i].id.given_len + 1);
	if (!(p = calloc(1, total)))
		return NULL;
	*len = total;
	memcpy(p, &head, sizeof(head));
	total = sizeof(head);
	for (size_t i = 0; i < n; i++) {
		struct input_id id = in[i].id;

		if (id.racy && !full_hash(in[i].real, &id.full_hash)) {
			free(p);
			return NULL;
		}
		memcpy(p + total, &id, sizeof(id));
		total += sizeof(in[i].id);
		memcpy(p + total, in[i].real, in[i].id.real_len);
		total += pad8(in[i].id.real_len + 1);
		memcpy(p + total, in[i].given, in[i].id.given_len);
		total += pad8(in[i].id.given_len + 1);
	}
	return p;
}

/* Compares a written identity with the inputs now; *why says what
 * differs. recorded[i] receives where input i's path as it was given
 * then lies in the written bytes. */
static bool identity_matches(const unsigned char *p, size_t len, const struct input_now *in,
                             size_t n, uint64_t key, const char **recorded, bool *was_racy,
                             const char **why)
{
	struct identity_head head;
	size_t at = sizeof(head);

	*why = "written for other inputs";
	if (len < sizeof(head))
		return false;
	memcpy(&head, p, sizeof(head));
	if (head.magic != IDENTITY_MAGIC || head.count != n)
		return false;
	if (head.opts_key != key) {
		*why = "written with other load options";
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		struct input_id id;
		uint64_t whole;

		if (len - at < sizeof(id))
			return false;
		memcpy(&id, p + at, sizeof(id));
		at += sizeof(id);
		if (len - at < pad8((size_t)id.real_len + 1) + pad8((size_t)id.given_len + 1) ||
		    id.real_len != in[i].id.real_len || memcmp(p + at, in[i].real, id.real_len) ||
		    p[at + id.real_len] || p[at + pad8(id.real_len + 1) + id.given_len])
			return false;
		recorded[i] = (const char *)p + at + pad8(id.real_len + 1);
		*was_racy |= id.racy != 0;
		at += pad8(id.real_len + 1) + pad8(id.given_len + 1);
		if (id.size != in[i].id.size || id.mtime_ns != in[i].id.mtime_ns ||
		    id.sample_hash != in[i].id.sample_hash ||
		    (id.racy && (!full_hash(in[i].real, &whole) || whole != id.full_hash))) {
			*why = "stale (the trace changed)";
			return false;
		}
	}
	return true;
}

/* ---- where ---------------------------------------------------------------------------------- */

static bool dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	int n = slash ? snprintf(buf, size, "%.*s", (int)(slash - path + 1), path)
	              : snprintf(buf, size, ".");

	return n > 0 && (size_t)n < size;
}

/* $TREX_INDEX_DIR, else $XDG_CACHE_HOME/trex, else $HOME/.cache/trex. */
static bool cache_dir(char *buf, size_t size, bool *shared)
{
	const char *env = getenv("TREX_INDEX_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	*shared = env && *env;
	if (*shared)
		n = snprintf(buf, size, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(buf, size, "%s/trex", xdg);
	else if (home && *home)
		n = snprintf(buf, size, "%s/.cache/trex", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* NAME.HASH.trex in dir: the base name of the single input, or "set" and
 * the number of inputs; HASH of their real paths and, for loads with
 * options other than the defaults, of those (key): a load with
 * --input-format and one without each keep their own index file. */
static bool cache_name(const char *dir, const struct input_now *in, size_t n, uint64_t key,
                       char *buf, size_t size)
{
	uint64_t h = n;
	const char *base = strrchr(in[0].real, '/');
	int len;

	for (size_t i = 0; i < n; i++)
		h = crc64ish(h, in[i].real, in[i].id.real_len + 1);
	if (key != opts_key(NULL))
		h = crc64ish(h, &key, sizeof(key));
	if (n == 1)
		len = snprintf(buf, size, "%s/%s.%016" PRIx64 ".trex", dir,
		               base ? base + 1 : in[0].real, h);
	else
		len = snprintf(buf, size, "%s/set-%zu.%016" PRIx64 ".trex", dir, n, h);
	return len > 0 && (size_t)len < size;
}

static bool beside(const struct input_now *in, char *buf, size_t size)
{
	int len = snprintf(buf, size, "%s.trex", in->given);

	return len > 0 && (size_t)len < size;
}

/* Where to look (up to two places, in order) and where to write. */
struct places {
	char look[2][PATH_MAX];
	int nlook;
	char write[PATH_MAX];
	char dir[PATH_MAX]; /* the cache directory, to create before writing there */
	bool write_in_cache;
};

/* A directory whose mode grants no write permission stays untouched even
 * by root, who access() lets write anywhere: read-only trace archives. */
static bool dir_writable(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) &&
	       access(dir, W_OK) == 0;
}

/* Beside the trace only for one file loaded with the default options. */
static bool places_of(const struct input_now *in, size_t n, uint64_t key, struct places *pl)
{
	char traces[PATH_MAX];
	bool shared, have_cache = cache_dir(pl->dir, sizeof(pl->dir), &shared);
	bool alone = !shared && n == 1 && key == opts_key(NULL);
	bool writable =
	    alone && dir_of(in[0].given, traces, sizeof(traces)) && dir_writable(traces);

	pl->nlook = 0;
	if (alone && beside(&in[0], pl->look[0], sizeof(pl->look[0])))
		pl->nlook++;
	if (have_cache && cache_name(pl->dir, in, n, key, pl->look[pl->nlook], sizeof(pl->look[0])))
		pl->nlook++;
	pl->write_in_cache = !writable;
	if (writable && pl->nlook)
		memcpy(pl->write, pl->look[0], sizeof(pl->write));
	else if (have_cache && cache_name(pl->dir, in, n, key, pl->write, sizeof(pl->write)))
		;
	else
		pl->write[0] = '\0';
	return pl->nlook > 0 || pl->write[0];
}

/* mkdir -p of the cache directory (private: it names the user's traces). */
static void make_dirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0700);
		*p = '/';
	}
	mkdir(dir, 0700);
}

bool trex_cache_path(const char *const *paths, size_t count, char *buf, size_t size)
{
	struct input_now *in = calloc(count ? count : 1, sizeof(*in));
	struct places *pl = malloc(sizeof(*pl));
	bool ok = in && pl && count;

	for (size_t i = 0; ok && i < count; i++)
		ok = input_now(paths[i], &in[i]);
	ok = ok && places_of(in, count, opts_key(NULL), pl);
	if (ok) {
		const char *p = pl->write[0] ? pl->write : pl->look[0];

		for (int i = 0; i < pl->nlook; i++)
			if (access(pl->look[i], F_OK) == 0) {
				p = pl->look[i];
				break;
			}
		ok = (size_t)snprintf(buf, size, "%s", p) < size;
	}
	inputs_free(in, count);
	free(pl);
	return ok;
}

/* ---- reopening codecs ------------------------------------------------------------------------ */

enum trex_status trex_cache_reopen_codec(void *user, const char *path, const char *name,
                                         const void *saved, size_t len,
                                         const struct trex_args_codec **codec, void **ctx,
                                         struct trex_error *err)
{
	const struct trex_cache_renames *r = user;
	const struct trex_format *const *formats = trex_formats();

	for (size_t i = 0; r && i < r->count; i++)
		if (strcmp(r->recorded[i], path) == 0) {
			path = r->now[i];
			break;
		}
	for (size_t i = 0; formats[i]; i++) {
		const struct trex_args_codec *c = formats[i]->codec;

		if (c && c->reopen && strcmp(c->name, name) == 0) {
			*codec = c;
			return c->reopen(path, saved, len, ctx, err);
		}
	}
	return trex_error_set(err, TREX_FORMAT, path, -1, "index file names an unknown codec '%s'",
	                      name);
}

/* ---- loading -------------------------------------------------------------------------------- */

struct cache_load {
	struct input_now *in;
	size_t n;
	uint64_t key;
	const struct trex_load_opts *opts;
	struct trex_cache_report *rep;
};

/* Files recorded under another spelling of their path (./a.json, a
 * relative path from elsewhere) take the one given now, as a parse would
 * show them. */
static enum trex_status rename_files(struct trex_index *idx, const char *const *recorded,
                                     const struct input_now *in, size_t n, struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; i < n && st == TREX_OK; i++) {
		if (strcmp(recorded[i], in[i].given) == 0)
			continue;
		for (uint32_t f = 0; f < trex_index_file_count(idx); f++)
			if (strcmp(trex_index_str(idx, trex_index_file(idx, f)->path),
			           recorded[i]) == 0) {
				st = trex_index_rename_file(idx, f, in[i].given, err);
				break;
			}
	}
	return st;
}

/* Damaged input under --strict is refused by the parse, with its error. */
static bool strict_refuses(const struct trex_index *idx, const struct trex_load_opts *opts)
{
	for (uint32_t f = 0; opts && opts->strict && f < trex_index_file_count(idx); f++) {
		const struct trex_file *file = trex_index_file(idx, f);

		if (file->truncated || trex_integrity_damaged(&file->integrity))
			return true;
	}
	return false;
}

static void note_refused(struct trex_cache_report *rep, const char *path, const char *why)
{
	if (!rep->note[0])
		snprintf(rep->note, sizeof(rep->note), "index file %s: %s; rebuilt from the trace",
		         path, why);
}

/* idx written to path with the inputs' identity now; false (with a note
 * when it failed) when not written. */
static bool write_to(struct cache_load *c, const char *path, const struct trex_index *idx)
{
	struct trex_error e;
	const char *why;
	bool ok;
	void *id, *summary = NULL;
	size_t len, summary_len = 0;

	if (!trex_index_file_supported(idx, &why) ||
	    !(id = identity_make(c->in, c->n, c->key, &len)))
		return false;
	trex_error_clear(&e);
	/* without memory for the summary, the file is written without one:
	 * a lazy reader then loads the index instead */
	if (trex_ksum_encode(idx, &summary, &summary_len, &e) != TREX_OK)
		summary_len = 0;
	trex_error_clear(&e);
	ok = trex_index_file_write_summary(idx, path, id, len, summary, summary_len, &e) == TREX_OK;
	free(summary);
	if (!ok)
		snprintf(c->rep->note, sizeof(c->rep->note), "cannot write index file %s: %s", path,
		         e.message);
	free(id);
	return ok;
}

/* Whether an input is racy now: an index file written racy is written
 * again once none is, so that its opens stop hashing whole traces. */
static bool any_racy(const struct cache_load *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->in[i].id.racy)
			return true;
	return false;
}

/* The index in the index file at path when it is fresh and checks; its
 * files' args codecs reopened unless !codecs (then its args cannot be
 * read, but nothing but the index file stays open). */
static bool open_fresh(struct cache_load *c, const char *path, bool codecs, struct trex_index **out)
{
	const char **recorded = calloc(c->n, sizeof(*recorded));
	struct trex_index_file *f = NULL;
	struct trex_error e;
	const char *why = NULL;
	bool was_racy = false;
	const void *id;
	size_t len;

	*out = NULL;
	trex_error_clear(&e);
	if (!recorded || trex_index_file_map(path, &f, &e) != TREX_OK) {
		note_refused(c->rep, path, recorded ? e.message : "out of memory");
		free(recorded);
		return false;
	}
	id = trex_index_file_identity(f, &len);
	if (!identity_matches(id, len, c->in, c->n, c->key, recorded, &was_racy, &why)) {
		note_refused(c->rep, path, why);
		trex_index_file_close(f);
	} else {
		const char **now = malloc(c->n * sizeof(*now));
		struct trex_cache_renames r = {recorded, now, c->n};

		for (size_t i = 0; now && i < c->n; i++)
			now[i] = c->in[i].given;
		if (!now ||
		    trex_index_file_load(f, codecs ? trex_cache_reopen_codec : NULL, &r, out, &e) !=
		        TREX_OK ||
		    rename_files(*out, recorded, c->in, c->n, &e) != TREX_OK) {
			note_refused(c->rep, path, now ? e.message : "out of memory");
			trex_index_free(*out);
			*out = NULL;
			if (!now)
				trex_index_file_close(f);
		} else if (strict_refuses(*out, c->opts)) {
			trex_index_free(*out);
			*out = NULL;
		} else if (was_racy && !any_racy(c) && codecs) {
			write_to(c, path, *out);
		}
		free(now);
	}
	free(recorded);
	return *out != NULL;
}

static void write_index(struct cache_load *c, struct places *pl, const struct trex_index *idx)
{
	if (!pl->write[0])
		return;
	if (pl->write_in_cache)
		make_dirs(pl->dir);
	if (write_to(c, pl->write, idx)) {
		c->rep->written = true;
		snprintf(c->rep->path, sizeof(c->rep->path), "%s", pl->write);
	}
}

static bool cacheable(struct cache_load *c, struct trex_source **sources)
{
	if (c->n == 0 || (c->opts && c->opts->comm_override) ||
	    !(c->in = calloc(c->n, sizeof(*c->in))))
		return false;
	for (size_t i = 0; i < c->n; i++)
		if (!input_now(trex_source_path(sources[i]), &c->in[i]))
			return false;
	return true;
}

/* ---- a set from its traces' own index files -------------------------------------------------- */

/* Input i's own fresh index file, loaded without its codecs (a set of
 * thousands of traces would otherwise hold every trace open). */
static struct trex_index *rank_fresh(struct cache_load *set, size_t i)
{
	struct trex_cache_report quiet;
	struct cache_load one = {
	    .in = &set->in[i], .n = 1, .key = set->key, .opts = set->opts, .rep = &quiet};
	struct places *pl = malloc(sizeof(*pl));
	struct trex_index *idx = NULL;

	memset(&quiet, 0, sizeof(quiet));
	if (pl && places_of(one.in, 1, one.key, pl))
		for (int k = 0; !idx && k < pl->nlook; k++)
			if (access(pl->look[k], F_OK) != 0 ||
			    !open_fresh(&one, pl->look[k], false, &idx))
				idx = NULL;
	free(pl);
	if (idx && trex_index_file_count(idx) != 1) {
		trex_index_free(idx);
		idx = NULL;
	}
	return idx;
}

struct rank_slot {
	struct trex_index *idx;
	int64_t rank;
};

/* The parts in the order, and with the ranks, a load of the set gives
 * its files (trex_load_assign_ranks, trex_load_order_files). */
static bool order_slots(struct rank_slot *s, size_t n)
{
	int64_t *ranks = malloc(n * sizeof(*ranks));
	bool *claimed = malloc(n * sizeof(*claimed));
	const char **paths = malloc(n * sizeof(*paths));
	size_t *order = malloc(n * sizeof(*order));
	struct rank_slot *was = malloc(n * sizeof(*was));
	bool ok = ranks && claimed && paths && order && was;

	for (size_t i = 0; ok && i < n; i++) {
		const struct trex_file *f = trex_index_file(s[i].idx, 0);

		ranks[i] = f->rank;
		claimed[i] = f->has_rank;
		paths[i] = trex_index_str(s[i].idx, f->path);
	}
	ok = ok && trex_load_assign_ranks(ranks, claimed, n);
	if (ok) {
		trex_load_order_files(ranks, paths, n, order);
		memcpy(was, s, n * sizeof(*s));
		for (size_t k = 0; k < n; k++)
			s[k] = (struct rank_slot){was[order[k]].idx, ranks[order[k]]};
	}
	free(ranks);
	free(claimed);
	free(paths);
	free(order);
	free(was);
	return ok;
}

static bool compose_write(struct cache_load *c, struct places *pl, struct rank_slot *s)
{
	const struct trex_index **parts = malloc(c->n * sizeof(*parts));
	int64_t *ranks = malloc(c->n * sizeof(*ranks));
	struct trex_error e;
	size_t len;
	void *id = identity_make(c->in, c->n, c->key, &len);
	bool ok = parts && ranks && id && pl->write[0];

	for (size_t i = 0; ok && i < c->n; i++) {
		parts[i] = s[i].idx;
		ranks[i] = s[i].rank;
	}
	trex_error_clear(&e);
	if (ok && pl->write_in_cache)
		make_dirs(pl->dir);
	if (ok && trex_index_file_compose(parts, c->n, ranks, pl->write, id, len, &e) != TREX_OK) {
		snprintf(c->rep->note, sizeof(c->rep->note), "cannot write index file %s: %s",
		         pl->write, e.message);
		ok = false;
	}
	free(parts);
	free(ranks);
	free(id);
	return ok;
}

/* When every trace of the set has a fresh index file of its own (`trex
 * index` run over them, on this node or spread by the job's launcher),
 * the set's index file is composed from theirs, which parses nothing,
 * and opened. false (nothing written) when one has none: the set is then
 * parsed. */
static bool compose_ranks(struct cache_load *c, struct places *pl, struct trex_index **out)
{
	struct rank_slot *s = calloc(c->n, sizeof(*s));
	bool ok = s != NULL;

	for (size_t i = 0; ok && i < c->n; i++) {
		ok = (s[i].idx = rank_fresh(c, i)) != NULL;
	}
	ok = ok && order_slots(s, c->n) && compose_write(c, pl, s);
	for (size_t i = 0; s && i < c->n; i++)
		if (s[i].idx)
			trex_index_free(s[i].idx);
	free(s);
	if (!ok)
		return false;
	c->rep->note[0] = '\0'; /* the set's own file, refused, is replaced */
	if (!open_fresh(c, pl->write, true, out))
		return false;
	c->rep->written = c->rep->composed = true;
	snprintf(c->rep->path, sizeof(c->rep->path), "%s", pl->write);
	return true;
}

enum trex_status trex_cache_load(struct trex_source **sources, size_t count,
                                 const struct trex_load_opts *opts, enum trex_cache_mode mode,
                                 struct trex_cache_report *report, struct trex_index **out,
                                 struct trex_error *err)
{
	struct trex_cache_report scratch;
	struct cache_load c = {.n = count, .key = opts_key(opts), .opts = opts};
	struct places *pl = malloc(sizeof(*pl));
	enum trex_status st;

	c.rep = report ? report : &scratch;
	memset(c.rep, 0, sizeof(*c.rep));
	trex_error_clear(err);
	if (mode == TREX_CACHE_OFF || !pl || !cacheable(&c, sources) ||
	    !places_of(c.in, count, c.key, pl)) {
		inputs_free(c.in, c.n);
		free(pl);
		return trex_load_sources(sources, count, opts, out, err);
	}
	for (int i = 0; mode == TREX_CACHE_USE && i < pl->nlook; i++) {
		if (access(pl->look[i], F_OK) != 0 || !open_fresh(&c, pl->look[i], true, out))
			continue;
		c.rep->hit = true;
		c.rep->note[0] = '\0'; /* a place further down was fresh */
		snprintf(c.rep->path, sizeof(c.rep->path), "%s", pl->look[i]);
		for (size_t k = 0; k < count; k++)
			trex_source_close(sources[k]);
		inputs_free(c.in, c.n);
		free(pl);
		return TREX_OK;
	}
	if (mode == TREX_CACHE_USE && count > 1 && compose_ranks(&c, pl, out)) {
		for (size_t k = 0; k < count; k++)
			trex_source_close(sources[k]);
		inputs_free(c.in, c.n);
		free(pl);
		return TREX_OK;
	}
	st = trex_load_sources(sources, count, opts, out, err);
	if (st == TREX_OK)
		write_index(&c, pl, *out);
	inputs_free(c.in, c.n);
	free(pl);
	return st;
}

/* ---- one trace of a set, by its summary --------------------------------------------------- */

/* The summary of the fresh index file at path for c's one input, when it
 * checks and its trace lost nothing (a loss is told from the whole index);
 * silent otherwise: the whole load that follows says what it refuses. */
static bool summary_at(struct cache_load *c, const char *path, struct trex_cache_rank *out)
{
	const char *recorded = NULL, *why = NULL;
	struct trex_index_file *f = NULL;
	struct trex_error e;
	bool was_racy = false;
	const void *bytes;
	size_t len;

	trex_error_clear(&e);
	if (trex_index_file_map(path, &f, &e) != TREX_OK)
		return false;
	bytes = trex_index_file_identity(f, &len);
	if (!identity_matches(bytes, len, c->in, 1, c->key, &recorded, &was_racy, &why) ||
	    was_racy || trex_index_file_kernel_summary(f, &bytes, &len, &e) != TREX_OK || !len ||
	    trex_ksum_decode(bytes, len, path, &out->sum, &e) != TREX_OK) {
		trex_index_file_close(f);
		return false;
	}
	if (out->sum.nfiles != 1 || out->sum.files[0].lost_data) {
		trex_ksum_free(&out->sum);
		trex_index_file_close(f);
		return false;
	}
	out->file = f;
	out->rep.hit = true;
	snprintf(out->rep.path, sizeof(out->rep.path), "%s", path);
	return true;
}

static bool summary_fresh(const char *path, const struct trex_load_opts *opts,
                          struct trex_cache_rank *out)
{
	struct cache_load c = {.n = 1, .key = opts_key(opts), .opts = opts, .rep = &out->rep};
	struct places *pl = malloc(sizeof(*pl));
	bool ok = false;

	if (pl && !(opts && opts->comm_override) && (c.in = calloc(1, sizeof(*c.in))) &&
	    input_now(path, &c.in[0]) && places_of(c.in, 1, c.key, pl))
		for (int i = 0; !ok && i < pl->nlook; i++)
			ok = access(pl->look[i], F_OK) == 0 && summary_at(&c, pl->look[i], out);
	inputs_free(c.in, c.n);
	free(pl);
	return ok;
}

bool trex_cache_rank_summary(const char *path, const struct trex_load_opts *opts,
                             struct trex_cache_rank *out)
{
	memset(out, 0, sizeof(*out));
	if (summary_fresh(path, opts, out))
		return true;
	trex_cache_rank_close(out);
	return false;
}

enum trex_status trex_cache_rank_open(const char *path, const struct trex_load_opts *opts,
                                      enum trex_cache_mode mode, struct trex_cache_rank *out,
                                      struct trex_error *err)
{
	struct trex_source *src = NULL;
	enum trex_status st;

	if (mode == TREX_CACHE_USE && trex_cache_rank_summary(path, opts, out))
		return TREX_OK;
	memset(out, 0, sizeof(*out));
	st = trex_source_open(path, &src, err);
	if (st == TREX_OK)
		st = trex_cache_load(&src, 1, opts, mode, &out->rep, &out->idx, err);
	if (st == TREX_OK)
		st = trex_ksum_of_index(out->idx, &out->sum, err);
	if (st != TREX_OK)
		trex_cache_rank_close(out);
	return st;
}

void trex_cache_rank_close(struct trex_cache_rank *r)
{
	trex_ksum_free(&r->sum);
	trex_index_file_close(r->file);
	if (r->idx)
		trex_index_free(r->idx);
	r->file = NULL;
	r->idx = NULL;
}
