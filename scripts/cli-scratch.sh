#!/usr/bin/env bash
# Fills folder $1 with the inputs of the command-line corpus (testdata/cli): the xtu_call/sm_90
# device objects, its host objects and a library of the last two (testdata/cli/libh.a), an empty object, a short
# non-object, and options files. Shared by scripts/gen-cli-testdata.sh and tests/nvlink_cli.rs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
d=$1
src="$here/testdata/out/xtu_call/sm_90"
cp "$src"/a.o "$src"/b.o "$src"/c.o "$d"/
cp "$src"/host/a.o "$d"/ha.o; cp "$src"/host/b.o "$d"/hb.o; cp "$src"/host/c.o "$d"/hc.o
cp "$here"/testdata/cli/libh.a "$d"/libh.a   # hb.o and hc.o, made with ar
: >"$d"/empty.o
echo "int x;" >"$d"/k.cu
printf -- '-arch=sm_90\na.o b.o c.o\n' >"$d"/resp.txt
printf -- '-m64 --arch=sm_90 "a.o" "b.o" "c.o" -o "out.cubin"\n' >"$d"/nvcc.optf
