#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages of make deb: named for dkms.conf's version, lintian
# finds no error in them, and they ship exactly the files they must: the
# module's sources as the tree has them with its dkms.conf (ddf-dkms), the
# tools, the man pages, the completion and the units (ddf-tools), the
# headers, ddf-xdp(7) and the kfunc's example (ddf-dev), the two files of
# /etc as conffiles; installing enables and starts nothing.
# (test_deb_example.sh builds ddf-dev's example from the package.)
# Usage: tests/tools/test_deb.sh [DEB_DIR]   (make check-deb builds them)
set -e

D=${1:-build/deb}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
[ -n "$version" ] || { echo "FAIL no PACKAGE_VERSION in dkms.conf"; exit 1; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
dkms_deb=$D/ddf-dkms_${version}_all.deb
tools_deb=$D/ddf-tools_${version}_$arch.deb
dev_deb=$D/ddf-dev_${version}_all.deb
# systemd's units: in /lib on Debian 12, as its systemd's own; in /usr/lib
# from Debian 13 on (lintian's aliased-location)
if [ "$(. /etc/os-release && echo "$VERSION_CODENAME")" = bookworm ]; then
	unitdir=lib/systemd/system
else
	unitdir=usr/lib/systemd/system
fi
for f in "$dkms_deb" "$tools_deb" "$dev_deb"; do
	[ -f "$f" ] || { echo "FAIL no $f (make deb)"; exit 1; }
done
ok "make deb wrote ${dkms_deb##*/}, ${tools_deb##*/} and ${dev_deb##*/}"

# --- the version: file name, control field, dkms.conf, changelog ---
for f in "$dkms_deb" "$tools_deb" "$dev_deb"; do
	v=$(dpkg-deb -f "$f" Version)
	[ "$v" = "$version" ] && ok "${f##*/}: Version $v" ||
		bad "${f##*/}: Version '$v', dkms.conf says $version"
	# the changelog installed with it (debian/changelog, as make deb wrote it)
	p=$(dpkg-deb -f "$f" Package)
	dpkg-deb -x "$f" "$tmp/$p"
	cl=$(zcat "$tmp/$p/usr/share/doc/$p/changelog.gz" | head -n 1)
	[ "$cl" = "ddf ($version) unstable; urgency=medium" ] &&
		ok "$p: changelog of $version" || bad "$p: changelog starts '$cl'"
done

# README's install section names the packages of this version
names=$(grep -oE 'ddf-(dkms|tools|dev)_[^ ]*\.deb|/usr/src/ddf-[0-9][^ `]*' README.md | sort -u)
want=$(printf '%s\n' "${dkms_deb##*/}" "${tools_deb##*/}" "${dev_deb##*/}" \
	"/usr/src/ddf-$version" | sort)
[ "$names" = "$want" ] && ok "README names $(echo $names)" ||
	bad "README names $(echo $names), the packages are $(echo $want)"

# --- lintian: no error ---
if ! command -v lintian >/dev/null; then
	bad "lintian is not installed (make setup)"
else
	lintian --fail-on error "$dkms_deb" "$tools_deb" "$dev_deb" >"$tmp/lintian" 2>&1 &&
		rc=0 || rc=$?
	grep -v 'running with root privileges' "$tmp/lintian" | sed 's/^/       /'
	errors=$(grep -c '^E:' "$tmp/lintian" || true)
	if [ "$rc" = 0 ] && [ "$errors" = 0 ]; then
		ok "lintian: no error ($(grep -c '^W:' "$tmp/lintian" || true) warnings)"
	else
		bad "lintian: $errors errors, exit status $rc"
	fi
fi

# --- the files each package ships (dpkg-deb -c: files and links) ---
contents() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort
}
src=/usr/src/ddf-$version
# ddf-dkms: what Kbuild builds nf_ddf.ko from, each file of the tree's
# module, core, ABI and KUnit directories, the BTF script and dkms.conf
{
	printf '%s\n' "$src/Kbuild" "$src/dkms.conf" \
		"$src/scripts/module-btf.sh" \
		/usr/share/doc/ddf-dkms/changelog.gz /usr/share/doc/ddf-dkms/copyright
	find nf_ddf ddf_core uapi tests/core tests/kunit -type f |
		sed "s|^|$src/|"
} | sort >"$tmp/want-dkms"
contents "$dkms_deb" >"$tmp/got-dkms"
if cmp -s "$tmp/want-dkms" "$tmp/got-dkms"; then
	ok "ddf-dkms ships its $(wc -l <"$tmp/got-dkms") files"
else
	bad "ddf-dkms's files differ from the expected list (< expected, > shipped):"
	diff "$tmp/want-dkms" "$tmp/got-dkms" | grep '^[<>]' | sed 's/^/       /'
fi
# the sources are the tree's, byte for byte
n=0
while read -r f; do
	rel=${f#"$src/"}
	case $f in /usr/share/*) continue ;; esac
	cmp -s "$rel" "$tmp/ddf-dkms$f" || { bad "ddf-dkms: $f is not the tree's $rel"; n=$((n + 1)); }
done <"$tmp/got-dkms"
[ "$n" = 0 ] && ok "ddf-dkms: every source is the tree's"
conf=$tmp/ddf-dkms$src/dkms.conf
for line in 'PACKAGE_NAME="ddf"' "PACKAGE_VERSION=\"$version\"" \
	'BUILT_MODULE_NAME[0]="nf_ddf"' 'AUTOINSTALL="yes"'; do
	grep -qxF "$line" "$conf" && ok "dkms.conf: $line" || bad "dkms.conf has no $line"
done
grep -q '^MAKE\[0\]=.*scripts/module-btf\.sh' "$conf" &&
	ok "dkms.conf: MAKE gives the module its BTF (scripts/module-btf.sh)" ||
	bad "dkms.conf's MAKE does not run scripts/module-btf.sh"
[ -x "$tmp/ddf-dkms$src/scripts/module-btf.sh" ] && ok "module-btf.sh is executable" ||
	bad "module-btf.sh is not executable"
dpkg-deb -e "$dkms_deb" "$tmp/dkms-ctl"
grep -q 'for DKMS_POSTINST in /usr/lib/dkms/common.postinst' "$tmp/dkms-ctl/postinst" &&
	grep -q '\$DKMS_POSTINST \$DKMS_NAME \$DKMS_VERSION' "$tmp/dkms-ctl/postinst" &&
	grep -qx 'DKMS_NAME=ddf' "$tmp/dkms-ctl/postinst" &&
	grep -qx "DKMS_VERSION=$version" "$tmp/dkms-ctl/postinst" &&
	ok "ddf-dkms's postinst adds, builds and installs ddf/$version with DKMS" ||
	bad "ddf-dkms's postinst does not run DKMS for ddf/$version"
grep -q "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all" "$tmp/dkms-ctl/prerm" &&
	ok "ddf-dkms's prerm removes ddf/$version from DKMS" ||
	bad "ddf-dkms's prerm does not remove it from DKMS"
dep=$(dpkg-deb -f "$dkms_deb" Depends)
[[ "$dep" == *dkms* ]] && ok "ddf-dkms depends on $dep" || bad "ddf-dkms depends on '$dep'"

sort >"$tmp/want-tools" <<-EOF
	/etc/ddf/ddf.rules
	/etc/default/ddf
	/$unitdir/ddf-metrics.service
	/$unitdir/ddf-metrics.timer
	/$unitdir/ddf.service
	/usr/lib/$multiarch/xtables/libxt_ddf.so
	/usr/sbin/ddfctl
	/usr/share/bash-completion/completions/ddfctl
	/usr/share/doc/ddf-tools/changelog.gz
	/usr/share/doc/ddf-tools/copyright
	/usr/share/lintian/overrides/ddf-tools
	/usr/share/man/man7/ddf.7.gz
	/usr/share/man/man8/ddfctl.8.gz
	/usr/share/man/man8/libxt_ddf.8.gz
EOF
contents "$tools_deb" >"$tmp/got-tools"
if cmp -s "$tmp/want-tools" "$tmp/got-tools"; then
	ok "ddf-tools ships its $(wc -l <"$tmp/got-tools") files"
else
	bad "ddf-tools's files differ from the expected list (< expected, > shipped):"
	diff "$tmp/want-tools" "$tmp/got-tools" | grep '^[<>]' | sed 's/^/       /'
fi
t=$tmp/ddf-tools
for pair in systemd/ddf.service:$unitdir/ddf.service \
	systemd/ddf-metrics.service:$unitdir/ddf-metrics.service \
	systemd/ddf-metrics.timer:$unitdir/ddf-metrics.timer \
	systemd/ddf.rules:etc/ddf/ddf.rules systemd/ddf.default:etc/default/ddf \
	tools/ddfctl/ddfctl.bash:usr/share/bash-completion/completions/ddfctl; do
	cmp -s "${pair%%:*}" "$t/${pair#*:}" && ok "/${pair#*:} is the tree's ${pair%%:*}" ||
		bad "/${pair#*:} is not the tree's ${pair%%:*}"
done
for pair in docs/ddf.7:man7/ddf.7 tools/ddfctl/ddfctl.8:man8/ddfctl.8; do
	zcat "$t/usr/share/man/${pair#*:}.gz" | cmp -s "${pair%%:*}" - &&
		ok "${pair#*:} is the tree's ${pair%%:*}" ||
		bad "${pair#*:} is not the tree's ${pair%%:*}"
done
# libxt_ddf(8): the tree's section of iptables-extensions(8), with a head
zcat "$t/usr/share/man/man8/libxt_ddf.8.gz" >"$tmp/libxt_ddf.8"
if grep -q '^\.TH LIBXT_DDF 8 ' "$tmp/libxt_ddf.8" &&
	tail -n "$(wc -l <tools/xtables/libxt_ddf.man)" "$tmp/libxt_ddf.8" |
	cmp -s tools/xtables/libxt_ddf.man - &&
	w=$(LC_ALL=C.UTF-8 groff -man -ww -z "$tmp/libxt_ddf.8" 2>&1) && [ -z "$w" ]; then
	ok "libxt_ddf.8 is the tree's libxt_ddf.man as a page of its own"
else
	bad "libxt_ddf.8: ${w:-not the libxt_ddf.man of the tree}"
fi
if "$t/usr/sbin/ddfctl" --help 2>&1 | grep -q 'rule add'; then
	ok "the packaged ddfctl runs"
else
	bad "the packaged ddfctl does not run"
fi
# iptables finds the match in the packaged directory alone
xt=$t/usr/lib/$multiarch/xtables
if ! command -v iptables >/dev/null; then
	echo "skip libxt_ddf.so's load by iptables: no iptables (make setup)"
elif XTABLES_LIBDIR=$xt iptables -m ddf --help 2>&1 | grep -q -- '--ddf-mode' &&
	! XTABLES_LIBDIR=$tmp iptables -m ddf --help >/dev/null 2>&1; then
	ok "iptables -m ddf --help loads the packaged libxt_ddf.so"
else
	bad "iptables does not load the packaged libxt_ddf.so"
fi

# ddf-dev: the headers of PREFIX/include, ddf-xdp(7), the kfunc's example
sort >"$tmp/want-dev" <<-EOF
	/usr/include/ddf/bpf_ddf.h
	/usr/include/linux/ddf.h
	/usr/share/doc/ddf-dev/changelog.gz
	/usr/share/doc/ddf-dev/copyright
	/usr/share/doc/ddf-dev/examples/Makefile
	/usr/share/doc/ddf-dev/examples/README
	/usr/share/doc/ddf-dev/examples/ddf_vxlan.bpf.c
	/usr/share/man/man7/ddf-xdp.7.gz
EOF
contents "$dev_deb" >"$tmp/got-dev"
if cmp -s "$tmp/want-dev" "$tmp/got-dev"; then
	ok "ddf-dev ships its $(wc -l <"$tmp/got-dev") files"
else
	bad "ddf-dev's files differ from the expected list (< expected, > shipped):"
	diff "$tmp/want-dev" "$tmp/got-dev" | grep '^[<>]' | sed 's/^/       /'
fi
v=$tmp/ddf-dev
for pair in uapi/linux/ddf.h:usr/include/linux/ddf.h \
	uapi/ddf/bpf_ddf.h:usr/include/ddf/bpf_ddf.h \
	examples/xdp/Makefile:usr/share/doc/ddf-dev/examples/Makefile \
	examples/xdp/README:usr/share/doc/ddf-dev/examples/README \
	examples/xdp/ddf_vxlan.bpf.c:usr/share/doc/ddf-dev/examples/ddf_vxlan.bpf.c; do
	cmp -s "${pair%%:*}" "$v/${pair#*:}" && ok "/${pair#*:} is the tree's ${pair%%:*}" ||
		bad "/${pair#*:} is not the tree's ${pair%%:*}"
done
zcat "$v/usr/share/man/man7/ddf-xdp.7.gz" | cmp -s docs/ddf-xdp.7 - &&
	ok "man7/ddf-xdp.7 is the tree's docs/ddf-xdp.7" ||
	bad "man7/ddf-xdp.7 is not the tree's docs/ddf-xdp.7"
dep=$(dpkg-deb -f "$dev_deb" Depends)
if [ "$(dpkg-deb -f "$dev_deb" Architecture)" = all ] && [[ "$dep" == *linux-libc-dev* ]]; then
	ok "ddf-dev: Architecture all, depends on $dep"
else
	bad "ddf-dev: Architecture $(dpkg-deb -f "$dev_deb" Architecture), depends on '$dep'"
fi

dpkg-deb -e "$tools_deb" "$tmp/tools-ctl"
printf '/etc/ddf/ddf.rules\n/etc/default/ddf\n' >"$tmp/want-conffiles"
sort "$tmp/tools-ctl/conffiles" | cmp -s "$tmp/want-conffiles" - &&
	ok "conffiles: /etc/ddf/ddf.rules /etc/default/ddf" ||
	bad "conffiles: $(tr '\n' ' ' <"$tmp/tools-ctl/conffiles")"
# installing enables and starts nothing (enable only behind was-enabled:
# the operator's own choice, kept over an upgrade); removing stops them
n=$(grep -c "deb-systemd-helper enable" "$tmp/tools-ctl/postinst" || true)
m=$(grep -c "deb-systemd-helper --quiet was-enabled" "$tmp/tools-ctl/postinst" || true)
if [ "$n" = "$m" ] && ! grep -qE 'deb-systemd-invoke (start|restart) ' "$tmp/tools-ctl/postinst"; then
	ok "ddf-tools's postinst enables and starts nothing"
else
	bad "ddf-tools's postinst enables or starts a unit"
fi
grep -q 'deb-systemd-invoke stop ddf-metrics.timer ddf-metrics.service' "$tmp/tools-ctl/prerm" &&
	grep -q 'ddf.service' "$tmp/tools-ctl/prerm" &&
	ok "ddf-tools's prerm stops the units" || bad "ddf-tools's prerm does not stop the units"
grep -q "deb-systemd-helper purge 'ddf.service'" "$tmp/tools-ctl/postrm" &&
	grep -q "deb-systemd-helper purge 'ddf-metrics.timer'" "$tmp/tools-ctl/postrm" &&
	ok "ddf-tools's postrm forgets the units on purge" ||
	bad "ddf-tools's postrm does not purge the units' state"

echo "test_deb: $pass passed, $fail failed"
[ "$fail" = 0 ]
