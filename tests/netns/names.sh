#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rule names are printable ASCII without space (0x21-0x7e), by the
# kernel's policy: every byte but NUL, at the start, middle and end of a
# name, is sent to the kernel in a NEW request as raw bytes (ddfreq names:
# ddfctl refuses such names itself). Each of 0x21-0x7e must make a rule
# (deleted again), each other byte must be refused with EINVAL and the
# kernel's sentence; a GET of such a name (no privilege needed) is refused
# the same way, and ddfctl's own refusal says why before asking.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/names.sh

set -e

exec 3>&1
export LANG=C
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
blocks=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

cleanup() {
	set +e
	exec 2>/dev/null
	loaded && ddfctl rule flush
	loaded && rmmod nf_ddf
	exit
}
trap cleanup EXIT

if loaded; then pp rmmod nf_ddf; fi
pp insmod "$module"

# Test that the kernel takes a name of 0x21-0x7e and refuses every other byte
out=$(ddfreq names) || fail "ddfreq names: $out"
expect_eq "$(tail -n 1 <<<"$out")" "names taken $((94 * 3)) refused $((161 * 3)) wrong 0" \
	"names sent to the kernel"
expect_eq "$(ddfctl save)" "" "rules left"
passed "every byte at every place of a name: 0x21-0x7e taken, the other 161 refused by the kernel with its sentence"

# Test that a GET of a name with a space is refused for its bytes, not looked up
out=$(ddfreq "get:a b") && fail "a GET of 'a b' was answered: $out"
case $out in
*"error 22 "*"printable ASCII without space"*) ;;
*) fail "a GET of 'a b': $out" ;;
esac
passed "a GET of a name with a space is refused for its bytes"

# Test that ddfctl refuses such a name before asking
if out=$(ddfctl rule add 'a b' window 64 2>&1); then
	fail "ddfctl took the name 'a b'"
fi
case $out in
*"not printable ASCII without space"*) ;;
*) fail "ddfctl rule add 'a b': $out" ;;
esac
passed "ddfctl refuses a name with a space itself"

echo "names.sh: $blocks passed, 0 failed"
