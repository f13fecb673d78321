import Foundation

/// `412 B`, `3.4 KB`, `57.0 MB`: decimal units, one decimal. The CLI's output, the dashboard's
/// pages and the client's messages (free space) all show sizes with it.
public func ByteCountText(_ bytes: Int64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
        value /= 1000
        unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
}
