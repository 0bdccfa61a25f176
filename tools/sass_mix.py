#!/usr/bin/env python3
"""The multiply mix of the kernels in a cubin, without a GPU or cuobjdump.

The device kernels are bound by the FMA-heavy pipe's wide multiply-adds
(docs/PERFORMANCE.md, "Where the time goes"), so a change to the field
arithmetic is judged first by how many of each it leaves, and by what it puts
on the FP64 pipe beside them (docs/PERFORMANCE.md, "Products on the FP64
pipe"). This reads the ELF sections .text.<kernel> of a cubin built for sm_90
and classifies each 128-bit instruction by the low 9 bits of its first word,
its opcode; bits 9 to 11 give the form of the last source operand (register,
immediate, constant bank), which does not matter here. The opcodes, as
cuobjdump showed them for these kernels (the FP64 ones from kernels of one
instruction each):

    0x025  IMAD.WIDE      0x027  IMAD.HI     0x024  IMAD (the low half, and
    0x010  IADD3          0x007  SEL                moves written as IMAD)
    0x02b  DFMA           0x029  DADD

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
    0x025: "WIDE", 0x027: "HI", 0x024: "IMAD", 0x010: "IADD3", 0x007: "SEL",
    0x02B: "DFMA", 0x029: "DADD",
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
            mix[KINDS.get(word & 0x1FF, "other")] += 1
        kinds = ("WIDE", "HI", "IMAD", "IADD3", "SEL", "DFMA", "DADD", "other")
        parts = " ".join(f"{k} {mix[k]}" for k in kinds)
        print(f"{name[6:]}\n    {len(body) // 16} instructions: {parts}")


if __name__ == "__main__":
    main()
