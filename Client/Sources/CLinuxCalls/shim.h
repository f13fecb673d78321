// Linux calls that Swift's Glibc module leaves out, because glibc declares them only with
// _GNU_SOURCE, which that module is built without. Nothing here elsewhere than Linux.
#pragma once
#ifdef __linux__
#include <stdint.h>

// sync_file_range(2): start (or wait for) writeback of part of a file.
extern int sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags);
#define DEPOT_SYNC_FILE_RANGE_WRITE 2

// syncfs(2): commit every write to the file system holding fd, in one journal commit.
extern int syncfs(int fd);

// `struct stat`'s fields, read in C: several Clang modules (Glibc, NIO's CNIOLinux) declare the
// struct, and which one Swift takes as its owner differs between debug and release builds, so
// Swift code that reads a field compiles in one and not the other (MemberImportVisibility).
#include <sys/stat.h>
// The device and inode of a `struct stat` (_NIOFileSystem's FileInfo.platformSpecificStatus).
static inline uint64_t depot_stat_device(const void *status) { return (uint64_t)((const struct stat *)status)->st_dev; }
static inline uint64_t depot_stat_inode(const void *status) { return (uint64_t)((const struct stat *)status)->st_ino; }
// What a publish's stat cache compares (git's index keeps the same): size, modification and
// status-change times in nanoseconds, inode and device, and the kind (1 regular file, 2 folder,
// 0 anything else). `follow` 0 describes a symbolic link itself. Returns 0, or -1 with errno set.
struct depot_file_status {
    int64_t size;
    int64_t modified_ns;
    int64_t changed_ns;
    uint64_t inode;
    uint64_t device;
    int32_t kind;
};
static inline int depot_file_status(const char *path, int follow, struct depot_file_status *out) {
    struct stat status;
    int result = follow ? stat(path, &status) : lstat(path, &status);
    if (result != 0) return -1;
    out->size = (int64_t)status.st_size;
    out->modified_ns = (int64_t)status.st_mtim.tv_sec * 1000000000 + status.st_mtim.tv_nsec;
    out->changed_ns = (int64_t)status.st_ctim.tv_sec * 1000000000 + status.st_ctim.tv_nsec;
    out->inode = (uint64_t)status.st_ino;
    out->device = (uint64_t)status.st_dev;
    out->kind = S_ISREG(status.st_mode) ? 1 : S_ISDIR(status.st_mode) ? 2 : 0;
    return 0;
}
// Whether the file open as `fd` still has a link (was not removed or renamed over): 1, 0, or -1
// when fstat(2) fails.
static inline int depot_fd_is_linked(int fd) {
    struct stat status;
    if (fstat(fd, &status) != 0) return -1;
    return status.st_nlink > 0;
}

// Whether the child `pid` has ended, read with waitid(2)'s WNOWAIT so that it is left for its
// starter to reap: 1 with its exit code (or the number of the signal that ended it) in *status,
// 0 while it runs, -1 with errno set. siginfo_t's fields are macros over unions Swift cannot name.
#include <string.h>
#include <sys/wait.h>
static inline int depot_child_ended(pid_t pid, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    if (info.si_pid == 0) return 0;
    *status = info.si_status;
    return 1;
}

// glibc's allocator: mallopt(3) and malloc_trim(3), which the Glibc module leaves out.
#include <malloc.h>
#endif
