#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test VMs. Loads the lane's modules, runs the KUnit suites and
# the integration scripts, and reports on the second serial port (ttyS1;
# $DDF_REPORT_DEV if the lane sets it), one line each, which the host reads:
#
#   ddf-result: boot <release>
#   ddf-ktap-begin ... ddf-ktap-end   the kernel log from the KUnit load on
#   ddf-result: ok|fail <what>
#   ddf-result: done
#
# Everything else (kernel log, test output) goes to the console, ttyS0.
/bin/busybox mkdir -p /proc /sys /dev /run /tmp /bb /var
/bin/busybox --install -s /bb
export PATH=/usr/sbin:/usr/bin:/bb HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# libxdp pins its dispatchers' links here (XDP shared by several programs)
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ln -s /run /var/run
exec </dev/console >/dev/console 2>&1

. /ddf/lane.conf
echo /usr/sbin/modprobe >/proc/sys/kernel/modprobe
# (the arm64 VMs' machine has one serial port: theirs is virtio's console)
report=${DDF_REPORT_DEV:-/dev/ttyS1}
if [ ! -c "$report" ] && [ "$report" = /dev/hvc0 ]; then
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_console 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -c "$report" ] && break
		sleep 0.5
	done
fi
[ -c "$report" ] || report=/dev/null
# (tests/netns/virtio.sh asks the host for frames through it)
export DDF_REPORT=$report

result() {
	echo "ddf-result: $*" >"$report"
	echo "ddf-result: $*"
}

kmsg() {
	echo "ddf: $*" >/dev/kmsg
}

finish() {
	result "done"
	sync
	# QEMU runs with -no-reboot: a reset ends it, with or without ACPI.
	reboot -f
}

hostname ddf-vm
ip link set lo up
result "boot $(uname -r)"

# The modules the lane's scripts use, for both them and a human.
export DDF_MODULES=/ddf/modules
# What nf_ddf.ko needs from a modular kernel (x_tables), so that the
# scripts can insmod it.
for m in $(modinfo -F depends "$DDF_MODULES/nf_ddf.ko" 2>/dev/null | tr , ' '); do
	modprobe "$m" || echo "ddf: modprobe $m failed"
done

if [ "${DDF_SHELL:-0}" = 1 ]; then
	insmod "$DDF_MODULES/nf_ddf.ko"
	echo "ddf: modules in $DDF_MODULES, tests in /ddf/tests;" \
		"nf_ddf is loaded. Leave the shell to power off."
	setsid cttyhack bash -l || setsid cttyhack sh
	finish
fi

if [ -n "${DDF_BENCH:-}" ]; then
	# The bench lane (run.sh bench): tests/bench/vm-bench.sh alone.
	if DDF_REPORT=$report DDF_BENCH=$DDF_BENCH bash /ddf/bench/vm-bench.sh; then
		result "ok bench"
	else
		result "fail bench"
	fi
	finish
fi

if [ "${DDF_LANE:-}" = demo ]; then
	# The demo lane (run.sh demo): tests/demo/demo.sh alone, each of its
	# lines on the console and, as it comes, to the host.
	{
		bash /ddf/demo/demo.sh 2>&1
		echo $? >/tmp/demo.rc
	} | while IFS= read -r l; do
		echo "$l"
		echo "ddf-demo: $l" >"$report"
	done
	if [ "$(cat /tmp/demo.rc)" = 0 ]; then
		result "ok demo"
	else
		result "fail demo"
	fi
	finish
fi

if [ -e /sys/kernel/debug/kmemleak ]; then
	# Forget what boot left behind; the scan at the end sees only ours.
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi

if [ "${DDF_KUNIT:-0}" = 1 ]; then
	kmsg kunit-start
	if insmod "$DDF_MODULES/ddf_core_kunit.ko"; then
		rmmod ddf_core_kunit || result "fail unload ddf_core_kunit"
	else
		result "fail insmod ddf_core_kunit"
	fi
	kmsg kunit-end
	{
		echo ddf-ktap-begin
		dmesg | sed -n '/ddf: kunit-start/,/ddf: kunit-end/p'
		echo ddf-ktap-end
	} >"$report"
fi

# watchdog T: 10 s before a script's time is up, what every CPU runs and
# the tasks that sleep uninterruptibly go to the log, so that a hang says
# where it is before timeout kills the script.
watchdog() {
	w=$(($1 > 20 ? $1 - 10 : $1))
	sleep "$w"
	echo "ddf: a script still runs after $w s: the CPUs' backtraces and the blocked tasks"
	echo l >/proc/sysrq-trigger
	echo w >/proc/sysrq-trigger
}

for t in $DDF_TESTS; do
	kmsg "test $t"
	echo "=== $t"
	limit=${DDF_TEST_TIMEOUT:-300}
	watchdog "$limit" &
	dog=$!
	t0=$(date +%s)
	if DDF_SOAK=${DDF_SOAK:-0} timeout "$limit" bash "/ddf/tests/$t"; then
		result "ok $t ($(($(date +%s) - t0)) s)"
	else
		result "fail $t ($(($(date +%s) - t0)) s)"
	fi
	kill "$dog" 2>/dev/null
done

if [ -e /sys/kernel/debug/kmemleak ]; then
	# An object must stay unreferenced for 5 s (and two scans) to count.
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >/tmp/kmemleak
	if [ -s /tmp/kmemleak ]; then
		cat /tmp/kmemleak
		result "fail kmemleak"
	else
		result "ok kmemleak"
	fi
fi

finish
