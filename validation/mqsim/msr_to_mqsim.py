#!/usr/bin/env python3
"""Convert an MSR Cambridge block trace (CSV, SNIA IOTTA) to MQSim's ASCII trace format.

Input lines (no header; a header line whose first field is `Timestamp` is skipped, as
are blank lines and `#` comments, as ssdlab's msr parser does):

    Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
    128166385295514663,hm,0,Write,9056014336,2048,2833

- Timestamp: Windows FILETIME, 100 ns ticks.  Output time = (ticks - t0) * 100 ns, where
  t0 is the earliest timestamp (the first request's when the file is in order).
- Type: Read -> 1, Write -> 0 (case-insensitive).
- Offset, Size: bytes.  Output start sector = floor(offset / 512); output size in sectors
  covers [offset, offset + size): ceil((offset + size) / 512) - floor(offset / 512), which
  is ceil(size / 512) whenever the offset is sector-aligned.
- Device column: written as 0 (MQSim does not interpret it).

Output lines: `<arrival_ns> 0 <start_sector> <size_sectors> <type>`.

Requests are sorted by time (stable) before rebasing, as ssdlab's loader does; MQSim
itself refuses a trace whose times decrease.  Input may be plain text or gzip.
Pure standard library.
"""
import argparse
import gzip
import sys

SECTOR = 512
TICK_NS = 100


def open_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, "r", encoding="utf-8", newline="")


def parse(path):
    reqs = []
    with open_text(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.strip().lstrip("\ufeff")
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split(",")]
            if fields[0].lower() == "timestamp":
                continue
            if len(fields) != 7:
                sys.exit(f"{path}:{line_no}: expected 7 comma-separated fields, got {len(fields)}")
            ticks, _host, _disk, op, off, size, _resp = fields
            op_l = op.lower()
            if op_l == "read":
                typ = 1
            elif op_l == "write":
                typ = 0
            else:
                sys.exit(f"{path}:{line_no}: Type {op!r} is not Read or Write")
            off, size = int(off), int(size)
            if size <= 0:
                sys.exit(f"{path}:{line_no}: Size must be positive")
            reqs.append((int(ticks), off, size, typ))
    return reqs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="MSR CSV (plain or .gz)")
    ap.add_argument("-o", "--output", required=True, help="MQSim ASCII trace to write")
    a = ap.parse_args()

    reqs = parse(a.input)
    if not reqs:
        sys.exit(f"{a.input}: no requests")
    in_order = all(reqs[i][0] <= reqs[i + 1][0] for i in range(len(reqs) - 1))
    if not in_order:
        reqs.sort(key=lambda r: r[0])  # stable
    t0 = reqs[0][0]
    unaligned = 0
    reads = 0
    with open(a.output, "w", encoding="ascii", newline="\n") as out:
        for ticks, off, size, typ in reqs:
            start = off // SECTOR
            end = -(-(off + size) // SECTOR)
            if off % SECTOR or size % SECTOR:
                unaligned += 1
            reads += typ
            out.write(f"{(ticks - t0) * TICK_NS} 0 {start} {end - start} {typ}\n")
    print(
        f"wrote {len(reqs)} requests to {a.output}: {reads} reads, {len(reqs) - reads} writes; "
        f"span {(reqs[-1][0] - t0) * TICK_NS} ns; {unaligned} not sector-aligned; "
        f"{'in time order' if in_order else 'sorted by time (input was not in order)'}"
    )


if __name__ == "__main__":
    main()
