#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ddf-vm: sig-enforce
#
# A kernel that takes only signed modules, as under Secure Boot: the line
# above has the QEMU harness (tests/qemu/run.sh) boot this script alone
# with module.sig_enforce=1. The module built here is not signed by a key
# the kernel trusts, so insmod must fail with EKEYREJECTED ("Key was
# rejected by service") and leave no nf_ddf; then ddfctl, asked for a rule,
# must say in one line that the kernel takes only signed modules and how
# to enroll DKMS's key, and fail.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/sigenforce.sh
#   (in a VM booted with module.sig_enforce=1; ddfctl in $PATH)

set -e

exec 3>&1
export LANG=C
: "${DDF_MODULES:=$(cd "$(dirname "$0")/../.." && pwd)}"
blocks=0

# shellcheck source=tests/netns/lib.bash
. "$(dirname "$0")/lib.bash"

enforce=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null) || true
expect_eq "$enforce" Y "module.sig_enforce"
passed "the kernel takes only signed modules"

expect_sig_refused "$DDF_MODULES/nf_ddf.ko"
