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
# CUDA_ROOT defaults to $CUDA_HOME, else the toolkit scripts/cuda-toolkit.sh installs.
# CUBIN_LD names the cubin-ld binary (default: this checkout's target/release/cubin-ld,
# built when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,15p' "$0"; exit 2; }
dir=$1
root=${2:-${CUDA_HOME:-}}
[ -n "$root" ] || root=$("$here/scripts/cuda-toolkit.sh")
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
exec "$linker" "\$@"
SH
chmod +x "$dir/bin/nvlink"
echo "$dir/bin/nvcc"
