/// The steps of a library write where a test can simulate the process dying (the internal
/// `crashPoint` hook of ``MediaLibrary``): a hook that throws there makes the write stop at
/// once, leaving the files and the index exactly as a crash at that moment would — the next
/// open reconciles them.
enum MediaLibraryCrashPoint: String, Sendable, Hashable, CaseIterable {
    /// Saving: the temporary file is written and synced, not yet renamed into place.
    case temporaryFileWritten
    /// Saving: the file is renamed into place, its row not yet inserted.
    case fileInPlace
    /// Deleting: the row is deleted and the file renamed to a temporary name, but the
    /// transaction is not committed (a crash rolls it back).
    case fileSetAside
}
