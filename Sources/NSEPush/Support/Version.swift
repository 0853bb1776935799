/// The version `nse --version` prints, and that caches built from this source (`nse extension`) are keyed by.
public enum NSEVersion {
    public static let current = "0.5.0"
}
