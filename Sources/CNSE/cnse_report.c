// Filling a cnse_image_report: zeroing, bounded message formatting and errno text.
// Why a file of its own: it needs the POSIX (XSI) strerror_r, which must be chosen before any header is
// included, and the decoders' files must not be compiled under that restricted feature set.

#undef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L

#include "cnse_report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cnse_report_reset(cnse_image_report *report) {
    memset(report, 0, sizeof(*report));
}

static void cnse_report_vformat(cnse_image_report *report, const char *format, va_list arguments) {
    // vsnprintf always terminates within the buffer; a negative result leaves an empty, terminated string.
    if (vsnprintf(report->message, sizeof(report->message), format, arguments) < 0) {
        report->message[0] = '\0';
    }
}

void cnse_report_set_message(cnse_image_report *report, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    cnse_report_vformat(report, format, arguments);
    va_end(arguments);
}

void cnse_report_set_message_if_empty(cnse_image_report *report, const char *format, ...) {
    if (report->message[0] != '\0') {
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    cnse_report_vformat(report, format, arguments);
    va_end(arguments);
}

void cnse_report_set_errno(cnse_image_report *report, const char *what, int errnum) {
    char text[128];
    if (strerror_r(errnum, text, sizeof(text)) != 0) {
        snprintf(text, sizeof(text), "error %d", errnum);
    }
    cnse_report_set_message(report, "%s: %s", what, text);
}

void cnse_report_count_warning(cnse_image_report *report) {
    if (report->warnings < UINT32_MAX) {
        report->warnings += 1;
    }
}

void cnse_report_over_limit(cnse_image_report *report, uint64_t needed, uint64_t limit) {
    report->needed = needed;
    report->limit = limit;
}

int cnse_report_charge_work(cnse_image_report *report, const cnse_image_limits *limits, uint64_t pixels) {
    uint64_t total = pixels > UINT64_MAX - report->pixel_work ? UINT64_MAX : report->pixel_work + pixels;
    if (total > limits->max_pixel_work) {
        cnse_report_over_limit(report, total, limits->max_pixel_work);
        return 1;
    }
    report->pixel_work = total;
    return 0;
}

cnse_image_status cnse_report_check_cheap_first(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                                cnse_stream_check check, const char *format) {
    cnse_image_status status = check(file, limits, report, 0);
    if (status != CNSE_DECODE_IN_FULL) {
        return status;
    }
    if (fseek(file, 0, SEEK_SET) != 0) {
        cnse_report_reset(report);
        char what[64];
        snprintf(what, sizeof(what), "cannot read the %s again from its start", format);
        cnse_report_set_errno(report, what, errno != 0 ? errno : EIO);
        return CNSE_IMAGE_IO_ERROR;
    }
    clearerr(file);
    return check(file, limits, report, 1);
}

cnse_image_status cnse_report_check_path(const char *path, const cnse_image_limits *limits, cnse_image_report *report,
                                         cnse_stream_check check, int full, const char *format) {
    cnse_image_report scratch;
    if (report == NULL) {
        report = &scratch;
    }
    cnse_report_reset(report);
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        cnse_report_set_errno(report, "cannot open the file", errno);
        return CNSE_IMAGE_IO_ERROR;
    }
    cnse_image_status status = full ? check(file, limits, report, 1)
                                    : cnse_report_check_cheap_first(file, limits, report, check, format);
    fclose(file);
    return status;
}
