#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the initramfs of the test VMs as two uncompressed cpio archives that
# the kernel unpacks one after the other:
#
#   initramfs.sh base OUT.cpio
#	busybox, bash, iproute2, iptables (legacy and nft), nft, kmod,
#	ethtool, tcpdump, the shared libraries ldd lists and the xtables
#	extensions, all copied from this machine; what make builds in
#	$DDF_BUILD; /init (tests/qemu/init.sh) and the test scripts.
#   initramfs.sh kernel OUT.cpio RELEASE|- KO_DIR LANE_CONF
#	one kernel's part: its networking modules (RELEASE from /lib/modules
#	of DDF_MODULES_ROOT, a root of kroot.sh, or else of DDF_SYSROOT;
#	- for a kernel without modules), our .ko files and the lane's
#	settings.
#
# With DDF_SYSROOT, the VMs of another architecture (run.sh arm64): the
# programs and libraries come from that root (sysroot.sh) instead of this
# machine, their libraries found by readelf (DDF_TRIPLET, their multiarch
# directory); the modules from its /lib/modules; what make builds from
# DDF_BUILD (a cross build) and the captures it writes from DDF_DATA.
set -eu
. "$(dirname "$0")/lib.sh"
: "${DDF_SYSROOT:=}"
: "${DDF_TRIPLET:=$(gcc -print-multiarch)}"
: "${DDF_DATA:=$DDF_BUILD}"

# Debian's root is merged-/usr: /bin, /sbin and /lib are links into /usr.
dest_of() {
	case $1 in
	/bin/* | /sbin/* | /lib/* | /lib64/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

# copy_file ROOT PATH [FROM]: the file FROM (default: PATH, in
# DDF_SYSROOT if set; symlinks followed) at PATH.
copy_file() {
	d=$1$(dest_of "$2")
	[ -e "$d" ] && return 0
	mkdir -p "$(dirname "$d")"
	cp -L "${3:-$DDF_SYSROOT$2}" "$d"
}

# elf_libs FILE: the paths of the libraries FILE needs, and theirs, and its
# interpreter, in DDF_SYSROOT: what ldd would say there.
elf_libs() {
	todo=$1 seen=
	while [ -n "$todo" ]; do
		set -- $todo
		e=$1
		shift
		todo=$*
		readelf -l "$e" 2>/dev/null |
			sed -n 's/.*program interpreter: \(.*\)\]$/\1/p'
		for n in $(readelf -d "$e" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case " $seen " in *" $n "*) continue ;; esac
			seen="$seen $n"
			for d in /usr/lib/$DDF_TRIPLET /lib/$DDF_TRIPLET /usr/lib /lib; do
				if [ -e "$DDF_SYSROOT$d/$n" ]; then
					echo "$d/$n"
					todo="$todo $DDF_SYSROOT$d/$n"
					break
				fi
			done
		done
	done
}

# copy_libs ROOT FILE: the libraries the program FILE (a path here) needs.
copy_libs() {
	if [ -n "$DDF_SYSROOT" ]; then
		elf_libs "$2"
	else
		ldd "$2" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }'
	fi | while read -r lib; do
		copy_file "$1" "$lib"
	done
}

# copy_bin ROOT PATH...: executables or libraries (DDF_SYSROOT's, if set)
# and the libraries they need.
copy_bin() {
	root=$1
	shift
	for f in "$@"; do
		[ -e "$DDF_SYSROOT$f" ] || die "initramfs: $DDF_SYSROOT$f is missing (see scripts/packages-vm.txt)"
		copy_file "$root" "$f"
		copy_libs "$root" "$DDF_SYSROOT$f"
	done
}

# copy_built ROOT FILE DIR: a program make built (FILE, a path here) into
# DIR, with the libraries it needs.
copy_built() {
	copy_libs "$1" "$2"
	mkdir -p "$1$3"
	cp "$2" "$1$3/"
}

mkcpio() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$2"
}

base() {
	out=$1
	root=$out.d
	rm -rf "$root"
	mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib64" \
		"$root/etc" "$root/root" "$root/ddf/tests"
	for d in bin sbin lib lib64; do
		ln -s "usr/$d" "$root/$d"
	done

	copy_file "$root" /bin/busybox
	copy_bin "$root" /bin/bash /sbin/ip /sbin/tc /usr/sbin/nft \
		/usr/sbin/xtables-legacy-multi /usr/sbin/xtables-nft-multi \
		/bin/kmod /usr/sbin/ethtool
	xt=/usr/lib/$DDF_TRIPLET/xtables
	[ -n "$DDF_SYSROOT" ] || [ -d "$xt" ] ||
		xt=$(dirname "$(readlink -f /usr/sbin/xtables-nft-multi)")/../lib/$DDF_TRIPLET/xtables
	for x in "$DDF_SYSROOT$xt"/*.so; do
		copy_bin "$root" "$xt/${x##*/}"
	done
	for t in iptables ip6tables; do
		for f in legacy nft; do
			ln -s "xtables-$f-multi" "$root/usr/sbin/$t-$f"
			ln -s "xtables-$f-multi" "$root/usr/sbin/$t-$f-save"
			ln -s "xtables-$f-multi" "$root/usr/sbin/$t-$f-restore"
		done
		ln -s "$t-nft" "$root/usr/sbin/$t"
	done
	for t in modprobe insmod rmmod lsmod modinfo depmod; do
		ln -s ../bin/kmod "$root/usr/sbin/$t"
	done
	ln -s bash "$root/usr/bin/sh.bash"
	for f in /etc/protocols /etc/services /etc/ethertypes; do
		if [ -e "$DDF_SYSROOT$f" ]; then cp "$DDF_SYSROOT$f" "$root/etc/"; fi
	done
	echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
	echo "root:x:0:" >"$root/etc/group"

	# ddfctl, the rule tool the integration scripts drive (make builds it).
	[ -x "$DDF_BUILD/ddfctl" ] ||
		die "initramfs: build/ddfctl is missing (run make first)"
	copy_built "$root" "$DDF_BUILD/ddfctl" /usr/bin
	# ddfpkt, which sends the duplicates and counts what arrived.
	[ -x "$DDF_BUILD/ddfpkt" ] ||
		die "initramfs: build/ddfpkt is missing (run make first)"
	copy_built "$root" "$DDF_BUILD/ddfpkt" /usr/bin
	# libxt_ddf.so, the iptables extension of the match "ddf" (make
	# builds it); tests/netns/xt.sh sets XTABLES_LIBDIR=/ddf/xtables:$xt.
	if [ -e "$DDF_BUILD/libxt_ddf.so" ]; then
		copy_built "$root" "$DDF_BUILD/libxt_ddf.so" /ddf/xtables
	else
		log "initramfs: no build/libxt_ddf.so (run make): xt.sh will fail"
	fi
	# ddf_spangen, the mirror port's traffic of tests/netns/span.sh, and
	# tcpdump, which captures what a rule lets through there.
	[ -x "$DDF_BUILD/ddf_spangen" ] ||
		die "initramfs: build/ddf_spangen is missing (run make first)"
	copy_built "$root" "$DDF_BUILD/ddf_spangen" /usr/bin
	tcpdump=/usr/bin/tcpdump
	[ -n "$DDF_SYSROOT" ] || tcpdump=$(command -v tcpdump || echo /usr/bin/tcpdump)
	copy_bin "$root" "$tcpdump"
	# XDP shared through libxdp (tests/netns/xdpshare.sh, kfunc.sh):
	# xdp-tools' loader and filter, libxdp's dispatcher and AF_XDP
	# programs and xdp-filter's (BPF objects, at the path libxdp and
	# xdp-filter look in), bpftool, the tests' AF_XDP reader and the
	# kfunc's example program (make builds both).
	for b in xdp-loader xdp-filter bpftool; do
		copy_bin "$root" "/usr/sbin/$b"
	done
	# (xdp-tools links libxdp statically: its library directory, from
	# libxdp-dev's pkg-config file, names where libxdp looks)
	bpfobj=/usr/lib/$DDF_TRIPLET/bpf
	[ -n "$DDF_SYSROOT" ] ||
		bpfobj=$(pkg-config --variable=libdir libxdp 2>/dev/null ||
			echo "/usr/lib/$DDF_TRIPLET")/bpf
	for f in "$DDF_SYSROOT$bpfobj"/xdp-dispatcher.o \
		"$DDF_SYSROOT$bpfobj"/xsk_def_xdp_prog*.o \
		"$DDF_SYSROOT$bpfobj"/xdpfilt_*.o; do
		copy_file "$root" "$bpfobj/${f##*/}"
	done
	# (not f: copy_bin's loop sets it); the example also under the name
	# of ddf's program, and xdprace.so, which makes a race to order
	for x in ddfxsk examples/ddf_vxlan.bpf.o examples/ddf_xdp_judge.bpf.o \
		xdprace.so; do
		if [ -e "$DDF_BUILD/$x" ]; then
			case $x in
			*.o) mkdir -p "$root/ddf/examples"
			     cp "$DDF_BUILD/$x" "$root/ddf/examples/" ;;
			*.so) copy_built "$root" "$DDF_BUILD/$x" /usr/lib/ddf ;;
			*) copy_built "$root" "$DDF_BUILD/$x" /usr/bin ;;
			esac
		else
			log "initramfs: no build/$x (run make): xdpshare.sh, xdpfind.sh, xsk.sh and kfunc.sh will fail"
		fi
	done
	# the capture tests/netns/replay.sh replays (make builds it)
	[ -e "$DDF_DATA/replay.pcap" ] ||
		die "initramfs: build/replay.pcap is missing (run make first)"
	cp "$DDF_DATA/replay.pcap" "$root/ddf/tests/"
	# the same records over two ports, for its two-port case
	for f in replay-port1.pcap replay-port2.pcap; do
		if [ -e "$DDF_DATA/$f" ]; then
			cp "$DDF_DATA/$f" "$root/ddf/tests/"
		else
			log "initramfs: no build/$f (run make): replay.sh skips two ports"
		fi
	done

	cp "$DDF_QEMU/init.sh" "$root/init"
	chmod 755 "$root/init"
	# The integration scripts: tests/netns.sh and tests/netns/*.sh, and
	# what the latter source.
	for f in "$DDF_ROOT"/tests/netns.sh "$DDF_ROOT"/tests/netns/*.sh \
		"$DDF_ROOT"/tests/netns/*.bash; do
		if [ -e "$f" ]; then cp "$f" "$root/ddf/tests/"; fi
	done
	# The robustness suites (debug lane) and their tools (make builds
	# build/robust/ from tests/robust/*.c).
	mkdir -p "$root/ddf/tests/robust"
	for f in "$DDF_ROOT"/tests/robust/*.sh "$DDF_ROOT"/tests/robust/*.bash; do
		if [ -e "$f" ]; then cp "$f" "$root/ddf/tests/robust/"; fi
	done
	for r in "$DDF_BUILD"/robust/*; do
		if [ -x "$r" ]; then copy_built "$root" "$r" /usr/bin; fi
	done
	# tcpdump's test captures for robust/malformed.sh, when fetched
	# (make check-tools fetches them; the suite fails without them).
	if caps=$("$DDF_ROOT/scripts/fetch-tcpdump-tests.sh" --cached); then
		mkdir -p "$root/ddf/tcpdump"
		find "$caps" -maxdepth 1 \( -name '*.pcap' -o -name '*.pcapng' \) \
			-exec cp -t "$root/ddf/tcpdump/" {} +
	fi
	# The kernel-path benchmark's VM side (run.sh bench).
	mkdir -p "$root/ddf/bench"
	cp "$DDF_ROOT"/tests/bench/vm-bench.sh \
		"$DDF_ROOT"/tests/bench/filter-bytes.sh "$root/ddf/bench/"
	# make demo's VM side (run.sh demo).
	mkdir -p "$root/ddf/demo"
	cp "$DDF_ROOT"/tests/demo/demo.sh "$root/ddf/demo/"
	mkcpio "$root" "$out"
	rm -rf "$root"
}

# The modules the integration scripts may need from a distribution kernel:
# netfilter, traffic control, veth, virtio-net (tests/netns/virtio.sh; on
# 6.1 virtio_pci is a module too), virtio's console (the arm64 VMs' report
# port), and what they depend on (modules.dep lists every dependency of a
# module, transitively).
copy_modules() {
	root=$1
	rel=$2
	src=${DDF_MODULES_ROOT:-$DDF_SYSROOT}/lib/modules/$rel
	dst=$root/usr/lib/modules/$rel
	[ -e "$src/modules.dep" ] || die "initramfs: no $src/modules.dep"
	mkdir -p "$dst"
	cp "$src"/modules.order "$src"/modules.builtin* "$dst/"
	awk -F: -v re='^kernel/(net/(netfilter|ipv4/netfilter|ipv6/netfilter|ipv6|sched|core|bridge/netfilter)/|drivers/net/(veth|dummy|virtio_net)\\.|drivers/virtio/virtio_pci\\.|drivers/char/virtio_console\\.|(arch/[^/]*/)?crypto/crc32c)' '
		$1 ~ re { print $1; n = split($2, d, " "); for (i = 1; i <= n; i++) print d[i] }
	' "$src/modules.dep" | sort -u | while read -r m; do
		mkdir -p "$dst/$(dirname "$m")"
		cp "$src/$m" "$dst/$m"
	done
	depmod -b "$root/usr" "$rel"
}

kernel() {
	out=$1 rel=$2 kos=$3 conf=$4
	root=$out.d
	rm -rf "$root"
	mkdir -p "$root/ddf/modules"
	[ "$rel" = - ] || copy_modules "$root" "$rel"
	cp "$kos"/*.ko "$root/ddf/modules/"
	cp "$conf" "$root/ddf/lane.conf"
	mkcpio "$root" "$out"
	rm -rf "$root"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
base) base "$@" ;;
kernel) kernel "$@" ;;
*) die "usage: $0 base OUT | kernel OUT RELEASE KO_DIR CONF" ;;
esac
