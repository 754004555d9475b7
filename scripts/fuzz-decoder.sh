#!/usr/bin/env bash
# Builds vxsim's libFuzzer target (sim/fuzz/decode_fuzzer.cc: decode + disassemble + execute
# random instruction words under ASan/UBSan) with Clang in build/fuzz and fuzzes it for SECONDS
# (default 60) with a fixed seed. CI runs it from scripts/test.sh. Exits non-zero if the build
# fails or the fuzzer finds a crash; the crashing input is saved under build/fuzz/artifacts/ and
# the message says how to replay it.
#
# Usage: scripts/fuzz-decoder.sh [SECONDS]
#   FUZZ_SEED=N      libFuzzer -seed (default 1). The same seed, corpus and SECONDS give the same
#                    mutation sequence; how far it gets in SECONDS depends on the machine.
# Longer runs: scripts/fuzz-decoder.sh 3600, or call the fuzzer directly, e.g. on 2 cores
#   build/fuzz/sim/fuzz/decode_fuzzer -dict=build/fuzz/decode.dict -max_len=512 -jobs=2 -workers=2 \
#       -artifact_prefix=build/fuzz/artifacts/ build/fuzz/corpus build/fuzz/seeds
# build/fuzz/corpus keeps what earlier runs found (CI starts from the generated seeds only).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
seed=${FUZZ_SEED:-1}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "fuzz-decoder.sh: SECONDS must be a positive integer (got '$seconds')" >&2
  exit 2
fi
for tool in clang clang++; do
  if ! command -v "$tool" > /dev/null; then
    echo "fuzz-decoder.sh: $tool not found; install clang and libclang-rt-14-dev (scripts/install-deps.sh)" >&2
    exit 2
  fi
done

build=build/fuzz
start=$SECONDS
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DVXSYNTH_FUZZ=ON -DVXSYNTH_WERROR=ON > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log" >&2
  echo "fuzz-decoder.sh: configuring $build failed" >&2
  exit 1
}
cmake --build "$build" -j2
built=$SECONDS

fuzzer=$build/sim/fuzz/decode_fuzzer
"$build/sim/fuzz/decode_fuzzer_seeds" "$build/seeds" "$build/decode.dict"
mkdir -p "$build/corpus" "$build/artifacts"
marker=$build/artifacts/.run-start
touch "$marker"
echo "fuzz-decoder.sh: fuzzing $fuzzer for ${seconds}s (seed $seed; log $build/fuzz.log)"
status=0
"$fuzzer" -max_total_time="$seconds" -seed="$seed" -timeout=10 -max_len=512 -print_final_stats=1 \
  -dict="$build/decode.dict" -artifact_prefix="$build/artifacts/" \
  "$build/corpus" "$build/seeds" > "$build/fuzz.log" 2>&1 || status=$?

if ((status != 0)); then
  tail -n 60 "$build/fuzz.log"
  echo "fuzz-decoder.sh: decode_fuzzer FAILED (exit $status); full log: $build/fuzz.log" >&2
  found=0
  while IFS= read -r artifact; do
    found=1
    echo "fuzz-decoder.sh: crashing input saved as $artifact" >&2
    echo "  reproduce: $fuzzer $artifact" >&2
    echo "  minimize:  $fuzzer -minimize_crash=1 -max_total_time=60 $artifact" >&2
  done < <(find "$build/artifacts" -type f -newer "$marker" ! -name .run-start)
  ((found)) || echo "fuzz-decoder.sh: no artifact was written (see the log)" >&2
  exit "$status"
fi
grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added)' "$build/fuzz.log" || true
echo "fuzz-decoder.sh: OK — no crash in ${seconds}s of fuzzing (build $((built - start))s, total $((SECONDS - start))s)"
