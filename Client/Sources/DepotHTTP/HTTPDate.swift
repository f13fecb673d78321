/// A point in time with one-second resolution, as HTTP carries it (RFC 9110 §5.6.7).
///
/// Parsing and formatting are hand-written and Foundation-free: they run on every conditional
/// request, and `DateFormatter` is both slower and locale-sensitive.
public struct HTTPDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public let secondsSince1970: Int64

    public init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    public static func < (lhs: HTTPDate, rhs: HTTPDate) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    /// The IMF-fixdate form, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public var description: String { imfFixdate }

    /// Formats the date as IMF-fixdate, the only form a sender may generate.
    public var imfFixdate: String {
        let (civil, second) = civilDateAndSecond
        let weekday = Int(Self.floorModulo(Self.floorDivide(secondsSince1970, 86_400) + 4, 7))  // 1970-01-01 was a Thursday.
        return "\(Self.shortDayNames[weekday]), \(Self.twoDigits(civil.day)) \(Self.monthNames[civil.month - 1]) \(Self.fourDigits(civil.year)) "
            + Self.timeOfDay(second) + " GMT"
    }

    /// The date as ISO 8601 in UTC, e.g. `1994-11-06T08:49:37Z`.
    public var iso8601: String {
        let (civil, second) = civilDateAndSecond
        return "\(Self.fourDigits(civil.year))-\(Self.twoDigits(civil.month))-\(Self.twoDigits(civil.day))T" + Self.timeOfDay(second) + "Z"
    }

    /// The date in the common log format's form (nginx's `$time_local` in UTC), e.g.
    /// `06/Nov/1994:08:49:37 +0000`.
    public var commonLogFormat: String {
        let (civil, second) = civilDateAndSecond
        return "\(Self.twoDigits(civil.day))/\(Self.monthNames[civil.month - 1])/\(Self.fourDigits(civil.year)):" + Self.timeOfDay(second) + " +0000"
    }

    private var civilDateAndSecond: (CivilDate, Int64) {
        let days = Self.floorDivide(secondsSince1970, 86_400)
        return (CivilDate(daysSince1970: days), secondsSince1970 - days * 86_400)
    }

    /// `hh:mm:ss` of a second of the day.
    private static func timeOfDay(_ second: Int64) -> String {
        "\(twoDigits(Int(second / 3600))):\(twoDigits(Int(second / 60 % 60))):\(twoDigits(Int(second % 60)))"
    }

    static let shortDayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func fourDigits(_ value: Int) -> String {
        let text = "\(value)"
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }
}

/// A proleptic Gregorian calendar date; conversions after Howard Hinnant's `days_from_civil`.
struct CivilDate: Equatable {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(daysSince1970: Int64) {
        let z = daysSince1970 + 719_468
        let era = HTTPDate.floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        self.month = Int(month)
        self.day = Int(day)
    }

    var daysSince1970: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = HTTPDate.floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    var isValid: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        return day <= Self.daysInMonth(month, year: year)
    }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
