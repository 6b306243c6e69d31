#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build, or reuse from the cache, a lane's kernel: Debian's Linux sources,
# allnoconfig plus base.config, net.config and FLAVOUR.config (debug, the
# default, or kcsan), built with ccache; or, flavour arm64, arm64.config
# and net.config cross-built for arm64 (the arm64 lane's KUnit kernel).
# Prints the kernel's cache directory on stdout:
#
#   <dir>/bzImage     the kernel to boot (arm64: <dir>/Image)
#   <dir>/build/      the O= build tree that M= module builds use
#   <dir>/src         a link to the unpacked sources (kunit.py lives there)
#   <dir>/ok          written last; a directory without it is rebuilt
#
# The directory name is keyed by the source package version, the compiler
# and a hash of the fragments, so changing a fragment builds a new kernel.
set -eu
. "$(dirname "$0")/lib.sh"

# Bump when the build steps below change in a way that alters the result.
recipe=1
# kernel.sh --background [FLAVOUR]: the same, detached, its output in
# $DDF_CACHE/kernel-background.log (make check starts the debug kernel's
# build this way, so that a cold machine builds it while the userspace
# tests and the stock lanes run; the lane's own call waits on the lock).
if [ "${1:-}" = --background ]; then
	shift
	mkdir -p "$DDF_CACHE"
	setsid "$0" "$@" >"$DDF_CACHE/kernel-background.log" 2>&1 </dev/null &
	exit 0
fi

flavour=${1:-debug}
[ -r "$DDF_QEMU/$flavour.config" ] || die "kernel: no flavour $flavour ($DDF_QEMU/$flavour.config)"
frags="$DDF_QEMU/base.config $DDF_QEMU/net.config $DDF_QEMU/$flavour.config"
# arm64 (the arm64 lane's KUnit kernel): cross-built, its own base
karch=x86_64 kcc=gcc kcross='' kimage=arch/x86/boot/bzImage kout=bzImage
if [ "$flavour" = arm64 ]; then
	frags="$DDF_QEMU/arm64.config $DDF_QEMU/net.config"
	karch=arm64 kcc=aarch64-linux-gnu-gcc kcross=aarch64-linux-gnu-
	kimage=arch/arm64/boot/Image kout=Image
fi

# The project's test key (test-key.pem), which a fragment may name in
# CONFIG_SYSTEM_TRUSTED_KEYS by that name alone: kernel.sh puts it at the
# top of the build tree, where Kbuild looks; the hash covers it then.
testkey=$DDF_QEMU/test-key.pem
testkey_used() {
	grep -q '^CONFIG_SYSTEM_TRUSTED_KEYS="test-key.pem"$' $frags
}

[ -r "$DDF_KSRC_TARBALL" ] || die "no kernel sources at $DDF_KSRC_TARBALL (package $DDF_KSRC_PKG)"
srcver=$(dpkg-query -W -f='${Version}' "$DDF_KSRC_PKG" 2>/dev/null) ||
	srcver=$(sha256sum "$DDF_KSRC_TARBALL" | cut -c1-16)
srcver=$(sanitize "$srcver")
hash=$({
	echo "recipe $recipe"
	$kcc --version | head -n 1
	cat $frags
	if testkey_used; then cat "$testkey"; fi
} | sha256sum | cut -c1-12)
kdir=$DDF_CACHE/kernel-$srcver-$hash
srcdir=$DDF_CACHE/src-$srcver

cache_claim kernel "$kdir" "$kdir"

t0=$(now)
if [ ! -e "$srcdir/ok" ]; then
	log "kernel: unpacking $DDF_KSRC_TARBALL"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	tar -C "$srcdir" -xf "$DDF_KSRC_TARBALL"
	touch "$srcdir/ok"
fi
ksrc=$(find "$srcdir" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -e "$ksrc/Makefile" ] || die "no kernel tree in $srcdir"

mkdir -p "$kdir/build"
ln -sfn "$ksrc" "$kdir/src"
cat $frags >"$kdir/fragments.config"
if testkey_used; then cp "$testkey" "$kdir/build/test-key.pem"; fi
blog=$kdir/build.log
# ccache's depend mode: the dependencies from the compiler's own -MMD
# output (which Kbuild asks for) instead of a preprocessor run per file.
# Same objects; on a cold cache (a fresh machine) the compiles take 4%
# more CPU than plain gcc instead of 26% (a sample of this kernel's files).
export CCACHE_DEPEND=1
kmake() {
	make -C "$ksrc" O="$kdir/build" ARCH=$karch ${kcross:+CROSS_COMPILE=$kcross} \
		CC="ccache $kcc" \
		HOSTCC="ccache gcc" "$@" >>"$blog" 2>&1 || {
		show_tail "$blog" 40
		die "kernel: make $* failed (log: $blog)"
	}
}

names=$(for f in $frags; do basename "$f"; done | paste -s -d ' ')
log "kernel: configuring $kdir (allnoconfig + $names)"
: >"$blog"
kmake KCONFIG_ALLCONFIG="$kdir/fragments.config" allnoconfig
kmake olddefconfig

# Kconfig silently drops what it cannot satisfy: insist on every line.
# A symbol set twice keeps its last line, as Kconfig does.
awk '{ s = $0 }
	/^CONFIG_[A-Za-z0-9_]*=/ { sub(/=.*/, "", s) }
	/^# CONFIG_[A-Za-z0-9_]* is not set/ { s = $2 }
	s ~ /^CONFIG_/ { last[s] = NR }
	{ line[NR] = $0; sym[NR] = s }
	END { for (i = 1; i <= NR; i++)
		if (!(sym[i] ~ /^CONFIG_/) || last[sym[i]] == i) print line[i] }' \
	"$kdir/fragments.config" >"$kdir/fragments.effective"
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$kdir/build/.config" && continue
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		! grep -q "^$sym=" "$kdir/build/.config" && continue
		;;
	*) continue ;;
	esac
	log "kernel: config fragment line not in .config: $line"
	missing=1
done <"$kdir/fragments.effective"
[ $missing = 0 ] || die "kernel: Kconfig dropped options (see above); add their dependencies to the fragments"

log "kernel: building with $DDF_JOBS jobs (ccache in $CCACHE_DIR; log: $blog)"
kmake -j"$DDF_JOBS" all
cp "$kdir/build/$kimage" "$kdir/$kout"
t1=$(now)
echo "$((t1 - t0))" >"$kdir/build-seconds"
log "kernel: built in $((t1 - t0)) s"
touch "$kdir/ok"
echo "$kdir"
