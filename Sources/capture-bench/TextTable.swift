/// A plain-text table: the first column left-aligned (labels), the others right-aligned
/// (numbers), columns two spaces apart.
struct TextTable {
    private let headers: [String]
    private var rows: [[String]] = []

    init(headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) {
        precondition(row.count == headers.count, "a table row needs one cell per column")
        rows.append(row)
    }

    func rendered() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
