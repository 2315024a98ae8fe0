#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the seed corpus of kk_fuzz.c into IntegrationTests/fuzz/corpus/ (the files are
# committed; rerun this after changing the input format of kk_fuzz.c).
#
# The format, as kk_fuzz.c reads it (every value is one byte unless said):
#   opcode % 8: 0 open SLOT (|0x80: kk_open_memory(NULL))  1 close SLOT
#               2 set H S A VALUE   3 get H S A VARIANT   4 remove H S A
#               5 observe H S A FLAGS   6 unobserve H TOKEN   7 check SLOT
#   H (handle): SLOT % 3, or a NULL handle when H % 16 == 15
#   S, A (strings): 0 NULL; 1.. a table entry: 1 "a" 2 "b" 3 "svc" 4 ""
#       5 the program name (= the default service) 6 U+00E9 7 e+U+0301
#       8 U+00C5 9 U+212B 10 A+U+030A 11 U+1F511 12 U+FFFE 13 \xFF
#       14 \xC3 15 surrogate 16 overlong NUL 17 >U+10FFFF 18 a\x80z;
#       19..31: raw, then LEN % 12 and LEN bytes
#   VALUE: MODE % 8: 0 NULL,0  1 NULL,1+N  2 NULL,SIZE_MAX  3 NULL,MAX+1
#       4 (K+1) KiB of pattern from FILL (K FILL)  5-7 LEN % 64, LEN bytes
#   VARIANT % 4: 0 full check (also through the resolved service)
#       1 out_value NULL  2 out_len NULL  3 plain
#   FLAGS: % 5 callback mode (0 count 1 get 2 unobserve self 3 get+unobserve
#       4 unobserve self twice); bit 0x08: no destroy; (FLAGS & 0x70) ==
#       0x70: NULL callback, == 0x60: NULL out_token
#   TOKEN: < 192: the token of observer slot TOKEN % 64; < 224: 0;
#       else 8 more bytes (big-endian)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/corpus"
mkdir -p "$out"
seed() { printf '%b' "$2" >"$out/$1"; }

# set, get, remove, get of absent, remove of absent, full check
seed basic '\x00\x00''\x02\x00\x03\x01\x05\x03abc''\x03\x00\x03\x01\x00''\x04\x00\x03\x01''\x03\x00\x03\x01\x00''\x04\x00\x03\x01''\x07\x00'
# default (NULL) service read back by name; embedded NULs; empty value; out_len NULL
seed nul_bytes '\x00\x00''\x02\x00\x00\x02\x05\x04a\x00b\x00''\x03\x00\x05\x02\x00''\x02\x00\x03\x02\x00''\x03\x00\x03\x02\x02'
# two observers (count, get), set, remove, unobserve, set again, close
seed observers '\x00\x00''\x05\x00\x03\x01\x00''\x05\x00\x03\x01\x01''\x02\x00\x03\x01\x05\x01x''\x04\x00\x03\x01''\x06\x00\x00''\x02\x00\x03\x01\x05\x01y''\x01\x00'
# re-entrant callbacks: unobserve self, get+unobserve, unobserve twice, no destroy
seed reentrant '\x00\x00''\x05\x00\x03\x01\x02''\x05\x00\x03\x01\x03''\x05\x00\x03\x01\x04''\x05\x00\x03\x01\x08''\x02\x00\x03\x01\x05\x01x''\x02\x00\x03\x01\x05\x01y''\x04\x00\x03\x01''\x06\x00\xe0\x00\x00\x00\x00\x00\x00\x00\x07''\x06\x00\xc0'
# rejected calls: bad UTF-8, empty strings, NULL handle, NULL value with a length,
# SIZE_MAX, out_value NULL, NULL callback, NULL out_token, NULL out, NULL account
seed invalid '\x00\x00''\x02\x00\x03\x0d\x05\x01x''\x02\x00\x0e\x01\x05\x01x''\x02\x00\x03\x04\x05\x01x''\x02\x0f\x03\x01\x05\x01x''\x02\x00\x03\x01\x01\x04''\x02\x00\x03\x01\x02''\x03\x00\x03\x01\x01''\x05\x00\x03\x01\x70''\x05\x00\x03\x01\x60''\x00\x80''\x04\x00\x03\x00''\x07\x00'
# handles are independent: an observer on handle 1 never hears handle 0
seed handles '\x00\x00''\x00\x01''\x02\x00\x03\x01\x05\x011''\x02\x01\x03\x01\x05\x012''\x05\x01\x03\x01\x00''\x02\x00\x03\x01\x05\x013''\x03\x01\x03\x01\x00''\x01\x01''\x00\x01''\x03\x01\x03\x01\x00''\x01\x00'
# a 16 KiB value, read back, then a check of everything
seed large '\x00\x00''\x02\x00\x03\x01\x04\x0f\x07''\x03\x00\x03\x01\x00''\x07\x00'
echo "wrote $(ls "$out" | wc -l) seeds to $out"
