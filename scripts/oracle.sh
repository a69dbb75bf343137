#!/usr/bin/env bash
# The live differential test: compiles every testdata case for sm_75, sm_80, sm_86, sm_89
# and sm_90 with the pinned toolkit, links each with nvlink and with cubin-ld (default mode),
# and checks that
#   - where nvlink succeeds, cubin-ld succeeds and `cubin-dump --compare --ignore-linker-note`
#     finds no difference, and cuobjdump -elf and nvdisasm read cubin-ld's output;
#   - where nvlink fails, cubin-ld fails with the same exit status and writes no output.
#
#   scripts/oracle.sh [CASE...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
C=$(scripts/cuda-toolkit.sh)
cargo build --release --quiet --bins
ld="$here/target/release/cubin-ld"
dump="$here/target/release/cubin-dump"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

scripts/gen-testdata.sh -o "$scratch/out" "$@" 2>/dev/null
ARCHS="sm_75 sm_80 sm_86 sm_89 sm_90"
pass=0
fail=0
for d in "$scratch"/out/*/*/; do
  d=${d%/}
  sm=$(basename "$d")
  case " $ARCHS " in *" $sm "*) ;; *) continue ;; esac
  rel=${d#"$scratch/out/"}
  mapfile -t objs < <(sed "s|^|$d/|" "$d/inputs")
  nv_rc=$(cat "$d/default.rc")
  set +e
  "$ld" -arch="$sm" "${objs[@]}" -o "$d/cubin-ld.cubin" >"$d/cubin-ld.log" 2>&1
  rc=$?
  set -e
  if [ "$nv_rc" != 0 ]; then
    if [ "$rc" = "$nv_rc" ] && [ ! -e "$d/cubin-ld.cubin" ]; then
      pass=$((pass + 1))
    else
      echo "oracle: $rel: nvlink exits $nv_rc, cubin-ld exits $rc"; sed 's/^/    /' "$d/cubin-ld.log"; fail=$((fail + 1))
    fi
    continue
  fi
  if [ "$rc" != 0 ]; then
    echo "oracle: $rel: cubin-ld failed:"; sed 's/^/    /' "$d/cubin-ld.log"; fail=$((fail + 1)); continue
  fi
  if ! "$dump" --compare --ignore-linker-note "$d/default.cubin" "$d/cubin-ld.cubin" >"$d/diff.txt"; then
    echo "oracle: $rel differs from nvlink:"; sed 's/^/    /' "$d/diff.txt" | head -30; fail=$((fail + 1)); continue
  fi
  if ! "$C/bin/cuobjdump" -elf "$d/cubin-ld.cubin" >/dev/null 2>"$d/cuobjdump.err" || [ -s "$d/cuobjdump.err" ]; then
    echo "oracle: $rel: cuobjdump -elf complains:"; sed 's/^/    /' "$d/cuobjdump.err"; fail=$((fail + 1)); continue
  fi
  if ! "$C/bin/nvdisasm" "$d/cubin-ld.cubin" >/dev/null 2>"$d/nvdisasm.err" || [ -s "$d/nvdisasm.err" ]; then
    echo "oracle: $rel: nvdisasm complains:"; sed 's/^/    /' "$d/nvdisasm.err"; fail=$((fail + 1)); continue
  fi
  pass=$((pass + 1))
done
echo "oracle: $pass passed, $fail failed"
[ "$fail" = 0 ]
