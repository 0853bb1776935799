#define _GNU_SOURCE
#include "CNSESystem.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
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

static volatile sig_atomic_t csystem_signal_pipe = -1;

static void csystem_signal_to_pipe(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    ssize_t written = write(csystem_signal_pipe, &byte, 1);
    (void)written;
    errno = saved;
}

int csystem_catch_signals_into_pipe(const int *signals, int count, int write_fd) {
    csystem_signal_pipe = write_fd;
    struct sigaction action = {0};
    action.sa_handler = csystem_signal_to_pipe;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < count; i++) sigaddset(&action.sa_mask, signals[i]);
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return errno;
    }
    return 0;
}

int csystem_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int csystem_malloc_set_arena_max(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}
