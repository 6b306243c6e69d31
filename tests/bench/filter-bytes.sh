#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The memory of the first rule's filter, from ddfctl -j show on stdin: the
# "bytes" of its "filter" object. A netdev rule's devices come before the
# filter and have "bytes" of their own (traffic), so the first "bytes" of
# the output is not the filter's. The filter object nests nothing, and no
# name holds '"filter": {' (names have no space), so its first '}' ends it.
# Usage: ddfctl -j show RULE | filter-bytes.sh
tr -d '\n' | awk '{
	i = index($0, "\"filter\": {")
	if (!i)
		exit 1
	s = substr($0, i)
	s = substr(s, 1, index(s, "}"))
	if (!match(s, /"bytes": [0-9]+/))
		exit 1
	print substr(s, RSTART + 9, RLENGTH - 9)
}'
