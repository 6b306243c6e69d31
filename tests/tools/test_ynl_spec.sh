#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Test that uapi/ddf.yaml, the family's YNL spec, describes uapi/linux/ddf.h:
#
# 1. the spec validates against the kernel's JSON schema for its protocol
#    (Documentation/netlink/genetlink-legacy.yaml; the YNL library checks
#    it when it loads a spec);
# 2. ynl-gen-c.py renders a uAPI header from it (--mode uapi), the kernel's
#    policies and ops (--mode kernel) and a user library (--mode user), which
#    compiles against uapi/linux/ddf.h;
# 3. every constant of the rendered header (enum values and defines) has the
#    value uapi/linux/ddf.h gives it, and every constant of uapi/linux/ddf.h
#    is in the rendered header or is one of the counters the generator does
#    not render, which the spec still determines: __<PREFIX>MAX of an enum
#    (its last value + 1), __<PREFIX>ALL of flags (their mask) and
#    <CMD PREFIX>UNSPEC (0, when no command takes it);
# 4. the rendered kernel policies agree with nf_ddf/nf_ddf_policy.c: every
#    attribute the kernel takes is in a request of the spec, with the same
#    type, check and bounds. Attributes the kernel rejects (pads, reply
#    only) are skipped; a validation function (the rule's name) is a check
#    the spec cannot express, so there only the type and a string's length
#    are compared.
#
# The values are compared by compiling one program that prints each name's
# value twice: once with the rendered header, once with uapi/linux/ddf.h,
# each in its own translation unit, so that the two never clash.
#
# The YNL tools and schemas come from the Debian package linux-source-6.12:
# only tools/net/ynl and Documentation/netlink are extracted, into
# BUILD_DIR/ynl, once (again when missing or when the tarball is newer).
#
# Usage: tests/tools/test_ynl_spec.sh [BUILD_DIR]
# DDF_LINUX_SOURCE_TAR: the kernel source tarball to take the tools from.
set -e

B=${1:-build}
TAR=${DDF_LINUX_SOURCE_TAR:-/usr/src/linux-source-6.12.tar.xz}
SPEC=uapi/ddf.yaml
UAPI=uapi/linux/ddf.h
POLICY=nf_ddf/nf_ddf_policy.c
CC=${CC:-gcc}
# Debian's interpreter, the one python3-yaml and python3-jsonschema serve.
PY=${DDF_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -f "$SPEC" ] || fail "$SPEC is missing (run from the top of the tree)"
[ -f "$TAR" ] || fail "$TAR is missing (package linux-source-6.12: make setup)"
"$PY" -c 'import yaml, jsonschema' 2>/dev/null ||
	fail "$PY lacks yaml or jsonschema (python3-yaml python3-jsonschema: make setup)"

export LC_ALL=C

# The kernel's YNL tools, extracted once.
top=$(basename "$TAR" .tar.xz)
K=$B/ynl/$top
stamp=$K/.ddf-extracted
if [ ! -f "$stamp" ] || [ "$TAR" -nt "$stamp" ] ||
	[ ! -f "$K/tools/net/ynl/ynl-gen-c.py" ] ||
	[ ! -d "$K/Documentation/netlink/specs" ]; then
	echo "ynl spec: extracting tools/net/ynl and Documentation/netlink from $TAR"
	rm -rf "$K"
	mkdir -p "$B/ynl"
	tar -xJf "$TAR" -C "$B/ynl" "$top/tools/net/ynl" \
		"$top/Documentation/netlink"
	# ynl-gen-c.py finds the kernel tree by its MAINTAINERS file.
	: >"$K/MAINTAINERS"
	touch "$stamp"
fi
K=$(cd "$K" && pwd)

W=$B/ynl/ddf
rm -rf "$W"
mkdir -p "$W"
W=$(cd "$W" && pwd)

# Where the kernel keeps its specs: the YNL library looks for the schema
# next to the specs directory.
KSPEC=$K/Documentation/netlink/specs/ddf.yaml
cp "$SPEC" "$KSPEC"

# 1. Schema validation, and the counters the generator does not render.
if ! "$PY" - "$K" "$KSPEC" >"$W/private.h" 2>"$W/validate.err" <<'EOF'
import sys
import yaml

kdir, spec = sys.argv[1], sys.argv[2]
sys.path.insert(0, kdir + '/tools/net/ynl')
from lib import SpecFamily

with open(spec) as f:
    raw = yaml.safe_load(f)
proto = raw.get('protocol', 'genetlink')
schema = f'{kdir}/Documentation/netlink/{proto}.yaml'
fam = SpecFamily(spec, schema)  # raises on a schema violation


def up(s):
    return s.upper().replace('-', '_')


for d in raw.get('definitions', []):
    if d.get('header') or d.get('scope', 'uapi') != 'uapi':
        continue
    if d['type'] not in ('enum', 'flags') or d.get('render-max'):
        continue
    pfx = up(d.get('name-prefix', f"{fam.name}-{d['name']}-"))
    enum = fam.consts[d['name']]
    if d['type'] == 'enum':
        top = max(e.value for e in enum.entries.values())
        print(f'#define __{pfx}MAX {top + 1}')
    else:
        print(f'#define __{pfx}ALL {enum.get_mask()}')
ops = raw['operations']
if all(op.value != 0 for op in fam.msgs.values()):
    pfx = up(ops.get('name-prefix', f"{fam.name}-cmd-"))
    print(f'#define {pfx}UNSPEC 0')
EOF
then
	tail -n 5 "$W/validate.err"
	fail "$SPEC does not load (schema or spec error above)"
fi

# 2. The generator, in every mode.
gen() {
	if ! timeout 120 "$PY" "$K/tools/net/ynl/ynl-gen-c.py" --spec "$KSPEC" \
		"$@" >"$W/gen.log" 2>&1; then
		tail -n 5 "$W/gen.log"
		fail "ynl-gen-c.py $* failed on $SPEC"
	fi
}
gen --mode uapi --header -o "$W/ddf-uapi.h"
gen --mode kernel --header -o "$W/ddf-nl.h"
gen --mode kernel --source -o "$W/ddf-nl.c"
# The 6.12 generator renders no request setter for an indexed-array
# (devs): the user library is rendered from a copy whose requests leave it
# out. Every other mode, and the checks below, take the spec whole.
USPEC=$K/Documentation/netlink/specs/ddf-user.yaml
sed '/^            - devs$/d' "$SPEC" >"$USPEC"
grep -q 'type: indexed-array' "$USPEC" || fail "no devs in $SPEC"
KSPEC_ALL=$KSPEC
KSPEC=$USPEC
gen --mode user --header -o "$W/ddf-user.h"
gen --mode user --source -o "$W/ddf-user.c"
KSPEC=$KSPEC_ALL
CF=(-std=gnu11 -Wall -Werror)
# The user library compiles against the real uAPI header.
$CC "${CF[@]}" -c -I"$W" -I"$K/tools/net/ynl/lib" -Iuapi "$W/ddf-user.c" \
	-o "$W/ddf-user.o" || fail "the user code of $SPEC does not build with $UAPI"

# 3. The names each header defines: enum constants and valued defines.
names() {
	"$PY" - "$1" <<'EOF'
import re
import sys

text = open(sys.argv[1]).read()
text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
text = re.sub(r'//[^\n]*', ' ', text)
names = []
for m in re.finditer(r'^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+\S', text, re.M):
    names.append(m.group(1))
for body in re.findall(r'\benum\b[^{;]*\{([^}]*)\}', text):
    for item in body.split(','):
        m = re.match(r'\s*([A-Za-z_]\w*)', item)
        if m:
            names.append(m.group(1))
for n in sorted(set(names)):
    print(n)
EOF
}
names "$W/ddf-uapi.h" >"$W/gen.names"
names "$W/private.h" >"$W/private.names"
names "$UAPI" >"$W/uapi.names"

bad=0
# The spec's constants that the uAPI header lacks.
missing=$(comm -23 "$W/gen.names" "$W/uapi.names")
if [ -n "$missing" ]; then
	echo "$SPEC defines what $UAPI does not:" $missing # one line
	bad=1
fi
# The uAPI header's constants that the spec lacks.
sort -u "$W/gen.names" "$W/private.names" >"$W/spec.names"
extra=$(comm -13 "$W/spec.names" "$W/uapi.names")
if [ -n "$extra" ]; then
	echo "$UAPI defines what $SPEC does not:" $extra # one line
	bad=1
fi
[ $bad = 0 ] || fail "$SPEC and $UAPI name different constants"

# The private counters are compared where the uAPI header has them.
comm -12 "$W/private.names" "$W/uapi.names" |
	sort -u - "$W/gen.names" >"$W/all.names"

{
	cat <<'EOF'
#include <stdio.h>
static void ps(const char *n, const char *v) { printf("%s \"%s\"\n", n, v); }
static void pi(const char *n, long long v) { printf("%s %lld\n", n, v); }
#define P(x) _Generic((x) + 0, char *: ps, const char *: ps, \
	default: pi)(#x, (x))
int main(void)
{
EOF
	sed 's/.*/	P(&);/' "$W/all.names"
	printf '\treturn 0;\n}\n'
} >"$W/values.c"

$CC "${CF[@]}" -include "$W/ddf-uapi.h" -include "$W/private.h" "$W/values.c" \
	-o "$W/values-spec" || fail "cannot compile the rendered header's values"
$CC "${CF[@]}" -include "$UAPI" "$W/values.c" -o "$W/values-uapi" ||
	fail "cannot compile $UAPI's values"
"$W/values-spec" >"$W/values-spec.txt"
"$W/values-uapi" >"$W/values-uapi.txt"

if ! cmp -s "$W/values-spec.txt" "$W/values-uapi.txt"; then
	echo "constant: $SPEC's value, $UAPI's value"
	join "$W/values-spec.txt" "$W/values-uapi.txt" |
		awk '$2 != $3 { print "  " $1 ": " $2 ", " $3 }'
	fail "$SPEC and $UAPI disagree"
fi

# 4. The attribute policies the generator renders for the kernel against
# the module's: type, check and bounds of every attribute. The bounds are
# C expressions on both sides, evaluated by the compiler.
if ! "$PY" - "$POLICY" "$W/ddf-nl.c" "$W/policy.c" >"$W/policy.txt" <<'EOF'
import re
import sys

kernel_src, gen_src, c_out = sys.argv[1:4]


def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def split_top(s, sep=','):
    """Split s at sep outside parentheses and braces."""
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '({':
            depth += 1
        elif ch in ')}':
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def ranges(text):
    found = {}
    pat = (r'struct\s+netlink_range_validation(?:_signed)?\s+(\w+)\s*=\s*'
           r'\{(.*?)\}\s*;')
    for m in re.finditer(pat, text, re.S):
        fields = {}
        for f in split_top(m.group(2)):
            fm = re.match(r'\.(\w+)\s*=\s*(.+)$', f, re.S)
            if fm:
                fields[fm.group(1)] = fm.group(2).strip()
        found[m.group(1)] = fields
    return found


def entries(text):
    """[ATTR] = expr in policy arrays, expr up to a top-level , or }."""
    found = {}
    for m in re.finditer(r'\[\s*(DDF_\w+)\s*\]\s*=\s*', text):
        i, depth, expr = m.end(), 0, ''
        while i < len(text):
            ch = text[i]
            if ch in '({':
                depth += 1
            elif ch in ')}':
                if depth == 0:
                    break
                depth -= 1
            elif ch == ',' and depth == 0:
                break
            expr += ch
            i += 1
        found[m.group(1)] = ' '.join(expr.split())
    return found


def canon(expr, rng):
    """(type, check, [bound expressions]) of a policy entry."""
    m = re.match(r'NLA_POLICY_(\w+)\((.*)\)$', expr)
    if m:
        what, args = m.group(1), split_top(m.group(2))
        if what == 'VALIDATE_FN':
            # its third argument, when there, is the length a string's is
            return args[0], 'validate-fn', args[2:3]
        if what == 'NESTED':
            return 'NLA_NESTED', 'nested', []
        if what in ('EXACT_LEN', 'MIN_LEN', 'MAX_LEN'):
            return 'NLA_BINARY', what.lower().replace('_', '-'), args
        if what == 'MAX' and args[0].startswith('NLA_U'):
            return args[0], 'range', ['0', args[1]]
        if what in ('FULL_RANGE', 'FULL_RANGE_SIGNED'):
            r = rng.get(args[1].lstrip('&').strip(), {})
            return args[0], 'range', [r.get('min', '0'), r.get('max', '0')]
        return args[0], what.lower(), args[1:]
    m = re.match(r'\{(.*)\}$', expr)
    if m:
        fields = {}
        for f in split_top(m.group(1)):
            fm = re.match(r'\.(\w+)\s*=\s*(.+)$', f)
            if fm:
                fields[fm.group(1)] = fm.group(2).strip()
        t = fields.get('type', '?')
        if t == 'NLA_REJECT':
            return t, 'reject', []
        if 'len' in fields:
            return t, 'len', [fields['len']]
        return t, 'plain', []
    return '?', expr, []


def arrays(text):
    """{policy array: [its attribute names]}"""
    found = {}
    pat = r'struct\s+nla_policy\s+(\w+)\s*\[[^\]]*\]\s*=\s*\{(.*?)\}\s*;'
    for m in re.finditer(pat, text, re.S):
        found[m.group(1)] = re.findall(r'\[\s*(DDF_\w+)\s*\]', m.group(2))
    return found


ktext, gtext = strip(open(kernel_src).read()), strip(open(gen_src).read())
kr, gr = ranges(ktext), ranges(gtext)
kern = {n: canon(e, kr) for n, e in entries(ktext).items()}
gentries = entries(gtext)
gen = {n: canon(e, gr) for n, e in gentries.items()}

# A set the spec nests only under attributes the kernel rejects (a
# device's stats: reply only) has no kernel policy of its own to match.
reply_only = set()
for arr, names in arrays(gtext).items():
    refs = [n for n, e in gentries.items()
            if re.match(r'NLA_POLICY_NESTED\(\s*' + arr + r'\s*\)', e)]
    if refs and all(kern.get(r, ('', ''))[1] == 'reject' for r in refs):
        reply_only.update(names)

# The 6.12 generator renders an indexed-array as a type the kernel lacks
# (NLA_INDEXED_ARRAY); the kernel spells one as a nest whose entries
# 1 .. max each take the entry's nested policy.
for n, g in gen.items():
    if g[0] == 'NLA_INDEXED_ARRAY' and kern.get(n, ('',))[0] == 'NLA_NESTED':
        gen[n] = kern[n]

bad, checks, n = [], [], 0
for name in sorted(set(kern) | set(gen)):
    k, g = kern.get(name), gen.get(name)
    if k and k[1] == 'reject':
        n += 1          # reply only or pad: nothing to send
        continue
    if not k and name in reply_only:
        n += 1
        continue
    if not k:
        bad.append(f'{name}: the spec takes it, the kernel has no policy')
        continue
    if not g:
        bad.append(f'{name}: the kernel takes it, no request of the spec')
        continue
    if k[1] == 'validate-fn':
        # a check the spec cannot express: the type (and a string's
        # length) must agree
        k = (k[0], 'len' if k[2] else 'plain', k[2])
    if k[0] != g[0] or k[1] != g[1] or len(k[2]) != len(g[2]):
        bad.append(f'{name}: kernel {k[0]} {k[1]}, spec {g[0]} {g[1]}')
        continue
    n += 1
    for i, (ke, ge) in enumerate(zip(k[2], g[2])):
        checks.append((f'{name} {k[1]}[{i}]', ke, ge))
for b in bad:
    print(b)

with open(c_out, 'w') as c:
    c.write('#include <stdio.h>\n#include <net/if.h>\n')
    c.write('#include "ddf_filter.h"\n#include "ddf_key.h"\n')
    c.write('#include "linux/ddf.h"\n\n')
    c.write('int main(void)\n{\n\tint bad = 0;\n\n')
    for what, ke, ge in checks:
        c.write(f'\tif ((long long)({ke}) != (long long)({ge})) {{\n')
        c.write(f'\t\tprintf("{what}: kernel %lld, spec %lld\\n",\n')
        c.write(f'\t\t       (long long)({ke}), (long long)({ge}));\n')
        c.write('\t\tbad = 1;\n\t}\n')
    c.write(f'\tprintf("{n}\\n");\n\treturn bad;\n}}\n')
sys.exit(1 if bad else 0)
EOF
then
	sed 's/^/  /' "$W/policy.txt"
	fail "$SPEC and $POLICY disagree on the attributes above"
fi
$CC "${CF[@]}" -Iddf_core -Iddf_core/env/user -Iuapi "$W/policy.c" \
	-o "$W/policy" || fail "cannot compile the policy bounds"
if ! "$W/policy" >"$W/policy.txt"; then
	grep -v '^[0-9]*$' "$W/policy.txt" | sed 's/^/  /'
	fail "$SPEC and $POLICY disagree on the bounds above"
fi

n=$(wc -l <"$W/all.names")
np=$(tail -n 1 "$W/policy.txt")
echo "ynl spec: $n constants match $UAPI, $np attribute policies match $POLICY"
