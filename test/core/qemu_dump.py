#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""qemu_dump.py RECORD OUT - a memory dump in the ELF form of QEMU's
dump-guest-memory (ET_CORE, one PT_LOAD per RAM block, at its
guest-physical address p_paddr), with RECORD 0x100 bytes into a 64 KiB
block at physical 0x40000000, for test/core/run.sh."""
import struct
import sys

rec = open(sys.argv[1], "rb").read()
ram = bytearray(0x10000)
ram[0x100:0x100 + len(rec)] = rec
off = 0x1000
ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
# e_type ET_CORE 4, e_machine 62, e_version 1, e_entry, e_phoff, e_shoff,
# e_flags, e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx
ehdr = ident + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0)
# p_type PT_LOAD, p_flags RWX, p_offset, p_vaddr (0: no paging), p_paddr,
# p_filesz, p_memsz, p_align
phdr = struct.pack("<IIQQQQQQ", 1, 7, off, 0, 0x40000000, len(ram), len(ram), 0)
data = ehdr + phdr
data += bytes(off - len(data)) + ram
open(sys.argv[2], "wb").write(data)
