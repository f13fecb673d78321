#if os(Linux)
import CLinuxCalls
#endif

/// The server's hold on glibc's allocator, which by default keeps up to eight arenas a core and
/// returns little of what is freed to the kernel. Measured at 100,000 files (docs/performance.md):
/// after the first publish and a cold sync, 16 arenas held 338 MiB of which about 300 were free
/// chunks, so the RSS was six times the memory in use. Nothing elsewhere than Linux.
public enum Heap {
    /// Caps glibc's malloc at `count` arenas (`mallopt(M_ARENA_MAX)`). Call it first thing:
    /// arenas made before stay.
    public static func limitArenas(to count: Int) {
        #if os(Linux)
        _ = mallopt(M_ARENA_MAX, Int32(clamping: max(1, count)))
        #endif
    }

    /// Gives the pages of freed memory back to the kernel (`malloc_trim(3)`): after work that
    /// allocated much for a moment, such as a commit that lists thousands of files.
    public static func returnFreedPages() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }
}
