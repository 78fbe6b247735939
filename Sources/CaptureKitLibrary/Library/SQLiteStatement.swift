import CaptureKitCore
import CaptureKitMedia
internal import CSQLite
import Foundation

/// One prepared SQLite statement (`sqlite3_stmt`): bind, step, read columns, reset. Owned by
/// its ``SQLiteDatabase`` and, like it, used by one thread at a time.
package final class SQLiteStatement {
    /// What the statement is for, named in errors ("insert asset").
    package let label: String
    private let handle: OpaquePointer
    private unowned let database: SQLiteDatabase

    /// Prepares `sql` (one statement): wraps `sqlite3_prepare_v3` with
    /// `SQLITE_PREPARE_PERSISTENT`, as the statement is cached and reused.
    package init(_ sql: String, label: String, database: SQLiteDatabase) throws(CaptureError) {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw database.error(status, "sqlite3_prepare_v3", label)
        }
        self.label = label
        self.handle = statement
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to its parameters `?1`, `?2`…: wraps
    /// `sqlite3_reset`, `sqlite3_clear_bindings` and `sqlite3_bind_*` (text is copied by SQLite,
    /// `SQLITE_TRANSIENT`).
    package func bind(_ values: [SQLiteValue]) throws(CaptureError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .real(let number): status = sqlite3_bind_double(handle, index, number)
            case .text(let text): status = sqlite3_bind_text(handle, index, text, -1, ck_sqlite_transient())
            case .null: status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else { throw database.error(status, "sqlite3_bind", label) }
        }
    }

    /// Runs the statement to its next row: true with a row to read, false when done. Wraps
    /// `sqlite3_step`; an error resets the statement.
    package func step() throws(CaptureError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(status, "sqlite3_step", label)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Ends the current run, releasing the statement's read or write lock (`sqlite3_reset`).
    package func reset() {
        sqlite3_reset(handle)
    }

    /// Column `index` of the current row as an integer (0 for NULL).
    package func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` of the current row as a double (0 for NULL).
    package func real(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` of the current row as text ("" for NULL).
    package func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        return String(cString: bytes)
    }
}
