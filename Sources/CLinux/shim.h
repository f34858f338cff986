#ifndef ADHOCBUILD_CLINUX_SHIM_H
#define ADHOCBUILD_CLINUX_SHIM_H

// Linux calls that Swift's Glibc module leaves out: glibc declares fallocate(2) and
// sync_file_range(2) only under _GNU_SOURCE, which a module's header cannot switch on for
// headers already built into another module. Rather than declaring glibc's function again, the system call is made by number.

#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Reserves `length` bytes from the start of `fd` without changing its size; -1 with errno
/// (EOPNOTSUPP on file systems that cannot) otherwise.
static inline int adhocbuild_reserve_space(int fd, long length) {
    return (int)syscall(SYS_fallocate, fd, FALLOC_FL_KEEP_SIZE, (long)0, length);
}

/// Starts writing `fd`'s dirty pages from `offset` to the end of the file to disk without
/// waiting for them (sync_file_range(2) with SYNC_FILE_RANGE_WRITE), so that a later fsync has
/// less left to wait for; -1 with errno otherwise.
static inline int adhocbuild_start_writeback(int fd, long offset) {
    return (int)syscall(SYS_sync_file_range, fd, offset, (long)0, (unsigned int)2 /* SYNC_FILE_RANGE_WRITE */);
}

/// Swaps what the paths `a` and `b` name in one step (renameat2(2) with RENAME_EXCHANGE); both must
/// exist. -1 with errno otherwise (EINVAL on file systems that cannot).
static inline int adhocbuild_exchange(const char *a, const char *b) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, (unsigned int)2 /* RENAME_EXCHANGE */);
}

/// Names the calling thread (prctl(2) PR_SET_NAME: the first 15 bytes are kept), as ps, perf and
/// core dumps show it; pthread_setname_np is declared only under _GNU_SOURCE, and prctl is variadic.
static inline int adhocbuild_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}

/// The CPUs this thread may run on, as a bit mask of `words` 64-bit words (sched_getaffinity(2));
/// the number of bytes the kernel wrote, or -1 with errno.
static inline int adhocbuild_allowed_cpus(unsigned long *mask, size_t words) {
    return (int)syscall(SYS_sched_getaffinity, 0, words * sizeof(unsigned long), mask);
}

/// The CPUs the process's main thread may run on (sched_getaffinity(2) of the process ID): what the
/// process was started with, whatever a thread of it has narrowed its own set to since.
static inline int adhocbuild_process_allowed_cpus(unsigned long *mask, size_t words) {
    return (int)syscall(SYS_sched_getaffinity, getpid(), words * sizeof(unsigned long), mask);
}

/// Lets this thread run on the CPUs of `mask` (sched_setaffinity(2)); -1 with errno otherwise.
static inline int adhocbuild_set_allowed_cpus(const unsigned long *mask, size_t words) {
    return (int)syscall(SYS_sched_setaffinity, 0, words * sizeof(unsigned long), mask);
}

/// The CPU this thread is running on (getcpu(2)), or -1.
static inline int adhocbuild_current_cpu(void) {
    unsigned int cpu = 0;
    return syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 ? (int)cpu : -1;
}

/// glibc's pthread_attr_setaffinity_np (declared only under _GNU_SOURCE), under a name of ours: the
/// CPUs a thread started with `attributes` may first run on.
extern int adhocbuild_attr_set_cpus(pthread_attr_t *attributes, size_t bytes, const unsigned long *mask)
    __asm__("pthread_attr_setaffinity_np");

/// open(2)'s O_DIRECT (writes that go around the page cache). glibc names it only under
/// _GNU_SOURCE; its headers give the value for the architecture as __O_DIRECT always.
#define ADHOCBUILD_O_DIRECT __O_DIRECT

#endif
