#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uringscope's pathology scenarios as an acceptance test
# (`make check-pathology`; testsuite/run.sh "profile: pathology" runs it
# when the source is there). Each scenario of uringscope's pathogen.c
# injects one io_uring pathology and prints GROUND-TRUTH lines; here it
# runs under `uringcheck --profile --check` and must be named by the rule
# or hazard kind of the table below. Findings beyond those are allowed
# only where the table says why (the pathogen commits them too); the
# doctor's `hazards` rule, which names any checker finding, always is.
#
# Nothing is fetched here: get-source.sh (make uringscope-src) clones
# uringscope and builds pathogen in .output/pathology first. Without it,
# this says so and exits 77 (skipped).
#
# Environment:
#   PATHOGEN=PATH        the injector (.output/pathology/pathogen)
#   SCENARIOS="a b"      only these
#   URINGCHECK=PATH      the checker (../../uringcheck)
#   PATHOLOGY_OUT=DIR    logs, JSON and table.md (.output/pathology/run)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
UC=${URINGCHECK:-$ROOT/uringcheck}
PG=${PATHOGEN:-$ROOT/.output/pathology/pathogen}
OUT=${PATHOLOGY_OUT:-$ROOT/.output/pathology/run}
PY=/usr/bin/python3

if [ ! -x "$PG" ]; then
	echo "pathology: skipped: $PG not built (make uringscope-src, or URINGSCOPE_SRC=DIR make uringscope-src)"
	exit 77
fi
[ -x "$UC" ] || { echo "pathology: $UC not built" >&2; exit 1; }
UC=$(realpath "$UC")		# the scenarios run from $OUT
mkdir -p "$OUT"
OUT=$(realpath "$OUT")

# scenario | pathogen args | must be named | may also be named, and why
#
# must: every name listed (a doctor rule or a hazard kind); also: names
# allowed beside them. The pathogen's punt and errors scenarios put 128
# reads into one buffer at once (a real overlap, which the checker names);
# sqpoll-stall reaps after its sleeps, which a loaded machine can stretch
# past the reap-lag threshold; leak's held reads end at the close.
CASES='
punt|2000|punt-ratio|overlap
nobatch|3000|batching|
overflow|1000|cq-overflow|
errors|500|error-flood|overlap
leak|16 2|left-in-flight|
sqpoll-stall|6|sqpoll-stall|reap-lag
worker-storm|64|worker-fan-out|
uaf-unmap||munmap-inflight|
uaf-reg||overlap bufreg-lifetime|
uaf-reg-lifetime||bufreg-lifetime|
reap-lag|800|reap-lag|
'

pass=0 failed=0
{
	echo "| scenario | ground truth (pathogen) | uringcheck names it | also named | result |"
	echo "|---|---|---|---|---|"
} >"$OUT/table.md"
while IFS='|' read -r name args must also; do
	[ -z "$name" ] && continue
	if [ -n "${SCENARIOS:-}" ] && [[ " $SCENARIOS " != *" $name "* ]]; then continue; fi
	log=$OUT/$name.log json=$OUT/$name.json
	rm -f "$json"
	# shellcheck disable=SC2086
	(cd "$OUT" && timeout 120 "$UC" --profile --check --json="$json" -- "$PG" "$name" $args) \
		>"$log" 2>&1
	rc=$?
	verdict=$("$PY" - "$json" "$log" "$must" "$also" "$rc" <<'PY'
import json, sys
path, log, must, also, rc = sys.argv[1:6]
must, also = set(must.split()), set(also.split())
truth = [l.split("GROUND-TRUTH ", 1)[1].strip() for l in open(log, errors="replace")
         if l.startswith("GROUND-TRUTH ")]
try:
    d = json.load(open(path))
except Exception as e:
    print("FAIL|no JSON (exit %s): %s|%s|" % (rc, e, truth[0] if truth else "-"))
    sys.exit()
found = {f["kind"] for f in d["findings"]}
hazard = any(f.get("rule_type") == "hazard" for f in d["findings"])
extra = found - must - also - ({"hazards"} if hazard else set())
missing = must - found
ok = truth and not missing and not extra and rc in ("0", "66")
why = []
if not truth: why.append("the injection printed no ground truth")
if missing: why.append("not named: " + " ".join(sorted(missing)))
if extra: why.append("unexpected: " + " ".join(sorted(extra)))
if rc not in ("0", "66"): why.append("exit " + rc)
print("%s|%s|%s|%s" % ("PASS" if ok else "FAIL", "; ".join(why),
      truth[0] if truth else "-", " ".join(sorted(found - must)) or "-"))
PY
)
	IFS='|' read -r res why truth others <<<"$verdict"
	printf '| `%s` | %s | %s | %s | %s |\n' "$name${args:+ $args}" "$truth" "$must" "$others" \
		"$res" >>"$OUT/table.md"
	if [ "$res" = PASS ]; then
		pass=$((pass + 1)); echo "PASS    $name: $must"
	else
		failed=$((failed + 1)); echo "FAIL    $name: $why (log: $log)"
	fi
done <<<"$CASES"
echo "pathology: $pass passed, $failed failed (pathogen from $(cat "$(dirname "$PG")/source" 2>/dev/null || echo "$PG"); table: $OUT/table.md)"
[ "$failed" = 0 ]
