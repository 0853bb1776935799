import CNSE
import NSEPush

extension ImageDecodeLimits {
    /// The limits as the C checkers take them.
    package var cLimits: cnse_image_limits {
        cnse_image_limits(
            max_pixels: maxPixels, max_memory: maxMemory, max_pixel_work: maxPixelWork, max_frames: maxFrames,
            max_scans: maxScans)
    }
}
