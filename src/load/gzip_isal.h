/* Intel ISA-L's igzip inflate over gzip members held in memory: the
 * decoder of src/load/source.c when configure found ISA-L (HAVE_ISAL).
 * ISA-L inflates raw deflate here and this module reads each member's
 * header and checks its trailer itself (CRC-32 and ISIZE), so multi-member
 * input, truncation and corruption behave as with zlib. What ISA-L cannot
 * do is left to zlib, which re-inflates the member and finishes it (one zlib
 * pass over that member, broken files only): decode the last symbols before
 * a cut (it decodes a few symbols at a time and drops a group the end of
 * input cuts), and stop exactly at a corrupt symbol (it decodes ahead into a
 * buffer of its own and reports an error met there before the good bytes
 * that precede it, or writes a few past it). So a truncated or corrupt file
 * yields exactly the bytes zlib would, however it is read.
 *
 * ISA-L 2.30 cannot stop at deflate block boundaries, so resume points are
 * snapshots of the whole decoder state (Huffman tables, bit buffer and the
 * 32 KiB history ISA-L keeps between calls) taken between two inflate calls;
 * a snapshot resumes anywhere, mid-block included. */
#ifndef TREX_LOAD_GZIP_ISAL_H
#define TREX_LOAD_GZIP_ISAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trex_igz;
struct trex_igz_snap;

enum trex_igz_result {
	TREX_IGZ_OK,         /* inflated; more may follow */
	TREX_IGZ_MEMBER_END, /* a member ended, trailer good; in_pos is just past it */
	TREX_IGZ_SHORT,      /* the input ends inside a member (truncated file) */
	TREX_IGZ_CORRUPT,    /* *why says what is wrong, near in_pos */
	TREX_IGZ_NOMEM,
};

/* A decoder at the first member's header, at byte 0 of in[0..len), which
 * must outlive it. NULL when out of memory. */
struct trex_igz *trex_igz_new(const unsigned char *in, size_t len);
void trex_igz_free(struct trex_igz *d);

/* The next member's header starts at byte at; it is read by the next
 * trex_igz_inflate. */
void trex_igz_member(struct trex_igz *d, size_t at);

/* One ISA-L inflate call: up to cap bytes into dst, *got of them written
 * (also when the result is not OK: the bytes before a corruption). */
enum trex_igz_result trex_igz_inflate(struct trex_igz *d, unsigned char *dst, size_t cap,
                                      size_t *got, const char **why);

/* Compressed bytes consumed so far (bits ISA-L buffered count as read). */
size_t trex_igz_in_pos(const struct trex_igz *d);
/* Whether the next inflate reads a member header first: after
 * TREX_IGZ_SHORT, the input ended inside that header. */
bool trex_igz_in_header(const struct trex_igz *d);
/* Whether trex_igz_save may be called now: not once zlib finishes a cut
 * member. */
bool trex_igz_can_save(const struct trex_igz *d);

/* The decoder's complete state, taken between two trex_igz_inflate calls
 * inside a member; *bytes receives its size. NULL when out of memory. */
struct trex_igz_snap *trex_igz_save(const struct trex_igz *d, size_t *bytes);
/* A new decoder over the same input that continues exactly where the one
 * saved in snap stood. NULL when out of memory. */
struct trex_igz *trex_igz_restore(const unsigned char *in, size_t len,
                                  const struct trex_igz_snap *snap);
void trex_igz_snap_free(struct trex_igz_snap *snap);

/* Snapshots kept in index files (core/index_file.h) as their bytes: the
 * ISA-L version and state size they are valid for, a snapshot's size
 * (its bytes start at the snapshot), and bytes[0..len) as a snapshot for
 * input of in_len bytes when they are one (aligned, sizes consistent),
 * else NULL. */
uint64_t trex_igz_layout(void);
size_t trex_igz_snap_size(const struct trex_igz_snap *snap);
const struct trex_igz_snap *trex_igz_snap_check(const void *bytes, size_t len, size_t in_len);

#endif
