/// A `Range` request header read as RFC 9110 (section 14) asks, for a representation of `length` bytes.
enum ByteRange: Equatable {
    /// No usable range: serve the whole representation (no `Range`, another unit, several ranges, bad syntax).
    case whole
    /// Serve these bytes (a 206, `Content-Range: bytes first-last/length`).
    case part(ClosedRange<Int>)
    /// No byte of the representation is in the range (a 416, `Content-Range: bytes */length`).
    case unsatisfiable

    /// Reads `header` for a representation of `length` bytes. Only a single `bytes` range is served; a header the
    /// server does not understand is ignored, as the RFC requires, and never turned into an error.
    init(header: String?, length: Int) {
        guard let header else {
            self = .whole
            return
        }
        let parts = header.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].trimmingSpaces.lowercased() == "bytes" else {
            self = .whole  // another unit, or no unit at all
            return
        }
        let specs = parts[1].split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingSpaces)
        guard specs.count == 1, let spec = specs.first, let dash = spec.firstIndex(of: "-") else {
            self = .whole  // several ranges (a multipart answer is optional: the whole file is the simpler correct one)
            return
        }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else {
            self = .whole
            return
        }
        if first.isEmpty {
            // A suffix: the last N bytes (all of them when N exceeds the length); none is unsatisfiable.
            guard let count = Int(last) ?? (last.count > 18 ? Int.max : nil), count > 0, length > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, length - count)...(length - 1))
            return
        }
        guard let start = Int(first) else {
            self = .unsatisfiable  // a first byte past anything a file can hold
            return
        }
        let end = last.isEmpty ? Int.max : (Int(last) ?? Int.max)
        guard start <= end else {
            self = .whole  // an invalid range is ignored
            return
        }
        guard start < length else {
            self = .unsatisfiable
            return
        }
        self = .part(start...min(end, length - 1))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { self.isASCII && self.isNumber }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        let start = self.firstIndex { $0 != " " && $0 != "\t" } ?? self.endIndex
        let end = self.lastIndex { $0 != " " && $0 != "\t" }.map { self.index(after: $0) } ?? start
        return start < end ? self[start..<end] : self[start..<start]
    }
}
