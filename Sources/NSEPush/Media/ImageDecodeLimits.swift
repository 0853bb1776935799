
/// What one image check may spend, so a hostile file under 10 MB cannot take gigabytes or minutes.
///
/// Apple documents none of these, and what iOS does with a file past them (shows it downscaled, shows part of it,
/// drops it) is unknown: nse reports that it stopped, which limit stopped it and the option that raises it.
/// The defaults keep one check under about 24 MiB of decoder memory and a few seconds of CPU, and pass every
/// ordinary notification image (a 40-megapixel baseline JPEG, a 2048-pixel progressive one, long animations).
public struct ImageDecodeLimits: Sendable, Hashable {
    /// Width x height of the canvas or of any frame (`--max-pixels`).
    public var maxPixels: UInt64 = 100_000_000
    /// Bytes the decoder may allocate for one image: PNG row buffers, a progressive or multi-scan JPEG's
    /// whole-image coefficient buffer (2 bytes per coefficient, 64 per 8 x 8 block per component), JPEG band
    /// buffers, chunk data (`--max-decode-memory`, in MiB). GIF needs at most one 64 KiB row whatever the file says.
    public var maxMemory: UInt64 = 24 * 1_048_576
    /// Pixels decoded, summed over every GIF frame and every JPEG scan (each scan walks the whole image again);
    /// a PNG counts its pixels once (`--max-pixel-work`). Why 200 million: giflib decodes about 100-180 million
    /// pixels a second on the build machine, so this is one to two seconds, and a 40-megapixel JPEG, a 16-scan
    /// 8-megapixel progressive one or 100 frames of 1000 x 1000 stay well under it.
    public var maxPixelWork: UInt64 = 200_000_000
    /// GIF frames: even 1 x 1 frames each cost a descriptor and an LZW set-up (`--max-frames`).
    public var maxFrames: UInt32 = 10_000
    /// JPEG scans; libjpeg-turbo's own TurboJPEG API stops at 500 too (`--max-scans`).
    public var maxScans: UInt32 = 500

    public init() {}
}

/// Which of `ImageDecodeLimits` stopped a check; `maxPixels` has its own error, refused before decoding.
public enum ImageDecodeLimit: String, Sendable, Hashable, CaseIterable {
    case memory, pixelWork, frames, scans

    /// The command-line option that sets it.
    public var option: String {
        switch self {
        case .memory: "--max-decode-memory"
        case .pixelWork: "--max-pixel-work"
        case .frames: "--max-frames"
        case .scans: "--max-scans"
        }
    }

    /// Its name in messages.
    public var name: String {
        switch self {
        case .memory: "decoder-memory"
        case .pixelWork: "pixel-work"
        case .frames: "frame"
        case .scans: "scan"
        }
    }

    /// The limit in the unit its option takes, for messages ("24 MiB", "200000000 pixels").
    public func describe(_ value: UInt64) -> String {
        switch self {
        case .memory: value % 1_048_576 == 0 ? "\(value / 1_048_576) MiB" : "\(value) bytes"
        case .pixelWork: "\(value) pixels"
        case .frames: "\(value) frames"
        case .scans: "\(value) scans"
        }
    }

    /// The iOS-side code: one per limit, so a CI job can tell a memory refusal from a CPU one.
    public var code: DiagnosticCode {
        switch self {
        case .memory: .mediaDecodeMemory
        case .pixelWork: .mediaDecodePixelWork
        case .frames: .mediaDecodeFrames
        case .scans: .mediaDecodeScans
        }
    }

    /// The part of every message that is the same on both platforms: which limit, its option, and that the
    /// device's behaviour is not known.
    public func explanation(limit: UInt64, platform: String) -> String {
        "nse stops an image check at its \(name) limit of \(describe(limit)) (\(option)) so that one file cannot take unbounded memory or time. What \(platform) does with such a file is unknown: it may show it, show part of it or drop it. Raise \(option) to check a file you trust; otherwise make the image smaller or simpler"
    }
}
