import Foundation
import Hummingbird
import NIOCore
import NIOPosix

// Usage: FileMiddlewareServer FOLDER PORT
//
// With CEILING_ONLY=1 it serves no files: every GET or HEAD gets an empty 304 with an ETag from a
// route handler, nothing else. That is what Hummingbird's request pipeline costs on its own, the
// ceiling of any server built on it. With NIO_GLOBAL_EXECUTOR=1 it runs Swift concurrency on
// NIO's event loops.
let arguments = CommandLine.arguments
let folder = arguments.count > 1 ? arguments[1] : "."
let port = arguments.count > 2 ? Int(arguments[2]) ?? 8090 : 8090
if ProcessInfo.processInfo.environment["NIO_GLOBAL_EXECUTOR"] == "1" {
    _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}
let router = Router()
if ProcessInfo.processInfo.environment["CEILING_ONLY"] == "1" {
    for method in [HTTPRequest.Method.get, .head] {
        router.on("/**", method: method) { _, _ in Response(status: .notModified, headers: [.eTag: "\"ceiling\""]) }
    }
} else {
    router.add(middleware: FileMiddleware(folder, searchForIndexHtml: false))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
