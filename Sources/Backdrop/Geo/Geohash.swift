/// A geohash cell: the base-32 string naming the rectangle a coordinate falls in.
package struct Geohash: Sendable, Hashable, CustomStringConvertible {
    package static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)
    package static let precisionRange = 1...12

    package let value: String

    /// Encodes (`latitude`, `longitude`) at `precision` characters. Latitude 90 and longitude 180 fall in the
    /// last cell of their row and column, so every valid coordinate has exactly one cell.
    package init(latitude: Double, longitude: Double, precision: Int) {
        precondition(Self.precisionRange.contains(precision), "geohash precision out of range")
        var latitudeRange = (-90.0, 90.0)
        var longitudeRange = (-180.0, 180.0)
        var characters = [UInt8]()
        characters.reserveCapacity(precision)
        var bits = 0
        var bitCount = 0
        var evenBit = true
        while characters.count < precision {
            // Bits alternate between longitude and latitude, longitude first.
            let upper =
                evenBit
                ? Self.narrow(&longitudeRange, upper: longitude >= (longitudeRange.0 + longitudeRange.1) / 2)
                : Self.narrow(&latitudeRange, upper: latitude >= (latitudeRange.0 + latitudeRange.1) / 2)
            bits = bits << 1 | (upper ? 1 : 0)
            evenBit.toggle()
            bitCount += 1
            if bitCount == 5 {
                characters.append(Self.alphabet[bits])
                bits = 0
                bitCount = 0
            }
        }
        self.value = String(decoding: characters, as: UTF8.self)
    }

    /// Parses an existing geohash string; nil if it has characters outside the alphabet or a bad length.
    package init?(_ value: String) {
        guard Self.precisionRange.contains(value.utf8.count), value.utf8.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        self.value = value
    }

    /// The cell's bounds and centre.
    package var bounds: (latitude: ClosedRange<Double>, longitude: ClosedRange<Double>) {
        var latitudeRange = (-90.0, 90.0)
        var longitudeRange = (-180.0, 180.0)
        var evenBit = true
        for character in self.value.utf8 {
            guard let index = Self.alphabet.firstIndex(of: character) else { break }
            for shift in stride(from: 4, through: 0, by: -1) {
                let upper = (index >> shift) & 1 == 1
                if evenBit { Self.narrow(&longitudeRange, upper: upper) } else { Self.narrow(&latitudeRange, upper: upper) }
                evenBit.toggle()
            }
        }
        return (latitudeRange.0...latitudeRange.1, longitudeRange.0...longitudeRange.1)
    }

    /// Keeps the upper or lower half of `range`; returns `upper`.
    @discardableResult
    private static func narrow(_ range: inout (Double, Double), upper: Bool) -> Bool {
        let middle = (range.0 + range.1) / 2
        if upper { range.0 = middle } else { range.1 = middle }
        return upper
    }

    package var centre: (latitude: Double, longitude: Double) {
        let bounds = self.bounds
        return ((bounds.latitude.lowerBound + bounds.latitude.upperBound) / 2, (bounds.longitude.lowerBound + bounds.longitude.upperBound) / 2)
    }

    package var description: String { self.value }
}
