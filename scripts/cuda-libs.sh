#!/usr/bin/env bash
# Installs the pinned CUDA libraries real programs link against (scripts/programs builds
# testdata/programs/ with them) from PyPI wheels into a cache, once, and prints one
# NAME=PATH line per library on stdout:
#
#   NVSHMEM   include/ and lib/libnvshmem_device.a  (nvidia-nvshmem-cu13)
#   MATHDX    include/ (cuBLASDx, cuFFTDx, ...) and external/cutlass  (nvidia-mathdx)
#   CURAND    include/curand_kernel.h  (nvidia-curand)
#   CUTLASS   include/ (CUTLASS and CuTe headers)  (nvidia-cutlass)
#   NCCL      include/ and lib/libnccl_device.{ltoir,bc}  (nvidia-nccl-cu13)
#
#   CUBIN_LD_LIBS_CACHE  where they live (default: ~/.cache/cubin-ld/libs-1)
#
# The wheels are fetched with pip (about 600 MB) and unpacked; nothing is installed into
# a Python environment. Progress goes to stderr.
set -euo pipefail

PACKAGES=(
  "nvidia-nvshmem-cu13==3.8.0"
  "nvidia-mathdx==25.6.0"
  "nvidia-curand==10.4.5.25"
  "nvidia-cutlass==4.2.0.0"
  "nvidia-nccl-cu13==2.32.3"
)
cache=${CUBIN_LD_LIBS_CACHE:-$HOME/.cache/cubin-ld/libs-1}
stamp="$cache/.installed"
want="${PACKAGES[*]}"

if ! [ -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "cuda-libs: fetching $want into $cache" >&2
  rm -rf "$cache"
  mkdir -p "$cache/wheels"
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$cache/wheels" \
    "${PACKAGES[@]}" >&2
  for w in "$cache"/wheels/*.whl; do
    python3 -m zipfile -e "$w" "$cache/root" >&2
  done
  rm -rf "$cache/wheels"
  echo "$want" >"$stamp"
fi
r="$cache/root/nvidia"
echo "NVSHMEM=$r/nvshmem"
echo "MATHDX=$r/mathdx"
echo "CURAND=$r/cu13"
echo "CUTLASS=$cache/root/cutlass_library/source"
echo "NCCL=$r/nccl"
