#ifndef NSE_FUZZ_CHECK_H
#define NSE_FUZZ_CHECK_H

// What the three libFuzzer targets share: each input is handed to a checker as an in-memory FILE (fmemopen),
// so a run touches no disk, with limits small enough that one run stays in milliseconds.
// Why smaller than nse's defaults: the code paths are the same (every limit is still reached, just sooner), and
// the fuzzer's goal of millions of runs needs each run short. run-c.sh adds -malloc_limit_mb so that any single
// allocation above the memory limit (a hole in it) is reported as a crash.

#include "CNSE.h"
#include "cnse_checkers.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/// The limits every run uses: 65,536 pixels (256 x 256) keeps one run of the sanitized, instrumented decoders
/// in milliseconds; max_scans keeps nse's default so that limit is reached as nse sets it.
static const cnse_image_limits nse_fuzz_limits = {
    .max_pixels = 65536,
    .max_memory = 4 * 1024 * 1024,
    .max_pixel_work = 1000000,
    .max_frames = 1000,
    .max_scans = 500,
};

typedef cnse_image_status (*nse_fuzz_checker)(FILE *file, const cnse_image_limits *limits, cnse_image_report *report);

/// The report's promises, checked on every run: a terminated message, a status from the enum, and limit figures
/// only with a limit status.
static inline void nse_fuzz_check_report(cnse_image_status status, const cnse_image_report *report) {
    int terminated = 0;
    for (size_t i = 0; i < sizeof(report->message); i++) {
        if (report->message[i] == '\0') {
            terminated = 1;
            break;
        }
    }
    if (!terminated || status > CNSE_IMAGE_OVER_SCAN_LIMIT ||
        (status >= CNSE_IMAGE_OVER_MEMORY_LIMIT && report->needed <= report->limit)) {
        __builtin_trap();
    }
}

typedef cnse_image_status (*nse_fuzz_full_checker)(FILE *file, const cnse_image_limits *limits,
                                                   cnse_image_report *report, int full);

/// The cheap path nse uses must answer exactly as the full decode does (status, size, frames, pixel work, warnings
/// and message) on every input; a difference is reported as a crash.
static inline int nse_fuzz_compare(nse_fuzz_checker checker, nse_fuzz_full_checker full, const uint8_t *data,
                                   size_t size) {
    // Each path runs once: the cheap one's report is also held to the report's promises.
    if (size == 0) {
        return 0;
    }
    cnse_image_report reports[2];
    cnse_image_status statuses[2];
    for (int index = 0; index < 2; index++) {
        FILE *file = fmemopen((void *)data, size, "r");
        if (file == NULL) {
            return 0;
        }
        statuses[index] = index == 0 ? checker(file, &nse_fuzz_limits, &reports[0])
                                     : full(file, &nse_fuzz_limits, &reports[1], 1);
        fclose(file);
    }
    nse_fuzz_check_report(statuses[0], &reports[0]);
    if (statuses[0] != statuses[1] || reports[0].width != reports[1].width || reports[0].height != reports[1].height ||
        reports[0].frames != reports[1].frames || reports[0].pixel_work != reports[1].pixel_work ||
        reports[0].warnings != reports[1].warnings || memcmp(reports[0].message, reports[1].message,
                                                             sizeof(reports[0].message)) != 0) {
        __builtin_trap();
    }
    return 0;
}

#endif
