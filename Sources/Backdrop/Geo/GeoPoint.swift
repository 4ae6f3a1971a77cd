import Foundation

/// A place on the globe as upstream data gives it, checked where it enters: both numbers finite, the latitude within
/// ±90 and the longitude within ±180. Anything else (`1e300`, `nan`, `inf`, `91`, a text that is no number) is no
/// position, so nothing downstream (the civil-time grid, the sun) ever sees a number off the globe.
struct GeoPoint: Sendable, Equatable {
    let latitude: Double
    let longitude: Double

    init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// From texts such as a Commons page's `GPSLatitude` and `GPSLongitude` (any number PHP's `is_numeric` takes).
    init?(latitude: String, longitude: String) {
        guard latitude.utf8.count <= 40, longitude.utf8.count <= 40,
            let lat = Double(latitude.trimmingCharacters(in: .whitespaces)), let lon = Double(longitude.trimmingCharacters(in: .whitespaces))
        else { return nil }
        self.init(latitude: lat, longitude: lon)
    }

    var pair: (latitude: Double, longitude: Double) { (self.latitude, self.longitude) }
}
