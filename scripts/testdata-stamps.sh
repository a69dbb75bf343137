#!/usr/bin/env bash
# Stamps of the committed corpus. testdata/out/<case>/STAMP records what scripts/gen-testdata.sh
# made the case from (the pinned toolkit, the generator's commands, each file of
# testdata/src/<case>) and a digest of every file it wrote, so that CI tells in seconds that
# the committed corpus is what the generator makes of today's sources and was not edited
# since, without compiling it again (35 minutes on two cores: scripts/check-testdata.sh does
# that on demand, and CI regenerates a sample of cases; see docs/testing.md).
#
#   scripts/testdata-stamps.sh [--write] [-o OUTDIR] [CASE...]
#
# Without --write, checks the stamps of the named cases (default: every case in testdata/src
# and testdata/out) and exits 1 naming each case that is stale, unstamped or not generated.
# gen-testdata.sh writes the stamps of what it generates (--write).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
write=0
outdir=testdata/out
while [ $# -gt 0 ]; do
  case "$1" in
    --write) write=1; shift ;;
    -o) outdir=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{/^#/p}' "$0"; exit 0 ;;
    *) break ;;
  esac
done

# What every case is made with, the same for all. (Comments and blank lines of the generator
# do not count: rewording one must not call for 35 minutes of regeneration.)
common="# written by scripts/gen-testdata.sh; checked by scripts/testdata-stamps.sh
toolkit $(grep -E '^(VERSION|CCCL_VERSION)=' scripts/cuda-toolkit.sh | sed 's/ *#.*//' | paste -sd' ')
generator $(grep -vE '^[[:space:]]*(#|$)' scripts/gen-testdata.sh | sha256sum | cut -c1-64)"

# stamp CASE: the stamp the case's sources and generated files call for.
stamp() {
  local case=$1
  echo "$common"
  (cd "testdata/src/$case" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
    sed -E 's|^([0-9a-f]+)  \./|source \1 |'
  echo "generated $(cd "$outdir/$case" && find . -type f ! -name STAMP -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-64)"
}

if [ $# -gt 0 ]; then cases=("$@"); else
  cases=()
  for d in testdata/src/*/ "$outdir"/*/; do cases+=("$(basename "$d")"); done
  mapfile -t cases < <(printf '%s\n' "${cases[@]}" | LC_ALL=C sort -u)
fi

stale=0
for case in "${cases[@]}"; do
  if [ ! -d "testdata/src/$case" ] && [ ! -d "$outdir/$case" ]; then
    echo "testdata-stamps: no case '$case'" >&2; stale=1; continue
  fi
  if [ ! -d "testdata/src/$case" ]; then
    echo "testdata-stamps: $outdir/$case has no sources (testdata/src/$case): remove it" >&2; stale=1; continue
  fi
  if [ ! -d "$outdir/$case" ]; then
    echo "testdata-stamps: $case is not generated: scripts/gen-testdata.sh $case" >&2; stale=1; continue
  fi
  if [ "$write" = 1 ]; then
    stamp "$case" >"${TMPDIR:-/tmp}/stamp-$$" && mv "${TMPDIR:-/tmp}/stamp-$$" "$outdir/$case/STAMP"
  elif [ ! -f "$outdir/$case/STAMP" ]; then
    echo "testdata-stamps: $case has no stamp: scripts/gen-testdata.sh $case" >&2; stale=1
  elif ! diff <(stamp "$case") "$outdir/$case/STAMP" >"${TMPDIR:-/tmp}/stamp-$$.diff"; then
    echo "testdata-stamps: $case is stale (regenerate it: scripts/gen-testdata.sh $case):" >&2
    sed -nE "s|^[<>] toolkit .*|    the pinned toolkit changed|p
      s|^[<>] generator .*|    scripts/gen-testdata.sh changed|p
      s|^[<>] source [0-9a-f]+ (.*)|    testdata/src/$case/\\1 changed|p
      s|^[<>] generated .*|    $outdir/$case was changed after it was generated|p" \
      "${TMPDIR:-/tmp}/stamp-$$.diff" | sort -u >&2
    stale=1
  fi
done
rm -f "${TMPDIR:-/tmp}/stamp-$$.diff"
[ "$write" = 1 ] || [ "$stale" = 1 ] || echo "testdata-stamps: ${#cases[@]} case(s) as generated from their sources"
exit $stale
