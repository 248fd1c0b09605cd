#include "config.h"

#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>

#include <curses.h>

#include "trex/ui/prompt.h"

#define CTRL(c) ((trex_key)((c)&0x1f))
#define FUNC(k) (TREX_KEY_FUNC | (trex_key)(k))

static struct trex_prompt p;

static void setup(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	trex_prompt_init(&p);
}

static void teardown(void)
{
	trex_prompt_free(&p);
}

TestSuite(prompt, .init = setup, .fini = teardown);

static void open_with(const char *initial, enum trex_prompt_history h)
{
	struct trex_prompt_spec spec = {.label = "/", .initial = initial, .history = h};

	trex_prompt_open(&p, NULL, &spec);
}

static enum trex_prompt_result type(const char *s)
{
	enum trex_prompt_result r = TREX_PROMPT_CONTINUE;

	for (; *s; s++)
		r = trex_prompt_key(&p, (trex_key)(unsigned char)*s);
	return r;
}

Test(prompt, typing_inserts_at_the_cursor)
{
	open_with(NULL, TREX_PROMPT_HISTORY_SEARCH);
	cr_assert(p.active);
	cr_assert_eq(type("gemm"), TREX_PROMPT_CHANGED);
	cr_assert_str_eq(p.text, "gemm");
	trex_prompt_key(&p, FUNC(KEY_HOME));
	type("s");
	cr_assert_str_eq(p.text, "sgemm");
	cr_assert_eq(p.cursor, 1);
	trex_prompt_key(&p, CTRL('e'));
	cr_assert_eq(p.cursor, 5);
}

Test(prompt, initial_text_and_cursor_at_its_end)
{
	open_with("kernels.csv", TREX_PROMPT_HISTORY_PATH);
	cr_assert_str_eq(p.text, "kernels.csv");
	cr_assert_eq(p.cursor, strlen("kernels.csv"));
}

Test(prompt, deleting_keys)
{
	open_with("one two three", TREX_PROMPT_HISTORY_OTHER);
	cr_assert_eq(trex_prompt_key(&p, CTRL('w')), TREX_PROMPT_CHANGED);
	cr_assert_str_eq(p.text, "one two ");
	trex_prompt_key(&p, 127); /* DEL from the terminal = backspace */
	cr_assert_str_eq(p.text, "one two");
	trex_prompt_key(&p, FUNC(KEY_BACKSPACE));
	cr_assert_str_eq(p.text, "one tw");
	trex_prompt_key(&p, CTRL('a'));
	trex_prompt_key(&p, CTRL('d'));
	cr_assert_str_eq(p.text, "ne tw");
	trex_prompt_key(&p, FUNC(KEY_RIGHT));
	trex_prompt_key(&p, FUNC(KEY_RIGHT));
	cr_assert_eq(trex_prompt_key(&p, CTRL('k')), TREX_PROMPT_CHANGED);
	cr_assert_str_eq(p.text, "ne");
	cr_assert_eq(trex_prompt_key(&p, CTRL('k')), TREX_PROMPT_CONTINUE);
	cr_assert_eq(trex_prompt_key(&p, CTRL('u')), TREX_PROMPT_CHANGED);
	cr_assert_str_eq(p.text, "");
	cr_assert_eq(trex_prompt_key(&p, FUNC(KEY_BACKSPACE)), TREX_PROMPT_CONTINUE);
}

Test(prompt, utf8_is_edited_by_character)
{
	open_with(NULL, TREX_PROMPT_HISTORY_OTHER);
	trex_prompt_key(&p, 0x00e9); /* é */
	trex_prompt_key(&p, 0x4e2d); /* 中: two cells wide */
	cr_assert_str_eq(p.text, "\xc3\xa9\xe4\xb8\xad");
	cr_assert_eq(trex_prompt_cursor_col(&p), 3);
	trex_prompt_key(&p, FUNC(KEY_LEFT));
	cr_assert_eq(p.cursor, 2);
	cr_assert_eq(trex_prompt_cursor_col(&p), 1);
	trex_prompt_key(&p, FUNC(KEY_BACKSPACE));
	cr_assert_str_eq(p.text, "\xe4\xb8\xad");
	cr_assert_eq(p.cursor, 0);
}

Test(prompt, function_and_control_keys_do_not_insert)
{
	open_with("x", TREX_PROMPT_HISTORY_OTHER);
	cr_assert_eq(trex_prompt_key(&p, FUNC(KEY_F(5))), TREX_PROMPT_CONTINUE);
	cr_assert_eq(trex_prompt_key(&p, CTRL('t')), TREX_PROMPT_CONTINUE);
	cr_assert_eq(trex_prompt_key(&p, TREX_KEY_META | 'x'), TREX_PROMPT_CONTINUE);
	cr_assert_str_eq(p.text, "x");
}

Test(prompt, enter_submits_and_esc_cancels)
{
	open_with("abc", TREX_PROMPT_HISTORY_OTHER);
	cr_assert_eq(trex_prompt_key(&p, '\r'), TREX_PROMPT_SUBMIT);
	cr_assert_not(p.active);
	cr_assert_str_eq(p.text, "abc");
	open_with("abc", TREX_PROMPT_HISTORY_OTHER);
	cr_assert_eq(trex_prompt_key(&p, 27), TREX_PROMPT_CANCEL);
	cr_assert_not(p.active);
	open_with("abc", TREX_PROMPT_HISTORY_OTHER);
	cr_assert_eq(trex_prompt_key(&p, CTRL('g')), TREX_PROMPT_CANCEL);
	/* keys after closing change nothing */
	cr_assert_eq(trex_prompt_key(&p, 'z'), TREX_PROMPT_CONTINUE);
	cr_assert_str_eq(p.text, "abc");
}

Test(prompt, history_is_per_kind_newest_first_without_duplicates)
{
	const char *searches[] = {"gemm", "nccl", "gemm"};

	for (size_t i = 0; i < 3; i++) {
		open_with(NULL, TREX_PROMPT_HISTORY_SEARCH);
		type(searches[i]);
		trex_prompt_key(&p, '\r');
	}
	open_with(NULL, TREX_PROMPT_HISTORY_PATH);
	cr_assert_eq(trex_prompt_key(&p, FUNC(KEY_UP)), TREX_PROMPT_CONTINUE, "no path history");

	open_with(NULL, TREX_PROMPT_HISTORY_SEARCH);
	type("draft");
	cr_assert_eq(trex_prompt_key(&p, FUNC(KEY_UP)), TREX_PROMPT_CHANGED);
	cr_assert_str_eq(p.text, "gemm");
	trex_prompt_key(&p, CTRL('p'));
	cr_assert_str_eq(p.text, "nccl");
	cr_assert_eq(trex_prompt_key(&p, FUNC(KEY_UP)), TREX_PROMPT_CONTINUE, "only two entries");
	trex_prompt_key(&p, FUNC(KEY_DOWN));
	trex_prompt_key(&p, CTRL('n'));
	cr_assert_str_eq(p.text, "draft", "back to the text being typed");
}

Test(prompt, empty_text_is_not_recorded)
{
	open_with(NULL, TREX_PROMPT_HISTORY_TIME);
	trex_prompt_key(&p, '\r');
	open_with(NULL, TREX_PROMPT_HISTORY_TIME);
	cr_assert_eq(trex_prompt_key(&p, FUNC(KEY_UP)), TREX_PROMPT_CONTINUE);
}

Test(prompt, yes_no_answers_with_one_key)
{
	struct trex_prompt_spec spec = {.label = "overwrite? (y/n) ", .yes_no = true};

	trex_prompt_open(&p, NULL, &spec);
	cr_assert_eq(trex_prompt_key(&p, 'x'), TREX_PROMPT_CONTINUE);
	cr_assert(p.active);
	cr_assert_eq(trex_prompt_key(&p, 'Y'), TREX_PROMPT_SUBMIT);
	cr_assert_str_eq(p.text, "y");
	trex_prompt_open(&p, NULL, &spec);
	cr_assert_eq(trex_prompt_key(&p, '\r'), TREX_PROMPT_SUBMIT);
	cr_assert_str_eq(p.text, "n", "Enter means no");
	trex_prompt_open(&p, NULL, &spec);
	cr_assert_eq(trex_prompt_key(&p, 27), TREX_PROMPT_CANCEL);
}

Test(prompt, long_text_is_capped_without_splitting_characters)
{
	char big[TREX_PROMPT_MAX + 10];

	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	open_with(big, TREX_PROMPT_HISTORY_OTHER);
	cr_assert_eq(p.len, TREX_PROMPT_MAX - 1);
	cr_assert_eq(trex_prompt_key(&p, 'b'), TREX_PROMPT_CONTINUE, "full: nothing inserted");
	cr_assert_eq(strlen(p.text), TREX_PROMPT_MAX - 1);
}
