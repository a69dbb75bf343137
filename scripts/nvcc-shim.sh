#!/usr/bin/env bash
# Makes an nvcc that uses cubin-ld as its device linker, without touching the toolkit:
#
#   scripts/nvcc-shim.sh DIR [CUDA_ROOT]
#
# writes DIR/bin/nvcc (a link to the toolkit's nvcc), DIR/bin/nvcc.profile (the toolkit's,
# pointing back at it) and DIR/bin/nvlink (runs cubin-ld). Then `DIR/bin/nvcc -dlink ...`,
# `DIR/bin/nvcc -rdc=true ... -o app`, or CMake with -DCMAKE_CUDA_COMPILER=DIR/bin/nvcc run
# cubin-ld wherever they would run nvlink. nvcc finds its tools through the PATH its profile
# sets (the profile's own folder first), so a wrapper earlier on the user's PATH would not work.
#
# CUDA_ROOT defaults to $CUDA_HOME, else the toolkit of the nvcc on PATH; with neither it
# stops and says so (it never downloads one: `scripts/nvcc-shim.sh DIR "$(scripts/cuda-toolkit.sh)"`
# uses the pinned wheels). CUBIN_LD names the cubin-ld binary (default: this checkout's
# target/release/cubin-ld, built when missing). DIR/bin/nvlink names that binary by its
# absolute path: after moving or deleting the checkout it stops with a message saying so
# (set CUBIN_LD when running nvcc, or run this script again).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,18p' "$0"; exit 2; }
dir=$1
root=${2:-${CUDA_HOME:-}}
if [ -z "$root" ] && nvcc=$(command -v nvcc); then
  root=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)
fi
[ -n "$root" ] || {
  echo "nvcc-shim: no CUDA toolkit: give CUDA_ROOT, set CUDA_HOME, or put nvcc on PATH" >&2
  echo "nvcc-shim: (scripts/cuda-toolkit.sh installs the pinned one and prints its root)" >&2
  exit 1
}
root=$(cd "$root" && pwd)
[ -x "$root/bin/nvcc" ] || { echo "nvcc-shim: no nvcc in $root/bin" >&2; exit 1; }
linker=${CUBIN_LD:-$here/target/release/cubin-ld}
if [ ! -x "$linker" ]; then
  (cd "$here" && cargo build --release --quiet --bin cubin-ld)
fi
linker=$(cd "$(dirname "$linker")" && pwd)/$(basename "$linker")

mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
ln -sfn "$root/bin/nvcc" "$dir/bin/nvcc"
ln -sfn "$root/bin/crt" "$dir/bin/crt"
# TOP stays spelled `<root>/bin/..` (as nvcc's own profile makes it): the -L paths nvcc
# passes to the device linker are recorded in the output's note. The real bin folder goes
# after ours, so ptxas, fatbinary and cudafe++ are the toolkit's and nvlink is cubin-ld.
sed -e "s|^TOP *=.*|TOP              = $root/bin/..|" \
    -e "s|^PATH *+= *\$(CICC_PATH):\$(_HERE_):|PATH            += \$(CICC_PATH):\$(_HERE_):$root/bin:|" \
    "$root/bin/nvcc.profile" >"$dir/bin/nvcc.profile"
grep -q "$root/bin:" "$dir/bin/nvcc.profile" || {
  echo "nvcc-shim: unexpected nvcc.profile layout in $root/bin" >&2; exit 1; }
cat >"$dir/bin/nvlink" <<SH
#!/bin/sh
linker=\${CUBIN_LD:-$linker}
if [ ! -x "\$linker" ]; then
  echo "nvlink (cubin-ld shim): no cubin-ld at '\$linker' (checkout moved or not built?): set CUBIN_LD or run nvcc-shim.sh again" >&2
  exit 1
fi
exec "\$linker" "\$@"
SH
chmod +x "$dir/bin/nvlink"
echo "$dir/bin/nvcc"
