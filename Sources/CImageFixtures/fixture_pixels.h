#ifndef CIMAGEFIXTURES_PIXELS_H
#define CIMAGEFIXTURES_PIXELS_H

// The deterministic pixel functions every fixture encoder draws with.
// Why gradients plus a little noise: pure noise would make files far larger than real photos, pure gradients
// far smaller, and either would skew what the benchmark measures.

#include <stdint.h>

/// A cheap integer hash (a few multiply-xorshift rounds) so that nearby pixels differ unpredictably.
static inline uint32_t cimagefixtures_hash(uint32_t x, uint32_t y, uint32_t seed) {
    uint32_t h = x * 0x9E3779B1u ^ y * 0x85EBCA77u ^ seed * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

/// One row of 8-bit RGB triples for row `y`.
static inline void cimagefixtures_fill_rgb_row(uint8_t *row, uint32_t width, uint32_t y, uint32_t seed) {
    for (uint32_t x = 0; x < width; x++) {
        uint32_t noise = cimagefixtures_hash(x, y, seed);
        row[3 * x + 0] = (uint8_t)((x + seed) + (noise & 0x0f));
        row[3 * x + 1] = (uint8_t)((2 * y + (seed >> 8)) + ((noise >> 4) & 0x0f));
        row[3 * x + 2] = (uint8_t)(((x ^ y) >> 1) + (seed >> 16) + ((noise >> 8) & 0x1f));
    }
}

/// One row of palette indices (0...255) for row `y` of frame `frame`: blocks that shift from frame to frame.
static inline void cimagefixtures_fill_index_row(uint8_t *row, uint32_t width, uint32_t y, uint32_t frame,
                                                 uint32_t seed) {
    for (uint32_t x = 0; x < width; x++) {
        uint32_t noise = cimagefixtures_hash(x, y, seed + frame);
        row[x] = (uint8_t)(((x >> 3) ^ (y >> 3)) + 17 * frame + seed + ((noise & 0x3f) == 0 ? noise >> 8 : 0));
    }
}

#endif
