#include "config.h"

#include "trex/ui/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(trex_config_error_fn err, void *user, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(trex_config_error_fn err, void *user, const char *fmt, ...)
{
	char text[TREX_CONFIG_MSG_MAX];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	err(user, text);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* `#` and six hex digits is a colour (#rrggbb), not a comment. */
static int is_rgb_word(const char *p)
{
	for (int i = 1; i <= 6; i++)
		if (!strchr("0123456789abcdefABCDEF", p[i]) || p[i] == '\0')
			return 0;
	return p[7] == '\0' || is_blank(p[7]);
}

/* Splits line in place. Returns the word count, or -1 when there are too many. */
static int split_words(char *line, char **argv)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (*p == '\0' || (*p == '#' && !is_rgb_word(p)))
			return argc;
		if (argc == TREX_CONFIG_WORDS_MAX)
			return -1;
		argv[argc++] = p;
		while (*p && !is_blank(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int parse_line(const char *path, unsigned lineno, const char *start, size_t n,
                      trex_config_line_fn fn, void *obj, trex_config_error_fn err, void *user)
{
	char line[TREX_CONFIG_LINE_MAX + 1];
	char *argv[TREX_CONFIG_WORDS_MAX];
	char msg[TREX_CONFIG_MSG_MAX / 2];
	int argc;

	if (n > TREX_CONFIG_LINE_MAX) {
		report(err, user, "%s:%u: line longer than %d bytes", path, lineno,
		       TREX_CONFIG_LINE_MAX);
		return 1;
	}
	if (memchr(start, '\0', n)) {
		report(err, user, "%s:%u: NUL byte in line", path, lineno);
		return 1;
	}
	memcpy(line, start, n);
	line[n] = '\0';
	argc = split_words(line, argv);
	if (argc < 0) {
		report(err, user, "%s:%u: more than %d words", path, lineno, TREX_CONFIG_WORDS_MAX);
		return 1;
	}
	if (argc == 0)
		return 0;
	msg[0] = '\0';
	if (fn(obj, argc, argv, msg, sizeof(msg)) == 0)
		return 0;
	report(err, user, "%s:%u: %s", path, lineno, msg[0] ? msg : "invalid line");
	return 1;
}

unsigned trex_config_parse(const char *path, const char *text, size_t len, trex_config_line_fn fn,
                           void *obj, trex_config_error_fn err, void *user)
{
	unsigned errors = 0;
	unsigned lineno = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		lineno++;
		errors += (unsigned)parse_line(path, lineno, text + pos, n, fn, obj, err, user);
		pos += n + (nl != NULL);
	}
	return errors;
}

/* Reads a whole file into a malloc'd buffer; NULL with errno set on failure. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			char *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nbuf;
			cap = ncap;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int saved = errno ? errno : EIO;

		free(buf);
		fclose(f);
		errno = saved;
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

unsigned trex_config_parse_file(const char *path, trex_config_line_fn fn, void *obj,
                                trex_config_error_fn err, void *user)
{
	size_t len = 0;
	char *text = read_all(path, &len);
	unsigned errors;

	if (!text) {
		report(err, user, "%s: cannot read: %s", path, strerror(errno));
		return 1;
	}
	errors = trex_config_parse(path, text, len, fn, obj, err, user);
	free(text);
	return errors;
}

const char *trex_config_user_path(char *buf, size_t size, const char *leaf,
                                  const char *explicit_path, const char *xdg_config_home,
                                  const char *home)
{
	int n;

	if (explicit_path && explicit_path[0])
		n = snprintf(buf, size, "%s", explicit_path);
	else if (xdg_config_home && xdg_config_home[0] == '/')
		n = snprintf(buf, size, "%s/trex/%s", xdg_config_home, leaf);
	else if (home && home[0])
		n = snprintf(buf, size, "%s/.config/trex/%s", home, leaf);
	else
		return NULL;
	if (n < 0 || (size_t)n >= size)
		return NULL;
	return buf;
}
