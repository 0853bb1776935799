// As Apple's `os` brings Darwin, this one brings the C library (code after `canImport(os)` uses pthreads).
@_exported import Glibc

/// `os_unfair_lock`, for code that tests `#if canImport(os)` and then locks with it (swift-argument-parser
/// does, and on Linux also hands the same storage to `pthread_mutex_destroy`): a glibc mutex. All-zero bytes
/// are PTHREAD_MUTEX_INITIALIZER on glibc, so `os_unfair_lock()` is an unlocked lock, as on Apple's systems.
public typealias os_unfair_lock = pthread_mutex_t
public typealias os_unfair_lock_t = UnsafeMutablePointer<os_unfair_lock>

// Emitted into each client: a package that imports `os` only through `canImport(os)` does not link it.

@_alwaysEmitIntoClient
public func os_unfair_lock_lock(_ lock: UnsafeMutablePointer<os_unfair_lock>) {
    // Only EINVAL/EDEADLK are possible, both programming errors that os_unfair_lock would crash on.
    _ = pthread_mutex_lock(lock)
}

@_alwaysEmitIntoClient
public func os_unfair_lock_unlock(_ lock: UnsafeMutablePointer<os_unfair_lock>) {
    _ = pthread_mutex_unlock(lock)
}

@_alwaysEmitIntoClient
public func os_unfair_lock_trylock(_ lock: UnsafeMutablePointer<os_unfair_lock>) -> Bool {
    pthread_mutex_trylock(lock) == 0
}
