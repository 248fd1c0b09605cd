#include "config.h"

#include "json_scan.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define JSON_SKIP_X86 1
#endif

/* Skipping an object or array 64 bytes at a time, the way simdjson's
 * stage 1 finds structure: bit masks of quotes, backslashes and brackets,
 * the escaped bytes from runs of backslashes, the bytes inside strings as
 * the prefix XOR of the unescaped quotes, then the bracket depth from
 * popcounts (bit by bit only in the block where it may reach zero).
 *
 * It must agree byte for byte with json_skip_container_bytes, whose
 * backslashes escape only inside strings. The two differ only after a
 * backslash outside a string (damaged input), and such a block is taken
 * byte by byte, so that every trace, damaged or not, splits the same. */

struct skip_state {
	uint64_t depth;
	uint64_t in_string; /* all ones when the block starts inside a string */
	uint64_t escaped;   /* 1 when the block's first byte is escaped */
};

/* The masks of one 64-byte block: bit i for byte i. */
struct skip_masks {
	uint64_t quote, backslash, open, close;
};

/* Bit i: the XOR of bits 0..i (in a string from an opening quote on). */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* The bytes escaped by a backslash (simdjson's branch-free odd-run rule):
 * a run of backslashes escapes the byte after it when its length is odd. */
static inline uint64_t escaped_bytes(uint64_t backslash, uint64_t *carry)
{
	const uint64_t even_bits = 0x5555555555555555ull;
	backslash &= ~*carry;
	uint64_t follows_escape = backslash << 1 | *carry;
	uint64_t odd_starts = backslash & ~even_bits & ~follows_escape;
	uint64_t even_runs;
	*carry = __builtin_add_overflow(odd_starts, backslash, &even_runs);
	uint64_t invert = even_runs << 1;
	return (even_bits ^ invert) & follows_escape;
}

/* One block byte by byte, from the state at its start. Returns the index
 * of the closing bracket, or 64. */
static unsigned skip_block_bytes(struct skip_state *s, const char *block)
{
	bool in = s->in_string != 0, esc = s->escaped != 0;
	for (unsigned i = 0; i < 64; i++) {
		char c = block[i];
		if (esc) {
			esc = false;
		} else if (in) {
			esc = c == '\\';
			in = c != '"';
		} else if (c == '"') {
			in = true;
		} else if (c == '{' || c == '[') {
			s->depth++;
		} else if ((c == '}' || c == ']') && --s->depth == 0) {
			return i;
		}
	}
	s->in_string = in ? ~0ull : 0;
	s->escaped = esc;
	return 64;
}

/* The first bracket among open|close where the depth returns to zero. */
static inline unsigned depth_zero_at(struct skip_state *s, uint64_t open, uint64_t close)
{
	for (uint64_t all = open | close; all; all &= all - 1) {
		unsigned i = (unsigned)__builtin_ctzll(all);
		if (open >> i & 1)
			s->depth++;
		else if (--s->depth == 0)
			return i;
	}
	return 64;
}

/* One block from its masks; as skip_block_bytes. */
static inline __attribute__((always_inline)) unsigned
skip_block(struct skip_state *s, const char *block, struct skip_masks m)
{
	uint64_t carry = s->escaped;
	uint64_t escaped = escaped_bytes(m.backslash, &carry);
	uint64_t in_string = prefix_xor(m.quote & ~escaped) ^ s->in_string;
	if (m.backslash & ~in_string)
		return skip_block_bytes(s, block); /* a backslash outside a string */
	s->escaped = carry;
	s->in_string = (uint64_t)((int64_t)in_string >> 63);
	uint64_t open = m.open & ~in_string, close = m.close & ~in_string;
	uint64_t closes = (uint64_t)__builtin_popcountll(close);
	if (closes < s->depth) { /* cannot reach zero in this block */
		s->depth += (uint64_t)__builtin_popcountll(open) - closes;
		return 64;
	}
	return depth_zero_at(s, open, close);
}

/* Runs blocks over [p, end), the last one padded with blanks; masks_of
 * fills the masks of a 64-byte block. */
#define SKIP_LOOP(masks_of)                                                                        \
	do {                                                                                       \
		struct skip_state s = {0, 0, 0};                                                   \
		for (; end - p >= 64; p += 64) {                                                   \
			unsigned i = skip_block(&s, p, masks_of(p));                               \
			if (i < 64) {                                                              \
				*out = p + i + 1;                                                  \
				return JSON_OK;                                                    \
			}                                                                          \
		}                                                                                  \
		char tail[64];                                                                     \
		size_t n = (size_t)(end - p);                                                      \
		memset(tail, ' ', sizeof tail);                                                    \
		memcpy(tail, p, n);                                                                \
		unsigned i = skip_block(&s, tail, masks_of(tail));                                 \
		if (i < n) {                                                                       \
			*out = p + i + 1;                                                          \
			return JSON_OK;                                                            \
		}                                                                                  \
		return JSON_INCOMPLETE;                                                            \
	} while (0)

#if defined(JSON_SKIP_X86)
/* '[' and '{' (0x5B, 0x7B) differ only in bit 0x20, as do ']' and '}'. */
__attribute__((target("avx2"))) static inline struct skip_masks masks_avx2(const char *p)
{
	const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
	const __m256i case_bit = _mm256_set1_epi8(0x20);
	const __m256i open = _mm256_set1_epi8('{'), close = _mm256_set1_epi8('}');
	struct skip_masks m = {0, 0, 0, 0};
	for (int half = 0; half < 2; half++) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * half));
		__m256i folded = _mm256_or_si256(v, case_bit);
		unsigned shift = 32u * (unsigned)half;
		m.quote |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote))
		           << shift;
		m.backslash |=
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, bslash)) << shift;
		m.open |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open))
		          << shift;
		m.close |=
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close))
		    << shift;
	}
	return m;
}

__attribute__((target("avx2,popcnt"))) static enum json_scan_status
skip_container_avx2(const char *p, const char *end, const char **out)
{
	SKIP_LOOP(masks_avx2);
}
#endif

#if defined(__SSE2__)
static inline struct skip_masks masks_sse2(const char *p)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i case_bit = _mm_set1_epi8(0x20);
	const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
	struct skip_masks m = {0, 0, 0, 0};
	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
		__m128i folded = _mm_or_si128(v, case_bit);
		unsigned shift = 16u * (unsigned)k;
		m.quote |= (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
		m.backslash |= (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, bslash)) << shift;
		m.open |= (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)) << shift;
		m.close |= (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)) << shift;
	}
	return m;
}

enum json_scan_status json_skip_container_sse2(const char *p, const char *end, const char **out)
{
	SKIP_LOOP(masks_sse2);
}
#endif

/* Portable: the masks built a byte at a time (for tests, and machines
 * without SSE2, where json_skip_container uses the byte loop instead). */
static inline struct skip_masks masks_portable(const char *p)
{
	struct skip_masks m = {0, 0, 0, 0};
	for (unsigned i = 0; i < 64; i++) {
		uint64_t bit = 1ull << i;
		char c = p[i], folded = (char)(c | 0x20);
		m.quote |= c == '"' ? bit : 0;
		m.backslash |= c == '\\' ? bit : 0;
		m.open |= folded == '{' ? bit : 0;
		m.close |= folded == '}' ? bit : 0;
	}
	return m;
}

enum json_scan_status json_skip_container_blocks(const char *p, const char *end, const char **out)
{
	SKIP_LOOP(masks_portable);
}

bool json_skip_has_avx2(void)
{
#if defined(JSON_SKIP_X86)
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
	return false;
#endif
}

enum json_scan_status json_skip_container_avx2(const char *p, const char *end, const char **out)
{
#if defined(JSON_SKIP_X86)
	if (json_skip_has_avx2())
		return skip_container_avx2(p, end, out);
#endif
	return json_skip_container_bytes(p, end, out);
}

/* Containers shorter than this are skipped by the byte loop: most in trace
 * args are ("grid": [32768, 1, 1]), and for them the loop's two or three
 * steps cost less than one block's masks (4.7 against 11 ns a call). */
#define JSON_SKIP_SHORT 64

enum json_scan_status json_skip_container(const char *p, const char *end, const char **out)
{
	/* the byte loop stops at the same byte whatever lies past its end,
	 * so a short container's answer from the first bytes is final */
	const char *short_end = end - p > JSON_SKIP_SHORT ? p + JSON_SKIP_SHORT : end;
	enum json_scan_status st = json_skip_container_bytes(p, short_end, out);
	if (st == JSON_OK || short_end == end)
		return st;
#if defined(JSON_SKIP_X86)
	if (json_skip_has_avx2())
		return skip_container_avx2(p, end, out);
#endif
#if defined(__SSE2__)
	return json_skip_container_sse2(p, end, out);
#else
	return json_skip_container_bytes(p, end, out);
#endif
}
