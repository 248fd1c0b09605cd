/* Index files: writing a frozen index, mapping it back (index_file.h). */
#include "config.h"

#include "trex/core/index_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index_file_internal.h"
#include "index_internal.h"
#include "members.h"

/* ---- layout and checksums ------------------------------------------------------------------ */

/* A fingerprint of every record the file holds as raw bytes: a trex whose
 * records differ (another version, another ABI) reads such a file as
 * foreign rather than misreading it. */
uint64_t trex_index_file_layout(void)
{
	const uint64_t v[] = {
	    sizeof(struct trex_slice),
	    offsetof(struct trex_slice, kind),
	    sizeof(struct trex_instant),
	    sizeof(struct trex_flow),
	    sizeof(struct trex_counter_sample),
	    sizeof(struct trex_track),
	    offsetof(struct trex_track, parent),
	    sizeof(struct trex_process),
	    sizeof(struct trex_lane),
	    sizeof(struct trex_file),
	    offsetof(struct trex_file, codec),
	    sizeof(struct trex_integrity),
	    sizeof(struct trex_error),
	    sizeof(struct trex_problem),
	    offsetof(struct trex_problem, what),
	    sizeof(struct trex_problem_list),
	    sizeof(struct trex_file_links),
	    sizeof(struct trex_edge),
	    TREX_SIDE_COUNT,
	    sizeof(struct codec_entry),
	    TREX_INTEG_COUNT,
	    TREX_PROBLEM_EXAMPLES,
	    TREX_EVENT_TYPES_MAX,
	    sizeof(void *),
	    TREX_INDEX_FILE_VERSION,
	};

	return trex_hash_bytes(v, sizeof(v));
}

static uint64_t hash_fold(uint64_t h, uint64_t v)
{
	return trex_mum(h ^ v, 0x9e3779b97f4a7c15ull);
}

uint64_t trex_index_file_checksum(const unsigned char *p, uint64_t len)
{
	uint64_t h = 0x2545f4914f6cdd1dull;

	for (uint64_t at = 0; at < len; at += CHUNK)
		h = hash_fold(h, trex_hash_bytes(p + at, len - at < CHUNK ? len - at : CHUNK));
	return hash_fold(h, len);
}

/* The fuzz target (tests/fuzz/fuzz_index_file.c) skips the checksums, so
 * that mutated files reach the checks behind them. */
bool trex_index_file_checksum_ok(uint64_t computed, uint64_t written)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)computed;
	(void)written;
	return true;
#else
	return computed == written;
#endif
}

uint64_t trex_index_file_header_checksum(const struct file_header *head, const struct section *sec)
{
	struct file_header h = *head;

	h.checksum = 0;
	return hash_fold(trex_hash_bytes(&h, sizeof(h)),
	                 trex_hash_bytes(sec, SEC_COUNT * sizeof(*sec)));
}

/* ---- writing ------------------------------------------------------------------------------- */

/* Hashes (inside a section) and writes p[0, n): one chunk of the section,
 * whether it came through the buffer or straight from the caller. */
static void write_chunk(struct writer *w, const unsigned char *p, size_t n)
{
	size_t done = 0;

	if (w->s && n)
		w->hash = hash_fold(w->hash, trex_hash_bytes(p, n));
	while (done < n && !w->errnum) {
		ssize_t k = write(w->fd, p + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			w->errnum = k < 0 ? errno : EIO;
		else
			done += (size_t)k;
	}
	w->pos += n;
}

void trex_ixw_flush(struct writer *w)
{
	write_chunk(w, w->buf, w->used);
	w->used = 0;
}

/* Whole chunks go from the caller's memory to the file, not through the
 * buffer: the same chunks, so the same checksums, without the copy. */
bool trex_ixw_put(void *user, const void *bytes, size_t len)
{
	struct writer *w = user;
	const unsigned char *p = bytes;

	while (len) {
		size_t n = CHUNK - w->used < len ? CHUNK - w->used : len;

		if (w->used == 0 && n == CHUNK) {
			write_chunk(w, p, CHUNK);
		} else {
			memcpy(w->buf + w->used, p, n);
			w->used += n;
			if (w->used == CHUNK)
				trex_ixw_flush(w);
		}
		p += n;
		len -= n;
	}
	return !w->errnum;
}

void trex_ixw_pad(struct writer *w, uint64_t align)
{
	static const unsigned char zeros[ALIGN];
	uint64_t at = w->pos + w->used;

	trex_ixw_put(w, zeros, (size_t)((align - at % align) % align));
}

void trex_ixw_begin(struct writer *w, struct section *s)
{
	trex_ixw_pad(w, ALIGN);
	trex_ixw_flush(w);
	w->s = s;
	w->hash = 0x2545f4914f6cdd1dull;
	s->offset = w->pos;
}

void trex_ixw_end(struct writer *w)
{
	trex_ixw_flush(w);
	w->s->length = w->pos - w->s->offset;
	w->s->checksum = hash_fold(w->hash, w->s->length);
	w->s = NULL;
}

void trex_ixw_section(struct writer *w, struct section *s, const void *data, size_t len)
{
	trex_ixw_begin(w, s);
	trex_ixw_put(w, data, len);
	trex_ixw_end(w);
}

/* A blocked vector's records, block by block. */
static void w_vec(struct writer *w, struct section *s, const struct trex_vec *v)
{
	trex_ixw_begin(w, s);
	for (size_t at = 0; at < v->count; at += TREX_VEC_BLOCK) {
		size_t n = v->count - at < TREX_VEC_BLOCK ? v->count - at : TREX_VEC_BLOCK;

		trex_ixw_put(w, v->blocks[at >> TREX_VEC_SHIFT], n * v->elem);
	}
	trex_ixw_end(w);
}

static void w_strings(struct writer *w, const struct trex_index *idx, struct file_header *head,
                      struct section *sec)
{
	struct trex_strtab_raw raw;

	trex_strtab_raw(idx->strs, &raw);
	head->str_count = raw.count;
	head->str_slots = raw.nslots;
	head->str_arena = raw.arena_len;
	trex_ixw_section(w, &sec[SEC_STR_ARENA], raw.arena, raw.arena_len);
	trex_ixw_section(w, &sec[SEC_STR_OFFS], raw.offs,
	                 ((size_t)raw.count + 1) * sizeof(uint32_t));
	trex_ixw_section(w, &sec[SEC_STR_SLOTS], raw.slots, (size_t)raw.nslots * 8);
}

/* Files without their codec pointers (set again on open). */
static void w_files(struct writer *w, const struct trex_index *idx, struct section *s)
{
	trex_ixw_begin(w, s);
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		struct trex_file f = idx->files[i];

		f.codec = NULL;
		f.codec_ctx = NULL;
		trex_ixw_put(w, &f, sizeof(f));
	}
	trex_ixw_end(w);
}

static void w_problems(struct writer *w, const struct trex_index *idx, struct file_header *head,
                       struct section *sec)
{
	trex_ixw_begin(w, &sec[SEC_PROBLEM_HEADS]);
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		struct trex_problem_list l = idx->problems[i];

		head->nproblems += l.n;
		l.v = NULL;
		l.cap = 0;
		trex_ixw_put(w, &l, sizeof(l));
	}
	trex_ixw_end(w);
	trex_ixw_begin(w, &sec[SEC_PROBLEMS]);
	for (uint32_t i = 0; i < idx->nfiles; i++)
		trex_ixw_put(w, idx->problems[i].v,
		             idx->problems[i].n * sizeof(struct trex_problem));
	trex_ixw_end(w);
}

/* Each file's codec bytes (8-byte aligned), then the table naming them. */
static enum trex_status w_codecs(struct writer *w, const struct trex_index *idx,
                                 struct section *sec, struct trex_error *err)
{
	struct codec_entry *e = calloc(idx->nfiles ? idx->nfiles : 1, sizeof(*e));
	enum trex_status st = e ? TREX_OK : TREX_NOMEM;

	trex_ixw_begin(w, &sec[SEC_CODEC_DATA]);
	for (uint32_t i = 0; st == TREX_OK && i < idx->nfiles; i++) {
		const struct trex_file *f = &idx->files[i];

		if (!f->codec || !f->codec_ctx)
			continue;
		trex_ixw_pad(w, 8);
		snprintf(e[i].name, sizeof(e[i].name), "%s", f->codec->name);
		e[i].offset = w->pos + w->used - sec[SEC_CODEC_DATA].offset;
		st = f->codec->save(f->codec_ctx, trex_ixw_put, w, err);
		e[i].length = w->pos + w->used - sec[SEC_CODEC_DATA].offset - e[i].offset;
	}
	trex_ixw_end(w);
	if (st == TREX_OK)
		trex_ixw_section(w, &sec[SEC_CODECS], e, idx->nfiles * sizeof(*e));
	free(e);
	if (st == TREX_NOMEM && err->status == TREX_OK)
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return st;
}

/* A side table's bits, counts and values, one after the other. */
static void w_side(struct writer *w, struct section *s, const struct trex_side_table *t)
{
	trex_ixw_begin(w, s);
	trex_ixw_put(w, t->bits, t->words * sizeof(*t->bits));
	trex_ixw_put(w, t->before, t->words * sizeof(*t->before));
	trex_ixw_put(w, t->values, t->n * sizeof(*t->values));
	trex_ixw_end(w);
}

static void w_arrays(struct writer *w, const struct trex_index *idx, struct file_header *h,
                     struct section *sec)
{
	h->nlaunch = h->nop = 0;
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		h->nlaunch += idx->links[i].launch_count;
		h->nop += idx->links[i].op_count;
	}
	trex_ixw_section(w, &sec[SEC_LINKS], idx->links, idx->nfiles * sizeof(*idx->links));
	trex_ixw_section(w, &sec[SEC_PROCS], idx->procs, idx->nprocs * sizeof(*idx->procs));
	trex_ixw_section(w, &sec[SEC_TRACKS], idx->tracks, idx->ntracks * sizeof(*idx->tracks));
	trex_ixw_section(w, &sec[SEC_LANES], idx->lanes, idx->nlanes * sizeof(*idx->lanes));
	w_vec(w, &sec[SEC_SLICES], &idx->slices);
	w_vec(w, &sec[SEC_INSTANTS], &idx->instants);
	w_vec(w, &sec[SEC_FLOWS], &idx->flows);
	trex_ixw_section(w, &sec[SEC_SAMPLES], idx->samples, idx->nsamples * sizeof(*idx->samples));
	trex_ixw_section(w, &sec[SEC_LAUNCH_IDS], idx->launch_ids, h->nlaunch * sizeof(uint32_t));
	trex_ixw_section(w, &sec[SEC_OP_IDS], idx->op_ids, h->nop * sizeof(uint32_t));
	trex_ixw_section(w, &sec[SEC_FLOWS_OUT], idx->flows_out,
	                 idx->flows.count * sizeof(uint32_t));
	trex_ixw_section(w, &sec[SEC_FLOWS_IN], idx->flows_in, idx->flows.count * sizeof(uint32_t));
	trex_ixw_section(w, &sec[SEC_EDGES], idx->edges, idx->nedges * sizeof(*idx->edges));
	trex_ixw_section(w, &sec[SEC_EDGES_IN], idx->edges_in, idx->nedges * sizeof(uint32_t));
	trex_ixw_section(w, &sec[SEC_LAUNCH_KEYS], idx->launch_keys, h->nlaunch * sizeof(uint64_t));
	trex_ixw_section(w, &sec[SEC_FLOW_ID_VAL], idx->flow_id_val,
	                 idx->flow_id_how ? idx->flows.count * sizeof(uint64_t) : 0);
	trex_ixw_section(w, &sec[SEC_FLOW_ID_HOW], idx->flow_id_how,
	                 idx->flow_id_how ? idx->flows.count : 0);
	for (int f = 0; f < TREX_SIDE_COUNT; f++)
		w_side(w, &sec[SEC_SIDE_FIRST + f], &idx->side[f]);
}

/* Each file's top-level members (members.h): counts, records, text. */
void trex_ixw_members_of(struct writer *w, const struct trex_index *idx)
{
	static const char zero[8];

	for (uint32_t i = 0; i < idx->nfiles; i++) {
		const struct trex_member_list *l = idx->members ? &idx->members[i] : NULL;
		uint64_t n = l ? l->n : 0, len = l ? l->len : 0;

		trex_ixw_put(w, &n, sizeof(n));
		trex_ixw_put(w, &len, sizeof(len));
		for (uint64_t k = 0; k < n; k++) {
			const struct trex_member_rec *r = &l->v[k];
			uint64_t rec[5] = {r->key_at, r->key_len, r->value_at, r->value_len,
			                   r->after_events};

			trex_ixw_put(w, rec, sizeof(rec));
		}
		if (len)
			trex_ixw_put(w, l->text, len);
		trex_ixw_put(w, zero, (8 - len % 8) % 8);
	}
}

void trex_ixw_members(struct writer *w, const struct trex_index *idx, struct section *s)
{
	trex_ixw_begin(w, s);
	trex_ixw_members_of(w, idx);
	trex_ixw_end(w);
}

static void head_counts(const struct trex_index *idx, struct file_header *h)
{
	h->nfiles = idx->nfiles;
	h->nprocs = idx->nprocs;
	h->ntracks = idx->ntracks;
	h->nlanes = idx->nlanes;
	h->nsamples = idx->nsamples;
	h->nedges = idx->nedges;
	h->nslices = idx->slices.count;
	h->ninstants = idx->instants.count;
	h->nflows = idx->flows.count;
	h->start = idx->start;
	h->end = idx->end;
}

/* Everything after the header and table, then those two at offset 0. */
struct w_blobs {
	const struct trex_index *idx;
	const void *identity, *summary;
	size_t identity_len, summary_len;
};

void trex_ixw_start(struct writer *w, struct file_header *head, struct section *sec)
{
	memset(sec, 0, SEC_COUNT * sizeof(*sec));
	memcpy(head->magic, FILE_MAGIC, sizeof(head->magic));
	head->version = TREX_INDEX_FILE_VERSION;
	head->byte_order = BYTE_ORDER_MARK;
	head->layout = trex_index_file_layout();
	head->section_count = SEC_COUNT;
	w->pos = sizeof(*head) + SEC_COUNT * sizeof(*sec);
	if (lseek(w->fd, (off_t)w->pos, SEEK_SET) < 0)
		w->errnum = errno;
}

void trex_ixw_finish(struct writer *w, struct file_header *head, struct section *sec)
{
	trex_ixw_pad(w, ALIGN);
	trex_ixw_flush(w);
	head->file_size = w->pos;
	head->checksum = trex_index_file_header_checksum(head, sec);
	if (!w->errnum && (pwrite(w->fd, head, sizeof(*head), 0) != (ssize_t)sizeof(*head) ||
	                   pwrite(w->fd, sec, SEC_COUNT * sizeof(*sec), sizeof(*head)) !=
	                       (ssize_t)(SEC_COUNT * sizeof(*sec))))
		w->errnum = errno ? errno : EIO;
}

static enum trex_status w_index(struct writer *w, void *user, struct trex_error *err)
{
	const struct w_blobs *b = user;
	const struct trex_index *idx = b->idx;
	struct file_header head;
	struct section sec[SEC_COUNT];
	enum trex_status st;

	memset(&head, 0, sizeof(head));
	trex_ixw_start(w, &head, sec);
	head_counts(idx, &head);
	trex_ixw_section(w, &sec[SEC_IDENTITY], b->identity, b->identity_len);
	w_strings(w, idx, &head, sec);
	w_files(w, idx, &sec[SEC_FILES]);
	w_arrays(w, idx, &head, sec);
	w_problems(w, idx, &head, sec);
	trex_ixw_members(w, idx, &sec[SEC_MEMBERS]);
	st = w_codecs(w, idx, sec, err);
	if (st != TREX_OK)
		return st;
	trex_ixw_section(w, &sec[SEC_KERNEL_SUMMARY], b->summary, b->summary_len);
	trex_ixw_finish(w, &head, sec);
	return TREX_OK;
}

bool trex_index_file_supported(const struct trex_index *idx, const char **why)
{
	if (idx->graph) {
		*why = "execution graphs are not cached (their schedule is rebuilt on every load)";
		return false;
	}
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		const struct trex_file *f = &idx->files[i];

		if (f->codec && f->codec_ctx && (!f->codec->save || !f->codec->reopen)) {
			*why = "this input format's args cannot be saved";
			return false;
		}
	}
	return true;
}

/* A temporary name beside path, unique to this process and thread. */
static int open_temp(const char *path, char *tmp, size_t size)
{
	int fd;

	snprintf(tmp, size, "%s.%ld.%lx.tmp", path, (long)getpid(), (unsigned long)pthread_self());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) /* left by a dead namesake */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	return fd;
}

enum trex_status trex_index_file_write(const struct trex_index *idx, const char *path,
                                       const void *identity, size_t identity_len,
                                       struct trex_error *err)
{
	return trex_index_file_write_summary(idx, path, identity, identity_len, NULL, 0, err);
}

enum trex_status trex_index_file_write_summary(const struct trex_index *idx, const char *path,
                                               const void *identity, size_t identity_len,
                                               const void *summary, size_t summary_len,
                                               struct trex_error *err)
{
	struct w_blobs blobs = {idx, identity, summary, identity_len, summary_len};
	const char *why;

	if (!trex_index_file_supported(idx, &why))
		return trex_error_set(err, TREX_USAGE, path, -1, "not written: %s", why);
	return trex_ixw_atomic(path, w_index, &blobs, err);
}

enum trex_status trex_ixw_atomic(const char *path, trex_ixw_body_fn *body, void *user,
                                 struct trex_error *err)
{
	char tmp[TREX_ERROR_PATH_MAX + 64];
	struct writer w = {.fd = -1};
	enum trex_status st;

	if (!(w.buf = malloc(CHUNK)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	w.fd = open_temp(path, tmp, sizeof(tmp));
	if (w.fd < 0) {
		free(w.buf);
		return trex_error_set(err, TREX_IO, path, -1, "%s", strerror(errno));
	}
	st = body(&w, user, err);
	if (close(w.fd) != 0 && !w.errnum)
		w.errnum = errno;
	free(w.buf);
	if (st == TREX_OK && !w.errnum && rename(tmp, path) != 0)
		w.errnum = errno;
	/* A failed write is the cause whatever the body made of it: a codec's
	 * save told that put refused its bytes takes it for memory. */
	if (w.errnum)
		st = trex_error_set(err, TREX_IO, path, -1, "%s", strerror(w.errnum));
	if (st != TREX_OK)
		unlink(tmp);
	return st;
}

/* ---- mapping ------------------------------------------------------------------------------- */

static enum trex_status bad(const struct trex_index_file *f, struct trex_error *err,
                            const char *what)
{
	return trex_error_set(err, TREX_FORMAT, f->name, -1, "%s", what);
}

static enum trex_status check_header(struct trex_index_file *f, struct trex_error *err)
{
	struct file_header *h = &f->head;

	if (f->len < sizeof(*h) + sizeof(f->sec) || memcmp(f->data, FILE_MAGIC, 8) != 0)
		return bad(f, err,
		           f->len >= 8 && memcmp(f->data, FILE_MAGIC, 8) == 0
		               ? "truncated index file"
		               : "not a trex index file");
	memcpy(h, f->data, sizeof(*h));
	memcpy(f->sec, f->data + sizeof(*h), sizeof(f->sec));
	if (h->version != TREX_INDEX_FILE_VERSION)
		return trex_error_set(err, TREX_FORMAT, f->name, -1,
		                      "index file version %u, this trex reads %u", h->version,
		                      TREX_INDEX_FILE_VERSION);
	if (h->byte_order != BYTE_ORDER_MARK || h->layout != trex_index_file_layout())
		return bad(f, err, "index file from another kind of machine or trex build");
	if (h->file_size != f->len)
		return bad(f, err,
		           h->file_size > f->len ? "truncated index file"
		                                 : "index file longer than written");
	if (h->section_count != SEC_COUNT ||
	    !trex_index_file_checksum_ok(trex_index_file_header_checksum(h, f->sec), h->checksum))
		return bad(f, err, "damaged index file header");
	for (int i = 0; i < SEC_COUNT; i++) {
		const struct section *s = &f->sec[i];

		if (s->offset % 8 || s->offset > f->len || s->length > f->len - s->offset)
			return bad(f, err, "damaged index file section table");
	}
	if (!trex_index_file_checksum_ok(
	        trex_index_file_checksum(f->data + f->sec[SEC_IDENTITY].offset,
	                                 f->sec[SEC_IDENTITY].length),
	        f->sec[SEC_IDENTITY].checksum))
		return bad(f, err, "damaged index file (identity)");
	return TREX_OK;
}

static enum trex_status map_checked(struct trex_index_file *f, struct trex_index_file **out,
                                    struct trex_error *err)
{
	enum trex_status st = check_header(f, err);

	if (st != TREX_OK) {
		trex_index_file_close(f);
		return st;
	}
	*out = f;
	return TREX_OK;
}

static struct trex_index_file *file_new(const char *name, struct trex_error *err)
{
	struct trex_index_file *f = calloc(1, sizeof(*f));

	if (f && !(f->name = strdup(name))) {
		free(f);
		f = NULL;
	}
	if (!f)
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return f;
}

enum trex_status trex_index_file_map_memory(const char *name, const void *data, size_t len,
                                            struct trex_index_file **out, struct trex_error *err)
{
	struct trex_index_file *f = file_new(name, err);

	*out = NULL;
	if (!f)
		return TREX_NOMEM;
	f->data = data;
	f->len = len;
	return map_checked(f, out, err);
}

enum trex_status trex_index_file_map(const char *path, struct trex_index_file **out,
                                     struct trex_error *err)
{
	struct trex_index_file *f;
	struct stat st;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trex_error_set(err, TREX_IO, path, -1, "%s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return trex_error_set(err, TREX_IO, path, -1, "not a regular file");
	}
	if (!(f = file_new(path, err))) {
		close(fd);
		return TREX_NOMEM;
	}
	if (st.st_size > 0) {
		f->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			close(fd);
			trex_index_file_close(f);
			return trex_error_set(err, TREX_IO, path, -1, "cannot map: %s",
			                      strerror(errno));
		}
		f->map_len = (size_t)st.st_size;
	}
	close(fd);
	f->data = f->map;
	f->len = f->map_len;
	return map_checked(f, out, err);
}

const void *trex_index_file_identity(const struct trex_index_file *f, size_t *len)
{
	*len = f->sec[SEC_IDENTITY].length;
	return f->data + f->sec[SEC_IDENTITY].offset;
}

void trex_index_file_close(struct trex_index_file *f)
{
	if (!f)
		return;
	if (f->map)
		munmap(f->map, f->map_len);
	free(f->name);
	free(f);
}

enum trex_status trex_index_file_kernel_summary(const struct trex_index_file *f, const void **data,
                                                size_t *len, struct trex_error *err)
{
	const struct section *s = &f->sec[SEC_KERNEL_SUMMARY];

	*data = f->data + s->offset;
	*len = (size_t)s->length;
	if (!trex_index_file_checksum_ok(trex_index_file_checksum(*data, s->length), s->checksum))
		return bad(f, err, "damaged index file (kernel summary)");
	return TREX_OK;
}

void trex_index_hand_back(const struct trex_index *idx)
{
	const struct trex_index_file *f = idx->mapped;

	/* While the mapping is private and never written, its pages only
	 * leave this process's page tables: they stay in the page cache, and
	 * a later read maps the same bytes in again. Written pages (clock
	 * fixes) are private copies that MADV_DONTNEED would throw away. */
	if (f && f->map && !f->written)
		(void)madvise(f->map, f->map_len, MADV_DONTNEED);
}

uint64_t trex_index_file_bytes(const struct trex_index *idx)
{
	return idx->mapped ? idx->mapped->len : 0;
}

void trex_index_file_reseal(unsigned char *data, size_t len)
{
	struct file_header h;
	struct section sec[SEC_COUNT];

	if (len < sizeof(h) + sizeof(sec))
		return;
	memcpy(&h, data, sizeof(h));
	memcpy(sec, data + sizeof(h), sizeof(sec));
	for (int i = 0; i < SEC_COUNT; i++)
		if (sec[i].offset <= len && sec[i].length <= len - sec[i].offset)
			sec[i].checksum =
			    trex_index_file_checksum(data + sec[i].offset, sec[i].length);
	h.checksum = trex_index_file_header_checksum(&h, sec);
	memcpy(data, &h, sizeof(h));
	memcpy(data + sizeof(h), sec, sizeof(sec));
}
