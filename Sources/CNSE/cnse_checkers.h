#ifndef CNSE_CHECKERS_H
#define CNSE_CHECKERS_H

// The three checkers over an open stream instead of a path. Why: the libFuzzer targets (Fuzz/c) feed each input
// through fmemopen, so millions of runs touch no disk; the public path functions open the file and call these.
// Kept out of include/ because Swift has no use for them. The caller keeps ownership of `file`.

#include "CNSE.h"

#include <stdio.h>

cnse_image_status cnse_png_check_stream(FILE *file, const cnse_image_limits *limits, cnse_image_report *report);
cnse_image_status cnse_jpeg_check_stream(FILE *file, const cnse_image_limits *limits, cnse_image_report *report);
cnse_image_status cnse_gif_check_stream(FILE *file, const cnse_image_limits *limits, cnse_image_report *report);
/// The three checks over a stream with the reference decode (`full` 1: every row unfiltered by libpng, JPEG at
/// full scale, every GIF row decoded by giflib) or the cheap path nse uses (`full` 0; for PNG and GIF it may then
/// answer CNSE_DECODE_IN_FULL, from cnse_report.h, which the *_check_stream functions above handle).
/// The fuzz targets and tests compare the two.
cnse_image_status cnse_png_check_stream_full(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                             int full);
cnse_image_status cnse_jpeg_check_stream_full(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                              int full);
cnse_image_status cnse_gif_check_stream_full(FILE *file, const cnse_image_limits *limits, cnse_image_report *report,
                                             int full);

#endif
