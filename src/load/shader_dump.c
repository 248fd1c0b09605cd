/* An IGC shader dump directory: which .asm file holds which kernel, and
 * a listing read into a profile kernel with the SBID walk's findings. */
#include "config.h"

#include "shader_dump.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trex/core/grow.h"

#define TYPEINFO "typeinfo name for "

extern char **environ;

/* A //.kernel name and the forms a stall CSV may give it. */
struct dump_name {
	char *raw;    /* as the .asm writes it (mangled) */
	char *script; /* analyzeperfmetrics.py's demangling: a type name's, else raw */
	char *full;   /* c++filt's whole output (a function's signature), or NULL */
};

struct dump_file {
	char *path;
	struct dump_name *names;
	size_t nnames, cap;
};

struct shader_dump {
	struct dump_file *files;
	size_t n, cap;
};

/* ---- listing the directory ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool add_name(struct dump_file *f, const char *s, size_t len)
{
	struct dump_name *v = trex_grow(f->names, &f->cap, f->nnames + 1, sizeof(*v), 2);

	if (!v)
		return false;
	f->names = v;
	memset(&v[f->nnames], 0, sizeof(*v));
	if (!(v[f->nnames].raw = strndup(s, len)))
		return false;
	f->nnames++;
	return true;
}

/* The second word of every "//.kernel" line of the file (the script reads
 * them all). An unreadable file names no kernel. */
static bool read_kernel_names(struct dump_file *f)
{
	FILE *in = fopen(f->path, "r");
	char *line = NULL;
	size_t cap = 0;
	bool ok = true;

	if (!in)
		return true;
	while (ok && getline(&line, &cap, in) >= 0) {
		const char *s = line + 9, *e;

		if (strncmp(line, "//.kernel", 9) != 0)
			continue;
		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s; *e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r'; e++)
			;
		if (e > s)
			ok = add_name(f, s, (size_t)(e - s));
	}
	free(line);
	fclose(in);
	return ok;
}

static bool add_file(struct shader_dump *d, const char *dir, const char *name)
{
	struct dump_file *v = trex_grow(d->files, &d->cap, d->n + 1, sizeof(*v), 16);
	size_t len = strlen(dir) + strlen(name) + 2;

	if (!v)
		return false;
	d->files = v;
	memset(&v[d->n], 0, sizeof(*v));
	if (!(v[d->n].path = malloc(len)))
		return false;
	snprintf(v[d->n].path, len, "%s/%s", dir, name);
	d->n++;
	return read_kernel_names(&v[d->n - 1]);
}

/* ---- demangling: c++filt, as the script ---------------------------------------------------- */

/* Runs c++filt with stdin from fd; its output in *out (malloc'd). */
static bool run_cxxfilt(int fd, char **out, size_t *len)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2];
	char prog[] = "c++filt", buf[4096];
	char *argv[] = {prog, NULL};
	size_t cap = 0;
	pid_t pid;
	ssize_t got;
	int status, rc;

	*out = NULL;
	*len = 0;
	if (pipe(pipefd) != 0)
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pipefd[0]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "c++filt", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	while (rc == 0 && (got = read(pipefd[0], buf, sizeof(buf))) != 0) {
		char *v;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || !(v = trex_grow(*out, &cap, *len + (size_t)got + 1, 1, 4096)))
			break;
		*out = v;
		memcpy(v + *len, buf, (size_t)got);
		*len += (size_t)got;
		v[*len] = '\0';
	}
	close(pipefd[0]);
	if (rc != 0)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return *out != NULL && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Every name through one c++filt run (its input a temporary file, so that
 * a long list never blocks on a full pipe); false when c++filt cannot run
 * (the names then stay as written). */
static bool demangle_all(struct shader_dump *d, char **out, size_t *len)
{
	char tmpl[] = "/tmp/trex-kernels.XXXXXX";
	int fd = mkstemp(tmpl);
	bool ok = fd >= 0;

	if (!ok)
		return false;
	unlink(tmpl);
	for (size_t i = 0; ok && i < d->n; i++)
		for (size_t k = 0; ok && k < d->files[i].nnames; k++) {
			const char *s = d->files[i].names[k].raw;

			ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s) &&
			     write(fd, "\n", 1) == 1;
		}
	ok = ok && lseek(fd, 0, SEEK_SET) == 0 && run_cxxfilt(fd, out, len);
	close(fd);
	return ok;
}

static bool set_forms(struct dump_name *n, const char *line, size_t len)
{
	bool typeinfo = len > strlen(TYPEINFO) && memcmp(line, TYPEINFO, strlen(TYPEINFO)) == 0;

	n->script =
	    typeinfo ? strndup(line + strlen(TYPEINFO), len - strlen(TYPEINFO)) : strdup(n->raw);
	if (!typeinfo && (len != strlen(n->raw) || memcmp(line, n->raw, len) != 0))
		n->full = strndup(line, len);
	return n->script && (typeinfo || n->full || len == strlen(n->raw));
}

/* The demangled forms of every name; without c++filt, raw. */
static bool demangle(struct shader_dump *d)
{
	char *out = NULL, *line;
	size_t len = 0;
	bool have = demangle_all(d, &out, &len);

	line = out;
	for (size_t i = 0; i < d->n; i++)
		for (size_t k = 0; k < d->files[i].nnames; k++) {
			struct dump_name *n = &d->files[i].names[k];
			char *nl = have && line ? strchr(line, '\n') : NULL;

			if (!nl) {
				have = false;
				if (!(n->script = strdup(n->raw)))
					goto oom;
				continue;
			}
			if (!set_forms(n, line, (size_t)(nl - line)))
				goto oom;
			line = nl + 1;
		}
	free(out);
	return true;
oom:
	free(out);
	return false;
}

enum trex_status shader_dump_open(const char *dir, struct shader_dump **out, struct trex_error *err)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	struct shader_dump *d;
	bool ok = true;

	*out = NULL;
	if (!dp)
		return trex_error_set(err, TREX_IO, dir, -1,
		                      "cannot open the shader dump directory: %s", strerror(errno));
	if (!(d = calloc(1, sizeof(*d)))) {
		closedir(dp);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	while (ok && (e = readdir(dp)) != NULL)
		if (ends_with(e->d_name, ".asm"))
			ok = add_file(d, dir, e->d_name);
	closedir(dp);
	if (!ok || !demangle(d)) {
		shader_dump_free(d);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	*out = d;
	return TREX_OK;
}

void shader_dump_free(struct shader_dump *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		for (size_t k = 0; k < d->files[i].nnames; k++) {
			free(d->files[i].names[k].raw);
			free(d->files[i].names[k].script);
			free(d->files[i].names[k].full);
		}
		free(d->files[i].names);
		free(d->files[i].path);
	}
	free(d->files);
	free(d);
}

static bool names_kernel(const struct dump_file *f, const char *name)
{
	for (size_t k = 0; k < f->nnames; k++) {
		const struct dump_name *n = &f->names[k];

		if (strcmp(n->script, name) == 0 || (n->full && strcmp(n->full, name) == 0))
			return true;
	}
	return false;
}

/* A recompiled kernel has several files; the script takes the latest: the
 * longest name, then the largest. */
static bool later(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return la != lb ? la > lb : strcmp(a, b) > 0;
}

const char *shader_dump_find(const struct shader_dump *d, const char *name)
{
	const char *best = NULL;

	for (size_t i = 0; i < d->n; i++)
		if (names_kernel(&d->files[i], name) && (!best || later(d->files[i].path, best)))
			best = d->files[i].path;
	return best;
}

/* ---- a listing into a kernel ---------------------------------------------------------------- */

struct addr_line {
	uint64_t addr;
	size_t line;
};

static int cmp_addr_line(const void *a, const void *b)
{
	const struct addr_line *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static uint32_t intern_annotation(struct trex_profile *p, const struct asm_line *l)
{
	const char *s;
	size_t len;

	asm_annotation_text(l, &s, &len);
	return trex_profile_intern(p, s, len);
}

/* The id of the block holding instruction line l ("" outside every block). */
static uint32_t intern_block(struct trex_profile *p, const struct asm_listing *a,
                             const struct asm_line *l)
{
	const char *id = l->block == UINT32_MAX ? "" : a->blocks[l->block].id;

	return trex_profile_intern(p, id, strlen(id));
}

/* s[0..len) with each run of blanks (IGA's column alignment) one space. */
static uint32_t intern_collapsed(struct trex_profile *p, const char *s, size_t len)
{
	char *buf = malloc(len + 1);
	size_t n = 0;
	uint32_t id;

	if (!buf)
		return TREX_PROFILE_NONE;
	for (size_t i = 0; i < len; i++) {
		bool blank = s[i] == ' ' || s[i] == '\t';

		if (!blank || (n && buf[n - 1] != ' '))
			buf[n++] = blank ? ' ' : s[i];
	}
	id = trex_profile_intern(p, buf, n);
	free(buf);
	return id;
}

/* Every instruction of the listing, with the nearest File and Line
 * annotations above it; the quoted source lines. */
static bool add_instructions(struct trex_profile *p, uint32_t kernel, const struct asm_listing *a,
                             struct addr_line *index, size_t *nindex)
{
	uint32_t file = 0;
	int64_t line = 0;

	*nindex = 0;
	for (size_t i = 0; i < a->n; i++) {
		const struct asm_line *l = &a->lines[i];
		struct trex_insn_info info = {.addr = l->addr, .has_addr = true};
		const char *s;
		size_t len;

		if (l->kind == ASM_FILE && (file = intern_annotation(p, l)) == TREX_PROFILE_NONE)
			return false;
		if (l->kind == ASM_LINE) {
			uint32_t text = intern_annotation(p, l);

			line = l->number;
			if (text == TREX_PROFILE_NONE ||
			    (text && file && trex_profile_source_add(p, file, line, text) != 0))
				return false;
		}
		if (l->kind != ASM_INSN)
			continue;
		asm_insn_text(l, &s, &len);
		info.text = intern_collapsed(p, s, len);
		info.block = intern_block(p, a, l);
		info.file = file;
		info.line = line;
		if (info.text == TREX_PROFILE_NONE || info.block == TREX_PROFILE_NONE ||
		    trex_profile_insn_add(p, kernel, &info, NULL) != 0)
			return false;
		index[(*nindex)++] = (struct addr_line){l->addr, i};
	}
	qsort(index, *nindex, sizeof(*index), cmp_addr_line);
	return true;
}

static size_t index_find(const struct addr_line *index, size_t n, uint64_t addr)
{
	struct addr_line key = {addr, 0};
	const struct addr_line *hit = bsearch(&key, index, n, sizeof(*index), cmp_addr_line);

	return hit ? hit->line : SIZE_MAX;
}

/* The walk from the instruction at addr, its findings as waits. */
static bool add_waits(struct trex_profile *p, uint32_t kernel, const struct asm_listing *a,
                      size_t stalled)
{
	struct sbid_result r;
	bool ok = asm_sbid_walk(a, stalled, &r) == 0;

	for (size_t c = 0; ok && c < r.n; c++) {
		const struct sbid_cause *cause = &r.causes[c];
		uint32_t file =
		    cause->file == SIZE_MAX ? 0 : intern_annotation(p, &a->lines[cause->file]);
		int64_t line = cause->line == SIZE_MAX ? 0 : a->lines[cause->line].number;

		ok = file != TREX_PROFILE_NONE &&
		     trex_profile_wait_add(p, kernel, a->lines[stalled].addr,
		                           a->lines[cause->insn].addr, file, line) == 0;
	}
	sbid_result_free(&r);
	return ok;
}

bool shader_dump_apply(struct trex_profile *p, uint32_t kernel, const char *path, const char *text,
                       size_t len, const uint64_t *sbid, size_t n)
{
	struct asm_listing a;
	struct addr_line *index;
	size_t nindex = 0;
	uint32_t listing = trex_profile_intern(p, path, strlen(path));
	bool ok;

	if (listing == TREX_PROFILE_NONE || !asm_listing_parse(text, len, &a))
		return false;
	index = malloc((a.n ? a.n : 1) * sizeof(*index));
	ok = index && add_instructions(p, kernel, &a, index, &nindex);
	for (size_t i = 0; ok && i < n; i++) {
		size_t line = index_find(index, nindex, sbid[i]);

		ok = line == SIZE_MAX || add_waits(p, kernel, &a, line);
	}
	if (ok)
		trex_profile_kernel_set(p, kernel, listing, TREX_KERNEL_LISTING);
	free(index);
	asm_listing_free(&a);
	return ok;
}
