#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Preparation step for `make check-pathology` (run once, needs the network):
# clones uringscope (its test/pathology/pathogen.c injects io_uring
# pathologies and prints their ground truth) into .output/uringscope-src
# at a fixed commit, and builds pathogen in .output/pathology. Nothing of
# uringscope is committed; run.sh fetches nothing.
#
#   testsuite/pathology/get-source.sh                      # clone + build
#   URINGSCOPE_SRC=/path/to/tree testsuite/pathology/get-source.sh   # build that tree
#   URINGSCOPE_URL=URL URINGSCOPE_REV=COMMIT ...           # another clone
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/.output
URL=${URINGSCOPE_URL:-https://github.com/rch0wdhury/uringscope}
# the commit the table in docs/profile.md was measured at
REV=${URINGSCOPE_REV:-5cf0cab56fcb2f5243bfa0ea2ee6e209b6331502}

src=${URINGSCOPE_SRC:-}
if [ -z "$src" ]; then
	src=$OUT/uringscope-src
	command -v git >/dev/null || { echo "get-source.sh: git missing" >&2; exit 1; }
	if [ ! -d "$src/.git" ]; then
		rm -rf "$src.tmp"
		echo "  GIT      $URL"
		git clone -q "$URL" "$src.tmp" || {
			echo "get-source.sh: cannot clone $URL (offline? URINGSCOPE_SRC=DIR uses a copy)" >&2
			rm -rf "$src.tmp"; exit 1; }
		mv "$src.tmp" "$src"
	fi
	git -C "$src" -c advice.detachedHead=false checkout -q "$REV" || {
		echo "get-source.sh: commit $REV not in $src (URINGSCOPE_REV=...)" >&2; exit 1; }
fi
pg=$src/test/pathology/pathogen.c
[ -f "$pg" ] || { echo "get-source.sh: $pg not found" >&2; exit 1; }
mkdir -p "$OUT/pathology"
echo "  CC       pathogen (from $pg)"
cc -O2 -o "$OUT/pathology/pathogen" "$pg" -luring || {
	echo "get-source.sh: building pathogen failed" >&2; exit 1; }
echo "$(git -C "$src" rev-parse HEAD 2>/dev/null || echo "$src")" >"$OUT/pathology/source"
echo "  OK       $OUT/pathology/pathogen"
