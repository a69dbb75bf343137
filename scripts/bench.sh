#!/usr/bin/env bash
# Side-by-side timing of nvlink and cubin-ld on generated programs of N translation units
# with cross-object calls (each TU's function calls the next TU's; each TU has a kernel, a
# __device__ variable and __constant__ data). Objects are cached per (N, SM).
#
#   scripts/bench.sh [-s sm_90] [-r REPEATS] [-n] [-H] N...
#
# -n leaves the __constant__ data out.
# -H builds host objects (nvcc -dc) and links them with the command line nvcc -dlink uses
# (-m64, -L to the toolkit's libraries, -cpu-arch, -lcudadevrt, --register-link-binaries);
# the registration files must be equal too.
#
# Prints, per N: nvlink's and cubin-ld's best wall time over REPEATS runs, the ratio, and
# whether the two outputs are semantically equal.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sm=sm_90
reps=3
constants=1
hostobj=0
while [ $# -gt 0 ]; do
  case "$1" in
    -s) sm=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -n) constants=0; shift ;;
    -H) hostobj=1; shift ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: scripts/bench.sh [-s SM] [-r REPEATS] [-n] [-H] N..." >&2; exit 2; }
C=$("$here/scripts/cuda-toolkit.sh")
export PATH="$C/bin:$C/nvvm/bin:$PATH"
(cd "$here" && cargo build --release --quiet --bins)
ld="$here/target/release/cubin-ld"
dump="$here/target/release/cubin-dump"

gen() {
  local n=$1 dir=$2 i next
  mkdir -p "$dir/src"
  for ((i = 0; i < n; i++)); do
    next=$((i + 1))
    {
      echo "__device__ int g_$i = $i;"
      if ((constants)); then
        echo "__constant__ int c_$i[4] = {$i, 1, 2, 3};"
      else
        echo "__device__ int c_$i[4] = {$i, 1, 2, 3};"
      fi
      if ((next < n)); then
        echo "extern __device__ int f_$next(int);"
        echo "__device__ __noinline__ int f_$i(int x) { return x > 0 ? f_$next(x - 1) + g_$i * c_$i[x & 3] : $i; }"
      else
        echo "__device__ __noinline__ int f_$i(int x) { return x + g_$i * c_$i[x & 3]; }"
      fi
      echo "__global__ void k_$i(int *p) { p[threadIdx.x] = f_$i(p[0]); }"
    } >"$dir/src/tu_$i.cu"
  done
  local cubin=-cubin
  ((hostobj)) && cubin=""
  (cd "$dir/src" && ls | sed 's/\.cu$//' | xargs -P "$(nproc)" -I{} nvcc -dc $cubin -arch="$sm" {}.cu -o ../{}.o)
  (cd "$dir" && for ((i = 0; i < n; i++)); do echo "tu_$i.o"; done >inputs)
}

best() { # best wall time in seconds of "$@" over $reps runs
  local b="" t s e
  for ((r = 0; r < reps; r++)); do
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || (($(echo "$t < $b" | bc -l))); then b=$t; fi
  done
  printf '%.3f' "$b"
}

printf '%-6s %-7s %10s %10s %8s  %s\n' N SM nvlink_s cubin-ld_s ratio output
for n in "$@"; do
  dir="${CUBIN_LD_BENCH_CACHE:-$HOME/.cache/cubin-ld/bench}/$sm-$n"
  ((constants)) || dir="$dir-noconst"
  ((hostobj)) && dir="$dir-host"
  [ -f "$dir/inputs" ] || gen "$n" "$dir"
  mapfile -t objs < <(sed "s|^|$dir/|" "$dir/inputs")
  extra_nv=() extra_ld=()
  if ((hostobj)); then
    # What nvcc -dlink passes.
    common=(-m64 "-L$C/bin/../lib/stubs" "-L$C/bin/../lib" -cpu-arch=X86_64)
    extra_nv=("${common[@]}" --register-link-binaries="$dir/nvlink.reg.c" -lcudadevrt)
    extra_ld=("${common[@]}" --register-link-binaries="$dir/cubin-ld.reg.c" -lcudadevrt)
  fi
  tn=$(best "$C/bin/nvlink" -arch="$sm" "${extra_nv[@]}" "${objs[@]}" -o "$dir/nvlink.cubin")
  tc=$(best "$ld" -arch="$sm" "${extra_ld[@]}" "${objs[@]}" -o "$dir/cubin-ld.cubin")
  same=equal
  "$dump" --compare --ignore-linker-note "$dir/nvlink.cubin" "$dir/cubin-ld.cubin" >/dev/null || same=DIFFERENT
  if ((hostobj)) && ! cmp -s "$dir/nvlink.reg.c" "$dir/cubin-ld.reg.c"; then same="$same, reg.c DIFFERENT"; fi
  printf '%-6s %-7s %10s %10s %7.1fx  %s\n' "$n" "$sm" "$tn" "$tc" "$(echo "$tn / $tc" | bc -l)" "$same"
done
