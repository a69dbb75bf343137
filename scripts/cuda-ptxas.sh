#!/usr/bin/env bash
# Installs the ptxas of an older toolkit (CUDA 12's, whose objects nvlink 13.5 links beside its
# own) from its PyPI wheel, once, and prints the ptxas path on stdout. The corpus cases that
# set PTXAS_VERSION in case.conf compile their .ptx sources with it.
#
#   scripts/cuda-ptxas.sh 12.9.86
#
#   CUBIN_LD_PTXAS_CACHE  where the wheels are unpacked (default: ~/.cache/cubin-ld)
set -euo pipefail
version=${1:?usage: cuda-ptxas.sh VERSION}
case "$version" in
  12.*) package=nvidia-cuda-nvcc-cu12 sub=cuda_nvcc ;;
  13.*) package=nvidia-cuda-nvcc sub=cu13 ;;
  *) echo "cuda-ptxas: no wheel known for $version" >&2; exit 1 ;;
esac
dir=${CUBIN_LD_PTXAS_CACHE:-$HOME/.cache/cubin-ld}/ptxas-$version
ptxas="$dir/nvidia/$sub/bin/ptxas"
if [ ! -x "$ptxas" ]; then
  echo "cuda-ptxas: fetching $package==$version" >&2
  C=$("$(dirname "$0")/cuda-toolkit.sh")
  python=$(cd "$C" && cd ../../../../.. && pwd)/bin/python
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$python" -m pip download -q --disable-pip-version-check --no-deps "$package==$version" -d "$tmp" >&2
  rm -rf "$dir"; mkdir -p "$dir"
  "$python" -m zipfile -e "$tmp"/*.whl "$dir" >&2
  chmod +x "$dir/nvidia/$sub/bin/"* 2>/dev/null || true
fi
[ -x "$ptxas" ] || { echo "cuda-ptxas: $ptxas missing" >&2; exit 1; }
echo "$ptxas"
