import CJPEG

/// Decodes JPEG (baseline, progressive, grayscale, YCbCr, CMYK, YCCK) to upright RGB8 with libjpeg-turbo.
package enum JPEGDecoder {
    /// Header facts, read without decoding any pixels.
    struct Header: Sendable, Equatable {
        package let size: PixelSize
        package let orientation: ExifOrientation
        package let progressive: Bool

        /// Size of the picture once turned upright.
        package var uprightSize: PixelSize {
            self.orientation.swapsAxes ? PixelSize(width: self.size.height, height: self.size.width) : self.size
        }
    }

    package static func isJPEG(_ data: [UInt8]) -> Bool {
        data.count >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF
    }

    /// Decodes `data`. With `covering`, libjpeg's DCT scaling decodes at the smallest of 1/8...8/8 that still
    /// covers that size after cover-fitting, so a 4000 px photo for a 640 px screen costs a 1/4-scale decode.
    package static func decode(_ data: [UInt8], covering target: PixelSize? = nil, limits: DecodeLimits = .init()) throws -> RGBImage {
        try data.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ImagingError.corrupt("empty JPEG data") }
            guard let decoder = bd_jpeg_create(base, bytes.count, limits.maxDecoderMemory, Int32(limits.maxProgressiveScans)) else {
                throw ImagingError.corrupt("cannot create JPEG decoder")
            }
            defer { bd_jpeg_destroy(decoder) }

            let header = try self.readHeader(decoder)
            guard header.size.pixelCount <= limits.maxPixels else {
                throw ImagingError.tooLarge("JPEG is \(header.size), over the limit of \(limits.maxPixels) pixels")
            }
            let scale = target.map { self.scaleNumerator(for: header.uprightSize, covering: $0) } ?? 8
            var width: Int32 = 0
            var height: Int32 = 0
            guard bd_jpeg_start(decoder, Int32(scale), &width, &height) == 0 else { throw self.failure(decoder) }
            let stored = try RGBImage(width: Int(width), height: Int(height)) { pixels in
                guard bd_jpeg_read_rgb(decoder, pixels.baseAddress, pixels.count) == 0 else { throw self.failure(decoder) }
            }
            return header.orientation.apply(to: stored)
        }
    }

    /// Reads only the header (size, orientation), e.g. to check the pixel limit of a download.
    static func header(of data: [UInt8]) throws -> Header {
        try data.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ImagingError.corrupt("empty JPEG data") }
            guard let decoder = bd_jpeg_create(base, bytes.count, 64 << 20, 1000) else { throw ImagingError.corrupt("cannot create JPEG decoder") }
            defer { bd_jpeg_destroy(decoder) }
            return try self.readHeader(decoder)
        }
    }

    private static func readHeader(_ decoder: OpaquePointer) throws -> Header {
        var info = bd_jpeg_info()
        guard bd_jpeg_read_header(decoder, &info) == 0 else { throw self.failure(decoder) }
        guard info.width > 0, info.height > 0 else { throw ImagingError.corrupt("JPEG has no pixels") }
        if info.color == BD_JPEG_OTHER { throw ImagingError.unsupported("unsupported JPEG colour space") }
        var orientation = ExifOrientation.up
        if let exif = info.exif, info.exif_length > 0 {
            orientation = ExifOrientation(exif: UnsafeRawBufferPointer(start: exif, count: info.exif_length))
        }
        return Header(size: PixelSize(width: Int(info.width), height: Int(info.height)), orientation: orientation, progressive: info.progressive != 0)
    }

    /// Smallest n in 1...8 such that the image decoded at n/8 still covers `target` without upscaling.
    static func scaleNumerator(for size: PixelSize, covering target: PixelSize) -> Int {
        let needed = max(Double(target.width) / Double(size.width), Double(target.height) / Double(size.height))
        return min(8, max(1, Int(total: (needed * 8).rounded(.up))))
    }

    private static func failure(_ decoder: OpaquePointer) -> ImagingError {
        let message = String(cString: bd_jpeg_error(decoder))
        if message.contains("more than") && message.contains("scans") { return .tooLarge(message) }
        return .corrupt(message.isEmpty ? "corrupt JPEG data" : message)
    }
}
