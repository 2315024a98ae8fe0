#!/bin/sh
# Builds the libFuzzer harness kk_fuzz.c and runs it: every file of
# IntegrationTests/fuzz/regressions/ once (one test each), then a fuzzing session of
# bounded time from the seed corpus (one test). The last line is exactly
# "N passed, N failed"; the exit status is non-zero when anything failed.
#
#   IntegrationTests/fuzz/run.sh [LIBDIR [SECONDS]]
#
# LIBDIR holds libkeychainkit.so (default build/lib of this repository); SECONDS
# bounds the fuzzing session (default 60). Binaries, the growing working
# corpus, the log and any crash input ("crash-*", "timeout-*", "leak-*")
# go to build/fuzz/ at the repository root. Works from any directory.
#
# Needs a clang with libFuzzer and ASan/UBSan runtimes: $KK_FUZZ_CC if set,
# else the first of clang, clang-19 ... clang-14 that can build a fuzzer;
# when none can, installs Debian's clang and its libclang-rt-N-dev (as
# root). The library itself is not instrumented: coverage guides the
# harness' model, and ASan sees the library's allocations (malloc/free are
# intercepted process-wide) and every byte the harness hands it.
#
# KK_FUZZ_ASCII_KEYS=1 in the environment folds non-ASCII keys to ASCII,
# to fuzz past the open canonical-equivalence bug (regressions/README);
# CI leaves it unset.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir_arg=${1:-$root/build/lib}
seconds=${2:-60}
out="$root/build/fuzz"
mkdir -p "$out/corpus" || exit 2

. "$root/IntegrationTests/lib/tally.sh"

case $seconds in
    ''|*[!0-9]*) echo "SECONDS must be a whole number, got '$seconds'" >&2; fail "arguments"; finish ;;
esac
require_libdir "$libdir_arg"

# ---- a clang that can build a fuzzer -----------------------------------------
probe_src="$out/probe.c"
cat >"$probe_src" <<'EOF'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { (void)data; return (int)(size & 0); }
EOF
fuzz_flags="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
link_flags=""
# Swift's clang links with gold by default, which warns about every ASan
# symbol; lld (when this clang has it) does not.
can_fuzz() {
    # shellcheck disable=SC2086 # flag lists
    "$1" $fuzz_flags "$probe_src" -o "$out/probe" >/dev/null 2>&1 || return 1
    # shellcheck disable=SC2086
    if "$1" $fuzz_flags -fuse-ld=lld "$probe_src" -o "$out/probe" >/dev/null 2>&1; then
        link_flags="-fuse-ld=lld"
    else
        link_flags=""
    fi
    return 0
}
find_cc() {
    for candidate in ${KK_FUZZ_CC:-} clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
        command -v "$candidate" >/dev/null 2>&1 || continue
        if can_fuzz "$candidate"; then cc=$candidate; return 0; fi
    done
    return 1
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
apt_install() {
    [ "$(id -u)" -eq 0 ] || { echo "need root to install: $*" >&2; return 1; }
    echo "installing: $*" >&2
    apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

cc=""
if ! find_cc; then
    # Debian's clang keeps libFuzzer and the sanitizer runtimes in
    # libclang-rt-N-dev (only "recommended" by clang).
    installed clang || apt_install clang
    if command -v clang >/dev/null 2>&1; then
        major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
        installed "libclang-rt-$major-dev" || apt_install "libclang-rt-$major-dev"
    fi
    find_cc || { fail "build kk_fuzz: no clang with libFuzzer (install clang and libclang-rt-N-dev)"; finish; }
fi
echo "== compiler: $(command -v "$cc") ($("$cc" -dumpversion))"

bin="$out/kk_fuzz"
# shellcheck disable=SC2086 # flag lists
if ! "$cc" $fuzz_flags $link_flags -std=c11 -Wall -Wextra -Werror -I"$root/include" \
    -o "$bin" "$here/kk_fuzz.c" -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir" >"$out/build.log" 2>&1; then
    sed 's/^/    /' "$out/build.log"
    fail "build kk_fuzz"
    finish
fi

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# ---- regressions: every saved crash input must now run clean ---------------
for input in "$here"/regressions/*; do
    [ -f "$input" ] || continue
    case $(basename "$input") in README*) continue ;; esac
    name=$(basename "$input")
    log="$out/regression-$name.log"
    # Never with KK_FUZZ_ASCII_KEYS: it would hide the very inputs kept here.
    if env -u KK_FUZZ_ASCII_KEYS timeout 120 "$bin" -timeout=30 "$input" >"$log" 2>&1; then
        pass "regression $name"
    else
        fail "regression $name (see $log)"
        grep -E 'divergence|ERROR|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
    fi
done

# ---- fuzzing session ---------------------------------------------------------
# The first corpus directory receives new inputs (build/, not the repo);
# the seeds are read from IntegrationTests/fuzz/corpus. -max_len bounds an input;
# -timeout fails any single input that runs longer than 10 s.
log="$out/fuzz.log"
echo "== fuzzing for $seconds s (log: $log)"
timeout $((seconds + 300)) "$bin" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/" \
    "$out/corpus" "$here/corpus" >"$log" 2>&1
status=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[[:space:]]*DONE.*/\1/p' "$log" | tail -n 1)
if [ "$status" -eq 0 ] && [ -n "$execs" ]; then
    echo "== executions: $execs in $seconds s"
    pass "fuzz kk_fuzz for $seconds s (${execs} executions, no divergence or crash)"
else
    echo "== executions before it stopped: ${execs:-unknown}"
    fail "fuzz kk_fuzz (exit $status; see $log; the input is in $out/)"
    grep -E 'divergence|ERROR|SUMMARY|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
fi

finish
