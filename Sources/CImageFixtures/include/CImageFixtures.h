#ifndef CIMAGEFIXTURES_H
#define CIMAGEFIXTURES_H
// Placeholder: filled in by the fixtures work.
#endif
