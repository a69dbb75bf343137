#!/usr/bin/env bash
# End to end with the real build tools: the program in testdata/e2e built with nvcc
# (-rdc=true, objects, a static library, several -gencode targets, -G debug builds for sm_80,
# sm_90 and sm_100, -dlto) and with CMake (CUDA_SEPARABLE_COMPILATION, Release, Debug with -G,
# and Release with -dlto), once with nvcc's own device linker and once through
# scripts/nvcc-shim.sh (cubin-ld). The device-link cubins must be equal (cubin-dump
# --compare, the linker's own note aside), the registration files byte-identical, and the
# host executables must link. Needs the toolkit (scripts/cuda-toolkit.sh), gcc, and CMake +
# Ninja (installed from PyPI into a cached venv when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
C=$("$here/scripts/cuda-toolkit.sh")
(cd "$here" && cargo build --release --quiet --bins)
dump="$here/target/release/cubin-dump"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
shim=$("$here/scripts/nvcc-shim.sh" "$work/shim" "$C")
src="$here/testdata/e2e"
fail=0

same_link() { # LABEL DIR_NVLINK DIR_CUBIN_LD [COMPARE_OPTION...]: the kept temporaries of two nvcc -dlink runs
  local label=$1 a=$2 b=$3 n=0 fa fb
  shift 3
  for fa in "$a"/*.cubin; do
    fb="$b/$(basename "$fa" | sed 's/_nv\./_ld./')"
    if ! "$dump" --compare --ignore-linker-note "$@" "$fa" "$fb" >"$work/diff.txt"; then
      echo "e2e: $label: $(basename "$fa") differs:"; head -20 "$work/diff.txt"; fail=1
    fi
    "$C/bin/cuobjdump" -elf "$fb" >/dev/null 2>"$work/cuobjdump.txt" ||
      { echo "e2e: $label: cuobjdump cannot read $(basename "$fb"): $(cat "$work/cuobjdump.txt")"; fail=1; }
    n=$((n + 1))
  done
  for fa in "$a"/*.reg.c; do
    [ -e "$fa" ] || continue
    cmp -s "$fa" "$b/$(basename "$fa" | sed 's/_nv\./_ld./')" || { echo "e2e: $label: registration files differ"; fail=1; }
  done
  [ "$n" -gt 0 ] || { echo "e2e: $label: no device-link cubin kept"; fail=1; }
  echo "e2e: $label: $n device-link cubin(s) compared"
}

cd "$work"
for f in main kernels helper; do
  "$C/bin/nvcc" -dc -arch=sm_90 "$src/$f.cu" -o "$f.o"
  "$C/bin/nvcc" -dc -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=[sm_90,compute_90] \
    "$src/$f.cu" -o "${f}_multi.o"
done
ar rcs libkh.a kernels.o helper.o

dlink() { # LABEL ARGS...: nvcc -dlink with nvlink, then with cubin-ld
  local label=$1; shift
  mkdir -p "$label.nv" "$label.ld"
  "$C/bin/nvcc" -dlink "$@" -o "$label.nv/dl_nv.o" -keep -keep-dir "$label.nv" >/dev/null
  "$shim" -dlink "$@" -o "$label.ld/dl_ld.o" -keep -keep-dir "$label.ld" >/dev/null
  same_link "$label" "$label.nv" "$label.ld"
}
dlink objects -arch=sm_90 main.o kernels.o helper.o
dlink library -arch=sm_90 main.o libkh.a
dlink gencode -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=[sm_90,compute_90] \
  main_multi.o kernels_multi.o helper_multi.o
dlink wholeprogram -arch=sm_90 "$src/main.cu" -rdc=false
# Link-time optimization: nvcc -dc -dlto objects, device-linked -dlto (nvcc passes
# -nvvmpath=<toolkit>/nvvm): all LTO-IR, a library of it, and partial LTO with a plain object.
for f in main kernels helper; do
  "$C/bin/nvcc" -dc -dlto -arch=sm_90 "$src/$f.cu" -o "${f}_lto.o"
done
ar rcs libkh_lto.a kernels_lto.o helper_lto.o
dlink lto -dlto -arch=sm_90 main_lto.o kernels_lto.o helper_lto.o
dlink lto_library -dlto -arch=sm_90 main_lto.o libkh_lto.a
dlink lto_partial -dlto -arch=sm_90 main_lto.o kernels.o helper_lto.o
# Debug builds: -G objects (debug information referring to __constant__ and __device__ data),
# device-linked with the -g nvcc passes.
for sm in 80 90 100; do
  for f in main kernels helper; do
    "$C/bin/nvcc" -dc -G -arch=sm_$sm "$src/$f.cu" -o "${f}_G$sm.o"
  done
  dlink "debug_sm_$sm" -G -arch=sm_$sm "main_G$sm.o" "kernels_G$sm.o" "helper_G$sm.o"
done
"$shim" -rdc=true -arch=sm_90 main.o kernels.o helper.o -o app
# nvcc's other device-linker uses: the host linker script (-hls=gen-lcs) and --time.
"$C/bin/nvcc" -hls=gen-lcs -o hls_nv.ld
"$shim" -hls=gen-lcs -o hls_ld.ld
cmp -s hls_nv.ld hls_ld.ld && echo "e2e: nvcc -hls=gen-lcs: the same host linker script" ||
  { echo "e2e: nvcc -hls=gen-lcs: the linker scripts differ"; fail=1; }
"$shim" -dlink --time time.csv -arch=sm_90 main.o kernels.o helper.o -o timed.o &&
  grep -q "nvlink\|phase name" time.csv && echo "e2e: nvcc --time through cubin-ld: linked" ||
  { echo "e2e: nvcc --time through cubin-ld failed"; fail=1; }
[ -x app ] && echo "e2e: nvcc -rdc=true through cubin-ld: host executable linked"

# CMake, as CUDA projects build.
cmake=$(command -v cmake || true)
ninja=$(command -v ninja || true)
if [ -z "$cmake" ] || [ -z "$ninja" ]; then
  venv=${CUBIN_LD_CMAKE_VENV:-$HOME/.cache/cubin-ld/cmake-venv}
  [ -x "$venv/bin/cmake" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q cmake ninja; }
  cmake="$venv/bin/cmake"; ninja="$venv/bin/ninja"
fi
# Release for sm_90, Debug (-G -g) for sm_80, sm_90 and sm_100, and Release with -dlto. Both
# builds of each use the same
# build folder, one after the other: -G debug information names the compile folder.
# (The -dlto CMake build runs on demand, E2E_CMAKE_LTO=1: CI's minutes are counted; the
# nvcc -dlink -dlto links above run always.)
configs="release debug"; [ -n "${E2E_CMAKE_LTO:-}" ] && configs="$configs lto"
for config in $configs; do
  for which in nv ld; do
    cc="$C/bin/nvcc"; [ "$which" = ld ] && cc="$shim"
    b="cmake.$config"
    rm -rf "$b"
    if [ "$config" = release ]; then
      extra=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90)
    elif [ "$config" = lto ]; then
      extra=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON)
    else
      extra=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CUDA_FLAGS_DEBUG=-G -g" "-DCMAKE_CUDA_ARCHITECTURES=80;90;100")
    fi
    "$cmake" -S "$src" -B "$b" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" \
      -DCMAKE_CUDA_COMPILER="$cc" "${extra[@]}" >/dev/null
    "$cmake" --build "$b" >/dev/null
    mkdir -p "$b.$which.x"
    (cd "$b.$which.x" && "$C/bin/cuobjdump" -xelf all "../$b/CMakeFiles/app.dir/cmake_device_link.o" >/dev/null)
    for f in "$b.$which.x"/*.cubin; do mv "$f" "${f%.cubin}_$which.cubin"; done
  done
  [ -x "cmake.$config/app" ] && echo "e2e: CMake $config build through cubin-ld: app linked"
  # (Two builds: -G objects' ptxas notes name each build's own temporary files.)
  ignore=(); [ "$config" = debug ] && ignore=(--ignore-section .note.nv.tkinfo)
  same_link "cmake-$config" "cmake.$config.nv.x" "cmake.$config.ld.x" "${ignore[@]}"
done
exit $fail
