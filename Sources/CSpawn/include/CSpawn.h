#ifndef CSPAWN_H
#define CSPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np: the child closes every descriptor from `low_fd` up (glibc 2.34).
/// Why a shim: glibc declares it only under _GNU_SOURCE, which Swift's Glibc module does not define.
int cspawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int low_fd);

/// posix_spawn_file_actions_addchdir_np: the child changes to `path` before exec (glibc 2.29), without the
/// parent ever changing its own working directory.
int cspawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// pipe2(fds, O_CLOEXEC): both ends close on exec from the start, so no child started meanwhile by another thread
/// inherits them (pipe2 is also declared only under _GNU_SOURCE).
int cspawn_pipe_cloexec(int fds[2]);

#endif
