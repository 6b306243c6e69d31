#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddf-vm: test-key
#
# Signed modules, both sides, in a kernel that trusts the project's test
# key (tests/qemu/test-key.pem: the debug kernel, which the line above
# keeps this script to). The debug lane signs the modules it builds with
# that key by the kernel's own scripts/sign-file, as DKMS signs with its
# key, and keeps nf_ddf as built in nf_ddf-unsigned.ko. Here enforcement
# is turned on at run time, as module.sig_enforce=1 would at boot (it can
# be turned on, never off: what this VM loads afterwards must be signed,
# and the lane's modules are). Then nf_ddf-unsigned.ko must be refused
# with EKEYREJECTED ("Key was rejected by service"), ddfctl must say what
# to do, and nf_ddf.ko, which names the test key as its signer, must load
# and serve a rule.
#
#   DDF_MODULES=<directory with both> tests/netns/sigkey.sh
#   (as root, in a kernel that trusts the test key; ddfctl in $PATH)

set -e

exec 3>&1
export LANG=C
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
module=$DDF_MODULES/nf_ddf.ko
unsigned=$DDF_MODULES/nf_ddf-unsigned.ko
# the certificate's CN (tests/qemu/test-key.pem)
signer="ddf test key (public, never trust it)"
blocks=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

# Enforcement cannot be undone: first make sure this is the kernel meant.
! loaded || fail "nf_ddf is loaded already"
grep -qF "$signer" /proc/keys 2>/dev/null ||
	fail "this kernel does not trust the test key '$signer' (/proc/keys): it is the debug kernel's (tests/qemu/kernel.sh)"
passed "the kernel trusts the test key"

s=$(modinfo -F signer "$module") || fail "modinfo $module"
h=$(modinfo -F sig_hashalgo "$module")
pretty "" "modinfo nf_ddf.ko: signer '$s', sig_hashalgo '$h'"
expect_eq "$s" "$signer" "nf_ddf.ko's signer"
expect_eq "$h" sha256 "nf_ddf.ko's hash (CONFIG_MODULE_SIG_HASH)"
expect_eq "$(modinfo -F signer "$unsigned")" "" "nf_ddf-unsigned.ko's signer"
passed "nf_ddf.ko is signed with the test key, nf_ddf-unsigned.ko is not"

pp sh -c 'echo 1 >/sys/module/module/parameters/sig_enforce'
expect_eq "$(cat /sys/module/module/parameters/sig_enforce)" Y \
	"module.sig_enforce"
passed "the kernel takes only signed modules now"

expect_sig_refused "$unsigned"

pretty "" "insmod nf_ddf.ko"
out=$(insmod "$module" 2>&1) || fail "insmod of the signed nf_ddf: $out"
loaded || fail "nf_ddf is not loaded"
taint=$(cat /sys/module/nf_ddf/taint)
[[ $taint != *E* ]] || fail "nf_ddf taints the kernel as unsigned: '$taint'"
pp ddfctl rule add r family ip hook prerouting window 1000
out=$(ddfctl show r 2>&1) || fail "ddfctl show r: $out"
pretty "" "ddfctl show r: $out"
pp ddfctl rule del r
pp rmmod nf_ddf
passed "the signed nf_ddf loads under enforcement and serves a rule"
