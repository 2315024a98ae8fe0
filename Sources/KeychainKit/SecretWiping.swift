import CGIO

extension Array where Element == UInt8 {

    /// Overwrites the array's storage with zeros, when the array owns it
    /// uniquely, and empties it. Best effort: copies made earlier keep their bytes.
    mutating func wipe() {
        withUnsafeMutableBytes { kk_wipe($0.baseAddress, $0.count) }
        removeAll()
    }
}
