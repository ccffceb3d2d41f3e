#!/usr/bin/env python3
"""mksframe.py GOOD.o OUTDIR - copies of a little-endian ELF64 file with a
.sframe section, for sfu-dump's section-type and ABI cases.  Each is one
change, named by its file:

  progbits.o     .sframe's type SHT_GNU_SFRAME (0x6ffffff4) -> SHT_PROGBITS:
                 the same section as earlier binutils typed it
  gnu-sframe.o   .sframe's type SHT_PROGBITS -> SHT_GNU_SFRAME
  nobits.o       .sframe's type -> SHT_NOBITS (a debug-info file's)
  abi-unknown.o  the header's ABI/arch byte set to 9, an id binutils does
                 not define (SFrame V3 spec 2.2.1)
"""
import struct, sys

good, out = sys.argv[1], sys.argv[2]
b = bytearray(open(good, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)

def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)

stroff = shdr(shstrndx)[4]
sf = [i for i in range(shnum)
      if b[stroff + shdr(i)[0]:b.index(0, stroff + shdr(i)[0])] == b'.sframe']
assert sf, 'no .sframe in ' + good
sf = sf[0]
typ = shdr(sf)[1]
off = shdr(sf)[4]

def with_type(t):
    x = bytearray(b)
    struct.pack_into('<I', x, shoff + 64 * sf + 4, t)
    return x

open(out + '/progbits.o', 'wb').write(with_type(1))
open(out + '/gnu-sframe.o', 'wb').write(with_type(0x6ffffff4))
open(out + '/nobits.o', 'wb').write(with_type(8))
x = bytearray(b)
x[off + 4] = 9
open(out + '/abi-unknown.o', 'wb').write(x)
