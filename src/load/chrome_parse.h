/* The Chrome Trace Event Format parser state, shared by the event decoder
 * (chrome_event.c) and the driver (chrome_json.c). Private to src/load. */
#ifndef TREX_LOAD_CHROME_PARSE_H
#define TREX_LOAD_CHROME_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_lits.h"
#include "trex/core/builder.h"
#include "trex/load/chrome_phases.h"
#include "trex/load/loader.h"

/* Dialect evidence collected while parsing. */
enum cj_feature {
	CJ_BARE_ARRAY = 1u << 0,
	CJ_DEVICE_PROPERTIES = 1u << 1,
	CJ_SCHEMA_VERSION = 1u << 2,
	CJ_ATTR = 1u << 3,        /* acelyzer FLEX "attr" instead of "args" */
	CJ_KINETO_CATS = 1u << 4, /* cpu_op, cuda_runtime, kernel, ... */
	CJ_LEGACY_CATS = 1u << 5, /* Operator, Runtime, Kernel (2021) */
	CJ_GPU_OP = 1u << 6,      /* unitrace gpu_op */
	CJ_HIP = 1u << 7,         /* hip* runtime calls (ROCm) */
	CJ_MTIA = 1u << 8,
	CJ_TRACE_EVENTS = 1u << 9, /* the object form had a traceEvents array */
	CJ_BASE_TIME = 1u << 10,
};

enum cj_state { CJ_TOP_START, CJ_TOP_KEY, CJ_TOP_SEP, CJ_ARRAY, CJ_DONE };

enum cj_stop {
	CJ_STOP_AT,    /* reached stop_at between events */
	CJ_END,        /* the whole trace was read (state DONE) */
	CJ_NEED_MORE,  /* input ended inside something: *pp is where to resume */
	CJ_ARRAY_OPEN, /* stop_on_array: the events array just opened */
	CJ_FATAL,      /* not a trace at all: err filled */
};

/* Per-part results, merged in byte order into the file. */
struct cj_stats {
	uint64_t phase_counts[TREX_PH_COUNT];
	uint64_t events;
	struct trex_integrity integrity;
	bool has_problem;
	uint64_t problem_offset;
	char problem[192];
	unsigned features;
	bool has_rank;
	int64_t rank;
	int64_t base_time_ns;
};

struct cj_short_cache { /* last pid/tid/cat texts -> ids, to skip hashing */
	char text[48];
	uint8_t len;
	bool valid;
	uint32_t id;
};

/* Recent categories -> (string id, dialect evidence): Kineto interleaves
 * a handful (cpu_op, cuda_runtime, kernel, ac2g ...), so one entry missed
 * on most events and paid a hash and a table scan each time. */
#define CJ_CAT_CACHE 8
struct cj_cat_cache {
	char text[32];
	uint8_t len;
	bool valid;
	uint8_t kind; /* enum trex_kind, or CJ_KIND_BY_NAME */
	uint32_t id;
	unsigned features;
};
#define CJ_KIND_BY_NAME 0xffu /* the category's events are told apart by name */

/* Recent (pid text, tid text) -> (pid id, track): Kineto interleaves a
 * few CPU threads and GPU streams, so a handful of entries catch nearly
 * every event without hashing. */
#define CJ_TRACK_CACHE 8
struct cj_track_cache {
	char pid[24], tid[24];
	uint8_t pid_len, tid_len;
	bool valid;
	bool strings; /* pid and tid were both strings (a number's text may look the same) */
	bool ids_ok;  /* neither is of the wrong type (integrity bad_ids) */
	uint32_t pid_id, track;
};

/* Recent event names -> string ids, so a name seen before costs one
 * compare against a private copy (windows move) instead of a hash. */
#define CJ_NAME_CACHE 256
#define CJ_NAME_CACHE_MAX 240
struct cj_name_cache {
	uint32_t id;
	uint16_t len; /* 0: empty slot */
	char text[CJ_NAME_CACHE_MAX];
};

/* Recent launch shapes by the raw text of their three args (grid, block,
 * shared memory): shape_id makes the shape's string from those bytes
 * alone, so the same bytes give the same id. */
#define CJ_SHAPE_CACHE 64
#define CJ_SHAPE_TEXT 64
#define CJ_SHAPE_ABSENT 0xFFu
struct cj_shape_cache {
	uint32_t id;
	uint8_t len[3]; /* each arg's length, or CJ_SHAPE_ABSENT */
	bool valid;
	char text[CJ_SHAPE_TEXT]; /* the three, one after the other */
};

struct cj_parser {
	struct trex_builder *b;
	struct trex_load_job *job; /* progress/cancel; may be NULL */
	const char *base;          /* window start */
	uint64_t base_offset;      /* decoded offset of base[0] */
	enum cj_state state;
	bool expect_value; /* in the array: a value (not ',') comes next */
	bool top_ran_out;  /* a top-level value ran to the end of the input */
	bool stop_on_array;
	bool stream; /* windows of a stream (gzip), not a mapping */
	struct cj_stats st;
	struct cj_short_cache pid;
	struct cj_cat_cache cats[CJ_CAT_CACHE];
	unsigned cat_next; /* round-robin victim */
	struct cj_track_cache tracks[CJ_TRACK_CACHE];
	unsigned track_next;         /* round-robin victim */
	uint32_t cat_kind_bits;      /* features of the last category seen */
	struct cj_name_cache *names; /* CJ_NAME_CACHE entries, lazily allocated */
	struct cj_shape_cache shapes[CJ_SHAPE_CACHE];
	char *scratch;
	size_t scratch_cap;
	uint64_t progress_bytes_from; /* decoded offset reported so far */
	/* A mapped part: where its bytes not yet handed back begin
	 * (trex_source_map_done at each progress report); NULL: streams. */
	const char *release_from;
	uint64_t progress_events;
	const char *why;                    /* what was expected at a syntax error */
	const char *limit;                  /* end of the bytes at hand (the window) */
	uint64_t no_event_from;             /* 1 + offset from which no event follows; 0: unknown */
	bool ids_ok;                        /* the last event_track's pid and tid were fine */
	const char *utf8_at;                /* a string of the event repaired as UTF-8 */
	uint8_t examples[TREX_INTEG_COUNT]; /* examples handed to the builder */
	bool cancelled;
	bool oom;
	struct json_lits lits;        /* member literals seen: predict the next event's */
	unsigned lit_event, lit_args; /* their start nodes, or JSON_LIT_NONE: scan all */
};

/* What a problem is about, when it concerns an event: its local track
 * and name ids (TREX_NONE when none) and its ts (file clock, when has_ts). */
struct cj_about {
	uint32_t track, name;
	int64_t ts;
	bool has_ts;
};

void cj_parser_init(struct cj_parser *ps, struct trex_builder *b, struct trex_load_job *job);
void cj_parser_free(struct cj_parser *ps);

/* Parses one event object at p ('{'); on JSON_OK dispatches it to the
 * builder and sets *out after it. On JSON_SYNTAX *out is the bad byte and
 * ps->why says what was expected. */
int cj_parse_event(struct cj_parser *ps, const char *p, const char *end, const char **out);

/* The parser's builder: a parser of the top level makes no events and gets
 * one on its first problem or member; NULL when out of memory or the
 * parser has no job. */
struct trex_builder *cj_builder(struct cj_parser *ps);

/* Keeps the top-level member key: [value, value_end) (key: its text
 * between the quotes) as a file member (trex_builder_file_member), or
 * counts it as bad_values when it is over TREX_FILE_MEMBER_MAX. */
void cj_keep_member(struct cj_parser *ps, const char *key, size_t klen, const char *value,
                    const char *value_end);

/* Records a positioned problem (the first one per part is kept). */
void cj_problem(struct cj_parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Counts one problem of counter k found at `at` (NULL: position unknown)
 * and keeps it as an integrity example (about: the event it concerns, or
 * NULL); damage also becomes the part's first problem. */
void cj_note(struct cj_parser *ps, enum trex_integrity_counter k, const char *at,
             const struct cj_about *about, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A damaged span: [start, next) skipped (counter syntax_errors) or ignored
 * (bytes_ignored, a cut tail), found at bad, where `why` was expected.
 * Counts it, its bytes and the events it held, and keeps it as an example. */
void cj_note_span(struct cj_parser *ps, enum trex_integrity_counter k, const char *start,
                  const char *bad, const char *next, const char *why);

/* Whether the object at p ('{') is a complete event: it parses and has a
 * string "ph". JSON_OK (*out after it), JSON_SYNTAX or JSON_INCOMPLETE.
 * Nothing is recorded. */
int cj_probe_event(struct cj_parser *ps, const char *p, const char *end, const char **out);

static inline uint64_t cj_offset(const struct cj_parser *ps, const char *at)
{
	return ps->base_offset + (uint64_t)(at - ps->base);
}

/* Runs the state machine over [*pp, end). Between events, stops when the
 * next event would start at or after stop_at (NULL: never). final: end is
 * the end of input. */
enum cj_stop cj_run(struct cj_parser *ps, const char **pp, const char *end, const char *stop_at,
                    bool final, struct trex_error *err);

/* Position of the next plausible event start ('{' after "}," with any
 * whitespace) at or after p, or of a ']' closing the array after '}';
 * NULL if none before end. */
const char *cj_find_boundary(const char *p, const char *end);

#endif
