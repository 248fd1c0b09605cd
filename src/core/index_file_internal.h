/* The index file's layout, shared by index_file.c (writing, mapping) and
 * index_file_open.c (checking, loading). Not part of any contract
 * outside src/core. */
#ifndef TREX_CORE_INDEX_FILE_INTERNAL_H
#define TREX_CORE_INDEX_FILE_INTERNAL_H

#include <string.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index_file.h"
#include "index_internal.h"

#define FILE_MAGIC "TREXIDX\n"
#define BYTE_ORDER_MARK 0x01020304u
#define ALIGN 64u
/* Sections are checksummed in chunks of this size, so the writer never
 * holds more than one chunk and the reader hashes straight from the map. */
#define CHUNK ((size_t)1 << 20)
#define CODEC_NAME_MAX 24

enum section_id {
	SEC_IDENTITY,
	SEC_STR_ARENA,
	SEC_STR_OFFS,
	SEC_STR_SLOTS,
	SEC_FILES,
	SEC_LINKS,
	SEC_PROCS,
	SEC_TRACKS,
	SEC_LANES,
	SEC_SLICES,
	SEC_INSTANTS,
	SEC_FLOWS,
	SEC_SAMPLES,
	SEC_LAUNCH_IDS,
	SEC_OP_IDS,
	SEC_FLOWS_OUT,
	SEC_FLOWS_IN,
	SEC_EDGES,
	SEC_EDGES_IN,
	SEC_PROBLEM_HEADS,
	SEC_PROBLEMS,
	SEC_CODECS,
	SEC_CODEC_DATA,
	SEC_LAUNCH_KEYS, /* beside SEC_LAUNCH_IDS: link << 1 | runtime call */
	SEC_FLOW_ID_VAL, /* per flow, its id as read (empty: no ids kept) */
	SEC_FLOW_ID_HOW, /* per flow, the id's kind and chained bit */
	SEC_MEMBERS,     /* per file: n, text length, n (key at, len, value at, len, after), text */
	SEC_KERNEL_SUMMARY, /* per file, per kernel name: aggregates (core/kernel_summary.h) */
	/* the slices' side tables by trex_side_field: bits, counts, values
	 * (index_internal.h); empty for a table without values */
	SEC_SIDE_FIRST,
	SEC_SIDE_LAST = SEC_SIDE_FIRST + TREX_SIDE_COUNT - 1,
	SEC_COUNT
};

struct section {
	uint64_t offset, length, checksum;
};

struct file_header {
	char magic[8];
	uint32_t version, byte_order;
	uint64_t layout; /* record_layout(): sizes and offsets of every record written raw */
	uint64_t file_size;
	uint64_t checksum; /* of this header (checksum 0) and the section table */
	uint32_t section_count;
	uint32_t nfiles, nprocs, ntracks, nlanes, nsamples, nedges, str_count, str_slots;
	uint32_t pad;
	uint64_t nslices, ninstants, nflows, nlaunch, nop, nproblems, str_arena;
	int64_t start, end;
};

/* Per file: its codec's name and its saved bytes in SEC_CODEC_DATA. */
struct codec_entry {
	char name[CODEC_NAME_MAX];
	uint64_t offset, length;
};

/* A mapped file whose header, table and identity checked. */
struct trex_index_file {
	char *name;
	const unsigned char *data;
	size_t len;
	void *map; /* munmap()ed on close; NULL for borrowed memory */
	size_t map_len;
	bool written; /* made writable (clock fixes): its pages hold private copies */
	struct file_header head;
	struct section sec[SEC_COUNT];
};

/* ---- writing (index_file.c) ----
 * A writer streams sections to a file descriptor in chunks of CHUNK bytes,
 * hashing each section's bytes as they pass, so that nothing is held
 * whole in memory. Sections are written between trex_ixw_begin and
 * trex_ixw_end (trex_ixw_section: one buffer as a section); the first
 * write error is kept in errnum and every later write does nothing. */
struct writer {
	int fd;
	uint64_t pos; /* bytes written to fd */
	unsigned char *buf;
	size_t used;       /* bytes of the current chunk in buf */
	struct section *s; /* the section being written, NULL between sections */
	uint64_t hash;
	int errnum; /* first write error, 0 if none */
};

/* trex_args_save_fn-compatible: appends len bytes; false after an error. */
bool trex_ixw_put(void *user, const void *bytes, size_t len);
/* trex_ixw_put of one small record, inline while it fits the chunk: the
 * same bytes in the same chunks, for loops that put record by record. */
static inline bool trex_ixw_put_record(struct writer *w, const void *bytes, size_t len)
{
	if (len < CHUNK - w->used) {
		memcpy(w->buf + w->used, bytes, len);
		w->used += len;
		return !w->errnum;
	}
	return trex_ixw_put(w, bytes, len);
}
void trex_ixw_flush(struct writer *w);
void trex_ixw_pad(struct writer *w, uint64_t align);
void trex_ixw_begin(struct writer *w, struct section *s);
void trex_ixw_end(struct writer *w);
void trex_ixw_section(struct writer *w, struct section *s, const void *data, size_t len);
/* idx's files' top-level members, in the layout the opener reads: as
 * their own section, or (_of) appended to the section being written. */
void trex_ixw_members_of(struct writer *w, const struct trex_index *idx);
void trex_ixw_members(struct writer *w, const struct trex_index *idx, struct section *s);

/* Before the first section: head's fixed fields (magic, version, layout)
 * set, sec zeroed, the writer placed after the header and table. The
 * caller fills head's counts. */
void trex_ixw_start(struct writer *w, struct file_header *head, struct section *sec);
/* After the last section: the header and table written at offset 0. */
void trex_ixw_finish(struct writer *w, struct file_header *head, struct section *sec);

/* Writes an index file to path atomically: body writes it (start,
 * sections, finish) into a temporary file beside path, renamed over path
 * when body and every write succeeded, removed otherwise. */
typedef enum trex_status trex_ixw_body_fn(struct writer *w, void *user, struct trex_error *err);
enum trex_status trex_ixw_atomic(const char *path, trex_ixw_body_fn *body, void *user,
                                 struct trex_error *err);

/* A fingerprint of every record layout the file holds raw. */
uint64_t trex_index_file_layout(void);
/* The checksum of a header (its checksum field taken as 0) and table. */
uint64_t trex_index_file_header_checksum(const struct file_header *head, const struct section *sec);

/* The checksum of len bytes at p, chunk by chunk. */
uint64_t trex_index_file_checksum(const unsigned char *p, uint64_t len);
/* Whether a checksum computed matches the one written (always, in the
 * fuzz target's build). */
bool trex_index_file_checksum_ok(uint64_t computed, uint64_t written);

/* For tests: recomputes every checksum of the len bytes of an index file
 * at data, so that a forged file reaches the checks behind them. */
void trex_index_file_reseal(unsigned char *data, size_t len);

#endif
