#!/bin/sh
# Screen tests under the terminal types users have: xterm-256color,
# screen, tmux-256color, vt100 and linux. For each: the timeline draws,
# keys (letters and arrows) work, the colour depth follows the terminal
# (256 colours, 8 colours, or attributes only), and q quits cleanly.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

pane_e() {
	tm capture-pane -t t -p -e
}

# SGR colour codes in the pane: 256-colour (38;5 / 48;5) and 8/16-colour ones.
has_256() { pane_e | grep -E -q '\[([0-9;]*;)?(38|48);5;[0-9]+'; }
has_8() { pane_e | grep -E -q '\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|10[0-7])(;[0-9;]*)?m'; }
has_reverse() { pane_e | grep -q '\[7m\|;7m\|\[7;'; }
range() { screen_text | grep -o '^ *[0-9.]* [nums]*s \.\. [0-9.]* [nums]*s' | head -n 1; }
per_col() { screen_text | sed -n '2s/^ *\([0-9.]* [nums]*s\)\/col.*/\1/p'; }

for term in xterm-256color screen tmux-256color vt100 linux; do
	if ! infocmp "$term" >/dev/null 2>&1; then
		skip "TERM=$term" "no terminfo entry for $term"
		continue
	fi
	# On TERM=linux ncurses' mouse support loads libgpm, which leaks 10 bytes
	# that LeakSanitizer reports in the suite's ASan run (and GPM serves only
	# the physical console, never an SSH session): keep it out here.
	screen_start 80 24 "TERM=$term" NCURSES_GPM_TERMS= -- --demo
	screen_wait 'trex: demo trace' >/dev/null
	screen_settle
	check_screen "TERM=$term: the timeline draws" screen_wait ' .. '
	case $term in
	*-256color)
		check_screen "TERM=$term: 256 colours" has_256
		;;
	screen | linux)
		if has_8 && ! has_256; then
			ok "TERM=$term: 8-colour codes only"
		else
			not_ok "TERM=$term: 8-colour codes only"
			pane_e | head -5 | cat -v | sed 's/^/#   /'
		fi
		;;
	vt100)
		if ! has_8 && ! has_256; then
			ok "TERM=$term: no colours"
		else
			not_ok "TERM=$term: no colours"
		fi
		check_screen "TERM=$term: the cursor is reverse video" has_reverse
		;;
	esac
	before=$(per_col)
	screen_keys w
	screen_settle
	after=$(per_col)
	if [ -n "$before" ] && [ -n "$after" ] && [ "$before" != "$after" ]; then
		ok "TERM=$term: w zooms in ($before -> $after)"
	else
		not_ok "TERM=$term: w zooms in ($before -> $after)"
	fi
	before=$(range)
	screen_keys Left
	screen_settle
	after=$(range)
	if [ -n "$before" ] && [ "$before" != "$after" ] && ! screen_text | grep -q '\[D\|OD'; then
		ok "TERM=$term: the Left arrow pans ($before -> $after)"
	else
		not_ok "TERM=$term: the Left arrow pans ($before -> $after)"
	fi
	screen_keys q
	check_screen "TERM=$term: q quits with status 0" screen_wait 'EXIT=0'
done

done_testing
