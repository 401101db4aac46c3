#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Normalizes a run's text, JSON or SARIF so that two runs of one program
compare byte for byte: what differs from run to run (pids, addresses,
thread ids, timings, versions, absolute paths) becomes a placeholder;
everything else (kinds, sizes, opcodes, frames, wording) stays.

    normalize.py FILE   prints the normalized text
"""
import os
import re
import sys

text = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
# pids and thread ids, wherever they stand
text = re.sub(r"==\d+==", "==PID==", text)
text = re.sub(r"\b(pid|thread|tid|tgid) \d+", r"\1 N", text)
text = re.sub(r'"(pid|tid|tgid|thread)":\s*\d+', r'"\1":N', text)
text = re.sub(r"(pid|tid) \d+\)", r"\1 N)", text)
# addresses and offsets
text = re.sub(r"0x[0-9a-fA-F]+", "0xADDR", text)
text = re.sub(r'"(address|addr|start|end|pc|offset)":\s*\d+', r'"\1":N', text)
# a site's hash mixes in module offsets of frames with no symbol
text = re.sub(r'"uringcheckSite/v1":\s*"[0-9a-f]+"', '"uringcheckSite/v1":"H"', text)
# learned copy bounds and kept site frames (checker/stack_bounds.h): how
# many, and how many
# captures used one, depends on when the checker read the first capture
text = re.sub(r'"(stack_bounds_installed|stacks_bounded|stack_sites_kept|stacks_reused|stack_sites_relearned)":\s*\d+', r'"\1":N', text)
# hook runs the kernel skipped (a preempted program run, anyone's, on a
# preemptible kernel: docs/lost-events.md): machine-wide, not the case's
text = re.sub(r'"hook_runs_skipped":\s*\d+', '"hook_runs_skipped":N', text)
text = re.sub(r"==(\d+|PID)==uringcheck: note: the kernel skipped \d+ runs? of uringcheck's hooks[^\n]*\n", "", text)
# timings
text = re.sub(r"\d+(\.\d+)? (ms|s|us|ns)\b", r"T \2", text)
text = re.sub(r'"(\w*_(ns|ms|us|s)|duration\w*|time\w*|timestamp)":\s*[\d.]+', r'"\1":T', text)
text = re.sub(r'"startTimeUtc": "[^"]*"|"endTimeUtc": "[^"]*"', '"time": T', text)
# the running kernel's name (its tier stays)
text = re.sub(r"kernel [^ :]+: ", "kernel K: ", text)
# the tree the test runs from (any checkout), and /tmp names
text = text.replace(os.getcwd().rstrip("/") + "/", "/TREE/")
text = re.sub(r"/tmp/[\w./-]+", "/tmp/X", text)
text = re.sub(r"file://[^\"]*?/(testsuite|examples)/", r"file:///TREE/\1/", text)
sys.stdout.write(text)
