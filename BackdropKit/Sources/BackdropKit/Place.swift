import Foundation

/// Where the background is for: a coordinate, or a geohash cell as Backdrop's cell URLs name it.
public enum Place: Sendable, Hashable {
    /// Decimal degrees, latitude -90...90 and longitude -180...180 (the server answers others with a 400 naming
    /// `lat` or `lon`).
    case coordinate(latitude: Double, longitude: Double)
    /// A geohash cell of exactly the service's precision (5 characters unless the operator changed it), as
    /// ``Background/cell`` gives it.
    case cell(String)
    /// No location: the service answers with a stock photo.
    case nowhere

    var queryItems: [URLQueryItem] {
        switch self {
        case .coordinate(let latitude, let longitude):
            [URLQueryItem(name: "lat", value: Self.decimal(latitude)), URLQueryItem(name: "lon", value: Self.decimal(longitude))]
        case .cell(let cell):
            [URLQueryItem(name: "cell", value: cell)]
        case .nowhere:
            []
        }
    }

    /// Plain decimal notation with at most 6 fraction digits (about 10 cm), as the API reads it: never an exponent.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return String(value) }
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
