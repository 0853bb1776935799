/// Compares a documented example with the text it claims to show, line by line once `normalize` has set aside
/// what changes from run to run. A line `...` in the example skips lines up to the next one that matches.
///
/// - Parameter allowsMore: whether the text may go on after the example ends (an excerpt of a longer snapshot).
/// - Returns: the first difference in words, or nil when they agree.
public func exampleMismatch(
    _ example: [String], against text: [String], allowsMore: Bool, normalize: (String) -> String
) -> String? {
    var remaining = text.map(normalize)[...]
    var skipping = false
    for line in example {
        if line == "..." {
            skipping = true
            continue
        }
        let wanted = normalize(line)
        if skipping {
            guard let found = remaining.firstIndex(of: wanted) else { return "not found (in order): \(line)" }
            remaining = remaining[(found + 1)...]
        } else {
            guard remaining.first == wanted else { return "the example shows: \(line)\nthe text has: \(remaining.first ?? "(nothing more)")" }
            remaining = remaining.dropFirst()
        }
        skipping = false
    }
    if !allowsMore, !skipping, let extra = remaining.first { return "the text goes on: \(extra)" }
    return nil
}
