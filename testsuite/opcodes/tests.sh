# SPDX-License-Identifier: GPL-2.0
#
# The io_uring opcodes are one table (lib/opcodes.def); what names them
# must agree with what the binary says of them, ./uringcheck --list-ops:
# its own form, the kernel's uapi header, and docs/hazards.md's table.
# Sourced by testsuite/run.sh (pass, fail, want, $UC, $TMP).

# The table as the binary lists it, read by each test below (a filter
# may run any one of them alone).
$UC --list-ops >"$TMP/ops.list" 2>&1
if want "opcodes: --list-ops"; then
	# four tab-separated fields, numbers dense from 0, names unique
	bad=$(awk -F'\t' 'NF != 4 || $1 != NR - 1 || $2 !~ /^[A-Z][A-Z0-9_]*$/ ||
		$3 !~ /^(stores|loads|copied|none|driver)$/ || $4 !~ /^(always|maybe)$/ ||
		seen[$2]++ { print }' "$TMP/ops.list")
	n=$(wc -l <"$TMP/ops.list")
	if [ -z "$bad" ] && [ "$n" -ge 59 ]; then
		pass "opcodes: --list-ops: $n opcodes, one well-formed line each"
	else
		printf '%s\n' "$bad" >"$TMP/ops.bad"
		fail "opcodes: --list-ops" "malformed lines or fewer than 59 opcodes" "$TMP/ops.bad"
	fi
fi

if want "opcodes: against the uapi header"; then
	# Every IORING_OP_ the installed kernel header names is in the table
	# under the same number (the table may know newer ones).
	hdr=/usr/include/linux/io_uring.h
	printf '#include <linux/io_uring.h>\n' |
		cpp -dD - 2>/dev/null | sed -n '/enum io_uring_op/,/}/p' |
		grep -oE 'IORING_OP_[A-Z0-9_]+' | grep -v IORING_OP_LAST |
		sed 's/^IORING_OP_//' | awk '{ print NR - 1 "\t" $1 }' >"$TMP/ops.uapi"
	cut -f1,2 "$TMP/ops.list" >"$TMP/ops.ours"
	missing=$(grep -vxFf "$TMP/ops.ours" "$TMP/ops.uapi")
	if [ ! -s "$TMP/ops.uapi" ]; then
		fail "opcodes: against the uapi header" "could not read enum io_uring_op from $hdr"
	elif [ -z "$missing" ]; then
		pass "opcodes: every opcode of $hdr in the table, same numbers ($(wc -l <"$TMP/ops.uapi"))"
	else
		printf '%s\n' "$missing" >"$TMP/ops.missing"
		fail "opcodes: against the uapi header" "not in lib/opcodes.def as numbered" "$TMP/ops.missing"
	fi
fi

if want "opcodes: docs/hazards.md"; then
	# the table's rows: | # | `NAME` | memory | io-wq | judged |
	sed -n 's/^| \([0-9]*\) | `\([A-Z0-9_]*\)` | \([a-z]*\) | \([a-z]*\) | .*/\1\t\2\t\3\t\4/p' \
		docs/hazards.md >"$TMP/ops.docs"
	if diff -u "$TMP/ops.list" "$TMP/ops.docs" >"$TMP/ops.diff"; then
		pass "opcodes: docs/hazards.md's table is --list-ops ($(wc -l <"$TMP/ops.docs") rows)"
	else
		fail "opcodes: docs/hazards.md" "its table differs from --list-ops" "$TMP/ops.diff"
	fi
fi

if want "opcodes: unjudged"; then
	# A request of an opcode that holds user memory but whose range the
	# checker does not read is counted and said at exit, never silent.
	cc -O2 -Wall -o "$TMP/unjudged_op" testsuite/opcodes/unjudged_op.c -luring
	"$TMP/unjudged_op"
	rc=$?
	if [ "$rc" = 77 ]; then
		pass "opcodes: unjudged: skipped, this kernel has no PIPE opcode"
	else
		$UC --json="$TMP/unjudged.json" "$TMP/unjudged_op" >"$TMP/unjudged.out" 2>&1
		rc=$?
		if [ "$rc" = 0 ] &&
		   grep -q 'WARNING: uringcheck: 1 requests of opcodes whose memory is not judged' "$TMP/unjudged.out" &&
		   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["summary"]["counters"]["requests_of_unjudged_opcodes"] == 1, d["summary"]' \
			"$TMP/unjudged.json" 2>>"$TMP/unjudged.out"; then
			pass "opcodes: unjudged: a PIPE request is counted and said at exit"
		else
			fail "opcodes: unjudged" "exit $rc, or no count" "$TMP/unjudged.out"
		fi
	fi
fi
