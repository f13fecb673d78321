import Hummingbird

// Usage: FileMiddlewareServer FOLDER PORT
let arguments = CommandLine.arguments
let folder = arguments.count > 1 ? arguments[1] : "."
let port = arguments.count > 2 ? Int(arguments[2]) ?? 8090 : 8090
let router = Router()
router.add(middleware: FileMiddleware(folder, searchForIndexHtml: false))
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
