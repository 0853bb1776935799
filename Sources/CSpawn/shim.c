#define _GNU_SOURCE
#include "CSpawn.h"

#include <fcntl.h>
#include <unistd.h>

int cspawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int low_fd) {
    return posix_spawn_file_actions_addclosefrom_np(actions, low_fd);
}

int cspawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int cspawn_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
