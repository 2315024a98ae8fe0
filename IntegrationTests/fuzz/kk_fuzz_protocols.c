/* SPDX-License-Identifier: MIT */
/*
 * kk_fuzz_protocols.c — libFuzzer harnesses for what parses bytes others
 * write, one binary per entry point of libkeychainkit-fuzz-targets.so
 * (Sources/KeychainKitFuzzTargets), chosen when compiling with
 * -DKK_FUZZ_ENTRY=NAME:
 *
 *   kk_fuzz_git_credential     git's credential lines (gitcredentials(7))
 *   kk_fuzz_docker_credential  docker-credential-helpers' JSON
 *   kk_fuzz_bus_replies        a Secret Service's replies, as the backend
 *                              reads them over sd-bus from a scripted peer
 *
 * What each checks is written beside its entry (HelperProtocolTargets.swift,
 * BusReplyTarget.swift);
 * a violation aborts with "kk_fuzz: violated: ..." on stderr, which
 * libFuzzer reports as a crash and saves the input of.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef KK_FUZZ_ENTRY
#error "compile with -DKK_FUZZ_ENTRY=kk_fuzz_git_credential, kk_fuzz_docker_credential or kk_fuzz_bus_replies"
#endif

int KK_FUZZ_ENTRY(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return KK_FUZZ_ENTRY(data, size);
}
