/// A validated `/background` query.
struct BackgroundQuery: Sendable, Equatable {
    struct Coordinate: Sendable, Equatable {
        package let latitude: Double
        package let longitude: Double
    }

    package let coordinate: Coordinate?
    /// The place asked for: the cell of `lat`/`lon`, the `cell` given, or no location.
    package let place: Place
    /// The render asked for but its format, which the controller chooses once (``spec(in:)``).
    private let render: RenderSpec
    /// The format named by `format`, which overrides `Accept`; nil when the request leaves it to negotiation.
    package let format: OutputFormat?
    /// Which of the place's photos: 0 (the default) is the chosen one, N the N-th of its order (``PhotoVariants``).
    package let variant: Int

    static let names: Set<String> = ["lat", "lon", "cell", "variant", "blur", "width", "height", "dpr", "style", "format", "crop"]

    package init(query: String?, defaults: RenderSpec, precision: Int) throws(APIError) {
        let parameters = try QueryParameters(query, allowed: Self.names)
        self.coordinate = try Self.coordinate(parameters)
        self.place = try Self.place(parameters, coordinate: self.coordinate, precision: precision)
        self.format = try Self.format(parameters)
        self.variant = try Self.variant(parameters)

        self.render = try Self.spec(parameters, defaults: defaults)
    }

    /// The render asked for, in `format`: `format`'s if given, else what `Accept` negotiated.
    func spec(in format: OutputFormat) -> RenderSpec { self.render.with(format: format) }

    /// `blur`, `width`, `height`, `dpr`, `style` and `crop`, each defaulting to the service's; the format is the
    /// defaults' until a caller gives its own. `width` and `height` are CSS pixels, multiplied by `dpr`.
    static func spec(_ parameters: QueryParameters, defaults: RenderSpec) throws(APIError) -> RenderSpec {
        var blur = defaults.blurHundredths
        if let text = parameters["blur"] {
            let value = try Self.decimal(text, name: "blur")
            guard (0...1).contains(value) else { throw .badParameter("blur", "must be between 0 and 1, got \(text)") }
            blur = Int(total: (value * 100).rounded())
        }
        let width = try parameters["width"].map { text throws(APIError) in try Self.side(text, name: "width") } ?? defaults.size.width
        let height = try parameters["height"].map { text throws(APIError) in try Self.side(text, name: "height") } ?? defaults.size.height
        guard width * height <= BackgroundLimits.maxPixels else {
            throw .badParameter(
                parameters["width"] != nil ? "width" : "height",
                "width x height must be at most \(BackgroundLimits.maxPixels) pixels, got \(width)x\(height)"
            )
        }
        let density = try Self.density(parameters)
        if density != .x1 {
            let size = PixelSize(width: density.pixels(width), height: density.pixels(height))
            guard BackgroundLimits.allows(size) else {
                throw .badParameter(
                    "dpr",
                    "width and height times dpr must each be at most \(BackgroundLimits.sideRange.upperBound) and together at most \(BackgroundLimits.maxPixels) pixels, got \(size.width)x\(size.height)"
                )
            }
        }
        var style = defaults.style
        if let text = parameters["style"] {
            guard let value = EffectStyle(rawValue: text) else {
                throw .badParameter("style", "must be one of \(EffectStyle.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            style = value
        }
        return RenderSpec(
            css: PixelSize(width: width, height: height),
            density: density,
            style: style,
            blurHundredths: blur,
            crop: try Self.crop(parameters)
        )
    }

    /// `dpr`: 1 (the default), 1.5, 2 or 3.
    static func density(_ parameters: QueryParameters) throws(APIError) -> Density {
        guard let text = parameters["dpr"] else { return .x1 }
        guard let density = Density(parameter: text) else {
            throw .badParameter("dpr", "must be one of 1, 1.5, 2, 3, got \"\(String(text.prefix(32)))\"")
        }
        return density
    }

    /// `crop`: `attention` (the default) or `centre` (also spelt `center`).
    static func crop(_ parameters: QueryParameters) throws(APIError) -> CropMode {
        guard let text = parameters["crop"] else { return .attention }
        guard let crop = CropMode(parameter: text) else {
            throw .badParameter("crop", "must be one of attention, centre, got \"\(String(text.prefix(32)))\"")
        }
        return crop
    }

    /// The cell of `lat`/`lon`, or `cell`: a geohash of exactly `precision` characters, never with `lat`/`lon`.
    static func place(_ parameters: QueryParameters, coordinate: Coordinate?, precision: Int) throws(APIError) -> Place {
        guard let text = parameters["cell"] else {
            return coordinate.map { .cell(Geohash(latitude: $0.latitude, longitude: $0.longitude, precision: precision)) } ?? .unknown
        }
        guard coordinate == nil else { throw .badParameter("cell", "give either cell or lat and lon, not both") }
        guard text.utf8.count == precision, let cell = Geohash(text) else {
            throw .badParameter(
                "cell",
                "must be a geohash of \(precision) characters from \"0123456789bcdefghjkmnpqrstuvwxyz\", got \"\(String(text.prefix(32)))\""
            )
        }
        return .cell(cell)
    }

    /// `variant`: a whole number from 0 to ``PhotoVariants/limit`` less one; 0 when absent.
    static func variant(_ parameters: QueryParameters) throws(APIError) -> Int {
        guard let text = parameters["variant"] else { return 0 }
        guard text.utf8.count <= 2, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text),
            value < PhotoVariants.limit
        else {
            throw .badParameter("variant", "must be a whole number from 0 to \(PhotoVariants.limit - 1), got \"\(String(text.prefix(32)))\"")
        }
        return value
    }

    /// `format`: one of the output formats, or nil to negotiate by `Accept`.
    static func format(_ parameters: QueryParameters) throws(APIError) -> OutputFormat? {
        guard let text = parameters["format"] else { return nil }
        guard let format = OutputFormat(rawValue: text) else {
            throw .badParameter(
                "format",
                "must be one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(String(text.prefix(32)))\""
            )
        }
        return format
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
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
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
            throw .badParameter(
                name,
                "must be between \(BackgroundLimits.sideRange.lowerBound) and \(BackgroundLimits.sideRange.upperBound), got \(value)"
            )
        }
        return value
    }
}

/// The API's fixed bounds on output size.
package enum BackgroundLimits {
    package static let sideRange = 1...2048
    package static let maxPixels = 4_000_000

    /// Whether a render of `size` device pixels is within both bounds.
    static func allows(_ size: PixelSize) -> Bool {
        Self.sideRange.contains(size.width) && Self.sideRange.contains(size.height) && size.width * size.height <= Self.maxPixels
    }
}
