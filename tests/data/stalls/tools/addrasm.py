"""Prefixes the instruction lines of an IGC .asm listing with their
addresses, as unitrace's scripts/metrics/addrasm.py does: an instruction
line does not start with // but holds //; the address grows by 8 after a
line holding "Compacted", by 16 after any other.

    python3 addrasm.py body.asm > listing.asm
"""
import sys
ip=0
for row in open(sys.argv[1]):
    if not row.startswith("//") and "//" in row:
        sys.stdout.write("/* [%08X] */ " % ip + row)
        ip += 8 if "Compacted" in row else 16
    else:
        sys.stdout.write(row)
