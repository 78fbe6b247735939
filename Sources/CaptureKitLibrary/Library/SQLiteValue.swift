import CaptureKitCore
import CaptureKitMedia

/// A value bound to (or read from) an SQLite statement parameter.
package enum SQLiteValue: Sendable, Hashable {
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// SQL NULL.
    case null
}
