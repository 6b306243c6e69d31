# SPDX-License-Identifier: GPL-2.0
# bash completion for ddfctl(8): commands, the keywords of rule add, size
# and replay and their enumerated values, rule names, files.
#
# The word lists follow tools/ddfctl/parse.c and ddfctl.c;
# tests/tools/test_completion.sh compares them with what ddfctl accepts.

_ddfctl_kinds="apbf apbbf qht qhtd qqhtd sqf sbf a2 bdbf cuckoo rsbf bsbf bsbfsd rlbsbf exact shf cshf queue"
_ddfctl_inet_hooks="prerouting input forward output postrouting none"
_ddfctl_netdev_hooks="ingress egress none"
_ddfctl_hooks="prerouting input forward output postrouting ingress egress none"
_ddfctl_families="ip ip6 inet netdev"
_ddfctl_protos="tcp udp udplite sctp icmp icmpv6"
_ddfctl_actions="drop count mark"
_ddfctl_hashes="siphash13 siphash24"
_ddfctl_key_fields="saddr daddr proto sport dport ipid tcpseq tcpack icmpid payload"
_ddfctl_ignores="ttl ipv4csum dscp ecn ipid flowlabel l4csum vlan mac"
_ddfctl_decaps="vxlan geneve gre erspan gtpu"
_ddfctl_rule_words="family hook priority dev iif oif proto key payload ignore max-bytes decap filter window fpr memory cpus tune shape seed hash action"
_ddfctl_size_words="filter window fpr memory cpus tune"
_ddfctl_commands="rule show stats save restore apply size replay advise xdp help"
_ddfctl_xdp_commands="attach detach show"
_ddfctl_rule_commands="add del reset flush"

# COMPREPLY: the words of $1 that start with $2, one a line (file names
# may hold spaces)
_ddfctl_reply()
{
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

# The rules of the namespace, from `ddfctl save`: nothing without the module.
_ddfctl_rule_names()
{
	"${COMP_WORDS[0]}" save 2>/dev/null |
		while read -r w1 w2 name rest; do
			[ "$w1 $w2" = "rule add" ] && printf '%s\n' "$name"
		done
}

# FIELD[,FIELD...]: complete the part after the last comma, leaving out
# the fields already listed.
_ddfctl_list()
{
	local cur=$1 words=$2 extra=$3 head="" last=$1 w left=""

	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	else
		words="$words $extra"
	fi
	for w in $words; do
		[[ ,$head == *,"$w",* ]] || left="$left $w"
	done
	mapfile -t COMPREPLY < <(compgen -P "$head" -W "$left" -- "$last")
	# a list goes on after a comma: no space behind a completed field
	compopt -o nospace 2>/dev/null
}

# The family given on the line so far, or nothing.
_ddfctl_family()
{
	local i

	for ((i = 1; i + 1 < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = family ]; then
			printf '%s' "${COMP_WORDS[i + 1]}"
			return
		fi
	done
}

_ddfctl_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

# The value of keyword $1 of rule add, size or replay; 1 when $1 takes none.
_ddfctl_value()
{
	local kw=$1 cur=$2 replay=$3

	case $kw in
	family) _ddfctl_reply "$_ddfctl_families" "$cur" ;;
	hook)
		# a hook word means something in its family
		case $(_ddfctl_family) in
		netdev) _ddfctl_reply "$_ddfctl_netdev_hooks" "$cur" ;;
		ip | ip6 | inet) _ddfctl_reply "$_ddfctl_inet_hooks" "$cur" ;;
		*) _ddfctl_reply "$_ddfctl_hooks" "$cur" ;;
		esac
		;;
	proto) _ddfctl_reply "$_ddfctl_protos" "$cur" ;;
	filter) _ddfctl_reply "$_ddfctl_kinds" "$cur" ;;
	hash) _ddfctl_reply "$_ddfctl_hashes" "$cur" ;;
	tune) _ddfctl_reply "speed memory" "$cur" ;;
	action) _ddfctl_reply "$_ddfctl_actions" "$cur" ;;
	key) _ddfctl_list "$cur" "$_ddfctl_key_fields" "packet frame" ;;
	ignore) _ddfctl_list "$cur" "$_ddfctl_ignores" "none" ;;
	decap) _ddfctl_list "$cur" "$_ddfctl_decaps" "none" ;;
	# a netdev rule's devices, a list; iif and oif take one
	dev) _ddfctl_list "$cur" "$(ls /sys/class/net 2>/dev/null)" "" ;;
	iif | oif)
		_ddfctl_reply "$(ls /sys/class/net 2>/dev/null)" "$cur"
		;;
	priority | payload | max-bytes | window | fpr | memory | cpus | shape | seed)
		COMPREPLY=() # a number or a shape: nothing to offer
		;;
	*) return 1 ;;
	esac
	return 0
}

# Keywords of rule add, size or replay from word $1 on: the value of the
# keyword before the cursor, or the keywords not given yet.
_ddfctl_keywords()
{
	local from=$1 all=$2 replay=$3 cur=${COMP_WORDS[COMP_CWORD]}
	local i w used=" " left=""

	for ((i = from; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -n "$replay" ] && [[ $w == -[wWl] ]]; then
			if ((i + 1 == COMP_CWORD)); then
				_ddfctl_files "$cur"
				return
			fi
			((i++))
			continue
		fi
		[[ " $all " == *" $w "* ]] || continue
		used="$used$w "
		# a word alone, without a value
		[ "$w" = exclusive ] && continue
		if ((i + 1 == COMP_CWORD)); then
			_ddfctl_value "$w" "$cur" "$replay" && return
		fi
		((i++)) # the keyword's value
		# action mark VALUE[/MASK]: one word more
		if [ "$w" = action ] && [ "${COMP_WORDS[i]}" = mark ]; then
			((i + 1 == COMP_CWORD)) && return
			((i++))
		fi
	done
	if [ -n "$replay" ] && [[ $cur == -* ]]; then
		_ddfctl_reply "-w -W -l --help" "$cur"
		return
	fi
	for w in $all; do
		[[ $used == *" $w "* ]] || left="$left $w"
	done
	_ddfctl_reply "$left" "$cur"
}

_ddfctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i=1 j cmd sub

	COMPREPLY=()
	# redirections: restore < FILE, save > FILE
	case $prev in
	'<' | '>' | '>>')
		_ddfctl_files "$cur"
		return
		;;
	-o | --output)
		_ddfctl_reply "text json prometheus" "$cur"
		return
		;;
	esac
	# the global options come before the command, -o with its FORMAT
	while ((i < COMP_CWORD)) && [[ ${COMP_WORDS[i]} == -* ]]; do
		[[ ${COMP_WORDS[i]} == -o || ${COMP_WORDS[i]} == --output ]] &&
			((i++))
		((i++))
	done
	if ((i == COMP_CWORD)); then
		if [[ $cur == -* ]]; then
			_ddfctl_reply "-j --json -o --output -n --dry-run -h --help" "$cur"
		else
			_ddfctl_reply "$_ddfctl_commands" "$cur"
		fi
		return
	fi
	cmd=${COMP_WORDS[i]}
	case $cmd in
	rule)
		if ((i + 1 == COMP_CWORD)); then
			_ddfctl_reply "$_ddfctl_rule_commands" "$cur"
			return
		fi
		sub=${COMP_WORDS[i + 1]}
		case $sub in
		add)
			# NAME is new: nothing to offer but the help
			if ((i + 2 == COMP_CWORD)); then
				[[ $cur == -* ]] &&
					_ddfctl_reply "--help" "$cur"
				return
			fi
			_ddfctl_keywords $((i + 3)) "$_ddfctl_rule_words"
			;;
		del)
			((i + 2 == COMP_CWORD)) &&
				_ddfctl_reply "$(_ddfctl_rule_names)" "$cur"
			;;
		reset)
			if ((i + 2 == COMP_CWORD)); then
				_ddfctl_reply "$(_ddfctl_rule_names)" "$cur"
			elif ((i + 3 == COMP_CWORD)); then
				_ddfctl_reply "filter" "$cur"
			fi
			;;
		esac
		;;
	show | stats)
		((i + 1 == COMP_CWORD)) &&
			_ddfctl_reply "$(_ddfctl_rule_names)" "$cur"
		;;
	size)
		if [[ $cur == -* ]] && ((i + 1 == COMP_CWORD)); then
			_ddfctl_reply "--help" "$cur"
			return
		fi
		_ddfctl_keywords $((i + 1)) "$_ddfctl_size_words"
		;;
	xdp)
		if ((i + 1 == COMP_CWORD)); then
			_ddfctl_reply "$_ddfctl_xdp_commands --help" "$cur"
			return
		fi
		sub=${COMP_WORDS[i + 1]}
		case $prev in
		dev) _ddfctl_reply "$(ls /sys/class/net 2>/dev/null)" "$cur" ;;
		rule) _ddfctl_reply "$(_ddfctl_rule_names)" "$cur" ;;
		mode) _ddfctl_reply "native generic" "$cur" ;;
		# ddf's default, then xdp-filter's, libxdp's AF_XDP and default
		priority) _ddfctl_reply "5 10 20 50" "$cur" ;;
		*)
			case $sub in
			attach)
				_ddfctl_keywords $((i + 2)) \
					"dev rule mode priority exclusive"
				# priority or exclusive: one of them
				for j in "${COMP_WORDS[@]:i+2}"; do
					[[ $j == priority || $j == exclusive ]] || continue
					for j in "${!COMPREPLY[@]}"; do
						[[ ${COMPREPLY[j]} == priority ||
							${COMPREPLY[j]} == exclusive ]] &&
							unset 'COMPREPLY[j]'
					done
					COMPREPLY=("${COMPREPLY[@]}")
					break
				done
				;;
			detach)
				((i + 2 == COMP_CWORD)) &&
					_ddfctl_reply "dev all" "$cur"
				;;
			esac
			;;
		esac
		;;
	restore | apply)
		# [--wait SECONDS] [--against SAVED] (apply -n) [FILE]
		case $prev in
		--wait) return ;;
		--against) _ddfctl_files "$cur" ;;
		*)
			if [[ $cur == -* ]]; then
				if [[ $cmd == apply ]]; then
					_ddfctl_reply "--wait --against" "$cur"
				else
					_ddfctl_reply "--wait" "$cur"
				fi
			else
				_ddfctl_files "$cur"
			fi
			;;
		esac
		;;
	advise)
		# captures, -c COUNT, -l LOG
		case $prev in
		-c) return ;;
		-l)
			_ddfctl_files "$cur"
			return
			;;
		esac
		if [[ $cur == -* ]]; then
			_ddfctl_reply "-c -l -j --help" "$cur"
		else
			_ddfctl_files "$cur"
		fi
		;;
	replay)
		# the capture first, '-' for standard input
		if ((i + 1 == COMP_CWORD)); then
			if [[ $cur == -* ]]; then
				_ddfctl_reply "--help" "$cur"
			else
				_ddfctl_files "$cur"
			fi
			return
		fi
		_ddfctl_keywords $((i + 2)) "$_ddfctl_rule_words" replay
		# more captures (one per port) until the first keyword
		[[ $cur == -* || $prev == -[wWl] ]] && return
		for ((j = i + 2; j < COMP_CWORD; j++)); do
			if [[ ${COMP_WORDS[j]} == -[wWl] ]]; then
				((j++))
				continue
			fi
			[[ " $_ddfctl_rule_words " == *" ${COMP_WORDS[j]} "* ]] &&
				return
		done
		compopt -o filenames 2>/dev/null
		mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
		;;
	esac
}

complete -F _ddfctl ddfctl
