/* trex_dump: prints a loaded index one record per line, in a canonical text
 * form that the end-to-end tests compare with what Python computes from the
 * same files (tests/e2e/expected.py).
 *
 *   trex_dump [-j THREADS] FILE...
 *
 * FILE arguments are loaded together (one rank each) through
 * trex_load_paths(), exactly as the CLI loads them. Records, fields
 * separated by one TAB:
 *
 *   file       ID RANK HAS_RANK FORMAT DIALECT GZIP TRUNCATED BASE_NS BYTES_DECODED EVENTS PATH
 *   phase      FILE LETTERS COUNT              (every phase of TREX_PHASE_INFO)
 *   integrity  FILE FIELD COUNT                (every field of TREX_INTEGRITY_INFO)
 *   process    FILE PID SORT_INDEX NAME
 *   track      FILE PID TID KIND MAX_DEPTH NAME
 *   slice      FILE PID TID TS_NS DUR_NS DEPTH FLAGS CAT NAME
 *   instant    FILE PID TID TS_NS SCOPE CAT NAME
 *   sample     FILE PID SERIES TS_NS VALUE
 *   flow       FILE PID TID TS_NS TO_FILE TO_PID TO_TID TO_TS_NS BOUND CAT NAME
 *   total      slices|instants|samples|flows|tracks|processes COUNT
 *
 * FILE is the file id, PID/TID the textual pid/tid (integers in decimal,
 * strings as written), times are int64 ns on the index clock (base time
 * added), FLAGS is the decimal enum trex_slice_flag mask, KIND is the
 * track kind (thread, gpu, counter, async), SCOPE is t, p or g, VALUE is
 * %.17g, BOUND is "F:T" with 1 when that end lies on a slice, else 0.
 * Text fields escape backslash, TAB, LF and CR as \\ \t \n \r and other
 * bytes below 0x20 as \xNN; other bytes are written as they are.
 * Records come in index order: files, processes, tracks, slices (by track,
 * depth, ts), instants, samples, flows, totals.
 *
 * Exit status: 0 loaded, 1 usage, 2 load error (message on stderr). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/load/loader.h"

static void put_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '\\':
			fputs("\\\\", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\x%02x", *p);
			else
				putc(*p, out);
		}
	}
}

static void put_str(FILE *out, const struct trex_index *idx, uint32_t id)
{
	putc('\t', out);
	put_text(out, trex_index_str(idx, id));
}

static const char *track_kind_name(uint8_t kind)
{
	switch (kind) {
	case TREX_TRACK_THREAD:
		return "thread";
	case TREX_TRACK_GPU:
		return "gpu";
	case TREX_TRACK_COUNTER:
		return "counter";
	case TREX_TRACK_ASYNC:
		return "async";
	default:
		return "?";
	}
}

/* "FILE\tPID\tTID" of a track. */
static void put_track_key(FILE *out, const struct trex_index *idx, uint32_t track_id)
{
	const struct trex_track *tr = trex_index_track(idx, track_id);
	const struct trex_process *pr = trex_index_process(idx, tr->process);

	fprintf(out, "\t%" PRIu32, pr->file);
	put_str(out, idx, pr->pid);
	put_str(out, idx, tr->tid);
}

static void dump_files(FILE *out, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_file_count(idx); i++) {
		const struct trex_file *f = trex_index_file(idx, i);

		fprintf(out, "file\t%" PRIu32 "\t%" PRId64 "\t%u", i, f->rank,
		        (unsigned)f->has_rank);
		put_str(out, idx, f->format);
		put_str(out, idx, f->dialect);
		fprintf(out, "\t%u\t%u\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64, (unsigned)f->gzip,
		        (unsigned)f->truncated, f->base_time_ns, f->bytes_decoded, f->events);
		put_str(out, idx, f->path);
		putc('\n', out);
		for (uint32_t ph = 0; ph < f->event_type_count; ph++)
			fprintf(out, "phase\t%" PRIu32 "\t%s\t%" PRIu64 "\n", i,
			        trex_index_str(idx, f->event_types[ph].label),
			        f->event_types[ph].events);
#define DUMP_INTEGRITY(field, label)                                                               \
	fprintf(out, "integrity\t%" PRIu32 "\t%s\t%" PRIu64 "\n", i, #field, f->integrity.field);
		TREX_INTEGRITY_INFO(DUMP_INTEGRITY)
#undef DUMP_INTEGRITY
	}
}

static void dump_tracks(FILE *out, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_process_count(idx); i++) {
		const struct trex_process *p = trex_index_process(idx, i);

		fprintf(out, "process\t%" PRIu32, p->file);
		put_str(out, idx, p->pid);
		fprintf(out, "\t%" PRId64, p->sort_index);
		put_str(out, idx, p->name);
		putc('\n', out);
	}
	for (uint32_t i = 0; i < trex_index_track_count(idx); i++) {
		const struct trex_track *t = trex_index_track(idx, i);

		fputs("track", out);
		put_track_key(out, idx, i);
		fprintf(out, "\t%s\t%u", track_kind_name(t->kind), (unsigned)t->max_depth);
		put_str(out, idx, t->name);
		putc('\n', out);
	}
}

static void dump_slices(FILE *out, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);

		fputs("slice", out);
		put_track_key(out, idx, s->track);
		fprintf(out, "\t%" PRId64 "\t%" PRId64 "\t%u\t%u", s->ts, s->dur,
		        (unsigned)s->depth, (unsigned)s->flags);
		put_str(out, idx, s->cat);
		put_str(out, idx, s->name);
		putc('\n', out);
	}
}

static void dump_instants(FILE *out, const struct trex_index *idx)
{
	static const char scope_letter[] = {'t', 'p', 'g'};

	for (uint32_t i = 0; i < trex_index_instant_count(idx); i++) {
		const struct trex_instant *in = trex_index_instant(idx, i);

		fputs("instant", out);
		put_track_key(out, idx, in->track);
		fprintf(out, "\t%" PRId64 "\t%c", in->ts,
		        in->scope < sizeof(scope_letter) ? scope_letter[in->scope] : '?');
		put_str(out, idx, in->cat);
		put_str(out, idx, in->name);
		putc('\n', out);
	}
}

static void dump_samples(FILE *out, const struct trex_index *idx)
{
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++) {
		const struct trex_track *tr = trex_index_track(idx, t);

		for (uint32_t k = 0; k < tr->sample_count; k++) {
			const struct trex_counter_sample *cs =
			    trex_index_sample(idx, tr->first_sample + k);

			fputs("sample", out);
			put_track_key(out, idx, t);
			fprintf(out, "\t%" PRId64 "\t%.17g\n", cs->ts, cs->value);
		}
	}
}

static void dump_flows(FILE *out, const struct trex_index *idx)
{
	for (uint32_t i = 0; i < trex_index_flow_count(idx); i++) {
		const struct trex_flow *f = trex_index_flow(idx, i);

		fputs("flow", out);
		put_track_key(out, idx, f->from_track);
		fprintf(out, "\t%" PRId64, f->from_ts);
		put_track_key(out, idx, f->to_track);
		fprintf(out, "\t%" PRId64 "\t%d:%d", f->to_ts, f->from_slice != TREX_NONE,
		        f->to_slice != TREX_NONE);
		put_str(out, idx, f->cat);
		put_str(out, idx, f->name);
		putc('\n', out);
	}
}

static void dump_totals(FILE *out, const struct trex_index *idx)
{
	fprintf(out, "total\tslices\t%" PRIu32 "\n", trex_index_slice_count(idx));
	fprintf(out, "total\tinstants\t%" PRIu32 "\n", trex_index_instant_count(idx));
	fprintf(out, "total\tsamples\t%" PRIu32 "\n", trex_index_sample_count(idx));
	fprintf(out, "total\tflows\t%" PRIu32 "\n", trex_index_flow_count(idx));
	fprintf(out, "total\ttracks\t%" PRIu32 "\n", trex_index_track_count(idx));
	fprintf(out, "total\tprocesses\t%" PRIu32 "\n", trex_index_process_count(idx));
}

static int usage(void)
{
	fputs("usage: trex_dump [-j THREADS] FILE...\n", stderr);
	return 1;
}

int main(int argc, char **argv)
{
	struct trex_load_opts opts = {0};
	struct trex_index *idx = NULL;
	struct trex_error err;
	int first = 1;

	if (first < argc && strcmp(argv[first], "-j") == 0) {
		char *end;

		if (first + 1 >= argc)
			return usage();
		opts.threads = (unsigned)strtoul(argv[first + 1], &end, 10);
		if (*end != '\0')
			return usage();
		first += 2;
	}
	if (first >= argc || argv[first][0] == '-')
		return usage();

	trex_error_clear(&err);
	enum trex_status st = trex_load_paths((const char *const *)(argv + first),
	                                      (size_t)(argc - first), &opts, &idx, &err);
	if (st != TREX_OK) {
		char msg[TREX_ERROR_PATH_MAX + TREX_ERROR_MSG_MAX + 64];

		trex_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "trex_dump: %s\n", msg);
		return trex_status_exit_code(st);
	}

	dump_files(stdout, idx);
	dump_tracks(stdout, idx);
	dump_slices(stdout, idx);
	dump_instants(stdout, idx);
	dump_samples(stdout, idx);
	dump_flows(stdout, idx);
	dump_totals(stdout, idx);
	trex_index_free(idx);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("trex_dump: stdout");
		return 2;
	}
	return 0;
}
