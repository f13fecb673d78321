import DepotCommands
import Foundation
import NIOCore
import NIOPosix

@main
enum Main {
    static func main() async {
        // One event loop per core this process may run on: NIO counts cgroup limits but not the
        // affinity mask (`taskset`, systemd's CPUAffinity), and two loops sharing one core
        // switch between each other on every request.
        NIOSingletons.groupLoopCountSuggestion = AvailableCores.count
        exit(await DepotCommandLine.run(Array(CommandLine.arguments.dropFirst()), in: .process))
    }
}

/// The cores the scheduler lets this process use: on Linux, the `Cpus_allowed` mask of
/// `/proc/self/status`, within NIO's count (which honours cgroup limits).
enum AvailableCores {
    static var count: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
        else { return System.coreCount }
        let cores = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, digit in
            count + (digit.hexDigitValue?.nonzeroBitCount ?? 0)
        }
        return max(1, min(cores, System.coreCount))
    }
}
