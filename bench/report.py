# SPDX-License-Identifier: MIT
"""Turns the benchmarks' JSON lines into a table of medians and ratios
against the peers measured in the same run, with each target, and writes
the whole as one JSON document.

Usage: python report.py RESULTS_JSONL CONTEXT_JSON OUTPUT_JSON
"""
import json
import sys

# (label, ours, peer, kind, target): kind "ratio" compares medians (lower is
# better, target is the highest acceptable ratio); "rate" compares ops/s
# with an absolute floor; "speedup" divides our ops/s by the peer's (higher
# is better, target is the lowest acceptable quotient); "kib" compares
# resident memory (target: the most KiB ours may use); no target: shown only.
FLOOR = "the floor (floor.c: sd-bus, DH session, search, GetSecret)"

COMPARISONS = [
    ("kk_get present vs libsecret lookup", "kk_get present", "libsecret lookup present", "ratio", 0.35),
    # The key KeychainKit has already seen absent: its cached absence,
    # confirmed by one round trip to the bus daemon (causally fresh).
    ("kk_get absent (seen absent) vs libsecret lookup", "kk_get absent", "libsecret lookup absent", "ratio", 0.3),
    # A distinct key each round that nobody has seen: a search each time.
    ("kk_get absent (never seen) vs libsecret lookup",
     "kk_get absent, never seen", "libsecret lookup absent, never seen", "ratio", None),
    # What the freshness barrier costs: one bare bus round trip (GetId to
    # org.freedesktop.DBus, sd-bus from C), measured alongside the absent read.
    ("kk_get absent (seen absent) vs bare sd-bus GetId", "kk_get absent", "sd-bus GetId round trip", "ratio", None),
    ("kk_set replace vs libsecret store", "kk_set replace", "libsecret store replace", "ratio", 0.5),
    ("kk_set new vs libsecret store (new item)", "kk_set new", "libsecret store new", "ratio", 0.9),
    ("kk_remove vs libsecret clear", "kk_remove", "libsecret clear", "ratio", None),
    ("Python binding get vs keyring get", "binding get", "keyring get", "ratio", 0.1),
    ("Python binding set vs keyring set", "binding set", "keyring set", "ratio", None),
    ("keyring get: our backend vs SecretService",
     "keyring get, keychainkit backend", "keyring get, SecretService backend", "ratio", None),
    # What keyring chooses with the package installed and no configuration:
    # ours alone (priority 11) when keyring's other viable backends keep
    # their passwords where ours reads them, as here; else its chainer.
    ("keyring get: installed (keyring's choice) vs SecretService",
     "keyring get, keychainkit installed (keyring's choice)", "keyring get, SecretService backend", "ratio", 0.05),
    ("keychainkit get vs secret-tool lookup (process)", "keychainkit get", "secret-tool lookup", "ratio", 0.4),
    # bench/floor.c: sd-bus, the DH session, one search, one GetSecret.
    ("keychainkit get vs the floor (process)", "keychainkit get", FLOOR, "ratio", 1.3),
    # Each helper against the floor measured beside it (bench_python.py).
    ("git helper get vs the floor (process)", "git-credential-keychainkit get", FLOOR + ", beside the git helpers",
     "ratio", 1.3),
    ("docker helper get vs the floor (process)", "docker-credential-keychainkit get",
     FLOOR + ", beside the Docker helpers", "ratio", None),
    # A whole get's parts: starting the process, and the service's side
    # of the encrypted transfer session (secret-tool pays it too).
    ("process start: keychainkit --version vs /bin/true", "keychainkit --version", "/bin/true", "ratio", None),
    ("service side of a new session: dh vs plain", "OpenSession, dh-ietf1024 (service side)", "OpenSession, plain",
     "ratio", None),
    ("keychainkit get vs python -m keyring get (process)", "keychainkit get", "python -m keyring get", "ratio", None),
    ("git credential fill: keychainkit vs libsecret helper", "git credential fill, git-credential-keychainkit",
     "git credential fill, git-credential-libsecret", "ratio", None),
    ("git helper get: keychainkit vs libsecret (process)", "git-credential-keychainkit get",
     "git-credential-libsecret get", "ratio", None),
    ("docker helper get: keychainkit vs secretservice (process)", "docker-credential-keychainkit get",
     "docker-credential-secretservice get", "ratio", None),
    # bench_batch.c: a keyring of 1,100 items; 100 accounts of one service
    # read cold, the accounts of a service of 1,000 listed.
    ("100 cold reads: kk_get_many (one batch) vs 100 libsecret lookups", "kk_get_many, 100 accounts",
     "libsecret lookup x100", "ratio", 0.15),
    ("100 cold reads: 100 kk_get vs 100 libsecret lookups", "kk_get x100, cold", "libsecret lookup x100", "ratio", None),
    # 100 accounts spread over the service of 1,000: the batch costs the
    # request, not the service (issue 33: at most 0.5x).
    ("100 of a service of 1,000: kk_get_many vs 100 libsecret lookups", "kk_get_many, 100 of a service of many",
     "libsecret lookup x100, service of many", "ratio", 0.5),
    ("the same, on a handle that read them before", "kk_get_many, 100 of a service of many, warm handle",
     "libsecret lookup x100, service of many", "ratio", 0.5),
    ("listing 1,000 accounts: kk_list vs libsecret search", "kk_list, many accounts",
     "libsecret search, many accounts", "ratio", 0.25),
    ("write with many observers elsewhere vs none", "kk_set, many observers on other keys", "kk_set, 0 observers", "ratio", 1.1),
    # 4 writer processes at once, each with its own connection; every key
    # checked to have exactly one item afterwards (bench_contention.c).
    ("4 writer processes, distinct keys, vs libsecret", "kk_set, 4 processes, distinct keys",
     "libsecret store, 4 processes, distinct keys", "speedup", 1.5),
    ("4 writer processes, one key, vs libsecret", "kk_set, 4 processes, one key",
     "libsecret store, 4 processes, one key", "speedup", 1.5),
    # The file store (bench_file.c) against libsecret's file backend
    # (SECRET_BACKEND=file), same master secret, 20 items each.
    ("file kk_get, 1 thread (unchanged file)", "file kk_get, 1 thread", None, "rate", 100_000),
    ("file kk_get vs libsecret file lookup", "file kk_get", "libsecret file lookup", "ratio", None),
    ("file kk_set vs libsecret file store (replace)", "file kk_set replace", "libsecret file store replace", "ratio", None),
    ("keychainkit file get vs secret-tool lookup (process)", "keychainkit file get (process)",
     "secret-tool file lookup (process)", "ratio", None),
    ("keychainkit file set vs secret-tool store (process)", "keychainkit file set (process)",
     "secret-tool file store (process)", "ratio", None),
    # bench_server.c: keychainkitd and gnome-keyring with the same clients;
    # "small" and "large" collections: 100 and 5,000 items in a full run.
    ("keychainkitd vs gnome-keyring: libsecret lookup", "keychainkitd: libsecret lookup, small collection",
     "gnome-keyring: libsecret lookup, small collection", "ratio", 0.5),
    ("keychainkitd vs gnome-keyring: secret-tool lookup (process)", "keychainkitd: secret-tool lookup (process)",
     "gnome-keyring: secret-tool lookup (process)", "ratio", 0.7),
    ("keychainkitd vs gnome-keyring: create (libsecret store)", "keychainkitd: create, first items",
     "gnome-keyring: create, first items", "ratio", 0.3),
    ("keychainkitd vs gnome-keyring: create in the large collection", "keychainkitd: create, last items of the large collection",
     "gnome-keyring: create, last items of the large collection", "ratio", None),
    # server_floor.c: the protocol alone, the least any server costs.
    ("the floor server vs gnome-keyring: libsecret lookup", "the floor server: libsecret lookup, small collection",
     "gnome-keyring: libsecret lookup, small collection", "ratio", None),
    ("keychainkitd vs the floor server: libsecret lookup", "keychainkitd: libsecret lookup, small collection",
     "the floor server: libsecret lookup, small collection", "ratio", None),
    ("the floor server vs gnome-keyring: secret-tool lookup (process)", "the floor server: secret-tool lookup (process)",
     "gnome-keyring: secret-tool lookup (process)", "ratio", None),
    ("keychainkitd vs the floor server: secret-tool lookup (process)", "keychainkitd: secret-tool lookup (process)",
     "the floor server: secret-tool lookup (process)", "ratio", None),
    ("keychainkitd: lookup, large vs small collection", "keychainkitd: libsecret lookup, large collection",
     "keychainkitd: libsecret lookup, small collection", "ratio", 1.5),
    ("gnome-keyring: lookup, large vs small collection", "gnome-keyring: libsecret lookup, large collection",
     "gnome-keyring: libsecret lookup, small collection", "ratio", None),
    ("keychainkitd: create, large vs small collection", "keychainkitd: create, last items of the large collection",
     "keychainkitd: create, first items", "ratio", None),
    ("keychainkitd vs gnome-keyring: a call behind another client's flood", "keychainkitd: a call behind another client's flood",
     "gnome-keyring: a call behind another client's flood", "ratio", None),
    ("keychainkitd vs gnome-keyring: resident memory, large collection", "keychainkitd: resident memory, large collection",
     "gnome-keyring: resident memory, large collection", "kib", 50 * 1024),
    ("in-memory kk_get, 1 thread", "kk_get, 1 thread", None, "rate", 2_000_000),
    ("in-memory kk_get, 2 threads", "kk_get, 2 threads", None, "rate", None),
    ("in-memory kk_set, 1 thread", "kk_set, 1 thread", None, "rate", None),
    ("in-memory kk_set, 2 threads", "kk_set, 2 threads", None, "rate", None),
]

# Single measurements shown as they are (median, no peer): (label, name).
SINGLES = [
    ("bus round trip: sd-bus GetId (freshness barrier)", "sd-bus GetId round trip"),
    # From another process's acknowledged write to the observer's callback
    # (bench_outside_changes.c), including the coalescing window (KK_OBSERVE_COALESCE_MS).
    ("observer: outside create -> callback", "outside create -> callback"),
    ("observer: outside update in place -> callback", "outside update in place -> callback"),
    ("observer: outside remove -> callback", "outside remove -> callback"),
    # What announcing an in-place update costs a write: one signal sent.
    ("announcement: sd-bus signal send", "sd-bus signal send"),
    ("loading: dlopen + first call (fresh processes)", "dlopen + first call"),
]


def fmt_ns(ns):
    if ns >= 1_000_000:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1_000:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns} ns"


def main():
    results_path, context_path, output_path = sys.argv[1:4]
    measurements = {}
    with open(results_path) as results:
        for line in results:
            line = line.strip()
            if line.startswith("{"):
                entry = json.loads(line)
                measurements[entry["name"]] = entry
    with open(context_path) as context_file:
        context = json.load(context_file)

    print("KeychainKit benchmark")
    for key, value in context.items():
        print(f"  {key}: {value}")
    print()
    rows = []
    print(f"{'comparison':<52} {'ours':>14} {'peer':>14} {'ratio':>7} {'target':>10}  verdict")
    for label, ours, peer, kind, target in COMPARISONS:
        mine = measurements.get(ours)
        theirs = measurements.get(peer) if peer else None
        if mine is None or (peer and theirs is None):
            print(f"{label:<52} {'not measured':>14}")
            rows.append({"comparison": label, "verdict": "not measured"})
            continue
        if kind == "rate":
            value = mine["ops_per_s"]
            verdict = "" if target is None else ("met" if value >= target else "MISSED")
            print(f"{label:<52} {value:>10,.0f}/s {'':>14} {'':>7} {('>= ' + format(target, ',')) if target else '':>10}  {verdict}")
            rows.append({"comparison": label, "ops_per_s": value, "target_ops_per_s": target, "verdict": verdict})
        elif kind == "kib":
            ratio = mine["kib"] / max(theirs["kib"], 1)
            verdict = "" if target is None else ("met" if mine["kib"] <= target else "MISSED")
            print(f"{label:<52} {mine['kib'] / 1024:>10.1f} MiB {theirs['kib'] / 1024:>10.1f} MiB {ratio:>6.2f}x "
                  f"{('<= ' + str(target // 1024) + ' MiB') if target else '':>10}  {verdict}")
            rows.append({"comparison": label, "ours_kib": mine["kib"], "peer_kib": theirs["kib"], "ratio": round(ratio, 3),
                         "target_kib": target, "verdict": verdict})
        elif kind == "speedup":
            speedup = mine["ops_per_s"] / max(theirs["ops_per_s"], 1)
            verdict = "" if target is None else ("met" if speedup >= target else "MISSED")
            print(f"{label:<52} {mine['ops_per_s']:>10,.0f}/s {theirs['ops_per_s']:>10,.0f}/s "
                  f"{speedup:>6.2f}x {('>= ' + str(target) + 'x') if target else '':>10}  {verdict}")
            rows.append({"comparison": label, "ops_per_s": mine["ops_per_s"], "peer_ops_per_s": theirs["ops_per_s"],
                         "speedup": round(speedup, 3), "target_speedup": target, "verdict": verdict})
        else:
            ratio = mine["median_ns"] / max(theirs["median_ns"], 1)
            verdict = "" if target is None else ("met" if ratio <= target else "MISSED")
            print(f"{label:<52} {fmt_ns(mine['median_ns']):>14} {fmt_ns(theirs['median_ns']):>14} "
                  f"{ratio:>6.2f}x {('<= ' + str(target) + 'x') if target else '':>10}  {verdict}")
            rows.append({"comparison": label, "ours_median_ns": mine["median_ns"],
                         "peer_median_ns": theirs["median_ns"], "ratio": round(ratio, 3),
                         "target_ratio": target, "verdict": verdict})
    for label, name in SINGLES:
        single = measurements.get(name)
        if single:
            p99 = f", p99 {fmt_ns(single['p99_ns'])}" if "p99_ns" in single else ""
            print(f"{label:<52} {fmt_ns(single['median_ns']):>14} {'median of ' + str(single['samples']):>24}{p99}")
            rows.append({"comparison": label, "ours_median_ns": single["median_ns"],
                         "ours_p99_ns": single.get("p99_ns"), "samples": single["samples"]})
    with open(output_path, "w") as output:
        json.dump({"context": context, "comparisons": rows, "measurements": measurements}, output, indent=2)
    print(f"\nJSON: {output_path}")


if __name__ == "__main__":
    main()
