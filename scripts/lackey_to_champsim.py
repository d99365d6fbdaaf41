#!/usr/bin/env python3
"""Turn a Valgrind Lackey capture (valgrind --tool=lackey --trace-mem=yes) into a ChampSim trace.

Usage: lackey_to_champsim.py [--skip N] [--count N] < lackey.txt > trace.champsimtrace

Every `I` record becomes one 64-byte ChampSim `input_instr`; the `L`, `S` and `M` records after
it are its source and destination memory operands (at most 4 and 2; `M` is both). An
instruction followed by one that does not start where it ends becomes a taken branch (reads the
instruction pointer and the flags, writes the instruction pointer), which is how ChampSim
recognises a conditional branch. Lackey shows neither not-taken branches nor registers, so
the trace has no register dependences: a trace for checking caches, not for timing studies.
--skip drops the first N instructions, --count stops after N (0 = all).
"""
import argparse
import struct
import sys

REG_FLAGS = 25
REG_INSTRUCTION_POINTER = 26
RECORD = struct.Struct("<QBB2B4B2Q4Q")  # ChampSim's input_instr: 64 bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--count", type=int, default=0)
    args = parser.parse_args()
    out = sys.stdout.buffer
    pending = None  # [ip, size, sources, destinations]
    seen = written = 0

    def emit(instr, next_ip):
        ip, size, src, dst = instr
        taken = next_ip is not None and next_ip != ip + size
        src = (src + [0, 0, 0, 0])[:4]
        dst = (dst + [0, 0])[:2]
        if taken:
            regs_dst = (REG_INSTRUCTION_POINTER, 0)
            regs_src = (REG_INSTRUCTION_POINTER, REG_FLAGS, 0, 0)
        else:
            regs_dst = (0, 0)
            regs_src = (0, 0, 0, 0)
        out.write(RECORD.pack(ip, 1 if taken else 0, 1 if taken else 0, *regs_dst, *regs_src, *dst, *src))

    for raw in sys.stdin.buffer:
        if raw.startswith(b"I"):
            fields = raw[1:].strip().split(b",")
            ip = int(fields[0], 16)
            if pending is not None:
                seen += 1
                if seen > args.skip:
                    emit(pending, ip)
                    written += 1
                    if args.count and written >= args.count:
                        return
            pending = [ip, int(fields[1]), [], []]
        elif pending is not None and raw[:1] == b" " and raw[1:2] in (b"L", b"S", b"M"):
            kind = raw[1:2]
            address = int(raw[2:].strip().split(b",")[0], 16)
            if kind in (b"L", b"M") and len(pending[2]) < 4:
                pending[2].append(address)
            if kind in (b"S", b"M") and len(pending[3]) < 2:
                pending[3].append(address)
    if pending is not None and seen + 1 > args.skip and not (args.count and written >= args.count):
        emit(pending, None)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        pass
