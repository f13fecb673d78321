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

// A file's device and inode from a `struct stat` that Swift holds as another module's type
// (_NIOFileSystem's FileInfo.platformSpecificStatus), which Swift code cannot read the fields of.
#include <sys/stat.h>
static inline uint64_t depot_stat_device(const void *status) { return (uint64_t)((const struct stat *)status)->st_dev; }
static inline uint64_t depot_stat_inode(const void *status) { return (uint64_t)((const struct stat *)status)->st_ino; }

// glibc's allocator: mallopt(3) and malloc_trim(3), which the Glibc module leaves out.
#include <malloc.h>
#endif
