#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkbad.py [--sframe] GOOD.o OUTDIR - changed copies of a little-endian
ELF64 file for the bad-input cases of sfu-gen and sfu-dump.  Each is one
change, named by its file:

  trunc-eh.o     .eh_frame's section size cut to end inside its second entry
  cie-version.o  the first CIE's version byte set to 9
  cie-pointer.o  the first FDE's CIE pointer aimed before the section
  code-align.o   the first CIE's code alignment factor set to 0
  half.o         the file cut in half (section headers outside the file)
  elf32.o        EI_CLASS says 32-bit
  arm.o          e_machine says EM_ARM (40)

With --sframe, of a file with a .sframe section:

  progbits.o     .sframe typed SHT_PROGBITS, as binutils before 2.45 did
  gnu-sframe.o   .sframe typed SHT_GNU_SFRAME (0x6ffffff4), binutils >= 2.45
  nobits.o       .sframe typed SHT_NOBITS (a debug-info file's)
  abi-unknown.o  the header's ABI/arch byte set to 9, an id binutils does
                 not define (SFrame V3 spec 2.2.1)
"""
import struct, sys

sframe = sys.argv[1] == '--sframe'
good, out = sys.argv[1 + sframe], sys.argv[2 + sframe]
b = bytearray(open(good, 'rb').read())
shoff, = struct.unpack_from('<Q', b, 0x28)
shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)

def shdr(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)

def section(want):
    stroff = shdr(shstrndx)[4]
    for i in range(shnum):
        name = shdr(i)[0]
        if b[stroff + name:b.index(0, stroff + name)].decode() == want:
            return i
    sys.exit('mkbad.py: no %s in %s' % (want, good))

def write(name, data):
    open(out + '/' + name, 'wb').write(data)

def with_type(sec, t):
    x = bytearray(b)
    struct.pack_into('<I', x, shoff + 64 * sec + 4, t)
    return x

if sframe:
    sf = section('.sframe')
    write('progbits.o', with_type(sf, 1))
    write('gnu-sframe.o', with_type(sf, 0x6ffffff4))
    write('nobits.o', with_type(sf, 8))
    x = bytearray(b)
    x[shdr(sf)[4] + 4] = 9
    write('abi-unknown.o', x)
    sys.exit(0)

eh = section('.eh_frame')
ehoff = shdr(eh)[4]
cie_len, = struct.unpack_from('<I', b, ehoff)
fde = ehoff + 4 + cie_len

x = bytearray(b)  # size field of the .eh_frame header: ends inside the FDE
struct.pack_into('<Q', x, shoff + 64 * eh + 32, fde - ehoff + 12)
write('trunc-eh.o', x)
x = bytearray(b)
x[ehoff + 8] = 9
write('cie-version.o', x)
x = bytearray(b)
struct.pack_into('<I', x, fde + 4, 0x7fff0000)
write('cie-pointer.o', x)
x = bytearray(b)  # after the version byte and the augmentation string
x[b.index(0, ehoff + 9) + 1] = 0
write('code-align.o', x)
write('half.o', b[:len(b) // 2])
x = bytearray(b)
x[4] = 1
write('elf32.o', x)
x = bytearray(b)
struct.pack_into('<H', x, 0x12, 40)
write('arm.o', x)
