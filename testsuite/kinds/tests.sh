# SPDX-License-Identifier: GPL-2.0
#
# The hazard kinds are one table (checker/kinds/kinds.def); everything
# that names them must agree with what the binary says of them,
# ./uringcheck --list-kinds ($KIND_LIST, read by run.sh): its own form,
# --help's sentence, README's table, the man page's HAZARDS, and what a
# run without --fail-on does with each kind.
# Sourced by testsuite/run.sh (pass, fail, want, header, $UC, $BIN, $TMP,
# $KIND_LIST).

# "name severity" lines, sorted: the kinds and their defaults.
kinds_defaults() { awk -F'\t' '{ print $1, $2 }' <<<"$KIND_LIST" | sort; }

if want "kinds: --list-kinds"; then
	# four tab-separated fields; error exactly when failing by default;
	# every name once
	bad=$(awk -F'\t' 'NF != 4 || $1 !~ /^[a-z][a-z-]*$/ || $2 !~ /^(error|warning)$/ ||
		($3 == "yes") != ($2 == "error") || $4 == "" || seen[$1]++ { print }' <<<"$KIND_LIST")
	n=$(wc -l <<<"$KIND_LIST")
	if [ -z "$bad" ] && [ "$n" -ge 1 ]; then
		pass "kinds: --list-kinds: $n kinds, one well-formed line each"
	else
		printf '%s\n' "$bad" >"$TMP/kinds.bad"
		fail "kinds: --list-kinds" "malformed lines" "$TMP/kinds.bad"
	fi
fi

if want "kinds: --help"; then
	# "...it causes: a, b (errors) and c, d (warnings); ...", wrapped
	$UC --help | tr '\n' ' ' >"$TMP/kinds.help"
	help_kinds() { grep -oE "$1" "$TMP/kinds.help" | sed -E "$2" | tr -d ' ' | tr ',' '\n' | sort; }
	help_err=$(help_kinds 'causes: [a-z, -]+ \(errors\)' 's/^causes: //; s/ \(errors\)$//')
	help_warn=$(help_kinds '\(errors\) and [a-z, -]+ \(warnings\)' 's/^\(errors\) and //; s/ \(warnings\)$//')
	list_err=$(awk -F'\t' '$2 == "error" { print $1 }' <<<"$KIND_LIST" | sort)
	list_warn=$(awk -F'\t' '$2 == "warning" { print $1 }' <<<"$KIND_LIST" | sort)
	if [ -n "$help_err" ] && [ "$help_err" = "$list_err" ] && [ "$help_warn" = "$list_warn" ]; then
		pass "kinds: --help names the errors and warnings --list-kinds gives"
	else
		printf 'help errors: %s\nlist errors: %s\nhelp warnings: %s\nlist warnings: %s\n' \
			"$(echo $help_err)" "$(echo $list_err)" "$(echo $help_warn)" "$(echo $list_warn)" >"$TMP/kinds.diff"
		fail "kinds: --help" "its kinds differ from --list-kinds" "$TMP/kinds.diff"
	fi
fi

if want "kinds: docs"; then
	# README: "| `name` | error |"; the man page: ".BR name " (error)""
	sed -nE 's/^\| `([a-z-]+)` \| (error|warning) \|.*/\1 \2/p' README.md | sort >"$TMP/kinds.readme"
	sed -nE 's/^\.BR ([a-z\\-]+) " \((error|warning)\)"$/\1 \2/p' docs/uringcheck.1 |
		sed 's/\\-/-/g' | sort >"$TMP/kinds.man"
	kinds_defaults >"$TMP/kinds.list"
	if cmp -s "$TMP/kinds.list" "$TMP/kinds.readme" && cmp -s "$TMP/kinds.list" "$TMP/kinds.man"; then
		pass "kinds: docs: README's table and the man page's HAZARDS list the kinds of --list-kinds, with their defaults"
	else
		{ echo "README (<: --list-kinds, >: README.md)"; diff "$TMP/kinds.list" "$TMP/kinds.readme"
		  echo "man page (<: --list-kinds, >: docs/uringcheck.1)"; diff "$TMP/kinds.list" "$TMP/kinds.man"; } >"$TMP/kinds.diff"
		fail "kinds: docs" "differ from --list-kinds" "$TMP/kinds.diff"
	fi
fi

if want "kinds: a run without --fail-on"; then
	# For every kind, one injection of exactly that kind (testsuite/cases,
	# its own options and arguments, none that sets the status otherwise):
	# it exits 66 exactly when --list-kinds says the kind fails by default.
	: >"$TMP/kinds.runs"
	nbad=0
	while IFS=$'\t' read -r k _ fails _; do
		src=""
		for c in testsuite/cases/inj_*.c; do
			[ "$(header "$c" expect)" = "$k" ] || continue
			case $(header "$c" status) in ""|0|66) src=$c; break ;; esac
		done
		if [ -z "$src" ]; then
			echo "$k: no injection of this kind alone in testsuite/cases" >>"$TMP/kinds.runs"
			nbad=$((nbad + 1))
			continue
		fi
		name=$(basename "$src" .c)
		# shellcheck disable=SC2046
		timeout 30 $UC --keep-warm=0 --log-file="$TMP/kinds.$name.log" $(header "$src" options | tr ',' ' ') \
			-- "$BIN/$name" $(header "$src" args | tr ',' ' ') >/dev/null 2>&1
		rc=$?
		want_rc=0
		[ "$fails" = yes ] && want_rc=66
		if [ "$rc" != "$want_rc" ] || ! grep -qE "(ERROR|WARNING): uringcheck: $k:" "$TMP/kinds.$name.log"; then
			echo "$k (fails by default: $fails): $name exited $rc, expected $want_rc" >>"$TMP/kinds.runs"
			nbad=$((nbad + 1))
		fi
	done <<<"$KIND_LIST"
	if [ "$nbad" = 0 ]; then
		pass "kinds: a run without --fail-on exits 66 for exactly the kinds --list-kinds marks as failing ($FAIL_KINDS)"
	else
		fail "kinds: a run without --fail-on" "$nbad of $(wc -l <<<"$KIND_LIST") kinds wrong" "$TMP/kinds.runs"
	fi
fi
