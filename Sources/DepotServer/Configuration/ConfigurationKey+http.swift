extension ConfigurationKey {
    /// The keys of listening, connections, memory, ranges, logs and metrics, in the order the reference lists them.
    static let http: [ConfigurationKey] = [
        .init("http.host", option: "--host", .string, default: "`127.0.0.1`", "address to listen on"),
        .init("http.port", option: "--port", .int, default: "`8080`", "port to listen on; 0 picks a free one"),
        .init("http.serverName", .string, default: "none", "`Server` field value"),
        .init(
            "http.memoryCacheBytes",
            .int,
            default: "16 MiB",
            "bytes of small files (64 KiB or less) held in memory, for the public folder and for published files each, so",
            "their 200s take the direct path; 0 disables"
        ),
        .init(
            "http.resourceCacheEntries",
            .int,
            default: "`8192`",
            "resources of published content (files, digest sidecars, blobs, patches) kept in memory after a request read",
            "them from the catalog, so the next request takes the direct path; the server's memory does not grow with the",
            "number of live files; at least 2"
        ),
        .init(
            "http.directResponses",
            .bool,
            default: "`true`",
            "answer 304s and in-memory content (channel documents, digest sidecars, small files) right after the HTTP/1.1",
            "decoder, without Hummingbird's request pipeline; about 1.8× the rate for 304s (`docs/performance.md`)"
        ),
        .init(
            "http.openFilesPerEventLoop",
            .int,
            default: "`64`",
            "stored files each event loop keeps open between direct answers, as nginx's `open_file_cache`, so a range or",
            "download of a recently sent file costs an `fstat(2)` instead of an `open(2)` and a `close(2)`; least recently",
            "used first out; 0 opens a file for each answer"
        ),
        .init(
            "http.openFileIdleSeconds",
            .number,
            default: "`10`",
            "how long a kept file no answer uses stays open, at least (at most twice as long); a removed or replaced file",
            "is never served from a kept one"
        ),
        .init(
            "http.shutdownGraceSeconds",
            .number,
            default: "`30`",
            "after SIGTERM or SIGINT, how long requests under way may finish before they are cut"
        ),
        .init("http.maxHeaderFieldBytes", .int, default: "`81920`", "largest request header field line (400 above)"),
        .init("http.maxHeaderListBytes", .int, default: "`81920`", "largest request header block (400 above)"),
        .init("http.maxHeaderFieldCount", .int, default: "`1000`", "most request header field lines (400 above)"),
        .init(
            "http.trustedProxies",
            .stringArray,
            default: "none",
            "addresses of reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (e.g. `127.0.0.1`",
            "behind a local nginx)"
        ),
        .init(
            "http.requestHeadTimeoutSeconds",
            .number,
            default: "`10`",
            "a request head must arrive whole within this of its first byte, or the connection is closed (slowloris)"
        ),
        .init("http.idleTimeoutSeconds", .number, default: "`75`", "a keep-alive connection with no request in progress is closed after this"),
        .init(
            "http.minimumBodyBytesPerSecond",
            .int,
            default: "`1024`",
            "a request body slower than this, averaged over `http.bodyRateWindowSeconds` while the server reads, closes the",
            "connection"
        ),
        .init("http.bodyRateWindowSeconds", .number, default: "`20`", "the span the body rate is averaged over"),
        .init("http.maxConnections", .int, default: "`10000`", "connections open at once; a further one gets 503 and is closed"),
        .init(
            "memory.mallocArenas",
            .int,
            default: "`2`",
            "glibc malloc arenas `depot serve` allows (glibc's default is eight a core, which at 100,000 files held six",
            "times the memory in use; `docs/performance.md`); 0 keeps glibc's default. Freed memory is also given back",
            "after a commit of 1,000 files or more and at every collection"
        ),
        .init("ranges.maxCount", .int, default: "`200`", "most ranges one request may ask for before it is served whole"),
        .init("log.level", option: "--log-level", .string, default: "`info`", "`trace` … `critical`"),
        .init(
            "log.requests",
            .bool,
            default: "`true`",
            "one access-log line a request, when its response ends: request id (also sent as `X-Request-Id`), client,",
            "scheme, method, path, status, content bytes sent, ms"
        ),
        .init("log.requestsFormat", .string, default: "`depot`", "`depot` (key=value) or `combined` (NCSA combined)"),
        .init(
            "log.requestsFile",
            .string,
            default: "none",
            "a file the lines are appended to; none: standard output (the other logs go to standard error; journald takes",
            "both)"
        ),
        .init(
            "log.requestsBufferBytes",
            .int,
            default: "1 MiB",
            "lines held before they are written; a line that finds the buffer full is dropped and counted in",
            "`depot_access_log_dropped_total`; at least 65536"
        ),
        .init("log.requestsFlushSeconds", .number, default: "`0.5`", "how long a line may wait in the buffer, at most"),
        .init("metrics.allowedAddresses", .stringArray, default: "`127.0.0.1`, `::1`", "who may read `/metrics` without a token"),
        .init("metrics.token", .string, secret: true, default: "none", "bearer token for `/metrics`; when set it is required from every address"),
    ]
}
