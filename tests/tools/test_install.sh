#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installation: make install into a scratch DESTDIR puts exactly the
# expected files in place (the module built for the kernel asked for, the
# tools, the iptables extension, the man pages, the completion) and make
# uninstall takes every one away; then DKMS, as an operator would use it:
# make dkms-src, and dkms build of those sources against every kernel whose
# Debian headers are installed, in a scratch DKMS tree.
# Usage: tests/tools/test_install.sh [BUILD_DIR]
set -e

B=${1:-build}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
[ -n "$version" ] || { echo "FAIL no PACKAGE_VERSION in dkms.conf"; exit 1; }

# Kernels with headers, newest last; the running one may have none.
releases=
for mk in /lib/modules/*/build/Makefile; do
	[ -e "$mk" ] || continue
	r=${mk#/lib/modules/}
	releases="$releases ${r%%/*}"
done
releases=$(printf '%s\n' $releases | sort -V)
if [ -z "$releases" ]; then
	# make check installs them (scripts/packages-vm.txt); a bare
	# check-tools run on a machine without them cannot build a module.
	echo "FAIL no kernel headers under /lib/modules/*/build" \
		"(apt install linux-headers-amd64)"
	exit 1
fi
kver=$(printf '%s\n' $releases | tail -n 1)

# --- make install / uninstall ---
dest=$tmp/root
if make -s install DESTDIR="$dest" KVER="$kver" >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR=... KVER=$kver"
else
	tail -n 20 "$tmp/install.log"
	bad "make install failed"
fi
# where the Makefile puts the iptables extension (pkg-config xtables)
xt=$(make -s --no-print-directory --eval 'print-xt: ; @echo $(XTLIBDIR)' print-xt)
expected=$(sort <<-EOF
	/etc/ddf/ddf.rules
	/etc/default/ddf
	/lib/modules/$kver/extra/nf_ddf.ko
	$xt/libxt_ddf.so
	/usr/local/bin/ddfbench
	/usr/local/include/ddf/bpf_ddf.h
	/usr/local/include/linux/ddf.h
	/usr/local/lib/systemd/system/ddf-metrics.service
	/usr/local/lib/systemd/system/ddf-metrics.timer
	/usr/local/lib/systemd/system/ddf.service
	/usr/local/sbin/ddfctl
	/usr/local/share/bash-completion/completions/ddfctl
	/usr/local/share/man/man1/ddfbench.1
	/usr/local/share/man/man7/ddf-xdp.7
	/usr/local/share/man/man7/ddf.7
	/usr/local/share/man/man8/ddfctl.8
	/usr/local/share/man/man8/libxt_ddf.8
	EOF
)
got=$(cd "$dest" && find . -type f | sed 's/^\.//' | sort)
if [ "$got" = "$expected" ]; then
	ok "make install puts $(wc -l <<<"$got") files in place"
else
	bad "installed files differ from the expected list:"
	diff <(echo "$expected") <(echo "$got") | sed 's/^/       /'
fi

ko=$dest/lib/modules/$kver/extra/nf_ddf.ko
vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')
if [ "$vm" = "$kver" ] && [ "$(modinfo -F version "$ko")" = "$version" ]; then
	ok "nf_ddf.ko is built for $vm, version $version"
else
	bad "nf_ddf.ko: vermagic '$vm' (want $kver), version '$(modinfo -F version "$ko" 2>/dev/null)'"
fi
if [ "$(modinfo -F depends "$ko")" = x_tables ]; then
	ok "nf_ddf.ko depends on x_tables only"
else
	bad "nf_ddf.ko depends on '$(modinfo -F depends "$ko")'"
fi
if "$dest/usr/local/sbin/ddfctl" --help 2>&1 | grep -q 'rule add'; then
	ok "the installed ddfctl runs"
else
	bad "the installed ddfctl does not run"
fi
unit=$dest/usr/local/lib/systemd/system/ddf.service
if grep -qxF 'ExecStart=/usr/local/sbin/ddfctl restore --wait ${DDF_DEVICE_WAIT} ${DDF_RULES}' "$unit" &&
	! grep -q /usr/sbin/ddfctl "$unit"; then
	ok "ddf.service runs the installed ddfctl"
else
	bad "ddf.service: $(grep ddfctl "$unit")"
fi
# an edited configuration survives make install and make uninstall
echo "# edited" >>"$dest/etc/ddf/ddf.rules"
make -s install-tools DESTDIR="$dest" >/dev/null 2>&1 &&
	[ "$(tail -n 1 "$dest/etc/ddf/ddf.rules")" = "# edited" ] &&
	ok "make install keeps an edited /etc/ddf/ddf.rules" ||
	bad "make install replaced an edited /etc/ddf/ddf.rules"
for page in man1/ddfbench.1 man7/ddf.7 man7/ddf-xdp.7 man8/ddfctl.8 man8/libxt_ddf.8; do
	f=$dest/usr/local/share/man/$page
	if [ -s "$f" ] && w=$(LC_ALL=C.UTF-8 groff -t -man -ww -z "$f" 2>&1) && [ -z "$w" ]; then
		ok "$page renders without warnings"
	else
		bad "$page: ${w:-empty}"
	fi
done

# the kfunc's example builds against the installed headers alone and calls
# the kfunc (which clang's BTF declares only where it is called)
inc=$dest/usr/local/include
if make -s -C examples/xdp DDF_INCLUDE="$inc" OUT="$tmp/example" \
	>"$tmp/example.log" 2>&1 &&
	grep -q "$inc/ddf/bpf_ddf.h" "$tmp/example/ddf_vxlan.bpf.d" &&
	grep -q "$inc/linux/ddf.h" "$tmp/example/ddf_vxlan.bpf.d" &&
	bpftool btf dump file "$tmp/example/ddf_vxlan.bpf.o" |
	grep -q "FUNC 'bpf_ddf_xdp' type_id=[0-9]* linkage=extern"; then
	ok "examples/xdp builds against the installed headers and calls bpf_ddf_xdp"
else
	bad "examples/xdp against the installed headers: $(tail -n 5 "$tmp/example.log")"
fi

make -s uninstall DESTDIR="$dest" KVER="$kver" >"$tmp/uninstall.log" 2>&1 ||
	bad "make uninstall failed: $(tail -n 5 "$tmp/uninstall.log")"
left=$(cd "$dest" && find . -type f)
if [ "$left" = ./etc/ddf/ddf.rules ]; then
	ok "make uninstall keeps the edited ddf.rules alone"
	rm "$dest/etc/ddf/ddf.rules"
	left=
fi
if [ -z "$left" ]; then
	ok "make uninstall removes every installed file"
else
	bad "make uninstall left: $left"
fi

# --- DKMS ---
if ! command -v dkms >/dev/null; then
	echo "FAIL dkms is not installed (scripts/packages-tools.txt)"
	exit 1
fi
src=$tmp/src
make -s dkms-src DESTDIR="$src" >/dev/null
tree=$tmp/dkms
mkdir -p "$tree"
for r in $releases; do
	log=$tmp/dkms-$r.log
	if dkms build -m ddf -v "$version" -k "$r" --sourcetree "$src/usr/src" \
		--dkmstree "$tree" >"$log" 2>&1; then
		built=$tree/ddf/$version/$r/$(uname -m)/module/nf_ddf.ko
		[ -e "$built" ] || built=$(find "$tree/ddf/$version/$r" -name 'nf_ddf.ko*' | head -n 1)
		vm=$(modinfo -F vermagic "$built" 2>/dev/null | awk '{print $1}')
		if [ "$vm" = "$r" ]; then
			ok "dkms build ddf/$version -k $r"
		else
			bad "dkms build -k $r: module vermagic '$vm'"
		fi
	else
		tail -n 20 "$log" | sed 's/^/       /'
		bad "dkms build ddf/$version -k $r failed"
	fi
done
status=$(dkms status --dkmstree "$tree" --sourcetree "$src/usr/src" 2>&1 || true)
n=$(grep -c "^ddf/$version, .*: built" <<<"$status" || true)
if [ "$n" = "$(wc -w <<<"$releases")" ]; then
	ok "dkms status lists ddf/$version built for $n kernels"
else
	bad "dkms status: $status"
fi

# dkms install and uninstall into a scratch module tree (kernel $kver).
inst=$tmp/modules
mkdir -p "$inst/$kver"
# dkms 3.x names the module it installs after the compression of the
# modules it finds in the install tree (Debian 13's: .ko.xz), which it
# built with from the kernel's own tree: the scratch tree shows the same.
z=$(find "/lib/modules/$kver/kernel" -name '*.ko.*' 2>/dev/null | head -n 1)
[ -z "$z" ] || : >"$inst/$kver/placeholder.ko.${z##*.ko.}"
dk() {
	dkms "$1" "ddf/$version" -k "$kver" --sourcetree "$src/usr/src" \
		--dkmstree "$tree" --installtree "$inst" --no-depmod >"$tmp/dkms-$1.log" 2>&1
}
if dk install && [ -n "$(find "$inst/$kver" -name 'nf_ddf.ko*')" ]; then
	ok "dkms install ddf/$version -k $kver: $(cd "$inst" && find . -name 'nf_ddf.ko*')"
else
	tail -n 10 "$tmp/dkms-install.log" | sed 's/^/       /'
	bad "dkms install ddf/$version -k $kver"
fi
if dk uninstall && [ -z "$(find "$inst/$kver" -name 'nf_ddf.ko*')" ]; then
	ok "dkms uninstall ddf/$version -k $kver removes the module"
else
	bad "dkms uninstall ddf/$version -k $kver: $(find "$inst" -name 'nf_ddf.ko*')"
fi

echo "test_install: $pass passed, $fail failed"
[ "$fail" = 0 ]
