/* gzip members inflated by ISA-L (see gzip_isal.h). Compiled to nothing
 * without ISA-L: source.c then inflates with zlib. */
#include "config.h"

#if HAVE_ISAL

#include "gzip_isal.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l.h>
#include <isa-l/igzip_lib.h>
#define ZLIB_CONST
#include <zlib.h>

enum {
	GZ_TRAILER = 8,         /* CRC-32 and ISIZE closing each member */
	GZ_ZLIB_BITS = 15 + 16, /* zlib inflating a gzip member */
	SKIP_SCRATCH = 1 << 16, /* bytes zlib re-inflates at a time, then drops */
	/* igzip's state up to its output history: everything but that buffer. */
	STATE_HEAD = offsetof(struct inflate_state, tmp_out_buffer),
};

/* ISA-L's lengths are 32-bit: inputs and outputs go in helpings. */
#define HELPING_MAX ((size_t)UINT32_MAX)

/* ISA-L rejects a back-reference longer than total_out, a 32-bit count that
 * wraps in members over 4 GiB; it is kept in this range, which is never
 * shorter than the window and far from wrapping. The trailer check uses a
 * count of its own. */
#define TOTAL_OUT_HIGH 0x80000000u
#define TOTAL_OUT_DROP 0x40000000u

struct trex_igz {
	const unsigned char *in;
	size_t len;
	size_t header_at;    /* where the current member's header starts */
	bool need_header;    /* trex_igz_inflate reads a header first */
	uint64_t member_out; /* bytes of the current member so far, for ISIZE */
	z_stream *tail;      /* zlib finishing a member that is cut or corrupt */
	bool tail_corrupt;   /* ... corrupt: its end may still come, and members after it */
	struct inflate_state st;
};

struct trex_igz_snap {
	size_t in_pos;
	size_t header_at;
	uint64_t member_out;
	size_t state_len; /* STATE_HEAD plus the valid part of the history */
	unsigned char state[];
};

static uint32_t load_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void igz_feed(struct trex_igz *d, size_t at)
{
	size_t left = d->len - at;

	d->st.next_in = (uint8_t *)(uintptr_t)(d->in + at);
	d->st.avail_in = (uint32_t)(left < HELPING_MAX ? left : HELPING_MAX);
}

struct trex_igz *trex_igz_new(const unsigned char *in, size_t len)
{
	struct trex_igz *d = malloc(sizeof(*d));

	if (!d)
		return NULL;
	d->in = in;
	d->len = len;
	d->tail = NULL;
	d->tail_corrupt = false;
	isal_inflate_init(&d->st);
	/* Raw deflate that keeps a CRC-32 of the output: headers and trailers
	 * are read here, so members can follow one another. */
	d->st.crc_flag = ISAL_GZIP_NO_HDR;
	trex_igz_member(d, 0);
	return d;
}

void trex_igz_free(struct trex_igz *d)
{
	if (!d)
		return;
	if (d->tail) {
		inflateEnd(d->tail);
		free(d->tail);
	}
	free(d);
}

void trex_igz_member(struct trex_igz *d, size_t at)
{
	if (d->tail) { /* zlib finished the member before: ISA-L takes the next */
		inflateEnd(d->tail);
		free(d->tail);
		d->tail = NULL;
	}
	d->header_at = at;
	d->need_header = true;
	d->member_out = 0;
	igz_feed(d, at); /* trex_igz_in_pos is the header's start until it is read */
}

size_t trex_igz_in_pos(const struct trex_igz *d)
{
	if (d->tail)
		return (size_t)(d->tail->next_in - d->in);
	return (size_t)(d->st.next_in - d->in);
}

bool trex_igz_in_header(const struct trex_igz *d)
{
	return d->need_header && !d->tail;
}

bool trex_igz_can_save(const struct trex_igz *d)
{
	return !d->tail;
}

/* ---- zlib finishing a cut member ------------------------------------------------ */

/* One zlib call; the input goes in uInt helpings. */
static int tail_inflate(struct trex_igz *d, unsigned char *dst, size_t cap, size_t *got)
{
	z_stream *zs = d->tail;
	size_t left = d->len - trex_igz_in_pos(d);

	if (!zs->avail_in)
		zs->avail_in = left > UINT_MAX ? UINT_MAX : (uInt)left;
	zs->next_out = dst;
	zs->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	uInt before = zs->avail_out;
	int ret = inflate(zs, Z_NO_FLUSH);

	*got = before - zs->avail_out;
	return ret;
}

static enum trex_igz_result tail_result(const struct trex_igz *d, int ret, const char **why)
{
	switch (ret) {
	case Z_OK:
		return TREX_IGZ_OK;
	case Z_STREAM_END:
		/* a cut member cannot end (ISA-L saw the cut; what came out
		 * stands); one ISA-L found corrupt ends where zlib finds it whole */
		return d->tail_corrupt ? TREX_IGZ_MEMBER_END : TREX_IGZ_SHORT;
	case Z_BUF_ERROR: /* no progress: the input is spent */
		return TREX_IGZ_SHORT;
	case Z_MEM_ERROR:
		return TREX_IGZ_NOMEM;
	default:
		*why = d->tail->msg ? d->tail->msg : "invalid data";
		return TREX_IGZ_CORRUPT;
	}
}

/* zlib re-inflates the cut member from its header up to where ISA-L
 * stopped; later calls go on from there with zlib. */
static enum trex_igz_result tail_open(struct trex_igz *d, const char **why)
{
	unsigned char *scratch = malloc(SKIP_SCRATCH);
	uint64_t skip = d->member_out;
	enum trex_igz_result r = TREX_IGZ_OK;

	d->tail = calloc(1, sizeof(*d->tail));
	if (!scratch || !d->tail || inflateInit2(d->tail, GZ_ZLIB_BITS) != Z_OK) {
		free(d->tail);
		d->tail = NULL;
		free(scratch);
		return TREX_IGZ_NOMEM;
	}
	d->tail->next_in = d->in + d->header_at;
	while (skip > 0 && r == TREX_IGZ_OK) {
		size_t got;
		int ret = tail_inflate(d, scratch,
		                       skip < SKIP_SCRATCH ? (size_t)skip : SKIP_SCRATCH, &got);

		skip -= got;
		r = tail_result(d, ret, why);
	}
	free(scratch);
	return r;
}

static enum trex_igz_result tail_step(struct trex_igz *d, unsigned char *dst, size_t cap,
                                      size_t *got, const char **why)
{
	int ret = tail_inflate(d, dst, cap, got);

	d->member_out += *got;
	return tail_result(d, ret, why);
}

/* ---- ISA-L ------------------------------------------------------------------------ */

static enum trex_igz_result igz_header(struct trex_igz *d, const char **why)
{
	struct isal_gzip_header hdr;

	isal_inflate_reset(&d->st);
	isal_gzip_header_init(&hdr);
	igz_feed(d, d->header_at);
	switch (isal_read_gzip_header(&d->st, &hdr)) {
	case ISAL_DECOMP_OK:
		d->need_header = false;
		return TREX_IGZ_OK;
	case ISAL_END_INPUT:
		return TREX_IGZ_SHORT;
	case ISAL_UNSUPPORTED_METHOD:
		*why = "unknown compression method";
		return TREX_IGZ_CORRUPT;
	case ISAL_INCORRECT_CHECKSUM:
		*why = "header crc mismatch";
		return TREX_IGZ_CORRUPT;
	default:
		*why = "incorrect header check";
		return TREX_IGZ_CORRUPT;
	}
}

static const char *igz_error(int ret)
{
	switch (ret) {
	case ISAL_INVALID_BLOCK:
		return "invalid block type";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	default:
		return "invalid data";
	}
}

/* ISA-L found the member corrupt: zlib decodes this call's bytes again and
 * goes on with the member. ISA-L decodes ahead of the output it was asked
 * for, into a buffer of its own, and reports an error it meets there at
 * once, so good bytes before it never came out (the fewer the smaller the
 * output: what a damaged file loaded depended on how it was read); with
 * room to spare it can also write a few bytes past where zlib stops.
 * zlib stops at the bad symbol itself, so a corrupt member now yields
 * exactly the bytes zlib would, as a cut one does (tail_open). */
static enum trex_igz_result igz_corrupt(struct trex_igz *d, int ret, unsigned char *dst, size_t cap,
                                        size_t *got, const char **why)
{
	*why = igz_error(ret);
	d->member_out -= *got;
	*got = 0;
	d->tail_corrupt = true;
	enum trex_igz_result r = tail_open(d, why);
	return r == TREX_IGZ_OK ? tail_step(d, dst, cap, got, why) : r;
}

/* The deflate data ended: its last byte is partly padding, and whole bytes
 * ISA-L read ahead into its bit buffer belong to the trailer. */
static enum trex_igz_result igz_trailer(struct trex_igz *d, const char **why)
{
	size_t at = trex_igz_in_pos(d) - (size_t)(d->st.read_in_length / 8);

	if (d->len - at < GZ_TRAILER) {
		igz_feed(d, d->len);
		return TREX_IGZ_SHORT;
	}
	const unsigned char *t = d->in + at;

	igz_feed(d, at + GZ_TRAILER);
	if (load_le32(t) != d->st.crc) {
		*why = "incorrect data check";
		return TREX_IGZ_CORRUPT;
	}
	if (load_le32(t + 4) != (uint32_t)d->member_out) {
		*why = "incorrect length check";
		return TREX_IGZ_CORRUPT;
	}
	return TREX_IGZ_MEMBER_END;
}

enum trex_igz_result trex_igz_inflate(struct trex_igz *d, unsigned char *dst, size_t cap,
                                      size_t *got, const char **why)
{
	*got = 0;
	if (d->tail)
		return tail_step(d, dst, cap, got, why);
	if (d->need_header) {
		enum trex_igz_result r = igz_header(d, why);

		if (r != TREX_IGZ_OK)
			return r;
	}
	igz_feed(d, trex_igz_in_pos(d));
	d->st.next_out = dst;
	d->st.avail_out = (uint32_t)(cap < HELPING_MAX ? cap : HELPING_MAX);
	uint32_t before = d->st.avail_out;
	int ret = isal_inflate(&d->st);

	*got = before - d->st.avail_out;
	d->member_out += *got;
	if (d->st.total_out >= TOTAL_OUT_HIGH)
		d->st.total_out -= TOTAL_OUT_DROP;
	if (ret < 0)
		return igz_corrupt(d, ret, dst, cap, got, why);
	if (d->st.block_state == ISAL_BLOCK_FINISH)
		return igz_trailer(d, why);
	if (*got == 0 && cap > 0) {
		/* Nothing more decodes: the input is spent, or ISA-L is stuck. */
		if (trex_igz_in_pos(d) == d->len) {
			enum trex_igz_result r = tail_open(d, why);

			return r == TREX_IGZ_OK ? tail_step(d, dst, cap, got, why) : r;
		}
		*why = "inflate stalled";
		return TREX_IGZ_CORRUPT;
	}
	return TREX_IGZ_OK;
}

struct trex_igz_snap *trex_igz_save(const struct trex_igz *d, size_t *bytes)
{
	size_t hist = d->st.tmp_out_valid > 0 ? (size_t)d->st.tmp_out_valid : 0;
	size_t state_len = STATE_HEAD + hist;
	struct trex_igz_snap *s = malloc(sizeof(*s) + state_len);

	if (!s)
		return NULL;
	s->in_pos = trex_igz_in_pos(d);
	s->header_at = d->header_at;
	s->member_out = d->member_out;
	s->state_len = state_len;
	memcpy(s->state, &d->st, state_len);
	*bytes = sizeof(*s) + state_len;
	return s;
}

struct trex_igz *trex_igz_restore(const unsigned char *in, size_t len,
                                  const struct trex_igz_snap *snap)
{
	struct trex_igz *d = malloc(sizeof(*d));

	if (!d)
		return NULL;
	d->in = in;
	d->len = len;
	d->header_at = snap->header_at;
	d->need_header = false;
	d->member_out = snap->member_out;
	d->tail = NULL;
	d->tail_corrupt = false;
	memcpy(&d->st, snap->state, snap->state_len);
	igz_feed(d, snap->in_pos);
	return d;
}

void trex_igz_snap_free(struct trex_igz_snap *snap)
{
	free(snap);
}

uint64_t trex_igz_layout(void)
{
	return (uint64_t)ISAL_VERSION << 32 | sizeof(struct inflate_state);
}

size_t trex_igz_snap_size(const struct trex_igz_snap *snap)
{
	return sizeof(*snap) + snap->state_len;
}

const struct trex_igz_snap *trex_igz_snap_check(const void *bytes, size_t len, size_t in_len)
{
	const struct trex_igz_snap *s = bytes;

	if (len < sizeof(*s) || (uintptr_t)bytes % _Alignof(struct trex_igz_snap))
		return NULL;
	if (s->state_len != len - sizeof(*s) || s->state_len < STATE_HEAD ||
	    s->state_len > sizeof(struct inflate_state) || s->in_pos > in_len ||
	    s->header_at > s->in_pos)
		return NULL;
	return s;
}

#endif
