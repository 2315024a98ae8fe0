import CGIO

/// An owned reference to a GLib `GVariant`, released when the wrapper is.
final class Variant {

    let raw: OpaquePointer

    /// Takes ownership of a full (non-floating) reference.
    init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        g_variant_unref(raw)
    }

    /// The number of children of a container value.
    var count: Int { Int(g_variant_n_children(raw)) }

    /// The child at `index` of a container value.
    subscript(index: Int) -> Variant {
        Variant(owning: g_variant_get_child_value(raw, gsize(index)))
    }

    /// The value of a string or object-path value.
    var string: String { String(cString: g_variant_get_string(raw, nil)) }

    /// The elements of an array of strings or object paths.
    var strings: [String] { (0..<count).map { self[$0].string } }
}
