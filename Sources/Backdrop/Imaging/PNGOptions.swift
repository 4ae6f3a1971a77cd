import CPNG

/// PNG output settings. PNG encoding dominates a render, so both the encoder and its level are settings.
package struct PNGOptions: Sendable, Equatable {
    package enum Encoder: String, Sendable, CaseIterable {
        /// libpng's writer with zlib.
        case libpng
        /// Backdrop's writer: the same filtered rows, compressed in one pass by libdeflate.
        case libdeflate
    }

    package enum Filter: String, Sendable, CaseIterable {
        case none, sub, up, average, paeth, adaptive

        var c: bd_png_filter {
            switch self {
            case .none: BD_PNG_FILTER_NONE
            case .sub: BD_PNG_FILTER_SUB
            case .up: BD_PNG_FILTER_UP
            case .average: BD_PNG_FILTER_AVERAGE
            case .paeth: BD_PNG_FILTER_PAETH
            case .adaptive: BD_PNG_FILTER_ADAPTIVE
            }
        }
    }

    package var encoder: Encoder
    /// zlib 0-9 for libpng, 0-12 for libdeflate.
    package var level: Int
    package var filter: Filter

    package init(encoder: Encoder = .libdeflate, level: Int = 1, filter: Filter = .up) {
        self.encoder = encoder
        self.level = level
        self.filter = filter
    }

    package var levelRange: ClosedRange<Int> { self.encoder == .libpng ? 0...9 : 0...12 }
}
