#ifndef CSYSTEM_H
#define CSYSTEM_H

// glibc functions that Swift's Glibc module does not declare (they need _GNU_SOURCE, or live in malloc.h).
#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `low_fd` up (glibc 2.34).
/// Why a shim: glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not define.
int csystem_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int low_fd);

/// posix_spawn_file_actions_addchdir_np: the child changes to `path` before exec (glibc 2.29), without the
/// parent ever changing its own working directory.
int csystem_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// pipe2(fds, O_CLOEXEC): both ends close on exec from the start, so no child started meanwhile by another thread
/// inherits them (pipe2 is also declared only under _GNU_SOURCE).
int csystem_pipe_cloexec(int fds[2]);

/// Catches each of the `count` signals in `signals` with a handler that writes the signal's number, as one byte, to
/// `write_fd` (give it O_NONBLOCK: a full pipe then drops the byte instead of blocking the thread the signal landed on).
/// A write to a pipe is the one thing such a handler can do safely; a thread reading the other end does the rest.
/// The disposition is in place when this returns: 0, or the errno of the sigaction(2) that failed.
int csystem_catch_signals_into_pipe(const int *signals, int count, int write_fd);

/// mallopt(M_MMAP_THRESHOLD, bytes): every allocation of at least `bytes` gets a mapping of its own, returned to
/// the system when freed (and glibc stops moving the threshold up by itself). 1 on success.
int csystem_malloc_set_mmap_threshold(int bytes);

/// mallopt(M_ARENA_MAX, arenas): at most `arenas` malloc arenas, however many threads allocate. 1 on success.
int csystem_malloc_set_arena_max(int arenas);

#endif
