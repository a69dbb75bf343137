#!/usr/bin/env bash
# Side-by-side timing of nvlink and cubin-ld on generated programs of N objects. Objects are
# cached per (shape, N, SM).
#
#   scripts/bench.sh [-S simple|deep|wide] [-s sm_90] [-r REPEATS] [-m MODES] [-n] [-H] [-N] N...
#
# Shapes:
#   simple  (default) N nvcc-compiled TUs with one function each: each TU's function calls
#           the next TU's; each TU has a kernel, a __device__ variable and __constant__ data.
#   deep    ptxas-assembled objects of 20 device functions (scripts/bench-gen.py): each
#           object's functions call the next in a chain into the next object; globals,
#           constants and a weak helper every object defines.
#   wide    the same size, shallow cross-object calls, and 16 weak template-style functions
#           defined in every object.
# -n leaves the __constant__ data out (simple).
# -H builds host objects (nvcc -dc) and links them with the command line nvcc -dlink uses
# (-m64, -L to the toolkit's libraries, -cpu-arch, -lcudadevrt, --register-link-binaries);
# the registration files must be equal too (simple).
# -N skips nvlink (for sizes where it takes minutes).
# -m MODES: the link modes to time, comma-separated, each against nvlink's same mode:
#    default, r (-r), pr (-preserve-relocs) (default: default). Each mode's row also gives its
#    time as a multiple of the default mode's (×dflt; the default mode must come first).
#
# Prints, per N: nvlink's and cubin-ld's best wall time over REPEATS runs and their ratio (as
# the caller waits: a large link's caller ends once the output is written, see
# src/early_exit.rs);
# cubin-ld's time per object; with one thread (RAYON_NUM_THREADS=1: its output must be the same
# bytes) and the speed-up of the default thread count over it; its peak RSS against the inputs' and output's sizes; `cat`
# of the inputs (the floor: reading what the link reads) and cubin-ld's multiple of it; and
# whether the two outputs are semantically equal. First, what two threads gain over one on this
# machine for the kinds of work a link does (examples/thread_ceiling.rs): the ceiling for 2thr×.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sm=sm_90
reps=3
constants=1
hostobj=0
shape=simple
run_nvlink=1
modes=default
while [ $# -gt 0 ]; do
  case "$1" in
    -S) shape=$2; shift 2 ;;
    -N) run_nvlink=0; shift ;;
    -s) sm=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -n) constants=0; shift ;;
    -H) hostobj=1; shift ;;
    -m) modes=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: scripts/bench.sh [-S simple|deep|wide] [-s SM] [-r REPEATS] [-m MODES] [-n] [-H] [-N] N..." >&2; exit 2; }
mode_flags() {
  case "$1" in
    default) ;;
    r) echo -r ;;
    pr) echo -preserve-relocs ;;
    *) echo "bench.sh: unknown mode '$1'" >&2; exit 2 ;;
  esac
}
case "$shape" in simple | deep | wide) ;; *) echo "bench.sh: unknown shape '$shape'" >&2; exit 2 ;; esac
C=$("$here/scripts/cuda-toolkit.sh")
export PATH="$C/bin:$C/nvvm/bin:$PATH"
(cd "$here" && cargo build --release --quiet --bins --example thread_ceiling)
# (CUBIN_LD: another build to time, for a before/after.)
ld="${CUBIN_LD:-$here/target/release/cubin-ld}"
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

gen_shape() { # deep/wide: PTX from bench-gen.py, assembled by ptxas
  local n=$1 dir=$2
  python3 "$here/scripts/bench-gen.py" "$shape" "$n" "$dir/src" --sm "$sm"
  (cd "$dir/src" && ls | sed 's/\.ptx$//' | xargs -P "$(nproc)" -I{} ptxas -c -arch="$sm" {}.ptx -o ../{}.o)
  (cd "$dir" && for ((i = 0; i < n; i++)); do echo "obj_$i.o"; done >inputs)
}

peak_rss_mb() { # peak resident set of "$@", in MB
  # (In one process: a large link's caller ends before the link's own process, whose memory
  # /usr/bin/time would then not see; see src/early_exit.rs.)
  CUBIN_LD_FORK=0 /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1 / 1024}'
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

# What two threads gain over one on this machine for plain arithmetic, copies and fresh pages:
# the ceiling for cubin-ld's 2thr× (two hardware threads of one core, or a busy host, give
# less than 2×).
"$here/target/release/examples/thread_ceiling" 3
printf '%-6s %-7s %-6s %-7s %9s %9s %7s %6s %7s %8s %6s %7s %7s %7s %6s  %s\n' \
  N SM shape mode nvlink_s ld_s ratio ×dflt ms/obj ld_1thr 2thr× rss_MB in+out cat_s ×cat output
for n in "$@"; do
  dir="${CUBIN_LD_BENCH_CACHE:-$HOME/.cache/cubin-ld/bench}/$sm-$n"
  [ "$shape" = simple ] || dir="$dir-$shape"
  ((constants)) || dir="$dir-noconst"
  ((hostobj)) && dir="$dir-host"
  if [ ! -f "$dir/inputs" ]; then
    if [ "$shape" = simple ]; then gen "$n" "$dir"; else gen_shape "$n" "$dir"; fi
  fi
  mapfile -t objs < <(sed "s|^|$dir/|" "$dir/inputs")
  extra_nv=() extra_ld=()
  if ((hostobj)); then
    # What nvcc -dlink passes.
    common=(-m64 "-L$C/bin/../lib/stubs" "-L$C/bin/../lib" -cpu-arch=X86_64)
    extra_nv=("${common[@]}" --register-link-binaries="$dir/nvlink.reg.c" -lcudadevrt)
    extra_ld=("${common[@]}" --register-link-binaries="$dir/cubin-ld.reg.c" -lcudadevrt)
  fi
  tdefault=""
  for mode in ${modes//,/ }; do
  mflags=($(mode_flags "$mode"))
  tn=- ratio=- same="not compared" threads_differ=0
  if ((run_nvlink)); then
    tn=$(best "$C/bin/nvlink" -arch="$sm" "${mflags[@]}" "${extra_nv[@]}" "${objs[@]}" -o "$dir/nvlink.cubin")
  fi
  tc=$(best "$ld" -arch="$sm" "${mflags[@]}" "${extra_ld[@]}" "${objs[@]}" -o "$dir/cubin-ld.cubin")
  [ -n "$tdefault" ] || tdefault=$tc
  cp "$dir/cubin-ld.cubin" "$dir/cubin-ld.threads.cubin"
  t1=$(RAYON_NUM_THREADS=1 best "$ld" -arch="$sm" "${mflags[@]}" "${extra_ld[@]}" "${objs[@]}" -o "$dir/cubin-ld.cubin")
  # The output must not depend on the thread count.
  cmp -s "$dir/cubin-ld.cubin" "$dir/cubin-ld.threads.cubin" || threads_differ=1
  rm -f "$dir/cubin-ld.threads.cubin"
  rss=$(peak_rss_mb "$ld" -arch="$sm" "${mflags[@]}" "${extra_ld[@]}" "${objs[@]}" -o "$dir/cubin-ld.cubin")
  io=$(du -cm "${objs[@]}" "$dir/cubin-ld.cubin" | tail -1 | cut -f1)
  tcat=$(best cat "${objs[@]}")
  [ "$tcat" != 0.000 ] || tcat=0.001
  if ((run_nvlink)); then
    ratio=$(printf '%.1fx' "$(echo "$tn / $tc" | bc -l)")
    same=equal
    "$dump" --compare --ignore-linker-note "$dir/nvlink.cubin" "$dir/cubin-ld.cubin" >/dev/null || same=DIFFERENT
    if ((hostobj)) && ! cmp -s "$dir/nvlink.reg.c" "$dir/cubin-ld.reg.c"; then same="$same, reg.c DIFFERENT"; fi
  fi
  ((threads_differ)) && same="$same, 1 thread DIFFERENT"
  printf '%-6s %-7s %-6s %-7s %9s %9s %7s %5.2fx %7.3f %8s %5.2fx %7s %7s %7s %5.1fx  %s\n' \
    "$n" "$sm" "$shape" "$mode" "$tn" "$tc" "$ratio" "$(echo "$tc / $tdefault" | bc -l)" \
    "$(echo "$tc * 1000 / $n" | bc -l)" "$t1" \
    "$(echo "$t1 / $tc" | bc -l)" "$rss" "$io" "$tcat" "$(echo "$tc / $tcat" | bc -l)" "$same"
  done
done
