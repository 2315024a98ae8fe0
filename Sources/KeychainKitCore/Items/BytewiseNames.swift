// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

// Names compared and ordered by their UTF-8 bytes, as the Secret Service,
// its clients and C compare them (Swift's `==` and `<` call canonically
// equivalent strings equal): the one home of these comparisons.

extension String {

    /// Whether the two strings have the same UTF-8 bytes: how the Secret
    /// Service and its clients compare names and attribute values (Swift's
    /// `==` calls canonically equivalent strings equal).
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast: Bool? = utf8.withContiguousStorageIfAvailable { x in
            other.utf8.withContiguousStorageIfAvailable { y in
                x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        } ?? nil
        return fast ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether this string's UTF-8 bytes come before `other`'s (the order
    /// C's strcmp gives).
    package func precedesByUTF8(_ other: String) -> Bool {
        utf8.lexicographicallyPrecedes(other.utf8)
    }
}

extension Array where Element == String {

    /// The strings in the order of their UTF-8 bytes (the order C's strcmp
    /// gives), which unlike `sorted()` keeps canonically equal names apart.
    package func sortedByBytes() -> [String] {
        sorted { $0.precedesByUTF8($1) }
    }
}

/// Creation order of item ids within one collection: shorter first, then by
/// bytes (gnome-keyring numbers its items' paths, as the in-memory store
/// does its ids); an order that never changes and every process computes
/// alike.
package func precedesInCreationOrder(_ a: String, _ b: String) -> Bool {
    a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a.precedesByUTF8(b)
}
