#!/bin/sh
# Screen tests of the display modes: NO_COLOR, --color, --ascii and a
# non-UTF-8 locale, --script/--dump-screen, and the options' errors.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

BLOCKS='▏|▎|▍|▌|▋|▊|▉|█|░|▒|▓|▐|▕'

# Colour escapes (SGR 38/48 or 30-37/40-47) in the pane?
has_color() {
	tm capture-pane -t t -p -e | grep -E -q '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m'
}

screen_start 80 24 -- --demo
screen_wait 'trex:' >/dev/null
screen_settle
check_screen "colour by default (xterm-256color)" has_color
check_screen "UTF-8: eighth blocks" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -E -q '$BLOCKS'"
screen_keys q
screen_wait 'EXIT=0' >/dev/null

screen_start 80 24 NO_COLOR=1 -- --demo
screen_wait 'trex:' >/dev/null
screen_settle
check_screen "NO_COLOR: no colours" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p -e | grep -E -q '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m'"
check_screen "NO_COLOR: the cursor is reverse video" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p -e | grep -q '\[7m'"
screen_keys q
check_screen "NO_COLOR: q quits" screen_wait 'EXIT=0'

screen_start 80 24 NO_COLOR=1 -- --demo --color=always
screen_wait 'trex:' >/dev/null
screen_settle
check_screen "--color=always overrides NO_COLOR" has_color
screen_keys q
screen_wait 'EXIT=0' >/dev/null

screen_start 80 24 -- --demo --color=never --ascii
screen_wait 'trex:' >/dev/null
screen_settle
check_screen "--color=never: no colours" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p -e | grep -E -q '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m'"
check_screen "--ascii: no block glyphs" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -E -q '$BLOCKS'"
check_screen "--ascii: no box drawing" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q '│'"
check_screen "--ascii: ASCII separators" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q '|'"
screen_keys q
check_screen "--ascii: q quits" screen_wait 'EXIT=0'

# Fatal signals restore the terminal, then the signal ends trex as usual.
screen_start 80 24 -- --demo
screen_wait ' .. ' >/dev/null
screen_settle
screen_keys C-c
# (the shell abandons the command line when its job dies of SIGINT: no EXIT= line)
prompts() { screen_text | grep -c '^shell-prompt:'; }
waited=0
while [ "$(prompts)" -lt 2 ] && [ "$waited" -lt 50 ]; do sleep 0.1; waited=$((waited + 1)); done
check_screen "Ctrl-C: the terminal is restored, the prompt is back" test "$(prompts)" -ge 2
check_screen "Ctrl-C: the timeline is gone" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'trex: demo'"
screen_start 80 24 -- --demo
screen_wait ' .. ' >/dev/null
screen_settle
shell_pid=$(tm display-message -p -t t '#{pane_pid}')
trex_pid=$(ps -o pid= --ppid "$shell_pid" | tr -d ' ' | head -n 1)
[ -n "$trex_pid" ] && kill -TERM "$trex_pid"
check_screen "SIGTERM: the terminal is restored, exit 143" screen_wait 'EXIT=143'
check_screen "SIGTERM: the prompt is back" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'EXIT=143' && ! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'trex: demo'"

# Without tmux: --dump-screen runs without a terminal.
screen_dump 80 24 "$TEST_TMP/utf8.txt" --demo
check "dump: 24 rows" test "$(wc -l <"$TEST_TMP/utf8.txt")" -eq 24
check "dump: title, tracks and blocks" sh -c "grep -q 'trex: demo trace' '$TEST_TMP/utf8.txt' && grep -q thread '$TEST_TMP/utf8.txt' && grep -E -q '$BLOCKS' '$TEST_TMP/utf8.txt'"
screen_dump 80 24 "$TEST_TMP/again.txt" --demo
check "dump: deterministic" cmp "$TEST_TMP/utf8.txt" "$TEST_TMP/again.txt"
$(screen_env LINES=24 COLUMNS=80 LANG=C LC_ALL=C) "$TREX" -q --demo --force --dump-screen "$TEST_TMP/c.txt" </dev/null >/dev/null 2>&1
check "LANG=C: ASCII only" sh -c "! LC_ALL=C grep -q '[^ -~]' '$TEST_TMP/c.txt' && grep -q 'trex: demo' '$TEST_TMP/c.txt'"
# the demo spans 56214497 ns: two zooms in show 14053624 ns, rounded
# (j x 8: past the GPU streams, onto the main thread's top lane)
screen_dump 80 24 "$TEST_TMP/zoom.txt" --demo --script 'w w j j j j j j j j .'
check "script: zoom and select" sh -c "grep -q '(14.054 ms)' '$TEST_TMP/zoom.txt' && grep -E -q ' start .* dur ' '$TEST_TMP/zoom.txt'"
# (the start after a key that does nothing but clear the opening message)
screen_dump 80 24 "$TEST_TMP/start.txt" --demo --script '<C-l>'
screen_dump 80 24 "$TEST_TMP/back.txt" --demo --script 'w w u u'
check "script: zoom-back twice is the start" sh -c "diff '$TEST_TMP/start.txt' '$TEST_TMP/back.txt' >/dev/null"
screen_dump 100 120 "$TEST_TMP/help.txt" --demo --script '?'
check "script: help lists only working actions" sh -c "grep -q 'Zoom in' '$TEST_TMP/help.txt' && grep -q 'stalls table' '$TEST_TMP/help.txt' && grep -q 'sources table' '$TEST_TMP/help.txt' && ! grep -q 'source line in' '$TEST_TMP/help.txt'"
screen_dump 80 24 "$TEST_TMP/toggle.txt" --demo --script 'g t'
check "script: toggle-group collapses the rank" sh -c "grep -q '▸ rank 0' '$TEST_TMP/toggle.txt' && ! grep -q thread '$TEST_TMP/toggle.txt'"

# Every hand-written trace draws and takes every key; bigint.json has
# saturated times (the axis once looped forever on it).
data_takes_keys 80 24 "draws and takes every key" 'w w w s s s s s s s s 0 j j . . , G g A D a d f f u u t ?'

# Keys files: a user binding replaces the default.
printf 'bind timeline z zoom-in\n' >"$TEST_TMP/my.keys"
screen_dump 80 24 "$TEST_TMP/keys.txt" --demo --keys "$TEST_TMP/my.keys" --script 'z z'
check "--keys: a bound key works" grep -q '(14.054 ms)' "$TEST_TMP/keys.txt"
mkdir -p "$SCREEN_HOME/.config/trex"
printf 'bind timeline z zoom-in\n' >"$SCREEN_HOME/.config/trex/keys"
screen_dump 80 24 "$TEST_TMP/keys2.txt" --demo --script 'z'
check "~/.config/trex/keys is read" grep -q '(28.107 ms)' "$TEST_TMP/keys2.txt"
rm -f "$SCREEN_HOME/.config/trex/keys"

# Errors.
run_trex badkey --demo --script 'w <Nope>' --force --dump-screen "$TEST_TMP/x.txt"
check "--script: unknown key is a usage error" sh -c "[ $(rc_of badkey) -eq 1 ] && grep -q 'Nope' '$TEST_TMP/badkey.err'"
run_trex badtheme --demo --theme no-such-theme --force --dump-screen "$TEST_TMP/x.txt"
check "--theme: unknown name is a usage error" test "$(rc_of badtheme)" -eq 1
run_trex theme --demo --theme "$TREX_SRCDIR/themes/mono.theme" --force --dump-screen "$TEST_TMP/x.txt"
check "--theme FILE works" test "$(rc_of theme)" -eq 0
run_trex badcolor --demo --color=sometimes
check "--color: bad value is a usage error" test "$(rc_of badcolor)" -eq 1
run_trex withcmd info --demo --ascii
check "UI options need no command" test "$(rc_of withcmd)" -eq 1
run_trex reports --demo
check "no terminal: the reports as before" grep -q '^Time span:' "$TEST_TMP/reports.out"
run_trex mousewords --demo --script 'w click:5,30 S-wheel-up:5,30 C-wheel-down:6,40 rclick:0,0' --force --dump-screen "$TEST_TMP/x.txt"
check "--script: mouse words are accepted" test "$(rc_of mousewords)" -eq 0
run_trex badmouse --demo --script 'click:5' --force --dump-screen "$TEST_TMP/x.txt"
check "--script: a mouse word without Y,X is a usage error" sh -c "[ $(rc_of badmouse) -eq 1 ] && grep -q \"'click:5'\" '$TEST_TMP/badmouse.err'"
run_trex nomouse --demo --no-mouse --force --dump-screen "$TEST_TMP/x.txt"
check "--no-mouse is accepted" test "$(rc_of nomouse)" -eq 0
run_trex nomousecmd kernels --demo --no-mouse
check "--no-mouse needs no command" test "$(rc_of nomousecmd)" -eq 1

# What is written to stderr while the interface is up (here: from outside,
# through /proc/PID/fd/2) does not garble the screen and is shown after exit.
screen_start 80 24 -- --demo
screen_wait ' .. ' >/dev/null
# trex is the child of this session's pane shell (other tests may run trex
# at the same time: no pgrep by name)
shell_pid=$(tm display-message -p -t t '#{pane_pid}' 2>/dev/null)
pid=$(pgrep -P "${shell_pid:-0}" 2>/dev/null | head -n 1)
if [ -n "$pid" ] && grep -q trex "/proc/$pid/cmdline" 2>/dev/null && [ -w "/proc/$pid/fd/2" ]; then
	echo "message-written-while-the-ui-was-up" >"/proc/$pid/fd/2"
	screen_settle # no key, no redraw: text sent to the terminal would stay visible
	check_screen "stderr while the UI is up: not on the screen" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q message-written"
	screen_keys q
	screen_wait 'EXIT=0' >/dev/null
	check_screen "stderr while the UI is up: shown after exit" screen_wait 'message-written-while-the-ui-was-up'
else
	skip "stderr while the UI is up" "cannot find trex's stderr in /proc"
	screen_keys q
fi

# trex(1) lists exactly the working keys (trex_check_config man-ui).
if [ -n "${TREX_CHECK_CONFIG:-}" ] && "$TREX_CHECK_CONFIG" man-ui >"$TEST_TMP/man-ui.txt"; then
	awk 'NR == FNR { want = want $0 "\n"; next } { have = have $0 "\n" } END { exit index(have, want) ? 0 : 1 }' \
		"$TEST_TMP/man-ui.txt" "$TREX_SRCDIR/man/trex.1.in"
	if [ $? -eq 0 ]; then ok "trex(1) lists the working keys as generated"; else not_ok "trex(1) lists the working keys as generated (update INTERACTIVE INTERFACE from 'trex_check_config man-ui')"; fi
	for opt in keys theme color ascii no-mouse script dump-screen; do
		pat=$(printf '%s' "--$opt" | sed 's/-/\\-/g')
		if "$TREX" --help | grep -q -- "--$opt" && grep -F -q -- "$pat" "$TREX_SRCDIR/man/trex.1.in"; then
			ok "--help and trex(1) document --$opt"
		else
			not_ok "--help and trex(1) document --$opt ($pat)"
		fi
	done
else
	skip "trex(1) lists the working keys" "trex_check_config not available"
fi

done_testing
