/// "1 payload", "2 payloads": a count and its noun, singular for one. English nouns here take an `s`, unless
/// `plural` says otherwise.
func counted(_ count: Int, _ singular: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
