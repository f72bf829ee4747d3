#!/usr/bin/env bash
# Snapshots every observable output of `rill` over the corpus, the benchmarks and generated
# programs, for proving that a behaviour-preserving change preserves behaviour:
#
#   experiments/scripts/snapshot.sh target/release/rill /tmp/snap-before
#   ... change ...
#   experiments/scripts/snapshot.sh target/release/rill /tmp/snap-after
#   diff -r /tmp/snap-before /tmp/snap-after
#
# Per program: `rill emit --what tokens|ast|ir|asm`; `rill check` and `rill run` under every
# architecture (stdout, stderr with the rendered diagnostics, exit code, and the image hash
# of the stats JSON); a query build on a cold and then a warm cache directory. Generated
# programs come from `experiments gen` (its text is part of the snapshot). Timings are not
# observable output and are left out.
set -uo pipefail
rill=$(realpath "$1")
out=$2
exp=${EXPERIMENTS_BIN:-$(dirname "$rill")/experiments}
cd "$(dirname "$0")/../.."
rm -rf "$out"; mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

progs=()
for f in experiments/corpus/*/*.rs experiments/corpus/*/*/main.rs experiments/benchmarks/*.rs; do
  progs+=("$f")
done
for seed in 1 2 3 4 5 6; do
  lines=$(( seed * 700 ))
  "$exp" gen --lines "$lines" --seed "$seed" --out "$work/gen$seed" >/dev/null 2>&1 || echo "gen $seed failed" >> "$out/_errors"
  (cd "$work/gen$seed" && find . -type f | sort | xargs sha256sum) > "$out/gen$seed.text.sha256"
  progs+=("$work/gen$seed/main.rs")
done

image_hash() { sed -n 's/.*"image_hash": *"\([0-9a-f]*\)".*/\1/p' "$1" 2>/dev/null | head -1; }

for p in "${progs[@]}"; do
  name=$(echo "$p" | sed "s|$work/||; s|/|__|g")
  d="$out/$name"; mkdir -p "$d"
  for w in tokens ast ir asm; do
    "$rill" emit "$p" --what $w > "$d/emit-$w.out" 2> "$d/emit-$w.err"; echo $? > "$d/emit-$w.exit"
  done
  for a in pipeline query; do
    "$rill" check "$p" --arch $a > "$d/check-$a.out" 2> "$d/check-$a.err"; echo $? > "$d/check-$a.exit"
    rm -f "$work/stats.json"
    timeout 60 "$rill" run "$p" --arch $a --stats-json "$work/stats.json" > "$d/run-$a.out" 2> "$d/run-$a.err"; echo $? > "$d/run-$a.exit"
    image_hash "$work/stats.json" > "$d/run-$a.image"
  done
  case "$p" in experiments/benchmarks/*) ;; *)
    timeout 60 "$rill" run "$p" --arch interp > "$d/run-interp.out" 2> "$d/run-interp.err"; echo $? > "$d/run-interp.exit";;
  esac
  rm -rf "$work/cache"
  for pass in cold warm; do
    rm -f "$work/stats.json"
    timeout 60 "$rill" run "$p" --arch query --cache-dir "$work/cache" --stats-json "$work/stats.json" > "$d/cache-$pass.out" 2> "$d/cache-$pass.err"; echo $? > "$d/cache-$pass.exit"
    image_hash "$work/stats.json" > "$d/cache-$pass.image"
  done
done
# Temporary paths must not make snapshots differ.
grep -rl "$work" "$out" 2>/dev/null | xargs -r sed -i "s|$work|WORK|g"
echo "snapshot of ${#progs[@]} programs in $out"
