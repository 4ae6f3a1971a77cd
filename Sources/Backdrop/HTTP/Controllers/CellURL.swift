import Foundation

/// The one URL of a rendered image: its cell (never coordinates), its variant unless 0, its blur, its size (CSS
/// pixels), density unless 1, style and crop
/// where they differ from the service's defaults, and an explicit format, so that every client in a cell asks for the same URLs and a
/// CDN can cache them without `Vary`.
enum CellURL {
    static func path(place: Place, variant: Int = 0, spec: RenderSpec, defaults: RenderSpec) -> String {
        var parameters = [String]()
        if case .cell(let cell) = place { parameters.append("cell=\(cell.value)") }
        if variant != 0 { parameters.append("variant=\(variant)") }
        parameters.append("blur=\(self.blur(spec.blurHundredths))")
        if spec.cssSize != defaults.cssSize { parameters += ["width=\(spec.cssSize.width)", "height=\(spec.cssSize.height)"] }
        if spec.density != .x1 { parameters.append("dpr=\(spec.density.rawValue)") }
        if spec.style != defaults.style { parameters.append("style=\(spec.style.rawValue)") }
        if spec.crop != .attention { parameters.append("crop=\(spec.crop.rawValue)") }
        parameters.append("format=\(spec.format.rawValue)")
        return "/background?" + parameters.joined(separator: "&")
    }

    /// Hundredths as the shortest decimal the API reads back: 0, 1, 0.5, 0.37.
    static func blur(_ hundredths: Int) -> String {
        switch hundredths {
        case ...0: "0"
        case 100...: "1"
        case let h where h % 10 == 0: "0.\(h / 10)"
        case let h: h < 10 ? "0.0\(h)" : "0.\(h)"
        }
    }
}
