#!/usr/bin/env python3
"""Erase counts per region and plane of preconditioned devices, read from their snapshots.

    python scripts/snapshot_erase_counts.py OUT/snapshots/*.snapshot [--threshold 100]

An experiment keeps each preconditioned device in ``OUT/snapshots/`` (docs/snapshots.md); the
summary's ``erase_count`` is over every block of the device, after the run. This reads the block
table a snapshot holds, so it gives the erase counts a timed run starts from, region by region:
per region the mean, minimum and maximum over its blocks, the smallest and largest spread
(most minus least erased) over its planes, each plane's blocks split at the largest gap between
their sorted counts (how many blocks lie below and above it, and their counts), and for static wear levelling at ``--threshold``
(the preset's 100) the erases it would take to bring every block of a plane within the threshold
of the plane's most erased block. One line per snapshot, naming the config by the keys it varies
in the IPU experiments (pages per block, placement, partial programming, wear levelling, seed).

The snapshot is postcard (serde): a header (magic, format, version, key, the shaping config as
JSON), then the FTL, whose first fields are ``logical_units``, ``host_units``, ``l2p`` (bytes),
``p2l`` (enum: dense bytes, or packed), ``blocks`` (``BlockInfo``: state, write pointer, erase
count, last write time), as in crates/ssdlab/src/sim/snapshot.rs and ftl/mod.rs. Only snapshot
format 5 with a dense reverse map (no compression) is read; anything else is refused, since a
change of those structs changes the layout.
"""

import argparse
import json
import statistics
import sys

FORMAT = 5


def varint(b, i):
    x = shift = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return x, i


def take_bytes(b, i):
    n, i = varint(b, i)
    return b[i : i + n], i + n


def read(path):
    b = open(path, "rb").read()
    i = 0
    _magic, i = take_bytes(b, i)
    fmt, i = varint(b, i)
    if fmt != FORMAT:
        sys.exit(f"{path}: snapshot format {fmt}, this script reads {FORMAT}")
    _version, i = take_bytes(b, i)
    _key, i = take_bytes(b, i)
    shaping, i = take_bytes(b, i)
    config = json.loads(shaping)
    _, i = varint(b, i)  # logical_units
    _, i = varint(b, i)  # host_units
    _, i = take_bytes(b, i)  # l2p
    variant, i = varint(b, i)
    if variant != 0:
        sys.exit(f"{path}: packed reverse map (shaped units): not read by this script")
    _, i = take_bytes(b, i)  # p2l
    n, i = varint(b, i)
    erases = []
    for _ in range(n):
        _, i = varint(b, i)  # state
        _, i = varint(b, i)  # write pointer
        e, i = varint(b, i)
        _, i = varint(b, i)  # last write time
        erases.append(e)
    return config, erases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--threshold", type=int, default=100)
    args = ap.parse_args()
    for path in args.snapshots:
        config, erases = read(path)
        g, ftl = config["geometry"], config["ftl"]
        bpp = g["blocks_per_plane"]
        regions = g.get("regions") or [{"name": "all", "blocks_per_plane": bpp}]
        planes = len(erases) // bpp
        label = (
            f"{g['pages_per_block']} pages, placement {ftl.get('placement', {}).get('policy')}, "
            f"partial {ftl.get('partial_program', {}).get('policy', 'none')}, wear levelling "
            f"{ftl.get('wear_leveling', {}).get('enabled')}, seed {config.get('seed')}"
        )
        parts = []
        first = 0
        for r in regions:
            size = r["blocks_per_plane"]
            per_plane = [erases[p * bpp + first : p * bpp + first + size] for p in range(planes)]
            flat = [e for plane in per_plane for e in plane]
            spreads = [max(x) - min(x) for x in per_plane]
            to_level = statistics.mean(
                sum(max(0, max(x) - args.threshold - e) for e in x) for x in per_plane
            )
            # Each plane's blocks split at the largest gap between their sorted erase counts.
            low, high = [], []
            for x in per_plane:
                x = sorted(x)
                cut = max(range(1, len(x)), key=lambda k: x[k] - x[k - 1]) if len(x) > 1 else 1
                low.append(x[:cut])
                high.append(x[cut:])
            groups = ", ".join(
                f"{min(len(y) for y in grp)}-{max(len(y) for y in grp)} blocks at "
                f"{min(min(y) for y in grp)}-{max(max(y) for y in grp)}"
                for grp in (low, high)
                if all(grp)
            )
            parts.append(
                f"{r['name']}: mean {statistics.mean(flat):.1f}, {min(flat)}-{max(flat)}, "
                f"spread per plane {min(spreads)}-{max(spreads)} (split at each plane's largest "
                f"gap: {groups}), erases to level {to_level:.0f} per plane"
            )
            first += size
        print(f"{label}: " + "; ".join(parts) + f"; total {sum(erases)}")


if __name__ == "__main__":
    main()
