#!/usr/bin/env bash
# Installs the pinned NVIDIA CUDA toolkit wheels (the reference tools cubin-ld is
# compared against) into a cached virtual environment, once, and prints the
# toolkit root on stdout. Every other script finds nvcc/ptxas/nvlink/cuobjdump/
# nvdisasm through this one.
#
#   CUBIN_LD_CUDA_CACHE  where the venv lives (default: ~/.cache/cubin-ld/cuda-13.5.37)
#
# Progress goes to stderr so that `C=$(scripts/cuda-toolkit.sh)` works.
set -euo pipefail

VERSION=13.5.37
CCCL_VERSION=13.3.5.0.6   # newest cccl wheel; it has no 13.5.x release
PACKAGES=(
  "nvidia-cuda-nvcc==$VERSION"
  "nvidia-cuda-crt==$VERSION"
  "nvidia-cuda-runtime==$VERSION"
  "nvidia-cuda-cuobjdump==$VERSION"
  "nvidia-cuda-nvdisasm==$VERSION"
  "nvidia-nvjitlink==$VERSION"
  "nvidia-cuda-cccl==$CCCL_VERSION"
)

cache=${CUBIN_LD_CUDA_CACHE:-$HOME/.cache/cubin-ld/cuda-$VERSION}
stamp="$cache/.installed"
want="${PACKAGES[*]}"

find_root() {
  local r
  for r in "$cache"/venv/lib/python3*/site-packages/nvidia/cu13; do
    [ -x "$r/bin/nvlink" ] && { echo "$r"; return 0; }
  done
  return 1
}

# nvlink -dlto loads <nvvmpath>/lib64/libnvvm.so, which the wheels keep in lib/: the link
# makes nvcc's -nvvmpath=<root>/nvvm work as in a toolkit's own layout.
nvvm_lib64() {
  mkdir -p "$1/nvvm/lib64"
  ln -sf ../../lib/libnvvm.so.4 "$1/nvvm/lib64/libnvvm.so"
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && root=$(find_root); then
  nvvm_lib64 "$root"
  echo "$root"
  exit 0
fi

echo "cuda-toolkit: installing $want into $cache" >&2
mkdir -p "$cache"
rm -rf "$cache/venv"
python3 -m venv "$cache/venv" >&2
"$cache/venv/bin/python" -m pip install -q --disable-pip-version-check "${PACKAGES[@]}" >&2

root=""
for r in "$cache"/venv/lib/python3*/site-packages/nvidia/cu13; do root=$r; done
[ -n "$root" ] || { echo "cuda-toolkit: no nvidia/cu13 folder after install" >&2; exit 1; }
chmod +x "$root"/bin/* 2>/dev/null || true
chmod +x "$root"/nvvm/bin/* 2>/dev/null || true
[ -x "$root/bin/nvlink" ] || { echo "cuda-toolkit: $root/bin/nvlink missing" >&2; exit 1; }
nvvm_lib64 "$root"
echo "$want" >"$stamp"
echo "$root"
