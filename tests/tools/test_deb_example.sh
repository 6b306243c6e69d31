#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kfunc's example builds from the package ddf-dev alone, as a user
# builds it: the package unpacked into a scratch root (dpkg-deb -x), its
# examples copied out of the root's /usr/share/doc/ddf-dev/examples and
# built by their own Makefile against the root's /usr/include. The
# headers the object was built from are the package's (the Makefile's
# dependency file), its program calls bpf_ddf_xdp (a relocation of the
# program's section names it; clang's BTF declares it as an extern), and
# it has the maps its README names. The package's <linux/ddf.h> compiles
# on its own in a C program too.
# Usage: tests/tools/test_deb_example.sh [DEB_DIR]   (make check-deb)
set -e

D=${1:-build/deb}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
deb=$D/ddf-dev_${version}_all.deb
[ -f "$deb" ] || { echo "FAIL no $deb (make deb)"; exit 1; }
for t in clang bpftool readelf; do
	command -v "$t" >/dev/null ||
		{ echo "FAIL no $t (scripts/packages-tools.txt)"; exit 1; }
done

root=$tmp/root
dpkg-deb -x "$deb" "$root"
inc=$root/usr/include
ex=$tmp/ddf-vxlan
cp -r "$root/usr/share/doc/ddf-dev/examples" "$ex"
if make -s -C "$ex" DDF_INCLUDE="$inc" >"$tmp/make.log" 2>&1; then
	ok "make -C examples DDF_INCLUDE=<the package's /usr/include>"
else
	sed 's/^/       /' "$tmp/make.log"
	bad "the package's example does not build against its headers"
	echo "test_deb_example: $pass passed, $fail failed"
	exit 1
fi
obj=$ex/ddf_vxlan.bpf.o
for h in ddf/bpf_ddf.h linux/ddf.h; do
	grep -qF "$inc/$h" "$ex/ddf_vxlan.bpf.d" &&
		ok "built from the package's $h" ||
		bad "not built from the package's $h: $(tr '\n' ' ' <"$ex/ddf_vxlan.bpf.d")"
done
# the call: a relocation of the program's section against the kfunc
readelf -rW "$obj" >"$tmp/rel"
if awk -v sec="'.relxdp.frags'" '/^Relocation section/ { s = $3 }
	s == sec && $NF == "bpf_ddf_xdp"' "$tmp/rel" | grep -q .; then
	ok "ddf_vxlan's program calls bpf_ddf_xdp (a relocation in .relxdp.frags)"
else
	bad "no call of bpf_ddf_xdp in ddf_vxlan's program: $(grep -A4 relxdp "$tmp/rel")"
fi
bpftool btf dump file "$obj" >"$tmp/btf"
grep -q "FUNC 'bpf_ddf_xdp' type_id=[0-9]* linkage=extern" "$tmp/btf" &&
	ok "its BTF declares the kfunc bpf_ddf_xdp (extern)" ||
	bad "its BTF has no extern bpf_ddf_xdp"
for m in vxlan_rule vxlan_last; do
	grep -q "VAR '$m'" "$tmp/btf" && grep -q "$m" "$ex/README" &&
		ok "its map $m, which README names" || bad "no map $m, or README does not name it"
done
# <linux/ddf.h> alone, in userspace
printf '#include <linux/ddf.h>\nint main(void) { return DDF_XDP_DROP - 2; }\n' >"$tmp/uapi.c"
if cc -Wall -Werror -I"$inc" "$tmp/uapi.c" -o "$tmp/uapi" 2>"$tmp/cc.log" && "$tmp/uapi"; then
	ok "the package's <linux/ddf.h> compiles alone in C"
else
	bad "<linux/ddf.h> in C: $(cat "$tmp/cc.log")"
fi

echo "test_deb_example: $pass passed, $fail failed"
[ "$fail" = 0 ]
