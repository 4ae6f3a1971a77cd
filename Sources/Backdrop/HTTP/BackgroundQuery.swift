
/// A validated `/background` query.
public struct BackgroundQuery: Sendable, Equatable {
    public struct Coordinate: Sendable, Equatable {
        public let latitude: Double
        public let longitude: Double
    }

    public let coordinate: Coordinate?
    public let spec: RenderSpec

    static let names: Set<String> = ["lat", "lon", "blur", "width", "height", "style"]

    public init(query: String?, defaults: RenderSpec) throws(APIError) {
        let parameters = try QueryParameters(query, allowed: Self.names)
        self.coordinate = try Self.coordinate(parameters)

        var blur = defaults.blurHundredths
        if let text = parameters["blur"] {
            let value = try Self.decimal(text, name: "blur")
            guard (0...1).contains(value) else { throw .badParameter("blur", "must be between 0 and 1, got \(text)") }
            blur = Int((value * 100).rounded())
        }
        let width = try parameters["width"].map { text throws(APIError) in try Self.side(text, name: "width") } ?? defaults.size.width
        let height = try parameters["height"].map { text throws(APIError) in try Self.side(text, name: "height") } ?? defaults.size.height
        guard width * height <= BackgroundLimits.maxPixels else {
            throw .badParameter(parameters["width"] != nil ? "width" : "height",
                                "width x height must be at most \(BackgroundLimits.maxPixels) pixels, got \(width)x\(height)")
        }
        var style = defaults.style
        if let text = parameters["style"] {
            guard let value = EffectStyle(rawValue: text) else {
                throw .badParameter("style", "must be one of \(EffectStyle.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            style = value
        }
        self.spec = RenderSpec(size: PixelSize(width: width, height: height), style: style, blurHundredths: blur)
    }

    /// `lat` and `lon` together, or neither.
    static func coordinate(_ parameters: QueryParameters) throws(APIError) -> Coordinate? {
        switch (parameters["lat"], parameters["lon"]) {
        case (nil, nil):
            return nil
        case (.some, nil):
            throw .badParameter("lon", "lon is required when lat is given")
        case (nil, .some):
            throw .badParameter("lat", "lat is required when lon is given")
        case (.some(let latText), .some(let lonText)):
            let latitude = try self.decimal(latText, name: "lat")
            guard (-90...90).contains(latitude) else { throw .badParameter("lat", "must be between -90 and 90, got \(latText)") }
            let longitude = try self.decimal(lonText, name: "lon")
            guard (-180...180).contains(longitude) else { throw .badParameter("lon", "must be between -180 and 180, got \(lonText)") }
            return Coordinate(latitude: latitude, longitude: longitude)
        }
    }

    /// A decimal number: optional sign, digits, optional fraction, optional exponent ("1", "-0.5", ".5", "2.", "1e-5").
    /// No hex, NaN or infinity.
    static func decimal(_ text: String, name: String) throws(APIError) -> Double {
        var rest = Substring(text)
        var sign = ""
        if let first = rest.first, first == "-" || first == "+" {
            sign = first == "-" ? "-" : ""
            rest = rest.dropFirst()
        }
        var exponent = ""
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            var digits = rest[rest.index(after: e)...]
            var exponentSign = ""
            if let first = digits.first, first == "-" || first == "+" {
                exponentSign = String(first)
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { throw Self.notANumber(text, name) }
            exponent = "e\(exponentSign)\(digits)"
            rest = rest[..<e]
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        let isDigits = { (part: Substring) in part.utf8.allSatisfy { (48...57).contains($0) } }
        guard text.utf8.count <= 32, !(whole.isEmpty && fraction.isEmpty), isDigits(whole), isDigits(fraction),
              let value = Double("\(sign)\(whole.isEmpty ? "0" : whole).\(fraction.isEmpty ? "0" : fraction)\(exponent)"), value.isFinite
        else { throw Self.notANumber(text, name) }
        return value
    }

    private static func notANumber(_ text: String, _ name: String) -> APIError {
        .badParameter(name, "must be a decimal number, got \"\(String(text.prefix(32)))\"")
    }

    static func side(_ text: String, name: String) throws(APIError) -> Int {
        guard text.utf8.count <= 6, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text) else {
            throw .badParameter(name, "must be a whole number of pixels, got \"\(String(text.prefix(32)))\"")
        }
        guard BackgroundLimits.sideRange.contains(value) else {
            throw .badParameter(name, "must be between \(BackgroundLimits.sideRange.lowerBound) and \(BackgroundLimits.sideRange.upperBound), got \(value)")
        }
        return value
    }
}
