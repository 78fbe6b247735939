import CaptureKitCore
import CaptureKitMedia
import Foundation

/// The library's index: an SQLite database in WAL mode (readers never wait for the writer, and
/// a commit is one append to the log), one row per asset. Used under ``MediaLibrary``'s mutex;
/// other processes share the file through SQLite's locks and a busy timeout.
///
/// Schema 1:
/// ```sql
/// assets(id TEXT PRIMARY KEY, kind TEXT ('photo'|'video'), file TEXT (name in the kind's folder),
///        created REAL (seconds since 1970), width, height, rotation INTEGER,
///        duration_value INTEGER, duration_timescale INTEGER (exact rational), byte_size INTEGER)
/// ```
package final class MediaLibraryIndex {
    /// The schema version this code writes (`PRAGMA user_version`).
    package static let schemaVersion = 1

    /// The connection, for transactions spanning several calls.
    package let database: SQLiteDatabase

    private static let columns = "id, kind, file, created, width, height, rotation, duration_value, duration_timescale, byte_size"

    /// Opens (creating when missing) the index at `path`: WAL journal, full sync on commit,
    /// the schema created once (inside a write transaction, so two processes opening a new
    /// library at once do not race).
    package init(path: String) throws(CaptureError) {
        database = try SQLiteDatabase(path: path)
        let mode = try database.enableWriteAheadLog()
        guard mode?.lowercased() == "wal" else {
            throw CaptureError(.fileError, "the library index cannot use a write-ahead log here (journal mode \(mode ?? "?"))",
                               operation: "PRAGMA journal_mode=WAL", path: path)
        }
        try database.execute("PRAGMA synchronous=FULL", label: "set full sync")
        var version = try userVersion()
        if version == 0 {
            try database.transaction("create the index") { () throws(CaptureError) in
                guard try userVersion() == 0 else { return }
                try database.execute("""
                    CREATE TABLE IF NOT EXISTS assets (
                        id TEXT PRIMARY KEY NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('photo', 'video')),
                        file TEXT NOT NULL,
                        created REAL NOT NULL,
                        width INTEGER NOT NULL,
                        height INTEGER NOT NULL,
                        rotation INTEGER NOT NULL DEFAULT 0,
                        duration_value INTEGER NOT NULL,
                        duration_timescale INTEGER NOT NULL,
                        byte_size INTEGER NOT NULL,
                        UNIQUE (kind, file)
                    );
                    CREATE INDEX IF NOT EXISTS assets_by_creation ON assets (created);
                    PRAGMA user_version = \(Self.schemaVersion);
                    """, label: "create the assets table")
            }
            version = try userVersion()
        }
        guard version == Self.schemaVersion else {
            throw CaptureError(.unsupportedFile, "the library index has schema \(version); this CaptureKit reads schema \(Self.schemaVersion)",
                               operation: "PRAGMA user_version", path: path)
        }
    }

    private func userVersion() throws(CaptureError) -> Int {
        Int(try database.query("PRAGMA user_version", label: "read the schema version") { $0.integer(0) }.first ?? 0)
    }

    /// Adds a row.
    package func insert(_ record: MediaLibraryRecord) throws(CaptureError) {
        try database.run("INSERT INTO assets (\(Self.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", [
            .text(record.id), .text(record.kind.rawValue), .text(record.fileName), .real(record.creationDate.timeIntervalSince1970),
            .integer(Int64(record.width)), .integer(Int64(record.height)), .integer(Int64(record.rotation)),
            .integer(record.duration.value), .integer(Int64(record.duration.timescale)), .integer(record.byteCount),
        ], label: "insert an asset")
    }

    /// Removes the row `id`; whether there was one.
    @discardableResult
    package func delete(id: String) throws(CaptureError) -> Bool {
        try database.run("DELETE FROM assets WHERE id = ?1", [.text(id)], label: "delete an asset") > 0
    }

    /// The row `id`, if any.
    package func record(id: String) throws(CaptureError) -> MediaLibraryRecord? {
        try database.query("SELECT \(Self.columns) FROM assets WHERE id = ?1", [.text(id)], label: "look up an asset", row: Self.record).first
    }

    /// The rows of `kind` (any when nil) created in `from..<to` (either end open when nil),
    /// newest first (the later-saved first among equal dates).
    package func records(kind: MediaAsset.Kind?, from: Date?, to: Date?) throws(CaptureError) -> [MediaLibraryRecord] {
        try database.query("""
            SELECT \(Self.columns) FROM assets
            WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR created >= ?2) AND (?3 IS NULL OR created < ?3)
            ORDER BY created DESC, rowid DESC
            """, [kind.map { .text($0.rawValue) } ?? .null, from.map { .real($0.timeIntervalSince1970) } ?? .null,
                  to.map { .real($0.timeIntervalSince1970) } ?? .null], label: "list assets", row: Self.record)
    }

    /// Every row's id, kind and file name, for reconciliation.
    package func files() throws(CaptureError) -> [(id: String, kind: String, fileName: String)] {
        try database.query("SELECT id, kind, file FROM assets", label: "list asset files") { ($0.text(0), $0.text(1), $0.text(2)) }
    }

    private static func record(_ row: SQLiteStatement) throws(CaptureError) -> MediaLibraryRecord {
        guard let kind = MediaAsset.Kind(rawValue: row.text(1)) else {
            throw CaptureError(.corruptFile, "the library index has an asset of unknown kind '\(row.text(1))'", operation: "read an asset")
        }
        let fileName = row.text(2)
        // Names are generated by the library; anything that could leave the folder is damage.
        guard !fileName.isEmpty, !fileName.hasPrefix("."), !fileName.contains("/") else {
            throw CaptureError(.corruptFile, "the library index names a file outside its folders: '\(fileName)'", operation: "read an asset")
        }
        let timescale = Int32(clamping: row.integer(8))
        return MediaLibraryRecord(
            id: row.text(0), kind: kind, fileName: fileName, creationDate: Date(timeIntervalSince1970: row.real(3)),
            width: Int(row.integer(4)), height: Int(row.integer(5)), rotation: Int(row.integer(6)),
            duration: timescale > 0 ? MediaTime(value: row.integer(7), timescale: timescale) : .zero, byteCount: row.integer(9))
    }
}
