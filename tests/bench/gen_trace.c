/* gen_trace: writes a synthetic Kineto trace for the benchmarks.
 *
 *   gen_trace EVENTS OUT.json [--streams N] [--rank R] [--seed S]
 *
 * OUT "-" writes to stdout. Prints events, bytes and the generation rate on
 * stderr. Built by tests/bench/run.sh from src/load/synthetic.c and
 * src/core/status.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trex/core/status.h"
#include "trex/demo/synthetic.h"

static int usage(void)
{
	fprintf(stderr, "usage: gen_trace EVENTS OUT.json [--streams N] [--rank R] [--seed S]\n");
	return 1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse_options(int argc, char **argv, struct trex_synth_params *p)
{
	for (int i = 3; i < argc; i += 2) {
		uint64_t v;
		if (i + 1 >= argc || parse_u64(argv[i + 1], &v))
			return -1;
		if (!strcmp(argv[i], "--streams") && v >= 1 && v <= UINT32_MAX)
			p->streams = (uint32_t)v;
		else if (!strcmp(argv[i], "--rank") && v <= UINT32_MAX)
			p->rank = (uint32_t)v;
		else if (!strcmp(argv[i], "--seed"))
			p->seed = v;
		else
			return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int generate(const char *path, const struct trex_synth_params *p)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!f) {
		fprintf(stderr, "gen_trace: %s: %s\n", path, strerror(errno));
		return 2;
	}
	/* Large stdio buffer: the generator hands over megabyte chunks anyway. */
	setvbuf(f, NULL, _IOFBF, (size_t)1 << 20);
	struct trex_error err;
	uint64_t events = 0;
	double t0 = now_s();
	enum trex_status st = trex_synth_write(f, p, &events, &err);
	long bytes = ftell(f);
	if ((f != stdout && fclose(f) != 0) && st == TREX_OK)
		st = trex_error_set(&err, TREX_IO, path, -1, "close: %s", strerror(errno));
	double dt = now_s() - t0;
	if (st != TREX_OK) {
		char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];
		trex_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "gen_trace: %s\n", msg);
		return trex_status_exit_code(st);
	}
	fprintf(stderr, "gen_trace: %" PRIu64 " events in %.2f s (%.0f events/s)", events, dt,
	        (double)events / dt);
	/* Pipes and /dev/null have no position to report a size from. */
	if (bytes > 0)
		fprintf(stderr, ", %ld bytes (%.0f MB/s)", bytes, (double)bytes / 1e6 / dt);
	fprintf(stderr, "\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct trex_synth_params p = {.target_events = 0, .streams = 2, .rank = 0, .seed = 1};
	if (argc < 3 || parse_u64(argv[1], &p.target_events) || parse_options(argc, argv, &p))
		return usage();
	return generate(argv[2], &p);
}
