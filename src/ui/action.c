#include "config.h"

#include "trex/ui/action.h"

#include <string.h>

struct action_info {
	const char *name;
	const char *help;
	enum trex_action_group group;
};

static const struct action_info actions[TREX_ACTION_COUNT] = {[TREX_ACTION_NONE] = {"none", "", 0},
#define ACTION_ROW(group, id, name, help)                                                          \
	[TREX_ACTION_##id] = {name, help, TREX_ACTION_GROUP_##group},
                                                              TREX_ACTION_INFO(ACTION_ROW)
#undef ACTION_ROW
};

struct group_info {
	const char *name;
	const char *title;
};

static const struct group_info groups[TREX_ACTION_GROUP_COUNT] = {
#define GROUP_ROW(id, name, title) [TREX_ACTION_GROUP_##id] = {name, title},
    TREX_ACTION_GROUP_INFO(GROUP_ROW)
#undef GROUP_ROW
};

int trex_action_by_name(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < TREX_ACTION_COUNT; i++)
		if (strcmp(actions[i].name, name) == 0)
			return i;
	return -1;
}

static int action_valid(enum trex_action action)
{
	return (int)action >= 0 && action < TREX_ACTION_COUNT;
}

const char *trex_action_name(enum trex_action action)
{
	return action_valid(action) ? actions[action].name : NULL;
}

const char *trex_action_help(enum trex_action action)
{
	return action_valid(action) ? actions[action].help : "";
}

enum trex_action_group trex_action_group(enum trex_action action)
{
	return action_valid(action) ? actions[action].group : 0;
}

const char *trex_action_group_name(enum trex_action_group group)
{
	return (int)group >= 0 && group < TREX_ACTION_GROUP_COUNT ? groups[group].name : NULL;
}

const char *trex_action_group_title(enum trex_action_group group)
{
	return (int)group >= 0 && group < TREX_ACTION_GROUP_COUNT ? groups[group].title : NULL;
}
