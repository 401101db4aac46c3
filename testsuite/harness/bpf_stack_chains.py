#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The deepest BPF-to-BPF call chain of every program in a BPF object, in
bytes of stack, as 6.1's verifier counts it (check_max_stack_depth):
each frame on the chain is its function's stack depth rounded up to 32
bytes (at least 32), a call (`call -1` relocated to a function of the
object) or a callback handed to a helper (`rN = OFF ll` relocated to
.text, a bpf_loop step) adds the callee's frame, and a chain over 512
bytes refuses the program at load time. Newer kernels count the same
limit differently (x86 gives tracing programs a private stack since
6.13), so a frame that grows on the host can pass there and still fail on
6.1: this check runs on the host, from the object alone.

A frame's depth is the deepest stack slot its code addresses
(`r10 - N`), which is what the verifier records for it.

  bpf_stack_chains.py OBJECT [--limit 512]

Prints each program's deepest chain, deepest first; exit 1 if one is over
the limit, 2 if the object cannot be read.
"""
import re
import subprocess
import sys

ROUND = 32


def objdump(args, obj):
    for tool in ("llvm-objdump-19", "llvm-objdump"):
        try:
            return subprocess.run([tool] + args + [obj], check=True,
                                  capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
    print("bpf_stack_chains: cannot disassemble %s (llvm-objdump)" % obj, file=sys.stderr)
    sys.exit(2)


def functions(obj):
    """name -> (section, offset); and .text offset -> name."""
    funcs, text_at = {}, {}
    for line in objdump(["-t"], obj).splitlines():
        m = re.match(r"^([0-9a-f]+)\s+\S+\s+F\s+(\S+)\s+[0-9a-f]+\s+(\S+)$", line)
        if m:
            off, sec, name = int(m.group(1), 16), m.group(2), m.group(3)
            funcs[name] = (sec, off)
            if sec == ".text":
                text_at[off] = name
    return funcs, text_at


def frames_and_calls(obj, funcs, text_at):
    depth, calls = {}, {}
    cur, last_insn = None, ""
    for line in objdump(["-d", "-r", "--no-show-raw-insn"], obj).splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1) if m.group(1) in funcs else None
            if cur:
                depth.setdefault(cur, 0)
                calls.setdefault(cur, set())
            continue
        if cur is None:
            continue
        r = re.search(r"R_BPF_64_(32|64)\s+(\S+)", line)
        if r:
            kind, sym = r.group(1), r.group(2)
            call = re.search(r"\bcall (-?(?:0x)?[0-9a-f]+)$", last_insn)
            imm = re.search(r"=\s*(-?(?:0x)?[0-9a-f]+) ll$", last_insn)
            if kind == "32" and call and int(call.group(1), 0) == -1 and sym in funcs:
                calls[cur].add(sym)
            elif kind == "64" and sym == ".text" and imm:
                if int(imm.group(1), 0) in text_at:
                    calls[cur].add(text_at[int(imm.group(1), 0)])
            continue
        if re.match(r"^\s+\d+:", line):
            last_insn = line.strip()
            for n in re.findall(r"r10 - (0x[0-9a-f]+|\d+)\)", line):
                depth[cur] = max(depth[cur], int(n, 0))
    return depth, calls


def frame(depth, f):
    return -(-max(depth.get(f, 0), 1) // ROUND) * ROUND


def deepest(f, depth, calls, memo, path=()):
    if f in path:		# BPF has no recursion; never loop here
        return 0, [f]
    if f in memo:
        return memo[f]
    best, chain = 0, []
    for c in calls.get(f, ()):
        d, ch = deepest(c, depth, calls, memo, path + (f,))
        if d > best:
            best, chain = d, ch
    memo[f] = (frame(depth, f) + best, [f] + chain)
    return memo[f]


def main():
    args = sys.argv[1:]
    limit = 512
    if "--limit" in args:
        i = args.index("--limit")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    funcs, text_at = functions(args[0])
    depth, calls = frames_and_calls(args[0], funcs, text_at)
    programs = [f for f, (sec, _) in funcs.items() if sec != ".text"]
    if not programs:
        print("bpf_stack_chains: no programs in %s" % args[0], file=sys.stderr)
        return 2
    memo, rows = {}, []
    for p in programs:
        d, chain = deepest(p, depth, calls, memo)
        rows.append((d, p, chain))
    rows.sort(key=lambda r: (-r[0], r[1]))
    over = 0
    for d, p, chain in rows:
        bad = d > limit
        over += bad
        print("%s %4d %s: %s" % ("OVER" if bad else "ok  ", d, p,
              " -> ".join("%s(%d)" % (f, frame(depth, f)) for f in chain)))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
