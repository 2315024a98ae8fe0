/* SPDX-License-Identifier: MIT */
/* fuzz_utf8.h — strict UTF-8 (RFC 3629: no overlongs, no surrogates,
 * <= U+10FFFF), as the library checks names: shared by the harnesses. */
#ifndef KK_FUZZ_UTF8_H
#define KK_FUZZ_UTF8_H

/* Whether the NUL-terminated `s` is valid UTF-8. */
static int valid_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s;
        int n;
        unsigned min;
        if (c < 0x80) { s++; continue; }
        else if (c >= 0xC2 && c <= 0xDF) { n = 1; min = 0x80; c &= 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; min = 0x800; c &= 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; min = 0x10000; c &= 0x07; }
        else return 0;
        s++;
        for (int i = 0; i < n; i++, s++) {
            if ((*s & 0xC0) != 0x80) return 0;
            c = c << 6 | (*s & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    }
    return 1;
}

#endif
