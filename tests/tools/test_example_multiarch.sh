#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kfunc's example builds with a clang that prints no multiarch, as
# Debian 13's clang 19 does: its Makefile must find <asm/types.h> by
# gcc's or dpkg's multiarch instead. The clang here is wrapped to print
# nothing for -print-multiarch.
# Usage: tests/tools/test_example_multiarch.sh   (make check-tools)
set -e

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/clang" <<'WRAP'
#!/bin/sh
[ "$1" = -print-multiarch ] && exit 0
exec clang "$@"
WRAP
chmod +x "$tmp/clang"

if [ -n "$("$tmp/clang" -print-multiarch)" ]; then
	echo "FAIL: the wrapper prints a multiarch"
	exit 1
fi
if make --no-print-directory -s -C examples/xdp CLANG="$tmp/clang" \
	DDF_INCLUDE="$PWD/uapi" OUT="$tmp" >"$tmp/log" 2>&1 &&
	[ -s "$tmp/ddf_vxlan.bpf.o" ]; then
	echo "PASS: the example builds with a clang that prints no multiarch"
else
	cat "$tmp/log"
	echo "FAIL: the example does not build with a clang that prints no multiarch"
	exit 1
fi
