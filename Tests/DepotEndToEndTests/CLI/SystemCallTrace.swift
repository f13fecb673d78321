import Foundation

/// The system calls of an strace log (`strace -f -o FILE`), in the order they returned, each
/// with the paths it acted on: descriptor-relative calls (`openat`, `mkdirat`, `renameat`,
/// `fsync` of a descriptor) are resolved through the descriptors the log shows being opened,
/// duplicated and closed. A descriptor the log never showed opened resolves to `?`.
struct SystemCallTrace {
    /// One call: the thread that made it, its name, its arguments as strace prints them
    /// (strings unquoted), its result (`0`, `27`, `-1`), and the paths it acted on.
    struct Call {
        let thread: String
        let name: String
        let arguments: [String]
        let result: String
        let paths: [String]

        /// Whether the call succeeded (a result other than -1).
        var succeeded: Bool { result != "-1" && !result.isEmpty }
    }

    let calls: [Call]

    /// Reads `log`. A call strace split in two (`<unfinished ...>`, then `<... name resumed>`)
    /// is one call, where it returned; lines that are not calls (signals, exits) are skipped.
    init(log: String) {
        var pending: [String: String] = [:]
        var descriptors: [String: String] = [:]
        var calls: [Call] = []
        for line in log.split(separator: "\n").map(String.init) {
            guard let space = line.firstIndex(of: " ") else { continue }
            let thread = String(line[..<space])
            var body = line[space...].drop { $0 == " " }
            if body.hasSuffix(" <unfinished ...>") {
                pending[thread] = String(body.dropLast(" <unfinished ...>".count))
                continue
            }
            if body.hasPrefix("<... "), let resumed = body.range(of: " resumed>") {
                guard let start = pending.removeValue(forKey: thread) else { continue }
                body = Substring(start + body[resumed.upperBound...])
            }
            guard let call = Self.call(String(body), thread: thread, descriptors: &descriptors) else { continue }
            calls.append(call)
        }
        self.calls = calls
    }

    /// `name(arguments) = result`, resolved, and the descriptor table updated.
    private static func call(_ body: String, thread: String, descriptors: inout [String: String]) -> Call? {
        // strace pads the space between the arguments' `)` and ` = result`.
        guard let open = body.firstIndex(of: "("), let equals = body.range(of: " = ", options: .backwards),
            let close = body[..<equals.lowerBound].lastIndex(of: ")"), open < close
        else { return nil }
        let name = String(body[..<open])
        let arguments = Self.arguments(String(body[body.index(after: open)..<close]))
        let result = String(body[equals.upperBound...].prefix { $0 != " " })
        func at(_ descriptor: Int, _ path: Int) -> String {
            guard arguments.count > path else { return "?" }
            let name = arguments[path]
            if name.hasPrefix("/") || arguments[descriptor] == "AT_FDCWD" { return name }
            return "\(descriptors[arguments[descriptor]] ?? "?")/\(name)"
        }
        func folder(_ descriptor: Int) -> String { arguments.count > descriptor ? descriptors[arguments[descriptor]] ?? "?" : "?" }
        let paths: [String]
        switch name {
        case "open", "mkdir", "unlink", "rmdir": paths = arguments.isEmpty ? [] : [arguments[0]]
        case "rename", "link": paths = Array(arguments.prefix(2))
        case "openat", "mkdirat", "unlinkat": paths = [at(0, 1)]
        case "renameat", "renameat2", "linkat": paths = [at(0, 1), at(2, 3)]
        case "fsync", "fdatasync", "close", "dup", "dup2", "dup3", "fcntl", "syncfs": paths = [folder(0)]
        default: paths = []
        }
        let call = Call(thread: thread, name: name, arguments: arguments, result: result, paths: paths)
        let duplicates = ["dup", "dup2", "dup3"].contains(name) || (name == "fcntl" && arguments.count > 1 && arguments[1].hasPrefix("F_DUPFD"))
        if name == "close" {
            descriptors[arguments.first ?? ""] = nil
        } else if call.succeeded, name == "open" || name == "openat" || duplicates {
            descriptors[result] = paths.first ?? "?"
        }
        return call
    }

    /// strace's arguments, split at the commas outside strings and brackets; strings unquoted.
    private static func arguments(_ text: String) -> [String] {
        var arguments: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        var depth = 0
        for character in text {
            if quoted {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                    continue
                }
                current.append(character)
                continue
            }
            switch character {
            case "\"": quoted = true
            case "(", "[", "{":
                depth += 1
                current.append(character)
            case ")", "]", "}":
                depth -= 1
                current.append(character)
            case "," where depth == 0:
                arguments.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default: current.append(character)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { arguments.append(current.trimmingCharacters(in: .whitespaces)) }
        return arguments
    }
}

extension String {
    /// Whether this path is `path` or ends with it after a `/` (`/tmp/x/data/blobs` is `data/blobs`).
    func names(_ path: String) -> Bool {
        self == path || hasSuffix("/" + path)
    }
}
