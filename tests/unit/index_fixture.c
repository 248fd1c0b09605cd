#include "config.h"

#include "index_fixture.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trex/analysis/table.h"
#include "trex/load/chrome_phases.h"
#include "trex/load/classify.h"
#include "trex/load/kinds.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

uint32_t fixture_str(struct trex_builder *b, const char *s)
{
	uint32_t id = trex_builder_intern(b, s, strlen(s));

	cr_assert_neq(id, TREX_STR_ERROR);
	return id;
}

struct trex_build_file fixture_file(const char *path)
{
	struct trex_build_file f = {.path = path, .format = "chrome-json", .dialect = "kineto"};

	trex_phase_event_types(&f);
	return f;
}

void fixture_add(struct trex_builder *b, struct trex_build_file *file,
                 const struct fixture_slice *s)
{
	uint32_t track = trex_builder_track(b, fixture_str(b, s->pid), fixture_str(b, s->tid));
	struct trex_ev e = {.ts = s->ts,
	                    .dur = s->dur,
	                    .name = fixture_str(b, s->name),
	                    .cat = fixture_str(b, s->cat),
	                    .launch_link = s->corr,
	                    .op_link = s->ext,
	                    .kind = (uint8_t)trex_kind_of(s->cat, s->name),
	                    .shape = s->shape ? fixture_str(b, s->shape) : 0,
	                    .flags = (uint16_t)((s->corr ? TREX_SLICE_HAS_LAUNCH_LINK : 0) |
	                                        (s->ext ? TREX_SLICE_HAS_OP_LINK : 0))};

	cr_assert_neq(track, TREX_NONE);
	cr_assert_neq(trex_builder_complete(b, track, &e), TREX_HANDLE_NONE);
	file->events++;
	file->event_types[TREX_PH_COMPLETE].events++;
}

struct trex_index *fixture_build(struct trex_build_file *files, struct trex_builder **parts,
                                 size_t nfiles)
{
	return fixture_build_on(files, parts, nfiles, 1);
}

struct trex_index *fixture_build_on(struct trex_build_file *files, struct trex_builder **parts,
                                    size_t nfiles, unsigned threads)
{
	struct trex_build_input in = {.files = files,
	                              .file_count = nfiles,
	                              .parts = parts,
	                              .part_count = nfiles,
	                              .threads = threads,
	                              .classifier = &trex_load_classifier};
	struct trex_index *idx = NULL;
	struct trex_error err;

	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

unsigned char *fixture_gzip(const char *text, size_t len, size_t *gz_len)
{
	uLongf cap = compressBound(len) + 64;
	unsigned char *z = malloc(cap);
	z_stream zs = {0};

	cr_assert_not_null(z);
	cr_assert_eq(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)text; /* zlib reads it only */
	zs.avail_in = (uInt)len;
	zs.next_out = z;
	zs.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*gz_len = zs.total_out;
	deflateEnd(&zs);
	return z;
}

void fixture_same_table(const struct trex_table *a, const struct trex_table *b)
{
	cr_assert_eq(a->ncols, b->ncols);
	cr_assert_eq(a->nrows, b->nrows);
	for (size_t c = 0; c < a->ncols; c++) {
		cr_assert_str_eq(a->cols[c].key, b->cols[c].key);
		cr_assert_eq(a->cols[c].type, b->cols[c].type);
	}
	for (size_t r = 0; r < a->nrows; r++)
		for (size_t c = 0; c < a->ncols; c++) {
			const union trex_cell *x = trex_table_cell(a, r, c),
			                      *y = trex_table_cell(b, r, c);

			if (a->cols[c].type == TREX_COL_TEXT)
				cr_assert_str_eq(x->text, y->text, "row %zu %s", r, a->cols[c].key);
			else if (a->cols[c].type == TREX_COL_COUNT)
				cr_assert_eq(x->count, y->count, "row %zu %s", r, a->cols[c].key);
			else
				cr_assert((isnan(x->number) && isnan(y->number)) ||
				              memcmp(&x->number, &y->number, sizeof(double)) == 0,
				          "row %zu %s: %.17g vs %.17g", r, a->cols[c].key,
				          x->number, y->number);
		}
}

struct trex_index *fixture_load_texts(const struct fixture_text *texts, const size_t *which,
                                      size_t n)
{
	struct trex_source **src = calloc(n ? n : 1, sizeof(*src));
	struct trex_index *idx;
	struct trex_error err;

	cr_assert(src);
	for (size_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "rank%zu.json", which[i]);
		cr_assert(trex_source_open_memory(name, texts[which[i]].s, texts[which[i]].len,
		                                  true, &src[i], &err) == TREX_OK);
	}
	cr_assert(trex_load_sources(src, n, NULL, &idx, &err) == TREX_OK, "%s", err.message);
	free(src);
	return idx;
}

void fixture_cache_dir_make(char dir[64], const char *tmpl)
{
	cr_assert(strlen(tmpl) < 64);
	strcpy(dir, tmpl);
	cr_assert(mkdtemp(dir));
	setenv("TREX_INDEX_DIR", dir, 1);
}

void fixture_cache_dir_remove(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect(system(cmd) == 0);
}

long fixture_mapping_rss_kb(const void *p)
{
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");
	bool in = false;
	long kb = -1;

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}
