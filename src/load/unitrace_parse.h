/* The unitrace text reader (private to src/load): the text reports of
 * -d/-h/-s and the kernel properties (unitrace_text.c), and the metric
 * CSVs of -q and -k in both header styles (unitrace_metrics.c), which one
 * output file may hold together (unitrace.md §2-§3). */
#ifndef TREX_LOAD_UNITRACE_PARSE_H
#define TREX_LOAD_UNITRACE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text_lines.h"
#include "trex/core/metrics.h"

/* One comma-separated field, trimmed of blanks, quotes removed. */
struct ut_field {
	const char *p;
	size_t len;
	size_t col; /* 1-based column of its first byte in the line */
};

/* The state of the metric CSV in reading. */
struct ut_csv {
	bool active;      /* a header was read: rows follow */
	bool in_instance; /* an instance is open (no blank line since its rows) */
	uint32_t layout;
	uint32_t ncols;         /* fields per row, the kernel's included */
	int id_col, device_col; /* GlobalInstanceId, Device (older style); -1: none */
	uint32_t *col_pos; /* per field: its position in the layout, UINT32_MAX: not a metric */
	double *row;       /* one row's values, per field */
	size_t cap;
	/* the open instance: its kernel text, id and device */
	char *kernel;
	size_t kernel_len, kernel_cap;
	int64_t id;
	bool has_id;
	char device[64]; /* from "=== Device #N Metrics ===", or the Device column */
	char banner_device[64];
	/* the last header line, so that a repeated one costs a compare */
	char *header;
	size_t header_len, header_cap;
};

struct ut_reader {
	struct trex_metrics *m;
	uint32_t source;
	const char *path;
	int section;        /* enum ut_section (unitrace_text.c) */
	bool expect_header; /* a table title was read: its column titles come next */
	uint32_t report;    /* the open table, TREX_METRICS_NONE: none */
	uint32_t totals;    /* the section's totals report, TREX_METRICS_NONE: none yet */
	char title[128];    /* of the next table */
	uint64_t unread;    /* lines outside every table */
	uint64_t read;      /* instances and report rows read */
	struct ut_field *fields;
	size_t fields_cap;
	struct trex_report_cell *cells;
	size_t cells_cap;
	struct ut_csv csv;
	bool nomem;
};

/* Counts a problem of the line at byte col (1-based; 0: the line). */
void ut_problem(struct ut_reader *r, const struct text_line *line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Room for need fields in r->fields; false when out of memory. */
bool ut_grow_fields(struct ut_reader *r, size_t need);
/* Splits line into fields at commas (blanks around them dropped; a field
 * that starts with a quote runs to the quote that ends it, commas
 * included); returns the count, or SIZE_MAX when out of memory. */
size_t ut_split(struct ut_reader *r, const struct text_line *line);

/* Parses a number (unitrace writes integers, %f and %g) spanning exactly
 * [p, end); false when it is none. "nan" and "-nan" are NAN. */
bool ut_number(const char *p, const char *end, double *out);

/* Blank (spaces, tabs) or empty. */
bool ut_blank(const char *p, size_t len);

/* Does the line start a metric CSV header ("Kernel,GlobalInstanceId",
 * "Kernel, GlobalInstanceId", "Kernel,Device,SubDeviceId")? */
bool ut_metrics_header(const char *p, size_t len);
/* A header line: the columns of the rows that follow. */
void ut_csv_header(struct ut_reader *r, const struct text_line *line);
/* A row of the metric CSV. */
void ut_csv_row(struct ut_reader *r, const struct text_line *line);
/* A blank line (or the section's end): the open instance ends. */
void ut_csv_break(struct ut_reader *r);
/* The CSV ends (a new section). */
void ut_csv_end(struct ut_reader *r);
void ut_csv_free(struct ut_csv *c);

#endif
