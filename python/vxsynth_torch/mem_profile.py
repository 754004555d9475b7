#!/usr/bin/env python3
"""Attributes a vxsim memory profile (VXSIM_MEM_PROFILE / vxsim --mem-profile, docs/vxsim.md
"Memory profile") to what the kernel does with memory, using the kernel's symbols and disassembly.

    python3 -m vxsynth_torch.mem_profile PROFILE.tsv KERNEL.elf [--launch N] [--top K] [--objdump PATH]

Classes (in this order; the first that matches):
  fetch          instruction fetches (the profile's fetch line)
  sdk            an access in an SDK / C-library function (startup, TLS set-up, vx_spawn_threads,
                 memset/memcpy, exit, printing): the symbol names below
  tls            an access relative to tp (blockIdx/threadIdx/__local_group_id, per lane)
  stack-saves    an sp-relative access of a callee-saved register (ra, s0-s11, fs0-fs11) that
                 executes as often as the function's first sp-relative store, i.e. once per call
                 (prologue saves, epilogue restores)
  stack-spills   any other sp-relative access (spills and reloads)
  stack-arrays   other accesses whose lanes address the per-hart stacks (stack_lanes): arrays kept
                 in memory and reached through a pointer (WMMA fragments staged through memory)
  operand-loads  other loads of the kernel's functions (inputs, partial sums read back)
  output-stores  other stores of the kernel's functions (outputs, partial sums)
  amo            atomics
Prints one row per class (DRAM bytes and their share, D-cache requests, read misses) and the K
PCs with the most DRAM bytes. Launch N only when --launch is given, else all launches.
"""
import argparse
import bisect
import collections
import re
import subprocess
import sys

SDK_SYMBOL = re.compile(
    r"^(_start|_exit|_Exit|exit|main_exit|__vx_.*|vx_.*|block_body|thread_body|balanced_range|plan_.*|run_schedule|"
    r"memset|memcpy|memmove|__libc_.*|__init_tls|atexit|__call_exitprocs|__register_exitproc|_fini|_init|"
    r".*printf.*|_write|__sfputc.*|__l?stdio.*)$")
CALLEE_SAVED = re.compile(r"^(ra|s[0-9]|s1[01]|fs[0-9]|fs1[01])$")
PROG = "vxsynth_torch.mem_profile"
# The columns the classification reads (vxsim's MemProfile::header, docs/vxsim.md "Memory profile").
COLUMNS = ("launch", "pc", "instruction", "kind", "warp_instrs", "lane_accesses", "stack_lanes", "l1_requests",
           "l1_read_misses", "dram_read_bytes", "dram_write_bytes")
BASE = re.compile(r"^\S+\s+([a-z0-9]+),\s*-?\d*\((\w+)\)")


def objdump_output(args, elf, objdump):
    """objdump's stdout for `args` on `elf`; exits with objdump's own message when it fails."""
    try:
        done = subprocess.run([objdump, *args, elf], capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit(f"{PROG}: {objdump} not found (--objdump names the riscv objdump)")
    if done.returncode != 0:
        sys.exit(f"{PROG}: {objdump} {' '.join(args)} {elf} failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def symbols(elf, objdump):
    """Sorted (address, name) of the ELF's code symbols (sections .init and .text*), from objdump -t."""
    syms = set()
    for line in objdump_output(["-t"], elf, objdump).splitlines():
        m = re.match(r"^([0-9a-f]{8,16}) .{7} (\.init|\.text\S*)\s+[0-9a-f]+\s+(\S+)$", line)
        if m and m.group(3) != m.group(2) and not m.group(3).startswith("$"):
            syms.add((int(m.group(1), 16), m.group(3)))
    if not syms:
        sys.exit(f"{PROG}: {elf} has no code symbols (give the kernel's .elf, not its .vxbin)")
    return sorted(syms)


def check_same_program(rows, elf, objdump):
    """Exits when the profile's instructions are not the ELF's at the same PCs (another kernel's ELF)."""
    code = {}
    for line in objdump_output(["-d", "--no-show-raw-insn"], elf, objdump).splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)", line)
        if m:
            code[int(m.group(1), 16)] = m.group(2)
    named = [r for r in rows if r["pc"] != "fetch"]
    differ = [r for r in named if code.get(int(r["pc"], 16)) != r["instruction"].split()[0]]
    if named and 4 * len(differ) > len(named):
        r = differ[0]
        sys.exit(f"{PROG}: {len(differ)} of the profile's {len(named)} instructions are not {elf}'s at the same PC "
                 f"(e.g. {r['pc']}: profile '{r['instruction']}', ELF '{code.get(int(r['pc'], 16), 'nothing')}'): "
                 "the profile was made with another kernel")


def read_profile(path, launch):
    """The profile's rows (launch `launch` only, when given) as dicts; exits naming the file and line of a
    missing column or a short row, and the launches the profile has when `launch` is not one of them."""
    try:
        with open(path, encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"{PROG}: {path}: cannot read a memory profile: {e}")
    header = lines[0].split("\t") if lines else []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        sys.exit(f"{PROG}: {path}:1: not a vxsim memory profile (no column {', '.join(missing)})")
    rows, launches = [], set()
    for n, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            sys.exit(f"{PROG}: {path}:{n}: {len(fields)} fields, the header has {len(header)}")
        r = dict(zip(header, fields))
        launches.add(r["launch"])
        if launch is None or r["launch"] == str(launch):
            rows.append(r)
    if not rows:
        have = ", ".join(sorted(launches, key=int)) if launches else "none"
        sys.exit(f"{PROG}: {path}: no rows" + (f" of launch {launch} (launches: {have})" if launch is not None else ""))
    return rows


def classify(rows, syms):
    """Adds 'func' and 'cls' to every row."""
    addrs = [a for a, _ in syms]
    first_store = {}  # (launch, func) -> warp_instrs of its first sp-relative store
    for r in rows:
        r["dram"] = int(r["dram_read_bytes"]) + int(r["dram_write_bytes"])
        if r["pc"] == "fetch":
            r["func"], r["base"], r["reg"] = "-", "", ""
            continue
        pc = int(r["pc"], 16)
        i = bisect.bisect_right(addrs, pc) - 1
        r["func"] = syms[i][1] if i >= 0 else "?"
        m = BASE.match(r["instruction"])
        r["reg"], r["base"] = (m.group(1), m.group(2)) if m else ("", "")
        key = (r["launch"], r["func"])
        if r["base"] == "sp" and r["kind"] == "store" and key not in first_store:
            first_store[key] = int(r["warp_instrs"])  # rows are in ascending PC order
    for r in rows:
        if r["pc"] == "fetch":
            r["cls"] = "fetch"
        elif SDK_SYMBOL.match(r["func"]):
            r["cls"] = "sdk"
        elif r["kind"] == "amo":
            r["cls"] = "amo"
        elif r["base"] == "tp":
            r["cls"] = "tls"
        elif r["base"] != "sp" and 2 * int(r["stack_lanes"]) > int(r["lane_accesses"]):
            r["cls"] = "stack-arrays"
        elif r["base"] == "sp":
            calls = first_store.get((r["launch"], r["func"]))
            saved = CALLEE_SAVED.match(r["reg"]) and int(r["warp_instrs"]) == calls
            r["cls"] = "stack-saves" if saved else "stack-spills"
        else:
            r["cls"] = "operand-loads" if r["kind"] == "load" else "output-stores"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("elf")
    ap.add_argument("--launch", type=int)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--objdump", default="riscv64-unknown-elf-objdump")
    a = ap.parse_args()
    rows = read_profile(a.profile, a.launch)
    check_same_program(rows, a.elf, a.objdump)
    classify(rows, symbols(a.elf, a.objdump))
    total = sum(r["dram"] for r in rows) or 1
    agg = collections.OrderedDict((c, collections.Counter()) for c in (
        "operand-loads", "output-stores", "stack-spills", "stack-saves", "stack-arrays", "tls", "sdk", "amo", "fetch"))
    for r in rows:
        c = agg[r["cls"]]
        for k in ("warp_instrs", "lane_accesses", "l1_requests", "l1_read_misses", "dram_read_bytes",
                  "dram_write_bytes"):
            c[k] += int(r[k])
        c["dram"] += r["dram"]
    print(f"{'class':<14} {'warp instrs':>13} {'L1 requests':>13} {'L1 rd miss':>12} {'DRAM read B':>15} "
          f"{'DRAM write B':>15} {'share':>6}")
    for cls, c in agg.items():
        print(f"{cls:<14} {c['warp_instrs']:>13} {c['l1_requests']:>13} {c['l1_read_misses']:>12} "
              f"{c['dram_read_bytes']:>15} {c['dram_write_bytes']:>15} {100.0 * c['dram'] / total:>5.1f}%")
    print(f"{'total':<14} {'':>13} {'':>13} {'':>12} {'':>15} {'':>15} {total:>8} B")
    print(f"\ntop {a.top} instructions by DRAM bytes:")
    for r in sorted(rows, key=lambda r: -r["dram"])[: a.top]:
        print(f"  L{r['launch']} {r['pc']:<10} {r['func'][:28]:<28} {r['instruction'][:30]:<30} {r['cls']:<13} "
              f"instrs={r['warp_instrs']} req={r['l1_requests']} miss={r['l1_read_misses']} "
              f"dram={r['dram']} ({100.0 * r['dram'] / total:.1f}%)")


if __name__ == "__main__":
    main()
