#!/usr/bin/env bash
# Records how nvlink treats command lines: every line of testdata/cli/lines.tsv ("NAME TAB
# ARGUMENTS", the arguments as a shell would split them) runs in a scratch folder holding the
# xtu_call/sm_90 objects (a.o b.o c.o: device cubins; ha.o hb.o hc.o and libh.a: nvcc -dc host
# objects), and testdata/cli/out/NAME/ keeps its exit status (rc), standard output and error
# (stdout, stderr) and every file it wrote. tests/nvlink_cli.rs replays them with cubin-ld.
# The lines cover every option of `nvlink --help` in its spellings, repeats, bad values, and
# the exact device-link command lines nvcc and CMake produce.
#
#   scripts/gen-cli-testdata.sh [-o OUTDIR]     (OUTDIR defaults to testdata/cli/out)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
C=$("$here/scripts/cuda-toolkit.sh")
cli="$here/testdata/cli"
out="$cli/out"
[ "${1:-}" = -o ] && out=$2
rm -rf "$out"
# A fixed folder: registration ids of cubin inputs are made from their absolute paths.
scratch=/tmp/cubin-ld-cli
while IFS=$'\t' read -r name args; do
  [ -n "$name" ] || continue
  rm -rf "$scratch"; mkdir -p "$scratch"
  "$here/scripts/cli-scratch.sh" "$scratch"
  (cd "$scratch" && eval "\"$C/bin/nvlink\" $args" >stdout 2>stderr; echo $? >rc) || true
  mkdir -p "$out/$name"
  for f in "$scratch"/*; do
    b=$(basename "$f")
    case "$b" in a.o|b.o|c.o|ha.o|hb.o|hc.o|libh.a|empty.o|k.cu|resp.txt|nvcc.optf) continue ;; esac
    cp "$f" "$out/$name/$b"
  done
done <"$cli/lines.tsv"
rm -rf "$scratch"
echo "gen-cli-testdata: recorded $(ls "$out" | wc -l) command lines"
