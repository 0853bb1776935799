#define _GNU_SOURCE
#include "CNSESystem.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

int csystem_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int low_fd) {
    return posix_spawn_file_actions_addclosefrom_np(actions, low_fd);
}

int csystem_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int csystem_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int csystem_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int csystem_malloc_set_arena_max(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}
