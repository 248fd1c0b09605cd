/* The top-level members of a Chrome trace other than its events, kept
 * byte for byte for the exporters (trex_file_member). */
#include "config.h"

#include "chrome_parse.h"

void cj_keep_member(struct cj_parser *ps, const char *key, size_t klen, const char *value,
                    const char *value_end)
{
	size_t vlen = (size_t)(value_end - value);
	struct trex_builder *b;

	if (klen > TREX_FILE_MEMBER_MAX || vlen > TREX_FILE_MEMBER_MAX - klen) {
		cj_note(ps, TREX_INTEG_bad_values, key - 1, NULL,
		        "top-level member \"%.*s\" of %zu bytes is over the %zu MiB kept for "
		        "export (exports lack it)",
		        (int)(klen < 40 ? klen : 40), key, klen + vlen, TREX_FILE_MEMBER_MAX >> 20);
		return;
	}
	if (!ps->b && !ps->job)
		return; /* a parser that keeps nothing */
	b = cj_builder(ps);
	struct trex_file_member m = {key, klen, value, vlen,
	                             (ps->st.features & CJ_TRACE_EVENTS) != 0};
	if (!b || trex_builder_file_member(b, &m) != 0)
		ps->oom = true;
}
