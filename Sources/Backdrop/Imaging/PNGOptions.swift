import CPNG

/// PNG output settings. PNG encoding dominates a render, so both the encoder and its level are settings.
package struct PNGOptions: Sendable, Equatable {
    package enum Encoder: String, Sendable, CaseIterable {
        /// libpng's writer with zlib.
        case libpng
        /// Backdrop's writer: the same filtered rows, compressed in one pass by libdeflate.
        case libdeflate
        /// Backdrop's writer with its own deflate, which looks for repeats only where filtered photo rows have them
        /// (the byte before, the pixel before, the pixel above): about libdeflate level 1's size in half its time.
        case scanline
    }

    package enum Filter: String, Sendable, CaseIterable {
        case none, sub, up, average, paeth, adaptive
        /// Up or Paeth per row, by what the row would cost the scanline deflate: Up where it leaves repeats
        /// (gradients, blurred areas), Paeth where it leaves smaller residuals (texture).
        case upOrPaeth

        var c: bd_png_filter {
            switch self {
            case .none: BD_PNG_FILTER_NONE
            case .sub: BD_PNG_FILTER_SUB
            case .up: BD_PNG_FILTER_UP
            case .average: BD_PNG_FILTER_AVERAGE
            case .paeth: BD_PNG_FILTER_PAETH
            case .adaptive: BD_PNG_FILTER_ADAPTIVE
            case .upOrPaeth: BD_PNG_FILTER_UP_OR_PAETH
            }
        }
    }

    package var encoder: Encoder
    /// zlib 0-9 for libpng, 0-12 for libdeflate; scanline has the one level, 1.
    package var level: Int
    package var filter: Filter

    package init(encoder: Encoder = .scanline, level: Int = 1, filter: Filter = .upOrPaeth) {
        self.encoder = encoder
        self.level = level
        self.filter = filter
    }

    package var levelRange: ClosedRange<Int> {
        switch self.encoder {
        case .libpng: 0...9
        case .libdeflate: 0...12
        case .scanline: 1...1
        }
    }
}
