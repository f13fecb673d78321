/// What to answer for a request to an existing, readable representation: the outcome of
/// RFC 9110 §13.2.2 (preconditions) followed by §14.2 (ranges). It is a decision, not a response;
/// the server renders it.
public enum ResponsePlan: Hashable, Sendable {
    /// 200 with the whole representation.
    case full
    /// 304 Not Modified.
    case notModified
    /// 412 Precondition Failed.
    case preconditionFailed
    /// 416 Range Not Satisfiable, with `Content-Range: bytes */length`.
    case rangeNotSatisfiable
    /// 206 with one range.
    case partial(ClosedRange<Int64>)
    /// 206 with several ranges as `multipart/byteranges`.
    case multipart(MultipartByteRanges)

    /// Evaluates `request` against `representation`.
    ///
    /// The steps follow RFC 9110 §13.2.2 exactly:
    /// 1. `If-Match` present: false → 412.
    /// 2. `If-Match` absent, `If-Unmodified-Since` present and valid: false → 412.
    /// 3. `If-None-Match` present: false → 304 for GET and HEAD, 412 otherwise.
    /// 4. `If-None-Match` absent, method GET or HEAD, `If-Modified-Since` present and valid:
    ///    false → 304.
    /// 5. Method GET, `Range` present: if `If-Range` is present and false, ignore `Range`;
    ///    otherwise select ranges (§14.2). `Range` is ignored for every other method, HEAD
    ///    included (§14.2: range handling is defined only for GET).
    ///
    /// - Parameters:
    ///   - now: The origin's clock, to interpret two-digit RFC 850 years.
    ///   - contentType: The media type repeated in each part of a multipart answer.
    ///   - boundary: The multipart boundary, used only when several ranges are sent.
    public static func evaluate(
        _ request: ConditionalRequest,
        representation: RepresentationValidators,
        now: HTTPDate,
        limits: RangeLimits = RangeLimits(),
        contentType: String,
        boundary: @autoclosure () -> String
    ) -> ResponsePlan {
        let isGetOrHead = request.method == .get || request.method == .head

        if let ifMatch = EntityTagCondition(fieldLines: request.ifMatch) {
            // §13.1.1: true if "*" or a listed tag matches by strong comparison.
            if !ifMatch.matchesStrongly(representation.entityTag) { return .preconditionFailed }
        } else if let date = singleDate(request.ifUnmodifiedSince, now: now), let lastModified = representation.lastModified {
            // §13.1.4: true if the last modification is at or before the date.
            if lastModified > date { return .preconditionFailed }
        }

        if let ifNoneMatch = EntityTagCondition(fieldLines: request.ifNoneMatch) {
            // §13.1.2: false if "*" or a listed tag matches by weak comparison.
            if ifNoneMatch.matchesWeakly(representation.entityTag) { return isGetOrHead ? .notModified : .preconditionFailed }
        } else if isGetOrHead, let date = singleDate(request.ifModifiedSince, now: now), let lastModified = representation.lastModified {
            // §13.1.3: false if the last modification is at or before the date.
            if lastModified <= date { return .notModified }
        }

        guard request.method == .get, let rangeSet = ByteRangeSet(fieldLines: request.range) else { return .full }
        if !request.ifRange.isEmpty, !ifRangeHolds(request.ifRange, representation: representation, now: now) { return .full }

        switch RangeSelection.select(rangeSet, length: representation.length, limits: limits) {
        case .full:
            return .full
        case .unsatisfiable:
            return .rangeNotSatisfiable
        case .ranges(let ranges) where ranges.count == 1:
            return .partial(ranges[0])
        case .ranges(let ranges):
            let body = MultipartByteRanges(
                ranges: ranges,
                completeLength: representation.length,
                contentType: contentType,
                boundary: boundary()
            )
            // The multipart framing can make small parts cost more than the whole; send that instead.
            return body.contentLength > representation.length ? .full : .multipart(body)
        }
    }

    /// `If-Range` (RFC 9110 §13.1.5). An entity tag must match by strong comparison, so a weak tag
    /// never matches. A date must equal `Last-Modified` exactly, and only counts when that
    /// `Last-Modified` is a strong validator (§8.8.2.2). Anything else is false: the client gets
    /// the whole representation rather than a range of something it may not hold.
    static func ifRangeHolds(_ fieldLines: [String], representation: RepresentationValidators, now: HTTPDate) -> Bool {
        guard fieldLines.count == 1 else { return false }
        if let tag = EntityTag(fieldLines[0]) {
            return tag.matchesStrongly(representation.entityTag)
        }
        guard let date = HTTPDate(parsing: fieldLines[0], now: now), let lastModified = representation.lastModified else { return false }
        return representation.lastModifiedIsStrong && date == lastModified
    }

    /// The date of a date-valued precondition, or `nil` when it must be ignored: absent, invalid,
    /// or with more than one member (§13.1.3, §13.1.4).
    static func singleDate(_ fieldLines: [String], now: HTTPDate) -> HTTPDate? {
        guard fieldLines.count == 1 else { return nil }
        return HTTPDate(parsing: fieldLines[0], now: now)
    }
}
