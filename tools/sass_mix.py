#!/usr/bin/env python3
"""The integer multiply mix of the kernels in a cubin, without a GPU or cuobjdump.

The device kernels are bound by the FMA-heavy pipe's wide multiply-adds
(docs/PERFORMANCE.md, "Where the time goes"), so a change to the field
arithmetic is judged first by how many of each it leaves. This reads the ELF
sections .text.<kernel> of a cubin built for sm_90 and classifies each 128-bit
instruction by the low 12 bits of its first word, the opcode and operand form
as cuobjdump showed them for these kernels:

    0x225 / 0x825 / 0xc25  IMAD.WIDE  (register / immediate / constant-bank b)
    0x227 / 0x827 / 0xc27  IMAD.HI
    0x224 / 0x824 / 0xc24  IMAD       (the low half, and moves written as IMAD)
    0x210 / 0x810          IADD3
    0x207 / 0x807          SEL

The .X (carry) and .U32 modifiers live in the upper word and are not told
apart. A split pair (IMAD + IMAD.HI where one IMAD.WIDE would do) shows as
IMAD and HI counts growing together.

    nvcc -cubin --generate-code=arch=compute_90,code=sm_90 -O2 -DNDEBUG -std=c++17 \\
        -DZKP_HAVE_X86_ASM=1 -Iinclude -Isrc -o ntt.cubin src/gpu/bls12_381_fr_ntt.cu
    tools/sass_mix.py ntt.cubin level_kernel
"""
import collections
import struct
import sys

KINDS = {
    0x225: "WIDE", 0x825: "WIDE", 0xC25: "WIDE",
    0x227: "HI", 0x827: "HI", 0xC27: "HI",
    0x224: "IMAD", 0x824: "IMAD", 0xC24: "IMAD",
    0x210: "IADD3", 0x810: "IADD3",
    0x207: "SEL", 0x807: "SEL",
}


def sections(path):
    """(name, bytes) of every section of a 64-bit little-endian ELF file."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    for h in headers:
        end = data.index(b"\0", names + h[0])
        yield data[names + h[0]:end].decode(), data[h[4]:h[4] + h[5]]


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sass_mix.py FILE.cubin [SUBSTRING OF A KERNEL NAME]")
    want = sys.argv[2] if len(sys.argv) > 2 else ""
    for name, body in sections(sys.argv[1]):
        if not name.startswith(".text.") or want not in name or len(body) % 16:
            continue
        mix = collections.Counter()
        for off in range(0, len(body), 16):
            (word,) = struct.unpack_from("<Q", body, off)
            mix[KINDS.get(word & 0xFFF, "other")] += 1
        parts = " ".join(f"{k} {mix[k]}" for k in ("WIDE", "HI", "IMAD", "IADD3", "SEL", "other"))
        print(f"{name[6:]}\n    {len(body) // 16} instructions: {parts}")


if __name__ == "__main__":
    main()
