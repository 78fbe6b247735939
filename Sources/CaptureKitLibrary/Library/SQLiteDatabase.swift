import CaptureKitCore
import CaptureKitMedia
internal import CSQLite
import Foundation

/// One connection to an SQLite database file, with its prepared statements cached by SQL text.
/// Not thread-safe: its owner serialises every call (``MediaLibrary`` keeps it under a mutex).
/// Other connections — in this process or others — may use the same file at the same time:
/// SQLite's file locks and the busy timeout take turns between them.
///
/// Every SQLite error becomes a `CaptureError` naming the SQLite function and what the
/// statement was for, with the file's path.
package final class SQLiteDatabase {
    /// The database file.
    package let path: String
    /// The connection (`sqlite3 *`).
    package let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating when missing) the database at `path`: wraps `sqlite3_open_v2`,
    /// `sqlite3_extended_result_codes` and `sqlite3_busy_timeout`, so that a statement waits up
    /// to `busyTimeout` milliseconds for another connection's lock instead of failing.
    package init(path: String, busyTimeout: Int32 = 15_000) throws(CaptureError) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            let error = Self.error(status, "sqlite3_open_v2", "open the index", handle: connection, path: path)
            sqlite3_close_v2(connection)
            throw error
        }
        self.path = path
        self.handle = connection
        sqlite3_extended_result_codes(connection, 1)
        let timeout = sqlite3_busy_timeout(connection, busyTimeout)
        guard timeout == SQLITE_OK else { throw error(timeout, "sqlite3_busy_timeout", "set the busy timeout") }
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` (one or more statements, no parameters), for schema and pragmas: wraps
    /// `sqlite3_exec`.
    package func execute(_ sql: String, label: String) throws(CaptureError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, "sqlite3_exec", label) }
    }

    /// Switches the file to write-ahead logging and returns the journal mode SQLite then
    /// reports. Wraps `PRAGMA journal_mode=WAL`, retried for up to `timeout` while another
    /// connection holds the lock it needs: when two processes open a new file at the same moment,
    /// SQLite answers this pragma `SQLITE_BUSY` at once, without calling the busy handler.
    package func enableWriteAheadLog(timeout: Duration = .seconds(15)) throws(CaptureError) -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var status = sqlite3_exec(handle, "PRAGMA journal_mode=WAL", nil, nil, nil)
        while status & 0xFF == SQLITE_BUSY, clock.now < deadline {
            usleep(10_000)
            status = sqlite3_exec(handle, "PRAGMA journal_mode=WAL", nil, nil, nil)
        }
        guard status == SQLITE_OK else { throw error(status, "sqlite3_exec", "switch the index to WAL") }
        return try query("PRAGMA journal_mode", label: "read the journal mode") { $0.text(0) }.first
    }

    /// The cached statement for `sql`, prepared on first use.
    package func statement(_ sql: String, label: String) throws(CaptureError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(sql, label: label, database: self)
        statements[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows with `values`; returns the number of rows it
    /// changed (`sqlite3_changes`).
    @discardableResult
    package func run(_ sql: String, _ values: [SQLiteValue] = [], label: String) throws(CaptureError) -> Int {
        let statement = try statement(sql, label: label)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query with `values` and maps each row with `row`.
    package func query<Row>(_ sql: String, _ values: [SQLiteValue] = [], label: String,
                    row: (SQLiteStatement) throws(CaptureError) -> Row) throws(CaptureError) -> [Row] {
        let statement = try statement(sql, label: label)
        try statement.bind(values)
        defer { statement.reset() }
        var rows: [Row] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// Runs `body` in a transaction: ``begin(_:)``, then ``commit(_:)``, or ``rollback(_:)``
    /// when `body` (or the commit) throws.
    package func transaction<Result>(_ label: String, _ body: () throws(CaptureError) -> Result) throws(CaptureError) -> Result {
        try begin(label)
        do throws(CaptureError) {
            let result = try body()
            try commit(label)
            return result
        } catch {
            rollback(label)
            throw error
        }
    }

    /// `BEGIN IMMEDIATE`: the write lock is taken at once (waiting for other writers within
    /// the busy timeout), so the transaction can never fail half-way for a lock.
    package func begin(_ label: String) throws(CaptureError) {
        try run("BEGIN IMMEDIATE", label: "begin: \(label)")
    }

    /// `COMMIT`.
    package func commit(_ label: String) throws(CaptureError) {
        try run("COMMIT", label: "commit: \(label)")
    }

    /// `ROLLBACK`, when a transaction is open (SQLite may have rolled it back already).
    package func rollback(_ label: String) {
        if sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK", label: "roll back: \(label)") }
    }

    /// `status` from an SQLite call as a `CaptureError` carrying this connection's message.
    package func error(_ status: Int32, _ function: String, _ label: String) -> CaptureError {
        Self.error(status, function, label, handle: handle, path: path)
    }

    /// Maps an SQLite result code: a full disk to `.diskFull`, a damaged file or one that is
    /// not a database to `.corruptFile`, no memory to `.outOfMemory`, files that cannot be
    /// opened, read, written or locked to `.fileError` (with the system `errno` when SQLite
    /// kept one), anything else to `.internalError`.
    package static func error(_ status: Int32, _ function: String, _ label: String, handle: OpaquePointer?, path: String) -> CaptureError {
        let detail = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
        let code: CaptureError.Code
        switch status & 0xFF {
        case SQLITE_FULL: code = .diskFull
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corruptFile
        case SQLITE_NOMEM: code = .outOfMemory
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_READONLY, SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_AUTH, SQLITE_PROTOCOL:
            code = .fileError
        default: code = .internalError
        }
        let systemError = handle.map { sqlite3_system_errno($0) } ?? 0
        return CaptureError(code, "media library index: cannot \(label): \(detail) (SQLite \(status))",
                            errno: systemError != 0 && code != .internalError ? systemError : nil,
                            operation: "\(function) (\(label))", path: path)
    }
}
