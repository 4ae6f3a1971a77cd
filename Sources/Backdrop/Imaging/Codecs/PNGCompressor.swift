import CPNG

/// What compresses a PNG's filtered rows (`render.pngEncoder`). The rows are filtered Up or Paeth either way.
package enum PNGCompressor: String, Sendable, CaseIterable {
    /// Backdrop's own deflate, which looks for repeats only where filtered photo rows have them (the byte before, the
    /// pixel before, the pixel above): about libdeflate level 1's size in two thirds of its time. Textures that repeat
    /// elsewhere go to libdeflate too, and the smaller stream is kept.
    case scanline
    /// libdeflate at level 1: the fallback switch.
    case libdeflate

    var c: bd_png_deflate {
        switch self {
        case .scanline: BD_PNG_DEFLATE_SCANLINE
        case .libdeflate: BD_PNG_DEFLATE_LIBDEFLATE
        }
    }
}
