#!/usr/bin/env bash
# The live differential test: compiles every testdata case for its targets (sm_75, sm_80,
# sm_86, sm_89, sm_90, sm_100, sm_120; some cases also sm_100a, sm_103, sm_103f, sm_110,
# sm_120a, sm_120f, sm_121) with the pinned toolkit, links each with nvlink and with cubin-ld
# (every executable link the case records in links.tsv: the default mode, -preserve-relocs
# and its extra flags), and checks that
#   - where nvlink succeeds, cubin-ld succeeds and `cubin-dump --compare --ignore-linker-note`
#     finds no difference, and cuobjdump -elf and nvdisasm read cubin-ld's output;
#   - where nvlink fails, cubin-ld fails with the same exit status and writes no output.
# Every case whose -r link both linkers make is also finished by nvlink from cubin-ld's -r
# output and compared with nvlink's finishing of its own (rfinal.cubin).
# Links cubin-ld refuses as "not implemented yet" (see tests/link_equiv.rs) are counted as
# skipped; the differences listed in KNOWN_DIFFERENT (see
# tests/link_equiv.rs for the reasons) are reported, not failed.
#
#   scripts/oracle.sh [--committed | CASE...]
#
# --committed links the committed corpus (testdata/out, nvlink's recorded outcomes; its
# stamps say it is what the sources make, scripts/testdata-stamps.sh) instead of compiling
# every case (CI: compiling is 35 minutes on two cores).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
C=$(scripts/cuda-toolkit.sh)
cargo build --release --quiet --bins
ld="$here/target/release/cubin-ld"
dump="$here/target/release/cubin-dump"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# (CUBIN_LD_GENERATED: the corpus scripts/check-testdata.sh just regenerated, not compiled
# again.)
gen=$scratch/out
if [ "${1:-}" = --committed ]; then
  # (A copy: the checks write their outputs beside nvlink's.)
  cp -R testdata/out "$gen"
elif [ -n "${CUBIN_LD_GENERATED:-}" ] && [ $# = 0 ] && [ -d "$CUBIN_LD_GENERATED" ]; then
  gen=$CUBIN_LD_GENERATED
else
  scripts/gen-testdata.sh -o "$gen" "$@" 2>/dev/null
fi
ARCHS="sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_100a sm_103 sm_103f sm_110 sm_120 sm_120a sm_120f sm_121"
# Patterns (`*` any text) read from tests/link_equiv.rs (KNOWN_DIFFERENT there, with each
# reason) and tests/common/mod.rs (RESCHEDULED_BY_NVLINK), so that the lists cannot part.
# Each must be read: one the grep missed would fail its links.
patterns() { # FILE ARRAY
  local src read
  src=$(sed -n "/^pub const $2\|^const $2/,/^];/p" "$here/$1")
  read=$(grep -oE '"[a-z0-9_*]+/sm_[0-9a-z*]+(/[a-z0-9_*]+)?"' <<<"$src" | tr -d '"')
  if [ "$(wc -w <<<"$read")" != "$(grep -oE '"[^" ]*/[^" ]*"' <<<"$src" | wc -l)" ]; then
    echo "oracle: a $2 pattern in $1 is not of the form case/sm_XX[/mode]" >&2
    exit 1
  fi
  echo "$read"
}
# matches LABEL SUFFIX PATTERN...: whether LABEL matches some PATTERN followed by SUFFIX.
# (Callers split the lists with globbing off: the patterns are for `case`, not for the file
# system.)
matches() {
  local label=$1 suffix=$2 p
  shift 2
  for p in "$@"; do
    # shellcheck disable=SC2254
    case "$label" in $p$suffix) return 0 ;; esac
  done
  return 1
}
KNOWN_DIFFERENT=$(patterns tests/link_equiv.rs KNOWN_DIFFERENT)
RESCHEDULED=$(patterns tests/common/mod.rs RESCHEDULED_BY_NVLINK)
known=0
pass=0
fail=0
skipped=0
# check_link DIR LABEL SM MODE FLAGS: one executable link, nvlink's recorded outcome vs ours.
check_link() {
  local d=$1 label=$2 sm=$3 mode=$4 flags=$5 nv_rc rc out="$1/cubin-ld.$4.cubin" is_known=0
  nv_rc=$(cat "$d/$mode.rc")
  set +e
  # shellcheck disable=SC2086
  "$ld" -arch="$sm" $flags "${objs[@]}" -o "$out" >"$d/cubin-ld.log" 2>&1
  rc=$?
  set -e
  if [ "$nv_rc" != 0 ]; then
    if [ "$rc" = "$nv_rc" ] && [ ! -e "$out" ]; then
      pass=$((pass + 1)); return 0
    fi
    # (A known difference may be a link nvlink fails: dead_extern_pool's internal error.)
    # shellcheck disable=SC2086
    set -f; matches "$label" "" $KNOWN_DIFFERENT && is_known=1; set +f
    if [ "$is_known" = 1 ] && [ "$rc" = 0 ]; then
      echo "oracle: $label: known difference (nvlink exits $nv_rc)"; known=$((known + 1)); return 0
    fi
    echo "oracle: $label: nvlink exits $nv_rc, cubin-ld exits $rc"; sed 's/^/    /' "$d/cubin-ld.log"; fail=$((fail + 1)); return 1
  fi
  if [ "$rc" != 0 ] && grep -q "not implemented yet" "$d/cubin-ld.log"; then
    echo "oracle: $label: skipped ($(sed -n 's/.*fatal *: //p' "$d/cubin-ld.log"))"
    skipped=$((skipped + 1)); return 0
  fi
  if [ "$rc" != 0 ]; then
    echo "oracle: $label: cubin-ld failed:"; sed 's/^/    /' "$d/cubin-ld.log"; fail=$((fail + 1)); return 1
  fi
  # Links whose code nvlink re-schedules (sm_100+ kernels with an early exit get
  # whole-program ptxas's scoreboards; cubin-ld keeps ptxas's -rdc scheduling) are compared
  # without the scheduling control bits: the cases tests/common/mod.rs lists
  # (RESCHEDULED_BY_NVLINK), read from there so that the two lists cannot part.
  local sched=""
  # shellcheck disable=SC2086
  set -f; matches "$label" "/*" $RESCHEDULED && sched=--ignore-scoreboards; set +f
  if ! "$dump" --compare --ignore-linker-note $sched "$d/$mode.cubin" "$out" >"$d/diff.txt"; then
    # shellcheck disable=SC2086
    set -f; matches "$label" "" $KNOWN_DIFFERENT && is_known=1; set +f
    if [ "$is_known" = 0 ]; then
      echo "oracle: $label differs from nvlink:"; sed 's/^/    /' "$d/diff.txt" | head -30; fail=$((fail + 1)); return 1
    fi
    echo "oracle: $label: known difference"
  fi
  # The tools must read our output with no complaint they do not also make about nvlink's
  # (an empty .debug_frame, when -kernels-used removes every function, draws a note on both).
  # nvlink's output is shown to a tool only when ours draws a complaint: nvdisasm takes half a
  # second to start, and running it on both outputs of every link was half of the oracle's time.
  local tool
  for tool in "cuobjdump -elf" nvdisasm; do
    if ! tool_reads "$d" "$tool" "$out" "$mode"; then
      echo "oracle: $label: $tool complains:"; sed 's/^/    /' "$d/tool.err"; fail=$((fail + 1)); return 1
    fi
  done
  if [ "$is_known" = 1 ]; then known=$((known + 1)); else pass=$((pass + 1)); fi
}

# tool_reads DIR TOOL OUT MODE: TOOL reads OUT silently, or complains only as it complains
# about nvlink's output of the same link.
tool_reads() {
  local d=$1 tool=$2 out=$3 mode=$4
  # shellcheck disable=SC2086
  "$C/bin/"$tool "$out" >/dev/null 2>"$d/tool.err" || return 1
  [ -s "$d/tool.err" ] || return 0
  # shellcheck disable=SC2086
  "$C/bin/"$tool "$d/$mode.cubin" >/dev/null 2>"$d/tool.nv.err" || true
  cmp -s "$d/tool.err" "$d/tool.nv.err"
}

# check_dir DIR: every link of one case and target; its counts go to DIR/oracle.counts.
check_dir() {
  local d=$1 sm rel ref order
  sm=$(basename "$d")
  rel=${d#"$gen/"}
  mapfile -t objs < <(sed "s|^|$d/|" "$d/inputs")
  while IFS=$'\t' read -r mode flags; do
    check_link "$d" "$rel/$mode" "$sm" "$mode" "$flags" || true
  done <"$d/links.tsv"
  # A case's LIVE_LINK_FLAGS (-lcudadevrt: NVIDIA code the corpus does not commit) make one
  # more link, nvlink's outcome recorded here and now.
  local live
  live=$(bash -c 'LIVE_LINK_FLAGS=""; . "$1" >/dev/null 2>&1; echo "$LIVE_LINK_FLAGS"' _ \
    "$here/testdata/src/${rel%%/*}/case.conf" 2>/dev/null || true)
  if [ -n "$live" ]; then
    set +e
    # shellcheck disable=SC2086
    "$C/bin/nvlink" -arch="$sm" -L"$C/lib" $live "${objs[@]}" -o "$d/live.cubin" >"$d/live.log" 2>&1
    echo $? >"$d/live.rc"
    set -e
    check_link "$d" "$rel/live" "$sm" live "-L$C/lib $live" || true
  fi
  # Round trip: nvlink finishes cubin-ld's partial link as it finishes its own. Where nvlink's
  # own -r loses information (texture references), cubin-ld's must give the one-step link.
  # Where nvlink's own links drop what cubin-ld keeps (a __constant__ table's relocation to a
  # losing weak copy: docs/differences.md), nvlink must finish cubin-ld's -r output as
  # cubin-ld finishes it.
  ref="$d/rfinal.cubin" order="" r_known=0
  case "$rel" in
    texref_ptx/sm_[789]*) ref="$d/default.cubin" order=--ignore-order ;;
    weak_copy_in_function_table/*)
      ref="$d/rt-cubin-ld.cubin"
      "$ld" -arch="$sm" "$d/cubin-ld.r.cubin" -o "$ref" >/dev/null 2>&1 || true
      ;;
  esac
  # (A documented difference of the -r link lives on in what nvlink makes of it, unless the
  # case names its own reference above.)
  # shellcheck disable=SC2086
  set -f; [ "$ref" = "$d/rfinal.cubin" ] && matches "$rel/r" "" $KNOWN_DIFFERENT && r_known=1; set +f
  if [ -f "$d/cubin-ld.r.cubin" ] && [ "$(cat "$d/rfinal.rc" 2>/dev/null)" = 0 ]; then
    # shellcheck disable=SC2086
    if "$C/bin/nvlink" -arch="$sm" "$d/cubin-ld.r.cubin" -o "$d/rt.cubin" >"$d/rt.log" 2>&1 \
      && "$dump" --compare $order --ignore-linker-note --ignore-section .note.nv.tkinfo \
        "$ref" "$d/rt.cubin" >"$d/diff.txt"; then
      pass=$((pass + 1))
    elif [ "$r_known" = 1 ]; then
      echo "oracle: $rel: round trip: known difference (of the -r link)"; known=$((known + 1))
    else
      echo "oracle: $rel: nvlink's final link of cubin-ld's -r output differs from its own round trip:"
      sed 's/^/    /' "$d/rt.log" "$d/diff.txt" | head -30; fail=$((fail + 1))
    fi
  fi
  echo "$pass $fail $skipped $known" >"$d/oracle.counts"
}

# The case directories are checked side by side (each link runs four tools one after the
# other: on one core the oracle was half of CI's time), their reports printed in order.
dirs=()
for d in "$gen"/*/*/; do
  d=${d%/}
  case " $ARCHS " in *" $(basename "$d") "*) dirs+=("$d") ;; esac
done
jobs=${CUBIN_LD_ORACLE_JOBS:-$(nproc 2>/dev/null || echo 2)}
running=0
for d in "${dirs[@]}"; do
  # (A count left by an earlier run must not stand for a check that dies in this one.)
  rm -f "$d/oracle.counts"
  (check_dir "$d" >"$d/oracle.out" 2>&1 || true) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true
for d in "${dirs[@]}"; do
  cat "$d/oracle.out"
  if ! read -r p f s k <"$d/oracle.counts"; then
    echo "oracle: ${d#"$gen/"}: the check did not finish"; fail=$((fail + 1)); continue
  fi
  pass=$((pass + p)) fail=$((fail + f)) skipped=$((skipped + s)) known=$((known + k))
done
echo "oracle: $pass passed, $fail failed, $skipped skipped (not implemented yet), $known known differences"
[ "$fail" = 0 ]
