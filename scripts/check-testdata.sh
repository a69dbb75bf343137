#!/usr/bin/env bash
# The live check of the committed corpus against the real toolkit (needs the wheels, which
# scripts/cuda-toolkit.sh installs):
#   1. regenerates every case into a scratch folder with scripts/gen-testdata.sh;
#   2. compares each regenerated object and nvlink output with the committed one using
#      `cubin-dump --compare --normalize-internal` (nvcc's internal-linkage names carry a
#      per-build hash), and each recorded exit status and message;
#   3. cross-checks cubin-dump's relocation and attribute names against cuobjdump's.
#
#   scripts/check-testdata.sh [--sample | CASE...]
#
# --sample regenerates only the cases CI regenerates, one of each input form the generator
# has: CUDA with -G and libcu++ (whose internal names carry nvcc's process id), fatbin
# containers, files compiled for another target than the link's, host links with
# libcudadevrt, hand-written PTX. The stamps (scripts/testdata-stamps.sh) stand for the rest;
# the whole corpus is regenerated on demand (35 minutes on two cores), as it must be when the
# pinned toolkit or the generator changes.
# CUBIN_LD_GENERATED=DIR keeps the regenerated corpus in DIR (a new folder) for
# scripts/oracle.sh, which then links it instead of compiling every case again (CI).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
SAMPLE=(debug_exits_expanded containers arch_family device_launched_kernel weak_kernel_shared)
if [ "${1:-}" = --sample ]; then shift; set -- "${SAMPLE[@]}"; fi
C=$(scripts/cuda-toolkit.sh)
cargo build --release --quiet --bin cubin-dump
dump="$here/target/release/cubin-dump"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

gen=${CUBIN_LD_GENERATED:-$scratch/out}
scripts/gen-testdata.sh -o "$gen" "$@"

fail=0
checked=0
for d in "$gen"/*/*/; do
  rel=${d#"$gen/"}
  rel=${rel%/}
  com="testdata/out/$rel"
  if [ ! -d "$com" ]; then echo "check-testdata: $rel: not committed"; fail=1; continue; fi
  for f in "$d"*.o "$d"*.cubin; do
    [ -e "$f" ] || continue
    b=$(basename "$f")
    if [ ! -e "$com/$b" ]; then echo "check-testdata: $rel/$b: regenerated but not committed"; fail=1; continue; fi
    if ! "$dump" --compare --normalize-internal "$com/$b" "$f" >"$scratch/diff.txt"; then
      echo "check-testdata: $rel/$b differs from the committed file:"; sed 's/^/    /' "$scratch/diff.txt" | head -40; fail=1
    fi
    checked=$((checked + 1))
  done
  for f in "$com"/*.o "$com"/*.cubin; do
    [ -e "$f" ] || continue
    [ -e "$d$(basename "$f")" ] || { echo "check-testdata: $rel/$(basename "$f"): committed but not regenerated"; fail=1; }
  done
  for m in default r pr; do
    if ! cmp -s "$com/$m.rc" "$d$m.rc"; then echo "check-testdata: $rel: $m exit status changed"; fail=1; fi
    if ! diff -q <(sed -E 's/_[0-9a-f]{8}_/_########_/g' "$com/$m.log") <(sed -E 's/_[0-9a-f]{8}_/_########_/g' "$d$m.log") >/dev/null; then
      echo "check-testdata: $rel: $m messages changed"; diff "$com/$m.log" "$d$m.log" | head -5; fail=1
    fi
  done
  # Host links: outputs by meaning; exit status, messages and registration files as text
  # (build hashes masked, the number (a process id) nvcc appends to the id of a file with no
  # strong external symbol to name it by, and the folder ids of inputs without host code start with).
  [ -d "${d}host" ] || continue
  [ -d "$com/host" ] || { echo "check-testdata: $rel/host: regenerated but not committed"; fail=1; continue; }
  norm() { sed -E 's/_[0-9a-f]{8}_/_########_/g; s/(_########_)[0-9]+\)/\1<pid>)/g; s/DEFINE_REGISTER_FUNC\(.*_out_/DEFINE_REGISTER_FUNC(<dir>_out_/' "$1"; }
  cmp -s "$com/host/links.tsv" "${d}host/links.tsv" || { echo "check-testdata: $rel/host: links changed"; fail=1; }
  while IFS=$'\t' read -r name _; do
    for x in rc log reg.c; do
      [ -e "$com/host/$name.$x" ] || [ -e "${d}host/$name.$x" ] || continue
      if ! diff -q <(norm "$com/host/$name.$x" 2>&1) <(norm "${d}host/$name.$x" 2>&1) >/dev/null; then
        echo "check-testdata: $rel/host: $name.$x changed"; fail=1
      fi
    done
    if [ -e "${d}host/$name.cubin" ] || [ -e "$com/host/$name.cubin" ]; then
      if ! "$dump" --compare --normalize-internal "$com/host/$name.cubin" "${d}host/$name.cubin" >"$scratch/diff.txt"; then
        echo "check-testdata: $rel/host/$name.cubin differs from the committed file:"; sed 's/^/    /' "$scratch/diff.txt" | head -20; fail=1
      fi
      checked=$((checked + 1))
    fi
  done <"${d}host/links.tsv"
done
echo "check-testdata: compared $checked regenerated files with the committed corpus"

# The command-line corpus: nvlink must still say and write what was recorded.
scripts/gen-cli-testdata.sh -o "$scratch/cli" >/dev/null
for d in "$scratch"/cli/*/; do
  name=$(basename "$d"); com="testdata/cli/out/$name"
  [ -d "$com" ] || { echo "check-testdata: cli/$name: not committed"; fail=1; continue; }
  for f in "$d"* "$com"/*; do
    b=$(basename "$f")
    [ -e "$com/$b" ] && [ -e "$d$b" ] || { echo "check-testdata: cli/$name: $b only on one side"; fail=1; continue; }
    case "$b" in
      *.cubin) "$dump" --compare "$com/$b" "$d$b" >/dev/null || { echo "check-testdata: cli/$name/$b differs"; fail=1; } ;;
      *) cmp -s "$com/$b" "$d$b" || { echo "check-testdata: cli/$name/$b differs"; fail=1; } ;;
    esac
  done
done

shopt -s nullglob
python3 scripts/check-names.py "$C/bin/cuobjdump" "$dump" testdata/out/*/*/*.o testdata/out/*/*/*.cubin || fail=1
exit $fail
