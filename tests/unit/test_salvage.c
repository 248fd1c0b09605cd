/* Salvage of damaged Chrome-JSON traces (issue 10): every case is loaded
 * plain and gzip, on one thread and several, and in stream windows so
 * small that events straddle them; all must give the same index, the
 * same counters and the same integrity examples. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

/* ---- loading in every mode --------------------------------------------------------- */

struct mode {
	bool gzip;
	unsigned threads;
	size_t window; /* gzip stream window, 0: the loader's */
};

static const struct mode modes[] = {
    {false, 1, 0}, {false, 4, 0}, {true, 1, 0},    {true, 2, 0},
    {true, 1, 61}, {true, 2, 97}, {true, 3, 4096},
};
#define NMODES (sizeof modes / sizeof modes[0])

static unsigned char *gzip_of(const char *text, size_t len, size_t *out_len)
{
	uLongf cap = compressBound(len) + 64;
	unsigned char *z = malloc(cap);
	z_stream zs = {0};
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	unsigned char *in = malloc(len + 1);
	memcpy(in, text, len);
	zs.next_in = in;
	zs.avail_in = (uInt)len;
	zs.next_out = z;
	zs.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	free(in);
	return z;
}

static enum trex_status load_bytes(const void *data, size_t len, unsigned threads, size_t window,
                                   bool strict, struct trex_index **idx, struct trex_error *err)
{
	struct trex_source *src;
	cr_assert_eq(trex_source_open_memory("t.json", data, len, true, &src, err), TREX_OK);
	struct trex_load_opts opts = {
	    .threads = threads, .stream_window = window, .strict = strict};
	return trex_load_sources(&src, 1, &opts, idx, err);
}

static struct trex_index *load_mode(const char *text, size_t len, const struct mode *m)
{
	size_t zlen = len;
	unsigned char *z = m->gzip ? gzip_of(text, len, &zlen) : NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;
	enum trex_status s =
	    load_bytes(z ? (const void *)z : text, zlen, m->threads, m->window, false, &idx, &err);
	char msg[1024];
	trex_error_format(&err, msg, sizeof msg);
	cr_assert_eq(s, TREX_OK, "gzip %d -j%u window %zu: %s", m->gzip, m->threads, m->window,
	             msg);
	free(z);
	return idx;
}

/* Everything a load decides, as text: file facts, counters, examples and
 * every slice, instant and flow. */
static char *digest(const struct trex_index *idx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct trex_file *file = trex_index_file(idx, 0);
	fprintf(f, "rank %lld base %lld events %llu truncated %d\n", (long long)file->rank,
	        (long long)file->base_time_ns, (unsigned long long)file->events, file->truncated);
	for (int c = 0; c < TREX_INTEG_COUNT; c++) {
		enum trex_integrity_counter k = (enum trex_integrity_counter)c;
		fprintf(f, "%s %llu\n", trex_integrity_name(k),
		        (unsigned long long)trex_integrity_get(&file->integrity, k));
		for (uint32_t i = 0; i < trex_index_problem_count(idx, 0, k); i++) {
			const struct trex_problem *p = trex_index_problem(idx, 0, k, i);
			fprintf(f, "  %lld %lld:%lld len %llu lost %llu track %u slice %u %s\n",
			        (long long)p->offset, (long long)p->line, (long long)p->col,
			        (unsigned long long)p->length, (unsigned long long)p->events_lost,
			        p->track, p->slice, p->what);
		}
	}
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		fprintf(f, "slice %u %lld %lld %u %s\n", s->track, (long long)s->ts,
		        (long long)s->dur, s->depth, trex_index_str(idx, s->name));
	}
	for (uint32_t i = 0; i < trex_index_instant_count(idx); i++)
		fprintf(f, "instant %lld\n", (long long)trex_index_instant(idx, i)->ts);
	fprintf(f, "flows %u\n", trex_index_flow_count(idx));
	fclose(f);
	return buf;
}

/* Loads text in every mode; all must agree. Returns the plain -j1 index. */
static struct trex_index *load_all_len(const char *text, size_t len)
{
	struct trex_index *first = load_mode(text, len, &modes[0]);
	char *want = digest(first);
	for (size_t m = 1; m < NMODES; m++) {
		struct trex_index *idx = load_mode(text, len, &modes[m]);
		char *got = digest(idx);
		cr_assert_str_eq(got, want, "gzip %d -j%u window %zu differs from plain -j1",
		                 modes[m].gzip, modes[m].threads, modes[m].window);
		free(got);
		trex_index_free(idx);
	}
	free(want);
	return first;
}

static struct trex_index *load_all(const char *text)
{
	return load_all_len(text, strlen(text));
}

static const struct trex_integrity *integ(const struct trex_index *idx)
{
	return &trex_index_file(idx, 0)->integrity;
}

static bool has_slice(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++)
		if (strcmp(trex_index_str(idx, trex_index_slice(idx, i)->name), name) == 0)
			return true;
	return false;
}

#define EV(name, ts)                                                                               \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts   \
	",\"dur\":1}"

/* ---- damage between events ----------------------------------------------------------- */

Test(salvage, stray_bytes_between_events_lose_no_event)
{
	const char t[] = "[" EV("a", 1) ",x" EV("b", 3) ",," EV("c", 5) " " EV("d", 7) ",\"" EV(
	    "e", 9) ",:" EV("f", 11) ",\0" EV("g", 13) "]";
	struct trex_index *idx = load_all_len(t, sizeof t - 1);
	cr_assert_eq(trex_index_slice_count(idx), 7, "every intact event loads");
	cr_assert_eq(integ(idx)->syntax_errors, 6);
	cr_assert_eq(integ(idx)->events_lost, 0);
	cr_assert_eq(integ(idx)->bytes_skipped, 5, "x, ',', '\"', ':' and NUL");
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_syntax_errors, 0);
	cr_assert_eq(p->offset, (int64_t)(strchr(t, 'x') - t));
	cr_assert_eq(p->line, 1);
	cr_assert_eq(p->col, p->offset + 1);
	cr_assert_eq(trex_index_problem_count(idx, 0, TREX_INTEG_syntax_errors), 6);
	trex_index_free(idx);
}

Test(salvage, a_damaged_event_costs_only_itself)
{
	const char *t = "[" EV(
	    "a", 1) ",\n{\"ph\":\"X\",\"name\":\"lost\",\"pid\":1,\"tid\":1,\"ts\":3,"
	            "\"dur\":1,\n" EV("c", 5) ",\n{\"ph\":\"X\",\"name\":\"bad\" \"ts\":7}," EV(
	                "d", 9) "]";
	struct trex_index *idx = load_all(t);
	cr_assert_eq(trex_index_slice_count(idx), 3);
	cr_assert(has_slice(idx, "c") && has_slice(idx, "d"));
	cr_assert_eq(integ(idx)->syntax_errors, 2);
	cr_assert_eq(integ(idx)->events_lost, 2);
	const struct trex_problem *big = trex_index_damage(idx, 0, true);
	const struct trex_problem *first = trex_index_damage(idx, 0, false);
	cr_assert_not_null(big);
	cr_assert_eq(first->line, 2, "a damaged span is where it starts");
	cr_assert_not_null(strstr(first->what, "(at byte"), "and says where it was found");
	cr_assert_eq(big->length, (uint64_t)(strstr(t, EV("c", 5)) -
	                                     strstr(t, "{\"ph\":\"X\",\"name\":\"lost\"")));
	cr_assert_eq(big->events_lost, 1);
	trex_index_free(idx);
}

/* The search for a place to resume probes every '{' after the damage; an
 * event longer than 64 KiB is no such place (probing each to the end of a
 * garbled input made the search quadratic: seconds for 2 MB, found by the
 * fuzzer), the next event is. */
Test(salvage, a_huge_event_after_damage_is_skipped_the_next_is_kept)
{
	size_t big = 70 << 10, n = 0;
	char *t = malloc(big + 512);
	n += (size_t)sprintf(t + n, "[" EV("a", 1) ",x{\"ph\":\"X\",\"name\":\"");
	memset(t + n, 'h', big);
	n += big;
	n += (size_t)sprintf(t + n, "\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}," EV("c", 5) "]");
	struct trex_index *idx = load_all_len(t, n);
	cr_assert_eq(trex_index_slice_count(idx), 2);
	cr_assert(has_slice(idx, "a") && has_slice(idx, "c"));
	cr_assert_eq(integ(idx)->events_lost, 1);
	free(t);
	trex_index_free(idx);
}

/* ---- damage in the top-level object ------------------------------------------------------ */

Test(salvage, keys_after_a_damaged_member_are_read)
{
	const char *t = "{\"traceEvents\":[" EV("a", 1) "," EV(
	    "b", 3) "],\"traceName\" \"x\","
	            "\"distributedInfo\":{\"rank\":3},\"baseTimeNanoseconds\":1000}";
	struct trex_index *idx = load_all(t);
	cr_assert_eq(trex_index_slice_count(idx), 2);
	cr_assert_eq(trex_index_file(idx, 0)->rank, 3);
	cr_assert_eq(trex_index_file(idx, 0)->base_time_ns, 1000);
	cr_assert_eq(trex_index_slice(idx, 0)->ts, 2000);
	const struct trex_problem *p = trex_index_damage(idx, 0, false);
	cr_assert_eq(p->offset, (int64_t)(strstr(t, "\"traceName\"") - t));
	cr_assert_eq(p->length, strlen("\"traceName\" \"x\","));
	cr_assert_not_null(strstr(p->what, "':' after a top-level key"));
	trex_index_free(idx);
}

/* The events array's ']' lost (and the comma after it): the keys that
 * follow are still read. */
Test(salvage, keys_after_an_unclosed_array_are_read)
{
	struct trex_index *idx = load_all(
	    "{\"traceEvents\":[" EV("a", 1) "," EV("b", 3) " \"baseTimeNanoseconds\":1000,"
	                                                   "\"distributedInfo\":{\"rank\":5}}");
	cr_assert_eq(trex_index_slice_count(idx), 2);
	cr_assert_eq(trex_index_file(idx, 0)->rank, 5);
	cr_assert_eq(trex_index_file(idx, 0)->base_time_ns, 1000);
	cr_assert_eq(integ(idx)->syntax_errors, 1);
	trex_index_free(idx);
}

Test(salvage, a_comma_turned_into_a_bracket_loses_nothing)
{
	const char *t = "{\"traceEvents\":[" EV("a", 1) "]" EV("b", 3) "," EV(
	    "c", 5) "],\"distributedInfo\":{\"rank\":2}}";
	struct trex_index *idx = load_all(t);
	cr_assert_eq(trex_index_slice_count(idx), 3);
	cr_assert_eq(trex_index_file(idx, 0)->rank, 2);
	cr_assert_eq(integ(idx)->syntax_errors, 1);
	cr_assert_eq(integ(idx)->events_lost, 0);
	trex_index_free(idx);
}

Test(salvage, damaged_first_bytes_and_brackets)
{
	const char *cases[] = {
	    "x{\"traceEvents\":[" EV("a", 1) "," EV("b", 3) "]}",
	    "?[" EV("a", 1) "," EV("b", 3) "]",
	    " " EV("a", 1) "," EV("b", 3) "]",                     /* the '[' lost */
	    "{\"traceEvents\":" EV("a", 1) "," EV("b", 3) "]}",    /* the '[' lost */
	    "{\"traceEvents\":\"[" EV("a", 1) "," EV("b", 3) "]}", /* '[' turned '"' */
	    "{\"traceEvfnts\":[" EV("a", 1) "," EV("b", 3) "]}",   /* the key damaged */
	    "{\"traceEvents\":[" EV("a", 1) "," EV("b", 3) "]}}",  /* a stray '}' */
	    "{\"schemaVersion\":1,{traceEvents\":[" EV("a", 1) "," EV("b", 3) "]}",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct trex_index *idx = load_all(cases[i]);
		cr_assert_eq(trex_index_slice_count(idx), 2, "case %zu: %s", i, cases[i]);
		cr_assert_eq(integ(idx)->syntax_errors + integ(idx)->bytes_ignored, 1, "case %zu",
		             i);
		cr_assert_not_null(trex_index_damage(idx, 0, false), "case %zu", i);
		trex_index_free(idx);
	}
}

Test(salvage, a_second_trace_after_the_first_is_read)
{
	struct trex_index *idx =
	    load_all("{\"traceEvents\":[" EV("a", 1) "]}{\"traceEvents\":[" EV("b", 3) "]}");
	cr_assert_eq(trex_index_slice_count(idx), 2);
	cr_assert_eq(integ(idx)->syntax_errors, 1);
	trex_index_free(idx);
}

Test(salvage, not_a_trace_stays_an_error)
{
	struct trex_index *idx = NULL;
	struct trex_error err;
	const char junk[] = "hello {not: a trace} [1, 2, 3]";
	cr_assert_eq(load_bytes(junk, sizeof junk - 1, 1, 0, false, &idx, &err), TREX_FORMAT);
	cr_assert_null(idx);
	cr_assert_eq(err.offset, 0);
	cr_assert_eq(err.line, 1);
}

/* ---- values ------------------------------------------------------------------------------ */

Test(salvage, wrong_typed_values_are_counted_never_silent)
{
	const char *t =
	    "[{\"ph\":\"X\",\"name\":\"ts string\",\"pid\":1,\"tid\":1,\"ts\":\"abc\",\"dur\":1},\n"
	    "{\"ph\":\"X\",\"name\":\"ts null\",\"pid\":1,\"tid\":1,\"ts\":null,\"dur\":1},\n"
	    "{\"ph\":\"X\",\"name\":\"quoted\",\"pid\":1,\"tid\":1,\"ts\":\"12.5\",\"dur\":1},\n"
	    "{\"ph\":\"X\",\"name\":\"dur string\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":\"x\"},\n"
	    "{\"ph\":\"X\",\"name\":\"pid null\",\"pid\":null,\"tid\":1,\"ts\":30,\"dur\":1},\n"
	    "{\"ph\":\"X\",\"name\":\"tid 1.5\",\"pid\":1,\"tid\":1.5,\"ts\":40,\"dur\":1},\n"
	    "{\"ph\":5,\"name\":\"ph number\",\"pid\":1,\"tid\":1,\"ts\":50},\n"
	    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"ts\":\"never\","
	    "\"args\":{\"name\":\"main\"}}]";
	struct trex_index *idx = load_all(t);
	const struct trex_integrity *in = integ(idx);
	cr_assert_eq(in->bad_ts, 3, "two dropped, and the metadata's (kept)");
	cr_assert_eq(in->bad_dur, 1);
	cr_assert_eq(in->bad_ids, 2);
	cr_assert_eq(in->unknown_phase, 1);
	cr_assert(has_slice(idx, "quoted"), "a quoted number is a number");
	cr_assert(!has_slice(idx, "ts string") && !has_slice(idx, "ts null"));
	cr_assert(has_slice(idx, "dur string") && has_slice(idx, "pid null") &&
	          has_slice(idx, "tid 1.5"));
	cr_assert(trex_integrity_damaged(in));
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_bad_ts, 0);
	cr_assert_str_eq(p->what, "ts is a string");
	cr_assert_eq(p->line, 1);
	cr_assert_eq(p->offset, (int64_t)(strstr(t, "\"abc\"") - t));
	p = trex_index_problem(idx, 0, TREX_INTEG_bad_dur, 0);
	cr_assert_eq(p->line, 4);
	cr_assert_neq(p->slice, TREX_NONE, "the slice kept with duration 0");
	cr_assert_eq(trex_index_slice(idx, p->slice)->dur, 0);
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, p->slice)->name), "dur string");
	cr_assert_eq(p->ts, 20000);
	p = trex_index_problem(idx, 0, TREX_INTEG_bad_ids, 1);
	cr_assert_not_null(strstr(p->what, "tid 1.5"));
	trex_index_free(idx);
}

/* Found by fuzz_json: the category and pid caches returned a repeated
 * string without decoding it again, so its second invalid UTF-8 was not
 * counted in one parser but was in another (a gzip window, a thread):
 * every string that needs repair counts, however often it repeats. */
Test(salvage, every_repeat_of_invalid_utf8_counts_in_every_mode)
{
	const char *t = "[{\"ph\":\"X\",\"cat\":\"k\xa9\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
	                "\"ts\":1,\"dur\":1},\n"
	                "{\"ph\":\"X\",\"cat\":\"k\xa9\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":"
	                "3,\"dur\":1},\n"
	                "{\"ph\":\"X\",\"cat\":\"c\",\"name\":\"c\",\"pid\":\"p\xa9\",\"tid\":1,"
	                "\"ts\":5,\"dur\":1},\n"
	                "{\"ph\":\"X\",\"cat\":\"c\",\"name\":\"d\",\"pid\":\"p\xa9\",\"tid\":1,"
	                "\"ts\":7,\"dur\":1}]";
	struct trex_index *idx = load_all(t);
	cr_assert_eq(integ(idx)->invalid_utf8, 4,
	             "two categories and two pids, each repaired: %llu",
	             (unsigned long long)integ(idx)->invalid_utf8);
	cr_assert_eq(trex_index_slice_count(idx), 4);
	trex_index_free(idx);
}

Test(salvage, strict_refuses_wrong_values_with_their_position)
{
	const char t[] =
	    "[" EV("a", 1) ",\n{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":\"abc\","
	                   "\"dur\":1}]";
	struct trex_index *idx = NULL;
	struct trex_error err;
	cr_assert_eq(load_bytes(t, sizeof t - 1, 1, 0, true, &idx, &err), TREX_FORMAT);
	cr_assert_null(idx);
	cr_assert_eq(err.line, 2);
	cr_assert_eq(err.offset, (int64_t)(strstr(t, "\"abc\"") - t));
	cr_assert_not_null(strstr(err.message, "ts is a string"));
}

/* 20 events at epoch timestamps (~1.7e15 us) spanning 19 ms, plus extra. */
static char *epoch_trace(const char *extra)
{
	char *s = malloc(8192);
	size_t n = (size_t)sprintf(s, "[");
	for (int i = 0; i < 20; i++)
		n += (size_t)sprintf(s + n,
		                     "{\"ph\":\"X\",\"name\":\"e%d\",\"pid\":1,\"tid\":1,"
		                     "\"ts\":1712867402%06d,\"dur\":5},\n",
		                     i, 1000 * i);
	sprintf(s + n, "%s]", extra);
	return s;
}

Test(salvage, time_outliers_are_dropped_with_their_position)
{
	/* a lost digit: 10x earlier, 48 years before the others */
	char *t = epoch_trace(
	    "{\"ph\":\"X\",\"name\":\"early\",\"pid\":1,\"tid\":1,\"ts\":171286740205000,"
	    "\"dur\":5},\n{\"ph\":\"X\",\"name\":\"long\",\"pid\":1,\"tid\":1,"
	    "\"ts\":1712867402007000,\"dur\":9000000000000}");
	struct trex_index *idx = load_all(t);
	cr_assert_eq(trex_index_slice_count(idx), 20);
	cr_assert(!has_slice(idx, "early") && !has_slice(idx, "long"));
	cr_assert_eq(integ(idx)->ts_out_of_range, 1);
	cr_assert_eq(integ(idx)->dur_out_of_range, 1);
	cr_assert_eq(trex_index_start(idx), 1712867402000000000);
	cr_assert_eq(trex_index_end(idx), 1712867402019005000, "no outlier stretches the span");
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_ts_out_of_range, 0);
	cr_assert_eq(p->offset, (int64_t)(strstr(t, "{\"ph\":\"X\",\"name\":\"early\"") - t));
	cr_assert_eq(p->line, 21);
	cr_assert_not_null(strstr(p->what, "before the file's other events"));
	cr_assert_str_eq(trex_index_str(idx, p->name), "early");
	p = trex_index_problem(idx, 0, TREX_INTEG_dur_out_of_range, 0);
	cr_assert_eq(p->line, 22);
	free(t);
	trex_index_free(idx);
}

Test(salvage, long_but_plausible_times_are_kept)
{
	/* a 13 s slice over a 19 ms trace (real Kineto traces have those) and
	 * an event 300 s before the others */
	char *t = epoch_trace(
	    "{\"ph\":\"X\",\"name\":\"step\",\"pid\":1,\"tid\":1,"
	    "\"ts\":1712867402000000,\"dur\":13000000},\n{\"ph\":\"i\",\"name\":\"start\","
	    "\"pid\":1,\"tid\":1,\"ts\":1712867102000000}");
	struct trex_index *idx = load_all(t);
	cr_assert_eq(trex_index_slice_count(idx), 21);
	cr_assert_eq(trex_index_instant_count(idx), 1);
	cr_assert_not(trex_integrity_damaged(integ(idx)));
	free(t);
	trex_index_free(idx);
}

/* ---- the build's examples ----------------------------------------------------------------- */

Test(salvage, build_examples_name_track_time_and_slice)
{
	const char *t =
	    "[{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":10},"
	    "{\"ph\":\"X\",\"name\":\"crosses\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":10},"
	    "{\"ph\":\"E\",\"name\":\"\",\"pid\":1,\"tid\":2,\"ts\":3},"
	    "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":3,\"ts\":4}]";
	struct trex_index *idx = load_all(t);
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_overlaps, 0);
	cr_assert_not_null(p);
	cr_assert_eq(p->ts, 5000);
	cr_assert_eq(p->offset, -1, "the build knows no byte position");
	cr_assert_str_eq(trex_index_str(idx, p->name), "crosses");
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, p->slice)->name), "crosses");
	cr_assert_eq(trex_index_slice(idx, p->slice)->track, p->track);
	cr_assert_not_null(strstr(p->what, "ends 4000 ns after"), "%s", p->what);
	p = trex_index_problem(idx, 0, TREX_INTEG_unmatched_end, 0);
	cr_assert_eq(p->ts, 3000);
	cr_assert_eq(p->slice, TREX_NONE);
	p = trex_index_problem(idx, 0, TREX_INTEG_unmatched_begin, 0);
	cr_assert_str_eq(trex_index_str(idx, trex_index_slice(idx, p->slice)->name), "open");
	char line[512];
	trex_problem_format(idx, 0, p, line, sizeof line);
	cr_assert_str_eq(line, "t.json: B without an E: runs to the file's last event "
	                       "[track thread 3, ts 4000 ns, \"open\"]");
	cr_assert_not(trex_integrity_damaged(integ(idx)), "structure notes are no damage");
	trex_index_free(idx);
}

Test(salvage, at_most_eight_examples_the_earliest_first)
{
	char t[8192];
	size_t n = (size_t)sprintf(t, "[");
	for (int i = 20; i > 0; i--) /* written latest first */
		n += (size_t)sprintf(t + n,
		                     "%s{\"ph\":\"X\",\"name\":\"z%d\",\"pid\":1,\"tid\":%d,"
		                     "\"ts\":%d,\"dur\":0}",
		                     i < 20 ? "," : "", i, i % 3, i);
	sprintf(t + n, "]");
	struct trex_index *idx = load_all(t);
	cr_assert_eq(integ(idx)->zero_duration, 20);
	cr_assert_eq(trex_index_problem_count(idx, 0, TREX_INTEG_zero_duration), 8);
	for (uint32_t i = 0; i < 8; i++)
		cr_assert_eq(trex_index_problem(idx, 0, TREX_INTEG_zero_duration, i)->ts,
		             (int64_t)(i + 1) * 1000);
	trex_index_free(idx);
}

/* ---- gzip ---------------------------------------------------------------------------------- */

Test(salvage, a_gzip_header_cut_is_no_empty_file)
{
	const char *t = "[" EV("a", 1) "]";
	size_t zlen;
	unsigned char *z = gzip_of(t, strlen(t), &zlen);
	for (size_t cut = 1; cut < 10; cut++) {
		struct trex_index *idx = NULL;
		struct trex_error err;
		cr_assert_eq(load_bytes(z, cut, 1, 0, false, &idx, &err), TREX_FORMAT, "cut %zu",
		             cut);
		cr_assert_not_null(strstr(err.message, "truncated gzip header"), "cut %zu: %s", cut,
		                   err.message);
		cr_assert_eq(err.offset, 0);
	}
	free(z);
}

Test(salvage, a_cut_second_gzip_member_keeps_the_first)
{
	const char *a = "[" EV("a", 1) ",", *b = EV("b", 3) "," EV("c", 5) "]";
	size_t la, lb;
	unsigned char *za = gzip_of(a, strlen(a), &la), *zb = gzip_of(b, strlen(b), &lb);
	unsigned char *both = malloc(la + lb);
	memcpy(both, za, la);
	memcpy(both + la, zb, lb);
	for (size_t cut = 4; cut < lb; cut += 7) {
		for (unsigned threads = 1; threads <= 2; threads++) {
			struct trex_index *idx = NULL;
			struct trex_error err;
			cr_assert_eq(load_bytes(both, la + cut, threads, 0, false, &idx, &err),
			             TREX_OK);
			const struct trex_file *f = trex_index_file(idx, 0);
			cr_assert(f->truncated, "cut %zu", cut);
			cr_assert(has_slice(idx, "a"));
			const struct trex_problem *p = trex_index_damage(idx, 0, false);
			cr_assert_not_null(p);
			cr_assert_not_null(strstr(p->what, "gzip"), "cut %zu: %s", cut, p->what);
			trex_index_free(idx);
		}
	}
	free(za);
	free(zb);
	free(both);
}

/* A gzip stream that breaks early (here in its second member) keeps what
 * decodes and reports the break at its compressed byte; it was refused
 * when the break came before the 64 bytes the loader sniffs. */
Test(salvage, a_gzip_break_keeps_what_decodes)
{
	const char *t = "[" EV("a", 1) "]";
	size_t zlen;
	unsigned char *z = gzip_of(t, strlen(t), &zlen);
	static const unsigned char broken[] = {0x1f, 0x8b, 8,    0,    0,    0,    0,    0,
	                                       0,    3,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	unsigned char *both = malloc(zlen + sizeof broken);
	memcpy(both, z, zlen);
	memcpy(both + zlen, broken, sizeof broken);
	for (unsigned threads = 1; threads <= 2; threads++) {
		struct trex_index *idx = NULL;
		struct trex_error err;
		cr_assert_eq(load_bytes(both, zlen + sizeof broken, threads, 0, false, &idx, &err),
		             TREX_OK, "%s", err.message);
		cr_assert(has_slice(idx, "a"));
		cr_assert(trex_index_file(idx, 0)->truncated);
		const struct trex_problem *p = trex_index_damage(idx, 0, false);
		cr_assert_not_null(strstr(p->what, "corrupt gzip data at compressed byte"), "%s",
		                   p->what);
		cr_assert_eq(p->offset, (int64_t)strlen(t));
		trex_index_free(idx);
	}
	free(both);
	free(z);
}

/* No events before a gzip break: the error says how the data ended (it
 * said "cut" with the file's size, also for corrupt data). */
Test(salvage, no_events_before_a_gzip_break_says_how_it_ended)
{
	const char *t = "{\"traceName\":\"a name\",\"schemaVersion\":1";
	size_t zlen;
	unsigned char *z = gzip_of(t, strlen(t), &zlen);
	static const unsigned char broken[] = {0x1f, 0x8b, 8,    0,    0,    0,    0,    0,
	                                       0,    3,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	unsigned char *both = malloc(zlen + sizeof broken);
	struct trex_index *idx = NULL;
	struct trex_error err;

	memcpy(both, z, zlen);
	memcpy(both + zlen, broken, sizeof broken);
	cr_assert_eq(load_bytes(both, zlen + sizeof broken, 1, 0, false, &idx, &err), TREX_FORMAT);
	cr_assert_not_null(strstr(err.message, "corrupt gzip data at compressed byte"), "%s",
	                   err.message);
	cr_assert_eq(err.offset, (int64_t)strlen(t));
	cr_assert_eq(load_bytes(z, zlen - 10, 2, 0, false, &idx, &err), TREX_FORMAT);
	cr_assert_not_null(strstr(err.message, "cut at compressed byte"), "%s", err.message);
	free(both);
	free(z);
}

Test(salvage, gzip_content_ending_early_is_positioned)
{
	const char *t = "{\"traceName\":\"x\",\n\"schemaVersion\":1}";
	size_t zlen;
	unsigned char *z = gzip_of(t, strlen(t), &zlen);
	struct trex_index *idx = NULL;
	struct trex_error err;
	cr_assert_eq(load_bytes(z, zlen, 1, 0, false, &idx, &err), TREX_FORMAT);
	cr_assert_eq(err.offset, (int64_t)strlen(t));
	cr_assert_eq(err.line, 2);
	cr_assert_geq(err.disk_offset, 0, "gzip errors name the compressed byte too");
	char msg[1024];
	trex_error_format(&err, msg, sizeof msg);
	cr_assert_not_null(strstr(msg, "compressed byte"), "%s", msg);
	free(z);
}

/* ---- the parallel parts -------------------------------------------------------------------- */

/* A trace over 8 MiB (split into parallel parts) with damage every few
 * thousand events: one thread and four must agree on everything. */
Test(salvage, parallel_parts_equal_serial_on_damage, .timeout = 120)
{
	size_t cap = 150000 * 120, n = 0;
	char *s = malloc(cap);
	static const char *const damage[] = {"x", "]", ",,", "\"", "}", " "};
	n += (size_t)sprintf(s + n, "{\"traceEvents\":[\n");
	for (int i = 0; i < 150000; i++) {
		const char *sep = i ? ",\n" : "";
		if (i % 3001 == 7)
			sep = i % 2 ? ",\nx" : ",]\n";
		n += (size_t)sprintf(s + n,
		                     "%s{\"ph\":\"X\",\"name\":\"op %d\",\"pid\":%d,\"tid\":%d,"
		                     "\"ts\":%d.5,\"dur\":1.5%s}",
		                     sep, i, i % 7, i % 3, i * 2,
		                     i % 4999 == 11 ? damage[i % 6] : "");
	}
	n += (size_t)sprintf(s + n, "\n],\"distributedInfo\" {\"rank\":4}}\n");
	cr_assert_gt(n, 8u << 20);
	struct trex_index *one = load_mode(s, n, &modes[0]);
	struct trex_index *four = load_mode(s, n, &modes[1]);
	char *a = digest(one), *b = digest(four);
	cr_assert(strcmp(a, b) == 0, "-j4 differs from -j1"); /* str_eq formats 10 MB */
	cr_assert_gt(trex_index_slice_count(one), 149900);
	cr_assert_gt(integ(one)->syntax_errors, 40);
	free(a);
	free(b);
	free(s);
	trex_index_free(one);
	trex_index_free(four);
}
