extension ConfigurationKey {
    /// The keys of the public and data folders, the export, variants, packs, deltas and caching, in the order the reference lists them.
    static let content: [ConfigurationKey] = [
        .init("public.path", option: "--public", .string, default: "`public`", "folder served as it is"),
        .init("public.rescanInterval", .number, default: "`2`", "seconds between checks for changed files; 0 disables"),
        .init("public.cacheControl", .string, default: "`no-cache`", "`Cache-Control` of public files; empty sends none"),
        .init(
            "public.cacheControlRules",
            .stringArray,
            default: "none",
            "overrides by path prefix, `PREFIX=VALUE` (e.g. `assets/=public, max-age=86400`); longest prefix wins. Set it",
            "in the config file: the environment splits arrays on commas."
        ),
        .init("data.path", option: "--data", .string, default: "`data`", "data folder"),
        .init(
            "export.directory",
            .string,
            default: "none",
            "a folder kept in step with what the server publishes, as plain files any static server or object store serves",
            "([Scaling out](export-and-mirrors.md)); none: no export"
        ),
        .init("gzip.level", .int, default: "`6`", "zlib level of gzip variants, 1–9"),
        .init("gzip.minimumSavings", .number, default: "`0.05`", "fraction of the size a gzip variant must save to be kept"),
        .init("variants.brotli", .bool, default: "`true`", "make brotli variants (`/blobs/{sha256}.br`) of published files"),
        .init("variants.brotliQuality", .int, default: "`9`", "brotli quality, 0–11"),
        .init(
            "variants.brotliWindow",
            .int,
            default: "`22`",
            "brotli window, base-2 logarithm, 10–24 (24, 16 MiB: what a client needs to decode, at most)"
        ),
        .init("variants.zstd", .bool, default: "`true`", "make zstd variants (`/blobs/{sha256}.zst`)"),
        .init("variants.zstdLevel", .int, default: "`19`", "zstd level, 1–19"),
        .init("variants.zstdLongWindow", .int, default: "`26`", "zstd long-distance window, base-2 logarithm, 10–27; 0: none"),
        .init(
            "variants.minimumSavings",
            .number,
            default: "`0.03`",
            "fraction a variant must save against the file's gzip variant (or the file) to be kept"
        ),
        .init(
            "variants.minimumBytes",
            .int,
            default: "`65537`",
            "files smaller than this get no brotli or zstd variant (smaller ones travel in packs, as gzip)"
        ),
        .init(
            "variants.maximumBytes",
            .int,
            default: "256 MiB",
            "files larger than this get none: making one costs seconds of CPU a megabyte (docs/performance.md)"
        ),
        .init(
            "variants.background",
            .bool,
            default: "`true`",
            "make the variants after the commit, in the background (listed by the channel's next release); `false`: before",
            "the commit, so that a release's first clients take them, at the publish's cost"
        ),
        .init(
            "variants.maximumPending",
            .int,
            default: "`1024`",
            "most files waiting for their variants (the queue holds names, not bytes); more are refused, logged and counted",
            "(`depot_variant_requests_refused_total`), and found again once the queue drained"
        ),
        .init(
            "packs.maximumConcurrent",
            .int,
            default: "`2`",
            "page packs (`/packs/{page}`, `.br`) made at once, each on a thread of its own (not the pool that reads files",
            "for answers), 1–64; each is made once and kept"
        ),
        .init(
            "packs.maximumQueued",
            .int,
            default: "`64`",
            "more pages' packs waiting to be made; beyond, 503 with `Retry-After` (the client takes the pack's ranges or",
            "the files another way)"
        ),
        .init(
            "deltas.distances",
            .intArray,
            default: "`[1, 2, 4]`",
            "the earlier versions of a path, counted back from the new content (1 is the one before), a publish makes",
            "patches from (`DEPOT_DELTAS_DISTANCES=1,2,4`); empty: no patches at all"
        ),
        .init(
            "deltas.onRequest",
            .bool,
            default: "`true`",
            "a patch from any other version the catalog holds for the path, earlier or later (the installs a rollback moves back",
            "take a patch too), is made when a client first asks for it, once per pair, one at a time"
        ),
        .init(
            "deltas.maximumPendingRequests",
            .int,
            default: "`16`",
            "the most pairs waiting for an on-request patch; beyond, 503 with `Retry-After` (the client fetches the file",
            "another way)"
        ),
        .init(
            "deltas.blockSize",
            .int,
            default: "`1024`",
            "the block size of block indexes (`/blobs/{sha256}.blocks`): a power of two from 512 to 32768; a quarter of",
            "SQLite's page moves about half the bytes of whole pages (see [Deltas](variants-and-deltas.md#deltas))"
        ),
        .init("deltas.blockIndexMinimumBytes", .int, default: "1 MiB", "contents smaller than this get no block index; 0 makes none"),
        .init(
            "deltas.patchMinimumBytes",
            .int,
            default: "4 KiB",
            "contents smaller than this get no patch, to or from them (a request costs more than it saves); 0 patches every",
            "size"
        ),
        .init(
            "deltas.maximumRatio",
            .number,
            default: "`0.5`",
            "largest patch kept, as a fraction of the full download (the gzip variant when there is one)"
        ),
        .init(
            "deltas.indexStep",
            .int,
            default: "`8`",
            "the encoder indexes the old version every N bytes: 4 makes about 12 % smaller patches of rebuilt (VACUUMed)",
            "SQLite files for about 1.7× the memory"
        ),
        .init(
            "deltas.packSections",
            .bool,
            default: "`true`",
            "packs each patch's VCDIFF sections with LZMA as `xdelta3 -9` does (8 to 21 % smaller patches on",
            "`scripts/bench-delta`'s files); Depot's client and xdelta3 read them, a VCDIFF decoder without secondary",
            "compressors does not"
        ),
        .init(
            "deltas.maximumBaseTags",
            .int,
            default: "`8`",
            "the most `If-None-Match` tags of an RFC 3229 request looked up as the base of a patch (each is a catalog",
            "read); the others are ignored"
        ),
        .init(
            "deltas.maximumSourceBytes",
            .int,
            default: "1 GiB",
            "largest earlier version a patch is made from (the encoder holds it and its index, about 1.75× its size); at",
            "most 4 GiB − 2"
        ),
        .init("files.cacheControl", .string, default: "`no-cache`", "`Cache-Control` of `/files/…`"),
        .init(
            "channels.cacheControl",
            .string,
            default: "`max-age=0, s-maxage=1`",
            "`Cache-Control` of `/channels/…` and `/manifest.json`: every poll revalidates (a 304 when nothing changed), and a shared",
            "cache may answer polls for a second (Varnish and CDNs as configured by default; `no-cache` made them send every poll on)"
        ),
        .init(
            "blobs.cacheControl",
            .string,
            default: "`public, max-age=31536000, immutable`",
            "`Cache-Control` of `/blobs/…`, `/deltas/…`, `/releases/…`, `/pages/…` and `/packs/…`"
        ),
    ]
}
