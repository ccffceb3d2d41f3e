#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkbad.py GOOD.o OUTDIR - damaged copies of a little-endian ELF64 object
for sfu-gen's bad-input cases.  Each is one damage, named by its file:

  trunc-eh.o     .eh_frame's section size cut to end inside its second entry
  cie-version.o  the first CIE's version byte set to 9
  cie-pointer.o  the first FDE's CIE pointer aimed before the section
  half.o         the file cut in half (section headers outside the file)
  elf32.o        EI_CLASS says 32-bit
  arm.o          e_machine says EM_ARM (40)
"""
import struct, sys

good, out = sys.argv[1], sys.argv[2]
b = bytearray(open(good, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)

def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)

stroff = shdr(shstrndx)[4]
eh = None
for i in range(shnum):
    name = shdr(i)[0]
    n = b[stroff + name:b.index(0, stroff + name)].decode()
    if n == '.eh_frame':
        eh = i
assert eh is not None, 'no .eh_frame in ' + good
_, _, _, _, ehoff, ehsize, _, _, _, _ = shdr(eh)
cie_len, = struct.unpack_from('<I', b, ehoff)
fde = ehoff + 4 + cie_len

def write(name, data):
    open(out + '/' + name, 'wb').write(data)

x = bytearray(b)  # size field of the .eh_frame header: ends inside the FDE
struct.pack_into('<Q', x, shoff + 64 * eh + 32, fde - ehoff + 12)
write('trunc-eh.o', x)
x = bytearray(b)
x[ehoff + 8] = 9
write('cie-version.o', x)
x = bytearray(b)
struct.pack_into('<I', x, fde + 4, 0x7fff0000)
write('cie-pointer.o', x)
write('half.o', b[:len(b) // 2])
x = bytearray(b)
x[4] = 1
write('elf32.o', x)
x = bytearray(b)
struct.pack_into('<H', x, 0x12, 40)
write('arm.o', x)
