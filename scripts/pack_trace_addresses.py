#!/usr/bin/env python3
"""Pack a FlashSim-format trace's addresses: every 4 KiB unit the trace touches gets the next
free unit, in address order, so the trace's footprint becomes units 0 … F−1.

Why: a reproduction that sizes its device to what a trace touches (experiments/rosa.toml, whose
PCM share and migration budget are shares of the capacity) needs the trace's units inside that
capacity. Folding addresses (``host.out_of_range = "wrap"``) would alias distinct units onto one
and invent re-reads; packing is a bijection on the touched units that keeps every request, its
time, size and kind, which requests touch the same unit, and the address order of the units
(a run of adjacent units stays adjacent). Only the gaps between touched units go.

Usage: python scripts/pack_trace_addresses.py IN.trace.gz OUT.trace.gz

Input and output are FlashSim lines ``time_ms device vaddr size op`` (vaddr in 512-byte sectors,
size in 4 KiB pages; docs/traces.md); the output is gzip with no name or time in its header, so
the same input gives the same bytes.
"""

from __future__ import annotations

import gzip
import io
import sys

SECTORS_PER_UNIT = 8  # 4 KiB units of 512-byte sectors


def pack(lines: list[str]) -> list[str]:
    rows = [line.split() for line in lines if line.strip()]
    touched: set[int] = set()
    for _, _, vaddr, size, _ in rows:
        first = int(vaddr) // SECTORS_PER_UNIT
        last = (int(vaddr) + int(size) * SECTORS_PER_UNIT - 1) // SECTORS_PER_UNIT
        touched.update(range(first, last + 1))
    dense = {u: i for i, u in enumerate(sorted(touched))}
    out = []
    for time, device, vaddr, size, op in rows:
        v = int(vaddr)
        # A request's units are all touched, so they stay contiguous; the offset within the
        # first unit is kept.
        packed = dense[v // SECTORS_PER_UNIT] * SECTORS_PER_UNIT + v % SECTORS_PER_UNIT
        out.append(f"{time}\t{device}\t{packed}\t{size}\t{op}\n")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[2])
    with gzip.open(argv[1], "rt") as f:
        out = pack(f.readlines())
    with open(argv[2], "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as z:
            z.write("".join(out).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
