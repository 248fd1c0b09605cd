#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/ui/action.h"

Test(action, names_round_trip)
{
	for (int a = 0; a < TREX_ACTION_COUNT; a++) {
		const char *name = trex_action_name((enum trex_action)a);

		cr_assert_not_null(name);
		cr_assert_eq(trex_action_by_name(name), a, "%s", name);
	}
}

Test(action, names_are_lower_case_words_and_unique)
{
	for (int a = 1; a < TREX_ACTION_COUNT; a++) {
		const char *name = trex_action_name((enum trex_action)a);

		cr_assert(strlen(name) > 0);
		cr_assert_eq(strspn(name, "abcdefghijklmnopqrstuvwxyz-"), strlen(name), "%s", name);
		cr_assert(name[0] != '-' && name[strlen(name) - 1] != '-', "%s", name);
		for (int b = 0; b < a; b++)
			cr_assert_str_neq(name, trex_action_name((enum trex_action)b));
	}
}

Test(action, every_action_has_help_and_a_group)
{
	for (int a = 1; a < TREX_ACTION_COUNT; a++) {
		const char *help = trex_action_help((enum trex_action)a);
		enum trex_action_group g = trex_action_group((enum trex_action)a);

		cr_assert(strlen(help) > 0 && strlen(help) < 60, "%s",
		          trex_action_name((enum trex_action)a));
		cr_assert(help[strlen(help) - 1] != '.', "help is a phrase, no full stop");
		cr_assert_not_null(trex_action_group_name(g));
		cr_assert_not_null(trex_action_group_title(g));
	}
}

Test(action, the_actions_the_issue_names_exist)
{
	static const char *const names[] = {
	    "zoom-in",      "zoom-out",     "pan-left",          "fit-all",    "fit-selection",
	    "goto-time",    "zoom-back",    "select-next-slice", "track-down", "toggle-group",
	    "search",       "next-match",   "prev-match",        "filter",     "clear",
	    "mark-range",   "details",      "follow-link",       "help",       "quit",
	    "redraw",       "open-kernels", "export-table",      "move-down",  "page-down",
	    "half-page-up", "move-first",   "move-last",         "view-close", "sort-invert",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_assert_gt(trex_action_by_name(names[i]), 0, "%s", names[i]);
}

Test(action, none_and_unknown)
{
	cr_assert_eq(trex_action_by_name("none"), TREX_ACTION_NONE);
	cr_assert_str_eq(trex_action_name(TREX_ACTION_NONE), "none");
	cr_assert_eq(trex_action_by_name("Zoom-In"), -1, "names are exact");
	cr_assert_eq(trex_action_by_name("zoom"), -1);
	cr_assert_eq(trex_action_by_name(""), -1);
	cr_assert_eq(trex_action_by_name(NULL), -1);
	cr_assert_null(trex_action_name(TREX_ACTION_COUNT));
	cr_assert_null(trex_action_group_name(TREX_ACTION_GROUP_COUNT));
}

Test(action, enum_follows_the_table)
{
	cr_assert_str_eq(trex_action_name(TREX_ACTION_ZOOM_IN), "zoom-in");
	cr_assert_str_eq(trex_action_name(TREX_ACTION_QUIT), "quit");
	cr_assert_eq(trex_action_group(TREX_ACTION_ZOOM_IN), TREX_ACTION_GROUP_ZOOM);
	cr_assert_eq(trex_action_group(TREX_ACTION_SEARCH), TREX_ACTION_GROUP_SEARCH);
	cr_assert_str_eq(trex_action_group_name(TREX_ACTION_GROUP_MOVE), "move");
}
