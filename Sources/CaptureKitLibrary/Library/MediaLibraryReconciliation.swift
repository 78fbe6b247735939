import CaptureKitCore
import CaptureKitMedia

/// What reconciling a library's folders with its index did (see ``MediaLibrary``): temporary
/// files removed, rows of missing files removed, complete files without a row indexed, and
/// files left alone.
package struct MediaLibraryReconciliation: Sendable, Hashable {
    /// Temporary files of writes that never finished, removed (folder/name).
    package var removedTemporaryFiles: [String] = []
    /// Ids of rows whose file was gone, removed.
    package var removedRows: [String] = []
    /// Ids of files renamed into place by a write that died before indexing them, now indexed.
    package var indexedFiles: [String] = []
    /// Names of files the library did not write (or cannot read), left where they are and
    /// not indexed.
    package var ignoredFiles: [String] = []
}
