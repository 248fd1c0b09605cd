#!/bin/sh
# Checks that a release tarball holds every file git tracks, so that a test
# or data file missing from EXTRA_DIST is found without running the whole
# suite again inside `make distcheck`.
#
#   scripts/check-dist.sh TARBALL
#
# Files that belong to the repository only (.gitignore, m4/.keep) are not
# expected. Prints each missing file and exits 1 when any is missing; exits 0
# with a note when the tree is not a git checkout (nothing to compare with).
set -eu
tarball=${1:?usage: check-dist.sh TARBALL}
top=$(cd "$(dirname "$0")/.." && pwd)
if ! git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "check-dist: $top is not a git checkout; nothing to compare"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -tzf "$tarball" | sed 's|^[^/]*/||' | sort -u >"$work/dist"
git -C "$top" ls-files | grep -v -x -e '.gitignore' -e 'm4/.keep' | sort -u >"$work/git"
missing=$(comm -13 "$work/dist" "$work/git")
if [ -n "$missing" ]; then
	echo "check-dist: $tarball lacks these tracked files (add them to EXTRA_DIST):"
	printf '  %s\n' $missing
	exit 1
fi
echo "check-dist: $tarball holds all $(wc -l <"$work/git") tracked files"
