// `--fidelity`: the data the per-image quality model (``FittedQuality``) is fitted to. Per photo, blur (0, 0.25, 0.5,
// 0.75, 1) and lossy format, a 640x1136 render encoded at each quality of a grid, read back, and measured against the
// lossless render: one JSON line each with the picture's detail (``ImageDetail``: luma, chroma and busy blocks), the
// quality, the dB, the bytes and the encode CPU milliseconds. Benchmarks/fidelity.py fits and prints the model from it.

import Backdrop
import Foundation
import NIOCore

@MainActor func studyFidelity(_ photos: [String]) throws {
    let size = PixelSize(width: 640, height: 1136)
    for path in photos {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let decoded = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: size)
        let prepared = PreparedImages(sharp: CoverCrop.apply(decoded, to: size), style: .light)
        for hundredths in [0, 25, 50, 75, 100] {
            let picture = prepared.picture(hundredths: hundredths)
            let detail = ImageDetail.measure(picture, blend: Double(hundredths) / 100)
            for format in [OutputFormat.jpeg, .webp, .avif] {
                for quality in stride(from: 20, through: 96, by: 4) {
                    var bytes = ByteBuffer()
                    cpuSamples = []
                    _ = try milliseconds {
                        bytes = try FittedQuality.encode(picture, format: format, quality: quality, settings: EncoderSettings())
                    }
                    let db = try ReadBack.decode(bytes, format: format, size: size).psnr(against: picture)
                    let record: [String: Any] = [
                        "image": name, "alpha": Double(hundredths) / 100, "format": format.rawValue, "quality": quality,
                        "detail": rounded(detail.luma), "chroma": rounded(detail.chroma), "busy": (detail.busy * 10_000).rounded() / 10_000,
                        "db": rounded(db),
                        "bytes": bytes.readableBytes, "cpu_ms": rounded(cpuSamples.last ?? 0),
                    ]
                    let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
                    print(String(decoding: json, as: UTF8.self))
                }
            }
        }
    }
}

/// `--fidelity-served`: per photo, blur (0, 0.5, 0.75, 1) and lossy format, the answer as the service encodes it
/// (``FittedQuality``: its quality, encodes, dB, bytes and median CPU milliseconds of `runs`, the read-back and check
/// included) beside the fixed quality the service used before (JPEG and WebP 80, AVIF 60 rising to 80 from blur 0.5
/// to 1), each measured against the lossless render. Benchmarks/fidelity.py prints the totals and the worst dB.
@MainActor func benchServedFidelity(_ photos: [String], runs: Int) throws {
    let size = PixelSize(width: 640, height: 1136)
    let settings = EncoderSettings()
    for path in photos {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let decoded = try JPEGDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), covering: size)
        let prepared = PreparedImages(sharp: CoverCrop.apply(decoded, to: size), style: .light)
        for hundredths in [0, 50, 75, 100] {
            let picture = prepared.picture(hundredths: hundredths)
            for format in [OutputFormat.jpeg, .webp, .avif] {
                let fixedQuality = format == .avif ? max(60, settings.minimumQuality(.avif, hundredths: hundredths)) : 80
                var served: FittedQuality.Encoded?
                var fixed = ByteBuffer()
                var servedCPU = [Double]()
                var fixedCPU = [Double]()
                for _ in 0..<max(runs, 1) {
                    cpuSamples = []
                    _ = try milliseconds {
                        served = try FittedQuality.encode(
                            picture,
                            blend: Double(hundredths) / 100,
                            format: format,
                            floor: settings.floor(hundredths: hundredths),
                            minimum: settings.minimumQuality(format, hundredths: hundredths),
                            settings: settings
                        )
                    }
                    _ = try milliseconds { fixed = try FittedQuality.encode(picture, format: format, quality: fixedQuality, settings: settings) }
                    servedCPU.append(cpuSamples[0])
                    fixedCPU.append(cpuSamples[1])
                }
                guard let served else { continue }
                let servedDB = try served.decibels ?? ReadBack.decode(served.bytes, format: format, size: size).psnr(against: picture)
                let fixedDB = try ReadBack.decode(fixed, format: format, size: size).psnr(against: picture)
                let record: [String: Any] = [
                    "image": name, "alpha": Double(hundredths) / 100, "format": format.rawValue,
                    "floor": settings.floor(hundredths: hundredths), "detail": rounded(ImageDetail.measure(picture).luma),
                    "quality": served.quality, "encodes": served.encodes, "db": rounded(servedDB), "checked": served.decibels != nil,
                    "bytes": served.bytes.readableBytes, "cpu_ms": rounded(median(servedCPU)),
                    "fixed_quality": fixedQuality, "fixed_db": rounded(fixedDB), "fixed_bytes": fixed.readableBytes,
                    "fixed_cpu_ms": rounded(median(fixedCPU)),
                ]
                let json = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
                print(String(decoding: json, as: UTF8.self))
            }
        }
    }
}
