#!/usr/bin/env bash
# The links at the edges of the format, each by nvlink and by cubin-ld side by side: outcome
# (both link, or both refuse), wall time, peak RSS, and whether the outputs are semantically
# equal (cubin-dump --compare).
#
#   scripts/scale.sh [CASE...]      CASE: sections sections-r symbols 2gib (default: all)
#
#   sections    two objects of 11,000 kernels each: 66,012 output sections (SHN_XINDEX,
#               e_shnum in section 0); the output must be read by cuobjdump too. The
#               outputs differ in one symbol: nvlink gives section 65,522's SHN_COMMON
#               (its bug, in docs/differences.md)
#   sections-r  the same with -r
#   symbols     five objects of 200,000 initialized globals each: a million symbols
#   2gib        a module over 2 GiB: an object whose .nv.global.init is 2.1 GiB (made from a
#               corpus object, the section moved to the end of a sparse file)
# Needs the toolkit (scripts/cuda-toolkit.sh), ~10 GB of memory and ~7 GB of disk for 2gib.
# Inputs are cached in ${CUBIN_LD_SCALE_DIR:-/tmp/cubin-ld-scale}.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
C=$("$here/scripts/cuda-toolkit.sh")
(cd "$here" && cargo build --release --quiet --bins)
ld=$here/target/release/cubin-ld
dump=$here/target/release/cubin-dump
work=${CUBIN_LD_SCALE_DIR:-/tmp/cubin-ld-scale}
mkdir -p "$work"
cd "$work"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(sections sections-r symbols 2gib)

kernels() { # FILE FIRST COUNT: a PTX file of COUNT small kernels k<FIRST>...
  python3 - "$@" <<'PY'
import sys
f, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f, "w") as o:
    o.write(".version 9.0\n.target sm_90\n.address_size 64\n")
    for k in range(first, first + n):
        o.write(f".visible .entry k{k}(.param .u64 p)\n{{\n .reg .b64 %rd<2>;\n"
                f" ld.param.u64 %rd1, [p];\n st.global.u32 [%rd1], {k};\n ret;\n}}\n")
PY
}
globals() { # FILE FIRST COUNT: COUNT initialized globals g<FIRST>... and a kernel
  python3 - "$@" <<'PY'
import sys
f, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f, "w") as o:
    o.write(".version 9.0\n.target sm_90\n.address_size 64\n")
    for g in range(first, first + n):
        o.write(f".visible .global .align 4 .u32 g{g} = {g};\n")
    o.write(f".visible .entry k{first}(.param .u64 p)\n{{\n .reg .b64 %rd<2>;\n"
            " ld.param.u64 %rd1, [p];\n st.global.u32 [%rd1], 1;\n ret;\n}\n")
PY
}
assemble() { # NAME: NAME.ptx to NAME.o, once
  [ -s "$1.o" ] || "$C/bin/ptxas" -arch=sm_90 -c -o "$1.o" "$1.ptx"
}
big_global_init() { # a 2.1 GiB .nv.global.init, sparse
  [ -s big2g.o ] && return
  python3 - "$here/testdata/out/globals/sm_90/a.o" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
names = struct.unpack_from("<IIQQQQ", b, shoff + shstrndx * 64)[4]
for i in range(shnum):
    h = shoff + i * 64
    name_off, = struct.unpack_from("<I", b, h)
    if b[names + name_off:].startswith(b".nv.global.init\0"):
        off, size = struct.unpack_from("<QQ", b, h + 0x18)
        data = bytes(b[off:off + size])
        new_off = (len(b) + 0xFFF) & ~0xFFF
        struct.pack_into("<QQ", b, h + 0x18, new_off, size + 0x8800_0000)
        with open("big2g.o", "wb") as f:
            f.write(b); f.seek(new_off); f.write(data); f.truncate(new_off + size + 0x8800_0000)
        break
PY
}

measure() { # LABEL OUT CMD...: runs CMD, prints status, seconds and peak RSS
  local label=$1 out=$2; shift 2
  rm -f "$out"
  # (cubin-ld in one process: a large link's caller ends before the link's own process,
  # whose memory /usr/bin/time would not see; see src/early_exit.rs.)
  CUBIN_LD_FORK=0 /usr/bin/time -f "%e %M" -o "$label.time" "$@" >"$label.log" 2>&1 && rc=0 || rc=$?
  read -r secs kb <"$label.time" || true
  printf '  %-8s status %-3s %7s s  %6d MB peak\n' "$label" "$rc" "$secs" $((kb / 1024))
  echo "$rc" >"$label.rc"
}

for c in "${cases[@]}"; do
  case $c in
    sections | sections-r)
      [ -s half0.ptx ] || kernels half0.ptx 0 11000
      [ -s half1.ptx ] || kernels half1.ptx 11000 11000
      assemble half0; assemble half1
      inputs=(half0.o half1.o); flags=(); [ "$c" = sections-r ] && flags=(-r) ;;
    symbols)
      inputs=()
      for i in 0 1 2 3 4; do
        [ -s "m$i.ptx" ] || globals "m$i.ptx" $((i * 200000)) 200000
        assemble "m$i"; inputs+=("m$i.o")
      done
      flags=() ;;
    2gib) big_global_init; inputs=(big2g.o "$here/testdata/out/globals/sm_90/b.o"); flags=() ;;
    *) echo "unknown case '$c'" >&2; exit 2 ;;
  esac
  echo "== $c: ${inputs[*]} ${flags[*]}"
  measure nvlink nv.out "$C/bin/nvlink" -arch=sm_90 "${flags[@]}" -o nv.out "${inputs[@]}"
  measure cubin-ld own.out "$ld" -arch=sm_90 "${flags[@]}" -o own.out "${inputs[@]}"
  if [ "$(cat nvlink.rc)" != "$(cat cubin-ld.rc)" ]; then
    echo "  DIFFERENT outcomes"; tail -3 nvlink.log cubin-ld.log
  elif [ "$(cat nvlink.rc)" = 0 ]; then
    if "$dump" --compare --ignore-linker-note nv.out own.out >compare.log 2>&1; then
      echo "  outputs equal ($(stat -c %s own.out) bytes)"
    else
      echo "  outputs DIFFERENT:"; head -5 compare.log
    fi
    if [ "$c" = sections ]; then
      "$C/bin/cuobjdump" -elf own.out >/dev/null && echo "  cuobjdump reads it"
    fi
  else
    echo "  both refuse"; tail -1 nvlink.log cubin-ld.log
  fi
  rm -f nv.out own.out
done
