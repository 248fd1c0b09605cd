/* Finding the source files of profiles: as recorded, through --source-map
 * prefixes and --source-path directories; files moved or unreadable. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trex/load/source_files.h"

static char tmp[256];

static void write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	char dir[512];

	snprintf(tmp, sizeof(tmp), "%s/trex-src.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/checkout", tmp);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/checkout/src", tmp);
	mkdir(dir, 0755);
	write_file("checkout/src/vadd.cu", "one\r\ntwo\nthree");
	snprintf(dir, sizeof(dir), "%s/adir.cu", tmp);
	mkdir(dir, 0755);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(source_files, .init = setup, .fini = teardown);

static void line_is(struct trex_srcfiles *sf, const char *recorded, int64_t n, const char *want)
{
	size_t len;
	const char *s = trex_srcfiles_line(sf, recorded, n, &len);

	if (!want) {
		cr_assert_null(s, "%s:%lld found", recorded, (long long)n);
		return;
	}
	cr_assert(s, "%s:%lld not found", recorded, (long long)n);
	cr_assert(len == strlen(want) && !memcmp(s, want, len), "%s:%lld is '%.*s'", recorded,
	          (long long)n, (int)len, s);
}

Test(source_files, as_recorded)
{
	char path[512];
	struct trex_srcfiles *sf = trex_srcfiles_new(NULL, 0, NULL, 0);

	snprintf(path, sizeof(path), "%s/checkout/src/vadd.cu", tmp);
	line_is(sf, path, 1, "one");
	line_is(sf, path, 3, "three");
	line_is(sf, path, 4, NULL);
	line_is(sf, path, 0, NULL);
	cr_assert_eq(trex_srcfiles_get(sf, path)->nlines, 3);
	cr_assert_eq(trex_srcfiles_get(sf, path), trex_srcfiles_get(sf, path), "read once");
	trex_srcfiles_free(sf);
}

Test(source_files, moved_files_through_a_prefix_map)
{
	char map[600];
	const char *maps[] = {"/nowhere=/x", map};
	struct trex_srcfiles *sf;

	snprintf(map, sizeof(map), "/build/ci/=%s/checkout", tmp);
	sf = trex_srcfiles_new(NULL, 0, maps, 2);
	line_is(sf, "/build/ci/src/vadd.cu", 2, "two");
	line_is(sf, "/build/cix/src/vadd.cu", 2, NULL); /* a prefix is whole directories */
	cr_assert(strstr(trex_srcfiles_get(sf, "/build/cix/src/vadd.cu")->why, "not found"));
	trex_srcfiles_free(sf);
}

Test(source_files, moved_files_under_a_search_directory)
{
	char dir[512];
	const char *dirs[] = {dir};
	struct trex_srcfiles *sf;
	const struct trex_srcfile *f;

	snprintf(dir, sizeof(dir), "%s/checkout/", tmp);
	sf = trex_srcfiles_new(dirs, 1, NULL, 0);
	line_is(sf, "/home/someone/project/src/vadd.cu", 1, "one"); /* tail src/vadd.cu */
	line_is(sf, "vadd.cu", 1, NULL);                            /* not at the top */
	f = trex_srcfiles_get(sf, "/home/someone/project/src/vadd.cu");
	cr_assert(strstr(f->path, "/checkout/src/vadd.cu"));
	cr_assert_str_eq(f->why, "");
	trex_srcfiles_free(sf);
}

Test(source_files, unreadable_files_say_why)
{
	char path[512];
	struct trex_srcfiles *sf = trex_srcfiles_new(NULL, 0, NULL, 0);
	const struct trex_srcfile *f;

	snprintf(path, sizeof(path), "%s/adir.cu", tmp);
	f = trex_srcfiles_get(sf, path);
	cr_assert_null(f->path);
	cr_assert(strstr(f->why, "Is a directory"), "%s", f->why);
	f = trex_srcfiles_get(sf, "/no/such/file.cu");
	cr_assert_str_eq(f->why, "not found (tried 1 place)");
	trex_srcfiles_free(sf);
}

Test(source_files, map_syntax)
{
	cr_assert(trex_srcfiles_map_valid("/a=/b"));
	cr_assert(!trex_srcfiles_map_valid("/a="));
	cr_assert(!trex_srcfiles_map_valid("=/b"));
	cr_assert(!trex_srcfiles_map_valid("/a"));
}
