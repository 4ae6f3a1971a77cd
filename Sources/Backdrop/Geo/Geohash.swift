/// A geohash cell: the base-32 string naming the rectangle a coordinate falls in.
public struct Geohash: Sendable, Hashable, CustomStringConvertible {
    public static let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)
    public static let precisionRange = 1...12

    public let value: String

    /// Encodes (`latitude`, `longitude`) at `precision` characters. Latitude 90 and longitude 180 fall in the
    /// last cell of their row and column, so every valid coordinate has exactly one cell.
    public init(latitude: Double, longitude: Double, precision: Int) {
        precondition(Self.precisionRange.contains(precision), "geohash precision out of range")
        var latitudeRange = (-90.0, 90.0)
        var longitudeRange = (-180.0, 180.0)
        var characters = [UInt8]()
        characters.reserveCapacity(precision)
        var bits = 0, bitCount = 0, evenBit = true
        while characters.count < precision {
            if evenBit {
                let middle = (longitudeRange.0 + longitudeRange.1) / 2
                if longitude >= middle {
                    bits = bits << 1 | 1
                    longitudeRange.0 = middle
                } else {
                    bits <<= 1
                    longitudeRange.1 = middle
                }
            } else {
                let middle = (latitudeRange.0 + latitudeRange.1) / 2
                if latitude >= middle {
                    bits = bits << 1 | 1
                    latitudeRange.0 = middle
                } else {
                    bits <<= 1
                    latitudeRange.1 = middle
                }
            }
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
    public init?(_ value: String) {
        guard Self.precisionRange.contains(value.utf8.count), value.utf8.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        self.value = value
    }

    /// The cell's bounds and centre.
    public var bounds: (latitude: ClosedRange<Double>, longitude: ClosedRange<Double>) {
        var latitudeRange = (-90.0, 90.0)
        var longitudeRange = (-180.0, 180.0)
        var evenBit = true
        for character in self.value.utf8 {
            guard let index = Self.alphabet.firstIndex(of: character) else { break }
            for shift in stride(from: 4, through: 0, by: -1) {
                let bit = (index >> shift) & 1 == 1
                if evenBit {
                    let middle = (longitudeRange.0 + longitudeRange.1) / 2
                    if bit { longitudeRange.0 = middle } else { longitudeRange.1 = middle }
                } else {
                    let middle = (latitudeRange.0 + latitudeRange.1) / 2
                    if bit { latitudeRange.0 = middle } else { latitudeRange.1 = middle }
                }
                evenBit.toggle()
            }
        }
        return (latitudeRange.0...latitudeRange.1, longitudeRange.0...longitudeRange.1)
    }

    public var centre: (latitude: Double, longitude: Double) {
        let bounds = self.bounds
        return ((bounds.latitude.lowerBound + bounds.latitude.upperBound) / 2, (bounds.longitude.lowerBound + bounds.longitude.upperBound) / 2)
    }

    public var description: String { self.value }
}
