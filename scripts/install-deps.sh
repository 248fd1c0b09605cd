#!/bin/sh
# Installs, on Debian 12 (bookworm), every package trex needs to build, test,
# fuzz and benchmark -- but only those that are missing. Quiet and a no-op
# when everything is present; needs root only when something must be
# installed (otherwise it prints the apt-get command and fails).
#
#   build:  build-essential autoconf automake pkg-config zlib1g-dev
#           libpcre2-dev libncurses-dev libisal-dev (ISA-L: gzip inflate about
#           3x zlib's speed; optional, configure falls back to zlib without it)
#           libprotobuf-c-dev protobuf-c-compiler (Perfetto protobuf traces:
#           protoc-c compiles src/load/proto/*.proto at build time)
#   test:   libcriterion-dev (unit tests), python3 (expected numbers),
#           python3-protobuf (Chakra's own .et reader in the ASTRA-sim kit),
#           groff-base (man page lint), gzip
#   fuzz:   clang libclang-rt-14-dev (libFuzzer + ASan/UBSan runtimes)
#   format: clang-format (14 on Debian 12: scripts/check-format.sh)
#   bench:  tmux (screen tests), time (/usr/bin/time -v for peak memory)
set -eu

PACKAGES="build-essential autoconf automake pkg-config zlib1g-dev libpcre2-dev
libncurses-dev libisal-dev libprotobuf-c-dev protobuf-c-compiler libcriterion-dev python3 python3-protobuf
groff-base clang libclang-rt-14-dev clang-format tmux gzip time"

missing=
for pkg in $PACKAGES; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

missing=${missing# }
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing packages: $missing" >&2
	echo "install-deps.sh: run as root: $cmd" >&2
	exit 1
fi

echo "install-deps.sh: installing: $missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq </dev/null
# shellcheck disable=SC2086 # word splitting of the package list is intended
apt-get install -y -qq --no-install-recommends $missing </dev/null
