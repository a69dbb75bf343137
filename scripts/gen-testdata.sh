#!/usr/bin/env bash
# Regenerates testdata/out/ from testdata/src/: compiles every case for every target SM with
# the pinned toolkit and links it with nvlink in each mode cubin-ld supports, recording
# the objects, nvlink's outputs, its messages and its exit status.
#
#   scripts/gen-testdata.sh [-o OUTDIR] [-j JOBS] [CASE...]
#
# OUTDIR defaults to testdata/out (what `cargo test` reads). Each case is compiled from a copy
# of its folder at the fixed path /tmp/cubin-ld-testdata/<case>/<sm> with relative file names,
# so the only directory that lands in an object (-G debug info records the compile directory)
# is the same on every machine.
#
# Per case, an optional testdata/src/<case>/case.conf (bash) may set:
#   ARCHS              target SMs (default: all of $ALL_ARCHS)
#   NVCC_FLAGS         extra nvcc flags for .cu files (e.g. -G)
#   PTXAS_VERSION      compile the .ptx files with this toolkit's ptxas (an older one, e.g.
#                      12.9.86: scripts/cuda-ptxas.sh fetches it) instead of the pinned one
#   LIVE_LINK_FLAGS    extra nvlink flags used only by the live oracle (never committed)
#   file_arch FILE SM  a function printing the SM to compile FILE for when linking for SM
#   EXTRA_LINKS        more executable links, one per line: "NAME FLAGS..." (e.g.
#                      "ku_live -kernels-used=k_live"); recorded like the modes below
#   HOST_ARCHS         targets that also get host objects (nvcc -dc without -cubin) and
#                      their links (default: sm_75 sm_90 sm_100; empty: none)
#   HOST_LIBS          extra nvlink arguments of the host links; @CUDA_LIB@ stands for the
#                      toolkit's lib directory (e.g. "-L@CUDA_LIB@ -lcudadevrt"),
#                      @CUDA_NVVM@ for its nvvm folder (-dlto's -nvvmpath)
#   host_extra DIR SM  a function that adds inputs (fatbins, ...) to DIR and links to
#                      DIR/links.tsv; it runs in the case's build folder
#
# Layout written: OUTDIR/<case>/<sm>/
#   <stem>.o                      one object per source, in source-name order
#   compile.log                   compiler messages (empty when quiet)
#   inputs                        the objects in link order, one per line
#   <mode>.cubin                  nvlink's output (mode: default, r, pr), when it made one
#   <mode>.log / <mode>.rc        nvlink's messages and exit status
#   links.tsv                     every link made: mode name, TAB, the nvlink flags used
#   rfinal.cubin / .log / .rc     nvlink's executable link of its own r.cubin (the round trip
#                                 a partial link must survive), when r.cubin exists
#   host/                         host objects (<stem>.o), lib<case>.a, links.tsv ("NAME TAB
#                                 ARGS", run in host/), and per link NAME.cubin/.log/.rc/.reg.c
set -euo pipefail

ALL_ARCHS="sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120"
DEFAULT_HOST_ARCHS="sm_75 sm_90 sm_100"
here=$(cd "$(dirname "$0")/.." && pwd)
outdir="$here/testdata/out"
jobs=$(nproc 2>/dev/null || echo 2)

while [ $# -gt 0 ]; do
  case "$1" in
    -o) outdir=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{/^#/p}' "$0"; exit 0 ;;
    *) break ;;
  esac
done

C=$("$here/scripts/cuda-toolkit.sh")
# Every run compiles in the same fixed folders (see above): runs from two checkouts at
# once would overwrite each other's files, so they take turns.
exec 9>/tmp/cubin-ld-testdata.lock
flock 9
export PATH="$C/bin:$C/nvvm/bin:$PATH"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

if [ $# -gt 0 ]; then cases=("$@"); else
  cases=(); for d in "$here"/testdata/src/*/; do cases+=("$(basename "$d")"); done
fi

# Modes and the nvlink flags that select them.
mode_flags() {
  case "$1" in
    default) echo "" ;;
    r) echo "-r" ;;
    pr) echo "-preserve-relocs" ;;
  esac
}

gen_case_arch() {
  local case=$1 sm=$2
  local src="$here/testdata/src/$case"
  local out="$outdir/$case/$sm"
  rm -rf "$out"; mkdir -p "$out"
  (
    ARCHS=$ALL_ARCHS; NVCC_FLAGS=""; LIVE_LINK_FLAGS=""; HOST_ARCHS=$DEFAULT_HOST_ARCHS
    PTXAS_VERSION=""
    HOST_LIBS=""
    file_arch() { echo "$2"; }
    # shellcheck disable=SC1091
    [ -f "$src/case.conf" ] && . "$src/case.conf"
    local ptxas=ptxas
    [ -z "$PTXAS_VERSION" ] || ptxas=$("$here/scripts/cuda-ptxas.sh" "$PTXAS_VERSION")
    local build="/tmp/cubin-ld-testdata/$case/$sm"
    rm -rf "$build"; mkdir -p "$build"; cp -R "$src"/. "$build"/
    cd "$build"
    : >"$out/compile.log"; : >"$out/inputs"
    for f in $(ls | grep -E '\.(cu|ptx)$' | sort); do
      local stem=${f%.*} fsm
      fsm=$(file_arch "$f" "$sm")
      if [ "${f##*.}" = ptx ]; then
        "$ptxas" -arch="$fsm" -m64 -c "$f" -o "$out/$stem.o" >>"$out/compile.log" 2>&1
      else
        # shellcheck disable=SC2086
        nvcc -dc -cubin -arch="$fsm" $NVCC_FLAGS "$f" -o "$out/$stem.o" >>"$out/compile.log" 2>&1
      fi
      echo "$stem.o" >>"$out/inputs"
    done
    # The same sources as host objects (nvcc -dc), linked as objects and as a static
    # library, for the targets in HOST_ARCHS; PTX sources have no host object.
    if [[ " $HOST_ARCHS " == *" $sm "* ]] && ! ls | grep -qE '\.ptx$'; then
      local h="$out/host" objs=()
      mkdir -p "$h"
      for f in $(ls | grep -E '\.cu$' | sort); do
        local stem=${f%.*}
        # shellcheck disable=SC2086
        nvcc -dc -arch="$(file_arch "$f" "$sm")" $NVCC_FLAGS "$f" -o "$h/$stem.o" >>"$h/compile.log" 2>&1
        objs+=("$stem.o")
      done
      (cd "$h" && ar rcsD "lib$case.a" "${objs[@]}")
      {
        printf 'objects\t-arch=%s %s %s\n' "$sm" "${objs[*]}" "$HOST_LIBS"
        printf 'archive\t-arch=%s lib%s.a %s\n' "$sm" "$case" "$HOST_LIBS"
      } >"$h/links.tsv"
      if declare -F host_extra >/dev/null; then host_extra "$h" "$sm"; fi
    fi
    rm -rf "$build"
  )
  if [ -f "$out/host/links.tsv" ]; then
    (
      cd "$out/host"
      while IFS=$'\t' read -r name args; do
        set +e
        # shellcheck disable=SC2086
        args=${args//@CUDA_LIB@/$CUDA_LIB}
        nvlink ${args//@CUDA_NVVM@/$CUDA_NVVM} -o "$name.cubin" \
          --register-link-binaries="$name.reg.c" >"$name.log" 2>&1
        echo $? >"$name.rc"
        set -e
      done <links.tsv
    )
  fi
  local extra
  extra=$( EXTRA_LINKS=""; [ -f "$src/case.conf" ] && . "$src/case.conf"; printf '%s' "$EXTRA_LINKS" )
  (
    cd "$out"
    mapfile -t objs <inputs
    : >links.tsv
    {
      for mode in default r pr; do echo "$mode $(mode_flags $mode)"; done
      if [ -n "$extra" ]; then printf "%s\n" "$extra"; fi
    } | while read -r mode flags; do
      [ -n "$mode" ] || continue
      printf '%s\t%s\n' "$mode" "$flags" >>links.tsv
      set +e
      # shellcheck disable=SC2086
      nvlink -arch="$sm" $flags "${objs[@]}" -o "$mode.cubin" >"$mode.log" 2>&1
      echo $? >"$mode.rc"
      set -e
    done
    if [ -f r.cubin ]; then
      set +e
      nvlink -arch="$sm" r.cubin -o rfinal.cubin >rfinal.log 2>&1
      echo $? >rfinal.rc
      set -e
    fi
  )
}

list_jobs() {
  local case sm archs
  for case in "${cases[@]}"; do
    [ -d "$here/testdata/src/$case" ] || { echo "gen-testdata: no case '$case'" >&2; exit 1; }
    archs=$( ARCHS=$ALL_ARCHS; f="$here/testdata/src/$case/case.conf"; [ -f "$f" ] && . "$f"; echo "$ARCHS" )
    for sm in $archs; do echo "$case $sm"; done
  done
}

export -f gen_case_arch mode_flags
CUDA_LIB="$C/lib"
CUDA_NVVM="$C/nvvm"
export here outdir ALL_ARCHS DEFAULT_HOST_ARCHS CUDA_LIB CUDA_NVVM
list_jobs | xargs -P "$jobs" -L 1 bash -c 'gen_case_arch "$0" "$1" || { echo "gen-testdata: $0 $1 failed" >&2; exit 255; }'
"$here/scripts/testdata-stamps.sh" --write -o "$outdir" "${cases[@]}"
echo "gen-testdata: wrote $outdir" >&2
