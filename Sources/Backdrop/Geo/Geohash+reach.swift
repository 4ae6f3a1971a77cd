import Foundation

extension Geohash {
    /// The Earth's mean radius, in metres.
    static let earthRadiusMetres = 6_371_008.8

    /// How far from its centre a place in the cell can lie, in metres: the great-circle distance to its farthest corner
    /// (3.4 km for a 5-character cell at the equator, 2.9 km at Paris).
    package var reachMetres: Double {
        let bounds = self.bounds
        let centre = self.centre
        return [bounds.latitude.lowerBound, bounds.latitude.upperBound].map { Self.metres(from: centre, to: ($0, bounds.longitude.upperBound)) }.max()
            ?? 0
    }

    /// The great-circle distance between two points, in metres (the haversine formula).
    package static func metres(from a: (latitude: Double, longitude: Double), to b: (latitude: Double, longitude: Double)) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (b.latitude - a.latitude) * radians
        let dLongitude = (b.longitude - a.longitude) * radians
        let h = pow(sin(dLatitude / 2), 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * pow(sin(dLongitude / 2), 2)
        return 2 * Self.earthRadiusMetres * asin(min(1, sqrt(h)))
    }
}
