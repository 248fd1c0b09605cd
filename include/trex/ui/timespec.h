/* Times typed by the user ("go to time: 12.5ms"): a pure parser, no curses,
 * unit-tested in test_timespec.c. */
#ifndef TREX_UI_TIMESPEC_H
#define TREX_UI_TIMESPEC_H

#include <stdbool.h>
#include <stdint.h>

/* What the go-to-time prompt accepts, for its error message. */
#define TREX_TIMESPEC_EXPECTED "expected a time like 12.5ms"

/* Parses "12.5ms", "300us" (or "300µs"), "2s", "1500" (ns), "1.5 ms",
 * "12ns"; a leading '+' or '-' makes it relative (*relative = true, *ns
 * signed). Decimals are exact (never through double) and truncated to
 * whole ns. Blanks around the number and unit are allowed. False on
 * anything else or when the time does not fit int64 ns. */
bool trex_timespec_parse(const char *text, int64_t *ns, bool *relative);

/* The absolute time a parsed spec names: origin + ns, or cursor + ns when
 * relative, saturated to int64. */
int64_t trex_timespec_resolve(int64_t ns, bool relative, int64_t origin, int64_t cursor);

#endif
