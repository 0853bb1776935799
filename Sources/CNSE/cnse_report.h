#ifndef CNSE_REPORT_H
#define CNSE_REPORT_H

// Private helpers shared by the three image checkers: filling a cnse_image_report the same way everywhere.
// Kept out of include/ because Swift has no use for them.

#include "CNSE.h"

#include <stdio.h>

/// Zeroes every field, so a report never carries a previous run's words.
void cnse_report_reset(cnse_image_report *report);

/// Replaces the message (errors win over any warning text already stored); always NUL-terminated.
void cnse_report_set_message(cnse_image_report *report, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// Sets the message only if none is stored yet: the first warning is the one worth showing.
void cnse_report_set_message_if_empty(cnse_image_report *report, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// "<what>: <strerror(errnum)>", thread-safely (strerror itself may share a static buffer).
void cnse_report_set_errno(cnse_image_report *report, const char *what, int errnum);

/// Adds one warning, saturating instead of wrapping for files that warn on every block.
void cnse_report_count_warning(cnse_image_report *report);

/// Records that `needed` went over `limit` (the OVER_*_LIMIT statuses); the caller writes the message.
void cnse_report_over_limit(cnse_image_report *report, uint64_t needed, uint64_t limit);

/// Adds `pixels` to report->pixel_work, saturating. Returns 0, or 1 when the total would exceed
/// limits->max_pixel_work: then the work is recorded as needed/limit and pixel_work is left unchanged (the
/// refused frame or scan is not decoded).
int cnse_report_charge_work(cnse_image_report *report, const cnse_image_limits *limits, uint64_t pixels);

/// A checker over an open stream: `full` 1 is the reference decode, 0 the cheap path nse uses, which may answer
/// CNSE_DECODE_IN_FULL when it cannot vouch for the file.
typedef cnse_image_status (*cnse_stream_check)(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                               int full);

/// The cheap path's answer when it cannot vouch for a file (damage, or anything unusual): decode it in full from
/// its start. Never returned by the checkers' public functions.
#define CNSE_DECODE_IN_FULL ((cnse_image_status)-1)

/// `check`'s cheap path over `file`, then, if that answers CNSE_DECODE_IN_FULL, the reference decode from the
/// file's start (`format` names the file in the message if it cannot be read again).
cnse_image_status cnse_report_check_cheap_first(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                                cnse_stream_check check, const char *format);

/// Every checker's path function: opens `path` (a NULL `report` is allowed), runs `check` over it (the cheap path
/// first, or with `full` 1 the reference decode alone) and closes it; a file that cannot be opened is an I/O error.
cnse_image_status cnse_report_check_path(const char *path, const cnse_image_limits *limits, cnse_image_report *report,
                                         cnse_stream_check check, int full, const char *format);

#endif
