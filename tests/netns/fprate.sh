#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The false-positive rate of APBBF and APBF rules on unique traffic, over
# 10^6 packets each, in the kernel: robust/nolost.sh's last block alone
# (DDF_NOLOST_FP=1), at fpr 1e-3 and window 100,000. It must stay within
# 1.2 times the rule's analytic rate: with action drop, a false positive
# is a real packet lost.
#
# The stock lanes run it: pktgen there makes enough packets a second for
# 10^6 per filter inside a script's budget. The debug kernel (KASAN) is
# 20 to 100 times slower; its lane runs robust/nolost.sh at 10^5 packets
# and says so, and skips this script.
#
#   DDF_MODULES=<directory with nf_ddf.ko> tests/netns/fprate.sh
set -e

here=$(cd "$(dirname "$0")" && pwd)
nolost=$here/robust/nolost.sh # in the VM, /ddf/tests
[[ -e $nolost ]] || nolost=$here/../robust/nolost.sh

lane=
# shellcheck disable=SC1091
[[ ! -e /ddf/lane.conf ]] || lane=$(. /ddf/lane.conf && echo "${DDF_LANE:-}")
if [[ $lane == debug ]]; then
	echo "fprate.sh: skipped in the debug lane: pktgen makes 1,300 to" \
		"6,000 packets/s in the debug kernel under TCG, so the" \
		"2.4 x 10^6 packets (the filters' fill included) would take 7 to" \
		"30 minutes; robust/nolost.sh measures the rate there over 10^5" \
		"packets, and this script over 10^6 in the stock lanes"
	exit 0
fi
DDF_NOLOST_FP=1 exec bash "$nolost"
