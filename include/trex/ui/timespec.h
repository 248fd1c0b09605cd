/* Times typed by the user ("go to time: 12.5ms"): a pure parser, no curses,
 * unit-tested in test_timespec.c. */
#ifndef TREX_UI_TIMESPEC_H
#define TREX_UI_TIMESPEC_H

#include <stdbool.h>
#include <stdint.h>

/* What the go-to-time prompt accepts, for its error message. */
#define TREX_TIMESPEC_EXPECTED                                                                     \
	"expected a time like 12.5ms, +2ms or an absolute one like 1695835535123456789 ns"

/* Parses "12.5ms", "300us" (or "300µs"), "2s", "1500" (ns), "1.5 ms",
 * "12ns"; a leading '+' or '-' makes it relative (*relative = true, *ns
 * signed). Decimals are exact (never through double) and truncated to
 * whole ns. Blanks around the number and unit are allowed. False on
 * anything else or when the time does not fit int64 ns. */
bool trex_timespec_parse(const char *text, int64_t *ns, bool *relative);

/* The absolute time a parsed spec names: origin + ns, or cursor + ns when
 * relative, saturated to int64. */
int64_t trex_timespec_resolve(int64_t ns, bool relative, int64_t origin, int64_t cursor);

/* How a typed time was read, and where it falls against the trace. */
enum trex_timespec_base {
	TREX_TIMESPEC_FROM_START,  /* "12.5ms": into the trace */
	TREX_TIMESPEC_FROM_CURSOR, /* "+2ms", "-2ms" */
	TREX_TIMESPEC_ABSOLUTE,    /* "absolute 1695835535123456789 ns", or a plain time
	                            * nearer the trace as an absolute one (the details pane
	                            * prints absolute times) */
};
enum trex_timespec_where { TREX_TIMESPEC_INSIDE, TREX_TIMESPEC_BEFORE, TREX_TIMESPEC_AFTER };

struct trex_timespec_target {
	int64_t t; /* the absolute time named, saturated to int64 */
	enum trex_timespec_base base;
	enum trex_timespec_where where; /* against [start, end] */
};

/* Reads text as trex_timespec_parse does, also after the word "absolute"
 * (or "abs", or "@"), for the trace [start, end] and the cursor. A plain
 * time is from the trace's start unless its absolute reading is nearer
 * the trace (inside it, or closer to it when both are outside). False
 * when text is no time. */
bool trex_timespec_locate(const char *text, int64_t start, int64_t end, int64_t cursor,
                          struct trex_timespec_target *out);

#endif
