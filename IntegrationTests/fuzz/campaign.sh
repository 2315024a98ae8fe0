#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz-campaign: the fuzzers with the library itself instrumented, for
# as many executions as asked; not run by CI (which keeps run.sh's short,
# uninstrumented sessions).
#
#   IntegrationTests/fuzz/campaign.sh [EXECUTIONS]
#
# KK_FUZZ_ONLY (see run.sh) picks the harnesses, for example
# KK_FUZZ_ONLY="kk_fuzz_git kk_fuzz_docker": those run 10 million inputs in
# minutes; kk_fuzz, kk_fuzz_file and kk_fuzz_bus take hours.
#
# 1. Builds libkeychainkit.so (and libkeychainkit-fuzz-targets.so, the
#    helpers' protocols) with SanitizerCoverage (inline 8-bit counters,
#    a PC table, comparison tracing) and AddressSanitizer in its Swift and C
#    code, into .build/fuzz (a build of its own: the release build is left
#    alone) and build/fuzz-lib/. libFuzzer in a harness then sees the
#    library's branches and comparisons, not only the harness's model, and
#    steers into the file parser and the keychain's code.
# 2. Runs IntegrationTests/fuzz/run.sh on that library with
#    KK_FUZZ_RUNS=EXECUTIONS (default 10,000,000) for each harness: every
#    regression input once, then each fuzzer until it has run that many
#    inputs, or found something.
# 3. Merges what each session added to its working corpus into the
#    repository's seed corpus (IntegrationTests/fuzz/corpus and
#    corpus-file), keeping only inputs that add coverage (-merge=1), so the
#    next campaign and CI's short run start from there.
#
# Needs Swift's own clang (/opt/swift/usr/bin/clang, the one that built the
# library's instrumentation) first on PATH. The exit status is run.sh's.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
executions=${1:-10000000}
case $executions in
    ''|*[!0-9]*) echo "EXECUTIONS must be a whole number, got '$executions'" >&2; exit 2 ;;
esac
swift=${SWIFT:-swift}
libdir="$root/build/fuzz-lib"
coverage="inline-8bit-counters,pc-table,trace-cmp"

echo "== building the instrumented libraries (.build/fuzz)"
for product in keychainkit keychainkit-fuzz-targets; do
    "$swift" build -c release --product "$product" --build-path "$root/.build/fuzz" \
        --package-path "$root" --sanitize=address -Xswiftc -static-stdlib \
        -Xswiftc -sanitize-coverage=edge,$coverage -Xcc -fsanitize-coverage=$coverage || exit 2
done
mkdir -p "$libdir"
# Put in place by a rename, never written over: a campaign of another
# harness (KK_FUZZ_ONLY) may be running on the library that is there now,
# and a file rewritten under its mapping crashes it.
install_library() {
    cp "$1" "$libdir/.$2.new" && mv -f "$libdir/.$2.new" "$libdir/$2"
}
install_library "$root/.build/fuzz/release/libkeychainkit.so" libkeychainkit.so.0 || exit 2
ln -sf libkeychainkit.so.0 "$libdir/libkeychainkit.so"
install_library "$root/.build/fuzz/release/libkeychainkit-fuzz-targets.so" libkeychainkit-fuzz-targets.so || exit 2
# The library must not carry a sanitizer runtime of its own: the harness's
# (static, linked by clang -fsanitize=fuzzer,address) serves both.
if ! nm -D "$libdir/libkeychainkit.so.0" | grep -q ' U __sanitizer_cov_8bit_counters_init$'; then
    echo "campaign: the library has no coverage counters; not instrumented" >&2
    exit 2
fi

status=0
KK_FUZZ_CC=${KK_FUZZ_CC:-$(command -v clang)} KK_FUZZ_RUNS=$executions \
    "$here/run.sh" "$libdir" 60 "$libdir" || status=$?

out="$root/build/fuzz"
for pair in "kk_fuzz corpus" "kk_fuzz_file corpus-file" "kk_fuzz_git corpus-git" "kk_fuzz_docker corpus-docker" \
    "kk_fuzz_bus corpus-bus"; do
    set -- $pair
    [ -x "$out/$1" ] && [ -d "$out/$2" ] || continue
    before=$(ls "$here/$2" | wc -l)
    SWIFT_BACKTRACE=enable=no TMPDIR=${TMPDIR:-/tmp} "$out/$1" -merge=1 -max_len=4096 -timeout=10 \
        "$here/$2" "$out/$2" >"$out/merge-$1.log" 2>&1 ||
        { echo "campaign: merging $2 failed (see $out/merge-$1.log)" >&2; status=1; }
    echo "== $2: $before seed inputs before, $(ls "$here/$2" | wc -l) after the merge"
done
exit "$status"
