extension Int {
    /// `value` cut toward zero and held within `Int`'s range (NaN gives 0): the conversion for numbers that come
    /// from input or from arithmetic on it, where `Int(value)` would trap.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 0x1p63 {
            self = .max
        } else if value < -0x1p63 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
