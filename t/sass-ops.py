#!/usr/bin/env python3
"""Count a few SASS opcodes in a cubin, per kernel, without cuobjdump.

    python3 t/sass-ops.py FILE.cubin [KERNEL]

For sm_90 code: 128-bit instructions, the opcode in the low 12 bits of the
first 64-bit word and the guard predicate in bits 12..15 (7 is PT, no guard).
Prints one line per kernel (or the one named): "KERNEL insts N OP=n ...",
a guarded opcode counted as "@OP".  t/7003-memory.bats uses it to see
whether ptxas predicated a block's loads or branched around them.
"""
import struct
import sys

OPS = {0x981: 'LDG', 0x986: 'STG', 0x984: 'LDS', 0x988: 'STS', 0x945: 'BSSY', 0x941: 'BSYNC', 0x947: 'BRA'}


def texts(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    for h in hdrs:
        name = data[names + h[0]:data.index(b'\0', names + h[0])].decode()
        if name.startswith('.text.'):
            yield name[6:], data[h[4]:h[4] + h[5]]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: sass-ops.py FILE.cubin [KERNEL]')
    try:
        with open(sys.argv[1], 'rb') as f:
            data = f.read()
    except OSError as e:
        sys.exit('sass-ops.py: %s: %s' % (sys.argv[1], e.strerror))
    if data[:4] != b'\x7fELF':
        sys.exit('sass-ops.py: %s: not an ELF file' % sys.argv[1])
    try:
        kernels = list(texts(data))
    except (struct.error, ValueError, OverflowError, IndexError):
        sys.exit('sass-ops.py: %s: truncated or corrupt ELF file' % sys.argv[1])
    for name, text in kernels:
        if len(sys.argv) == 3 and name != sys.argv[2]:
            continue
        count = {}
        for i in range(len(text) // 16):
            word, = struct.unpack_from('<Q', text, 16 * i)
            op = OPS.get(word & 0xfff)
            if op:
                key = op if (word >> 12) & 0xf == 7 else '@' + op
                count[key] = count.get(key, 0) + 1
        print(name, 'insts', len(text) // 16, ' '.join('%s=%d' % kv for kv in sorted(count.items())))


main()
