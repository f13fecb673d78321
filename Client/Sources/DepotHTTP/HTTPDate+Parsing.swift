extension HTTPDate {
    /// Parses an HTTP-date in any of the three forms a recipient must accept (RFC 9110 §5.6.7):
    ///
    /// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
    /// - obsolete asctime: `Sun Nov  6 08:49:37 1994`
    ///
    /// Returns `nil` for anything else, including impossible dates such as 31 February: callers
    /// ignore an invalid date rather than fail the request. Day and month names are matched
    /// without regard to case, and a day name that disagrees with the date is accepted, as Go and
    /// nginx do. A two-digit RFC 850 year that would lie more than 50 years after `now` is taken to
    /// be in the previous century, as §5.6.7 requires.
    public init?(parsing text: some StringProtocol, now: HTTPDate) {
        let bytes = Array(text.utf8).trimmingWhitespace()
        guard let date = Self.parseIMFFixdate(bytes) ?? Self.parseRFC850(bytes, now: now) ?? Self.parseAsctime(bytes) else {
            return nil
        }
        self = date
    }

    // IMF-fixdate = day-name "," SP date1 SP time-of-day SP GMT ; date1 = day SP month SP year
    private static func parseIMFFixdate(_ b: [UInt8]) -> HTTPDate? {
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20, b[25] == 0x20,
            dayName(b[0..<3], names: shortDayNames) != nil,
            let day = digits(b[5..<7]), let month = monthIndex(b[8..<11]), let year = digits(b[12..<16]),
            let time = timeOfDay(b[17..<25]), matches(b[26..<29], "GMT")
        else { return nil }
        return make(year: year, month: month, day: day, seconds: time)
    }

    // rfc850-date = day-name-l "," SP date2 SP time-of-day SP GMT ; date2 = day "-" month "-" 2DIGIT
    private static func parseRFC850(_ b: [UInt8], now: HTTPDate) -> HTTPDate? {
        guard let comma = b.firstIndex(of: UInt8(ascii: ",")), dayName(b[0..<comma], names: longDayNames) != nil else { return nil }
        let rest = Array(b[(comma + 1)...])
        guard rest.count == 23, rest[0] == 0x20, rest[3] == UInt8(ascii: "-"), rest[7] == UInt8(ascii: "-"), rest[10] == 0x20,
            rest[19] == 0x20, let day = digits(rest[1..<3]), let month = monthIndex(rest[4..<7]), let shortYear = digits(rest[8..<10]),
            let time = timeOfDay(rest[11..<19]), matches(rest[20..<23], "GMT")
        else { return nil }
        let currentYear = CivilDate(daysSince1970: floorDivide(now.secondsSince1970, 86_400)).year
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        return make(year: year, month: month, day: day, seconds: time)
    }

    // asctime-date = day-name SP date3 SP time-of-day SP year ; date3 = month SP ( 2DIGIT / ( SP DIGIT ) )
    private static func parseAsctime(_ b: [UInt8]) -> HTTPDate? {
        guard b.count == 24, b[3] == 0x20, b[7] == 0x20, b[10] == 0x20, b[19] == 0x20,
            dayName(b[0..<3], names: shortDayNames) != nil, let month = monthIndex(b[4..<7]),
            let time = timeOfDay(b[11..<19]), let year = digits(b[20..<24])
        else { return nil }
        let day: Int
        if b[8] == 0x20, let units = digits(b[9..<10]) {
            day = units
        } else if let both = digits(b[8..<10]) {
            day = both
        } else {
            return nil
        }
        return make(year: year, month: month, day: day, seconds: time)
    }

    private static func make(year: Int, month: Int, day: Int, seconds: Int64) -> HTTPDate? {
        let civil = CivilDate(year: year, month: month, day: day)
        guard civil.isValid else { return nil }
        return HTTPDate(secondsSince1970: civil.daysSince1970 * 86_400 + seconds)
    }

    /// `time-of-day = hour ":" minute ":" second`; a leap second (60) is allowed by the grammar.
    private static func timeOfDay(_ b: ArraySlice<UInt8>) -> Int64? {
        let b = Array(b)
        guard b.count == 8, b[2] == UInt8(ascii: ":"), b[5] == UInt8(ascii: ":"),
            let hour = digits(b[0..<2]), let minute = digits(b[3..<5]), let second = digits(b[6..<8]),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        return Int64(hour * 3600 + minute * 60 + second)
    }

    private static func digits(_ b: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in b {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return b.isEmpty ? nil : value
    }

    private static func monthIndex(_ b: ArraySlice<UInt8>) -> Int? {
        monthNames.firstIndex { matches(b, $0) }.map { $0 + 1 }
    }

    private static func dayName(_ b: ArraySlice<UInt8>, names: [String]) -> Int? {
        names.firstIndex { matches(b, $0) }
    }

    private static func matches(_ b: ArraySlice<UInt8>, _ word: String) -> Bool {
        b.count == word.utf8.count && zip(b, word.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}

extension Array where Element == UInt8 {
    func trimmingWhitespace() -> [UInt8] {
        let isWhitespace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = firstIndex(where: { !isWhitespace($0) }), let last = lastIndex(where: { !isWhitespace($0) }) else { return [] }
        return Array(self[first...last])
    }
}
