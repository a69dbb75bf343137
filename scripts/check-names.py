#!/usr/bin/env python3
"""Cross-checks cubin-dump's names against cuobjdump's for every relocation and every
.nv.info / .nv.compat record cuobjdump names, over the given cubins.

    scripts/check-names.py CUOBJDUMP CUBIN_DUMP FILE...

Exits 1 listing each disagreement. (cuobjdump prints "unknown Attribute" for a few codes;
those are skipped: cubin-dump's names for them come from public tables.)"""
import re
import subprocess
import sys


def cuobjdump_view(tool, path):
    relocs, attrs = set(), {}
    sec, kind = None, None
    out = subprocess.run([tool, "-elf", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith(".section .rel"):
            sec, kind = line.split()[1], "rel"
            continue
        if kind == "rel":
            if line.startswith("0x"):
                p = line.split()
                relocs.add((sec, int(p[0], 16), next(x for x in p if x.startswith("R_"))))
                continue
            sec, kind = None, None
        if line and not line[0].isspace() and not line.startswith(("<", ".section")):
            sec, kind = line.strip(), "info"
            attrs.setdefault(sec, [])
            continue
        if kind == "info" and "Attribute:" in line:
            attrs[sec].append(line.split("Attribute:")[1].strip())
    return relocs, attrs


def our_view(tool, path):
    relocs, attrs = set(), {}
    sec = None
    out = subprocess.run([tool, path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("section "):
            # cuobjdump names sections that share a name (local functions' copies) alike.
            sec = re.sub(r"#[0-9]+$", "", line.split(" ", 1)[1])
            continue
        if not line.startswith(" "):
            sec = None
            continue
        if sec and line.startswith("  * "):
            p = line.split()
            if p[2].startswith("R_") and sec.startswith(".rel"):
                relocs.add((sec, int(p[1], 16), p[2]))
            elif p[1].startswith(("EIATTR_", "EICOMPAT_")):
                attrs.setdefault(sec, []).append(p[1])
    return relocs, attrs


def main():
    cuobjdump, cubin_dump, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad, nrel, nattr = 0, 0, 0
    for f in files:
        r1, a1 = cuobjdump_view(cuobjdump, f)
        r2, a2 = our_view(cubin_dump, f)
        nrel += len(r1)
        if r1 != r2:
            bad += 1
            print(f"{f}: relocation names differ: cuobjdump-only {sorted(r1 - r2)[:3]} cubin-dump-only {sorted(r2 - r1)[:3]}")
        for sec, names in a1.items():
            ours = a2.get(sec)
            if ours is None or len(ours) != len(names):
                continue  # a section cuobjdump does not decode as records
            for theirs, mine in zip(names, ours):
                if theirs == "unknown Attribute":
                    continue
                nattr += 1
                if theirs != mine:
                    bad += 1
                    print(f"{f}: {sec}: cuobjdump says {theirs}, cubin-dump says {mine}")
    print(f"check-names: {len(files)} files, {nrel} relocations and {nattr} records compared, {bad} disagreements")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
