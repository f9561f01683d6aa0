#!/usr/bin/env python3
"""Convert a Heimdall/FlashNet "msr.cut" trace to MQSim's ASCII trace format.

Input lines (whitespace-separated, 5 fields), e.g. `0.000 0 11562803200 4096 1`:

    arrival_ms device offset_bytes size_bytes op(1=read, 0=write)

This is the layout ssdlab reads as described columns
`time_ms=1 offset_bytes=3 size_bytes=4 op=5 read=1 write=0` (traces/PROVENANCE.md).

- arrival_ms: decimal milliseconds.  Output ns = the decimal value * 1e6, rounded to the
  nearest ns with exact integer arithmetic (as ssdlab's parse_decimal_ns), then rebased
  so the earliest request is at 0 (as ssdlab's loader does; the file already starts at 0).
- offset_bytes, size_bytes: start sector = floor(offset / 512), size in sectors covers
  [offset, offset + size) (= ceil(size / 512) when the offset is sector-aligned).
- device: written as 0 (MQSim does not interpret it).
- op: 1 -> 1 (read), 0 -> 0 (write); anything else is refused.

Requests are sorted by time (stable) if the file is not in order, as ssdlab's loader
does.  Input may be plain text or gzip.  Pure standard library.
"""
import argparse
import gzip
import sys

SECTOR = 512
NS_PER_MS = 1_000_000


def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, "r", encoding="utf-8", newline="")


def decimal_ms_to_ns(s):
    whole, _, frac = s.partition(".")
    if not (whole or frac) or not (whole + frac).isdigit():
        raise ValueError(f"{s!r} is not a non-negative decimal number")
    ns = int(whole or "0") * NS_PER_MS
    if frac:
        den = 10 ** len(frac)
        ns += (int(frac) * NS_PER_MS + den // 2) // den
    return ns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="Heimdall trace (plain or .gz)")
    ap.add_argument("-o", "--output", required=True, help="MQSim ASCII trace to write")
    a = ap.parse_args()

    reqs = []
    with open_text(a.input) as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 5:
                sys.exit(f"{a.input}:{line_no}: expected 5 fields, got {len(fields)}")
            try:
                t = decimal_ms_to_ns(fields[0])
            except ValueError as e:
                sys.exit(f"{a.input}:{line_no}: {e}")
            off, size, op = int(fields[2]), int(fields[3]), fields[4]
            if op not in ("0", "1") or size <= 0:
                sys.exit(f"{a.input}:{line_no}: bad op or size")
            reqs.append((t, off, size, int(op)))
    if not reqs:
        sys.exit(f"{a.input}: no requests")
    in_order = all(reqs[i][0] <= reqs[i + 1][0] for i in range(len(reqs) - 1))
    if not in_order:
        reqs.sort(key=lambda r: r[0])  # stable
    t0 = reqs[0][0]
    unaligned = reads = 0
    with open(a.output, "w", encoding="ascii", newline="\n") as out:
        for t, off, size, typ in reqs:
            start = off // SECTOR
            end = -(-(off + size) // SECTOR)
            if off % SECTOR or size % SECTOR:
                unaligned += 1
            reads += typ
            out.write(f"{t - t0} 0 {start} {end - start} {typ}\n")
    print(
        f"wrote {len(reqs)} requests to {a.output}: {reads} reads, {len(reqs) - reads} writes; "
        f"span {reqs[-1][0] - t0} ns; {unaligned} not sector-aligned; "
        f"{'in time order' if in_order else 'sorted by time (input was not in order)'}"
    )


if __name__ == "__main__":
    main()
