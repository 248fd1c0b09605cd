/* Hand-built indexes for the unit tests of the analyses: complete slices
 * given by their texts, one builder per file, built as the loader would
 * hand them over. Every call asserts that it worked. */
#ifndef TREX_TESTS_INDEX_FIXTURE_H
#define TREX_TESTS_INDEX_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "trex/core/builder.h"
#include "trex/core/index.h"

struct fixture_slice {
	const char *pid, *tid, *cat, *name;
	int64_t ts, dur;
	uint32_t corr, ext; /* 0: none */
	const char *shape;  /* NULL: none */
};

/* The string id of s in b. */
uint32_t fixture_str(struct trex_builder *b, const char *s);

/* A file record as the Chrome loader fills it, no events counted yet. */
struct trex_build_file fixture_file(const char *path);

/* Adds s to b as a complete slice and counts it in file. */
void fixture_add(struct trex_builder *b, struct trex_build_file *file,
                 const struct fixture_slice *s);

/* The index of nfiles files, parts[i] holding the events of files[i]. */
struct trex_index *fixture_build(struct trex_build_file *files, struct trex_builder **parts,
                                 size_t nfiles);
/* The same, built on up to threads threads. */
struct trex_index *fixture_build_on(struct trex_build_file *files, struct trex_builder **parts,
                                    size_t nfiles, unsigned threads);

/* text[0, len) as one gzip member (malloc'd; *gz_len its size). */
unsigned char *fixture_gzip(const char *text, size_t len, size_t *gz_len);

/* A trace in memory: texts[which[i]] for i < n loaded as one index
 * (named "rank<which[i]>.json"), as trex_load_sources loads files. */
struct fixture_text {
	char *s;
	size_t len;
};
struct trex_index *fixture_load_texts(const struct fixture_text *texts, const size_t *which,
                                      size_t n);

/* A fresh scratch directory made from tmpl ("/tmp/name.XXXXXX", at most
 * 63 bytes) into dir[64], set as TREX_INDEX_DIR so that index files the
 * test writes land there; fixture_cache_dir_remove deletes it. */
void fixture_cache_dir_make(char dir[64], const char *tmpl);
void fixture_cache_dir_remove(const char *dir);

/* The resident kB of this process's mapping that holds p
 * (/proc/self/smaps), -1 when none does. */
long fixture_mapping_rss_kb(const void *p);

struct trex_table;
/* a and b have the same columns (key, type) and cells: texts equal,
 * numbers bit for bit (NaN where the other is NaN). */
void fixture_same_table(const struct trex_table *a, const struct trex_table *b);

#endif
