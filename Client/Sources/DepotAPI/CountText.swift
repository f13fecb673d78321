/// A count with its noun, in the singular for one: "1 file", "5 files", "1 network".
///
/// One rule for every sentence the server and the CLI print, so that no text says "from 1
/// networks". `plural` is for nouns whose plural is not the singular with an "s".
public func counted(_ count: some BinaryInteger, _ singular: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
