#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The QEMU lanes. Each builds the modules against a kernel, boots that kernel
# under TCG with an initramfs (initramfs.sh, init.sh), and reads the results.
#
#   run.sh stock   Debian's kernels ($DDF_STOCK_KERNELS: entries of
#                  kernels.txt, fetched by kroot.sh): the integration
#                  scripts (tests/netns.sh, tests/netns/*.sh)
#   run.sh newest  the same on Debian 13's kernels ($DDF_NEWEST_KERNELS:
#                  its 6.12 and its backports' newest; make check-vm-newest)
#   run.sh sid     the same on unstable's ($DDF_SID_KERNELS; make check-vm-sid)
#   run.sh debug   the debug kernel (kernel.sh): the KUnit suites, the same
#                  scripts (but dedup.sh, replay.sh and xdpfind.sh, see
#                  lane_tests), the robustness suites, then a kmemleak scan
#   run.sh arm64   Debian's arm64 kernels (sysroot.sh) under
#                  qemu-system-aarch64: the stock lane's scripts, with
#                  nf_ddf and the tools cross-built; the KUnit suites in
#                  kernel.sh arm64 (make check-arm64, not in check)
#   run.sh bench   Debian 12's 6.12 ($DDF_BENCH_KERNEL): the kernel-path
#                  benchmark (tests/bench/vm-bench.sh, DDF_BENCH=full|smoke);
#                  its records in $DDF_BUILD/bench/raw-$DDF_BENCH.jsonl
#   run.sh kcsan   the KCSAN kernel (kernel.sh kcsan, 2 vCPUs): rule churn
#                  and traffic from both CPUs ($DDF_KCSAN_TESTS); a data
#                  race report fails it (make check-kcsan, not in check)
#   run.sh demo    Debian 12's 6.12 ($DDF_DEMO_KERNEL): make demo
#                  (tests/demo/demo.sh), its lines shown as they come
#   run.sh shell [debug|stock]
#                  a shell in the VM with nf_ddf loaded (leave it to power off)
#
# In both lanes a kernel report (KASAN, UBSAN, lockdep, WARN, BUG, Oops,
# hung task, kmemleak) fails the run. Console logs: $DDF_BUILD/vm/*.log.
# The last line is "<lane>: N passed, N failed"; the exit status is 1 when
# anything failed.
set -eu
. "$(dirname "$0")/lib.sh"

: "${DDF_VM_TIMEOUT_STOCK:=1500}"
: "${DDF_VM_TIMEOUT_DEBUG:=3600}"
# make soak: the robustness suites (tests/robust/) at their long sizes.
: "${DDF_SOAK:=0}"
: "${DDF_TEST_TIMEOUT:=600}"
: "${DDF_VM_MEM:=1024}"
# The debug VM of the robustness suites: robust/rtnl.sh builds rules of a
# third of its free memory, long enough to probe other requests meanwhile.
: "${DDF_VM_MEM_ROBUST:=3072}"
: "${DDF_VM_SMP_STOCK:=1}"
: "${DDF_VM_SMP_DEBUG:=2}"
: "${DDF_VM_STOCK_JOBS:=2}"
: "${DDF_VM_DEBUG_JOBS:=2}"
: "${DDF_VM_SMP_DEBUG_NETNS:=1}"

# The machine QEMU emulates, the kernel's console there and the report
# port (init.sh; a printf format of its file): x86_64's, but in the arm64
# lane (its machine, virt, has one serial port: the report goes through
# virtio's console, /dev/hvc0).
vm_machine="-accel tcg -cpu max"
vm_console=ttyS0
vm_report="-serial file:%s"

# What fails a run when the console shows it, and what may look like it.
reports='BUG:|KASAN|UBSAN|WARNING:|possible circular locking|inconsistent lock state|kmemleak: .* new suspected memory leaks|Call Trace|Oops|hung_task|blocked for more than|Kernel panic|general protection fault|RCU detected|rcu_.*detected stalls'
benign='KernelAddressSanitizer initialized|kasan: |hung_task_timeout_secs|Booting paravirtualized kernel|ddf-result'

# tests/robust/faults.sh fails allocations on purpose between "ddf:
# faults-begin" and "ddf: faults-end"; the kernel answers some of them with
# a notice and a stack dump by design. There a "Call Trace" right after
# such a notice is no report (any other report line in between still is).
alloc_notices='page allocation failure:|vmalloc error:|percpu: allocation failed'
without_alloc_traces() {
	awk -v notices="$alloc_notices" -v reports="$reports" '
		/ddf: faults-begin/ { f = 1 }
		/ddf: faults-end/ { f = 0 }
		f && $0 ~ notices { n = 1; print; next }
		f && n && /Call Trace/ { n = 0; next }
		$0 ~ reports { n = 0 }
		{ print }' "$1"
}

# DDF_VM_DIR: another directory lets a run go beside one of this tree's
# (make check-vm runs the benchmark's smoke run beside the stock lane)
vm=${DDF_VM_DIR:-$DDF_BUILD/vm}
passed=0
failed=0

# The entries of kernels.txt that $DDF_STOCK_KERNELS names (each word a
# name or a glob of names), in its order, one a line; "missing:WORD" for a
# word that names none.
stock_kernels() {
	all=$("$DDF_QEMU/kroot.sh" names)
	for pat in $DDF_STOCK_KERNELS; do
		found=
		for n in $all; do
			# shellcheck disable=SC2254 # a glob
			case $n in $pat) found="$found $n" ;; esac
		done
		if [ -z "$found" ]; then
			echo "no kernel $pat in tests/qemu/kernels.txt (there: $(echo $all))" >&2
			echo "missing:$pat"
			continue
		fi
		printf '%s\n' $found
	done
}

# kernel_root NAME: the root of the kernel NAME of kernels.txt (kroot.sh
# root, which makes it when it is not cached); sets kroot_dir (the
# modules build in a chroot of it: build_modules; the initramfs takes
# the kernel's modules from it: stage), kr_rel (its release), kr_image
# (its image) and kr_tree (its headers, a path in the root).
kernel_root() {
	kroot_dir=$("$DDF_QEMU/kroot.sh" root "$1") || return 1
	kr_rel=$(sed -n 's/^rel=//p' "$kroot_dir/kernel.conf")
	kr_image=$(sed -n 's/^image=//p' "$kroot_dir/kernel.conf")
	kr_tree=$(sed -n 's/^tree=//p' "$kroot_dir/kernel.conf")
}

# build_modules NAME KERNEL_TREE [MAKE_ARGS]: the .ko files in $vm/NAME/src.
# An M= build writes into the source directory: each kernel gets a copy.
# With $kroot_dir (kernel_root), in a chroot of that root (KERNEL_TREE a
# path there), with its compiler and tools.
build_modules() {
	src=$vm/$1/src
	in_root=
	[ -z "${kroot_dir:-}" ] || in_root="$DDF_QEMU/kroot.sh run $kroot_dir $src"
	t_mod=$(now)
	rm -rf "$src"
	mkdir -p "$src/tests" "$src/scripts"
	for d in Kbuild dkms.conf nf_ddf ddf_core uapi tests/core tests/kunit \
		scripts/module-btf.sh; do
		if [ -e "$DDF_ROOT/$d" ]; then cp -a "$DDF_ROOT/$d" "$src/$d"; fi
	done
	# nf_ddf-nobtf.ko: the module as a build without pahole leaves it,
	# for tests/netns/xdp.sh
	# shellcheck disable=SC2086 # in_root: a command and its arguments
	{ $in_root make -C "$2" M="$src" -j"$DDF_JOBS" -O ${3:-} modules &&
		$in_root "$src/scripts/module-btf.sh" "$2" "$src/nf_ddf.ko" &&
		$in_root ${DDF_OBJCOPY:-objcopy} --remove-section=.BTF \
			"$src/nf_ddf.ko" "$src/nf_ddf-nobtf.ko" &&
		sign_modules "$2" "$src"; } \
		>"$vm/$1/modules.log" 2>&1 || {
		show_tail "$vm/$1/modules.log" 40
		return 1
	}
	[ -z "$in_root" ] ||
		echo "  ($1: the modules built in $(($(now) - t_mod)) s, in a chroot of ${kroot_dir##*/})"
}

# sign_modules TREE DIR: where the kernel of TREE trusts the project's
# test key (the debug kernel: debug.config, kernel.sh), DIR's modules
# signed with it by that tree's scripts/sign-file and CONFIG_MODULE_SIG_HASH,
# as DKMS signs with its own key; nf_ddf as built kept unsigned in
# nf_ddf-unsigned.ko (tests/netns/sigkey.sh). Other trees: nothing.
sign_modules() {
	grep -qx 'CONFIG_SYSTEM_TRUSTED_KEYS="test-key.pem"' "$1/.config" \
		2>/dev/null || return 0
	sig_hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$1/.config")
	cp "$2/nf_ddf.ko" "$2/nf_ddf-unsigned.ko"
	for ko in "$2"/*.ko; do
		[ "$ko" != "$2/nf_ddf-unsigned.ko" ] || continue
		echo "  SIGN    $ko ($sig_hash, tests/qemu/test-key.pem)"
		"$1/scripts/sign-file" "$sig_hash" "$DDF_QEMU/test-key.pem" \
			"$DDF_QEMU/test-key.pem" "$ko" || return 1
	done
}

# wants_virtio TEST...: whether a script asks for the virtio-net port (a
# line "# ddf-vm: virtio-net"), or $DDF_VM_VIRTIO says 1 (always) or 0.
wants_virtio() {
	case ${DDF_VM_VIRTIO:-} in
	1) return 0 ;;
	0) return 1 ;;
	esac
	for t in "$@"; do
		if grep -qx '# ddf-vm: virtio-net' "$DDF_ROOT/tests/netns/$t" \
			2>/dev/null; then
			return 0
		fi
	done
	return 1
}

# sig_enforce_script TEST: whether a script asks for a boot of its own
# with module.sig_enforce=1 (a line "# ddf-vm: sig-enforce"), where
# nf_ddf cannot load: the stock lane runs it alone (stock_vm).
sig_enforce_script() {
	grep -qx '# ddf-vm: sig-enforce' "$DDF_ROOT/tests/netns/${1#netns/}" \
		2>/dev/null
}

# test_key_script TEST: whether a script needs a kernel that trusts the
# project's test key (a line "# ddf-vm: test-key"): the debug lane's only.
test_key_script() {
	grep -qx '# ddf-vm: test-key' "$DDF_ROOT/tests/netns/${1#netns/}" \
		2>/dev/null
}

# The VM's virtio-net port (tests/netns/virtio.sh, the benchmark's virtio
# rows), whose other end is tests/qemu/feed.py. As root, where the host
# has tun: a multi-queue tap ($DDF_VM_VIRTIO_QUEUES queue pairs) in a
# network namespace of its own, made for the VM and deleted after it, in
# which QEMU and feed.py run; feed.py writes the frames into the tap's
# host side by a packet socket, and tun spreads them over the queues by
# their flow hash, as a NIC's RSS would (the guest's virtio_net uses
# min(queue pairs, vCPUs) of them until ethtool -L says otherwise; QEMU's
# own tap backend, not vhost-net: under TCG that would gain nothing).
# Otherwise, or with DDF_VM_VIRTIO_TAP=0, QEMU's stream netdev on a UNIX
# socket, whose stream protocol feed.py speaks: those netdevs take no
# "queues" (QEMU 7.2: only tap and vhost-user do), so that port has one
# queue pair.
: "${DDF_VM_VIRTIO_QUEUES:=4}"
feed_tap=feed0
feed_mac=52:54:00:dd:f0:01

# feed_sweep: the namespaces of runs that were killed before they could
# delete theirs (SIGKILL): ddf-vm-PID-*, with PID gone and nothing inside
feed_sweep() {
	for f in /run/netns/ddf-vm-*; do
		[ -e "$f" ] || continue
		ns=${f##*/}
		pid=${ns#ddf-vm-}
		pid=${pid%%-*}
		if ! kill -0 "$pid" 2>/dev/null &&
			[ -z "$(ip netns pids "$ns" 2>/dev/null)" ]; then
			ip netns del "$ns" 2>/dev/null || true
		fi
	done
}

# feed_tap_setup NS: the namespace NS with the multi-queue tap, up, at an
# MTU that takes jumbo frames (tests/netns/virtio.sh sets 9000 in the
# guest); no IPv6 there, so nothing but feed.py's frames goes into the
# port. On failure, why on stdout.
feed_tap_setup() {
	if [ "${DDF_VM_VIRTIO_TAP:-}" = 0 ]; then
		echo "DDF_VM_VIRTIO_TAP=0"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "not root (a tap needs CAP_NET_ADMIN)"
		return 1
	fi
	if [ ! -c /dev/net/tun ]; then
		echo "no /dev/net/tun"
		return 1
	fi
	feed_sweep
	if ! err=$(ip netns add "$1" 2>&1); then
		echo "ip netns add: $err"
		return 1
	fi
	if ! err=$({ ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
		ip netns exec "$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 &&
		ip -n "$1" tuntap add mode tap multi_queue name "$feed_tap" &&
		ip -n "$1" link set "$feed_tap" mtu 9216 up; } 2>&1); then
		echo "a multi-queue tap: $(echo "$err" | head -n 1)"
		return 1
	fi
}

# feed_cleanup: QEMU and feed.py stopped, the namespace and the socket's
# directory gone; boot's trap too (on a signal, or an error under set -e)
feed_cleanup() {
	[ -z "${qpid:-}" ] || kill "$qpid" 2>/dev/null || true
	if [ -n "${fpid:-}" ]; then
		kill "$fpid" 2>/dev/null || true
		wait "$fpid" 2>/dev/null || true
	fi
	qpid='' fpid=''
	if [ -n "${feed_ns:-}" ]; then
		ip netns del "$feed_ns" 2>/dev/null || true
		feed_ns=
	fi
	if [ -n "${feed_dir:-}" ]; then
		rm -rf "$feed_dir"
		feed_dir=
	fi
}

# boot NAME IMAGE SMP TIMEOUT CMDLINE [interactive]
# With $virtio set (prepare), the VM gets the virtio-net port (above); the
# interactive shell gets the stream port, with nothing at its other end.
boot() {
	name=$1 image=$2 smp=$3 limit=$4 cmdline=$5 mode=${6:-}
	set -- -nodefaults -no-user-config -no-reboot -display none \
		$vm_machine -smp "$smp" -m "$DDF_VM_MEM" -nic none \
		-kernel "$image" -initrd "$vm/$name/initrd.cpio" \
		-append "console=$vm_console panic=-1 log_buf_len=4M printk.devkmsg=on $cmdline" \
		${DDF_VM_QEMU_ARGS:-}
	feed_dir='' feed_ns='' feed_port='' qpid='' fpid=''
	in_ns=
	if [ -n "${virtio:-}" ]; then
		# a short path: a UNIX socket's has at most 107 bytes
		feed_dir=$(mktemp -d "${TMPDIR:-/tmp}/ddf-feed.XXXXXX")
		trap 'feed_cleanup; exit 143' TERM
		trap 'feed_cleanup; exit 130' INT
		trap 'feed_cleanup; exit 129' HUP
		trap feed_cleanup EXIT
		q=$DDF_VM_VIRTIO_QUEUES
		# unique: this run's, and the feed directory's suffix
		feed_ns=ddf-vm-$$-${feed_dir##*.}
		why=
		if [ "$mode" != interactive ] &&
			why=$(feed_tap_setup "$feed_ns"); then
			feed_port="--tap $feed_tap"
			in_ns="ip netns exec $feed_ns"
			set -- "$@" -netdev "tap,id=feed,ifname=$feed_tap,script=no,downscript=no,queues=$q,vhost=off" \
				-device "virtio-net-pci,netdev=feed,mq=on,vectors=$((2 * q + 2)),mac=$feed_mac"
			echo "  virtio-net port: a tap of $q queue pairs in the namespace $feed_ns"
		else
			# the namespace, if feed_tap_setup got that far
			[ ! -e "/run/netns/$feed_ns" ] ||
				ip netns del "$feed_ns" 2>/dev/null || true
			feed_ns=
			feed_port=$feed_dir/sock
			set -- "$@" -netdev "stream,id=feed,server=on,addr.type=unix,addr.path=$feed_dir/sock" \
				-device "virtio-net-pci,netdev=feed,mac=$feed_mac"
			[ "$mode" = interactive ] ||
				echo "  virtio-net port: QEMU's stream netdev, one queue pair (no tap: $why)"
		fi
	fi
	if [ "$mode" = interactive ]; then
		"$DDF_QEMU_BIN" "$@" -serial mon:stdio -serial null
		feed_cleanup
		trap - EXIT INT TERM HUP
		return
	fi
	rm -f "$vm/$lane-$name.log" "$vm/$lane-$name.out" "$vm/$lane-$name.feed"
	# shellcheck disable=SC2046 # the report port's arguments, split
	set -- "$@" -serial "file:$vm/$lane-$name.log" \
		$(printf -- "$vm_report" "$vm/$lane-$name.out")
	echo "$DDF_QEMU_BIN $*" >"$vm/$lane-$name.cmd"
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" $in_ns "$DDF_QEMU_BIN" "$@" &
	qpid=$!
	if [ -n "$feed_dir" ]; then
		# shellcheck disable=SC2086
		$in_ns python3 "$DDF_QEMU/feed.py" $feed_port \
			"$vm/$lane-$name.out" "$DDF_BUILD/ddf_spangen" "$feed_dir" \
			>"$vm/$lane-$name.feed" 2>&1 &
		fpid=$!
	fi
	[ -z "${follow:-}" ] || follow_out "$vm/$lane-$name.out" "$qpid" "$follow"
	qrc=0
	wait "$qpid" || qrc=$?
	qpid=
	if [ -n "$feed_dir" ]; then
		feed_cleanup
		trap - EXIT INT TERM HUP
	fi
	return "$qrc"
}

# follow_out FILE PID PREFIX: print FILE's lines that begin with PREFIX,
# without it, as they come, until PID has ended and its last lines are out.
follow_out() {
	seen=0
	while :; do
		alive=0
		! kill -0 "$2" 2>/dev/null || alive=1
		# whole lines only: a line being written waits for the next turn
		lines=0
		[ ! -e "$1" ] || lines=$(wc -l <"$1")
		if [ "$lines" -gt "$seen" ]; then
			sed -n "$((seen + 1)),${lines}p" "$1" | tr -d '\r' |
				sed -n "s/^$3//p"
			seen=$lines
		fi
		[ "$alive" = 1 ] || return 0
		sleep 0.5
	done
}

# lane_tests: the scripts the lane runs when $DDF_VM_TESTS names none.
lane_tests() {
	for f in "$DDF_ROOT"/tests/netns.sh "$DDF_ROOT"/tests/netns/*.sh; do
		[ -e "$f" ] || continue
		# Time: what these two check in the stock lanes, the debug
		# lane's own suites cover under its detectors (replay
		# parity: robust/malformed.sh over tcpdump's captures;
		# deletion and unload under traffic, time windows:
		# robust/churn.sh; the key on real skbs: KUnit). make
		# soak runs them too.
		if [ "$lane" = debug ] && [ "$DDF_SOAK" != 1 ]; then
			case ${f##*/} in dedup.sh | replay.sh) continue ;; esac
		fi
		# xdpfind.sh only asks ddfctl, libxdp and the verifier, no
		# frame goes through a program: as xdpshare.sh's blocks of
		# that kind, it is the stock lanes' (76 s under KASAN)
		if [ "$lane" = debug ] && [ "${f##*/}" = xdpfind.sh ]; then
			continue
		fi
		if sig_enforce_script "${f##*/}"; then continue; fi
		if [ "$lane" != debug ] && test_key_script "${f##*/}"; then
			continue
		fi
		echo "${f##*/}"
	done
	# The robustness suites need the debug kernel's detectors.
	if [ "$lane" = debug ]; then
		for f in "$DDF_ROOT"/tests/robust/*.sh; do
			if [ -e "$f" ]; then echo "robust/${f##*/}"; fi
		done
	fi
}

# prepare NAME IMAGE TREE RELEASE|- KUNIT(0|1) SHELL(0|1)
prepare() {
	name=$1 rel=$4
	mkdir -p "$vm/$name"
	build_modules "$name" "$3" "${DDF_MODULE_MAKE_ARGS:-}" || return 1
	stage "$name" "$rel" "$5" "$6" "$name" \
		"${DDF_VM_TESTS:-$(lane_tests | paste -s -d ' ')}"
}

# stage NAME RELEASE|- KUNIT(0|1) SHELL(0|1) SRC TESTS: the initramfs of
# the VM NAME ($vm/NAME/initrd.cpio), with the modules built in $vm/SRC
# (two VMs of a lane may share one build); sets $virtio for boot.
stage() {
	name=$1 rel=$2
	mkdir -p "$vm/$name"
	tests=$6
	case $lane in bench | demo) tests= ;; esac
	# tests/netns/NAME.sh may be given as netns/NAME.sh (the VM has the
	# scripts of tests/netns/ in /ddf/tests/ itself)
	t=
	for f in $tests; do t="$t ${f#netns/}"; done
	tests=${t# }
	virtio=
	# shellcheck disable=SC2086
	if wants_virtio $tests; then virtio=1; fi
	# the benchmark's virtio-net rows (full runs; tests/bench/vm-bench.sh)
	if [ "$lane" = bench ] && [ "${DDF_BENCH:-}" = full ] &&
		[ "${DDF_VM_VIRTIO:-}" != 0 ]; then
		virtio=1
	fi
	cat >"$vm/$name/lane.conf" <<-EOC
		DDF_LANE=$lane
		DDF_BENCH=${DDF_BENCH:-}
		$(env | sed -n "s/^\(DDF_BENCH_[A-Z_]*\)=\(.*\)/\1='\2'/p")
		$(env | sed -n "s/^\(DDF_FUZZ_[A-Z_]*\)=\(.*\)/export \1='\2'/p")
		$(env | sed -n "s/^\(DDF_RTNL_[A-Z_]*\)=\(.*\)/export \1='\2'/p")
		DDF_KUNIT=$3
		DDF_SHELL=$4
		DDF_TESTS="$tests"
		DDF_SOAK=$DDF_SOAK
		DDF_TEST_TIMEOUT=$DDF_TEST_TIMEOUT
		DDF_REPORT_DEV=${vm_report_dev:-}
	EOC
	DDF_MODULES_ROOT=${kroot_dir:+$kroot_dir/root} \
		"$DDF_QEMU/initramfs.sh" kernel "$vm/$name/kernel.cpio" "$rel" \
		"$vm/$5/src" "$vm/$name/lane.conf" || return 1
	cat "$vm/base.cpio" "$vm/$name/kernel.cpio" >"$vm/$name/initrd.cpio"
}

# The kernel's own style checker, from the debug tree, over every file
# that builds into the kernel (the core, the module, the KUnit glue, uapi):
# checkpatch_start CHECKPATCH_PL starts it in the background (one CPU for
# a while: it runs beside the module build and the VMs), checkpatch judges.
checkpatch_start() {
	cp_out=$vm/checkpatch.txt
	(cd "$DDF_ROOT" && "$1" --no-tree -q -f \
		$(ls ddf_core/*.[ch] ddf_core/env/kernel/*.h nf_ddf/*.[ch] \
			tests/kunit/*.c uapi/linux/*.h \
			uapi/linux/netfilter/*.h 2>/dev/null)) >"$cp_out" 2>&1 &
	cp_pid=$!
}

checkpatch() {
	local st=0

	wait "$cp_pid" || st=$?
	if grep -qE '^(WARNING|ERROR)' "$cp_out"; then
		flunk "checkpatch: $(grep -cE '^(WARNING|ERROR)' "$cp_out") findings ($cp_out):"
		grep -A2 -E '^(WARNING|ERROR)' "$cp_out" | head -n 20 | sed 's/^/       /'
	elif [ "$st" != 0 ]; then
		# killed, or a perl error: not a verdict on the sources
		flunk "checkpatch: ended with status $st and no finding ($cp_out):"
		tail -n 5 "$cp_out" | sed 's/^/       /'
	else
		pass "checkpatch: the kernel-side sources are clean"
	fi
}

# check NAME IMAGE TREE RELEASE|- SMP TIMEOUT CMDLINE KUNIT_TOOL|-: build
# the modules against TREE, boot IMAGE with them and judge it (run_vm).
check() {
	name=$1 rel=$4
	f0=$failed
	echo "$lane: $name"
	with_kunit=1
	[ "$8" != - ] || with_kunit=0
	if ! prepare "$name" "$2" "$3" "$rel" "$with_kunit" 0; then
		flunk "$name: build the modules and the initramfs (log: $vm/$name/modules.log)"
		return
	fi
	build_warnings "$name"
	run_vm "$name" "$2" "$5" "$6" "$7" "$8" "$f0"
}

# build_warnings NAME: compiler and, where C=1 is given, sparse warnings
# about our sources in $vm/NAME/modules.log.
build_warnings() {
	grep -E '(warning|error):' "$vm/$1/modules.log" >"$vm/$1/warnings" || true
	if [ -s "$vm/$1/warnings" ]; then
		flunk "$1: the modules build with $(wc -l <"$vm/$1/warnings") warnings:"
		head -n 20 "$vm/$1/warnings" | sed 's/^/       /'
	else
		pass "$1: the modules build without warnings${DDF_MODULE_MAKE_ARGS:+ ($DDF_MODULE_MAKE_ARGS)}"
	fi
}

# run_vm NAME IMAGE SMP TIMEOUT CMDLINE KUNIT_TOOL|- [FAILED_BEFORE]: boot
# the VM NAME (staged: prepare or stage) and judge what it reports: power
# off in time, KUnit (parsed when KUNIT_TOOL is given), each script, the
# kernel log. On a failure since FAILED_BEFORE, the console's tail.
run_vm() {
	name=$1 image=$2 smp=$3 limit=$4 cmdline=$5 kunit=$6 f0=${7:-$failed}
	log=$vm/$lane-$name.log
	out=$vm/$lane-$name.out
	t0=$(now)
	rc=0
	boot "$name" "$image" "$smp" "$limit" "$cmdline" || rc=$?
	t1=$(now)
	touch "$log" "$out"
	tr -d '\r' <"$out" >"$out.txt"

	if grep -q '^ddf-result: done' "$out.txt"; then
		pass "$name: boot, tests and power off in $((t1 - t0)) s"
	elif [ $rc = 124 ]; then
		flunk "$name: the VM did not finish within $limit s (it was running $(sed -n 's/^=== //p' "$log" | tr -d '\r' | tail -n 1))"
	else
		flunk "$name: the VM stopped early (panic?) after $((t1 - t0)) s"
	fi

	if [ "$kunit" != - ]; then
		sed -n '/^ddf-ktap-begin/,/^ddf-ktap-end/p' "$out.txt" |
			sed '1d;$d' >"$vm/$lane-$name.ktap"
		krc=0
		python3 "$kunit" parse <"$vm/$lane-$name.ktap" \
			>"$vm/$lane-$name.kunit" 2>&1 || krc=$?
		sum=$(sed -n 's/.*Testing complete\. Ran \([0-9]*\) tests: *//p' \
			"$vm/$lane-$name.kunit" | tail -n 1)
		num() {
			echo "$sum" | tr ',' '\n' | sed -n "s/^ *$1: *\([0-9]*\)$/\1/p" |
				grep . || echo 0
		}
		kp=$(num passed)
		kf=$(($(num failed) + $(num crashed) + $(num errors)))
		ks=$(num skipped)
		if [ "$krc" = 0 ] && [ "$kf" = 0 ] && [ "$kp" -gt 0 ]; then
			pass "$name: KUnit: $kp cases passed, $ks skipped" "$kp"
		else
			# The failed expectations, and what failed or crashed.
			sed 's/^\[[0-9:]*\] //' "$vm/$lane-$name.kunit" | awk '
				/(EXPECTATION|ASSERTION) FAILED/ { p = 1 }
				p || /\[(FAILED|CRASHED)\]|ERROR|[Cc]rash/ { print }
				/\[(FAILED|CRASHED)\]/ { p = 0 }' |
				head -n 40 | sed 's/^/       /'
			[ "$kf" -gt 0 ] || kf=1
			[ "$kp" = 0 ] || pass "$name: KUnit: $kp cases passed" "$kp"
			flunk "$name: KUnit: $kf failed (kunit.py exit $krc; $vm/$lane-$name.kunit)" "$kf"
		fi
	fi

	grep -a '^ddf-result: \(ok\|fail\) ' "$out.txt" | while read -r _ st what; do
		echo "$st $what"
	done >"$out.res"
	while read -r st what; do
		if [ "$st" = ok ]; then
			pass "$name: $what"
		else
			flunk "$name: $what"
		fi
	done <"$out.res"

	without_alloc_traces "$log" | grep -aE "$reports" |
		grep -avE "$benign" >"$log.reports" || true
	if [ -s "$log.reports" ]; then
		flunk "$name: kernel reports ($(wc -l <"$log.reports") lines):"
		head -n 20 "$log.reports" | sed 's/^/       /'
	else
		pass "$name: kernel log clean"
	fi

	if [ "$failed" != "$f0" ]; then
		show_failed "$log"
		show_tail "$log" "${DDF_VM_TAIL:-80}"
	fi
}

# job PREFIX N MAX CMD...: CMD run in the background as the lane's job N
# ($vm/PREFIX-job-N), MAX at a time (job N waits for job N - MAX), with
# passed and failed of its own; its report and counts for jobs_gather.
job() {
	job_f=$vm/$1-job-$2
	[ "$2" -le "$3" ] || wait "$(cat "$vm/$1-job-$(($2 - $3)).pid")" || true
	shift 3
	rm -f "$job_f.counts"
	(
		passed=0 failed=0
		"$@"
		echo "$passed $failed" >"$job_f.counts"
	) >"$job_f.report" 2>&1 &
	echo $! >"$job_f.pid"
}

# jobs_gather PREFIX N WHAT: once jobs 1 to N are done, each one's report
# in order and its counts added here
jobs_gather() {
	wait
	i=0
	while [ $i -lt "$2" ]; do
		i=$((i + 1))
		gather "$vm/$1-job-$i" "$3 $i"
	done
}

# gather JOB WHAT: the report of a lane's job run in the background
# (JOB.report), and its pass and fail counts (JOB.counts) added to ours.
gather() {
	cat "$1.report"
	if read -r p f <"$1.counts"; then
		passed=$((passed + p)) failed=$((failed + f))
	else
		flunk "$2: its run ended without counts"
	fi
}

# debug_lane KERNEL_DIR RELEASE: the debug kernel's run. With
# $DDF_VM_DEBUG_JOBS at 2, two VMs of that kernel side by side, with the
# same modules (built once): NAME-robust ($DDF_VM_SMP_DEBUG vCPUs, as some
# suites drive both CPUs) runs KUnit and the robustness suites, NAME-netns
# ($DDF_VM_SMP_DEBUG_NETNS vCPUs) the integration scripts; each judged on
# its own (its kernel log, its kmemleak scan), their reports printed in
# that order once both are done. At 1, or with no integration script to
# run, one VM runs them all.
debug_lane() {
	kunit_tool=$1/src/tools/testing/kunit/kunit.py
	robust='' netns='' pids=''
	for t in ${DDF_VM_TESTS:-$(lane_tests)}; do
		case $t in
		robust/*) robust="$robust $t" ;;
		*) netns="$netns $t" ;;
		esac
	done
	if [ "$DDF_VM_DEBUG_JOBS" -lt 2 ] || [ -z "$netns" ]; then
		DDF_VM_MEM=$DDF_VM_MEM_ROBUST check "$2" "$1/bzImage" \
			"$1/build" - "$DDF_VM_SMP_DEBUG" \
			"$DDF_VM_TIMEOUT_DEBUG" kasan_multi_shot "$kunit_tool"
		return
	fi
	echo "$lane: $2 (two VMs: KUnit and the robustness suites; the integration scripts)"
	mkdir -p "$vm/$2"
	if ! build_modules "$2" "$1/build" "${DDF_MODULE_MAKE_ARGS:-}"; then
		flunk "$2: build the modules (log: $vm/$2/modules.log)"
		return
	fi
	build_warnings "$2"
	for g in robust netns; do
		rm -f "$vm/debug-$g.counts"
		(
			passed=0 failed=0
			echo "$lane: $2-$g"
			if [ $g = robust ]; then
				tests=$robust smp=$DDF_VM_SMP_DEBUG kunit=$kunit_tool k=1
				DDF_VM_MEM=$DDF_VM_MEM_ROBUST
			else
				tests=$netns smp=$DDF_VM_SMP_DEBUG_NETNS kunit=- k=0
			fi
			if stage "$2-$g" - "$k" 0 "$2" "$tests"; then
				run_vm "$2-$g" "$1/bzImage" "$smp" \
					"$DDF_VM_TIMEOUT_DEBUG" kasan_multi_shot "$kunit"
			else
				flunk "$2-$g: make the initramfs"
			fi
			echo "$passed $failed" >"$vm/debug-$g.counts"
		) >"$vm/debug-$g.report" 2>&1 &
		pids="${pids:-} $!"
	done
	for p in $pids; do wait "$p" || true; done
	for g in robust netns; do
		gather "$vm/debug-$g" "$2-$g"
	done
}

# arm64_build: ddfctl, ddfpkt, ddfxsk, ddf_spangen, libxt_ddf.so, the
# kfunc's example (also under ddf's program's name), xdprace.so and
# ddfreq (names.sh)
# cross-built against the arm64 root, into
# $DDF_BUILD/cross/arm64 (the VMs' base takes them from there)
arm64_build() {
	o=$DDF_BUILD/cross/arm64
	mkdir -p "$o"
	make -C "$DDF_ROOT" --no-print-directory -j"$DDF_JOBS" B="$o" \
		CC="aarch64-linux-gnu-gcc --sysroot=$arm64_root" \
		"$o/ddfctl" "$o/ddfpkt" "$o/ddfxsk" "$o/ddf_spangen" \
		"$o/libxt_ddf.so" "$o/examples/ddf_vxlan.bpf.o" \
		"$o/examples/ddf_xdp_judge.bpf.o" "$o/xdprace.so" \
		"$o/robust/ddfreq" \
		>"$o/build.log" 2>&1 || {
		show_tail "$o/build.log" 30
		return 1
	}
}

lane=${1:-}
case $lane in
stock | debug | shell) DDF_BENCH= ;;
newest | sid)
	# the stock lane's runs on kernels newer than its own (not in make
	# check: see the README's lanes)
	DDF_BENCH=
	: "${DDF_NEWEST_KERNELS:=trixie-6.12 trixie-backports}"
	: "${DDF_SID_KERNELS:=sid}"
	if [ "$lane" = newest ]; then
		DDF_STOCK_KERNELS=$DDF_NEWEST_KERNELS
	else
		DDF_STOCK_KERNELS=$DDF_SID_KERNELS
	fi
	;;
arm64)
	# Debian's arm64 kernels (sysroot.sh: $DDF_ARM64_KERNELS) under
	# qemu-system-aarch64's virt machine, the stock lane's scripts; the
	# KUnit suites in an arm64 build of Debian's 6.12 sources
	DDF_BENCH=
	arm64_root=$("$DDF_QEMU/sysroot.sh" arm64) || die "arm64: no arm64 root"
	DDF_QEMU_BIN=qemu-system-aarch64
	vm_machine="-M virt -accel tcg -cpu max,pauth-impdef=on"
	vm_console=ttyAMA0
	vm_report="-device virtio-serial-pci -chardev file,id=ddfout,path=%s -device virtconsole,chardev=ddfout"
	: "${DDF_VM_TIMEOUT_ARM64:=$DDF_VM_TIMEOUT_STOCK}"
	: "${DDF_VM_ARM64_JOBS:=2}"
	vm_report_dev=/dev/hvc0
	# (module-btf.sh's pahole writes BTF into arm64 modules with it)
	DDF_OBJCOPY=aarch64-linux-gnu-objcopy OBJCOPY=aarch64-linux-gnu-objcopy
	export OBJCOPY
	# (the cross compiler: 6.1's headers take it from these)
	DDF_MODULE_MAKE_ARGS="DEB_HOST_ARCH=arm64 DEB_HOST_GNU_TYPE=aarch64-linux-gnu"
	DDF_BOOT_DIR=$arm64_root/boot
	DDF_SYSROOT=$arm64_root
	DDF_TRIPLET=aarch64-linux-gnu
	export DDF_SYSROOT DDF_TRIPLET DDF_BOOT_DIR
	vm=${DDF_VM_DIR:-$DDF_BUILD/vm-arm64}
	;;
kcsan)
	DDF_BENCH=
	: "${DDF_KCSAN_TESTS:=robust/churn.sh robust/nolost.sh dedup.sh netdev.sh}"
	DDF_VM_TESTS=${DDF_VM_TESTS:-$DDF_KCSAN_TESTS}
	;;
bench)
	: "${DDF_BENCH:=full}"
	: "${DDF_BENCH_KERNEL:=bookworm-6.12}"
	: "${DDF_VM_TIMEOUT_BENCH:=3600}"
	DDF_VM_MEM=${DDF_VM_MEM_BENCH:-3072}
	# The guest's clock counts instructions (1 ns each): rates measured
	# in the guest are instruction counts, whatever the host's load.
	: "${DDF_VM_QEMU_ARGS=-icount shift=0,sleep=off}"
	case $DDF_VM_QEMU_ARGS in
	*icount*) DDF_BENCH_CLOCK=icount ;;
	*) DDF_BENCH_CLOCK=wall ;;
	esac
	export DDF_BENCH_CLOCK
	;;
demo)
	DDF_BENCH=
	: "${DDF_DEMO_KERNEL:=bookworm-6.12}"
	: "${DDF_VM_TIMEOUT_DEMO:=600}"
	# the demo's own lines are on the terminal already
	: "${DDF_VM_TAIL:=25}"
	;;
*) die "usage: $0 stock|newest|sid|debug|arm64|kcsan|bench|demo|shell [debug|stock]" ;;
esac
mkdir -p "$vm"
# Runs from one tree take turns: they share $vm.
exec 8>"$vm/.lock"
if ! flock -n 8; then
	log "waiting for another run in $vm"
	flock 8
fi
t_lane=$(now)
if [ "$lane" = arm64 ]; then
	"$DDF_QEMU/kernel.sh" --background arm64
	arm64_build || die "arm64: cross-build the tools ($DDF_BUILD/cross/arm64/build.log)"
	# shellcheck disable=SC2097,SC2098 # DDF_DATA: this build's
	DDF_DATA=$DDF_BUILD DDF_BUILD=$DDF_BUILD/cross/arm64 \
		"$DDF_QEMU/initramfs.sh" base "$vm/base.cpio"
else
	"$DDF_QEMU/initramfs.sh" base "$vm/base.cpio"
fi

if [ "$lane" = shell ]; then
	lane=${2:-debug}
	if [ "$lane" = debug ]; then
		kdir=$("$DDF_QEMU/kernel.sh")
		prepare debug-shell "$kdir/bzImage" "$kdir/build" - 0 1
		flock -u 8
		boot debug-shell "$kdir/bzImage" "$DDF_VM_SMP_DEBUG" 0 "" interactive
	else
		k=$(stock_kernels | tail -n 1)
		case $k in missing:*) die "no kernel ${k#missing:}" ;; esac
		kernel_root "$k" || die "no root of the kernel $k (kroot.sh)"
		prepare "stock-shell" "$kr_image" "$kr_tree" "$kr_rel" 0 1
		flock -u 8
		boot "stock-shell" "$kr_image" "$DDF_VM_SMP_STOCK" 0 "" interactive
	fi
	exit 0
fi

if [ "$lane" = bench ]; then
	k=$(DDF_STOCK_KERNELS=$DDF_BENCH_KERNEL stock_kernels | tail -n 1)
	case $k in
	missing:*) flunk "no kernel ${k#missing:}" ;;
	*)
		kernel_root "$k" || die "bench: no root of the kernel $k (kroot.sh)"
		rel=$kr_rel
		check "$rel" "$kr_image" "$kr_tree" "$rel" \
			1 "$DDF_VM_TIMEOUT_BENCH" "" -
		mkdir -p "$DDF_BUILD/bench"
		sed -n 's/^ddf-bench: //p' "$vm/bench-$rel.out.txt" \
			>"$DDF_BUILD/bench/raw-$DDF_BENCH.jsonl"
		;;
	esac
elif [ "$lane" = demo ]; then
	k=$(DDF_STOCK_KERNELS=$DDF_DEMO_KERNEL stock_kernels | tail -n 1)
	case $k in
	missing:*) flunk "no kernel ${k#missing:}" ;;
	*)
		log "demo: Debian's kernel $k from the archive (cached after the first run)"
		kernel_root "$k" || die "demo: no root of the kernel $k (kroot.sh)"
		rel=$kr_rel
		log "demo: building nf_ddf for $rel and booting that kernel under QEMU (TCG)"
		follow="ddf-demo: "
		check "$rel" "$kr_image" "$kr_tree" "$rel" "$DDF_VM_SMP_STOCK" \
			"$DDF_VM_TIMEOUT_DEMO" "" -
		# the demo's verdict, its last line
		verdict=$(sed -n 's/^ddf-demo: \(demo: .*\)/\1/p' "$vm/demo-$rel.out.txt" | tail -n 1)
		case $verdict in
		"demo: ok:"*) pass "the demo's verdict: ok" ;;
		"") flunk "the demo printed no verdict (console: $vm/demo-$rel.log)" ;;
		*) flunk "$verdict" ;;
		esac
		;;
	esac
elif [ "$lane" = arm64 ]; then
	# as the stock lane: $DDF_VM_ARM64_JOBS kernels side by side
	arm64_vm() {
		if tree=$(arm64_tree "$arm64_root" "$1" "$vm/kbuild-$1"); then
			check "$1" "$arm64_root/boot/vmlinuz-$1" "$tree" "$1" \
				"$DDF_VM_SMP_STOCK" "$DDF_VM_TIMEOUT_ARM64" "" -
		else
			flunk "$1: a tree to build its modules"
		fi
	}
	# KUnit: Debian's arm64 kernels have none, so its suites run in a
	# kernel of Debian's 6.12 sources built for arm64 with it (kernel.sh
	# arm64; started above, it builds while those VMs run)
	arm64_kunit_vm() {
		if kdir=$("$DDF_QEMU/kernel.sh" arm64); then
			kver=$(cat "$kdir/build/include/config/kernel.release")
			DDF_MODULE_MAKE_ARGS="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" \
				DDF_VM_TESTS=" " check "$kver" "$kdir/Image" \
				"$kdir/build" - "$DDF_VM_SMP_STOCK" \
				"$DDF_VM_TIMEOUT_ARM64" "" \
				"$kdir/src/tools/testing/kunit/kunit.py"
		else
			flunk "build the arm64 KUnit kernel (kernel.sh arm64)"
		fi
	}
	n=0
	for d in "$arm64_root"/lib/modules/*; do
		n=$((n + 1))
		job arm64 $n "$DDF_VM_ARM64_JOBS" arm64_vm "${d##*/}"
	done
	n=$((n + 1))
	job arm64 $n "$DDF_VM_ARM64_JOBS" arm64_kunit_vm
	jobs_gather arm64 $n "arm64 kernel"
elif [ "$lane" = stock ] || [ "$lane" = newest ] || [ "$lane" = sid ]; then
	# The kernels run side by side, $DDF_VM_STOCK_JOBS at a time: a stock
	# VM has one vCPU, the host more. Each one's report is printed once
	# it is done, in order, and its counts added here. Each job first
	# gets its kernel's root (kroot.sh: cached, or made then).
	# The scripts that want module.sig_enforce=1 boot alone, on the
	# newest kernel only, the list's last (a boot adds about 30 s), with
	# its modules.
	newest=$(stock_kernels 2>/dev/null | grep -v '^missing:' | tail -n 1)
	stock_vm() {
		t_root=$(now)
		if ! kernel_root "$1"; then
			flunk "$1: its root (tests/qemu/kroot.sh root $1)"
			return
		fi
		echo "$lane: $1: $kr_rel, its root ${kroot_dir##*/} ready in $(($(now) - t_root)) s"
		k=$1
		set -- "$kr_rel"
		plain="" sig=""
		for t in ${DDF_VM_TESTS:-$(lane_tests) $(cd "$DDF_ROOT/tests" &&
			ls netns/*.sh)}; do
			if sig_enforce_script "$t"; then
				[ "$k" != "$newest" ] || sig="$sig $t"
			elif [ -n "${DDF_VM_TESTS:-}" ]; then
				plain="$plain $t"
			fi
		done
		if [ -z "${DDF_VM_TESTS:-}" ] || [ -n "$plain" ]; then
			DDF_VM_TESTS=${plain# } check "$1" "$kr_image" \
				"$kr_tree" "$1" "$DDF_VM_SMP_STOCK" \
				"$DDF_VM_TIMEOUT_STOCK" "" -
		elif [ -n "$sig" ] &&
			! build_modules "$1" "$kr_tree"; then
			flunk "$1: build the modules (log: $vm/$1/modules.log)"
			return
		fi
		[ -n "$sig" ] || return 0
		echo "$lane: $1-sig"
		if ! stage "$1-sig" "$1" 0 0 "$1" "${sig# }"; then
			flunk "$1-sig: the initramfs"
			return
		fi
		run_vm "$1-sig" "$kr_image" "$DDF_VM_SMP_STOCK" \
			"$DDF_VM_TIMEOUT_STOCK" "module.sig_enforce=1" -
	}
	n=0
	for k in $(stock_kernels); do
		case $k in
		missing:*)
			flunk "no kernel ${k#missing:} in tests/qemu/kernels.txt"
			continue
			;;
		esac
		n=$((n + 1))
		job "$lane" $n "$DDF_VM_STOCK_JOBS" stock_vm "$k"
	done
	jobs_gather "$lane" $n "$lane kernel"
elif [ "$lane" = kcsan ]; then
	if kdir=$("$DDF_QEMU/kernel.sh" kcsan); then
		kver=$(cat "$kdir/build/include/config/kernel.release")
		check "$kver" "$kdir/bzImage" "$kdir/build" - \
			"$DDF_VM_SMP_DEBUG" "$DDF_VM_TIMEOUT_DEBUG" "" -
	else
		flunk "build the KCSAN kernel"
	fi
else
	# sparse checks the sources as they build against the debug tree.
	if command -v sparse >/dev/null; then
		DDF_MODULE_MAKE_ARGS=C=1
	fi
	if kdir=$("$DDF_QEMU/kernel.sh"); then
		kver=$(cat "$kdir/build/include/config/kernel.release")
		checkpatch_start "$kdir/src/scripts/checkpatch.pl"
		debug_lane "$kdir" "$kver"
		checkpatch
	else
		flunk "build the debug kernel"
	fi
fi

echo "check-vm-$lane: $passed passed, $failed failed ($(($(now) - t_lane)) s)"
[ "$failed" = 0 ]
