#!/bin/sh
# End-to-end: the keymap and theme files and their man pages. Every shipped
# keymaps/*.keys and themes/*.theme parses without a problem, default.keys
# binds every action, trex-keys(5) and trex-theme(5) are clean for groff,
# list every action and role, and every example block (.EX ... .EE) in them
# parses with the real parsers (through trex_check_config).
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"

check_config=${TREX_CHECK_CONFIG:?run through make check}
[ -x "$check_config" ] || bail_out "$check_config is not built"
man_dir=${TREX_MAN_DIR:-$(dirname "$check_config")/../../man}

# parses KIND FILE...: trex_check_config reports nothing and exits 0.
parses() {
	kind=$1
	shift
	"$check_config" "$kind" "$@" >"$TEST_TMP/parse.out" 2>&1 && [ ! -s "$TEST_TMP/parse.out" ] ||
		{ cat "$TEST_TMP/parse.out"; return 1; }
}

for f in "$TREX_SRCDIR"/keymaps/*.keys; do
	check "${f##*/} parses" parses keys "$f"
done
for f in "$TREX_SRCDIR"/themes/*.theme; do
	check "${f##*/} parses" parses theme "$f"
done
check "default.keys binds every action" parses unbound "$TREX_SRCDIR/keymaps/default.keys"

# A broken file is reported line by line, and the parser goes on.
printf 'bind generic j move-down\nbind generic jj quit\nbind nowhere k quit\n' >"$TEST_TMP/bad.keys"
"$check_config" keys "$TEST_TMP/bad.keys" >"$TEST_TMP/bad.out" 2>&1
printf '%s\n' "$TEST_TMP/bad.keys:2: unknown key 'jj'" "$TEST_TMP/bad.keys:3: unknown keymap 'nowhere'" \
	>"$TEST_TMP/bad.want"
check "a bad keys file gives FILE:LINE: messages" cmp "$TEST_TMP/bad.want" "$TEST_TMP/bad.out"
printf 'color cursor black cyan\ncolor cursor black nocolour\n' >"$TEST_TMP/bad.theme"
"$check_config" theme "$TEST_TMP/bad.theme" >"$TEST_TMP/badt.out" 2>&1
printf '%s\n' "$TEST_TMP/bad.theme:2: unknown colour 'nocolour'" >"$TEST_TMP/badt.want"
check "a bad theme file gives FILE:LINE: messages" cmp "$TEST_TMP/badt.want" "$TEST_TMP/badt.out"

# unroff FILE: troff escapes of the man pages undone.
unroff() {
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(aq/'"'"'/g' -e 's/\\&//g' "$1"
}

for page in keys theme; do
	man=$man_dir/trex-$page.5
	if [ ! -f "$man" ]; then
		not_ok "trex-$page.5 is built"
		continue
	fi
	if ! command -v groff >/dev/null 2>&1; then
		skip "trex-$page.5: groff -man -ww -z" "groff not installed (Debian: groff-base)"
	elif LC_ALL=C.UTF-8 groff -man -ww -z "$man" >"$TEST_TMP/groff.out" 2>&1 &&
		[ ! -s "$TEST_TMP/groff.out" ]; then
		ok "trex-$page.5: groff -man -ww -z: no warnings"
	else
		not_ok "trex-$page.5: groff -man -ww -z: no warnings"
		diag_file "$TEST_TMP/groff.out" 30
	fi

	# every action (role) is listed as a ".B name" paragraph
	if [ "$page" = keys ]; then list=actions; else list=roles; fi
	unroff "$man" | sed -n 's/^\.B //p' >"$TEST_TMP/listed"
	"$check_config" "$list" >"$TEST_TMP/names"
	missing=$(grep -vxF -f "$TEST_TMP/listed" "$TEST_TMP/names" | tr '\n' ' ')
	if [ -z "$missing" ]; then
		ok "trex-$page.5 lists every one of $(wc -l <"$TEST_TMP/names") $list"
	else
		not_ok "trex-$page.5 lists every one of the $list"
		diag "missing: $missing"
	fi

	# example blocks: one file each
	rm -f "$TEST_TMP"/example.*
	unroff "$man" | awk -v dir="$TEST_TMP" '
		/^\.EX/ { n++; ex = 1; next }
		/^\.EE/ { ex = 0; next }
		ex { print > (dir "/example." n) }'
	n=0
	for ex in "$TEST_TMP"/example.*; do
		[ -f "$ex" ] || continue
		n=$((n + 1))
		check "trex-$page.5 example $n parses" parses "$page" "$ex"
	done
	if [ "$n" -gt 0 ]; then
		ok "trex-$page.5 has $n example blocks"
	else
		not_ok "trex-$page.5 has example blocks"
	fi
done

done_testing
