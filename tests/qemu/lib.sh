# SPDX-License-Identifier: GPL-2.0
# Shared settings of the QEMU lanes; sourced by the scripts in tests/qemu/.
# Every path can be overridden from the environment.

DDF_QEMU=$(cd "$(dirname "$0")" && pwd)
DDF_ROOT=$(cd "$DDF_QEMU/../.." && pwd)
: "${DDF_BUILD:=$DDF_ROOT/build}"
: "${DDF_CACHE:=/var/cache/ddf}"
if ! mkdir -p "$DDF_CACHE" 2>/dev/null || [ ! -w "$DDF_CACHE" ]; then
	DDF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/ddf
	mkdir -p "$DDF_CACHE"
fi
: "${DDF_KSRC_PKG:=linux-source-6.12}"
: "${DDF_KSRC_TARBALL:=/usr/src/$DDF_KSRC_PKG.tar.xz}"
: "${DDF_JOBS:=$(nproc)}"
: "${CCACHE_DIR:=$DDF_CACHE/ccache}"
# Stock lane kernels: entries of tests/qemu/kernels.txt (names, or globs
# of names), fetched from Debian's archive by kroot.sh.
: "${DDF_STOCK_KERNELS:=bookworm-6.1 bookworm-6.12}"
: "${DDF_QEMU_BIN:=qemu-system-x86_64}"
export DDF_BUILD DDF_CACHE CCACHE_DIR

log() {
	printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die() {
	log "error: $*"
	exit 1
}

# Print the last lines of a log file, framed, to stderr.
show_tail() {
	printf '%s\n' "----- last ${2:-60} lines of $1 -----" >&2
	tail -n "${2:-60}" "$1" >&2 || true
	printf '%s\n' "----- end of $1 -----" >&2
}

# show_failed LOG [LINES]: for each script the VM log reports as failed,
# its own output (from its "=== NAME" line to its result), framed, to
# stderr: the lines that say what failed, then its last LINES (60) lines.
# The log's tail alone shows the scripts that ran after it.
show_failed() {
	awk -v max="${2:-60}" '
		/^=== / { n = 0; name = substr($0, 5); inside = 1 }
		inside { buf[n++] = $0 }
		inside && /^ddf-result: (ok|fail) / {
			inside = 0
			if ($2 != "fail") next
			print "----- " name ": what failed -----"
			for (i = 0; i < n; i++)
				if (buf[i] ~ /^not ok|FAIL|[Ff]ail|[Ee]rror|went down|out of range|refused/ &&
				    buf[i] !~ /^\[ *[0-9.]+\] /)
					print buf[i]
			print "----- " name ": its last " max " lines -----"
			for (i = (n > max ? n - max : 0); i < n; i++)
				print buf[i]
			print "----- end of " name " -----"
		}' "$1" >&2 || true
}

# pass WHAT [N], flunk WHAT [N]: a lane's checks (N of them, default 1)
# counted in passed and failed, and said.
pass() {
	passed=$((passed + ${2:-1}))
	echo "  ok   $1"
}

flunk() {
	failed=$((failed + ${2:-1}))
	echo "  FAIL $1"
}

# Seconds since the epoch (for timings).
now() {
	date +%s
}

# Characters safe in a directory name.
sanitize() {
	printf '%s' "$1" | tr -c 'A-Za-z0-9.+_-' '_'
}

# cache_claim KIND DIR PRINT: the start of a cached build of
# $DDF_CACHE/KIND-*. If DIR is built (its ok stamp), print PRINT and exit.
# Otherwise remove the trees of KIND unused for $DDF_CACHE_DAYS days, take
# DIR's lock on fd 9 (waiting for a build in progress), and if that build
# made DIR meanwhile, print PRINT and exit; else return, the lock held.
cache_claim() {
	if [ -e "$2/ok" ]; then
		touch "$2/ok" 2>/dev/null || true
		echo "$3"
		exit 0
	fi
	find "$DDF_CACHE" -maxdepth 2 -path "$DDF_CACHE/$1-*/ok" \
		-mtime +"${DDF_CACHE_DAYS:-30}" | while read -r old; do
		log "$1: removing unused ${old%/ok}"
		rm -rf "${old%/ok}" "${old%/ok}.lock"
	done
	exec 9>"$2.lock"
	if ! flock -n 9; then
		log "$1: waiting for the build in progress ($2/build.log)"
		flock 9
	fi
	if [ -e "$2/ok" ]; then # built by a concurrent run meanwhile
		echo "$3"
		exit 0
	fi
}

# apt_entries: this machine's apt entries of type deb, one-line form.
apt_entries() {
	grep -hE '^deb ' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list 2>/dev/null || true
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && uris ~ /debian/)
				for (s = 1; s <= ns; s++)
					printf "deb%s %s %s %s\n", signed, uris, suites[s], comps
			types = uris = comps = signed = ""; ns = 0
		}
		/^[ \t]*$/ { flush(); next }
		/^#/ { next }
		/^Types:/ { types = substr($0, 8) }
		/^URIs:/ { uris = $2 }
		/^Suites:/ { ns = split(substr($0, 9), suites, " ") }
		/^Components:/ { comps = substr($0, 13) }
		/^Signed-By:/ { signed = " [signed-by=" $2 "]" }
		END { flush() }' "$f"
	done
}

# debian_sources [SUITE...]: mmdebstrap's sources on stdin, one-line
# form. Without SUITE, the Debian bookworm entries of this machine's apt
# sources (fails when there are none). With SUITEs, one entry (main) per
# suite, on the mirrors this machine uses, whatever its release: the
# archive's for a suite, its security mirror's for SUITE-security;
# deb.debian.org where this machine names none.
debian_sources() {
	if [ $# = 0 ]; then
		apt_entries | grep -E ' (bookworm|bookworm-updates|bookworm-security) ' |
			sort -u | grep .
		return
	fi
	apt_entries | awk -v suites="$*" '
		{
			opt = ""; i = 2
			if ($2 ~ /^\[/) { opt = " " $2; i = 3 }
			sec = $(i + 1) ~ /-security$/
			if (!(sec in uri)) { uri[sec] = $i; signed[sec] = opt }
		}
		END {
			if (!(0 in uri)) uri[0] = "http://deb.debian.org/debian"
			if (!(1 in uri)) uri[1] = "http://deb.debian.org/debian-security"
			n = split(suites, s, " ")
			for (k = 1; k <= n; k++) {
				sec = s[k] ~ /-security$/
				printf "deb%s %s %s main\n", signed[sec], uri[sec], s[k]
			}
		}'
}

# arm64_tree ROOT RELEASE DIR: in DIR, a tree to build modules here for
# Debian's arm64 kernel RELEASE: its headers from the arm64 root ROOT
# (sysroot.sh), their build programs (scripts/, tools/: fixdep, modpost,
# resolve_btfids) this machine's of the same version (linux-kbuild-*,
# which Debian's amd64 headers of that kernel bring). Prints the tree
# (make -C TREE M=... with DEB_HOST_ARCH=arm64
# DEB_HOST_GNU_TYPE=aarch64-linux-gnu: 6.1's headers take the cross
# compiler from these).
arm64_tree() {
	kb=$3
	if [ ! -e "$kb/ok" ]; then
		rm -rf "$kb"
		mkdir -p "$kb"
		[ -d "$1/usr/src/linux-headers-$2" ] ||
			die "arm64: no headers of $2 in $1"
		cp -a "$1/usr/src/linux-headers-$2" "$kb/arch"
		common=$(sed -n 's|^include /usr/src/\(.*\)/Makefile$|\1|p' \
			"$kb/arch/Makefile")
		[ -n "$common" ] && cp -a "$1/usr/src/$common" "$kb/common" ||
			die "arm64: no common headers for $2"
		kbuild=$(readlink "$kb/common/scripts" |
			sed 's|.*/lib/\([^/]*\)/scripts$|\1|')
		[ -d "/usr/lib/$kbuild" ] ||
			die "arm64: no /usr/lib/$kbuild, the build programs of $2 for this machine (apt-get install $kbuild)"
		for t in "$kb/arch" "$kb/common"; do
			for d in scripts tools; do
				[ ! -L "$t/$d" ] || ln -sfn "/usr/lib/$kbuild/$d" "$t/$d"
			done
		done
		echo "include $kb/common/Makefile" >"$kb/arch/Makefile"
		touch "$kb/ok"
	fi
	echo "$kb/arch"
}
