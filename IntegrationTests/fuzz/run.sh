#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the libFuzzer harnesses and runs them:
# - kk_fuzz.c (the C ABI on the in-memory backend, against a model): every
#   file of IntegrationTests/fuzz/regressions/ once (one test each), then a fuzzing
#   session of bounded time from the seed corpus corpus/ (one test);
# - kk_fuzz_file.c (keyring files read by kk_open_file): every file of
#   IntegrationTests/fuzz/regressions-file/ once, each of which must give the status its
#   name ends in (NAME.OK, NAME.ECORRUPT, NAME.EWRONGKEY; one test each), then
#   a fuzzing session from corpus-file/ (one test, with its exec/s);
# - kk_fuzz_protocols.c (through libkeychainkit-fuzz-targets.so, built from
#   Sources/KeychainKitFuzzTargets): built three times, kk_fuzz_git and
#   kk_fuzz_docker (the bytes the helpers read from git and Docker) and
#   kk_fuzz_bus (the Secret Service backend against a peer whose every
#   reply the input writes); every file of regressions-git/,
#   regressions-docker/ and regressions-bus/ once (one test each), then a
#   session each from corpus-git/, corpus-docker/ and corpus-bus/ (one test
#   each);
# - glib_check.py: a keyring file the library writes is GVariant in GLib's
#   normal form, outside and inside its items, and libsecret reads it (one
#   test).
# The last line is exactly "N passed, N failed"; the exit status is non-zero
# when anything failed.
#
#   IntegrationTests/fuzz/run.sh [LIBDIR [SECONDS [TARGETSDIR]]]
#
# LIBDIR holds libkeychainkit.so (default build/lib of this repository);
# TARGETSDIR holds libkeychainkit-fuzz-targets.so (default build/fuzz-targets,
# which make check-extended fills). SECONDS bounds the fuzzing sessions
# together (default 60): kk_fuzz_git, kk_fuzz_docker and kk_fuzz_bus a
# tenth each, kk_fuzz half of the rest, kk_fuzz_file the remainder (each at
# least 1 s). Binaries, the growing working
# corpora, the logs and any crash input ("crash-*", "timeout-*", "leak-*";
# kk_fuzz_file's prefixed "kk_fuzz_file-") go to build/fuzz/ at the
# repository root. Works from any directory.
#
# Needs a clang with libFuzzer and ASan/UBSan runtimes: $KK_FUZZ_CC if set,
# else the first of clang, clang-19 ... clang-14 that can build a fuzzer;
# when none can, installs Debian's clang and its libclang-rt-N-dev (as
# root). The release library (CI's run) is not instrumented: coverage
# guides the harness' model, and ASan sees the library's allocations
# (malloc/free are intercepted process-wide) and every byte the harness
# hands it. IntegrationTests/fuzz/campaign.sh (make fuzz-campaign) passes
# a library built with coverage and ASan in its own code instead, and
# KK_FUZZ_RUNS=N: each fuzzing session then runs N inputs, with no time
# bound. Each session's line gives the coverage libFuzzer reached
# (cov: edges, ft: features).
#
# KK_FUZZ_ONLY="kk_fuzz_git kk_fuzz_docker" (kk_fuzz, kk_fuzz_file,
# kk_fuzz_git, kk_fuzz_docker, kk_fuzz_bus; separated by spaces)
# runs only those fuzzing sessions (the regressions all run); for a
# campaign of one harness. CI leaves it unset.
# KK_FUZZ_ASCII_KEYS=1 in the environment folds non-ASCII keys to ASCII,
# to fuzz past the open canonical-equivalence bug (regressions/README);
# KK_FUZZ_FILE_MAX_ROUNDS=N makes kk_fuzz_file skip inputs of more PBKDF2
# rounds, to fuzz past the open unbounded-rounds hang
# (regressions-file/README); CI leaves both unset. The GLib check needs a
# python3 with gi (GLib), else installs python3-gi (as root).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir_arg=${1:-$root/build/lib}
seconds=${2:-60}
targets_dir=${3:-$root/build/fuzz-targets}
out="$root/build/fuzz"
mkdir -p "$out/corpus" "$out/corpus-file" "$out/corpus-git" "$out/corpus-docker" "$out/corpus-bus" || exit 2

. "$root/IntegrationTests/lib/tally.sh"

case $seconds in
    ''|*[!0-9]*) echo "SECONDS must be a whole number, got '$seconds'" >&2; fail "arguments"; finish ;;
esac
# The budget, split: the three protocols a tenth each, kk_fuzz half of the rest,
# kk_fuzz_file the remainder (libFuzzer reads -max_total_time=0 as "no
# limit": each gets at least 1 s).
seconds_protocol=$((seconds / 10))
[ "$seconds_protocol" -ge 1 ] || seconds_protocol=1
seconds=$((seconds - 3 * seconds_protocol))
seconds_memory=$((seconds / 2))
[ "$seconds_memory" -ge 1 ] || seconds_memory=1
seconds_file=$((seconds - seconds_memory))
[ "$seconds_file" -ge 1 ] || seconds_file=1
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
bin_file="$out/kk_fuzz_file"
writer="$out/kk_file_writer"
# shellcheck disable=SC2086 # flag lists
if ! "$cc" $fuzz_flags $link_flags -std=c11 -Wall -Wextra -Werror -I"$root/include" \
    -o "$bin" "$here/kk_fuzz.c" -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir" >"$out/build.log" 2>&1; then
    sed 's/^/    /' "$out/build.log"
    fail "build kk_fuzz"
    finish
fi
# shellcheck disable=SC2086 # flag lists
if ! "$cc" $fuzz_flags $link_flags -std=c11 -Wall -Wextra -Werror -I"$root/include" \
    -o "$bin_file" "$here/kk_fuzz_file.c" -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir" >"$out/build-file.log" 2>&1; then
    sed 's/^/    /' "$out/build-file.log"
    fail "build kk_fuzz_file"
    bin_file=""
fi
# The helpers' protocols: one binary per entry point of the fuzz targets.
protocol_bins=""
for entry in git docker bus; do
    case $entry in
        git) symbol=kk_fuzz_git_credential ;;
        docker) symbol=kk_fuzz_docker_credential ;;
        bus) symbol=kk_fuzz_bus_replies ;;
    esac
    # shellcheck disable=SC2086 # flag lists
    if [ ! -f "$targets_dir/libkeychainkit-fuzz-targets.so" ]; then
        fail "build kk_fuzz_$entry: no $targets_dir/libkeychainkit-fuzz-targets.so (make check-extended builds it)"
    elif "$cc" $fuzz_flags $link_flags -std=c11 -Wall -Wextra -Werror -DKK_FUZZ_ENTRY="$symbol" \
        -o "$out/kk_fuzz_$entry" "$here/kk_fuzz_protocols.c" -L"$targets_dir" -lkeychainkit-fuzz-targets \
        -Wl,-rpath,"$targets_dir" >"$out/build-$entry.log" 2>&1; then
        protocol_bins="$protocol_bins $entry"
    else
        sed 's/^/    /' "$out/build-$entry.log"
        fail "build kk_fuzz_$entry"
    fi
done
# The GLib check's writer: a plain program of the ABI, with ASan only so
# that it also runs on the campaign's instrumented library.
# shellcheck disable=SC2086 # flag lists
if ! "$cc" -O1 -fsanitize=address $link_flags -std=c11 -Wall -Wextra -Werror -I"$root/include" \
    -o "$writer" "$here/kk_file_writer.c" -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir" >"$out/build-writer.log" 2>&1; then
    sed 's/^/    /' "$out/build-writer.log"
    fail "build kk_file_writer"
    writer=""
fi

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Crashes are reported by ASan and libFuzzer; the Swift runtime's own
# backtracer (linked into the library) would hold a crashed harness.
export SWIFT_BACKTRACE=enable=no
runs=${KK_FUZZ_RUNS:-}
case $runs in
    *[!0-9]*) echo "KK_FUZZ_RUNS must be a whole number, got '$runs'" >&2; fail "arguments"; finish ;;
esac

# kk_fuzz_file writes each input to a private directory it makes under
# $TMPDIR; these live in one directory of this run, removed at the end, also
# after a crash or timeout ended a harness before its own cleanup. In
# /dev/shm when there is one: a write there costs no disk flush (~2.5x the
# executions of ext4's /tmp).
file_tmp=$(mktemp -d /dev/shm/kk_fuzz_file-run.XXXXXX 2>/dev/null || mktemp -d) || exit 2
trap 'rm -rf "$file_tmp"' EXIT

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

# ---- regressions of kk_fuzz_file: each gives the status its name ends in ----
if [ -n "$bin_file" ]; then
    for input in "$here"/regressions-file/*; do
        [ -f "$input" ] || continue
        name=$(basename "$input")
        case $name in README*) continue ;; esac
        want=${name##*.}
        case $want in
            OK|ECORRUPT|EWRONGKEY) ;;
            *) fail "regression-file $name: its name does not end in .OK, .ECORRUPT or .EWRONGKEY"; continue ;;
        esac
        log="$out/regression-file-$name.log"
        # Never with KK_FUZZ_FILE_MAX_ROUNDS: it would skip the very inputs kept here.
        if env -u KK_FUZZ_FILE_MAX_ROUNDS KK_FUZZ_FILE_EXPECT="$want" TMPDIR="$file_tmp" timeout 120 "$bin_file" -timeout=10 \
            "$input" >"$log" 2>&1; then
            pass "regression-file $name (kk_open_file: KK_$want)"
        else
            fail "regression-file $name (see $log)"
            grep -E 'divergence|ERROR|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
        fi
    done
fi

# ---- regressions of the protocols: each input the fuzzer once failed on ----
for entry in $protocol_bins; do
    for input in "$here/regressions-$entry"/*; do
        [ -f "$input" ] || continue
        name=$(basename "$input")
        case $name in README*) continue ;; esac
        log="$out/regression-$entry-$name.log"
        if timeout 120 "$out/kk_fuzz_$entry" -timeout=10 "$input" >"$log" 2>&1; then
            pass "regression-$entry $name"
        else
            fail "regression-$entry $name (see $log)"
            grep -E 'violated|ERROR|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
        fi
    done
done

# ---- GLib: our GVariant is GLib's normal form --------------------------------
python_gi() {
    for candidate in python3 /usr/bin/python3; do
        if "$candidate" -c 'import gi; gi.require_version("GLib", "2.0"); from gi.repository import GLib' \
            >/dev/null 2>&1; then
            python=$candidate
            return 0
        fi
    done
    return 1
}
if [ -n "$writer" ]; then
    python=""
    python_gi || { installed python3-gi || apt_install python3-gi; python_gi; }
    log="$out/glib-check.log"
    mkdir -p "$out/glib-check"
    if [ -z "$python" ]; then
        fail "glib check: no python3 with gi (GLib); install python3-gi"
    elif "$python" "$here/glib_check.py" "$writer" "$out/glib-check" >"$log" 2>&1; then
        pass "glib check: a file the library writes is GLib's normal form, items included, and libsecret reads it"
    else
        fail "glib check (see $log)"
        grep -E '^FAIL|Error|error' "$log" | head -n 8 | sed 's/^/    /'
    fi
fi

# ---- fuzzing sessions ----------------------------------------------------------
# fuzz NAME BIN SECONDS CORPUS SEEDS ARTIFACT_PREFIX: a session of bounded
# time, one test. The first corpus directory receives new inputs (build/,
# not the repo); the seeds are read from SEEDS. -max_len bounds an input;
# -timeout fails any single input that runs longer than 10 s.
fuzz() {
    name=$1 fbin=$2 fseconds=$3 fcorpus=$4 fseeds=$5 fprefix=$6
    case " ${KK_FUZZ_ONLY:-$name} " in *" $name "*) ;; *) echo "== $name: not fuzzed (KK_FUZZ_ONLY)"; return ;; esac
    log="$out/fuzz-$name.log"
    [ "$name" = kk_fuzz ] && log="$out/fuzz.log"
    if [ -n "$runs" ]; then
        echo "== fuzzing $name for $runs inputs (log: $log)"
        bound="-runs=$runs" limit="" what="$runs inputs"
    else
        echo "== fuzzing $name for $fseconds s (log: $log)"
        bound="-max_total_time=$fseconds" limit="timeout $((fseconds + 300))" what="$fseconds s"
    fi
    started=$(date +%s)
    # shellcheck disable=SC2086 # $limit: a command prefix, or nothing
    TMPDIR="$file_tmp" $limit "$fbin" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
        "$bound" -print_final_stats=1 -artifact_prefix="$fprefix" \
        "$fcorpus" "$fseeds" >"$log" 2>&1
    status=$?
    took=$(($(date +%s) - started))
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[[:space:]]*DONE.*/\1/p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    reached=$(sed -n 's/^#[0-9]*[[:space:]].* cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1, ft \2/p' "$log" | tail -n 1)
    if [ "$status" -eq 0 ] && [ -n "$execs" ]; then
        echo "== $name: $execs executions in $took s (${rate:-?} exec/s; ${reached:-coverage unknown})"
        pass "fuzz $name for $what (${execs} executions, ${rate:-?} exec/s, ${reached:-coverage unknown}, no divergence or crash)"
    else
        echo "== $name: executions before it stopped: ${execs:-unknown} (${rate:-?} exec/s)"
        fail "fuzz $name (exit $status; see $log; the input is in $out/)"
        grep -E 'divergence|ERROR|SUMMARY|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
    fi
}
fuzz kk_fuzz "$bin" "$seconds_memory" "$out/corpus" "$here/corpus" "$out/"
[ -z "$bin_file" ] ||
    fuzz kk_fuzz_file "$bin_file" "$seconds_file" "$out/corpus-file" "$here/corpus-file" "$out/kk_fuzz_file-"
for entry in $protocol_bins; do
    fuzz "kk_fuzz_$entry" "$out/kk_fuzz_$entry" "$seconds_protocol" "$out/corpus-$entry" "$here/corpus-$entry" \
        "$out/kk_fuzz_$entry-"
done

finish
